use std::sync::Arc;

use tokio::sync::Barrier;
use warlog_events::IdempotencyKey;
use warlog_store::{
    append, read_stream, stream_head, EventStore, ExpectedVersion, StoreError, StoreMetrics,
};
use warlog_tests::TestDb;

use crate::{order, stream};

/// The stream's version, `None` when it has no events.
async fn version_of(
    client: &impl warlog_store::GenericClient,
    s: &warlog_events::StreamId,
) -> Option<u64> {
    stream_head(client, s)
        .await
        .expect("head")
        .map(|h| h.version)
}

#[tokio::test]
async fn a_new_stream_starts_at_version_one_and_chains_from_its_genesis() {
    let db = TestDb::new().await;
    let client = db.pool.get().await.expect("connection");
    let s = stream("game-1");
    let outcome = append(
        &client,
        &s,
        ExpectedVersion::NoStream,
        &[order(1), order(2)],
        None,
    )
    .await
    .expect("appended");
    assert!(!outcome.replayed);
    let versions: Vec<u64> = outcome.events.iter().map(|e| e.stream_version).collect();
    assert_eq!(versions, vec![1, 2]);
    assert_eq!(
        outcome.events[0].prev_hash,
        warlog_events::Hash::genesis(&s)
    );
    assert_eq!(outcome.events[1].prev_hash, outcome.events[0].hash);
    let head = stream_head(&client, &s)
        .await
        .expect("head")
        .expect("exists");
    assert_eq!(head, outcome.head().expect("head"));
    let stored = read_stream(&client, &s, 1, 10).await.expect("read");
    assert_eq!(warlog_events::verify_chain(&s, &stored), Ok(head));
}

#[tokio::test]
async fn expected_versions_any_no_stream_and_exact_are_enforced() {
    let db = TestDb::new().await;
    let client = db.pool.get().await.expect("connection");
    let s = stream("game-2");
    append(&client, &s, ExpectedVersion::Any, &[order(1)], None)
        .await
        .expect("any on a new stream");
    let err = append(&client, &s, ExpectedVersion::NoStream, &[order(2)], None)
        .await
        .expect_err("stream exists");
    assert!(
        matches!(err, StoreError::Conflict { actual: 1, .. }),
        "{err}"
    );
    let err = append(&client, &s, ExpectedVersion::Exact(5), &[order(2)], None)
        .await
        .expect_err("wrong version");
    assert!(
        matches!(err, StoreError::Conflict { actual: 1, .. }),
        "{err}"
    );
    append(&client, &s, ExpectedVersion::Exact(1), &[order(2)], None)
        .await
        .expect("right version");
    append(&client, &s, ExpectedVersion::Any, &[order(3)], None)
        .await
        .expect("any on an existing stream");
    assert_eq!(version_of(&client, &s).await, Some(3));
}

#[tokio::test]
async fn an_empty_append_is_refused_and_creates_no_stream() {
    let db = TestDb::new().await;
    let client = db.pool.get().await.expect("connection");
    let s = stream("game-empty");
    let err = append(&client, &s, ExpectedVersion::Any, &[], None)
        .await
        .expect_err("empty");
    assert!(matches!(err, StoreError::BadEventCount { count: 0 }));
    assert_eq!(version_of(&client, &s).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thirty_two_writers_at_the_same_expected_version_let_exactly_one_through() {
    let db = TestDb::with_pool_size(40).await;
    let s = stream("game-race");
    let client = db.pool.get().await.expect("connection");
    append(&client, &s, ExpectedVersion::NoStream, &[order(0)], None)
        .await
        .expect("first event");
    drop(client);

    let barrier = Arc::new(Barrier::new(32));
    let mut writers = Vec::new();
    for n in 0..32u64 {
        let pool = db.pool.clone();
        let barrier = barrier.clone();
        let s = s.clone();
        writers.push(tokio::spawn(async move {
            let client = pool.get().await.expect("connection");
            barrier.wait().await;
            append(&client, &s, ExpectedVersion::Exact(1), &[order(n)], None).await
        }));
    }
    let mut won = 0;
    let mut conflicts = 0;
    for writer in writers {
        match writer.await.expect("task") {
            Ok(_) => won += 1,
            Err(StoreError::Conflict { actual: 2, .. }) => conflicts += 1,
            Err(other) => panic!("unexpected error: {other}"),
        }
    }
    assert_eq!((won, conflicts), (1, 31));

    let client = db.pool.get().await.expect("connection");
    let events = read_stream(&client, &s, 1, 100).await.expect("read");
    let versions: Vec<u64> = events.iter().map(|e| e.stream_version).collect();
    assert_eq!(versions, vec![1, 2], "no gap, no duplicate");
    warlog_events::verify_chain(&s, &events).expect("the chain holds");
}

#[tokio::test]
async fn the_same_idempotency_key_twice_appends_once_and_returns_the_first_result() {
    let db = TestDb::new().await;
    let store = EventStore::new(db.pool.clone(), StoreMetrics::unregistered());
    let s = stream("game-idem");
    let key = IdempotencyKey::try_from("turn-3-germany").expect("valid");
    let first = store
        .append(&s, ExpectedVersion::NoStream, &[order(1)], Some(&key))
        .await
        .expect("first");
    // A retry builds its events anew: new ids and times, same content.
    let retry = store
        .append(&s, ExpectedVersion::NoStream, &[order(1)], Some(&key))
        .await
        .expect("retry");
    assert!(retry.replayed);
    assert_eq!(retry.events, first.events);
    assert_eq!(
        version_of(&db.pool.get().await.expect("connection"), &s).await,
        Some(1)
    );
    assert_eq!(store.metrics().events_appended.get(), 1);
}

#[tokio::test]
async fn the_same_idempotency_key_with_another_payload_is_refused_and_appends_nothing() {
    let db = TestDb::new().await;
    let store = EventStore::new(db.pool.clone(), StoreMetrics::unregistered());
    let s = stream("game-idem2");
    let key = IdempotencyKey::try_from("k-1").expect("valid");
    store
        .append(&s, ExpectedVersion::Any, &[order(1)], Some(&key))
        .await
        .expect("first");
    let err = store
        .append(&s, ExpectedVersion::Any, &[order(2)], Some(&key))
        .await
        .expect_err("other content");
    assert!(
        matches!(err, StoreError::IdempotencyKeyReused { .. }),
        "{err}"
    );
    let other_stream = stream("game-idem3");
    let err = store
        .append(&other_stream, ExpectedVersion::Any, &[order(1)], Some(&key))
        .await
        .expect_err("same payload, other stream");
    assert!(
        matches!(err, StoreError::IdempotencyKeyReused { .. }),
        "{err}"
    );
    assert_eq!(
        version_of(&db.pool.get().await.expect("connection"), &s).await,
        Some(1)
    );
    assert_eq!(
        version_of(&db.pool.get().await.expect("connection"), &other_stream).await,
        None
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_retries_with_one_idempotency_key_append_once() {
    let db = TestDb::with_pool_size(16).await;
    let store = EventStore::new(db.pool.clone(), StoreMetrics::unregistered());
    let s = stream("game-idem-race");
    let key = IdempotencyKey::try_from("race-key").expect("valid");
    let barrier = Arc::new(Barrier::new(8));
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let (store, s, key, barrier) = (store.clone(), s.clone(), key.clone(), barrier.clone());
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            store
                .append(&s, ExpectedVersion::Any, &[order(7)], Some(&key))
                .await
        }));
    }
    let mut event_ids = std::collections::HashSet::new();
    for task in tasks {
        let outcome = task.await.expect("task").expect("appended or replayed");
        event_ids.insert(outcome.events[0].event_id);
    }
    assert_eq!(event_ids.len(), 1, "every caller sees the one event");
    assert_eq!(
        version_of(&db.pool.get().await.expect("connection"), &s).await,
        Some(1)
    );
}

#[tokio::test]
async fn an_acknowledged_append_is_visible_to_a_new_connection() {
    let db = TestDb::new().await;
    let s = stream("game-durable");
    {
        let client = db.pool.get().await.expect("connection");
        append(&client, &s, ExpectedVersion::Any, &[order(1)], None)
            .await
            .expect("appended");
    }
    // Not through the pool: a connection that shares nothing with the writer's.
    let admin = db.admin().await;
    let count: i64 = admin
        .query_one(
            "SELECT count(*) FROM events WHERE stream_id = $1",
            &[&s.as_str()],
        )
        .await
        .expect("count")
        .get(0);
    assert_eq!(count, 1);
    let fsync: String = admin
        .query_one("SHOW fsync", &[])
        .await
        .expect("show")
        .get(0);
    let sync_commit: String = admin
        .query_one("SHOW synchronous_commit", &[])
        .await
        .expect("show")
        .get(0);
    eprintln!("server durability settings: fsync={fsync}, synchronous_commit={sync_commit}");
}

#[tokio::test]
async fn reading_a_stream_pages_by_version() {
    let db = TestDb::new().await;
    let client = db.pool.get().await.expect("connection");
    let s = stream("tournament-spring");
    let events: Vec<_> = (0..7).map(order).collect();
    append(&client, &s, ExpectedVersion::Any, &events, None)
        .await
        .expect("appended");
    let page = read_stream(&client, &s, 3, 2).await.expect("read");
    let versions: Vec<u64> = page.iter().map(|e| e.stream_version).collect();
    assert_eq!(versions, vec![3, 4]);
    assert_eq!(page[0].payload["n"], serde_json::json!(2));
    assert!(read_stream(&client, &s, 8, 10)
        .await
        .expect("read")
        .is_empty());
}
