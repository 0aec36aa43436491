//! A tournament's standings: points by the tournament's table of points per place (tied
//! places share their average), byes, then the director's tiebreakers in order, each
//! applied only among the players still tied. Every row says which tiebreaker placed it
//! below the row above, so nobody has to guess.

use std::cmp::Ordering;

use warlog_rules::board::Power;
use warlog_rules::scoring::{assign_titles, Fraction, PointsTable, Standing, Title};

use crate::tournament::{EntrantStatus, Tiebreaker, Tournament};
use warlog_events::game::{GameLog, GameStatus};

/// A finished (or running) tournament game, as the standings need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameResult {
    pub game_id: String,
    pub ended: bool,
    /// Whether a player's order is on its record (its seats then stand).
    pub begun: bool,
    /// One row per seat, for the player holding it at the end; empty while running and
    /// for a game that is not rated.
    pub rows: Vec<ResultRow>,
    /// Set for a game that ended and is not rated ([`GameLog::status`]: voided or
    /// aborted): why, and who sat at it at the end. Its players are shown with the game,
    /// for no points.
    pub not_rated: Option<NotRated>,
}

/// An ended game that counts for nobody.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotRated {
    /// [`GameStatus::Voided`], [`GameStatus::Aborted`] or [`GameStatus::MasterOnly`].
    pub status: GameStatus,
    pub seats: Vec<(Power, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultRow {
    pub player: String,
    pub power: Power,
    pub place: usize,
    pub tied_with: usize,
    pub percent_gain: Fraction,
}

/// One round of one player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundResult {
    pub round: u32,
    /// None for a bye.
    pub game_id: Option<String>,
    pub power: Option<Power>,
    pub place: Option<usize>,
    pub points: Fraction,
    pub percent_gain: Fraction,
    /// Set when the game ended and is not rated (aborted or voided): no place, no points,
    /// and not counted among the player's games.
    pub not_rated: Option<GameStatus>,
}

/// A player's line in the standings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandingRow {
    /// 1-based. Players nothing separates share a rank: before a tournament's finish,
    /// whose draw separates the last ties, they are shown tied.
    pub rank: usize,
    pub player: String,
    pub status: EntrantStatus,
    pub points: Fraction,
    pub percent_gain: Fraction,
    /// The most points in one game.
    pub best_result: Option<Fraction>,
    pub games: u32,
    /// Sole first places, and shares of shared ones ([`crate::wins::win_share`]).
    pub wins: Fraction,
    pub byes: u32,
    /// The Cut-Throat title these points earn (one Commander of CT).
    pub title: Title,
    pub results: Vec<RoundResult>,
    /// The tiebreaker that put this row below the one above (None for the first row).
    pub decided_by: Option<Tiebreaker>,
}

/// A game's result as the standings need it, from its folded log. Whether it counts is
/// the game's own [`GameLog::status`]: a voided or an aborted game gives no points.
pub fn result_of(log: &GameLog) -> Result<GameResult, String> {
    let game_id = log.created.game_id.clone();
    let begun = log.orders_given > 0;
    let status = log.status();
    match status {
        GameStatus::Running => {
            return Ok(GameResult {
                game_id,
                ended: false,
                begun,
                rows: Vec::new(),
                not_rated: None,
            })
        }
        GameStatus::Voided | GameStatus::Aborted | GameStatus::MasterOnly => {
            // Over, and counted for nobody: no rows, no points.
            return Ok(GameResult {
                game_id,
                ended: true,
                begun,
                rows: Vec::new(),
                not_rated: Some(NotRated {
                    status,
                    seats: log
                        .state
                        .seats
                        .iter()
                        .map(|(power, seat)| (*power, seat.player.clone()))
                        .collect(),
                }),
            });
        }
        GameStatus::Ended => {}
    }
    // Results follow play: who takes each result is the one rule of `scored_placements`.
    let Some(placed) = log.scored_placements() else {
        return Err("a rated game has no placements".to_owned());
    };
    let rows = placed?
        .into_iter()
        .filter_map(|row| {
            Some(ResultRow {
                player: row.player?,
                power: row.power,
                place: row.place,
                tied_with: row.tied_with,
                percent_gain: row.percent_gain_exact.parse::<Fraction>().ok()?,
            })
        })
        .collect();
    Ok(GameResult {
        game_id,
        ended: true,
        begun,
        rows,
        not_rated: None,
    })
}

/// The standings after the results so far, the last ties broken by the tournament's
/// tie-break draw ([`Tournament::tie_break_draw`]: none before the finish).
pub fn standings(tournament: &Tournament, results: &[GameResult]) -> Vec<StandingRow> {
    ranked(tournament, results, tournament.tie_break_draw())
}

/// The order a round is seated in (best first; byes go to the lowest): the standings, the
/// last ties broken by the latest round's draw, public since that round was seated.
pub(crate) fn seating_order(tournament: &Tournament, results: &[GameResult]) -> Vec<StandingRow> {
    ranked(tournament, results, tournament.last_round_draw())
}

fn ranked(tournament: &Tournament, results: &[GameResult], draw: &[String]) -> Vec<StandingRow> {
    let points_table = PointsTable::new(tournament.created.points_per_place.clone());
    let mut rows: Vec<StandingRow> = Vec::new();
    let row_of = |player: &str, rows: &mut Vec<StandingRow>| -> usize {
        if let Some(i) = rows.iter().position(|r| r.player == player) {
            return i;
        }
        let status = tournament
            .entrants
            .iter()
            .rev()
            .find(|e| e.player == player)
            .map_or(EntrantStatus::Playing, |e| e.status);
        rows.push(StandingRow {
            rank: 0,
            player: player.to_owned(),
            status,
            points: Fraction::whole(0),
            percent_gain: Fraction::whole(0),
            best_result: None,
            games: 0,
            wins: Fraction::whole(0),
            byes: 0,
            title: Title::Enlisted,
            results: Vec::new(),
            decided_by: None,
        });
        rows.len() - 1
    };
    for entrant in &tournament.entrants {
        row_of(&entrant.player, &mut rows);
    }
    // When each total was reached, for the one Commander of CT: (round, table) order.
    let mut reached: Vec<u64> = vec![0; rows.len()];
    for seated in &tournament.rounds {
        for bye in &seated.seating.byes {
            let i = row_of(&bye.player, &mut rows);
            let row = &mut rows[i];
            row.byes += 1;
            row.points = row.points + Fraction::whole(bye.points);
            row.results.push(RoundResult {
                round: seated.round,
                game_id: None,
                power: None,
                place: None,
                points: Fraction::whole(bye.points),
                percent_gain: Fraction::whole(0),
                not_rated: None,
            });
        }
        for game in &seated.games {
            let Some(result) = results
                .iter()
                .find(|r| r.game_id == game.game_id && r.ended)
            else {
                continue;
            };
            // Shown with the game, for nothing: not a game played, no points.
            for (power, player) in result.not_rated.iter().flat_map(|n| &n.seats) {
                let i = row_of(player, &mut rows);
                rows[i].results.push(RoundResult {
                    round: seated.round,
                    game_id: Some(game.game_id.clone()),
                    power: Some(*power),
                    place: None,
                    points: Fraction::whole(0),
                    percent_gain: Fraction::whole(0),
                    not_rated: result.not_rated.as_ref().map(|n| n.status),
                });
            }
            for line in &result.rows {
                let i = row_of(&line.player, &mut rows);
                let points = points_table.shared(line.place, line.tied_with);
                let row = &mut rows[i];
                row.games += 1;
                row.wins = row.wins
                    + crate::wins::win_share(
                        line.place,
                        line.tied_with,
                        tournament.created.table_size as usize,
                    );
                row.points = row.points + points;
                row.percent_gain = row.percent_gain + line.percent_gain;
                row.best_result = Some(row.best_result.map_or(points, |b| b.max(points)));
                row.results.push(RoundResult {
                    round: seated.round,
                    game_id: Some(game.game_id.clone()),
                    power: Some(line.power),
                    place: Some(line.place),
                    points,
                    percent_gain: line.percent_gain,
                    not_rated: None,
                });
                reached.resize(rows.len(), 0);
                reached[i] = u64::from(seated.round) * 1_000 + u64::from(game.table);
            }
        }
    }
    reached.resize(rows.len(), 0);
    let titles = assign_titles(
        &rows
            .iter()
            .enumerate()
            .map(|(i, r)| Standing {
                player: i,
                total: r.points,
                reached_at: reached[i],
            })
            .collect::<Vec<_>>(),
    );
    for (i, title) in titles {
        rows[i].title = title;
    }
    let mut criteria: Vec<Tiebreaker> = vec![Tiebreaker::TotalPoints];
    for t in &tournament.created.tiebreakers {
        if !criteria.contains(t) {
            criteria.push(*t);
        }
    }
    if !criteria.contains(&Tiebreaker::Draw) {
        criteria.push(Tiebreaker::Draw);
    }
    let mut order: Vec<usize> = (0..rows.len()).collect();
    // Ties nothing breaks are listed in name order (stable and visible), sharing a rank.
    order.sort_by(|&a, &b| rows[a].player.cmp(&rows[b].player));
    let mut decided: Vec<Option<Tiebreaker>> = vec![None; rows.len()];
    rank_group(
        &rows,
        results,
        draw,
        &criteria,
        &mut order[..],
        &mut decided,
    );
    let mut rank_above = 0;
    for (position, &i) in order.iter().enumerate() {
        let decided_by = if position == 0 { None } else { decided[i] };
        // Nothing set this row apart from the one above: a tie, shown as one.
        rows[i].rank = if position > 0 && decided_by.is_none() {
            rank_above
        } else {
            position + 1
        };
        rank_above = rows[i].rank;
        rows[i].decided_by = decided_by;
    }
    let mut ranked: Vec<StandingRow> = order.iter().map(|&i| rows[i].clone()).collect();
    ranked.sort_by_key(|r| r.rank);
    ranked
}

/// Orders `group` (players tied on every earlier criterion) by `criteria[0]`, then each
/// run still tied by the next, recording which criterion separated each player from the
/// one above.
fn rank_group(
    rows: &[StandingRow],
    results: &[GameResult],
    draw: &[String],
    criteria: &[Tiebreaker],
    group: &mut [usize],
    decided: &mut [Option<Tiebreaker>],
) {
    let Some((&criterion, rest)) = criteria.split_first() else {
        return;
    };
    if group.len() < 2 {
        return;
    }
    let head_to_head: Vec<i64> = if criterion == Tiebreaker::HeadToHead {
        let players: Vec<&str> = group.iter().map(|&i| rows[i].player.as_str()).collect();
        group
            .iter()
            .map(|&i| head_to_head(&rows[i].player, &players, results))
            .collect()
    } else {
        Vec::new()
    };
    let key = |position: usize, i: usize| -> Key {
        let row = &rows[i];
        match criterion {
            Tiebreaker::TotalPoints => Key::Fraction(row.points),
            Tiebreaker::TotalPercentGain => Key::Fraction(row.percent_gain),
            Tiebreaker::BestResult => {
                Key::Fraction(row.best_result.unwrap_or(Fraction::whole(i64::MIN / 4)))
            }
            Tiebreaker::HeadToHead => Key::Whole(head_to_head[position]),
            Tiebreaker::Draw => Key::Whole(
                -(draw
                    .iter()
                    .position(|p| *p == row.player)
                    .map_or(i64::MAX / 2, |p| p as i64)),
            ),
        }
    };
    let mut keyed: Vec<(Key, usize)> = group
        .iter()
        .enumerate()
        .map(|(position, &i)| (key(position, i), i))
        .collect();
    keyed.sort_by_key(|k| std::cmp::Reverse(k.0));
    for (slot, (_, i)) in group.iter_mut().zip(&keyed) {
        *slot = *i;
    }
    let mut start = 0;
    while start < keyed.len() {
        let end = keyed[start..]
            .iter()
            .position(|(k, _)| *k != keyed[start].0)
            .map_or(keyed.len(), |offset| start + offset);
        rank_group(rows, results, draw, rest, &mut group[start..end], decided);
        if start > 0 {
            // After the inner ordering: whoever now leads this run was set apart by this
            // criterion from the run above.
            decided[group[start]] = Some(criterion);
        }
        start = end;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Fraction(Fraction),
    Whole(i64),
}

/// Games in which `player` finished ahead of another of `group`, less those behind.
fn head_to_head(player: &str, group: &[&str], results: &[GameResult]) -> i64 {
    let mut score = 0;
    for result in results.iter().filter(|r| r.ended) {
        let Some(mine) = result.rows.iter().find(|r| r.player == player) else {
            continue;
        };
        for other in &result.rows {
            if other.player != player && group.contains(&other.player.as_str()) {
                score += match mine.place.cmp(&other.place) {
                    Ordering::Less => 1,
                    Ordering::Greater => -1,
                    Ordering::Equal => 0,
                };
            }
        }
    }
    score
}
