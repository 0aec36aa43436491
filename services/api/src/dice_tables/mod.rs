//! Dice tables for TripleA players (issue 38), the service's side: the keys (drawn once,
//! kept by the store, read on first use), the settings an operator gives, the limits, and
//! the two writes, a roll ([`DiceRoll`]) and a reveal ([`DiceReveal`]). What a table is and
//! what it may do is decided in `warlog_events::dice_table`.

mod reveal;
mod roll;
mod view;

pub use reveal::{DiceReveal, RevealAnswer};
pub use roll::{DiceRoll, RollAnswer, RollResult};
pub use view::{read_table, DiceTableView, EpochView, RollView};

use std::sync::Arc;

use tokio::sync::OnceCell;
use warlog_events::dice_table::{idle_in_words, DiceKeys, DiceTableError, DiceTableId, RollLinks};
use warlog_events::StreamId;
use warlog_store::dice_tables::{service_secret, SIGNING_SEED, TABLE_KEY};
use warlog_store::GenericClient;

use crate::error::{ApiError, ErrorCode};
use crate::public_url::PublicUrl;
use crate::rate_limit::RateLimit;

/// Hours a table must have been idle before anyone may reveal its seed.
pub const DEFAULT_IDLE_HOURS: u64 = 7 * 24;
/// Rolls a minute from one client, over every table.
pub const DEFAULT_ROLLS_PER_MINUTE: u32 = 120;
/// Rolls a minute at one table, whoever asks.
pub const DEFAULT_TABLE_ROLLS_PER_MINUTE: u32 = 60;

/// Where the service's public key is published.
pub const PUBLIC_KEY_PATH: &str = "/.well-known/warlog-dice-key";

/// What the operator decides about dice tables.
#[derive(Debug, Clone)]
pub struct DiceSettings {
    /// How long a table must not roll before anyone may reveal its seed.
    pub idle_seconds: u64,
    /// Whether rolls are mailed (the service has a mail server to send through).
    pub mail: bool,
}

impl Default for DiceSettings {
    fn default() -> Self {
        DiceSettings {
            idle_seconds: DEFAULT_IDLE_HOURS * 3600,
            mail: false,
        }
    }
}

/// The dice tables' keys, settings and limits.
#[derive(Debug)]
pub struct DiceTables {
    pub settings: DiceSettings,
    /// Rolls per client, over every table.
    pub per_client: RateLimit,
    /// Rolls per table, whoever asks.
    pub per_table: RateLimit<String>,
    keys: OnceCell<Arc<DiceKeys>>,
}

impl Default for DiceTables {
    fn default() -> Self {
        DiceTables::new(
            DiceSettings::default(),
            DEFAULT_ROLLS_PER_MINUTE,
            DEFAULT_TABLE_ROLLS_PER_MINUTE,
        )
    }
}

impl DiceTables {
    /// `0` for either limit: none.
    pub fn new(settings: DiceSettings, per_client: u32, per_table: u32) -> Self {
        DiceTables {
            settings,
            per_client: RateLimit::per_minute(per_client),
            per_table: RateLimit::per_minute(per_table),
            keys: OnceCell::new(),
        }
    }

    /// The service's keys: read from the store the first time (drawn and kept there if no
    /// replica drew them before), then from memory.
    pub async fn keys(&self, client: &impl GenericClient) -> Result<Arc<DiceKeys>, ApiError> {
        self.keys
            .get_or_try_init(|| async {
                let table_key = service_secret(client, TABLE_KEY, random_bytes()?).await?;
                let signing = service_secret(client, SIGNING_SEED, random_bytes()?).await?;
                DiceKeys::from_secrets(table_key, signing)
                    .map(Arc::new)
                    .map_err(|e| ApiError::new(ErrorCode::Internal, e))
            })
            .await
            .cloned()
    }

    /// The idle time, in words (`7 days`).
    pub fn idle_in_words(&self) -> String {
        idle_in_words(self.settings.idle_seconds)
    }
}

/// How rolls are mailed: where their links point (absolute with the service's public
/// address, else paths), and the idle time in words.
#[derive(Debug, Clone)]
pub struct RollMailing {
    pub public_url: Option<PublicUrl>,
    pub idle: String,
}

impl RollMailing {
    /// Where a roll's mail points, for `table`'s epoch `epoch`.
    pub fn links(&self, keys: &DiceKeys, table: &str, epoch: u32) -> RollLinks {
        let link = |path: String| match &self.public_url {
            Some(base) => base.join(&path),
            None => path,
        };
        RollLinks {
            table_page: link(format!("/dice/{table}")),
            public_key: link(PUBLIC_KEY_PATH.to_owned()),
            reveal: link(format!(
                "/dice/{table}/reveal?token={}",
                keys.reveal_token(table, epoch)
            )),
        }
    }
}

fn random_bytes() -> Result<[u8; 32], ApiError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("no OS randomness: {e}")))?;
    Ok(bytes)
}

/// The table a path names, and its stream; a path that cannot name one is a table not found.
pub fn parse_table(raw: &str) -> Result<(DiceTableId, StreamId), ApiError> {
    let table = DiceTableId::try_from(raw)
        .map_err(|why| ApiError::new(ErrorCode::DiceTableNotFound, why))?;
    let stream = table
        .stream()
        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
    Ok((table, stream))
}

/// A table's refusal, answered with its code.
pub(crate) fn refused(error: DiceTableError) -> ApiError {
    let code = match &error {
        DiceTableError::RevealRefused(_) => ErrorCode::RevealRefused,
        DiceTableError::NothingToReveal(_) => ErrorCode::NothingToReveal,
        DiceTableError::WrongSeed(_) | DiceTableError::Record(_) => ErrorCode::Internal,
    };
    ApiError::new(code, error.to_string())
}
