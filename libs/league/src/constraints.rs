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
    /// The rule in words, as [`SeatingConstraints::describe`] words it.
    pub(crate) fn describe(self, names: &[String]) -> String {
        match self {
            Rule::Apart(a, b) => format!("keep {} and {} apart", names[a], names[b]),
            Rule::Together(a, b) => format!("seat {} and {} together", names[a], names[b]),
            Rule::Fixed(p, t) => format!("seat {} at table {}", names[p], t + 1),
        }
    }

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

/// How many placements the satisfiability check tries before it gives up undecided: enough
/// for any director's hand at a real event, and a bound on the work a request can ask for.
const SATISFIABILITY_BUDGET: usize = 100_000;

/// Why no seating keeps every rule of the director's, in words
/// (`ann and bob are to be kept apart, yet to sit together`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Unsatisfiable(String);

/// Whether some seating keeps every rule, decided from the players, the tables and the
/// rules alone (no dice): `Err` names why none can, `Ok` when one can or when the check ran
/// out of its budget undecided. A refusal the dice decided would tell a director who
/// retries with other constraints something of the tournament's dice, so a round is
/// refused for its constraints only here, before any die is rolled.
pub(crate) fn satisfiable(
    rules: &[Rule],
    players: usize,
    size: usize,
    tables: usize,
    names: &[String],
) -> Result<(), Unsatisfiable> {
    // Players kept together form groups that sit at one table.
    let mut group: Vec<usize> = (0..players).collect();
    fn root(group: &mut [usize], mut p: usize) -> usize {
        while group[p] != p {
            group[p] = group[group[p]];
            p = group[p];
        }
        p
    }
    for rule in rules {
        if let Rule::Together(a, b) = *rule {
            let (ra, rb) = (root(&mut group, a), root(&mut group, b));
            group[ra] = rb;
        }
    }
    let named: Vec<usize> = {
        let mut named: Vec<usize> = rules
            .iter()
            .flat_map(|rule| match *rule {
                Rule::Apart(a, b) | Rule::Together(a, b) => vec![a, b],
                Rule::Fixed(p, _) => vec![p],
            })
            .map(|p| root(&mut group, p))
            .collect();
        named.sort_unstable();
        named.dedup();
        named
    };
    let members = |group: &mut [usize], r: usize| -> Vec<usize> {
        (0..players).filter(|&p| root(group, p) == r).collect()
    };
    let who = |ps: &[usize]| {
        ps.iter()
            .map(|&p| names[p].as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    // Each group: its size, and the table it is fixed to, if any.
    let mut groups: Vec<(usize, usize, Option<usize>)> = Vec::new();
    for &r in &named {
        let ps = members(&mut group, r);
        if ps.len() > size {
            return Err(Unsatisfiable(format!(
                "{} are to sit together: {} players at tables of {size}",
                who(&ps),
                ps.len()
            )));
        }
        let mut fixed = None;
        for rule in rules {
            if let Rule::Fixed(p, t) = *rule {
                if root(&mut group, p) == r {
                    match fixed {
                        Some(other) if other != t => {
                            return Err(Unsatisfiable(format!(
                                "{} are to sit together, but are fixed to tables {} and {}",
                                who(&ps),
                                other + 1,
                                t + 1
                            )))
                        }
                        _ => fixed = Some(t),
                    }
                }
            }
        }
        groups.push((r, ps.len(), fixed));
    }
    let index_of = |group: &mut [usize], p: usize| {
        let r = root(group, p);
        named.iter().position(|&n| n == r).unwrap_or(0)
    };
    let mut apart: Vec<(usize, usize)> = Vec::new();
    for rule in rules {
        if let Rule::Apart(a, b) = *rule {
            let (ga, gb) = (index_of(&mut group, a), index_of(&mut group, b));
            if ga == gb {
                return Err(Unsatisfiable(format!(
                    "{} and {} are to be kept apart, yet to sit together",
                    names[a], names[b]
                )));
            }
            apart.push((ga, gb));
        }
    }
    // Place the groups, the largest first, each at a table with room and no one it is
    // kept apart from; empty tables nobody is fixed to are alike, so only the first is tried.
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by_key(|&g| (groups[g].2.is_none(), std::cmp::Reverse(groups[g].1)));
    let sizes: Vec<usize> = groups.iter().map(|g| g.1).collect();
    let fixed: Vec<Option<usize>> = groups.iter().map(|g| g.2).collect();
    let mut placement = Placement {
        sizes: &sizes,
        fixed: &fixed,
        apart: &apart,
        size,
        load: vec![0; tables],
        table_of: vec![None; groups.len()],
        fixed_tables: fixed.iter().flatten().copied().collect(),
        budget: SATISFIABILITY_BUDGET,
    };
    match placement.place(&order) {
        Some(true) | None => Ok(()),
        Some(false) => Err(Unsatisfiable("no seating keeps them all".to_owned())),
    }
}

/// A search for tables that keep every rule, group by group.
struct Placement<'a> {
    sizes: &'a [usize],
    fixed: &'a [Option<usize>],
    apart: &'a [(usize, usize)],
    size: usize,
    load: Vec<usize>,
    table_of: Vec<Option<usize>>,
    fixed_tables: Vec<usize>,
    budget: usize,
}

impl Placement<'_> {
    /// Whether the groups in `order` can be placed (`None`: the budget ran out).
    fn place(&mut self, order: &[usize]) -> Option<bool> {
        let Some((&g, rest)) = order.split_first() else {
            return Some(true);
        };
        let candidates: Vec<usize> = match self.fixed[g] {
            Some(t) => vec![t],
            None => {
                let mut tried_empty = false;
                (0..self.load.len())
                    .filter(|&t| {
                        let alike = self.load[t] == 0 && !self.fixed_tables.contains(&t);
                        let first = !(alike && tried_empty);
                        tried_empty |= alike;
                        first
                    })
                    .collect()
            }
        };
        for t in candidates {
            if self.budget == 0 {
                return None;
            }
            self.budget -= 1;
            let clash = self.apart.iter().any(|&(a, b)| {
                (a == g && self.table_of[b] == Some(t)) || (b == g && self.table_of[a] == Some(t))
            });
            if clash || self.load[t] + self.sizes[g] > self.size {
                continue;
            }
            self.load[t] += self.sizes[g];
            self.table_of[g] = Some(t);
            let placed = self.place(rest);
            self.load[t] -= self.sizes[g];
            self.table_of[g] = None;
            if placed != Some(false) {
                return placed;
            }
        }
        Some(false)
    }
}
