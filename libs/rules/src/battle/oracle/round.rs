//! One round, as Part 13 orders it, with every die thrown on its own: the law of the two
//! sides as the round leaves them.
//!
//! First round only: the AA gun at attacking aircraft, then battleships' support shots
//! (their victims fire back); submarines ordered to submerge sit the round out. Every round:
//! attacking submarines (their victims do not fire back), the attacker's columns 1 to 6
//! (victims to the casualty area after each column), the defender's columns with the
//! casualty area (all at once, or column by column under IAAPA's defaults).

use std::collections::BTreeMap;

use super::losses::{place_hits, Aim, Taking};
use super::reading::Reading;
use crate::battle::{BattleKind, CombatOrder, Side, Unit};
use crate::units::Ability;

/// Where a round stands between volleys.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Moment {
    attacker: Vec<Unit>,
    defender: Vec<Unit>,
    /// Defenders hit this round that still fire back.
    fallen: Vec<Unit>,
    /// Defending submarines sitting the first round out.
    under: Vec<Unit>,
}

/// Probabilities of the moments a round may be at.
type Spread = BTreeMap<Moment, f64>;

/// One die: what it needs, and whom its hit may fall on.
#[derive(Debug, Clone, Copy)]
struct Die {
    needs: u8,
    aim: Aim,
}

/// Hits scored, by whom they may fall on (in the order they are placed).
type Score = [u32; 3];
const AIMS: [Aim; 3] = [Aim::Any, Aim::NotAir, Aim::Surface];

/// Where a volley's victims go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Victims {
    /// Removed at once.
    Gone,
    /// To the casualty area, firing back this round.
    Fallen,
}

/// Every way round `number` can leave the two sides, with its probability.
pub(super) fn round(
    reading: &Reading<'_, '_>,
    number: u32,
    attacker: &[Unit],
    defender: &[Unit],
) -> BTreeMap<(Vec<Unit>, Vec<Unit>), f64> {
    let mut start = Moment {
        attacker: attacker.to_vec(),
        defender: defender.to_vec(),
        fallen: Vec::new(),
        under: Vec::new(),
    };
    let battle = reading.battle;
    if number == 1 && battle.defender_orders.submerge_subs {
        let (under, stay): (Vec<Unit>, Vec<Unit>) =
            start.defender.iter().partition(|u| reading.is_sub(u.kind));
        start.under = under;
        start.defender = stay;
    }
    let mut spread: Spread = BTreeMap::from([(start, 1.0)]);
    if number == 1 {
        if reading.anti_aircraft && battle.kind == BattleKind::Land {
            spread = volley(reading, number, spread, |m| {
                let dice = m
                    .attacker
                    .iter()
                    .filter(|u| reading.is_air(u.kind))
                    .map(|_| Die {
                        needs: 1,
                        aim: Aim::Air,
                    })
                    .collect();
                (dice, Side::Attacker, Victims::Gone)
            });
        }
        if battle.support_shots > 0 {
            let cat = reading.cat();
            let needs = cat.battleship().map_or(4, |bb| cat.get(bb).attack);
            spread = volley(reading, number, spread, |m| {
                // Nobody left to land: no assault to support.
                let shots = if m.attacker.is_empty() {
                    0
                } else {
                    battle.support_shots
                };
                let dice = (0..shots)
                    .map(|_| Die {
                        needs,
                        aim: Aim::Any,
                    })
                    .collect();
                (dice, Side::Defender, Victims::Fallen)
            });
        }
    }
    spread = volley(reading, number, spread, |m| {
        let dice = if m.defender.is_empty() {
            Vec::new()
        } else {
            m.attacker
                .iter()
                .filter(|u| reading.is_sub(u.kind))
                .map(|u| die(reading, Side::Attacker, *u, 0))
                .collect()
        };
        (dice, Side::Defender, Victims::Gone)
    });
    for column in 1..=6u8 {
        spread = volley(reading, number, spread, |m| {
            let dice = if m.defender.is_empty() {
                Vec::new()
            } else {
                attacking_dice(reading, &m.attacker)
                    .into_iter()
                    .filter(|d| d.needs == column)
                    .collect()
            };
            (dice, Side::Defender, Victims::Fallen)
        });
    }
    let columns: Vec<(u8, u8)> = if battle.defender_hits_by_column {
        (1..=6).map(|c| (c, c)).collect()
    } else {
        vec![(1, 6)]
    };
    for (from, to) in columns {
        spread = volley(reading, number, spread, |m| {
            let dice = m
                .defender
                .iter()
                .chain(&m.fallen)
                .map(|u| die(reading, Side::Defender, *u, 0))
                .filter(|d| (from..=to).contains(&d.needs))
                .collect();
            (dice, Side::Attacker, Victims::Gone)
        });
    }
    let mut ends = BTreeMap::new();
    for (m, p) in spread {
        let mut defender = m.defender;
        defender.extend(m.under);
        defender.sort();
        *ends.entry((m.attacker, defender)).or_insert(0.0) += p;
    }
    ends
}

/// The die `unit` of `side` throws, `lift` higher than its value.
fn die(reading: &Reading<'_, '_>, side: Side, unit: Unit, lift: u8) -> Die {
    let t = reading.cat().get(unit.kind);
    let aim = if t.has(Ability::HitsSurfaceOnly) {
        Aim::Surface
    } else if t.has(Ability::CannotHitAir) {
        Aim::NotAir
    } else {
        Aim::Any
    };
    Die {
        needs: reading.value(side, unit) + lift,
        aim,
    }
}

/// The attacker's dice in its columns (submarines fire before them): infantry paired one
/// to one with artillery roll one higher; heavy bombers roll three each.
fn attacking_dice(reading: &Reading<'_, '_>, attacker: &[Unit]) -> Vec<Die> {
    let cat = reading.cat();
    let infantry = cat.infantry();
    let guns = attacker
        .iter()
        .filter(|u| Some(u.kind) != infantry && cat.get(u.kind).has(Ability::SupportsInfantry))
        .count();
    let mut paired = 0;
    let mut dice = Vec::new();
    for u in attacker.iter().filter(|u| !reading.is_sub(u.kind)) {
        let lift = if Some(u.kind) == infantry && paired < guns {
            paired += 1;
            1
        } else {
            0
        };
        for _ in 0..reading.attack_dice(u.kind) {
            dice.push(die(reading, Side::Attacker, *u, lift));
        }
    }
    dice
}

/// Fires one volley from every moment: `fire` gives the dice, the side they hit, and where
/// its victims go.
fn volley(
    reading: &Reading<'_, '_>,
    number: u32,
    spread: Spread,
    fire: impl Fn(&Moment) -> (Vec<Die>, Side, Victims),
) -> Spread {
    let mut next = Spread::new();
    for (m, p) in spread {
        let (dice, target, victims) = fire(&m);
        let air_fire = dice.iter().any(|d| d.aim == Aim::Air);
        for (score, q) in scores(&dice) {
            let mut after = m.clone();
            for (aim, n) in AIMS.into_iter().zip(score) {
                let aim = if air_fire { Aim::Air } else { aim };
                let lost = take(reading, number, &mut after, target, (aim, n));
                if victims == Victims::Fallen {
                    after.fallen.extend(lost);
                    after.fallen.sort();
                }
            }
            *next.entry(after).or_insert(0.0) += p * q;
        }
    }
    next
}

/// The law of a volley's hits, die after die.
fn scores(dice: &[Die]) -> BTreeMap<Score, f64> {
    let mut law = BTreeMap::from([([0u32; 3], 1.0)]);
    for d in dice {
        let hit = f64::from(d.needs.min(6)) / 6.0;
        let slot = match d.aim {
            Aim::Any | Aim::Air => 0,
            Aim::NotAir => 1,
            Aim::Surface => 2,
        };
        let mut after = BTreeMap::new();
        for (score, q) in law {
            if hit < 1.0 {
                *after.entry(score).or_insert(0.0) += q * (1.0 - hit);
            }
            if hit > 0.0 {
                let mut s = score;
                s[slot] += 1;
                *after.entry(s).or_insert(0.0) += q * hit;
            }
        }
        law = after;
    }
    law
}

/// `target` takes `n` hits aimed `aim` in round `number`; the units it lost.
fn take(
    reading: &Reading<'_, '_>,
    number: u32,
    m: &mut Moment,
    target: Side,
    (aim, n): (Aim, u32),
) -> Vec<Unit> {
    let battle = reading.battle;
    let only_air_attacks =
        !m.attacker.is_empty() && m.attacker.iter().all(|u| reading.is_air(u.kind));
    let (side, order, orders) = match target {
        Side::Attacker => (
            &mut m.attacker,
            &reading.attacker_loss,
            &battle.attacker_orders,
        ),
        Side::Defender => {
            let subs_first =
                battle.attacker_air_cannot_retreat && (only_air_attacks || m.attacker.is_empty());
            let order = if subs_first {
                &reading.defender_subs_first
            } else {
                &reading.defender_loss
            };
            (&mut m.defender, order, &battle.defender_orders)
        }
    };
    let taking = Taking {
        order,
        ships_absorb: orders.battleships_absorb.unwrap_or(true),
        keep_one_surface_unit: target == Side::Attacker
            && reading.combat(number) == CombatOrder::TakeAtAllCosts,
    };
    place_hits(reading.cat(), side, (aim, n), &taking)
}
