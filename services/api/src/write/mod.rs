//! The one write path every aggregate takes (games, tournaments, players, rulesets), read
//! top to bottom in [`run`]:
//!
//! 1. a keyed request that was answered before gets its first answer again;
//! 2. [`Write::load`] reads the aggregate (and whatever else its decision needs);
//! 3. [`Write::decide`] has the domain decide the command, and says what to append to which
//!    streams (with the version each was read at);
//! 4. [`commit`] appends every stream, keeps or reveals dice seeds, and records the answer
//!    ([`Answer`]) under the idempotency key, all in one transaction;
//! 5. a lost race (a stream moved on) is decided again once from a fresh read, unless the
//!    client stated the version it expected (then it is theirs to handle: 409, or 412 for
//!    `If-Match`) or the stream was to be new (it exists now, and will on a second try).
//!
//! Events are encoded once, with the request's metadata. Handlers build the command (a
//! value implementing [`Write`]), a [`WriteRequest`], and call [`run`]; nothing else.

mod answer;
mod fresh;
mod request;

pub use answer::WriteAnswer;
pub(crate) use fresh::{fresh_seed, new_id};
pub(crate) use request::expectation;
pub use request::{Expected, WriteRequest};

use actix_web::http::StatusCode;
use warlog_events::{NewEvent, StreamId};
use warlog_rules::dice::GameSeed;
use warlog_store::dice_addresses::name_table;
use warlog_store::dice_tables::{mark_epoch_revealed, save_epoch_seed};
use warlog_store::idempotency::{record_response, recorded_response};
use warlog_store::mail::{enqueue_direct_mail, DirectMail};
use warlog_store::seeds::{mark_seed_revealed, save_seed};
use warlog_store::{
    append_checking_token, stream_head, AppendOutcome, ExpectedVersion, GenericClient,
    PooledClient, StoreError,
};

use crate::error::{ApiError, ErrorCode};
use crate::AppState;

/// One kind of write: what [`run`] needs to know of an aggregate's command.
pub(crate) trait Write {
    /// What the decision reads: the aggregate folded, and anything else it needs.
    type Loaded;
    /// What the answer is made from ([`Answer`]), and what [`Write::committed`] needs.
    type Decided: Answer;

    /// Reads what the decision needs; `fresh` after a lost race, when no cache is to be
    /// trusted.
    async fn load(
        &self,
        state: &AppState,
        client: &PooledClient,
        request: &WriteRequest,
        fresh: bool,
    ) -> Result<Self::Loaded, ApiError>;

    /// Decides the command on what was loaded: what to append, and what the answer needs.
    fn decide(
        &self,
        loaded: Self::Loaded,
        request: &WriteRequest,
    ) -> Result<Decision<Self::Decided>, ApiError>;

    /// What losing the race twice means when the client stated no version, the stream
    /// having moved on to `current`.
    fn moved_on(&self, current: u64) -> ApiError {
        Expected::Unstated.mismatch(current)
    }

    /// Whether a write that meant to make a new stream, made meanwhile by another, is
    /// decided again on it (a dice table's first roll: the next roll goes on the table
    /// made); else it is refused (a handle taken stays taken).
    fn onto_a_stream_made_meanwhile(&self) -> bool {
        false
    }

    /// Done once the write committed (a fold kept in a cache).
    fn committed(&self, _state: &AppState, _decided: Self::Decided) {}
}

/// The body of a write's answer, made from what was decided, the appends and where their
/// events landed (one outcome per append; none when there was nothing to append).
pub(crate) trait Answer {
    fn answer(
        &self,
        appends: &[StreamAppend],
        outcomes: &[AppendOutcome],
    ) -> Result<serde_json::Value, ApiError>;
}

/// A view decided before the append (a new game, a player, a tournament's answer) is the
/// answer as it stands.
impl<T: serde::Serialize> Answer for T {
    fn answer(
        &self,
        _: &[StreamAppend],
        _: &[AppendOutcome],
    ) -> Result<serde_json::Value, ApiError> {
        serde_json::to_value(self).map_err(crate::error::corrupt)
    }
}

/// What a command decided: the appends (all in one transaction; none when the aggregate is
/// as asked already), the answer's status, and what the answer is made from.
#[derive(Debug)]
pub(crate) struct Decision<D> {
    pub appends: Vec<StreamAppend>,
    pub status: StatusCode,
    pub decided: D,
}

/// What a write does with a stream's dice seed besides appending.
#[derive(Debug, Clone)]
pub(crate) enum SeedDuty {
    None,
    /// A new stream with dice: keep its seed (secret until revealed).
    Save(GameSeed),
    /// The events reveal the seed: note when.
    Revealed,
    /// A dice table's epochs: the one whose seed the events reveal, and the one they begin
    /// (its seed to keep secret until revealed).
    Epochs {
        revealed: Option<u32>,
        begun: Option<(u32, GameSeed)>,
    },
}

/// A mail about one of an append's events (its index among them), made in the append's
/// transaction so that it is sent if and only if the event is recorded.
#[derive(Debug, Clone)]
pub(crate) struct EventMail {
    pub event: usize,
    pub mail: DirectMail,
}

/// A row the service keeps beside an append's events, private to it (never shown or
/// exported), written in the append's transaction.
#[derive(Debug, Clone)]
pub(crate) enum PrivateRow {
    /// A dice table names an address (by its keyed hashes), so that the address's owner
    /// can list the tables naming it.
    DiceTableNames {
        table: String,
        address_key: String,
        lookalike_key: String,
    },
}

/// One stream's part of a write.
#[derive(Debug, Clone)]
pub(crate) struct StreamAppend {
    pub stream: StreamId,
    pub expected: ExpectedVersion,
    pub events: Vec<NewEvent>,
    pub seed: SeedDuty,
    pub mails: Vec<EventMail>,
    pub private: Vec<PrivateRow>,
}

impl StreamAppend {
    /// A new stream with dice, drawn for it now: its first events, and its seed to keep
    /// secret until revealed. The stream must not exist yet.
    pub(crate) fn new_with_seed(stream: StreamId, events: Vec<NewEvent>, seed: GameSeed) -> Self {
        StreamAppend {
            stream,
            expected: ExpectedVersion::NoStream,
            events,
            seed: SeedDuty::Save(seed),
            mails: Vec::new(),
            private: Vec::new(),
        }
    }
}

/// Runs a write: the first answer again for a repeated key; else load, decide and commit,
/// decided again once if a stream moved on and the client stated no version.
pub(crate) async fn run<W: Write>(
    state: &AppState,
    request: &WriteRequest,
    write: &W,
) -> Result<WriteAnswer, ApiError> {
    let mut client = state.store.pool().get().await.map_err(StoreError::from)?;
    if let Some(answer) = replayed(&client, request).await? {
        return Ok(answer);
    }
    let mut fresh = false;
    loop {
        let loaded = write.load(state, &client, request, fresh).await?;
        let decision = write.decide(loaded, request)?;
        if decision.appends.is_empty() {
            // Nothing happened: answered at once, and not recorded under the key.
            let body = decision.decided.answer(&[], &[])?;
            return Ok(WriteAnswer::first(decision.status, body));
        }
        match commit(state, &mut client, request, &decision).await? {
            Attempt::Answered(answer) => {
                write.committed(state, decision.decided);
                return Ok(answer);
            }
            Attempt::Lost { retry_helps, .. }
                if (retry_helps || write.onto_a_stream_made_meanwhile())
                    && request.expected == Expected::Unstated
                    && !fresh =>
            {
                fresh = true
            }
            Attempt::Lost { stream, .. } => {
                let current = stream_head(&client, &stream)
                    .await?
                    .map_or(0, |h| h.version);
                return Err(match request.expected {
                    Expected::Unstated => write.moved_on(current),
                    stated => stated.mismatch(current),
                });
            }
        }
    }
}

/// The first answer to this request's idempotency key, if it was used before.
async fn replayed(
    client: &impl GenericClient,
    request: &WriteRequest,
) -> Result<Option<WriteAnswer>, ApiError> {
    let Some(key) = &request.key else {
        return Ok(None);
    };
    let Some(first) = recorded_response(client, key.as_str()).await? else {
        return Ok(None);
    };
    if first.fingerprint != request.fingerprint {
        return Err(ApiError::new(
            ErrorCode::IdempotencyKeyReused,
            format!(
                "idempotency key {:?} was used for a different request",
                key.as_str()
            ),
        ));
    }
    Ok(Some(WriteAnswer::replayed(first.status, first.body)))
}

/// How one attempt at a write ended.
enum Attempt {
    Answered(WriteAnswer),
    /// A stream had moved on; nothing was written.
    Lost {
        stream: StreamId,
        /// Whether deciding again could change the outcome: not when the stream was to be
        /// new (a handle taken stays taken).
        retry_helps: bool,
    },
}

/// Appends every stream of the decision (with its seed duty, checking the caller's token
/// if it is to be checked) and records the answer, in one transaction. A single append
/// with nothing else to write (no key, no seed) is one statement, which is a transaction of
/// its own: no BEGIN and COMMIT round trips.
async fn commit(
    state: &AppState,
    client: &mut PooledClient,
    request: &WriteRequest,
    decision: &Decision<impl Answer>,
) -> Result<Attempt, ApiError> {
    let appends = &decision.appends;
    let alone = appends.len() == 1
        && request.key.is_none()
        && matches!(appends[0].seed, SeedDuty::None)
        && appends[0].mails.is_empty()
        && appends[0].private.is_empty();
    let body = if alone {
        let outcomes = match append_all(&*client, appends, request).await? {
            Ok(outcomes) => outcomes,
            Err(lost) => return Ok(lost),
        };
        decision.decided.answer(appends, &outcomes)?
    } else {
        let tx = client.transaction().await.map_err(StoreError::from)?;
        let outcomes = match append_all(&tx, appends, request).await? {
            Ok(outcomes) => outcomes,
            Err(lost) => return Ok(lost),
        };
        let body = decision.decided.answer(appends, &outcomes)?;
        if let Some(key) = &request.key {
            let recorded = record_response(
                &tx,
                key.as_str(),
                &request.fingerprint,
                decision.status.as_u16(),
                &body,
            )
            .await;
            match recorded {
                Ok(()) => {}
                // The same request, sent twice at once: the other one answered first.
                Err(StoreError::IdempotencyRace) => {
                    drop(tx);
                    let first = replayed(&*client, request).await?.ok_or_else(|| {
                        ApiError::new(ErrorCode::Internal, "an idempotency race left no answer")
                    })?;
                    return Ok(Attempt::Answered(first));
                }
                Err(e) => return Err(e.into()),
            }
        }
        tx.commit().await.map_err(StoreError::from)?;
        body
    };
    state
        .store
        .committed(appends.iter().map(|a| a.events.len()).sum());
    // A reader that brings this back is not served by a standby that has not caught up.
    let consistency = match &state.reads {
        Some(_) => Some(warlog_store::replica::current_lsn(&*client).await?),
        None => None,
    };
    Ok(Attempt::Answered(WriteAnswer {
        consistency,
        token_checked: request.token_to_check.is_some(),
        ..WriteAnswer::first(decision.status, body)
    }))
}

/// Each append with its seed duty (checking the caller's token, if it is to be checked);
/// `Err` the attempt lost, when a stream moved on.
async fn append_all(
    client: &impl GenericClient,
    appends: &[StreamAppend],
    request: &WriteRequest,
) -> Result<Result<Vec<AppendOutcome>, Attempt>, ApiError> {
    let mut outcomes = Vec::with_capacity(appends.len());
    for append in appends {
        let token = request.token_to_check.as_ref();
        match append_checking_token(
            client,
            &append.stream,
            append.expected,
            &append.events,
            token,
        )
        .await
        {
            Ok(outcome) => {
                // After the append, in its transaction: a stream another write made
                // meanwhile is a lost race, never a seed or a mail kept twice.
                keep_seeds(client, append).await?;
                for EventMail { event, mail } in &append.mails {
                    let Some(recorded) = outcome.events.get(*event) else {
                        return Err(ApiError::new(
                            ErrorCode::Internal,
                            "a mail names an event its append does not hold",
                        ));
                    };
                    enqueue_direct_mail(client, mail, &recorded.event_id, recorded.position)
                        .await?;
                }
                for row in &append.private {
                    keep_private(client, row).await?;
                }
                outcomes.push(outcome);
            }
            Err(StoreError::Conflict { stream, .. }) => {
                return Ok(Err(Attempt::Lost {
                    stream,
                    retry_helps: append.expected != ExpectedVersion::NoStream,
                }))
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(Ok(outcomes))
}

/// Keeps a private row.
async fn keep_private(client: &impl GenericClient, row: &PrivateRow) -> Result<(), ApiError> {
    match row {
        PrivateRow::DiceTableNames {
            table,
            address_key,
            lookalike_key,
        } => name_table(client, table, address_key, lookalike_key).await?,
    }
    Ok(())
}

/// What an append does with its stream's seeds: keeps a new one, notes a reveal.
async fn keep_seeds(client: &impl GenericClient, append: &StreamAppend) -> Result<(), ApiError> {
    match &append.seed {
        SeedDuty::Save(seed) => save_seed(client, &append.stream, seed).await?,
        SeedDuty::Revealed => mark_seed_revealed(client, &append.stream).await?,
        SeedDuty::Epochs { revealed, begun } => {
            if let Some(epoch) = revealed {
                mark_epoch_revealed(client, &append.stream, *epoch).await?;
            }
            if let Some((epoch, seed)) = begun {
                save_epoch_seed(client, &append.stream, *epoch, seed).await?;
            }
        }
        SeedDuty::None => {}
    }
    Ok(())
}
