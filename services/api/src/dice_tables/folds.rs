//! Dice tables folded and kept in memory, so that a roll, a reveal or a view never reads a
//! whole table (which may hold many thousands of rolls). A table not kept is resumed from
//! three of its events ([`DiceTable::resume`]); a table kept takes in only the events
//! recorded since, a page at a time. A table's events never change, so a fold kept stays
//! true; what it lacks is read on the next load.

use std::collections::HashMap;
use std::sync::Mutex;

use warlog_events::dice_table::{DiceTable, DiceTableEvent, DiceTableId};
use warlog_events::{RecordedEvent, StreamId};
use warlog_store::{latest_seed_event, read_stream, stream_head, GenericClient};

use crate::error::{corrupt, ApiError};

/// Tables kept at most; beyond it, one is forgotten for each one added.
const MAX_TABLES: usize = 10_000;
/// Events taken in at a time.
const PAGE: u32 = 1000;

/// Folded tables by id.
#[derive(Debug, Default)]
pub struct TableFolds {
    folded: Mutex<HashMap<String, DiceTable>>,
}

impl TableFolds {
    /// `table` as its stream leaves it now; none when it has never rolled.
    pub async fn load(
        &self,
        client: &impl GenericClient,
        table: &DiceTableId,
    ) -> Result<Option<DiceTable>, ApiError> {
        let stream = table.stream().map_err(corrupt)?;
        let cached = self
            .folded
            .lock()
            .ok()
            .and_then(|folded| folded.get(table.as_str()).cloned());
        let folded = match cached {
            Some(mut folded) => {
                loop {
                    let page = read_stream(client, &stream, folded.version + 1, PAGE).await?;
                    for event in &page {
                        folded.apply(&decoded(event)?);
                    }
                    if page.len() < PAGE as usize {
                        break;
                    }
                }
                folded
            }
            None => match resumed(client, table, &stream).await? {
                Some(folded) => folded,
                None => return Ok(None),
            },
        };
        if let Ok(mut kept) = self.folded.lock() {
            if kept.len() >= MAX_TABLES && !kept.contains_key(table.as_str()) {
                if let Some(any) = kept.keys().next().cloned() {
                    kept.remove(&any);
                }
            }
            kept.insert(table.as_str().to_owned(), folded.clone());
        }
        Ok(Some(folded))
    }
}

/// `table` resumed from its latest commitment, its last event and its version.
async fn resumed(
    client: &impl GenericClient,
    table: &DiceTableId,
    stream: &StreamId,
) -> Result<Option<DiceTable>, ApiError> {
    let Some(head) = stream_head(client, stream).await? else {
        return Ok(None);
    };
    let committed = latest_seed_event(client, stream, "SeedCommitted")
        .await?
        .ok_or_else(|| corrupt(format!("{stream} commits no seed")))?;
    let last = read_stream(client, stream, head.version, 1)
        .await?
        .pop()
        .ok_or_else(|| corrupt(format!("{stream} has no event at its head")))?;
    DiceTable::resume(
        table.as_str(),
        &decoded(&committed)?,
        committed.stream_version,
        &decoded(&last)?,
        head.version,
    )
    .map(Some)
    .map_err(corrupt)
}

/// A stored event read back as a table's.
pub(crate) fn decoded(recorded: &RecordedEvent) -> Result<DiceTableEvent, ApiError> {
    DiceTableEvent::decode(
        recorded.event_type.as_str(),
        recorded.event_version,
        &recorded.payload,
    )
    .map_err(corrupt)
}
