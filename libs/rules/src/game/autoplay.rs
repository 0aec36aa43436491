//! A random player: plausible orders for the power to move (and diplomacy from anyone),
//! built from the state so that a fair share are legal. Property tests drive it with
//! generated numbers, benchmarks with a seeded generator, to make long games.

use super::combat::BattleOrders;
use super::{GameState, Order, Permission, Phase, Rules};
use crate::battle::{CombatOrder, RetreatOrder};
use crate::board::{Board, Power, TerritoryId};
use crate::units::UnitTypeId;

/// A chooser fed by generated numbers, for [`random_order`]: the same numbers give the same
/// orders (property tests generate the numbers).
pub fn chooser(numbers: &[u32]) -> impl FnMut(usize) -> usize + '_ {
    let mut next = 0;
    move |n| {
        let value = numbers[next % numbers.len()];
        next += 1;
        value as usize % n.max(1)
    }
}

/// One order, built from the state so that a fair share of them are legal.
pub fn random_order(
    rules: Rules<'_>,
    state: &GameState,
    choose: &mut dyn FnMut(usize) -> usize,
) -> (Power, Order) {
    if rules.special.war.is_some() {
        return random_war_order(rules, state, choose);
    }
    let board = rules.board;
    let catalogue = rules.catalogue;
    let power = state.power(board);
    let seated = board.turn_order();
    let anyone = |choose: &mut dyn FnMut(usize) -> usize| seated[choose(seated.len())];
    let other = anyone(choose);
    let places: Vec<TerritoryId> = board.territories().map(|(id, _)| id).collect();
    let own_stack =
        |choose: &mut dyn FnMut(usize) -> usize| -> Option<(TerritoryId, UnitTypeId, u32)> {
            let stacks: Vec<(TerritoryId, UnitTypeId, u32)> = places
                .iter()
                .flat_map(|t| {
                    state.forces[t.index()]
                        .iter()
                        .filter(|((o, _, _), _)| *o == power)
                        .map(move |((_, u, _), n)| (*t, *u, *n))
                })
                .collect();
            (!stacks.is_empty()).then(|| stacks[choose(stacks.len())])
        };
    let walk = |choose: &mut dyn FnMut(usize) -> usize, from: TerritoryId| {
        let steps = 1 + choose(3);
        let mut path = vec![from];
        for _ in 0..steps {
            let here = *path.last().expect("a start");
            let next = board.neighbours(here);
            path.push(next[choose(next.len())]);
        }
        path
    };
    if choose(10) == 0 {
        let order = match choose(5) {
            0 => Order::OfferAgreement {
                with: anyone(choose),
                terms: "pact".into(),
            },
            1 => Order::AcceptAgreement {
                from: anyone(choose),
            },
            2 => Order::BreakAgreement {
                with: anyone(choose),
            },
            _ => Order::GrantPermission {
                to: anyone(choose),
                permission: [Permission::Enter, Permission::Rail, Permission::Ferry][choose(3)],
            },
        };
        return (other, order);
    }
    // Guerrillas refuse a battle now and then, on the attacker's turn.
    if let Some(&guerrilla) = rules.special.guerrillas.iter().next() {
        if choose(8) == 0 {
            if let Some(&place) = state.contested.keys().next() {
                return (guerrilla, Order::AvoidCombat { territory: place });
            }
        }
    }
    let pass = |choose: &mut dyn FnMut(usize) -> usize, percent: usize| choose(100) < percent;
    let order = match state.phase {
        Phase::Repairs if !pass(choose, 70) => match choose(2) {
            0 => Order::ApplyForWarLoan,
            _ => Order::RepairBattleship {
                sea_zone: places[choose(places.len())],
            },
        },
        Phase::WeaponsDevelopment if !pass(choose, 70) => Order::DevelopWeapons(1),
        Phase::Purchase if !pass(choose, 40) => {
            let units: Vec<UnitTypeId> = catalogue.units().map(|(id, _)| id).collect();
            if choose(10) == 0 {
                Order::ExpandComplex {
                    territory: places[choose(places.len())],
                }
            } else {
                Order::Purchase(vec![(units[choose(units.len())], 1 + choose(3) as u32)])
            }
        }
        Phase::CombatMove | Phase::NonCombatMove if !pass(choose, 25) => match own_stack(choose) {
            Some((from, unit, n)) => {
                let units = vec![(unit, 1 + choose(n as usize) as u32)];
                let path = walk(choose, from);
                if choose(6) == 0 {
                    Order::Rail { units, path }
                } else {
                    Order::Move { units, path }
                }
            }
            None => Order::EndPhase,
        },
        Phase::Battles => match state.battles_to_fight(rules, power).first() {
            Some(&place) if choose(6) == 0 => Order::SuppressGuerrillas { territory: place },
            Some(&place) => Order::FightBattle(random_battle_orders(board, place, &places, choose)),
            None => Order::EndPhase,
        },
        Phase::Placement if !state.pending.is_empty() && !pass(choose, 10) => {
            random_placement(board, state, power, &places, choose)
        }
        _ => Order::EndPhase,
    };
    (power, order)
}

/// A battle's orders at random: a bombing raid now and then, and withdrawals of every
/// kind.
fn random_battle_orders(
    board: &Board,
    place: TerritoryId,
    places: &[TerritoryId],
    choose: &mut dyn FnMut(usize) -> usize,
) -> BattleOrders {
    let mut orders = BattleOrders::at(place);
    orders.bombing_raid = choose(4) == 0;
    // Withdrawals of every kind, to places good, bad and unnamed: whatever refuses
    // a battle must do so before its dice.
    if choose(4) == 0 {
        orders.combat = Some(CombatOrder::ALL[choose(CombatOrder::ALL.len())]);
    }
    if choose(3) == 0 {
        orders.retreat = Some(match choose(2) {
            0 => RetreatOrder::AfterRound(1 + choose(3) as u32),
            _ => RetreatOrder::WhenAtMost(choose(4) as u32),
        });
    }
    // Only places of the battle's own kind: the engine also takes a sea zone next
    // to a land battle (own land next to a sea battle), and would put surviving
    // ground units (ships) there; a known fault, kept so that recorded games
    // replay, and not what these games are for.
    let sea = board.get(place).sea;
    let alike = |places: &[TerritoryId]| -> Vec<TerritoryId> {
        places
            .iter()
            .copied()
            .filter(|t| board.get(*t).sea == sea)
            .collect()
    };
    let (next_door, anywhere) = (alike(board.neighbours(place)), alike(places));
    orders.retreat_to = match choose(4) {
        0 if !next_door.is_empty() => Some(next_door[choose(next_door.len())]),
        0 | 1 => Some(anywhere[choose(anywhere.len())]),
        _ => None,
    };
    orders
}

/// A placement at random: one of the units bought, in or next to the power's land.
fn random_placement(
    board: &Board,
    state: &GameState,
    power: Power,
    places: &[TerritoryId],
    choose: &mut dyn FnMut(usize) -> usize,
) -> Order {
    let pending: Vec<UnitTypeId> = state.pending.keys().copied().collect();
    let unit = pending[choose(pending.len())];
    let sites: Vec<TerritoryId> = places
        .iter()
        .copied()
        .filter(|t| {
            state.holder[t.index()] == Some(power)
                || board
                    .neighbours(*t)
                    .iter()
                    .any(|n| state.holder[n.index()] == Some(power))
        })
        .collect();
    match sites.len() {
        0 => Order::EndPhase,
        n => Order::Place {
            territory: sites[choose(n)],
            units: vec![(unit, 1)],
        },
    }
}

/// One order of a War game, from whoever may give one now.
fn random_war_order(
    rules: Rules<'_>,
    state: &GameState,
    choose: &mut dyn FnMut(usize) -> usize,
) -> (Power, Order) {
    let board = rules.board;
    let seated = board.turn_order();
    let active = state.power(board);
    let reinforcer = super::home_cooked::reinforcer(rules, state);
    let places: Vec<TerritoryId> = board.territories().map(|(id, _)| id).collect();
    let units: Vec<UnitTypeId> = rules.catalogue.units().map(|(id, _)| id).collect();
    let stack_of = |choose: &mut dyn FnMut(usize) -> usize, owner: Power| {
        let stacks: Vec<(TerritoryId, UnitTypeId, u32)> = places
            .iter()
            .flat_map(|t| {
                state.forces[t.index()]
                    .iter()
                    .filter(move |((o, _, _), _)| *o == owner)
                    .map(move |((_, u, _), n)| (*t, *u, *n))
            })
            .collect();
        (!stacks.is_empty()).then(|| stacks[choose(stacks.len())])
    };
    // Mostly within the unit's reach (so that many moves are legal), now and then beyond.
    let walk = |choose: &mut dyn FnMut(usize) -> usize, from: TerritoryId, reach: u8| {
        let mut path = vec![from];
        for _ in 0..1 + choose(usize::from(reach.max(1)) + 1) {
            let next = board.neighbours(*path.last().expect("a start"));
            path.push(next[choose(next.len())]);
        }
        path
    };
    let random_move = |choose: &mut dyn FnMut(usize) -> usize, owner: Power| {
        stack_of(choose, owner).map(|(from, unit, n)| Order::Move {
            units: vec![(unit, 1 + choose(n as usize) as u32)],
            path: walk(choose, from, rules.catalogue.get(unit).movement),
        })
    };
    if choose(30) == 0 {
        if choose(3) == 0 {
            let after = [None, Some(1), Some(2)][choose(3)];
            return (seated[choose(seated.len())], Order::SetBreakOff(after));
        }
        let order_of_loss = (0..1 + choose(2))
            .map(|_| units[choose(units.len())])
            .collect();
        return (
            seated[choose(seated.len())],
            Order::SetOrderOfLoss(order_of_loss),
        );
    }
    match state.phase {
        Phase::StartZones => (seated[choose(seated.len())], Order::RollStartZones),
        Phase::Initiative => (seated[choose(seated.len())], Order::RollInitiative),
        Phase::Reinforcements => {
            let order = match &state.war.reinforcements {
                None => Order::RollReinforcements,
                Some(pending) if !pending.units.is_empty() => {
                    let (unit, n) = pending
                        .units
                        .iter()
                        .nth(choose(pending.units.len()))
                        .map(|(u, n)| (*u, *n))
                        .expect("a unit");
                    Order::Place {
                        territory: places[choose(places.len())],
                        units: vec![(unit, 1 + choose(n as usize) as u32)],
                    }
                }
                Some(pending) if pending.moves_left > 0 && choose(3) > 0 => {
                    random_move(choose, Power::Npn).unwrap_or(Order::EndPhase)
                }
                Some(_) => Order::EndPhase,
            };
            (reinforcer, order)
        }
        Phase::Purchase => {
            let held: Vec<TerritoryId> = places
                .iter()
                .copied()
                .filter(|t| state.holder[t.index()] == Some(active))
                .collect();
            let somewhere = |choose: &mut dyn FnMut(usize) -> usize| {
                if held.is_empty() || choose(4) == 0 {
                    places[choose(places.len())]
                } else {
                    held[choose(held.len())]
                }
            };
            let order = match choose(12) {
                0..=4 => Order::Place {
                    territory: somewhere(choose),
                    units: vec![(units[choose(units.len())], 1 + choose(2) as u32)],
                },
                5 => Order::BuildInfrastructure {
                    territory: somewhere(choose),
                },
                6 => Order::DevelopWeapons(1 + choose(2) as u32),
                7 => Order::DropAtomicBomb {
                    territory: places[choose(places.len())],
                },
                _ => Order::EndPhase,
            };
            (active, order)
        }
        _ if choose(12) == 0 => {
            let from = places[choose(places.len())];
            let target = board.neighbours(from)[choose(board.neighbours(from).len())];
            (active, Order::FireRocket { from, target })
        }
        _ if choose(8) == 0 => {
            let order = match random_move(choose, active) {
                Some(Order::Move { units, path }) => Order::AirRaid { units, path },
                _ => Order::EndPhase,
            };
            (active, order)
        }
        _ if choose(4) > 0 => (
            active,
            random_move(choose, active).unwrap_or(Order::EndPhase),
        ),
        _ => (active, Order::EndPhase),
    }
}
