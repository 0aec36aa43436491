//! The Cut-Throat starting position (`data/cutthroat-setup.toml`): who holds which
//! territory, and every unit on the board.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::battle::Battle;
use crate::board::{Board, Power, TerritoryId};
use crate::units::{Catalogue, UnitTypeId};

/// One territory or sea zone of the starting position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartingPlace {
    pub power: Power,
    pub territory: TerritoryId,
    pub units: Vec<(UnitTypeId, u32)>,
    /// The IPC value the seed prints beside it, where it prints one.
    pub seed_ipc: Option<u32>,
    /// Its industrial complex is a new one, not original: it produces up to the
    /// territory's value.
    pub new_complex: bool,
    /// Other powers' units standing here at the start, by power.
    pub others: Vec<(Power, Vec<(UnitTypeId, u32)>)>,
}

/// The whole starting position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    pub places: Vec<StartingPlace>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("setup data: {0}")]
    Data(String),
}

#[derive(Debug, Deserialize)]
struct RawSetup {
    place: Vec<PlaceDocument>,
}

/// One place of a starting position as a ruleset document gives it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlaceDocument {
    /// Who holds it at the start.
    pub power: Power,
    /// A territory or sea zone, by name or alias.
    pub territory: String,
    /// The IPC value the source prints beside it, if it prints one (checked by tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_ipc: Option<u32>,
    /// The units, as `3 INF, 1 ARM` (may be empty: held, no units).
    pub units: String,
    /// The industrial complex placed here is a new one, not original: it produces up to
    /// the territory's value, where an original complex produces without limit for its
    /// owner (Cut-Throat names only India's new complex original; South Africa's is new).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub new_complex: bool,
    /// Other powers' units standing here at the start (AAP: the CCP's beside the KMT's in
    /// Kweichow, American infantry on the British Line Islands).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<UnitsOf>,
}

/// One power's units in a place another power holds.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UnitsOf {
    pub power: Power,
    /// As `2 INF`.
    pub units: String,
}

impl Setup {
    /// The Cut-Throat setup on the Classic board.
    pub fn cut_throat() -> Result<&'static Setup, SetupError> {
        static SETUP: OnceLock<Result<Setup, SetupError>> = OnceLock::new();
        SETUP
            .get_or_init(|| {
                let board = Board::classic().map_err(|e| SetupError::Data(e.to_string()))?;
                let catalogue =
                    Catalogue::builtin("cutthroat").map_err(|e| SetupError::Data(e.to_string()))?;
                Setup::parse(
                    include_str!("../data/cutthroat-setup.toml"),
                    board,
                    &catalogue,
                )
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn parse(text: &str, board: &Board, catalogue: &Catalogue) -> Result<Setup, SetupError> {
        let raw: RawSetup = toml::from_str(text).map_err(|e| SetupError::Data(e.to_string()))?;
        Setup::from_places(&raw.place, board, catalogue)
    }

    /// The Cut-Throat setup as a document gives it.
    pub fn cut_throat_document() -> Result<Vec<PlaceDocument>, SetupError> {
        let raw: RawSetup = toml::from_str(include_str!("../data/cutthroat-setup.toml"))
            .map_err(|e| SetupError::Data(e.to_string()))?;
        Ok(raw.place)
    }

    /// A setup from a ruleset document's places.
    pub fn from_places(
        raw: &[PlaceDocument],
        board: &Board,
        catalogue: &Catalogue,
    ) -> Result<Setup, SetupError> {
        let mut places = Vec::with_capacity(raw.len());
        for p in raw {
            let territory = board
                .id(&p.territory)
                .map_err(|e| SetupError::Data(e.to_string()))?;
            if places
                .iter()
                .any(|q: &StartingPlace| q.territory == territory)
            {
                return Err(SetupError::Data(format!("{} is listed twice", p.territory)));
            }
            let army = |text: &str| {
                Battle::army(catalogue, text)
                    .map_err(|e| SetupError::Data(format!("{}: {e}", p.territory)))
            };
            let others = p
                .others
                .iter()
                .map(|o| Ok((o.power, army(&o.units)?)))
                .collect::<Result<_, SetupError>>()?;
            places.push(StartingPlace {
                power: p.power,
                territory,
                units: army(&p.units)?,
                seed_ipc: p.seed_ipc,
                new_complex: p.new_complex,
                others,
            });
        }
        Ok(Setup { places })
    }

    /// Who holds a territory at the start.
    pub fn holder(&self, territory: TerritoryId) -> Option<Power> {
        self.places
            .iter()
            .find(|p| p.territory == territory)
            .map(|p| p.power)
    }

    /// The initial IPC count of each power: the printed values of what it holds.
    pub fn initial_ipc(&self, board: &Board) -> BTreeMap<Power, u32> {
        let mut counts: BTreeMap<Power, u32> = board.turn_order().iter().map(|p| (*p, 0)).collect();
        for place in &self.places {
            *counts.entry(place.power).or_default() += board.get(place.territory).ipc;
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Domain;

    fn fixtures() -> (&'static Board, &'static Setup, Catalogue) {
        (
            Board::classic().expect("board"),
            Setup::cut_throat().expect("setup"),
            Catalogue::builtin("cutthroat").expect("catalogue"),
        )
    }

    #[test]
    fn the_initial_ipc_counts_are_24_32_30_25_and_36() {
        let (board, setup, _) = fixtures();
        let counts = setup.initial_ipc(board);
        assert_eq!(counts[&Power::Russia], 24);
        assert_eq!(counts[&Power::Germany], 32);
        assert_eq!(counts[&Power::UnitedKingdom], 30);
        assert_eq!(counts[&Power::Japan], 25);
        assert_eq!(counts[&Power::UnitedStates], 36);
        assert_eq!(counts.values().sum::<u32>(), 147);
    }

    #[test]
    fn every_value_the_seed_prints_is_the_boards_printed_value() {
        let (board, setup, _) = fixtures();
        for place in &setup.places {
            let territory = board.get(place.territory);
            if let Some(seed) = place.seed_ipc {
                assert_eq!(seed, territory.ipc, "{}", territory.name);
            }
        }
    }

    /// The board names of the places that start with a unit of this type, sorted.
    fn places_with(code: &str) -> Vec<&'static str> {
        let (board, setup, catalogue) = fixtures();
        let id = catalogue.id(code).expect(code);
        let mut names: Vec<&str> = setup
            .places
            .iter()
            .filter(|p| p.units.iter().any(|(u, _)| *u == id))
            .map(|p| board.get(p.territory).name.as_str())
            .collect();
        names.sort_unstable();
        names
    }

    #[test]
    fn industrial_complexes_stand_where_the_seed_puts_them() {
        assert_eq!(
            places_with("IC"),
            vec![
                "East US",
                "Germany",
                "India",
                "Japan",
                "Karelia S.S.R.",
                "Russia",
                "South Africa",
                "South Europe",
                "United Kingdom",
                "West US",
            ]
        );
    }

    #[test]
    fn anti_aircraft_guns_stand_where_the_seed_puts_them() {
        assert_eq!(
            places_with("AA"),
            vec![
                "East US",
                "Germany",
                "Japan",
                "Karelia S.S.R.",
                "Russia",
                "South Europe",
                "United Kingdom",
                "West Europe",
                "West US",
            ]
        );
    }

    #[test]
    fn ships_are_at_sea_armies_on_land_and_fighters_at_sea_fit_their_carriers() {
        let (board, setup, catalogue) = fixtures();
        let carrier = catalogue.id("AC").expect("AC");
        assert!(catalogue
            .get(carrier)
            .has(crate::units::Ability::CarriesAircraft));
        for place in &setup.places {
            let territory = board.get(place.territory);
            let mut aircraft = 0;
            let mut deck_space = 0;
            for &(unit, n) in &place.units {
                let profile = catalogue.get(unit);
                match profile.domain {
                    Domain::Sea => assert!(
                        territory.sea,
                        "{} on land: {}",
                        profile.code, territory.name
                    ),
                    Domain::Land => assert!(
                        !territory.sea,
                        "{} at sea: {}",
                        profile.code, territory.name
                    ),
                    Domain::Air => aircraft += n,
                }
                if unit == carrier {
                    deck_space += n * u32::from(profile.carries);
                }
            }
            if territory.sea {
                assert!(
                    aircraft <= deck_space,
                    "{}: {aircraft} aircraft, room for {deck_space}",
                    territory.name
                );
            }
        }
    }

    #[test]
    fn no_power_starts_on_neutral_ground_and_the_unit_counts_match_the_seed() {
        let (board, setup, catalogue) = fixtures();
        assert!(setup
            .places
            .iter()
            .all(|p| !board.get(p.territory).is_neutral()));
        let infantry = catalogue.id("INF").expect("INF");
        let count = |power: Power| -> u32 {
            setup
                .places
                .iter()
                .filter(|p| p.power == power)
                .flat_map(|p| p.units.iter())
                .filter(|(u, _)| *u == infantry)
                .map(|(_, n)| n)
                .sum()
        };
        // Summed by hand from the seed's table, e.g. Japan: Burma 2, Kwantung 4, Manchuria 3,
        // Japan 3, East Indies 1, Borneo 1, Philippines 2, New Guinea, Caroline, Solomon,
        // Wake and Okinawa 1 each.
        assert_eq!(count(Power::Russia), 24);
        assert_eq!(count(Power::Germany), 21);
        assert_eq!(count(Power::UnitedKingdom), 14);
        assert_eq!(count(Power::Japan), 21);
        assert_eq!(count(Power::UnitedStates), 15);
    }
}
