use std::time::Duration;

use tokio::sync::watch;
use warlog_store::catalog::StreamCatalog;
use warlog_store::projector::{spawn_listener, Notifier, Projector};
use warlog_store::{append, EventStore, ExpectedVersion, StoreMetrics};
use warlog_tests::{eventually, TestDb};

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
        append(&client, &stream(name), ExpectedVersion::Any, &events, None)
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
            .append(
                &stream("game-notify"),
                ExpectedVersion::Any,
                &[order(n)],
                None,
            )
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
