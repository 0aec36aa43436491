//! AAP Historical, 3.2: "CCP (and KMT) must try to keep at least 1 infantry in Shansi at all
//! times unless it is occupied by Japan." A move by either that would take the last of
//! their infantry out of the place is refused while no power at war with the mover holds
//! it; battles may still empty it ("try").

use crate::board::{Power, TerritoryId};
use crate::game::ViolationCode;
use crate::units::UnitTypeId;

use super::{violation, GameState, RuleViolation, Rules};

const GARRISON: &str = "AAP Historical, 3.2 (at least 1 infantry in Shansi)";

/// Refuses a move of `units` out of `from` by `power` that leaves a garrison without
/// infantry.
pub(super) fn check_leaving(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    from: TerritoryId,
    units: &[(UnitTypeId, u32)],
) -> Result<(), RuleViolation> {
    let Some(infantry) = rules.catalogue.infantry() else {
        return Ok(());
    };
    for (place, powers) in &rules.special.garrisons {
        if *place != from || !powers.contains(&power) || state.enemy_held(from, power) {
            continue;
        }
        let leaving: u32 = units
            .iter()
            .filter(|(u, _)| *u == infantry)
            .map(|(_, n)| n)
            .sum();
        if leaving == 0 {
            continue;
        }
        let standing: u32 = powers
            .iter()
            .map(|p| state.count_units(rules, from, *p, |u, _| u == infantry))
            .sum();
        if standing <= leaving {
            let names: Vec<&str> = powers.iter().map(|p| p.name()).collect();
            return Err(violation(
                ViolationCode::GarrisonLeft,
                GARRISON,
                format!(
                    "the {} keep at least 1 infantry in {} unless the enemy holds it; this move \
                     takes the last",
                    names.join(" and the "),
                    rules.board.get(from).name
                ),
            ));
        }
    }
    Ok(())
}
