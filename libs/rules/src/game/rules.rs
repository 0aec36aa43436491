//! What the rules need to know besides the state: the board, the unit catalogue, the
//! economy and a ruleset's special rules, resolved against its board.

use super::*;

/// What the rules need to know besides the state.
#[derive(Debug, Clone, Copy)]
pub struct Rules<'a> {
    pub board: &'a Board,
    pub catalogue: &'a Catalogue,
    pub economy: Economy,
    pub special: &'a Special,
}

/// A ruleset's special rules (its document's `special_rules` and survival victory),
/// resolved against its board and catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Special {
    pub combat_from_round: u32,
    /// Battles: SAAC from this round when the attacker gave no combat order.
    pub saac_from_round: Option<u32>,
    /// Battles: the defender's hits taken column by column (Part 13, step 5).
    pub defender_hits_by_column: bool,
    /// Battles: submarines that face only aircraft withdraw to a neighbouring zone.
    pub subs_withdraw_from_aircraft: bool,
    pub heavy_weapons: bool,
    /// Battles: an attack by one of these powers never counts for heavy weapons.
    pub heavy_weapons_uncounted: Vec<Power>,
    pub reinforcements: Vec<Arrival>,
    /// (territory, base, per round): the value during round `r` is `base + per_round * r`.
    pub growing_values: Vec<(TerritoryId, u32, u32)>,
    /// (sea zone, value, power): paid to the power while no enemy is in the zone.
    pub convoy_centres: Vec<(TerritoryId, u32, Power)>,
    /// Convoy centres left out of their power's money at the start.
    pub convoy_income_only: BTreeSet<TerritoryId>,
    pub limited_complexes: BTreeMap<TerritoryId, u32>,
    pub no_new_complexes: BTreeSet<Power>,
    pub surrender_when_bombed_out: BTreeSet<TerritoryId>,
    pub recruits: Vec<Recruits>,
    pub guerrillas: BTreeSet<Power>,
    /// Places by the printed values held at the end, not by percent gain.
    pub zone_points: bool,
    pub survival: Option<Survival>,
    /// The "War" game flow, with its start-zone chart.
    pub war: Option<home_cooked::StartChart>,
    /// Places where, in round 1, only these unit types may move.
    pub held_in_round_one: BTreeMap<TerritoryId, BTreeSet<UnitTypeId>>,
    pub submarines_do_not_block: bool,
    /// Partners for the whole game (by [`diplomacy::partners`]).
    pub standing_alliances: BTreeSet<(Power, Power)>,
    /// Partners of an alliance under an ordinary agreement at the start, which either
    /// may break (by [`diplomacy::partners`]).
    pub rivals: BTreeSet<(Power, Power)>,
    /// The sides, by each allied power's alliance, when no agreement may cross them
    /// (`None`: anyone may agree with anyone).
    pub side_of: Option<BTreeMap<Power, usize>>,
    /// Damaged units are repaired at the end of their owner's turn.
    pub repair_at_turn_end: bool,
    /// Each land territory's continent (by its index in the document), where given.
    pub continent_of: BTreeMap<TerritoryId, usize>,
    /// Cut-Throat rules this ruleset leaves out.
    pub without: BTreeSet<crate::document::CutThroatRule>,
    /// (sea zone, land): the land pays its holder nothing while an enemy holds the route.
    pub convoy_routes: Vec<(TerritoryId, TerritoryId)>,
    /// Convoy centres and routes are captured and liberated (AAP 6, 8.1).
    pub convoy_capture: bool,
    /// Submarines are attacked only where AAP 7.1 allows.
    pub submarines_hidden: bool,
    /// Fighters and bombers may fly combat air patrols (AAP 8).
    pub combat_air_patrol: bool,
    /// (lender, borrower): units lent for the borrower's turns (AAP 3.5).
    pub lending: Vec<(Power, Power)>,
    /// Places these powers keep infantry in (AAP 3.2).
    pub garrisons: Vec<(TerritoryId, Vec<Power>)>,
    /// Kamikaze tokens (the Pacific board's; AAP 1i).
    pub kamikaze: Option<Kamikaze>,
    /// Land with an air base: aircraft leaving it, friendly, fly one space more.
    pub air_bases: BTreeSet<TerritoryId>,
    /// Land with a naval base: ships leaving a sea zone next to it, friendly, sail one
    /// space more.
    pub naval_bases: BTreeSet<TerritoryId>,
}

/// A power's kamikaze tokens, resolved: spent on an enemy's ships of `targets` in `zones`
/// after its combat move, one die each, hitting on `attack` or less.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kamikaze {
    pub power: Power,
    pub tokens: u32,
    pub zones: BTreeSet<TerritoryId>,
    pub attack: u8,
    pub targets: BTreeSet<UnitTypeId>,
}

/// Free infantry a power raises at the start of its turn, instead of collecting money.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recruits {
    pub power: Power,
    pub per_turn: u32,
    pub per_sole_area: u32,
    pub for_holding: Vec<TerritoryId>,
    pub held_by: BTreeSet<Power>,
    pub place_at: Option<TerritoryId>,
    /// The player places them where it has a unit, in the placement phase.
    pub placed_by_player: bool,
}

/// Free units for `power` at the end of its turn in `round`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrival {
    pub power: Power,
    pub round: u32,
    pub territory: TerritoryId,
    pub units: Vec<(UnitTypeId, u32)>,
}

/// `power` wins by holding its capital to the end of `round`, or by taking `or_take`'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Survival {
    pub power: Power,
    pub round: u32,
    pub or_take: Option<Power>,
}

impl Special {
    /// Cut-Throat's: no combat in the first round, nothing else.
    pub const CUT_THROAT: Special = Special {
        combat_from_round: 2,
        saac_from_round: None,
        defender_hits_by_column: false,
        subs_withdraw_from_aircraft: false,
        heavy_weapons: false,
        heavy_weapons_uncounted: Vec::new(),
        reinforcements: Vec::new(),
        growing_values: Vec::new(),
        convoy_centres: Vec::new(),
        convoy_income_only: BTreeSet::new(),
        limited_complexes: BTreeMap::new(),
        no_new_complexes: BTreeSet::new(),
        surrender_when_bombed_out: BTreeSet::new(),
        recruits: Vec::new(),
        guerrillas: BTreeSet::new(),
        zone_points: false,
        survival: None,
        war: None,
        held_in_round_one: BTreeMap::new(),
        submarines_do_not_block: false,
        standing_alliances: BTreeSet::new(),
        rivals: BTreeSet::new(),
        side_of: None,
        repair_at_turn_end: false,
        continent_of: BTreeMap::new(),
        without: BTreeSet::new(),
        convoy_routes: Vec::new(),
        convoy_capture: false,
        submarines_hidden: false,
        combat_air_patrol: false,
        lending: Vec::new(),
        garrisons: Vec::new(),
        kamikaze: None,
        air_bases: BTreeSet::new(),
        naval_bases: BTreeSet::new(),
    };
}

impl Special {
    /// Whether `power`'s player places its recruits (AAP 1.1a) instead of producing.
    pub fn places_recruits(&self, power: Power) -> bool {
        self.recruits
            .iter()
            .any(|r| r.power == power && r.placed_by_player)
    }

    /// Whether a sea zone is a convoy centre or route of the ruleset's.
    pub fn is_convoy_zone(&self, zone: TerritoryId) -> bool {
        self.convoy_centres.iter().any(|(z, _, _)| *z == zone)
            || self.convoy_routes.iter().any(|(z, _)| *z == zone)
    }
}

/// Cut-Throat's special rules, for code that plays Cut-Throat without a ruleset.
pub static CUT_THROAT_SPECIAL: Special = Special::CUT_THROAT;

/// How income and production work in a ruleset (its document's `income` and `production`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Economy {
    pub income: crate::document::IncomeRule,
    pub production: crate::document::ProductionRule,
    /// Income is collected at the beginning of the power's turn (as its repairs phase
    /// ends), not at its end: Enhanced Realism's scenario income where the document says
    /// so (`special_rules.scenario_income_at_turn_start`).
    pub collected_at_turn_start: bool,
}

impl Economy {
    /// Classic: printed values, and original complexes without limit.
    pub const CLASSIC: Economy = Economy {
        income: crate::document::IncomeRule::PrintedValues,
        production: crate::document::ProductionRule::ClassicComplexes,
        collected_at_turn_start: false,
    };
}
