//! The exact odds (the Markov chain of `battle/odds.rs`) against the independent oracle, on
//! random small battles: every outcome's chance and each side's survivors' agree to 1e-10,
//! and both refuse the same battles.
//!
//! The battles drawn are the oracle's domain (see `mod.rs`): no kamikaze runs, no
//! heavy-weapons vulnerability, no marines ashore, no guerrillas, no three-hit ships.

use proptest::prelude::*;

use crate::battle::{self, BattleKind, CombatOrder, Orders, Outcome, RetreatOrder, Survivors};
use crate::tech::Technology;
use crate::units::{Catalogue, UnitTypeId};

const RULESETS: [&str; 3] = ["classic", "cutthroat", "aap-historical"];

/// The random parts of a battle, as indices and counts into a ruleset's unit list.
#[derive(Debug, Clone)]
struct Case {
    ruleset: usize,
    sea: bool,
    attacker: Vec<(usize, u32)>,
    defender: Vec<(usize, u32)>,
    damaged: Option<(usize, u32)>,
    combat: Option<usize>,
    attacker_order_of_loss: Vec<usize>,
    defender_order_of_loss: Vec<usize>,
    retreat: Option<(bool, u32)>,
    absorb: Option<bool>,
    submerge: bool,
    air_cannot_retreat: bool,
    may_withdraw: bool,
    technologies: (u8, u8),
    iaapa_defaults: bool,
    support_shots: u32,
}

fn army_strategy(max: u32) -> impl Strategy<Value = Vec<(usize, u32)>> {
    // Types may repeat and interleave.
    prop::collection::vec((0usize..32, 0..=max), 1..5)
}

fn case_strategy(max: u32) -> impl Strategy<Value = Case> {
    (
        (
            0usize..3,
            any::<bool>(),
            army_strategy(max),
            army_strategy(max),
        ),
        (
            prop::option::of((0usize..32, 0u32..3)),
            prop::option::of(0usize..5),
            prop::collection::vec(0usize..32, 0..3),
            prop::collection::vec(0usize..32, 0..3),
            prop::option::of((any::<bool>(), 1u32..4)),
            prop::option::of(any::<bool>()),
        ),
        (
            any::<bool>(),
            any::<bool>(),
            prop::bool::weighted(0.8),
            (any::<u8>(), any::<u8>()),
            any::<bool>(),
            prop::option::weighted(0.2, 1u32..3),
        ),
    )
        .prop_map(
            |(
                (ruleset, sea, attacker, defender),
                (damaged, combat, attacker_order, defender_order, retreat, absorb),
                (submerge, air_cannot_retreat, may_withdraw, technologies, iaapa, support),
            )| Case {
                ruleset,
                sea,
                attacker,
                defender,
                damaged,
                combat,
                attacker_order_of_loss: attacker_order,
                defender_order_of_loss: defender_order,
                retreat,
                absorb,
                submerge,
                air_cannot_retreat,
                may_withdraw,
                technologies,
                iaapa_defaults: iaapa,
                support_shots: support.unwrap_or(0),
            },
        )
}

fn technologies(bits: u8) -> Vec<Technology> {
    [
        Technology::JetFighters,
        Technology::SuperSubmarines,
        Technology::HeavyBombers,
    ]
    .into_iter()
    .enumerate()
    .filter(|(i, _)| bits & (1 << i) != 0)
    .map(|(_, t)| t)
    .collect()
}

fn battle_of<'c>(cat: &'c Catalogue, case: &Case) -> battle::Battle<'c> {
    // Mostly units that fight (of at most two hit points); now and then an AA gun or a
    // factory, which do not.
    let all: Vec<UnitTypeId> = cat
        .units()
        .filter(|(_, t)| t.hit_points <= 2)
        .map(|(id, _)| id)
        .collect();
    let fighting: Vec<UnitTypeId> = all
        .iter()
        .copied()
        .filter(|id| cat.get(*id).is_combatant())
        .collect();
    let unit = |i: usize| {
        if i < 26 {
            fighting[i % fighting.len()]
        } else {
            all[i % all.len()]
        }
    };
    let army = |entries: &[(usize, u32)]| -> Vec<(UnitTypeId, u32)> {
        entries.iter().map(|&(i, n)| (unit(i), n)).collect()
    };
    let kind = if case.sea {
        BattleKind::Sea
    } else {
        BattleKind::Land
    };
    let mut b = battle::Battle::new(cat, kind);
    if case.iaapa_defaults {
        b = b.with_iaapa_defaults();
    }
    b.attacker = army(&case.attacker);
    b.defender = army(&case.defender);
    b.defender_damaged = case
        .damaged
        .map(|(i, n)| (unit(i), n))
        .into_iter()
        .collect();
    b.attacker_orders = Orders {
        combat: case.combat.map(|i| CombatOrder::ALL[i]),
        order_of_loss: case
            .attacker_order_of_loss
            .iter()
            .map(|&i| unit(i))
            .collect(),
        retreat: case.retreat.map(|(after, n)| {
            if after {
                RetreatOrder::AfterRound(n)
            } else {
                RetreatOrder::WhenAtMost(n)
            }
        }),
        battleships_absorb: case.absorb,
        submerge_subs: false,
        blend_in: None,
    };
    b.defender_orders = Orders {
        order_of_loss: case
            .defender_order_of_loss
            .iter()
            .map(|&i| unit(i))
            .collect(),
        submerge_subs: case.submerge,
        battleships_absorb: case.absorb.map(|a| !a),
        ..Orders::default()
    };
    b.attacker_air_cannot_retreat = case.air_cannot_retreat;
    b.attacker_may_withdraw = case.may_withdraw;
    b.attacker_technologies = technologies(case.technologies.0);
    b.defender_technologies = technologies(case.technologies.1);
    // Support shots belong to assaults on land (at sea both refuse them; seldom worth a case).
    b.support_shots = if case.sea { 0 } else { case.support_shots };
    b
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-10
}

/// Where two lists of survivors' chances differ (merged by survivors), if anywhere.
fn survivors_differ(
    chain: &[(Survivors, f64)],
    oracle: &std::collections::BTreeMap<Survivors, f64>,
) -> Option<String> {
    let mut merged: std::collections::BTreeMap<&Survivors, (f64, f64)> = Default::default();
    for (s, p) in chain {
        merged.entry(s).or_default().0 += p;
    }
    for (s, p) in oracle {
        merged.entry(s).or_default().1 += p;
    }
    merged
        .into_iter()
        .find(|(_, (a, b))| !close(*a, *b))
        .map(|(s, (a, b))| format!("{s:?}: {a} against {b}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn the_exact_odds_agree_with_the_independent_oracle(case in case_strategy(4)) {
        let cat = Catalogue::builtin(RULESETS[case.ruleset]).expect("built-in");
        let b = battle_of(&cat, &case);
        let chain = battle::exact_odds_within(&b, &battle::Work::within(2_000_000, None));
        // Beyond the budget the chain refuses; the oracle is not asked then.
        if matches!(&chain, Err(e) if e.code == crate::violation::ViolationCode::TooLarge) {
            return Ok(());
        }
        let oracle = super::exact_odds(&b);
        match (chain, oracle) {
            (Ok(chain), Ok(oracle)) => {
                for (p, outcome) in [
                    (chain.attacker_win, Outcome::AttackerWins),
                    (chain.defender_win, Outcome::DefenderWins),
                    (chain.mutual_destruction, Outcome::MutualDestruction),
                    (chain.attacker_retreated, Outcome::AttackerRetreated),
                    (chain.disengaged, Outcome::Disengaged),
                    (chain.walked_in, Outcome::WalkedIn),
                ] {
                    let q = oracle.chance(outcome);
                    prop_assert!(close(p, q), "{:?}: chain {} against oracle {}", outcome, p, q);
                }
                let attacker = survivors_differ(&chain.attacker_survivors, &oracle.attacker_survivors);
                prop_assert!(attacker.is_none(), "attacker's survivors {}", attacker.unwrap_or_default());
                let defender = survivors_differ(&chain.defender_survivors, &oracle.defender_survivors);
                prop_assert!(defender.is_none(), "defender's survivors {}", defender.unwrap_or_default());
            }
            (Err(chain), Err(oracle)) => prop_assert_eq!(chain.code, oracle.code),
            (chain, oracle) => {
                let (chain, oracle) = (chain.err().map(|e| e.code), oracle.err().map(|e| e.code));
                prop_assert!(false, "chain refused {:?}, oracle refused {:?}", chain, oracle);
            }
        }
    }
}
