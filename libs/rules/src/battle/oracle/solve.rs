//! The value of a state, worked out backwards: the distribution of the battle's ends from
//! it, from the ends of the states one round leads to, each state's worked out once. A
//! round that can leave both sides as they were is a loop, solved for exactly: the value
//! is what the other ways out give, over the chance of leaving.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use super::reading::Reading;
use super::round::round;
use crate::battle::{
    Battle, BattleError, BattleKind, CombatOrder, Outcome, RetreatOrder, Side, Survivors, Unit,
};
use crate::violation::ViolationCode;

/// How a battle ends, in an order the oracle can sort by.
const OUTCOMES: [Outcome; 6] = [
    Outcome::AttackerWins,
    Outcome::DefenderWins,
    Outcome::MutualDestruction,
    Outcome::AttackerRetreated,
    Outcome::Disengaged,
    Outcome::WalkedIn,
];

/// The battle's ends from a state: (outcome's place in [`OUTCOMES`], attacker, defender).
type Ends = BTreeMap<(usize, Vec<Unit>, Vec<Unit>), f64>;

/// The oracle's answer: each outcome's chance, and each side's survivors'.
#[derive(Debug, Clone, Default)]
pub(crate) struct Exact {
    pub outcomes: Vec<(Outcome, f64)>,
    pub attacker_survivors: BTreeMap<Survivors, f64>,
    pub defender_survivors: BTreeMap<Survivors, f64>,
}

impl Exact {
    pub fn chance(&self, outcome: Outcome) -> f64 {
        self.outcomes
            .iter()
            .filter(|(o, _)| *o == outcome)
            .map(|(_, p)| p)
            .sum()
    }
}

/// The exact odds of `battle`, the oracle's way.
pub(crate) fn exact_odds(battle: &Battle<'_>) -> Result<Exact, BattleError> {
    let cat = battle.catalogue;
    let side_of = |list: &[(crate::units::UnitTypeId, u32)]| {
        let mut units: Vec<Unit> = list
            .iter()
            .filter(|(kind, _)| cat.get(*kind).is_combatant())
            .flat_map(|&(kind, n)| (0..n).map(move |_| Unit { kind, damage: 0 }))
            .collect();
        units.sort();
        units
    };
    let attacker = side_of(&battle.attacker);
    let mut defender = side_of(&battle.defender);
    for &(kind, n) in &battle.defender_damaged {
        if cat.get(kind).hit_points < 2 {
            continue;
        }
        let fresh = defender
            .iter_mut()
            .filter(|u| u.kind == kind && u.damage == 0);
        for u in fresh.take(n as usize) {
            u.damage = 1;
        }
    }
    defender.sort();
    let refuse = |code, rule, message: &str| Err(BattleError::new(code, rule, message));
    if attacker.is_empty() {
        return refuse(ViolationCode::NoAttacker, "Part 13", "no attacker");
    }
    let walk_in = battle.attacker_orders.combat == Some(CombatOrder::WalkIn);
    if walk_in && !defender.is_empty() {
        return refuse(ViolationCode::WalkInDefended, "WI", "defended");
    }
    if battle.support_shots > 0 && battle.kind != BattleKind::Land {
        return refuse(ViolationCode::SupportShotAtSea, "Part 13", "at sea");
    }
    let ends = if walk_in {
        Ends::from([((5, attacker, defender), 1.0)])
    } else {
        let mut solver = Solver {
            reading: Reading::new(battle),
            last_round: last_round_that_differs(battle),
            known: HashMap::new(),
        };
        Rc::unwrap_or_clone(solver.value(1, attacker, defender))
    };
    let mut exact = Exact::default();
    let survivors = |side: &[Unit]| {
        let mut s = Survivors::new();
        for u in side {
            *s.entry((u.kind, u.damage > 0)).or_insert(0) += 1;
        }
        s
    };
    let mut by_outcome = [0.0; 6];
    for ((o, a, d), p) in ends {
        by_outcome[o] += p;
        *exact.attacker_survivors.entry(survivors(&a)).or_insert(0.0) += p;
        *exact.defender_survivors.entry(survivors(&d)).or_insert(0.0) += p;
    }
    exact.outcomes = OUTCOMES.into_iter().zip(by_outcome).collect();
    Ok(exact)
}

/// From this round on, rounds differ in nothing but the two sides: the first round has its
/// own volleys, a retreat may be ordered after a given round, and SAAC may come in later.
fn last_round_that_differs(battle: &Battle<'_>) -> u32 {
    let retreat = match battle.attacker_orders.retreat {
        Some(RetreatOrder::AfterRound(n)) => n.saturating_add(1),
        _ => 0,
    };
    [2, retreat, battle.saac_from_round.unwrap_or(0)]
        .into_iter()
        .max()
        .unwrap_or(2)
}

struct Solver<'b, 'c> {
    reading: Reading<'b, 'c>,
    last_round: u32,
    known: HashMap<(u32, Vec<Unit>, Vec<Unit>), Rc<Ends>>,
}

impl Solver<'_, '_> {
    /// The battle's ends from round `number` about to be fought between the two sides.
    fn value(&mut self, number: u32, attacker: Vec<Unit>, defender: Vec<Unit>) -> Rc<Ends> {
        let key = (number.min(self.last_round), attacker, defender);
        if let Some(known) = self.known.get(&key) {
            return known.clone();
        }
        let (this_round, attacker, defender) = key.clone();
        let next_round = (this_round + 1).min(self.last_round);
        let mut ends = Ends::new();
        let mut stay = 0.0;
        let mut leave = false;
        for ((a, d), q) in round(&self.reading, number, &attacker, &defender) {
            if next_round == this_round && a == attacker && d == defender {
                stay += q;
                continue;
            }
            leave = true;
            match self.ends_after(number, &a, &d) {
                Some(outcome) => *ends.entry((outcome, a, d)).or_insert(0.0) += q,
                None => {
                    for (end, p) in self.value(next_round, a, d).iter() {
                        *ends.entry(end.clone()).or_insert(0.0) += q * p;
                    }
                }
            }
        }
        if !leave {
            // Nothing any die does changes anything: the sides stand apart.
            ends.insert((4, attacker, defender), 1.0);
        } else if stay > 0.0 {
            for p in ends.values_mut() {
                *p /= 1.0 - stay;
            }
        }
        let ends = Rc::new(ends);
        self.known.insert(key, ends.clone());
        ends
    }

    /// Whether the battle ends after round `number` leaves the sides `a` and `d`, and how
    /// (its place in [`OUTCOMES`]).
    fn ends_after(&self, number: u32, a: &[Unit], d: &[Unit]) -> Option<usize> {
        let r = &self.reading;
        match (a.is_empty(), d.is_empty()) {
            (true, true) => return Some(2),
            (true, false) => return Some(1),
            (false, true) => return Some(0),
            (false, false) => {}
        }
        let all = |side: &[Unit], test: &dyn Fn(&Unit) -> bool| side.iter().all(test);
        let air = |u: &Unit| r.is_air(u.kind);
        let sub = |u: &Unit| r.is_sub(u.kind);
        if (all(a, &air) && all(d, &sub)) || (all(a, &sub) && all(d, &air)) {
            return Some(4);
        }
        if !self.can_hit(Side::Attacker, a, d) && !self.can_hit(Side::Defender, d, a) {
            return Some(4);
        }
        let battle = r.battle;
        if !battle.attacker_may_withdraw {
            return None;
        }
        let ordered = match battle.attacker_orders.retreat {
            Some(RetreatOrder::AfterRound(n)) => number >= n,
            Some(RetreatOrder::WhenAtMost(n)) => a.len() as u32 <= n,
            None => false,
        };
        let ground = a.iter().filter(|u| !air(u)).count();
        let flying = a.len() - ground;
        let air_leaves = match r.combat(number + 1) {
            CombatOrder::SaveAir => battle.kind == BattleKind::Land && ground == 0 && flying > 0,
            CombatOrder::SaveAirAtAllCosts => {
                let firing = d
                    .iter()
                    .filter(|u| r.value(Side::Defender, **u) > 0)
                    .count();
                flying > 0 && firing > ground
            }
            _ => false,
        };
        (ordered || air_leaves).then_some(3)
    }

    /// Whether some unit of `side` (the units `own`) could hit one of `other`.
    fn can_hit(&self, side: Side, own: &[Unit], other: &[Unit]) -> bool {
        let r = &self.reading;
        own.iter().filter(|u| r.value(side, **u) > 0).any(|u| {
            let no_air = r.cat().get(u.kind).has(crate::units::Ability::CannotHitAir);
            other.iter().any(|t| !(no_air && r.is_air(t.kind)))
        })
    }
}
