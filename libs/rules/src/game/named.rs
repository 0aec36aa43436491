//! Orders as people write them: places by their board names, units by their codes. This is
//! the form the API accepts and the form the log records (`OrdersGiven`), so an auditor
//! reads the orders as the players wrote them and decides them again with the same
//! [`NamedOrder::resolve`] the server used.
//!
//! [`NamedOrder::normalised`] resolves an order and names it back, so a recorded order
//! carries the board's spelling and the catalogue's codes whatever the client sent
//! (`"germany"` becomes `"Germany"`, `"inf"` becomes `"INF"`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::combat::BattleOrders;
use super::kamikazes::KamikazeStrike;
use super::standing::{SealedOrders, StandingOrders};
use super::{Order, Permission};
use crate::battle::{CombatOrder, RetreatOrder};
use crate::board::{Board, Power, TerritoryId};
use crate::units::{Catalogue, UnitTypeId};

/// What naming needs of a ruleset: its id (for messages), its board and its catalogue.
/// `crate::ruleset::Ruleset` gives them; the game, which a ruleset builds, asks them of this
/// trait rather than naming the ruleset.
pub trait RulesetNames {
    fn id(&self) -> &str;
    fn board(&self) -> &Board;
    fn catalogue(&self) -> &Catalogue;
}

/// How many units of a kind an order names: 1 to 999.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "u32")]
pub struct UnitCount(u32);

impl UnitCount {
    pub const MAX: u32 = 999;

    pub fn get(self) -> u32 {
        self.0
    }
}

impl TryFrom<i64> for UnitCount {
    type Error = String;
    fn try_from(value: i64) -> Result<Self, Self::Error> {
        match u32::try_from(value) {
            Ok(n) if (1..=Self::MAX).contains(&n) => Ok(UnitCount(n)),
            _ => Err(format!("a unit count is 1 to {}, not {value}", Self::MAX)),
        }
    }
}

impl From<UnitCount> for u32 {
    fn from(count: UnitCount) -> u32 {
        count.0
    }
}

/// Units by code, e.g. `{"INF": 3, "ARM": 1}`.
pub type UnitList = BTreeMap<String, UnitCount>;

/// How the OpenAPI document describes a [`UnitList`]: unit codes to counts of 1 to 999.
#[cfg(feature = "openapi")]
#[derive(Debug)]
pub struct UnitCounts;

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for UnitCounts {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some("Units by code, each with a count of 1 to 999."))
            .additional_properties(Some(AdditionalProperties::RefOr(
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(1))
                    .maximum(Some(UnitCount::MAX))
                    .into(),
            )))
            .examples([serde_json::json!({"INF": 3, "ARM": 1})])
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for UnitCounts {}

/// When the attacker withdraws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = RetreatInput))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum NamedRetreat {
    AfterRound(u32),
    WhenAtMost(u32),
}

impl NamedRetreat {
    /// The engine's condition.
    pub fn resolved(self) -> RetreatOrder {
        match self {
            NamedRetreat::AfterRound(n) => RetreatOrder::AfterRound(n),
            NamedRetreat::WhenAtMost(n) => RetreatOrder::WhenAtMost(n),
        }
    }

    fn of(order: RetreatOrder) -> NamedRetreat {
        match order {
            RetreatOrder::AfterRound(n) => NamedRetreat::AfterRound(n),
            RetreatOrder::WhenAtMost(n) => NamedRetreat::WhenAtMost(n),
        }
    }
}

/// One kamikaze strike: `tokens` against one of the enemy's ships of type `unit` in a sea
/// zone (each strike another ship, the most damaged of its type first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = KamikazeStrikeInput))]
#[serde(deny_unknown_fields)]
pub struct NamedStrike {
    pub sea_zone: String,
    /// The ship's unit code.
    pub unit: String,
    pub tokens: u32,
}

/// One order. Territories and sea zones by their board names (as `GET /v1/rulesets/{id}`
/// lists them), units by code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = OrderInput))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum NamedOrder {
    /// Finish the current phase.
    EndPhase,
    Purchase {
        #[cfg_attr(feature = "openapi", schema(value_type = UnitCounts))]
        units: UnitList,
    },
    Place {
        territory: String,
        #[cfg_attr(feature = "openapi", schema(value_type = UnitCounts))]
        units: UnitList,
    },
    ApplyForWarLoan,
    RepayWarLoan {
        amount: u32,
    },
    /// Enhanced Realism: one more IPC of capacity at a complex, for 10 IPC.
    ExpandComplex {
        territory: String,
    },
    /// AAP: roll to pin down the guerrillas in a place (a 1 does).
    SuppressGuerrillas {
        territory: String,
    },
    /// AAP: the guerrillas refuse the battle in a place (on the attacker's turn).
    AvoidCombat {
        territory: String,
    },
    DevelopWeapons {
        dice: u32,
    },
    Move {
        #[cfg_attr(feature = "openapi", schema(value_type = UnitCounts))]
        units: UnitList,
        /// Where the units stand, then each place they move through.
        path: Vec<String>,
    },
    Rail {
        #[cfg_attr(feature = "openapi", schema(value_type = UnitCounts))]
        units: UnitList,
        path: Vec<String>,
    },
    FireRocket {
        from: String,
        target: String,
    },
    FightBattle {
        territory: String,
        /// SA, SAAC, TAAC, KAAC or WI.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        combat: Option<String>,
        /// Unit codes, first lost first.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        order_of_loss: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retreat: Option<NamedRetreat>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retreat_to: Option<String>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bombing_raid: bool,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        bombard_from: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kamikaze_target: Option<String>,
        /// Guerrillas (AAP 3.1): stop firing, the battle ending with both sides in place,
        /// after round N (0: before the first die) or once N units or fewer are left.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blend_in: Option<NamedRetreat>,
    },
    RepairBattleship {
        sea_zone: String,
    },
    /// AAP 1i: the tokens' owner (Japan) strikes an enemy's ships in the kamikaze zones,
    /// every strike at once, after that enemy's combat move and before its first battle.
    KamikazeAttack {
        strikes: Vec<NamedStrike>,
    },
    /// AAP 8: fighters and bombers patrol over their place (`from`) or one next door
    /// (`over`) until their owner's next turn (non-combat move; combat move over a convoy).
    FlyPatrol {
        #[cfg_attr(feature = "openapi", schema(value_type = UnitCounts))]
        units: UnitList,
        from: String,
        over: String,
    },
    /// AAP 3.5: lend units standing in a place to another power for its turns; any time.
    Lend {
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "kmt"))]
        to: Power,
        territory: String,
        #[cfg_attr(feature = "openapi", schema(value_type = UnitCounts))]
        units: UnitList,
    },
    /// AAP 3.5: take back units lent to `from` that stand in a place; any time.
    Recall {
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "kmt"))]
        from: Power,
        territory: String,
        #[cfg_attr(feature = "openapi", schema(value_type = UnitCounts))]
        units: UnitList,
    },
    /// AAP 7.1-7.2: the power's submarines block these powers' ships, in one sea zone or
    /// (without `sea_zone`) in all; an empty `against` ends the order. In its own turn.
    BlockWithSubmarines {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sea_zone: Option<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
        against: Vec<Power>,
    },
    /// AAP 7.1 (iii): attack the enemy submarines in a sea zone where the power's destroyer
    /// stood when its turn began (combat move).
    AttackSubmarines {
        sea_zone: String,
    },
    AirDrop {
        bombers: u32,
        #[cfg_attr(feature = "openapi", schema(value_type = UnitCounts))]
        troops: UnitList,
        path: Vec<String>,
    },
    GoPassive,
    OfferAgreement {
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "germany"))]
        with: Power,
        /// At most 2,000 characters, in games created since the limit.
        #[cfg_attr(feature = "openapi", schema(max_length = 2000))]
        terms: String,
    },
    AcceptAgreement {
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        from: Power,
    },
    GrantPermission {
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        to: Power,
        /// enter, rail or ferry.
        permission: String,
    },
    RevokePermission {
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        to: Power,
        permission: String,
    },
    BreakAgreement {
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        with: Power,
    },
    /// War: roll every player's bases (the game's first order; any player).
    RollStartZones,
    /// War: roll the round's initiative (any player).
    RollInitiative,
    /// War: the player to the right rolls the active player's reinforcements (then
    /// `place`s them in zones no player holds, and may `move` up to 4 on an 11 or 16).
    RollReinforcements,
    /// War: $5 of infrastructure in a held zone.
    BuildInfrastructure {
        territory: String,
    },
    /// War, with the atomic bomb: $50, and every force in the zone is gone.
    DropAtomicBomb {
        territory: String,
    },
    /// War: the unit codes this power loses first in its battles, any time.
    SetOrderOfLoss {
        units: Vec<String>,
    },
    /// War: the attacks this power presses in each battle of its moves before it breaks
    /// off, 1 or more, any time; without `after`, until one side is gone.
    SetBreakOff {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<u32>,
    },
    /// A defender's standing battle orders, any time: for one territory or sea zone, or
    /// (without `territory`) for all its battles. Orders equal to the defaults clear them.
    SetStandingOrders {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        territory: Option<String>,
        /// Unit codes, first lost first.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        order_of_loss: Vec<String>,
        /// Defending submarines submerge when attacked (sea battles).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        submerge_subs: bool,
        /// `false`: battleships do not take the first hits as damage (default `true`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        battleships_absorb: Option<bool>,
        /// Defending submarines retreat to a safe zone next door before the first die
        /// (Cut-Throat): no battle pending there, no enemy units; with none, they stay.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        retreat_subs: bool,
        /// The sea zone they retreat to while it is safe (else the first safe one).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retreat_subs_to: Option<String>,
        /// Guerrillas (AAP 3.1): stop firing when attacked, the battle ending with both
        /// sides in place, after round N (0: before the first die) or once N units or
        /// fewer are left.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blend_in: Option<NamedRetreat>,
    },
    /// Standing orders as the log records them: sealed, their content secret until a
    /// battle follows them (without `sealed`: withheld, sent after an order that cut the
    /// command off, never decided). The server writes this form; a client sends
    /// `set_standing_orders`.
    SealedStandingOrders {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        territory: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sealed: Option<SealedOrders>,
    },
    /// War: aircraft raid another player's zone, 1d6 each off its cash.
    AirRaid {
        #[cfg_attr(feature = "openapi", schema(value_type = UnitCounts))]
        units: UnitList,
        path: Vec<String>,
    },
}

/// What is wrong with a name in an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameErrorKind {
    UnknownTerritory,
    UnknownUnit,
    /// Anything else: an empty unit list, an unknown combat order or permission.
    Malformed,
}

/// A name in an order that the ruleset does not know; `message` says what and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct NameError {
    pub kind: NameErrorKind,
    pub message: String,
}

/// Resolves names against one ruleset; `at` says where in the request (`orders[2]`).
struct Names<'a> {
    ruleset: &'a dyn RulesetNames,
    at: &'a str,
}

impl Names<'_> {
    fn error(&self, kind: NameErrorKind, message: String) -> NameError {
        NameError {
            kind,
            message: format!("{}: {message}", self.at),
        }
    }

    fn place(&self, name: &str) -> Result<TerritoryId, NameError> {
        self.ruleset.board().id(name).map_err(|_| {
            self.error(
                NameErrorKind::UnknownTerritory,
                format!(
                    "no territory or sea zone {name:?} on the {} board",
                    self.ruleset.id()
                ),
            )
        })
    }

    fn path(&self, names: &[String]) -> Result<Vec<TerritoryId>, NameError> {
        names.iter().map(|n| self.place(n)).collect()
    }

    fn unit(&self, code: &str) -> Result<UnitTypeId, NameError> {
        self.ruleset.catalogue().id(code).map_err(|_| {
            let codes: Vec<&str> = self
                .ruleset
                .catalogue()
                .units()
                .map(|(_, u)| u.code.as_str())
                .collect();
            self.error(
                NameErrorKind::UnknownUnit,
                format!(
                    "no unit {code:?} in {}; units: {}",
                    self.ruleset.id(),
                    codes.join(", ")
                ),
            )
        })
    }

    fn unit_codes(&self, codes: &[String]) -> Result<Vec<UnitTypeId>, NameError> {
        codes.iter().map(|c| self.unit(c)).collect()
    }

    fn units(&self, list: &UnitList) -> Result<Vec<(UnitTypeId, u32)>, NameError> {
        if list.is_empty() {
            return Err(self.error(
                NameErrorKind::Malformed,
                "name at least one unit".to_owned(),
            ));
        }
        list.iter()
            .map(|(code, n)| Ok((self.unit(code)?, n.get())))
            .collect()
    }

    fn permission(&self, name: &str) -> Result<Permission, NameError> {
        match name.to_ascii_lowercase().as_str() {
            "enter" => Ok(Permission::Enter),
            "rail" => Ok(Permission::Rail),
            "ferry" => Ok(Permission::Ferry),
            _ => Err(self.error(
                NameErrorKind::Malformed,
                format!("no permission {name:?}; permissions: enter, rail, ferry"),
            )),
        }
    }

    fn combat_order(&self, code: &str) -> Result<CombatOrder, NameError> {
        CombatOrder::from_code(code).ok_or_else(|| {
            self.error(
                NameErrorKind::Malformed,
                format!("no combat order {code:?}; orders: SA, SAAC, TAAC, KAAC, WI"),
            )
        })
    }
}

/// Names ids back: the board's spelling, the catalogue's codes.
struct Namer<'a>(&'a dyn RulesetNames);

impl Namer<'_> {
    fn place(&self, id: TerritoryId) -> String {
        self.0.board().get(id).name.clone()
    }

    fn path(&self, ids: &[TerritoryId]) -> Vec<String> {
        ids.iter().map(|id| self.place(*id)).collect()
    }

    fn unit(&self, id: UnitTypeId) -> String {
        self.0.catalogue().get(id).code.clone()
    }

    fn unit_codes(&self, ids: &[UnitTypeId]) -> Vec<String> {
        ids.iter().map(|id| self.unit(*id)).collect()
    }

    /// Counts of one kind named twice are added up, as the engine counts them.
    fn units(&self, units: &[(UnitTypeId, u32)]) -> UnitList {
        let mut list = UnitList::new();
        for (id, n) in units {
            let entry = list.entry(self.unit(*id)).or_insert(UnitCount(0));
            entry.0 = entry.0.saturating_add(*n);
        }
        list
    }
}

fn permission_name(permission: Permission) -> String {
    match permission {
        Permission::Enter => "enter",
        Permission::Rail => "rail",
        Permission::Ferry => "ferry",
    }
    .to_owned()
}

impl NamedOrder {
    /// The engine's order, every name resolved against `ruleset`.
    pub fn resolve(&self, ruleset: &dyn RulesetNames, at: &str) -> Result<Order, NameError> {
        let names = Names { ruleset, at };
        Ok(match self {
            NamedOrder::EndPhase => Order::EndPhase,
            NamedOrder::Purchase { units } => Order::Purchase(names.units(units)?),
            NamedOrder::Place { territory, units } => Order::Place {
                territory: names.place(territory)?,
                units: names.units(units)?,
            },
            NamedOrder::ApplyForWarLoan => Order::ApplyForWarLoan,
            NamedOrder::ExpandComplex { territory } => Order::ExpandComplex {
                territory: names.place(territory)?,
            },
            NamedOrder::SuppressGuerrillas { territory } => Order::SuppressGuerrillas {
                territory: names.place(territory)?,
            },
            NamedOrder::AvoidCombat { territory } => Order::AvoidCombat {
                territory: names.place(territory)?,
            },
            NamedOrder::RepayWarLoan { amount } => Order::RepayWarLoan(*amount),
            NamedOrder::FlyPatrol { units, from, over } => Order::FlyPatrol {
                units: names.units(units)?,
                from: names.place(from)?,
                over: names.place(over)?,
            },
            NamedOrder::Lend {
                to,
                territory,
                units,
            } => Order::Lend {
                to: *to,
                territory: names.place(territory)?,
                units: names.units(units)?,
            },
            NamedOrder::Recall {
                from,
                territory,
                units,
            } => Order::Recall {
                from: *from,
                territory: names.place(territory)?,
                units: names.units(units)?,
            },
            NamedOrder::BlockWithSubmarines { sea_zone, against } => Order::BlockWithSubmarines {
                sea_zone: sea_zone.as_deref().map(|t| names.place(t)).transpose()?,
                against: against.clone(),
            },
            NamedOrder::AttackSubmarines { sea_zone } => Order::AttackSubmarines {
                sea_zone: names.place(sea_zone)?,
            },
            NamedOrder::DevelopWeapons { dice } => Order::DevelopWeapons(*dice),
            NamedOrder::Move { units, path } => Order::Move {
                units: names.units(units)?,
                path: names.path(path)?,
            },
            NamedOrder::Rail { units, path } => Order::Rail {
                units: names.units(units)?,
                path: names.path(path)?,
            },
            NamedOrder::FireRocket { from, target } => Order::FireRocket {
                from: names.place(from)?,
                target: names.place(target)?,
            },
            NamedOrder::FightBattle { .. } => self.resolve_battle(&names)?,
            NamedOrder::RepairBattleship { sea_zone } => Order::RepairBattleship {
                sea_zone: names.place(sea_zone)?,
            },
            NamedOrder::KamikazeAttack { strikes } => Order::KamikazeAttack {
                strikes: strikes
                    .iter()
                    .map(|s| {
                        Ok(KamikazeStrike {
                            sea_zone: names.place(&s.sea_zone)?,
                            unit: names.unit(&s.unit)?,
                            tokens: s.tokens,
                        })
                    })
                    .collect::<Result<_, NameError>>()?,
            },
            NamedOrder::AirDrop {
                bombers,
                troops,
                path,
            } => Order::AirDrop {
                bombers: *bombers,
                troops: names.units(troops)?,
                path: names.path(path)?,
            },
            NamedOrder::GoPassive => Order::GoPassive,
            NamedOrder::OfferAgreement { with, terms } => Order::OfferAgreement {
                with: *with,
                terms: terms.clone(),
            },
            NamedOrder::AcceptAgreement { from } => Order::AcceptAgreement { from: *from },
            NamedOrder::GrantPermission { to, permission } => Order::GrantPermission {
                to: *to,
                permission: names.permission(permission)?,
            },
            NamedOrder::RevokePermission { to, permission } => Order::RevokePermission {
                to: *to,
                permission: names.permission(permission)?,
            },
            NamedOrder::BreakAgreement { with } => Order::BreakAgreement { with: *with },
            NamedOrder::RollStartZones => Order::RollStartZones,
            NamedOrder::RollInitiative => Order::RollInitiative,
            NamedOrder::RollReinforcements => Order::RollReinforcements,
            NamedOrder::BuildInfrastructure { territory } => Order::BuildInfrastructure {
                territory: names.place(territory)?,
            },
            NamedOrder::DropAtomicBomb { territory } => Order::DropAtomicBomb {
                territory: names.place(territory)?,
            },
            NamedOrder::SetOrderOfLoss { units } => Order::SetOrderOfLoss(names.unit_codes(units)?),
            NamedOrder::SetBreakOff { after } => Order::SetBreakOff(*after),
            NamedOrder::AirRaid { units, path } => Order::AirRaid {
                units: names.units(units)?,
                path: names.path(path)?,
            },
            NamedOrder::SealedStandingOrders { territory, sealed } => Order::SealedStandingOrders {
                territory: territory.as_deref().map(|t| names.place(t)).transpose()?,
                sealed: sealed.clone(),
            },
            NamedOrder::SetStandingOrders { .. } => self.resolve_standing_orders(&names)?,
        })
    }

    /// A battle's orders, resolved.
    fn resolve_battle(&self, names: &Names<'_>) -> Result<Order, NameError> {
        let NamedOrder::FightBattle {
            territory,
            combat,
            order_of_loss,
            retreat,
            retreat_to,
            bombing_raid,
            bombard_from,
            kamikaze_target,
            blend_in,
        } = self
        else {
            unreachable!("only battles come here");
        };
        Ok(Order::FightBattle(BattleOrders {
            territory: names.place(territory)?,
            combat: combat
                .as_deref()
                .map(|c| names.combat_order(c))
                .transpose()?,
            order_of_loss: names.unit_codes(order_of_loss)?,
            retreat: retreat.map(NamedRetreat::resolved),
            retreat_to: retreat_to.as_deref().map(|t| names.place(t)).transpose()?,
            bombing_raid: *bombing_raid,
            bombard_from: names.path(bombard_from)?,
            kamikaze_target: kamikaze_target
                .as_deref()
                .map(|c| names.unit(c))
                .transpose()?,
            blend_in: blend_in.map(NamedRetreat::resolved),
        }))
    }

    /// Standing orders, resolved.
    fn resolve_standing_orders(&self, names: &Names<'_>) -> Result<Order, NameError> {
        let NamedOrder::SetStandingOrders {
            territory,
            order_of_loss,
            submerge_subs,
            battleships_absorb,
            retreat_subs,
            retreat_subs_to,
            blend_in,
        } = self
        else {
            unreachable!("only standing orders come here");
        };
        Ok(Order::SetStandingOrders {
            territory: territory.as_deref().map(|t| names.place(t)).transpose()?,
            orders: StandingOrders {
                order_of_loss: names.unit_codes(order_of_loss)?,
                submerge_subs: *submerge_subs,
                battleships_absorb: battleships_absorb.unwrap_or(true),
                retreat_subs: *retreat_subs,
                retreat_subs_to: retreat_subs_to
                    .as_deref()
                    .map(|t| names.place(t))
                    .transpose()?,
                blend_in: blend_in.map(NamedRetreat::resolved),
            },
        })
    }

    /// An engine order named with `ruleset`'s names. Its ids must be on that board and in
    /// that catalogue (as every resolved order's are).
    pub fn of(order: &Order, ruleset: &dyn RulesetNames) -> NamedOrder {
        let n = Namer(ruleset);
        match order {
            Order::EndPhase => NamedOrder::EndPhase,
            Order::Purchase(units) => NamedOrder::Purchase {
                units: n.units(units),
            },
            Order::Place { territory, units } => NamedOrder::Place {
                territory: n.place(*territory),
                units: n.units(units),
            },
            Order::ApplyForWarLoan => NamedOrder::ApplyForWarLoan,
            Order::ExpandComplex { territory } => NamedOrder::ExpandComplex {
                territory: n.place(*territory),
            },
            Order::RepayWarLoan(amount) => NamedOrder::RepayWarLoan { amount: *amount },
            Order::DevelopWeapons(dice) => NamedOrder::DevelopWeapons { dice: *dice },
            Order::Move { units, path } => NamedOrder::Move {
                units: n.units(units),
                path: n.path(path),
            },
            Order::Rail { units, path } => NamedOrder::Rail {
                units: n.units(units),
                path: n.path(path),
            },
            Order::FireRocket { from, target } => NamedOrder::FireRocket {
                from: n.place(*from),
                target: n.place(*target),
            },
            Order::FightBattle(orders) => NamedOrder::FightBattle {
                territory: n.place(orders.territory),
                combat: orders.combat.map(|c| c.code().to_owned()),
                order_of_loss: n.unit_codes(&orders.order_of_loss),
                retreat: orders.retreat.map(NamedRetreat::of),
                retreat_to: orders.retreat_to.map(|t| n.place(t)),
                bombing_raid: orders.bombing_raid,
                bombard_from: n.path(&orders.bombard_from),
                kamikaze_target: orders.kamikaze_target.map(|u| n.unit(u)),
                blend_in: orders.blend_in.map(NamedRetreat::of),
            },
            Order::SuppressGuerrillas { territory } => NamedOrder::SuppressGuerrillas {
                territory: n.place(*territory),
            },
            Order::AvoidCombat { territory } => NamedOrder::AvoidCombat {
                territory: n.place(*territory),
            },
            Order::RepairBattleship { sea_zone } => NamedOrder::RepairBattleship {
                sea_zone: n.place(*sea_zone),
            },
            Order::KamikazeAttack { strikes } => NamedOrder::KamikazeAttack {
                strikes: strikes
                    .iter()
                    .map(|s| NamedStrike {
                        sea_zone: n.place(s.sea_zone),
                        unit: n.unit(s.unit),
                        tokens: s.tokens,
                    })
                    .collect(),
            },
            Order::AirDrop {
                bombers,
                troops,
                path,
            } => NamedOrder::AirDrop {
                bombers: *bombers,
                troops: n.units(troops),
                path: n.path(path),
            },
            Order::GoPassive => NamedOrder::GoPassive,
            Order::FlyPatrol { units, from, over } => NamedOrder::FlyPatrol {
                units: n.units(units),
                from: n.place(*from),
                over: n.place(*over),
            },
            Order::Lend {
                to,
                territory,
                units,
            } => NamedOrder::Lend {
                to: *to,
                territory: n.place(*territory),
                units: n.units(units),
            },
            Order::Recall {
                from,
                territory,
                units,
            } => NamedOrder::Recall {
                from: *from,
                territory: n.place(*territory),
                units: n.units(units),
            },
            Order::BlockWithSubmarines { sea_zone, against } => NamedOrder::BlockWithSubmarines {
                sea_zone: sea_zone.map(|t| n.place(t)),
                against: against.clone(),
            },
            Order::AttackSubmarines { sea_zone } => NamedOrder::AttackSubmarines {
                sea_zone: n.place(*sea_zone),
            },
            Order::OfferAgreement { with, terms } => NamedOrder::OfferAgreement {
                with: *with,
                terms: terms.clone(),
            },
            Order::AcceptAgreement { from } => NamedOrder::AcceptAgreement { from: *from },
            Order::GrantPermission { to, permission } => NamedOrder::GrantPermission {
                to: *to,
                permission: permission_name(*permission),
            },
            Order::RevokePermission { to, permission } => NamedOrder::RevokePermission {
                to: *to,
                permission: permission_name(*permission),
            },
            Order::BreakAgreement { with } => NamedOrder::BreakAgreement { with: *with },
            Order::RollStartZones => NamedOrder::RollStartZones,
            Order::RollInitiative => NamedOrder::RollInitiative,
            Order::RollReinforcements => NamedOrder::RollReinforcements,
            Order::BuildInfrastructure { territory } => NamedOrder::BuildInfrastructure {
                territory: n.place(*territory),
            },
            Order::DropAtomicBomb { territory } => NamedOrder::DropAtomicBomb {
                territory: n.place(*territory),
            },
            Order::AirRaid { units, path } => NamedOrder::AirRaid {
                units: n.units(units),
                path: n.path(path),
            },
            Order::SetOrderOfLoss(units) => NamedOrder::SetOrderOfLoss {
                units: n.unit_codes(units),
            },
            Order::SetBreakOff(after) => NamedOrder::SetBreakOff { after: *after },
            Order::SealedStandingOrders { territory, sealed } => NamedOrder::SealedStandingOrders {
                territory: territory.map(|t| n.place(t)),
                sealed: sealed.clone(),
            },
            Order::SetStandingOrders { territory, orders } => NamedOrder::SetStandingOrders {
                territory: territory.map(|t| n.place(t)),
                order_of_loss: n.unit_codes(&orders.order_of_loss),
                submerge_subs: orders.submerge_subs,
                battleships_absorb: (!orders.battleships_absorb).then_some(false),
                retreat_subs: orders.retreat_subs,
                retreat_subs_to: orders.retreat_subs_to.map(|t| n.place(t)),
                blend_in: orders.blend_in.map(NamedRetreat::of),
            },
        }
    }

    /// An order as a client sends it, resolved and named back: the board's spelling and
    /// the catalogue's codes. The sealed form of standing orders is the record's, written
    /// by the server alone: a client sends `set_standing_orders` (refused before anything
    /// is decided, so the refusal depends on nothing rolled).
    pub fn normalised(
        &self,
        ruleset: &dyn RulesetNames,
        at: &str,
    ) -> Result<NamedOrder, NameError> {
        if let NamedOrder::SealedStandingOrders { .. } = self {
            return Err(NameError {
                kind: NameErrorKind::Malformed,
                message: format!(
                    "{at}: sealed_standing_orders is how the record keeps standing orders, \
                     written by the server: send set_standing_orders"
                ),
            });
        }
        Ok(NamedOrder::of(&self.resolve(ruleset, at)?, ruleset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ruleset::Ruleset;

    fn ruleset() -> &'static Ruleset {
        Ruleset::builtin("cutthroat").expect("ruleset")
    }

    fn parse(json: serde_json::Value) -> Result<NamedOrder, String> {
        serde_json::from_value(json).map_err(|e| e.to_string())
    }

    #[test]
    fn a_move_by_names_resolves_to_the_boards_ids() {
        let input = parse(serde_json::json!({
            "type": "move", "units": {"INF": 2}, "path": ["Germany", "East Europe"]
        }))
        .expect("parses");
        let Order::Move { units, path } = input.resolve(ruleset(), "orders[0]").expect("resolves")
        else {
            panic!("a move");
        };
        assert_eq!(
            units,
            vec![(ruleset().catalogue.id("INF").expect("INF"), 2)]
        );
        assert_eq!(path.len(), 2);
    }

    #[test]
    fn zero_negative_and_huge_counts_do_not_parse() {
        for count in [0i64, -3, 1000, 5_000_000_000] {
            let error = parse(serde_json::json!({"type": "purchase", "units": {"INF": count}}))
                .expect_err("refused");
            assert!(error.contains("a unit count is 1 to 999"), "{error}");
        }
    }

    #[test]
    fn unknown_names_are_refused_with_what_and_where() {
        let order = parse(serde_json::json!({
            "type": "move", "units": {"ZEPPELIN": 1}, "path": ["Germany", "East Europe"]
        }))
        .expect("parses");
        let error = order.resolve(ruleset(), "orders[3]").expect_err("unknown");
        assert_eq!(error.kind, NameErrorKind::UnknownUnit);
        assert!(
            error.message.starts_with("orders[3]: no unit \"ZEPPELIN\""),
            "{}",
            error.message
        );
        let order = parse(serde_json::json!({
            "type": "place", "units": {"INF": 1}, "territory": "Atlantis"
        }))
        .expect("parses");
        let error = order.resolve(ruleset(), "orders[0]").expect_err("unknown");
        assert_eq!(error.kind, NameErrorKind::UnknownTerritory);
    }

    #[test]
    fn a_normalised_order_carries_the_boards_spelling_and_reads_back_the_same() {
        let sent = parse(serde_json::json!({
            "type": "fight_battle", "territory": "east europe", "combat": "saac",
            "order_of_loss": ["inf", "arm"], "retreat": {"after_round": 2}
        }))
        .expect("parses");
        let normal = sent.normalised(ruleset(), "orders[0]").expect("resolves");
        let json = serde_json::to_value(&normal).expect("encodes");
        assert_eq!(
            json,
            serde_json::json!({
                "type": "fight_battle", "territory": "East Europe", "combat": "SAAC",
                "order_of_loss": ["INF", "ARM"], "retreat": {"after_round": 2}
            })
        );
        assert_eq!(parse(json).expect("reads back"), normal);
        assert_eq!(
            normal.resolve(ruleset(), "x").expect("resolves"),
            sent.resolve(ruleset(), "x").expect("resolves")
        );
    }
}
