//! The OpenAPI document: the committed file is the one the code generates, and it declares
//! what every operation needs and answers (a token, ETags, next-page links, refusals' headers).

use warlog_tests::workspace_root;

/// The committed OpenAPI document is the one the code generates. To accept a change, run
/// `WARLOG_UPDATE_OPENAPI=1 cargo test -p warlog-tests openapi` and commit the file.
#[test]
fn the_committed_openapi_document_matches_the_code() {
    let path = workspace_root().join("openapi/warlog.openapi.json");
    let generated = warlog_api::openapi_pretty_json();
    if std::env::var_os("WARLOG_UPDATE_OPENAPI").is_some() {
        std::fs::write(&path, &generated).expect("write openapi file");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is out of date: run `WARLOG_UPDATE_OPENAPI=1 cargo test -p warlog-tests openapi` and commit it",
        path.display()
    );
}

#[test]
fn every_route_of_the_api_is_in_the_openapi_document() {
    let doc: serde_json::Value =
        serde_json::from_str(&warlog_api::openapi_pretty_json()).expect("valid JSON");
    for path in [
        "/healthz",
        "/readyz",
        "/metrics",
        "/openapi.json",
        "/v1/streams",
        "/v1/streams/{stream}/events",
        "/v1/streams/{stream}/head",
        "/v1/events",
    ] {
        assert!(doc["paths"][path]["get"].is_object(), "{path} missing");
    }
}

/// Every operation of the document, as (method, path, operation).
fn operations(doc: &serde_json::Value) -> Vec<(String, String, serde_json::Value)> {
    let mut found = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("a path item") {
            if ["get", "post", "put", "delete", "patch"].contains(&method.as_str()) {
                found.push((method.clone(), path.clone(), operation.clone()));
            }
        }
    }
    found
}

fn document() -> serde_json::Value {
    serde_json::from_str(&warlog_api::openapi_pretty_json()).expect("valid JSON")
}

#[test]
fn every_operation_is_described_and_says_whether_it_needs_a_token() {
    let doc = document();
    for (method, path, operation) in operations(&doc) {
        let described = operation["description"]
            .as_str()
            .is_some_and(|d| !d.trim().is_empty());
        assert!(described, "{method} {path} has no description");
        assert!(
            operation["security"].is_array(),
            "{method} {path} does not say whether it needs a token (`security: []` if not)"
        );
    }
    assert_eq!(doc["servers"][0]["url"], "/");
}

#[test]
fn every_get_declares_its_etag_and_the_304_it_answers_to_if_none_match() {
    let doc = document();
    for (method, path, operation) in operations(&doc) {
        if method != "get" {
            continue;
        }
        let responses = &operation["responses"];
        assert!(responses["304"].is_object(), "GET {path} has no 304");
        for status in ["200", "304"] {
            assert!(
                responses[status]["headers"]["ETag"].is_object(),
                "GET {path}: {status} declares no ETag"
            );
        }
    }
}

#[test]
fn every_paged_list_declares_its_link_to_the_next_page() {
    let doc = document();
    let mut paged = Vec::new();
    for (method, path, operation) in operations(&doc) {
        let limit = operation["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| p["name"] == "limit" && p["in"] == "query");
        if method == "get" && limit {
            assert!(
                operation["responses"]["200"]["headers"]["Link"].is_object(),
                "GET {path} is paged but declares no Link"
            );
            paged.push(path);
        }
    }
    for list in [
        "/v1/games",
        "/v1/players",
        "/v1/tournaments",
        "/v1/streams",
        "/v1/streams/{stream}/events",
        "/v1/events",
        "/v1/leaderboards/{ladder}",
    ] {
        assert!(paged.iter().any(|p| p == list), "{list} is not paged");
    }
}

#[test]
fn refusals_declare_the_headers_that_say_what_to_do_next() {
    let doc = document();
    for (method, path, operation) in operations(&doc) {
        for (status, response) in operation["responses"].as_object().expect("responses") {
            let header = match status.as_str() {
                "401" => "WWW-Authenticate",
                "429" | "503" => "Retry-After",
                _ => continue,
            };
            assert!(
                response["headers"][header].is_object(),
                "{method} {path}: {status} declares no {header}"
            );
        }
    }
}

#[test]
fn writes_declare_their_consistency_token_and_files_their_name() {
    let doc = document();
    let mut csv = Vec::new();
    for (method, path, operation) in operations(&doc) {
        let keyed = operation["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| p["name"] == "Idempotency-Key");
        for (status, response) in operation["responses"].as_object().expect("responses") {
            if keyed && status.starts_with('2') {
                assert!(
                    response["headers"]["Consistency-Token"].is_object(),
                    "{method} {path}: {status} declares no Consistency-Token"
                );
            }
            if response["content"]["text/csv"].is_object() {
                assert!(
                    response["headers"]["Content-Disposition"].is_object(),
                    "{method} {path}: a CSV answer without Content-Disposition"
                );
                csv.push(path.clone());
            }
        }
    }
    assert_eq!(
        csv,
        [
            "/v1/leaderboards/{ladder}",
            "/v1/tournaments/{id}/standings"
        ]
    );
}

/// The error codes a problem answer's description names: one a line, each written as
/// `` `code`: title `` (a list item when there are several).
fn codes_named(description: &str) -> Vec<&str> {
    description
        .lines()
        .filter_map(|line| {
            let line = line.strip_prefix("- ").unwrap_or(line);
            line.strip_prefix('`')?.split('`').next()
        })
        .collect()
}

#[test]
fn every_problem_answer_names_its_codes_and_each_code_is_of_its_status() {
    use warlog_api::error::ErrorCode;
    let doc = document();
    let mut answers = 0;
    for (method, path, operation) in operations(&doc) {
        for (status, response) in operation["responses"].as_object().expect("responses") {
            if !response["content"]["application/problem+json"].is_object() {
                continue;
            }
            answers += 1;
            let description = response["description"].as_str().unwrap_or_default();
            let codes = codes_named(description);
            assert!(
                !codes.is_empty(),
                "{method} {path}: the {status} answer names no error code: {description}"
            );
            for name in codes {
                let code = ErrorCode::ALL
                    .iter()
                    .find(|c| c.as_str() == name)
                    .unwrap_or_else(|| {
                        panic!(
                            "{method} {path}: {status} names `{name}`, no code of the error table"
                        )
                    });
                assert_eq!(
                    code.status().as_u16().to_string(),
                    *status,
                    "{method} {path}: `{name}` is answered with another status"
                );
            }
        }
    }
    assert!(answers > 100, "only {answers} problem answers");
}

#[test]
fn every_operation_that_needs_a_token_may_answer_401() {
    let doc = document();
    for (method, path, operation) in operations(&doc) {
        let secured = operation["security"]
            .as_array()
            .is_some_and(|s| !s.is_empty());
        if secured {
            assert!(
                operation["responses"]["401"].is_object(),
                "{method} {path} needs a token but declares no 401"
            );
        }
    }
}

#[test]
fn every_operation_of_the_document_declares_its_errors_beside_its_route() {
    let doc = document();
    let declared: Vec<&str> = warlog_api::routes::errors().map(|d| d.operation).collect();
    for (method, path, operation) in operations(&doc) {
        let id = operation["operationId"].as_str().unwrap_or_default();
        assert!(
            declared.contains(&id),
            "{method} {path} ({id}) is in no `resource!` list"
        );
    }
}

/// A route's refusals are declared as error codes in its module's `resource!` list, and
/// the document's problem answers and `Idempotency-Key` are written from them: none by
/// hand in an annotation.
#[test]
fn no_route_writes_its_problem_answers_or_idempotency_key_by_hand() {
    let routes = workspace_root().join("services/api/src/routes");
    let mut files = vec![routes.clone()];
    let mut checked = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            let entries = std::fs::read_dir(&path).expect("read the routes folder");
            files.extend(entries.map(|e| e.expect("an entry").path()));
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read a route file");
        checked += 1;
        for (n, line) in text.lines().enumerate() {
            let by_hand = line.contains("status = 4")
                || line.contains("status = 5")
                || line.contains("\"Idempotency-Key\" =");
            assert!(
                !by_hand,
                "{}:{}: declare the error codes in `resource!` instead: {}",
                path.display(),
                n + 1,
                line.trim()
            );
        }
    }
    assert!(checked > 10, "only {checked} route files");
}
