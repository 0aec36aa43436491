//! The home-cooked "War" rules' game flow (`seeds/war-home-cooked-rules.txt`), on the
//! engine's board, forces and treasuries. A War game goes:
//!
//! 1. **Start zones** (once): every player's three bases, rolled on the ruleset's chart.
//! 2. **Initiative** (each round): 1d6 each, the highest first, then round to the right.
//! 3. For each player in that order:
//!    - **Reinforcements**: the player to the right rolls 3d6 for the non-player nations
//!      (NPN), places what it gives in zones no player holds, and on an 11 or a 16 moves
//!      up to 4 of their units, which may attack the active player;
//!    - **Spending** (`Purchase`): units bought straight into a held zone (a factory there
//!      takes $1 off each), infrastructure ($5, $1 a turn), research ($5 a try);
//!    - **Movement** (`CombatMove`): every move resolves as it is made: a parley roll for
//!      each NPN zone passed through, a battle where the units stop among enemies (the
//!      militia of 2 soldiers joins any fight for an NPN zone), and control to whoever
//!      has ground units left there. Transports carry land units over the sea; aircraft
//!      may raid a player's cash instead (`AirRaid`), and with rockets AA guns shoot
//!      (`FireRocket`). Ending the phase collects the turn's money.
//!
//! Every technology of the chart is in play. Strategic Bombers reach "any zone on the same
//! continent": the ruleset's `special_rules.continents` say which (the War document gives
//! the Classic board's six).
//!
//! Every roll is in the event the order made, and every order's dice come from the
//! game's committed seed, so the auditor can decide each order again. Where the seed is
//! silent the engine makes one reading and says so here:
//!
//! - casualties ("as they desire") follow each player's standing order of loss, set any
//!   time (`SetOrderOfLoss`), then the cheapest first, the militia before anyone: a
//!   service cannot wait on a choice in the middle of a roll;
//! - a battle is a run of attacks, each one exchange ("An attack goes first, but a
//!   defender can retaliate"), pressed until one side is gone unless the attacker's player
//!   set it to break off after so many (`SetBreakOff`, any time, at least 1: "engage for
//!   at least 1 attack"); after breaking off, or if neither side can hit the other, the
//!   attackers stand in the zone they came from. The NPN's moves press on;
//! - units held up by a parley ("cannot move this turn"), or whose player cannot pay it,
//!   stay where they started; fees paid further back are spent;
//! - units that must engage in a parley stop and fight for the zone, as for any NPN zone
//!   (its militia is there);
//! - the reinforcer's moves may attack only the active player, as the seed says; a
//!   player's bases are held from the start, and the first money comes from the first
//!   turn's count;
//! - a transport moves one sea zone ("Move=1") with up to 4 land units loaded from the
//!   zone beside it; they land at the end of the same move, so nothing is left at sea;
//! - raiding aircraft stay over the zone they raided (only Strategic Bombers "return
//!   home"); a zone whose last ground unit falls to a rocket stays held until someone
//!   takes it, as a base is held before any unit stands in it.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::may_move::{MayMove, Reach};
use super::order::OrderKind;
use super::{
    take_units, violation, GameEvent, GameState, Moment, Order, Phase, RuleViolation, Rules,
};
use crate::board::{Power, TerritoryId};
use crate::dice::{DiceSource, Die};
use crate::game::ViolationCode;
use crate::home_cooked_tables::{self as tables, Parley, WarTechnology};
use crate::units::{Ability, Domain, UnitTypeId};

mod battle;
mod moves;

use battle::count_of;
pub use battle::{WarBattle, WarBattleOutcome, WarBattleRound};
use moves::{apply_move, decide_air_raid, decide_move, decide_rocket};
pub use moves::{AirRaid, ParleyRoll, Sealift, WarMove};

const RULES: &str = "War: home-cooked rules";

/// A ruleset's start-zone chart, by the board's ids: how many dice it takes, its rows
/// (`None`: "pick"), and how many bases each player rolls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartChart {
    pub dice: u8,
    pub rows: Vec<(u8, u8, Option<TerritoryId>)>,
    pub bases: u32,
}

impl StartChart {
    fn zone(&self, total: u8) -> Option<TerritoryId> {
        self.rows
            .iter()
            .find(|(from, to, _)| (*from..=*to).contains(&total))
            .and_then(|(_, _, zone)| *zone)
    }

    fn zones(&self) -> usize {
        self.rows
            .iter()
            .filter_map(|(_, _, z)| *z)
            .collect::<BTreeSet<_>>()
            .len()
    }
}

/// What a War game keeps beyond the board, forces and treasuries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WarFlow {
    /// This round's order of play, from its initiative roll.
    pub order: Vec<Power>,
    /// Each player's bases, as rolled.
    pub bases: BTreeMap<Power, Vec<TerritoryId>>,
    /// Infrastructure in each zone: $1 a turn each to whoever holds it, and $1 off units
    /// bought there.
    pub infrastructure: BTreeMap<TerritoryId, u32>,
    pub technologies: BTreeMap<Power, BTreeSet<WarTechnology>>,
    /// This turn's reinforcements once rolled: the units still to place, and how many
    /// units the reinforcer may still move.
    pub reinforcements: Option<PendingReinforcements>,
    /// Units that have moved this turn, where they now stand (each moves once a turn).
    pub moved: BTreeMap<(Power, TerritoryId, UnitTypeId), u32>,
    /// Each player's standing order of loss: unit types, first lost first (then the
    /// cheapest of the rest).
    pub order_of_loss: BTreeMap<Power, Vec<UnitTypeId>>,
    /// After how many attacks each player's battles break off (none: pressed until one
    /// side is gone).
    pub break_off: BTreeMap<Power, u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PendingReinforcements {
    pub units: BTreeMap<UnitTypeId, u32>,
    pub moves_left: u32,
}

/// One player's bases: the dice of every roll, and the zones they gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartZones {
    pub power: Power,
    pub rolls: Vec<Vec<Die>>,
    pub zones: Vec<TerritoryId>,
}

/// One $5 research try: the 2-in-6 die and, on a success, the 3d6 and what they gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResearchTry {
    pub chance: Die,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chart: Vec<Die>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub technology: Option<WarTechnology>,
}

fn not_now(state: &GameState, what: &str) -> RuleViolation {
    let waiting = match state.phase {
        Phase::StartZones => "every player's bases to be rolled (roll_start_zones)",
        Phase::Initiative => "the round's initiative roll (roll_initiative)",
        Phase::Reinforcements => {
            "the reinforcements, rolled, placed and ended by the player to the right"
        }
        Phase::Purchase => "the active player's spending",
        _ => "the active player's moves",
    };
    violation(
        ViolationCode::WrongPhase,
        RULES,
        format!("{what} is not for now: the game waits for {waiting}"),
    )
}

/// The table's seating: the board's turn order ("to the right" is the next in it).
fn seating(rules: Rules<'_>) -> &[Power] {
    rules.board.turn_order()
}

/// Who rolls, places and moves the active player's reinforcements.
pub fn reinforcer(rules: Rules<'_>, state: &GameState) -> Power {
    let active = state.power(rules.board);
    tables::reinforcer(seating(rules), active).unwrap_or(active)
}

fn treasury(state: &GameState, power: Power) -> u32 {
    state.treasury.get(&power).copied().unwrap_or(0)
}

fn technology(state: &GameState, power: Power, tech: WarTechnology) -> bool {
    state
        .war
        .technologies
        .get(&power)
        .is_some_and(|t| t.contains(&tech))
}

/// Decides an order of a War game.
pub(super) fn decide(
    rules: Rules<'_>,
    state: &GameState,
    by: Power,
    order: &Order,
    at: Moment,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let Some(chart) = &rules.special.war else {
        return Err(violation(
            ViolationCode::NotWar,
            RULES,
            "this is not a War game",
        ));
    };
    if !state.seats.contains_key(&by) {
        return Err(violation(
            ViolationCode::NotSeated,
            RULES,
            format!("{by} has no seat in this game"),
        ));
    }
    // A player's casualty choice stands for every battle, theirs or not: set it any time.
    if let Order::SetOrderOfLoss(units) = order {
        return Ok(vec![GameEvent::OrderOfLossSet {
            power: by,
            units: units.clone(),
        }]);
    }
    // So is when its attacks break off: "engage for at least 1 attack".
    if let Order::SetBreakOff(after) = order {
        if *after == Some(0) {
            return Err(violation(
                ViolationCode::BadBreakOff,
                RULES,
                "a battle is at least 1 attack: break off after 1 or more, or never break off",
            ));
        }
        return Ok(vec![GameEvent::BreakOffSet {
            power: by,
            after: *after,
        }]);
    }
    let active = state.power(rules.board);
    let acting = match state.phase {
        Phase::StartZones | Phase::Initiative => by,
        Phase::Reinforcements => reinforcer(rules, state),
        _ => active,
    };
    if by != acting {
        return Err(violation(
            ViolationCode::NotYourTurn,
            RULES,
            format!("it is {acting}'s to order now, not {by}'s"),
        ));
    }
    match (state.phase, order) {
        (Phase::StartZones, Order::RollStartZones) => {
            Ok(vec![roll_start_zones(rules, chart, by, dice)])
        }
        (Phase::Initiative, Order::RollInitiative) => {
            let rolled = tables::initiative(seating(rules), dice);
            Ok(vec![GameEvent::InitiativeRolled {
                by,
                rolls: rolled.rolls,
                order: rolled.order,
            }])
        }
        (Phase::Reinforcements, Order::RollReinforcements) => {
            roll_reinforcements(rules, state, by, active, dice)
        }
        (Phase::Reinforcements, Order::Place { territory, units }) => {
            place_reinforcements(rules, state, by, *territory, units)
        }
        (Phase::Reinforcements, Order::Move { units, path }) => {
            move_reinforcements(rules, state, by, units, path, dice)
        }
        (Phase::Reinforcements, Order::EndPhase) => end_reinforcements(state, by, at),
        (Phase::Purchase, Order::Place { territory, units }) => {
            buy(rules, state, by, *territory, units)
        }
        (Phase::Purchase, Order::BuildInfrastructure { territory }) => {
            holds(rules, state, by, *territory, "infrastructure")?;
            pay(state, by, tables::INFRASTRUCTURE_COST, "infrastructure")?;
            Ok(vec![GameEvent::InfrastructureBuilt {
                power: by,
                territory: *territory,
                cost: tables::INFRASTRUCTURE_COST,
            }])
        }
        (Phase::Purchase, Order::DevelopWeapons(tries)) => research(state, by, *tries, dice),
        (Phase::Purchase, Order::DropAtomicBomb { territory }) => {
            drop_atomic_bomb(state, by, *territory)
        }
        (Phase::Purchase, Order::EndPhase) => Ok(vec![GameEvent::PhaseEnded {
            power: by,
            phase: state.phase,
            at,
        }]),
        (Phase::CombatMove, Order::Move { units, path }) => {
            decide_move(rules, state, by, by, units, path, dice)
        }
        (Phase::CombatMove, Order::AirRaid { units, path }) => {
            decide_air_raid(rules, state, by, units, path, dice)
        }
        (Phase::CombatMove, Order::FireRocket { from, target }) => {
            decide_rocket(rules, state, by, *from, *target, dice)
        }
        (Phase::CombatMove, Order::EndPhase) => Ok(vec![
            GameEvent::IncomeCollected {
                power: by,
                amount: income(rules, state, by),
            },
            GameEvent::PhaseEnded {
                power: by,
                phase: state.phase,
                at,
            },
        ]),
        _ => {
            // The order's name, without its ids: `Move`, `ApplyForWarLoan`.
            let described = format!("{order:?}");
            let name = described.split([' ', '(', '{']).next().unwrap_or_default();
            Err(not_now(state, &format!("a {name} order")))
        }
    }
}

/// The reinforcements' roll, once a turn: three dice, a row of the table each total.
fn roll_reinforcements(
    rules: Rules<'_>,
    state: &GameState,
    by: Power,
    active: Power,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    if state.war.reinforcements.is_some() {
        return Err(violation(
            ViolationCode::AlreadyRolled,
            RULES,
            "this turn's reinforcements are rolled",
        ));
    }
    // Every row is looked up before the dice: a ruleset missing one of the table's
    // units refuses every roll, not only (after the dice) the rolls that land on it.
    let rows = (3..=18)
        .map(|total| {
            tables::reinforcements(total)
                .units
                .into_iter()
                .map(|(unit, n)| Ok((war_unit(rules, unit)?, n)))
                .collect::<Result<Vec<_>, RuleViolation>>()
        })
        .collect::<Result<Vec<_>, RuleViolation>>()?;
    let rolled = tables::roll_reinforcements(dice);
    // Three dice total 3 to 18: a row each.
    let units = rows[usize::from(rolled.total - 3)].clone();
    Ok(vec![GameEvent::ReinforcementsRolled {
        by,
        active,
        dice: rolled.dice,
        units,
        moves: rolled.result.moves_up_to.unwrap_or(0),
    }])
}

/// A move of the NPN's reinforcements: all of them placed first, and no more moving than
/// the roll allows.
fn move_reinforcements(
    rules: Rules<'_>,
    state: &GameState,
    by: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let pending = all_placed(
        state,
        "the reinforcements are placed before any of them move",
    )?;
    let count: u32 = units.iter().map(|(_, n)| n).sum();
    if count > pending.moves_left {
        return Err(violation(
            ViolationCode::TooManyMoves,
            RULES,
            format!(
                "{count} units cannot move: the roll lets {} more move",
                pending.moves_left
            ),
        ));
    }
    decide_move(rules, state, by, Power::Npn, units, path, dice)
}

/// The reinforcements phase ends once every reinforcement is placed.
fn end_reinforcements(
    state: &GameState,
    by: Power,
    at: Moment,
) -> Result<Vec<GameEvent>, RuleViolation> {
    all_placed(state, "every reinforcement is placed before the phase ends")?;
    Ok(vec![GameEvent::PhaseEnded {
        power: by,
        phase: state.phase,
        at,
    }])
}

/// "Atomic Bomb: Cost $50 and any zone is annihilated", once developed.
fn drop_atomic_bomb(
    state: &GameState,
    by: Power,
    territory: TerritoryId,
) -> Result<Vec<GameEvent>, RuleViolation> {
    if !technology(state, by, WarTechnology::AtomicBomb) {
        return Err(violation(
            ViolationCode::NoAtomicBomb,
            RULES,
            format!("{by} has not developed the atomic bomb"),
        ));
    }
    pay(state, by, ATOMIC_BOMB_COST, "the atomic bomb")?;
    Ok(vec![GameEvent::AtomicBombDropped {
        power: by,
        territory,
        cost: ATOMIC_BOMB_COST,
    }])
}

/// "Atomic Bomb: Cost $50 and any zone is annihilated."
pub const ATOMIC_BOMB_COST: u32 = 50;

fn pending(state: &GameState) -> Result<&PendingReinforcements, RuleViolation> {
    state.war.reinforcements.as_ref().ok_or_else(|| {
        violation(
            ViolationCode::ReinforcementsNotRolled,
            RULES,
            "the reinforcements are rolled first (roll_reinforcements)",
        )
    })
}

/// The rolled reinforcements once every one is placed; `before` says what waits for that.
fn all_placed<'s>(
    state: &'s GameState,
    before: &str,
) -> Result<&'s PendingReinforcements, RuleViolation> {
    let pending = pending(state)?;
    if !pending.units.is_empty() {
        return Err(violation(
            ViolationCode::ReinforcementsUnplaced,
            RULES,
            before,
        ));
    }
    Ok(pending)
}

fn war_unit(rules: Rules<'_>, unit: tables::WarUnit) -> Result<UnitTypeId, RuleViolation> {
    let code = unit.code();
    rules.catalogue.id(code).map_err(|e| {
        violation(
            ViolationCode::UnitMissing,
            RULES,
            format!("the War tables need the unit {code}: {e}"),
        )
    })
}

fn roll_start_zones(
    rules: Rules<'_>,
    chart: &StartChart,
    by: Power,
    dice: &mut dyn DiceSource,
) -> GameEvent {
    let per_player = usize::try_from(chart.bases).unwrap_or(usize::MAX);
    let rolled = tables::start_bases_on(
        seating(rules),
        per_player,
        (usize::from(chart.dice), chart.zones(), |t| chart.zone(t)),
        dice,
    );
    GameEvent::StartZonesRolled {
        by,
        bases: rolled
            .into_iter()
            .map(|b| StartZones {
                power: b.player,
                rolls: b.rolls.into_iter().map(|r| r.dice).collect(),
                zones: b.zones,
            })
            .collect(),
    }
}

fn is_land(rules: Rules<'_>, place: TerritoryId) -> bool {
    !rules.board.get(place).sea
}

/// Who a zone counts as held by, for a mover: the NPN hold every land zone no player does.
fn held_by(state: &GameState, place: TerritoryId) -> Power {
    state.holder[place.index()].unwrap_or(Power::Npn)
}

fn holds(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    place: TerritoryId,
    what: &str,
) -> Result<(), RuleViolation> {
    if is_land(rules, place) && state.holder[place.index()] == Some(power) {
        Ok(())
    } else {
        Err(violation(
            ViolationCode::NotHeld,
            RULES,
            format!(
                "{what} goes in a zone {power} holds; {} is not one",
                rules.board.get(place).name
            ),
        ))
    }
}

fn pay(state: &GameState, power: Power, cost: u32, what: &str) -> Result<(), RuleViolation> {
    let has = treasury(state, power);
    if cost > has {
        return Err(violation(
            ViolationCode::InsufficientFunds,
            RULES,
            format!("{what} costs ${cost}; {power} has ${has}"),
        ));
    }
    Ok(())
}

/// Units in a place fit for it: land and air units on land, ships at sea.
fn fits(rules: Rules<'_>, place: TerritoryId, unit: UnitTypeId) -> bool {
    let domain = rules.catalogue.get(unit).domain;
    match domain {
        Domain::Sea => !is_land(rules, place),
        Domain::Land => is_land(rules, place),
        Domain::Air => true,
    }
}

fn misplaced(rules: Rules<'_>, place: TerritoryId, unit: UnitTypeId) -> RuleViolation {
    violation(
        ViolationCode::WrongTerrain,
        RULES,
        format!(
            "{} cannot stand in {}: land units cannot go into the ocean, nor ships onto land",
            rules.catalogue.get(unit).name,
            rules.board.get(place).name
        ),
    )
}

fn place_reinforcements(
    rules: Rules<'_>,
    state: &GameState,
    by: Power,
    territory: TerritoryId,
    units: &[(UnitTypeId, u32)],
) -> Result<Vec<GameEvent>, RuleViolation> {
    let pending = pending(state)?;
    if is_land(rules, territory) && state.holder[territory.index()].is_some() {
        return Err(violation(
            ViolationCode::PlayerZone,
            RULES,
            format!(
                "reinforcements go in zones no player controls; {} is held by {}",
                rules.board.get(territory).name,
                held_by(state, territory)
            ),
        ));
    }
    for (unit, n) in units {
        if !fits(rules, territory, *unit) {
            return Err(misplaced(rules, territory, *unit));
        }
        let rolled = pending.units.get(unit).copied().unwrap_or(0);
        if *n > rolled {
            return Err(violation(
                ViolationCode::NotRolled,
                RULES,
                format!(
                    "{n} {} to place, but {rolled} are left of the roll",
                    rules.catalogue.get(*unit).name
                ),
            ));
        }
    }
    Ok(vec![GameEvent::NeutralForcesPlaced {
        by,
        territory,
        units: units.to_vec(),
    }])
}

fn buy(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    territory: TerritoryId,
    units: &[(UnitTypeId, u32)],
) -> Result<Vec<GameEvent>, RuleViolation> {
    let land = is_land(rules, territory);
    let coast_held = || {
        rules
            .board
            .neighbours(territory)
            .iter()
            .any(|n| state.holder[n.index()] == Some(power))
    };
    if land {
        holds(rules, state, power, territory, "a unit bought")?;
    } else if !coast_held() {
        return Err(violation(
            ViolationCode::NotHeld,
            RULES,
            format!(
                "ships are bought into a sea zone beside a zone {power} holds; {} is not one",
                rules.board.get(territory).name
            ),
        ));
    }
    let factory = state
        .war
        .infrastructure
        .get(&territory)
        .is_some_and(|n| *n > 0);
    let mut cost = 0;
    for (unit, n) in units {
        let profile = rules.catalogue.get(*unit);
        if !fits(rules, territory, *unit) || (!land && profile.domain != Domain::Sea) {
            return Err(misplaced(rules, territory, *unit));
        }
        cost += tables::unit_price(profile.cost, factory) * n;
    }
    pay(state, power, cost, "these units")?;
    Ok(vec![GameEvent::WarUnitsBought {
        power,
        territory,
        units: units.to_vec(),
        cost,
    }])
}

fn research(
    state: &GameState,
    power: Power,
    tries: u32,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    if tries == 0 || tries > 20 {
        return Err(violation(
            ViolationCode::BadResearch,
            RULES,
            format!("research is 1 to 20 tries of $5, not {tries}"),
        ));
    }
    let cost = tables::RESEARCH_COST * tries;
    pay(state, power, cost, "this research")?;
    let tries = (0..tries)
        .map(|_| {
            let (chance, found) = tables::research(dice);
            ResearchTry {
                chance,
                chart: found.as_ref().map(|f| f.dice.clone()).unwrap_or_default(),
                technology: found.map(|f| f.result),
            }
        })
        .collect();
    Ok(vec![GameEvent::WarResearched { power, tries, cost }])
}

/// A turn's money: each zone held at its value (+$1 with Metallurgy) and $1 for each
/// infrastructure in them.
pub fn income(rules: Rules<'_>, state: &GameState, power: Power) -> u32 {
    let metallurgy = u32::from(technology(state, power, WarTechnology::Metallurgy));
    rules
        .board
        .territories()
        .filter(|(id, t)| !t.sea && state.holder[id.index()] == Some(power))
        .map(|(id, t)| {
            let infrastructure = state.war.infrastructure.get(&id).copied().unwrap_or(0);
            t.ipc + metallurgy + infrastructure * tables::INFRASTRUCTURE_RETURN
        })
        .sum()
}

/// What the flow takes now from the player it waits for, kind by kind
/// ([`crate::game::moment`]): from the phase, the money, the technologies and the units
/// that may still move, as [`decide`] judges them.
pub(crate) fn orders_now(
    rules: Rules<'_>,
    state: &GameState,
    may_move: &[MayMove],
) -> Vec<OrderKind> {
    let power = state.to_act(rules);
    let money = treasury(state, power);
    let mut kinds = Vec::new();
    let mut allow = |kind: OrderKind, allowed: bool| {
        if allowed {
            kinds.push(kind);
        }
    };
    match state.phase {
        Phase::StartZones => allow(OrderKind::RollStartZones, true),
        Phase::Initiative => allow(OrderKind::RollInitiative, true),
        Phase::Reinforcements => {
            let rolled = state.war.reinforcements.as_ref();
            let placed = rolled.is_some_and(|r| r.units.is_empty());
            allow(OrderKind::RollReinforcements, rolled.is_none());
            allow(OrderKind::Place, rolled.is_some() && !placed);
            allow(
                OrderKind::Move,
                placed && rolled.is_some_and(|r| r.moves_left > 0),
            );
            allow(OrderKind::EndPhase, placed);
        }
        Phase::Purchase => {
            let holds_land = rules
                .board
                .territories()
                .any(|(t, place)| !place.sea && state.holder[t.index()] == Some(power));
            // The cheapest any unit can be: bought where a factory takes $1 off.
            let cheapest = rules
                .catalogue
                .units()
                .map(|(_, u)| tables::unit_price(u.cost, true))
                .min();
            allow(
                OrderKind::Place,
                holds_land && cheapest.is_some_and(|c| c <= money),
            );
            allow(
                OrderKind::BuildInfrastructure,
                holds_land && money >= tables::INFRASTRUCTURE_COST,
            );
            allow(OrderKind::DevelopWeapons, money >= tables::RESEARCH_COST);
            allow(
                OrderKind::DropAtomicBomb,
                technology(state, power, WarTechnology::AtomicBomb) && money >= ATOMIC_BOMB_COST,
            );
            allow(OrderKind::EndPhase, true);
        }
        Phase::CombatMove => {
            allow(OrderKind::Move, !may_move.is_empty());
            allow(
                OrderKind::AirRaid,
                may_move
                    .iter()
                    .any(|m| rules.catalogue.get(m.unit).domain == Domain::Air),
            );
            let gun_ready = rules.board.territories().any(|(t, _)| {
                let guns = state.count_units(rules, t, power, |_, u| u.has(Ability::AntiAircraft));
                guns > state.rockets_fired.get(&t).copied().unwrap_or(0)
            });
            allow(
                OrderKind::FireRocket,
                technology(state, power, WarTechnology::Rockets) && gun_ready,
            );
            allow(OrderKind::EndPhase, true);
        }
        _ => {}
    }
    kinds.sort();
    kinds
}

/// The mover's units that may still move this turn (in the movement phase): each moves
/// once, up to its reach (a tank blitzing through its own side's land goes one further).
pub(crate) fn may_move(rules: Rules<'_>, state: &GameState, mover: Power) -> Vec<MayMove> {
    if state.phase != Phase::CombatMove {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (place, _) in rules.board.territories() {
        for (owner, unit, damage) in state.forces[place.index()].keys() {
            if *owner != mover || *damage > 0 || rules.catalogue.get(*unit).movement == 0 {
                continue;
            }
            let count = moves::unmoved(state, mover, place, *unit);
            let (reach, _) = moves::reach(rules, state, mover, *unit);
            if count > 0 && reach > 0 {
                found.push(MayMove {
                    place,
                    unit: *unit,
                    count,
                    reach: Reach::Spaces(u8::try_from(reach).unwrap_or(u8::MAX)),
                });
            }
        }
    }
    found
}

/// Folds a War event into the state.
pub(super) fn apply(rules: Rules<'_>, state: &mut GameState, event: &GameEvent) {
    match event {
        GameEvent::StartZonesRolled { bases, .. } => {
            for base in bases {
                for zone in &base.zones {
                    state.holder[zone.index()] = Some(base.power);
                }
                state.war.bases.insert(base.power, base.zones.clone());
            }
            // What each player's gain is measured from: the zone points of its bases.
            for power in rules.board.turn_order() {
                state
                    .starting_ipc
                    .insert(*power, state.ipc_count(rules.board, *power));
            }
            state.phase = Phase::Initiative;
        }
        GameEvent::InitiativeRolled { order, .. } => {
            state.war.order = order.clone();
            state.turn = 0;
            state.phase = Phase::Reinforcements;
        }
        GameEvent::ReinforcementsRolled { units, moves, .. } => {
            state.war.reinforcements = Some(PendingReinforcements {
                units: units.iter().copied().collect(),
                moves_left: *moves,
            });
        }
        GameEvent::NeutralForcesPlaced {
            territory, units, ..
        } => {
            for (unit, n) in units {
                *state.forces[territory.index()]
                    .entry((Power::Npn, *unit, 0))
                    .or_default() += n;
                if let Some(pending) = &mut state.war.reinforcements {
                    if let Some(left) = pending.units.get_mut(unit) {
                        *left = left.saturating_sub(*n);
                    }
                    pending.units.retain(|_, n| *n > 0);
                }
            }
        }
        GameEvent::WarUnitsBought {
            power,
            territory,
            units,
            cost,
        } => {
            spend(state, *power, *cost);
            for (unit, n) in units {
                *state.forces[territory.index()]
                    .entry((*power, *unit, 0))
                    .or_default() += n;
            }
        }
        GameEvent::InfrastructureBuilt {
            power,
            territory,
            cost,
        } => {
            spend(state, *power, *cost);
            *state.war.infrastructure.entry(*territory).or_default() += 1;
        }
        GameEvent::WarResearched { power, tries, cost } => {
            spend(state, *power, *cost);
            let known = state.war.technologies.entry(*power).or_default();
            known.extend(tries.iter().filter_map(|t| t.technology));
        }
        GameEvent::AtomicBombDropped {
            power,
            territory,
            cost,
        } => {
            spend(state, *power, *cost);
            state.forces[territory.index()].clear();
            state.holder[territory.index()] = None;
            state.war.infrastructure.remove(territory);
        }
        GameEvent::WarMoveResolved(resolved) => apply_move(rules, state, resolved),
        GameEvent::OrderOfLossSet { power, units } => {
            state.war.order_of_loss.insert(*power, units.clone());
        }
        GameEvent::BreakOffSet { power, after } => match after {
            Some(after) => {
                state.war.break_off.insert(*power, *after);
            }
            None => {
                state.war.break_off.remove(power);
            }
        },
        GameEvent::AirRaidFlown(raid) => {
            spend(state, raid.victim, raid.cash_lost);
            let (Some(origin), Some(last)) = (raid.path.first(), raid.path.last()) else {
                return;
            };
            // Strategic bombers fly home; other raiders stay over the zone.
            let target = if raid.strategic { origin } else { last };
            for (unit, n) in &raid.units {
                take_units(
                    &mut state.forces[origin.index()],
                    (raid.power, *unit, 0),
                    *n,
                );
                let left = n.saturating_sub(count_of(&raid.shot_down, *unit));
                if left > 0 {
                    *state.forces[target.index()]
                        .entry((raid.power, *unit, 0))
                        .or_default() += left;
                    *state
                        .war
                        .moved
                        .entry((raid.power, *target, *unit))
                        .or_default() += left;
                }
            }
        }
        GameEvent::WarRocketFired {
            from,
            target,
            destroyed,
            ..
        } => {
            *state.rockets_fired.entry(*from).or_default() += 1;
            if let Some((owner, unit)) = destroyed {
                take_units(&mut state.forces[target.index()], (*owner, *unit, 0), 1);
            }
        }
        _ => {}
    }
}

fn spend(state: &mut GameState, power: Power, cost: u32) {
    let treasury = state.treasury.entry(power).or_default();
    *treasury = treasury.saturating_sub(cost);
}

/// Ends a War phase (the `PhaseEnded` the phase's order made).
pub(super) fn end_phase(state: &mut GameState, at: Moment) {
    state.last_progress_at = Some(at);
    match state.phase {
        Phase::Reinforcements => {
            state.war.reinforcements = None;
            state.phase = Phase::Purchase;
        }
        Phase::Purchase => state.phase = Phase::CombatMove,
        _ => {
            state.war.moved.clear();
            state.rockets_fired.clear();
            state.turn += 1;
            if state.turn >= state.war.order.len() {
                state.turn = 0;
                state.round += 1;
                state.phase = Phase::Initiative;
            } else {
                state.phase = Phase::Reinforcements;
            }
        }
    }
}
