//! A game folded from its log: as of its latest event, or of any earlier version.

use warlog_events::game::{GameLog, GameStreamEvent};
use warlog_events::{RecordedEvent, StreamId};
use warlog_store::{read_stream, GenericClient};

use super::cache::GameCache;
use crate::error::{corrupt, ApiError, ErrorCode};
use crate::write::Expected;

/// A game's stream id from the id in a path.
pub fn game_stream(game_id: &str) -> Result<StreamId, ApiError> {
    StreamId::of(warlog_events::StreamCategory::Game, game_id)
        .map_err(|_| ApiError::new(ErrorCode::GameNotFound, format!("no game {game_id:?}")))
}

pub(super) fn not_found(stream: &StreamId) -> ApiError {
    ApiError::new(
        ErrorCode::GameNotFound,
        format!(
            "no game {}",
            stream.as_str().strip_prefix("game-").unwrap_or_default()
        ),
    )
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

/// The game to decide a command on. Without a fresh read when the cache holds it and the
/// client stated nothing else: the append is at the cached version, so a cache behind the
/// log (another instance wrote) loses the race and the command is decided again, `fresh`.
pub(super) async fn load_for_command(
    client: &impl GenericClient,
    cache: &GameCache,
    stream: &StreamId,
    expected: Expected,
    fresh: bool,
) -> Result<GameLog, ApiError> {
    let cached = (!fresh).then(|| cache.get(stream)).flatten();
    match (cached, expected) {
        (Some(log), Expected::Unstated) => Ok(log),
        (Some(log), Expected::Body(v) | Expected::IfMatch(v)) if v == log.version => Ok(log),
        _ => load(client, cache, stream).await,
    }
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
