//! Exact battle odds for a described battle: the same engine and orders as real battles,
//! as a Markov chain rather than a simulation.

use actix_web::{post, web, HttpRequest, HttpResponse};

use warlog_rules::described_battle::{DescribedBattle, DescribedOdds};

use crate::body::JsonBody;
use crate::error::ApiError;
use crate::reads::odds::odds_for;
use crate::AppState;

resource! {
    battle_odds: [RulesetNotFound, UnknownUnit, ComputationTooLarge, TooManyRequests, Busy],
}

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
