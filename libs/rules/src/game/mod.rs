//! A game as a fold of events: [`decide`] checks an order against the rules and the state
//! and returns the events it causes (or a [`RuleViolation`]); [`apply`] folds an event into
//! the state and never fails. Randomness and time come in as arguments, never from here.
//!
//! This covers the turn and phase cycle, purchases, placement at industrial complexes and
//! income; movement, combat, technology and the Cut-Throat special rules build on it.

use std::collections::{BTreeMap, BTreeSet};

use crate::board::{Board, Power, TerritoryId};
use crate::dice::{DiceSource, Die};
use crate::setup::Setup;
pub use crate::tech::Technology;
use crate::units::{Ability, Catalogue, Domain, UnitTypeId};
pub use diplomacy::{AgreementEnd, AgreementEnded, Outbreak, Permission, Seizure};
pub use seats::{decide_director, draw_seats, draw_seats_by_bid, DirectorOrder, Moment, Seat};

pub mod autoplay;
pub mod combat;
pub mod diplomacy;
mod economy;
mod guerrillas;
mod movement;
pub mod named;
mod rail;
pub mod replay;
pub mod seats;
#[cfg(test)]
mod tests;
pub mod war_flow;

/// The phases of a power's turn, in order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Phase {
    Repairs,
    WeaponsDevelopment,
    Purchase,
    CombatMove,
    Battles,
    NonCombatMove,
    Placement,
    Income,
    /// "War": each player rolls for their bases (the game's first step).
    StartZones,
    /// "War": each round starts with a roll for the order of play.
    Initiative,
    /// "War": the player to the right rolls, places and moves the non-player nations'
    /// reinforcements before the active player's spending (`Purchase`) and movement
    /// (`CombatMove`, where every move resolves as it is made).
    Reinforcements,
}

impl GameState {
    /// `power`'s standing battle orders for a battle in `territory`: that place's, else
    /// those for all its battles.
    pub fn standing_orders_for(
        &self,
        power: Power,
        territory: TerritoryId,
    ) -> Option<&combat::StandingOrders> {
        self.standing_orders
            .get(&(power, Some(territory)))
            .or_else(|| self.standing_orders.get(&(power, None)))
    }
}

impl Phase {
    pub const ALL: [Phase; 8] = [
        Phase::Repairs,
        Phase::WeaponsDevelopment,
        Phase::Purchase,
        Phase::CombatMove,
        Phase::Battles,
        Phase::NonCombatMove,
        Phase::Placement,
        Phase::Income,
    ];

    /// In plain words, for people: "non-combat move".
    pub fn name(self) -> &'static str {
        match self {
            Phase::Repairs => "repairs",
            Phase::WeaponsDevelopment => "weapons development",
            Phase::Purchase => "purchase",
            Phase::CombatMove => "combat move",
            Phase::Battles => "battles",
            Phase::NonCombatMove => "non-combat move",
            Phase::Placement => "placement",
            Phase::Income => "income",
            Phase::StartZones => "start zones",
            Phase::Initiative => "initiative",
            Phase::Reinforcements => "reinforcements",
        }
    }

    fn next(self) -> Option<Phase> {
        let i = Phase::ALL.iter().position(|p| *p == self)?;
        Phase::ALL.get(i + 1).copied()
    }
}

/// A unit on the board: its owner, type and damage.
pub type StackKey = (Power, UnitTypeId, u8);

/// The state of a game, rebuilt from its events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameState {
    pub round: u32,
    /// Whose turn it is, as an index into the board's turn order.
    pub turn: usize,
    pub phase: Phase,
    /// Who holds each territory (by territory index).
    pub holder: Vec<Option<Power>>,
    /// The units in each territory and sea zone (by territory index).
    pub forces: Vec<BTreeMap<StackKey, u32>>,
    pub treasury: BTreeMap<Power, u32>,
    /// Units bought this turn and not yet placed.
    pub pending: BTreeMap<UnitTypeId, u32>,
    /// Where each power's original industrial complexes stand: they produce without limit
    /// while their owner holds them; any other complex produces up to its territory's value.
    pub original_factories: BTreeMap<TerritoryId, Power>,
    /// Units placed per territory this turn (for production limits).
    pub placed_this_turn: BTreeMap<(TerritoryId, UnitTypeId), u32>,
    /// Enhanced Realism: expansions bought for the complex in each territory.
    pub expansions: BTreeMap<TerritoryId, u32>,
    /// Complexes expanded this turn (one expansion per complex per turn).
    pub expanded_this_turn: BTreeSet<TerritoryId>,
    /// Each power's IPC count at the start of the game (war loans, percent gain).
    pub starting_ipc: BTreeMap<Power, u32>,
    /// War loans still owed.
    pub loans: BTreeMap<Power, WarLoan>,
    /// Powers that have used their one application for a war loan.
    pub loan_applied: BTreeSet<Power>,
    /// The weapons each power has developed.
    pub technologies: BTreeMap<Power, BTreeSet<Technology>>,
    /// Whether the power whose turn it is has researched this turn (once a turn).
    pub researched_this_turn: bool,
    /// Units that moved this turn, where they are now: how many, and the most movement any
    /// of them used (aircraft may fly on to land with what is left).
    pub moved: BTreeMap<(TerritoryId, UnitTypeId), (u32, u8)>,
    /// Places where this turn's combat moves met the enemy: battles to fight, with the
    /// powers they were declared against (declared combat is final: a later treaty does
    /// not call it off).
    pub contested: BTreeMap<TerritoryId, BTreeSet<Power>>,
    /// Agreements in force, by the two partners (see [`diplomacy::partners`]), with terms.
    pub agreements: BTreeMap<(Power, Power), String>,
    /// Agreements offered and not yet accepted, by (from, to).
    pub offers: diplomacy::Offers,
    /// Permissions granted: (grantor, grantee, what).
    pub permissions: BTreeSet<(Power, Power, Permission)>,
    /// Mixed units of former partners now at war: battles for the next combat movement of
    /// either, as (place, one, other).
    pub fronts: BTreeSet<(TerritoryId, Power, Power)>,
    /// Infantry railed this turn (3 at most).
    pub railed_infantry: u32,
    /// Whether an industrial complex went by rail this turn (one at most).
    pub factory_railed: bool,
    /// Complexes moved this turn: they produce nothing until set up.
    pub factories_setting_up: BTreeSet<TerritoryId>,
    /// Rockets fired this turn, by the territory of the AA guns.
    pub rockets_fired: BTreeMap<TerritoryId, u32>,
    /// Bombers carrying paratroopers this turn, where they are: they neither fight nor bomb.
    pub air_transports: BTreeMap<TerritoryId, u32>,
    /// Who plays each power.
    pub seats: BTreeMap<Power, Seat>,
    /// When the game last moved on (a phase ended, a seat changed): inactivity runs from it.
    pub last_progress_at: Option<Moment>,
    /// The final IPC counts, once the director has ended the game.
    pub ended: Option<Vec<(Power, u32)>>,
    /// Set when the game was voided: why. A voided game is over, with no placements.
    pub voided: Option<String>,
    /// Each power's standing battle orders as a defender: for one place, or (`None`) for
    /// all its battles.
    pub standing_orders: BTreeMap<(Power, Option<TerritoryId>), combat::StandingOrders>,
    /// Beaten powers that went passive: no movement, treasury turned into infantry.
    pub passive: BTreeSet<Power>,
    /// Territories taken this turn (aircraft may not land in them).
    pub captured_this_turn: BTreeSet<TerritoryId>,
    /// Whether Japan has flown its one kamikaze run this turn.
    pub kamikaze_used_this_turn: bool,
    /// Powers that surrendered (AAP: bombed out of all their money).
    pub surrendered: BTreeSet<Power>,
    /// Places where this turn's power has rolled to suppress guerrillas, and whether it did.
    pub suppression: BTreeMap<TerritoryId, bool>,
    /// The "War" rules' own state (empty in every other ruleset).
    pub war: war_flow::WarFlow,
    /// The ruleset's standing alliances, by [`diplomacy::partners`].
    pub standing_alliances: BTreeSet<(Power, Power)>,
}

/// What one research die costs.
pub const RESEARCH_DIE_COST: u32 = 5;

/// A breakthrough: the chart dice (re-rolled while they named a weapon already held) and
/// the weapon they gave.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Breakthrough {
    pub chart_dice: Vec<Die>,
    pub technology: Technology,
}

/// A war loan from the Swiss Bank (Cut-Throat, "War Loans").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarLoan {
    pub owed: u32,
    /// Repayment starts in the round after this one.
    pub granted_in_round: u32,
}

/// A war loan's size by the die rolled for it: 1-2 refused, then 15, 20, 25, 30 IPC.
pub fn war_loan_amount(die: Die) -> u32 {
    match die.value() {
        3 => 15,
        4 => 20,
        5 => 25,
        6 => 30,
        _ => 0,
    }
}

/// What a war loan costs a turn: 3 IPC of principal (less if less is owed) and 1 interest.
const LOAN_INSTALMENT: u32 = 3;
const LOAN_INTEREST: u32 = 1;

/// Something that happened in a game.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum GameEvent {
    PhaseEnded {
        power: Power,
        phase: Phase,
        at: Moment,
    },
    UnitsPurchased {
        power: Power,
        units: Vec<(UnitTypeId, u32)>,
        cost: u32,
    },
    UnitsPlaced {
        power: Power,
        territory: TerritoryId,
        units: Vec<(UnitTypeId, u32)>,
    },
    IncomeCollected {
        power: Power,
        amount: u32,
    },
    /// Aircraft with nowhere to land at the end of the non-combat move: lost.
    AircraftLost {
        power: Power,
        losses: Vec<(TerritoryId, UnitTypeId, u32)>,
    },
    /// Purchased units with no complex left to place them at: lost.
    UnitsForfeited {
        power: Power,
        units: Vec<(UnitTypeId, u32)>,
    },
    /// An application for a war loan: the die and what it granted (0: refused).
    /// Free units of the ruleset's schedule, at the end of the power's turn; `lost` when
    /// the place is land the power no longer holds.
    ReinforcementsArrived {
        power: Power,
        territory: TerritoryId,
        units: Vec<(UnitTypeId, u32)>,
        lost: bool,
    },
    /// A roll to suppress the guerrillas in a place: a 1 pins them down this turn.
    GuerrillaSuppression {
        power: Power,
        territory: TerritoryId,
        die: Die,
        suppressed: bool,
    },
    /// The guerrillas refused battle: it is off, they stay, and the attacker holds the
    /// place if it has ground units there.
    GuerrillasAvoidedCombat {
        power: Power,
        territory: TerritoryId,
        attacker: Power,
        taken: bool,
    },
    /// Free infantry raised at the start of the turn (AAP's Chinese factions).
    RecruitsRaised {
        power: Power,
        territory: TerritoryId,
        infantry: u32,
    },
    /// A raid on a complex of the ruleset's took all of `power`'s money: it surrenders.
    PowerSurrendered {
        power: Power,
        territory: TerritoryId,
    },
    /// Enhanced Realism: a complex's capacity grew by one.
    ComplexExpanded {
        power: Power,
        territory: TerritoryId,
        cost: u32,
    },
    WarLoanApplied {
        power: Power,
        die: Die,
        granted: u32,
    },
    WarLoanRepaid {
        power: Power,
        principal: u32,
        interest: u32,
    },
    /// Research dice bought and rolled, and the breakthrough if any die showed a 6.
    WeaponsResearched {
        power: Power,
        cost: u32,
        dice: Vec<Die>,
        breakthrough: Option<Breakthrough>,
    },
    /// Units moved along `path` (its first place is where they started).
    UnitsMoved {
        power: Power,
        units: Vec<(UnitTypeId, u32)>,
        path: Vec<TerritoryId>,
        /// Empty enemy territories blitzed through, and taken.
        captured: Vec<TerritoryId>,
        /// Where the move met the enemy: a battle to fight.
        contested: Option<TerritoryId>,
        /// Partners' troops aboard the moving transports, carried along.
        passengers: Vec<(Power, UnitTypeId, u32)>,
    },
    /// Units moved by rail (a path of the mover's or a permitting partner's land).
    UnitsRailed {
        power: Power,
        units: Vec<(UnitTypeId, u32)>,
        path: Vec<TerritoryId>,
        contested: Option<TerritoryId>,
    },
    /// A rocket fired at a complex: the die, and the IPC it cost the victim.
    RocketFired {
        power: Power,
        from: TerritoryId,
        target: TerritoryId,
        victim: Power,
        die: Die,
        ipc_lost: u32,
    },
    /// A battle fought: every die, and what each side has left.
    BattleFought(Box<combat::BattleFought>),
    /// A strategic bombing raid flown: every die, and the IPC lost.
    RaidFlown(Box<combat::RaidFlown>),
    AgreementOffered {
        from: Power,
        to: Power,
        terms: String,
    },
    AgreementFormed {
        between: (Power, Power),
        terms: String,
    },
    PermissionGranted {
        by: Power,
        to: Power,
        permission: Permission,
    },
    PermissionRevoked {
        by: Power,
        to: Power,
        permission: Permission,
    },
    /// Bombers flew troops in (paratroopers): the bombers neither fight nor bomb this turn.
    TroopsAirDropped {
        power: Power,
        bombers: u32,
        troops: Vec<(UnitTypeId, u32)>,
        path: Vec<TerritoryId>,
        contested: Option<TerritoryId>,
    },
    /// A beaten power went passive: no more movement.
    WentPassive {
        power: Power,
    },
    /// A passive power's treasury turned into infantry on its capital.
    TreasuryConvertedToInfantry {
        power: Power,
        infantry: u32,
        spent: u32,
    },
    SeatsAssigned {
        seats: Vec<(Power, String)>,
        at: Moment,
    },
    /// "War": every player's bases, with each roll on the chart.
    StartZonesRolled {
        by: Power,
        bases: Vec<war_flow::StartZones>,
    },
    /// "War": a round's initiative: each roll-off's dice, and the order of play.
    InitiativeRolled {
        by: Power,
        rolls: Vec<Vec<(Power, Die)>>,
        order: Vec<Power>,
    },
    /// "War": the active player's reinforcements, rolled by the player to the right.
    ReinforcementsRolled {
        by: Power,
        active: Power,
        dice: Vec<Die>,
        units: Vec<(UnitTypeId, u32)>,
        /// How many units the reinforcer may then move (11 and 16: 4).
        moves: u32,
    },
    /// "War": reinforcements placed in a zone no player holds.
    NeutralForcesPlaced {
        by: Power,
        territory: TerritoryId,
        units: Vec<(UnitTypeId, u32)>,
    },
    /// "War": units bought straight into a zone.
    WarUnitsBought {
        power: Power,
        territory: TerritoryId,
        units: Vec<(UnitTypeId, u32)>,
        cost: u32,
    },
    InfrastructureBuilt {
        power: Power,
        territory: TerritoryId,
        cost: u32,
    },
    /// "War": research tries, with their dice and what they found.
    WarResearched {
        power: Power,
        tries: Vec<war_flow::ResearchTry>,
        cost: u32,
    },
    AtomicBombDropped {
        power: Power,
        territory: TerritoryId,
        cost: u32,
    },
    /// "War": a move, its parleys and its battle.
    WarMoveResolved(Box<war_flow::WarMove>),
    /// "War": an air raid on a player's cash reserves.
    AirRaidFlown(Box<war_flow::AirRaid>),
    /// "War": a player's standing order of loss.
    OrderOfLossSet {
        power: Power,
        units: Vec<UnitTypeId>,
    },
    /// "War", with rockets: an AA gun shoots a zone within 2 (a hit on 2 or less takes the
    /// cheapest unit there).
    WarRocketFired {
        power: Power,
        from: TerritoryId,
        target: TerritoryId,
        die: Die,
        /// The unit the hit took.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        destroyed: Option<(Power, UnitTypeId)>,
    },
    /// A substitute from the waiting list took the seat of an inactive player.
    PlayerReplaced {
        power: Power,
        replaced: Option<String>,
        substitute: String,
        at: Moment,
    },
    /// Before the game began, the director gave a seat to another player (a tournament's
    /// swap between two tables), for this reason.
    SeatTaken {
        power: Power,
        replaced: Option<String>,
        player: String,
        reason: String,
        at: Moment,
    },
    /// A substitute played two rounds: the seat is theirs.
    SubstituteMadePermanent {
        power: Power,
        player: String,
    },
    /// Fighting ceased: the final IPC counts.
    GameEnded {
        at: Moment,
        final_ipc: Vec<(Power, u32)>,
    },
    /// The game does not count (nothing played, abandoned): it is over, with no places
    /// and no points, and the reason is on the record.
    GameVoided {
        at: Moment,
        reason: String,
    },
    /// A power's standing battle orders as a defender, for one place or (`None`) all.
    StandingOrdersSet {
        power: Power,
        territory: Option<TerritoryId>,
        orders: combat::StandingOrders,
    },
    /// An agreement broken or voided, and what the war does at once.
    AgreementEnded(Box<AgreementEnded>),
    /// A damaged battleship repaired for 5 IPC and the die.
    BattleshipRepaired {
        power: Power,
        sea_zone: TerritoryId,
        die: Die,
        cost: u32,
    },
}

/// What a player (or the GM on their behalf) asks for.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Order {
    /// Finish the current phase.
    EndPhase,
    Purchase(Vec<(UnitTypeId, u32)>),
    Place {
        territory: TerritoryId,
        units: Vec<(UnitTypeId, u32)>,
    },
    /// Apply to the Swiss Bank for a war loan (once a game, before purchasing).
    ApplyForWarLoan,
    /// Enhanced Realism: add one to a complex's capacity, for 10 IPC (Purchase phase).
    ExpandComplex {
        territory: TerritoryId,
    },
    /// Repay more of a war loan than the turn's instalment.
    RepayWarLoan(u32),
    /// Buy this many research dice (5 IPC each) and roll them.
    DevelopWeapons(u32),
    /// Move units along a path of adjacent places, starting where they stand.
    Move {
        units: Vec<(UnitTypeId, u32)>,
        path: Vec<TerritoryId>,
    },
    /// Move infantry (3 a turn), an AA gun or an industrial complex by rail (Cut-Throat).
    Rail {
        units: Vec<(UnitTypeId, u32)>,
        path: Vec<TerritoryId>,
    },
    /// An AA gun fires a rocket at an enemy complex within 3 spaces (Rockets).
    FireRocket {
        from: TerritoryId,
        target: TerritoryId,
    },
    /// Fight the battle in a contested place, with the attacker's orders for it.
    FightBattle(combat::BattleOrders),
    /// AAP, 3.4: roll to pin down the guerrillas in a place (a 1 does).
    SuppressGuerrillas {
        territory: TerritoryId,
    },
    /// AAP, 3.1: the guerrillas refuse the battle in a place and stay, blended in.
    AvoidCombat {
        territory: TerritoryId,
    },
    /// Repair a damaged battleship in this sea zone (Cut-Throat).
    RepairBattleship {
        sea_zone: TerritoryId,
    },
    /// Bombers carry troops (paratroopers): a bomber 1 INF, a heavy bomber 2 INF or
    /// 1 INF + 1 ARM; the bombers then neither fight nor bomb this turn.
    AirDrop {
        bombers: u32,
        troops: Vec<(UnitTypeId, u32)>,
        path: Vec<TerritoryId>,
    },
    /// A beaten power goes passive: its treasury becomes infantry on its capital, every
    /// income too, and its units never move again.
    GoPassive,
    /// Offer another power an agreement (alliance, treaty, any terms); any time.
    OfferAgreement {
        with: Power,
        terms: String,
    },
    /// Accept an agreement another power offered; any time.
    AcceptAgreement {
        from: Power,
    },
    /// Allow a partner something (entering one's land, rail, transports and carriers).
    GrantPermission {
        to: Power,
        permission: Permission,
    },
    RevokePermission {
        to: Power,
        permission: Permission,
    },
    /// Break an agreement: a declaration of war; any time.
    BreakAgreement {
        with: Power,
    },
    /// "War": roll every player's bases on the start-zone chart (the game's first order).
    RollStartZones,
    /// "War": roll the round's initiative.
    RollInitiative,
    /// "War": the player to the right rolls the active player's reinforcements.
    RollReinforcements,
    /// "War": $5 of infrastructure in a held zone ($1 a turn, $1 off units bought there).
    BuildInfrastructure {
        territory: TerritoryId,
    },
    /// "War", with the atomic bomb: $50, and every force in the zone is gone.
    DropAtomicBomb {
        territory: TerritoryId,
    },
    /// "War": aircraft attack a zone's cash reserves, 1d6 each, past its AA guns.
    AirRaid {
        units: Vec<(UnitTypeId, u32)>,
        path: Vec<TerritoryId>,
    },
    /// "War": the unit types a player loses first in its battles ("remove units as they
    /// desire"); any time.
    SetOrderOfLoss(Vec<UnitTypeId>),
    /// A defender's standing battle orders, for one place or (`None`) all; any time.
    SetStandingOrders {
        territory: Option<TerritoryId>,
        orders: combat::StandingOrders,
    },
}

impl GameEvent {
    /// Whether it records a battle or a bombing raid (they are numbered in the log's order).
    pub fn is_battle(&self) -> bool {
        match self {
            GameEvent::BattleFought(_) | GameEvent::RaidFlown(_) | GameEvent::AirRaidFlown(_) => {
                true
            }
            GameEvent::WarMoveResolved(moved) => moved.battle.is_some(),
            _ => false,
        }
    }
}

impl Order {
    /// Offers, acceptances, permissions and breaks: any power may give them at any time.
    pub fn is_diplomatic(&self) -> bool {
        matches!(
            self,
            Order::OfferAgreement { .. }
                | Order::AcceptAgreement { .. }
                | Order::GrantPermission { .. }
                | Order::RevokePermission { .. }
                | Order::BreakAgreement { .. }
        )
    }
}

/// A refused order: a stable code, the rule it breaks, and a message a player understands.
/// The state is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} ({rule})")]
pub struct RuleViolation {
    pub code: &'static str,
    pub rule: &'static str,
    pub message: String,
}

pub(crate) fn violation(
    code: &'static str,
    rule: &'static str,
    message: impl Into<String>,
) -> RuleViolation {
    RuleViolation {
        code,
        rule,
        message: message.into(),
    }
}

/// Takes up to `n` units off one stack, dropping it when empty; returns how many it took.
pub(crate) fn take_units(forces: &mut BTreeMap<StackKey, u32>, key: StackKey, n: u32) -> u32 {
    let here = forces.get(&key).copied().unwrap_or(0);
    let taken = here.min(n);
    if here == taken {
        forces.remove(&key);
    } else if let Some(count) = forces.get_mut(&key) {
        *count -= taken;
    }
    taken
}

/// Takes up to `n` of `owner`'s `unit` off a place, undamaged first (damage travels with
/// the unit); how many at each damage level.
pub(crate) fn take_of_type(
    forces: &mut BTreeMap<StackKey, u32>,
    owner: Power,
    unit: UnitTypeId,
    n: u32,
) -> Vec<(u8, u32)> {
    // Keys sort by (owner, type, damage): this walks the damage levels upwards.
    let damages: Vec<u8> = forces
        .keys()
        .filter(|(o, u, _)| *o == owner && *u == unit)
        .map(|(_, _, d)| *d)
        .collect();
    let mut left = n;
    let mut taken = Vec::new();
    for damage in damages {
        if left == 0 {
            break;
        }
        let took = take_units(forces, (owner, unit, damage), left);
        left -= took;
        taken.push((damage, took));
    }
    taken
}

/// What the rules need to know besides the state.
#[derive(Debug, Clone, Copy)]
pub struct Rules<'a> {
    pub board: &'a Board,
    pub catalogue: &'a Catalogue,
    pub economy: Economy,
    pub special: &'a Special,
}

/// A ruleset's special rules (its document's `special_rules` and survival victory),
/// resolved against its board and catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Special {
    pub combat_from_round: u32,
    /// Battles: SAAC from this round when the attacker gave no combat order.
    pub saac_from_round: Option<u32>,
    /// Battles: the defender's hits taken column by column (Part 13, step 5).
    pub defender_hits_by_column: bool,
    /// Battles: submarines that face only aircraft withdraw to a neighbouring zone.
    pub subs_withdraw_from_aircraft: bool,
    pub heavy_weapons: bool,
    pub reinforcements: Vec<Arrival>,
    /// (territory, base, per round): the value during round `r` is `base + per_round * r`.
    pub growing_values: Vec<(TerritoryId, u32, u32)>,
    /// (sea zone, value, power): paid to the power while no enemy is in the zone.
    pub convoy_centres: Vec<(TerritoryId, u32, Power)>,
    pub limited_complexes: BTreeMap<TerritoryId, u32>,
    pub no_new_complexes: BTreeSet<Power>,
    pub surrender_when_bombed_out: BTreeSet<TerritoryId>,
    pub recruits: Vec<Recruits>,
    pub guerrillas: BTreeSet<Power>,
    /// Places by the printed values held at the end, not by percent gain.
    pub zone_points: bool,
    pub survival: Option<Survival>,
    /// The "War" game flow, with its start-zone chart.
    pub war: Option<war_flow::StartChart>,
    /// Places where, in round 1, only these unit types may move.
    pub held_in_round_one: BTreeMap<TerritoryId, BTreeSet<UnitTypeId>>,
    pub submarines_do_not_block: bool,
    /// Partners for the whole game (by [`diplomacy::partners`]).
    pub standing_alliances: BTreeSet<(Power, Power)>,
    /// Each land territory's continent (by its index in the document), where given.
    pub continent_of: BTreeMap<TerritoryId, usize>,
    /// Cut-Throat rules this ruleset leaves out.
    pub without: BTreeSet<crate::document::CutThroatRule>,
}

/// Free infantry a power raises at the start of its turn, instead of collecting money.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recruits {
    pub power: Power,
    pub per_turn: u32,
    pub per_sole_area: u32,
    pub for_holding: Vec<TerritoryId>,
    pub held_by: BTreeSet<Power>,
    pub place_at: Option<TerritoryId>,
}

/// Free units for `power` at the end of its turn in `round`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrival {
    pub power: Power,
    pub round: u32,
    pub territory: TerritoryId,
    pub units: Vec<(UnitTypeId, u32)>,
}

/// `power` wins by holding its capital to the end of `round`, or by taking `or_take`'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Survival {
    pub power: Power,
    pub round: u32,
    pub or_take: Option<Power>,
}

impl Special {
    /// Cut-Throat's: no combat in the first round, nothing else.
    pub const CUT_THROAT: Special = Special {
        combat_from_round: 2,
        saac_from_round: None,
        defender_hits_by_column: false,
        subs_withdraw_from_aircraft: false,
        heavy_weapons: false,
        reinforcements: Vec::new(),
        growing_values: Vec::new(),
        convoy_centres: Vec::new(),
        limited_complexes: BTreeMap::new(),
        no_new_complexes: BTreeSet::new(),
        surrender_when_bombed_out: BTreeSet::new(),
        recruits: Vec::new(),
        guerrillas: BTreeSet::new(),
        zone_points: false,
        survival: None,
        war: None,
        held_in_round_one: BTreeMap::new(),
        submarines_do_not_block: false,
        standing_alliances: BTreeSet::new(),
        continent_of: BTreeMap::new(),
        without: BTreeSet::new(),
    };
}

/// Cut-Throat's special rules, for code that plays Cut-Throat without a ruleset.
pub static CUT_THROAT_SPECIAL: Special = Special::CUT_THROAT;

/// How income and production work in a ruleset (its document's `income` and `production`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Economy {
    pub income: crate::document::IncomeRule,
    pub production: crate::document::ProductionRule,
}

impl Economy {
    /// Classic: printed values, and original complexes without limit.
    pub const CLASSIC: Economy = Economy {
        income: crate::document::IncomeRule::PrintedValues,
        production: crate::document::ProductionRule::ClassicComplexes,
    };
}

impl GameState {
    /// The start of a game from a setup: round 1, the first power's repairs, each power's
    /// treasury its starting IPC count.
    pub fn start(rules: Rules<'_>, setup: &Setup) -> GameState {
        let n = rules.board.territories().count();
        let mut holder = vec![None; n];
        let mut forces = vec![BTreeMap::new(); n];
        let mut original_factories = BTreeMap::new();
        let factory = rules
            .catalogue
            .units()
            .find(|(_, u)| u.has(Ability::Factory))
            .map(|(id, _)| id);
        for place in &setup.places {
            holder[place.territory.index()] = Some(place.power);
            if !place.new_complex && place.units.iter().any(|(unit, _)| Some(*unit) == factory) {
                original_factories.insert(place.territory, place.power);
            }
            let everyone = std::iter::once((place.power, &place.units))
                .chain(place.others.iter().map(|(power, units)| (*power, units)));
            for (power, units) in everyone {
                for &(unit, count) in units {
                    *forces[place.territory.index()]
                        .entry((power, unit, 0))
                        .or_default() += count;
                }
            }
        }
        let starting_ipc = setup.initial_ipc(rules.board);
        let mut treasury = starting_ipc.clone();
        // Convoy centres pay from the start, but are not land: the IPC count leaves them out.
        for (_, ipc, power) in &rules.special.convoy_centres {
            *treasury.entry(*power).or_default() += ipc;
        }
        for recruiting in &rules.special.recruits {
            // They raise infantry instead: no money.
            treasury.insert(recruiting.power, 0);
        }
        GameState {
            starting_ipc,
            loans: BTreeMap::new(),
            loan_applied: BTreeSet::new(),
            technologies: BTreeMap::new(),
            researched_this_turn: false,
            moved: BTreeMap::new(),
            contested: BTreeMap::new(),
            agreements: BTreeMap::new(),
            offers: BTreeMap::new(),
            permissions: BTreeSet::new(),
            fronts: BTreeSet::new(),
            passive: BTreeSet::new(),
            air_transports: BTreeMap::new(),
            seats: BTreeMap::new(),
            last_progress_at: None,
            ended: None,
            voided: None,
            standing_orders: BTreeMap::new(),
            railed_infantry: 0,
            factory_railed: false,
            factories_setting_up: BTreeSet::new(),
            rockets_fired: BTreeMap::new(),
            captured_this_turn: BTreeSet::new(),
            kamikaze_used_this_turn: false,
            surrendered: BTreeSet::new(),
            suppression: BTreeMap::new(),
            war: war_flow::WarFlow::default(),
            standing_alliances: rules.special.standing_alliances.clone(),
            round: 1,
            turn: 0,
            // "War" starts with its players rolling for their bases.
            phase: if rules.special.war.is_some() {
                Phase::StartZones
            } else {
                Phase::Repairs
            },
            holder,
            forces,
            treasury,
            pending: BTreeMap::new(),
            original_factories,
            placed_this_turn: BTreeMap::new(),
            expansions: BTreeMap::new(),
            expanded_this_turn: BTreeSet::new(),
        }
    }

    /// The power whose turn it is.
    pub fn power(&self, board: &Board) -> Power {
        // "War" plays each round in the order its initiative roll gave.
        match self.war.order.get(self.turn) {
            Some(power) => *power,
            None => board.turn_order()[self.turn % board.turn_order().len()],
        }
    }

    /// Whose order the game waits for: the power whose turn it is, or, in War's
    /// reinforcements, the player to its right.
    pub fn to_act(&self, rules: Rules<'_>) -> Power {
        if rules.special.war.is_some() && self.phase == Phase::Reinforcements {
            war_flow::reinforcer(rules, self)
        } else {
            self.power(rules.board)
        }
    }

    /// How many of `power`'s units of the kinds `keep` accepts stand in a place.
    pub fn count_units(
        &self,
        rules: Rules<'_>,
        place: TerritoryId,
        power: Power,
        keep: impl Fn(UnitTypeId, &crate::units::UnitType) -> bool,
    ) -> u32 {
        self.forces[place.index()]
            .iter()
            .filter(|((o, u, _), _)| *o == power && keep(*u, rules.catalogue.get(*u)))
            .map(|(_, n)| n)
            .sum()
    }

    /// The IPC count of a power: the printed values of the territories it holds.
    pub fn ipc_count(&self, board: &Board, power: Power) -> u32 {
        crate::scoring::ipc_count(
            &power,
            board
                .territories()
                .map(|(id, t)| (t.ipc, self.holder[id.index()])),
        )
    }

    /// Whether any combat may be ordered now (Cut-Throat: none in the first round).
    pub fn combat_allowed(&self, rules: Rules<'_>) -> bool {
        self.round >= rules.special.combat_from_round
    }

    /// How many units `power` may still place in `territory` this turn, if it has a
    /// complex there; `None` for no limit.
    fn production_left(
        &self,
        rules: Rules<'_>,
        power: Power,
        territory: TerritoryId,
    ) -> Result<Option<u32>, RuleViolation> {
        // Complexes are captured, never destroyed: whoever holds the territory uses it.
        let has_factory = self.forces[territory.index()]
            .keys()
            .any(|(_, unit, _)| rules.catalogue.get(*unit).has(Ability::Factory));
        if !has_factory || self.holder[territory.index()] != Some(power) {
            return Err(violation(
                "no-factory",
                "Classic rules, Mobilize; Cut-Throat, IC movement",
                format!(
                    "{} can only place units at its own industrial complexes, and has none in {}",
                    power,
                    rules.board.get(territory).name
                ),
            ));
        }
        if self.captured_this_turn.contains(&territory) {
            // Units go only to complexes held at the start of the turn.
            return Err(violation(
                "complex-captured-this-turn",
                "Classic rules, Mobilize",
                format!(
                    "{power} took the complex in {} this turn; it produces from the next turn",
                    rules.board.get(territory).name
                ),
            ));
        }
        if self.factories_setting_up.contains(&territory) {
            return Err(violation(
                "complex-setting-up",
                "Cut-Throat, IC movement",
                format!(
                    "the complex moved to {} this turn produces nothing until it is set up",
                    rules.board.get(territory).name
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

/// Checks `order`, given by `by`, against the rules; the events it causes, or why not.
pub fn decide(
    rules: Rules<'_>,
    state: &GameState,
    by: Power,
    order: &Order,
    at: Moment,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    if let Some(over) = seats::game_over_for(state) {
        return Err(over);
    }
    if rules.special.war.is_some() {
        return war_flow::decide(rules, state, by, order, at, dice);
    }
    if let Order::SetStandingOrders { territory, orders } = order {
        return combat::decide_standing_orders(rules, by, *territory, orders);
    }
    if order.is_diplomatic() {
        return diplomacy::decide(rules, state, by, order);
    }
    if let Order::AvoidCombat { territory } = order {
        // The guerrillas decide on the attacker's turn.
        return guerrillas::decide_avoid(rules, state, by, *territory);
    }
    let left_out = match order {
        Order::ApplyForWarLoan | Order::RepayWarLoan(_) => {
            Some(crate::document::CutThroatRule::WarLoans)
        }
        Order::Rail { .. } => Some(crate::document::CutThroatRule::Rail),
        _ => None,
    };
    if let Some(rule) = left_out.filter(|r| rules.special.without.contains(r)) {
        let name = match rule {
            crate::document::CutThroatRule::WarLoans => "war loans",
            crate::document::CutThroatRule::Rail => "rail movement",
        };
        return Err(violation(
            "not-in-this-ruleset",
            "the ruleset's special_rules.without",
            format!("this ruleset leaves out Cut-Throat's {name}"),
        ));
    }
    let power = state.power(rules.board);
    if state.passive.contains(&by) && !matches!(order, Order::EndPhase) {
        return Err(violation(
            "passive-power",
            "Cut-Throat, Rules for players (passive status)",
            format!("{by} is passive: no movement and no orders but ending its phases"),
        ));
    }
    if by != power {
        return Err(violation(
            "not-your-turn",
            "Classic rules, Order of play",
            format!("it is {power}'s turn, not {by}'s"),
        ));
    }
    match order {
        Order::EndPhase => end_phase(rules, state, power, at),
        Order::GoPassive => go_passive(rules, state, power),
        Order::AirDrop {
            bombers,
            troops,
            path,
        } => movement::decide_air_drop(rules, state, power, *bombers, troops, path),
        Order::Purchase(units) => purchase(rules, state, power, units),
        Order::Place { territory, units } => place(rules, state, power, *territory, units),
        Order::ApplyForWarLoan => apply_for_war_loan(rules, state, power, dice),
        Order::ExpandComplex { territory } => {
            economy::decide_expansion(rules, state, power, *territory)
        }
        Order::RepayWarLoan(amount) => repay_war_loan(state, power, *amount),
        Order::DevelopWeapons(count) => develop_weapons(state, power, *count, dice),
        Order::Move { units, path } => movement::decide_move(rules, state, power, units, path),
        Order::Rail { units, path } => rail::decide_rail(rules, state, power, units, path),
        Order::FireRocket { from, target } => {
            rail::decide_rocket(rules, state, power, *from, *target, dice)
        }
        Order::FightBattle(orders) => combat::decide_battle(rules, state, power, orders, dice),
        Order::SuppressGuerrillas { territory } => {
            guerrillas::decide_suppression(rules, state, power, *territory, dice)
        }
        Order::AvoidCombat { .. } => unreachable!("decided above"),
        Order::RepairBattleship { sea_zone } => {
            repair_battleship(rules, state, power, *sea_zone, dice)
        }
        Order::OfferAgreement { .. }
        | Order::AcceptAgreement { .. }
        | Order::GrantPermission { .. }
        | Order::RevokePermission { .. }
        | Order::BreakAgreement { .. } => diplomacy::decide(rules, state, by, order),
        Order::SetStandingOrders { territory, orders } => {
            combat::decide_standing_orders(rules, by, *territory, orders)
        }
        Order::RollStartZones
        | Order::RollInitiative
        | Order::RollReinforcements
        | Order::BuildInfrastructure { .. }
        | Order::AirRaid { .. }
        | Order::SetOrderOfLoss(_)
        | Order::DropAtomicBomb { .. } => Err(violation(
            "not-in-this-ruleset",
            "Classic rules",
            "start zones, initiative, reinforcements by the table, infrastructure, air raids, \
             a standing order of loss and the atomic bomb are the War rules' orders (here a \
             battle's order of loss goes with fight_battle, a defender's with \
             set_standing_orders)",
        )),
    }
}

const WEAPONS: &str = "Classic rules, Weapons Development";
const REPAIRS: &str = "Cut-Throat, 2 hit battleship rule";

/// What a repair costs before its die.
const REPAIR_BASE_COST: u32 = 5;

fn repair_battleship(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    sea_zone: TerritoryId,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    require_phase(state, Phase::Repairs, "repairing")?;
    if state.capital_lost(rules, power) {
        return Err(violation(
            "rogue-no-repairs",
            "Cut-Throat, General rules: Defeating a Country",
            format!("{power}'s capital is taken: its rogue units cannot repair battleships"),
        ));
    }
    let zone = rules.board.get(sea_zone);
    let damaged = state.forces[sea_zone.index()]
        .iter()
        .any(|((owner, unit, damage), n)| {
            *owner == power && *damage > 0 && *n > 0 && rules.catalogue.get(*unit).hit_points > 1
        });
    if !zone.sea || !damaged {
        return Err(violation(
            "nothing-to-repair",
            REPAIRS,
            format!("{power} has no damaged battleship in {}", zone.name),
        ));
    }
    let beside_own_complex = rules.board.neighbours(sea_zone).iter().any(|t| {
        state.holder[t.index()] == Some(power)
            && state.forces[t.index()]
                .keys()
                .any(|(_, unit, _)| rules.catalogue.get(*unit).has(Ability::Factory))
    });
    if !beside_own_complex {
        return Err(violation(
            "no-shipyard",
            REPAIRS,
            format!("a battleship is repaired next to a territory with an industrial complex of {power}; {} is not", zone.name),
        ));
    }
    let treasury = state.treasury.get(&power).copied().unwrap_or(0);
    if treasury < REPAIR_BASE_COST + 6 {
        return Err(violation(
            "insufficient-ipc",
            REPAIRS,
            format!("a repair costs 5 IPC and a die (up to 11); {power} has {treasury}"),
        ));
    }
    let die = dice.roll();
    Ok(vec![GameEvent::BattleshipRepaired {
        power,
        sea_zone,
        die,
        cost: REPAIR_BASE_COST + u32::from(die.value()),
    }])
}

fn develop_weapons(
    state: &GameState,
    power: Power,
    count: u32,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    require_phase(state, Phase::WeaponsDevelopment, "research")?;
    if state.researched_this_turn {
        return Err(violation(
            "already-researched",
            WEAPONS,
            format!("{power} has researched this turn already"),
        ));
    }
    let cost = count.saturating_mul(RESEARCH_DIE_COST);
    let treasury = state.treasury.get(&power).copied().unwrap_or(0);
    if count == 0 || cost > treasury {
        return Err(violation(
            "research-dice",
            WEAPONS,
            format!("{count} research dice cost {cost} IPC; {power} has {treasury} and must buy at least one"),
        ));
    }
    let rolled: Vec<Die> = (0..count).map(|_| dice.roll()).collect();
    let held = state.technologies.get(&power).cloned().unwrap_or_default();
    let breakthrough =
        if rolled.iter().any(|d| d.value() == 6) && held.len() < Technology::CHART.len() {
            let mut chart_dice = Vec::new();
            loop {
                let die = dice.roll();
                chart_dice.push(die);
                let technology = Technology::on_chart(die);
                if !held.contains(&technology) {
                    break Some(Breakthrough {
                        chart_dice,
                        technology,
                    });
                }
            }
        } else {
            None
        };
    Ok(vec![GameEvent::WeaponsResearched {
        power,
        cost,
        dice: rolled,
        breakthrough,
    }])
}

impl GameState {
    /// What a unit costs `power`: industrial technology takes 1 IPC off every unit.
    pub fn unit_cost(&self, rules: Rules<'_>, power: Power, unit: UnitTypeId) -> u32 {
        let cost = rules.catalogue.get(unit).cost;
        if self.has(power, Technology::IndustrialTechnology) {
            cost.saturating_sub(1)
        } else {
            cost
        }
    }

    pub fn has(&self, power: Power, technology: Technology) -> bool {
        self.technologies
            .get(&power)
            .is_some_and(|held| held.contains(&technology))
    }
}

const WAR_LOANS: &str = "Cut-Throat, War Loans";

fn apply_for_war_loan(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    if !matches!(state.phase, Phase::Repairs | Phase::WeaponsDevelopment) {
        return Err(violation(
            "war-loan-timing",
            WAR_LOANS,
            "a war loan is applied for at the start of a turn, before purchasing",
        ));
    }
    if state.loan_applied.contains(&power) {
        return Err(violation(
            "war-loan-used",
            WAR_LOANS,
            format!("{power} has already applied for its one war loan"),
        ));
    }
    let now = state.ipc_count(rules.board, power);
    let start = state.starting_ipc.get(&power).copied().unwrap_or(0);
    if now * 2 > start {
        return Err(violation(
            "war-loan-not-needed",
            WAR_LOANS,
            format!("{power} holds {now} IPC of its starting {start}; a loan needs 50% or less"),
        ));
    }
    let die = dice.roll();
    Ok(vec![GameEvent::WarLoanApplied {
        power,
        die,
        granted: war_loan_amount(die),
    }])
}

fn repay_war_loan(
    state: &GameState,
    power: Power,
    amount: u32,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let owed = state.loans.get(&power).map_or(0, |l| l.owed);
    if owed == 0 {
        return Err(violation(
            "no-war-loan",
            WAR_LOANS,
            format!("{power} owes nothing"),
        ));
    }
    let treasury = state.treasury.get(&power).copied().unwrap_or(0);
    if amount == 0 || amount > owed || amount > treasury {
        return Err(violation(
            "bad-repayment",
            WAR_LOANS,
            format!("a repayment is between 1 and what is owed ({owed}) and held ({treasury}), not {amount}"),
        ));
    }
    Ok(vec![GameEvent::WarLoanRepaid {
        power,
        principal: amount,
        interest: 0,
    }])
}

/// The turn's instalment of a war loan granted in an earlier round: interest first, then
/// principal, as far as the treasury goes.
fn loan_instalment(state: &GameState, power: Power) -> Option<GameEvent> {
    let loan = state.loans.get(&power)?;
    if loan.owed == 0 || loan.granted_in_round >= state.round {
        return None;
    }
    let treasury = state.treasury.get(&power).copied().unwrap_or(0);
    let interest = LOAN_INTEREST.min(treasury);
    let principal = LOAN_INSTALMENT.min(loan.owed).min(treasury - interest);
    Some(GameEvent::WarLoanRepaid {
        power,
        principal,
        interest,
    })
}

fn end_phase(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    at: Moment,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let mut events = Vec::new();
    match state.phase {
        Phase::Placement if !state.pending.is_empty() => {
            if state
                .pending
                .keys()
                .any(|u| state.can_place(rules, power, *u))
            {
                let left: u32 = state.pending.values().sum();
                return Err(violation(
                    "units-unplaced",
                    "Classic rules, Mobilize",
                    format!("{left} purchased units are still to be placed"),
                ));
            }
            // Nowhere left to put them: they are lost, and the log says so.
            events.push(GameEvent::UnitsForfeited {
                power,
                units: state.pending.iter().map(|(u, n)| (*u, *n)).collect(),
            });
        }
        Phase::Income => {
            let amount = economy::income(rules, state, power);
            events.push(GameEvent::IncomeCollected { power, amount });
            if state.passive.contains(&power) {
                let treasury = state.treasury.get(&power).copied().unwrap_or(0) + amount;
                events.extend(infantry_for(rules, power, treasury));
            }
            events.extend(economy::reinforcements(rules, state, power));
            events.extend(seats::substitute_made_permanent(state, power));
        }
        Phase::Repairs => {
            events.extend(loan_instalment(state, power));
            events.extend(economy::recruits(rules, state, power));
        }
        Phase::NonCombatMove => {
            let losses = state.stranded_aircraft(rules, power);
            if !losses.is_empty() {
                events.push(GameEvent::AircraftLost { power, losses });
            }
        }
        Phase::Battles if !state.battles_to_fight(rules, power).is_empty() => {
            let names: Vec<String> = state
                .battles_to_fight(rules, power)
                .into_iter()
                .map(|t| rules.board.get(t).name.clone())
                .collect();
            return Err(violation(
                "battles-pending",
                "Part 13, GM requirements",
                format!(
                    "every battle is fought before the phase ends; still to fight: {}",
                    names.join(", ")
                ),
            ));
        }
        _ => {}
    }
    events.push(GameEvent::PhaseEnded {
        power,
        phase: state.phase,
        at,
    });
    Ok(events)
}

const PASSIVE: &str = "Cut-Throat, Rules for players (passive status)";

/// A passive power's treasury as infantry on its capital (what is left over stays).
fn infantry_for(rules: Rules<'_>, power: Power, treasury: u32) -> Option<GameEvent> {
    let infantry = rules.catalogue.infantry()?;
    let cost = rules.catalogue.get(infantry).cost.max(1);
    let count = treasury / cost;
    (count > 0).then_some(GameEvent::TreasuryConvertedToInfantry {
        power,
        infantry: count,
        spent: count * cost,
    })
}

fn go_passive(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
) -> Result<Vec<GameEvent>, RuleViolation> {
    if state.capital_lost(rules, power) {
        return Err(violation(
            "capital-lost",
            PASSIVE,
            format!(
                "a passive power's infantry stands on its capital, and {power} has lost its own"
            ),
        ));
    }
    let treasury = state.treasury.get(&power).copied().unwrap_or(0);
    let mut events = vec![GameEvent::WentPassive { power }];
    events.extend(infantry_for(rules, power, treasury));
    Ok(events)
}

pub(crate) fn require_phase(
    state: &GameState,
    phase: Phase,
    what: &str,
) -> Result<(), RuleViolation> {
    if state.phase == phase {
        Ok(())
    } else {
        Err(violation(
            "wrong-phase",
            "Classic rules, Order of play",
            format!(
                "{what} belongs to the {phase:?} phase; this is the {:?} phase",
                state.phase
            ),
        ))
    }
}

fn purchase(
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
            "empty-purchase",
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
            "insufficient-ipc",
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

fn place(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    territory: TerritoryId,
    units: &[(UnitTypeId, u32)],
) -> Result<Vec<GameEvent>, RuleViolation> {
    require_phase(state, Phase::Placement, "placing units")?;
    if units.is_empty() || units.iter().any(|(_, n)| *n == 0) {
        return Err(violation(
            "empty-placement",
            "Classic rules, Mobilize",
            "a placement names at least one unit, each at least once",
        ));
    }
    for &(unit, n) in units {
        let bought = state.pending.get(&unit).copied().unwrap_or(0);
        if n > bought {
            return Err(violation(
                "not-purchased",
                "Classic rules, Mobilize",
                format!(
                    "{power} has {bought} {} to place, not {n}",
                    rules.catalogue.get(unit).code
                ),
            ));
        }
    }
    let target = rules.board.get(territory);
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
                "land-unit-at-sea",
                "Classic rules, Mobilize",
                "only ships are placed in a sea zone",
            ));
        }
        site.ok_or_else(|| {
            violation(
                "no-factory",
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
                "ship-on-land",
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
                "production-limit",
                "Cut-Throat, IC movement (a captured or moved complex produces its territory's value)",
                format!(
                    "the complex in {} may place {left} more units this turn, not {count}",
                    rules.board.get(factory_site).name
                ),
            ));
        }
    }
    Ok(vec![GameEvent::UnitsPlaced {
        power,
        territory,
        units: units.to_vec(),
    }])
}

const NEW_FACTORY: &str = "Classic rules, Mobilize (industrial complexes)";

/// A new complex goes alone onto land held since the start of the turn that has none; it
/// produces from the next turn, up to its territory's value.
/// Whether the ruleset lets `power` build industrial complexes.
fn no_new_complexes(rules: Rules<'_>, power: Power) -> Result<(), RuleViolation> {
    if rules.special.no_new_complexes.contains(&power) {
        return Err(violation(
            "no-new-complexes",
            "AAP Historical, 2.3",
            format!("{power} cannot build industrial complexes"),
        ));
    }
    Ok(())
}

fn place_factory(
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
            "complex-alone",
            NEW_FACTORY,
            "an industrial complex is placed on its own, one at a time",
        ));
    }
    if !state.factory_site_free(rules, power, territory) {
        return Err(violation(
            "no-complex-site",
            NEW_FACTORY,
            format!("a new complex goes on land {power} has held since the start of its turn, without a complex; {name} is not such land"),
        ));
    }
    Ok(vec![GameEvent::UnitsPlaced {
        power,
        territory,
        units: units.to_vec(),
    }])
}

impl GameState {
    fn factory_site_free(&self, rules: Rules<'_>, power: Power, territory: TerritoryId) -> bool {
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
    fn shipyard(&self, rules: Rules<'_>, power: Power, zone: TerritoryId) -> Option<TerritoryId> {
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
    fn can_place(&self, rules: Rules<'_>, power: Power, unit: UnitTypeId) -> bool {
        let profile = rules.catalogue.get(unit);
        let producing = |t: TerritoryId| {
            matches!(
                self.production_left(rules, power, t),
                Ok(None) | Ok(Some(1..))
            )
        };
        rules.board.territories().any(|(id, territory)| {
            if profile.has(Ability::Factory) {
                no_new_complexes(rules, power).is_ok() && self.factory_site_free(rules, power, id)
            } else if profile.domain == Domain::Sea {
                territory.sea && rules.board.neighbours(id).iter().any(|t| producing(*t))
            } else {
                !territory.sea && producing(id)
            }
        })
    }
}

/// Folds one event into the state. Never fails: events were checked when decided.
pub fn apply(rules: Rules<'_>, state: &mut GameState, event: &GameEvent) {
    match event {
        GameEvent::PhaseEnded { at, .. } if rules.special.war.is_some() => {
            war_flow::end_phase(state, *at);
        }
        GameEvent::PhaseEnded { power, at, .. } => match state.phase.next() {
            Some(next) => {
                state.last_progress_at = Some(*at);
                state.phase = next;
                diplomacy::open_fronts(state, rules);
            }
            None => {
                state.last_progress_at = Some(*at);
                if let Some(turns) = state
                    .seats
                    .get_mut(power)
                    .and_then(|s| s.substitute_turns.as_mut())
                {
                    *turns += 1;
                }
                state.air_transports.clear();
                state.phase = Phase::Repairs;
                state.placed_this_turn.clear();
                state.expanded_this_turn.clear();
                state.researched_this_turn = false;
                state.moved.clear();
                state.contested.clear();
                state.captured_this_turn.clear();
                state.kamikaze_used_this_turn = false;
                state.suppression.clear();
                state.railed_infantry = 0;
                state.factory_railed = false;
                state.factories_setting_up.clear();
                state.rockets_fired.clear();
                state.turn += 1;
                if state.turn >= rules.board.turn_order().len() {
                    state.turn = 0;
                    state.round += 1;
                }
            }
        },
        GameEvent::UnitsPurchased { power, units, cost } => {
            let treasury = state.treasury.entry(*power).or_default();
            *treasury = treasury.saturating_sub(*cost);
            for (unit, n) in units {
                *state.pending.entry(*unit).or_default() += n;
            }
        }
        GameEvent::UnitsPlaced {
            power,
            territory,
            units,
        } => {
            let site = if rules.board.get(*territory).sea {
                state.shipyard(rules, *power, *territory)
            } else {
                Some(*territory)
            };
            for (unit, n) in units {
                if rules.catalogue.get(*unit).has(Ability::Factory) {
                    state.factories_setting_up.insert(*territory);
                }
                *state.forces[territory.index()]
                    .entry((*power, *unit, 0))
                    .or_default() += n;
                if let Some(left) = state.pending.get_mut(unit) {
                    *left = left.saturating_sub(*n);
                }
                if let Some(site) = site {
                    *state.placed_this_turn.entry((site, *unit)).or_default() += n;
                }
            }
            state.pending.retain(|_, n| *n > 0);
        }
        GameEvent::UnitsForfeited { .. } => state.pending.clear(),
        GameEvent::AircraftLost { power, losses } => {
            for &(place, unit, n) in losses {
                take_of_type(&mut state.forces[place.index()], *power, unit, n);
            }
        }
        GameEvent::IncomeCollected { power, amount } => {
            *state.treasury.entry(*power).or_default() += amount;
        }
        GameEvent::ReinforcementsArrived {
            power,
            territory,
            units,
            lost: false,
        } => {
            for (unit, n) in units {
                *state.forces[territory.index()]
                    .entry((*power, *unit, 0))
                    .or_default() += n;
            }
        }
        GameEvent::ReinforcementsArrived { lost: true, .. } => {}
        GameEvent::RecruitsRaised {
            power,
            territory,
            infantry,
        } => {
            if let Some(unit) = rules.catalogue.infantry() {
                *state.forces[territory.index()]
                    .entry((*power, unit, 0))
                    .or_default() += infantry;
            }
        }
        GameEvent::GuerrillaSuppression {
            territory,
            suppressed,
            ..
        } => {
            state.suppression.insert(*territory, *suppressed);
        }
        GameEvent::GuerrillasAvoidedCombat {
            territory,
            attacker,
            taken,
            ..
        } => {
            state.contested.remove(territory);
            if *taken {
                state.holder[territory.index()] = Some(*attacker);
            }
        }
        GameEvent::PowerSurrendered { power, .. } => {
            state.surrendered.insert(*power);
        }
        GameEvent::ComplexExpanded {
            power,
            territory,
            cost,
        } => {
            if let Some(treasury) = state.treasury.get_mut(power) {
                *treasury = treasury.saturating_sub(*cost);
            }
            *state.expansions.entry(*territory).or_default() += 1;
            state.expanded_this_turn.insert(*territory);
        }
        GameEvent::WarLoanApplied { power, granted, .. } => {
            state.loan_applied.insert(*power);
            if *granted > 0 {
                *state.treasury.entry(*power).or_default() += granted;
                state.loans.insert(
                    *power,
                    WarLoan {
                        owed: *granted,
                        granted_in_round: state.round,
                    },
                );
            }
        }
        GameEvent::UnitsMoved {
            power,
            units,
            path,
            captured,
            contested,
            passengers,
        } => {
            movement::apply_move(rules, state, *power, units, path, captured, *contested);
            movement::carry_passengers(state, path, passengers);
        }
        GameEvent::UnitsRailed {
            power,
            units,
            path,
            contested,
        } => rail::apply_rail(rules, state, *power, units, path, *contested),
        GameEvent::RocketFired {
            from,
            victim,
            ipc_lost,
            ..
        } => {
            *state.rockets_fired.entry(*from).or_default() += 1;
            let treasury = state.treasury.entry(*victim).or_default();
            *treasury = treasury.saturating_sub(*ipc_lost);
        }
        GameEvent::BattleFought(fought) => combat::apply_battle(rules, state, fought),
        GameEvent::BattleshipRepaired {
            power,
            sea_zone,
            cost,
            ..
        } => {
            let treasury = state.treasury.entry(*power).or_default();
            *treasury = treasury.saturating_sub(*cost);
            let forces = &mut state.forces[sea_zone.index()];
            let damaged = forces
                .keys()
                .find(|(owner, unit, damage)| {
                    owner == power && *damage > 0 && rules.catalogue.get(*unit).hit_points > 1
                })
                .copied();
            if let Some((owner, unit, damage)) = damaged {
                take_units(forces, (owner, unit, damage), 1);
                *forces.entry((owner, unit, 0)).or_default() += 1;
                // Under repair: it may not move or fight for the rest of the turn.
                let spent = state.moved.entry((*sea_zone, unit)).or_insert((0, u8::MAX));
                spent.0 += 1;
                spent.1 = u8::MAX;
            }
        }
        GameEvent::RaidFlown(flown) => combat::apply_raid(rules, state, flown),
        GameEvent::AgreementOffered { from, to, terms } => {
            state.offers.insert((*from, *to), terms.clone());
        }
        GameEvent::AgreementFormed { between, terms } => {
            state.offers.remove(between);
            state.offers.remove(&(between.1, between.0));
            state.agreements.insert(*between, terms.clone());
        }
        GameEvent::PermissionGranted { by, to, permission } => {
            state.permissions.insert((*by, *to, *permission));
        }
        GameEvent::PermissionRevoked { by, to, permission } => {
            state.permissions.remove(&(*by, *to, *permission));
        }
        GameEvent::AgreementEnded(ended) => diplomacy::apply_ended(rules, state, ended),
        GameEvent::TroopsAirDropped {
            power,
            bombers,
            troops,
            path,
            contested,
        } => movement::apply_air_drop(rules, state, *power, *bombers, troops, path, *contested),
        GameEvent::WentPassive { power } => {
            state.passive.insert(*power);
        }
        GameEvent::TreasuryConvertedToInfantry {
            power,
            infantry,
            spent,
        } => {
            let treasury = state.treasury.entry(*power).or_default();
            *treasury = treasury.saturating_sub(*spent);
            if let (Some(capital), Some(inf)) =
                (rules.board.capital(*power), rules.catalogue.infantry())
            {
                *state.forces[capital.index()]
                    .entry((*power, inf, 0))
                    .or_default() += infantry;
            }
        }
        GameEvent::StartZonesRolled { .. }
        | GameEvent::InitiativeRolled { .. }
        | GameEvent::ReinforcementsRolled { .. }
        | GameEvent::NeutralForcesPlaced { .. }
        | GameEvent::WarUnitsBought { .. }
        | GameEvent::InfrastructureBuilt { .. }
        | GameEvent::WarResearched { .. }
        | GameEvent::AtomicBombDropped { .. }
        | GameEvent::WarMoveResolved(_)
        | GameEvent::AirRaidFlown(_)
        | GameEvent::OrderOfLossSet { .. }
        | GameEvent::WarRocketFired { .. } => war_flow::apply(rules, state, event),
        GameEvent::SeatsAssigned { .. }
        | GameEvent::PlayerReplaced { .. }
        | GameEvent::SeatTaken { .. }
        | GameEvent::SubstituteMadePermanent { .. }
        | GameEvent::GameEnded { .. }
        | GameEvent::GameVoided { .. } => seats::apply(state, event),
        GameEvent::StandingOrdersSet {
            power,
            territory,
            orders,
        } => {
            if *orders == combat::StandingOrders::default() {
                state.standing_orders.remove(&(*power, *territory));
            } else {
                state
                    .standing_orders
                    .insert((*power, *territory), orders.clone());
            }
        }
        GameEvent::WeaponsResearched {
            power,
            cost,
            breakthrough,
            ..
        } => {
            let treasury = state.treasury.entry(*power).or_default();
            *treasury = treasury.saturating_sub(*cost);
            state.researched_this_turn = true;
            if let Some(breakthrough) = breakthrough {
                state
                    .technologies
                    .entry(*power)
                    .or_default()
                    .insert(breakthrough.technology);
            }
        }
        GameEvent::WarLoanRepaid {
            power,
            principal,
            interest,
        } => {
            let treasury = state.treasury.entry(*power).or_default();
            *treasury = treasury.saturating_sub(principal + interest);
            if let Some(loan) = state.loans.get_mut(power) {
                loan.owed = loan.owed.saturating_sub(*principal);
                if loan.owed == 0 {
                    state.loans.remove(power);
                }
            }
        }
    }
}
