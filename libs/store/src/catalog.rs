//! The stream catalogue: a read model listing every stream with its size and last event,
//! kept by a projector. It is the first projection, and the one the store's own tests use
//! to show that a rebuild from zero gives the same rows as incremental updates.

use deadpool_postgres::{GenericClient, Transaction};
use serde::Serialize;
use warlog_events::{RecordedEvent, StreamCategory, StreamId};

use crate::projector::Projection;
use crate::StoreError;

/// One row of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StreamSummary {
    pub stream_id: String,
    pub category: String,
    pub event_count: i64,
    pub version: i64,
    pub last_event_type: String,
    pub last_position: i64,
    /// RFC 3339, as recorded in the events' metadata.
    pub first_recorded_at: String,
    pub last_recorded_at: String,
}

/// The projection that keeps `stream_catalog`.
#[derive(Debug, Clone, Copy, Default)]
pub struct StreamCatalog;

impl Projection for StreamCatalog {
    fn name(&self) -> &'static str {
        "stream_catalog"
    }

    async fn reset(&self, tx: &Transaction<'_>) -> Result<(), StoreError> {
        tx.execute("DELETE FROM stream_catalog", &[]).await?;
        Ok(())
    }

    async fn apply(&self, tx: &Transaction<'_>, event: &RecordedEvent) -> Result<(), StoreError> {
        let statement = tx
            .prepare_cached(
                "INSERT INTO stream_catalog AS c (stream_id, category, event_count, version, \
                     last_event_type, last_position, first_recorded_at, last_recorded_at) \
                 VALUES ($1, $2, 1, $3, $4, $5, ($6::text)::timestamptz, ($6::text)::timestamptz) \
                 ON CONFLICT (stream_id) DO UPDATE SET \
                     event_count = c.event_count + 1, \
                     version = GREATEST(c.version, EXCLUDED.version), \
                     last_event_type = CASE WHEN EXCLUDED.version > c.version \
                         THEN EXCLUDED.last_event_type ELSE c.last_event_type END, \
                     last_position = CASE WHEN EXCLUDED.version > c.version \
                         THEN EXCLUDED.last_position ELSE c.last_position END, \
                     first_recorded_at = LEAST(c.first_recorded_at, EXCLUDED.first_recorded_at), \
                     last_recorded_at = CASE WHEN EXCLUDED.version > c.version \
                         THEN EXCLUDED.last_recorded_at ELSE c.last_recorded_at END",
            )
            .await?;
        let recorded_at = event
            .metadata
            .get("recorded_at")
            .and_then(|v| v.as_str())
            .ok_or_else(|| {
                StoreError::Corrupt(format!("event {} has no recorded_at", event.event_id))
            })?;
        let version = i64::try_from(event.stream_version).unwrap_or(i64::MAX);
        tx.execute(
            &statement,
            &[
                &event.stream_id.as_str(),
                &event.stream_id.category().as_str(),
                &version,
                &event.event_type.as_str(),
                &event.position,
                &recorded_at,
            ],
        )
        .await?;
        Ok(())
    }
}

/// Up to `limit` catalogue rows after `after` (by stream id), optionally of one category.
pub async fn list_streams(
    client: &impl GenericClient,
    category: Option<StreamCategory>,
    after: Option<&StreamId>,
    limit: u32,
) -> Result<Vec<StreamSummary>, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT stream_id, category, event_count, version, last_event_type, last_position, \
                    to_char(first_recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), \
                    to_char(last_recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') \
             FROM stream_catalog \
             WHERE ($1::text IS NULL OR category = $1) AND stream_id > $2 \
             ORDER BY stream_id LIMIT $3",
        )
        .await?;
    let rows = client
        .query(
            &statement,
            &[
                &category.map(StreamCategory::as_str),
                &after.map(StreamId::as_str).unwrap_or(""),
                &i64::from(limit),
            ],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| StreamSummary {
            stream_id: row.get(0),
            category: row.get(1),
            event_count: row.get(2),
            version: row.get(3),
            last_event_type: row.get(4),
            last_position: row.get(5),
            first_recorded_at: row.get(6),
            last_recorded_at: row.get(7),
        })
        .collect())
}
