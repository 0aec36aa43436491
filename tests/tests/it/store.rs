//! The event store's append and reads against a real database: expected versions, racing
//! writers, idempotency keys, and the database hashing events as the service does.

use std::sync::Arc;

use serde_json::json;
use tokio::sync::Barrier;
use warlog_events::IdempotencyKey;
use warlog_store::idempotency::{record_response, recorded_response, RecordedResponse};
use warlog_store::{append, read_stream, stream_head, ExpectedVersion, StoreError};
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
    )
    .await
    .expect("appended");
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
    append(&client, &s, ExpectedVersion::Any, &[order(1)])
        .await
        .expect("any on a new stream");
    let err = append(&client, &s, ExpectedVersion::NoStream, &[order(2)])
        .await
        .expect_err("stream exists");
    assert!(
        matches!(err, StoreError::Conflict { actual: 1, .. }),
        "{err}"
    );
    let err = append(&client, &s, ExpectedVersion::Exact(5), &[order(2)])
        .await
        .expect_err("wrong version");
    assert!(
        matches!(err, StoreError::Conflict { actual: 1, .. }),
        "{err}"
    );
    append(&client, &s, ExpectedVersion::Exact(1), &[order(2)])
        .await
        .expect("right version");
    append(&client, &s, ExpectedVersion::Any, &[order(3)])
        .await
        .expect("any on an existing stream");
    assert_eq!(version_of(&client, &s).await, Some(3));
}

#[tokio::test]
async fn an_empty_append_is_refused_and_creates_no_stream() {
    let db = TestDb::new().await;
    let client = db.pool.get().await.expect("connection");
    let s = stream("game-empty");
    let err = append(&client, &s, ExpectedVersion::Any, &[])
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
    append(&client, &s, ExpectedVersion::NoStream, &[order(0)])
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
            append(&client, &s, ExpectedVersion::Exact(1), &[order(n)]).await
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

/// How a keyed write ended, as the service's write path (`services/api`, `write::run`) ends
/// one: with the answer it recorded, or with the first answer recorded under its key.
#[derive(Debug)]
enum Keyed {
    Answered(serde_json::Value),
    AnsweredBefore(RecordedResponse),
}

/// A keyed write made as the service makes one: the first answer recorded under the key if
/// there is one; else the append and its answer, recorded in the append's transaction.
async fn keyed_write(
    pool: &warlog_store::Pool,
    key: &str,
    fingerprint: &[u8; 32],
    s: &warlog_events::StreamId,
    events: &[warlog_events::NewEvent],
) -> Result<Keyed, StoreError> {
    let mut client = pool.get().await?;
    if let Some(first) = recorded_response(&client, key).await? {
        return Ok(Keyed::AnsweredBefore(first));
    }
    let tx = client.transaction().await?;
    let outcome = append(&tx, s, ExpectedVersion::Any, events).await?;
    let answer = json!({"stream": s.as_str(), "version": outcome.events.len()});
    record_response(&tx, key, fingerprint, 201, &answer).await?;
    tx.commit().await?;
    Ok(Keyed::Answered(answer))
}

#[tokio::test]
async fn a_retried_keyed_request_gets_the_first_answer_and_appends_nothing() {
    let db = TestDb::new().await;
    let s = stream("game-idem");
    let fingerprint = [1; 32];
    let first = keyed_write(&db.pool, "turn-3-germany", &fingerprint, &s, &[order(1)])
        .await
        .expect("first");
    let Keyed::Answered(answer) = first else {
        panic!("a first request is answered anew: {first:?}");
    };
    // A retry builds its events anew: new ids and times, same content.
    let retry = keyed_write(&db.pool, "turn-3-germany", &fingerprint, &s, &[order(1)])
        .await
        .expect("retry");
    let Keyed::AnsweredBefore(recorded) = retry else {
        panic!("a retry gets the first answer: {retry:?}");
    };
    assert_eq!(
        recorded,
        RecordedResponse {
            fingerprint: fingerprint.to_vec(),
            status: 201,
            body: answer,
        }
    );
    assert_eq!(
        version_of(&db.pool.get().await.expect("connection"), &s).await,
        Some(1)
    );
}

#[tokio::test]
async fn the_same_key_for_another_request_is_refused_and_appends_nothing() {
    let db = TestDb::new().await;
    let s = stream("game-idem2");
    keyed_write(&db.pool, "k-1", &[1; 32], &s, &[order(1)])
        .await
        .expect("first");
    // Another request under the key finds the first one's fingerprint, not its own: the
    // service refuses it (422) before it writes.
    let other = keyed_write(&db.pool, "k-1", &[2; 32], &s, &[order(2)])
        .await
        .expect("looked up");
    let Keyed::AnsweredBefore(recorded) = other else {
        panic!("the key's first answer is found: {other:?}");
    };
    assert_ne!(recorded.fingerprint, [2; 32].to_vec());
    // A writer that records under a used key anyway is refused there, and its events roll
    // back with the refused record.
    let other_stream = stream("game-idem3");
    let mut client = db.pool.get().await.expect("connection");
    let tx = client.transaction().await.expect("begin");
    append(&tx, &other_stream, ExpectedVersion::Any, &[order(1)])
        .await
        .expect("appended, not yet committed");
    let err = record_response(&tx, "k-1", &[2; 32], 201, &json!({}))
        .await
        .expect_err("the key holds the first answer");
    assert!(matches!(err, StoreError::IdempotencyRace), "{err}");
    drop(tx);
    assert_eq!(version_of(&client, &s).await, Some(1));
    assert_eq!(version_of(&client, &other_stream).await, None);
    let kept = recorded_response(&client, "k-1")
        .await
        .expect("read")
        .expect("recorded");
    assert_eq!(kept.fingerprint, [1; 32].to_vec());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_requests_with_one_key_record_one_answer_and_the_others_roll_back() {
    const RACERS: usize = 8;
    let db = TestDb::with_pool_size(16).await;
    let barrier = Arc::new(Barrier::new(RACERS));
    let mut tasks = Vec::new();
    for n in 0..RACERS {
        let (pool, barrier) = (db.pool.clone(), barrier.clone());
        // Each to a stream of its own, as a new game is: they meet only at the key.
        let s = stream(&format!("game-idem-race-{n}"));
        tasks.push(tokio::spawn(async move {
            let mut client = pool.get().await.expect("connection");
            let tx = client.transaction().await.expect("begin");
            append(&tx, &s, ExpectedVersion::NoStream, &[order(7)])
                .await
                .expect("appended, not yet committed");
            // Every racer has appended before any records its answer.
            barrier.wait().await;
            let answer = json!({"stream": s.as_str()});
            let recorded = record_response(&tx, "race-key", &[7; 32], 201, &answer).await;
            match recorded {
                Ok(()) => tx.commit().await.expect("commit"),
                Err(_) => drop(tx),
            }
            (s, answer, recorded)
        }));
    }
    let (mut winners, mut losers) = (Vec::new(), Vec::new());
    for task in tasks {
        let (s, answer, recorded) = task.await.expect("task");
        match recorded {
            Ok(()) => winners.push((s, answer)),
            Err(StoreError::IdempotencyRace) => losers.push(s),
            Err(other) => panic!("unexpected error: {other}"),
        }
    }
    assert_eq!((winners.len(), losers.len()), (1, RACERS - 1));
    let client = db.pool.get().await.expect("connection");
    let (won, answer) = &winners[0];
    assert_eq!(version_of(&client, won).await, Some(1));
    for lost in &losers {
        assert_eq!(version_of(&client, lost).await, None, "{lost} rolled back");
    }
    // Each loser, looking again, gets the winner's answer.
    let first = recorded_response(&client, "race-key")
        .await
        .expect("read")
        .expect("recorded");
    assert_eq!(&first.body, answer);
}

#[tokio::test]
async fn an_acknowledged_append_is_visible_to_a_new_connection() {
    let db = TestDb::new().await;
    let s = stream("game-durable");
    {
        let client = db.pool.get().await.expect("connection");
        append(&client, &s, ExpectedVersion::Any, &[order(1)])
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
    append(&client, &s, ExpectedVersion::Any, &events)
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
        append(&client, &s, ExpectedVersion::Any, batch)
            .await
            .expect("every event of the game is accepted");
    }
    let stored = read_stream(&client, &s, 1, u32::MAX).await.expect("read");
    assert_eq!(stored.len(), events.len());
    warlog_events::verify_chain(&s, &stored).expect("the stored chain verifies");
}

#[tokio::test]
async fn a_database_that_applied_the_first_migration_before_its_comment_changed_migrates_on() {
    let db = TestDb::new().await;
    let admin = db.admin().await;
    let recorded = || async {
        admin
            .query_one(
                "SELECT checksum FROM refinery_schema_history WHERE version = 1",
                &[],
            )
            .await
            .expect("the history")
            .get::<_, String>(0)
    };
    let current = recorded().await;
    // Given the checksum the first migration had before its comment was changed,
    admin
        .execute(
            "UPDATE refinery_schema_history SET checksum = '2942637973760330086' \
             WHERE version = 1",
            &[],
        )
        .await
        .expect("set back");
    // then migrating again passes, and records the checksum of the migration as it stands;
    warlog::migrate(&db.config).await.expect("migrated");
    assert_eq!(recorded().await, current);
    // any other difference is still divergent.
    admin
        .execute(
            "UPDATE refinery_schema_history SET checksum = '1' WHERE version = 1",
            &[],
        )
        .await
        .expect("changed");
    let divergent = warlog::migrate(&db.config).await;
    assert!(divergent.is_err(), "a changed migration is refused");
}
