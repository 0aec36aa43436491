//! Who defends a place against an attacker: every power whose units fight there, and the
//! principal defender. A battle asks it (`combat`), and so do the standing orders a battle
//! is about to follow (`standing`).

use super::{hidden_subs, GameState, Rules};
use crate::board::{Power, TerritoryId};

/// Who defends `territory` against `power`: every power whose units fight there (the
/// holder last: its guests' units are lost first), and the principal defender (the holder,
/// else the first).
pub(super) fn defenders(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    territory: TerritoryId,
) -> (Vec<Power>, Option<Power>) {
    let forces = &state.forces[territory.index()];
    let declared_against = state.contested.get(&territory);
    let defending = |owner: Power| {
        owner != power
            && (state.at_war(power, owner) || declared_against.is_some_and(|d| d.contains(&owner)))
    };
    let mut defenders: Vec<Power> = forces
        .iter()
        .filter(|((owner, unit, _), n)| {
            defending(*owner)
                && **n > 0
                && hidden_subs::fights(rules, state, territory, *owner, *unit, power)
        })
        .map(|((owner, _, _), _)| *owner)
        .collect();
    defenders.dedup();
    let holder = state.holder[territory.index()].filter(|h| defending(*h));
    // The holder defends its own land; its guests' units are lost first.
    if let Some(h) = holder {
        defenders.retain(|d| *d != h);
        defenders.push(h);
    }
    let defender = holder.or(defenders.first().copied());
    (defenders, defender)
}
