//! Projectors: a rebuild gives the rows the running one kept, checkpoints move with the rows,
//! appends wake the listener, and an undecodable event stops one projection by name.

use std::time::Duration;

use actix_web::http::StatusCode;
use tokio::sync::watch;
use warlog_api::auth::Role;
use warlog_store::catalog::StreamCatalog;
use warlog_store::games::GameSummaries;
use warlog_store::projector::{spawn_listener, Notifier, Projector};
use warlog_store::{append, EventStore, ExpectedVersion, StoreError, StoreMetrics};
use warlog_tests::{eventually, TestDb};

use crate::games::create_game;
use crate::kit::{app, call, get, token};
use crate::{order, stream};

async fn catalog_rows(db: &TestDb) -> Vec<String> {
    let admin = db.admin().await;
    admin
        .query(
            "SELECT row_to_json(c)::text FROM stream_catalog c ORDER BY stream_id",
            &[],
        )
        .await
        .expect("read model")
        .iter()
        .map(|r| r.get(0))
        .collect()
}

async fn append_round(db: &TestDb, round: u64) {
    let client = db.pool.get().await.expect("connection");
    for (i, name) in ["game-a", "game-b", "player-ann", "league"]
        .iter()
        .enumerate()
    {
        let events: Vec<_> = (0..=(round + i as u64) % 3)
            .map(|n| order(round * 10 + n))
            .collect();
        append(&client, &stream(name), ExpectedVersion::Any, &events)
            .await
            .expect("appended");
    }
}

/// Catches up until the projector has applied `total` events (the feed may lag behind
/// other tests' open transactions for a moment).
async fn caught_up(projector: &Projector<StreamCatalog>, db: &TestDb, streams: usize) {
    eventually(
        "the projector to catch up",
        Duration::from_secs(60),
        || async {
            projector.catch_up().await.expect("catch up");
            let admin = db.admin().await;
            let (applied, logged): (i64, i64) = {
                let row = admin
                    .query_one(
                        "SELECT (SELECT coalesce(sum(event_count), 0)::bigint FROM stream_catalog),
                            (SELECT count(*) FROM events)",
                        &[],
                    )
                    .await
                    .expect("counts");
                (row.get(0), row.get(1))
            };
            (applied == logged && catalog_rows(db).await.len() == streams).then_some(())
        },
    )
    .await;
}

#[tokio::test]
async fn a_projection_rebuilt_from_zero_has_the_same_rows_as_the_incremental_one() {
    let db = TestDb::new().await;
    let projector = Projector::new(db.pool.clone(), StreamCatalog, StoreMetrics::unregistered())
        .with_batch_size(3);
    for round in 0..4 {
        append_round(&db, round).await;
        caught_up(&projector, &db, 4).await;
    }
    let incremental = catalog_rows(&db).await;
    assert_eq!(incremental.len(), 4);
    assert!(
        incremental[0].contains("\"stream_id\":\"game-a\""),
        "{}",
        incremental[0]
    );

    let replayed = projector.rebuild().await.expect("rebuild");
    let rebuilt = catalog_rows(&db).await;
    assert_eq!(rebuilt, incremental);
    let admin = db.admin().await;
    let total: i64 = admin
        .query_one("SELECT count(*) FROM events", &[])
        .await
        .expect("count")
        .get(0);
    assert_eq!(replayed, u64::try_from(total).expect("positive"));
}

#[tokio::test]
async fn the_checkpoint_moves_with_the_rows_and_a_second_catch_up_applies_nothing() {
    let db = TestDb::new().await;
    let projector = Projector::new(db.pool.clone(), StreamCatalog, StoreMetrics::unregistered());
    append_round(&db, 1).await;
    caught_up(&projector, &db, 4).await;
    let checkpoint = projector.checkpoint().await.expect("checkpoint");
    assert!(checkpoint.position > 0);
    assert_eq!(projector.catch_up().await.expect("catch up"), 0);
    assert_eq!(
        projector.checkpoint().await.expect("checkpoint"),
        checkpoint
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_append_through_the_store_wakes_the_listener() {
    let db = TestDb::new().await;
    let (_stop, shutdown) = watch::channel(false);
    let mut wake = spawn_listener(db.config.clone(), shutdown.clone());
    let store = EventStore::new(db.pool.clone(), StoreMetrics::unregistered())
        .with_notifier(Notifier::spawn(db.pool.clone(), shutdown));
    // The listener subscribes asynchronously: append until a notification arrives.
    let mut notified = false;
    for n in 0..60 {
        store
            .append(&stream("game-notify"), ExpectedVersion::Any, &[order(n)])
            .await
            .expect("appended");
        if let Ok(changed) = tokio::time::timeout(Duration::from_millis(500), wake.changed()).await
        {
            changed.expect("listener alive");
            notified = true;
            break;
        }
    }
    assert!(notified, "no notification after 60 appends");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_projector_follows_new_events_and_stops_on_shutdown() {
    let db = TestDb::new().await;
    let (stop, shutdown) = watch::channel(false);
    let wake = spawn_listener(db.config.clone(), shutdown.clone());
    let projector = Projector::new(db.pool.clone(), StreamCatalog, StoreMetrics::unregistered());
    let running = tokio::spawn(projector.run(wake, shutdown, Duration::from_millis(200)));
    append_round(&db, 2).await;
    eventually(
        "the catalogue to list the streams",
        Duration::from_secs(60),
        || async { (catalog_rows(&db).await.len() == 4).then_some(()) },
    )
    .await;
    stop.send(true).expect("projector listening");
    tokio::time::timeout(Duration::from_secs(30), running)
        .await
        .expect("stops on shutdown")
        .expect("no panic");
}

/// Plants, as the database's owner and behind its triggers' back, an event at the next
/// version of `stream` that no projection can decode (a `GameEnded` with nothing a game's
/// end holds) and a hash that is no hash of anything; its version.
async fn plant_undecodable_event(db: &TestDb, stream: &str) -> i64 {
    let admin = db.admin().await;
    let head = admin
        .query_one(
            "SELECT stream_version, hash FROM events WHERE stream_id = $1 \
             ORDER BY stream_version DESC LIMIT 1",
            &[&stream],
        )
        .await
        .expect("the stream's head");
    let version = head.get::<_, i64>(0) + 1;
    let prev_hash: Vec<u8> = head.get(1);
    admin
        .batch_execute("ALTER TABLE events DISABLE TRIGGER USER")
        .await
        .expect("the owner may");
    admin
        .execute(
            "INSERT INTO events (stream_id, stream_version, event_id, event_type, event_version, \
                 payload, metadata, recorded_at, prev_hash, hash) \
             VALUES ($1, $2, gen_random_uuid(), 'GameEnded', 1, '{\"nonsense\": true}', \
                 jsonb_build_object('actor', 'user:mallory', 'recorded_at', now()), now(), $3, \
                 sha256('anything'))",
            &[&stream, &version, &prev_hash],
        )
        .await
        .expect("planted");
    admin
        .batch_execute("ALTER TABLE events ENABLE TRIGGER USER")
        .await
        .expect("the owner may");
    version
}

#[actix_web::test]
async fn a_projection_that_meets_an_undecodable_event_stops_named_and_the_rest_keeps_serving() {
    let db = TestDb::new().await;
    let app = app!(db);
    let ready = call(&app, get("/readyz")).await;
    assert_eq!(ready.status, StatusCode::OK, "{:?}", ready.json());
    assert_eq!(ready.json()["status"], "ready");

    let gm = token(&db, "gus", Role::Gm).await;
    let first = create_game(&app, &gm).await;
    let first_stream = format!("game-{first}");
    let version = plant_undecodable_event(&db, &first_stream).await;
    let second = create_game(&app, &gm).await;

    // The game index's projector applies what comes before the event, then stops there by
    // itself, and says where.
    let (_stop, shutdown) = watch::channel(false);
    let (_wake, wake) = watch::channel(0u64);
    let games = Projector::new(db.pool.clone(), GameSummaries, StoreMetrics::unregistered());
    tokio::time::timeout(
        Duration::from_secs(60),
        games.clone().run(wake, shutdown, Duration::from_millis(50)),
    )
    .await
    .expect("the projector stops by itself");
    match games.catch_up().await {
        Err(StoreError::ProjectionStopped {
            projection,
            stream,
            version: at,
            reason,
        }) => {
            assert_eq!(
                (projection, stream.as_str(), at),
                ("game_summaries", first_stream.as_str(), version as u64)
            );
            assert!(reason.contains("does not decode"), "{reason}");
        }
        other => panic!("expected the projection to stay stopped, got {other:?}"),
    }

    // Readiness names it (the projection, the stream and the version) and stays ready, so a
    // load balancer keeps the service in.
    let ready = call(&app, get("/readyz")).await;
    assert_eq!(ready.status, StatusCode::OK, "{:?}", ready.json());
    assert_eq!(ready.json()["status"], "degraded");
    let stopped = ready.json()["stopped_projections"].clone();
    let stopped: Vec<&str> = stopped
        .as_array()
        .expect("the stopped projections")
        .iter()
        .filter_map(|s| s.as_str())
        .collect();
    assert_eq!(stopped.len(), 1, "{stopped:?}");
    assert!(
        stopped[0].contains(&format!(
            "projection game_summaries stopped at event {version} of stream {first_stream}"
        )),
        "{stopped:?}"
    );

    // The API serves from the read model as it was before the event: the first game listed,
    // the second (after the event in the log) not yet.
    let listed = call(&app, get("/v1/games")).await;
    assert_eq!(listed.status, StatusCode::OK, "{:?}", listed.json());
    let ids: Vec<String> = listed.json()["games"]
        .as_array()
        .expect("games")
        .iter()
        .filter_map(|g| g["game_id"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(ids, vec![first.clone()]);

    // Another projection, which need not decode the event, goes past it.
    let catalog = Projector::new(db.pool.clone(), StreamCatalog, StoreMetrics::unregistered());
    eventually(
        "the catalogue to list the second game",
        Duration::from_secs(60),
        || async {
            catalog.catch_up().await.expect("the catalogue goes on");
            let admin = db.admin().await;
            let listed: i64 = admin
                .query_one(
                    "SELECT count(*) FROM stream_catalog WHERE stream_id = $1",
                    &[&format!("game-{second}")],
                )
                .await
                .expect("catalogue")
                .get(0);
            (listed == 1).then_some(())
        },
    )
    .await;
    let ready = call(&app, get("/readyz")).await;
    assert!(
        !ready.json()["stopped_projections"]
            .to_string()
            .contains("stream_catalog"),
        "{:?}",
        ready.json()
    );
}
