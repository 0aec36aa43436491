//! Exact battle odds: a Markov chain over the same steps, orders and casualty rules as the
//! engine ([`resolve`](super::resolve)), not a Monte Carlo estimate.
//!
//! A state is the two armies (as multisets) and, while it still matters, the round number
//! (first-round phases, "retreat after round N"). Each step's hits follow binomial laws, one
//! per group of dice alike in what they need and whom they may hit; the engine's own
//! `apply` turns hits into casualties. Every transition but "nothing happened" loses hit
//! points, so states are expanded once each, most hit points first; a round in which
//! nothing changes is folded in exactly (a geometric series).

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};

use super::{
    Battle, BattleError, Fight, Hits, Outcome, RetreatOrder, RoundContext, Shot, Step, Unit,
};
use crate::units::{Catalogue, UnitTypeId};

/// The probabilities of every outcome, and of the survivors on each side.
#[derive(Debug, Clone, PartialEq)]
pub struct Odds {
    pub attacker_win: f64,
    pub defender_win: f64,
    pub mutual_destruction: f64,
    pub attacker_retreated: f64,
    /// Only aircraft facing only submarines, or nobody able to hit.
    pub disengaged: f64,
    pub walked_in: f64,
    /// Survivors of the attacker (as `(unit, damaged?) -> count`) with their probability.
    pub attacker_survivors: Vec<(Survivors, f64)>,
    pub defender_survivors: Vec<(Survivors, f64)>,
    /// States of the chain that were expanded.
    pub states: usize,
}

/// A side's survivors: how many of each unit type, damaged or not.
pub type Survivors = BTreeMap<(UnitTypeId, bool), u32>;

impl Odds {
    pub fn total(&self) -> f64 {
        self.attacker_win
            + self.defender_win
            + self.mutual_destruction
            + self.attacker_retreated
            + self.disengaged
            + self.walked_in
    }

    fn add(&mut self, outcome: Outcome, p: f64) {
        match outcome {
            Outcome::AttackerWins => self.attacker_win += p,
            Outcome::DefenderWins => self.defender_win += p,
            Outcome::MutualDestruction => self.mutual_destruction += p,
            Outcome::AttackerRetreated => self.attacker_retreated += p,
            Outcome::Disengaged => self.disengaged += p,
            Outcome::WalkedIn => self.walked_in += p,
        }
    }
}

/// Writes survivors as `3 INF, 1 BB (damaged)`, or `none`.
pub fn describe(survivors: &Survivors, catalogue: &Catalogue) -> String {
    if survivors.is_empty() {
        return "none".to_owned();
    }
    survivors
        .iter()
        .map(|((kind, damaged), n)| {
            let code = &catalogue.get(*kind).code;
            if *damaged {
                format!("{n} {code} (damaged)")
            } else {
                format!("{n} {code}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

type Key = (Vec<Unit>, Vec<Unit>);

/// The exact odds of `battle`.
pub fn exact_odds(battle: &Battle<'_>) -> Result<Odds, BattleError> {
    let initial = Fight::new(battle)?;
    let mut odds = Odds {
        attacker_win: 0.0,
        defender_win: 0.0,
        mutual_destruction: 0.0,
        attacker_retreated: 0.0,
        disengaged: 0.0,
        walked_in: 0.0,
        attacker_survivors: Vec::new(),
        defender_survivors: Vec::new(),
        states: 0,
    };
    if initial.combat == super::CombatOrder::WalkIn {
        odds.walked_in = 1.0;
        odds.attacker_survivors = vec![(survivors(&initial.attacker), 1.0)];
        odds.defender_survivors = vec![(survivors(&initial.defender), 1.0)];
        return Ok(odds);
    }
    // From this round on the round number no longer changes anything.
    let steady_round = match battle.attacker_orders.retreat {
        Some(RetreatOrder::AfterRound(n)) => n.saturating_add(1).max(2),
        _ => 2,
    };
    let mut attacker_left: HashMap<Vec<Unit>, f64> = HashMap::new();
    let mut defender_left: HashMap<Vec<Unit>, f64> = HashMap::new();
    let mut queue: BTreeMap<(Reverse<u32>, u32, Key), (Fight<'_, '_>, f64)> = BTreeMap::new();
    let mut start = initial;
    canonical(&mut start);
    queue.insert((Reverse(start.hit_points()), 1, start.key()), (start, 1.0));

    while let Some(((_, round, key), (fight, p))) = queue.pop_first() {
        odds.states += 1;
        let next_round = (round + 1).min(steady_round);
        let outcomes = round_distribution(&fight, round);
        // A steady state that can come back to itself: fold the loop in.
        let stay: f64 = if round == steady_round {
            outcomes
                .iter()
                .filter(|(f, _)| f.outcome(round).is_none() && f.key() == key)
                .map(|(_, q)| q)
                .sum()
        } else {
            0.0
        };
        if stay >= 1.0 - 1e-15 {
            // Nothing can change any more (should be caught as an outcome; kept as a guard).
            odds.add(Outcome::Disengaged, p);
            *attacker_left.entry(fight.attacker.clone()).or_default() += p;
            *defender_left.entry(fight.defender.clone()).or_default() += p;
            continue;
        }
        let scale = p / (1.0 - stay);
        for (next, q) in outcomes {
            let mass = q * scale;
            match next.outcome(round) {
                Some(outcome) => {
                    odds.add(outcome, mass);
                    *attacker_left.entry(next.attacker.clone()).or_default() += mass;
                    *defender_left.entry(next.defender.clone()).or_default() += mass;
                }
                None if round == steady_round && next.key() == key => {}
                None => {
                    let k = (Reverse(next.hit_points()), next_round, next.key());
                    match queue.get_mut(&k) {
                        Some((_, existing)) => *existing += mass,
                        None => {
                            queue.insert(k, (next, mass));
                        }
                    }
                }
            }
        }
    }
    odds.attacker_survivors = grouped(attacker_left);
    odds.defender_survivors = grouped(defender_left);
    Ok(odds)
}

fn survivors(units: &[Unit]) -> Survivors {
    let mut out = Survivors::new();
    for u in units {
        *out.entry((u.kind, u.damage > 0)).or_default() += 1;
    }
    out
}

fn grouped(left: HashMap<Vec<Unit>, f64>) -> Vec<(Survivors, f64)> {
    let mut merged: BTreeMap<Survivors, f64> = BTreeMap::new();
    for (units, p) in left {
        *merged.entry(survivors(&units)).or_default() += p;
    }
    let mut out: Vec<(Survivors, f64)> = merged.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

fn canonical(fight: &mut Fight<'_, '_>) {
    fight.attacker.sort_unstable();
    fight.defender.sort_unstable();
}

impl Fight<'_, '_> {
    fn key(&self) -> Key {
        (self.attacker.clone(), self.defender.clone())
    }

    /// Hit points left on both sides: every transition but "no change" lowers it.
    fn hit_points(&self) -> u32 {
        self.attacker
            .iter()
            .chain(self.defender.iter())
            .map(|u| u32::from(self.cat().get(u.kind).hit_points.saturating_sub(u.damage)))
            .sum()
    }
}

/// Every way one round can end, with its probability (states merged).
fn round_distribution<'b, 'c>(fight: &Fight<'b, 'c>, round: u32) -> Vec<(Fight<'b, 'c>, f64)> {
    let mut start = fight.clone();
    let ctx = start.begin_round(round);
    let mut partial: Vec<(Fight<'b, 'c>, RoundContext, f64)> = vec![(start, ctx, 1.0)];
    for step in Step::ALL {
        let mut next: HashMap<(Key, Vec<Unit>), (Fight<'b, 'c>, RoundContext, f64)> =
            HashMap::new();
        for (f, ctx, p) in partial {
            let shots = f.shots(step, &ctx);
            if shots.is_empty() && !f.kamikaze_due(step, &ctx) {
                merge(&mut next, f, ctx, p);
                continue;
            }
            for (hits, q) in hit_distribution(&f, step, &ctx, &shots) {
                let mut f2 = f.clone();
                let mut ctx2 = ctx.clone();
                f2.apply(step, &mut ctx2, hits);
                canonical(&mut f2);
                ctx2.casualty_area.sort_unstable();
                merge(&mut next, f2, ctx2, p * q);
            }
        }
        partial = next.into_values().collect();
    }
    partial
        .into_iter()
        .map(|(mut f, ctx, p)| {
            f.end_round(ctx);
            canonical(&mut f);
            (f, p)
        })
        .collect()
}

fn merge<'b, 'c>(
    into: &mut HashMap<(Key, Vec<Unit>), (Fight<'b, 'c>, RoundContext, f64)>,
    fight: Fight<'b, 'c>,
    ctx: RoundContext,
    p: f64,
) {
    let key = (fight.key(), ctx.casualty_area.clone());
    match into.get_mut(&key) {
        Some((_, _, existing)) => *existing += p,
        None => {
            into.insert(key, (fight, ctx, p));
        }
    }
}

/// The law of a step's hits: each group of alike dice is binomial; groups add up.
fn hit_distribution(
    fight: &Fight<'_, '_>,
    step: Step,
    ctx: &RoundContext,
    shots: &[Shot],
) -> Vec<(Hits, f64)> {
    if shots.is_empty() {
        // A step without dice (the kamikaze run): certain.
        return vec![(Hits::default(), 1.0)];
    }
    let mut groups: BTreeMap<(u8, bool, u32), u32> = BTreeMap::new();
    for shot in shots {
        let restricted = fight
            .cat()
            .get(shot.unit)
            .has(crate::units::Ability::CannotHitAir);
        *groups
            .entry((shot.to_hit, restricted, fight.weight(step, ctx, shot.unit)))
            .or_default() += 1;
    }
    let mut law: HashMap<Hits, f64> = HashMap::from([(Hits::default(), 1.0)]);
    for ((to_hit, restricted, weight), n) in groups {
        let p = f64::from(to_hit.min(6)) / 6.0;
        let pmf = binomial(n, p);
        let mut next: HashMap<Hits, f64> = HashMap::new();
        for (hits, q) in &law {
            for (k, pk) in pmf.iter().enumerate() {
                if *pk == 0.0 {
                    continue;
                }
                let mut h = *hits;
                let scored = k as u32 * weight;
                if restricted {
                    h.not_air += scored;
                } else {
                    h.anyone += scored;
                }
                *next.entry(h).or_default() += q * pk;
            }
        }
        law = next;
    }
    law.into_iter().collect()
}

/// P(k successes in n trials), k = 0..=n.
fn binomial(n: u32, p: f64) -> Vec<f64> {
    let mut pmf = vec![0.0; n as usize + 1];
    pmf[0] = 1.0;
    for trial in 0..n as usize {
        for k in (0..=trial + 1).rev() {
            let stay = pmf[k] * (1.0 - p);
            let from_below = if k > 0 { pmf[k - 1] * p } else { 0.0 };
            pmf[k] = stay + from_below;
        }
    }
    pmf
}
