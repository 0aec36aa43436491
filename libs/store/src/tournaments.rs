//! The `tournament_summaries` read model: one row per tournament, so that the website can
//! list and filter tournaments without folding every tournament's stream.

use deadpool_postgres::{GenericClient, Transaction};
use serde::Serialize;
use warlog_events::{RecordedEvent, StreamCategory};
use warlog_league::tournament::TournamentEvent;

use crate::projector::{recorded_at, version_of, Projection};
use crate::StoreError;

/// A tournament as the index lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TournamentSummary {
    pub tournament_id: String,
    pub name: String,
    pub ruleset: String,
    pub season: i32,
    /// `open` (no round seated yet), `running` or `finished`.
    pub state: String,
    pub rounds: i32,
    pub rounds_seated: i32,
    pub version: i64,
    /// RFC 3339, UTC.
    pub created_at: String,
}

/// Which tournaments to list, and from where.
#[derive(Debug, Clone, Default)]
pub struct TournamentFilter {
    pub state: Option<String>,
    pub ruleset: Option<String>,
    pub season: Option<i32>,
    /// The last tournament id of the previous page.
    pub after: Option<String>,
}

/// A page of tournaments in id order (ids are time-ordered UUIDs: oldest first). A page
/// starts strictly after the previous page's last id, so a walk sees each tournament once
/// however many are created meanwhile.
pub async fn list_tournaments(
    client: &impl GenericClient,
    filter: &TournamentFilter,
    limit: u32,
) -> Result<Vec<TournamentSummary>, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT tournament_id, name, ruleset, season, state, rounds, rounds_seated, version, \
                    to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') \
               FROM tournament_summaries \
              WHERE ($1::text IS NULL OR state = $1) \
                AND ($2::text IS NULL OR ruleset = $2) \
                AND ($3::integer IS NULL OR season = $3) \
                AND ($4::text IS NULL OR tournament_id > $4) \
              ORDER BY tournament_id LIMIT $5",
        )
        .await?;
    let rows = client
        .query(
            &statement,
            &[
                &filter.state,
                &filter.ruleset,
                &filter.season,
                &filter.after,
                &i64::from(limit),
            ],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| TournamentSummary {
            tournament_id: row.get(0),
            name: row.get(1),
            ruleset: row.get(2),
            season: row.get(3),
            state: row.get(4),
            rounds: row.get(5),
            rounds_seated: row.get(6),
            version: row.get(7),
            created_at: row.get(8),
        })
        .collect())
}

/// The projection that keeps `tournament_summaries`.
#[derive(Debug, Clone, Copy, Default)]
pub struct TournamentSummaries;

impl Projection for TournamentSummaries {
    fn name(&self) -> &'static str {
        "tournament_summaries"
    }

    async fn reset(&self, tx: &Transaction<'_>) -> Result<(), StoreError> {
        tx.execute("DELETE FROM tournament_summaries", &[]).await?;
        Ok(())
    }

    async fn apply(&self, tx: &Transaction<'_>, event: &RecordedEvent) -> Result<(), StoreError> {
        if event.stream_id.category() != StreamCategory::Tournament {
            return Ok(());
        }
        let recorded_at = recorded_at(event);
        let version = version_of(event);
        let decoded = TournamentEvent::decode(
            event.event_type.as_str(),
            event.event_version,
            &event.payload,
        )
        .map_err(|e| StoreError::Corrupt(format!("{}: {e}", event.stream_id)))?;
        let id = event
            .stream_id
            .as_str()
            .strip_prefix("tournament-")
            .unwrap_or_default();
        // How the event changes the row: its state, and the rounds seated.
        let (state, seated): (Option<&str>, i32) = match decoded {
            TournamentEvent::TournamentCreated(created) => {
                let rounds = i32::try_from(created.rounds).unwrap_or(i32::MAX);
                tx.execute(
                    "INSERT INTO tournament_summaries (tournament_id, name, ruleset, season, \
                         state, rounds, rounds_seated, version, created_at, updated_at) \
                     VALUES ($1, $2, $3, \
                         extract(year FROM ($4::text)::timestamptz AT TIME ZONE 'UTC')::integer, \
                         'open', $5, 0, $6, ($4::text)::timestamptz, ($4::text)::timestamptz) \
                     ON CONFLICT (tournament_id) DO NOTHING",
                    &[
                        &created.tournament_id,
                        &created.name,
                        &created.ruleset,
                        &recorded_at,
                        &rounds,
                        &version,
                    ],
                )
                .await?;
                return Ok(());
            }
            TournamentEvent::RoundSeated(_) => (Some("running"), 1),
            TournamentEvent::TournamentFinished { .. } => (Some("finished"), 0),
            TournamentEvent::PlayerEntered { .. }
            | TournamentEvent::PlayerDropped { .. }
            | TournamentEvent::PlayerWaitlisted { .. }
            | TournamentEvent::SeatsSwapped(_)
            | TournamentEvent::SubstituteAppointed(_) => (None, 0),
        };
        // Applied once per version: a replayed event (the feed delivers each once, but a
        // rebuild starts over from an empty table) never counts twice.
        tx.execute(
            "UPDATE tournament_summaries SET version = $2, \
                 state = COALESCE($3, state), \
                 rounds_seated = rounds_seated + $4, \
                 updated_at = ($5::text)::timestamptz \
             WHERE tournament_id = $1 AND version < $2",
            &[&id, &version, &state, &seated, &recorded_at],
        )
        .await?;
        Ok(())
    }
}
