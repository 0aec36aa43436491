//! For the association's website and its integrators (issue 17), against real PostgreSQL:
//! cross-origin reads with their preflights, HEAD and 405, authentication before the body,
//! the indexes of tournaments and players walked while they grow, and the feed saying when
//! a reader has caught up.

use std::collections::BTreeSet;
use std::time::Duration;

use actix_web::http::{header, Method, StatusCode};
use actix_web::test::TestRequest;
use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_api::{AppState, Telemetry};
use warlog_store::projector::Projector;
use warlog_store::tournaments::TournamentSummaries;
use warlog_store::StoreMetrics;
use warlog_tests::{eventually, TestDb};

use crate::kit::{assert_problem, call, get, post, token, TestApp};
use crate::league::project_league;
use crate::tournaments::{create_tournament, names, open_tournament, register, seat};

const SITE: &str = "https://club.example";

/// The app with the association's site allowed to read across origins.
fn state_for_site(db: &TestDb, telemetry: &Telemetry) -> AppState {
    let mut state = AppState::without_notifier(db.pool.clone(), telemetry);
    state.cors_origins = std::sync::Arc::new(vec![SITE.to_owned()]);
    state
}

macro_rules! site_app {
    ($db:expr) => {{
        let telemetry = Telemetry::new().expect("metrics");
        let state = state_for_site(&$db, &telemetry);
        actix_web::test::init_service(warlog_api::app(state, &telemetry)).await
    }};
}

fn header_of(reply: &crate::kit::Reply, name: header::HeaderName) -> String {
    reply.header(name.as_str())
}

/// A tournament's settings; deadlines far ahead, as this app's clock is the system's.
fn settings(name: &str) -> Value {
    json!({
        "name": name,
        "rounds": 2,
        "deadlines": ["2099-01-01T00:00:00Z", "2099-02-01T00:00:00Z"],
        "short_tables": "byes",
    })
}

/// Runs the tournament index's projector until `ready` holds of the index's first page.
async fn project_tournaments<B: actix_web::body::MessageBody>(
    db: &TestDb,
    app: &impl TestApp<B>,
    ready: impl Fn(&Value) -> bool,
) {
    let projector = Projector::new(
        db.pool.clone(),
        TournamentSummaries,
        StoreMetrics::unregistered(),
    );
    eventually(
        "the tournament index to catch up",
        Duration::from_secs(30),
        || async {
            projector.catch_up().await.expect("projected");
            let page = call(app, get("/v1/tournaments?limit=200")).await.json();
            ready(&page).then_some(())
        },
    )
    .await;
}

#[actix_web::test]
async fn a_page_on_the_associations_site_may_read_a_player_the_standings_and_the_feed() {
    let db = TestDb::new().await;
    let app = site_app!(db);
    let director = token(&db, "dora", Role::Director).await;
    let players = names("p", 5);
    let (tournament, _) = open_tournament(&app, &director, &players, settings("Open Cup")).await;
    project_league(&db).await;
    let reads = [
        "/v1/players/p01".to_owned(),
        format!("/v1/tournaments/{tournament}/standings"),
        "/v1/events?limit=5".to_owned(),
    ];
    for path in &reads {
        // The browser asks first, because the script sends If-None-Match.
        let preflight = call(
            &app,
            TestRequest::default()
                .method(Method::OPTIONS)
                .uri(path)
                .insert_header((header::ORIGIN, SITE))
                .insert_header((header::ACCESS_CONTROL_REQUEST_METHOD, "GET"))
                .insert_header((header::ACCESS_CONTROL_REQUEST_HEADERS, "if-none-match")),
        )
        .await;
        assert_eq!(preflight.status, StatusCode::NO_CONTENT, "{path}");
        assert_eq!(
            header_of(&preflight, header::ACCESS_CONTROL_ALLOW_ORIGIN),
            SITE
        );
        assert!(header_of(&preflight, header::ACCESS_CONTROL_ALLOW_METHODS).contains("GET"));
        assert!(header_of(&preflight, header::ACCESS_CONTROL_ALLOW_HEADERS)
            .to_lowercase()
            .contains("if-none-match"));

        let read = call(&app, get(path).insert_header((header::ORIGIN, SITE))).await;
        assert_eq!(read.status, StatusCode::OK, "{path}: {:?}", read.json());
        assert_eq!(header_of(&read, header::ACCESS_CONTROL_ALLOW_ORIGIN), SITE);
        let exposed = header_of(&read, header::ACCESS_CONTROL_EXPOSE_HEADERS);
        for name in ["ETag", "Link", "Location"] {
            assert!(exposed.contains(name), "{path} exposes {name}: {exposed}");
        }
        assert!(header_of(&read, header::VARY).contains("Origin"));

        // Another site's page gets no permission; the browser keeps the answer from it.
        let stranger = call(
            &app,
            get(path).insert_header((header::ORIGIN, "https://elsewhere.example")),
        )
        .await;
        assert!(!stranger
            .headers
            .contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN));
    }
    // Writes are not opened to other sites: a preflight for a POST gets no permission.
    let write = call(
        &app,
        TestRequest::default()
            .method(Method::OPTIONS)
            .uri("/v1/games")
            .insert_header((header::ORIGIN, SITE))
            .insert_header((header::ACCESS_CONTROL_REQUEST_METHOD, "POST")),
    )
    .await;
    assert!(!write
        .headers
        .contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN));
}

#[actix_web::test]
async fn head_answers_as_get_does_without_the_body_and_a_wrong_method_is_told_what_is_allowed() {
    use std::io::{Read as _, Write as _};
    let db = TestDb::new().await;
    let app = site_app!(db);
    let director = token(&db, "dora", Role::Director).await;
    register(&app, &director, &names("p", 1)).await;
    project_league(&db).await;
    for path in [
        "/v1/players/p01",
        "/v1/events",
        "/healthz",
        "/",
        "/v1/players",
    ] {
        let got = call(&app, get(path)).await;
        let head = call(&app, TestRequest::default().method(Method::HEAD).uri(path)).await;
        assert_eq!(head.status, got.status, "{path}");
        assert_eq!(
            head.headers.get(header::ETAG),
            got.headers.get(header::ETAG),
            "{path}"
        );
        assert_eq!(
            head.headers.get(header::CONTENT_TYPE),
            got.headers.get(header::CONTENT_TYPE),
            "{path}"
        );
    }
    for (method, path, allowed) in [
        (Method::DELETE, "/v1/players/p01", "GET, HEAD"),
        (Method::PUT, "/v1/games", "GET, HEAD, POST"),
        (Method::PATCH, "/v1/tournaments", "GET, HEAD, POST"),
        (Method::POST, "/v1/events", "GET, HEAD"),
    ] {
        let reply = call(&app, TestRequest::default().method(method).uri(path)).await;
        assert_problem(&reply, StatusCode::METHOD_NOT_ALLOWED, "method-not-allowed");
        assert_eq!(header_of(&reply, header::ALLOW), allowed, "{path}");
    }

    // Over a real connection, HEAD carries GET's length and no body.
    let telemetry = Telemetry::new().expect("metrics");
    let (addr, server) = crate::pages::listen(state_for_site(&db, &telemetry), &telemetry);
    let length_of_get = call(&app, get("/v1/players/p01")).await.body.len();
    // The server runs on this test's runtime: the blocking socket gets a thread of its own.
    let answer = actix_web::rt::task::spawn_blocking(move || {
        let mut connection = std::net::TcpStream::connect(addr).expect("connected");
        write!(
            connection,
            "HEAD /v1/players/p01 HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
        )
        .expect("sent");
        let mut answer = String::new();
        connection.read_to_string(&mut answer).expect("read");
        answer
    })
    .await
    .expect("the request ran");
    server.stop(true).await;
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_lowercase()
            .contains(&format!("content-length: {length_of_get}")),
        "{head}"
    );
    assert_eq!(body, "", "HEAD has no body");
}

#[actix_web::test]
async fn a_write_without_a_valid_token_is_refused_before_its_body_is_read() {
    let db = TestDb::new().await;
    let app = site_app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let malformed = || {
        TestRequest::post()
            .uri("/v1/games")
            .insert_header((header::CONTENT_TYPE, "application/json"))
            .set_payload("{not json")
    };
    // No token, a wrong one, a body declared too large, a body not declared JSON: all 401.
    let refused = [
        malformed(),
        malformed().insert_header((header::AUTHORIZATION, "Bearer wl_not-a-token")),
        TestRequest::post()
            .uri("/v1/games")
            .insert_header((header::CONTENT_TYPE, "application/json"))
            .insert_header((header::CONTENT_LENGTH, "10000000")),
        TestRequest::post()
            .uri("/v1/tournaments")
            .insert_header((header::CONTENT_TYPE, "text/plain"))
            .set_payload("{}"),
    ];
    for request in refused {
        let reply = call(&app, request).await;
        assert_problem(&reply, StatusCode::UNAUTHORIZED, "unauthorized");
    }
    // With a valid token the body is read, and its fault named.
    let reply = call(
        &app,
        malformed().insert_header((header::AUTHORIZATION, format!("Bearer {gm}"))),
    )
    .await;
    assert_problem(&reply, StatusCode::BAD_REQUEST, "malformed-request");
    // Public computations need no token at all.
    let odds = call(
        &app,
        TestRequest::post()
            .uri("/v1/odds")
            .set_json(json!({"attacker": "1 inf", "defender": "1 inf"})),
    )
    .await;
    assert_eq!(odds.status, StatusCode::OK, "{:?}", odds.json());
}

/// Every id of a walk through an index page by page, `between` run after each page.
async fn walk<B: actix_web::body::MessageBody, F, Fut>(
    app: &impl TestApp<B>,
    first: &str,
    items: &str,
    id: &str,
    mut between: F,
) -> Vec<String>
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut seen = Vec::new();
    let mut next = Some(first.to_owned());
    let mut pages = 0;
    while let Some(uri) = next {
        let page = call(app, get(&uri)).await;
        assert_eq!(page.status, StatusCode::OK, "{uri}: {:?}", page.json());
        let page = page.json();
        seen.extend(
            page[items]
                .as_array()
                .expect("items")
                .iter()
                .map(|item| item[id].as_str().expect("an id").to_owned()),
        );
        next = page["next"].as_str().map(str::to_owned);
        pages += 1;
        assert!(pages < 100, "the walk ends");
        between(pages).await;
    }
    seen
}

#[actix_web::test]
async fn the_tournament_index_filters_and_walks_without_a_duplicate_or_a_gap_while_tournaments_are_created(
) {
    let db = TestDb::new().await;
    let app = site_app!(db);
    let director = token(&db, "dora", Role::Director).await;
    let players = names("p", 5);
    let (running, _) = open_tournament(&app, &director, &players, settings("Running Cup")).await;
    seat(&app, &director, &running).await;
    let mut before = vec![running.clone()];
    for n in 0..6 {
        before.push(create_tournament(&app, &director, settings(&format!("Cup {n}"))).await);
    }
    project_tournaments(&db, &app, |page| {
        page["tournaments"].as_array().map(Vec::len) == Some(7)
    })
    .await;

    let app = &app;
    let director = &director;
    let pool = &db.pool;
    let created_meanwhile = std::cell::RefCell::new(Vec::new());
    let seen = walk(
        app,
        "/v1/tournaments?limit=2",
        "tournaments",
        "tournament_id",
        |_| {
            let created_meanwhile = &created_meanwhile;
            async move {
                let id = create_tournament(app, director, settings("Late Cup")).await;
                created_meanwhile.borrow_mut().push(id);
                Projector::new(
                    pool.clone(),
                    TournamentSummaries,
                    StoreMetrics::unregistered(),
                )
                .catch_up()
                .await
                .expect("projected");
            }
        },
    )
    .await;
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no tournament twice: {seen:?}");
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(sorted, seen, "in id order");
    for id in &before {
        assert!(seen.contains(id), "no gap: {id} is in the walk");
    }

    // Filters: state, ruleset, season.
    let ids_of = |page: Value| -> Vec<String> {
        page["tournaments"]
            .as_array()
            .expect("tournaments")
            .iter()
            .map(|t| t["tournament_id"].as_str().expect("id").to_owned())
            .collect()
    };
    let running_only = call(app, get("/v1/tournaments?state=running")).await.json();
    assert_eq!(ids_of(running_only.clone()), vec![running.clone()]);
    assert_eq!(running_only["tournaments"][0]["rounds_seated"], 1);
    assert_eq!(running_only["tournaments"][0]["name"], "Running Cup");
    let open = ids_of(
        call(app, get("/v1/tournaments?state=open&limit=200"))
            .await
            .json(),
    );
    assert!(!open.contains(&running) && open.len() >= 6, "{open:?}");
    let year = time::OffsetDateTime::now_utc().year();
    let this_season = ids_of(
        call(
            app,
            get(&format!("/v1/tournaments?season={year}&limit=200")),
        )
        .await
        .json(),
    );
    assert!(this_season.len() >= 7);
    assert!(ids_of(call(app, get("/v1/tournaments?season=1999")).await.json()).is_empty());
    assert!(ids_of(
        call(app, get("/v1/tournaments?ruleset=classic&limit=200"))
            .await
            .json()
    )
    .is_empty());
    assert_eq!(
        ids_of(
            call(app, get("/v1/tournaments?ruleset=cutthroat&limit=200"))
                .await
                .json()
        )
        .len(),
        this_season.len()
    );
    let bad = call(app, get("/v1/tournaments?state=paused")).await;
    assert_problem(&bad, StatusCode::BAD_REQUEST, "malformed-request");
}

#[actix_web::test]
async fn the_player_index_finds_players_by_the_start_of_a_handle_or_name_and_walks_without_a_gap() {
    let db = TestDb::new().await;
    let app = site_app!(db);
    let admin = token(&db, "root", Role::Admin).await;
    for (handle, name) in [
        ("ann", "Ann Smith"),
        ("anders", "Anders Berg"),
        ("bob", "Robert Annan"),
        ("cat", "Cat Ng"),
        ("dan_1", "Dan One"),
        ("dan-2", "Dan Two"),
        ("eve", "Eve Anne"),
    ] {
        let reply = call(
            &app,
            post(
                "/v1/players",
                &admin,
                &json!({"handle": handle, "display_name": name}),
            ),
        )
        .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.json());
    }
    project_league(&db).await;
    let handles = |page: Value| -> Vec<String> {
        page["players"]
            .as_array()
            .expect("players")
            .iter()
            .map(|p| p["handle"].as_str().expect("handle").to_owned())
            .collect()
    };
    // By handle or display name, whatever the case; LIKE's `_` matches only itself.
    assert_eq!(
        handles(call(&app, get("/v1/players?q=AN")).await.json()),
        ["anders", "ann"]
    );
    assert_eq!(
        handles(call(&app, get("/v1/players?q=rob")).await.json()),
        ["bob"]
    );
    assert_eq!(
        handles(call(&app, get("/v1/players?q=dan_")).await.json()),
        ["dan_1"]
    );
    let one = call(&app, get("/v1/players?q=ann")).await.json();
    assert_eq!(one["players"][0]["href"], "/v1/players/ann");

    // A walk two at a time while others register: each player once, none skipped.
    let app = &app;
    let admin = &admin;
    let db = &db;
    let seen = walk(
        app,
        "/v1/players?limit=2",
        "players",
        "handle",
        |n| async move {
            let reply = call(
                app,
                post(
                    "/v1/players",
                    admin,
                    &json!({"handle": format!("late{n}"), "display_name": "Late"}),
                ),
            )
            .await;
            assert_eq!(reply.status, StatusCode::CREATED);
            project_league(db).await;
        },
    )
    .await;
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "{seen:?}");
    for handle in ["ann", "anders", "bob", "cat", "dan_1", "dan-2", "eve"] {
        assert!(seen.iter().any(|h| h == handle), "{handle} in {seen:?}");
    }
    let long = "x".repeat(101);
    let refused = call(app, get(&format!("/v1/players?q={long}"))).await;
    assert_problem(&refused, StatusCode::BAD_REQUEST, "malformed-request");
}

#[actix_web::test]
async fn the_feed_says_when_a_reader_has_caught_up() {
    let db = TestDb::new().await;
    let app = site_app!(db);
    let director = token(&db, "dora", Role::Director).await;
    register(&app, &director, &names("p", 3)).await;
    // "Follow next until caught up" ends; once no other transaction in the cluster is in
    // flight (other tests run beside this one), it has read every event.
    eventually(
        "a follow loop that reads all three events",
        Duration::from_secs(30),
        || async {
            let mut next = "/v1/events?limit=2".to_owned();
            let mut events = 0;
            for _ in 0..10 {
                let page = call(&app, get(&next)).await;
                let header = header_of(&page, header::HeaderName::from_static("feed-caught-up"));
                let page = page.json();
                events += page["events"].as_array().expect("events").len();
                assert_eq!(page["caught_up"].as_bool(), Some(header == "true"));
                if page["caught_up"] == true {
                    return (events == 3).then_some(());
                }
                next = page["next"].as_str().expect("next").to_owned();
            }
            panic!("the follow loop never ended");
        },
    )
    .await;
}
