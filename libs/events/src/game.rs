//! The events of a `game-<id>` stream as stored: the rules engine's [`GameEvent`]s, one
//! event type per variant (`PhaseEnded`, `BattleFought`, ...), framed by `GameCreated` and
//! `SeedRevealed`.
//!
//! A payload is the variant's fields as JSON. Territory and unit-type ids are the indexes of
//! the ruleset the game was created with (named in `GameCreated`), so a reader checks them
//! against that board and catalogue before folding.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use warlog_rules::board::Power;
use warlog_rules::game::GameEvent;

use crate::{EventDecodeError, EventType};

/// Every game event type is at version 1 so far.
pub const GAME_EVENT_VERSION: u32 = 1;

/// The first event of a game: its ruleset, its seats and the commitment to its dice seed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameCreated {
    pub game_id: String,
    pub ruleset: String,
    /// SHA-256 of the secret seed, hex: every die can be checked once the seed is revealed.
    pub seed_commitment: String,
    /// Who plays each power, from the seed's first draw.
    pub seats: Vec<(Power, String)>,
}

/// The game's seed, revealed when the game ends (or a director asks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedRevealed {
    /// The 32-byte seed, hex.
    pub seed: String,
}

/// One event of a game stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameStreamEvent {
    Created(GameCreated),
    Played(GameEvent),
    SeedRevealed(SeedRevealed),
}

const CREATED: &str = "GameCreated";
const REVEALED: &str = "SeedRevealed";

fn payload_error(e: impl std::fmt::Display) -> EventDecodeError {
    EventDecodeError::Payload(e.to_string())
}

impl GameStreamEvent {
    /// The stored form: event type, version and payload.
    pub fn encode(&self) -> Result<(EventType, u32, Value), EventDecodeError> {
        let (name, payload) = match self {
            GameStreamEvent::Created(created) => (
                CREATED.to_owned(),
                serde_json::to_value(created).map_err(payload_error)?,
            ),
            GameStreamEvent::SeedRevealed(revealed) => (
                REVEALED.to_owned(),
                serde_json::to_value(revealed).map_err(payload_error)?,
            ),
            // serde writes a variant as {"Variant": fields}: the key is the event type.
            GameStreamEvent::Played(event) => match serde_json::to_value(event) {
                Ok(Value::Object(map)) if map.len() == 1 => map
                    .into_iter()
                    .next()
                    .ok_or_else(|| payload_error("empty"))?,
                Ok(other) => return Err(payload_error(format!("unexpected form {other}"))),
                Err(e) => return Err(payload_error(e)),
            },
        };
        let event_type = EventType::try_from(name).map_err(payload_error)?;
        Ok((event_type, GAME_EVENT_VERSION, payload))
    }

    /// Reads a stored game event back; an unknown type, version or a payload that does not
    /// fit its type is an error naming it.
    pub fn decode(
        event_type: &str,
        event_version: u32,
        payload: &Value,
    ) -> Result<GameStreamEvent, EventDecodeError> {
        if event_version != GAME_EVENT_VERSION {
            return Err(payload_error(format!(
                "{event_type} version {event_version} is not known (only {GAME_EVENT_VERSION})"
            )));
        }
        let in_context = |e: serde_json::Error| payload_error(format!("{event_type}: {e}"));
        match event_type {
            CREATED => serde_json::from_value(payload.clone())
                .map(GameStreamEvent::Created)
                .map_err(in_context),
            REVEALED => serde_json::from_value(payload.clone())
                .map(GameStreamEvent::SeedRevealed)
                .map_err(in_context),
            played => {
                let mut tagged = Map::new();
                tagged.insert(played.to_owned(), payload.clone());
                serde_json::from_value(Value::Object(tagged))
                    .map(GameStreamEvent::Played)
                    .map_err(in_context)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warlog_rules::game::Phase;

    #[test]
    fn a_played_event_is_stored_under_its_variants_name_and_reads_back() {
        let event = GameStreamEvent::Played(GameEvent::IncomeCollected {
            power: Power::Germany,
            amount: 32,
        });
        let (event_type, version, payload) = event.encode().expect("encodes");
        assert_eq!((event_type.as_str(), version), ("IncomeCollected", 1));
        assert_eq!(
            payload,
            serde_json::json!({"power": "germany", "amount": 32})
        );
        let back =
            GameStreamEvent::decode(event_type.as_str(), version, &payload).expect("decodes");
        assert_eq!(back, event);
    }

    #[test]
    fn the_frame_events_read_back() {
        let created = GameStreamEvent::Created(GameCreated {
            game_id: "42".into(),
            ruleset: "cutthroat".into(),
            seed_commitment: "ab".repeat(32),
            seats: vec![(Power::Russia, "ann".into())],
        });
        let (t, v, p) = created.encode().expect("encodes");
        assert_eq!(t.as_str(), "GameCreated");
        assert_eq!(
            GameStreamEvent::decode(t.as_str(), v, &p).expect("back"),
            created
        );
    }

    #[test]
    fn an_unknown_type_a_later_version_or_a_bad_payload_is_refused_by_name() {
        let phase_ended = serde_json::json!({"power": "russia", "phase": "Repairs", "at": 0});
        assert!(matches!(
            GameStreamEvent::decode("PhaseEnded", 1, &phase_ended),
            Ok(GameStreamEvent::Played(GameEvent::PhaseEnded {
                phase: Phase::Repairs,
                ..
            }))
        ));
        for (t, v, p) in [
            ("PhaseEnded", 2, phase_ended.clone()),
            ("PhaseVanished", 1, phase_ended.clone()),
            ("PhaseEnded", 1, serde_json::json!({"power": "atlantis"})),
        ] {
            let err = GameStreamEvent::decode(t, v, &p).expect_err("refused");
            assert!(err.to_string().contains(t), "{err}");
        }
        let bad_die = serde_json::json!({"power": "russia", "die": 9, "granted": 0});
        let err = GameStreamEvent::decode("WarLoanApplied", 1, &bad_die).expect_err("no die 9");
        assert!(err.to_string().contains("1 to 6"), "{err}");
    }

    #[test]
    fn every_event_of_a_long_random_game_reads_back_as_it_was() {
        use warlog_rules::board::Board;
        use warlog_rules::dice::GameSeed;
        use warlog_rules::game::autoplay::random_order;
        use warlog_rules::game::{apply, decide, GameState, Moment, Rules};
        use warlog_rules::setup::Setup;
        use warlog_rules::units::Catalogue;

        let catalogue = Catalogue::builtin("cutthroat").expect("catalogue");
        let rules = Rules {
            board: Board::classic().expect("board"),
            catalogue: &catalogue,
        };
        let setup = Setup::cut_throat().expect("setup");
        let mut state = GameState::start(rules, setup);
        let mut dice = GameSeed::from_bytes([5; 32]).dice_for("events-test", 0);
        let mut next = 0u64;
        let mut choose = |n: usize| {
            next = next
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((next >> 33) % n.max(1) as u64) as usize
        };
        let mut kinds = std::collections::BTreeSet::new();
        for _ in 0..20_000 {
            let (by, order) = random_order(rules, &state, &mut choose);
            let Ok(events) = decide(rules, &state, by, &order, Moment::default(), &mut dice) else {
                continue;
            };
            for event in events {
                apply(rules, &mut state, &event);
                let stored = GameStreamEvent::Played(event);
                let (t, v, p) = stored.encode().expect("encodes");
                kinds.insert(t.as_str().to_owned());
                assert_eq!(
                    GameStreamEvent::decode(t.as_str(), v, &p).expect("decodes"),
                    stored
                );
            }
        }
        assert!(kinds.len() >= 8, "{kinds:?}");
    }
}
