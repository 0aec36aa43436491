//! What gzip costs the service, against what making the same answer costs, in the same run:
//!
//!     cargo bench -p warlog-api --bench compression
//!
//! Two of the largest answers are made here without a database: `/openapi.json` (the
//! document serialised) and a game's `board.svg` (a Cut-Throat game played by random
//! orders to a few thousand events, drawn). Each is, alternately, made and gzipped the
//! way actix's `Compress` does it (flate2, `Compression::fast()`). The figure is the ratio
//! of the two medians, with the sizes before and after.

use std::io::Write as _;
use std::time::{Duration, Instant};

use flate2::write::GzEncoder;
use flate2::Compression;
use utoipa::OpenApi as _;
use warlog_events::sample::SampleGame;
use warlog_rules::dice::GameSeed;
use warlog_rules::ruleset::Ruleset;

const ROUNDS: usize = 31;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
    encoder.write_all(bytes).expect("in memory");
    encoder.finish().expect("in memory")
}

/// Makes the answer and gzips it, alternately; prints both medians and their ratio.
fn measure(name: &str, make: impl Fn() -> Vec<u8>) {
    let (mut made, mut zipped) = (Vec::new(), Vec::new());
    let mut sizes = (0, 0);
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let body = std::hint::black_box(make());
        made.push(t.elapsed());
        let t = Instant::now();
        let packed = std::hint::black_box(gzip(&body));
        zipped.push(t.elapsed());
        sizes = (body.len(), packed.len());
    }
    let (made, zipped) = (median(made), median(zipped));
    println!(
        "{name:<14} {:>7} B -> {:>6} B gzipped ({:.0}%); made in {:>7.3} ms, gzipped in {:>7.3} ms: gzip costs {:.2}x making it",
        sizes.0,
        sizes.1,
        100.0 * sizes.1 as f64 / sizes.0 as f64,
        made.as_secs_f64() * 1e3,
        zipped.as_secs_f64() * 1e3,
        zipped.as_secs_f64() / made.as_secs_f64()
    );
}

fn main() {
    measure("/openapi.json", || {
        serde_json::to_vec(&warlog_api::ApiDoc::openapi()).expect("serialises")
    });
    let ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
    let mut game = SampleGame::new(ruleset, "gzip-bench", GameSeed::from_bytes([3; 32]), 5);
    game.play_until(3_000, 150_000);
    measure("board.svg", || {
        warlog_api::map::game_svg(&game.log, None, None).into_bytes()
    });
}
