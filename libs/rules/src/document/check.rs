//! The checks across parts of a document that parsed: units, board, setup, turn order,
//! economy, dice tables, victory and the special rules, each on what it needs.

use super::*;

/// Where the special rules sit in a ruleset document, for the pointers of refusals.
const SPECIAL: &str = "/special_rules";

/// The parts of a document that parsed: each check runs on what it needs.
pub(crate) struct Parts<'a> {
    pub(crate) format: Option<u32>,
    pub(crate) id: Option<&'a str>,
    pub(crate) name: Option<&'a str>,
    pub(crate) turn_order: Option<&'a [Power]>,
    /// The unit profiles that read.
    pub(crate) units: Option<&'a BTreeMap<String, UnitDocument>>,
    /// Every unit code given.
    pub(crate) unit_codes: Option<&'a BTreeSet<&'a str>>,
    pub(crate) board: Option<&'a Option<BoardDocument>>,
    pub(crate) setup: Option<&'a [PlaceDocument]>,
    pub(crate) income: Option<&'a IncomeRule>,
    pub(crate) production: Option<&'a ProductionRule>,
    pub(crate) dice_tables: Option<&'a [DiceTable]>,
    pub(crate) victory: Option<&'a VictoryRule>,
    pub(crate) scoring: Option<&'a ScoringRule>,
    pub(crate) options: Option<&'a [GameOption]>,
    pub(crate) special_rules: Option<&'a SpecialRules>,
}

pub(crate) fn is_classic_five(turn_order: &[Power]) -> bool {
    let mut sorted = turn_order.to_vec();
    sorted.sort();
    sorted == Power::CLASSIC
}

impl Parts<'_> {
    pub(crate) fn check(&self, r: &mut Reader) {
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
            } else if let Some(problem) = control_in_name(name) {
                r.push("/name", problem);
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
    pub(crate) fn on_board(
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

    pub(crate) fn check_special(
        &self,
        r: &mut Reader,
        special: &SpecialRules,
        names: Option<&BTreeMap<String, bool>>,
    ) {
        if special.combat_from_round == Some(0) {
            r.push(format!("{SPECIAL}/combat_from_round"), "round 1 or later");
        }
        self.check_reinforcements(r, special, names);
        self.check_values_and_convoys(r, special, names);
        self.check_lending_and_garrisons(r, special, names);
        if let Some(kamikaze) = &special.kamikaze_tokens {
            self.check_kamikaze_tokens(r, kamikaze, names);
        }
        self.check_bases_and_placements(r, special, names);
        self.check_start_zones(r, special, names);
        self.check_continents_and_alliances(r, special, names);
        for (i, power) in special.guerrillas.iter().enumerate() {
            if !self.seats(*power) {
                r.push(
                    format!("{SPECIAL}/guerrillas/{i}"),
                    format!("{power} is not in the turn order"),
                );
            }
        }
        for (i, name) in special.surrender_when_bombed_out.iter().enumerate() {
            let at = format!("{SPECIAL}/surrender_when_bombed_out/{i}");
            self.on_board(r, names, at, name);
        }
        for (i, power) in special.no_new_complexes.iter().enumerate() {
            if !self.seats(*power) {
                r.push(
                    format!("{SPECIAL}/no_new_complexes/{i}"),
                    format!("{power} is not in the turn order"),
                );
            }
        }
    }

    /// The reinforcements: powers in the turn order, rounds from 1, places on the board and
    /// units of the catalogue.
    fn check_reinforcements(
        &self,
        r: &mut Reader,
        special: &SpecialRules,
        names: Option<&BTreeMap<String, bool>>,
    ) {
        for (i, arrival) in special.reinforcements.iter().enumerate() {
            let at = format!("{SPECIAL}/reinforcements/{i}");
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
    }

    /// Printed and growing values, convoy centres (sea zones) and convoy routes (a sea zone
    /// with land).
    fn check_values_and_convoys(
        &self,
        r: &mut Reader,
        special: &SpecialRules,
        names: Option<&BTreeMap<String, bool>>,
    ) {
        for (i, change) in special.printed_values.iter().enumerate() {
            let at = format!("{SPECIAL}/printed_values/{i}/territory");
            self.on_board(r, names, at, &change.territory);
        }
        for (i, growing) in special.growing_values.iter().enumerate() {
            let at = format!("{SPECIAL}/growing_values/{i}/territory");
            self.on_board(r, names, at, &growing.territory);
        }
        for (i, centre) in special.convoy_centres.iter().enumerate() {
            let at = format!("{SPECIAL}/convoy_centres/{i}");
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
        for (i, route) in special.convoy_routes.iter().enumerate() {
            let at = format!("{SPECIAL}/convoy_routes/{i}");
            self.on_board(r, names, format!("{at}/sea_zone"), &route.sea_zone);
            self.on_board(r, names, format!("{at}/territory"), &route.territory);
            for (field, name, sea) in [
                ("sea_zone", &route.sea_zone, true),
                ("territory", &route.territory, false),
            ] {
                if names.and_then(|n| n.get(&normalise(name))) == Some(&!sea) {
                    let want = if sea { "a sea zone" } else { "land" };
                    r.push(
                        format!("{at}/{field}"),
                        format!("{name} is not {want}: a convoy route pairs a sea zone with land"),
                    );
                }
            }
        }
    }

    /// Lending between two powers of the turn order, and garrisons.
    fn check_lending_and_garrisons(
        &self,
        r: &mut Reader,
        special: &SpecialRules,
        names: Option<&BTreeMap<String, bool>>,
    ) {
        for (i, lending) in special.lending.iter().enumerate() {
            let at = format!("{SPECIAL}/lending/{i}");
            for (field, power) in [("from", lending.from), ("to", lending.to)] {
                if !self.seats(power) {
                    r.push(
                        format!("{at}/{field}"),
                        format!("{power} is not in the turn order"),
                    );
                }
            }
            if lending.from == lending.to {
                r.push(
                    format!("{at}/to"),
                    "a power lends to another power".to_owned(),
                );
            }
        }
        for (i, garrison) in special.garrisons.iter().enumerate() {
            let at = format!("{SPECIAL}/garrisons/{i}");
            self.on_board(r, names, format!("{at}/territory"), &garrison.territory);
            for (j, power) in garrison.powers.iter().enumerate() {
                if !self.seats(*power) {
                    r.push(
                        format!("{at}/powers/{j}"),
                        format!("{power} is not in the turn order"),
                    );
                }
            }
        }
    }

    /// Bases on land, limited complexes, units held in round one, and recruits.
    fn check_bases_and_placements(
        &self,
        r: &mut Reader,
        special: &SpecialRules,
        names: Option<&BTreeMap<String, bool>>,
    ) {
        for (i, base) in special.bases.iter().enumerate() {
            let at = format!("{SPECIAL}/bases/{i}/territory");
            self.on_board(r, names, at.clone(), &base.territory);
            if names.and_then(|n| n.get(&normalise(&base.territory))) == Some(&true) {
                r.push(
                    at,
                    format!("{} is a sea zone; a base is on land", base.territory),
                );
            }
        }
        for (i, limited) in special.limited_complexes.iter().enumerate() {
            let at = format!("{SPECIAL}/limited_complexes/{i}/territory");
            self.on_board(r, names, at, &limited.territory);
        }
        for (i, held) in special.held_in_round_one.iter().enumerate() {
            let at = format!("{SPECIAL}/held_in_round_one/{i}");
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
            let at = format!("{SPECIAL}/recruits/{i}");
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
    }

    /// The War flow's start zones: the units its reinforcements place, and the dice table
    /// whose rows are the bases' places.
    fn check_start_zones(
        &self,
        r: &mut Reader,
        special: &SpecialRules,
        names: Option<&BTreeMap<String, bool>>,
    ) {
        if let (Some(_), Some(units)) = (&special.start_zones, self.units) {
            // The War flow's reinforcement table places these.
            let placed: BTreeSet<&str> = (3..=18)
                .flat_map(|total| crate::home_cooked_tables::reinforcements(total).units)
                .map(|(unit, _)| unit.code())
                .collect();
            for code in placed.into_iter().filter(|code| !units.contains_key(*code)) {
                r.push(
                    format!("{SPECIAL}/start_zones"),
                    format!(
                        "the War flow's reinforcements place {code} units; no unit is coded {code}"
                    ),
                );
            }
        }
        if let (Some(start), Some(tables)) = (&special.start_zones, self.dice_tables) {
            match tables.iter().position(|t| t.name == start.table) {
                None => r.push(
                    format!("{SPECIAL}/start_zones/table"),
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
    }

    /// Continents that share no territory, alliances that share no power, and rivals within
    /// one alliance.
    fn check_continents_and_alliances(
        &self,
        r: &mut Reader,
        special: &SpecialRules,
        names: Option<&BTreeMap<String, bool>>,
    ) {
        let mut placed = BTreeSet::new();
        for (i, continent) in special.continents.iter().enumerate() {
            for (j, name) in continent.territories.iter().enumerate() {
                let at = format!("{SPECIAL}/continents/{i}/territories/{j}");
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
                    format!("{SPECIAL}/alliances/{i}"),
                    "an alliance has two powers or more",
                );
            }
            for (j, power) in alliance.iter().enumerate() {
                if !self.seats(*power) {
                    r.push(
                        format!("{SPECIAL}/alliances/{i}/{j}"),
                        format!("{power} is not in the turn order"),
                    );
                } else if !allied.insert(*power) {
                    r.push(
                        format!("{SPECIAL}/alliances/{i}/{j}"),
                        format!("{power} is in another alliance already"),
                    );
                }
            }
        }
        for (i, [a, b]) in special.rivals.iter().enumerate() {
            let together = special
                .alliances
                .iter()
                .any(|alliance| alliance.contains(a) && alliance.contains(b));
            if a == b || !together {
                r.push(
                    format!("{SPECIAL}/rivals/{i}"),
                    format!("rivals are two powers of one alliance; {a} and {b} are not"),
                );
            }
        }
    }

    pub(crate) fn check_turn_order(&self, r: &mut Reader, order: &[Power]) {
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

    pub(crate) fn seats(&self, power: Power) -> bool {
        self.turn_order.is_none_or(|order| order.contains(&power))
    }

    /// Checks the board; its names (normalised), with whether each is sea.
    pub(crate) fn check_board(
        &self,
        r: &mut Reader,
        board: &BoardDocument,
    ) -> BTreeMap<String, bool> {
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
                } else if let Some(problem) = control_in_name(name) {
                    r.push(place, problem);
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

    pub(crate) fn check_setup(
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
    pub(crate) fn check_place_units(
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

    pub(crate) fn check_economy(&self, r: &mut Reader) {
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

    pub(crate) fn check_result(&self, r: &mut Reader) {
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
pub(crate) fn army_parts(text: &str) -> impl Iterator<Item = (&str, Option<u32>, &str)> {
    text.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|part| {
            let (count, code) = part.split_once(char::is_whitespace).unwrap_or(("1", part));
            (part, count.trim().parse().ok(), code.trim())
        })
}

/// What is wrong with a name, if it holds a control character: a name is one line of
/// printable text, without C0 controls (a tab or a line break among them), DEL or C1
/// controls (U+0080 to U+009F).
fn control_in_name(name: &str) -> Option<String> {
    name.chars().find(|c| c.is_control()).map(|c| {
        format!(
            "holds the control character U+{:04X}; a name is one line of printable text",
            u32::from(c)
        )
    })
}

pub(crate) fn check_units(r: &mut Reader, units: &BTreeMap<String, UnitDocument>) {
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

pub(crate) fn check_dice_tables(r: &mut Reader, tables: &[DiceTable]) {
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

impl Parts<'_> {
    /// Kamikaze tokens: a seated power, sea zones of the board, a die's number, ships of
    /// the catalogue.
    fn check_kamikaze_tokens(
        &self,
        r: &mut Reader,
        kamikaze: &KamikazeTokens,
        names: Option<&BTreeMap<String, bool>>,
    ) {
        const AT: &str = "/special_rules/kamikaze_tokens";
        if !self.seats(kamikaze.power) {
            r.push(
                format!("{AT}/power"),
                format!("{} is not in the turn order", kamikaze.power),
            );
        }
        if !(1..=6).contains(&kamikaze.attack) {
            r.push(format!("{AT}/attack"), "a die's number, 1 to 6");
        }
        if kamikaze.zones.is_empty() {
            r.push(format!("{AT}/zones"), "at least one sea zone");
        }
        for (i, zone) in kamikaze.zones.iter().enumerate() {
            let at = format!("{AT}/zones/{i}");
            self.on_board(r, names, at.clone(), zone);
            if names.and_then(|n| n.get(&normalise(zone))) == Some(&false) {
                r.push(at, format!("{zone} is land; kamikazes strike in sea zones"));
            }
        }
        for (i, code) in kamikaze.targets.iter().enumerate() {
            let at = format!("{AT}/targets/{i}");
            match self.units.map(|units| units.get(code)) {
                Some(None) => r.push(at, format!("no unit is coded {code:?}")),
                Some(Some(unit)) if unit.domain != Domain::Sea => {
                    r.push(at, format!("{code} is not a ship"))
                }
                _ => {}
            }
        }
    }
}
