//! Replaying long games: events folded per second (criterion).
//!
//!     cargo bench -p warlog-rules --bench replay
//!
//! A long Cut-Throat game is played first by the random player (`game::autoplay`) with
//! seeded dice; the benchmark then folds its whole log into a fresh state, as a projector
//! or an auditor does. The baseline, in the same run, is cloning the same log: what it
//! costs merely to read every event once.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand_core::{RngCore, SeedableRng};
use warlog_rules::dice::GameSeed;
use warlog_rules::game::autoplay::random_order;
use warlog_rules::game::{apply, decide, GameEvent, GameState, Moment, Rules};
use warlog_rules::ruleset::Ruleset;
use warlog_rules::setup::Setup;

fn long_game(rules: Rules<'_>, setup: &Setup, events: usize) -> Vec<GameEvent> {
    let mut state = GameState::start(rules, setup);
    let mut dice = GameSeed::from_bytes([3; 32]).dice_for("replay-bench", 0);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
    let mut choose = |n: usize| (rng.next_u64() % n.max(1) as u64) as usize;
    let mut log = Vec::with_capacity(events);
    while log.len() < events {
        let (by, order) = random_order(rules, &state, &mut choose);
        // Diplomacy is always legal somewhere, so it would crowd the log: keep a little.
        if order.is_diplomatic() && choose(20) != 0 {
            continue;
        }
        if let Ok(decided) = decide(rules, &state, by, &order, Moment::default(), &mut dice) {
            for event in decided {
                apply(rules, &mut state, &event);
                log.push(event);
            }
        }
    }
    log
}

fn replay(c: &mut Criterion) {
    let ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
    let (rules, setup) = (ruleset.rules(), &ruleset.setup);
    let log = long_game(rules, setup, 100_000);
    let final_state = {
        let mut state = GameState::start(rules, setup);
        for event in &log {
            apply(rules, &mut state, event);
        }
        state
    };
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for event in &log {
        let name = format!("{event:?}");
        let kind = name.split([' ', '(', '{']).next().unwrap_or_default();
        *kinds.entry(kind.to_owned()).or_default() += 1;
    }
    eprintln!(
        "long game: {} events over {} rounds: {kinds:?}",
        log.len(),
        final_state.round
    );

    let mut group = c.benchmark_group("replay");
    group.throughput(Throughput::Elements(log.len() as u64));
    group.sample_size(20);
    group.bench_function("fold a long game", |b| {
        b.iter(|| {
            let mut state = GameState::start(rules, setup);
            for event in black_box(&log) {
                apply(rules, &mut state, event);
            }
            state
        })
    });
    group.bench_function("baseline: clone the log", |b| {
        b.iter(|| black_box(&log).clone())
    });
    group.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
