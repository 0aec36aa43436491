//! The turn report, as a game master mails it to every player at the table when a turn is
//! recorded: the orders as written, what happened, every die of every battle round by
//! round, the money, whose move is next, and links to the game and its map.
//!
//! IAAPA, Part 13: "The GM is required to list all die rolls for every round of all
//! battles". Each battle's listing is the one the battle event holds, line for line, so
//! the report and the record cannot disagree. The orders are those on the record, where
//! standing orders stand sealed: the report says that a power set some, never which, until
//! a battle reveals them.
//!
//! The text is plain, its prose wrapped under 76 columns; a listing's lines and a link are
//! kept whole. Every line ends in `\n` (the mailer sends CRLF).

use std::collections::BTreeSet;

use warlog_rules::board::Power;
use warlog_rules::game::{words, GameEvent, Rules};
use warlog_rules::notation::render_order;

use crate::command::{Command, OrdersGiven};
use crate::game::{join_names, GameLog, GameStatus, GameStreamEvent};
use crate::sender::Role;

/// Prose is wrapped to this width: a mail reader shows it as written.
const WIDTH: usize = 76;

/// Where the report links to: the game's page and the map as the turn left it (absolute
/// addresses, or paths, as the caller has them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportLinks {
    pub game: String,
    /// The map at the game's version after the turn.
    pub map: String,
}

/// A turn report: the mail's subject and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnReport {
    pub subject: String,
    pub text: String,
}

/// The report of the command on `record`: `before` is the game it was decided on,
/// `events` the events that followed the record in its append, `after` the game with them.
pub fn turn_report(
    before: &GameLog,
    record: &OrdersGiven,
    events: &[GameStreamEvent],
    after: &GameLog,
    links: &ReportLinks,
) -> TurnReport {
    let round = before.state.round;
    let what = match &record.command {
        Command::Orders { power, .. } if *power == before.state.power(&before.ruleset.board) => {
            format!("{}'s turn", power.name())
        }
        Command::Orders { power, .. } => format!("{}'s orders", power.name()),
        other => other.describe(),
    };
    let title = before.title();
    let mut text = Text::default();
    text.line(&format!("Round {round}, {what}"));
    text.line(&title);
    text.blank();
    text.prose("", &format!("Sent by {}.", sent_by(record)));
    text.blank();
    orders(&mut text, record);
    text.blank();
    text.line("What happened:");
    let summary = summary(before, events);
    if summary.is_empty() {
        text.line("- nothing on the board.");
    }
    for sentence in &summary {
        text.prose_hanging("- ", "  ", sentence);
    }
    text.blank();
    battles(&mut text, before, events);
    money(&mut text, before, after);
    text.blank();
    text.prose("", &format!("Next: {}.", next_move(after)));
    text.blank();
    text.line("The game:");
    text.line(&links.game);
    text.line("The map after this turn:");
    text.line(&links.map);
    TurnReport {
        subject: format!("Round {round}, {what}: {title}"),
        text: text.0,
    }
}

/// Who sent the command, in words: `ann`, `cy as ann's proxy`, `gm (the game master)`.
fn sent_by(record: &OrdersGiven) -> String {
    let sender = &record.sender;
    match (&record.proxy_for, sender.role) {
        (Some(player), _) => format!("{} as {player}'s proxy", sender.name),
        (None, Role::Player) => sender.name.clone(),
        (None, role) => format!("{} ({})", sender.name, role.describe()),
    }
}

/// The orders as the record holds them, one a line in the turn notation, with the order
/// refused after dice and those sent after it.
fn orders(text: &mut Text, record: &OrdersGiven) {
    let Command::Orders { orders, .. } = &record.command else {
        text.prose("", &format!("Command: {}.", record.command.describe()));
        return;
    };
    text.line("Orders as written:");
    for order in orders {
        text.line(&format!("  {}", render_order(order)));
    }
    if let Some(cut) = &record.cut_off {
        text.line("Refused after dice were rolled, so the orders above stand:");
        text.line(&format!("  {}", render_order(&cut.order)));
        text.prose("    ", &format!("{} ({}).", cut.message, cut.rule));
        if !cut.not_decided.is_empty() {
            text.line("Sent after it, not carried out:");
            for order in &cut.not_decided {
                text.line(&format!("  {}", render_order(order)));
            }
        }
    }
}

/// What the command did, in words, from the game before it (so battles name their
/// losses).
fn summary(before: &GameLog, events: &[GameStreamEvent]) -> Vec<String> {
    let played: Vec<GameEvent> = events
        .iter()
        .filter_map(|event| match event {
            GameStreamEvent::Played(played) => Some(played.clone()),
            _ => None,
        })
        .collect();
    let mut sentences = words::summary(before.ruleset.rules(), Some(&before.state), &played);
    if events
        .iter()
        .any(|e| matches!(e, GameStreamEvent::SeedRevealed(_)))
    {
        sentences.push("The dice seed was revealed: every die can be checked now.".to_owned());
    }
    sentences
}

/// A battle or a raid, as the report lists it.
struct Fight {
    /// "Battle", "Bombing raid", "Air raid".
    kind: &'static str,
    place: String,
    attacker: Power,
    defenders: Vec<Power>,
    /// Every die, as the event's listing writes it.
    listing: String,
    /// The result, and what changed hands, in sentences.
    result: Vec<String>,
}

/// `event`'s battle or raid, if it is one: every event that rolls dice in a fight.
fn fight_of(rules: Rules<'_>, event: &GameEvent) -> Option<Fight> {
    /// A sentence ends in one full stop, even after a name that ends in one ("S.S.R.").
    fn sentence(text: String) -> String {
        if text.ends_with('.') {
            text
        } else {
            text + "."
        }
    }
    let place = |id| rules.board.get(id).name.clone();
    match event {
        GameEvent::BattleFought(fought) => {
            let place = place(fought.territory);
            let mut result = vec![format!("{}.", fought.outcome.describe())];
            result.push(if fought.captured {
                sentence(format!("{} took {place}", fought.attacker.name()))
            } else {
                sentence(format!("{place} did not change hands"))
            });
            if let Some(partner) = fought.liberated_for {
                result.push(format!("It was liberated for {}.", partner.name()));
            }
            if fought.plunder > 0 {
                result.push(format!(
                    "{} took {} IPC with the capital.",
                    fought.attacker.name(),
                    fought.plunder
                ));
            }
            Some(Fight {
                kind: "Battle",
                place,
                attacker: fought.attacker,
                defenders: fought.defenders.clone(),
                listing: fought.listing.clone(),
                result,
            })
        }
        GameEvent::RaidFlown(raid) => Some(Fight {
            kind: "Bombing raid",
            place: place(raid.territory),
            attacker: raid.attacker,
            defenders: vec![raid.victim],
            listing: raid.raid.render(),
            result: vec![format!(
                "{} lost {} IPC.",
                raid.victim.name(),
                raid.raid.ipc_lost
            )],
        }),
        GameEvent::AirRaidFlown(raid) => {
            let dice = |dice: &[warlog_rules::dice::Die]| {
                let dice: Vec<String> = dice.iter().map(ToString::to_string).collect();
                dice.join(" ")
            };
            let shot_down: Vec<String> = raid
                .shot_down
                .iter()
                .map(|(unit, n)| format!("{n} {}", rules.catalogue.get(*unit).code))
                .collect();
            let shot_down = if shot_down.is_empty() {
                "none".to_owned()
            } else {
                shot_down.join(", ")
            };
            Some(Fight {
                kind: "Air raid",
                place: raid.path.last().map(|t| place(*t)).unwrap_or_default(),
                attacker: raid.power,
                defenders: vec![raid.victim],
                listing: format!(
                    "AA {}; shot down: {shot_down}\nDamage {} = ${}\n",
                    dice(&raid.anti_aircraft),
                    dice(&raid.damage_dice),
                    raid.cash_lost
                ),
                result: vec![format!("{} lost ${}.", raid.victim.name(), raid.cash_lost)],
            })
        }
        GameEvent::WarMoveResolved(moved) => moved.battle.as_ref().map(|battle| {
            let place = place(battle.territory);
            let mut defenders: Vec<Power> = battle.defenders.iter().map(|(o, _, _)| *o).collect();
            if battle.militia > 0 {
                defenders.push(Power::Npn);
            }
            defenders.sort();
            defenders.dedup();
            Fight {
                kind: "Battle",
                result: vec![
                    format!("{}.", battle.outcome.describe()),
                    if moved.taken {
                        sentence(format!("{} took {place}", battle.attacker.name()))
                    } else {
                        sentence(format!("{place} did not change hands"))
                    },
                ],
                place,
                attacker: battle.attacker,
                defenders,
                listing: battle.listing(rules),
            }
        }),
        _ => None,
    }
}

/// Every battle and raid of the command, numbered as the game numbers them, each with
/// its listing line for line.
fn battles(text: &mut Text, before: &GameLog, events: &[GameStreamEvent]) {
    let rules = before.ruleset.rules();
    let fights: Vec<Fight> = events
        .iter()
        .filter_map(|event| match event {
            GameStreamEvent::Played(played) => fight_of(rules, played),
            _ => None,
        })
        .collect();
    if fights.is_empty() {
        text.line("Battles: none.");
        text.blank();
        return;
    }
    text.line("Battles:");
    for (i, fight) in fights.iter().enumerate() {
        let defenders: Vec<&str> = fight.defenders.iter().map(|p| p.name()).collect();
        let against = if defenders.is_empty() {
            "nobody".to_owned()
        } else {
            join_names(&defenders)
        };
        text.blank();
        text.prose(
            "",
            &format!(
                "{} {} in {}: {} against {against}",
                fight.kind,
                before.battles + i + 1,
                fight.place,
                fight.attacker.name()
            ),
        );
        for line in fight.listing.lines() {
            text.line(line);
        }
        text.prose("", &format!("Result: {}", fight.result.join(" ")));
    }
    text.blank();
}

/// Each power's money before and after, where it changed, in turn order.
fn money(text: &mut Text, before: &GameLog, after: &GameLog) {
    let in_money = |amount: u32| {
        if before.ruleset.rules().special.war.is_some() {
            format!("${amount}")
        } else {
            format!("{amount} IPC")
        }
    };
    let order = before.ruleset.board.turn_order();
    let mut powers: Vec<Power> = before
        .state
        .treasury
        .keys()
        .chain(after.state.treasury.keys())
        .copied()
        .collect::<BTreeSet<Power>>()
        .into_iter()
        .collect();
    powers.sort_by_key(|p| order.iter().position(|q| q == p).unwrap_or(order.len()));
    let changed: Vec<String> = powers
        .into_iter()
        .filter_map(|power| {
            let was = before.state.treasury.get(&power).copied().unwrap_or(0);
            let is = after.state.treasury.get(&power).copied().unwrap_or(0);
            (was != is)
                .then(|| format!("  {}: {} -> {}", power.name(), in_money(was), in_money(is)))
        })
        .collect();
    if changed.is_empty() {
        text.line("Money: no change.");
        return;
    }
    text.line("Money:");
    for line in &changed {
        text.line(line);
    }
}

/// Whose move it is after the command, or how the game ended.
fn next_move(after: &GameLog) -> String {
    if after.status() != GameStatus::Running {
        return format!("the game is over, {}", after.standing());
    }
    match after.turn_under_way() {
        Some((round, _, power)) => match after.state.seats.get(&power) {
            Some(seat) => format!("round {round}, {} to move ({})", power.name(), seat.player),
            None => format!("round {round}, {} to move", power.name()),
        },
        None => format!(
            "round {}, before any power's turn: the round's opening rolls come first",
            after.state.round
        ),
    }
}

/// A mail's text, built line by line.
#[derive(Default)]
struct Text(String);

impl Text {
    /// A line as it is (a listing's, an order's, a link).
    fn line(&mut self, line: &str) {
        self.0.push_str(line);
        self.0.push('\n');
    }

    fn blank(&mut self) {
        self.0.push('\n');
    }

    /// Prose, wrapped, every line after `indent`.
    fn prose(&mut self, indent: &str, words: &str) {
        self.prose_hanging(indent, indent, words);
    }

    /// Prose, wrapped: the first line after `first`, the others after `rest`. A word
    /// longer than a line (a link) stands alone on its line.
    fn prose_hanging(&mut self, first: &str, rest: &str, words: &str) {
        let mut line = first.to_owned();
        let mut empty = true;
        for word in words.split_whitespace() {
            if !empty && line.len() + 1 + word.len() > WIDTH {
                self.line(&line);
                line = rest.to_owned();
                empty = true;
            }
            if !empty {
                line.push(' ');
            }
            line.push_str(word);
            empty = false;
        }
        self.line(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orders::Command;
    use crate::sample::SampleGame;
    use crate::sender::Sender;
    use warlog_rules::dice::GameSeed;
    use warlog_rules::game::named::NamedOrder;
    use warlog_rules::ruleset::Ruleset;

    fn a_new_game(seed: u8) -> SampleGame {
        let ruleset = Ruleset::builtin("cutthroat").expect("built in");
        SampleGame::new(
            ruleset,
            "0190f5a2b3c44d5e8f90a1b2c3d4e5f6",
            GameSeed::from_bytes([seed; 32]),
            5,
        )
    }

    fn links() -> ReportLinks {
        ReportLinks {
            game: "https://league.example/games/g".to_owned(),
            map: "https://league.example/games/g/map?version=9".to_owned(),
        }
    }

    /// The report of the next command `send` makes, if it was accepted: with the record
    /// and the events that followed it.
    fn report_of(
        game: &mut SampleGame,
        send: impl FnOnce(&mut SampleGame) -> bool,
    ) -> Option<(TurnReport, OrdersGiven, Vec<GameStreamEvent>)> {
        let before = game.log.clone();
        let from = game.stream.len();
        if !send(game) {
            return None;
        }
        let mut appended = game.stream[from..].iter().map(|(event, _)| event.clone());
        let Some(GameStreamEvent::Orders(record)) = appended.next() else {
            panic!("an append begins with its record");
        };
        let events: Vec<GameStreamEvent> = appended.collect();
        let report = turn_report(&before, &record, &events, &game.log, &links());
        Some((report, record, events))
    }

    /// Plays random orders until one fights a battle: its report and the battle.
    fn a_battles_report(game: &mut SampleGame) -> (TurnReport, Vec<GameStreamEvent>) {
        for _ in 0..40 {
            game.play_until_battle(20_000).expect("a battle comes");
            for _ in 0..200 {
                let Some((report, _, events)) = report_of(game, SampleGame::play_random_order)
                else {
                    continue;
                };
                let fought = events.iter().any(|e| {
                    matches!(e, GameStreamEvent::Played(GameEvent::BattleFought(f)) if !f.dice.is_empty())
                });
                if fought {
                    return (report, events);
                }
                if game.log.state.phase != warlog_rules::game::Phase::Battles {
                    break;
                }
            }
        }
        panic!("no battle was fought");
    }

    #[test]
    fn given_a_turn_with_a_battle_when_reported_then_every_die_and_the_next_move_are_there() {
        let mut game = a_new_game(9);
        let (report, events) = a_battles_report(&mut game);
        let text = &report.text;
        let mut listing_lines = BTreeSet::new();
        for event in &events {
            let GameStreamEvent::Played(GameEvent::BattleFought(fought)) = event else {
                continue;
            };
            let place = &game.log.ruleset.board.get(fought.territory).name;
            assert!(text.contains(&format!(" in {place}: ")), "{text}");
            let lines: Vec<&str> = text.lines().collect();
            let listing: Vec<&str> = fought.listing.lines().collect();
            assert!(!listing.is_empty());
            assert!(
                lines
                    .windows(listing.len())
                    .any(|w| w == listing.as_slice()),
                "the listing, line for line:\n{}\nin\n{text}",
                fought.listing
            );
            listing_lines.extend(listing.into_iter().map(str::to_owned));
        }
        let (round, _, power) = game.log.turn_under_way().expect("the game runs");
        let player = &game.log.state.seats[&power].player;
        assert!(
            text.contains(&format!(
                "Next: round {round}, {} to move ({player}).",
                power.name()
            )),
            "{text}"
        );
        assert!(text.contains("What happened:\n- "), "{text}");
        assert!(text.contains(
            "\nThe map after this turn:\nhttps://league.example/games/g/map?version=9\n"
        ));
        assert!(report.subject.starts_with("Round "), "{}", report.subject);
        let title = game.log.title();
        assert!(
            report.subject.ends_with(&format!("'s turn: {title}")),
            "{}",
            report.subject
        );
        assert!(text.ends_with('\n'));
        for line in text.lines() {
            assert!(
                line.chars().count() <= 100 || listing_lines.contains(line),
                "a line of {} characters: {line}",
                line.chars().count()
            );
        }
    }

    #[test]
    fn given_a_players_turn_when_reported_then_the_orders_as_written_and_the_money_are_there() {
        let mut game = a_new_game(5);
        let power = game.log.state.power(&game.log.ruleset.board);
        let player = game.log.state.seats[&power].player.clone();
        let orders: Vec<NamedOrder> =
            vec![NamedOrder::EndPhase; warlog_rules::game::Phase::ALL.len()];
        let (report, record, _) = report_of(&mut game, |game| {
            game.send(
                Sender {
                    role: Role::Player,
                    name: player.clone(),
                },
                Command::Orders {
                    power,
                    orders: orders.clone(),
                },
            )
        })
        .expect("accepted");
        let text = &report.text;
        assert_eq!(
            report.subject,
            format!("Round 1, {}'s turn: {}", power.name(), game.log.title())
        );
        assert!(text.contains(&format!("Sent by {player}.\n")), "{text}");
        let Command::Orders { orders, .. } = &record.command else {
            panic!("orders");
        };
        let written: String = orders
            .iter()
            .map(|o| format!("  {}\n", render_order(o)))
            .collect();
        assert!(
            text.contains(&format!("Orders as written:\n{written}")),
            "{text}"
        );
        assert!(text.contains("Battles: none.\n"), "{text}");
        // Cut-Throat collects income at the turn's end.
        assert!(
            text.contains(&format!("Money:\n  {}: ", power.name())),
            "{text}"
        );
        assert!(text.contains(" IPC -> "), "{text}");
    }

    #[test]
    fn given_sealed_standing_orders_when_reported_then_their_content_stays_secret() {
        let mut game = a_new_game(5);
        let power = game.log.state.power(&game.log.ruleset.board);
        let player = game.log.state.seats[&power].player.clone();
        let standing: NamedOrder = serde_json::from_value(serde_json::json!({
            "type": "set_standing_orders", "order_of_loss": ["BMB"], "submerge_subs": true
        }))
        .expect("an order");
        assert!(
            render_order(&standing).contains("loss BMB"),
            "unsealed, the notation would tell"
        );
        let (report, record, _) = report_of(&mut game, |game| {
            game.send(
                Sender {
                    role: Role::Player,
                    name: player.clone(),
                },
                Command::Orders {
                    power,
                    orders: vec![standing],
                },
            )
        })
        .expect("accepted");
        let Command::Orders { orders, .. } = &record.command else {
            panic!("orders");
        };
        assert!(matches!(orders[0], NamedOrder::SealedStandingOrders { .. }));
        let text = &report.text;
        assert!(text.contains("  sealed standing orders\n"), "{text}");
        assert!(!text.contains("BMB"), "{text}");
        assert!(!text.contains("submerge"), "{text}");
        assert!(text.contains("Money: no change.\n"), "{text}");
    }

    #[test]
    fn given_a_proxys_orders_and_the_game_masters_end_when_reported_then_the_sender_says_so() {
        let mut game = a_new_game(5);
        let power = game.log.state.power(&game.log.ruleset.board);
        let player = game.log.state.seats[&power].player.clone();
        let proxy = if player == "ann" { "bob" } else { "ann" }.to_owned();
        let seated = Sender {
            role: Role::Player,
            name: player.clone(),
        };
        let until = game.now.plus_seconds(3600);
        assert!(game.send(
            seated,
            Command::NameProxy {
                power,
                proxy: proxy.clone(),
                until
            }
        ));
        let (report, record, _) = report_of(&mut game, |game| {
            game.send(
                Sender {
                    role: Role::Player,
                    name: proxy.clone(),
                },
                Command::Orders {
                    power,
                    orders: vec![NamedOrder::EndPhase],
                },
            )
        })
        .expect("the proxy's orders");
        assert_eq!(record.proxy_for.as_deref(), Some(player.as_str()));
        assert!(
            report
                .text
                .contains(&format!("Sent by {proxy} as {player}'s proxy.\n")),
            "{}",
            report.text
        );
        let (ended, _, events) =
            report_of(&mut game, SampleGame::end).expect("the game master ends it");
        assert!(events
            .iter()
            .any(|e| matches!(e, GameStreamEvent::SeedRevealed(_))));
        assert!(
            ended.text.contains("Sent by gm (the game master).\n"),
            "{}",
            ended.text
        );
        assert!(
            ended.text.contains("\nNext: the game is over, "),
            "{}",
            ended.text
        );
        assert!(
            ended.text.contains("The dice seed was revealed"),
            "{}",
            ended.text
        );
    }
}
