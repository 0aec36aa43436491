//! Income and production under the ruleset's economy: Classic printed values, or Enhanced
//! Realism's scenario multipliers and industrial capacity ([`crate::capacity`] holds the
//! seed's arithmetic; this applies it to a game).

use crate::board::{Power, TerritoryId};
use crate::capacity::{self, Complex, UnitClass, EXPANSION_COST};
use crate::document::{IncomeRule, ProductionRule};
use crate::game::ViolationCode;
use crate::units::{Ability, Domain, UnitTypeId};

use super::{require_phase, violation, GameEvent, GameState, Phase, RuleViolation, Rules};

/// The scenario multiplier of `power` this round, if the ruleset has one.
fn multiplier(rules: Rules<'_>, state: &GameState, power: Power) -> Option<u32> {
    multiplier_in(rules, state.round, power)
}

/// The scenario multiplier of `power` in `round`, if the ruleset has one.
fn multiplier_in(rules: Rules<'_>, round: u32, power: Power) -> Option<u32> {
    match rules.economy.income {
        IncomeRule::PrintedValues => None,
        IncomeRule::ScenarioMultipliers {
            scenario,
            usa_phased_in,
        } => Some(scenario.multiplier_on_turn(power, round, usa_phased_in)),
    }
}

/// What `power` collects this turn: at its end, or at its beginning where the ruleset
/// collects then (Enhanced Realism, `Economy::collected_at_turn_start`). Bombing losses are
/// not subtracted here: the engine takes them from the treasury when the raid is flown.
pub(super) fn income(rules: Rules<'_>, state: &GameState, power: Power) -> u32 {
    income_in(rules, state, power, state.round)
}

/// What `power`'s next collection would pay, the board as it stands: this turn's, or,
/// where income comes at the beginning of the turn and this turn's is in (its repairs
/// phase is over), the next turn's, a round on (the USA's phased-in multiplier grows).
pub(crate) fn next_income(rules: Rules<'_>, state: &GameState, power: Power) -> u32 {
    let collected = rules.economy.collected_at_turn_start
        && !(state.phase == Phase::Repairs && state.power(rules.board) == power);
    income_in(rules, state, power, state.round + u32::from(collected))
}

fn income_in(rules: Rules<'_>, state: &GameState, power: Power, round: u32) -> u32 {
    if rules.special.recruits.iter().any(|r| r.power == power) {
        return 0;
    }
    let (convoys, routes_cut) = super::convoys::income(rules, state, power);
    (base_income(rules, state, power, round) + growth(rules, state, power, round) + convoys)
        .saturating_sub(routes_cut)
}

/// The free infantry `power` raises at the start of its turn: so many a turn while it has
/// units, one per IPC area it alone occupies, one while friends hold the whole road;
/// raised where the ruleset says, or where it has the most units (the first on the board
/// among equals; the seed lets the CCP choose, and it moves them on from there).
pub(super) fn recruits(rules: Rules<'_>, state: &GameState, power: Power) -> Vec<GameEvent> {
    let Some(plan) = rules.special.recruits.iter().find(|r| r.power == power) else {
        return Vec::new();
    };
    let units_in = |place: TerritoryId, who: &dyn Fn(Power) -> bool| -> u32 {
        state.forces[place.index()]
            .iter()
            .filter(|((owner, _, _), _)| who(*owner))
            .map(|(_, n)| n)
            .sum()
    };
    let mine = |owner: Power| owner == power;
    let others = |owner: Power| owner != power;
    let sole_areas = rules
        .board
        .territories()
        .filter(|(id, t)| {
            t.ipc > 0 && state.holder[id.index()] == Some(power) && units_in(*id, &others) == 0
        })
        .count() as u32;
    let has_units = rules
        .board
        .territories()
        .any(|(id, _)| units_in(id, &mine) > 0);
    let most = most_units(rules, state, power);
    let road = u32::from(
        !plan.for_holding.is_empty()
            && plan
                .for_holding
                .iter()
                .all(|t| state.holder[t.index()].is_some_and(|h| plan.held_by.contains(&h))),
    );
    let per_turn = if has_units { plan.per_turn } else { 0 };
    let infantry = per_turn + plan.per_sole_area * sole_areas + road;
    if plan.placed_by_player {
        // AAP 1.1a: "to be placed any province that they have a unit in", by the player.
        return if infantry > 0 && has_units {
            vec![GameEvent::RecruitsDue { power, infantry }]
        } else {
            Vec::new()
        };
    }
    let place = plan.place_at.or(most);
    match place {
        Some(territory) if infantry > 0 && state.holder[territory.index()] == Some(power) => {
            vec![GameEvent::RecruitsRaised {
                power,
                territory,
                infantry,
            }]
        }
        _ => Vec::new(),
    }
}

/// The land `power` holds with the most of its units (the first on the board among
/// equals): where its recruits go when nobody says where.
pub(super) fn most_units(rules: Rules<'_>, state: &GameState, power: Power) -> Option<TerritoryId> {
    rules
        .board
        .territories()
        .filter(|(id, _)| state.holder[id.index()] == Some(power))
        .map(|(id, _)| (state.count_units(rules, id, power, |_, _| true), id))
        .filter(|(n, _)| *n > 0)
        .max_by_key(|(n, id)| (*n, std::cmp::Reverse(*id)))
        .map(|(_, id)| id)
}

/// What the ruleset's growing values add in `round` to the printed values held.
fn growth(rules: Rules<'_>, state: &GameState, power: Power, round: u32) -> u32 {
    rules
        .special
        .growing_values
        .iter()
        .filter(|(territory, _, _)| state.holder[territory.index()] == Some(power))
        .map(|(territory, base, per_round)| {
            (base + per_round * round).saturating_sub(rules.board.get(*territory).ipc)
        })
        .sum()
}

/// Free units due at the end of `power`'s turn this round.
pub(super) fn reinforcements(rules: Rules<'_>, state: &GameState, power: Power) -> Vec<GameEvent> {
    rules
        .special
        .reinforcements
        .iter()
        .filter(|a| a.power == power && a.round == state.round)
        .map(|a| GameEvent::ReinforcementsArrived {
            power,
            territory: a.territory,
            units: a.units.clone(),
            lost: !rules.board.get(a.territory).sea
                && state.holder[a.territory.index()] != Some(power),
        })
        .collect()
}

fn base_income(rules: Rules<'_>, state: &GameState, power: Power, round: u32) -> u32 {
    let Some(multiplier) = multiplier_in(rules, round, power) else {
        return state.ipc_count(rules.board, power);
    };
    let (original, captured) = rules
        .board
        .territories()
        .filter(|(id, _)| state.holder[id.index()] == Some(power))
        .fold((0, 0), |(original, captured), (_, t)| {
            if t.original_owner == Some(power) {
                (original + t.ipc, captured)
            } else {
                (original, captured + t.ipc)
            }
        });
    crate::scenario::income(original, captured, multiplier, 0)
}

/// The seed's unit type of a unit; complexes are outside the four types. AA guns are
/// counted with the guns (Type 2), the nearest of the seed's types.
fn class_of(rules: Rules<'_>, unit: UnitTypeId) -> Option<UnitClass> {
    let profile = rules.catalogue.get(unit);
    match profile.domain {
        _ if profile.has(Ability::Factory) => None,
        Domain::Air => Some(UnitClass::Aircraft),
        Domain::Sea => Some(UnitClass::Naval),
        Domain::Land if Some(unit) == rules.catalogue.infantry() => Some(UnitClass::Infantry),
        Domain::Land => Some(UnitClass::ArtilleryAndArmour),
    }
}

fn complex_at(rules: Rules<'_>, state: &GameState, power: Power, site: TerritoryId) -> Complex {
    let territory = rules.board.get(site);
    let own = territory.original_owner == Some(power);
    Complex {
        territory: territory.name.clone(),
        value: territory.ipc,
        captured: !own,
        expansions: state.expansions.get(&site).copied().unwrap_or(0),
        capital: own && territory.capital,
        australia: territory.name == "Australia",
    }
}

/// Checks a placement at the complex in `site` against its capacity per unit type, with
/// what it placed earlier this turn.
pub(super) fn check_capacity(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    site: TerritoryId,
    units: &[(UnitTypeId, u32)],
) -> Result<(), RuleViolation> {
    let Some(multiplier) = multiplier(rules, state, power) else {
        return Ok(());
    };
    let earlier = state
        .placed_this_turn
        .range((site, UnitTypeId::MIN)..=(site, UnitTypeId::MAX))
        .map(|((_, unit), n)| (*unit, *n));
    let placements: Vec<(UnitClass, u32, u32)> = earlier
        .chain(units.iter().copied())
        .filter_map(|(unit, n)| {
            class_of(rules, unit).map(|class| (class, rules.catalogue.get(unit).cost, n))
        })
        .collect();
    complex_at(rules, state, power, site).check(multiplier, &placements)
}

/// Enhanced Realism: one expansion of a complex, bought in the Purchase phase.
pub(super) fn decide_expansion(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    territory: TerritoryId,
) -> Result<Vec<GameEvent>, RuleViolation> {
    if rules.economy.production != ProductionRule::IndustrialCapacity {
        return Err(violation(
            ViolationCode::NoIndustrialCapacity,
            capacity::CAPACITY_RULE,
            "complexes are expanded only under Enhanced Realism's industrial capacity",
        ));
    }
    require_phase(state, Phase::Purchase, "expanding a complex")?;
    let has_factory = state.forces[territory.index()]
        .keys()
        .any(|(_, unit, _)| rules.catalogue.get(*unit).has(Ability::Factory));
    if !has_factory || state.holder[territory.index()] != Some(power) {
        return Err(violation(
            ViolationCode::NoFactory,
            capacity::CAPACITY_RULE,
            format!(
                "{power} has no industrial complex in {}",
                rules.board.get(territory).name
            ),
        ));
    }
    let treasury = state.treasury.get(&power).copied().unwrap_or(0);
    if treasury < EXPANSION_COST {
        return Err(violation(
            ViolationCode::InsufficientIpc,
            capacity::CAPACITY_RULE,
            format!("an expansion costs {EXPANSION_COST} IPC; {power} has {treasury}"),
        ));
    }
    complex_at(rules, state, power, territory)
        .expand(state.expanded_this_turn.contains(&territory))?;
    Ok(vec![GameEvent::ComplexExpanded {
        power,
        territory,
        cost: EXPANSION_COST,
    }])
}
