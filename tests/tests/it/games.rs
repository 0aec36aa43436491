//! The GM service over HTTP against real PostgreSQL: a Cut-Throat game from creation to
//! placements and an offline audit of its export; the seed kept secret until the reveal;
//! races, retries and bad input that change nothing.

use std::io::Write as _;
use std::sync::{Arc, Mutex};
use warlog::audit::AuditInput;

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_events::audit::{audit_game, Verdict};
use warlog_events::game::GameLog;
use warlog_events::{relink, RecordedEvent};
use warlog_rules::dice::GameSeed;
use warlog_store::games::GameSummaries;
use warlog_store::projector::Projector;
use warlog_store::StoreMetrics;
use warlog_tests::TestDb;

use crate::kit::{app, assert_problem, call, get, post, token, Reply, TestApp};

const PLAYERS: [&str; 5] = ["ann", "bob", "cy", "di", "ed"];

/// A fresh database, the app on it, a game master's token and a new game of theirs.
macro_rules! given_a_game {
    () => {{
        let db = TestDb::new().await;
        let app = app!(db);
        let gm = token(&db, "alice", Role::Gm).await;
        let game = create_game(&app, &gm).await;
        (db, app, gm, game)
    }};
}
pub(crate) use given_a_game;

pub(crate) async fn create_game<B: MessageBody>(app: &impl TestApp<B>, gm: &str) -> String {
    create_game_for(app, gm, &PLAYERS).await
}

/// A new Cut-Throat game of `players`, its powers drawn by the server.
pub(crate) async fn create_game_for<B: MessageBody>(
    app: &impl TestApp<B>,
    gm: &str,
    players: &[&str],
) -> String {
    let reply = call(
        app,
        post(
            "/v1/games",
            gm,
            &json!({"ruleset": "cutthroat", "players": players}),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.json());
    reply.json()["game_id"].as_str().expect("an id").to_owned()
}

/// A director's or game master's action on a game: `end` or `reveal`.
pub(crate) async fn act<B: MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    game: &str,
    action: &str,
) -> Reply {
    call(
        app,
        post(&format!("/v1/games/{game}/{action}"), token, &json!({})),
    )
    .await
}

async fn version<B: MessageBody>(app: &impl TestApp<B>, game: &str) -> u64 {
    call(app, get(&format!("/v1/games/{game}"))).await.json()["version"]
        .as_u64()
        .expect("a version")
}

/// Orders for `power`, as sent.
pub(crate) async fn send_orders<B: MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    game: &str,
    power: &str,
    orders: &Value,
) -> Reply {
    call(
        app,
        post(
            &format!("/v1/games/{game}/orders"),
            token,
            &json!({"power": power, "orders": orders}),
        ),
    )
    .await
}

/// Orders for `power`; panics unless accepted.
pub(crate) async fn order<B: MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    game: &str,
    power: &str,
    orders: Value,
) -> Value {
    let reply = send_orders(app, token, game, power, &orders).await;
    assert_eq!(
        reply.status,
        StatusCode::OK,
        "{power} {orders}: {:?}",
        reply.json()
    );
    reply.json()
}

/// Ends phases until it is `power`'s `phase` in `round`.
pub(crate) async fn pass_until<B: MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    game: &str,
    round: u64,
    power: &str,
    phase: &str,
) {
    for _ in 0..500 {
        let view = call(app, get(&format!("/v1/games/{game}"))).await.json();
        if view["round"] == round && view["turn"] == power && view["phase"] == phase {
            return;
        }
        let turn = view["turn"].as_str().expect("a turn").to_owned();
        order(app, token, game, &turn, json!([{"type": "end_phase"}])).await;
    }
    panic!("never reached round {round}, {power}, {phase}");
}

/// The phases of a turn, in order, as the game view names them.
pub(crate) const PHASES: [&str; 8] = [
    "Repairs",
    "WeaponsDevelopment",
    "Purchase",
    "CombatMove",
    "Battles",
    "NonCombatMove",
    "Placement",
    "Income",
];

/// Each power whose turn is still to come in round 1 ends the phases left of it, in one
/// command of its own player's (each seated player acts in person), until round 2 begins:
/// a quiet first round, so that the game counts once ended (a game ended before every
/// power has played a turn of its own is aborted, and one a player never gave an order in
/// is played by its game master alone: neither is rated).
pub(crate) async fn plays_the_first_round<B: MessageBody>(
    app: &impl TestApp<B>,
    db: &TestDb,
    game: &str,
) {
    let tokens = seat_tokens(app, db, game).await;
    plays_the_first_round_as(app, |power| tokens[power].clone(), game).await;
}

/// Each seated player gives one order of their own: standing orders equal to the
/// defaults, which change nothing on the board. A game its master played for the players
/// from the first order to the last is not rated; tests that play a game with the master's
/// token have each player act once this way, after the game's dice are rolled (the dice
/// follow the record's versions), before it ends.
pub(crate) async fn each_player_gives_an_order<B: MessageBody>(
    app: &impl TestApp<B>,
    db: &TestDb,
    game: &str,
) {
    for (power, player) in seat_tokens(app, db, game).await {
        order(
            app,
            &player,
            game,
            &power,
            json!([{"type": "set_standing_orders"}]),
        )
        .await;
    }
}

/// Each seated power (as the game view names it) to a token of the player seated there.
pub(crate) async fn seat_tokens<B: MessageBody>(
    app: &impl TestApp<B>,
    db: &TestDb,
    game: &str,
) -> std::collections::BTreeMap<String, String> {
    let view = call(app, get(&format!("/v1/games/{game}"))).await.json();
    let mut tokens = std::collections::BTreeMap::new();
    for seat in view["seats"].as_array().expect("seats") {
        let power = seat["power"].as_str().expect("a power").to_owned();
        let player = seat["player"].as_str().expect("a player");
        tokens.insert(power, token(db, player, Role::Player).await);
    }
    tokens
}

/// The same, each power's orders sent with the token `token_of` gives for it.
pub(crate) async fn plays_the_first_round_as<B: MessageBody>(
    app: &impl TestApp<B>,
    token_of: impl Fn(&str) -> String,
    game: &str,
) {
    for _ in 0..PHASES.len() * 5 {
        let view = call(app, get(&format!("/v1/games/{game}"))).await.json();
        if view["round"] != 1 {
            return;
        }
        let turn = view["turn"].as_str().expect("a turn").to_owned();
        let at = PHASES
            .iter()
            .position(|p| view["phase"] == *p)
            .unwrap_or_else(|| panic!("a phase of a turn: {view}"));
        let left = vec![json!({"type": "end_phase"}); PHASES.len() - at];
        order(app, &token_of(&turn), game, &turn, Value::Array(left)).await;
    }
    panic!("round 1 of {game} never ended");
}

/// In round 1, `power` buys three infantry and places them in `territory`.
pub(crate) async fn buys_and_places_infantry<B: MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    game: &str,
    power: &str,
    territory: &str,
) {
    pass_until(app, token, game, 1, power, "Purchase").await;
    order(
        app,
        token,
        game,
        power,
        json!([{"type": "purchase", "units": {"INF": 3}}]),
    )
    .await;
    pass_until(app, token, game, 1, power, "Placement").await;
    order(
        app,
        token,
        game,
        power,
        json!([{"type": "place", "territory": territory, "units": {"INF": 3}}]),
    )
    .await;
}

/// In `round`, a German armour moves along `path` and takes its last place.
pub(crate) async fn german_armour_takes<B: MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    game: &str,
    round: u64,
    path: &[&str],
) {
    pass_until(app, token, game, round, "germany", "CombatMove").await;
    let target = path.last().expect("a path");
    order(
        app,
        token,
        game,
        "germany",
        json!([
            {"type": "move", "units": {"ARM": 1}, "path": path},
            {"type": "end_phase"},
            {"type": "fight_battle", "territory": target},
        ]),
    )
    .await;
}

pub(crate) async fn export<B: MessageBody>(
    app: &impl TestApp<B>,
    game: &str,
) -> Vec<RecordedEvent> {
    let reply = call(
        app,
        get(&format!("/v1/games/{game}/events")).insert_header(("Accept", "application/x-ndjson")),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    warlog::audit::read_export(reply.body.as_ref()).expect("an export")
}

/// A stream's export: `/v1/streams/{stream}/events` as NDJSON without a limit, the whole
/// stream.
pub(crate) async fn stream_export<B: MessageBody>(
    app: &impl TestApp<B>,
    stream: &str,
) -> Vec<RecordedEvent> {
    let reply = call(
        app,
        get(&format!("/v1/streams/{stream}/events"))
            .insert_header(("Accept", "application/x-ndjson")),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    warlog::audit::read_export(reply.body.as_ref()).expect("an export")
}

pub(crate) fn write_export(events: &[RecordedEvent]) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("warlog-export-{}.ndjson", uuid::Uuid::new_v4()));
    let mut file = std::fs::File::create(&path).expect("a temp file");
    for event in events {
        serde_json::to_writer(&mut file, event).expect("written");
        file.write_all(b"\n").expect("written");
    }
    path
}

/// The offline auditor's report on an export file.
pub(crate) fn offline_audit(
    path: &std::path::Path,
    seed: Option<&str>,
) -> warlog_events::audit::AuditReport {
    warlog::audit::audit_files(&AuditInput {
        seed: seed.map(str::to_owned),
        ..AuditInput::files(&[path.to_path_buf()])
    })
    .expect("the file reads")
}

/// The Cut-Throat game of the rules engine's scripted test, over HTTP with the server's
/// dice: treaties in round 1, Moscow taken in round 2, a treaty broken by a bombing raid
/// and a sea battle, Kazakh taken in round 3, Russia's war loan in round 4, the end.
#[actix_web::test]
async fn a_cut_throat_game_over_http_ends_in_placements_and_its_export_passes_the_offline_audit() {
    let (db, app, gm, game) = given_a_game!();
    let created = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    assert_eq!(created["seats"].as_array().map(Vec::len), Some(5));
    assert_eq!(created["seed"], Value::Null);
    assert_eq!(created["seed_commitment"].as_str().map(str::len), Some(64));

    for (a, b, terms) in [
        ("russia", "united-kingdom", "alliance"),
        ("united-kingdom", "germany", "non-aggression"),
    ] {
        order(
            &app,
            &gm,
            &game,
            a,
            json!([{"type": "offer_agreement", "with": b, "terms": terms}]),
        )
        .await;
        order(
            &app,
            &gm,
            &game,
            b,
            json!([{"type": "accept_agreement", "from": a}]),
        )
        .await;
    }
    pass_until(&app, &gm, &game, 1, "russia", "NonCombatMove").await;
    order(&app, &gm, &game, "russia", json!([
        {"type": "move", "units": {"INF": 6, "ARM": 2, "FTR": 2}, "path": ["Russia", "Caucasus"]},
        {"type": "move", "units": {"INF": 3, "ARM": 1, "FTR": 1}, "path": ["Karelia", "Caucasus"]},
        {"type": "move", "units": {"INF": 1, "ARM": 1}, "path": ["Kazakh", "Novosibirsk"]},
    ])).await;

    german_armour_takes(&app, &gm, &game, 2, &["East Europe", "Karelia", "Russia"]).await;

    pass_until(&app, &gm, &game, 2, "united-kingdom", "CombatMove").await;
    order(&app, &gm, &game, "united-kingdom", json!([
        {"type": "break_agreement", "with": "germany"},
        {"type": "move", "units": {"BMB": 1}, "path": ["United Kingdom", "North Sea Zone", "West Europe", "Germany"]},
        {"type": "move", "units": {"BB": 1}, "path": ["North Sea Zone", "Karelia Sea Zone"]},
        {"type": "end_phase"},
    ])).await;
    let raid = order(
        &app,
        &gm,
        &game,
        "united-kingdom",
        json!([{"type": "fight_battle", "territory": "Germany", "bombing_raid": true}]),
    )
    .await;
    assert_eq!(raid["battles"][0]["kind"], "bombing-raid", "{raid}");
    let sea = order(
        &app,
        &gm,
        &game,
        "united-kingdom",
        json!([{"type": "fight_battle", "territory": "Karelia Sea Zone"}]),
    )
    .await;
    let listing = sea["battles"][0]["listing"]
        .as_str()
        .expect("a listing")
        .to_owned();
    assert!(listing.starts_with("A1 "), "{listing}");

    german_armour_takes(&app, &gm, &game, 3, &["Russia", "Kazakh"]).await;

    pass_until(&app, &gm, &game, 4, "russia", "Repairs").await;
    let loan = order(
        &app,
        &gm,
        &game,
        "russia",
        json!([{"type": "apply_for_war_loan"}]),
    )
    .await;
    // The record of the order first, then what it caused.
    assert_eq!(loan["events"][0]["event_type"], "OrdersGiven", "{loan}");
    assert_eq!(loan["events"][1]["event_type"], "WarLoanApplied", "{loan}");

    // The battles, as JSON and in the seed's notation.
    let battles = call(&app, get(&format!("/v1/games/{game}/battles")))
        .await
        .json();
    assert!(
        battles["battles"].as_array().is_some_and(|b| b.len() >= 4),
        "{battles}"
    );
    let sea_number = battles["battles"]
        .as_array()
        .and_then(|b| b.iter().find(|x| x["territory"] == "Karelia Sea Zone"))
        .and_then(|b| b["number"].as_u64())
        .expect("the sea battle");
    let text = call(
        &app,
        get(&format!("/v1/games/{game}/battles/{sea_number}"))
            .insert_header(("Accept", "text/plain")),
    )
    .await;
    assert_eq!(text.status, StatusCode::OK);
    assert_eq!(String::from_utf8_lossy(&text.body), listing);
    let missing = call(&app, get(&format!("/v1/games/{game}/battles/999"))).await;
    assert_problem(&missing, StatusCode::NOT_FOUND, "battle-not-found");

    // Not over yet: no placements; then the end, which reveals the seed.
    let early = call(&app, get(&format!("/v1/games/{game}/placements"))).await;
    assert_problem(&early, StatusCode::CONFLICT, "game-not-ended");
    each_player_gives_an_order(&app, &db, &game).await;
    let ended = act(&app, &gm, &game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    let ended = ended.json();
    let types: Vec<&str> = ended["events"]
        .as_array()
        .map(|e| e.iter().filter_map(|x| x["event_type"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(types, ["OrdersGiven", "GameEnded", "SeedRevealed"]);
    let placements = call(&app, get(&format!("/v1/games/{game}/placements")))
        .await
        .json();
    let rows = placements["placements"].as_array().expect("rows");
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[0]["power"], "germany", "{placements}");
    assert_eq!(rows[4]["power"], "russia", "{placements}");
    let points: f64 = rows.iter().filter_map(|r| r["points"].as_f64()).sum();
    assert!(
        (points - 7.0).abs() < 1e-9,
        "5 + 3 + 2 - 1 - 2 points in all: {placements}"
    );
    assert!(placements["tie_policy"]
        .as_str()
        .is_some_and(|p| p.contains("share")));

    // The server's audit, and the offline one on the export.
    let audit = call(&app, get(&format!("/v1/games/{game}/audit")))
        .await
        .json();
    assert!(
        audit["checks"]
            .as_array()
            .is_some_and(|c| c.iter().all(|c| c["verdict"] == "pass")),
        "{audit}"
    );
    let events = export(&app, &game).await;
    // The stream's NDJSON export is the whole stream too, not one page of it.
    assert!(events.len() > 200, "{} events", events.len());
    assert_eq!(stream_export(&app, &format!("game-{game}")).await, events);
    let tail = call(
        &app,
        get(&format!("/v1/streams/game-{game}/events?from=101"))
            .insert_header(("Accept", "application/x-ndjson")),
    )
    .await;
    assert_eq!(
        warlog::audit::read_export(tail.body.as_ref()).expect("an export"),
        events[100..]
    );
    let path = write_export(&events);
    warlog::audit::run(&AuditInput::files(std::slice::from_ref(&path)), false)
        .expect("the export passes the offline audit");

    // (a) One die in a battle changed: the chain names the event; with the chain
    // recomputed by a forger, the dice check names it.
    let battle_at = events
        .iter()
        .position(|e| {
            e.event_type.as_str() == "BattleFought"
                && e.payload["dice"].as_array().is_some_and(|d| !d.is_empty())
        })
        .expect("a battle with dice");
    let version = events[battle_at].stream_version;
    let mut forged = events.clone();
    let die = forged[battle_at].payload["dice"][0]
        .as_u64()
        .expect("a die");
    forged[battle_at].payload["dice"][0] = json!(die % 6 + 1);
    let report = offline_audit(&write_export(&forged), None);
    assert_eq!(
        report.check("chain").map(|c| (c.verdict, c.event)),
        Some((Verdict::Fail, Some(version))),
        "{}",
        report.render()
    );
    relink(&mut forged);
    let report = audit_game(&forged, None, None);
    let dice = report
        .checks
        .iter()
        .find(|c| c.name == "dice")
        .expect("a dice check");
    assert_eq!(
        (dice.verdict, dice.event),
        (Verdict::Fail, Some(version)),
        "{}",
        report.render()
    );

    // (b) One payload changed.
    let mut forged = events.clone();
    let middle = forged.len() / 2;
    forged[middle].payload["power"] = json!("japan");
    let report = offline_audit(&write_export(&forged), None);
    assert_eq!(
        report.first_failure().and_then(|c| c.event),
        Some(middle as u64 + 1),
        "{}",
        report.render()
    );

    // (c) The wrong seed.
    let wrong = hex::encode([7u8; 32]);
    let report = offline_audit(&path, Some(&wrong));
    assert_eq!(
        report.first_failure().map(|c| (c.name, c.event)),
        Some(("commitment", Some(1))),
        "{}",
        report.render()
    );

    // The right seed, given by hand, passes too.
    let revealed = call(&app, get(&format!("/v1/games/{game}"))).await.json()["seed"]
        .as_str()
        .expect("revealed")
        .to_owned();
    warlog::audit::run(
        &AuditInput {
            seed: Some(revealed.clone()),
            ..AuditInput::files(std::slice::from_ref(&path))
        },
        false,
    )
    .expect("passes with the seed given");
    let _ = std::fs::remove_file(path);

    // The game is listed by the projector, and filters find it. The feed holds back events
    // while older transactions anywhere in the cluster are open (other tests'), so the
    // projector may need more than one pass to see the last of them.
    let projector = Projector::new(db.pool.clone(), GameSummaries, StoreMetrics::unregistered());
    let listed = warlog_tests::eventually(
        "the ended game listed",
        std::time::Duration::from_secs(60),
        || async {
            projector.catch_up().await.expect("projected");
            let listed = call(&app, get("/v1/games?player=ann&status=ended"))
                .await
                .json();
            (listed["games"][0]["game_id"] == game.as_str()).then_some(listed)
        },
    )
    .await;
    assert_eq!(listed["games"][0]["game_id"], game.as_str(), "{listed}");
    let none = call(&app, get("/v1/games?status=running")).await.json();
    assert_eq!(none["games"].as_array().map(Vec::len), Some(0));
}

/// A `tracing` writer that keeps every log line.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut lines) = self.0.lock() {
            lines.extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every log line of this test process. A global subscriber, because a thread-local one
/// misses lines while other tests run (tracing caches each call site's interest globally).
fn captured_logs() -> Captured {
    static LOGS: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Captured::default();
        let writer = logs.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("the only global subscriber");
        logs
    })
    .clone()
}

#[actix_web::test]
async fn before_the_reveal_no_body_header_log_line_or_metric_shows_the_seed() {
    let logs = captured_logs();
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "alice", Role::Gm).await;
    let director = token(&db, "dora", Role::Director).await;
    let game = create_game(&app, &gm).await;
    let seed: Vec<u8> = db
        .admin()
        .await
        .query_one(
            "SELECT seed FROM dice_seeds WHERE stream_id = $1",
            &[&format!("game-{game}")],
        )
        .await
        .expect("the seed")
        .get(0);
    let needles = [hex::encode(&seed), hex::encode(&seed).to_uppercase()];

    let mut seen: Vec<u8> = Vec::new();
    let mut keep = |reply: Reply| {
        for (name, value) in reply.headers.iter() {
            seen.extend_from_slice(name.as_str().as_bytes());
            seen.extend_from_slice(value.as_bytes());
        }
        seen.extend_from_slice(&reply.body);
    };
    keep(call(&app, post(&format!("/v1/games/{game}/orders"), &gm,
        &json!({"orders": [{"type": "end_phase"}, {"type": "end_phase"}, {"type": "purchase", "units": {"INF": 2}}]}))).await);
    keep(
        call(
            &app,
            post(
                &format!("/v1/games/{game}/orders"),
                &gm,
                &json!({"orders": [{"type": "purchase", "units": {"XX": 2}}]}),
            ),
        )
        .await,
    );
    for uri in [
        "",
        "/now",
        "/board",
        "/board?version=1",
        "/battles",
        "/placements",
        "/events",
        "/audit",
    ] {
        keep(call(&app, get(&format!("/v1/games/{game}{uri}"))).await);
    }
    keep(
        call(
            &app,
            get(&format!("/v1/games/{game}/events"))
                .insert_header(("Accept", "application/x-ndjson")),
        )
        .await,
    );
    keep(call(&app, get(&format!("/v1/streams/game-{game}/events"))).await);
    keep(call(&app, get("/v1/events")).await);
    keep(call(&app, get("/v1/games")).await);
    keep(call(&app, get("/metrics")).await);
    let logged = logs.0.lock().map(|l| l.clone()).unwrap_or_default();
    assert!(!logged.is_empty(), "the requests were logged");
    for needle in &needles {
        assert!(
            !String::from_utf8_lossy(&seen).contains(needle.as_str()),
            "a response showed the seed"
        );
        assert!(
            !String::from_utf8_lossy(&logged).contains(needle.as_str()),
            "a log line showed the seed"
        );
    }

    // Not even an admin may reveal it while dice are still to be rolled; a player or a
    // director of other games may not reveal it at all.
    let player = token(&db, "ann", Role::Player).await;
    let refused = act(&app, &player, &game, "reveal").await;
    assert_problem(&refused, StatusCode::FORBIDDEN, "forbidden");
    let foreign = act(&app, &director, &game, "reveal").await;
    assert_problem(&foreign, StatusCode::FORBIDDEN, "forbidden");
    let admin = token(&db, "root", Role::Admin).await;
    let running = act(&app, &admin, &game, "reveal").await;
    assert_eq!(
        (running.status, running.json()["violation"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("game-running"))
    );
    // The search would have found it: the end reveals it, and it is public.
    let revealed = act(&app, &gm, &game, "end").await;
    assert_eq!(revealed.status, StatusCode::OK, "{:?}", revealed.json());
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    assert_eq!(view["seed"], needles[0].as_str());
    let noted: bool = db
        .admin()
        .await
        .query_one(
            "SELECT revealed_at IS NOT NULL FROM dice_seeds WHERE stream_id = $1",
            &[&format!("game-{game}")],
        )
        .await
        .expect("the seed row")
        .get(0);
    assert!(
        noted,
        "the reveal is noted in the secrets table in its transaction"
    );
    let again = act(&app, &admin, &game, "reveal").await;
    assert_eq!(
        (again.status, again.json()["violation"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("already-revealed"))
    );
}

#[actix_web::test]
async fn two_clients_at_one_version_get_one_success_and_one_409_and_a_retried_key_gets_the_first_answer(
) {
    let (_db, app, gm, game) = given_a_game!();
    let at = version(&app, &game).await;
    let uri = format!("/v1/games/{game}/orders");
    // Both are decided at the same version; only one can append.
    let first = json!({"expected_version": at, "orders": [{"type": "end_phase"}]});
    let second =
        json!({"expected_version": at, "orders": [{"type": "end_phase"}, {"type": "end_phase"}]});
    let (a, b) = futures_util::future::join(
        call(&app, post(&uri, &gm, &first)),
        call(&app, post(&uri, &gm, &second)),
    )
    .await;
    let mut statuses = [a.status, b.status];
    statuses.sort();
    assert_eq!(
        statuses,
        [StatusCode::OK, StatusCode::CONFLICT],
        "{:?} {:?}",
        a.json(),
        b.json()
    );
    let (won, lost) = if a.status == StatusCode::OK {
        (a, b)
    } else {
        (b, a)
    };
    assert_eq!(lost.code(), "version-conflict");
    let won_events = won.json()["events"]
        .as_array()
        .map(Vec::len)
        .expect("events") as u64;
    assert_eq!(lost.json()["current_version"], at + won_events);
    assert_eq!(
        version(&app, &game).await,
        at + won_events,
        "nothing appended for the loser"
    );

    // If-Match at a stale version: 412.
    let stale = call(
        &app,
        post(&uri, &gm, &json!({"orders": [{"type": "end_phase"}]}))
            .insert_header(("If-Match", format!("\"{at}\""))),
    )
    .await;
    assert_problem(
        &stale,
        StatusCode::PRECONDITION_FAILED,
        "precondition-failed",
    );

    // A retried request with the same key: the first answer, nothing appended.
    let keyed = || {
        post(&uri, &gm, &json!({"orders": [{"type": "end_phase"}]}))
            .insert_header(("Idempotency-Key", "turn-7-russia"))
    };
    let once = call(&app, keyed()).await;
    assert_eq!(once.status, StatusCode::OK);
    let after = version(&app, &game).await;
    let twice = call(&app, keyed()).await;
    assert_eq!(twice.status, StatusCode::OK);
    assert_eq!(twice.json(), once.json());
    assert_eq!(
        twice
            .headers
            .get("Idempotent-Replayed")
            .and_then(|v| v.to_str().ok()),
        Some("true")
    );
    assert_eq!(version(&app, &game).await, after);
    // The same key for another request: refused.
    let other = call(
        &app,
        post(
            &uri,
            &gm,
            &json!({"orders": [{"type": "end_phase"}, {"type": "end_phase"}]}),
        )
        .insert_header(("Idempotency-Key", "turn-7-russia")),
    )
    .await;
    assert_problem(
        &other,
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency-key-reused",
    );
    assert_eq!(version(&app, &game).await, after);
}

#[actix_web::test]
async fn bad_input_gets_the_right_status_and_code_and_leaves_the_stream_unchanged() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "alice", Role::Gm).await;
    let auditor = token(&db, "audrey", Role::Auditor).await;
    let game = create_game(&app, &gm).await;
    let seats = call(&app, get(&format!("/v1/games/{game}"))).await.json()["seats"].clone();
    let seat_of = |player: &str| {
        seats
            .as_array()
            .and_then(|s| s.iter().find(|x| x["player"] == player))
            .map(|x| x["power"].as_str().unwrap_or_default().to_owned())
            .expect("seated")
    };
    let ann = token(&db, "ann", Role::Player).await;
    let bobs_power = seat_of("bob");
    let uri = format!("/v1/games/{game}/orders");
    let at = version(&app, &game).await;

    let cases: Vec<(&str, TestRequest, StatusCode, &str)> = vec![
        (
            "malformed JSON",
            TestRequest::post()
                .uri(&uri)
                .insert_header(("Authorization", format!("Bearer {gm}")))
                .insert_header(("Content-Type", "application/json"))
                .set_payload("{\"orders\": ["),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            "unknown unit",
            post(
                &uri,
                &gm,
                &json!({"orders": [{"type": "end_phase"}, {"type": "end_phase"}, {"type": "purchase", "units": {"ZEPPELIN": 1}}]}),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown-unit",
        ),
        (
            "unknown territory",
            post(
                &uri,
                &gm,
                &json!({"orders": [{"type": "move", "units": {"INF": 1}, "path": ["Russia", "Atlantis"]}]}),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown-territory",
        ),
        (
            "negative count",
            post(
                &uri,
                &gm,
                &json!({"orders": [{"type": "purchase", "units": {"INF": -3}}]}),
            ),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            "huge count",
            post(
                &uri,
                &gm,
                &json!({"orders": [{"type": "purchase", "units": {"INF": 4_000_000_000u64}}]}),
            ),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            "another player's power",
            post(
                &uri,
                &ann,
                &json!({"power": bobs_power, "orders": [{"type": "end_phase"}]}),
            ),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        (
            "an auditor ordering",
            post(&uri, &auditor, &json!({"orders": [{"type": "end_phase"}]})),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        (
            "no token",
            TestRequest::post()
                .uri(&uri)
                .set_json(json!({"orders": [{"type": "end_phase"}]})),
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        (
            "an unknown token",
            post(
                &uri,
                "wl_nonsense",
                &json!({"orders": [{"type": "end_phase"}]}),
            ),
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        (
            "out of phase",
            post(
                &uri,
                &gm,
                &json!({"orders": [{"type": "purchase", "units": {"INF": 1}}]}),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            "rule-violation",
        ),
        (
            "all or nothing",
            post(
                &uri,
                &gm,
                &json!({"orders": [{"type": "end_phase"}, {"type": "place", "territory": "Russia", "units": {"INF": 1}}]}),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            "rule-violation",
        ),
        (
            "a 10 MB body",
            TestRequest::post()
                .uri(&uri)
                .insert_header(("Authorization", format!("Bearer {gm}")))
                .insert_header(("Content-Type", "application/json"))
                .set_payload(vec![b' '; 10 * 1024 * 1024]),
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload-too-large",
        ),
        (
            "a stale version",
            post(
                &uri,
                &gm,
                &json!({"expected_version": at + 5, "orders": [{"type": "end_phase"}]}),
            ),
            StatusCode::CONFLICT,
            "version-conflict",
        ),
        (
            "no orders",
            post(&uri, &gm, &json!({"orders": []})),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            "more orders than one request may carry",
            post(
                &uri,
                &gm,
                &json!({"orders": vec![json!({"type": "end_phase"}); 201]}),
            ),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            "an unknown game",
            post(
                "/v1/games/nope/orders",
                &gm,
                &json!({"orders": [{"type": "end_phase"}]}),
            ),
            StatusCode::NOT_FOUND,
            "game-not-found",
        ),
    ];
    for (what, request, status, code) in cases {
        let reply = call(&app, request).await;
        assert_eq!(
            (reply.status, reply.code().as_str()),
            (status, code),
            "{what}: {:?}",
            reply.json()
        );
        assert_eq!(
            reply
                .headers
                .get("Content-Type")
                .and_then(|v| v.to_str().ok()),
            Some("application/problem+json; charset=utf-8"),
            "{what}"
        );
        assert_eq!(version(&app, &game).await, at, "{what} appended nothing");
    }
    // Bad headers, queries and bodies elsewhere: named, and nothing appended.
    let long_key = "k".repeat(1000);
    let more: Vec<(&str, TestRequest, StatusCode, &str, &str)> = vec![
        (
            "If-Match that is no version",
            post(&uri, &gm, &json!({"orders": [{"type": "end_phase"}]}))
                .insert_header(("If-Match", "\"abc\"")),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "If-Match",
        ),
        (
            "If-Match and expected_version disagree",
            post(
                &uri,
                &gm,
                &json!({"expected_version": at, "orders": [{"type": "end_phase"}]}),
            )
            .insert_header(("If-Match", format!("\"{}\"", at + 1))),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "give one",
        ),
        (
            "an idempotency key too long",
            post(&uri, &gm, &json!({"orders": [{"type": "end_phase"}]}))
                .insert_header(("Idempotency-Key", long_key.as_str())),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "Idempotency-Key",
        ),
        (
            "an unknown field",
            post(
                &uri,
                &gm,
                &json!({"orders": [{"type": "end_phase"}], "colour": "red"}),
            ),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "colour",
        ),
        (
            "an unknown order type",
            post(&uri, &gm, &json!({"orders": [{"type": "nuke"}]})),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "orders[0]",
        ),
        (
            "a board version that is no number",
            get(&format!("/v1/games/{game}/board?version=abc")),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "version",
        ),
        (
            "a board version of 0",
            get(&format!("/v1/games/{game}/board?version=0")),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "version",
        ),
        (
            "an unknown status filter",
            get("/v1/games?status=paused"),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "status",
        ),
        (
            "a battle number that is no number",
            get(&format!("/v1/games/{game}/battles/first")),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "path",
        ),
        (
            "an unknown ruleset option",
            post(
                "/v1/games",
                &gm,
                &json!({"ruleset": "cutthroat", "players": PLAYERS, "options": {"fog": true}}),
            ),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "fog",
        ),
        (
            "odds with an unknown unit",
            TestRequest::post()
                .uri("/v1/odds")
                .set_json(json!({"attacker": "2 dragons", "defender": "1 inf"})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown-unit",
            "dragons",
        ),
        (
            "odds for too big a battle",
            TestRequest::post()
                .uri("/v1/odds")
                .set_json(json!({"attacker": "61 inf", "defender": "1 inf"})),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "at most 60",
        ),
        (
            "odds with an unknown combat order",
            TestRequest::post()
                .uri("/v1/odds")
                .set_json(json!({"attacker": "1 inf", "defender": "1 inf", "order": "YOLO"})),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "YOLO",
        ),
    ];
    for (what, request, status, code, named) in more {
        let reply = call(&app, request).await;
        assert_problem(&reply, status, code);
        let detail = reply.json()["detail"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(detail.contains(named), "{what}: {detail}");
        assert_eq!(version(&app, &game).await, at, "{what} appended nothing");
    }

    let violation = call(
        &app,
        post(
            &uri,
            &gm,
            &json!({"orders": [{"type": "purchase", "units": {"INF": 1}}]}),
        ),
    )
    .await
    .json();
    assert!(
        violation["violation"].is_string() && violation["rule"].is_string(),
        "{violation}"
    );
    assert!(
        violation["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("orders[0]:")),
        "{violation}"
    );

    // Creating games: roles, rulesets and player lists are checked too.
    for (who, body, status, code) in [
        (
            &auditor,
            json!({"ruleset": "cutthroat", "players": PLAYERS}),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        (
            &gm,
            json!({"ruleset": "cutthroat", "players": ["ann"]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "rule-violation",
        ),
        (
            &gm,
            json!({"ruleset": "chess", "players": PLAYERS}),
            StatusCode::NOT_FOUND,
            "ruleset-not-found",
        ),
        (
            &gm,
            json!({"ruleset": "cutthroat", "players": ["a", "a", "b", "c", "d"]}),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
    ] {
        assert_problem(
            &call(&app, post("/v1/games", who, &body)).await,
            status,
            code,
        );
    }

    // A player orders for their own power when it is its turn.
    let russia_player = seat_of_power(&seats, "russia");
    // One live token per name: ann already has hers.
    let own = if russia_player == "ann" {
        ann.clone()
    } else {
        token(&db, &russia_player, Role::Player).await
    };
    let mine = call(
        &app,
        post(
            &uri,
            &own,
            &json!({"power": "russia", "orders": [{"type": "end_phase"}]}),
        ),
    )
    .await;
    assert_eq!(mine.status, StatusCode::OK, "{:?}", mine.json());
}

fn seat_of_power(seats: &Value, power: &str) -> String {
    seats
        .as_array()
        .and_then(|s| s.iter().find(|x| x["power"] == power))
        .and_then(|x| x["player"].as_str())
        .expect("seated")
        .to_owned()
}

#[actix_web::test]
async fn the_board_at_version_n_is_the_board_folded_from_the_first_n_events() {
    let (_db, app, gm, game) = given_a_game!();
    buys_and_places_infantry(&app, &gm, &game, "russia", "Russia").await;
    pass_until(&app, &gm, &game, 1, "germany", "Purchase").await;
    let events = export(&app, &game).await;
    for n in [1, 2, events.len() / 2, events.len() - 1, events.len()] {
        let served = call(&app, get(&format!("/v1/games/{game}/board?version={n}"))).await;
        assert_eq!(served.status, StatusCode::OK);
        let folded = GameLog::fold(&events[..n]).expect("folds");
        let expected =
            serde_json::to_value(warlog_api::views::BoardView::of(&folded)).expect("json");
        assert_eq!(served.json(), expected, "version {n}");
    }
    let beyond = call(
        &app,
        get(&format!(
            "/v1/games/{game}/board?version={}",
            events.len() + 1
        )),
    )
    .await;
    assert_eq!(beyond.status, StatusCode::BAD_REQUEST);
    let rulesets = call(&app, get("/v1/rulesets/cutthroat")).await.json();
    assert!(rulesets["territories"]
        .as_array()
        .is_some_and(|t| t.len() > 100));
    let odds = call(
        &app,
        TestRequest::post()
            .uri("/v1/odds")
            .set_json(json!({"attacker": "1 inf", "defender": "1 inf"})),
    )
    .await
    .json();
    assert!(
        (odds["attacker_win"].as_f64().unwrap_or_default() - 0.25).abs() < 1e-12,
        "{odds}"
    );
    // Cut-Throat's defaults: SAAC from round 2 on land (docs/rule-facts.md), 48.7%.
    let saac = call(
        &app,
        TestRequest::post()
            .uri("/v1/odds")
            .set_json(json!({"attacker": "2 inf, 1 ftr, 1 bmb", "defender": "3 inf"})),
    )
    .await
    .json();
    assert!(
        (saac["attacker_win"].as_f64().unwrap_or_default() - 0.487).abs() < 0.0005,
        "{saac}"
    );
    // The defender's standing orders: an unknown unit is named; submerging subs count.
    let unknown = call(
        &app,
        TestRequest::post().uri("/v1/odds").set_json(
            json!({"attacker": "2 ftr", "defender": "2 sub", "sea": true, "defender_order_of_loss": "zep"}),
        ),
    )
    .await;
    assert_problem(&unknown, StatusCode::UNPROCESSABLE_ENTITY, "unknown-unit");
    let sea = |submerge: bool| json!({"attacker": "2 ftr, 1 ac", "defender": "2 sub, 1 trn", "sea": true, "submerge": submerge});
    let staying = call(
        &app,
        TestRequest::post().uri("/v1/odds").set_json(sea(false)),
    )
    .await
    .json();
    let hidden = call(
        &app,
        TestRequest::post().uri("/v1/odds").set_json(sea(true)),
    )
    .await
    .json();
    assert_ne!(staying["attacker_win"], hidden["attacker_win"]);
    let _ = GameSeed::from_bytes([0; 32]);
}

/// Issue 16: "the director may end a game that should not count (nothing played,
/// abandoned); no placements, no points, the reason in the log." Issue 31: only the game's
/// own director (a tournament's games have its director as master) or an admin.
#[actix_web::test]
async fn a_void_by_a_director_of_other_games_is_refused_and_an_admins_counts_for_nobody_and_passes_the_audit(
) {
    let db = TestDb::new().await;
    let app = app!(db);
    let director = token(&db, "dora", Role::Director).await;
    let admin = token(&db, "root", Role::Admin).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let game = create_game(&app, &gm).await;
    let uri = format!("/v1/games/{game}/void");

    // Refused, with nothing appended: the game master (not a director), a director who
    // directs neither the game nor a tournament of it, a reason of blanks, an unknown field.
    let before = export(&app, &game).await.len();
    let refused = call(&app, post(&uri, &gm, &json!({"reason": "bored"}))).await;
    assert_problem(&refused, StatusCode::FORBIDDEN, "forbidden");
    let foreign = call(&app, post(&uri, &director, &json!({"reason": "bored"}))).await;
    assert_problem(&foreign, StatusCode::FORBIDDEN, "forbidden");
    assert!(
        foreign.json()["detail"]
            .as_str()
            .is_some_and(|d| d.contains("dora directs neither this game nor its tournament")),
        "{:?}",
        foreign.json()
    );
    for reason in ["  ".to_owned(), "line\nbreak".to_owned(), "x".repeat(501)] {
        let bad = call(&app, post(&uri, &director, &json!({ "reason": reason }))).await;
        assert_problem(&bad, StatusCode::BAD_REQUEST, "malformed-request");
    }
    let extra = call(
        &app,
        post(&uri, &director, &json!({"reason": "x", "points": 5})),
    )
    .await;
    assert_eq!(extra.status, StatusCode::BAD_REQUEST);
    assert_eq!(export(&app, &game).await.len(), before);

    // The server's audit before: partial (the seed is not revealed yet).
    let audit_uri = format!("/v1/games/{game}/audit");
    let before = call(&app, get(&audit_uri)).await.json();
    assert_eq!(before["outcome"], "partial", "{before}");

    // Voided: the record, GameVoided with the reason, and the seed revealed.
    let voided = call(
        &app,
        post(&uri, &admin, &json!({"reason": "abandoned in round 1"})),
    )
    .await;
    assert_eq!(voided.status, StatusCode::OK, "{:?}", voided.json());
    let types: Vec<String> = voided.json()["events"]
        .as_array()
        .map(|e| {
            e.iter()
                .filter_map(|x| x["event_type"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(types, ["OrdersGiven", "GameVoided", "SeedRevealed"]);
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    assert_eq!(view["status"], "voided");
    // The audit kept for the earlier version is not served for the new one.
    let after = call(&app, get(&audit_uri)).await.json();
    assert_eq!(after["outcome"], "passed", "{after}");
    assert_eq!(view["void_reason"], "abandoned in round 1");

    // No placements, no more orders, no second end.
    let placements = call(&app, get(&format!("/v1/games/{game}/placements"))).await;
    assert_problem(&placements, StatusCode::CONFLICT, "game-not-rated");
    let late = call(
        &app,
        post(
            &format!("/v1/games/{game}/orders"),
            &gm,
            &json!({"orders": [{"type": "end_phase"}]}),
        ),
    )
    .await;
    assert_eq!(late.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        late.json()["detail"]
            .as_str()
            .is_some_and(|d| d.contains("voided: abandoned in round 1")),
        "{:?}",
        late.json()
    );
    let end = act(&app, &gm, &game, "end").await;
    assert_eq!(end.status, StatusCode::UNPROCESSABLE_ENTITY);

    // The export passes the audit: the void is decided again from its record.
    let events = export(&app, &game).await;
    let report = offline_audit(&write_export(&events), None);
    assert_eq!(
        report.outcome,
        warlog_events::audit::Outcome::Passed,
        "{}",
        report.render()
    );
    // The game's page says so.
    let page = call(&app, get(&format!("/games/{game}"))).await;
    let html = String::from_utf8_lossy(&page.body).into_owned();
    assert!(html.contains("voided and counts for nobody"), "{html}");
}

/// The player seated at `power`, with a token of their own.
pub(crate) async fn player_token<B: MessageBody>(
    db: &TestDb,
    app: &impl TestApp<B>,
    game: &str,
    power: &str,
) -> String {
    let view = call(app, get(&format!("/v1/games/{game}"))).await.json();
    token(db, &seat_of_power(&view["seats"], power), Role::Player).await
}

/// Every public place a game's events show: its events, the global feed, the game and its
/// board, as text.
async fn public_views<B: MessageBody>(app: &impl TestApp<B>, game: &str) -> Vec<String> {
    let mut texts = Vec::new();
    for url in [
        format!("/v1/games/{game}/events"),
        "/v1/events?limit=200".to_owned(),
        format!("/v1/games/{game}"),
        format!("/v1/games/{game}/board"),
        format!("/games/{game}"),
    ] {
        let reply = call(app, get(&url)).await;
        assert_eq!(reply.status, StatusCode::OK, "{url}");
        texts.push(String::from_utf8_lossy(&reply.body).into_owned());
    }
    texts
}

/// Issue 16: "Standing battle orders for defenders (any time, any power)"; issue 40: they
/// are the defender's secret, revealed by the battle that follows them, and orders given
/// during the attacker's turn wait for its end (IAAPA: "Defending subs may withdraw only
/// with orders sent before the attacker's turn").
#[actix_web::test]
async fn a_defenders_standing_orders_stay_sealed_until_the_battle_that_follows_them_reveals_them() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let game = create_game(&app, &gm).await;
    let russia = player_token(&db, &app, &game, "russia").await;
    // Russia's turn, round 1: Russia leaves orders for Karelia with the game master.
    let set = order(
        &app,
        &russia,
        &game,
        "russia",
        json!([{"type": "set_standing_orders", "territory": "karelia s.s.r.",
                "order_of_loss": ["inf", "arm"], "battleships_absorb": false}]),
    )
    .await;
    let record = &set["events"][0];
    assert_eq!(record["event_type"], "OrdersGiven");
    // Recorded sealed: the place (the board's name) and a commitment, not the orders.
    let recorded = &record["payload"]["command"]["orders"][0];
    assert_eq!(recorded["type"], "sealed_standing_orders", "{recorded}");
    assert_eq!(recorded["territory"], "Karelia S.S.R.");
    assert!(recorded["sealed"]["commitment"].is_string(), "{recorded}");
    assert_eq!(set["events"][1]["event_type"], "StandingOrdersSealed");
    for text in public_views(&app, &game).await {
        assert!(!text.contains("order_of_loss"), "{text}");
        assert!(!text.contains("lose INF"), "{text}");
    }
    // Another player may not set Russia's.
    let other = token(&db, "mallory", Role::Player).await;
    let refused = send_orders(
        &app,
        &other,
        &game,
        "russia",
        &json!([{"type": "set_standing_orders", "submerge_subs": true}]),
    )
    .await;
    assert_problem(&refused, StatusCode::FORBIDDEN, "forbidden");
    // Unknown names, a unit named twice, and the record's sealed form sent by a client are
    // refused, naming what is wrong, and append nothing.
    let before = export(&app, &game).await.len();
    for (orders, status, code) in [
        (
            json!([{"type": "set_standing_orders", "order_of_loss": ["zeppelin"]}]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown-unit",
        ),
        (
            json!([{"type": "set_standing_orders", "territory": "Atlantis"}]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown-territory",
        ),
        (
            json!([{"type": "set_standing_orders", "order_of_loss": ["INF", "inf"]}]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "rule-violation",
        ),
        (
            json!([recorded]),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
    ] {
        let reply = send_orders(&app, &russia, &game, "russia", &orders).await;
        assert_problem(&reply, status, code);
    }
    assert_eq!(export(&app, &game).await.len(), before);

    // Round 2, Germany's combat move: a tank enters Karelia. Russia, seeing it, sends new
    // orders for Karelia: they wait for the end of Germany's turn.
    pass_until(&app, &gm, &game, 2, "germany", "CombatMove").await;
    order(
        &app,
        &gm,
        &game,
        "germany",
        json!([{"type": "move", "units": {"ARM": 1}, "path": ["East Europe", "Karelia S.S.R."]}]),
    )
    .await;
    order(
        &app,
        &russia,
        &game,
        "russia",
        json!([{"type": "set_standing_orders", "territory": "Karelia S.S.R.",
                "order_of_loss": ["arm"]}]),
    )
    .await;
    let fought = order(
        &app,
        &gm,
        &game,
        "germany",
        json!([{"type": "end_phase"}, {"type": "fight_battle", "territory": "Karelia S.S.R."}]),
    )
    .await;
    let events = fought["events"].as_array().expect("events");
    let revealed = events
        .iter()
        .position(|e| e["event_type"] == "StandingOrdersRevealed")
        .expect("the battle reveals the orders it follows");
    assert_eq!(events[revealed + 1]["event_type"], "BattleFought");
    let battle = &events[revealed + 1]["payload"];
    // The orders of round 1 applied, not those sent during the attack.
    assert_eq!(battle["standing_orders"]["given_round"], 1, "{battle}");
    assert_eq!(battle["standing_orders"]["given_during"], "russia");
    let listing = battle["listing"].as_str().expect("a listing");
    assert!(
        listing.starts_with(
            "Defender's standing orders (Russia, for this place, given in round 1 on Russia's \
             turn): lose INF, ARM first; battleships do not take the first hits\n"
        ),
        "{listing}"
    );
    assert!(
        public_views(&app, &game)
            .await
            .iter()
            .any(|text| text.contains("given in round 1 on Russia")),
        "the game's page and events show the listing"
    );

    // The auditor checks the reveal against its commitment while the game runs...
    let exported = export(&app, &game).await;
    let report = offline_audit(&write_export(&exported), None);
    assert!(report.findings.is_empty(), "{}", report.render());
    // ...and names a forged one (INF first becomes ARM first; the chain recomputed).
    let mut forged = exported.clone();
    let at = forged
        .iter()
        .position(|e| e.event_type.as_str() == "StandingOrdersRevealed")
        .expect("the reveal");
    let first = forged[at].payload["orders"]["order_of_loss"][0].clone();
    forged[at].payload["orders"]["order_of_loss"] =
        json!([forged[at].payload["orders"]["order_of_loss"][1], first]);
    relink(&mut forged);
    let report = offline_audit(&write_export(&forged), None);
    assert_eq!(report.outcome, warlog_events::audit::Outcome::Failed);
    assert!(
        report.render().contains("do not match its commitment"),
        "{}",
        report.render()
    );
    // Once the game is over, its seed opens every sealed order, and the audit passes.
    assert_eq!(act(&app, &gm, &game, "end").await.status, StatusCode::OK);
    let report = offline_audit(&write_export(&export(&app, &game).await), None);
    assert_eq!(
        report.outcome,
        warlog_events::audit::Outcome::Passed,
        "{}",
        report.render()
    );
}

#[actix_web::test]
async fn in_round_one_of_a_new_cut_throat_game_japan_places_infantry_in_japan() {
    // Cut-Throat, IC movement: "Exception to the rule is the capital's home IC, this is a
    // NON-MOBILE IC": Japan's home complex stands in Japan from the start.
    let (_db, app, gm, game) = given_a_game!();
    let board_url = format!("/v1/games/{game}/board");
    let before = call(&app, get(&board_url)).await.json();
    assert_eq!(
        crate::rulesets::units_in(&before, "Japan", "japan", "IC"),
        1
    );
    let infantry = crate::rulesets::units_in(&before, "Japan", "japan", "INF");
    buys_and_places_infantry(&app, &gm, &game, "japan", "Japan").await;
    let after = call(&app, get(&board_url)).await.json();
    assert_eq!(
        crate::rulesets::units_in(&after, "Japan", "japan", "INF"),
        infantry + 3
    );
}

#[actix_web::test]
async fn a_token_revoked_or_expired_after_it_gave_orders_is_refused_at_once_and_changes_nothing() {
    let (db, app, gm, game) = given_a_game!();
    let gwen = token(&db, "gwen", Role::Gm).await;
    let hers = create_game(&app, &gwen).await;
    // Both tokens have ordered: the service now names their callers from memory.
    for (token, game) in [(&gm, &game), (&gwen, &hers)] {
        let turn = call(&app, get(&format!("/v1/games/{game}"))).await.json()["turn"]
            .as_str()
            .expect("a turn")
            .to_owned();
        order(&app, token, game, &turn, json!([{"type": "end_phase"}])).await;
    }
    let before = (version(&app, &game).await, version(&app, &hers).await);
    let admin = db.admin_pool.get().await.expect("connection");
    let alice = hex::encode(warlog_api::auth::hash_token(&gm));
    assert_eq!(
        warlog_store::tokens::revoke_token(&admin, &alice[..12])
            .await
            .expect("revoked"),
        1
    );
    admin
        .execute(
            "UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE name = 'gwen'",
            &[],
        )
        .await
        .expect("expired");
    for (token, game) in [(&gm, &game), (&gwen, &hers)] {
        let turn = call(&app, get(&format!("/v1/games/{game}"))).await.json()["turn"]
            .as_str()
            .expect("a turn")
            .to_owned();
        let orders = send_orders(&app, token, game, &turn, &json!([{"type": "end_phase"}])).await;
        assert_problem(&orders, StatusCode::UNAUTHORIZED, "unauthorized");
        // Nothing about the body either: a malformed one is refused for the token.
        let malformed = call(
            &app,
            post(
                &format!("/v1/games/{game}/orders"),
                token,
                &json!({"orders": "none"}),
            ),
        )
        .await;
        assert_problem(&malformed, StatusCode::UNAUTHORIZED, "unauthorized");
        assert_problem(
            &act(&app, token, game, "end").await,
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        );
    }
    assert_eq!(
        (version(&app, &game).await, version(&app, &hers).await),
        before,
        "nothing was written"
    );
}

/// A Cut-Throat game of `events` events played by random orders (no database), written to
/// the log as the server would have written it: a long game without thousands of requests.
async fn written_sample_game(db: &TestDb, game: &str, events: usize) {
    let ruleset = warlog_rules::ruleset::Ruleset::builtin("cutthroat").expect("cutthroat");
    let mut sample =
        warlog_events::sample::SampleGame::new(ruleset, game, GameSeed::from_bytes([3; 32]), 11);
    sample.play_until(events, 40 * events);
    let stream = warlog_api::games::game_stream(game).expect("a game id");
    let client = db.pool.get().await.expect("connection");
    warlog_store::seeds::write_played_game(&client, &stream, &sample.seed, &sample.recorded())
        .await
        .expect("the game written");
}

/// The app on `state`, sharing its caches with the test.
macro_rules! app_on {
    ($state:expr, $telemetry:expr) => {
        actix_web::test::init_service(warlog_api::app($state.clone(), &$telemetry)).await
    };
}

#[actix_web::test]
async fn the_battles_of_a_long_game_come_a_page_at_a_time_with_next_and_link_and_a_walk_misses_none(
) {
    let db = TestDb::new().await;
    let app = app!(db);
    written_sample_game(&db, "long-battles", 3000).await;

    // Walked with a small page, following `next` (and `Link` says the same).
    let mut numbers = Vec::new();
    let mut uri = Some("/v1/games/long-battles/battles?limit=7".to_owned());
    let mut pages = 0;
    while let Some(at) = uri.take() {
        let reply = call(&app, get(&at)).await;
        assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
        let body = reply.json();
        let battles = body["battles"].as_array().expect("battles");
        assert!(battles.len() <= 7, "{body}");
        numbers.extend(battles.iter().filter_map(|b| b["number"].as_u64()));
        uri = body["next"].as_str().map(str::to_owned);
        match &uri {
            Some(next) => assert_eq!(reply.header("link"), format!("<{next}>; rel=\"next\"")),
            None => assert_eq!(reply.header("link"), ""),
        }
        pages += 1;
    }
    assert!(
        pages > 2,
        "{} battles in more than two pages",
        numbers.len()
    );
    let every: Vec<u64> = (1..=numbers.len() as u64).collect();
    assert_eq!(numbers, every, "every battle once, in order");

    // The same battles as one page at the most, and each on its own.
    let first = call(&app, get("/v1/games/long-battles/battles?limit=200")).await;
    let first = first.json();
    let count = first["battles"].as_array().map_or(0, Vec::len);
    assert_eq!(count, numbers.len().min(200));
    let last = numbers.len();
    let one = call(&app, get(&format!("/v1/games/long-battles/battles/{last}"))).await;
    assert_eq!(one.json()["number"], json!(last));
    let beyond = call(
        &app,
        get(&format!("/v1/games/long-battles/battles?after={last}")),
    )
    .await;
    assert_eq!(beyond.json(), json!({"battles": [], "next": null}));

    // A cursor or a size that is not one is refused, naming the parameter.
    for query in ["after=first", "limit=0", "limit=201"] {
        let refused = call(
            &app,
            get(&format!("/v1/games/long-battles/battles?{query}")),
        )
        .await;
        assert_problem(&refused, StatusCode::BAD_REQUEST, "malformed-request");
    }
    let missing = call(&app, get("/v1/games/nobody/battles")).await;
    assert_problem(&missing, StatusCode::NOT_FOUND, "game-not-found");
}

#[actix_web::test]
async fn a_game_page_at_an_unchanged_head_is_served_as_kept_and_rendered_again_when_the_game_moves_on(
) {
    let db = TestDb::new().await;
    let telemetry = warlog_api::Telemetry::new().expect("metrics");
    let state = warlog_api::AppState::without_notifier(db.pool.clone(), &telemetry);
    let app = app_on!(state, telemetry);
    let gm = token(&db, "alice", Role::Gm).await;
    let game = create_game(&app, &gm).await;
    let uri = format!("/games/{game}");

    let first = call(&app, get(&uri)).await;
    assert_eq!(first.status, StatusCode::OK);
    let tag = first.header("etag");
    let again = call(&app, get(&uri)).await;
    assert_eq!(again.header("etag"), tag);
    assert_eq!(again.body, first.body);
    let held = call(
        &app,
        get(&uri).insert_header(("If-None-Match", tag.clone())),
    )
    .await;
    assert_eq!(held.status, StatusCode::NOT_MODIFIED);

    // What is served at an unchanged head is what was kept: nothing is read or rendered.
    let key = warlog_api::page_cache::PageKey {
        game: warlog_api::games::game_stream(&game).expect("an id"),
        version: 1,
        view: warlog_api::page_cache::View::Page {
            shown: None,
            highlight: None,
            region: None,
        },
    };
    assert!(state.pages.contains(&key));
    let kept = Arc::new(warlog_api::page_cache::Rendered::new(
        "text/html; charset=utf-8",
        b"the kept page".to_vec(),
    ));
    state.pages.put(key.clone(), kept);
    assert_eq!(&call(&app, get(&uri)).await.body[..], b"the kept page");

    // An order moves the game on: the page is rendered at its new version.
    let turn = call(&app, get(&format!("/v1/games/{game}"))).await.json()["turn"]
        .as_str()
        .expect("a turn")
        .to_owned();
    order(&app, &gm, &game, &turn, json!([{"type": "end_phase"}])).await;
    let moved = call(&app, get(&uri)).await;
    assert_eq!(moved.status, StatusCode::OK);
    assert_ne!(moved.header("etag"), tag);
    let html = String::from_utf8_lossy(&moved.body);
    assert!(html.contains("After event 3 of 3"), "{html}");
    assert!(!html.contains("After event 1 of 1"));

    // A page for an old version shows that version's map, kept under the head.
    let old = call(&app, get(&format!("{uri}?version=1"))).await;
    assert!(String::from_utf8_lossy(&old.body).contains("After event 1 of 3"));
    assert!(state.pages.contains(&warlog_api::page_cache::PageKey {
        version: 3,
        view: warlog_api::page_cache::View::Page {
            shown: Some(1),
            highlight: None,
            region: None,
        },
        ..key
    }));
}

#[actix_web::test]
async fn the_kept_pages_are_bounded_and_the_least_recently_used_goes_first() {
    let db = TestDb::new().await;
    let telemetry = warlog_api::Telemetry::new().expect("metrics");
    let mut state = warlog_api::AppState::without_notifier(db.pool.clone(), &telemetry);
    state.pages = Arc::new(warlog_api::page_cache::PageCache::new(2, 64 << 20));
    let app = app_on!(state, telemetry);
    let gm = token(&db, "alice", Role::Gm).await;
    let mut games = Vec::new();
    for _ in 0..3 {
        let game = create_game(&app, &gm).await;
        let page = call(&app, get(&format!("/games/{game}"))).await;
        assert_eq!(page.status, StatusCode::OK);
        games.push(game);
    }
    let kept = |game: &str| {
        state.pages.contains(&warlog_api::page_cache::PageKey {
            game: warlog_api::games::game_stream(game).expect("an id"),
            version: 1,
            view: warlog_api::page_cache::View::Page {
                shown: None,
                highlight: None,
                region: None,
            },
        })
    };
    assert_eq!(state.pages.size().0, 2);
    assert!(!kept(&games[0]) && kept(&games[1]) && kept(&games[2]));

    // Bounded by bytes too: with room for less than one page, none is kept, all are served.
    let mut state = warlog_api::AppState::without_notifier(db.pool.clone(), &telemetry);
    state.pages = Arc::new(warlog_api::page_cache::PageCache::new(100, 1000));
    let app = app_on!(state, telemetry);
    for game in &games {
        let page = call(&app, get(&format!("/games/{game}"))).await;
        assert_eq!(page.status, StatusCode::OK);
        assert!(page.body.len() > 1000);
    }
    assert_eq!(state.pages.size(), (0, 0));
}

#[actix_web::test]
async fn what_may_be_done_now_says_whose_turn_and_the_phase_and_moves_on_when_the_phase_ends() {
    let (_db, app, gm, game) = given_a_game!();
    let game_view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    let turn = game_view["turn"].as_str().expect("a turn").to_owned();
    let uri = format!("/v1/games/{game}/now");

    let first = call(&app, get(&uri)).await;

    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(
        first.header("etag"),
        format!("\"{}\"", game_view["version"])
    );
    let now = first.json();
    assert_eq!(now["over"], json!(false));
    assert_eq!(now["to_act"], json!(turn));
    assert!(
        PLAYERS.contains(&now["player"].as_str().expect("seated")),
        "{now}"
    );
    assert_eq!(now["phase"], json!("repairs"));
    assert_eq!(
        now["phases_left"],
        json!([
            "weapons development",
            "purchase",
            "combat move",
            "battles",
            "non-combat move",
            "placement",
            "income"
        ])
    );
    assert!(
        now["orders"]
            .as_array()
            .expect("orders")
            .contains(&json!("end_phase")),
        "{now}"
    );
    assert!(
        !now["orders"]
            .as_array()
            .expect("orders")
            .contains(&json!("purchase")),
        "{now}"
    );
    assert!(
        now["money"]["treasury"].as_u64().expect("money") > 0,
        "{now}"
    );
    assert!(
        now["substitute_after"]
            .as_str()
            .expect("a deadline")
            .ends_with('Z'),
        "{now}"
    );
    let said = now["in_words"][0].as_str().expect("words");
    assert!(
        said.contains(" to play (") && said.contains(": repairs (then weapons development"),
        "{said}"
    );
    let held = call(
        &app,
        get(&uri).insert_header(("If-None-Match", first.header("etag"))),
    )
    .await;
    assert_eq!(held.status, StatusCode::NOT_MODIFIED);

    order(&app, &gm, &game, &turn, json!([{"type": "end_phase"}])).await;
    let after = call(&app, get(&uri)).await;

    assert_ne!(after.header("etag"), first.header("etag"));
    let now = after.json();
    assert_eq!(now["to_act"], json!(turn));
    assert_eq!(now["phase"], json!("weapons development"));
    assert_eq!(now["phases_left"][0], json!("purchase"));

    // Once the game has ended, nothing may be ordered.
    assert_eq!(act(&app, &gm, &game, "end").await.status, StatusCode::OK);
    let ended = call(&app, get(&uri)).await.json();
    assert_eq!(ended["over"], json!(true));
    assert_eq!(
        (&ended["to_act"], &ended["phase"]),
        (&json!(null), &json!(null))
    );
    assert_eq!(ended["orders"], json!([]));
    assert_eq!(ended["any_power"], json!([]));
}

#[actix_web::test]
async fn what_may_be_done_now_in_an_unknown_game_is_a_404_problem() {
    let db = TestDb::new().await;
    let app = app!(db);

    let missing = call(&app, get("/v1/games/nobody/now")).await;

    assert_problem(&missing, StatusCode::NOT_FOUND, "game-not-found");
    assert!(
        missing
            .header("content-type")
            .starts_with("application/problem+json"),
        "{}",
        missing.header("content-type")
    );
}

/// AAP 4 in the odds a player plans with: 20 INF + 4 ART against 10 INF + 2 ART + 2 FTR is
/// 0.9199 under heavy weapons (0.976 without); 24 CCP infantry attacking never count (4.1),
/// so 4 Japanese fighters' hits are single ones. The figures are the independent
/// calculator's in `libs/rules/src/battle/hwv_tests.rs`.
#[actix_web::test]
async fn aap_odds_over_http_count_heavy_weapons_and_spare_an_attacking_ccp_stack() {
    let db = TestDb::new().await;
    let app = app!(db);
    let mut attacker_win = Vec::new();
    for body in [
        json!({"ruleset": "aap-historical", "attacker": "20 inf, 4 art", "defender": "10 inf, 2 art, 2 ftr"}),
        json!({"ruleset": "aap-historical", "attacker": "24 inf", "defender": "6 inf, 4 ftr"}),
        json!({"ruleset": "aap-historical", "attacker": "24 inf", "defender": "6 inf, 4 ftr",
               "attacker_power": "ccp", "defender_power": "japan"}),
    ] {
        let reply = call(&app, TestRequest::post().uri("/v1/odds").set_json(body)).await;
        assert_eq!(reply.status, StatusCode::OK);
        attacker_win.push(
            reply.json()["attacker_win"]
                .as_f64()
                .expect("a probability"),
        );
    }
    for (got, expected) in
        attacker_win
            .iter()
            .zip([0.919901017347889, 0.8574954176223515, 0.9589577098229984])
    {
        assert!((got - expected).abs() < 1e-9, "{attacker_win:?}");
    }
    let unknown = call(
        &app,
        TestRequest::post().uri("/v1/odds").set_json(
            json!({"ruleset": "aap-historical", "attacker": "1 inf", "defender": "1 inf", "attacker_power": "atlantis"}),
        ),
    )
    .await;
    assert_problem(&unknown, StatusCode::BAD_REQUEST, "malformed-request");
    // The odds page asks for the powers too, and shows the same figures: 85.75% with every
    // stack counted, 95.90% with the CCP attacking Japan.
    for (query, shown) in [
        ("", "85.75%"),
        ("&attacker_power=ccp&defender_power=japan", "95.90%"),
    ] {
        let page = call(
            &app,
            get(&format!(
                "/odds?attacker=24+inf&defender=6+inf%2C+4+ftr&ruleset=aap-historical{query}"
            )),
        )
        .await;
        assert_eq!(page.status, StatusCode::OK);
        let text = page.text();
        assert!(text.contains(shown), "{shown} on the page for {query:?}");
        assert!(text.contains("Attacking power (AAP)"), "{text}");
    }
}
