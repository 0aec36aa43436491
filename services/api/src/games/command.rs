//! A command to an existing game, as the one write path takes it: load the game, put the
//! command on the record (`OrdersGiven`) and have [`GameLog::decide_command`] decide it with
//! the game's seed (the same decision the auditor makes again), append, answer.

use actix_web::http::StatusCode;
use warlog_events::game::{GameLog, GameStreamEvent};
use warlog_events::orders::{Command, CutOff, Decided, DiceSupply, OrdersGiven, Refusal};
use warlog_events::StreamId;
use warlog_rules::dice::GameSeed;
use warlog_store::{AppendOutcome, ExpectedVersion, PooledClient};

use super::accepted::{accepted, summary_of};
use super::fold::load_for_command;
use super::reports::report_mails;
use crate::error::{refused, ApiError, ErrorCode};
use crate::mail_desk::MailDesk;
use crate::write::{Answer, Decision, SeedDuty, StreamAppend, Write, WriteRequest};
use crate::AppState;

/// A command, and for a turn text the line each of its orders comes from.
#[derive(Debug)]
pub struct Commanded {
    pub command: Command,
    pub lines: Option<Vec<usize>>,
}

/// What a request commands, read against the game it is given to: a fixed command, the
/// orders of a JSON request (normalised to the board's names, the power defaulting to the
/// one to act), or a turn text's lines.
pub trait Commanding {
    fn command(&self, log: &GameLog) -> Result<Commanded, ApiError>;
}

impl Commanding for Command {
    fn command(&self, _: &GameLog) -> Result<Commanded, ApiError> {
        Ok(Commanded {
            command: self.clone(),
            lines: None,
        })
    }
}

/// A command to the game on `stream`.
#[derive(Debug)]
pub struct GameCommand<C> {
    pub stream: StreamId,
    pub commanding: C,
}

/// What the answer to a game's command is made from.
pub struct GameDecided {
    stream: StreamId,
    before: GameLog,
    after: GameLog,
    events: Vec<GameStreamEvent>,
    cut_off: Option<CutOff>,
    lines: Option<Vec<usize>>,
    summary: Vec<String>,
}

impl<C: Commanding> Write for GameCommand<C> {
    type Loaded = (GameLog, GameSeed, std::sync::Arc<MailDesk>);
    type Decided = GameDecided;

    async fn load(
        &self,
        state: &AppState,
        client: &PooledClient,
        request: &WriteRequest,
        fresh: bool,
    ) -> Result<Self::Loaded, ApiError> {
        let log =
            load_for_command(client, &state.games, &self.stream, request.expected, fresh).await?;
        request.expected.check(log.version)?;
        let seed = state.games.seed(client, &self.stream).await?;
        Ok((log, seed, state.mail_desk.clone()))
    }

    fn decide(
        &self,
        (log, seed, desk): Self::Loaded,
        request: &WriteRequest,
    ) -> Result<Decision<GameDecided>, ApiError> {
        let Commanded { command, lines } = self.commanding.command(&log)?;
        let record = OrdersGiven {
            by_mail: request.by_mail.clone(),
            ..OrdersGiven::new(
                request.caller.sender(),
                log.version,
                request.moment(),
                command,
            )
        };
        let Decided {
            events,
            after,
            cut_off,
        } = log
            .decide_command(&record, DiceSupply::Seed(&seed))
            .map_err(|refusal| refusal_on_lines(refusal, lines.as_deref()))?;
        let reveals = events
            .iter()
            .any(|e| matches!(e, GameStreamEvent::SeedRevealed(_)));
        let append = StreamAppend {
            stream: self.stream.clone(),
            expected: ExpectedVersion::Exact(log.version),
            events: request.encode_with(&events, GameStreamEvent::encode)?,
            seed: if reveals {
                SeedDuty::Revealed
            } else {
                SeedDuty::None
            },
            mails: report_mails(&desk, &log, &events, &after),
            private: Vec::new(),
        };
        Ok(Decision {
            appends: vec![append],
            status: StatusCode::OK,
            decided: GameDecided {
                stream: self.stream.clone(),
                summary: summary_of(&log, &events),
                before: log,
                after,
                events,
                cut_off,
                lines,
            },
        })
    }

    fn committed(&self, state: &AppState, decided: GameDecided) {
        // The fold after the write answered it; now it saves the next command a read.
        state.games.put(&self.stream, decided.after);
    }
}

/// The answer to a game's command: what it appended, in words and as events, with the
/// battles among them and the order refused after dice, if one was.
impl Answer for GameDecided {
    fn answer(
        &self,
        appends: &[StreamAppend],
        outcomes: &[AppendOutcome],
    ) -> Result<serde_json::Value, ApiError> {
        let (Some(append), Some(outcome)) = (appends.first(), outcomes.first()) else {
            return Err(ApiError::new(
                ErrorCode::Internal,
                "a game write appended nothing",
            ));
        };
        accepted(
            &self.after,
            &self.stream,
            &append.events,
            &self.events,
            outcome,
            self.before.battles,
            self.cut_off.as_ref(),
            self.lines.as_deref(),
            self.summary.clone(),
        )
    }
}

/// A refusal, naming the line of a turn text its order came from.
fn refusal_on_lines(refusal: Refusal, lines: Option<&[usize]>) -> ApiError {
    let line = refusal
        .order_index()
        .and_then(|i| lines.and_then(|l| l.get(i).copied()));
    match (refusal, line) {
        (Refusal::Rule { violation, .. }, Some(line)) => {
            ApiError::rule_violation(&format!("line {line}"), &violation).on_line(line)
        }
        (refusal, _) => refused(refusal),
    }
}
