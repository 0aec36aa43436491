//! The Pacific board's air and naval bases (TripleA's airfields and harbours, which
//! `pacific.xml` gives `givesMovement` 1 for fighters and bombers, and 1 for every ship):
//! aircraft leaving land with an air base fly one space more, and ships leaving a sea zone
//! next to land with a naval base sail one space more, when the base is friendly (its land
//! held by the mover or a power not at war with it) and was not taken this turn. As
//! TripleA gives the bonus when the move begins, to the units where they stand, it goes to
//! units that have not moved yet this turn; aircraft keep it for the rest of their flight.

use crate::board::{Power, TerritoryId};
use crate::units::{Domain, UnitTypeId};

use super::{GameState, Phase, Rules};

/// The spaces bases add to the range of `power`'s `unit` leaving `place` now: 1 or 0.
/// Aircraft that flew in the combat move and fly on in the non-combat move have had
/// theirs already (it is in what they have used).
pub(super) fn bonus(
    rules: Rules<'_>,
    state: &GameState,
    place: TerritoryId,
    power: Power,
    unit: UnitTypeId,
) -> u8 {
    let domain = rules.catalogue.get(unit).domain;
    let flown_on = domain == Domain::Air
        && state.phase == Phase::NonCombatMove
        && state.moved.contains_key(&(place, unit));
    if flown_on {
        return 0;
    }
    let friendly = |land: TerritoryId| {
        !state.captured_this_turn.contains(&land)
            && state.holder[land.index()].is_some_and(|h| !state.at_war(h, power))
    };
    let served = match domain {
        Domain::Air => rules.special.air_bases.contains(&place) && friendly(place),
        Domain::Sea => rules
            .board
            .neighbours(place)
            .iter()
            .any(|land| rules.special.naval_bases.contains(land) && friendly(*land)),
        Domain::Land => false,
    };
    u8::from(served)
}
