//! The auditor's view: every dice-bearing event is the first of its order's events, holds
//! exactly the dice its order rolled, and deciding the order it names again, on the state
//! before it and with its own dice, gives the same events.

use proptest::prelude::*;

use super::*;
use crate::dice::{GameSeed, RecordingDice, ScriptedDice};
use crate::game::autoplay::random_order;
use crate::game::replay::{dice_rolled, order_behind};

fn scripted(dice: &[Die]) -> ScriptedDice {
    ScriptedDice::new(&dice.iter().map(|d| d.value()).collect::<Vec<_>>())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_die_is_in_the_first_event_of_its_order_and_decides_the_same_again(
        numbers in prop::collection::vec(any::<u32>(), 50..400),
        seed in any::<[u8; 32]>(),
    ) {
        replays(rules(), start(), &numbers, seed)?;
    }

    #[test]
    fn every_war_roll_and_move_decides_the_same_again_from_its_own_dice(
        numbers in prop::collection::vec(any::<u32>(), 50..400),
        seed in any::<[u8; 32]>(),
    ) {
        let war = crate::ruleset::Ruleset::builtin("war").expect("war");
        replays(war.rules(), super::home_cooked::seated(), &numbers, seed)?;
    }
}

/// Plays random orders from `state`, checking each accepted one as the auditor would.
fn replays(
    rules: Rules<'_>,
    mut state: GameState,
    numbers: &[u32],
    seed: [u8; 32],
) -> Result<(), TestCaseError> {
    {
        let seed = GameSeed::from_bytes(seed);
        let mut next = 0usize;
        let mut choose = |n: usize| {
            next += 1;
            numbers[next % numbers.len()] as usize % n.max(1)
        };
        for step in 0..1200u64 {
            let (by, order) = random_order(rules, &state, &mut choose);
            let mut source = seed.dice_for("replay", step);
            let mut recording = RecordingDice::new(&mut source);
            let decided = decide(rules, &state, by, &order, Moment::default(), &mut recording);
            let rolled = recording.into_rolled();
            let Ok(events) = decided else { continue };
            prop_assert_eq!(&dice_rolled(&events[0]), &rolled, "{:?}", order);
            for later in &events[1..] {
                prop_assert!(
                    dice_rolled(later).is_empty(),
                    "dice outside the first event: {:?}",
                    later
                );
            }
            if let Some((power, again)) = order_behind(&events[0]) {
                let mut dice = scripted(&rolled);
                let redecided = decide(rules, &state, power, &again, Moment::default(), &mut dice);
                prop_assert_eq!(redecided.as_ref(), Ok(&events));
                prop_assert_eq!(dice.remaining(), 0);
            } else {
                prop_assert!(
                    rolled.is_empty(),
                    "{:?} rolled dice but names no order",
                    order
                );
            }
            for event in &events {
                apply(rules, &mut state, event);
            }
        }
    }
    Ok(())
}

#[test]
fn the_power_draw_seats_every_player_once_and_rerolls_dice_above_the_powers_left() {
    let players: Vec<String> = ["ann", "bob", "cy", "di", "ed"].map(String::from).to_vec();
    // Five powers left: a 6 is rolled again; then 4, 3, 2 powers left.
    let mut dice = ScriptedDice::new(&[6, 2, 6, 5, 4, 1, 2]);
    let seats = draw_seats(&Power::CLASSIC, &players, &mut dice).expect("five players");
    assert_eq!(dice.remaining(), 0);
    let mut powers: Vec<Power> = seats.iter().map(|(p, _)| *p).collect();
    powers.sort();
    assert_eq!(powers, Power::CLASSIC.to_vec());
    let names: Vec<&str> = seats.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["ann", "bob", "cy", "di", "ed"]);
}

#[test]
fn the_same_seed_draws_the_same_seats_and_different_seeds_differ() {
    let players: Vec<String> = ["ann", "bob", "cy", "di", "ed"].map(String::from).to_vec();
    let draw = |byte: u8| {
        let mut dice = GameSeed::from_bytes([byte; 32]).dice_for("game-1", 1);
        draw_seats(&Power::CLASSIC, &players, &mut dice).expect("five players")
    };
    assert_eq!(draw(1), draw(1));
    let distinct: std::collections::BTreeSet<_> = (0..20).map(draw).collect();
    assert!(distinct.len() > 5, "{distinct:?}");
}

#[test]
fn a_draw_for_the_wrong_number_of_players_is_refused() {
    let mut dice = ScriptedDice::new(&[]);
    let refused = draw_seats(&Power::CLASSIC, &["ann".to_owned()], &mut dice);
    assert_eq!(refused.map_err(|v| v.code.as_str()), Err("bad-seats"));
}
