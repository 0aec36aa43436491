//! Hardening (issue 21), over HTTP against real PostgreSQL: games filed under a tournament
//! only by its director, JSON bodies only as JSON, pages with security headers, bounded
//! odds, and every edge a clean problem.

use actix_web::http::StatusCode;
use serde_json::json;
use warlog_api::auth::Role;
use warlog_api::{AppState, Telemetry};
use warlog_tests::TestDb;

use crate::games::{app, assert_problem, call, post, token};
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
