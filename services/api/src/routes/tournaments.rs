//! Tournaments over HTTP, for directors: create one (with a committed seed), take entries
//! and drops, seat each round (its games are created in the same transaction), offer the
//! seats of inactive players to the waiting list and confirm substitutes, finish; and, for
//! everyone, the tournament, its standings (JSON or CSV) and its calendar (`.ics`).
//!
//! The handlers parse, call `Tournament::decide` and the games' own rules, and render; the
//! write path is `write_tournament`, which folds the stream, decides, and appends the
//! tournament's events and any games' events atomically.

use actix_web::http::{header, StatusCode};
use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;
use warlog_events::game::{GameLog, GameStreamEvent, TournamentTable};
use warlog_events::orders::{Command, DiceSupply, OrdersGiven};
use warlog_events::{NewEvent, StreamCategory, StreamId};
use warlog_league::constraints::SeatingConstraints;
use warlog_league::players::Handle;
use warlog_league::seating::{ShortTablePolicy, SEATING_RULES};
use warlog_league::standings::{result_of, standings, GameResult, StandingRow};
use warlog_league::tournament::{
    Context, RoundSeated, Tiebreaker, Tournament, TournamentCommand, TournamentCreated,
    TournamentEvent, TournamentViolation,
};
use warlog_rules::board::Power;
use warlog_rules::dice::GameSeed;
use warlog_rules::game::seats::{INACTIVITY_LIMIT_SECONDS, ROUNDS_TO_PERMANENT};
use warlog_rules::game::Moment;
use warlog_rules::ruleset::Ruleset;
use warlog_store::games::load_seed;
use warlog_store::{read_stream, stream_head, ExpectedVersion, GenericClient, StoreError};

use crate::auth::{Caller, Identity, Role};
use crate::body::{parse_json, require_json, JsonBody};
use crate::error::{ApiError, ErrorCode, Problem};
use crate::games::{
    commit_all, corrupt, game_stream, load, replayed, Append, Expected, Extra, WriteAnswer,
    WriteRequest,
};
use crate::public_url::PublicUrl;
use crate::respond::{self, csv_field, decimal, Format};
use crate::routes::games::{answer, write_request};
use crate::AppState;

const PAGE: u32 = 1000;

fn tournament_stream(id: &str) -> Result<StreamId, ApiError> {
    StreamId::of(StreamCategory::Tournament, id).map_err(|_| not_found(id))
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::TournamentNotFound,
        format!("no tournament {id:?}"),
    )
}

fn refused(violation: TournamentViolation) -> ApiError {
    ApiError::new(
        ErrorCode::TournamentRule,
        format!("{}: {}", violation.code, violation.message),
    )
}

fn moment_of(at: OffsetDateTime) -> Moment {
    Moment::from_unix_seconds(u64::try_from(at.unix_timestamp()).unwrap_or(0))
}

pub(crate) fn rfc3339(at: Moment) -> String {
    i64::try_from(at.unix_seconds())
        .ok()
        .and_then(|s| OffsetDateTime::from_unix_timestamp(s).ok())
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_default()
}

/// A tournament folded from its stream.
pub async fn load_tournament(
    client: &impl GenericClient,
    id: &str,
) -> Result<Tournament, ApiError> {
    let stream = tournament_stream(id)?;
    let mut events = Vec::new();
    loop {
        let from = u64::try_from(events.len()).unwrap_or(u64::MAX) + 1;
        let page = read_stream(client, &stream, from, PAGE).await?;
        let full = page.len() == PAGE as usize;
        for recorded in &page {
            events.push(
                TournamentEvent::decode(
                    recorded.event_type.as_str(),
                    recorded.event_version,
                    &recorded.payload,
                )
                .map_err(corrupt)?,
            );
        }
        if !full {
            break;
        }
    }
    if events.is_empty() {
        return Err(not_found(id));
    }
    Tournament::fold(&events).map_err(corrupt)
}

/// A tournament's games, folded from their own logs (not a read model: seating the next
/// round must not race the projector), and their results so far.
async fn games_of(
    state: &AppState,
    client: &impl GenericClient,
    tournament: &Tournament,
) -> Result<(Vec<GameLog>, Vec<GameResult>), ApiError> {
    let mut games = Vec::new();
    for game in tournament.rounds.iter().flat_map(|r| &r.games) {
        games.push(load(client, &state.games, &game_stream(&game.game_id)?).await?);
    }
    let results = games
        .iter()
        .map(|g| result_of(g).map_err(corrupt))
        .collect::<Result<_, _>>()?;
    Ok((games, results))
}

/// The director of this tournament, or an admin.
pub(crate) fn require_director(caller: &Identity, tournament: &Tournament) -> Result<(), ApiError> {
    match caller.role {
        Role::Admin => Ok(()),
        Role::Director if caller.name == tournament.created.director => Ok(()),
        _ => Err(ApiError::new(
            ErrorCode::Forbidden,
            format!(
                "{} may not direct this tournament: {} directs it",
                caller.name, tournament.created.director
            ),
        )),
    }
}

/// A new game a tournament write creates, with its own seed.
struct NewGame {
    stream: StreamId,
    seed: [u8; 32],
    created: GameStreamEvent,
}

/// An existing game a tournament write appends to.
struct GameAppend {
    stream: StreamId,
    version: u64,
    events: Vec<GameStreamEvent>,
}

/// A director's command on one of the tournament's games, decided by the game's log and
/// put on its record, to append in the tournament's transaction.
fn on_the_record(
    request: &WriteRequest,
    log: &GameLog,
    command: Command,
) -> Result<GameAppend, ApiError> {
    let record = OrdersGiven {
        sender: request.caller.sender(),
        expected_version: log.version,
        at: request.moment(),
        command,
    };
    Ok(GameAppend {
        stream: game_stream(&log.created.game_id)?,
        version: log.version,
        events: log.decide_command(&record, DiceSupply::None)?.events,
    })
}

/// What a tournament write decides from.
struct Given<'a> {
    id: &'a str,
    tournament: &'a Tournament,
    /// The results of the tournament's games so far.
    results: &'a [GameResult],
    /// The tournament's games, folded.
    games: &'a [GameLog],
    seed: &'a GameSeed,
    at: Moment,
}

impl Given<'_> {
    /// A command that seats no tables.
    fn decide(&self, command: &TournamentCommand) -> Result<Vec<TournamentEvent>, ApiError> {
        self.decide_seating(command, &[], &mut String::new)
    }

    /// A command with the dice of the stream's next version, the ruleset's powers and a
    /// source of new game ids.
    fn decide_seating(
        &self,
        command: &TournamentCommand,
        powers: &[Power],
        new_game_id: &mut dyn FnMut() -> String,
    ) -> Result<Vec<TournamentEvent>, ApiError> {
        let mut dice = self.seed.dice_for(self.id, self.tournament.version + 1);
        self.tournament
            .decide(
                command,
                &mut Context {
                    at: self.at,
                    dice: &mut dice,
                    results: self.results,
                    powers,
                    new_game_id,
                },
            )
            .map_err(refused)
    }
}

/// What a tournament write appends besides the tournament's own events.
#[derive(Default)]
struct Decision {
    events: Vec<TournamentEvent>,
    new_games: Vec<NewGame>,
    game_appends: Vec<GameAppend>,
    /// The tournament's seed is revealed: noted in the secrets table.
    reveals_seed: bool,
}

impl From<Vec<TournamentEvent>> for Decision {
    fn from(events: Vec<TournamentEvent>) -> Self {
        Decision {
            events,
            ..Decision::default()
        }
    }
}

/// Folds the tournament, decides, and appends the tournament's events, new games and game
/// events in one transaction; retries once if the tournament moved on meanwhile.
async fn write_tournament<D, R>(
    state: &AppState,
    id: &str,
    request: &WriteRequest,
    status: StatusCode,
    decide: D,
    render: R,
) -> Result<WriteAnswer, ApiError>
where
    D: Fn(&Given<'_>) -> Result<Decision, ApiError>,
    R: Fn(&Tournament, &Decision, &[GameResult]) -> Result<serde_json::Value, ApiError>,
{
    let stream = tournament_stream(id)?;
    let mut client = state.store.pool().get().await.map_err(StoreError::from)?;
    if let Some(first) = replayed(&client, request).await? {
        return Ok(first);
    }
    for _ in 0..2 {
        let tournament = load_tournament(&client, id).await?;
        require_director_or_self(request, &tournament)?;
        let (games, results) = games_of(state, &client, &tournament).await?;
        let seed = load_seed(&client, &stream)
            .await?
            .map(GameSeed::from_bytes)
            .ok_or_else(|| ApiError::new(ErrorCode::Internal, format!("{stream} has no seed")))?;
        let decision = decide(&Given {
            id,
            tournament: &tournament,
            results: &results,
            games: &games,
            seed: &seed,
            at: request.moment(),
        })?;
        let mut after = tournament.clone();
        for event in &decision.events {
            after.apply(event);
        }
        let body = render(&after, &decision, &results)?;
        let tournament_events = request.encode_with(&decision.events, TournamentEvent::encode)?;
        let new_game_events: Vec<Vec<NewEvent>> = decision
            .new_games
            .iter()
            .map(|g| request.encode(std::slice::from_ref(&g.created)))
            .collect::<Result<_, _>>()?;
        let appended_events: Vec<Vec<NewEvent>> = decision
            .game_appends
            .iter()
            .map(|g| request.encode(&g.events))
            .collect::<Result<_, _>>()?;
        let mut writes = vec![Append {
            stream: &stream,
            expected: ExpectedVersion::Exact(tournament.version),
            events: &tournament_events,
            extra: if decision.reveals_seed {
                Extra::SeedRevealed
            } else {
                Extra::None
            },
            status,
        }];
        for (game, events) in decision.new_games.iter().zip(&new_game_events) {
            writes.push(Append {
                stream: &game.stream,
                expected: ExpectedVersion::NoStream,
                events,
                extra: Extra::SaveSeed(game.seed),
                status,
            });
        }
        for (game, events) in decision.game_appends.iter().zip(&appended_events) {
            writes.push(Append {
                stream: &game.stream,
                expected: ExpectedVersion::Exact(game.version),
                events,
                extra: Extra::None,
                status,
            });
        }
        if let Some(written) = commit_all(state, &mut client, request, writes, |_| Ok(body)).await?
        {
            return Ok(written);
        }
    }
    Err(ApiError::new(
        ErrorCode::VersionConflict,
        "the tournament moved on twice while this request was decided; send it again",
    ))
}

/// A write only an admin or a director may ask for.
fn directing(
    req: &HttpRequest,
    caller: &Caller,
    raw: &[u8],
    what: &str,
) -> Result<WriteRequest, ApiError> {
    let caller = caller.require()?;
    caller.require_role(&[Role::Admin, Role::Director], what)?;
    write_request(req, caller, raw, Expected::Unstated)
}

/// Entries and drops may come from the player itself; everything else from the director.
fn require_director_or_self(
    request: &WriteRequest,
    tournament: &Tournament,
) -> Result<(), ApiError> {
    if request.caller.role == Role::Player {
        // Checked against the named player by the handler; a player never directs.
        return Ok(());
    }
    require_director(&request.caller, tournament)
}

// ---------------------------------------------------------------------------------------
// Creating a tournament

/// A new tournament.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "name": "Autumn Cut-Throat 2026",
    "rounds": 3,
    "deadlines": ["2026-12-01T20:00:00Z", "2026-12-15T20:00:00Z", "2026-12-29T20:00:00Z"],
    "short_tables": "waiting_list",
    "capacity": 15
}))]
pub struct CreateTournament {
    pub name: String,
    /// Defaults to `cutthroat`.
    pub ruleset: Option<String>,
    pub rounds: u32,
    /// One per round, RFC 3339, in order.
    pub deadlines: Vec<String>,
    /// The ruleset's powers (5 for Cut-Throat); stated only to check it.
    pub table_size: Option<u32>,
    /// Points for 1st, 2nd, ...; defaults to the ruleset's (Cut-Throat: 5, 3, 2, -1, -2).
    pub points_per_place: Option<Vec<i64>>,
    /// In order; defaults to total points, total percent gain, best single result,
    /// head-to-head, the seeded draw. The draw always ends the list.
    #[schema(value_type = Option<Vec<String>>)]
    pub tiebreakers: Option<Vec<Tiebreaker>>,
    /// `waiting_list` (fill short tables from it, byes when it runs short) or `byes`.
    #[schema(value_type = String)]
    pub short_tables: ShortTablePolicy,
    /// The points of a bye (default 0).
    pub bye_points: Option<i64>,
    /// Entries beyond this wait on the waiting list.
    pub capacity: Option<u32>,
    /// Players may enter until this round is seated (default 1: before the start).
    pub late_entries_until_round: Option<u32>,
}

impl CreateTournament {
    /// The tournament's first event, or what is wrong with the request.
    fn created(
        &self,
        id: &str,
        director: &str,
        at: Moment,
        seed: &GameSeed,
    ) -> Result<TournamentCreated, ApiError> {
        let bad = |field: &str, why: String| ApiError::malformed(format!("`{field}`: {why}"));
        let name = self.name.trim();
        if name.is_empty() || name.chars().count() > 120 {
            return Err(bad("name", "1 to 120 characters".to_owned()));
        }
        let ruleset_id = self
            .ruleset
            .as_deref()
            .unwrap_or(super::league::DEFAULT_RULESET);
        let ruleset = Ruleset::builtin(ruleset_id)
            .map_err(|e| ApiError::new(ErrorCode::RulesetNotFound, e.to_string()))?;
        let table_size = u32::try_from(ruleset.powers().len()).unwrap_or(u32::MAX);
        if self.table_size.is_some_and(|t| t != table_size) {
            return Err(bad(
                "table_size",
                format!("{ruleset_id} seats {table_size} players at a table"),
            ));
        }
        if !(1..=20).contains(&self.rounds) {
            return Err(bad("rounds", format!("{} is not 1 to 20", self.rounds)));
        }
        if self.deadlines.len() != self.rounds as usize {
            return Err(bad(
                "deadlines",
                format!(
                    "{} rounds need {} deadlines, not {}",
                    self.rounds,
                    self.rounds,
                    self.deadlines.len()
                ),
            ));
        }
        let mut deadlines = Vec::new();
        for (i, text) in self.deadlines.iter().enumerate() {
            let when = OffsetDateTime::parse(text, &Rfc3339)
                .map_err(|e| bad(&format!("deadlines[{i}]"), format!("{text:?}: {e}")))?;
            let when = moment_of(when);
            if when <= at || deadlines.last().is_some_and(|last| when <= *last) {
                return Err(bad(
                    &format!("deadlines[{i}]"),
                    "deadlines are in the future and each after the one before".to_owned(),
                ));
            }
            deadlines.push(when);
        }
        let points_per_place = match &self.points_per_place {
            Some(points) if points.len() != table_size as usize => {
                return Err(bad(
                    "points_per_place",
                    format!("{table_size} places need {table_size} values"),
                ))
            }
            Some(points) if points.windows(2).any(|w| w[0] < w[1]) => {
                return Err(bad(
                    "points_per_place",
                    "a better place never earns fewer points".to_owned(),
                ))
            }
            Some(points) => points.clone(),
            None => (1..=ruleset.points.places())
                .map(|p| ruleset.points.for_place(p))
                .collect(),
        };
        let mut tiebreakers = self
            .tiebreakers
            .clone()
            .unwrap_or_else(|| Tiebreaker::DEFAULT.to_vec());
        let mut seen = tiebreakers.clone();
        seen.sort();
        seen.dedup();
        if seen.len() != tiebreakers.len() {
            return Err(bad(
                "tiebreakers",
                "each tiebreaker at most once".to_owned(),
            ));
        }
        if tiebreakers.first() != Some(&Tiebreaker::TotalPoints) {
            return Err(bad(
                "tiebreakers",
                "standings are by total points first".to_owned(),
            ));
        }
        if tiebreakers.last() != Some(&Tiebreaker::Draw) {
            tiebreakers.retain(|t| *t != Tiebreaker::Draw);
            tiebreakers.push(Tiebreaker::Draw);
        }
        if self.capacity.is_some_and(|c| c < table_size) {
            return Err(bad(
                "capacity",
                format!("fewer than {table_size} players cannot fill a table"),
            ));
        }
        let late = self.late_entries_until_round.unwrap_or(1);
        if !(1..=self.rounds).contains(&late) {
            return Err(bad(
                "late_entries_until_round",
                format!("{late} is not a round of 1 to {}", self.rounds),
            ));
        }
        Ok(TournamentCreated {
            tournament_id: id.to_owned(),
            name: name.to_owned(),
            ruleset: ruleset.id.to_owned(),
            rounds: self.rounds,
            deadlines,
            table_size,
            points_per_place,
            tiebreakers,
            short_tables: self.short_tables,
            bye_points: self.bye_points.unwrap_or(0),
            capacity: self.capacity,
            late_entries_until_round: late,
            seed_commitment: hex::encode(seed.commitment()),
            director: director.to_owned(),
            at,
        })
    }
}

/// Creates a tournament (admin or director; the caller directs it). Its seed is drawn now
/// and committed in the first event: every power draw and seating can be checked later.
#[utoipa::path(post, path = "/v1/tournaments", tag = "tournaments",
    request_body = CreateTournament,
    params(("Idempotency-Key" = Option<String>, Header, description = "Retries with the same key get the first answer")),
    responses(
        (status = 201, description = "Created", body = TournamentView),
        (status = 400, description = "A field is wrong; the problem names it", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Only an admin or a director", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such ruleset", body = Problem, content_type = "application/problem+json"),
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
    let request = directing(&req, &caller, &raw, "create a tournament")?;
    let mut client = state.store.pool().get().await.map_err(StoreError::from)?;
    if let Some(first) = replayed(&client, &request).await? {
        return Ok(answer(first, None));
    }
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("no OS randomness: {e}")))?;
    let id = Uuid::now_v7().simple().to_string();
    let created = value.created(
        &id,
        &request.caller.name,
        request.moment(),
        &GameSeed::from_bytes(seed),
    )?;
    let view = TournamentView::of(&Tournament::new(created.clone()));
    let events = request.encode_with(
        &[TournamentEvent::TournamentCreated(created)],
        TournamentEvent::encode,
    )?;
    let stream = tournament_stream(&id)?;
    let write = Append {
        stream: &stream,
        expected: ExpectedVersion::NoStream,
        events: &events,
        extra: Extra::SaveSeed(seed),
        status: StatusCode::CREATED,
    };
    let written = commit_all(&state, &mut client, &request, vec![write], |_| {
        serde_json::to_value(&view).map_err(corrupt)
    })
    .await?
    .ok_or_else(|| ApiError::new(ErrorCode::Internal, "a new tournament id was taken"))?;
    Ok(answer(written, Some(format!("/v1/tournaments/{id}"))))
}

// ---------------------------------------------------------------------------------------
// Entries and drops

/// A player to enter.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterPlayer {
    #[schema(value_type = String)]
    pub player: Handle,
}

/// The director (or admin) enters anyone; a player enters itself.
fn require_self_or_director(
    caller: &Identity,
    player: &str,
    tournament: &Tournament,
) -> Result<(), ApiError> {
    if caller.role == Role::Player && caller.name == player {
        return Ok(());
    }
    require_director(caller, tournament)
}

async fn require_registered(state: &AppState, player: &str) -> Result<(), ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let stream = StreamId::of(StreamCategory::Player, player)
        .map_err(|e| ApiError::malformed(format!("player: {e}")))?;
    if stream_head(&client, &stream).await?.is_none() {
        return Err(ApiError::new(
            ErrorCode::PlayerNotFound,
            format!("{player} is not a registered player: register with POST /v1/players"),
        ));
    }
    Ok(())
}

/// Enters a player; beyond capacity, or after the last round open to late entries, the
/// player goes on the waiting list instead (the answer says which).
#[utoipa::path(post, path = "/v1/tournaments/{id}/entries", tag = "tournaments",
    request_body = EnterPlayer,
    params(("id" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "Retries with the same key get the first answer")),
    responses(
        (status = 200, description = "Entered or waiting", body = EntryView),
        (status = 400, description = "Malformed body", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Neither the director nor the player", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament or player", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Refused by the tournament's rules (already entered, finished)", body = Problem, content_type = "application/problem+json"),
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
    let caller = caller.require()?;
    let JsonBody { value, raw } = body;
    let player = value.player.to_string();
    require_registered(&state, &player).await?;
    entry_change(
        &state,
        &req,
        caller,
        &id,
        &raw,
        TournamentCommand::Enter { player },
    )
    .await
}

/// Drops a player (or takes one off the waiting list); their results so far stay.
#[utoipa::path(delete, path = "/v1/tournaments/{id}/entries/{player}", tag = "tournaments",
    params(("id" = String, Path), ("player" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "Retries with the same key get the first answer")),
    responses(
        (status = 200, description = "Dropped", body = EntryView),
        (status = 403, description = "Neither the director nor the player", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Not entered", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = [])))]
#[delete("/v1/tournaments/{id}/entries/{player}")]
pub async fn drop_player(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let caller = caller.require()?;
    let (id, player) = path.into_inner();
    entry_change(
        &state,
        &req,
        caller,
        &id,
        &[],
        TournamentCommand::Drop { player },
    )
    .await
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

async fn entry_change(
    state: &AppState,
    req: &HttpRequest,
    caller: &Identity,
    id: &str,
    raw: &[u8],
    command: TournamentCommand,
) -> Result<HttpResponse, ApiError> {
    let request = write_request(req, caller, raw, Expected::Unstated)?;
    let written = write_tournament(
        state,
        id,
        &request,
        StatusCode::OK,
        |given| {
            let (TournamentCommand::Enter { player } | TournamentCommand::Drop { player }) =
                &command
            else {
                return Err(ApiError::new(ErrorCode::Internal, "not an entry change"));
            };
            require_self_or_director(&request.caller, player, given.tournament)?;
            given.decide(&command).map(Decision::from)
        },
        |after, decision, _| {
            let (player, status) = match decision.events.first() {
                Some(TournamentEvent::PlayerEntered { player, .. }) => (player, "entered"),
                Some(TournamentEvent::PlayerWaitlisted { player, .. }) => (player, "waiting"),
                Some(TournamentEvent::PlayerDropped { player, .. }) => (player, "dropped"),
                _ => return Err(ApiError::new(ErrorCode::Internal, "no entry event")),
            };
            serde_json::to_value(EntryView {
                player: player.clone(),
                status: status.to_owned(),
                version: after.version,
                entered: after.playing().len(),
                waiting: after.waiting.clone(),
            })
            .map_err(corrupt)
        },
    )
    .await?;
    Ok(answer(written, None))
}

// ---------------------------------------------------------------------------------------
// Rounds

/// Seats the next round: tables from the tournament's seed, each a new game created in the
/// same transaction. Refused while a game of the last round is running. The body (optional)
/// gives the director's constraints, with the reason: pairs kept apart or together, players
/// fixed to a table; the seating keeps them or is refused. The answer explains the seating:
/// repeats avoided (and the fewest possible), byes and why, and what the constraints cost.
#[utoipa::path(post, path = "/v1/tournaments/{id}/rounds", tag = "tournaments",
    request_body(content = Option<SeatingConstraints>, description = "The director's constraints (optional)"),
    params(("id" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "Retries with the same key get the first answer")),
    responses(
        (status = 201, description = "The round, its tables and games", body = RoundView),
        (status = 400, description = "Malformed constraints", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not this tournament's director", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Games still running, all rounds seated, too few players, constraints that cannot hold", body = Problem, content_type = "application/problem+json"),
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
    let request = directing(&req, &caller, &body, "seat a round")?;
    let written = write_tournament(
        &state,
        &id,
        &request,
        StatusCode::CREATED,
        |given| {
            let tournament = given.tournament;
            let ruleset = Ruleset::builtin(&tournament.created.ruleset).map_err(corrupt)?;
            let events = given.decide_seating(
                &TournamentCommand::SeatRound(constraints.clone()),
                ruleset.powers(),
                &mut || Uuid::now_v7().simple().to_string(),
            )?;
            let mut new_games = Vec::new();
            for event in &events {
                let TournamentEvent::RoundSeated(seated) = event else {
                    continue;
                };
                for (table, game) in seated.seating.tables.iter().zip(&seated.games) {
                    let mut game_seed = [0u8; 32];
                    getrandom::fill(&mut game_seed).map_err(|e| {
                        ApiError::new(ErrorCode::Internal, format!("no OS randomness: {e}"))
                    })?;
                    let created = GameLog::create_seated(
                        ruleset,
                        &game.game_id,
                        TournamentTable {
                            tournament: id.to_string(),
                            round: seated.round,
                            table: table.table,
                            seats: table.seats.clone(),
                        },
                        tournament.created.director.clone(),
                        request.moment(),
                        &GameSeed::from_bytes(game_seed),
                    );
                    new_games.push(NewGame {
                        stream: game_stream(&game.game_id)?,
                        seed: game_seed,
                        created: GameStreamEvent::Created(created),
                    });
                }
            }
            Ok(Decision {
                events,
                new_games,
                ..Decision::default()
            })
        },
        |after, _, _| latest_round(after),
    )
    .await?;
    let round = written
        .body
        .get("round")
        .and_then(serde_json::Value::as_u64);
    let location = round.map(|r| format!("/v1/tournaments/{id}/rounds/{r}"));
    Ok(answer(written, location))
}

/// The latest round as it stands, as a write's answer.
fn latest_round(after: &Tournament) -> Result<serde_json::Value, ApiError> {
    let round = after
        .rounds
        .last()
        .ok_or_else(|| ApiError::new(ErrorCode::Internal, "no round seated"))?;
    serde_json::to_value(RoundView::of(after, round)).map_err(corrupt)
}

/// One round: its tables and games, byes, and how it was seated.
#[utoipa::path(get, path = "/v1/tournaments/{id}/rounds/{round}", tag = "tournaments",
    params(("id" = String, Path), ("round" = u32, Path)),
    responses(
        (status = 200, description = "The round", body = RoundView),
        (status = 404, description = "No such tournament or round", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/v1/tournaments/{id}/rounds/{round}")]
pub async fn round_detail(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id, round) = path.into_inner();
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let tournament = load_tournament(&client, &id).await?;
    let seated = round
        .parse::<usize>()
        .ok()
        .and_then(|r| r.checked_sub(1))
        .and_then(|r| tournament.rounds.get(r))
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::TournamentNotFound,
                format!(
                    "round {round:?} is not seated; {} of {} are",
                    tournament.rounds.len(),
                    tournament.created.rounds
                ),
            )
        })?;
    respond::json(&req, &RoundView::of(&tournament, seated))
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

/// Swaps two players of the latest round between their tables (each takes the other's
/// power), before any game of the round has an order: the tournament records the swap and
/// each game the seat it gave, in one transaction, with the director's reason.
#[utoipa::path(post, path = "/v1/tournaments/{id}/swaps", tag = "tournaments",
    request_body = SwapSeats,
    params(("id" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "Retries with the same key get the first answer")),
    responses(
        (status = 201, description = "Swapped: the round as it now stands", body = RoundView),
        (status = 400, description = "Malformed body", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not this tournament's director", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A game of the round has an order, a player is not seated, both sit at one table, no reason", body = Problem, content_type = "application/problem+json"),
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
    let request = directing(&req, &caller, &raw, "swap seats")?;
    let players = value.players.clone().map(|p| p.to_string());
    let written = write_tournament(
        &state,
        &id,
        &request,
        StatusCode::CREATED,
        |given| {
            let events = given.decide(&TournamentCommand::SwapSeats {
                players: players.clone(),
                reason: value.reason.clone(),
            })?;
            let Some(TournamentEvent::SeatsSwapped(swapped)) = events.first() else {
                return Err(ApiError::new(ErrorCode::Internal, "no swap decided"));
            };
            let round = given
                .tournament
                .rounds
                .last()
                .ok_or_else(|| ApiError::new(ErrorCode::Internal, "no round seated"))?;
            let tables = given.tournament.tables_as_played();
            let tables = tables.last().map(Vec::as_slice).unwrap_or_default();
            // Each player takes the other's seat: a record on each game, decided by it.
            let mut game_appends = Vec::new();
            for (leaving, taking) in [(&players[0], &players[1]), (&players[1], &players[0])] {
                let (table, power) = tables
                    .iter()
                    .find_map(|t| {
                        t.seats
                            .iter()
                            .find(|(_, who)| who == leaving)
                            .map(|(power, _)| (t.table, *power))
                    })
                    .ok_or_else(|| ApiError::new(ErrorCode::Internal, "a swapped seat is gone"))?;
                let game_id = round
                    .games
                    .iter()
                    .find(|g| g.table == table)
                    .map(|g| g.game_id.clone())
                    .unwrap_or_default();
                let log = given
                    .games
                    .iter()
                    .find(|g| g.created.game_id == game_id)
                    .ok_or_else(|| ApiError::new(ErrorCode::Internal, "a round's game is gone"))?;
                game_appends.push(on_the_record(
                    &request,
                    log,
                    Command::TakeSeat {
                        power,
                        player: taking.clone(),
                        reason: swapped.reason.clone(),
                    },
                )?);
            }
            Ok(Decision {
                events,
                game_appends,
                ..Decision::default()
            })
        },
        |after, _, _| latest_round(after),
    )
    .await?;
    Ok(answer(written, None))
}

// ---------------------------------------------------------------------------------------
// Inactive seats and substitutes

/// A seat whose player has let a due turn wait more than 3 days.
#[derive(Debug, Serialize, ToSchema)]
pub struct InactiveSeat {
    pub round: u32,
    pub table: u32,
    pub game_id: String,
    #[schema(value_type = String, example = "russia")]
    pub power: Power,
    pub player: String,
    /// When the game last moved on (the last phase's end, or the game's start).
    pub idle_since: String,
    pub idle_hours: u64,
    /// The first player on the waiting list, offered the seat; the director confirms.
    pub offered_to: Option<String>,
}

/// The seats open to substitutes now: a player whose turn is due and who has been inactive
/// more than 3 days (Cut-Throat, Rules for players), each offered to the waiting list.
#[utoipa::path(get, path = "/v1/tournaments/{id}/inactive", tag = "tournaments",
    params(("id" = String, Path)),
    responses(
        (status = 200, description = "Inactive seats, oldest first", body = Vec<InactiveSeat>),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/v1/tournaments/{id}/inactive")]
pub async fn inactive_seats(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (tournament, watch) = seats_waited_on(&state, &id).await?;
    let seats: Vec<InactiveSeat> = watch
        .into_iter()
        .filter(|w| w.due)
        .map(|w| InactiveSeat {
            round: w.round,
            table: w.table,
            game_id: w.game_id,
            power: w.power,
            player: w.player,
            idle_since: w.idle_since,
            idle_hours: w.idle_hours,
            offered_to: tournament.waiting.first().cloned(),
        })
        .collect();
    respond::json(&req, &seats)
}

/// A running game's seat whose turn is due: who, since when, and when a substitute may
/// take it.
#[derive(Debug)]
pub struct SeatWaitedOn {
    pub round: u32,
    pub table: u32,
    pub game_id: String,
    pub power: Power,
    pub player: String,
    pub idle_since: String,
    pub idle_hours: u64,
    /// When the seat is open to a substitute (3 days after `idle_since`).
    pub due_at: String,
    /// Whether that time has passed.
    pub due: bool,
}

/// The tournament, and every running game's seat whose turn is due, longest waiting first.
pub async fn seats_waited_on(
    state: &AppState,
    id: &str,
) -> Result<(Tournament, Vec<SeatWaitedOn>), ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let tournament = load_tournament(&client, id).await?;
    let now = moment_of(state.clock.now()).unix_seconds();
    let (logs, _) = games_of(state, &client, &tournament).await?;
    let tables = tournament
        .rounds
        .iter()
        .flat_map(|round| round.games.iter().map(move |game| (round, game)));
    let mut seats = Vec::new();
    for ((round, game), log) in tables.zip(&logs) {
        if log.state.ended.is_some() || log.state.voided.is_some() {
            continue;
        }
        let power = log.state.to_act(log.ruleset.rules());
        let since = log.state.last_progress_at.unwrap_or(log.created.at);
        let idle = now.saturating_sub(since.unix_seconds());
        let Some(seat) = log.state.seats.get(&power) else {
            continue;
        };
        seats.push(SeatWaitedOn {
            round: round.round,
            table: game.table,
            game_id: game.game_id.clone(),
            power,
            player: seat.player.clone(),
            idle_since: rfc3339(since),
            idle_hours: idle / 3600,
            due_at: rfc3339(since.plus_seconds(INACTIVITY_LIMIT_SECONDS)),
            due: idle > INACTIVITY_LIMIT_SECONDS,
        });
    }
    seats.sort_by_key(|s| std::cmp::Reverse(s.idle_hours));
    Ok((tournament, seats))
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

/// Gives an inactive player's seat to a substitute from the waiting list: the game records
/// the replacement (its own 3-day rule must hold) and the tournament the appointment, in
/// one transaction. The game's points go to whoever holds the seat at its end.
#[utoipa::path(post, path = "/v1/tournaments/{id}/substitutions", tag = "tournaments",
    request_body = AppointSubstitute,
    params(("id" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "Retries with the same key get the first answer")),
    responses(
        (status = 201, description = "Seated", body = SubstitutionView),
        (status = 400, description = "Malformed body", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not this tournament's director", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament or game", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The player is active, the game is not the tournament's, the substitute is not waiting", body = Problem, content_type = "application/problem+json"),
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
    let request = directing(&req, &caller, &raw, "appoint a substitute")?;
    // A malformed game id is refused before anything is read.
    game_stream(&value.game_id)?;
    let written = write_tournament(
        &state,
        &id,
        &request,
        StatusCode::CREATED,
        |given| {
            let log = given
                .games
                .iter()
                .find(|g| g.created.game_id == value.game_id)
                .ok_or_else(|| {
                    refused(TournamentViolation {
                        code: "not-a-tournament-game",
                        message: format!("game {} is not one of this tournament's", value.game_id),
                    })
                })?;
            let power = log.state.to_act(log.ruleset.rules());
            let replaced = log
                .state
                .seats
                .get(&power)
                .map(|s| s.player.clone())
                .unwrap_or_default();
            let events = given.decide(&TournamentCommand::Substitute {
                game_id: value.game_id.clone(),
                power,
                replaced,
                substitute: value.substitute.as_ref().map(ToString::to_string),
            })?;
            let Some(TournamentEvent::SubstituteAppointed(appointed)) = events.first() else {
                return Err(ApiError::new(ErrorCode::Internal, "no appointment decided"));
            };
            // On the game's record too: the auditor decides the substitution again.
            let append = on_the_record(
                &request,
                log,
                Command::ReplaceInactivePlayer {
                    substitute: appointed.substitute.clone(),
                },
            )?;
            Ok(Decision {
                events,
                game_appends: vec![append],
                ..Decision::default()
            })
        },
        |after, decision, _| {
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
                version: after.version,
            })
            .map_err(corrupt)
        },
    )
    .await?;
    Ok(answer(written, None))
}

/// Ends the tournament once every round is seated and every game has ended.
#[utoipa::path(post, path = "/v1/tournaments/{id}/finish", tag = "tournaments",
    params(("id" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "Retries with the same key get the first answer")),
    responses(
        (status = 200, description = "Finished; the final standings", body = StandingsView),
        (status = 403, description = "Not this tournament's director", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Rounds left or games running", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = [])))]
#[post("/v1/tournaments/{id}/finish")]
pub async fn finish_tournament(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let request = directing(&req, &caller, &[], "finish a tournament")?;
    let written = write_tournament(
        &state,
        &id,
        &request,
        StatusCode::OK,
        |given| {
            Ok(Decision {
                reveals_seed: true,
                ..Decision::from(given.decide(&TournamentCommand::Finish {
                    seed: given.seed.clone(),
                })?)
            })
        },
        |after, _, results| {
            serde_json::to_value(StandingsView::of(after, results)).map_err(corrupt)
        },
    )
    .await?;
    Ok(answer(written, None))
}

// ---------------------------------------------------------------------------------------
// Reading

/// A seat at a table.
#[derive(Debug, Serialize, ToSchema)]
pub struct TableSeat {
    #[schema(value_type = String, example = "russia")]
    pub power: Power,
    pub player: String,
}

/// A table of a round and its game.
#[derive(Debug, Serialize, ToSchema)]
pub struct TableView {
    pub table: u32,
    pub game_id: String,
    /// As played: a substitute shows in the seat taken.
    pub seats: Vec<TableSeat>,
}

/// A bye.
#[derive(Debug, Serialize, ToSchema)]
pub struct ByeView {
    pub player: String,
    pub points: i64,
}

/// A seated round.
#[derive(Debug, Serialize, ToSchema)]
pub struct RoundView {
    pub round: u32,
    pub seated_at: String,
    pub deadline: Option<String>,
    pub tables: Vec<TableView>,
    pub byes: Vec<ByeView>,
    /// Players promoted from the waiting list to fill tables.
    pub promoted: Vec<String>,
    /// Pairs at a table who had met at a table before.
    pub repeated_table_mates: u32,
    /// The fewest repeats any seating could have had.
    pub least_possible_repeats: u32,
    /// Players given a power they had played before.
    pub repeated_powers: u32,
    /// The seating in words: repeats avoided, byes and why, what the director's constraints
    /// cost.
    pub explanation: Vec<String>,
    /// The rules every seating follows, in plain words.
    pub rules: String,
    /// The director's constraints the round was seated under (absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constraints: Option<SeatingConstraints>,
    /// With constraints: the repeated table-mates of the best seating found without them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeats_without_constraints: Option<u32>,
    /// Seats the director swapped before the round's games began, and why.
    pub swaps: Vec<SwapView>,
    /// The order drawn with the round's dice that breaks the last ties.
    pub draw: Vec<String>,
}

/// Two players who changed seats before their round's games began.
#[derive(Debug, Serialize, ToSchema)]
pub struct SwapView {
    pub players: [String; 2],
    pub reason: String,
    pub at: String,
}

impl RoundView {
    fn of(tournament: &Tournament, round: &RoundSeated) -> RoundView {
        let played = tournament.tables_as_played();
        let tables = played
            .get(round.round as usize - 1)
            .unwrap_or(&round.seating.tables);
        RoundView {
            round: round.round,
            seated_at: rfc3339(round.at),
            deadline: tournament
                .created
                .deadlines
                .get(round.round as usize - 1)
                .map(|d| rfc3339(*d)),
            tables: tables
                .iter()
                .map(|t| TableView {
                    table: t.table,
                    game_id: round
                        .games
                        .iter()
                        .find(|g| g.table == t.table)
                        .map(|g| g.game_id.clone())
                        .unwrap_or_default(),
                    seats: t
                        .seats
                        .iter()
                        .map(|(power, player)| TableSeat {
                            power: *power,
                            player: player.clone(),
                        })
                        .collect(),
                })
                .collect(),
            byes: round
                .seating
                .byes
                .iter()
                .map(|b| ByeView {
                    player: b.player.clone(),
                    points: b.points,
                })
                .collect(),
            promoted: round.seating.promoted.clone(),
            repeated_table_mates: round.seating.repeated_table_mates,
            least_possible_repeats: round.seating.least_possible_repeats,
            repeated_powers: round.seating.repeated_powers,
            explanation: round.seating.explanation.clone(),
            rules: SEATING_RULES.to_owned(),
            constraints: (!round.constraints.is_empty()).then(|| round.constraints.clone()),
            repeats_without_constraints: round.seating.repeats_without_constraints,
            swaps: tournament
                .swaps
                .iter()
                .filter(|s| s.round == round.round)
                .map(|s| SwapView {
                    players: s.players.clone(),
                    reason: s.reason.clone(),
                    at: rfc3339(s.at),
                })
                .collect(),
            draw: round.draw.clone(),
        }
    }
}

/// An entrant.
#[derive(Debug, Serialize, ToSchema)]
pub struct EntrantView {
    pub player: String,
    /// `playing`, `dropped` or `replaced`.
    pub status: String,
}

/// A substitution made.
#[derive(Debug, Serialize, ToSchema)]
pub struct SubstitutionMade {
    pub round: u32,
    pub game_id: String,
    #[schema(value_type = String, example = "russia")]
    pub power: Power,
    pub replaced: String,
    pub substitute: String,
    pub at: String,
}

/// A tournament: its settings, entrants, waiting list, rounds and substitutions.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentView {
    pub tournament_id: String,
    pub name: String,
    pub ruleset: String,
    pub director: String,
    pub rounds: u32,
    pub deadlines: Vec<String>,
    pub table_size: u32,
    pub points_per_place: Vec<i64>,
    pub tiebreakers: Vec<String>,
    /// `waiting_list` or `byes`.
    pub short_tables: String,
    pub bye_points: i64,
    pub capacity: Option<u32>,
    pub late_entries_until_round: u32,
    /// SHA-256 of the seed that draws seatings and powers.
    pub seed_commitment: String,
    pub created_at: String,
    pub version: u64,
    pub entrants: Vec<EntrantView>,
    pub waiting: Vec<String>,
    pub seated: Vec<RoundView>,
    pub substitutions: Vec<SubstitutionMade>,
    pub finished_at: Option<String>,
    /// The seed, hex, once finished: with it every seating, power draw and tiebreak draw
    /// can be checked against `seed_commitment`.
    pub seed: Option<String>,
}

fn snake(value: impl Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

impl TournamentView {
    pub fn of(tournament: &Tournament) -> TournamentView {
        let created = &tournament.created;
        TournamentView {
            tournament_id: created.tournament_id.clone(),
            name: created.name.clone(),
            ruleset: created.ruleset.clone(),
            director: created.director.clone(),
            rounds: created.rounds,
            deadlines: created.deadlines.iter().map(|d| rfc3339(*d)).collect(),
            table_size: created.table_size,
            points_per_place: created.points_per_place.clone(),
            tiebreakers: created.tiebreakers.iter().map(snake).collect(),
            short_tables: snake(created.short_tables),
            bye_points: created.bye_points,
            capacity: created.capacity,
            late_entries_until_round: created.late_entries_until_round,
            seed_commitment: created.seed_commitment.clone(),
            created_at: rfc3339(created.at),
            version: tournament.version,
            entrants: tournament
                .entrants
                .iter()
                .map(|e| EntrantView {
                    player: e.player.clone(),
                    status: snake(e.status),
                })
                .collect(),
            waiting: tournament.waiting.clone(),
            seated: tournament
                .rounds
                .iter()
                .map(|r| RoundView::of(tournament, r))
                .collect(),
            substitutions: tournament
                .substitutions
                .iter()
                .map(|s| SubstitutionMade {
                    round: s.round,
                    game_id: s.game_id.clone(),
                    power: s.power,
                    replaced: s.replaced.clone(),
                    substitute: s.substitute.clone(),
                    at: rfc3339(s.at),
                })
                .collect(),
            finished_at: tournament.finished.map(rfc3339),
            seed: tournament.revealed_seed.clone(),
        }
    }
}

/// A tournament.
#[utoipa::path(get, path = "/v1/tournaments/{id}", tag = "tournaments",
    params(("id" = String, Path)),
    responses(
        (status = 200, description = "The tournament", body = TournamentView),
        (status = 304, description = "Not modified since the ETag in If-None-Match"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/v1/tournaments/{id}")]
pub async fn tournament_detail(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let tournament = load_tournament(&client, &id).await?;
    respond::json(&req, &TournamentView::of(&tournament))
}

/// One round of a player in the standings.
#[derive(Debug, Serialize, ToSchema)]
pub struct RoundResultView {
    pub round: u32,
    /// Absent for a bye.
    pub game_id: Option<String>,
    #[schema(value_type = Option<String>)]
    pub power: Option<Power>,
    pub place: Option<usize>,
    pub points: String,
    pub points_value: f64,
    /// Exact, as a fraction of the starting IPC (`"-5/24"`).
    pub percent_gain: String,
    /// The same, as a percentage.
    pub percent_gain_pct: f64,
}

/// A line of the standings.
#[derive(Debug, Serialize, ToSchema)]
pub struct StandingView {
    pub rank: usize,
    pub player: String,
    /// `playing`, `dropped` or `replaced`.
    pub status: String,
    /// Exact (`"13/3"` when tied places were shared).
    pub points: String,
    pub points_value: f64,
    /// The sum of the games' gains, exact, as fractions of the starting IPC.
    pub percent_gain: String,
    /// The same, as a percentage.
    pub percent_gain_pct: f64,
    pub best_result: Option<String>,
    pub games: u32,
    /// Sole first places, and shares of shared ones; an all-tied game is nobody's win.
    pub wins: f64,
    /// The same, exact (`"3/2"`).
    pub wins_exact: String,
    pub byes: u32,
    pub title: String,
    /// The tiebreaker that placed this line below the one above (absent for the first).
    pub decided_by: Option<String>,
    pub results: Vec<RoundResultView>,
}

/// A tournament's standings, tiebreakers applied.
#[derive(Debug, Serialize, ToSchema)]
pub struct StandingsView {
    pub tournament_id: String,
    pub name: String,
    pub rounds_seated: usize,
    pub finished: bool,
    /// The tiebreakers in the order they apply.
    pub tiebreakers: Vec<String>,
    pub rows: Vec<StandingView>,
}

impl StandingView {
    fn of(row: &StandingRow) -> StandingView {
        StandingView {
            rank: row.rank,
            player: row.player.clone(),
            status: snake(row.status),
            points: row.points.to_string(),
            points_value: row.points.to_f64(),
            percent_gain: row.percent_gain.to_string(),
            percent_gain_pct: row.percent_gain.to_f64() * 100.0,
            best_result: row.best_result.map(|b| b.to_string()),
            games: row.games,
            wins: row.wins.to_f64(),
            wins_exact: row.wins.to_string(),
            byes: row.byes,
            title: row.title.name().to_owned(),
            decided_by: row.decided_by.map(|t| t.describe().to_owned()),
            results: row
                .results
                .iter()
                .map(|r| RoundResultView {
                    round: r.round,
                    game_id: r.game_id.clone(),
                    power: r.power,
                    place: r.place,
                    points: r.points.to_string(),
                    points_value: r.points.to_f64(),
                    percent_gain: r.percent_gain.to_string(),
                    percent_gain_pct: r.percent_gain.to_f64() * 100.0,
                })
                .collect(),
        }
    }
}

impl StandingsView {
    pub fn of(tournament: &Tournament, results: &[GameResult]) -> StandingsView {
        StandingsView {
            tournament_id: tournament.created.tournament_id.clone(),
            name: tournament.created.name.clone(),
            rounds_seated: tournament.rounds.len(),
            finished: tournament.finished.is_some(),
            tiebreakers: tournament
                .created
                .tiebreakers
                .iter()
                .map(|t| t.describe().to_owned())
                .collect(),
            rows: standings(tournament, results)
                .iter()
                .map(StandingView::of)
                .collect(),
        }
    }
}

/// A tournament and its standings, for the API and the pages.
pub async fn tournament_standings(
    state: &AppState,
    id: &str,
) -> Result<(Tournament, StandingsView), ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let tournament = load_tournament(&client, id).await?;
    let (_, results) = games_of(state, &client, &tournament).await?;
    let view = StandingsView::of(&tournament, &results);
    Ok((tournament, view))
}

/// The standings so far, tiebreakers applied and named.
#[utoipa::path(get, path = "/v1/tournaments/{id}/standings", tag = "tournaments",
    params(("id" = String, Path)),
    responses(
        (status = 200, description = "Standings (JSON, or CSV with `Accept: text/csv`)", body = StandingsView),
        (status = 304, description = "Not modified since the ETag in If-None-Match"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/v1/tournaments/{id}/standings")]
pub async fn tournament_standings_route(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let format = respond::negotiate(&req, &[Format::Json, Format::Csv])?;
    let (_, view) = tournament_standings(&state, &id).await?;
    match format {
        Format::Csv => Ok(respond::csv(&req, standings_csv(&view), None)),
        _ => respond::json(&req, &view),
    }
}

fn standings_csv(view: &StandingsView) -> Vec<u8> {
    let mut out = String::from(
        "rank,player,status,points,points_exact,percent_gain,percent_gain_exact,best_result,games,wins,wins_exact,byes,title,decided_by\r\n",
    );
    for row in &view.rows {
        let fields = [
            row.rank.to_string(),
            row.player.clone(),
            row.status.clone(),
            // Decimals for people and spreadsheets (a fraction like 8/3 reads as a date);
            // the exact values in their own columns for tools.
            decimal(row.points_value),
            row.points.clone(),
            format!("{:.2}", row.percent_gain_pct),
            row.percent_gain.clone(),
            row.best_result.clone().unwrap_or_default(),
            row.games.to_string(),
            decimal(row.wins),
            row.wins_exact.clone(),
            row.byes.to_string(),
            row.title.clone(),
            row.decided_by.clone().unwrap_or_default(),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f).into_owned()).collect();
        out.push_str(&line.join(","));
        out.push_str("\r\n");
    }
    out.into_bytes()
}

// ---------------------------------------------------------------------------------------
// Calendar

/// The tournament's calendar (RFC 5545): one event per round deadline and one per
/// scheduled game (from its round's seating to the round's deadline).
#[utoipa::path(get, path = "/v1/tournaments/{id}/calendar.ics", tag = "tournaments",
    params(("id" = String, Path)),
    responses(
        (status = 200, description = "iCalendar", content_type = "text/calendar"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/v1/tournaments/{id}/calendar.ics")]
pub async fn tournament_calendar(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let tournament = load_tournament(&client, &id).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/calendar; charset=utf-8"))
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"tournament-{id}.ics\""),
        ))
        .body(calendar(&tournament, state.public_url.as_ref())))
}

/// The iCalendar text of a tournament. A game's event links to its page only when the
/// service knows its public address: a calendar application cannot open a bare path.
pub fn calendar(tournament: &Tournament, public_url: Option<&PublicUrl>) -> String {
    let created = &tournament.created;
    let stamp = ics_time(created.at);
    let mut lines = vec![
        "BEGIN:VCALENDAR".to_owned(),
        "VERSION:2.0".to_owned(),
        "PRODID:-//warlog//tournaments//EN".to_owned(),
        "CALSCALE:GREGORIAN".to_owned(),
        format!("X-WR-CALNAME:{}", ics_text(&created.name)),
    ];
    for (i, deadline) in created.deadlines.iter().enumerate() {
        let round = i + 1;
        lines.extend([
            "BEGIN:VEVENT".to_owned(),
            format!(
                "UID:round-{round}-deadline.{}@warlog",
                created.tournament_id
            ),
            format!("DTSTAMP:{stamp}"),
            format!("DTSTART:{}", ics_time(*deadline)),
            format!("DTEND:{}", ics_time(*deadline)),
            format!(
                "SUMMARY:{}",
                ics_text(&format!("{}: round {round} deadline", created.name))
            ),
            "END:VEVENT".to_owned(),
        ]);
    }
    let played = tournament.tables_as_played();
    for (round, tables) in tournament.rounds.iter().zip(&played) {
        let deadline = created.deadlines.get(round.round as usize - 1).copied();
        for game in &round.games {
            let seats = tables
                .iter()
                .find(|t| t.table == game.table)
                .map(|t| {
                    t.seats
                        .iter()
                        .map(|(p, who)| format!("{} ({})", who, p.name()))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            lines.extend([
                "BEGIN:VEVENT".to_owned(),
                format!("UID:game-{}@warlog", game.game_id),
                format!("DTSTAMP:{stamp}"),
                format!("DTSTART:{}", ics_time(round.at)),
                format!("DTEND:{}", ics_time(deadline.unwrap_or(round.at))),
                format!(
                    "SUMMARY:{}",
                    ics_text(&format!(
                        "{}: round {}, table {}",
                        created.name, round.round, game.table
                    ))
                ),
                format!("DESCRIPTION:{}", ics_text(&seats)),
            ]);
            if let Some(base) = public_url {
                lines.push(format!(
                    "URL:{}",
                    base.join(&format!("/games/{}", game.game_id))
                ));
            }
            lines.push("END:VEVENT".to_owned());
        }
    }
    lines.push("END:VCALENDAR".to_owned());
    let mut out = String::new();
    for line in lines {
        fold_line(&line, &mut out);
    }
    out
}

fn ics_time(at: Moment) -> String {
    i64::try_from(at.unix_seconds())
        .ok()
        .and_then(|s| OffsetDateTime::from_unix_timestamp(s).ok())
        .map(|t| {
            format!(
                "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
                t.year(),
                u8::from(t.month()),
                t.day(),
                t.hour(),
                t.minute(),
                t.second()
            )
        })
        .unwrap_or_default()
}

/// RFC 5545 TEXT: backslash, semicolon, comma and newline escaped.
fn ics_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | ';' | ',' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// Lines longer than 75 octets are folded (CRLF and a space), never inside a character.
fn fold_line(line: &str, out: &mut String) {
    let mut width = 0;
    for c in line.chars() {
        if width + c.len_utf8() > 75 {
            out.push_str("\r\n ");
            width = 1;
        }
        out.push(c);
        width += c.len_utf8();
    }
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_calendar_lines_fold_at_75_octets_without_splitting_a_character() {
        let mut out = String::new();
        let line = format!("SUMMARY:{}", "é".repeat(60));
        fold_line(&line, &mut out);
        for physical in out.split("\r\n").filter(|l| !l.is_empty()) {
            assert!(physical.len() <= 75, "{physical:?}");
        }
        let unfolded = out.replace("\r\n ", "");
        assert_eq!(unfolded, format!("{line}\r\n"));
    }

    #[test]
    fn calendar_text_escapes_commas_semicolons_and_newlines() {
        assert_eq!(ics_text("a,b;c\\d\ne"), "a\\,b\\;c\\\\d\\ne");
    }
}
