//! What the mail intake counts, for the operator's dashboards: messages kept by how they
//! came, and messages decided by what became of them, in coarse words (never an address).

use prometheus::{IntCounterVec, Opts, Registry};

/// The outcomes a decision is counted under: the first word of the inbox's outcome.
const OUTCOMES: [&str; 5] = ["recorded", "previewed", "refused", "ignored", "failed"];
const CHANNELS: [&str; 3] = ["imap", "lmtp", "smtp"];

#[derive(Debug, Clone)]
pub struct MailMetrics {
    kept: IntCounterVec,
    decided: IntCounterVec,
}

impl MailMetrics {
    pub fn new(registry: &Registry) -> prometheus::Result<Self> {
        let kept = IntCounterVec::new(
            Opts::new(
                "warlog_mail_kept_total",
                "Messages kept in the inbox, by how they came (imap, lmtp, smtp).",
            ),
            &["channel"],
        )?;
        let decided = IntCounterVec::new(
            Opts::new(
                "warlog_mail_decided_total",
                "Messages decided by the intake, by how they came and what became of them \
                 (recorded, previewed, refused, ignored, failed).",
            ),
            &["channel", "outcome"],
        )?;
        // A series absent until its first event reads as "no data", not as 0.
        for channel in CHANNELS {
            kept.with_label_values(&[channel]);
            for outcome in OUTCOMES {
                decided.with_label_values(&[channel, outcome]);
            }
        }
        registry.register(Box::new(kept.clone()))?;
        registry.register(Box::new(decided.clone()))?;
        Ok(MailMetrics { kept, decided })
    }

    /// Metrics registered nowhere (tools and tests that read no `/metrics`).
    pub fn unregistered() -> Self {
        Self::new(&Registry::new()).unwrap_or_else(|_| unreachable!("a new registry is empty"))
    }

    pub fn kept(&self, channel: &str) {
        self.kept.with_label_values(&[channel]).inc();
    }

    /// Counts a decision whose inbox outcome is `outcome` (`refused earlier-turn`, ...).
    pub fn decided(&self, channel: &str, outcome: &str) {
        let word = outcome.split([' ', ':']).next().unwrap_or_default();
        let word = OUTCOMES
            .iter()
            .find(|o| **o == word)
            .copied()
            .unwrap_or("failed");
        self.decided.with_label_values(&[channel, word]).inc();
    }
}
