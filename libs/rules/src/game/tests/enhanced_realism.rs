//! Enhanced Realism as a game plays it: industrial capacity per unit type at each complex,
//! expansions, and scenario income (seed enhanced-realism-industrial-capacity.txt, VII).

use super::*;
use crate::capacity::Scenario;
use crate::document::{IncomeRule, ProductionRule};

/// Cut-Throat with Enhanced Realism's "All Players Tripled" scenario.
fn tripled() -> Rules<'static> {
    Rules {
        economy: Economy {
            income: IncomeRule::ScenarioMultipliers {
                scenario: Scenario::AllTripled,
                usa_phased_in: false,
            },
            production: ProductionRule::IndustrialCapacity,
        },
        ..rules()
    }
}

/// Russia in its Placement phase with `units` bought and IPC to spare.
fn russia_placing(units: &[(&str, u32)]) -> GameState {
    let mut state = in_phase(2, Power::Russia, Phase::Placement);
    state.pending = units_of(units).into_iter().collect();
    state.treasury.insert(Power::Russia, 100);
    state
}

fn place_under(
    state: &mut GameState,
    territory: &str,
    units: &[(&str, u32)],
) -> Result<Vec<GameEvent>, RuleViolation> {
    let order = Order::Place {
        territory: place_id(territory),
        units: units_of(units),
    };
    order_under(tripled(), state, Power::Russia, order, &[])
}

fn expand(state: &mut GameState, territory: &str) -> Result<Vec<GameEvent>, RuleViolation> {
    let order = Order::ExpandComplex {
        territory: place_id(territory),
    };
    order_under(tripled(), state, Power::Russia, order, &[])
}

#[test]
fn moscow_places_24_ipc_of_each_type_a_turn() {
    // The seed: 8 infantry, 4 tanks and 2 fighters can all be built at Moscow.
    let mut state = russia_placing(&[("INF", 9), ("ARM", 5), ("FTR", 2)]);
    place_under(&mut state, "Russia", &[("INF", 8), ("ARM", 4), ("FTR", 2)])
        .expect("24 IPC of each type");
    let refused = place_under(&mut state, "Russia", &[("INF", 1)]).expect_err("a ninth");
    assert_eq!(refused.code, "beyond-capacity");
    assert_eq!(refused.rule, crate::capacity::CAPACITY_RULE);
    assert!(
        refused.message.contains("24 IPC of infantry"),
        "{}",
        refused.message
    );
}

#[test]
fn a_bomber_at_moscow_leaves_no_room_for_a_fighter() {
    let mut state = russia_placing(&[("BMB", 1), ("FTR", 1)]);
    place_under(&mut state, "Russia", &[("BMB", 1)]).expect("15 of 24");
    let refused = place_under(&mut state, "Russia", &[("FTR", 1)]).expect_err("27 > 24");
    assert_eq!(refused.code, "beyond-capacity");
}

#[test]
fn karelia_builds_no_aircraft_until_expanded_to_twelve() {
    // Printed 3 x 3 = 9: a fighter (12) does not fit; three expansions make 12.
    let mut state = russia_placing(&[("FTR", 1), ("INF", 3)]);
    let refused = place_under(&mut state, "Karelia", &[("FTR", 1)]).expect_err("12 > 9");
    assert_eq!(refused.code, "beyond-capacity");
    place_under(&mut state, "Karelia", &[("INF", 3)]).expect("9 of 9");

    let mut state = in_phase(2, Power::Russia, Phase::Purchase);
    state.treasury.insert(Power::Russia, 100);
    for _ in 0..3 {
        expand(&mut state, "Karelia").expect("one a turn");
        let again = expand(&mut state, "Karelia").expect_err("a second this turn");
        assert_eq!(again.code, "expansion-limit");
        state.expanded_this_turn.clear(); // the next turn
    }
    assert_eq!(state.treasury[&Power::Russia], 70, "10 IPC each");
    let full = expand(&mut state, "Karelia").expect_err("at most its value, 3");
    assert_eq!(full.code, "expansion-limit");
    state.phase = Phase::Placement;
    state.pending = units_of(&[("FTR", 1)]).into_iter().collect();
    place_under(&mut state, "Karelia", &[("FTR", 1)]).expect("12 of 12");
}

#[test]
fn expansions_need_a_complex_of_ones_own_and_industrial_capacity() {
    let mut state = in_phase(2, Power::Russia, Phase::Purchase);
    state.treasury.insert(Power::Russia, 100);
    assert_eq!(
        expand(&mut state, "Caucasus").expect_err("no complex").code,
        "no-factory"
    );
    let classic = order(
        &mut state,
        Power::Russia,
        Order::ExpandComplex {
            territory: place_id("Karelia"),
        },
    )
    .expect_err("Cut-Throat without the option");
    assert_eq!(classic.code, "no-industrial-capacity");
}

#[test]
fn a_captured_complex_has_its_printed_value_only() {
    let (mut state, _) = germany_holds_karelia_with_infantry_to_place(4);
    let order = |state: &mut GameState, n: u32| {
        let order = Order::Place {
            territory: place_id("Karelia"),
            units: units_of(&[("INF", n)]),
        };
        order_under(tripled(), state, Power::Germany, order, &[])
    };
    assert_eq!(
        order(&mut state, 2).expect_err("6 > 3").code,
        "beyond-capacity"
    );
    order(&mut state, 1).expect("3 of 3");
}

#[test]
fn income_multiplies_original_territories_and_adds_captured_ones_at_face_value() {
    let mut state = in_phase(2, Power::Russia, Phase::Income);
    let original = state.ipc_count(rules().board, Power::Russia);
    let events =
        order_under(tripled(), &mut state, Power::Russia, Order::EndPhase, &[]).expect("income");
    assert!(events.contains(&GameEvent::IncomeCollected {
        power: Power::Russia,
        amount: 3 * original,
    }));
    let mut state = in_phase(2, Power::Germany, Phase::Income);
    let german = 3 * state.ipc_count(rules().board, Power::Germany) + 3;
    state.holder[place_id("Karelia").index()] = Some(Power::Germany);
    let events =
        order_under(tripled(), &mut state, Power::Germany, Order::EndPhase, &[]).expect("income");
    assert!(events.contains(&GameEvent::IncomeCollected {
        power: Power::Germany,
        amount: german,
    }));
}
