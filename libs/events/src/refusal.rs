//! What every refusal of the libraries is: a type with a kind, which decides how it is
//! answered, and words that say why. The libraries decide; the edge (the API's error
//! table) answers, once for every refusal, so a permission check never hands back bare
//! text that each caller must remember to turn into a 403.

mod forbidden;

pub use forbidden::Forbidden;

/// What kind of refusal a refusal is. Each kind is answered the same way wherever it comes
/// from: the API gives each one line of its error table (status and problem type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefusalKind {
    /// The sender may not do this: their role, or who they are, does not allow it.
    Forbidden,
    /// The request asks for nothing, or for something that cannot be made.
    Malformed,
    /// Decided on another version than the stream's.
    VersionConflict,
    /// A rule of the game forbids the order.
    RuleViolation,
    /// A tournament's rules forbid the command.
    TournamentRule,
    /// An order names a territory or sea zone the board does not have.
    UnknownTerritory,
    /// An order names a unit the ruleset does not have.
    UnknownUnit,
    /// A dice table's seed is asked for without this epoch's link, before the table has
    /// been idle long enough.
    RevealRefused,
    /// A dice table has not rolled since its seed was last revealed.
    NothingToReveal,
    /// The service's own record or seed does not hold: never the asker's doing.
    Fault,
}

/// A refusal: its kind, and its words for whoever asked. Nothing was done.
pub trait Refusal: std::fmt::Display {
    /// How the refusal is answered.
    fn kind(&self) -> RefusalKind;

    /// The refusal in plain words for the asker; by default, its display.
    fn detail(&self) -> String {
        self.to_string()
    }

    /// For the refusal of a rule: the rule's stable code, which clients match on, and the
    /// rule itself (document and section), when the refusal names one.
    fn violation(&self) -> Option<(&'static str, Option<&'static str>)> {
        None
    }

    /// For a refusal of the version: the version the stream is at, from which the asker
    /// decides again.
    fn current_version(&self) -> Option<u64> {
        None
    }
}
