//! The games a seated round creates: one a table, seated as the round's seating drew it,
//! each with its own dice seed. Seeds come in as an argument: the league draws no
//! randomness of its own.

use warlog_events::game::{GameCreated, GameLog, TournamentTable};
use warlog_rules::dice::GameSeed;
use warlog_rules::game::Moment;
use warlog_rules::ruleset::Ruleset;

use crate::tournament::{Tournament, TournamentEvent};

/// A new game of a round, and the seed it plays with.
#[derive(Debug, Clone)]
pub struct RoundGame {
    pub game_id: String,
    pub seed: GameSeed,
    pub created: GameCreated,
}

/// The games of every round that `events` seat, their game master the tournament's
/// director, created at `at`, each seeded by `seed`.
pub fn games_of_rounds<E>(
    tournament: &Tournament,
    ruleset: &Ruleset,
    events: &[TournamentEvent],
    at: Moment,
    mut seed: impl FnMut() -> Result<GameSeed, E>,
) -> Result<Vec<RoundGame>, E> {
    let mut games = Vec::new();
    let seated = events.iter().filter_map(|event| match event {
        TournamentEvent::RoundSeated(seated) => Some(seated),
        _ => None,
    });
    for seated in seated {
        for (table, game) in seated.seating.tables.iter().zip(&seated.games) {
            let at_table = TournamentTable {
                tournament: tournament.created.tournament_id.clone(),
                round: seated.round,
                table: table.table,
                seats: table.seats.clone(),
            };
            let seed = seed()?;
            let created = GameLog::create_seated(
                ruleset,
                &game.game_id,
                at_table,
                tournament.created.director.clone(),
                at,
                &seed,
            );
            games.push(RoundGame {
                game_id: game.game_id.clone(),
                seed,
                created,
            });
        }
    }
    Ok(games)
}
