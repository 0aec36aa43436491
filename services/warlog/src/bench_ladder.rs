//! `warlog bench leaderboard`: leaderboard pages per second through HTTP with 10,000
//! players and 100,000 finished games, next to `GET /healthz` measured in the same run.
//!
//! The league's read models are filled in bulk (`warlog_store::bench::fill_ladders`) with the shape the `league`
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

pub async fn leaderboard(server: &Server, slice: Duration) -> Result<(), CliError> {
    crate::bench::in_throwaway_database(server, async |database| run(server, database, slice).await)
        .await
}

async fn run(server: &Server, database: &str, slice: Duration) -> Result<(), CliError> {
    let pool = bench_pool(server, database).await?;
    let filled = Instant::now();
    {
        let client = pool.get().await.map_err(warlog_store::StoreError::from)?;
        warlog_store::bench::fill_ladders(&client, PLAYERS, GAMES).await?;
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
    Ok(warlog_store::bench::ladder_row_count(&client).await?)
}
