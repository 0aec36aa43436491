//! Previews, given a game, when a power's orders are previewed, then what they would do.

use super::*;
use crate::orders::{Command, DiceSupply, OrdersGiven};
use crate::sample::SampleGame;
use crate::sender::{Role, Sender};
use warlog_rules::dice::GameSeed;
use warlog_rules::game::named::NamedOrder;
use warlog_rules::game::{GameEvent, Moment, Phase};
use warlog_rules::ruleset::Ruleset;

fn game_at_a_battle(seed: u8) -> (SampleGame, String) {
    let mut game = SampleGame::new(
        Ruleset::builtin("cutthroat").expect("cutthroat"),
        "preview-test",
        GameSeed::from_bytes([seed; 32]),
        3,
    );
    let place = game.play_until_battle(20_000).expect("a battle comes");
    (game, place)
}

fn orders_of(game: &SampleGame, orders: Vec<NamedOrder>) -> OrdersGiven {
    let power = game.log.state.to_act(game.log.ruleset.rules());
    OrdersGiven::new(
        Sender {
            role: Role::Gm,
            name: crate::sample::GAME_MASTER.to_owned(),
        },
        game.log.version,
        Moment::from_unix_seconds(1_900_000_000),
        Command::Orders { power, orders },
    )
}

fn battle(place: &str) -> NamedOrder {
    NamedOrder::FightBattle {
        territory: place.to_owned(),
        combat: None,
        order_of_loss: Vec::new(),
        retreat: None,
        retreat_to: None,
        bombing_raid: false,
        bombard_from: Vec::new(),
        kamikaze_target: None,
        blend_in: None,
    }
}

#[test]
fn a_battle_in_a_preview_comes_with_its_exact_odds_and_later_orders_are_marked_as_after_dice() {
    let (game, place) = game_at_a_battle(11);
    let given = orders_of(&game, vec![battle(&place), NamedOrder::EndPhase]);
    let preview = game.log.preview(&given, None).expect("previewed");
    let first = &preview.steps[0];
    assert!(first.rolls, "a battle rolls");
    let Some(BattleOdds::Exact(odds)) = &first.odds else {
        panic!("exact odds: {:?}", first.odds);
    };
    assert!((odds.total() - 1.0).abs() < 1e-9, "{}", odds.total());
    if let Some(end) = preview.steps.get(1) {
        assert!(end.after_dice, "decided on the board even dice left");
    }
}

#[test]
fn a_preview_is_the_same_whatever_the_games_seed() {
    // Two games at the same board and version, with different seeds: the preview reads
    // neither, so it cannot tell them apart.
    let (game, place) = game_at_a_battle(11);
    let mut other = game_at_a_battle(11).0;
    other.seed = GameSeed::from_bytes([99; 32]);
    let given = orders_of(&game, vec![battle(&place)]);
    let one = game.log.preview(&given, None).expect("previewed");
    let two = other.log.preview(&given, None).expect("previewed");
    assert_eq!(one.steps[0].events, two.steps[0].events);
    assert!(one.steps[0].events.is_empty(), "no made-up dice");
    let win = |p: &Preview| match &p.steps[0].odds {
        Some(BattleOdds::Exact(odds)) => odds.attacker_win,
        other => panic!("exact odds: {other:?}"),
    };
    assert!((win(&one) - win(&two)).abs() < 1e-12);
    let decided = game
        .log
        .decide_command(&given, DiceSupply::Seed(&game.seed))
        .expect("decided");
    assert!(decided.events.len() > 1);
}

#[test]
fn an_order_the_rules_refuse_is_named_with_its_place_and_nothing_after_it_is_decided() {
    let (game, _) = game_at_a_battle(11);
    let given = orders_of(
        &game,
        vec![
            NamedOrder::Purchase {
                units: [("INF".to_owned(), 1.try_into().expect("a count"))].into(),
            },
            NamedOrder::EndPhase,
        ],
    );
    let preview = game.log.preview(&given, None).expect("previewed");
    let refused = preview.refused.expect("a purchase in the battles phase");
    assert_eq!(refused.index, 0);
    assert!(!refused.after_dice);
    assert!(preview.steps.is_empty());
    assert_eq!(game.log.state.phase, Phase::Battles);
}

#[test]
fn a_preview_of_phase_ends_shows_their_events_and_rolls_nothing() {
    let game = SampleGame::new(
        Ruleset::builtin("cutthroat").expect("cutthroat"),
        "preview-test",
        GameSeed::from_bytes([5; 32]),
        1,
    );
    let given = orders_of(&game, vec![NamedOrder::EndPhase, NamedOrder::EndPhase]);
    let preview = game.log.preview(&given, None).expect("previewed");
    assert_eq!(preview.steps.len(), 2);
    assert!(preview.steps.iter().all(|s| !s.rolls && !s.after_dice));
    assert!(matches!(
        preview.steps[1].events.last(),
        Some(GameEvent::PhaseEnded {
            phase: Phase::WeaponsDevelopment,
            ..
        })
    ));
    assert_eq!(preview.after.phase, Phase::Purchase);
}
