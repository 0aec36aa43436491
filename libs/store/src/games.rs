//! What the GM service keeps besides events: dice seeds (secret until revealed), bearer
//! tokens (hashed), the first answers to idempotent writes, and the `game_summaries` read
//! model that lists games.

use std::collections::BTreeMap;

use deadpool_postgres::{GenericClient, Transaction};
use serde::Serialize;
use warlog_events::game::{GameCreated, GameLog, GameStreamEvent, OrderCount, OrderHand};
use warlog_events::{RecordedEvent, StreamCategory, StreamId};
use warlog_rules::board::Power;
use warlog_rules::dice::GameSeed;

use crate::projector::{recorded_at, version_of, Projection};
use crate::StoreError;

/// Writes a whole game played outside the service (a sample game for a benchmark or a
/// test) as the service would have: its seed kept, its events appended in order, their
/// chain linked, in appends of at most [`crate::MAX_EVENTS_PER_APPEND`].
pub async fn write_played_game(
    client: &impl GenericClient,
    stream: &StreamId,
    seed: &GameSeed,
    recorded: &[RecordedEvent],
) -> Result<(), StoreError> {
    save_seed(client, stream, seed).await?;
    let mut version = 0u64;
    for chunk in recorded.chunks(crate::MAX_EVENTS_PER_APPEND) {
        let chunk: Vec<warlog_events::NewEvent> = chunk
            .iter()
            .map(|e| warlog_events::NewEvent {
                event_id: e.event_id,
                event_type: e.event_type.clone(),
                event_version: e.event_version,
                payload: e.payload.clone(),
                metadata: e.metadata.clone(),
            })
            .collect();
        let expected = match version {
            0 => crate::ExpectedVersion::NoStream,
            at => crate::ExpectedVersion::Exact(at),
        };
        crate::append(client, stream, expected, &chunk, None).await?;
        version += chunk.len() as u64;
    }
    Ok(())
}

/// Keeps a new game's seed. Call it in the transaction that appends `GameCreated`.
pub async fn save_seed(
    client: &impl GenericClient,
    stream: &StreamId,
    seed: &GameSeed,
) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO dice_seeds (stream_id, seed) VALUES ($1, $2)",
            &[&stream.as_str(), &seed.expose().as_slice()],
        )
        .await?;
    Ok(())
}

/// A game's seed. Only the command path and the reveal may call this: the seed never
/// leaves the service before `SeedRevealed`.
pub async fn load_seed(
    client: &impl GenericClient,
    stream: &StreamId,
) -> Result<Option<GameSeed>, StoreError> {
    let row = client
        .query_opt(
            "SELECT seed FROM dice_seeds WHERE stream_id = $1",
            &[&stream.as_str()],
        )
        .await?;
    row.map(|r| {
        <[u8; 32]>::try_from(r.get::<_, &[u8]>(0))
            .map(GameSeed::from_bytes)
            .map_err(|_| StoreError::Corrupt(format!("the seed of {stream} is not 32 bytes")))
    })
    .transpose()
}

/// Notes when a seed was revealed (the event itself is the public record).
pub async fn mark_seed_revealed(
    client: &impl GenericClient,
    stream: &StreamId,
) -> Result<(), StoreError> {
    client
        .execute(
            "UPDATE dice_seeds SET revealed_at = now() WHERE stream_id = $1",
            &[&stream.as_str()],
        )
        .await?;
    Ok(())
}

/// A bearer token's holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenHolder {
    pub name: String,
    pub role: String,
}

/// A live token already holds the name asked for: its id (as `warlog token list` shows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameTaken {
    pub id: String,
}

/// Stores a new token's hash, unless a live token already has `name` (names of live tokens
/// are unique: the record names a sender by role and name, and rights follow it). An
/// expired token of that name is retired first, marked revoked at its expiry.
pub async fn create_token(
    client: &impl GenericClient,
    token_hash: &[u8; 32],
    name: &str,
    role: &str,
    expires_in_days: Option<u32>,
) -> Result<Result<(), NameTaken>, StoreError> {
    let days = expires_in_days
        .map(i32::try_from)
        .transpose()
        .unwrap_or(Some(i32::MAX));
    client
        .execute(
            "UPDATE api_tokens SET revoked_at = expires_at \
              WHERE name = $1 AND revoked_at IS NULL AND expires_at <= now()",
            &[&name],
        )
        .await?;
    let inserted = client
        .execute(
            "INSERT INTO api_tokens (token_hash, name, role, expires_at) \
             VALUES ($1, $2, $3, now() + make_interval(days => $4))",
            &[&token_hash.as_slice(), &name, &role, &days],
        )
        .await;
    match inserted {
        Ok(_) => Ok(Ok(())),
        Err(e) if e.as_db_error().and_then(|d| d.constraint()) == Some("api_tokens_live_name") => {
            let id: String = client
                .query_one(
                    "SELECT left(encode(token_hash, 'hex'), 12) FROM api_tokens \
                      WHERE name = $1 AND revoked_at IS NULL",
                    &[&name],
                )
                .await?
                .get(0);
            Ok(Err(NameTaken { id }))
        }
        Err(e) => Err(e.into()),
    }
}

/// A token as an administrator sees it: never the token, only its id (the first twelve
/// hex digits of its hash), holder, role and dates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRow {
    pub id: String,
    pub name: String,
    pub role: String,
    pub created_at: String,
    pub expires_at: Option<String>,
    pub revoked_at: Option<String>,
}

/// Every token, oldest first.
pub async fn list_tokens(client: &impl GenericClient) -> Result<Vec<TokenRow>, StoreError> {
    let format = "YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"";
    Ok(client
        .query(
            &format!(
                "SELECT left(encode(token_hash, 'hex'), 12), name, role, \
                        to_char(created_at AT TIME ZONE 'UTC', '{format}'), \
                        to_char(expires_at AT TIME ZONE 'UTC', '{format}'), \
                        to_char(revoked_at AT TIME ZONE 'UTC', '{format}') \
                   FROM api_tokens ORDER BY created_at, token_hash"
            ),
            &[],
        )
        .await?
        .iter()
        .map(|r| TokenRow {
            id: r.get(0),
            name: r.get(1),
            role: r.get(2),
            created_at: r.get(3),
            expires_at: r.get(4),
            revoked_at: r.get(5),
        })
        .collect())
}

/// Revokes the one live token whose id starts with `id` (at least 6 hex digits); how
/// many matched (the caller refuses anything but one).
pub async fn revoke_token(client: &impl GenericClient, id: &str) -> Result<u64, StoreError> {
    let matching: i64 = client
        .query_one(
            "SELECT count(*) FROM api_tokens \
              WHERE encode(token_hash, 'hex') LIKE $1 || '%' AND revoked_at IS NULL",
            &[&id],
        )
        .await?
        .get(0);
    if matching != 1 {
        return Ok(u64::try_from(matching).unwrap_or(0));
    }
    Ok(client
        .execute(
            "UPDATE api_tokens SET revoked_at = now() \
              WHERE encode(token_hash, 'hex') LIKE $1 || '%' AND revoked_at IS NULL",
            &[&id],
        )
        .await?)
}

/// Who holds the token with this hash, unless it is unknown, revoked or expired.
pub async fn find_token(
    client: &impl GenericClient,
    token_hash: &[u8; 32],
) -> Result<Option<TokenHolder>, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT name, role FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL \
               AND (expires_at IS NULL OR expires_at > now())",
        )
        .await?;
    Ok(client
        .query_opt(&statement, &[&token_hash.as_slice()])
        .await?
        .map(|row| TokenHolder {
            name: row.get(0),
            role: row.get(1),
        }))
}

/// The first answer to a request made with an idempotency key.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedResponse {
    pub fingerprint: Vec<u8>,
    pub status: u16,
    pub body: serde_json::Value,
}

pub async fn recorded_response(
    client: &impl GenericClient,
    key: &str,
) -> Result<Option<RecordedResponse>, StoreError> {
    let statement = client
        .prepare_cached("SELECT fingerprint, status, body FROM request_responses WHERE key = $1")
        .await?;
    Ok(client
        .query_opt(&statement, &[&key])
        .await?
        .map(|row| RecordedResponse {
            fingerprint: row.get(0),
            status: u16::try_from(row.get::<_, i32>(1)).unwrap_or(500),
            body: row.get(2),
        }))
}

/// Records the answer to a keyed request, in the transaction of its events. A concurrent
/// request with the same key fails here (unique violation) and its events roll back.
pub async fn record_response(
    client: &impl GenericClient,
    key: &str,
    fingerprint: &[u8; 32],
    status: u16,
    body: &serde_json::Value,
) -> Result<(), StoreError> {
    let statement = client
        .prepare_cached(
            "INSERT INTO request_responses (key, fingerprint, status, body) VALUES ($1, $2, $3, $4)",
        )
        .await?;
    client
        .execute(
            &statement,
            &[&key, &fingerprint.as_slice(), &i32::from(status), body],
        )
        .await
        .map_err(|e| match e.as_db_error().and_then(|d| d.constraint()) {
            Some("request_responses_pkey") => StoreError::IdempotencyRace,
            _ => StoreError::Database(e),
        })?;
    Ok(())
}

/// One game in the listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameSummary {
    pub game_id: String,
    /// The game's name for people: its tournament, round and table, or its ruleset and its
    /// players.
    pub title: String,
    pub ruleset: String,
    /// `running`, `ended`, `voided` or `aborted` (ended before every seated power had
    /// played a turn of its own: not rated).
    pub status: String,
    pub players: Vec<String>,
    pub game_master: String,
    pub tournament: Option<String>,
    /// The game stream's version when the summary was last updated.
    pub version: i64,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339: when the summary last changed (for an ended game, when it ended).
    pub updated_at: String,
    /// Each power's orders carried out: how many its player gave, how many the game master
    /// (or a director or an admin) gave for it, and how many a proxy gave for its player
    /// (`by_proxy`, left out while none). Powers with none are left out.
    pub orders: BTreeMap<Power, OrderCount>,
}

/// Which games to list.
#[derive(Debug, Clone, Default)]
pub struct GameFilter {
    pub status: Option<String>,
    pub ruleset: Option<String>,
    pub player: Option<String>,
    pub tournament: Option<String>,
    /// The last game id of the previous page.
    pub after: Option<String>,
}

/// The start of a query of `game_summaries`: the columns [`summary_of`] reads, in its order.
macro_rules! summary_select {
    () => {
        "SELECT game_id, ruleset, status, players, game_master, tournament, version, \
                to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), \
                to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), \
                orders, \
                (SELECT name FROM tournament_summaries t WHERE t.tournament_id = tournament), \
                (SELECT payload->>'seated_by' FROM events e \
                  WHERE e.stream_id = 'game-' || game_id AND e.stream_version = 1) \
           FROM game_summaries "
    };
}

/// A tournament's name, from its summary (`None` before the projector has seen it).
pub async fn tournament_name(
    client: &impl GenericClient,
    tournament: &str,
) -> Result<Option<String>, StoreError> {
    let statement = client
        .prepare_cached("SELECT name FROM tournament_summaries WHERE tournament_id = $1")
        .await?;
    Ok(client
        .query_opt(&statement, &[&tournament])
        .await?
        .map(|row| row.get(0)))
}

/// A page of games in id order (ids are time-ordered UUIDs: oldest first).
pub async fn list_games(
    client: &impl GenericClient,
    filter: &GameFilter,
    limit: u32,
) -> Result<Vec<GameSummary>, StoreError> {
    let statement = client
        .prepare_cached(concat!(
            summary_select!(),
            "WHERE ($1::text IS NULL OR status = $1) \
                   AND ($2::text IS NULL OR ruleset = $2) \
                   AND ($3::text IS NULL OR players @> ARRAY[$3::text]) \
                   AND ($4::text IS NULL OR tournament = $4) \
                   AND ($5::text IS NULL OR game_id > $5) \
                 ORDER BY game_id LIMIT $6"
        ))
        .await?;
    let rows = client
        .query(
            &statement,
            &[
                &filter.status,
                &filter.ruleset,
                &filter.player,
                &filter.tournament,
                &filter.after,
                &i64::from(limit),
            ],
        )
        .await?;
    rows.iter().map(summary_of).collect()
}

/// A player's games that ended without counting (aborted or voided), newest first: the
/// player pages list them as not rated. Players are those named at the game's creation.
pub async fn unrated_games(
    client: &impl GenericClient,
    player: &str,
    limit: u32,
) -> Result<Vec<GameSummary>, StoreError> {
    let statement = client
        .prepare_cached(concat!(
            summary_select!(),
            "WHERE players @> ARRAY[$1::text] AND status IN ('aborted', 'voided') \
                 ORDER BY updated_at DESC, game_id DESC LIMIT $2"
        ))
        .await?;
    let rows = client
        .query(&statement, &[&player, &i64::from(limit)])
        .await?;
    rows.iter().map(summary_of).collect()
}

/// A `game_summaries` row, its columns in the order `summary_select!` selects them.
fn summary_of(row: &tokio_postgres::Row) -> Result<GameSummary, StoreError> {
    let game_id: String = row.get(0);
    let orders = serde_json::from_value(row.get(9))
        .map_err(|e| StoreError::Corrupt(format!("game {game_id}: its order counts: {e}")))?;
    let ruleset: String = row.get(1);
    let players: Vec<String> = row.get(3);
    let tournament_name: Option<String> = row.get(10);
    let seated_by: Option<String> = row.get(11);
    Ok(GameSummary {
        game_id,
        title: warlog_events::naming::title_of(
            &ruleset,
            &players,
            seated_by.as_deref(),
            tournament_name.as_deref(),
        ),
        ruleset,
        status: row.get(2),
        players,
        game_master: row.get(4),
        tournament: row.get(5),
        version: row.get(6),
        created_at: row.get(7),
        updated_at: row.get(8),
        orders,
    })
}

/// The projection that keeps `game_summaries`.
#[derive(Debug, Clone, Copy, Default)]
pub struct GameSummaries;

impl Projection for GameSummaries {
    fn name(&self) -> &'static str {
        "game_summaries"
    }

    async fn reset(&self, tx: &Transaction<'_>) -> Result<(), StoreError> {
        tx.execute("DELETE FROM game_summaries", &[]).await?;
        Ok(())
    }

    async fn apply(&self, tx: &Transaction<'_>, event: &RecordedEvent) -> Result<(), StoreError> {
        if event.stream_id.category() != StreamCategory::Game {
            return Ok(());
        }
        let recorded_at = recorded_at(event);
        let version = version_of(event);
        let decoded = GameStreamEvent::decode(
            event.event_type.as_str(),
            event.event_version,
            &event.payload,
        )
        .map_err(|e| StoreError::Corrupt(format!("{}: {e}", event.stream_id)))?;
        match decoded {
            GameStreamEvent::Created(GameCreated {
                game_id,
                ruleset,
                players,
                game_master,
                tournament,
                ..
            }) => {
                tx.execute(
                    "INSERT INTO game_summaries (game_id, ruleset, status, players, game_master, \
                         tournament, version, created_at, updated_at) \
                     VALUES ($1, $2, 'running', $3, $4, $5, $6, ($7::text)::timestamptz, \
                         ($7::text)::timestamptz) \
                     ON CONFLICT (game_id) DO NOTHING",
                    &[
                        &game_id,
                        &ruleset,
                        &players,
                        &game_master,
                        &tournament,
                        &version,
                        &recorded_at,
                    ],
                )
                .await?;
            }
            other => {
                use warlog_rules::game::GameEvent;
                // The status the event leaves the game in, if it changes it: an ended
                // game is rated or aborted as the game's own rule says.
                let status: Option<&str> = match &other {
                    GameStreamEvent::Played(GameEvent::GameEnded { .. }) => {
                        Some(ended_status(tx, event).await?)
                    }
                    GameStreamEvent::Played(GameEvent::GameVoided { .. }) => Some("voided"),
                    _ => None,
                };
                let game_id = event
                    .stream_id
                    .as_str()
                    .strip_prefix("game-")
                    .unwrap_or_default();
                tx.execute(
                    "UPDATE game_summaries SET version = GREATEST(version, $2), \
                         status = COALESCE($3, status), \
                         updated_at = ($4::text)::timestamptz \
                     WHERE game_id = $1",
                    &[&game_id, &version, &status, &recorded_at],
                )
                .await?;
                if let GameStreamEvent::Orders(record) = &other {
                    count_orders(tx, game_id, record).await?;
                }
            }
        }
        Ok(())
    }
}

/// `ended` or `aborted`: the game's status once `event` (its `GameEnded`) is folded, by
/// [`GameLog::status`], the rule every reader of results follows.
pub(crate) async fn ended_status(
    tx: &Transaction<'_>,
    event: &RecordedEvent,
) -> Result<&'static str, StoreError> {
    let (_, log) = game_upto(tx, event).await?;
    Ok(log.status().as_str())
}

/// A game's events up to `event` (one of them), read no further, and the game they fold to.
pub(crate) async fn game_upto(
    tx: &Transaction<'_>,
    event: &RecordedEvent,
) -> Result<(Vec<RecordedEvent>, GameLog), StoreError> {
    let count = u32::try_from(event.stream_version).unwrap_or(u32::MAX);
    let upto = crate::read_stream(tx, &event.stream_id, 1, count).await?;
    let log = GameLog::fold(&upto)
        .map_err(|e| StoreError::Corrupt(format!("{}: {e}", event.stream_id)))?;
    Ok((upto, log))
}

/// Adds a record's orders to its power's counts, as its player's, the game master's or a
/// proxy's (`by_proxy` left out while none).
async fn count_orders(
    tx: &Transaction<'_>,
    game_id: &str,
    record: &warlog_events::orders::OrdersGiven,
) -> Result<(), StoreError> {
    let Some((power, hand, orders)) = OrderCount::of(record) else {
        return Ok(());
    };
    let key = serde_json::to_value(power)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut added = [0i64; 3];
    added[match hand {
        OrderHand::Player => 0,
        OrderHand::GameMaster => 1,
        OrderHand::Proxy => 2,
    }] = i64::from(orders);
    let [by_player, by_game_master, by_proxy] = added;
    tx.execute(
        "UPDATE game_summaries SET orders = jsonb_set(orders, ARRAY[$2::text], \
             jsonb_strip_nulls(jsonb_build_object( \
               'by_player', COALESCE((orders->$2->>'by_player')::bigint, 0) + $3, \
               'by_game_master', COALESCE((orders->$2->>'by_game_master')::bigint, 0) + $4, \
               'by_proxy', NULLIF(COALESCE((orders->$2->>'by_proxy')::bigint, 0) + $5, 0)))) \
         WHERE game_id = $1",
        &[&game_id, &key, &by_player, &by_game_master, &by_proxy],
    )
    .await?;
    Ok(())
}
