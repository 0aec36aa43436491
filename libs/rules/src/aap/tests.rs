//! The schedule and the IPC changes turn by turn; HWV at its threshold.

use super::*;

fn units_of(power: AapPower, turn: u32) -> Vec<(&'static str, &'static str, u32)> {
    reinforcements(power, turn)
        .into_iter()
        .flat_map(|r| r.units.iter().map(move |(u, n)| (r.at, *u, *n)))
        .collect()
}

#[test]
fn play_goes_japan_ccp_kmt_uk_us() {
    assert_eq!(
        AapPower::ORDER,
        [
            AapPower::Japan,
            AapPower::Ccp,
            AapPower::Kmt,
            AapPower::UnitedKingdom,
            AapPower::UnitedStates
        ]
    );
}

#[test]
fn japan_is_reinforced_at_sea_zone_36_on_turns_1_to_3_with_yamato_then_musashi() {
    let base = [
        ("SZ 36", "trn", 1),
        ("SZ 36", "sub", 1),
        ("SZ 36", "des", 1),
        ("SZ 36", "ftr", 1),
    ];
    assert_eq!(units_of(AapPower::Japan, 1), base.to_vec());
    let mut turn2 = base.to_vec();
    turn2.push(("SZ 36", "Yamato", 1));
    assert_eq!(units_of(AapPower::Japan, 2), turn2);
    let mut turn3 = base.to_vec();
    turn3.push(("SZ 36", "Musashi", 1));
    assert_eq!(units_of(AapPower::Japan, 3), turn3);
    assert_eq!(units_of(AapPower::Japan, 4), vec![]);
    assert_eq!(SUPER_BATTLESHIP_HITS, 3);
}

#[test]
fn the_uk_is_reinforced_once_on_turn_3_at_sea_zone_51() {
    for turn in [1, 2, 4, 12] {
        assert_eq!(
            units_of(AapPower::UnitedKingdom, turn),
            vec![],
            "turn {turn}"
        );
    }
    let turn3: Vec<(&str, u32)> = units_of(AapPower::UnitedKingdom, 3)
        .into_iter()
        .map(|(at, u, n)| {
            assert_eq!(at, "SZ 51");
            (u, n)
        })
        .collect();
    assert_eq!(
        turn3,
        vec![
            ("cv", 2),
            ("bb", 5),
            ("des", 5),
            ("trn", 5),
            ("inf", 7),
            ("art", 3),
            ("ftr", 4)
        ]
    );
}

#[test]
fn the_us_is_reinforced_at_sea_zone_3_on_turns_1_to_3_through_the_panama_canal() {
    let light = vec![
        ("SZ 3", "trn", 1),
        ("SZ 3", "des", 1),
        ("SZ 3", "cv", 1),
        ("SZ 3", "ftr", 2),
    ];
    assert_eq!(units_of(AapPower::UnitedStates, 1), light);
    assert_eq!(units_of(AapPower::UnitedStates, 2), light);
    assert_eq!(
        units_of(AapPower::UnitedStates, 3),
        vec![
            ("SZ 3", "bb", 1),
            ("SZ 3", "des", 8),
            ("SZ 3", "cv", 1),
            ("SZ 3", "ftr", 2)
        ]
    );
    assert_eq!(units_of(AapPower::UnitedStates, 4), vec![]);
    // The Chinese have no fixed schedule.
    for turn in 1..=12 {
        assert!(reinforcements(AapPower::Ccp, turn).is_empty());
        assert!(reinforcements(AapPower::Kmt, turn).is_empty());
    }
}

#[test]
fn the_seed_changes_five_printed_values() {
    assert_eq!(ipc_value("Manchuria"), Some(4));
    assert_eq!(ipc_value("Shantung"), Some(6));
    assert_eq!(ipc_value("Tsinghai"), Some(1));
    assert_eq!(ipc_value("Sinkiang"), Some(1));
    assert_eq!(ipc_value("Shansi"), Some(1));
    assert_eq!(ipc_value("India"), None);
}

#[test]
fn the_us_has_30_at_the_start_40_after_turn_1_and_10_more_each_turn() {
    let other_us_holdings = 30 - us_mainland_value(0);
    let income = |turn| other_us_holdings + us_mainland_value(turn);
    assert_eq!(income(0), 30);
    assert_eq!(
        STARTING_IPC
            .iter()
            .find(|(who, _)| *who == "USA")
            .map(|(_, v)| *v),
        Some(income(0))
    );
    for turn in 1..=12 {
        assert_eq!(income(turn), 30 + 10 * turn, "turn {turn}");
    }
    assert_eq!(income(1), 40);
}

#[test]
fn chinese_recruits_follow_their_formulas() {
    // The CCP: 2 while it has units, plus 1 per area it alone holds.
    assert_eq!(chinese_recruits(AapPower::Ccp, 0, true, false), 2);
    assert_eq!(chinese_recruits(AapPower::Ccp, 3, true, false), 5);
    assert_eq!(chinese_recruits(AapPower::Ccp, 0, false, false), 0);
    // The KMT: 1 per area it alone holds, plus 1 for the Burma Road.
    assert_eq!(chinese_recruits(AapPower::Kmt, 4, true, false), 4);
    assert_eq!(chinese_recruits(AapPower::Kmt, 4, true, true), 5);
    assert_eq!(chinese_recruits(AapPower::Japan, 9, true, true), 0);
    assert_eq!(KMT_CAPITAL, "Szechwan");
}

#[test]
fn hwv_doubles_heavy_weapons_hits_on_a_group_above_20_counted_units() {
    use hwv::*;
    // Each nation's group by the seed's counting; the CCP's never counts.
    let side = |groups: &[(AapPower, &[(&str, u32)])]| {
        vulnerable(groups.iter().map(|(owner, units)| {
            let size = units
                .iter()
                .filter(|(u, _)| counts(u))
                .map(|(_, n)| n)
                .sum();
            (*owner != AapPower::Ccp, size)
        }))
    };
    let inf = |n| ("inf", n);
    assert!(!side(&[(AapPower::Japan, &[inf(20)])]));
    assert!(side(&[(AapPower::Japan, &[inf(21)])]));
    // Subs, fighters, bombers and AA guns do not count.
    assert!(!side(&[(
        AapPower::Japan,
        &[
            inf(17),
            ("sub", 4),
            ("ftr", 6),
            ("bmr", 2),
            ("aa", 1),
            ("art", 3)
        ]
    )]));
    // Allies are not added together, but one group over the line exposes the stack.
    assert!(!side(&[
        (AapPower::UnitedKingdom, &[inf(15)]),
        (AapPower::UnitedStates, &[inf(15)]),
    ]));
    assert!(side(&[
        (AapPower::UnitedKingdom, &[inf(21)]),
        (AapPower::UnitedStates, &[inf(3)]),
    ]));
    // CCP forces never count.
    assert!(!side(&[(AapPower::Ccp, &[inf(30)])]));

    // Artillery, fighters, bombers, destroyers and battleships hit twice; others once.
    let hits = [
        ("art", 2),
        ("inf", 1),
        ("arm", 1),
        ("ftr", 1),
        ("des", 1),
        ("bb", 1),
        ("bmr", 1),
    ];
    assert_eq!(casualties(&hits, true), 2 * 2 + 1 + 1 + 2 + 2 + 2 + 2);
    assert_eq!(casualties(&hits, false), 8);
}

#[test]
fn the_catalogue_counts_and_doubles_the_units_the_seed_names_for_hwv() {
    // 4.1: "Units that don't count towards HWV include: Subs, FTRs, BMRs, AA"; 4.3: "only
    // Artillery, Fighters, Bombers, Destroyers, and Battleships inflict double".
    use crate::units::{Ability, Catalogue};
    let catalogue = Catalogue::builtin("aap-historical").expect("aap");
    for unit in [
        "inf", "art", "arm", "mar", "ftr", "bmr", "trn", "sub", "des", "cv", "bb",
    ] {
        let profile = catalogue.get(catalogue.id(unit_code(unit)).expect(unit));
        assert_eq!(
            !profile.has(Ability::HwvExempt),
            hwv::counts(unit),
            "{unit} counts"
        );
        assert_eq!(
            profile.has(Ability::HwvInflicts),
            hwv::heavy(unit),
            "{unit} doubles"
        );
    }
}
