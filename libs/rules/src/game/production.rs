//! Purchases and placement: buying units, placing them at complexes (their production
//! limits, shipyards for ships, new complexes).

use super::*;

impl GameState {
    /// How many units `power` may still place in `territory` this turn, if it has a
    /// complex there; `None` for no limit.
    pub(crate) fn production_left(
        &self,
        rules: Rules<'_>,
        power: Power,
        territory: TerritoryId,
    ) -> Result<Option<u32>, RuleViolation> {
        let name = &rules.board.get(territory).name;
        // Complexes are captured, never destroyed: whoever holds the territory uses it.
        let has_factory = self.forces[territory.index()]
            .keys()
            .any(|(_, unit, _)| rules.catalogue.get(*unit).has(Ability::Factory));
        if !has_factory || self.holder[territory.index()] != Some(power) {
            return Err(violation(
                ViolationCode::NoFactory,
                "Classic rules, Mobilize; Cut-Throat, IC movement",
                format!(
                    "{power} can only place units at its own industrial complexes, and has none in {name}"
                ),
            ));
        }
        if self.captured_this_turn.contains(&territory) {
            // Units go only to complexes held at the start of the turn.
            return Err(violation(
                ViolationCode::ComplexCapturedThisTurn,
                "Classic rules, Mobilize",
                format!(
                    "{power} took the complex in {name} this turn; it produces from the next turn"
                ),
            ));
        }
        if self.factories_setting_up.contains(&territory) {
            return Err(violation(
                ViolationCode::ComplexSettingUp,
                "Cut-Throat, IC movement",
                format!(
                    "the complex moved to {name} this turn produces nothing until it is set up"
                ),
            ));
        }
        let used: u32 = self
            .placed_this_turn
            .range((territory, UnitTypeId::MIN)..=(territory, UnitTypeId::MAX))
            .map(|(_, n)| n)
            .sum();
        if let Some(limit) = rules.special.limited_complexes.get(&territory) {
            return Ok(Some(limit.saturating_sub(used)));
        }
        if self.original_factories.get(&territory) == Some(&power) {
            return Ok(None);
        }
        let value = rules.board.get(territory).ipc;
        Ok(Some(value.saturating_sub(used)))
    }
}

pub(crate) fn purchase(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
) -> Result<Vec<GameEvent>, RuleViolation> {
    require_phase(state, Phase::Purchase, "buying units")?;
    if units
        .iter()
        .any(|(u, _)| rules.catalogue.get(*u).has(Ability::Factory))
    {
        no_new_complexes(rules, power)?;
    }
    if units.is_empty() || units.iter().any(|(_, n)| *n == 0) {
        return Err(violation(
            ViolationCode::EmptyPurchase,
            "Classic rules, Purchase",
            "a purchase names at least one unit, each at least once",
        ));
    }
    let cost: u32 = units
        .iter()
        .map(|(unit, n)| state.unit_cost(rules, power, *unit).saturating_mul(*n))
        .sum();
    let treasury = state.treasury.get(&power).copied().unwrap_or(0);
    if cost > treasury {
        return Err(violation(
            ViolationCode::InsufficientIpc,
            "Classic rules, Purchase",
            format!("these units cost {cost} IPC and {power} has {treasury}"),
        ));
    }
    Ok(vec![GameEvent::UnitsPurchased {
        power,
        units: units.to_vec(),
        cost,
    }])
}

pub(crate) fn place(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    territory: TerritoryId,
    units: &[(UnitTypeId, u32)],
) -> Result<Vec<GameEvent>, RuleViolation> {
    require_phase(state, Phase::Placement, "placing units")?;
    if units.is_empty() || units.iter().any(|(_, n)| *n == 0) {
        return Err(violation(
            ViolationCode::EmptyPlacement,
            "Classic rules, Mobilize",
            "a placement names at least one unit, each at least once",
        ));
    }
    for &(unit, n) in units {
        let bought = state.pending.get(&unit).copied().unwrap_or(0);
        if n > bought {
            return Err(violation(
                ViolationCode::NotPurchased,
                "Classic rules, Mobilize",
                format!(
                    "{power} has {bought} {} to place, not {n}",
                    rules.catalogue.get(unit).code
                ),
            ));
        }
    }
    let target = rules.board.get(territory);
    if rules.special.places_recruits(power) {
        return place_recruits(rules, state, power, territory, units);
    }
    if units
        .iter()
        .any(|(u, _)| rules.catalogue.get(*u).has(Ability::Factory))
    {
        return place_factory(rules, state, power, territory, units);
    }
    // Ships are placed in a sea zone next to the complex; everything else on it.
    let factory_site = if target.sea {
        let site = state.shipyard(rules, power, territory);
        if units
            .iter()
            .any(|(u, _)| rules.catalogue.get(*u).domain != Domain::Sea)
        {
            return Err(violation(
                ViolationCode::LandUnitAtSea,
                "Classic rules, Mobilize",
                "only ships are placed in a sea zone",
            ));
        }
        site.ok_or_else(|| {
            violation(
                ViolationCode::NoFactory,
                "Classic rules, Mobilize",
                format!(
                    "{} is not next to an industrial complex of {power}",
                    target.name
                ),
            )
        })?
    } else {
        if units
            .iter()
            .any(|(u, _)| rules.catalogue.get(*u).domain == Domain::Sea)
        {
            return Err(violation(
                ViolationCode::ShipOnLand,
                "Classic rules, Mobilize",
                "ships are placed in a sea zone next to the complex",
            ));
        }
        territory
    };
    let count: u32 = units.iter().map(|(_, n)| n).sum();
    let left = state.production_left(rules, power, factory_site)?;
    if rules.economy.production == crate::document::ProductionRule::IndustrialCapacity {
        economy::check_capacity(rules, state, power, factory_site, units)?;
    } else if let Some(left) = left {
        if count > left {
            return Err(violation(
                ViolationCode::ProductionLimit,
                "Cut-Throat, IC movement (a captured or moved complex produces its territory's value)",
                format!(
                    "the complex in {} may place {left} more units this turn, not {count}",
                    rules.board.get(factory_site).name
                ),
            ));
        }
    }
    Ok(placed(power, territory, units))
}

/// AAP 1.1a: "CCP gets +2 inf per turn to be placed any province that they have a unit in".
fn place_recruits(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    territory: TerritoryId,
    units: &[(UnitTypeId, u32)],
) -> Result<Vec<GameEvent>, RuleViolation> {
    if !state.recruit_site(rules, power, territory) {
        return Err(violation(
            ViolationCode::NotRecruitSite,
            "AAP Historical, 1.1a (CCP recruitment)",
            format!(
                "{power}'s recruits are placed in a province where it has a unit; it has none in {}",
                rules.board.get(territory).name
            ),
        ));
    }
    Ok(placed(power, territory, units))
}

/// The event of a placement the rules allow, whichever rule allowed it.
fn placed(power: Power, territory: TerritoryId, units: &[(UnitTypeId, u32)]) -> Vec<GameEvent> {
    vec![GameEvent::UnitsPlaced {
        power,
        territory,
        units: units.to_vec(),
    }]
}

pub(crate) const NEW_FACTORY: &str = "Classic rules, Mobilize (industrial complexes)";

/// A new complex goes alone onto land held since the start of the turn that has none; it
/// produces from the next turn, up to its territory's value.
/// Whether the ruleset lets `power` build industrial complexes.
pub(crate) fn no_new_complexes(rules: Rules<'_>, power: Power) -> Result<(), RuleViolation> {
    if rules.special.no_new_complexes.contains(&power) {
        return Err(violation(
            ViolationCode::NoNewComplexes,
            "AAP Historical, 2.3",
            format!("{power} cannot build industrial complexes"),
        ));
    }
    Ok(())
}

pub(crate) fn place_factory(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    territory: TerritoryId,
    units: &[(UnitTypeId, u32)],
) -> Result<Vec<GameEvent>, RuleViolation> {
    let name = &rules.board.get(territory).name;
    no_new_complexes(rules, power)?;
    if units.len() != 1 || units[0].1 != 1 {
        return Err(violation(
            ViolationCode::ComplexAlone,
            NEW_FACTORY,
            "an industrial complex is placed on its own, one at a time",
        ));
    }
    if !state.factory_site_free(rules, power, territory) {
        return Err(violation(
            ViolationCode::NoComplexSite,
            NEW_FACTORY,
            format!("a new complex goes on land {power} has held since the start of its turn, without a complex; {name} is not such land"),
        ));
    }
    Ok(placed(power, territory, units))
}

impl GameState {
    /// Land where `power` has a unit standing.
    fn recruit_site(&self, rules: Rules<'_>, power: Power, id: TerritoryId) -> bool {
        !rules.board.get(id).sea && self.count_units(rules, id, power, |_, _| true) > 0
    }

    pub(crate) fn factory_site_free(
        &self,
        rules: Rules<'_>,
        power: Power,
        territory: TerritoryId,
    ) -> bool {
        !rules.board.get(territory).sea
            && self.holder[territory.index()] == Some(power)
            && !self.captured_this_turn.contains(&territory)
            && !self.forces[territory.index()]
                .keys()
                .any(|(_, u, _)| rules.catalogue.get(*u).has(Ability::Factory))
    }

    /// Contested places where `power` still has units to fight with (infantry may have
    /// gone on by rail, leaving nothing to fight).
    pub fn battles_to_fight(&self, rules: Rules<'_>, power: Power) -> Vec<TerritoryId> {
        self.contested
            .keys()
            .copied()
            .filter(|t| {
                let sea = rules.board.get(*t).sea;
                self.forces[t.index()].iter().any(|((owner, unit, _), _)| {
                    let profile = rules.catalogue.get(*unit);
                    *owner == power
                        && profile.is_combatant()
                        && !(sea && profile.domain == Domain::Land)
                })
            })
            .collect()
    }

    /// The complex next to a sea zone that launches `power`'s ships there: one without a
    /// limit if any, else the one with the most left this turn.
    pub(crate) fn shipyard(
        &self,
        rules: Rules<'_>,
        power: Power,
        zone: TerritoryId,
    ) -> Option<TerritoryId> {
        rules
            .board
            .neighbours(zone)
            .iter()
            .filter_map(|t| match self.production_left(rules, power, *t) {
                Ok(left) => Some((left.unwrap_or(u32::MAX), *t)),
                Err(_) => None,
            })
            .max_by_key(|(left, t)| (*left, std::cmp::Reverse(*t)))
            .map(|(_, t)| t)
    }

    /// Whether a unit of this type could still be placed anywhere this turn.
    pub(crate) fn can_place(&self, rules: Rules<'_>, power: Power, unit: UnitTypeId) -> bool {
        rules
            .board
            .territories()
            .any(|(id, _)| self.may_place_at(rules, power, unit, id))
    }

    /// Where `power` may place a `unit` as the board stands: land with a complex that has
    /// room, sea zones beside one (ships), land held since the turn began without a
    /// complex (a new complex). Enhanced Realism's capacity is checked at placement.
    pub(crate) fn placement_sites(
        &self,
        rules: Rules<'_>,
        power: Power,
        unit: UnitTypeId,
    ) -> Vec<TerritoryId> {
        rules
            .board
            .territories()
            .map(|(id, _)| id)
            .filter(|id| self.may_place_at(rules, power, unit, *id))
            .collect()
    }

    fn may_place_at(
        &self,
        rules: Rules<'_>,
        power: Power,
        unit: UnitTypeId,
        id: TerritoryId,
    ) -> bool {
        if rules.special.places_recruits(power) {
            return self.recruit_site(rules, power, id);
        }
        let profile = rules.catalogue.get(unit);
        let territory = rules.board.get(id);
        let producing = |t: TerritoryId| {
            matches!(
                self.production_left(rules, power, t),
                Ok(None) | Ok(Some(1..))
            )
        };
        if profile.has(Ability::Factory) {
            no_new_complexes(rules, power).is_ok() && self.factory_site_free(rules, power, id)
        } else if profile.domain == Domain::Sea {
            territory.sea && rules.board.neighbours(id).iter().any(|t| producing(*t))
        } else {
            !territory.sea && producing(id)
        }
    }
}
