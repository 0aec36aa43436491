//! AAP Historical's built-in board and setup: the Axis & Allies Pacific board and its
//! standard setup (`data/pacific-map.json`, TripleA's `pacific` map read into JSON and
//! kept as read, docs/rule-facts.md "The boards"), with the seed's changes
//! (1. Placement) and the decisions the seed leaves open (docs/rulesets.md, "AAP
//! Historical's board"):
//!
//! - TripleA's Australians and British are the seed's UK; the Chinese are the KMT, but for
//!   the units the seed labels CCP and the CCP's own province, Shansi;
//! - the CCP's capital is Shansi (3.2: "at least 1 infantry in Shansi at all times");
//! - Sinkiang is split from Tsinghai, held by the KMT, bordering Tsinghai and Suiyuan only;
//! - the map's air and naval bases (TripleA's airfields and harbours, set up as units) are
//!   no units here: they are the document's `special_rules.bases` (`aap.rs`).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::board::{normalise, BoardDocument, Power, TerritoryDocument, TerritoryKind};
use crate::setup::{PlaceDocument, UnitsOf};

/// The new province the seed splits from Tsinghai (1j), and its borders.
pub const SINKIANG: &str = "Sinkiang";
const SINKIANG_BORDERS: [&str; 2] = ["Tsinghai", "Suiyuan"];

/// The province the CCP holds at the start, and its capital.
pub const CCP_PROVINCE: &str = "Shansi";

/// 1. Placement: the units the seed adds to the standard setup, by power and place.
const ADDED: [(Power, &str, &str); 30] = [
    (Power::Japan, "Japan", "3 INF, 1 ART, 1 ARM, 1 FTR"),
    (
        Power::Japan,
        "SZ 36",
        "3 TRN, 2 SUB, 2 DES, 5 BB, 2 AC, 4 FTR",
    ),
    (Power::Japan, "SZ 16", "1 SUB"),
    (Power::Japan, "Manchuria", "8 INF, 3 ART, 1 ARM, 1 BMB"),
    (Power::Japan, "Shantung", "8 INF, 2 ART, 2 ARM, 1 FTR"),
    (Power::Japan, "SZ 45", "1 BB"),
    (Power::Japan, "SZ 20", "3 AC, 2 DES, 2 SUB, 2 BB, 6 FTR"),
    (Power::UnitedKingdom, "SZ 50", "1 BB, 2 DES, 1 FTR"),
    (Power::UnitedKingdom, "India", "6 INF, 3 ART"),
    (Power::UnitedKingdom, "New South Wales", "4 INF, 2 ART"),
    (Power::Kmt, "Tsinghai", "1 INF"),
    (Power::Kmt, "Szechwan", "2 INF"),
    (Power::Kmt, "Kweichow", "1 INF"),
    (Power::Kmt, "Hopei", "3 INF"),
    (Power::Kmt, "Anhwe", "3 INF"),
    (Power::Kmt, "Hunan", "4 INF"),
    (Power::Kmt, "Kiangsi", "2 INF"),
    (Power::Kmt, "Yunnan", "4 INF"),
    (Power::Kmt, SINKIANG, "1 INF"),
    (Power::Kmt, "Shansi", "2 INF"),
    (Power::Ccp, "Shansi", "4 INF"),
    (Power::Ccp, "Suiyuan", "2 INF"),
    (Power::Ccp, "Kweichow", "1 INF"),
    (
        Power::UnitedStates,
        "USA",
        "4 INF, 1 MAR, 1 ART, 6 FTR, 2 BMB",
    ),
    (Power::UnitedStates, "SZ 5", "1 SUB, 1 FTR"),
    (
        Power::UnitedStates,
        "SZ 8",
        "1 SUB, 1 TRN, 1 AC, 2 DES, 2 FTR",
    ),
    (
        Power::UnitedStates,
        "SZ 17",
        "1 SUB, 1 TRN, 1 AC, 2 DES, 2 FTR",
    ),
    (Power::UnitedStates, "SZ 9", "3 TRN, 3 DES, 6 BB"),
    (Power::UnitedStates, "SZ 38", "1 TRN, 1 SUB, 1 DES"),
    (Power::UnitedStates, "Philippines", "2 INF, 1 FTR"),
    // Sikang's "1 inf (total)" is the board's one infantry there: nothing to add.
];

/// 1. Placement: the units the seed takes away.
const REMOVED: [(Power, &str, &str); 3] = [
    (Power::Japan, "SZ 26", "1 BB"),
    (Power::UnitedKingdom, "Hong Kong", "1 INF"),
    // "-1 cv, -1 des, -2 ftr (no units here)".
    (Power::UnitedStates, "SZ 11", "1 AC, 1 DES, 2 FTR"),
];

#[derive(Deserialize)]
struct Map {
    territories: Vec<MapPlace>,
    connections: Vec<[String; 2]>,
    /// TripleA owner -> place -> unit code -> count.
    setup: BTreeMap<String, BTreeMap<String, BTreeMap<String, u32>>>,
}

#[derive(Deserialize)]
struct MapPlace {
    name: String,
    sea: bool,
    ipc: u32,
    original_owner: Option<String>,
    has_factory: bool,
    #[serde(default)]
    aliases: Vec<String>,
    #[serde(default)]
    seed_names: Vec<String>,
}

/// The seed's power for a TripleA owner of `place`; `None` for the Commonwealth, which
/// owns nothing and has no turn.
fn seed_power(owner: &str, place: &str) -> Result<Option<Power>, String> {
    Ok(match owner {
        "Japanese" => Some(Power::Japan),
        // The seed's UK plays both British economies, "India" and "Aus.".
        "British" | "Australians" => Some(Power::UnitedKingdom),
        "Americans" => Some(Power::UnitedStates),
        "Chinese" if normalise(place) == normalise(CCP_PROVINCE) => Some(Power::Ccp),
        "Chinese" => Some(Power::Kmt),
        "Commonwealth" => None,
        other => return Err(format!("pacific map: unknown owner {other:?}")),
    })
}

/// The catalogue's code for a map unit code; `None` for the bases, which are special rules
/// here, not units.
fn unit_code(code: &str) -> Option<&str> {
    match code {
        "AB" | "NB" => None,
        "DD" => Some("DES"),
        other => Some(other),
    }
}

fn capital(power: Power) -> &'static str {
    match power {
        Power::Japan => "Japan",
        Power::UnitedKingdom => "India",
        Power::UnitedStates => "United States",
        Power::Kmt => "Szechwan",
        Power::Ccp => CCP_PROVINCE,
        _ => "",
    }
}

/// `2 INF, 1 ART` as pairs.
fn parts(text: &str) -> Result<Vec<(&str, u32)>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| {
            let (count, code) = part
                .split_once(' ')
                .ok_or_else(|| format!("{part:?} is not `<count> <unit>`"))?;
            let count = count
                .parse()
                .map_err(|_| format!("{part:?} is not `<count> <unit>`"))?;
            Ok((code, count))
        })
        .collect()
}

/// The board and setup AAP Historical ships with.
pub fn pacific() -> Result<(BoardDocument, Vec<PlaceDocument>), String> {
    let map: Map = serde_json::from_str(include_str!("../../data/pacific-map.json"))
        .map_err(|e| format!("pacific map: {e}"))?;
    let mut territories = Vec::with_capacity(map.territories.len() + 1);
    for place in &map.territories {
        let owner = match (&place.original_owner, place.sea) {
            (Some(owner), false) => seed_power(owner, &place.name)?,
            _ => None,
        };
        let mut aliases: Vec<String> = Vec::new();
        for alias in place.aliases.iter().chain(&place.seed_names) {
            let seen = normalise(alias) == normalise(&place.name)
                || aliases.iter().any(|a| normalise(a) == normalise(alias));
            if !seen {
                aliases.push(alias.clone());
            }
        }
        territories.push(TerritoryDocument {
            name: place.name.clone(),
            kind: if place.sea {
                TerritoryKind::Sea
            } else {
                TerritoryKind::Land
            },
            ipc: if place.sea { 0 } else { place.ipc },
            original_owner: owner,
            capital: owner.is_some_and(|p| capital(p) == place.name),
            factory: place.has_factory,
            aliases,
        });
    }
    // 1j: "split Tsinghai horizontally into 2 provinces connected to Tsinghai and Suiyuan".
    territories.push(TerritoryDocument {
        name: SINKIANG.to_owned(),
        kind: TerritoryKind::Land,
        ipc: 0,
        original_owner: Some(Power::Kmt),
        capital: false,
        factory: false,
        aliases: vec!["Sinkian".to_owned()],
    });
    let mut connections = map.connections.clone();
    connections.extend(SINKIANG_BORDERS.map(|b| [SINKIANG.to_owned(), b.to_owned()]));

    // Names as the seed writes them ("SZ 36", "USA") resolve to the board's.
    let board_name = |name: &str| -> Result<String, String> {
        let wanted = normalise(name);
        territories
            .iter()
            .find(|t| {
                normalise(&t.name) == wanted || t.aliases.iter().any(|a| normalise(a) == wanted)
            })
            .map(|t| t.name.clone())
            .ok_or_else(|| format!("pacific map: no place is called {name:?}"))
    };

    // (place, power) -> unit code -> count.
    let mut forces: BTreeMap<(String, Power), BTreeMap<String, i64>> = BTreeMap::new();
    for (owner, places) in &map.setup {
        for (place, units) in places {
            let Some(power) = seed_power(owner, place)? else {
                continue;
            };
            for (code, count) in units {
                if let Some(code) = unit_code(code) {
                    *forces
                        .entry((place.clone(), power))
                        .or_default()
                        .entry(code.to_owned())
                        .or_default() += i64::from(*count);
                }
            }
        }
    }
    for (changes, sign) in [(&ADDED[..], 1), (&REMOVED[..], -1)] {
        for (power, place, units) in changes {
            let entry = forces.entry((board_name(place)?, *power)).or_default();
            for (code, count) in parts(units)? {
                *entry.entry(code.to_owned()).or_default() += sign * i64::from(count);
            }
        }
    }

    let text = |units: &BTreeMap<String, i64>| -> Result<String, String> {
        let mut out = Vec::new();
        for (code, count) in units {
            match count {
                0 => {}
                n if *n < 0 => return Err(format!("pacific setup: {n} {code}")),
                n => out.push(format!("{n} {code}")),
            }
        }
        Ok(out.join(", "))
    };
    let mut setup = Vec::new();
    for territory in &territories {
        let here: Vec<(Power, String)> = forces
            .iter()
            .filter(|((place, _), _)| *place == territory.name)
            .map(|((_, power), units)| Ok((*power, text(units)?)))
            .filter(|r| !matches!(r, Ok((_, units)) if units.is_empty()))
            .collect::<Result<_, String>>()?;
        // Land is held by its owner; a sea zone by the first power with ships there.
        let Some(holder) = territory
            .original_owner
            .or_else(|| here.first().map(|(power, _)| *power))
        else {
            continue;
        };
        setup.push(PlaceDocument {
            power: holder,
            territory: territory.name.clone(),
            seed_ipc: None,
            units: here
                .iter()
                .find(|(power, _)| *power == holder)
                .map(|(_, units)| units.clone())
                .unwrap_or_default(),
            new_complex: false,
            others: here
                .into_iter()
                .filter(|(power, _)| *power != holder)
                .map(|(power, units)| UnitsOf { power, units })
                .collect(),
        });
    }
    Ok((
        BoardDocument {
            territories,
            connections,
            canals: Vec::new(),
        },
        setup,
    ))
}

#[cfg(test)]
mod tests;
