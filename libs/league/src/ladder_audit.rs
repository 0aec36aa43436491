//! The league auditor: with a published points ladder (`GET /v1/leaderboards/points` as
//! JSON, with its ruleset and season) and the exports of the games it ranks, and nothing
//! else, it audits each game, recomputes every player's points, games, wins and title from
//! the games' placements, and names the first row of the ladder that differs.
//!
//! There is no league stream to replay: the ladder is a read model of the games'
//! placements, so the games' exports are its record and the published ladder is the claim
//! checked against them.
//!
//! A game counts by its own rule ([`GameLog::status`]): one that ended before every seated
//! power had played a turn of its own is aborted and rated for nobody, so its points on a
//! ladder are a discrepancy. So is one in which a seated power's player never gave an
//! order in person (the game master gave them all): played by its game master alone, it
//! is rated for nobody, and a ladder that counts it fails, naming the game.

use std::collections::BTreeMap;

use serde::Deserialize;
use warlog_events::audit::{audit_game, AuditReport, Check, Ledger, Outcome, Verdict};
use warlog_events::game::{
    join_names, placed_twice, power_names, GameCreated, GameLog, GameStatus, GameStreamEvent,
    PlacementRow,
};
use warlog_events::RecordedEvent;
use warlog_rules::game::GameEvent;
use warlog_rules::scoring::{Fraction, Title};
use warlog_rules::words::counted;

/// The most rows a ladder page holds (`limit` is at most 200).
const MAX_PAGE_ROWS: usize = 200;

/// A page of a published ladder, as `GET /v1/leaderboards/points` serves it.
#[derive(Debug, Clone, Deserialize)]
pub struct PublishedLadder {
    pub ladder: String,
    pub ruleset: String,
    /// The calendar year of the games' ends; none for all of them.
    pub season: Option<i32>,
    pub rows: Vec<PublishedRow>,
}

/// One row of a published ladder.
#[derive(Debug, Clone, Deserialize)]
pub struct PublishedRow {
    pub position: u64,
    pub player: String,
    /// Exact (`116/15`); a ladder published before it had `points_exact` gave it as
    /// `points`.
    #[serde(default)]
    pub points_exact: Option<String>,
    /// Points as a decimal (a fraction's text in ladders published before
    /// `points_exact`).
    #[serde(default)]
    pub points: serde_json::Value,
    pub title: String,
    pub games: i32,
    /// Exact (`3/2`): a shared first place is a share of a win.
    pub wins_exact: String,
}

/// A player's line, recomputed.
#[derive(Debug, Clone, PartialEq)]
struct Line {
    player: String,
    points: Fraction,
    games: i32,
    wins: Fraction,
    /// When the total was last changed: (GameEnded time, game id).
    reached: (u64, String),
}

impl PublishedRow {
    /// The row's exact points: `points_exact`, or (published before it) `points`' text.
    pub fn exact_points(&self) -> Option<&str> {
        self.points_exact
            .as_deref()
            .or_else(|| self.points.as_str())
    }
}

/// Audits a published points ladder (its pages, in order) against the games' exports.
pub fn audit_ladder(pages: &[PublishedLadder], games: &[Vec<RecordedEvent>]) -> AuditReport {
    let mut report = AuditReport::of(&[]);
    let mut ledger = Ledger::default();
    let mut checks: Vec<Check> = Vec::new();
    let mut not_checked = Vec::new();
    let Some(first) = pages.first() else {
        ledger.fail_row("ladder", 1, "no ladder was given");
        report.finish(ledger, vec![], not_checked);
        return report;
    };
    report.stream_id = Some(format!(
        "the {} ladder of {}, {}",
        first.ladder,
        first.ruleset,
        first
            .season
            .map_or_else(|| "all seasons".to_owned(), |s| format!("season {s}"))
    ));
    report.events = games.iter().map(Vec::len).sum();
    if first.ladder != "points" {
        ledger.fail_row(
            "ladder",
            1,
            format!(
                "the {} ladder is not one this auditor recomputes (points is)",
                first.ladder
            ),
        );
    }

    let GamesRead {
        mut finished,
        failed,
        aborted,
        aborted_games,
        master_only_games,
    } = read_games(first, games, &mut ledger, &mut report);
    checks.push(ledger.verdict(
        "games",
        Verdict::Pass,
        format!(
            "{} given pass their own audits; {} ended rated in this ladder's ruleset and \
             season, {aborted_games} aborted and {master_only_games} played by the game \
             master alone (neither rated)",
            counted((games.len() - failed) as u64, "game", "games"),
            finished.len()
        ),
    ));
    let ladder = recompute(&mut finished);
    // The ladder's leader: the one Commander of CT if at 23 or more ([`Title::in_ladder`]).
    let leader = ladder.first().map(|l| l.player.clone());

    let published: Vec<&PublishedRow> = pages.iter().flat_map(|p| &p.rows).collect();
    let full_last_page = pages.last().is_some_and(|p| p.rows.len() >= MAX_PAGE_ROWS);
    compare(
        &mut ledger,
        &ladder,
        &published,
        full_last_page,
        leader.as_deref(),
        &aborted,
    );
    checks.push(ledger.verdict(
        "ladder",
        Verdict::Pass,
        format!(
            "{} rows: points, games, wins and titles are the games' placements'",
            published.len()
        ),
    ));
    // A full last page may be followed by more: the rows past it are not compared.
    if published.len() < ladder.len() && full_last_page {
        not_checked.push("the ladder's later pages: give every page with --ladder".to_owned());
    }
    for line in &ladder {
        report.notes.push(format!(
            "{}: {:.2} points ({}), {}, {:.2} wins, {}",
            line.player,
            line.points.to_f64(),
            line.points,
            counted(u64::try_from(line.games).unwrap_or(0), "game", "games"),
            line.wins.to_f64(),
            title(line, leader.as_deref()).name()
        ));
    }
    report.finish(ledger, checks, not_checked);
    report
}

/// The games given, as the ladder reads them.
struct GamesRead {
    /// The rated games that ended in the ladder's ruleset and season: when each ended, its
    /// id and its placements.
    finished: Vec<(u64, String, Vec<PlacementRow>)>,
    /// How many fail their own audit.
    failed: usize,
    /// The ladder's games not rated (aborted, or played by the game master alone), by
    /// player.
    aborted: BTreeMap<String, Vec<String>>,
    aborted_games: usize,
    master_only_games: usize,
}

/// Each game: its own audit, whose placements (the board replayed) are the ladder's input
/// if the game ended in this ruleset and season.
fn read_games(
    first: &PublishedLadder,
    games: &[Vec<RecordedEvent>],
    ledger: &mut Ledger,
    report: &mut AuditReport,
) -> GamesRead {
    let mut finished: Vec<(u64, String, Vec<PlacementRow>)> = Vec::new();
    let mut failed = 0;
    // The ladder's games not rated (aborted, or played by the game master alone), by
    // player, and how many of each.
    let mut aborted: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut aborted_games = 0;
    let mut master_only_games = 0;
    for game in games {
        let audit = audit_game(game, None, None);
        let id = audit.stream_id.clone().unwrap_or_default();
        if audit.outcome == Outcome::Failed {
            failed += 1;
            let first = audit.findings.first();
            ledger.fail(
                "games",
                first.map_or(1, |f| f.event),
                format!(
                    "{id} fails its own audit: {}",
                    first.map_or_else(String::new, |f| f.message.clone())
                ),
            );
            continue;
        }
        let (Some(ended), Some(created)) = (ended_at(game), created_of(game)) else {
            continue;
        };
        if created.ruleset != first.ruleset
            || first.season.is_some_and(|s| s != season_of_end(ended))
        {
            continue;
        }
        // The game's own audit has folded it already; a fold that fails here is one it
        // failed.
        let Ok(log) = GameLog::fold(game) else {
            continue;
        };
        match (log.status(), audit.placements) {
            // Not rated by the game's own rule: aborted, or played by its game master
            // alone (a seated player never gave an order in person).
            (GameStatus::Aborted | GameStatus::MasterOnly, _) => {
                for seat in log.state.seats.values() {
                    aborted
                        .entry(seat.player.clone())
                        .or_default()
                        .push(created.game_id.clone());
                }
                report
                    .notes
                    .push(format!("{id}: {}", log.why_not_rated().unwrap_or_default()));
                if log.status() == GameStatus::Aborted {
                    aborted_games += 1;
                } else {
                    master_only_games += 1;
                }
            }
            // The game's own audit checked its placements; the ladder takes them as
            // players are scored (results follow play), as the league's projection does,
            // and skips, as it does, a game that places one player twice.
            (GameStatus::Ended, Some(_)) => {
                // Created before the rule, it keeps its rating; the record still says who
                // never played in person, for a reader to look at.
                let silent = power_names(&log.not_played_in_person());
                if !created.played_in_person && !silent.is_empty() {
                    report.notes.push(format!(
                        "{id}: created before a rated game needed its players, it keeps its \
                         rating; {} never played in person",
                        join_names(&silent)
                    ));
                }
                if let Some(Ok(rows)) = log.scored_placements() {
                    match placed_twice(&rows) {
                        Some(reason) => report
                            .notes
                            .push(format!("{id}: not on the ladder (seated-twice): {reason}")),
                        None => finished.push((ended, created.game_id, rows)),
                    }
                }
            }
            _ => {}
        }
    }
    GamesRead {
        finished,
        failed,
        aborted,
        aborted_games,
        master_only_games,
    }
}

/// The ladder, recomputed in the order the games ended.
fn recompute(finished: &mut [(u64, String, Vec<PlacementRow>)]) -> Vec<Line> {
    finished.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let mut lines: BTreeMap<String, Line> = BTreeMap::new();
    for (ended, game_id, rows) in finished.iter() {
        for row in rows {
            let (Some(player), Ok(points)) =
                (row.player.clone(), row.points_exact.parse::<Fraction>())
            else {
                continue;
            };
            let line = lines.entry(player.clone()).or_insert_with(|| Line {
                player,
                points: Fraction::whole(0),
                games: 0,
                wins: Fraction::whole(0),
                reached: (*ended, game_id.clone()),
            });
            if points != Fraction::whole(0) {
                line.points = line.points + points;
                line.reached = (*ended, game_id.clone());
            }
            line.games += 1;
            line.wins = line.wins + crate::wins::win_share(row.place, row.tied_with, rows.len());
        }
    }
    let mut ladder: Vec<Line> = lines.into_values().collect();
    ladder.sort_by(|a, b| {
        b.points
            .cmp(&a.points)
            .then_with(|| a.reached.cmp(&b.reached))
            .then_with(|| a.player.cmp(&b.player))
    });
    ladder
}

fn title(line: &Line, leader: Option<&str>) -> Title {
    Title::in_ladder(line.points, leader == Some(line.player.as_str()))
}

/// Names the first published row that is not the recomputed one. Players level on points
/// whose totals were reached in the same second may stand in either order.
fn compare(
    ledger: &mut Ledger,
    ladder: &[Line],
    published: &[&PublishedRow],
    full_last_page: bool,
    leader: Option<&str>,
    aborted: &BTreeMap<String, Vec<String>>,
) {
    // Points that came from a game not rated are the likeliest cause of a difference.
    let unrated = |player: &str| {
        aborted.get(player).map_or_else(String::new, |games| {
            format!(
                " (games not rated count for nothing: {} sat in {})",
                player,
                games.join(", ")
            )
        })
    };
    for (i, row) in published.iter().enumerate() {
        let position = i as u64 + 1;
        let Some(line) = ladder.iter().find(|l| l.player == row.player) else {
            ledger.fail_row(
                "ladder",
                position,
                format!(
                    "{} has no rated game in this ruleset and season{}",
                    row.player,
                    unrated(&row.player)
                ),
            );
            return;
        };
        let expected = &ladder[i.min(ladder.len() - 1)];
        let same_place = expected.player == row.player
            || (expected.points == line.points && expected.reached.0 == line.reached.0);
        let points = row.exact_points().and_then(|p| p.parse::<Fraction>().ok());
        let problem = if row.position != position {
            Some(format!(
                "it says position {}, but it is row {position}",
                row.position
            ))
        } else if points != Some(line.points) {
            Some(format!(
                "{} has {} points in the ladder, {:.2} ({}) from the games{}",
                row.player,
                points.map_or_else(|| row.points.to_string(), |p| format!("{:.2}", p.to_f64())),
                line.points.to_f64(),
                line.points,
                unrated(&row.player)
            ))
        } else if !same_place {
            Some(format!(
                "{} stands here in the ladder; the games put {} here",
                row.player, expected.player
            ))
        } else if (row.games, row.wins_exact.parse::<Fraction>().ok())
            != (line.games, Some(line.wins))
        {
            Some(format!(
                "{} has {} games and {} wins in the ladder, {} and {:.2} from the games{}",
                row.player,
                row.games,
                row.wins_exact,
                line.games,
                line.wins.to_f64(),
                unrated(&row.player)
            ))
        } else if row.title != title(line, leader).name() {
            Some(format!(
                "{} is titled {} in the ladder, {} by the points",
                row.player,
                row.title,
                title(line, leader).name()
            ))
        } else {
            None
        };
        if let Some(problem) = problem {
            ledger.fail_row("ladder", position, problem);
            return;
        }
    }
    if published.len() < ladder.len() && !full_last_page {
        let missing = &ladder[published.len()];
        ledger.fail_row(
            "ladder",
            published.len() as u64 + 1,
            format!(
                "the ladder ends here, but {} has finished games in it",
                missing.player
            ),
        );
    }
}

/// The game's first event.
fn created_of(events: &[RecordedEvent]) -> Option<GameCreated> {
    match events.first().map(warlog_events::game::decode_recorded) {
        Some(Ok(GameStreamEvent::Created(created))) => Some(created),
        _ => None,
    }
}

/// When the game ended (its `GameEnded`), in Unix seconds.
fn ended_at(events: &[RecordedEvent]) -> Option<u64> {
    events
        .iter()
        .rev()
        .find_map(|e| match warlog_events::game::decode_recorded(e) {
            Ok(GameStreamEvent::Played(GameEvent::GameEnded { at, .. })) => Some(at.unix_seconds()),
            _ => None,
        })
}

/// The season of a game that ended at `seconds` (Unix, as the log records it).
fn season_of_end(seconds: u64) -> i32 {
    crate::season::season_of(i64::try_from(seconds).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use warlog_events::orders::Command;
    use warlog_events::sample::{SampleGame, GAME_MASTER};
    use warlog_events::sender::{Role, Sender};
    use warlog_rules::board::Power;
    use warlog_rules::dice::GameSeed;
    use warlog_rules::game::named::NamedOrder;
    use warlog_rules::game::Phase;
    use warlog_rules::ruleset::Ruleset;

    /// A Cut-Throat game of ann, bob, cy, di and ed.
    fn a_game(id: &str) -> SampleGame {
        let ruleset = Ruleset::builtin("cutthroat").expect("built in");
        SampleGame::new(ruleset, id, GameSeed::from_bytes([9; 32]), 1)
    }

    /// Every power ends each phase of its first turn, its orders given by its player when
    /// `by_its_player` says so for it, else by the game master; then the game master ends
    /// the game.
    fn a_quiet_round_then_the_end(
        id: &str,
        by_its_player: impl Fn(Power) -> bool,
    ) -> Vec<RecordedEvent> {
        let mut game = a_game(id);
        for _ in Power::CLASSIC {
            let power = game.log.state.power(&game.log.ruleset.board);
            let sender = if by_its_player(power) {
                Sender {
                    role: Role::Player,
                    name: game.log.state.seats[&power].player.clone(),
                }
            } else {
                Sender {
                    role: Role::Gm,
                    name: GAME_MASTER.into(),
                }
            };
            let orders = vec![NamedOrder::EndPhase; Phase::ALL.len()];
            assert!(game.send(sender, Command::Orders { power, orders }));
        }
        assert!(game.end());
        game.recorded()
    }

    /// Created and ended at once, nobody having moved: the farmed game.
    fn ended_before_anyone_moved(id: &str) -> Vec<RecordedEvent> {
        let mut game = a_game(id);
        assert!(game.end());
        game.recorded()
    }

    /// The lifetime points ladder of ann, bob, cy, di and ed, all level on `points` after
    /// `games` games none of them won.
    fn five_level(points: &str, games: i32) -> PublishedLadder {
        let total = points.parse::<Fraction>().expect("a fraction");
        PublishedLadder {
            ladder: "points".into(),
            ruleset: "cutthroat".into(),
            season: None,
            rows: ["ann", "bob", "cy", "di", "ed"]
                .iter()
                .enumerate()
                .map(|(i, player)| PublishedRow {
                    position: i as u64 + 1,
                    player: (*player).into(),
                    points_exact: Some(points.into()),
                    points: serde_json::json!(total.to_f64()),
                    title: Title::for_total(total).name().into(),
                    games,
                    wins_exact: "0".into(),
                })
                .collect(),
        }
    }

    /// The report fails at the first row, ann's two games' points where the games give
    /// one's, naming the game not rated she sat in.
    fn fails_at_anns_row_naming(report: &AuditReport, game: &str) {
        assert_eq!(report.outcome, Outcome::Failed);
        let finding = &report.findings[0];
        assert_eq!(finding.event, 1, "the first row");
        let says = format!(
            "ann has 2.80 points in the ladder, 1.40 (7/5) from the games (games not rated \
             count for nothing: ann sat in {game})"
        );
        assert!(finding.message.contains(&says), "{}", finding.message);
    }

    #[test]
    fn an_aborted_game_counts_for_nothing_and_its_points_on_the_ladder_are_named() {
        // Given a game played for a round and ended (a five-way tie: 7/5 each), and a game
        // ended before anyone moved,
        let games = vec![
            a_quiet_round_then_the_end("played", |_| true),
            ended_before_anyone_moved("farmed"),
        ];
        // when the ladder counts only the played game, it passes, the aborted one noted;
        let honest = audit_ladder(&[five_level("7/5", 1)], &games);
        assert_ne!(honest.outcome, Outcome::Failed, "{:?}", honest.findings);
        assert!(
            honest
                .notes
                .iter()
                .any(|n| n.contains("game-farmed") && n.contains("aborted, not rated")),
            "{:?}",
            honest.notes
        );
        // when it counts the aborted game's points too, the first row is a discrepancy.
        let farmed = audit_ladder(&[five_level("14/5", 2)], &games);
        fails_at_anns_row_naming(&farmed, "farmed");
    }

    #[test]
    fn a_ladder_that_rates_a_game_its_game_master_played_alone_fails_naming_the_game() {
        // Given a round the game master played for every power, and a round the players
        // played themselves,
        let games = vec![
            a_quiet_round_then_the_end("by-the-master", |_| false),
            a_quiet_round_then_the_end("by-the-players", |_| true),
        ];
        // when the ladder counts only the players' game, it passes, the other noted;
        let honest = audit_ladder(&[five_level("7/5", 1)], &games);
        assert_ne!(honest.outcome, Outcome::Failed, "{:?}", honest.findings);
        assert!(
            honest.notes.iter().any(|n| n.contains("game-by-the-master")
                && n.contains("played by its game master alone, not rated")),
            "{:?}",
            honest.notes
        );
        // when a forged ladder counts both, the first row fails, naming the game.
        let forged = audit_ladder(&[five_level("14/5", 2)], &games);
        fails_at_anns_row_naming(&forged, "by-the-master");
    }

    #[test]
    fn one_accomplice_does_not_rate_a_game_the_game_master_played_for_the_rest() {
        // Given a round in which only Russia's player gave orders, the game master the
        // other four powers',
        let games = vec![a_quiet_round_then_the_end("accomplice", |power| {
            power == Power::Russia
        })];
        // when the ladder is empty, it passes, and the game is noted by power;
        let report = audit_ladder(&[five_level("0", 0)], &games);
        assert!(
            report.notes.iter().any(|n| n
                == "game-accomplice: played by its game master alone, not rated: the \
                    players of Germany, United Kingdom, Japan and United States gave no \
                    order in person, by their own token, by mail or through a proxy they \
                    named"),
            "{:?}",
            report.notes
        );
        // when the ladder counts it, it fails.
        let forged = audit_ladder(&[five_level("7/5", 1)], &games);
        assert_eq!(forged.outcome, Outcome::Failed, "{:?}", forged.notes);
    }
}
