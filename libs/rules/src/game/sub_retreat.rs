//! Cut-Throat, Sub movements: "any nation's subs, have the capability to either submerge in
//! a combat zone upon attack or retreat to a safe zone". A defender's standing order
//! (`StandingOrders::retreat_subs`) sends its submarines in a sea zone that is attacked to
//! a safe zone next door before the first die: they leave the battle, which is fought by
//! whatever else defends, and the battle's event and listing say where they went.
//!
//! A safe zone is a sea zone next door with no battle pending, no unit of a power at war
//! with the defender and none of the attacker's: the one the order names while it is
//! such a zone, else the first such zone in the board's order (as the attacker's
//! withdrawal is settled). With none, the submarines stay, and submerge or fight as the
//! rest of the orders say.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::standing_orders::{Followed, StandingOrders};
use super::{violation, GameState, RuleViolation, Rules, StackKey, ViolationCode};
use crate::board::{Power, TerritoryId};
use crate::units::{Ability, UnitTypeId};

const SUB_MOVEMENTS: &str = "Cut-Throat, Sub movements";

/// A defender's submarines that retreated before the first die, as the battle records them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SubsRetreated {
    /// Whose submarines (the defender whose standing orders the battle followed).
    pub power: Power,
    /// The safe zone they went to.
    pub to: TerritoryId,
    /// (type, damage, how many).
    pub subs: Vec<(UnitTypeId, u8, u32)>,
}

/// What can refuse the order whatever the board's state: a zone named without the order,
/// or a zone that is not a sea zone.
pub(super) fn check(rules: Rules<'_>, orders: &StandingOrders) -> Result<(), RuleViolation> {
    let Some(zone) = orders.retreat_subs_to else {
        return Ok(());
    };
    if !orders.retreat_subs {
        return Err(violation(
            ViolationCode::RetreatDestination,
            SUB_MOVEMENTS,
            "a zone for the submarines to retreat to goes with the order to retreat them \
             (retreat_subs)",
        ));
    }
    if !rules.board.contains(zone) || !rules.board.get(zone).sea {
        return Err(violation(
            ViolationCode::RetreatDestination,
            SUB_MOVEMENTS,
            "submarines retreat to a sea zone",
        ));
    }
    Ok(())
}

/// Whether `zone`, next to a battle in `territory` that `attacker` started, is safe for
/// `power`'s submarines: a sea zone with no battle pending, no unit of a power at war with
/// `power` and none of the attacker's.
pub(super) fn is_safe(
    rules: Rules<'_>,
    state: &GameState,
    territory: TerritoryId,
    zone: TerritoryId,
    (power, attacker): (Power, Option<Power>),
) -> bool {
    rules.board.adjacent(territory, zone)
        && rules.board.get(zone).sea
        && !state.contested.contains_key(&zone)
        && state.forces[zone.index()].keys().all(|(owner, _, _)| {
            *owner == power || (!state.at_war(power, *owner) && Some(*owner) != attacker)
        })
}

/// The safe zone `power`'s submarines go to: `named` while it is safe, else the first safe
/// zone next door in the board's order; `None`: there is none.
pub(super) fn safe_zone(
    rules: Rules<'_>,
    state: &GameState,
    territory: TerritoryId,
    (power, attacker): (Power, Option<Power>),
    named: Option<TerritoryId>,
) -> Option<TerritoryId> {
    let safe = |zone: &TerritoryId| is_safe(rules, state, territory, *zone, (power, attacker));
    if let Some(zone) = named.filter(|z| rules.board.contains(*z)).filter(safe) {
        return Some(zone);
    }
    let mut zones: Vec<TerritoryId> = rules.board.neighbours(territory).to_vec();
    zones.sort();
    zones.into_iter().find(safe)
}

/// The retreat the defender's standing orders call for in a sea battle `attacker` fights
/// in `territory`, settled before the first die; `None` when they call for none, the
/// defender has no submarine there, or no zone is safe.
pub(super) fn planned(
    rules: Rules<'_>,
    state: &GameState,
    territory: TerritoryId,
    attacker: Power,
    followed: Option<Followed<'_>>,
) -> Option<SubsRetreated> {
    let followed = followed.filter(|f| f.orders.retreat_subs)?;
    if !rules.board.get(territory).sea {
        return None;
    }
    let power = followed.power;
    let subs: Vec<(UnitTypeId, u8, u32)> = state.forces[territory.index()]
        .iter()
        .filter(|((owner, unit, _), n)| {
            *owner == power
                && **n > 0
                && rules.catalogue.get(*unit).has(Ability::FirstStrike)
                // AAP 7.1: submarines the attacker may not attack are not attacked.
                && super::hidden_subs::fights(rules, state, territory, power, *unit, attacker)
        })
        .map(|((_, unit, damage), n)| (*unit, *damage, *n))
        .collect();
    if subs.is_empty() {
        return None;
    }
    let named = followed.orders.retreat_subs_to;
    let to = safe_zone(rules, state, territory, (power, Some(attacker)), named)?;
    Some(SubsRetreated { power, to, subs })
}

/// The units in the battle's place that stay to fight: all of them, less the submarines
/// that retreated.
pub(super) fn staying<'f>(
    forces: &'f BTreeMap<StackKey, u32>,
    retreat: Option<&SubsRetreated>,
) -> Cow<'f, BTreeMap<StackKey, u32>> {
    let Some(retreat) = retreat else {
        return Cow::Borrowed(forces);
    };
    let mut staying = forces.clone();
    for &(unit, damage, n) in &retreat.subs {
        super::take_units(&mut staying, (retreat.power, unit, damage), n);
    }
    Cow::Owned(staying)
}

/// The retreated submarines arrive in their safe zone.
pub(super) fn apply(state: &mut GameState, retreat: &SubsRetreated) {
    for &(unit, damage, n) in &retreat.subs {
        *state.forces[retreat.to.index()]
            .entry((retreat.power, unit, damage))
            .or_default() += n;
    }
}

/// The order in words, as the listing's first line gives it.
pub(super) fn order_words(rules: Rules<'_>, orders: &StandingOrders) -> String {
    match orders.retreat_subs_to.filter(|z| rules.board.contains(*z)) {
        Some(zone) => format!(
            "submarines retreat to a safe zone ({} while it is safe)",
            rules.board.get(zone).name
        ),
        None => "submarines retreat to a safe zone".to_owned(),
    }
}

/// The listing's line for the retreat: "Defender's submarines retreated before the first
/// die: 2 SUB (United Kingdom) to North Sea Zone".
pub(super) fn listing_line(rules: Rules<'_>, retreat: Option<&SubsRetreated>) -> String {
    let Some(retreat) = retreat else {
        return String::new();
    };
    let subs: Vec<String> = retreat
        .subs
        .iter()
        .map(|(unit, _, n)| format!("{n} {}", rules.catalogue.get(*unit).code))
        .collect();
    format!(
        "Defender's submarines retreated before the first die: {} ({}) to {}\n",
        subs.join(", "),
        retreat.power.name(),
        rules.board.get(retreat.to).name
    )
}
