//! `warlog bench dice`: dice rolls per second through `POST /api/roll`, as TripleA's client
//! sends them, each client at its own table, next to `GET /healthz` measured in the same
//! run; and a table's view at 5,000 rolls against its view at 1,000 (both past the latest
//! 400 events a view reads), to show a view's cost does not grow with the table; and the
//! largest roll the official server's bounds allow (5,000 dice of 5,000 sides) against a
//! roll of one die. No limits, no mail.

use std::time::Duration;

use warlog_api::dice_tables::{DiceSettings, DiceTables};
use warlog_api::{AppState, Telemetry};
use warlog_store::discover::Server;

use crate::bench_http::{bench_pool, workload, BenchServer, Figures, Request};
use crate::client::Connection;
use crate::CliError;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::Other(e.to_string())
}

/// Clients, each rolling at a table of its own.
const CLIENTS: usize = 8;
/// Rolls at the table whose view is measured, then rolls when it is measured again.
const FIRST: usize = 1_000;
const GROWN: usize = 5_000;

pub async fn dice(server: &Server, slice: Duration) -> Result<(), CliError> {
    crate::bench::in_throwaway_database(server, async |database| run(server, database, slice).await)
        .await
}

/// A roll of three six-sided dice for player `n` and a fixed opponent.
fn roll(n: usize) -> Request {
    Request {
        body: format!("times=3&max=6&email1=p{n}%40club.example&email2=opponent%40club.example"),
        ..Request::form("/api/roll")
    }
}

async fn run(server: &Server, database: &str, slice: Duration) -> Result<(), CliError> {
    let pool = bench_pool(server, database).await?;
    let telemetry = Telemetry::new().map_err(fail)?;
    let mut state = AppState::without_notifier(pool.clone(), &telemetry);
    state.dice = std::sync::Arc::new(DiceTables::new(DiceSettings::default(), 0, 0));
    let keys = state.dice.keys(&pool).await.map_err(fail)?;
    let table = keys
        .table_of(&format!("p{CLIENTS}@club.example"), "opponent@club.example")
        .map_err(|why| fail(why.join("; ")))?;
    let server = BenchServer::start(state, &telemetry)?;
    let addr = server.addr;

    // A table rolled 1,000 times, its view measured; then grown to 5,000, and measured again.
    let mut setup = Connection::open(addr).await?;
    let first = roll(CLIENTS);
    rolls_at(&mut setup, &first, FIRST).await?;
    let table = table.as_str();
    let view = Request::get(format!("/v1/dice-tables/{table}"));
    let small = workload(addr, std::slice::from_ref(&view), 1, slice).await?;
    rolls_at(&mut setup, &first, GROWN - FIRST).await?;
    let grown = workload(addr, std::slice::from_ref(&view), 1, slice).await?;

    // The largest roll the official server's bounds allow against the smallest, one client
    // each at a table of its own, in the same run.
    let sized = |times: u32, max: u32, who: &str| Request {
        body: format!(
            "times={times}&max={max}&email1={who}%40club.example&email2=opponent%40club.example"
        ),
        ..Request::form("/api/roll")
    };
    let one_die = workload(addr, &[sized(1, 6, "one")], 1, slice).await?;
    let five_thousand = workload(addr, &[sized(5000, 5000, "many")], 1, slice).await?;

    let rolls: Vec<Request> = (0..CLIENTS).map(roll).collect();
    let healthz = workload(addr, &[Request::get("/healthz")], CLIENTS, slice).await?;
    let rolled = workload(addr, &rolls, CLIENTS, slice).await?;
    let healthz_after = workload(addr, &[Request::get("/healthz")], CLIENTS, slice).await?;

    println!(
        "warlog bench dice: {:.1} s per workload, in-process server with 2 workers, {} cores",
        slice.as_secs_f64(),
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    println!();
    println!("| workload | clients | requests/s | p50 ms | p99 ms | ratio |");
    println!("|---|---|---|---|---|---|");
    let row = |name: &str, clients: usize, f: &Figures, baseline: &Figures| {
        println!(
            "| {name} | {clients} | {:.0} | {:.2} | {:.2} | {:.3} |",
            f.per_second,
            f.p50.as_secs_f64() * 1e3,
            f.p99.as_secs_f64() * 1e3,
            f.per_second / baseline.per_second.max(1e-9)
        );
    };
    row("GET /healthz (baseline)", CLIENTS, &healthz, &healthz);
    row(
        "POST /api/roll, 3d6, a table each",
        CLIENTS,
        &rolled,
        &healthz,
    );
    row(
        "GET /healthz (again, after)",
        CLIENTS,
        &healthz_after,
        &healthz,
    );
    row(
        &format!("a table's view, {FIRST} rolls (baseline)"),
        1,
        &small,
        &small,
    );
    row(&format!("a table's view, {GROWN} rolls"), 1, &grown, &small);
    row("POST /api/roll, 1 die (baseline)", 1, &one_die, &one_die);
    row(
        "POST /api/roll, 5,000 dice of 5,000 sides",
        1,
        &five_thousand,
        &one_die,
    );
    server.stop().await;
    pool.close();
    Ok(())
}

/// Makes `roll` `count` times, one after another.
async fn rolls_at(
    connection: &mut Connection,
    roll: &Request,
    count: usize,
) -> Result<(), CliError> {
    for _ in 0..count {
        let (status, body) = connection
            .send_as("POST", &roll.path, None, roll.content_type, &roll.body)
            .await?;
        if status != 200 {
            return Err(fail(format!("a roll: {status} {body}")));
        }
    }
    Ok(())
}
