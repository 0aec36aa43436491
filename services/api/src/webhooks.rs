//! The webhook sender: it claims due deliveries from the outbox (which the `webhooks`
//! projection fills from the event log), posts each to its subscription's URL, signed, and
//! records the outcome. Delivery is at least once: a receiver de-duplicates by the
//! `Webhook-Id` header (the body's `delivery_id`).
//!
//! The signature (`Webhook-Signature: v1=<hex>`) is HMAC-SHA256, keyed with the
//! subscription's secret, over `<Webhook-Timestamp>.<body>`: a receiver recomputes it, and
//! refuses a timestamp far from its own clock, so a captured delivery cannot be replayed
//! later.

use std::sync::Arc;
use std::time::Duration;

use hmac::{Hmac, Mac};
use prometheus::{IntCounterVec, Opts, Registry};
use sha2::Sha256;
use warlog_store::webhooks::{claim_due, mark_delivered, mark_failed, Claimed};
use warlog_store::{Pool, StoreError};

/// How the sender works.
#[derive(Debug, Clone)]
pub struct SenderSettings {
    /// The wait after a first failure; doubled after each further one.
    pub retry_base: Duration,
    /// The longest wait between attempts: a receiver down for days is still tried hourly.
    pub retry_max: Duration,
    /// How long one attempt may take.
    pub timeout: Duration,
    /// How many deliveries one pass claims.
    pub batch: u32,
    /// How often the sender looks for due deliveries when there were none.
    pub poll: Duration,
}

impl Default for SenderSettings {
    fn default() -> Self {
        SenderSettings {
            retry_base: Duration::from_secs(5),
            retry_max: Duration::from_secs(3600),
            timeout: Duration::from_secs(10),
            batch: 32,
            poll: Duration::from_secs(1),
        }
    }
}

impl SenderSettings {
    /// The wait before the next attempt, after `attempts` failed ones.
    pub fn backoff(&self, attempts: i32) -> Duration {
        let doublings = u32::try_from(attempts.clamp(0, 30)).unwrap_or(0);
        self.retry_base
            .saturating_mul(2u32.saturating_pow(doublings))
            .min(self.retry_max)
    }

    /// A claim lasts as long as the attempts of a whole batch could: a sender that dies
    /// mid-batch leaves its claims to fall due again after it.
    fn lease(&self) -> Duration {
        self.timeout.saturating_mul(self.batch.max(1)) + Duration::from_secs(5)
    }
}

/// The deliveries' counters in `/metrics`.
#[derive(Debug, Clone)]
pub struct WebhookMetrics {
    attempts: IntCounterVec,
}

impl WebhookMetrics {
    pub fn new(registry: &Registry) -> prometheus::Result<Self> {
        let attempts = IntCounterVec::new(
            Opts::new(
                "warlog_webhook_attempts_total",
                "Webhook delivery attempts, by outcome (delivered or failed).",
            ),
            &["outcome"],
        )?;
        registry.register(Box::new(attempts.clone()))?;
        Ok(WebhookMetrics { attempts })
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

/// The HTTP client deliveries go out with: TLS by rustls (ring) with the web's roots, no
/// redirects (a subscription names where its deliveries go), a timeout per attempt.
pub fn http_client(settings: &SenderSettings) -> awc::Client {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let connector = match rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
    {
        Ok(config) => awc::Connector::new().rustls_0_23(Arc::new(
            config.with_root_certificates(roots).with_no_client_auth(),
        )),
        // ring supports the default versions; were it not to, plain HTTP still works.
        Err(_) => awc::Connector::new(),
    };
    awc::Client::builder()
        .connector(connector.timeout(settings.timeout))
        .timeout(settings.timeout)
        .disable_redirects()
        .finish()
}

/// Posts one claimed delivery; what the receiver answered, or why it could not.
async fn post(client: &awc::Client, delivery: &Claimed, now: i64) -> Result<u16, String> {
    let sent = client
        .post(delivery.url.as_str())
        .insert_header(("Content-Type", "application/json"))
        .insert_header(("User-Agent", "warlog-webhooks"))
        .insert_header(("Webhook-Id", delivery.delivery_id.as_str()))
        .insert_header(("Webhook-Timestamp", now.to_string()))
        .insert_header((
            "Webhook-Signature",
            signature(&delivery.secret, now, &delivery.body),
        ))
        .send_body(delivery.body.clone())
        .await;
    match sent {
        Ok(response) if response.status().is_success() => Ok(response.status().as_u16()),
        Ok(response) => Err(format!("the receiver answered {}", response.status())),
        Err(error) => Err(format!("not delivered: {error}")),
    }
}

/// One pass: claims the due deliveries and attempts each; how many it attempted.
pub async fn deliver_due(
    pool: &Pool,
    client: &awc::Client,
    settings: &SenderSettings,
    metrics: Option<&WebhookMetrics>,
) -> Result<usize, StoreError> {
    let claimed = {
        let connection = pool.get().await?;
        claim_due(&connection, settings.batch, settings.lease().as_secs_f64()).await?
    };
    for delivery in &claimed {
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        // No connection is held while the receiver takes its time.
        let outcome = post(client, delivery, now).await;
        let connection = pool.get().await?;
        match outcome {
            Ok(status) => {
                mark_delivered(&connection, &delivery.delivery_id, status).await?;
                metrics.inspect(|m| m.count("delivered"));
            }
            Err(error) => {
                let status = error
                    .strip_prefix("the receiver answered ")
                    .and_then(|s| s.get(..3))
                    .and_then(|s| s.parse().ok());
                let wait = settings.backoff(delivery.attempts);
                tracing::info!(delivery = %delivery.delivery_id, %error, retry_in_s = wait.as_secs_f64(), "webhook delivery failed");
                mark_failed(
                    &connection,
                    &delivery.delivery_id,
                    status,
                    &error,
                    wait.as_secs_f64(),
                )
                .await?;
                metrics.inspect(|m| m.count("failed"));
            }
        }
    }
    Ok(claimed.len())
}

/// Runs the sender on a thread of its own (the HTTP client lives on one thread) until
/// `stop` turns true.
pub fn spawn_sender(
    pool: Pool,
    settings: SenderSettings,
    metrics: WebhookMetrics,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("webhooks".to_owned())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(error) => {
                    tracing::error!(%error, "the webhook sender could not start");
                    return;
                }
            };
            let local = tokio::task::LocalSet::new();
            local.block_on(&runtime, async move {
                let client = http_client(&settings);
                loop {
                    if *stop.borrow() {
                        return;
                    }
                    let attempted = deliver_due(&pool, &client, &settings, Some(&metrics)).await;
                    if let Err(error) = &attempted {
                        tracing::warn!(%error, "webhook pass failed; trying again");
                    }
                    if !matches!(attempted, Ok(n) if n > 0) {
                        tokio::select! {
                            _ = tokio::time::sleep(settings.poll) => {}
                            _ = stop.changed() => {}
                        }
                    }
                }
            });
        })
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
    fn backoff_doubles_from_its_base_and_stops_at_its_ceiling() {
        let settings = SenderSettings {
            retry_base: Duration::from_secs(5),
            retry_max: Duration::from_secs(60),
            ..SenderSettings::default()
        };
        let waits: Vec<u64> = (0..6).map(|n| settings.backoff(n).as_secs()).collect();
        assert_eq!(waits, [5, 10, 20, 40, 60, 60]);
        assert_eq!(settings.backoff(10_000).as_secs(), 60);
    }
}
