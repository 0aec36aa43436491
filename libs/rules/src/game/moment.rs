//! What may be done now (issue 33): a game's moment as a player reads it. Whose turn, the
//! phase and the phases left in the turn, the kinds of order the engine would take now,
//! the money, the units bought and where they may go, the units that may still move and
//! how far, the battles to fight, and until when the game waits before a substitute may
//! take the seat. From the rules and the state alone: no clock, no dice.
//!
//! Whether a kind of order is allowed is asked of the engine itself wherever a small
//! example of the order says it (ending the phase, a war loan, one research die, one unit
//! bought, a repair in each zone with a damaged ship): [`decide`] is called on the example
//! and its events are dropped. The engine refuses before it rolls (docs/architecture.md,
//! "A die once rolled counts"), so the answer never depends on the dice given here. Orders
//! that need a path are judged from what they need: units that may move, battles declared,
//! units bought. So a kind listed may still be refused for its particulars (a path too
//! long, a place without a complex), but a kind left out would be refused whatever it said.

use std::collections::BTreeSet;

pub use super::may_move::{MayMove, Reach};
pub use super::order::OrderKind;
use super::seats::TurnWaiting;
use super::{decide, home_cooked, GameState, Moment, Order, Permission, Phase, Rules};
use crate::board::{Power, TerritoryId};
use crate::dice::{DiceSource, Die};
use crate::document::CutThroatRule;
use crate::units::{Ability, Domain, UnitTypeId};

/// A game's moment: what the game waits for and what may be ordered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Now {
    pub round: u32,
    /// The game has ended or was voided: nothing may be ordered, and the rest is empty.
    pub over: bool,
    /// Whose order the game waits for (`GameState::to_act`).
    pub to_act: Option<Power>,
    /// War's start zones and initiative: any seated player may roll, not only `to_act`.
    pub any_seated: bool,
    pub phase: Option<Phase>,
    /// The phases of this turn after this one, in order.
    pub phases_left: Vec<Phase>,
    /// What `to_act` may order now, in this phase.
    pub orders: Vec<OrderKind>,
    /// What any power may order now, whoever's turn it is (diplomacy, standing orders, a
    /// guerrilla's refusal of battle, War's order of loss).
    pub any_power: Vec<OrderKind>,
    /// The money of the power to act.
    pub money: Option<Money>,
    /// Units bought (War: reinforcements rolled) and not yet placed, and where.
    pub to_place: Vec<ToPlace>,
    /// In the movement phases: the power to act's units that may still move, and how far.
    pub may_move: Vec<MayMove>,
    /// Battles declared and still to fight (`GameState::battles_to_fight`).
    pub battles: Vec<TerritoryId>,
    /// When the player to act has been idle for the game's limit (3 days after the game
    /// last moved on): after it, the director may seat a substitute.
    pub substitute_after: Option<Moment>,
}

/// A power's money as the moment stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Money {
    pub treasury: u32,
    /// The printed values of the places it holds.
    pub ipc_count: u32,
    /// What its next collection would pay, the board as it stands now: at the end of this
    /// turn, or, where income comes at the beginning of a turn (Enhanced Realism), at the
    /// beginning of this one while its repairs phase is on, else of its next.
    pub income: u32,
}

/// Units of one type still to place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToPlace {
    pub unit: UnitTypeId,
    pub count: u32,
    /// Where they may be placed as the board stands (land at complexes with room, ships
    /// beside them, a new complex on land held since the turn began); empty where the
    /// engine cannot say it cheaply (War's reinforcements).
    pub at: Vec<TerritoryId>,
}

/// Dice for trying an order: 1 to 6 in turn. Never what decides whether an order is
/// taken (the engine refuses before it rolls); cycling keeps any roll-off short.
#[derive(Debug, Default)]
struct Trial(u8);

impl DiceSource for Trial {
    fn roll(&mut self) -> Die {
        self.0 = self.0 % 6 + 1;
        Die::try_from(self.0).unwrap_or_else(|_| unreachable!("1 to 6"))
    }
}

/// Whether the engine takes `order` from `by` now.
fn accepts(rules: Rules<'_>, state: &GameState, by: Power, order: &Order) -> bool {
    decide(
        rules,
        state,
        by,
        order,
        Moment::default(),
        &mut Trial::default(),
    )
    .is_ok()
}

impl Now {
    /// The moment of `state`.
    pub fn of(rules: Rules<'_>, state: &GameState) -> Now {
        if state.ended.is_some() || state.voided.is_some() {
            return Now {
                round: state.round,
                over: true,
                to_act: None,
                any_seated: false,
                phase: None,
                phases_left: Vec::new(),
                orders: Vec::new(),
                any_power: Vec::new(),
                money: None,
                to_place: Vec::new(),
                may_move: Vec::new(),
                battles: Vec::new(),
                substitute_after: None,
            };
        }
        let power = state.to_act(rules);
        let war = rules.special.war.is_some();
        let may_move = if war {
            home_cooked::may_move(rules, state, power)
        } else {
            may_move(rules, state, power)
        };
        let (orders, any_power) = if war {
            (
                home_cooked::orders_now(rules, state, &may_move),
                vec![OrderKind::SetOrderOfLoss, OrderKind::SetBreakOff],
            )
        } else {
            (
                orders(rules, state, power, &may_move),
                any_power(rules, state),
            )
        };
        let income = if war {
            home_cooked::income(rules, state, power)
        } else {
            super::economy::next_income(rules, state, power)
        };
        Now {
            round: state.round,
            over: false,
            to_act: Some(power),
            any_seated: war && matches!(state.phase, Phase::StartZones | Phase::Initiative),
            phase: Some(state.phase),
            phases_left: phases_left(war, state.phase),
            orders,
            any_power,
            money: Some(Money {
                treasury: state.treasury.get(&power).copied().unwrap_or(0),
                ipc_count: state.ipc_count(rules.board, power),
                income,
            }),
            to_place: to_place(rules, state, power),
            may_move,
            battles: if war {
                Vec::new()
            } else {
                state.battles_to_fight(rules, power)
            },
            substitute_after: state
                .last_progress_at
                .filter(|_| state.seats.contains_key(&power))
                .map(TurnWaiting::substitute_after),
        }
    }
}

/// The phases after `phase` in the turn: the Classic eight, or War's reinforcements,
/// spending and movement (its start zones and initiative are steps of the game and the
/// round, not of a turn).
fn phases_left(war: bool, phase: Phase) -> Vec<Phase> {
    let turn: &[Phase] = if war {
        &[Phase::Reinforcements, Phase::Purchase, Phase::CombatMove]
    } else {
        &Phase::ALL
    };
    match turn.iter().position(|p| *p == phase) {
        Some(i) => turn[i + 1..].to_vec(),
        None => Vec::new(),
    }
}

/// The Classic engine's orders for `power` in this phase.
fn orders(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    may_move: &[MayMove],
) -> Vec<OrderKind> {
    let accepts = |order: Order| accepts(rules, state, power, &order);
    // Passive: nothing but ending its phases (the engine says so for the examples below;
    // the kinds judged by their needs are held back here).
    let active = !state.passive.contains(&power);
    let mut kinds = Vec::new();
    let mut allow = |kind: OrderKind, allowed: bool| {
        if allowed {
            kinds.push(kind);
        }
    };
    match state.phase {
        Phase::Repairs => {
            allow(OrderKind::ApplyForWarLoan, accepts(Order::ApplyForWarLoan));
            let repairable = rules.board.territories().any(|(zone, place)| {
                place.sea
                    && state.forces[zone.index()]
                        .keys()
                        .any(|(owner, unit, damage)| {
                            *owner == power
                                && *damage > 0
                                && rules.catalogue.get(*unit).hit_points > 1
                        })
                    && accepts(Order::RepairBattleship { sea_zone: zone })
            });
            allow(OrderKind::RepairBattleship, repairable);
        }
        Phase::WeaponsDevelopment => {
            allow(OrderKind::ApplyForWarLoan, accepts(Order::ApplyForWarLoan));
            allow(OrderKind::DevelopWeapons, accepts(Order::DevelopWeapons(1)));
        }
        Phase::Purchase => {
            let buys = rules
                .catalogue
                .units()
                .any(|(unit, _)| accepts(Order::Purchase(vec![(unit, 1)])));
            allow(OrderKind::Purchase, buys);
            let expands = rules.economy.production
                == crate::document::ProductionRule::IndustrialCapacity
                && rules.board.territories().any(|(t, _)| {
                    state.holder[t.index()] == Some(power)
                        && accepts(Order::ExpandComplex { territory: t })
                });
            allow(OrderKind::ExpandComplex, expands);
        }
        Phase::CombatMove | Phase::NonCombatMove => {
            allow(OrderKind::Move, active && !may_move.is_empty());
            let airborne = rules.board.territories().any(|(t, _)| {
                state.count_units(rules, t, power, |_, u| {
                    u.domain == crate::units::Domain::Air
                }) > 0
            });
            allow(
                OrderKind::FlyPatrol,
                active && rules.special.combat_air_patrol && airborne,
            );
            let hunts = state
                .destroyers_at_turn_start
                .iter()
                .any(|zone| accepts(Order::AttackSubmarines { sea_zone: *zone }));
            allow(OrderKind::AttackSubmarines, active && hunts);
            allow(OrderKind::Rail, active && may_rail(rules, state, power));
            allow(OrderKind::AirDrop, active && may_air_drop(rules, may_move));
        }
        Phase::Battles => {
            allow(
                OrderKind::FightBattle,
                active && !state.battles_to_fight(rules, power).is_empty(),
            );
            allow(
                OrderKind::FireRocket,
                active && may_fire_rocket(rules, state, power),
            );
        }
        Phase::Placement => {
            allow(
                OrderKind::Place,
                active
                    && state
                        .pending
                        .keys()
                        .any(|u| state.can_place(rules, power, *u)),
            );
        }
        _ => {}
    }
    if matches!(state.phase, Phase::CombatMove | Phase::Battles) {
        let suppresses = rules.board.territories().any(|(t, _)| {
            rules
                .special
                .guerrillas
                .iter()
                .any(|g| *g != power && state.count_units(rules, t, *g, |_, _| true) > 0)
                && accepts(Order::SuppressGuerrillas { territory: t })
        });
        allow(OrderKind::SuppressGuerrillas, suppresses);
    }
    allow(
        OrderKind::BlockWithSubmarines,
        active && rules.special.submarines_hidden,
    );
    allow(OrderKind::RepayWarLoan, accepts(Order::RepayWarLoan(1)));
    allow(OrderKind::GoPassive, accepts(Order::GoPassive));
    allow(OrderKind::EndPhase, accepts(Order::EndPhase));
    kinds.sort();
    kinds
}

/// Rail: where the ruleset has it, while the capital is held, for infantry (3 a turn),
/// AA guns and a complex (one a turn) standing on land.
fn may_rail(rules: Rules<'_>, state: &GameState, power: Power) -> bool {
    if rules.special.without.contains(&CutThroatRule::Rail) || state.capital_lost(rules, power) {
        return false;
    }
    let infantry = rules.catalogue.infantry();
    rules.board.territories().any(|(t, place)| {
        !place.sea
            && state.forces[t.index()].keys().any(|(owner, unit, _)| {
                let profile = rules.catalogue.get(*unit);
                *owner == power
                    && ((Some(*unit) == infantry && state.railed_infantry < 3)
                        || profile.has(Ability::AntiAircraft)
                        || (profile.has(Ability::Factory) && !state.factory_railed))
            })
    })
}

/// Paratroopers: bombers and infantry that may both still move, on the same land.
fn may_air_drop(rules: Rules<'_>, may_move: &[MayMove]) -> bool {
    let (Some(bomber), Some(infantry)) = (rules.catalogue.bomber(), rules.catalogue.infantry())
    else {
        return false;
    };
    if rules.special.without.contains(&CutThroatRule::Paratroopers) {
        return false;
    }
    may_move.iter().any(|m| {
        m.unit == bomber
            && !rules.board.get(m.place).sea
            && may_move
                .iter()
                .any(|n| n.place == m.place && n.unit == infantry)
    })
}

/// Rockets: developed, combat allowed, and an AA gun that has not fired this turn.
fn may_fire_rocket(rules: Rules<'_>, state: &GameState, power: Power) -> bool {
    state.combat_allowed(rules)
        && state.has(power, super::Technology::Rockets)
        && rules.board.territories().any(|(t, _)| {
            let guns = state.count_units(rules, t, power, |_, u| u.has(Ability::AntiAircraft));
            guns > state.rockets_fired.get(&t).copied().unwrap_or(0)
        })
}

/// What any power may order now, whoever's turn it is, in the Classic engine: each kind
/// with the examples of it that could be given now, allowed if the engine takes one.
fn any_power(rules: Rules<'_>, state: &GameState) -> Vec<OrderKind> {
    let powers = rules.board.turn_order();
    let pairs = powers
        .iter()
        .flat_map(|by| powers.iter().map(move |with| (*by, *with)));
    let both_ways = state
        .agreements
        .keys()
        .flat_map(|(a, b)| [(*a, *b), (*b, *a)]);
    let permissions = [Permission::Enter, Permission::Rail, Permission::Ferry];
    let mut loans = Vec::new();
    for &(lender, borrower) in &rules.special.lending {
        for (territory, _) in rules.board.territories() {
            if let Some((_, unit, _)) = state.forces[territory.index()]
                .keys()
                .find(|(owner, _, _)| *owner == lender)
            {
                let units = vec![(*unit, 1)];
                let to = borrower;
                loans.push((
                    lender,
                    Order::Lend {
                        to,
                        territory,
                        units,
                    },
                ));
            }
        }
    }
    let recalls = state.lent.keys().filter_map(|(borrower, territory, unit)| {
        let lender = rules.special.lending.iter().find(|(_, b)| b == borrower)?.0;
        Some((
            lender,
            Order::Recall {
                from: *borrower,
                territory: *territory,
                units: vec![(*unit, 1)],
            },
        ))
    });
    // A strike of one token on each enemy ship a kamikaze zone holds.
    let kamikazes = rules.special.kamikaze.iter().flat_map(|k| {
        let against = state.power(rules.board);
        k.zones.iter().flat_map(move |zone| {
            k.targets
                .iter()
                .filter(move |unit| {
                    state.forces[zone.index()]
                        .keys()
                        .any(|(owner, u, _)| *owner == against && u == *unit)
                })
                .map(move |unit| {
                    let strikes = vec![super::kamikazes::KamikazeStrike {
                        sea_zone: *zone,
                        unit: *unit,
                        tokens: 1,
                    }];
                    (k.power, Order::KamikazeAttack { strikes })
                })
        })
    });
    let examples: [(OrderKind, Vec<(Power, Order)>); 9] = [
        (OrderKind::KamikazeAttack, kamikazes.collect()),
        (OrderKind::Lend, loans),
        (OrderKind::Recall, recalls.collect()),
        (
            OrderKind::OfferAgreement,
            pairs
                .map(|(by, with)| {
                    let terms = String::from("terms");
                    (by, Order::OfferAgreement { with, terms })
                })
                .collect(),
        ),
        (
            OrderKind::AcceptAgreement,
            state
                .offers
                .keys()
                .map(|(from, to)| (*to, Order::AcceptAgreement { from: *from }))
                .collect(),
        ),
        (
            OrderKind::GrantPermission,
            both_ways
                .flat_map(|(by, to)| {
                    permissions.map(|permission| (by, Order::GrantPermission { to, permission }))
                })
                .collect(),
        ),
        (
            OrderKind::RevokePermission,
            state
                .permissions
                .iter()
                .map(|(by, to, permission)| {
                    let (to, permission) = (*to, *permission);
                    (*by, Order::RevokePermission { to, permission })
                })
                .collect(),
        ),
        (
            OrderKind::BreakAgreement,
            state
                .agreements
                .keys()
                .map(|(a, b)| (*a, Order::BreakAgreement { with: *b }))
                .collect(),
        ),
        (
            OrderKind::AvoidCombat,
            state
                .contested
                .keys()
                .flat_map(|t| {
                    let territory = *t;
                    rules
                        .special
                        .guerrillas
                        .iter()
                        .map(move |g| (*g, Order::AvoidCombat { territory }))
                })
                .collect(),
        ),
    ];
    let mut kinds: Vec<OrderKind> = examples
        .into_iter()
        .filter(|(_, tried)| {
            tried
                .iter()
                .any(|(by, order)| accepts(rules, state, *by, order))
        })
        .map(|(kind, _)| kind)
        .collect();
    // Checked for its place and units only: any power, any time.
    kinds.push(OrderKind::SetStandingOrders);
    kinds.sort();
    kinds
}

/// Units bought and not placed, with where they may go; War's reinforcements rolled.
fn to_place(rules: Rules<'_>, state: &GameState, power: Power) -> Vec<ToPlace> {
    if let Some(rolled) = &state.war.reinforcements {
        return rolled
            .units
            .iter()
            .map(|(unit, count)| ToPlace {
                unit: *unit,
                count: *count,
                at: Vec::new(),
            })
            .collect();
    }
    state
        .pending
        .iter()
        .map(|(unit, count)| ToPlace {
            unit: *unit,
            count: *count,
            at: state.placement_sites(rules, power, *unit),
        })
        .collect()
}

/// The Classic engine's units of `power` that may still move in this phase: by place and
/// type, how many and how far (the state's record of what moved this turn and each unit's
/// movement, with long-range aircraft).
fn may_move(rules: Rules<'_>, state: &GameState, power: Power) -> Vec<MayMove> {
    if !matches!(state.phase, Phase::CombatMove | Phase::NonCombatMove)
        || state.passive.contains(&power)
    {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (place, territory) in rules.board.territories() {
        // AAP: in round 1 only some types leave some places.
        let held = rules
            .special
            .held_in_round_one
            .get(&place)
            .filter(|_| state.round == 1);
        let units: BTreeSet<UnitTypeId> = state.forces[place.index()]
            .keys()
            .filter(|(owner, _, _)| *owner == power)
            .map(|(_, unit, _)| *unit)
            .collect();
        for unit in units {
            let profile = rules.catalogue.get(unit);
            if profile.movement == 0 || held.is_some_and(|may| !may.contains(&unit)) {
                continue;
            }
            let (count, range) = state.movable(rules, place, power, unit);
            let reach = if profile.domain == Domain::Land && territory.sea {
                Reach::Aboard
            } else {
                Reach::Spaces(range)
            };
            if count > 0 && range > 0 {
                found.push(MayMove {
                    place,
                    unit,
                    count,
                    reach,
                });
            }
        }
    }
    found
}
