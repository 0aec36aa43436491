//! Exact battle odds for a described battle: the same engine and orders as real battles,
//! as a Markov chain rather than a simulation.

use actix_web::{post, web, HttpRequest, HttpResponse};

use warlog_rules::described_battle::OddsRefusal;
pub use warlog_rules::described_battle::{DescribedBattle, DescribedOdds, SurvivorOdds};

use crate::body::JsonBody;
use crate::error::{ApiError, ErrorCode};
use crate::AppState;

resource! {
    battle_odds: [RulesetNotFound, UnknownUnit, ComputationTooLarge, TooManyRequests, Busy],
}

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

/// Sets its flag when dropped: when actix drops the request's future (the server shutting
/// down), the computation it started stops. Actix does not drop a handler whose client
/// went away (actix/actix-web#3462), so such a computation runs out its budget: about a
/// second, whoever asked.
/// Exact odds of a described battle.
///
/// Each side's units in words (`3 inf, 1 arm`), land or sea, with bombardment, combat
/// order, order of loss and ruleset as asked. The answer gives each outcome's probability,
/// the odds of every set of survivors and each side's expected losses, computed exactly
/// over every roll, or estimated from 2,000 battles (`method` says which) when the exact
/// odds are beyond the budget. Anyone may ask, within a per-client rate (429) and a cap
/// on computations at once (503 `busy`).
#[utoipa::path(post, path = "/v1/odds", tag = "games",
    request_body = DescribedBattle,
    responses(
        (status = 200, description = "The exact odds", body = DescribedOdds),
    ))]
#[post("/v1/odds")]
pub async fn battle_odds(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonBody<DescribedBattle>,
) -> Result<HttpResponse, ApiError> {
    let view = odds_for(&req, &state, body.value).await?;
    Ok(HttpResponse::Ok().json(view))
}

/// The odds of a battle for a client: within its rate limit, off the request threads, and
/// stopped if the request is dropped. The API's and the odds page's.
pub async fn odds_for(
    req: &HttpRequest,
    state: &AppState,
    request: DescribedBattle,
) -> Result<DescribedOdds, ApiError> {
    crate::rate_limit::computation(req, state, move |cancelled| {
        request.odds(Some(cancelled)).map_err(refused)
    })
    .await?
}
