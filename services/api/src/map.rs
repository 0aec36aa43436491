//! The board as a picture: an SVG drawn on the server from a board view, with every
//! territory and sea zone placed by approximate real-world position. Land positions are
//! data beside the boards (`pages/maps/*.json`); each sea zone sits at the middle of its
//! neighbours, and places that would overlap are pushed apart. The layout depends on the
//! board only, so it is computed once per ruleset and kept.
//!
//! Each place is a `<g class="place">` with its name, holder and units in `data-`
//! attributes and a `<title>` (what a screen reader and a hovering pointer get), a shape
//! coloured by the holder, and the number of units on it; complexes, AA guns and damaged
//! battleships are marked. Lines join the places whose connection crosses water.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, OnceLock};

use serde::Deserialize;
use warlog_rules::board::{Board, Power};

use crate::views::{BoardView, PlaceView};

/// A game's board, as its log stands, drawn.
pub fn game_svg(log: &warlog_events::game::GameLog, highlight: Option<&str>) -> String {
    let layout = MapLayout::cached(&log.ruleset.hash, &log.ruleset.board);
    board_svg(&BoardView::of(log), &layout, highlight)
}

/// The drawing's size in user units.
const WIDTH: f64 = 1200.0;
const HEIGHT: f64 = 560.0;
/// The latitudes the drawing spans (north at the top).
const NORTH: f64 = 75.0;
const SOUTH: f64 = -52.0;
/// Places closer than this are pushed apart.
const SPACING: f64 = 30.0;

#[derive(Debug, Deserialize)]
struct Positions {
    centre_longitude: f64,
    land: HashMap<String, [f64; 2]>,
}

fn known_positions() -> &'static [Positions] {
    static KNOWN: OnceLock<Vec<Positions>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        [
            include_str!("pages/maps/classic.json"),
            include_str!("pages/maps/pacific.json"),
        ]
        .iter()
        .filter_map(|text| serde_json::from_str(text).ok())
        .collect()
    })
}

/// Where each place of a board is drawn, and the parts of the drawing that depend on the
/// board alone (positions, labels, the water lines), written once.
#[derive(Debug)]
pub struct MapLayout {
    /// In the board's order.
    frames: Vec<Frame>,
    by_name: HashMap<String, usize>,
    /// The `<g class="water">` element.
    water: String,
}

/// One place's fixed parts.
#[derive(Debug)]
struct Frame {
    name: String,
    sea: bool,
    ipc: u32,
    /// ` cx=".." cy=".."`.
    centre: String,
    /// The unit count's ` x=".." y=".."`.
    count_at: String,
    complex: String,
    aa: String,
    damaged: String,
    ring: String,
    label: String,
}

impl MapLayout {
    /// The layout of `board`, by the positions file that knows most of its land.
    pub fn of(board: &Board) -> MapLayout {
        let names: Vec<(&str, bool)> = board
            .territories()
            .map(|(_, t)| (t.name.as_str(), t.sea))
            .collect();
        let positions = known_positions().iter().max_by_key(|p| {
            names
                .iter()
                .filter(|(n, _)| p.land.contains_key(*n))
                .count()
        });
        let centre = positions.map_or(0.0, |p| p.centre_longitude);
        let project = |[lon, lat]: [f64; 2]| {
            let x = (lon - centre + 180.0).rem_euclid(360.0) / 360.0 * WIDTH;
            let y = (NORTH - lat.clamp(SOUTH, NORTH)) / (NORTH - SOUTH) * HEIGHT;
            (x, y)
        };
        let n = names.len();
        let mut fixed = vec![false; n];
        let mut at = vec![(WIDTH / 2.0, HEIGHT / 2.0); n];
        for (i, (name, _)) in names.iter().enumerate() {
            if let Some(p) = positions.and_then(|p| p.land.get(*name)) {
                at[i] = project(*p);
                fixed[i] = true;
            }
        }
        let neighbours: Vec<Vec<usize>> = board
            .territories()
            .map(|(id, _)| board.neighbours(id).iter().map(|t| t.index()).collect())
            .collect();
        // Unknown places (sea zones, an uploaded board's land) go to the middle of their
        // placed neighbours, nearest the placed ones first; then each settles at the middle
        // of all its neighbours. x is a longitude, so the middle is a circular mean: a sea
        // zone between Hawaii and Midway sits between them, across the cut.
        let middle = |points: &mut dyn Iterator<Item = (f64, f64)>| -> Option<(f64, f64)> {
            let (mut c, mut s, mut y, mut k) = (0.0, 0.0, 0.0, 0.0);
            for (px, py) in points {
                let angle = px / WIDTH * std::f64::consts::TAU;
                c += angle.cos();
                s += angle.sin();
                y += py;
                k += 1.0;
            }
            (k > 0.0).then(|| {
                let angle = s.atan2(c).rem_euclid(std::f64::consts::TAU);
                (angle / std::f64::consts::TAU * WIDTH, y / k)
            })
        };
        let mut placed = fixed.clone();
        loop {
            let next = (0..n)
                .filter(|i| !placed[*i])
                .max_by_key(|i| neighbours[*i].iter().filter(|j| placed[**j]).count());
            let Some(i) = next else { break };
            let known = neighbours[i].iter().filter(|j| placed[**j]).count();
            if known > 0 {
                at[i] = middle(&mut neighbours[i].iter().filter(|j| placed[**j]).map(|j| at[*j]))
                    .unwrap_or(at[i]);
            }
            placed[i] = true;
        }
        for _ in 0..20 {
            for i in (0..n).filter(|i| !fixed[*i]) {
                if let Some(p) = middle(&mut neighbours[i].iter().map(|j| at[*j])) {
                    at[i] = p;
                }
            }
        }
        // Then places too close are pushed apart, so every shape can be seen and pointed at.
        for _ in 0..40 {
            let mut moved = false;
            for i in 0..n {
                for j in (i + 1)..n {
                    let (dx, dy) = (at[j].0 - at[i].0, at[j].1 - at[i].1);
                    let d = (dx * dx + dy * dy).sqrt();
                    if d < SPACING {
                        let push = (SPACING - d) / 2.0;
                        let (ux, uy) = if d > 0.01 {
                            (dx / d, dy / d)
                        } else {
                            // Two on one spot: apart along a fixed direction per pair.
                            let angle = (i * 7 + j * 13) as f64;
                            (angle.cos(), angle.sin())
                        };
                        at[i] = (at[i].0 - ux * push, at[i].1 - uy * push);
                        at[j] = (at[j].0 + ux * push, at[j].1 + uy * push);
                        moved = true;
                    }
                }
            }
            for p in &mut at {
                p.0 = p.0.clamp(14.0, WIDTH - 14.0);
                p.1 = p.1.clamp(14.0, HEIGHT - 24.0);
            }
            if !moved {
                break;
            }
        }
        let mut water = String::from("<g class=\"water\" stroke=\"#9fbfd3\" stroke-width=\"1\">");
        for i in 0..n {
            for &j in &neighbours[i] {
                let across_the_cut = (at[i].0 - at[j].0).abs() > WIDTH / 2.0;
                if i < j && (names[i].1 || names[j].1) && !across_the_cut {
                    let _ = write!(
                        water,
                        "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>",
                        at[i].0, at[i].1, at[j].0, at[j].1
                    );
                }
            }
        }
        water.push_str("</g>");
        let frames: Vec<Frame> = board
            .territories()
            .zip(at)
            .map(|((_, t), (x, y))| Frame {
                name: escape(&t.name).into_owned(),
                sea: t.sea,
                ipc: t.ipc,
                centre: format!(" cx=\"{x:.1}\" cy=\"{y:.1}\""),
                count_at: format!(" x=\"{x:.1}\" y=\"{:.1}\"", y + 3.5),
                complex: format!(
                    "<rect class=\"complex\" x=\"{:.1}\" y=\"{:.1}\" width=\"6\" height=\"6\" fill=\"#222\"/>",
                    x + 7.0,
                    y - 13.0
                ),
                aa: format!(
                    "<path class=\"aa\" d=\"M{:.1} {:.1} l4 -7 l4 7 z\" fill=\"#222\"/>",
                    x - 15.0,
                    y - 6.0
                ),
                damaged: format!(
                    "<path class=\"damaged\" d=\"M{:.1} {:.1} l6 6 m0 -6 l-6 6\" stroke=\"#d7263d\" stroke-width=\"2\"/>",
                    x + 7.0,
                    y + 6.0
                ),
                ring: format!(
                    "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"17\" fill=\"none\" stroke=\"#d7263d\" stroke-width=\"3\"/>"
                ),
                label: format!(
                    "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"7\" {}>{}</text>",
                    y + if t.sea { 15.0 } else { 19.0 },
                    if t.sea {
                        "fill=\"#4a7a99\" font-style=\"italic\""
                    } else {
                        "fill=\"#333\""
                    },
                    escape(&short_name(&t.name))
                ),
            })
            .collect();
        MapLayout {
            by_name: board
                .territories()
                .enumerate()
                .map(|(i, (_, t))| (t.name.clone(), i))
                .collect(),
            frames,
            water,
        }
    }

    /// The layout of a ruleset's board, computed once and kept.
    pub fn cached(ruleset_key: &str, board: &Board) -> Arc<MapLayout> {
        static LAYOUTS: OnceLock<Mutex<HashMap<String, Arc<MapLayout>>>> = OnceLock::new();
        let layouts = LAYOUTS.get_or_init(Default::default);
        let mut layouts = layouts.lock().unwrap_or_else(|e| e.into_inner());
        if layouts.len() > 64 {
            // Uploaded rulesets are few; a flood of them must not grow this for ever.
            layouts.clear();
        }
        layouts
            .entry(ruleset_key.to_owned())
            .or_insert_with(|| Arc::new(MapLayout::of(board)))
            .clone()
    }
}

/// A power as the API names it (`united-kingdom`).
pub fn power_id(power: Power) -> &'static str {
    match power {
        Power::Russia => "russia",
        Power::Germany => "germany",
        Power::UnitedKingdom => "united-kingdom",
        Power::Japan => "japan",
        Power::UnitedStates => "united-states",
        Power::Ccp => "ccp",
        Power::Kmt => "kmt",
        Power::Npn => "npn",
    }
}

/// The colour a holder's places are drawn in.
pub fn colour(power: Option<Power>) -> &'static str {
    match power {
        Some(Power::Russia) => "#a33b2f",
        Some(Power::Germany) => "#6b6b6b",
        Some(Power::UnitedKingdom) => "#c9a227",
        Some(Power::Japan) => "#e58a1f",
        Some(Power::UnitedStates) => "#4d7c3a",
        Some(Power::Ccp) => "#d1495b",
        Some(Power::Kmt) => "#3f6ea5",
        Some(Power::Npn) => "#9a8c78",
        None => "#e8e2d0",
    }
}

const SEA: &str = "#b9d6e8";

/// Text as it may stand in SVG or HTML, in an element or a quoted attribute.
pub(crate) fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"']) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;"),
    )
}

/// The units of a place in one line: `Germany 3 INF, 1 ARM; Russia 2 INF`.
fn units_line(stacks: &[crate::views::StackView]) -> String {
    let mut by_power: Vec<(Power, Vec<String>)> = Vec::new();
    for stack in stacks {
        let text = if stack.damage > 0 {
            format!("{} {} (damaged)", stack.count, stack.unit)
        } else {
            format!("{} {}", stack.count, stack.unit)
        };
        match by_power.iter_mut().find(|(p, _)| *p == stack.power) {
            Some((_, list)) => list.push(text),
            None => by_power.push((stack.power, vec![text])),
        }
    }
    by_power
        .iter()
        .map(|(p, list)| format!("{} {}", p.name(), list.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The board view drawn with `layout`; `highlight` rings one place (a battle's). Every
/// place of the board is drawn: one the view leaves out (nobody holds it, nothing is
/// there) is drawn empty.
pub fn board_svg(view: &BoardView, layout: &MapLayout, highlight: Option<&str>) -> String {
    let mut svg = String::with_capacity(96 * 1024);
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board-map\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" \
         role=\"img\" aria-labelledby=\"map-title map-desc\" font-family=\"sans-serif\">\
         <title id=\"map-title\">The board after event {}: round {}, {}</title>\
         <desc id=\"map-desc\">Each territory and sea zone is a shape placed where the place is in the world, \
         coloured by who holds it, with the number of units on it; hover or focus a shape for its units. \
         A square marks an industrial complex, a triangle an AA gun, a cross a damaged battleship.</desc>\
         <rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#eef5f9\"/>",
        view.version,
        view.round,
        escape(&view.phase_name)
    );
    svg.push_str(&layout.water);
    let mut shown: Vec<Option<&PlaceView>> = vec![None; layout.frames.len()];
    for place in &view.places {
        if let Some(&i) = layout.by_name.get(&place.name) {
            shown[i] = Some(place);
        }
    }
    // Frames keep their names escaped: the highlight is compared in the same form.
    let highlight = highlight.map(escape);
    for (frame, place) in layout.frames.iter().zip(shown) {
        let lit = highlight.as_deref() == Some(frame.name.as_str());
        draw_place(&mut svg, frame, place, lit);
    }
    svg.push_str("</svg>");
    svg
}

fn draw_place(svg: &mut String, frame: &Frame, place: Option<&PlaceView>, lit: bool) {
    let holder = place.and_then(|p| p.holder);
    let stacks = place.map_or(&[][..], |p| p.units.as_slice());
    let units: u32 = stacks.iter().map(|s| s.count).sum();
    svg.push_str("<g class=\"place");
    svg.push_str(if frame.sea { " sea" } else { " land" });
    if lit {
        svg.push_str(" highlighted");
    }
    svg.push_str("\" data-name=\"");
    svg.push_str(&frame.name);
    svg.push_str("\" data-holder=\"");
    if let Some(holder) = holder {
        svg.push_str(power_id(holder));
    }
    svg.push_str("\" data-units=\"");
    for (i, stack) in stacks.iter().enumerate() {
        if i > 0 {
            svg.push(',');
        }
        let _ = write!(
            svg,
            "{}:{}:{}",
            power_id(stack.power),
            escape(&stack.unit),
            stack.count
        );
    }
    let _ = write!(
        svg,
        "\" data-unit-count=\"{units}\" tabindex=\"0\"><title>{}",
        frame.name
    );
    if let Some(holder) = holder {
        svg.push_str(", held by ");
        svg.push_str(holder.name());
    }
    if units > 0 {
        svg.push_str(": ");
        svg.push_str(&escape(&units_line(stacks)));
    }
    svg.push_str("</title>");
    if frame.sea {
        let _ = write!(
            svg,
            "<circle{} r=\"8\" fill=\"{SEA}\" stroke=\"#7ea7c2\" stroke-dasharray=\"2 2\"/>",
            frame.centre
        );
    } else {
        let _ = write!(
            svg,
            "<circle{} r=\"11\" fill=\"{}\" stroke=\"#33302a\" stroke-width=\"{}\"/>",
            frame.centre,
            colour(holder),
            if frame.ipc > 0 { "1.5" } else { "0.7" }
        );
    }
    if lit {
        svg.push_str(&frame.ring);
    }
    if units > 0 {
        let _ = write!(
            svg,
            "<text{} text-anchor=\"middle\" font-size=\"10\" font-weight=\"bold\" fill=\"#111\">{units}</text>",
            frame.count_at
        );
    }
    if stacks.iter().any(|s| s.unit == "IC") {
        svg.push_str(&frame.complex);
    }
    if stacks.iter().any(|s| s.unit == "AA") {
        svg.push_str(&frame.aa);
    }
    if stacks.iter().any(|s| s.damage > 0) {
        svg.push_str(&frame.damaged);
    }
    svg.push_str(&frame.label);
    svg.push_str("</g>");
}

/// A label that fits under a shape: `Karelia S.S.R.` stays, `French Equatorial Africa` is
/// cut to its first two words.
fn short_name(name: &str) -> String {
    let name = name.strip_suffix(" Sea Zone").unwrap_or(name);
    let words: Vec<&str> = name.split_whitespace().collect();
    if words.len() > 2 {
        words[..2].join(" ")
    } else {
        name.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warlog_rules::ruleset::Ruleset;

    #[test]
    fn every_land_territory_of_the_built_in_boards_has_a_real_world_position() {
        for id in ["cutthroat", "aap-historical", "war"] {
            let ruleset = Ruleset::builtin(id).expect("a built-in ruleset");
            let known = known_positions();
            let missing: Vec<&str> = ruleset
                .board
                .territories()
                .filter(|(_, t)| !t.sea)
                .filter(|(_, t)| !known.iter().any(|p| p.land.contains_key(&t.name)))
                .map(|(_, t)| t.name.as_str())
                .collect();
            assert!(missing.is_empty(), "{id}: no position for {missing:?}");
        }
    }

    #[test]
    fn every_place_gets_its_own_spot_on_the_drawing() {
        for id in ["cutthroat", "aap-historical"] {
            let ruleset = Ruleset::builtin(id).expect("a built-in ruleset");
            let layout = MapLayout::of(&ruleset.board);
            assert_eq!(layout.frames.len(), ruleset.board.territories().count());
            let mut spots: Vec<&str> = layout.frames.iter().map(|f| f.centre.as_str()).collect();
            spots.sort_unstable();
            spots.dedup();
            assert_eq!(
                spots.len(),
                layout.frames.len(),
                "{id}: two places on one spot"
            );
        }
    }
}
