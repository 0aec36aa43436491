//! A command decided without the game's dice: what a turn would do, for its player to see
//! before it counts.
//!
//! A preview must tell nothing the record does not: not a die to come, nor a defender's
//! sealed standing orders. So it never draws on the seed. Each battle is shown with its
//! exact odds instead of a roll; to check the orders after a battle, the battle is fought
//! with dice that fall evenly ([`EvenDice`]), and everything decided on that board says
//! so (`after_dice`). Sealed standing orders are left out of the board a preview decides
//! on: the defender's defaults stand in for them, and the answer says so.

use warlog_rules::battle::{Odds, Work};
use warlog_rules::board::Power;
use warlog_rules::dice::{CountingDice, EvenDice};
use warlog_rules::game::combat::{odds_of, BattleOrders};
use warlog_rules::game::{apply, decide, GameEvent, GameState, Order, RuleViolation};
use warlog_rules::violation::ViolationCode;

use crate::game::GameLog;
use crate::orders::{Command, OrdersGiven, Refusal};

/// How much work the exact odds of all a preview's battles may take together (a steady
/// round's transition is one step, about 30 nanoseconds): under a second. A battle beyond
/// what is left says so instead of giving odds.
pub const ODDS_WORK_PER_PREVIEW: u64 = 20_000_000;

/// What one order would do.
#[derive(Debug, Clone)]
pub struct PreviewStep {
    /// The order's place among the orders sent.
    pub index: usize,
    /// The events it would make on the board the steps before left; none for an order that
    /// rolls (its events would follow even dice, not the game's: made-up dice are shown to
    /// nobody).
    pub events: Vec<GameEvent>,
    /// For a battle: where.
    pub battle_at: Option<warlog_rules::board::TerritoryId>,
    /// The order rolls dice when it is carried out.
    pub rolls: bool,
    /// Decided on a board that earlier dice shaped (as even dice left it).
    pub after_dice: bool,
    /// For a battle: its odds, or why they are not worked out.
    pub odds: Option<BattleOdds>,
    /// For a battle: the defender's standing orders for it are sealed, so the preview does
    /// not know them (the odds follow the orders it may see, else the defaults).
    pub defender_orders_sealed: bool,
}

/// A battle's odds in a preview.
#[derive(Debug, Clone)]
pub enum BattleOdds {
    Exact(Odds),
    /// More work than a preview may do (the reason, in words).
    TooLarge(String),
}

/// An order the preview refuses, and whether the board it was refused on came from even
/// dice (then the real dice may allow it).
#[derive(Debug, Clone)]
pub struct PreviewRefusal {
    pub index: usize,
    pub violation: RuleViolation,
    pub after_dice: bool,
}

/// What a command would do.
#[derive(Debug, Clone)]
pub struct Preview {
    pub power: Power,
    pub steps: Vec<PreviewStep>,
    pub refused: Option<PreviewRefusal>,
    /// The board after the steps (after even dice, where any rolled).
    pub after: GameState,
}

impl GameLog {
    /// What `given` (a power's orders) would do, decided without the game's dice: the same
    /// checks of the sender, the version and the power's share of the record
    /// ([`crate::shares`]) as [`GameLog::decide_command`], then each order in turn. Nothing
    /// here is recorded.
    ///
    /// The exact odds of all its battles share one budget of work, and stop when
    /// `cancelled` is set (the asker went away).
    pub fn preview(
        &self,
        given: &OrdersGiven,
        cancelled: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    ) -> Result<Preview, Refusal> {
        self.may_command(given).map_err(Refusal::Forbidden)?;
        if given.expected_version != self.version {
            return Err(Refusal::Version {
                expected: given.expected_version,
                actual: self.version,
            });
        }
        let Command::Orders { power, orders } = &given.command else {
            return Err(Refusal::Malformed(
                "a preview is of a power's orders".to_owned(),
            ));
        };
        crate::shares::check(self, *power, &orders.iter().collect::<Vec<_>>())?;
        let resolved = crate::orders::resolve_orders(self.ruleset, orders.iter())?;
        let rules = self.ruleset.rules();
        let mut state = self.state.clone();
        // The defenders' secrets: not on the board a preview decides on.
        state
            .standing_orders
            .retain(|_, given| given.orders.is_some());
        state
            .standing_orders_next
            .retain(|_, given| given.orders.is_some());
        let work = Work::within(ODDS_WORK_PER_PREVIEW, cancelled);
        let mut steps = Vec::new();
        let mut refused = None;
        let mut rolled = false;
        for (index, order) in resolved.iter().enumerate() {
            let mut dice = EvenDice::default();
            let mut counted = CountingDice::new(&mut dice);
            match decide(rules, &state, *power, order, given.at, &mut counted) {
                Ok(events) => {
                    // Worked out only for a battle the rules accept, on the board before it.
                    let (odds, defender_orders_sealed) = match order {
                        Order::FightBattle(battle) => {
                            battle_odds(self, &state, *power, battle, &work)
                        }
                        _ => (None, false),
                    };
                    for event in &events {
                        apply(rules, &mut state, event);
                    }
                    let rolls = counted.drawn() > 0;
                    steps.push(PreviewStep {
                        index,
                        events: if rolls { Vec::new() } else { events },
                        battle_at: match order {
                            Order::FightBattle(battle) => Some(battle.territory),
                            _ => None,
                        },
                        rolls,
                        after_dice: rolled,
                        odds,
                        defender_orders_sealed,
                    });
                    rolled |= rolls;
                }
                Err(violation) => {
                    refused = Some(PreviewRefusal {
                        index,
                        violation,
                        after_dice: rolled,
                    });
                    break;
                }
            }
        }
        Ok(Preview {
            power: *power,
            steps,
            refused,
            after: state,
        })
    }
}

/// A battle's odds on the preview's board, and whether the defender's sealed standing
/// orders were left out of them. A battle the rules refuse has none: deciding it says why.
fn battle_odds(
    log: &GameLog,
    state: &GameState,
    power: Power,
    battle: &BattleOrders,
    work: &Work,
) -> (Option<BattleOdds>, bool) {
    let sealed = log
        .state
        .standing_orders
        .iter()
        .any(|((owner, place), given)| {
            given.orders.is_none() && *owner != power && place.is_none_or(|p| p == battle.territory)
        });
    let odds = match odds_of(log.ruleset.rules(), state, power, battle, work) {
        Ok(odds) => odds.map(BattleOdds::Exact),
        Err(v) if matches!(v.code, ViolationCode::TooLarge | ViolationCode::Cancelled) => {
            Some(BattleOdds::TooLarge(
                "its exact odds need more work than is left of this preview's budget".to_owned(),
            ))
        }
        Err(_) => None,
    };
    (odds, sealed)
}

#[cfg(test)]
mod tests;
