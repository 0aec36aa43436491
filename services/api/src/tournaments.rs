//! The command path of tournaments: a tournament folded from its stream, its games folded
//! from theirs, and [`TournamentWrite`], which has the league decide a command
//! (`Tournament::decide`: who may give it, the rules, the tournament after it, what its
//! games are to record), has each game decide its part on its own record
//! (`GameLog::decide_command`), and appends the tournament's events, any new games and any
//! games' events in one write, through the one write path ([`crate::write::run`]).

use actix_web::http::StatusCode;

use time::OffsetDateTime;
use warlog_events::game::{GameLog, GameStreamEvent};
use warlog_events::orders::{DiceSupply, OrdersGiven};
use warlog_events::{StreamCategory, StreamId};
use warlog_league::standings::{result_of, GameResult};
use warlog_league::tournament::{
    Context, GameCommand, Tournament, TournamentCommand, TournamentEvent,
};
use warlog_rules::dice::GameSeed;
use warlog_rules::game::Moment;
use warlog_store::seeds::load_seed;
use warlog_store::{read_stream, ExpectedVersion, GenericClient, PooledClient};

use crate::auth::Identity;
use crate::error::corrupt;
use crate::error::{ApiError, ErrorCode};
use crate::games::{game_stream, load};
use crate::write::{fresh_seed, new_id, SeedDuty, StreamAppend, Write, WriteRequest};
use crate::AppState;
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

/// The tournament routes answer the league's refusals as every refusal is answered.
pub(crate) use crate::error::refused;

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

/// The director of this tournament, or an admin (the league's rule, `Tournament::may_direct`).
pub(crate) fn require_director(caller: &Identity, tournament: &Tournament) -> Result<(), ApiError> {
    tournament.may_direct(&caller.sender()).map_err(refused)
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

/// A command the tournament gives one of its games, decided by the game's log and put on
/// its record, to append in the tournament's transaction.
fn on_the_record(
    request: &WriteRequest,
    games: &[GameLog],
    game_command: GameCommand,
) -> Result<GameAppend, ApiError> {
    let log = games
        .iter()
        .find(|g| g.created.game_id == game_command.game_id)
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::Internal,
                format!("game {} of the tournament is gone", game_command.game_id),
            )
        })?;
    let record = OrdersGiven::new(
        request.caller.sender(),
        log.version,
        request.moment(),
        game_command.command,
    );
    Ok(GameAppend {
        stream: game_stream(&log.created.game_id)?,
        version: log.version,
        events: log.decide_command(&record, DiceSupply::None)?.events,
    })
}

/// What a tournament command is made from.
pub(crate) struct Given<'a> {
    pub(crate) tournament: &'a Tournament,
    /// The tournament's games, folded.
    pub(crate) games: &'a [GameLog],
    pub(crate) seed: &'a GameSeed,
}

/// What a tournament write appends: the league's decision, the games a seated round
/// creates, and the records the tournament's commands put on its games.
pub(crate) struct Decision {
    pub(crate) events: Vec<TournamentEvent>,
    /// The tournament after the events, as the league applied them.
    pub(crate) after: Tournament,
    new_games: Vec<NewGame>,
    game_appends: Vec<GameAppend>,
}

/// Decides `command` in the league (the sender's right, the rules, what the games are to
/// record), then has each game decide its part, and creates the games of a seated round,
/// each with a fresh seed.
fn decide(
    id: &str,
    request: &WriteRequest,
    tournament: &Tournament,
    (games, results): (&[GameLog], &[GameResult]),
    seed: &GameSeed,
    command: &TournamentCommand,
) -> Result<Decision, ApiError> {
    let ruleset = Ruleset::builtin(&tournament.created.ruleset).map_err(corrupt)?;
    let mut dice = seed.dice_for(id, tournament.version + 1);
    let decided = tournament
        .decide(
            command,
            &mut Context {
                sender: &request.caller.sender(),
                at: request.moment(),
                dice: &mut dice,
                results,
                powers: ruleset.powers(),
                new_game_id: &mut new_id,
            },
        )
        .map_err(refused)?;
    let new_games = games_of_rounds(
        tournament,
        ruleset,
        &decided.events,
        request.moment(),
        fresh_seed,
    )?
    .into_iter()
    .map(|game| {
        Ok(NewGame {
            stream: game_stream(&game.game_id)?,
            seed: game.seed,
            created: GameStreamEvent::Created(game.created),
        })
    })
    .collect::<Result<_, ApiError>>()?;
    let game_appends = decided
        .game_commands
        .into_iter()
        .map(|game_command| on_the_record(request, games, game_command))
        .collect::<Result<_, _>>()?;
    Ok(Decision {
        events: decided.events,
        after: decided.after,
        new_games,
        game_appends,
    })
}

/// A tournament command as a request asks it: the command, given the tournament as it
/// stands, and how the answer reads.
pub(crate) trait TournamentOrder {
    /// The answer's status.
    const STATUS: StatusCode;

    fn command(
        &self,
        given: &Given<'_>,
        request: &WriteRequest,
    ) -> Result<TournamentCommand, ApiError>;

    fn answer(
        &self,
        decision: &Decision,
        results: &[GameResult],
    ) -> Result<serde_json::Value, ApiError>;
}

/// A command to the tournament `id`, through the one write path: the tournament and its
/// games folded, the command decided by the league and each game's part by the game, and
/// the tournament's events, any new games and any games' events appended in one write.
pub(crate) struct TournamentWrite<T> {
    pub(crate) id: String,
    pub(crate) order: T,
}

/// A tournament as a command finds it: folded, with its games, their results and its seed.
pub(crate) struct TournamentLoaded {
    tournament: Tournament,
    games: Vec<GameLog>,
    results: Vec<GameResult>,
    seed: GameSeed,
}

impl<T: TournamentOrder> Write for TournamentWrite<T> {
    type Loaded = TournamentLoaded;
    /// The answer, made from the decision before its events are encoded.
    type Decided = serde_json::Value;

    async fn load(
        &self,
        state: &AppState,
        client: &PooledClient,
        _: &WriteRequest,
        _: bool,
    ) -> Result<TournamentLoaded, ApiError> {
        let tournament = load_tournament(client, &self.id).await?;
        let (games, results) = games_of(state, client, &tournament).await?;
        let stream = tournament_stream(&self.id)?;
        let seed = load_seed(client, &stream)
            .await?
            .ok_or_else(|| ApiError::new(ErrorCode::Internal, format!("{stream} has no seed")))?;
        Ok(TournamentLoaded {
            tournament,
            games,
            results,
            seed,
        })
    }

    fn decide(
        &self,
        loaded: TournamentLoaded,
        request: &WriteRequest,
    ) -> Result<crate::write::Decision<serde_json::Value>, ApiError> {
        let TournamentLoaded {
            tournament,
            games,
            results,
            seed,
        } = loaded;
        let command = self.order.command(
            &Given {
                tournament: &tournament,
                games: &games,
                seed: &seed,
            },
            request,
        )?;
        let decision = decide(
            &self.id,
            request,
            &tournament,
            (&games, &results),
            &seed,
            &command,
        )?;
        let body = self.order.answer(&decision, &results)?;
        let reveals_seed = decision
            .events
            .iter()
            .any(|e| matches!(e, TournamentEvent::TournamentFinished { .. }));
        let mut appends = vec![StreamAppend {
            stream: tournament_stream(&self.id)?,
            expected: ExpectedVersion::Exact(tournament.version),
            events: request.encode_with(&decision.events, TournamentEvent::encode)?,
            seed: if reveals_seed {
                SeedDuty::Revealed
            } else {
                SeedDuty::None
            },
            mails: Vec::new(),
            private: Vec::new(),
        }];
        for game in decision.new_games {
            appends.push(StreamAppend::new_with_seed(
                game.stream,
                request.encode_with(&[game.created], GameStreamEvent::encode)?,
                game.seed,
            ));
        }
        for game in decision.game_appends {
            appends.push(StreamAppend {
                events: request.encode_with(&game.events, GameStreamEvent::encode)?,
                stream: game.stream,
                expected: ExpectedVersion::Exact(game.version),
                seed: SeedDuty::None,
                mails: Vec::new(),
                private: Vec::new(),
            });
        }
        Ok(crate::write::Decision {
            appends,
            status: T::STATUS,
            decided: body,
        })
    }

    fn moved_on(&self, _: u64) -> ApiError {
        ApiError::new(
            ErrorCode::VersionConflict,
            "the tournament moved on twice while this request was decided; send it again",
        )
    }
}
