//! The one write path every resource takes (games, tournaments, players, rulesets):
//!
//! 1. a keyed request that was answered before gets its first answer again;
//! 2. the resource's `plan` loads what it needs, decides in the domain, and says what to
//!    append to which streams (with the version each was read at) and how to answer;
//! 3. [`execute`] appends every stream, keeps or reveals dice seeds, and records the
//!    answer under the idempotency key, all in one transaction;
//! 4. a lost race (a stream moved on) is decided again once from the new state, unless the
//!    client stated the version it expected (then it is theirs to handle: 409, or 412 for
//!    `If-Match`) or the stream was to be new (it exists now, and will on a second try).
//!
//! Events are encoded once, with the request's metadata, and applied once, by the domain.

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Serialize;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use uuid::Uuid;
use warlog_events::{EventDecodeError, EventType, IdempotencyKey, Metadata, NewEvent, StreamId};
use warlog_rules::dice::GameSeed;
use warlog_rules::game::Moment;
use warlog_store::games::{mark_seed_revealed, record_response, recorded_response, save_seed};
use warlog_store::{
    append_checking_token, stream_head, AppendOutcome, ExpectedVersion, GenericClient,
    PooledClient, StoreError,
};

use crate::auth::{Identity, TokenChecked, WritingCaller};
use crate::error::{corrupt, ApiError, ErrorCode};
use crate::AppState;

/// What version of a stream the client based its request on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// Nothing stated: the server folds the latest state (and retries a lost race once).
    Unstated,
    /// `expected_version` in the body: a mismatch is 409.
    Body(u64),
    /// `If-Match`: a mismatch is 412.
    IfMatch(u64),
}

impl Expected {
    pub(crate) fn mismatch(self, current: u64) -> ApiError {
        match self {
            Expected::IfMatch(v) => ApiError::new(
                ErrorCode::PreconditionFailed,
                format!("If-Match names version {v}; the game is at version {current}"),
            ),
            Expected::Body(v) => ApiError::new(
                ErrorCode::VersionConflict,
                format!(
                    "the request was written for version {v}; the game is at version {current}"
                ),
            ),
            Expected::Unstated => ApiError::new(
                ErrorCode::VersionConflict,
                format!("the game moved on to version {current} while this request was decided"),
            ),
        }
        .with_current_version(current)
    }

    /// Refuses at once a request written for another version than `current`.
    pub(crate) fn check(self, current: u64) -> Result<(), ApiError> {
        match self {
            Expected::Body(v) | Expected::IfMatch(v) if v != current => Err(self.mismatch(current)),
            _ => Ok(()),
        }
    }
}

/// Everything about a write besides what it decides.
#[derive(Debug, Clone)]
pub struct WriteRequest {
    pub caller: Identity,
    pub key: Option<IdempotencyKey>,
    /// SHA-256 of caller, method, path and body: the same key with other content is 422.
    pub fingerprint: [u8; 32],
    pub expected: Expected,
    pub now: OffsetDateTime,
    /// The hash of the caller's token when the caller was remembered, not looked up: the
    /// write checks it in the statement that writes (see [`WritingCaller`]).
    pub token_to_check: Option<[u8; 32]>,
}

impl WriteRequest {
    /// The write an HTTP request asks for: its caller's idempotency key (each caller's
    /// keys are their own), its fingerprint, and the service's time.
    pub fn of(
        req: &HttpRequest,
        caller: &Identity,
        raw: &[u8],
        expected: Expected,
    ) -> Result<WriteRequest, ApiError> {
        let key = req
            .headers()
            .get("Idempotency-Key")
            .map(|v| {
                v.to_str()
                    .map_err(|_| ApiError::malformed("Idempotency-Key is not text"))
                    .and_then(|k| {
                        IdempotencyKey::try_from(k)
                            .map(|key| key.for_caller(&caller.actor()))
                            .map_err(|e| ApiError::malformed(format!("Idempotency-Key: {e}")))
                    })
            })
            .transpose()?;
        Ok(WriteRequest {
            caller: caller.clone(),
            key,
            fingerprint: Self::fingerprint_of(caller, req.method().as_str(), req.path(), raw),
            expected,
            now: req
                .app_data::<web::Data<AppState>>()
                .map_or_else(OffsetDateTime::now_utc, |state| state.clock.now()),
            token_to_check: None,
        })
    }

    /// The write of a [`WritingCaller`]: as [`WriteRequest::of`], the token checked in the
    /// write if the caller was remembered.
    pub fn by(
        req: &HttpRequest,
        caller: &WritingCaller,
        raw: &[u8],
        expected: Expected,
    ) -> Result<WriteRequest, ApiError> {
        Ok(WriteRequest {
            token_to_check: caller.token_to_check,
            ..Self::of(req, caller.caller.require()?, raw, expected)?
        })
    }

    pub fn fingerprint_of(caller: &Identity, method: &str, path: &str, body: &[u8]) -> [u8; 32] {
        let mut digest = Sha256::new();
        for part in [
            caller.actor().as_bytes(),
            method.as_bytes(),
            path.as_bytes(),
            body,
        ] {
            digest.update((part.len() as u64).to_be_bytes());
            digest.update(part);
        }
        digest.finalize().into()
    }

    pub fn moment(&self) -> Moment {
        Moment::from_unix_seconds(u64::try_from(self.now.unix_timestamp()).unwrap_or(0))
    }

    fn metadata(&self) -> Metadata {
        let mut metadata = Metadata::recorded_at(self.now).with_actor(self.caller.actor());
        metadata.idempotency_key = self.key.clone();
        metadata.correlation_id = Some(Uuid::new_v4());
        metadata
    }

    /// Events of any stream, each encoded by `encode`, with this request's metadata.
    pub(crate) fn encode_with<E>(
        &self,
        events: &[E],
        encode: impl Fn(&E) -> Result<(EventType, u32, serde_json::Value), EventDecodeError>,
    ) -> Result<Vec<NewEvent>, ApiError> {
        let metadata = self.metadata();
        events
            .iter()
            .map(|event| {
                let (event_type, version, payload) = encode(event).map_err(corrupt)?;
                Ok(NewEvent::new(
                    Uuid::new_v4(),
                    event_type,
                    version,
                    payload,
                    &metadata,
                ))
            })
            .collect()
    }
}

/// The answer to a write, and whether it is the first answer replayed.
#[derive(Debug, Clone)]
pub struct WriteAnswer {
    pub status: StatusCode,
    pub body: serde_json::Value,
    pub replayed: bool,
    /// With a standby for reads: the primary's WAL position after the write committed.
    pub consistency: Option<String>,
    /// Whether the write checked the caller's token (a remembered caller's).
    pub token_checked: bool,
}

impl WriteAnswer {
    /// The HTTP response: the body, `ETag` when it names a version, `Location` when given,
    /// `Idempotent-Replayed` on a replay, and the consistency token.
    pub fn respond(self, location: Option<String>) -> HttpResponse {
        let mut response = HttpResponse::build(self.status);
        if self.token_checked {
            response.extensions_mut().insert(TokenChecked);
        }
        if self.replayed {
            response.insert_header(("Idempotent-Replayed", "true"));
        }
        if let Some(version) = self.body.get("version").and_then(|v| v.as_u64()) {
            response.insert_header((header::ETAG, format!("\"{version}\"")));
        }
        if let Some(location) = location {
            response.insert_header((header::LOCATION, location));
        }
        if let Some(token) = self.consistency {
            response.insert_header((crate::CONSISTENCY_TOKEN, token));
        }
        response.json(self.body)
    }
}

/// A fresh seed from the OS for a new game or tournament: the one place seeds are drawn.
pub(crate) fn fresh_seed() -> Result<GameSeed, ApiError> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("no OS randomness: {e}")))?;
    Ok(GameSeed::from_bytes(seed))
}

/// A new, time-ordered id (listing by id lists oldest first).
pub(crate) fn new_id() -> String {
    Uuid::now_v7().simple().to_string()
}

/// What a write does with a stream's dice seed besides appending.
#[derive(Debug, Clone)]
pub(crate) enum SeedDuty {
    None,
    /// A new stream with dice: keep its seed (secret until revealed).
    Save(GameSeed),
    /// The events reveal the seed: note when.
    Revealed,
}

/// One stream's part of a write.
#[derive(Debug, Clone)]
pub(crate) struct StreamAppend {
    pub stream: StreamId,
    pub expected: ExpectedVersion,
    pub events: Vec<NewEvent>,
    pub seed: SeedDuty,
}

/// Renders a write's answer from its appends and where their events landed (one outcome
/// per append), so the events are encoded once and not copied for the answer.
pub(crate) type Render =
    Box<dyn FnOnce(&[StreamAppend], &[AppendOutcome]) -> Result<serde_json::Value, ApiError>>;

/// What a decision writes: the appends, in one transaction, and the answer.
pub(crate) struct Plan {
    pub appends: Vec<StreamAppend>,
    pub status: StatusCode,
    pub render: Render,
    /// Run once the transaction committed (a fold kept in a cache).
    pub committed: Option<Box<dyn FnOnce()>>,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan")
            .field("appends", &self.appends)
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

impl Plan {
    /// One append whose answer is `body`.
    pub(crate) fn single(append: StreamAppend, status: StatusCode, body: impl Serialize) -> Plan {
        Plan {
            appends: vec![append],
            ..Plan::nothing(status, body)
        }
    }

    /// A decision that appends nothing (the resource is as asked already): answered at
    /// once, and not recorded under the key, since nothing happened.
    pub(crate) fn nothing(status: StatusCode, body: impl Serialize) -> Plan {
        let body = serde_json::to_value(body).map_err(corrupt);
        Plan {
            appends: Vec::new(),
            status,
            render: Box::new(move |_, _| body),
            committed: None,
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
    Ok(Some(WriteAnswer {
        status: StatusCode::from_u16(first.status).unwrap_or(StatusCode::OK),
        body: first.body,
        replayed: true,
        consistency: None,
        token_checked: false,
    }))
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

/// Runs a write: the first answer again for a repeated key; else `plan` (given the
/// connection the write uses) and its commit, decided again once if a stream moved on and
/// the client stated no version. `moved_on` says what a race lost twice means here, given
/// the version the stream moved on to.
pub(crate) async fn execute(
    state: &AppState,
    request: &WriteRequest,
    mut plan: impl AsyncFnMut(&PooledClient) -> Result<Plan, ApiError>,
    moved_on: impl FnOnce(u64) -> ApiError,
) -> Result<WriteAnswer, ApiError> {
    let mut client = state.store.pool().get().await.map_err(StoreError::from)?;
    if let Some(answer) = replayed(&client, request).await? {
        return Ok(answer);
    }
    let mut retried = false;
    loop {
        let decided = plan(&client).await?;
        if decided.appends.is_empty() {
            return Ok(WriteAnswer {
                status: decided.status,
                body: (decided.render)(&[], &[])?,
                replayed: false,
                consistency: None,
                token_checked: false,
            });
        }
        match commit(state, &mut client, request, decided).await? {
            Attempt::Answered(answer) => return Ok(answer),
            Attempt::Lost {
                retry_helps: true, ..
            } if request.expected == Expected::Unstated && !retried => {
                retried = true;
            }
            Attempt::Lost { stream, .. } => {
                let current = stream_head(&client, &stream)
                    .await?
                    .map_or(0, |h| h.version);
                return Err(match request.expected {
                    Expected::Unstated => moved_on(current),
                    stated => stated.mismatch(current),
                });
            }
        }
    }
}

/// Appends every stream of the plan and records the answer, in one transaction. A single
/// append with nothing else to write (no key, no seed) is one statement, which is a
/// transaction of its own: no BEGIN and COMMIT round trips.
async fn commit(
    state: &AppState,
    client: &mut PooledClient,
    request: &WriteRequest,
    plan: Plan,
) -> Result<Attempt, ApiError> {
    let Plan {
        appends,
        status,
        render,
        committed,
    } = plan;
    let alone =
        appends.len() == 1 && request.key.is_none() && matches!(appends[0].seed, SeedDuty::None);
    let body = if alone {
        let outcomes = match append_all(&*client, &appends, request).await? {
            Ok(outcomes) => outcomes,
            Err(lost) => return Ok(lost),
        };
        render(&appends, &outcomes)?
    } else {
        let tx = client.transaction().await.map_err(StoreError::from)?;
        let outcomes = match append_all(&tx, &appends, request).await? {
            Ok(outcomes) => outcomes,
            Err(lost) => return Ok(lost),
        };
        let body = render(&appends, &outcomes)?;
        if let Some(key) = &request.key {
            match record_response(
                &tx,
                key.as_str(),
                &request.fingerprint,
                status.as_u16(),
                &body,
            )
            .await
            {
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
    if let Some(committed) = committed {
        committed();
    }
    // A reader that brings this back is not served by a standby that has not caught up.
    let consistency = match &state.reads {
        Some(_) => Some(warlog_store::replica::current_lsn(&*client).await?),
        None => None,
    };
    Ok(Attempt::Answered(WriteAnswer {
        status,
        body,
        replayed: false,
        consistency,
        token_checked: request.token_to_check.is_some(),
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
    for write in appends {
        match &write.seed {
            SeedDuty::Save(seed) => save_seed(client, &write.stream, seed).await?,
            SeedDuty::Revealed => mark_seed_revealed(client, &write.stream).await?,
            SeedDuty::None => {}
        }
        let token = request.token_to_check.as_ref();
        match append_checking_token(client, &write.stream, write.expected, &write.events, token)
            .await
        {
            Ok(outcome) => outcomes.push(outcome),
            Err(StoreError::Conflict { stream, .. }) => {
                let retry_helps = write.expected != ExpectedVersion::NoStream;
                return Ok(Err(Attempt::Lost {
                    stream,
                    retry_helps,
                }));
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(Ok(outcomes))
}
