//! A dice table as its page and `GET /v1/dice-tables/{table}` show it: the epochs, each
//! with its commitment and, once revealed, its seed, and the rolls, newest first.

use serde::Serialize;
use utoipa::ToSchema;
use warlog_events::dice_table::{date_of, DiceTable, DiceTableEvent, DiceTableId};
use warlog_events::StreamId;
use warlog_store::{read_stream, GenericClient};

use super::folds::decoded;
use crate::error::{corrupt, ApiError};

/// The events of `table`'s stream from version `from` to version `to` (at most
/// [`VIEW_EVENTS`] of them), read back.
pub async fn read_table_between(
    client: &impl GenericClient,
    stream: &StreamId,
    from: u64,
    to: u64,
) -> Result<Vec<DiceTableEvent>, ApiError> {
    let count = to.saturating_sub(from).saturating_add(1).min(VIEW_EVENTS);
    let page = read_stream(client, stream, from, u32::try_from(count).unwrap_or(0)).await?;
    page.iter().map(decoded).collect()
}

/// A dice table: every roll is listed here and exported whole at `events_url`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DiceTableView {
    /// The keyed hash of the table's two addresses (never the addresses).
    pub table: String,
    /// How many events the table's stream holds.
    pub version: u64,
    /// The epoch rolls are drawn under now, and its seed's SHA-256.
    pub epoch: u32,
    pub commitment: String,
    pub rolls: u64,
    /// Rolls since the seed in force was committed: what a reveal would let anyone check.
    pub rolls_unrevealed: u64,
    /// When anyone may have the seed in force revealed (RFC 3339), if it has rolled.
    pub idle_reveal_from: Option<String>,
    /// That idle time, in words.
    pub idle_time: String,
    pub epochs: Vec<EpochView>,
    /// The latest rolls first (every roll is in the export).
    pub latest_rolls: Vec<RollView>,
    /// Whether older events than those shown (older epochs, older rolls) are in the export
    /// only: a view reads the table's latest events, never all of them.
    pub older_in_export: bool,
    /// The table's whole stream as NDJSON, for `warlog audit`.
    pub events_url: String,
    /// The service's public key, which every roll's signature is checked with.
    pub public_key_url: String,
}

/// One epoch: its commitment, published before its first roll, and its seed once revealed.
#[derive(Debug, Serialize, ToSchema)]
pub struct EpochView {
    pub epoch: u32,
    pub commitment: String,
    /// When it was committed; none when that is older than the events a view reads (the
    /// export has it).
    pub committed_at: Option<String>,
    pub seed: Option<String>,
    pub revealed_at: Option<String>,
}

/// One roll.
#[derive(Debug, Serialize, ToSchema)]
pub struct RollView {
    /// Its place in the table's stream; the signature covers it.
    pub index: u64,
    pub epoch: u32,
    pub times: u32,
    pub max: u32,
    pub dice: Vec<u32>,
    /// RFC 3339, UTC: the date the signature covers.
    pub date: String,
    /// Ed25519, base64, over the table, index, dice and date.
    pub signature: String,
    /// Which client asked for the roll: a short tag, the same for every roll one client
    /// (one network) makes at this table, so the players can tell their own and each
    /// other's rolls from a stranger's. Never the client's address. None for rolls made
    /// before rolls were tagged.
    #[schema(example = "3f9a0c21")]
    pub client: Option<String>,
}

/// Rolls a view lists.
pub const LATEST_ROLLS: usize = 200;

/// Events a view reads: the latest, whatever the table's size, so a view's cost is bounded.
pub const VIEW_EVENTS: u64 = 400;

impl DiceTableView {
    /// The view of `folded` with `latest`, its latest events, from version `from` on.
    pub fn of(
        folded: &DiceTable,
        latest: &[DiceTableEvent],
        from: u64,
        idle_seconds: u64,
        idle_time: String,
    ) -> Result<DiceTableView, ApiError> {
        let table = DiceTableId::try_from(folded.table.as_str()).map_err(corrupt)?;
        let mut epochs: Vec<EpochView> = Vec::new();
        let mut rolls = Vec::new();
        for event in latest {
            match event {
                DiceTableEvent::SeedCommitted {
                    epoch,
                    commitment,
                    at,
                } => epochs.push(EpochView {
                    epoch: *epoch,
                    commitment: commitment.clone(),
                    committed_at: Some(date_of(*at)),
                    seed: None,
                    revealed_at: None,
                }),
                DiceTableEvent::SeedRevealed { epoch, seed, at } => {
                    // An epoch committed before the events read is shown by its seed, whose
                    // SHA-256 is its commitment.
                    if !epochs.iter().any(|e| e.epoch == *epoch) {
                        epochs.push(EpochView {
                            epoch: *epoch,
                            commitment: commitment_of(seed),
                            committed_at: None,
                            seed: None,
                            revealed_at: None,
                        });
                    }
                    if let Some(view) = epochs.iter_mut().find(|e| e.epoch == *epoch) {
                        view.seed = Some(seed.clone());
                        view.revealed_at = Some(date_of(*at));
                    }
                }
                DiceTableEvent::DiceRolled {
                    epoch,
                    index,
                    times,
                    max,
                    dice,
                    at,
                    signature,
                    client,
                } => rolls.push(RollView {
                    client: client.clone(),
                    index: *index,
                    epoch: *epoch,
                    times: *times,
                    max: *max,
                    dice: dice.clone(),
                    date: date_of(*at),
                    signature: signature.clone(),
                }),
            }
        }
        // The epoch in force began before the events read: the fold knows it.
        if !epochs.iter().any(|e| e.epoch == folded.epoch) {
            epochs.push(EpochView {
                epoch: folded.epoch,
                commitment: folded.commitment.clone(),
                committed_at: Some(date_of(folded.committed_at)),
                seed: None,
                revealed_at: None,
            });
        }
        rolls.reverse();
        rolls.truncate(LATEST_ROLLS);
        let stream = table.stream().map_err(corrupt)?;
        Ok(DiceTableView {
            table: table.as_str().to_owned(),
            version: folded.version,
            epoch: folded.epoch,
            commitment: folded.commitment.clone(),
            rolls: folded.rolls,
            rolls_unrevealed: folded.epoch_rolls,
            idle_reveal_from: (folded.epoch_rolls > 0)
                .then(|| date_of(folded.idle_reveal_from(idle_seconds))),
            idle_time,
            epochs,
            latest_rolls: rolls,
            older_in_export: from > 1,
            events_url: format!("/v1/streams/{stream}/events"),
            public_key_url: super::PUBLIC_KEY_PATH.to_owned(),
        })
    }
}

/// The SHA-256 of a seed given in hex, in hex.
fn commitment_of(seed: &str) -> String {
    hex::decode(seed)
        .map(|bytes| hex::encode(<sha2::Sha256 as sha2::Digest>::digest(bytes)))
        .unwrap_or_default()
}
