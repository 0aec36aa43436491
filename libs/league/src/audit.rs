//! The tournament auditor: with a tournament's export and its games' exports, and nothing
//! else, it seats every round again from the revealed seed, checks that each game was
//! created with its table's seats, audits each game, and recomputes the standings from
//! the games' results. `warlog audit TOURNAMENT.ndjson GAME.ndjson...` runs it.

use warlog_events::audit::{
    audit_game, check_chain, field_difference, AuditReport, Check, Ledger, Outcome, Verdict,
};
use warlog_events::game::{GameCreated, GameLog};
use warlog_events::{ChainHead, RecordedEvent};
use warlog_rules::dice::GameSeed;
use warlog_rules::ruleset::Ruleset;

use crate::standings::{result_of, standings, GameResult};
use crate::tournament::{
    hex_of, Context, RoundSeated, Tournament, TournamentCommand, TournamentEvent,
};

/// Audits a tournament stream's events with its games' exports (each a whole game stream).
pub fn audit_tournament(
    events: &[RecordedEvent],
    games: &[Vec<RecordedEvent>],
    published_head: Option<&ChainHead>,
) -> AuditReport {
    let mut report = AuditReport::of(events);
    let mut ledger = Ledger::default();
    let mut checks: Vec<Check> = Vec::new();
    let mut not_checked = Vec::new();
    if check_chain(events, published_head, &mut ledger, &mut checks) {
        audit_stream(
            events,
            games,
            &mut ledger,
            &mut checks,
            &mut not_checked,
            &mut report,
        );
    }
    report.finish(ledger, checks, not_checked);
    report
}

fn audit_stream(
    events: &[RecordedEvent],
    games: &[Vec<RecordedEvent>],
    ledger: &mut Ledger,
    checks: &mut Vec<Check>,
    not_checked: &mut Vec<String>,
    report: &mut AuditReport,
) {
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
                return;
            }
        }
    }
    let Some((_, TournamentEvent::TournamentCreated(created))) = decoded.first() else {
        ledger.fail(
            "replay",
            1,
            "a tournament's log starts with TournamentCreated",
        );
        checks.push(ledger.verdict("replay", Verdict::Fail, ""));
        return;
    };
    let id = created.tournament_id.clone();
    let seed = decoded.iter().find_map(|(v, e)| match e {
        TournamentEvent::TournamentFinished {
            seed: Some(seed), ..
        } => Some((*v, seed.clone())),
        _ => None,
    });
    let seed = match seed {
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
    };

    // The games, by id: folded for their results, audited on their own.
    let mut logs: Vec<(GameLog, AuditReport)> = Vec::new();
    for game in games {
        let audit = audit_game(game, None, None);
        match GameLog::fold(game) {
            Ok(log) => logs.push((log, audit)),
            Err(e) => ledger.fail(
                "games",
                e.version,
                format!("a game export given does not fold: {}", e.message),
            ),
        }
    }
    let ruleset = Ruleset::builtin(&created.ruleset).ok();
    let mut tournament = Tournament::new(created.clone());
    let mut seatings = 0;
    for (version, event) in decoded.iter().skip(1) {
        if let TournamentEvent::RoundSeated(seated) = event {
            // A round is seated on the results of the rounds before it: with one of their
            // games not given, its seating cannot be decided again here (not checked, not
            // failed).
            let not_given = games_not_given(&tournament, &logs);
            match (&seed, ruleset) {
                (Some(_), _) if !not_given.is_empty() => not_checked.push(format!(
                    "round {}'s seating: it depends on the results of games not given ({})",
                    seated.round,
                    not_given.join(", ")
                )),
                (Some(seed), Some(ruleset)) => {
                    let results = all_results(&tournament, &logs);
                    seatings += 1;
                    seat_again(
                        ledger,
                        &tournament,
                        seated,
                        *version,
                        seed,
                        ruleset,
                        &id,
                        &results,
                    );
                }
                (Some(_), None) => ledger.fail(
                    "seating",
                    *version,
                    format!(
                        "the ruleset {} is not one this auditor knows",
                        created.ruleset
                    ),
                ),
                (None, _) => {}
            }
            check_tables(ledger, seated, *version, &id, &logs);
        }
        tournament.apply(event);
    }
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

    // Every table's game was given, and passes its own audit.
    let mut missing = Vec::new();
    for round in &tournament.rounds {
        for game in &round.games {
            match logs
                .iter()
                .find(|(log, _)| log.created.game_id == game.game_id)
            {
                None => missing.push(game.game_id.clone()),
                Some((_, audit)) if audit.outcome == Outcome::Failed => {
                    let version = events
                        .iter()
                        .find(|e| {
                            e.event_type.as_str() == "RoundSeated"
                                && e.payload["round"] == round.round
                        })
                        .map_or(1, |e| e.stream_version);
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
            "{} games given, each created with its table's seats and passing its own audit",
            logs.len()
        ),
    ));

    // The standings, from the games' results.
    let results = all_results(&tournament, &logs);
    for row in standings(&tournament, &results) {
        report.notes.push(format!(
            "rank {}: {}, {:.2} points, {} games, {} byes{}",
            row.rank,
            row.player,
            row.points.to_f64(),
            row.games,
            row.byes,
            row.decided_by
                .map(|t| format!(" (below the row above by {})", t.describe()))
                .unwrap_or_default()
        ));
    }
}

/// The ids of the games of the rounds seated so far whose exports were not given.
fn games_not_given(tournament: &Tournament, logs: &[(GameLog, AuditReport)]) -> Vec<String> {
    tournament
        .rounds
        .iter()
        .flat_map(|r| &r.games)
        .filter(|g| !logs.iter().any(|(log, _)| log.created.game_id == g.game_id))
        .map(|g| g.game_id.clone())
        .collect()
}

/// The results of the games of the rounds seated so far. Before a round is seated these
/// are all ended: the rules refuse a seating before.
fn all_results(tournament: &Tournament, logs: &[(GameLog, AuditReport)]) -> Vec<GameResult> {
    tournament
        .rounds
        .iter()
        .flat_map(|r| &r.games)
        .filter_map(|g| {
            logs.iter()
                .find(|(log, _)| log.created.game_id == g.game_id)
        })
        .filter_map(|(log, _)| result_of(log).ok())
        .collect()
}

/// Seats the round again on the tournament before it, with the seed's dice for the
/// version of its event, and compares.
#[allow(clippy::too_many_arguments)]
fn seat_again(
    ledger: &mut Ledger,
    tournament: &Tournament,
    seated: &RoundSeated,
    version: u64,
    seed: &GameSeed,
    ruleset: &Ruleset,
    id: &str,
    results: &[GameResult],
) {
    let mut dice = seed.dice_for(id, version);
    let mut ids = seated.games.iter().map(|g| g.game_id.clone());
    let mut new_game_id = || ids.next().unwrap_or_default();
    let again = tournament.decide(
        &TournamentCommand::SeatRound(seated.constraints.clone()),
        &mut Context {
            at: seated.at,
            dice: &mut dice,
            results,
            powers: ruleset.powers(),
            new_game_id: &mut new_game_id,
        },
    );
    match again.as_deref() {
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
    logs: &[(GameLog, AuditReport)],
) {
    for game in &seated.games {
        let Some((log, _)) = logs
            .iter()
            .find(|(log, _)| log.created.game_id == game.game_id)
        else {
            continue;
        };
        let table = seated.seating.tables.iter().find(|t| t.table == game.table);
        let created: &GameCreated = &log.created;
        let expected_by = format!(
            "tournament-{id} round {} table {}",
            seated.round, game.table
        );
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
