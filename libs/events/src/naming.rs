//! Games as people name them: by ruleset and players rather than by a 32-digit id, and
//! where one stands in words ("ended in round 4: ann (Germany) first, +25.00%" rather than
//! the last power whose turn it was). The pages, the indexes and the API share these.

use warlog_rules::ruleset::Ruleset;

use crate::game::{power_names, GameLog, GameStatus};
pub use crate::game::{seated_by, seating_of};

/// A game's name: its ruleset's name and its players (`Cut-Throat: ann, bob, cy, di, ed`).
/// `ruleset` is an id; a built-in one is shown by its name.
pub fn game_title(ruleset: &str, players: &[String]) -> String {
    let name = Ruleset::builtin(ruleset).map_or_else(|_| ruleset.to_owned(), |r| r.name.clone());
    if players.is_empty() {
        name
    } else {
        format!("{name}: {}", players.join(", "))
    }
}

/// A game's name for people: a tournament game by its tournament, round and table (when the
/// tournament's name is known), any other by [`game_title`].
pub fn title_of(
    ruleset: &str,
    players: &[String],
    seated_by: Option<&str>,
    tournament_name: Option<&str>,
) -> String {
    match (seated_by.and_then(seating_of), tournament_name) {
        (Some((round, table)), Some(name)) => format!("{name}, round {round}, table {table}"),
        _ => game_title(ruleset, players),
    }
}

impl GameLog {
    /// The game's name ([`game_title`]): the same in its view, its page and the index.
    pub fn title(&self) -> String {
        game_title(&self.created.ruleset, &self.created.players)
    }

    /// The game's name, by its tournament, round and table when the tournament's name is
    /// given ([`title_of`]).
    pub fn title_in(&self, tournament_name: Option<&str>) -> String {
        title_of(
            &self.created.ruleset,
            &self.created.players,
            self.created.seated_by.as_deref(),
            tournament_name,
        )
    }

    /// Where the game stands, in words: whose turn it is while it runs, how it ended once it
    /// has.
    pub fn standing(&self) -> String {
        let round = self.state.round;
        match self.status() {
            GameStatus::Running => {
                let power = self.state.power(&self.ruleset.board);
                match self.state.seats.get(&power) {
                    Some(seat) => {
                        format!("round {round}, {} to play ({})", power.name(), seat.player)
                    }
                    None => format!("round {round}, {} to play", power.name()),
                }
            }
            GameStatus::Voided => format!(
                "voided in round {round}: {}",
                self.state.voided.as_deref().unwrap_or("no reason given")
            ),
            GameStatus::Aborted => {
                let unplayed = power_names(&self.unplayed());
                format!(
                    "aborted in round {round}, before {} had played a turn",
                    join_words(&unplayed)
                )
            }
            GameStatus::MasterOnly => {
                let silent = power_names(&self.not_played_in_person());
                format!(
                    "ended in round {round}, played by its game master alone: {} never \
                     played in person; not rated",
                    join_words(&silent)
                )
            }
            GameStatus::Ended => {
                let first: Vec<String> = self
                    .placements()
                    .and_then(Result::ok)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|row| row.place == 1)
                    .map(|row| {
                        let who = row.player.as_deref().unwrap_or("no player");
                        format!(
                            "{who} ({}) first, {:+.2}%",
                            row.power.name(),
                            row.percent_gain
                        )
                    })
                    .collect();
                if first.is_empty() {
                    format!("ended in round {round}")
                } else {
                    let tied = if first.len() > 1 { " (tied)" } else { "" };
                    format!("ended in round {round}: {}{tied}", first.join("; "))
                }
            }
        }
    }
}

/// `a`, `a and b`, `a, b and c`.
fn join_words(words: &[&str]) -> String {
    match words {
        [] => "every power".to_owned(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tournament_game_is_named_by_its_tournament_round_and_table() {
        let by = seated_by("t1", 2, 3);
        assert_eq!(seating_of(&by), Some((2, 3)));
        let players = vec!["ann".to_owned(), "bob".to_owned()];
        assert_eq!(
            title_of("cutthroat", &players, Some(&by), Some("Winter Open")),
            "Winter Open, round 2, table 3"
        );
        // Without the tournament's name, the ruleset and the players.
        assert_eq!(
            title_of("cutthroat", &players, Some(&by), None),
            game_title("cutthroat", &players)
        );
    }

    #[test]
    fn a_game_is_named_by_its_rulesets_name_and_its_players() {
        let players: Vec<String> = ["ann", "bob"].iter().map(|p| (*p).to_owned()).collect();
        let title = game_title("cutthroat", &players);
        assert!(title.ends_with(": ann, bob"), "{title}");
        assert!(
            !title.starts_with("cutthroat"),
            "the ruleset's name, not its id: {title}"
        );
        assert_eq!(game_title("house-rules", &[]), "house-rules");
    }

    #[test]
    fn powers_are_listed_as_people_list_them() {
        assert_eq!(join_words(&["Japan"]), "Japan");
        assert_eq!(join_words(&["Japan", "Germany"]), "Japan and Germany");
        assert_eq!(
            join_words(&["Japan", "Germany", "Russia"]),
            "Japan, Germany and Russia"
        );
    }
}
