//! Hardening (issue 21), over HTTP against real PostgreSQL: games filed under a tournament
//! only by its director, JSON bodies only as JSON, pages with security headers, bounded
//! odds, and every edge a clean problem.

use actix_web::http::StatusCode;
use serde_json::json;
use warlog_api::auth::Role;
use warlog_api::{AppState, Telemetry};
use warlog_tests::TestDb;

use crate::kit::{app, assert_problem, call, post, token};
use crate::tournaments::{create_tournament, stream_count};

#[actix_web::test]
async fn only_a_tournaments_director_or_an_admin_may_file_a_game_under_it() {
    let db = TestDb::new().await;
    let app = app!(db);
    let dora = token(&db, "dora", Role::Director).await;
    let other = token(&db, "otto", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let admin = token(&db, "root", Role::Admin).await;
    // Deadlines in the far future: this app's clock is the system's.
    let tournament = create_tournament(
        &app,
        &dora,
        json!({"name": "Filed", "rounds": 1, "deadlines": ["2099-01-01T00:00:00Z"], "short_tables": "byes"}),
    )
    .await;
    let players = ["ann", "bob", "cy", "di", "ed"];
    let body = |t: &str| json!({"ruleset": "cutthroat", "players": players, "tournament": t});
    let before = stream_count(&db).await;
    for (caller, id, status, code) in [
        (&gm, tournament.as_str(), StatusCode::FORBIDDEN, "forbidden"),
        (
            &other,
            tournament.as_str(),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        (
            &dora,
            "0190a0a0a0a0a0a0a0a0a0a0a0a0a0a0",
            StatusCode::NOT_FOUND,
            "tournament-not-found",
        ),
    ] {
        let reply = call(&app, post("/v1/games", caller, &body(id))).await;
        assert_problem(&reply, status, code);
    }
    assert_eq!(stream_count(&db).await, before, "nothing appended");
    for caller in [&dora, &admin] {
        let reply = call(&app, post("/v1/games", caller, &body(&tournament))).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.json());
    }
}

#[actix_web::test]
async fn support_shots_for_an_assault_the_aa_gun_may_shoot_down_whole_are_answered() {
    let db = TestDb::new().await;
    let app = app!(db);
    // Aircraft alone with support shots: when the AA gun downs both fighters nobody lands
    // and no shot is rolled (the engine before issue 20 failed here).
    let reply = call(
        &app,
        actix_web::test::TestRequest::post()
            .uri("/v1/odds")
            .set_json(json!({"attacker": "2 ftr", "defender": "1 inf, 1 aa", "support_shots": 2})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
    let odds = reply.json();
    assert_eq!(odds["method"], "exact", "{odds}");
    let defender_win = odds["defender_win"].as_f64().expect("defender_win");
    assert!(defender_win >= 1.0 / 36.0, "{defender_win}");
}

#[actix_web::test]
async fn the_odds_no_one_could_wait_for_are_estimated_clearly_marked_and_the_rest_are_exact() {
    let db = TestDb::new().await;
    let app = app!(db);
    // The battle that once never answered: estimated from the engine's own battles.
    let reply = call(
        &app,
        actix_web::test::TestRequest::post()
            .uri("/v1/odds")
            .set_json(json!({
                "attacker": "20 bb, 20 ftr, 20 sub", "defender": "20 bb, 20 ac, 20 sub", "sea": true
            })),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
    let odds = reply.json();
    assert_eq!(odds["method"], "estimate", "{odds}");
    assert_eq!(odds["trials"], 2000);
    let error = odds["standard_error"].as_f64().expect("a standard error");
    assert!(error > 0.0 && error <= 0.5 / 2000f64.sqrt(), "{error}");
    let total: f64 = [
        "attacker_win",
        "defender_win",
        "mutual_destruction",
        "attacker_retreated",
        "disengaged",
    ]
    .iter()
    .map(|k| odds[*k].as_f64().expect(k))
    .sum();
    assert!((total - 1.0).abs() < 1e-9, "{total}");
    // A small battle stays exact.
    let reply = call(
        &app,
        actix_web::test::TestRequest::post()
            .uri("/v1/odds")
            .set_json(json!({"attacker": "3 inf, 1 arm", "defender": "2 inf"})),
    )
    .await;
    assert_eq!(reply.json()["method"], "exact");
    assert!(reply.json().get("trials").is_none());
}

#[test]
fn a_cancelled_computation_stops_at_once_and_says_so() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    use warlog_rules::battle::{exact_odds_within, Battle, BattleKind, Work};
    let catalogue = warlog_rules::units::Catalogue::builtin("cutthroat").expect("units");
    let mut battle = Battle::new(&catalogue, BattleKind::Sea);
    battle.attacker = Battle::army(&catalogue, "20 bb, 20 ftr, 20 sub").expect("army");
    battle.defender = Battle::army(&catalogue, "20 bb, 20 ac, 20 sub").expect("army");
    // The client went away: the flag its request's guard sets on drop.
    let cancelled = Arc::new(AtomicBool::new(true));
    let work = Work::within(u64::MAX, Some(cancelled));
    let stopped = exact_odds_within(&battle, &work).expect_err("cancelled");
    assert_eq!(stopped.code, "cancelled");
    assert!(work.spent() < 100_000, "{} steps", work.spent());
}

#[actix_web::test]
async fn bodies_not_declared_json_are_refused_with_415_and_change_nothing() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let before = stream_count(&db).await;
    let body = r#"{"ruleset": "cutthroat", "players": ["ann", "bob", "cy", "di", "ed"]}"#;
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let mut request = actix_web::test::TestRequest::post()
            .uri("/v1/games")
            .insert_header(("Authorization", format!("Bearer {gm}")))
            .set_payload(body);
        if let Some(value) = content_type {
            request = request.insert_header(("Content-Type", value));
        }
        let reply = call(&app, request).await;
        assert_problem(
            &reply,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported-media-type",
        );
    }
    // The same for the public odds: no page elsewhere may make its visitors compute.
    let reply = call(
        &app,
        actix_web::test::TestRequest::post()
            .uri("/v1/odds")
            .insert_header(("Content-Type", "text/plain"))
            .set_payload(r#"{"attacker": "1 inf", "defender": "1 inf"}"#),
    )
    .await;
    assert_problem(
        &reply,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported-media-type",
    );
    assert_eq!(stream_count(&db).await, before);
    // A JSON type with parameters, or a +json type, is JSON.
    let reply = call(
        &app,
        actix_web::test::TestRequest::post()
            .uri("/v1/games")
            .insert_header(("Authorization", format!("Bearer {gm}")))
            .insert_header(("Content-Type", "application/json; charset=utf-8"))
            .set_payload(body),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.json());
}

#[actix_web::test]
async fn a_client_asking_too_often_for_odds_gets_429_with_retry_after() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let mut state = AppState::without_notifier(db.pool.clone(), &telemetry);
    state.rate_limits = std::sync::Arc::new(warlog_api::rate_limit::RateLimits {
        odds: warlog_api::rate_limit::RateLimit::per_minute(2),
        ..Default::default()
    });
    let app = actix_web::test::init_service(warlog_api::app(state, &telemetry)).await;
    let ask = || {
        actix_web::test::TestRequest::post()
            .uri("/v1/odds")
            .set_json(json!({"attacker": "1 inf", "defender": "1 inf"}))
    };
    for _ in 0..2 {
        assert_eq!(call(&app, ask()).await.status, StatusCode::OK);
    }
    let refused = call(&app, ask()).await;
    assert_problem(&refused, StatusCode::TOO_MANY_REQUESTS, "too-many-requests");
    assert!(refused.headers.get("retry-after").is_some());
}

#[actix_web::test]
async fn pages_forbid_scripts_and_framing_and_nothing_is_sniffed() {
    let db = TestDb::new().await;
    let app = app!(db);
    let page = call(&app, crate::kit::get("/")).await;
    assert_eq!(page.status, StatusCode::OK);
    let header = |reply: &crate::kit::Reply, name: &str| reply.header(name);
    let policy = header(&page, "content-security-policy");
    assert!(policy.contains("default-src 'none'"), "{policy}");
    assert!(!policy.contains("script-src"), "no script at all: {policy}");
    assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
    assert_eq!(header(&page, "x-frame-options"), "DENY");
    assert_eq!(header(&page, "x-content-type-options"), "nosniff");
    // The embeddable leaderboard may be framed by anyone, and still runs no script.
    let embed = call(&app, crate::kit::get("/embed/leaderboard")).await;
    let policy = header(&embed, "content-security-policy");
    assert!(policy.contains("frame-ancestors *"), "{policy}");
    assert!(policy.contains("default-src 'none'"), "{policy}");
    assert!(header(&embed, "x-frame-options").is_empty());
    // JSON too is never sniffed.
    let json = call(&app, crate::kit::get("/v1/games")).await;
    assert_eq!(header(&json, "x-content-type-options"), "nosniff");
}

#[actix_web::test]
async fn while_postgresql_is_down_requests_get_503_with_retry_after_and_then_recover() {
    use warlog_store::discover::{discover, DiscoveryOptions};
    // A private cluster of this test's own, on a free port, so stopping it stops no one else.
    let dir = std::env::temp_dir()
        .join(format!("warlog-down-{}", uuid::Uuid::new_v4().simple()))
        .join("pg");
    let server = discover(&DiscoveryOptions {
        database_url: None,
        probe_local: false,
        data_dir: dir.clone(),
    })
    .await
    .expect("a private cluster");
    server
        .create_database("warlog_down")
        .await
        .expect("database");
    let config = server.config_for("warlog_down");
    warlog::migrate(&config).await.expect("migrated");
    let pool = warlog_store::connect_pool(
        config,
        &warlog_store::PoolOptions {
            max_size: 4,
            ..warlog_store::PoolOptions::default()
        },
    )
    .await
    .expect("pool");
    let gm = warlog::owner_token(&server.config_for("warlog_down"), "gus", Role::Gm)
        .await
        .expect("token");
    let telemetry = Telemetry::new().expect("metrics");
    let state = AppState::without_notifier(pool, &telemetry);
    let app = actix_web::test::init_service(warlog_api::app(state, &telemetry)).await;
    let create = || {
        post(
            "/v1/games",
            &gm,
            &json!({"ruleset": "cutthroat", "players": ["ann", "bob", "cy", "di", "ed"]}),
        )
    };
    assert_eq!(call(&app, create()).await.status, StatusCode::CREATED);

    let stopper = tokio::task::spawn_blocking(move || {
        server.stop_cluster().expect("stopped");
        server
    });
    let server = stopper.await.expect("joined");
    // Every pooled connection is gone with the server: reads and writes alike are 503.
    for request in [create(), crate::kit::get("/v1/games")] {
        let reply = call(&app, request).await;
        assert_problem(&reply, StatusCode::SERVICE_UNAVAILABLE, "not-ready");
        assert!(
            reply.headers.get("retry-after").is_some(),
            "{:?}",
            reply.json()
        );
        let detail = reply.json()["detail"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(!detail.contains("tokio"), "no internals: {detail}");
    }

    let starter = tokio::task::spawn_blocking(move || {
        server.start_cluster().expect("started");
        server
    });
    let server = starter.await.expect("joined");
    warlog_tests::eventually(
        "the service to work again",
        std::time::Duration::from_secs(30),
        || async { (call(&app, create()).await.status == StatusCode::CREATED).then_some(()) },
    )
    .await;
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(dir.parent().unwrap_or(&dir));
}

#[actix_web::test]
async fn idempotency_keys_are_each_callers_own() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gus = token(&db, "gus", Role::Gm).await;
    let gwen = token(&db, "gwen", Role::Gm).await;
    let with_key = |token: &str, players: [&str; 5]| {
        post(
            "/v1/games",
            token,
            &json!({"ruleset": "cutthroat", "players": players}),
        )
        .insert_header(("Idempotency-Key", "create-1"))
    };
    let first = call(&app, with_key(&gus, ["ann", "bob", "cy", "di", "ed"])).await;
    assert_eq!(first.status, StatusCode::CREATED);
    // Another caller's same key is another request: no 422, no replay of gus's answer.
    let other = call(&app, with_key(&gwen, ["fay", "gil", "hal", "ivy", "jo"])).await;
    assert_eq!(other.status, StatusCode::CREATED, "{:?}", other.json());
    assert_ne!(other.json()["game_id"], first.json()["game_id"]);
    assert!(other.headers.get("idempotent-replayed").is_none());
    // Gus's retry gets gus's first answer.
    let retry = call(&app, with_key(&gus, ["ann", "bob", "cy", "di", "ed"])).await;
    assert_eq!(retry.json()["game_id"], first.json()["game_id"]);
    assert!(retry.headers.get("idempotent-replayed").is_some());
}

#[actix_web::test]
async fn tokens_are_listed_without_themselves_and_a_revoked_or_expired_one_is_refused_at_once() {
    use warlog::cli::TokenCommand;
    let db = TestDb::new().await;
    let app = app!(db);
    // The administrator's own connection, as `warlog token` uses.
    let admin = db.admin_pool.get().await.expect("connection");
    let run = |command| warlog::tokens::run(&admin, command);
    let create = |expires_in_days| TokenCommand::Create {
        role: "gm".to_owned(),
        name: "gus".to_owned(),
        expires_in_days,
    };
    // An expired token's name may be given again (the expired one is retired).
    let expired = run(create(Some(0))).await.expect("made").trim().to_owned();
    let live = run(create(None)).await.expect("made").trim().to_owned();
    let games = |token: &str| {
        post(
            "/v1/games",
            token,
            &json!({"ruleset": "cutthroat", "players": ["ann", "bob", "cy", "di", "ed"]}),
        )
    };
    assert_eq!(call(&app, games(&live)).await.status, StatusCode::CREATED);
    assert_problem(
        &call(&app, games(&expired)).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
    let listed = run(TokenCommand::List).await.expect("listed");
    assert!(!listed.contains(&live), "never the token itself: {listed}");
    let id = hex::encode(warlog_api::auth::hash_token(&live))[..12].to_owned();
    assert!(listed.contains(&id), "{listed}");
    let refused = run(TokenCommand::Revoke {
        id: "12".to_owned(),
    })
    .await
    .expect_err("too short");
    assert!(refused.to_string().contains("six hex digits"), "{refused}");
    let unknown = if id.starts_with("000000") {
        "ffffff"
    } else {
        "000000"
    };
    let refused = run(TokenCommand::Revoke {
        id: unknown.to_owned(),
    })
    .await
    .expect_err("no such token");
    assert!(refused.to_string().contains("no live token"), "{refused}");
    run(TokenCommand::Revoke { id: id.clone() })
        .await
        .expect("revoked");
    assert_problem(
        &call(&app, games(&live)).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
    let listed = run(TokenCommand::List).await.expect("listed");
    let line = listed
        .lines()
        .find(|l| l.starts_with(&id))
        .expect("its line");
    assert!(!line.ends_with(" -"), "revoked shows its time: {line}");
}

#[actix_web::test]
async fn a_known_resource_asked_with_another_method_is_405_with_allow() {
    let db = TestDb::new().await;
    let app = app!(db);
    for (method, path, allow) in [
        // HEAD is answered wherever GET is.
        ("TRACE", "/v1/games", "GET, HEAD, POST"),
        ("DELETE", "/v1/leaderboards/points", "GET, HEAD"),
        ("PUT", "/v1/odds", "POST"),
        ("TRACE", "/players/ann", "GET, HEAD"),
    ] {
        let request = actix_web::test::TestRequest::default()
            .method(actix_web::http::Method::from_bytes(method.as_bytes()).expect("method"))
            .uri(path);
        let reply = call(&app, request).await;
        assert_problem(&reply, StatusCode::METHOD_NOT_ALLOWED, "method-not-allowed");
        assert_eq!(
            reply.headers.get("allow").and_then(|v| v.to_str().ok()),
            Some(allow),
            "{method} {path}"
        );
    }
    // Nothing there at all is still 404.
    let reply = call(&app, crate::kit::get("/v1/nothing")).await;
    assert_problem(&reply, StatusCode::NOT_FOUND, "route-not-found");
    // Stream versions start at 1, as the document says.
    let reply = call(&app, crate::kit::get("/v1/streams/league/events?from=0")).await;
    assert_problem(&reply, StatusCode::BAD_REQUEST, "malformed-request");
}

#[actix_web::test]
async fn the_services_login_role_cannot_forge_events_seeds_or_tokens_nor_become_more() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let created = call(
        &app,
        post(
            "/v1/games",
            &gm,
            &json!({"ruleset": "cutthroat", "players": ["ann", "bob", "cy", "di", "ed"]}),
        ),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED);
    let game = format!("game-{}", created.json()["game_id"].as_str().expect("id"));
    // Logged in as the service logs in: warlog_service, with warlog_app's rights only.
    let service = db.service_login().await;
    service
        .batch_execute("RESET ROLE")
        .await
        .expect("nothing to reset to");
    let refused = |result: Result<u64, tokio_postgres::Error>, what: &str| {
        let error = result.expect_err(what);
        let code = error
            .code()
            .map(|c| c.code().to_owned())
            .unwrap_or_default();
        (code, warlog_store::describe_pg(&error))
    };
    // Become a superuser again: no.
    let (code, _) = refused(
        service.execute("SET ROLE postgres", &[]).await,
        "SET ROLE postgres",
    );
    assert_eq!(code, "42501", "insufficient privilege");
    // Write a token: no.
    let (code, _) = refused(
        service
            .execute(
                "INSERT INTO api_tokens (token_hash, name, role) VALUES ($1, 'mallory', 'admin')",
                &[&vec![7u8; 32]],
            )
            .await,
        "a token",
    );
    assert_eq!(code, "42501");
    // Change a seed: no; note its reveal: yes.
    let (code, _) = refused(
        service
            .execute(
                "UPDATE dice_seeds SET seed = $1 WHERE stream_id = $2",
                &[&vec![0u8; 32], &game],
            )
            .await,
        "a seed",
    );
    assert_eq!(code, "42501");
    service
        .execute(
            "UPDATE dice_seeds SET revealed_at = now() WHERE stream_id = $1",
            &[&game],
        )
        .await
        .expect("the reveal may be noted");
    // An event that does not continue the chain: refused by the database itself.
    let (code, said) = refused(
        service
            .execute(
                "INSERT INTO events (stream_id, stream_version, event_id, event_type, \
                     event_version, payload, metadata, recorded_at, prev_hash, hash) \
                 SELECT stream_id, stream_version + 1, gen_random_uuid(), 'GameEnded', 1, \
                        '{}'::jsonb, '{}'::jsonb, now(), $2, $2 \
                   FROM events WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1",
                &[&game, &vec![9u8; 32]],
            )
            .await,
        "a forged event",
    );
    assert_eq!(code, "23000", "{said}");
    assert!(said.contains("does not continue its chain"), "{said}");
    let count: i64 = service
        .query_one("SELECT count(*) FROM events WHERE stream_id = $1", &[&game])
        .await
        .expect("count")
        .get(0);
    assert!(count >= 1);
}

/// Sends a battle whose odds take the whole budget to compute, over a raw connection
/// the caller may drop before the answer.
fn start_a_long_computation(addr: std::net::SocketAddr) -> std::net::TcpStream {
    use std::io::Write as _;
    let body =
        r#"{"attacker": "20 bb, 20 ftr, 20 sub", "defender": "20 bb, 20 ac, 20 sub", "sea": true}"#;
    let mut client = std::net::TcpStream::connect(addr).expect("connected");
    write!(
        client,
        "POST /v1/odds HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("sent");
    client
}

#[actix_web::test]
async fn a_client_that_goes_away_mid_computation_leaves_no_work_running() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let state = AppState::without_notifier(db.pool.clone(), &telemetry);
    let limits = state.rate_limits.clone();
    let computations_running = || limits.computing.running();
    let (addr, server) = crate::pages::listen(state, &telemetry);
    let client = start_a_long_computation(addr);
    warlog_tests::eventually(
        "the computation to start",
        std::time::Duration::from_secs(30),
        || async { (computations_running() > 0).then_some(()) },
    )
    .await;
    // The client goes away before the answer; the computation, bounded by its budget,
    // ends and frees its core.
    client.shutdown(std::net::Shutdown::Both).expect("closed");
    drop(client);
    warlog_tests::eventually(
        "no computation left running",
        std::time::Duration::from_secs(60),
        || async { (computations_running() == 0).then_some(()) },
    )
    .await;
    server.stop(true).await;
}

#[actix_web::test]
async fn odds_beyond_the_computations_run_at_once_are_503_busy_with_retry_after() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let mut state = AppState::without_notifier(db.pool.clone(), &telemetry);
    // Every client has its own rate, and each is far from it: only the cap refuses.
    state.rate_limits = std::sync::Arc::new(warlog_api::rate_limit::RateLimits {
        odds: warlog_api::rate_limit::RateLimit::per_minute(0),
        computing: warlog_api::rate_limit::ComputeSlots::at_most(1),
        proxies: Default::default(),
    });
    let limits = state.rate_limits.clone();
    // Two doors to one service: a real server for the long computation, and the same
    // state in process for the requests that follow.
    let app = actix_web::test::init_service(warlog_api::app(state.clone(), &telemetry)).await;
    let (addr, server) = crate::pages::listen(state, &telemetry);
    let ask = || {
        actix_web::test::TestRequest::post()
            .uri("/v1/odds")
            .set_json(json!({"attacker": "1 inf", "defender": "1 inf"}))
    };
    let long = start_a_long_computation(addr);
    warlog_tests::eventually(
        "the computation to start",
        std::time::Duration::from_secs(30),
        || async { (limits.computing.running() > 0).then_some(()) },
    )
    .await;
    let refused = call(&app, ask()).await;
    assert_problem(&refused, StatusCode::SERVICE_UNAVAILABLE, "busy");
    assert!(refused.headers.get("retry-after").is_some());
    drop(long);
    warlog_tests::eventually(
        "the slot to be given back",
        std::time::Duration::from_secs(60),
        || async { (limits.computing.running() == 0).then_some(()) },
    )
    .await;
    assert_eq!(call(&app, ask()).await.status, StatusCode::OK);
    server.stop(true).await;
}

#[actix_web::test]
async fn a_second_live_token_under_a_name_already_given_is_refused_by_warlog_token_create() {
    use warlog::cli::TokenCommand;
    let db = TestDb::new().await;
    let app = app!(db);
    // Given a live gm token named dan, made on the administrator's own connection, as
    // `warlog token create` makes it,
    let admin = db.admin_pool.get().await.expect("connection");
    let run = |command| warlog::tokens::run(&admin, command);
    let create = |role: &str| TokenCommand::Create {
        role: role.to_owned(),
        name: "dan".to_owned(),
        expires_in_days: None,
    };
    let dans = || async {
        run(TokenCommand::List)
            .await
            .expect("listed")
            .lines()
            .filter(|l| l.split_whitespace().nth(1) == Some("dan"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let first = run(create("gm")).await.expect("made").trim().to_owned();
    let id = hex::encode(warlog_api::auth::hash_token(&first))[..12].to_owned();
    // when another token is asked for under the same name, as a gm or in another role,
    // then it is refused, naming the live token, and nothing is stored;
    for role in ["gm", "director"] {
        let refused = run(create(role)).await.expect_err("a second live dan");
        assert!(
            refused.to_string().contains("already named dan") && refused.to_string().contains(&id),
            "{refused}"
        );
    }
    assert_eq!(dans().await.len(), 1);
    let games = |token: &str| {
        post(
            "/v1/games",
            token,
            &json!({"ruleset": "cutthroat", "players": ["ann", "bob", "cy", "di", "ed"]}),
        )
    };
    assert_eq!(call(&app, games(&first)).await.status, StatusCode::CREATED);
    // when the first is revoked, then the name may be given again (a holder's replacement),
    // and only the new token acts under it.
    run(TokenCommand::Revoke { id: id.clone() })
        .await
        .expect("revoked");
    let second = run(create("gm"))
        .await
        .expect("made again")
        .trim()
        .to_owned();
    assert_eq!(call(&app, games(&second)).await.status, StatusCode::CREATED);
    assert_problem(
        &call(&app, games(&first)).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
    assert_eq!(dans().await.len(), 2, "the revoked one stays listed");
}

#[actix_web::test]
async fn a_game_master_creating_a_game_that_seats_themself_is_refused_and_nothing_is_appended() {
    // Given a gm and an admin,
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let director = token(&db, "dora", Role::Director).await;
    let admin = token(&db, "root", Role::Admin).await;
    let game_with = |token: &str, me: &str| {
        post(
            "/v1/games",
            token,
            &json!({"ruleset": "cutthroat", "players": [me, "bob", "cy", "di", "ed"]}),
        )
    };
    // when the gm or a director creates a game with themself among the players, then it is
    // refused (403, saying why) and nothing is appended;
    for (token, me) in [(&gm, "gus"), (&director, "dora")] {
        let refused = call(&app, game_with(token, me)).await;
        assert_problem(&refused, StatusCode::FORBIDDEN, "forbidden");
        let detail = refused.json()["detail"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            detail.contains(&format!(
                "{me} is this game's master and may not also hold a seat"
            )),
            "{detail}"
        );
    }
    assert_eq!(stream_count(&db).await, 0);
    // when the gm seats others, then the game is created;
    assert_eq!(
        call(&app, game_with(&gm, "ann")).await.status,
        StatusCode::CREATED
    );
    // when an admin seats themself, then it stands: the record names the admin.
    assert_eq!(
        call(&app, game_with(&admin, "root")).await.status,
        StatusCode::CREATED
    );
    assert_eq!(stream_count(&db).await, 2);
}
