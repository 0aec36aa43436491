//! A roll through the one write path: the table's stream is opened (its first epoch
//! committed) by its first roll, and each roll is mailed to both addresses in the
//! transaction that records it, when the service sends mail.

use std::sync::Arc;

use actix_web::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;
use warlog_events::dice_table::{
    open, roll_mail, DiceAsked, DiceKeys, DiceTable, DiceTableEvent, DiceTableId,
};
use warlog_rules::dice::GameSeed;
use warlog_store::mail::{DirectMail, Recipient};
use warlog_store::{ExpectedVersion, PooledClient};

use super::{refused, table_and_seed, RollMailing};
use crate::error::{corrupt, ApiError, ErrorCode};
use crate::write::{
    fresh_seed, Decision, EventMail, PrivateRow, SeedDuty, StreamAppend, Write, WriteRequest,
};
use crate::AppState;

/// A roll asked of a pair's table.
pub struct DiceRoll {
    pub table: DiceTableId,
    pub asked: DiceAsked,
    pub keys: Arc<DiceKeys>,
    /// How to mail the roll, and to whom (of its two addresses, those the operator allows),
    /// each with the link that stops the dice mail to it where registration made it: none,
    /// it is not mailed. Nothing else keeps the addresses.
    pub mail: Option<(RollMailing, Vec<RollRecipient>)>,
    /// The tag of the client asking, recorded with the roll.
    pub client_tag: String,
    /// The keyed hashes of the two addresses and of their look-alike forms, kept so that
    /// each address's owner can list the tables naming it.
    pub names: Vec<(String, String)>,
}

/// An address a roll is mailed to, and the link in its mail that stops the dice mail to it
/// (where registration made the mail).
pub struct RollRecipient {
    pub address: String,
    pub stop_link: Option<String>,
}

/// Kept out of logs: the address is private, and the link is its secret.
impl std::fmt::Debug for RollRecipient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RollRecipient").finish_non_exhaustive()
    }
}

/// Kept out of logs: the addresses are private.
impl std::fmt::Debug for DiceRoll {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiceRoll")
            .field("table", &self.table)
            .field("asked", &self.asked)
            .finish_non_exhaustive()
    }
}

/// The answer TripleA's client reads: `status`, and the dice in `result`.
#[derive(Debug, Serialize, ToSchema)]
pub struct RollAnswer {
    /// `OK`.
    #[schema(example = "OK")]
    pub status: &'static str,
    pub result: RollResult,
}

/// A roll's dice, each from 1 to `max`, its signature and its date.
#[derive(Debug, Serialize, ToSchema)]
pub struct RollResult {
    pub dice: Vec<u32>,
    /// Ed25519, base64, over the table, the roll's index, the dice and the date (see
    /// `/.well-known/warlog-dice-key`).
    pub signature: String,
    /// Milliseconds since 1970 (UTC); the signed statement gives the same instant in RFC 3339.
    pub date: u64,
}

impl Write for DiceRoll {
    /// The table and its epoch's seed; none for a table that has never rolled.
    type Loaded = Option<(DiceTable, GameSeed)>;
    type Decided = RollAnswer;

    async fn load(
        &self,
        state: &AppState,
        client: &PooledClient,
        _: &WriteRequest,
        _: bool,
    ) -> Result<Self::Loaded, ApiError> {
        table_and_seed(&state.dice, client, &self.table).await
    }

    /// Two first rolls of a pair at once: the one that lost rolls on the table the other made.
    fn onto_a_stream_made_meanwhile(&self) -> bool {
        true
    }

    /// Another roll at the same table was recorded while this one was decided, twice over.
    fn moved_on(&self, _current: u64) -> ApiError {
        ApiError::new(
            ErrorCode::VersionConflict,
            "another roll at this table was made at the same moment: roll again",
        )
    }

    fn decide(
        &self,
        loaded: Self::Loaded,
        request: &WriteRequest,
    ) -> Result<Decision<RollAnswer>, ApiError> {
        let at = request.moment();
        let (mut events, table, seed, expected, duty) = match loaded {
            None => {
                let seed = fresh_seed()?;
                let opened = open(&seed, at);
                let table = DiceTable::fold(self.table.as_str(), &opened).map_err(corrupt)?;
                let duty = SeedDuty::Epochs {
                    revealed: None,
                    begun: Some((table.epoch, seed.clone())),
                };
                (opened, table, seed, ExpectedVersion::NoStream, duty)
            }
            Some((table, seed)) => {
                let expected = ExpectedVersion::Exact(table.version);
                (Vec::new(), table, seed, expected, SeedDuty::None)
            }
        };
        let rolled = table
            .roll(
                self.asked,
                &seed,
                &self.keys,
                at,
                Some(self.client_tag.clone()),
            )
            .map_err(refused)?;
        let roll = rolled
            .first()
            .cloned()
            .ok_or_else(|| corrupt("a roll of no event"))?;
        events.extend(rolled);
        let DiceTableEvent::DiceRolled {
            index,
            dice,
            signature,
            ..
        } = &roll
        else {
            return Err(corrupt("a roll that is not DiceRolled"));
        };
        let mails = match &self.mail {
            Some((mailing, recipients)) => {
                let links = mailing.links(&self.keys, self.table.as_str(), table.epoch);
                let (subject, body) = roll_mail(
                    self.table.as_str(),
                    &roll,
                    &links,
                    &mailing.idle,
                    mailing.note.as_deref(),
                )
                .ok_or_else(|| corrupt("a roll without its mail"))?;
                recipients
                    .iter()
                    .enumerate()
                    .map(|(n, RollRecipient { address, stop_link })| EventMail {
                        event: events.len() - 1,
                        mail: DirectMail::notice(
                            format!("dice-{}.{index}.{}", self.table.as_str(), n + 1),
                            Recipient::Address(address.trim().to_owned()),
                            subject.clone(),
                            match stop_link {
                                Some(stop) => format!(
                                    "{body}\r\nTo stop all dice mail to this address (no roll \
                                     may name it until it is registered again):\r\n{stop}\r\n"
                                ),
                                None => body.clone(),
                            },
                        ),
                    })
                    .collect()
            }
            None => Vec::new(),
        };
        let stream = self.table.stream().map_err(corrupt)?;
        Ok(Decision {
            appends: vec![StreamAppend {
                stream,
                expected,
                events: request.encode_with(&events, DiceTableEvent::encode)?,
                seed: duty,
                mails,
                private: self
                    .names
                    .iter()
                    .map(|(address_key, lookalike_key)| PrivateRow::DiceTableNames {
                        table: self.table.as_str().to_owned(),
                        address_key: address_key.clone(),
                        lookalike_key: lookalike_key.clone(),
                    })
                    .collect(),
            }],
            status: StatusCode::OK,
            decided: RollAnswer {
                status: "OK",
                result: RollResult {
                    dice: dice.clone(),
                    signature: signature.clone(),
                    date: at.unix_seconds().saturating_mul(1000),
                },
            },
        })
    }
}
