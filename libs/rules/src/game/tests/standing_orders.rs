//! A defender's standing battle orders: set any time by the power's player, followed by
//! the game master in the battles fought while the player is away.

use super::*;
use crate::battle::RetreatOrder;
use crate::game::combat::BattleOrders;
use crate::game::standing::StandingOrders;

/// Round 2, Germany's battles: two German tanks in Karelia against a Russian infantry and
/// tank, the attacker withdrawing to East Europe after round one.
fn karelia_attacked() -> (GameState, Order) {
    let mut state = start();
    state.round = 2;
    state.turn = 1;
    state.phase = Phase::Battles;
    set(
        &mut state,
        "Karelia",
        &[
            (Power::Russia, "INF", 1),
            (Power::Russia, "ARM", 1),
            (Power::Germany, "ARM", 2),
        ],
    );
    state
        .contested
        .insert(place_id("Karelia"), Default::default());
    let mut orders = BattleOrders::at(place_id("Karelia"));
    orders.retreat = Some(RetreatOrder::AfterRound(1));
    orders.retreat_to = Some(place_id("East Europe"));
    (state, Order::FightBattle(orders))
}

/// The tanks roll 1 and 6 (one hit), the defenders 6 and 6 (none); then the withdrawal.
const ONE_HIT: [u8; 4] = [1, 6, 6, 6];

fn lose_armour_first(territory: Option<&str>) -> Order {
    Order::SetStandingOrders {
        territory: territory.map(place_id),
        orders: StandingOrders {
            order_of_loss: vec![unit("ARM")],
            ..StandingOrders::default()
        },
    }
}

#[test]
fn without_standing_orders_the_defender_loses_by_the_default_order() {
    // docs/rule-facts.md: on land the defender loses "INF, ARM, BMB, FTR" first to last.
    let (mut state, fight) = karelia_attacked();
    ordered_with_dice(&mut state, Power::Germany, fight, &ONE_HIT).expect("fought");
    assert_eq!(count(&state, "Karelia", Power::Russia, "INF"), 0);
    assert_eq!(count(&state, "Karelia", Power::Russia, "ARM"), 1);
}

#[test]
fn a_defenders_standing_order_of_loss_is_followed_and_named_in_the_listing() {
    // Part 13: "remove the appropriate type and number (as per default or special orders
    // of losses) of defending units"; "GMs should only do what players explicitly tell
    // them to do".
    let (mut state, fight) = karelia_attacked();
    // Given Russia's standing order, sent on Germany's turn (any time)...
    order(&mut state, Power::Russia, lose_armour_first(None)).expect("set any time");
    // ...when Germany fights, then the tank is lost first.
    let events = ordered_with_dice(&mut state, Power::Germany, fight, &ONE_HIT).expect("fought");
    assert_eq!(count(&state, "Karelia", Power::Russia, "INF"), 1);
    assert_eq!(count(&state, "Karelia", Power::Russia, "ARM"), 0);
    let Some(GameEvent::BattleFought(fought)) = events.first() else {
        panic!("a battle: {events:?}");
    };
    assert!(
        fought.listing.starts_with(
            "Defender's standing orders (Russia, for all its battles): lose ARM first\n"
        ),
        "{}",
        fought.listing
    );
}

#[test]
fn orders_for_a_place_come_before_orders_for_all_battles_and_defaults_clear_them() {
    let (mut state, fight) = karelia_attacked();
    order(&mut state, Power::Russia, lose_armour_first(None)).expect("for all");
    // For Karelia, the default order again: infantry first there.
    order(
        &mut state,
        Power::Russia,
        Order::SetStandingOrders {
            territory: Some(place_id("Karelia")),
            orders: StandingOrders {
                order_of_loss: vec![unit("INF")],
                ..StandingOrders::default()
            },
        },
    )
    .expect("for Karelia");
    ordered_with_dice(&mut state, Power::Germany, fight, &ONE_HIT).expect("fought");
    assert_eq!(count(&state, "Karelia", Power::Russia, "INF"), 0);
    assert_eq!(count(&state, "Karelia", Power::Russia, "ARM"), 1);
    // Orders equal to the defaults clear what was set.
    order(
        &mut state,
        Power::Russia,
        Order::SetStandingOrders {
            territory: None,
            orders: StandingOrders::default(),
        },
    )
    .expect("cleared");
    assert!(!state.standing_orders.contains_key(&(Power::Russia, None)));
}

#[test]
fn an_order_of_loss_naming_a_unit_twice_is_refused() {
    let mut state = start();
    let err = order(
        &mut state,
        Power::Russia,
        Order::SetStandingOrders {
            territory: None,
            orders: StandingOrders {
                order_of_loss: vec![unit("ARM"), unit("ARM")],
                ..StandingOrders::default()
            },
        },
    )
    .expect_err("twice");
    assert_eq!(err.code, "order-of-loss-repeats");
}
