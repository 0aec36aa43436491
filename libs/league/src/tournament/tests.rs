//! Tests of the tournament aggregate, given its events and a command, then what it decides:
//! entries, rounds, standings and their tiebreaks, substitutes and swaps.

use warlog_events::sender::Sender;
use warlog_rules::dice::GameSeed;
use warlog_rules::scoring::{Fraction, Title};

use super::*;
use crate::standings::{ResultRow, StandingRow};

const POWERS: [Power; 5] = Power::CLASSIC;

pub(super) fn created(capacity: Option<u32>, policy: ShortTablePolicy) -> TournamentCreated {
    TournamentCreated {
        tournament_id: "t1".into(),
        name: "Autumn Open".into(),
        ruleset: "cutthroat".into(),
        rounds: 2,
        deadlines: vec![
            Moment::from_unix_seconds(100),
            Moment::from_unix_seconds(200),
        ],
        table_size: 5,
        points_per_place: vec![5, 3, 2, -1, -2],
        tiebreakers: Tiebreaker::DEFAULT.to_vec(),
        short_tables: policy,
        bye_points: 1,
        capacity,
        late_entries_until_round: 2,
        seed_commitment: "00".repeat(32),
        tie_break_drawn_at_finish: false,
        director: "dora".into(),
        at: Moment::from_unix_seconds(1),
    }
}

/// Runs `command` on the tournament with fresh dice and no results.
fn when(
    tournament: &Tournament,
    command: TournamentCommand,
    results: &[GameResult],
) -> Result<Vec<TournamentEvent>, TournamentViolation> {
    let seed = GameSeed::from_bytes([1; 32]);
    let mut dice = seed.dice_for("t1", tournament.version + 1);
    let mut next = 0;
    let mut new_game_id = || {
        next += 1;
        format!("g{}-{next}", tournament.next_round())
    };
    tournament
        .decide(
            &command,
            &mut Context {
                sender: &director(),
                at: Moment::from_unix_seconds(50),
                dice: &mut dice,
                results,
                powers: &POWERS,
                new_game_id: &mut new_game_id,
            },
        )
        .map(|decided| decided.events)
}

/// The tournament's director, as the record names them.
pub(super) fn director() -> Sender {
    Sender {
        role: warlog_events::sender::Role::Director,
        name: "dora".into(),
    }
}

fn given(tournament: &mut Tournament, events: Vec<TournamentEvent>) {
    for event in &events {
        tournament.apply(event);
    }
}

/// Decides `command` and applies its events.
fn act(tournament: &mut Tournament, command: TournamentCommand, results: &[GameResult]) {
    let events = when(tournament, command, results).expect("accepted");
    given(tournament, events);
}

pub(super) fn with_entrants(n: usize, policy: ShortTablePolicy) -> Tournament {
    let mut t = Tournament::new(created(None, policy));
    for i in 1..=n {
        let events = when(
            &t,
            TournamentCommand::Enter {
                player: format!("p{i:02}"),
            },
            &[],
        );
        given(&mut t, events.unwrap());
    }
    t
}

/// Every seated game ended with its seats in power order placed 1st to 5th.
pub(super) fn results_in_seat_order(t: &Tournament, gains: &[i64; 5]) -> Vec<GameResult> {
    t.rounds
        .iter()
        .flat_map(|r| {
            r.games.iter().map(move |g| {
                let table = &r.seating.tables[g.table as usize - 1];
                GameResult {
                    game_id: g.game_id.clone(),
                    ended: true,
                    begun: true,
                    not_rated: None,
                    rows: table
                        .seats
                        .iter()
                        .enumerate()
                        .map(|(i, (power, player))| ResultRow {
                            player: player.clone(),
                            power: *power,
                            place: i + 1,
                            tied_with: 1,
                            percent_gain: Fraction::new(gains[i], 100).unwrap(),
                        })
                        .collect(),
                }
            })
        })
        .collect()
}

#[test]
fn entries_beyond_capacity_go_to_the_waiting_list() {
    let mut t = Tournament::new(created(Some(2), ShortTablePolicy::WaitingList));
    for player in ["ann", "bob", "cat"] {
        let events = when(
            &t,
            TournamentCommand::Enter {
                player: player.into(),
            },
            &[],
        )
        .unwrap();
        given(&mut t, events);
    }
    assert_eq!(t.playing(), ["ann", "bob"]);
    assert_eq!(t.waiting, ["cat"]);
    let again = when(
        &t,
        TournamentCommand::Enter {
            player: "cat".into(),
        },
        &[],
    );
    assert_eq!(again.unwrap_err().code, RefusalCode::AlreadyEntered);
}

#[test]
fn a_round_is_seated_into_tables_that_each_get_a_game() {
    let t = with_entrants(10, ShortTablePolicy::Byes);
    let events = when(&t, TournamentCommand::seat_round(), &[]).unwrap();
    let TournamentEvent::RoundSeated(seated) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(seated.round, 1);
    assert_eq!(seated.seating.tables.len(), 2);
    assert_eq!(seated.games.len(), 2);
    assert_eq!(seated.games[0].game_id, "g1-1");
    assert_eq!(seated.draw.len(), 10);
    assert_eq!(seated.dice_version, t.version + 1);
}

#[test]
fn the_next_round_waits_until_every_game_of_this_one_has_ended() {
    let mut t = with_entrants(10, ShortTablePolicy::Byes);
    act(&mut t, TournamentCommand::seat_round(), &[]);
    let refused = when(&t, TournamentCommand::seat_round(), &[]).unwrap_err();
    assert_eq!(refused.code, RefusalCode::GamesRunning);
    assert!(refused.message.contains("g1-1"), "{refused}");
    let results = results_in_seat_order(&t, &[50, 20, 0, -10, -40]);
    assert!(when(&t, TournamentCommand::seat_round(), &results).is_ok());
}

#[test]
fn late_entries_close_after_the_round_the_director_set() {
    let mut t = with_entrants(10, ShortTablePolicy::Byes);
    act(&mut t, TournamentCommand::seat_round(), &[]);
    // late_entries_until_round is 2: round 2 is not yet seated, so a late entry plays.
    act(
        &mut t,
        TournamentCommand::Enter {
            player: "late".into(),
        },
        &[],
    );
    assert!(t.playing().contains(&"late".to_owned()));
    let results = results_in_seat_order(&t, &[50, 20, 0, -10, -40]);
    act(&mut t, TournamentCommand::seat_round(), &results);
    let events = when(
        &t,
        TournamentCommand::Enter {
            player: "later".into(),
        },
        &[],
    )
    .unwrap();
    assert!(matches!(
        events[0],
        TournamentEvent::PlayerWaitlisted { .. }
    ));
}

#[test]
fn standings_add_the_tournaments_points_per_place_and_a_bye() {
    let mut t = with_entrants(11, ShortTablePolicy::Byes);
    act(&mut t, TournamentCommand::seat_round(), &[]);
    let seated = &t.rounds[0];
    assert_eq!(seated.seating.byes.len(), 1);
    let bye = seated.seating.byes[0].player.clone();
    let results = results_in_seat_order(&t, &[50, 20, 0, -10, -40]);
    let rows = standings(&t, &results);
    assert_eq!(rows.len(), 11);
    let row = |p: &str| rows.iter().find(|r| r.player == p).unwrap().clone();
    assert_eq!(row(&bye).points, Fraction::whole(1));
    assert_eq!(row(&bye).byes, 1);
    let first_of_table_1 = &seated.seating.tables[0].seats[0].1;
    assert_eq!(row(first_of_table_1).points, Fraction::whole(5));
    assert_eq!(row(first_of_table_1).title, Title::SergeantOfRebelForces);
    // The two winners tie on points and on gain; best result ties; head-to-head is 0-0
    // (they never met); the draw decides.
    let top: Vec<&StandingRow> = rows.iter().take(2).collect();
    assert!(top.iter().all(|r| r.points == Fraction::whole(5)));
    assert_eq!(top[1].decided_by, Some(Tiebreaker::Draw));
    let ranks: Vec<usize> = rows.iter().map(|r| r.rank).collect();
    assert_eq!(ranks, (1..=11).collect::<Vec<_>>());
}

#[test]
fn shared_places_split_their_points_and_a_full_tie_falls_to_the_draw() {
    let mut t = with_entrants(5, ShortTablePolicy::Byes);
    act(&mut t, TournamentCommand::seat_round(), &[]);
    let seats = t.rounds[0].seating.tables[0].seats.clone();
    let game = t.rounds[0].games[0].game_id.clone();
    let row = |i: usize, place: usize, tied: usize, gain: i64| ResultRow {
        player: seats[i].1.clone(),
        power: seats[i].0,
        place,
        tied_with: tied,
        percent_gain: Fraction::new(gain, 100).unwrap(),
    };
    // Seats 1 and 2 share 1st (4 points each); seats 3 and 4 share 3rd (1/2 each).
    let results = vec![GameResult {
        game_id: game,
        ended: true,
        begun: true,
        not_rated: None,
        rows: vec![
            row(0, 1, 2, 30),
            row(1, 1, 2, 30),
            row(2, 3, 2, -10),
            row(3, 3, 2, -10),
            row(4, 5, 1, -50),
        ],
    }];
    let rows = standings(&t, &results);
    assert_eq!(rows[0].points, Fraction::whole(4));
    assert_eq!(rows[2].points, Fraction::new(1, 2).unwrap());
    assert_eq!(rows[1].decided_by, Some(Tiebreaker::Draw), "all else equal");
    assert_eq!(rows[2].decided_by, Some(Tiebreaker::TotalPoints));
    assert_eq!(rows[4].points, Fraction::whole(-2));
}

#[test]
fn a_substitute_comes_from_the_waiting_list_and_the_replaced_player_leaves() {
    let mut t = with_entrants(5, ShortTablePolicy::Byes);
    given(
        &mut t,
        vec![TournamentEvent::PlayerWaitlisted {
            player: "sub".into(),
            at: Moment::from_unix_seconds(3),
        }],
    );
    act(&mut t, TournamentCommand::seat_round(), &[]);
    let game_id = t.rounds[0].games[0].game_id.clone();
    let (power, replaced) = t.rounds[0].seating.tables[0].seats[0].clone();
    let refused = when(
        &t,
        TournamentCommand::Substitute {
            game_id: game_id.clone(),
            power,
            replaced: replaced.clone(),
            substitute: Some("stranger".into()),
        },
        &[],
    )
    .unwrap_err();
    assert_eq!(refused.code, RefusalCode::NotWaiting);
    let (other_power, _) = t.rounds[0].seating.tables[0].seats[1].clone();
    let wrong_seat = when(
        &t,
        TournamentCommand::Substitute {
            game_id: game_id.clone(),
            power: other_power,
            replaced: replaced.clone(),
            substitute: None,
        },
        &[],
    )
    .unwrap_err();
    assert_eq!(wrong_seat.code, RefusalCode::NotSeated);
    let events = when(
        &t,
        TournamentCommand::Substitute {
            game_id,
            power,
            replaced: replaced.clone(),
            substitute: None,
        },
        &[],
    )
    .unwrap();
    given(&mut t, events);
    assert!(t.waiting.is_empty());
    assert!(t.playing().contains(&"sub".to_owned()));
    assert!(!t.playing().contains(&replaced));
    assert_eq!(
        t.substitutions().next().expect("a substitution").substitute,
        "sub"
    );
}

#[test]
fn tournament_events_are_stored_under_their_names_and_read_back() {
    let event = TournamentEvent::PlayerEntered {
        player: "ann".into(),
        at: Moment::from_unix_seconds(9),
    };
    let (event_type, version, payload) = event.encode().unwrap();
    assert_eq!(event_type.as_str(), "PlayerEntered");
    assert_eq!(
        TournamentEvent::decode(event_type.as_str(), version, &payload).unwrap(),
        event
    );
    assert!(TournamentEvent::decode("PlayerEntered", 2, &payload).is_err());
}

#[test]
fn a_finished_tournament_takes_no_more_commands() {
    let mut t = with_entrants(5, ShortTablePolicy::Byes);
    let finish = |seed: [u8; 32]| TournamentCommand::Finish {
        seed: GameSeed::from_bytes(seed),
    };
    assert_eq!(
        when(&t, finish([1; 32]), &[]).unwrap_err().code,
        RefusalCode::SeedMismatch
    );
    t.created.seed_commitment = hex_of(&GameSeed::from_bytes([1; 32]).commitment());
    assert_eq!(
        when(&t, finish([1; 32]), &[]).unwrap_err().code,
        RefusalCode::RoundsLeft
    );
    given(
        &mut t,
        vec![TournamentEvent::TournamentFinished {
            at: Moment::from_unix_seconds(9),
            seed: Some("01".repeat(32)),
            draw: Vec::new(),
        }],
    );
    assert_eq!(t.revealed_seed, Some("01".repeat(32)));
    let refused = when(&t, TournamentCommand::Enter { player: "x".into() }, &[]).unwrap_err();
    assert_eq!(refused.code, RefusalCode::TournamentFinished);
}

/// One ended game per table of `round`, each player placed as `places` says
/// (player, place, percent gain), ties where places repeat.
fn results_by_player(
    t: &Tournament,
    round: usize,
    places: &[(&str, usize, i64)],
) -> Vec<GameResult> {
    let seated = &t.rounds[round - 1];
    seated
        .games
        .iter()
        .map(|g| {
            let table = &seated.seating.tables[g.table as usize - 1];
            GameResult {
                game_id: g.game_id.clone(),
                ended: true,
                begun: true,
                not_rated: None,
                rows: table
                    .seats
                    .iter()
                    .map(|(power, player)| {
                        let (_, place, gain) = places
                            .iter()
                            .find(|(p, _, _)| p == player)
                            .copied()
                            .unwrap();
                        let tied = places.iter().filter(|(_, q, _)| *q == place).count();
                        ResultRow {
                            player: player.clone(),
                            power: *power,
                            place,
                            tied_with: tied,
                            percent_gain: Fraction::new(gain, 100).unwrap(),
                        }
                    })
                    .collect(),
            }
        })
        .collect()
}

/// Five players, two rounds: round 1 places them p01 to p05 (gains 40, 20, 0, -10, -50),
/// round 2 as `second` says.
fn two_rounds(second: &[(&str, usize, i64)]) -> (Tournament, Vec<GameResult>) {
    let mut t = with_entrants(5, ShortTablePolicy::Byes);
    act(&mut t, TournamentCommand::seat_round(), &[]);
    let first = [
        ("p01", 1, 40),
        ("p02", 2, 20),
        ("p03", 3, 0),
        ("p04", 4, -10),
        ("p05", 5, -50),
    ];
    let mut results = results_by_player(&t, 1, &first);
    act(&mut t, TournamentCommand::seat_round(), &results);
    results.extend(results_by_player(&t, 2, second));
    (t, results)
}

#[test]
fn equal_points_gains_and_meetings_fall_to_the_seeded_draw() {
    let (t, results) = two_rounds(&[
        ("p05", 1, 60),
        ("p03", 2, 10),
        ("p04", 3, 5),
        ("p02", 4, -10),
        ("p01", 5, -30),
    ]);
    let rows = standings(&t, &results);
    let order: Vec<&str> = rows.iter().map(|r| r.player.as_str()).collect();
    // p03: 2 + 3 = 5. p01 and p05: 5 - 2 = 3 each; p05 gained 10%, p01 10%: equal too, best
    // result 5 each, and they met twice, each ahead once: the draw. p02 and p04: 3 - 1 and
    // -1 + 2 = 2 and 1.
    assert_eq!(rows[0].player, "p03");
    assert_eq!(rows[0].points, Fraction::whole(5));
    assert_eq!(&order[3..], ["p02", "p04"]);
    assert_eq!(rows[3].points, Fraction::whole(2));
    assert_eq!(rows[4].points, Fraction::whole(1));
    assert_eq!(rows[2].decided_by, Some(Tiebreaker::Draw));
    assert_eq!(rows[3].decided_by, Some(Tiebreaker::TotalPoints));
}

#[test]
fn equal_points_fall_to_percent_gain_first() {
    let (t, results) = two_rounds(&[
        ("p02", 1, 40),
        ("p01", 2, 20),
        ("p04", 3, 0),
        ("p03", 4, -10),
        ("p05", 5, -50),
    ]);
    let rows = standings(&t, &results);
    // p01 and p02: 8 points each, 60% each, best 5 each, ahead of each other once each:
    // the draw. p03 (2 - 1 = 1) and p04 (-1 + 2 = 1): equal gain (-10%), best 2 each;
    // they met twice, one each: the draw again. So: percent gain must separate someone.
    assert_eq!(rows[0].points, Fraction::whole(8));
    assert_eq!(rows[1].decided_by, Some(Tiebreaker::Draw));
    let mut gains = results_by_player(
        &t,
        2,
        &[
            ("p02", 1, 40),
            ("p01", 2, 25),
            ("p04", 3, 0),
            ("p03", 4, -10),
            ("p05", 5, -50),
        ],
    );
    gains.insert(0, results[0].clone());
    let rows = standings(&t, &gains);
    assert_eq!(rows[0].player, "p01", "65% beats 60%");
    assert_eq!(rows[1].decided_by, Some(Tiebreaker::TotalPercentGain));
}

#[test]
fn head_to_head_separates_players_equal_on_everything_before_it() {
    let mut t = with_entrants(5, ShortTablePolicy::Byes);
    act(&mut t, TournamentCommand::seat_round(), &[]);
    let results = results_by_player(
        &t,
        1,
        &[
            ("p01", 1, 40),
            ("p02", 2, 20),
            ("p03", 3, 0),
            ("p04", 3, 0),
            ("p05", 5, -50),
        ],
    );
    let mut only_h2h = t.clone();
    only_h2h.created.tiebreakers = vec![Tiebreaker::HeadToHead, Tiebreaker::Draw];
    // p03 and p04 share 3rd: equal points, and head-to-head is level (same place).
    let rows = standings(&only_h2h, &results);
    let at = |p: &str| rows.iter().position(|r| r.player == p).unwrap();
    assert_eq!(
        rows[at("p03").max(at("p04"))].decided_by,
        Some(Tiebreaker::Draw)
    );
}

pub(super) fn running(t: &Tournament, begun: bool) -> Vec<GameResult> {
    t.rounds
        .last()
        .map(|r| {
            r.games
                .iter()
                .map(|g| GameResult {
                    game_id: g.game_id.clone(),
                    ended: false,
                    begun,
                    not_rated: None,
                    rows: Vec::new(),
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn before_a_round_begins_the_director_swaps_two_players_between_tables() {
    // Given a seated round of two tables whose games have no order yet,
    let mut t = with_entrants(10, ShortTablePolicy::Byes);
    act(&mut t, TournamentCommand::seat_round(), &[]);
    let tables = t.tables_as_played()[0].clone();
    let (a_power, a) = tables[0].seats[0].clone();
    let (b_power, b) = tables[1].seats[2].clone();
    // when the director swaps one player of each,
    let swap = TournamentCommand::SwapSeats {
        players: [a.clone(), b.clone()],
        reason: "a's train arrives late".into(),
    };
    let not_begun = running(&t, false);
    act(&mut t, swap.clone(), &not_begun);
    // then each sits at the other's table at the other's power, and the reason is kept.
    let after = t.tables_as_played()[0].clone();
    assert_eq!(after[0].seats[0], (a_power, b.clone()));
    assert_eq!(after[1].seats[2], (b_power, a.clone()));
    assert_eq!(
        t.swaps().next().expect("a swap").reason,
        "a's train arrives late"
    );
    // Two players of one table, or a round whose games have begun, are refused.
    let same = when(
        &t,
        TournamentCommand::SwapSeats {
            players: [after[0].seats[1].1.clone(), after[0].seats[2].1.clone()],
            reason: "r".into(),
        },
        &running(&t, false),
    )
    .expect_err("one table");
    assert_eq!(same.code, RefusalCode::SameTable);
    let begun = when(&t, swap, &running(&t, true)).expect_err("begun");
    assert_eq!(begun.code, RefusalCode::RoundBegun);
    assert!(begun.message.contains("has an order"), "{}", begun.message);
}
