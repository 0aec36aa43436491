//! Labels that never collide and are never cut: each is a chip (a box of text lines),
//! placed at the first spot around its place that overlaps no chip already placed and lies
//! wholly inside the view; a label with no such spot is left out (the place keeps its
//! shape, its hover title and its row in the page's table).
//!
//! Text is measured with [`text_width`], an upper bound of the advance widths of DejaVu
//! Sans Bold (wider than the regular weight, and than Arial and Liberation Sans, the other
//! fonts `sans-serif` may be), so a chip is never narrower than its text in a browser. The
//! page test checks that bound against Chromium's own measure.

pub use crate::text_measure::{text_width, Rect};

/// Space between a chip's edge and its text.
pub const PADDING: f64 = 2.0;
/// A line's height, in font sizes.
pub const LINE_HEIGHT: f64 = 1.25;

/// The size of a chip holding `lines` at `font_size`.
pub fn chip_size(lines: &[String], font_size: f64, bold: bool) -> (f64, f64) {
    let width = lines
        .iter()
        .map(|l| text_width(l, font_size, bold))
        .fold(0.0, f64::max);
    (
        width + 2.0 * PADDING,
        lines.len() as f64 * font_size * LINE_HEIGHT + 2.0 * PADDING,
    )
}

/// Where a chip of `size` may go around the point `at`: centred on it first when `centred`,
/// then below, above, to the right, to the left and at the corners, each a little further
/// out in turn.
pub fn spots(at: (f64, f64), size: (f64, f64), centred: bool) -> Vec<Rect> {
    let (w, h) = size;
    let box_at = |cx: f64, cy: f64| Rect {
        x0: cx - w / 2.0,
        y0: cy - h / 2.0,
        x1: cx + w / 2.0,
        y1: cy + h / 2.0,
    };
    let mut out = Vec::with_capacity(33);
    if centred {
        out.push(box_at(at.0, at.1));
    }
    for gap in [4.0, 10.0, 18.0, 28.0] {
        let (dx, dy) = (w / 2.0 + gap, h / 2.0 + gap);
        for (sx, sy) in [
            (0.0, 1.0),
            (0.0, -1.0),
            (1.0, 0.0),
            (-1.0, 0.0),
            (1.0, 1.0),
            (-1.0, 1.0),
            (1.0, -1.0),
            (-1.0, -1.0),
        ] {
            out.push(box_at(at.0 + sx * dx, at.1 + sy * dy));
        }
    }
    out
}

/// Boxes already taken, and the view they must stay in.
#[derive(Debug)]
pub struct Placer {
    view: Rect,
    taken: Vec<Rect>,
}

impl Placer {
    pub fn new(view: Rect) -> Placer {
        Placer {
            view,
            taken: Vec::new(),
        }
    }

    /// Keeps a box clear of labels (a battle's ring).
    pub fn reserve(&mut self, area: Rect) {
        self.taken.push(area);
    }

    /// The first of `candidates` inside the view and clear of every box taken, now taken.
    pub fn place(&mut self, candidates: &[Rect]) -> Option<Rect> {
        let spot = candidates
            .iter()
            // A unit apart, and a unit inside: the drawing rounds to tenths.
            .find(|r| {
                r.grown(1.0).inside(&self.view)
                    && !self.taken.iter().any(|t| t.overlaps(&r.grown(1.0)))
            })
            .copied()?;
        self.taken.push(spot);
        Some(spot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_goes_elsewhere_when_its_first_spot_is_taken_and_never_leaves_the_view() {
        let view = Rect {
            x0: 0.0,
            y0: 0.0,
            x1: 100.0,
            y1: 100.0,
        };
        let mut placer = Placer::new(view);
        let size = chip_size(&["Germany".to_owned()], 10.0, false);
        let first = placer
            .place(&spots((50.0, 50.0), size, true))
            .expect("room");
        let second = placer
            .place(&spots((50.0, 50.0), size, true))
            .expect("room");
        assert!(!first.overlaps(&second));
        // Near the corner, only spots inside the view are taken.
        let corner = placer.place(&spots((1.0, 1.0), size, true)).expect("room");
        assert!(corner.inside(&view), "{corner:?}");
    }
}
