//! Cut-Throat, Sub movements: "any nation's subs, have the capability to either submerge in
//! a combat zone upon attack or retreat to a safe zone". A defender's standing order sends
//! its submarines to a safe zone before the first die.

use std::collections::HashMap;

use super::*;
use crate::battle::{Outcome, Work};
use crate::game::combat::{odds_of, BattleOrders};
use crate::game::standing::{SealedOrders, StandingOrders};

const NORTH_SEA: &str = "North Sea Zone";

/// The North Sea's sea neighbours, in the board's order.
const NEIGHBOURS: [&str; 4] = [
    "Baltic Sea Zone",
    "East Canada Sea Zone",
    "Karelia Sea Zone",
    "West Spain Sea Zone",
];

/// Round 2, Germany's battles: three German fighters over the North Sea, where the United
/// Kingdom has two submarines, a carrier and a transport; the zones next door are empty.
fn fighters_over_the_north_sea() -> GameState {
    let mut state = start();
    state.round = 2;
    state.turn = 1;
    state.phase = Phase::Battles;
    set(
        &mut state,
        NORTH_SEA,
        &[
            (Power::UnitedKingdom, "SUB", 2),
            (Power::UnitedKingdom, "AC", 1),
            (Power::UnitedKingdom, "TRN", 1),
            (Power::Germany, "FTR", 3),
        ],
    );
    for zone in NEIGHBOURS {
        state.forces[place_id(zone).index()].clear();
    }
    state
        .contested
        .insert(place_id(NORTH_SEA), Default::default());
    state
}

fn retreat_subs(to: Option<&str>) -> StandingOrders {
    StandingOrders {
        retreat_subs: true,
        retreat_subs_to: to.map(place_id),
        ..StandingOrders::default()
    }
}

/// The United Kingdom's standing orders for all its battles, in force at once (a game
/// from before orders were sealed: the open form).
fn given(state: &mut GameState, orders: StandingOrders) {
    order(
        state,
        Power::UnitedKingdom,
        Order::SetStandingOrders {
            territory: None,
            orders,
        },
    )
    .expect("standing orders");
}

fn attack(state: &mut GameState, dice: &[u8]) -> Box<combat::BattleFought> {
    let events = ordered_with_dice(
        state,
        Power::Germany,
        Order::FightBattle(BattleOrders::at(place_id(NORTH_SEA))),
        dice,
    )
    .expect("fought");
    match events.into_iter().next() {
        Some(GameEvent::BattleFought(fought)) => fought,
        other => panic!("a battle: {other:?}"),
    }
}

fn subs(state: &GameState, place: &str) -> u32 {
    count(state, place, Power::UnitedKingdom, "SUB")
}

/// The fighters hit twice (1, 1, 6); the carrier and the transport, in the casualty area,
/// miss (6, 6): the fighters win without a loss.
const TWO_HITS_THEN_MISSES: [u8; 5] = [1, 1, 6, 6, 6];

#[test]
fn submarines_ordered_to_retreat_leave_for_the_first_safe_zone_before_the_first_die() {
    // Given the United Kingdom's order to retreat its submarines...
    let mut state = fighters_over_the_north_sea();
    given(&mut state, retreat_subs(None));
    // ...when Germany's fighters attack the North Sea...
    let fought = attack(&mut state, &TWO_HITS_THEN_MISSES);
    // ...then the submarines are in the Baltic, the first sea zone next door in the
    // board's order, and the carrier and transport fought alone (five dice: no submarine
    // fired).
    assert_eq!(subs(&state, NORTH_SEA), 0);
    assert_eq!(subs(&state, "Baltic Sea Zone"), 2);
    assert_eq!(fought.dice.len(), 5);
    assert_eq!(fought.outcome, Outcome::AttackerWins);
    let retreat = fought.subs_retreated.as_ref().expect("recorded");
    assert_eq!(retreat.to, place_id("Baltic Sea Zone"));
    assert_eq!(retreat.subs, vec![(unit("SUB"), 0, 2)]);
    assert!(
        fought.listing.contains(
            "Defender's submarines retreated before the first die: 2 SUB (United Kingdom) to \
             Baltic Sea Zone\n"
        ),
        "{}",
        fought.listing
    );
    assert!(
        fought
            .listing
            .starts_with("Defender's standing orders (United Kingdom, for all its battles): submarines retreat to a safe zone\n"),
        "{}",
        fought.listing
    );
}

#[test]
fn submarines_retreat_to_the_zone_their_order_names_while_it_is_safe() {
    let mut state = fighters_over_the_north_sea();
    given(&mut state, retreat_subs(Some("West Spain Sea Zone")));
    attack(&mut state, &TWO_HITS_THEN_MISSES);
    assert_eq!(subs(&state, "West Spain Sea Zone"), 2);
}

#[test]
fn a_named_zone_with_enemy_units_is_passed_over_for_the_first_safe_one() {
    let mut state = fighters_over_the_north_sea();
    set(
        &mut state,
        "West Spain Sea Zone",
        &[(Power::Germany, "TRN", 1)],
    );
    // A zone with a battle pending is not safe either.
    state
        .contested
        .insert(place_id("Baltic Sea Zone"), Default::default());
    given(&mut state, retreat_subs(Some("West Spain Sea Zone")));
    attack(&mut state, &TWO_HITS_THEN_MISSES);
    assert_eq!(subs(&state, "West Spain Sea Zone"), 0);
    assert_eq!(subs(&state, "Baltic Sea Zone"), 0);
    assert_eq!(subs(&state, "East Canada Sea Zone"), 2);
}

/// The submarines stay and fight: round 1, the fighters hit twice (1, 1, 6), sinking the
/// transport and a submarine (the default order), and all four defenders miss; round 2, a
/// hit sinks the other submarine (6, 6, 1), the two defenders miss; round 3, the carrier
/// (1, 6, 6), which misses (6).
const STAYING: [u8; 16] = [1, 1, 6, 6, 6, 6, 6, 6, 6, 1, 6, 6, 1, 6, 6, 6];

#[test]
fn with_no_safe_zone_the_submarines_stay_and_fight() {
    // Given enemy units in every zone next door...
    let mut state = fighters_over_the_north_sea();
    for zone in NEIGHBOURS {
        set(&mut state, zone, &[(Power::Germany, "SUB", 1)]);
    }
    given(&mut state, retreat_subs(None));
    // ...when the fighters attack, then the submarines fight where they are.
    let fought = attack(&mut state, &STAYING);
    assert!(fought.subs_retreated.is_none());
    assert!(!fought.listing.contains("retreated"), "{}", fought.listing);
    assert_eq!(fought.dice.len(), STAYING.len());
    for zone in NEIGHBOURS {
        assert_eq!(subs(&state, zone), 0, "{zone}");
    }
    assert_eq!(fought.outcome, Outcome::AttackerWins);
}

#[test]
fn with_no_safe_zone_submarines_ordered_to_submerge_too_submerge() {
    let mut state = fighters_over_the_north_sea();
    for zone in NEIGHBOURS {
        set(&mut state, zone, &[(Power::Germany, "SUB", 1)]);
    }
    given(
        &mut state,
        StandingOrders {
            submerge_subs: true,
            ..retreat_subs(None)
        },
    );
    // Round 1: the submarines sit it out; the fighters sink the carrier and the
    // transport (1, 1, 6), which miss (6, 6). Round 2: the submarines are back, and
    // aircraft face submarines only: the fighting stops.
    let fought = attack(&mut state, &TWO_HITS_THEN_MISSES);
    assert_eq!(fought.outcome, Outcome::Disengaged);
    assert_eq!(subs(&state, NORTH_SEA), 2);
}

#[test]
fn a_zone_that_is_not_a_sea_zone_or_named_without_the_order_is_refused() {
    let mut state = start();
    for orders in [
        retreat_subs(Some("United Kingdom")),
        StandingOrders {
            retreat_subs_to: Some(place_id("Baltic Sea Zone")),
            ..StandingOrders::default()
        },
    ] {
        let err = order(
            &mut state,
            Power::UnitedKingdom,
            Order::SetStandingOrders {
                territory: None,
                orders,
            },
        )
        .expect_err("refused");
        assert_eq!(err.code, "retreat-destination");
    }
}

/// The orders as the log keeps them in a game that seals them.
fn sealed() -> Order {
    Order::SealedStandingOrders {
        territory: None,
        sealed: Some(SealedOrders {
            commitment: "c0".repeat(32),
            ciphertext: "5e".repeat(128),
            sealed_at: 40,
        }),
    }
}

#[test]
fn an_order_to_retreat_given_during_the_attack_takes_effect_only_from_the_next_turn() {
    // IAAPA sub rule: "Defending subs may withdraw only with orders sent before the
    // attacker's turn".
    // Given orders sealed during Germany's turn...
    let mut state = fighters_over_the_north_sea();
    order(&mut state, Power::UnitedKingdom, sealed()).expect("sealed");
    let attack_order = Order::FightBattle(BattleOrders::at(place_id(NORTH_SEA)));
    assert_eq!(
        standing::to_reveal(rules(), &state, Power::Germany, &attack_order),
        None,
        "not in force during the turn they were given in"
    );
    // ...when Germany attacks this turn, then the submarines stay and fight.
    let fought = attack(&mut state, &STAYING);
    assert!(fought.subs_retreated.is_none());
    assert_eq!(fought.dice.len(), STAYING.len());
    assert_eq!(subs(&state, "Baltic Sea Zone"), 0);

    // Given the turn over, and Germany attacking again the next round...
    let mut state = fighters_over_the_north_sea();
    order(&mut state, Power::UnitedKingdom, sealed()).expect("sealed");
    state.phase = Phase::Income;
    apply(
        rules(),
        &mut state,
        &GameEvent::PhaseEnded {
            power: Power::Germany,
            phase: Phase::Income,
            at: Moment::default(),
        },
    );
    state.round = 3;
    state.turn = 1;
    state.phase = Phase::Battles;
    state
        .contested
        .insert(place_id(NORTH_SEA), Default::default());
    // ...then the battle reveals them first, and follows them.
    let reveal = standing::to_reveal(rules(), &state, Power::Germany, &attack_order)
        .expect("in force from the next turn");
    assert_eq!(reveal.power, Power::UnitedKingdom);
    apply(
        rules(),
        &mut state,
        &GameEvent::StandingOrdersRevealed {
            power: Power::UnitedKingdom,
            territory: None,
            orders: retreat_subs(None),
            salt: "5a".repeat(32),
        },
    );
    let fought = attack(&mut state, &TWO_HITS_THEN_MISSES);
    assert_eq!(subs(&state, "Baltic Sea Zone"), 2);
    let followed = fought
        .standing_orders
        .as_ref()
        .expect("the orders followed");
    assert_eq!(
        (followed.given_round, followed.given_during),
        (2, Power::Germany)
    );
    assert!(
        fought.listing.starts_with(
            "Defender's standing orders (United Kingdom, for all its battles, given in round 2 \
             on Germany's turn): submarines retreat to a safe zone\n"
        ),
        "{}",
        fought.listing
    );
}

/// The odds of `fighters` fighters attacking `carriers` carriers and `transports`
/// transports at sea, by IAAPA's rules as the seeds state them and nothing of the engine:
/// the fighters hit on 3, the carrier on 3 and the transport on 1 (Classic's profiles);
/// both sides fire every round, the defender's casualties firing back; the defender loses
/// transports first (IAAPA's default order at sea: TRN, SUB, DES, FTR, AC, BB); the
/// fighters never withdraw (KAAC, the sea default). (attacker wins, defender wins, both
/// destroyed).
fn fighters_against_a_carrier_group(
    fighters: u32,
    carriers: u32,
    transports: u32,
) -> (f64, f64, f64) {
    fn binomial(n: u32, p: f64) -> Vec<f64> {
        (0..=n)
            .map(|k| {
                let choose: f64 = (0..k)
                    .map(|i| f64::from(n - i) / f64::from(i + 1))
                    .product();
                choose * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
            })
            .collect()
    }
    fn solve(
        (f, c, t): (u32, u32, u32),
        memo: &mut HashMap<(u32, u32, u32), (f64, f64, f64)>,
    ) -> (f64, f64, f64) {
        match (f, c + t) {
            (0, 0) => return (0.0, 0.0, 1.0),
            (0, _) => return (0.0, 1.0, 0.0),
            (_, 0) => return (1.0, 0.0, 0.0),
            _ => {}
        }
        if let Some(known) = memo.get(&(f, c, t)) {
            return *known;
        }
        let attack = binomial(f, 0.5);
        // The defender's hits: carriers' and transports' dice added.
        let mut defence = vec![0.0; (c + t + 1) as usize];
        for (i, pc) in binomial(c, 0.5).iter().enumerate() {
            for (j, pt) in binomial(t, 1.0 / 6.0).iter().enumerate() {
                defence[i + j] += pc * pt;
            }
        }
        let (mut win, mut lose, mut both, mut stay) = (0.0, 0.0, 0.0, 0.0);
        for (hits, pa) in attack.iter().enumerate() {
            let hits = hits as u32;
            let t2 = t.saturating_sub(hits);
            let c2 = c.saturating_sub(hits.saturating_sub(t));
            for (taken, pd) in defence.iter().enumerate() {
                let f2 = f.saturating_sub(taken as u32);
                let p = pa * pd;
                if (f2, c2, t2) == (f, c, t) {
                    stay += p;
                    continue;
                }
                let (w, l, b) = solve((f2, c2, t2), memo);
                win += p * w;
                lose += p * l;
                both += p * b;
            }
        }
        let scale = 1.0 / (1.0 - stay);
        let odds = (win * scale, lose * scale, both * scale);
        memo.insert((f, c, t), odds);
        odds
    }
    solve((fighters, carriers, transports), &mut HashMap::new())
}

#[test]
fn the_exact_odds_of_an_attack_on_retreating_submarines_are_those_of_the_ships_left_behind() {
    // Given the United Kingdom's order to retreat its submarines, when the odds of the
    // attack are asked before the dice...
    let mut state = fighters_over_the_north_sea();
    let odds_now = |state: &GameState| {
        let attack_order = BattleOrders::at(place_id(NORTH_SEA));
        odds_of(
            rules(),
            state,
            Power::Germany,
            &attack_order,
            &Work::unlimited(),
        )
        .expect("odds")
        .expect("a battle")
    };
    let staying = odds_now(&state);
    given(&mut state, retreat_subs(None));
    let odds = odds_now(&state);
    // ...then they are those of three fighters against the carrier and the transport alone,
    // as the calculator above gives them.
    let (win, lose, both) = fighters_against_a_carrier_group(3, 1, 1);
    let engine = [
        odds.attacker_win,
        odds.defender_win,
        odds.mutual_destruction,
    ];
    for (engine, calculated) in engine.into_iter().zip([win, lose, both]) {
        assert!((engine - calculated).abs() < 1e-9, "{odds:?}: {calculated}");
    }
    assert!((win + lose + both - 1.0).abs() < 1e-12);
    // Staying, the submarines cannot hit aircraft but take hits before the carrier: other
    // odds.
    assert!(
        (staying.attacker_win - win).abs() > 0.01,
        "{staying:?} {win}"
    );
}

#[test]
fn a_kamikaze_run_at_submarines_that_retreated_is_called_off_rather_than_refused() {
    // A refusal would tell Japan, before any die, what the British orders say.
    let mut state = fighters_over_the_north_sea();
    let north_sea = place_id(NORTH_SEA);
    state.forces[north_sea.index()].remove(&(Power::Germany, unit("FTR"), 0));
    state.forces[north_sea.index()].insert((Power::Japan, unit("FTR"), 0), 3);
    state.turn = 3;
    given(&mut state, retreat_subs(None));
    let run = BattleOrders {
        kamikaze_target: Some(unit("SUB")),
        ..BattleOrders::at(north_sea)
    };
    let events = ordered_with_dice(
        &mut state,
        Power::Japan,
        Order::FightBattle(run),
        &TWO_HITS_THEN_MISSES,
    )
    .expect("fought, without the run");
    let Some(GameEvent::BattleFought(fought)) = events.first() else {
        panic!("a battle: {events:?}");
    };
    assert!(!fought.kamikaze);
    assert!(!state.kamikaze_used_this_turn);
    assert_eq!(subs(&state, "Baltic Sea Zone"), 2);
    assert_eq!(count(&state, NORTH_SEA, Power::Japan, "FTR"), 3);
}

#[test]
fn a_walk_in_where_submarines_would_retreat_is_refused_as_the_board_shows_it() {
    let mut state = fighters_over_the_north_sea();
    set(
        &mut state,
        NORTH_SEA,
        &[(Power::UnitedKingdom, "SUB", 2), (Power::Germany, "FTR", 3)],
    );
    given(&mut state, retreat_subs(None));
    let walk_in = BattleOrders {
        combat: Some(crate::battle::CombatOrder::WalkIn),
        ..BattleOrders::at(place_id(NORTH_SEA))
    };
    let refused = order(&mut state, Power::Germany, Order::FightBattle(walk_in))
        .expect_err("defended, as the board shows");
    assert_eq!(refused.code, "walk-in-defended");
}
