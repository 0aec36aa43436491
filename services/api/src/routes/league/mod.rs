//! The league over HTTP: players and the ladders (Cut-Throat points with titles, and the
//! skill rating), lifetime or per season, per ruleset. Reads come from the `league` read
//! models; a ladder's pages are read as of the league's state when the first page was
//! served (the cursor carries it), so paging never repeats or skips a player while games
//! finish.

mod leaderboards;
mod players;

pub use leaderboards::*;
pub use players::*;

resource! {
    register_player: keyed [Forbidden, PlayerExists],
    player_detail: [PlayerNotFound],
    leaderboard: [InvalidCursor, LadderNotFound, RulesetNotFound],
}
