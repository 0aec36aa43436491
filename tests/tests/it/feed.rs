//! The global feed against concurrent writers: it waits for an open transaction, never shows
//! a rolled-back append, and pages through many streams without loss or repeat.

use std::time::Duration;

use warlog_store::{append, read_all, ExpectedVersion, FeedPosition};
use warlog_tests::{eventually, TestDb};

use crate::{order, stream};

/// Reads the whole feed as far as it is visible now.
async fn read_everything(db: &TestDb) -> Vec<warlog_events::RecordedEvent> {
    let client = db.pool.get().await.expect("connection");
    let mut after = FeedPosition::START;
    let mut all = Vec::new();
    loop {
        let page = read_all(&client, after, 3).await.expect("read");
        match page.last() {
            Some(last) => after = FeedPosition::after(last),
            None => return all,
        }
        all.extend(page);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_feed_waits_for_an_open_transaction_and_then_delivers_both_events_in_order() {
    let db = TestDb::new().await;
    let early = stream("game-early");
    let late = stream("game-late");

    // T1 appends and stays open.
    let mut t1_client = db.pool.get().await.expect("connection");
    let t1 = t1_client.transaction().await.expect("begin");
    let t1_event = append(&t1, &early, ExpectedVersion::Any, &[order(1)])
        .await
        .expect("T1 appends")
        .events[0]
        .clone();

    // T2 appends to another stream and commits.
    let t2_client = db.pool.get().await.expect("connection");
    let t2_event = append(&t2_client, &late, ExpectedVersion::Any, &[order(2)])
        .await
        .expect("T2 appends")
        .events[0]
        .clone();
    assert!(t1_event.tx_id < t2_event.tx_id);
    assert!(t1_event.position < t2_event.position);

    // While T1 is open, the reader must not move past it: T2's committed event is held back.
    let seen = read_everything(&db).await;
    assert!(
        seen.iter().all(|e| e.event_id != t2_event.event_id),
        "the feed delivered T2's event while T1, with a lower position, was still open"
    );

    t1.commit().await.expect("T1 commits");

    // Now both arrive, T1's first; nothing is skipped. (Other tests' transactions may hold
    // the feed back a moment longer, hence the polling.)
    let delivered = eventually(
        "both events in the feed",
        Duration::from_secs(60),
        || async {
            let all = read_everything(&db).await;
            (all.len() == 2).then_some(all)
        },
    )
    .await;
    let ids: Vec<_> = delivered.iter().map(|e| e.event_id).collect();
    assert_eq!(ids, vec![t1_event.event_id, t2_event.event_id]);
}

#[tokio::test]
async fn a_rolled_back_append_never_reaches_the_feed_and_leaves_no_gap() {
    let db = TestDb::new().await;
    let s = stream("game-rollback");
    {
        let mut client = db.pool.get().await.expect("connection");
        let tx = client.transaction().await.expect("begin");
        append(&tx, &s, ExpectedVersion::Any, &[order(1)])
            .await
            .expect("appends");
        tx.rollback().await.expect("rollback");
    }
    let client = db.pool.get().await.expect("connection");
    let kept = append(&client, &s, ExpectedVersion::NoStream, &[order(2)])
        .await
        .expect("the stream is still new");
    assert_eq!(kept.events[0].stream_version, 1);
    let all = eventually("the committed event", Duration::from_secs(60), || async {
        let all = read_everything(&db).await;
        (!all.is_empty()).then_some(all)
    })
    .await;
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].event_id, kept.events[0].event_id);
}

#[tokio::test]
async fn the_feed_pages_through_many_streams_without_loss_or_repeat() {
    let db = TestDb::new().await;
    let client = db.pool.get().await.expect("connection");
    let mut expected = Vec::new();
    for n in 0..10u64 {
        let s = stream(&format!("player-p{}", n % 4));
        let outcome = append(
            &client,
            &s,
            ExpectedVersion::Any,
            &[order(n), order(n + 100)],
        )
        .await
        .expect("appended");
        expected.extend(outcome.events.iter().map(|e| e.event_id));
    }
    let all = eventually("all 20 events", Duration::from_secs(60), || async {
        let all = read_everything(&db).await;
        (all.len() == expected.len()).then_some(all)
    })
    .await;
    let ids: Vec<_> = all.iter().map(|e| e.event_id).collect();
    assert_eq!(
        ids, expected,
        "one transaction after another, in commit order"
    );
}
