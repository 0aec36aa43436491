//! Why a game is voided: the reason a director gives, which goes on the record
//! (`Command::VoidGame`) for everyone who reads the game's log.

/// The most characters a reason may have.
const MAX_CHARS: usize = 500;

/// A reason for voiding a game: 1 to 500 printable characters once trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoidReason(String);

impl VoidReason {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<&str> for VoidReason {
    type Error = String;

    fn try_from(text: &str) -> Result<Self, Self::Error> {
        let reason = text.trim();
        if reason.is_empty()
            || reason.chars().count() > MAX_CHARS
            || reason.chars().any(char::is_control)
        {
            return Err(
                "reason: 1 to 500 printable characters, saying why the game does not count"
                    .to_owned(),
            );
        }
        Ok(VoidReason(reason.to_owned()))
    }
}

impl From<VoidReason> for String {
    fn from(reason: VoidReason) -> String {
        reason.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_kept_trimmed() {
        // Given a reason with spaces around it, when it is parsed, then it is kept trimmed
        let reason = VoidReason::try_from("  abandoned in round 1 ").expect("a reason");
        assert_eq!(reason.as_str(), "abandoned in round 1");
    }

    #[test]
    fn a_reason_of_500_characters_is_kept_and_one_of_501_refused() {
        let longest = "é".repeat(500);
        assert_eq!(
            VoidReason::try_from(longest.as_str()).map(String::from),
            Ok(longest.clone())
        );
        assert!(VoidReason::try_from(format!("{longest}x").as_str()).is_err());
    }

    #[test]
    fn an_empty_reason_or_one_with_a_control_character_is_refused_saying_what_a_reason_is() {
        for text in ["", "   ", "nobody\ncame", "tab\there"] {
            assert_eq!(
                VoidReason::try_from(text),
                Err(
                    "reason: 1 to 500 printable characters, saying why the game does not count"
                        .to_owned()
                ),
                "{text:?}"
            );
        }
    }
}
