//! The events of a `game-<id>` stream as stored: the rules engine's [`GameEvent`]s, one
//! event type per variant (`PhaseEnded`, `BattleFought`, ...), framed by `GameCreated` and
//! `SeedRevealed`, with the record of each command (`OrdersGiven`, `crate::command`) and
//! the proxies' events (`ProxyNamed`, `ProxyEnded`; naming and ending them is
//! `crate::proxy`).
//!
//! A payload is the variant's fields as JSON. Territory and unit-type ids are the indexes of
//! the ruleset the game was created with (named in `GameCreated`). The fold does not check
//! each id before applying an event: an id off the board makes `apply` panic on its index,
//! and [`GameLog::apply`] catches that and refuses the event, naming its version.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use warlog_rules::board::Power;
use warlog_rules::dice::GameSeed;
use warlog_rules::document::{GameOptions, RulesetDocument};
use warlog_rules::game::{
    apply, decide, decide_director, draw_seats, draw_seats_by_bid, DirectorOrder, GameEvent,
    GameState, Moment, Order, RuleViolation,
};
use warlog_rules::ruleset::Ruleset;
use warlog_rules::scoring::Fraction;
use warlog_rules::violation::ViolationCode;

use crate::command::OrdersGiven;
use crate::{EventDecodeError, EventType, RecordedEvent};

pub use crate::entrants::Entrants;

/// Every game event type is at version 1 so far.
pub const GAME_EVENT_VERSION: u32 = 1;

/// The first event of a game: its ruleset, its seats and the commitment to its dice seed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameCreated {
    pub game_id: String,
    pub ruleset: String,
    /// SHA-256 of the secret seed, hex: every die can be checked once the seed is revealed.
    pub seed_commitment: String,
    /// The players as named at creation, in that order: the power draw seats them.
    pub players: Vec<String>,
    /// Who plays each power, from the seed's first draw.
    pub seats: Vec<(Power, String)>,
    /// Who created the game: its game master.
    pub game_master: String,
    /// The tournament the game belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
    /// Set when the seats were not drawn with this game's seed but given: a tournament's
    /// seating (`tournament-<id> round R table T`), drawn with the tournament's own seed
    /// and recorded in its log, where the auditor checks them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seated_by: Option<String>,
    /// When the game was created (the players' clocks start here).
    pub at: Moment,
    /// SHA-256 of the ruleset document the game plays, its options applied (games created
    /// before rulesets were documents have none, and play the built-in of their id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruleset_hash: Option<String>,
    /// The options the game was created with.
    #[serde(default, skip_serializing_if = "GameOptions::is_empty")]
    pub options: GameOptions,
    /// An uploaded ruleset's document, whole and as played: the log replays anywhere, and
    /// a later revision of the ruleset never changes this game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruleset_document: Option<Box<RulesetDocument>>,
    /// The players' bids for the survivor, in the order of `players` (AAP, 9.1): the
    /// lowest plays it, and the seats are drawn around that.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bids: Option<Vec<u32>>,
    /// Every command on this game is on the record (`OrdersGiven` before the events it
    /// caused), so the auditor requires every later event to be explained by one. Games
    /// created before orders were recorded have `false`, and their audit is partial.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub orders_recorded: bool,
    /// The seed stays secret until the game is over: a reveal while it runs is refused.
    /// Games created before this rule have `false`, and their recorded mid-game reveals
    /// audit as they were decided.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub seed_secret_while_running: bool,
    /// Standing orders are sealed in the log and revealed by the battle that follows them,
    /// and orders given during a turn take effect when it ends ([`crate::sealed`]). Games
    /// created before have `false`: their orders stand in the open, as decided then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub standing_orders_sealed: bool,
    /// Every power's share of the record is bounded ([`crate::shares`]): a few orders per
    /// turn while another power is on turn, and an agreement's terms of at most 2,000
    /// characters. Games created before have `false` and are unbounded: their records
    /// audit as they were decided.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shares_bounded: bool,
    /// Rated only if the player scored at each seat acted in person at least once
    /// ([`crate::in_person`]): otherwise it was played by its game master alone. Games
    /// created before the rule have `false` and keep the rating they had: tournaments
    /// seated later rounds by their results, and the auditors replay those seatings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub played_in_person: bool,
}

impl GameCreated {
    /// The ruleset this game plays, checked against the hash it recorded.
    pub fn ruleset(&self) -> Result<&'static Ruleset, String> {
        if let Some(ruleset) = self.ruleset_hash.as_deref().and_then(Ruleset::installed) {
            return Ok(ruleset);
        }
        if let (None, Some(hash)) = (&self.ruleset_document, &self.ruleset_hash) {
            // A built-in: its current revision, or the earlier one the game was created with.
            if let Some(ruleset) = Ruleset::builtin_revision(&self.ruleset, &self.options, hash)
                .map_err(|e| e.to_string())?
            {
                return Ok(ruleset);
            }
        }
        let ruleset = match &self.ruleset_document {
            Some(document) => Ruleset::install((**document).clone(), self.options, true),
            None => Ruleset::builtin_with(&self.ruleset, &self.options),
        }
        .map_err(|e| e.to_string())?;
        match &self.ruleset_hash {
            Some(hash) if !ruleset.answers_to(hash) => Err(format!(
                "the game was created with ruleset {} of hash {hash}; its document now hashes \
                 to {}",
                self.ruleset, ruleset.hash
            )),
            _ => Ok(ruleset),
        }
    }

    /// The seats the seed's first dice draw for `players` (and their bids, if they bid).
    pub fn draw(
        ruleset: &Ruleset,
        players: &[String],
        bids: Option<&[u32]>,
        dice: &mut dyn warlog_rules::dice::DiceSource,
    ) -> Result<Vec<(Power, String)>, RuleViolation> {
        match (bids, ruleset.special.survival) {
            (None, _) => draw_seats(ruleset.powers(), players, dice),
            (Some(bids), Some(survival)) => {
                draw_seats_by_bid(ruleset.powers(), players, bids, survival.power, dice)
            }
            (Some(_), None) => Err(RuleViolation {
                code: ViolationCode::NoBids,
                rule: "AAP Historical, 9.1",
                message: format!("{} has no survivor to bid for", ruleset.id),
            }),
        }
    }

    /// The ruleset fields of a new game's first event.
    fn recording(
        ruleset: &Ruleset,
    ) -> (
        String,
        Option<String>,
        GameOptions,
        Option<Box<RulesetDocument>>,
    ) {
        (
            ruleset.id.clone(),
            Some(ruleset.hash.clone()),
            ruleset.options,
            ruleset.uploaded.then(|| Box::new(ruleset.document.clone())),
        )
    }
}

/// How a tournament game's record names the table that seated it (`GameCreated::seated_by`).
pub fn seated_by(tournament: &str, round: u32, table: u32) -> String {
    format!("tournament-{tournament} round {round} table {table}")
}

/// The round and table of a [`seated_by`] record.
pub fn seating_of(seated_by: &str) -> Option<(u32, u32)> {
    let (_, place) = seated_by.split_once(" round ")?;
    let (round, table) = place.split_once(" table ")?;
    Some((round.parse().ok()?, table.parse().ok()?))
}

/// A proxy named: `proxy` may give `power`'s orders from `at` until `until` (not at
/// `until` itself), for `player`, who is seated at the power and keeps the seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProxyNamed {
    pub power: Power,
    /// The player seated at the power when the proxy was named.
    pub player: String,
    pub proxy: String,
    /// When it was named (the command's time).
    pub at: Moment,
    /// When it ends, unless ended sooner.
    pub until: Moment,
}

/// A proxy ended before its time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProxyEnded {
    pub power: Power,
    pub proxy: String,
    pub at: Moment,
}

/// A tournament table that becomes a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentTable {
    pub tournament: String,
    pub round: u32,
    pub table: u32,
    pub seats: Vec<(Power, String)>,
}

/// The game's seed, revealed when the game ends (or a director asks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedRevealed {
    /// The 32-byte seed, hex.
    pub seed: String,
}

/// One event of a game stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameStreamEvent {
    Created(GameCreated),
    Played(GameEvent),
    SeedRevealed(SeedRevealed),
    /// A command on the record; the events it caused follow it.
    Orders(OrdersGiven),
    /// A player may give a power's orders for its seated player until a time.
    ProxyNamed(ProxyNamed),
    /// A proxy ended before its time.
    ProxyEnded(ProxyEnded),
}

const CREATED: &str = "GameCreated";
const REVEALED: &str = "SeedRevealed";
const ORDERS: &str = "OrdersGiven";
const PROXY_NAMED: &str = "ProxyNamed";
const PROXY_ENDED: &str = "ProxyEnded";

fn payload_error(e: impl std::fmt::Display) -> EventDecodeError {
    EventDecodeError::Payload(e.to_string())
}

/// A stream event's stored name and payload.
fn named(name: &str, event: &impl Serialize) -> Result<(String, Value), EventDecodeError> {
    Ok((
        name.to_owned(),
        serde_json::to_value(event).map_err(payload_error)?,
    ))
}

/// A stored payload read as the stream event `wrap` makes of it; an error names the type.
fn read<T: serde::de::DeserializeOwned>(
    event_type: &str,
    payload: &Value,
    wrap: fn(T) -> GameStreamEvent,
) -> Result<GameStreamEvent, EventDecodeError> {
    serde_json::from_value(payload.clone())
        .map(wrap)
        .map_err(|e| payload_error(format!("{event_type}: {e}")))
}

impl GameStreamEvent {
    /// The stored form: event type, version and payload.
    pub fn encode(&self) -> Result<(EventType, u32, Value), EventDecodeError> {
        let (name, payload) = match self {
            GameStreamEvent::Created(created) => named(CREATED, created)?,
            GameStreamEvent::SeedRevealed(revealed) => named(REVEALED, revealed)?,
            GameStreamEvent::Orders(given) => named(ORDERS, given)?,
            GameStreamEvent::ProxyNamed(proxy) => named(PROXY_NAMED, proxy)?,
            GameStreamEvent::ProxyEnded(ended) => named(PROXY_ENDED, ended)?,
            GameStreamEvent::Played(event) => {
                let (event_type, payload) = crate::variant::encode_variant(event)?;
                return Ok((event_type, GAME_EVENT_VERSION, payload));
            }
        };
        let event_type = EventType::try_from(name).map_err(payload_error)?;
        Ok((event_type, GAME_EVENT_VERSION, payload))
    }

    /// Reads a stored game event back; an unknown type, version or a payload that does not
    /// fit its type is an error naming it.
    pub fn decode(
        event_type: &str,
        event_version: u32,
        payload: &Value,
    ) -> Result<GameStreamEvent, EventDecodeError> {
        if event_version != GAME_EVENT_VERSION {
            return Err(payload_error(format!(
                "{event_type} version {event_version} is not known (only {GAME_EVENT_VERSION})"
            )));
        }
        match event_type {
            CREATED => read(event_type, payload, GameStreamEvent::Created),
            REVEALED => read(event_type, payload, GameStreamEvent::SeedRevealed),
            ORDERS => read(event_type, payload, GameStreamEvent::Orders),
            PROXY_NAMED => read(event_type, payload, GameStreamEvent::ProxyNamed),
            PROXY_ENDED => read(event_type, payload, GameStreamEvent::ProxyEnded),
            played => crate::variant::decode_variant(played, payload).map(GameStreamEvent::Played),
        }
    }
}

/// Whether a game is still being played, and whether it counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameStatus {
    Running,
    /// Over and rated: places and points.
    Ended,
    /// Over, not counted: no placements, no points.
    Voided,
    /// Ended before every seated power had played a turn of its own: not rated, so no
    /// placements, no points and no rating change ([`GameLog::unplayed`] says who had not).
    Aborted,
    /// Ended with a seated power whose player never acted in person (the game master, a
    /// director or an admin gave every one of its orders): not rated, as an aborted game
    /// ([`GameLog::not_played_in_person`] says whose).
    #[serde(rename = "master-only")]
    MasterOnly,
}

impl GameStatus {
    /// As the API and the `game_summaries` read model write it.
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Running => "running",
            GameStatus::Ended => "ended",
            GameStatus::Voided => "voided",
            GameStatus::Aborted => "aborted",
            GameStatus::MasterOnly => "master-only",
        }
    }

    /// In plain words, for pages: "aborted, not rated".
    pub fn describe(self) -> &'static str {
        match self {
            GameStatus::Running => "running",
            GameStatus::Ended => "ended",
            GameStatus::Voided => "voided, not rated",
            GameStatus::Aborted => "aborted, not rated",
            GameStatus::MasterOnly => "played by its game master alone, not rated",
        }
    }

    /// A status as a read model stores it ([`GameStatus::as_str`]), in plain words; a text
    /// that is no status is shown as it is.
    pub fn describe_stored(status: &str) -> &str {
        status
            .parse::<GameStatus>()
            .map_or(status, |s| s.describe())
    }
}

impl std::str::FromStr for GameStatus {
    type Err = String;

    /// Reads what [`GameStatus::as_str`] writes.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        [
            GameStatus::Running,
            GameStatus::Ended,
            GameStatus::Voided,
            GameStatus::Aborted,
            GameStatus::MasterOnly,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
        .ok_or_else(|| {
            format!("no game status \"{text}\": running, ended, voided, aborted or master-only")
        })
    }
}

/// Who gave a power's orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderHand {
    /// The player seated at the power (a substitute, once seated, is its player).
    Player,
    /// Another player, as the seated player's proxy.
    Proxy,
    /// The game master, or a director or an admin, on the player's behalf.
    GameMaster,
}

/// How many of a power's orders its player gave, how many the game master (or a
/// director or an admin) gave for it, and how many a proxy gave for its player. Orders
/// carried out are counted, one each (an order cut off after dice, and those sent after
/// it, are not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderCount {
    pub by_player: u32,
    pub by_game_master: u32,
    /// Left out when none (as games recorded before proxies have it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub by_proxy: u32,
}

fn is_zero(count: &u32) -> bool {
    *count == 0
}

impl OrderCount {
    /// The power a record's orders were for, who gave them and how many were carried out;
    /// none for a command that is not orders.
    pub fn of(record: &OrdersGiven) -> Option<(Power, OrderHand, u32)> {
        let crate::command::Command::Orders { power, orders } = &record.command else {
            return None;
        };
        let hand = match record.sender.role {
            crate::sender::Role::Player if record.proxy_for.is_some() => OrderHand::Proxy,
            crate::sender::Role::Player => OrderHand::Player,
            _ => OrderHand::GameMaster,
        };
        Some((
            *power,
            hand,
            u32::try_from(orders.len()).unwrap_or(u32::MAX),
        ))
    }

    fn add(&mut self, hand: OrderHand, orders: u32) {
        match hand {
            OrderHand::Player => self.by_player = self.by_player.saturating_add(orders),
            OrderHand::GameMaster => {
                self.by_game_master = self.by_game_master.saturating_add(orders)
            }
            OrderHand::Proxy => self.by_proxy = self.by_proxy.saturating_add(orders),
        }
    }
}

/// A game folded from its stream: what it was created as, the board, and how far it got.
#[derive(Debug, Clone)]
pub struct GameLog {
    pub created: GameCreated,
    pub ruleset: &'static Ruleset,
    pub state: GameState,
    /// The stream version folded so far.
    pub version: u64,
    /// The seed, once `SeedRevealed` is in the log (hex).
    pub revealed_seed: Option<String>,
    /// Battles and bombing raids fought so far (they are numbered in this order).
    pub battles: usize,
    /// Players' and game masters' orders on the record so far (not the director's
    /// commands): once there is one, the game has begun.
    pub orders_given: usize,
    /// Each power's orders on the record, by its player and by the game master.
    pub orders_by_power: BTreeMap<Power, OrderCount>,
    /// The turns each power has completed: play passed from it to the next power (its
    /// last phase ended and the turn order moved on).
    pub turns_played: BTreeMap<Power, u32>,
    /// Each power's proxy named and not ended (early, or by a change of the seat): in force
    /// until its time ([`GameLog::proxy_in_force`]).
    pub proxies: BTreeMap<Power, ProxyNamed>,
    /// The orders each power has on the record since the turn began, given while it was
    /// not its turn ([`crate::shares`]); cleared when the turn passes.
    pub out_of_turn_orders: BTreeMap<Power, u32>,
    /// Who acted in person at each power ([`crate::in_person`]).
    pub in_person: InPerson,
}

/// What the record says of each seat's play in person, folded with the game
/// ([`crate::in_person`] reads and folds it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InPerson {
    /// The players who acted in person at each power: (power, player).
    pub(crate) acted: BTreeSet<(Power, String)>,
    /// The powers whose proxy in force was named by the seated player themselves (ended
    /// with the proxy: `GameLog::fold_proxies`).
    pub(crate) proxy_named_by_player: BTreeSet<Power>,
}

/// A stream that is not a sound game log, naming the event at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event {version}: {message}")]
pub struct GameLogError {
    pub version: u64,
    pub message: String,
}

impl GameLogError {
    fn at(version: u64, message: impl Into<String>) -> Self {
        GameLogError {
            version,
            message: message.into(),
        }
    }
}

impl GameLog {
    /// A game just created: its ruleset's setup, the players seated.
    pub fn new(created: GameCreated) -> Result<GameLog, GameLogError> {
        let ruleset = created
            .ruleset()
            .map_err(|e| GameLogError::at(1, format!("GameCreated: {e}")))?;
        let mut state = ruleset.start();
        apply(
            ruleset.rules(),
            &mut state,
            &GameEvent::SeatsAssigned {
                seats: created.seats.clone(),
                at: created.at,
            },
        );
        Ok(GameLog {
            created,
            ruleset,
            state,
            version: 1,
            revealed_seed: None,
            battles: 0,
            orders_given: 0,
            orders_by_power: BTreeMap::new(),
            turns_played: BTreeMap::new(),
            proxies: BTreeMap::new(),
            out_of_turn_orders: BTreeMap::new(),
            in_person: Default::default(),
        })
    }

    /// A new game's first event: the seats drawn with the seed's first dice (those of
    /// stream version 1, `GameCreated`'s own), the seed committed to.
    pub fn create(
        ruleset: &Ruleset,
        game_id: &str,
        entrants: impl Into<Entrants>,
        game_master: String,
        tournament: Option<String>,
        at: Moment,
        seed: &GameSeed,
    ) -> Result<GameCreated, RuleViolation> {
        let Entrants { players, bids } = entrants.into();
        let mut dice = seed.dice_for(game_id, 1);
        let seats = GameCreated::draw(ruleset, &players, bids.as_deref(), &mut dice)?;
        let (id, ruleset_hash, options, ruleset_document) = GameCreated::recording(ruleset);
        Ok(GameCreated {
            game_id: game_id.to_owned(),
            ruleset: id,
            ruleset_hash,
            options,
            ruleset_document,
            seed_commitment: hex::encode(seed.commitment()),
            players,
            seats,
            game_master,
            tournament,
            seated_by: None,
            at,
            bids,
            orders_recorded: true,
            seed_secret_while_running: true,
            standing_orders_sealed: true,
            shares_bounded: true,
            played_in_person: true,
        })
    }

    /// A tournament game's first event: the seats are the tournament's (already drawn with
    /// its seed and recorded in its log), so this game's seed draws nothing here.
    pub fn create_seated(
        ruleset: &Ruleset,
        game_id: &str,
        table: TournamentTable,
        game_master: String,
        at: Moment,
        seed: &GameSeed,
    ) -> GameCreated {
        let seated_by = seated_by(&table.tournament, table.round, table.table);
        let TournamentTable {
            tournament, seats, ..
        } = table;
        let (id, ruleset_hash, options, ruleset_document) = GameCreated::recording(ruleset);
        GameCreated {
            game_id: game_id.to_owned(),
            ruleset: id,
            ruleset_hash,
            options,
            ruleset_document,
            seed_commitment: hex::encode(seed.commitment()),
            players: seats.iter().map(|(_, who)| who.clone()).collect(),
            seats,
            game_master,
            tournament: Some(tournament),
            seated_by: Some(seated_by),
            at,
            bids: None,
            orders_recorded: true,
            seed_secret_while_running: true,
            standing_orders_sealed: true,
            shares_bounded: true,
            played_in_person: true,
        }
    }

    /// Decides a player's order. Its dice come from the seed for the stream version its
    /// first event will have (the only one of its events that may hold dice).
    pub fn decide(
        &self,
        by: Power,
        order: &Order,
        at: Moment,
        seed: &GameSeed,
    ) -> Result<Vec<GameEvent>, RuleViolation> {
        let mut dice = seed.dice_for(&self.created.game_id, self.version + 1);
        decide(self.ruleset.rules(), &self.state, by, order, at, &mut dice)
    }

    /// Decides a director's order (no dice).
    pub fn decide_director(
        &self,
        order: &DirectorOrder,
        at: Moment,
    ) -> Result<Vec<GameEvent>, RuleViolation> {
        decide_director(self.ruleset.rules(), &self.state, order, at)
    }

    /// Folds the next event, the one at `version`.
    ///
    /// Territory and unit-type ids in stored events are indexes into the ruleset's board
    /// and catalogue; an event from an untrusted file may carry one that is not, and the
    /// fold refuses it (by the panic the out-of-range index raises, caught here) rather
    /// than taking the process down.
    pub fn apply(&mut self, version: u64, event: &GameStreamEvent) -> Result<(), GameLogError> {
        if version != self.version + 1 {
            return Err(GameLogError::at(
                version,
                format!("expected stream version {}", self.version + 1),
            ));
        }
        match event {
            GameStreamEvent::Created(_) => {
                return Err(GameLogError::at(version, "a second GameCreated"));
            }
            GameStreamEvent::SeedRevealed(revealed) => {
                self.revealed_seed = Some(revealed.seed.clone());
            }
            // A record changes nothing on the board; the events it caused do.
            GameStreamEvent::Orders(record) => self.count_orders(record),
            GameStreamEvent::ProxyNamed(_) | GameStreamEvent::ProxyEnded(_) => {}
            GameStreamEvent::Played(played) => {
                let rules = self.ruleset.rules();
                let mut next = self.state.clone();
                catch_unwind(AssertUnwindSafe(|| apply(rules, &mut next, played))).map_err(
                    |_| {
                        GameLogError::at(
                            version,
                            format!(
                                "a territory or unit id is not on the {} board",
                                self.ruleset.id
                            ),
                        )
                    },
                )?;
                let turn = self.turn_now();
                self.state = next;
                self.count_turn(turn, played);
                if played.is_battle() {
                    self.battles += 1;
                }
            }
        }
        self.fold_proxies(event);
        self.version = version;
        Ok(())
    }

    /// Folds the next event of a decision the engine just made on this game. Its ids come
    /// from this ruleset, so the state is changed in place, with no copy kept against an
    /// off-board id as [`GameLog::apply`] keeps for events read from outside.
    pub(crate) fn apply_decided(&mut self, event: &GameStreamEvent) {
        match event {
            GameStreamEvent::Created(_) => {}
            GameStreamEvent::Orders(record) => self.count_orders(record),
            GameStreamEvent::SeedRevealed(revealed) => {
                self.revealed_seed = Some(revealed.seed.clone());
            }
            GameStreamEvent::ProxyNamed(_) | GameStreamEvent::ProxyEnded(_) => {}
            GameStreamEvent::Played(played) => {
                let turn = self.turn_now();
                apply(self.ruleset.rules(), &mut self.state, played);
                self.count_turn(turn, played);
                if played.is_battle() {
                    self.battles += 1;
                }
            }
        }
        self.fold_proxies(event);
        self.version += 1;
    }

    fn count_orders(&mut self, record: &OrdersGiven) {
        if let Some((power, hand, orders)) = OrderCount::of(record) {
            self.orders_given += 1;
            self.orders_by_power
                .entry(power)
                .or_default()
                .add(hand, orders);
        }
        self.count_out_of_turn(record);
        self.in_person.count(record);
    }

    /// Where play stands: the round, the place in the turn order and whose turn it is.
    fn turn_now(&self) -> (u32, usize, Power) {
        let state = &self.state;
        (state.round, state.turn, state.power(&self.ruleset.board))
    }

    /// A phase's end that moved play on to another turn completes the turn of the power
    /// whose turn it was (`before`, where play stood before the event). Any move to another
    /// turn starts every power's out-of-turn count again.
    fn count_turn(&mut self, before: (u32, usize, Power), event: &GameEvent) {
        let (round, turn, power) = before;
        let moved_on = (self.state.round, self.state.turn) != (round, turn);
        if moved_on {
            self.out_of_turn_orders.clear();
        }
        if moved_on && matches!(event, GameEvent::PhaseEnded { .. }) {
            *self.turns_played.entry(power).or_default() += 1;
        }
    }

    /// Folds a whole stream, from its `GameCreated`.
    pub fn fold<'a>(
        events: impl IntoIterator<Item = &'a RecordedEvent>,
    ) -> Result<GameLog, GameLogError> {
        let mut events = events.into_iter();
        let first = events
            .next()
            .ok_or_else(|| GameLogError::at(1, "the stream is empty"))?;
        let GameStreamEvent::Created(created) = decode_recorded(first)? else {
            return Err(GameLogError::at(1, "a game stream starts with GameCreated"));
        };
        let mut log = GameLog::new(created)?;
        for event in events {
            log.apply(event.stream_version, &decode_recorded(event)?)?;
        }
        Ok(log)
    }

    /// Where the game stands and whether it counts. A game that ended before every seated
    /// power had completed a turn of its own is aborted: it is not rated (as lichess aborts
    /// a game in which a side never moved). Every reader of results goes by this: the
    /// placements, the ladders, a tournament's standings and the auditors.
    pub fn status(&self) -> GameStatus {
        if self.state.voided.is_some() {
            GameStatus::Voided
        } else if self.state.ended.is_none() {
            GameStatus::Running
        } else if !self.unplayed().is_empty() {
            GameStatus::Aborted
        } else if self.created.played_in_person && !self.not_played_in_person().is_empty() {
            GameStatus::MasterOnly
        } else {
            GameStatus::Ended
        }
    }

    /// The seated powers, in turn order.
    pub fn seated(&self) -> Vec<Power> {
        let order = self.ruleset.board.turn_order();
        let mut seated: Vec<Power> = self.state.seats.keys().copied().collect();
        seated.sort_by_key(|p| order.iter().position(|q| q == p).unwrap_or(order.len()));
        seated
    }

    /// The seated powers that have not completed a turn of their own yet, in turn order.
    pub fn unplayed(&self) -> Vec<Power> {
        self.seated()
            .into_iter()
            .filter(|p| self.turns_played.get(p).copied().unwrap_or(0) == 0)
            .collect()
    }

    /// Whether the game ended and counts: places, points and ratings come from it.
    pub fn rated(&self) -> bool {
        self.status() == GameStatus::Ended
    }

    /// Why an ended game is not rated, in a sentence; none for a rated or running game.
    pub fn why_not_rated(&self) -> Option<String> {
        match self.status() {
            GameStatus::Running | GameStatus::Ended => None,
            GameStatus::Voided => Some(format!(
                "the game was voided ({}): it counts for nobody",
                self.state.voided.as_deref().unwrap_or_default()
            )),
            GameStatus::Aborted => {
                let names = power_names(&self.unplayed());
                Some(format!(
                    "aborted, not rated: the game ended before {} had played a turn of {}",
                    join_names(&names),
                    if names.len() == 1 {
                        "its own"
                    } else {
                        "their own"
                    }
                ))
            }
            GameStatus::MasterOnly => {
                let names = power_names(&self.not_played_in_person());
                Some(format!(
                    "played by its game master alone, not rated: the {} of {} gave no order in \
                     person, by their own token, by mail or through a proxy they named",
                    if names.len() == 1 {
                        "player"
                    } else {
                        "players"
                    },
                    join_names(&names)
                ))
            }
        }
    }
}

/// The powers' names, in their order.
pub fn power_names(powers: &[Power]) -> Vec<&'static str> {
    powers.iter().map(|p| p.name()).collect()
}

/// Names as a sentence lists them: "Germany", "Germany and Japan", "Russia, Germany and Japan".
pub fn join_names(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// One power's result in a finished game, as the API and the auditor show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlacementRow {
    pub power: Power,
    /// Who holds the seat at the end: the points are theirs.
    pub player: Option<String>,
    pub initial_ipc: u32,
    pub final_ipc: u32,
    /// The gain, as a percentage of the starting IPC (`-20.83`).
    pub percent_gain: f64,
    /// The same, exact, as a fraction (`"-5/24"`): ties are real ties.
    pub percent_gain_exact: String,
    pub place: usize,
    /// How many powers share this place (1 when not tied).
    pub tied_with: usize,
    /// Points, as a decimal (`2.67`).
    pub points: f64,
    /// The same, exact, as a fraction when tied places split them (`"8/3"`).
    pub points_exact: String,
    /// Set on a row of [`GameLog::scored_placements`] for a player replaced for inactivity
    /// whose substitute became permanent: last place's result for the seat they left.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forfeited: bool,
}

/// Why a finished game's results cannot be taken by a ladder or standings: one player
/// with two results in it (one seat per player per game; the domain refuses it now, yet a
/// log written before may hold one).
pub fn placed_twice(rows: &[PlacementRow]) -> Option<String> {
    let mut players: Vec<&str> = rows.iter().filter_map(|r| r.player.as_deref()).collect();
    players.sort_unstable();
    let twice = players.windows(2).find(|w| w[0] == w[1])?[0];
    let powers: Vec<&str> = rows
        .iter()
        .filter(|r| r.player.as_deref() == Some(twice))
        .map(|r| r.power.name())
        .collect();
    Some(format!(
        "{twice} holds {} at the end: one seat per player per game",
        join_names(&powers)
    ))
}

impl GameLog {
    /// Places and points, once the game has ended and is rated: none while it runs, and
    /// none for a game voided or aborted ([`GameLog::status`]).
    pub fn placements(&self) -> Option<Result<Vec<PlacementRow>, String>> {
        if !self.rated() {
            return None;
        }
        let placed = self
            .state
            .placements(self.ruleset.rules(), &self.ruleset.points)?;
        Some(placed.map_err(|e| e.to_string()).map(|placed| {
            placed
                .into_iter()
                .map(|p| PlacementRow {
                    power: p.power,
                    player: self.state.seats.get(&p.power).map(|s| s.player.clone()),
                    initial_ipc: p.initial_ipc,
                    final_ipc: p.final_ipc,
                    percent_gain: p.percent_gain.to_f64() * 100.0,
                    percent_gain_exact: p.percent_gain.to_string(),
                    place: p.place,
                    tied_with: p.tied_with,
                    points: p.points.to_f64(),
                    points_exact: p.points.to_string(),
                    forfeited: false,
                })
                .collect()
        }))
    }

    /// The placements as players are scored: the one rule the ladders, a tournament's
    /// standings and the ladder auditor take results by ([`Seat::scored_by`]). Each seat's
    /// row names who takes its result (the replaced player while the substitute has not
    /// yet played two rounds in it); a player replaced by a substitute who became
    /// permanent has a row of their own, `forfeited`, with last place's points and percent
    /// gain. A substitute not yet permanent has no row.
    ///
    /// [`Seat::scored_by`]: warlog_rules::game::Seat::scored_by
    pub fn scored_placements(&self) -> Option<Result<Vec<PlacementRow>, String>> {
        let rows = match self.placements()? {
            Ok(rows) => rows,
            Err(e) => return Some(Err(e)),
        };
        let last_place = rows.len().max(1);
        let last_points = Fraction::whole(self.ruleset.points.for_place(last_place));
        // Last place's gain, as its row gives it (by place: in survival and zone-point
        // games the last is not always the lowest gain).
        let last_gain = rows
            .iter()
            .max_by_key(|r| r.place)
            .map(|r| (r.percent_gain_exact.clone(), r.percent_gain));
        let mut scored = Vec::with_capacity(rows.len());
        let mut forfeits = Vec::new();
        for mut row in rows {
            if let Some(seat) = self.state.seats.get(&row.power) {
                let (scorer, forfeiting) = seat.scored_by();
                if let Some((gain, gain_pct)) = &last_gain {
                    for left in forfeiting {
                        forfeits.push(PlacementRow {
                            player: Some(left.to_owned()),
                            place: last_place,
                            tied_with: 1,
                            percent_gain_exact: gain.clone(),
                            percent_gain: *gain_pct,
                            points_exact: last_points.to_string(),
                            points: last_points.to_f64(),
                            forfeited: true,
                            ..row.clone()
                        });
                    }
                }
                row.player = Some(scorer.to_owned());
            }
            scored.push(row);
        }
        scored.extend(forfeits);
        Some(Ok(scored))
    }
}

/// A recorded event of a game stream, decoded; the error names its version.
pub fn decode_recorded(event: &RecordedEvent) -> Result<GameStreamEvent, GameLogError> {
    GameStreamEvent::decode(
        event.event_type.as_str(),
        event.event_version,
        &event.payload,
    )
    .map_err(|e| GameLogError::at(event.stream_version, e.to_string()))
}

#[cfg(test)]
mod rated {
    //! When a game is rated: only once every seated power has played a turn of its own.

    use super::*;
    use crate::orders::Command;
    use crate::sample::{SampleGame, GAME_MASTER};
    use crate::sender::{Role, Sender};
    use warlog_rules::dice::GameSeed;
    use warlog_rules::game::named::NamedOrder;
    use warlog_rules::game::Phase;

    /// A new Cut-Throat game of ann, bob, cy, di and ed, run by the sample's game master.
    fn a_new_game() -> SampleGame {
        let ruleset = Ruleset::builtin("cutthroat").expect("built in");
        SampleGame::new(ruleset, "rated-test", GameSeed::from_bytes([3; 32]), 7)
    }

    fn game_master() -> Sender {
        Sender {
            role: Role::Gm,
            name: GAME_MASTER.into(),
        }
    }

    fn player_of(game: &SampleGame, power: Power) -> Sender {
        Sender {
            role: Role::Player,
            name: game.log.state.seats[&power].player.clone(),
        }
    }

    /// The power whose turn it is ends every phase of its turn, in one command of `sender`.
    fn plays_its_turn(game: &mut SampleGame, sender: impl Fn(&SampleGame, Power) -> Sender) {
        let power = game.log.state.power(&game.log.ruleset.board);
        let who = sender(game, power);
        let orders = vec![NamedOrder::EndPhase; Phase::ALL.len()];
        assert!(
            game.send(who, Command::Orders { power, orders }),
            "{power} ends its turn"
        );
    }

    fn ends(game: &mut SampleGame) {
        assert!(game.end(), "the game master ends the game");
    }

    #[test]
    fn a_game_ended_before_anyone_moved_is_aborted_with_no_places_and_no_points() {
        let mut game = a_new_game();
        ends(&mut game);
        assert_eq!(game.log.status(), GameStatus::Aborted);
        assert_eq!(game.log.status().as_str(), "aborted");
        assert!(!game.log.rated());
        assert!(game.log.placements().is_none(), "no places, no points");
        assert_eq!(game.log.unplayed(), Power::CLASSIC.to_vec());
        assert_eq!(
            game.log.why_not_rated().as_deref(),
            Some(
                "aborted, not rated: the game ended before Russia, Germany, United Kingdom, \
                 Japan and United States had played a turn of their own"
            )
        );
    }

    #[test]
    fn a_game_ended_after_every_powers_first_turn_is_rated_with_places_and_points() {
        let mut game = a_new_game();
        for _ in Power::CLASSIC {
            plays_its_turn(&mut game, player_of);
        }
        assert_eq!(game.log.state.round, 2, "the first round is over");
        ends(&mut game);
        assert_eq!(game.log.status(), GameStatus::Ended);
        assert!(game.log.unplayed().is_empty());
        assert_eq!(game.log.why_not_rated(), None);
        let rows = game.log.placements().expect("placed").expect("scored");
        assert_eq!(rows.len(), 5);
    }

    #[test]
    fn a_game_ended_in_the_middle_of_the_first_round_is_aborted_and_names_who_had_not_played() {
        let mut game = a_new_game();
        plays_its_turn(&mut game, player_of);
        plays_its_turn(&mut game, player_of);
        // The United Kingdom's turn begun is not a turn played.
        let uk = player_of(&game, Power::UnitedKingdom);
        let one_phase = vec![NamedOrder::EndPhase; 3];
        assert!(game.send(
            uk,
            Command::Orders {
                power: Power::UnitedKingdom,
                orders: one_phase
            }
        ));
        ends(&mut game);
        assert_eq!(game.log.status(), GameStatus::Aborted);
        assert_eq!(
            game.log.unplayed(),
            vec![Power::UnitedKingdom, Power::Japan, Power::UnitedStates]
        );
        assert!(game.log.placements().is_none());
        let why = game.log.why_not_rated().expect("a reason");
        assert!(
            why.ends_with("United Kingdom, Japan and United States had played a turn of their own"),
            "{why}"
        );
    }

    #[test]
    fn a_game_the_game_master_played_for_four_of_its_players_is_not_rated_and_names_them() {
        let mut game = a_new_game();
        plays_its_turn(&mut game, player_of); // Russia, by its player
        for _ in 1..5 {
            plays_its_turn(&mut game, |_, _| game_master());
        }
        ends(&mut game);
        assert_eq!(game.log.status(), GameStatus::MasterOnly);
        assert!(game.log.placements().is_none());
        let counts = &game.log.orders_by_power;
        assert_eq!(
            counts[&Power::Russia],
            OrderCount {
                by_player: 8,
                by_game_master: 0,
                by_proxy: 0
            }
        );
        assert_eq!(
            counts[&Power::Germany],
            OrderCount {
                by_player: 0,
                by_game_master: 8,
                by_proxy: 0
            }
        );
        assert_eq!(game.log.orders_given, 5, "five commands");
        assert_eq!(
            game.log.not_played_in_person(),
            vec![
                Power::Germany,
                Power::UnitedKingdom,
                Power::Japan,
                Power::UnitedStates
            ],
            "the powers whose player gave none of their orders"
        );
        assert_eq!(
            game.log.why_not_rated().as_deref(),
            Some(
                "played by its game master alone, not rated: the players of Germany, United \
                 Kingdom, Japan and United States gave no order in person, by their own token, \
                 by mail or through a proxy they named"
            )
        );
    }

    #[test]
    fn one_order_of_each_player_in_person_rates_a_game_the_game_master_played_otherwise() {
        let mut game = a_new_game();
        // Given each power's first phase ended by its player, the rest by the game master,
        for _ in 0..5 {
            let power = game.log.state.power(&game.log.ruleset.board);
            let one = Command::Orders {
                power,
                orders: vec![NamedOrder::EndPhase],
            };
            assert!(game.send(player_of(&game, power), one));
            let rest = Command::Orders {
                power,
                orders: vec![NamedOrder::EndPhase; Phase::ALL.len() - 1],
            };
            assert!(game.send(game_master(), rest));
        }
        // when the game ends, then it is rated.
        ends(&mut game);
        assert_eq!(game.log.status(), GameStatus::Ended);
        assert!(game.log.not_played_in_person().is_empty());
    }

    #[test]
    fn a_voided_game_stays_voided_whether_or_not_anyone_moved() {
        let mut game = a_new_game();
        let director = Sender {
            role: Role::Admin,
            name: "root".into(),
        };
        assert!(game.send(
            director,
            Command::VoidGame {
                reason: "nobody came".into()
            }
        ));
        assert_eq!(game.log.status(), GameStatus::Voided);
        assert!(game.log.placements().is_none());
    }

    #[test]
    fn the_stored_log_folds_to_the_same_turns_and_counts_as_the_game_decided() {
        let mut game = a_new_game();
        plays_its_turn(&mut game, player_of);
        plays_its_turn(&mut game, |_, _| game_master());
        ends(&mut game);
        let folded = GameLog::fold(&game.recorded()).expect("folds");
        assert_eq!(folded.turns_played, game.log.turns_played);
        assert_eq!(folded.orders_by_power, game.log.orders_by_power);
        assert_eq!(folded.status(), GameStatus::Aborted);
        assert_eq!(
            folded.turns_played,
            BTreeMap::from([(Power::Russia, 1), (Power::Germany, 1)])
        );
    }
    /// A rated game in which Russia's player went idle after the first round and kim took
    /// the seat after three days; kim then plays Russia's next `kims_turns` turns.
    fn russia_left_to_kim(kims_turns: usize) -> (SampleGame, String) {
        let mut game = a_new_game();
        for _ in Power::CLASSIC {
            plays_its_turn(&mut game, player_of);
        }
        let idle = game.log.state.seats[&Power::Russia].player.clone();
        game.now = game.now.plus_seconds(4 * 24 * 60 * 60);
        assert!(
            game.send(
                Sender {
                    role: Role::Admin,
                    name: "root".into()
                },
                Command::ReplaceInactivePlayer {
                    substitute: "kim".into()
                }
            ),
            "kim replaces the idle Russia"
        );
        for _ in 0..kims_turns * Power::CLASSIC.len() {
            plays_its_turn(&mut game, player_of);
        }
        ends(&mut game);
        (game, idle)
    }

    #[test]
    fn until_the_substitute_has_played_two_rounds_the_replaced_player_keeps_the_seats_result() {
        // Given Russia's idle player replaced by kim, who plays one round,
        let (game, idle) = russia_left_to_kim(1);
        // when the game ends, then Russia's result is the idle player's, as the seat
        // earned it, and kim takes nothing from it.
        let held = game.log.placements().expect("placed").expect("scored");
        let scored = game
            .log
            .scored_placements()
            .expect("placed")
            .expect("scored");
        let russia = |rows: &[PlacementRow]| {
            rows.iter()
                .find(|r| r.power == Power::Russia)
                .cloned()
                .expect("Russia")
        };
        assert_eq!(
            russia(&held).player.as_deref(),
            Some("kim"),
            "kim holds the seat"
        );
        assert_eq!(russia(&scored).player, Some(idle.clone()));
        assert_eq!(russia(&scored).points, russia(&held).points);
        assert_eq!(scored.len(), 5);
        assert!(!scored.iter().any(|r| r.player.as_deref() == Some("kim")));
        assert_eq!(placed_twice(&scored), None);
    }

    #[test]
    fn once_the_substitute_is_permanent_the_seat_is_theirs_and_the_replaced_takes_last_place() {
        // Given Russia's idle player replaced by kim, who plays two rounds (permanent),
        let (game, idle) = russia_left_to_kim(2);
        // when the game ends, then Russia's result is kim's, and the idle player has a
        // row of their own: last place's points and gain, never better than playing on.
        let scored = game
            .log
            .scored_placements()
            .expect("placed")
            .expect("scored");
        assert_eq!(scored.len(), 6);
        let russia = scored
            .iter()
            .find(|r| r.power == Power::Russia && !r.forfeited)
            .expect("Russia");
        assert_eq!(russia.player.as_deref(), Some("kim"));
        let forfeit = scored.iter().find(|r| r.forfeited).expect("a forfeit");
        assert_eq!(forfeit.player, Some(idle));
        assert_eq!((forfeit.place, forfeit.tied_with), (5, 1));
        assert_eq!(forfeit.points_exact, "-2");
        let worst = scored
            .iter()
            .filter_map(|r| r.percent_gain_exact.parse::<Fraction>().ok())
            .min()
            .expect("gains");
        assert_eq!(forfeit.percent_gain_exact, worst.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warlog_rules::game::Phase;

    #[test]
    fn a_played_event_is_stored_under_its_variants_name_and_reads_back() {
        let event = GameStreamEvent::Played(GameEvent::IncomeCollected {
            power: Power::Germany,
            amount: 32,
        });
        let (event_type, version, payload) = event.encode().expect("encodes");
        assert_eq!((event_type.as_str(), version), ("IncomeCollected", 1));
        assert_eq!(
            payload,
            serde_json::json!({"power": "germany", "amount": 32})
        );
        let back =
            GameStreamEvent::decode(event_type.as_str(), version, &payload).expect("decodes");
        assert_eq!(back, event);
    }

    /// Ann's Cut-Throat game as Russia, recorded with the ruleset hash `hash`.
    fn created_with_hash(hash: String) -> GameCreated {
        GameCreated {
            game_id: "42".into(),
            ruleset: "cutthroat".into(),
            seed_commitment: "ab".repeat(32),
            players: vec!["ann".into()],
            seats: vec![(Power::Russia, "ann".into())],
            game_master: "gm".into(),
            tournament: None,
            seated_by: None,
            at: Moment::from_unix_seconds(1_700_000_000),
            ruleset_hash: Some(hash),
            options: GameOptions::default(),
            ruleset_document: None,
            bids: None,
            orders_recorded: true,
            seed_secret_while_running: true,
            standing_orders_sealed: true,
            shares_bounded: true,
            played_in_person: true,
        }
    }

    #[test]
    fn the_frame_events_read_back() {
        let created = GameStreamEvent::Created(GameCreated {
            bids: Some(vec![12]),
            ..created_with_hash("cd".repeat(32))
        });
        let (t, v, p) = created.encode().expect("encodes");
        assert_eq!(t.as_str(), "GameCreated");
        assert_eq!(
            GameStreamEvent::decode(t.as_str(), v, &p).expect("back"),
            created
        );
    }

    #[test]
    fn a_game_recorded_with_the_legacy_hash_of_its_ruleset_still_plays_and_a_stranger_does_not() {
        let current = Ruleset::builtin("cutthroat").expect("built in");
        let created = created_with_hash;
        for hash in [current.hash.clone(), current.legacy_hash.clone()] {
            let ruleset = created(hash).ruleset().expect("plays");
            assert_eq!(ruleset.hash, current.hash);
        }
        assert!(created("00".repeat(32)).ruleset().is_err());
    }

    #[test]
    fn an_unknown_type_a_later_version_or_a_bad_payload_is_refused_by_name() {
        let phase_ended = serde_json::json!({"power": "russia", "phase": "Repairs", "at": 0});
        assert!(matches!(
            GameStreamEvent::decode("PhaseEnded", 1, &phase_ended),
            Ok(GameStreamEvent::Played(GameEvent::PhaseEnded {
                phase: Phase::Repairs,
                ..
            }))
        ));
        for (t, v, p) in [
            ("PhaseEnded", 2, phase_ended.clone()),
            ("PhaseVanished", 1, phase_ended.clone()),
            ("PhaseEnded", 1, serde_json::json!({"power": "atlantis"})),
        ] {
            let err = GameStreamEvent::decode(t, v, &p).expect_err("refused");
            assert!(err.to_string().contains(t), "{err}");
        }
        let bad_die = serde_json::json!({"power": "russia", "die": 9, "granted": 0});
        let err = GameStreamEvent::decode("WarLoanApplied", 1, &bad_die).expect_err("no die 9");
        assert!(err.to_string().contains("1 to 6"), "{err}");
    }

    #[test]
    fn every_event_of_a_long_random_game_reads_back_as_it_was() {
        use warlog_rules::game::autoplay::random_order;
        use warlog_rules::game::{apply, decide, Moment};

        let ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
        let rules = ruleset.rules();
        let mut state = ruleset.start();
        let mut dice = GameSeed::from_bytes([5; 32]).dice_for("events-test", 0);
        let mut next = 0u64;
        let mut choose = |n: usize| {
            next = next
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((next >> 33) % n.max(1) as u64) as usize
        };
        let mut kinds = std::collections::BTreeSet::new();
        for _ in 0..20_000 {
            let (by, order) = random_order(rules, &state, &mut choose);
            let Ok(events) = decide(rules, &state, by, &order, Moment::default(), &mut dice) else {
                continue;
            };
            for event in events {
                apply(rules, &mut state, &event);
                let stored = GameStreamEvent::Played(event);
                let (t, v, p) = stored.encode().expect("encodes");
                kinds.insert(t.as_str().to_owned());
                assert_eq!(
                    GameStreamEvent::decode(t.as_str(), v, &p).expect("decodes"),
                    stored
                );
            }
        }
        assert!(kinds.len() >= 8, "{kinds:?}");
    }
}
