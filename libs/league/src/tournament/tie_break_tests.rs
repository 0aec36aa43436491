//! The tie-break draw: committed with the seed when the tournament is created, drawn and
//! revealed with it at the finish; before the finish, players tied on everything else are
//! shown tied.

use warlog_rules::dice::GameSeed;

use super::tests::{created, director, results_in_seat_order};
use super::*;
use crate::standings::StandingRow;

const POWERS: [Power; 5] = Power::CLASSIC;

fn seed() -> GameSeed {
    GameSeed::from_bytes([5; 32])
}

/// `command` from the director, with the seed's dice for the tournament's next version.
fn decide(tournament: &Tournament, command: &TournamentCommand, results: &[GameResult]) -> Decided {
    let mut dice = seed().dice_for("t1", tournament.version + 1);
    let mut next = 0;
    let mut new_game_id = || {
        next += 1;
        format!("g{next}")
    };
    tournament
        .decide(
            command,
            &mut Context {
                sender: &director(),
                at: Moment::from_unix_seconds(60),
                dice: &mut dice,
                results,
                powers: &POWERS,
                new_game_id: &mut new_game_id,
            },
        )
        .expect("accepted")
}

/// A one-round tournament of ten (two tables of five) committed to [`seed`], its round
/// seated, and both tables ended alike: the players of the same seat at the two tables
/// are tied on points, gain and best result, and never met.
fn ten_tied_in_pairs(drawn_at_finish: bool) -> (Tournament, Vec<GameResult>) {
    let mut settings = created(None, ShortTablePolicy::Byes);
    settings.rounds = 1;
    settings.seed_commitment = hex_of(&seed().commitment());
    settings.tie_break_drawn_at_finish = drawn_at_finish;
    let mut t = Tournament::new(settings);
    for i in 1..=10 {
        let enter = TournamentCommand::Enter {
            player: format!("p{i:02}"),
        };
        t = decide(&t, &enter, &[]).after;
    }
    t = decide(&t, &TournamentCommand::seat_round(), &[]).after;
    let results = results_in_seat_order(&t, &[50, 20, 0, -10, -40]);
    (t, results)
}

fn ranks(rows: &[StandingRow]) -> Vec<usize> {
    rows.iter().map(|r| r.rank).collect()
}

#[test]
fn before_the_finish_players_tied_on_everything_else_are_shown_tied() {
    // Given a tournament whose tie-break is drawn at the finish, its last round ended with
    // five pairs tied on everything but the draw,
    let (t, results) = ten_tied_in_pairs(true);
    assert_eq!(t.rounds[0].draw.len(), 10, "the round's draw, for seating");
    // when the standings are read before the finish,
    let rows = standings(&t, &results);
    // then each pair shares a rank, and no row is placed by a draw.
    assert_eq!(ranks(&rows), [1, 1, 3, 3, 5, 5, 7, 7, 9, 9]);
    assert!(rows.iter().all(|r| r.decided_by != Some(Tiebreaker::Draw)));
    assert!(t.tie_break_draw().is_empty());
}

#[test]
fn the_finish_draws_the_tie_break_with_the_revealed_seed_and_it_orders_the_ties() {
    // Given the five tied pairs, the last round ended,
    let (t, results) = ten_tied_in_pairs(true);
    // when the director finishes, revealing the seed,
    let done = decide(&t, &TournamentCommand::Finish { seed: seed() }, &results);
    // then the finish records every player in the order the seed's dice for the
    // finishing event's version give (which nothing before the reveal could compute),
    let [TournamentEvent::TournamentFinished { draw, .. }] = done.events.as_slice() else {
        panic!("one TournamentFinished: {:?}", done.events)
    };
    let mut expected: Vec<String> = (1..=10).map(|i| format!("p{i:02}")).collect();
    shuffle(&mut expected, &mut seed().dice_for("t1", t.version + 1));
    assert_eq!(draw, &expected);
    // and, after it, the draw separates each pair: the one drawn first ranks above.
    let rows = standings(&done.after, &results);
    assert_eq!(ranks(&rows), (1..=10).collect::<Vec<_>>());
    for pair in rows.chunks(2) {
        assert_eq!(pair[0].points, pair[1].points);
        assert_eq!(pair[1].decided_by, Some(Tiebreaker::Draw));
        let drawn_at = |row: &StandingRow| draw.iter().position(|p| *p == row.player);
        assert!(drawn_at(&pair[0]) < drawn_at(&pair[1]));
    }
}

#[test]
fn an_older_tournament_finishes_without_a_draw_and_keeps_its_last_rounds() {
    // Given an older tournament (its tie-break is the last round's draw), ended alike,
    let (t, results) = ten_tied_in_pairs(false);
    // when the standings are read, then the round's draw already separates the pairs;
    let before = standings(&t, &results);
    assert_eq!(ranks(&before), (1..=10).collect::<Vec<_>>());
    // when it finishes, then the finish draws nothing and the standings stay as they were.
    let done = decide(&t, &TournamentCommand::Finish { seed: seed() }, &results);
    assert!(matches!(
        done.events.as_slice(),
        [TournamentEvent::TournamentFinished { draw, .. }] if draw.is_empty()
    ));
    assert_eq!(standings(&done.after, &results), before);
}

#[test]
fn a_finish_draw_is_stored_and_read_back_and_an_older_finish_reads_without_one() {
    let finished = TournamentEvent::TournamentFinished {
        at: Moment::from_unix_seconds(9),
        seed: Some("01".repeat(32)),
        draw: vec!["ann".into(), "bob".into()],
    };
    let (event_type, version, payload) = finished.encode().unwrap();
    assert_eq!(payload["draw"], serde_json::json!(["ann", "bob"]));
    assert_eq!(
        TournamentEvent::decode(event_type.as_str(), version, &payload).unwrap(),
        finished
    );
    let mut older = payload.clone();
    older.as_object_mut().unwrap().remove("draw");
    let TournamentEvent::TournamentFinished { draw, .. } =
        TournamentEvent::decode("TournamentFinished", 1, &older).unwrap()
    else {
        panic!("a finish")
    };
    assert!(draw.is_empty());
}
