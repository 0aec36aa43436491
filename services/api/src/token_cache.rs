//! Who each bearer token seen lately belongs to, by the token's hash, so a write need not
//! look its caller up before deciding: the write checks the token in the statement that
//! writes it (`warlog_store::append_checking_token`), and any other answer checks it before it
//! goes out (`auth::authenticate`). A token revoked or expired is refused at once either
//! way; it is only forgotten here when that happens.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::auth::Identity;

/// More tokens than an association hands out; past it the cache starts over.
const LIMIT: usize = 10_000;

#[derive(Debug, Default)]
pub struct TokenCache {
    holders: Mutex<HashMap<[u8; 32], Identity>>,
}

impl TokenCache {
    /// The holder last found for the token with this hash (not checked again here).
    pub fn get(&self, token_hash: &[u8; 32]) -> Option<Identity> {
        self.holders.lock().ok()?.get(token_hash).cloned()
    }

    /// Remembers the holder the database gave for a token.
    pub fn keep(&self, token_hash: [u8; 32], holder: Identity) {
        let Ok(mut holders) = self.holders.lock() else {
            return;
        };
        if holders.len() >= LIMIT && !holders.contains_key(&token_hash) {
            holders.clear();
        }
        holders.insert(token_hash, holder);
    }

    /// Forgets a token the database refused.
    pub fn forget(&self, token_hash: &[u8; 32]) {
        if let Ok(mut holders) = self.holders.lock() {
            holders.remove(token_hash);
        }
    }
}
