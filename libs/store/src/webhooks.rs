//! Webhooks: subscriptions, and the outbox of deliveries. The `webhooks` projection turns
//! events into deliveries inside its checkpointed transaction, so each (event, subscription)
//! gets exactly one delivery row however often the service restarts; the sender claims one
//! due row per subscription for a lease, posts it, and records the outcome. A receiver that
//! is down loses nothing until its deliveries grow too old or are tried too often (then
//! they are dead-lettered), and a run of failures pauses its subscription until its owner
//! resumes it.

use deadpool_postgres::{GenericClient, Transaction};
use serde::Serialize;
use serde_json::json;
use warlog_events::notices::{may_begin_a_turn, turn_begun_by, TurnBegun};
use warlog_events::{RecordedEvent, StreamCategory};

use crate::projector::{recorded_at, Projection};
use crate::StoreError;

/// What a subscription can ask to hear about.
pub const KINDS: [&str; 6] = [
    "game.ended",
    "game.voided",
    "round.seated",
    "tournament.finished",
    "ladder.changed",
    "turn.started",
];

/// The kinds of notification an event makes, if any.
pub fn kinds_of(event: &RecordedEvent) -> &'static [&'static str] {
    match (event.stream_id.category(), event.event_type.as_str()) {
        // A finished game's places move the ladders.
        (StreamCategory::Game, "GameEnded") => &["game.ended", "ladder.changed"],
        (StreamCategory::Game, "GameVoided") => &["game.voided"],
        // Events that may begin a power's turn; whether one did is decided from the game's
        // log (`warlog_events::notices`) when the event is projected.
        (StreamCategory::Game, "GameCreated" | "PhaseEnded" | "InitiativeRolled") => {
            &["turn.started"]
        }
        (StreamCategory::Tournament, "RoundSeated") => &["round.seated"],
        (StreamCategory::Tournament, "TournamentFinished") => &["tournament.finished"],
        _ => &[],
    }
}

/// The body a receiver gets for `kind` of `event`, with the delivery's own id.
pub fn body_of(delivery_id: &str, kind: &str, event: &RecordedEvent) -> serde_json::Value {
    let recorded_at = event.metadata.get("recorded_at").cloned();
    let stream = event.stream_id.as_str();
    let mut body = json!({
        "delivery_id": delivery_id,
        "kind": kind,
        "occurred_at": recorded_at,
        "event": {
            "stream_id": stream,
            "stream_version": event.stream_version,
            "event_id": event.event_id,
            "event_type": event.event_type.as_str(),
        },
    });
    if let Some(game) = stream.strip_prefix("game-") {
        body["game_id"] = json!(game);
        body["links"] = json!({
            "game": format!("/v1/games/{game}"),
            "placements": format!("/v1/games/{game}/placements"),
        });
        if kind == "ladder.changed" {
            body["links"]["ladder"] = json!("/v1/leaderboards/points");
        }
    } else if let Some(tournament) = stream.strip_prefix("tournament-") {
        body["tournament_id"] = json!(tournament);
        body["links"] = json!({
            "tournament": format!("/v1/tournaments/{tournament}"),
            "standings": format!("/v1/tournaments/{tournament}/standings"),
        });
        if let Some(round) = event.payload.get("round") {
            body["round"] = round.clone();
        }
    }
    body
}

/// The body of a `turn.started` delivery: the game, the power, the player seated for it (if
/// any), the round, and `links.turn`, the turn page (`link`: absolute when the service knows
/// its public address).
pub fn turn_started_body(
    delivery_id: &str,
    event: &RecordedEvent,
    turn: &TurnBegun,
    link: &str,
) -> serde_json::Value {
    let mut body = body_of(delivery_id, "turn.started", event);
    body["game_id"] = json!(turn.game_id);
    body["title"] = json!(turn.title);
    body["power"] = json!(turn.power);
    body["power_name"] = json!(turn.power.name());
    body["player"] = json!(turn.player);
    body["round"] = json!(turn.round);
    body["links"] = json!({
        "game": format!("/v1/games/{}", turn.game_id),
        "turn": link,
    });
    body
}

/// A subscription as its owner sees it (never its secret).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Subscription {
    pub subscription_id: String,
    pub url: String,
    pub kinds: Vec<String>,
    pub owner: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub delivered: i64,
    pub pending: i64,
    /// Deliveries whose last attempt failed and that wait for their next one.
    pub failing: i64,
    /// Deliveries given up on (too old, or tried too often).
    pub dead: i64,
    /// Attempts that failed since the last accepted one.
    pub consecutive_failures: i32,
    /// RFC 3339, UTC: when too many failures in a row paused it; none while it sends.
    pub paused_at: Option<String>,
}

const SUBSCRIPTION_COLUMNS: &str = "s.subscription_id, s.url, s.kinds, s.owner, \
     to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), \
     (SELECT count(*) FROM webhook_deliveries d \
       WHERE d.subscription_id = s.subscription_id AND d.delivered_at IS NOT NULL), \
     (SELECT count(*) FROM webhook_deliveries d \
       WHERE d.subscription_id = s.subscription_id AND d.delivered_at IS NULL \
         AND d.dead_at IS NULL), \
     (SELECT count(*) FROM webhook_deliveries d \
       WHERE d.subscription_id = s.subscription_id AND d.delivered_at IS NULL \
         AND d.dead_at IS NULL AND d.last_error IS NOT NULL), \
     (SELECT count(*) FROM webhook_deliveries d \
       WHERE d.subscription_id = s.subscription_id AND d.dead_at IS NOT NULL), \
     s.consecutive_failures, \
     to_char(s.paused_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')";

fn subscription_of(row: &tokio_postgres::Row) -> Subscription {
    Subscription {
        subscription_id: row.get(0),
        url: row.get(1),
        kinds: row.get(2),
        owner: row.get(3),
        created_at: row.get(4),
        delivered: row.get(5),
        pending: row.get(6),
        failing: row.get(7),
        dead: row.get(8),
        consecutive_failures: row.get(9),
        paused_at: row.get(10),
    }
}

/// Why a subscription was not registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotRegistered {
    /// The owner already has `cap` live subscriptions.
    Cap(u32),
}

/// Registers a subscription unless its owner already has `cap` live ones. The count and
/// the insert are serialised per owner, so a burst of registrations cannot pass the cap.
pub async fn create_subscription(
    client: &mut deadpool_postgres::Client,
    id: &str,
    url: &str,
    kinds: &[String],
    sealed_secret: &str,
    owner: &str,
    cap: u32,
) -> Result<Result<(), NotRegistered>, StoreError> {
    let tx = client.transaction().await?;
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('webhook owner ' || $1, 0))",
        &[&owner],
    )
    .await?;
    let inserted = tx
        .execute(
            "INSERT INTO webhook_subscriptions (subscription_id, url, kinds, secret, owner) \
             SELECT $1, $2, $3, $4, $5 \
              WHERE (SELECT count(*) FROM webhook_subscriptions \
                      WHERE owner = $5 AND deleted_at IS NULL) < $6",
            &[&id, &url, &kinds, &sealed_secret, &owner, &i64::from(cap)],
        )
        .await?;
    tx.commit().await?;
    Ok(if inserted == 1 {
        Ok(())
    } else {
        Err(NotRegistered::Cap(cap))
    })
}

/// The live subscriptions `owner` registered (every one when `owner` is none).
pub async fn list_subscriptions(
    client: &impl GenericClient,
    owner: Option<&str>,
) -> Result<Vec<Subscription>, StoreError> {
    let rows = client
        .query(
            &format!(
                "SELECT {SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions s \
                  WHERE s.deleted_at IS NULL AND ($1::text IS NULL OR s.owner = $1) \
                  ORDER BY s.subscription_id"
            ),
            &[&owner],
        )
        .await?;
    Ok(rows.iter().map(subscription_of).collect())
}

/// One live subscription.
pub async fn find_subscription(
    client: &impl GenericClient,
    id: &str,
) -> Result<Option<Subscription>, StoreError> {
    let row = client
        .query_opt(
            &format!(
                "SELECT {SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions s \
                  WHERE s.deleted_at IS NULL AND s.subscription_id = $1"
            ),
            &[&id],
        )
        .await?;
    Ok(row.as_ref().map(subscription_of))
}

/// Ends a subscription: nothing more is enqueued or sent for it, and what it had not
/// delivered is removed; what it delivered stays as history.
pub async fn delete_subscription(
    client: &mut deadpool_postgres::Client,
    id: &str,
) -> Result<bool, StoreError> {
    let tx = client.transaction().await?;
    let deleted = tx
        .execute(
            "UPDATE webhook_subscriptions SET deleted_at = now() \
              WHERE subscription_id = $1 AND deleted_at IS NULL",
            &[&id],
        )
        .await?;
    tx.execute(
        "DELETE FROM webhook_deliveries WHERE subscription_id = $1 AND delivered_at IS NULL",
        &[&id],
    )
    .await?;
    tx.commit().await?;
    Ok(deleted == 1)
}

/// Lifts a pause: the failure count starts again, and the deliveries that waited are due
/// now rather than after their backoff.
pub async fn resume_subscription(
    client: &mut deadpool_postgres::Client,
    id: &str,
) -> Result<bool, StoreError> {
    let tx = client.transaction().await?;
    let resumed = tx
        .execute(
            "UPDATE webhook_subscriptions \
                SET paused_at = NULL, consecutive_failures = 0, not_before = NULL \
              WHERE subscription_id = $1 AND deleted_at IS NULL",
            &[&id],
        )
        .await?;
    tx.execute(
        "UPDATE webhook_deliveries SET next_attempt_at = now() \
          WHERE subscription_id = $1 AND delivered_at IS NULL AND dead_at IS NULL \
            AND next_attempt_at > now()",
        &[&id],
    )
    .await?;
    tx.commit().await?;
    Ok(resumed == 1)
}

/// A delivery as its subscription's owner sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Delivery {
    /// Also the `Webhook-Id` header: the receiver's de-duplication key.
    pub delivery_id: String,
    pub kind: String,
    pub event_id: uuid::Uuid,
    pub attempts: i32,
    /// `delivered`, `pending` (not tried yet), `failing` (tried, and tried again later) or
    /// `dead` (given up on: too old, or tried too often).
    pub status: String,
    /// The receiver's last HTTP status, if it answered.
    pub last_status: Option<i32>,
    /// Why the last attempt failed, in coarse words only: `refused`, `timeout`, `address
    /// not allowed`, `host not found`, `not delivered`, `status N`, `expired`.
    pub last_error: Option<String>,
    /// RFC 3339, UTC.
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub created_at: String,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub delivered_at: Option<String>,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub next_attempt_at: Option<String>,
}

/// A subscription's deliveries, newest first, `limit` of them after the delivery `after`
/// (the last of the page before); `None` when `after` is no delivery of this subscription.
pub async fn list_deliveries(
    client: &impl GenericClient,
    subscription: &str,
    after: Option<&str>,
    limit: u32,
) -> Result<Option<Vec<Delivery>>, StoreError> {
    if let Some(after) = after {
        let known = client
            .query_opt(
                "SELECT 1 FROM webhook_deliveries WHERE subscription_id = $1 AND delivery_id = $2",
                &[&subscription, &after],
            )
            .await?;
        if known.is_none() {
            return Ok(None);
        }
    }
    const UTC: &str = "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'";
    let rows = client
        .query(
            &format!(
                "SELECT delivery_id, kind, event_id, attempts, last_status, last_error, \
                        to_char(created_at AT TIME ZONE 'UTC', {UTC}), \
                        to_char(delivered_at AT TIME ZONE 'UTC', {UTC}), \
                        to_char(next_attempt_at AT TIME ZONE 'UTC', {UTC}), \
                        dead_at IS NOT NULL \
                   FROM webhook_deliveries d WHERE subscription_id = $1 \
                    AND ($3::text IS NULL OR EXISTS ( \
                        SELECT 1 FROM webhook_deliveries c \
                         WHERE c.delivery_id = $3 AND c.subscription_id = $1 \
                           AND (d.created_at < c.created_at \
                                OR (d.created_at = c.created_at AND d.delivery_id > c.delivery_id)))) \
                  ORDER BY created_at DESC, delivery_id LIMIT $2"
            ),
            &[&subscription, &i64::from(limit), &after],
        )
        .await?;
    Ok(Some(
        rows.iter()
            .map(|row| {
                let delivered_at: Option<String> = row.get(7);
                let last_error: Option<String> = row.get(5);
                let dead: bool = row.get(9);
                let status = match (&delivered_at, dead, &last_error) {
                    (Some(_), _, _) => "delivered",
                    (None, true, _) => "dead",
                    (None, false, Some(_)) => "failing",
                    (None, false, None) => "pending",
                };
                Delivery {
                    delivery_id: row.get(0),
                    kind: row.get(1),
                    event_id: row.get(2),
                    attempts: row.get(3),
                    status: status.to_owned(),
                    last_status: row.get(4),
                    last_error,
                    created_at: row.get(6),
                    next_attempt_at: (delivered_at.is_none() && !dead).then(|| row.get(8)),
                    delivered_at,
                }
            })
            .collect(),
    ))
}

/// A delivery the sender has claimed.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub delivery_id: String,
    pub subscription_id: String,
    pub url: String,
    /// As stored: sealed, or in clear from before secrets were sealed.
    pub secret: String,
    pub body: String,
    pub attempts: i32,
    /// Seconds since the delivery was made.
    pub age_seconds: f64,
    /// The subscription's failed attempts since its last accepted one.
    pub consecutive_failures: i32,
}

/// Gives up on the deliveries made more than `max_age_seconds` ago and still not
/// delivered (a paused subscription's too): how many.
pub async fn expire_deliveries(
    client: &impl GenericClient,
    max_age_seconds: f64,
) -> Result<u64, StoreError> {
    Ok(client
        .execute(
            "UPDATE webhook_deliveries \
                SET dead_at = now(), last_error = coalesce(last_error, 'expired') \
              WHERE delivered_at IS NULL AND dead_at IS NULL \
                AND created_at < now() - make_interval(secs => $1)",
            &[&max_age_seconds],
        )
        .await?)
}

/// Claims the oldest due delivery of up to `limit` subscriptions, each leased for
/// `lease_seconds`: a subscription with a delivery in flight, or waiting out a failure,
/// or paused, is skipped, so one receiver never has two deliveries at once and never holds
/// up another's. Another sender (a second replica) skips the rows this one locks, and if
/// this one dies its leases run out.
pub async fn claim_due(
    client: &impl GenericClient,
    limit: u32,
    lease_seconds: f64,
) -> Result<Vec<Claimed>, StoreError> {
    let rows = client
        .query(
            "WITH picked AS ( \
                 SELECT s.subscription_id, d.delivery_id \
                   FROM webhook_subscriptions s \
                  CROSS JOIN LATERAL ( \
                        SELECT q.delivery_id, q.next_attempt_at FROM webhook_deliveries q \
                         WHERE q.subscription_id = s.subscription_id \
                           AND q.delivered_at IS NULL AND q.dead_at IS NULL \
                           AND q.next_attempt_at <= now() \
                         ORDER BY q.next_attempt_at, q.created_at, q.delivery_id \
                         LIMIT 1) d \
                  WHERE s.deleted_at IS NULL AND s.paused_at IS NULL \
                    AND (s.not_before IS NULL OR s.not_before <= now()) \
                  ORDER BY d.next_attempt_at \
                  LIMIT $1 \
                    FOR UPDATE OF s SKIP LOCKED), \
             leased AS ( \
                 UPDATE webhook_subscriptions s \
                    SET not_before = now() + make_interval(secs => $2) \
                   FROM picked p WHERE s.subscription_id = p.subscription_id \
              RETURNING s.subscription_id, s.url, s.secret, s.consecutive_failures) \
             SELECT d.delivery_id, l.subscription_id, l.url, l.secret, d.body, d.attempts, \
                    extract(epoch FROM now() - d.created_at)::float8, l.consecutive_failures \
               FROM picked p \
               JOIN leased l ON l.subscription_id = p.subscription_id \
               JOIN webhook_deliveries d ON d.delivery_id = p.delivery_id",
            &[&i64::from(limit), &lease_seconds],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| Claimed {
            delivery_id: row.get(0),
            subscription_id: row.get(1),
            url: row.get(2),
            secret: row.get(3),
            body: row.get(4),
            attempts: row.get(5),
            age_seconds: row.get(6),
            consecutive_failures: row.get(7),
        })
        .collect())
}

/// Records that the receiver accepted a delivery, and frees its subscription for the next.
pub async fn mark_delivered(
    client: &impl GenericClient,
    delivery: &Claimed,
    status: u16,
) -> Result<(), StoreError> {
    client
        .execute(
            "WITH sent AS ( \
                 UPDATE webhook_deliveries SET delivered_at = now(), attempts = attempts + 1, \
                        last_status = $2, last_error = NULL \
                  WHERE delivery_id = $1) \
             UPDATE webhook_subscriptions SET not_before = NULL, consecutive_failures = 0 \
              WHERE subscription_id = $3",
            &[
                &delivery.delivery_id,
                &i32::from(status),
                &delivery.subscription_id,
            ],
        )
        .await?;
    Ok(())
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy)]
pub struct AfterFailure {
    /// The delivery's next attempt, in seconds from now.
    pub retry_in_seconds: f64,
    /// The subscription's next attempt (of any delivery), in seconds from now.
    pub subscription_retry_in_seconds: f64,
    /// The delivery is given up on.
    pub dead: bool,
    /// Pause the subscription once it has failed this many times in a row.
    pub pause_after: i32,
}

/// What a failed attempt changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Failed {
    pub paused: bool,
}

/// Records a failed attempt (the error in coarse words), when to try again, and the
/// subscription's run of failures, pausing it at `pause_after`.
pub async fn mark_failed(
    client: &impl GenericClient,
    delivery: &Claimed,
    status: Option<u16>,
    error: &str,
    after: AfterFailure,
) -> Result<Failed, StoreError> {
    let row = client
        .query_one(
            "WITH tried AS ( \
                 UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = $2, \
                        last_error = $3, next_attempt_at = now() + make_interval(secs => $4), \
                        dead_at = CASE WHEN $5 THEN now() END \
                  WHERE delivery_id = $1) \
             UPDATE webhook_subscriptions \
                SET consecutive_failures = consecutive_failures + 1, \
                    not_before = now() + make_interval(secs => $6), \
                    paused_at = CASE WHEN consecutive_failures + 1 >= $7 \
                                     THEN coalesce(paused_at, now()) ELSE paused_at END \
              WHERE subscription_id = $8 \
          RETURNING paused_at IS NOT NULL",
            &[
                &delivery.delivery_id,
                &status.map(i32::from),
                &error,
                &after.retry_in_seconds,
                &after.dead,
                &after.subscription_retry_in_seconds,
                &after.pause_after,
                &delivery.subscription_id,
            ],
        )
        .await?;
    Ok(Failed { paused: row.get(0) })
}

/// Subscriptions whose secret is not sealed with the key `sealed_prefix` names (in clear,
/// or sealed with another key): `(subscription_id, secret as stored)`.
pub async fn secrets_to_reseal(
    client: &impl GenericClient,
    sealed_prefix: &str,
) -> Result<Vec<(String, String)>, StoreError> {
    let rows = client
        .query(
            "SELECT subscription_id, secret FROM webhook_subscriptions \
              WHERE deleted_at IS NULL AND NOT starts_with(secret, $1)",
            &[&sealed_prefix],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Replaces a subscription's stored secret, if it is still `old` (a second replica may
/// have resealed it meanwhile).
pub async fn reseal_secret(
    client: &impl GenericClient,
    id: &str,
    old: &str,
    new: &str,
) -> Result<bool, StoreError> {
    Ok(client
        .execute(
            "UPDATE webhook_subscriptions SET secret = $3 \
              WHERE subscription_id = $1 AND secret = $2",
            &[&id, &old, &new],
        )
        .await?
        == 1)
}

/// The projection that fills the outboxes: webhook deliveries, and (when the service sends
/// mail) the "your move" mails, in the same checkpointed transaction.
#[derive(Debug, Clone, Default)]
pub struct WebhookOutbox {
    /// The service's public address (`--public-url`, no trailing slash): links to pages are
    /// absolute with it, and paths on the site without.
    pub public_url: Option<String>,
    /// Whether the service sends mail: without it no mail row is made, so none piles up.
    pub mail: bool,
    /// Where replies to "your move" mails go, when the service takes turns by mail.
    pub replies: Option<std::sync::Arc<TurnReplies>>,
}

/// How a "your move" mail's reply address is made (issue 51): `turn+TOKEN@domain`, the
/// token a keyed MAC of the game, the power, the seat's player and the round.
pub struct TurnReplies {
    pub key: warlog_events::by_mail::token::ReplyKey,
    pub domain: String,
}

impl std::fmt::Debug for TurnReplies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnReplies")
            .field("domain", &self.domain)
            .finish_non_exhaustive()
    }
}

impl TurnReplies {
    /// The reply address for `turn`'s player, if the game's id can carry one.
    pub fn address_for(&self, turn: &TurnBegun) -> Option<String> {
        use warlog_events::by_mail::token::{issue, reply_address, TurnRef};
        let token = issue(
            &self.key,
            &TurnRef {
                game_id: turn.game_id.clone(),
                round: turn.round,
                power: turn.power,
                player: turn.player.clone()?,
            },
        )?;
        Some(reply_address(&token, &self.domain))
    }
}

impl WebhookOutbox {
    /// The address of a page on the site: absolute when the public address is known.
    fn link(&self, path: &str) -> String {
        match &self.public_url {
            Some(base) => format!("{base}{path}"),
            None => path.to_owned(),
        }
    }
}

/// The turn `event` began, if it began one: decided from the game's log up to the event,
/// read and folded only for an event that may begin a turn, and at most once per event.
async fn turn_begun(
    tx: &Transaction<'_>,
    event: &RecordedEvent,
    decided: &mut Option<Option<TurnBegun>>,
) -> Result<Option<TurnBegun>, StoreError> {
    if let Some(turn) = decided {
        return Ok(turn.clone());
    }
    // An event this build cannot decode stops the projection there, as in every projection.
    let decoded = warlog_events::game::decode_recorded(event)
        .map_err(|e| StoreError::Corrupt(format!("{}: {e}", event.stream_id)))?;
    let turn = if may_begin_a_turn(&decoded) {
        let count = u32::try_from(event.stream_version).unwrap_or(u32::MAX);
        let upto = crate::read_stream(tx, &event.stream_id, 1, count).await?;
        // A game that decodes but cannot be folded tells nobody of its turns; the other
        // notices, and every other game's, go on (as the league skips such a game).
        turn_begun_by(&upto).unwrap_or_else(|error| {
            tracing::warn!(stream = %event.stream_id, version = event.stream_version, %error, "no turn notice: the game does not fold");
            None
        })
    } else {
        None
    };
    *decided = Some(turn.clone());
    Ok(turn)
}

impl Projection for WebhookOutbox {
    fn name(&self) -> &'static str {
        "webhooks"
    }

    /// Deliveries and mails are history, not a read model: a rebuild keeps them (and its
    /// inserts of the same rows change nothing).
    async fn reset(&self, _tx: &Transaction<'_>) -> Result<(), StoreError> {
        Ok(())
    }

    async fn apply(&self, tx: &Transaction<'_>, event: &RecordedEvent) -> Result<(), StoreError> {
        let recorded_at = recorded_at(event);
        let mut turn = None;
        for kind in kinds_of(event) {
            // A game that ended without counting (aborted: before every power had played
            // a turn of its own) moves no ladder.
            if *kind == "ladder.changed" && crate::games::ended_status(tx, event).await? != "ended"
            {
                continue;
            }
            // A subscription hears of what happens after it was made, not of the past the
            // projector may still be working through.
            let subscribers = tx
                .query(
                    "SELECT subscription_id FROM webhook_subscriptions \
                      WHERE deleted_at IS NULL AND $1 = ANY(kinds) \
                        AND created_at <= ($2::text)::timestamptz",
                    &[kind, &recorded_at],
                )
                .await?;
            if subscribers.is_empty() {
                continue;
            }
            let begun = if *kind == "turn.started" {
                match turn_begun(tx, event, &mut turn).await? {
                    Some(begun) => Some(begun),
                    None => continue,
                }
            } else {
                None
            };
            for row in subscribers {
                let subscription: String = row.get(0);
                let delivery_id = format!("{subscription}.{}.{kind}", event.event_id.simple());
                let body = match &begun {
                    Some(begun) => turn_started_body(
                        &delivery_id,
                        event,
                        begun,
                        &self.link(&begun.turn_path()),
                    ),
                    None => body_of(&delivery_id, kind, event),
                }
                .to_string();
                tx.execute(
                    "INSERT INTO webhook_deliveries \
                         (delivery_id, subscription_id, kind, event_id, body) \
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (delivery_id) DO NOTHING",
                    &[&delivery_id, &subscription, kind, &event.event_id, &body],
                )
                .await?;
            }
        }
        if self.mail && kinds_of(event).contains(&"turn.started") {
            if let Some(begun) = turn_begun(tx, event, &mut turn).await? {
                let reply_to = self.replies.as_ref().and_then(|r| r.address_for(&begun));
                crate::mail::enqueue_turn_mail(
                    tx,
                    event,
                    &begun,
                    &self.link(&begun.turn_path()),
                    reply_to.as_deref(),
                )
                .await?;
            }
        }
        Ok(())
    }
}
