//! Every error the API can answer with, and the one table that gives each its HTTP status,
//! stable `code` and title. Bodies are RFC 9457 `application/problem+json`.

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;
use warlog_store::StoreError;

/// The stable codes clients may match on. Add a row to [`ErrorCode::spec`] with each new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    MalformedRequest,
    InvalidStreamId,
    InvalidCursor,
    NotAcceptable,
    RouteNotFound,
    StreamNotFound,
    VersionConflict,
    IdempotencyKeyReused,
    NotReady,
    Internal,
    Unauthorized,
    Forbidden,
    GameNotFound,
    RulesetNotFound,
    BattleNotFound,
    PreconditionFailed,
    RuleViolation,
    UnknownTerritory,
    UnknownUnit,
    PayloadTooLarge,
    GameNotEnded,
    PlayerNotFound,
    PlayerExists,
    LadderNotFound,
    TournamentNotFound,
    TournamentRule,
    InvalidRuleset,
    BoardRequired,
    RulesetNotPlayable,
    UnsupportedMediaType,
    TooManyRequests,
    ComputationTooLarge,
    RequestTimeout,
    MethodNotAllowed,
    WebhookNotFound,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 35] = [
        ErrorCode::MalformedRequest,
        ErrorCode::InvalidStreamId,
        ErrorCode::InvalidCursor,
        ErrorCode::NotAcceptable,
        ErrorCode::RouteNotFound,
        ErrorCode::StreamNotFound,
        ErrorCode::VersionConflict,
        ErrorCode::IdempotencyKeyReused,
        ErrorCode::NotReady,
        ErrorCode::Internal,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::GameNotFound,
        ErrorCode::RulesetNotFound,
        ErrorCode::BattleNotFound,
        ErrorCode::PreconditionFailed,
        ErrorCode::RuleViolation,
        ErrorCode::UnknownTerritory,
        ErrorCode::UnknownUnit,
        ErrorCode::PayloadTooLarge,
        ErrorCode::GameNotEnded,
        ErrorCode::PlayerNotFound,
        ErrorCode::PlayerExists,
        ErrorCode::LadderNotFound,
        ErrorCode::TournamentNotFound,
        ErrorCode::TournamentRule,
        ErrorCode::InvalidRuleset,
        ErrorCode::BoardRequired,
        ErrorCode::RulesetNotPlayable,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::TooManyRequests,
        ErrorCode::ComputationTooLarge,
        ErrorCode::RequestTimeout,
        ErrorCode::MethodNotAllowed,
        ErrorCode::WebhookNotFound,
    ];

    /// The error-code table: status, code, title.
    pub const fn spec(self) -> (StatusCode, &'static str, &'static str) {
        match self {
            ErrorCode::MalformedRequest => (
                StatusCode::BAD_REQUEST,
                "malformed-request",
                "The request is malformed",
            ),
            ErrorCode::InvalidStreamId => (
                StatusCode::BAD_REQUEST,
                "invalid-stream-id",
                "The stream id is not valid",
            ),
            ErrorCode::InvalidCursor => (
                StatusCode::BAD_REQUEST,
                "invalid-cursor",
                "The cursor is not one this service issued",
            ),
            ErrorCode::NotAcceptable => (
                StatusCode::NOT_ACCEPTABLE,
                "not-acceptable",
                "No representation matches the Accept header",
            ),
            ErrorCode::RouteNotFound => {
                (StatusCode::NOT_FOUND, "route-not-found", "No such resource")
            }
            ErrorCode::StreamNotFound => (
                StatusCode::NOT_FOUND,
                "stream-not-found",
                "The stream has no events",
            ),
            ErrorCode::VersionConflict => (
                StatusCode::CONFLICT,
                "version-conflict",
                "The stream is not at the expected version",
            ),
            ErrorCode::IdempotencyKeyReused => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "idempotency-key-reused",
                "The idempotency key was used for another request",
            ),
            ErrorCode::NotReady => (
                StatusCode::SERVICE_UNAVAILABLE,
                "not-ready",
                "The service is not ready",
            ),
            ErrorCode::Internal => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "Internal error",
            ),
            ErrorCode::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "A valid bearer token is needed",
            ),
            ErrorCode::Forbidden => (
                StatusCode::FORBIDDEN,
                "forbidden",
                "The token's role does not allow this",
            ),
            ErrorCode::GameNotFound => (StatusCode::NOT_FOUND, "game-not-found", "No such game"),
            ErrorCode::RulesetNotFound => (
                StatusCode::NOT_FOUND,
                "ruleset-not-found",
                "No such ruleset",
            ),
            ErrorCode::BattleNotFound => {
                (StatusCode::NOT_FOUND, "battle-not-found", "No such battle")
            }
            ErrorCode::PreconditionFailed => (
                StatusCode::PRECONDITION_FAILED,
                "precondition-failed",
                "The game is not at the version in If-Match",
            ),
            ErrorCode::RuleViolation => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "rule-violation",
                "The order breaks a rule",
            ),
            ErrorCode::UnknownTerritory => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "unknown-territory",
                "No such territory or sea zone on this board",
            ),
            ErrorCode::UnknownUnit => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "unknown-unit",
                "No such unit in this ruleset",
            ),
            ErrorCode::PayloadTooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload-too-large",
                "The request body is too large",
            ),
            ErrorCode::GameNotEnded => (
                StatusCode::CONFLICT,
                "game-not-ended",
                "The game has not ended",
            ),
            ErrorCode::PlayerNotFound => {
                (StatusCode::NOT_FOUND, "player-not-found", "No such player")
            }
            ErrorCode::PlayerExists => (
                StatusCode::CONFLICT,
                "player-exists",
                "The handle is already registered",
            ),
            ErrorCode::LadderNotFound => {
                (StatusCode::NOT_FOUND, "ladder-not-found", "No such ladder")
            }
            ErrorCode::TournamentNotFound => (
                StatusCode::NOT_FOUND,
                "tournament-not-found",
                "No such tournament",
            ),
            ErrorCode::TournamentRule => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "tournament-rule",
                "The tournament's rules do not allow this",
            ),
            ErrorCode::InvalidRuleset => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid-ruleset",
                "The ruleset document has problems; `errors` lists each with its path",
            ),
            ErrorCode::BoardRequired => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "board-required",
                "The ruleset has no board: a director uploads one before a game can start",
            ),
            ErrorCode::RulesetNotPlayable => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "ruleset-not-playable",
                "The engine does not play this ruleset yet",
            ),
            ErrorCode::UnsupportedMediaType => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported-media-type",
                "The body must be sent as application/json",
            ),
            ErrorCode::TooManyRequests => (
                StatusCode::TOO_MANY_REQUESTS,
                "too-many-requests",
                "Too many requests from this client; try again after Retry-After seconds",
            ),
            ErrorCode::ComputationTooLarge => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "computation-too-large",
                "The computation asked for is beyond this service's budget",
            ),
            ErrorCode::MethodNotAllowed => (
                StatusCode::METHOD_NOT_ALLOWED,
                "method-not-allowed",
                "The resource does not answer this method; Allow lists those it does",
            ),
            ErrorCode::RequestTimeout => (
                StatusCode::REQUEST_TIMEOUT,
                "request-timeout",
                "The request body did not arrive in time",
            ),
            ErrorCode::WebhookNotFound => (
                StatusCode::NOT_FOUND,
                "webhook-not-found",
                "No such webhook subscription (or not one of yours)",
            ),
        }
    }

    pub fn status(self) -> StatusCode {
        self.spec().0
    }

    pub fn as_str(self) -> &'static str {
        self.spec().1
    }
}

/// An RFC 9457 problem document.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "type": "urn:warlog:problem:stream-not-found",
    "title": "The stream has no events",
    "status": 404,
    "detail": "stream game-42 has no events",
    "code": "stream-not-found"
}))]
pub struct Problem {
    /// `urn:warlog:problem:<code>`.
    #[serde(rename = "type")]
    pub problem_type: String,
    pub title: String,
    pub status: u16,
    /// What exactly was wrong with this request.
    pub detail: String,
    /// The stable error code.
    pub code: String,
    /// The stream's version, on a version conflict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_version: Option<u64>,
    /// On a rule violation: the violation's stable code (e.g. `wrong-phase`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violation: Option<String>,
    /// On a rule violation: the rule it breaks (seed document and section).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// On an invalid document: every problem, each with its JSON Pointer path.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<warlog_rules::document::DocumentProblem>,
}

/// The error every handler returns.
#[derive(Debug, thiserror::Error)]
#[error("{detail}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub detail: String,
    pub current_version: Option<u64>,
    /// The violated rule's code and rule, for [`ErrorCode::RuleViolation`].
    pub violation: Option<Box<(String, String)>>,
    /// The methods a resource answers, for [`ErrorCode::MethodNotAllowed`] (`Allow`).
    pub allow: Option<String>,
    /// Each problem of an invalid document, for [`ErrorCode::InvalidRuleset`].
    pub errors: Vec<warlog_rules::document::DocumentProblem>,
}

impl ApiError {
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> Self {
        ApiError {
            code,
            detail: detail.into(),
            current_version: None,
            violation: None,
            allow: None,
            errors: Vec::new(),
        }
    }

    /// A known resource asked with a method it does not answer.
    pub fn method_not_allowed(detail: impl Into<String>, allow: String) -> Self {
        ApiError {
            allow: Some(allow),
            ..Self::new(ErrorCode::MethodNotAllowed, detail)
        }
    }

    /// A document with problems: each named with its path.
    pub fn invalid_document(
        what: &str,
        errors: Vec<warlog_rules::document::DocumentProblem>,
    ) -> Self {
        ApiError {
            errors: errors.clone(),
            ..Self::new(
                ErrorCode::InvalidRuleset,
                format!(
                    "{what}: {} problem{}: {}",
                    errors.len(),
                    if errors.len() == 1 { "" } else { "s" },
                    errors
                        .iter()
                        .map(|p| format!(
                            "{} {}",
                            if p.path.is_empty() { "/" } else { &p.path },
                            p.message
                        ))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            )
        }
    }

    /// A refused order; `context` says which (e.g. `orders[2]`).
    pub fn rule_violation(context: &str, violation: &warlog_rules::game::RuleViolation) -> Self {
        ApiError {
            violation: Some(Box::new((
                violation.code.to_owned(),
                violation.rule.to_owned(),
            ))),
            ..Self::new(
                ErrorCode::RuleViolation,
                format!("{context}: {} ({})", violation.message, violation.rule),
            )
        }
    }

    pub fn with_current_version(mut self, version: u64) -> Self {
        self.current_version = Some(version);
        self
    }

    pub fn malformed(detail: impl Into<String>) -> Self {
        Self::new(ErrorCode::MalformedRequest, detail)
    }

    pub fn problem(&self) -> Problem {
        let (status, code, title) = self.code.spec();
        Problem {
            problem_type: format!("urn:warlog:problem:{code}"),
            title: title.to_owned(),
            status: status.as_u16(),
            detail: self.detail.clone(),
            code: code.to_owned(),
            current_version: self.current_version,
            violation: self.violation.as_deref().map(|(code, _)| code.clone()),
            rule: self.violation.as_deref().map(|(_, rule)| rule.clone()),
            errors: self.errors.clone(),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.code.status()
    }

    fn error_response(&self) -> HttpResponse {
        if self.code == ErrorCode::Internal {
            tracing::error!(detail = %self.detail, "internal error");
        }
        let mut response = HttpResponse::build(self.status_code());
        // UTF-8 always (RFC 8259), said outright: some clients guess otherwise.
        response.insert_header((
            header::CONTENT_TYPE,
            "application/problem+json; charset=utf-8",
        ));
        // A client may try again: the database comes back, the rate limit refills.
        if matches!(self.code, ErrorCode::NotReady | ErrorCode::TooManyRequests) {
            response.insert_header((header::RETRY_AFTER, RETRY_AFTER_SECONDS.to_string()));
        }
        if let Some(allow) = &self.allow {
            response.insert_header((header::ALLOW, allow.clone()));
        }
        response.json(self.problem())
    }
}

/// What a 503 or 429 tells a client to wait before trying again.
pub const RETRY_AFTER_SECONDS: u32 = 2;

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        if error.is_unavailable() {
            return ApiError::new(
                ErrorCode::NotReady,
                "the database is unavailable; try again shortly",
            );
        }
        match error {
            StoreError::Conflict { actual, .. } => {
                ApiError::new(ErrorCode::VersionConflict, error.to_string())
                    .with_current_version(actual)
            }
            StoreError::IdempotencyKeyReused { .. } => {
                ApiError::new(ErrorCode::IdempotencyKeyReused, error.to_string())
            }
            StoreError::BadEventCount { .. } => ApiError::malformed(error.to_string()),
            other => ApiError::new(ErrorCode::Internal, other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_error_code_has_a_unique_code_string() {
        let codes: HashSet<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(codes.len(), ErrorCode::ALL.len());
    }

    #[test]
    fn a_conflict_carries_the_current_version_into_the_problem() {
        let stream = warlog_events::StreamId::try_from("game-1").expect("valid");
        let error = ApiError::from(StoreError::Conflict {
            stream,
            expected: warlog_store::ExpectedVersion::Exact(3),
            actual: 5,
        });
        let problem = error.problem();
        assert_eq!(problem.status, 409);
        assert_eq!(problem.code, "version-conflict");
        assert_eq!(problem.current_version, Some(5));
    }
}
