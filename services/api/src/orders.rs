//! Orders as clients write them, with the board's names and the units' codes, parsed at the
//! edge into the rules engine's [`Order`]s. An unknown name is refused with what it was
//! and where; counts are [`UnitCount`]s, so zero, negative or absurd counts never get in.

use std::collections::BTreeMap;

use serde::Deserialize;
use utoipa::ToSchema;
use warlog_rules::battle::{CombatOrder, RetreatOrder};
use warlog_rules::board::{Power, TerritoryId};
use warlog_rules::game::combat::BattleOrders;
use warlog_rules::game::{Order, Permission};
use warlog_rules::ruleset::Ruleset;
use warlog_rules::units::UnitTypeId;

use crate::error::{ApiError, ErrorCode};

/// How many units of a kind an order names: 1 to 999.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "i64")]
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

/// Units by code, e.g. `{"INF": 3, "ARM": 1}`.
pub type UnitList = BTreeMap<String, UnitCount>;

/// When the attacker withdraws.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum RetreatInput {
    AfterRound(u32),
    WhenAtMost(u32),
}

/// One order. Territories and sea zones by their board names (as `GET /v1/rulesets/{id}`
/// lists them), units by code.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum OrderInput {
    /// Finish the current phase.
    EndPhase,
    Purchase {
        #[schema(value_type = Object, example = json!({"INF": 3, "ARM": 1}))]
        units: UnitList,
    },
    Place {
        territory: String,
        #[schema(value_type = Object)]
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
        #[schema(value_type = Object)]
        units: UnitList,
        /// Where the units stand, then each place they move through.
        path: Vec<String>,
    },
    Rail {
        #[schema(value_type = Object)]
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
        #[serde(default)]
        combat: Option<String>,
        /// Unit codes, first lost first.
        #[serde(default)]
        order_of_loss: Vec<String>,
        #[serde(default)]
        retreat: Option<RetreatInput>,
        #[serde(default)]
        retreat_to: Option<String>,
        #[serde(default)]
        bombing_raid: bool,
        #[serde(default)]
        bombard_from: Vec<String>,
        #[serde(default)]
        kamikaze_target: Option<String>,
    },
    RepairBattleship {
        sea_zone: String,
    },
    AirDrop {
        bombers: u32,
        #[schema(value_type = Object)]
        troops: UnitList,
        path: Vec<String>,
    },
    GoPassive,
    OfferAgreement {
        #[schema(value_type = String, example = "germany")]
        with: Power,
        terms: String,
    },
    AcceptAgreement {
        #[schema(value_type = String)]
        from: Power,
    },
    GrantPermission {
        #[schema(value_type = String)]
        to: Power,
        /// enter, rail or ferry.
        permission: String,
    },
    RevokePermission {
        #[schema(value_type = String)]
        to: Power,
        permission: String,
    },
    BreakAgreement {
        #[schema(value_type = String)]
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
    /// War: aircraft raid another player's zone, 1d6 each off its cash.
    AirRaid {
        #[schema(value_type = Object)]
        units: UnitList,
        path: Vec<String>,
    },
}

/// Resolves names against one ruleset; `at` says where in the request (`orders[2]`).
struct Names<'a> {
    ruleset: &'a Ruleset,
    at: &'a str,
}

impl Names<'_> {
    fn place(&self, name: &str) -> Result<TerritoryId, ApiError> {
        self.ruleset.board.id(name).map_err(|_| {
            ApiError::new(
                ErrorCode::UnknownTerritory,
                format!(
                    "{}: no territory or sea zone {name:?} on the {} board",
                    self.at, self.ruleset.id
                ),
            )
        })
    }

    fn path(&self, names: &[String]) -> Result<Vec<TerritoryId>, ApiError> {
        names.iter().map(|n| self.place(n)).collect()
    }

    fn unit(&self, code: &str) -> Result<UnitTypeId, ApiError> {
        self.ruleset.catalogue.id(code).map_err(|_| {
            let codes: Vec<&str> = self
                .ruleset
                .catalogue
                .units()
                .map(|(_, u)| u.code.as_str())
                .collect();
            ApiError::new(
                ErrorCode::UnknownUnit,
                format!(
                    "{}: no unit {code:?} in {}; units: {}",
                    self.at,
                    self.ruleset.id,
                    codes.join(", ")
                ),
            )
        })
    }

    fn units(&self, list: &UnitList) -> Result<Vec<(UnitTypeId, u32)>, ApiError> {
        if list.is_empty() {
            return Err(ApiError::malformed(format!(
                "{}: name at least one unit",
                self.at
            )));
        }
        list.iter()
            .map(|(code, n)| Ok((self.unit(code)?, n.get())))
            .collect()
    }

    fn permission(&self, name: &str) -> Result<Permission, ApiError> {
        match name.to_ascii_lowercase().as_str() {
            "enter" => Ok(Permission::Enter),
            "rail" => Ok(Permission::Rail),
            "ferry" => Ok(Permission::Ferry),
            _ => Err(ApiError::malformed(format!(
                "{}: no permission {name:?}; permissions: enter, rail, ferry",
                self.at
            ))),
        }
    }

    fn combat_order(&self, code: &str) -> Result<CombatOrder, ApiError> {
        CombatOrder::from_code(code).ok_or_else(|| {
            ApiError::malformed(format!(
                "{}: no combat order {code:?}; orders: SA, SAAC, TAAC, KAAC, WI",
                self.at
            ))
        })
    }
}

impl OrderInput {
    /// The engine's order, every name resolved against `ruleset`.
    pub fn resolve(&self, ruleset: &Ruleset, at: &str) -> Result<Order, ApiError> {
        let names = Names { ruleset, at };
        Ok(match self {
            OrderInput::EndPhase => Order::EndPhase,
            OrderInput::Purchase { units } => Order::Purchase(names.units(units)?),
            OrderInput::Place { territory, units } => Order::Place {
                territory: names.place(territory)?,
                units: names.units(units)?,
            },
            OrderInput::ApplyForWarLoan => Order::ApplyForWarLoan,
            OrderInput::ExpandComplex { territory } => Order::ExpandComplex {
                territory: names.place(territory)?,
            },
            OrderInput::SuppressGuerrillas { territory } => Order::SuppressGuerrillas {
                territory: names.place(territory)?,
            },
            OrderInput::AvoidCombat { territory } => Order::AvoidCombat {
                territory: names.place(territory)?,
            },
            OrderInput::RepayWarLoan { amount } => Order::RepayWarLoan(*amount),
            OrderInput::DevelopWeapons { dice } => Order::DevelopWeapons(*dice),
            OrderInput::Move { units, path } => Order::Move {
                units: names.units(units)?,
                path: names.path(path)?,
            },
            OrderInput::Rail { units, path } => Order::Rail {
                units: names.units(units)?,
                path: names.path(path)?,
            },
            OrderInput::FireRocket { from, target } => Order::FireRocket {
                from: names.place(from)?,
                target: names.place(target)?,
            },
            OrderInput::FightBattle {
                territory,
                combat,
                order_of_loss,
                retreat,
                retreat_to,
                bombing_raid,
                bombard_from,
                kamikaze_target,
            } => Order::FightBattle(BattleOrders {
                territory: names.place(territory)?,
                combat: combat
                    .as_deref()
                    .map(|c| names.combat_order(c))
                    .transpose()?,
                order_of_loss: order_of_loss
                    .iter()
                    .map(|c| names.unit(c))
                    .collect::<Result<_, _>>()?,
                retreat: retreat.map(|r| match r {
                    RetreatInput::AfterRound(n) => RetreatOrder::AfterRound(n),
                    RetreatInput::WhenAtMost(n) => RetreatOrder::WhenAtMost(n),
                }),
                retreat_to: retreat_to.as_deref().map(|t| names.place(t)).transpose()?,
                bombing_raid: *bombing_raid,
                bombard_from: names.path(bombard_from)?,
                kamikaze_target: kamikaze_target
                    .as_deref()
                    .map(|c| names.unit(c))
                    .transpose()?,
            }),
            OrderInput::RepairBattleship { sea_zone } => Order::RepairBattleship {
                sea_zone: names.place(sea_zone)?,
            },
            OrderInput::AirDrop {
                bombers,
                troops,
                path,
            } => Order::AirDrop {
                bombers: *bombers,
                troops: names.units(troops)?,
                path: names.path(path)?,
            },
            OrderInput::GoPassive => Order::GoPassive,
            OrderInput::OfferAgreement { with, terms } => Order::OfferAgreement {
                with: *with,
                terms: terms.clone(),
            },
            OrderInput::AcceptAgreement { from } => Order::AcceptAgreement { from: *from },
            OrderInput::GrantPermission { to, permission } => Order::GrantPermission {
                to: *to,
                permission: names.permission(permission)?,
            },
            OrderInput::RevokePermission { to, permission } => Order::RevokePermission {
                to: *to,
                permission: names.permission(permission)?,
            },
            OrderInput::BreakAgreement { with } => Order::BreakAgreement { with: *with },
            OrderInput::RollStartZones => Order::RollStartZones,
            OrderInput::RollInitiative => Order::RollInitiative,
            OrderInput::RollReinforcements => Order::RollReinforcements,
            OrderInput::BuildInfrastructure { territory } => Order::BuildInfrastructure {
                territory: names.place(territory)?,
            },
            OrderInput::DropAtomicBomb { territory } => Order::DropAtomicBomb {
                territory: names.place(territory)?,
            },
            OrderInput::SetOrderOfLoss { units } => Order::SetOrderOfLoss(
                units
                    .iter()
                    .map(|code| names.unit(code))
                    .collect::<Result<_, _>>()?,
            ),
            OrderInput::AirRaid { units, path } => Order::AirRaid {
                units: names.units(units)?,
                path: names.path(path)?,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ruleset() -> &'static Ruleset {
        Ruleset::builtin("cutthroat").expect("ruleset")
    }

    fn parse(json: serde_json::Value) -> Result<OrderInput, String> {
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
        assert_eq!(error.code, ErrorCode::UnknownUnit);
        assert!(
            error.detail.starts_with("orders[3]: no unit \"ZEPPELIN\""),
            "{}",
            error.detail
        );
        let order = parse(serde_json::json!({
            "type": "place", "units": {"INF": 1}, "territory": "Atlantis"
        }))
        .expect("parses");
        let error = order.resolve(ruleset(), "orders[0]").expect_err("unknown");
        assert_eq!(error.code, ErrorCode::UnknownTerritory);
    }
}
