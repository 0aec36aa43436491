//! `warlog bench map`: drawing a board as the map (SVG) against serialising the same board
//! view as JSON, both from one Classic game part-way through, in the same run. No database.

use std::time::{Duration, Instant};

use warlog_api::map::{board_svg, MapLayout};
use warlog_api::views::BoardView;
use warlog_events::sample::SampleGame;
use warlog_rules::dice::GameSeed;
use warlog_rules::ruleset::Ruleset;

use crate::CliError;

/// Runs `work` for about `slice`, `rounds` times, and returns the best per-call time: the
/// least disturbed by anything else on the machine.
fn best_per_call(slice: Duration, rounds: usize, mut work: impl FnMut() -> usize) -> Duration {
    let mut best = Duration::MAX;
    let mut sink = 0usize;
    for _ in 0..rounds {
        let started = Instant::now();
        let mut calls = 0u32;
        while started.elapsed() < slice {
            sink = sink.wrapping_add(work());
            calls += 1;
        }
        best = best.min(started.elapsed() / calls.max(1));
    }
    // Keeps the optimiser from dropping the work.
    if sink == usize::MAX {
        eprintln!("{sink}");
    }
    best
}

pub fn map(slice: Duration) -> Result<(), CliError> {
    let ruleset = Ruleset::builtin("cutthroat")
        .map_err(|e| CliError::Other(format!("the Cut-Throat ruleset: {e}")))?;
    let mut game = SampleGame::new(ruleset, "bench-map", GameSeed::from_bytes([7; 32]), 7);
    game.play_until(400, 20_000);
    let log = &game.log;
    let layout = MapLayout::cached(&log.ruleset.hash, &log.ruleset.board);
    let view = BoardView::of(log);
    let places = view.places.len();
    let units: u32 = view
        .places
        .iter()
        .flat_map(|p| p.units.iter().map(|s| s.count))
        .sum();

    let json = best_per_call(slice, 5, || {
        serde_json::to_vec(&BoardView::of(log)).map_or(0, |b| b.len())
    });
    let svg = best_per_call(slice, 5, || {
        board_svg(&BoardView::of(log), &layout, None, None).len()
    });
    let layout_once = best_per_call(slice, 3, || {
        MapLayout::of(&log.ruleset.board);
        1
    });
    println!(
        "board of the Classic map after {} events: {places} places, {units} units",
        log.version
    );
    println!(
        "{:<44} {:>12}",
        "workload (board view built each time)", "per call"
    );
    println!(
        "{:<44} {:>9.1} µs",
        "board view as JSON (baseline)",
        json.as_secs_f64() * 1e6
    );
    println!(
        "{:<44} {:>9.1} µs",
        "board view as the map (SVG)",
        svg.as_secs_f64() * 1e6
    );
    println!(
        "{:<44} {:>9.1} µs",
        "map layout (once per ruleset, kept)",
        layout_once.as_secs_f64() * 1e6
    );
    println!(
        "map / JSON: {:.2}x (aim: at most 3x)",
        svg.as_secs_f64() / json.as_secs_f64()
    );
    Ok(())
}
