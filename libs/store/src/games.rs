//! The `game_summaries` read model that lists games.

use std::collections::BTreeMap;

use deadpool_postgres::{GenericClient, Transaction};
use serde::Serialize;
use warlog_events::game::{GameCreated, GameLog, GameStreamEvent, OrderCount, OrderHand};
use warlog_events::{RecordedEvent, StreamCategory};
use warlog_rules::board::Power;

use crate::projector::{recorded_at, version_of, Projection};
use crate::StoreError;

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
            "WHERE players @> ARRAY[$1::text] AND status IN ('aborted', 'master-only', 'voided') \
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
