//! Players: the stream `player-<handle>`, whose first event registers the handle (so two
//! registrations of one handle meet at the stream's expected version).

use serde::{Deserialize, Serialize};
use warlog_events::refusal::Forbidden;
use warlog_events::sender::{Role, Sender};
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

/// A player registered without a name goes by the handle, which is always a good one.
impl From<&Handle> for DisplayName {
    fn from(handle: &Handle) -> Self {
        DisplayName(handle.as_str().to_owned())
    }
}

impl From<DisplayName> for String {
    fn from(name: DisplayName) -> String {
        name.0
    }
}

/// A player's e-mail address, where "your move" mails go: private to the player and the
/// admins, kept apart from the log (events are exported publicly, so it is never one).
/// Accepted: at most 254 characters, one `@`, a local part of 1 to 64 printable ASCII
/// characters without spaces, quotes, brackets or other characters a mail header would
/// have to escape, and no dot at either end or two together; a domain of at least two
/// labels of letters, digits and `-` (not at a label's ends), each 1 to 63 long. Leading and
/// trailing spaces are trimmed; anything else, a control character above all, is refused.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EmailAddress(String);

impl EmailAddress {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Not shown in full where an address could leak into a log line.
impl std::fmt::Debug for EmailAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EmailAddress(..)")
    }
}

impl TryFrom<String> for EmailAddress {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        let refuse = |why: &str| Err(format!("email: {why}"));
        let address = text.trim();
        if text.chars().any(char::is_control) {
            return refuse("an address holds no control characters");
        }
        if address.is_empty() || address.len() > 254 {
            return refuse("an address is 1 to 254 characters");
        }
        let Some((local, domain)) = address.split_once('@') else {
            return refuse("an address is local-part@domain");
        };
        if domain.contains('@') {
            return refuse("an address has one @");
        }
        const SPECIAL: &str = "!#$%&'*+-/=?^_`{|}~.";
        let local_ok = (1..=64).contains(&local.len())
            && local
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || SPECIAL.contains(c))
            && !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..");
        if !local_ok {
            return refuse(
                "the part before @ is 1 to 64 letters, digits or !#$%&'*+-/=?^_`{|}~, with \
                 dots only between them",
            );
        }
        let labels: Vec<&str> = domain.split('.').collect();
        let label_ok = |label: &&str| {
            (1..=63).contains(&label.len())
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        };
        if labels.len() < 2 || !labels.iter().all(label_ok) {
            return refuse(
                "the domain after @ is two or more labels of letters, digits and '-' \
                 (club.example)",
            );
        }
        Ok(EmailAddress(address.to_owned()))
    }
}

impl From<EmailAddress> for String {
    fn from(address: EmailAddress) -> String {
        address.0
    }
}

/// Who may register a handle: an admin or a director registers anyone; a player only
/// itself (a player's token under that handle).
pub fn may_register(sender: &Sender, handle: &Handle) -> Result<(), Forbidden> {
    match sender.role {
        Role::Admin | Role::Director => Ok(()),
        Role::Player if sender.name == handle.as_str() => Ok(()),
        _ => Err(Forbidden::new(format!(
            "{} may not register {handle}: an admin, a director or the player itself may",
            sender.name
        ))),
    }
}

/// Who may read, set or remove a player's e-mail address: the player named (a player's
/// token under that handle) or an admin. A director seats players but has no business with
/// their mail.
pub fn may_manage_email(sender: &Sender, handle: &Handle) -> Result<(), Forbidden> {
    match sender.role {
        Role::Admin => Ok(()),
        Role::Player if sender.name == handle.as_str() => Ok(()),
        _ => Err(Forbidden::new(format!(
            "{} may not see or change the e-mail address of {handle}: only {handle} or an \
             admin may",
            sender.name
        ))),
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

    #[test]
    fn a_player_without_a_display_name_goes_by_the_handle() {
        let handle = Handle::try_from("ann_2".to_owned()).unwrap();
        assert_eq!(DisplayName::from(&handle).as_str(), "ann_2");
    }

    #[test]
    fn plausible_addresses_are_accepted_trimmed_and_others_refused_with_a_reason() {
        for good in [
            "ann@club.example",
            "a.b+league@mail.club-x.org",
            "  x@y.io ",
        ] {
            let parsed = EmailAddress::try_from(good.to_owned()).expect(good);
            assert_eq!(parsed.as_str(), good.trim());
        }
        let long_local = format!("{}@club.example", "a".repeat(65));
        let long_domain = format!("ann@{}.example", "d".repeat(64));
        let too_long = format!("ann@{}.example", vec!["d".repeat(60); 5].join("."));
        for bad in [
            "",
            "ann",
            "ann@",
            "@club.example",
            "ann@localhost",
            "ann@@club.example",
            "a@b@club.example",
            "ann smith@club.example",
            "ann\r\nBcc: x@y.z@club.example",
            "ann@club.example\n",
            "ann\u{0}@club.example",
            "\"ann\"@club.example",
            ".ann@club.example",
            "an..n@club.example",
            "ann@-club.example",
            "ann@club..example",
            "<ann@club.example>",
            "ann@clüb.example",
            &long_local,
            &long_domain,
            &too_long,
        ] {
            let refused = EmailAddress::try_from(bad.to_owned());
            assert!(refused.is_err(), "{bad:?}");
            assert!(refused.unwrap_err().starts_with("email: "));
        }
    }

    #[test]
    fn an_address_is_not_shown_in_debug_output() {
        let address = EmailAddress::try_from("ann@club.example".to_owned()).expect("valid");
        assert!(!format!("{address:?}").contains("ann@"));
    }

    fn sender(role: Role, name: &str) -> Sender {
        Sender {
            role,
            name: name.to_owned(),
        }
    }

    #[test]
    fn a_players_address_is_for_the_player_and_admins_only() {
        let ann = Handle::try_from("ann".to_owned()).expect("a handle");
        assert!(may_manage_email(&sender(Role::Player, "ann"), &ann).is_ok());
        assert!(may_manage_email(&sender(Role::Admin, "root"), &ann).is_ok());
        for other in [
            sender(Role::Player, "bob"),
            sender(Role::Director, "ann"),
            sender(Role::Director, "dora"),
            sender(Role::Gm, "gus"),
            sender(Role::Auditor, "ann"),
        ] {
            let refused = may_manage_email(&other, &ann).expect_err("refused");
            assert_eq!(
                refused.to_string(),
                format!(
                    "{} may not see or change the e-mail address of ann: only ann or an admin may",
                    other.name
                )
            );
        }
    }

    #[test]
    fn admins_and_directors_register_anyone_and_a_player_only_itself() {
        // Given the handle ann
        let ann = Handle::try_from("ann".to_owned()).expect("a handle");
        // When an admin, a director or ann's own token registers it, then it may
        for allowed in [
            sender(Role::Admin, "root"),
            sender(Role::Director, "dora"),
            sender(Role::Player, "ann"),
        ] {
            assert!(may_register(&allowed, &ann).is_ok(), "{allowed:?}");
        }
        // Then another player, a gm or an auditor may not, and is told who may
        for other in [
            sender(Role::Player, "bob"),
            sender(Role::Gm, "ann"),
            sender(Role::Auditor, "ann"),
        ] {
            assert_eq!(
                may_register(&other, &ann),
                Err(Forbidden::new(format!(
                    "{} may not register ann: an admin, a director or the player itself may",
                    other.name
                )))
            );
        }
    }
}
