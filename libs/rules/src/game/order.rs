//! What a player (or the GM on their behalf) asks for.

use super::*;

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
    /// AAP 8: fighters and bombers fly a combat air patrol over their place or one next
    /// door, defending it until their owner's next turn.
    FlyPatrol {
        units: Vec<(UnitTypeId, u32)>,
        from: TerritoryId,
        over: TerritoryId,
    },
    /// AAP 3.5: lend units standing in a place to another power, for its turns; any time.
    Lend {
        to: Power,
        territory: TerritoryId,
        units: Vec<(UnitTypeId, u32)>,
    },
    /// AAP 3.5: take back units lent to `from`, standing in a place; any time.
    Recall {
        from: Power,
        territory: TerritoryId,
        units: Vec<(UnitTypeId, u32)>,
    },
    /// AAP 7.1-7.2: submarines block these powers' ships, in one zone or (`None`) all;
    /// an empty list ends the order. Given in the power's own turn.
    BlockWithSubmarines {
        sea_zone: Option<TerritoryId>,
        against: Vec<Power>,
    },
    /// AAP 7.1 (iii): attack the enemy submarines in a zone where a destroyer of the
    /// power's stood when its turn began (a battle to fight).
    AttackSubmarines {
        sea_zone: TerritoryId,
    },
    /// The Pacific board's kamikaze tokens (AAP 1i): every strike at once, after an
    /// enemy's combat move and before its first battle; given by the tokens' owner.
    KamikazeAttack {
        strikes: Vec<kamikazes::KamikazeStrike>,
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
    /// "War": the attacks a player presses in each battle of its own moves before it
    /// breaks off ("engage for at least 1 attack"); `None`: until one side is gone. Any
    /// time.
    SetBreakOff(Option<u32>),
    /// A defender's standing battle orders, for one place or (`None`) all; any time.
    SetStandingOrders {
        territory: Option<TerritoryId>,
        orders: standing::StandingOrders,
    },
    /// Standing orders as the record keeps them: sealed (`None`: withheld, sent after an
    /// order that cut the command off, never decided).
    SealedStandingOrders {
        territory: Option<TerritoryId>,
        sealed: Option<standing::SealedOrders>,
    },
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
