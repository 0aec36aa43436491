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
//! Technologies in play: Paratroopers, MASH units, Jets, Metallurgy, Advanced Armor,
//! RADAR, Chemical Warfare, Rockets and the Atomic Bomb. Strategic Bombers is recorded when
//! rolled but has no effect: it reaches "any zone on the same continent", and the board
//! has no continents.
//!
//! Every roll is in the event the order made, and every order's dice come from the
//! game's committed seed, so the auditor can decide each order again. Where the seed is
//! silent the engine makes one reading and says so here:
//!
//! - casualties go cheapest first (the militia before anyone), since a service cannot
//!   wait on a choice in the middle of a roll;
//! - a battle is fought until one side is gone; if neither side can hit the other it
//!   ends, and the attackers stand in the zone they came from;
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

use super::{take_units, violation, GameEvent, GameState, Moment, Order, Phase, Rules};
use crate::board::{Power, TerritoryId};
use crate::dice::{DiceSource, Die};
use crate::units::{Ability, Domain, UnitTypeId};
use crate::war::{self, Parley, WarTechnology};

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

/// One round of a War battle: the attack first, then what the defence has left fires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarBattleRound {
    pub attack: Vec<Die>,
    pub attack_hits: u32,
    /// MASH units and Advanced Armor: a die for each defending soldier or tank lost (a 1
    /// heals it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defender_healing: Vec<Die>,
    pub defence: Vec<Die>,
    pub defence_hits: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attacker_healing: Vec<Die>,
}

impl WarBattleRound {
    /// The round's dice, in the order rolled.
    fn dice(&self) -> impl Iterator<Item = Die> + '_ {
        self.attack
            .iter()
            .chain(&self.defender_healing)
            .chain(&self.defence)
            .chain(&self.attacker_healing)
            .copied()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarBattleOutcome {
    AttackerWon,
    DefenderHeld,
    /// Neither side could hit the other: the attackers stand where they came from.
    Stalemate,
}

/// A War battle: who fought, every round's dice, and who was lost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarBattle {
    pub territory: TerritoryId,
    pub attacker: Power,
    pub attackers: Vec<(UnitTypeId, u32)>,
    /// The units in the zone, by owner (the militia not among them).
    pub defenders: Vec<(Power, UnitTypeId, u32)>,
    /// Soldiers of militia and partisans who joined the defence (they are always there
    /// and never stay on the board).
    pub militia: u32,
    pub rounds: Vec<WarBattleRound>,
    pub attacker_losses: Vec<(UnitTypeId, u32)>,
    pub defender_losses: Vec<(Power, UnitTypeId, u32)>,
    /// Losses healed (MASH units, Advanced Armor), back at one of their owner's bases.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub healed: Vec<(Power, UnitTypeId, TerritoryId, u32)>,
    pub outcome: WarBattleOutcome,
}

impl WarBattle {
    /// The battle as a player reads it: who fought, and each round's dice and hits.
    pub fn listing(&self, rules: Rules<'_>) -> String {
        let units = |list: &mut dyn Iterator<Item = (Option<Power>, UnitTypeId, u32)>| {
            list.map(|(owner, unit, n)| {
                let code = &rules.catalogue.get(unit).code;
                match owner {
                    Some(owner) => format!("{n} {code} ({owner})"),
                    None => format!("{n} {code}"),
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
        };
        let mut out = format!(
            "{} attacks {} with {}; defending: {}",
            self.attacker,
            rules.board.get(self.territory).name,
            units(&mut self.attackers.iter().map(|(u, n)| (None, *u, *n))),
            units(&mut self.defenders.iter().map(|(o, u, n)| (Some(*o), *u, *n))),
        );
        if self.militia > 0 {
            out.push_str(&format!(" and {} soldiers of militia", self.militia));
        }
        let dice = |d: &[Die]| {
            d.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        for (i, round) in self.rounds.iter().enumerate() {
            out.push_str(&format!(
                "\nround {}: attack [{}] {} hit(s); defence [{}] {} hit(s)",
                i + 1,
                dice(&round.attack),
                round.attack_hits,
                dice(&round.defence),
                round.defence_hits
            ));
        }
        for (owner, unit, home, n) in &self.healed {
            out.push_str(&format!(
                "\nhealed: {n} {} ({owner}), back in {}",
                rules.catalogue.get(*unit).code,
                rules.board.get(*home).name
            ));
        }
        out.push_str(&format!("\n{:?}", self.outcome));
        out
    }
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
) -> Result<Option<Sealift>, super::RuleViolation> {
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
    let refuse = |message: String| Err(violation("no-sealift", RULES, message));
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
    let here = state.forces[from.index()]
        .get(&(mover, transport, 0))
        .copied()
        .unwrap_or(0);
    let moved = state
        .war
        .moved
        .get(&(mover, from, transport))
        .copied()
        .unwrap_or(0);
    let count = carried.div_ceil(u32::from(profile.carries.max(1)));
    if count > here.saturating_sub(moved) {
        return refuse(format!(
            "{carried} land units need {count} {}s in {}; {mover} has {} there that have not \
             moved",
            profile.name,
            rules.board.get(from).name,
            here.saturating_sub(moved)
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

fn not_now(state: &GameState, what: &str) -> super::RuleViolation {
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
        "wrong-phase",
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
    war::reinforcer(seating(rules), active).unwrap_or(active)
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
) -> Result<Vec<GameEvent>, super::RuleViolation> {
    let Some(chart) = &rules.special.war else {
        return Err(violation("not-war", RULES, "this is not a War game"));
    };
    if !state.seats.contains_key(&by) {
        return Err(violation(
            "not-seated",
            RULES,
            format!("{by} has no seat in this game"),
        ));
    }
    let active = state.power(rules.board);
    let acting = match state.phase {
        Phase::StartZones | Phase::Initiative => by,
        Phase::Reinforcements => reinforcer(rules, state),
        _ => active,
    };
    if by != acting {
        return Err(violation(
            "not-your-turn",
            RULES,
            format!("it is {acting}'s to order now, not {by}'s"),
        ));
    }
    match (state.phase, order) {
        (Phase::StartZones, Order::RollStartZones) => {
            Ok(vec![roll_start_zones(rules, chart, by, dice)])
        }
        (Phase::Initiative, Order::RollInitiative) => {
            let rolled = war::initiative(seating(rules), dice);
            Ok(vec![GameEvent::InitiativeRolled {
                by,
                rolls: rolled.rolls,
                order: rolled.order,
            }])
        }
        (Phase::Reinforcements, Order::RollReinforcements) => {
            if state.war.reinforcements.is_some() {
                return Err(violation(
                    "already-rolled",
                    RULES,
                    "this turn's reinforcements are rolled",
                ));
            }
            let rolled = war::roll_reinforcements(dice);
            let units = rolled
                .result
                .units
                .iter()
                .map(|(unit, n)| Ok((war_unit(rules, *unit)?, *n)))
                .collect::<Result<_, super::RuleViolation>>()?;
            Ok(vec![GameEvent::ReinforcementsRolled {
                by,
                active,
                dice: rolled.dice,
                units,
                moves: rolled.result.moves_up_to.unwrap_or(0),
            }])
        }
        (Phase::Reinforcements, Order::Place { territory, units }) => {
            place_reinforcements(rules, state, by, *territory, units)
        }
        (Phase::Reinforcements, Order::Move { units, path }) => {
            let pending = pending(state)?;
            if !pending.units.is_empty() {
                return Err(violation(
                    "reinforcements-unplaced",
                    RULES,
                    "the reinforcements are placed before any of them move",
                ));
            }
            let count: u32 = units.iter().map(|(_, n)| n).sum();
            if count > pending.moves_left {
                return Err(violation(
                    "too-many-moves",
                    RULES,
                    format!(
                        "{count} units cannot move: the roll lets {} more move",
                        pending.moves_left
                    ),
                ));
            }
            decide_move(rules, state, by, Power::Npn, units, path, dice)
        }
        (Phase::Reinforcements, Order::EndPhase) => {
            let pending = pending(state)?;
            if !pending.units.is_empty() {
                return Err(violation(
                    "reinforcements-unplaced",
                    RULES,
                    "every reinforcement is placed before the phase ends",
                ));
            }
            Ok(vec![GameEvent::PhaseEnded {
                power: by,
                phase: state.phase,
                at,
            }])
        }
        (Phase::Purchase, Order::Place { territory, units }) => {
            buy(rules, state, by, *territory, units)
        }
        (Phase::Purchase, Order::BuildInfrastructure { territory }) => {
            holds(rules, state, by, *territory, "infrastructure")?;
            pay(state, by, war::INFRASTRUCTURE_COST, "infrastructure")?;
            Ok(vec![GameEvent::InfrastructureBuilt {
                power: by,
                territory: *territory,
                cost: war::INFRASTRUCTURE_COST,
            }])
        }
        (Phase::Purchase, Order::DevelopWeapons(tries)) => research(state, by, *tries, dice),
        (Phase::Purchase, Order::DropAtomicBomb { territory }) => {
            if !technology(state, by, WarTechnology::AtomicBomb) {
                return Err(violation(
                    "no-atomic-bomb",
                    RULES,
                    format!("{by} has not developed the atomic bomb"),
                ));
            }
            pay(state, by, ATOMIC_BOMB_COST, "the atomic bomb")?;
            Ok(vec![GameEvent::AtomicBombDropped {
                power: by,
                territory: *territory,
                cost: ATOMIC_BOMB_COST,
            }])
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
        _ => Err(not_now(state, &format!("{order:?}"))),
    }
}

/// "Atomic Bomb: Cost $50 and any zone is annihilated."
pub const ATOMIC_BOMB_COST: u32 = 50;

fn pending(state: &GameState) -> Result<&PendingReinforcements, super::RuleViolation> {
    state.war.reinforcements.as_ref().ok_or_else(|| {
        violation(
            "reinforcements-not-rolled",
            RULES,
            "the reinforcements are rolled first (roll_reinforcements)",
        )
    })
}

fn war_unit(rules: Rules<'_>, unit: war::WarUnit) -> Result<UnitTypeId, super::RuleViolation> {
    let code = match unit {
        war::WarUnit::Soldier => "INF",
        war::WarUnit::Tank => "ARM",
        war::WarUnit::AaGun => "AA",
        war::WarUnit::Fighter => "FTR",
        war::WarUnit::Bomber => "BMB",
        war::WarUnit::Submarine => "SUB",
        war::WarUnit::Transport => "TRN",
        war::WarUnit::Battleship => "BB",
        war::WarUnit::Carrier => "AC",
    };
    rules.catalogue.id(code).map_err(|e| {
        violation(
            "unit-missing",
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
    let rolled = war::start_bases_on(
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
) -> Result<(), super::RuleViolation> {
    if is_land(rules, place) && state.holder[place.index()] == Some(power) {
        Ok(())
    } else {
        Err(violation(
            "not-held",
            RULES,
            format!(
                "{what} goes in a zone {power} holds; {} is not one",
                rules.board.get(place).name
            ),
        ))
    }
}

fn pay(state: &GameState, power: Power, cost: u32, what: &str) -> Result<(), super::RuleViolation> {
    let has = treasury(state, power);
    if cost > has {
        return Err(violation(
            "insufficient-funds",
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

fn misplaced(rules: Rules<'_>, place: TerritoryId, unit: UnitTypeId) -> super::RuleViolation {
    violation(
        "wrong-terrain",
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
) -> Result<Vec<GameEvent>, super::RuleViolation> {
    let pending = pending(state)?;
    if is_land(rules, territory) && state.holder[territory.index()].is_some() {
        return Err(violation(
            "player-zone",
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
                "not-rolled",
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
) -> Result<Vec<GameEvent>, super::RuleViolation> {
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
            "not-held",
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
        cost += war::unit_price(profile.cost, factory) * n;
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
) -> Result<Vec<GameEvent>, super::RuleViolation> {
    if tries == 0 || tries > 20 {
        return Err(violation(
            "bad-research",
            RULES,
            format!("research is 1 to 20 tries of $5, not {tries}"),
        ));
    }
    let cost = war::RESEARCH_COST * tries;
    pay(state, power, cost, "this research")?;
    let tries = (0..tries)
        .map(|_| {
            let (chance, found) = war::research(dice);
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
            t.ipc + metallurgy + infrastructure * war::INFRASTRUCTURE_RETURN
        })
        .sum()
}

/// How far a unit of `mover` moves, and whether it needs no parley.
fn reach(rules: Rules<'_>, state: &GameState, mover: Power, unit: UnitTypeId) -> (usize, bool) {
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

fn decide_move(
    rules: Rules<'_>,
    state: &GameState,
    by: Power,
    mover: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, super::RuleViolation> {
    let board = rules.board;
    let name = |place: TerritoryId| board.get(place).name.clone();
    let refuse = |code, message: String| Err(violation(code, RULES, message));
    let (Some(&origin), Some(&destination)) = (path.first(), path.last()) else {
        return refuse(
            "bad-path",
            "a path names where the units stand and where they go".into(),
        );
    };
    if path.len() < 2 || units.is_empty() {
        return refuse(
            "bad-path",
            "a move names its units and at least one step".into(),
        );
    }
    if let Some(w) = path.windows(2).find(|w| !board.adjacent(w[0], w[1])) {
        return refuse(
            "not-adjacent",
            format!("{} does not border {}", name(w[0]), name(w[1])),
        );
    }
    let steps = path.len() - 1;
    let sealift = sealift(rules, state, mover, units, path)?;
    let mut all_free = true;
    for (unit, n) in units {
        let key = (mover, *unit, 0);
        let here = state.forces[origin.index()].get(&key).copied().unwrap_or(0);
        let moved = state
            .war
            .moved
            .get(&(mover, origin, *unit))
            .copied()
            .unwrap_or(0);
        let profile = rules.catalogue.get(*unit);
        if *n > here.saturating_sub(moved) {
            return refuse(
                "units-missing",
                format!(
                    "{mover} has {} {} in {} that have not moved this turn, not {n}",
                    here.saturating_sub(moved),
                    profile.name,
                    name(origin)
                ),
            );
        }
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
                "too-far",
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
    let npn_move = mover == Power::Npn;
    let active = state.power(board);
    for place in &path[1..steps] {
        let holder = held_by(state, *place);
        let blocked = if is_land(rules, *place) {
            holder != mover && (holder != Power::Npn || npn_move)
        } else {
            !enemies(state, *place, mover).is_empty() && !all_free
        };
        if blocked {
            return refuse(
                "enemy-in-the-way",
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
                "not-the-active-player",
                format!(
                    "the reinforcements may attack only {active}'s positions, not {}",
                    name(destination)
                ),
            );
        }
    }

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
    let count: u32 = units.iter().map(|(_, n)| n).sum();
    let ground = units
        .iter()
        .any(|(u, _)| rules.catalogue.get(*u).domain == Domain::Land);
    // Parleys, zone by zone, for a player's units passing through non-player zones.
    let mut paid = 0;
    let mut fight_at = Some(destination);
    for place in &path[1..steps] {
        if npn_move || all_free || held_by(state, *place) != Power::Npn || !is_land(rules, *place) {
            continue;
        }
        let (die, outcome, militia) = war::roll_parley(dice);
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
    if let Some(place) = fight_at {
        let mut defenders = enemies(state, place, mover);
        if resolved.risen > 0 {
            if let Some(infantry) = rules.catalogue.infantry() {
                add(&mut defenders, (Power::Npn, infantry, resolved.risen));
            }
        }
        let for_control =
            !npn_move && ground && is_land(rules, place) && held_by(state, place) == Power::Npn;
        let militia = if for_control { war::NPN_MILITIA } else { 0 };
        if !defenders.is_empty() || militia > 0 {
            let battle = fight(rules, state, mover, place, units, defenders, militia, dice);
            if battle.outcome == WarBattleOutcome::Stalemate {
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

fn add(list: &mut Vec<(Power, UnitTypeId, u32)>, (owner, unit, n): (Power, UnitTypeId, u32)) {
    match list.iter_mut().find(|(o, u, _)| *o == owner && *u == unit) {
        Some(entry) => entry.2 += n,
        None => list.push((owner, unit, n)),
    }
}

fn count_of(list: &[(UnitTypeId, u32)], unit: UnitTypeId) -> u32 {
    list.iter()
        .filter(|(u, _)| *u == unit)
        .map(|(_, n)| n)
        .sum()
}

/// One unit in a War battle.
#[derive(Clone, Copy)]
struct Combatant {
    owner: Power,
    unit: UnitTypeId,
    militia: bool,
}

/// A War battle: "An attack goes first, but a defender can retaliate. Any hit causes the
/// other side to remove units." Fought to the end, cheapest casualties first.
#[allow(clippy::too_many_arguments)]
fn fight(
    rules: Rules<'_>,
    state: &GameState,
    attacker: Power,
    territory: TerritoryId,
    attackers: &[(UnitTypeId, u32)],
    defenders: Vec<(Power, UnitTypeId, u32)>,
    militia: u32,
    dice: &mut dyn DiceSource,
) -> WarBattle {
    const MAX_ROUNDS: usize = 100;
    let catalogue = rules.catalogue;
    let expand = |owner: Power, unit: UnitTypeId, n: u32, militia: bool| {
        (0..n).map(move |_| Combatant {
            owner,
            unit,
            militia,
        })
    };
    // Dearest first: casualties come off the end.
    let by_price = |list: &mut Vec<Combatant>| {
        list.sort_by_key(|f| (f.militia, std::cmp::Reverse(catalogue.get(f.unit).cost)));
    };
    let mut attack: Vec<Combatant> = attackers
        .iter()
        .flat_map(|(u, n)| expand(attacker, *u, *n, false))
        .collect();
    let mut defence: Vec<Combatant> = defenders
        .iter()
        .flat_map(|(o, u, n)| expand(*o, *u, *n, false))
        .collect();
    if let Some(infantry) = catalogue.infantry() {
        defence.extend(expand(Power::Npn, infantry, militia, true));
    }
    by_price(&mut attack);
    by_price(&mut defence);
    let is_air = |f: &Combatant| catalogue.get(f.unit).domain == Domain::Air;
    let attack_value = |f: &Combatant, first: bool| {
        let profile = catalogue.get(f.unit);
        // "The first attack of a submarine is at 3 not 2."
        let base = if first && profile.has(Ability::FirstStrike) {
            3
        } else {
            profile.attack
        };
        let jets = u8::from(is_air(f) && technology(state, f.owner, WarTechnology::Jets));
        let chemical = u8::from(technology(state, f.owner, WarTechnology::ChemicalWarfare));
        if base == 0 {
            0
        } else {
            base + jets + chemical
        }
    };
    let defence_value = |f: &Combatant| {
        let profile = catalogue.get(f.unit);
        if profile.has(Ability::AntiAircraft) {
            if technology(state, f.owner, WarTechnology::Radar) {
                3
            } else {
                profile.defense
            }
        } else {
            profile.defense + u8::from(is_air(f) && technology(state, f.owner, WarTechnology::Jets))
        }
    };
    // "Any Soldier [Tank] removed from combat has a 1 in 6 chance of being healed [repaired].
    // Place unit back in any starting zone": the first of its owner's bases it still holds.
    let mut healed: Vec<(Power, UnitTypeId, TerritoryId, u32)> = Vec::new();
    let mut heal = |lost: &[Combatant], healing: &mut Vec<Die>, dice: &mut dyn DiceSource| {
        for f in lost.iter().filter(|f| !f.militia) {
            let remedy = if Some(f.unit) == catalogue.infantry() {
                WarTechnology::MashUnits
            } else if Some(f.unit) == catalogue.armour() {
                WarTechnology::AdvancedArmor
            } else {
                continue;
            };
            let home = state.war.bases.get(&f.owner).and_then(|bases| {
                bases
                    .iter()
                    .find(|b| state.holder[b.index()] == Some(f.owner) && **b != territory)
                    .copied()
            });
            let Some(home) = home.filter(|_| technology(state, f.owner, remedy)) else {
                continue;
            };
            let die = dice.roll();
            healing.push(die);
            if die.value() == 1 {
                match healed
                    .iter_mut()
                    .find(|(o, u, t, _)| (*o, *u, *t) == (f.owner, f.unit, home))
                {
                    Some(entry) => entry.3 += 1,
                    None => healed.push((f.owner, f.unit, home, 1)),
                }
            }
        }
    };
    let mut rounds = Vec::new();
    let mut attacker_lost: Vec<Combatant> = Vec::new();
    let mut defender_lost: Vec<Combatant> = Vec::new();
    let outcome = loop {
        if rounds.len() == MAX_ROUNDS {
            break WarBattleOutcome::Stalemate;
        }
        let first = rounds.is_empty();
        let mut round = WarBattleRound {
            attack: Vec::new(),
            attack_hits: 0,
            defender_healing: Vec::new(),
            defence: Vec::new(),
            defence_hits: 0,
            attacker_healing: Vec::new(),
        };
        for f in &attack {
            let value = attack_value(f, first);
            if value > 0 {
                let die = dice.roll();
                round.attack.push(die);
                round.attack_hits += u32::from(die.value() <= value);
            }
        }
        let before = defender_lost.len();
        for _ in 0..round
            .attack_hits
            .min(u32::try_from(defence.len()).unwrap_or(u32::MAX))
        {
            defender_lost.extend(defence.pop());
        }
        heal(&defender_lost[before..], &mut round.defender_healing, dice);
        // AA guns fire only at aircraft: their hits take the cheapest aircraft.
        let air_attacking = attack.iter().any(is_air);
        let mut anti_air_hits = 0;
        for f in &defence {
            let aa = catalogue.get(f.unit).has(Ability::AntiAircraft);
            let value = defence_value(f);
            if value == 0 || (aa && !air_attacking) {
                continue;
            }
            let die = dice.roll();
            round.defence.push(die);
            if die.value() <= value {
                round.defence_hits += 1;
                anti_air_hits += u32::from(aa);
            }
        }
        let before = attacker_lost.len();
        for _ in 0..anti_air_hits {
            if let Some(at) = attack.iter().rposition(is_air) {
                attacker_lost.push(attack.remove(at));
            }
        }
        for _ in anti_air_hits..round.defence_hits {
            attacker_lost.extend(attack.pop());
        }
        heal(&attacker_lost[before..], &mut round.attacker_healing, dice);
        let silent = round.attack.is_empty() && round.defence.is_empty();
        rounds.push(round);
        if defence.is_empty() {
            break WarBattleOutcome::AttackerWon;
        }
        if attack.is_empty() {
            break WarBattleOutcome::DefenderHeld;
        }
        if silent {
            break WarBattleOutcome::Stalemate;
        }
    };
    let mut attacker_losses: Vec<(UnitTypeId, u32)> = Vec::new();
    for f in &attacker_lost {
        match attacker_losses.iter_mut().find(|(u, _)| *u == f.unit) {
            Some(entry) => entry.1 += 1,
            None => attacker_losses.push((f.unit, 1)),
        }
    }
    let mut defender_losses = Vec::new();
    for f in defender_lost.iter().filter(|f| !f.militia) {
        add(&mut defender_losses, (f.owner, f.unit, 1));
    }
    WarBattle {
        territory,
        attacker,
        attackers: attackers.to_vec(),
        defenders,
        militia,
        rounds,
        attacker_losses,
        defender_losses,
        healed,
        outcome,
    }
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

/// Checks a group of the mover's unmoved units can fly `path`: each is an aircraft in
/// range, standing at its start.
fn check_flight(
    rules: Rules<'_>,
    state: &GameState,
    mover: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
) -> Result<(), super::RuleViolation> {
    let board = rules.board;
    if path.len() < 2 || units.is_empty() {
        return Err(violation(
            "bad-path",
            RULES,
            "a raid names its aircraft and a path to the zone",
        ));
    }
    if let Some(w) = path.windows(2).find(|w| !board.adjacent(w[0], w[1])) {
        return Err(violation(
            "not-adjacent",
            RULES,
            format!(
                "{} does not border {}",
                board.get(w[0]).name,
                board.get(w[1]).name
            ),
        ));
    }
    let origin = path[0];
    for (unit, n) in units {
        let profile = rules.catalogue.get(*unit);
        if profile.domain != Domain::Air {
            return Err(violation(
                "not-aircraft",
                RULES,
                format!("only aircraft raid; {} is not one", profile.name),
            ));
        }
        let here = state.forces[origin.index()]
            .get(&(mover, *unit, 0))
            .copied()
            .unwrap_or(0);
        let moved = state
            .war
            .moved
            .get(&(mover, origin, *unit))
            .copied()
            .unwrap_or(0);
        if *n > here.saturating_sub(moved) {
            return Err(violation(
                "units-missing",
                RULES,
                format!(
                    "{mover} has {} {} in {} that have not moved this turn, not {n}",
                    here.saturating_sub(moved),
                    profile.name,
                    board.get(origin).name
                ),
            ));
        }
        let (range, _) = reach(rules, state, mover, *unit);
        if path.len() - 1 > range {
            return Err(violation(
                "too-far",
                RULES,
                format!("{} flies {range}, not {}", profile.name, path.len() - 1),
            ));
        }
    }
    Ok(())
}

fn decide_air_raid(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    units: &[(UnitTypeId, u32)],
    path: &[TerritoryId],
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, super::RuleViolation> {
    check_flight(rules, state, power, units, path)?;
    let target = path[path.len() - 1];
    let victim = match state.holder[target.index()] {
        Some(victim) if victim != power && is_land(rules, target) => victim,
        _ => {
            return Err(violation(
                "no-raid-target",
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
    }))])
}

fn decide_rocket(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    from: TerritoryId,
    target: TerritoryId,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, super::RuleViolation> {
    let catalogue = rules.catalogue;
    if !technology(state, power, WarTechnology::Rockets) {
        return Err(violation(
            "no-rockets",
            RULES,
            format!("{power} has not developed rockets"),
        ));
    }
    let guns: u32 = state.forces[from.index()]
        .iter()
        .filter(|((o, u, _), _)| *o == power && catalogue.get(*u).has(Ability::AntiAircraft))
        .map(|(_, n)| *n)
        .sum();
    let fired = state.rockets_fired.get(&from).copied().unwrap_or(0);
    if fired >= guns {
        return Err(violation(
            "no-rocket-left",
            RULES,
            format!(
                "{power} has {} AA guns in {} that have not fired this turn",
                guns.saturating_sub(fired),
                rules.board.get(from).name
            ),
        ));
    }
    let enemies = enemies(state, target, power);
    if target == from
        || enemies.is_empty()
        || !super::rail::within(rules, from, 2).contains(&target)
    {
        return Err(violation(
            "no-rocket-target",
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
        GameEvent::AirRaidFlown(raid) => {
            spend(state, raid.victim, raid.cash_lost);
            let (Some(origin), Some(target)) = (raid.path.first(), raid.path.last()) else {
                return;
            };
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

fn apply_move(rules: Rules<'_>, state: &mut GameState, resolved: &WarMove) {
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
