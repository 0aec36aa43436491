//! The "War" ruleset's parts as its built-in document holds them: its dice tables (the
//! roll tables of `crate::home_cooked_tables` written as rows) and the Classic board's continents.
//! They live with the built-ins rather than with the roll tables, so that the document's
//! checks may read the tables without the tables reading the document.

use crate::dice::Die;
use crate::document::{Continent, DiceTable, TableRow};
use crate::home_cooked_tables::{parley, reinforcements, start_zone, technology};

/// The Classic board's land by continent, for Strategic Bombers ("any zone on the same
/// continent"). Islands go with the continent they lie off; the Pacific's islands are
/// Oceania's.
pub(crate) fn continents() -> Vec<Continent> {
    const CONTINENTS: [(&str, &[&str]); 6] = [
        (
            "North America",
            &[
                "Alaska",
                "West Canada",
                "East Canada",
                "West US",
                "East US",
                "Mexico",
                "Panama",
                "Cuba",
            ],
        ),
        (
            "South America",
            &["Columbia", "Peru", "Brazil", "Argentina-Chile"],
        ),
        (
            "Europe",
            &[
                "Eire",
                "United Kingdom",
                "Spain",
                "Gibraltar",
                "West Europe",
                "Switzerland",
                "Germany",
                "South Europe",
                "East Europe",
                "Sweden",
                "Finland Norway",
                "Karelia S.S.R.",
                "Ukraine S.S.R.",
                "Russia",
                "Caucasus",
            ],
        ),
        (
            "Africa",
            &[
                "Rio del Oro",
                "Algeria",
                "Libya",
                "Anglo Sudan Egypt",
                "French West Africa",
                "French Equatorial Africa",
                "Italian East Africa",
                "Congo",
                "Kenya-Rhodesia",
                "Angola",
                "Mozambique",
                "South Africa",
                "Madagascar",
            ],
        ),
        (
            "Asia",
            &[
                "Turkey",
                "Syria Jordan",
                "Saudi Arabia",
                "Persia",
                "Afghanistan",
                "India",
                "Kazakh S.S.R.",
                "Novosibirsk",
                "Evenki National Okrug",
                "Yakut S.S.R.",
                "Soviet Far East",
                "Sinkiang",
                "Mongolia",
                "China",
                "Manchuria",
                "Kwangtung",
                "French Indo China",
                "Japan",
            ],
        ),
        (
            "Oceania",
            &[
                "Australia",
                "New Zealand",
                "New Guinea",
                "East Indies",
                "Borneo Celebes",
                "Philippines",
                "Solomon Islands",
                "Caroline Islands",
                "Okinawa",
                "Wake Island",
                "Midway",
                "Hawaiian Islands",
            ],
        ),
    ];
    CONTINENTS
        .iter()
        .map(|(name, territories)| Continent {
            name: (*name).to_owned(),
            territories: territories.iter().map(|t| (*t).to_owned()).collect(),
        })
        .collect()
}

/// A table as a ruleset document holds it: consecutive totals with the same result share
/// a row.
fn table(
    name: &str,
    dice: u8,
    totals: std::ops::RangeInclusive<u8>,
    result: impl Fn(u8) -> String,
) -> DiceTable {
    let mut rows: Vec<TableRow> = Vec::new();
    for total in totals {
        let text = result(total);
        match rows.last_mut() {
            Some(row) if row.result == text => row.to = total,
            _ => rows.push(TableRow {
                from: total,
                to: total,
                result: text,
            }),
        }
    }
    DiceTable {
        name: name.to_owned(),
        dice,
        rows,
    }
}

/// The War rules' tables, as the ruleset document holds them (the functions of
/// `crate::home_cooked_tables` are what a game rolls on; a test there checks the two agree).
pub(crate) fn dice_tables() -> Vec<DiceTable> {
    let mut start = table("start zone", 3, 1..=18, |t| {
        start_zone(t).unwrap_or("pick").to_owned()
    });
    start.rows.push(TableRow {
        from: 19,
        to: 255,
        result: "pick".to_owned(),
    });
    vec![
        start,
        table("reinforcements", 3, 3..=18, |t| {
            reinforcements(t).to_string()
        }),
        table("research", 1, 1..=6, |t| {
            if t <= 2 {
                "success: roll on technology"
            } else {
                "no result"
            }
            .to_owned()
        }),
        table("technology", 3, 3..=18, |t| format!("{:?}", technology(t))),
        table("parley", 1, 1..=6, |t| {
            Die::try_from(t).map_or_else(|_| String::new(), |d| format!("{:?}", parley(d)))
        }),
    ]
}
