//! The league read models: players, the results of finished games, and the two ladders
//! (Cut-Throat points with titles; the Plackett-Luce skill rating), lifetime and per
//! season, per ruleset. The `league` projector keeps them from the event log; each ladder
//! row keeps its history, so any page can be read as of the league's state when a reader
//! began paging.

use deadpool_postgres::{GenericClient, Transaction};
use serde::Serialize;
use warlog_events::game::{decode_recorded, placed_twice, GameStreamEvent};
use warlog_events::{RecordedEvent, StreamCategory};
use warlog_league::players::PlayerEvent;
use warlog_league::rating::{Rating, SkillModel};
use warlog_league::wins::win_share;
use warlog_rules::game::GameEvent;
use warlog_rules::scoring::Fraction;

use crate::projector::Projection;
use crate::StoreError;

/// Points are stored times this: every share of a tie of up to ten places is whole.
pub const POINTS_SCALE: i64 = 2520;

/// Which ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ladder {
    Points,
    Skill,
}

impl Ladder {
    pub fn as_str(self) -> &'static str {
        match self {
            Ladder::Points => "points",
            Ladder::Skill => "skill",
        }
    }
}

/// Points as stored, back to an exact fraction.
pub fn points_of(scaled: i64) -> Fraction {
    Fraction::new(scaled, POINTS_SCALE).unwrap_or(Fraction::whole(0))
}

fn scaled(points: Fraction) -> i64 {
    points.numerator() * (POINTS_SCALE / points.denominator().max(1))
}

/// The projection that keeps the league tables.
#[derive(Debug, Clone, Copy, Default)]
pub struct League {
    pub model: SkillModel,
}

impl Projection for League {
    fn name(&self) -> &'static str {
        "league"
    }

    async fn reset(&self, tx: &Transaction<'_>) -> Result<(), StoreError> {
        tx.batch_execute(
            "DELETE FROM players; DELETE FROM league_results; DELETE FROM ladder_rows; \
             DELETE FROM ladder_heads; DELETE FROM league_skipped_games;",
        )
        .await?;
        Ok(())
    }

    async fn apply(&self, tx: &Transaction<'_>, event: &RecordedEvent) -> Result<(), StoreError> {
        match event.stream_id.category() {
            StreamCategory::Player => {
                let corrupt = |e: warlog_events::EventDecodeError| {
                    StoreError::Corrupt(format!("{}: {e}", event.stream_id))
                };
                let PlayerEvent::PlayerRegistered {
                    handle,
                    display_name,
                    ..
                } = PlayerEvent::decode(event.event_type.as_str(), &event.payload)
                    .map_err(corrupt)?;
                let at = event
                    .metadata
                    .get("recorded_at")
                    .and_then(|v| v.as_str())
                    .unwrap_or("1970-01-01T00:00:00Z");
                tx.execute(
                    "INSERT INTO players (handle, display_name, registered_at) \
                     VALUES ($1, $2, ($3::text)::timestamptz) ON CONFLICT (handle) DO NOTHING",
                    &[&handle.as_str(), &display_name.as_str(), &at],
                )
                .await?;
                Ok(())
            }
            StreamCategory::Game if event.event_type.as_str() == "GameEnded" => {
                self.game_ended(tx, event).await
            }
            _ => Ok(()),
        }
    }
}

/// One finished game, as the ladders take it.
#[derive(Debug, Clone)]
struct Finished {
    game_id: String,
    ruleset: String,
    season: i32,
    tournament: Option<String>,
    ended_at: i64,
    /// (player, power, place, tied_with, points, percent gain)
    seats: Vec<(String, String, usize, usize, Fraction, String, f64)>,
    /// (player, power) of who sat at a seat and takes no result from it (a substitute
    /// not yet permanent): in the history, with no points.
    replaced: Vec<(String, String)>,
}

/// A finished game the league cannot project: the event decodes, the game is unsound.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {game_id} is not projected ({code}): {reason}")]
pub struct UnsoundGame {
    pub game_id: String,
    /// Stable, kebab-case: `seated-twice`.
    pub code: String,
    pub reason: String,
}

/// Records `unsound` and leaves the ladders as they are: the league goes on with the next
/// games (a projector stopped at one game would hold back every later one).
async fn skip(
    tx: &Transaction<'_>,
    event: &RecordedEvent,
    unsound: &UnsoundGame,
) -> Result<(), StoreError> {
    tracing::warn!(stream = %event.stream_id, version = event.stream_version, "{unsound}");
    tx.execute(
        "INSERT INTO league_skipped_games (game_id, stream_version, code, reason) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (game_id) DO NOTHING",
        &[
            &unsound.game_id,
            &i64::try_from(event.stream_version).unwrap_or(i64::MAX),
            &unsound.code,
            &unsound.reason,
        ],
    )
    .await?;
    Ok(())
}

/// Every finished game the league did not project, with the reason, by game.
pub async fn skipped_games(
    client: &impl GenericClient,
    limit: u32,
) -> Result<Vec<UnsoundGame>, StoreError> {
    let rows = client
        .query(
            "SELECT game_id, code, reason FROM league_skipped_games ORDER BY game_id LIMIT $1",
            &[&i64::from(limit)],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| UnsoundGame {
            game_id: row.get(0),
            code: row.get(1),
            reason: row.get(2),
        })
        .collect())
}

impl League {
    async fn game_ended(
        &self,
        tx: &Transaction<'_>,
        event: &RecordedEvent,
    ) -> Result<(), StoreError> {
        let (upto, log) = crate::games::game_upto(tx, event).await?;
        let corrupt = |e: String| StoreError::Corrupt(format!("{}: {e}", event.stream_id));
        // An ended game that is not rated (aborted: it ended before every seated power had
        // played a turn of its own; GameLog::status) has no placements and changes no
        // ladder. A rebuild replays the games through the same rule.
        // Results follow play: the seat's result goes to whom `scored_placements` names.
        let Some(placements) = log.scored_placements() else {
            return Ok(());
        };
        let placements = placements.map_err(corrupt)?;
        if let Some(reason) = placed_twice(&placements) {
            let unsound = UnsoundGame {
                game_id: log.created.game_id.clone(),
                code: "seated-twice".to_owned(),
                reason,
            };
            return skip(tx, event, &unsound).await;
        }
        let ended_at = match decode_recorded(event) {
            Ok(GameStreamEvent::Played(GameEvent::GameEnded { at, .. })) => {
                i64::try_from(at.unix_seconds()).unwrap_or(0)
            }
            _ => return Err(corrupt("GameEnded does not decode".to_owned())),
        };
        let season = warlog_league::season::season_of(ended_at);
        // Everyone who sat at a seat and takes no result from it (a substitute not yet
        // permanent): in the history, with no points.
        let mut replaced: Vec<(String, String)> = Vec::new();
        for recorded in &upto {
            if let Ok(GameStreamEvent::Played(GameEvent::PlayerReplaced {
                power,
                replaced: who,
                substitute,
                ..
            })) = decode_recorded(recorded)
            {
                for player in who.into_iter().chain([substitute]) {
                    let scored = placements
                        .iter()
                        .any(|row| row.player.as_deref() == Some(player.as_str()));
                    let entry = (player, power.name().to_owned());
                    if !scored && !replaced.contains(&entry) {
                        replaced.push(entry);
                    }
                }
            }
        }
        let finished = Finished {
            game_id: log.created.game_id.clone(),
            ruleset: log.created.ruleset.clone(),
            season,
            tournament: log.created.tournament.clone(),
            ended_at,
            seats: placements
                .iter()
                .filter_map(|row| {
                    let points = row.points_exact.parse::<Fraction>().ok()?;
                    Some((
                        row.player.clone()?,
                        row.power.name().to_owned(),
                        row.place,
                        row.tied_with,
                        points,
                        row.percent_gain_exact.clone(),
                        row.percent_gain,
                    ))
                })
                .collect(),
            replaced,
        };
        self.record(tx, &finished).await
    }

    async fn record(&self, tx: &Transaction<'_>, game: &Finished) -> Result<(), StoreError> {
        let seq: i64 = tx
            .query_one(
                "INSERT INTO ladder_heads (ladder, ruleset, season, seq) VALUES ('', '', 0, 1) \
                 ON CONFLICT (ladder, ruleset, season) DO UPDATE SET seq = ladder_heads.seq + 1 \
                 RETURNING seq",
                &[],
            )
            .await?
            .get(0);
        let insert = tx
            .prepare_cached(
                "INSERT INTO league_results (game_id, player, power, ruleset, season, tournament, \
                     place, tied_with, points_scaled, percent_gain, percent_gain_value, replaced, \
                     ended_at, seq) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, to_timestamp($13), $14) \
                 ON CONFLICT DO NOTHING",
            )
            .await?;
        // A seat's result, then who was replaced at a seat: no place, no points.
        let seated = game
            .seats
            .iter()
            .map(|(player, power, place, tied, points, gain, value)| {
                let (place, tied) = (*place as i32, *tied as i32);
                (
                    player,
                    power,
                    Some(place),
                    Some(tied),
                    scaled(*points),
                    Some(gain),
                    Some(*value),
                    false,
                )
            });
        let replaced = game
            .replaced
            .iter()
            .map(|(player, power)| (player, power, None, None, 0, None, None, true));
        for (player, power, place, tied, points, gain, gain_value, replaced) in
            seated.chain(replaced)
        {
            tx.execute(
                &insert,
                &[
                    &game.game_id,
                    player,
                    power,
                    &game.ruleset,
                    &game.season,
                    &game.tournament,
                    &place,
                    &tied,
                    &points,
                    &gain,
                    &gain_value,
                    &replaced,
                    &(game.ended_at as f64),
                    &seq,
                ],
            )
            .await?;
        }
        for season in [0, game.season] {
            self.update_scope(tx, game, season, seq).await?;
        }
        Ok(())
    }

    /// Moves the game's players to new rows of both ladders of one scope.
    async fn update_scope(
        &self,
        tx: &Transaction<'_>,
        game: &Finished,
        season: i32,
        seq: i64,
    ) -> Result<(), StoreError> {
        let players: Vec<String> = game.seats.iter().map(|s| s.0.clone()).collect();
        let current = tx
            .prepare_cached(
                "SELECT player, tiebreak, points_scaled, games, wins_scaled, mu, sigma FROM ladder_rows \
                 WHERE ladder = $1 AND ruleset = $2 AND season = $3 AND player = ANY($4) \
                   AND valid_to IS NULL",
            )
            .await?;
        let close = tx
            .prepare_cached(
                "UPDATE ladder_rows SET valid_to = $5 \
                 WHERE ladder = $1 AND ruleset = $2 AND season = $3 AND player = ANY($4) \
                   AND valid_to IS NULL",
            )
            .await?;
        let insert = tx
            .prepare_cached(
                "INSERT INTO ladder_rows (ladder, ruleset, season, player, valid_from, sort_key, \
                     tiebreak, points_scaled, games, wins_scaled, mu, sigma) \
                 SELECT $1, $2, $3, p, $4, k, t, s, g, w, m, sg \
                   FROM unnest($5::text[], $6::float8[], $7::int8[], $8::int8[], $9::int4[], \
                               $10::int8[], $11::float8[], $12::float8[]) \
                        AS u(p, k, t, s, g, w, m, sg)",
            )
            .await?;
        let newcomer = self.model.newcomer();
        for ladder in [Ladder::Points, Ladder::Skill] {
            let rows = tx
                .query(
                    &current,
                    &[&ladder.as_str(), &game.ruleset, &season, &players],
                )
                .await?;
            let before = |player: &str| {
                rows.iter()
                    .find(|r| r.get::<_, &str>(0) == player)
                    .map(|r| {
                        (
                            r.get::<_, i64>(1),
                            r.get::<_, i64>(2),
                            r.get::<_, i32>(3),
                            r.get::<_, i64>(4),
                            Rating {
                                mu: r.get(5),
                                sigma: r.get(6),
                            },
                        )
                    })
                    .unwrap_or((seq, 0, 0, 0, newcomer))
            };
            let ratings: Vec<Rating> = players.iter().map(|p| before(p).4).collect();
            let places: Vec<usize> = game.seats.iter().map(|s| s.2).collect();
            let rated = self.model.rate(&ratings, &places);
            let mut columns = LadderColumns::default();
            for (i, seat) in game.seats.iter().enumerate() {
                let (tiebreak, points, games, wins, _) = before(&seat.0);
                let gained = scaled(seat.4);
                let total = points + gained;
                let rating = rated[i];
                columns.player.push(seat.0.clone());
                columns.sort_key.push(match ladder {
                    Ladder::Points => total as f64,
                    Ladder::Skill => rating.ordinal(),
                });
                // For points: when this total was reached (a tie at the top goes to whoever
                // reached it first). Skill ties fall to the handle.
                columns.tiebreak.push(match ladder {
                    Ladder::Points if gained != 0 => seq,
                    Ladder::Points => tiebreak,
                    Ladder::Skill => 0,
                });
                columns.points.push(total);
                columns.games.push(games + 1);
                columns
                    .wins
                    .push(wins + scaled(win_share(seat.2, seat.3, game.seats.len())));
                columns.mu.push(rating.mu);
                columns.sigma.push(rating.sigma);
            }
            tx.execute(
                &close,
                &[&ladder.as_str(), &game.ruleset, &season, &players, &seq],
            )
            .await?;
            tx.execute(
                &insert,
                &[
                    &ladder.as_str(),
                    &game.ruleset,
                    &season,
                    &seq,
                    &columns.player,
                    &columns.sort_key,
                    &columns.tiebreak,
                    &columns.points,
                    &columns.games,
                    &columns.wins,
                    &columns.mu,
                    &columns.sigma,
                ],
            )
            .await?;
            tx.execute(
                "INSERT INTO ladder_heads (ladder, ruleset, season, seq) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (ladder, ruleset, season) DO UPDATE SET seq = EXCLUDED.seq",
                &[&ladder.as_str(), &game.ruleset, &season, &seq],
            )
            .await?;
        }
        Ok(())
    }
}

#[derive(Debug, Default)]
struct LadderColumns {
    player: Vec<String>,
    sort_key: Vec<f64>,
    tiebreak: Vec<i64>,
    points: Vec<i64>,
    games: Vec<i32>,
    wins: Vec<i64>,
    mu: Vec<f64>,
    sigma: Vec<f64>,
}

/// Which slice of which ladder.
#[derive(Debug, Clone, PartialEq)]
pub struct LadderQuery {
    pub ladder: Ladder,
    pub ruleset: String,
    /// 0: lifetime.
    pub season: i32,
    /// The league's seq to read as of.
    pub as_of: i64,
    /// The last row of the previous page: (sort_key, tiebreak, player).
    pub after: Option<(f64, i64, String)>,
    pub limit: u32,
}

/// One row of a ladder.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LadderRow {
    pub player: String,
    pub display_name: Option<String>,
    pub sort_key: f64,
    pub tiebreak: i64,
    pub points_scaled: i64,
    pub games: i32,
    /// Wins times [`POINTS_SCALE`] (a shared first place is a share of a win).
    pub wins_scaled: i64,
    pub mu: f64,
    pub sigma: f64,
}

/// The seq of the last change to a ladder scope (0: empty).
pub async fn ladder_head(
    client: &impl GenericClient,
    ladder: Ladder,
    ruleset: &str,
    season: i32,
) -> Result<i64, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT seq FROM ladder_heads WHERE ladder = $1 AND ruleset = $2 AND season = $3",
        )
        .await?;
    Ok(client
        .query_opt(&statement, &[&ladder.as_str(), &ruleset, &season])
        .await?
        .map_or(0, |r| r.get(0)))
}

/// A page of a ladder as of `query.as_of`.
pub async fn ladder_page(
    client: &impl GenericClient,
    query: &LadderQuery,
) -> Result<Vec<LadderRow>, StoreError> {
    let statement = client
        .prepare_cached(
            // The rows valid as of $4: current rows that already held then, and rows
            // superseded after it. Each half has its own index; the first is read in
            // ladder order from the cursor ($5, the previous page's last sort key, an
            // index condition: a deep page does not walk the pages before it) and stops
            // at the page's end.
            "WITH valid AS ( \
               (SELECT * FROM ladder_rows l \
                 WHERE l.ladder = $1 AND l.ruleset = $2 AND l.season = $3 \
                   AND l.valid_to IS NULL AND l.valid_from <= $4 \
                   AND l.sort_key <= $5 AND (l.sort_key < $5 OR (l.sort_key = $5 AND \
                        (l.tiebreak > $6 OR (l.tiebreak = $6 AND l.player > $7)))) \
                 ORDER BY l.sort_key DESC, l.tiebreak, l.player \
                 LIMIT $8) \
               UNION ALL \
               (SELECT * FROM ladder_rows l \
                 WHERE l.ladder = $1 AND l.ruleset = $2 AND l.season = $3 \
                   AND l.valid_to > $4 AND l.valid_from <= $4 \
                   AND l.sort_key <= $5 AND (l.sort_key < $5 OR (l.sort_key = $5 AND \
                        (l.tiebreak > $6 OR (l.tiebreak = $6 AND l.player > $7))))) \
             ) \
             SELECT l.player, p.display_name, l.sort_key, l.tiebreak, l.points_scaled, l.games, \
                    l.wins_scaled, l.mu, l.sigma \
               FROM valid l LEFT JOIN players p ON p.handle = l.player \
              ORDER BY l.sort_key DESC, l.tiebreak, l.player \
              LIMIT $8",
        )
        .await?;
    // A first page starts above every row: no sort key is infinite. (A cursor that may be
    // NULL would keep the planner from starting the index scan at it.)
    let (key, tiebreak, player) = match &query.after {
        Some((k, t, p)) => (*k, *t, p.clone()),
        None => (f64::INFINITY, 0, String::new()),
    };
    let rows = client
        .query(
            &statement,
            &[
                &query.ladder.as_str(),
                &query.ruleset,
                &query.season,
                &query.as_of,
                &key,
                &tiebreak,
                &player,
                &i64::from(query.limit),
            ],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| LadderRow {
            player: r.get(0),
            display_name: r.get(1),
            sort_key: r.get(2),
            tiebreak: r.get(3),
            points_scaled: r.get(4),
            games: r.get(5),
            wins_scaled: r.get(6),
            mu: r.get(7),
            sigma: r.get(8),
        })
        .collect())
}

/// A registered player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlayerRecord {
    pub handle: String,
    pub display_name: String,
}

pub async fn find_player(
    client: &impl GenericClient,
    handle: &str,
) -> Result<Option<PlayerRecord>, StoreError> {
    let statement = client
        .prepare_cached("SELECT handle, display_name FROM players WHERE handle = $1")
        .await?;
    Ok(client
        .query_opt(&statement, &[&handle])
        .await?
        .map(|r| PlayerRecord {
            handle: r.get(0),
            display_name: r.get(1),
        }))
}

/// A page of players in handle order, starting after `after`: those whose handle or
/// display name starts with `prefix` (without regard to case), when one is given. Each page
/// starts strictly after the previous page's last handle, so a walk sees each player once
/// however many register meanwhile.
pub async fn list_players(
    client: &impl GenericClient,
    prefix: Option<&str>,
    after: Option<&str>,
    limit: u32,
) -> Result<Vec<PlayerRecord>, StoreError> {
    // LIKE's own characters in a prefix match themselves.
    let pattern = prefix.map(|p| {
        let escaped = p
            .to_lowercase()
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        format!("{escaped}%")
    });
    let statement = client
        .prepare_cached(
            "SELECT handle, display_name FROM players \
              WHERE ($1::text IS NULL \
                     OR lower(handle) LIKE $1 OR lower(display_name) LIKE $1) \
                AND ($2::text IS NULL OR handle > $2) \
              ORDER BY handle LIMIT $3",
        )
        .await?;
    Ok(client
        .query(&statement, &[&pattern, &after, &i64::from(limit)])
        .await?
        .iter()
        .map(|r| PlayerRecord {
            handle: r.get(0),
            display_name: r.get(1),
        })
        .collect())
}

/// One step of a player's skill rating: after the league's `seq`-th finished game.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatingStep {
    pub ruleset: String,
    pub seq: i64,
    pub mu: f64,
    pub sigma: f64,
}

/// A player's lifetime skill rating after each game that moved it, per ruleset, oldest
/// first (the skill ladder keeps every row it replaced).
pub async fn rating_history(
    client: &impl GenericClient,
    player: &str,
) -> Result<Vec<RatingStep>, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT ruleset, valid_from, mu, sigma FROM ladder_rows \
              WHERE ladder = 'skill' AND season = 0 AND player = $1 \
              ORDER BY ruleset, valid_from LIMIT 10000",
        )
        .await?;
    Ok(client
        .query(&statement, &[&player])
        .await?
        .iter()
        .map(|r| RatingStep {
            ruleset: r.get(0),
            seq: r.get(1),
            mu: r.get(2),
            sigma: r.get(3),
        })
        .collect())
}

/// A player's standing in one ladder scope, as of now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScopeStanding {
    pub ruleset: String,
    pub season: i32,
    pub points_scaled: i64,
    pub games: i32,
    /// Wins times [`POINTS_SCALE`] (a shared first place is a share of a win).
    pub wins_scaled: i64,
    pub mu: f64,
    pub sigma: f64,
    /// 1-based, in the points ladder.
    pub points_position: i64,
    /// The scope's leader on points, for the one Commander of CT.
    pub leader: Option<String>,
    pub leader_points_scaled: i64,
}

/// The player's current standing in every scope they have played in.
pub async fn player_standings(
    client: &impl GenericClient,
    handle: &str,
) -> Result<Vec<ScopeStanding>, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT pt.ruleset, pt.season, pt.points_scaled, pt.games, pt.wins_scaled, sk.mu, sk.sigma, \
                    (SELECT count(*) + 1 FROM ladder_rows o \
                      WHERE o.ladder = 'points' AND o.ruleset = pt.ruleset \
                        AND o.season = pt.season AND o.valid_to IS NULL \
                        AND (o.sort_key > pt.sort_key OR (o.sort_key = pt.sort_key \
                             AND (o.tiebreak < pt.tiebreak OR (o.tiebreak = pt.tiebreak \
                                  AND o.player < pt.player))))), \
                    lead.player, coalesce(lead.points_scaled, 0) \
               FROM ladder_rows pt \
               JOIN ladder_rows sk ON sk.ladder = 'skill' AND sk.ruleset = pt.ruleset \
                    AND sk.season = pt.season AND sk.player = pt.player AND sk.valid_to IS NULL \
               LEFT JOIN LATERAL (SELECT o.player, o.points_scaled FROM ladder_rows o \
                     WHERE o.ladder = 'points' AND o.ruleset = pt.ruleset \
                       AND o.season = pt.season AND o.valid_to IS NULL \
                     ORDER BY o.sort_key DESC, o.tiebreak, o.player LIMIT 1) lead ON true \
              WHERE pt.ladder = 'points' AND pt.player = $1 AND pt.valid_to IS NULL \
              ORDER BY pt.ruleset, pt.season",
        )
        .await?;
    Ok(client
        .query(&statement, &[&handle])
        .await?
        .iter()
        .map(|r| ScopeStanding {
            ruleset: r.get(0),
            season: r.get(1),
            points_scaled: r.get(2),
            games: r.get(3),
            wins_scaled: r.get(4),
            mu: r.get(5),
            sigma: r.get(6),
            points_position: r.get(7),
            leader: r.get(8),
            leader_points_scaled: r.get(9),
        })
        .collect())
}

/// One game in a player's history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryRow {
    pub game_id: String,
    pub ruleset: String,
    pub season: i32,
    pub tournament: Option<String>,
    pub power: String,
    pub place: Option<i32>,
    pub tied_with: Option<i32>,
    pub points_scaled: i64,
    pub percent_gain: Option<String>,
    pub percent_gain_value: Option<f64>,
    pub replaced: bool,
    /// RFC 3339.
    pub ended_at: String,
}

/// A player's finished games, newest first.
pub async fn player_history(
    client: &impl GenericClient,
    handle: &str,
    limit: u32,
) -> Result<Vec<HistoryRow>, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT game_id, ruleset, season, tournament, power, place, tied_with, points_scaled, \
                    percent_gain, percent_gain_value, replaced, \
                    to_char(ended_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') \
               FROM league_results WHERE player = $1 ORDER BY seq DESC, power LIMIT $2",
        )
        .await?;
    Ok(client
        .query(&statement, &[&handle, &i64::from(limit)])
        .await?
        .iter()
        .map(|r| HistoryRow {
            game_id: r.get(0),
            ruleset: r.get(1),
            season: r.get(2),
            tournament: r.get(3),
            power: r.get(4),
            place: r.get(5),
            tied_with: r.get(6),
            points_scaled: r.get(7),
            percent_gain: r.get(8),
            percent_gain_value: r.get(9),
            replaced: r.get(10),
            ended_at: r.get(11),
        })
        .collect())
}
