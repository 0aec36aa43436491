//! "Your move": when a power's turn begins, its player is told. Which event begins a turn is
//! decided here, from the game's own log, so the webhooks' `turn.started` and the mail agree
//! with the game's view of whose turn it is, in every ruleset: Cut-Throat's turn passes at
//! the end of its income phase, War's after a player's movement or, at a round's start,
//! with the initiative roll that orders the round.

use warlog_rules::board::Power;
use warlog_rules::game::{GameEvent, Phase};

use crate::game::{decode_recorded, GameLog, GameLogError, GameStatus, GameStreamEvent};
use crate::RecordedEvent;

/// A power's turn that an event began.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnBegun {
    pub game_id: String,
    /// The game's name ([`GameLog::title`]).
    pub title: String,
    pub power: Power,
    /// Who is seated for the power, if anyone.
    pub player: Option<String>,
    pub round: u32,
}

/// Where play stands as a turn: the round, the place in the round's order and the power.
type TurnKey = (u32, usize, Power);

impl GameLog {
    /// The power's turn under way: none while no power's turn runs (War's start zones and
    /// its initiative roll, between rounds) and none once the game is over.
    pub fn turn_under_way(&self) -> Option<TurnKey> {
        let state = &self.state;
        let between = matches!(state.phase, Phase::StartZones | Phase::Initiative);
        (self.status() == GameStatus::Running && !between)
            .then(|| (state.round, state.turn, state.power(&self.ruleset.board)))
    }
}

/// Whether `event` can begin a turn, so a reader folds the game only for these: its
/// creation (the first turn, once the players are seated), War's initiative roll (a round's
/// first turn) and the end of a turn's last step (Cut-Throat's income, War's movement).
/// Every other event leaves play within the turn it found.
pub fn may_begin_a_turn(event: &GameStreamEvent) -> bool {
    match event {
        GameStreamEvent::Created(_) => true,
        GameStreamEvent::Played(GameEvent::InitiativeRolled { .. }) => true,
        GameStreamEvent::Played(GameEvent::PhaseEnded { phase, .. }) => {
            Phase::ALL.last() == Some(phase) || *phase == Phase::CombatMove
        }
        _ => false,
    }
}

/// The turn the last of `events` began, if it began one. `events` is a game's stream from
/// its `GameCreated` up to that event: the game is folded up to the event before it, where
/// play stood is noted, and the event is folded. A turn begins when, after the event, a
/// power's turn is under way that was not before it.
pub fn turn_begun_by(events: &[RecordedEvent]) -> Result<Option<TurnBegun>, GameLogError> {
    let Some((last, before)) = events.split_last() else {
        return Ok(None);
    };
    let (log, was) = if before.is_empty() {
        (GameLog::fold(events)?, None)
    } else {
        let mut log = GameLog::fold(before)?;
        let was = log.turn_under_way();
        log.apply(last.stream_version, &decode_recorded(last)?)?;
        (log, was)
    };
    let Some(now) = log.turn_under_way().filter(|now| Some(*now) != was) else {
        return Ok(None);
    };
    let (round, _, power) = now;
    Ok(Some(TurnBegun {
        game_id: log.created.game_id.clone(),
        title: log.title(),
        power,
        player: log.state.seats.get(&power).map(|seat| seat.player.clone()),
        round,
    }))
}

impl TurnBegun {
    /// The turn page, a path on the site: `/games/{id}/turn`.
    pub fn turn_path(&self) -> String {
        format!("/games/{}/turn", self.game_id)
    }

    /// A mail's subject: `Your move: Germany in Cut-Throat: ann, bob, cy, di, ed`.
    pub fn subject(&self) -> String {
        format!("Your move: {} in {}", self.power.name(), self.title)
    }

    /// A mail's text to the seated player, with the link to the turn page, and (when the
    /// mail carries the turn's reply address) how to send the turn by replying. Lines stay
    /// short (a mail travels as 7-bit text when every line does) and end in `\n` (the
    /// mailer sends them as CRLF).
    pub fn mail_text(&self, link: &str, by_reply: bool) -> String {
        let greeting = match &self.player {
            Some(player) => format!("Hello {player},"),
            None => "Hello,".to_owned(),
        };
        let handle = self.player.as_deref().unwrap_or("<your handle>");
        let reply = if by_reply {
            "Or reply to this mail with your turn, one order per line, as you\n\
             would write it to a game master. Write \"preview\" as the subject\n\
             (or the first line) to see what it would do first: nothing counts\n\
             until you send it without. Every player gets the turn's report.\n\n"
        } else {
            ""
        };
        format!(
            "{greeting}\n\n\
             It is your move: {power}'s turn has begun, round {round} of\n\
             {title}.\n\n\
             Play your turn here:\n\
             {link}\n\n\
             {reply}\
             You get this mail because your e-mail address is on file with the\n\
             league. To stop these mails, remove it, or ask an admin to:\n\
             DELETE /v1/players/{handle}/email\n",
            power = self.power.name(),
            round = self.round,
            title = self.title,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orders::Command;
    use crate::sample::SampleGame;
    use crate::sender::{Role, Sender};
    use warlog_rules::dice::GameSeed;
    use warlog_rules::game::named::NamedOrder;
    use warlog_rules::ruleset::Ruleset;

    fn a_new_game(ruleset: &str) -> SampleGame {
        let ruleset = Ruleset::builtin(ruleset).expect("built in");
        SampleGame::new(ruleset, "notice-test", GameSeed::from_bytes([5; 32]), 11)
    }

    /// Every turn begun in the game's log so far, event by event.
    fn turns_begun(game: &SampleGame) -> Vec<(u64, TurnBegun)> {
        let recorded = game.recorded();
        (1..=recorded.len())
            .filter_map(|n| {
                let event = &recorded[n - 1];
                let decoded = decode_recorded(event).expect("decodes");
                let begun = turn_begun_by(&recorded[..n]).expect("folds");
                if begun.is_some() {
                    assert!(may_begin_a_turn(&decoded), "{}", event.event_type.as_str());
                }
                begun.map(|b| (event.stream_version, b))
            })
            .collect()
    }

    fn plays_its_turn(game: &mut SampleGame) {
        let power = game.log.state.power(&game.log.ruleset.board);
        let player = game.log.state.seats[&power].player.clone();
        let orders = vec![NamedOrder::EndPhase; Phase::ALL.len()];
        assert!(game.send(
            Sender {
                role: Role::Player,
                name: player
            },
            Command::Orders { power, orders }
        ));
    }

    #[test]
    fn a_cut_throat_game_begins_its_first_turn_when_created_and_each_next_one_at_income_end() {
        let mut game = a_new_game("cutthroat");
        for _ in 0..7 {
            plays_its_turn(&mut game);
        }
        let begun = turns_begun(&game);
        let powers: Vec<Power> = begun.iter().map(|(_, b)| b.power).collect();
        let order = game.log.ruleset.board.turn_order();
        let expected: Vec<Power> = (0..8).map(|i| order[i % order.len()]).collect();
        assert_eq!(powers, expected);
        assert_eq!(begun[0].0, 1, "the game's creation begins the first turn");
        let rounds: Vec<u32> = begun.iter().map(|(_, b)| b.round).collect();
        assert_eq!(rounds, [1, 1, 1, 1, 1, 2, 2, 2]);
        for (_, turn) in &begun {
            let seated = &game.log.state.seats[&turn.power].player;
            assert_eq!(turn.player.as_ref(), Some(seated));
        }
    }

    #[test]
    fn an_ended_game_begins_no_turn() {
        let mut game = a_new_game("cutthroat");
        plays_its_turn(&mut game);
        assert!(game.end());
        let recorded = game.recorded();
        for n in 3..=recorded.len() {
            let begun = turn_begun_by(&recorded[..n]).expect("folds");
            let after_end = recorded[..n]
                .iter()
                .any(|e| e.event_type.as_str() == "GameEnded");
            assert!(
                !(after_end && begun.is_some()),
                "a turn begun after the end"
            );
        }
    }

    #[test]
    fn a_war_game_begins_each_turn_by_the_rounds_initiative_order_not_at_its_creation() {
        let mut game = a_new_game("war");
        game.play_until(400, 4000);
        let begun = turns_begun(&game);
        assert!(
            !begun.iter().any(|(version, _)| *version == 1),
            "no player's turn before the start zones and the initiative roll"
        );
        assert!(!begun.is_empty(), "turns were played");
        let recorded = game.recorded();
        for (version, turn) in &begun {
            let log = GameLog::fold(&recorded[..usize::try_from(*version).expect("small")])
                .expect("folds");
            let state = &log.state;
            assert_eq!(turn.power, state.power(&log.ruleset.board));
            assert_eq!(state.phase, Phase::Reinforcements, "the turn's first step");
        }
    }

    #[test]
    fn the_mail_names_the_power_the_game_and_the_turn_page() {
        let turn = TurnBegun {
            game_id: "g1".into(),
            title: "Cut-Throat: ann, bob".into(),
            power: Power::Germany,
            player: Some("ann".into()),
            round: 3,
        };
        assert_eq!(turn.subject(), "Your move: Germany in Cut-Throat: ann, bob");
        assert_eq!(turn.turn_path(), "/games/g1/turn");
        let text = turn.mail_text("https://league.example/games/g1/turn", false);
        assert!(text.starts_with("Hello ann,\n\n"), "{text}");
        assert!(
            text.contains("Germany's turn has begun, round 3 of\nCut-Throat: ann, bob."),
            "{text}"
        );
        assert!(text.contains("\nhttps://league.example/games/g1/turn\n"));
        assert!(text.contains("DELETE /v1/players/ann/email"));
        assert!(text.lines().all(|line| line.len() <= 76), "{text}");
    }
}
