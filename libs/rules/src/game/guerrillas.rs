//! AAP Historical's guerrillas (3.1, 3.3, 3.4): the CCP may refuse battle and stay in a
//! place, blended into the population, and the attacker then holds it if it has ground
//! units there; an enemy with ground units in the place may first roll to suppress them,
//! and a 1 pins them down for the turn.

use crate::board::{Power, TerritoryId};
use crate::dice::DiceSource;
use crate::game::ViolationCode;
use crate::units::Domain;

use super::{violation, GameEvent, GameState, Phase, RuleViolation, Rules};

const AVOIDANCE: &str = "AAP Historical, 3.1 (CCP combat avoidance)";
const SUPPRESSION: &str = "AAP Historical, 3.4 (suppressing CCP guerrillas)";

fn ground_units(rules: Rules<'_>, state: &GameState, place: TerritoryId, who: Power) -> u32 {
    state.count_units(rules, place, who, |_, u| {
        u.domain == Domain::Land && u.is_combatant()
    })
}

/// Guerrillas of the ruleset's in `place`, other than `power`'s.
fn guerrillas_in(rules: Rules<'_>, state: &GameState, place: TerritoryId) -> Option<Power> {
    rules
        .special
        .guerrillas
        .iter()
        .copied()
        .find(|g| ground_units(rules, state, place, *g) > 0)
}

pub(super) fn decide_suppression(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    territory: TerritoryId,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let name = &rules.board.get(territory).name;
    if !matches!(state.phase, Phase::CombatMove | Phase::Battles) {
        return Err(violation(
            ViolationCode::WrongPhase,
            SUPPRESSION,
            "guerrillas are suppressed in the combat move or the battles",
        ));
    }
    let Some(guerrillas) = guerrillas_in(rules, state, territory).filter(|g| *g != power) else {
        return Err(violation(
            ViolationCode::NoGuerrillas,
            SUPPRESSION,
            format!("there are no guerrillas to suppress in {name}"),
        ));
    };
    if ground_units(rules, state, territory, power) == 0 {
        return Err(violation(
            ViolationCode::NoGroundUnits,
            SUPPRESSION,
            format!("{power} needs ground units in {name} to suppress the {guerrillas}"),
        ));
    }
    if state.suppression.contains_key(&territory) {
        return Err(violation(
            ViolationCode::SuppressionRolled,
            SUPPRESSION,
            format!("{power} has rolled for {name} this turn: one roll a place"),
        ));
    }
    let die = dice.roll();
    Ok(vec![GameEvent::GuerrillaSuppression {
        power,
        territory,
        die,
        suppressed: die.value() == 1,
    }])
}

pub(super) fn decide_avoid(
    rules: Rules<'_>,
    state: &GameState,
    by: Power,
    territory: TerritoryId,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let name = &rules.board.get(territory).name;
    let attacker = state.power(rules.board);
    if !rules.special.guerrillas.contains(&by) {
        return Err(violation(
            ViolationCode::NotGuerrillas,
            AVOIDANCE,
            format!("only guerrillas refuse battle; {by} does not"),
        ));
    }
    let against = state.contested.get(&territory);
    let declared = against.is_some_and(|against| against.contains(&by));
    // Only the guerrillas blend in: with others defending beside them, the battle is on.
    let others = against.into_iter().flatten().any(|p| {
        !rules.special.guerrillas.contains(p)
            && state.count_units(rules, territory, *p, |_, _| true) > 0
    });
    if others {
        return Err(violation(
            ViolationCode::GuerrillasNotAlone,
            AVOIDANCE,
            format!("others defend {name} beside the {by}: the battle is fought"),
        ));
    }
    if !declared || by == attacker || ground_units(rules, state, territory, by) == 0 {
        return Err(violation(
            ViolationCode::NoBattleHere,
            AVOIDANCE,
            format!("{by} has no battle to refuse in {name}"),
        ));
    }
    if state.suppression.get(&territory) == Some(&true) {
        return Err(violation(
            ViolationCode::GuerrillasSuppressed,
            SUPPRESSION,
            format!("{attacker} suppressed the guerrillas in {name} this turn: they must fight"),
        ));
    }
    // 3.3: the attacker controls the place if it keeps a land unit there.
    let taken = ground_units(rules, state, territory, attacker) > 0;
    let avoided = GameEvent::GuerrillasAvoidedCombat {
        power: by,
        territory,
        attacker,
        taken,
    };
    // A capital taken this way voids its power's agreements, as one taken in battle does.
    let previous = state.holder[territory.index()].filter(|h| taken && *h != attacker);
    let voided = super::diplomacy::capital_taken(rules, state, &avoided, territory, previous);
    Ok(std::iter::once(avoided).chain(voided).collect())
}
