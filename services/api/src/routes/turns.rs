//! A whole turn in plain words: `POST /v1/games/{id}/turn`.

use actix_web::{post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;
use warlog_rules::board::Power;

use crate::auth::Caller;
use crate::body::{TextOrJson, TextOrJsonBody};
use crate::error::ApiError;
use crate::games::{self, game_stream, GameCommand};
use crate::turns::{self, TurnAnswer, TurnPreview, TurnRequest, TurnText};
use crate::write::{self, expectation, WriteRequest};
use crate::AppState;

resource! {
    submit_turn: keyed [
        Forbidden, GameNotFound, VersionConflict, PreconditionFailed,
        TurnUnreadable, RuleViolation, TooManyRequests, Busy,
    ],
}

/// For a turn sent as `text/plain`: what the JSON form carries beside the text.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TurnQuery {
    /// The power whose turn it is (default: the power to play).
    #[param(value_type = Option<String>, example = "germany")]
    pub power: Option<Power>,
    /// Preview: decide the turn without a die and append nothing.
    pub dry_run: Option<bool>,
    /// The game version the turn was written for (or send `If-Match`).
    pub expected_version: Option<u64>,
}

/// Takes a whole turn written in plain words, one order per line, or previews it.
///
/// The text is the turn as players write it to a game master (`docs/playing.md` has the
/// grammar and an example of every order): `buy 3 INF, 1 ARM`, `move 2 INF: Germany > East
/// Europe`, `battle East Europe; combat SAAC; loss INF, ARM`, `place 3 INF in Germany`,
/// `end turn`. Names are the board's names and aliases and the units' codes or names, in
/// any case. Phases end by themselves before a line of a later phase of the turn. Send it
/// as `text/plain` (with `power`, `dry_run` and `expected_version` in the query) or as
/// JSON with a `text` field.
///
/// The turn is decided like orders: until a line rolls dice, any refusal refuses the
/// whole turn and nothing is appended; the error names the line (and, for a line that
/// cannot be read, the column and the closest names). Once a line has rolled dice, a later
/// refusal cuts the turn off there (`refused`, with its line). The answer leads with the
/// new version and what the turn did in words. A turn's lines count against the
/// power's share of the record as orders do (`POST /v1/games/{id}/orders`: at most 20 out
/// of turn per turn, terms of at most 2,000 characters).
///
/// With `dry_run`, nothing is appended and no die is rolled: each battle comes with its
/// exact odds instead, the lines after a battle are checked as if it went its even way
/// (and say so), and the answer lists in words what each line would do.
///
/// A body neither `text/plain` nor JSON is refused (415). A preview is a computation like
/// the odds: it counts with them against the client's rate (429) and waits for the cap on
/// computations at once (503 `busy`).
#[utoipa::path(post, path = "/v1/games/{id}/turn", tag = "games",
    params(("id" = String, Path, description = "Game id"), TurnQuery,
        ("If-Match" = Option<String>, Header, description = "The game version (its ETag) the turn was written for")),
    request_body(content(
        (String = "text/plain", example = "buy 3 INF\nmove 2 INF: Germany > East Europe\nbattle East Europe\nend turn"),
        (TurnRequest = "application/json"),
    )),
    responses(
        (status = 200, description = "The turn was carried out (`refused` when a line was refused after dice were rolled); with `dry_run`, what it would do", body = TurnAnswer),
    ),
    security(("bearer" = [])))]
#[post("/v1/games/{id}/turn")]
pub async fn submit_turn(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
    caller: Caller,
    query: crate::query::ValidQuery<TurnQuery>,
    body: TextOrJsonBody<TurnRequest>,
) -> Result<HttpResponse, ApiError> {
    let stream = game_stream(&id)?;
    let turn = match body.value {
        TextOrJson::Json(turn) => {
            if query.power.is_some() || query.dry_run.is_some() || query.expected_version.is_some()
            {
                return Err(ApiError::malformed(
                    "a turn sent as JSON carries power, dry_run and expected_version in its \
                     body, not the query",
                ));
            }
            turn
        }
        TextOrJson::Text(text) => TurnRequest {
            text,
            power: query.power,
            expected_version: query.expected_version,
            dry_run: query.dry_run.unwrap_or(false),
        },
    };
    let expected = expectation(&req, turn.expected_version)?;
    // The query is part of what was asked: a retry with another power is another request.
    let mut fingerprinted = body.raw.to_vec();
    fingerprinted.extend_from_slice(b"\n?");
    fingerprinted.extend_from_slice(req.query_string().as_bytes());
    let request = WriteRequest::of(&req, &caller, &fingerprinted, expected)?;
    if turn.dry_run {
        let client = state.reader(&req).await?;
        let log = games::load(&client, &state.games, &stream).await?;
        drop(client);
        expected.check(log.version)?;
        let previewed: TurnPreview = turns::preview_for(
            &req,
            &state,
            log,
            request.caller.sender(),
            request.moment(),
            turn.text,
            turn.power,
        )
        .await?;
        return Ok(HttpResponse::Ok().json(previewed));
    }
    let text = GameCommand {
        stream,
        commanding: TurnText {
            text: &turn.text,
            power: turn.power,
        },
    };
    let written = write::run(&state, &request, &text).await?;
    Ok(written.respond(None))
}
