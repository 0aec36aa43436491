//! The league over HTTP against real PostgreSQL: players, and ladders projected from
//! finished games (points, titles, ratings), read a page at a time while games finish.

use std::collections::HashSet;
use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_api::{AppState, Telemetry};
use warlog_events::audit::Outcome;
use warlog_events::{relink, StreamCategory, StreamId};
use warlog_league::ladder_audit::{audit_ladder, PublishedLadder};
use warlog_store::games::GameSummaries;
use warlog_store::league::League;
use warlog_store::projector::Projector;
use warlog_store::StoreMetrics;
use warlog_tests::{eventually, TestDb};

use crate::games::{
    act, create_game_for, export, german_armour_takes, order, pass_until, plays_the_first_round,
    plays_the_first_round_as,
};
use crate::kit::{app, assert_problem, call, get, post, token, TestApp};

/// Runs the league projector until it has applied every event (the feed holds back events
/// while an older transaction anywhere in the cluster may still commit, so this may take
/// more than one pass while other tests run).
pub(crate) async fn project_league(db: &TestDb) {
    let projector = Projector::new(
        db.pool.clone(),
        League::default(),
        StoreMetrics::unregistered(),
    );
    eventually(
        "the league projector to catch up",
        Duration::from_secs(30),
        || async {
            projector.catch_up().await.expect("league projected");
            caught_up(db, &projector).await.then_some(())
        },
    )
    .await;
}

/// Whether `projector`'s checkpoint is past every event in the log.
pub(crate) async fn caught_up<P: warlog_store::projector::Projection>(
    db: &TestDb,
    projector: &Projector<P>,
) -> bool {
    let client = db.pool.get().await.expect("connection");
    let at = projector.checkpoint().await.expect("checkpoint");
    let behind: i64 = client
        .query_one(
            "SELECT count(*) FROM events WHERE (tx_id, position) > ($1::text::xid8, $2)",
            &[&at.tx_id.to_string(), &at.position],
        )
        .await
        .expect("count")
        .get(0);
    behind == 0
}

/// Plays a game of `players` for a quiet first round, each player ending every phase of
/// their turn, and ends it (all gains 0: a five-way tie, 7/5 each).
pub(crate) async fn finished_game<B: MessageBody>(
    app: &impl TestApp<B>,
    db: &TestDb,
    gm: &str,
    players: &[&str],
) -> String {
    let game = create_game_for(app, gm, players).await;
    plays_the_first_round(app, db, &game).await;
    let ended = act(app, gm, &game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    game
}

pub(crate) async fn ladder_rows(db: &TestDb) -> Vec<String> {
    let client = db.pool.get().await.expect("connection");
    client
        .query(
            "SELECT concat_ws('|', ladder, ruleset, season, player, valid_from, valid_to, \
                    sort_key, tiebreak, points_scaled, games, wins_scaled, mu, sigma) \
               FROM ladder_rows ORDER BY 1",
            &[],
        )
        .await
        .expect("rows")
        .iter()
        .map(|r| r.get(0))
        .collect()
}

#[actix_web::test]
async fn a_player_registers_once_and_bad_registrations_change_nothing() {
    let db = TestDb::new().await;
    let app = app!(db);
    let director = token(&db, "dora", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let body = json!({"handle": "ann", "display_name": "Ann Smith"});
    let created = call(&app, post("/v1/players", &director, &body)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{:?}", created.json());
    assert_eq!(created.json()["display_name"], "Ann Smith");
    let again = call(&app, post("/v1/players", &director, &body)).await;
    assert_problem(&again, StatusCode::CONFLICT, "player-exists");
    project_league(&db).await;
    let page = call(&app, get("/v1/players/ann")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(page.json()["display_name"], "Ann Smith");
    assert_eq!(page.json()["games"], json!([]));

    for (who, body, status, code) in [
        (
            &director,
            json!({"handle": "Ann!", "display_name": "x"}),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            &director,
            json!({"handle": "bob", "display_name": "  "}),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            &director,
            json!({"display_name": "Bob"}),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            &director,
            json!({"handle": "bob", "display_name": "B", "x": 1}),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            &gm,
            json!({"handle": "bob", "display_name": "Bob"}),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
    ] {
        let reply = call(&app, post("/v1/players", who, &body)).await;
        assert_problem(&reply, status, code);
    }
    let anonymous = call(
        &app,
        TestRequest::post()
            .uri("/v1/players")
            .set_json(json!({"handle": "bob", "display_name": "Bob"})),
    )
    .await;
    assert_problem(&anonymous, StatusCode::UNAUTHORIZED, "unauthorized");
    let bob = StreamId::of(StreamCategory::Player, "bob").expect("id");
    let client = db.pool.get().await.expect("connection");
    assert_eq!(
        warlog_store::stream_head(&client, &bob)
            .await
            .expect("head"),
        None
    );
    assert_problem(
        &call(&app, get("/v1/players/bob")).await,
        StatusCode::NOT_FOUND,
        "player-not-found",
    );
    // A player may register its own handle, and no other.
    let bob_token = token(&db, "bob", Role::Player).await;
    // Without a display name, the handle is the name.
    let own = call(
        &app,
        post("/v1/players", &bob_token, &json!({"handle": "bob"})),
    )
    .await;
    assert_eq!(own.status, StatusCode::CREATED);
    assert_eq!(own.json()["display_name"], "bob");
    let other = call(
        &app,
        post(
            "/v1/players",
            &bob_token,
            &json!({"handle": "cy", "display_name": "Cy"}),
        ),
    )
    .await;
    assert_problem(&other, StatusCode::FORBIDDEN, "forbidden");
}

#[actix_web::test]
async fn finished_games_reach_both_ladders_and_a_rebuild_gives_the_same_rows() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    // A game where Germany takes Russia: Germany's player gains, Russia's loses.
    let players = ["ann", "bob", "cy", "di", "ed"];
    let game = create_game_for(&app, &gm, &players).await;
    pass_until(&app, &gm, &game, 1, "russia", "NonCombatMove").await;
    order(&app, &gm, &game, "russia", json!([
        {"type": "move", "units": {"INF": 6, "ARM": 2, "FTR": 2}, "path": ["Russia", "Caucasus"]},
        {"type": "move", "units": {"INF": 3, "ARM": 1, "FTR": 1}, "path": ["Karelia", "Caucasus"]},
    ]))
    .await;
    german_armour_takes(&app, &gm, &game, 2, &["East Europe", "Karelia", "Russia"]).await;
    crate::games::each_player_gives_an_order(&app, &db, &game).await;
    assert_eq!(act(&app, &gm, &game, "end").await.status, StatusCode::OK);
    let placements = call(&app, get(&format!("/v1/games/{game}/placements")))
        .await
        .json();
    let tied = finished_game(&app, &db, &gm, &["ann", "fay", "gil", "hal", "ida"]).await;
    project_league(&db).await;

    let ladder = call(&app, get("/v1/leaderboards/points")).await;
    assert_eq!(ladder.status, StatusCode::OK, "{:?}", ladder.json());
    let page = ladder.json();
    assert_eq!(page["as_of"], 2);
    let rows = page["rows"].as_array().expect("rows").clone();
    assert_eq!(rows.len(), 9);
    let points_of = |who: &str| -> Value {
        rows.iter()
            .find(|r| r["player"] == who)
            .expect("on the ladder")["points_exact"]
            .clone()
    };
    // Each player's points are the game's placements plus 7/5 for the tied game.
    for row in placements["placements"].as_array().expect("placements") {
        let who = row["player"].as_str().expect("player");
        let game_points: f64 = row["points"].as_f64().expect("points");
        let extra = if who == "ann" { 1.4 } else { 0.0 };
        let shown = rows.iter().find(|r| r["player"] == who).expect("row")["points"]
            .as_f64()
            .expect("value");
        assert!(
            (shown - (game_points + extra)).abs() < 1e-9,
            "{who}: {shown}"
        );
    }
    assert_eq!(points_of("fay"), "7/5");
    let positions: Vec<u64> = rows
        .iter()
        .map(|r| r["position"].as_u64().unwrap())
        .collect();
    assert_eq!(positions, (1..=9).collect::<Vec<_>>());
    let values: Vec<f64> = rows.iter().map(|r| r["points"].as_f64().unwrap()).collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
    // Titles by the seed's bands (nobody is near 23, so there is no Commander of CT).
    for row in &rows {
        let points = row["points"].as_f64().expect("points");
        let band = match points {
            p if p >= 18.0 => "General of Global Domination",
            p if p >= 13.0 => "Brigadier of Foreign Wars",
            p if p >= 9.0 => "Leader of Domestic Principle",
            p if p >= 6.0 => "Commander of Minor Skirmishes",
            p if p >= 3.0 => "Sergeant of Rebel Forces",
            _ => "Enlisted",
        };
        assert_eq!(row["title"], band, "{row}");
    }

    // The league's auditor: the published ladder, recomputed from the games' exports.
    let exports = vec![export(&app, &game).await, export(&app, &tied).await];
    let published: PublishedLadder = serde_json::from_value(page.clone()).expect("a ladder page");
    let report = audit_ladder(std::slice::from_ref(&published), &exports);
    assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
    // A ladder that credits fay with 12/5 instead of 7/5 is named at her row.
    let mut forged = published.clone();
    let fay = forged
        .rows
        .iter()
        .position(|r| r.player == "fay")
        .expect("fay");
    forged.rows[fay].points_exact = Some("12/5".to_owned());
    let report = audit_ladder(&[forged], &exports);
    assert_eq!(
        report
            .findings
            .first()
            .map(|f| (f.check, f.location, f.event)),
        Some(("ladder", "ladder row", fay as u64 + 1)),
        "{}",
        report.render()
    );
    assert!(
        report.findings[0]
            .message
            .contains("fay has 2.40 points in the ladder, 1.40 (7/5)"),
        "{}",
        report.render()
    );

    // A game whose final counts were changed (the chain recomputed) is named, not counted.
    let mut forged_games = exports.clone();
    let ended = forged_games[0]
        .iter()
        .position(|e| e.event_type.as_str() == "GameEnded")
        .expect("GameEnded");
    forged_games[0][ended].payload["final_ipc"][0][1] = json!(99);
    relink(&mut forged_games[0]);
    let report = audit_ladder(std::slice::from_ref(&published), &forged_games);
    assert!(
        report.findings.iter().any(|f| f.check == "games"
            && f.event == ended as u64 + 1
            && f.message.contains("fails its own audit")),
        "{}",
        report.render()
    );

    let skill = call(&app, get("/v1/leaderboards/skill")).await.json();
    let skill_rows = skill["rows"].as_array().expect("rows");
    assert_eq!(skill_rows.len(), 9);
    let ann = skill_rows
        .iter()
        .find(|r| r["player"] == "ann")
        .expect("ann");
    assert!(
        ann["sigma"].as_f64().unwrap() < 25.0 / 3.0,
        "two games shrink sigma"
    );
    let season = time::OffsetDateTime::now_utc().year();
    let seasonal = call(
        &app,
        get(&format!("/v1/leaderboards/points?season={season}")),
    )
    .await
    .json();
    assert_eq!(seasonal["rows"].as_array().map(Vec::len), Some(9));
    let other_season = call(&app, get("/v1/leaderboards/points?season=1999"))
        .await
        .json();
    assert_eq!(other_season["rows"], json!([]));

    let player = call(&app, get("/v1/players/ann")).await.json();
    assert_eq!(player["games"].as_array().map(Vec::len), Some(2));
    let lifetime = &player["standings"][0];
    assert_eq!(lifetime["games"], 2);
    assert_eq!(lifetime["season"], Value::Null);
    assert_eq!(
        lifetime["places"]
            .as_array()
            .map(|p| p.iter().map(|n| n.as_u64().unwrap()).sum::<u64>()),
        Some(2)
    );

    a_league_rebuild_changes_no_ladder_row(&db).await;
}

/// Rebuilding the league from the log gives the rows the projection kept.
async fn a_league_rebuild_changes_no_ladder_row(db: &TestDb) {
    let before = ladder_rows(db).await;
    Projector::new(
        db.pool.clone(),
        League::default(),
        StoreMetrics::unregistered(),
    )
    .rebuild()
    .await
    .expect("rebuilt");
    assert_eq!(ladder_rows(db).await, before);
}

#[actix_web::test]
async fn the_ladder_answers_304_gives_csv_and_pages_without_duplicates_or_gaps_while_games_finish()
{
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let names: Vec<String> = (0..24).map(|i| format!("p{i:02}")).collect();
    let name = |i: usize| names[i % names.len()].as_str();
    // Overlapping tables: players who played more games have more points.
    for start in (0..20).step_by(3) {
        let table: Vec<&str> = (start..start + 5).map(name).collect();
        finished_game(&app, &db, &gm, &table).await;
    }
    project_league(&db).await;

    let first = call(&app, get("/v1/leaderboards/points?limit=5")).await;
    assert_eq!(first.status, StatusCode::OK);
    let etag = first.headers.get("etag").expect("an ETag").clone();
    let again = call(
        &app,
        get("/v1/leaderboards/points?limit=5").insert_header(("If-None-Match", etag)),
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert!(again.body.is_empty());

    let on_ladder = first.json()["as_of"].as_i64().expect("as_of");
    let mut seen: Vec<String> = Vec::new();
    let mut page = first.json();
    let mut round = 0;
    loop {
        for row in page["rows"].as_array().expect("rows") {
            seen.push(row["player"].as_str().expect("player").to_owned());
        }
        assert_eq!(
            page["as_of"], on_ladder,
            "every page shows the same league state"
        );
        let Some(next) = page["next"].as_str().map(str::to_owned) else {
            break;
        };
        // Games finish between the requests, moving players up and down the ladder.
        round += 1;
        let table: Vec<&str> = (round..round + 5).map(|i| name(i * 2)).collect();
        finished_game(&app, &db, &gm, &table).await;
        project_league(&db).await;
        page = call(&app, get(&next)).await.json();
    }
    let unique: HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no duplicates: {seen:?}");
    let client = db.pool.get().await.expect("connection");
    let expected: i64 = client
        .query_one(
            "SELECT count(DISTINCT player) FROM league_results WHERE seq <= $1",
            &[&on_ladder],
        )
        .await
        .expect("count")
        .get(0);
    assert_eq!(seen.len() as i64, expected, "no gaps");
    let latest = call(&app, get("/v1/leaderboards/points?limit=5"))
        .await
        .json();
    assert!(
        latest["as_of"].as_i64() > Some(on_ladder),
        "a new first page shows the new games"
    );

    let csv = call(
        &app,
        get("/v1/leaderboards/points?limit=200").insert_header(("Accept", "text/csv")),
    )
    .await;
    assert_eq!(csv.status, StatusCode::OK);
    assert!(csv
        .headers
        .get("content-type")
        .expect("a content type")
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    let text = String::from_utf8(csv.body.to_vec()).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "position,player,display_name,points,title,games,wins,rating,mu,sigma,points_exact,wins_exact"
    );
    let everyone: i64 = client
        .query_one("SELECT count(DISTINCT player) FROM league_results", &[])
        .await
        .expect("count")
        .get(0);
    assert_eq!((lines.len() - 1) as i64, everyone);
    for (i, line) in lines[1..].iter().enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), 12, "{line}");
        assert_eq!(fields[0].parse::<usize>().ok(), Some(i + 1));
        // Points people read are decimals; the exact fraction has its own column.
        assert!(fields[3].parse::<f64>().is_ok(), "{line}");
        assert!(fields[7].parse::<f64>().is_ok(), "{line}");
        assert!(!fields[3].contains('/'), "{line}");
    }
}

#[actix_web::test]
async fn bad_ladder_requests_are_named_problems() {
    let db = TestDb::new().await;
    let app = app!(db);
    for (uri, status, code) in [
        (
            "/v1/leaderboards/elo",
            StatusCode::NOT_FOUND,
            "ladder-not-found",
        ),
        (
            "/v1/leaderboards/points?ruleset=chess",
            StatusCode::NOT_FOUND,
            "ruleset-not-found",
        ),
        (
            "/v1/leaderboards/points?limit=0",
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            "/v1/leaderboards/points?limit=201",
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            "/v1/leaderboards/points?season=nineteen",
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            "/v1/leaderboards/points?season=0",
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            "/v1/leaderboards/points?after=garbage",
            StatusCode::BAD_REQUEST,
            "invalid-cursor",
        ),
        (
            "/v1/leaderboards/points?sort=name",
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
    ] {
        assert_problem(&call(&app, get(uri)).await, status, code);
    }
    let xml = call(
        &app,
        get("/v1/leaderboards/points").insert_header(("Accept", "application/xml")),
    )
    .await;
    assert_problem(&xml, StatusCode::NOT_ACCEPTABLE, "not-acceptable");
}

#[actix_web::test]
async fn configured_origins_may_read_the_ladder_and_others_get_no_cors_header() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let mut state = AppState::without_notifier(db.pool.clone(), &telemetry);
    state.cors_origins = std::sync::Arc::new(vec!["https://league.example".to_owned()]);
    let app = actix_web::test::init_service(warlog_api::app(state, &telemetry)).await;
    let allowed = call(
        &app,
        get("/v1/leaderboards/points").insert_header(("Origin", "https://league.example")),
    )
    .await;
    assert_eq!(
        allowed
            .headers
            .get("access-control-allow-origin")
            .map(|v| v.to_str().unwrap()),
        Some("https://league.example")
    );
    let other = call(
        &app,
        get("/v1/leaderboards/points").insert_header(("Origin", "https://evil.example")),
    )
    .await;
    assert!(other.headers.get("access-control-allow-origin").is_none());
}

/// What every ladder shows now, as JSON: points and skill, lifetime and this season, and
/// the points ladder as CSV.
async fn every_ladder<B: MessageBody>(app: &impl TestApp<B>) -> Vec<String> {
    let season = time::OffsetDateTime::now_utc().year();
    let mut shown = Vec::new();
    for ladder in ["points", "skill"] {
        for query in [String::new(), format!("?season={season}")] {
            let reply = call(app, get(&format!("/v1/leaderboards/{ladder}{query}"))).await;
            assert_eq!(reply.status, StatusCode::OK);
            shown.push(reply.json().to_string());
        }
    }
    let csv = call(
        app,
        get("/v1/leaderboards/points").insert_header(("Accept", "text/csv")),
    )
    .await;
    shown.push(String::from_utf8(csv.body.to_vec()).expect("utf-8"));
    shown
}

/// A player's page as the ladders make it: standings, rated games, rating history.
async fn rated_part_of_player_page<B: MessageBody>(app: &impl TestApp<B>, who: &str) -> Value {
    let page = call(app, get(&format!("/v1/players/{who}"))).await.json();
    json!([page["standings"], page["games"], page["rating_history"]])
}

#[actix_web::test]
async fn a_game_masters_fourteen_empty_games_are_aborted_and_leave_every_ladder_as_it_was() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gina", Role::Gm).await;
    let players = ["ann", "bob", "cy", "di", "ed"];
    let mut tokens = std::collections::BTreeMap::new();
    for who in players {
        tokens.insert(who.to_owned(), token(&db, who, Role::Player).await);
    }

    // Given a game its players played for a round themselves, then ended: rated as before.
    let rated = create_game_for(&app, &gm, &players).await;
    let seats = call(&app, get(&format!("/v1/games/{rated}"))).await.json()["seats"].clone();
    let player_at = |power: &str| -> String {
        let seat = seats
            .as_array()
            .and_then(|s| s.iter().find(|s| s["power"] == power))
            .expect("a seat");
        tokens[seat["player"].as_str().expect("a player")].clone()
    };
    plays_the_first_round_as(&app, player_at, &rated).await;
    assert_eq!(act(&app, &gm, &rated, "end").await.status, StatusCode::OK);
    let view = call(&app, get(&format!("/v1/games/{rated}"))).await.json();
    assert_eq!(view["status"], "ended");
    assert!(view.get("not_rated").is_none(), "{view}");
    for play in view["play"].as_array().expect("play") {
        assert_eq!(
            (
                &play["turns_played"],
                &play["orders_by_player"],
                &play["orders_by_game_master"]
            ),
            (&json!(1), &json!(8), &json!(0)),
            "{play}"
        );
    }
    let placements = call(&app, get(&format!("/v1/games/{rated}/placements"))).await;
    assert_eq!(placements.status, StatusCode::OK);
    assert_eq!(
        placements.json()["placements"].as_array().map(Vec::len),
        Some(5)
    );
    project_league(&db).await;
    let ladders = every_ladder(&app).await;
    let points = call(&app, get("/v1/leaderboards/points")).await.json();
    assert_eq!(points["rows"].as_array().map(Vec::len), Some(5));
    assert_eq!(points["rows"][0]["points_exact"], "7/5", "a five-way tie");
    let mut pages = Vec::new();
    for who in players {
        pages.push(rated_part_of_player_page(&app, who).await);
    }

    // When the game master creates fourteen games of the same five and ends each at once,
    let mut farmed = Vec::new();
    for _ in 0..14 {
        let game = create_game_for(&app, &gm, &players).await;
        let ended = act(&app, &gm, &game, "end").await;
        assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
        farmed.push(game);
    }
    project_league(&db).await;
    // (the games read model lists them as aborted)
    let projector = Projector::new(db.pool.clone(), GameSummaries, StoreMetrics::unregistered());
    let aborted = eventually(
        "the aborted games listed",
        Duration::from_secs(60),
        || async {
            projector.catch_up().await.expect("projected");
            let listed = call(&app, get("/v1/games?status=aborted")).await.json();
            (listed["games"].as_array().map(Vec::len) == Some(14)).then_some(listed)
        },
    )
    .await;

    // then every ladder, and every player's standings, games and rating, are as they were;
    assert_eq!(every_ladder(&app).await, ladders);
    for (who, before) in players.iter().zip(&pages) {
        assert_eq!(&rated_part_of_player_page(&app, who).await, before, "{who}");
        let page = call(&app, get(&format!("/v1/players/{who}"))).await.json();
        let unrated = page["unrated_games"].as_array().expect("unrated games");
        assert_eq!(unrated.len(), 14, "{who}");
        assert!(unrated
            .iter()
            .all(|g| g["status"] == "aborted" && g["status_words"] == "aborted, not rated"));
    }
    // each game says it is aborted, and why, and has no placements;
    let game = &farmed[0];
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    assert_eq!(view["status"], "aborted");
    assert_eq!(
        view["not_rated"],
        "aborted, not rated: the game ended before Russia, Germany, United Kingdom, Japan and \
         United States had played a turn of their own"
    );
    assert!(view["play"]
        .as_array()
        .expect("play")
        .iter()
        .all(|p| p["turns_played"] == 0 && p["orders_by_player"] == 0));
    assert_problem(
        &call(&app, get(&format!("/v1/games/{game}/placements"))).await,
        StatusCode::CONFLICT,
        "game-not-rated",
    );
    let page = call(&app, get(&format!("/games/{game}"))).await;
    let html = String::from_utf8(page.body.to_vec()).expect("utf-8");
    assert!(html.contains("This game is aborted, not rated"), "{html}");
    let html = call(&app, get("/players/ann")).await.body;
    let html = String::from_utf8(html.to_vec()).expect("utf-8");
    assert!(
        html.contains("Games not rated"),
        "the player page lists them"
    );

    // the games index lists them as aborted, with who gave the orders;
    assert!(aborted["games"]
        .as_array()
        .expect("games")
        .iter()
        .all(|g| g["orders"] == json!({})));
    let ended = call(&app, get("/v1/games?status=ended")).await.json();
    assert_eq!(ended["games"][0]["game_id"], rated.as_str());
    assert_eq!(
        ended["games"][0]["orders"]["germany"],
        json!({"by_player": 8, "by_game_master": 0})
    );

    // the ladder's auditor agrees, and notes each aborted game;
    let published: PublishedLadder = serde_json::from_value(points).expect("a ladder page");
    let mut exports = vec![export(&app, &rated).await];
    for game in &farmed {
        exports.push(export(&app, game).await);
    }
    let report = audit_ladder(std::slice::from_ref(&published), &exports);
    assert_ne!(report.outcome, Outcome::Failed, "{}", report.render());
    assert_eq!(
        report
            .notes
            .iter()
            .filter(|n| n.contains("aborted, not rated"))
            .count(),
        14
    );

    // and a rebuild of the league goes by the same rule.
    a_league_rebuild_changes_no_ladder_row(&db).await;
    assert_eq!(every_ladder(&app).await, ladders);
}

#[actix_web::test]
async fn a_game_masters_games_played_for_his_players_are_not_rated_until_each_player_acts_once() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gina", Role::Gm).await;
    let players = ["ann", "bob", "cy", "di", "ed"];
    // Given a game its players played themselves, rated,
    let honest = finished_game(&app, &db, &gm, &players).await;
    project_league(&db).await;
    let ladders = every_ladder(&app).await;
    let points = call(&app, get("/v1/leaderboards/points")).await.json();
    assert_eq!(points["rows"][0]["points_exact"], "7/5", "{points}");
    let mut pages = Vec::new();
    for who in players {
        pages.push(rated_part_of_player_page(&app, who).await);
    }

    // when the game master creates three games for the same five, sends `end turn` for
    // every power himself and ends each,
    let mut by_the_master = Vec::new();
    for _ in 0..3 {
        let game = create_game_for(&app, &gm, &players).await;
        for _ in 0..5 {
            let turn = call(&app, get(&format!("/v1/games/{game}"))).await.json()["turn"]
                .as_str()
                .expect("a turn")
                .to_owned();
            let body = json!({"text": "end turn", "power": turn});
            let sent = call(&app, post(&format!("/v1/games/{game}/turn"), &gm, &body)).await;
            assert_eq!(sent.status, StatusCode::OK, "{:?}", sent.json());
        }
        let ended = act(&app, &gm, &game, "end").await;
        assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
        by_the_master.push(game);
    }
    project_league(&db).await;
    let summaries = Projector::new(db.pool.clone(), GameSummaries, StoreMetrics::unregistered());
    eventually(
        "the game summaries to catch up",
        Duration::from_secs(30),
        || async {
            summaries.catch_up().await.expect("projected");
            caught_up(&db, &summaries).await.then_some(())
        },
    )
    .await;
    let listed = call(&app, get("/v1/games?status=master-only")).await.json();
    assert_eq!(
        listed["games"].as_array().map(Vec::len),
        Some(3),
        "{listed}"
    );

    // then every ladder and every player's rated games are as they were,
    assert_eq!(every_ladder(&app).await, ladders);
    for (who, before) in players.iter().zip(&pages) {
        assert_eq!(&rated_part_of_player_page(&app, who).await, before, "{who}");
        let page = call(&app, get(&format!("/v1/players/{who}"))).await.json();
        let unrated = page["unrated_games"].as_array().expect("unrated games");
        assert_eq!(unrated.len(), 3, "{who}");
        assert!(unrated.iter().all(|g| g["status"] == "master-only"
            && g["status_words"] == "played by its game master alone, not rated"));
    }
    // each game says why in its view and on its page, and has no placements;
    for game in &by_the_master {
        let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
        assert_eq!(view["status"], "master-only");
        assert_eq!(
            view["not_rated"],
            "played by its game master alone, not rated: the players of Russia, Germany, \
             United Kingdom, Japan and United States gave no order in person, by their own \
             token, by mail or through a proxy they named"
        );
        let html = call(&app, get(&format!("/games/{game}"))).await.body;
        let html = String::from_utf8(html.to_vec()).expect("utf-8");
        assert!(
            html.contains("This game is played by its game master alone, not rated"),
            "{html}"
        );
        assert_problem(
            &call(&app, get(&format!("/v1/games/{game}/placements"))).await,
            StatusCode::CONFLICT,
            "game-not-rated",
        );
    }

    // the ladder's auditor passes the ladder as published, and fails a forged one that
    // counts the game master's games, naming one;
    let mut exports = vec![export(&app, &honest).await];
    for game in &by_the_master {
        exports.push(export(&app, game).await);
    }
    let published: PublishedLadder = serde_json::from_value(points.clone()).expect("a ladder page");
    let report = audit_ladder(std::slice::from_ref(&published), &exports);
    assert_ne!(report.outcome, Outcome::Failed, "{}", report.render());
    let mut forged = points.clone();
    for row in forged["rows"].as_array_mut().expect("rows") {
        row["points_exact"] = json!("28/5");
        row["points"] = json!(5.6);
        row["games"] = json!(4);
    }
    let forged: PublishedLadder = serde_json::from_value(forged).expect("a ladder page");
    let report = audit_ladder(std::slice::from_ref(&forged), &exports);
    assert_eq!(report.outcome, Outcome::Failed, "{}", report.render());
    let finding = &report.findings[0].message;
    assert!(
        finding.contains("games not rated count for nothing")
            && finding.contains(by_the_master[0].as_str()),
        "{finding}"
    );

    // and the same three games, each player first sending one order of their own (their
    // standing orders, out of turn), are rated: three more five-way ties.
    for _ in 0..3 {
        let game = create_game_for(&app, &gm, &players).await;
        let seats = crate::games::seat_tokens(&app, &db, &game).await;
        for (power, player) in &seats {
            let standing = json!([{"type": "set_standing_orders", "order_of_loss": ["INF"]}]);
            order(&app, player, &game, power, standing).await;
        }
        plays_the_first_round_as(&app, |_| gm.clone(), &game).await;
        let ended = act(&app, &gm, &game, "end").await;
        assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
        let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
        assert_eq!(view["status"], "ended", "{view}");
    }
    project_league(&db).await;
    let points = call(&app, get("/v1/leaderboards/points")).await.json();
    assert_eq!(points["rows"][0]["points_exact"], "28/5", "{points}");
    assert_eq!(points["rows"][0]["games"], 4, "{points}");
}

#[actix_web::test]
async fn a_game_that_places_one_player_twice_is_skipped_by_the_league_and_the_next_games_go_on() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    // Given a finished game, and a copy of it written to the log as one recorded before a
    // player was held to one seat per game could be: lee holds the first two seats,
    let first = finished_game(&app, &db, &gm, &["ann", "bob", "cy", "di", "ed"]).await;
    let unsound_id = format!("{first}-copy");
    let unsound: Vec<warlog_events::NewEvent> = export(&app, &first)
        .await
        .into_iter()
        .map(|mut e| {
            if let Some(id) = e.payload.get_mut("game_id") {
                *id = json!(unsound_id);
            }
            if let Some(seats) = e.payload.get_mut("seats") {
                seats[0][1] = json!("lee");
                seats[1][1] = json!("lee");
                // Recorded before, too, a rated game needed its players: lee gave none
                // of its orders.
                if let Some(created) = e.payload.as_object_mut() {
                    created.remove("played_in_person");
                }
            }
            warlog_events::NewEvent {
                event_id: uuid::Uuid::new_v4(),
                event_type: e.event_type,
                event_version: e.event_version,
                payload: e.payload,
                metadata: e.metadata,
            }
        })
        .collect();
    let client = db.pool.get().await.expect("connection");
    warlog_store::append(
        &client,
        &StreamId::of(StreamCategory::Game, &unsound_id).expect("id"),
        warlog_store::ExpectedVersion::Any,
        &unsound,
    )
    .await
    .expect("appended as a log written before the rule could hold it");
    // and a game that finishes after it,
    finished_game(&app, &db, &gm, &["fay", "gil", "hal", "ida", "jo"]).await;

    // when the league projects the log,
    project_league(&db).await;

    // then the unsound game is skipped, named with its reason, and the ladders go on: both
    // sound games are on them, lee is not, and /readyz lists the skipped game.
    let ladder = call(&app, get("/v1/leaderboards/points")).await.json();
    assert_eq!(ladder["as_of"], 2, "{ladder}");
    let players: HashSet<&str> = ladder["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["player"].as_str())
        .collect();
    assert_eq!(players.len(), 10, "{players:?}");
    assert!(
        players.contains("jo") && !players.contains("lee"),
        "{players:?}"
    );
    let skipped = warlog_store::league::skipped_games(&client, 100)
        .await
        .expect("skipped games");
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0].game_id, unsound_id);
    assert_eq!(skipped[0].code, "seated-twice");
    assert!(skipped[0].reason.starts_with("lee holds "), "{skipped:?}");
    let ready = call(&app, get("/readyz")).await.json();
    assert_eq!(ready["status"], "ready", "{ready}");
    let listed = ready["skipped_games"][0].as_str().expect("listed");
    assert!(
        listed.contains(&unsound_id) && listed.contains("one seat per player"),
        "{listed}"
    );

    // and a rebuild skips it the same way, giving the same rows.
    a_league_rebuild_changes_no_ladder_row(&db).await;
}

#[actix_web::test]
async fn readiness_names_at_most_twenty_skipped_games_so_a_probe_stays_small() {
    let db = TestDb::new().await;
    let app = app!(db);
    let client = db.pool.get().await.expect("a connection");
    for n in 0..25 {
        client
            .execute(
                "INSERT INTO league_skipped_games (game_id, stream_version, code, reason) \
                 VALUES ($1, 9, 'seated-twice', 'lee holds two seats')",
                &[&format!("g{n:02}")],
            )
            .await
            .expect("a skipped game");
    }
    let ready = call(&app, get("/readyz")).await.json();
    let listed = ready["skipped_games"].as_array().expect("listed");
    assert_eq!(listed.len(), 20, "{ready}");
    assert!(
        listed[0].as_str().is_some_and(|l| l.contains("g00")),
        "{ready}"
    );
}
