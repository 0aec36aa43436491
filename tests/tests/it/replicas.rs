//! Two replicas of the service on one database (issue 22): each with its own caches and
//! its own projector, driven together. Exactly one order wins per version, a replica never
//! decides on a stale fold, every event is projected once, and a tournament is run
//! through either.

use std::time::Duration;

use actix_web::http::StatusCode;
use serde_json::json;
use warlog_api::auth::Role;
use warlog_api::{AppState, Telemetry};
use warlog_store::league::League;
use warlog_store::projector::Projector;
use warlog_store::StoreMetrics;
use warlog_tests::{eventually, TestDb};

use crate::games::{create_game, order};
use crate::kit::{call, get, post, serve, token};
use crate::league::{caught_up, ladder_rows};
use crate::tournaments::{deadlines, enter, names, register, seat, START};

/// A replica: its own state (caches, clock) on the shared database.
macro_rules! replica {
    ($db:expr) => {{
        let telemetry = Telemetry::new().expect("metrics");
        let mut state = AppState::without_notifier($db.pool.clone(), &telemetry);
        state.clock = warlog_api::Clock::fixed(
            time::OffsetDateTime::from_unix_timestamp(START).expect("a start"),
        );
        actix_web::test::init_service(warlog_api::app(state, &telemetry)).await
    }};
}

#[actix_web::test]
async fn two_replicas_on_one_database_agree_on_every_game_ladder_and_tournament() {
    let db = TestDb::new().await;
    let a = replica!(db);
    let b = replica!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let game = create_game(&a, &gm).await;
    let orders = format!("/v1/games/{game}/orders");
    let version = |reply: &crate::kit::Reply| reply.json()["version"].as_u64().expect("version");

    // Turns alternate between the replicas: each reads what the other wrote.
    for round in 0..6 {
        let (this, other) = if round % 2 == 0 { (&a, &b) } else { (&b, &a) };
        let view = call(this, get(&format!("/v1/games/{game}"))).await;
        let turn = view.json()["turn"].as_str().expect("a turn").to_owned();
        let at = version(&view);
        let reply = call(
            this,
            post(
                &orders,
                &gm,
                &json!({"expected_version": at, "power": turn, "orders": [{"type": "end_phase"}]}),
            ),
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
        // The other replica's cache holds an older fold; it must not answer from it.
        let seen = call(other, get(&format!("/v1/games/{game}"))).await;
        assert_eq!(version(&seen), version(&reply), "round {round}");
    }

    // Both decide at the same version at once: exactly one wins.
    let view = call(&a, get(&format!("/v1/games/{game}"))).await;
    let (at, turn) = (
        version(&view),
        view.json()["turn"].as_str().expect("a turn").to_owned(),
    );
    let body = json!({"expected_version": at, "power": turn, "orders": [{"type": "end_phase"}]});
    let (first, second) = futures_util::future::join(
        call(&a, post(&orders, &gm, &body)),
        call(&b, post(&orders, &gm, &body)),
    )
    .await;
    let mut statuses = [first.status, second.status];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::CONFLICT]);

    // Ended through one, with more games through the other.
    for (replica, players) in [
        (&b, ["ann", "bob", "cy", "di", "ed"]),
        (&a, ["ann", "fay", "gil", "hal", "ivy"]),
    ] {
        let other = crate::games::create_game_for(replica, &gm, &players).await;
        // A quiet first round: a game ended before every power has played is not rated.
        crate::games::plays_the_first_round(replica, &db, &other).await;
        let ended = crate::games::act(replica, &gm, &other, "end").await;
        assert_eq!(ended.status, StatusCode::OK);
    }
    crate::games::plays_the_first_round(&b, &db, &game).await;
    crate::games::each_player_gives_an_order(&b, &db, &game).await;
    let ended = crate::games::act(&b, &gm, &game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());

    // Each replica runs its projector; they run together, and every event is applied once.
    let projectors: Vec<Projector<League>> = (0..2)
        .map(|_| {
            Projector::new(
                db.pool.clone(),
                League::default(),
                StoreMetrics::unregistered(),
            )
        })
        .collect();
    let client = db.pool.get().await.expect("connection");
    eventually(
        "both projectors to catch up",
        Duration::from_secs(30),
        || async {
            let (x, y) =
                futures_util::future::join(projectors[0].catch_up(), projectors[1].catch_up())
                    .await;
            x.expect("projected");
            y.expect("projected");
            caught_up(&db, &projectors[0]).await.then_some(())
        },
    )
    .await;
    let results: i64 = client
        .query_one("SELECT count(*) FROM league_results", &[])
        .await
        .expect("count")
        .get(0);
    assert_eq!(
        results,
        3 * 5,
        "three games of five seats, each projected once"
    );
    let concurrent = ladder_rows(&db).await;
    projectors[1].rebuild().await.expect("rebuilt");
    assert_eq!(
        ladder_rows(&db).await,
        concurrent,
        "the same rows as one projector alone"
    );
    let page_a = call(&a, get("/v1/leaderboards/points")).await.json();
    let page_b = call(&b, get("/v1/leaderboards/points")).await.json();
    assert_eq!(page_a["rows"], page_b["rows"]);

    // A tournament: created and seated through one, entries through the other.
    let director = token(&db, "dora", Role::Director).await;
    let players = names("p", 10);
    register(&a, &director, &players).await;
    let tournament = crate::tournaments::create_tournament(
        &a,
        &director,
        json!({"name": "Two replicas", "rounds": 2, "deadlines": deadlines(2), "short_tables": "byes"}),
    )
    .await;
    enter(&b, &director, &tournament, &players).await;
    let round = seat(&a, &director, &tournament).await;
    let through_b = call(&b, get(&format!("/v1/tournaments/{tournament}/rounds/1")))
        .await
        .json();
    assert_eq!(through_b["tables"], round["tables"]);
    let table_game = crate::tournaments::game_ids(&round).remove(0);
    order(
        &b,
        &director,
        &table_game,
        "russia",
        json!([{"type": "end_phase"}]),
    )
    .await;
}

/// Asks `addr` for `path` (with `token`, and a JSON `body` for a POST); status and body.
async fn ask(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (u16, serde_json::Value) {
    let mut connection = warlog::client::Connection::open(addr)
        .await
        .expect("connected");
    let (status, text) = connection
        .send(method, path, token, body)
        .await
        .expect("answered");
    (
        status,
        serde_json::from_str(&text).unwrap_or(serde_json::Value::Null),
    )
}

#[actix_web::test]
async fn two_warlog_serve_instances_on_one_database_share_its_games_and_ladders() {
    let db = TestDb::new().await;
    let gm = warlog::owner_token(&db.config, "gus", Role::Gm)
        .await
        .expect("token");
    // Two services as `warlog serve` runs them, each with its pool, caches, projectors and
    // listener, on the same database.
    let mut addrs = Vec::new();
    for _ in 0..2 {
        addrs.push(serve(&db, &["--projector-poll-ms", "50"]).await);
    }
    let (a, b) = (addrs[0], addrs[1]);
    let body = json!({"ruleset": "cutthroat", "players": ["ann", "bob", "cy", "di", "ed"]});
    let (status, created) = ask(a, "POST", "/v1/games", Some(&gm), &body.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let game = created["game_id"].as_str().expect("id").to_owned();
    // An order through the other, at the version the first answered with.
    let (_, view) = ask(b, "GET", &format!("/v1/games/{game}"), None, "").await;
    assert_eq!(view["version"], created["version"]);
    let turn = view["turn"].as_str().expect("turn").to_owned();
    let order = json!({"expected_version": view["version"], "power": turn,
                       "orders": [{"type": "end_phase"}]});
    let (status, ordered) = ask(
        b,
        "POST",
        &format!("/v1/games/{game}/orders"),
        Some(&gm),
        &order.to_string(),
    )
    .await;
    assert_eq!(status, 200, "{ordered}");
    // The same order again through the first: the version has moved on.
    let (status, _) = ask(
        a,
        "POST",
        &format!("/v1/games/{game}/orders"),
        Some(&gm),
        &order.to_string(),
    )
    .await;
    assert_eq!(status, 409);
    // The rest of a quiet first round, through either, each power's by its own player: a
    // game ended before every power has played a turn, or one its master played alone,
    // is not rated.
    for turn in 0..5 {
        let through = [a, b][turn % 2];
        let (_, view) = ask(through, "GET", &format!("/v1/games/{game}"), None, "").await;
        let power = view["turn"].as_str().expect("turn").to_owned();
        let at = crate::games::PHASES
            .iter()
            .position(|p| view["phase"] == *p)
            .expect("a phase");
        let left = vec![json!({"type": "end_phase"}); crate::games::PHASES.len() - at];
        let body = json!({"power": power, "orders": left});
        let path = format!("/v1/games/{game}/orders");
        let player = view["seats"]
            .as_array()
            .and_then(|seats| seats.iter().find(|s| s["power"] == power.as_str()))
            .and_then(|seat| seat["player"].as_str())
            .expect("a seat");
        let own = warlog::owner_token(&db.config, player, Role::Player)
            .await
            .expect("token");
        let (status, ordered) = ask(through, "POST", &path, Some(&own), &body.to_string()).await;
        assert_eq!(status, 200, "{ordered}");
    }
    let (status, _) = ask(a, "POST", &format!("/v1/games/{game}/end"), Some(&gm), "{}").await;
    assert_eq!(status, 200);
    // Both services' projectors run; the ladder is the same through either.
    eventually(
        "both ladders to show the game",
        Duration::from_secs(30),
        || async {
            let (_, from_a) = ask(a, "GET", "/v1/leaderboards/points", None, "").await;
            let (_, from_b) = ask(b, "GET", "/v1/leaderboards/points", None, "").await;
            let rows = from_a["rows"].as_array().map_or(0, Vec::len);
            (rows == 5 && from_a["rows"] == from_b["rows"]).then_some(())
        },
    )
    .await;
    let client = db.pool.get().await.expect("connection");
    let results: i64 = client
        .query_one("SELECT count(*) FROM league_results", &[])
        .await
        .expect("count")
        .get(0);
    assert_eq!(results, 5, "projected once");
}

/// A replica decides an order that states no version on its cached fold, without reading
/// the log first; when the other replica wrote meanwhile, that append loses its race and
/// the order is decided again from a fresh read, never on the stale fold.
#[actix_web::test]
async fn orders_stating_no_version_through_alternating_replicas_are_decided_on_the_latest_game() {
    let db = TestDb::new().await;
    let a = replica!(db);
    let b = replica!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let game = create_game(&a, &gm).await;
    let orders = format!("/v1/games/{game}/orders");
    // Both replicas fold the game now; from here each writes without reading first.
    for replica in [&a, &b] {
        call(replica, get(&format!("/v1/games/{game}"))).await;
    }
    let mut last = 0;
    for round in 0..6 {
        let this = if round % 2 == 0 { &a } else { &b };
        let reply = call(
            this,
            post(&orders, &gm, &json!({"orders": [{"type": "end_phase"}]})),
        )
        .await;
        assert_eq!(
            reply.status,
            StatusCode::OK,
            "round {round}: {:?}",
            reply.json()
        );
        let version = reply.json()["version"].as_u64().expect("version");
        assert!(version > last, "round {round}: {version} after {last}");
        // The record names the version it was decided at: the one just before it.
        let record = &reply.json()["events"][0];
        assert_eq!(record["event_type"], "OrdersGiven");
        assert_eq!(
            record["payload"]["expected_version"].as_u64(),
            Some(record["stream_version"].as_u64().expect("a version") - 1),
            "round {round}"
        );
        last = version;
    }
    for replica in [&a, &b] {
        let seen = call(replica, get(&format!("/v1/games/{game}"))).await;
        assert_eq!(seen.json()["version"].as_u64(), Some(last));
    }
}
