//! Names in a turn text: places, units and powers as people write them, resolved against
//! one ruleset, and the closest names when one is unknown.

use super::text::{column, Text};
use super::NotationError;
use crate::board::{normalise, respellings, Power};
use crate::game::named::{UnitCount, UnitList};
use crate::ruleset::Ruleset;

/// Resolves the names of one line.
pub(super) struct Names<'a> {
    pub ruleset: &'a Ruleset,
    pub line: &'a str,
    pub number: usize,
}

/// How alike two names must be (Jaro-Winkler, 0 to 1) to be offered as a suggestion.
const ALIKE: f64 = 0.8;

/// How far below the best a suggestion may score.
const NEARLY: f64 = 0.06;

impl Names<'_> {
    pub fn error(&self, at: Text<'_>, message: String) -> NotationError {
        self.suggest(at, message, Vec::new())
    }

    fn suggest(&self, at: Text<'_>, message: String, suggestions: Vec<String>) -> NotationError {
        NotationError {
            line: self.number,
            column: column(self.line, at.at),
            message,
            suggestions,
        }
    }

    /// A territory or sea zone: the board's own spelling of it.
    pub fn place(&self, text: Text<'_>) -> Result<String, NotationError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(self.error(text, "a place is missing here".to_owned()));
        }
        let board = &self.ruleset.board;
        match board.id(text.s) {
            Ok(id) => Ok(board.get(id).name.clone()),
            Err(_) => {
                let candidates = board.territories().flat_map(|(_, t)| {
                    std::iter::once((t.name.as_str(), t.name.as_str()))
                        .chain(t.aliases.iter().map(|a| (a.as_str(), t.name.as_str())))
                });
                // "Mediterranean" alone: the zones of that sea, for the player to choose.
                let respelled = respellings(&normalise(text.s));
                let zones: Vec<String> = board
                    .territories()
                    .filter(|(_, t)| {
                        let name = normalise(&t.name);
                        respelled.iter().any(|r| name.ends_with(&format!(" {r}")))
                    })
                    .map(|(_, t)| t.name.clone())
                    .take(3)
                    .collect();
                let suggestions = if zones.is_empty() {
                    closest(text.s, candidates)
                } else {
                    zones
                };
                Err(self.suggest(
                    text,
                    format!(
                        "no territory or sea zone \"{}\" on the {} board",
                        text.s, self.ruleset.id
                    ),
                    suggestions,
                ))
            }
        }
    }

    /// Places separated by commas.
    pub fn places(&self, text: Text<'_>) -> Result<Vec<String>, NotationError> {
        text.split(",").into_iter().map(|t| self.place(t)).collect()
    }

    /// A path: `A > B > C` (or `->`, `→`), or `from A to C via B`.
    pub fn path(&self, text: Text<'_>) -> Result<Vec<String>, NotationError> {
        let text = text.trim();
        if let Some(rest) = text.after_phrase("from") {
            return self.path_from(rest);
        }
        // Each arrow becomes ">" padded to its own length, so columns stay true.
        let normal = text.s.replace("->", " >").replace('→', ">  ");
        let steps = Text {
            s: &normal,
            at: text.at,
        }
        .split(">");
        if steps.len() < 2 {
            return Err(self.error(
                text,
                "a path names where the units stand and where they go: \"Germany > East \
                 Europe\" or \"from Germany to East Europe\""
                    .to_owned(),
            ));
        }
        steps.into_iter().map(|t| self.place(t)).collect()
    }

    /// What follows "from" in a path: `A to C via B`.
    pub fn path_from(&self, text: Text<'_>) -> Result<Vec<String>, NotationError> {
        let Some((from, rest)) = text.split_word("to") else {
            return Err(self.error(
                text,
                "a path reads \"from A to B\" (or \"A > B\"); \"to\" is missing".to_owned(),
            ));
        };
        let (to, via) = match rest.split_word("via") {
            Some((to, via)) => (to, self.places(via)?),
            None => (rest, Vec::new()),
        };
        let mut path = vec![self.place(from)?];
        path.extend(via);
        path.push(self.place(to)?);
        Ok(path)
    }

    /// A unit by its code or its name (plural too): the catalogue's code.
    pub fn unit(&self, text: Text<'_>) -> Result<String, NotationError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(self.error(text, "a unit is missing here".to_owned()));
        }
        let catalogue = &self.ruleset.catalogue;
        let wanted = text.s.split_whitespace().collect::<Vec<_>>().join(" ");
        let singular = wanted
            .strip_suffix('s')
            .or_else(|| wanted.strip_suffix("S"))
            .unwrap_or(&wanted);
        let found = catalogue.units().find(|(_, u)| {
            u.code.eq_ignore_ascii_case(&wanted)
                || u.name.eq_ignore_ascii_case(&wanted)
                || u.name.eq_ignore_ascii_case(singular)
        });
        match found {
            Some((_, u)) => Ok(u.code.clone()),
            None => {
                let codes: Vec<&str> = catalogue.units().map(|(_, u)| u.code.as_str()).collect();
                let candidates = catalogue.units().flat_map(|(_, u)| {
                    [
                        (u.code.as_str(), u.code.as_str()),
                        (u.name.as_str(), u.code.as_str()),
                    ]
                });
                Err(self.suggest(
                    text,
                    format!(
                        "no unit \"{}\" in {} (units: {})",
                        text.s,
                        self.ruleset.id,
                        codes.join(", ")
                    ),
                    closest(singular, candidates),
                ))
            }
        }
    }

    /// Unit codes in order, separated by commas (or spaces): an order of loss.
    pub fn unit_codes(&self, text: Text<'_>) -> Result<Vec<String>, NotationError> {
        let mut codes = Vec::new();
        for piece in text.split(",") {
            if piece.is_empty() {
                continue;
            }
            match self.unit(piece) {
                Ok(code) => codes.push(code),
                // "INF ARM FTR": codes separated by spaces.
                Err(whole) => {
                    let words = piece.words();
                    if words.len() < 2 {
                        return Err(whole);
                    }
                    for word in words {
                        codes.push(self.unit(word)?);
                    }
                }
            }
        }
        if codes.is_empty() {
            return Err(self.error(text, "name at least one unit".to_owned()));
        }
        Ok(codes)
    }

    /// Units with counts: `3 INF, 1 ARM`, `3 infantry and 2 fighters`, `2 INF 1 ARM`; a
    /// unit without a count is one.
    pub fn units(&self, text: Text<'_>) -> Result<UnitList, NotationError> {
        let mut list = UnitList::new();
        for piece in text
            .split(",")
            .into_iter()
            .flat_map(|p| p.split_words("and"))
        {
            if piece.is_empty() {
                continue;
            }
            // A number starts a new kind: "2 INF 1 ARM".
            let mut groups: Vec<(Option<Text<'_>>, Vec<Text<'_>>)> = Vec::new();
            for word in piece.words() {
                if word.s.chars().all(|c| c.is_ascii_digit()) {
                    groups.push((Some(word), Vec::new()));
                } else {
                    match groups.last_mut() {
                        Some((_, words)) => words.push(word),
                        None => groups.push((None, vec![word])),
                    }
                }
            }
            for (count, words) in groups {
                let (Some(first), Some(last)) = (words.first(), words.last()) else {
                    let at = count.unwrap_or(piece);
                    return Err(self.error(at, format!("{} of what? Name a unit", at.s)));
                };
                let name = Text {
                    s: &piece.s[first.at - piece.at..last.at - piece.at + last.s.len()],
                    at: first.at,
                };
                let code = self.unit(name)?;
                let n = match count {
                    None => 1,
                    Some(count) => count.s.parse::<i64>().map_err(|_| {
                        self.error(
                            count,
                            format!("a unit count is 1 to {}, not {}", UnitCount::MAX, count.s),
                        )
                    })?,
                };
                let n = UnitCount::try_from(n)
                    .map_err(|e| self.error(count.unwrap_or(name), e))?
                    .get();
                let total = list.get(&code).map_or(0, |c| c.get()) + n;
                let total = UnitCount::try_from(i64::from(total))
                    .map_err(|e| self.error(name, format!("{code}: {e}")))?;
                list.insert(code, total);
            }
        }
        if list.is_empty() {
            return Err(self.error(text, "name at least one unit, e.g. \"3 INF\"".to_owned()));
        }
        Ok(list)
    }

    /// A power by its name or a common short form (UK, US, USA).
    pub fn power(&self, text: Text<'_>) -> Result<Power, NotationError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(self.error(text, "a power is missing here".to_owned()));
        }
        let wanted = text.s.split_whitespace().collect::<Vec<_>>().join(" ");
        let seated = self.ruleset.board.turn_order();
        let short = |p: Power| -> &'static [&'static str] {
            match p {
                Power::UnitedKingdom => &["UK", "Britain", "Great Britain", "England"],
                Power::UnitedStates => &["US", "USA", "America"],
                Power::Npn => &["NPN"],
                _ => &[],
            }
        };
        let found = seated.iter().copied().find(|p| {
            p.name().eq_ignore_ascii_case(&wanted)
                || short(*p).iter().any(|s| s.eq_ignore_ascii_case(&wanted))
        });
        found.ok_or_else(|| {
            let names: Vec<&str> = seated.iter().map(|p| p.name()).collect();
            self.suggest(
                text,
                format!(
                    "no power \"{}\" in {} (powers: {})",
                    text.s,
                    self.ruleset.id,
                    names.join(", ")
                ),
                closest(&wanted, names.iter().map(|n| (*n, *n))),
            )
        })
    }

    /// A whole number, at `text`.
    pub fn number(&self, text: Text<'_>, what: &str) -> Result<u32, NotationError> {
        let text = text.trim();
        text.s
            .parse::<u32>()
            .map_err(|_| self.error(text, format!("{what}: a whole number, not \"{}\"", text.s)))
    }
}

/// Up to three names most like `wanted` (each candidate is a spelling and the name it
/// stands for), most alike first, each named once.
pub(super) fn closest<'a>(
    wanted: &str,
    candidates: impl Iterator<Item = (&'a str, &'a str)>,
) -> Vec<String> {
    let wanted = wanted.to_lowercase();
    let mut scored: Vec<(f64, &str)> = candidates
        .map(|(spelling, name)| {
            (
                strsim::jaro_winkler(&wanted, &spelling.to_lowercase()),
                name,
            )
        })
        .filter(|(score, _)| *score >= ALIKE)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    // Only names nearly as alike as the best: one clear match is offered alone.
    let best = scored.first().map_or(1.0, |(score, _)| *score);
    let mut names: Vec<String> = Vec::new();
    for (_, name) in scored
        .into_iter()
        .filter(|(score, _)| *score >= best - NEARLY)
    {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
        if names.len() == 3 {
            break;
        }
    }
    names
}
