//! Every power's share of the record is bounded (issue 56): a few orders a turn while
//! another power is on turn, and an agreement's terms of 2,000 characters.
//!
//! A power may give some orders while another power is on turn (standing orders, offers
//! and answers of diplomacy, a kamikaze run, a loan): each is an order on the record,
//! which every reader of the game reads again. Unbounded, one player could write thousands
//! of them into the game's log (and every page of it) while the others wait. So, on a game
//! created with [`GameCreated::shares_bounded`](crate::game::GameCreated::shares_bounded):
//!
//! - a power may have at most [`MAX_ORDERS_OUT_OF_TURN`] orders on the record per turn
//!   while it is not on turn; a command that would bring it past that is refused whole,
//!   nothing appended, and the count starts again when the turn passes;
//! - an agreement's terms (the one free text an order carries) are at most
//!   [`MAX_TERMS_CHARS`] characters, whoever sends them.
//!
//! On the board a standing order already replaces the last for its place (or for all
//! battles), and one offer at a time waits for each power: the limit is on the record,
//! which keeps every order. The check is pure and made by [`GameLog::decide_command`], so
//! the server and the auditor decide it alike; games created before have no limit and
//! audit as decided.

use warlog_rules::board::Power;
use warlog_rules::game::named::NamedOrder;
use warlog_rules::game::RuleViolation;
use warlog_rules::violation::ViolationCode;

use crate::command::{Command, OrdersGiven};
use crate::game::GameLog;

/// The orders a power may have on the record in one turn while another power is on turn.
/// Real play gives a handful: standing orders for the few places an attack threatens (one
/// for all battles covers the rest), an offer or an answer, a kamikaze run, a loan. Twenty
/// leaves room for a careful defender and keeps a flood to a few dozen events a turn.
pub const MAX_ORDERS_OUT_OF_TURN: u32 = 20;

/// The most characters an agreement's terms may hold: a page of conditions.
pub const MAX_TERMS_CHARS: usize = 2_000;

/// Where the limits are stated, as a refusal names its rule.
pub const RULE: &str = "docs/rulesets.md, Every power's share of the record";

/// Whether `power` is on turn: the power whose turn it is, or the one the game waits for
/// ("War"'s reinforcements are rolled by the player to the active player's right).
pub fn on_turn(log: &GameLog, power: Power) -> bool {
    let rules = log.ruleset.rules();
    log.state.power(rules.board) == power || log.state.to_act(rules) == power
}

/// How many more orders `power` may give this turn while it is not on turn; none when the
/// game's shares are not bounded.
pub fn left_this_turn(log: &GameLog, power: Power) -> Option<u32> {
    log.created.shares_bounded.then(|| {
        MAX_ORDERS_OUT_OF_TURN
            .saturating_sub(log.out_of_turn_orders.get(&power).copied().unwrap_or(0))
    })
}

/// A share the orders sent would exceed: the order at fault (its place among the orders
/// sent), or none when the command as a whole is refused, and why. Nothing is appended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exceeded {
    pub order: Option<usize>,
    pub violation: RuleViolation,
}

/// Whether `power` may put `orders` on the record of `log` now: every agreement's terms
/// within [`MAX_TERMS_CHARS`], and, while another power is on turn, its orders this turn
/// with these within [`MAX_ORDERS_OUT_OF_TURN`]. Always, on a game created before.
pub fn check(log: &GameLog, power: Power, orders: &[&NamedOrder]) -> Result<(), Exceeded> {
    if !log.created.shares_bounded {
        return Ok(());
    }
    for (i, order) in orders.iter().enumerate() {
        if let NamedOrder::OfferAgreement { terms, .. } = order {
            let chars = terms.chars().count();
            if chars > MAX_TERMS_CHARS {
                return Err(Exceeded {
                    order: Some(i),
                    violation: RuleViolation {
                        code: ViolationCode::TermsTooLong,
                        rule: RULE,
                        message: format!(
                            "an agreement's terms are at most {} characters (the terms \
                             limit); these are {}",
                            thousands(MAX_TERMS_CHARS),
                            thousands(chars)
                        ),
                    },
                });
            }
        }
    }
    check_count(log, power, u32::try_from(orders.len()).unwrap_or(u32::MAX))
}

/// Whether `power` may put `sent` more commands on the record now, while another power is
/// on turn (a proxy named or ended counts as one, as an order does); always, on a game
/// created before.
pub fn check_count(log: &GameLog, power: Power, sent: u32) -> Result<(), Exceeded> {
    if !log.created.shares_bounded || on_turn(log, power) {
        return Ok(());
    }
    let given = log.out_of_turn_orders.get(&power).copied().unwrap_or(0);
    if given.saturating_add(sent) <= MAX_ORDERS_OUT_OF_TURN {
        return Ok(());
    }
    let on = log.state.power(&log.ruleset.board);
    Err(Exceeded {
        order: None,
        violation: RuleViolation {
            code: ViolationCode::OutOfTurnLimit,
            rule: RULE,
            message: format!(
                "{power} may give at most {MAX_ORDERS_OUT_OF_TURN} orders a turn while another \
                 power is on turn (the out-of-turn limit): it has given {given} during {on}'s \
                 turn, and these {sent} would make {}, so none of them is taken; the count \
                 starts again when the turn passes",
                given.saturating_add(sent),
                power = power.name(),
                on = on.name(),
            ),
        },
    })
}

impl GameLog {
    /// Counts a record's orders against its power's out-of-turn share, when another power
    /// is on turn: every order the record holds (those carried out, and any cut off with
    /// the ones after it), so the count is the same decided or folded.
    pub(crate) fn count_out_of_turn(&mut self, record: &OrdersGiven) {
        let (power, orders) = match &record.command {
            Command::Orders { power, .. } => (
                power,
                u32::try_from(record.orders_sent().len()).unwrap_or(u32::MAX),
            ),
            // A proxy named or ended is a record too: naming one again and again must not
            // go round the share.
            Command::NameProxy { power, .. } | Command::EndProxy { power } => (power, 1),
            _ => return,
        };
        if on_turn(self, *power) {
            return;
        }
        let count = self.out_of_turn_orders.entry(*power).or_default();
        *count = count.saturating_add(orders);
    }
}

/// A count as the limits are written: `2,000`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests;
