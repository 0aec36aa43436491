//! Identifiers parsed at the edge: once one of these exists, it is valid.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Why a string was refused as an identifier. The message names the rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("stream id {0:?} is not of the form `league` or `<category>-<id>` (category: game, tournament, player, ruleset, dice; id: 1-100 of A-Z a-z 0-9 _ . -)")]
    StreamId(String),
    #[error(
        "event type {0:?} must be 1-64 ASCII letters and digits starting with an upper-case letter"
    )]
    EventType(String),
    #[error("idempotency key must be 1-200 visible ASCII characters")]
    IdempotencyKey,
}

/// The kind of aggregate a stream belongs to (docs/design.md, "One stream per aggregate").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StreamCategory {
    Game,
    Tournament,
    Player,
    League,
    /// An uploaded ruleset's revisions.
    Ruleset,
    /// A dice table: one pair of players' rolls from a dice server (issue 38).
    Dice,
}

impl StreamCategory {
    pub fn as_str(self) -> &'static str {
        match self {
            StreamCategory::Game => "game",
            StreamCategory::Tournament => "tournament",
            StreamCategory::Player => "player",
            StreamCategory::League => "league",
            StreamCategory::Ruleset => "ruleset",
            StreamCategory::Dice => "dice",
        }
    }
}

/// A stream id: `league`, or `game-<id>`, `tournament-<id>`, `player-<id>`, `ruleset-<id>`,
/// `dice-<id>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct StreamId(String);

const MAX_ENTITY_ID_LEN: usize = 100;

impl StreamId {
    /// The stream of one aggregate, e.g. `StreamId::of(StreamCategory::Game, "42")`.
    pub fn of(category: StreamCategory, entity_id: &str) -> Result<Self, IdError> {
        match category {
            StreamCategory::League => Self::try_from("league"),
            other => Self::try_from(format!("{}-{}", other.as_str(), entity_id)),
        }
    }

    pub fn league() -> Self {
        StreamId("league".to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn category(&self) -> StreamCategory {
        let prefix = self.0.split('-').next().unwrap_or_default();
        match prefix {
            "game" => StreamCategory::Game,
            "tournament" => StreamCategory::Tournament,
            "player" => StreamCategory::Player,
            "ruleset" => StreamCategory::Ruleset,
            "dice" => StreamCategory::Dice,
            _ => StreamCategory::League,
        }
    }
}

impl TryFrom<String> for StreamId {
    type Error = IdError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        if value == "league" {
            return Ok(StreamId(value));
        }
        let valid = value
            .split_once('-')
            .filter(|(category, _)| {
                matches!(
                    *category,
                    "game" | "tournament" | "player" | "ruleset" | "dice"
                )
            })
            .is_some_and(|(_, id)| {
                !id.is_empty()
                    && id.len() <= MAX_ENTITY_ID_LEN
                    && id
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
            });
        if valid {
            Ok(StreamId(value))
        } else {
            Err(IdError::StreamId(value))
        }
    }
}

impl TryFrom<&str> for StreamId {
    type Error = IdError;
    fn try_from(value: &str) -> Result<Self, Self::Error> {
        Self::try_from(value.to_owned())
    }
}

impl std::str::FromStr for StreamId {
    type Err = IdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::try_from(s)
    }
}

impl From<StreamId> for String {
    fn from(value: StreamId) -> Self {
        value.0
    }
}

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An event type name such as `GameCreated`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EventType(String);

impl EventType {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for EventType {
    type Error = IdError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        let valid = (1..=64).contains(&value.len())
            && value.as_bytes()[0].is_ascii_uppercase()
            && value.bytes().all(|b| b.is_ascii_alphanumeric());
        if valid {
            Ok(EventType(value))
        } else {
            Err(IdError::EventType(value))
        }
    }
}

impl TryFrom<&str> for EventType {
    type Error = IdError;
    fn try_from(value: &str) -> Result<Self, Self::Error> {
        Self::try_from(value.to_owned())
    }
}

impl From<EventType> for String {
    fn from(value: EventType) -> Self {
        value.0
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The client's `Idempotency-Key`: a retried write carrying it is not applied twice.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key as one caller's: two callers choosing the same key neither see each
    /// other's answers nor block each other. The prefix is a digest of the caller, so the
    /// stored key names no one.
    pub fn for_caller(&self, caller: &str) -> IdempotencyKey {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(caller.as_bytes());
        let prefix: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        IdempotencyKey(format!("{prefix}:{}", self.0))
    }
}

impl TryFrom<String> for IdempotencyKey {
    type Error = IdError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        let valid = (1..=200).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_graphic());
        if valid {
            Ok(IdempotencyKey(value))
        } else {
            Err(IdError::IdempotencyKey)
        }
    }
}

impl TryFrom<&str> for IdempotencyKey {
    type Error = IdError;
    fn try_from(value: &str) -> Result<Self, Self::Error> {
        Self::try_from(value.to_owned())
    }
}

impl From<IdempotencyKey> for String {
    fn from(value: IdempotencyKey) -> Self {
        value.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_ids_of_every_category_parse_and_report_their_category() {
        for (raw, category) in [
            ("league", StreamCategory::League),
            ("game-42", StreamCategory::Game),
            ("tournament-spring-2026", StreamCategory::Tournament),
            ("player-Axis_Fan.1", StreamCategory::Player),
            ("ruleset-house-rules", StreamCategory::Ruleset),
            ("dice-0123456789abcdef", StreamCategory::Dice),
        ] {
            let id = StreamId::try_from(raw).expect(raw);
            assert_eq!(id.category(), category, "{raw}");
            assert_eq!(id.as_str(), raw);
        }
    }

    #[test]
    fn malformed_stream_ids_are_refused() {
        let too_long = format!("game-{}", "x".repeat(101));
        for raw in [
            "",
            "game",
            "game-",
            "games-1",
            "league-1",
            "Game-1",
            "game-1/2",
            "game-ä",
            too_long.as_str(),
        ] {
            assert!(
                StreamId::try_from(raw).is_err(),
                "{raw:?} should be refused"
            );
        }
    }

    #[test]
    fn stream_ids_deserialize_only_when_valid() {
        let ok: Result<StreamId, _> = serde_json::from_str("\"game-7\"");
        assert!(ok.is_ok());
        let bad: Result<StreamId, _> = serde_json::from_str("\"game 7\"");
        assert!(bad.is_err());
    }

    #[test]
    fn event_types_are_pascal_case_ascii() {
        assert!(EventType::try_from("GameCreated").is_ok());
        assert!(EventType::try_from("gameCreated").is_err());
        assert!(EventType::try_from("Game-Created").is_err());
        assert!(EventType::try_from("").is_err());
    }

    #[test]
    fn idempotency_keys_are_visible_ascii_of_bounded_length() {
        assert!(IdempotencyKey::try_from("order-7f3a").is_ok());
        assert!(IdempotencyKey::try_from("has space").is_err());
        assert!(IdempotencyKey::try_from("").is_err());
        assert!(IdempotencyKey::try_from("k".repeat(201)).is_err());
    }
}
