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
