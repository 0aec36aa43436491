//! A director's hand on a round's seating: pairs kept apart (one household), pairs kept
//! together, and players fixed to a table (one who can only play that table's schedule),
//! given before the round is seated, with the director's reason. The seating search treats
//! them as rules it may not break, and says what they cost in repeated table-mates.

use serde::{Deserialize, Serialize};

/// A player who must sit at one table (1-based).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FixedTable {
    pub player: String,
    pub table: u32,
}

/// What the director asks of a round's seating.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SeatingConstraints {
    /// Pairs who must not share a table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keep_apart: Vec<[String; 2]>,
    /// Pairs who must share a table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keep_together: Vec<[String; 2]>,
    /// Players who must sit at a given table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed_tables: Vec<FixedTable>,
    /// Why, in the director's words (required with any constraint).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// One constraint, by index into the round's players.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    Apart(usize, usize),
    Together(usize, usize),
    /// Player, table index (0-based).
    Fixed(usize, usize),
}

/// The longest reason kept.
const MAX_REASON: usize = 500;

impl SeatingConstraints {
    pub fn is_empty(&self) -> bool {
        self.keep_apart.is_empty() && self.keep_together.is_empty() && self.fixed_tables.is_empty()
    }

    /// Every player the constraints name.
    pub fn players(&self) -> impl Iterator<Item = &String> {
        self.keep_apart
            .iter()
            .chain(&self.keep_together)
            .flatten()
            .chain(self.fixed_tables.iter().map(|f| &f.player))
    }

    /// Checks the constraints against the players seated this round and the tables there
    /// will be; the rules by index, or what is wrong, in plain words.
    pub(crate) fn resolve(&self, players: &[String], tables: usize) -> Result<Vec<Rule>, String> {
        if self.is_empty() {
            return Ok(Vec::new());
        }
        let reason = self.reason.trim();
        if reason.is_empty() {
            return Err("give the reason for the seating constraints".to_owned());
        }
        if reason.chars().count() > MAX_REASON || reason.chars().any(char::is_control) {
            return Err(format!(
                "the reason is one line of at most {MAX_REASON} characters"
            ));
        }
        let index = |player: &String| {
            players
                .iter()
                .position(|p| p == player)
                .ok_or_else(|| format!("{player} is not among the players seated this round"))
        };
        let pair = |[a, b]: &[String; 2]| -> Result<(usize, usize), String> {
            if a == b {
                return Err(format!("{a} is named twice in one pair"));
            }
            Ok((index(a)?, index(b)?))
        };
        let mut rules = Vec::new();
        for p in &self.keep_apart {
            let (a, b) = pair(p)?;
            rules.push(Rule::Apart(a, b));
        }
        for p in &self.keep_together {
            let (a, b) = pair(p)?;
            rules.push(Rule::Together(a, b));
        }
        for fixed in &self.fixed_tables {
            if fixed.table == 0 || fixed.table as usize > tables {
                return Err(format!(
                    "{} is fixed to table {}; this round has tables 1 to {tables}",
                    fixed.player, fixed.table
                ));
            }
            rules.push(Rule::Fixed(index(&fixed.player)?, fixed.table as usize - 1));
        }
        Ok(rules)
    }

    /// The constraints in words: "keep ann and bob apart; seat cy at table 2".
    pub fn describe(&self) -> String {
        let apart = self
            .keep_apart
            .iter()
            .map(|[a, b]| format!("keep {a} and {b} apart"));
        let together = self
            .keep_together
            .iter()
            .map(|[a, b]| format!("seat {a} and {b} together"));
        let fixed = self
            .fixed_tables
            .iter()
            .map(|f| format!("seat {} at table {}", f.player, f.table));
        apart
            .chain(together)
            .chain(fixed)
            .collect::<Vec<_>>()
            .join("; ")
    }
}

impl Rule {
    /// Whether a table (its index and members) breaks this rule.
    pub(crate) fn broken_at(self, table: usize, members: &[usize]) -> bool {
        let has = |p: usize| members.contains(&p);
        match self {
            Rule::Apart(a, b) => has(a) && has(b),
            // Counted at the table of each: a split pair shows at both.
            Rule::Together(a, b) => has(a) != has(b),
            Rule::Fixed(p, t) => has(p) && t != table,
        }
    }
}
