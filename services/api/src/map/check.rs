//! The map's labels checked from the SVG as drawn, for tests: every line of text measured
//! at the font size it is drawn with must sit inside its chip, no two chips may overlap, every
//! chip must lie inside the view box, and every text must reach 4.5:1 against its chip.
//! It reads the drawing, not the layout that made it, so a drawing that breaks a rule is
//! caught however it came about.

use super::labels::{text_width, Rect};
use super::palette::contrast;

/// A label as drawn.
#[derive(Debug, Clone)]
pub struct DrawnLabel {
    pub place: String,
    pub chip: Rect,
    pub chip_fill: String,
    pub ink: String,
    pub font_size: f64,
    pub bold: bool,
    /// Each line's text (unescaped) and its anchor (middle, baseline).
    pub lines: Vec<(String, f64, f64)>,
}

/// The labels of a drawing, and its view box.
pub fn labels_of(svg: &str) -> (Rect, Vec<DrawnLabel>) {
    let view = attribute(svg, "viewBox")
        .map(|v| {
            let n: Vec<f64> = v.split(' ').filter_map(|x| x.parse().ok()).collect();
            Rect {
                x0: n[0],
                y0: n[1],
                x1: n[0] + n[2],
                y1: n[1] + n[3],
            }
        })
        .unwrap_or(Rect {
            x0: 0.0,
            y0: 0.0,
            x1: 0.0,
            y1: 0.0,
        });
    let labels = svg
        .split("<g class=\"label ")
        .skip(1)
        .map(|part| {
            let part = &part[..part.find("</g>").unwrap_or(part.len())];
            let rect = &part[part.find("<rect").unwrap_or(0)..];
            let number = |tag: &str, name: &str| {
                attribute(tag, name)
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(f64::NAN)
            };
            let (x, y) = (number(rect, "x"), number(rect, "y"));
            let text = &part[part.find("<text").unwrap_or(0)..];
            let lines = text
                .split("<tspan")
                .skip(1)
                .map(|tspan| {
                    let body = &tspan[tspan.find('>').map_or(0, |i| i + 1)..];
                    let body = &body[..body.find("</tspan>").unwrap_or(body.len())];
                    (unescape(body), number(tspan, "x"), number(tspan, "y"))
                })
                .collect();
            DrawnLabel {
                place: unescape(&attribute(part, "data-for").unwrap_or_default()),
                chip: Rect {
                    x0: x,
                    y0: y,
                    x1: x + number(rect, "width"),
                    y1: y + number(rect, "height"),
                },
                chip_fill: attribute(rect, "fill").unwrap_or_default(),
                ink: attribute(text, "fill").unwrap_or_default(),
                font_size: number(text, "font-size"),
                bold: text[..text.find('>').unwrap_or(0)].contains("font-weight=\"bold\""),
                lines,
            }
        })
        .collect();
    (view, labels)
}

/// What is wrong with the drawing's labels, one line each; empty when nothing is.
pub fn label_problems(svg: &str) -> Vec<String> {
    let (view, labels) = labels_of(svg);
    let mut problems = Vec::new();
    for label in &labels {
        if !label.chip.inside(&view) {
            problems.push(format!(
                "{}'s label leaves the view: {:?}",
                label.place, label.chip
            ));
        }
        let ratio = contrast(&label.ink, &label.chip_fill);
        if ratio < 4.5 {
            problems.push(format!(
                "{}'s label: {} on {} is {ratio:.2}:1",
                label.place, label.ink, label.chip_fill
            ));
        }
        if label.font_size.is_nan() || label.font_size < 10.0 {
            problems.push(format!(
                "{}'s label is {} units",
                label.place, label.font_size
            ));
        }
        for (line, middle, baseline) in &label.lines {
            let width = text_width(line, label.font_size, label.bold);
            let text = Rect {
                x0: middle - width / 2.0,
                // Ascenders reach about 0.95 of the size above the baseline, descenders
                // 0.25 below.
                y0: baseline - 0.95 * label.font_size,
                x1: middle + width / 2.0,
                y1: baseline + 0.25 * label.font_size,
            };
            if !text.inside(&label.chip) {
                problems.push(format!(
                    "{}'s line {line:?} ({text:?}) is not inside its chip ({:?})",
                    label.place, label.chip
                ));
            }
        }
    }
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            if a.chip.overlaps(&b.chip) {
                problems.push(format!("{}'s and {}'s labels overlap", a.place, b.place));
            }
        }
    }
    problems
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    let rest = &tag[at..];
    Some(rest[..rest.find('"')?].to_owned())
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}
