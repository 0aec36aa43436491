//! The record of a command: `OrdersGiven`, the first event of every append to a game, with
//! what was commanded (`Command`) and the order a refusal cut off after dice were rolled.
//! Deciding a command is `GameLog::decide_command` (`crate::orders`, which re-exports these);
//! the game's fold reads the record from here.

use serde::{Deserialize, Serialize};
use warlog_rules::board::Power;
use warlog_rules::game::named::NamedOrder;
use warlog_rules::game::Moment;
use warlog_rules::violation::ViolationCode;

use crate::sender::Sender;

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
    /// The order refused after an earlier order of the command had rolled dice, with the
    /// orders sent after it: the orders in `command` stand (their dice count), these were
    /// not carried out. See [`crate::game::GameLog::decide_command`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_off: Option<OrderCutOff>,
    /// Set on orders a player gave as the proxy of the player seated at the power: that
    /// player, whose seat it stays ([`crate::proxy`]). The server sets it as it decides the
    /// command; the auditor requires it where, and only where, the sender was a proxy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_for: Option<String>,
    /// Set on a command that came by mail (issue 51): which message, when the service took
    /// it in and what the sender's domain said of it; never the address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_mail: Option<ByMail>,
}

/// How a command that came by mail reached the service, for the record: the export shows the
/// channel, and the auditor checks that a message gave one command at most, and before it
/// was decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ByMail {
    /// The SHA-256 of the message's Message-ID, in lowercase hex: the message, named
    /// without anything that identifies its sender.
    pub message: String,
    /// When the service took the message in.
    pub received_at: Moment,
    /// What the sender's domain said of the message (DMARC), as far as it was checked.
    pub dmarc: DmarcVerdict,
}

/// DMARC's verdict on a message, as the receiving mail server recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DmarcVerdict {
    /// The sender's domain vouches for the message.
    Pass,
    /// The sender's domain says the message is not its.
    Fail,
    /// The sender's domain publishes no policy.
    None,
    /// No check could be made (no authentication results from a trusted server).
    #[default]
    NotChecked,
}

impl DmarcVerdict {
    /// A stable word for the record: `pass`, `fail`, `none`, `not-checked`.
    pub fn as_str(self) -> &'static str {
        match self {
            DmarcVerdict::Pass => "pass",
            DmarcVerdict::Fail => "fail",
            DmarcVerdict::None => "none",
            DmarcVerdict::NotChecked => "not-checked",
        }
    }
}

impl std::fmt::Display for DmarcVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DmarcVerdict::Pass => "passed",
            DmarcVerdict::Fail => "failed",
            DmarcVerdict::None => "no policy published",
            DmarcVerdict::NotChecked => "could not be checked",
        })
    }
}

/// An order a rule refused after dice were rolled earlier in its command, kept on the
/// record so that a reader sees why the command stopped and an auditor can decide it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderCutOff {
    /// The refused order, as sent.
    pub order: NamedOrder,
    /// Why: the refusal's code, the rule and the message, as the server gave them.
    pub code: ViolationCode,
    pub rule: String,
    pub message: String,
    /// The orders sent after it, never decided.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_decided: Vec<NamedOrder>,
}

impl OrdersGiven {
    /// A command as sent, before it is decided.
    pub fn new(sender: Sender, expected_version: u64, at: Moment, command: Command) -> Self {
        OrdersGiven {
            sender,
            expected_version,
            at,
            command,
            cut_off: None,
            proxy_for: None,
            by_mail: None,
        }
    }

    /// Every order as sent, in order: those carried out, then the one cut off and those
    /// after it. Empty for a command that is not orders.
    pub fn orders_sent(&self) -> Vec<&NamedOrder> {
        let Command::Orders { orders, .. } = &self.command else {
            return Vec::new();
        };
        let cut = self
            .cut_off
            .iter()
            .flat_map(|c| std::iter::once(&c.order).chain(&c.not_decided));
        orders.iter().chain(cut).collect()
    }

    /// Whether two records say the same, the refusal's words aside: the message and the
    /// rule's name may be worded better by a later server; the code may not change.
    pub fn same_record(&self, other: &OrdersGiven) -> bool {
        let same_cut = match (&self.cut_off, &other.cut_off) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                a.order == b.order && a.code == b.code && a.not_decided == b.not_decided
            }
            _ => false,
        };
        same_cut
            && self.proxy_for == other.proxy_for
            && self.by_mail == other.by_mail
            && self.sender == other.sender
            && self.expected_version == other.expected_version
            && self.at == other.at
            && self.command == other.command
    }
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
    /// `proxy` may give `power`'s orders until `until` (its seated player, the game's
    /// master or an admin names them; [`crate::proxy`]).
    NameProxy {
        power: Power,
        proxy: String,
        until: Moment,
    },
    /// `power`'s proxy ends now (its seated player, the proxy, the master or an admin).
    EndProxy { power: Power },
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
            Command::NameProxy { power, proxy, .. } => {
                format!("{proxy} as {}'s proxy", power.name())
            }
            Command::EndProxy { power } => format!("the end of {}'s proxy", power.name()),
        }
    }
}
