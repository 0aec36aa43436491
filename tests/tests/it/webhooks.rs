//! Webhooks (issue 17), end to end on 127.0.0.1: a subscription, the outbox filled from the
//! log, deliveries signed and posted to a real receiver; the receiver stopped while games
//! end, started again, and every delivery arriving once by its id.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse, HttpServer};
use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_api::webhooks::{deliver_due, http_client, signature, SenderSettings};
use warlog_api::{AppState, Telemetry};
use warlog_store::projector::Projector;
use warlog_store::webhooks::WebhookOutbox;
use warlog_store::StoreMetrics;
use warlog_tests::{eventually, TestDb};

use crate::games::create_game;
use crate::kit::{assert_problem, call, get, post, token};

const SECRET: &str = "a secret of more than sixteen characters";

/// What the receiver was sent: (Webhook-Id, Webhook-Timestamp, Webhook-Signature, body).
type Received = Arc<Mutex<Vec<(String, String, String, String)>>>;

/// A receiver on `port` (0: any) that keeps what it is sent.
fn receiver(port: u16, received: Received) -> (u16, actix_web::dev::ServerHandle) {
    let server = HttpServer::new(move || {
        let received = received.clone();
        actix_web::App::new().route(
            "/hook",
            web::post().to(move |req: HttpRequest, body: String| {
                let received = received.clone();
                async move {
                    let header = |name: &str| {
                        req.headers()
                            .get(name)
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or_default()
                            .to_owned()
                    };
                    received.lock().expect("lock").push((
                        header("webhook-id"),
                        header("webhook-timestamp"),
                        header("webhook-signature"),
                        body,
                    ));
                    HttpResponse::NoContent().finish()
                }
            }),
        )
    })
    .disable_signals()
    .workers(1)
    .bind(("127.0.0.1", port))
    .expect("a port");
    let port = server.addrs().first().expect("an address").port();
    let running = server.run();
    let handle = running.handle();
    actix_web::rt::spawn(running);
    (port, handle)
}

/// Projects the outbox and runs sender passes until `done` holds of what was received.
async fn deliver_until(
    db: &TestDb,
    settings: &SenderSettings,
    received: &Received,
    what: &str,
    done: impl Fn(&[(String, String, String, String)]) -> bool,
) {
    let client = http_client(settings);
    let outbox = Projector::new(db.pool.clone(), WebhookOutbox, StoreMetrics::unregistered());
    eventually(what, Duration::from_secs(60), || async {
        outbox.catch_up().await.expect("outbox projected");
        deliver_due(&db.pool, &client, settings, None)
            .await
            .expect("a sender pass");
        done(&received.lock().expect("lock")).then_some(())
    })
    .await;
}

async fn end_a_game<B: actix_web::body::MessageBody>(
    app: &impl crate::kit::TestApp<B>,
    gm: &str,
) -> String {
    let game = create_game(app, gm).await;
    // A quiet first round: a game ended before every power has played moves no ladder.
    crate::games::plays_the_first_round(app, gm, &game).await;
    let ended = call(app, post(&format!("/v1/games/{game}/end"), gm, &json!({}))).await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    game
}

#[actix_web::test]
async fn a_receiver_that_was_down_gets_every_delivery_once_signed_when_it_comes_back() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let state = AppState::without_notifier(db.pool.clone(), &telemetry);
    let app = actix_web::test::init_service(warlog_api::app(state, &telemetry)).await;
    let director = token(&db, "dora", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let received: Received = Arc::default();
    let (port, receiving) = receiver(0, received.clone());

    // Registration: checked whole, and only for admins and directors.
    let url = format!("http://127.0.0.1:{port}/hook");
    let body = json!({"url": url, "kinds": ["game.ended", "ladder.changed"], "secret": SECRET});
    assert_problem(
        &call(&app, post("/v1/webhooks", &gm, &body)).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    for bad in [
        json!({"url": "ftp://127.0.0.1/hook", "kinds": ["game.ended"], "secret": SECRET}),
        json!({"url": url, "kinds": ["game.started"], "secret": SECRET}),
        json!({"url": url, "kinds": ["game.ended"], "secret": "short"}),
    ] {
        assert_problem(
            &call(&app, post("/v1/webhooks", &director, &bad)).await,
            StatusCode::BAD_REQUEST,
            "malformed-request",
        );
    }
    let created = call(&app, post("/v1/webhooks", &director, &body)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{:?}", created.json());
    let subscription = created.json()["subscription_id"]
        .as_str()
        .expect("an id")
        .to_owned();
    assert!(
        created.json().get("secret").is_none(),
        "the secret is not shown"
    );

    let settings = SenderSettings {
        retry_base: Duration::from_millis(20),
        retry_max: Duration::from_millis(100),
        timeout: Duration::from_secs(5),
        ..SenderSettings::default()
    };
    // One game ends while the receiver is up: two deliveries (game.ended, ladder.changed).
    let first = end_a_game(&app, &gm).await;
    deliver_until(
        &db,
        &settings,
        &received,
        "the first game's deliveries",
        |r| r.len() == 2,
    )
    .await;

    // The receiver goes down; two more games end; the attempts fail and are retried.
    receiving.stop(true).await;
    let later = [end_a_game(&app, &gm).await, end_a_game(&app, &gm).await];
    let client = http_client(&settings);
    let outbox = Projector::new(db.pool.clone(), WebhookOutbox, StoreMetrics::unregistered());
    let deliveries_uri = format!("/v1/webhooks/{subscription}/deliveries");
    eventually(
        "failed attempts on the record",
        Duration::from_secs(60),
        || async {
            outbox.catch_up().await.expect("outbox projected");
            deliver_due(&db.pool, &client, &settings, Some(&telemetry.webhooks))
                .await
                .expect("a pass");
            let listed = call(
                &app,
                get(&deliveries_uri).insert_header(("Authorization", format!("Bearer {director}"))),
            )
            .await
            .json();
            let failing = listed["deliveries"]
                .as_array()
                .expect("deliveries")
                .iter()
                .filter(|d| d["status"] == "failing" && d["attempts"].as_i64() >= Some(2))
                .count();
            (failing == 4).then_some(())
        },
    )
    .await;
    let metrics = call(&app, get("/metrics")).await;
    let text = String::from_utf8_lossy(&metrics.body).into_owned();
    assert!(
        text.contains("warlog_webhook_attempts_total{outcome=\"failed\"}"),
        "{text}"
    );
    let mine = call(
        &app,
        get("/v1/webhooks").insert_header(("Authorization", format!("Bearer {director}"))),
    )
    .await
    .json();
    assert_eq!(mine["subscriptions"][0]["failing"], 4, "{mine}");
    assert_eq!(mine["subscriptions"][0]["delivered"], 2, "{mine}");

    // The receiver comes back on its address: everything arrives, each delivery once.
    let (_, receiving) = receiver(port, received.clone());
    deliver_until(&db, &settings, &received, "every delivery", |r| {
        r.len() >= 6
    })
    .await;
    // A further pass sends nothing again.
    assert_eq!(
        deliver_due(&db.pool, &client, &settings, None)
            .await
            .expect("a pass"),
        0
    );
    receiving.stop(true).await;

    let received = received.lock().expect("lock").clone();
    let mut by_id: BTreeMap<String, usize> = BTreeMap::new();
    let mut games: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (id, timestamp, signed, body) in &received {
        *by_id.entry(id.clone()).or_default() += 1;
        let timestamp: i64 = timestamp.parse().expect("a timestamp");
        assert_eq!(*signed, signature(SECRET, timestamp, body), "signed");
        let body: Value = serde_json::from_str(body).expect("JSON");
        assert_eq!(body["delivery_id"], id.as_str());
        games
            .entry(body["game_id"].as_str().expect("a game").to_owned())
            .or_default()
            .push(body["kind"].as_str().expect("a kind").to_owned());
    }
    assert_eq!(by_id.len(), 6, "six deliveries: {by_id:?}");
    assert!(by_id.values().all(|n| *n == 1), "each once: {by_id:?}");
    for game in std::iter::once(&first).chain(&later) {
        let mut kinds = games.get(game).cloned().unwrap_or_default();
        kinds.sort();
        assert_eq!(kinds, ["game.ended", "ladder.changed"], "{game}");
    }

    // Another director neither sees nor deletes it; an unknown id is not found; nothing
    // changes.
    let other = token(&db, "otto", Role::Director).await;
    for (caller, id) in [
        (&other, subscription.as_str()),
        (&director, "no-such-webhook"),
    ] {
        let listed = call(
            &app,
            get(&format!("/v1/webhooks/{id}/deliveries"))
                .insert_header(("Authorization", format!("Bearer {caller}"))),
        )
        .await;
        assert_problem(&listed, StatusCode::NOT_FOUND, "webhook-not-found");
        let deleted = call(
            &app,
            actix_web::test::TestRequest::delete()
                .uri(&format!("/v1/webhooks/{id}"))
                .insert_header(("Authorization", format!("Bearer {caller}"))),
        )
        .await;
        assert_problem(&deleted, StatusCode::NOT_FOUND, "webhook-not-found");
    }
    let theirs = call(
        &app,
        get("/v1/webhooks").insert_header(("Authorization", format!("Bearer {other}"))),
    )
    .await
    .json();
    assert_eq!(theirs["subscriptions"], json!([]), "{theirs}");
    let mine = call(
        &app,
        get("/v1/webhooks").insert_header(("Authorization", format!("Bearer {director}"))),
    )
    .await
    .json();
    assert_eq!(
        mine["subscriptions"][0]["subscription_id"],
        subscription.as_str()
    );

    // Deleted: nothing more is enqueued.
    let deleted = call(
        &app,
        actix_web::test::TestRequest::delete()
            .uri(&format!("/v1/webhooks/{subscription}"))
            .insert_header(("Authorization", format!("Bearer {director}"))),
    )
    .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    end_a_game(&app, &gm).await;
    outbox.catch_up().await.expect("projected");
    assert_eq!(
        deliver_due(&db.pool, &client, &settings, None)
            .await
            .expect("a pass"),
        0
    );
}

#[actix_web::test]
async fn a_game_ended_before_every_power_played_tells_of_its_end_and_of_no_ladder_change() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let state = AppState::without_notifier(db.pool.clone(), &telemetry);
    let app = actix_web::test::init_service(warlog_api::app(state, &telemetry)).await;
    let director = token(&db, "dora", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let body = json!({"url": "http://127.0.0.1:9/hook", "kinds": ["game.ended", "ladder.changed"],
                      "secret": SECRET});
    let created = call(&app, post("/v1/webhooks", &director, &body)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{:?}", created.json());
    // Created and ended at once: aborted, not rated.
    let game = create_game(&app, &gm).await;
    let ended = call(
        &app,
        post(&format!("/v1/games/{game}/end"), &gm, &json!({})),
    )
    .await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    let outbox = Projector::new(db.pool.clone(), WebhookOutbox, StoreMetrics::unregistered());
    let kinds = eventually(
        "the end's delivery enqueued",
        Duration::from_secs(30),
        || async {
            outbox.catch_up().await.expect("projected");
            let client = db.pool.get().await.expect("connection");
            let kinds: Vec<String> = client
                .query("SELECT kind FROM webhook_deliveries ORDER BY kind", &[])
                .await
                .expect("deliveries")
                .iter()
                .map(|r| r.get(0))
                .collect();
            (!kinds.is_empty()).then_some(kinds)
        },
    )
    .await;
    assert_eq!(kinds, ["game.ended"]);
}
