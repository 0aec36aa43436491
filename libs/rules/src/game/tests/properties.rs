//! Random sequences of orders: whatever `decide` accepts keeps the board sound. No unit
//! count of zero, no unit outside its domain, no spending beyond the treasury, and no
//! broken alliance that still acts (permissions only between partners; enemies never share
//! land outside a battle to fight).

use proptest::prelude::*;

use super::*;
use crate::dice::GameSeed;
use crate::game::combat::BattleOrders;

/// A chooser fed by the generated numbers: the same numbers give the same game.
struct Choices<'a> {
    numbers: &'a [u32],
    next: usize,
}

impl Choices<'_> {
    fn pick(&mut self, n: usize) -> usize {
        let value = self.numbers[self.next % self.numbers.len()];
        self.next += 1;
        value as usize % n.max(1)
    }
}

/// One order, built from the state so that a fair share of them are legal.
fn some_order(state: &GameState, choose: &mut Choices<'_>) -> (Power, Order) {
    let board = rules().board;
    let catalogue = rules().catalogue;
    let power = state.power(board);
    let other = Power::ALL[choose.pick(5)];
    let places: Vec<TerritoryId> = board.territories().map(|(id, _)| id).collect();
    let own_stack = |choose: &mut Choices<'_>| -> Option<(TerritoryId, UnitTypeId, u32)> {
        let stacks: Vec<(TerritoryId, UnitTypeId, u32)> = places
            .iter()
            .flat_map(|t| {
                state.forces[t.index()]
                    .iter()
                    .filter(|((o, _, _), _)| *o == power)
                    .map(move |((_, u, _), n)| (*t, *u, *n))
            })
            .collect();
        (!stacks.is_empty()).then(|| stacks[choose.pick(stacks.len())])
    };
    let walk = |choose: &mut Choices<'_>, from: TerritoryId| {
        let steps = 1 + choose.pick(3);
        let mut path = vec![from];
        for _ in 0..steps {
            let here = *path.last().expect("a start");
            let next = board.neighbours(here);
            path.push(next[choose.pick(next.len())]);
        }
        path
    };
    if choose.pick(10) == 0 {
        let order = match choose.pick(5) {
            0 => Order::OfferAgreement {
                with: Power::ALL[choose.pick(5)],
                terms: "pact".into(),
            },
            1 => Order::AcceptAgreement {
                from: Power::ALL[choose.pick(5)],
            },
            2 => Order::BreakAgreement {
                with: Power::ALL[choose.pick(5)],
            },
            _ => Order::GrantPermission {
                to: Power::ALL[choose.pick(5)],
                permission: [Permission::Enter, Permission::Rail, Permission::Ferry]
                    [choose.pick(3)],
            },
        };
        return (other, order);
    }
    let pass = |choose: &mut Choices<'_>, percent: usize| choose.pick(100) < percent;
    let order = match state.phase {
        Phase::Repairs if !pass(choose, 70) => match choose.pick(2) {
            0 => Order::ApplyForWarLoan,
            _ => Order::RepairBattleship {
                sea_zone: places[choose.pick(places.len())],
            },
        },
        Phase::WeaponsDevelopment if !pass(choose, 70) => Order::DevelopWeapons(1),
        Phase::Purchase if !pass(choose, 40) => {
            let units: Vec<UnitTypeId> = catalogue.units().map(|(id, _)| id).collect();
            Order::Purchase(vec![(
                units[choose.pick(units.len())],
                1 + choose.pick(3) as u32,
            )])
        }
        Phase::CombatMove | Phase::NonCombatMove if !pass(choose, 25) => match own_stack(choose) {
            Some((from, unit, n)) => {
                let units = vec![(unit, 1 + choose.pick(n as usize) as u32)];
                let path = walk(choose, from);
                if choose.pick(6) == 0 {
                    Order::Rail { units, path }
                } else {
                    Order::Move { units, path }
                }
            }
            None => Order::EndPhase,
        },
        Phase::Battles => match state.contested.keys().next() {
            Some(&place) => {
                let mut orders = BattleOrders::at(place);
                orders.bombing_raid = choose.pick(4) == 0;
                Order::FightBattle(orders)
            }
            None => Order::EndPhase,
        },
        Phase::Placement => match state.pending.keys().next() {
            Some(&unit) => {
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
                Order::Place {
                    territory: sites[choose.pick(sites.len())],
                    units: vec![(unit, 1)],
                }
            }
            None => Order::EndPhase,
        },
        _ => Order::EndPhase,
    };
    (power, order)
}

/// Spending checked before the event is folded in.
fn spends_within_treasury(state: &GameState, event: &GameEvent) -> bool {
    let has = |p: &Power| state.treasury.get(p).copied().unwrap_or(0);
    match event {
        GameEvent::UnitsPurchased { power, cost, .. }
        | GameEvent::WeaponsResearched { power, cost, .. }
        | GameEvent::BattleshipRepaired { power, cost, .. } => *cost <= has(power),
        GameEvent::WarLoanRepaid {
            power,
            principal,
            interest,
        } => principal + interest <= has(power),
        GameEvent::RaidFlown(raid) => raid.raid.ipc_lost <= has(&raid.victim),
        GameEvent::RocketFired {
            victim, ipc_lost, ..
        } => *ipc_lost <= has(victim),
        GameEvent::TreasuryConvertedToInfantry { power, spent, .. } => *spent <= has(power),
        _ => true,
    }
}

fn check_board(state: &GameState) -> Result<(), TestCaseError> {
    let board = rules().board;
    let catalogue = rules().catalogue;
    for (place, territory) in board.territories() {
        let forces = &state.forces[place.index()];
        for (&(owner, unit, _), &n) in forces {
            prop_assert!(n > 0, "an empty stack of {owner} in {}", territory.name);
            let domain = catalogue.get(unit).domain;
            prop_assert!(
                domain != Domain::Sea || territory.sea,
                "a ship on land in {}",
                territory.name
            );
        }
        if territory.sea {
            for power in Power::ALL {
                let (capacity, used) = state.transport_space(rules(), place, power);
                prop_assert!(
                    used <= capacity,
                    "{power}'s land units adrift in {}",
                    territory.name
                );
            }
        } else {
            let armies: Vec<Power> = Power::ALL
                .into_iter()
                .filter(|p| {
                    forces
                        .iter()
                        .any(|((o, u, _), _)| o == p && catalogue.get(*u).is_combatant())
                })
                .collect();
            for a in &armies {
                for b in &armies {
                    let front = state.contested.contains_key(&place)
                        || state
                            .fronts
                            .iter()
                            .any(|(t, x, y)| *t == place && ((x, y) == (a, b) || (y, x) == (a, b)));
                    prop_assert!(
                        !state.at_war(*a, *b) || front,
                        "{a} and {b} at war share {} with no battle to come",
                        territory.name
                    );
                }
            }
        }
    }
    for (grantor, grantee, _) in &state.permissions {
        prop_assert!(
            !state.at_war(*grantor, *grantee),
            "a permission outlived its agreement"
        );
    }
    for (a, b) in state.agreements.keys() {
        prop_assert!(
            !state.capital_lost(rules(), *a) && !state.capital_lost(rules(), *b),
            "an agreement outlived a capital"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_legal_orders_keep_the_board_sound(
        numbers in prop::collection::vec(any::<u32>(), 50..400),
        seed in any::<[u8; 32]>(),
    ) {
        let mut state = start();
        let mut dice = GameSeed::from_bytes(seed).dice_for("property", 0);
        let mut choose = Choices { numbers: &numbers, next: 0 };
        let mut accepted = 0;
        for _ in 0..1500 {
            let (by, order) = some_order(&state, &mut choose);
            let before = state.clone();
            let Ok(events) = decide(rules(), &state, by, &order, Moment::default(), &mut dice) else {
                prop_assert_eq!(&state, &before);
                continue;
            };
            accepted += 1;
            for event in &events {
                prop_assert!(spends_within_treasury(&state, event), "{:?}", event);
                apply(rules(), &mut state, event);
            }
            check_board(&state)?;
        }
        prop_assert!(accepted > 0);

    }
}
