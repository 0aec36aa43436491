//! The tournament's writes: create, entries and drops, seating rounds and swaps,
//! substitutes for inactive seats, and the finish. Each parses its request into a
//! tournament command (a [`TournamentOrder`]: the command and how its answer reads) and
//! hands it to the one write path as a [`TournamentWrite`]; who may give it and what it
//! does are the league's to decide.

use actix_web::http::StatusCode;
use actix_web::{delete, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;
use utoipa::ToSchema;
use warlog_league::constraints::SeatingConstraints;
use warlog_league::players::Handle;
use warlog_league::seating::ShortTablePolicy;
use warlog_league::standings::GameResult;
use warlog_league::tournament::TournamentCreated;
use warlog_league::tournament::{Tiebreaker, Tournament, TournamentCommand, TournamentEvent};
use warlog_rules::board::Power;
use warlog_rules::game::seats::ROUNDS_TO_PERMANENT;
use warlog_rules::ruleset::Ruleset;

use crate::auth::Caller;
use crate::body::{parse_json, require_json, JsonBody};
use crate::error::corrupt;
use crate::error::{ApiError, ErrorCode};
use crate::games::game_stream;
use crate::reads::league::require_registered;
use crate::reads::tournaments::{RoundView, StandingsView, TournamentView};
use crate::tournaments::*;
use crate::write::{
    self, fresh_seed, new_id, Decision as WriteDecision, Expected, StreamAppend, Write,
    WriteRequest,
};
use crate::AppState;
use warlog_league::settings::{Schedule, TournamentSettings};
use warlog_store::PooledClient;

/// A new tournament.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "name": "Autumn Cut-Throat 2026",
    "rounds": 3,
    "days_per_round": 21,
    "capacity": 15
}))]
pub struct CreateTournament {
    pub name: String,
    /// Defaults to `cutthroat`.
    pub ruleset: Option<String>,
    pub rounds: u32,
    /// One per round, RFC 3339, in order. Without them, a round is due every
    /// `days_per_round` days from now.
    pub deadlines: Option<Vec<String>>,
    /// Days per round when no `deadlines` are given (1 to 365; default 28).
    pub days_per_round: Option<u32>,
    /// The ruleset's powers (5 for Cut-Throat); stated only to check it.
    pub table_size: Option<u32>,
    /// Points for 1st, 2nd, ...; defaults to the ruleset's (Cut-Throat: 5, 3, 2, -1, -2).
    pub points_per_place: Option<Vec<i64>>,
    /// In order; defaults to total points, total percent gain, best single result,
    /// head-to-head, the seeded draw. The draw always ends the list.
    #[schema(value_type = Option<Vec<String>>)]
    pub tiebreakers: Option<Vec<Tiebreaker>>,
    /// `waiting_list` (fill short tables from it, byes when it runs short; the default) or
    /// `byes`.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub short_tables: ShortTablePolicy,
    /// The points of a bye (default 0).
    pub bye_points: Option<i64>,
    /// Entries beyond this wait on the waiting list.
    pub capacity: Option<u32>,
    /// Players may enter until this round is seated (default 1: before the start).
    pub late_entries_until_round: Option<u32>,
}

impl CreateTournament {
    /// The settings as the league checks them, with the ruleset they name (404 when there
    /// is none); a deadline that is not RFC 3339 text is malformed.
    fn settings(&self) -> Result<(&'static Ruleset, TournamentSettings), ApiError> {
        let ruleset_id = self
            .ruleset
            .as_deref()
            .unwrap_or(crate::rulesets::DEFAULT_RULESET);
        let ruleset = Ruleset::builtin(ruleset_id)
            .map_err(|e| ApiError::new(ErrorCode::RulesetNotFound, e.to_string()))?;
        let schedule = match (&self.deadlines, self.days_per_round) {
            (Some(_), Some(_)) => {
                return Err(ApiError::malformed(
                    "give `deadlines` or `days_per_round`, not both",
                ))
            }
            (None, Some(days)) => Schedule::EveryDays(days),
            (None, None) => Schedule::default(),
            (Some(deadlines), None) => Schedule::Deadlines(
                deadlines
                    .iter()
                    .enumerate()
                    .map(|(i, text)| {
                        OffsetDateTime::parse(text, &Rfc3339)
                            .map(moment_of)
                            .map_err(|e| {
                                ApiError::malformed(format!("`deadlines[{i}]`: {text:?}: {e}"))
                            })
                    })
                    .collect::<Result<_, _>>()?,
            ),
        };
        let settings = TournamentSettings {
            name: self.name.clone(),
            rounds: self.rounds,
            schedule,
            table_size: self.table_size,
            points_per_place: self.points_per_place.clone(),
            tiebreakers: self.tiebreakers.clone(),
            short_tables: self.short_tables,
            bye_points: self.bye_points,
            capacity: self.capacity,
            late_entries_until_round: self.late_entries_until_round,
        };
        Ok((ruleset, settings))
    }
}

/// Creates a tournament (admin or director; the caller directs it).
///
/// Its seed is drawn now and committed in the first event: every power draw and seating
/// can be checked later. The settings are checked against the tournament rules (1 to 20
/// rounds, deadlines ahead and in order, points and tiebreakers, room for a table). Only
/// `name` and `rounds` are needed: a round is then due every four weeks, the ruleset's
/// points count, and short tables fill from the waiting list.
///
/// A deadline that is not RFC 3339 is malformed (400); a setting that breaks a tournament
/// rule is refused (422), the problem naming it.
#[utoipa::path(post, path = "/v1/tournaments", tag = "tournaments",
    request_body = CreateTournament,
    responses(
        (status = 201, description = "Created", body = TournamentView,
            headers(("Location" = String, description = "The tournament: `/v1/tournaments/{id}`"))),
    ),
    security(("bearer" = [])))]
#[post("/v1/tournaments")]
pub async fn create_tournament(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    body: JsonBody<CreateTournament>,
) -> Result<HttpResponse, ApiError> {
    let JsonBody { value, raw } = body;
    let request = WriteRequest::of(&req, &caller, &raw, Expected::Unstated)?;
    let new_tournament = NewTournament(value);
    let written = write::run(&state, &request, &new_tournament).await?;
    let id = written
        .body
        .get("tournament_id")
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_owned();
    Ok(written.respond(Some(format!("/v1/tournaments/{id}"))))
}

/// A tournament to create, as asked: its settings are read only for a caller who may create
/// one, and checked against the tournament rules when it is created from a fresh seed.
struct NewTournament(CreateTournament);

impl Write for NewTournament {
    /// The ruleset and the settings asked for.
    type Loaded = (&'static Ruleset, TournamentSettings);
    /// The new tournament, as the answer shows it.
    type Decided = TournamentView;

    /// An admin or a director may create one, and directs it (the league's rule): asked
    /// before the settings are read.
    async fn load(
        &self,
        _: &AppState,
        _: &PooledClient,
        request: &WriteRequest,
        _: bool,
    ) -> Result<(&'static Ruleset, TournamentSettings), ApiError> {
        TournamentCreated::may_create(&request.caller.sender()).map_err(refused)?;
        self.0.settings()
    }

    fn decide(
        &self,
        (ruleset, settings): (&'static Ruleset, TournamentSettings),
        request: &WriteRequest,
    ) -> Result<WriteDecision<TournamentView>, ApiError> {
        let seed = fresh_seed()?;
        let id = new_id();
        let created = settings
            .created(ruleset, &id, &request.caller.name, request.moment(), &seed)
            .map_err(refused)?;
        let view = TournamentView::of(&Tournament::new(created.clone()));
        let append = StreamAppend::new_with_seed(
            tournament_stream(&id)?,
            request.encode_with(
                &[TournamentEvent::TournamentCreated(created)],
                TournamentEvent::encode,
            )?,
            seed,
        );
        Ok(WriteDecision {
            appends: vec![append],
            status: StatusCode::CREATED,
            decided: view,
        })
    }

    fn moved_on(&self, _: u64) -> ApiError {
        ApiError::new(ErrorCode::Internal, "a new tournament id was taken")
    }
}

/// A player to enter.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterPlayer {
    #[schema(value_type = String)]
    pub player: Handle,
}

/// Enters a player in the tournament (its director, or the player themself).
///
/// Beyond capacity, or after the last round open to late entries, the player goes on the
/// waiting list instead (the answer says which).
///
/// The tournament's rules refuse (422) a player already entered, or a tournament finished.
#[utoipa::path(post, path = "/v1/tournaments/{id}/entries", tag = "tournaments",
    request_body = EnterPlayer,
    params(("id" = String, Path)),
    responses(
        (status = 200, description = "Entered or waiting", body = EntryView),
    ),
    security(("bearer" = [])))]
#[post("/v1/tournaments/{id}/entries")]
pub async fn enter_player(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<String>,
    body: JsonBody<EnterPlayer>,
) -> Result<HttpResponse, ApiError> {
    let JsonBody { value, raw } = body;
    let player = value.player.to_string();
    require_registered(&state, &player).await?;
    let request = WriteRequest::of(&req, &caller, &raw, Expected::Unstated)?;
    let entry = TournamentWrite {
        id: id.into_inner(),
        order: EntryChange(TournamentCommand::Enter { player }),
    };
    Ok(write::run(&state, &request, &entry).await?.respond(None))
}

/// Drops a player (or takes one off the waiting list).
///
/// The tournament's director or the player themself; the player is seated in no later
/// round, and their results so far stay in the standings.
///
/// A player not entered is refused (422).
#[utoipa::path(delete, path = "/v1/tournaments/{id}/entries/{player}", tag = "tournaments",
    params(("id" = String, Path), ("player" = String, Path)),
    responses(
        (status = 200, description = "Dropped", body = EntryView),
    ),
    security(("bearer" = [])))]
#[delete("/v1/tournaments/{id}/entries/{player}")]
pub async fn drop_player(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id, player) = path.into_inner();
    let request = WriteRequest::of(&req, &caller, &[], Expected::Unstated)?;
    let drop = TournamentWrite {
        id,
        order: EntryChange(TournamentCommand::Drop { player }),
    };
    Ok(write::run(&state, &request, &drop).await?.respond(None))
}

/// Where a player stands after an entry or a drop.
#[derive(Debug, Serialize, ToSchema)]
pub struct EntryView {
    pub player: String,
    /// `entered`, `waiting` or `dropped`.
    pub status: String,
    /// The tournament's version after the write.
    pub version: u64,
    pub entered: usize,
    pub waiting: Vec<String>,
}

/// An entry or a drop, answered with where the player stands.
struct EntryChange(TournamentCommand);

impl TournamentOrder for EntryChange {
    const STATUS: StatusCode = StatusCode::OK;

    fn command(&self, _: &Given<'_>, _: &WriteRequest) -> Result<TournamentCommand, ApiError> {
        Ok(self.0.clone())
    }

    fn answer(&self, decision: &Decision, _: &[GameResult]) -> Result<serde_json::Value, ApiError> {
        let (player, status) = match decision.events.first() {
            Some(TournamentEvent::PlayerEntered { player, .. }) => (player, "entered"),
            Some(TournamentEvent::PlayerWaitlisted { player, .. }) => (player, "waiting"),
            Some(TournamentEvent::PlayerDropped { player, .. }) => (player, "dropped"),
            _ => return Err(ApiError::new(ErrorCode::Internal, "no entry event")),
        };
        let after = &decision.after;
        serde_json::to_value(EntryView {
            player: player.clone(),
            status: status.to_owned(),
            version: after.version,
            entered: after.playing().len(),
            waiting: after.waiting.clone(),
        })
        .map_err(corrupt)
    }
}

/// Seats the next round (the tournament's director).
///
/// Tables from the tournament's seed, each a new game created in the
/// same transaction. Refused while a game of the last round is running. The body (optional)
/// gives the director's constraints, with the reason: pairs kept apart or together, players
/// fixed to a table. They are refused only when no seating at all can keep them, decided
/// before any die; should the search find none that does, the best found is seated and its
/// explanation names the constraints it breaks. The answer explains the seating:
/// repeats avoided (and the fewest possible), byes and why, and what the constraints cost.
///
/// The tournament's rules refuse (422) a round while games are still running, once all
/// rounds are seated, with too few players, or with constraints that cannot hold.
#[utoipa::path(post, path = "/v1/tournaments/{id}/rounds", tag = "tournaments",
    request_body(content = Option<SeatingConstraints>, description = "The director's constraints (optional)"),
    params(("id" = String, Path)),
    responses(
        (status = 201, description = "The round, its tables and games", body = RoundView,
            headers(("Location" = String, description = "The round: `/v1/tournaments/{id}/rounds/{round}`"))),
    ),
    security(("bearer" = [])))]
#[post("/v1/tournaments/{id}/rounds")]
pub async fn seat_round(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let constraints: SeatingConstraints = if body.iter().all(u8::is_ascii_whitespace) {
        SeatingConstraints::default()
    } else {
        require_json(&req)?;
        parse_json(&body)?
    };
    let request = WriteRequest::of(&req, &caller, &body, Expected::Unstated)?;
    let seating = TournamentWrite {
        id: id.clone(),
        order: RoundChange(TournamentCommand::SeatRound(constraints)),
    };
    let written = write::run(&state, &request, &seating).await?;
    let round = written
        .body
        .get("round")
        .and_then(serde_json::Value::as_u64);
    let location = round.map(|r| format!("/v1/tournaments/{id}/rounds/{r}"));
    Ok(written.respond(location))
}

/// A seating or a swap, answered with the latest round as it stands.
struct RoundChange(TournamentCommand);

impl TournamentOrder for RoundChange {
    const STATUS: StatusCode = StatusCode::CREATED;

    fn command(&self, _: &Given<'_>, _: &WriteRequest) -> Result<TournamentCommand, ApiError> {
        Ok(self.0.clone())
    }

    fn answer(&self, decision: &Decision, _: &[GameResult]) -> Result<serde_json::Value, ApiError> {
        latest_round(&decision.after)
    }
}

/// The latest round as it stands, as a write's answer.
fn latest_round(after: &Tournament) -> Result<serde_json::Value, ApiError> {
    let round = after
        .rounds
        .last()
        .ok_or_else(|| ApiError::new(ErrorCode::Internal, "no round seated"))?;
    serde_json::to_value(RoundView::of(after, round)).map_err(corrupt)
}

/// Two players of the latest round to swap seats.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"players": ["ann", "bob"], "reason": "ann can only play on Tuesdays"}))]
pub struct SwapSeats {
    #[schema(value_type = Vec<String>, min_items = 2, max_items = 2)]
    pub players: [Handle; 2],
    /// Why, in the director's words.
    pub reason: String,
}

/// Swaps two players of the latest round between their tables (the tournament's director).
///
/// Each takes the other's power, before any game of the round has an order: the
/// tournament records the swap and each game the seat it gave, in one transaction, with
/// the director's reason.
///
/// The tournament's rules refuse (422) a swap once a game of the round has an order, of a
/// player not seated, of two at one table, or without a reason.
#[utoipa::path(post, path = "/v1/tournaments/{id}/swaps", tag = "tournaments",
    request_body = SwapSeats,
    params(("id" = String, Path)),
    responses(
        (status = 201, description = "Swapped: the round as it now stands", body = RoundView),
    ),
    security(("bearer" = [])))]
#[post("/v1/tournaments/{id}/swaps")]
pub async fn swap_seats(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<String>,
    body: JsonBody<SwapSeats>,
) -> Result<HttpResponse, ApiError> {
    let JsonBody { value, raw } = body;
    let request = WriteRequest::of(&req, &caller, &raw, Expected::Unstated)?;
    let swap = TournamentWrite {
        id: id.into_inner(),
        order: RoundChange(TournamentCommand::SwapSeats {
            players: value.players.clone().map(|p| p.to_string()),
            reason: value.reason.clone(),
        }),
    };
    Ok(write::run(&state, &request, &swap).await?.respond(None))
}

/// The director confirms a substitute for an inactive seat.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AppointSubstitute {
    pub game_id: String,
    /// From the waiting list; defaults to its first player (the one offered the seat).
    #[schema(value_type = Option<String>)]
    pub substitute: Option<Handle>,
}

/// A substitute seated.
#[derive(Debug, Serialize, ToSchema)]
pub struct SubstitutionView {
    pub round: u32,
    pub game_id: String,
    #[schema(value_type = String, example = "russia")]
    pub power: Power,
    pub replaced: String,
    pub substitute: String,
    /// The substitute becomes the permanent player after this many rounds of the game.
    pub permanent_after_rounds: u32,
    pub version: u64,
}

/// Gives an inactive player's seat to a substitute from the waiting list (the director).
///
/// The game records the replacement (its own 3-day rule must hold) and the tournament the
/// appointment, in one transaction. The game's points go to whoever holds the seat at its
/// end.
///
/// The tournament's rules refuse (422) a substitute for an active player, in a game not the
/// tournament's, or one not on the waiting list.
#[utoipa::path(post, path = "/v1/tournaments/{id}/substitutions", tag = "tournaments",
    request_body = AppointSubstitute,
    params(("id" = String, Path)),
    responses(
        (status = 201, description = "Seated", body = SubstitutionView),
    ),
    security(("bearer" = [])))]
#[post("/v1/tournaments/{id}/substitutions")]
pub async fn appoint_substitute(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<String>,
    body: JsonBody<AppointSubstitute>,
) -> Result<HttpResponse, ApiError> {
    let JsonBody { value, raw } = body;
    let request = WriteRequest::of(&req, &caller, &raw, Expected::Unstated)?;
    // A malformed game id is refused before anything is read.
    game_stream(&value.game_id)?;
    let substitution = TournamentWrite {
        id: id.into_inner(),
        order: value,
    };
    Ok(write::run(&state, &request, &substitution)
        .await?
        .respond(None))
}

impl TournamentOrder for AppointSubstitute {
    const STATUS: StatusCode = StatusCode::CREATED;

    /// The seat and the substitute, as the league finds them in the tournament's games.
    fn command(
        &self,
        given: &Given<'_>,
        request: &WriteRequest,
    ) -> Result<TournamentCommand, ApiError> {
        let substitute = self.substitute.as_ref().map(ToString::to_string);
        given
            .tournament
            .substitution(
                &request.caller.sender(),
                given.games,
                &self.game_id,
                substitute,
            )
            .map_err(refused)
    }

    fn answer(&self, decision: &Decision, _: &[GameResult]) -> Result<serde_json::Value, ApiError> {
        let Some(TournamentEvent::SubstituteAppointed(a)) = decision.events.first() else {
            return Err(ApiError::new(ErrorCode::Internal, "no appointment decided"));
        };
        serde_json::to_value(SubstitutionView {
            round: a.round,
            game_id: a.game_id.clone(),
            power: a.power,
            replaced: a.replaced.clone(),
            substitute: a.substitute.clone(),
            permanent_after_rounds: ROUNDS_TO_PERMANENT,
            version: decision.after.version,
        })
        .map_err(corrupt)
    }
}

/// Ends the tournament once every round is seated and every game has ended.
///
/// Only its director. The final standings are fixed and answered, and the tournament's
/// seed is revealed, so that every seating, power draw and tiebreak draw can be checked
/// against its commitment.
///
/// With rounds left or games running, the finish is refused (422).
#[utoipa::path(post, path = "/v1/tournaments/{id}/finish", tag = "tournaments",
    params(("id" = String, Path)),
    responses(
        (status = 200, description = "Finished; the final standings", body = StandingsView),
    ),
    security(("bearer" = [])))]
#[post("/v1/tournaments/{id}/finish")]
pub async fn finish_tournament(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let request = WriteRequest::of(&req, &caller, &[], Expected::Unstated)?;
    let finish = TournamentWrite {
        id: id.into_inner(),
        order: Finish,
    };
    Ok(write::run(&state, &request, &finish).await?.respond(None))
}

/// The finish, answered with the final standings.
struct Finish;

impl TournamentOrder for Finish {
    const STATUS: StatusCode = StatusCode::OK;

    /// The tournament's seed goes into the command: the finish reveals it.
    fn command(&self, given: &Given<'_>, _: &WriteRequest) -> Result<TournamentCommand, ApiError> {
        Ok(TournamentCommand::Finish {
            seed: given.seed.clone(),
        })
    }

    fn answer(
        &self,
        decision: &Decision,
        results: &[GameResult],
    ) -> Result<serde_json::Value, ApiError> {
        serde_json::to_value(StandingsView::of(&decision.after, results)).map_err(corrupt)
    }
}
