//! Text as boxes, for the pictures drawn on the server (the map, the charts): how wide a
//! line of text is at a size, never less than a browser draws it, and boxes that can be
//! tested for overlap. `tests/it/map_labels.rs` holds the measure against Chromium's.

/// A box: left, top, right, bottom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    /// Whether the two boxes share any area (touching edges do not).
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x0 < other.x1 && other.x0 < self.x1 && self.y0 < other.y1 && other.y0 < self.y1
    }

    /// The box with `margin` more on every side.
    pub fn grown(&self, margin: f64) -> Rect {
        Rect {
            x0: self.x0 - margin,
            y0: self.y0 - margin,
            x1: self.x1 + margin,
            y1: self.y1 + margin,
        }
    }

    pub fn inside(&self, outer: &Rect) -> bool {
        self.x0 >= outer.x0 && self.y0 >= outer.y0 && self.x1 <= outer.x1 && self.y1 <= outer.y1
    }

    /// Whether this box lies inside `0..width` × `0..height`.
    pub fn within(&self, width: f64, height: f64) -> bool {
        self.inside(&Rect {
            x0: 0.0,
            y0: 0.0,
            x1: width,
            y1: height,
        })
    }
}

/// A character's advance in ems, at least DejaVu Sans Bold's (wider than its regular
/// weight, and than Arial and Liberation Sans, the other fonts `sans-serif` may be).
fn em(c: char) -> f64 {
    match c {
        'i' | 'j' | 'l' | 'I' | 'J' | '.' | ',' | ':' | ';' | '\'' | '!' | '|' | ' ' => 0.44,
        'f' | 'r' | 't' | '(' | ')' | '[' | ']' | '-' | '/' => 0.52,
        'm' | 'w' | '%' | '@' | '—' | '…' => 1.07,
        'M' | 'W' => 1.12,
        '0'..='9' => 0.70,
        'a'..='z' => 0.72,
        'A'..='Z' => 0.86,
        _ if c.is_ascii() => 0.9,
        // Accented Latin, Greek and Cyrillic; anything else (CJK) from a fallback font at a
        // full em, and a little more.
        '\u{80}'..='\u{52f}' => 1.0,
        _ => 1.1,
    }
}

/// The width of `text` at `font_size`, never less than a browser draws it: the bold
/// advances rounded up, and for the regular weight 0.94 of them (DejaVu Sans's regular
/// letters are at most that part of its bold ones).
pub fn text_width(text: &str, font_size: f64, bold: bool) -> f64 {
    let weight = if bold { 1.0 } else { 0.94 };
    text.chars().map(em).sum::<f64>() * font_size * weight
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wider_letters_measure_wider_and_bold_wider_than_regular() {
        assert!(text_width("WWW", 10.0, false) > text_width("iii", 10.0, false));
        let bold = 10.0 * (0.86 + 4.0 * 0.72 + 0.52 + 1.07);
        assert!((text_width("Germany", 10.0, true) - bold).abs() < 1e-9);
        assert!((text_width("Germany", 10.0, false) - 0.94 * bold).abs() < 1e-9);
        assert!(text_width("東京", 10.0, false) > text_width("ab", 10.0, false));
    }

    #[test]
    fn boxes_that_touch_do_not_overlap() {
        let a = Rect {
            x0: 0.0,
            y0: 0.0,
            x1: 10.0,
            y1: 10.0,
        };
        let b = Rect {
            x0: 10.0,
            x1: 20.0,
            ..a
        };
        assert!(!a.overlaps(&b));
        assert!(a.grown(0.5).overlaps(&b));
        assert!(a.within(10.0, 10.0) && !b.within(10.0, 10.0));
    }
}
