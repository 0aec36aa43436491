//! What a player (or the GM on their behalf) asks for, and the kinds of order (`OrderKind`).

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

/// A kind of order, by the `type` an order carries (`fight_battle`). Lists of them go in
/// the order a turn meets them, ending the phase last.
// The tags are `NamedOrder`'s; the declaration order is the lists' order (they are sorted).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum OrderKind {
    Purchase,
    Place,
    ApplyForWarLoan,
    RepayWarLoan,
    ExpandComplex,
    DevelopWeapons,
    RepairBattleship,
    Move,
    Rail,
    AirDrop,
    FightBattle,
    FireRocket,
    SuppressGuerrillas,
    AvoidCombat,
    KamikazeAttack,
    AttackSubmarines,
    FlyPatrol,
    BlockWithSubmarines,
    Lend,
    Recall,
    RollStartZones,
    RollInitiative,
    RollReinforcements,
    BuildInfrastructure,
    DropAtomicBomb,
    AirRaid,
    OfferAgreement,
    AcceptAgreement,
    GrantPermission,
    RevokePermission,
    BreakAgreement,
    SetStandingOrders,
    SetOrderOfLoss,
    SetBreakOff,
    GoPassive,
    EndPhase,
}

impl OrderKind {
    pub const ALL: [OrderKind; 36] = [
        OrderKind::Purchase,
        OrderKind::Place,
        OrderKind::ApplyForWarLoan,
        OrderKind::RepayWarLoan,
        OrderKind::ExpandComplex,
        OrderKind::DevelopWeapons,
        OrderKind::RepairBattleship,
        OrderKind::Move,
        OrderKind::Rail,
        OrderKind::AirDrop,
        OrderKind::FightBattle,
        OrderKind::FireRocket,
        OrderKind::SuppressGuerrillas,
        OrderKind::AvoidCombat,
        OrderKind::KamikazeAttack,
        OrderKind::AttackSubmarines,
        OrderKind::FlyPatrol,
        OrderKind::BlockWithSubmarines,
        OrderKind::Lend,
        OrderKind::Recall,
        OrderKind::RollStartZones,
        OrderKind::RollInitiative,
        OrderKind::RollReinforcements,
        OrderKind::BuildInfrastructure,
        OrderKind::DropAtomicBomb,
        OrderKind::AirRaid,
        OrderKind::OfferAgreement,
        OrderKind::AcceptAgreement,
        OrderKind::GrantPermission,
        OrderKind::RevokePermission,
        OrderKind::BreakAgreement,
        OrderKind::SetStandingOrders,
        OrderKind::SetOrderOfLoss,
        OrderKind::SetBreakOff,
        OrderKind::GoPassive,
        OrderKind::EndPhase,
    ];

    /// The kind of an order (standing orders as sealed on the record are the kind a
    /// client sends: `set_standing_orders`).
    pub fn of(order: &Order) -> OrderKind {
        match order {
            Order::EndPhase => OrderKind::EndPhase,
            Order::Purchase(_) => OrderKind::Purchase,
            Order::Place { .. } => OrderKind::Place,
            Order::ApplyForWarLoan => OrderKind::ApplyForWarLoan,
            Order::ExpandComplex { .. } => OrderKind::ExpandComplex,
            Order::RepayWarLoan(_) => OrderKind::RepayWarLoan,
            Order::DevelopWeapons(_) => OrderKind::DevelopWeapons,
            Order::Move { .. } => OrderKind::Move,
            Order::Rail { .. } => OrderKind::Rail,
            Order::FireRocket { .. } => OrderKind::FireRocket,
            Order::FightBattle(_) => OrderKind::FightBattle,
            Order::SuppressGuerrillas { .. } => OrderKind::SuppressGuerrillas,
            Order::AvoidCombat { .. } => OrderKind::AvoidCombat,
            Order::KamikazeAttack { .. } => OrderKind::KamikazeAttack,
            Order::AttackSubmarines { .. } => OrderKind::AttackSubmarines,
            Order::FlyPatrol { .. } => OrderKind::FlyPatrol,
            Order::BlockWithSubmarines { .. } => OrderKind::BlockWithSubmarines,
            Order::Lend { .. } => OrderKind::Lend,
            Order::Recall { .. } => OrderKind::Recall,
            Order::RepairBattleship { .. } => OrderKind::RepairBattleship,
            Order::AirDrop { .. } => OrderKind::AirDrop,
            Order::GoPassive => OrderKind::GoPassive,
            Order::OfferAgreement { .. } => OrderKind::OfferAgreement,
            Order::AcceptAgreement { .. } => OrderKind::AcceptAgreement,
            Order::GrantPermission { .. } => OrderKind::GrantPermission,
            Order::RevokePermission { .. } => OrderKind::RevokePermission,
            Order::BreakAgreement { .. } => OrderKind::BreakAgreement,
            Order::RollStartZones => OrderKind::RollStartZones,
            Order::RollInitiative => OrderKind::RollInitiative,
            Order::RollReinforcements => OrderKind::RollReinforcements,
            Order::BuildInfrastructure { .. } => OrderKind::BuildInfrastructure,
            Order::DropAtomicBomb { .. } => OrderKind::DropAtomicBomb,
            Order::AirRaid { .. } => OrderKind::AirRaid,
            Order::SetOrderOfLoss(_) => OrderKind::SetOrderOfLoss,
            Order::SetBreakOff(_) => OrderKind::SetBreakOff,
            Order::SetStandingOrders { .. } | Order::SealedStandingOrders { .. } => {
                OrderKind::SetStandingOrders
            }
        }
    }

    /// The order's `type`, as a client sends it: `fight_battle`.
    pub fn tag(self) -> &'static str {
        match self {
            OrderKind::EndPhase => "end_phase",
            OrderKind::Purchase => "purchase",
            OrderKind::Place => "place",
            OrderKind::ApplyForWarLoan => "apply_for_war_loan",
            OrderKind::RepayWarLoan => "repay_war_loan",
            OrderKind::ExpandComplex => "expand_complex",
            OrderKind::DevelopWeapons => "develop_weapons",
            OrderKind::RepairBattleship => "repair_battleship",
            OrderKind::Move => "move",
            OrderKind::Rail => "rail",
            OrderKind::AirDrop => "air_drop",
            OrderKind::FightBattle => "fight_battle",
            OrderKind::FireRocket => "fire_rocket",
            OrderKind::SuppressGuerrillas => "suppress_guerrillas",
            OrderKind::AvoidCombat => "avoid_combat",
            OrderKind::KamikazeAttack => "kamikaze_attack",
            OrderKind::AttackSubmarines => "attack_submarines",
            OrderKind::FlyPatrol => "fly_patrol",
            OrderKind::BlockWithSubmarines => "block_with_submarines",
            OrderKind::Lend => "lend",
            OrderKind::Recall => "recall",
            OrderKind::GoPassive => "go_passive",
            OrderKind::OfferAgreement => "offer_agreement",
            OrderKind::AcceptAgreement => "accept_agreement",
            OrderKind::GrantPermission => "grant_permission",
            OrderKind::RevokePermission => "revoke_permission",
            OrderKind::BreakAgreement => "break_agreement",
            OrderKind::SetStandingOrders => "set_standing_orders",
            OrderKind::RollStartZones => "roll_start_zones",
            OrderKind::RollInitiative => "roll_initiative",
            OrderKind::RollReinforcements => "roll_reinforcements",
            OrderKind::BuildInfrastructure => "build_infrastructure",
            OrderKind::DropAtomicBomb => "drop_atomic_bomb",
            OrderKind::AirRaid => "air_raid",
            OrderKind::SetOrderOfLoss => "set_order_of_loss",
            OrderKind::SetBreakOff => "set_break_off",
        }
    }

    /// In plain words, for people: "fight a battle".
    pub fn words(self) -> &'static str {
        match self {
            OrderKind::EndPhase => "end the phase",
            OrderKind::Purchase => "buy units",
            OrderKind::Place => "place units",
            OrderKind::ApplyForWarLoan => "apply for a war loan",
            OrderKind::RepayWarLoan => "repay the war loan",
            OrderKind::ExpandComplex => "expand a complex",
            OrderKind::DevelopWeapons => "research weapons",
            OrderKind::RepairBattleship => "repair a battleship",
            OrderKind::Move => "move units",
            OrderKind::Rail => "move by rail",
            OrderKind::AirDrop => "drop paratroopers",
            OrderKind::FightBattle => "fight a battle",
            OrderKind::FireRocket => "fire a rocket",
            OrderKind::SuppressGuerrillas => "suppress guerrillas",
            OrderKind::AvoidCombat => "refuse battle (guerrillas)",
            OrderKind::KamikazeAttack => "strike with kamikaze tokens",
            OrderKind::AttackSubmarines => "attack submarines beside a destroyer",
            OrderKind::FlyPatrol => "fly a combat air patrol",
            OrderKind::BlockWithSubmarines => "order submarines to block",
            OrderKind::Lend => "lend units",
            OrderKind::Recall => "take back lent units",
            OrderKind::GoPassive => "go passive",
            OrderKind::OfferAgreement => "offer an agreement",
            OrderKind::AcceptAgreement => "accept an agreement",
            OrderKind::GrantPermission => "grant a permission",
            OrderKind::RevokePermission => "revoke a permission",
            OrderKind::BreakAgreement => "break an agreement",
            OrderKind::SetStandingOrders => "set standing orders for defence",
            OrderKind::RollStartZones => "roll the start zones",
            OrderKind::RollInitiative => "roll the initiative",
            OrderKind::RollReinforcements => "roll the reinforcements",
            OrderKind::BuildInfrastructure => "build infrastructure",
            OrderKind::DropAtomicBomb => "drop the atomic bomb",
            OrderKind::AirRaid => "raid with aircraft",
            OrderKind::SetOrderOfLoss => "set the order of loss",
            OrderKind::SetBreakOff => "set when to break off an attack",
        }
    }
}
