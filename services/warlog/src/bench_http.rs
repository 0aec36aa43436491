//! `warlog bench orders`: orders accepted per second through HTTP (a real socket, one
//! keep-alive connection per client), on one game and across 50 games, with p50 and p99
//! latency, next to `GET /healthz` measured in the same run as the baseline. Runs the
//! service in-process on a throw-away database.

use std::time::{Duration, Instant};

use actix_web::HttpServer;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use warlog_api::auth::{issue_token, Role};
use warlog_api::{AppState, Telemetry};
use warlog_store::discover::Server;
use warlog_store::{connect_pool, PoolOptions};

use crate::CliError;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::Other(e.to_string())
}

/// One HTTP/1.1 keep-alive connection: just enough client for the benchmark.
struct Connection {
    stream: BufReader<TcpStream>,
}

impl Connection {
    async fn open(addr: std::net::SocketAddr) -> Result<Self, CliError> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            stream: BufReader::new(stream),
        })
    }

    /// Sends a request and returns the status and body.
    async fn send(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &str,
    ) -> Result<(u16, String), CliError> {
        let auth = token
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: bench\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        self.stream.get_mut().write_all(request.as_bytes()).await?;
        let mut line = String::new();
        self.stream.read_line(&mut line).await?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| fail(format!("bad status line {line:?}")))?;
        let mut length = 0usize;
        loop {
            line.clear();
            self.stream.read_line(&mut line).await?;
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().map_err(fail)?;
                }
            }
        }
        let mut body = vec![0u8; length];
        self.stream.read_exact(&mut body).await?;
        Ok((status, String::from_utf8_lossy(&body).into_owned()))
    }
}

/// Requests per second and latency percentiles of one workload.
#[derive(Debug, Clone)]
struct Figures {
    per_second: f64,
    p50: Duration,
    p99: Duration,
}

fn figures(mut latencies: Vec<Duration>, elapsed: Duration) -> Figures {
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

/// `clients` connections, each cycling through its share of `games` (or `/healthz` when
/// there are none), for `slice`.
async fn workload(
    addr: std::net::SocketAddr,
    token: &str,
    games: &[String],
    clients: usize,
    slice: Duration,
) -> Result<Figures, CliError> {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for client in 0..clients {
        let mine: Vec<String> = games
            .iter()
            .skip(client)
            .step_by(clients)
            .cloned()
            .collect();
        let token = token.to_owned();
        tasks.push(tokio::spawn(async move {
            let mut connection = Connection::open(addr).await?;
            let mut latencies = Vec::new();
            let mut i = 0usize;
            while started.elapsed() < slice {
                let sent = Instant::now();
                let (status, body) = if mine.is_empty() {
                    connection.send("GET", "/healthz", None, "").await?
                } else {
                    let game = &mine[i % mine.len()];
                    i += 1;
                    connection
                        .send(
                            "POST",
                            &format!("/v1/games/{game}/orders"),
                            Some(&token),
                            r#"{"orders":[{"type":"end_phase"}]}"#,
                        )
                        .await?
                };
                if status != 200 {
                    return Err(fail(format!("status {status}: {body}")));
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

pub async fn orders(server: &Server, slice: Duration) -> Result<(), CliError> {
    crate::bench::in_throwaway_database(server, async |database| run(server, database, slice).await)
        .await
}

async fn run(server: &Server, database: &str, slice: Duration) -> Result<(), CliError> {
    let config = server.config_for(database);
    crate::migrate(&config).await?;
    let pool = connect_pool(
        config,
        &PoolOptions {
            max_size: 16,
            ..PoolOptions::default()
        },
    )
    .await?;
    let token = {
        let client = pool.get().await.map_err(warlog_store::StoreError::from)?;
        issue_token(&client, "bench", Role::Gm)
            .await
            .map_err(|e| fail(e.detail))?
    };
    let telemetry = Telemetry::new().map_err(fail)?;
    let state = AppState::without_notifier(pool.clone(), &telemetry);
    let app_telemetry = telemetry.clone();
    let http = HttpServer::new(move || warlog_api::app(state.clone(), &app_telemetry))
        .disable_signals()
        .workers(2)
        .bind("127.0.0.1:0")?;
    let addr = *http.addrs().first().ok_or_else(|| fail("no address"))?;
    let running = http.run();
    let handle = running.handle();
    let served = tokio::spawn(running);

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
    println!("| workload | clients | requests/s | p50 ms | p99 ms | ratio to /healthz |");
    println!("|---|---|---|---|---|---|");
    let healthz = workload(addr, &token, &[], 8, slice).await?;
    let one_game = workload(addr, &token, &games[..1], 1, slice).await?;
    let fifty = workload(addr, &token, &games, 8, slice).await?;
    for (name, clients, f) in [
        ("GET /healthz (baseline)", 8, &healthz),
        ("orders, one game", 1, &one_game),
        ("orders, 50 games", 8, &fifty),
    ] {
        println!(
            "| {name} | {clients} | {:.0} | {:.2} | {:.2} | {:.3} |",
            f.per_second,
            f.p50.as_secs_f64() * 1e3,
            f.p99.as_secs_f64() * 1e3,
            f.per_second / healthz.per_second.max(1e-9)
        );
    }
    handle.stop(true).await;
    let _ = served.await;
    pool.close();
    Ok(())
}
