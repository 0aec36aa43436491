//! Where each place of a board sits on the canvas: land by its real-world position (data
//! beside the boards, `maps/*.json`), each sea zone (and any land the data does not know) at
//! the middle of its neighbours, then places too close pushed apart so every shape can be
//! seen and pointed at. The canvas is the whole world, cut at the meridian opposite the
//! board's middle; a view (the whole board, or a region the data names) is a part of it.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;
use warlog_rules::board::Board;

use super::labels::Rect;
use super::shapes::Point;

/// The canvas, in user units.
pub const WIDTH: f64 = 1200.0;
pub const HEIGHT: f64 = 560.0;
/// The latitudes the canvas spans (north at the top).
const NORTH: f64 = 75.0;
const SOUTH: f64 = -52.0;
/// Places closer than this are pushed apart.
const SPACING: f64 = 30.0;

#[derive(Debug, Deserialize)]
pub(super) struct Positions {
    centre_longitude: f64,
    pub(super) land: HashMap<String, [f64; 2]>,
    #[serde(default)]
    regions: Vec<RegionData>,
}

/// A part of the board worth a closer look, by the longitudes and latitudes it spans.
#[derive(Debug, Deserialize)]
struct RegionData {
    id: String,
    name: String,
    west: f64,
    east: f64,
    south: f64,
    north: f64,
}

/// A region of the canvas, zoomed to on request.
#[derive(Debug, Clone)]
pub struct Region {
    pub id: String,
    pub name: String,
    pub area: Rect,
}

pub(super) fn known_positions() -> &'static [Positions] {
    static KNOWN: OnceLock<Vec<Positions>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        [
            include_str!("../pages/maps/classic.json"),
            include_str!("../pages/maps/pacific.json"),
        ]
        .iter()
        .filter_map(|text| serde_json::from_str(text).ok())
        .collect()
    })
}

/// The places of a board on the canvas.
#[derive(Debug)]
pub struct Sites {
    /// In the board's order.
    pub at: Vec<Point>,
    pub neighbours: Vec<Vec<usize>>,
    /// Whether the positions data knew (nearly) all the board's land: only then is the
    /// board drawn with shapes.
    pub known: bool,
    pub regions: Vec<Region>,
}

impl Sites {
    pub fn of(board: &Board) -> Sites {
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
        let land = names.iter().filter(|(_, sea)| !sea).count();
        let placed_land = names
            .iter()
            .filter(|(n, sea)| !sea && positions.is_some_and(|p| p.land.contains_key(*n)))
            .count();
        let regions = positions
            .map(|p| {
                p.regions
                    .iter()
                    .map(|r| {
                        let (x0, y0) = project([r.west, r.north]);
                        let (x1, y1) = project([r.east, r.south]);
                        Region {
                            id: r.id.clone(),
                            name: r.name.clone(),
                            area: Rect { x0, y0, x1, y1 },
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        Sites {
            at,
            neighbours,
            // An uploaded board that borrows a few names keeps the plain drawing.
            known: land > 0 && placed_land * 10 >= land * 9,
            regions,
        }
    }
}
