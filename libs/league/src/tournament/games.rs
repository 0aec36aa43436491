//! What a tournament's commands give its games: a swap gives each player the other's seat
//! (`TakeSeat` on both games), a substitute the seat whose turn is due
//! (`ReplaceInactivePlayer`). The league says what each game is to record; each game decides
//! it on its own record (`GameLog::decide_command`), in the same write, and the auditor
//! finds it there.

use warlog_events::game::GameLog;
use warlog_events::orders::Command;
use warlog_events::sender::Sender;
use warlog_rules::board::Power;

use super::{
    refuse, RefusalCode, Tournament, TournamentCommand, TournamentEvent, TournamentViolation,
};

/// A command the tournament gives one of its games along with its own events (a swap's
/// seats, a substitute's seat): the game decides it on its own record
/// (`GameLog::decide_command`), in the same write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameCommand {
    pub game_id: String,
    pub command: Command,
}

impl Tournament {
    /// The command that gives the seat whose turn is due in `game_id` (the game's own rule
    /// says which: `ReplaceInactivePlayer` replaces the power to act) to `substitute`, or
    /// to the first on the waiting list. `games` are the tournament's games, folded. Only
    /// one who directs the tournament may ask, so a stranger learns nothing of its games.
    pub fn substitution(
        &self,
        sender: &Sender,
        games: &[GameLog],
        game_id: &str,
        substitute: Option<String>,
    ) -> Result<TournamentCommand, TournamentViolation> {
        self.may_direct(sender)?;
        let log = games
            .iter()
            .find(|g| g.created.game_id == game_id)
            .filter(|_| self.table_of(game_id).is_some());
        let Some(log) = log else {
            return refuse(
                RefusalCode::NotATournamentGame,
                format!("game {game_id} is not one of this tournament's"),
            );
        };
        let power = log.state.to_act(log.ruleset.rules());
        let replaced = log
            .state
            .seats
            .get(&power)
            .map(|s| s.player.clone())
            .unwrap_or_default();
        Ok(TournamentCommand::Substitute {
            game_id: game_id.to_owned(),
            power,
            replaced,
            substitute,
        })
    }

    /// What the games record of these events, decided on this tournament (before them):
    /// a swap gives each player the other's seat, a substitute the seat of the replaced.
    pub fn game_commands(
        &self,
        events: &[TournamentEvent],
    ) -> Result<Vec<GameCommand>, TournamentViolation> {
        let mut commands = Vec::new();
        for event in events {
            match event {
                TournamentEvent::SeatsSwapped(swapped) => {
                    let [a, b] = &swapped.players;
                    for (leaving, taking) in [(a, b), (b, a)] {
                        let (game_id, power) = self.seat_of(swapped.round, leaving)?;
                        commands.push(GameCommand {
                            game_id,
                            command: Command::TakeSeat {
                                power,
                                player: taking.clone(),
                                reason: swapped.reason.clone(),
                            },
                        });
                    }
                }
                TournamentEvent::SubstituteAppointed(appointed) => commands.push(GameCommand {
                    game_id: appointed.game_id.clone(),
                    command: Command::ReplaceInactivePlayer {
                        substitute: appointed.substitute.clone(),
                    },
                }),
                _ => {}
            }
        }
        Ok(commands)
    }

    /// The game and power a player holds in a round, as played.
    fn seat_of(&self, round: u32, player: &str) -> Result<(String, Power), TournamentViolation> {
        let seat = self.rounds.iter().find(|r| r.round == round).and_then(|r| {
            self.round_as_played(r).iter().find_map(|t| {
                let (power, _) = t.seats.iter().find(|(_, who)| who == player)?;
                let game = r.games.iter().find(|g| g.table == t.table)?;
                Some((game.game_id.clone(), *power))
            })
        });
        match seat {
            Some(seat) => Ok(seat),
            None => refuse(
                RefusalCode::NotSeated,
                format!("{player} has no seat in round {round}"),
            ),
        }
    }
}
