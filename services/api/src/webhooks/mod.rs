//! Webhooks: the sender that posts the outbox's deliveries (`sender.rs`), the guard that
//! keeps them from reaching inside the service's network (`address.rs`), and the sealing of
//! subscriptions' secrets at rest (`crypto.rs`). Delivery is at least once: a receiver
//! de-duplicates by the `Webhook-Id` header (the body's `delivery_id`).
//!
//! The signature (`Webhook-Signature: v1=<hex>`) is HMAC-SHA256, keyed with the
//! subscription's secret, over `<Webhook-Timestamp>.<body>`: a receiver recomputes it, and
//! refuses a timestamp far from its own clock, so a captured delivery cannot be replayed
//! later.

pub mod address;
pub mod crypto;
mod sender;

use hmac::{Hmac, Mac};
use prometheus::{IntCounter, IntCounterVec, Opts, Registry};
use sha2::Sha256;
use warlog_store::webhooks::{reseal_secret, secrets_to_reseal};
use warlog_store::{Pool, StoreError};

pub use address::{AllowList, Guard, Refusal};
pub use crypto::SecretKeys;
pub use sender::{deliver_due, http_client, spawn_sender, Failure, SenderSettings};

/// The default of `--webhook-max-per-owner`.
pub const DEFAULT_MAX_PER_OWNER: u32 = 25;

/// What registration and the sender both follow: where deliveries may go, the key
/// secrets are sealed with, and how many subscriptions one owner may have.
#[derive(Debug, Clone)]
pub struct WebhookPolicy {
    pub guard: Guard,
    pub keys: SecretKeys,
    pub max_per_owner: u32,
}

impl Default for WebhookPolicy {
    fn default() -> Self {
        WebhookPolicy {
            guard: Guard::default(),
            keys: SecretKeys::development(),
            max_per_owner: DEFAULT_MAX_PER_OWNER,
        }
    }
}

/// The outcomes `warlog_webhook_attempts_total` counts, each shown from the start.
const OUTCOMES: [&str; 3] = ["delivered", "failed", "not_allowed"];

/// The deliveries' counters in `/metrics`.
#[derive(Debug, Clone)]
pub struct WebhookMetrics {
    attempts: IntCounterVec,
    dead_lettered: IntCounter,
    paused: IntCounter,
}

impl WebhookMetrics {
    pub fn new(registry: &Registry) -> prometheus::Result<Self> {
        let attempts = IntCounterVec::new(
            Opts::new(
                "warlog_webhook_attempts_total",
                "Webhook delivery attempts, by outcome (delivered, failed, or not_allowed: the address was refused).",
            ),
            &["outcome"],
        )?;
        // A series absent until its first event reads as "no data", not as 0.
        for outcome in OUTCOMES {
            attempts.with_label_values(&[outcome]);
        }
        let dead_lettered = IntCounter::new(
            "warlog_webhook_dead_lettered_total",
            "Webhook deliveries given up on: too old, or tried too often.",
        )?;
        let paused = IntCounter::new(
            "warlog_webhook_paused_total",
            "Webhook subscriptions paused after consecutive failures.",
        )?;
        registry.register(Box::new(attempts.clone()))?;
        registry.register(Box::new(dead_lettered.clone()))?;
        registry.register(Box::new(paused.clone()))?;
        Ok(WebhookMetrics {
            attempts,
            dead_lettered,
            paused,
        })
    }

    fn count(&self, outcome: &str) {
        self.attempts.with_label_values(&[outcome]).inc();
    }
}

/// `v1=` and the hex HMAC-SHA256 of `<timestamp>.<body>` keyed with `secret`.
pub fn signature(secret: &str, timestamp: i64, body: &str) -> String {
    // HMAC takes a key of any length.
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body.as_bytes());
    format!("v1={}", hex::encode(mac.finalize().into_bytes()))
}

/// What [`reseal_secrets`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resealed {
    /// Secrets in clear, or sealed with the development key, now sealed with the key.
    pub resealed: usize,
    /// Secrets sealed with a key this service does not have: their deliveries fail as
    /// `secret unreadable` until their owners register them again.
    pub unreadable: usize,
}

/// Seals with the current key every live subscription's secret that is not sealed with it
/// yet: those stored in clear before secrets were sealed, and those sealed with the
/// development key before an operator set one.
pub async fn reseal_secrets(pool: &Pool, keys: &SecretKeys) -> Result<Resealed, StoreError> {
    let client = pool.get().await?;
    let mut done = Resealed::default();
    for (id, stored) in secrets_to_reseal(&client, &keys.sealed_prefix()).await? {
        match keys.open(&id, &stored) {
            Ok(secret) => {
                if reseal_secret(&client, &id, &stored, &keys.seal(&id, &secret)).await? {
                    done.resealed += 1;
                }
            }
            Err(_) => done.unreadable += 1,
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_the_hmac_of_the_timestamp_a_dot_and_the_body() {
        let signed = signature("key", 1, "{}");
        assert!(signed.starts_with("v1="));
        assert_eq!(signed.len(), 3 + 64);
        assert_eq!(signed, signature("key", 1, "{}"));
        assert_ne!(signed, signature("key", 2, "{}"));
        assert_ne!(signed, signature("other", 1, "{}"));
        let mut mac = Hmac::<Sha256>::new_from_slice(b"key").expect("a key");
        mac.update(b"1.{}");
        assert_eq!(
            signed,
            format!("v1={}", hex::encode(mac.finalize().into_bytes()))
        );
    }

    #[test]
    fn every_outcome_is_in_the_metrics_before_the_first_attempt() {
        let registry = Registry::new();
        WebhookMetrics::new(&registry).expect("metrics");
        let text = prometheus::TextEncoder::new()
            .encode_to_string(&registry.gather())
            .expect("text");
        for outcome in OUTCOMES {
            assert!(
                text.contains(&format!(
                    "warlog_webhook_attempts_total{{outcome=\"{outcome}\"}} 0"
                )),
                "{text}"
            );
        }
    }
}
