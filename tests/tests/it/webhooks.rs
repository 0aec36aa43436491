//! Webhooks (issues 17 and 32), end to end on 127.0.0.1: a subscription, the outbox filled
//! from the log, deliveries signed and posted to a real receiver; the receiver stopped while
//! games end, started again, and every delivery arriving once by its id. Then the guard:
//! internal addresses refused at registration and at send time (loopback receivers are
//! reached only through the operator's allow-list), a hanging receiver holding nobody
//! else's delivery, pauses, dead letters, the cap, and listings that tell nothing of what
//! an internal port answered.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse, HttpServer};
use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_api::webhooks::{
    deliver_due, http_client, reseal_secrets, signature, spawn_sender, AllowList, Guard,
    SecretKeys, SenderSettings, WebhookPolicy,
};
use warlog_api::{AppState, Telemetry};
use warlog_store::projector::Projector;
use warlog_store::webhooks::WebhookOutbox;
use warlog_store::StoreMetrics;
use warlog_tests::{eventually, TestDb};

use crate::games::create_game;
use crate::kit::{assert_problem, call, get, post, token};

pub(crate) const SECRET: &str = "a secret of more than sixteen characters";

/// A policy whose allow-list is `entries` (the operator's `--webhook-allow`).
pub(crate) fn allowing(entries: &[&str]) -> WebhookPolicy {
    let entries: Vec<String> = entries.iter().map(|e| (*e).to_owned()).collect();
    WebhookPolicy {
        guard: Guard::new(AllowList::try_from(entries.as_slice()).expect("an allow-list")),
        ..WebhookPolicy::default()
    }
}

/// The app on `db` with the webhook policy `policy`.
macro_rules! app_with {
    ($db:expr, $telemetry:expr, $policy:expr) => {{
        let mut state = AppState::without_notifier($db.pool.clone(), $telemetry);
        state.webhooks = Arc::new($policy);
        actix_web::test::init_service(warlog_api::app(state, $telemetry)).await
    }};
}

/// Quick retries, no pause and no dead letters unless a test asks, loopback allowed.
pub(crate) fn quick_settings() -> SenderSettings {
    SenderSettings {
        retry_base: Duration::from_millis(20),
        retry_max: Duration::from_millis(100),
        timeout: Duration::from_secs(5),
        pause_after: 1000,
        max_attempts: 1000,
        policy: allowing(&["127.0.0.1/32"]),
        ..SenderSettings::default()
    }
}

fn bearer(token: &str) -> (&'static str, String) {
    ("Authorization", format!("Bearer {token}"))
}

/// What the receiver was sent: (Webhook-Id, Webhook-Timestamp, Webhook-Signature, body).
pub(crate) type Received = Arc<Mutex<Vec<(String, String, String, String)>>>;

/// A receiver on `port` (0: any) that keeps what it is sent.
pub(crate) fn receiver(port: u16, received: Received) -> (u16, actix_web::dev::ServerHandle) {
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
pub(crate) async fn deliver_until(
    db: &TestDb,
    settings: &SenderSettings,
    received: &Received,
    what: &str,
    done: impl Fn(&[(String, String, String, String)]) -> bool,
) {
    let client = http_client(settings);
    let outbox = Projector::new(
        db.pool.clone(),
        WebhookOutbox::default(),
        StoreMetrics::unregistered(),
    );
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
    db: &TestDb,
    gm: &str,
) -> String {
    let game = create_game(app, gm).await;
    // A quiet first round: a game ended before every power has played moves no ladder.
    crate::games::plays_the_first_round(app, db, &game).await;
    let ended = call(app, post(&format!("/v1/games/{game}/end"), gm, &json!({}))).await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    game
}

#[actix_web::test]
async fn a_receiver_that_was_down_gets_every_delivery_once_signed_when_it_comes_back() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let app = app_with!(&db, &telemetry, allowing(&["127.0.0.1/32"]));
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

    let settings = quick_settings();
    // One game ends while the receiver is up: two deliveries (game.ended, ladder.changed).
    let first = end_a_game(&app, &db, &gm).await;
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
    let later = [
        end_a_game(&app, &db, &gm).await,
        end_a_game(&app, &db, &gm).await,
    ];
    let client = http_client(&settings);
    let outbox = Projector::new(
        db.pool.clone(),
        WebhookOutbox::default(),
        StoreMetrics::unregistered(),
    );
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
    end_a_game(&app, &db, &gm).await;
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
    let app = app_with!(&db, &telemetry, allowing(&["127.0.0.1/32"]));
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
    let outbox = Projector::new(
        db.pool.clone(),
        WebhookOutbox::default(),
        StoreMetrics::unregistered(),
    );
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

/// A receiver on `port` (0: any) that answers `status` with `body` to everything, keeping
/// what it is sent.
fn answering(
    port: u16,
    status: u16,
    body: &'static str,
    received: Received,
) -> (u16, actix_web::dev::ServerHandle) {
    let server = HttpServer::new(move || {
        let received = received.clone();
        actix_web::App::new().default_service(web::to(move |req: HttpRequest, sent: String| {
            let received = received.clone();
            async move {
                let id = req
                    .headers()
                    .get("webhook-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                received
                    .lock()
                    .expect("lock")
                    .push((id, String::new(), String::new(), sent));
                HttpResponse::build(StatusCode::from_u16(status).expect("a status"))
                    .insert_header(("WWW-Authenticate", "Basic realm=\"internal admin\""))
                    .body(body)
            }
        }))
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

/// A port on 127.0.0.1 where nothing listens (connections are refused).
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("a port");
    listener.local_addr().expect("an address").port()
}

async fn register<B: actix_web::body::MessageBody>(
    app: &impl crate::kit::TestApp<B>,
    owner: &str,
    url: &str,
) -> String {
    let body = json!({"url": url, "kinds": ["game.ended", "ladder.changed"], "secret": SECRET});
    let created = call(app, post("/v1/webhooks", owner, &body)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{:?}", created.json());
    created.json()["subscription_id"]
        .as_str()
        .expect("an id")
        .to_owned()
}

async fn listed<B: actix_web::body::MessageBody>(
    app: &impl crate::kit::TestApp<B>,
    owner: &str,
    uri: &str,
) -> Value {
    let reply = call(app, get(uri).insert_header(bearer(owner))).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
    reply.json()
}

/// Projects the outbox until it holds `at_least` deliveries (the projector reads only
/// what every transaction before it committed, and other tests' run beside).
async fn enqueued(db: &TestDb, at_least: i64) {
    let outbox = Projector::new(
        db.pool.clone(),
        WebhookOutbox::default(),
        StoreMetrics::unregistered(),
    );
    eventually(
        "the deliveries enqueued",
        Duration::from_secs(30),
        || async {
            outbox.catch_up().await.expect("outbox projected");
            let count: i64 = db
                .pool
                .get()
                .await
                .expect("connection")
                .query_one("SELECT count(*) FROM webhook_deliveries", &[])
                .await
                .expect("a count")
                .get(0);
            (count >= at_least).then_some(())
        },
    )
    .await;
}

/// Projects the outbox and runs `passes` sender passes.
async fn passes(db: &TestDb, settings: &SenderSettings, passes: usize) -> usize {
    let client = http_client(settings);
    let outbox = Projector::new(
        db.pool.clone(),
        WebhookOutbox::default(),
        StoreMetrics::unregistered(),
    );
    outbox.catch_up().await.expect("outbox projected");
    let mut attempted = 0;
    for _ in 0..passes {
        attempted += deliver_due(&db.pool, &client, settings, None)
            .await
            .expect("a pass");
    }
    attempted
}

#[actix_web::test]
async fn every_spelling_of_an_internal_address_is_refused_at_registration_naming_why() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let app = app_with!(&db, &telemetry, WebhookPolicy::default());
    let director = token(&db, "dora", Role::Director).await;

    // Before any delivery, every outcome is already a series at 0.
    let metrics = String::from_utf8_lossy(&call(&app, get("/metrics")).await.body).into_owned();
    for outcome in ["delivered", "failed", "not_allowed"] {
        assert!(
            metrics.contains(&format!(
                "warlog_webhook_attempts_total{{outcome=\"{outcome}\"}} 0"
            )),
            "{metrics}"
        );
    }

    for (url, why) in [
        ("http://127.0.0.1:8080/hook", "loopback"),
        ("http://127.0.0.1:5432/", "loopback"),
        ("http://localhost/hook", "localhost"),
        ("http://LocalHost./hook", "localhost"),
        ("http://api.localhost/hook", "localhost"),
        ("http://[::1]/hook", "loopback"),
        ("http://0.0.0.0/hook", "unspecified"),
        ("http://[::]/hook", "unspecified"),
        ("http://2130706433/hook", "loopback"),
        ("http://0x7f.1/hook", "loopback"),
        ("http://127.1/hook", "loopback"),
        ("http://0177.0.0.1/hook", "loopback"),
        ("http://[::ffff:127.0.0.1]/hook", "IPv4-mapped"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[fe80::1]/hook", "link-local"),
        ("http://10.0.0.1/hook", "private"),
        ("http://172.16.5.4/hook", "private"),
        ("http://192.168.1.1/hook", "private"),
        ("http://100.64.0.1/hook", "carrier-grade NAT"),
        ("http://[fd00::1]/hook", "unique local"),
        ("http://224.0.0.1/hook", "multicast"),
        ("http://255.255.255.255/hook", "broadcast"),
        ("http://192.0.2.1/hook", "documentation"),
    ] {
        let body = json!({"url": url, "kinds": ["game.ended"], "secret": SECRET});
        let refused = call(&app, post("/v1/webhooks", &director, &body)).await;
        assert_problem(
            &refused,
            StatusCode::UNPROCESSABLE_ENTITY,
            "webhook-address-not-allowed",
        );
        assert!(
            refused
                .header("content-type")
                .starts_with("application/problem+json"),
            "{url}"
        );
        let detail = refused.json()["detail"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(detail.contains(why), "{url}: {detail}");
    }

    // Credentials in the URL: refused before anything is resolved, saying so.
    for url in [
        "http://user:pass@93.184.215.14/hook",
        "https://token@93.184.215.14/hook",
    ] {
        let body = json!({"url": url, "kinds": ["game.ended"], "secret": SECRET});
        let refused = call(&app, post("/v1/webhooks", &director, &body)).await;
        assert_problem(&refused, StatusCode::BAD_REQUEST, "malformed-request");
        let detail = refused.json()["detail"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(detail.contains("credentials"), "{detail}");
        assert!(!detail.contains("user:pass"), "{detail}");
    }
    let mine = listed(&app, &director, "/v1/webhooks").await;
    assert_eq!(mine["subscriptions"], json!([]), "{mine}");
}

#[actix_web::test]
async fn a_name_allowed_at_registration_and_not_at_send_time_is_not_delivered_to() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    // The operator allowed `localhost` when it was registered...
    let app = app_with!(&db, &telemetry, allowing(&["localhost"]));
    let director = token(&db, "dora", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let received: Received = Arc::default();
    let (port, receiving) = receiver(0, received.clone());
    let subscription = register(&app, &director, &format!("http://localhost:{port}/hook")).await;
    end_a_game(&app, &db, &gm).await;
    enqueued(&db, 2).await;

    // ...and not any more when it is sent: the name resolves to loopback, and the
    // connector's resolver refuses it.
    let refusing = SenderSettings {
        policy: WebhookPolicy::default(),
        ..quick_settings()
    };
    let client = http_client(&refusing);
    let outbox = Projector::new(
        db.pool.clone(),
        WebhookOutbox::default(),
        StoreMetrics::unregistered(),
    );
    outbox.catch_up().await.expect("projected");
    let deliveries_uri = format!("/v1/webhooks/{subscription}/deliveries");
    eventually("both deliveries tried", Duration::from_secs(30), || async {
        deliver_due(&db.pool, &client, &refusing, Some(&telemetry.webhooks))
            .await
            .expect("a pass");
        let listed = listed(&app, &director, &deliveries_uri).await;
        listed["deliveries"]
            .as_array()
            .expect("deliveries")
            .iter()
            .all(|d| d["attempts"] != 0)
            .then_some(())
    })
    .await;
    let deliveries = listed(&app, &director, &deliveries_uri).await;
    let deliveries = deliveries["deliveries"].as_array().expect("deliveries");
    assert_eq!(deliveries.len(), 2);
    // The same two a page at a time: the next page in `next` and in `Link`.
    let first = call(
        &app,
        get(&format!("{deliveries_uri}?limit=1")).insert_header(bearer(&director)),
    )
    .await;
    let next = first.json()["next"]
        .as_str()
        .expect("a next page")
        .to_owned();
    assert_eq!(first.header("link"), format!("<{next}>; rel=\"next\""));
    let second = listed(&app, &director, &next).await;
    let walked: Vec<Value> = [&first.json(), &second]
        .iter()
        .flat_map(|page| page["deliveries"].as_array().cloned().unwrap_or_default())
        .map(|d| d["delivery_id"].clone())
        .collect();
    let all: Vec<Value> = deliveries
        .iter()
        .map(|d| d["delivery_id"].clone())
        .collect();
    assert_eq!(walked, all, "a walk of pages misses none and repeats none");
    let unknown = call(
        &app,
        get(&format!("{deliveries_uri}?after=not-a-delivery")).insert_header(bearer(&director)),
    )
    .await;
    crate::kit::assert_problem(&unknown, StatusCode::BAD_REQUEST, "invalid-cursor");
    for delivery in deliveries {
        assert_eq!(delivery["last_error"], "address not allowed", "{delivery}");
        assert_eq!(delivery["last_status"], Value::Null, "{delivery}");
    }
    assert!(
        received.lock().expect("lock").is_empty(),
        "nothing reached it"
    );
    let metrics = String::from_utf8_lossy(&call(&app, get("/metrics")).await.body).into_owned();
    assert!(
        !metrics.contains("warlog_webhook_attempts_total{outcome=\"not_allowed\"} 0"),
        "{metrics}"
    );

    // The same sender allowed the name again delivers: the guard was what stopped it.
    let settings = SenderSettings {
        policy: allowing(&["localhost"]),
        ..quick_settings()
    };
    deliver_until(&db, &settings, &received, "the deliveries", |r| {
        r.len() == 2
    })
    .await;
    receiving.stop(true).await;
}

#[actix_web::test]
async fn rows_from_before_the_guard_reach_no_internal_address_and_their_clear_secrets_still_sign() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let app = app_with!(&db, &telemetry, WebhookPolicy::default());
    let director = token(&db, "dora", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let received: Received = Arc::default();
    let (port, receiving) = receiver(0, received.clone());
    // Rows as the service kept them before: any spelling, credentials, secrets in clear.
    let spellings = [
        format!("http://127.0.0.1:{port}/hook"),
        format!("http://2130706433:{port}/hook"),
        format!("http://0x7f.1:{port}/hook"),
        format!("http://127.1:{port}/hook"),
        format!("http://[::ffff:127.0.0.1]:{port}/hook"),
        format!("http://0.0.0.0:{port}/hook"),
        format!("http://localhost:{port}/hook"),
        format!("http://user:pass@127.0.0.1:{port}/hook"),
    ];
    {
        let client = db.pool.get().await.expect("connection");
        for (n, url) in spellings.iter().enumerate() {
            client
                .execute(
                    "INSERT INTO webhook_subscriptions (subscription_id, url, kinds, secret, owner) \
                     VALUES ($1, $2, ARRAY['game.ended'], $3, 'dora')",
                    &[&format!("legacy{n}"), url, &SECRET],
                )
                .await
                .expect("a legacy row");
        }
    }
    let mine = listed(&app, &director, "/v1/webhooks").await;
    let text = mine.to_string();
    assert!(!text.contains("pass@") && !text.contains(SECRET), "{text}");
    end_a_game(&app, &db, &gm).await;
    enqueued(&db, 8).await;
    passes(
        &db,
        &SenderSettings {
            policy: WebhookPolicy::default(),
            ..quick_settings()
        },
        3,
    )
    .await;
    assert!(
        received.lock().expect("lock").is_empty(),
        "nothing reached it"
    );
    for (n, url) in spellings.iter().enumerate() {
        let deliveries = listed(
            &app,
            &director,
            &format!("/v1/webhooks/legacy{n}/deliveries"),
        )
        .await;
        assert_eq!(
            deliveries["deliveries"][0]["last_error"], "address not allowed",
            "{url}: {deliveries}"
        );
    }

    // Allow-listed (127.0.0.1 only: not 0.0.0.0, not localhost), a clear secret still
    // signs; resealed at start, it signs the same.
    let settings = quick_settings();
    deliver_until(&db, &settings, &received, "the allowed legacy rows", |r| {
        r.len() >= 5
    })
    .await;
    for (_, timestamp, signed, body) in received.lock().expect("lock").iter() {
        let timestamp: i64 = timestamp.parse().expect("a timestamp");
        assert_eq!(*signed, signature(SECRET, timestamp, body));
    }
    let keys = SecretKeys::from_hex(&"5a".repeat(32)).expect("a key");
    let done = reseal_secrets(&db.pool, &keys).await.expect("resealed");
    assert_eq!(done.resealed, spellings.len());
    let stored: Vec<String> = db
        .pool
        .get()
        .await
        .expect("connection")
        .query("SELECT secret FROM webhook_subscriptions", &[])
        .await
        .expect("secrets")
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(
        stored
            .iter()
            .all(|s| s.starts_with(&keys.sealed_prefix()) && !s.contains(SECRET)),
        "{stored:?}"
    );
    received.lock().expect("lock").clear();
    end_a_game(&app, &db, &gm).await;
    enqueued(&db, 16).await;
    let sealed = SenderSettings {
        policy: WebhookPolicy {
            keys,
            ..allowing(&["127.0.0.1/32"])
        },
        ..quick_settings()
    };
    deliver_until(
        &db,
        &sealed,
        &received,
        "deliveries signed after resealing",
        |r| r.len() >= 5,
    )
    .await;
    for (_, timestamp, signed, body) in received.lock().expect("lock").iter() {
        let timestamp: i64 = timestamp.parse().expect("a timestamp");
        assert_eq!(*signed, signature(SECRET, timestamp, body));
    }
    receiving.stop(true).await;
}

/// A receiver that keeps each request waiting until `release` turns true.
fn hanging(
    received: Received,
    release: tokio::sync::watch::Receiver<bool>,
) -> (u16, actix_web::dev::ServerHandle) {
    let server = HttpServer::new(move || {
        let (received, release) = (received.clone(), release.clone());
        actix_web::App::new().default_service(web::to(move |req: HttpRequest| {
            let (received, mut release) = (received.clone(), release.clone());
            async move {
                let id = req
                    .headers()
                    .get("webhook-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                received.lock().expect("lock").push((
                    id,
                    String::new(),
                    String::new(),
                    String::new(),
                ));
                let _ = release.wait_for(|released| *released).await;
                HttpResponse::NoContent().finish()
            }
        }))
    })
    .disable_signals()
    .workers(1)
    .bind(("127.0.0.1", 0))
    .expect("a port");
    let port = server.addrs().first().expect("an address").port();
    let running = server.run();
    let handle = running.handle();
    actix_web::rt::spawn(running);
    (port, handle)
}

#[actix_web::test]
async fn a_hanging_receiver_does_not_delay_another_subscriptions_delivery_beyond_its_own_timeout() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let app = app_with!(&db, &telemetry, allowing(&["127.0.0.1/32"]));
    let dora = token(&db, "dora", Role::Director).await;
    let otto = token(&db, "otto", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let (release, released) = tokio::sync::watch::channel(false);
    let stuck: Received = Arc::default();
    let (stuck_port, stuck_server) = hanging(stuck.clone(), released);
    let received: Received = Arc::default();
    let (port, receiving) = receiver(0, received.clone());

    // Three subscriptions to a receiver that hangs; each has two deliveries per game.
    for _ in 0..3 {
        register(&app, &dora, &format!("http://127.0.0.1:{stuck_port}/hook")).await;
    }
    let timeout = Duration::from_secs(60);
    let settings = SenderSettings {
        timeout,
        poll: Duration::from_millis(20),
        ..quick_settings()
    };
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let sender = spawn_sender(
        db.pool.clone(),
        settings,
        telemetry.webhooks.clone(),
        stopped,
    )
    .expect("a sender");
    let outbox = Projector::new(
        db.pool.clone(),
        WebhookOutbox::default(),
        StoreMetrics::unregistered(),
    );
    end_a_game(&app, &db, &gm).await;
    eventually(
        "each hanging subscription's first delivery in flight",
        timeout / 4,
        || async {
            outbox.catch_up().await.expect("projected");
            (stuck.lock().expect("lock").len() == 3).then_some(())
        },
    )
    .await;

    // While they hang, another director's subscription gets both its deliveries.
    let theirs = register(&app, &otto, &format!("http://127.0.0.1:{port}/hook")).await;
    end_a_game(&app, &db, &gm).await;
    eventually(
        "the other subscription's deliveries",
        timeout / 2,
        || async {
            outbox.catch_up().await.expect("projected");
            (received.lock().expect("lock").len() == 2).then_some(())
        },
    )
    .await;
    assert!(!*release.borrow(), "the hang lasts (no timeout has passed)");
    // One delivery in flight per subscription: each hanging one holds its next deliveries.
    let in_flight = stuck.lock().expect("lock").clone();
    assert_eq!(in_flight.len(), 3, "{in_flight:?}");
    let mut subscriptions: Vec<&str> = in_flight
        .iter()
        .map(|(id, ..)| id.split('.').next().unwrap_or_default())
        .collect();
    subscriptions.sort();
    subscriptions.dedup();
    assert_eq!(subscriptions.len(), 3, "{in_flight:?}");
    let theirs_uri = format!("/v1/webhooks/{theirs}/deliveries");
    eventually(
        "the other subscription's deliveries recorded",
        timeout / 4,
        || async {
            let view = listed(&app, &otto, &theirs_uri).await;
            view["deliveries"]
                .as_array()
                .expect("deliveries")
                .iter()
                .all(|d| d["status"] == "delivered")
                .then_some(())
        },
    )
    .await;

    // Released, the hanging receiver gets the rest, one at a time per subscription.
    release.send(true).expect("released");
    eventually("the hanging subscriptions' deliveries", timeout, || async {
        outbox.catch_up().await.expect("projected");
        (stuck.lock().expect("lock").len() == 12).then_some(())
    })
    .await;
    stop.send(true).expect("stopped");
    actix_web::rt::task::spawn_blocking(move || sender.join())
        .await
        .expect("joined")
        .expect("the sender ended");
    stuck_server.stop(true).await;
    receiving.stop(true).await;
}

#[actix_web::test]
async fn a_subscription_failing_in_a_row_is_paused_until_its_owner_resumes_it() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let app = app_with!(&db, &telemetry, allowing(&["127.0.0.1/32"]));
    let dora = token(&db, "dora", Role::Director).await;
    let otto = token(&db, "otto", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let port = closed_port();
    let subscription = register(&app, &dora, &format!("http://127.0.0.1:{port}/hook")).await;
    end_a_game(&app, &db, &gm).await;
    end_a_game(&app, &db, &gm).await;
    enqueued(&db, 4).await;
    let settings = SenderSettings {
        pause_after: 3,
        ..quick_settings()
    };
    let view = eventually(
        "the subscription paused",
        Duration::from_secs(30),
        || async {
            passes(&db, &settings, 1).await;
            let mine = listed(&app, &dora, "/v1/webhooks").await;
            let view = mine["subscriptions"][0].clone();
            (view["paused"] == true).then_some(view)
        },
    )
    .await;
    assert_eq!(view["consecutive_failures"], 3, "{view}");
    assert!(view["paused_at"].is_string(), "{view}");
    assert_eq!(view["pending"], 4, "{view}");
    // Paused: nothing more is tried.
    assert_eq!(passes(&db, &settings, 3).await, 0);
    let deliveries_uri = format!("/v1/webhooks/{subscription}/deliveries");
    let deliveries = listed(&app, &dora, &deliveries_uri).await;
    let attempts: i64 = deliveries["deliveries"]
        .as_array()
        .expect("deliveries")
        .iter()
        .map(|d| d["attempts"].as_i64().unwrap_or_default())
        .sum();
    assert_eq!(attempts, 3, "{deliveries}");
    assert!(
        deliveries.to_string().contains("\"refused\""),
        "{deliveries}"
    );

    // Only its owner (or an admin) resumes it.
    let resume_uri = format!("/v1/webhooks/{subscription}/resume");
    assert_problem(
        &call(&app, post(&resume_uri, &otto, &json!({}))).await,
        StatusCode::NOT_FOUND,
        "webhook-not-found",
    );
    let received: Received = Arc::default();
    let (_, receiving) = receiver(port, received.clone());
    let resumed = call(&app, post(&resume_uri, &dora, &json!({}))).await;
    assert_eq!(resumed.status, StatusCode::OK, "{:?}", resumed.json());
    assert_eq!(resumed.json()["paused"], false);
    assert_eq!(resumed.json()["consecutive_failures"], 0);
    deliver_until(&db, &settings, &received, "the waiting deliveries", |r| {
        r.len() == 4
    })
    .await;
    let mine = listed(&app, &dora, "/v1/webhooks").await;
    assert_eq!(mine["subscriptions"][0]["delivered"], 4, "{mine}");
    assert_eq!(mine["subscriptions"][0]["paused"], false, "{mine}");
    receiving.stop(true).await;
}

#[actix_web::test]
async fn deliveries_are_dead_lettered_after_their_maximum_age_or_their_last_attempt() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let app = app_with!(&db, &telemetry, allowing(&["127.0.0.1/32"]));
    let dora = token(&db, "dora", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let received: Received = Arc::default();
    let (port, receiving) = receiver(0, received.clone());
    let subscription = register(&app, &dora, &format!("http://127.0.0.1:{port}/hook")).await;
    let deliveries_uri = format!("/v1/webhooks/{subscription}/deliveries");

    // Older than the maximum age (here: any age): given up on, never sent, though the
    // receiver is up.
    end_a_game(&app, &db, &gm).await;
    enqueued(&db, 2).await;
    let expiring = SenderSettings {
        max_age: Duration::ZERO,
        ..quick_settings()
    };
    assert_eq!(passes(&db, &expiring, 2).await, 0);
    let deliveries = listed(&app, &dora, &deliveries_uri).await;
    for delivery in deliveries["deliveries"].as_array().expect("deliveries") {
        assert_eq!(delivery["status"], "dead", "{delivery}");
        assert_eq!(delivery["last_error"], "expired", "{delivery}");
        assert_eq!(delivery["attempts"], 0, "{delivery}");
        assert_eq!(delivery["next_attempt_at"], Value::Null, "{delivery}");
    }
    assert!(received.lock().expect("lock").is_empty());

    // Tried as often as allowed: given up on after the last attempt, and not tried again.
    receiving.stop(true).await;
    end_a_game(&app, &db, &gm).await;
    enqueued(&db, 4).await;
    let settings = SenderSettings {
        max_attempts: 2,
        ..quick_settings()
    };
    eventually(
        "the deliveries given up on",
        Duration::from_secs(30),
        || async {
            passes(&db, &settings, 1).await;
            let mine = listed(&app, &dora, "/v1/webhooks").await;
            (mine["subscriptions"][0]["dead"] == 4).then_some(())
        },
    )
    .await;
    assert_eq!(passes(&db, &settings, 3).await, 0, "nothing is tried again");
    let deliveries = listed(&app, &dora, &deliveries_uri).await;
    let tried: Vec<&Value> = deliveries["deliveries"]
        .as_array()
        .expect("deliveries")
        .iter()
        .filter(|d| d["attempts"] != 0)
        .collect();
    assert_eq!(tried.len(), 2, "{deliveries}");
    for delivery in tried {
        assert_eq!(delivery["status"], "dead", "{delivery}");
        assert_eq!(delivery["attempts"], 2, "{delivery}");
        assert_eq!(delivery["last_error"], "refused", "{delivery}");
    }
    let mine = listed(&app, &dora, "/v1/webhooks").await;
    assert_eq!(mine["subscriptions"][0]["pending"], 0, "{mine}");
}

#[actix_web::test]
async fn an_owner_may_have_only_as_many_subscriptions_as_the_cap() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let policy = WebhookPolicy {
        max_per_owner: 2,
        ..allowing(&["127.0.0.1/32"])
    };
    let app = app_with!(&db, &telemetry, policy);
    let dora = token(&db, "dora", Role::Director).await;
    let otto = token(&db, "otto", Role::Director).await;
    let url = "http://127.0.0.1:9/hook";
    let first = register(&app, &dora, url).await;
    register(&app, &dora, url).await;
    let body = json!({"url": url, "kinds": ["game.ended"], "secret": SECRET});
    let refused = call(&app, post("/v1/webhooks", &dora, &body)).await;
    assert_problem(&refused, StatusCode::CONFLICT, "webhook-limit");
    assert!(
        refused.json()["detail"]
            .as_str()
            .unwrap_or_default()
            .contains('2'),
        "{:?}",
        refused.json()
    );

    // A burst at once passes the cap no more than one at a time does.
    let burst = futures_util::future::join_all(
        (0..6).map(|_| call(&app, post("/v1/webhooks", &otto, &body))),
    )
    .await;
    let created = burst
        .iter()
        .filter(|r| r.status == StatusCode::CREATED)
        .count();
    assert_eq!(created, 2);
    assert!(burst
        .iter()
        .filter(|r| r.status != StatusCode::CREATED)
        .all(|r| r.code() == "webhook-limit"));

    // A deleted one makes room.
    let deleted = call(
        &app,
        actix_web::test::TestRequest::delete()
            .uri(&format!("/v1/webhooks/{first}"))
            .insert_header(bearer(&dora)),
    )
    .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    register(&app, &dora, url).await;
}

#[actix_web::test]
async fn deleting_a_subscription_removes_its_undelivered_deliveries() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let app = app_with!(&db, &telemetry, allowing(&["127.0.0.1/32"]));
    let dora = token(&db, "dora", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let received: Received = Arc::default();
    let (port, receiving) = receiver(0, received.clone());
    let subscription = register(&app, &dora, &format!("http://127.0.0.1:{port}/hook")).await;
    let settings = quick_settings();
    end_a_game(&app, &db, &gm).await;
    deliver_until(&db, &settings, &received, "the first deliveries", |r| {
        r.len() == 2
    })
    .await;
    receiving.stop(true).await;
    end_a_game(&app, &db, &gm).await;
    enqueued(&db, 4).await;
    passes(&db, &settings, 2).await;
    let rows = |delivered: bool| {
        let (pool, subscription) = (db.pool.clone(), subscription.clone());
        async move {
            let row = pool
                .get()
                .await
                .expect("connection")
                .query_one(
                    "SELECT count(*) FROM webhook_deliveries \
                      WHERE subscription_id = $1 AND (delivered_at IS NOT NULL) = $2",
                    &[&subscription, &delivered],
                )
                .await
                .expect("a count");
            row.get::<_, i64>(0)
        }
    };
    assert_eq!(rows(false).await, 2, "two waiting");
    let deleted = call(
        &app,
        actix_web::test::TestRequest::delete()
            .uri(&format!("/v1/webhooks/{subscription}"))
            .insert_header(bearer(&dora)),
    )
    .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert_eq!(rows(false).await, 0, "nothing left to send");
    assert_eq!(rows(true).await, 2, "what was delivered stays as history");
}

#[actix_web::test]
async fn listings_show_neither_secrets_nor_what_an_internal_port_answered() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let app = app_with!(&db, &telemetry, allowing(&["127.0.0.1/32"]));
    let dora = token(&db, "dora", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let received: Received = Arc::default();
    let (port, receiving) = answering(
        0,
        401,
        "internal admin console: database password hunter2",
        received.clone(),
    );
    let subscription = register(&app, &dora, &format!("http://127.0.0.1:{port}/hook")).await;
    end_a_game(&app, &db, &gm).await;
    enqueued(&db, 2).await;
    passes(&db, &quick_settings(), 2).await;
    let deliveries = listed(
        &app,
        &dora,
        &format!("/v1/webhooks/{subscription}/deliveries"),
    )
    .await;
    let first = &deliveries["deliveries"][0];
    assert_eq!(first["last_error"], "status 401", "{deliveries}");
    assert_eq!(first["last_status"], 401, "{deliveries}");
    let mine = listed(&app, &dora, "/v1/webhooks").await;
    for text in [deliveries.to_string(), mine.to_string()] {
        for leak in ["hunter2", "console", "realm", "Basic", SECRET] {
            assert!(!text.contains(leak), "{leak} in {text}");
        }
    }
    assert!(mine["subscriptions"][0].get("secret").is_none());
    // At rest too: the stored secret is sealed.
    let stored: String = db
        .pool
        .get()
        .await
        .expect("connection")
        .query_one(
            "SELECT secret FROM webhook_subscriptions WHERE subscription_id = $1",
            &[&subscription],
        )
        .await
        .expect("a row")
        .get(0);
    assert!(
        stored.starts_with("sealed:v1:") && !stored.contains(SECRET),
        "{stored}"
    );
    receiving.stop(true).await;
}
