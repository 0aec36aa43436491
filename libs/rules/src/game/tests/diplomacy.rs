//! Cut-Throat alliances, treaties and agreements: given a position, when a power offers,
//! accepts, grants or breaks, then the board and the relations are what the seed says.

use super::*;
use crate::battle::Outcome;
use crate::game::combat::BattleOrders;

fn agree(state: &mut GameState, a: Power, b: Power) {
    order(
        state,
        a,
        Order::OfferAgreement {
            with: b,
            terms: "alliance".into(),
        },
    )
    .expect("offered");
    order(state, b, Order::AcceptAgreement { from: a }).expect("accepted");
}

fn grant(state: &mut GameState, by: Power, to: Power, permission: Permission) {
    order(state, by, Order::GrantPermission { to, permission }).expect("granted");
}

fn break_with(state: &mut GameState, by: Power, with: Power) -> AgreementEnded {
    let events = order(state, by, Order::BreakAgreement { with }).expect("broken");
    let [GameEvent::AgreementEnded(ended)] = events.as_slice() else {
        panic!("{events:?}")
    };
    (**ended).clone()
}

#[test]
fn any_power_offers_and_accepts_an_agreement_at_any_time_not_only_on_its_turn() {
    let mut state = start();
    assert_eq!(state.power(rules().board), Power::Russia);
    assert!(
        state.at_war(Power::Germany, Power::Japan),
        "no alliances at the start"
    );
    agree(&mut state, Power::Germany, Power::Japan);
    assert!(!state.at_war(Power::Germany, Power::Japan));
    assert_eq!(
        state.agreements.get(&(Power::Germany, Power::Japan)),
        Some(&"alliance".to_owned())
    );
}

#[test]
fn accepting_what_was_not_offered_or_agreeing_twice_or_with_oneself_is_refused() {
    let mut state = start();
    let before = state.clone();
    let err = order(
        &mut state,
        Power::Japan,
        Order::AcceptAgreement {
            from: Power::Germany,
        },
    )
    .expect_err("nothing offered");
    assert_eq!(err.code, "no-offer");
    let err = order(
        &mut state,
        Power::Japan,
        Order::OfferAgreement {
            with: Power::Japan,
            terms: String::new(),
        },
    )
    .expect_err("oneself");
    assert_eq!(err.code, "self-agreement");
    assert_eq!(state, before);
    agree(&mut state, Power::Germany, Power::Japan);
    let err = order(
        &mut state,
        Power::Japan,
        Order::OfferAgreement {
            with: Power::Germany,
            terms: String::new(),
        },
    )
    .expect_err("twice");
    assert_eq!(err.code, "already-agreed");
}

#[test]
fn a_partners_land_is_barred_until_it_grants_entry() {
    let mut state = in_phase(1, Power::UnitedKingdom, Phase::NonCombatMove);
    set(&mut state, "Persia", &[(Power::UnitedKingdom, "INF", 2)]);
    agree(&mut state, Power::UnitedKingdom, Power::Russia);
    let before = state.clone();
    let err = move_units(
        &mut state,
        Power::UnitedKingdom,
        &[("INF", 1)],
        &["Persia", "Kazakh"],
    )
    .expect_err("barred");
    assert_eq!(err.code, "no-permission");
    assert!(err.rule.contains("Cut-Throat"));
    assert_eq!(state, before);
    grant(
        &mut state,
        Power::Russia,
        Power::UnitedKingdom,
        Permission::Enter,
    );
    move_units(
        &mut state,
        Power::UnitedKingdom,
        &[("INF", 1)],
        &["Persia", "Kazakh"],
    )
    .expect("allowed in");
    assert_eq!(count(&state, "Kazakh", Power::UnitedKingdom, "INF"), 1);
    assert_eq!(
        state.holder[place_id("Kazakh").index()],
        Some(Power::Russia),
        "a guest does not take its host's land"
    );
}

#[test]
fn permissions_come_with_an_agreement_and_are_granted_once() {
    let mut state = start();
    let err = order(
        &mut state,
        Power::Russia,
        Order::GrantPermission {
            to: Power::UnitedKingdom,
            permission: Permission::Enter,
        },
    )
    .expect_err("no agreement");
    assert_eq!(err.code, "no-agreement");
    agree(&mut state, Power::UnitedKingdom, Power::Russia);
    grant(
        &mut state,
        Power::Russia,
        Power::UnitedKingdom,
        Permission::Enter,
    );
    let err = order(
        &mut state,
        Power::Russia,
        Order::GrantPermission {
            to: Power::UnitedKingdom,
            permission: Permission::Enter,
        },
    )
    .expect_err("twice");
    assert_eq!(err.code, "permission-unchanged");
    order(
        &mut state,
        Power::Russia,
        Order::RevokePermission {
            to: Power::UnitedKingdom,
            permission: Permission::Enter,
        },
    )
    .expect("revoked");
    assert!(!state.permits(Power::Russia, Power::UnitedKingdom, Permission::Enter));
    let err = order(
        &mut state,
        Power::Russia,
        Order::RevokePermission {
            to: Power::UnitedKingdom,
            permission: Permission::Enter,
        },
    )
    .expect_err("nothing to revoke");
    assert_eq!(err.code, "permission-unchanged");
}

/// The seed's example: Russia, allied to the UK, declares war; UK troops stand in Karelia
/// (beside Russian ones) and alone in Kazakh.
fn russia_and_britain_mixed() -> GameState {
    let mut state = in_phase(2, Power::Russia, Phase::CombatMove);
    agree(&mut state, Power::UnitedKingdom, Power::Russia);
    grant(
        &mut state,
        Power::Russia,
        Power::UnitedKingdom,
        Permission::Enter,
    );
    state.forces[place_id("Karelia").index()].insert((Power::UnitedKingdom, unit("INF"), 0), 1);
    set(&mut state, "Kazakh", &[(Power::UnitedKingdom, "INF", 1)]);
    state
}

#[test]
fn breaking_an_agreement_is_war_mixed_units_must_fight_and_a_lone_guest_takes_the_land() {
    let mut state = russia_and_britain_mixed();
    let ended = break_with(&mut state, Power::Russia, Power::UnitedKingdom);
    assert_eq!(ended.cause, AgreementEnd::BrokenBy(Power::Russia));
    assert_eq!(ended.outbreak.fronts, vec![place_id("Karelia")]);
    assert_eq!(
        ended.outbreak.fallen,
        vec![(place_id("Kazakh"), Power::UnitedKingdom)]
    );
    assert!(state.at_war(Power::Russia, Power::UnitedKingdom));
    assert!(
        state.permissions.is_empty(),
        "permissions end with the agreement"
    );
    assert_eq!(
        state.holder[place_id("Kazakh").index()],
        Some(Power::UnitedKingdom)
    );
    assert_eq!(
        state.ipc_count(rules().board, Power::UnitedKingdom),
        30 + 2,
        "Kazakh's 2 IPC count for Britain at once"
    );
    // Part of Russia's combat movement: the battle in Karelia is Russia's to fight.
    assert!(state.contested.contains_key(&place_id("Karelia")));
    advance_to(&mut state, Phase::Battles);
    let err = order(&mut state, Power::Russia, Order::EndPhase).expect_err("a battle first");
    assert_eq!(err.code, "battles-pending");
    // Russia: 3 INF, 1 ARM, 1 FTR roll first (five 1s sink the lone British infantry).
    let events = ordered_with_dice(
        &mut state,
        Power::Russia,
        Order::FightBattle(BattleOrders::at(place_id("Karelia"))),
        &[1, 6, 6, 6, 6, 6],
    )
    .expect("fought");
    let GameEvent::BattleFought(fought) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(fought.defenders, vec![Power::UnitedKingdom]);
    assert_eq!(fought.outcome, Outcome::AttackerWins);
    assert_eq!(count(&state, "Karelia", Power::UnitedKingdom, "INF"), 0);
}

#[test]
fn only_partners_can_break_an_agreement() {
    let mut state = start();
    let before = state.clone();
    let err = order(
        &mut state,
        Power::Russia,
        Order::BreakAgreement {
            with: Power::Germany,
        },
    )
    .expect_err("nothing to break");
    assert_eq!(err.code, "no-agreement");
    assert_eq!(state, before);
}

#[test]
fn a_war_declared_outside_both_turns_is_fought_in_the_next_combat_move_of_either() {
    let mut state = russia_and_britain_mixed();
    state.turn = 3; // Japan's turn
    let ended = break_with(&mut state, Power::UnitedKingdom, Power::Russia);
    assert_eq!(ended.outbreak.fronts, vec![place_id("Karelia")]);
    assert!(state.contested.is_empty(), "not Japan's battle");
    advance_to(&mut state, Phase::Income);
    order(&mut state, Power::Japan, Order::EndPhase).expect("Japan's turn ends");
    advance_to(&mut state, Phase::Income);
    order(&mut state, Power::UnitedStates, Order::EndPhase).expect("the round ends");
    assert_eq!(state.power(rules().board), Power::Russia);
    assert!(state.contested.is_empty());
    advance_to(&mut state, Phase::CombatMove);
    assert_eq!(
        state.contested.get(&place_id("Karelia")),
        Some(&[Power::UnitedKingdom].into())
    );
    assert!(state.fronts.is_empty());
}

#[test]
fn a_declared_attack_is_fought_even_when_a_treaty_follows_it() {
    let mut state = in_phase(2, Power::Russia, Phase::CombatMove);
    move_units(
        &mut state,
        Power::Russia,
        &[("INF", 3)],
        &["Karelia", "Eastern Europe"],
    )
    .expect("the attack is declared");
    agree(&mut state, Power::Germany, Power::Russia);
    advance_to(&mut state, Phase::Battles);
    let events = ordered_with_dice(
        &mut state,
        Power::Russia,
        Order::FightBattle(BattleOrders::at(place_id("Eastern Europe"))),
        &[1; 40],
    )
    .expect("still fought");
    let GameEvent::BattleFought(fought) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(fought.defenders, vec![Power::Germany]);
}

#[test]
fn partners_defend_together_and_the_guests_lose_first() {
    let mut state = in_phase(2, Power::Germany, Phase::Battles);
    agree(&mut state, Power::UnitedKingdom, Power::Russia);
    set(
        &mut state,
        "Karelia",
        &[
            (Power::Russia, "INF", 1),
            (Power::UnitedKingdom, "INF", 1),
            (Power::Germany, "INF", 1),
        ],
    );
    state
        .contested
        .insert(place_id("Karelia"), [Power::Russia].into());
    // Germany hits once; the two defenders hit once: the German infantry is gone.
    let events = ordered_with_dice(
        &mut state,
        Power::Germany,
        Order::FightBattle(BattleOrders::at(place_id("Karelia"))),
        &[1, 1, 6],
    )
    .expect("fought");
    let GameEvent::BattleFought(fought) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(fought.outcome, Outcome::DefenderWins);
    assert_eq!(fought.defenders, vec![Power::UnitedKingdom, Power::Russia]);
    assert_eq!(
        fought.defender_left,
        vec![(Power::Russia, unit("INF"), 0, 1)]
    );
    assert_eq!(count(&state, "Karelia", Power::UnitedKingdom, "INF"), 0);
    assert_eq!(count(&state, "Karelia", Power::Russia, "INF"), 1);
}

#[test]
fn a_taken_capital_voids_all_its_powers_agreements_and_forbids_new_ones() {
    let mut state = russia_and_britain_mixed();
    state.turn = 1; // Germany's battles
    state.phase = Phase::Battles;
    set(&mut state, "Russia", &[(Power::Germany, "ARM", 1)]);
    state
        .contested
        .insert(place_id("Russia"), [Power::Russia].into());
    let events = ordered_with_dice(
        &mut state,
        Power::Germany,
        Order::FightBattle(BattleOrders::at(place_id("Russia"))),
        &[],
    )
    .expect("Moscow falls");
    assert!(matches!(
        events.as_slice(),
        [GameEvent::BattleFought(_), GameEvent::AgreementEnded(ended)]
            if ended.cause == AgreementEnd::CapitalTaken(Power::Russia)
    ));
    assert!(state.agreements.is_empty());
    assert_eq!(
        state.holder[place_id("Kazakh").index()],
        Some(Power::UnitedKingdom),
        "the war gives Britain the land only it stands on"
    );
    for (by, with) in [(Power::Russia, Power::Japan), (Power::Japan, Power::Russia)] {
        let err = order(
            &mut state,
            by,
            Order::OfferAgreement {
                with,
                terms: String::new(),
            },
        )
        .expect_err("no new agreements");
        assert_eq!(err.code, "capital-lost");
    }
}

#[test]
fn a_partner_frees_a_partners_land_but_only_its_own_troops_free_a_capital() {
    let mut state = in_phase(2, Power::UnitedKingdom, Phase::Battles);
    agree(&mut state, Power::UnitedKingdom, Power::Russia);
    state.holder[place_id("Karelia").index()] = Some(Power::Germany);
    set(&mut state, "Karelia", &[(Power::UnitedKingdom, "ARM", 1)]);
    state
        .contested
        .insert(place_id("Karelia"), [Power::Germany].into());
    ordered_with_dice(
        &mut state,
        Power::UnitedKingdom,
        Order::FightBattle(BattleOrders::at(place_id("Karelia"))),
        &[],
    )
    .expect("Karelia freed");
    assert_eq!(
        state.holder[place_id("Karelia").index()],
        Some(Power::Russia)
    );

    let mut state = in_phase(2, Power::UnitedKingdom, Phase::Battles);
    agree(&mut state, Power::UnitedKingdom, Power::Russia);
    state.holder[place_id("Russia").index()] = Some(Power::Germany);
    set(&mut state, "Russia", &[(Power::UnitedKingdom, "ARM", 1)]);
    state
        .contested
        .insert(place_id("Russia"), [Power::Germany].into());
    ordered_with_dice(
        &mut state,
        Power::UnitedKingdom,
        Order::FightBattle(BattleOrders::at(place_id("Russia"))),
        &[],
    )
    .expect("Moscow taken");
    assert_eq!(
        state.holder[place_id("Russia").index()],
        Some(Power::UnitedKingdom),
        "a capital comes back only to its own troops"
    );
}

#[test]
fn troops_board_a_partners_transport_only_with_its_permission() {
    let mut state = in_phase(1, Power::Germany, Phase::NonCombatMove);
    set(
        &mut state,
        "Baltic Sea Zone",
        &[(Power::UnitedKingdom, "TRN", 1)],
    );
    agree(&mut state, Power::Germany, Power::UnitedKingdom);
    let before = state.clone();
    let err = move_units(
        &mut state,
        Power::Germany,
        &[("INF", 2)],
        &["Germany", "Baltic Sea Zone"],
    )
    .expect_err("not allowed aboard");
    assert_eq!(err.code, "no-transport-space");
    assert_eq!(state, before);
    grant(
        &mut state,
        Power::UnitedKingdom,
        Power::Germany,
        Permission::Ferry,
    );
    move_units(
        &mut state,
        Power::Germany,
        &[("INF", 2)],
        &["Germany", "Baltic Sea Zone"],
    )
    .expect("aboard the British transport");
    assert_eq!(count(&state, "Baltic Sea Zone", Power::Germany, "INF"), 2);
}

#[test]
fn war_hands_a_transport_to_the_troops_aboard_and_fighters_to_the_carrier_they_sit_on() {
    let mut state = in_phase(2, Power::Japan, Phase::NonCombatMove);
    agree(&mut state, Power::Germany, Power::UnitedKingdom);
    set(
        &mut state,
        "UK SZ",
        &[
            (Power::UnitedKingdom, "TRN", 1),
            (Power::UnitedKingdom, "AC", 1),
            (Power::Germany, "INF", 2),
            (Power::Germany, "FTR", 1),
        ],
    );
    let ended = break_with(&mut state, Power::UnitedKingdom, Power::Germany);
    assert_eq!(ended.outbreak.seized.len(), 2, "{:?}", ended.outbreak);
    assert_eq!(count(&state, "UK SZ", Power::Germany, "TRN"), 1);
    assert_eq!(count(&state, "UK SZ", Power::UnitedKingdom, "TRN"), 0);
    assert_eq!(count(&state, "UK SZ", Power::UnitedKingdom, "FTR"), 1);
    assert_eq!(count(&state, "UK SZ", Power::Germany, "FTR"), 0);
}

#[test]
fn a_partners_troops_aboard_sail_with_the_transport_and_land_on_their_own_turn() {
    let mut state = in_phase(1, Power::UnitedKingdom, Phase::NonCombatMove);
    agree(&mut state, Power::Germany, Power::UnitedKingdom);
    grant(
        &mut state,
        Power::UnitedKingdom,
        Power::Germany,
        Permission::Ferry,
    );
    set(
        &mut state,
        "Baltic Sea Zone",
        &[(Power::UnitedKingdom, "TRN", 1), (Power::Germany, "INF", 2)],
    );
    let events = move_units(
        &mut state,
        Power::UnitedKingdom,
        &[("TRN", 1)],
        &["Baltic Sea Zone", "North Sea Zone"],
    )
    .expect("sails");
    assert!(matches!(
        events.as_slice(),
        [GameEvent::UnitsMoved { passengers, .. }] if *passengers == vec![(Power::Germany, unit("INF"), 2)]
    ));
    assert_eq!(count(&state, "North Sea Zone", Power::Germany, "INF"), 2);
    assert_eq!(count(&state, "Baltic Sea Zone", Power::Germany, "INF"), 0);
}
