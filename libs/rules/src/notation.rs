//! The turn notation: a turn written the way play-by-email players write it to a game
//! master, one order per line, in plain words.
//!
//! ```text
//! # Germany, round 2
//! buy 3 INF, 1 ARM
//! move 2 INF, 1 ARM: Germany > East Europe > Ukraine
//! battle Ukraine; combat SAAC; loss INF, ARM
//! move 1 FTR: Ukraine > East Europe
//! place 3 INF, 1 ARM in Germany
//! end turn
//! ```
//!
//! [`parse`] reads a text into [`Line`]s, every name resolved against the ruleset (places by
//! the board's names and aliases, units by code or name, without regard to case; an unknown
//! name is refused with the closest names); [`plan`] turns the lines into the orders the
//! engine decides, ending phases where a line belongs to a later phase of the turn; and
//! [`render`] writes recorded orders back in the notation, so pages and audits show orders
//! as players write them. `docs/playing.md` is the grammar for people.

mod names;
mod parse;
mod plan;
mod render;
mod text;

#[cfg(test)]
mod tests;

pub use parse::{parse, parse_line};
pub use plan::{plan, Planned};
pub use render::{render, render_order};

use crate::game::named::NamedOrder;
use crate::game::Phase;

/// The most lines a turn text may hold (comments and blank lines included).
pub const MAX_LINES: usize = 400;

/// The longest line, in characters.
pub const MAX_LINE_CHARS: usize = 2_000;

/// One line of a turn that asks for something.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Its number in the text, from 1.
    pub number: usize,
    pub step: Step,
}

/// What a line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// An order, its names in the board's spelling and the catalogue's codes.
    Order(NamedOrder),
    /// A heading (`non-combat move:`): the turn goes on to that phase.
    Phase(Phase),
    /// `end turn`: every phase left in the turn ends, and the next power plays.
    EndTurn,
}

/// Why a turn text cannot be read: where (line and column, both from 1), what, and for
/// an unknown name the closest names the ruleset knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}{}", did_you_mean(.suggestions))]
pub struct NotationError {
    pub line: usize,
    pub column: usize,
    pub message: String,
    pub suggestions: Vec<String>,
}

fn did_you_mean(suggestions: &[String]) -> String {
    match suggestions {
        [] => String::new(),
        [one] => format!("; did you mean {one}?"),
        more => format!("; did you mean one of {}?", more.join(", ")),
    }
}
