//! `warlog bench game-page`: the page of a long game (issue 32), served cold against served
//! kept, in the same run. A Cut-Throat game is played by random orders through the server's
//! decision (`SampleGame`) to `--events` events and written to a throw-away database as the
//! server writes games; the service runs in-process with two workers. Measured:
//!
//! - `GET /healthz`, the baseline, and the page as kept, 8 keep-alive clients each;
//! - the page cold: every cache of the service emptied (folds, battles, audit, pages) before
//!   each request, as after a start: one client, one request at a time;
//! - the page rendered again with the folds, the battles and the audit kept (only the
//!   rendered page dropped);
//! - ten clients asking for the cold page at once, the measure (6.5 s before).

use std::time::{Duration, Instant};

use warlog_api::{AppState, Telemetry};
use warlog_events::sample::SampleGame;
use warlog_rules::dice::GameSeed;
use warlog_store::discover::Server;

use crate::bench_http::{bench_pool, workload, BenchServer, Request};
use crate::client::Connection;
use crate::CliError;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::Other(e.to_string())
}

/// Cold requests measured one at a time in each of the three rounds (the median of all
/// is reported).
const COLD_PER_ROUND: usize = 3;
const GAME: &str = "long-game";

pub async fn game_page(server: &Server, slice: Duration, events: usize) -> Result<(), CliError> {
    crate::bench::in_throwaway_database(server, async |database| {
        run(server, database, slice, events).await
    })
    .await
}

/// The long game, written as the server writes one (its seed kept, its chain linked).
async fn write_game(pool: &warlog_store::Pool, events: usize) -> Result<usize, CliError> {
    let ruleset = warlog_rules::ruleset::Ruleset::builtin("cutthroat").map_err(fail)?;
    let mut game = SampleGame::new(ruleset, GAME, GameSeed::from_bytes([5; 32]), 23);
    game.play_until(events, 50 * events);
    let stream = warlog_api::games::game_stream(GAME).map_err(|e| fail(e.detail))?;
    let client = pool.get().await.map_err(fail)?;
    let recorded = game.recorded();
    warlog_store::seeds::write_played_game(&client, &stream, &game.seed, &recorded).await?;
    Ok(recorded.len())
}

fn forget_everything(state: &AppState) {
    state.pages.clear();
    state.games.clear();
    state.audits.clear();
}

/// One GET, its time and its body's length; it must be a 200.
async fn timed_get(connection: &mut Connection, path: &str) -> Result<(Duration, usize), CliError> {
    let sent = Instant::now();
    let (status, body) = connection.send("GET", path, None, "").await?;
    if status != 200 {
        return Err(fail(format!("GET {path}: {status}")));
    }
    Ok((sent.elapsed(), body.len()))
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

async fn run(
    server: &Server,
    database: &str,
    slice: Duration,
    events: usize,
) -> Result<(), CliError> {
    let pool = bench_pool(server, database).await?;
    let started = Instant::now();
    let written = write_game(&pool, events).await?;
    let telemetry = Telemetry::new().map_err(fail)?;
    let state = AppState::without_notifier(pool.clone(), &telemetry);
    let bench = BenchServer::start(state.clone(), &telemetry)?;
    let addr = bench.addr;
    let page = format!("/games/{GAME}");
    let mut one = Connection::open(addr).await?;
    let (_, bytes) = timed_get(&mut one, &page).await?;
    let chronicle = {
        let client = pool.get().await.map_err(fail)?;
        let stream = warlog_api::games::game_stream(GAME).map_err(|e| fail(e.detail))?;
        warlog_api::games::chronicle(&client, &state.games, &stream)
            .await
            .map_err(|e| fail(e.detail))?
    };
    let (battles, phases) = (chronicle.battles.len(), chronicle.phases.len());
    println!(
        "warlog bench game-page: a Cut-Throat game of {written} events, {battles} battles, \
         {phases} phases (played and written in {:.1} s); its page {bytes} bytes; \
         in-process server with 2 workers, {} cores",
        started.elapsed().as_secs_f64(),
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    println!();

    // Cold and kept in alternating slices, so both see the same machine.
    let (mut cold, mut rendered, mut kept, mut healthz) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..3 {
        healthz.push(workload(addr, &[Request::get("/healthz")], 8, slice).await?);
        kept.push(workload(addr, &[Request::get(page.clone())], 8, slice).await?);
        for _ in 0..COLD_PER_ROUND {
            forget_everything(&state);
            cold.push(timed_get(&mut one, &page).await?.0);
            state.pages.clear();
            rendered.push(timed_get(&mut one, &page).await?.0);
        }
    }
    // Ten at once, cold: one renders, nine wait for it.
    forget_everything(&state);
    let mut connections = Vec::new();
    for _ in 0..10 {
        connections.push(Connection::open(addr).await?);
    }
    let at_once = Instant::now();
    let mut tasks = Vec::new();
    for mut connection in connections {
        let page = page.clone();
        tasks.push(tokio::spawn(async move {
            timed_get(&mut connection, &page).await
        }));
    }
    for task in tasks {
        task.await.map_err(fail)??;
    }
    let ten = at_once.elapsed();

    let mean = |figures: &[crate::bench_http::Figures]| {
        figures.iter().map(|f| f.per_second).sum::<f64>() / figures.len().max(1) as f64
    };
    let p50 =
        |figures: &[crate::bench_http::Figures]| median(figures.iter().map(|f| f.p50).collect());
    let (cold, rendered) = (median(cold), median(rendered));
    println!("| workload | clients | requests/s | p50 ms |");
    println!("|---|---:|---:|---:|");
    println!(
        "| GET /healthz (baseline) | 8 | {:.0} | {:.2} |",
        mean(&healthz),
        ms(p50(&healthz))
    );
    println!(
        "| game page, kept | 8 | {:.0} | {:.2} |",
        mean(&kept),
        ms(p50(&kept))
    );
    println!(
        "| game page, rendered again (folds, battles, audit kept) | 1 | {:.1} | {:.1} |",
        1.0 / rendered.as_secs_f64(),
        ms(rendered)
    );
    println!(
        "| game page, cold (every cache emptied) | 1 | {:.1} | {:.1} |",
        1.0 / cold.as_secs_f64(),
        ms(cold)
    );
    println!();
    println!(
        "cold / kept (p50): {:.0}x; rendered again / kept: {:.0}x; kept / healthz (requests/s): {:.2}",
        cold.as_secs_f64() / p50(&kept).as_secs_f64().max(1e-9),
        rendered.as_secs_f64() / p50(&kept).as_secs_f64().max(1e-9),
        mean(&kept) / mean(&healthz).max(1e-9)
    );
    println!(
        "ten clients at once, cold: all answered in {:.0} ms ({:.2}x one cold request)",
        ms(ten),
        ten.as_secs_f64() / cold.as_secs_f64().max(1e-9)
    );
    bench.stop().await;
    Ok(())
}
