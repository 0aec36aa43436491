//! Text in a chart as boxes: how wide a line of text is at a size (measured generously from
//! DejaVu Sans's widths, the widest of the common sans-serif fonts, so a box is never smaller
//! than the text a browser draws), where its box lies, and labels moved apart along one axis
//! so that no two boxes overlap.

/// Which point of the text `x` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn attribute(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A line of text drawn in a chart: `y` is its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    pub x: f64,
    pub y: f64,
    pub anchor: Anchor,
    pub text: String,
    pub size: f64,
    pub bold: bool,
    pub fill: &'static str,
}

pub use crate::text_measure::Rect;

/// How far above its baseline a line of text reaches (accents included), and below.
pub const ASCENT: f64 = 0.95;
pub const DESCENT: f64 = 0.25;

impl Label {
    /// The box the text fills.
    pub fn rect(&self) -> Rect {
        let width = width(&self.text, self.size, self.bold);
        let x0 = match self.anchor {
            Anchor::Start => self.x,
            Anchor::Middle => self.x - width / 2.0,
            Anchor::End => self.x - width,
        };
        Rect {
            x0,
            y0: self.y - ASCENT * self.size,
            x1: x0 + width,
            y1: self.y + DESCENT * self.size,
        }
    }

    /// The label as SVG, its text escaped.
    pub fn svg(&self) -> String {
        format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{}\" font-size=\"{}\"{} fill=\"{}\">{}</text>",
            self.x,
            self.y,
            self.anchor.attribute(),
            self.size,
            if self.bold { " font-weight=\"bold\"" } else { "" },
            self.fill,
            super::escape(&self.text)
        )
    }
}

/// The width of `text` at a size (the map's measure, held against Chromium's).
pub use crate::text_measure::text_width as width;

/// `text` cut to fit `room`, an ellipsis showing the cut.
pub fn fit(text: &str, room: f64, size: f64) -> String {
    if width(text, size, false) <= room {
        return text.to_owned();
    }
    let mut kept: String = text.to_owned();
    while !kept.is_empty() && width(&format!("{kept}…"), size, false) > room {
        kept.pop();
    }
    format!("{}…", kept.trim_end())
}

/// `text` in lines no wider than `room`, broken between words (a word wider than the room
/// is cut to fit).
pub fn wrap(text: &str, room: f64, size: f64, bold: bool) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let word = if width(word, size, bold) > room {
            fit(word, room / if bold { 1.1 } else { 1.0 }, size)
        } else {
            word.to_owned()
        };
        match lines.last_mut() {
            Some(line) if width(&format!("{line} {word}"), size, bold) <= room => {
                line.push(' ');
                line.push_str(&word);
            }
            _ => lines.push(word),
        }
    }
    lines
}

/// Positions for labels along one axis: each as near its wish as it can be, no two closer
/// than `gap` (centre to centre), all within `lo..=hi`. The wishes may come in any order;
/// the answer is in the same order. There must be room: `(n - 1) * gap <= hi - lo`.
pub fn spread(wishes: &[f64], gap: f64, lo: f64, hi: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..wishes.len()).collect();
    order.sort_by(|a, b| wishes[*a].total_cmp(&wishes[*b]));
    let mut at: Vec<f64> = order.iter().map(|i| wishes[*i].clamp(lo, hi)).collect();
    // Down from the top, each at least a gap below the one above; then up from the bottom,
    // each at least a gap above the one below and inside the bounds.
    for k in 1..at.len() {
        at[k] = at[k].max(at[k - 1] + gap);
    }
    if let Some(last) = at.last_mut() {
        *last = last.min(hi);
    }
    for k in (0..at.len().saturating_sub(1)).rev() {
        at[k] = at[k].min(at[k + 1] - gap);
    }
    if let Some(first) = at.first_mut() {
        *first = first.max(lo);
    }
    let mut placed = vec![0.0; wishes.len()];
    for (k, i) in order.iter().enumerate() {
        placed[*i] = at[k];
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_is_as_wide_as_its_text_and_sits_on_its_anchor() {
        let label = |anchor| Label {
            x: 100.0,
            y: 50.0,
            anchor,
            text: "ann 5".into(),
            size: 10.0,
            bold: false,
            fill: "#000",
        };
        let start = label(Anchor::Start).rect();
        let end = label(Anchor::End).rect();
        let middle = label(Anchor::Middle).rect();
        assert_eq!(start.x0, 100.0);
        assert_eq!(end.x1, 100.0);
        assert!((middle.x0 + middle.x1 - 200.0).abs() < 1e-9);
        assert!(start.y0 < 50.0 && start.y1 > 50.0);
        // At least DejaVu Sans's advances: "ann 5" is 2.835 ems there.
        assert!(start.x1 - start.x0 >= 28.35, "{start:?}");
    }

    #[test]
    fn spread_labels_keep_their_gap_stay_in_bounds_and_keep_their_order() {
        let wishes = [50.0, 50.0, 51.0, 10.0, 200.0, 49.0];
        let placed = spread(&wishes, 14.0, 0.0, 100.0);
        let mut sorted = placed.clone();
        sorted.sort_by(f64::total_cmp);
        for pair in sorted.windows(2) {
            assert!(pair[1] - pair[0] >= 14.0 - 1e-9, "{placed:?}");
        }
        assert!(
            placed.iter().all(|y| (0.0..=100.0).contains(y)),
            "{placed:?}"
        );
        // Far from the crowd, a label stays where it wished to be.
        assert_eq!(placed[3], 10.0);
        assert_eq!(placed[4], 100.0);
    }

    #[test]
    fn long_text_is_cut_with_an_ellipsis_and_wrapped_between_words() {
        let cut = fit("1 ARM, 1 FTR, 2 INF, 3 ARM, 4 BB", 80.0, 12.0);
        assert!(
            cut.ends_with('…') && width(&cut, 12.0, false) <= 80.0,
            "{cut}"
        );
        assert_eq!(fit("1 ARM", 80.0, 12.0), "1 ARM");
        let lines = wrap(
            "The attacker's survivors, most likely first",
            150.0,
            12.0,
            true,
        );
        assert!(lines.len() > 1, "{lines:?}");
        assert!(
            lines.iter().all(|l| width(l, 12.0, true) <= 150.0),
            "{lines:?}"
        );
        assert_eq!(
            lines.join(" "),
            "The attacker's survivors, most likely first"
        );
    }
}
