//! From the lines of a turn to the orders the engine decides: phases end by themselves
//! where a line belongs to a later phase of the turn.

use super::{Line, NotationError, Step};
use crate::game::named::NamedOrder;
use crate::game::Phase;

/// An order to decide, and the line of the text it comes from (an `end phase` the turn
/// needed before a line carries that line's number).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub order: NamedOrder,
    pub line: usize,
}

/// The phases of the turn in which an order is given; empty for orders given at any
/// time, or by another power than the one to play (diplomacy, standing orders, the
/// guerrillas avoiding combat), which end no phase.
fn phases(order: &NamedOrder) -> &'static [Phase] {
    use Phase::*;
    match order {
        NamedOrder::RepairBattleship { .. } => &[Repairs],
        NamedOrder::ApplyForWarLoan => &[Repairs, WeaponsDevelopment],
        NamedOrder::DevelopWeapons { .. } => &[WeaponsDevelopment],
        NamedOrder::Purchase { .. } | NamedOrder::ExpandComplex { .. } => &[Purchase],
        NamedOrder::Move { .. } | NamedOrder::Rail { .. } => &[CombatMove, NonCombatMove],
        NamedOrder::AirDrop { .. } => &[CombatMove],
        NamedOrder::SuppressGuerrillas { .. } => &[CombatMove, Battles],
        NamedOrder::FightBattle { .. } | NamedOrder::FireRocket { .. } => &[Battles],
        NamedOrder::Place { .. } => &[Placement],
        _ => &[],
    }
}

/// Where `phase` stands in the turn, if it is one of the turn's phases.
fn position(phase: Phase) -> Option<usize> {
    Phase::ALL.iter().position(|p| *p == phase)
}

/// The orders `lines` make, for a turn now in `phase`. Between lines, the phases before
/// the next line's phase end (`end phase` orders, decided like any other, so an unfought
/// battle stops the turn there). `phases_follow_the_turn` is false for rulesets whose
/// turn is not the standard cycle ("War"): there only the text's own `end phase` lines
/// end phases.
pub fn plan(
    lines: &[Line],
    phase: Phase,
    phases_follow_the_turn: bool,
) -> Result<Vec<Planned>, NotationError> {
    let mut planned = Vec::new();
    let mut now = phase;
    let end_phase = |now: &mut Phase, line: usize, planned: &mut Vec<Planned>| {
        planned.push(Planned {
            order: NamedOrder::EndPhase,
            line,
        });
        // After income the next power's turn begins.
        *now = now.next().unwrap_or(Phase::Repairs);
    };
    for line in lines {
        let number = line.number;
        let order = match &line.step {
            Step::Phase(target) => {
                if !phases_follow_the_turn {
                    return Err(not_by_phase(number));
                }
                let (Some(from), Some(to)) = (position(now), position(*target)) else {
                    return Err(not_by_phase(number));
                };
                if to < from {
                    return Err(NotationError {
                        line: number,
                        column: 1,
                        message: format!(
                            "the {} phase comes before the {} phase in a turn, and this turn is \
                             at the {} phase already",
                            target.name(),
                            now.name(),
                            now.name()
                        ),
                        suggestions: Vec::new(),
                    });
                }
                while now != *target {
                    end_phase(&mut now, number, &mut planned);
                }
                continue;
            }
            Step::EndTurn => {
                if !phases_follow_the_turn || position(now).is_none() {
                    return Err(not_by_phase(number));
                }
                loop {
                    let last = now == Phase::Income;
                    end_phase(&mut now, number, &mut planned);
                    if last {
                        break;
                    }
                }
                continue;
            }
            Step::Order(order) => order,
        };
        if *order == NamedOrder::EndPhase {
            end_phase(&mut now, number, &mut planned);
            continue;
        }
        let allowed = phases(order);
        if phases_follow_the_turn && !allowed.is_empty() && !allowed.contains(&now) {
            let from = position(now);
            // The first phase later in the turn where the order is given; none: the
            // engine refuses the order where it stands, saying which phase it belongs to.
            let later = allowed
                .iter()
                .copied()
                .find(|p| from.is_some_and(|from| position(*p).is_some_and(|to| to > from)));
            if let Some(target) = later {
                while now != target {
                    end_phase(&mut now, number, &mut planned);
                }
            }
        }
        planned.push(Planned {
            order: order.clone(),
            line: number,
        });
    }
    Ok(planned)
}

fn not_by_phase(line: usize) -> NotationError {
    NotationError {
        line,
        column: 1,
        message: "this ruleset's turn does not follow the standard phases: end each phase with \
                  \"end phase\""
            .to_owned(),
        suggestions: Vec::new(),
    }
}
