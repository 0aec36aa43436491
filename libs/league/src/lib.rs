//! Pure league logic: skill ratings, ladders, tournaments and their seating, computed from
//! typed events with no database in sight (the store's projectors persist the results).
//! Dependencies run `rules <- events <- league <- store <- api`.

pub mod audit;
pub mod constraints;
pub mod ladder_audit;
pub mod players;
pub mod rating;
pub mod round_games;
pub mod season;
pub mod seating;
pub mod settings;
pub mod subscribers;
pub mod tournament;
/// The standings are the tournament's (`tournament/standings.rs`): its decisions seat rounds
/// and break ties by them.
pub use tournament::standings;
pub mod wins;
