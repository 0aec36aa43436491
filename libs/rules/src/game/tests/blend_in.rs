//! AAP Historical, 3.1: "At any round of combat, before or after any rolls are made, they
//! can choose not to fire and then combat ends with both sides remaining in the same
//! territory". The CCP blends in by its battle order when it attacks, and by its standing
//! orders when it defends; 3.3: "Japan automatically controls an area if the CCP submerge";
//! 3.4: a suppression roll of 1 makes them fight.

use super::aap::{aap, aap_in, at, japan_in_shansi, suppress};
use super::*;
use crate::battle::{Outcome, RetreatOrder, Work};
use crate::game::combat::{odds_of, BattleFought, BattleOrders};
use crate::game::standing::StandingOrders;

fn blend_in(when: RetreatOrder) -> StandingOrders {
    StandingOrders {
        blend_in: Some(when),
        ..StandingOrders::default()
    }
}

/// `by`'s standing orders for all its battles, in force at once (the open form).
fn standing(state: &mut GameState, by: Power, orders: StandingOrders) -> Result<(), RuleViolation> {
    let order = Order::SetStandingOrders {
        territory: None,
        orders,
    };
    order_under(aap().rules(), state, by, order, &[]).map(|_| ())
}

/// Japan's six infantry in Shansi, at the battles.
fn japan_at_the_battles() -> GameState {
    to_the_battles(japan_in_shansi())
}

/// Japan's combat move ended.
fn to_the_battles(mut state: GameState) -> GameState {
    order_under(
        aap().rules(),
        &mut state,
        Power::Japan,
        Order::EndPhase,
        &[],
    )
    .expect("battles");
    state
}

/// Japan at the battles, the CCP's standing order to blend in `when` in force.
fn ccp_blending_in(when: RetreatOrder) -> GameState {
    let mut state = japan_at_the_battles();
    standing(&mut state, Power::Ccp, blend_in(when)).expect("set");
    state
}

/// Japan fights for Shansi with `dice`.
fn japan_fights(state: &mut GameState, dice: &[u8]) -> Box<BattleFought> {
    let shansi = BattleOrders::at(at(aap(), "Shansi"));
    fight(state, Power::Japan, shansi, dice).expect("fought")
}

fn fight(
    state: &mut GameState,
    by: Power,
    orders: BattleOrders,
    dice: &[u8],
) -> Result<Box<BattleFought>, RuleViolation> {
    let events = order_under(aap().rules(), state, by, Order::FightBattle(orders), dice)?;
    match events.into_iter().next() {
        Some(GameEvent::BattleFought(fought)) => Ok(fought),
        other => panic!("a battle: {other:?}"),
    }
}

fn infantry(state: &GameState, place: &str, power: Power) -> u32 {
    let inf = aap().catalogue.infantry().expect("INF");
    state.count_units(aap().rules(), at(aap(), place), power, |u, _| u == inf)
}

/// Round 1: Japan's infantry hit once (1, then five 6s), the CCP's once (2, 6, 6, 6).
const ONE_HIT_EACH: [u8; 10] = [1, 6, 6, 6, 6, 6, 2, 6, 6, 6];

#[test]
fn defending_guerrillas_blend_in_after_the_round_their_standing_orders_name() {
    // Given the CCP's standing order to blend in after round 1...
    let mut state = ccp_blending_in(RetreatOrder::AfterRound(1));
    // ...when Japan fights for Shansi...
    let shansi = at(aap(), "Shansi");
    let fought = japan_fights(&mut state, &ONE_HIT_EACH);
    // ...then after one round both stay, and Japan, with land units there, holds it.
    assert_eq!(fought.outcome, Outcome::DefenderBlendedIn);
    assert_eq!(fought.dice.len(), ONE_HIT_EACH.len());
    assert!(fought.captured, "3.3");
    assert_eq!(state.holder[shansi.index()], Some(Power::Japan));
    assert_eq!(infantry(&state, "Shansi", Power::Ccp), 3);
    assert_eq!(infantry(&state, "Shansi", Power::Japan), 5);
    assert!(!state.contested.contains_key(&shansi));
    assert!(
        fought.listing.starts_with(
            "Defender's standing orders (CCP, for all its battles): blend in after round 1\n"
        ),
        "{}",
        fought.listing
    );
    assert!(
        fought.listing.contains(
            "Defender blends in, both sides stay; attacker left: 5 INF; defender left: 3 INF"
        ),
        "{}",
        fought.listing
    );
}

#[test]
fn guerrillas_ordered_to_blend_in_before_the_first_die_roll_none() {
    let mut state = ccp_blending_in(RetreatOrder::AfterRound(0));
    let shansi = at(aap(), "Shansi");
    let fought = japan_fights(&mut state, &[]);
    assert_eq!(fought.outcome, Outcome::DefenderBlendedIn);
    assert!(fought.dice.is_empty());
    assert_eq!(infantry(&state, "Shansi", Power::Ccp), 4);
    assert_eq!(state.holder[shansi.index()], Some(Power::Japan));
}

#[test]
fn guerrillas_blend_in_once_as_few_units_as_their_order_names_are_left() {
    let mut state = ccp_blending_in(RetreatOrder::WhenAtMost(3));
    let fought = japan_fights(&mut state, &ONE_HIT_EACH);
    assert_eq!(fought.outcome, Outcome::DefenderBlendedIn);
    assert_eq!(infantry(&state, "Shansi", Power::Ccp), 3);
}

#[test]
fn suppressed_guerrillas_fight_whatever_their_standing_orders_say() {
    // Given the CCP's order to blend in, and Japan's suppression roll of 1 (3.4)...
    let mut state = japan_in_shansi();
    suppress(&mut state, 1).expect("suppressed");
    let mut state = to_the_battles(state);
    standing(
        &mut state,
        Power::Ccp,
        blend_in(RetreatOrder::AfterRound(0)),
    )
    .expect("set");
    // ...when Japan fights (four hits, four misses), then the battle is fought to its end,
    // and the listing says why the order was not followed.
    let fought = japan_fights(&mut state, &[1, 1, 1, 1, 6, 6, 6, 6, 6, 6]);
    assert_eq!(fought.outcome, Outcome::AttackerWins);
    assert_eq!(infantry(&state, "Shansi", Power::Ccp), 0);
    assert!(
        fought.listing.contains(
            "CCP does not blend in, as its standing orders say: they were suppressed here this \
             turn\n"
        ),
        "{}",
        fought.listing
    );
}

#[test]
fn guerrillas_defending_beside_others_fight_on() {
    let mut state = aap_in(1, Power::Japan, Phase::CombatMove);
    let inf = aap().catalogue.infantry().expect("INF");
    let shansi = at(aap(), "Shansi");
    state.forces[shansi.index()].insert((Power::Kmt, inf, 0), 2);
    let order = Order::Move {
        units: vec![(inf, 6)],
        path: vec![at(aap(), "Manchuria"), shansi],
    };
    order_under(aap().rules(), &mut state, Power::Japan, order, &[]).expect("moves in");
    let mut state = to_the_battles(state);
    standing(
        &mut state,
        Power::Ccp,
        blend_in(RetreatOrder::AfterRound(0)),
    )
    .expect("set");
    // Japan hits six times; of the twelve defending dice (casualties firing back), none.
    let mut dice = vec![1; 6];
    dice.extend([6; 6]);
    // The CCP holds Shansi: its orders are the ones the battle follows.
    let fought = fight(&mut state, Power::Japan, BattleOrders::at(shansi), &dice).expect("fought");
    assert_eq!(fought.outcome, Outcome::AttackerWins);
    assert!(
        fought.listing.contains("others defend beside them"),
        "{}",
        fought.listing
    );
}

/// Round 2, the CCP's battles: its four infantry from Shansi in Manchuria, against two
/// Japanese infantry.
fn ccp_in_manchuria() -> GameState {
    let mut state = aap_in(2, Power::Ccp, Phase::Battles);
    let inf = aap().catalogue.infantry().expect("INF");
    let manchuria = at(aap(), "Manchuria");
    let forces = &mut state.forces[manchuria.index()];
    forces.clear();
    forces.insert((Power::Japan, inf, 0), 2);
    forces.insert((Power::Ccp, inf, 0), 4);
    state.forces[at(aap(), "Shansi").index()].clear();
    state.contested.insert(manchuria, Default::default());
    state
}

#[test]
fn attacking_guerrillas_blend_in_when_their_battle_order_says_and_the_defender_keeps_the_place() {
    let mut state = ccp_in_manchuria();
    let manchuria = at(aap(), "Manchuria");
    let orders = BattleOrders {
        blend_in: Some(RetreatOrder::WhenAtMost(3)),
        ..BattleOrders::at(manchuria)
    };
    // The CCP misses four times; Japan hits once (1, 6): three are left.
    let fought = fight(&mut state, Power::Ccp, orders, &[6, 6, 6, 6, 1, 6]).expect("fought");
    assert_eq!(fought.outcome, Outcome::AttackerBlendedIn);
    assert!(!fought.captured);
    assert_eq!(state.holder[manchuria.index()], Some(Power::Japan));
    assert_eq!(infantry(&state, "Manchuria", Power::Ccp), 3);
    assert_eq!(infantry(&state, "Manchuria", Power::Japan), 2);
    assert!(
        fought
            .listing
            .contains("Attacker blends in, both sides stay"),
        "{}",
        fought.listing
    );
}

#[test]
fn only_guerrillas_blend_in() {
    // Japan's battle order, Japan's and the KMT's standing orders: refused.
    let mut state = japan_at_the_battles();
    let orders = BattleOrders {
        blend_in: Some(RetreatOrder::AfterRound(1)),
        ..BattleOrders::at(at(aap(), "Shansi"))
    };
    let refused = fight(&mut state, Power::Japan, orders, &[]).expect_err("not guerrillas");
    assert_eq!(refused.code, "not-guerrillas");
    for power in [Power::Japan, Power::Kmt] {
        let refused = standing(&mut state, power, blend_in(RetreatOrder::AfterRound(1)))
            .expect_err("not guerrillas");
        assert_eq!(refused.code, "not-guerrillas");
    }
    // Cut-Throat has no guerrillas at all.
    let mut cut_throat = start();
    let refused = order(
        &mut cut_throat,
        Power::Russia,
        Order::SetStandingOrders {
            territory: None,
            orders: blend_in(RetreatOrder::AfterRound(1)),
        },
    )
    .expect_err("no guerrillas");
    assert_eq!(refused.code, "not-guerrillas");
}

#[test]
fn the_exact_odds_of_a_battle_the_ccp_leaves_after_round_one() {
    // Six Japanese infantry (hitting on 1) against four of the CCP's (on 2), the CCP
    // blending in after round 1: Japan wins only by sinking all four at once, P(at least 4
    // of 6 dice show a 1); otherwise both stay. (The CCP's dice never leave Japan without
    // infantry: four dice, six infantry.)
    let state = ccp_blending_in(RetreatOrder::AfterRound(1));
    let odds = odds_of(
        aap().rules(),
        &state,
        Power::Japan,
        &BattleOrders::at(at(aap(), "Shansi")),
        &Work::unlimited(),
    )
    .expect("odds")
    .expect("a battle");
    let choose = |n: i32, k: i32| {
        (0..k)
            .map(|i| f64::from(n - i) / f64::from(i + 1))
            .product::<f64>()
    };
    let p: f64 = 1.0 / 6.0;
    let win: f64 = (4..=6)
        .map(|k| choose(6, k) * p.powi(k) * (1.0 - p).powi(6 - k))
        .sum();
    assert!((odds.attacker_win - win).abs() < 1e-12, "{odds:?}");
    assert!((odds.blended_in - (1.0 - win)).abs() < 1e-12, "{odds:?}");
}
