//! The event store's append and reads against a real database: expected versions, racing
//! writers, idempotency keys, and the database hashing events as the service does.

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

/// JSON texts the two canonical encoders must agree on: every awkward key, string and number
/// spelling found so far, and many doubles drawn at random (their bits, so every exponent
/// comes up) and as short decimals, the kind a payload holds.
fn awkward_json_texts() -> Vec<String> {
    let mut texts: Vec<String> = [
        // Keys: jsonb orders them by length first; the canonical order is by bytes.
        r#"{"to": 1, "from": 2, "order": 3, "power": 4, "round": 5, "units": 6}"#,
        r#"{"b": 1, "aa": 2, "a": 3, "ab": 4, "a b": 5, "A": 6, "": 7}"#,
        r#"{"é": 1, "e": 2, "z": 3, "日本": 4, "😀": 5, "\uffff": 6, "\u007f": 7}"#,
        r#"{"q\"uote": 1, "back\\slash": 2, "tab\t": 3, "nl\n": 4, "\u0001": 5, "\u001f": 6}"#,
        r#"{"nested": {"zz": {"b": [1, {"y": null, "x": []}], "a": {}}}, "n": null}"#,
        // Strings: serde_json escapes quotes, backslashes and control characters only.
        r#"["", "a, b: c", "{not an object}", "[x]", "tab\there"]"#,
        r#"["\u0001\u0008\u0009\u000a\u000b\u000c\u000d\u001f\u007f\u2028", "\/", "\ud83d\ude00"]"#,
        r#"["Ä \"q\" \\ \n", "100.0", "1e2", "null"]"#,
        // Arrays: nulls kept, nesting, scalars only or mixed.
        r#"[null, true, false, 0, -1, [], [[]], [null], {}]"#,
        r#"["INF", "INF", "ARM", "FTR"]"#,
        // Integers: i64 and u64 as they are, anything beyond as the nearest double.
        "[0, -0, 1, -1, 123456789012345678, -12345678901234567, 1234567890123456789]",
        "[9223372036854775807, -9223372036854775808, 9223372036854775808, 18446744073709551615]",
        "[18446744073709551616, -9223372036854775809, 12345678901234567890123, 1e22, 1e23]",
        "[9007199254740992, 9007199254740993, 99999999999999999999999999999999999999]",
        // Integral spellings are integers; fractions are the shortest double.
        "[100.0, 1e2, 1.00E+2, -0.0, 0.0, 100.000, 0.99999999999999999999, 1.00000000000000000001]",
        "[0.1, 0.2, 0.3, 0.30000000000000004, 123.456, -123.456, 2.5, 1.5e300, -1.5e300]",
        "[1e-4, 1e-5, 1.5e-5, 0.000012345, 1e-6, 1.2345e-7, 1e-7, 5e-324, 2.2250738585072014e-308]",
        "[1.7976931348623157e308, -1.7976931348623157e308, 1e300, 1e16, 1e15, 123456789012345.6]",
        "[1234567890123456.5, 4503599627370495.5, 999999999999999.9, 0.000099999, 0.0001000001]",
        "3.14159",
        "\"a lone string\"",
        "null",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    // A key longer than a tsvector lexeme may be (2,047 bytes).
    texts.push(serde_json::json!({"k".repeat(3000): 1, "a": 2}).to_string());
    texts.push(serde_json::json!({"ä".repeat(1100): [1.5], "b": 2}).to_string());
    let mut state = 0x5eed_u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state
    };
    for _ in 0..40 {
        let doubles: Vec<serde_json::Value> = (0..100)
            .filter_map(|_| {
                let double = f64::from_bits(next());
                double.is_finite().then(|| serde_json::json!(double))
            })
            .collect();
        texts.push(serde_json::Value::Array(doubles).to_string());
        let decimals: Vec<serde_json::Value> = (0..100)
            .map(|_| {
                let digits = (next() >> 40) as f64;
                let scale = 10f64.powi((next() % 12) as i32);
                serde_json::json!(digits / scale - 1000.0)
            })
            .collect();
        texts.push(serde_json::Value::Array(decimals).to_string());
    }
    texts
}

/// A game of Cut-Throat played by random orders through the server's own decision, and ended.
fn played_game() -> Vec<warlog_events::RecordedEvent> {
    let ruleset = warlog_rules::ruleset::Ruleset::builtin("cutthroat").expect("ruleset");
    let mut game = warlog_events::sample::SampleGame::new(
        ruleset,
        "canonical",
        warlog_rules::dice::GameSeed::from_bytes([31; 32]),
        5,
    );
    game.play_until(400, 16_000);
    assert!(game.end(), "the game master ends the game");
    game.recorded()
}

#[tokio::test]
async fn the_database_writes_the_canonical_bytes_of_any_value_as_the_service_does() {
    let db = TestDb::new().await;
    let client = db.pool.get().await.expect("connection");
    let mut texts = awkward_json_texts();
    for event in played_game() {
        texts.push(event.payload.to_string());
        texts.push(event.metadata.to_string());
    }
    let mut compared = 0;
    for chunk in texts.chunks(400) {
        let rows = client
            .query(
                "SELECT warlog_canonical(text::jsonb), text::jsonb \
                   FROM unnest($1::text[]) WITH ORDINALITY AS texts(text, place) ORDER BY place",
                &[&chunk],
            )
            .await
            .expect("the database encodes");
        for (text, row) in chunk.iter().zip(&rows) {
            // The value as the service reads it back from the database, as a verifier does.
            let stored: serde_json::Value = row.get(1);
            let theirs: String = row.get(0);
            assert_eq!(
                theirs,
                warlog_events::canonical::to_canonical_string(&stored),
                "{text}"
            );
            compared += 1;
        }
    }
    assert!(compared > 800, "{compared} values compared");
}

#[tokio::test]
async fn every_event_of_a_played_game_is_hashed_by_the_database_as_by_the_service() {
    let db = TestDb::new().await;
    let client = db.pool.get().await.expect("connection");
    let recorded = played_game();
    let metadata = warlog_events::Metadata {
        actor: Some("user:ann".to_owned()),
        causation_id: Some(uuid::Uuid::from_u128(7)),
        correlation_id: Some(uuid::Uuid::from_u128(8)),
        idempotency_key: Some(IdempotencyKey::try_from("key-1").expect("valid")),
        ..warlog_events::Metadata::recorded_at(time::OffsetDateTime::now_utc())
    };
    let events: Vec<warlog_events::NewEvent> = recorded
        .iter()
        .enumerate()
        .map(|(i, e)| warlog_events::NewEvent {
            event_id: e.event_id,
            event_type: e.event_type.clone(),
            event_version: e.event_version,
            payload: e.payload.clone(),
            // Every field of the metadata on some events.
            metadata: if i % 2 == 0 {
                serde_json::to_value(&metadata).expect("metadata")
            } else {
                e.metadata.clone()
            },
        })
        .collect();
    for event in &events {
        let ours = client
            .query_one(
                "SELECT warlog_canonical_event($1, $2, $3, $4, $5)",
                &[
                    &event.event_id,
                    &event.event_type.as_str(),
                    &i32::try_from(event.event_version).expect("small"),
                    &event.metadata,
                    &event.payload,
                ],
            )
            .await
            .expect("the database encodes")
            .get::<_, Vec<u8>>(0);
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&event.canonical_bytes()),
            "{}",
            event.event_type
        );
    }
    // And through the append itself, which the database checks event by event.
    let s = stream("game-canonical");
    for batch in events.chunks(warlog_store::MAX_EVENTS_PER_APPEND) {
        append(&client, &s, ExpectedVersion::Any, batch, None)
            .await
            .expect("every event of the game is accepted");
    }
    let stored = read_stream(&client, &s, 1, u32::MAX).await.expect("read");
    assert_eq!(stored.len(), events.len());
    warlog_events::verify_chain(&s, &stored).expect("the stored chain verifies");
}
