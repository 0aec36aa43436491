//! `warlog bench orders`: orders accepted per second through HTTP (a real socket, one
//! keep-alive connection per client), on one game and across 50 games, with p50 and p99
//! latency, next to `GET /healthz` measured in the same run as the baseline. Runs the
//! service in-process on a throw-away database.

use std::time::{Duration, Instant};

use actix_web::HttpServer;
use warlog_api::auth::Role;
use warlog_api::{AppState, Telemetry};
use warlog_store::discover::Server;
use warlog_store::{connect_pool, PoolOptions};

use crate::client::Connection;
use crate::CliError;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::Other(e.to_string())
}

/// Requests per second and latency percentiles of one workload.
#[derive(Debug, Clone)]
pub struct Figures {
    pub per_second: f64,
    pub p50: Duration,
    pub p99: Duration,
}

pub fn figures(mut latencies: Vec<Duration>, elapsed: Duration) -> Figures {
    latencies.sort();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    Figures {
        per_second: latencies.len() as f64 / elapsed.as_secs_f64().max(1e-9),
        p50: at(0.50),
        p99: at(0.99),
    }
}

/// One request of a workload.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: &'static str,
    pub path: String,
    pub token: Option<String>,
    pub content_type: &'static str,
    pub body: String,
}

impl Request {
    pub fn get(path: impl Into<String>) -> Request {
        Request {
            method: "GET",
            path: path.into(),
            token: None,
            content_type: crate::client::JSON,
            body: String::new(),
        }
    }

    /// A form posted to `path` (its body to be given).
    pub fn form(path: impl Into<String>) -> Request {
        Request {
            method: "POST",
            content_type: crate::client::FORM,
            ..Request::get(path)
        }
    }
}

/// `clients` connections, each cycling through its share of `requests`, for `slice`; every
/// answer must be 200.
pub async fn workload(
    addr: std::net::SocketAddr,
    requests: &[Request],
    clients: usize,
    slice: Duration,
) -> Result<Figures, CliError> {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for client in 0..clients {
        let mut mine: Vec<Request> = requests
            .iter()
            .skip(client)
            .step_by(clients)
            .cloned()
            .collect();
        if mine.is_empty() {
            mine = requests.to_vec();
        }
        tasks.push(tokio::spawn(async move {
            let mut connection = Connection::open(addr).await?;
            let mut latencies = Vec::new();
            let mut i = 0usize;
            while started.elapsed() < slice {
                let request = &mine[i % mine.len()];
                i += 1;
                let sent = Instant::now();
                let (status, body) = connection
                    .send_as(
                        request.method,
                        &request.path,
                        request.token.as_deref(),
                        request.content_type,
                        &request.body,
                    )
                    .await?;
                if status != 200 {
                    return Err(fail(format!(
                        "{} {}: {status} {body}",
                        request.method, request.path
                    )));
                }
                latencies.push(sent.elapsed());
            }
            Ok::<_, CliError>(latencies)
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.map_err(fail)??);
    }
    Ok(figures(all, started.elapsed()))
}

/// Alternating rounds of the order workload and the bare appends.
const ROUNDS: u32 = 3;

/// Several rounds of one workload as one: the mean rate, the worst p50 and p99.
fn merged(rounds: &[Figures]) -> Figures {
    let n = rounds.len().max(1) as f64;
    Figures {
        per_second: rounds.iter().map(|f| f.per_second).sum::<f64>() / n,
        p50: rounds.iter().map(|f| f.p50).max().unwrap_or_default(),
        p99: rounds.iter().map(|f| f.p99).max().unwrap_or_default(),
    }
}

pub async fn orders(server: &Server, slice: Duration) -> Result<(), CliError> {
    crate::bench::in_throwaway_database(server, async |database| run(server, database, slice).await)
        .await
}

/// The service in-process on a free port, with two workers.
#[derive(Debug)]
pub struct BenchServer {
    pub addr: std::net::SocketAddr,
    handle: actix_web::dev::ServerHandle,
    served: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl BenchServer {
    pub fn start(state: AppState, telemetry: &Telemetry) -> Result<BenchServer, CliError> {
        let telemetry = telemetry.clone();
        let http = HttpServer::new(move || warlog_api::app(state.clone(), &telemetry))
            .disable_signals()
            .workers(2)
            .bind("127.0.0.1:0")?;
        let addr = *http.addrs().first().ok_or_else(|| fail("no address"))?;
        let running = http.run();
        let handle = running.handle();
        Ok(BenchServer {
            addr,
            handle,
            served: tokio::spawn(running),
        })
    }

    pub async fn stop(self) {
        self.handle.stop(true).await;
        let _ = self.served.await;
    }
}

/// A pool on the throw-away `database`, migrated.
pub async fn bench_pool(server: &Server, database: &str) -> Result<warlog_store::Pool, CliError> {
    let config = server.config_for(database);
    crate::migrate(&config).await?;
    Ok(connect_pool(
        config,
        &PoolOptions {
            max_size: 16,
            ..PoolOptions::default()
        },
    )
    .await?)
}

async fn run(server: &Server, database: &str, slice: Duration) -> Result<(), CliError> {
    let pool = bench_pool(server, database).await?;
    let token = crate::owner_token(&server.config_for(database), "bench", Role::Gm).await?;
    let telemetry = Telemetry::new().map_err(fail)?;
    let state = AppState::without_notifier(pool.clone(), &telemetry);
    let server = BenchServer::start(state, &telemetry)?;
    let addr = server.addr;

    let mut setup = Connection::open(addr).await?;
    let mut games = Vec::new();
    for _ in 0..50 {
        let (status, body) = setup
            .send(
                "POST",
                "/v1/games",
                Some(&token),
                r#"{"ruleset":"cutthroat","players":["ann","bob","cy","di","ed"]}"#,
            )
            .await?;
        if status != 201 {
            return Err(fail(format!("creating a game: {status} {body}")));
        }
        let created: serde_json::Value = serde_json::from_str(&body).map_err(fail)?;
        games.push(created["game_id"].as_str().unwrap_or_default().to_owned());
    }

    println!(
        "warlog bench orders: {:.1} s per workload, in-process server with 2 workers, {} cores",
        slice.as_secs_f64(),
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    println!();
    println!(
        "| workload | clients | requests/s | p50 ms | p99 ms | ratio to /healthz | ratio to bare appends |"
    );
    println!("|---|---|---|---|---|---|---|");
    let orders_for = |games: &[String]| -> Vec<Request> {
        games
            .iter()
            .map(|game| Request {
                method: "POST",
                path: format!("/v1/games/{game}/orders"),
                token: Some(token.clone()),
                content_type: crate::client::JSON,
                body: r#"{"orders":[{"type":"end_phase"}]}"#.to_owned(),
            })
            .collect()
    };
    let healthz = workload(addr, &[Request::get("/healthz")], 8, slice).await?;
    let one_game = workload(addr, &orders_for(&games[..1]), 1, slice).await?;
    // Orders on 50 games against the store's own 1-event append at the same concurrency,
    // in alternating slices, so both see the same machine.
    let (mut fifty, mut bare) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        fifty.push(workload(addr, &orders_for(&games), 8, slice).await?);
        bare.push(crate::bench::bare_appends(&pool, 8, slice, round).await?);
    }
    let bare = bare.iter().sum::<f64>() / f64::from(ROUNDS);
    let fifty = merged(&fifty);
    for (name, clients, f) in [
        ("GET /healthz (baseline)", 8, &healthz),
        ("orders, one game", 1, &one_game),
        ("orders, 50 games", 8, &fifty),
    ] {
        println!(
            "| {name} | {clients} | {:.0} | {:.2} | {:.2} | {:.3} | {:.2} |",
            f.per_second,
            f.p50.as_secs_f64() * 1e3,
            f.p99.as_secs_f64() * 1e3,
            f.per_second / healthz.per_second.max(1e-9),
            f.per_second / bare.max(1e-9)
        );
    }
    println!(
        "| store: bare 1-event appends, distinct streams | 8 | {bare:.0} | - | - | - | 1.00 |"
    );
    server.stop().await;
    pool.close();
    Ok(())
}
