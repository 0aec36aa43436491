//! Each tournament command, given a tournament, when a sender gives it, then the events,
//! the tournament after them and what its games are to record; and who may give it.

use warlog_events::orders::Command;
use warlog_events::sender::Role;
use warlog_rules::dice::{Die, GameSeed};

use super::tests::{created, director, results_in_seat_order, running, with_entrants};
use super::*;

const POWERS: [Power; 5] = Power::CLASSIC;

fn sender(role: Role, name: &str) -> Sender {
    Sender {
        role,
        name: name.to_owned(),
    }
}

/// Dice that must not be rolled: a decision that reads one fails the test.
struct NoDice;

impl DiceSource for NoDice {
    fn roll(&mut self) -> Die {
        panic!("a die was rolled")
    }
}

/// `command` from `by` on `tournament`, with the seed's dice for its next version.
fn when_sent(
    tournament: &Tournament,
    by: &Sender,
    command: &TournamentCommand,
    results: &[GameResult],
) -> Result<Decided, TournamentViolation> {
    let mut dice = GameSeed::from_bytes([1; 32]).dice_for("t1", tournament.version + 1);
    decide_with(tournament, by, command, results, &mut dice)
}

fn decide_with(
    tournament: &Tournament,
    by: &Sender,
    command: &TournamentCommand,
    results: &[GameResult],
    dice: &mut dyn DiceSource,
) -> Result<Decided, TournamentViolation> {
    let mut next = 0;
    let mut new_game_id = || {
        next += 1;
        format!("g{}-{next}", tournament.next_round())
    };
    tournament.decide(
        command,
        &mut Context {
            sender: by,
            at: Moment::from_unix_seconds(60),
            dice,
            results,
            powers: &POWERS,
            new_game_id: &mut new_game_id,
        },
    )
}

/// The director's decision, accepted; the tournament after it.
fn then_accepted(tournament: &Tournament, command: TournamentCommand) -> Decided {
    when_sent(tournament, &director(), &command, &[]).expect("accepted")
}

fn enter(player: &str) -> TournamentCommand {
    TournamentCommand::Enter {
        player: player.to_owned(),
    }
}

/// A tournament of `n` entrants with round 1 seated, and someone waiting.
fn seated_with_one_waiting(n: usize) -> Tournament {
    let mut t = Tournament::new(created(Some(n as u32), ShortTablePolicy::Byes));
    for i in 1..=n {
        t = then_accepted(&t, enter(&format!("p{i:02}"))).after;
    }
    t = then_accepted(&t, enter("sub")).after;
    assert_eq!(t.waiting, ["sub"]);
    then_accepted(&t, TournamentCommand::seat_round()).after
}

#[test]
fn the_decision_carries_the_tournament_after_its_events_applied_once() {
    // Given a new tournament,
    let t = Tournament::new(created(None, ShortTablePolicy::Byes));
    // when the director enters a player,
    let decided = then_accepted(&t, enter("ann"));
    // then the event is the entry, and the tournament after it is the fold of it, once.
    assert_eq!(
        decided.events,
        [TournamentEvent::PlayerEntered {
            player: "ann".into(),
            at: Moment::from_unix_seconds(60)
        }]
    );
    let mut folded = t.clone();
    folded.apply(&decided.events[0]);
    assert_eq!(decided.after, folded);
    assert_eq!(decided.after.version, t.version + 1);
    assert_eq!(decided.after.playing(), ["ann"]);
    assert!(decided.game_commands.is_empty());
}

#[test]
fn a_player_enters_and_drops_only_themself_and_the_director_or_an_admin_anyone() {
    // Given a tournament directed by dora,
    let t = Tournament::new(created(None, ShortTablePolicy::Byes));
    let ann = sender(Role::Player, "ann");
    // when ann enters herself, then she is entered;
    let entered = when_sent(&t, &ann, &enter("ann"), &[]).expect("her own entry");
    assert_eq!(entered.after.playing(), ["ann"]);
    // when ann enters bob, or drops him, then she is refused as forbidden;
    let t = then_accepted(&entered.after, enter("bob"));
    for command in [
        enter("cy"),
        TournamentCommand::Drop {
            player: "bob".into(),
        },
    ] {
        let refused = when_sent(&t.after, &ann, &command, &[]).expect_err("not hers");
        assert_eq!(refused.code, RefusalCode::Forbidden);
        assert!(refused.message.contains("only themself"), "{refused}");
    }
    // when another director, a game master or an auditor enters anyone, then refused;
    for by in [
        sender(Role::Director, "otto"),
        sender(Role::Gm, "gus"),
        sender(Role::Auditor, "audrey"),
    ] {
        let refused = when_sent(&t.after, &by, &enter("cy"), &[]).expect_err("not theirs");
        assert_eq!(refused.code, RefusalCode::Forbidden, "{by}");
        assert!(refused.message.contains("dora directs it"), "{refused}");
    }
    // when an admin drops bob, or ann drops herself, then each is dropped.
    let admin = sender(Role::Admin, "root");
    let bob_dropped = TournamentCommand::Drop {
        player: "bob".into(),
    };
    let after = when_sent(&t.after, &admin, &bob_dropped, &[]).expect("an admin");
    assert_eq!(after.after.playing(), ["ann"]);
    let ann_dropped = TournamentCommand::Drop {
        player: "ann".into(),
    };
    let after = when_sent(&after.after, &ann, &ann_dropped, &[]).expect("her own drop");
    assert!(after.after.playing().is_empty());
    assert_eq!(after.after.entrants[0].status, EntrantStatus::Dropped);
}

#[test]
fn only_the_director_or_an_admin_seats_swaps_substitutes_and_finishes() {
    // Given a seated round with someone waiting,
    let t = seated_with_one_waiting(5);
    let table = &t.tables_as_played()[0][0];
    let (power, replaced) = table.seats[0].clone();
    let game_id = t.rounds[0].games[0].game_id.clone();
    let commands = [
        TournamentCommand::seat_round(),
        TournamentCommand::SwapSeats {
            players: ["p01".into(), "p02".into()],
            reason: "r".into(),
        },
        TournamentCommand::Substitute {
            game_id,
            power,
            replaced,
            substitute: None,
        },
        TournamentCommand::Finish {
            seed: GameSeed::from_bytes([0; 32]),
        },
    ];
    // when a player (even one seated), another director or a game master gives any of
    // them, then each is refused as forbidden before any rule is looked at.
    for by in [
        sender(Role::Player, "p01"),
        sender(Role::Director, "otto"),
        sender(Role::Gm, "dora"),
    ] {
        for command in &commands {
            let refused = decide_with(&t, &by, command, &[], &mut NoDice).expect_err("forbidden");
            assert_eq!(refused.code, RefusalCode::Forbidden, "{by}");
        }
    }
}

#[test]
fn a_drop_of_someone_not_entered_is_refused_and_a_waiting_player_leaves_the_list() {
    // Given one entrant and one waiting,
    let t = Tournament::new(created(Some(1), ShortTablePolicy::Byes));
    let t = then_accepted(&t, enter("ann")).after;
    let t = then_accepted(&t, enter("bob")).after;
    assert_eq!(t.waiting, ["bob"]);
    // when the director drops a stranger, then it is refused;
    let refused = when_sent(
        &t,
        &director(),
        &TournamentCommand::Drop {
            player: "zed".into(),
        },
        &[],
    )
    .expect_err("not entered");
    assert_eq!(refused.code, RefusalCode::NotEntered);
    // when the director drops the waiting player, then the list is empty.
    let after = then_accepted(
        &t,
        TournamentCommand::Drop {
            player: "bob".into(),
        },
    )
    .after;
    assert!(after.waiting.is_empty());
    assert_eq!(after.playing(), ["ann"]);
}

#[test]
fn a_late_entry_plays_until_the_round_the_director_set_and_waits_after_it() {
    // Given late entries open until round 2 and round 1 seated,
    let t = with_entrants(10, ShortTablePolicy::Byes);
    let t = then_accepted(&t, TournamentCommand::seat_round()).after;
    // when a player enters, then they play from round 2;
    let late = then_accepted(&t, enter("late"));
    assert!(matches!(
        late.events[0],
        TournamentEvent::PlayerEntered { .. }
    ));
    // when round 2 is seated and another enters, then they wait.
    let results = results_in_seat_order(&late.after, &[50, 20, 0, -10, -40]);
    let t = when_sent(
        &late.after,
        &director(),
        &TournamentCommand::seat_round(),
        &results,
    )
    .expect("round 2")
    .after;
    let later = then_accepted(&t, enter("later"));
    assert!(matches!(
        later.events[0],
        TournamentEvent::PlayerWaitlisted { .. }
    ));
    assert_eq!(later.after.waiting, ["later"]);
}

#[test]
fn a_swap_tells_each_game_to_give_the_seat_to_the_other_player() {
    // Given a seated round of two tables,
    let t = with_entrants(10, ShortTablePolicy::Byes);
    let t = then_accepted(&t, TournamentCommand::seat_round()).after;
    let tables = t.tables_as_played()[0].clone();
    let (a_power, a) = tables[0].seats[1].clone();
    let (b_power, b) = tables[1].seats[3].clone();
    let games = t.rounds[0].games.clone();
    // when the director swaps a and b, with a reason to trim,
    let decided = when_sent(
        &t,
        &director(),
        &TournamentCommand::SwapSeats {
            players: [a.clone(), b.clone()],
            reason: "  a's evenings  ".into(),
        },
        &running(&t, false),
    )
    .expect("swapped");
    // then the tournament records the swap, and each game is told to seat the other.
    let swaps: Vec<_> = decided.after.swaps().collect();
    assert_eq!(swaps.len(), 1);
    assert_eq!(swaps[0].reason, "a's evenings");
    let game_of = |table: u32| {
        games
            .iter()
            .find(|g| g.table == table)
            .map(|g| g.game_id.clone())
            .expect("the table's game")
    };
    assert_eq!(
        decided.game_commands,
        [
            GameCommand {
                game_id: game_of(tables[0].table),
                command: Command::TakeSeat {
                    power: a_power,
                    player: b.clone(),
                    reason: "a's evenings".into(),
                },
            },
            GameCommand {
                game_id: game_of(tables[1].table),
                command: Command::TakeSeat {
                    power: b_power,
                    player: a.clone(),
                    reason: "a's evenings".into(),
                },
            },
        ]
    );
    // when the director swaps a player with no seat, or with no reason, then refused.
    for (command, code) in [
        (
            TournamentCommand::SwapSeats {
                players: [a.clone(), "zed".into()],
                reason: "r".into(),
            },
            RefusalCode::NotSeated,
        ),
        (
            TournamentCommand::SwapSeats {
                players: [a, b],
                reason: " ".into(),
            },
            RefusalCode::BadReason,
        ),
    ] {
        let refused = when_sent(&t, &director(), &command, &[]).expect_err(code.as_str());
        assert_eq!(refused.code, code);
    }
}

#[test]
fn a_swap_naming_one_player_twice_is_refused_and_changes_nothing() {
    // Given a seated round,
    let t = seated_with_one_waiting(10);
    let (_, p) = t.tables_as_played()[0][0].seats[0].clone();
    // when the director swaps a player with themself, then refused.
    let refused = when_sent(
        &t,
        &director(),
        &TournamentCommand::SwapSeats {
            players: [p.clone(), p],
            reason: "r".into(),
        },
        &[],
    )
    .expect_err("one player");
    assert_eq!(refused.code, RefusalCode::SamePlayer);
}

#[test]
fn a_swap_before_any_round_is_seated_is_refused() {
    let t = with_entrants(10, ShortTablePolicy::Byes);
    let refused = when_sent(
        &t,
        &director(),
        &TournamentCommand::SwapSeats {
            players: ["p01".into(), "p02".into()],
            reason: "r".into(),
        },
        &[],
    )
    .expect_err("no round");
    assert_eq!(refused.code, RefusalCode::NoRound);
}

#[test]
fn a_substitution_tells_the_game_to_seat_the_first_waiting_player() {
    // Given a seated round and sub waiting,
    let t = seated_with_one_waiting(5);
    let (power, replaced) = t.tables_as_played()[0][0].seats[2].clone();
    let game_id = t.rounds[0].games[0].game_id.clone();
    // when the director appoints a substitute without naming one,
    let decided = then_accepted(
        &t,
        TournamentCommand::Substitute {
            game_id: game_id.clone(),
            power,
            replaced: replaced.clone(),
            substitute: None,
        },
    );
    // then the first waiting takes the seat, and the game is told to replace its inactive
    // player with them.
    assert_eq!(
        decided.events,
        [TournamentEvent::SubstituteAppointed(SubstituteAppointed {
            round: 1,
            game_id: game_id.clone(),
            power,
            replaced: replaced.clone(),
            substitute: "sub".into(),
            at: Moment::from_unix_seconds(60),
        })]
    );
    assert_eq!(
        decided.game_commands,
        [GameCommand {
            game_id: game_id.clone(),
            command: Command::ReplaceInactivePlayer {
                substitute: "sub".into()
            },
        }]
    );
    assert_eq!(
        decided.after.tables_as_played()[0][0].seats[2],
        (power, "sub".into())
    );
    assert!(decided.after.waiting.is_empty());
    // when the waiting list is empty, or the game is not the tournament's, then refused.
    let again = when_sent(
        &decided.after,
        &director(),
        &TournamentCommand::Substitute {
            game_id,
            power,
            replaced: "sub".into(),
            substitute: None,
        },
        &[],
    )
    .expect_err("nobody waits");
    assert_eq!(again.code, RefusalCode::WaitingListEmpty);
    let foreign = when_sent(
        &t,
        &director(),
        &TournamentCommand::Substitute {
            game_id: "elsewhere".into(),
            power,
            replaced,
            substitute: None,
        },
        &[],
    )
    .expect_err("not this tournament's");
    assert_eq!(foreign.code, RefusalCode::NotATournamentGame);
}

#[test]
fn a_substitution_is_asked_by_its_director_for_one_of_the_tournaments_games() {
    // Given a seated tournament and no game folded for it,
    let t = seated_with_one_waiting(5);
    // when the command is built for a game that is not among its games, then refused.
    let game_id = t.rounds[0].games[0].game_id.clone();
    let refused = t
        .substitution(&director(), &[], &game_id, None)
        .expect_err("no game given");
    assert_eq!(refused.code, RefusalCode::NotATournamentGame);
    // when someone who does not direct it asks, then forbidden, before the game is looked for.
    let refused = t
        .substitution(&sender(Role::Director, "otto"), &[], &game_id, None)
        .expect_err("not theirs");
    assert_eq!(refused.code, RefusalCode::Forbidden);
}

#[test]
fn the_finish_needs_the_committed_seed_every_round_and_every_game_ended() {
    // Given a one-round tournament committed to a seed, its round seated,
    let seed = GameSeed::from_bytes([5; 32]);
    let mut settings = created(None, ShortTablePolicy::Byes);
    settings.rounds = 1;
    settings.seed_commitment = hex_of(&seed.commitment());
    let mut t = Tournament::new(settings);
    for i in 1..=5 {
        t = then_accepted(&t, enter(&format!("p{i:02}"))).after;
    }
    let finish = TournamentCommand::Finish { seed: seed.clone() };
    assert_eq!(
        when_sent(&t, &director(), &finish, &[]).unwrap_err().code,
        RefusalCode::RoundsLeft
    );
    t = then_accepted(&t, TournamentCommand::seat_round()).after;
    // when the director finishes with its game running, then refused;
    let refused = when_sent(&t, &director(), &finish, &running(&t, true)).unwrap_err();
    assert_eq!(refused.code, RefusalCode::GamesRunning);
    // when another seed is given, then refused;
    let other = TournamentCommand::Finish {
        seed: GameSeed::from_bytes([6; 32]),
    };
    assert_eq!(
        when_sent(&t, &director(), &other, &[]).unwrap_err().code,
        RefusalCode::SeedMismatch
    );
    // when every game has ended, then it finishes and reveals the seed.
    let results = results_in_seat_order(&t, &[50, 20, 0, -10, -40]);
    let done = when_sent(&t, &director(), &finish, &results).expect("finished");
    assert_eq!(done.after.revealed_seed, Some(hex_of(seed.expose())));
    assert_eq!(done.after.finished, Some(Moment::from_unix_seconds(60)));
}

#[test]
fn constraints_no_seating_can_keep_are_refused_before_any_die_is_rolled() {
    // Given ten entrants (two tables of five),
    let t = with_entrants(10, ShortTablePolicy::Byes);
    let pair = |a: &str, b: &str| [a.to_owned(), b.to_owned()];
    let fixed = |player: &str, table: u32| crate::constraints::FixedTable {
        player: player.to_owned(),
        table,
    };
    for (constraints, says) in [
        // three groups of three cannot share two tables of five;
        (
            SeatingConstraints {
                keep_together: vec![
                    pair("p01", "p02"),
                    pair("p02", "p03"),
                    pair("p04", "p05"),
                    pair("p05", "p06"),
                    pair("p07", "p08"),
                    pair("p08", "p09"),
                ],
                ..SeatingConstraints::default()
            },
            "no seating keeps them all",
        ),
        // a pair kept together and apart;
        (
            SeatingConstraints {
                keep_together: vec![pair("p01", "p02")],
                keep_apart: vec![pair("p02", "p01")],
                ..SeatingConstraints::default()
            },
            "kept apart, yet to sit together",
        ),
        // a pair kept together, fixed to two tables;
        (
            SeatingConstraints {
                keep_together: vec![pair("p01", "p02")],
                fixed_tables: vec![fixed("p01", 1), fixed("p02", 2)],
                ..SeatingConstraints::default()
            },
            "fixed to tables 1 and 2",
        ),
        // six players fixed to one table of five;
        (
            SeatingConstraints {
                fixed_tables: (1..=6).map(|i| fixed(&format!("p{i:02}"), 1)).collect(),
                ..SeatingConstraints::default()
            },
            "no seating keeps them all",
        ),
    ] {
        let constraints = SeatingConstraints {
            reason: "the director's reasons".into(),
            ..constraints
        };
        // when the director seats the round under them, then it is refused, and no die
        // was read to refuse it: retrying tells nothing of the tournament's dice.
        let refused = decide_with(
            &t,
            &director(),
            &TournamentCommand::SeatRound(constraints),
            &[],
            &mut NoDice,
        )
        .expect_err(says);
        assert_eq!(refused.code, RefusalCode::CannotSeat);
        assert!(refused.message.contains(says), "{refused}");
        assert!(refused.message.contains("cannot all hold"), "{refused}");
    }
}

#[test]
fn constraints_some_seating_can_keep_are_kept_and_recorded_with_the_round() {
    // Given ten entrants,
    let t = with_entrants(10, ShortTablePolicy::Byes);
    let constraints = SeatingConstraints {
        keep_together: vec![["p01".into(), "p02".into()], ["p03".into(), "p04".into()]],
        keep_apart: vec![["p01".into(), "p03".into()]],
        fixed_tables: vec![crate::constraints::FixedTable {
            player: "p03".into(),
            table: 2,
        }],
        reason: "two households".into(),
    };
    // when the director seats the round under constraints that some seating keeps,
    let decided = then_accepted(&t, TournamentCommand::SeatRound(constraints.clone()));
    // then they hold, none is recorded as unmet, and the round records them.
    let round = &decided.after.rounds[0];
    let table_of = |p: &str| {
        round
            .seating
            .tables
            .iter()
            .find(|t| t.seats.iter().any(|(_, who)| who == p))
            .map(|t| t.table)
    };
    assert_eq!(table_of("p01"), table_of("p02"));
    assert_eq!(table_of("p03"), Some(2));
    assert_eq!(table_of("p04"), Some(2));
    assert_eq!(table_of("p01"), Some(1));
    assert!(round.seating.unmet_constraints.is_empty());
    assert_eq!(round.constraints, constraints);
}

#[test]
fn an_admin_or_a_director_creates_a_tournament_and_directs_it() {
    // Given the creation of a tournament naming dora its director,
    let settings = created(None, ShortTablePolicy::Byes);
    // when dora (a director) or an admin named dora created it, then it is theirs;
    assert!(settings.created_by(&director()).is_ok());
    assert!(settings.created_by(&sender(Role::Admin, "dora")).is_ok());
    // when another director created it in dora's name, or a player or a game master
    // asks to create one, then forbidden.
    let refused = settings
        .created_by(&sender(Role::Director, "otto"))
        .expect_err("not the named director");
    assert_eq!(refused.code, RefusalCode::Forbidden);
    assert!(
        refused.message.contains("the creator directs it"),
        "{refused}"
    );
    for role in [Role::Player, Role::Gm, Role::Auditor] {
        let refused =
            TournamentCreated::may_create(&sender(role, "dora")).expect_err("not a director");
        assert_eq!(refused.code, RefusalCode::Forbidden);
    }
}

#[test]
fn a_player_dropped_while_seated_does_not_return_to_the_waiting_list_of_that_round() {
    // Given a seated round whose game runs, and p01 seated in it, dropped by her own word,
    let t = seated_with_one_waiting(5);
    let p01 = sender(Role::Player, "p01");
    let drop = TournamentCommand::Drop {
        player: "p01".into(),
    };
    let t = when_sent(&t, &p01, &drop, &[]).expect("her own drop").after;
    // when she enters again while the game runs, then she is refused: she still holds
    // her seat, and from the waiting list she could be handed a second one in that game;
    let refused = when_sent(&t, &p01, &enter("p01"), &running(&t, true)).expect_err("seated");
    assert_eq!(refused.code, RefusalCode::SeatedThisRound);
    assert!(
        refused.message.contains("p01 still holds a seat"),
        "{refused}"
    );
    // when the round's games have ended, then she enters again, for the rounds to come.
    let mut ended = running(&t, true);
    for result in &mut ended {
        result.ended = true;
    }
    let again = when_sent(&t, &p01, &enter("p01"), &ended).expect("the round is over");
    assert!(again.after.playing().contains(&"p01".to_owned()));
}

#[test]
fn a_substitute_who_already_holds_a_seat_in_the_game_is_refused() {
    // Given a seated round, and p02 (seated at Russia's table) on the waiting list as a
    // stream recorded before entries were checked could have it,
    let mut t = seated_with_one_waiting(5);
    t.apply(&TournamentEvent::PlayerWaitlisted {
        player: "p02".into(),
        at: Moment::from_unix_seconds(30),
    });
    let table = &t.tables_as_played()[0][0];
    let (power, replaced) = table
        .seats
        .iter()
        .find(|(_, who)| who != "p02")
        .cloned()
        .expect("another seat");
    let game_id = t.rounds[0].games[0].game_id.clone();
    // when the director gives another seat of that game to p02,
    let refused = when_sent(
        &t,
        &director(),
        &TournamentCommand::Substitute {
            game_id,
            power,
            replaced,
            substitute: Some("p02".into()),
        },
        &running(&t, true),
    )
    .expect_err("two seats");
    // then it is refused: one seat per player per game.
    assert_eq!(refused.code, RefusalCode::SeatedTwice);
    assert!(
        refused.message.contains("p02 would hold two seats"),
        "{refused}"
    );
}

#[test]
fn the_director_may_not_enter_their_own_tournament_unless_an_admin_enters_them() {
    // Given a tournament directed by dora, who masters each of its games,
    let t = Tournament::new(created(None, ShortTablePolicy::Byes));
    // when dora enters herself, or a player's token of her name does, then it is refused:
    // seated, she would give orders for her opponents;
    for by in [director(), sender(Role::Player, "dora")] {
        let refused = when_sent(&t, &by, &enter("dora"), &[]).expect_err("the master seated");
        assert_eq!(refused.code, RefusalCode::Forbidden, "{by}");
        assert!(refused.message.contains("may not also play"), "{refused}");
    }
    // when an admin enters her, then she is entered, the admin on the record.
    let admin = sender(Role::Admin, "root");
    let entered = when_sent(&t, &admin, &enter("dora"), &[]).expect("an admin allows it");
    assert_eq!(entered.after.playing(), ["dora"]);
}

fn swap(a: &str, b: &str, reason: &str) -> TournamentCommand {
    TournamentCommand::SwapSeats {
        players: [a.to_owned(), b.to_owned()],
        reason: reason.to_owned(),
    }
}

/// A round of `n` entrants seated (tables of five), and the round as drawn.
fn drawn(n: usize) -> (Tournament, Vec<TableSeating>) {
    let t = with_entrants(n, ShortTablePolicy::Byes);
    let t = then_accepted(&t, TournamentCommand::seat_round()).after;
    let tables = t.rounds[0].seating.tables.clone();
    (t, tables)
}

#[test]
fn a_chain_of_swaps_through_another_table_cannot_exchange_two_powers_of_one_table() {
    // Given a seated round: bob and gil2 drawn to table 1, di to table 2,
    let (t, tables) = drawn(10);
    let (bob_power, bob) = tables[0].seats[0].clone();
    let (gil2_power, gil2) = tables[0].seats[1].clone();
    let (_, di) = tables[1].seats[0].clone();
    // when the director swaps gil2 and di (two tables), then it is allowed;
    let first = then_accepted(&t, swap(&gil2, &di, "gil2's evenings"));
    // when the director then swaps gil2 and bob, which would seat gil2 back at table 1
    // with bob's power (the issue's chain goes on with bob and di, which would finish the
    // exchange),
    let refused = when_sent(
        &first.after,
        &director(),
        &swap(&gil2, &bob, "just because"),
        &running(&first.after, false),
    )
    .expect_err("a chain that exchanges powers within a table");
    // then it is refused, nothing decided, in words naming the players, table and powers;
    assert_eq!(refused.code, RefusalCode::SwapChain);
    for says in [
        format!("swapping {gil2} and {bob} would seat {gil2} back at table 1"),
        format!("holding {}, the power {bob} was drawn to", bob_power.name()),
        format!("{gil2} was drawn to {} at that table", gil2_power.name()),
        "a player keeps the seat drawn or sits at another table".to_owned(),
    ] {
        assert!(refused.message.contains(&says), "{says}: {refused}");
    }
    // and the chain's last swap is then between two players of one table: refused too.
    let last = when_sent(&first.after, &director(), &swap(&bob, &di, "r"), &[])
        .expect_err("both at table 1");
    assert_eq!(last.code, RefusalCode::SameTable);
}

#[test]
fn a_chain_through_two_other_tables_is_refused_at_the_swap_that_brings_a_player_home() {
    // Given three tables: bob and gil2 drawn to table 1, di to table 2, eve to table 3,
    let (t, tables) = drawn(15);
    let (_, bob) = tables[0].seats[0].clone();
    let (_, gil2) = tables[0].seats[1].clone();
    let (_, di) = tables[1].seats[0].clone();
    let (_, eve) = tables[2].seats[0].clone();
    // when gil2 swaps with di and bob with eve (each allowed: nobody is at their own table),
    let t = then_accepted(&t, swap(&gil2, &di, "r1")).after;
    let t = then_accepted(&t, swap(&bob, &eve, "r2")).after;
    // then the third, gil2 with eve (now in bob's seat), is refused: gil2 would hold bob's
    // power at table 1.
    let refused = when_sent(&t, &director(), &swap(&gil2, &eve, "r3"), &[]).expect_err("a chain");
    assert_eq!(refused.code, RefusalCode::SwapChain);
    assert!(
        refused
            .message
            .contains(&format!("the power {bob} was drawn to")),
        "{refused}"
    );
}

#[test]
fn a_single_swap_a_move_on_to_a_third_table_and_a_swap_back_are_allowed() {
    // Given three tables, a drawn to table 1, b to table 2, c to table 3,
    let (t, tables) = drawn(15);
    let (a_power, a) = tables[0].seats[2].clone();
    let (b_power, b) = tables[1].seats[3].clone();
    let (c_power, c) = tables[2].seats[4].clone();
    // when the director swaps a and b, then a moves on to table 3 by a swap with c,
    let one = then_accepted(&t, swap(&a, &b, "a's evenings")).after;
    let two = then_accepted(&one, swap(&a, &c, "a's train")).after;
    // then each sits at another table than drawn, and every seat says who was drawn to it,
    // who holds it now, and why;
    let now = &two.tables_as_played()[0];
    assert_eq!(now[0].seats[2], (a_power, b.clone()));
    assert_eq!(now[1].seats[3], (b_power, c.clone()));
    assert_eq!(now[2].seats[4], (c_power, a.clone()));
    let seats = two.seats_since_the_draw(&two.rounds[0]);
    let seat = &seats[1].seats[3];
    assert_eq!(
        (seat.drawn.as_str(), seat.now.as_str()),
        (b.as_str(), c.as_str())
    );
    let said: Vec<String> = seat.changes.iter().map(SeatChange::describe).collect();
    assert_eq!(
        said,
        [
            format!("{a} took it from {b} by a swap: a's evenings"),
            format!("{c} took it from {a} by a swap: a's train"),
        ]
    );
    assert!(seats[0].seats[0].changes.is_empty());
    // when the director swaps a and c back, and then a and b, then every player is back
    // at the seat drawn.
    let back = then_accepted(&two, swap(&a, &c, "undo")).after;
    let back = then_accepted(&back, swap(&a, &b, "undo")).after;
    assert_eq!(back.tables_as_played()[0], back.rounds[0].seating.tables);
    // A swap undone at once is allowed too.
    let undone = then_accepted(&one, swap(&a, &b, "undo")).after;
    assert_eq!(
        undone.tables_as_played()[0],
        undone.rounds[0].seating.tables
    );
}

#[test]
fn a_substitute_is_held_to_the_seat_appointed_as_a_drawn_player_to_the_seat_drawn() {
    // Given two tables and sub waiting, sub appointed to a seat of table 1,
    let t = seated_with_one_waiting(10);
    let drawn = t.rounds[0].seating.tables.clone();
    let (power, replaced) = drawn[0].seats[0].clone();
    let other = drawn[0].seats[1].1.clone();
    let (x_power, x) = drawn[1].seats[0].clone();
    let t = then_accepted(
        &t,
        TournamentCommand::Substitute {
            game_id: t.rounds[0].games[0].game_id.clone(),
            power,
            replaced: replaced.clone(),
            substitute: Some("sub".into()),
        },
    )
    .after;
    // when the director swaps sub with x (table 2), then sub sits at x's seat and x at the
    // seat sub took, in the order recorded;
    let t = then_accepted(&t, swap("sub", &x, "sub's evenings")).after;
    let now = &t.tables_as_played()[0];
    assert_eq!(now[0].seats[0], (power, x.clone()));
    assert_eq!(now[1].seats[0], (x_power, "sub".to_owned()));
    let seat = &t.seats_since_the_draw(&t.rounds[0])[0].seats[0];
    assert_eq!(seat.drawn, replaced);
    assert_eq!(seat.changes[0].kind, SeatChangeKind::Substitution);
    assert!(
        seat.changes[0].describe().contains(&format!(
            "sub took it from {replaced} as a substitute: {replaced} let a due turn wait"
        )),
        "{:?}",
        seat.changes
    );
    assert_eq!(seat.changes[1].kind, SeatChangeKind::Swap);
    // when the director swaps sub back to table 1 into another power's seat, then refused:
    // a substitute does not change powers within the table appointed to.
    let refused = when_sent(&t, &director(), &swap("sub", &other, "r"), &[]).expect_err("a chain");
    assert_eq!(refused.code, RefusalCode::SwapChain);
    assert!(
        refused.message.contains(&format!(
            "sub was appointed as a substitute to {} at that table",
            power.name()
        )),
        "{refused}"
    );
}
