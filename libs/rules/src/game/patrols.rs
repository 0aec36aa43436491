//! AAP Historical's combat air patrol (8, 8.1): "(1) both adjacent sea zones and adjacent
//! land territories, including land territories conquered in that turn, can be CAPed; (2)
//! both fighters and bombers can CAP although bombers still only defend @1 if the CAPed
//! zone is attacked; and (3) CAP may be set from any territory in which a plane was located
//! at the end of the non-combat move". "CAP can be used to capture an enemy convoy zone or a
//! convoy route, but the CAP must be set during combat phase."
//!
//! Patrolling aircraft stand in the place they patrol (its own or one next door) until their
//! owner's next turn begins: they defend it with whatever else is there, a move into it by
//! an enemy is an attack on them, and they take or free its convoy. When the turn begins,
//! the survivors go back to where they came from, or are lost if they can no longer land
//! there. Patrols are set in the non-combat move, or in the combat move over a convoy zone.

use crate::board::{Power, TerritoryId};
use crate::game::ViolationCode;
use crate::units::{Domain, UnitTypeId};

use super::{
    take_of_type, violation, GameEvent, GameState, Permission, Phase, RuleViolation, Rules,
};

const PATROL: &str = "AAP Historical, 8 (combat air patrol)";

impl GameState {
    /// How many of `power`'s `unit` patrol over `place`.
    pub(super) fn patrolling(&self, power: Power, place: TerritoryId, unit: UnitTypeId) -> u32 {
        self.patrols
            .iter()
            .filter(|((o, over, _, u), _)| *o == power && *over == place && *u == unit)
            .map(|(_, n)| n)
            .sum()
    }
}

pub(super) fn decide(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
    from: TerritoryId,
    over: TerritoryId,
) -> Result<Vec<GameEvent>, RuleViolation> {
    if !rules.special.combat_air_patrol {
        return Err(violation(
            ViolationCode::NotInThisRuleset,
            PATROL,
            "this ruleset has no combat air patrol",
        ));
    }
    let board = rules.board;
    let (from_name, over_name) = (&board.get(from).name, &board.get(over).name);
    let convoy = rules.special.is_convoy_zone(over);
    match state.phase {
        Phase::NonCombatMove => {}
        Phase::CombatMove if convoy => {}
        Phase::CombatMove => {
            return Err(violation(
                ViolationCode::WrongPhase,
                PATROL,
                format!(
                    "a patrol is set in the non-combat move; in the combat move only over a convoy \
                     centre or route, to take or free it, and {over_name} is neither"
                ),
            ))
        }
        other => {
            return Err(violation(
                ViolationCode::WrongPhase,
                PATROL,
                format!(
                    "a patrol is set in the non-combat move (or the combat move, over a convoy); \
                     this is the {} phase",
                    other.name()
                ),
            ))
        }
    }
    if units.is_empty() || units.iter().any(|(_, n)| *n == 0) {
        return Err(violation(
            ViolationCode::BadArmy,
            PATROL,
            "a patrol names its aircraft, each at least once",
        ));
    }
    for &(unit, n) in units {
        let profile = rules.catalogue.get(unit);
        if profile.domain != Domain::Air {
            return Err(violation(
                ViolationCode::NotAircraft,
                PATROL,
                format!("only fighters and bombers patrol; not {}", profile.code),
            ));
        }
        let free = state
            .count_units(rules, from, power, |u, _| u == unit)
            .saturating_sub(state.patrolling(power, from, unit));
        if n > free {
            return Err(violation(
                ViolationCode::NotEnoughUnits,
                PATROL,
                format!(
                    "{power} has {free} {} in {from_name} free to patrol, not {n}",
                    profile.code
                ),
            ));
        }
    }
    if over != from && !board.adjacent(from, over) {
        return Err(violation(
            ViolationCode::PatrolPlace,
            PATROL,
            format!("aircraft patrol over their own place or one next door; {over_name} does not border {from_name}"),
        ));
    }
    let target = board.get(over);
    if target.is_neutral()
        || state.enemy_held(over, power)
        || (!target.sea && state.holder[over.index()].is_none())
    {
        return Err(violation(
            ViolationCode::PatrolPlace,
            PATROL,
            format!("a patrol flies over a sea zone or friendly land; {over_name} is neither"),
        ));
    }
    if state.enemy_units(rules, over, power) || state.contested.contains_key(&over) {
        return Err(violation(
            ViolationCode::PatrolPlace,
            PATROL,
            format!("the enemy is in {over_name}: flying there is an attack, not a patrol"),
        ));
    }
    if let Some(host) = state.holder[over.index()].filter(|h| *h != power) {
        if !state.permits(host, power, Permission::Enter) {
            return Err(violation(
                ViolationCode::NoPermission,
                PATROL,
                format!("{host} has not allowed {power}'s aircraft over {over_name}"),
            ));
        }
    }
    Ok(vec![GameEvent::PatrolFlown {
        power,
        units: units.to_vec(),
        from,
        over,
    }])
}

/// As `power`'s turn begins: its patrols come home, or are lost where they cannot land.
pub(super) fn ended(rules: Rules<'_>, state: &GameState, power: Power) -> Option<GameEvent> {
    let mine: Vec<_> = state
        .patrols
        .iter()
        .filter(|((o, _, _, _), _)| *o == power)
        .map(|(key, n)| (*key, *n))
        .collect();
    if mine.is_empty() {
        return None;
    }
    let (mut returned, mut lost) = (Vec::new(), Vec::new());
    // Survivors of each type over each place, shared out in the patrols' order.
    let mut left: std::collections::BTreeMap<(TerritoryId, UnitTypeId), u32> = Default::default();
    for ((_, over, _, unit), _) in &mine {
        left.entry((*over, *unit))
            .or_insert_with(|| state.count_units(rules, *over, power, |u, _| u == *unit));
    }
    for ((_, over, from, unit), n) in mine {
        let alive = left.get_mut(&(over, unit)).map_or(0, |l| {
            let a = n.min(*l);
            *l -= a;
            a
        });
        if alive == 0 || over == from {
            continue;
        }
        let home = if rules.board.get(from).sea {
            state.count_units(rules, from, power, |_, u| {
                u.has(crate::units::Ability::CarriesAircraft)
            }) > 0
        } else {
            state.holder[from.index()].is_some_and(|h| state.permits(h, power, Permission::Enter))
        };
        if home {
            returned.push((over, from, unit, alive));
        } else {
            lost.push((over, unit, alive));
        }
    }
    Some(GameEvent::PatrolsEnded {
        power,
        returned,
        lost,
    })
}

pub(super) fn apply(state: &mut GameState, event: &GameEvent) {
    match event {
        GameEvent::PatrolFlown {
            power,
            units,
            from,
            over,
        } => {
            for &(unit, n) in units {
                if from != over {
                    for (damage, taken) in
                        take_of_type(&mut state.forces[from.index()], *power, unit, n)
                    {
                        *state.forces[over.index()]
                            .entry((*power, unit, damage))
                            .or_default() += taken;
                    }
                }
                *state
                    .patrols
                    .entry((*power, *over, *from, unit))
                    .or_default() += n;
            }
        }
        GameEvent::PatrolsEnded {
            power,
            returned,
            lost,
        } => {
            for &(over, from, unit, n) in returned {
                for (damage, taken) in
                    take_of_type(&mut state.forces[over.index()], *power, unit, n)
                {
                    *state.forces[from.index()]
                        .entry((*power, unit, damage))
                        .or_default() += taken;
                }
            }
            for &(over, unit, n) in lost {
                take_of_type(&mut state.forces[over.index()], *power, unit, n);
            }
            state.patrols.retain(|(o, _, _, _), _| o != power);
        }
        _ => {}
    }
}
