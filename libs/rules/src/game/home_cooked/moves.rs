//! War moves: a move with its parleys, sea lift and battle; air raids; rockets.

use super::battle::{add, count_of, fight};
use super::*;

/// A parley rolled to pass through a non-player zone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParleyRoll {
    pub territory: TerritoryId,
    pub die: Die,
    pub outcome: Parley,
    /// On a 6: the die for the soldiers who rise (1d6 - 2 of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub militia_die: Option<Die>,
    /// What the mover paid to pass.
    #[serde(default)]
    pub paid: u32,
}

/// A move and everything it resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarMove {
    /// Who ordered it: the active player, or the reinforcer moving NPN units.
    pub by: Power,
    /// Whose units moved.
    pub mover: Power,
    pub units: Vec<(UnitTypeId, u32)>,
    pub path: Vec<TerritoryId>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parleys: Vec<ParleyRoll>,
    /// Soldiers who rose in a zone on a parley 6, and stay there.
    #[serde(default)]
    pub risen: u32,
    /// Where the units stand after the move.
    pub end: TerritoryId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battle: Option<WarBattle>,
    /// Whether the zone where they ended changed hands.
    #[serde(default)]
    pub taken: bool,
    /// The transports that carried land units over the sea, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealift: Option<Sealift>,
}

/// Transports carrying a move's land units: from the sea zone where they were loaded to
/// the one where the units land (one move of a transport).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealift {
    pub from: TerritoryId,
    pub to: TerritoryId,
    pub transport: UnitTypeId,
    pub count: u32,
}

/// "Transports can carry 4 land units": a move of land units from a zone, over sea zones,
/// onto the land at the end. The mover's unmoved transports in the first sea zone carry
/// them (as many as their load needs) and sail the rest of the way, which is their move;
/// the land units' own move is the landing. `None` for a move that does not go to sea.
fn sealift(
    rules: Rules<'_>,
    state: &GameState,
    mover: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
) -> Result<Option<Sealift>, RuleViolation> {
    let catalogue = rules.catalogue;
    let carried: u32 = units
        .iter()
        // Paratroopers need no ships.
        .filter(|(u, _)| {
            catalogue.get(*u).domain == Domain::Land && !reach(rules, state, mover, *u).1
        })
        .map(|(_, n)| n)
        .sum();
    let at_sea: Vec<usize> = (0..path.len())
        .filter(|i| !is_land(rules, path[*i]))
        .collect();
    if carried == 0 || at_sea.is_empty() {
        return Ok(None);
    }
    let refuse = |message: String| Err(violation(ViolationCode::NoSealift, RULES, message));
    let (first, last) = (at_sea[0], at_sea[at_sea.len() - 1]);
    if first != 1 || last != path.len() - 2 || at_sea.len() != last - first + 1 {
        return refuse(
            "land units at sea go from a zone, over sea zones, straight onto the land at the \
             end of the path"
                .to_owned(),
        );
    }
    if units
        .iter()
        .any(|(u, _)| catalogue.get(*u).domain == Domain::Sea)
    {
        return refuse("the transports that carry land units are not named in their move".into());
    }
    let Some((transport, profile)) = catalogue.units().find(|(_, u)| {
        u.domain == Domain::Sea && u.carries > 0 && !u.has(Ability::CarriesAircraft)
    }) else {
        return refuse("this ruleset has no transports".into());
    };
    let (from, to) = (path[first], path[last]);
    let count = carried.div_ceil(u32::from(profile.carries.max(1)));
    let ready = unmoved(state, mover, from, transport);
    if count > ready {
        return refuse(format!(
            "{carried} land units need {count} {}s in {}; {mover} has {ready} there that have \
             not moved",
            profile.name,
            rules.board.get(from).name,
        ));
    }
    if last - first > usize::from(profile.movement) {
        return refuse(format!(
            "a {} moves {}, not {}",
            profile.name,
            profile.movement,
            last - first
        ));
    }
    Ok(Some(Sealift {
        from,
        to,
        transport,
        count,
    }))
}

impl WarMove {
    /// Every die of the move, in the order rolled.
    pub fn dice(&self) -> Vec<Die> {
        let parleys = self
            .parleys
            .iter()
            .flat_map(|p| std::iter::once(p.die).chain(p.militia_die));
        let battle = self
            .battle
            .iter()
            .flat_map(|b| b.rounds.iter().flat_map(WarBattleRound::dice));
        parleys.chain(battle).collect()
    }
}

/// How far a unit of `mover` moves, and whether it needs no parley.
pub(super) fn reach(
    rules: Rules<'_>,
    state: &GameState,
    mover: Power,
    unit: UnitTypeId,
) -> (usize, bool) {
    let profile = rules.catalogue.get(unit);
    let base = usize::from(profile.movement);
    let paratrooper = Some(unit) == rules.catalogue.infantry()
        && technology(state, mover, WarTechnology::Paratroopers);
    match profile.domain {
        Domain::Air if technology(state, mover, WarTechnology::Jets) => (base + 2, true),
        Domain::Air => (base, true),
        Domain::Land if paratrooper => (3, true),
        _ => (base, false),
    }
}

/// Who would fight units of `mover` arriving in a place: every other owner's units.
fn enemies(state: &GameState, place: TerritoryId, mover: Power) -> Vec<(Power, UnitTypeId, u32)> {
    state.forces[place.index()]
        .iter()
        .filter(|((owner, _, _), n)| *owner != mover && **n > 0)
        .map(|((owner, unit, _), n)| (*owner, *unit, *n))
        .collect()
}

pub(super) fn decide_move(
    rules: Rules<'_>,
    state: &GameState,
    by: Power,
    mover: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let (origin, destination) = check_group(rules, state, mover, units, path)?;
    let sealift = sealift(rules, state, mover, units, path)?;
    let all_free = check_reach(
        rules,
        state,
        mover,
        units,
        path,
        destination,
        sealift.as_ref(),
    )?;
    check_passage(rules, state, mover, units, path, destination, all_free)?;
    let npn_move = mover == Power::Npn;

    let mut resolved = WarMove {
        by,
        mover,
        units: units.to_vec(),
        path: path.to_vec(),
        parleys: Vec::new(),
        risen: 0,
        end: destination,
        battle: None,
        taken: false,
        sealift,
    };
    let ground = units
        .iter()
        .any(|(u, _)| rules.catalogue.get(*u).domain == Domain::Land);
    let fight_at = roll_parleys(rules, state, path, &mut resolved, all_free, origin, dice);
    if let Some(place) = fight_at {
        let mut defenders = enemies(state, place, mover);
        if resolved.risen > 0 {
            if let Some(infantry) = rules.catalogue.infantry() {
                add(&mut defenders, (Power::Npn, infantry, resolved.risen));
            }
        }
        let for_control =
            !npn_move && ground && is_land(rules, place) && held_by(state, place) == Power::Npn;
        let militia = if for_control { tables::NPN_MILITIA } else { 0 };
        if !defenders.is_empty() || militia > 0 {
            // A player's own moves break off where it said; the NPN's press on.
            let break_off = state.war.break_off.get(&mover).copied();
            let battle = fight(
                rules, state, mover, place, units, defenders, militia, break_off, dice,
            );
            if matches!(
                battle.outcome,
                WarBattleOutcome::Stalemate | WarBattleOutcome::BrokeOff
            ) {
                resolved.end = origin;
            }
            resolved.battle = Some(battle);
        }
        let won = resolved
            .battle
            .as_ref()
            .is_none_or(|b| b.outcome == WarBattleOutcome::AttackerWon);
        let ground_left = units.iter().any(|(u, n)| {
            rules.catalogue.get(*u).domain == Domain::Land
                && *n
                    > resolved
                        .battle
                        .as_ref()
                        .map_or(0, |b| count_of(&b.attacker_losses, *u))
        });
        resolved.taken = won
            && ground_left
            && is_land(rules, place)
            && resolved.end == place
            && held_by(state, place) != mover;
    }
    Ok(vec![GameEvent::WarMoveResolved(Box::new(resolved))])
}

/// Each unit's reach covers the path (a tank's blitz through its own side's zones too),
/// over ground its domain may cross, ending a land unit's move on land; whether every unit
/// needs no parley.
fn check_reach(
    rules: Rules<'_>,
    state: &GameState,
    mover: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
    destination: TerritoryId,
    sealift: Option<&Sealift>,
) -> Result<bool, RuleViolation> {
    let refuse = |code, message: String| Err(violation(code, RULES, message));
    let steps = path.len() - 1;
    let mut all_free = true;
    for (unit, _) in units {
        let profile = rules.catalogue.get(*unit);
        let (mut range, free) = reach(rules, state, mover, *unit);
        // "If tank is not halted in any way, he can move 3 in a blitzkrieg": through zones
        // its own side holds, where nothing halts it.
        if profile.has(Ability::Blitz)
            && path[1..steps]
                .iter()
                .all(|p| is_land(rules, *p) && held_by(state, *p) == mover)
        {
            range += 1;
        }
        // Carried by sea, a land unit's own move is only the landing.
        let own_steps = match (&sealift, profile.domain) {
            (Some(_), Domain::Land) => 1,
            _ => steps,
        };
        if own_steps > range {
            return refuse(
                ViolationCode::TooFar,
                format!("{} moves {range}, not {steps}", profile.name),
            );
        }
        let crosses = |p: &TerritoryId| match profile.domain {
            Domain::Air => false,
            Domain::Land => !is_land(rules, *p) && !free && sealift.is_none(),
            Domain::Sea => is_land(rules, *p),
        };
        if let Some(p) = path.iter().find(|p| crosses(p)) {
            return Err(misplaced(rules, *p, *unit));
        }
        // Even paratroopers, who need no ships to cross the sea, end their move on land.
        if profile.domain == Domain::Land && !is_land(rules, destination) {
            return Err(misplaced(rules, destination, *unit));
        }
        all_free &= free;
    }
    Ok(all_free)
}

/// Nothing in the way before the end: land held by another (the NPN's let a player's units
/// through to parley), enemy ships for units that need a parley; and the NPN's
/// reinforcements attack only the active player.
fn check_passage(
    rules: Rules<'_>,
    state: &GameState,
    mover: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
    destination: TerritoryId,
    all_free: bool,
) -> Result<(), RuleViolation> {
    let board = rules.board;
    let name = |place: TerritoryId| board.get(place).name.clone();
    let refuse = |code, message: String| Err(violation(code, RULES, message));
    let steps = path.len() - 1;
    let npn_move = mover == Power::Npn;
    let active = state.power(board);
    // "Air units can traverse any zone."
    let airborne = units
        .iter()
        .all(|(u, _)| rules.catalogue.get(*u).domain == Domain::Air);
    for place in &path[1..steps] {
        let holder = held_by(state, *place);
        let blocked = if airborne {
            false
        } else if is_land(rules, *place) {
            holder != mover && (holder != Power::Npn || npn_move)
        } else {
            !enemies(state, *place, mover).is_empty() && !all_free
        };
        if blocked {
            return refuse(
                ViolationCode::EnemyInTheWay,
                format!(
                    "{} stops movement ({}): end the move there to attack it",
                    name(*place),
                    if is_land(rules, *place) {
                        format!("held by {holder}")
                    } else {
                        "enemy ships".to_owned()
                    }
                ),
            );
        }
    }
    if npn_move {
        let others = |place: TerritoryId| {
            let holder = held_by(state, place);
            (is_land(rules, place) && holder != Power::Npn && holder != active)
                || enemies(state, place, mover)
                    .iter()
                    .any(|(owner, _, _)| *owner != active)
        };
        if others(destination) {
            return refuse(
                ViolationCode::NotTheActivePlayer,
                format!(
                    "the reinforcements may attack only {active}'s positions, not {}",
                    name(destination)
                ),
            );
        }
    }
    Ok(())
}

/// Parleys, zone by zone, for a player's units passing through non-player zones, each
/// recorded on `resolved` with where it stops the move; the place a battle is fought, if
/// any.
fn roll_parleys(
    rules: Rules<'_>,
    state: &GameState,
    path: &[TerritoryId],
    resolved: &mut WarMove,
    all_free: bool,
    origin: TerritoryId,
    dice: &mut dyn DiceSource,
) -> Option<TerritoryId> {
    let mover = resolved.mover;
    let npn_move = mover == Power::Npn;
    let steps = path.len() - 1;
    let count: u32 = resolved.units.iter().map(|(_, n)| n).sum();
    let mut paid = 0;
    let mut fight_at = Some(resolved.end);
    for place in &path[1..steps] {
        if npn_move || all_free || held_by(state, *place) != Power::Npn || !is_land(rules, *place) {
            continue;
        }
        let (die, outcome, militia) = tables::roll_parley(dice);
        let mut roll = ParleyRoll {
            territory: *place,
            die,
            outcome,
            militia_die: militia.map(|(d, _)| d),
            paid: 0,
        };
        let fee = match outcome {
            Parley::PayTwoToPass => 2,
            Parley::PayOnePerUnit => count,
            _ => 0,
        };
        let stop = match outcome {
            Parley::PassThrough => None,
            Parley::PayTwoToPass | Parley::PayOnePerUnit => {
                if paid + fee <= treasury(state, mover) {
                    paid += fee;
                    roll.paid = fee;
                    None
                } else {
                    Some((origin, None))
                }
            }
            // "Those units cannot move this turn": they stay where they started.
            Parley::HeldUp => Some((origin, None)),
            Parley::MustEngage => Some((*place, Some(*place))),
            Parley::MilitiaRises => {
                resolved.risen = militia.map_or(0, |(_, n)| n);
                Some((*place, Some(*place)))
            }
        };
        resolved.parleys.push(roll);
        if let Some((end, fight)) = stop {
            resolved.end = end;
            fight_at = fight;
            break;
        }
    }
    fight_at
}

/// An air raid: "Aerial units can attack zones at 1d6 per attack, subtracting values from
/// cash reserves." The zone's AA guns fire first (one die each, at 1, or 3 with RADAR);
/// each aircraft left rolls 1d6 off its holder's cash; they stay over the zone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AirRaid {
    pub power: Power,
    pub units: Vec<(UnitTypeId, u32)>,
    pub path: Vec<TerritoryId>,
    pub victim: Power,
    pub anti_aircraft: Vec<Die>,
    pub shot_down: Vec<(UnitTypeId, u32)>,
    pub damage_dice: Vec<Die>,
    /// What the victim lost (no more than it had).
    pub cash_lost: u32,
    /// Strategic Bombers: straight to a zone on their own continent, and home again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub strategic: bool,
}

/// "Strategic Bombers: Bombers can attack any zone on the same continent and return home":
/// a raid by bombers alone, straight from where they stand to a zone on its continent.
fn strategic_strike(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
) -> bool {
    let continent = |place: &TerritoryId| rules.special.continent_of.get(place);
    matches!(path, [from, to] if continent(from).is_some() && continent(from) == continent(to))
        && technology(state, power, WarTechnology::StrategicBombers)
        && units
            .iter()
            .all(|(u, _)| Some(*u) == rules.catalogue.bomber())
}

impl AirRaid {
    pub fn dice(&self) -> Vec<Die> {
        self.anti_aircraft
            .iter()
            .chain(&self.damage_dice)
            .copied()
            .collect()
    }
}

/// How many of the mover's units of a type in a place have not moved this turn.
pub(super) fn unmoved(
    state: &GameState,
    mover: Power,
    place: TerritoryId,
    unit: UnitTypeId,
) -> u32 {
    let here = state.forces[place.index()]
        .get(&(mover, unit, 0))
        .copied()
        .unwrap_or(0);
    let moved = state
        .war
        .moved
        .get(&(mover, place, unit))
        .copied()
        .unwrap_or(0);
    here.saturating_sub(moved)
}

/// Checks a group of the mover's units stands unmoved at the start of a path of
/// neighbouring places; the path's two ends.
fn check_group(
    rules: Rules<'_>,
    state: &GameState,
    mover: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
) -> Result<(TerritoryId, TerritoryId), RuleViolation> {
    let board = rules.board;
    let (Some(&origin), Some(&destination), false) = (
        path.first(),
        path.last(),
        units.is_empty() || path.len() < 2,
    ) else {
        return Err(violation(
            ViolationCode::BadPath,
            RULES,
            "an order names its units, where they stand and at least one step",
        ));
    };
    if let Some(w) = path.windows(2).find(|w| !board.adjacent(w[0], w[1])) {
        return Err(violation(
            ViolationCode::NotAdjacent,
            RULES,
            format!(
                "{} does not border {}",
                board.get(w[0]).name,
                board.get(w[1]).name
            ),
        ));
    }
    check_unmoved(rules, state, mover, units, origin)?;
    Ok((origin, destination))
}

/// Checks the mover has these units, unmoved this turn, in `origin`.
fn check_unmoved(
    rules: Rules<'_>,
    state: &GameState,
    mover: Power,
    units: &[(UnitTypeId, u32)],
    origin: TerritoryId,
) -> Result<(), RuleViolation> {
    let board = rules.board;
    for (unit, n) in units {
        let ready = unmoved(state, mover, origin, *unit);
        if *n > ready {
            return Err(violation(
                ViolationCode::UnitsMissing,
                RULES,
                format!(
                    "{mover} has {ready} {} in {} that have not moved this turn, not {n}",
                    rules.catalogue.get(*unit).name,
                    board.get(origin).name
                ),
            ));
        }
    }
    Ok(())
}

/// Checks a group of the mover's unmoved units can fly `path`: each is an aircraft in
/// range, standing at its start.
fn check_flight(
    rules: Rules<'_>,
    state: &GameState,
    mover: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
) -> Result<(), RuleViolation> {
    if let Some(profile) = units
        .iter()
        .map(|(unit, _)| rules.catalogue.get(*unit))
        .find(|profile| profile.domain != Domain::Air)
    {
        return Err(violation(
            ViolationCode::NotAircraft,
            RULES,
            format!("only aircraft raid; {} is not one", profile.name),
        ));
    }
    check_group(rules, state, mover, units, path)?;
    for (unit, _) in units {
        let (range, _) = reach(rules, state, mover, *unit);
        if path.len() - 1 > range {
            return Err(violation(
                ViolationCode::TooFar,
                RULES,
                format!(
                    "{} flies {range}, not {}",
                    rules.catalogue.get(*unit).name,
                    path.len() - 1
                ),
            ));
        }
    }
    Ok(())
}

pub(super) fn decide_air_raid(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let strategic = strategic_strike(rules, state, power, units, path);
    if strategic {
        check_unmoved(rules, state, power, units, path[0])?;
    } else {
        check_flight(rules, state, power, units, path)?;
    }
    let target = path[path.len() - 1];
    let victim = match state.holder[target.index()] {
        Some(victim) if victim != power && is_land(rules, target) => victim,
        _ => {
            return Err(violation(
                ViolationCode::NoRaidTarget,
                RULES,
                format!(
                    "a raid strikes another player's zone; {} is not one",
                    rules.board.get(target).name
                ),
            ))
        }
    };
    let catalogue = rules.catalogue;
    let mut raiders: Vec<UnitTypeId> = units
        .iter()
        .flat_map(|(u, n)| std::iter::repeat_n(*u, *n as usize))
        .collect();
    raiders.sort_by_key(|u| std::cmp::Reverse(catalogue.get(*u).cost));
    let radar = technology(state, victim, WarTechnology::Radar);
    let guns: u32 = state.forces[target.index()]
        .iter()
        .filter(|((o, u, _), _)| *o == victim && catalogue.get(*u).has(Ability::AntiAircraft))
        .map(|(_, n)| *n)
        .sum();
    let aim = if radar { 3 } else { 1 };
    let mut anti_aircraft = Vec::new();
    let mut shot_down: Vec<(UnitTypeId, u32)> = Vec::new();
    for _ in 0..guns {
        let die = dice.roll();
        anti_aircraft.push(die);
        if die.value() <= aim {
            if let Some(unit) = raiders.pop() {
                match shot_down.iter_mut().find(|(u, _)| *u == unit) {
                    Some(entry) => entry.1 += 1,
                    None => shot_down.push((unit, 1)),
                }
            }
        }
    }
    let damage_dice: Vec<Die> = raiders.iter().map(|_| dice.roll()).collect();
    let damage: u32 = damage_dice.iter().map(|d| u32::from(d.value())).sum();
    Ok(vec![GameEvent::AirRaidFlown(Box::new(AirRaid {
        power,
        units: units.to_vec(),
        path: path.to_vec(),
        victim,
        anti_aircraft,
        shot_down,
        damage_dice,
        cash_lost: damage.min(treasury(state, victim)),
        strategic,
    }))])
}

pub(super) fn decide_rocket(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    from: TerritoryId,
    target: TerritoryId,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let catalogue = rules.catalogue;
    if !technology(state, power, WarTechnology::Rockets) {
        return Err(violation(
            ViolationCode::NoRockets,
            RULES,
            format!("{power} has not developed rockets"),
        ));
    }
    crate::game::rail::gun_ready(rules, state, power, from, RULES)?;
    let enemies = enemies(state, target, power);
    if target == from
        || enemies.is_empty()
        || !crate::game::rail::within(rules, from, 2).contains(&target)
    {
        return Err(violation(
            ViolationCode::NoRocketTarget,
            RULES,
            format!(
                "a rocket shoots enemy units within 2 zones; {} holds none in reach",
                rules.board.get(target).name
            ),
        ));
    }
    let die = dice.roll();
    // The cheapest unit there falls to a hit.
    let destroyed = (die.value() <= 2)
        .then(|| {
            enemies
                .iter()
                .min_by_key(|(o, u, _)| (catalogue.get(*u).cost, *o, *u))
                .map(|(o, u, _)| (*o, *u))
        })
        .flatten();
    Ok(vec![GameEvent::WarRocketFired {
        power,
        from,
        target,
        die,
        destroyed,
    }])
}

pub(super) fn apply_move(rules: Rules<'_>, state: &mut GameState, resolved: &WarMove) {
    let WarMove {
        mover,
        units,
        path,
        end,
        ..
    } = resolved;
    let Some(origin) = path.first() else {
        return;
    };
    spend(state, *mover, resolved.parleys.iter().map(|p| p.paid).sum());
    if let Some(pending) = &mut state.war.reinforcements {
        if *mover == Power::Npn {
            let count: u32 = units.iter().map(|(_, n)| n).sum();
            pending.moves_left = pending.moves_left.saturating_sub(count);
        }
    }
    if resolved.risen > 0 {
        if let (Some(parley), Some(infantry)) =
            (resolved.parleys.last(), rules.catalogue.infantry())
        {
            *state.forces[parley.territory.index()]
                .entry((Power::Npn, infantry, 0))
                .or_default() += resolved.risen;
        }
    }
    if let Some(lift) = &resolved.sealift {
        let sailed = take_units(
            &mut state.forces[lift.from.index()],
            (*mover, lift.transport, 0),
            lift.count,
        );
        *state.forces[lift.to.index()]
            .entry((*mover, lift.transport, 0))
            .or_default() += sailed;
        *state
            .war
            .moved
            .entry((*mover, lift.to, lift.transport))
            .or_default() += sailed;
    }
    let mut arriving: Vec<(UnitTypeId, u32)> = Vec::new();
    for (unit, n) in units {
        take_units(&mut state.forces[origin.index()], (*mover, *unit, 0), *n);
        let lost = resolved
            .battle
            .as_ref()
            .map_or(0, |b| count_of(&b.attacker_losses, *unit));
        arriving.push((*unit, n.saturating_sub(lost)));
    }
    if let Some(battle) = &resolved.battle {
        for (owner, unit, n) in &battle.defender_losses {
            take_units(
                &mut state.forces[battle.territory.index()],
                (*owner, *unit, 0),
                *n,
            );
        }
        for (owner, unit, home, n) in &battle.healed {
            *state.forces[home.index()]
                .entry((*owner, *unit, 0))
                .or_default() += n;
            // Back in the fight next turn, not this one.
            *state.war.moved.entry((*owner, *home, *unit)).or_default() += n;
        }
    }
    for (unit, n) in arriving.into_iter().filter(|(_, n)| *n > 0) {
        *state.forces[end.index()]
            .entry((*mover, unit, 0))
            .or_default() += n;
        *state.war.moved.entry((*mover, *end, unit)).or_default() += n;
    }
    if resolved.taken {
        state.holder[end.index()] = (*mover != Power::Npn).then_some(*mover);
    }
}
