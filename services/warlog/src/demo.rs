//! `warlog demo` (or `warlog --demo`): serve, and fill a fresh database through the real
//! HTTP command path, so a newcomer sees a live leaderboard: players registered, scripted
//! Cut-Throat games played to their end (orders checked by the rules engine, dice rolled
//! by the server), and a small tournament with one round played and the next in progress.
//!
//! A database that already holds the demo's players is left as it is.

use std::net::SocketAddr;

use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_events::{StreamCategory, StreamId};
use warlog_store::{stream_head, Pool};

use crate::client::Connection;
use crate::CliError;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::Other(e.to_string())
}

/// The demo's players: handle and display name.
const PLAYERS: [(&str, &str); 10] = [
    ("ann", "Ann Marsh"),
    ("bob", "Bob Okafor"),
    ("cy", "Cy Lindqvist"),
    ("di", "Di Moreau"),
    ("ed", "Ed Tanaka"),
    ("fay", "Fay Novak"),
    ("gil", "Gil Ferreira"),
    ("hal", "Hal Brennan"),
    ("ida", "Ida Kowalski"),
    ("jo", "Jo Castellano"),
];

/// Fills the database behind the server at `addr`, unless it is filled already.
pub async fn fill(
    pool: &Pool,
    owner: &tokio_postgres::Config,
    addr: SocketAddr,
) -> Result<(), CliError> {
    {
        let client = pool.get().await.map_err(warlog_store::StoreError::from)?;
        let first = StreamId::of(StreamCategory::Player, PLAYERS[0].0).map_err(fail)?;
        if stream_head(&client, &first).await?.is_some() {
            tracing::info!("demo data is there already");
            return Ok(());
        }
    }
    let director = crate::owner_token(owner, "demo-director", Role::Director).await?;
    let mut demo = Demo {
        http: listening(addr).await?,
        token: director,
    };
    for (handle, name) in PLAYERS {
        demo.post(
            "/v1/players",
            json!({"handle": handle, "display_name": name}),
            201,
        )
        .await?;
    }
    let table = |picks: [usize; 5]| picks.map(|i| PLAYERS[i].0).to_vec();

    // Friendly games: Germany takes Moscow; a German thrust into Karelia (real dice); a
    // peace signed after a quiet first round (a five-way tie: a game ended before every
    // power has played a turn would be aborted, not rated).
    let game = demo.new_game(&table([0, 1, 2, 3, 4])).await?;
    demo.germany_takes_moscow(&game).await?;
    let game = demo.new_game(&table([5, 6, 7, 8, 9])).await?;
    demo.germany_takes_moscow(&game).await?;
    let game = demo.new_game(&table([0, 2, 4, 6, 8])).await?;
    demo.thrust_into_karelia(&game).await?;
    let game = demo.new_game(&table([1, 3, 5, 7, 9])).await?;
    demo.pass_until(&game, 2, "russia", "Repairs").await?;
    demo.end(&game).await?;

    // A small tournament: round 1 played, round 2 seated and in progress.
    let deadline = |days: i64| {
        (time::OffsetDateTime::now_utc() + time::Duration::days(days))
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default()
    };
    let tournament = demo
        .post(
            "/v1/tournaments",
            json!({
                "name": "Demo Cut-Throat Open",
                "rounds": 2,
                "deadlines": [deadline(14), deadline(28)],
                "short_tables": "byes",
                "bye_points": 0,
            }),
            201,
        )
        .await?["tournament_id"]
        .as_str()
        .ok_or_else(|| fail("no tournament id"))?
        .to_owned();
    for (handle, _) in PLAYERS {
        demo.post(
            &format!("/v1/tournaments/{tournament}/entries"),
            json!({ "player": handle }),
            200,
        )
        .await?;
    }
    let rounds = format!("/v1/tournaments/{tournament}/rounds");
    let round = demo.post(&rounds, json!({}), 201).await?;
    for game in game_ids(&round) {
        demo.germany_takes_moscow(&game).await?;
    }
    demo.post(&rounds, json!({}), 201).await?;
    tracing::info!(
        "demo filled: 4 games, tournament {tournament} (see http://{addr}/tournaments/{tournament})"
    );
    Ok(())
}

/// A connection once the server answers `/healthz` (it starts accepting a moment after it
/// binds).
async fn listening(addr: SocketAddr) -> Result<Connection, CliError> {
    let mut last = String::new();
    for _ in 0..100 {
        if let Ok(mut http) = Connection::open(addr).await {
            match http.send("GET", "/healthz", None, "").await {
                Ok((200, _)) => return Ok(http),
                Ok((status, body)) => last = format!("{status} {body}"),
                Err(e) => last = e.to_string(),
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    Err(fail(format!("the server at {addr} never answered: {last}")))
}

fn game_ids(round: &Value) -> Vec<String> {
    round["tables"]
        .as_array()
        .map(|tables| {
            tables
                .iter()
                .filter_map(|t| t["game_id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[derive(Debug)]
struct Demo {
    http: Connection,
    token: String,
}

impl Demo {
    async fn post(&mut self, path: &str, body: Value, expected: u16) -> Result<Value, CliError> {
        self.http
            .json("POST", path, Some(&self.token), &body, expected)
            .await
    }

    async fn get(&mut self, path: &str) -> Result<Value, CliError> {
        self.http.json("GET", path, None, &Value::Null, 200).await
    }

    async fn new_game(&mut self, players: &[&str]) -> Result<String, CliError> {
        let created = self
            .post(
                "/v1/games",
                json!({"ruleset": "cutthroat", "players": players}),
                201,
            )
            .await?;
        created["game_id"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| fail("no game id"))
    }

    async fn orders(&mut self, game: &str, power: &str, orders: Value) -> Result<(), CliError> {
        self.post(
            &format!("/v1/games/{game}/orders"),
            json!({"power": power, "orders": orders}),
            200,
        )
        .await
        .map(drop)
    }

    /// Ends phases until it is `power`'s `phase` in `round`.
    async fn pass_until(
        &mut self,
        game: &str,
        round: u64,
        power: &str,
        phase: &str,
    ) -> Result<(), CliError> {
        for _ in 0..500 {
            let view = self.get(&format!("/v1/games/{game}")).await?;
            if view["round"] == round && view["turn"] == power && view["phase"] == phase {
                return Ok(());
            }
            let turn = view["turn"].as_str().unwrap_or_default().to_owned();
            self.orders(game, &turn, json!([{"type": "end_phase"}]))
                .await?;
        }
        Err(fail(format!("{game} never reached {power}'s {phase}")))
    }

    async fn end(&mut self, game: &str) -> Result<(), CliError> {
        self.post(&format!("/v1/games/{game}/end"), json!({}), 200)
            .await
            .map(drop)
    }

    /// Russia pulls back from Moscow and Karelia; Germany's armour drives in unopposed.
    async fn germany_takes_moscow(&mut self, game: &str) -> Result<(), CliError> {
        self.pass_until(game, 1, "russia", "NonCombatMove").await?;
        self.orders(game, "russia", json!([
            {"type": "move", "units": {"INF": 6, "ARM": 2, "FTR": 2}, "path": ["Russia", "Caucasus"]},
            {"type": "move", "units": {"INF": 3, "ARM": 1, "FTR": 1}, "path": ["Karelia", "Caucasus"]},
        ]))
        .await?;
        self.pass_until(game, 2, "germany", "CombatMove").await?;
        self.orders(
            game,
            "germany",
            json!([
                {"type": "move", "units": {"ARM": 1}, "path": ["East Europe", "Karelia", "Russia"]},
                {"type": "end_phase"},
                {"type": "fight_battle", "territory": "Russia"},
            ]),
        )
        .await?;
        self.end(game).await
    }

    /// A German armour attacks the Russian army in Karelia: a battle with the server's dice.
    async fn thrust_into_karelia(&mut self, game: &str) -> Result<(), CliError> {
        // Cut-Throat has no combat in the first round.
        self.pass_until(game, 2, "germany", "CombatMove").await?;
        self.orders(
            game,
            "germany",
            json!([
                {"type": "move", "units": {"ARM": 1}, "path": ["East Europe", "Karelia"]},
                {"type": "end_phase"},
                {"type": "fight_battle", "territory": "Karelia"},
            ]),
        )
        .await?;
        self.end(game).await
    }
}
