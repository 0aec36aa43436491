//! Turns by mail (issue 51): mail in, two ways, one intake.
//!
//! A message reaches the service from a mailbox the operator has, read over IMAP
//! ([`imap`]), or from the operator's mail server over LMTP or SMTP ([`listener`]). Either
//! way it is kept whole in the inbox table before anything is decided, and acknowledged
//! (the listener's 250, the IMAP flag once decided) only after that. The intake
//! ([`spawn_intake`]) claims kept messages, decides each ([`decide`]), and marks it decided
//! with its answer in one transaction, after the decision is on the record: a crash in
//! between decides it again, and the message's idempotency key makes that second decision
//! the first one's answer.

mod answers;
mod decide;
pub mod imap;
pub mod incoming;
pub mod listener;
mod metrics;

pub use metrics::MailMetrics;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{watch, Notify};
use warlog_store::inbox::{claim_messages, mark_decided, put_off, InboxMessage};
use warlog_store::mail::{answers_made_lately, enqueue_direct_mail, DirectMail, Recipient};
use warlog_store::StoreError;

pub use decide::Verdict;

use crate::AppState;

/// How many messages one pass claims, and how long a claim lasts.
const BATCH: u32 = 8;
const LEASE_SECONDS: f64 = 300.0;
/// Attempts after which a message that cannot be decided is given up on (its outcome says
/// so; it is not answered).
const MAX_ATTEMPTS: i32 = 12;

/// The intake's doorbell: the listener and the IMAP reader ring it when they keep a
/// message, and the intake rings the IMAP reader when it has decided one.
#[derive(Debug)]
pub struct Doorbell {
    kept: Notify,
    decided: Notify,
    metrics: MailMetrics,
}

impl Default for Doorbell {
    fn default() -> Self {
        Doorbell::counting(MailMetrics::unregistered())
    }
}

impl Doorbell {
    /// A doorbell that counts in `metrics` what rings it.
    pub fn counting(metrics: MailMetrics) -> Self {
        Doorbell {
            kept: Notify::new(),
            decided: Notify::new(),
            metrics,
        }
    }

    /// A message came `channel`'s way and was kept.
    pub fn message_kept(&self, channel: warlog_store::inbox::Channel) {
        self.metrics.kept(channel.as_str());
        self.kept.notify_one();
    }

    pub fn message_decided(&self) {
        self.decided.notify_one();
    }

    pub async fn wait_for_decisions(&self) {
        self.decided.notified().await
    }
}

/// Decides every message kept and due, one after another: how many were claimed.
pub async fn decide_due(state: &AppState, doorbell: &Doorbell) -> Result<usize, StoreError> {
    let claimed = {
        let client = state.store.pool().get().await?;
        claim_messages(&client, BATCH, LEASE_SECONDS).await?
    };
    let count = claimed.len();
    for message in claimed {
        // Each decision runs as a task of its own: a message no one foresaw can stop only
        // its own decision, never the intake.
        let deciding = {
            let (state, message) = (state.clone(), message.clone());
            tokio::spawn(async move { decide::decide(&state, &message).await })
        };
        let verdict = deciding.await.unwrap_or_else(|_| {
            tracing::error!(
                inbox = message.inbox_id,
                "deciding a mail failed unexpectedly"
            );
            Verdict::PutOff
        });
        let verdict = match verdict {
            Verdict::PutOff if message.attempts >= MAX_ATTEMPTS => Verdict::Decided {
                outcome: "failed: given up after repeated attempts".to_owned(),
                answer: None,
            },
            verdict => verdict,
        };
        match verdict {
            Verdict::Decided { outcome, answer } => {
                close(state, &message, &outcome, answer).await?;
                tracing::info!(inbox = message.inbox_id, channel = message.channel.as_str(), %outcome, "a mail was decided");
                doorbell.metrics.decided(message.channel.as_str(), &outcome);
                doorbell.message_decided();
            }
            Verdict::PutOff => {
                let client = state.store.pool().get().await?;
                let wait = crate::retry::backoff(
                    Duration::from_secs(5),
                    Duration::from_secs(600),
                    message.attempts,
                );
                put_off(&client, message.inbox_id, wait.as_secs_f64()).await?;
            }
        }
    }
    Ok(count)
}

/// Marks `message` decided and makes its answer, in one transaction: the answer is made
/// once, whatever retries, and only with the decision. An address answered as often as the
/// desk allows in the last hour gets no more answers.
async fn close(
    state: &AppState,
    message: &InboxMessage,
    outcome: &str,
    reply: Option<decide::Reply>,
) -> Result<(), StoreError> {
    let mut client = state.store.pool().get().await?;
    let tx = client.transaction().await?;
    let mut outcome = outcome.to_owned();
    if let Some(decide::Reply {
        handle,
        in_reply_to,
        answer,
    }) = reply
    {
        let lately = answers_made_lately(&tx, &handle, 3600.0).await?;
        if lately < state.mail_desk.answers_per_hour {
            let key = hex::encode(message.message_key);
            let mail = DirectMail {
                in_reply_to,
                answer: true,
                ..DirectMail::notice(
                    format!("answer-{key}"),
                    Recipient::Player(handle),
                    answer.subject,
                    answer.body,
                )
            };
            // An answer is about no event: it is filed under the message's own id.
            let id = uuid::Uuid::from_slice(&message.message_key[..16]).unwrap_or_default();
            enqueue_direct_mail(&tx, &mail, &id, 0).await?;
        } else {
            outcome.push_str(" (not answered: the hour's answers were sent)");
        }
    }
    mark_decided(&tx, message.inbox_id, &outcome).await?;
    tx.commit().await?;
    Ok(())
}

/// The key reply tokens are made with: read from the store (drawn and kept there the first
/// time, so every replica and every restart makes and checks the same tokens).
pub async fn reply_key(
    pool: &warlog_store::Pool,
) -> Result<warlog_events::by_mail::token::ReplyKey, StoreError> {
    let mut drawn = [0u8; 32];
    getrandom::fill(&mut drawn)
        .map_err(|e| StoreError::Corrupt(format!("no OS randomness: {e}")))?;
    let client = pool.get().await?;
    let key = warlog_store::dice_tables::service_secret(&client, REPLY_KEY, drawn).await?;
    Ok(warlog_events::by_mail::token::ReplyKey::from_bytes(key))
}

/// The service secret reply tokens are keyed with.
const REPLY_KEY: &str = "mail-reply-key";

/// Runs the intake until `stop` turns true: a pass whenever a message is kept, and every
/// `poll` in any case (another replica's listener may have kept one).
pub fn spawn_intake(
    state: AppState,
    doorbell: Arc<Doorbell>,
    poll: Duration,
    mut stop: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            if *stop.borrow() {
                break;
            }
            let busy = match decide_due(&state, &doorbell).await {
                Ok(claimed) => claimed > 0,
                Err(error) => {
                    tracing::warn!(%error, "the mail inbox could not be read; trying again");
                    false
                }
            };
            if !busy {
                tokio::select! {
                    _ = doorbell.kept.notified() => {}
                    _ = tokio::time::sleep(poll) => {}
                    _ = stop.changed() => {}
                }
            }
        }
    })
}
