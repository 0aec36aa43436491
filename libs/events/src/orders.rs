//! Orders on the record. Every accepted command on a game (a player's orders, the game
//! master's end, a director's reveal or substitution) is appended as an `OrdersGiven` event
//! in the same append as the events it caused, which follow it. The record holds who sent
//! it, for which power, the orders as the server understood them (board names and unit
//! codes), the version they were decided on and the time the server used.
//!
//! [`GameLog::decide_command`] is the one decision both sides use: the server decides a
//! command with it before appending, and the auditor decides every recorded command again
//! with it and requires exactly the events that follow the record.

use warlog_rules::board::Power;
use warlog_rules::dice::{CountingDice, DiceSource, Die, GameSeed, RecordedDice};
use warlog_rules::game::named::{NameError, NameErrorKind, NamedOrder};
use warlog_rules::game::standing::{self, SealedOrders, StandingOrders, ToReveal};
use warlog_rules::game::{decide, DirectorOrder, GameEvent, Moment, Order, RuleViolation};
use warlog_rules::ruleset::Ruleset;
use warlog_rules::violation::ViolationCode;

pub use crate::command::{ByMail, Command, DmarcVerdict, OrderCutOff, OrdersGiven};
use crate::game::{GameCreated, GameLog, GameStreamEvent, SeedRevealed};
use crate::refusal::{Forbidden, RefusalKind};
use crate::sealed;
use crate::sender::{Role, Sender};
use crate::shares::{self, Exceeded};

/// Where an order's dice come from.
#[derive(Clone, Copy)]
pub enum DiceSupply<'a> {
    /// The server, and an auditor holding the seed: each order's dice from the seed at the
    /// stream version of the order's first event.
    Seed(&'a GameSeed),
    /// An auditor without the seed: each order's dice as the log recorded them in the
    /// event at that version, sealed standing orders as the log revealed them at that
    /// version (the orders and the salt, checked against their commitment), and the seed
    /// as the log revealed it (hex), if it did.
    Recorded {
        dice_at: &'a dyn Fn(u64) -> Vec<Die>,
        reveal_at: &'a dyn Fn(u64) -> Option<(StandingOrders, String)>,
        revealed: Option<&'a str>,
    },
    /// A command that rolls nothing (a substitution).
    None,
}

impl std::fmt::Debug for DiceSupply<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DiceSupply::Seed(_) => "DiceSupply::Seed",
            DiceSupply::Recorded { .. } => "DiceSupply::Recorded",
            DiceSupply::None => "DiceSupply::None",
        })
    }
}

impl DiceSupply<'_> {
    fn dice_at(&self, game_id: &str, version: u64) -> Box<dyn DiceSource> {
        match self {
            DiceSupply::Seed(seed) => Box::new(seed.dice_for(game_id, version)),
            DiceSupply::Recorded { dice_at, .. } => Box::new(RecordedDice::new(&dice_at(version))),
            DiceSupply::None => Box::new(RecordedDice::new(&[])),
        }
    }

    fn revealed_seed(&self) -> Option<String> {
        match self {
            DiceSupply::Seed(seed) => Some(hex::encode(seed.expose())),
            DiceSupply::Recorded { revealed, .. } => revealed.map(str::to_owned),
            DiceSupply::None => None,
        }
    }
}

/// Why a command is refused. Nothing is appended.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The sender may not give this command.
    #[error("{0}")]
    Forbidden(Forbidden),
    /// A name the ruleset does not know.
    #[error("{0}")]
    Name(#[from] NameError),
    /// A rule forbids it; `at` says which order (`orders[2]`, `end`, ...).
    #[error("{at}: {violation}")]
    Rule {
        at: String,
        violation: RuleViolation,
    },
    /// Decided on another version than the game's.
    #[error("the command was decided on version {expected}; the game was at version {actual}")]
    Version { expected: u64, actual: u64 },
    /// Asks for nothing, or for something the decider cannot make (a reveal without the seed).
    #[error("{0}")]
    Malformed(String),
}

/// A decided command: the events to append (the record first), and the game after them.
#[derive(Debug, Clone)]
pub struct Decided {
    pub events: Vec<GameStreamEvent>,
    pub after: GameLog,
    /// The order refused after dice were rolled, if the command stopped there.
    pub cut_off: Option<CutOff>,
}

/// Where and why a command stopped after dice were rolled: the orders before `index` are
/// carried out and on the record; the order at `index` is refused and the rest not decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutOff {
    /// The refused order's place among the orders sent.
    pub index: usize,
    /// The first order of the command that rolled dice.
    pub rolled_by: usize,
    pub violation: RuleViolation,
    /// How many orders were sent after the refused one.
    pub not_decided: usize,
}

/// The most orders one command may carry (a whole phase fits easily).
pub const MAX_ORDERS: usize = 200;

/// The most events one command may make: what one append takes.
pub const MAX_EVENTS_PER_COMMAND: usize = 1_000;

/// Room kept for the order being decided: an order is decided only while the command's
/// events leave this much below [`MAX_EVENTS_PER_COMMAND`], so whether the limit is
/// reached is known before the order rolls a die (one order makes a handful of events).
const ROOM_FOR_ONE_ORDER: usize = 100;

/// Where in a command an order stands, as refusals name it: `orders[2]`.
pub fn order_at(index: usize) -> String {
    format!("orders[{index}]")
}

/// A command's orders with every name resolved: 1 to [`MAX_ORDERS`] of them, a refusal
/// naming the order it is about.
pub(crate) fn resolve_orders<'a>(
    ruleset: &Ruleset,
    sent: impl ExactSizeIterator<Item = &'a NamedOrder>,
) -> Result<Vec<Order>, Refusal> {
    if sent.len() == 0 || sent.len() > MAX_ORDERS {
        return Err(Refusal::Malformed(format!(
            "orders: 1 to {MAX_ORDERS} orders, not {}",
            sent.len()
        )));
    }
    let resolved = sent
        .enumerate()
        .map(|(i, named)| named.resolve(ruleset, &order_at(i)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(resolved)
}

/// A power's share of the record exceeded: refused by its rule, naming the order at fault
/// (`orders[3]`) or the command's orders as a whole (`orders`).
impl From<Exceeded> for Refusal {
    fn from(exceeded: Exceeded) -> Self {
        Refusal::Rule {
            at: exceeded.order.map_or_else(|| "orders".to_owned(), order_at),
            violation: exceeded.violation,
        }
    }
}

impl Refusal {
    /// The place among the orders sent of the order a rule refused, if a rule refused one.
    pub fn order_index(&self) -> Option<usize> {
        let Refusal::Rule { at, .. } = self else {
            return None;
        };
        at.strip_prefix("orders[")?.strip_suffix(']')?.parse().ok()
    }
}

/// A name the ruleset does not know is answered as the kind of name it is.
impl crate::refusal::Refusal for NameError {
    fn kind(&self) -> RefusalKind {
        match self.kind {
            NameErrorKind::UnknownTerritory => RefusalKind::UnknownTerritory,
            NameErrorKind::UnknownUnit => RefusalKind::UnknownUnit,
            NameErrorKind::Malformed => RefusalKind::Malformed,
        }
    }
}

impl crate::refusal::Refusal for Refusal {
    fn kind(&self) -> RefusalKind {
        match self {
            Refusal::Forbidden(forbidden) => forbidden.kind(),
            Refusal::Name(error) => error.kind(),
            Refusal::Rule { .. } => RefusalKind::RuleViolation,
            Refusal::Version { .. } => RefusalKind::VersionConflict,
            Refusal::Malformed(_) => RefusalKind::Malformed,
        }
    }

    /// A client is told of the request it wrote; the display's words ("decided on") are
    /// the auditor's, who reads a record.
    fn detail(&self) -> String {
        match self {
            Refusal::Version { expected, actual } => format!(
                "the request was written for version {expected}; the game is at version {actual}"
            ),
            refusal => refusal.to_string(),
        }
    }

    fn violation(&self) -> Option<(&'static str, Option<&'static str>)> {
        match self {
            Refusal::Rule { violation, .. } => {
                Some((violation.code.as_str(), Some(violation.rule)))
            }
            _ => None,
        }
    }

    fn current_version(&self) -> Option<u64> {
        match self {
            Refusal::Version { actual, .. } => Some(*actual),
            _ => None,
        }
    }
}

fn rule(at: &str, violation: RuleViolation) -> Refusal {
    Refusal::Rule {
        at: at.to_owned(),
        violation,
    }
}

/// Whether `creator` may create the game `created` describes: an admin, a director or a
/// game master may create games, and the game's master holds no seat in it. A master seated in their own game would give orders for the powers playing
/// against them; only an admin may create such a game, and the record names the admin as
/// its creator (the event's actor).
pub fn may_create(created: &GameCreated, creator: &Sender) -> Result<(), Forbidden> {
    may_create_games(creator)?;
    match created.players.iter().find(|p| **p == created.game_master) {
        Some(player) => master_holds_no_seat(&created.game_master, player, creator),
        None => Ok(()),
    }
}

/// Whether `creator` may create games at all: an admin, a director or a game master. Asked
/// before anything of the game is read, so a role that may not create learns nothing more.
pub fn may_create_games(creator: &Sender) -> Result<(), Forbidden> {
    if matches!(creator.role, Role::Admin | Role::Director | Role::Gm) {
        Ok(())
    } else {
        Err(Forbidden::new(format!(
            "creating a game needs the role admin, director or gm; this token is a {}",
            creator.role
        )))
    }
}

/// A seat given to `player` in a game `game_master` masters: refused when they are the
/// same, unless an admin gives it.
fn master_holds_no_seat(game_master: &str, player: &str, sender: &Sender) -> Result<(), Forbidden> {
    if player == game_master && sender.role != Role::Admin {
        return Err(Forbidden::new(format!(
            "{player} is this game's master and may not also hold a seat in it: a master \
             seated in their own game would give orders for their opponents (only an admin \
             may allow it)"
        )));
    }
    Ok(())
}

impl GameLog {
    /// Whether `sender` may act in this game at `at`: for `power` when orders are given
    /// for one. admin: everything; gm and director: the games they created (their master);
    /// player: only the power seated to their name, or one whose proxy they are while it is
    /// in force ([`crate::proxy`]); auditor: nothing.
    pub fn authorize(
        &self,
        sender: &Sender,
        power: Option<Power>,
        at: Moment,
    ) -> Result<(), Forbidden> {
        match sender.role {
            Role::Admin => Ok(()),
            Role::Gm | Role::Director if self.created.game_master == sender.name => Ok(()),
            Role::Gm | Role::Director => Err(Forbidden::new(format!(
                "{} is not the game master of this game ({} is)",
                sender.name, self.created.game_master
            ))),
            Role::Player => {
                let Some(power) = power else {
                    return Err(Forbidden::new("a player acts only for a power"));
                };
                let in_force = self
                    .proxy_in_force(power, at)
                    .is_some_and(|p| p.proxy == sender.name);
                // Named once, and no more in force: said, with when it ended.
                let proxy = self.proxies.get(&power).filter(|p| p.proxy == sender.name);
                match self.state.seats.get(&power) {
                    Some(seat) if seat.player == sender.name => Ok(()),
                    Some(_) if in_force => Ok(()),
                    Some(seat) => Err(Forbidden::new(format!(
                        "{} plays {}, not {}{}",
                        seat.player,
                        power.name(),
                        sender.name,
                        proxy.map_or_else(String::new, |p| format!(
                            " ({}'s proxy for {} ended at {})",
                            p.proxy,
                            p.player,
                            crate::proxy::moment_in_words(p.until)
                        ))
                    ))),
                    None => Err(Forbidden::new(format!(
                        "nobody is seated at {}",
                        power.name()
                    ))),
                }
            }
            Role::Auditor => Err(Forbidden::new("an auditor reads and never acts")),
        }
    }

    /// Whether the sender of `given` may give its command on this game now.
    pub fn may_command(&self, given: &OrdersGiven) -> Result<(), Forbidden> {
        let (sender, command) = (&given.sender, &given.command);
        let one_of = |roles: &[Role], what: &str| {
            if roles.contains(&sender.role) {
                Ok(())
            } else {
                let allowed: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
                Err(Forbidden::new(format!(
                    "{what} needs the role {}; {} is a {}",
                    allowed.join(" or "),
                    sender.name,
                    sender.role
                )))
            }
        };
        // A director acts on the games it masters (a tournament's games have their
        // director as master); only an admin acts on any game.
        let of_this_game = |what: &str| {
            one_of(&[Role::Admin, Role::Director], what)?;
            if sender.role == Role::Director && self.created.game_master != sender.name {
                return Err(Forbidden::new(format!(
                    "{what} is for this game's director: {} directs neither this game nor its \
                     tournament ({} does)",
                    sender.name, self.created.game_master
                )));
            }
            Ok(())
        };
        match command {
            Command::Orders { power, .. } => {
                // "After a player is clearly defeated, but not eliminated, he may go to
                // passive status" (Cut-Throat, Rules for players): whether a power is
                // clearly defeated is the game master's or a director's judgement, so a
                // player asks them rather than declaring it alone.
                if sender.role == Role::Player
                    && given
                        .orders_sent()
                        .iter()
                        .any(|o| matches!(o, NamedOrder::GoPassive))
                {
                    return Err(Forbidden::new(format!(
                        "{} may not declare {} passive: the game master or a director \
                         declares a clearly defeated power passive",
                        sender.name,
                        power.name()
                    )));
                }
                self.authorize(sender, Some(*power), given.at)
            }
            Command::EndGame => self.authorize(sender, None, given.at),
            Command::RevealSeed => of_this_game("revealing a game's seed"),
            Command::ReplaceInactivePlayer { substitute } => {
                of_this_game("appointing a substitute")?;
                master_holds_no_seat(&self.created.game_master, substitute, sender)
            }
            Command::VoidGame { .. } => of_this_game("voiding a game"),
            Command::TakeSeat { player, .. } => {
                of_this_game("changing a game's seats")?;
                master_holds_no_seat(&self.created.game_master, player, sender)
            }
            Command::NameProxy { power, .. } => {
                self.may_handle_proxy(sender, *power, given.at, false)
            }
            Command::EndProxy { power } => self.may_handle_proxy(sender, *power, given.at, true),
        }
    }

    /// Decides a command on this game: the sender's right to give it, then each order in
    /// turn on the state the earlier ones left, each with its dice from `dice` at the
    /// version of its first event. The record comes first, so the events it explains
    /// follow it.
    ///
    /// A die once rolled counts. Orders are all or nothing until one of them rolls dice;
    /// from then on an order the rules refuse is cut off with the orders after it, and the
    /// orders before it stand, with their dice (the record keeps the refused order and the
    /// rest: [`OrdersGiven::cut_off`]). So no refusal depends on a die that is not on the
    /// record: a refusal before any die depends on the board alone, and one after a die
    /// comes with that die. (Names are all resolved first: they depend on nothing rolled.)
    /// A record that already holds a cut-off (the auditor's) is decided as it was sent.
    pub fn decide_command(
        &self,
        given: &OrdersGiven,
        dice: DiceSupply<'_>,
    ) -> Result<Decided, Refusal> {
        self.may_command(given).map_err(Refusal::Forbidden)?;
        if given.expected_version != self.version {
            return Err(Refusal::Version {
                expected: given.expected_version,
                actual: self.version,
            });
        }
        // Every power's share of the record is bounded: checked before anything is decided.
        match &given.command {
            Command::Orders { power, .. } => shares::check(self, *power, &given.orders_sent())?,
            Command::NameProxy { power, .. } | Command::EndProxy { power } => {
                shares::check_count(self, *power, 1)?
            }
            _ => {}
        }
        // Orders given by a proxy are marked so on their record.
        let given = &OrdersGiven {
            proxy_for: match &given.command {
                Command::Orders { power, .. } => self.acting_for(&given.sender, *power),
                _ => None,
            },
            ..given.clone()
        };
        let mut after = self.clone();
        let record = GameStreamEvent::Orders(given.clone());
        after.apply_decided(&record);
        let mut events = vec![record];
        let mut cut_off = None;
        // The director's and game master's commands are the engine's director orders.
        let director = match &given.command {
            Command::Orders { power, .. } => {
                cut_off = decide_orders(given, *power, &dice, &mut after, &mut events)?;
                None
            }
            Command::EndGame => Some((DirectorOrder::EndGame, "end")),
            Command::VoidGame { reason } => Some((
                DirectorOrder::VoidGame {
                    reason: reason.clone(),
                },
                "void",
            )),
            Command::RevealSeed => {
                may_reveal_seed(&after)?;
                push(&mut after, &mut events, reveal(&dice)?);
                None
            }
            Command::TakeSeat {
                power,
                player,
                reason,
            } => {
                seats_stand_once_begun(self)?;
                Some((
                    DirectorOrder::TakeSeat {
                        power: *power,
                        player: player.clone(),
                        reason: reason.clone(),
                    },
                    "seat",
                ))
            }
            Command::ReplaceInactivePlayer { substitute } => Some((
                DirectorOrder::ReplaceInactivePlayer {
                    substitute: substitute.clone(),
                },
                "substitute",
            )),
            Command::NameProxy {
                power,
                proxy,
                until,
            } => {
                let named = self
                    .name_proxy(*power, proxy, *until, given.at)
                    .map_err(|v| rule("proxy", v))?;
                push(&mut after, &mut events, GameStreamEvent::ProxyNamed(named));
                None
            }
            Command::EndProxy { power } => {
                let ended = self
                    .end_proxy(*power, given.at)
                    .map_err(|v| rule("proxy", v))?;
                push(&mut after, &mut events, GameStreamEvent::ProxyEnded(ended));
                None
            }
        };
        if let Some((order, at)) = director {
            for event in after
                .decide_director(&order, given.at)
                .map_err(|v| rule(at, v))?
            {
                push(&mut after, &mut events, GameStreamEvent::Played(event));
            }
            // Over: its dice can be checked now.
            let over = matches!(given.command, Command::EndGame | Command::VoidGame { .. });
            if over && after.revealed_seed.is_none() {
                push(&mut after, &mut events, reveal(&dice)?);
            }
        }
        if events.len() > MAX_EVENTS_PER_COMMAND {
            // Unreachable while one order makes fewer events than the room kept for it.
            return Err(Refusal::Malformed(TOO_MANY_EVENTS.to_owned()));
        }
        Ok(Decided {
            events,
            after,
            cut_off,
        })
    }
}

/// The seed decides every die still to come: known while the game runs, it would let
/// anyone foresee them. The end (or a void) reveals it, once.
fn may_reveal_seed(log: &GameLog) -> Result<(), Refusal> {
    if log.created.seed_secret_while_running
        && log.revealed_seed.is_none()
        && log.state.ended.is_none()
        && log.state.voided.is_none()
    {
        return Err(rule(
            "reveal",
            RuleViolation {
                code: ViolationCode::GameRunning,
                rule: "docs/design.md, The dice",
                message: "the seed is revealed when the game ends (end, or void): while it \
                          runs, it would tell every die still to come"
                    .to_owned(),
            },
        ));
    }
    if log.revealed_seed.is_some() {
        return Err(rule(
            "reveal",
            RuleViolation {
                code: ViolationCode::AlreadyRevealed,
                rule: "docs/design.md, The dice",
                message: "the seed is revealed already".to_owned(),
            },
        ));
    }
    Ok(())
}

/// A seat is changed by the director only before the first order: once the game has
/// begun, its seats stand (a player leaves it by substitution).
fn seats_stand_once_begun(log: &GameLog) -> Result<(), Refusal> {
    if log.orders_given > 0 {
        return Err(rule(
            "seat",
            RuleViolation {
                code: ViolationCode::GameBegun,
                rule: "tournament seating",
                message: format!(
                    "the game has begun ({} orders are on its record): its seats stand",
                    log.orders_given
                ),
            },
        ));
    }
    Ok(())
}

fn push(after: &mut GameLog, events: &mut Vec<GameStreamEvent>, event: GameStreamEvent) {
    after.apply_decided(&event);
    events.push(event);
}

const TOO_MANY_EVENTS: &str =
    "these orders make too many events for one request: send them in parts";

/// The orders of `given`, decided in turn onto `after` and `events` (whose first event is
/// its record): all or nothing until an order rolls dice, then cut off at a refusal, the
/// record rewritten to say so. The cut-off, if any.
fn decide_orders(
    given: &OrdersGiven,
    power: Power,
    dice: &DiceSupply<'_>,
    after: &mut GameLog,
    events: &mut Vec<GameStreamEvent>,
) -> Result<Option<CutOff>, Refusal> {
    let sent = given.orders_sent();
    let resolved = resolve_orders(after.ruleset, sent.iter().copied())?;
    let rules = after.ruleset.rules();
    let sealing = after.created.standing_orders_sealed;
    if sealing {
        // Standing orders are checked before any die: refused after one, they would stand
        // on the record (the cut-off keeps the refused order) in the open.
        for (i, order) in resolved.iter().enumerate() {
            if let Order::SetStandingOrders { territory, orders } = order {
                standing::check(rules, *territory, orders).map_err(|v| rule(&order_at(i), v))?;
            }
        }
    }
    // The orders as the record keeps them: standing orders sealed.
    let mut recorded: Vec<NamedOrder> = sent.iter().map(|o| (*o).clone()).collect();
    let mut rolled_by = None;
    for (i, order) in resolved.iter().enumerate() {
        // Known before the order rolls: the events so far are the earlier orders'.
        let full = events.len() + ROOM_FOR_ONE_ORDER > MAX_EVENTS_PER_COMMAND;
        let decided = if full {
            Err(RuleViolation {
                code: ViolationCode::TooLarge,
                rule: "the service's limits",
                message: TOO_MANY_EVENTS.to_owned(),
            })
        } else {
            // A battle that follows sealed standing orders reveals them first: decided on
            // the game after the reveal, which is recorded only if the battle is.
            let revealing = match standing::to_reveal(rules, &after.state, power, order) {
                Some(to) if sealing => {
                    let event = GameStreamEvent::Played(reveal_standing(dice, after, &to)?);
                    let mut revealed = after.clone();
                    revealed.apply_decided(&event);
                    Some((revealed, event))
                }
                _ => None,
            };
            let base = revealing.as_ref().map_or(&*after, |(revealed, _)| revealed);
            let mut seeded = dice.dice_at(&base.created.game_id, base.version + 1);
            let mut counted = CountingDice::new(&mut *seeded);
            let decided = decide(rules, &base.state, power, order, given.at, &mut counted)
                .map(|played| (revealing.map(|(_, event)| event), played));
            // The engine checks everything before its first die; a refusal after one would
            // tell how the dice fell.
            debug_assert!(
                decided.is_ok() || counted.drawn() == 0,
                "orders[{i}] was refused after rolling dice: {decided:?}"
            );
            if counted.drawn() > 0 {
                rolled_by = rolled_by.or(Some(i));
            }
            decided
        };
        // Sealed orders a record gives must open (with the seed) and be sealed for their
        // own event: otherwise the order is refused like any other, after the dice as a
        // cut-off, so the refusal never tells what the dice did.
        let decided = decided.and_then(|(reveal, played)| {
            for event in &played {
                if let GameEvent::StandingOrdersSealed { sealed, .. } = event {
                    check_sealed(sealing, dice, after, sealed)?;
                }
            }
            Ok((reveal, played))
        });
        let violation = match decided {
            Ok((reveal, played)) => {
                if let Some(reveal) = reveal {
                    push(after, events, reveal);
                }
                for event in played {
                    let event = match event {
                        GameEvent::StandingOrdersSet {
                            power,
                            territory,
                            orders,
                        } if sealing => {
                            let sealed = seal_standing(dice, after, &orders)?;
                            recorded[i] = NamedOrder::of(
                                &Order::SealedStandingOrders {
                                    territory,
                                    sealed: Some(sealed.clone()),
                                },
                                after.ruleset,
                            );
                            GameEvent::StandingOrdersSealed {
                                power,
                                territory,
                                sealed,
                            }
                        }
                        other => other,
                    };
                    push(after, events, GameStreamEvent::Played(event));
                }
                continue;
            }
            Err(violation) => violation,
        };
        let Some(rolled_by) = rolled_by.filter(|r| *r < i) else {
            return Err(if full {
                Refusal::Malformed(TOO_MANY_EVENTS.to_owned())
            } else {
                rule(&order_at(i), violation)
            });
        };
        let cut = CutOff {
            index: i,
            rolled_by,
            violation,
            not_decided: sent.len() - i - 1,
        };
        if sealing {
            // Never decided, they are never sealed: their content is withheld.
            for order in &mut recorded[i..] {
                if let NamedOrder::SetStandingOrders { territory, .. } = order {
                    *order = NamedOrder::SealedStandingOrders {
                        territory: territory.take(),
                        sealed: None,
                    };
                }
            }
        }
        events[0] = GameStreamEvent::Orders(record_of(given, &recorded, Some(&cut)));
        return Ok(Some(cut));
    }
    // A record that was cut off (the auditor's), whose orders the rules all accept, is
    // decided again as a command carried out whole: the comparison then names it.
    let sealed_any = recorded.iter().zip(&sent).any(|(r, s)| r != *s);
    if given.cut_off.is_some() || sealed_any {
        events[0] = GameStreamEvent::Orders(record_of(given, &recorded, None));
    }
    Ok(None)
}

/// `orders`, sealed at the version their event takes.
fn seal_standing(
    dice: &DiceSupply<'_>,
    log: &GameLog,
    orders: &StandingOrders,
) -> Result<SealedOrders, Refusal> {
    match dice {
        DiceSupply::Seed(seed) => Ok(sealed::seal(
            seed,
            &log.created.game_id,
            log.version + 1,
            orders,
        )),
        _ => Err(Refusal::Malformed(
            "this game records standing orders sealed, and these stand in the open: the server \
             never records them so"
                .to_owned(),
        )),
    }
}

/// Sealed orders as a record gives them. They must be sealed for their own event; with
/// the seed, they must open to orders the rules accept, sealed by this game; without it,
/// they are taken as recorded and checked when a battle reveals them. A game whose orders
/// stand in the open has none. (Sealed orders are an order of their own, whose one event
/// lands at the log's next version.)
fn check_sealed(
    sealing: bool,
    dice: &DiceSupply<'_>,
    log: &GameLog,
    sealed: &SealedOrders,
) -> Result<(), RuleViolation> {
    let version = log.version;
    let refuse = |why: String| RuleViolation {
        code: ViolationCode::StandingOrdersSealed,
        rule: "Part 13",
        message: format!("{why}: send them as set_standing_orders, and the server seals them"),
    };
    if !sealing {
        return Err(refuse(
            "this game keeps standing orders in the open (it began before they were sealed)"
                .to_owned(),
        ));
    }
    if sealed.sealed_at != version + 1 {
        return Err(refuse(format!(
            "these standing orders were sealed for event {}, not event {}",
            sealed.sealed_at,
            version + 1
        )));
    }
    let DiceSupply::Seed(seed) = dice else {
        return Ok(());
    };
    let (orders, _) =
        sealed::open(seed, &log.created.game_id, sealed).map_err(|e| refuse(e.to_string()))?;
    standing::check(log.ruleset.rules(), None, &orders).map_err(|v| {
        refuse(format!(
            "the sealed standing orders are refused: {}",
            v.message
        ))
    })
}

/// The reveal of sealed standing orders a battle is about to follow: opened with the seed,
/// or as the record revealed them at that version; either way it must match the
/// commitment and be orders the rules accept.
fn reveal_standing(
    dice: &DiceSupply<'_>,
    log: &GameLog,
    to: &ToReveal,
) -> Result<GameEvent, Refusal> {
    let version = log.version + 1;
    let whose = format!(
        "{}'s standing orders sealed at event {}",
        to.power.name(),
        to.sealed.sealed_at
    );
    let (orders, salt) = match dice {
        DiceSupply::Seed(seed) => sealed::open(seed, &log.created.game_id, &to.sealed)
            .map_err(|e| Refusal::Malformed(e.to_string()))?,
        DiceSupply::Recorded { reveal_at, .. } => reveal_at(version).ok_or_else(|| {
            Refusal::Malformed(format!(
                "the battle after event {version} follows {whose}, and the record does not \
                 reveal them at event {version}"
            ))
        })?,
        DiceSupply::None => {
            return Err(Refusal::Malformed(format!(
                "{whose} cannot be revealed here"
            )))
        }
    };
    if !sealed::reveal_matches(&to.sealed, &orders, &salt) {
        return Err(Refusal::Malformed(format!(
            "the standing orders revealed at event {version} are not {whose}: they do not \
             match its commitment"
        )));
    }
    standing::check(log.ruleset.rules(), to.territory, &orders).map_err(|v| {
        Refusal::Malformed(format!(
            "{whose}, revealed at event {version}, are refused by the rules: {}",
            v.message
        ))
    })?;
    Ok(GameEvent::StandingOrdersRevealed {
        power: to.power,
        territory: to.territory,
        orders,
        salt,
    })
}

/// The record of a command as decided: the orders carried out, then, if it was cut off,
/// the refused order with its reason and the orders after it.
fn record_of(given: &OrdersGiven, sent: &[NamedOrder], cut: Option<&CutOff>) -> OrdersGiven {
    let Command::Orders { power, .. } = &given.command else {
        unreachable!("only orders are cut off")
    };
    let carried = cut.map_or(sent.len(), |c| c.index);
    OrdersGiven {
        command: Command::Orders {
            power: *power,
            orders: sent[..carried].to_vec(),
        },
        cut_off: cut.map(|cut| OrderCutOff {
            order: sent[cut.index].clone(),
            code: cut.violation.code,
            rule: cut.violation.rule.to_owned(),
            message: cut.violation.message.clone(),
            not_decided: sent[cut.index + 1..].to_vec(),
        }),
        ..given.clone()
    }
}

fn reveal(dice: &DiceSupply<'_>) -> Result<GameStreamEvent, Refusal> {
    dice.revealed_seed()
        .map(|seed| GameStreamEvent::SeedRevealed(SeedRevealed { seed }))
        .ok_or_else(|| Refusal::Malformed("the seed to reveal is not known here".to_owned()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sample::SampleGame;

    fn game() -> SampleGame {
        SampleGame::new(
            Ruleset::builtin("cutthroat").expect("cutthroat"),
            "orders-test",
            GameSeed::from_bytes([7; 32]),
            1,
        )
    }

    fn player_of(game: &SampleGame, power: Power) -> Sender {
        Sender {
            role: Role::Player,
            name: game.log.state.seats[&power].player.clone(),
        }
    }

    fn orders(game: &SampleGame, sender: Sender, orders: Vec<NamedOrder>) -> OrdersGiven {
        OrdersGiven::new(
            sender,
            game.log.version,
            Moment::from_unix_seconds(1_800_000_100),
            Command::Orders {
                power: Power::Russia,
                orders,
            },
        )
    }

    #[test]
    fn the_record_comes_first_and_the_events_it_caused_follow_it() {
        let game = game();
        let given = orders(
            &game,
            player_of(&game, Power::Russia),
            vec![NamedOrder::EndPhase, NamedOrder::EndPhase],
        );
        let decided = game
            .log
            .decide_command(&given, DiceSupply::Seed(&game.seed))
            .expect("decided");
        assert_eq!(decided.events[0], GameStreamEvent::Orders(given));
        assert_eq!(decided.events.len(), 3, "the record and two phase ends");
        assert_eq!(decided.after.version, game.log.version + 3);
    }

    #[test]
    fn a_command_of_no_orders_or_more_than_the_limit_is_refused_whole() {
        let game = game();
        for count in [0, MAX_ORDERS + 1] {
            let given = orders(
                &game,
                player_of(&game, Power::Russia),
                vec![NamedOrder::EndPhase; count],
            );
            let refused = game
                .log
                .decide_command(&given, DiceSupply::Seed(&game.seed))
                .expect_err("out of bounds");
            assert!(
                matches!(&refused, Refusal::Malformed(why) if why == &format!("orders: 1 to 200 orders, not {count}")),
                "{refused}"
            );
        }
    }

    #[test]
    fn a_player_may_not_order_another_players_power() {
        let game = game();
        let given = orders(
            &game,
            player_of(&game, Power::Germany),
            vec![NamedOrder::EndPhase],
        );
        let refused = game
            .log
            .decide_command(&given, DiceSupply::Seed(&game.seed))
            .expect_err("not theirs");
        assert!(matches!(refused, Refusal::Forbidden(_)), "{refused}");
    }

    #[test]
    fn a_command_decided_on_another_version_is_refused() {
        let game = game();
        let mut given = orders(
            &game,
            player_of(&game, Power::Russia),
            vec![NamedOrder::EndPhase],
        );
        given.expected_version += 1;
        let refused = game
            .log
            .decide_command(&given, DiceSupply::Seed(&game.seed))
            .expect_err("stale");
        assert!(matches!(refused, Refusal::Version { .. }), "{refused}");
    }

    #[test]
    fn only_the_game_master_or_a_director_declares_a_power_passive() {
        // Cut-Throat, Rules for players: "After a player is clearly defeated, but not
        // eliminated, he may go to passive status."
        let game = game();
        let by_player = orders(
            &game,
            player_of(&game, Power::Russia),
            vec![NamedOrder::GoPassive],
        );
        let refused = game
            .log
            .decide_command(&by_player, DiceSupply::Seed(&game.seed))
            .expect_err("the player alone");
        assert!(refused
            .to_string()
            .contains("declares a clearly defeated power passive"));
        let by_master = orders(
            &game,
            Sender {
                role: Role::Gm,
                name: crate::sample::GAME_MASTER.into(),
            },
            vec![NamedOrder::GoPassive],
        );
        let decided = game
            .log
            .decide_command(&by_master, DiceSupply::Seed(&game.seed))
            .expect("the game master declares it");
        assert!(decided.after.state.passive.contains(&Power::Russia));
    }

    /// A void of `game` "because nobody came", sent by `name` in `role`.
    fn void_by(game: &SampleGame, role: Role, name: &str) -> OrdersGiven {
        OrdersGiven::new(
            Sender {
                role,
                name: name.into(),
            },
            game.log.version,
            Moment::from_unix_seconds(1_800_000_100),
            Command::VoidGame {
                reason: "nobody came".into(),
            },
        )
    }

    #[test]
    fn only_the_games_own_director_or_an_admin_may_void_it() {
        // Given a game whose master is the sample's game master,
        let game = game();
        let void = |role, name: &str| void_by(&game, role, name);
        // when a director who is not its master voids it, then it is refused;
        let foreign = game
            .log
            .decide_command(&void(Role::Director, "dave"), DiceSupply::Seed(&game.seed))
            .expect_err("not dave's game");
        assert!(
            matches!(&foreign, Refusal::Forbidden(why) if why.to_string().contains("dave directs neither")),
            "{foreign}"
        );
        // and its own director, or an admin, may.
        for (role, name) in [
            (Role::Director, crate::sample::GAME_MASTER),
            (Role::Admin, "root"),
        ] {
            game.log
                .decide_command(&void(role, name), DiceSupply::Seed(&game.seed))
                .expect("allowed");
        }
    }

    #[test]
    fn a_void_needs_a_director_and_reveals_the_seed() {
        let game = game();
        let void = |role| void_by(&game, role, crate::sample::GAME_MASTER);
        let refused = game
            .log
            .decide_command(&void(Role::Gm), DiceSupply::Seed(&game.seed))
            .expect_err("a game master may not");
        assert!(matches!(refused, Refusal::Forbidden(_)), "{refused}");
        let decided = game
            .log
            .decide_command(&void(Role::Director), DiceSupply::Seed(&game.seed))
            .expect("a director may");
        assert!(matches!(
            decided.events.last(),
            Some(GameStreamEvent::SeedRevealed(_))
        ));
        assert_eq!(decided.after.state.voided.as_deref(), Some("nobody came"));
    }

    /// A Cut-Throat game played at random until the power to move has a battle to fight:
    /// the game and the place.
    pub(crate) fn at_a_battle() -> (SampleGame, String) {
        (1..40)
            .find_map(|choice| {
                let mut game = SampleGame::new(
                    Ruleset::builtin("cutthroat").expect("cutthroat"),
                    "cut-off-test",
                    GameSeed::from_bytes([9; 32]),
                    choice,
                );
                let place = game.play_until_battle(20_000)?;
                Some((game, place))
            })
            .expect("random play reaches a battle")
    }

    pub(crate) fn named(order: serde_json::Value) -> NamedOrder {
        serde_json::from_value(order).expect("a named order")
    }

    pub(crate) fn by_the_master(game: &SampleGame, orders: Vec<NamedOrder>) -> OrdersGiven {
        OrdersGiven::new(
            Sender {
                role: Role::Gm,
                name: crate::sample::GAME_MASTER.into(),
            },
            game.log.version,
            Moment::from_unix_seconds(1_900_000_000),
            Command::Orders {
                power: game.log.state.power(&game.log.ruleset.board),
                orders,
            },
        )
    }

    #[test]
    fn an_order_refused_after_a_battle_is_cut_off_and_the_battle_stands() {
        // Given a power with a battle to fight,
        let (game, place) = at_a_battle();
        let purchase = named(serde_json::json!({"type": "purchase", "units": {"INF": 1}}));
        let fight = named(serde_json::json!({"type": "fight_battle", "territory": place}));
        // when it sends the battle, a purchase (not allowed in the Battles phase) and more,
        let given = by_the_master(
            &game,
            vec![fight.clone(), purchase.clone(), NamedOrder::EndPhase],
        );
        let decided = game
            .log
            .decide_command(&given, DiceSupply::Seed(&game.seed))
            .expect("the battle stands");
        // then the battle is on the record with its dice, and the purchase is cut off.
        let cut = decided.cut_off.as_ref().expect("cut off");
        assert_eq!((cut.index, cut.rolled_by, cut.not_decided), (1, 0, 1));
        assert_eq!(cut.violation.code, ViolationCode::WrongPhase);
        let GameStreamEvent::Orders(record) = &decided.events[0] else {
            panic!("the record first")
        };
        assert!(
            matches!(&record.command, Command::Orders { orders, .. } if orders == &vec![fight])
        );
        let kept = record
            .cut_off
            .as_ref()
            .expect("the record keeps the refusal");
        assert_eq!(kept.order, purchase);
        assert_eq!(kept.not_decided, vec![NamedOrder::EndPhase]);
        assert!(decided.events[1..].iter().all(|e| !matches!(
            e,
            GameStreamEvent::Played(warlog_rules::game::GameEvent::UnitsPurchased { .. })
        )));
        assert!(matches!(
            &decided.events[1],
            GameStreamEvent::Played(played) if played.is_battle()
        ));
        // And the record, decided again as an auditor does, gives the same events.
        let again = game
            .log
            .decide_command(record, DiceSupply::Seed(&game.seed))
            .expect("decided again");
        assert_eq!(again.events, decided.events);
    }

    #[test]
    fn an_order_refused_before_any_die_refuses_the_whole_command_whatever_the_seed() {
        // Given a power with a battle to fight,
        let (game, place) = at_a_battle();
        // when the refused order comes before the battle,
        let given = by_the_master(
            &game,
            vec![
                named(serde_json::json!({"type": "purchase", "units": {"INF": 1}})),
                named(serde_json::json!({"type": "fight_battle", "territory": place})),
            ],
        );
        // then nothing is decided, and the refusal is the same under any seed.
        let refusals: Vec<String> = (0u8..8)
            .map(|s| {
                game.log
                    .decide_command(&given, DiceSupply::Seed(&GameSeed::from_bytes([s; 32])))
                    .expect_err("refused whole")
                    .to_string()
            })
            .collect();
        assert!(refusals[0].starts_with("orders[0]: "), "{}", refusals[0]);
        assert!(refusals.iter().all(|r| r == &refusals[0]), "{refusals:?}");
    }

    #[test]
    fn an_unknown_name_anywhere_refuses_the_command_before_any_die() {
        let (game, place) = at_a_battle();
        let given = by_the_master(
            &game,
            vec![
                named(serde_json::json!({"type": "fight_battle", "territory": place})),
                named(serde_json::json!({"type": "purchase", "units": {"XYZ": 1}})),
            ],
        );
        let refused = game
            .log
            .decide_command(&given, DiceSupply::Seed(&game.seed))
            .expect_err("a name the ruleset does not know");
        assert!(matches!(refused, Refusal::Name(_)), "{refused}");
    }

    #[test]
    fn a_game_whose_master_is_among_its_players_is_refused_unless_an_admin_creates_it() {
        // Given a game's creation with its master, gm, named among its players,
        let mut created = game().log.created.clone();
        assert_eq!(may_create(&created, &sender(Role::Gm, "gm")), Ok(()));
        created.players[0] = crate::sample::GAME_MASTER.to_owned();
        // when a gm or a director of that name creates it, then it is refused;
        for role in [Role::Gm, Role::Director] {
            let refused = may_create(&created, &sender(role, "gm")).expect_err("seated master");
            assert!(
                refused.to_string().contains("may not also hold a seat"),
                "{refused}"
            );
        }
        // when an admin does, then it stands, the admin named on the record as its creator.
        assert_eq!(may_create(&created, &sender(Role::Admin, "gm")), Ok(()));
    }

    #[test]
    fn a_games_master_may_not_take_a_seat_in_it_nor_be_its_substitute_unless_an_admin_gives_it() {
        // Given a game its director dora masters,
        let mut game = game();
        game.log.created.game_master = "dora".to_owned();
        let given = |by: Sender, command: Command| {
            OrdersGiven::new(
                by,
                game.log.version,
                Moment::from_unix_seconds(1_800_000_100),
                command,
            )
        };
        let take_seat = |player: &str| Command::TakeSeat {
            power: Power::Russia,
            player: player.to_owned(),
            reason: "a swap".to_owned(),
        };
        let substitute = |player: &str| Command::ReplaceInactivePlayer {
            substitute: player.to_owned(),
        };
        // when dora gives herself a seat or names herself substitute, then refused;
        for command in [take_seat("dora"), substitute("dora")] {
            let refused = game
                .log
                .may_command(&given(sender(Role::Director, "dora"), command))
                .expect_err("the master seated");
            assert!(
                refused.to_string().contains("may not also hold a seat"),
                "{refused}"
            );
        }
        // when she seats another, or an admin seats her, then allowed.
        for (by, command) in [
            (sender(Role::Director, "dora"), take_seat("zed")),
            (sender(Role::Director, "dora"), substitute("zed")),
            (sender(Role::Admin, "root"), take_seat("dora")),
        ] {
            assert_eq!(game.log.may_command(&given(by, command)), Ok(()));
        }
    }

    #[test]
    fn only_an_admin_a_director_or_a_game_master_creates_games() {
        // Given each role, when it asks to create a game, then the league's officers and
        // game masters may, and a player or an auditor is told which roles may
        for role in [Role::Admin, Role::Director, Role::Gm] {
            assert_eq!(may_create_games(&sender(role, "ann")), Ok(()), "{role}");
        }
        for role in [Role::Player, Role::Auditor] {
            let refused = may_create_games(&sender(role, "ann")).expect_err("may not");
            assert_eq!(
                refused.to_string(),
                format!(
                    "creating a game needs the role admin, director or gm; this token is a {role}"
                )
            );
        }
    }

    #[test]
    fn a_game_is_acted_on_by_its_master_an_admin_or_the_player_of_a_power_and_no_one_else() {
        // Given a game, its master and the player seated at Russia
        let game = game();
        let at = Moment::from_unix_seconds(1_800_000_100);
        let authorize = |by: Sender, power| game.log.authorize(&by, power, at);
        let master = crate::sample::GAME_MASTER;
        let russia = player_of(&game, Power::Russia);
        // When they act, then they may
        assert_eq!(authorize(sender(Role::Gm, master), None), Ok(()));
        assert_eq!(authorize(sender(Role::Admin, "root"), None), Ok(()));
        assert_eq!(authorize(russia.clone(), Some(Power::Russia)), Ok(()));
        // When anyone else acts, then each is forbidden, in words that say why
        let refusals = [
            (
                authorize(sender(Role::Gm, "gus"), None),
                format!("gus is not the game master of this game ({master} is)"),
            ),
            (
                authorize(russia.clone(), None),
                "a player acts only for a power".to_owned(),
            ),
            (
                authorize(russia.clone(), Some(Power::Germany)),
                format!(
                    "{} plays {}, not {}",
                    game.log.state.seats[&Power::Germany].player,
                    Power::Germany.name(),
                    russia.name
                ),
            ),
            (
                authorize(sender(Role::Auditor, "audrey"), None),
                "an auditor reads and never acts".to_owned(),
            ),
        ];
        for (refused, words) in refusals {
            assert_eq!(refused.map_err(|why| why.to_string()), Err(words));
        }
    }

    #[test]
    fn a_refused_command_is_answered_by_its_kind_with_its_rule_or_the_games_version() {
        use crate::refusal::Refusal as _;
        let game = game();
        // Given a player ordering another's power, and a command on an old version
        let foreign = orders(
            &game,
            player_of(&game, Power::Germany),
            vec![NamedOrder::EndPhase],
        );
        let mut stale = orders(
            &game,
            player_of(&game, Power::Russia),
            vec![NamedOrder::EndPhase],
        );
        stale.expected_version += 1;
        // When each is decided
        let decide = |given: &OrdersGiven| {
            game.log
                .decide_command(given, DiceSupply::Seed(&game.seed))
                .expect_err("refused")
        };
        let (forbidden, version) = (decide(&foreign), decide(&stale));
        // Then the first is forbidden in its own words, naming no rule
        assert_eq!(forbidden.kind(), RefusalKind::Forbidden);
        assert_eq!(forbidden.detail(), forbidden.to_string());
        assert_eq!(forbidden.violation(), None);
        // and the second is a conflict telling the client the game's version
        assert_eq!(version.kind(), RefusalKind::VersionConflict);
        assert_eq!(version.current_version(), Some(game.log.version));
        assert_eq!(
            version.detail(),
            format!(
                "the request was written for version {}; the game is at version {}",
                game.log.version + 1,
                game.log.version
            )
        );
        // and a rule's refusal names the rule's code and the rule
        let rule = rule(
            "orders[0]",
            RuleViolation {
                code: ViolationCode::GameRunning,
                rule: "docs/design.md, The dice",
                message: "not yet".to_owned(),
            },
        );
        assert_eq!(rule.kind(), RefusalKind::RuleViolation);
        assert_eq!(
            rule.violation(),
            Some(("game-running", Some("docs/design.md, The dice")))
        );
        assert_eq!(
            rule.detail(),
            "orders[0]: not yet (docs/design.md, The dice)"
        );
    }

    fn sender(role: Role, name: &str) -> Sender {
        Sender {
            role,
            name: name.to_owned(),
        }
    }
}
