//! What may be done now (`game::moment`), given/when/then on Cut-Throat and War.

use super::*;
use crate::game::combat::BattleOrders;
use crate::game::moment::{Now, OrderKind, Reach, ToPlace};

fn now(state: &GameState) -> Now {
    Now::of(rules(), state)
}

/// How many of a power's units of a type may still move from a place, and how far.
fn moves_left(now: &Now, place: &str, code: &str) -> Option<(u32, Reach)> {
    now.may_move
        .iter()
        .find(|m| m.place == place_id(place) && m.unit == unit(code))
        .map(|m| (m.count, m.reach))
}

/// Seats every power, the seats given at `at`.
fn seated_at(at: Moment) -> GameState {
    let mut state = start();
    let seats = Power::CLASSIC
        .iter()
        .map(|p| (*p, p.name().to_lowercase()))
        .collect();
    apply(rules(), &mut state, &GameEvent::SeatsAssigned { seats, at });
    state
}

#[test]
fn at_the_start_of_a_cut_throat_game_russia_repairs_with_the_whole_turn_ahead() {
    let at = Moment::from_unix_seconds(1_800_000_000);
    let state = seated_at(at);

    let now = now(&state);

    assert!(!now.over);
    assert_eq!(now.to_act, Some(Power::Russia));
    assert_eq!(now.phase, Some(Phase::Repairs));
    assert_eq!(
        now.phases_left,
        vec![
            Phase::WeaponsDevelopment,
            Phase::Purchase,
            Phase::CombatMove,
            Phase::Battles,
            Phase::NonCombatMove,
            Phase::Placement,
            Phase::Income,
        ]
    );
    // Nothing to repair, no loan needed (Russia holds all it began with), no debt.
    assert_eq!(now.orders, vec![OrderKind::GoPassive, OrderKind::EndPhase]);
    assert_eq!(
        now.any_power,
        vec![OrderKind::OfferAgreement, OrderKind::SetStandingOrders]
    );
    let money = now.money.expect("running");
    assert_eq!(
        (money.treasury, money.ipc_count, money.income),
        (24, 24, 24)
    );
    assert!(now.to_place.is_empty() && now.may_move.is_empty() && now.battles.is_empty());
    assert_eq!(
        now.substitute_after,
        Some(at.plus_seconds(3 * 24 * 60 * 60))
    );
}

#[test]
fn after_a_purchase_the_units_wait_to_be_placed_at_the_complexes_and_the_money_is_less() {
    let mut state = start();
    advance_to(&mut state, Phase::Purchase);
    order(
        &mut state,
        Power::Russia,
        Order::Purchase(units_of(&[("INF", 3), ("TRN", 1)])),
    )
    .expect("bought");

    let now = now(&state);

    assert_eq!(now.phase, Some(Phase::Purchase));
    assert_eq!(
        now.orders,
        vec![
            OrderKind::Purchase,
            OrderKind::GoPassive,
            OrderKind::EndPhase
        ]
    );
    assert_eq!(now.money.expect("running").treasury, 24 - 9 - 8);
    let infantry = now
        .to_place
        .iter()
        .find(|p| p.unit == unit("INF"))
        .expect("infantry");
    assert_eq!(infantry.count, 3);
    // Russia's two complexes, and (for the transport) the sea zones beside them.
    assert_eq!(infantry.at, vec![place_id("Karelia"), place_id("Russia")]);
    let transport: &ToPlace = now
        .to_place
        .iter()
        .find(|p| p.unit == unit("TRN"))
        .expect("transport");
    assert!(transport.at.contains(&place_id("N.Karelia SZ")));
    assert!(transport.at.iter().all(|t| rules().board.get(*t).sea));
}

#[test]
fn in_the_combat_move_units_that_moved_may_not_move_again_and_the_rest_keep_their_range() {
    let mut state = in_phase(1, Power::Russia, Phase::CombatMove);
    assert_eq!(
        moves_left(&now(&state), "Karelia", "INF"),
        Some((3, Reach::Spaces(1)))
    );
    move_units(
        &mut state,
        Power::Russia,
        &[("INF", 2), ("FTR", 1)],
        &["Karelia", "Russia"],
    )
    .expect("moved");

    let now = now(&state);

    assert!(now.orders.contains(&OrderKind::Move));
    assert!(now.orders.contains(&OrderKind::Rail));
    assert_eq!(
        moves_left(&now, "Karelia", "INF"),
        Some((1, Reach::Spaces(1)))
    );
    assert_eq!(moves_left(&now, "Karelia", "FTR"), None);
    // Russia's own six infantry may move; the two that came may not.
    assert_eq!(
        moves_left(&now, "Russia", "INF"),
        Some((6, Reach::Spaces(1)))
    );
    assert_eq!(
        moves_left(&now, "Russia", "FTR"),
        Some((2, Reach::Spaces(4)))
    );
    assert_eq!(
        moves_left(&now, "Russia", "ARM"),
        Some((2, Reach::Spaces(2)))
    );
}

#[test]
fn in_the_non_combat_move_aircraft_that_flew_in_the_combat_move_have_what_is_left_of_their_range() {
    let mut state = in_phase(1, Power::Russia, Phase::CombatMove);
    move_units(
        &mut state,
        Power::Russia,
        &[("FTR", 1)],
        &["Karelia", "Russia", "Caucasus"],
    )
    .expect("two spaces");
    advance_to(&mut state, Phase::NonCombatMove);

    let now = now(&state);

    assert_eq!(
        moves_left(&now, "Caucasus", "FTR"),
        Some((1, Reach::Spaces(2)))
    );
    assert_eq!(now.phases_left, vec![Phase::Placement, Phase::Income]);
}

#[test]
fn in_the_battles_with_a_battle_pending_the_battle_is_to_fight_and_the_phase_may_not_end() {
    let mut state = in_phase(2, Power::Russia, Phase::CombatMove);
    let east = place_id("Eastern Europe");
    state.forces[east.index()].clear();
    state.forces[east.index()].insert((Power::Germany, unit("INF"), 0), 1);
    move_units(
        &mut state,
        Power::Russia,
        &[("INF", 2)],
        &["Karelia", "Eastern Europe"],
    )
    .expect("attack");
    assert_eq!(now(&state).battles, vec![east]);
    order(&mut state, Power::Russia, Order::EndPhase).expect("to the battles");

    let pending = now(&state);

    assert_eq!(pending.phase, Some(Phase::Battles));
    assert_eq!(pending.battles, vec![east]);
    assert!(pending.orders.contains(&OrderKind::FightBattle));
    assert!(!pending.orders.contains(&OrderKind::EndPhase));

    ordered_with_dice(
        &mut state,
        Power::Russia,
        Order::FightBattle(BattleOrders::at(east)),
        &[1, 6, 6],
    )
    .expect("fought");
    let fought = now(&state);
    assert!(fought.battles.is_empty());
    assert!(!fought.orders.contains(&OrderKind::FightBattle));
    assert!(fought.orders.contains(&OrderKind::EndPhase));
}

#[test]
fn in_the_placement_with_units_to_place_they_are_placed_before_the_phase_ends() {
    let mut state = start();
    advance_to(&mut state, Phase::Purchase);
    order(
        &mut state,
        Power::Russia,
        Order::Purchase(units_of(&[("ARM", 2)])),
    )
    .expect("bought");
    advance_to(&mut state, Phase::Placement);

    let now_placing = now(&state);

    assert_eq!(now_placing.phases_left, vec![Phase::Income]);
    assert!(now_placing.orders.contains(&OrderKind::Place));
    assert!(!now_placing.orders.contains(&OrderKind::EndPhase));
    assert_eq!(
        now_placing.to_place,
        vec![ToPlace {
            unit: unit("ARM"),
            count: 2,
            at: vec![place_id("Karelia"), place_id("Russia")],
        }]
    );

    place(&mut state, Power::Russia, "Russia", &[("ARM", 2)]).expect("placed");
    let placed = now(&state);
    assert!(placed.to_place.is_empty());
    assert!(!placed.orders.contains(&OrderKind::Place));
    assert!(placed.orders.contains(&OrderKind::EndPhase));
}

#[test]
fn an_ended_game_allows_nothing() {
    let mut state = seated_at(Moment::from_unix_seconds(1_800_000_000));
    for event in decide_director(
        rules(),
        &state,
        &DirectorOrder::EndGame,
        Moment::from_unix_seconds(1_800_001_000),
    )
    .expect("ended")
    {
        apply(rules(), &mut state, &event);
    }

    let now = now(&state);

    assert!(now.over);
    assert_eq!((now.to_act, now.phase), (None, None));
    assert!(now.orders.is_empty() && now.any_power.is_empty());
    assert!(now.money.is_none() && now.substitute_after.is_none());
}

#[test]
fn a_passive_power_may_only_end_its_phases() {
    let mut state = in_phase(1, Power::Russia, Phase::CombatMove);
    state.passive.insert(Power::Russia);

    let now = now(&state);

    assert_eq!(now.orders, vec![OrderKind::EndPhase]);
    assert!(now.may_move.is_empty());
}

#[test]
fn a_ruleset_without_rail_offers_no_rail() {
    let mut special = CUT_THROAT_SPECIAL.clone();
    special.without.insert(crate::document::CutThroatRule::Rail);
    let rules = Rules {
        special: &special,
        ..rules()
    };
    let state = in_phase(1, Power::Russia, Phase::CombatMove);

    let now = Now::of(rules, &state);

    assert!(now.orders.contains(&OrderKind::Move));
    assert!(!now.orders.contains(&OrderKind::Rail));
}

#[test]
fn agreements_bring_their_breaking_and_permissions_and_an_offer_its_acceptance() {
    let mut state = start();
    order(
        &mut state,
        Power::UnitedKingdom,
        Order::OfferAgreement {
            with: Power::Russia,
            terms: "peace".into(),
        },
    )
    .expect("offered");
    assert!(now(&state).any_power.contains(&OrderKind::AcceptAgreement));
    order(
        &mut state,
        Power::Russia,
        Order::AcceptAgreement {
            from: Power::UnitedKingdom,
        },
    )
    .expect("accepted");

    let now = now(&state);

    for kind in [OrderKind::BreakAgreement, OrderKind::GrantPermission] {
        assert!(now.any_power.contains(&kind), "{kind:?}");
    }
    assert!(!now.any_power.contains(&OrderKind::AcceptAgreement));
    assert!(!now.any_power.contains(&OrderKind::RevokePermission));
}

#[test]
fn a_war_game_waits_for_any_player_to_roll_the_start_zones() {
    let war = crate::ruleset::Ruleset::builtin("war").expect("war");
    let state = super::home_cooked::seated();

    let now = Now::of(war.rules(), &state);

    assert!(now.any_seated);
    assert_eq!(now.phase, Some(Phase::StartZones));
    assert_eq!(now.orders, vec![OrderKind::RollStartZones]);
    assert_eq!(
        now.any_power,
        vec![OrderKind::SetOrderOfLoss, OrderKind::SetBreakOff]
    );
    assert!(now.phases_left.is_empty());
}

#[test]
fn every_kind_of_order_is_named_by_the_type_its_json_carries() {
    for kind in OrderKind::ALL {
        assert_eq!(
            serde_json::to_value(kind).expect("json"),
            serde_json::json!(kind.tag())
        );
        // Unit orders parse as they are; the others miss a field, but not their type.
        let parsed = serde_json::from_value::<crate::game::named::NamedOrder>(
            serde_json::json!({"type": kind.tag()}),
        );
        if let Err(error) = parsed {
            assert!(
                !error.to_string().contains("unknown variant"),
                "{kind:?}: {error}"
            );
        }
    }
}

#[test]
fn a_refusal_for_the_phase_names_the_phases_in_words() {
    let mut state = start();

    let err = order(
        &mut state,
        Power::Russia,
        Order::Purchase(units_of(&[("INF", 1)])),
    )
    .expect_err("not in the repairs");

    assert_eq!(
        err.message,
        "buying units belongs to the purchase phase; this is the repairs phase"
    );
    let err = move_units(
        &mut state,
        Power::Russia,
        &[("INF", 1)],
        &["Karelia", "Russia"],
    )
    .expect_err("not in the repairs");
    assert_eq!(
        err.message,
        "moving belongs to the combat or non-combat move; this is the repairs phase"
    );
}

mod random_play {
    //! Random games (the property tests' player): whatever the engine accepts, the moment
    //! before it listed, for the power that gave it.

    use proptest::prelude::*;

    use super::*;
    use crate::dice::GameSeed;
    use crate::game::autoplay::{chooser, random_order};

    fn every_accepted_order_was_listed(
        rules: Rules<'_>,
        mut state: GameState,
        numbers: &[u32],
        seed: [u8; 32],
    ) -> Result<(), TestCaseError> {
        let mut dice = GameSeed::from_bytes(seed).dice_for("moment", 0);
        let mut choose = chooser(numbers);
        for _ in 0..600 {
            let (by, order) = random_order(rules, &state, &mut choose);
            let Ok(events) = decide(rules, &state, by, &order, Moment::default(), &mut dice) else {
                continue;
            };
            let now = Now::of(rules, &state);
            let kind = OrderKind::of(&order);
            let theirs = now.to_act == Some(by) || now.any_seated;
            prop_assert!(
                now.any_power.contains(&kind) || (theirs && now.orders.contains(&kind)),
                "{:?} by {} was accepted in {:?}, but the moment listed {:?} for {:?} and {:?} for anyone",
                order,
                by,
                state.phase,
                now.orders,
                now.to_act,
                now.any_power
            );
            for event in &events {
                apply(rules, &mut state, event);
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        #[test]
        fn in_cut_throat_whatever_the_engine_accepts_was_listed(
            numbers in prop::collection::vec(any::<u32>(), 50..400),
            seed in any::<[u8; 32]>(),
        ) {
            every_accepted_order_was_listed(rules(), start(), &numbers, seed)?;
        }

        #[test]
        fn in_war_whatever_the_engine_accepts_was_listed(
            numbers in prop::collection::vec(any::<u32>(), 50..400),
            seed in any::<[u8; 32]>(),
        ) {
            let ruleset = crate::ruleset::Ruleset::builtin("war").expect("war");
            every_accepted_order_was_listed(
                ruleset.rules(),
                super::super::home_cooked::seated(),
                &numbers,
                seed,
            )?;
        }

        #[test]
        fn in_aap_whatever_the_engine_accepts_was_listed(
            numbers in prop::collection::vec(any::<u32>(), 50..400),
            seed in any::<[u8; 32]>(),
        ) {
            let ruleset = super::super::aap::pacific();
            every_accepted_order_was_listed(ruleset.rules(), ruleset.start(), &numbers, seed)?;
        }
    }
}
