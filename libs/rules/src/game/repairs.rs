//! Cut-Throat's 2 hit battleship rule: a damaged battleship repaired beside its own
//! complex, for 5 IPC and a die.

use super::*;

pub(crate) const REPAIRS: &str = "Cut-Throat, 2 hit battleship rule";

/// What a repair costs before its die.
pub(crate) const REPAIR_BASE_COST: u32 = 5;

pub(crate) fn repair_battleship(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    sea_zone: TerritoryId,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    require_phase(state, Phase::Repairs, "repairing")?;
    if state.capital_lost(rules, power) {
        return Err(violation(
            ViolationCode::RogueNoRepairs,
            "Cut-Throat, General rules: Defeating a Country",
            format!("{power}'s capital is taken: its rogue units cannot repair battleships"),
        ));
    }
    let zone = rules.board.get(sea_zone);
    let damaged = state.forces[sea_zone.index()]
        .iter()
        .any(|((owner, unit, damage), n)| {
            *owner == power && *damage > 0 && *n > 0 && rules.catalogue.get(*unit).hit_points > 1
        });
    if !zone.sea || !damaged {
        return Err(violation(
            ViolationCode::NothingToRepair,
            REPAIRS,
            format!("{power} has no damaged battleship in {}", zone.name),
        ));
    }
    let beside_own_complex = rules.board.neighbours(sea_zone).iter().any(|t| {
        state.holder[t.index()] == Some(power)
            && state.forces[t.index()]
                .keys()
                .any(|(_, unit, _)| rules.catalogue.get(*unit).has(Ability::Factory))
    });
    if !beside_own_complex {
        return Err(violation(
            ViolationCode::NoShipyard,
            REPAIRS,
            format!("a battleship is repaired next to a territory with an industrial complex of {power}; {} is not", zone.name),
        ));
    }
    let treasury = state.treasury.get(&power).copied().unwrap_or(0);
    if treasury < REPAIR_BASE_COST + 6 {
        return Err(violation(
            ViolationCode::InsufficientIpc,
            REPAIRS,
            format!("a repair costs 5 IPC and a die (up to 11); {power} has {treasury}"),
        ));
    }
    let die = dice.roll();
    Ok(vec![GameEvent::BattleshipRepaired {
        power,
        sea_zone,
        die,
        cost: REPAIR_BASE_COST + u32::from(die.value()),
    }])
}
