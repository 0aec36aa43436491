//! Why a tournament command is refused: a stable code and a message for people. The codes
//! are one table, one line each (as the engine's `ViolationCode` and the API's error table
//! are): the enum, its strings and the list of every code come from it, so a new refusal
//! is one line and a misspelt code does not compile.

use std::fmt;

use warlog_events::refusal::{Refusal, RefusalKind};

use super::TournamentViolation;

macro_rules! refusal_codes {
    ($($variant:ident = $code:literal,)*) => {
        /// A tournament refusal's stable code, as clients match on it. It is written (in
        /// the API, in audits) as its kebab-case string, which never changes.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum RefusalCode {
            $($variant,)*
        }

        impl RefusalCode {
            /// Every code, in the table's order.
            pub const ALL: &'static [RefusalCode] = &[$(RefusalCode::$variant,)*];

            /// The code as clients see it (`rounds-left`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(RefusalCode::$variant => $code,)*
                }
            }
        }
    };
}

#[rustfmt::skip]
refusal_codes! {
    AlreadyEntered = "already-entered",
    BadReason = "bad-reason",
    BadTableSize = "bad-table-size",
    CannotSeat = "cannot-seat",
    Forbidden = "forbidden",
    GamesRunning = "games-running",
    InvalidSettings = "invalid-settings",
    NoRound = "no-round",
    NotATournamentGame = "not-a-tournament-game",
    NotEntered = "not-entered",
    NotSeated = "not-seated",
    NotWaiting = "not-waiting",
    RoundBegun = "round-begun",
    RoundsDone = "rounds-done",
    RoundsLeft = "rounds-left",
    SamePlayer = "same-player",
    SameTable = "same-table",
    SeatedThisRound = "seated-this-round",
    SeatedTwice = "seated-twice",
    SeedMismatch = "seed-mismatch",
    SwapChain = "swap-chain",
    TournamentFinished = "tournament-finished",
    WaitingListEmpty = "waiting-list-empty",
}

impl RefusalCode {
    /// Whether the refusal is of the sender (who may not give the command), not of the
    /// tournament's rules: the API answers it 403, the auditor requires it of a record
    /// refused for its sender.
    pub fn is_forbidden(self) -> bool {
        self == RefusalCode::Forbidden
    }
}

impl fmt::Display for RefusalCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refusal of the sender is forbidden like any other; a refusal by the tournament's
/// rules carries its code, for clients to match on.
impl Refusal for TournamentViolation {
    fn kind(&self) -> RefusalKind {
        if self.code.is_forbidden() {
            RefusalKind::Forbidden
        } else {
            RefusalKind::TournamentRule
        }
    }

    /// A rule's code leads its words, so that one reading only the words knows the rule.
    fn detail(&self) -> String {
        if self.code.is_forbidden() {
            self.message.clone()
        } else {
            format!("{}: {}", self.code, self.message)
        }
    }

    fn violation(&self) -> Option<(&'static str, Option<&'static str>)> {
        (!self.code.is_forbidden()).then_some((self.code.as_str(), None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_kebab_case_and_written_once() {
        // Given the table's codes
        let codes: Vec<&str> = RefusalCode::ALL.iter().map(|c| c.as_str()).collect();
        // When they are sorted and deduplicated
        let mut distinct = codes.clone();
        distinct.sort_unstable();
        distinct.dedup();
        // Then none was lost, and each is lowercase words joined by hyphens
        assert_eq!(distinct.len(), codes.len());
        for code in codes {
            assert!(
                code.split('-')
                    .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase())),
                "{code}"
            );
        }
    }

    #[test]
    fn a_sender_refused_is_forbidden_and_a_rule_refused_carries_its_code() {
        // Given a tournament's refusal of its sender, and one by its rules
        let forbidden = TournamentViolation {
            code: RefusalCode::Forbidden,
            message: "dan may not direct this tournament: dora directs it".to_owned(),
        };
        let rule = TournamentViolation {
            code: RefusalCode::RoundsLeft,
            message: "2 rounds are left to play".to_owned(),
        };
        // When each is answered, then the first is forbidden in its own words, naming no
        // rule
        assert_eq!(forbidden.kind(), RefusalKind::Forbidden);
        assert_eq!(
            forbidden.detail(),
            "dan may not direct this tournament: dora directs it"
        );
        assert_eq!(forbidden.violation(), None);
        // and the second is the tournament's rule, its code in its words and beside them
        assert_eq!(rule.kind(), RefusalKind::TournamentRule);
        assert_eq!(rule.detail(), "rounds-left: 2 rounds are left to play");
        assert_eq!(rule.violation(), Some(("rounds-left", None)));
    }

    #[test]
    fn a_code_is_written_as_its_string() {
        // Given a refusal's code, when it is written, then it reads as clients match on it
        assert_eq!(RefusalCode::RoundsLeft.to_string(), "rounds-left");
        assert!(RefusalCode::Forbidden.is_forbidden());
        assert!(!RefusalCode::NoRound.is_forbidden());
    }
}
