//! The board as a picture: an SVG drawn on the server from a board view. Each territory
//! and sea zone is a shape, its cell of a tessellation of the places' real-world positions
//! (`sites`, `shapes`), land filled in its holder's colour and sea in the sea's, with the
//! battle's place ringed. Labels are chips placed so that none overlaps another or leaves
//! the view (`labels`), in colours whose contrast is checked (`palette`). The whole board
//! gives each place its name and the number of its units; a region (Europe, say) zooms in
//! and gives each place its units by power, as stacks of unit codes. An uploaded board the
//! positions do not know keeps the plain drawing: a circle a place, lines across water.
//!
//! The map is one image (`role="img"`, a title and a description); the page beside it
//! carries the legend and the board as a table. Each place is a `<g class="place">` with
//! its name, holder and units in `data-` attributes and a `<title>` for a hovering pointer.

pub mod check;
mod labels;
pub mod palette;
mod shapes;
mod sites;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, OnceLock};

use warlog_rules::board::{Board, Power};

pub use labels::{text_width, Rect};
pub use palette::colour;
pub use sites::Region;

use crate::views::{BoardView, PlaceView, StackView};
use labels::{chip_size, spots, Placer, LINE_HEIGHT, PADDING};
use shapes::Point;
use sites::{Sites, HEIGHT, WIDTH};

/// A game's board, as its log stands, drawn whole or zoomed to one of its regions (an
/// unknown region draws the whole board).
pub fn game_svg(
    log: &warlog_events::game::GameLog,
    highlight: Option<&str>,
    region: Option<&str>,
) -> String {
    let layout = MapLayout::cached(&log.ruleset.hash, &log.ruleset.board);
    board_svg(&BoardView::of(log), &layout, highlight, region)
}

/// The width every view is drawn at, in user units (its height follows the view's shape).
pub const VIEW_WIDTH: f64 = 1200.0;
/// Font sizes: a place's name, a unit count, a unit line.
pub const NAME_SIZE: f64 = 11.0;
pub const COUNT_SIZE: f64 = 10.0;
/// Open ocean beyond this distance from any place is left as water.
const LAND_REACH: f64 = 42.0;
const ISLAND_REACH: f64 = 13.0;
const SEA_REACH: f64 = 58.0;

/// The parts of the drawing that depend on the board alone, worked out once.
#[derive(Debug)]
pub struct MapLayout {
    /// In the board's order.
    places: Vec<Place>,
    by_name: HashMap<String, usize>,
    /// Each place's shape on the canvas; `None` for a board drawn plainly.
    cells: Option<Vec<Vec<Point>>>,
    /// Canvas lines joining places across water (the plain drawing's).
    water: Vec<(usize, usize)>,
    /// The part of the canvas the whole board fills.
    whole: Rect,
    regions: Vec<Region>,
}

#[derive(Debug)]
struct Place {
    /// Escaped for SVG.
    name: String,
    /// The name as a label shows it, escaped: in full (without "Sea Zone"), and cut to two
    /// words for where the full name finds no room.
    label: String,
    short_label: String,
    sea: bool,
    ipc: u32,
    at: Point,
}

impl MapLayout {
    pub fn of(board: &Board) -> MapLayout {
        let sites = Sites::of(board);
        let places: Vec<Place> = board
            .territories()
            .zip(&sites.at)
            .map(|((_, t), &at)| Place {
                name: escape(&t.name).into_owned(),
                label: escape(t.name.strip_suffix(" Sea Zone").unwrap_or(&t.name)).into_owned(),
                short_label: escape(&short_name(&t.name)).into_owned(),
                sea: t.sea,
                ipc: t.ipc,
                at,
            })
            .collect();
        let reach: Vec<f64> = places
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let land_neighbour = sites.neighbours[i].iter().any(|j| !places[*j].sea);
                match (p.sea, land_neighbour) {
                    (true, _) => SEA_REACH,
                    (false, true) => LAND_REACH,
                    (false, false) => ISLAND_REACH,
                }
            })
            .collect();
        let cells = sites
            .known
            .then(|| shapes::cells(&sites.at, &reach, (0.0, 0.0, WIDTH, HEIGHT)));
        let mut water = Vec::new();
        for (i, near) in sites.neighbours.iter().enumerate() {
            for &j in near {
                let across_the_cut = (places[i].at.0 - places[j].at.0).abs() > WIDTH / 2.0;
                if i < j && (places[i].sea || places[j].sea) && !across_the_cut {
                    water.push((i, j));
                }
            }
        }
        let margin = 36.0;
        let whole = places.iter().fold(
            Rect {
                x0: f64::MAX,
                y0: f64::MAX,
                x1: f64::MIN,
                y1: f64::MIN,
            },
            |r, p| Rect {
                x0: r.x0.min(p.at.0 - margin).max(0.0),
                y0: r.y0.min(p.at.1 - margin).max(0.0),
                x1: r.x1.max(p.at.0 + margin).min(WIDTH),
                y1: r.y1.max(p.at.1 + margin).min(HEIGHT),
            },
        );
        MapLayout {
            by_name: board
                .territories()
                .enumerate()
                .map(|(i, (_, t))| (t.name.clone(), i))
                .collect(),
            places,
            cells,
            water,
            whole,
            regions: sites.regions,
        }
    }

    /// The regions this board may be zoomed to (none for a board drawn plainly).
    pub fn regions(&self) -> impl Iterator<Item = &Region> {
        self.regions.iter().filter(|_| self.cells.is_some())
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

/// How canvas points land in the drawing of one view.
#[derive(Debug, Clone, Copy)]
struct Viewport {
    area: Rect,
    scale: f64,
    width: f64,
    height: f64,
}

impl Viewport {
    fn of(area: Rect) -> Viewport {
        let scale = VIEW_WIDTH / (area.x1 - area.x0);
        Viewport {
            area,
            scale,
            width: VIEW_WIDTH,
            height: ((area.y1 - area.y0) * scale).round(),
        }
    }

    fn at(&self, p: Point) -> Point {
        (
            (p.0 - self.area.x0) * self.scale,
            (p.1 - self.area.y0) * self.scale,
        )
    }

    fn shows(&self, p: Point) -> bool {
        p.0 >= self.area.x0 && p.0 <= self.area.x1 && p.1 >= self.area.y0 && p.1 <= self.area.y1
    }

    fn bounds(&self) -> Rect {
        Rect {
            x0: 0.0,
            y0: 0.0,
            x1: self.width,
            y1: self.height,
        }
    }
}

/// The board view drawn with `layout`, whole or zoomed to `region`; `highlight` rings one
/// place (a battle's). Every place of the board is drawn: one the view leaves out (nobody
/// holds it, nothing is there) is drawn empty.
pub fn board_svg(
    view: &BoardView,
    layout: &MapLayout,
    highlight: Option<&str>,
    region: Option<&str>,
) -> String {
    let zoomed = region.and_then(|id| layout.regions().find(|r| r.id == id));
    let port = Viewport::of(zoomed.map_or(layout.whole, |r| r.area));
    let mut svg = String::with_capacity(128 * 1024);
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board-map\" viewBox=\"0 0 {} {}\" \
         role=\"img\" aria-labelledby=\"map-title map-desc\" font-family=\"DejaVu Sans, Arial, sans-serif\">\
         <title id=\"map-title\">{}The board after event {}: round {}, {}</title>\
         <desc id=\"map-desc\">Each territory and sea zone is a shape where the place is in the world, \
         filled in the colour of the power that holds it. {} \
         A square marks an industrial complex, a triangle an AA gun, a cross a damaged battleship; \
         a red ring, the battle. The table below the map lists every place by holder with its units.</desc>\
         <rect width=\"{}\" height=\"{}\" fill=\"{}\"/>",
        port.width,
        port.height,
        zoomed.map_or(String::new(), |r| format!("{}: ", escape(&r.name))),
        view.version,
        view.round,
        escape(&view.phase_name),
        if zoomed.is_some() {
            "Each label gives the place's name and its units by power, in unit codes."
        } else {
            "A label gives a place's name; a number on it, its units."
        },
        port.width,
        port.height,
        palette::WATER,
    );
    let mut shown: Vec<Option<&PlaceView>> = vec![None; layout.places.len()];
    for place in &view.places {
        if let Some(&i) = layout.by_name.get(&place.name) {
            shown[i] = Some(place);
        }
    }
    // Names are kept escaped: the highlight is compared in the same form.
    let highlight = highlight.map(escape);
    let lit = |place: &Place| highlight.as_deref() == Some(place.name.as_str());
    if layout.cells.is_none() {
        draw_water(&mut svg, layout, &port);
    }
    for (i, place) in shown.iter().enumerate() {
        draw_place(&mut svg, layout, i, *place, &port, lit(&layout.places[i]));
    }
    for place in layout.places.iter().filter(|p| lit(p)) {
        let (x, y) = port.at(place.at);
        let _ = write!(
            svg,
            "<circle class=\"battle\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"18\" fill=\"none\" stroke=\"{}\" stroke-width=\"3\"/>",
            palette::BATTLE
        );
    }
    draw_labels(&mut svg, layout, &shown, &port, zoomed.is_some(), &lit);
    svg.push_str("</svg>");
    svg
}

fn draw_water(svg: &mut String, layout: &MapLayout, port: &Viewport) {
    let _ = write!(
        svg,
        "<g class=\"water\" stroke=\"{}\" stroke-width=\"1\">",
        palette::SEA_EDGE
    );
    for &(i, j) in &layout.water {
        let (a, b) = (port.at(layout.places[i].at), port.at(layout.places[j].at));
        let _ = write!(
            svg,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>",
            a.0, a.1, b.0, b.1
        );
    }
    svg.push_str("</g>");
}

fn draw_place(
    svg: &mut String,
    layout: &MapLayout,
    index: usize,
    shown: Option<&PlaceView>,
    port: &Viewport,
    lit: bool,
) {
    let place = &layout.places[index];
    let holder = shown.and_then(|p| p.holder);
    let stacks = shown.map_or(&[][..], |p| p.units.as_slice());
    let units: u32 = stacks.iter().map(|s| s.count).sum();
    let fill = if place.sea {
        palette::SEA
    } else {
        colour(holder)
    };
    svg.push_str("<g class=\"place");
    svg.push_str(if place.sea { " sea" } else { " land" });
    if lit {
        svg.push_str(" highlighted");
    }
    let _ = write!(
        svg,
        "\" data-name=\"{}\" data-holder=\"{}\" data-units=\"",
        place.name,
        holder.map_or("", power_id)
    );
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
    let _ = write!(svg, "\" data-unit-count=\"{units}\"><title>{}", place.name);
    if let Some(holder) = holder {
        svg.push_str(", held by ");
        svg.push_str(holder.name());
    }
    if units > 0 {
        svg.push_str(": ");
        svg.push_str(&escape(&units_line(stacks)));
    }
    svg.push_str("</title>");
    let (edge, width) = match (place.sea, place.ipc > 0) {
        (true, _) => (palette::SEA_EDGE, "1"),
        (false, true) => (palette::LAND_EDGE, "1.4"),
        (false, false) => (palette::LAND_EDGE, "0.8"),
    };
    let (x, y) = port.at(place.at);
    match layout.cells.as_ref().map(|cells| &cells[index]) {
        Some(cell) if !cell.is_empty() => {
            svg.push_str("<path class=\"shape\" d=\"");
            for (k, point) in cell.iter().enumerate() {
                let (px, py) = port.at(*point);
                let _ = write!(svg, "{}{px:.1} {py:.1}", if k == 0 { "M" } else { "L" });
            }
            let _ = write!(
                svg,
                "Z\" fill=\"{fill}\" stroke=\"{edge}\" stroke-width=\"{width}\"/>"
            );
        }
        _ => {
            let _ = write!(
                svg,
                "<circle class=\"shape\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{}\" fill=\"{fill}\" stroke=\"{edge}\" stroke-width=\"{width}\"/>",
                if place.sea { 8 } else { 11 }
            );
        }
    }
    if stacks.iter().any(|s| s.unit == "IC") {
        let _ = write!(
            svg,
            "<rect class=\"complex\" x=\"{:.1}\" y=\"{:.1}\" width=\"6\" height=\"6\" fill=\"#222\"/>",
            x + 9.0,
            y - 15.0
        );
    }
    if stacks.iter().any(|s| s.unit == "AA") {
        let _ = write!(
            svg,
            "<path class=\"aa\" d=\"M{:.1} {:.1} l4 -7 l4 7 z\" fill=\"#222\"/>",
            x - 17.0,
            y - 8.0
        );
    }
    if stacks.iter().any(|s| s.damage > 0) {
        let _ = write!(
            svg,
            "<path class=\"damaged\" d=\"M{:.1} {:.1} l6 6 m0 -6 l-6 6\" stroke=\"{}\" stroke-width=\"2\"/>",
            x + 9.0,
            y + 8.0,
            palette::BATTLE
        );
    }
    svg.push_str("</g>");
}

/// A power's code on the map (`GE 3 INF`); the legend spells each out.
pub fn power_code(power: Power) -> &'static str {
    match power {
        Power::Russia => "RU",
        Power::Germany => "GE",
        Power::UnitedKingdom => "UK",
        Power::Japan => "JA",
        Power::UnitedStates => "US",
        Power::Ccp => "CCP",
        Power::Kmt => "KMT",
        Power::Npn => "NPN",
    }
}

/// A place's units, one line a power: `GE 3 INF 1 ARM`.
fn unit_lines(stacks: &[StackView]) -> Vec<String> {
    let mut lines: Vec<(Power, String)> = Vec::new();
    for stack in stacks {
        let text = format!(" {} {}", stack.count, stack.unit);
        match lines.iter_mut().find(|(p, _)| *p == stack.power) {
            Some((_, line)) => line.push_str(&text),
            None => lines.push((stack.power, format!("{}{text}", power_code(stack.power)))),
        }
    }
    lines.into_iter().map(|(_, line)| line).collect()
}

/// Every label of the view, most important first: the battle's place, then the places
/// with units, then the rest by value.
fn draw_labels(
    svg: &mut String,
    layout: &MapLayout,
    shown: &[Option<&PlaceView>],
    port: &Viewport,
    zoomed: bool,
    lit: &dyn Fn(&Place) -> bool,
) {
    let mut placer = Placer::new(port.bounds());
    // The battle's ring stays in sight.
    for place in layout.places.iter().filter(|p| lit(p)) {
        let (x, y) = port.at(place.at);
        placer.reserve(Rect {
            x0: x - 20.0,
            y0: y - 20.0,
            x1: x + 20.0,
            y1: y + 20.0,
        });
    }
    let units_of =
        |i: usize| -> u32 { shown[i].map_or(0, |p| p.units.iter().map(|s| s.count).sum()) };
    let mut order: Vec<usize> = (0..layout.places.len())
        .filter(|i| port.shows(layout.places[*i].at))
        .collect();
    order.sort_by_key(|&i| {
        let place = &layout.places[i];
        (
            !lit(place),
            units_of(i) == 0,
            std::cmp::Reverse(place.ipc),
            place.sea,
        )
    });
    svg.push_str("<g class=\"labels\">");
    if !zoomed {
        // The counts first, on their places: small, and what a player looks for.
        for &i in &order {
            let units = units_of(i);
            if units == 0 {
                continue;
            }
            let lines = [units.to_string()];
            let size = chip_size(&lines, COUNT_SIZE, true);
            let at = port.at(layout.places[i].at);
            if let Some(spot) = placer.place(&spots(at, size, true)) {
                chip(
                    svg,
                    &layout.places[i],
                    "count",
                    spot,
                    &lines,
                    COUNT_SIZE,
                    true,
                );
            }
        }
    }
    for &i in &order {
        let place = &layout.places[i];
        let units: Vec<String> = match shown[i] {
            Some(shown) if zoomed => unit_lines(&shown.units)
                .iter()
                .map(|l| escape(l).into_owned())
                .collect(),
            _ => Vec::new(),
        };
        let at = port.at(place.at);
        for name in [&place.label, &place.short_label] {
            let lines: Vec<String> = std::iter::once(name.clone())
                .chain(units.iter().cloned())
                .collect();
            let size = chip_size(&lines, NAME_SIZE, false);
            if let Some(spot) = placer.place(&spots(at, size, zoomed)) {
                chip(svg, place, "name", spot, &lines, NAME_SIZE, false);
                break;
            }
        }
    }
    svg.push_str("</g>");
}

/// One label: a chip and its lines of text, already escaped.
fn chip(
    svg: &mut String,
    place: &Place,
    kind: &str,
    spot: Rect,
    lines: &[String],
    font_size: f64,
    bold: bool,
) {
    let (background, ink) = if place.sea {
        (palette::SEA_CHIP, palette::SEA_INK)
    } else {
        (palette::CHIP, palette::INK)
    };
    let _ = write!(
        svg,
        "<g class=\"label {kind}\" data-for=\"{}\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"2\" fill=\"{background}\" stroke=\"{}\" stroke-width=\"0.6\"/>",
        place.name,
        spot.x0,
        spot.y0,
        spot.x1 - spot.x0,
        spot.y1 - spot.y0,
        if place.sea { palette::SEA_EDGE } else { palette::LAND_EDGE },
    );
    let _ = write!(
        svg,
        "<text font-size=\"{font_size}\" fill=\"{ink}\"{}{}>",
        if bold { " font-weight=\"bold\"" } else { "" },
        if place.sea {
            " font-style=\"italic\""
        } else {
            ""
        },
    );
    for (k, line) in lines.iter().enumerate() {
        // The baseline sits a fifth of the line below its middle.
        let y = spot.y0 + PADDING + font_size * LINE_HEIGHT * (k as f64 + 0.5) + font_size * 0.35;
        let _ = write!(
            svg,
            "<tspan x=\"{:.1}\" y=\"{y:.1}\" text-anchor=\"middle\">{line}</tspan>",
            (spot.x0 + spot.x1) / 2.0
        );
    }
    svg.push_str("</text></g>");
}

/// The units of a place in one line: `Germany 3 INF, 1 ARM; Russia 2 INF`.
pub fn units_line(stacks: &[StackView]) -> String {
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

/// A place's name on its label: a sea zone without "Sea Zone" (`North Atlantic`), and
/// at most two words (`French Equatorial`), as the board prints them.
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
            let known = sites::known_positions();
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
            assert_eq!(layout.places.len(), ruleset.board.territories().count());
            let mut spots: Vec<String> = layout
                .places
                .iter()
                .map(|p| format!("{:.1} {:.1}", p.at.0, p.at.1))
                .collect();
            spots.sort_unstable();
            spots.dedup();
            assert_eq!(
                spots.len(),
                layout.places.len(),
                "{id}: two places on one spot"
            );
        }
    }

    /// Every view of a board (the whole, each region), checked by `check::label_problems`.
    fn problems_in_every_view(log: &warlog_events::game::GameLog) -> Vec<String> {
        let layout = MapLayout::cached(&log.ruleset.hash, &log.ruleset.board);
        let view = BoardView::of(log);
        let highlight = view
            .places
            .iter()
            .find(|p| !p.units.is_empty())
            .map(|p| p.name.clone());
        std::iter::once(None)
            .chain(layout.regions().map(|r| Some(r.id.as_str())))
            .flat_map(|region| {
                let svg = board_svg(&view, &layout, highlight.as_deref(), region);
                check::label_problems(&svg)
                    .into_iter()
                    .map(move |p| format!("v{} {region:?}: {p}", view.version))
            })
            .collect()
    }

    #[test]
    fn labels_never_overlap_leave_the_view_or_lack_contrast_as_both_boards_play_out() {
        use warlog_events::sample::SampleGame;
        use warlog_rules::dice::GameSeed;
        for id in ["cutthroat", "aap-historical"] {
            let ruleset = Ruleset::builtin(id).expect("a built-in ruleset");
            let mut game = SampleGame::new(ruleset, "labels", GameSeed::from_bytes([3; 32]), 11);
            let mut problems = problems_in_every_view(&game.log);
            let mut boards = 1;
            for _ in 0..400 {
                if game.log.state.ended.is_some() || game.log.version > 600 {
                    break;
                }
                if game.play_random_order() {
                    problems.extend(problems_in_every_view(&game.log));
                    boards += 1;
                }
            }
            assert!(boards > 50, "{id}: only {boards} boards");
            assert!(problems.is_empty(), "{id}: {}", problems.join("\n"));
        }
    }

    #[test]
    fn the_built_in_boards_are_drawn_with_shapes_and_have_regions_to_zoom_to() {
        for id in ["cutthroat", "aap-historical"] {
            let ruleset = Ruleset::builtin(id).expect("a built-in ruleset");
            let layout = MapLayout::of(&ruleset.board);
            let cells = layout.cells.as_ref().expect("shapes");
            assert!(
                cells.iter().all(|c| c.len() >= 3),
                "{id}: a place without a shape"
            );
            assert!(layout.regions().count() >= 3, "{id}: regions");
            for region in layout.regions() {
                let inside = layout
                    .places
                    .iter()
                    .filter(|p| Viewport::of(region.area).shows(p.at))
                    .count();
                assert!(
                    inside >= 8,
                    "{id}: region {} shows {inside} places",
                    region.id
                );
            }
        }
    }
}
