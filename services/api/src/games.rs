//! The command path of games (DESIGN.md, "The dice"; issue 5): load the stream, fold it,
//! decide, and append with the version read, in one transaction with the answer to an
//! idempotent request. A lost race is retried once from the new state unless the client
//! stated the version it expected; then it is theirs to handle (409, or 412 for If-Match).
//!
//! Handlers stay thin: they parse and authorise, hand a `decide` closure to [`write`], and
//! render. The seed is read here and handed to the closure; it never reaches a response.

use std::collections::HashMap;
use std::sync::Mutex;

use actix_web::http::StatusCode;
use serde::Serialize;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;
use warlog_events::game::{GameLog, GameStreamEvent};
use warlog_events::orders::{Command, Decided, DiceSupply, OrdersGiven, Refusal};
use warlog_events::{IdempotencyKey, Metadata, NewEvent, RecordedEvent, StreamId};
use warlog_rules::dice::GameSeed;
use warlog_rules::game::Moment;
use warlog_store::games::{
    load_seed, mark_seed_revealed, record_response, recorded_response, save_seed,
};
use warlog_store::{
    append, read_stream, AppendOutcome, ExpectedVersion, GenericClient, StoreError,
};

use crate::auth::Identity;
use crate::error::{ApiError, ErrorCode};
use crate::routes::streams::EventView;
use crate::views::{battle_view, BattleView};
use crate::AppState;

/// Folded games by stream, so a command reads only the events since the last one.
/// Events never change, so a cached prefix stays true; the cache is bounded by emptying it.
#[derive(Debug, Default)]
pub struct GameCache(
    Mutex<HashMap<StreamId, GameLog>>,
    /// Boards at past versions (`?version=N`), so stepping through a long game's history
    /// folds each step from the nearest earlier one, not from its start.
    Mutex<HashMap<(StreamId, u64), GameLog>>,
);

const CACHE_LIMIT: usize = 2048;
/// Past versions kept; emptied when full, like the latest folds.
const SNAPSHOT_LIMIT: usize = 512;

impl GameCache {
    /// The cached fold of `stream` nearest at or before `version`.
    fn nearest(&self, stream: &StreamId, version: u64) -> Option<GameLog> {
        let latest = self.get(stream).filter(|log| log.version <= version);
        let snapshot = self.1.lock().ok().and_then(|snapshots| {
            snapshots
                .iter()
                .filter(|((s, v), _)| s == stream && *v <= version)
                .max_by_key(|((_, v), _)| *v)
                .map(|(_, log)| log.clone())
        });
        [latest, snapshot]
            .into_iter()
            .flatten()
            .max_by_key(|log| log.version)
    }

    fn keep(&self, stream: &StreamId, log: &GameLog) {
        let Ok(mut snapshots) = self.1.lock() else {
            return;
        };
        if snapshots.len() >= SNAPSHOT_LIMIT {
            snapshots.clear();
        }
        snapshots.insert((stream.clone(), log.version), log.clone());
    }

    fn get(&self, stream: &StreamId) -> Option<GameLog> {
        self.0.lock().ok()?.get(stream).cloned()
    }

    fn put(&self, stream: &StreamId, log: GameLog) {
        let Ok(mut games) = self.0.lock() else { return };
        if games.len() >= CACHE_LIMIT && !games.contains_key(stream) {
            games.clear();
        }
        let newer = games.get(stream).is_none_or(|g| g.version < log.version);
        if newer {
            games.insert(stream.clone(), log);
        }
    }
}

/// A game's stream id from the id in a path.
pub fn game_stream(game_id: &str) -> Result<StreamId, ApiError> {
    StreamId::of(warlog_events::StreamCategory::Game, game_id)
        .map_err(|_| ApiError::new(ErrorCode::GameNotFound, format!("no game {game_id:?}")))
}

fn not_found(stream: &StreamId) -> ApiError {
    ApiError::new(
        ErrorCode::GameNotFound,
        format!(
            "no game {}",
            stream.as_str().strip_prefix("game-").unwrap_or_default()
        ),
    )
}

pub(crate) fn corrupt(error: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::Internal, format!("game log: {error}"))
}

const PAGE: u32 = 1000;

/// The game as of its latest event.
pub async fn load(
    client: &impl GenericClient,
    cache: &GameCache,
    stream: &StreamId,
) -> Result<GameLog, ApiError> {
    let cached = cache.get(stream);
    let log = fold_from(client, stream, cached, None).await?;
    cache.put(stream, log.clone());
    Ok(log)
}

/// The game as of its first `version` events (the board at any point), folded from the
/// nearest earlier fold the cache holds.
pub async fn load_at(
    client: &impl GenericClient,
    cache: &GameCache,
    stream: &StreamId,
    version: u64,
) -> Result<GameLog, ApiError> {
    let log = fold_from(
        client,
        stream,
        cache.nearest(stream, version),
        Some(version),
    )
    .await?;
    cache.keep(stream, &log);
    Ok(log)
}

async fn fold_from(
    client: &impl GenericClient,
    stream: &StreamId,
    mut log: Option<GameLog>,
    until: Option<u64>,
) -> Result<GameLog, ApiError> {
    loop {
        let from = log.as_ref().map_or(1, |l| l.version + 1);
        if until.is_some_and(|u| from > u) {
            break;
        }
        let events = read_stream(client, stream, from, PAGE).await?;
        let full_page = events.len() == PAGE as usize;
        for event in events
            .iter()
            .filter(|e| until.is_none_or(|u| e.stream_version <= u))
        {
            log = Some(fold_one(log, event)?);
        }
        if !full_page {
            break;
        }
    }
    log.ok_or_else(|| not_found(stream))
}

fn fold_one(log: Option<GameLog>, event: &RecordedEvent) -> Result<GameLog, ApiError> {
    let decoded = warlog_events::game::decode_recorded(event).map_err(corrupt)?;
    match (log, decoded) {
        (None, GameStreamEvent::Created(created)) => GameLog::new(created).map_err(corrupt),
        (None, _) => Err(corrupt("the stream does not start with GameCreated")),
        (Some(mut log), decoded) => {
            log.apply(event.stream_version, &decoded).map_err(corrupt)?;
            Ok(log)
        }
    }
}

/// Every battle and raid of a game's events, numbered, with the round it was fought in;
/// `None` for an empty stream.
pub fn battles_of(events: &[RecordedEvent]) -> Result<Option<Vec<BattleView>>, ApiError> {
    let mut log: Option<GameLog> = None;
    let mut views = Vec::new();
    for event in events {
        if let (Some(before), Ok(GameStreamEvent::Played(played))) =
            (&log, warlog_events::game::decode_recorded(event))
        {
            let number = views.len() + 1;
            if let Some(view) = battle_view(
                before.ruleset,
                number,
                event.stream_version,
                before.state.round,
                &played,
            ) {
                views.push(view);
            }
        }
        log = Some(fold_one(log, event)?);
    }
    Ok(log.map(|_| views))
}

/// Every event of a stream, in order.
pub async fn read_all_events(
    client: &impl GenericClient,
    stream: &StreamId,
) -> Result<Vec<RecordedEvent>, ApiError> {
    read_events(client, stream, 1..=u64::MAX).await
}

/// A stream's events with versions in `versions`, in order, read a page at a time.
pub async fn read_events(
    client: &impl GenericClient,
    stream: &StreamId,
    versions: std::ops::RangeInclusive<u64>,
) -> Result<Vec<RecordedEvent>, ApiError> {
    let (first, last) = (*versions.start(), *versions.end());
    let mut all: Vec<RecordedEvent> = Vec::new();
    loop {
        let from = all.last().map_or(first, |e| e.stream_version + 1);
        let page = read_stream(client, stream, from, PAGE).await?;
        let done =
            page.len() < PAGE as usize || page.last().is_some_and(|e| e.stream_version >= last);
        all.extend(page.into_iter().take_while(|e| e.stream_version <= last));
        if done {
            return Ok(all);
        }
    }
}

/// What version of the game the client based its request on.
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
    fn mismatch(self, current: u64) -> ApiError {
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

    fn check(self, current: u64) -> Result<(), ApiError> {
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
}

impl WriteRequest {
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

    pub(crate) fn encode(&self, events: &[GameStreamEvent]) -> Result<Vec<NewEvent>, ApiError> {
        self.encode_with(events, GameStreamEvent::encode)
    }

    /// Events of any stream, each encoded by `encode`, with this request's metadata.
    pub(crate) fn encode_with<E>(
        &self,
        events: &[E],
        encode: impl Fn(
            &E,
        ) -> Result<
            (warlog_events::EventType, u32, serde_json::Value),
            warlog_events::EventDecodeError,
        >,
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
}

/// What a write appended.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WriteAccepted {
    pub game_id: String,
    /// The game's version after the write.
    pub version: u64,
    pub events: Vec<EventView>,
    /// The battles and raids among them, with their listings.
    pub battles: Vec<BattleView>,
}

/// The first answer to this request's idempotency key, if it was used before.
pub(crate) async fn replayed(
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
    }))
}

fn accepted(
    after: &GameLog,
    stream: &StreamId,
    events: &[NewEvent],
    decided: &[GameStreamEvent],
    outcome: &AppendOutcome,
    battles_before: usize,
) -> Result<serde_json::Value, ApiError> {
    let views: Vec<EventView> = events
        .iter()
        .zip(&outcome.events)
        .map(|(new, at)| EventView::appended(stream, new, at))
        .collect();
    let mut battles = Vec::new();
    for (event, at) in decided.iter().zip(&outcome.events) {
        if let GameStreamEvent::Played(played) = event {
            let number = battles_before + battles.len() + 1;
            if let Some(view) = battle_view(
                after.ruleset,
                number,
                at.stream_version,
                after.state.round,
                played,
            ) {
                battles.push(view);
            }
        }
    }
    serde_json::to_value(WriteAccepted {
        game_id: after.created.game_id.clone(),
        version: after.version,
        events: views,
        battles,
    })
    .map_err(corrupt)
}

/// The events a write's transaction appends, and the transaction's other duty.
pub(crate) enum Extra {
    None,
    /// A new stream with dice: keep its seed.
    SaveSeed([u8; 32]),
    /// The write reveals the seed: note when.
    SeedRevealed,
}

/// One append of a write, and the status its answer will have.
pub(crate) struct Append<'a> {
    pub stream: &'a StreamId,
    pub expected: ExpectedVersion,
    pub events: &'a [NewEvent],
    pub extra: Extra,
    pub status: StatusCode,
}

/// Appends and records the answer in one transaction. `Ok(None)`: the stream moved on.
pub(crate) async fn commit(
    state: &AppState,
    client: &mut warlog_store::PooledClient,
    request: &WriteRequest,
    write: Append<'_>,
    render: impl FnOnce(&AppendOutcome) -> Result<serde_json::Value, ApiError>,
) -> Result<Option<WriteAnswer>, ApiError> {
    commit_all(state, client, request, vec![write], |outcomes| {
        render(&outcomes[0])
    })
    .await
}

/// Appends to several streams in one transaction (a tournament round and its new games),
/// and records the answer. The first append's status is the answer's. `Ok(None)`: one of
/// the streams moved on, and nothing was written.
pub(crate) async fn commit_all(
    state: &AppState,
    client: &mut warlog_store::PooledClient,
    request: &WriteRequest,
    writes: Vec<Append<'_>>,
    render: impl FnOnce(&[AppendOutcome]) -> Result<serde_json::Value, ApiError>,
) -> Result<Option<WriteAnswer>, ApiError> {
    let status = writes.first().map_or(StatusCode::OK, |w| w.status);
    let tx = client.transaction().await.map_err(StoreError::from)?;
    let mut outcomes = Vec::with_capacity(writes.len());
    let mut appended = 0;
    for write in writes {
        match &write.extra {
            Extra::SaveSeed(seed) => save_seed(&tx, write.stream, seed).await?,
            Extra::SeedRevealed => mark_seed_revealed(&tx, write.stream).await?,
            Extra::None => {}
        }
        match append(&tx, write.stream, write.expected, write.events, None).await {
            Ok(outcome) => outcomes.push(outcome),
            Err(StoreError::Conflict { .. }) => return Ok(None),
            Err(e) => return Err(e.into()),
        }
        appended += write.events.len();
    }
    let body = render(&outcomes)?;
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
                return replayed(&*client, request).await?.map(Some).ok_or_else(|| {
                    ApiError::new(ErrorCode::Internal, "an idempotency race left no answer")
                });
            }
            Err(e) => return Err(e.into()),
        }
    }
    tx.commit().await.map_err(StoreError::from)?;
    state.store.committed(appended);
    // A reader that brings this back is not served by a standby that has not caught up.
    let consistency = match &state.reads {
        Some(_) => Some(warlog_store::replica::current_lsn(&*client).await?),
        None => None,
    };
    Ok(Some(WriteAnswer {
        status,
        body,
        replayed: false,
        consistency,
    }))
}

/// Writes a command to an existing game: `command` reads the folded game and says what is
/// commanded; the command is put on the record (`OrdersGiven`) and decided with the game's
/// seed by [`GameLog::decide_command`], the same decision the auditor makes again.
pub async fn write(
    state: &AppState,
    stream: &StreamId,
    request: &WriteRequest,
    command: impl Fn(&GameLog) -> Result<Command, ApiError>,
) -> Result<WriteAnswer, ApiError> {
    let mut client = state.store.pool().get().await.map_err(StoreError::from)?;
    if let Some(answer) = replayed(&client, request).await? {
        return Ok(answer);
    }
    for attempt in 0..2 {
        let log = load(&client, &state.games, stream).await?;
        request.expected.check(log.version)?;
        let seed = load_seed(&client, stream)
            .await?
            .map(GameSeed::from_bytes)
            .ok_or_else(|| ApiError::new(ErrorCode::Internal, format!("{stream} has no seed")))?;
        let record = OrdersGiven {
            sender: request.caller.sender(),
            expected_version: log.version,
            at: request.moment(),
            command: command(&log)?,
        };
        let Decided {
            events: decided,
            after,
        } = log.decide_command(&record, DiceSupply::Seed(&seed))?;
        if decided.len() > warlog_store::MAX_EVENTS_PER_APPEND {
            return Err(ApiError::malformed(
                "these orders make too many events for one request: send them in parts",
            ));
        }
        let events = request.encode(&decided)?;
        let battles_before = log.battles;
        let append = Append {
            stream,
            expected: ExpectedVersion::Exact(log.version),
            events: &events,
            extra: if decided
                .iter()
                .any(|e| matches!(e, GameStreamEvent::SeedRevealed(_)))
            {
                Extra::SeedRevealed
            } else {
                Extra::None
            },
            status: StatusCode::OK,
        };
        let answer = commit(state, &mut client, request, append, |outcome| {
            accepted(&after, stream, &events, &decided, outcome, battles_before)
        })
        .await?;
        match answer {
            Some(answer) => {
                if !answer.replayed {
                    state.games.put(stream, after);
                }
                return Ok(answer);
            }
            None if request.expected == Expected::Unstated && attempt == 0 => continue,
            None => {
                let current = warlog_store::stream_head(&client, stream)
                    .await?
                    .map_or(0, |h| h.version);
                return Err(request.expected.mismatch(current));
            }
        }
    }
    Err(ApiError::new(
        ErrorCode::VersionConflict,
        "the game moved on twice while this request was decided; send it again",
    ))
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Forbidden(why) => ApiError::new(ErrorCode::Forbidden, why),
            Refusal::Name(error) => error.into(),
            Refusal::Rule { at, violation } => ApiError::rule_violation(&at, &violation),
            Refusal::Version { expected, actual } => ApiError::new(
                ErrorCode::VersionConflict,
                format!("the request was written for version {expected}; the game is at version {actual}"),
            )
            .with_current_version(actual),
            Refusal::Malformed(why) => ApiError::malformed(why),
        }
    }
}

/// Creates a game: a fresh seed from the OS, the seats drawn from it, `GameCreated`.
pub async fn create(
    state: &AppState,
    request: &WriteRequest,
    ruleset: &'static warlog_rules::ruleset::Ruleset,
    entrants: warlog_events::game::Entrants,
    tournament: Option<String>,
) -> Result<WriteAnswer, ApiError> {
    let mut client = state.store.pool().get().await.map_err(StoreError::from)?;
    if let Some(answer) = replayed(&client, request).await? {
        return Ok(answer);
    }
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("no OS randomness: {e}")))?;
    // Time-ordered ids: listing games by id lists them oldest first.
    let game_id = Uuid::now_v7().simple().to_string();
    let stream = game_stream(&game_id)?;
    let created = GameLog::create(
        ruleset,
        &game_id,
        entrants,
        request.caller.name.clone(),
        tournament,
        request.moment(),
        &GameSeed::from_bytes(seed),
    )
    .map_err(|v| ApiError::rule_violation("players", &v))?;
    let log = GameLog::new(created.clone()).map_err(corrupt)?;
    let events = request.encode(&[GameStreamEvent::Created(created)])?;
    let view = crate::views::GameView::of(&log);
    let append = Append {
        stream: &stream,
        expected: ExpectedVersion::NoStream,
        events: &events,
        extra: Extra::SaveSeed(seed),
        status: StatusCode::CREATED,
    };
    commit(state, &mut client, request, append, |_| {
        serde_json::to_value(&view).map_err(corrupt)
    })
    .await?
    .ok_or_else(|| ApiError::new(ErrorCode::Internal, "a new game id was taken"))
}
