//! What stands beside the map on a game page: links to zoom into a region (on a phone the
//! whole board is too small to read), the legend of powers and unit codes, and the board
//! as a table of places by holder: the map's text alternative.

use maud::{html, Markup};
use warlog_rules::board::Power;
use warlog_rules::ruleset::Ruleset;

use crate::map::{colour, power_code, units_line};
use crate::views::{BoardView, PlaceView};

/// The map's views as links: the whole board, then each region, the one shown marked.
pub fn zoom_links(
    link: &dyn Fn(Option<&str>) -> String,
    regions: &[(String, String)],
    shown: Option<&str>,
) -> Markup {
    html! {
        @if !regions.is_empty() {
            nav.zoom aria-label="Parts of the map" {
                "Zoom: "
                @if shown.is_none() {
                    strong aria-current="true" { "whole board" }
                } @else {
                    a href=(link(None)) { "whole board" }
                }
                @for (id, name) in regions {
                    " · "
                    @if shown == Some(id.as_str()) {
                        strong aria-current="true" { (name) }
                    } @else {
                        a href=(link(Some(id))) { (name) }
                    }
                }
            }
        }
    }
}

/// The powers' colours and codes, and the ruleset's unit codes.
pub fn legend(ruleset: &Ruleset) -> Markup {
    html! {
        dl.legend {
            dt { "Powers" }
            dd { ul { @for power in ruleset.powers() {
                li {
                    span.swatch style={ "background:" (colour(Some(*power))) } {}
                    (power_code(*power)) " " (power.name())
                }
            } } }
            dt { "Units" }
            dd { ul { @for (_, unit) in ruleset.catalogue.units() {
                li { (unit.code) " " (unit.name) }
            } } }
        }
    }
}

/// Every place of the board shown, grouped by holder (nobody's last), with its units.
pub fn places_by_holder(board: &BoardView, ruleset: &Ruleset) -> Markup {
    let holders: Vec<Option<Power>> = ruleset
        .powers()
        .iter()
        .map(|p| Some(*p))
        .chain([None])
        .collect();
    let held = |holder: Option<Power>| -> Vec<&PlaceView> {
        board
            .places
            .iter()
            .filter(|p| p.holder == holder && !(p.sea && p.units.is_empty()))
            .collect()
    };
    html! {
        details.map-table {
            summary { "The map as a table: every place by holder, with its units" }
            table {
                thead { tr { th { "Held by" } th { "Place" } th.num { "IPC" } th { "Units" } } }
                tbody { @for holder in &holders { @for (k, place) in held(*holder).iter().enumerate() { tr {
                    @if k == 0 {
                        th scope="row" rowspan=(held(*holder).len()) {
                            (holder.map_or("nobody", |p| p.name()))
                        }
                    }
                    td { (place.name) }
                    td.num { (place.ipc) }
                    td { (units_line(&place.units)) }
                } } } }
            }
        }
    }
}
