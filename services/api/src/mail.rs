//! "Your move" mail: the operator's SMTP settings, parsed at the edge (`--smtp-url`,
//! `--mail-from`), and the sender that works through the mail outbox (which the `webhooks`
//! projection fills when a turn begins for a player with an address). A mail is sent at
//! least once: a sender that dies between the server's acceptance and the record of it
//! sends it again after its lease, with the same `Message-ID`, by which a mail system can
//! tell the repeat.

use std::fmt;
use std::time::Duration;

use lettre::message::header::{ContentType, Header, HeaderName, HeaderValue};
use lettre::message::Mailbox;
use lettre::transport::smtp::Error as SmtpError;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use warlog_store::mail::{
    claim_due_mail, expire_mail, mark_mail_failed, mark_mail_sent, ClaimedMail,
};
use warlog_store::{Pool, StoreError};

/// Where mail goes out: `smtp://host:port` (plain, for a relay on the operator's own
/// network), `smtp://host?tls=required` (STARTTLS, port 587 by default) or
/// `smtps://user:password@host` (TLS from the start, port 465), with an optional user and
/// password (percent-encoded). Shown without its password.
#[derive(Clone, PartialEq, Eq)]
pub struct SmtpUrl(String);

impl TryFrom<&str> for SmtpUrl {
    type Error = String;

    fn try_from(given: &str) -> Result<Self, Self::Error> {
        let url = url::Url::parse(given).map_err(|_| {
            "--smtp-url: not a URL (smtp://host:port or smtps://user:password@host)"
        })?;
        if !matches!(url.scheme(), "smtp" | "smtps") {
            return Err("--smtp-url: the scheme is smtp or smtps".to_owned());
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err("--smtp-url: it names no host".to_owned());
        }
        match url.query_pairs().find(|(k, _)| k == "tls").map(|(_, v)| v) {
            None => {}
            Some(v) if url.scheme() == "smtp" && (v == "required" || v == "opportunistic") => {}
            Some(_) => {
                return Err(
                    "--smtp-url: tls= is `required` or `opportunistic`, and only with smtp://"
                        .to_owned(),
                )
            }
        }
        // lettre reads the given URL; checking it here makes a typo fail at start, not at
        // the first turn.
        AsyncSmtpTransport::<Tokio1Executor>::from_url(given)
            .map_err(|_| "--smtp-url: not a connection URL the mailer can use".to_owned())?;
        Ok(SmtpUrl(given.to_owned()))
    }
}

impl fmt::Display for SmtpUrl {
    /// The URL with its password, if any, replaced by `***`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match url::Url::parse(&self.0) {
            Ok(mut url) if url.password().is_some() => {
                let _ = url.set_password(Some("***"));
                f.write_str(url.as_str())
            }
            Ok(url) => f.write_str(url.as_str()),
            Err(_) => f.write_str("smtp://?"),
        }
    }
}

impl fmt::Debug for SmtpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SmtpUrl({self})")
    }
}

/// The sender's address (`--mail-from`): `warlog@club.example` or
/// `Club League <warlog@club.example>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailFrom(Mailbox);

impl TryFrom<&str> for MailFrom {
    type Error = String;

    fn try_from(given: &str) -> Result<Self, Self::Error> {
        if given.chars().any(char::is_control) {
            return Err("--mail-from: no control characters".to_owned());
        }
        given.parse::<Mailbox>().map(MailFrom).map_err(|_| {
            "--mail-from: an address (`warlog@club.example` or `League <warlog@club.example>`)"
                .to_owned()
        })
    }
}

impl MailFrom {
    /// The domain of the sender's address: where replies go unless told otherwise.
    pub fn domain(&self) -> &str {
        self.0.email.domain()
    }
}

impl fmt::Display for MailFrom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// How the mail sender works.
#[derive(Debug, Clone)]
pub struct MailSettings {
    pub smtp: SmtpUrl,
    pub from: MailFrom,
    /// The wait after a first failure; doubled after each further one.
    pub retry_base: Duration,
    /// The longest wait between attempts.
    pub retry_max: Duration,
    /// How long one conversation with the server may take.
    pub timeout: Duration,
    /// A mail tried this often is given up on.
    pub max_attempts: i32,
    /// A mail whose turn began longer ago than this is given up on, tried or not.
    pub max_age: Duration,
    /// How many mails one pass claims.
    pub batch: u32,
    /// How often the sender looks for due mails when there were none.
    pub poll: Duration,
}

impl MailSettings {
    /// The defaults for `smtp` and `from`.
    pub fn new(smtp: SmtpUrl, from: MailFrom) -> Self {
        MailSettings {
            smtp,
            from,
            retry_base: Duration::from_secs(30),
            retry_max: Duration::from_secs(3600),
            timeout: Duration::from_secs(30),
            max_attempts: 10,
            max_age: Duration::from_secs(24 * 3600),
            batch: 16,
            poll: Duration::from_secs(2),
        }
    }

    /// The wait before the next attempt, after `attempts` failed ones.
    pub fn backoff(&self, attempts: i32) -> Duration {
        crate::retry::backoff(self.retry_base, self.retry_max, attempts)
    }

    /// A claim lasts as long as a conversation could, and a little more.
    fn lease(&self) -> Duration {
        self.timeout.saturating_mul(2) + Duration::from_secs(5)
    }
}

/// Why a mail was not sent, in the coarse words the outbox keeps: never the server's text,
/// which can carry the address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MailFailure {
    /// The server refused the mail for good (a 5xx answer): it is not tried again.
    #[error("rejected {0}")]
    Rejected(u16),
    /// The server put it off (a 4xx answer).
    #[error("deferred {0}")]
    Deferred(u16),
    #[error("timeout")]
    Timeout,
    #[error("refused")]
    Refused,
    #[error("tls")]
    Tls,
    #[error("address refused")]
    Address,
    #[error("not sent")]
    NotSent,
}

impl MailFailure {
    fn of(error: &SmtpError) -> MailFailure {
        let code = || error.status().map_or(0, u16::from);
        if error.is_permanent() {
            MailFailure::Rejected(code())
        } else if error.is_transient() {
            MailFailure::Deferred(code())
        } else if error.is_timeout() {
            MailFailure::Timeout
        } else if error.is_tls() {
            MailFailure::Tls
        } else if refused(error) {
            MailFailure::Refused
        } else {
            MailFailure::NotSent
        }
    }

    /// Whether trying again cannot help.
    fn is_final(self) -> bool {
        matches!(self, MailFailure::Rejected(_) | MailFailure::Address)
    }
}

/// Whether the connection to the server was refused.
fn refused(error: &SmtpError) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return io.kind() == std::io::ErrorKind::ConnectionRefused;
        }
        source = cause.source();
    }
    false
}

/// RFC 3834's `Auto-Submitted` header: `auto-generated` (a notice, a report) or
/// `auto-replied` (an answer to a player's mail).
#[derive(Debug, Clone)]
struct AutoSubmitted(String);

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }

    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(AutoSubmitted(s.trim().to_owned()))
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.clone())
    }
}

/// The mailer: a transport to the operator's server and the settings.
#[derive(Clone)]
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    settings: MailSettings,
}

impl fmt::Debug for Mailer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mailer")
            .field("smtp", &self.settings.smtp)
            .field("from", &self.settings.from)
            .finish_non_exhaustive()
    }
}

impl Mailer {
    pub fn new(settings: MailSettings) -> Result<Self, String> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(&settings.smtp.0)
            .map_err(|_| format!("--smtp-url {}: not usable", settings.smtp))?
            .timeout(Some(settings.timeout))
            .build();
        Ok(Mailer {
            transport,
            settings,
        })
    }

    pub fn settings(&self) -> &MailSettings {
        &self.settings
    }

    /// The message for a claimed mail, or why it cannot be made (the address is refused).
    fn message(&self, mail: &ClaimedMail) -> Result<Message, MailFailure> {
        let to = mail
            .email
            .parse()
            .map(|address| Mailbox::new(mail.handle.clone(), address))
            .map_err(|_| MailFailure::Address)?;
        let mut builder = Message::builder()
            .from(self.settings.from.0.clone())
            .to(to)
            .subject(mail.subject.clone())
            // The same id on every attempt: a repeat after a lost acknowledgement is known.
            .message_id(Some(format!("<{}@warlog>", mail.mail_id)))
            // Every mail the service sends is automatic: a mail system or an
            // autoresponder that honours RFC 3834 never answers it, so no loop starts.
            .header(AutoSubmitted(mail.auto_submitted.clone()))
            .header(ContentType::TEXT_PLAIN);
        if let Some(reply_to) = &mail.reply_to {
            let reply_to = reply_to.parse().map_err(|_| MailFailure::Address)?;
            builder = builder.reply_to(reply_to);
        }
        if let Some(answered) = &mail.in_reply_to {
            builder = builder
                .in_reply_to(answered.clone())
                .references(answered.clone());
        }
        builder
            .body(mail.body.clone())
            .map_err(|_| MailFailure::Address)
    }

    /// Sends one claimed mail and records the outcome.
    async fn attempt(&self, pool: &Pool, mail: ClaimedMail) -> Result<(), StoreError> {
        let outcome = match self.message(&mail) {
            Ok(message) => self
                .transport
                .send(message)
                .await
                .map(|_| ())
                .map_err(|e| MailFailure::of(&e)),
            Err(failure) => Err(failure),
        };
        let client = pool.get().await?;
        match outcome {
            Ok(()) => mark_mail_sent(&client, &mail.mail_id).await,
            Err(failure) => {
                let attempts = mail.attempts + 1;
                let dead = failure.is_final()
                    || attempts >= self.settings.max_attempts
                    || mail.age_seconds >= self.settings.max_age.as_secs_f64();
                let error = failure.to_string();
                tracing::info!(mail = %mail.mail_id, %error, attempts, dead, "a mail was not sent");
                let retry = self.settings.backoff(mail.attempts).as_secs_f64();
                mark_mail_failed(&client, &mail.mail_id, &error, retry, dead).await
            }
        }
    }

    /// One pass: gives up on mails too old (or whose player removed the address), claims the
    /// due ones and sends them one after another; how many it attempted.
    pub async fn send_due(&self, pool: &Pool) -> Result<usize, StoreError> {
        let claimed = {
            let client = pool.get().await?;
            let expired = expire_mail(&client, self.settings.max_age.as_secs_f64()).await?;
            if expired > 0 {
                tracing::info!(
                    expired,
                    "mails given up on: too old, or no address any more"
                );
            }
            claim_due_mail(
                &client,
                self.settings.batch.max(1),
                self.settings.lease().as_secs_f64(),
            )
            .await?
        };
        let attempted = claimed.len();
        for mail in claimed {
            self.attempt(pool, mail).await?;
        }
        Ok(attempted)
    }
}

/// Runs the mail sender until `stop` turns true.
pub fn spawn_mailer(
    pool: Pool,
    mailer: Mailer,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            if *stop.borrow() {
                break;
            }
            let sent_some = match mailer.send_due(&pool).await {
                Ok(attempted) => attempted > 0,
                Err(error) => {
                    tracing::warn!(%error, "the mail outbox could not be read; trying again");
                    false
                }
            };
            if !sent_some {
                tokio::select! {
                    _ = tokio::time::sleep(mailer.settings.poll) => {}
                    _ = stop.changed() => {}
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_smtp_url_names_a_host_over_smtp_or_smtps_and_hides_its_password() {
        for good in [
            "smtp://127.0.0.1:2525",
            "smtp://mail.club.example?tls=required",
            "smtps://league:s3cret@mail.club.example",
        ] {
            assert!(SmtpUrl::try_from(good).is_ok(), "{good}");
        }
        for bad in [
            "mail.club.example",
            "http://mail.club.example",
            "smtp://",
            "smtps://mail.club.example?tls=required",
            "smtp://mail.club.example?tls=maybe",
        ] {
            let refused = SmtpUrl::try_from(bad).expect_err(bad);
            assert!(refused.starts_with("--smtp-url: "), "{refused}");
        }
        let url = SmtpUrl::try_from("smtps://league:s3cret@mail.club.example").expect("valid");
        assert!(!url.to_string().contains("s3cret"), "{url}");
        assert!(!format!("{url:?}").contains("s3cret"));
    }

    #[test]
    fn the_sender_is_an_address_with_or_without_a_name() {
        assert!(MailFrom::try_from("warlog@club.example").is_ok());
        assert!(MailFrom::try_from("Club League <warlog@club.example>").is_ok());
        assert!(MailFrom::try_from("not an address").is_err());
        assert!(MailFrom::try_from("a@b.example\r\nBcc: x@y.example").is_err());
    }

    #[test]
    fn mail_backoff_doubles_from_its_base_and_stops_at_its_ceiling() {
        let mut settings = MailSettings::new(
            SmtpUrl::try_from("smtp://127.0.0.1:25").expect("valid"),
            MailFrom::try_from("warlog@club.example").expect("valid"),
        );
        settings.retry_base = Duration::from_secs(5);
        settings.retry_max = Duration::from_secs(60);
        let waits: Vec<u64> = (0..6).map(|n| settings.backoff(n).as_secs()).collect();
        assert_eq!(waits, [5, 10, 20, 40, 60, 60]);
    }

    #[test]
    fn failures_are_told_in_coarse_words_and_only_a_rejection_is_final() {
        assert_eq!(MailFailure::Rejected(550).to_string(), "rejected 550");
        assert_eq!(MailFailure::Deferred(451).to_string(), "deferred 451");
        assert!(MailFailure::Rejected(550).is_final());
        assert!(MailFailure::Address.is_final());
        for passing in [
            MailFailure::Deferred(421),
            MailFailure::Timeout,
            MailFailure::Refused,
            MailFailure::Tls,
            MailFailure::NotSent,
        ] {
            assert!(!passing.is_final(), "{passing}");
        }
    }
}
