//! Every power's share of the record, given/when/then on sample games decided as the server
//! decides them (no database): the out-of-turn limit per turn, the terms' length, and a
//! game created before the limits, which keeps none and audits as it was decided.

use super::*;
use crate::audit::{audit_game, Outcome};
use crate::game::{GameLog, GameStreamEvent};
use crate::orders::{DiceSupply, Refusal};
use crate::sample::SampleGame;
use crate::sender::{Role, Sender};
use warlog_rules::dice::GameSeed;
use warlog_rules::ruleset::Ruleset;

/// A Cut-Throat game in round 1: Russia on turn, Japan not.
fn game() -> SampleGame {
    let game = SampleGame::new(
        Ruleset::builtin("cutthroat").expect("cutthroat"),
        "shares-test",
        GameSeed::from_bytes([3; 32]),
        1,
    );
    assert_eq!(game.log.state.power(&game.log.ruleset.board), Power::Russia);
    game
}

/// A game as recorded before the limits: its `GameCreated` without the flag.
fn game_from_before() -> SampleGame {
    let mut game = game();
    game.log.created.shares_bounded = false;
    let GameStreamEvent::Created(created) = &mut game.stream[0].0 else {
        panic!("the stream starts with GameCreated")
    };
    created.shares_bounded = false;
    game
}

fn player(game: &SampleGame, power: Power) -> Sender {
    Sender {
        role: Role::Player,
        name: game.log.state.seats[&power].player.clone(),
    }
}

/// Standing orders for all of a power's battles: lose infantry first.
fn standing_orders() -> NamedOrder {
    serde_json::from_value(serde_json::json!({
        "type": "set_standing_orders", "order_of_loss": ["INF"]
    }))
    .expect("an order")
}

fn standing(count: usize) -> Vec<NamedOrder> {
    vec![standing_orders(); count]
}

fn offer(with: Power, terms: String) -> NamedOrder {
    NamedOrder::OfferAgreement { with, terms }
}

/// `power`'s player sends `orders`: the refusal, if refused.
fn send(game: &mut SampleGame, power: Power, orders: Vec<NamedOrder>) -> Result<(), Refusal> {
    let sender = player(game, power);
    game.try_send(sender, Command::Orders { power, orders })
}

/// The power on turn ends phases until the turn passes to the next power.
fn pass_the_turn(game: &mut SampleGame) {
    let board = &game.log.ruleset.board;
    let on = game.log.state.power(board);
    while game.log.state.power(&game.log.ruleset.board) == on {
        send(game, on, vec![NamedOrder::EndPhase]).expect("the phase ends");
    }
}

fn refused_code(refusal: &Refusal) -> Option<ViolationCode> {
    match refusal {
        Refusal::Rule { violation, .. } => Some(violation.code),
        _ => None,
    }
}

/// The audit of the game's record, its seed revealed by its end.
fn audited(game: &mut SampleGame) {
    assert!(game.end(), "the game ends");
    let report = audit_game(&game.recorded(), None, None);
    assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
}

#[test]
fn the_orders_past_the_out_of_turn_limit_are_refused_whole_and_append_nothing() {
    // Given Japan, not on turn, with 19 standing orders and an offer on the record,
    let mut game = game();
    send(&mut game, Power::Japan, standing(19)).expect("19 standing orders");
    send(
        &mut game,
        Power::Japan,
        vec![offer(Power::Germany, "a pact".into())],
    )
    .expect("an offer, the 20th");
    assert_eq!(game.log.out_of_turn_orders[&Power::Japan], 20);
    let (version, events) = (game.log.version, game.stream.len());
    // when it sends a 21st order, or a flood of 200,
    for count in [1, 200] {
        let refused = send(&mut game, Power::Japan, standing(count)).expect_err("past the limit");
        // then the whole command is refused, naming the power, the limit and when it resets,
        assert_eq!(refused_code(&refused), Some(ViolationCode::OutOfTurnLimit));
        let words = refused.to_string();
        for said in [
            "orders: Japan may give at most 20 orders a turn",
            "during Russia's turn",
            "starts again when the turn passes",
        ] {
            assert!(words.contains(said), "{words}");
        }
        // and nothing is appended.
        assert_eq!((game.log.version, game.stream.len()), (version, events));
    }
    // Another power not on turn has a share of its own.
    send(&mut game, Power::Germany, standing(20)).expect("Germany's own share");
    // And the record, folded or audited again, counts and decides the same.
    let folded = GameLog::fold(&game.recorded()).expect("folds");
    assert_eq!(folded.out_of_turn_orders, game.log.out_of_turn_orders);
    audited(&mut game);
}

#[test]
fn the_count_starts_again_when_the_turn_passes() {
    // Given Japan at its limit during Russia's turn,
    let mut game = game();
    send(&mut game, Power::Japan, standing(20)).expect("20 standing orders");
    assert!(send(&mut game, Power::Japan, standing(1)).is_err());
    // when the turn passes to Germany,
    pass_the_turn(&mut game);
    assert_eq!(
        game.log.state.power(&game.log.ruleset.board),
        Power::Germany
    );
    assert!(game.log.out_of_turn_orders.is_empty());
    // then Japan may give 20 orders again, and no more.
    send(&mut game, Power::Japan, standing(20)).expect("a new turn's share");
    let refused = send(&mut game, Power::Japan, standing(1)).expect_err("past it again");
    assert_eq!(refused_code(&refused), Some(ViolationCode::OutOfTurnLimit));
    assert!(refused.to_string().contains("during Germany's turn"));
    audited(&mut game);
}

#[test]
fn the_power_on_turn_is_not_limited() {
    // Given Russia on turn,
    let mut game = game();
    // when it sends 3 batches of 30 standing orders,
    for _ in 0..3 {
        send(&mut game, Power::Russia, standing(30)).expect("on turn");
    }
    // then all are taken, and none counts against a share.
    assert!(game.log.out_of_turn_orders.is_empty());
    audited(&mut game);
}

#[test]
fn terms_of_2000_characters_are_taken_and_of_2001_refused() {
    let mut game = game();
    // Given terms one character past the limit, from either side of the turn,
    for (by, with) in [
        (Power::Japan, Power::Germany),
        (Power::Russia, Power::Germany),
    ] {
        let long = offer(with, "x".repeat(MAX_TERMS_CHARS + 1));
        let (version, events) = (game.log.version, game.stream.len());
        // when they are offered after an order that is fine,
        let refused = send(&mut game, by, vec![standing_orders(), long]).expect_err("too long");
        // then the command is refused, naming the order and the limit, and appends nothing.
        assert_eq!(refused_code(&refused), Some(ViolationCode::TermsTooLong));
        assert!(
            refused
                .to_string()
                .starts_with("orders[1]: an agreement's terms are at most 2,000 characters"),
            "{refused}"
        );
        assert!(refused.to_string().contains("these are 2,001"), "{refused}");
        assert_eq!((game.log.version, game.stream.len()), (version, events));
        // Terms of 2,000 characters (counted as characters, not bytes) are taken.
        send(
            &mut game,
            by,
            vec![offer(with, "é".repeat(MAX_TERMS_CHARS))],
        )
        .expect("at the limit");
    }
    audited(&mut game);
}

#[test]
fn a_game_created_before_the_limits_keeps_none_and_audits_as_decided() {
    // Given a game recorded before the limits,
    let mut game = game_from_before();
    // when Japan, not on turn, sends 3 batches of 30 and long terms,
    for _ in 0..3 {
        send(&mut game, Power::Japan, standing(30)).expect("unbounded");
    }
    send(
        &mut game,
        Power::Japan,
        vec![offer(Power::Germany, "x".repeat(20_000))],
    )
    .expect("long terms");
    // then all are taken, and its record audits as it was decided.
    assert_eq!(game.log.out_of_turn_orders[&Power::Japan], 91);
    let decided_again = game
        .log
        .decide_command(
            &crate::orders::OrdersGiven::new(
                player(&game, Power::Japan),
                game.log.version,
                game.now,
                Command::Orders {
                    power: Power::Japan,
                    orders: standing(1),
                },
            ),
            DiceSupply::Seed(&game.seed),
        )
        .map(|_| ());
    assert_eq!(decided_again, Ok(()));
    audited(&mut game);
}

#[test]
fn the_limits_are_written_as_the_docs_state_them() {
    assert_eq!(thousands(MAX_TERMS_CHARS), "2,000");
    assert_eq!(thousands(200_000), "200,000");
    assert_eq!(thousands(20), "20");
    assert_eq!(left_this_turn(&game().log, Power::Japan), Some(20));
    assert_eq!(left_this_turn(&game_from_before().log, Power::Japan), None);
}

#[test]
fn naming_a_proxy_again_and_again_out_of_turn_counts_against_the_share() {
    // Given Japan, not on turn, with another player to name as its proxy,
    let mut game = game();
    let japan = Power::Japan;
    let ally = game.log.state.seats[&Power::Germany].player.clone();
    let until = game.now.plus_seconds(86_400);
    // when Japan's player names the proxy, and names it again, twenty times in all,
    for _ in 0..MAX_ORDERS_OUT_OF_TURN {
        let sender = player(&game, japan);
        game.try_send(
            sender,
            Command::NameProxy {
                power: japan,
                proxy: ally.clone(),
                until,
            },
        )
        .expect("a proxy named");
    }
    // then the twenty-first is refused, and nothing is appended;
    let version = game.log.version;
    let sender = player(&game, japan);
    let refused = game
        .try_send(
            sender,
            Command::NameProxy {
                power: japan,
                proxy: ally,
                until,
            },
        )
        .expect_err("past the share");
    assert_eq!(refused_code(&refused), Some(ViolationCode::OutOfTurnLimit));
    assert_eq!(game.log.version, version);
    // and the record still passes its audit.
    let report = audit_game(&game.recorded(), None, None);
    assert_ne!(report.outcome, Outcome::Failed, "{:?}", report.findings);
}
