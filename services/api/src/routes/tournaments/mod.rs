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
    create_tournament: keyed [Forbidden, RulesetNotFound, TournamentRule],
    tournament_detail: [TournamentNotFound],
    enter_player: keyed [
        Forbidden, TournamentNotFound, PlayerNotFound, VersionConflict, TournamentRule,
    ],
    drop_player: keyed [Forbidden, TournamentNotFound, VersionConflict, TournamentRule],
    seat_round: keyed [Forbidden, TournamentNotFound, VersionConflict, TournamentRule],
    round_detail: [TournamentNotFound],
    inactive_seats: [TournamentNotFound],
    appoint_substitute: keyed [
        Forbidden, TournamentNotFound, GameNotFound, VersionConflict, TournamentRule,
    ],
    swap_seats: keyed [Forbidden, TournamentNotFound, VersionConflict, TournamentRule],
    finish_tournament: keyed [Forbidden, TournamentNotFound, VersionConflict, TournamentRule],
    tournament_standings_route: [TournamentNotFound],
    tournament_calendar: [TournamentNotFound],
}
