//! A described battle's odds, the API's and the odds page's alike: computed within the
//! client's rate and the cap on computations at once, off the request threads.

use actix_web::HttpRequest;
use warlog_rules::described_battle::{DescribedBattle, DescribedOdds, OddsRefusal};

use crate::error::{ApiError, ErrorCode};
use crate::AppState;

/// A refusal of the battle described, as a problem.
fn refused(refusal: OddsRefusal) -> ApiError {
    let code = match &refusal {
        OddsRefusal::NoRuleset(_) => ErrorCode::RulesetNotFound,
        OddsRefusal::UnknownUnit(_) => ErrorCode::UnknownUnit,
        OddsRefusal::Malformed(_) => ErrorCode::MalformedRequest,
        OddsRefusal::TooLarge(_) => ErrorCode::ComputationTooLarge,
    };
    ApiError::new(code, refusal.to_string())
}

/// The odds of a battle for a client: within its rate limit, off the request threads, and
/// stopped if the request is dropped. The API's and the odds page's.
pub(crate) async fn odds_for(
    req: &HttpRequest,
    state: &AppState,
    request: DescribedBattle,
) -> Result<DescribedOdds, ApiError> {
    crate::rate_limit::computation(req, state, move |cancelled| {
        request.odds(Some(cancelled)).map_err(refused)
    })
    .await?
}
