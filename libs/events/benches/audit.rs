//! The auditor against the fold, on one long game, in the same run:
//!
//!     cargo bench -p warlog-events --bench audit
//!
//! A Cut-Throat game is played by random orders through the server's decision
//! (`sample::SampleGame`) to about 100,000 events, ended (which reveals the seed) and
//! recorded with its chain. Then, alternately, it is folded (`GameLog::fold`: decode and
//! apply every event, what a projector does) and audited (`audit_game`: the chain, every
//! recorded command decided again with the seed's dice, the final board and placements).
//! The figure is the ratio of the two medians.

use std::time::{Duration, Instant};

use warlog_events::audit::{audit_game, Outcome};
use warlog_events::game::GameLog;
use warlog_events::sample::SampleGame;
use warlog_rules::dice::GameSeed;
use warlog_rules::ruleset::Ruleset;

const EVENTS: usize = 100_000;
const ROUNDS: usize = 5;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
    let started = Instant::now();
    let mut game = SampleGame::new(ruleset, "audit-bench", GameSeed::from_bytes([9; 32]), 17);
    game.play_until(EVENTS, 50 * EVENTS);
    assert!(game.end(), "the game ends");
    let events = game.recorded();
    let commands = events
        .iter()
        .filter(|e| e.event_type.as_str() == "OrdersGiven")
        .count();
    println!(
        "game: {} events, {commands} recorded commands, round {} (played in {:.1} s)",
        events.len(),
        game.log.state.round,
        started.elapsed().as_secs_f64()
    );
    let (mut folds, mut audits) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let log = GameLog::fold(&events).expect("folds");
        folds.push(t.elapsed());
        assert_eq!(log.version, events.len() as u64);
        let t = Instant::now();
        let report = audit_game(&events, None, None);
        audits.push(t.elapsed());
        assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
    }
    let (fold, audit) = (median(folds), median(audits));
    println!(
        "fold:  {:>8.1} ms  ({:.0} events/s)",
        fold.as_secs_f64() * 1e3,
        events.len() as f64 / fold.as_secs_f64()
    );
    println!(
        "audit: {:>8.1} ms  ({:.0} events/s)",
        audit.as_secs_f64() * 1e3,
        events.len() as f64 / audit.as_secs_f64()
    );
    println!(
        "audit / fold = {:.2} (aim: under 3)",
        audit.as_secs_f64() / fold.as_secs_f64()
    );
}
