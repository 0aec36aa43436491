//! Games over HTTP: create, list, read (board at any version, battles, placements, events,
//! audit), order, end and reveal, and name or end a power's proxy. Handlers parse and
//! authorise, write through `crate::games` or read through `crate::reads::games`, and
//! render.

use actix_web::http::header;
use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use warlog_events::orders::Command;
use warlog_events::void_reason::VoidReason;
use warlog_rules::board::Power;
use warlog_rules::document::GameOptions;
use warlog_store::StoreError;

use crate::auth::Caller;
use crate::body::JsonBody;
use crate::error::{ApiError, ErrorCode};
use crate::games::{self, game_stream, GameCommand, WriteAccepted};
use crate::new_game::NewGame;
use crate::orders::OrdersRequest;
use crate::page_cache::{PageKey, Rendered, View};
use crate::query::PageLimit;
use crate::query::ValidQuery;
use crate::reads::games::{
    chronicle, game_page, game_view, load, load_for_read, log_at, GameList, GameListQuery,
};
use crate::reads::indexes::next_page;
use crate::reads::league::require_registered;
use crate::respond::{self, Format};
use crate::views::EventView;
use crate::views::{BattleView, BoardView, GameView, NowView, PlacementsView};
use crate::write::{self, expectation, Expected, WriteRequest};
use crate::AppState;

resource! {
    create_game: keyed [
        Forbidden, RulesetNotFound, TournamentNotFound,
        RuleViolation, InvalidRuleset, BoardRequired, RulesetNotPlayable,
    ],
    game_list: [],
    game_detail: [GameNotFound],
    game_now: [GameNotFound],
    game_board_svg: [GameNotFound],
    game_board: [GameNotFound],
    submit_orders: keyed [
        Forbidden, GameNotFound, VersionConflict, PreconditionFailed,
        RuleViolation, UnknownTerritory, UnknownUnit,
    ],
    end_game: keyed [Forbidden, GameNotFound, VersionConflict, RuleViolation],
    void_game: keyed [Forbidden, GameNotFound, VersionConflict, RuleViolation],
    reveal_seed: keyed [Forbidden, GameNotFound, VersionConflict, RuleViolation],
    name_proxy: keyed [Forbidden, GameNotFound, PlayerNotFound, VersionConflict, RuleViolation],
    end_proxy: keyed [Forbidden, GameNotFound, VersionConflict, RuleViolation],
    game_battles: [GameNotFound],
    game_battle: [GameNotFound, BattleNotFound],
    game_placements: [GameNotFound, GameNotEnded, GameNotRated],
    game_events: [GameNotFound],
    game_audit: [GameNotFound],
}

/// A new game.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"ruleset": "cutthroat", "players": ["ann", "bob", "cy", "di", "ed"]}))]
pub struct CreateGame {
    pub ruleset: String,
    /// One player handle a power; the powers are drawn from the game's seed.
    pub players: Vec<String>,
    /// The tournament the game counts in: only its director (or an admin) may name it.
    #[serde(default)]
    pub tournament: Option<String>,
    /// Options the ruleset offers (its `options`): Cut-Throat offers Enhanced Realism and
    /// the alternate turn order.
    #[serde(default)]
    pub options: GameOptions,
    /// For a ruleset won by survival (AAP Historical): each player's bid of the turns the
    /// survivor needs. The lowest bid plays the survivor and sets its round.
    #[serde(default)]
    pub bids: Option<std::collections::BTreeMap<String, u32>>,
}

impl CreateGame {
    /// The players (distinct handles of 1 to 100 printable characters) with their bids,
    /// and the options the game is created with (the lowest bid sets the survival round).
    fn entrants(&self) -> Result<warlog_events::game::Entrants, ApiError> {
        warlog_events::game::Entrants::checked(self.players.clone(), self.bids.as_ref())
            .map_err(ApiError::malformed)
    }
}

/// Creates a game (admin, director or gm: the caller becomes its game master).
///
/// The game master holds no seat in the game: a gm or director among the players is
/// refused (403); only an admin may seat themself, and the record names them.
///
/// The players are one a power of the ruleset; another number is refused (422). Filing the
/// game under a `tournament` takes that tournament's director or an admin (403).
#[utoipa::path(post, path = "/v1/games", tag = "games",
    request_body = CreateGame,
    responses(
        (status = 201, description = "The game, its seats drawn and its seed committed", body = GameView,
            headers(("Location" = String, description = "The new game: `/v1/games/{id}`"))),
    ),
    security(("bearer" = [])))]
#[post("/v1/games")]
pub async fn create_game(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    body: JsonBody<CreateGame>,
) -> Result<HttpResponse, ApiError> {
    let entrants = body.value.entrants()?;
    let request = WriteRequest::of(&req, &caller, &body.raw, Expected::Unstated)?;
    let new_game = NewGame {
        ruleset: body.value.ruleset.clone(),
        options: body.value.options,
        entrants,
        tournament: body.value.tournament.clone(),
    };
    let created = write::run(&state, &request, &new_game).await?;
    let location = created
        .body
        .get("game_id")
        .and_then(|v| v.as_str())
        .map(|id| format!("/v1/games/{id}"));
    Ok(created.respond(location))
}

/// Games, oldest first (a read model: it may trail the log by a moment).
///
/// Filtered by status, ruleset, player or tournament (all given must hold). A page holds
/// up to `limit` games (default 100); `next`, and the `Link` header, name the page after
/// it, which starts after the last game's id.
#[utoipa::path(get, path = "/v1/games", tag = "games",
    params(GameListQuery),
    responses(
        (status = 200, description = "A page of games", body = GameList),
    ))]
#[get("/v1/games")]
pub async fn game_list(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: ValidQuery<GameListQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = game_page(&state, &query).await?;
    respond::json_page(&req, &page)
}

/// A game: seats, round, phase, whose turn, the seed commitment, status.
///
/// Its ETag is the game's version, for `If-Match` on orders. With a standby for reads,
/// a `Consistency-Token` from a write's answer makes this read see that write.
#[utoipa::path(get, path = "/v1/games/{id}", tag = "games",
    params(("id" = String, Path, description = "Game id"),
        ("Consistency-Token" = Option<String>, Header, description = "From a write's answer: with a standby for reads, this read sees that write")),
    responses(
        (status = 200, description = "The game", body = GameView),
    ))]
#[get("/v1/games/{id}")]
pub async fn game_detail(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let log = load_for_read(&state, &req, &id).await?;
    let view = game_view(&state, &req, &log).await?;
    respond::json_tagged(&req, &view, &format!("\"{}\"", log.version))
}

/// What may be done now: whose turn, the phase and the rest of the turn, and what may
/// be ordered.
///
/// For players rather than programmers as much as for tools: the power whose order the
/// game waits for and its player, the phase and the phases left in the turn (in plain
/// words), and the kinds of order the rules take now, each by the `type` an order
/// carries (`orders` for the power to act; `any_power` for what any power may send
/// whoever's turn it is, such as diplomacy and standing orders). A kind listed may still
/// be refused for its particulars (a path too long, a place with no complex); a kind not
/// listed would be refused whatever it said.
///
/// Beside them: the money of the power to act (treasury, IPC count and the income it
/// would collect as the board stands), the units bought and still to place with where
/// they may go, in the combat and non-combat moves the units that may still move and how
/// many spaces each has left, the battles declared and still to fight, and
/// `substitute_after`, when the player to act will have been idle for the game's limit of
/// 3 days (counted from the last phase ended or seat changed) and the director may seat a
/// substitute. `in_words` says it all in sentences, as the game page's "Now" box does.
/// Once the game has ended or was voided, `over` is true and nothing may be ordered.
///
/// Its ETag is the game's version, as on the game itself; with a standby for reads, a
/// `Consistency-Token` from a write's answer makes this read see that write.
#[utoipa::path(get, path = "/v1/games/{id}/now", tag = "games",
    params(("id" = String, Path, description = "Game id"),
        ("Consistency-Token" = Option<String>, Header, description = "From a write's answer: with a standby for reads, this read sees that write")),
    responses(
        (status = 200, description = "What may be done now", body = NowView),
    ))]
#[get("/v1/games/{id}/now")]
pub async fn game_now(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let log = load_for_read(&state, &req, &id).await?;
    respond::json_tagged(&req, &NowView::of(&log), &format!("\"{}\"", log.version))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    /// The board after the first `version` events (default: the latest).
    #[param(minimum = 1)]
    pub version: Option<u64>,
}

/// The board at any version of the game.
///
/// After the first `version` events (default: all of them): the round, phase and turn,
/// each power's treasury, IPC count and technologies, every place held or occupied with
/// its units, the agreements in force and the units bought but not yet placed.
///
/// A version the game has not reached is refused (400).
#[utoipa::path(get, path = "/v1/games/{id}/board", tag = "games",
    params(("id" = String, Path, description = "Game id"), BoardQuery,
        ("Consistency-Token" = Option<String>, Header, description = "From a write's answer: with a standby for reads, this read sees that write")),
    responses(
        (status = 200, description = "The board", body = BoardView),
    ))]
#[get("/v1/games/{id}/board")]
pub async fn game_board(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: ValidQuery<BoardQuery>,
) -> Result<HttpResponse, ApiError> {
    board_view(
        &state,
        &req,
        &id,
        query.version,
        View::Board,
        respond::JSON,
        |log| {
            serde_json::to_vec(&BoardView::of(log))
                .map_err(|e| ApiError::new(ErrorCode::Internal, format!("encoding JSON: {e}")))
        },
    )
    .await
}

/// A view of the board at `version` (default: the head, read where the board is read),
/// rendered once per version and kept ([`crate::page_cache`]): a board at a version never
/// changes.
async fn board_view(
    state: &AppState,
    req: &HttpRequest,
    id: &str,
    version: Option<u64>,
    view: View,
    content_type: &'static str,
    render: impl FnOnce(&warlog_events::game::GameLog) -> Result<Vec<u8>, ApiError>,
) -> Result<HttpResponse, ApiError> {
    let game = game_stream(id)?;
    let version = match version {
        Some(version) => version,
        None => {
            let client = state.reader(req).await?;
            warlog_store::stream_head(&client, &game)
                .await?
                .ok_or_else(|| ApiError::new(ErrorCode::GameNotFound, format!("no game {id:?}")))?
                .version
        }
    };
    let key = PageKey {
        game,
        version,
        view,
    };
    let rendered = state
        .pages
        .get_or_render(key, || async {
            let log = log_at(state, req, id, Some(version)).await?;
            Ok((log.version, Rendered::new(content_type, render(&log)?)))
        })
        .await?;
    Ok(respond::conditional_with(
        req,
        rendered.content_type,
        rendered.body.clone(),
        None,
        rendered.etag.clone(),
    ))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MapQuery {
    /// The board after the first `version` events (default: the latest).
    #[param(minimum = 1)]
    pub version: Option<u64>,
    /// A place to ring (a battle's), by its board name.
    pub highlight: Option<String>,
    /// A region to zoom to, by its id (the game page links each: `europe`, `china`...);
    /// an unknown one draws the whole board.
    pub region: Option<String>,
}

/// The board at any version as a map (SVG).
///
/// Every territory and sea zone placed by its real-world position, coloured by its
/// holder, with its units, after the first `version` events (default: all of them);
/// `highlight` rings one place, a battle's, by its board name.
///
/// A version the game has not reached is refused (400).
#[utoipa::path(get, path = "/v1/games/{id}/board.svg", tag = "games",
    params(("id" = String, Path, description = "Game id"), MapQuery),
    responses(
        (status = 200, description = "The map", content_type = "image/svg+xml", body = String),
    ))]
#[get("/v1/games/{id}/board.svg")]
pub async fn game_board_svg(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: ValidQuery<MapQuery>,
) -> Result<HttpResponse, ApiError> {
    let highlight = query.highlight.clone();
    let region = query.region.clone();
    let view = View::Map {
        highlight: highlight.clone(),
        region: region.clone(),
    };
    board_view(
        &state,
        &req,
        &id,
        query.version,
        view,
        "image/svg+xml; charset=utf-8",
        |log| Ok(crate::map::game_svg(log, highlight.as_deref(), region.as_deref()).into_bytes()),
    )
    .await
}

/// Submits orders; the server checks them, rolls the dice and appends the events.
///
/// Orders are decided in turn, each on the board the ones before it left. A refusal before
/// any order has rolled dice refuses the whole request (422, nothing appended), and it never
/// depends on a die. Once an order has rolled dice (a battle, a raid, a war loan, research,
/// a repair, a rocket), those dice count: if a later order is refused, the orders before it
/// are appended with their dice, and the answer (200) names the refused order in `refused`;
/// it and the orders after it are not carried out. The record keeps the refused order.
///
/// Orders written for a version the game is not at are refused: 412 when `If-Match` named
/// it, 409 (with `current_version`) when `expected_version` did. An order naming a unit or
/// a place the ruleset does not know is refused (422) with the closest names.
///
/// Every power's share of the record is bounded (games created before these limits have
/// none): while another power is on turn, a power may have at most 20 orders on the record
/// per turn (standing orders, diplomacy, a kamikaze run, each order of a request counting
/// one); a request that would bring it past that is refused whole (422 `rule-violation`,
/// `violation` `out-of-turn-limit`, nothing appended), and the count starts again when the
/// turn passes. An agreement's terms are at most 2,000 characters (422, `terms-too-long`).
#[utoipa::path(post, path = "/v1/games/{id}/orders", tag = "games",
    params(("id" = String, Path, description = "Game id"),
        ("If-Match" = Option<String>, Header, description = "The game version (its ETag) the orders were written for")),
    request_body = OrdersRequest,
    responses(
        (status = 200, description = "The events appended, with battle logs; `refused` when an order was refused after dice were rolled", body = WriteAccepted),
    ),
    security(("bearer" = [])))]
#[post("/v1/games/{id}/orders")]
pub async fn submit_orders(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
    caller: Caller,
    body: JsonBody<OrdersRequest>,
) -> Result<HttpResponse, ApiError> {
    let expected = expectation(&req, body.value.expected_version)?;
    let request = WriteRequest::of(&req, &caller, &body.raw, expected)?;
    let orders = GameCommand {
        stream: game_stream(&id)?,
        commanding: &body.value,
    };
    let written = write::run(&state, &request, &orders).await?;
    Ok(written.respond(None))
}

/// Ends the game ("fighting has ceased").
///
/// An admin or the game's master ends it: the final IPC counts go on the record, then the
/// dice seed is revealed, so anyone can check every die. A game whose every seated power
/// has played a turn of its own is rated and placed; one ended sooner is aborted, and one
/// in which a seated player never gave an order in person (by their own token, by mail or
/// through a proxy they named) was played by its game master alone: neither is rated.
///
/// A game already over is refused (422).
#[utoipa::path(post, path = "/v1/games/{id}/end", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, description = "GameEnded and SeedRevealed appended", body = WriteAccepted),
    ),
    security(("bearer" = [])))]
#[post("/v1/games/{id}/end")]
pub async fn end_game(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    game_action(&req, &state, &id, &caller, &[], Command::EndGame).await
}

/// Why a game is voided.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"reason": "abandoned: three players left the league in round 1"}))]
pub struct VoidGame {
    /// 1 to 500 printable characters; it goes on the record.
    pub reason: String,
}

/// Voids the game (its director or an admin).
///
/// The game is over and counts for nobody, with no placements and no points; the reason
/// (1 to 500 printable characters) is on the record and the seed is revealed.
///
/// A game already over is refused (422).
#[utoipa::path(post, path = "/v1/games/{id}/void", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    request_body = VoidGame,
    responses(
        (status = 200, description = "GameVoided (and SeedRevealed) appended", body = WriteAccepted),
    ),
    security(("bearer" = [])))]
#[post("/v1/games/{id}/void")]
pub async fn void_game(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
    caller: Caller,
    body: JsonBody<VoidGame>,
) -> Result<HttpResponse, ApiError> {
    let reason = VoidReason::try_from(body.value.reason.as_str()).map_err(ApiError::malformed)?;
    let command = Command::VoidGame {
        reason: reason.into(),
    };
    game_action(&req, &state, &id, &caller, &body.raw, command).await
}

/// A fixed command to one game (end, void, reveal, proxies): the one write path's answer.
async fn game_action(
    req: &HttpRequest,
    state: &AppState,
    game_id: &str,
    caller: &Caller,
    raw: &[u8],
    command: Command,
) -> Result<HttpResponse, ApiError> {
    let request = WriteRequest::of(req, caller, raw, expectation(req, None)?)?;
    let action = GameCommand {
        stream: game_stream(game_id)?,
        commanding: command,
    };
    let written = write::run(state, &request, &action).await?;
    Ok(written.respond(None))
}

/// Reveals the dice seed of a game that is over (its director or an admin).
///
/// The end and a void reveal it themselves; while the game runs the seed stays secret,
/// since it decides every die still to come, so a reveal is refused (422 `game-running`).
///
/// A seed revealed already is refused too (422).
#[utoipa::path(post, path = "/v1/games/{id}/reveal", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, description = "SeedRevealed appended", body = WriteAccepted),
    ),
    security(("bearer" = [])))]
#[post("/v1/games/{id}/reveal")]
pub async fn reveal_seed(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    game_action(&req, &state, &id, &caller, &[], Command::RevealSeed).await
}

/// A proxy to name: a player who may give a power's orders until a time.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"power": "germany", "proxy": "cy", "until": "2026-12-01T12:00:00Z"}))]
pub struct NameProxy {
    /// The power whose orders the proxy may give.
    #[schema(value_type = String)]
    pub power: Power,
    /// A registered player's handle: not the player seated at the power, nor the game's
    /// master; a player of the same game may be one (for one power at a time).
    #[schema(value_type = String)]
    pub proxy: warlog_league::players::Handle,
    /// RFC 3339: when the proxy ends, after now and at most 30 days from now.
    #[schema(format = DateTime)]
    pub until: String,
}

/// Names a proxy for a power ("Temporary proxies should be given to trusted allies during
/// planned absences", Cut-Throat's rules for players).
///
/// The player seated at the power, the game's master (or its director) or an admin names
/// another registered player, who may then give the power's orders until `until` (at most
/// 30 days on). The seat, its result and the count of its substitute's rounds stay the
/// seated player's; the proxy's orders are marked as theirs on the record (`proxy_for`)
/// and counted apart (`orders_by_proxy`). A proxy named for a power that has one replaces
/// it; a substitution or a seat change ends it. `OrdersGiven` and `ProxyNamed` are
/// appended; `warlog audit` checks every order a proxy gave against them.
///
/// A proxy who is not a registered player is not found (404). The rule refuses (422 `bad-
/// proxy`) naming the seated player or the master, a time past or beyond 30 days, a player
/// already proxy for another power, or a substitute not yet permanent; and nothing is named
/// once the game is over (422).
#[utoipa::path(post, path = "/v1/games/{id}/proxies", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    request_body = NameProxy,
    responses(
        (status = 200, description = "OrdersGiven and ProxyNamed appended", body = WriteAccepted),
    ),
    security(("bearer" = [])))]
#[post("/v1/games/{id}/proxies")]
pub async fn name_proxy(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
    caller: Caller,
    body: JsonBody<NameProxy>,
) -> Result<HttpResponse, ApiError> {
    use time::format_description::well_known::Rfc3339;
    let NameProxy {
        power,
        proxy,
        until,
    } = &body.value;
    let until = time::OffsetDateTime::parse(until, &Rfc3339)
        .map(crate::tournaments::moment_of)
        .map_err(|e| {
            ApiError::malformed(format!("until: {until:?} is not an RFC 3339 time: {e}"))
        })?;
    game_stream(&id)?;
    require_registered(&state, proxy.as_str()).await?;
    let command = Command::NameProxy {
        power: *power,
        proxy: proxy.to_string(),
        until,
    };
    game_action(&req, &state, &id, &caller, &body.raw, command).await
}

/// Ends a power's proxy before its time.
///
/// The player seated at the power, the proxy, the game's master (or its director) or an
/// admin. `OrdersGiven` and `ProxyEnded` are appended.
///
/// A power with no proxy in force (`bad-proxy`), or a game over, is refused (422).
#[utoipa::path(delete, path = "/v1/games/{id}/proxies/{power}", tag = "games",
    params(("id" = String, Path, description = "Game id"),
        ("power" = String, Path, description = "The power whose proxy ends (`germany`)")),
    responses(
        (status = 200, description = "OrdersGiven and ProxyEnded appended", body = WriteAccepted),
    ),
    security(("bearer" = [])))]
#[delete("/v1/games/{id}/proxies/{power}")]
pub async fn end_proxy(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, Power)>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let (id, power) = path.into_inner();
    game_action(&req, &state, &id, &caller, &[], Command::EndProxy { power }).await
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BattleListQuery {
    /// The last battle number of the previous page (battles are numbered from 1).
    pub after: Option<usize>,
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<PageLimit>,
}

/// A page of a game's battles.
#[derive(Debug, Serialize, ToSchema)]
pub struct BattleList {
    pub battles: Vec<BattleView>,
    /// The next page, when there may be one.
    pub next: Option<String>,
}

respond::pages!(BattleList);

/// Every battle and bombing raid of the game, in order, a page at a time.
///
/// Each with its round, place, sides, outcome, every die in the order rolled and its
/// listing, as the game's events recorded them; `next` (and `Link`) name the next page,
/// and `/v1/games/{id}/battles/{n}` gives one battle.
#[utoipa::path(get, path = "/v1/games/{id}/battles", tag = "games",
    params(("id" = String, Path, description = "Game id"), BattleListQuery),
    responses(
        (status = 200, description = "A page of battles", body = BattleList,
            headers(("Link" = String, description = "`<…>; rel=\"next\"` when there may be a next page"))),
    ))]
#[get("/v1/games/{id}/battles")]
pub async fn game_battles(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: ValidQuery<BattleListQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = query.limit.unwrap_or(PageLimit::DEFAULT);
    let chronicle = chronicle(&state, &id).await?;
    let battles: Vec<BattleView> = chronicle
        .battles
        .iter()
        .skip(query.after.unwrap_or(0))
        .take(limit.get() as usize)
        .map(|b| BattleView::clone(b))
        .collect();
    let last = battles.last().map(|b| b.number.to_string());
    let next = next_page(
        &format!("/v1/games/{id}/battles"),
        &[],
        last.as_deref(),
        battles.len(),
        limit,
    );
    respond::json_page(&req, &BattleList { battles, next })
}

/// One battle, the `n`th of the game (1 for the first).
///
/// JSON by default; with `Accept: text/plain`, its listing in the seed's notation: every
/// die, round by round, as a person checks it against the revealed seed.
#[utoipa::path(get, path = "/v1/games/{id}/battles/{n}", tag = "games",
    params(("id" = String, Path, description = "Game id"), ("n" = usize, Path, description = "1 for the first battle")),
    responses(
        (status = 200, description = "The battle", body = BattleView,
            content((BattleView = "application/json"), (String = "text/plain"))),
    ))]
#[get("/v1/games/{id}/battles/{n}")]
pub async fn game_battle(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, usize)>,
) -> Result<HttpResponse, ApiError> {
    let (id, n) = path.into_inner();
    let wants_text = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/plain"));
    let chronicle = chronicle(&state, &id).await?;
    let battles = &chronicle.battles;
    let battle = n
        .checked_sub(1)
        .and_then(|i| battles.get(i))
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::BattleNotFound,
                format!(
                    "game {id} has {} battles; there is no battle {n}",
                    battles.len()
                ),
            )
        })?;
    if wants_text {
        return Ok(HttpResponse::Ok()
            .content_type("text/plain; charset=utf-8")
            .body(battle.listing.clone()));
    }
    respond::json(&req, &**battle)
}

/// Places and points of a finished game.
///
/// Each power's final IPC count and percent gain, the place it earned, the points that
/// place gives, and the policy that broke ties. Only a game that ended rated has them:
/// one still running, voided, aborted or played by its game master alone is refused (409).
#[utoipa::path(get, path = "/v1/games/{id}/placements", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, description = "IPC counts, percent gain, place, points and the tie policy", body = PlacementsView),
    ))]
#[get("/v1/games/{id}/placements")]
pub async fn game_placements(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let log = load(&state, &id).await?;
    let rows = log
        .placements()
        .ok_or_else(|| match log.why_not_rated() {
            Some(why) => ApiError::new(
                ErrorCode::GameNotRated,
                format!("game {}: {why}", log.created.game_id),
            ),
            None => ApiError::new(
                ErrorCode::GameNotEnded,
                format!("game {} is still being played", log.created.game_id),
            ),
        })?
        .map_err(|e| ApiError::new(ErrorCode::Internal, e))?;
    respond::json(&req, &PlacementsView::new(&log, rows))
}

/// Whether a game's events name places and units.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// JSON only: each payload with places by their board names and units by their codes
    /// instead of the log's index numbers, for reading. The hashes cover the log's own
    /// payloads (the NDJSON export, which is never named).
    #[serde(default)]
    pub names: bool,
}

/// The game's events, every one, in order.
///
/// JSON, or with `Accept: application/x-ndjson` the whole log as NDJSON, one event a line
/// (hashes included, and the seed once revealed), as `warlog audit` reads it.
///
/// With `names=true` (JSON), each payload names its places and unit types (`"Ukraine
/// S.S.R."`, `"INF"`) where the log writes index numbers: for people and tools that read
/// events rather than check them.
///
/// `names=true` with NDJSON is refused (400).
#[utoipa::path(get, path = "/v1/games/{id}/events", tag = "games",
    params(("id" = String, Path, description = "Game id"), EventsQuery),
    responses(
        (status = 200, description = "Every event of the game", body = Vec<EventView>,
            content((Vec<EventView> = "application/json"), (EventView = "application/x-ndjson"))),
    ))]
#[get("/v1/games/{id}/events")]
pub async fn game_events(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: ValidQuery<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let format = respond::negotiate(&req, &[Format::Json, Format::Ndjson])?;
    if query.names && format == Format::Ndjson {
        return Err(ApiError::malformed(
            "names=true is for JSON: the NDJSON export is the log as its hashes cover it",
        ));
    }
    let stream = game_stream(&id)?;
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let events = games::read_all_events(&client, &stream).await?;
    if events.is_empty() {
        return Err(ApiError::new(
            ErrorCode::GameNotFound,
            format!("no game {id:?}"),
        ));
    }
    let names = if query.names {
        let log = games::load(&client, &state.games, &stream).await?;
        Some(warlog_rules::names::Names::of(log.ruleset.rules()))
    } else {
        None
    };
    let views: Vec<EventView> = events
        .into_iter()
        .map(|event| {
            let named = names.as_ref().and_then(|names| {
                match warlog_events::game::decode_recorded(&event).ok()? {
                    warlog_events::game::GameStreamEvent::Played(played) => {
                        Some(names.to_json(&played))
                    }
                    // The others name nothing by index (orders are recorded by name).
                    _ => None,
                }
            });
            let mut view = EventView::from(event);
            if let Some(named) = named {
                // The payload alone, named: the stream event's own tag and wrapper aside.
                view.payload = unwrap_payload(named);
            }
            view
        })
        .collect();
    match format {
        Format::Ndjson => respond::ndjson(&req, &views, None),
        // JSON: the only other representation offered here.
        Format::Json | Format::Csv => respond::json(&req, &views),
    }
}

/// A stream event's JSON is `{"Type": payload}`: the payload.
fn unwrap_payload(named: serde_json::Value) -> serde_json::Value {
    match named {
        serde_json::Value::Object(map) if map.len() == 1 => {
            map.into_iter().next().map(|(_, v)| v).unwrap_or_default()
        }
        other => other,
    }
}

/// The server's audit of the game.
///
/// The hash chain, the seed commitment, every recorded order decided again, every die,
/// the board and the placements. `outcome` is `passed`, `partial` (nothing failed, but
/// `not_checked` lists what could not be checked, such as the dice before the reveal) or
/// `failed` (`findings` name each fault with its event's version).
#[utoipa::path(get, path = "/v1/games/{id}/audit", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, description = "A verdict per check", body = Object),
    ))]
#[get("/v1/games/{id}/audit")]
pub async fn game_audit(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let report = crate::audit_cache::audit_of(&state, &id).await?;
    respond::json(&req, &*report)
}
