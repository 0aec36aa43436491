//! AAP Historical's convoys (6, 8.1): convoy centres (sea zones that pay income) and convoy
//! routes (sea zones that carry a land territory's income) are captured and liberated.
//!
//! 6: "Subs can capture but cannot liberate convoy zones or convoy routes (only surface
//! warships and CAPed aircraft can capture or liberate convoy routes or convoy zones – not
//! transports or subs)." 8.1: "CAP can be used to capture an enemy convoy zone or a convoy
//! route, but the CAP must be set during combat phase. CAP can be used to liberate a convoy
//! zone or route, but the convoy zone or route will not be liberated if enemy sub is still
//! present in the area."
//!
//! A zone's rightful holder is the centre's power, or the holder of the route's land. At the
//! end of a power's battles, it captures each zone whose rightful holder it is at war with,
//! where it has a warship (a submarine too) or a patrol and no enemy unit is left; it
//! liberates each zone captured from itself or a friend, where it has a surface warship or
//! a patrol and no unit of a power at war with it is left. A captured centre pays its
//! captor; a captured route's land pays its holder nothing.

use crate::board::{Power, TerritoryId};
use crate::units::Domain;

use super::{GameEvent, GameState, Rules};

/// Who should hold a convoy zone: the centre's power, or the holder of the route's land.
fn rightful(rules: Rules<'_>, state: &GameState, zone: TerritoryId) -> Option<Power> {
    rules
        .special
        .convoy_centres
        .iter()
        .find(|(z, _, _)| *z == zone)
        .map(|(_, _, power)| *power)
        .or_else(|| {
            rules
                .special
                .convoy_routes
                .iter()
                .find(|(z, _)| *z == zone)
                .and_then(|(_, land)| state.holder[land.index()])
        })
}

/// The power holding a zone against its rightful holder, if any.
pub(super) fn captor(rules: Rules<'_>, state: &GameState, zone: TerritoryId) -> Option<Power> {
    let rightful = rightful(rules, state, zone)?;
    state
        .convoys_captured
        .get(&zone)
        .copied()
        .filter(|captor| state.at_war(*captor, rightful))
}

/// Whether `power` has a unit in `zone` that takes or frees a convoy: a warship other than
/// a transport (a submarine only when `subs_count`), or aircraft on patrol over it.
fn holds_with(
    rules: Rules<'_>,
    state: &GameState,
    zone: TerritoryId,
    power: Power,
    subs_count: bool,
) -> bool {
    let warship = state.forces[zone.index()]
        .iter()
        .any(|((owner, unit, _), n)| {
            let profile = rules.catalogue.get(*unit);
            *owner == power
                && *n > 0
                && profile.domain == Domain::Sea
                && profile.is_combatant()
                && !super::movement::is_transport(rules, *unit)
                && (subs_count || !super::hidden_subs::is_sub(rules, *unit))
        });
    let patrol = state
        .patrols
        .keys()
        .any(|(owner, over, _, _)| *owner == power && *over == zone);
    warship || patrol
}

/// Whether a unit of a power at war with `power` stands in `zone`.
fn enemy_present(rules: Rules<'_>, state: &GameState, zone: TerritoryId, power: Power) -> bool {
    state.forces[zone.index()]
        .iter()
        .any(|((owner, unit, _), n)| {
            *n > 0 && state.at_war(*owner, power) && rules.catalogue.get(*unit).is_combatant()
        })
}

/// The captures and liberations at the end of `power`'s battles.
pub(super) fn after_battles(rules: Rules<'_>, state: &GameState, power: Power) -> Vec<GameEvent> {
    if !rules.special.convoy_capture {
        return Vec::new();
    }
    let mut zones: Vec<TerritoryId> = rules
        .special
        .convoy_centres
        .iter()
        .map(|(z, _, _)| *z)
        .chain(rules.special.convoy_routes.iter().map(|(z, _)| *z))
        .collect();
    zones.sort();
    zones.dedup();
    let mut events = Vec::new();
    for zone in zones {
        let Some(owner) = rightful(rules, state, zone) else {
            continue;
        };
        if enemy_present(rules, state, zone, power) {
            continue;
        }
        match captor(rules, state, zone) {
            None if state.at_war(power, owner) && holds_with(rules, state, zone, power, true) => {
                events.push(GameEvent::ConvoyCaptured {
                    power,
                    sea_zone: zone,
                    from: owner,
                });
            }
            Some(captor)
                if !state.at_war(power, owner)
                    && state.at_war(power, captor)
                    && holds_with(rules, state, zone, power, false) =>
            {
                events.push(GameEvent::ConvoyLiberated {
                    power,
                    sea_zone: zone,
                    for_power: owner,
                });
            }
            _ => {}
        }
    }
    events
}

/// What convoys pay `power`: each centre it holds (its own, uncaptured, or one it
/// captured), less the value of its land whose route an enemy holds. Without capture, a
/// centre pays its power while no enemy unit is in the zone.
pub(super) fn income(rules: Rules<'_>, state: &GameState, power: Power) -> (u32, u32) {
    if !rules.special.convoy_capture {
        let paid = rules
            .special
            .convoy_centres
            .iter()
            .filter(|(zone, _, owner)| {
                *owner == power
                    && !state.forces[zone.index()]
                        .iter()
                        .any(|((unit_owner, _, _), n)| *n > 0 && state.at_war(*unit_owner, power))
            })
            .map(|(_, ipc, _)| ipc)
            .sum();
        return (paid, 0);
    }
    let paid = rules
        .special
        .convoy_centres
        .iter()
        .filter(|(zone, _, owner)| captor(rules, state, *zone).unwrap_or(*owner) == power)
        .map(|(_, ipc, _)| ipc)
        .sum();
    let cut = rules
        .special
        .convoy_routes
        .iter()
        .filter(|(zone, land)| {
            state.holder[land.index()] == Some(power) && captor(rules, state, *zone).is_some()
        })
        .map(|(_, land)| rules.board.get(*land).ipc)
        .sum();
    (paid, cut)
}
