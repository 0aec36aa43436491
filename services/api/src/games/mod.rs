//! Games in the service (docs/design.md, "The dice"; issue 5): their folds and the cache that
//! keeps them, what the game page reads from a whole log, and the writes to a game through
//! the one write path ([`crate::write::run`]): [`GameCommand`] for a command to an existing
//! game (a new one is [`crate::new_game::NewGame`]).
//!
//! The seed is read here and handed to the domain; it never reaches a response.

mod accepted;
mod cache;
mod chronicle;
mod command;
mod fold;
mod reports;

pub use accepted::{RefusedAfterDice, WriteAccepted};
pub use cache::GameCache;
pub use chronicle::{chronicle, Chronicle, OrdersWritten, PhaseEnd};
pub use command::{Commanded, Commanding, GameCommand};
pub use fold::{game_stream, load, load_at, read_all_events, read_events};
