//! The service's mail desk (issue 51): whether turns are reported to the table by mail,
//! where players' replies go and how they are checked. The write path reads it to make a
//! turn's reports in the transaction that records the turn; the intake reads it to decide
//! a player's mail.

use std::sync::Arc;

use warlog_store::webhooks::TurnReplies;

/// What the mail desk does; by default nothing (no mail is sent, none taken).
#[derive(Debug, Clone)]
pub struct MailDesk {
    /// Whether the service sends mail: only then is a turn's report made for the table.
    pub reports: bool,
    /// Where replies go and the key their tokens are made with; none when turns are not
    /// taken by mail (no reply address is given).
    pub replies: Option<Arc<TurnReplies>>,
    /// The service's public address, for links (`--public-url`); paths without it.
    pub public_url: Option<crate::public_url::PublicUrl>,
    /// The operator's receiving server, whose `Authentication-Results` headers (RFC 8601)
    /// the intake trusts for DMARC (`--mail-authserv-id`); none: no check can be made.
    pub authserv_id: Option<String>,
    /// The largest message taken, in bytes.
    pub max_message_bytes: usize,
    /// Answers to one player's mails in an hour, at most.
    pub answers_per_hour: i64,
}

impl Default for MailDesk {
    fn default() -> Self {
        MailDesk {
            reports: false,
            replies: None,
            public_url: None,
            authserv_id: None,
            max_message_bytes: 256 * 1024,
            answers_per_hour: 20,
        }
    }
}

impl MailDesk {
    /// The address of a page on the site: absolute when the public address is known.
    pub fn link(&self, path: &str) -> String {
        match &self.public_url {
            Some(base) => base.join(path),
            None => path.to_owned(),
        }
    }
}
