//! The seed's own examples, and its limits.

use super::*;
use crate::board::Power;
use crate::scenario::{income, Scenario};

// Classic costs, and the seed's "guns" (artillery) priced with tanks.
const INF: u32 = 3;
const TANK: u32 = 5;
const FIGHTER: u32 = 12;
const BOMBER: u32 = 15;
const TRANSPORT: u32 = 8;
const SUB: u32 = 8;
const CARRIER: u32 = 18;
const BATTLESHIP: u32 = 24;

fn complex(territory: &str, value: u32) -> Complex {
    Complex {
        territory: territory.to_owned(),
        value,
        captured: false,
        expansions: 0,
        capital: false,
        australia: false,
    }
}

fn capital(territory: &str, value: u32) -> Complex {
    Complex {
        capital: true,
        ..complex(territory, value)
    }
}

fn refused(result: Result<(), RuleViolation>) -> RuleViolation {
    let violation = result.expect_err("beyond capacity");
    assert_eq!(violation.code, "beyond-capacity");
    assert_eq!(violation.rule, CAPACITY_RULE);
    violation
}

#[test]
fn the_scenarios_give_the_seeds_multipliers_with_the_usa_corrected_to_3_in_intermediate() {
    use Power::*;
    let order = [Russia, Germany, UnitedKingdom, Japan, UnitedStates];
    let table = |s: Scenario| order.map(|p| s.multiplier(p));
    assert_eq!(table(Scenario::IntroductoryHistorical), [2, 2, 1, 1, 2]);
    assert_eq!(table(Scenario::AllDoubled), [2, 2, 2, 2, 2]);
    assert_eq!(table(Scenario::IntermediateHistorical), [3, 3, 2, 2, 3]);
    assert_eq!(table(Scenario::AllTripled), [3, 3, 3, 3, 3]);
    assert_eq!(table(Scenario::AdvancedHistorical), [4, 3, 2, 2, 4]);
    assert_eq!(table(Scenario::StrongRussian), [5, 3, 2, 2, 4]);
}

#[test]
fn a_phased_in_usa_starts_at_1_and_grows_a_turn_at_a_time_to_the_scenarios_multiplier() {
    let usa = |turn| Scenario::StrongRussian.multiplier_on_turn(Power::UnitedStates, turn, true);
    assert_eq!(
        [usa(1), usa(2), usa(3), usa(4), usa(5), usa(9)],
        [1, 2, 3, 4, 4, 4]
    );
    // Nobody else is phased in, and without the option neither is the USA.
    assert_eq!(
        Scenario::StrongRussian.multiplier_on_turn(Power::Russia, 1, true),
        5
    );
    assert_eq!(
        Scenario::StrongRussian.multiplier_on_turn(Power::UnitedStates, 1, false),
        4
    );
}

#[test]
fn income_multiplies_original_territories_adds_captured_ones_at_face_value_less_bombing() {
    // Germany, tripled: 30 of its own, 8 captured, 6 lost to bombing.
    assert_eq!(income(30, 8, 3, 6), 30 * 3 + 8 - 6);
    assert_eq!(income(2, 0, 1, 9), 0, "losses never make income negative");
}

#[test]
fn moscow_england_and_japan_tripled_have_24_of_each_type() {
    for territory in ["Russia", "United Kingdom", "Japan"] {
        let ic = capital(territory, 8);
        assert_eq!(ic.capacity(3), 24);
        // 8 infantry, 4 tanks or guns and 2 fighters, all in one turn.
        ic.check(
            3,
            &[
                (UnitClass::Infantry, INF, 8),
                (UnitClass::ArtilleryAndArmour, TANK, 4),
                (UnitClass::Aircraft, FIGHTER, 2),
            ],
        )
        .expect("within capacity");
        // A bomber leaves no room for other aircraft.
        ic.check(3, &[(UnitClass::Aircraft, BOMBER, 1)])
            .expect("one bomber");
        let violation = refused(ic.check(
            3,
            &[
                (UnitClass::Aircraft, BOMBER, 1),
                (UnitClass::Aircraft, FIGHTER, 1),
            ],
        ));
        assert!(
            violation.message.contains("24 IPC of aircraft"),
            "{violation:?}"
        );
        refused(ic.check(3, &[(UnitClass::Infantry, INF, 9)]));
    }
}

#[test]
fn three_ipc_complexes_tripled_build_no_aircraft_carriers_or_battleships() {
    for territory in [
        "Caucasus",
        "Karelia",
        "East Europe",
        "Eastern Canada",
        "India",
        "Manchuria",
    ] {
        let ic = complex(territory, 3);
        assert_eq!(ic.capacity(3), 9);
        ic.check(
            3,
            &[
                (UnitClass::Infantry, INF, 3),
                (UnitClass::ArtilleryAndArmour, TANK, 1),
                (UnitClass::Naval, SUB, 1),
            ],
        )
        .expect("within capacity");
        ic.check(3, &[(UnitClass::Naval, TRANSPORT, 1)])
            .expect("a transport");
        for (class, cost) in [
            (UnitClass::Aircraft, FIGHTER),
            (UnitClass::Aircraft, BOMBER),
            (UnitClass::Naval, CARRIER),
            (UnitClass::Naval, BATTLESHIP),
        ] {
            refused(ic.check(3, &[(class, cost, 1)]));
        }
    }
}

#[test]
fn germany_tripled_builds_at_most_10_infantry_6_tanks_2_aircraft_and_3_to_1_ships() {
    let germany = capital("Germany", 10);
    assert_eq!(germany.capacity(3), 30);
    let most = |class, cost| {
        (0..=20)
            .take_while(|n| germany.check(3, &[(class, cost, *n)]).is_ok())
            .last()
            .unwrap_or(0)
    };
    assert_eq!(most(UnitClass::Infantry, INF), 10);
    assert_eq!(most(UnitClass::ArtilleryAndArmour, TANK), 6);
    assert_eq!(most(UnitClass::Aircraft, FIGHTER), 2);
    assert_eq!(most(UnitClass::Naval, TRANSPORT), 3);
    assert_eq!(most(UnitClass::Naval, BATTLESHIP), 1);
}

#[test]
fn expansions_add_one_each_up_to_the_territorys_value_one_per_turn() {
    // Germany (x3): 30, then 31; at most 10 expansions, 40.
    let mut germany = capital("Germany", 10);
    germany = germany.expand(false).expect("first");
    assert_eq!(germany.capacity(3), 31);
    assert_eq!(germany.expand(true).unwrap_err().code, "expansion-limit");
    for _ in 1..10 {
        germany = germany.expand(false).expect("one a turn");
    }
    assert_eq!(germany.capacity(3), 40);
    let full = germany.expand(false).unwrap_err();
    assert_eq!(
        (full.code.as_str(), full.rule),
        ("expansion-limit", EXPANSION_RULE)
    );

    // Karelia (x3): 9, 10, ... 12.
    let mut karelia = complex("Karelia", 3);
    for want in [10, 11, 12] {
        karelia = karelia.expand(false).expect("room");
        assert_eq!(karelia.capacity(3), want);
    }
    assert!(karelia.expand(false).is_err());

    // India (x2): 6, 7, ... 9.
    let mut india = complex("India", 3);
    assert_eq!(india.capacity(2), 6);
    for _ in 0..3 {
        india = india.expand(false).expect("room");
    }
    assert_eq!(india.capacity(2), 9);
}

#[test]
fn japan_doubled_expanded_eight_times_builds_two_fighters_and_three_eight_ipc_ships() {
    let mut japan = capital("Japan", 8);
    assert_eq!(japan.capacity(2), 16);
    // At 16: one fighter, not two; two 8-IPC ships, not three.
    japan
        .check(2, &[(UnitClass::Aircraft, FIGHTER, 1)])
        .expect("one fighter");
    refused(japan.check(2, &[(UnitClass::Aircraft, FIGHTER, 2)]));
    refused(japan.check(2, &[(UnitClass::Naval, TRANSPORT, 3)]));
    japan = japan.expand(false).expect("one");
    assert_eq!(japan.capacity(2), 17);
    for _ in 1..8 {
        japan = japan.expand(false).expect("one a turn");
    }
    assert_eq!(japan.capacity(2), 24);
    japan
        .check(2, &[(UnitClass::Aircraft, FIGHTER, 2)])
        .expect("two fighters");
    japan
        .check(2, &[(UnitClass::Naval, TRANSPORT, 3)])
        .expect("three 8-IPC ships");
    // Or Manchuria with two chips: 3 x 2 + 2 = 8, one more 8-IPC ship.
    let manchuria = complex("Manchuria", 3)
        .expand(false)
        .and_then(|m| m.expand(false))
        .expect("two chips");
    assert_eq!(manchuria.capacity(2), 8);
    manchuria
        .check(2, &[(UnitClass::Naval, SUB, 1)])
        .expect("one 8-IPC ship");
}

#[test]
fn a_captured_complex_has_its_printed_value_whatever_the_multiplier() {
    let taken = Complex {
        captured: true,
        ..complex("Karelia", 3)
    };
    assert_eq!(taken.capacity(3), 3);
    assert_eq!(taken.expand(false).expect("room").capacity(3), 4);
    refused(taken.check(3, &[(UnitClass::Infantry, INF, 2)]));
}

#[test]
fn a_capital_builds_one_air_and_one_naval_unit_beyond_its_capacity_and_no_more() {
    // The United Kingdom in the Introductory scenario: 8 x 1.
    let england = capital("United Kingdom", 8);
    assert_eq!(england.capacity(1), 8);
    england
        .check(
            1,
            &[
                (UnitClass::Aircraft, FIGHTER, 1),
                (UnitClass::Naval, BATTLESHIP, 1),
            ],
        )
        .expect("one of each beyond capacity");
    refused(england.check(1, &[(UnitClass::Aircraft, FIGHTER, 2)]));
    refused(england.check(1, &[(UnitClass::Infantry, INF, 3)]));
    // Not a capital: no exception.
    refused(complex("India", 3).check(1, &[(UnitClass::Aircraft, FIGHTER, 1)]));
}

#[test]
fn australia_always_builds_one_infantry() {
    let australia = Complex {
        australia: true,
        ..complex("Australia", 2)
    };
    assert_eq!(australia.capacity(1), 2);
    australia
        .check(1, &[(UnitClass::Infantry, INF, 1)])
        .expect("one infantry");
    refused(australia.check(1, &[(UnitClass::Infantry, INF, 2)]));
}
