//! Webhook secrets sealed at rest: ChaCha20-Poly1305 under a key from the service's
//! environment (`WARLOG_WEBHOOK_KEY`), with the subscription's id as associated data so a
//! sealed secret cannot be moved to another row. The sender needs the secret itself (it
//! signs with it), so it is sealed, not hashed.
//!
//! Stored form: `sealed:v1:<key id>:<base64 of nonce and ciphertext>`, the key id being
//! the first 8 hex digits of the key's SHA-256. Rows from before sealing hold the secret in
//! clear, and are read as such until `warlog serve` reseals them at start.

use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use sha2::{Digest, Sha256};

const PREFIX: &str = "sealed:v1:";

/// What the development key is derived from: public, so it keeps nothing secret from
/// whoever reads this file; it only lets `cargo run` work with no configuration.
const DEVELOPMENT_KEY_SEED: &[u8] = b"warlog webhook secrets: development key, not secret";

/// A secret that cannot be read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the secret was sealed with another key, or is damaged")]
pub struct Unreadable;

/// One 32-byte key and its id.
#[derive(Clone)]
struct SealingKey {
    key: [u8; 32],
    id: String,
}

impl SealingKey {
    fn new(key: [u8; 32]) -> Self {
        let id = hex::encode(&Sha256::digest(key)[..4]);
        SealingKey { key, id }
    }

    fn cipher(&self) -> ChaCha20Poly1305 {
        ChaCha20Poly1305::new(Key::from_slice(&self.key))
    }
}

/// The key secrets are sealed with, and the development key, which is always readable so
/// rows sealed before an operator set a key can be resealed with it.
#[derive(Clone)]
pub struct SecretKeys {
    current: SealingKey,
    development: SealingKey,
}

impl std::fmt::Debug for SecretKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretKeys")
            .field("key_id", &self.current.id)
            .field("development", &self.is_development())
            .finish()
    }
}

impl Default for SecretKeys {
    fn default() -> Self {
        SecretKeys::development()
    }
}

impl SecretKeys {
    /// The public development key (see docs/operations.md for why it exists).
    pub fn development() -> Self {
        let development = SealingKey::new(Sha256::digest(DEVELOPMENT_KEY_SEED).into());
        SecretKeys {
            current: development.clone(),
            development,
        }
    }

    /// The operator's key: 64 hex digits (32 bytes), e.g. from `openssl rand -hex 32`.
    pub fn from_hex(hex_key: &str) -> Result<Self, String> {
        let bytes = hex::decode(hex_key.trim())
            .ok()
            .and_then(|b| <[u8; 32]>::try_from(b).ok())
            .ok_or("the webhook key must be 64 hex digits (32 bytes)")?;
        Ok(SecretKeys {
            current: SealingKey::new(bytes),
            ..SecretKeys::development()
        })
    }

    pub fn is_development(&self) -> bool {
        self.current.id == self.development.id
    }

    /// What every secret sealed with the current key starts with.
    pub fn sealed_prefix(&self) -> String {
        format!("{PREFIX}{}:", self.current.id)
    }

    /// `secret` sealed for the subscription `id`.
    pub fn seal(&self, id: &str, secret: &str) -> String {
        let mut nonce = [0u8; 12];
        // Without the system's randomness no token could be made either.
        getrandom::fill(&mut nonce).unwrap_or_else(|e| panic!("no system randomness: {e}"));
        let sealed = self
            .current
            .cipher()
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: secret.as_bytes(),
                    aad: id.as_bytes(),
                },
            )
            .unwrap_or_else(|_| unreachable!("ChaCha20-Poly1305 seals any short message"));
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        format!(
            "{}{}",
            self.sealed_prefix(),
            base64::engine::general_purpose::STANDARD_NO_PAD.encode(out)
        )
    }

    /// The secret a stored value holds: opened when sealed, as it is when in clear.
    pub fn open(&self, id: &str, stored: &str) -> Result<String, Unreadable> {
        let Some(rest) = stored.strip_prefix(PREFIX) else {
            return Ok(stored.to_owned());
        };
        let (key_id, sealed) = rest.split_once(':').ok_or(Unreadable)?;
        let key = [&self.current, &self.development]
            .into_iter()
            .find(|k| k.id == key_id)
            .ok_or(Unreadable)?;
        let bytes = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(sealed)
            .map_err(|_| Unreadable)?;
        if bytes.len() < 12 {
            return Err(Unreadable);
        }
        let (nonce, ciphertext) = bytes.split_at(12);
        let opened = key
            .cipher()
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: ciphertext,
                    aad: id.as_bytes(),
                },
            )
            .map_err(|_| Unreadable)?;
        String::from_utf8(opened).map_err(|_| Unreadable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    #[test]
    fn a_sealed_secret_opens_for_its_row_only_and_never_shows_in_clear() {
        let keys = SecretKeys::from_hex(KEY).expect("a key");
        let sealed = keys.seal("sub-1", "a long random string only you know");
        assert!(sealed.starts_with(&keys.sealed_prefix()), "{sealed}");
        assert!(!sealed.contains("random"));
        assert_ne!(
            sealed,
            keys.seal("sub-1", "a long random string only you know")
        );
        assert_eq!(
            keys.open("sub-1", &sealed).as_deref(),
            Ok("a long random string only you know")
        );
        assert_eq!(keys.open("sub-2", &sealed), Err(Unreadable));
        let other = SecretKeys::from_hex(&KEY.replace("1f", "ff")).expect("a key");
        assert_eq!(other.open("sub-1", &sealed), Err(Unreadable));
    }

    #[test]
    fn clear_and_development_sealed_secrets_stay_readable_under_an_operator_key() {
        let development = SecretKeys::development();
        assert!(development.is_development());
        let keys = SecretKeys::from_hex(KEY).expect("a key");
        assert!(!keys.is_development());
        let old = development.seal("sub-1", "sealed before the key was set");
        assert_eq!(
            keys.open("sub-1", &old).as_deref(),
            Ok("sealed before the key was set")
        );
        assert!(!old.starts_with(&keys.sealed_prefix()));
        assert_eq!(
            keys.open("sub-1", "a secret kept in clear").as_deref(),
            Ok("a secret kept in clear")
        );
    }

    #[test]
    fn a_key_is_64_hex_digits() {
        for bad in ["", "00", &KEY[2..], "zz"] {
            assert!(SecretKeys::from_hex(bad).is_err(), "{bad:?}");
        }
    }
}
