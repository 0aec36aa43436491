//! The defender's secret, given/when/then: standing orders stand sealed in the log, take
//! effect when the turn they were given in ends, are revealed by the battle that follows
//! them, and the auditor checks every reveal against its commitment.

use super::tests::audit;
use super::*;
use crate::game::GameStreamEvent;
use crate::orders::{Command, DiceSupply, OrdersGiven, Refusal};
use crate::sample::SampleGame;
use crate::sender::{Role, Sender};
use crate::{relink, RecordedEvent};
use warlog_rules::board::Power;
use warlog_rules::game::named::NamedOrder;
use warlog_rules::game::{GameEvent, ViolationCode};
use warlog_rules::ruleset::Ruleset;

fn game() -> SampleGame {
    SampleGame::new(
        Ruleset::builtin("cutthroat").expect("cutthroat"),
        "sealed-test",
        GameSeed::from_bytes([9; 32]),
        5,
    )
}

fn player(game: &SampleGame, power: Power) -> Sender {
    Sender {
        role: Role::Player,
        name: game.log.state.seats[&power].player.clone(),
    }
}

fn lose_first(unit: &str) -> NamedOrder {
    serde_json::from_value(serde_json::json!({
        "type": "set_standing_orders", "order_of_loss": [unit]
    }))
    .expect("an order")
}

fn give(game: &mut SampleGame, power: Power, orders: Vec<NamedOrder>) -> bool {
    let sender = player(game, power);
    game.send(sender, Command::Orders { power, orders })
}

/// `power`'s player's orders, as the server would decide them next.
fn command(game: &SampleGame, power: Power, orders: Vec<NamedOrder>) -> OrdersGiven {
    OrdersGiven::new(
        player(game, power),
        game.log.version,
        game.now,
        Command::Orders { power, orders },
    )
}

/// The forged export, its chain recomputed (what anyone with write access can do), fails
/// the audit with a finding in these words.
fn assert_named(events: &mut [RecordedEvent], words: &str) {
    relink(events);
    let report = audit(events);
    assert_eq!(report.outcome, Outcome::Failed, "{}", report.render());
    assert!(report.render().contains(words), "{}", report.render());
}

/// Every power leaves orders for all its battles on the first turn: lose tanks first.
fn every_power_leaves_orders(game: &mut SampleGame) {
    for power in game.log.ruleset.board.turn_order().to_vec() {
        assert!(
            give(game, power, vec![lose_first("ARM")]),
            "{power} sets orders"
        );
    }
}

/// Plays on until the power to play has a battle with a defender; the place's name, the
/// attacker and the defender.
fn at_a_defended_battle(game: &mut SampleGame) -> (String, Power, Power) {
    for _ in 0..40 {
        let place = game.play_until_battle(20_000).expect("a battle comes");
        let state = &game.log.state;
        let board = &game.log.ruleset.board;
        let attacker = state.power(board);
        let id = board.id(&place).expect("a place");
        let defender = state.forces[id.index()]
            .keys()
            .map(|(owner, _, _)| *owner)
            .chain(state.holder[id.index()])
            .find(|owner| *owner != attacker);
        if let Some(defender) = defender {
            return (place, attacker, defender);
        }
        game.play_random_order();
    }
    panic!("no defended battle")
}

fn fight(game: &mut SampleGame, place: &str, attacker: Power) -> Vec<GameStreamEvent> {
    let before = game.stream.len();
    let order = serde_json::from_value(serde_json::json!({
        "type": "fight_battle", "territory": place
    }))
    .expect("an order");
    assert!(give(game, attacker, vec![order]), "the battle is fought");
    game.stream[before..]
        .iter()
        .map(|(e, _)| e.clone())
        .collect()
}

fn fought(events: &[GameStreamEvent]) -> &warlog_rules::game::combat::BattleFought {
    events
        .iter()
        .find_map(|e| match e {
            GameStreamEvent::Played(GameEvent::BattleFought(b)) => Some(&**b),
            _ => None,
        })
        .expect("a battle")
}

#[test]
fn standing_orders_stand_sealed_in_the_record_and_in_the_events() {
    let mut game = game();
    // Given every power's standing orders...
    every_power_leaves_orders(&mut game);
    // ...then nothing in the export says what they are.
    let export: Vec<String> = game
        .recorded()
        .iter()
        .map(|e| serde_json::to_string(&e.payload).expect("json"))
        .collect();
    assert!(
        export.iter().all(|e| !e.contains("order_of_loss")),
        "{export:?}"
    );
    let sealed = export
        .iter()
        .filter(|e| e.contains("\"commitment\""))
        .count();
    assert_eq!(
        sealed, 10,
        "five records and five sealed events: {export:?}"
    );
    assert!(matches!(
        &game.stream[2].0,
        GameStreamEvent::Played(GameEvent::StandingOrdersSealed { .. })
    ));
}

#[test]
fn a_battle_reveals_the_orders_it_follows_and_says_when_they_were_given() {
    let mut game = game();
    every_power_leaves_orders(&mut game);
    let (place, attacker, defender) = at_a_defended_battle(&mut game);
    let events = fight(&mut game, &place, attacker);
    let revealed = events.iter().position(|e| {
        matches!(e, GameStreamEvent::Played(GameEvent::StandingOrdersRevealed { power, .. }) if *power == defender)
    });
    let battle = fought(&events);
    let applied = battle.standing_orders.as_ref().expect("orders followed");
    assert_eq!(
        revealed,
        Some(1),
        "revealed first, after the record: {events:?}"
    );
    assert_eq!(
        (applied.given_round, applied.given_during),
        (1, Power::Russia)
    );
    assert!(
        battle.listing.starts_with(&format!(
            "Defender's standing orders ({}, for all its battles, given in round 1 on Russia's turn): lose ARM first\n",
            defender.name()
        )),
        "{}",
        battle.listing
    );
    // The auditor checks the reveal while the game runs, and every sealing once it is over.
    let running = audit(&game.recorded());
    assert_eq!(running.outcome, Outcome::Partial, "{}", running.render());
    assert!(running.findings.is_empty(), "{}", running.render());
    assert!(game.end(), "ended");
    let over = audit(&game.recorded());
    assert_eq!(over.outcome, Outcome::Passed, "{}", over.render());
}

#[test]
fn orders_given_during_the_attackers_turn_wait_for_its_end() {
    let mut game = game();
    let (place, attacker, defender) = at_a_defended_battle(&mut game);
    // Given the attack has begun, when the defender leaves orders...
    assert!(
        give(&mut game, defender, vec![lose_first("ARM")]),
        "any time"
    );
    // ...then the battle follows the defaults and reveals nothing.
    let events = fight(&mut game, &place, attacker);
    assert!(events.iter().all(|e| !matches!(
        e,
        GameStreamEvent::Played(GameEvent::StandingOrdersRevealed { .. })
    )));
    let battle = fought(&events);
    assert_eq!(battle.standing_orders, None);
    assert!(!battle.listing.starts_with("Defender's standing orders"));
}

#[test]
fn a_forged_reveal_is_named_by_the_auditor() {
    let mut game = game();
    every_power_leaves_orders(&mut game);
    let (place, attacker, _) = at_a_defended_battle(&mut game);
    fight(&mut game, &place, attacker);
    let mut events = game.recorded();
    let at = events
        .iter()
        .position(|e| e.event_type.as_str() == "StandingOrdersRevealed")
        .expect("a reveal");
    // INF first instead of ARM first, the chain recomputed.
    let shown = events[at].payload.to_string();
    let orders = events[at]
        .payload
        .pointer_mut("/orders/order_of_loss")
        .unwrap_or_else(|| panic!("orders in {shown}"));
    *orders = serde_json::json!([0]);
    assert_named(&mut events, "do not match its commitment");
}

#[test]
fn orders_in_their_sealed_form_are_refused_from_a_client() {
    let mut game = game();
    assert!(give(&mut game, Power::Russia, vec![lose_first("ARM")]));
    let GameStreamEvent::Orders(record) = &game.stream[1].0 else {
        panic!("a record")
    };
    // Given the record's sealed form, sent again: sealed for another event.
    let copied = record.orders_sent()[0].clone();
    let again = command(&game, Power::Russia, vec![copied.clone()]);
    let refused = game
        .log
        .decide_command(&again, DiceSupply::Seed(&game.seed))
        .expect_err("not sealed for this event");
    assert!(
        matches!(&refused, Refusal::Rule { violation, .. } if violation.code == ViolationCode::StandingOrdersSealed),
        "{refused}"
    );
    // And one claiming this event, that the server did not seal, does not open.
    let NamedOrder::SealedStandingOrders {
        sealed: Some(mut sealed),
        territory,
    } = copied
    else {
        panic!("sealed: {copied:?}")
    };
    sealed.sealed_at = game.log.version + 2;
    let forged = command(
        &game,
        Power::Russia,
        vec![NamedOrder::SealedStandingOrders {
            territory,
            sealed: Some(sealed),
        }],
    );
    let refused = game
        .log
        .decide_command(&forged, DiceSupply::Seed(&game.seed))
        .expect_err("does not open");
    assert!(refused.to_string().contains("do not open"), "{refused}");
}

#[test]
fn a_game_from_before_sealing_keeps_its_orders_in_the_open() {
    let mut game = game();
    game.log.created.standing_orders_sealed = false;
    assert!(give(&mut game, Power::Russia, vec![lose_first("ARM")]));
    assert!(matches!(
        &game.stream[2].0,
        GameStreamEvent::Played(GameEvent::StandingOrdersSet { .. })
    ));
}

#[test]
fn sealed_orders_altered_on_the_record_are_named_once_the_seed_opens_them() {
    let mut game = game();
    every_power_leaves_orders(&mut game);
    let (place, attacker, _) = at_a_defended_battle(&mut game);
    fight(&mut game, &place, attacker);
    assert!(game.end(), "ended");
    let mut events = game.recorded();
    // One hex digit of Russia's ciphertext changed, in its record and its event alike.
    let flip = |text: &str| {
        let mut chars: Vec<char> = text.chars().collect();
        chars[0] = if chars[0] == '0' { '1' } else { '0' };
        chars.into_iter().collect::<String>()
    };
    let sealed = events[2].payload["sealed"]["ciphertext"]
        .as_str()
        .expect("sealed")
        .to_owned();
    events[2].payload["sealed"]["ciphertext"] = serde_json::json!(flip(&sealed));
    events[1].payload["command"]["orders"][0]["sealed"]["ciphertext"] =
        serde_json::json!(flip(&sealed));
    assert_named(&mut events, "do not open");
}

#[test]
fn sealed_orders_that_do_not_open_after_a_battle_cut_the_command_off_instead_of_refusing_it() {
    // A refusal of the whole command after its dice would tell how they fell.
    let mut game = game();
    let (place, attacker, _) = at_a_defended_battle(&mut game);
    let orders = vec![
        serde_json::from_value(serde_json::json!({"type": "fight_battle", "territory": place}))
            .expect("an order"),
        NamedOrder::SealedStandingOrders {
            territory: None,
            sealed: Some(warlog_rules::game::standing::SealedOrders {
                commitment: "00".into(),
                ciphertext: "00".into(),
                sealed_at: 0,
            }),
        },
    ];
    let given = command(&game, attacker, orders);
    let decided = game
        .log
        .decide_command(&given, DiceSupply::Seed(&game.seed))
        .expect("the battle stands");
    let cut = decided.cut_off.expect("cut off at the sealed orders");
    assert_eq!(cut.index, 1);
    assert_eq!(cut.violation.code, ViolationCode::StandingOrdersSealed);
}
