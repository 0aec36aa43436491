//! Why an order is refused: a stable code, the rule it breaks and a message for people.

/// A refused order: a stable code, the rule it breaks, and a message a player understands.
/// The state is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} ({rule})")]
pub struct RuleViolation {
    pub code: &'static str,
    pub rule: &'static str,
    pub message: String,
}

pub(crate) fn violation(
    code: &'static str,
    rule: &'static str,
    message: impl Into<String>,
) -> RuleViolation {
    RuleViolation {
        code,
        rule,
        message: message.into(),
    }
}
