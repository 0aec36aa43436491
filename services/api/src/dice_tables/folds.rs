//! Dice tables folded and kept in memory, so that a roll or a reveal reads only the events
//! recorded since the table was last folded, not the whole table (which may hold many
//! thousands of rolls). A table's events never change, so a fold is a prefix that stays
//! true; what it lacks is read on the next load.

use std::collections::HashMap;
use std::sync::Mutex;

use warlog_events::dice_table::{DiceTable, DiceTableId};
use warlog_store::GenericClient;

use super::view::read_table_from;
use crate::error::{corrupt, ApiError};

/// Tables kept at most; beyond it, one is forgotten for each one added.
const MAX_TABLES: usize = 10_000;

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
        let cached = self
            .folded
            .lock()
            .ok()
            .and_then(|folded| folded.get(table.as_str()).cloned());
        let stream = table.stream().map_err(corrupt)?;
        let since = cached.as_ref().map_or(0, |t| t.version);
        let events = read_table_from(client, &stream, since + 1).await?;
        let folded = match cached {
            Some(mut folded) => {
                for event in &events {
                    folded.apply(event);
                }
                folded
            }
            None if events.is_empty() => return Ok(None),
            None => DiceTable::fold(table.as_str(), &events).map_err(corrupt)?,
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
