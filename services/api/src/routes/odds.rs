//! Exact battle odds for a described battle: the same engine and orders as real battles,
//! as a Markov chain rather than a simulation.

use actix_web::{post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use utoipa::ToSchema;

use warlog_rules::battle::{
    describe, estimated_odds, exact_odds_within, Battle, BattleKind, CombatOrder, Survivors, Work,
};
use warlog_rules::board::Power;
use warlog_rules::dice::GameSeed;
use warlog_rules::document::RulesetDocument;
use warlog_rules::game::named::NamedRetreat;
use warlog_rules::units::{Catalogue, UnitTypeId};
use warlog_rules::violation::ViolationCode;

use crate::body::JsonBody;
use crate::error::{ApiError, ErrorCode};
use crate::AppState;

resource! {
    battle_odds: [RulesetNotFound, UnknownUnit, ComputationTooLarge, TooManyRequests, Busy],
}

/// The most units a side may have: the chain grows with the product of the sides.
pub const MAX_UNITS_PER_SIDE: u32 = 60;

/// The exact odds' budget, in steps (a steady round's transition is one; a round expanded
/// die by die, 200): about half a second on the machine in docs/benchmarks.md. Beyond
/// it, the odds are estimated instead.
pub const EXACT_WORK_BUDGET: u64 = 20_000_000;

/// Battles fought for an estimate: each probability within about one percentage point
/// (a standard error of at most 0.5 / sqrt(2000) = 1.1%).
pub const ESTIMATE_TRIALS: u32 = 2_000;

/// A bound on an estimate's work too (rounds fought), in case every battle runs long.
pub const ESTIMATE_WORK_BUDGET: u64 = 2_000_000;

/// A battle to compute.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"attacker": "3 inf, 1 arm", "defender": "2 inf"}))]
pub struct OddsRequest {
    /// Attacking units, e.g. `3 inf, 1 arm, 1 ftr`.
    pub attacker: String,
    /// Defending units.
    pub defender: String,
    /// A sea battle (default: land).
    #[serde(default)]
    pub sea: bool,
    /// Battleships bombarding an amphibious assault (at most 60).
    #[serde(default)]
    #[schema(maximum = 60)]
    pub support_shots: u32,
    /// The attacker's combat order: SA, SAAC, TAAC, KAAC or WI. Without one, the ruleset's
    /// defaults: for Cut-Throat and the Classic units, Save Air, then Save Air At All Costs
    /// from round 2 on land, and Kill At All Costs at sea.
    #[serde(default)]
    pub order: Option<String>,
    /// Whose units: classic, cutthroat (default) or aap-historical.
    #[serde(default)]
    pub ruleset: Option<String>,
    /// The defender's standing order of loss: unit codes, first lost first (`"arm, inf"`).
    #[serde(default)]
    pub defender_order_of_loss: Option<String>,
    /// The defender's submarines submerge when attacked (sea battles).
    #[serde(default)]
    pub submerge: bool,
    /// `false`: the defender's battleships do not take the first hits as damage.
    #[serde(default)]
    pub battleships_absorb: Option<bool>,
    /// The attacking power (`ccp`, `japan`...), where the ruleset's heavy weapons care:
    /// an attacking CCP stack never counts in AAP Historical (4.1).
    #[serde(default)]
    #[schema(value_type = Option<String>, example = "ccp")]
    pub attacker_power: Option<Power>,
    /// The defending power: a defending CCP group never counts for heavy weapons.
    #[serde(default)]
    #[schema(value_type = Option<String>, example = "japan")]
    pub defender_power: Option<Power>,
    /// Attacking guerrillas (AAP's CCP, 3.1) stop firing and the battle ends with both
    /// sides in place: `{"after_round": N}` (0: before the first die) or
    /// `{"when_at_most": N}` units left.
    #[serde(default)]
    pub attacker_blend_in: Option<NamedRetreat>,
    /// Defending guerrillas blend in, as a standing order says.
    #[serde(default)]
    pub defender_blend_in: Option<NamedRetreat>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SurvivorOdds {
    pub units: String,
    pub probability: f64,
}

/// What a side can expect to lose, over every outcome weighed by its probability.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ExpectedLosses {
    pub units: f64,
    pub ipc: f64,
}

impl ExpectedLosses {
    /// The side's army less its expected survivors.
    fn of(
        army: &[(UnitTypeId, u32)],
        survivors: &[(Survivors, f64)],
        catalogue: &Catalogue,
    ) -> Self {
        let cost = |id: UnitTypeId| f64::from(catalogue.get(id).cost);
        let units: f64 = army.iter().map(|(_, n)| f64::from(*n)).sum();
        let ipc: f64 = army.iter().map(|(id, n)| cost(*id) * f64::from(*n)).sum();
        let (mut kept_units, mut kept_ipc) = (0.0, 0.0);
        for (left, p) in survivors {
            for ((id, _damaged), n) in left {
                kept_units += p * f64::from(*n);
                kept_ipc += p * cost(*id) * f64::from(*n);
            }
        }
        ExpectedLosses {
            units: units - kept_units,
            ipc: ipc - kept_ipc,
        }
    }
}

/// Exact probabilities of each outcome, and of the survivors.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OddsView {
    pub ruleset: String,
    pub kind: &'static str,
    pub attacker: String,
    pub defender: String,
    pub attacker_win: f64,
    pub defender_win: f64,
    pub mutual_destruction: f64,
    pub attacker_retreated: f64,
    pub disengaged: f64,
    /// Guerrillas on either side stopped firing (AAP 3.1): both sides stay in place.
    pub blended_in: f64,
    pub attacker_survivors: Vec<SurvivorOdds>,
    pub defender_survivors: Vec<SurvivorOdds>,
    /// The attacker's expected losses: units, and their cost in IPC.
    pub attacker_expected_losses: ExpectedLosses,
    pub defender_expected_losses: ExpectedLosses,
    /// States of the chain expanded (0 for an estimate).
    pub states: usize,
    /// `exact` (a Markov chain over every roll), or `estimate` (the battle fought
    /// `trials` times, when the exact odds are beyond this service's budget).
    pub method: &'static str,
    /// For an estimate: the battles fought.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trials: Option<u32>,
    /// For an estimate: the standard error of `attacker_win` (every probability's is at
    /// most `0.5 / sqrt(trials)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standard_error: Option<f64>,
}

/// Computes the odds of `request` (the `warlog odds` command shares this): exactly within
/// [`EXACT_WORK_BUDGET`], else estimated from [`ESTIMATE_TRIALS`] battles; stopping when
/// `cancelled` is set (the client went away).
pub fn compute(
    request: &OddsRequest,
    cancelled: Option<Arc<AtomicBool>>,
) -> Result<OddsView, ApiError> {
    let ruleset = request.ruleset.as_deref().unwrap_or("cutthroat");
    let catalogue = Catalogue::builtin(ruleset)
        .map_err(|e| ApiError::new(ErrorCode::RulesetNotFound, e.to_string()))?;
    let kind = if request.sea {
        BattleKind::Sea
    } else {
        BattleKind::Land
    };
    let invalid = |side: &str, e: warlog_rules::battle::BattleError| {
        let code = if e.code == ViolationCode::UnknownUnit {
            ErrorCode::UnknownUnit
        } else {
            ErrorCode::MalformedRequest
        };
        ApiError::new(code, format!("{side}: {}", e.message))
    };
    let mut battle = Battle::new(&catalogue, kind);
    let mut uncounted = Vec::new();
    // The ruleset's battle defaults (Cut-Throat: SAAC from round 2, the defender's hits
    // column by column); the bare Classic units are fought as IAAPA GMs fight them.
    match RulesetDocument::builtin(ruleset) {
        Ok(document) => {
            battle.saac_from_round = document.special_rules.saac_from_round;
            battle.defender_hits_by_column = document.special_rules.defender_hits_by_column;
            // AAP 4: the odds a player plans with are those of the battles the game fights.
            battle.heavy_weapons = document.special_rules.heavy_weapons;
            uncounted = document.special_rules.heavy_weapons_uncounted;
        }
        Err(_) => battle = battle.with_iaapa_defaults(),
    }
    battle.attacker =
        Battle::army(&catalogue, &request.attacker).map_err(|e| invalid("attacker", e))?;
    battle.defender =
        Battle::army(&catalogue, &request.defender).map_err(|e| invalid("defender", e))?;
    battle.count_heavy_weapons_between(&uncounted, request.attacker_power, request.defender_power);
    for (side, army) in [
        ("attacker", &battle.attacker),
        ("defender", &battle.defender),
    ] {
        let units: u32 = army.iter().map(|(_, n)| n).sum();
        if units > MAX_UNITS_PER_SIDE {
            return Err(ApiError::malformed(format!(
                "{side}: at most {MAX_UNITS_PER_SIDE} units a side, not {units}"
            )));
        }
    }
    if request.support_shots > MAX_UNITS_PER_SIDE {
        return Err(ApiError::malformed(format!(
            "support_shots: at most {MAX_UNITS_PER_SIDE}, not {}",
            request.support_shots
        )));
    }
    battle.support_shots = request.support_shots;
    battle.attacker_orders.combat = request
        .order
        .as_deref()
        .map(|code| {
            CombatOrder::from_code(code).ok_or_else(|| {
                ApiError::malformed(format!(
                    "order: {code:?} is not one of SA, SAAC, TAAC, KAAC, WI"
                ))
            })
        })
        .transpose()?;
    if let Some(codes) = &request.defender_order_of_loss {
        battle.defender_orders.order_of_loss = codes
            .split(',')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(|code| {
                catalogue.id(code).map_err(|_| {
                    ApiError::new(
                        ErrorCode::UnknownUnit,
                        format!("defender_order_of_loss: no unit {code:?} in {ruleset}"),
                    )
                })
            })
            .collect::<Result<_, _>>()?;
    }
    battle.defender_orders.submerge_subs = request.submerge && request.sea;
    battle.defender_orders.battleships_absorb = request.battleships_absorb;
    battle.attacker_orders.blend_in = request.attacker_blend_in.map(NamedRetreat::resolved);
    battle.defender_orders.blend_in = request.defender_blend_in.map(NamedRetreat::resolved);
    let exact = exact_odds_within(&battle, &Work::within(EXACT_WORK_BUDGET, cancelled.clone()));
    let (odds, trials) = match exact {
        Ok(odds) => (odds, None),
        Err(e) if e.code == ViolationCode::TooLarge => {
            // The same battle gives the same estimate: the dice come from a fixed seed.
            let mut dice = GameSeed::from_bytes([0; 32]).dice_for("odds-estimate", 1);
            let work = Work::within(ESTIMATE_WORK_BUDGET, cancelled.clone());
            let odds = estimated_odds(&battle, ESTIMATE_TRIALS, &mut dice, &work)
                .map_err(|e| stopped(e).unwrap_or_else(|e| invalid("battle", e)))?;
            (odds, Some(ESTIMATE_TRIALS))
        }
        Err(e) => return Err(stopped(e).unwrap_or_else(|e| invalid("battle", e))),
    };
    let survivors = |list: &[(Survivors, f64)]| {
        list.iter()
            .map(|(s, p)| SurvivorOdds {
                units: describe(s, &catalogue),
                probability: probability(*p),
            })
            .collect()
    };
    Ok(OddsView {
        ruleset: ruleset.to_owned(),
        kind: if request.sea { "sea" } else { "land" },
        attacker: request.attacker.clone(),
        defender: request.defender.clone(),
        attacker_win: probability(odds.attacker_win),
        defender_win: probability(odds.defender_win),
        mutual_destruction: probability(odds.mutual_destruction),
        attacker_retreated: probability(odds.attacker_retreated),
        disengaged: probability(odds.disengaged),
        blended_in: probability(odds.blended_in),
        attacker_survivors: survivors(&odds.attacker_survivors),
        defender_survivors: survivors(&odds.defender_survivors),
        attacker_expected_losses: ExpectedLosses::of(
            &battle.attacker,
            &odds.attacker_survivors,
            &catalogue,
        ),
        defender_expected_losses: ExpectedLosses::of(
            &battle.defender,
            &odds.defender_survivors,
            &catalogue,
        ),
        states: odds.states,
        method: if trials.is_some() {
            "estimate"
        } else {
            "exact"
        },
        trials,
        standard_error: trials
            .map(|n| (odds.attacker_win * (1.0 - odds.attacker_win) / f64::from(n)).sqrt()),
    })
}

/// A probability as a sum of many small ones gives it: rounding may carry it a hair
/// outside 0 to 1, where no probability lies.
fn probability(p: f64) -> f64 {
    p.clamp(0.0, 1.0)
}

/// A computation stopped by its budget or its request's end, as a problem; any other
/// battle error is handed back (it is the request's).
fn stopped(
    e: warlog_rules::battle::BattleError,
) -> Result<ApiError, warlog_rules::battle::BattleError> {
    match e.code {
        ViolationCode::TooLarge => Ok(ApiError::new(ErrorCode::ComputationTooLarge, e.message)),
        ViolationCode::Cancelled => Ok(ApiError::new(
            ErrorCode::ComputationTooLarge,
            "the request was dropped",
        )),
        _ => Err(e),
    }
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
    request_body = OddsRequest,
    responses(
        (status = 200, description = "The exact odds", body = OddsView),
    ))]
#[post("/v1/odds")]
pub async fn battle_odds(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonBody<OddsRequest>,
) -> Result<HttpResponse, ApiError> {
    let view = odds_for(&req, &state, body.value).await?;
    Ok(HttpResponse::Ok().json(view))
}

/// The odds of a battle for a client: within its rate limit, off the request threads, and
/// stopped if the request is dropped. The API's and the odds page's.
pub async fn odds_for(
    req: &HttpRequest,
    state: &AppState,
    request: OddsRequest,
) -> Result<OddsView, ApiError> {
    crate::rate_limit::computation(req, state, move |cancelled| {
        compute(&request, Some(cancelled))
    })
    .await?
}
