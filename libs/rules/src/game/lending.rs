//! AAP Historical's lending (3.5): "US cannot attack along with CCP (CCP move first) but can
//! attack along with KMT (units are considered lent by US to KMT to use on KMT's turn - US
//! can regain possession of units lent at any time but can't move them if units already
//! moved on KMT's turn)."
//!
//! Lent units are the borrower's to move and fight with until the lender takes them back;
//! the record counts how many of each type stand lent in each place. Units of one type are
//! alike, so when the borrower moves some of a type from a place, its lent ones go first,
//! and when it loses some, its own go first. Taking back, the lender gets first the ones
//! that have not moved on the borrower's turn this round; any that have may not move again
//! until the round ends.

use crate::board::{Power, TerritoryId};
use crate::game::ViolationCode;
use crate::units::UnitTypeId;

use super::{take_of_type, violation, GameEvent, GameState, Order, RuleViolation, Rules};

const LENDING: &str = "AAP Historical, 3.5 (units lent by the US to the KMT)";

/// Units on loan in one place, of one type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Loan {
    pub count: u32,
    /// Of them, those that moved on the borrower's turn this round.
    pub moved: u32,
}

pub(super) fn decide(
    rules: Rules<'_>,
    state: &GameState,
    by: Power,
    order: &Order,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let (lender, borrower, territory, units, lending) = match order {
        Order::Lend {
            to,
            territory,
            units,
        } => (by, *to, *territory, units, true),
        Order::Recall {
            from,
            territory,
            units,
        } => (by, *from, *territory, units, false),
        _ => unreachable!("only lending orders come here"),
    };
    if !rules.special.lending.contains(&(lender, borrower)) {
        return Err(violation(
            ViolationCode::NoLoan,
            LENDING,
            format!("in this ruleset {lender} lends no units to {borrower}"),
        ));
    }
    let name = &rules.board.get(territory).name;
    if units.is_empty() || units.iter().any(|(_, n)| *n == 0) {
        return Err(violation(
            ViolationCode::BadArmy,
            LENDING,
            "a loan names its units, each at least once",
        ));
    }
    if state.contested.contains_key(&territory) {
        return Err(violation(
            ViolationCode::BattleUnderway,
            LENDING,
            format!("a battle is to be fought in {name}: its units change hands after it"),
        ));
    }
    for &(unit, n) in units {
        let code = &rules.catalogue.get(unit).code;
        let available = if lending {
            state
                .count_units(rules, territory, lender, |u, _| u == unit)
                .saturating_sub(state.patrolling(lender, territory, unit))
        } else {
            state
                .lent
                .get(&(borrower, territory, unit))
                .map_or(0, |loan| loan.count)
        };
        if n > available {
            return Err(violation(
                if lending {
                    ViolationCode::NotEnoughUnits
                } else {
                    ViolationCode::NotLent
                },
                LENDING,
                if lending {
                    format!("{lender} has {available} {code} in {name} to lend, not {n}")
                } else {
                    format!("{lender} has {available} {code} lent to {borrower} in {name}, not {n}")
                },
            ));
        }
    }
    let units = units.clone();
    Ok(vec![if lending {
        GameEvent::UnitsLent {
            from: lender,
            to: borrower,
            territory,
            units,
        }
    } else {
        GameEvent::UnitsRecalled {
            from: borrower,
            to: lender,
            territory,
            units,
        }
    }])
}

pub(super) fn apply(state: &mut GameState, event: &GameEvent) {
    let hand_over = |state: &mut GameState, from: Power, to: Power, at: TerritoryId, unit, n| {
        for (damage, taken) in take_of_type(&mut state.forces[at.index()], from, unit, n) {
            *state.forces[at.index()]
                .entry((to, unit, damage))
                .or_default() += taken;
        }
    };
    match event {
        GameEvent::UnitsLent {
            from,
            to,
            territory,
            units,
        } => {
            for &(unit, n) in units {
                hand_over(state, *from, *to, *territory, unit, n);
                state.lent.entry((*to, *territory, unit)).or_default().count += n;
            }
        }
        GameEvent::UnitsRecalled {
            from,
            to,
            territory,
            units,
        } => {
            for &(unit, n) in units {
                hand_over(state, *from, *to, *territory, unit, n);
                let key = (*from, *territory, unit);
                let loan = state.lent.get(&key).copied().unwrap_or_default();
                // The ones that have not moved come back first.
                let unmoved = loan.count - loan.moved;
                let tired = n.saturating_sub(unmoved);
                if tired > 0 {
                    *state.resting.entry((*to, *territory, unit)).or_default() += tired;
                }
                let count = loan.count.saturating_sub(n);
                state.lent.insert(
                    key,
                    Loan {
                        count,
                        moved: loan.moved.saturating_sub(tired).min(count),
                    },
                );
            }
            state.lent.retain(|_, loan| loan.count > 0);
        }
        _ => {}
    }
}

/// The borrower moved `n` of `unit` from `from` to `to`: its lent ones go first.
pub(super) fn moved(
    state: &mut GameState,
    power: Power,
    from: TerritoryId,
    to: TerritoryId,
    unit: UnitTypeId,
    n: u32,
) {
    let Some(loan) = state.lent.get(&(power, from, unit)).copied() else {
        return;
    };
    let going = n.min(loan.count);
    if going == 0 || from == to {
        return;
    }
    let stay = Loan {
        count: loan.count - going,
        moved: loan.moved.min(loan.count - going),
    };
    state.lent.insert((power, from, unit), stay);
    let there = state.lent.entry((power, to, unit)).or_default();
    there.count += going;
    there.moved += going;
    state.lent.retain(|_, loan| loan.count > 0);
}

/// After any event: no more units lent in a place than the borrower has there (its own are
/// lost first).
pub(super) fn settle(rules: Rules<'_>, state: &mut GameState) {
    if state.lent.is_empty() {
        return;
    }
    let counts: Vec<((Power, TerritoryId, UnitTypeId), u32)> = state
        .lent
        .keys()
        .map(|&(power, place, unit)| {
            let here = state.count_units(rules, place, power, |u, _| u == unit);
            ((power, place, unit), here)
        })
        .collect();
    for (key, here) in counts {
        if let Some(loan) = state.lent.get_mut(&key) {
            loan.count = loan.count.min(here);
            loan.moved = loan.moved.min(loan.count);
        }
    }
    state.lent.retain(|_, loan| loan.count > 0);
}

/// A new round: nothing lent has moved on this round's turns yet.
pub(super) fn round_ended(state: &mut GameState) {
    for loan in state.lent.values_mut() {
        loan.moved = 0;
    }
    state.resting.clear();
}
