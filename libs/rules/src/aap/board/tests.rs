//! Tests that AAP Historical's board and setup are the Pacific map's, with the changes the
//! seed makes.

use std::collections::BTreeSet;

use super::*;
use crate::ruleset::Ruleset;

fn pacific_ruleset() -> &'static Ruleset {
    Ruleset::builtin("aap-historical").expect("playable out of the box")
}

/// The units of `power` the built-in setup puts in `place`, as `(code, count)`.
fn units_of(power: Power, place: &str) -> Vec<(String, u32)> {
    let ruleset = pacific_ruleset();
    let state = ruleset.start();
    let id = ruleset.board.id(place).expect(place);
    state.forces[id.index()]
        .iter()
        .filter(|((owner, _, _), n)| *owner == power && **n > 0)
        .map(|((_, unit, _), n)| (ruleset.catalogue.get(*unit).code.clone(), *n))
        .collect()
}

fn pairs(list: &[(&str, u32)]) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = list.iter().map(|(c, n)| ((*c).to_owned(), *n)).collect();
    out.sort();
    out
}

#[test]
fn the_board_is_the_pacific_maps_with_sinkiang_split_from_tsinghai() {
    let map: Map =
        serde_json::from_str(include_str!("../../../data/pacific-map.json")).expect("map");
    let (board, _) = pacific().expect("board");
    assert_eq!(board.territories.len(), map.territories.len() + 1);
    let connections: BTreeSet<[String; 2]> = board.connections.iter().cloned().collect();
    assert!(map.connections.iter().all(|c| connections.contains(c)));
    let ruleset = pacific_ruleset();
    let sinkiang = ruleset.board.id(SINKIANG).expect("Sinkiang");
    let borders: BTreeSet<&str> = ruleset
        .board
        .neighbours(sinkiang)
        .iter()
        .map(|n| ruleset.board.get(*n).name.as_str())
        .collect();
    // 1j: "connected to Tsinghai and Suiyuan".
    assert_eq!(borders, BTreeSet::from(["Suiyuan", "Tsinghai"]));
    // Every name the seed's Land Spaces list uses is on the board.
    for name in [
        "Szchewan",
        "Suiyan",
        "Hongkong",
        "Marsal Isl",
        "New Britian",
        "Sinkian",
        "US",
    ] {
        ruleset.board.id(name).expect(name);
    }
}

#[test]
fn the_capitals_are_the_seeds_five_players() {
    let ruleset = pacific_ruleset();
    for (power, capital) in [
        (Power::Japan, "Japan"),
        (Power::UnitedKingdom, "India"),
        (Power::UnitedStates, "United States"),
        (Power::Kmt, "Szechwan"),
        // 3.2: "CCP (and KMT) must try to keep at least 1 infantry in Shansi at all times".
        (Power::Ccp, "Shansi"),
    ] {
        let id = ruleset.board.capital(power).expect("a capital");
        assert_eq!(ruleset.board.get(id).name, capital, "{power}");
    }
}

#[test]
fn the_setup_is_the_standard_one_with_the_seeds_changes() {
    // 1b: "SZ 36: +3 trn, +2 sub, +2 des, +5 bb, +2 cv, +4 ftr" on 3 TRN, 1 SUB, 1 DD, 1 BB.
    assert_eq!(
        units_of(Power::Japan, "SZ 36"),
        pairs(&[
            ("TRN", 6),
            ("SUB", 3),
            ("DES", 3),
            ("BB", 6),
            ("AC", 2),
            ("FTR", 4)
        ])
    );
    // 1g: "SZ 26: -1 bb".
    assert!(!units_of(Power::Japan, "SZ 26")
        .iter()
        .any(|(c, _)| c == "BB"));
    // 1h (US): "SZ 11: -1 cv, -1 des, -2 ftr (no units here)".
    assert!(units_of(Power::UnitedStates, "SZ 11").is_empty());
    // UK b: "Hong Kong: -1 inf".
    assert_eq!(
        units_of(Power::UnitedKingdom, "Hong Kong"),
        pairs(&[("INF", 1)])
    );
    // Chinese b: "Sikang (KMT): 1 inf (total)".
    assert_eq!(units_of(Power::Kmt, "Sikang"), pairs(&[("INF", 1)]));
    // k, l: Shansi, +2 KMT "alongside" +4 CCP; m: Suiyuan, 2 CCP beside "the 2 original
    // KMT"; n: Kweichow, 1 CCP beside "the 1 new KMT".
    for (place, kmt, ccp) in [("Shansi", 2, 4), ("Suiyuan", 2, 2), ("Kweichow", 1, 1)] {
        assert_eq!(
            units_of(Power::Kmt, place),
            pairs(&[("INF", kmt)]),
            "{place}"
        );
        assert_eq!(
            units_of(Power::Ccp, place),
            pairs(&[("INF", ccp)]),
            "{place}"
        );
    }
    // US a: "USA: +4 inf, +1 mar, +1 art, +6 ftr, +2 bmr".
    assert_eq!(
        units_of(Power::UnitedStates, "United States"),
        pairs(&[
            ("INF", 6),
            ("MAR", 2),
            ("ART", 2),
            ("FTR", 8),
            ("BMB", 3),
            ("AA", 1),
            ("IC", 1)
        ])
    );
    // Two American infantry start on the British (Australian) Line Islands.
    assert_eq!(units_of(Power::UnitedStates, "Line"), pairs(&[("INF", 2)]));
    let ruleset = pacific_ruleset();
    let line = ruleset.board.id("Line").expect("Line");
    assert_eq!(
        ruleset.start().holder[line.index()],
        Some(Power::UnitedKingdom)
    );
}

#[test]
fn every_unit_of_the_standard_setup_is_placed_but_the_bases() {
    // The map's per-power totals, TripleA's Australians and British as the UK, the
    // Chinese as the KMT, without air and naval bases, plus the seed's changes.
    let map: Map =
        serde_json::from_str(include_str!("../../../data/pacific-map.json")).expect("map");
    let mut expected: BTreeMap<(Power, String), i64> = BTreeMap::new();
    for (owner, places) in &map.setup {
        for (place, units) in places {
            let Some(power) = seed_power(owner, place).expect("owner") else {
                continue;
            };
            for (code, n) in units {
                if let Some(code) = unit_code(code) {
                    *expected.entry((power, code.to_owned())).or_default() += i64::from(*n);
                }
            }
        }
    }
    for (changes, sign) in [(&ADDED[..], 1), (&REMOVED[..], -1)] {
        for (power, _, units) in changes {
            for (code, n) in parts(units).expect("units") {
                *expected.entry((*power, code.to_owned())).or_default() += sign * i64::from(n);
            }
        }
    }
    expected.retain(|_, n| *n != 0);
    let ruleset = pacific_ruleset();
    let mut placed: BTreeMap<(Power, String), i64> = BTreeMap::new();
    for forces in &ruleset.start().forces {
        for ((power, unit, _), n) in forces {
            *placed
                .entry((*power, ruleset.catalogue.get(*unit).code.clone()))
                .or_default() += i64::from(*n);
        }
    }
    assert_eq!(placed, expected);
    assert_eq!(expected[&(Power::Japan, "INF".to_owned())], 41 + 3 + 8 + 8);
}
