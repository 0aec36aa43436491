//! The tournament auditor: with a tournament's export and its games' exports, and nothing
//! else, it seats every round again from the revealed seed, checks that each game was
//! created with its table's seats, audits each game, decides every recorded command again
//! (its sender's right from the event's metadata, the rules from the tournament before it,
//! and what it gave the games on their own records), and recomputes the standings from the
//! games' results. `warlog audit TOURNAMENT.ndjson GAME.ndjson...` runs it.

use warlog_events::audit::{
    audit_after_chain, audit_game, field_difference, AuditReport, Check, Ledger, Outcome, Verdict,
};
use warlog_events::game::{decode_recorded, GameCreated, GameLog, GameStreamEvent};
use warlog_events::orders::Command;
use warlog_events::sender::Sender;
use warlog_events::{ChainHead, RecordedEvent};
use warlog_rules::board::Power;
use warlog_rules::dice::{DiceSource, GameSeed, RecordedDice};
use warlog_rules::game::{GameEvent, Moment};
use warlog_rules::ruleset::Ruleset;
use warlog_rules::words::counted;

use crate::tournament::standings::{result_of, standings, GameResult};
use crate::tournament::{
    hex_of, Context, Decided, RoundSeated, Tournament, TournamentCommand, TournamentCreated,
    TournamentEvent, TournamentViolation,
};

/// Audits a tournament stream's events with its games' exports (each a whole game stream).
pub fn audit_tournament(
    events: &[RecordedEvent],
    games: &[Vec<RecordedEvent>],
    published_head: Option<&ChainHead>,
) -> AuditReport {
    audit_after_chain(
        events,
        published_head,
        |ledger, checks, not_checked, report| {
            audit_stream(events, games, ledger, checks, not_checked, report);
        },
    )
}

fn audit_stream(
    events: &[RecordedEvent],
    games: &[Vec<RecordedEvent>],
    ledger: &mut Ledger,
    checks: &mut Vec<Check>,
    not_checked: &mut Vec<String>,
    report: &mut AuditReport,
) {
    let Some(decoded) = decoded_events(events, ledger, checks) else {
        return;
    };
    let Some((_, TournamentEvent::TournamentCreated(created))) = decoded.first() else {
        ledger.fail(
            "replay",
            1,
            "a tournament's log starts with TournamentCreated",
        );
        checks.push(ledger.verdict("replay", Verdict::Fail, ""));
        return;
    };
    check_creator(ledger, events, created);
    let seed = revealed_seed(ledger, checks, not_checked, &decoded, created);
    let mut logs = games_given(ledger, games);
    let CommandsDecided {
        tournament,
        seatings,
        decided_again,
    } = decide_commands_again(
        ledger,
        not_checked,
        &decoded,
        events,
        created,
        seed.as_ref(),
        &mut logs,
    );
    checks.push(ledger.verdict(
        "commands",
        Verdict::Pass,
        format!(
            "{} commands, each given by a sender allowed to give it; {decided_again} decided \
             again give the recorded events and the games' records",
            decoded.len()
        ),
    ));
    checks.push(ledger.verdict(
        "replay",
        Verdict::Pass,
        format!("{} events fold", decoded.len()),
    ));
    if seed.is_some() {
        checks.push(ledger.verdict(
            "seating",
            Verdict::Pass,
            format!(
                "{seatings} rounds seated again from the seed give the same tables, byes and draw"
            ),
        ));
    } else {
        checks.push(ledger.verdict("seating", Verdict::Skipped, "the seed is not revealed"));
    }
    check_games(ledger, checks, not_checked, events, &tournament, &logs);
    note_standings(report, &tournament, &logs);
}

/// The tournament's events decoded, or `None` (a failed replay) at the first that is not.
fn decoded_events(
    events: &[RecordedEvent],
    ledger: &mut Ledger,
    checks: &mut Vec<Check>,
) -> Option<Vec<(u64, TournamentEvent)>> {
    let mut decoded = Vec::with_capacity(events.len());
    for event in events {
        match TournamentEvent::decode(
            event.event_type.as_str(),
            event.event_version,
            &event.payload,
        ) {
            Ok(e) => decoded.push((event.stream_version, e)),
            Err(e) => {
                ledger.fail("replay", event.stream_version, e.to_string());
                checks.push(ledger.verdict("replay", Verdict::Fail, ""));
                return None;
            }
        }
    }
    Some(decoded)
}

/// The tournament's creator, from the first event's metadata, was allowed to create it.
fn check_creator(ledger: &mut Ledger, events: &[RecordedEvent], created: &TournamentCreated) {
    match events.first().and_then(sender_of) {
        Some(sender) => {
            if let Err(refused) = created.created_by(&sender) {
                ledger.fail("commands", 1, refused.message);
            }
        }
        None => ledger.fail(
            "commands",
            1,
            "the record does not say who created the tournament (its metadata names no actor)",
        ),
    }
}

/// The seed the finish reveals, once checked against the commitment the tournament was
/// created with; `None` before the finish or when it does not match.
fn revealed_seed(
    ledger: &mut Ledger,
    checks: &mut Vec<Check>,
    not_checked: &mut Vec<String>,
    decoded: &[(u64, TournamentEvent)],
    created: &TournamentCreated,
) -> Option<GameSeed> {
    let seed = decoded.iter().find_map(|(v, e)| match e {
        TournamentEvent::TournamentFinished {
            seed: Some(seed), ..
        } => Some((*v, seed.clone())),
        _ => None,
    });
    match seed {
        None => {
            not_checked
                .push("the seatings: the seed is revealed when the tournament finishes".to_owned());
            checks.push(ledger.verdict(
                "commitment",
                Verdict::Skipped,
                "the tournament has not finished, so its seed is not revealed",
            ));
            None
        }
        Some((v, hex_seed)) => {
            let parsed = hex::decode(&hex_seed)
                .ok()
                .and_then(|b| <[u8; 32]>::try_from(b).ok())
                .map(GameSeed::from_bytes);
            match parsed {
                Some(seed) if hex_of(&seed.commitment()) == created.seed_commitment => {
                    checks.push(ledger.verdict(
                        "commitment",
                        Verdict::Pass,
                        "SHA-256 of the revealed seed is the commitment in TournamentCreated",
                    ));
                    Some(seed)
                }
                _ => {
                    ledger.fail(
                        "commitment",
                        v,
                        "the revealed seed does not match the commitment in TournamentCreated",
                    );
                    checks.push(ledger.verdict("commitment", Verdict::Fail, ""));
                    None
                }
            }
        }
    }
}

/// The games, by id: folded for their results, audited on their own, their records kept
/// to find what the tournament's commands put on them.
fn games_given(ledger: &mut Ledger, games: &[Vec<RecordedEvent>]) -> Vec<GameGiven> {
    let mut logs: Vec<GameGiven> = Vec::new();
    for game in games {
        let audit = audit_game(game, None, None);
        let records = game
            .iter()
            .filter_map(|e| Some((e.stream_version, decode_recorded(e).ok()?)))
            .collect();
        match GameLog::fold(game) {
            Ok(log) => logs.push(GameGiven {
                log,
                audit,
                records,
                given_by_the_tournament: Vec::new(),
            }),
            Err(e) => ledger.fail(
                "games",
                e.version,
                format!("a game export given does not fold: {}", e.message),
            ),
        }
    }
    logs
}

/// What deciding the commands again leaves: the tournament as they made it, and how many
/// seatings and other commands were decided again.
struct CommandsDecided {
    tournament: Tournament,
    seatings: usize,
    decided_again: usize,
}

/// Every command after the creation: its sender allowed to give it, each round seated
/// again from the seed, every other command decided again where the games it depends on
/// are given.
fn decide_commands_again(
    ledger: &mut Ledger,
    not_checked: &mut Vec<String>,
    decoded: &[(u64, TournamentEvent)],
    events: &[RecordedEvent],
    created: &TournamentCreated,
    seed: Option<&GameSeed>,
    logs: &mut [GameGiven],
) -> CommandsDecided {
    let id = created.tournament_id.clone();
    let ruleset = Ruleset::builtin(&created.ruleset).ok();
    let mut tournament = Tournament::new(created.clone());
    let mut seatings = 0;
    let mut decided_again = 0;
    for ((version, event), recorded) in decoded.iter().zip(events).skip(1) {
        let version = *version;
        let Some((sender, command)) =
            sender_allowed(ledger, &tournament, (version, event), recorded)
        else {
            tournament.apply(event);
            continue;
        };
        if let TournamentEvent::RoundSeated(seated) = event {
            // A round is seated on the results of the rounds before it: with one of their
            // games not given, its seating cannot be decided again here (not checked, not
            // failed).
            let not_given = games_not_given(&tournament, logs);
            match (seed, ruleset) {
                (Some(_), _) if !not_given.is_empty() => not_checked.push(format!(
                    "round {}'s seating: it depends on the results of games not given ({})",
                    seated.round,
                    not_given.join(", ")
                )),
                (Some(seed), Some(ruleset)) => {
                    let results = all_results(&tournament, logs);
                    seatings += 1;
                    seat_again(
                        ledger,
                        &tournament,
                        seated,
                        version,
                        seed,
                        &Given {
                            powers: ruleset.powers(),
                            id: &id,
                            results: &results,
                            sender: &sender,
                        },
                    );
                }
                (Some(_), None) => ledger.fail(
                    "seating",
                    version,
                    format!(
                        "the ruleset {} is not one this auditor knows",
                        created.ruleset
                    ),
                ),
                (None, _) => {}
            }
            check_tables(ledger, seated, version, &id, logs);
        } else {
            // The finish counts every game's result: with one not given, it is not
            // decided again. Nothing else depends on the games' results.
            let not_given = games_not_given(&tournament, logs);
            if matches!(command, TournamentCommand::Finish { .. }) && !not_given.is_empty() {
                not_checked.push(format!(
                    "the finish at event {version}: it depends on the results of games not \
                     given ({})",
                    not_given.join(", ")
                ));
            } else {
                decided_again += 1;
                // Only the finish reads the games' results (all ended by then). Whether a
                // swapped round had begun is the games' to say, at the swap: their records of
                // the seats taken, which their own audits decide again, refusing a seat
                // change once a game has an order. The games' final results would not say.
                let results = match command {
                    TournamentCommand::Finish { .. } => all_results(&tournament, logs),
                    _ => Vec::new(),
                };
                decide_again(
                    ledger,
                    not_checked,
                    &tournament,
                    (version, event),
                    &command,
                    &Given {
                        powers: ruleset.map(Ruleset::powers).unwrap_or_default(),
                        id: &id,
                        results: &results,
                        sender: &sender,
                    },
                    logs,
                );
            }
        }
        tournament.apply(event);
    }
    CommandsDecided {
        tournament,
        seatings,
        decided_again,
    }
}

/// Every table's game was given, and passes its own audit; its seats changed only as the
/// tournament's commands gave them.
fn check_games(
    ledger: &mut Ledger,
    checks: &mut Vec<Check>,
    not_checked: &mut Vec<String>,
    events: &[RecordedEvent],
    tournament: &Tournament,
    logs: &[GameGiven],
) {
    let mut missing = Vec::new();
    for round in &tournament.rounds {
        let version = events
            .iter()
            .find(|e| e.event_type.as_str() == "RoundSeated" && e.payload["round"] == round.round)
            .map_or(1, |e| e.stream_version);
        for game in &round.games {
            let given = logs.iter().find(|g| g.log.created.game_id == game.game_id);
            if let Some(given) = given {
                seats_changed_only_by_the_tournament(ledger, given, version);
            }
            match given {
                None => missing.push(game.game_id.clone()),
                Some(GameGiven { audit, .. }) if audit.outcome == Outcome::Failed => {
                    let first = audit
                        .findings
                        .first()
                        .map(|f| format!("event {}: {}", f.event, f.message))
                        .unwrap_or_default();
                    ledger.fail(
                        "games",
                        version,
                        format!(
                            "game {} of round {} fails its own audit ({first})",
                            game.game_id, round.round
                        ),
                    );
                }
                Some(_) => {}
            }
        }
    }
    if !missing.is_empty() {
        not_checked.push(format!(
            "the games whose exports were not given, and the standings that count them: {}",
            missing.join(", ")
        ));
    }
    checks.push(ledger.verdict(
        "games",
        if missing.is_empty() {
            Verdict::Pass
        } else {
            Verdict::Skipped
        },
        format!(
            "{} given, each created with its table's seats and passing its own audit",
            counted(logs.len() as u64, "game", "games")
        ),
    ));
}

/// The standings, from the games' results, as the report's notes.
fn note_standings(report: &mut AuditReport, tournament: &Tournament, logs: &[GameGiven]) {
    let results = all_results(tournament, logs);
    for row in standings(tournament, &results) {
        report.notes.push(format!(
            "rank {}: {}, {:.2} points, {}, {}{}",
            row.rank,
            row.player,
            row.points.to_f64(),
            counted(u64::from(row.games), "game", "games"),
            counted(u64::from(row.byes), "bye", "byes"),
            row.decided_by
                .map(|t| format!(" (below the row above by {})", t.describe()))
                .unwrap_or_default()
        ));
    }
}

/// A game's export as given: folded, audited on its own, and its events decoded (with
/// their stream versions).
struct GameGiven {
    log: GameLog,
    audit: AuditReport,
    records: Vec<(u64, GameStreamEvent)>,
    /// The places in `records` of the records a tournament command gave the game, each
    /// found for one command only.
    given_by_the_tournament: Vec<usize>,
}

/// What a command is decided again with, besides the tournament before it.
struct Given<'a> {
    powers: &'a [Power],
    id: &'a str,
    results: &'a [GameResult],
    sender: &'a Sender,
}

impl Given<'_> {
    fn decide(
        &self,
        tournament: &Tournament,
        command: &TournamentCommand,
        at: Moment,
        dice: &mut dyn DiceSource,
        game_ids: &[String],
    ) -> Result<Decided, TournamentViolation> {
        let mut ids = game_ids.iter().cloned();
        let mut new_game_id = || ids.next().unwrap_or_default();
        tournament.decide(
            command,
            &mut Context {
                sender: self.sender,
                at,
                dice,
                results: self.results,
                powers: self.powers,
                new_game_id: &mut new_game_id,
            },
        )
    }
}

/// The sender of a recorded command: the actor its metadata names (`director:dora`).
fn sender_of(recorded: &RecordedEvent) -> Option<Sender> {
    Sender::from_actor(recorded.metadata.get("actor")?.as_str()?)
}

/// The sender of a recorded event and the command it is the decision of, once the sender
/// is found allowed to give it (a finding otherwise); `None` when there is nothing more to
/// decide again.
fn sender_allowed(
    ledger: &mut Ledger,
    tournament: &Tournament,
    (version, event): (u64, &TournamentEvent),
    recorded: &RecordedEvent,
) -> Option<(Sender, TournamentCommand)> {
    let Some(sender) = sender_of(recorded) else {
        ledger.fail(
            "commands",
            version,
            "the record does not say who gave the command (its metadata names no actor)",
        );
        return None;
    };
    let allowed = match command_of(event) {
        Some(command) => tournament
            .may_command(&sender, &command)
            .map(|()| Some((sender, command))),
        // A finish recorded without its seed (the commitment check says so): only the
        // sender's right can be checked.
        None if matches!(event, TournamentEvent::TournamentFinished { .. }) => {
            tournament.may_direct(&sender).map(|()| None)
        }
        None => {
            ledger.fail(
                "commands",
                version,
                format!("no command gives {}", event_name(event)),
            );
            return None;
        }
    };
    allowed.unwrap_or_else(|refused| {
        ledger.fail("commands", version, refused.message);
        None
    })
}

/// The command a recorded event is the decision of. The event names everything the
/// command said: the substitute given (or the first waiting, which the event names), the
/// seat the game's rule chose, the constraints, the seed revealed.
fn command_of(event: &TournamentEvent) -> Option<TournamentCommand> {
    Some(match event {
        TournamentEvent::TournamentCreated(_) => return None,
        TournamentEvent::PlayerEntered { player, .. }
        | TournamentEvent::PlayerWaitlisted { player, .. } => TournamentCommand::Enter {
            player: player.clone(),
        },
        TournamentEvent::PlayerDropped { player, .. } => TournamentCommand::Drop {
            player: player.clone(),
        },
        TournamentEvent::RoundSeated(seated) => {
            TournamentCommand::SeatRound(seated.constraints.clone())
        }
        TournamentEvent::SeatsSwapped(swapped) => TournamentCommand::SwapSeats {
            players: swapped.players.clone(),
            reason: swapped.reason.clone(),
        },
        TournamentEvent::SubstituteAppointed(appointed) => TournamentCommand::Substitute {
            game_id: appointed.game_id.clone(),
            power: appointed.power,
            replaced: appointed.replaced.clone(),
            substitute: Some(appointed.substitute.clone()),
        },
        TournamentEvent::TournamentFinished { seed, .. } => TournamentCommand::Finish {
            seed: seed
                .as_deref()
                .and_then(|hex_seed| hex::decode(hex_seed).ok())
                .and_then(|b| <[u8; 32]>::try_from(b).ok())
                .map(GameSeed::from_bytes)?,
        },
    })
}

fn event_name(event: &TournamentEvent) -> String {
    event
        .encode()
        .map(|(event_type, _, _)| event_type.as_str().to_owned())
        .unwrap_or_else(|_| "this event".to_owned())
}

/// When a recorded event says it was decided.
fn at_of(event: &TournamentEvent) -> Moment {
    match event {
        TournamentEvent::TournamentCreated(created) => created.at,
        TournamentEvent::PlayerEntered { at, .. }
        | TournamentEvent::PlayerWaitlisted { at, .. }
        | TournamentEvent::PlayerDropped { at, .. }
        | TournamentEvent::TournamentFinished { at, .. } => *at,
        TournamentEvent::RoundSeated(seated) => seated.at,
        TournamentEvent::SeatsSwapped(swapped) => swapped.at,
        TournamentEvent::SubstituteAppointed(appointed) => appointed.at,
    }
}

/// Decides a recorded command (not a seating) again on the tournament before it, requires
/// the recorded event, and finds on the games' records what it gave them.
fn decide_again(
    ledger: &mut Ledger,
    not_checked: &mut Vec<String>,
    tournament: &Tournament,
    (version, event): (u64, &TournamentEvent),
    command: &TournamentCommand,
    given: &Given<'_>,
    logs: &mut [GameGiven],
) {
    let mut no_dice = RecordedDice::new(&[]);
    let decided = match given.decide(tournament, command, at_of(event), &mut no_dice, &[]) {
        Ok(decided) => decided,
        Err(refused) => {
            if !refused.code.is_forbidden() {
                ledger.fail(
                    "commands",
                    version,
                    format!(
                        "{} could not have been decided: {}",
                        event_name(event),
                        refused.message
                    ),
                );
            }
            return;
        }
    };
    if decided.events.as_slice() != std::slice::from_ref(event) {
        let difference = match (decided.events.as_slice(), event.encode()) {
            ([one], Ok((_, _, recorded))) => one
                .encode()
                .map(|(_, _, decided)| field_difference(&decided, &recorded))
                .unwrap_or_default(),
            _ => "the rules give other events".to_owned(),
        };
        ledger.fail(
            "commands",
            version,
            format!(
                "{} is not what the rules decide: {difference}",
                event_name(event)
            ),
        );
        return;
    }
    for game_command in &decided.game_commands {
        let Some(game) = logs
            .iter_mut()
            .find(|g| g.log.created.game_id == game_command.game_id)
        else {
            not_checked.push(format!(
                "event {version}'s record on game {}: its export was not given",
                game_command.game_id
            ));
            continue;
        };
        if !records(game, given.sender, &game_command.command, event) {
            ledger.fail(
                "commands",
                version,
                format!(
                    "game {} does not record {} from {}, which {} gives it",
                    game_command.game_id,
                    game_command.command.describe(),
                    given.sender,
                    event_name(event)
                ),
            );
        }
    }
}

/// Whether a game's records hold the command from the sender (a record no earlier command
/// was found in), and, for a substitute, the game's rule gave the seat the tournament names
/// (the command names no power: the game replaces the player whose turn is due). The record
/// found is the tournament's from then on.
fn records(
    game: &mut GameGiven,
    sender: &Sender,
    command: &Command,
    event: &TournamentEvent,
) -> bool {
    let found = game
        .records
        .iter()
        .enumerate()
        .position(|(i, (_, record))| {
            !game.given_by_the_tournament.contains(&i)
                && matches!(record, GameStreamEvent::Orders(given)
                if &given.command == command && &given.sender == sender)
        });
    let Some(at) = found else {
        return false;
    };
    let gave_the_seat = match event {
        // The record's events follow it, up to the next record.
        TournamentEvent::SubstituteAppointed(appointed) => game.records[at + 1..]
            .iter()
            .map(|(_, record)| record)
            .take_while(|record| !matches!(record, GameStreamEvent::Orders(_)))
            .any(|record| {
                matches!(record, GameStreamEvent::Played(GameEvent::PlayerReplaced {
                    power, replaced, substitute, ..
                }) if *power == appointed.power
                    && replaced.as_deref() == Some(appointed.replaced.as_str())
                    && *substitute == appointed.substitute)
            }),
        _ => true,
    };
    if gave_the_seat {
        game.given_by_the_tournament.push(at);
    }
    gave_the_seat
}

/// A tournament game's seats change only by the tournament's commands (a swap, a
/// substitute): a seat change on its record that none of them gave is named, at the round
/// that seated the game (`version`).
fn seats_changed_only_by_the_tournament(ledger: &mut Ledger, game: &GameGiven, version: u64) {
    for (i, (at, record)) in game.records.iter().enumerate() {
        let GameStreamEvent::Orders(given) = record else {
            continue;
        };
        let seat_change = matches!(
            given.command,
            Command::TakeSeat { .. } | Command::ReplaceInactivePlayer { .. }
        );
        if seat_change && !game.given_by_the_tournament.contains(&i) {
            ledger.fail(
                "games",
                version,
                format!(
                    "game {} records {} from {} at its event {at}, which no command of the \
                     tournament gives",
                    game.log.created.game_id,
                    given.command.describe(),
                    given.sender
                ),
            );
        }
    }
}

/// Each game of the rounds seated so far, by id, with its export if it was given.
fn seated_games<'a>(
    tournament: &'a Tournament,
    logs: &'a [GameGiven],
) -> impl Iterator<Item = (&'a str, Option<&'a GameGiven>)> {
    tournament.rounds.iter().flat_map(|r| &r.games).map(|g| {
        let given = logs
            .iter()
            .find(|given| given.log.created.game_id == g.game_id);
        (g.game_id.as_str(), given)
    })
}

/// The ids of the games of the rounds seated so far whose exports were not given.
fn games_not_given(tournament: &Tournament, logs: &[GameGiven]) -> Vec<String> {
    seated_games(tournament, logs)
        .filter(|(_, given)| given.is_none())
        .map(|(id, _)| id.to_owned())
        .collect()
}

/// The results of the games of the rounds seated so far. Before a round is seated these
/// are all ended: the rules refuse a seating before.
fn all_results(tournament: &Tournament, logs: &[GameGiven]) -> Vec<GameResult> {
    seated_games(tournament, logs)
        .filter_map(|(_, given)| given)
        .filter_map(|given| result_of(&given.log).ok())
        .collect()
}

/// Seats the round again on the tournament before it, with the seed's dice for the
/// version of its event, and compares.
fn seat_again(
    ledger: &mut Ledger,
    tournament: &Tournament,
    seated: &RoundSeated,
    version: u64,
    seed: &GameSeed,
    given: &Given<'_>,
) {
    let mut dice = seed.dice_for(given.id, version);
    let ids: Vec<String> = seated.games.iter().map(|g| g.game_id.clone()).collect();
    let again = given.decide(
        tournament,
        &TournamentCommand::SeatRound(seated.constraints.clone()),
        seated.at,
        &mut dice,
        &ids,
    );
    match again.as_ref().map(|d| d.events.as_slice()) {
        Ok([TournamentEvent::RoundSeated(decided)]) if **decided == *seated => {}
        Ok([decided]) => {
            let (Ok((_, _, decided)), Ok((_, _, recorded))) = (
                decided.encode(),
                TournamentEvent::RoundSeated(Box::new(seated.clone())).encode(),
            ) else {
                return;
            };
            ledger.fail(
                "seating",
                version,
                format!(
                    "round {} is not the seating the seed gives: {}",
                    seated.round,
                    field_difference(&decided, &recorded)
                ),
            );
        }
        Ok(_) => ledger.fail("seating", version, "the seed's seating gives other events"),
        // The sender's right is the "commands" check's.
        Err(refused) if refused.code.is_forbidden() => {}
        Err(refused) => ledger.fail(
            "seating",
            version,
            format!(
                "round {} could not have been seated: {}",
                seated.round, refused.message
            ),
        ),
    }
}

/// Each of the round's games was created for this tournament, round and table, with the
/// table's seats.
fn check_tables(
    ledger: &mut Ledger,
    seated: &RoundSeated,
    version: u64,
    id: &str,
    logs: &[GameGiven],
) {
    for game in &seated.games {
        let Some(GameGiven { log, .. }) =
            logs.iter().find(|g| g.log.created.game_id == game.game_id)
        else {
            continue;
        };
        let table = seated.seating.tables.iter().find(|t| t.table == game.table);
        let created: &GameCreated = &log.created;
        let expected_by = warlog_events::naming::seated_by(id, seated.round, game.table);
        if created.tournament.as_deref() != Some(id)
            || created.seated_by.as_deref() != Some(expected_by.as_str())
            || table.is_none_or(|t| t.seats != created.seats)
        {
            ledger.fail(
                "games",
                version,
                format!(
                    "game {} was not created with round {} table {}'s seats",
                    game.game_id, seated.round, game.table
                ),
            );
        }
    }
}
