//! A territory changing hands, however it is taken: a battle won (`combat`), or a place
//! falling as a war breaks out (`diplomacy`).

use super::{GameState, Rules};
use crate::board::{Power, TerritoryId};

/// A territory changes hands: its AA guns and complexes go with it (they are captured,
/// never fought), and it counts as taken this turn (no aircraft land there).
pub(super) fn take_territory(
    rules: Rules<'_>,
    state: &mut GameState,
    place: TerritoryId,
    taker: Power,
) {
    let here = place.index();
    state.holder[here] = Some(taker);
    state.captured_this_turn.insert(place);
    let taken: Vec<_> = state.forces[here]
        .iter()
        .filter(|((owner, unit, _), _)| {
            *owner != taker && !rules.catalogue.get(*unit).is_combatant()
        })
        .map(|(key, n)| (*key, *n))
        .collect();
    for ((owner, unit, damage), n) in taken {
        state.forces[here].remove(&(owner, unit, damage));
        *state.forces[here].entry((taker, unit, damage)).or_default() += n;
    }
}
