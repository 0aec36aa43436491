//! The server's audits of games, kept by game and version. A log never changes below its
//! head, so a game's audit at a version is the same however often it is asked for: a page
//! view or `GET /v1/games/{id}/audit` reads the head (one indexed row) and decides every
//! recorded order again only when the game has moved on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use actix_web::web;
use warlog_events::audit::{audit_game, AuditReport};
use warlog_events::StreamId;
use warlog_store::StoreError;

use crate::error::{ApiError, ErrorCode};
use crate::games::{game_stream, read_events};
use crate::AppState;

/// At most this many games' audits are kept; the cache is emptied when full.
const LIMIT: usize = 256;

#[derive(Debug, Default)]
pub struct AuditCache(Mutex<HashMap<StreamId, (u64, Arc<AuditReport>)>>);

impl AuditCache {
    /// Forgets every audit (a benchmark's cold start).
    pub fn clear(&self) {
        if let Ok(mut audits) = self.0.lock() {
            audits.clear();
        }
    }

    fn get(&self, stream: &StreamId, version: u64) -> Option<Arc<AuditReport>> {
        let audits = self.0.lock().ok()?;
        audits
            .get(stream)
            .filter(|(at, _)| *at == version)
            .map(|(_, report)| report.clone())
    }

    fn put(&self, stream: StreamId, version: u64, report: Arc<AuditReport>) {
        let Ok(mut audits) = self.0.lock() else {
            return;
        };
        if audits.len() >= LIMIT && !audits.contains_key(&stream) {
            audits.clear();
        }
        audits.insert(stream, (version, report));
    }
}

/// The server's audit of a game at its head (public: no seed but a revealed one).
pub async fn audit_of(state: &AppState, game_id: &str) -> Result<Arc<AuditReport>, ApiError> {
    let stream = game_stream(game_id)?;
    let not_found = || ApiError::new(ErrorCode::GameNotFound, format!("no game {game_id:?}"));
    let head = state
        .store
        .stream_head(&stream)
        .await?
        .ok_or_else(not_found)?;
    if let Some(report) = state.audits.get(&stream, head.version) {
        return Ok(report);
    }
    // The audit of exactly the version the key names, whatever was appended meanwhile.
    let events = {
        let client = state.store.pool().get().await.map_err(StoreError::from)?;
        read_events(&client, &stream, 1..=head.version).await?
    };
    let report = web::block(move || audit_game(&events, None, None))
        .await
        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
    let report = Arc::new(report);
    state.audits.put(stream, head.version, report.clone());
    Ok(report)
}
