//! What a write that creates a stream draws new: its seed and its id.

use uuid::Uuid;
use warlog_rules::dice::GameSeed;

use crate::error::{ApiError, ErrorCode};

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
