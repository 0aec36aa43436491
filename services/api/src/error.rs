//! Every error the API can answer with, and the one table that gives each its HTTP status,
//! stable `code` and title. Bodies are RFC 9457 `application/problem+json`. A refusal of the
//! libraries is answered here too, by its kind's line of the table ([`refused`]).

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;
use warlog_events::refusal::{Refusal, RefusalKind};
use warlog_store::StoreError;

/// The error table: one line per code, giving its HTTP status, its stable `code` (also the
/// problem `type`, `urn:warlog:problem:<code>`) and its title. The enum, [`ErrorCode::ALL`]
/// and the list in the OpenAPI document are all generated from it, so a new code is one line.
macro_rules! error_table {
    ($($variant:ident: $status:ident, $code:literal, $title:literal;)*) => {
        /// The stable codes clients may match on.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($variant,)*
        }


/// What one operation can refuse with, beside what every operation of its kind can.
#[derive(Debug)]
pub struct DeclaredErrors {
    /// The operation id: the handler's name.
    pub operation: &'static str,
    /// Whether the operation takes an `Idempotency-Key`.
    pub keyed: bool,
    /// The codes its own path can answer with.
    pub codes: &'static [ErrorCode],
    /// The schema its refusals are written in and their media type, when a protocol of its
    /// own says (TripleA's dice clients read their own JSON, or a line of text); else
    /// problem documents.
    pub refusal: Option<(&'static str, &'static str)>,
}

impl ErrorCode {
            /// Every code, in the table's order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// Status, code and title.
            pub const fn spec(self) -> (StatusCode, &'static str, &'static str) {
                match self {
                    $(ErrorCode::$variant => (StatusCode::$status, $code, $title),)*
                }
            }
        }
    };
}

#[rustfmt::skip]
error_table! {
    MalformedRequest: BAD_REQUEST, "malformed-request", "The request is malformed";
    InvalidStreamId: BAD_REQUEST, "invalid-stream-id", "The stream id is not valid";
    InvalidCursor: BAD_REQUEST, "invalid-cursor", "The cursor is not one this service issued";
    NotAcceptable: NOT_ACCEPTABLE, "not-acceptable", "No representation matches the Accept header";
    RouteNotFound: NOT_FOUND, "route-not-found", "No such resource";
    StreamNotFound: NOT_FOUND, "stream-not-found", "The stream has no events";
    VersionConflict: CONFLICT, "version-conflict", "The stream is not at the expected version";
    IdempotencyKeyReused: UNPROCESSABLE_ENTITY, "idempotency-key-reused", "The idempotency key was used for another request";
    NotReady: SERVICE_UNAVAILABLE, "not-ready", "The service is not ready";
    Busy: SERVICE_UNAVAILABLE, "busy", "The service is computing as much as it can at once; try again after Retry-After seconds";
    Internal: INTERNAL_SERVER_ERROR, "internal", "Internal error";
    Unauthorized: UNAUTHORIZED, "unauthorized", "A valid bearer token is needed";
    Forbidden: FORBIDDEN, "forbidden", "The token's role does not allow this";
    GameNotFound: NOT_FOUND, "game-not-found", "No such game";
    RulesetNotFound: NOT_FOUND, "ruleset-not-found", "No such ruleset";
    BattleNotFound: NOT_FOUND, "battle-not-found", "No such battle";
    PreconditionFailed: PRECONDITION_FAILED, "precondition-failed", "The game is not at the version in If-Match";
    RuleViolation: UNPROCESSABLE_ENTITY, "rule-violation", "The order breaks a rule";
    TurnUnreadable: UNPROCESSABLE_ENTITY, "turn-unreadable", "A line of the turn text cannot be read";
    UnknownTerritory: UNPROCESSABLE_ENTITY, "unknown-territory", "No such territory or sea zone on this board";
    UnknownUnit: UNPROCESSABLE_ENTITY, "unknown-unit", "No such unit in this ruleset";
    PayloadTooLarge: PAYLOAD_TOO_LARGE, "payload-too-large", "The request body is too large";
    GameNotEnded: CONFLICT, "game-not-ended", "The game has not ended";
    GameNotRated: CONFLICT, "game-not-rated", "The game ended without counting (voided, aborted before every power had played a turn, or played by its game master alone): it has no placements";
    PlayerNotFound: NOT_FOUND, "player-not-found", "No such player";
    PlayerExists: CONFLICT, "player-exists", "The handle is already registered";
    LadderNotFound: NOT_FOUND, "ladder-not-found", "No such ladder";
    TournamentNotFound: NOT_FOUND, "tournament-not-found", "No such tournament";
    TournamentRule: UNPROCESSABLE_ENTITY, "tournament-rule", "The tournament's rules do not allow this";
    InvalidRuleset: UNPROCESSABLE_ENTITY, "invalid-ruleset", "The ruleset document has problems; `errors` lists each with its path";
    BoardRequired: UNPROCESSABLE_ENTITY, "board-required", "The ruleset has no board: a director uploads one before a game can start";
    RulesetNotPlayable: UNPROCESSABLE_ENTITY, "ruleset-not-playable", "The engine does not play this ruleset yet";
    UnsupportedMediaType: UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type", "The body is not of the media type the operation takes: JSON, or a form where the operation says so";
    TooManyRequests: TOO_MANY_REQUESTS, "too-many-requests", "Too many requests from this client; try again after Retry-After seconds";
    ComputationTooLarge: UNPROCESSABLE_ENTITY, "computation-too-large", "The computation asked for is beyond this service's budget";
    RequestTimeout: REQUEST_TIMEOUT, "request-timeout", "The request body did not arrive in time";
    MethodNotAllowed: METHOD_NOT_ALLOWED, "method-not-allowed", "The resource does not answer this method; Allow lists those it does";
    WebhookNotFound: NOT_FOUND, "webhook-not-found", "No such webhook subscription (or not one of yours)";
    WebhookAddressNotAllowed: UNPROCESSABLE_ENTITY, "webhook-address-not-allowed", "The webhook URL reaches an address this service does not send to (loopback, private, link-local, ...)";
    WebhookLimit: CONFLICT, "webhook-limit", "The owner has as many webhook subscriptions as this service allows";
    EmailNotSet: NOT_FOUND, "email-not-set", "The player has no e-mail address on file";
    InvalidDiceRoll: BAD_REQUEST, "invalid-dice-roll", "The roll asks for dice beyond the bounds, or does not name its two addresses";
    DiceTableNotFound: NOT_FOUND, "dice-table-not-found", "No such dice table";
    RevealRefused: FORBIDDEN, "reveal-refused", "The reveal link is not this epoch's, and the table has not been idle long enough for anyone to reveal its seed";
    NothingToReveal: CONFLICT, "nothing-to-reveal", "The dice table has not rolled since its seed was last revealed";
    DiceAddressNotRegistered: FORBIDDEN, "dice-address-not-registered", "The roll names an address not registered with this dice server: its owner registers it at /dice/register";
    DiceRegistrationUnavailable: NOT_FOUND, "dice-registration-unavailable", "This dice server sends no mail, so it registers no address";
    DiceAddressNotMailed: UNPROCESSABLE_ENTITY, "dice-address-not-mailed", "This dice server mails no address of that domain";
    AddressLinkRefused: FORBIDDEN, "address-link-refused", "The link is not one this dice server mailed, or it has expired";
}

impl ErrorCode {
    pub fn status(self) -> StatusCode {
        self.spec().0
    }

    pub fn as_str(self) -> &'static str {
        self.spec().1
    }

    /// The line of the table a kind of refusal is answered with.
    pub const fn of_refusal(kind: RefusalKind) -> ErrorCode {
        match kind {
            RefusalKind::Forbidden => ErrorCode::Forbidden,
            RefusalKind::Malformed => ErrorCode::MalformedRequest,
            RefusalKind::VersionConflict => ErrorCode::VersionConflict,
            RefusalKind::RuleViolation => ErrorCode::RuleViolation,
            RefusalKind::TournamentRule => ErrorCode::TournamentRule,
            RefusalKind::UnknownTerritory => ErrorCode::UnknownTerritory,
            RefusalKind::UnknownUnit => ErrorCode::UnknownUnit,
            RefusalKind::RevealRefused => ErrorCode::RevealRefused,
            RefusalKind::NothingToReveal => ErrorCode::NothingToReveal,
            RefusalKind::Fault => ErrorCode::Internal,
        }
    }
}

/// Lists every code of the error table, with its status and title, in the description of
/// `Problem.code`, and the league's tournament refusals in `Problem.violation`'s: the
/// document's lists of errors are the tables', never a second copy.
#[derive(Debug)]
pub struct ErrorList;

impl utoipa::Modify for ErrorList {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::{schema::Schema, RefOr};
        let Some(RefOr::T(Schema::Object(problem))) = openapi
            .components
            .as_mut()
            .and_then(|c| c.schemas.get_mut("Problem"))
        else {
            return;
        };
        if let Some(RefOr::T(Schema::Object(code))) = problem.properties.get_mut("code") {
            let mut list = String::from("The stable error code, one of:\n");
            for error in ErrorCode::ALL {
                let (status, name, title) = error.spec();
                list.push_str(&format!("\n- `{name}` ({}): {title}", status.as_u16()));
            }
            code.description = Some(list);
        }
        // A tournament's refusals are the league's table, listed from it likewise.
        if let Some(RefOr::T(Schema::Object(violation))) = problem.properties.get_mut("violation") {
            let codes: Vec<String> = warlog_league::tournament::RefusalCode::ALL
                .iter()
                .filter(|c| !c.is_forbidden())
                .map(|c| format!("`{c}`"))
                .collect();
            let described = violation.description.take().unwrap_or_default();
            violation.description = Some(format!(
                "{described}\n\nA tournament's refusal (`tournament-rule`) is one of: {}.",
                codes.join(", ")
            ));
        }
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
    /// The stable error code (the document lists them all).
    pub code: String,
    /// The stream's version, on a version conflict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_version: Option<u64>,
    /// On a rule violation or a tournament's refusal: its stable code (e.g. `wrong-phase`,
    /// `rounds-left`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violation: Option<String>,
    /// On a rule violation: the rule it breaks (seed document and section).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// On an invalid document: every problem, each with its JSON Pointer path.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<warlog_rules::document::DocumentProblem>,
    /// For a turn text: the line (from 1) the problem is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// For a turn text that cannot be read: the column (from 1, in characters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// For an unknown name: the closest names the ruleset knows.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
}

/// Where in a turn text a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPlace {
    pub line: usize,
    pub column: Option<usize>,
    pub suggestions: Vec<String>,
}

/// The error every handler returns.
#[derive(Debug, thiserror::Error)]
#[error("{detail}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub detail: String,
    pub current_version: Option<u64>,
    /// The refusal's stable code and the rule it breaks (if it names one), for
    /// [`ErrorCode::RuleViolation`] and [`ErrorCode::TournamentRule`].
    pub violation: Option<Box<(String, Option<String>)>>,
    /// The methods a resource answers, for [`ErrorCode::MethodNotAllowed`] (`Allow`).
    pub allow: Option<Box<str>>,
    /// Each problem of an invalid document, for [`ErrorCode::InvalidRuleset`].
    pub errors: Vec<warlog_rules::document::DocumentProblem>,
    /// For [`ErrorCode::Unauthorized`]: RFC 6750's `error` in the challenge, when a token
    /// was sent and refused (`invalid_token`) or the header was not a bearer token
    /// (`invalid_request`); none when no token was sent.
    pub bearer_error: Option<&'static str>,
    /// For a turn text: where the problem is.
    pub text_place: Option<Box<TextPlace>>,
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
            bearer_error: None,
            text_place: None,
        }
    }

    /// A turn text that cannot be read: the line, column and closest names.
    pub fn unreadable_turn(error: warlog_rules::notation::NotationError) -> Self {
        ApiError {
            text_place: Some(Box::new(TextPlace {
                line: error.line,
                column: Some(error.column),
                suggestions: error.suggestions.clone(),
            })),
            ..Self::new(ErrorCode::TurnUnreadable, error.to_string())
        }
    }

    /// The problem is on `line` of a turn text.
    pub fn on_line(mut self, line: usize) -> Self {
        self.text_place = Some(Box::new(TextPlace {
            line,
            column: None,
            suggestions: Vec::new(),
        }));
        self
    }

    /// A 401 whose challenge carries RFC 6750's `error` (`invalid_token`,
    /// `invalid_request`).
    pub fn unauthorized(bearer_error: &'static str, detail: impl Into<String>) -> Self {
        ApiError {
            bearer_error: Some(bearer_error),
            ..Self::new(ErrorCode::Unauthorized, detail)
        }
    }

    /// A known resource asked with a method it does not answer.
    pub fn method_not_allowed(detail: impl Into<String>, allow: String) -> Self {
        ApiError {
            allow: Some(allow.into_boxed_str()),
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
                violation.code.as_str().to_owned(),
                Some(violation.rule.to_owned()),
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
            rule: self.violation.as_deref().and_then(|(_, rule)| rule.clone()),
            errors: self.errors.clone(),
            line: self.text_place.as_ref().map(|p| p.line),
            column: self.text_place.as_ref().and_then(|p| p.column),
            suggestions: self
                .text_place
                .as_ref()
                .map(|p| p.suggestions.clone())
                .unwrap_or_default(),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.code.status()
    }

    fn error_response(&self) -> HttpResponse {
        let mut problem = self.problem();
        // What went wrong inside (database text, a corrupt log) is for the operators: the
        // log keeps it under a reference the client can quote, and the client gets only that.
        if self.code == ErrorCode::Internal {
            let reference = uuid::Uuid::new_v4();
            tracing::error!(%reference, detail = %self.detail, "internal error");
            problem.detail = format!(
                "something went wrong inside the service; quote reference {reference} to its operators"
            );
        }
        let mut response = HttpResponse::build(self.status_code());
        // UTF-8 always (RFC 8259), said outright: some clients guess otherwise.
        response.insert_header((
            header::CONTENT_TYPE,
            "application/problem+json; charset=utf-8",
        ));
        // A client may try again: the database comes back, the rate limit refills.
        if matches!(
            self.code,
            ErrorCode::NotReady | ErrorCode::Busy | ErrorCode::TooManyRequests
        ) {
            response.insert_header((header::RETRY_AFTER, RETRY_AFTER_SECONDS.to_string()));
        }
        if let Some(allow) = &self.allow {
            response.insert_header((header::ALLOW, allow.to_string()));
        }
        // RFC 9110 §11.6.1: a 401 says how to authenticate; RFC 6750 §3 gives the form.
        if self.code == ErrorCode::Unauthorized {
            let challenge = match self.bearer_error {
                Some(error) => format!("Bearer realm=\"warlog\", error=\"{error}\""),
                None => "Bearer realm=\"warlog\"".to_owned(),
            };
            response.insert_header((header::WWW_AUTHENTICATE, challenge));
        }
        response.json(problem)
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
            StoreError::BadEventCount { .. } => ApiError::malformed(error.to_string()),
            StoreError::TokenRefused => ApiError::unauthorized("invalid_token", error.to_string()),
            other => ApiError::new(ErrorCode::Internal, other.to_string()),
        }
    }
}

/// Any refusal of the libraries, as its problem: the one place a refusal becomes a status
/// and a problem type, by its kind's line of the table, with the rule it names and the
/// version the stream is at when it says them.
pub fn refused<R: Refusal>(refusal: R) -> ApiError {
    ApiError {
        current_version: refusal.current_version(),
        violation: refusal
            .violation()
            .map(|(code, rule)| Box::new((code.to_owned(), rule.map(str::to_owned)))),
        ..ApiError::new(ErrorCode::of_refusal(refusal.kind()), refusal.detail())
    }
}

/// `?` answers each refusal named here through [`refused`]. One
/// `impl<R: Refusal> From<R> for ApiError` would overlap `From<StoreError>`: the compiler
/// cannot rule out that the libraries make a store error a refusal one day.
macro_rules! answered_as_refusals {
    ($($refusal:ty,)*) => {
        $(
            impl From<$refusal> for ApiError {
                fn from(refusal: $refusal) -> Self {
                    refused(refusal)
                }
            }
        )*
    };
}

answered_as_refusals! {
    warlog_events::refusal::Forbidden,
    warlog_events::orders::Refusal,
    warlog_events::dice_table::DiceTableError,
    warlog_rules::game::named::NameError,
    warlog_league::tournament::TournamentViolation,
}

/// A fault inside the service (a stored event that does not decode, a value that does not
/// encode): logged with a reference, answered 500 without its text.
pub(crate) fn corrupt(error: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::Internal, format!("stored data: {error}"))
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

    #[test]
    fn a_permission_refused_is_answered_403_forbidden_in_the_refusals_own_words() {
        // Given a library's permission refusal
        let refusal = warlog_events::refusal::Forbidden::new(
            "uploading a ruleset needs the role admin or director; this token is a player",
        );
        // When it is answered
        let problem = ApiError::from(refusal).problem();
        // Then it is the table's forbidden line, with the refusal's words as its detail
        assert_eq!(problem.status, 403);
        assert_eq!(problem.problem_type, "urn:warlog:problem:forbidden");
        assert_eq!(problem.title, "The token's role does not allow this");
        assert_eq!(
            problem.detail,
            "uploading a ruleset needs the role admin or director; this token is a player"
        );
        assert_eq!((problem.violation, problem.rule), (None, None));
    }

    #[test]
    fn a_tournament_rule_refused_carries_its_code_and_a_sender_refused_is_forbidden() {
        use warlog_league::tournament::{RefusalCode, TournamentViolation};
        let violation = |code| TournamentViolation {
            code,
            message: "not now".to_owned(),
        };
        // Given a tournament's refusal by its rules, and one of its sender, when each is
        // answered
        let rule = refused(violation(RefusalCode::RoundsLeft)).problem();
        let sender = refused(violation(RefusalCode::Forbidden)).problem();
        // Then the rule's is a tournament-rule naming its code, the sender's a 403
        assert_eq!(
            (rule.status, rule.code.as_str(), rule.detail.as_str()),
            (422, "tournament-rule", "rounds-left: not now")
        );
        assert_eq!(rule.violation.as_deref(), Some("rounds-left"));
        assert_eq!(
            (sender.status, sender.code.as_str(), sender.detail.as_str()),
            (403, "forbidden", "not now")
        );
        assert_eq!(sender.violation, None);
    }

    #[test]
    fn a_command_refused_for_its_version_tells_the_games_version() {
        // Given a game's refusal of a command written for version 3 of a game at 5
        let refusal = warlog_events::orders::Refusal::Version {
            expected: 3,
            actual: 5,
        };
        // When it is answered
        let problem = ApiError::from(refusal).problem();
        // Then it is a version conflict, telling the client the version to write for
        assert_eq!(
            (problem.status, problem.code.as_str()),
            (409, "version-conflict")
        );
        assert_eq!(problem.current_version, Some(5));
        assert_eq!(
            problem.detail,
            "the request was written for version 3; the game is at version 5"
        );
    }
}
