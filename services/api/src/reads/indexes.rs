//! The indexes' reads, the API's and the pages' alike: tournaments and players a page at a
//! time, and the link to the next page that every index of the service gives. A page
//! starts strictly after the last id of the one before, so a walk meets each entry once
//! while others are added.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use warlog_store::league::list_players;
use warlog_store::tournaments::{list_tournaments, TournamentFilter, TournamentSummary};
use warlog_store::StoreError;

use crate::error::ApiError;
use crate::query::{PageLimit, Season};
use crate::respond;
use crate::AppState;

/// Where a tournament stands.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TournamentState {
    /// Taking entries; no round seated yet.
    Open,
    /// A round has been seated.
    Running,
    Finished,
}

impl TournamentState {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            TournamentState::Open => "open",
            TournamentState::Running => "running",
            TournamentState::Finished => "finished",
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct TournamentListQuery {
    /// `open`, `running` or `finished`.
    #[param(value_type = Option<String>)]
    pub state: Option<TournamentState>,
    pub ruleset: Option<String>,
    /// The calendar year the tournament was created in.
    #[param(inline)]
    pub season: Option<Season>,
    /// The last tournament id of the previous page.
    pub after: Option<String>,
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<PageLimit>,
}

/// A tournament in the index.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct TournamentListItem {
    pub tournament_id: String,
    pub name: String,
    pub ruleset: String,
    pub season: i32,
    /// `open`, `running` or `finished`.
    pub state: String,
    pub rounds: i32,
    pub rounds_seated: i32,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// The tournament itself.
    pub href: String,
}

impl From<TournamentSummary> for TournamentListItem {
    fn from(t: TournamentSummary) -> Self {
        TournamentListItem {
            href: format!("/v1/tournaments/{}", t.tournament_id),
            tournament_id: t.tournament_id,
            name: t.name,
            ruleset: t.ruleset,
            season: t.season,
            state: t.state,
            rounds: t.rounds,
            rounds_seated: t.rounds_seated,
            created_at: t.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct TournamentList {
    pub tournaments: Vec<TournamentListItem>,
    /// The next page; absent on the last.
    pub next: Option<String>,
}

/// The link to the page after one that ended at `last`, keeping the filters; none when the
/// page was not full (there is no more).
pub(crate) fn next_page(
    path: &str,
    filters: &[(&str, Option<String>)],
    last: Option<&str>,
    returned: usize,
    limit: PageLimit,
) -> Option<String> {
    let last = last.filter(|_| returned == limit.get() as usize)?;
    let mut params = form_urlencoded::Serializer::new(String::new());
    for (name, value) in filters {
        if let Some(value) = value {
            params.append_pair(name, value);
        }
    }
    params.append_pair("after", last);
    params.append_pair("limit", &limit.get().to_string());
    Some(format!("{path}?{}", params.finish()))
}

respond::pages!(TournamentList, PlayerList);

/// One page of the tournament index: the API's and the page's.
pub(crate) async fn tournament_page(
    state: &AppState,
    query: &TournamentListQuery,
) -> Result<TournamentList, ApiError> {
    let limit = query.limit.unwrap_or(PageLimit::DEFAULT);
    let filter = TournamentFilter {
        state: query.state.map(|s| s.as_str().to_owned()),
        ruleset: query.ruleset.clone(),
        season: query.season.map(Season::get),
        after: query.after.clone(),
    };
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let found = list_tournaments(&client, &filter, limit.get()).await?;
    let next = next_page(
        "/v1/tournaments",
        &[
            ("state", filter.state.clone()),
            ("ruleset", filter.ruleset.clone()),
            ("season", filter.season.map(|s| s.to_string())),
        ],
        found.last().map(|t| t.tournament_id.as_str()),
        found.len(),
        limit,
    );
    Ok(TournamentList {
        tournaments: found.into_iter().map(TournamentListItem::from).collect(),
        next,
    })
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct PlayerListQuery {
    /// Players whose handle or display name starts with this (case does not matter).
    #[param(max_length = 100)]
    pub q: Option<String>,
    /// The last handle of the previous page.
    pub after: Option<String>,
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<PageLimit>,
}

/// A player in the index.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PlayerListItem {
    pub handle: String,
    pub display_name: String,
    /// The player's page of standings and games.
    pub href: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PlayerList {
    pub players: Vec<PlayerListItem>,
    /// The next page; absent on the last.
    pub next: Option<String>,
}

/// One page of the player index: the API's and the page's.
pub(crate) async fn player_page(
    state: &AppState,
    query: &PlayerListQuery,
) -> Result<PlayerList, ApiError> {
    let limit = query.limit.unwrap_or(PageLimit::DEFAULT);
    let prefix = query.q.as_deref().map(str::trim).filter(|q| !q.is_empty());
    if prefix.is_some_and(|q| q.chars().count() > 100 || q.chars().any(char::is_control)) {
        return Err(ApiError::malformed(
            "q: a search is at most 100 printable characters",
        ));
    }
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let found = list_players(&client, prefix, query.after.as_deref(), limit.get()).await?;
    let next = next_page(
        "/v1/players",
        &[("q", prefix.map(str::to_owned))],
        found.last().map(|p| p.handle.as_str()),
        found.len(),
        limit,
    );
    Ok(PlayerList {
        players: found
            .into_iter()
            .map(|p| PlayerListItem {
                href: format!("/v1/players/{}", urlencode_segment(&p.handle)),
                handle: p.handle,
                display_name: p.display_name,
            })
            .collect(),
        next,
    })
}

/// A handle as one path segment.
fn urlencode_segment(segment: &str) -> String {
    url::form_urlencoded::byte_serialize(segment.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}
