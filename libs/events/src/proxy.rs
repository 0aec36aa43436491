//! Proxies. Cut-Throat, Rules for players: "Temporary proxies should be given to trusted
//! allies during planned absences." The player seated at a power (or the game's master,
//! or an admin) names another player who may give the power's orders until a stated time;
//! the seated player, the proxy, the master or an admin may end it sooner. It is a
//! command on the record (`OrdersGiven`), followed by `ProxyNamed` or `ProxyEnded`, and
//! the sender's right to give orders is decided from those events and the command's time
//! ([`GameLog::authorize`]), by the server and the auditor alike.
//!
//! A proxy changes who may give the orders, and nothing else: the seat, its result and
//! its substitute's count of rounds stay the seated player's; naming one is no progress
//! of the game (a due turn still waits); orders given by a proxy are marked as such on
//! their record ([`crate::orders::OrdersGiven::proxy_for`]) and counted apart. A seat
//! change (a substitute, a swap) ends the seat's proxy. docs/rulesets.md gives the reading.

use warlog_rules::board::Power;
use warlog_rules::game::seats::game_over_for;
use warlog_rules::game::{GameEvent, Moment, RuleViolation};
use warlog_rules::violation::ViolationCode;

use crate::game::{GameLog, GameStreamEvent};
pub use crate::game::{ProxyEnded, ProxyNamed};
use crate::refusal::Forbidden;
use crate::sender::{Role, Sender};

/// The rule proxies come from.
pub const RULE: &str = "Cut-Throat, Rules for players";

/// The longest a proxy may be named for: 30 days from the naming.
pub const PROXY_LIMIT_SECONDS: u64 = 30 * 24 * 60 * 60;

/// A moment in words: `2026-12-01 12:00 UTC`.
pub fn moment_in_words(at: Moment) -> String {
    let format = time::macros::format_description!("[year]-[month]-[day] [hour]:[minute] UTC");
    i64::try_from(at.unix_seconds())
        .ok()
        .and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok())
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| format!("{} seconds after 1970", at.unix_seconds()))
}

fn refuse(message: impl Into<String>) -> RuleViolation {
    RuleViolation {
        code: ViolationCode::BadProxy,
        rule: RULE,
        message: message.into(),
    }
}

impl GameLog {
    /// `power`'s proxy if one is in force at `at`: named, not ended, and before its time.
    pub fn proxy_in_force(&self, power: Power, at: Moment) -> Option<&ProxyNamed> {
        self.proxies.get(&power).filter(|p| at < p.until)
    }

    /// The player seated at `power` whom `sender` acts for as proxy, when `sender` is a
    /// player giving orders for a power not seated to their name (their right to is
    /// [`GameLog::authorize`]'s to decide).
    pub(crate) fn acting_for(&self, sender: &Sender, power: Power) -> Option<String> {
        let seat = self.state.seats.get(&power)?;
        (sender.role == Role::Player && seat.player != sender.name).then(|| seat.player.clone())
    }

    /// Whether `sender` may name a proxy for `power` (`the_proxy_too`: or end one): the
    /// player seated at it, the game's master (or its director), an admin; to end one,
    /// also the proxy named. A proxy never names another.
    pub(crate) fn may_handle_proxy(
        &self,
        sender: &Sender,
        power: Power,
        at: Moment,
        the_proxy_too: bool,
    ) -> Result<(), Forbidden> {
        if sender.role != Role::Player {
            return self.authorize(sender, None, at);
        }
        let seated = self.state.seats.get(&power);
        if seated.is_some_and(|seat| seat.player == sender.name) {
            return Ok(());
        }
        let named = self.proxies.get(&power).map(|p| p.proxy.as_str());
        if the_proxy_too && named == Some(sender.name.as_str()) {
            return Ok(());
        }
        let whose = match seated {
            Some(seat) => format!(
                "{} plays {}, not {}",
                seat.player,
                power.name(),
                sender.name
            ),
            None => format!("nobody is seated at {}", power.name()),
        };
        Err(Forbidden::new(format!(
            "{whose}: a power's proxy is named by its player, the game master or an admin{}",
            if the_proxy_too {
                ", and ended by them or the proxy"
            } else {
                ""
            }
        )))
    }

    /// Names `proxy` for `power` from `at` until `until`, or says why not. A proxy in
    /// force at the power is replaced.
    pub(crate) fn name_proxy(
        &self,
        power: Power,
        proxy: &str,
        until: Moment,
        at: Moment,
    ) -> Result<ProxyNamed, RuleViolation> {
        if let Some(over) = game_over_for(&self.state) {
            return Err(over);
        }
        let Some(seat) = self.state.seats.get(&power) else {
            return Err(refuse(format!("nobody is seated at {}", power.name())));
        };
        let proxy = proxy.trim();
        if proxy.is_empty() {
            return Err(refuse(
                "name the player who gives the orders while you are away",
            ));
        }
        if seat.substitute_turns.is_some() {
            return Err(refuse(format!(
                "{} is {}'s substitute and becomes its permanent player by playing two rounds \
                 of it: rounds a proxy played would not be theirs, so a substitute names no \
                 proxy until the seat is theirs",
                seat.player,
                power.name()
            )));
        }
        if proxy == seat.player {
            return Err(refuse(format!(
                "{proxy} is seated at {} already: a proxy is another player",
                power.name()
            )));
        }
        if proxy == self.created.game_master {
            return Err(refuse(format!(
                "{proxy} is this game's master, who may give any power's orders as its \
                 master already: a proxy is a player"
            )));
        }
        let held = self
            .proxies
            .values()
            .find(|p| p.power != power && p.proxy == proxy && at < p.until);
        if let Some(held) = held {
            return Err(refuse(format!(
                "{proxy} is {}'s proxy until {}: a player is proxy for one power at a time",
                held.power.name(),
                moment_in_words(held.until)
            )));
        }
        let seconds = until.unix_seconds().saturating_sub(at.unix_seconds());
        if until <= at || seconds > PROXY_LIMIT_SECONDS {
            return Err(refuse(format!(
                "a proxy ends after it is named and within 30 days of it: now is {}, and {} is \
                 {}",
                moment_in_words(at),
                moment_in_words(until),
                if until <= at {
                    "not after it".to_owned()
                } else {
                    format!("{} days after it", seconds.div_ceil(24 * 60 * 60))
                }
            )));
        }
        Ok(ProxyNamed {
            power,
            player: seat.player.clone(),
            proxy: proxy.to_owned(),
            at,
            until,
        })
    }

    /// Ends `power`'s proxy at `at`, or says why not.
    pub(crate) fn end_proxy(&self, power: Power, at: Moment) -> Result<ProxyEnded, RuleViolation> {
        if let Some(over) = game_over_for(&self.state) {
            return Err(over);
        }
        match self.proxy_in_force(power, at) {
            Some(named) => Ok(ProxyEnded {
                power,
                proxy: named.proxy.clone(),
                at,
            }),
            None => Err(refuse(format!(
                "{} has no proxy in force to end",
                power.name()
            ))),
        }
    }

    /// Folds what an event does to the proxies: named, ended, or ended by a change of the
    /// seat (a substitute appointed, a seat taken).
    pub(crate) fn fold_proxies(&mut self, event: &GameStreamEvent) {
        match event {
            GameStreamEvent::ProxyNamed(named) => {
                self.proxies.insert(named.power, named.clone());
            }
            GameStreamEvent::ProxyEnded(ProxyEnded { power, .. })
            | GameStreamEvent::Played(
                GameEvent::PlayerReplaced { power, .. } | GameEvent::SeatTaken { power, .. },
            ) => {
                self.proxies.remove(power);
                self.in_person.proxy_named_by_player.remove(power);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
