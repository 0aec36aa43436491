//! Players: the stream `player-<handle>`, whose first event registers the handle (so two
//! registrations of one handle meet at the stream's expected version).

use serde::{Deserialize, Serialize};
use warlog_events::variant::{decode_variant, encode_variant};
use warlog_events::{EventDecodeError, EventType};
use warlog_rules::game::Moment;

/// A player's handle: 2 to 32 characters of lowercase letters, digits, `_` and `-`,
/// starting with a letter. It is the name players are seated under in games.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Handle(String);

impl Handle {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Handle {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        let ok_chars = text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
        let starts_with_letter = text.chars().next().is_some_and(|c| c.is_ascii_lowercase());
        if (2..=32).contains(&text.len()) && ok_chars && starts_with_letter {
            Ok(Handle(text))
        } else {
            Err(format!(
                "handle {text:?} must be 2 to 32 lowercase letters, digits, '_' or '-', \
                 starting with a letter"
            ))
        }
    }
}

impl From<Handle> for String {
    fn from(handle: Handle) -> String {
        handle.0
    }
}

impl std::fmt::Display for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A display name: 1 to 80 characters, no control characters, trimmed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct DisplayName(String);

impl DisplayName {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for DisplayName {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.chars().count() > 80 {
            return Err("display_name must be 1 to 80 characters".to_owned());
        }
        if trimmed.chars().any(char::is_control) {
            return Err("display_name must not hold control characters".to_owned());
        }
        Ok(DisplayName(trimmed.to_owned()))
    }
}

impl From<DisplayName> for String {
    fn from(name: DisplayName) -> String {
        name.0
    }
}

/// Every player event type is at version 1 so far.
pub const PLAYER_EVENT_VERSION: u32 = 1;

/// One event of a player stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlayerEvent {
    PlayerRegistered {
        handle: Handle,
        display_name: DisplayName,
        at: Moment,
    },
}

impl PlayerEvent {
    pub fn encode(&self) -> Result<(EventType, u32, serde_json::Value), EventDecodeError> {
        let (event_type, payload) = encode_variant(self)?;
        Ok((event_type, PLAYER_EVENT_VERSION, payload))
    }

    pub fn decode(
        event_type: &str,
        payload: &serde_json::Value,
    ) -> Result<PlayerEvent, EventDecodeError> {
        decode_variant(event_type, payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_short_lowercase_names_starting_with_a_letter() {
        for good in ["ann", "a1", "cut_throat-7"] {
            assert!(Handle::try_from(good.to_owned()).is_ok(), "{good}");
        }
        for bad in [
            "",
            "a",
            "Ann",
            "1ann",
            "ann smith",
            &"a".repeat(33),
            "ann<script>",
        ] {
            assert!(Handle::try_from(bad.to_owned()).is_err(), "{bad}");
        }
    }

    #[test]
    fn display_names_are_trimmed_and_bounded() {
        assert_eq!(
            DisplayName::try_from("  Ann Smith ".to_owned())
                .unwrap()
                .as_str(),
            "Ann Smith"
        );
        assert!(DisplayName::try_from("   ".to_owned()).is_err());
        assert!(DisplayName::try_from("a\u{0007}b".to_owned()).is_err());
        assert!(DisplayName::try_from("x".repeat(81)).is_err());
    }
}
