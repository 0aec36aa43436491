//! The turn's cycle: ending a phase (and what ending it brings: income at the end of the
//! turn, or Enhanced Realism's at its beginning, instalments, forfeits), passive status, and
//! the phase an order belongs to.

use super::*;

pub(crate) fn end_phase(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    at: Moment,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let mut events = Vec::new();
    match state.phase {
        Phase::Placement if !state.pending.is_empty() && rules.special.places_recruits(power) => {
            // Recruits left unplaced go where the power has the most units.
            let site = economy::most_units(rules, state, power).or_else(|| {
                state
                    .placement_sites(rules, power, *state.pending.keys().next()?)
                    .first()
                    .copied()
            });
            events.push(match site {
                Some(territory) => GameEvent::UnitsPlaced {
                    power,
                    territory,
                    units: state.pending.iter().map(|(u, n)| (*u, *n)).collect(),
                },
                None => GameEvent::UnitsForfeited {
                    power,
                    units: state.pending.iter().map(|(u, n)| (*u, *n)).collect(),
                },
            });
        }
        Phase::Placement if !state.pending.is_empty() => {
            if state
                .pending
                .keys()
                .any(|u| state.can_place(rules, power, *u))
            {
                let left: u32 = state.pending.values().sum();
                return Err(violation(
                    ViolationCode::UnitsUnplaced,
                    "Classic rules, Mobilize",
                    format!("{left} purchased units are still to be placed"),
                ));
            }
            // Nowhere left to put them: they are lost, and the log says so.
            events.push(GameEvent::UnitsForfeited {
                power,
                units: state.pending.iter().map(|(u, n)| (*u, *n)).collect(),
            });
        }
        Phase::Income => {
            // Enhanced Realism collects at the beginning of the turn instead (below).
            let amount = if rules.economy.collected_at_turn_start {
                0
            } else {
                let amount = economy::income(rules, state, power);
                events.push(GameEvent::IncomeCollected { power, amount });
                amount
            };
            if state.passive.contains(&power) {
                let treasury = state.treasury.get(&power).copied().unwrap_or(0) + amount;
                events.extend(infantry_for(rules, power, treasury));
            }
            events.extend(economy::reinforcements(rules, state, power));
            events.extend(seats::substitute_made_permanent(state, power));
        }
        Phase::Repairs => {
            // Enhanced Realism, VII: "At the beginning of a turn, a player multiplies his
            // originally-owned territories ...": collected before weapons development and
            // purchase, and the loan's instalment paid out of it.
            let mut collected = None;
            if rules.economy.collected_at_turn_start {
                let event = GameEvent::IncomeCollected {
                    power,
                    amount: economy::income(rules, state, power),
                };
                let mut after = state.clone();
                apply(rules, &mut after, &event);
                events.push(event);
                collected = Some(after);
            }
            let state = collected.as_ref().unwrap_or(state);
            events.extend(patrols::ended(rules, state, power));
            events.extend(loan_instalment(state, power));
            events.extend(economy::recruits(rules, state, power));
        }
        Phase::NonCombatMove => {
            let losses = state.stranded_aircraft(rules, power);
            if !losses.is_empty() {
                events.push(GameEvent::AircraftLost { power, losses });
            }
        }
        Phase::Battles if state.battles_to_fight(rules, power).is_empty() => {
            events.extend(convoys::after_battles(rules, state, power));
        }
        Phase::Battles => {
            let names: Vec<String> = state
                .battles_to_fight(rules, power)
                .into_iter()
                .map(|t| rules.board.get(t).name.clone())
                .collect();
            return Err(violation(
                ViolationCode::BattlesPending,
                "Part 13, GM requirements",
                format!(
                    "every battle is fought before the phase ends; still to fight: {}",
                    names.join(", ")
                ),
            ));
        }
        _ => {}
    }
    events.push(GameEvent::PhaseEnded {
        power,
        phase: state.phase,
        at,
    });
    Ok(events)
}

pub(crate) const PASSIVE: &str = "Cut-Throat, Rules for players (passive status)";

/// A passive power's treasury as infantry on its capital (what is left over stays).
pub(crate) fn infantry_for(rules: Rules<'_>, power: Power, treasury: u32) -> Option<GameEvent> {
    let infantry = rules.catalogue.infantry()?;
    let cost = rules.catalogue.get(infantry).cost.max(1);
    let count = treasury / cost;
    (count > 0).then_some(GameEvent::TreasuryConvertedToInfantry {
        power,
        infantry: count,
        spent: count * cost,
    })
}

pub(crate) fn go_passive(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
) -> Result<Vec<GameEvent>, RuleViolation> {
    if state.capital_lost(rules, power) {
        return Err(violation(
            ViolationCode::CapitalLost,
            PASSIVE,
            format!(
                "a passive power's infantry stands on its capital, and {power} has lost its own"
            ),
        ));
    }
    let treasury = state.treasury.get(&power).copied().unwrap_or(0);
    let mut events = vec![GameEvent::WentPassive { power }];
    events.extend(infantry_for(rules, power, treasury));
    Ok(events)
}

pub(crate) fn require_phase(
    state: &GameState,
    phase: Phase,
    what: &str,
) -> Result<(), RuleViolation> {
    if state.phase == phase {
        Ok(())
    } else {
        Err(violation(
            ViolationCode::WrongPhase,
            "Classic rules, Order of play",
            format!(
                "{what} belongs to the {} phase; this is the {} phase",
                phase.name(),
                state.phase.name()
            ),
        ))
    }
}
