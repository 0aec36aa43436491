//! Moving units: along adjacent places within each unit's range, by its domain, around
//! neutrals, through canals only when their land is held, stopping at the enemy (armour may
//! blitz through empty enemy land), and with aircraft landing where they may.
//!
//! Every power without an agreement is an enemy; a partner's land may be entered only with
//! its permission, and its transports and carriers used only with its permission.

use super::attack::{attack_on, no_combat_in_round_one};
use super::{
    take_of_type, take_units, violation, GameEvent, GameState, Permission, Phase, RuleViolation,
    Rules, Technology,
};
use crate::board::{Power, TerritoryId};
use crate::game::ViolationCode;
use crate::units::{Ability, Domain, UnitTypeId};

const MOVEMENT: &str = "Classic rules, Movement";

impl GameState {
    /// Whether an enemy of `power` has units in a place (factories and AA guns count: they
    /// are captured with the territory, not fought, so they are left out).
    pub(super) fn enemy_units(
        &self,
        rules: Rules<'_>,
        territory: TerritoryId,
        power: Power,
    ) -> bool {
        self.forces[territory.index()]
            .iter()
            .any(|((owner, unit, _), n)| {
                self.at_war(*owner, power)
                    && *n > 0
                    && super::hidden_subs::fights(rules, self, territory, *owner, *unit, power)
            })
    }

    pub(super) fn enemy_held(&self, territory: TerritoryId, power: Power) -> bool {
        self.holder[territory.index()].is_some_and(|h| self.at_war(h, power))
    }

    /// The powers at war with `power` that a move into `territory` meets.
    pub(super) fn opponents_in(
        &self,
        rules: Rules<'_>,
        territory: TerritoryId,
        power: Power,
    ) -> std::collections::BTreeSet<Power> {
        let mut found: std::collections::BTreeSet<Power> = self.forces[territory.index()]
            .iter()
            .filter(|((owner, unit, _), n)| {
                self.at_war(*owner, power)
                    && **n > 0
                    && super::hidden_subs::fights(rules, self, territory, *owner, *unit, power)
            })
            .map(|((owner, _, _), _)| *owner)
            .collect();
        found.extend(self.holder[territory.index()].filter(|h| self.at_war(*h, power)));
        found
    }

    /// Powers whose ships `power` may use here: itself and partners that allow it.
    fn hosts(&self, power: Power) -> impl Iterator<Item = Power> + '_ {
        crate::board::Power::CLASSIC
            .into_iter()
            .filter(move |host| self.permits(*host, power, Permission::Ferry))
    }

    /// How many of `power`'s `unit` in `territory` can still move, and how far.
    pub(super) fn movable(
        &self,
        rules: Rules<'_>,
        territory: TerritoryId,
        power: Power,
        unit: UnitTypeId,
    ) -> (u32, u8) {
        // Aircraft on patrol, and lent units taken back after they moved, stay put.
        let present = self
            .count_units(rules, territory, power, |u, _| u == unit)
            .saturating_sub(self.patrolling(power, territory, unit))
            .saturating_sub(
                self.resting
                    .get(&(power, territory, unit))
                    .copied()
                    .unwrap_or(0),
            );
        let profile = rules.catalogue.get(unit);
        if profile.domain == Domain::Land && rules.board.get(territory).sea {
            // Cargo: it goes where its transport goes, or ashore next door.
            return (present, u8::MAX);
        }
        let mut range = profile.movement;
        if profile.domain == Domain::Air && self.has(power, Technology::LongRangeAircraft) {
            range += 2;
        }
        // The Pacific board's bases: one space more leaving a friendly one.
        let range = range.saturating_add(super::bases::bonus(rules, self, territory, power, unit));
        match self.moved.get(&(territory, unit)) {
            // Aircraft that have flown may fly on to land, with what they have left.
            Some(&(_, used))
                if profile.domain == Domain::Air && self.phase == Phase::NonCombatMove =>
            {
                (present, range.saturating_sub(used))
            }
            Some(&(spent, _)) => (present.saturating_sub(spent), range),
            None => (present, range),
        }
    }

    /// `power`'s transport space in a sea zone, and how much of it its cargo uses.
    pub(super) fn transport_space(
        &self,
        rules: Rules<'_>,
        zone: TerritoryId,
        power: Power,
    ) -> (u32, u32) {
        let (mut capacity, mut used) = (0u32, 0u32);
        let hosts: Vec<Power> = self.hosts(power).collect();
        for ((owner, unit, _), n) in &self.forces[zone.index()] {
            let profile = rules.catalogue.get(*unit);
            if !hosts.contains(owner) {
                continue;
            }
            if is_transport(rules, *unit) {
                capacity += u32::from(profile.carries) * n;
            } else if profile.domain == Domain::Land {
                used += u32::from(profile.transport_space) * n;
            }
        }
        (capacity, used)
    }

    /// Free deck space for `power`'s fighters in a sea zone.
    fn deck_space(&self, rules: Rules<'_>, zone: TerritoryId, power: Power) -> u32 {
        let (mut space, mut aircraft) = (0u32, 0u32);
        let hosts: Vec<Power> = self.hosts(power).collect();
        for ((owner, unit, _), n) in &self.forces[zone.index()] {
            let profile = rules.catalogue.get(*unit);
            if !hosts.contains(owner) {
                continue;
            }
            if profile.domain == Domain::Air {
                aircraft += n;
            } else if profile.has(Ability::CarriesAircraft) {
                space += u32::from(profile.carries) * n;
            }
        }
        space.saturating_sub(aircraft)
    }
}

impl GameState {
    /// `power`'s aircraft with nowhere to be at the end of its non-combat move: over land
    /// neither it nor a permitting partner held at the start of the turn, or at sea beyond
    /// the carriers' decks (fighters only land on carriers). They are lost.
    pub(super) fn stranded_aircraft(
        &self,
        rules: Rules<'_>,
        power: Power,
    ) -> Vec<(TerritoryId, UnitTypeId, u32)> {
        let mut lost = Vec::new();
        for (place, territory) in rules.board.territories() {
            let forces = &self.forces[place.index()];
            let mine: Vec<(UnitTypeId, u32)> = forces
                .iter()
                .filter(|((o, u, _), _)| {
                    *o == power && rules.catalogue.get(*u).domain == Domain::Air
                })
                // Patrols stay in the air until their owner's next turn.
                .map(|((_, u, _), n)| (*u, n.saturating_sub(self.patrolling(power, place, *u))))
                .filter(|(_, n)| *n > 0)
                .collect();
            if mine.is_empty() {
                continue;
            }
            if !territory.sea {
                let may_stay = self.holder[place.index()]
                    .is_some_and(|h| self.permits(h, power, Permission::Enter))
                    && !self.captured_this_turn.contains(&place);
                if !may_stay {
                    lost.extend(mine.iter().map(|(u, n)| (place, *u, *n)));
                }
                continue;
            }
            let fighter = rules.catalogue.fighter();
            let hosts: Vec<Power> = self.hosts(power).collect();
            let (mut deck, mut others_aboard) = (0u32, 0u32);
            for ((owner, unit, _), n) in forces {
                let profile = rules.catalogue.get(*unit);
                if !hosts.contains(owner) {
                    continue;
                }
                if profile.has(Ability::CarriesAircraft) {
                    deck += u32::from(profile.carries) * n;
                } else if profile.domain == Domain::Air && *owner != power {
                    others_aboard += n;
                }
            }
            let mut room = deck.saturating_sub(others_aboard);
            for (unit, n) in mine {
                let landed = if Some(unit) == fighter {
                    n.min(room)
                } else {
                    0
                };
                room -= landed;
                if landed < n {
                    lost.push((place, unit, n - landed));
                }
            }
        }
        lost
    }
}

/// A ship that carries land units (not aircraft).
pub(super) fn is_transport(rules: Rules<'_>, unit: UnitTypeId) -> bool {
    let profile = rules.catalogue.get(unit);
    profile.domain == Domain::Sea && profile.carries > 0 && !profile.has(Ability::CarriesAircraft)
}

/// Transport space the land units of a move take.
fn space_needed(rules: Rules<'_>, units: &[(UnitTypeId, u32)]) -> u32 {
    units
        .iter()
        .filter(|(u, _)| rules.catalogue.get(*u).domain == Domain::Land)
        .map(|(u, n)| u32::from(rules.catalogue.get(*u).transport_space) * n)
        .sum()
}

const TRANSPORTS: &str = "Classic rules, Transports";

/// How land units may be at sea in this move: loading onto transports in the sea zone next
/// door, sailing with transports of the same move, or going ashore (which ends the move).
fn check_cargo(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
) -> Result<(), RuleViolation> {
    let board = rules.board;
    let (from, to) = (path[0], path[path.len() - 1]);
    let needed = space_needed(rules, units);
    if needed == 0 {
        // Ships leaving: the cargo they leave behind must still fit.
        let leaving: u32 = units
            .iter()
            .filter(|(u, _)| is_transport(rules, *u))
            .map(|(u, n)| u32::from(rules.catalogue.get(*u).carries) * n)
            .sum();
        if leaving > 0 {
            let (capacity, used) = state.transport_space(rules, from, power);
            // Saturating: AAP's CCP and KMT are not among the hosts counted here, so their
            // own ships may leave more room than is counted (issue 36 takes up their cargo).
            if used > capacity.saturating_sub(leaving) {
                return Err(violation(
                    ViolationCode::CargoStranded,
                    TRANSPORTS,
                    format!(
                        "the transports leaving {} carry land units that would be left at sea",
                        board.get(from).name
                    ),
                ));
            }
        }
        return Ok(());
    }
    let from_sea = board.get(from).sea;
    let to_sea = board.get(to).sea;
    match (from_sea, to_sea) {
        (false, true) => {
            let (capacity, used) = state.transport_space(rules, to, power);
            if path.len() != 2 {
                return Err(violation(
                    ViolationCode::LandUnitAtSea,
                    MOVEMENT,
                    "land units load onto transports in the sea zone next door, and go no further",
                ));
            }
            if used + needed > capacity {
                return Err(violation(
                    ViolationCode::NoTransportSpace,
                    TRANSPORTS,
                    format!(
                        "land units load onto transports in the sea zone next door; {} has {} free transport spaces, {needed} needed",
                        board.get(to).name,
                        capacity.saturating_sub(used)
                    ),
                ));
            }
        }
        (true, true) => {
            let carried: u32 = units
                .iter()
                .filter(|(u, _)| is_transport(rules, *u))
                .map(|(u, n)| u32::from(rules.catalogue.get(*u).carries) * n)
                .sum();
            if carried < needed {
                return Err(violation(
                    ViolationCode::NeedsTransport,
                    TRANSPORTS,
                    format!("land units at sea move only with transports that carry them ({needed} spaces, {carried} moving)"),
                ));
            }
        }
        (true, false) => {
            if path.len() != 2 {
                return Err(violation(
                    ViolationCode::UnloadEndsMove,
                    TRANSPORTS,
                    "units going ashore end their move there",
                ));
            }
        }
        (false, false) => {
            if path.iter().any(|t| board.get(*t).sea) {
                return Err(violation(
                    ViolationCode::LandUnitAtSea,
                    MOVEMENT,
                    "land units cross the sea only aboard transports",
                ));
            }
        }
    }
    Ok(())
}

pub(super) fn decide_move(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
) -> Result<Vec<GameEvent>, RuleViolation> {
    let combat = is_combat_move(state, "moving")?;
    let no_units = units.is_empty() || units.iter().any(|(_, n)| *n == 0);
    let (from, to) = move_ends(path, no_units, MOVEMENT, "a move")?;
    let board = rules.board;
    let name = |t: TerritoryId| board.get(t).name.clone();
    let distance = u8::try_from(path.len() - 1).unwrap_or(u8::MAX);
    if let Some(may_move) = rules.special.held_in_round_one.get(&from) {
        let held = units.iter().find(|(u, _)| !may_move.contains(u));
        if let (1, Some((unit, _))) = (state.round, held) {
            return Err(violation(
                ViolationCode::HeldInPlace,
                "AAP Historical, 1h",
                format!(
                    "in round 1 only {} may move from {}; not {}",
                    may_move
                        .iter()
                        .map(|u| rules.catalogue.get(*u).code.clone())
                        .collect::<Vec<_>>()
                        .join(" and "),
                    name(from),
                    rules.catalogue.get(*unit).code
                ),
            ));
        }
    }

    let mut domains = Vec::new();
    let mut damaged_moving = false;
    for &(unit, n) in units {
        let profile = rules.catalogue.get(unit);
        let range = able_to_move(rules, state, power, from, (unit, n))?;
        if profile.movement == 0 || distance > range {
            return Err(violation(
                ViolationCode::OutOfRange,
                MOVEMENT,
                format!(
                    "{} moves {range} spaces, and this path is {distance}",
                    profile.code
                ),
            ));
        }
        let undamaged = state.forces[from.index()]
            .get(&(power, unit, 0))
            .copied()
            .unwrap_or(0);
        damaged_moving |= profile.hit_points > 1 && n > undamaged;
        domains.push(profile.domain);
    }

    check_cargo(rules, state, power, units, path)?;
    super::garrisons::check_leaving(rules, state, power, from, units)?;
    let captured = walk_path(rules, state, power, units, path, &domains, combat)?;

    let ground = domains.contains(&Domain::Land);
    let meets_enemy =
        state.enemy_units(rules, to, power) || (ground && state.enemy_held(to, power));
    let contested = if meets_enemy {
        attack_on(rules, state, to)?;
        // Where the ruleset leaves the 2 hit rule out, a damaged battleship fights on.
        if damaged_moving
            && !rules
                .special
                .without
                .contains(&crate::document::CutThroatRule::BattleshipRepairs)
        {
            return Err(violation(
                ViolationCode::DamagedCannotAttack,
                "Cut-Throat, 2 hit battleship rule",
                "a damaged battleship may not attack until it is repaired",
            ));
        }
        Some(to)
    } else {
        None
    };
    if !combat && domains.contains(&Domain::Air) {
        check_landing(rules, state, power, units, to)?;
    }
    let passengers = passengers(rules, state, power, units, from)?;
    let taken: Vec<(TerritoryId, Option<Power>)> = captured
        .iter()
        .map(|t| (*t, state.holder[t.index()]))
        .collect();
    let moved = GameEvent::UnitsMoved {
        power,
        units: units.to_vec(),
        path: path.to_vec(),
        captured,
        contested,
        passengers,
    };
    // A capital walked into: its power's agreements are void, as when taken in battle.
    let voided: Vec<GameEvent> = taken
        .into_iter()
        .flat_map(|(t, previous)| {
            super::diplomacy::capital_taken(rules, state, &moved, t, previous)
        })
        .collect();
    Ok(std::iter::once(moved).chain(voided).collect())
}

/// Each step of a move's path: to a bordering place, not neutral, entered with its
/// holder's permission, open to the units' domains, and not stopping them before the end.
/// The empty enemy land armour blitzes through is taken: those places are returned.
fn walk_path(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
    domains: &[Domain],
    combat: bool,
) -> Result<Vec<TerritoryId>, RuleViolation> {
    let board = rules.board;
    let name = |t: TerritoryId| board.get(t).name.clone();
    let mut captured = Vec::new();
    for (i, pair) in path.windows(2).enumerate() {
        let (a, b) = (pair[0], pair[1]);
        let here = board.get(b);
        if !board.adjacent(a, b) {
            return Err(violation(
                ViolationCode::NotAdjacent,
                MOVEMENT,
                format!("{} does not border {}", name(a), name(b)),
            ));
        }
        if here.is_neutral() {
            return Err(violation(
                ViolationCode::NeutralTerritory,
                "Classic rules, Neutral territories",
                format!("{} is neutral and may not be entered", here.name),
            ));
        }
        let last = i + 2 == path.len();
        let ground = domains.contains(&Domain::Land);
        if let Some(host) = state.holder[b.index()] {
            let lands_here = last && domains.contains(&Domain::Air);
            if !state.at_war(host, power)
                && (ground || lands_here)
                && !state.permits(host, power, Permission::Enter)
            {
                return Err(violation(
                    ViolationCode::NoPermission,
                    "Cut-Throat, Alliances: foreign units can be barred from entering an allied country",
                    format!(
                        "{host} has not allowed {power} into {}; to attack it, break the agreement first (a declaration of war)",
                        here.name
                    ),
                ));
            }
        }
        for domain in domains {
            match domain {
                Domain::Sea if !here.sea => {
                    return Err(violation(
                        ViolationCode::ShipOnLand,
                        MOVEMENT,
                        format!("ships cannot enter {}", here.name),
                    ))
                }
                Domain::Sea
                    if !board
                        .sea_passage_open(a, b, |t| state.holder[t.index()] == Some(power)) =>
                {
                    return Err(violation(
                        ViolationCode::CanalClosed,
                        "Classic rules, Canals",
                        format!(
                            "the canal between {} and {} is open only to whoever holds its land",
                            name(a),
                            name(b)
                        ),
                    ))
                }
                _ => {}
            }
        }
        if last {
            break;
        }
        // Passing through: the enemy stops land units and ships; armour may blitz through
        // an empty enemy territory, taking it.
        let naval = domains.contains(&Domain::Sea);
        let enemy_here = state.enemy_units(rules, b, power);
        // AAP 7.1: enemy submarines alone let ships pass, unless ordered to block them.
        let only_submarines = rules.special.submarines_do_not_block
            && state.forces[b.index()].iter().all(|((owner, unit, _), _)| {
                !state.at_war(*owner, power)
                    || !rules.catalogue.get(*unit).is_combatant()
                    || (rules.catalogue.get(*unit).has(Ability::FirstStrike)
                        && !super::hidden_subs::blocks(state, *owner, b, power))
            });
        if (ground || naval) && enemy_here && !(naval && only_submarines) {
            return Err(violation(
                ViolationCode::StoppedByEnemy,
                MOVEMENT,
                format!("enemy units in {} stop the move there", here.name),
            ));
        }
        if ground && state.enemy_held(b, power) {
            let blitz = units
                .iter()
                .all(|(u, _)| rules.catalogue.get(*u).has(Ability::Blitz));
            if !blitz || !combat {
                return Err(violation(
                    ViolationCode::StoppedByEnemy,
                    MOVEMENT,
                    format!("entering enemy {} ends the move (only armour blitzes through empty enemy land, in the combat move)", here.name),
                ));
            }
            if state.round == 1 {
                return Err(no_combat_in_round_one());
            }
            captured.push(b);
        }
    }
    Ok(captured)
}

/// Aircraft in the non-combat move land where `power` held at the start of the turn (and
/// may enter), or on carriers with room.
fn check_landing(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
    to: TerritoryId,
) -> Result<(), RuleViolation> {
    let target = rules.board.get(to);
    let aircraft: u32 = units
        .iter()
        .filter(|(u, _)| rules.catalogue.get(*u).domain == Domain::Air)
        .map(|(_, n)| n)
        .sum();
    let lands = if target.sea {
        state.deck_space(rules, to, power) >= aircraft
    } else {
        state.holder[to.index()].is_some_and(|h| state.permits(h, power, Permission::Enter))
            && !state.captured_this_turn.contains(&to)
    };
    if !lands {
        return Err(violation(
            ViolationCode::NoLanding,
            "Classic rules, Aircraft landing",
            format!("aircraft must land on a territory {power} held at the start of the turn or on a carrier with room; {} is neither", target.name),
        ));
    }
    Ok(())
}

/// Whether this is the combat move (true) or the non-combat move (false); any other phase
/// refuses `what`.
pub(super) fn is_combat_move(state: &GameState, what: &str) -> Result<bool, RuleViolation> {
    match state.phase {
        Phase::CombatMove => Ok(true),
        Phase::NonCombatMove => Ok(false),
        other => Err(violation(
            ViolationCode::WrongPhase,
            "Classic rules, Order of play",
            format!(
                "{what} belongs to the combat or non-combat move; this is the {} phase",
                other.name()
            ),
        )),
    }
}

/// Where a move along `path` starts and ends; `what` names the kind of move ("a move") in
/// the refusal of an empty path.
pub(super) fn path_ends(
    path: &[TerritoryId],
    rule: &'static str,
    what: &str,
) -> Result<(TerritoryId, TerritoryId), RuleViolation> {
    let (Some(&from), Some(&to)) = (path.first(), path.last()) else {
        return Err(violation(
            ViolationCode::BadPath,
            rule,
            format!("{what} needs a path"),
        ));
    };
    Ok((from, to))
}

/// [`path_ends`] of a move that names units (`no_units`: it names none, or none of a kind)
/// and takes at least one step.
pub(super) fn move_ends(
    path: &[TerritoryId],
    no_units: bool,
    rule: &'static str,
    what: &str,
) -> Result<(TerritoryId, TerritoryId), RuleViolation> {
    let ends = path_ends(path, rule, what)?;
    if path.len() < 2 || no_units {
        return Err(violation(
            ViolationCode::BadPath,
            rule,
            format!("{what} names units and at least one step"),
        ));
    }
    Ok(ends)
}

/// How far `n` of `power`'s `unit` in `from` may go, if as many are able to move.
fn able_to_move(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    from: TerritoryId,
    (unit, n): (UnitTypeId, u32),
) -> Result<u8, RuleViolation> {
    let (available, range) = state.movable(rules, from, power, unit);
    if n > available {
        return Err(violation(
            ViolationCode::NotEnoughUnits,
            MOVEMENT,
            format!(
                "{power} has {available} {} in {} able to move, not {n}",
                rules.catalogue.get(unit).code,
                rules.board.get(from).name
            ),
        ));
    }
    Ok(range)
}

/// Partners' troops on the transports that sail: whatever no longer fits on the ships
/// staying behind goes along (which unit rode which ship is not recorded).
fn passengers(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
    from: TerritoryId,
) -> Result<Vec<(Power, UnitTypeId, u32)>, RuleViolation> {
    let sailing: u32 = units
        .iter()
        .filter(|(u, _)| is_transport(rules, *u))
        .map(|(u, n)| u32::from(rules.catalogue.get(*u).carries) * n)
        .sum();
    let ferries_anyone = state
        .permissions
        .iter()
        .any(|(grantor, _, p)| *grantor == power && *p == Permission::Ferry);
    if sailing == 0 || !rules.board.get(from).sea || !ferries_anyone {
        return Ok(Vec::new());
    }
    // What is left in the zone once these ships have sailed.
    let mut after = state.clone();
    for &(unit, n) in units {
        take_units(&mut after.forces[from.index()], (power, unit, 0), n);
    }
    let mut room = sailing.saturating_sub(space_needed(rules, units));
    let mut aboard = Vec::new();
    for guest in crate::board::Power::CLASSIC {
        if guest == power || !state.permits(power, guest, Permission::Ferry) {
            continue;
        }
        let (capacity, used) = after.transport_space(rules, from, guest);
        let mut excess = used.saturating_sub(capacity);
        let stacks: Vec<(UnitTypeId, u32)> = state.forces[from.index()]
            .iter()
            .filter(|((o, u, _), _)| *o == guest && rules.catalogue.get(*u).domain == Domain::Land)
            .map(|((_, u, _), n)| (*u, *n))
            .collect();
        for (unit, n) in stacks {
            let space = u32::from(rules.catalogue.get(unit).transport_space).max(1);
            let going = n.min(excess.div_ceil(space));
            if going == 0 {
                continue;
            }
            if going * space > room {
                return Err(violation(
                    ViolationCode::CargoStranded,
                    TRANSPORTS,
                    format!(
                        "{guest}'s troops aboard would be left at sea in {}",
                        rules.board.get(from).name
                    ),
                ));
            }
            room -= going * space;
            excess = excess.saturating_sub(going * space);
            aboard.push((guest, unit, going));
        }
    }
    Ok(aboard)
}

pub(super) fn carry_passengers(
    state: &mut GameState,
    path: &[TerritoryId],
    passengers: &[(Power, UnitTypeId, u32)],
) {
    let (Some(&from), Some(&to)) = (path.first(), path.last()) else {
        return;
    };
    for &(guest, unit, n) in passengers {
        for (damage, taken) in take_of_type(&mut state.forces[from.index()], guest, unit, n) {
            *state.forces[to.index()]
                .entry((guest, unit, damage))
                .or_default() += taken;
        }
    }
}

pub(super) fn apply_move(
    rules: Rules<'_>,
    state: &mut GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
    captured: &[TerritoryId],
    contested: Option<TerritoryId>,
) {
    let (Some(&from), Some(&to)) = (path.first(), path.last()) else {
        return;
    };
    let distance = u8::try_from(path.len() - 1).unwrap_or(u8::MAX);
    let ashore = rules.board.get(from).sea && !rules.board.get(to).sea;
    for &(unit, n) in units {
        for (damage, taken) in take_of_type(&mut state.forces[from.index()], power, unit, n) {
            *state.forces[to.index()]
                .entry((power, unit, damage))
                .or_default() += taken;
        }
        super::lending::moved(state, power, from, to, unit, n);
        // A base's space is in the range the move was checked against: aircraft flying on
        // later keep it, as used less.
        let bonus = super::bases::bonus(rules, state, from, power, unit);
        let used_before = state.moved.get(&(from, unit)).map_or(0, |(_, used)| *used);
        if let Some((spent, _)) = state.moved.get_mut(&(from, unit)) {
            *spent = spent.saturating_sub(n);
        }
        let profile = rules.catalogue.get(unit);
        let is_air = profile.domain == Domain::Air;
        if ashore && profile.domain == Domain::Land {
            *state.landed.entry((to, unit)).or_default() += n;
        }
        let entry = state.moved.entry((to, unit)).or_insert((0, 0));
        entry.0 += n;
        entry.1 = entry.1.max(if is_air {
            (used_before + distance).saturating_sub(bonus)
        } else {
            distance
        });
    }
    for &territory in captured {
        state.holder[territory.index()] = Some(power);
        state.captured_this_turn.insert(territory);
    }
    if let Some(place) = contested {
        let opponents = state.opponents_in(rules, place, power);
        state.contested.entry(place).or_default().extend(opponents);
    }
}

const PARATROOPERS: &str = "Cut-Throat, Paratroopers";

/// Bombers flying troops from where both stand: the flight is checked as the bombers'
/// move; the troops land at its end, which must be land.
pub(super) fn decide_air_drop(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    bombers: u32,
    troops: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
) -> Result<Vec<GameEvent>, RuleViolation> {
    let (Some(bomber), Some(infantry)) = (rules.catalogue.bomber(), rules.catalogue.infantry())
    else {
        return Err(violation(
            ViolationCode::NoParatroopers,
            PARATROOPERS,
            "this ruleset has no bombers to carry troops",
        ));
    };
    let armour = rules.catalogue.armour();
    let count = |unit: Option<UnitTypeId>| -> u32 {
        troops
            .iter()
            .filter(|(u, _)| Some(*u) == unit)
            .map(|(_, n)| n)
            .sum()
    };
    let (inf, arm) = (count(Some(infantry)), count(armour));
    let total: u32 = troops.iter().map(|(_, n)| n).sum();
    let heavy = state.has(power, Technology::HeavyBombers);
    let fits = if heavy {
        total <= 2 * bombers && arm <= bombers.min(inf)
    } else {
        arm == 0 && total <= bombers
    };
    if bombers == 0 || total == 0 || inf + arm != total || !fits {
        return Err(violation(
            ViolationCode::ParatroopCapacity,
            PARATROOPERS,
            "a bomber carries 1 INF; a heavy bomber 2 INF or 1 INF and 1 ARM (not heavy armour)",
        ));
    }
    let (from, to) = path_ends(path, MOVEMENT, "a move")?;
    if rules.board.get(from).sea || rules.board.get(to).sea {
        return Err(violation(
            ViolationCode::ParatroopLand,
            PARATROOPERS,
            "troops board bombers on land and are dropped on land",
        ));
    }
    for &troop in troops {
        able_to_move(rules, state, power, from, troop)?;
    }
    // The flight itself: range, neutrals, landing (in the non-combat move).
    let [GameEvent::UnitsMoved { .. }] =
        decide_move(rules, state, power, &[(bomber, bombers)], path)?.as_slice()
    else {
        unreachable!("a move decides one event")
    };
    if let Some(host) = state.holder[to.index()].filter(|h| !state.at_war(*h, power)) {
        if !state.permits(host, power, Permission::Enter) {
            return Err(violation(
                ViolationCode::NoPermission,
                "Cut-Throat, Alliances: foreign units can be barred from entering an allied country",
                format!("{host} has not allowed {power} into {}", rules.board.get(to).name),
            ));
        }
    }
    let meets_enemy = state.enemy_units(rules, to, power) || state.enemy_held(to, power);
    let contested = if meets_enemy {
        Some(attack_on(rules, state, to)?)
    } else {
        None
    };
    Ok(vec![GameEvent::TroopsAirDropped {
        power,
        bombers,
        troops: troops.to_vec(),
        path: path.to_vec(),
        contested,
    }])
}

pub(super) fn apply_air_drop(
    rules: Rules<'_>,
    state: &mut GameState,
    power: Power,
    bombers: u32,
    troops: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
    contested: Option<TerritoryId>,
) {
    let Some(bomber) = rules.catalogue.bomber() else {
        return;
    };
    let Some(&to) = path.last() else {
        return;
    };
    let mut units = vec![(bomber, bombers)];
    units.extend_from_slice(troops);
    apply_move(rules, state, power, &units, path, &[], contested);
    // The troops are down for the turn.
    for &(unit, _) in troops {
        if let Some(entry) = state.moved.get_mut(&(to, unit)) {
            entry.1 = u8::MAX;
        }
    }
    *state.air_transports.entry(to).or_default() += bombers;
}
