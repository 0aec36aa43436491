//! The mail inbox (issue 51): every message that arrives for the service, kept whole before
//! anything is decided, claimed by the intake for a lease, and marked decided only after its
//! decision is on the record. The raw message holds its sender's address, so it is
//! forgotten once decided; the row keeps the outcome in coarse words.

use deadpool_postgres::GenericClient;

use crate::StoreError;

/// How a message reached the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// Read from the operator's mailbox.
    Imap,
    /// Delivered by the operator's mail server over LMTP.
    Lmtp,
    /// Delivered over SMTP.
    Smtp,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Imap => "imap",
            Channel::Lmtp => "lmtp",
            Channel::Smtp => "smtp",
        }
    }

    fn of(text: &str) -> Channel {
        match text {
            "lmtp" => Channel::Lmtp,
            "smtp" => Channel::Smtp,
            _ => Channel::Imap,
        }
    }
}

/// Keeps a message that arrived: whether it is new (false: the same message, by its key,
/// was kept before, and this copy is dropped).
pub async fn keep_message(
    client: &impl GenericClient,
    message_key: &[u8; 32],
    channel: Channel,
    recipients: &[String],
    raw: &[u8],
) -> Result<bool, StoreError> {
    keep(client, message_key, channel, recipients, raw, false).await
}

/// Keeps the header of a message over the size limit, so that it is answered in words.
pub async fn keep_oversized(
    client: &impl GenericClient,
    message_key: &[u8; 32],
    channel: Channel,
    header: &[u8],
) -> Result<bool, StoreError> {
    keep(client, message_key, channel, &[], header, true).await
}

async fn keep(
    client: &impl GenericClient,
    message_key: &[u8; 32],
    channel: Channel,
    recipients: &[String],
    raw: &[u8],
    oversized: bool,
) -> Result<bool, StoreError> {
    let kept = client
        .execute(
            "INSERT INTO mail_inbox (message_key, channel, recipients, raw, oversized) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (message_key) DO NOTHING",
            &[
                &message_key.as_slice(),
                &channel.as_str(),
                &recipients,
                &raw,
                &oversized,
            ],
        )
        .await?;
    Ok(kept == 1)
}

/// Of `keys`, those kept, each with whether it is decided.
pub async fn kept_messages(
    client: &impl GenericClient,
    keys: &[[u8; 32]],
) -> Result<std::collections::HashMap<[u8; 32], bool>, StoreError> {
    let keys: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
    let rows = client
        .query(
            "SELECT message_key, decided_at IS NOT NULL FROM mail_inbox \
              WHERE message_key = ANY($1)",
            &[&keys],
        )
        .await?;
    rows.iter()
        .map(|row| {
            let key: &[u8] = row.get(0);
            let key = <[u8; 32]>::try_from(key)
                .map_err(|_| StoreError::Corrupt("a message key is not 32 bytes".into()))?;
            Ok((key, row.get(1)))
        })
        .collect()
}

/// A message the intake has claimed.
#[derive(Clone)]
pub struct InboxMessage {
    pub inbox_id: i64,
    pub message_key: [u8; 32],
    pub channel: Channel,
    pub recipients: Vec<String>,
    pub raw: Vec<u8>,
    /// Over the size limit: `raw` is its header alone.
    pub oversized: bool,
    /// RFC 3339, UTC.
    pub received_at: String,
    pub attempts: i32,
}

/// Kept out of logs: the message holds addresses.
impl std::fmt::Debug for InboxMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InboxMessage")
            .field("inbox_id", &self.inbox_id)
            .field("channel", &self.channel)
            .field("attempts", &self.attempts)
            .finish_non_exhaustive()
    }
}

/// Claims up to `limit` undecided messages, oldest first, each leased for `lease_seconds`:
/// another intake (a second replica) skips the rows this one locks, and if this one dies
/// the messages fall due again when the lease runs out.
pub async fn claim_messages(
    client: &impl GenericClient,
    limit: u32,
    lease_seconds: f64,
) -> Result<Vec<InboxMessage>, StoreError> {
    let rows = client
        .query(
            "WITH picked AS ( \
                 SELECT inbox_id FROM mail_inbox \
                  WHERE decided_at IS NULL AND next_attempt_at <= now() \
                  ORDER BY received_at, inbox_id LIMIT $1 FOR UPDATE SKIP LOCKED) \
             UPDATE mail_inbox m \
                SET next_attempt_at = now() + make_interval(secs => $2), \
                    attempts = m.attempts + 1 \
               FROM picked p WHERE m.inbox_id = p.inbox_id \
             RETURNING m.inbox_id, m.message_key, m.channel, m.recipients, \
                       coalesce(m.raw, ''::bytea), \
                       to_char(m.received_at AT TIME ZONE 'UTC', \
                               'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), \
                       m.attempts, m.oversized",
            &[&i64::from(limit), &lease_seconds],
        )
        .await?;
    let mut claimed: Vec<InboxMessage> = rows
        .iter()
        .map(|row| {
            let key: &[u8] = row.get(1);
            Ok(InboxMessage {
                inbox_id: row.get(0),
                message_key: <[u8; 32]>::try_from(key)
                    .map_err(|_| StoreError::Corrupt("a message key is not 32 bytes".into()))?,
                channel: Channel::of(row.get(2)),
                recipients: row.get(3),
                raw: row.get(4),
                received_at: row.get(5),
                attempts: row.get(6),
                oversized: row.get(7),
            })
        })
        .collect::<Result<_, StoreError>>()?;
    claimed.sort_by_key(|m| m.inbox_id);
    Ok(claimed)
}

/// Marks a message decided, with its outcome in coarse words, and forgets its text.
pub async fn mark_decided(
    client: &impl GenericClient,
    inbox_id: i64,
    outcome: &str,
) -> Result<(), StoreError> {
    client
        .execute(
            "UPDATE mail_inbox SET decided_at = now(), outcome = $2, raw = NULL \
              WHERE inbox_id = $1",
            &[&inbox_id, &outcome],
        )
        .await?;
    Ok(())
}

/// Puts a message off after a failure that may pass (the database, a lost race twice).
pub async fn put_off(
    client: &impl GenericClient,
    inbox_id: i64,
    retry_in_seconds: f64,
) -> Result<(), StoreError> {
    client
        .execute(
            "UPDATE mail_inbox SET next_attempt_at = now() + make_interval(secs => $2) \
              WHERE inbox_id = $1",
            &[&inbox_id, &retry_in_seconds],
        )
        .await?;
    Ok(())
}

/// Whether a command on `stream` came by the message whose key is `message_hex` (its record's
/// `by_mail.message`): the message was decided and its turn recorded.
pub async fn message_recorded(
    client: &impl GenericClient,
    stream: &warlog_events::StreamId,
    message_hex: &str,
) -> Result<bool, StoreError> {
    let row = client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM events \
                WHERE stream_id = $1 AND event_type = 'OrdersGiven' \
                  AND payload -> 'by_mail' ->> 'message' = $2)",
            &[&stream.as_str(), &message_hex],
        )
        .await?;
    Ok(row.get(0))
}

/// A message as the operator's checks see it: no text, no address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxStatus {
    pub inbox_id: i64,
    pub channel: String,
    pub attempts: i32,
    /// None while undecided.
    pub outcome: Option<String>,
}

/// Every message kept, oldest first (for tests and the operator).
pub async fn inbox_status(client: &impl GenericClient) -> Result<Vec<InboxStatus>, StoreError> {
    let rows = client
        .query(
            "SELECT inbox_id, channel, attempts, outcome FROM mail_inbox ORDER BY inbox_id",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| InboxStatus {
            inbox_id: row.get(0),
            channel: row.get(1),
            attempts: row.get(2),
            outcome: row.get(3),
        })
        .collect())
}
