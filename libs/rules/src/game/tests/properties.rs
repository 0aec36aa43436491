//! Random sequences of orders: whatever `decide` accepts keeps the board sound. No unit
//! count of zero, no unit outside its domain, no spending beyond the treasury, and no
//! broken alliance that still acts (permissions only between partners; enemies never share
//! land outside a battle to fight). Whatever it refuses has drawn no die.

use proptest::prelude::*;

use super::*;
use crate::dice::{CountingDice, GameSeed};
use crate::game::autoplay::{chooser, random_order};

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
        GameEvent::WarUnitsBought { power, cost, .. }
        | GameEvent::InfrastructureBuilt { power, cost, .. }
        | GameEvent::WarResearched { power, cost, .. }
        | GameEvent::AtomicBombDropped { power, cost, .. } => *cost <= has(power),
        GameEvent::AirRaidFlown(raid) => raid.cash_lost <= has(&raid.victim),
        GameEvent::WarMoveResolved(moved) => {
            moved.parleys.iter().map(|p| p.paid).sum::<u32>() <= has(&moved.mover)
        }
        _ => true,
    }
}

/// War: every battle is over when its move is, so land units stand only where their side
/// holds the zone (the non-player nations in zones no player holds).
fn check_war_board(rules: Rules<'_>, state: &GameState) -> Result<(), TestCaseError> {
    for (place, territory) in rules.board.territories() {
        for &(owner, unit, _) in state.forces[place.index()].keys() {
            if rules.catalogue.get(unit).domain != Domain::Land {
                continue;
            }
            // Carried land units always land in the move that carries them.
            prop_assert!(!territory.sea, "land units adrift in {}", territory.name);
            let side = state.holder[place.index()].unwrap_or(Power::Npn);
            prop_assert_eq!(
                side,
                owner,
                "{}'s land units in {}, held by {}",
                owner,
                &territory.name,
                side
            );
        }
    }
    let reinforcing = state.phase == Phase::Reinforcements;
    prop_assert!(
        reinforcing || state.war.reinforcements.is_none(),
        "reinforcements left over"
    );
    Ok(())
}

fn check_board(rules: Rules<'_>, state: &GameState) -> Result<(), TestCaseError> {
    if rules.special.war.is_some() {
        return check_war_board(rules, state);
    }
    let board = rules.board;
    let catalogue = rules.catalogue;
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
            for &power in board.turn_order() {
                let (capacity, used) = state.transport_space(rules, place, power);
                prop_assert!(
                    used <= capacity,
                    "{power}'s land units adrift in {}",
                    territory.name
                );
            }
        } else {
            let armies: Vec<Power> = board
                .turn_order()
                .iter()
                .copied()
                // Guerrillas share land with the enemy when they refuse battle (AAP, 3.1).
                .filter(|p| !rules.special.guerrillas.contains(p))
                .filter(|p| {
                    forces
                        .iter()
                        // Aircraft may be over enemy land during a turn (a raid); armies not.
                        .any(|((o, u, _), _)| {
                            o == p
                                && catalogue.get(*u).domain == Domain::Land
                                && catalogue.get(*u).is_combatant()
                        })
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
            !state.capital_lost(rules, *a) && !state.capital_lost(rules, *b),
            "an agreement outlived a capital"
        );
    }
    Ok(())
}

/// Plays up to 1,500 random orders from `state`: every accepted one keeps the board sound,
/// and every refused one changes nothing and has drawn no die.
fn play_randomly(
    rules: Rules<'_>,
    mut state: GameState,
    numbers: &[u32],
    seed: [u8; 32],
) -> Result<(), TestCaseError> {
    let mut dice = GameSeed::from_bytes(seed).dice_for("property", 0);
    let mut choose = chooser(numbers);
    let mut accepted = 0;
    for _ in 0..1500 {
        let (by, order) = random_order(rules, &state, &mut choose);
        let before = state.clone();
        let mut counting = CountingDice::new(&mut dice);
        let decided = decide(rules, &state, by, &order, Moment::default(), &mut counting);
        let drawn = counting.drawn();
        let events = match decided {
            Ok(events) => events,
            Err(refusal) => {
                prop_assert_eq!(&state, &before);
                // Nothing is recorded of a refusal, so dice drawn before it would be a free
                // look at how they fall (issue 39).
                prop_assert_eq!(
                    drawn,
                    0,
                    "{:?} by {} was refused ({}) after drawing {} dice",
                    order,
                    by,
                    refusal,
                    drawn
                );
                continue;
            }
        };
        accepted += 1;
        for event in &events {
            prop_assert!(spends_within_treasury(&state, event), "{:?}", event);
            apply(rules, &mut state, event);
        }
        check_board(rules, &state).map_err(|e| {
            TestCaseError::fail(format!("{e}, after {order:?} by {by}: {events:?}"))
        })?;
        if state.phase == Phase::Placement {
            let power = state.power(rules.board);
            let stranded = state.stranded_aircraft(rules, power);
            prop_assert!(
                stranded.is_empty(),
                "aircraft left in the air: {:?}",
                stranded
            );
        }
    }
    prop_assert!(accepted > 0);
    Ok(())
}

/// Cut-Throat with Enhanced Realism (intermediate historical, the USA phased in) and the
/// alternate turn order: every option of the game at once.
pub(super) fn enhanced_realism() -> &'static crate::ruleset::Ruleset {
    let options = crate::document::GameOptions {
        enhanced_realism: Some(crate::document::EnhancedRealism {
            scenario: crate::scenario::Scenario::IntermediateHistorical,
            usa_phased_in: true,
        }),
        alternate_turn_order: true,
        survive_to_round: None,
    };
    crate::ruleset::Ruleset::builtin_with("cutthroat", &options).expect("offered")
}

fn cases() -> u32 {
    std::env::var("WARLOG_PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(48)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn random_legal_orders_keep_the_board_sound(
        numbers in prop::collection::vec(any::<u32>(), 50..400),
        seed in any::<[u8; 32]>(),
    ) {
        play_randomly(rules(), start(), &numbers, seed)?;
    }

    #[test]
    fn random_legal_orders_keep_an_enhanced_realism_board_sound(
        numbers in prop::collection::vec(any::<u32>(), 50..400),
        seed in any::<[u8; 32]>(),
    ) {
        let ruleset = enhanced_realism();
        play_randomly(ruleset.rules(), ruleset.start(), &numbers, seed)?;
    }

    #[test]
    fn random_legal_orders_keep_a_war_board_sound(
        numbers in prop::collection::vec(any::<u32>(), 50..400),
        seed in any::<[u8; 32]>(),
    ) {
        let ruleset = crate::ruleset::Ruleset::builtin("war").expect("war");
        play_randomly(ruleset.rules(), super::home_cooked::seated(), &numbers, seed)?;
    }

    #[test]
    fn random_legal_orders_keep_the_pacific_board_of_aap_sound(
        numbers in prop::collection::vec(any::<u32>(), 50..400),
        seed in any::<[u8; 32]>(),
    ) {
        let ruleset = super::aap::pacific();
        play_randomly(ruleset.rules(), ruleset.start(), &numbers, seed)?;
    }
}
