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

use crate::violation::ViolationCode;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

use rustc_hash::FxHashMap;

use super::army::Army;
use super::{
    targets_of, Battle, BattleError, Casualties, Fight, Hits, Outcome, RetreatOrder, RoundContext,
    Shot, Shots, Side, Step, Targets,
};
use crate::units::{Catalogue, UnitTypeId};

/// The probabilities of every outcome, and of the survivors on each side.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Odds {
    pub attacker_win: f64,
    pub defender_win: f64,
    pub mutual_destruction: f64,
    pub attacker_retreated: f64,
    /// Only aircraft facing only submarines, or nobody able to hit.
    pub disengaged: f64,
    pub walked_in: f64,
    /// Guerrillas on either side stopped firing (AAP 3.1): both sides stay in place.
    pub blended_in: f64,
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
            + self.blended_in
    }

    pub(crate) fn add(&mut self, outcome: Outcome, p: f64) {
        match outcome {
            Outcome::AttackerWins => self.attacker_win += p,
            Outcome::DefenderWins => self.defender_win += p,
            Outcome::MutualDestruction => self.mutual_destruction += p,
            Outcome::AttackerRetreated => self.attacker_retreated += p,
            Outcome::Disengaged => self.disengaged += p,
            Outcome::WalkedIn => self.walked_in += p,
            Outcome::AttackerBlendedIn | Outcome::DefenderBlendedIn => self.blended_in += p,
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

type Key = (Army, Army);

/// The armies one side can be left with, interned as small ids.
#[derive(Default)]
struct Armies {
    ids: FxHashMap<Army, u32>,
    units: Vec<Army>,
}

impl Armies {
    fn intern(&mut self, army: &Army) -> u32 {
        if let Some(id) = self.ids.get(army) {
            return *id;
        }
        let id = self.units.len() as u32;
        self.units.push(army.clone());
        self.ids.insert(army.clone(), id);
        id
    }
}

/// A state of the chain: the round (while it matters) and both armies.
type State = (u32, u32, u32);

/// What a steady round does to one side, cached: the law of the hits it scores, and what
/// each number of hits it takes leaves of it.
#[derive(Default)]
struct SideCache {
    /// (army, other side vulnerable to heavy weapons) -> law of its hits.
    hits: FxHashMap<(u32, bool), Vec<(Hits, f64)>>,
    /// (army, hits taken, special order flag) -> army left.
    after: FxHashMap<(u32, Hits, bool), u32>,
}

/// The exact odds of `battle`.
pub fn exact_odds(battle: &Battle<'_>) -> Result<Odds, BattleError> {
    exact_odds_within(battle, &Work::unlimited())
}

/// A combination of dice expanded step by step (a first round, or columns that depend on
/// each other) costs about this many times a steady round's transition (measured: about
/// 1.7 microseconds against 30 nanoseconds).
pub(crate) const ROUND_STEP_WEIGHT: u64 = 200;

/// How much a computation may do, and whether whoever asked for it still wants it: a
/// service bounds the odds anyone may ask for, and stops when the asker goes away.
#[derive(Debug)]
pub struct Work {
    spent: std::cell::Cell<u64>,
    limit: u64,
    cancelled: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Work {
    pub fn unlimited() -> Work {
        Work::within(u64::MAX, None)
    }

    /// At most `limit` steps (a steady round's transition is one step, about 30
    /// nanoseconds here), stopping early once `cancelled` is set.
    pub fn within(
        limit: u64,
        cancelled: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    ) -> Work {
        Work {
            spent: std::cell::Cell::new(0),
            limit,
            cancelled,
        }
    }

    /// Spends `steps`; whether the work must stop.
    pub(crate) fn spend(&self, steps: u64) -> bool {
        let spent = self.spent.get().saturating_add(steps);
        self.spent.set(spent);
        self.stopped()
    }

    fn stopped(&self) -> bool {
        self.spent.get() > self.limit
            || self
                .cancelled
                .as_ref()
                .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Steps spent so far.
    pub fn spent(&self) -> u64 {
        self.spent.get()
    }

    pub(crate) fn refusal(&self) -> BattleError {
        BattleError {
            code: if self.spent.get() > self.limit {
                ViolationCode::TooLarge
            } else {
                ViolationCode::Cancelled
            },
            rule: "the service's budget for exact odds",
            message: if self.spent.get() > self.limit {
                format!(
                    "the exact odds of this battle need more than {} steps of work, this \
                     service's budget; fewer units, or fewer kinds of units, fit",
                    self.limit
                )
            } else {
                "the computation was cancelled".to_owned()
            },
        }
    }
}

/// Odds estimated by fighting the battle `trials` times with `dice` (the engine that fights
/// real battles), for battles whose exact odds are beyond a budget. Each probability is a
/// frequency, with a standard error of at most `0.5 / sqrt(trials)`; `states` is 0.
pub fn estimated_odds(
    battle: &Battle<'_>,
    trials: u32,
    dice: &mut dyn crate::dice::DiceSource,
    work: &Work,
) -> Result<Odds, BattleError> {
    let mut odds = Odds::default();
    let share = 1.0 / f64::from(trials.max(1));
    let mut attacker_left: BTreeMap<Survivors, f64> = BTreeMap::new();
    let mut defender_left: BTreeMap<Survivors, f64> = BTreeMap::new();
    for _ in 0..trials.max(1) {
        if work.stopped() {
            return Err(work.refusal());
        }
        let log = super::resolve(battle, dice)?;
        work.spend(log.rounds() as u64 + 1);
        odds.add(log.outcome, share);
        *attacker_left
            .entry(survivors_of(log.left(Side::Attacker)))
            .or_default() += share;
        *defender_left
            .entry(survivors_of(log.left(Side::Defender)))
            .or_default() += share;
    }
    let ranked = |left: BTreeMap<Survivors, f64>| {
        let mut out: Vec<(Survivors, f64)> = left.into_iter().collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out
    };
    odds.attacker_survivors = ranked(attacker_left);
    odds.defender_survivors = ranked(defender_left);
    Ok(odds)
}

/// The last round an order may name and still have exact odds; beyond it, an estimate.
pub const MAX_EXACT_ROUNDS: u32 = 100;

/// [`exact_odds`], doing at most what `work` allows.
pub fn exact_odds_within(battle: &Battle<'_>, work: &Work) -> Result<Odds, BattleError> {
    let initial = Fight::new(battle)?;
    let mut odds = Odds::default();
    // No die is rolled: a walk-in, or guerrillas who stop firing before the first.
    let unfought = if initial.combat == super::CombatOrder::WalkIn {
        Some(Outcome::WalkedIn)
    } else {
        initial.blended_in(0)
    };
    if let Some(outcome) = unfought {
        odds.add(outcome, 1.0);
        odds.attacker_survivors = vec![(survivors_of(&initial.attacker), 1.0)];
        odds.defender_survivors = vec![(survivors_of(&initial.defender), 1.0)];
        return Ok(odds);
    }
    let steady_round = steady_round_of(battle);
    // Each round before the steady one is a state of its own even when no die hits, so an
    // order for a far round ("after 4,294,967,295 rounds") would spend the whole budget on
    // rounds alone before giving up: such a battle is beyond the exact odds at once.
    if steady_round > MAX_EXACT_ROUNDS {
        work.spend(u64::MAX);
        return Err(work.refusal());
    }
    let mut template = initial;
    canonical(&mut template);
    let mut armies = [Armies::default(), Armies::default()];
    let mut caches = [SideCache::default(), SideCache::default()];
    let start: State = (
        1,
        armies[0].intern(&template.attacker),
        armies[1].intern(&template.defender),
    );
    // Every transition but "no change" loses hit points, so states are expanded most hit
    // points first (and earlier rounds first among equals); each is expanded once.
    let mut pending: FxHashMap<State, f64> = FxHashMap::default();
    let mut order: BinaryHeap<(u32, Reverse<u32>, u32, u32)> = BinaryHeap::new();
    let mut ended: FxHashMap<(Outcome, u32, u32), f64> = FxHashMap::default();
    let mut outcomes: FxHashMap<(u32, u32), Option<Outcome>> = FxHashMap::default();
    pending.insert(start, 1.0);
    order.push((template.hit_points(), Reverse(1), start.1, start.2));

    while let Some((_, Reverse(round), a, d)) = order.pop() {
        let state = (round, a, d);
        let Some(p) = pending.remove(&state) else {
            continue;
        };
        odds.states += 1;
        let mut fight = template.clone();
        fight.attacker.clone_from(&armies[0].units[a as usize]);
        fight.defender.clone_from(&armies[1].units[d as usize]);
        let next_round = (round + 1).min(steady_round);
        let plain_round = round > 1 || !fight.has_first_round_phases();
        let transitions: Vec<(u32, u32, f64)> = if plain_round && fight.columns_are_independent() {
            steady_transitions(&fight, (a, d), &mut armies, &mut caches)
        } else {
            round_distribution(&fight, round, work)
                .into_iter()
                .map(|(f, q)| {
                    (
                        armies[0].intern(&f.attacker),
                        armies[1].intern(&f.defender),
                        q,
                    )
                })
                .collect()
        };
        if work.spend(transitions.len() as u64 + 1) {
            return Err(work.refusal());
        }
        // A steady state that can come back to itself: fold the loop in.
        let stay: f64 = if round == steady_round {
            transitions
                .iter()
                .filter(|(a2, d2, _)| (*a2, *d2) == (a, d))
                .map(|(_, _, q)| q)
                .sum()
        } else {
            0.0
        };
        if stay >= 1.0 - 1e-15 {
            *ended.entry((Outcome::Disengaged, a, d)).or_default() += p;
            continue;
        }
        let scale = p / (1.0 - stay);
        for (a2, d2, q) in transitions {
            if round == steady_round && (a2, d2) == (a, d) {
                continue;
            }
            let mass = q * scale;
            // In steady rounds the outcome depends on the two armies only.
            let cached = (round == steady_round)
                .then(|| outcomes.get(&(a2, d2)).copied())
                .flatten();
            let outcome = match cached {
                Some(outcome) => outcome,
                None => {
                    fight.attacker.clone_from(&armies[0].units[a2 as usize]);
                    fight.defender.clone_from(&armies[1].units[d2 as usize]);
                    let outcome = fight.outcome(round);
                    if round == steady_round {
                        outcomes.insert((a2, d2), outcome);
                    }
                    outcome
                }
            };
            match outcome {
                Some(outcome) => *ended.entry((outcome, a2, d2)).or_default() += mass,
                None => {
                    let next = (next_round, a2, d2);
                    let slot = pending.entry(next).or_insert_with(|| {
                        let hit_points = side_hit_points(&template, &armies[0].units[a2 as usize])
                            + side_hit_points(&template, &armies[1].units[d2 as usize]);
                        order.push((hit_points, Reverse(next_round), a2, d2));
                        0.0
                    });
                    *slot += mass;
                }
            }
        }
    }
    tally(&mut odds, ended, &armies);
    Ok(odds)
}

/// The round from which the round number no longer changes anything: after every round
/// an order names, after the first (its own phases), and not before SAAC begins.
fn steady_round_of(battle: &Battle<'_>) -> u32 {
    let last_round_named = [
        battle.attacker_orders.retreat,
        battle.attacker_orders.blend_in,
        battle.defender_orders.blend_in,
    ]
    .into_iter()
    .filter_map(|order| match order {
        Some(RetreatOrder::AfterRound(n)) => Some(n),
        _ => None,
    })
    .max();
    let after_orders = match last_round_named {
        Some(n) => n.saturating_add(1).max(2),
        None => 2,
    };
    after_orders.max(battle.saac_from_round.unwrap_or(0))
}

/// The ended states' chances, added up as the odds' outcomes and each side's survivors.
fn tally(odds: &mut Odds, ended: FxHashMap<(Outcome, u32, u32), f64>, armies: &[Armies; 2]) {
    let mut attacker_left: HashMap<Army, f64> = HashMap::new();
    let mut defender_left: HashMap<Army, f64> = HashMap::new();
    for ((outcome, a, d), p) in ended {
        odds.add(outcome, p);
        *attacker_left
            .entry(armies[0].units[a as usize].clone())
            .or_default() += p;
        *defender_left
            .entry(armies[1].units[d as usize].clone())
            .or_default() += p;
    }
    odds.attacker_survivors = grouped(attacker_left);
    odds.defender_survivors = grouped(defender_left);
}

/// What each number of hits in `law` leaves of `side`'s army `id` (cached per side).
fn armies_after(
    fight: &Fight<'_, '_>,
    side: Side,
    (id, special): (u32, bool),
    law: &[(Hits, f64)],
    armies: &mut [Armies; 2],
    caches: &mut [SideCache; 2],
) -> Vec<(u32, f64)> {
    let index = usize::from(side == Side::Defender);
    law.iter()
        .map(|&(hits, q)| {
            let key = (id, hits, special);
            let next = match caches[index].after.get(&key) {
                Some(next) => *next,
                None => {
                    let mut f = fight.clone();
                    f.apply_split(side, hits, None, &mut Casualties::new());
                    canonical(&mut f);
                    let left = match side {
                        Side::Attacker => &f.attacker,
                        Side::Defender => &f.defender,
                    };
                    let next = armies[index].intern(left);
                    caches[index].after.insert(key, next);
                    next
                }
            };
            (next, q)
        })
        .collect()
}

/// One steady round where the two sides' columns are independent: the attacker's hits
/// decide what is left of the defender, the defender's (every defender fires, casualties
/// included) what is left of the attacker; the round is the product of the two.
fn steady_transitions(
    fight: &Fight<'_, '_>,
    (a, d): (u32, u32),
    armies: &mut [Armies; 2],
    caches: &mut [SideCache; 2],
) -> Vec<(u32, u32, f64)> {
    let (attacker_vulnerable, defender_vulnerable) = fight.heavy_weapons_vulnerable();
    let ctx = RoundContext {
        number: u32::MAX,
        casualty_area: Army::default(),
        submerged: Army::default(),
        heavy_weapons: (attacker_vulnerable, defender_vulnerable),
    };
    let subs_first = fight.subs_lost_first();
    // The defender's losses come from the attacker's columns, and the other way round.
    let attack_law = caches[0]
        .hits
        .entry((a, defender_vulnerable))
        .or_insert_with(|| {
            let mut shots = Shots::new();
            for c in 1..=6 {
                fight.shots(Step::AttackerColumn(c), &ctx, &mut shots);
            }
            hit_distribution(fight, Step::AttackerColumn(1), &ctx, &shots)
        })
        .clone();
    let defence_law = caches[1]
        .hits
        .entry((d, attacker_vulnerable))
        .or_insert_with(|| {
            let mut shots = Shots::new();
            fight.shots(Step::DefenderColumns, &ctx, &mut shots);
            hit_distribution(fight, Step::DefenderColumns, &ctx, &shots)
        })
        .clone();
    let defender_next = armies_after(
        fight,
        Side::Defender,
        (d, subs_first),
        &attack_law,
        armies,
        caches,
    );
    let attacker_next = armies_after(
        fight,
        Side::Attacker,
        (a, false),
        &defence_law,
        armies,
        caches,
    );
    let mut joint = Vec::with_capacity(defender_next.len() * attacker_next.len());
    for (d2, qd) in &defender_next {
        for (a2, qa) in &attacker_next {
            joint.push((*a2, *d2, qd * qa));
        }
    }
    joint
}

/// A side's survivors, from its army.
pub(super) fn survivors_of(army: &Army) -> Survivors {
    let mut out = Survivors::new();
    for l in army.lines() {
        *out.entry((l.kind, l.damage > 0)).or_default() += l.count;
    }
    out
}

fn grouped(left: HashMap<Army, f64>) -> Vec<(Survivors, f64)> {
    let mut merged: BTreeMap<Survivors, f64> = BTreeMap::new();
    for (army, p) in left {
        *merged.entry(survivors_of(&army)).or_default() += p;
    }
    let mut out: Vec<(Survivors, f64)> = merged.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

fn canonical(fight: &mut Fight<'_, '_>) {
    fight.attacker.canonical();
    fight.defender.canonical();
}

fn side_hit_points(fight: &Fight<'_, '_>, army: &Army) -> u32 {
    army.lines()
        .iter()
        .map(|l| u32::from(fight.cat().get(l.kind).hit_points.saturating_sub(l.damage)) * l.count)
        .sum()
}

impl Fight<'_, '_> {
    fn key(&self) -> Key {
        (self.attacker.clone(), self.defender.clone())
    }

    /// Hit points left on both sides: every transition but "no change" lowers it.
    fn hit_points(&self) -> u32 {
        side_hit_points(self, &self.attacker) + side_hit_points(self, &self.defender)
    }
}

/// Every way one round can end, with its probability (states merged).
fn round_distribution<'b, 'c>(
    fight: &Fight<'b, 'c>,
    round: u32,
    work: &Work,
) -> Vec<(Fight<'b, 'c>, f64)> {
    let mut start = fight.clone();
    let ctx = start.begin_round(round);
    let steps: Vec<Step> = start.steps().collect();
    let mut partial: Vec<(Fight<'b, 'c>, RoundContext, f64)> = vec![(start, ctx, 1.0)];
    for step in steps {
        let mut next: HashMap<(Key, Army), (Fight<'b, 'c>, RoundContext, f64)> = HashMap::new();
        for (f, ctx, p) in partial {
            let mut shots = Shots::new();
            f.shots(step, &ctx, &mut shots);
            if shots.is_empty() && !f.kamikaze_due(step, &ctx) {
                merge(&mut next, f, ctx, p);
                continue;
            }
            for (hits, q) in hit_distribution(&f, step, &ctx, &shots) {
                // Stopped: what is returned is incomplete, and the caller refuses it.
                if work.spend(ROUND_STEP_WEIGHT) {
                    return Vec::new();
                }
                let mut f2 = f.clone();
                let mut ctx2 = ctx.clone();
                f2.apply(step, &mut ctx2, hits, &mut Casualties::new());
                canonical(&mut f2);
                ctx2.casualty_area.canonical();
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
    into: &mut HashMap<(Key, Army), (Fight<'b, 'c>, RoundContext, f64)>,
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
    let mut groups: BTreeMap<(u8, Targets, u32), u32> = BTreeMap::new();
    for shot in shots {
        let targets = targets_of(fight.cat(), shot.unit);
        *groups
            .entry((shot.to_hit, targets, fight.weight(step, ctx, shot.unit)))
            .or_default() += shot.count;
    }
    let mut law: HashMap<Hits, f64> = HashMap::from([(Hits::default(), 1.0)]);
    for ((to_hit, targets, weight), n) in groups {
        let p = f64::from(to_hit.min(6)) / 6.0;
        let pmf = binomial(n, p);
        let mut next: HashMap<Hits, f64> = HashMap::new();
        for (hits, q) in &law {
            for (k, pk) in pmf.iter().enumerate() {
                if *pk == 0.0 {
                    continue;
                }
                let mut h = *hits;
                h.add(targets, k as u32 * weight);
                *next.entry(h).or_default() += q * pk;
            }
        }
        law = next;
    }
    law.into_iter().collect()
}

/// P(k successes in n trials), k = 0..=n.
pub(crate) fn binomial(n: u32, p: f64) -> Vec<f64> {
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
