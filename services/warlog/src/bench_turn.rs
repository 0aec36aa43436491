//! `warlog bench turn`: a turn sent as text (parsed, planned, decided) against the same
//! orders sent as JSON (deserialised, normalised, decided), in the same run. No database:
//! both paths end in the server's own decision, `GameLog::decide_command`, with the game's
//! seed, on a Cut-Throat game at Russia's turn in round 2.

use std::time::{Duration, Instant};

use warlog_events::game::GameLog;
use warlog_events::orders::{Command, Decided, DiceSupply, OrdersGiven};
use warlog_events::sample::{SampleGame, GAME_MASTER};
use warlog_events::sender::{Role, Sender};
use warlog_events::turn::plan_turn;
use warlog_rules::board::Power;
use warlog_rules::dice::GameSeed;
use warlog_rules::game::named::NamedOrder;
use warlog_rules::game::Moment;
use warlog_rules::ruleset::Ruleset;

use crate::CliError;

/// Russia's round 2, as a player writes it: 20 lines, one battle among them. Every line
/// after the battle moves or places units the battle does not touch, so whatever the dice,
/// the whole turn is carried out.
pub const RUSSIA_ROUND_TWO: &str = "\
# Russia, round 2: the push into Ukraine
buy 3 INF, 1 ARM
buy 1 fighter
move 5 INF: Caucasus > Ukraine
move 3 inf, 1 arm from Karelia to Ukraine
move 2 ARM: Russia > Caucasus > Ukraine
battle Ukraine; combat SAAC; loss INF, ARM
non-combat move:
move 2 INF: Evenki > Russia
move 2 INF: Novosibirsk > Russia
move 1 INF, 1 ARM: Kazakh > Russia
move 3 INF: Yakut > Evenki
move 2 INF, 1 ARM from S.F.E to Yakut
move 1 FTR: Karelia > Russia
move 2 fighters: Russia > Caucasus
rail 3 INF: Russia > Caucasus
place 3 INF in Russia
place 1 ARM in Russia
place 1 FTR in Karelia
end turn
";

/// The game master, who may send any power's orders.
fn game_master() -> Sender {
    Sender {
        role: Role::Gm,
        name: GAME_MASTER.into(),
    }
}

/// A Cut-Throat game in round 2, Russia to play at its repairs phase: round 1 decided as
/// five `end turn` texts through the same path the bench measures.
pub fn round_two(seed: GameSeed) -> Result<SampleGame, CliError> {
    let ruleset = Ruleset::builtin("cutthroat")
        .map_err(|e| CliError::Other(format!("the Cut-Throat ruleset: {e}")))?;
    let mut game = SampleGame::new(ruleset, "bench-turn", seed, 1);
    while game.log.state.round < 2 {
        let power = game.log.state.to_act(ruleset.rules());
        let orders = planned(&game.log, "end turn\n")?;
        if !game.send(game_master(), Command::Orders { power, orders }) {
            return Err(CliError::Other(format!(
                "round 1: {}'s end turn was refused",
                power.name()
            )));
        }
    }
    Ok(game)
}

fn planned(log: &GameLog, text: &str) -> Result<Vec<NamedOrder>, CliError> {
    let planned = plan_turn(log, text).map_err(|e| CliError::Other(format!("the turn: {e}")))?;
    Ok(planned.into_iter().map(|p| p.order).collect())
}

/// The turn as text, the way `POST /v1/games/{id}/turn` takes it: read and planned, then
/// decided. The command decided, or why not (a cut-off counts as not).
pub fn decide_text(
    log: &GameLog,
    seed: &GameSeed,
    at: Moment,
    text: &str,
) -> Result<Decided, String> {
    let orders = planned(log, text).map_err(|e| e.to_string())?;
    decide(log, seed, at, orders)
}

/// The same orders as JSON, the way `POST /v1/games/{id}/orders` takes them: deserialised,
/// each normalised (names resolved and written back in the board's spelling), then decided.
pub fn decide_json(
    log: &GameLog,
    seed: &GameSeed,
    at: Moment,
    json: &str,
) -> Result<Decided, String> {
    let sent: Vec<NamedOrder> = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let orders = sent
        .iter()
        .enumerate()
        .map(|(i, o)| o.normalised(log.ruleset, &format!("orders[{i}]")))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    decide(log, seed, at, orders)
}

fn decide(
    log: &GameLog,
    seed: &GameSeed,
    at: Moment,
    orders: Vec<NamedOrder>,
) -> Result<Decided, String> {
    let power = log.state.to_act(log.ruleset.rules());
    let given = OrdersGiven::new(
        game_master(),
        log.version,
        at,
        Command::Orders { power, orders },
    );
    let decided = log
        .decide_command(&given, DiceSupply::Seed(seed))
        .map_err(|e| e.to_string())?;
    match decided.cut_off {
        Some(cut) => Err(format!(
            "cut off at order {}: {}",
            cut.index, cut.violation.message
        )),
        None => Ok(decided),
    }
}

/// Reading alone: the text into orders.
fn read_text(log: &GameLog, text: &str) -> usize {
    planned(log, text).map_or(0, |o| o.len())
}

/// Reading alone: the JSON into normalised orders.
fn read_json(log: &GameLog, json: &str) -> usize {
    serde_json::from_str::<Vec<NamedOrder>>(json).map_or(0, |sent| {
        sent.iter()
            .filter_map(|o| o.normalised(log.ruleset, "orders").ok())
            .count()
    })
}

/// Runs each workload for about `slice` in turn, `rounds` times, alternating them so both
/// meet the same machine, and keeps each one's best time per call: the least disturbed.
fn alternating(
    slice: Duration,
    rounds: usize,
    workloads: &mut [&mut dyn FnMut() -> usize],
) -> Vec<(Duration, u64)> {
    let mut best = vec![(Duration::MAX, 0u64); workloads.len()];
    let mut sink = 0usize;
    for _ in 0..rounds {
        for (work, best) in workloads.iter_mut().zip(best.iter_mut()) {
            let started = Instant::now();
            let mut calls = 0u32;
            while started.elapsed() < slice {
                sink = sink.wrapping_add(work());
                calls += 1;
            }
            best.0 = best.0.min(started.elapsed() / calls.max(1));
            best.1 += u64::from(calls);
        }
    }
    // Keeps the optimiser from dropping the work.
    if sink == usize::MAX {
        eprintln!("{sink}");
    }
    best
}

pub fn turn(slice: Duration) -> Result<(), CliError> {
    let game = round_two(GameSeed::from_bytes([33; 32]))?;
    let log = &game.log;
    let seed = &game.seed;
    let at = game.now.plus_seconds(60);
    if log.state.to_act(log.ruleset.rules()) != Power::Russia {
        return Err(CliError::Other("round 2 should open with Russia".into()));
    }
    let orders = planned(log, RUSSIA_ROUND_TWO)?;
    let json = serde_json::to_string(&orders)
        .map_err(|e| CliError::Other(format!("the orders as JSON: {e}")))?;
    let events = decide_text(log, seed, at, RUSSIA_ROUND_TWO)
        .map_err(CliError::Other)?
        .events
        .len();
    let same = decide_json(log, seed, at, &json)
        .map_err(CliError::Other)?
        .events
        .len();
    if events != same {
        return Err(CliError::Other(format!(
            "the text made {events} events and the JSON {same}"
        )));
    }

    let mut text = || decide_text(log, seed, at, RUSSIA_ROUND_TWO).map_or(0, |d| d.events.len());
    let mut as_json = || decide_json(log, seed, at, &json).map_or(0, |d| d.events.len());
    let mut text_read = || read_text(log, RUSSIA_ROUND_TWO);
    let mut json_read = || read_json(log, &json);
    let figures = alternating(
        slice,
        5,
        &mut [&mut as_json, &mut text, &mut json_read, &mut text_read],
    );
    let [(json_turn, n1), (text_turn, n2), (json_only, n3), (text_only, n4)] = figures[..] else {
        unreachable!("four workloads");
    };
    let lines = RUSSIA_ROUND_TWO.lines().count();
    println!(
        "Cut-Throat, round 2, Russia: a turn of {lines} lines, {} orders (the phase ends \
         included), {} bytes as text, {} bytes as JSON; {events} events, one battle",
        orders.len(),
        RUSSIA_ROUND_TWO.len(),
        json.len()
    );
    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    println!("{:<52} {:>10} {:>9}", "workload", "per turn", "turns");
    for (name, time, calls) in [
        (
            "JSON orders: read, normalise, decide (baseline)",
            json_turn,
            n1,
        ),
        ("turn text: parse, plan, decide", text_turn, n2),
        ("reading alone: JSON, normalise", json_only, n3),
        ("reading alone: parse, plan", text_only, n4),
    ] {
        println!("{name:<52} {:>7.1} µs {calls:>9}", micros(time));
    }
    println!(
        "text / JSON: {:.2}x per turn; reading alone {:.2}x",
        text_turn.as_secs_f64() / json_turn.as_secs_f64(),
        text_only.as_secs_f64() / json_only.as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use warlog_events::game::GameStreamEvent;
    use warlog_rules::game::GameEvent;

    #[test]
    fn the_benchs_turn_is_carried_out_whole_as_text_and_as_json_whatever_the_dice() {
        assert_eq!(RUSSIA_ROUND_TWO.lines().count(), 20);
        // The bench's seed, and others: the battle's dice do not decide the lines after it.
        for byte in [33, 1, 2, 3, 4, 5] {
            let game = round_two(GameSeed::from_bytes([byte; 32])).expect("round 1 is played");
            let log = &game.log;
            assert_eq!(log.state.to_act(log.ruleset.rules()), Power::Russia);
            let at = game.now.plus_seconds(60);
            let orders = planned(log, RUSSIA_ROUND_TWO).expect("plans");
            let json = serde_json::to_string(&orders).expect("JSON");
            let text = decide_text(log, &game.seed, at, RUSSIA_ROUND_TWO)
                .unwrap_or_else(|e| panic!("seed {byte}: {e}"));
            let as_json = decide_json(log, &game.seed, at, &json)
                .unwrap_or_else(|e| panic!("seed {byte}: {e}"));
            assert_eq!(text.events, as_json.events, "seed {byte}");
            // One battle, and the turn ended: Germany plays next.
            let battles = text
                .events
                .iter()
                .filter(|e| matches!(e, GameStreamEvent::Played(GameEvent::BattleFought(_))))
                .count();
            assert_eq!(battles, 1, "seed {byte}");
            let after = &text.after.state;
            assert_eq!(
                (after.round, after.to_act(log.ruleset.rules())),
                (2, Power::Germany),
                "seed {byte}"
            );
        }
    }
}
