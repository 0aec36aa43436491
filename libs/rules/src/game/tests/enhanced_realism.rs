//! Enhanced Realism as a game plays it: industrial capacity per unit type at each complex,
//! expansions, and scenario income (seed enhanced-realism-industrial-capacity.txt, VII).

use super::*;
use crate::document::{IncomeRule, ProductionRule};
use crate::scenario::Scenario;

/// Cut-Throat with Enhanced Realism's "All Players Tripled" scenario.
fn tripled() -> Rules<'static> {
    Rules {
        economy: Economy {
            income: IncomeRule::ScenarioMultipliers {
                scenario: Scenario::AllTripled,
                usa_phased_in: false,
            },
            production: ProductionRule::IndustrialCapacity,
            collected_at_turn_start: false,
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

// Income at the beginning of the turn (Cut-Throat revision 5): "At the beginning of a turn,
// a player multiplies his originally-owned territories currently in his possession by the
// appropriate scenario multiplier."

use crate::document::{EnhancedRealism, GameOptions};
use crate::game::moment::Now;
use crate::ruleset::Ruleset;

/// Enhanced Realism's options: a scenario, the USA phased in or not.
fn options(scenario: Scenario, usa_phased_in: bool) -> GameOptions {
    GameOptions {
        enhanced_realism: Some(EnhancedRealism {
            scenario,
            usa_phased_in,
        }),
        ..GameOptions::default()
    }
}

/// Cut-Throat, as a game created now plays it, with Enhanced Realism's options.
fn enhanced(scenario: Scenario, usa_phased_in: bool) -> &'static Ruleset {
    Ruleset::builtin_with("cutthroat", &options(scenario, usa_phased_in)).expect("offered")
}

/// The power to play ends its current phase: the events.
fn end_phase_under(ruleset: &Ruleset, state: &mut GameState) -> Vec<GameEvent> {
    let power = state.power(ruleset.rules().board);
    order_under(ruleset.rules(), state, power, Order::EndPhase, &[]).expect("ends")
}

/// What the power to play collects when it ends its current phase.
fn collected_on_ending_the_phase(ruleset: &Ruleset, state: &mut GameState) -> Option<u32> {
    let power = state.power(ruleset.rules().board);
    let events = end_phase_under(ruleset, state);
    events.iter().find_map(|e| match e {
        GameEvent::IncomeCollected { power: p, amount } if *p == power => Some(*amount),
        _ => None,
    })
}

/// The phases of the power to play, ended one by one up to (not including) `phase`,
/// with what each one's end collected.
fn end_phases_until(ruleset: &Ruleset, state: &mut GameState, phase: Phase) -> Vec<(Phase, u32)> {
    let mut collected = Vec::new();
    while state.phase != phase {
        let ending = state.phase;
        if let Some(amount) = collected_on_ending_the_phase(ruleset, state) {
            collected.push((ending, amount));
        }
    }
    collected
}

/// The hash an Enhanced Realism game ("all players tripled", no other option) recorded
/// when it was created under Cut-Throat's revision 4, before income moved to the
/// beginning of the turn.
const REVISION_FOUR_ALL_TRIPLED: &str =
    "a789b88746d106f2073e11a509e07a1dd75ef3cfaf9a6ff26098e1cda22d986d";

#[test]
fn enhanced_realism_income_is_collected_as_the_turn_begins_round_one_included() {
    // Given a game created now with "all players tripled": Russia, first to play, has the
    // setup's 24 IPC and begins its first turn.
    let ruleset = enhanced(Scenario::AllTripled, false);
    let mut state = ruleset.start();
    assert_eq!(state.treasury[&Power::Russia], 24);
    assert_eq!(state.phase, Phase::Repairs);

    // When it ends its repairs phase,
    let collected = collected_on_ending_the_phase(ruleset, &mut state);

    // then it has collected its 24 IPC of original territory tripled, before weapons
    // development and purchase: it buys with the setup's 24 and the 72.
    assert_eq!(collected, Some(72));
    assert_eq!(state.phase, Phase::WeaponsDevelopment);
    assert_eq!(state.treasury[&Power::Russia], 24 + 72);
    // And the end of its turn collects nothing more.
    assert_eq!(end_phases_until(ruleset, &mut state, Phase::Repairs), []);
    assert_eq!(state.treasury[&Power::Russia], 96);
    assert_eq!(state.power(ruleset.rules().board), Power::Germany);
}

#[test]
fn the_beginning_of_the_turn_counts_what_the_others_took_since_the_last_one() {
    // Given Russia's turn in round 2 under "all players tripled", Germany having taken
    // Karelia since Russia's last turn,
    let ruleset = enhanced(Scenario::AllTripled, false);
    let mut state = ruleset.start();
    state.round = 2;
    let karelia = ruleset.board.id("Karelia").expect("Karelia");
    let printed = ruleset.board.get(karelia).ipc;
    state.holder[karelia.index()] = Some(Power::Germany);

    // when Russia begins its turn,
    let collected = collected_on_ending_the_phase(ruleset, &mut state);

    // then Karelia is not in its count: (24 - Karelia) x 3.
    assert_eq!(collected, Some(3 * (24 - printed)));
}

#[test]
fn a_war_loan_instalment_is_paid_out_of_the_income_collected_as_the_turn_begins() {
    // Given Russia in round 3 with no money and a loan of 15 granted in round 1,
    let ruleset = enhanced(Scenario::AllTripled, false);
    let mut state = ruleset.start();
    state.round = 3;
    state.treasury.insert(Power::Russia, 0);
    state.loans.insert(
        Power::Russia,
        WarLoan {
            owed: 15,
            granted_in_round: 1,
        },
    );

    // when it ends its repairs phase,
    let events = end_phase_under(ruleset, &mut state);

    // then it collects 72 first and pays the 3 + 1 instalment out of it.
    assert_eq!(
        events[..2],
        [
            GameEvent::IncomeCollected {
                power: Power::Russia,
                amount: 72
            },
            GameEvent::WarLoanRepaid {
                power: Power::Russia,
                principal: 3,
                interest: 1
            }
        ]
    );
    assert_eq!(state.treasury[&Power::Russia], 68);
}

#[test]
fn the_turn_page_shows_the_collection_to_come_this_turn_then_the_next() {
    // Given the USA phased in under "advanced historical" (multiplier 1, 2, 3, 4 by round),
    // at the start of its turn in round 2,
    let ruleset = enhanced(Scenario::AdvancedHistorical, true);
    let mut state = ruleset.start();
    state.round = 2;
    state.turn = 4;
    let count = state.ipc_count(ruleset.rules().board, Power::UnitedStates);
    let income = |state: &GameState| {
        let now = Now::of(ruleset.rules(), state);
        assert_eq!(now.to_act, Some(Power::UnitedStates));
        now.money.expect("money").income
    };

    // the page shows what the beginning of this turn collects: the count doubled;
    assert_eq!(income(&state), 2 * count);
    assert_eq!(
        collected_on_ending_the_phase(ruleset, &mut state),
        Some(2 * count)
    );
    // once collected, what the next turn's beginning would: round 3's multiplier.
    assert_eq!(income(&state), 3 * count);
}

#[test]
fn the_collection_is_told_as_the_beginning_of_the_turn() {
    let ruleset = enhanced(Scenario::AllTripled, false);
    let mut state = ruleset.start();
    let before = state.clone();
    let events = end_phase_under(ruleset, &mut state);
    let said = crate::game::words::summary(ruleset.rules(), Some(&before), &events);
    assert_eq!(
        said,
        [
            "Russia collected 72 IPC at the beginning of its turn.",
            "Russia ended its repairs phase."
        ]
    );
}

#[test]
fn an_enhanced_realism_game_of_revision_four_collects_at_the_end_of_the_turn_as_it_did() {
    // Given the hash an Enhanced Realism game recorded under revision 4,
    let options = options(Scenario::AllTripled, false);
    let earlier = Ruleset::builtin_revision("cutthroat", &options, REVISION_FOUR_ALL_TRIPLED)
        .expect("built")
        .expect("revision 4 is kept");
    assert!(!earlier.economy.collected_at_turn_start);
    assert_ne!(earlier.hash, enhanced(Scenario::AllTripled, false).hash);

    // when Russia plays its first turn again under it,
    let mut state = earlier.start();
    let collected = end_phases_until(earlier, &mut state, Phase::Income);
    let at_the_end = collected_on_ending_the_phase(earlier, &mut state);

    // then it buys with the setup's 24 alone and collects 72 at the end, as it did.
    assert_eq!(collected, []);
    assert_eq!(at_the_end, Some(72));
    assert_eq!(state.treasury[&Power::Russia], 24 + 72);
    // Its turn is told as it was.
    let said = crate::game::words::describe(
        earlier.rules(),
        &GameEvent::IncomeCollected {
            power: Power::Russia,
            amount: 72,
        },
    );
    assert_eq!(said.as_deref(), Some("Russia collected 72 IPC."));
}
