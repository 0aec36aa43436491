//! Charts drawn on the server as inline SVG: lines over time (points, ratings, standings by
//! round) and bars (places, survivors). Each has a title and a description, and each point
//! or bar a `<title>` with its value, so the numbers are there for a screen reader too.

use std::fmt::Write as _;

/// One line of a line chart.
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub colour: &'static str,
    /// (x, y); x values are the chart's steps.
    pub points: Vec<(f64, f64)>,
}

const W: f64 = 640.0;
const H: f64 = 260.0;
const LEFT: f64 = 48.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 28.0;
const BOTTOM: f64 = 40.0;

/// Colours for series, in order.
pub const PALETTE: [&str; 8] = [
    "#8a1c1c", "#2f6690", "#3a7d44", "#c9a227", "#6b4c9a", "#d17a22", "#4d4d4d", "#1b998b",
];

use crate::map::escape;

/// A number on an axis: at most two decimals.
fn tick(value: f64) -> String {
    crate::respond::decimal(value)
}

/// The lower and upper bound of an axis over `values`, never empty.
fn span(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() {
        (0.0, 1.0)
    } else if (hi - lo).abs() < 1e-9 {
        (lo - 1.0, hi + 1.0)
    } else {
        (lo, hi)
    }
}

/// A line chart: `x_label` names the steps, `y_label` the values.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    let (x0, x1) = span(series.iter().flat_map(|s| s.points.iter().map(|p| p.0)));
    let (y0, y1) = span(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)));
    let sx = |x: f64| LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT);
    let sy = |y: f64| TOP + (y1 - y) / (y1 - y0) * (H - TOP - BOTTOM);
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart line\" viewBox=\"0 0 {W} {H}\" role=\"img\" \
         aria-label=\"{}\" font-family=\"sans-serif\" font-size=\"11\"><title>{}</title>\
         <desc>{} by {}, {} line(s)</desc>\
         <text x=\"{LEFT}\" y=\"16\" font-weight=\"bold\">{}</text>",
        escape(title),
        escape(title),
        escape(y_label),
        escape(x_label),
        series.len(),
        escape(title)
    );
    // Axes with their bounds, and the zero line when it is inside.
    let _ = write!(
        svg,
        "<g stroke=\"#999\"><line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{b}\"/>\
         <line x1=\"{LEFT}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\"/></g>\
         <text x=\"{l}\" y=\"{t}\" text-anchor=\"end\">{}</text>\
         <text x=\"{l}\" y=\"{b}\" text-anchor=\"end\">{}</text>\
         <text x=\"{LEFT}\" y=\"{xb}\">{}</text><text x=\"{r}\" y=\"{xb}\" text-anchor=\"end\">{}</text>\
         <text x=\"{mid}\" y=\"{xl}\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
        tick(y1),
        tick(y0),
        tick(x0),
        tick(x1),
        escape(x_label),
        b = H - BOTTOM,
        r = W - RIGHT,
        l = LEFT - 4.0,
        t = TOP + 4.0,
        xb = H - BOTTOM + 14.0,
        xl = H - 8.0,
        mid = (LEFT + W - RIGHT) / 2.0,
    );
    if y0 < 0.0 && y1 > 0.0 {
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" y1=\"{z:.1}\" x2=\"{r}\" y2=\"{z:.1}\" stroke=\"#ccc\" stroke-dasharray=\"3 3\"/>",
            z = sy(0.0),
            r = W - RIGHT
        );
    }
    for (i, s) in series.iter().enumerate() {
        let path: Vec<String> = s
            .points
            .iter()
            .map(|(x, y)| format!("{:.1},{:.1}", sx(*x), sy(*y)))
            .collect();
        let _ = write!(
            svg,
            "<g class=\"series\" data-label=\"{}\"><polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>",
            escape(&s.label),
            s.colour,
            path.join(" ")
        );
        for (x, y) in &s.points {
            let _ = write!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{}\"><title>{}: {} at {} {}</title></circle>",
                sx(*x),
                sy(*y),
                s.colour,
                escape(&s.label),
                tick(*y),
                escape(x_label),
                tick(*x)
            );
        }
        // The legend, one line per series, top right.
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"{}\">{}</text></g>",
            W - RIGHT,
            16.0 + 13.0 * i as f64,
            s.colour,
            escape(&s.label)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A bar chart of labelled values.
pub fn bar_chart(title: &str, y_label: &str, bars: &[(String, f64)]) -> String {
    let (_, top) = span(bars.iter().map(|b| b.1).chain([0.0]));
    let n = bars.len().max(1) as f64;
    let slot = (W - LEFT - RIGHT) / n;
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart bars\" viewBox=\"0 0 {W} {H}\" role=\"img\" \
         aria-label=\"{}\" font-family=\"sans-serif\" font-size=\"11\"><title>{}</title><desc>{} for {} bar(s)</desc>\
         <text x=\"{LEFT}\" y=\"16\" font-weight=\"bold\">{}</text>\
         <line x1=\"{LEFT}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#999\"/>",
        escape(title),
        escape(title),
        escape(y_label),
        bars.len(),
        escape(title),
        b = H - BOTTOM,
        r = W - RIGHT,
    );
    for (i, (label, value)) in bars.iter().enumerate() {
        let height = value.max(0.0) / top * (H - TOP - BOTTOM);
        let x = LEFT + slot * i as f64 + slot * 0.15;
        let _ = write!(
            svg,
            "<g class=\"bar\" data-label=\"{l}\" data-value=\"{v}\"><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{height:.1}\" fill=\"#2f6690\">\
             <title>{l}: {v}</title></rect>\
             <text x=\"{c:.1}\" y=\"{ly:.1}\" text-anchor=\"middle\">{l}</text>\
             <text x=\"{c:.1}\" y=\"{vy:.1}\" text-anchor=\"middle\" fill=\"#333\">{v}</text></g>",
            l = escape(label),
            v = tick(*value),
            y = H - BOTTOM - height,
            w = slot * 0.7,
            c = x + slot * 0.35,
            ly = H - BOTTOM + 14.0,
            vy = H - BOTTOM - height - 4.0,
        );
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_chart_has_a_point_with_its_value_for_every_step_of_every_series() {
        let svg = line_chart(
            "Points",
            "game",
            "points",
            &[Series {
                label: "ann <1>".into(),
                colour: PALETTE[0],
                points: vec![(1.0, 5.0), (2.0, 3.0), (3.0, -2.0)],
            }],
        );
        assert_eq!(svg.matches("<circle").count(), 3);
        assert!(svg.contains("ann &lt;1&gt;: -2 at game 3"), "{svg}");
        assert!(svg.contains("stroke-dasharray"), "the zero line: {svg}");
    }

    #[test]
    fn a_bar_chart_draws_each_bar_with_its_value_and_an_empty_one_draws_none() {
        let svg = bar_chart(
            "Places",
            "games",
            &[("1st".into(), 2.0), ("2nd".into(), 0.0)],
        );
        assert_eq!(svg.matches("<g class=\"bar\"").count(), 2);
        assert!(svg.contains("1st: 2"));
        assert_eq!(bar_chart("None", "games", &[]).matches("<rect").count(), 0);
    }
}
