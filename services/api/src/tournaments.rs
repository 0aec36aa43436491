//! The command path of tournaments: a tournament folded from its stream, its games folded
//! from theirs, and [`write_tournament`], which decides a director's (or a player's)
//! command and appends the tournament's events, any new games and any games' events in one
//! write, through the one write path ([`crate::write::execute`]).

use actix_web::http::StatusCode;
use actix_web::HttpRequest;

use time::OffsetDateTime;
use warlog_events::game::{GameLog, GameStreamEvent};
use warlog_events::orders::{Command, DiceSupply, OrdersGiven};
use warlog_events::{StreamCategory, StreamId};
use warlog_league::standings::{result_of, GameResult};
use warlog_league::tournament::{
    Context, Tournament, TournamentCommand, TournamentEvent, TournamentViolation,
};
use warlog_rules::board::Power;
use warlog_rules::dice::GameSeed;
use warlog_rules::game::Moment;
use warlog_store::games::load_seed;
use warlog_store::{read_stream, ExpectedVersion, GenericClient, PooledClient};

use crate::auth::{Caller, Identity, Role};
use crate::error::corrupt;
use crate::error::{ApiError, ErrorCode};
use crate::games::{game_stream, load};
use crate::write::*;
use crate::AppState;
use warlog_league::constraints::SeatingConstraints;
use warlog_league::round_games::games_of_rounds;
use warlog_rules::ruleset::Ruleset;

const PAGE: u32 = 1000;

pub(crate) fn tournament_stream(id: &str) -> Result<StreamId, ApiError> {
    StreamId::of(StreamCategory::Tournament, id).map_err(|_| not_found(id))
}

pub(crate) fn not_found(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::TournamentNotFound,
        format!("no tournament {id:?}"),
    )
}

pub(crate) fn refused(violation: TournamentViolation) -> ApiError {
    ApiError::new(
        ErrorCode::TournamentRule,
        format!("{}: {}", violation.code, violation.message),
    )
}

pub(crate) fn moment_of(at: OffsetDateTime) -> Moment {
    Moment::from_unix_seconds(u64::try_from(at.unix_timestamp()).unwrap_or(0))
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
pub(crate) async fn games_of(
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
pub(crate) struct NewGame {
    pub(crate) stream: StreamId,
    pub(crate) seed: GameSeed,
    pub(crate) created: GameStreamEvent,
}

/// An existing game a tournament write appends to.
pub(crate) struct GameAppend {
    pub(crate) stream: StreamId,
    pub(crate) version: u64,
    pub(crate) events: Vec<GameStreamEvent>,
}

/// A director's command on one of the tournament's games, decided by the game's log and
/// put on its record, to append in the tournament's transaction.
pub(crate) fn on_the_record(
    request: &WriteRequest,
    log: &GameLog,
    command: Command,
) -> Result<GameAppend, ApiError> {
    let record = OrdersGiven::new(
        request.caller.sender(),
        log.version,
        request.moment(),
        command,
    );
    Ok(GameAppend {
        stream: game_stream(&log.created.game_id)?,
        version: log.version,
        events: log.decide_command(&record, DiceSupply::None)?.events,
    })
}

/// What a tournament write decides from.
pub(crate) struct Given<'a> {
    pub(crate) id: &'a str,
    pub(crate) tournament: &'a Tournament,
    /// The results of the tournament's games so far.
    pub(crate) results: &'a [GameResult],
    /// The tournament's games, folded.
    pub(crate) games: &'a [GameLog],
    pub(crate) seed: &'a GameSeed,
    pub(crate) at: Moment,
}

impl Given<'_> {
    /// A command that seats no tables.
    pub(crate) fn decide(
        &self,
        command: &TournamentCommand,
    ) -> Result<Vec<TournamentEvent>, ApiError> {
        self.decide_seating(command, &[], &mut String::new)
    }

    /// A command with the dice of the stream's next version, the ruleset's powers and a
    /// source of new game ids.
    pub(crate) fn decide_seating(
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
pub(crate) struct Decision {
    pub(crate) events: Vec<TournamentEvent>,
    pub(crate) new_games: Vec<NewGame>,
    pub(crate) game_appends: Vec<GameAppend>,
    /// The tournament's seed is revealed: noted in the secrets table.
    pub(crate) reveals_seed: bool,
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
/// events in one write; decided again once if the tournament moved on meanwhile.
pub(crate) async fn write_tournament<D, R>(
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
    let plan = async |client: &PooledClient| {
        let tournament = load_tournament(client, id).await?;
        require_director_or_self(request, &tournament)?;
        let (games, results) = games_of(state, client, &tournament).await?;
        let seed = load_seed(client, &stream)
            .await?
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
        let mut appends = vec![StreamAppend {
            stream: stream.clone(),
            expected: ExpectedVersion::Exact(tournament.version),
            events: request.encode_with(&decision.events, TournamentEvent::encode)?,
            seed: if decision.reveals_seed {
                SeedDuty::Revealed
            } else {
                SeedDuty::None
            },
        }];
        for game in decision.new_games {
            appends.push(StreamAppend {
                events: request.encode_with(&[game.created], GameStreamEvent::encode)?,
                stream: game.stream,
                expected: ExpectedVersion::NoStream,
                seed: SeedDuty::Save(game.seed),
            });
        }
        for game in decision.game_appends {
            appends.push(StreamAppend {
                events: request.encode_with(&game.events, GameStreamEvent::encode)?,
                stream: game.stream,
                expected: ExpectedVersion::Exact(game.version),
                seed: SeedDuty::None,
            });
        }
        Ok(Plan {
            appends,
            status,
            render: Box::new(move |_, _| Ok(body)),
            committed: None,
        })
    };
    execute(state, request, plan, |_| {
        ApiError::new(
            ErrorCode::VersionConflict,
            "the tournament moved on twice while this request was decided; send it again",
        )
    })
    .await
}

/// A write only an admin or a director may ask for.
pub(crate) fn directing(
    req: &HttpRequest,
    caller: &Caller,
    raw: &[u8],
    what: &str,
) -> Result<WriteRequest, ApiError> {
    let caller = caller.require()?;
    caller.require_role(&[Role::Admin, Role::Director], what)?;
    WriteRequest::of(req, caller, raw, Expected::Unstated)
}

/// Entries and drops may come from the player itself; everything else from the director.
pub(crate) fn require_director_or_self(
    request: &WriteRequest,
    tournament: &Tournament,
) -> Result<(), ApiError> {
    if request.caller.role == Role::Player {
        // Checked against the named player by the handler; a player never directs.
        return Ok(());
    }
    require_director(&request.caller, tournament)
}

/// Two players of the latest round swap seats: the tournament records the swap, and each
/// game the seat it gave (its own record, decided by it).
pub(crate) fn decide_swap(
    given: &Given<'_>,
    request: &WriteRequest,
    players: &[String; 2],
    reason: &str,
) -> Result<Decision, ApiError> {
    let events = given.decide(&TournamentCommand::SwapSeats {
        players: players.clone(),
        reason: reason.to_owned(),
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
            request,
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
}

/// A substitute takes an inactive player's seat: the game records the replacement (its own
/// 3-day rule must hold) and the tournament the appointment.
pub(crate) fn decide_substitution(
    given: &Given<'_>,
    request: &WriteRequest,
    game_id: &str,
    substitute: Option<String>,
) -> Result<Decision, ApiError> {
    let log = given
        .games
        .iter()
        .find(|g| g.created.game_id == game_id)
        .ok_or_else(|| {
            refused(TournamentViolation {
                code: "not-a-tournament-game",
                message: format!("game {} is not one of this tournament's", game_id),
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
        game_id: game_id.to_owned(),
        power,
        replaced,
        substitute,
    })?;
    let Some(TournamentEvent::SubstituteAppointed(appointed)) = events.first() else {
        return Err(ApiError::new(ErrorCode::Internal, "no appointment decided"));
    };
    // On the game's record too: the auditor decides the substitution again.
    let append = on_the_record(
        request,
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
}

/// Seats the next round: the tables from the tournament's seed, and a new game for each,
/// with a fresh seed of its own, created in the same write.
pub(crate) fn decide_seating(
    given: &Given<'_>,
    request: &WriteRequest,
    constraints: &SeatingConstraints,
) -> Result<Decision, ApiError> {
    let tournament = given.tournament;
    let ruleset = Ruleset::builtin(&tournament.created.ruleset).map_err(corrupt)?;
    let events = given.decide_seating(
        &TournamentCommand::SeatRound(constraints.clone()),
        ruleset.powers(),
        &mut new_id,
    )?;
    let games = games_of_rounds(tournament, ruleset, &events, request.moment(), fresh_seed)?;
    let new_games = games
        .into_iter()
        .map(|game| {
            Ok(NewGame {
                stream: game_stream(&game.game_id)?,
                seed: game.seed,
                created: GameStreamEvent::Created(game.created),
            })
        })
        .collect::<Result<_, ApiError>>()?;
    Ok(Decision {
        events,
        new_games,
        ..Decision::default()
    })
}
