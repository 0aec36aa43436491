//! Who played a game in person (issue 56, "a rated game needs its players"): a game is
//! rated only if the player scored at each seat gave at least one order of their own, by
//! their own token, by mail from their address, or through a proxy they named themselves.
//! The game master, a director or an admin acting alone (or naming a proxy for a player)
//! never counts as the player.
//!
//! The rule reads the record alone, so the server and the auditors agree: each order
//! batch's sender and `proxy_for`, and who sent each `NameProxy` command.

use warlog_rules::board::Power;

use crate::command::{Command, OrdersGiven};
use crate::game::{GameLog, InPerson, OrderCount, OrderHand};
use crate::sender::Role;

impl InPerson {
    /// Folds an order batch's record.
    pub(crate) fn count(&mut self, record: &OrdersGiven) {
        let by_player = record.sender.role == Role::Player;
        match &record.command {
            // Naming a proxy is the player's act; one named by anyone else speaks for
            // nobody in person.
            Command::NameProxy { power, .. } => {
                if by_player {
                    self.proxy_named_by_player.insert(*power);
                    self.acted.insert((*power, record.sender.name.clone()));
                } else {
                    self.proxy_named_by_player.remove(power);
                }
            }
            Command::Orders { .. } => {
                let Some((power, hand, orders)) = OrderCount::of(record) else {
                    return;
                };
                if orders == 0 {
                    return;
                }
                let player = match hand {
                    OrderHand::Player => Some(record.sender.name.clone()),
                    OrderHand::Proxy if self.proxy_named_by_player.contains(&power) => {
                        record.proxy_for.clone()
                    }
                    OrderHand::Proxy | OrderHand::GameMaster => None,
                };
                if let Some(player) = player {
                    self.acted.insert((power, player));
                }
            }
            _ => {}
        }
    }

    /// Whether `player` acted in person at `power`.
    pub fn acted(&self, power: Power, player: &str) -> bool {
        self.acted.contains(&(power, player.to_owned()))
    }
}

impl GameLog {
    /// The seated powers whose scored player (the seat's player, or the player a
    /// substitute replaced while the seat's result is still theirs) never acted in person
    /// at that power, in turn order. The record answers this for every game; whether it
    /// unrates one is [`crate::game::GameCreated::played_in_person`]'s.
    pub fn not_played_in_person(&self) -> Vec<Power> {
        self.seated()
            .into_iter()
            .filter(|power| {
                self.state
                    .seats
                    .get(power)
                    .is_some_and(|seat| !self.in_person.acted(*power, seat.scored_by().0))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
