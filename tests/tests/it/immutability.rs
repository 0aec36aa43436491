//! The log cannot be changed: the database refuses updates and deletes even to a superuser,
//! and a change made behind its back is caught by verification.

use warlog_store::{append, verify_stream, ExpectedVersion};
use warlog_tests::TestDb;

use crate::{order, stream};

async fn seeded(db: &TestDb, name: &str, n: u64) -> Vec<warlog_store::AppendedEvent> {
    let client = db.pool.get().await.expect("connection");
    let events: Vec<_> = (0..n).map(order).collect();
    append(&client, &stream(name), ExpectedVersion::Any, &events)
        .await
        .expect("appended")
        .events
}

#[tokio::test]
async fn update_delete_and_truncate_on_events_are_refused_even_for_a_superuser() {
    let db = TestDb::new().await;
    seeded(&db, "game-immutable", 2).await;
    let admin = db.admin().await;
    for sql in [
        "UPDATE events SET payload = '{}'::jsonb",
        "DELETE FROM events",
        "TRUNCATE events",
    ] {
        let err = admin.batch_execute(sql).await.expect_err(sql);
        let db_err = err.as_db_error().expect("a server error");
        assert!(
            db_err.message().contains("events are immutable"),
            "{sql}: {}",
            db_err.message()
        );
    }
    let count: i64 = admin
        .query_one("SELECT count(*) FROM events", &[])
        .await
        .expect("count")
        .get(0);
    assert_eq!(count, 2);
}

#[tokio::test]
async fn the_service_role_has_no_right_to_change_events() {
    let db = TestDb::new().await;
    seeded(&db, "game-role", 1).await;
    let client = db.pool.get().await.expect("connection");
    let role: String = client
        .query_one("SELECT current_user::text", &[])
        .await
        .expect("role")
        .get(0);
    assert_eq!(role, warlog_store::APP_ROLE);
    for sql in [
        "UPDATE events SET payload = '{}'::jsonb",
        "DELETE FROM events",
        "TRUNCATE events",
    ] {
        let err = client.batch_execute(sql).await.expect_err(sql);
        assert_eq!(
            err.code(),
            Some(&tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE),
            "{sql}"
        );
    }
}

#[tokio::test]
async fn a_payload_changed_behind_the_triggers_back_is_named_by_verification() {
    let db = TestDb::new().await;
    let events = seeded(&db, "game-tamper", 4).await;
    let s = stream("game-tamper");
    let client = db.pool.get().await.expect("connection");
    verify_stream(&client, &s)
        .await
        .expect("read")
        .expect("intact before tampering");

    let admin = db.admin().await;
    admin
        .batch_execute(
            "ALTER TABLE events DISABLE TRIGGER events_no_update;
             UPDATE events SET payload = jsonb_set(payload, '{to}', '\"Moscow\"')
               WHERE stream_id = 'game-tamper' AND stream_version = 3;
             ALTER TABLE events ENABLE TRIGGER events_no_update;",
        )
        .await
        .expect("superuser tampers");

    let broken = verify_stream(&client, &s)
        .await
        .expect("read")
        .expect_err("tampering is detected");
    assert_eq!(broken.stream_version, 3);
    assert_eq!(broken.event_id, Some(events[2].event_id));
    assert!(matches!(
        *broken.kind,
        warlog_events::ChainBreakKind::HashMismatch { .. }
    ));
}

#[tokio::test]
async fn a_dropped_last_event_is_caught_by_an_auditor_holding_the_earlier_head() {
    let db = TestDb::new().await;
    seeded(&db, "game-rewrite", 2).await;
    let s = stream("game-rewrite");
    let client = db.pool.get().await.expect("connection");
    let held = warlog_store::stream_head(&client, &s)
        .await
        .expect("head")
        .expect("exists");

    let admin = db.admin().await;
    admin
        .batch_execute(
            "ALTER TABLE events DISABLE TRIGGER events_no_delete;
             DELETE FROM events WHERE stream_id = 'game-rewrite' AND stream_version = 2;
             ALTER TABLE events ENABLE TRIGGER events_no_delete;",
        )
        .await
        .expect("superuser deletes");

    // What is left is a valid chain, one event shorter...
    let remaining = warlog_store::read_stream(&client, &s, 1, 10)
        .await
        .expect("read");
    assert!(warlog_events::verify_chain(&s, &remaining).is_ok());
    // ...but not an extension of the head the auditor kept.
    let broken = warlog_events::verify_extends(&s, held, &remaining).expect_err("shrunk");
    assert_eq!(
        *broken.kind,
        warlog_events::ChainBreakKind::Shrunk { held_version: 2 }
    );
}

/// Inserts event `version` of `stream` by hand, with `hash` as its hash and the right
/// prev_hash, as whoever `client` is logged in as.
async fn insert_by_hand(
    client: &tokio_postgres::Client,
    stream: &warlog_events::StreamId,
    version: i64,
    event: &warlog_events::NewEvent,
    prev_hash: &warlog_events::Hash,
    hash: &[u8],
) -> Result<u64, tokio_postgres::Error> {
    client
        .execute(
            "INSERT INTO events (stream_id, stream_version, event_id, event_type, \
                 event_version, payload, metadata, recorded_at, prev_hash, hash) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, now(), $8, $9)",
            &[
                &stream.as_str(),
                &version,
                &event.event_id,
                &event.event_type.as_str(),
                &i32::try_from(event.event_version).expect("small"),
                &event.payload,
                &event.metadata,
                &prev_hash.as_bytes().as_slice(),
                &hash,
            ],
        )
        .await
}

#[tokio::test]
async fn an_event_whose_hash_is_not_that_of_its_content_is_refused_whoever_inserts_it() {
    let db = TestDb::new().await;
    let appended = seeded(&db, "game-forged", 2).await;
    let s = stream("game-forged");
    let head = appended[1].hash;
    // Logged in as the service logs in: warlog_service, with warlog_app's rights only.
    let service = db.service_login().await;
    let admin = db.admin().await;

    // The right prev_hash and sha256('anything') as the hash: refused, by the service's login
    // and by the owner alike.
    let forged = order(99);
    let anything = warlog_events::Hash::link(&head, b"anything");
    for (who, client) in [("warlog_service", &service), ("the owner", &admin)] {
        let error = insert_by_hand(client, &s, 3, &forged, &head, anything.as_bytes())
            .await
            .expect_err(who);
        assert_eq!(
            error.code(),
            Some(&tokio_postgres::error::SqlState::INTEGRITY_CONSTRAINT_VIOLATION),
            "{who}: {}",
            warlog_store::describe_pg(&error)
        );
        assert!(
            warlog_store::describe_pg(&error).contains("is not hashed from its content"),
            "{who}: {}",
            warlog_store::describe_pg(&error)
        );
    }
    // The hash of another event's content is no better.
    let other = order(100);
    let borrowed = warlog_events::Hash::link(&head, &other.canonical_bytes());
    insert_by_hand(&service, &s, 3, &forged, &head, borrowed.as_bytes())
        .await
        .expect_err("a hash of other content");

    // The same event with the hash of its own content and its predecessor: accepted.
    let honest = warlog_events::Hash::link(&head, &forged.canonical_bytes());
    insert_by_hand(&service, &s, 3, &forged, &head, honest.as_bytes())
        .await
        .expect("an honest event inserted by hand");
    let client = db.pool.get().await.expect("connection");
    let verified = verify_stream(&client, &s)
        .await
        .expect("read")
        .expect("the chain holds");
    assert_eq!(verified.version, 3);
    assert_eq!(verified.hash, honest);
}
