//! `warlog bench mail`: turns sent by mail through the listener (LMTP, kept in the inbox,
//! decided by the intake) against the same turn texts sent over HTTP
//! (`POST /v1/games/{id}/turn`), in the same run on the same server: each step sends one
//! turn to each of 20 games and waits until all are on the record, so both paths are
//! measured from the sending to the turn recorded. No mail goes out.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use warlog_api::auth::Role;
use warlog_api::mail_desk::MailDesk;
use warlog_api::mail_in::listener::{spawn_listener, ListenerSettings};
use warlog_api::mail_in::{reply_key, spawn_intake, Doorbell};
use warlog_api::{AppState, Telemetry};
use warlog_events::by_mail::token::{issue, reply_address, TurnRef};
use warlog_store::discover::Server;
use warlog_store::webhooks::TurnReplies;

use crate::bench_http::{bench_pool, BenchServer};
use crate::client::Connection;
use crate::CliError;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::Other(e.to_string())
}

/// Games played at once, and the turns each plays on each path.
const GAMES: usize = 20;
const TURNS: usize = 10;
const PLAYERS: [&str; 5] = ["ann", "bob", "cy", "di", "ed"];
const TEXT: &str = "# a whole turn, as a player writes it\nend turn\n";

pub async fn mail(server: &Server) -> Result<(), CliError> {
    crate::bench::in_throwaway_database(server, async |database| run(server, database).await).await
}

async fn run(server: &Server, database: &str) -> Result<(), CliError> {
    let pool = bench_pool(server, database).await?;
    let gm = crate::owner_token(&server.config_for(database), "bench", Role::Gm).await?;
    let telemetry = Telemetry::new().map_err(fail)?;
    let replies_key = Arc::new(TurnReplies {
        key: reply_key(&pool).await?,
        domain: "bench.example".to_owned(),
    });
    let mut state = AppState::without_notifier(pool.clone(), &telemetry);
    state.mail_desk = Arc::new(MailDesk {
        replies: Some(replies_key.clone()),
        ..MailDesk::default()
    });
    {
        let client = pool.get().await.map_err(fail)?;
        let now = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .map_err(fail)?;
        for player in PLAYERS {
            let email = format!("{player}@bench.example");
            warlog_store::mail::set_email(&client, player, &email, "bench", &now).await?;
        }
    }
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let doorbell = Arc::new(Doorbell::default());
    let intake = spawn_intake(
        state.clone(),
        doorbell.clone(),
        Duration::from_secs(2),
        stop_rx.clone(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let lmtp = listener.local_addr()?;
    let listening = spawn_listener(
        listener,
        pool.clone(),
        doorbell,
        ListenerSettings::default(),
        stop_rx,
    );
    let http = BenchServer::start(state, &telemetry)?;

    let mut setup = Connection::open(http.addr).await?;
    let mut games = Vec::new();
    for _ in 0..2 * GAMES {
        let body = r#"{"ruleset":"cutthroat","players":["ann","bob","cy","di","ed"]}"#;
        let (status, body) = setup.send("POST", "/v1/games", Some(&gm), body).await?;
        if status != 201 {
            return Err(fail(format!("creating a game: {status} {body}")));
        }
        let created: serde_json::Value = serde_json::from_str(&body).map_err(fail)?;
        games.push(created["game_id"].as_str().unwrap_or_default().to_owned());
    }
    let (by_http, by_mail) = games.split_at(GAMES);

    let http_elapsed = turns_over_http(http.addr, &gm, by_http).await?;

    // By mail: each step, one reply to each game's reply address over one LMTP
    // conversation, then until the intake has recorded them all.
    let mut lmtp_time = Duration::ZERO;
    let mut mail_elapsed = Duration::ZERO;
    let client = pool.get().await.map_err(fail)?;
    let mut conversation = Lmtp::open(lmtp).await?;
    for step in 0..TURNS {
        // The replies, as players' mail programs would have them ready (not timed).
        let mut replies = Vec::new();
        for (n, game) in by_mail.iter().enumerate() {
            let view = turn_of(&client, game).await?;
            let token = issue(&replies_key.key, &view)
                .ok_or_else(|| fail("a game without a reply token"))?;
            let to = reply_address(&token, "bench.example");
            let from = format!("{}@bench.example", view.player);
            let message = format!(
                "From: {from}\r\nTo: {to}\r\nSubject: Re: Your move\r\n\
                 Message-ID: <bench-{step}-{n}-{game}@bench.example>\r\n\r\n{}",
                TEXT.replace('\n', "\r\n")
            );
            replies.push((from, to, message));
        }
        let started = Instant::now();
        for (from, to, message) in &replies {
            conversation.deliver(from, to, message).await?;
        }
        lmtp_time += started.elapsed();
        loop {
            let row = client
                .query_one(
                    "SELECT count(*) FROM mail_inbox WHERE decided_at IS NULL",
                    &[],
                )
                .await
                .map_err(fail)?;
            if row.get::<_, i64>(0) == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        mail_elapsed += started.elapsed();
    }
    all_recorded(&client).await?;
    print_table(http_elapsed, mail_elapsed, lmtp_time);
    conversation.quit().await?;
    let _ = stop_tx.send(true);
    let _ = intake.await;
    let _ = listening.await;
    http.stop().await;
    pool.close();
    Ok(())
}

/// Over HTTP: each step, one turn to each game at once, one connection a game; how long
/// it all took.
async fn turns_over_http(
    addr: std::net::SocketAddr,
    gm: &str,
    games: &[String],
) -> Result<Duration, CliError> {
    let started = Instant::now();
    for _ in 0..TURNS {
        let sent: Vec<_> = games
            .iter()
            .map(|game| {
                let (gm, game) = (gm.to_owned(), game.clone());
                tokio::spawn(async move {
                    let mut connection = Connection::open(addr).await?;
                    let path = format!("/v1/games/{game}/turn");
                    let (status, body) = connection
                        .send_as("POST", &path, Some(&gm), "text/plain", TEXT)
                        .await?;
                    if status != 200 {
                        return Err(fail(format!("a turn over HTTP: {status} {body}")));
                    }
                    Ok::<_, CliError>(())
                })
            })
            .collect();
        for turn in sent {
            turn.await.map_err(fail)??;
        }
    }
    Ok(started.elapsed())
}

/// Every turn sent by mail is on the record: a failure names what became of each.
async fn all_recorded(client: &warlog_store::PooledClient) -> Result<(), CliError> {
    let outcomes = client
        .query(
            "SELECT outcome, count(*) FROM mail_inbox GROUP BY outcome ORDER BY outcome",
            &[],
        )
        .await
        .map_err(fail)?;
    let recorded: i64 = outcomes
        .iter()
        .filter(|row| row.get::<_, Option<String>>(0).as_deref() == Some("recorded"))
        .map(|row| row.get::<_, i64>(1))
        .sum();
    if recorded != (GAMES * TURNS) as i64 {
        let seen: Vec<String> = outcomes
            .iter()
            .map(|row| {
                format!(
                    "{:?}: {}",
                    row.get::<_, Option<String>>(0),
                    row.get::<_, i64>(1)
                )
            })
            .collect();
        return Err(fail(format!(
            "by mail, {recorded} of {} turns were recorded ({})",
            GAMES * TURNS,
            seen.join(", ")
        )));
    }
    Ok(())
}

/// The two paths side by side, as a Markdown table.
fn print_table(http_elapsed: Duration, mail_elapsed: Duration, lmtp_time: Duration) {
    let turns = (GAMES * TURNS) as f64;
    let http_rate = turns / http_elapsed.as_secs_f64();
    let mail_rate = turns / mail_elapsed.as_secs_f64();
    println!(
        "warlog bench mail: {GAMES} games, {TURNS} turns each on each path, in-process server \
         with 2 HTTP workers and one intake, {} cores",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    println!();
    println!("| path | turns | seconds | turns/s | ms a turn | ratio |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| HTTP, `POST /v1/games/{{id}}/turn` (baseline) | {turns} | {:.2} | {http_rate:.0} | {:.2} | 1.000 |",
        http_elapsed.as_secs_f64(),
        http_elapsed.as_secs_f64() * 1e3 / turns
    );
    println!(
        "| mail, LMTP to the listener, decided by the intake | {turns} | {:.2} | {mail_rate:.0} | {:.2} | {:.3} |",
        mail_elapsed.as_secs_f64(),
        mail_elapsed.as_secs_f64() * 1e3 / turns,
        mail_rate / http_rate
    );
    println!(
        "| of which the listener keeping each message (LMTP to 250) | {turns} | {:.2} | {:.0} | {:.2} | |",
        lmtp_time.as_secs_f64(),
        turns / lmtp_time.as_secs_f64().max(1e-9),
        lmtp_time.as_secs_f64() * 1e3 / turns
    );
}

/// The turn under way in `game` and its seated player, from the game's fold.
async fn turn_of(client: &warlog_store::PooledClient, game: &str) -> Result<TurnRef, CliError> {
    let stream =
        warlog_events::StreamId::of(warlog_events::StreamCategory::Game, game).map_err(fail)?;
    let events = warlog_store::read_stream(client, &stream, 1, u32::MAX).await?;
    let log = warlog_events::game::GameLog::fold(&events).map_err(fail)?;
    let (round, _, power) = log
        .turn_under_way()
        .ok_or_else(|| fail("no turn under way"))?;
    let player = log
        .state
        .seats
        .get(&power)
        .map(|seat| seat.player.clone())
        .ok_or_else(|| fail("no player seated"))?;
    Ok(TurnRef {
        game_id: game.to_owned(),
        round,
        power,
        player,
    })
}

/// One LMTP conversation with the listener, as a mail server holds it.
struct Lmtp {
    stream: BufReader<TcpStream>,
}

impl Lmtp {
    async fn open(addr: std::net::SocketAddr) -> Result<Lmtp, CliError> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let mut lmtp = Lmtp {
            stream: BufReader::new(stream),
        };
        lmtp.expect("220").await?;
        lmtp.say("LHLO bench.example", "250").await?;
        Ok(lmtp)
    }

    /// Reads one reply (its continuation lines too), which must start with `code`.
    async fn expect(&mut self, code: &str) -> Result<(), CliError> {
        loop {
            let mut line = String::new();
            self.stream.read_line(&mut line).await?;
            if !line.starts_with(code) {
                return Err(fail(format!("LMTP: expected {code}, got {line:?}")));
            }
            if line.as_bytes().get(3) != Some(&b'-') {
                return Ok(());
            }
        }
    }

    async fn say(&mut self, command: &str, code: &str) -> Result<(), CliError> {
        self.stream
            .get_mut()
            .write_all(format!("{command}\r\n").as_bytes())
            .await?;
        self.expect(code).await
    }

    async fn deliver(&mut self, from: &str, to: &str, message: &str) -> Result<(), CliError> {
        self.say(&format!("MAIL FROM:<{from}>"), "250").await?;
        self.say(&format!("RCPT TO:<{to}>"), "250").await?;
        self.say("DATA", "354").await?;
        self.say(&format!("{message}\r\n."), "250").await
    }

    async fn quit(&mut self) -> Result<(), CliError> {
        self.say("QUIT", "221").await
    }
}
