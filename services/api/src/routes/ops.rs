//! Operations: liveness, readiness, metrics, the OpenAPI document.

use actix_web::{get, web, HttpResponse};
use prometheus::{Encoder, TextEncoder};
use serde::Serialize;
use utoipa::{OpenApi, ToSchema};

use crate::error::{ApiError, ErrorCode, Problem};
use crate::AppState;

resource! {
    healthz,
    readyz,
    metrics,
    openapi_json,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok` or `ready`.
    pub status: &'static str,
    /// The schema version the database is at (readiness only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_version: Option<u32>,
}

/// Liveness: the process answers.
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "The process is alive", body = Health)))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health {
        status: "ok",
        schema_version: None,
    })
}

/// Readiness: the database answers and its schema is this build's.
#[utoipa::path(get, path = "/readyz", tag = "operations",
    responses(
        (status = 200, description = "Ready to serve", body = Health),
        (status = 503, description = "Database unreachable or not migrated", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let client =
        state.store.pool().get().await.map_err(|e| {
            ApiError::new(ErrorCode::NotReady, format!("database unreachable: {e}"))
        })?;
    let status = warlog_store::schema_status(&client)
        .await
        .map_err(|e| ApiError::new(ErrorCode::NotReady, format!("database unreachable: {e}")))?;
    if !status.is_current() {
        return Err(ApiError::new(
            ErrorCode::NotReady,
            format!(
                "database schema is at version {:?}, this build needs {}",
                status.applied, status.latest
            ),
        ));
    }
    Ok(HttpResponse::Ok().json(Health {
        status: "ready",
        schema_version: status.applied,
    }))
}

/// Prometheus metrics in the text exposition format.
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
#[utoipa::path(get, path = "/openapi.json", tag = "operations",
    responses((status = 200, description = "The OpenAPI document", content_type = "application/json")))]
#[get("/openapi.json")]
pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok().json(crate::ApiDoc::openapi())
}
