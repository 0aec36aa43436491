//! The rulesets a game can be created with. Every ruleset is a [`RulesetDocument`]: the
//! built-in ones are assembled from the data compiled in, uploaded ones come from a
//! director. [`Ruleset::install`] turns a checked document into the board, units, setup
//! and points the engine plays, once per document hash: a game names its ruleset's hash in
//! `GameCreated`, and a later revision is a new document with a new hash.

pub(crate) mod home_cooked;

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::board::{Board, Power};
use crate::document::{
    BaseKind, DocumentProblem, GameOption, GameOptions, IncomeRule, ProductionRule,
    RulesetDocument, ScoringRule, SpecialRules, VictoryRule, FORMAT,
};
use crate::game::{Arrival, Economy, GameState, Rules, Special, Survival};
use crate::scoring::PointsTable;
use crate::setup::Setup;
use crate::units::Catalogue;

/// A playable ruleset: a document the engine has built.
#[derive(Debug)]
pub struct Ruleset {
    pub id: String,
    pub name: String,
    /// The document's hash (what games created now record).
    pub hash: String,
    /// The hash games recorded before hashes were canonical ([`RulesetDocument::legacy_hash`]).
    pub legacy_hash: String,
    pub document: RulesetDocument,
    pub board: Board,
    pub catalogue: Catalogue,
    pub setup: Setup,
    pub points: PointsTable,
    pub economy: Economy,
    pub special: Special,
    /// The options the document was played with (already applied to it).
    pub options: GameOptions,
    /// Uploaded, not built in: a game's log carries its document whole.
    pub uploaded: bool,
}

/// Why a ruleset is not available.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesetError {
    #[error("no ruleset {0:?}; built in: {1}")]
    Unknown(String, String),
    #[error("ruleset data: {0}")]
    Data(String),
    #[error(
        "{0} has no board: a director uploads one (POST /v1/rulesets) before a game can start"
    )]
    BoardRequired(String),
    #[error("{id} cannot be played yet: {what}")]
    NotPlayable { id: String, what: String },
    #[error("the ruleset document has {} problems: {}", .0.len(), describe(.0))]
    Invalid(Vec<DocumentProblem>),
}

fn describe(problems: &[DocumentProblem]) -> String {
    problems
        .iter()
        .map(|p| format!("{}: {}", p.path, p.message))
        .collect::<Vec<_>>()
        .join("; ")
}

fn data(e: impl std::fmt::Display) -> RulesetError {
    RulesetError::Data(e.to_string())
}

impl RulesetDocument {
    /// The ids of the built-in rulesets.
    pub const BUILTIN: [&'static str; 3] = ["cutthroat", "aap-historical", "war"];

    /// A built-in ruleset's document.
    pub fn builtin(id: &str) -> Result<RulesetDocument, RulesetError> {
        Self::builtin_hashed(id).map(|(document, _)| document)
    }

    /// A built-in ruleset's document and its hash, assembled and hashed once per id: a
    /// game's creation and every read of a built-in start here.
    pub fn builtin_hashed(id: &str) -> Result<(RulesetDocument, String), RulesetError> {
        type Built = HashMap<String, (RulesetDocument, String)>;
        static BUILT: OnceLock<Mutex<Built>> = OnceLock::new();
        let built = BUILT.get_or_init(Default::default);
        if let Some(entry) = built.lock().map_err(data)?.get(id) {
            return Ok(entry.clone());
        }
        let document = Self::assemble(id)?;
        let hash = document.hash();
        let entry = (document, hash);
        built
            .lock()
            .map_err(data)?
            .insert(id.to_owned(), entry.clone());
        Ok(entry)
    }

    /// Earlier revisions of a built-in document, oldest first. A game records the hash of
    /// the document it was created with, so a change to a built-in keeps the revision
    /// before it here, and recorded games go on playing (and auditing) under it.
    pub fn builtin_revisions(id: &str) -> Result<Vec<RulesetDocument>, RulesetError> {
        let texts: &[&str] = match id {
            "cutthroat" => &[
                // Before Japan's home complex and AA gun, and South Africa's complex as new.
                include_str!("../data/revisions/cutthroat-r1.json"),
                // Before SAAC from round 2 and the defender's hits column by column.
                include_str!("../data/revisions/cutthroat-r2.json"),
                // Before submarines facing only aircraft withdrew.
                include_str!("../data/revisions/cutthroat-r3.json"),
                // Before Enhanced Realism's income came at the beginning of the turn.
                include_str!("../data/revisions/cutthroat-r4.json"),
            ],
            "aap-historical" => &[
                // Before the Pacific board's battleship, the UK's start without convoy
                // money, the KMT and the CCP as rivals and the two sides.
                include_str!("../data/revisions/aap-historical-r1.json"),
                // Before convoy capture and routes, submarines attacked only where 7.1
                // allows, combat air patrol, lending, Shansi's garrison and the CCP's
                // recruits placed by its player.
                include_str!("../data/revisions/aap-historical-r2.json"),
            ],
            _ => &[],
        };
        texts
            .iter()
            .map(|text| serde_json::from_str(text).map_err(data))
            .collect()
    }

    fn assemble(id: &str) -> Result<RulesetDocument, RulesetError> {
        match id {
            "cutthroat" => {
                let (turn_order, board) = Board::classic_document().map_err(data)?;
                Ok(RulesetDocument {
                    format: FORMAT,
                    id: id.to_owned(),
                    name: "IAAPA Cut-Throat (2000)".to_owned(),
                    sources: vec![
                        "cutthroat-rules-2000.txt".to_owned(),
                        "battle-resolution-part13.txt".to_owned(),
                    ],
                    turn_order,
                    units: Catalogue::builtin_units("cutthroat").map_err(data)?,
                    board: Some(board),
                    setup: Setup::cut_throat_document().map_err(data)?,
                    income: IncomeRule::PrintedValues,
                    production: ProductionRule::ClassicComplexes,
                    dice_tables: Vec::new(),
                    victory: VictoryRule::DirectorEnds,
                    scoring: ScoringRule::PercentIpcGain {
                        points: vec![5, 3, 2, -1, -2],
                    },
                    options: vec![GameOption::EnhancedRealism, GameOption::AlternateTurnOrder],
                    // "No combat in the first round."
                    special_rules: SpecialRules {
                        combat_from_round: Some(2),
                        // Revision 3: Part 13's and IAAPA's defaults in battle.
                        saac_from_round: Some(2),
                        defender_hits_by_column: true,
                        // Revision 4: the IAAPA sub rule's withdrawal.
                        subs_withdraw_from_aircraft: true,
                        // Revision 5: Enhanced Realism's income at the beginning of the
                        // turn, as its sentence says (the option applies it).
                        scenario_income_at_turn_start: true,
                        ..SpecialRules::default()
                    },
                })
            }
            "aap-historical" => {
                let (board, setup) = crate::aap::board::pacific().map_err(RulesetError::Data)?;
                Ok(RulesetDocument {
                    format: FORMAT,
                    id: id.to_owned(),
                    name: "AAP Historical".to_owned(),
                    sources: vec!["aap-historical-rules.txt".to_owned()],
                    turn_order: crate::aap::AapPower::ORDER
                        .iter()
                        .map(|p| p.power())
                        .collect(),
                    units: Catalogue::builtin_units("aap-historical").map_err(data)?,
                    // The Avalon Hill Pacific board and setup, with the seed's changes.
                    board: Some(board),
                    setup,
                    income: IncomeRule::PrintedValues,
                    production: ProductionRule::ClassicComplexes,
                    dice_tables: Vec::new(),
                    victory: VictoryRule::SurviveToRound {
                        power: Power::Japan,
                        round: 12,
                        or_take: Some(Power::UnitedStates),
                    },
                    // The seed gives no ranking points: these are the association's table.
                    scoring: ScoringRule::Survival {
                        points: vec![5, 3, 2, -1, -2],
                    },
                    options: Vec::new(),
                    special_rules: crate::aap::special_rules(),
                })
            }
            "war" => {
                let (turn_order, board) = Board::classic_document().map_err(data)?;
                Ok(RulesetDocument {
                    format: FORMAT,
                    id: id.to_owned(),
                    name: "War: home-cooked rules".to_owned(),
                    sources: vec!["war-home-cooked-rules.txt".to_owned()],
                    // Played on the Classic board; players take its five seats.
                    turn_order,
                    units: Catalogue::builtin_units("war").map_err(data)?,
                    board: Some(board),
                    // Each player rolls three starting zones on the "start zone" table.
                    setup: Vec::new(),
                    income: IncomeRule::PrintedValues,
                    production: ProductionRule::ClassicComplexes,
                    dice_tables: home_cooked::dice_tables(),
                    victory: VictoryRule::DirectorEnds,
                    // Highest zone points first; the last takes the "Dan Quayle reward".
                    scoring: ScoringRule::ZonePoints {
                        points: vec![5, 3, 2, -1, -2],
                    },
                    options: Vec::new(),
                    special_rules: SpecialRules {
                        start_zones: Some(crate::document::StartZones {
                            table: "start zone".to_owned(),
                            rolls: 3,
                        }),
                        continents: home_cooked::continents(),
                        ..SpecialRules::default()
                    },
                })
            }
            other => Err(RulesetError::Unknown(
                other.to_owned(),
                Self::BUILTIN.join(", "),
            )),
        }
    }
}

/// The document's special rules, by the board's and catalogue's ids.
fn special(
    document: &RulesetDocument,
    board: &Board,
    catalogue: &Catalogue,
) -> Result<Special, RulesetError> {
    let rules = &document.special_rules;
    let place = |name: &str| board.id(name).map_err(data);
    let rivals: std::collections::BTreeSet<(Power, Power)> = rules
        .rivals
        .iter()
        .map(|[a, b]| crate::game::diplomacy::partners(*a, *b))
        .collect();
    Ok(Special {
        combat_from_round: rules.combat_from_round.unwrap_or(1),
        saac_from_round: rules.saac_from_round,
        defender_hits_by_column: rules.defender_hits_by_column,
        subs_withdraw_from_aircraft: rules.subs_withdraw_from_aircraft,
        heavy_weapons: rules.heavy_weapons,
        heavy_weapons_uncounted: rules.heavy_weapons_uncounted.clone(),
        reinforcements: rules
            .reinforcements
            .iter()
            .map(|r| {
                Ok(Arrival {
                    power: r.power,
                    round: r.round,
                    territory: place(&r.territory)?,
                    units: crate::battle::Battle::army(catalogue, &r.units).map_err(data)?,
                })
            })
            .collect::<Result<_, RulesetError>>()?,
        growing_values: rules
            .growing_values
            .iter()
            .map(|g| Ok((place(&g.territory)?, g.base, g.per_round)))
            .collect::<Result<_, RulesetError>>()?,
        convoy_centres: rules
            .convoy_centres
            .iter()
            .map(|c| Ok((place(&c.sea_zone)?, c.ipc, c.power)))
            .collect::<Result<_, RulesetError>>()?,
        convoy_income_only: rules
            .convoy_centres
            .iter()
            .filter(|c| c.income_only)
            .map(|c| place(&c.sea_zone))
            .collect::<Result<_, RulesetError>>()?,
        limited_complexes: rules
            .limited_complexes
            .iter()
            .map(|l| Ok((place(&l.territory)?, l.units)))
            .collect::<Result<_, RulesetError>>()?,
        no_new_complexes: rules.no_new_complexes.iter().copied().collect(),
        held_in_round_one: rules
            .held_in_round_one
            .iter()
            .map(|held| {
                let units = held
                    .may_move
                    .iter()
                    .map(|code| catalogue.id(code).map_err(data))
                    .collect::<Result<_, RulesetError>>()?;
                Ok((place(&held.territory)?, units))
            })
            .collect::<Result<_, RulesetError>>()?,
        submarines_do_not_block: rules.submarines_do_not_block,
        without: rules.without.iter().copied().collect(),
        continent_of: rules
            .continents
            .iter()
            .enumerate()
            .flat_map(|(i, continent)| continent.territories.iter().map(move |t| (i, t)))
            .map(|(i, name)| Ok((place(name)?, i)))
            .collect::<Result<_, RulesetError>>()?,
        standing_alliances: standing_alliances(rules, &rivals),
        rivals,
        side_of: rules.sides.then(|| {
            rules
                .alliances
                .iter()
                .enumerate()
                .flat_map(|(i, alliance)| alliance.iter().map(move |p| (*p, i)))
                .collect()
        }),
        repair_at_turn_end: rules.repair_at_turn_end,
        convoy_routes: rules
            .convoy_routes
            .iter()
            .map(|r| Ok((place(&r.sea_zone)?, place(&r.territory)?)))
            .collect::<Result<_, RulesetError>>()?,
        convoy_capture: rules.convoy_capture,
        submarines_hidden: rules.submarines_hidden,
        combat_air_patrol: rules.combat_air_patrol,
        lending: rules.lending.iter().map(|l| (l.from, l.to)).collect(),
        garrisons: rules
            .garrisons
            .iter()
            .map(|g| Ok((place(&g.territory)?, g.powers.clone())))
            .collect::<Result<_, RulesetError>>()?,
        kamikaze: kamikaze(rules, board, catalogue)?,
        air_bases: bases(rules, BaseKind::Air)
            .map(&place)
            .collect::<Result<_, RulesetError>>()?,
        naval_bases: bases(rules, BaseKind::Naval)
            .map(&place)
            .collect::<Result<_, RulesetError>>()?,
        zone_points: matches!(document.scoring, ScoringRule::ZonePoints { .. }),
        guerrillas: rules.guerrillas.iter().copied().collect(),
        recruits: recruits(rules, board)?,
        surrender_when_bombed_out: rules
            .surrender_when_bombed_out
            .iter()
            .map(|name| place(name))
            .collect::<Result<_, RulesetError>>()?,
        war: start_chart(document, board)?,
        survival: survival(document),
    })
}

/// Every pair of powers that stand together all game: allied, and not rivals.
fn standing_alliances(
    rules: &SpecialRules,
    rivals: &std::collections::BTreeSet<(Power, Power)>,
) -> std::collections::BTreeSet<(Power, Power)> {
    rules
        .alliances
        .iter()
        .flat_map(|alliance| {
            alliance.iter().flat_map(move |a| {
                alliance
                    .iter()
                    .filter(move |b| a != *b)
                    .map(move |b| crate::game::diplomacy::partners(*a, *b))
            })
        })
        .filter(|pair| !rivals.contains(pair))
        .collect()
}

/// The kamikaze tokens, their zones and targets by id.
fn kamikaze(
    rules: &SpecialRules,
    board: &Board,
    catalogue: &Catalogue,
) -> Result<Option<crate::game::Kamikaze>, RulesetError> {
    let place = |name: &str| board.id(name).map_err(data);
    rules
        .kamikaze_tokens
        .as_ref()
        .map(|k| {
            Ok(crate::game::Kamikaze {
                power: k.power,
                tokens: k.tokens,
                zones: k
                    .zones
                    .iter()
                    .map(|name| place(name))
                    .collect::<Result<_, RulesetError>>()?,
                attack: k.attack,
                targets: k
                    .targets
                    .iter()
                    .map(|code| catalogue.id(code).map_err(data))
                    .collect::<Result<_, RulesetError>>()?,
            })
        })
        .transpose()
}

/// The powers that raise recruits, with their places by id.
fn recruits(
    rules: &SpecialRules,
    board: &Board,
) -> Result<Vec<crate::game::Recruits>, RulesetError> {
    let place = |name: &str| board.id(name).map_err(data);
    rules
        .recruits
        .iter()
        .map(|r| {
            Ok(crate::game::Recruits {
                power: r.power,
                per_turn: r.per_turn,
                per_sole_area: r.per_sole_area,
                for_holding: r
                    .for_holding
                    .iter()
                    .map(|name| place(name))
                    .collect::<Result<_, RulesetError>>()?,
                held_by: r.held_by.iter().copied().collect(),
                place_at: r.place_at.as_deref().map(place).transpose()?,
                placed_by_player: r.placed_by_player,
            })
        })
        .collect()
}

/// The War flow's start chart: the dice table that rolls the bases' places, by id.
fn start_chart(
    document: &RulesetDocument,
    board: &Board,
) -> Result<Option<crate::game::home_cooked::StartChart>, RulesetError> {
    let place = |name: &str| board.id(name).map_err(data);
    let rules = &document.special_rules;
    match &rules.start_zones {
        None => Ok(None),
        Some(start) => {
            let table = document
                .dice_tables
                .iter()
                .find(|t| t.name == start.table)
                .ok_or_else(|| data(format!("no dice table is named {:?}", start.table)))?;
            Ok(Some(crate::game::home_cooked::StartChart {
                dice: table.dice,
                rows: table
                    .rows
                    .iter()
                    .map(|row| {
                        let zone = match row.result.as_str() {
                            "pick" => None,
                            name => Some(place(name)?),
                        };
                        Ok((row.from, row.to, zone))
                    })
                    .collect::<Result<_, RulesetError>>()?,
                bases: start.rolls,
            }))
        }
    }
}

/// The power that wins by surviving to a round, when the document's victory says so.
fn survival(document: &RulesetDocument) -> Option<Survival> {
    match document.victory {
        VictoryRule::SurviveToRound {
            power,
            round,
            or_take,
        } => Some(Survival {
            power,
            round,
            or_take,
        }),
        VictoryRule::DirectorEnds => None,
    }
}

/// The places of the document's bases of one kind.
fn bases(rules: &SpecialRules, kind: BaseKind) -> impl Iterator<Item = &str> {
    rules
        .bases
        .iter()
        .filter(move |b| b.kind == kind)
        .map(|b| b.territory.as_str())
}

fn installed() -> &'static Mutex<HashMap<String, &'static Ruleset>> {
    static INSTALLED: OnceLock<Mutex<HashMap<String, &'static Ruleset>>> = OnceLock::new();
    INSTALLED.get_or_init(Default::default)
}

impl Ruleset {
    /// A built-in ruleset by id, as the engine plays it.
    pub fn builtin(id: &str) -> Result<&'static Ruleset, RulesetError> {
        Self::builtin_with(id, &GameOptions::default())
    }

    /// A built-in ruleset with a game's options applied (built once per pair).
    pub fn builtin_with(id: &str, options: &GameOptions) -> Result<&'static Ruleset, RulesetError> {
        static BUILT: OnceLock<Mutex<HashMap<(String, GameOptions), &'static Ruleset>>> =
            OnceLock::new();
        let built = BUILT.get_or_init(Default::default);
        let key = (id.to_owned(), *options);
        if let Some(ruleset) = built.lock().map_err(data)?.get(&key) {
            return Ok(ruleset);
        }
        let document = RulesetDocument::builtin(id)?
            .with_options(options)
            .map_err(RulesetError::Invalid)?;
        let ruleset = Self::install(document, *options, false)?;
        built.lock().map_err(data)?.insert(key, ruleset);
        Ok(ruleset)
    }

    /// The built-in `id`, `options` applied, whose document hashes to `hash`: the current
    /// revision or an earlier one (`None` when no revision does).
    pub fn builtin_revision(
        id: &str,
        options: &GameOptions,
        hash: &str,
    ) -> Result<Option<&'static Ruleset>, RulesetError> {
        let current = Self::builtin_with(id, options)?;
        if current.answers_to(hash) {
            return Ok(Some(current));
        }
        for revision in RulesetDocument::builtin_revisions(id)? {
            let played = revision
                .with_options(options)
                .map_err(RulesetError::Invalid)?;
            if played.answers_to(hash) {
                return Self::install(played, *options, false).map(Some);
            }
        }
        Ok(None)
    }

    /// An uploaded document with a game's options applied.
    pub fn uploaded(
        document: &RulesetDocument,
        options: &GameOptions,
    ) -> Result<&'static Ruleset, RulesetError> {
        let played = document
            .with_options(options)
            .map_err(RulesetError::Invalid)?;
        Self::install(played, *options, true)
    }

    /// A ruleset already built, by its document's hash.
    pub fn installed(hash: &str) -> Option<&'static Ruleset> {
        installed().lock().ok()?.get(hash).copied()
    }

    /// The engine's ruleset for a document: checked, built once per hash and kept for the
    /// life of the process (a document never changes under its hash, and a server sees
    /// few distinct ones).
    pub fn install(
        document: RulesetDocument,
        options: GameOptions,
        uploaded: bool,
    ) -> Result<&'static Ruleset, RulesetError> {
        let hash = document.hash();
        if let Some(ruleset) = Self::installed(&hash) {
            return Ok(ruleset);
        }
        let mut ruleset = Self::build(document, hash.clone())?;
        ruleset.options = options;
        ruleset.uploaded = uploaded;
        let ruleset: &'static Ruleset = Box::leak(Box::new(ruleset));
        let mut installed = installed().lock().map_err(data)?;
        // Found by either hash: games recorded before hashes were canonical carry the other.
        installed
            .entry(ruleset.legacy_hash.clone())
            .or_insert(ruleset);
        Ok(*installed.entry(hash).or_insert(ruleset))
    }

    /// Whether `hash` is this ruleset's document's, canonical or legacy.
    pub fn answers_to(&self, hash: &str) -> bool {
        self.hash == hash || self.legacy_hash == hash
    }

    fn build(document: RulesetDocument, hash: String) -> Result<Ruleset, RulesetError> {
        document.validate().map_err(RulesetError::Invalid)?;
        let Some(board_document) = &document.board else {
            return Err(RulesetError::BoardRequired(document.id.clone()));
        };
        let unplayed = match (&document.victory, &document.scoring) {
            (VictoryRule::SurviveToRound { .. }, ScoringRule::Survival { .. })
            | (
                VictoryRule::DirectorEnds,
                ScoringRule::PercentIpcGain { .. } | ScoringRule::ZonePoints { .. },
            ) => None,
            (VictoryRule::SurviveToRound { .. }, _) => {
                Some("a victory by survival scored other than by survival")
            }
            (_, ScoringRule::Survival { .. }) => Some("scoring by survival without its victory"),
        };
        if let Some(what) = unplayed {
            return Err(RulesetError::NotPlayable {
                id: document.id.clone(),
                what: format!("the engine does not play {what} yet"),
            });
        }
        // The ruleset's own printed values (AAP's IPC changes) replace the board's.
        let mut board_document = board_document.clone();
        for change in &document.special_rules.printed_values {
            let name = crate::board::normalise(&change.territory);
            for territory in board_document
                .territories
                .iter_mut()
                .filter(|t| crate::board::normalise(&t.name) == name)
            {
                territory.ipc = change.ipc;
            }
        }
        let board =
            Board::from_document(document.turn_order.clone(), &board_document).map_err(data)?;
        let catalogue =
            Catalogue::from_units(&document.id, &document.name, &document.units).map_err(data)?;
        let setup = Setup::from_places(&document.setup, &board, &catalogue).map_err(data)?;
        let special = special(&document, &board, &catalogue)?;
        Ok(Ruleset {
            id: document.id.clone(),
            name: document.name.clone(),
            hash,
            legacy_hash: document.legacy_hash(),
            points: PointsTable::new(document.scoring.points().to_vec()),
            economy: Economy {
                income: document.income,
                production: document.production,
                collected_at_turn_start: document.special_rules.scenario_income_at_turn_start
                    && matches!(document.income, IncomeRule::ScenarioMultipliers { .. }),
            },
            special,
            board,
            catalogue,
            setup,
            document,
            options: GameOptions::default(),
            uploaded: false,
        })
    }

    pub fn rules(&self) -> Rules<'_> {
        Rules {
            board: &self.board,
            catalogue: &self.catalogue,
            economy: self.economy,
            special: &self.special,
        }
    }

    /// The powers, in turn order: a game seats one player at each.
    pub fn powers(&self) -> &[Power] {
        self.board.turn_order()
    }

    /// The state before the first move.
    pub fn start(&self) -> GameState {
        GameState::start(self.rules(), &self.setup)
    }
}

/// Orders name places and units as this ruleset's board and catalogue do.
impl crate::game::named::RulesetNames for Ruleset {
    fn id(&self) -> &str {
        &self.id
    }

    fn board(&self) -> &Board {
        &self.board
    }

    fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_throat_loads_and_seats_five_powers() {
        let ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
        assert_eq!(ruleset.id, "cutthroat");
        assert_eq!(ruleset.powers().len(), 5);
        assert_eq!(ruleset.start().round, 1);
    }

    #[test]
    fn every_built_in_document_passes_its_own_checks() {
        for id in RulesetDocument::BUILTIN {
            let document = RulesetDocument::builtin(id).expect(id);
            assert_eq!(document.validate(), Ok(()), "{id}");
        }
    }

    #[test]
    fn a_document_installs_once_per_hash() {
        let a = Ruleset::builtin("cutthroat").expect("cutthroat");
        let b = Ruleset::install(
            RulesetDocument::builtin("cutthroat").expect("doc"),
            GameOptions::default(),
            false,
        )
        .expect("cutthroat");
        assert!(std::ptr::eq(a, b));
    }

    #[test]
    fn a_ruleset_document_without_a_board_cannot_start_until_one_is_uploaded() {
        let mut document = RulesetDocument::builtin("aap-historical").expect("aap");
        document.id = "aap-boardless".into();
        document.board = None;
        document.setup = Vec::new();
        let error = Ruleset::uploaded(&document, &GameOptions::default()).expect_err("no board");
        assert_eq!(error, RulesetError::BoardRequired("aap-boardless".into()));
        assert!(error.to_string().contains("uploads one"), "{error}");
    }

    #[test]
    fn aap_historical_is_playable_out_of_the_box_on_the_pacific_board() {
        let aap = Ruleset::builtin("aap-historical").expect("playable");
        assert_eq!(
            aap.board.territories().count(),
            62 + 1 + 54,
            "with Sinkiang"
        );
    }

    #[test]
    fn an_unknown_ruleset_is_refused_naming_the_built_in_ones() {
        let error = Ruleset::builtin("chess").expect_err("unknown");
        assert!(error.to_string().contains("cutthroat"), "{error}");
    }
}
