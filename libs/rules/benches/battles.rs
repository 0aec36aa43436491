//! Battle engine and exact-odds benchmarks (criterion).
//!
//!     cargo bench -p warlog-rules --bench battles
//!
//! The baseline, measured in the same run, is drawing the same number of dice straight
//! from the seeded generator: the ratio says what the engine costs beyond its dice.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use warlog_rules::battle::{exact_odds, resolve, Battle, BattleKind};
use warlog_rules::dice::{DiceSource, GameSeed};
use warlog_rules::units::Catalogue;

fn battle<'c>(cat: &'c Catalogue, kind: BattleKind, attacker: &str, defender: &str) -> Battle<'c> {
    let mut b = Battle::new(cat, kind);
    b.attacker = Battle::army(cat, attacker).expect("attacker");
    b.defender = Battle::army(cat, defender).expect("defender");
    b
}

fn battles(c: &mut Criterion) {
    let cat = Catalogue::builtin("cutthroat").expect("cutthroat");
    let small = battle(&cat, BattleKind::Land, "3 inf, 1 arm", "2 inf");
    let naval = battle(
        &cat,
        BattleKind::Sea,
        "4 sub, 6 ftr, 2 ac, 4 bb, 2 bmb, 2 trn",
        "6 sub, 4 ftr, 2 ac, 4 bb, 6 trn",
    );
    let seed = GameSeed::from_bytes([7; 32]);

    // How many dice each battle throws on average, for the baseline.
    let dice_per = |b: &Battle<'_>| {
        let n = 2_000u64;
        let total: usize = (0..n)
            .map(|i| {
                let log = resolve(b, &mut seed.dice_for("count", i)).expect("resolves");
                log.dice().len()
            })
            .sum();
        (total as u64 / n).max(1)
    };

    let mut group = c.benchmark_group("battles");
    group.throughput(Throughput::Elements(1));
    for (name, b) in [
        ("3 INF + 1 ARM vs 2 INF", &small),
        ("40-unit naval battle", &naval),
    ] {
        let mut dice = seed.dice_for(name, 0);
        group.bench_function(format!("{name}: engine"), |bench| {
            bench.iter(|| resolve(black_box(b), &mut dice).expect("resolves"))
        });
        let per_battle = dice_per(b);
        let mut raw = seed.dice_for(name, 1);
        group.bench_function(
            format!("{name}: baseline, {per_battle} bare dice"),
            |bench| {
                bench.iter(|| {
                    let mut sum = 0u32;
                    for _ in 0..per_battle {
                        sum += u32::from(raw.roll().value());
                    }
                    black_box(sum)
                })
            },
        );
    }
    group.finish();

    let mut odds = c.benchmark_group("exact odds");
    odds.sample_size(10);
    let big = battle(
        &cat,
        BattleKind::Land,
        "20 inf, 5 arm, 3 ftr",
        "20 inf, 2 ftr",
    );
    odds.bench_function("20 INF + 5 ARM + 3 FTR vs 20 INF + 2 FTR", |bench| {
        bench.iter(|| exact_odds(black_box(&big)).expect("odds"))
    });
    odds.bench_function("3 INF + 1 ARM vs 2 INF", |bench| {
        bench.iter(|| exact_odds(black_box(&small)).expect("odds"))
    });
    odds.finish();
}

criterion_group!(benches, battles);
criterion_main!(benches);
