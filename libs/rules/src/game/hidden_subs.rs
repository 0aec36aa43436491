//! AAP Historical's submarines (7.1, 7.2): "Subs cannot be attacked unless (i) they have an
//! order to block surface vessels as indicated by a Special Order, (ii) they occupy any
//! convoy zones or routes, (iii) they are in a sea zone with one or more enemy destroyers
//! at the start of the owner of the destroyer's turn." Submarines that cannot be attacked
//! sit battles out: they neither fire nor are hit, and no move into their zone is an
//! attack on them. A blocking order may name the powers it blocks (7.2: "the sub can be
//! ordered to block UK vessels and dive against US vessels").

use std::collections::BTreeSet;

use crate::board::{Power, TerritoryId};
use crate::game::ViolationCode;
use crate::units::{Ability, UnitTypeId};

use super::{violation, GameEvent, GameState, Phase, RuleViolation, Rules};

const HIDDEN: &str = "AAP Historical, 7.1 (when subs can be attacked)";
const BLOCKING: &str = "AAP Historical, 7.2 (country-specific orders)";

/// Whether a unit is a submarine.
pub(super) fn is_sub(rules: Rules<'_>, unit: UnitTypeId) -> bool {
    rules.catalogue.get(unit).has(Ability::FirstStrike)
}

/// Whether `owner`'s submarines in `zone` block `mover`'s ships, by its order for that zone
/// or, without one, for all its zones.
pub(super) fn blocks(state: &GameState, owner: Power, zone: TerritoryId, mover: Power) -> bool {
    state
        .blocking
        .get(&(owner, Some(zone)))
        .or_else(|| state.blocking.get(&(owner, None)))
        .is_some_and(|against| against.contains(&mover))
}

/// Whether `attacker` may attack `owner`'s submarines in `zone` now.
pub(super) fn attackable(
    rules: Rules<'_>,
    state: &GameState,
    zone: TerritoryId,
    owner: Power,
    attacker: Power,
) -> bool {
    !rules.special.submarines_hidden
        || blocks(state, owner, zone, attacker)
        || rules.special.is_convoy_zone(zone)
        || (attacker == state.power(rules.board) && state.destroyers_at_turn_start.contains(&zone))
}

/// Whether `owner`'s `unit` in `place` is a submarine `attacker` may not attack there: it
/// sits the battle out.
pub(super) fn sits_out(
    rules: Rules<'_>,
    state: &GameState,
    place: TerritoryId,
    (owner, unit): (Power, UnitTypeId),
    attacker: Power,
) -> bool {
    owner != attacker && is_sub(rules, unit) && !attackable(rules, state, place, owner, attacker)
}

/// Whether `owner`'s `unit` in `place` takes part in `attacker`'s battle there: every
/// combatant but submarines it may not attack.
pub(super) fn fights(
    rules: Rules<'_>,
    state: &GameState,
    place: TerritoryId,
    owner: Power,
    unit: UnitTypeId,
    attacker: Power,
) -> bool {
    rules.catalogue.get(unit).is_combatant()
        && !sits_out(rules, state, place, (owner, unit), attacker)
}

/// As a power's turn begins: the zones where it has a destroyer (7.1 iii).
pub(super) fn turn_began(rules: Rules<'_>, state: &mut GameState) {
    if !rules.special.submarines_hidden {
        return;
    }
    let power = state.power(rules.board);
    state.destroyers_at_turn_start = rules
        .board
        .territories()
        .filter(|(id, t)| {
            t.sea
                && state.forces[id.index()].iter().any(|((o, u, _), n)| {
                    *o == power && *n > 0 && rules.catalogue.get(*u).has(Ability::HuntsSubmarines)
                })
        })
        .map(|(id, _)| id)
        .collect();
}

/// A blocking order for the power's submarines, given in its own turn.
pub(super) fn decide_block(
    rules: Rules<'_>,
    power: Power,
    sea_zone: Option<TerritoryId>,
    against: &[Power],
) -> Result<Vec<GameEvent>, RuleViolation> {
    if !rules.special.submarines_hidden {
        return Err(violation(
            ViolationCode::NotInThisRuleset,
            BLOCKING,
            "in this ruleset submarines block without orders",
        ));
    }
    if let Some(zone) = sea_zone.filter(|z| !rules.board.get(*z).sea) {
        return Err(violation(
            ViolationCode::NotASeaZone,
            BLOCKING,
            format!("{} is not a sea zone", rules.board.get(zone).name),
        ));
    }
    let seated: BTreeSet<Power> = rules.board.turn_order().iter().copied().collect();
    if let Some(other) = against.iter().find(|p| **p == power || !seated.contains(p)) {
        return Err(violation(
            ViolationCode::UnknownPower,
            BLOCKING,
            format!("{power}'s submarines block other powers of this game; not {other}"),
        ));
    }
    Ok(vec![GameEvent::SubmarinesBlocking {
        power,
        sea_zone,
        against: against
            .iter()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
    }])
}

/// 7.1 (iii): a battle against the enemy submarines in a zone where the power's destroyer
/// stood when its turn began, declared in the combat move.
pub(super) fn decide_attack(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    sea_zone: TerritoryId,
) -> Result<Vec<GameEvent>, RuleViolation> {
    if state.phase != Phase::CombatMove {
        return Err(violation(
            ViolationCode::WrongPhase,
            HIDDEN,
            "submarines are attacked in the combat move",
        ));
    }
    super::attack::attack_on(rules, state, sea_zone)?;
    let name = &rules.board.get(sea_zone).name;
    let prey = state.forces[sea_zone.index()]
        .iter()
        .any(|((owner, unit, _), n)| {
            *n > 0
                && is_sub(rules, *unit)
                && state.at_war(*owner, power)
                && attackable(rules, state, sea_zone, *owner, power)
        });
    if !prey {
        return Err(violation(
            ViolationCode::SubmarinesHidden,
            HIDDEN,
            format!(
                "{power} may attack no submarines in {name}: subs are attacked only where they \
                 block it by order, in a convoy zone or route, or where its destroyer stood \
                 when its turn began"
            ),
        ));
    }
    if state.contested.contains_key(&sea_zone) {
        return Err(violation(
            ViolationCode::BattleUnderway,
            HIDDEN,
            format!("a battle is already to be fought in {name}"),
        ));
    }
    Ok(vec![GameEvent::SubmarinesAttacked { power, sea_zone }])
}
