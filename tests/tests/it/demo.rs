//! `warlog demo` fills an empty database through the HTTP API, and leaves a filled one be.

use warlog_api::{AppState, Telemetry};
use warlog_tests::TestDb;

use crate::kit::{call, get};
use crate::league::project_league;
use crate::pages::listen;

#[actix_web::test]
async fn the_demo_plays_its_games_and_tournament_through_the_api_once() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let state = AppState::without_notifier(db.pool.clone(), &telemetry);
    let app = actix_web::test::init_service(warlog_api::app(state.clone(), &telemetry)).await;
    let (addr, handle) = listen(state, &telemetry);

    warlog::demo::fill(&db.pool, &db.config, addr)
        .await
        .expect("the demo fills");
    project_league(&db).await;
    let ladder = call(&app, get("/v1/leaderboards/points")).await.json();
    assert_eq!(
        ladder["as_of"], 6,
        "4 friendly games and round 1's two tables"
    );
    assert_eq!(ladder["rows"].as_array().map(Vec::len), Some(10));
    // 4 friendly games, the tournament's 2 rounds of 2 tables, its stream, 10 players.
    let client = db.pool.get().await.expect("connection");
    let streams: Vec<(String, i64)> = client
        .query(
            "SELECT split_part(stream_id, '-', 1), count(DISTINCT stream_id) FROM events GROUP BY 1 ORDER BY 1",
            &[],
        )
        .await
        .expect("streams")
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    let expected = [("game", 8), ("player", 10), ("tournament", 1)]
        .map(|(category, n)| (category.to_owned(), n));
    assert_eq!(streams, expected);

    // A second start leaves the data as it is.
    let events = event_count(&db).await;
    warlog::demo::fill(&db.pool, &db.config, addr)
        .await
        .expect("nothing to do");
    assert_eq!(event_count(&db).await, events);
    handle.stop(true).await;
}

async fn event_count(db: &TestDb) -> i64 {
    let client = db.pool.get().await.expect("connection");
    client
        .query_one("SELECT count(*) FROM events", &[])
        .await
        .expect("count")
        .get(0)
}
