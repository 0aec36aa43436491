//! Cut-Throat rail movement and the Rockets weapon that stops an AA gun from railing.
//!
//! - Infantry: up to 3 a turn, 3 spaces counting the turn's earlier movement, into and out
//!   of combat; through a partner's land only with its rail permission.
//! - AA guns: 2 spaces, never through or into enemy land, not after firing a rocket.
//! - Industrial complexes: one a turn, 2 spaces; a capital's own complex never moves; a
//!   moved complex produces nothing this turn, then its new territory's value (an original
//!   complex taken home by its owner produces without limit again).
//!
//! Rogue units (their capital taken) have no rail at all.

use std::collections::VecDeque;

use super::attack::{attack_on, no_combat_in_round_one};
use super::{violation, GameEvent, GameState, Permission, Phase, RuleViolation, Rules};
use crate::board::{Power, TerritoryId};
use crate::dice::{DiceSource, Die};
use crate::game::ViolationCode;
use crate::units::{Ability, UnitTypeId};

const RAIL: &str = "Cut-Throat, Rail movement";
const AA_RAIL: &str = "Cut-Throat, AA rail movement";
const IC_RAIL: &str = "Cut-Throat, IC movement";

/// Infantry a power may rail in one turn, and how far (all movement that turn counted).
pub const RAIL_INFANTRY_PER_TURN: u32 = 3;
pub const RAIL_INFANTRY_SPACES: u8 = 3;
/// How far AA guns and industrial complexes go by rail.
pub const RAIL_HEAVY_SPACES: u8 = 2;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Freight {
    Infantry,
    AntiAircraft,
    Factory,
}

pub(super) fn decide_rail(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
) -> Result<Vec<GameEvent>, RuleViolation> {
    super::movement::is_combat_move(state, "rail movement")?;
    let (unit, n, freight) = freight(rules, state, power, units)?;
    let profile = rules.catalogue.get(unit);
    let board = rules.board;
    let name = |t: TerritoryId| board.get(t).name.clone();
    let (from, to) = super::movement::move_ends(path, n == 0, RAIL, "a rail move")?;
    for pair in path.windows(2) {
        if !board.adjacent(pair[0], pair[1]) || board.get(pair[1]).sea {
            return Err(violation(
                ViolationCode::NotAdjacent,
                RAIL,
                format!(
                    "there is no railway from {} to {}",
                    name(pair[0]),
                    name(pair[1])
                ),
            ));
        }
    }
    let distance = u8::try_from(path.len() - 1).unwrap_or(u8::MAX);
    let present = state.count_units(rules, from, power, |u, _| u == unit);
    let (spent, used) = state.moved.get(&(from, unit)).copied().unwrap_or((0, 0));
    if n > present {
        return Err(violation(
            ViolationCode::NotEnoughUnits,
            RAIL,
            format!(
                "{power} has {present} {} in {}, not {n}",
                profile.code,
                name(from)
            ),
        ));
    }

    let passable = |t: TerritoryId| check_passable(rules, state, power, freight, t);
    for &t in &path[1..path.len() - 1] {
        passable(t)?;
    }
    let mut contested = None;
    match freight {
        Freight::Infantry => {
            let railed = state.railed_infantry + n;
            if railed > RAIL_INFANTRY_PER_TURN {
                return Err(violation(
                    ViolationCode::RailLimit,
                    RAIL,
                    format!(
                        "3 infantry a turn go by rail; {power} has railed {} already",
                        state.railed_infantry
                    ),
                ));
            }
            // Infantry that has not moved goes first; otherwise its earlier moves count.
            let used = if present.saturating_sub(spent) >= n {
                0
            } else {
                used
            };
            if used.saturating_add(distance) > RAIL_INFANTRY_SPACES {
                return Err(violation(
                    ViolationCode::OutOfRange,
                    RAIL,
                    format!("railed infantry goes 3 spaces counting the turn's earlier moves: {used} used, {distance} asked"),
                ));
            }
            let enemy = state.enemy_units(rules, to, power) || state.enemy_held(to, power);
            if enemy {
                attack_on(rules, state, to)?;
                contested = Some(to);
            } else if !state.contested.contains_key(&to) {
                passable(to)?;
            }
        }
        Freight::AntiAircraft | Freight::Factory => {
            passable(to)?;
            if distance > RAIL_HEAVY_SPACES {
                return Err(violation(
                    ViolationCode::OutOfRange,
                    if freight == Freight::Factory {
                        IC_RAIL
                    } else {
                        AA_RAIL
                    },
                    format!(
                        "{} goes 2 spaces by rail, and this path is {distance}",
                        profile.code
                    ),
                ));
            }
            if n > present - spent {
                return Err(violation(
                    ViolationCode::NotEnoughUnits,
                    AA_RAIL,
                    format!(
                        "{power} has {} {} in {} able to move",
                        present - spent,
                        profile.code,
                        name(from)
                    ),
                ));
            }
        }
    }
    check_heavy_destination(rules, state, power, freight, from, to)?;
    Ok(vec![GameEvent::UnitsRailed {
        power,
        units: units.to_vec(),
        path: path.to_vec(),
        contested,
    }])
}

/// What a rail move carries: one kind of unit, infantry, AA guns or one industrial
/// complex a turn, and never a rogue power's.
fn freight(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
) -> Result<(UnitTypeId, u32, Freight), RuleViolation> {
    if state.capital_lost(rules, power) {
        return Err(violation(
            ViolationCode::RogueNoRail,
            "Cut-Throat, General rules: Defeating a Country",
            format!("{power}'s capital is taken: its rogue units have no rail transport"),
        ));
    }
    let [(unit, n)] = units else {
        return Err(violation(
            ViolationCode::RailOneKind,
            RAIL,
            "a rail move carries one kind of unit: infantry, AA guns or an industrial complex",
        ));
    };
    let (unit, n) = (*unit, *n);
    let profile = rules.catalogue.get(unit);
    let freight = if Some(unit) == rules.catalogue.infantry() {
        Freight::Infantry
    } else if profile.has(Ability::AntiAircraft) {
        Freight::AntiAircraft
    } else if profile.has(Ability::Factory) {
        Freight::Factory
    } else {
        return Err(violation(
            ViolationCode::NotByRail,
            RAIL,
            format!(
                "only infantry, AA guns and industrial complexes go by rail, not {}",
                profile.code
            ),
        ));
    };
    if freight == Freight::Factory && (n != 1 || state.factory_railed) {
        return Err(violation(
            ViolationCode::RailLimit,
            IC_RAIL,
            "one industrial complex a turn goes by rail",
        ));
    }
    Ok((unit, n, freight))
}

/// Rail runs through one's own land and, with permission, a partner's.
fn check_passable(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    freight: Freight,
    t: TerritoryId,
) -> Result<(), RuleViolation> {
    let name = |t: TerritoryId| rules.board.get(t).name.clone();
    match state.holder[t.index()] {
        Some(h) if state.at_war(h, power) => Err(violation(
            ViolationCode::RailThroughEnemy,
            if freight == Freight::Infantry {
                RAIL
            } else {
                AA_RAIL
            },
            format!("{} is enemy land: no rail through it", name(t)),
        )),
        Some(h) if !state.permits(h, power, Permission::Rail) => Err(violation(
            ViolationCode::RailPermission,
            RAIL,
            format!(
                "{h} has not allowed {power} to rail through {}: you must have approval",
                name(t)
            ),
        )),
        Some(_) => Ok(()),
        None => Err(violation(
            ViolationCode::NeutralTerritory,
            "Classic rules, Neutral territories",
            format!("{} is neutral and may not be entered", name(t)),
        )),
    }
}

/// An AA gun that fired a rocket stays; a complex leaves no capital and joins no other.
fn check_heavy_destination(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    freight: Freight,
    from: TerritoryId,
    to: TerritoryId,
) -> Result<(), RuleViolation> {
    let board = rules.board;
    let name = |t: TerritoryId| board.get(t).name.clone();
    if freight == Freight::AntiAircraft && state.rockets_fired.contains_key(&from) {
        return Err(violation(
            ViolationCode::RocketFired,
            AA_RAIL,
            "an AA gun that fired a rocket this turn may not move by rail",
        ));
    }
    if freight == Freight::Factory {
        if board.capital(power) == Some(from) {
            return Err(violation(
                ViolationCode::CapitalComplex,
                IC_RAIL,
                "the capital's home industrial complex is not mobile",
            ));
        }
        let occupied = state.forces[to.index()]
            .keys()
            .any(|(_, u, _)| rules.catalogue.get(*u).has(Ability::Factory));
        if occupied {
            return Err(violation(
                ViolationCode::OneComplex,
                IC_RAIL,
                format!("{} has an industrial complex already", name(to)),
            ));
        }
    }
    Ok(())
}

pub(super) fn apply_rail(
    rules: Rules<'_>,
    state: &mut GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
    contested: Option<TerritoryId>,
) {
    let (Some(&from), Some(&to)) = (path.first(), path.last()) else {
        return;
    };
    let distance = u8::try_from(path.len() - 1).unwrap_or(u8::MAX);
    let used_before: Vec<u8> = units
        .iter()
        .map(|(u, _)| state.moved.get(&(from, *u)).map_or(0, |m| m.1))
        .collect();
    super::movement::apply_move(rules, state, power, units, path, &[], contested);
    for (&(unit, n), before) in units.iter().zip(used_before) {
        let profile = rules.catalogue.get(unit);
        let entry = state.moved.entry((to, unit)).or_insert((0, 0));
        if Some(unit) == rules.catalogue.infantry() {
            entry.1 = entry.1.max(before.saturating_add(distance));
            state.railed_infantry += n;
        } else {
            // AA guns and complexes are done for the turn.
            entry.1 = u8::MAX;
        }
        if profile.has(Ability::Factory) {
            state.factory_railed = true;
            state.factories_setting_up.insert(to);
        }
    }
}

const ROCKETS: &str = "Classic rules, Weapons Development: Rockets";

/// Places within `steps` spaces of `from` (land and sea alike).
pub(super) fn within(rules: Rules<'_>, from: TerritoryId, steps: u8) -> Vec<TerritoryId> {
    let mut seen = vec![from];
    let mut queue = VecDeque::from([(from, 0u8)]);
    while let Some((here, d)) = queue.pop_front() {
        if d == steps {
            continue;
        }
        for &next in rules.board.neighbours(here) {
            if !seen.contains(&next) {
                seen.push(next);
                queue.push_back((next, d + 1));
            }
        }
    }
    seen
}

/// Whether `power` has an AA gun in `from` that has not fired its rocket this turn.
pub(super) fn gun_ready(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    from: TerritoryId,
    rule: &'static str,
) -> Result<(), RuleViolation> {
    let guns = state.count_units(rules, from, power, |_, p| p.has(Ability::AntiAircraft));
    let fired = state.rockets_fired.get(&from).copied().unwrap_or(0);
    if guns <= fired {
        return Err(violation(
            ViolationCode::NoRocketGun,
            rule,
            format!(
                "{power} has no AA gun in {} left to fire",
                rules.board.get(from).name
            ),
        ));
    }
    Ok(())
}

/// An AA gun fires a rocket at an enemy complex within 3 spaces: 1d6 off its treasury.
pub(super) fn decide_rocket(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    from: TerritoryId,
    target: TerritoryId,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    super::require_phase(state, Phase::Battles, "firing a rocket")?;
    if !state.combat_allowed(rules) {
        return Err(no_combat_in_round_one());
    }
    if !state.has(power, super::Technology::Rockets) {
        return Err(violation(
            ViolationCode::NoRockets,
            ROCKETS,
            format!("{power} has not developed rockets"),
        ));
    }
    gun_ready(rules, state, power, from, ROCKETS)?;
    let has_factory = state.forces[target.index()]
        .keys()
        .any(|(_, u, _)| rules.catalogue.get(*u).has(Ability::Factory));
    let victim = state.holder[target.index()].filter(|h| state.at_war(*h, power));
    let Some(victim) = victim.filter(|_| has_factory && within(rules, from, 3).contains(&target))
    else {
        return Err(violation(
            ViolationCode::RocketTarget,
            ROCKETS,
            format!(
                "a rocket hits an enemy industrial complex within 3 spaces; {} is not one",
                rules.board.get(target).name
            ),
        ));
    };
    let die: Die = dice.roll();
    let treasury = state.treasury.get(&victim).copied().unwrap_or(0);
    Ok(vec![GameEvent::RocketFired {
        power,
        from,
        target,
        victim,
        die,
        ipc_lost: u32::from(die.value()).min(treasury),
    }])
}
