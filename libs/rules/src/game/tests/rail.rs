//! Cut-Throat rail movement: infantry, AA guns and industrial complexes.

use super::*;

fn rail(
    state: &mut GameState,
    by: Power,
    units: &[(&str, u32)],
    names: &[&str],
) -> Result<Vec<GameEvent>, RuleViolation> {
    order(
        state,
        by,
        Order::Rail {
            units: units_of(units),
            path: path_of(names),
        },
    )
}

fn refused(state: &mut GameState, units: &[(&str, u32)], names: &[&str]) -> RuleViolation {
    let before = state.clone();
    let err = rail(state, Power::Russia, units, names).expect_err("refused");
    assert_eq!(*state, before, "a refused order changes nothing");
    err
}

const SIBERIA: [&str; 4] = ["Caucasus", "Russia", "Kazakh", "Novosibirsk"];

#[test]
fn three_infantry_a_turn_go_three_spaces_by_rail() {
    let mut state = in_phase(1, Power::Russia, Phase::NonCombatMove);
    let before = count(&state, "Novosibirsk", Power::Russia, "INF");
    rail(&mut state, Power::Russia, &[("INF", 2)], &SIBERIA).expect("railed");
    rail(&mut state, Power::Russia, &[("INF", 1)], &SIBERIA[..2]).expect("the third");
    assert_eq!(
        count(&state, "Novosibirsk", Power::Russia, "INF"),
        before + 2
    );
    let err = refused(&mut state, &[("INF", 1)], &SIBERIA[..2]);
    assert_eq!(err.code, "rail-limit");
}

#[test]
fn rail_goes_no_further_than_three_spaces_counting_the_turns_earlier_moves() {
    let mut state = in_phase(1, Power::Russia, Phase::NonCombatMove);
    let err = refused(
        &mut state,
        &[("INF", 1)],
        &["Caucasus", "Russia", "Kazakh", "Novosibirsk", "Yakut"],
    );
    assert_eq!(err.code, "out-of-range");
    // Moscow's own infantry leaves: only the one that walked in is there to rail.
    state.forces[place_id("Russia").index()].retain(|(_, u, _), _| *u != unit("INF"));
    move_units(
        &mut state,
        Power::Russia,
        &[("INF", 1)],
        &["Caucasus", "Russia"],
    )
    .expect("walked");
    let err = refused(
        &mut state,
        &[("INF", 1)],
        &["Russia", "Kazakh", "Novosibirsk", "Yakut"],
    );
    assert_eq!(err.code, "out-of-range");
    rail(&mut state, Power::Russia, &[("INF", 1)], &SIBERIA[1..]).expect("two more");
}

#[test]
fn rail_crosses_a_partners_land_only_with_its_approval_and_never_enemy_land() {
    let mut state = in_phase(1, Power::Russia, Phase::NonCombatMove);
    let path = ["Caucasus", "Persia", "India"];
    assert_eq!(
        refused(&mut state, &[("INF", 1)], &path).code,
        "rail-through-enemy"
    );
    order(
        &mut state,
        Power::Russia,
        Order::OfferAgreement {
            with: Power::UnitedKingdom,
            terms: "rail".into(),
        },
    )
    .expect("offered");
    order(
        &mut state,
        Power::UnitedKingdom,
        Order::AcceptAgreement {
            from: Power::Russia,
        },
    )
    .expect("accepted");
    assert_eq!(
        refused(&mut state, &[("INF", 1)], &path).code,
        "rail-permission"
    );
    order(
        &mut state,
        Power::UnitedKingdom,
        Order::GrantPermission {
            to: Power::Russia,
            permission: Permission::Rail,
        },
    )
    .expect("approved");
    rail(&mut state, Power::Russia, &[("INF", 1)], &path).expect("through Persia");
}

#[test]
fn railed_infantry_may_attack_but_not_in_the_first_round() {
    let mut state = in_phase(1, Power::Russia, Phase::CombatMove);
    let path = ["Caucasus", "Karelia", "East Europe"];
    assert_eq!(
        refused(&mut state, &[("INF", 1)], &path).code,
        "no-combat-round-one"
    );
    state.round = 2;
    rail(&mut state, Power::Russia, &[("INF", 1)], &path).expect("into battle");
    assert!(state.contested.contains_key(&place_id("East Europe")));
}

#[test]
fn rogue_units_have_no_rail() {
    let mut state = in_phase(2, Power::Russia, Phase::NonCombatMove);
    state.holder[place_id("Russia").index()] = Some(Power::Germany);
    assert_eq!(
        refused(&mut state, &[("INF", 1)], &["Caucasus", "Karelia"]).code,
        "rogue-no-rail"
    );
}

#[test]
fn only_infantry_aa_guns_and_complexes_go_by_rail() {
    let mut state = in_phase(1, Power::Russia, Phase::NonCombatMove);
    assert_eq!(
        refused(&mut state, &[("ARM", 1)], &["Karelia", "Russia"]).code,
        "not-by-rail"
    );
}

#[test]
fn an_aa_gun_rails_two_spaces_but_not_after_firing_a_rocket() {
    let mut state = in_phase(1, Power::Russia, Phase::NonCombatMove);
    let far = ["Karelia", "Russia", "Kazakh", "Novosibirsk"];
    assert_eq!(refused(&mut state, &[("AA", 1)], &far).code, "out-of-range");
    rail(&mut state, Power::Russia, &[("AA", 1)], &far[..3]).expect("two spaces");
    assert_eq!(count(&state, "Kazakh", Power::Russia, "AA"), 1);

    let mut state = in_phase(2, Power::Russia, Phase::Battles);
    let rocket = Order::FireRocket {
        from: place_id("Karelia"),
        target: place_id("Germany"),
    };
    let err = order(&mut state, Power::Russia, rocket.clone()).expect_err("no rockets yet");
    assert_eq!(err.code, "no-rockets");
    state
        .technologies
        .entry(Power::Russia)
        .or_default()
        .insert(Technology::Rockets);
    ordered_with_dice(&mut state, Power::Russia, rocket.clone(), &[4]).expect("fired");
    assert_eq!(state.treasury[&Power::Germany], 32 - 4);
    let err = order(&mut state, Power::Russia, rocket).expect_err("one gun, one rocket");
    assert_eq!(err.code, "no-rocket-gun");
    advance_to(&mut state, Phase::NonCombatMove);
    assert_eq!(
        refused(&mut state, &[("AA", 1)], &["Karelia", "Russia"]).code,
        "rocket-fired"
    );
}

#[test]
fn a_moved_complex_produces_nothing_that_turn_then_only_its_new_territorys_value() {
    let mut state = in_phase(1, Power::Russia, Phase::NonCombatMove);
    assert_eq!(
        refused(&mut state, &[("IC", 1)], &["Russia", "Caucasus"]).code,
        "capital-complex"
    );
    assert_eq!(
        refused(
            &mut state,
            &[("IC", 1)],
            &["Karelia", "Russia", "Kazakh", "Novosibirsk"]
        )
        .code,
        "out-of-range"
    );
    rail(
        &mut state,
        Power::Russia,
        &[("IC", 1)],
        &["Karelia", "Caucasus"],
    )
    .expect("moved");
    state.phase = Phase::Placement;
    state.pending.insert(unit("INF"), 4);
    let err = place(&mut state, Power::Russia, "Caucasus", &[("INF", 1)]).expect_err("not set up");
    assert_eq!(err.code, "complex-setting-up");
    state.factories_setting_up.clear();
    let err = place(&mut state, Power::Russia, "Caucasus", &[("INF", 4)]).expect_err("limited");
    assert_eq!(err.code, "production-limit");
    place(&mut state, Power::Russia, "Caucasus", &[("INF", 3)]).expect("Caucasus's value");
}

#[test]
fn an_original_complex_taken_home_by_its_owner_produces_without_limit_again() {
    let mut state = in_phase(1, Power::Russia, Phase::NonCombatMove);
    rail(
        &mut state,
        Power::Russia,
        &[("IC", 1)],
        &["Karelia", "Caucasus"],
    )
    .expect("away");
    let err = refused(&mut state, &[("IC", 1)], &["Caucasus", "Karelia"]);
    assert_eq!(err.code, "rail-limit", "one complex a turn");
    state.factory_railed = false;
    state.moved.clear();
    rail(
        &mut state,
        Power::Russia,
        &[("IC", 1)],
        &["Caucasus", "Karelia"],
    )
    .expect("home");
    state.factories_setting_up.clear();
    state.phase = Phase::Placement;
    state.pending.insert(unit("INF"), 8);
    place(&mut state, Power::Russia, "Karelia", &[("INF", 8)]).expect("unlimited again");
}

#[test]
fn a_rail_move_carries_one_kind_along_railways_only() {
    let mut state = in_phase(1, Power::Russia, Phase::NonCombatMove);
    assert_eq!(
        refused(&mut state, &[("INF", 1), ("AA", 1)], &["Karelia", "Russia"]).code,
        "rail-one-kind"
    );
    assert_eq!(
        refused(&mut state, &[("INF", 1)], &["Karelia", "Kazakh"]).code,
        "not-adjacent"
    );
    assert_eq!(
        refused(&mut state, &[("INF", 1)], &["Karelia", "Karelia Sea Zone"]).code,
        "not-adjacent",
        "no railway runs to sea"
    );
}

#[test]
fn a_rocket_hits_only_an_enemy_complex_within_three_spaces() {
    let mut state = in_phase(2, Power::Russia, Phase::Battles);
    state
        .technologies
        .entry(Power::Russia)
        .or_default()
        .insert(Technology::Rockets);
    for target in ["West US", "Caucasus", "Russia"] {
        let before = state.clone();
        let err = order(
            &mut state,
            Power::Russia,
            Order::FireRocket {
                from: place_id("Karelia"),
                target: place_id(target),
            },
        )
        .expect_err("not a target");
        assert_eq!(err.code, "rocket-target", "{target}");
        assert_eq!(state, before);
    }
}
