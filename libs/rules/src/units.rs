//! The unit catalogue: every unit type of a ruleset, from `data/units.toml` (compiled in).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;

/// Land, sea or air.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Domain {
    Land,
    Sea,
    Air,
}

/// What a unit can do beyond attacking and defending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Ability {
    /// Fires once, in the first round, one die per attacking aircraft, hitting on 1.
    AntiAircraft,
    /// A battleship's first-round shot in support of an amphibious assault.
    SupportShot,
    /// Attacking submarines fire before everyone else; their victims do not fire back.
    FirstStrike,
    /// Submarines cannot hit aircraft.
    CannotHitAir,
    Blitz,
    Factory,
    /// A ship a kamikaze fighter may be aimed at.
    KamikazeTarget,
    /// Fighters may land on it (`carries` of them).
    CarriesAircraft,
    /// AAP heavy weapons: two casualties per hit against a group of more than 20.
    HwvInflicts,
    /// Not counted towards an AAP heavy-weapons group (subs, aircraft, AA guns).
    HwvExempt,
    /// Artillery: each attacking infantry paired with one attacks one higher.
    SupportsInfantry,
    /// AAP submarines: their hits fall on neither aircraft nor other submarines.
    HitsSurfaceOnly,
    /// AAP destroyers: enemy submarines sharing their zone when their owner's turn begins
    /// may be attacked (7.1 iii).
    HuntsSubmarines,
    /// The Pacific board's marines: attacking after coming ashore from the sea that turn
    /// (an amphibious assault), they attack one higher (TripleA's `isMarine`).
    Marine,
}

/// A unit type's profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitType {
    pub code: String,
    pub name: String,
    pub cost: u32,
    pub attack: u8,
    pub defense: u8,
    pub movement: u8,
    pub hit_points: u8,
    /// Defense once damaged (multi-hit battleships).
    pub damaged_defense: Option<u8>,
    pub domain: Domain,
    pub transport_space: u8,
    pub carries: u8,
    pub abilities: Vec<Ability>,
    /// `abilities` as bits, for the engine's inner loops.
    ability_bits: u16,
}

impl UnitType {
    pub fn has(&self, ability: Ability) -> bool {
        self.ability_bits & (1 << ability as u16) != 0
    }

    /// Whether it takes part in the dice of a battle (AA guns and factories do not; an AA gun
    /// fires in its own phase).
    pub fn is_combatant(&self) -> bool {
        !self.has(Ability::Factory) && !self.has(Ability::AntiAircraft)
    }
}

/// A unit type within one catalogue: an index, cheap to copy and compare. In events it is
/// the catalogue's index: a reader checks it against the game's catalogue before use.
///
/// It serialises as that index, or, while a naming scope is in force, by name
/// (`crate::names`: events by name for tools; the log never sees a name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(transparent)]
pub struct UnitTypeId(u8);

impl UnitTypeId {
    pub const MIN: UnitTypeId = UnitTypeId(0);
    pub const MAX: UnitTypeId = UnitTypeId(u8::MAX);

    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogueError {
    #[error("no ruleset {0:?}; known: {1}")]
    UnknownRuleset(String, String),
    #[error("unit data does not parse: {0}")]
    Data(String),
    #[error("ruleset {ruleset} has no unit {code:?}")]
    UnknownUnit { ruleset: String, code: String },
}

/// The unit types of one ruleset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalogue {
    ruleset: String,
    name: String,
    units: Vec<UnitType>,
    /// The IAAPA default orders of loss: land attacker, land defender, sea attacker, sea
    /// defender (computed once; every battle starts from one).
    default_loss_orders: [Vec<UnitTypeId>; 4],
    fighter: Option<UnitTypeId>,
    bomber: Option<UnitTypeId>,
    battleship: Option<UnitTypeId>,
    infantry: Option<UnitTypeId>,
    armour: Option<UnitTypeId>,
}

#[derive(Debug, Deserialize)]
struct RawData {
    rulesets: BTreeMap<String, RawRuleset>,
}

#[derive(Debug, Deserialize)]
struct RawRuleset {
    name: String,
    base: Option<String>,
    #[serde(default)]
    units: BTreeMap<String, UnitDocument>,
}

/// A unit type as a ruleset document gives it (`units.toml` uses the same fields).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UnitDocument {
    pub name: String,
    /// IPC.
    pub cost: u32,
    /// Hits on a die showing this or less when attacking (0: never).
    pub attack: u8,
    pub defense: u8,
    pub movement: u8,
    /// Hits needed to sink it (1 unless a multi-hit battleship).
    #[serde(default = "one")]
    pub hit_points: u8,
    /// Its defense once damaged (multi-hit units only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damaged_defense: Option<u8>,
    pub domain: Domain,
    /// Transport spaces it takes (land units).
    #[serde(default)]
    pub transport_space: u8,
    /// Land units a transport takes, or fighters a carrier takes.
    #[serde(default)]
    pub carries: u8,
    #[serde(default)]
    pub abilities: Vec<Ability>,
}

fn one() -> u8 {
    1
}

const UNIT_DATA: &str = include_str!("../data/units.toml");

fn raw_data() -> Result<&'static RawData, CatalogueError> {
    static DATA: OnceLock<Result<RawData, String>> = OnceLock::new();
    DATA.get_or_init(|| toml::from_str(UNIT_DATA).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| CatalogueError::Data(e.clone()))
}

impl Catalogue {
    /// The ids of the built-in rulesets.
    pub fn builtin_rulesets() -> Vec<&'static str> {
        raw_data()
            .map(|d| d.rulesets.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// A built-in ruleset's units, its `base` chain applied.
    pub fn builtin(ruleset: &str) -> Result<Catalogue, CatalogueError> {
        let data = raw_data()?;
        let mut chain = Vec::new();
        let mut next = Some(ruleset);
        while let Some(id) = next {
            let raw = data.rulesets.get(id).ok_or_else(|| {
                CatalogueError::UnknownRuleset(id.to_owned(), Self::builtin_rulesets().join(", "))
            })?;
            if chain.iter().any(|(seen, _)| *seen == id) || chain.len() > 16 {
                return Err(CatalogueError::Data(format!(
                    "ruleset {id} is its own base"
                )));
            }
            chain.push((id, raw));
            next = raw.base.as_deref();
        }
        let mut merged: BTreeMap<String, UnitDocument> = BTreeMap::new();
        for (_, raw) in chain.iter().rev() {
            for (code, unit) in &raw.units {
                merged.insert(code.clone(), unit.clone());
            }
        }
        Self::from_units(ruleset, &chain[0].1.name, &merged)
    }

    /// A built-in ruleset's units as a document gives them, its `base` chain applied.
    pub fn builtin_units(ruleset: &str) -> Result<BTreeMap<String, UnitDocument>, CatalogueError> {
        Ok(Self::builtin(ruleset)?
            .units
            .iter()
            .map(|u| {
                (
                    u.code.clone(),
                    UnitDocument {
                        name: u.name.clone(),
                        cost: u.cost,
                        attack: u.attack,
                        defense: u.defense,
                        movement: u.movement,
                        hit_points: u.hit_points,
                        damaged_defense: u.damaged_defense,
                        domain: u.domain,
                        transport_space: u.transport_space,
                        carries: u.carries,
                        abilities: u.abilities.clone(),
                    },
                )
            })
            .collect())
    }

    /// A catalogue from a ruleset document's units, by code.
    pub fn from_units(
        ruleset: &str,
        name: &str,
        units: &BTreeMap<String, UnitDocument>,
    ) -> Result<Catalogue, CatalogueError> {
        if units.len() > usize::from(u8::MAX) {
            return Err(CatalogueError::Data("too many unit types".into()));
        }
        let units = units
            .iter()
            .map(|(code, raw)| UnitType {
                code: code.to_owned(),
                name: raw.name.clone(),
                cost: raw.cost,
                attack: raw.attack,
                defense: raw.defense,
                movement: raw.movement,
                hit_points: raw.hit_points.max(1),
                damaged_defense: raw.damaged_defense,
                domain: raw.domain,
                transport_space: raw.transport_space,
                carries: raw.carries,
                abilities: raw.abilities.clone(),
                ability_bits: raw
                    .abilities
                    .iter()
                    .fold(0, |bits, a| bits | 1 << *a as u16),
            })
            .collect();
        let mut catalogue = Catalogue {
            ruleset: ruleset.to_owned(),
            name: name.to_owned(),
            units,
            default_loss_orders: Default::default(),
            fighter: None,
            bomber: None,
            battleship: None,
            infantry: None,
            armour: None,
        };
        catalogue.fighter = catalogue.id("FTR").ok();
        catalogue.bomber = catalogue.id("BMB").ok();
        catalogue.battleship = catalogue.id("BB").ok();
        catalogue.infantry = catalogue.id("INF").ok();
        catalogue.armour = catalogue.id("ARM").ok();
        catalogue.default_loss_orders =
            DEFAULT_LOSS_CODES.map(|codes| default_order(&catalogue, codes));
        Ok(catalogue)
    }

    pub fn ruleset(&self) -> &str {
        &self.ruleset
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The id of a unit code such as `INF`.
    pub fn id(&self, code: &str) -> Result<UnitTypeId, CatalogueError> {
        self.units
            .iter()
            .position(|u| u.code.eq_ignore_ascii_case(code))
            .and_then(|i| u8::try_from(i).ok())
            .map(UnitTypeId)
            .ok_or_else(|| CatalogueError::UnknownUnit {
                ruleset: self.ruleset.clone(),
                code: code.to_owned(),
            })
    }

    /// The default order of loss, by its index in [`DEFAULT_LOSS_CODES`] (land attacker,
    /// land defender, sea attacker, sea defender).
    pub(crate) fn default_loss_order(&self, index: usize) -> &[UnitTypeId] {
        &self.default_loss_orders[index]
    }

    /// The fighter, if the ruleset has one (kamikaze runs).
    pub fn fighter(&self) -> Option<UnitTypeId> {
        self.fighter
    }

    /// Infantry, if the ruleset has it (rail movement, paratroopers, passive play).
    pub fn infantry(&self) -> Option<UnitTypeId> {
        self.infantry
    }

    /// Armour (not heavy armour), if the ruleset has it (heavy bombers drop one).
    pub fn armour(&self) -> Option<UnitTypeId> {
        self.armour
    }

    /// The bomber, if the ruleset has one (heavy bombers, strategic bombing).
    pub fn bomber(&self) -> Option<UnitTypeId> {
        self.bomber
    }

    /// The battleship, if the ruleset has one (support shots).
    pub fn battleship(&self) -> Option<UnitTypeId> {
        self.battleship
    }

    pub fn get(&self, id: UnitTypeId) -> &UnitType {
        &self.units[id.index()]
    }

    pub fn units(&self) -> impl Iterator<Item = (UnitTypeId, &UnitType)> {
        self.units
            .iter()
            .enumerate()
            .map(|(i, u)| (UnitTypeId(i as u8), u))
    }
}

impl fmt::Display for Catalogue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({} unit types)", self.name, self.units.len())
    }
}

/// The IAAPA default orders of loss (docs/rule-facts.md), by unit code: land attacker,
/// land defender, sea attacker, sea defender. Units a ruleset adds (heavy armour,
/// artillery, destroyers ...) sit next to their kin; any unit not listed goes after the
/// listed ones, cheapest first. Kept with the catalogue, which resolves them once.
pub const DEFAULT_LOSS_CODES: [&[&str]; 4] = [
    &["INF", "ART", "ARM", "HARM", "FTR", "BMB"],
    &["INF", "ART", "ARM", "HARM", "BMB", "FTR"],
    &["TRN", "SUB", "DES", "FTR", "BMB", "AC", "BB", "BB3"],
    &["TRN", "SUB", "DES", "FTR", "AC", "BB", "BB3"],
];

/// One default order resolved against a catalogue.
fn default_order(catalogue: &Catalogue, codes: &[&str]) -> Vec<UnitTypeId> {
    let mut order: Vec<UnitTypeId> = codes
        .iter()
        .filter_map(|code| catalogue.id(code).ok())
        .collect();
    let mut rest: Vec<(u32, UnitTypeId)> = catalogue
        .units()
        .filter(|(id, _)| !order.contains(id))
        .map(|(id, u)| (u.cost, id))
        .collect();
    rest.sort();
    order.extend(rest.into_iter().map(|(_, id)| id));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classic_profiles_match_the_reference_table() {
        let classic = Catalogue::builtin("classic").expect("classic");
        let profile = |code: &str| {
            let u = classic.get(classic.id(code).expect(code));
            (u.attack, u.defense, u.movement, u.cost, u.hit_points)
        };
        assert_eq!(profile("INF"), (1, 2, 1, 3, 1));
        assert_eq!(profile("ARM"), (3, 2, 2, 5, 1));
        assert_eq!(profile("FTR"), (3, 4, 4, 12, 1));
        assert_eq!(profile("BMB"), (4, 1, 6, 15, 1));
        assert_eq!(profile("TRN"), (0, 1, 2, 8, 1));
        assert_eq!(profile("SUB"), (2, 2, 2, 8, 1));
        assert_eq!(profile("AC"), (1, 3, 2, 18, 1));
        assert_eq!(profile("BB"), (4, 4, 2, 24, 1));
        assert!(classic.id("HARM").is_err(), "heavy armour is Cut-Throat's");
    }

    #[test]
    fn cut_throat_adds_heavy_armour_and_the_two_hit_battleship() {
        let ct = Catalogue::builtin("cutthroat").expect("cutthroat");
        let harm = ct.get(ct.id("HARM").expect("HARM"));
        assert_eq!((harm.attack, harm.defense, harm.cost), (4, 4, 8));
        let bb = ct.get(ct.id("BB").expect("BB"));
        assert_eq!((bb.hit_points, bb.damaged_defense), (2, Some(3)));
        assert_eq!(
            ct.get(ct.id("INF").expect("INF")).defense,
            2,
            "inherited from classic"
        );
    }

    #[test]
    fn aap_has_the_three_hit_battleship_and_heavy_weapons() {
        let aap = Catalogue::builtin("aap-historical").expect("aap");
        assert_eq!(aap.get(aap.id("BB3").expect("BB3")).hit_points, 3);
        assert!(aap
            .get(aap.id("ART").expect("ART"))
            .has(Ability::HwvInflicts));
        assert!(aap.get(aap.id("SUB").expect("SUB")).has(Ability::HwvExempt));
    }

    #[test]
    fn an_unknown_ruleset_or_unit_is_named() {
        let err = Catalogue::builtin("risk").expect_err("unknown");
        assert!(err.to_string().contains("risk") && err.to_string().contains("classic"));
        let classic = Catalogue::builtin("classic").expect("classic");
        assert!(classic
            .id("DRAGON")
            .expect_err("unknown")
            .to_string()
            .contains("DRAGON"));
    }
}
