//! `warlog demo` (or `warlog --demo`): serve, and fill a fresh database through the HTTP
//! command path, so a newcomer sees warlog at work: players registered, friendly Cut-Throat
//! games played over three rounds with real battles (orders checked by the rules engine,
//! dice rolled by the server, some sent as a plain-text turn, one game as JSON orders),
//! ended with their placements; an AAP Historical game on the Pacific board, its first
//! round passed; a tournament with round 1 played and round 2 in progress,
//! where a player who let a turn lie for more than three days was replaced by a substitute
//! from the waiting list; and one ended game's export checked by the offline auditor.
//!
//! The 3-day rule takes three days. So the demo writes through a second, private server on
//! the same database whose clock starts a month back and moves on a few hours a turn:
//! every event goes through the same command path, and the record shows four weeks of
//! play, ending before the service's own clock. (Only the tokens are made on the owner's
//! connection, as `warlog token create` makes them: the service's roles may not write
//! tokens.)
//!
//! The dice come from each game's fresh seed, so the script never assumes who won: before
//! each turn that attacks it reads the board and sends only the attacks that still make
//! sense (the units still there, the place still an enemy's).
//!
//! A database that already holds the demo's players is left as it is.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;

use actix_web::HttpServer;
use serde_json::{json, Value};
use time::{Duration, OffsetDateTime};
use warlog_api::auth::Role;
use warlog_api::{AppState, Clock, Telemetry};
use warlog_events::audit::{audit_game, Outcome};
use warlog_events::{StreamCategory, StreamId};
use warlog_rules::board::Power;
use warlog_store::stream_head;

use crate::client::Connection;
use crate::CliError;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::Other(e.to_string())
}

/// The demo's players: handle and display name. The last two enter the tournament when it
/// is full and wait.
const PLAYERS: [(&str, &str); 12] = [
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
    ("kim", "Kim Halvorsen"),
    ("lev", "Lev Abramov"),
];

/// Cut-Throat's order of play.
const POWERS: [&str; 5] = [
    "russia",
    "germany",
    "united-kingdom",
    "japan",
    "united-states",
];

/// How far back the demo's record begins. Its script moves the clock on the same four
/// weeks whatever the dice, and stops short of the present (it checks).
const RECORD_BEGINS_DAYS_AGO: i64 = 30;

/// Units leaving `path[0]` along `path` (single steps, or an armour's two through a place of
/// its own).
#[derive(Debug)]
struct Move {
    units: &'static [(&'static str, u32)],
    path: &'static [&'static str],
}

/// An attack a power makes in a round, if the board still allows it when its turn comes.
#[derive(Debug)]
struct Strike {
    round: u64,
    power: &'static str,
    target: &'static str,
    moves: &'static [Move],
}

const fn strike(
    round: u64,
    power: &'static str,
    target: &'static str,
    moves: &'static [Move],
) -> Strike {
    Strike {
        round,
        power,
        target,
        moves,
    }
}

/// Round 2: Russia into Ukraine (and Persia, left empty by Britain), Germany into Karelia,
/// Britain into Libya, Japan into China, America into West Canada. Round 3: whoever is
/// still able follows up.
#[rustfmt::skip]
const EASTERN_FRONT: &[Strike] = &[
    strike(2, "russia", "Ukraine S.S.R.", &[
        Move { units: &[("INF", 5)], path: &["Caucasus", "Ukraine S.S.R."] },
        Move { units: &[("INF", 3), ("ARM", 1)], path: &["Karelia S.S.R.", "Ukraine S.S.R."] },
    ]),
    strike(2, "russia", "Persia", &[
        Move { units: &[("ARM", 1)], path: &["Kazakh S.S.R.", "Persia"] },
    ]),
    strike(2, "germany", "Karelia S.S.R.", &[
        Move { units: &[("INF", 3), ("ARM", 1)], path: &["Finland Norway", "Karelia S.S.R."] },
        Move { units: &[("INF", 3), ("ARM", 1)], path: &["East Europe", "Karelia S.S.R."] },
    ]),
    strike(2, "united-kingdom", "Libya", &[
        Move { units: &[("INF", 1), ("ARM", 1)], path: &["Anglo Sudan Egypt", "Libya"] },
    ]),
    strike(2, "japan", "China", &[
        Move { units: &[("INF", 4)], path: &["Kwangtung", "China"] },
        Move { units: &[("INF", 3)], path: &["Manchuria", "China"] },
    ]),
    strike(2, "united-states", "West Canada", &[
        Move { units: &[("INF", 2)], path: &["Alaska", "West Canada"] },
    ]),
    strike(3, "russia", "Manchuria", &[
        Move { units: &[("INF", 3)], path: &["Yakut S.S.R.", "Manchuria"] },
        Move { units: &[("INF", 2), ("ARM", 1)], path: &["Soviet Far East", "Manchuria"] },
    ]),
    strike(3, "russia", "Karelia S.S.R.", &[
        Move { units: &[("INF", 6), ("ARM", 2)], path: &["Russia", "Karelia S.S.R."] },
    ]),
    strike(3, "germany", "Ukraine S.S.R.", &[
        Move { units: &[("ARM", 2)], path: &["Germany", "East Europe", "Ukraine S.S.R."] },
    ]),
    strike(3, "germany", "French Equatorial Africa", &[
        Move { units: &[("INF", 2)], path: &["Algeria", "French Equatorial Africa"] },
    ]),
    strike(3, "united-kingdom", "French Indo China", &[
        Move { units: &[("INF", 4)], path: &["India", "French Indo China"] },
    ]),
    strike(3, "japan", "Sinkiang", &[
        Move { units: &[("INF", 7)], path: &["China", "Sinkiang"] },
    ]),
    strike(3, "united-states", "China", &[
        Move { units: &[("INF", 2)], path: &["Sinkiang", "China"] },
    ]),
];

/// Round 2: Russia into Sinkiang, Germany's two armies into Karelia, Britain into Indochina,
/// Japan into China, America into West Canada (and Kazakh, if Russia's attack left it
/// open). Round 3: Germany into Egypt and West Africa, and the follow-ups.
#[rustfmt::skip]
const TWO_OCEANS: &[Strike] = &[
    strike(2, "russia", "Sinkiang", &[
        Move { units: &[("INF", 1), ("ARM", 1)], path: &["Kazakh S.S.R.", "Sinkiang"] },
        Move { units: &[("INF", 2)], path: &["Novosibirsk", "Sinkiang"] },
    ]),
    strike(2, "germany", "Karelia S.S.R.", &[
        Move { units: &[("INF", 3), ("ARM", 2)], path: &["Ukraine S.S.R.", "Karelia S.S.R."] },
        Move { units: &[("INF", 3), ("ARM", 1)], path: &["East Europe", "Karelia S.S.R."] },
    ]),
    strike(2, "united-kingdom", "French Indo China", &[
        Move { units: &[("INF", 4)], path: &["India", "French Indo China"] },
    ]),
    strike(2, "japan", "China", &[
        Move { units: &[("INF", 4)], path: &["Kwangtung", "China"] },
    ]),
    strike(2, "united-states", "West Canada", &[
        Move { units: &[("INF", 2)], path: &["Alaska", "West Canada"] },
    ]),
    strike(2, "united-states", "Kazakh S.S.R.", &[
        Move { units: &[("INF", 2)], path: &["Sinkiang", "Kazakh S.S.R."] },
    ]),
    strike(3, "russia", "Karelia S.S.R.", &[
        Move { units: &[("INF", 6), ("ARM", 2)], path: &["Russia", "Karelia S.S.R."] },
    ]),
    strike(3, "russia", "Ukraine S.S.R.", &[
        Move { units: &[("INF", 5)], path: &["Caucasus", "Ukraine S.S.R."] },
    ]),
    strike(3, "germany", "Anglo Sudan Egypt", &[
        Move { units: &[("INF", 2), ("ARM", 1)], path: &["Libya", "Anglo Sudan Egypt"] },
    ]),
    strike(3, "germany", "French West Africa", &[
        Move { units: &[("INF", 2)], path: &["Algeria", "French West Africa"] },
    ]),
    strike(3, "united-kingdom", "Libya", &[
        Move { units: &[("INF", 1), ("ARM", 1)], path: &["Anglo Sudan Egypt", "Libya"] },
    ]),
    strike(3, "japan", "India", &[
        Move { units: &[("INF", 2)], path: &["French Indo China", "India"] },
    ]),
    strike(3, "united-states", "China", &[
        Move { units: &[("INF", 2)], path: &["Sinkiang", "China"] },
    ]),
];

/// How a game's turns are sent: as plain text (`POST /v1/games/{id}/turn`), or as JSON
/// orders (`POST /v1/games/{id}/orders`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sent {
    Text,
    Json,
}

/// A turn: `round`, and the power's place in the order of play.
type Turn = (u64, usize);

/// What the demo filled, and where to look.
#[derive(Debug, Clone)]
pub struct Filled {
    /// The leaderboard page.
    pub leaderboard: String,
    /// A battle, in words.
    pub battle: String,
    /// The game page's map at that battle: the board at the battle's version, the place
    /// ringed.
    pub battle_map: String,
    /// The tournament's page.
    pub tournament: String,
    /// The tournament's id.
    pub tournament_id: String,
    /// The substitution, in words.
    pub substitution: String,
    /// The ended game whose export the offline auditor passed.
    pub audited_game: String,
    /// The server's audit of that game.
    pub audit: String,
    /// The friendly games, ended.
    pub friendly_games: Vec<String>,
    /// The AAP Historical game, on the Pacific board, running.
    pub pacific_game: String,
}

/// Fills the database behind `state` (the service's, served at `addr`), unless it is filled
/// already; `None` then.
pub async fn fill(
    state: &AppState,
    telemetry: &Telemetry,
    owner: &tokio_postgres::Config,
    addr: SocketAddr,
) -> Result<Option<Filled>, CliError> {
    {
        let pool = state.store.pool();
        let client = pool.get().await.map_err(warlog_store::StoreError::from)?;
        let first = StreamId::of(StreamCategory::Player, PLAYERS[0].0).map_err(fail)?;
        if stream_head(&client, &first).await?.is_some() {
            tracing::info!("demo data is there already");
            return Ok(None);
        }
    }
    let started = std::time::Instant::now();
    let begins = OffsetDateTime::now_utc() - Duration::days(RECORD_BEGINS_DAYS_AGO);
    let clock = Clock::fixed(begins);
    let (private, server) = backdated_server(state, telemetry, &clock)?;
    let handle = server.handle();
    tokio::spawn(server);
    let tokens = tokens(owner).await?;
    let filled = async {
        let mut demo = Demo {
            http: listening(private).await?,
            tokens: tokens.clone(),
            clock,
            turns: 0,
            battles: Vec::new(),
        };
        demo.script(addr).await
    }
    .await;
    handle.stop(true).await;
    // Nobody holds the demo's tokens once it is done, and a start after a failed fill
    // must be able to make them again.
    revoke(owner, tokens.values()).await?;
    let filled = filled?;
    tracing::info!(
        "demo filled in {:.1} s, its record dated over the past {RECORD_BEGINS_DAYS_AGO} days. The leaderboard: {} | {} on the map: {} | the tournament: {} (round 2: {}) | game {}'s export passed the offline audit (the server's audit: {})",
        started.elapsed().as_secs_f64(),
        filled.leaderboard,
        filled.battle,
        filled.battle_map,
        filled.tournament,
        filled.substitution,
        filled.audited_game,
        filled.audit,
    );
    Ok(Some(filled))
}

/// A server on `state` whose clock is `clock`, on a port of its own, for the demo alone.
fn backdated_server(
    state: &AppState,
    telemetry: &Telemetry,
    clock: &Clock,
) -> Result<(SocketAddr, actix_web::dev::Server), CliError> {
    let mut backdated = state.clone();
    backdated.clock = clock.clone();
    // The script reads the board it has just written: from the primary.
    backdated.reads = None;
    let telemetry = telemetry.clone();
    let server = HttpServer::new(move || warlog_api::app(backdated.clone(), &telemetry))
        .disable_signals()
        .workers(1)
        .shutdown_timeout(1)
        .bind("127.0.0.1:0")
        .map_err(|e| fail(format!("the demo cannot listen on 127.0.0.1: {e}")))?;
    let addr = *server
        .addrs()
        .first()
        .ok_or_else(|| fail("the demo's server listens nowhere"))?;
    Ok((addr, server.run()))
}

/// The director's token and one for each player, made on the owner's connection: the
/// service's roles may not write tokens. Each player sends the turns of their own power.
async fn tokens(owner: &tokio_postgres::Config) -> Result<BTreeMap<String, String>, CliError> {
    let client = crate::owner_client(owner).await?;
    let mut tokens = BTreeMap::new();
    let people = std::iter::once(("demo-director", Role::Director))
        .chain(PLAYERS.iter().map(|(handle, _)| (*handle, Role::Player)));
    for (name, role) in people {
        let token = warlog_api::auth::issue_token(&client, name, role)
            .await
            .map_err(|e| CliError::Other(e.detail))?;
        tokens.insert(name.to_owned(), token);
    }
    Ok(tokens)
}

async fn revoke(
    owner: &tokio_postgres::Config,
    tokens: impl Iterator<Item = &String>,
) -> Result<(), CliError> {
    let client = crate::owner_client(owner).await?;
    for token in tokens {
        let id = hex::encode(warlog_api::auth::hash_token(token));
        warlog_store::tokens::revoke_token(&client, &id).await?;
    }
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
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
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

fn text_of(value: &Value, what: &str) -> Result<String, CliError> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| fail(format!("no {what} in the answer")))
}

/// A battle the server fought: where to see it.
#[derive(Debug, Clone)]
struct Battle {
    game: String,
    version: u64,
    round: u64,
    territory: String,
    dice: usize,
}

/// A place's name in a query string.
fn query_component(text: &str) -> String {
    let mut encoded = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            let _ = write!(encoded, "%{byte:02X}");
        }
    }
    encoded
}

/// The board as `GET /v1/games/{id}/board` gives it, as much as a strike needs.
struct Board<'a>(&'a Value);

impl Board<'_> {
    fn place(&self, name: &str) -> Option<&Value> {
        self.0["places"]
            .as_array()?
            .iter()
            .find(|p| p["name"] == name)
    }

    fn holder(&self, name: &str) -> Option<&str> {
        self.place(name)?["holder"].as_str()
    }

    /// `power`'s units of type `unit` in a place.
    fn units(&self, name: &str, power: &str, unit: &str) -> u32 {
        self.place(name)
            .and_then(|p| p["units"].as_array())
            .map(|stacks| {
                stacks
                    .iter()
                    .filter(|s| s["power"] == power && s["unit"] == unit)
                    .filter_map(|s| s["count"].as_u64())
                    .map(|n| u32::try_from(n).unwrap_or(0))
                    .sum()
            })
            .unwrap_or(0)
    }

    /// Whether `power` holds a place with none but its own units in it (one to move through).
    fn clear_for(&self, name: &str, power: &str) -> bool {
        self.holder(name) == Some(power)
            && self.place(name).is_some_and(|p| {
                p["units"]
                    .as_array()
                    .is_some_and(|stacks| stacks.iter().all(|s| s["power"] == power))
            })
    }
}

/// A move a strike makes, with the units still there to make it.
#[derive(Debug)]
struct Planned {
    units: Vec<(String, u32)>,
    path: Vec<String>,
    target: String,
}

/// The moves of `strikes` the board allows `power` now.
fn plan(board: &Board<'_>, power: &str, strikes: &[&Strike]) -> Vec<Planned> {
    let mut used: BTreeMap<(&str, &str), u32> = BTreeMap::new();
    let mut planned = Vec::new();
    for strike in strikes {
        let held_by_another = board
            .holder(strike.target)
            .is_some_and(|holder| holder != power);
        if !held_by_another {
            continue;
        }
        for step in strike.moves {
            let [from, between @ .., _] = step.path else {
                continue;
            };
            let from: &str = from;
            if !between.iter().all(|p| board.clear_for(p, power)) {
                continue;
            }
            let units: Vec<(String, u32)> = step
                .units
                .iter()
                .filter_map(|(unit, wanted)| {
                    let unit: &str = unit;
                    let taken = used.entry((from, unit)).or_default();
                    let free = board.units(from, power, unit).saturating_sub(*taken);
                    let n = (*wanted).min(free);
                    *taken += n;
                    (n > 0).then(|| (unit.to_owned(), n))
                })
                .collect();
            if !units.is_empty() {
                planned.push(Planned {
                    units,
                    path: step.path.iter().map(|p| (*p).to_owned()).collect(),
                    target: strike.target.to_owned(),
                });
            }
        }
    }
    planned
}

/// The places the moves attack, each once, in order.
fn targets(planned: &[Planned]) -> Vec<&str> {
    let mut targets: Vec<&str> = Vec::new();
    for Planned { target, .. } in planned {
        if !targets.contains(&target.as_str()) {
            targets.push(target);
        }
    }
    targets
}

/// The turn as a player writes it: the moves, the battles, the end of the turn (the
/// phases between end by themselves).
fn turn_text(planned: &[Planned]) -> String {
    let mut text = String::new();
    for Planned { units, path, .. } in planned {
        let units: Vec<String> = units.iter().map(|(u, n)| format!("{n} {u}")).collect();
        let _ = writeln!(text, "move {}: {}", units.join(", "), path.join(" > "));
    }
    for target in targets(planned) {
        let _ = writeln!(text, "battle {target}");
    }
    text.push_str("end turn\n");
    text
}

/// The same turn as JSON orders, every phase ended in so many words: repairs, weapons
/// development and purchase; the combat moves; the battles; then non-combat move,
/// placement and income.
fn turn_orders(planned: &[Planned]) -> Vec<Value> {
    let end = json!({"type": "end_phase"});
    let mut orders = vec![end.clone(), end.clone(), end.clone()];
    for Planned { units, path, .. } in planned {
        let units: serde_json::Map<String, Value> =
            units.iter().map(|(u, n)| (u.clone(), json!(n))).collect();
        orders.push(json!({"type": "move", "units": units, "path": path}));
    }
    orders.push(end.clone());
    for target in targets(planned) {
        orders.push(json!({"type": "fight_battle", "territory": target}));
    }
    orders.extend(std::iter::repeat_n(end, 4));
    orders
}

#[derive(Debug)]
struct Demo {
    http: Connection,
    /// Handle (or `demo-director`) to token.
    tokens: BTreeMap<String, String>,
    clock: Clock,
    turns: u64,
    battles: Vec<Battle>,
}

impl Demo {
    async fn post_as(
        &mut self,
        who: &str,
        path: &str,
        body: Value,
        expected: u16,
    ) -> Result<Value, CliError> {
        let token = self
            .tokens
            .get(who)
            .ok_or_else(|| fail(format!("no token for {who}")))?;
        self.http
            .json("POST", path, Some(token), &body, expected)
            .await
    }

    async fn post(&mut self, path: &str, body: Value, expected: u16) -> Result<Value, CliError> {
        self.post_as("demo-director", path, body, expected).await
    }

    async fn get(&mut self, path: &str) -> Result<Value, CliError> {
        self.http.json("GET", path, None, &Value::Null, 200).await
    }

    fn advance(&self, by: Duration) {
        self.clock.advance(by);
    }

    /// The whole demo, written as its clock moves on; `addr` is the service's address, for
    /// the links.
    async fn script(&mut self, addr: SocketAddr) -> Result<Filled, CliError> {
        for (handle, name) in PLAYERS {
            self.post(
                "/v1/players",
                json!({"handle": handle, "display_name": name}),
                201,
            )
            .await?;
            self.advance(Duration::minutes(37));
        }
        let table = |picks: [usize; 5]| picks.map(|i| PLAYERS[i].0).to_vec();

        // Friendly games, three rounds each, ended.
        let mut friendly_games = Vec::new();
        for (picks, script, sent) in [
            ([0, 1, 2, 3, 4], EASTERN_FRONT, Sent::Text),
            ([5, 6, 7, 8, 9], TWO_OCEANS, Sent::Json),
            ([0, 2, 4, 10, 11], TWO_OCEANS, Sent::Text),
            ([1, 3, 5, 7, 9], EASTERN_FRONT, Sent::Text),
        ] {
            self.advance(Duration::hours(20));
            let game = self.new_game(&table(picks)).await?;
            self.play(&game, script, sent, (1, 0), (4, 0)).await?;
            self.end(&game).await?;
            friendly_games.push(game);
        }

        // The Pacific board: an AAP Historical game, its first round passed, still running.
        self.advance(Duration::hours(6));
        let pacific = self
            .new_game_of("aap-historical", &table([6, 7, 8, 9, 10]))
            .await?;
        self.pass_until(&pacific, 2).await?;

        let (tournament, substitution) = self.tournament().await?;

        let audited_game = friendly_games[0].clone();
        self.audit(&audited_game).await?;
        let battle = self
            .battles
            .iter()
            .filter(|b| b.game == audited_game)
            .max_by_key(|b| b.dice)
            .or_else(|| self.battles.first())
            .cloned()
            .ok_or_else(|| fail("no battle was fought"))?;
        let site = format!("http://{addr}");
        Ok(Filled {
            leaderboard: format!("{site}/"),
            battle: format!(
                "the battle of {} in round {} ({} dice)",
                battle.territory, battle.round, battle.dice
            ),
            battle_map: format!(
                "{site}/games/{}?version={}&highlight={}#map",
                battle.game,
                battle.version,
                query_component(&battle.territory)
            ),
            tournament: format!("{site}/tournaments/{tournament}"),
            tournament_id: tournament,
            substitution,
            audit: format!("{site}/v1/games/{audited_game}/audit"),
            audited_game,
            friendly_games,
            pacific_game: pacific,
        })
    }

    /// A tournament of ten, two waiting: round 1 played; in round 2 a player lets a turn lie
    /// for more than three days, and the first on the waiting list takes the seat.
    async fn tournament(&mut self) -> Result<(String, String), CliError> {
        self.advance(Duration::days(1));
        let deadline = |at: OffsetDateTime| {
            at.format(&time::format_description::well_known::Rfc3339)
                .map_err(fail)
        };
        let round_1 = deadline(self.clock.now() + Duration::days(14))?;
        // Round 2 is still being played today.
        let round_2 = deadline(OffsetDateTime::now_utc() + Duration::days(14))?;
        let created = self
            .post(
                "/v1/tournaments",
                json!({
                    "name": "Demo Cut-Throat Open",
                    "rounds": 2,
                    "deadlines": [round_1, round_2],
                    "capacity": 10,
                }),
                201,
            )
            .await?;
        let tournament = text_of(&created["tournament_id"], "tournament id")?;
        for (handle, _) in PLAYERS {
            self.advance(Duration::minutes(50));
            self.post_as(
                handle,
                &format!("/v1/tournaments/{tournament}/entries"),
                json!({ "player": handle }),
                200,
            )
            .await?;
        }
        let rounds = format!("/v1/tournaments/{tournament}/rounds");
        self.advance(Duration::days(1));
        let round = self.post(&rounds, json!({}), 201).await?;
        for (game, script) in game_ids(&round).iter().zip([EASTERN_FRONT, TWO_OCEANS]) {
            self.play(game, script, Sent::Text, (1, 0), (4, 0)).await?;
            self.end(game).await?;
        }

        self.advance(Duration::days(1));
        let round = self.post(&rounds, json!({}), 201).await?;
        let games = game_ids(&round);
        let [first, second] = games.as_slice() else {
            return Err(fail("round 2 is not two tables"));
        };
        // The first table plays to Germany's turn in round 2, and there it lies.
        self.play(first, EASTERN_FRONT, Sent::Text, (1, 0), (2, 1))
            .await?;
        let idle_since = self.clock.now();
        self.play(second, TWO_OCEANS, Sent::Text, (1, 0), (2, 2))
            .await?;
        // More than three days since the seat's last move.
        let open = idle_since + Duration::hours(3 * 24 + 5);
        if self.clock.now() < open {
            self.advance(open - self.clock.now());
        }
        let substitution = self
            .post(
                &format!("/v1/tournaments/{tournament}/substitutions"),
                json!({ "game_id": first }),
                201,
            )
            .await?;
        let power: Power = serde_json::from_value(substitution["power"].clone()).map_err(fail)?;
        let substitution = format!(
            "{} took {}'s seat from {} in game {first} after more than three days without a move",
            text_of(&substitution["substitute"], "substitute")?,
            power.name(),
            text_of(&substitution["replaced"], "replaced player")?,
        );
        // The substitute plays the turn left waiting.
        self.play(first, EASTERN_FRONT, Sent::Text, (2, 1), (2, 2))
            .await?;
        if self.clock.now() >= OffsetDateTime::now_utc() {
            return Err(fail("the demo's record ran past the present"));
        }
        Ok((tournament, substitution))
    }

    async fn new_game(&mut self, players: &[&str]) -> Result<String, CliError> {
        self.new_game_of("cutthroat", players).await
    }

    async fn new_game_of(&mut self, ruleset: &str, players: &[&str]) -> Result<String, CliError> {
        let created = self
            .post(
                "/v1/games",
                json!({"ruleset": ruleset, "players": players}),
                201,
            )
            .await?;
        text_of(&created["game_id"], "game id")
    }

    /// Every power of `game` ends its turn, in turn, until round `until` begins: each as a
    /// player writes it ("end turn"), sent by the player who holds the seat.
    async fn pass_until(&mut self, game: &str, until: u64) -> Result<(), CliError> {
        let seats = self.seats(game).await?;
        // Bounded: a round is one turn per power.
        for _ in 0..seats.len() * 4 {
            let view = self.get(&format!("/v1/games/{game}")).await?;
            if view["round"].as_u64().unwrap_or(0) >= until {
                return Ok(());
            }
            let power = text_of(&view["turn"], "the power to play")?;
            let player = seats
                .get(&power)
                .ok_or_else(|| fail(format!("no one holds {power} in game {game}")))?
                .clone();
            self.advance(Duration::hours(3));
            let body = json!({"text": "end turn\n", "power": power});
            self.post_as(&player, &format!("/v1/games/{game}/turn"), body, 200)
                .await?;
        }
        Err(fail(format!("game {game} never reached round {until}")))
    }

    /// Who holds each power's seat now.
    async fn seats(&mut self, game: &str) -> Result<BTreeMap<String, String>, CliError> {
        let view = self.get(&format!("/v1/games/{game}")).await?;
        Ok(view["seats"]
            .as_array()
            .map(|seats| {
                seats
                    .iter()
                    .filter_map(|s| {
                        Some((
                            s["power"].as_str()?.to_owned(),
                            s["player"].as_str()?.to_owned(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Plays the turns from `from` up to, not including, `to`, each sent by the player who
    /// holds the seat, a few hours apart: each power's strikes of the round that the board
    /// still allows, then the end of its turn.
    async fn play(
        &mut self,
        game: &str,
        script: &[Strike],
        sent: Sent,
        from: Turn,
        to: Turn,
    ) -> Result<(), CliError> {
        let seats = self.seats(game).await?;
        let mut turn = from;
        while turn < to {
            let (round, index) = turn;
            let power = POWERS[index];
            let player = seats
                .get(power)
                .ok_or_else(|| fail(format!("no one holds {power} in game {game}")))?
                .clone();
            self.turns += 1;
            // Two to seven hours between turns.
            self.advance(Duration::hours(
                2 + i64::try_from(self.turns * 7 % 6).unwrap_or(0),
            ));
            let strikes: Vec<&Strike> = script
                .iter()
                .filter(|s| s.round == round && s.power == power)
                .collect();
            let planned = if strikes.is_empty() {
                Vec::new()
            } else {
                let board = self.get(&format!("/v1/games/{game}/board")).await?;
                plan(&Board(&board), power, &strikes)
            };
            let (path, body) = match sent {
                Sent::Text => (
                    format!("/v1/games/{game}/turn"),
                    json!({"text": turn_text(&planned), "power": power}),
                ),
                Sent::Json => (
                    format!("/v1/games/{game}/orders"),
                    json!({"power": power, "orders": turn_orders(&planned)}),
                ),
            };
            let answer = self.post_as(&player, &path, body, 200).await?;
            if let Some(refused) = answer.get("refused") {
                return Err(fail(format!(
                    "game {game}: {power}'s turn in round {round} was cut off: {}",
                    refused["detail"].as_str().unwrap_or_default()
                )));
            }
            for battle in answer["battles"].as_array().into_iter().flatten() {
                self.battles.push(Battle {
                    game: game.to_owned(),
                    version: battle["version"].as_u64().unwrap_or_default(),
                    round: battle["round"].as_u64().unwrap_or_default(),
                    territory: battle["territory"].as_str().unwrap_or_default().to_owned(),
                    dice: battle["dice"].as_array().map_or(0, Vec::len),
                });
            }
            turn = if index + 1 == POWERS.len() {
                (round + 1, 0)
            } else {
                (round, index + 1)
            };
        }
        Ok(())
    }

    async fn end(&mut self, game: &str) -> Result<(), CliError> {
        self.advance(Duration::hours(1));
        self.post(&format!("/v1/games/{game}/end"), json!({}), 200)
            .await
            .map(drop)
    }

    /// Exports the game as `warlog audit` reads it, with its published head, and audits it
    /// offline; anything but a pass stops the demo.
    async fn audit(&mut self, game: &str) -> Result<(), CliError> {
        let events = self.get(&format!("/v1/games/{game}/events")).await?;
        let mut export = String::new();
        for event in events.as_array().into_iter().flatten() {
            let _ = writeln!(export, "{event}");
        }
        let events = crate::audit::read_export(export.as_bytes())?;
        let head = self.get(&format!("/v1/streams/game-{game}/head")).await?;
        let head = crate::audit::parse_head(&format!(
            "{}:{}",
            head["version"],
            head["head_hash"].as_str().unwrap_or_default()
        ))?;
        let report = audit_game(&events, None, Some(&head));
        if report.outcome != Outcome::Passed {
            return Err(fail(format!(
                "game {game}'s export did not pass the audit:\n{}",
                report.render()
            )));
        }
        Ok(())
    }
}
