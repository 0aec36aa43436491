//! Orders as clients write them, with the board's names and the units' codes. The form and
//! its resolution live in the rules engine ([`warlog_rules::game::named`]), because the log
//! records orders in this form and the auditor resolves them with the same code; here a
//! name the ruleset does not know becomes a problem with its code.

use warlog_rules::game::named::{NameError, NameErrorKind};
pub use warlog_rules::game::named::{NamedOrder as OrderInput, NamedRetreat as RetreatInput};

use crate::error::{ApiError, ErrorCode};

impl From<NameError> for ApiError {
    fn from(error: NameError) -> Self {
        let code = match error.kind {
            NameErrorKind::UnknownTerritory => ErrorCode::UnknownTerritory,
            NameErrorKind::UnknownUnit => ErrorCode::UnknownUnit,
            NameErrorKind::Malformed => return ApiError::malformed(error.message),
        };
        ApiError::new(code, error.message)
    }
}
