//! Players' e-mail addresses and the outbox of "your move" mails. An address is private:
//! a row of its own, never an event (the log is exported publicly). The `webhooks`
//! projection makes a mail row in the transaction that enqueues the webhook deliveries of
//! the same event ([`enqueue_turn_mail`]); the mail sender claims due rows for a lease,
//! sends them and records the outcome, as the webhook sender does.
//!
//! A dice table's roll is mailed to its pair of addresses, which are no player's: such a
//! mail keeps its address on its row ([`enqueue_direct_mail`]) and forgets it once the mail
//! is sent or given up on.

use deadpool_postgres::{GenericClient, Transaction};
use warlog_events::notices::TurnBegun;
use warlog_events::RecordedEvent;

use crate::projector::recorded_at;
use crate::StoreError;

const UTC: &str = "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'";

/// A player's address on file.
#[derive(Clone, PartialEq, Eq)]
pub struct PlayerEmail {
    pub handle: String,
    pub email: String,
    /// The token's name that set it.
    pub set_by: String,
    /// RFC 3339, UTC.
    pub set_at: String,
}

/// Kept out of logs: an address is private.
impl std::fmt::Debug for PlayerEmail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlayerEmail")
            .field("handle", &self.handle)
            .field("set_by", &self.set_by)
            .field("set_at", &self.set_at)
            .finish_non_exhaustive()
    }
}

/// The address on file for `handle`, if any.
pub async fn find_email(
    client: &impl GenericClient,
    handle: &str,
) -> Result<Option<PlayerEmail>, StoreError> {
    let row = client
        .query_opt(
            &format!(
                "SELECT handle, email, set_by, to_char(set_at AT TIME ZONE 'UTC', {UTC}) \
                   FROM player_emails WHERE handle = $1"
            ),
            &[&handle],
        )
        .await?;
    Ok(row.map(|row| PlayerEmail {
        handle: row.get(0),
        email: row.get(1),
        set_by: row.get(2),
        set_at: row.get(3),
    }))
}

/// Sets (or replaces) `handle`'s address, as of `at` (RFC 3339: the service's clock, the
/// one events are recorded by). Mails already made for the player go to the new address.
pub async fn set_email(
    client: &impl GenericClient,
    handle: &str,
    email: &str,
    set_by: &str,
    at: &str,
) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO player_emails (handle, email, set_by, set_at) \
             VALUES ($1, $2, $3, ($4::text)::timestamptz) \
             ON CONFLICT (handle) DO UPDATE \
                SET email = EXCLUDED.email, set_by = EXCLUDED.set_by, set_at = EXCLUDED.set_at",
            &[&handle, &email, &set_by, &at],
        )
        .await?;
    Ok(())
}

/// Removes `handle`'s address and the mails not yet sent to it (those sent stay as
/// history, without the address); whether there was one.
pub async fn delete_email(
    client: &mut deadpool_postgres::Client,
    handle: &str,
) -> Result<bool, StoreError> {
    let tx = client.transaction().await?;
    let deleted = tx
        .execute("DELETE FROM player_emails WHERE handle = $1", &[&handle])
        .await?;
    tx.execute(
        "DELETE FROM mail_outbox WHERE handle = $1 AND sent_at IS NULL AND dead_at IS NULL",
        &[&handle],
    )
    .await?;
    tx.commit().await?;
    Ok(deleted == 1)
}

/// Makes the mail telling `turn`'s player that it has begun, if the player has an address
/// set before `event` was recorded (a projector working through the past mails nobody about
/// it). Once per event and player, whatever restarts. `link` is the turn page's address.
pub async fn enqueue_turn_mail(
    tx: &Transaction<'_>,
    event: &RecordedEvent,
    turn: &TurnBegun,
    link: &str,
    reply_to: Option<&str>,
) -> Result<bool, StoreError> {
    let Some(player) = &turn.player else {
        return Ok(false);
    };
    let mail_id = format!("{}.{player}", event.event_id.simple());
    let made = tx
        .execute(
            "INSERT INTO mail_outbox \
                 (mail_id, event_id, position, handle, subject, body, began_at, reply_to) \
             SELECT $1, $2, $7, e.handle, $3, $4, ($6::text)::timestamptz, $8 \
               FROM player_emails e \
              WHERE e.handle = $5 AND e.set_at <= ($6::text)::timestamptz \
             ON CONFLICT (mail_id) DO NOTHING",
            &[
                &mail_id,
                &event.event_id,
                &turn.subject(),
                &turn.mail_text(link, reply_to.is_some()),
                player,
                &recorded_at(event),
                &event.position,
                &reply_to,
            ],
        )
        .await?;
    Ok(made == 1)
}

/// Who a mail made in a write goes to.
#[derive(Clone)]
pub enum Recipient {
    /// An address kept on the mail's row (a dice table's pair), forgotten once sent.
    Address(String),
    /// A player, at the address on file when the mail is sent; none is made for a player
    /// with no address.
    Player(String),
}

/// A mail made in the transaction that appends `event_id`, at `position` in the log: a
/// dice table's roll to each of its pair, a turn's report to each player at the table, an
/// answer to a player's mail.
#[derive(Clone)]
pub struct DirectMail {
    pub mail_id: String,
    pub to: Recipient,
    pub subject: String,
    pub body: String,
    /// Where a reply goes (a turn's reply address).
    pub reply_to: Option<String>,
    /// The Message-ID this mail answers.
    pub in_reply_to: Option<String>,
    /// An answer to a person's mail (RFC 3834 `auto-replied`) rather than a notice
    /// (`auto-generated`).
    pub answer: bool,
}

impl DirectMail {
    /// A notice to `to`, with no reply address.
    pub fn notice(mail_id: String, to: Recipient, subject: String, body: String) -> Self {
        DirectMail {
            mail_id,
            to,
            subject,
            body,
            reply_to: None,
            in_reply_to: None,
            answer: false,
        }
    }
}

/// Kept out of logs: an address is private.
impl std::fmt::Debug for Recipient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Recipient::Address(_) => f.write_str("Address(..)"),
            Recipient::Player(handle) => write!(f, "Player({handle})"),
        }
    }
}

impl std::fmt::Debug for DirectMail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectMail")
            .field("mail_id", &self.mail_id)
            .field("subject", &self.subject)
            .finish_non_exhaustive()
    }
}

/// Makes `mail`, about the event `event_id` at `position`; once per mail id, whatever
/// retries. A mail to a player with no address on file is not made.
pub async fn enqueue_direct_mail(
    client: &impl GenericClient,
    mail: &DirectMail,
    event_id: &uuid::Uuid,
    position: i64,
) -> Result<(), StoreError> {
    let (email, handle) = match &mail.to {
        Recipient::Address(email) => (Some(email.as_str()), None),
        Recipient::Player(handle) => (None, Some(handle.as_str())),
    };
    let auto = if mail.answer {
        "auto-replied"
    } else {
        "auto-generated"
    };
    client
        .execute(
            "INSERT INTO mail_outbox \
                 (mail_id, event_id, position, email, handle, subject, body, began_at, \
                  reply_to, in_reply_to, auto_submitted) \
             SELECT $1, $2, $3, $4, $5, $6, $7, now(), $8, $9, $10 \
              WHERE $5::text IS NULL \
                 OR EXISTS (SELECT 1 FROM player_emails e WHERE e.handle = $5) \
             ON CONFLICT (mail_id) DO NOTHING",
            &[
                &mail.mail_id,
                event_id,
                &position,
                &email,
                &handle,
                &mail.subject,
                &mail.body,
                &mail.reply_to,
                &mail.in_reply_to,
                &auto,
            ],
        )
        .await?;
    Ok(())
}

/// The player whose address on file is `email` (compared without case), if one is.
pub async fn player_of_address(
    client: &impl GenericClient,
    email: &str,
) -> Result<Option<String>, StoreError> {
    let row = client
        .query_opt(
            "SELECT handle FROM player_emails WHERE lower(email) = lower($1) \
              ORDER BY set_at DESC LIMIT 1",
            &[&email.trim()],
        )
        .await?;
    Ok(row.map(|row| row.get(0)))
}

/// The addresses on file of `handles`, by handle (for deciding who wrote a mail; never
/// shown).
pub async fn addresses_of(
    client: &impl GenericClient,
    handles: &[String],
) -> Result<std::collections::BTreeMap<String, String>, StoreError> {
    let rows = client
        .query(
            "SELECT handle, email FROM player_emails WHERE handle = ANY($1)",
            &[&handles],
        )
        .await?;
    Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
}

/// How many answers to players' mails were made for `handle` in the last `seconds`: the
/// intake answers one address only so often.
pub async fn answers_made_lately(
    client: &impl GenericClient,
    handle: &str,
    seconds: f64,
) -> Result<i64, StoreError> {
    let row = client
        .query_one(
            "SELECT count(*) FROM mail_outbox \
              WHERE handle = $1 AND auto_submitted = 'auto-replied' \
                AND created_at > now() - make_interval(secs => $2)",
            &[&handle, &seconds],
        )
        .await?;
    Ok(row.get(0))
}

/// A mail the sender has claimed, with its recipient's address as it is now.
#[derive(Clone)]
pub struct ClaimedMail {
    pub mail_id: String,
    /// The player's handle; none for a mail to an address kept on its row.
    pub handle: Option<String>,
    pub email: String,
    pub subject: String,
    pub body: String,
    /// Where a reply goes, if anywhere.
    pub reply_to: Option<String>,
    /// The Message-ID the mail answers, if it answers one.
    pub in_reply_to: Option<String>,
    /// RFC 3834's kind: `auto-generated` or `auto-replied`.
    pub auto_submitted: String,
    pub attempts: i32,
    /// Seconds since the turn began.
    pub age_seconds: f64,
}

impl std::fmt::Debug for ClaimedMail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClaimedMail")
            .field("mail_id", &self.mail_id)
            .field("attempts", &self.attempts)
            .finish_non_exhaustive()
    }
}

/// Gives up on the mails not yet sent whose turn began more than `max_age_seconds` ago
/// (old news), and on those whose player has no address any more: how many. An address
/// kept on a row is forgotten with it.
pub async fn expire_mail(
    client: &impl GenericClient,
    max_age_seconds: f64,
) -> Result<u64, StoreError> {
    Ok(client
        .execute(
            "UPDATE mail_outbox m \
                SET dead_at = now(), email = NULL, \
                    last_error = CASE WHEN m.email IS NULL AND NOT EXISTS ( \
                        SELECT 1 FROM player_emails e WHERE e.handle = m.handle) \
                      THEN 'no address' ELSE coalesce(last_error, 'expired') END \
              WHERE sent_at IS NULL AND dead_at IS NULL \
                AND (began_at < now() - make_interval(secs => $1) \
                     OR (m.email IS NULL AND NOT EXISTS ( \
                         SELECT 1 FROM player_emails e WHERE e.handle = m.handle)))",
            &[&max_age_seconds],
        )
        .await?)
}

/// Claims up to `limit` due mails, in the order of play, each leased for `lease_seconds` (its next
/// attempt moves past the lease): another sender (a second replica) skips the rows this one
/// locks, and if this one dies the mails fall due again when the lease runs out.
pub async fn claim_due_mail(
    client: &impl GenericClient,
    limit: u32,
    lease_seconds: f64,
) -> Result<Vec<ClaimedMail>, StoreError> {
    let rows = client
        .query(
            "WITH picked AS ( \
                 SELECT m.mail_id FROM mail_outbox m \
                  WHERE m.sent_at IS NULL AND m.dead_at IS NULL AND m.next_attempt_at <= now() \
                  ORDER BY m.next_attempt_at, m.position, m.mail_id \
                  LIMIT $1 FOR UPDATE SKIP LOCKED), \
             leased AS ( \
                 UPDATE mail_outbox m SET next_attempt_at = now() + make_interval(secs => $2) \
                   FROM picked p WHERE m.mail_id = p.mail_id \
              RETURNING m.mail_id, m.handle, m.email, m.subject, m.body, m.attempts, \
                        extract(epoch FROM now() - m.began_at)::float8 AS age, \
                        m.reply_to, m.in_reply_to, m.auto_submitted) \
             SELECT l.mail_id, l.handle, coalesce(l.email, e.email), l.subject, l.body, \
                    l.attempts, l.age, l.reply_to, l.in_reply_to, l.auto_submitted \
               FROM leased l LEFT JOIN player_emails e ON e.handle = l.handle \
              WHERE coalesce(l.email, e.email) IS NOT NULL",
            &[&i64::from(limit), &lease_seconds],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| ClaimedMail {
            mail_id: row.get(0),
            handle: row.get(1),
            email: row.get(2),
            subject: row.get(3),
            body: row.get(4),
            attempts: row.get(5),
            age_seconds: row.get(6),
            reply_to: row.get(7),
            in_reply_to: row.get(8),
            auto_submitted: row.get(9),
        })
        .collect())
}

/// Records that the mail server accepted a mail.
pub async fn mark_mail_sent(client: &impl GenericClient, mail_id: &str) -> Result<(), StoreError> {
    client
        .execute(
            "UPDATE mail_outbox SET sent_at = now(), attempts = attempts + 1, last_error = NULL, \
                    email = NULL \
              WHERE mail_id = $1",
            &[&mail_id],
        )
        .await?;
    Ok(())
}

/// Records a failed attempt (the error in coarse words) and when to try again, or that the
/// mail is given up on.
pub async fn mark_mail_failed(
    client: &impl GenericClient,
    mail_id: &str,
    error: &str,
    retry_in_seconds: f64,
    dead: bool,
) -> Result<(), StoreError> {
    client
        .execute(
            "UPDATE mail_outbox SET attempts = attempts + 1, last_error = $2, \
                    next_attempt_at = now() + make_interval(secs => $3), \
                    dead_at = CASE WHEN $4 THEN now() END, \
                    email = CASE WHEN $4 THEN NULL ELSE email END \
              WHERE mail_id = $1",
            &[&mail_id, &error, &retry_in_seconds, &dead],
        )
        .await?;
    Ok(())
}

/// A mail as the operator's checks see it (no address, no text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailStatus {
    pub mail_id: String,
    pub handle: String,
    pub subject: String,
    pub attempts: i32,
    /// `sent`, `pending`, `failing` or `dead`.
    pub status: String,
    pub last_error: Option<String>,
}

/// The mails made for `handle`, oldest first.
pub async fn mails_of(
    client: &impl GenericClient,
    handle: &str,
) -> Result<Vec<MailStatus>, StoreError> {
    let rows = client
        .query(
            "SELECT mail_id, handle, subject, attempts, last_error, \
                    CASE WHEN sent_at IS NOT NULL THEN 'sent' \
                         WHEN dead_at IS NOT NULL THEN 'dead' \
                         WHEN last_error IS NOT NULL THEN 'failing' \
                         ELSE 'pending' END \
               FROM mail_outbox WHERE handle = $1 ORDER BY position, mail_id",
            &[&handle],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| MailStatus {
            mail_id: row.get(0),
            handle: row.get(1),
            subject: row.get(2),
            attempts: row.get(3),
            last_error: row.get(4),
            status: row.get(5),
        })
        .collect())
}
