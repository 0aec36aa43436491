//! `warlog bench leaderboard`: leaderboard pages per second through HTTP with 10,000
//! players and 100,000 finished games, next to `GET /healthz` measured in the same run.
//!
//! The league's read models are filled in bulk by SQL with the shape the `league`
//! projector gives them: one ladder row version per player per game (valid from that game
//! until the player's next), for the points and skill ladders, lifetime and per season.
//! Playing 100,000 games through the command path would take hours and measure the writes,
//! not the reads. The server runs in-process with the options `serve` has by default.

use std::time::{Duration, Instant};

use warlog_api::ladder_cache::LadderCache;
use warlog_api::{AppState, Telemetry};
use warlog_store::discover::Server;

use crate::bench_http::{bench_pool, figures, workload, BenchServer, Figures, Request};
use crate::client::Connection;
use crate::CliError;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::Other(e.to_string())
}

/// What the benchmark fills.
pub const PLAYERS: u32 = 10_000;
pub const GAMES: u32 = 100_000;

/// The ladder read models of `GAMES` five-player games among `PLAYERS` players: each game's
/// seats are five distinct players, places 1 to 5 with 5, 3, 2, -1 and -2 points.
const FILL: &str = r"
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

pub async fn leaderboard(server: &Server, slice: Duration) -> Result<(), CliError> {
    crate::bench::in_throwaway_database(server, async |database| run(server, database, slice).await)
        .await
}

async fn run(server: &Server, database: &str, slice: Duration) -> Result<(), CliError> {
    let pool = bench_pool(server, database).await?;
    let filled = Instant::now();
    {
        let client = pool.get().await.map_err(warlog_store::StoreError::from)?;
        let sql = FILL
            .replace("$players", &PLAYERS.to_string())
            .replace("$games", &GAMES.to_string());
        client
            .batch_execute(&sql)
            .await
            .map_err(|e| fail(warlog_store::describe_pg(&e)))?;
    }
    let filled = filled.elapsed();

    let telemetry = Telemetry::new().map_err(fail)?;
    let mut state = AppState::without_notifier(pool.clone(), &telemetry);
    // As `serve` runs by default.
    state.ladders = std::sync::Arc::new(LadderCache::new(Duration::from_millis(
        crate::cli::DEFAULT_LADDER_HEAD_MAX_AGE_MS,
    )));
    let server = BenchServer::start(state, &telemetry)?;
    let addr = server.addr;

    // Walk every page of the points ladder once: each is a cache miss, rendered from the
    // database. The pages seen make the cached workload.
    let mut walk = Connection::open(addr).await?;
    let mut pages = Vec::new();
    let mut misses = Vec::new();
    let walked = Instant::now();
    for first in [
        "/v1/leaderboards/points?limit=50",
        "/v1/leaderboards/skill?limit=50",
        "/v1/leaderboards/points?limit=50&season=2026",
    ] {
        let mut path = first.to_owned();
        loop {
            let sent = Instant::now();
            let page = walk
                .json("GET", &path, None, &serde_json::Value::Null, 200)
                .await?;
            misses.push(sent.elapsed());
            pages.push(Request::get(path.clone()));
            match page["next"].as_str() {
                Some(next) => path = next.to_owned(),
                None => break,
            }
        }
    }
    let cold = figures(misses, walked.elapsed());
    let rows_seen = pages.len() as u32 / 3 * 50;

    // Most readers want the first page; some page on.
    let mut mix: Vec<Request> = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        mix.push(Request::get("/v1/leaderboards/points"));
        if i % 4 == 0 {
            mix.push(page.clone());
        }
    }
    let clients = 8;
    let healthz = workload(addr, &[Request::get("/healthz")], clients, slice).await?;
    let first_page = workload(
        addr,
        &[Request::get("/v1/leaderboards/points")],
        clients,
        slice,
    )
    .await?;
    let mixed = workload(addr, &mix, clients, slice).await?;
    let healthz_after = workload(addr, &[Request::get("/healthz")], clients, slice).await?;

    println!(
        "warlog bench leaderboard: {PLAYERS} players, {GAMES} games ({} ladder rows, filled in {:.1} s), \
         {:.1} s per workload, in-process server with 2 workers, {} cores",
        ladder_rows(&pool).await?,
        filled.as_secs_f64(),
        slice.as_secs_f64(),
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    println!();
    println!("| workload | clients | requests/s | p50 ms | p99 ms | ratio to /healthz |");
    println!("|---|---|---|---|---|---|");
    let baseline = healthz.per_second;
    let row = |name: &str, clients: usize, f: &Figures| {
        println!(
            "| {name} | {clients} | {:.0} | {:.2} | {:.2} | {:.3} |",
            f.per_second,
            f.p50.as_secs_f64() * 1e3,
            f.p99.as_secs_f64() * 1e3,
            f.per_second / baseline.max(1e-9)
        );
    };
    row("GET /healthz (baseline)", clients, &healthz);
    row("points ladder, first page", clients, &first_page);
    row(
        &format!("ladder pages, mixed ({} distinct pages)", pages.len()),
        clients,
        &mixed,
    );
    row("GET /healthz (again, after)", clients, &healthz_after);
    row(
        &format!("every page once, uncached ({rows_seen} rows per ladder)"),
        1,
        &cold,
    );
    server.stop().await;
    pool.close();
    Ok(())
}

async fn ladder_rows(pool: &warlog_store::Pool) -> Result<i64, CliError> {
    let client = pool.get().await.map_err(warlog_store::StoreError::from)?;
    let row = client
        .query_one("SELECT count(*) FROM ladder_rows", &[])
        .await
        .map_err(fail)?;
    Ok(row.get(0))
}
