//! Orders on the record. Every accepted command on a game (a player's orders, the game
//! master's end, a director's reveal or substitution) is appended as an `OrdersGiven` event
//! in the same append as the events it caused, which follow it. The record holds who sent
//! it, for which power, the orders as the server understood them (board names and unit
//! codes), the version they were decided on and the time the server used.
//!
//! [`GameLog::decide_command`] is the one decision both sides use: the server decides a
//! command with it before appending, and the auditor decides every recorded command again
//! with it and requires exactly the events that follow the record.

use serde::{Deserialize, Serialize};
use warlog_rules::board::Power;
use warlog_rules::dice::{DiceSource, Die, GameSeed, RecordedDice};
use warlog_rules::game::named::{NameError, NamedOrder};
use warlog_rules::game::{decide, DirectorOrder, Moment, RuleViolation};
use warlog_rules::violation::ViolationCode;

use crate::game::{GameLog, GameStreamEvent, SeedRevealed};
use crate::sender::{Role, Sender};

/// The record of one accepted command, the first event of its append.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrdersGiven {
    pub sender: Sender,
    /// The game version the command was decided on; the record itself is the next one.
    pub expected_version: u64,
    /// The time the server used for the command's events.
    pub at: Moment,
    pub command: Command,
}

/// What was commanded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Orders for one power, decided in turn and all or nothing.
    Orders {
        power: Power,
        orders: Vec<NamedOrder>,
    },
    /// Fighting has ceased: the final counts, then the seed's reveal.
    EndGame,
    /// The seed revealed before the end (a director or an admin).
    RevealSeed,
    /// A substitute for the player whose turn is due and who has been inactive.
    ReplaceInactivePlayer { substitute: String },
    /// The game does not count (a director or an admin): over, with no placements, the
    /// reason on the record; the seed is revealed with it.
    VoidGame { reason: String },
    /// Before the game begins, a seat goes to another player (a tournament's swap; a
    /// director or an admin).
    TakeSeat {
        power: Power,
        player: String,
        reason: String,
    },
}

impl Command {
    /// In a sentence, for verdicts.
    pub fn describe(&self) -> String {
        match self {
            Command::Orders { power, orders } => format!(
                "{} order{} for {}",
                orders.len(),
                if orders.len() == 1 { "" } else { "s" },
                power.name()
            ),
            Command::EndGame => "the end of the game".to_owned(),
            Command::RevealSeed => "the seed's reveal".to_owned(),
            Command::ReplaceInactivePlayer { substitute } => {
                format!("{substitute} as a substitute")
            }
            Command::VoidGame { .. } => "voiding the game".to_owned(),
            Command::TakeSeat { power, player, .. } => {
                format!("{player} taking {}'s seat", power.name())
            }
        }
    }
}

/// Where an order's dice come from.
#[derive(Clone, Copy)]
pub enum DiceSupply<'a> {
    /// The server, and an auditor holding the seed: each order's dice from the seed at the
    /// stream version of the order's first event.
    Seed(&'a GameSeed),
    /// An auditor without the seed: each order's dice as the log recorded them in the
    /// event at that version, and the seed as the log revealed it (hex), if it did.
    Recorded {
        dice_at: &'a dyn Fn(u64) -> Vec<Die>,
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
    Forbidden(String),
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
}

/// The most orders one command may carry (a whole phase fits easily).
pub const MAX_ORDERS: usize = 200;

/// The most events one command may make: what one append takes.
pub const MAX_EVENTS_PER_COMMAND: usize = 1_000;

fn rule(at: &str, violation: RuleViolation) -> Refusal {
    Refusal::Rule {
        at: at.to_owned(),
        violation,
    }
}

impl GameLog {
    /// Whether `sender` may act in this game now: for `power` when orders are given for
    /// one. admin: everything; gm and director: the games they created (their master);
    /// player: only the power seated to their name; auditor: nothing.
    pub fn authorize(&self, sender: &Sender, power: Option<Power>) -> Result<(), String> {
        match sender.role {
            Role::Admin => Ok(()),
            Role::Gm | Role::Director if self.created.game_master == sender.name => Ok(()),
            Role::Gm | Role::Director => Err(format!(
                "{} is not the game master of this game ({} is)",
                sender.name, self.created.game_master
            )),
            Role::Player => {
                let Some(power) = power else {
                    return Err("a player acts only for a power".to_owned());
                };
                match self.state.seats.get(&power) {
                    Some(seat) if seat.player == sender.name => Ok(()),
                    Some(seat) => Err(format!(
                        "{} plays {}, not {}",
                        seat.player,
                        power.name(),
                        sender.name
                    )),
                    None => Err(format!("nobody is seated at {}", power.name())),
                }
            }
            Role::Auditor => Err("an auditor reads and never acts".to_owned()),
        }
    }

    /// Whether `sender` may give `command` on this game now.
    pub fn may_command(&self, sender: &Sender, command: &Command) -> Result<(), String> {
        let one_of = |roles: &[Role], what: &str| {
            if roles.contains(&sender.role) {
                Ok(())
            } else {
                let allowed: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
                Err(format!(
                    "{what} needs the role {}; {} is a {}",
                    allowed.join(" or "),
                    sender.name,
                    sender.role
                ))
            }
        };
        match command {
            Command::Orders { power, orders } => {
                // "After a player is clearly defeated, but not eliminated, he may go to
                // passive status" (Cut-Throat, Rules for players): whether a power is
                // clearly defeated is the game master's or a director's judgement, so a
                // player asks them rather than declaring it alone.
                if sender.role == Role::Player
                    && orders.iter().any(|o| matches!(o, NamedOrder::GoPassive))
                {
                    return Err(format!(
                        "{} may not declare {} passive: the game master or a director \
                         declares a clearly defeated power passive",
                        sender.name,
                        power.name()
                    ));
                }
                self.authorize(sender, Some(*power))
            }
            Command::EndGame => self.authorize(sender, None),
            Command::RevealSeed => {
                one_of(&[Role::Admin, Role::Director], "revealing a game's seed")
            }
            Command::ReplaceInactivePlayer { .. } => {
                one_of(&[Role::Admin, Role::Director], "appointing a substitute")
            }
            Command::VoidGame { .. } => one_of(&[Role::Admin, Role::Director], "voiding a game"),
            Command::TakeSeat { .. } => {
                one_of(&[Role::Admin, Role::Director], "changing a game's seats")
            }
        }
    }

    /// Decides a command on this game: the sender's right to give it, then each order in
    /// turn on the state the earlier ones left (all or nothing), each with its dice from
    /// `dice` at the version of its first event. The record comes first, so the events it
    /// explains follow it.
    pub fn decide_command(
        &self,
        given: &OrdersGiven,
        dice: DiceSupply<'_>,
    ) -> Result<Decided, Refusal> {
        self.may_command(&given.sender, &given.command)
            .map_err(Refusal::Forbidden)?;
        if given.expected_version != self.version {
            return Err(Refusal::Version {
                expected: given.expected_version,
                actual: self.version,
            });
        }
        let mut after = self.clone();
        let record = GameStreamEvent::Orders(given.clone());
        after.apply_decided(&record);
        let mut events = vec![record];
        let mut push = |after: &mut GameLog, event: GameStreamEvent| {
            after.apply_decided(&event);
            events.push(event);
        };
        let game_id = self.created.game_id.clone();
        let rules = self.ruleset.rules();
        // The director's and game master's commands are the engine's director orders.
        let director = match &given.command {
            Command::Orders { power, orders } => {
                if orders.is_empty() || orders.len() > MAX_ORDERS {
                    return Err(Refusal::Malformed(format!(
                        "orders: 1 to {MAX_ORDERS} orders, not {}",
                        orders.len()
                    )));
                }
                for (i, named) in orders.iter().enumerate() {
                    let at = format!("orders[{i}]");
                    let order = named.resolve(after.ruleset, &at)?;
                    let mut rolls = dice.dice_at(&game_id, after.version + 1);
                    let decided =
                        decide(rules, &after.state, *power, &order, given.at, &mut *rolls)
                            .map_err(|v| rule(&at, v))?;
                    for event in decided {
                        push(&mut after, GameStreamEvent::Played(event));
                    }
                }
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
                // The seed decides every die still to come: known while the game runs, it
                // would let anyone foresee them. The end (or a void) reveals it.
                if after.created.seed_secret_while_running
                    && after.revealed_seed.is_none()
                    && after.state.ended.is_none()
                    && after.state.voided.is_none()
                {
                    return Err(rule(
                        "reveal",
                        RuleViolation {
                            code: ViolationCode::GameRunning,
                            rule: "DESIGN.md, The dice",
                            message: "the seed is revealed when the game ends (end, or void): \
                                      while it runs, it would tell every die still to come"
                                .to_owned(),
                        },
                    ));
                }
                if after.revealed_seed.is_some() {
                    return Err(rule(
                        "reveal",
                        RuleViolation {
                            code: ViolationCode::AlreadyRevealed,
                            rule: "DESIGN.md, The dice",
                            message: "the seed is revealed already".to_owned(),
                        },
                    ));
                }
                push(&mut after, reveal(&dice)?);
                None
            }
            Command::TakeSeat {
                power,
                player,
                reason,
            } => {
                if self.orders_given > 0 {
                    return Err(rule(
                        "seat",
                        RuleViolation {
                            code: ViolationCode::GameBegun,
                            rule: "tournament seating",
                            message: format!(
                                "the game has begun ({} orders are on its record): its seats stand",
                                self.orders_given
                            ),
                        },
                    ));
                }
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
        };
        if let Some((order, at)) = director {
            for event in after
                .decide_director(&order, given.at)
                .map_err(|v| rule(at, v))?
            {
                push(&mut after, GameStreamEvent::Played(event));
            }
            // Over: its dice can be checked now.
            let over = matches!(given.command, Command::EndGame | Command::VoidGame { .. });
            if over && after.revealed_seed.is_none() {
                push(&mut after, reveal(&dice)?);
            }
        }
        if events.len() > MAX_EVENTS_PER_COMMAND {
            return Err(Refusal::Malformed(
                "these orders make too many events for one request: send them in parts".into(),
            ));
        }
        Ok(Decided { events, after })
    }
}

fn reveal(dice: &DiceSupply<'_>) -> Result<GameStreamEvent, Refusal> {
    dice.revealed_seed()
        .map(|seed| GameStreamEvent::SeedRevealed(SeedRevealed { seed }))
        .ok_or_else(|| Refusal::Malformed("the seed to reveal is not known here".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::SampleGame;
    use warlog_rules::ruleset::Ruleset;

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
        OrdersGiven {
            sender,
            expected_version: game.log.version,
            at: Moment::from_unix_seconds(1_800_000_100),
            command: Command::Orders {
                power: Power::Russia,
                orders,
            },
        }
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

    #[test]
    fn a_void_needs_a_director_and_reveals_the_seed() {
        let game = game();
        let void = |role| OrdersGiven {
            sender: Sender {
                role,
                name: crate::sample::GAME_MASTER.into(),
            },
            expected_version: game.log.version,
            at: Moment::from_unix_seconds(1_800_000_100),
            command: Command::VoidGame {
                reason: "nobody came".into(),
            },
        };
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
}
