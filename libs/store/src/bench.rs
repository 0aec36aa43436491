//! What the benchmarks (`warlog bench`) ask of the database beyond the store's own paths:
//! the baseline they measure appends against, a group of appends committed together, and
//! the league's read models filled in bulk. Here so that the store speaks SQL in one place.

use deadpool_postgres::GenericClient;
use warlog_events::{NewEvent, StreamId};

use crate::{append, AppendOutcome, ExpectedVersion, StoreError};

/// The role the service's pool logs in as (migrations create it).
const APP_ROLE: &str = "warlog_app";

/// The server's version and its `synchronous_commit`, which a benchmark's figures depend on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSettings {
    pub version: String,
    pub synchronous_commit: String,
}

/// Reads the settings a benchmark reports with its figures.
pub async fn server_settings(admin: &tokio_postgres::Client) -> Result<ServerSettings, StoreError> {
    let version: String = admin.query_one("SHOW server_version", &[]).await?.get(0);
    let synchronous_commit: String = admin
        .query_one("SHOW synchronous_commit", &[])
        .await?
        .get(0);
    Ok(ServerSettings {
        version,
        synchronous_commit,
    })
}

/// Creates the baseline's table: plain rows with no constraints, which the service's role
/// may insert into. Run by the database's owner, in a throw-away database.
pub async fn create_baseline_table(admin: &tokio_postgres::Client) -> Result<(), StoreError> {
    admin
        .batch_execute(&format!(
            "CREATE TABLE bench_baseline (stream text, version bigint, payload jsonb, recorded_at timestamptz);
             GRANT INSERT ON bench_baseline TO {APP_ROLE};"
        ))
        .await?;
    Ok(())
}

/// One plain single-row insert into the baseline's table.
pub async fn insert_baseline_row(
    client: &impl GenericClient,
    stream: &str,
    version: i64,
    payload: &serde_json::Value,
) -> Result<(), StoreError> {
    let statement = client
        .prepare_cached(
            "INSERT INTO bench_baseline (stream, version, payload, recorded_at) VALUES ($1, $2, $3, now())",
        )
        .await?;
    client
        .execute(&statement, &[&stream, &version, payload])
        .await?;
    Ok(())
}

/// Group commit: the appends pipelined on the connection in one transaction, then one
/// commit for all of them. If any append fails, none is kept (the transaction is rolled
/// back) and the answer is `None`.
pub async fn append_group(
    client: &impl GenericClient,
    appends: &[(&StreamId, ExpectedVersion, &[NewEvent])],
) -> Result<Option<Vec<AppendOutcome>>, StoreError> {
    client.batch_execute("BEGIN").await?;
    let outcomes = futures_util::future::join_all(
        appends
            .iter()
            .map(|(stream, expected, events)| append(client, stream, *expected, events)),
    )
    .await;
    if outcomes.iter().all(Result::is_ok) {
        client.batch_execute("COMMIT").await?;
        Ok(Some(outcomes.into_iter().flatten().collect()))
    } else {
        client.batch_execute("ROLLBACK").await?;
        Ok(None)
    }
}

/// The ladder read models of `GAMES` five-player games among `PLAYERS` players: each game's
/// seats are five distinct players, places 1 to 5 with 5, 3, 2, -1 and -2 points.
const LADDER_FILL: &str = r"
INSERT INTO players (handle, display_name, registered_at)
SELECT 'p' || lpad(i::text, 5, '0'), 'Player ' || i, now()
  FROM generate_series(1, $players) i;

CREATE TEMP TABLE bench_seats AS
SELECT g::bigint AS seq,
       'p' || lpad(((((g::bigint * 5 + k) * 7919) % $players) + 1)::text, 5, '0') AS player,
       k AS place,
       (ARRAY[5, 3, 2, -1, -2])[k] * 2520 AS points,
       CASE WHEN g <= $games / 2 THEN 2025 ELSE 2026 END AS season
  FROM generate_series(1, $games) g, generate_series(1, 5) k;

CREATE TEMP TABLE bench_history AS
SELECT player, seq, 0 AS season,
       sum(points) OVER w AS points_scaled,
       count(*) OVER w AS games,
       sum(CASE WHEN place = 1 THEN 2520 ELSE 0 END) OVER w AS wins_scaled,
       lead(seq) OVER w AS valid_to
  FROM bench_seats
WINDOW w AS (PARTITION BY player ORDER BY seq)
UNION ALL
SELECT player, seq, season,
       sum(points) OVER w AS points_scaled,
       count(*) OVER w AS games,
       sum(CASE WHEN place = 1 THEN 2520 ELSE 0 END) OVER w AS wins_scaled,
       lead(seq) OVER w AS valid_to
  FROM bench_seats
WINDOW w AS (PARTITION BY player, season ORDER BY seq);

INSERT INTO ladder_rows (ladder, ruleset, season, player, valid_from, valid_to, sort_key,
                         tiebreak, points_scaled, games, wins_scaled, mu, sigma)
SELECT l.ladder, 'cutthroat', h.season, h.player, h.seq, h.valid_to,
       CASE WHEN l.ladder = 'points' THEN h.points_scaled / 2520.0
            ELSE (25 + h.points_scaled / 25200.0) - 3 * (25.0 / 3 / sqrt(1 + h.games / 5.0)) END,
       h.seq, h.points_scaled, h.games, h.wins_scaled,
       25 + h.points_scaled / 25200.0, 25.0 / 3 / sqrt(1 + h.games / 5.0)
  FROM bench_history h, (VALUES ('points'), ('skill')) l(ladder);

INSERT INTO ladder_heads (ladder, ruleset, season, seq)
SELECT l.ladder, 'cutthroat', s.season, max(h.seq)
  FROM bench_history h
  JOIN (VALUES (0), (2025), (2026)) s(season) ON s.season = h.season,
       (VALUES ('points'), ('skill')) l(ladder)
 GROUP BY l.ladder, s.season
UNION ALL SELECT '', '', 0, $games;

ANALYZE players;
ANALYZE ladder_rows;
ANALYZE ladder_heads;
";

/// Fills the league's ladder read models (and players) in bulk with `games` five-player
/// games among `players` players, the shape the `league` projector gives them: one ladder
/// row version per player per game (valid from that game until the player's next), for the
/// points and skill ladders, lifetime and per season (half the games in 2025, half in 2026).
pub async fn fill_ladders(
    client: &impl GenericClient,
    players: u32,
    games: u32,
) -> Result<(), StoreError> {
    let sql = LADDER_FILL
        .replace("$players", &players.to_string())
        .replace("$games", &games.to_string());
    client.batch_execute(&sql).await?;
    Ok(())
}

/// Every ladder row version kept.
pub async fn ladder_row_count(client: &impl GenericClient) -> Result<i64, StoreError> {
    Ok(client
        .query_one("SELECT count(*) FROM ladder_rows", &[])
        .await?
        .get(0))
}
