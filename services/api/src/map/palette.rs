//! The map's colours, and the contrast between two of them as WCAG 2 measures it.
//!
//! Powers are told apart by the Okabe–Ito palette, chosen to stay distinct for the common
//! kinds of colour blindness. Text never stands on a power's colour: every label is a chip
//! of its own (`CHIP` or `SEA_CHIP`) with its ink, so the contrast of text does not depend
//! on who holds a place. `tests::every_text_on_the_map_reaches_four_and_a_half_to_one`
//! computes it for every pair the map uses.

use warlog_rules::board::Power;

/// The colour a holder's places are filled with (unheld land: a pale sand).
pub fn colour(power: Option<Power>) -> &'static str {
    match power {
        Some(Power::Russia) => "#d55e00",
        Some(Power::Germany) => "#8c8c8c",
        Some(Power::UnitedKingdom) => "#f0e442",
        Some(Power::Japan) => "#e69f00",
        Some(Power::UnitedStates) => "#009e73",
        Some(Power::Ccp) => "#cc79a7",
        Some(Power::Kmt) => "#0072b2",
        Some(Power::Npn) => "#56b4e9",
        None => "#ede8da",
    }
}

/// The powers in the legend's order.
pub const POWERS: [Power; 8] = Power::ALL;

/// Open water behind everything, and a sea zone's own fill and edge.
pub const WATER: &str = "#cfe3f0";
pub const SEA: &str = "#ddecf6";
pub const SEA_EDGE: &str = "#8fb5cf";
/// The edge between land territories.
pub const LAND_EDGE: &str = "#3b3630";
/// A land label's chip and ink; a sea label's.
pub const CHIP: &str = "#ffffff";
pub const INK: &str = "#1d1d1d";
pub const SEA_CHIP: &str = "#f3f8fc";
pub const SEA_INK: &str = "#1f4e6e";
/// The ring around a battle's place.
pub const BATTLE: &str = "#b3132b";

/// Every (ink, chip) pair text is drawn with.
pub const TEXT_PAIRS: [(&str, &str); 2] = [(INK, CHIP), (SEA_INK, SEA_CHIP)];

/// WCAG 2's contrast ratio of two `#rrggbb` colours, 1 to 21.
pub fn contrast(a: &str, b: &str) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    let (light, dark) = if la > lb { (la, lb) } else { (lb, la) };
    (light + 0.05) / (dark + 0.05)
}

fn luminance(hex: &str) -> f64 {
    let channel = |i: usize| {
        let value = hex
            .get(1 + 2 * i..3 + 2 * i)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .unwrap_or(0);
        let c = f64::from(value) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contrast_is_computed_as_wcag_defines_it() {
        assert!((contrast("#000000", "#ffffff") - 21.0).abs() < 1e-9);
        assert!((contrast("#777777", "#ffffff") - 4.48).abs() < 0.01);
        assert_eq!(contrast("#123456", "#123456"), 1.0);
    }

    #[test]
    fn every_text_on_the_map_reaches_four_and_a_half_to_one() {
        for (ink, chip) in TEXT_PAIRS {
            let ratio = contrast(ink, chip);
            assert!(ratio >= 4.5, "{ink} on {chip}: {ratio:.2}");
        }
    }

    #[test]
    fn the_powers_colours_are_all_different_and_none_is_the_seas() {
        let mut fills: Vec<&str> = POWERS.iter().map(|p| colour(Some(*p))).collect();
        fills.push(colour(None));
        fills.push(SEA);
        let count = fills.len();
        fills.sort_unstable();
        fills.dedup();
        assert_eq!(fills.len(), count);
    }
}
