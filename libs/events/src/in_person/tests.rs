//! Who played in person, on sample games decided as the server decides them (no
//! database): the orders of the player scored at each seat, by their own hand or through
//! a proxy they named, and nobody else's.

use super::*;
use crate::game::GameStatus;
use crate::sample::{SampleGame, GAME_MASTER};
use crate::sender::Sender;
use warlog_rules::dice::GameSeed;
use warlog_rules::game::named::NamedOrder;
use warlog_rules::game::Moment;
use warlog_rules::ruleset::Ruleset;

const DAY: u64 = 24 * 60 * 60;

fn a_game() -> SampleGame {
    SampleGame::new(
        Ruleset::builtin("cutthroat").expect("cutthroat"),
        "in-person-test",
        GameSeed::from_bytes([6; 32]),
        1,
    )
}

fn as_role(role: Role, name: &str) -> Sender {
    Sender {
        role,
        name: name.to_owned(),
    }
}

fn game_master() -> Sender {
    as_role(Role::Gm, GAME_MASTER)
}

/// The power to act and its player.
fn to_act(game: &SampleGame) -> (Power, String) {
    let log = &game.log;
    let power = log.state.to_act(log.ruleset.rules());
    (power, log.state.seats[&power].player.clone())
}

/// Another seated player than the one at `power`: an ally at the table.
fn an_ally(game: &SampleGame, power: Power) -> String {
    game.log
        .state
        .seats
        .iter()
        .find(|(p, _)| **p != power)
        .map(|(_, seat)| seat.player.clone())
        .expect("another player")
}

fn end_phase(power: Power) -> Command {
    Command::Orders {
        power,
        orders: vec![NamedOrder::EndPhase],
    }
}

fn naming(power: Power, proxy: &str, until: Moment) -> Command {
    Command::NameProxy {
        power,
        proxy: proxy.to_owned(),
        until,
    }
}

#[test]
fn a_proxy_the_game_master_names_does_not_play_for_the_player_in_person() {
    // Given the power to act, and an ally at the table the game master names its proxy,
    let mut game = a_game();
    let (power, _) = to_act(&game);
    let ally = an_ally(&game, power);
    let until = game.now.plus_seconds(DAY);
    game.try_send(game_master(), naming(power, &ally, until))
        .expect("the master names a proxy");
    // when the ally gives the power's orders,
    game.try_send(as_role(Role::Player, &ally), end_phase(power))
        .expect("the proxy orders");
    // then the power's player has still not played in person.
    assert!(game.log.not_played_in_person().contains(&power));
}

#[test]
fn a_proxy_the_player_names_plays_for_them_and_naming_it_is_their_own_act() {
    // Given the power to act, whose player names an ally proxy,
    let mut game = a_game();
    let (power, player) = to_act(&game);
    let ally = an_ally(&game, power);
    let until = game.now.plus_seconds(DAY);
    game.try_send(as_role(Role::Player, &player), naming(power, &ally, until))
        .expect("named");
    // then the naming is the player's act in person, and so are the proxy's orders.
    assert!(!game.log.not_played_in_person().contains(&power));
    game.try_send(as_role(Role::Player, &ally), end_phase(power))
        .expect("the proxy orders");
    assert!(game.in_person_of(power, &player));
}

#[test]
fn a_substitutes_order_does_not_count_for_the_player_who_keeps_the_seats_result() {
    // Given the power to act, whose player never moved, replaced after four idle days,
    let mut game = a_game();
    let (power, player) = to_act(&game);
    game.now = game.now.plus_seconds(4 * DAY);
    let replace = Command::ReplaceInactivePlayer {
        substitute: "zed".to_owned(),
    };
    game.try_send(as_role(Role::Director, GAME_MASTER), replace)
        .expect("a substitute");
    // when the substitute gives an order, and the game master the rest of the round,
    game.try_send(as_role(Role::Player, "zed"), end_phase(power))
        .expect("the substitute orders");
    while game.log.state.round == 1 {
        let (next, _) = to_act(&game);
        assert!(game.send(game_master(), end_phase(next)));
    }
    // then the seat's result is still the replaced player's, who never played in person:
    let seat = &game.log.state.seats[&power];
    assert_eq!(seat.scored_by().0, player);
    assert!(game.log.not_played_in_person().contains(&power));
    // and the game, ended, is played by its game master alone.
    assert!(game.end());
    assert_eq!(game.log.status(), GameStatus::MasterOnly);
}

#[test]
fn a_game_created_before_the_rule_keeps_its_rating_though_its_master_played_it_alone() {
    // Given a game created before the rule, its first round played by its master alone,
    let mut game = a_game();
    game.log.created.played_in_person = false;
    while game.log.state.round == 1 {
        let (next, _) = to_act(&game);
        assert!(game.send(game_master(), end_phase(next)));
    }
    // when it ends, then it is rated as it was, though the record says who never played.
    assert!(game.end());
    assert_eq!(game.log.status(), GameStatus::Ended);
    assert_eq!(game.log.not_played_in_person().len(), 5);
}

impl SampleGame {
    /// Whether `player` acted in person at `power`.
    fn in_person_of(&self, power: Power, player: &str) -> bool {
        self.log.in_person.acted(power, player)
    }
}
