//! Players over HTTP: registering a handle, and a player's standings, games and rating
//! history.

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use utoipa::ToSchema;
use warlog_league::players::{DisplayName, Handle};

use crate::auth::Caller;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::players::{NewPlayer, PlayerRegistered};
use crate::reads::league::{player_view, PlayerView};
use crate::respond;
use crate::write::{self, Expected, WriteRequest};
use crate::AppState;

/// A new player.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"handle": "ann", "display_name": "Ann Smith"}))]
pub struct RegisterPlayer {
    /// 2 to 32 lowercase letters, digits, `_` or `-`, starting with a letter.
    #[schema(value_type = String)]
    pub handle: Handle,
    /// The name people read (1 to 80 characters); the handle when not given.
    #[schema(value_type = Option<String>)]
    pub display_name: Option<DisplayName>,
}

/// Registers a player (admin or director; a player token may register its own handle).
///
/// A handle is 2 to 32 lowercase letters, digits, `_` or `-`, starting with a letter; it
/// is the player's for good (409 when taken). The answer's `Location` is the player.
#[utoipa::path(post, path = "/v1/players", tag = "league",
    request_body = RegisterPlayer,
    responses(
        (status = 201, description = "Registered", body = PlayerRegistered,
            headers(("Location" = String, description = "The player: `/v1/players/{handle}`"))),
    ),
    security(("bearer" = [])))]
#[post("/v1/players")]
pub async fn register_player(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    body: JsonBody<RegisterPlayer>,
) -> Result<HttpResponse, ApiError> {
    let JsonBody { value, raw } = body;
    let request = WriteRequest::of(&req, &caller, &raw, Expected::Unstated)?;
    let location = format!("/v1/players/{}", value.handle);
    let player = NewPlayer {
        handle: value.handle,
        display_name: value.display_name,
    };
    let written = write::run(&state, &request, &player).await?;
    Ok(written.respond(Some(location)))
}

/// A player: points, title, rating, places and the game history.
///
/// Standings per ruleset, lifetime and per season; the rated games, newest first, and
/// apart from them the games that ended without counting; and the skill rating after each
/// game that moved it.
#[utoipa::path(get, path = "/v1/players/{handle}", tag = "league",
    params(("handle" = String, Path)),
    responses(
        (status = 200, description = "The player", body = PlayerView),
    ))]
#[get("/v1/players/{handle}")]
pub async fn player_detail(
    state: web::Data<AppState>,
    req: HttpRequest,
    handle: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let view = player_view(&state, &handle).await?;
    respond::json(&req, &view)
}
