//! The webhook sender: it claims due deliveries from the outbox (which the `webhooks`
//! projection fills from the event log), one per subscription at a time, posts them
//! concurrently to their subscriptions' URLs, signed, and records the outcomes. A receiver
//! that hangs holds only its own subscription's delivery, for at most the timeout.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use awc::error::{ConnectError, SendRequestError};
use warlog_store::webhooks::{
    claim_due, expire_deliveries, mark_delivered, mark_failed, AfterFailure, Claimed,
};
use warlog_store::{Pool, StoreError};

use super::address::{GuardedResolver, Refusal};
use super::{signature, WebhookMetrics, WebhookPolicy};

/// How the sender works.
#[derive(Debug, Clone)]
pub struct SenderSettings {
    /// The wait after a first failure; doubled after each further one.
    pub retry_base: Duration,
    /// The longest wait between attempts.
    pub retry_max: Duration,
    /// How long one attempt may take.
    pub timeout: Duration,
    /// How many deliveries may be in flight at once (each to another subscription).
    pub batch: u32,
    /// How often the sender looks for due deliveries when there were none.
    pub poll: Duration,
    /// A delivery tried this often is given up on (dead-lettered).
    pub max_attempts: i32,
    /// A delivery older than this is given up on, tried or not.
    pub max_age: Duration,
    /// A subscription whose attempts failed this many times in a row is paused until its
    /// owner resumes it.
    pub pause_after: i32,
    /// Where deliveries may go, and the key their secrets are sealed with.
    pub policy: WebhookPolicy,
}

impl Default for SenderSettings {
    fn default() -> Self {
        SenderSettings {
            retry_base: Duration::from_secs(5),
            retry_max: Duration::from_secs(3600),
            timeout: Duration::from_secs(10),
            batch: 32,
            poll: Duration::from_secs(1),
            max_attempts: 20,
            max_age: Duration::from_secs(3 * 24 * 3600),
            pause_after: 10,
            policy: WebhookPolicy::default(),
        }
    }
}

impl SenderSettings {
    /// The wait before the next attempt, after `attempts` failed ones.
    pub fn backoff(&self, attempts: i32) -> Duration {
        crate::retry::backoff(self.retry_base, self.retry_max, attempts)
    }

    /// A subscription's claim lasts as long as one attempt could (connecting, then the
    /// answer): a sender that dies mid-attempt leaves it to fall due again after that.
    fn lease(&self) -> Duration {
        self.timeout.saturating_mul(2) + Duration::from_secs(5)
    }
}

/// Why an attempt failed, in the coarse words the deliveries listing shows: never what a
/// receiver (or an internal port) said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    #[error("status {0}")]
    Status(u16),
    #[error("refused")]
    Refused,
    #[error("timeout")]
    Timeout,
    #[error("address not allowed")]
    NotAllowed,
    #[error("host not found")]
    NotResolved,
    #[error("secret unreadable")]
    SecretUnreadable,
    #[error("not delivered")]
    NotDelivered,
}

impl Failure {
    fn of_refusal(refusal: &Refusal) -> Failure {
        match refusal {
            Refusal::NotResolved | Refusal::NotAHost => Failure::NotResolved,
            Refusal::Address(_) | Refusal::LocalName => Failure::NotAllowed,
        }
    }

    fn of_send(error: &SendRequestError) -> Failure {
        match error {
            SendRequestError::Timeout => Failure::Timeout,
            SendRequestError::Connect(ConnectError::Timeout) => Failure::Timeout,
            SendRequestError::Connect(ConnectError::Resolver(error)) => error
                .downcast_ref::<Refusal>()
                .map_or(Failure::NotResolved, Failure::of_refusal),
            SendRequestError::Connect(ConnectError::NoRecords) => Failure::NotResolved,
            SendRequestError::Connect(ConnectError::Io(error)) => match error.kind() {
                std::io::ErrorKind::ConnectionRefused => Failure::Refused,
                std::io::ErrorKind::TimedOut => Failure::Timeout,
                _ => Failure::NotDelivered,
            },
            _ => Failure::NotDelivered,
        }
    }
}

/// The HTTP client deliveries go out with: TLS by rustls (ring) with the web's roots, names
/// resolved by the guard (the connection goes to the addresses it checked), no redirects
/// (a subscription names where its deliveries go), a timeout per attempt.
pub fn http_client(settings: &SenderSettings) -> awc::Client {
    let resolver =
        actix_tls::connect::Resolver::custom(GuardedResolver(settings.policy.guard.clone()));
    let tcp = actix_tls::connect::Connector::new(resolver).service();
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let connector = awc::Connector::new().connector(tcp);
    let connector = match rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
    {
        Ok(config) => connector.rustls_0_23(Arc::new(
            config.with_root_certificates(roots).with_no_client_auth(),
        )),
        // ring supports the default versions; were it not to, plain HTTP still works.
        Err(_) => connector,
    };
    awc::Client::builder()
        .connector(connector.timeout(settings.timeout))
        .timeout(settings.timeout)
        .disable_redirects()
        .finish()
}

/// Posts one claimed delivery: the status the receiver accepted it with, or why not.
async fn post(
    client: &awc::Client,
    policy: &WebhookPolicy,
    delivery: &Claimed,
    now: i64,
) -> Result<u16, Failure> {
    let secret = policy
        .keys
        .open(&delivery.subscription_id, &delivery.secret)
        .map_err(|_| Failure::SecretUnreadable)?;
    // The URL as a browser reads it (`http://2130706433/` is 127.0.0.1). An address in
    // it is checked here, since the connector resolves only names.
    let url = url::Url::parse(&delivery.url).map_err(|_| Failure::NotResolved)?;
    match url.host() {
        Some(url::Host::Ipv4(ip)) => policy.guard.check_ip(ip.into()),
        Some(url::Host::Ipv6(ip)) => policy.guard.check_ip(ip.into()),
        Some(url::Host::Domain(_)) => Ok(()),
        None => Err(Refusal::NotAHost),
    }
    .map_err(|refusal| Failure::of_refusal(&refusal))?;
    let sent = client
        .post(url.as_str())
        // A new connection each time: its name is resolved, and checked, at every send.
        .force_close()
        .insert_header(("Content-Type", "application/json"))
        .insert_header(("User-Agent", "warlog-webhooks"))
        .insert_header(("Webhook-Id", delivery.delivery_id.as_str()))
        .insert_header(("Webhook-Timestamp", now.to_string()))
        .insert_header(("Webhook-Signature", signature(&secret, now, &delivery.body)))
        .send_body(delivery.body.clone())
        .await;
    match sent {
        Ok(response) if response.status().is_success() => Ok(response.status().as_u16()),
        Ok(response) => Err(Failure::Status(response.status().as_u16())),
        Err(error) => Err(Failure::of_send(&error)),
    }
}

/// Attempts one claimed delivery and records the outcome.
async fn attempt(
    pool: &Pool,
    client: &awc::Client,
    settings: &SenderSettings,
    metrics: Option<&WebhookMetrics>,
    delivery: Claimed,
) -> Result<(), StoreError> {
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    // No connection is held while the receiver takes its time.
    let outcome = post(client, &settings.policy, &delivery, now).await;
    let connection = pool.get().await?;
    match outcome {
        Ok(status) => {
            mark_delivered(&connection, &delivery, status).await?;
            metrics.inspect(|m| m.count("delivered"));
        }
        Err(failure) => {
            let attempts = delivery.attempts + 1;
            let dead = attempts >= settings.max_attempts
                || delivery.age_seconds >= settings.max_age.as_secs_f64();
            let after = AfterFailure {
                retry_in_seconds: settings.backoff(delivery.attempts).as_secs_f64(),
                subscription_retry_in_seconds: settings
                    .backoff(delivery.consecutive_failures)
                    .as_secs_f64(),
                dead,
                pause_after: settings.pause_after.max(1),
            };
            let error = failure.to_string();
            tracing::info!(delivery = %delivery.delivery_id, %error, attempts, dead, "webhook delivery failed");
            let failed = mark_failed(
                &connection,
                &delivery,
                failure_status(failure),
                &error,
                after,
            )
            .await?;
            if let Some(metrics) = metrics {
                metrics.count(if failure == Failure::NotAllowed {
                    "not_allowed"
                } else {
                    "failed"
                });
                if dead {
                    metrics.dead_lettered.inc();
                }
                if failed.paused && delivery.consecutive_failures + 1 == after.pause_after {
                    metrics.paused.inc();
                }
            }
            if failed.paused {
                tracing::warn!(subscription = %delivery.subscription_id, "webhook subscription paused after consecutive failures");
            }
        }
    }
    Ok(())
}

fn failure_status(failure: Failure) -> Option<u16> {
    match failure {
        Failure::Status(status) => Some(status),
        _ => None,
    }
}

/// Gives up on deliveries too old, then claims up to `room` due ones (one per
/// subscription).
async fn claim(
    pool: &Pool,
    settings: &SenderSettings,
    metrics: Option<&WebhookMetrics>,
    room: u32,
) -> Result<Vec<Claimed>, StoreError> {
    let connection = pool.get().await?;
    let expired = expire_deliveries(&connection, settings.max_age.as_secs_f64()).await?;
    if expired > 0 {
        tracing::info!(expired, "webhook deliveries given up on: too old");
        metrics.inspect(|m| m.dead_lettered.inc_by(expired));
    }
    claim_due(&connection, room, settings.lease().as_secs_f64()).await
}

/// One pass: claims the due deliveries (one per subscription) and attempts them all at
/// once; how many it attempted.
pub async fn deliver_due(
    pool: &Pool,
    client: &awc::Client,
    settings: &SenderSettings,
    metrics: Option<&WebhookMetrics>,
) -> Result<usize, StoreError> {
    let claimed = claim(pool, settings, metrics, settings.batch).await?;
    let attempted = claimed.len();
    let outcomes = futures_util::future::join_all(
        claimed
            .into_iter()
            .map(|delivery| attempt(pool, client, settings, metrics, delivery)),
    )
    .await;
    outcomes.into_iter().collect::<Result<Vec<()>, _>>()?;
    Ok(attempted)
}

/// Runs the sender on a thread of its own (the HTTP client lives on one thread) until
/// `stop` turns true: up to `batch` deliveries in flight, each its own task, and a new
/// claim whenever one finishes, so a slow receiver holds nobody else's delivery.
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
                let client = Rc::new(http_client(&settings));
                let settings = Rc::new(settings);
                let metrics = Rc::new(metrics);
                let in_flight = Rc::new(Cell::new(0u32));
                let finished = Rc::new(tokio::sync::Notify::new());
                loop {
                    if *stop.borrow() {
                        break;
                    }
                    let room = settings.batch.max(1).saturating_sub(in_flight.get());
                    let mut claimed_some = false;
                    if room > 0 {
                        match claim(&pool, &settings, Some(&metrics), room).await {
                            Ok(claimed) => {
                                claimed_some = !claimed.is_empty();
                                for delivery in claimed {
                                    in_flight.set(in_flight.get() + 1);
                                    let (pool, client, settings, metrics) = (
                                        pool.clone(),
                                        client.clone(),
                                        settings.clone(),
                                        metrics.clone(),
                                    );
                                    let (in_flight, finished) =
                                        (in_flight.clone(), finished.clone());
                                    tokio::task::spawn_local(async move {
                                        let done = attempt(
                                            &pool,
                                            &client,
                                            &settings,
                                            Some(&metrics),
                                            delivery,
                                        )
                                        .await;
                                        if let Err(error) = done {
                                            tracing::warn!(%error, "a webhook outcome was not recorded; the delivery falls due again after its lease");
                                        }
                                        in_flight.set(in_flight.get() - 1);
                                        finished.notify_one();
                                    });
                                }
                            }
                            Err(error) => {
                                tracing::warn!(%error, "webhook claim failed; trying again");
                            }
                        }
                    }
                    if !claimed_some {
                        tokio::select! {
                            _ = tokio::time::sleep(settings.poll) => {}
                            _ = finished.notified() => {}
                            _ = stop.changed() => {}
                        }
                    }
                }
                // Attempts in flight end within their timeout; their outcomes are kept.
                while in_flight.get() > 0 {
                    finished.notified().await;
                }
            });
        })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn failures_are_told_in_coarse_words_only() {
        let words: Vec<String> = [
            Failure::Status(401),
            Failure::Refused,
            Failure::Timeout,
            Failure::NotAllowed,
            Failure::NotResolved,
            Failure::SecretUnreadable,
            Failure::NotDelivered,
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        assert_eq!(
            words,
            [
                "status 401",
                "refused",
                "timeout",
                "address not allowed",
                "host not found",
                "secret unreadable",
                "not delivered"
            ]
        );
        let refused = SendRequestError::Connect(ConnectError::Resolver(Box::new(
            Refusal::Address("loopback"),
        )));
        assert_eq!(Failure::of_send(&refused), Failure::NotAllowed);
        let io = SendRequestError::Connect(ConnectError::Io(std::io::Error::from(
            std::io::ErrorKind::ConnectionRefused,
        )));
        assert_eq!(Failure::of_send(&io), Failure::Refused);
        assert_eq!(
            Failure::of_send(&SendRequestError::Timeout),
            Failure::Timeout
        );
    }
}
