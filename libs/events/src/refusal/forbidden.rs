//! The permission refusal: the sender may not do what they ask. Every permission check of
//! the libraries (who may create a game, give a command, publish a ruleset, register a
//! player, subscribe, ...) refuses with it, so the edge answers them all with one 403.

use super::{Refusal, RefusalKind};

/// A sender who may not do what they ask; the words say who may.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Forbidden(String);

impl Forbidden {
    /// Refuses, saying why in plain words (`creating a game needs the role admin, director
    /// or gm; this token is a player`).
    pub fn new(why: impl Into<String>) -> Forbidden {
        Forbidden(why.into())
    }
}

impl Refusal for Forbidden {
    fn kind(&self) -> RefusalKind {
        RefusalKind::Forbidden
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_permission_refusal_is_forbidden_and_says_why_in_its_own_words() {
        // Given a refusal of a player who asks to publish a ruleset
        let refused = Forbidden::new("uploading a ruleset needs the role admin or director");
        // When it is answered
        let (kind, detail) = (refused.kind(), refused.detail());
        // Then it is forbidden, in exactly its words, and names no rule or version
        assert_eq!(kind, RefusalKind::Forbidden);
        assert_eq!(
            detail,
            "uploading a ruleset needs the role admin or director"
        );
        assert_eq!(refused.to_string(), detail);
        assert_eq!(refused.violation(), None);
        assert_eq!(refused.current_version(), None);
    }
}
