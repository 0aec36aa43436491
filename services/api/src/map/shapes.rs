//! Territory shapes: each place's cell of the Voronoi tessellation of the places' positions
//! (the points nearer to it than to any other place), cut to a disk around it. The disk
//! keeps open ocean from turning into one huge cell, and makes an island a small shape with
//! water around it. A cell is found by clipping that disk with the half-plane of each
//! nearby place: a few hundred places, so no cleverer algorithm is needed.

/// A point of the drawing.
pub type Point = (f64, f64);

/// Corners of the disk a cell starts from.
const DISK_CORNERS: usize = 28;

/// The cell of each site, as a convex polygon (possibly empty), within `bounds`
/// (`x0, y0, x1, y1`) and within `radius[i]` of site `i`.
pub fn cells(sites: &[Point], radius: &[f64], bounds: (f64, f64, f64, f64)) -> Vec<Vec<Point>> {
    sites
        .iter()
        .enumerate()
        .map(|(i, &site)| {
            let r = radius[i];
            let mut cell: Vec<Point> = (0..DISK_CORNERS)
                .map(|k| {
                    let angle = k as f64 / DISK_CORNERS as f64 * std::f64::consts::TAU;
                    (site.0 + r * angle.cos(), site.1 + r * angle.sin())
                })
                .collect();
            let (x0, y0, x1, y1) = bounds;
            for (normal, offset) in [
                ((-1.0, 0.0), -x0),
                ((1.0, 0.0), x1),
                ((0.0, -1.0), -y0),
                ((0.0, 1.0), y1),
            ] {
                cell = clip(&cell, normal, offset);
            }
            for (j, &other) in sites.iter().enumerate() {
                let (dx, dy) = (other.0 - site.0, other.1 - site.1);
                // Only a place nearer than twice the radius can share an edge.
                if j == i || dx * dx + dy * dy >= 4.0 * r * r {
                    continue;
                }
                let middle = ((site.0 + other.0) / 2.0, (site.1 + other.1) / 2.0);
                cell = clip(&cell, (dx, dy), dx * middle.0 + dy * middle.1);
                if cell.is_empty() {
                    break;
                }
            }
            cell
        })
        .collect()
}

/// The part of a convex polygon where `normal · p <= offset` (Sutherland–Hodgman).
fn clip(polygon: &[Point], normal: Point, offset: f64) -> Vec<Point> {
    let inside = |p: Point| normal.0 * p.0 + normal.1 * p.1 <= offset;
    let mut out = Vec::with_capacity(polygon.len() + 2);
    for (k, &current) in polygon.iter().enumerate() {
        let previous = polygon[(k + polygon.len() - 1) % polygon.len()];
        match (inside(previous), inside(current)) {
            (true, true) => out.push(current),
            (true, false) => out.push(crossing(previous, current, normal, offset)),
            (false, true) => {
                out.push(crossing(previous, current, normal, offset));
                out.push(current);
            }
            (false, false) => {}
        }
    }
    out
}

fn crossing(a: Point, b: Point, normal: Point, offset: f64) -> Point {
    let da = normal.0 * a.0 + normal.1 * a.1 - offset;
    let db = normal.0 * b.0 + normal.1 * b.1 - offset;
    let t = da / (da - db);
    (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(polygon: &[Point]) -> f64 {
        let n = polygon.len();
        (0..n)
            .map(|k| {
                let (a, b) = (polygon[k], polygon[(k + 1) % n]);
                a.0 * b.1 - b.0 * a.1
            })
            .sum::<f64>()
            .abs()
            / 2.0
    }

    #[test]
    fn two_places_split_the_space_between_them_at_the_middle() {
        let cells = cells(
            &[(10.0, 50.0), (90.0, 50.0)],
            &[100.0, 100.0],
            (0.0, 0.0, 100.0, 100.0),
        );
        let right_edge = cells[0].iter().map(|p| p.0).fold(f64::MIN, f64::max);
        let left_edge = cells[1].iter().map(|p| p.0).fold(f64::MAX, f64::min);
        assert!((right_edge - 50.0).abs() < 1e-9 && (left_edge - 50.0).abs() < 1e-9);
        assert!(
            (area(&cells[0]) - 5000.0).abs() < 1e-6,
            "{}",
            area(&cells[0])
        );
    }

    #[test]
    fn a_lone_place_is_a_disk_of_its_radius() {
        let cells = cells(&[(50.0, 50.0)], &[10.0], (0.0, 0.0, 100.0, 100.0));
        let disk = std::f64::consts::PI * 100.0;
        assert!((area(&cells[0]) - disk).abs() / disk < 0.01);
    }

    #[test]
    fn no_two_cells_overlap() {
        let sites = [
            (20.0, 20.0),
            (40.0, 25.0),
            (30.0, 45.0),
            (60.0, 60.0),
            (45.0, 40.0),
        ];
        let cells = cells(&sites, &[30.0; 5], (0.0, 0.0, 100.0, 100.0));
        // Every corner of a cell is no nearer to another site than to its own.
        for (i, cell) in cells.iter().enumerate() {
            for p in cell {
                let own = (p.0 - sites[i].0).hypot(p.1 - sites[i].1);
                for (j, s) in sites.iter().enumerate() {
                    assert!(j == i || (p.0 - s.0).hypot(p.1 - s.1) >= own - 1e-6);
                }
            }
        }
    }
}
