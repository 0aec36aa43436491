//! The stream endpoints over HTTP: problems with codes for what is wrong, pages as JSON and
//! NDJSON, ETags, the feed's links, readiness and the Prometheus metrics.

use std::collections::HashMap;
use std::time::Duration;

use actix_web::http::{header, StatusCode};
use actix_web::test::{self, TestRequest};
use serde_json::Value;
use warlog_store::{append, ExpectedVersion};
use warlog_tests::{eventually, TestDb};

use crate::kit::app;
use crate::{order, stream};

async fn seed(db: &TestDb, name: &str, n: u64) {
    let client = db.pool.get().await.expect("connection");
    let events: Vec<_> = (0..n).map(order).collect();
    append(&client, &stream(name), ExpectedVersion::Any, &events)
        .await
        .expect("appended");
}

fn assert_problem<B>(res: &actix_web::dev::ServiceResponse<B>, status: StatusCode) {
    assert_eq!(res.status(), status);
    assert_eq!(
        res.headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok()),
        Some("application/problem+json; charset=utf-8")
    );
}

async fn problem_of<B: actix_web::body::MessageBody>(
    res: actix_web::dev::ServiceResponse<B>,
) -> Value {
    let body: Value = test::read_body_json(res).await;
    assert!(body["code"].is_string(), "{body}");
    assert!(body["type"]
        .as_str()
        .is_some_and(|t| t.starts_with("urn:warlog:problem:")));
    body
}

#[actix_web::test]
async fn an_unknown_stream_is_a_404_problem_with_a_code() {
    let db = TestDb::new().await;
    let app = app!(db);
    for uri in ["/v1/streams/game-404/events", "/v1/streams/game-404/head"] {
        let res = test::call_service(&app, TestRequest::get().uri(uri).to_request()).await;
        assert_problem(&res, StatusCode::NOT_FOUND);
        let body = problem_of(res).await;
        assert_eq!(body["code"], "stream-not-found");
        assert_eq!(body["status"], 404);
        assert!(body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("game-404")));
    }
}

#[actix_web::test]
async fn a_malformed_cursor_is_a_400_problem_with_a_code() {
    let db = TestDb::new().await;
    let app = app!(db);
    for cursor in ["not-a-cursor", "Zm9vOmJhcg", "%E2%98%83"] {
        let uri = format!("/v1/events?after={cursor}");
        let res = test::call_service(&app, TestRequest::get().uri(&uri).to_request()).await;
        assert_problem(&res, StatusCode::BAD_REQUEST);
        assert_eq!(problem_of(res).await["code"], "invalid-cursor", "{cursor}");
    }
}

#[actix_web::test]
async fn malformed_stream_ids_limits_and_routes_get_problems_naming_what_is_wrong() {
    let db = TestDb::new().await;
    let app = app!(db);
    let cases = [
        (
            "/v1/streams/games-1/head",
            StatusCode::BAD_REQUEST,
            "invalid-stream-id",
            "games-1",
        ),
        (
            "/v1/streams/game-1/events?limit=0",
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "limit",
        ),
        (
            "/v1/events?limit=201",
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "limit",
        ),
        (
            "/v1/events?limit=lots",
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "limit",
        ),
        (
            "/v1/streams/game-1/events?from=-1",
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "from",
        ),
        (
            "/v1/streams?category=army",
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "category",
        ),
        (
            "/v1/nowhere",
            StatusCode::NOT_FOUND,
            "route-not-found",
            "/v1/nowhere",
        ),
    ];
    for (uri, status, code, named) in cases {
        let res = test::call_service(&app, TestRequest::get().uri(uri).to_request()).await;
        assert_problem(&res, status);
        let body = problem_of(res).await;
        assert_eq!(body["code"], code, "{uri}: {body}");
        assert!(
            body["detail"].as_str().is_some_and(|d| d.contains(named)),
            "{uri}: detail should name {named}: {body}"
        );
    }
}

#[actix_web::test]
async fn an_unacceptable_media_type_is_a_406_problem() {
    let db = TestDb::new().await;
    let app = app!(db);
    let req = TestRequest::get()
        .uri("/v1/events")
        .insert_header((header::ACCEPT, "text/csv"))
        .to_request();
    let res = test::call_service(&app, req).await;
    assert_problem(&res, StatusCode::NOT_ACCEPTABLE);
    assert_eq!(problem_of(res).await["code"], "not-acceptable");
}

#[actix_web::test]
async fn a_stream_reads_in_pages_as_json_and_as_ndjson() {
    let db = TestDb::new().await;
    seed(&db, "game-7", 5).await;
    let app = app!(db);

    let req = TestRequest::get()
        .uri("/v1/streams/game-7/events?limit=2")
        .to_request();
    let page: Value = test::call_and_read_body_json(&app, req).await;
    assert_eq!(page["version"], 5);
    assert_eq!(page["events"].as_array().map(Vec::len), Some(2));
    assert_eq!(page["events"][1]["stream_version"], 2);
    assert_eq!(page["next"], "/v1/streams/game-7/events?from=3&limit=2");

    let req = TestRequest::get()
        .uri("/v1/streams/game-7/events?from=3")
        .insert_header((header::ACCEPT, "application/x-ndjson"))
        .to_request();
    let res = test::call_service(&app, req).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        res.headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok()),
        Some("application/x-ndjson")
    );
    let body = test::read_body(res).await;
    let lines: Vec<Value> = std::str::from_utf8(&body)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON document per line"))
        .collect();
    let versions: Vec<u64> = lines
        .iter()
        .filter_map(|l| l["stream_version"].as_u64())
        .collect();
    assert_eq!(versions, vec![3, 4, 5]);
    assert_eq!(
        lines[0]["prev_hash"], page["events"][1]["hash"],
        "the chain links across pages"
    );
}

#[actix_web::test]
async fn a_matching_if_none_match_gets_304_and_a_new_event_changes_the_etag() {
    let db = TestDb::new().await;
    seed(&db, "game-etag", 1).await;
    let app = app!(db);
    let res = test::call_service(
        &app,
        TestRequest::get()
            .uri("/v1/streams/game-etag/head")
            .to_request(),
    )
    .await;
    let etag = res.headers().get(header::ETAG).expect("etag").clone();
    let again = TestRequest::get()
        .uri("/v1/streams/game-etag/head")
        .insert_header((header::IF_NONE_MATCH, etag.clone()))
        .to_request();
    assert_eq!(
        test::call_service(&app, again).await.status(),
        StatusCode::NOT_MODIFIED
    );
    seed(&db, "game-etag", 1).await;
    let after = TestRequest::get()
        .uri("/v1/streams/game-etag/head")
        .insert_header((header::IF_NONE_MATCH, etag))
        .to_request();
    let res = test::call_service(&app, after).await;
    assert_eq!(res.status(), StatusCode::OK);
    let head: Value = test::read_body_json(res).await;
    assert_eq!(head["version"], 2);
    assert_eq!(head["head_hash"].as_str().map(str::len), Some(64));
}

#[actix_web::test]
async fn the_global_feed_is_walked_by_its_next_links() {
    let db = TestDb::new().await;
    for (i, name) in ["game-1", "game-2", "league"].iter().enumerate() {
        seed(&db, name, i as u64 + 1).await;
    }
    let app = app!(db);
    let all = eventually(
        "six events in the feed",
        Duration::from_secs(60),
        || async {
            let mut uri = "/v1/events?limit=2".to_owned();
            let mut seen = Vec::new();
            loop {
                let page: Value =
                    test::call_and_read_body_json(&app, TestRequest::get().uri(&uri).to_request())
                        .await;
                let events = page["events"].as_array().cloned().unwrap_or_default();
                if events.is_empty() {
                    break;
                }
                seen.extend(events);
                uri = page["next"].as_str().expect("next link").to_owned();
            }
            (seen.len() == 6).then_some(seen)
        },
    )
    .await;
    let streams: Vec<&str> = all.iter().filter_map(|e| e["stream_id"].as_str()).collect();
    assert_eq!(
        streams,
        vec!["game-1", "game-2", "game-2", "league", "league", "league"]
    );
}

#[actix_web::test]
async fn readiness_reports_the_schema_version() {
    let db = TestDb::new().await;
    let app = app!(db);
    let body: Value =
        test::call_and_read_body_json(&app, TestRequest::get().uri("/readyz").to_request()).await;
    assert_eq!(body["status"], "ready");
    assert!(body["schema_version"].as_u64().is_some_and(|v| v >= 2));
}

/// Parses the Prometheus text format strictly enough to catch a malformed line:
/// `name{label="value",...} number` or `name number`, comments `# HELP` / `# TYPE`.
fn parse_prometheus(text: &str) -> HashMap<String, f64> {
    let mut samples = HashMap::new();
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix("# ") {
            assert!(
                comment.starts_with("HELP ") || comment.starts_with("TYPE "),
                "bad comment line {line:?}"
            );
            continue;
        }
        let (series, value) = line
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("bad line {line:?}"));
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("bad value in {line:?}"));
        let name_end = series.find('{').unwrap_or(series.len());
        let name = &series[..name_end];
        assert!(
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
            "bad metric name in {line:?}"
        );
        if name_end < series.len() {
            assert!(series.ends_with('}'), "unclosed labels in {line:?}");
            for pair in series[name_end + 1..series.len() - 1].split("\",") {
                let (label, quoted) = pair
                    .split_once("=\"")
                    .unwrap_or_else(|| panic!("bad label in {line:?}"));
                assert!(
                    label.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                    "{line:?}"
                );
                assert!(!quoted.contains('\n'), "{line:?}");
            }
        }
        samples.insert(series.to_owned(), value);
    }
    samples
}

#[actix_web::test]
async fn metrics_parse_as_prometheus_text_and_count_the_requests_made() {
    let db = TestDb::new().await;
    seed(&db, "game-m", 2).await;
    let app = app!(db);
    for _ in 0..3 {
        test::call_service(
            &app,
            TestRequest::get()
                .uri("/v1/streams/game-m/head")
                .to_request(),
        )
        .await;
    }
    test::call_service(
        &app,
        TestRequest::get()
            .uri("/v1/streams/game-none/head")
            .to_request(),
    )
    .await;
    test::call_service(&app, TestRequest::get().uri("/healthz").to_request()).await;

    let res = test::call_service(&app, TestRequest::get().uri("/metrics").to_request()).await;
    assert_eq!(res.status(), StatusCode::OK);
    let text = String::from_utf8(test::read_body(res).await.to_vec()).expect("utf-8");
    let samples = parse_prometheus(&text);
    let count = |route: &str, status: u16| {
        samples
            .get(&format!(
                "warlog_http_requests_total{{method=\"GET\",route=\"{route}\",status=\"{status}\"}}"
            ))
            .copied()
    };
    assert_eq!(count("/v1/streams/{stream}/head", 200), Some(3.0));
    assert_eq!(count("/v1/streams/{stream}/head", 404), Some(1.0));
    assert_eq!(count("/healthz", 200), Some(1.0));
    assert!(samples.contains_key(
        "warlog_http_request_duration_seconds_count{method=\"GET\",route=\"/v1/streams/{stream}/head\",status=\"200\"}"
    ));
    assert!(text.contains("# TYPE warlog_events_appended_total counter"));
    // Labelled series are there from the start, and so are the process and the build.
    assert_eq!(
        samples.get("warlog_appends_total{outcome=\"conflict\"}"),
        Some(&0.0)
    );
    assert!(
        samples.contains_key("process_resident_memory_bytes"),
        "{text}"
    );
    assert!(samples.contains_key("process_cpu_seconds_total"));
    assert!(samples
        .keys()
        .any(|k| k.starts_with("warlog_build_info{") && k.contains("version=")));
}
