//! Seating a tournament round: who sits at which table, and who plays which power.
//!
//! The aims, in order: no two players share a table twice, then nobody plays the same power
//! twice. Tables are found by a local search (swap two players while that lowers the cost)
//! from several random starting seatings; powers at each table by trying every assignment
//! and drawing one of the best. Every random choice is made with dice from the tournament's
//! committed seed and the dice are recorded, so an auditor can seat the round again.
//!
//! When the players do not fill whole tables, the director's policy decides: fill from the
//! waiting list, or give byes to the lowest-ranked (preferring those who have had none).
//!
//! The director's constraints refuse a round only when no seating at all can keep them,
//! which is decided from the players, the tables and the constraints before any die is
//! rolled (`constraints::satisfiable`): a refusal that followed the dice would tell a
//! director who retries with other constraints something of the tournament's dice. Should
//! the search miss every seating that keeps them, the round is seated with the best found
//! and records the constraints it breaks (`RoundSeating::unmet_constraints`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::constraints::{satisfiable, Rule, SeatingConstraints};
use warlog_rules::board::Power;
use warlog_rules::dice::DiceSource;
use warlog_rules::words::counted;

/// What to do when the players do not fill whole tables.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShortTablePolicy {
    /// Promote players from the waiting list; byes only when it runs short (the default:
    /// with no waiting list it is byes).
    #[default]
    WaitingList,
    /// Byes for the lowest-ranked; the waiting list waits.
    Byes,
}

/// One table of a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSeating {
    /// 1-based.
    pub table: u32,
    pub seats: Vec<(Power, String)>,
}

/// A player sitting a round out, and the points it brings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bye {
    pub player: String,
    pub points: i64,
}

/// A round's seating and why it is so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundSeating {
    pub tables: Vec<TableSeating>,
    pub byes: Vec<Bye>,
    /// Promoted from the waiting list to fill the tables.
    pub promoted: Vec<String>,
    /// Times two players at one table have shared a table before, summed over pairs.
    pub repeated_table_mates: u32,
    /// The fewest repeats any seating could have (a pigeonhole bound): when it equals
    /// `repeated_table_mates`, no better seating exists.
    pub least_possible_repeats: u32,
    /// Seats at a power the player has played before in this tournament.
    pub repeated_powers: u32,
    /// With the director's constraints: the repeated table-mates of the best seating found
    /// without them, so that their cost shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats_without_constraints: Option<u32>,
    /// The director's constraints this seating breaks, in words: none, unless the search
    /// missed every seating that keeps them (a round is refused for its constraints only
    /// when no seating can keep them, which is decided before any die is rolled).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmet_constraints: Vec<String>,
    /// In words, for the director and the players.
    pub explanation: Vec<String>,
}

/// What a round's seating starts from.
#[derive(Debug, Clone)]
pub struct SeatingRequest<'a> {
    /// The players to seat, best-ranked first (byes go to the end of this list).
    pub players: &'a [String],
    /// The waiting list, first come first.
    pub waiting: &'a [String],
    /// Earlier rounds' tables.
    pub history: &'a [Vec<TableSeating>],
    /// Who has had a bye already.
    pub had_bye: &'a [String],
    /// The powers at every table, in the ruleset's order: the table size.
    pub powers: &'a [Power],
    pub policy: ShortTablePolicy,
    pub bye_points: i64,
    /// The director's constraints for this round.
    pub constraints: &'a SeatingConstraints,
}

/// Why a round cannot be seated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SeatingError(pub String);

/// How many random starting seatings the local search tries.
const RESTARTS: usize = 4;
/// How many kicks (random swaps, then local search again) each start gets.
const KICKS: usize = 200;
/// Random swaps in one kick.
const KICK_SWAPS: usize = 3;
/// A repeated table-mate costs more than any number of repeated powers at one table.
const TABLE_MATE_WEIGHT: u32 = 1_000;
/// A broken director's constraint costs more than any number of repeated table-mates.
const CONSTRAINT_WEIGHT: u32 = 10_000_000;

/// The rules the search follows, in plain words (shown beside each round's explanation;
/// not part of the recorded seating, so that rounds seated before it was written audit
/// the same).
pub const SEATING_RULES: &str = "How tables are chosen: first the director's constraints \
     hold; then players who have shared a table share one again as rarely as possible, a \
     pair's third meeting counting as three repeats (so no pair meets a third time while \
     that can be avoided at the cost of fewer than three second meetings); then nobody \
     plays a power they have played before, where that can be avoided; byes go to the \
     lowest-ranked who have not had one; every random choice comes from the tournament's \
     committed seed.";

/// A uniform choice in `0..n` from d6 rolls: the dice are read as base-6 digits, and a
/// number beyond the last whole multiple of `n` is rolled again, so no choice is favoured.
pub fn uniform_below(n: usize, dice: &mut dyn DiceSource) -> usize {
    if n <= 1 {
        return 0;
    }
    let mut span = 6usize;
    let mut digits = 1;
    while span < n {
        span *= 6;
        digits += 1;
    }
    let limit = span / n * n;
    loop {
        let value = (0..digits).fold(0, |acc, _| acc * 6 + usize::from(dice.roll().value() - 1));
        if value < limit {
            return value % n;
        }
    }
}

/// A random order of `items` (Fisher–Yates with [`uniform_below`]).
pub fn shuffle<T>(items: &mut [T], dice: &mut dyn DiceSource) {
    for last in (1..items.len()).rev() {
        items.swap(last, uniform_below(last + 1, dice));
    }
}

/// Seats one round.
pub fn seat_round(
    request: &SeatingRequest<'_>,
    dice: &mut dyn DiceSource,
) -> Result<RoundSeating, SeatingError> {
    let size = request.powers.len();
    if size == 0 {
        return Err(SeatingError("the ruleset has no powers to seat".into()));
    }
    let mut explanation = Vec::new();
    let mut players: Vec<String> = request.players.to_vec();
    let (promoted, byes) = short_tables(request, size, &mut players, &mut explanation);
    if players.is_empty() {
        return Err(SeatingError(format!(
            "a round needs at least {size} players; {} are entered",
            request.players.len()
        )));
    }
    let tables_count = players.len() / size;
    let rules = request
        .constraints
        .resolve(&players, tables_count)
        .map_err(SeatingError)?;
    // Refused for its constraints only before any die is rolled (see `satisfiable`).
    satisfiable(&rules, players.len(), size, tables_count, &players).map_err(|why| {
        SeatingError(format!(
            "the director's constraints cannot all hold at tables of {size} ({}): {why}",
            request.constraints.describe()
        ))
    })?;
    let mut past = History::of(&players, request.history, request.powers);
    let target = past.least_possible_repeats(size);
    // With constraints, the best seating without them first, so that their cost shows.
    let repeats_without_constraints = if rules.is_empty() {
        None
    } else {
        let free = best_order(&past, players.len(), size, target, dice);
        Some(free.chunks(size).map(|t| past.meetings(t)).sum())
    };
    past.rules = rules;
    let order = best_order(&past, players.len(), size, target, dice);
    // Satisfiable, yet the search may miss every seating that keeps them: then the round is
    // seated with the best found, and the record says which it breaks. Refusing here would
    // make the refusal depend on the dice.
    let unmet_constraints: Vec<String> = past
        .rules
        .iter()
        .copied()
        .filter(|rule| {
            order
                .chunks(size)
                .enumerate()
                .any(|(t, members)| rule.broken_at(t, members))
        })
        .map(|rule| rule.describe(&players))
        .collect();
    let mut tables = Vec::with_capacity(tables_count);
    let mut repeated_table_mates = 0;
    let mut repeated_powers = 0;
    for (t, members) in order.chunks(size).enumerate() {
        repeated_table_mates += past.meetings(members);
        let assignments = past.best_assignments(members);
        let (cost, assignment) = &assignments[uniform_below(assignments.len(), dice)];
        repeated_powers += cost;
        let mut seats: Vec<(Power, String)> = members
            .iter()
            .zip(assignment)
            .map(|(&p, &power)| (request.powers[power], players[p].clone()))
            .collect();
        seats.sort_by_key(|(power, _)| request.powers.iter().position(|p| p == power));
        tables.push(TableSeating {
            table: u32::try_from(t + 1).unwrap_or(u32::MAX),
            seats,
        });
    }
    let least_possible_repeats = target;
    explanation.push(table_mates_explained(
        request,
        size,
        tables_count,
        repeated_table_mates,
        least_possible_repeats,
    ));
    explanation.push(match repeated_powers {
        0 if request.history.is_empty() => "powers drawn at random at each table".to_owned(),
        0 => "nobody plays a power they have played before".to_owned(),
        n => format!("{n} players play a power again: no seating of these tables avoids it"),
    });
    if !unmet_constraints.is_empty() {
        explanation.push(format!(
            "some seating keeps all the director's constraints, but the search did not find \
             one: this seating is the best it found, and does not {}",
            unmet_constraints.join("; ")
        ));
    }
    if let Some(without) = repeats_without_constraints {
        explanation.push(constraints_explained(
            request,
            without,
            repeated_table_mates,
        ));
    }
    Ok(RoundSeating {
        tables,
        byes,
        promoted,
        repeated_table_mates,
        least_possible_repeats,
        repeated_powers,
        repeats_without_constraints,
        unmet_constraints,
        explanation,
    })
}

/// Players that do not fill the tables: from the waiting list where the director's
/// policy says so and it holds enough, else byes for the lowest-ranked. The players seated
/// are left in `players`; those promoted and the byes are returned.
fn short_tables(
    request: &SeatingRequest<'_>,
    size: usize,
    players: &mut Vec<String>,
    explanation: &mut Vec<String>,
) -> (Vec<String>, Vec<Bye>) {
    let mut promoted = Vec::new();
    let mut byes = Vec::new();
    let over = players.len() % size;
    if over != 0 {
        let short = size - over;
        let policy_name = match request.policy {
            ShortTablePolicy::WaitingList => "fill from the waiting list",
            ShortTablePolicy::Byes => "byes for the lowest-ranked",
        };
        if request.policy == ShortTablePolicy::WaitingList && request.waiting.len() >= short {
            promoted = request.waiting[..short].to_vec();
            explanation.push(format!(
                "{} players do not fill tables of {size}; the director's policy is to {policy_name}, \
                 so {} from the waiting list join: {}",
                players.len(),
                short,
                promoted.join(", ")
            ));
            players.extend(promoted.iter().cloned());
        } else {
            if request.policy == ShortTablePolicy::WaitingList {
                explanation.push(format!(
                    "{} players do not fill tables of {size}; the director's policy is to fill \
                     from the waiting list, but it holds {} of the {short} needed, so {over} \
                     byes are given instead",
                    players.len(),
                    request.waiting.len()
                ));
            } else {
                explanation.push(format!(
                    "{} players do not fill tables of {size}; the director's policy is {policy_name}, \
                     so {over} sit out with {} points each",
                    players.len(),
                    request.bye_points
                ));
            }
            // The lowest-ranked who have not had a bye yet; then the lowest-ranked at all.
            let mut order: Vec<usize> = (0..players.len()).rev().collect();
            order.sort_by_key(|&i| request.had_bye.contains(&players[i]));
            let mut out: Vec<usize> = order.into_iter().take(over).collect();
            out.sort_unstable_by(|a, b| b.cmp(a));
            for i in out {
                let player = players.remove(i);
                explanation.push(format!(
                    "{player} has a bye: ranked {} of {}{}",
                    i + 1,
                    request.players.len(),
                    if request.had_bye.contains(&player) {
                        " (everyone below has had one already)"
                    } else {
                        ""
                    }
                ));
                byes.push(Bye {
                    player,
                    points: request.bye_points,
                });
            }
            byes.reverse();
        }
    }
    (promoted, byes)
}

/// How many table-mates the round repeats, against the fewest any seating could.
fn table_mates_explained(
    request: &SeatingRequest<'_>,
    size: usize,
    tables_count: usize,
    repeated_table_mates: u32,
    least_possible_repeats: u32,
) -> String {
    match (repeated_table_mates, least_possible_repeats) {
        (0, _) if request.history.is_empty() => {
            let tables = if tables_count == 1 { "table" } else { "tables" };
            format!("{tables_count} {tables} of {size}, drawn at random")
        }
        (0, _) => "no two players share a table again".to_owned(),
        (r, b) if r == b => format!(
            "{r} repeated table-mates, the fewest possible: with {}, \
             every seating repeats at least {b}",
            counted(
                request.history.len() as u64,
                "earlier round",
                "earlier rounds"
            )
        ),
        (r, b) => format!(
            "{r} repeated table-mates, the fewest found (no seating can have fewer than {b})"
        ),
    }
}

/// The director's constraints and what they cost in repeated table-mates, against the
/// best seating found without them.
fn constraints_explained(
    request: &SeatingRequest<'_>,
    without: u32,
    repeated_table_mates: u32,
) -> String {
    let cost = repeated_table_mates.saturating_sub(without);
    format!(
        "the director's constraints ({}): {}; {}",
        request.constraints.reason.trim(),
        request.constraints.describe(),
        match cost {
            0 => format!(
                "they cost no repeated table-mates (the best seating found without them \
                 has {without})"
            ),
            1 => format!("they cost 1 more repeated table-mate than the {without} of the best seating found without them"),
            n => format!("they cost {n} more repeated table-mates than the {without} of the best seating found without them"),
        }
    )
}

/// The best order of players found (tables are its chunks of `size`): several random
/// starts, each improved by local search, until one meets the bound.
fn best_order(
    past: &History,
    players: usize,
    size: usize,
    target: u32,
    dice: &mut dyn DiceSource,
) -> Vec<usize> {
    let mut best: Option<(u32, Vec<usize>)> = None;
    for _ in 0..RESTARTS {
        let mut order: Vec<usize> = (0..players).collect();
        shuffle(&mut order, dice);
        let cost = past.search(&mut order, size, target, dice);
        if best.as_ref().is_none_or(|(b, _)| cost < *b) {
            best = Some((cost, order));
        }
        if best.as_ref().is_some_and(|(b, _)| *b == past.ideal(target)) {
            break;
        }
    }
    best.map(|(_, order)| order).unwrap_or_default()
}

/// Who has met whom and played what, by index into the round's players.
struct History {
    met: Vec<Vec<u32>>,
    played: Vec<Vec<u32>>,
    /// For each earlier round, the table of each player (or none: absent that round).
    rounds: Vec<Vec<Option<usize>>>,
    /// Every assignment of powers to seats, as a power index for each seat.
    permutations: Vec<Vec<usize>>,
    /// The director's constraints, which a seating may not break.
    rules: Vec<Rule>,
}

impl History {
    fn of(players: &[String], history: &[Vec<TableSeating>], powers: &[Power]) -> History {
        let index: HashMap<&str, usize> = players
            .iter()
            .enumerate()
            .map(|(i, p)| (p.as_str(), i))
            .collect();
        let n = players.len();
        let mut met = vec![vec![0; n]; n];
        let mut played = vec![vec![0; powers.len()]; n];
        let mut rounds = Vec::new();
        for round in history {
            let mut table_of = vec![None; n];
            for (t, table) in round.iter().enumerate() {
                let members: Vec<usize> = table
                    .seats
                    .iter()
                    .filter_map(|(_, who)| index.get(who.as_str()).copied())
                    .collect();
                for &a in &members {
                    table_of[a] = Some(t);
                    for &b in &members {
                        if a != b {
                            met[a][b] += 1;
                        }
                    }
                }
                for (power, who) in &table.seats {
                    if let (Some(&p), Some(k)) = (
                        index.get(who.as_str()),
                        powers.iter().position(|q| q == power),
                    ) {
                        played[p][k] += 1;
                    }
                }
            }
            rounds.push(table_of);
        }
        History {
            met,
            played,
            rounds,
            permutations: permutations(powers.len()),
            rules: Vec::new(),
        }
    }

    fn meetings(&self, members: &[usize]) -> u32 {
        let mut total = 0;
        for (i, &a) in members.iter().enumerate() {
            for &b in &members[i + 1..] {
                total += self.met[a][b];
            }
        }
        total
    }

    /// The assignments with the fewest repeated powers, and that number.
    fn best_assignments(&self, members: &[usize]) -> Vec<(u32, Vec<usize>)> {
        let mut best = Vec::new();
        let mut least = u32::MAX;
        for permutation in &self.permutations {
            let cost: u32 = members
                .iter()
                .zip(permutation)
                .map(|(&p, &k)| self.played[p][k])
                .sum();
            if cost < least {
                least = cost;
                best.clear();
            }
            if cost == least {
                best.push((cost, permutation.clone()));
            }
        }
        best
    }

    /// A table's cost: the director's constraints it breaks, then its repeated meetings,
    /// weighted so that a third meeting of one pair costs more than second meetings of
    /// two, then the fewest repeated powers it allows.
    fn table_cost(&self, table: usize, members: &[usize]) -> u32 {
        let broken = self
            .rules
            .iter()
            .filter(|rule| rule.broken_at(table, members))
            .count() as u32;
        let mut meetings = 0;
        for (i, &a) in members.iter().enumerate() {
            for &b in &members[i + 1..] {
                let m = self.met[a][b];
                meetings += m * (m + 1) / 2;
            }
        }
        broken * CONSTRAINT_WEIGHT
            + meetings * TABLE_MATE_WEIGHT
            + self.fewest_repeated_powers(members)
    }

    /// The cheapest assignment of powers, by dynamic programming over the sets of powers
    /// taken (the first k members take the k powers of the set).
    fn fewest_repeated_powers(&self, members: &[usize]) -> u32 {
        let n = members.len();
        let mut least = vec![u32::MAX; 1 << n];
        least[0] = 0;
        for mask in 0usize..(1 << n) {
            let cost = least[mask];
            if cost == u32::MAX {
                continue;
            }
            let seat = mask.count_ones() as usize;
            if seat == n {
                continue;
            }
            let row = &self.played[members[seat]];
            for (power, repeats) in row.iter().enumerate() {
                if mask & (1 << power) == 0 {
                    let next = &mut least[mask | (1 << power)];
                    *next = (*next).min(cost + repeats);
                }
            }
        }
        least[(1 << n) - 1]
    }

    /// The cost of a seating that meets the bound with no repeated power.
    fn ideal(&self, bound: u32) -> u32 {
        bound * TABLE_MATE_WEIGHT
    }

    /// Swaps players between tables while a swap lowers the cost; returns the cost.
    fn improve(&self, order: &mut [usize], size: usize, costs: &mut [u32]) -> u32 {
        loop {
            let mut improved = false;
            for i in 0..order.len() {
                for j in (i + 1)..order.len() {
                    let (ti, tj) = (i / size, j / size);
                    if ti == tj {
                        continue;
                    }
                    order.swap(i, j);
                    let a = self.table_cost(ti, &order[ti * size..(ti + 1) * size]);
                    let b = self.table_cost(tj, &order[tj * size..(tj + 1) * size]);
                    if a + b < costs[ti] + costs[tj] {
                        costs[ti] = a;
                        costs[tj] = b;
                        improved = true;
                    } else {
                        order.swap(i, j);
                    }
                }
            }
            if !improved {
                return costs.iter().sum();
            }
        }
    }

    /// Iterated local search: improve, then kick (a few random swaps) and improve again,
    /// keeping the best, until the bound is met or the kicks run out.
    fn search(
        &self,
        order: &mut Vec<usize>,
        size: usize,
        bound: u32,
        dice: &mut dyn DiceSource,
    ) -> u32 {
        let mut costs: Vec<u32> = order
            .chunks(size)
            .enumerate()
            .map(|(i, t)| self.table_cost(i, t))
            .collect();
        let mut best_cost = self.improve(order, size, &mut costs);
        if order.len() <= size {
            return best_cost;
        }
        let mut best = order.clone();
        for _ in 0..KICKS {
            if best_cost <= self.ideal(bound) {
                break;
            }
            let mut trial = best.clone();
            for _ in 0..KICK_SWAPS {
                let i = uniform_below(trial.len(), dice);
                let j = uniform_below(trial.len(), dice);
                trial.swap(i, j);
            }
            let mut trial_costs: Vec<u32> = trial
                .chunks(size)
                .enumerate()
                .map(|(i, t)| self.table_cost(i, t))
                .collect();
            let cost = self.improve(&mut trial, size, &mut trial_costs);
            if cost <= best_cost {
                best_cost = cost;
                best = trial;
            }
        }
        *order = best;
        best_cost
    }

    /// A bound no seating can beat: for each earlier round, each new table of `size` holds
    /// players from that round's tables; spread as evenly as they can be, some still share
    /// one (the pigeonhole principle).
    fn least_possible_repeats(&self, size: usize) -> u32 {
        let tables = self.met.len() / size;
        self.rounds
            .iter()
            .map(|table_of| {
                let mut groups: HashMap<usize, u32> = HashMap::new();
                for t in table_of.iter().flatten() {
                    *groups.entry(*t).or_default() += 1;
                }
                // Each earlier table's players are spread over the new tables as evenly as
                // possible; each new table then holds at least that many pairs of them.
                groups
                    .values()
                    .map(|&count| spread_pairs(count, u32::try_from(tables).unwrap_or(1)))
                    .sum::<u32>()
            })
            .sum()
    }
}

/// The fewest pairs among `count` players spread over `bins` tables.
fn spread_pairs(count: u32, bins: u32) -> u32 {
    let bins = bins.max(1);
    let (each, extra) = (count / bins, count % bins);
    let pairs = |k: u32| k * k.saturating_sub(1) / 2;
    extra * pairs(each + 1) + (bins - extra) * pairs(each)
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    let mut current: Vec<usize> = (0..n).collect();
    permute(&mut current, 0, &mut all);
    all
}

fn permute(current: &mut Vec<usize>, k: usize, all: &mut Vec<Vec<usize>>) {
    if k == current.len() {
        all.push(current.clone());
        return;
    }
    for i in k..current.len() {
        current.swap(k, i);
        permute(current, k + 1, all);
        current.swap(k, i);
    }
}

#[cfg(test)]
mod tests;
