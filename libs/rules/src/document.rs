//! Rulesets as data: the one documented, versioned format (`format: 1`) that the built-in
//! rulesets and every uploaded one share. A document names its units, board, setup, turn
//! order, income and production rules, dice tables, victory and scoring, and the options a
//! game may be created with.
//!
//! [`RulesetDocument::parse`] reads an upload and reports every problem it finds, each with
//! its place in the document as a JSON Pointer (RFC 6901), not just the first: one broken
//! unit does not hide a broken connection. A document's [`hash`](RulesetDocument::hash)
//! is what a game records, so a later revision never changes an old game.

use std::collections::{BTreeMap, BTreeSet};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::board::{normalise, BoardDocument, Power, TerritoryKind};
use crate::capacity::Scenario;
use crate::setup::PlaceDocument;
use crate::units::{Ability, Domain, UnitDocument};

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
    /// Each player's bases are rolled on a dice table instead of set up (the "War" rules:
    /// three rolls on "start zone"). Not played by this engine yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_zones: Option<StartZones>,
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
}

impl SpecialRules {
    pub fn is_empty(&self) -> bool {
        *self == SpecialRules::default()
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

/// What a power collects at the end of its turn.
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

fn problem(path: impl Into<String>, message: impl Into<String>) -> DocumentProblem {
    DocumentProblem {
        path: path.into(),
        message: message.into(),
    }
}

/// Escapes a key for a JSON Pointer.
fn pointer_key(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Reads a document part by part, keeping every problem.
#[derive(Debug, Default)]
struct Reader {
    problems: Vec<DocumentProblem>,
}

impl Reader {
    fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(problem(path, message));
    }

    /// One value of type `T`; a problem at the exact place inside it if it is not one.
    fn value<T: DeserializeOwned>(&mut self, value: &Value, path: &str) -> Option<T> {
        match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(parsed) => Some(parsed),
            Err(error) => {
                let mut at = path.to_owned();
                for segment in error.path().iter() {
                    match segment {
                        serde_path_to_error::Segment::Seq { index } => {
                            at.push_str(&format!("/{index}"))
                        }
                        serde_path_to_error::Segment::Map { key } => {
                            at.push('/');
                            at.push_str(&pointer_key(key));
                        }
                        serde_path_to_error::Segment::Enum { .. }
                        | serde_path_to_error::Segment::Unknown => {}
                    }
                }
                self.push(at, error.into_inner().to_string());
                None
            }
        }
    }

    /// An array, element by element: a bad element does not hide the next.
    fn list<T: DeserializeOwned>(&mut self, value: &Value, path: &str) -> Option<Vec<T>> {
        let Some(items) = value.as_array() else {
            self.push(path, "expected an array");
            return None;
        };
        let parsed: Vec<Option<T>> = items
            .iter()
            .enumerate()
            .map(|(i, item)| self.value(item, &format!("{path}/{i}")))
            .collect();
        parsed.into_iter().collect()
    }

    /// An object of `T`s by key, entry by entry: the entries that read, and whether all did.
    fn map<T: DeserializeOwned>(
        &mut self,
        value: &Value,
        path: &str,
    ) -> (BTreeMap<String, T>, bool) {
        let Some(entries) = value.as_object() else {
            self.push(path, "expected an object");
            return (BTreeMap::new(), false);
        };
        let mut complete = true;
        let mut parsed = BTreeMap::new();
        for (key, item) in entries {
            match self.value(item, &format!("{path}/{}", pointer_key(key))) {
                Some(v) => {
                    parsed.insert(key.clone(), v);
                }
                None => complete = false,
            }
        }
        (parsed, complete)
    }

    /// An object's fields: unknown ones and missing required ones are problems.
    fn fields<'v>(
        &mut self,
        value: &'v Value,
        path: &str,
        required: &[&str],
        optional: &[&str],
    ) -> Option<&'v serde_json::Map<String, Value>> {
        let Some(object) = value.as_object() else {
            self.push(path, "expected an object");
            return None;
        };
        for key in object.keys() {
            if !required.contains(&key.as_str()) && !optional.contains(&key.as_str()) {
                let known: Vec<&str> = required.iter().chain(optional).copied().collect();
                self.push(
                    format!("{path}/{}", pointer_key(key)),
                    format!("unknown field; known fields: {}", known.join(", ")),
                );
            }
        }
        for key in required {
            if !object.contains_key(*key) {
                self.push(path, format!("missing field {key:?}"));
            }
        }
        Some(object)
    }
}

const REQUIRED: [&str; 9] = [
    "format",
    "id",
    "name",
    "turn_order",
    "units",
    "income",
    "production",
    "victory",
    "scoring",
];
const OPTIONAL: [&str; 6] = [
    "sources",
    "board",
    "setup",
    "dice_tables",
    "options",
    "special_rules",
];

impl RulesetDocument {
    /// Reads a document, reporting every problem with its path.
    pub fn parse(value: &Value) -> Result<RulesetDocument, Vec<DocumentProblem>> {
        let mut reader = Reader::default();
        let Some(fields) = reader.fields(value, "", &REQUIRED, &OPTIONAL) else {
            return Err(reader.problems);
        };
        let part = |name: &str| fields.get(name);
        let null = Value::Null;
        let format = part("format").and_then(|v| reader.value::<u32>(v, "/format"));
        let id = part("id").and_then(|v| reader.value::<String>(v, "/id"));
        let name = part("name").and_then(|v| reader.value::<String>(v, "/name"));
        let sources = reader.value::<Vec<String>>(
            part("sources").unwrap_or(&Value::Array(Vec::new())),
            "/sources",
        );
        let turn_order = part("turn_order").and_then(|v| reader.list::<Power>(v, "/turn_order"));
        let (units, units_complete) = match part("units") {
            Some(v) => reader.map::<UnitDocument>(v, "/units"),
            None => (BTreeMap::new(), false),
        };
        // Setup checks its unit codes against every code given, even one whose profile
        // did not read: that is one mistake, reported once.
        let unit_codes: BTreeSet<&str> = part("units")
            .and_then(Value::as_object)
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let board = match part("board").unwrap_or(&null) {
            Value::Null => Some(None),
            board => read_board(&mut reader, board).map(Some),
        };
        let setup = match part("setup") {
            None => Some(Vec::new()),
            Some(v) => reader.list::<PlaceDocument>(v, "/setup"),
        };
        let income = part("income").and_then(|v| reader.value::<IncomeRule>(v, "/income"));
        let production =
            part("production").and_then(|v| reader.value::<ProductionRule>(v, "/production"));
        let dice_tables = match part("dice_tables") {
            None => Some(Vec::new()),
            Some(v) => reader.list::<DiceTable>(v, "/dice_tables"),
        };
        let victory = part("victory").and_then(|v| reader.value::<VictoryRule>(v, "/victory"));
        let scoring = part("scoring").and_then(|v| reader.value::<ScoringRule>(v, "/scoring"));
        let options = match part("options") {
            None => Some(Vec::new()),
            Some(v) => reader.list::<GameOption>(v, "/options"),
        };
        let special_rules = match part("special_rules") {
            None => Some(SpecialRules::default()),
            Some(v) => reader.value::<SpecialRules>(v, "/special_rules"),
        };
        let parts = Parts {
            format,
            id: id.as_deref(),
            name: name.as_deref(),
            turn_order: turn_order.as_deref(),
            units: part("units").map(|_| &units),
            unit_codes: part("units").map(|_| &unit_codes),
            board: board.as_ref(),
            setup: setup.as_deref(),
            income: income.as_ref(),
            production: production.as_ref(),
            dice_tables: dice_tables.as_deref(),
            victory: victory.as_ref(),
            scoring: scoring.as_ref(),
            options: options.as_deref(),
            special_rules: special_rules.as_ref(),
        };
        parts.check(&mut reader);
        match (
            format,
            id,
            name,
            sources,
            turn_order,
            units_complete,
            board,
            setup,
            income,
            production,
            dice_tables,
            victory,
            scoring,
            options,
            special_rules,
        ) {
            (
                Some(format),
                Some(id),
                Some(name),
                Some(sources),
                Some(turn_order),
                true,
                Some(board),
                Some(setup),
                Some(income),
                Some(production),
                Some(dice_tables),
                Some(victory),
                Some(scoring),
                Some(options),
                Some(special_rules),
            ) if reader.problems.is_empty() => Ok(RulesetDocument {
                format,
                id,
                name,
                sources,
                turn_order,
                units,
                board,
                setup,
                income,
                production,
                dice_tables,
                victory,
                scoring,
                options,
                special_rules,
            }),
            _ => Err(reader.problems),
        }
    }

    /// Checks a document built in code (a built-in, or one with options applied).
    pub fn validate(&self) -> Result<(), Vec<DocumentProblem>> {
        let value = serde_json::to_value(self).map_err(|e| vec![problem("", e.to_string())])?;
        Self::parse(&value).map(drop)
    }

    /// SHA-256 of the document's JSON (fields in declared order, maps by key), hex: what
    /// a game records.
    pub fn hash(&self) -> String {
        let bytes = serde_json::to_vec(self).unwrap_or_default();
        hex::encode(Sha256::digest(bytes))
    }

    /// The document a game with `options` plays: the options applied, each checked
    /// against those the ruleset offers.
    pub fn with_options(
        &self,
        options: &GameOptions,
    ) -> Result<RulesetDocument, Vec<DocumentProblem>> {
        let mut problems = Vec::new();
        let mut document = self.clone();
        let offered = |option: GameOption| self.options.contains(&option);
        if let Some(er) = options.enhanced_realism {
            if offered(GameOption::EnhancedRealism) {
                document.income = IncomeRule::ScenarioMultipliers {
                    scenario: er.scenario,
                    usa_phased_in: er.usa_phased_in,
                };
                document.production = ProductionRule::IndustrialCapacity;
                document
                    .options
                    .retain(|o| *o != GameOption::EnhancedRealism);
                // Enhanced Realism, II: artillery, 4 IPC, 2/2, lifting one infantry each.
                if !document
                    .units
                    .values()
                    .any(|u| u.abilities.contains(&Ability::SupportsInfantry))
                {
                    document.units.insert(
                        "ART".to_owned(),
                        UnitDocument {
                            name: "artillery".to_owned(),
                            cost: 4,
                            attack: 2,
                            defense: 2,
                            movement: 1,
                            hit_points: 1,
                            damaged_defense: None,
                            domain: Domain::Land,
                            transport_space: 2,
                            carries: 0,
                            abilities: vec![Ability::SupportsInfantry],
                        },
                    );
                }
            } else {
                problems.push(not_offered(self, GameOption::EnhancedRealism));
            }
        }
        if options.alternate_turn_order {
            if offered(GameOption::AlternateTurnOrder) {
                document.turn_order = ALTERNATE_TURN_ORDER.to_vec();
                document
                    .options
                    .retain(|o| *o != GameOption::AlternateTurnOrder);
            } else {
                problems.push(not_offered(self, GameOption::AlternateTurnOrder));
            }
        }
        if let Some(bid) = options.survive_to_round {
            match &mut document.victory {
                VictoryRule::SurviveToRound { round, .. } if bid > 0 => *round = bid,
                VictoryRule::SurviveToRound { .. } => problems.push(problem(
                    "/options/survive_to_round",
                    "a bid of 1 turn or more",
                )),
                VictoryRule::DirectorEnds => problems.push(problem(
                    "/options/survive_to_round",
                    format!("{} has no survival victory to bid on", self.id),
                )),
            }
        }
        if problems.is_empty() {
            Ok(document)
        } else {
            Err(problems)
        }
    }
}

fn not_offered(document: &RulesetDocument, option: GameOption) -> DocumentProblem {
    let offered: Vec<&str> = document.options.iter().map(|o| o.as_str()).collect();
    problem(
        format!("/options/{}", option.as_str()),
        format!(
            "{} offers no option {}; it offers: {}",
            document.id,
            option.as_str(),
            if offered.is_empty() {
                "none".to_owned()
            } else {
                offered.join(", ")
            }
        ),
    )
}

fn read_board(reader: &mut Reader, value: &Value) -> Option<BoardDocument> {
    let fields = reader.fields(
        value,
        "/board",
        &["territories", "connections"],
        &["canals"],
    )?;
    let territories = fields
        .get("territories")
        .and_then(|v| reader.list(v, "/board/territories"));
    let connections = fields
        .get("connections")
        .and_then(|v| reader.list(v, "/board/connections"));
    let canals = match fields.get("canals") {
        None => Some(Vec::new()),
        Some(v) => reader.list(v, "/board/canals"),
    };
    Some(BoardDocument {
        territories: territories?,
        connections: connections?,
        canals: canals?,
    })
}

/// The parts of a document that parsed: each check runs on what it needs.
struct Parts<'a> {
    format: Option<u32>,
    id: Option<&'a str>,
    name: Option<&'a str>,
    turn_order: Option<&'a [Power]>,
    /// The unit profiles that read.
    units: Option<&'a BTreeMap<String, UnitDocument>>,
    /// Every unit code given.
    unit_codes: Option<&'a BTreeSet<&'a str>>,
    board: Option<&'a Option<BoardDocument>>,
    setup: Option<&'a [PlaceDocument]>,
    income: Option<&'a IncomeRule>,
    production: Option<&'a ProductionRule>,
    dice_tables: Option<&'a [DiceTable]>,
    victory: Option<&'a VictoryRule>,
    scoring: Option<&'a ScoringRule>,
    options: Option<&'a [GameOption]>,
    special_rules: Option<&'a SpecialRules>,
}

fn is_classic_five(turn_order: &[Power]) -> bool {
    let mut sorted = turn_order.to_vec();
    sorted.sort();
    sorted == Power::CLASSIC
}

impl Parts<'_> {
    fn check(&self, r: &mut Reader) {
        if let Some(format) = self.format.filter(|f| *f != FORMAT) {
            r.push(
                "/format",
                format!("format {format} is not known; this server reads format {FORMAT}"),
            );
        }
        if let Some(id) = self.id {
            let good = (2..=40).contains(&id.len())
                && id.starts_with(|c: char| c.is_ascii_lowercase())
                && id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            if !good {
                r.push(
                    "/id",
                    format!("{id:?}: 2 to 40 lower-case letters, digits and dashes, starting with a letter"),
                );
            }
        }
        if let Some(name) = self.name {
            if name.trim().is_empty() || name.len() > 100 {
                r.push("/name", "a name of 1 to 100 characters");
            }
        }
        if let Some(order) = self.turn_order {
            self.check_turn_order(r, order);
        }
        if let Some(units) = self.units {
            check_units(r, units);
        }
        let names = match self.board {
            Some(Some(board)) => Some(self.check_board(r, board)),
            _ => None,
        };
        if let Some(setup) = self.setup {
            self.check_setup(r, setup, names.as_ref());
        }
        self.check_economy(r);
        if let Some(tables) = self.dice_tables {
            check_dice_tables(r, tables);
        }
        self.check_result(r);
        if let Some(special) = self.special_rules {
            self.check_special(r, special, names.as_ref());
        }
    }

    /// A name a rule gives: it must be on the board, if there is one.
    fn on_board(
        &self,
        r: &mut Reader,
        names: Option<&BTreeMap<String, bool>>,
        at: String,
        name: &str,
    ) {
        if names.is_some_and(|n| !n.contains_key(&normalise(name))) {
            r.push(at, format!("no territory or sea zone is called {name:?}"));
        }
    }

    fn check_special(
        &self,
        r: &mut Reader,
        special: &SpecialRules,
        names: Option<&BTreeMap<String, bool>>,
    ) {
        const AT: &str = "/special_rules";
        if special.combat_from_round == Some(0) {
            r.push(format!("{AT}/combat_from_round"), "round 1 or later");
        }
        for (i, arrival) in special.reinforcements.iter().enumerate() {
            let at = format!("{AT}/reinforcements/{i}");
            if !self.seats(arrival.power) {
                r.push(
                    format!("{at}/power"),
                    format!("{} is not in the turn order", arrival.power),
                );
            }
            if arrival.round == 0 {
                r.push(format!("{at}/round"), "round 1 or later");
            }
            self.on_board(r, names, format!("{at}/territory"), &arrival.territory);
            if let Some(codes) = self.unit_codes {
                for (part, count, code) in army_parts(&arrival.units) {
                    if count.is_none() || !codes.contains(code) {
                        r.push(
                            format!("{at}/units"),
                            format!("{part:?} is not `<count> <unit>` of a unit in /units"),
                        );
                    }
                }
            }
        }
        for (i, change) in special.printed_values.iter().enumerate() {
            let at = format!("{AT}/printed_values/{i}/territory");
            self.on_board(r, names, at, &change.territory);
        }
        for (i, growing) in special.growing_values.iter().enumerate() {
            let at = format!("{AT}/growing_values/{i}/territory");
            self.on_board(r, names, at, &growing.territory);
        }
        for (i, centre) in special.convoy_centres.iter().enumerate() {
            let at = format!("{AT}/convoy_centres/{i}");
            self.on_board(r, names, format!("{at}/sea_zone"), &centre.sea_zone);
            if names.and_then(|n| n.get(&normalise(&centre.sea_zone))) == Some(&false) {
                r.push(
                    format!("{at}/sea_zone"),
                    format!("{} is land; a convoy centre is a sea zone", centre.sea_zone),
                );
            }
            if !self.seats(centre.power) {
                r.push(
                    format!("{at}/power"),
                    format!("{} is not in the turn order", centre.power),
                );
            }
        }
        for (i, limited) in special.limited_complexes.iter().enumerate() {
            let at = format!("{AT}/limited_complexes/{i}/territory");
            self.on_board(r, names, at, &limited.territory);
        }
        for (i, held) in special.held_in_round_one.iter().enumerate() {
            let at = format!("{AT}/held_in_round_one/{i}");
            self.on_board(r, names, format!("{at}/territory"), &held.territory);
            for (j, code) in held.may_move.iter().enumerate() {
                if self.units.is_some_and(|units| !units.contains_key(code)) {
                    r.push(
                        format!("{at}/may_move/{j}"),
                        format!("no unit is coded {code:?}"),
                    );
                }
            }
        }
        for (i, recruits) in special.recruits.iter().enumerate() {
            let at = format!("{AT}/recruits/{i}");
            for (field, power) in std::iter::once(("power", &recruits.power))
                .chain(recruits.held_by.iter().map(|p| ("held_by", p)))
            {
                if !self.seats(*power) {
                    r.push(
                        format!("{at}/{field}"),
                        format!("{power} is not in the turn order"),
                    );
                }
            }
            for (j, name) in recruits.for_holding.iter().enumerate() {
                self.on_board(r, names, format!("{at}/for_holding/{j}"), name);
            }
            if let Some(place) = &recruits.place_at {
                self.on_board(r, names, format!("{at}/place_at"), place);
            }
        }
        if let (Some(_), Some(units)) = (&special.start_zones, self.units) {
            // The War flow's reinforcement table places these.
            let placed: BTreeSet<&str> = (3..=18)
                .flat_map(|total| crate::war::reinforcements(total).units)
                .map(|(unit, _)| unit.code())
                .collect();
            for code in placed.into_iter().filter(|code| !units.contains_key(*code)) {
                r.push(
                    format!("{AT}/start_zones"),
                    format!(
                        "the War flow's reinforcements place {code} units; no unit is coded {code}"
                    ),
                );
            }
        }
        if let (Some(start), Some(tables)) = (&special.start_zones, self.dice_tables) {
            match tables.iter().position(|t| t.name == start.table) {
                None => r.push(
                    format!("{AT}/start_zones/table"),
                    format!("no dice table is named {:?}", start.table),
                ),
                // The chart's rows are places the bases stand in ("pick": rolled again).
                Some(i) => {
                    for (j, row) in tables[i].rows.iter().enumerate() {
                        if row.result != "pick" {
                            let at = format!("/dice_tables/{i}/rows/{j}/result");
                            self.on_board(r, names, at, &row.result);
                        }
                    }
                }
            }
        }
        let mut placed = BTreeSet::new();
        for (i, continent) in special.continents.iter().enumerate() {
            for (j, name) in continent.territories.iter().enumerate() {
                let at = format!("{AT}/continents/{i}/territories/{j}");
                if !placed.insert(normalise(name)) {
                    r.push(at, format!("{name} is on another continent already"));
                } else {
                    self.on_board(r, names, at, name);
                }
            }
        }
        let mut allied = BTreeSet::new();
        for (i, alliance) in special.alliances.iter().enumerate() {
            if alliance.len() < 2 {
                r.push(
                    format!("{AT}/alliances/{i}"),
                    "an alliance has two powers or more",
                );
            }
            for (j, power) in alliance.iter().enumerate() {
                if !self.seats(*power) {
                    r.push(
                        format!("{AT}/alliances/{i}/{j}"),
                        format!("{power} is not in the turn order"),
                    );
                } else if !allied.insert(*power) {
                    r.push(
                        format!("{AT}/alliances/{i}/{j}"),
                        format!("{power} is in another alliance already"),
                    );
                }
            }
        }
        for (i, power) in special.guerrillas.iter().enumerate() {
            if !self.seats(*power) {
                r.push(
                    format!("{AT}/guerrillas/{i}"),
                    format!("{power} is not in the turn order"),
                );
            }
        }
        for (i, name) in special.surrender_when_bombed_out.iter().enumerate() {
            let at = format!("{AT}/surrender_when_bombed_out/{i}");
            self.on_board(r, names, at, name);
        }
        for (i, power) in special.no_new_complexes.iter().enumerate() {
            if !self.seats(*power) {
                r.push(
                    format!("{AT}/no_new_complexes/{i}"),
                    format!("{power} is not in the turn order"),
                );
            }
        }
    }

    fn check_turn_order(&self, r: &mut Reader, order: &[Power]) {
        if !(2..=7).contains(&order.len()) {
            r.push("/turn_order", "2 to 7 powers");
        }
        for (i, power) in order.iter().enumerate() {
            if order[..i].contains(power) {
                r.push(
                    format!("/turn_order/{i}"),
                    format!("{power} is already in the turn order"),
                );
            }
        }
    }

    fn seats(&self, power: Power) -> bool {
        self.turn_order.is_none_or(|order| order.contains(&power))
    }

    /// Checks the board; its names (normalised), with whether each is sea.
    fn check_board(&self, r: &mut Reader, board: &BoardDocument) -> BTreeMap<String, bool> {
        let mut names: BTreeMap<String, bool> = BTreeMap::new();
        if board.territories.len() > usize::from(u8::MAX) {
            r.push(
                "/board/territories",
                "at most 255 territories and sea zones",
            );
        }
        let mut capitals: BTreeMap<Power, usize> = BTreeMap::new();
        for (i, t) in board.territories.iter().enumerate() {
            let at = format!("/board/territories/{i}");
            for (j, name) in std::iter::once(&t.name).chain(&t.aliases).enumerate() {
                let place = if j == 0 {
                    format!("{at}/name")
                } else {
                    format!("{at}/aliases/{}", j - 1)
                };
                if name.trim().is_empty() {
                    r.push(place, "a name may not be empty");
                } else if names
                    .insert(normalise(name), t.kind == TerritoryKind::Sea)
                    .is_some()
                {
                    r.push(place, format!("the name {name:?} is used twice"));
                }
            }
            let sea = t.kind == TerritoryKind::Sea;
            if sea && (t.ipc > 0 || t.original_owner.is_some() || t.capital || t.factory) {
                r.push(
                    at.clone(),
                    format!(
                        "{} is a sea zone: no IPC value, owner, capital or complex",
                        t.name
                    ),
                );
            }
            if let Some(owner) = t.original_owner {
                if !self.seats(owner) {
                    r.push(
                        format!("{at}/original_owner"),
                        format!("{owner} is not in the turn order"),
                    );
                }
                if t.capital {
                    *capitals.entry(owner).or_default() += 1;
                }
            } else if t.capital {
                r.push(format!("{at}/capital"), "a capital belongs to a power");
            }
        }
        for power in self.turn_order.unwrap_or_default() {
            match capitals.get(power).copied().unwrap_or(0) {
                1 => {}
                0 => r.push("/board/territories", format!("{power} has no capital")),
                n => r.push("/board/territories", format!("{power} has {n} capitals")),
            }
        }
        let mut seen = BTreeSet::new();
        for (i, pair) in board.connections.iter().enumerate() {
            for (j, name) in pair.iter().enumerate() {
                if !names.contains_key(&normalise(name)) {
                    r.push(
                        format!("/board/connections/{i}/{j}"),
                        format!("no territory or sea zone is called {name:?}"),
                    );
                }
            }
            let (a, b) = (normalise(&pair[0]), normalise(&pair[1]));
            if a == b {
                r.push(
                    format!("/board/connections/{i}"),
                    "a place is not adjacent to itself",
                );
            } else if !seen.insert(if a < b { (a, b) } else { (b, a) }) {
                r.push(
                    format!("/board/connections/{i}"),
                    format!("{} - {} is listed twice", pair[0], pair[1]),
                );
            }
        }
        for (i, canal) in board.canals.iter().enumerate() {
            let places = canal
                .sea_zones
                .iter()
                .map(|z| (z, true, "sea_zones"))
                .enumerate()
                .chain(
                    canal
                        .requires
                        .iter()
                        .map(|t| (t, false, "requires"))
                        .enumerate(),
                );
            for (j, (name, want_sea, field)) in places {
                let at = format!("/board/canals/{i}/{field}/{j}");
                match names.get(&normalise(name)) {
                    None => r.push(at, format!("no territory or sea zone is called {name:?}")),
                    Some(sea) if *sea != want_sea => r.push(
                        at,
                        format!("{name} is {}", if *sea { "a sea zone" } else { "land" }),
                    ),
                    Some(_) => {}
                }
            }
        }
        names
    }

    fn check_setup(
        &self,
        r: &mut Reader,
        setup: &[PlaceDocument],
        names: Option<&BTreeMap<String, bool>>,
    ) {
        if matches!(self.board, Some(None)) && !setup.is_empty() {
            r.push(
                "/setup",
                "a setup names places on a board, and there is none",
            );
            return;
        }
        let mut listed = BTreeSet::new();
        for (i, place) in setup.iter().enumerate() {
            let at = format!("/setup/{i}");
            if !self.seats(place.power) {
                r.push(
                    format!("{at}/power"),
                    format!("{} is not in the turn order", place.power),
                );
            }
            let sea = names.and_then(|n| n.get(&normalise(&place.territory)).copied());
            if names.is_some() && sea.is_none() {
                r.push(
                    format!("{at}/territory"),
                    format!("no territory or sea zone is called {:?}", place.territory),
                );
            }
            if !listed.insert(normalise(&place.territory)) {
                r.push(
                    format!("{at}/territory"),
                    format!("{} is listed twice", place.territory),
                );
            }
            for (j, other) in place.others.iter().enumerate() {
                if !self.seats(other.power) {
                    r.push(
                        format!("{at}/others/{j}/power"),
                        format!("{} is not in the turn order", other.power),
                    );
                }
                if other.power == place.power {
                    r.push(
                        format!("{at}/others/{j}/power"),
                        format!(
                            "{} holds {}: its units go in /units",
                            other.power, place.territory
                        ),
                    );
                }
                self.check_place_units(
                    r,
                    format!("{at}/others/{j}/units"),
                    &other.units,
                    &place.territory,
                    sea,
                );
            }
            self.check_place_units(
                r,
                format!("{at}/units"),
                &place.units,
                &place.territory,
                sea,
            );
        }
    }

    /// A setup place's units: each `<count> <unit>` of a unit in /units, no ship on land.
    fn check_place_units(
        &self,
        r: &mut Reader,
        at: String,
        text: &str,
        territory: &str,
        sea: Option<bool>,
    ) {
        let (Some(units), Some(codes)) = (self.units, self.unit_codes) else {
            return;
        };
        for (part, count, code) in army_parts(text) {
            let unit = units.get(code);
            if count.is_none() {
                r.push(at.clone(), format!("{part:?} is not `<count> <unit>`"));
            } else if !codes.contains(code) {
                r.push(at.clone(), format!("no unit {code:?} in /units"));
            } else if let (Some(unit), Some(false)) = (unit, sea) {
                if unit.domain == Domain::Sea {
                    r.push(
                        at.clone(),
                        format!("{} is a ship, and {territory} is land", unit.name),
                    );
                }
            }
        }
    }

    fn check_economy(&self, r: &mut Reader) {
        let classic = self.turn_order.is_none_or(is_classic_five);
        if let Some(IncomeRule::ScenarioMultipliers { .. }) = self.income {
            if !classic {
                r.push(
                    "/income",
                    "scenario multipliers are given for the Classic board's five powers",
                );
            }
        }
        if let (Some(ProductionRule::IndustrialCapacity), Some(IncomeRule::PrintedValues)) =
            (self.production, self.income)
        {
            r.push(
                "/production",
                "industrial capacity multiplies by the scenario: it needs scenario_multipliers income",
            );
        }
        for (i, option) in self.options.unwrap_or_default().iter().enumerate() {
            if !classic {
                r.push(
                    format!("/options/{i}"),
                    format!(
                        "{} is an option for the Classic board's five powers",
                        option.as_str()
                    ),
                );
            }
            if self.options.unwrap_or_default()[..i].contains(option) {
                r.push(format!("/options/{i}"), "listed twice");
            }
        }
    }

    fn check_result(&self, r: &mut Reader) {
        if let Some(VictoryRule::SurviveToRound {
            power,
            round,
            or_take,
        }) = self.victory
        {
            for (field, power) in [("power", Some(power)), ("or_take", or_take.as_ref())] {
                if power.is_some_and(|p| !self.seats(*p)) {
                    r.push(
                        format!("/victory/{field}"),
                        format!(
                            "{} is not in the turn order",
                            power.copied().unwrap_or(Power::Japan)
                        ),
                    );
                }
            }
            if *round == 0 {
                r.push("/victory/round", "round 1 or later");
            }
        }
        if let (Some(scoring), Some(order)) = (self.scoring, self.turn_order) {
            if scoring.points().len() != order.len() {
                r.push(
                    "/scoring/points",
                    format!(
                        "one number of points per place: {} powers, {} numbers",
                        order.len(),
                        scoring.points().len()
                    ),
                );
            }
        }
    }
}

/// The parts of an army as `3 INF, 1 ARM` writes it: each part, its count (if a number)
/// and its code.
fn army_parts(text: &str) -> impl Iterator<Item = (&str, Option<u32>, &str)> {
    text.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|part| {
            let (count, code) = part.split_once(char::is_whitespace).unwrap_or(("1", part));
            (part, count.trim().parse().ok(), code.trim())
        })
}

fn check_units(r: &mut Reader, units: &BTreeMap<String, UnitDocument>) {
    if units.is_empty() {
        r.push("/units", "at least one unit type");
    }
    if units.len() > usize::from(u8::MAX) {
        r.push("/units", "at most 255 unit types");
    }
    for (code, unit) in units {
        let at = format!("/units/{}", pointer_key(code));
        let good_code = (1..=8).contains(&code.len())
            && code.starts_with(|c: char| c.is_ascii_uppercase())
            && code
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
        if !good_code {
            r.push(
                at.clone(),
                format!("{code:?}: a code is 1 to 8 capital letters and digits"),
            );
        }
        if unit.cost == 0 {
            r.push(format!("{at}/cost"), "a unit costs at least 1 IPC");
        }
        for (field, value) in [("attack", unit.attack), ("defense", unit.defense)] {
            if value > 6 {
                r.push(
                    format!("{at}/{field}"),
                    format!("{value}: a die shows 1 to 6 (0: never hits)"),
                );
            }
        }
        if unit.hit_points == 0 {
            r.push(format!("{at}/hit_points"), "at least 1");
        }
        if unit.damaged_defense.is_some() && unit.hit_points < 2 {
            r.push(
                format!("{at}/damaged_defense"),
                "only a unit of 2 or more hit points is ever damaged",
            );
        }
        if unit.domain != Domain::Sea && unit.carries > 0 {
            r.push(format!("{at}/carries"), "only ships carry units");
        }
        if unit.domain != Domain::Land && unit.transport_space > 0 {
            r.push(
                format!("{at}/transport_space"),
                "only land units go aboard transports",
            );
        }
    }
}

fn check_dice_tables(r: &mut Reader, tables: &[DiceTable]) {
    for (i, table) in tables.iter().enumerate() {
        let at = format!("/dice_tables/{i}");
        if tables[..i].iter().any(|t| t.name == table.name) {
            r.push(
                format!("{at}/name"),
                format!("{:?} is named twice", table.name),
            );
        }
        if !(1..=3).contains(&table.dice) {
            r.push(format!("{at}/dice"), "1 to 3 dice");
            continue;
        }
        let (low, high) = (table.dice, 6 * table.dice);
        let mut next = low;
        for (j, row) in table.rows.iter().enumerate() {
            let row_at = format!("{at}/rows/{j}");
            if row.from > row.to {
                r.push(row_at, format!("from {} is above to {}", row.from, row.to));
                continue;
            }
            // Rows may name totals the dice cannot show (the War chart's 1, 2 and 19+);
            // among those they can, each total has exactly one row.
            let (from, to) = (row.from.max(low), row.to.min(high));
            if from > to {
                continue;
            }
            if from > next {
                r.push(row_at, format!("no row covers {next} to {}", from - 1));
            } else if from < next {
                r.push(
                    row_at,
                    format!("{from} is already covered by an earlier row"),
                );
            }
            next = next.max(to.saturating_add(1));
        }
        if next <= high {
            r.push(
                format!("{at}/rows"),
                format!("no row covers {next} to {high}"),
            );
        }
    }
}

#[cfg(test)]
mod tests;
