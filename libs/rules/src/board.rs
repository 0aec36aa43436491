//! The board: territories and sea zones with their printed values, owners, capitals and
//! factories, adjacency, canals and the names the seeds use (`data/classic-board.toml`).

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;

/// The powers a ruleset may seat: the five of the Classic board, in the Classic turn
/// order, and AAP Historical's two Chinese factions.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, serde::Serialize,
)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Power {
    Russia,
    Germany,
    UnitedKingdom,
    Japan,
    UnitedStates,
    /// The Chinese Communist Party (AAP Historical).
    Ccp,
    /// The Kuomintang (AAP Historical).
    Kmt,
    /// The non-player nations ("War"): whoever holds no player's colour. Their forces are
    /// placed and moved by the player to the right of the one whose turn it is.
    Npn,
}

impl Power {
    /// Every power, in a fixed order: the Classic five in their turn order, then AAP's and
    /// the War rules'. A reply token carries a power as its place here, so a new power is
    /// added at the end and none is ever moved.
    pub const ALL: [Power; 8] = [
        Power::Russia,
        Power::Germany,
        Power::UnitedKingdom,
        Power::Japan,
        Power::UnitedStates,
        Power::Ccp,
        Power::Kmt,
        Power::Npn,
    ];

    /// The Classic board's five, in its turn order.
    pub const CLASSIC: [Power; 5] = [
        Power::Russia,
        Power::Germany,
        Power::UnitedKingdom,
        Power::Japan,
        Power::UnitedStates,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Power::Russia => "Russia",
            Power::Germany => "Germany",
            Power::UnitedKingdom => "United Kingdom",
            Power::Japan => "Japan",
            Power::UnitedStates => "United States",
            Power::Ccp => "CCP",
            Power::Kmt => "KMT",
            Power::Npn => "the non-player nations",
        }
    }
}

impl fmt::Display for Power {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A territory or sea zone of one board. In events it is the board's index: a reader
/// checks it against the game's board before use (`Board::contains`).
///
/// It serialises as that index, or, while a naming scope is in force, by name
/// (`crate::names`: events by name for tools; the log never sees a name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(transparent)]
pub struct TerritoryId(u8);

impl TerritoryId {
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Territory {
    pub name: String,
    pub sea: bool,
    /// The printed IPC value (0 for sea zones).
    pub ipc: u32,
    pub original_owner: Option<Power>,
    pub capital: bool,
    pub factory: bool,
    pub aliases: Vec<String>,
}

impl Territory {
    /// Land that belongs to no power: impassable unless a ruleset option says otherwise.
    pub fn is_neutral(&self) -> bool {
        !self.sea && self.original_owner.is_none()
    }
}

/// A canal: the two sea zones it joins, and the land a power must hold to pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canal {
    pub name: String,
    pub sea_zones: [TerritoryId; 2],
    pub requires: Vec<TerritoryId>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("board data does not parse: {0}")]
    Data(String),
    #[error("no territory or sea zone is called {0:?}")]
    UnknownName(String),
}

#[derive(Debug, Clone)]
pub struct Board {
    territories: Vec<Territory>,
    neighbours: Vec<Vec<TerritoryId>>,
    canals: Vec<Canal>,
    names: HashMap<String, TerritoryId>,
    turn_order: Vec<Power>,
}

/// The board file compiled in (`data/classic-board.toml`): the turn order and the board.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardFile {
    turn_order: Vec<Power>,
    connections: Vec<[String; 2]>,
    territory: Vec<TerritoryDocument>,
    canal: Vec<CanalDocument>,
}

/// A board as a ruleset document gives it: places, adjacency and canals, by name.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BoardDocument {
    pub territories: Vec<TerritoryDocument>,
    /// Adjacent pairs (land-land, land-sea, sea-sea), each listed once, by name or alias.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Vec<String>>))]
    pub connections: Vec<[String; 2]>,
    #[serde(default)]
    pub canals: Vec<CanalDocument>,
}

impl BoardDocument {
    /// Whether a place of this name (or alias) is on the board.
    pub fn has_place(&self, name: &str) -> bool {
        self.territories
            .iter()
            .any(|t| t.name == name || t.aliases.iter().any(|a| a == name))
    }
}

/// Land or sea.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum TerritoryKind {
    Land,
    Sea,
}

/// A territory or sea zone.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TerritoryDocument {
    pub name: String,
    pub kind: TerritoryKind,
    /// The printed IPC value (0 for sea zones).
    #[serde(default)]
    pub ipc: u32,
    /// None: neutral land, or a sea zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_owner: Option<Power>,
    #[serde(default)]
    pub capital: bool,
    /// An industrial complex stands here at the start.
    #[serde(default)]
    pub factory: bool,
    /// Other names orders may use.
    #[serde(default)]
    pub aliases: Vec<String>,
}

/// A canal: the two sea zones it joins and the land a power must hold to pass.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CanalDocument {
    pub name: String,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub sea_zones: [String; 2],
    pub requires: Vec<String>,
}

/// Names are matched ignoring case and runs of white space.
pub(crate) fn normalise(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The board data keeps the seed's spelling "Mediteranean" (the board's names, and so the
/// record's, never change); players write "Mediterranean", or "Med" for short, and often
/// leave out "Sea Zone" or write "SZ". The names a `normalised` name may stand for, in
/// both spellings (an uploaded board may spell it right), or none without the word.
/// So "West Med", "West Mediterranean" and "West Mediterranean SZ" are the board's "West
/// Mediteranean Sea Zone"; a bare "Mediterranean" names none of the three.
pub(crate) fn respellings(normalised: &str) -> Vec<String> {
    let words: Vec<&str> = normalised.split(' ').collect();
    let Some(at) = words.iter().position(|w| {
        matches!(
            *w,
            "med" | "med." | "mediterranean" | "mediteranean" | "mediterranian"
        )
    }) else {
        return Vec::new();
    };
    let before = &words[..at];
    let after = match &words[at + 1..] {
        [] | ["sz"] | ["sea"] => &["sea", "zone"][..],
        rest => rest,
    };
    ["mediteranean", "mediterranean"]
        .into_iter()
        .map(|spelling| {
            before
                .iter()
                .copied()
                .chain(std::iter::once(spelling))
                .chain(after.iter().copied())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

impl Board {
    /// The Classic board.
    pub fn classic() -> Result<&'static Board, BoardError> {
        static BOARD: OnceLock<Result<Board, BoardError>> = OnceLock::new();
        BOARD
            .get_or_init(|| Board::parse(include_str!("../data/classic-board.toml")))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn parse(text: &str) -> Result<Board, BoardError> {
        let file: BoardFile = toml::from_str(text).map_err(|e| BoardError::Data(e.to_string()))?;
        Board::from_document(
            file.turn_order,
            &BoardDocument {
                territories: file.territory,
                connections: file.connections,
                canals: file.canal,
            },
        )
    }

    /// The board `classic-board.toml` gives, as a document.
    pub fn classic_document() -> Result<(Vec<Power>, BoardDocument), BoardError> {
        let file: BoardFile = toml::from_str(include_str!("../data/classic-board.toml"))
            .map_err(|e| BoardError::Data(e.to_string()))?;
        Ok((
            file.turn_order,
            BoardDocument {
                territories: file.territory,
                connections: file.connections,
                canals: file.canal,
            },
        ))
    }

    /// A board from a ruleset document's board and turn order.
    pub fn from_document(turn_order: Vec<Power>, raw: &BoardDocument) -> Result<Board, BoardError> {
        if raw.territories.len() > usize::from(u8::MAX) {
            return Err(BoardError::Data("too many territories".into()));
        }
        let mut names = HashMap::new();
        let mut territories = Vec::with_capacity(raw.territories.len());
        for (index, t) in raw.territories.iter().enumerate() {
            let id = TerritoryId(index as u8);
            for name in std::iter::once(&t.name).chain(t.aliases.iter()) {
                if let Some(other) = names.insert(normalise(name), id) {
                    if other != id {
                        return Err(BoardError::Data(format!("the name {name:?} is used twice")));
                    }
                }
            }
            territories.push(Territory {
                name: t.name.clone(),
                sea: t.kind == TerritoryKind::Sea,
                ipc: t.ipc,
                original_owner: t.original_owner,
                capital: t.capital,
                factory: t.factory,
                aliases: t.aliases.clone(),
            });
        }
        let lookup = |name: &str| {
            names
                .get(&normalise(name))
                .copied()
                .ok_or_else(|| BoardError::UnknownName(name.to_owned()))
        };
        let mut neighbours = vec![Vec::new(); territories.len()];
        for [a, b] in &raw.connections {
            let (a, b) = (lookup(a)?, lookup(b)?);
            if a == b || neighbours[a.index()].contains(&b) {
                return Err(BoardError::Data(format!(
                    "connection {} - {} repeated or to itself",
                    territories[a.index()].name,
                    territories[b.index()].name
                )));
            }
            neighbours[a.index()].push(b);
            neighbours[b.index()].push(a);
        }
        let canals = raw
            .canals
            .iter()
            .map(|c| {
                Ok(Canal {
                    name: c.name.clone(),
                    sea_zones: [lookup(&c.sea_zones[0])?, lookup(&c.sea_zones[1])?],
                    requires: c
                        .requires
                        .iter()
                        .map(|r| lookup(r))
                        .collect::<Result<_, _>>()?,
                })
            })
            .collect::<Result<Vec<_>, BoardError>>()?;
        Ok(Board {
            territories,
            neighbours,
            canals,
            names,
            turn_order,
        })
    }

    /// A territory by its name or any alias (case and spacing do not matter), or by the
    /// dictionary's spelling of the board's "Mediteranean" (see [`respellings`]).
    pub fn id(&self, name: &str) -> Result<TerritoryId, BoardError> {
        let normalised = normalise(name);
        self.names
            .get(&normalised)
            .or_else(|| {
                respellings(&normalised)
                    .iter()
                    .find_map(|other| self.names.get(other))
            })
            .copied()
            .ok_or_else(|| BoardError::UnknownName(name.to_owned()))
    }

    /// Whether an id (say, from an imported log) names a place on this board.
    pub fn contains(&self, id: TerritoryId) -> bool {
        id.index() < self.territories.len()
    }

    pub fn get(&self, id: TerritoryId) -> &Territory {
        &self.territories[id.index()]
    }

    pub fn territories(&self) -> impl Iterator<Item = (TerritoryId, &Territory)> {
        self.territories
            .iter()
            .enumerate()
            .map(|(i, t)| (TerritoryId(i as u8), t))
    }

    pub fn neighbours(&self, id: TerritoryId) -> &[TerritoryId] {
        &self.neighbours[id.index()]
    }

    pub fn adjacent(&self, a: TerritoryId, b: TerritoryId) -> bool {
        self.neighbours[a.index()].contains(&b)
    }

    /// A power's capital (its home territory with the capital star).
    pub fn capital(&self, power: Power) -> Option<TerritoryId> {
        self.territories()
            .find(|(_, t)| t.capital && t.original_owner == Some(power))
            .map(|(id, _)| id)
    }

    pub fn turn_order(&self) -> &[Power] {
        &self.turn_order
    }

    pub fn canals(&self) -> &[Canal] {
        &self.canals
    }

    /// Whether a ship may move between two adjacent sea zones: always, unless a canal joins
    /// them, which is open only to a power holding all of its land (`holds`).
    pub fn sea_passage_open(
        &self,
        from: TerritoryId,
        to: TerritoryId,
        holds: impl Fn(TerritoryId) -> bool,
    ) -> bool {
        let canal = self
            .canals
            .iter()
            .find(|c| c.sea_zones.contains(&from) && c.sea_zones.contains(&to) && from != to);
        match canal {
            Some(canal) => canal.requires.iter().all(|t| holds(*t)),
            None => self.adjacent(from, to),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board() -> &'static Board {
        Board::classic().expect("the classic board parses")
    }

    #[test]
    fn the_classic_board_has_70_land_territories_58_sea_zones_and_14_neutrals() {
        let b = board();
        let land = b.territories().filter(|(_, t)| !t.sea).count();
        let sea = b.territories().filter(|(_, t)| t.sea).count();
        let neutral = b.territories().filter(|(_, t)| t.is_neutral()).count();
        assert_eq!((land, sea, neutral), (70, 58, 14));
        let links: usize = b.territories().map(|(id, _)| b.neighbours(id).len()).sum();
        assert_eq!(links, 2 * 309, "309 connections, each both ways");
        assert!(b.territories().all(|(id, _)| !b.neighbours(id).is_empty()));
    }

    #[test]
    fn the_capitals_are_the_five_powers_own() {
        let capitals: Vec<(&str, Option<Power>)> = board()
            .territories()
            .filter(|(_, t)| t.capital)
            .map(|(_, t)| (t.name.as_str(), t.original_owner))
            .collect();
        assert_eq!(capitals.len(), 5);
        assert!(capitals.contains(&("Russia", Some(Power::Russia))));
        assert!(capitals.contains(&("East US", Some(Power::UnitedStates))));
    }

    #[test]
    fn the_seeds_names_and_misspellings_resolve_to_board_territories() {
        let b = board();
        for (seed, board_name) in [
            ("Karelia", "Karelia S.S.R."),
            ("Kakahk", "Kazakh S.S.R."),
            ("S.F.E", "Soviet Far East"),
            ("Burma", "French Indo China"),
            ("West Indies", "Cuba"),
            ("UK SZ", "North Sea Zone"),
            ("N.Karelia SZ", "Karelia Sea Zone"),
            ("S.Europe SZ", "Central Mediteranean Sea Zone"),
            ("perisa", "Persia"),
            ("  Austrailia ", "Australia"),
        ] {
            let id = b.id(seed).unwrap_or_else(|e| panic!("{seed}: {e}"));
            assert_eq!(b.get(id).name, board_name, "{seed}");
        }
        assert_eq!(
            b.id("Atlantis"),
            Err(BoardError::UnknownName("Atlantis".into()))
        );
    }

    #[test]
    fn mediterranean_spelled_right_or_short_names_the_boards_mediteranean_zones() {
        let b = board();
        for (written, board_name) in [
            ("West Mediterranean Sea Zone", "West Mediteranean Sea Zone"),
            ("west mediterranean", "West Mediteranean Sea Zone"),
            ("West Med", "West Mediteranean Sea Zone"),
            ("Central Mediterranean SZ", "Central Mediteranean Sea Zone"),
            ("central  med sz", "Central Mediteranean Sea Zone"),
            ("East Mediterranean Sea", "East Mediteranean Sea Zone"),
            ("East Mediteranean", "East Mediteranean Sea Zone"),
            ("EAST MED", "East Mediteranean Sea Zone"),
            // The board's own spelling, as always.
            ("East Mediteranean Sea Zone", "East Mediteranean Sea Zone"),
        ] {
            let id = b.id(written).unwrap_or_else(|e| panic!("{written}: {e}"));
            // The board's name, as the record writes it, is unchanged.
            assert_eq!(b.get(id).name, board_name, "{written}");
        }
        // Three zones share the sea: alone, its name is none of them.
        for alone in [
            "Mediterranean",
            "Med",
            "Mediterranean Sea Zone",
            "North Med",
        ] {
            assert_eq!(
                b.id(alone),
                Err(BoardError::UnknownName(alone.into())),
                "{alone}"
            );
        }
    }

    #[test]
    fn suez_needs_egypt_and_syria_and_panama_needs_panama() {
        let b = board();
        let id = |n: &str| b.id(n).expect(n);
        let (east_med, red_sea) = (id("East Mediteranean Sea Zone"), id("Red Sea Zone"));
        let (egypt, syria) = (id("Anglo Sudan Egypt"), id("Syria Jordan"));
        assert!(b.sea_passage_open(east_med, red_sea, |t| t == egypt || t == syria));
        assert!(!b.sea_passage_open(east_med, red_sea, |t| t == egypt));
        assert!(!b.sea_passage_open(red_sea, east_med, |_| false));
        let (caribbean, west_panama, panama) = (
            id("Carribean Sea Zone"),
            id("West Panama Sea Zone"),
            id("Panama"),
        );
        assert!(b.sea_passage_open(caribbean, west_panama, |t| t == panama));
        assert!(!b.sea_passage_open(caribbean, west_panama, |_| false));
        // An ordinary pair of adjacent sea zones needs nothing.
        let north_sea = id("North Sea Zone");
        let other = *b
            .neighbours(north_sea)
            .iter()
            .find(|n| b.get(**n).sea)
            .expect("the North Sea touches another sea zone");
        assert!(b.sea_passage_open(north_sea, other, |_| false));
    }

    #[test]
    fn the_turn_order_is_the_classic_one() {
        assert_eq!(board().turn_order(), Power::CLASSIC);
    }
}
