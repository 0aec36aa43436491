//! An axis's scale chosen for its data: ticks at a round step (1, 2, 2.5 or 5 times a power
//! of ten) from just below the least value to just above the greatest, no more of them than
//! fit, so the axis spans the data and no more.

/// The ticks over `lo..=hi`, at most `most` of them (at least two); whole numbers only if
/// `whole` (steps of games and rounds). The first and the last are the axis's bounds.
pub fn ticks(lo: f64, hi: f64, most: usize, whole: bool) -> Vec<f64> {
    let (lo, hi) = if !lo.is_finite() || !hi.is_finite() {
        (0.0, 1.0)
    } else if hi - lo < 1e-9 {
        // One value: an axis around it, from it when it is a count's start.
        if whole {
            (lo, lo + 1.0)
        } else {
            (lo - 1.0, hi + 1.0)
        }
    } else {
        (lo, hi)
    };
    let most = most.max(2);
    let raw = (hi - lo) / (most - 1) as f64;
    let mut magnitude = 10f64.powf(raw.log10().floor());
    loop {
        for multiple in [1.0, 2.0, 2.5, 5.0] {
            let step = multiple * magnitude;
            if whole && (step < 1.0 || step.fract() != 0.0) {
                continue;
            }
            // A value within a millionth of a step of a tick is on it (float noise).
            let first = (lo / step + 1e-6).floor();
            let last = (hi / step - 1e-6).ceil();
            let count = (last - first) as usize + 1;
            if count <= most {
                return (0..count)
                    .map(|k| {
                        let tick = (first + k as f64) * step;
                        // Round away the float's noise (0.30000000000000004), and -0.
                        let tick = (tick / step).round() * step;
                        let tick = (tick * 1e9).round() / 1e9;
                        if tick == 0.0 {
                            0.0
                        } else {
                            tick
                        }
                    })
                    .collect();
            }
        }
        magnitude *= 10.0;
    }
}

/// A tick as text, with as many decimals as its axis's step needs ("0.25", "2.5", "10").
pub fn tick_text(value: f64, ticks: &[f64]) -> String {
    let step = match ticks {
        [a, b, ..] => (b - a).abs(),
        _ => 1.0,
    };
    let mut decimals = 0;
    let off_whole = |x: f64| (x - x.round()).abs() > 1e-6;
    while decimals < 9 && off_whole(step * 10f64.powi(decimals)) {
        decimals += 1;
    }
    let text = format!("{value:.*}", decimals as usize);
    if text
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        "0".to_owned()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ticks_cover_the_data_at_a_round_step_and_no_more_than_asked() {
        assert_eq!(ticks(0.0, 5.5, 6, false), [0.0, 2.0, 4.0, 6.0]);
        assert_eq!(
            ticks(-2.0, 5.0, 8, false),
            [-2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        );
        assert_eq!(ticks(2.11, 2.55, 6, false), [2.1, 2.2, 2.3, 2.4, 2.5, 2.6]);
        assert_eq!(
            ticks(0.0, 98.76, 6, false),
            [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        for (lo, hi, most) in [
            (0.0, 1234.0, 7),
            (-0.3, 0.7, 5),
            (17.0, 17.5, 4),
            (-5.72, 5.55, 9),
        ] {
            let t = ticks(lo, hi, most, false);
            assert!(t.len() >= 2 && t.len() <= most, "{lo}..{hi}: {t:?}");
            assert!(t[0] <= lo && *t.last().unwrap() >= hi, "{lo}..{hi}: {t:?}");
        }
    }

    #[test]
    fn a_tick_has_the_decimals_its_step_needs_and_no_more() {
        let ticks = ticks(-0.004, 0.003, 8, false);
        let texts: Vec<String> = ticks.iter().map(|t| tick_text(*t, &ticks)).collect();
        assert_eq!(
            texts,
            ["-0.004", "-0.003", "-0.002", "-0.001", "0", "0.001", "0.002", "0.003"]
        );
        let quarters = [0.0, 0.25, 0.5];
        assert_eq!(tick_text(0.5, &quarters), "0.50");
        assert_eq!(tick_text(20.0, &[0.0, 20.0]), "20");
    }

    #[test]
    fn whole_ticks_are_whole_and_one_value_still_makes_an_axis() {
        assert_eq!(ticks(0.0, 3.0, 10, true), [0.0, 1.0, 2.0, 3.0]);
        assert_eq!(ticks(0.0, 1.0, 10, true), [0.0, 1.0]);
        assert_eq!(ticks(0.0, 37.0, 6, true), [0.0, 10.0, 20.0, 30.0, 40.0]);
        assert_eq!(ticks(4.0, 4.0, 6, true), [4.0, 5.0]);
        assert_eq!(ticks(0.0, 0.0, 6, false), [-1.0, -0.5, 0.0, 0.5, 1.0]);
    }
}
