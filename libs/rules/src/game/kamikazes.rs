//! The Pacific board's kamikaze tokens (AAP 1i: "Japan has 12 kamikazes available in Japan
//! not just 6"), as TripleA's `pacific.xml` and its engine play them: once the combat move
//! of a power at war with the tokens' owner is over, and before that power's first battle,
//! the owner may spend tokens on that power's ships in the kamikaze zones. It names every
//! strike at once (no token waits to see another's die): each names one ship and how many
//! tokens it takes, each token rolls one die against it, hitting on the token's attack or
//! less. A token is spent whether it hits or not. A ship struck to its last hit point is
//! sunk; short of it, damaged. Ships in a zone the kamikazes struck bombard nothing that
//! turn.

use std::collections::BTreeMap;

use crate::board::{Power, TerritoryId};
use crate::dice::{DiceSource, Die};
use crate::game::ViolationCode;
use crate::units::UnitTypeId;

use super::{take_units, violation, GameEvent, GameState, Order, Phase, RuleViolation, Rules};

const KAMIKAZES: &str = "AAP Historical, 1i (kamikaze tokens; the Pacific board's rules)";

/// One strike a kamikaze order asks for: `tokens` against one of the enemy's `unit` in a
/// sea zone.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KamikazeStrike {
    pub sea_zone: TerritoryId,
    pub unit: UnitTypeId,
    pub tokens: u32,
}

/// One strike as rolled: the ship (its damage before), every die, the hits, and whether
/// it sank.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KamikazeHit {
    pub sea_zone: TerritoryId,
    pub unit: UnitTypeId,
    /// The ship's damage before the strike: the most damaged of its kind not yet struck.
    pub damage: u8,
    pub dice: Vec<Die>,
    pub hits: u32,
    pub sunk: bool,
}

/// The strikes of a kamikaze order, decided: `power`'s tokens against `against`'s ships.
pub(super) fn decide(
    rules: Rules<'_>,
    state: &GameState,
    by: Power,
    strikes: &[KamikazeStrike],
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let Some(kamikaze) = &rules.special.kamikaze else {
        return Err(violation(
            ViolationCode::NotInThisRuleset,
            "the ruleset's special_rules.kamikaze_tokens",
            "this ruleset has no kamikaze tokens",
        ));
    };
    if by != kamikaze.power {
        return Err(violation(
            ViolationCode::KamikazeJapanOnly,
            KAMIKAZES,
            format!("the kamikaze tokens are {}'s", kamikaze.power),
        ));
    }
    let against = state.power(rules.board);
    if !state.at_war(by, against) || state.phase != Phase::Battles || state.battles_begun {
        return Err(violation(
            ViolationCode::WrongPhase,
            KAMIKAZES,
            format!(
                "kamikazes strike once an enemy's combat move is over, before its first battle; \
                 it is {against}'s {} phase{}",
                state.phase.name(),
                if state.battles_begun {
                    ", and its battles have begun"
                } else {
                    ""
                }
            ),
        ));
    }
    if !state.kamikaze_struck.is_empty() {
        return Err(violation(
            ViolationCode::KamikazeOnceATurn,
            KAMIKAZES,
            "the kamikazes have struck this turn: every strike is named in one order",
        ));
    }
    let spent: u32 = strikes.iter().map(|s| s.tokens).sum();
    let left = state.kamikaze_tokens.get(&by).copied().unwrap_or(0);
    if strikes.is_empty() || strikes.iter().any(|s| s.tokens == 0) {
        return Err(violation(
            ViolationCode::KamikazeTarget,
            KAMIKAZES,
            "a kamikaze order names each ship struck and at least one token for it",
        ));
    }
    if spent > left {
        return Err(violation(
            ViolationCode::KamikazeTokens,
            KAMIKAZES,
            format!("{by} has {left} kamikaze tokens left, not {spent}"),
        ));
    }
    // The ships not yet struck, by zone and kind: their damage, most damaged last.
    let mut ships: BTreeMap<(TerritoryId, UnitTypeId), Vec<u8>> = BTreeMap::new();
    // Each strike's ship, settled before any die (a refusal after the dice would show
    // how they fell).
    let mut targets = Vec::with_capacity(strikes.len());
    for strike in strikes {
        let (zone, unit) = (strike.sea_zone, strike.unit);
        let name = &rules.board.get(zone).name;
        let code = &rules.catalogue.get(unit).code;
        if !kamikaze.zones.contains(&zone) {
            let zones: Vec<&str> = kamikaze
                .zones
                .iter()
                .map(|z| rules.board.get(*z).name.as_str())
                .collect();
            return Err(violation(
                ViolationCode::KamikazeTarget,
                KAMIKAZES,
                format!(
                    "{name} is not a kamikaze zone; they are {}",
                    zones.join(", ")
                ),
            ));
        }
        if !kamikaze.targets.contains(&unit) {
            let targets: Vec<&str> = kamikaze
                .targets
                .iter()
                .map(|u| rules.catalogue.get(*u).code.as_str())
                .collect();
            return Err(violation(
                ViolationCode::KamikazeTarget,
                KAMIKAZES,
                format!(
                    "kamikazes strike {} (warships, not transports or submarines); not {code}",
                    targets.join(", ")
                ),
            ));
        }
        let left = ships.entry((zone, unit)).or_insert_with(|| {
            let mut damages: Vec<u8> = state.forces[zone.index()]
                .iter()
                .filter(|((owner, u, _), _)| *owner == against && *u == unit)
                .flat_map(|((_, _, damage), n)| std::iter::repeat_n(*damage, *n as usize))
                .collect();
            damages.sort_unstable();
            damages
        });
        // Each strike is on another ship: the most damaged not yet struck.
        let Some(damage) = left.pop() else {
            return Err(violation(
                ViolationCode::KamikazeTarget,
                KAMIKAZES,
                format!("{against} has no {code} left to strike in {name}"),
            ));
        };
        targets.push((strike, damage));
    }
    let mut hits = Vec::with_capacity(strikes.len());
    for (strike, damage) in targets {
        let (zone, unit) = (strike.sea_zone, strike.unit);
        let rolled: Vec<Die> = (0..strike.tokens).map(|_| dice.roll()).collect();
        let scored = rolled
            .iter()
            .filter(|d| d.value() <= kamikaze.attack)
            .count();
        let scored = u32::try_from(scored).unwrap_or(u32::MAX);
        let hit_points = u32::from(rules.catalogue.get(unit).hit_points.max(1));
        hits.push(KamikazeHit {
            sea_zone: zone,
            unit,
            damage,
            dice: rolled,
            hits: scored,
            sunk: u32::from(damage) + scored >= hit_points,
        });
    }
    Ok(vec![GameEvent::KamikazesStruck {
        power: by,
        against,
        strikes: hits,
    }])
}

/// Folds a kamikaze attack in: the tokens spent, each ship damaged or sunk, and a battle
/// declared in a zone where the attacker has nothing left called off.
pub(super) fn apply(state: &mut GameState, power: Power, against: Power, strikes: &[KamikazeHit]) {
    let spent: usize = strikes.iter().map(|s| s.dice.len()).sum();
    if let Some(left) = state.kamikaze_tokens.get_mut(&power) {
        *left = left.saturating_sub(u32::try_from(spent).unwrap_or(u32::MAX));
    }
    for strike in strikes {
        state.kamikaze_struck.insert(strike.sea_zone);
        let forces = &mut state.forces[strike.sea_zone.index()];
        if take_units(forces, (against, strike.unit, strike.damage), 1) == 0 {
            continue;
        }
        if !strike.sunk {
            let damage = strike
                .damage
                .saturating_add(u8::try_from(strike.hits).unwrap_or(u8::MAX));
            *forces.entry((against, strike.unit, damage)).or_default() += 1;
        }
    }
    let emptied: Vec<TerritoryId> = state
        .contested
        .keys()
        .filter(|zone| {
            state.kamikaze_struck.contains(zone)
                && !state.forces[zone.index()]
                    .keys()
                    .any(|(owner, _, _)| *owner == against)
        })
        .copied()
        .collect();
    for zone in emptied {
        state.contested.remove(&zone);
    }
}

/// The order behind a kamikaze attack, for an auditor: each strike with as many tokens as
/// it rolled dice.
pub(super) fn order_behind(strikes: &[KamikazeHit]) -> Order {
    Order::KamikazeAttack {
        strikes: strikes
            .iter()
            .map(|s| KamikazeStrike {
                sea_zone: s.sea_zone,
                unit: s.unit,
                tokens: u32::try_from(s.dice.len()).unwrap_or(u32::MAX),
            })
            .collect(),
    }
}
