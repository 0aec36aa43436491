//! Charts drawn on the server as inline SVG: lines over time (points, ratings, standings by
//! round) and horizontal bars (places, survivors). Each has a title and a description, and
//! each point or bar a `<title>` with its value, so the numbers are there for a screen reader
//! too.
//!
//! Every piece of text is placed as a box ([`text`]) before it is drawn: the scale is chosen
//! for the data ([`scale`]) with no more ticks than their labels have room for, the lines
//! that matter are named at their ends (moved apart when they end close together), the
//! others drawn grey for context, and the tests check that no two boxes overlap and none
//! leaves the view box.

use std::fmt::Write as _;

mod scale;
mod text;

use text::{Anchor, Label};

/// One line of a line chart.
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub colour: &'static str,
    /// (x, y); x values are the chart's steps.
    pub points: Vec<(f64, f64)>,
    /// A line that matters: drawn in its colour and named, with its last value, at its end.
    /// The others are thin grey lines for context (each point still has its `<title>`).
    pub labelled: bool,
}

/// Colours for the lines that matter, in order: Okabe and Ito's colour-blind-safe hues,
/// darkened so that each, as text on white, reaches WCAG's 4.5:1.
pub const PALETTE: [&str; 6] = [
    "#0072b2", "#b34700", "#00775a", "#a0467c", "#7a6200", "#6a3d9a",
];
/// The lines drawn for context, behind the ones that matter.
const CONTEXT: &str = "#b9b9b9";
/// Text: the page's ink, and a grey that still reaches 4.5:1 on white.
const INK: &str = "#1d2330";
const MUTED: &str = "#555555";
const AXIS: &str = "#8c8c8c";
const GRID: &str = "#ececec";
const ZERO: &str = "#bdbdbd";

/// The view box's width, the height following from what is drawn: narrow enough that on
/// a phone, where the chart is drawn smaller, its text can still be read.
const W: f64 = 480.0;
const PAD: f64 = 8.0;
const FONT: f64 = 13.0;
const TITLE_SIZE: f64 = 14.0;
/// The plot's height in a line chart.
const PLOT_H: f64 = 180.0;
/// One bar's row in a bar chart.
const BAR_ROW: f64 = 22.0;
/// How far a label's centre lies above its baseline.
const MIDDLE: f64 = 0.35 * FONT;

/// Text as it may stand in SVG, in an element or a quoted attribute.
fn escape(text: &str) -> String {
    maud::html! { (text) }.into_string()
}

/// A number on an axis or a bar: at most two decimals.
fn number(value: f64) -> String {
    crate::respond::decimal(value)
}

/// A chart as drawn, with the labels in it and the ones left out; the tests measure them.
#[derive(Debug)]
#[cfg_attr(not(test), allow(dead_code))]
struct Drawn {
    svg: String,
    labels: Vec<Label>,
    left_out: Vec<Label>,
    height: f64,
}

/// The chart's SVG: its body, then its labels. The layout keeps labels apart; should it
/// ever fail to, a label that would cover another or leave the view box is left out
/// rather than drawn over (its value is still in the points' and bars' titles).
fn finish(
    class: &str,
    title: &str,
    desc: &str,
    height: f64,
    body: &str,
    labels: Vec<Label>,
) -> Drawn {
    let mut svg = open(class, title, desc, height);
    svg.push_str(body);
    let mut kept: Vec<(Label, text::Rect)> = Vec::with_capacity(labels.len());
    let mut left_out = Vec::new();
    for label in labels {
        let rect = label.rect();
        if rect.within(W, height) && !kept.iter().any(|(_, other)| other.overlaps(&rect)) {
            svg.push_str(&label.svg());
            kept.push((label, rect));
        } else {
            left_out.push(label);
        }
    }
    svg.push_str("</svg>");
    Drawn {
        svg,
        labels: kept.into_iter().map(|(label, _)| label).collect(),
        left_out,
        height,
    }
}

/// The title's lines at the top left, and where the space below them begins.
fn title_labels(title: &str) -> (Vec<Label>, f64) {
    let lines = text::wrap(title, W - 2.0 * PAD, TITLE_SIZE, true);
    let baseline = |k: usize| PAD + TITLE_SIZE * (1.0 + 1.3 * k as f64);
    let below = baseline(lines.len().max(1) - 1) + 0.3 * TITLE_SIZE;
    let labels = lines
        .into_iter()
        .enumerate()
        .map(|(k, line)| Label {
            x: PAD,
            y: baseline(k),
            anchor: Anchor::Start,
            text: line,
            size: TITLE_SIZE,
            bold: true,
            fill: INK,
        })
        .collect();
    (labels, below)
}

fn open(class: &str, title: &str, desc: &str, height: f64) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart {class}\" viewBox=\"0 0 {W} {height:.0}\" \
         role=\"img\" aria-label=\"{t}\" font-family=\"sans-serif\" font-size=\"{FONT}\">\
         <title>{t}</title><desc>{}</desc>",
        escape(desc),
        t = escape(title),
    )
}

fn label(x: f64, y: f64, anchor: Anchor, text: String, fill: &'static str) -> Label {
    Label {
        x,
        y,
        anchor,
        text,
        size: FONT,
        bold: false,
        fill,
    }
}

fn widest(labels: impl Iterator<Item = String>) -> f64 {
    labels
        .map(|t| text::width(&t, FONT, false))
        .fold(0.0, f64::max)
}

/// A line chart: `x_label` names the steps, `y_label` the values.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    draw_lines(title, x_label, y_label, series).svg
}

fn draw_lines(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> Drawn {
    let (mut labels, below_title) = title_labels(title);
    let all = || series.iter().flat_map(|s| s.points.iter().copied());
    let bounds = |values: Vec<f64>| {
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if lo.is_finite() {
            (lo, hi)
        } else {
            (0.0, 1.0)
        }
    };
    let (x0, x1) = bounds(all().map(|p| p.0).collect());
    let (y0, y1) = bounds(all().map(|p| p.1).collect());
    let x1 = if x1 - x0 < 1e-9 { x0 + 1.0 } else { x1 };

    // The value axis: round ticks spanning the data, no closer than two lines of text.
    let y_ticks = scale::ticks(y0, y1, (PLOT_H / (2.4 * FONT)) as usize, false);
    let (ya, yb) = (y_ticks[0], y_ticks[y_ticks.len() - 1]);

    // The lines that matter, named at their ends: as many as the plot's height holds.
    let gap = (text::ASCENT + text::DESCENT) * FONT + 2.0;
    let plot_top = below_title + 0.6 * FONT + 4.0;
    let plot_bottom = plot_top + PLOT_H;
    let (label_lo, label_hi) = (plot_top, plot_bottom - 4.0);
    let room = ((label_hi - label_lo) / gap) as usize + 1;
    let ends: Vec<(usize, String, (f64, f64))> = series
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let last = *s.points.last()?;
            s.labelled.then(|| {
                let words = format!("{} {}", s.label, number(last.1));
                (i, text::fit(words.trim(), 0.3 * W, FONT), last)
            })
        })
        .take(room)
        .collect();
    let end_width = widest(ends.iter().map(|e| e.1.clone()));

    // The steps: whole numbers when every step is one, as many ticks as their labels allow.
    let whole = all().all(|p| p.0.fract() == 0.0);
    let x_text_width = widest([x0, x1].into_iter().map(number));
    let left = PAD + widest(y_ticks.iter().map(|t| scale::tick_text(*t, &y_ticks))) + 6.0;
    let left = left.max(PAD + x_text_width / 2.0);
    let right = if ends.is_empty() {
        W - PAD - x_text_width / 2.0
    } else {
        W - PAD - end_width - 12.0
    };
    let most = ((right - left) / (x_text_width + 16.0)) as usize + 1;
    let x_ticks: Vec<f64> = scale::ticks(x0, x1, most, whole)
        .into_iter()
        .filter(|x| (x0 - 1e-9..=x1 + 1e-9).contains(x))
        .collect();
    let sx = |x: f64| left + (x - x0) / (x1 - x0) * (right - left);
    let sy = |y: f64| plot_top + (yb - y) / (yb - ya) * PLOT_H;

    let mut body = String::new();
    for tick in &y_ticks {
        let y = sy(*tick);
        let stroke = if *tick == 0.0 && ya < 0.0 { ZERO } else { GRID };
        let _ = write!(
            body,
            "<line x1=\"{left:.1}\" y1=\"{y:.1}\" x2=\"{right:.1}\" y2=\"{y:.1}\" stroke=\"{stroke}\"/>"
        );
        labels.push(label(
            left - 6.0,
            y + MIDDLE,
            Anchor::End,
            scale::tick_text(*tick, &y_ticks),
            MUTED,
        ));
    }
    let _ = write!(
        body,
        "<line x1=\"{left:.1}\" y1=\"{plot_bottom:.1}\" x2=\"{right:.1}\" y2=\"{plot_bottom:.1}\" stroke=\"{AXIS}\"/>"
    );
    // Below the lowest value's label, which stands half above and half below the axis.
    let x_baseline = plot_bottom + 0.6 * FONT + 3.0 + text::ASCENT * FONT;
    for tick in &x_ticks {
        let x = sx(*tick);
        let _ = write!(
            body,
            "<line x1=\"{x:.1}\" y1=\"{plot_bottom:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"{AXIS}\"/>",
            plot_bottom + 3.0
        );
        labels.push(label(x, x_baseline, Anchor::Middle, number(*tick), MUTED));
    }
    let name_baseline = x_baseline + (text::DESCENT + text::ASCENT) * FONT + 4.0;
    labels.push(label(
        (left + right) / 2.0,
        name_baseline,
        Anchor::Middle,
        x_label.to_owned(),
        MUTED,
    ));

    draw_series(&mut body, series, x_label, &sx, &sy);

    // The names at the ends, moved apart where the lines end close together, each joined
    // to its line's end when moved.
    let wishes: Vec<f64> = ends.iter().map(|e| sy(e.2 .1)).collect();
    let placed = text::spread(&wishes, gap, label_lo, label_hi);
    let label_x = right + 12.0;
    for ((i, words, (x, _)), (wish, at)) in ends.into_iter().zip(wishes.iter().zip(&placed)) {
        let colour = series[i].colour;
        if (wish - at).abs() > 1.5 {
            let _ = write!(
                body,
                "<line x1=\"{:.1}\" y1=\"{wish:.1}\" x2=\"{:.1}\" y2=\"{at:.1}\" stroke=\"{colour}\" stroke-width=\"1\"/>",
                sx(x) + 4.0,
                label_x - 3.0
            );
        }
        labels.push(label(label_x, at + MIDDLE, Anchor::Start, words, colour));
    }

    let height = name_baseline + text::DESCENT * FONT + PAD;
    let desc = line_chart_description(series, x_label, y_label);
    finish("line", title, &desc, height, &body, labels)
}

/// Each series' line and points, with their values as tooltips. Context first, so the
/// lines that matter are drawn over it; of those, the first (the leader) last, on top of
/// any line it shares.
fn draw_series(
    body: &mut String,
    series: &[Series],
    x_label: &str,
    sx: &dyn Fn(f64) -> f64,
    sy: &dyn Fn(f64) -> f64,
) {
    let order = series
        .iter()
        .filter(|s| !s.labelled)
        .chain(series.iter().rev().filter(|s| s.labelled));
    for s in order {
        let (colour, width, radius) = if s.labelled {
            (s.colour, 2.5, 3.0)
        } else {
            (CONTEXT, 1.5, 2.0)
        };
        let path: Vec<String> = s
            .points
            .iter()
            .map(|(x, y)| format!("{:.1},{:.1}", sx(*x), sy(*y)))
            .collect();
        let _ = write!(
            body,
            "<g class=\"series\" data-label=\"{}\"><polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"{width}\" points=\"{}\"/>",
            escape(&s.label),
            path.join(" ")
        );
        for (x, y) in &s.points {
            let _ = write!(
                body,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{radius}\" fill=\"{colour}\"><title>{}: {} at {} {}</title></circle>",
                sx(*x),
                sy(*y),
                escape(&s.label),
                number(*y),
                escape(x_label),
                number(*x)
            );
        }
        body.push_str("</g>");
    }
}

/// What a line chart shows, in words: its axes, how many lines, and those named.
fn line_chart_description(series: &[Series], x_label: &str, y_label: &str) -> String {
    let named: Vec<&str> = series
        .iter()
        .filter(|s| s.labelled)
        .map(|s| s.label.as_str())
        .collect();
    let mut desc = format!(
        "{y_label} by {x_label}, {}",
        crate::number_words::count(series.len() as f64, "line", "lines")
    );
    if !named.is_empty() && named.len() < series.len() {
        let _ = write!(desc, "; named: {}", named.join(", "));
    }
    desc
}

/// A bar chart of labelled values, a bar a row (so long names have room), each value
/// written at its bar's end followed by `unit` (`%`, or nothing).
pub fn bar_chart(title: &str, unit: &str, bars: &[(String, f64)]) -> String {
    draw_bars(title, unit, bars).svg
}

fn draw_bars(title: &str, unit: &str, bars: &[(String, f64)]) -> Drawn {
    let (mut labels, below_title) = title_labels(title);
    let top = below_title + 8.0;
    let names: Vec<String> = bars
        .iter()
        .map(|b| text::fit(&b.0, 0.4 * W, FONT))
        .collect();
    let values: Vec<String> = bars
        .iter()
        .map(|b| format!("{}{unit}", number(b.1)))
        .collect();
    let bars_x = PAD + widest(names.iter().cloned()) + 8.0;
    let room = W - PAD - widest(values.iter().cloned()) - 6.0 - bars_x;
    let most = bars.iter().map(|b| b.1).fold(0.0, f64::max);
    let most = if most > 0.0 { most } else { 1.0 };
    let mut body = String::new();
    for (i, ((name, value), (full, v))) in names.iter().zip(&values).zip(bars).enumerate() {
        let y = top + BAR_ROW * i as f64;
        let centre = y + BAR_ROW / 2.0;
        let length = v.max(0.0) / most * room;
        let _ = write!(
            body,
            "<g class=\"bar\" data-label=\"{l}\" data-value=\"{n}\"><rect x=\"{bars_x:.1}\" y=\"{:.1}\" width=\"{length:.1}\" height=\"{:.1}\" fill=\"{}\">\
             <title>{l}: {v}</title></rect></g>",
            y + 4.0,
            BAR_ROW - 8.0,
            PALETTE[0],
            l = escape(full),
            n = number(*v),
            v = escape(value),
        );
        labels.push(label(
            bars_x - 8.0,
            centre + MIDDLE,
            Anchor::End,
            name.clone(),
            INK,
        ));
        labels.push(label(
            bars_x + length + 4.0,
            centre + MIDDLE,
            Anchor::Start,
            value.clone(),
            INK,
        ));
    }
    let bottom = top + BAR_ROW * bars.len() as f64;
    if !bars.is_empty() {
        let _ = write!(
            body,
            "<line x1=\"{bars_x:.1}\" y1=\"{top:.1}\" x2=\"{bars_x:.1}\" y2=\"{bottom:.1}\" stroke=\"{AXIS}\"/>"
        );
    }
    let height = bottom + PAD;
    let desc = crate::number_words::count(bars.len() as f64, "bar", "bars");
    finish("bars", title, &desc, height, &body, labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every label drawn, inside the view box, and no two overlapping.
    fn assert_labels_apart(drawn: &Drawn) {
        let left_out: Vec<_> = drawn
            .left_out
            .iter()
            .map(|l| (l.text.as_str(), l.rect()))
            .collect();
        let kept: Vec<_> = drawn
            .labels
            .iter()
            .map(|l| (l.text.as_str(), l.rect()))
            .collect();
        assert!(
            left_out.is_empty(),
            "left out: {left_out:?} of {kept:?} in {}",
            drawn.height
        );
        let boxes: Vec<_> = drawn.labels.iter().map(|l| (l, l.rect())).collect();
        for (label, rect) in &boxes {
            assert!(
                rect.within(W, drawn.height),
                "{:?} leaves the view box 0 0 {W} {}: {rect:?}",
                label.text,
                drawn.height
            );
        }
        for (i, (a, ra)) in boxes.iter().enumerate() {
            for (b, rb) in &boxes[i + 1..] {
                assert!(
                    !ra.overlaps(rb),
                    "{:?} {ra:?} overlaps {:?} {rb:?}",
                    a.text,
                    b.text
                );
            }
        }
    }

    fn series(label: &str, labelled: bool, points: Vec<(f64, f64)>) -> Series {
        Series {
            label: label.into(),
            colour: PALETTE[0],
            points,
            labelled,
        }
    }

    #[test]
    fn a_line_chart_has_a_point_with_its_value_for_every_step_of_every_series() {
        let svg = line_chart(
            "Points",
            "game",
            "points",
            &[series(
                "ann <1>",
                true,
                vec![(1.0, 5.0), (2.0, 3.0), (3.0, -2.0)],
            )],
        );
        assert_eq!(svg.matches("<circle").count(), 3);
        assert!(svg.contains("ann &lt;1&gt;: -2 at game 3"), "{svg}");
        assert!(svg.contains(ZERO), "the zero line: {svg}");
        assert!(
            svg.contains(">ann &lt;1&gt; -2</text>"),
            "its name at its end: {svg}"
        );
    }

    #[test]
    fn ten_lines_ending_together_have_their_names_apart_and_inside_the_chart() {
        // A tournament's first round: ten players, most of them on nearly the same points.
        let finals = [5.0, 5.0, 4.9, 3.0, 3.0, 3.0, 2.0, 0.5, 0.5, -2.0];
        let lines: Vec<Series> = finals
            .iter()
            .enumerate()
            .map(|(i, last)| Series {
                label: format!("player-with-a-long-handle-{i}"),
                colour: PALETTE[i % PALETTE.len()],
                points: vec![(0.0, 0.0), (1.0, *last)],
                labelled: true,
            })
            .collect();
        let drawn = draw_lines("Points by round", "round", "points", &lines);
        assert_labels_apart(&drawn);
        assert!(drawn.svg.matches("<g class=\"series\"").count() == 10);
    }

    #[test]
    fn the_labels_of_long_and_odd_line_charts_never_overlap() {
        let many: Vec<(f64, f64)> = (0..=237)
            .map(|g| (g as f64, (g as f64 * 0.37).sin() * 1234.5))
            .collect();
        let cases: Vec<(&str, Vec<Series>)> = vec![
            ("One point", vec![series("only", true, vec![(1.0, 2.5)])]),
            ("Nothing at all", vec![]),
            ("An empty line", vec![series("empty", true, vec![])]),
            ("A long career", vec![series("points", true, many.clone())]),
            (
                "A title long enough that it cannot stand on one line of a chart and must be wrapped onto the next one",
                vec![
                    series("Żaneta Wróblewska-Kowalczyk", true, vec![(0.0, -0.004), (1.0, 0.003)]),
                    series("山田太郎", true, vec![(0.0, 0.0), (1.0, 0.003)]),
                    series("context", false, vec![(0.0, 0.0), (1.0, -0.001)]),
                ],
            ),
        ];
        for (title, lines) in cases {
            assert_labels_apart(&draw_lines(title, "game", "points", &lines));
        }
    }

    #[test]
    fn only_the_lines_that_matter_are_named_the_rest_are_grey() {
        let drawn = draw_lines(
            "Points by round",
            "round",
            "points",
            &[
                series("gil", true, vec![(0.0, 0.0), (1.0, 5.0)]),
                series("ed", false, vec![(0.0, 0.0), (1.0, -2.0)]),
            ],
        );
        assert!(drawn.labels.iter().any(|l| l.text == "gil 5"));
        assert!(!drawn.labels.iter().any(|l| l.text.starts_with("ed")));
        assert!(drawn.svg.contains(&format!("stroke=\"{CONTEXT}\"")));
        assert!(
            drawn.svg.contains("data-label=\"ed\""),
            "still there, in grey"
        );
        assert!(
            drawn
                .svg
                .contains("<desc>points by round, 2 lines; named: gil</desc>"),
            "{}",
            drawn.svg
        );
    }

    #[test]
    fn a_bar_chart_draws_each_bar_with_its_value_and_an_empty_one_draws_none() {
        let svg = bar_chart("Places", "", &[("1st".into(), 2.0), ("2nd".into(), 0.0)]);
        assert_eq!(svg.matches("<g class=\"bar\"").count(), 2);
        assert!(svg.contains("1st: 2"));
        assert!(svg.contains("<desc>2 bars</desc>"));
        assert_eq!(bar_chart("None", "", &[]).matches("<rect").count(), 0);
    }

    #[test]
    fn the_labels_of_a_bar_chart_of_long_names_never_overlap_or_leave_it() {
        // The odds page's survivors: ten outcomes, long lists of units, a value near 100%.
        let names = [
            "1 ARM, 1 FTR, 2 INF",
            "1 ARM, 1 FTR, 3 INF",
            "1 FTR, 1 ARM",
            "1 ARM, 2 INF",
            "1 ARM, 3 INF",
            "1 ARM, 1 INF",
            "1 ARM, 1 FTR",
            "1 ARM",
            "none",
            "2 BB, 3 CV, 4 FTR, 2 BMR, 6 SUB, 5 DD, 4 TRN, 3 AA, 9 INF, 8 ARM, 1 IC",
        ];
        let bars: Vec<(String, f64)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                (
                    (*n).to_owned(),
                    if i == 0 { 98.76 } else { 0.01 * i as f64 },
                )
            })
            .collect();
        let drawn = draw_bars("The attacker's survivors, most likely first", "%", &bars);
        assert_labels_apart(&drawn);
        assert!(drawn.svg.contains("98.76%"));
        assert_labels_apart(&draw_bars("Nothing", "", &[]));
        assert_labels_apart(&draw_bars(
            "Zeros",
            "",
            &[("1st".into(), 0.0), ("2nd".into(), 0.0)],
        ));
    }

    /// WCAG's contrast ratio of `colour` on white.
    fn contrast_on_white(colour: &str) -> f64 {
        let channel = |i: usize| {
            let c =
                f64::from(u8::from_str_radix(&colour[1 + 2 * i..3 + 2 * i], 16).unwrap()) / 255.0;
            if c <= 0.039_28 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        let luminance = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
        1.05 / (luminance + 0.05)
    }

    #[test]
    fn every_colour_text_is_drawn_in_reaches_four_and_a_half_to_one_on_white() {
        for colour in PALETTE.iter().chain([INK, MUTED].iter()) {
            let ratio = contrast_on_white(colour);
            assert!(ratio >= 4.5, "{colour}: {ratio:.2}:1");
        }
    }
}
