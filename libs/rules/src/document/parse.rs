//! Reading a document part by part: every problem kept with its JSON Pointer, so one
//! broken unit does not hide a broken connection.

use super::check::Parts;
use super::*;

/// Escapes a key for a JSON Pointer.
pub(crate) fn pointer_key(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Reads a document part by part, keeping every problem.
#[derive(Debug, Default)]
pub(crate) struct Reader {
    pub(crate) problems: Vec<DocumentProblem>,
}

impl Reader {
    pub(crate) fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(problem(path, message));
    }

    /// One value of type `T`; a problem at the exact place inside it if it is not one.
    pub(crate) fn value<T: DeserializeOwned>(&mut self, value: &Value, path: &str) -> Option<T> {
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
    pub(crate) fn list<T: DeserializeOwned>(
        &mut self,
        value: &Value,
        path: &str,
    ) -> Option<Vec<T>> {
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
    pub(crate) fn map<T: DeserializeOwned>(
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
    pub(crate) fn fields<'v>(
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

pub(crate) const REQUIRED: [&str; 9] = [
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
pub(crate) const OPTIONAL: [&str; 6] = [
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
}

pub(crate) fn read_board(reader: &mut Reader, value: &Value) -> Option<BoardDocument> {
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
