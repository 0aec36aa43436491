//! Appending and reading events. The append is one statement ([`APPEND_SQL`]): one round
//! trip that reads the stream's last event, checks the expected version, chains the hashes
//! (`warlog_chain`, schema/V1) and inserts the events. No lock is taken: two appends that read the same head meet at the `(stream_id, stream_version)`
//! unique index, and the loser is a conflict.

use std::fmt;

use deadpool_postgres::{GenericClient, Pool};
use tokio_postgres::Row;
use uuid::Uuid;
use warlog_events::{ChainBreak, ChainHead, EventType, Hash, NewEvent, RecordedEvent, StreamId};

use crate::projector::Notifier;
use crate::{StoreError, StoreMetrics};

/// The most events one append may carry: what one command may make.
pub const MAX_EVENTS_PER_APPEND: usize = warlog_events::orders::MAX_EVENTS_PER_COMMAND;

/// What the writer believes the stream's version to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpectedVersion {
    /// Append whatever the version is.
    Any,
    /// The stream must not exist yet.
    NoStream,
    /// The stream must be at exactly this version (0 is the same as `NoStream`).
    Exact(u64),
}

impl ExpectedVersion {
    fn as_sql(self) -> Option<i64> {
        match self {
            ExpectedVersion::Any => None,
            ExpectedVersion::NoStream => Some(0),
            ExpectedVersion::Exact(v) => Some(i64::try_from(v).unwrap_or(i64::MAX)),
        }
    }
}

impl fmt::Display for ExpectedVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExpectedVersion::Any => f.write_str("any"),
            ExpectedVersion::NoStream => f.write_str("no stream"),
            ExpectedVersion::Exact(v) => write!(f, "{v}"),
        }
    }
}

/// One appended event: where it landed and its chain link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppendedEvent {
    pub position: i64,
    pub stream_version: u64,
    pub event_id: Uuid,
    pub prev_hash: Hash,
    pub hash: Hash,
    pub tx_id: u64,
}

/// The result of an append: the events written. A retried request is answered above the
/// store, with the first answer recorded under its idempotency key (`idempotency.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppendOutcome {
    pub stream_id: StreamId,
    pub events: Vec<AppendedEvent>,
}

impl AppendOutcome {
    /// The stream's head right after this append.
    pub fn head(&self) -> Option<ChainHead> {
        self.events.last().map(|e| ChainHead {
            version: e.stream_version,
            hash: e.hash,
        })
    }
}

/// A place in the global feed: after the event of transaction `tx_id` at `position`.
/// The feed is ordered by `(tx_id, position)` and only shows transactions that are below
/// every running one, so a reader never passes an event that could still commit before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct FeedPosition {
    pub tx_id: u64,
    pub position: i64,
}

impl FeedPosition {
    /// Before the first event.
    pub const START: FeedPosition = FeedPosition {
        tx_id: 0,
        position: 0,
    };

    /// Just after `event`.
    pub fn after(event: &RecordedEvent) -> Self {
        FeedPosition {
            tx_id: event.tx_id,
            position: event.position,
        }
    }
}

const EVENT_COLUMNS: &str = "position, stream_id, stream_version, event_id, event_type, \
     event_version, payload, metadata, tx_id::text::bigint AS tx_id, prev_hash, hash";

/// The append itself: one statement that reads the stream's last event, checks the
/// expectation (and, for [`append_checking_token`], that the token that asked is still valid),
/// chains the hashes and inserts the events. No row is written when the expectation fails;
/// a writer that read the same head as a concurrent one meets it at
/// `UNIQUE (stream_id, stream_version)`.
///
/// With and without the token check (`$guard`) are two statements, so that PostgreSQL's
/// plan cache keeps one generic plan for each. A single statement whose unused part folded
/// away with a NULL parameter was cheaper in every custom plan than in the generic one, so
/// it was planned again on every execution, about a third of a 1-event append's time inside
/// the server (docs/benchmarks.md).
macro_rules! append_sql {
    ($guard:expr) => {
        concat!(
            "\
WITH last AS (
    SELECT e.stream_version, e.hash FROM events e
     WHERE e.stream_id = $1 ORDER BY e.stream_version DESC LIMIT 1
), chain AS (
    SELECT head.version, head.hash AS prev, warlog_chain(head.hash, $9::bytea[]) AS hashes
      FROM (SELECT coalesce((SELECT stream_version FROM last), 0) AS version,
                   coalesce((SELECT hash FROM last), $3::bytea) AS hash) head
     WHERE ($2::int8 IS NULL OR head.version = $2::int8)",
            $guard,
            "
), appended AS (
    INSERT INTO events (stream_id, stream_version, event_id, event_type, event_version,
                        payload, metadata, recorded_at, prev_hash, hash)
    SELECT $1, chain.version + i, ($4::uuid[])[i], ($5::text[])[i], ($6::int4[])[i],
           ($7::jsonb[])[i], ($8::jsonb[])[i], (($8::jsonb[])[i] ->> 'recorded_at')::timestamptz,
           CASE WHEN i = 1 THEN chain.prev ELSE chain.hashes[i - 1] END, chain.hashes[i]
      FROM chain, generate_subscripts($4::uuid[], 1) AS i
     ORDER BY i
    RETURNING position, stream_version, event_id, prev_hash, hash, tx_id
)
SELECT position, stream_version, event_id, prev_hash, hash, tx_id::text::int8
  FROM appended ORDER BY stream_version"
        )
    };
}

/// Only while the token whose hash is the last parameter is known, not revoked, not expired.
macro_rules! token_guard {
    ($param:literal) => {
        concat!(
            "
       AND EXISTS (
            SELECT 1 FROM api_tokens t WHERE t.token_hash = ",
            $param,
            "::bytea AND t.revoked_at IS NULL
               AND (t.expires_at IS NULL OR t.expires_at > now()))"
        )
    };
}

const APPEND_SQL: &str = append_sql!("");
const APPEND_CHECKING_TOKEN_SQL: &str = append_sql!(token_guard!("$10"));

/// Appends `events` to `stream` if its version matches `expected`.
///
/// A keyed request is made idempotent above the append, in the same transaction: its first
/// answer is recorded with [`crate::idempotency::record_response`] and given again to a
/// retry ([`crate::idempotency::recorded_response`]), which appends nothing.
///
/// Inside a caller's transaction a lost race aborts that transaction (PostgreSQL's unique
/// violation) and is reported as [`StoreError::Conflict`] whatever the expectation; the
/// caller retries the transaction. [`EventStore::append`] retries `Any` appends itself.
pub async fn append(
    client: &impl GenericClient,
    stream: &StreamId,
    expected: ExpectedVersion,
    events: &[NewEvent],
) -> Result<AppendOutcome, StoreError> {
    append_checking_token(client, stream, expected, events, None).await
}

/// [`append`] only while the bearer token whose hash is `token_hash` (if any) is valid:
/// known, not revoked, not expired, checked in the statement that writes. A service that
/// remembers who a token belongs to decides with that, and the write itself confirms it: a
/// token revoked a moment ago writes nothing ([`StoreError::TokenRefused`]).
pub async fn append_checking_token(
    client: &impl GenericClient,
    stream: &StreamId,
    expected: ExpectedVersion,
    events: &[NewEvent],
    token_hash: Option<&[u8; 32]>,
) -> Result<AppendOutcome, StoreError> {
    if events.is_empty() || events.len() > MAX_EVENTS_PER_APPEND {
        return Err(StoreError::BadEventCount {
            count: events.len(),
        });
    }
    let expected_sql = expected.as_sql();
    let genesis_hash = Hash::genesis(stream);
    let stream_name = stream.as_str();
    let event_ids: Vec<Uuid> = events.iter().map(|e| e.event_id).collect();
    let types: Vec<&str> = events.iter().map(|e| e.event_type.as_str()).collect();
    let versions: Vec<i32> = events
        .iter()
        .map(|e| i32::try_from(e.event_version).unwrap_or(i32::MAX))
        .collect();
    let payloads: Vec<&serde_json::Value> = events.iter().map(|e| &e.payload).collect();
    let metadata: Vec<&serde_json::Value> = events.iter().map(|e| &e.metadata).collect();
    let canonical: Vec<Vec<u8>> = events.iter().map(NewEvent::canonical_bytes).collect();

    let genesis = genesis_hash.as_bytes().as_slice();
    let token = token_hash.map(|h| h.as_slice());
    let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![
        &stream_name,
        &expected_sql,
        &genesis,
        &event_ids,
        &types,
        &versions,
        &payloads,
        &metadata,
        &canonical,
    ];
    let sql = match &token {
        None => APPEND_SQL,
        Some(_) => {
            params.push(&token);
            APPEND_CHECKING_TOKEN_SQL
        }
    };
    let statement = client.prepare_cached(sql).await?;
    let result = client.query(&statement, &params).await;
    let rows = match result {
        Ok(rows) if !rows.is_empty() => rows,
        // The expectation or the token did not hold: nothing was written.
        Ok(_) => {
            if let Some(hash) = token_hash {
                if crate::tokens::find_token(client, hash).await?.is_none() {
                    return Err(StoreError::TokenRefused);
                }
            }
            return Err(conflict(client, stream, expected, false).await);
        }
        Err(error) => {
            let constraint = error.as_db_error().and_then(|db| db.constraint());
            return Err(match constraint {
                // A concurrent writer appended the same version first.
                Some("events_stream_version_key") => conflict(client, stream, expected, true).await,
                Some("events_event_id_key") => StoreError::DuplicateEventId,
                _ => StoreError::Database(error),
            });
        }
    };
    let events = rows
        .iter()
        .map(appended_event)
        .collect::<Result<Vec<_>, StoreError>>()?;
    Ok(AppendOutcome {
        stream_id: stream.clone(),
        events,
    })
}

/// Reads an [`AppendedEvent`] from the append's six returned columns.
fn appended_event(row: &Row) -> Result<AppendedEvent, StoreError> {
    Ok(AppendedEvent {
        position: row.get(0),
        stream_version: to_u64(row.get(1))?,
        event_id: row.get(2),
        prev_hash: to_hash(row.get(3))?,
        hash: to_hash(row.get(4))?,
        tx_id: to_u64(row.get(5))?,
    })
}

/// A conflict, with the stream's current version. Inside a transaction that the lost race
/// aborted it cannot be read; the version the race proves (`expected + 1`) is given then.
async fn conflict(
    client: &impl GenericClient,
    stream: &StreamId,
    expected: ExpectedVersion,
    lost_race: bool,
) -> StoreError {
    let actual = match stream_head(client, stream).await {
        Ok(head) => head.map(|h| h.version).unwrap_or(0),
        Err(_) => match (lost_race, expected) {
            (true, ExpectedVersion::Exact(v)) => v + 1,
            _ => 1,
        },
    };
    StoreError::Conflict {
        stream: stream.clone(),
        expected,
        actual,
    }
}

/// Up to `limit` events of `stream` from `from_version` on, in stream order.
pub async fn read_stream(
    client: &impl GenericClient,
    stream: &StreamId,
    from_version: u64,
    limit: u32,
) -> Result<Vec<RecordedEvent>, StoreError> {
    let from = i64::try_from(from_version).unwrap_or(i64::MAX);
    select_events(
        client,
        "WHERE stream_id = $1 AND stream_version >= $2 \
         ORDER BY stream_version LIMIT $3",
        &[&stream.as_str(), &from, &i64::from(limit)],
    )
    .await
}

/// The latest event of `stream` of type `event_type` (`SeedCommitted` or `SeedRevealed`,
/// which an index keeps apart from the rest), if any.
pub async fn latest_seed_event(
    client: &impl GenericClient,
    stream: &StreamId,
    event_type: &str,
) -> Result<Option<RecordedEvent>, StoreError> {
    Ok(select_events(
        client,
        "WHERE stream_id = $1 AND event_type = $2 \
           AND event_type IN ('SeedCommitted', 'SeedRevealed') \
         ORDER BY stream_version DESC LIMIT 1",
        &[&stream.as_str(), &event_type],
    )
    .await?
    .pop())
}

/// The events a statement selects, `filter` being what follows `FROM events`.
async fn select_events(
    client: &impl GenericClient,
    filter: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Vec<RecordedEvent>, StoreError> {
    let statement = client
        .prepare_cached(&format!("SELECT {EVENT_COLUMNS} FROM events {filter}"))
        .await?;
    client
        .query(&statement, params)
        .await?
        .iter()
        .map(recorded_event)
        .collect()
}

/// The stream's version and head hash, or `None` if it has no events.
pub async fn stream_head(
    client: &impl GenericClient,
    stream: &StreamId,
) -> Result<Option<ChainHead>, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT stream_version, hash FROM events WHERE stream_id = $1 \
             ORDER BY stream_version DESC LIMIT 1",
        )
        .await?;
    client
        .query_opt(&statement, &[&stream.as_str()])
        .await?
        .map(|row| {
            Ok(ChainHead {
                version: to_u64(row.get(0))?,
                hash: to_hash(row.get(1))?,
            })
        })
        .transpose()
}

/// Up to `limit` events of the global feed after `after`.
///
/// Only events of transactions below `pg_snapshot_xmin(pg_current_snapshot())` are shown:
/// every such transaction has ended, and every transaction still to come gets a larger
/// id, so nothing can later appear before the returned events. A transaction held open
/// holds the feed back; it never makes a reader skip its events.
pub async fn read_all(
    client: &impl GenericClient,
    after: FeedPosition,
    limit: u32,
) -> Result<Vec<RecordedEvent>, StoreError> {
    select_events(
        client,
        "WHERE (tx_id, position) > ($1::text::xid8, $2) \
           AND tx_id < pg_snapshot_xmin(pg_current_snapshot()) \
         ORDER BY tx_id, position LIMIT $3",
        &[&after.tx_id.to_string(), &after.position, &i64::from(limit)],
    )
    .await
}

/// Re-verifies a whole stream, every link of its chain. `Ok(Err(break))` names the first
/// event that does not match. (A dropped last event leaves a valid, shorter chain: an
/// auditor who kept an earlier head catches it with [`warlog_events::verify_extends`].)
pub async fn verify_stream(
    client: &impl GenericClient,
    stream: &StreamId,
) -> Result<Result<ChainHead, ChainBreak>, StoreError> {
    const PAGE: u32 = 1_000;
    let mut verifier = warlog_events::ChainVerifier::new(stream.clone());
    loop {
        let from = verifier.head().version + 1;
        let page = read_stream(client, stream, from, PAGE).await?;
        for event in &page {
            if let Err(broken) = verifier.push(event) {
                return Ok(Err(broken));
            }
        }
        if page.len() < PAGE as usize {
            break;
        }
    }
    let computed = verifier.head();
    Ok(Ok(computed))
}

fn recorded_event(row: &Row) -> Result<RecordedEvent, StoreError> {
    let stream_id: String = row.get("stream_id");
    let event_type: String = row.get("event_type");
    let event_version: i32 = row.get("event_version");
    Ok(RecordedEvent {
        position: row.get("position"),
        stream_id: StreamId::try_from(stream_id).map_err(|e| StoreError::Corrupt(e.to_string()))?,
        stream_version: to_u64(row.get("stream_version"))?,
        event_id: row.get("event_id"),
        event_type: EventType::try_from(event_type)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
        event_version: u32::try_from(event_version)
            .map_err(|_| StoreError::Corrupt(format!("event version {event_version}")))?,
        payload: row.get("payload"),
        metadata: row.get("metadata"),
        tx_id: to_u64(row.get("tx_id"))?,
        prev_hash: to_hash(row.get("prev_hash"))?,
        hash: to_hash(row.get("hash"))?,
    })
}

fn to_u64(value: i64) -> Result<u64, StoreError> {
    u64::try_from(value).map_err(|_| StoreError::Corrupt(format!("negative number {value}")))
}

fn to_hash(bytes: &[u8]) -> Result<Hash, StoreError> {
    Hash::try_from(bytes).map_err(StoreError::Corrupt)
}

/// The store as the service uses it: a pool, and metrics of what it does.
#[derive(Debug, Clone)]
pub struct EventStore {
    pool: Pool,
    metrics: StoreMetrics,
    notifier: Option<Notifier>,
}

impl EventStore {
    pub fn new(pool: Pool, metrics: StoreMetrics) -> Self {
        EventStore {
            pool,
            metrics,
            notifier: None,
        }
    }

    /// Wakes listening projectors after each append.
    pub fn with_notifier(mut self, notifier: Notifier) -> Self {
        self.notifier = Some(notifier);
        self
    }

    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    pub fn metrics(&self) -> &StoreMetrics {
        &self.metrics
    }

    /// Counts an append a caller committed in its own transaction, and wakes projectors.
    pub fn committed(&self, events: usize) {
        self.metrics.events_appended.inc_by(events as u64);
        self.metrics.appends.with_label_values(&["appended"]).inc();
        if let Some(notifier) = &self.notifier {
            notifier.appended();
        }
    }

    /// [`append`] on a pooled connection. An `Any` append that lost a race is retried: it can
    /// only have lost to a commit, so every retry makes progress.
    pub async fn append(
        &self,
        stream: &StreamId,
        expected: ExpectedVersion,
        events: &[NewEvent],
    ) -> Result<AppendOutcome, StoreError> {
        const RETRIES: usize = 64;
        let client = self.pool.get().await?;
        let mut result = append(&client, stream, expected, events).await;
        for _ in 0..RETRIES {
            let lost_race = matches!(result, Err(StoreError::Conflict { .. }));
            if !(lost_race && expected == ExpectedVersion::Any) {
                break;
            }
            result = append(&client, stream, expected, events).await;
        }
        let outcome = match &result {
            Ok(o) => {
                self.metrics.events_appended.inc_by(o.events.len() as u64);
                if let Some(notifier) = &self.notifier {
                    notifier.appended();
                }
                "appended"
            }
            Err(StoreError::Conflict { .. }) => "conflict",
            Err(StoreError::BadEventCount { .. } | StoreError::DuplicateEventId) => "rejected",
            Err(_) => "error",
        };
        self.metrics.appends.with_label_values(&[outcome]).inc();
        result
    }

    pub async fn read_stream(
        &self,
        stream: &StreamId,
        from_version: u64,
        limit: u32,
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        let client = self.pool.get().await?;
        read_stream(&client, stream, from_version, limit).await
    }

    pub async fn stream_head(&self, stream: &StreamId) -> Result<Option<ChainHead>, StoreError> {
        let client = self.pool.get().await?;
        stream_head(&client, stream).await
    }

    pub async fn read_all(
        &self,
        after: FeedPosition,
        limit: u32,
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        let client = self.pool.get().await?;
        read_all(&client, after, limit).await
    }

    pub async fn verify_stream(
        &self,
        stream: &StreamId,
    ) -> Result<Result<ChainHead, ChainBreak>, StoreError> {
        let client = self.pool.get().await?;
        verify_stream(&client, stream).await
    }
}
