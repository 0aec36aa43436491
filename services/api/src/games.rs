//! The command path of games (DESIGN.md, "The dice"; issue 5): the folded games and their
//! cache, and each game write's plan for the one write path ([`crate::write::execute`]):
//! load the game, check the stated version, decide the command with the game's seed, and
//! say what to append and how to answer.
//!
//! Handlers stay thin: they parse and authorise, hand the command to [`write`] (or the
//! entrants to [`create`]), and render. The seed is read here and handed to the domain; it
//! never reaches a response.

use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use actix_web::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;
use warlog_events::game::{GameLog, GameStreamEvent};
use warlog_events::orders::{order_at, Command, CutOff, Decided, DiceSupply, OrdersGiven, Refusal};
use warlog_events::{NewEvent, RecordedEvent, StreamId};
use warlog_rules::dice::GameSeed;
use warlog_rules::game::{words, GameEvent};
use warlog_store::games::load_seed;
use warlog_store::{read_stream, AppendOutcome, ExpectedVersion, GenericClient, PooledClient};

use crate::error::{corrupt, ApiError, ErrorCode};
use crate::views::{battle_view, BattleView, EventView};
use crate::write::{
    execute, fresh_seed, new_id, Expected, Plan, SeedDuty, StreamAppend, WriteAnswer, WriteRequest,
};
use crate::AppState;

/// Folded games by stream, so a command reads only the events since the last one.
/// Events never change, so a cached prefix stays true; the cache is bounded by emptying it.
#[derive(Debug, Default)]
pub struct GameCache {
    latest: Mutex<HashMap<StreamId, GameLog>>,
    /// Boards at past versions (`?version=N`), so stepping through a long game's history
    /// folds each step from the nearest earlier one, not from its start.
    snapshots: Mutex<HashMap<(StreamId, u64), GameLog>>,
    /// Seeds never change: a command reads its game's once. They stay in this process,
    /// like the folds; no answer carries one before its reveal.
    seeds: Mutex<HashMap<StreamId, GameSeed>>,
    /// What the game page and the battle list read from the whole log, read up to a
    /// version and carried on from there.
    chronicles: Mutex<HashMap<StreamId, Arc<Chronicle>>>,
}

/// Every battle and every phase's end of a game up to its fold's version. A log never
/// changes below its head, so a later read folds only the events appended since.
#[derive(Debug, Clone)]
pub struct Chronicle {
    log: GameLog,
    /// Numbered from 1, in order; shared, so carrying a chronicle on copies no listing.
    pub battles: Vec<Arc<BattleView>>,
    /// Where each phase ended: (version, power, phase), in order.
    pub phases: Vec<PhaseEnd>,
    /// Each power's orders on the record, in the turn notation, in order.
    pub orders: Vec<Arc<OrdersWritten>>,
}

/// A command of orders on the record, as players write them.
#[derive(Debug, Clone)]
pub struct OrdersWritten {
    /// The record's version.
    pub version: u64,
    pub power: warlog_rules::board::Power,
    /// Who sent them: `ann`, `cy, ann's proxy`, or `the game master alice`.
    pub by: String,
    /// One line an order ([`warlog_rules::notation::render_order`]).
    pub lines: Vec<String>,
    /// The order refused after a die, and why, if the command was cut off there.
    pub refused: Option<String>,
}

impl OrdersWritten {
    fn of(version: u64, given: &OrdersGiven) -> Option<Self> {
        let Command::Orders { power, orders } = &given.command else {
            return None;
        };
        let by = match (given.sender.role, &given.proxy_for) {
            (warlog_events::sender::Role::Player, Some(player)) => {
                format!("{}, {player}'s proxy", given.sender.name)
            }
            (warlog_events::sender::Role::Player, None) => given.sender.name.clone(),
            (role, _) => format!("{} {}", role.describe(), given.sender.name),
        };
        Some(OrdersWritten {
            version,
            power: *power,
            by,
            lines: orders
                .iter()
                .map(warlog_rules::notation::render_order)
                .collect(),
            refused: given.cut_off.as_ref().map(|cut| {
                format!(
                    "{} was refused after a die: {}",
                    warlog_rules::notation::render_order(&cut.order),
                    cut.message
                )
            }),
        })
    }
}

/// Where a phase ended: the `PhaseEnded` event's version, whose phase it was.
pub type PhaseEnd = (u64, warlog_rules::board::Power, warlog_rules::game::Phase);

impl Chronicle {
    /// The version read up to.
    pub fn version(&self) -> u64 {
        self.log.version
    }

    /// Takes in the next event of the log.
    fn record(kept: Option<Chronicle>, event: &RecordedEvent) -> Result<Chronicle, ApiError> {
        let decoded = warlog_events::game::decode_recorded(event).map_err(corrupt)?;
        let Some(mut chronicle) = kept else {
            let GameStreamEvent::Created(created) = decoded else {
                return Err(corrupt("the stream does not start with GameCreated"));
            };
            return Ok(Chronicle {
                log: GameLog::new(created).map_err(corrupt)?,
                battles: Vec::new(),
                phases: Vec::new(),
                orders: Vec::new(),
            });
        };
        if let GameStreamEvent::Orders(given) = &decoded {
            if let Some(written) = OrdersWritten::of(event.stream_version, given) {
                chronicle.orders.push(Arc::new(written));
            }
        }
        if let GameStreamEvent::Played(played) = &decoded {
            let before = &chronicle.log;
            if let warlog_rules::game::GameEvent::PhaseEnded { power, phase, .. } = played {
                chronicle
                    .phases
                    .push((event.stream_version, *power, *phase));
            }
            let number = chronicle.battles.len() + 1;
            if let Some(view) = battle_view(
                before.ruleset,
                number,
                event.stream_version,
                before.state.round,
                played,
            ) {
                chronicle.battles.push(Arc::new(view));
            }
        }
        chronicle
            .log
            .apply(event.stream_version, &decoded)
            .map_err(corrupt)?;
        Ok(chronicle)
    }
}

/// Chronicles kept (of the games read lately); emptied when full, like the folds.
const CHRONICLE_LIMIT: usize = 256;

const CACHE_LIMIT: usize = 2048;
/// Past versions kept; emptied when full, like the latest folds.
const SNAPSHOT_LIMIT: usize = 512;

/// Keeps `value` under `key`, emptying a full map first (a bound without bookkeeping).
fn keep_bounded<K: std::hash::Hash + Eq, V>(
    map: &Mutex<HashMap<K, V>>,
    limit: usize,
    key: K,
    value: V,
) {
    let Ok(mut map) = map.lock() else { return };
    if map.len() >= limit && !map.contains_key(&key) {
        map.clear();
    }
    map.insert(key, value);
}

impl GameCache {
    /// The cached fold of `stream` nearest at or before `version`.
    fn nearest(&self, stream: &StreamId, version: u64) -> Option<GameLog> {
        let latest = self.get(stream).filter(|log| log.version <= version);
        let snapshot = self.snapshots.lock().ok().and_then(|snapshots| {
            snapshots
                .iter()
                .filter(|((s, v), _)| s == stream && *v <= version)
                .max_by_key(|((_, v), _)| *v)
                .map(|(_, log)| log.clone())
        });
        [latest, snapshot]
            .into_iter()
            .flatten()
            .max_by_key(|log| log.version)
    }

    fn keep(&self, stream: &StreamId, log: &GameLog) {
        keep_bounded(
            &self.snapshots,
            SNAPSHOT_LIMIT,
            (stream.clone(), log.version),
            log.clone(),
        );
    }

    fn get(&self, stream: &StreamId) -> Option<GameLog> {
        self.latest.lock().ok()?.get(stream).cloned()
    }

    /// Keeps a fold unless a newer one of the game is kept already (checked and kept under
    /// one lock, so a slower writer never puts an older fold back).
    fn put(&self, stream: &StreamId, log: GameLog) {
        let Ok(mut games) = self.latest.lock() else {
            return;
        };
        if games.get(stream).is_some_and(|g| g.version >= log.version) {
            return;
        }
        if games.len() >= CACHE_LIMIT && !games.contains_key(stream) {
            games.clear();
        }
        games.insert(stream.clone(), log);
    }

    /// Empties every cache but the seeds (a benchmark's cold start).
    pub fn clear(&self) {
        if let Ok(mut map) = self.latest.lock() {
            map.clear();
        }
        if let Ok(mut map) = self.snapshots.lock() {
            map.clear();
        }
        if let Ok(mut map) = self.chronicles.lock() {
            map.clear();
        }
    }

    /// A game's seed, read once.
    async fn seed(
        &self,
        client: &impl GenericClient,
        stream: &StreamId,
    ) -> Result<GameSeed, ApiError> {
        if let Some(seed) = self.seeds.lock().ok().and_then(|s| s.get(stream).cloned()) {
            return Ok(seed);
        }
        let seed = load_seed(client, stream)
            .await?
            .ok_or_else(|| ApiError::new(ErrorCode::Internal, format!("{stream} has no seed")))?;
        keep_bounded(&self.seeds, CACHE_LIMIT, stream.clone(), seed.clone());
        Ok(seed)
    }
}

/// A game's stream id from the id in a path.
pub fn game_stream(game_id: &str) -> Result<StreamId, ApiError> {
    StreamId::of(warlog_events::StreamCategory::Game, game_id)
        .map_err(|_| ApiError::new(ErrorCode::GameNotFound, format!("no game {game_id:?}")))
}

fn not_found(stream: &StreamId) -> ApiError {
    ApiError::new(
        ErrorCode::GameNotFound,
        format!(
            "no game {}",
            stream.as_str().strip_prefix("game-").unwrap_or_default()
        ),
    )
}

const PAGE: u32 = 1000;

/// The game as of its latest event.
pub async fn load(
    client: &impl GenericClient,
    cache: &GameCache,
    stream: &StreamId,
) -> Result<GameLog, ApiError> {
    let cached = cache.get(stream);
    let log = fold_from(client, stream, cached, None).await?;
    cache.put(stream, log.clone());
    Ok(log)
}

/// The game to decide a command on. Without a fresh read when the cache holds it and the
/// client stated nothing else: the append is at the cached version, so a cache behind the
/// log (another instance wrote) loses the race and the command is decided again, `fresh`.
async fn load_for_command(
    client: &impl GenericClient,
    cache: &GameCache,
    stream: &StreamId,
    expected: Expected,
    fresh: bool,
) -> Result<GameLog, ApiError> {
    let cached = (!fresh).then(|| cache.get(stream)).flatten();
    match (cached, expected) {
        (Some(log), Expected::Unstated) => Ok(log),
        (Some(log), Expected::Body(v) | Expected::IfMatch(v)) if v == log.version => Ok(log),
        _ => load(client, cache, stream).await,
    }
}

/// The game as of its first `version` events (the board at any point), folded from the
/// nearest earlier fold the cache holds.
pub async fn load_at(
    client: &impl GenericClient,
    cache: &GameCache,
    stream: &StreamId,
    version: u64,
) -> Result<GameLog, ApiError> {
    let log = fold_from(
        client,
        stream,
        cache.nearest(stream, version),
        Some(version),
    )
    .await?;
    cache.keep(stream, &log);
    Ok(log)
}

async fn fold_from(
    client: &impl GenericClient,
    stream: &StreamId,
    mut log: Option<GameLog>,
    until: Option<u64>,
) -> Result<GameLog, ApiError> {
    loop {
        let from = log.as_ref().map_or(1, |l| l.version + 1);
        if until.is_some_and(|u| from > u) {
            break;
        }
        let events = read_stream(client, stream, from, PAGE).await?;
        let full_page = events.len() == PAGE as usize;
        for event in events
            .iter()
            .filter(|e| until.is_none_or(|u| e.stream_version <= u))
        {
            log = Some(fold_one(log, event)?);
        }
        if !full_page {
            break;
        }
    }
    log.ok_or_else(|| not_found(stream))
}

fn fold_one(log: Option<GameLog>, event: &RecordedEvent) -> Result<GameLog, ApiError> {
    let decoded = warlog_events::game::decode_recorded(event).map_err(corrupt)?;
    match (log, decoded) {
        (None, GameStreamEvent::Created(created)) => GameLog::new(created).map_err(corrupt),
        (None, _) => Err(corrupt("the stream does not start with GameCreated")),
        (Some(mut log), decoded) => {
            log.apply(event.stream_version, &decoded).map_err(corrupt)?;
            Ok(log)
        }
    }
}

/// A game's battles and phase ends as of its latest event: the kept chronicle carried on
/// by the events appended since (none read when there are none).
pub async fn chronicle(
    client: &impl GenericClient,
    cache: &GameCache,
    stream: &StreamId,
) -> Result<Arc<Chronicle>, ApiError> {
    let kept = cache
        .chronicles
        .lock()
        .ok()
        .and_then(|c| c.get(stream).cloned());
    let from = kept.as_ref().map_or(1, |c| c.version() + 1);
    let events = read_events(client, stream, from..=u64::MAX).await?;
    if events.is_empty() {
        return kept.ok_or_else(|| not_found(stream));
    }
    let mut chronicle = kept.map(Arc::unwrap_or_clone);
    for event in &events {
        chronicle = Some(Chronicle::record(chronicle, event)?);
    }
    let chronicle = Arc::new(chronicle.ok_or_else(|| not_found(stream))?);
    // Its fold is the game's latest: a read of the game after it reads nothing again.
    cache.put(stream, chronicle.log.clone());
    if let Ok(mut kept) = cache.chronicles.lock() {
        // Never an older chronicle over a newer one a faster reader kept.
        if kept
            .get(stream)
            .is_none_or(|c| c.version() < chronicle.version())
        {
            if kept.len() >= CHRONICLE_LIMIT && !kept.contains_key(stream) {
                kept.clear();
            }
            kept.insert(stream.clone(), chronicle.clone());
        }
    }
    Ok(chronicle)
}

/// Every event of a stream, in order.
pub async fn read_all_events(
    client: &impl GenericClient,
    stream: &StreamId,
) -> Result<Vec<RecordedEvent>, ApiError> {
    read_events(client, stream, 1..=u64::MAX).await
}

/// A stream's events with versions in `versions`, in order, read a page at a time.
pub async fn read_events(
    client: &impl GenericClient,
    stream: &StreamId,
    versions: std::ops::RangeInclusive<u64>,
) -> Result<Vec<RecordedEvent>, ApiError> {
    let (first, last) = (*versions.start(), *versions.end());
    let mut all: Vec<RecordedEvent> = Vec::new();
    loop {
        let from = all.last().map_or(first, |e| e.stream_version + 1);
        let page = read_stream(client, stream, from, PAGE).await?;
        let done =
            page.len() < PAGE as usize || page.last().is_some_and(|e| e.stream_version >= last);
        all.extend(page.into_iter().take_while(|e| e.stream_version <= last));
        if done {
            return Ok(all);
        }
    }
}

/// What a write appended.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WriteAccepted {
    pub game_id: String,
    /// The game's version after the write.
    pub version: u64,
    /// What the write did, in words, a sentence an event.
    pub summary: Vec<String>,
    pub events: Vec<EventView>,
    /// The battles and raids among them, with their listings.
    pub battles: Vec<BattleView>,
    /// Present when an order was refused after an earlier order of the same request had
    /// rolled dice: a die once rolled counts, so the orders before the refused one are
    /// appended with their dice, and it and the orders after it are not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<RefusedAfterDice>,
}

/// An order refused after dice were rolled earlier in its request.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RefusedAfterDice {
    /// The refused order's place in the request's `orders` (from 0; for a turn text,
    /// among the orders its lines made).
    pub index: usize,
    /// For a turn text: the line (from 1) of the refused order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The refusal's stable code, as in a `rule-violation` problem.
    pub code: String,
    /// The rule it breaks.
    pub rule: String,
    /// In words: what was refused and why, and what was appended.
    pub detail: String,
    /// The first order of the request that rolled dice.
    pub rolled_by: usize,
    /// How many orders after the refused one were not carried out (sent again, they are
    /// decided on the board as it is now).
    pub not_decided: usize,
}

impl RefusedAfterDice {
    /// `lines`: for a turn text, the line each order came from.
    fn of(cut: &CutOff, lines: Option<&[usize]>) -> Self {
        let line_of = |i: usize| lines.and_then(|l| l.get(i).copied());
        let name = |i: usize| match line_of(i) {
            Some(line) => format!("line {line}"),
            None => order_at(i),
        };
        let carried = match (cut.index, line_of(0), line_of(cut.index)) {
            (n, Some(first), refused) => {
                // The last line carried out whole; the refused line's phase ends may have
                // stood without it.
                let whole = (0..n)
                    .rev()
                    .filter_map(line_of)
                    .find(|l| Some(*l) != refused);
                let ended = line_of(n - 1).is_some() && line_of(n - 1) == refused;
                let lines = match whole {
                    Some(last) if last == first => {
                        format!("line {first} was carried out and stands")
                    }
                    Some(last) => format!("lines {first} to {last} were carried out and stand"),
                    None => String::new(),
                };
                match (lines.is_empty(), ended, refused) {
                    (false, true, Some(r)) => {
                        format!("{lines}, and the phases before line {r} ended")
                    }
                    (true, _, Some(r)) => format!("the phases before line {r} ended"),
                    _ => lines,
                }
            }
            (1, None, _) => "orders[0] was carried out and stands".to_owned(),
            (2, None, _) => "orders[0] and orders[1] were carried out and stand".to_owned(),
            (n, None, _) => format!("orders[0] to orders[{}] were carried out and stand", n - 1),
        };
        let rest = match (cut.not_decided, lines.is_some()) {
            (0, _) => String::new(),
            (_, true) => " The lines after it were not carried out; send them again if they \
                          still apply."
                .to_owned(),
            (1, false) => {
                " The order after it was not carried out; send it again if it still applies."
                    .to_owned()
            }
            (n, false) => format!(
                " The {n} orders after it were not carried out; send them again if they still \
                 apply."
            ),
        };
        RefusedAfterDice {
            index: cut.index,
            line: line_of(cut.index),
            code: cut.violation.code.as_str().to_owned(),
            rule: cut.violation.rule.to_owned(),
            detail: format!(
                "{} was refused: {} ({}). {carried}: {} rolled dice, and dice once rolled \
                 count.{rest}",
                name(cut.index),
                cut.violation.message,
                cut.violation.rule,
                name(cut.rolled_by)
            ),
            rolled_by: cut.rolled_by,
            not_decided: cut.not_decided,
        }
    }
}

/// What a write did, in words, from the game before it (so battles name their losses).
fn summary_of(before: &GameLog, decided: &[GameStreamEvent]) -> Vec<String> {
    let played: Vec<GameEvent> = decided
        .iter()
        .filter_map(|event| match event {
            GameStreamEvent::Played(played) => Some(played.clone()),
            _ => None,
        })
        .collect();
    let mut summary = words::summary(before.ruleset.rules(), Some(&before.state), &played);
    if decided
        .iter()
        .any(|e| matches!(e, GameStreamEvent::SeedRevealed(_)))
    {
        summary.push("The dice seed was revealed: every die can be checked now.".to_owned());
    }
    summary
}

#[allow(clippy::too_many_arguments)]
fn accepted(
    after: &GameLog,
    stream: &StreamId,
    events: &[NewEvent],
    decided: &[GameStreamEvent],
    outcome: &AppendOutcome,
    battles_before: usize,
    cut_off: Option<&CutOff>,
    lines: Option<&[usize]>,
    summary: Vec<String>,
) -> Result<serde_json::Value, ApiError> {
    let views: Vec<EventView> = events
        .iter()
        .zip(&outcome.events)
        .map(|(new, at)| EventView::appended(stream, new, at))
        .collect();
    let mut battles = Vec::new();
    for (event, at) in decided.iter().zip(&outcome.events) {
        if let GameStreamEvent::Played(played) = event {
            let number = battles_before + battles.len() + 1;
            if let Some(view) = battle_view(
                after.ruleset,
                number,
                at.stream_version,
                after.state.round,
                played,
            ) {
                battles.push(view);
            }
        }
    }
    serde_json::to_value(WriteAccepted {
        game_id: after.created.game_id.clone(),
        version: after.version,
        summary,
        events: views,
        battles,
        refused: cut_off.map(|cut| RefusedAfterDice::of(cut, lines)),
    })
    .map_err(corrupt)
}

/// A command, and for a turn text the line each of its orders comes from.
#[derive(Debug)]
pub struct Commanded {
    pub command: Command,
    pub lines: Option<Vec<usize>>,
}

/// Writes a command to an existing game: `command` reads the folded game and says what is
/// commanded; the command is put on the record (`OrdersGiven`) and decided with the game's
/// seed by [`GameLog::decide_command`], the same decision the auditor makes again.
pub async fn write(
    state: &AppState,
    stream: &StreamId,
    request: &WriteRequest,
    command: impl Fn(&GameLog) -> Result<Command, ApiError>,
) -> Result<WriteAnswer, ApiError> {
    write_commanded(state, stream, request, |log| {
        Ok(Commanded {
            command: command(log)?,
            lines: None,
        })
    })
    .await
}

/// [`write`], for a command that may come from the lines of a turn text: its refusals and
/// its answer name lines, not places among orders.
pub async fn write_commanded(
    state: &AppState,
    stream: &StreamId,
    request: &WriteRequest,
    command: impl Fn(&GameLog) -> Result<Commanded, ApiError>,
) -> Result<WriteAnswer, ApiError> {
    let decided_before = Cell::new(false);
    let plan = async |client: &PooledClient| {
        // Decided again after a lost race: from a fresh read, not the cache.
        let fresh = decided_before.replace(true);
        let log = load_for_command(client, &state.games, stream, request.expected, fresh).await?;
        request.expected.check(log.version)?;
        let seed = state.games.seed(client, stream).await?;
        let Commanded { command, lines } = command(&log)?;
        let record = OrdersGiven::new(
            request.caller.sender(),
            log.version,
            request.moment(),
            command,
        );
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
        let summary = summary_of(&log, &events);
        let append = StreamAppend {
            stream: stream.clone(),
            expected: ExpectedVersion::Exact(log.version),
            events: request.encode_with(&events, GameStreamEvent::encode)?,
            seed: if reveals {
                SeedDuty::Revealed
            } else {
                SeedDuty::None
            },
        };
        // The fold after the write answers it, then goes to the cache: shared, not copied.
        let after = Rc::new(after);
        let (kept, cache, game) = (after.clone(), state.games.clone(), stream.clone());
        let (answered, battles_before) = (stream.clone(), log.battles);
        Ok(Plan {
            appends: vec![append],
            status: StatusCode::OK,
            render: Box::new(move |appends, outcomes| {
                accepted(
                    &after,
                    &answered,
                    &appends[0].events,
                    &events,
                    &outcomes[0],
                    battles_before,
                    cut_off.as_ref(),
                    lines.as_deref(),
                    summary,
                )
            }),
            committed: Some(Box::new(move || {
                cache.put(
                    &game,
                    Rc::try_unwrap(kept).unwrap_or_else(|log| (*log).clone()),
                );
            })),
        })
    };
    execute(state, request, plan, |current| {
        Expected::Unstated.mismatch(current)
    })
    .await
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
        (refusal, _) => refusal.into(),
    }
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Forbidden(why) => ApiError::new(ErrorCode::Forbidden, why),
            Refusal::Name(error) => error.into(),
            Refusal::Rule { at, violation } => ApiError::rule_violation(&at, &violation),
            Refusal::Version { expected, actual } => ApiError::new(
                ErrorCode::VersionConflict,
                format!("the request was written for version {expected}; the game is at version {actual}"),
            )
            .with_current_version(actual),
            Refusal::Malformed(why) => ApiError::malformed(why),
        }
    }
}

/// Creates a game: a fresh seed from the OS, the seats drawn from it, `GameCreated`.
pub async fn create(
    state: &AppState,
    request: &WriteRequest,
    ruleset: &'static warlog_rules::ruleset::Ruleset,
    entrants: warlog_events::game::Entrants,
    tournament: Option<String>,
) -> Result<WriteAnswer, ApiError> {
    let plan = async |_: &PooledClient| {
        let seed = fresh_seed()?;
        let game_id = new_id();
        let created = GameLog::create(
            ruleset,
            &game_id,
            entrants.clone(),
            request.caller.name.clone(),
            tournament.clone(),
            request.moment(),
            &seed,
        )
        .map_err(|v| ApiError::rule_violation("players", &v))?;
        warlog_events::orders::may_create(&created, &request.caller.sender())
            .map_err(|why| ApiError::new(ErrorCode::Forbidden, why))?;
        let view = crate::views::GameView::of(&GameLog::new(created.clone()).map_err(corrupt)?);
        let append = StreamAppend {
            stream: game_stream(&game_id)?,
            expected: ExpectedVersion::NoStream,
            events: request.encode_with(
                &[GameStreamEvent::Created(created)],
                GameStreamEvent::encode,
            )?,
            seed: SeedDuty::Save(seed),
        };
        Ok(Plan::single(append, StatusCode::CREATED, view))
    };
    execute(state, request, plan, |_| {
        ApiError::new(ErrorCode::Internal, "a new game id was taken")
    })
    .await
}
