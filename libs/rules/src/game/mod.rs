//! A game as a fold of events: [`decide`] checks an order against the rules and the state
//! and returns the events it causes (or a [`RuleViolation`]); [`apply`] folds an event into
//! the state and never fails. Randomness and time come in as arguments, never from here.
//!
//! This file holds the game's vocabulary and its fold: the events ([`GameEvent`]), the state
//! ([`GameState`]), `decide`, which hands each order to the room that decides it, and
//! `apply`, whose match sees every event at once. What an order decides lives in the rooms
//! beside it: `turn` and `phase` the cycle, `production` purchases and placement, `economy`
//! income, `movement`, `rail`, `combat`, and each special rule's own room.

use std::collections::{BTreeMap, BTreeSet};

use crate::board::{Board, Power, TerritoryId};
use crate::dice::{DiceSource, Die};
use crate::setup::Setup;
pub use crate::tech::Technology;
use crate::units::{Ability, Catalogue, Domain, UnitTypeId};
pub use diplomacy::{AgreementEnd, AgreementEnded, Outbreak, Permission, Seizure};
pub use seats::{decide_director, draw_seats, draw_seats_by_bid, DirectorOrder, Moment, Seat};

mod attack;
#[cfg(any(test, feature = "samples"))]
pub mod autoplay;
mod bases;
mod capture;
pub mod combat;
mod convoys;
mod defenders;
pub mod diplomacy;
mod economy;
mod garrisons;
mod guerrillas;
mod hidden_subs;
pub mod home_cooked;
pub mod kamikazes;
pub mod lending;
mod loans;
mod may_move;
pub mod moment;
mod movement;
pub mod named;
mod order;
mod patrols;
mod phase;
mod production;
mod rail;
mod repairs;
pub mod replay;
mod rules;
pub mod seats;
pub mod standing;
mod standing_orders;
pub mod sub_retreat;
#[cfg(test)]
pub(crate) mod tests;
mod turn;

mod weapons;
pub mod words;

pub(crate) use crate::violation::violation;
pub use crate::violation::{RuleViolation, ViolationCode};
use loans::{apply_for_war_loan, loan_instalment, repay_war_loan};
pub use loans::{war_loan_amount, WarLoan};
pub use moment::{MayMove, Money, Now, OrderKind, Reach, ToPlace};
pub use order::Order;
pub use phase::Phase;
use production::{place, purchase};
use repairs::repair_battleship;
pub use rules::{
    Arrival, Economy, Kamikaze, Recruits, Rules, Special, Survival, CUT_THROAT_SPECIAL,
};
pub(crate) use turn::require_phase;
use turn::{end_phase, go_passive};
use weapons::develop_weapons;
pub use weapons::{Breakthrough, RESEARCH_DIE_COST};

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
    /// Each power's standing battle orders in force as a defender: for one place, or
    /// (`None`) for all its battles.
    pub standing_orders: BTreeMap<(Power, Option<TerritoryId>), standing::GivenOrders>,
    /// Standing orders given during this turn: in force when it ends.
    pub standing_orders_next: BTreeMap<(Power, Option<TerritoryId>), standing::GivenOrders>,
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
    pub war: home_cooked::WarFlow,
    /// The ruleset's standing alliances, by [`diplomacy::partners`].
    pub standing_alliances: BTreeSet<(Power, Power)>,
    /// AAP 6, 8.1: convoy centres and routes captured, by zone: who holds them. A capture
    /// counts while its captor is at war with the zone's rightful holder.
    pub convoys_captured: BTreeMap<TerritoryId, Power>,
    /// AAP 7.1 (iii): sea zones where the power whose turn it is had a destroyer when its
    /// turn began.
    pub destroyers_at_turn_start: BTreeSet<TerritoryId>,
    /// AAP 7.1-7.2: submarines ordered to block, by (owner, zone or `None` for all its
    /// zones): the powers whose ships they block.
    pub blocking: BTreeMap<(Power, Option<TerritoryId>), BTreeSet<Power>>,
    /// AAP 8: aircraft on combat air patrol, by (owner, place patrolled, place they came
    /// from, type): how many. They stand in the place patrolled until their owner's turn.
    pub patrols: BTreeMap<(Power, TerritoryId, TerritoryId, UnitTypeId), u32>,
    /// AAP 3.5: units on loan, by (borrower, place, type): how many, and how many of them
    /// moved on the borrower's turn this round.
    pub lent: BTreeMap<(Power, TerritoryId, UnitTypeId), lending::Loan>,
    /// AAP 3.5: units taken back after they moved on the borrower's turn: they may not
    /// move again this round, by (lender, place, type).
    pub resting: BTreeMap<(Power, TerritoryId, UnitTypeId), u32>,
    /// AAP 1i: kamikaze tokens left, by power.
    pub kamikaze_tokens: BTreeMap<Power, u32>,
    /// AAP 1i: the sea zones the kamikazes struck this turn (they strike once a turn, and
    /// ships there bombard nothing).
    pub kamikaze_struck: BTreeSet<TerritoryId>,
    /// Whether the power whose turn it is has fought a battle or a raid this turn.
    pub battles_begun: bool,
    /// Land units of the power whose turn it is that came ashore from the sea this turn,
    /// by (place, type): an amphibious assault's (the Pacific board's marines).
    pub landed: BTreeMap<(TerritoryId, UnitTypeId), u32>,
}

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
    /// Free infantry due at the start of the turn, for the player to place in the
    /// placement phase where it has units (AAP 1.1a: the CCP).
    RecruitsDue {
        power: Power,
        infantry: u32,
    },
    /// AAP 7.1 (iii): a battle declared on the enemy submarines in a zone where the
    /// power's destroyer stood when its turn began.
    SubmarinesAttacked {
        power: Power,
        sea_zone: TerritoryId,
    },
    /// AAP 6, 8.1: a convoy centre or route taken from its rightful holder.
    ConvoyCaptured {
        power: Power,
        sea_zone: TerritoryId,
        from: Power,
    },
    /// AAP 6, 8.1: a captured convoy centre or route freed for its rightful holder.
    ConvoyLiberated {
        power: Power,
        sea_zone: TerritoryId,
        for_power: Power,
    },
    /// AAP 8: aircraft on combat air patrol over `over`, from `from`.
    PatrolFlown {
        power: Power,
        units: Vec<(UnitTypeId, u32)>,
        from: TerritoryId,
        over: TerritoryId,
    },
    /// AAP 8: a power's patrols end as its turn begins: the survivors back where they came
    /// from (over, from, type, how many), or lost where they can no longer land.
    PatrolsEnded {
        power: Power,
        returned: Vec<(TerritoryId, TerritoryId, UnitTypeId, u32)>,
        lost: Vec<(TerritoryId, UnitTypeId, u32)>,
    },
    /// AAP 3.5: units lent for the borrower's turns.
    UnitsLent {
        from: Power,
        to: Power,
        territory: TerritoryId,
        units: Vec<(UnitTypeId, u32)>,
    },
    /// AAP 3.5: lent units taken back by their lender.
    UnitsRecalled {
        from: Power,
        to: Power,
        territory: TerritoryId,
        units: Vec<(UnitTypeId, u32)>,
    },
    /// AAP 7.1-7.2: a power's submarines block these powers' ships, in one zone or (`None`)
    /// in all; an empty list ends the order.
    SubmarinesBlocking {
        power: Power,
        sea_zone: Option<TerritoryId>,
        against: Vec<Power>,
    },
    /// AAP 1i: kamikaze tokens spent on `against`'s ships, every die of each strike.
    KamikazesStruck {
        power: Power,
        against: Power,
        strikes: Vec<kamikazes::KamikazeHit>,
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
        bases: Vec<home_cooked::StartZones>,
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
        tries: Vec<home_cooked::ResearchTry>,
        cost: u32,
    },
    AtomicBombDropped {
        power: Power,
        territory: TerritoryId,
        cost: u32,
    },
    /// "War": a move, its parleys and its battle.
    WarMoveResolved(Box<home_cooked::WarMove>),
    /// "War": an air raid on a player's cash reserves.
    AirRaidFlown(Box<home_cooked::AirRaid>),
    /// "War": a player's standing order of loss.
    OrderOfLossSet {
        power: Power,
        units: Vec<UnitTypeId>,
    },
    /// "War": after how many attacks a player's battles break off (`None`: they are
    /// pressed until one side is gone).
    BreakOffSet {
        power: Power,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<u32>,
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
        orders: standing::StandingOrders,
    },
    /// A power's standing battle orders, sealed: in force when the turn they were given in
    /// ends, revealed by the first battle that follows them.
    StandingOrdersSealed {
        power: Power,
        territory: Option<TerritoryId>,
        sealed: standing::SealedOrders,
    },
    /// Sealed standing orders revealed, just before the battle that follows them: the
    /// orders and the salt of their commitment.
    StandingOrdersRevealed {
        power: Power,
        territory: Option<TerritoryId>,
        orders: standing::StandingOrders,
        salt: String,
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

/// The families of events, each told and folded by a function of its own: one list, so an
/// event new to the game is placed once for every reader of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EventFamily {
    /// A phase ended.
    PhaseEnd,
    /// What a power's money buys and owes: purchases and placements, income, loans, research,
    /// repairs, and a passive power's treasury.
    Economy,
    /// The Pacific board's rules on land: reinforcements, guerrillas, recruits, units lent.
    PacificLand,
    /// The Pacific board's rules at sea and in the air: kamikazes, convoys, patrols,
    /// submarines.
    PacificSea,
    /// Moves and what they lead to: battles, raids, rockets, aircraft with nowhere to land.
    MovesAndBattles,
    /// Agreements and permissions between powers.
    Diplomacy,
    /// The home-cooked "War" game's own events.
    War,
    /// Who sits at the table, and how the game ended.
    Seats,
    /// A defender's standing orders, set, sealed or revealed.
    StandingOrders,
}

impl GameEvent {
    fn family(&self) -> EventFamily {
        match self {
            GameEvent::PhaseEnded { .. } => EventFamily::PhaseEnd,
            GameEvent::UnitsPurchased { .. }
            | GameEvent::UnitsPlaced { .. }
            | GameEvent::IncomeCollected { .. }
            | GameEvent::UnitsForfeited { .. }
            | GameEvent::PowerSurrendered { .. }
            | GameEvent::ComplexExpanded { .. }
            | GameEvent::WarLoanApplied { .. }
            | GameEvent::WarLoanRepaid { .. }
            | GameEvent::WeaponsResearched { .. }
            | GameEvent::WentPassive { .. }
            | GameEvent::TreasuryConvertedToInfantry { .. }
            | GameEvent::BattleshipRepaired { .. } => EventFamily::Economy,
            GameEvent::ReinforcementsArrived { .. }
            | GameEvent::GuerrillaSuppression { .. }
            | GameEvent::GuerrillasAvoidedCombat { .. }
            | GameEvent::RecruitsRaised { .. }
            | GameEvent::RecruitsDue { .. }
            | GameEvent::UnitsLent { .. }
            | GameEvent::UnitsRecalled { .. } => EventFamily::PacificLand,
            GameEvent::KamikazesStruck { .. }
            | GameEvent::SubmarinesAttacked { .. }
            | GameEvent::ConvoyCaptured { .. }
            | GameEvent::ConvoyLiberated { .. }
            | GameEvent::PatrolFlown { .. }
            | GameEvent::PatrolsEnded { .. }
            | GameEvent::SubmarinesBlocking { .. } => EventFamily::PacificSea,
            GameEvent::AircraftLost { .. }
            | GameEvent::UnitsMoved { .. }
            | GameEvent::UnitsRailed { .. }
            | GameEvent::RocketFired { .. }
            | GameEvent::BattleFought(_)
            | GameEvent::RaidFlown(_)
            | GameEvent::TroopsAirDropped { .. } => EventFamily::MovesAndBattles,
            GameEvent::AgreementOffered { .. }
            | GameEvent::AgreementFormed { .. }
            | GameEvent::PermissionGranted { .. }
            | GameEvent::PermissionRevoked { .. }
            | GameEvent::AgreementEnded(_) => EventFamily::Diplomacy,
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
            | GameEvent::BreakOffSet { .. }
            | GameEvent::WarRocketFired { .. } => EventFamily::War,
            GameEvent::SeatsAssigned { .. }
            | GameEvent::PlayerReplaced { .. }
            | GameEvent::SeatTaken { .. }
            | GameEvent::SubstituteMadePermanent { .. }
            | GameEvent::GameEnded { .. }
            | GameEvent::GameVoided { .. } => EventFamily::Seats,
            GameEvent::StandingOrdersSet { .. }
            | GameEvent::StandingOrdersSealed { .. }
            | GameEvent::StandingOrdersRevealed { .. } => EventFamily::StandingOrders,
        }
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

/// The agreement rivals start under.
const RIVALS_AT_START: &str = "partners from the start, until one breaks it";

/// Every damaged unit of `power`'s whole again (the Pacific board's end of turn).
fn repair_all(state: &mut GameState, power: Power) {
    for forces in &mut state.forces {
        let damaged: Vec<_> = forces
            .iter()
            .filter(|((owner, _, damage), n)| *owner == power && *damage > 0 && **n > 0)
            .map(|(key, n)| (*key, *n))
            .collect();
        for ((owner, unit, damage), n) in damaged {
            take_units(forces, (owner, unit, damage), n);
            *forces.entry((owner, unit, 0)).or_default() += n;
        }
    }
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
        for (zone, ipc, power) in &rules.special.convoy_centres {
            if !rules.special.convoy_income_only.contains(zone) {
                *treasury.entry(*power).or_default() += ipc;
            }
        }
        // Rivals start as partners, each letting the other do everything a partner may.
        let agreements = rules
            .special
            .rivals
            .iter()
            .map(|pair| (*pair, RIVALS_AT_START.to_owned()))
            .collect();
        let permissions = rules
            .special
            .rivals
            .iter()
            .flat_map(|(a, b)| [(*a, *b), (*b, *a)])
            .flat_map(|(by, to)| {
                [Permission::Enter, Permission::Rail, Permission::Ferry].map(|p| (by, to, p))
            })
            .collect();
        for recruiting in &rules.special.recruits {
            // They raise infantry instead: no money.
            treasury.insert(recruiting.power, 0);
        }
        let mut state = GameState {
            starting_ipc,
            loans: BTreeMap::new(),
            loan_applied: BTreeSet::new(),
            technologies: BTreeMap::new(),
            researched_this_turn: false,
            moved: BTreeMap::new(),
            contested: BTreeMap::new(),
            agreements,
            offers: BTreeMap::new(),
            permissions,
            fronts: BTreeSet::new(),
            passive: BTreeSet::new(),
            air_transports: BTreeMap::new(),
            seats: BTreeMap::new(),
            last_progress_at: None,
            ended: None,
            voided: None,
            standing_orders: BTreeMap::new(),
            standing_orders_next: BTreeMap::new(),
            railed_infantry: 0,
            factory_railed: false,
            factories_setting_up: BTreeSet::new(),
            rockets_fired: BTreeMap::new(),
            captured_this_turn: BTreeSet::new(),
            kamikaze_used_this_turn: false,
            surrendered: BTreeSet::new(),
            suppression: BTreeMap::new(),
            war: home_cooked::WarFlow::default(),
            standing_alliances: rules.special.standing_alliances.clone(),
            convoys_captured: BTreeMap::new(),
            destroyers_at_turn_start: BTreeSet::new(),
            blocking: BTreeMap::new(),
            patrols: BTreeMap::new(),
            lent: BTreeMap::new(),
            resting: BTreeMap::new(),
            kamikaze_tokens: rules
                .special
                .kamikaze
                .iter()
                .map(|k| (k.power, k.tokens))
                .collect(),
            kamikaze_struck: BTreeSet::new(),
            battles_begun: false,
            landed: BTreeMap::new(),
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
        };
        hidden_subs::turn_began(rules, &mut state);
        state
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
            home_cooked::reinforcer(rules, self)
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
        return home_cooked::decide(rules, state, by, order, at, dice);
    }
    if let Order::SetStandingOrders { territory, orders } = order {
        return standing::decide(rules, by, *territory, orders);
    }
    if let Order::SealedStandingOrders { territory, sealed } = order {
        return standing::decide_sealed(rules, by, *territory, sealed.as_ref());
    }
    if order.is_diplomatic() {
        return diplomacy::decide(rules, state, by, order);
    }
    if let Order::Lend { .. } | Order::Recall { .. } = order {
        // "US can regain possession of units lent at any time".
        return lending::decide(rules, state, by, order);
    }
    if let Order::KamikazeAttack { strikes } = order {
        // Given on an enemy's turn, by the tokens' owner.
        return kamikazes::decide(rules, state, by, strikes, dice);
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
        Order::AirDrop { .. } => Some(crate::document::CutThroatRule::Paratroopers),
        Order::FightBattle(orders) if orders.kamikaze_target.is_some() => {
            Some(crate::document::CutThroatRule::KamikazeRuns)
        }
        Order::RepairBattleship { .. } => Some(crate::document::CutThroatRule::BattleshipRepairs),
        _ => None,
    };
    if let Some(rule) = left_out.filter(|r| rules.special.without.contains(r)) {
        use crate::document::CutThroatRule;
        let name = match rule {
            CutThroatRule::WarLoans => "war loans",
            CutThroatRule::Rail => "rail movement",
            CutThroatRule::Paratroopers => "paratroopers",
            CutThroatRule::KamikazeRuns => "fighter kamikaze run",
            CutThroatRule::BattleshipRepairs => {
                "battleship repairs (its damaged battleships are repaired at the end of their owner's turn, or play on damaged)"
            }
        };
        return Err(violation(
            ViolationCode::NotInThisRuleset,
            "the ruleset's special_rules.without",
            format!("this ruleset leaves out Cut-Throat's {name}"),
        ));
    }
    let power = state.power(rules.board);
    if state.passive.contains(&by) && !matches!(order, Order::EndPhase) {
        return Err(violation(
            ViolationCode::PassivePower,
            "Cut-Throat, Rules for players (passive status)",
            format!("{by} is passive: no movement and no orders but ending its phases"),
        ));
    }
    if by != power {
        return Err(violation(
            ViolationCode::NotYourTurn,
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
        Order::AvoidCombat { .. }
        | Order::Lend { .. }
        | Order::Recall { .. }
        | Order::KamikazeAttack { .. } => {
            unreachable!("decided above")
        }
        Order::FlyPatrol { units, from, over } => {
            patrols::decide(rules, state, power, units, *from, *over)
        }
        Order::BlockWithSubmarines { sea_zone, against } => {
            hidden_subs::decide_block(rules, power, *sea_zone, against)
        }
        Order::AttackSubmarines { sea_zone } => {
            hidden_subs::decide_attack(rules, state, power, *sea_zone)
        }
        Order::RepairBattleship { sea_zone } => {
            repair_battleship(rules, state, power, *sea_zone, dice)
        }
        Order::OfferAgreement { .. }
        | Order::AcceptAgreement { .. }
        | Order::GrantPermission { .. }
        | Order::RevokePermission { .. }
        | Order::BreakAgreement { .. } => diplomacy::decide(rules, state, by, order),
        Order::SetStandingOrders { .. } | Order::SealedStandingOrders { .. } => {
            unreachable!("decided above")
        }
        Order::RollStartZones
        | Order::RollInitiative
        | Order::RollReinforcements
        | Order::BuildInfrastructure { .. }
        | Order::AirRaid { .. }
        | Order::SetOrderOfLoss(_)
        | Order::SetBreakOff(_)
        | Order::DropAtomicBomb { .. } => Err(violation(
            ViolationCode::NotInThisRuleset,
            "Classic rules",
            "start zones, initiative, reinforcements by the table, infrastructure, air raids, \
             a standing order of loss, breaking off after so many attacks and the atomic bomb \
             are the War rules' orders (here a battle's order of loss and its retreat go with \
             fight_battle, a defender's orders with set_standing_orders)",
        )),
    }
}

/// Folds one event into the state. Never fails: events were checked when decided.
pub fn apply(rules: Rules<'_>, state: &mut GameState, event: &GameEvent) {
    apply_one(rules, state, event);
    lending::settle(rules, state);
}

fn apply_one(rules: Rules<'_>, state: &mut GameState, event: &GameEvent) {
    match event.family() {
        EventFamily::PhaseEnd => apply_phase_end(rules, state, event),
        EventFamily::Economy => apply_economy_event(rules, state, event),
        EventFamily::PacificLand | EventFamily::PacificSea => {
            apply_pacific_event(rules, state, event)
        }
        EventFamily::MovesAndBattles => apply_move_event(rules, state, event),
        EventFamily::Diplomacy => apply_diplomacy_event(rules, state, event),
        EventFamily::War => home_cooked::apply(rules, state, event),
        EventFamily::Seats => seats::apply(state, event),
        EventFamily::StandingOrders => standing::apply(rules, state, event),
    }
}

/// A phase ended: the next phase, or (after the last) the next power's turn. War has its
/// own flow.
fn apply_phase_end(rules: Rules<'_>, state: &mut GameState, event: &GameEvent) {
    match event {
        GameEvent::PhaseEnded { at, .. } if rules.special.war.is_some() => {
            home_cooked::end_phase(state, *at);
        }
        GameEvent::PhaseEnded { power, at, .. } => match state.phase.next() {
            Some(next) => {
                state.last_progress_at = Some(*at);
                state.phase = next;
                diplomacy::open_fronts(state, rules);
            }
            None => {
                state.last_progress_at = Some(*at);
                end_turn(rules, state, *power);
            }
        },
        _ => unreachable!("only phase ends come here"),
    }
}

/// Moves and what they lead to: battles, raids, rockets, aircraft with nowhere to land.
fn apply_move_event(rules: Rules<'_>, state: &mut GameState, event: &GameEvent) {
    match event {
        GameEvent::AircraftLost { power, losses } => {
            for &(place, unit, n) in losses {
                take_of_type(&mut state.forces[place.index()], *power, unit, n);
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
        GameEvent::BattleFought(fought) => {
            state.battles_begun = true;
            combat::apply_battle(rules, state, fought);
        }
        GameEvent::RaidFlown(flown) => {
            state.battles_begun = true;
            combat::apply_raid(rules, state, flown);
        }
        GameEvent::TroopsAirDropped {
            power,
            bombers,
            troops,
            path,
            contested,
        } => movement::apply_air_drop(rules, state, *power, *bombers, troops, path, *contested),
        _ => unreachable!("only moves and battles come here"),
    }
}

/// A power's turn over: what lasts a turn is cleared and the next power's turn (or the
/// next round) begins.
fn end_turn(rules: Rules<'_>, state: &mut GameState, power: Power) {
    if let Some(turns) = state
        .seats
        .get_mut(&power)
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
    state.kamikaze_struck.clear();
    state.battles_begun = false;
    state.landed.clear();
    state.suppression.clear();
    state.railed_infantry = 0;
    state.factory_railed = false;
    state.factories_setting_up.clear();
    state.rockets_fired.clear();
    if rules.special.repair_at_turn_end {
        repair_all(state, power);
    }
    standing::turn_ended(state);
    state.turn += 1;
    if state.turn >= rules.board.turn_order().len() {
        state.turn = 0;
        state.round += 1;
        lending::round_ended(state);
    }
    hidden_subs::turn_began(rules, state);
}

/// What a power's money buys and owes: purchases, placements, income, loans, research,
/// repairs, a passive power's treasury.
fn apply_economy_event(rules: Rules<'_>, state: &mut GameState, event: &GameEvent) {
    match event {
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
        GameEvent::IncomeCollected { power, amount } => {
            *state.treasury.entry(*power).or_default() += amount;
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
        _ => unreachable!("only economy events come here"),
    }
}

/// The Pacific board's rules: reinforcements and recruits, convoys, patrols, lending,
/// submarines, guerrillas and kamikazes.
fn apply_pacific_event(rules: Rules<'_>, state: &mut GameState, event: &GameEvent) {
    match event {
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
        GameEvent::RecruitsDue { infantry, .. } => {
            if let Some(unit) = rules.catalogue.infantry() {
                *state.pending.entry(unit).or_default() += infantry;
            }
        }
        GameEvent::ConvoyCaptured {
            power, sea_zone, ..
        } => {
            state.convoys_captured.insert(*sea_zone, *power);
        }
        GameEvent::SubmarinesAttacked { power, sea_zone } => {
            let opponents = state.opponents_in(rules, *sea_zone, *power);
            state
                .contested
                .entry(*sea_zone)
                .or_default()
                .extend(opponents);
        }
        GameEvent::ConvoyLiberated { sea_zone, .. } => {
            state.convoys_captured.remove(sea_zone);
        }
        GameEvent::PatrolFlown { .. } | GameEvent::PatrolsEnded { .. } => {
            patrols::apply(state, event)
        }
        GameEvent::UnitsLent { .. } | GameEvent::UnitsRecalled { .. } => {
            lending::apply(state, event)
        }
        GameEvent::SubmarinesBlocking {
            power,
            sea_zone,
            against,
        } => {
            if against.is_empty() {
                state.blocking.remove(&(*power, *sea_zone));
            } else {
                state
                    .blocking
                    .insert((*power, *sea_zone), against.iter().copied().collect());
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
        GameEvent::KamikazesStruck {
            power,
            against,
            strikes,
        } => kamikazes::apply(state, *power, *against, strikes),
        _ => unreachable!("only Pacific board events come here"),
    }
}

/// Agreements and permissions between powers.
fn apply_diplomacy_event(rules: Rules<'_>, state: &mut GameState, event: &GameEvent) {
    match event {
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
        _ => unreachable!("only diplomacy events come here"),
    }
}
