//! A reveal through the one write path: the epoch's seed shown and the next epoch
//! committed, in one append, as the table decides ([`DiceTable::reveal`]).

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::HttpRequest;
use serde::Serialize;
use utoipa::ToSchema;
use warlog_events::dice_table::{DiceKeys, DiceTable, DiceTableEvent, DiceTableId, RevealAsked};
use warlog_rules::dice::GameSeed;
use warlog_store::{ExpectedVersion, PooledClient};

use super::{parse_table, refused, table_and_seed};
use crate::error::{corrupt, ApiError, ErrorCode};
use crate::write::{self, fresh_seed, Decision, SeedDuty, StreamAppend, Write, WriteRequest};
use crate::AppState;

/// Reveals `raw`'s seed, by the link's `token` or after the idle time: the API's reveal and
/// the reveal page's form alike.
pub(crate) async fn reveal(
    req: &HttpRequest,
    state: &AppState,
    raw: &str,
    token: Option<String>,
) -> Result<serde_json::Value, ApiError> {
    let (table, _) = parse_table(raw)?;
    let keys = state.dice.keys(state.store.pool()).await?;
    let reveal = DiceReveal {
        table,
        asked: match token.filter(|t| !t.trim().is_empty()) {
            Some(token) => RevealAsked::ByLink(token.trim().to_owned()),
            None => RevealAsked::AfterIdle,
        },
        keys,
        idle_seconds: state.dice.settings.idle_seconds,
    };
    let request = WriteRequest::anonymous(req, raw.as_bytes());
    Ok(write::run(state, &request, &reveal).await?.body)
}

/// A reveal asked of a table.
#[derive(Debug)]
pub struct DiceReveal {
    pub table: DiceTableId,
    pub asked: RevealAsked,
    pub keys: Arc<DiceKeys>,
    pub idle_seconds: u64,
}

/// A seed revealed: every roll of its epoch can be recomputed now; the table rolls on under
/// the next epoch's seed, committed here.
#[derive(Debug, Serialize, ToSchema)]
pub struct RevealAnswer {
    pub table: String,
    pub epoch: u32,
    /// The seed, 64 hex digits.
    pub seed: String,
    pub rolls_revealed: u64,
    pub next_epoch: u32,
    pub next_commitment: String,
}

impl Write for DiceReveal {
    type Loaded = (DiceTable, GameSeed);
    type Decided = RevealAnswer;

    async fn load(
        &self,
        state: &AppState,
        client: &PooledClient,
        _: &WriteRequest,
        _: bool,
    ) -> Result<Self::Loaded, ApiError> {
        table_and_seed(&state.dice, client, &self.table)
            .await?
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::DiceTableNotFound,
                    format!(
                        "no dice table {} (it has never rolled)",
                        self.table.as_str()
                    ),
                )
            })
    }

    /// A roll or another reveal was recorded while this one was decided, twice over.
    fn moved_on(&self, _current: u64) -> ApiError {
        ApiError::new(
            ErrorCode::VersionConflict,
            "the table rolled or was revealed at the same moment: look at it again",
        )
    }

    fn decide(
        &self,
        (table, seed): Self::Loaded,
        request: &WriteRequest,
    ) -> Result<Decision<RevealAnswer>, ApiError> {
        let next = fresh_seed()?;
        let events = table
            .reveal(
                &self.asked,
                &self.keys,
                self.idle_seconds,
                (&seed, &next),
                request.moment(),
            )
            .map_err(refused)?;
        let (revealed, committed) = match events.as_slice() {
            [DiceTableEvent::SeedRevealed { seed, .. }, DiceTableEvent::SeedCommitted {
                epoch, commitment, ..
            }] => (seed.clone(), (*epoch, commitment.clone())),
            _ => {
                return Err(corrupt(
                    "a reveal that is not a seed revealed and committed",
                ))
            }
        };
        Ok(Decision {
            appends: vec![StreamAppend {
                stream: self.table.stream().map_err(corrupt)?,
                expected: ExpectedVersion::Exact(table.version),
                events: request.encode_with(&events, DiceTableEvent::encode)?,
                seed: SeedDuty::Epochs {
                    revealed: Some(table.epoch),
                    begun: Some((committed.0, next)),
                },
                mails: Vec::new(),
                private: Vec::new(),
            }],
            status: StatusCode::OK,
            decided: RevealAnswer {
                table: table.table.clone(),
                epoch: table.epoch,
                seed: revealed,
                rolls_revealed: table.epoch_rolls,
                next_epoch: committed.0,
                next_commitment: committed.1,
            },
        })
    }
}
