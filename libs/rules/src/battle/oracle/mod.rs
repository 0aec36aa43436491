//! The battle engine and exact odds as they were before armies became counts (issue 20),
//! kept unchanged as the oracle the new engine is compared with: the same seed must give
//! the same listing, and the exact odds must agree to 1e-12.

mod casualties;
#[cfg(test)]
mod compare;
mod fight;
mod odds;

use fight::*;

use std::borrow::Cow;
use std::rc::Rc;

pub(crate) use super::{
    Battle, BattleError, BattleKind, Casualty, CombatOrder, Effect, LossReason, Outcome, Phase,
    RetreatOrder, RolledDie, Side, Unit,
};
use super::{HitRules, LossOrder};
use crate::dice::DiceSource;
use crate::tech::Technology;
use crate::units::{Ability, Catalogue, Domain, UnitTypeId};
use crate::violation::ViolationCode;

pub(crate) use odds::exact_odds;

/// One side firing in one phase of a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Volley {
    pub side: Side,
    pub phase: Phase,
    pub dice: Vec<RolledDie>,
    pub hits: u32,
    pub overkill: u32,
    pub casualties: Vec<Casualty>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RoundLog {
    pub number: u32,
    pub volleys: Vec<Volley>,
}

/// The listing as the old engine kept it: rounds of volleys, each with its own dice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BattleLog {
    pub kind: BattleKind,
    pub rounds: Vec<RoundLog>,
    pub outcome: Outcome,
    pub attacker_left: Vec<Unit>,
    pub defender_left: Vec<Unit>,
}

/// Fights `battle` with `dice`, the old way.
pub(crate) fn resolve(
    battle: &Battle<'_>,
    dice: &mut (impl DiceSource + ?Sized),
) -> Result<BattleLog, BattleError> {
    Fight::new(battle)?.run(dice)
}
