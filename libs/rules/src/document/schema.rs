//! The document format's types: what a ruleset document may say, field by field, and the
//! problem report a parse gives.

use super::*;

/// The format version this build reads and writes.
pub const FORMAT: u32 = 1;

/// Enhanced Realism's alternate turn order (Section VIII, revised 09-20-98).
pub const ALTERNATE_TURN_ORDER: [Power; 5] = [
    Power::UnitedStates,
    Power::Germany,
    Power::Russia,
    Power::Japan,
    Power::UnitedKingdom,
];

/// A ruleset, as data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RulesetDocument {
    /// The format version: 1.
    pub format: u32,
    /// Lower-case letters, digits and dashes, 2 to 40 characters, starting with a letter.
    pub id: String,
    pub name: String,
    /// The documents the ruleset comes from.
    #[serde(default)]
    pub sources: Vec<String>,
    /// The powers in their order of play; a game seats one player at each.
    pub turn_order: Vec<Power>,
    /// The unit types, by code (`INF`, `ARM` ...).
    pub units: BTreeMap<String, UnitDocument>,
    /// The board; `null` when a director must upload it (AAP Historical ships none).
    #[serde(default)]
    pub board: Option<BoardDocument>,
    /// Who holds what, with which units, at the start.
    #[serde(default)]
    pub setup: Vec<PlaceDocument>,
    pub income: IncomeRule,
    pub production: ProductionRule,
    /// Tables rolled on during play (the "War" rules' charts).
    #[serde(default)]
    pub dice_tables: Vec<DiceTable>,
    pub victory: VictoryRule,
    pub scoring: ScoringRule,
    /// The options a game with this ruleset may be created with.
    #[serde(default)]
    pub options: Vec<GameOption>,
    /// Rules beyond the Classic engine's, as data.
    #[serde(default, skip_serializing_if = "SpecialRules::is_empty")]
    pub special_rules: SpecialRules,
}

/// A variant's departures from the Classic engine, each as data.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SpecialRules {
    /// The first round with combat (Cut-Throat: 2; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub combat_from_round: Option<u32>,
    /// IAAPA's land default: from this round on, an attacker who gave no combat order
    /// fights Save Air At All Costs (Cut-Throat: 2); absent, Save Air throughout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saac_from_round: Option<u32>,
    /// Part 13, step 5: the defender's hits are taken column by column from the 1s up,
    /// each column's submarine hits only on the units they may hit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub defender_hits_by_column: bool,
    /// IAAPA sub rule: "After any round where only aircraft face only subs, the battle
    /// ends and surviving subs withdraw to an adjacent friendly or empty sea zone."
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub subs_withdraw_from_aircraft: bool,
    /// AAP's Heavy Weapons Fire Vulnerability in every battle.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub heavy_weapons: bool,
    /// Powers whose units never count towards a group's size for heavy weapons when they
    /// attack (AAP 4.1: "Units that don't count towards HWV include: Subs, FTRs, BMRs, AA,
    /// and CCP"). A defending CCP group never counts in any revision.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heavy_weapons_uncounted: Vec<Power>,
    /// Free units placed at the end of a power's turn in a round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reinforcements: Vec<ReinforcementDocument>,
    /// Printed values that differ from the board's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub printed_values: Vec<PrintedValue>,
    /// Territories whose value grows each round: `base + per_round * round`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub growing_values: Vec<GrowingValue>,
    /// Sea zones that pay their power income while no enemy ship or aircraft is in them
    /// (the Pacific board's convoy centres).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub convoy_centres: Vec<ConvoyCentre>,
    /// Complexes that place at most `units` a turn, whoever holds them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limited_complexes: Vec<LimitedComplex>,
    /// Powers that may not build industrial complexes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_new_complexes: Vec<Power>,
    /// Places where, in round 1, only some unit types may move (AAP 1h: only fighters and
    /// submarines leave SZ 20 on Japan's first turn).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_in_round_one: Vec<HeldInPlace>,
    /// Submarines do not stop enemy ships passing through their sea zone (AAP 7.1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub submarines_do_not_block: bool,
    /// Alliances that stand the whole game (AAP: the Allies against Japan): partners are
    /// never at war, may enter, rail and ferry with each other, and no agreement makes or
    /// breaks them. Everyone else plays Cut-Throat's diplomacy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alliances: Vec<Vec<Power>>,
    /// Pairs of one alliance that are not bound for the whole game: they start under an
    /// ordinary agreement (every permission granted) that either may break, which is a
    /// declaration of war, and may make again (AAP 3: the KMT and the CCP "can choose to
    /// fight each other").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rivals: Vec<[Power; 2]>,
    /// The alliances are the game's sides: no agreement crosses one, and a power in no
    /// alliance makes none (AAP: Japan against the Allies).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sides: bool,
    /// A damaged unit is whole again at the end of its owner's turn, for nothing (the
    /// Pacific board's two-hit battleship; TripleA's "Units Repair Hits End Turn").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repair_at_turn_end: bool,
    /// Cut-Throat's own rules the engine plays everywhere unless a ruleset leaves them out
    /// (AAP has neither war loans nor rail).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub without: Vec<CutThroatRule>,
    /// The board's land by continent (the War rules' Strategic Bombers strike "any zone on
    /// the same continent").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub continents: Vec<Continent>,
    /// Complexes whose holder surrenders when a bombing raid takes all of its money (AAP:
    /// Japan and the US mainland, "nuked").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub surrender_when_bombed_out: Vec<String>,
    /// Powers that raise free infantry at the start of each turn instead of collecting
    /// money (AAP's Chinese factions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recruits: Vec<RecruitsDocument>,
    /// Powers whose forces may refuse battle and blend into the population (AAP's CCP),
    /// unless a suppression roll of 1 pins them down that turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub guerrillas: Vec<Power>,
    /// Enhanced Realism, VII: "At the beginning of a turn, a player multiplies his
    /// originally-owned territories currently in his possession by the appropriate
    /// scenario multiplier." Income by scenario multipliers is collected at the beginning
    /// of each of the power's turns, round 1's included (as its repairs phase ends, before
    /// weapons development and purchase), instead of at the end. Absent: at the end, as
    /// Cut-Throat's Enhanced Realism games before its revision 5 played.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub scenario_income_at_turn_start: bool,
    /// Each player's bases are rolled on a dice table instead of set up (the "War" rules:
    /// three rolls on "start zone"). Not played by this engine yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_zones: Option<StartZones>,
    /// Sea zones paired with a land territory (the Pacific board's convoy routes): while a
    /// power at war with the land's holder has captured the route, the land pays its holder
    /// nothing. Played with `convoy_capture`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub convoy_routes: Vec<ConvoyRoute>,
    /// Convoy centres and routes are captured and liberated (AAP 6, 8.1): a power at war
    /// with a zone's rightful holder captures it with a warship (a submarine too) or a
    /// combat air patrol there at the end of its battles, and a friend of the holder
    /// liberates it with a surface warship or a patrol once no enemy submarine is left. A
    /// captured centre pays its captor. Without it, a centre pays its power while no enemy
    /// unit is in the zone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub convoy_capture: bool,
    /// Submarines cannot be attacked (AAP 7.1) unless they block the attacker by order, sit
    /// in a convoy centre or route, or share their zone with a destroyer of the attacker's
    /// at the start of the attacker's turn. Unattackable submarines sit battles out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub submarines_hidden: bool,
    /// Fighters and bombers may fly a combat air patrol (AAP 8) over their place or a
    /// neighbouring one, defending it until their owner's next turn.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub combat_air_patrol: bool,
    /// Powers that may lend units to another for its turns and take them back at any time
    /// (AAP 3.5: the US to the KMT).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lending: Vec<Lending>,
    /// Places some powers must keep infantry in (AAP 3.2: Shansi).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub garrisons: Vec<Garrison>,
    /// A power's kamikaze tokens (the Pacific board's; AAP 1i: Japan's twelve), spent on
    /// an enemy's warships in the kamikaze zones once its combat move is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kamikaze_tokens: Option<KamikazeTokens>,
    /// Air and naval bases (the Pacific board's): one space more for aircraft leaving a
    /// friendly air base, and for ships leaving a sea zone next to a friendly naval base,
    /// where they stood when the turn began. A base serves whoever holds its land.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<Base>,
}

/// Kamikaze tokens: `power` starts with `tokens`; after the combat move of a power at war
/// with it, and before that power's first battle, it may spend any of them at once on that
/// power's ships of the `targets` types in the `zones`, each token one die against the
/// ship it names, hitting on `attack` or less. Spent whether they hit or not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct KamikazeTokens {
    pub power: Power,
    pub tokens: u32,
    /// The kamikaze zones: sea zones.
    pub zones: Vec<String>,
    /// 1 to 6.
    pub attack: u8,
    /// Unit codes of the ships a token may strike.
    pub targets: Vec<String>,
}

/// A base on a land territory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Base {
    pub territory: String,
    pub kind: BaseKind,
}

/// An air base speeds aircraft; a naval base, ships in the sea zones next to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum BaseKind {
    Air,
    Naval,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConvoyRoute {
    pub sea_zone: String,
    pub territory: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Lending {
    pub from: Power,
    pub to: Power,
}

/// A place `powers` must keep at least one infantry in, by moving none of their last out,
/// unless a power at war with them holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Garrison {
    pub territory: String,
    pub powers: Vec<Power>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StartZones {
    /// The name of one of `dice_tables`.
    pub table: String,
    pub rolls: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RecruitsDocument {
    pub power: Power,
    /// Infantry every turn while it has units on the board.
    #[serde(default)]
    pub per_turn: u32,
    /// Infantry per IPC area it holds with no other power's units in it.
    #[serde(default)]
    pub per_sole_area: u32,
    /// One more while every one of these is held by one of `held_by` (the Burma Road).
    #[serde(default)]
    pub for_holding: Vec<String>,
    #[serde(default)]
    pub held_by: Vec<Power>,
    /// Where they are raised; none: where it has the most units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place_at: Option<String>,
    /// The player places them, in the placement phase, in any land where it has a unit
    /// (AAP 1.1a: "to be placed any province that they have a unit in").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub placed_by_player: bool,
}

impl SpecialRules {
    pub fn is_empty(&self) -> bool {
        *self == SpecialRules::default()
    }

    /// Keeps the convoy routes, bases and kamikaze zones whose places `board` has: for
    /// moving a document onto a smaller board (an upload names every place its board
    /// lacks).
    pub fn keep_places_on(&mut self, board: &crate::board::BoardDocument) {
        self.convoy_routes
            .retain(|r| board.has_place(&r.sea_zone) && board.has_place(&r.territory));
        self.bases.retain(|b| board.has_place(&b.territory));
        if let Some(kamikaze) = &mut self.kamikaze_tokens {
            kamikaze.zones.retain(|z| board.has_place(z));
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReinforcementDocument {
    pub power: Power,
    pub round: u32,
    pub territory: String,
    /// As `1 TRN, 1 SUB`.
    pub units: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PrintedValue {
    pub territory: String,
    pub ipc: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConvoyCentre {
    pub sea_zone: String,
    pub ipc: u32,
    pub power: Power,
    /// Paid at the power's collections only, not into its money at the start (AAP: the
    /// seed's "At start" gives the UK India's 15 and Australia's 20 and no convoy).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub income_only: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GrowingValue {
    pub territory: String,
    pub base: u32,
    pub per_round: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LimitedComplex {
    pub territory: String,
    pub units: u32,
}

/// A Cut-Throat rule a ruleset may leave out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum CutThroatRule {
    /// War loans from the Swiss Bank.
    WarLoans,
    /// Infantry, AA guns and complexes by rail.
    Rail,
    /// Bombers carrying infantry (and armour) to land.
    Paratroopers,
    /// Japan's fighter diving onto a ship, once a turn.
    KamikazeRuns,
    /// The 2 hit battleship's damage: no attacking until repaired beside the owner's
    /// complex for 5 IPC and a die. (Its defence once damaged is its unit's
    /// `damaged_defense`.)
    BattleshipRepairs,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Continent {
    pub name: String,
    pub territories: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HeldInPlace {
    pub territory: String,
    /// Unit codes that may still move from there.
    pub may_move: Vec<String>,
}

/// What a power collects at the end of its turn (scenario multipliers: at its beginning,
/// where `special_rules.scenario_income_at_turn_start` says so).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum IncomeRule {
    /// The printed values of the territories it holds.
    PrintedValues,
    /// Enhanced Realism: originally owned territories held, times the scenario's
    /// multiplier, plus the printed value of captured ones.
    ScenarioMultipliers {
        scenario: Scenario,
        /// The USA's multiplier starts at 1 and grows by one a round.
        #[serde(default)]
        usa_phased_in: bool,
    },
}

/// How many units a complex may place in a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ProductionRule {
    /// An original complex without limit; any other up to its territory's value in units.
    ClassicComplexes,
    /// Enhanced Realism: IPC per unit type, the territory's value times the multiplier
    /// (captured: the printed value), plus expansions. Needs `scenario_multipliers` income.
    IndustrialCapacity,
}

/// A table rolled on with `dice` six-sided dice: each row covers totals `from..=to`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiceTable {
    pub name: String,
    /// 1 to 3.
    pub dice: u8,
    /// In order, without gaps or overlaps, covering every total the dice can show.
    pub rows: Vec<TableRow>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TableRow {
    pub from: u8,
    pub to: u8,
    pub result: String,
}

/// How a game ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum VictoryRule {
    /// The director ends the game (Cut-Throat: at the time limit).
    DirectorEnds,
    /// `power` wins by holding its capital to the end of `round` (AAP: Japan, 12), or by
    /// taking `or_take`'s capital; its enemies win if it falls first.
    SurviveToRound {
        power: Power,
        round: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        or_take: Option<Power>,
    },
}

/// How places and ranking points come from a finished game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ScoringRule {
    /// Places by percent IPC gain; `points` by place, one per power.
    PercentIpcGain { points: Vec<i64> },
    /// Places by zone points; the last gets the "Dan Quayle reward".
    ZonePoints { points: Vec<i64> },
    /// The surviving side places first.
    Survival { points: Vec<i64> },
}

impl ScoringRule {
    pub fn points(&self) -> &[i64] {
        match self {
            ScoringRule::PercentIpcGain { points }
            | ScoringRule::ZonePoints { points }
            | ScoringRule::Survival { points } => points,
        }
    }
}

/// An option a game may be created with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum GameOption {
    /// Enhanced Realism, Section VII: scenario income and industrial capacity.
    EnhancedRealism,
    /// USA, Germany, USSR, Japan, UK.
    AlternateTurnOrder,
}

impl GameOption {
    pub fn as_str(self) -> &'static str {
        match self {
            GameOption::EnhancedRealism => "enhanced_realism",
            GameOption::AlternateTurnOrder => "alternate_turn_order",
        }
    }
}

/// The options a game is created with (those its ruleset offers).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GameOptions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enhanced_realism: Option<EnhancedRealism>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub alternate_turn_order: bool,
    /// The round the survivor must last through, when the players bid it (AAP, 9.1: the
    /// lowest bid plays Japan and sets its round).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub survive_to_round: Option<u32>,
}

impl GameOptions {
    pub fn is_empty(&self) -> bool {
        *self == GameOptions::default()
    }
}

/// Enhanced Realism's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EnhancedRealism {
    pub scenario: Scenario,
    #[serde(default)]
    pub usa_phased_in: bool,
}

/// One thing wrong with a document, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DocumentProblem {
    /// A JSON Pointer into the document (`/units/INF/cost`); empty for the whole.
    pub path: String,
    pub message: String,
}

pub(crate) fn problem(path: impl Into<String>, message: impl Into<String>) -> DocumentProblem {
    DocumentProblem {
        path: path.into(),
        message: message.into(),
    }
}
