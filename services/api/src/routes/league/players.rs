//! Players over HTTP: registering a handle, and a player's standings, games and rating
//! history.


use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use warlog_events::game::GameStatus;
use warlog_league::players::{DisplayName, Handle};
use warlog_league::rating::Rating;
use warlog_rules::scoring::Title;
use warlog_store::league::{
    find_player, player_history, player_standings, points_of,
    rating_history, HistoryRow,
};
use warlog_store::StoreError;

use crate::auth::Caller;
use crate::body::JsonBody;
use crate::error::{ApiError, ErrorCode};
use crate::players::{NewPlayer, PlayerRegistered};
use crate::respond::{self};
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

/// A player's standing in one ladder scope.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerStanding {
    pub ruleset: String,
    /// The calendar year; absent for lifetime.
    pub season: Option<i32>,
    /// Points, as a decimal (`8.5`).
    pub points: f64,
    /// The same, exact (`"17/2"` when tied places were shared).
    pub points_exact: String,
    pub title: String,
    /// 1-based, on the points ladder.
    pub position: i64,
    pub games: i32,
    /// Sole first places, and shares of shared ones; an all-tied game is nobody's win.
    pub wins: f64,
    /// The same, exact (`"3/2"`).
    pub wins_exact: String,
    /// How many times at each place, first place first.
    pub places: Vec<u32>,
    /// Percentage points, over the games played.
    pub average_percent_gain: Option<f64>,
    pub rating: RatingView,
}

/// A skill rating.
#[derive(Debug, Serialize, ToSchema)]
pub struct RatingView {
    pub mu: f64,
    pub sigma: f64,
    /// `mu - 3 sigma`: the skill ladder's order.
    pub ordinal: f64,
}

/// One finished game of a player.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerGame {
    pub game_id: String,
    pub ruleset: String,
    pub tournament: Option<String>,
    pub power: String,
    /// `played`, or `replaced`: sat at the seat without taking its result (a substitute before
    /// the seat became theirs: no points; docs/rulesets.md, "Results follow play").
    pub result: String,
    pub place: Option<i32>,
    pub tied_with: Option<i32>,
    /// Points, as a decimal (`2.67`).
    pub points: f64,
    /// The same, exact (`"8/3"` when tied places were shared).
    pub points_exact: String,
    /// The gain, as a percentage of the starting IPC (`-20.83`).
    pub percent_gain: Option<f64>,
    /// The same, exact, as a fraction of the starting IPC (`"-5/24"`).
    pub percent_gain_exact: Option<String>,
    #[schema(format = DateTime)]
    pub ended_at: String,
}

/// A game of a player's that ended without counting.
#[derive(Debug, Serialize, ToSchema)]
pub struct UnratedGame {
    pub game_id: String,
    pub ruleset: String,
    pub tournament: Option<String>,
    /// `aborted` (ended before every seated power had played a turn of its own),
    /// `master-only` (a seated player never gave an order in person) or `voided`.
    pub status: String,
    /// The same in plain words: `aborted, not rated`.
    pub status_words: String,
    #[schema(format = DateTime)]
    pub ended_at: String,
}

/// A player's page.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerView {
    pub handle: String,
    pub display_name: String,
    /// Lifetime and per-season standings, per ruleset.
    pub standings: Vec<PlayerStanding>,
    /// Newest first.
    pub games: Vec<PlayerGame>,
    /// The games the player sat down to that ended without counting (aborted, played by the game
    /// master alone, or voided),
    /// newest first: no points, no rating change, not among `games`.
    pub unrated_games: Vec<UnratedGame>,
    /// The lifetime skill rating after each game that moved it, per ruleset, oldest first.
    pub rating_history: Vec<RatingStepView>,
}

/// The skill rating after one game.
#[derive(Debug, Serialize, ToSchema)]
pub struct RatingStepView {
    pub ruleset: String,
    /// The league's count of finished games when this rating was set.
    pub league_game: i64,
    pub mu: f64,
    pub sigma: f64,
    /// `mu - 3 sigma`.
    pub ordinal: f64,
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

/// The player page's content, shared by the API and the HTML page.
pub async fn player_view(state: &AppState, handle: &str) -> Result<PlayerView, ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let registered = find_player(&client, handle).await?;
    let history = player_history(&client, handle, 10_000).await?;
    let unrated = warlog_store::games::unrated_games(&client, handle, 1_000).await?;
    let Some(display_name) = registered
        .map(|p| p.display_name)
        .or_else(|| (!history.is_empty() || !unrated.is_empty()).then(|| handle.to_owned()))
    else {
        return Err(ApiError::new(
            ErrorCode::PlayerNotFound,
            format!("no player {handle:?}"),
        ));
    };
    let standings = player_standings(&client, handle)
        .await?
        .into_iter()
        .map(|s| {
            let points = points_of(s.points_scaled);
            let leads = s.leader.as_deref() == Some(handle);
            let played: Vec<&HistoryRow> = history
                .iter()
                .filter(|h| {
                    !h.replaced && h.ruleset == s.ruleset && (s.season == 0 || h.season == s.season)
                })
                .collect();
            let mut places = vec![0u32; 5];
            for h in &played {
                if let Some(place) = h.place.and_then(|p| usize::try_from(p).ok()) {
                    if place >= 1 {
                        if places.len() < place {
                            places.resize(place, 0);
                        }
                        places[place - 1] += 1;
                    }
                }
            }
            let gains: Vec<f64> = played.iter().filter_map(|h| h.percent_gain_value).collect();
            PlayerStanding {
                ruleset: s.ruleset,
                season: (s.season != 0).then_some(s.season),
                points: points.to_f64(),
                points_exact: points.to_string(),
                title: Title::in_ladder(points, leads).name().to_owned(),
                position: s.points_position,
                games: s.games,
                wins: points_of(s.wins_scaled).to_f64(),
                wins_exact: points_of(s.wins_scaled).to_string(),
                places,
                average_percent_gain: (!gains.is_empty())
                    .then(|| gains.iter().sum::<f64>() / gains.len() as f64),
                rating: RatingView {
                    mu: s.mu,
                    sigma: s.sigma,
                    ordinal: Rating { mu: s.mu, sigma: s.sigma }.ordinal(),
                },
            }
        })
        .collect();
    let games = history
        .into_iter()
        .map(|h| PlayerGame {
            game_id: h.game_id,
            ruleset: h.ruleset,
            tournament: h.tournament,
            power: h.power,
            result: if h.replaced { "replaced" } else { "played" }.to_owned(),
            place: h.place,
            tied_with: h.tied_with,
            points: points_of(h.points_scaled).to_f64(),
            points_exact: points_of(h.points_scaled).to_string(),
            percent_gain: h.percent_gain_value,
            percent_gain_exact: h.percent_gain,
            ended_at: h.ended_at,
        })
        .collect();
    let rating_history = rating_history(&client, handle)
        .await?
        .into_iter()
        .map(|step| RatingStepView {
            ruleset: step.ruleset,
            league_game: step.seq,
            mu: step.mu,
            sigma: step.sigma,
            ordinal: Rating { mu: step.mu, sigma: step.sigma }.ordinal(),
        })
        .collect();
    let unrated_games = unrated
        .into_iter()
        .map(|g| UnratedGame {
            status_words: GameStatus::describe_stored(&g.status).to_owned(),
            game_id: g.game_id,
            ruleset: g.ruleset,
            tournament: g.tournament,
            status: g.status,
            ended_at: g.updated_at,
        })
        .collect();
    Ok(PlayerView {
        handle: handle.to_owned(),
        display_name,
        standings,
        games,
        unrated_games,
        rating_history,
    })
}

