//! A game's reads, the API's and the pages' alike: the game index a page at a time, a
//! game's log (at its head or any version, from the primary or, for a board view, from a
//! standby that has the request's writes), its view, and its chronicle of battles, orders
//! and phase ends.

use actix_web::HttpRequest;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use warlog_events::game::{GameLog, GameStatus};
use warlog_store::games::{list_games, GameFilter, GameSummary};
use warlog_store::StoreError;

use crate::error::ApiError;
use crate::games::{self, game_stream};
use crate::query::PageLimit;
use crate::reads::indexes::next_page;
use crate::respond;
use crate::views::GameView;
use crate::AppState;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct GameListQuery {
    /// `running`, `ended`, `voided`, `aborted` or `master-only`.
    #[param(value_type = Option<String>)]
    pub status: Option<GameStatus>,
    pub ruleset: Option<String>,
    /// A player's handle.
    pub player: Option<String>,
    pub tournament: Option<String>,
    /// The last game id of the previous page.
    pub after: Option<String>,
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<PageLimit>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct GameList {
    #[schema(value_type = Vec<Object>)]
    pub games: Vec<GameSummary>,
    pub next: Option<String>,
}

respond::pages!(GameList);

/// One page of the game index: the API's and the page's.
pub(crate) async fn game_page(
    state: &AppState,
    query: &GameListQuery,
) -> Result<GameList, ApiError> {
    let limit = query.limit.unwrap_or(PageLimit::DEFAULT);
    let filter = GameFilter {
        status: query.status.map(|s| s.as_str().to_owned()),
        ruleset: query.ruleset.clone(),
        player: query.player.clone(),
        tournament: query.tournament.clone(),
        after: query.after.clone(),
    };
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let games = list_games(&client, &filter, limit.get()).await?;
    let next = next_page(
        "/v1/games",
        &[
            ("status", filter.status.clone()),
            ("ruleset", filter.ruleset.clone()),
            ("player", filter.player.clone()),
            ("tournament", filter.tournament.clone()),
        ],
        games.last().map(|g| g.game_id.as_str()),
        games.len(),
        limit,
    );
    Ok(GameList { games, next })
}

/// A game's log at its head, read from the primary.
pub(crate) async fn load(state: &AppState, game_id: &str) -> Result<GameLog, ApiError> {
    let stream = game_stream(game_id)?;
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    games::load(&client, &state.games, &stream).await
}

/// [`load`] for a board view: from the standby when there is one and it has the request's
/// consistency token (`Consistency-Token`), else from the primary.
pub(crate) async fn load_for_read(
    state: &AppState,
    req: &HttpRequest,
    game_id: &str,
) -> Result<GameLog, ApiError> {
    let stream = game_stream(game_id)?;
    let client = state.reader(req).await?;
    games::load(&client, &state.games, &stream).await
}

/// A game's view, a tournament game named by its tournament, round and table.
pub(crate) async fn game_view(
    state: &AppState,
    req: &HttpRequest,
    log: &GameLog,
) -> Result<GameView, ApiError> {
    let name = match &log.created.tournament {
        Some(tournament) => {
            let client = state.reader(req).await?;
            warlog_store::games::tournament_name(&client, tournament).await?
        }
        None => None,
    };
    Ok(GameView::named(log, name.as_deref()))
}

/// The game after its first `version` events (the latest when none is given).
pub(crate) async fn log_at(
    state: &AppState,
    req: &HttpRequest,
    id: &str,
    version: Option<u64>,
) -> Result<GameLog, ApiError> {
    let latest = load_for_read(state, req, id).await?;
    match version {
        None => Ok(latest),
        Some(v) if v == 0 || v > latest.version => Err(ApiError::malformed(format!(
            "query parameter `version`: the game has versions 1 to {}, not {v}",
            latest.version
        ))),
        Some(v) if v == latest.version => Ok(latest),
        Some(v) => {
            let client = state.reader(req).await?;
            games::load_at(&client, &state.games, &game_stream(id)?, v).await
        }
    }
}

/// The game's battles and phase ends as of its latest event, carried on from the last read.
pub(crate) async fn chronicle(
    state: &AppState,
    game_id: &str,
) -> Result<std::sync::Arc<games::Chronicle>, ApiError> {
    let stream = game_stream(game_id)?;
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    games::chronicle(&client, &state.games, &stream).await
}
