//! Tests of the seating search: how often table-mates and powers repeat over rounds, byes and
//! the waiting list, the same dice seating the same round, and a director's constraints.

use std::collections::{HashMap, HashSet};

use warlog_rules::board::Power;
use warlog_rules::dice::GameSeed;

use super::*;

const POWERS: [Power; 5] = [
    Power::Russia,
    Power::Germany,
    Power::UnitedKingdom,
    Power::Japan,
    Power::UnitedStates,
];

static NO_CONSTRAINTS: SeatingConstraints = SeatingConstraints {
    keep_apart: Vec::new(),
    keep_together: Vec::new(),
    fixed_tables: Vec::new(),
    reason: String::new(),
};

fn players(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("p{i:02}")).collect()
}

fn request<'a>(
    players: &'a [String],
    history: &'a [Vec<TableSeating>],
    waiting: &'a [String],
    policy: ShortTablePolicy,
) -> SeatingRequest<'a> {
    SeatingRequest {
        players,
        waiting,
        history,
        had_bye: &[],
        powers: &POWERS,
        policy,
        bye_points: 2,
        constraints: &NO_CONSTRAINTS,
    }
}

/// Seats `rounds` rounds of `n` players with the seed's dice, one version per round.
fn tournament(n: usize, rounds: u64) -> Vec<RoundSeating> {
    let seed = GameSeed::from_bytes([7; 32]);
    let entrants = players(n);
    let mut history = Vec::new();
    let mut seated = Vec::new();
    for round in 1..=rounds {
        let mut dice = seed.dice_for("t1", round);
        let seating = seat_round(
            &request(&entrants, &history, &[], ShortTablePolicy::Byes),
            &mut dice,
        )
        .expect("seats");
        history.push(seating.tables.clone());
        seated.push(seating);
    }
    seated
}

fn pair_counts(rounds: &[RoundSeating]) -> HashMap<(String, String), u32> {
    let mut pairs = HashMap::new();
    for round in rounds {
        for table in &round.tables {
            for (i, (_, a)) in table.seats.iter().enumerate() {
                for (_, b) in &table.seats[i + 1..] {
                    let key = if a < b {
                        (a.clone(), b.clone())
                    } else {
                        (b.clone(), a.clone())
                    };
                    *pairs.entry(key).or_default() += 1;
                }
            }
        }
    }
    pairs
}

#[test]
fn fifteen_players_over_three_rounds_repeat_table_mates_only_as_often_as_five_seat_tables_force() {
    let rounds = tournament(15, 3);
    assert_eq!(rounds[0].repeated_table_mates, 0);
    // Three tables of five drawn from three earlier tables of five: each new table holds two
    // pairs of old table-mates at least (2 + 2 + 1), so 6 in round 2 and 6 + 6 in round 3.
    assert_eq!(
        [
            rounds[1].least_possible_repeats,
            rounds[2].least_possible_repeats
        ],
        [6, 12]
    );
    assert_eq!(rounds[1].repeated_table_mates, 6, "{:?}", rounds[1]);
    assert_eq!(rounds[2].repeated_table_mates, 12, "{:?}", rounds[2]);
    assert!(
        pair_counts(&rounds).values().all(|&n| n <= 2),
        "no pair meets three times"
    );
    assert!(rounds[1]
        .explanation
        .iter()
        .any(|line| line.contains("fewest possible")));
}

#[test]
fn fifteen_players_play_each_power_at_most_once_in_three_rounds() {
    let rounds = tournament(15, 3);
    let mut played: HashSet<(String, Power)> = HashSet::new();
    for round in &rounds {
        assert_eq!(round.repeated_powers, 0);
        for table in &round.tables {
            let mut at_table: Vec<Power> = table.seats.iter().map(|(p, _)| *p).collect();
            at_table.sort();
            let mut all = POWERS.to_vec();
            all.sort();
            assert_eq!(at_table, all, "every power once at every table");
            for (power, who) in &table.seats {
                assert!(
                    played.insert((who.clone(), *power)),
                    "{who} plays {power:?} again"
                );
            }
        }
    }
    let everyone: HashSet<&String> = rounds
        .iter()
        .flat_map(|r| r.tables.iter().flat_map(|t| t.seats.iter().map(|(_, w)| w)))
        .collect();
    assert_eq!(everyone.len(), 15);
}

#[test]
fn twenty_five_players_meet_nobody_twice_in_three_rounds() {
    // After two rounds of tables of five the 25 players form a 5x5 grid (round 1 the rows,
    // round 2 the columns); a Latin square gives a third round with no repeats, always.
    let rounds = tournament(25, 3);
    for round in &rounds {
        assert_eq!(round.least_possible_repeats, 0);
        assert_eq!(round.repeated_table_mates, 0, "{:?}", round.explanation);
    }
    assert!(pair_counts(&rounds).values().all(|&n| n == 1));
    assert!(rounds[2]
        .explanation
        .iter()
        .any(|l| l == "no two players share a table again"));
}

#[test]
fn after_four_rounds_of_the_affine_plane_the_search_finds_a_fifth_without_repeats() {
    // Player (x, y) of the 5x5 grid; round k seats together the points of the lines of
    // slope k (k = 0..3), round "columns" aside. Lines of slope 4 are left: no repeats.
    let entrants = players(25);
    let name = |x: usize, y: usize| entrants[x * 5 + y].clone();
    let history: Vec<Vec<TableSeating>> = (0..4)
        .map(|slope| {
            (0..5)
                .map(|c| TableSeating {
                    table: c as u32 + 1,
                    seats: (0..5)
                        .map(|x| (POWERS[x], name(x, (c + slope * x) % 5)))
                        .collect(),
                })
                .collect()
        })
        .collect();
    let mut dice = GameSeed::from_bytes([5; 32]).dice_for("t", 5);
    let seating = seat_round(
        &request(&entrants, &history, &[], ShortTablePolicy::Byes),
        &mut dice,
    )
    .unwrap();
    assert_eq!(seating.repeated_table_mates, 0, "{:?}", seating.explanation);
}

#[test]
fn the_same_dice_seat_the_same_round_and_other_dice_seat_another() {
    let entrants = players(15);
    let seat = |seed: u8| {
        let mut dice = GameSeed::from_bytes([seed; 32]).dice_for("t1", 1);
        seat_round(
            &request(&entrants, &[], &[], ShortTablePolicy::Byes),
            &mut dice,
        )
        .unwrap()
    };
    assert_eq!(seat(1), seat(1));
    assert_ne!(seat(1).tables, seat(2).tables);
}

#[test]
fn sixteen_players_with_a_waiting_list_policy_promote_four_from_the_waiting_list() {
    let entrants = players(16);
    let waiting: Vec<String> = ["w1", "w2", "w3", "w4", "w5"].map(String::from).to_vec();
    let mut dice = GameSeed::from_bytes([3; 32]).dice_for("t", 1);
    let seating = seat_round(
        &request(&entrants, &[], &waiting, ShortTablePolicy::WaitingList),
        &mut dice,
    )
    .unwrap();
    assert_eq!(seating.tables.len(), 4);
    assert_eq!(seating.promoted, ["w1", "w2", "w3", "w4"]);
    assert!(seating.byes.is_empty());
    assert!(seating.explanation[0].contains("fill from the waiting list"));
    assert!(seating.explanation[0].contains("w1, w2, w3, w4"));
}

#[test]
fn sixteen_and_seventeen_players_with_a_bye_policy_rest_the_lowest_ranked() {
    for (n, byes) in [(16, vec!["p16"]), (17, vec!["p16", "p17"])] {
        let entrants = players(n);
        let waiting = vec!["w1".to_owned(); 4];
        let mut dice = GameSeed::from_bytes([3; 32]).dice_for("t", 1);
        let seating = seat_round(
            &request(&entrants, &[], &waiting, ShortTablePolicy::Byes),
            &mut dice,
        )
        .unwrap();
        assert_eq!(seating.tables.len(), 3);
        let got: Vec<&str> = seating.byes.iter().map(|b| b.player.as_str()).collect();
        assert_eq!(got, byes);
        assert!(seating.byes.iter().all(|b| b.points == 2));
        assert!(seating.promoted.is_empty());
        assert!(seating.explanation[0].contains("byes for the lowest-ranked"));
        assert!(seating
            .explanation
            .iter()
            .any(|l| l.starts_with("p16 has a bye: ranked 16")));
    }
}

#[test]
fn a_bye_goes_to_the_lowest_ranked_who_has_not_had_one() {
    let entrants = players(17);
    let had = vec!["p17".to_owned()];
    let mut dice = GameSeed::from_bytes([3; 32]).dice_for("t", 2);
    let seating = seat_round(
        &SeatingRequest {
            had_bye: &had,
            ..request(&entrants, &[], &[], ShortTablePolicy::Byes)
        },
        &mut dice,
    )
    .unwrap();
    let got: Vec<&str> = seating.byes.iter().map(|b| b.player.as_str()).collect();
    assert_eq!(got, ["p15", "p16"]);
}

#[test]
fn a_short_waiting_list_falls_back_to_byes_and_says_why() {
    let entrants = players(17);
    let waiting = vec!["w1".to_owned()];
    let mut dice = GameSeed::from_bytes([3; 32]).dice_for("t", 1);
    let seating = seat_round(
        &request(&entrants, &[], &waiting, ShortTablePolicy::WaitingList),
        &mut dice,
    )
    .unwrap();
    assert_eq!(seating.byes.len(), 2);
    assert!(seating.explanation[0].contains("holds 1 of the 3 needed"));
}

#[test]
fn fewer_players_than_a_table_cannot_be_seated() {
    let entrants = players(4);
    let mut dice = GameSeed::from_bytes([3; 32]).dice_for("t", 1);
    let err = seat_round(
        &request(&entrants, &[], &[], ShortTablePolicy::WaitingList),
        &mut dice,
    )
    .unwrap_err();
    assert!(err.0.contains("at least 5 players"), "{err}");
}

#[test]
fn uniform_choices_cover_every_value_and_reject_the_biased_tail() {
    use warlog_rules::dice::ScriptedDice;
    // 6 and 6 read as 35 in base 6; 35 >= 33 (the last multiple of 11 below 36): rolled again.
    let mut dice = ScriptedDice::new(&[6, 6, 1, 2]);
    assert_eq!(uniform_below(11, &mut dice), 1);
    let mut dice = GameSeed::from_bytes([9; 32]).dice_for("u", 1);
    let mut seen = [0u32; 7];
    for _ in 0..7_000 {
        seen[uniform_below(7, &mut dice)] += 1;
    }
    assert!(seen.iter().all(|&n| n > 800), "{seen:?}");
}

fn table_of(seating: &RoundSeating, player: &str) -> u32 {
    seating
        .tables
        .iter()
        .find(|t| t.seats.iter().any(|(_, who)| who == player))
        .map(|t| t.table)
        .expect("seated")
}

fn pair(a: &str, b: &str) -> [String; 2] {
    [a.to_owned(), b.to_owned()]
}

#[test]
fn a_directors_constraints_hold_and_the_explanation_names_their_cost() {
    // Given 15 players after a round in which p01, p02 and p03 shared table 1,
    let entrants = players(15);
    let mut dice = GameSeed::from_bytes([3; 32]).dice_for("constraints", 1);
    let first = seat_round(
        &request(&entrants, &[], &[], ShortTablePolicy::Byes),
        &mut dice,
    )
    .expect("round 1");
    let history = vec![first.tables.clone()];
    let mates: Vec<String> = first.tables[0]
        .seats
        .iter()
        .map(|(_, p)| p.clone())
        .collect();
    // when the director keeps two of them together again, keeps two others apart and fixes
    // a fifth to table 3,
    let constraints = SeatingConstraints {
        keep_apart: vec![pair("p14", "p15")],
        keep_together: vec![pair(&mates[0], &mates[1])],
        fixed_tables: vec![crate::constraints::FixedTable {
            player: "p07".to_owned(),
            table: 3,
        }],
        reason: "a household, and a player who can only play table 3's evenings".to_owned(),
    };
    let second = seat_round(
        &SeatingRequest {
            constraints: &constraints,
            ..request(&entrants, &history, &[], ShortTablePolicy::Byes)
        },
        &mut dice,
    )
    .expect("round 2");
    // then every constraint holds,
    assert_eq!(table_of(&second, &mates[0]), table_of(&second, &mates[1]));
    assert_ne!(table_of(&second, "p14"), table_of(&second, "p15"));
    assert_eq!(table_of(&second, "p07"), 3);
    // and the explanation says what they cost against the best seating without them.
    let without = second.repeats_without_constraints.expect("measured");
    assert!(
        second.repeated_table_mates >= 1,
        "the pair kept together met before"
    );
    let said = second.explanation.join(" | ");
    assert!(
        said.contains("the director's constraints (a household"),
        "{said}"
    );
    let cost = second.repeated_table_mates - without;
    assert!(
        said.contains(&format!("{cost} more repeated table-mate")) || cost == 0,
        "{said}"
    );
}

#[test]
fn constraints_that_cannot_all_hold_are_refused_naming_them() {
    let entrants = players(10);
    let mut dice = GameSeed::from_bytes([4; 32]).dice_for("constraints", 1);
    // Six players chained together cannot sit at tables of five.
    let chain: Vec<[String; 2]> = (1..=5)
        .map(|i| pair(&format!("p{i:02}"), &format!("p{:02}", i + 1)))
        .collect();
    let constraints = SeatingConstraints {
        keep_together: chain,
        reason: "a club that travels together".to_owned(),
        ..SeatingConstraints::default()
    };
    let refused = seat_round(
        &SeatingRequest {
            constraints: &constraints,
            ..request(&entrants, &[], &[], ShortTablePolicy::Byes)
        },
        &mut dice,
    )
    .expect_err("cannot hold");
    assert!(refused.0.contains("cannot all hold"), "{}", refused.0);
    assert!(
        refused.0.contains("seat p01 and p02 together"),
        "{}",
        refused.0
    );
    // A constraint naming someone not seated, or given without a reason, is refused too.
    for (constraints, says) in [
        (
            SeatingConstraints {
                keep_apart: vec![pair("p01", "zed")],
                reason: "r".to_owned(),
                ..SeatingConstraints::default()
            },
            "zed is not among the players",
        ),
        (
            SeatingConstraints {
                keep_apart: vec![pair("p01", "p02")],
                ..SeatingConstraints::default()
            },
            "give the reason",
        ),
        (
            SeatingConstraints {
                fixed_tables: vec![crate::constraints::FixedTable {
                    player: "p01".to_owned(),
                    table: 3,
                }],
                reason: "r".to_owned(),
                ..SeatingConstraints::default()
            },
            "tables 1 to 2",
        ),
    ] {
        let refused = seat_round(
            &SeatingRequest {
                constraints: &constraints,
                ..request(&entrants, &[], &[], ShortTablePolicy::Byes)
            },
            &mut dice,
        )
        .expect_err(says);
        assert!(refused.0.contains(says), "{}", refused.0);
    }
}
