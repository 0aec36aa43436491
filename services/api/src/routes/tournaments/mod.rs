//! Tournaments over HTTP, for directors: create one (with a committed seed), take entries
//! and drops, seat each round (its games are created in the same transaction), offer the
//! seats of inactive players to the waiting list and confirm substitutes, finish; and, for
//! everyone, the tournament, its standings (JSON or CSV) and its calendar (`.ics`).
//!
//! The handlers parse a request into a tournament command and render; the write path is
//! `crate::tournaments::TournamentWrite` through the one write path, which folds the stream, has the league decide
//! (`Tournament::decide`) and the games decide their part, and appends the tournament's
//! events and any games' events atomically.

mod calendar;
mod commands;
mod views;

pub use calendar::*;
pub use commands::*;
pub use views::*;

resource! {
    create_tournament,
    tournament_detail,
    enter_player,
    drop_player,
    seat_round,
    round_detail,
    inactive_seats,
    appoint_substitute,
    swap_seats,
    finish_tournament,
    tournament_standings_route,
    tournament_calendar,
}
