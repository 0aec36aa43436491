//! Indexes for finding things without knowing their ids: tournaments (by state, ruleset and
//! season) and players (by the prefix of a handle or a name). Both are pages in id order
//! with a keyset cursor: a page starts strictly after the last id of the one before, so a
//! walk meets each entry once while others are added.

use actix_web::{get, web, HttpRequest, HttpResponse};

use crate::error::ApiError;
use crate::query::ValidQuery;
use crate::reads::indexes::{
    player_page, tournament_page, PlayerList, PlayerListQuery, TournamentList, TournamentListQuery,
};
use crate::respond;
use crate::AppState;

resource! {
    player_list: [],
    tournament_list: [],
}

/// Tournaments, oldest first (a read model: it may trail the log by a moment).
///
/// Filtered by state, ruleset or season (all given must hold). A page holds up to
/// `limit` tournaments (default 100); `next`, and the `Link` header, name the page after
/// it, which starts after the last tournament's id.
#[utoipa::path(get, path = "/v1/tournaments", tag = "tournaments",
    params(TournamentListQuery),
    responses(
        (status = 200, description = "A page of tournaments", body = TournamentList),
    ))]
#[get("/v1/tournaments")]
pub async fn tournament_list(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: ValidQuery<TournamentListQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = tournament_page(&state, &query).await?;
    respond::json_page(&req, &page)
}

/// Registered players in handle order.
///
/// With `q`, only those whose handle or display name starts with it (case does not
/// matter). A page holds up to `limit` players (default 100); `next`, and the `Link`
/// header, name the page after it, which starts after the last handle.
#[utoipa::path(get, path = "/v1/players", tag = "league",
    params(PlayerListQuery),
    responses(
        (status = 200, description = "A page of players", body = PlayerList),
    ))]
#[get("/v1/players")]
pub async fn player_list(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: ValidQuery<PlayerListQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = player_page(&state, &query).await?;
    respond::json_page(&req, &page)
}
