//! Folded games, past boards, seeds and chronicles kept in this process, so a command or
//! a read folds only the events appended since. Events never change, so a kept prefix
//! stays true; each map is bounded by emptying it when full.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use warlog_events::game::GameLog;
use warlog_events::StreamId;
use warlog_rules::dice::GameSeed;
use warlog_store::seeds::load_seed;
use warlog_store::GenericClient;

use super::Chronicle;
use crate::error::{ApiError, ErrorCode};

/// Folded games by stream, so a command reads only the events since the last one.
/// Events never change, so a cached prefix stays true; the cache is bounded by emptying it.
#[derive(Debug, Default)]
pub struct GameCache {
    latest: Mutex<HashMap<StreamId, GameLog>>,
    /// Boards at past versions (`?version=N`), so stepping through a long game's history
    /// folds each step from the nearest earlier one, not from its start.
    snapshots: Mutex<HashMap<(StreamId, u64), GameLog>>,
    /// Seeds never change: a command reads its game's once. They stay in this process,
    /// like the folds; no answer carries one before its reveal.
    seeds: Mutex<HashMap<StreamId, GameSeed>>,
    /// What the game page and the battle list read from the whole log, read up to a
    /// version and carried on from there.
    pub(super) chronicles: Mutex<HashMap<StreamId, Arc<Chronicle>>>,
}

/// Chronicles kept (of the games read lately); emptied when full, like the folds.
pub(super) const CHRONICLE_LIMIT: usize = 256;

const CACHE_LIMIT: usize = 2048;
/// Past versions kept; emptied when full, like the latest folds.
const SNAPSHOT_LIMIT: usize = 512;

/// Keeps `value` under `key`, emptying a full map first (a bound without bookkeeping).
fn keep_bounded<K: std::hash::Hash + Eq, V>(
    map: &Mutex<HashMap<K, V>>,
    limit: usize,
    key: K,
    value: V,
) {
    let Ok(mut map) = map.lock() else { return };
    if map.len() >= limit && !map.contains_key(&key) {
        map.clear();
    }
    map.insert(key, value);
}

impl GameCache {
    /// The cached fold of `stream` nearest at or before `version`.
    pub(super) fn nearest(&self, stream: &StreamId, version: u64) -> Option<GameLog> {
        let latest = self.get(stream).filter(|log| log.version <= version);
        let snapshot = self.snapshots.lock().ok().and_then(|snapshots| {
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

    pub(super) fn keep(&self, stream: &StreamId, log: &GameLog) {
        keep_bounded(
            &self.snapshots,
            SNAPSHOT_LIMIT,
            (stream.clone(), log.version),
            log.clone(),
        );
    }

    pub(super) fn get(&self, stream: &StreamId) -> Option<GameLog> {
        self.latest.lock().ok()?.get(stream).cloned()
    }

    /// Keeps a fold unless a newer one of the game is kept already (checked and kept under
    /// one lock, so a slower writer never puts an older fold back).
    pub(super) fn put(&self, stream: &StreamId, log: GameLog) {
        let Ok(mut games) = self.latest.lock() else {
            return;
        };
        if games.get(stream).is_some_and(|g| g.version >= log.version) {
            return;
        }
        if games.len() >= CACHE_LIMIT && !games.contains_key(stream) {
            games.clear();
        }
        games.insert(stream.clone(), log);
    }

    /// Empties every cache but the seeds (a benchmark's cold start).
    pub fn clear(&self) {
        if let Ok(mut map) = self.latest.lock() {
            map.clear();
        }
        if let Ok(mut map) = self.snapshots.lock() {
            map.clear();
        }
        if let Ok(mut map) = self.chronicles.lock() {
            map.clear();
        }
    }

    /// A game's seed, read once.
    pub(super) async fn seed(
        &self,
        client: &impl GenericClient,
        stream: &StreamId,
    ) -> Result<GameSeed, ApiError> {
        if let Some(seed) = self.seeds.lock().ok().and_then(|s| s.get(stream).cloned()) {
            return Ok(seed);
        }
        let seed = load_seed(client, stream)
            .await?
            .ok_or_else(|| ApiError::new(ErrorCode::Internal, format!("{stream} has no seed")))?;
        keep_bounded(&self.seeds, CACHE_LIMIT, stream.clone(), seed.clone());
        Ok(seed)
    }
}
