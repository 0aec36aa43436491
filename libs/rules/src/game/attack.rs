//! When an attack may be made: in the combat move, and never before the round combat is
//! allowed from. A move, a rail move and an attack on hidden submarines ask it alike.

use super::{violation, GameState, Phase, RuleViolation, Rules, ViolationCode};
use crate::board::TerritoryId;

/// A move that ends where the enemy is: an attack, so only in the combat move and never in
/// round one. The place to fight, or why not.
pub(super) fn attack_on(
    rules: Rules<'_>,
    state: &GameState,
    to: TerritoryId,
) -> Result<TerritoryId, RuleViolation> {
    if state.phase != Phase::CombatMove {
        return Err(violation(
            ViolationCode::EnemyInNonCombat,
            "Classic rules, Non-combat move",
            format!(
                "{} is held by or holds the enemy: that is a combat move",
                rules.board.get(to).name
            ),
        ));
    }
    if !state.combat_allowed(rules) {
        return Err(no_combat_in_round_one());
    }
    Ok(to)
}

pub(super) fn no_combat_in_round_one() -> RuleViolation {
    violation(
        ViolationCode::NoCombatRoundOne,
        "Cut-Throat, Start of Play",
        "no combat can occur in the first round of the game under any circumstances",
    )
}
