//! Proxies on sample games, decided as the server decides them (no database). Cut-Throat,
//! Rules for players: "Temporary proxies should be given to trusted allies during planned
//! absences."

use super::*;
use crate::audit::{audit_game, Outcome};
use crate::orders::{Command, DiceSupply, OrdersGiven, Refusal};
use crate::sample::{SampleGame, GAME_MASTER};
use crate::RecordedEvent;
use warlog_rules::dice::GameSeed;
use warlog_rules::game::named::NamedOrder;
use warlog_rules::game::DirectorOrder;
use warlog_rules::ruleset::Ruleset;

const DAY: u64 = 24 * 60 * 60;

fn a_game() -> SampleGame {
    SampleGame::new(
        Ruleset::builtin("cutthroat").expect("cutthroat"),
        "proxy-test",
        GameSeed::from_bytes([5; 32]),
        1,
    )
}

/// The power to act, its player, and the players of the next two powers (allies to trust).
fn at_the_table(game: &SampleGame) -> (Power, String, String, String) {
    let log = &game.log;
    let power = log.state.to_act(log.ruleset.rules());
    let order = log.ruleset.board.turn_order();
    let at = order
        .iter()
        .position(|p| *p == power)
        .expect("in the turn order");
    let seated = |k: usize| {
        log.state.seats[&order[(at + k) % order.len()]]
            .player
            .clone()
    };
    (power, seated(0), seated(1), seated(2))
}

/// The power seated to `player`'s name.
fn power_of(game: &SampleGame, player: &str) -> Power {
    game.log
        .state
        .seats
        .iter()
        .find(|(_, seat)| seat.player == player)
        .map(|(power, _)| *power)
        .expect("seated")
}

fn as_player(name: &str) -> Sender {
    Sender {
        role: Role::Player,
        name: name.to_owned(),
    }
}

fn sender(role: Role, name: &str) -> Sender {
    Sender {
        role,
        name: name.to_owned(),
    }
}

fn naming(power: Power, proxy: &str, until: Moment) -> Command {
    Command::NameProxy {
        power,
        proxy: proxy.to_owned(),
        until,
    }
}

fn end_phase(power: Power) -> Command {
    Command::Orders {
        power,
        orders: vec![NamedOrder::EndPhase],
    }
}

/// The refusal's words, with its kind: `forbidden: ...` or `rule: ...`.
fn refusal(sent: Result<(), Refusal>) -> String {
    match sent.expect_err("refused") {
        Refusal::Forbidden(why) => format!("forbidden: {why}"),
        Refusal::Rule { violation, .. } => {
            format!("rule {}: {}", violation.code.as_str(), violation.message)
        }
        other => format!("other: {other}"),
    }
}

/// The last record on the game's stream.
fn last_record(game: &SampleGame) -> &OrdersGiven {
    game.stream
        .iter()
        .rev()
        .find_map(|(event, _)| match event {
            GameStreamEvent::Orders(given) => Some(given),
            _ => None,
        })
        .expect("a record")
}

#[test]
fn a_player_names_an_ally_who_gives_the_powers_orders_until_the_stated_time_marked_as_the_proxys() {
    // Given a game, the power to act played by its player, and the next power's player;
    let mut game = a_game();
    let (power, player, ally, _) = at_the_table(&game);
    let until = game.now.plus_seconds(2 * DAY);
    // when the player names the ally proxy for two days,
    game.try_send(as_player(&player), naming(power, &ally, until))
        .expect("named");
    // then the record and ProxyNamed are on the stream, the seat unchanged;
    let tail: Vec<&GameStreamEvent> = game.stream.iter().rev().take(2).map(|(e, _)| e).collect();
    assert!(
        matches!(tail[0], GameStreamEvent::ProxyNamed(named)
            if named.proxy == ally && named.player == player && named.until == until),
        "{tail:?}"
    );
    assert!(matches!(tail[1], GameStreamEvent::Orders(_)));
    assert_eq!(game.log.state.seats[&power].player, player);
    // when the ally orders the power, then the orders stand, marked as the proxy's on the
    // record and counted apart from the player's own;
    game.try_send(as_player(&ally), end_phase(power))
        .expect("the proxy orders");
    assert_eq!(
        last_record(&game).proxy_for.as_deref(),
        Some(player.as_str())
    );
    let counted = game.log.orders_by_power[&power];
    assert_eq!((counted.by_player, counted.by_proxy), (0, 1));
    assert!(
        !game.log.not_played_in_person().contains(&power),
        "a proxy the player named plays for them in person"
    );
    // and the proxy may not declare the power passive (the master's judgement);
    let passive = Command::Orders {
        power,
        orders: vec![NamedOrder::GoPassive],
    };
    assert!(refusal(game.try_send(as_player(&ally), passive)).starts_with("forbidden"));
    // the player still orders the power, unmarked;
    game.try_send(as_player(&player), end_phase(power))
        .expect("the player orders");
    assert_eq!(last_record(&game).proxy_for, None);
    // when the stated time comes, then the proxy's orders are refused, saying why.
    game.now = until;
    let late = refusal(game.try_send(as_player(&ally), end_phase(power)));
    assert!(
        late.starts_with("forbidden")
            && late.contains(&format!("{ally}'s proxy for {player} ended at")),
        "{late}"
    );
}

#[test]
fn a_proxy_is_named_by_the_seated_player_or_the_master_and_ended_by_them_or_the_proxy() {
    // Given a game and three of its players;
    let mut game = a_game();
    let (power, player, ally, other) = at_the_table(&game);
    let until = game.now.plus_seconds(DAY);
    // when another player names a proxy for a power not theirs, then it is refused;
    let foreign = refusal(game.try_send(as_player(&other), naming(power, &ally, until)));
    assert!(
        foreign.starts_with("forbidden") && foreign.contains("is named by its player"),
        "{foreign}"
    );
    // when an auditor does, or a game master of another game, then refused too;
    for by in [
        sender(Role::Auditor, "audrey"),
        sender(Role::Gm, "someone-else"),
    ] {
        assert!(refusal(game.try_send(by, naming(power, &ally, until))).starts_with("forbidden"));
    }
    // when the game's master names one, then it stands;
    game.try_send(sender(Role::Gm, GAME_MASTER), naming(power, &ally, until))
        .expect("the master names a proxy");
    // the proxy may not name another proxy in turn;
    let again = refusal(game.try_send(as_player(&ally), naming(power, &other, until)));
    assert!(again.starts_with("forbidden"), "{again}");
    // when the proxy ends it, then it is over, and the proxy gives no more orders;
    game.try_send(as_player(&ally), Command::EndProxy { power })
        .expect("the proxy steps down");
    assert!(matches!(
        game.stream.last(),
        Some((GameStreamEvent::ProxyEnded(ended), _)) if ended.proxy == ally
    ));
    assert!(refusal(game.try_send(as_player(&ally), end_phase(power))).starts_with("forbidden"));
    // and ending it again is refused by the rule: there is none.
    let none = refusal(game.try_send(as_player(&player), Command::EndProxy { power }));
    assert!(
        none.starts_with("rule bad-proxy") && none.contains("no proxy in force"),
        "{none}"
    );
    // The seated player names one and ends it early.
    game.try_send(
        as_player(&player),
        naming(power, &ally, game.now.plus_seconds(DAY)),
    )
    .expect("named");
    game.try_send(as_player(&player), Command::EndProxy { power })
        .expect("ended by the player");
    assert!(game.log.proxies.is_empty());
}

#[test]
fn a_proxy_is_another_player_not_the_master_for_one_power_at_a_time_and_at_most_thirty_days() {
    // Given a game and three of its players;
    let mut game = a_game();
    let (power, player, ally, other) = at_the_table(&game);
    // when the player names themself, the game master, nobody, a time not after the
    // naming or more than 30 days on, then each is refused by the rule, naming why.
    // (Each until is this many seconds after the naming.)
    let cases = [
        (player.as_str(), DAY, "a proxy is another player"),
        (GAME_MASTER, DAY, "this game's master"),
        ("  ", DAY, "name the player"),
        (ally.as_str(), 0, "not after it"),
        (ally.as_str(), 30 * DAY + 1, "31 days after it"),
    ];
    for (proxy, after, why) in cases {
        // (Each command is sent a minute after the last.)
        let until = game.now.plus_seconds(60 + after);
        let refused = refusal(game.try_send(as_player(&player), naming(power, proxy, until)));
        assert!(
            refused.starts_with("rule bad-proxy") && refused.contains(why),
            "{proxy} until {until:?}: {refused}"
        );
    }
    let in_a_day = game.now.plus_seconds(DAY);
    // When the ally is named for 30 days to the second, then it stands;
    let month = game.now.plus_seconds(60 + 30 * DAY);
    game.try_send(as_player(&player), naming(power, &ally, month))
        .expect("thirty days");
    // when the next power's player names the same ally for theirs, then refused: one power
    // at a time,
    let third = power_of(&game, &other);
    let twice = refusal(game.try_send(as_player(&other), naming(third, &ally, in_a_day)));
    assert!(
        twice.contains("a player is proxy for one power at a time"),
        "{twice}"
    );
    // but the ally, proxy for the player, may name the player proxy for the ally's own power
    // (trusted allies both ways).
    let allys = power_of(&game, &ally);
    game.try_send(as_player(&ally), naming(allys, &player, in_a_day))
        .expect("each the other's proxy");
}

#[test]
fn naming_a_proxy_does_not_stop_the_inactivity_clock_and_a_substitution_ends_the_proxy() {
    // Given the power to act's player names an ally proxy for a day,
    let mut game = a_game();
    let (power, player, ally, _) = at_the_table(&game);
    game.try_send(
        as_player(&player),
        naming(power, &ally, game.now.plus_seconds(DAY)),
    )
    .expect("named");
    // when four days pass with nothing played and the player names the ally again,
    game.now = game.now.plus_seconds(4 * DAY);
    game.try_send(
        as_player(&player),
        naming(power, &ally, game.now.plus_seconds(DAY)),
    )
    .expect("named again");
    // then the turn has still waited more than 3 days: a substitute may be appointed;
    let director = sender(Role::Director, GAME_MASTER);
    let replace = Command::ReplaceInactivePlayer {
        substitute: "zed".to_owned(),
    };
    game.try_send(director, replace).expect("a substitute");
    // and the substitution ends the proxy: the ally orders the power no more,
    assert!(!game.log.proxies.contains_key(&power));
    assert!(refusal(game.try_send(as_player(&ally), end_phase(power))).starts_with("forbidden"));
    // and the substitute, not yet permanent, names no proxy of their own.
    let early = refusal(game.try_send(
        as_player("zed"),
        naming(power, &ally, game.now.plus_seconds(DAY)),
    ));
    assert!(early.contains("substitute names no proxy"), "{early}");
    // (The engine agrees that the power's turn is the substitute's to play.)
    assert!(game
        .log
        .decide_director(
            &DirectorOrder::ReplaceInactivePlayer {
                substitute: "yan".to_owned()
            },
            game.now
        )
        .is_err());
}

/// A game in which the power to act's player names an ally proxy for an hour, the ally
/// ends a phase for the power, and then: `after` is done to it, and the master ends it
/// (the seed revealed). The export, the power and the ally.
fn proxied(after: impl FnOnce(&mut SampleGame, Power, &str)) -> (Vec<RecordedEvent>, String) {
    let mut game = a_game();
    let (power, player, ally, _) = at_the_table(&game);
    game.try_send(
        as_player(&player),
        naming(power, &ally, game.now.plus_seconds(3600)),
    )
    .expect("named");
    game.try_send(as_player(&ally), end_phase(power))
        .expect("the proxy orders");
    after(&mut game, power, &ally);
    assert!(game.end(), "the master ends the game");
    (game.recorded(), ally)
}

#[test]
fn an_honest_game_with_a_proxy_passes_the_audit() {
    let (events, _) = proxied(|_, _, _| {});
    let report = audit_game(&events, None, None);
    assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
}

#[test]
fn an_order_forged_for_an_expired_proxy_fails_the_audit_naming_the_proxy() {
    // Given a game whose log holds, after the proxy's hour, an order for the power by the
    // proxy with exactly the events the rules would give it had the proxy still been in
    // force (a log written around the server);
    let (events, ally) = proxied(|game, power, ally| {
        game.now = game.now.plus_seconds(2 * 3600);
        let mut lenient = game.log.clone();
        if let Some(named) = lenient.proxies.get_mut(&power) {
            named.until = game.now.plus_seconds(DAY);
        }
        let forged = OrdersGiven::new(
            as_player(ally),
            game.log.version,
            game.now,
            end_phase(power),
        );
        let decided = lenient
            .decide_command(&forged, DiceSupply::Seed(&game.seed))
            .expect("decided as if in force");
        let actor = as_player(ally).actor();
        game.stream
            .extend(decided.events.into_iter().map(|e| (e, actor.clone())));
        game.log = decided.after;
    });
    // when it is audited, then the audit fails at that record, naming the proxy and why.
    let forged = events
        .iter()
        .rev()
        .find(|e| {
            e.event_type.as_str() == "OrdersGiven" && e.payload["sender"]["name"] == ally.as_str()
        })
        .expect("the forged record");
    let report = audit_game(&events, None, None);
    assert_eq!(report.outcome, Outcome::Failed, "{}", report.render());
    let finding = report
        .findings
        .iter()
        .find(|f| f.event == forged.stream_version)
        .unwrap_or_else(|| panic!("a finding at the forged record:\n{}", report.render()));
    assert!(
        finding
            .message
            .contains(&format!("player {ally} may not give 1 order for"))
            && finding.message.contains("proxy for")
            && finding.message.contains("ended at"),
        "{}",
        finding.message
    );
}

#[test]
fn a_proxys_orders_left_unmarked_on_their_record_fail_the_audit() {
    // Given an honest game with a proxy's orders, whose record's mark is taken off;
    let (mut events, ally) = proxied(|_, _, _| {});
    let record = events
        .iter()
        .position(|e| e.payload.get("proxy_for").is_some())
        .expect("a marked record");
    if let Some(payload) = events[record].payload.as_object_mut() {
        payload.remove("proxy_for");
    }
    crate::relink(&mut events);
    // when it is audited, then the record is named: the proxy's orders are not marked.
    let report = audit_game(&events, None, None);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.event == events[record].stream_version
                && f.message
                    .contains(&format!("player {ally} gave these orders"))
                && f.message.contains("does not mark them as given by proxy")),
        "{}",
        report.render()
    );
}
