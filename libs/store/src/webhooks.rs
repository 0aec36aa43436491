//! Webhooks: subscriptions, and the outbox of deliveries. The `webhooks` projection turns
//! events into deliveries inside its checkpointed transaction, so each (event, subscription)
//! gets exactly one delivery row however often the service restarts; the sender claims due
//! rows for a lease, posts them, and records the outcome. A receiver that is down loses
//! nothing: its deliveries stay due, with a growing backoff, until they are accepted.

use deadpool_postgres::{GenericClient, Transaction};
use serde::Serialize;
use serde_json::json;
use warlog_events::{RecordedEvent, StreamCategory};

use crate::projector::{recorded_at, Projection};
use crate::StoreError;

/// What a subscription can ask to hear about.
pub const KINDS: [&str; 5] = [
    "game.ended",
    "game.voided",
    "round.seated",
    "tournament.finished",
    "ladder.changed",
];

/// The kinds of notification an event makes, if any.
pub fn kinds_of(event: &RecordedEvent) -> &'static [&'static str] {
    match (event.stream_id.category(), event.event_type.as_str()) {
        // A finished game's places move the ladders.
        (StreamCategory::Game, "GameEnded") => &["game.ended", "ladder.changed"],
        (StreamCategory::Game, "GameVoided") => &["game.voided"],
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
}

const SUBSCRIPTION_COLUMNS: &str = "s.subscription_id, s.url, s.kinds, s.owner, \
     to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), \
     (SELECT count(*) FROM webhook_deliveries d \
       WHERE d.subscription_id = s.subscription_id AND d.delivered_at IS NOT NULL), \
     (SELECT count(*) FROM webhook_deliveries d \
       WHERE d.subscription_id = s.subscription_id AND d.delivered_at IS NULL), \
     (SELECT count(*) FROM webhook_deliveries d \
       WHERE d.subscription_id = s.subscription_id AND d.delivered_at IS NULL \
         AND d.last_error IS NOT NULL)";

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
    }
}

/// Registers a subscription.
pub async fn create_subscription(
    client: &impl GenericClient,
    id: &str,
    url: &str,
    kinds: &[String],
    secret: &str,
    owner: &str,
) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO webhook_subscriptions (subscription_id, url, kinds, secret, owner) \
             VALUES ($1, $2, $3, $4, $5)",
            &[&id, &url, &kinds, &secret, &owner],
        )
        .await?;
    Ok(())
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

/// Ends a subscription: nothing more is enqueued or sent for it; its history stays.
pub async fn delete_subscription(
    client: &impl GenericClient,
    id: &str,
) -> Result<bool, StoreError> {
    let deleted = client
        .execute(
            "UPDATE webhook_subscriptions SET deleted_at = now() \
              WHERE subscription_id = $1 AND deleted_at IS NULL",
            &[&id],
        )
        .await?;
    Ok(deleted == 1)
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
    /// `delivered`, `pending` (not tried yet) or `failing` (tried, and tried again later).
    pub status: String,
    /// The receiver's last HTTP status, if it answered.
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
    /// RFC 3339, UTC.
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub created_at: String,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub delivered_at: Option<String>,
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub next_attempt_at: Option<String>,
}

/// A subscription's deliveries, newest first, `limit` of them before the cursor.
pub async fn list_deliveries(
    client: &impl GenericClient,
    subscription: &str,
    limit: u32,
) -> Result<Vec<Delivery>, StoreError> {
    const UTC: &str = "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'";
    let rows = client
        .query(
            &format!(
                "SELECT delivery_id, kind, event_id, attempts, last_status, last_error, \
                        to_char(created_at AT TIME ZONE 'UTC', {UTC}), \
                        to_char(delivered_at AT TIME ZONE 'UTC', {UTC}), \
                        to_char(next_attempt_at AT TIME ZONE 'UTC', {UTC}) \
                   FROM webhook_deliveries WHERE subscription_id = $1 \
                  ORDER BY created_at DESC, delivery_id LIMIT $2"
            ),
            &[&subscription, &i64::from(limit)],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| {
            let delivered_at: Option<String> = row.get(7);
            let last_error: Option<String> = row.get(5);
            let status = match (&delivered_at, &last_error) {
                (Some(_), _) => "delivered",
                (None, Some(_)) => "failing",
                (None, None) => "pending",
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
                next_attempt_at: delivered_at.is_none().then(|| row.get(8)),
                delivered_at,
            }
        })
        .collect())
}

/// A delivery the sender has claimed.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub delivery_id: String,
    pub url: String,
    pub secret: String,
    pub body: String,
    pub attempts: i32,
}

/// Claims up to `limit` due deliveries of live subscriptions for `lease_seconds`: another
/// sender (a second replica) skips them, and if this one dies they fall due again.
pub async fn claim_due(
    client: &impl GenericClient,
    limit: u32,
    lease_seconds: f64,
) -> Result<Vec<Claimed>, StoreError> {
    let rows = client
        .query(
            "UPDATE webhook_deliveries d \
                SET next_attempt_at = now() + make_interval(secs => $2) \
               FROM webhook_subscriptions s \
              WHERE d.subscription_id = s.subscription_id \
                AND d.delivery_id IN ( \
                    SELECT q.delivery_id FROM webhook_deliveries q \
                      JOIN webhook_subscriptions qs USING (subscription_id) \
                     WHERE q.delivered_at IS NULL AND q.next_attempt_at <= now() \
                       AND qs.deleted_at IS NULL \
                     ORDER BY q.next_attempt_at LIMIT $1 \
                     FOR UPDATE OF q SKIP LOCKED) \
          RETURNING d.delivery_id, s.url, s.secret, d.body, d.attempts",
            &[&i64::from(limit), &lease_seconds],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| Claimed {
            delivery_id: row.get(0),
            url: row.get(1),
            secret: row.get(2),
            body: row.get(3),
            attempts: row.get(4),
        })
        .collect())
}

/// Records that the receiver accepted a delivery.
pub async fn mark_delivered(
    client: &impl GenericClient,
    delivery_id: &str,
    status: u16,
) -> Result<(), StoreError> {
    client
        .execute(
            "UPDATE webhook_deliveries SET delivered_at = now(), attempts = attempts + 1, \
                    last_status = $2, last_error = NULL \
              WHERE delivery_id = $1",
            &[&delivery_id, &i32::from(status)],
        )
        .await?;
    Ok(())
}

/// Records a failed attempt, and when to try again.
pub async fn mark_failed(
    client: &impl GenericClient,
    delivery_id: &str,
    status: Option<u16>,
    error: &str,
    retry_in_seconds: f64,
) -> Result<(), StoreError> {
    client
        .execute(
            "UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = $2, \
                    last_error = $3, next_attempt_at = now() + make_interval(secs => $4) \
              WHERE delivery_id = $1",
            &[
                &delivery_id,
                &status.map(i32::from),
                &error,
                &retry_in_seconds,
            ],
        )
        .await?;
    Ok(())
}

/// The projection that fills the outbox.
#[derive(Debug, Clone, Copy, Default)]
pub struct WebhookOutbox;

impl Projection for WebhookOutbox {
    fn name(&self) -> &'static str {
        "webhooks"
    }

    /// Deliveries are history, not a read model: a rebuild keeps them (and its inserts of
    /// the same deliveries change nothing).
    async fn reset(&self, _tx: &Transaction<'_>) -> Result<(), StoreError> {
        Ok(())
    }

    async fn apply(&self, tx: &Transaction<'_>, event: &RecordedEvent) -> Result<(), StoreError> {
        let recorded_at = recorded_at(event);
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
            for row in subscribers {
                let subscription: String = row.get(0);
                let delivery_id = format!("{subscription}.{}.{kind}", event.event_id.simple());
                let body = body_of(&delivery_id, kind, event).to_string();
                tx.execute(
                    "INSERT INTO webhook_deliveries \
                         (delivery_id, subscription_id, kind, event_id, body) \
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (delivery_id) DO NOTHING",
                    &[&delivery_id, &subscription, kind, &event.event_id, &body],
                )
                .await?;
            }
        }
        Ok(())
    }
}
