//! AAP Historical's guerrillas (3.1, 3.3, 3.4): the CCP may refuse battle and stay in a
//! place, blended into the population, and the attacker then holds it if it has ground
//! units there; an enemy with ground units in the place may first roll to suppress them,
//! and a 1 pins them down for the turn.
//!
//! 3.1 also lets them stop "at any round of combat, before or after any rolls are made":
//! an attacking CCP by its battle order (`BattleOrders::blend_in`), a defending one by its
//! standing orders (`StandingOrders::blend_in`), each after round N (0: before the first
//! die) or once N units or fewer are left. The battle then ends with both sides in place.

use crate::battle::RetreatOrder;
use crate::board::{Power, TerritoryId};
use crate::dice::DiceSource;
use crate::game::ViolationCode;
use crate::units::Domain;

use super::standing_orders::Followed;
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

/// Whether `by` (any power of the ruleset when `None`) may order its forces to blend in:
/// only guerrillas do.
pub(super) fn check_blend_in(
    rules: Rules<'_>,
    by: Option<Power>,
    blend_in: Option<RetreatOrder>,
) -> Result<(), RuleViolation> {
    if blend_in.is_none() {
        return Ok(());
    }
    let guerrillas = &rules.special.guerrillas;
    match by {
        None if guerrillas.is_empty() => Err(violation(
            ViolationCode::NotGuerrillas,
            AVOIDANCE,
            "this ruleset has no guerrillas to blend in",
        )),
        Some(by) if !guerrillas.contains(&by) => Err(violation(
            ViolationCode::NotGuerrillas,
            AVOIDANCE,
            format!("only guerrillas blend in; {by} does not"),
        )),
        _ => Ok(()),
    }
}

/// When the attacking guerrillas stop firing, as their battle order says: refused, before
/// any die, for a power that is not guerrillas or guerrillas suppressed in the place.
pub(super) fn attacker_blend_in(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    territory: TerritoryId,
    blend_in: Option<RetreatOrder>,
) -> Result<Option<RetreatOrder>, RuleViolation> {
    check_blend_in(rules, Some(power), blend_in)?;
    if blend_in.is_some() && state.suppression.get(&territory) == Some(&true) {
        return Err(violation(
            ViolationCode::GuerrillasSuppressed,
            SUPPRESSION,
            format!(
                "the guerrillas in {} were suppressed this turn: they must fight",
                rules.board.get(territory).name
            ),
        ));
    }
    Ok(blend_in)
}

/// When the defending guerrillas stop firing, as the standing orders the battle follows
/// say (`Ok(None)`: they say nothing of it); `Err` with the reason when the guerrillas must
/// fight all the same: suppressed in the place this turn (3.4), or defending beside others
/// (who fight on).
pub(super) fn defender_blend_in(
    rules: Rules<'_>,
    state: &GameState,
    territory: TerritoryId,
    defenders: &[Power],
    followed: Option<Followed<'_>>,
) -> Result<Option<RetreatOrder>, &'static str> {
    let Some((power, when)) = followed.and_then(|f| f.orders.blend_in.map(|w| (f.power, w))) else {
        return Ok(None);
    };
    if !rules.special.guerrillas.contains(&power) {
        Err("only guerrillas blend in")
    } else if state.suppression.get(&territory) == Some(&true) {
        Err("they were suppressed here this turn")
    } else if defenders != [power] {
        Err("others defend beside them")
    } else {
        Ok(Some(when))
    }
}

/// The listing's line for a defender's order to blend in that the battle could not follow.
pub(super) fn blend_in_refused_line(defender: Option<Power>, refused: Option<&str>) -> String {
    match (defender, refused) {
        (Some(power), Some(why)) => format!(
            "{} does not blend in, as its standing orders say: {why}\n",
            power.name()
        ),
        _ => String::new(),
    }
}

/// "blend in after round 2", "blend in before the first die", "blend in when 3 units or
/// fewer are left".
pub(crate) fn blend_in_words(when: RetreatOrder) -> String {
    match when {
        RetreatOrder::AfterRound(0) => "blend in before the first die".to_owned(),
        RetreatOrder::AfterRound(n) => format!("blend in after round {n}"),
        RetreatOrder::WhenAtMost(1) => "blend in when 1 unit or none is left".to_owned(),
        RetreatOrder::WhenAtMost(n) => format!("blend in when {n} units or fewer are left"),
    }
}
