//! Operations: liveness, readiness, metrics, the OpenAPI document.

use actix_web::{get, web, HttpRequest, HttpResponse};
use prometheus::{Encoder, TextEncoder};
use serde::Serialize;
use utoipa::{OpenApi, ToSchema};

use crate::error::{ApiError, ErrorCode};
use crate::AppState;

resource! {
    healthz: [],
    readyz: [],
    metrics: [],
    openapi_json: [],
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok` (alive), `ready`, or `degraded` (ready, with projections stopped).
    pub status: &'static str,
    /// The schema version the database is at (readiness only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_version: Option<u32>,
    /// Each projection stopped at an event it cannot decode, in a sentence naming the
    /// projection, the stream and the version (readiness only; absent when none is).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stopped_projections: Vec<String>,
    /// Each finished game the league did not project (unsound: a player placed twice),
    /// in a sentence naming the game and the reason; the ladders went on without it
    /// (readiness only; absent when none is; the first 20 by game id, so that a probe's
    /// answer stays small: a ladder's audit, `warlog audit`, names every one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_games: Vec<String>,
}

/// How many skipped games readiness names.
const SKIPPED_GAMES_SHOWN: u32 = 20;

/// Liveness: the process answers.
///
/// Always `ok` while the process serves requests; it asks nothing of the database (see
/// `/readyz` for that), so a probe restarts the process only when it is stuck.
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "The process is alive", body = Health)))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health {
        status: "ok",
        schema_version: None,
        stopped_projections: Vec::new(),
        skipped_games: Vec::new(),
    })
}

/// Readiness: the database answers and its schema is this build's.
///
/// A projection stops at an event it cannot decode. The service still serves (the other
/// projections go on, and the stopped one's read model stays as it was before that event),
/// so it stays ready, and a load balancer keeps sending it requests; the answer says
/// `degraded` and names each stopped projection, the stream and the version.
///
/// While the database does not answer, or is not migrated to this build's schema, it is not
/// ready (503).
#[utoipa::path(get, path = "/readyz", tag = "operations",
    responses(
        (status = 200, description = "Ready to serve (`degraded` with the projections stopped)", body = Health),
    ))]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let client = state.store.pool().get().await.map_err(not_ready)?;
    let status = warlog_store::schema_status(&client)
        .await
        .map_err(not_ready)?;
    if !status.is_current() {
        return Err(ApiError::new(
            ErrorCode::NotReady,
            format!(
                "database schema is at version {:?}, this build needs {}",
                status.applied, status.latest
            ),
        ));
    }
    let stopped_projections: Vec<String> = warlog_store::projector::stopped_projections(&client)
        .await
        .map_err(not_ready)?
        .iter()
        .map(ToString::to_string)
        .collect();
    let skipped_games: Vec<String> =
        warlog_store::league::skipped_games(&client, SKIPPED_GAMES_SHOWN)
            .await
            .map_err(not_ready)?
            .iter()
            .map(ToString::to_string)
            .collect();
    Ok(HttpResponse::Ok().json(Health {
        status: if stopped_projections.is_empty() {
            "ready"
        } else {
            "degraded"
        },
        schema_version: status.applied,
        stopped_projections,
        skipped_games,
    }))
}

/// Not ready: the database did not answer.
fn not_ready(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::NotReady, format!("database unreachable: {e}"))
}

/// Prometheus metrics in the text exposition format.
///
/// HTTP requests and their durations, the event store's appends and the events they
/// appended, each projector's lag behind the log, and webhook delivery attempts.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "Prometheus text format", body = String, content_type = "text/plain; version=0.0.4")))]
#[get("/metrics")]
pub async fn metrics(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let mut buffer = Vec::new();
    TextEncoder::new()
        .encode(&state.registry.gather(), &mut buffer)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("encoding metrics: {e}")))?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(buffer))
}

/// This API's OpenAPI 3.1 document.
///
/// Generated from the handlers themselves, so it describes the service that serves it;
/// `/docs` renders it for people.
#[utoipa::path(get, path = "/openapi.json", tag = "operations",
    responses((status = 200, description = "The OpenAPI document", content_type = "application/json")))]
#[get("/openapi.json")]
pub async fn openapi_json(req: HttpRequest) -> HttpResponse {
    // The document is the code's: built once, tagged by its bytes.
    static DOCUMENT: std::sync::LazyLock<(web::Bytes, String)> = std::sync::LazyLock::new(|| {
        let bytes = serde_json::to_vec(&crate::ApiDoc::openapi()).unwrap_or_default();
        let etag = crate::respond::etag_of(&bytes);
        (bytes.into(), etag)
    });
    let (bytes, etag) = &*DOCUMENT;
    crate::respond::conditional_with(
        &req,
        crate::respond::JSON,
        bytes.clone(),
        None,
        etag.clone(),
    )
}
