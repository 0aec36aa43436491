//! What a write request is besides what it commands: its caller, its idempotency key and
//! fingerprint, the version it was written for, and the service's time.

use actix_web::{web, HttpRequest};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use uuid::Uuid;
use warlog_events::orders::ByMail;
use warlog_events::{EventDecodeError, EventType, IdempotencyKey, Metadata, NewEvent};
use warlog_rules::game::Moment;

use crate::auth::{Caller, Identity};
use crate::error::{corrupt, ApiError, ErrorCode};
use crate::AppState;

/// What version of a stream the client based its request on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// Nothing stated: the server folds the latest state (and retries a lost race once).
    Unstated,
    /// `expected_version` in the body: a mismatch is 409.
    Body(u64),
    /// `If-Match`: a mismatch is 412.
    IfMatch(u64),
}

impl Expected {
    pub(crate) fn mismatch(self, current: u64) -> ApiError {
        match self {
            Expected::IfMatch(v) => ApiError::new(
                ErrorCode::PreconditionFailed,
                format!("If-Match names version {v}; the game is at version {current}"),
            ),
            Expected::Body(v) => ApiError::new(
                ErrorCode::VersionConflict,
                format!(
                    "the request was written for version {v}; the game is at version {current}"
                ),
            ),
            Expected::Unstated => ApiError::new(
                ErrorCode::VersionConflict,
                format!("the game moved on to version {current} while this request was decided"),
            ),
        }
        .with_current_version(current)
    }

    /// Refuses at once a request written for another version than `current`.
    pub(crate) fn check(self, current: u64) -> Result<(), ApiError> {
        match self {
            Expected::Body(v) | Expected::IfMatch(v) if v != current => Err(self.mismatch(current)),
            _ => Ok(()),
        }
    }
}

/// The version `If-Match` names, as the game's ETag gives it.
fn if_match(req: &HttpRequest) -> Result<Option<u64>, ApiError> {
    req.headers()
        .get(actix_web::http::header::IF_MATCH)
        .map(|v| {
            let text = v.to_str().unwrap_or_default().trim();
            let bare = text.trim_start_matches("W/").trim_matches('"');
            bare.parse::<u64>().map_err(|_| {
                ApiError::malformed(format!(
                    "If-Match must be a game version as its ETag gives it (e.g. \"12\"), not {text:?}"
                ))
            })
        })
        .transpose()
}

/// The version a request was written for, stated in `If-Match` or in the body's
/// `expected_version` (both, if they agree).
pub(crate) fn expectation(req: &HttpRequest, body: Option<u64>) -> Result<Expected, ApiError> {
    match (if_match(req)?, body) {
        (Some(a), Some(b)) if a != b => Err(ApiError::malformed(format!(
            "If-Match names version {a} and expected_version {b}: give one"
        ))),
        (Some(v), _) => Ok(Expected::IfMatch(v)),
        (None, Some(v)) => Ok(Expected::Body(v)),
        (None, None) => Ok(Expected::Unstated),
    }
}

/// Everything about a write besides what it decides.
#[derive(Debug, Clone)]
pub struct WriteRequest {
    pub caller: Identity,
    /// Who the log records as the sender: the caller, or `anyone` for a write that needs no
    /// token ([`WriteRequest::anonymous`]).
    actor: String,
    pub key: Option<IdempotencyKey>,
    /// SHA-256 of caller, method, path and body: the same key with other content is 422.
    pub fingerprint: [u8; 32],
    pub expected: Expected,
    pub now: OffsetDateTime,
    /// The hash of the caller's token when the caller was remembered, not looked up: the
    /// write checks it in the statement that writes (see [`Caller`]).
    pub token_to_check: Option<[u8; 32]>,
    /// For a command that came by mail: how, for its record.
    pub by_mail: Option<ByMail>,
}

impl WriteRequest {
    /// The write an HTTP request asks for: its caller's idempotency key (each caller's
    /// keys are their own), its fingerprint, the service's time, and the caller's token
    /// when it is still to check (the append checks it).
    pub fn of(
        req: &HttpRequest,
        caller: &Caller,
        raw: &[u8],
        expected: Expected,
    ) -> Result<WriteRequest, ApiError> {
        let identity = caller.require()?;
        let key = req
            .headers()
            .get("Idempotency-Key")
            .map(|v| {
                v.to_str()
                    .map_err(|_| ApiError::malformed("Idempotency-Key is not text"))
                    .and_then(|k| {
                        IdempotencyKey::try_from(k)
                            .map(|key| key.for_caller(&identity.actor()))
                            .map_err(|e| ApiError::malformed(format!("Idempotency-Key: {e}")))
                    })
            })
            .transpose()?;
        Ok(WriteRequest {
            caller: identity.clone(),
            actor: identity.actor(),
            key,
            fingerprint: Self::fingerprint_of(identity, req.method().as_str(), req.path(), raw),
            expected,
            now: req
                .app_data::<web::Data<AppState>>()
                .map_or_else(OffsetDateTime::now_utc, |state| state.clock.now()),
            token_to_check: caller.token_to_check(),
            by_mail: None,
        })
    }

    /// A command that came by mail from `caller` (whom the intake found to be the seat's
    /// player or a proxy in force): keyed by the message, so a message decided twice is
    /// written once; its record says how it came.
    pub fn by_mail(
        caller: Identity,
        game_path: &str,
        text: &str,
        now: OffsetDateTime,
        by_mail: ByMail,
    ) -> Result<WriteRequest, ApiError> {
        let key = IdempotencyKey::try_from(format!("mail-{}", by_mail.message))
            .map_err(|e| ApiError::malformed(format!("a message's key: {e}")))?
            .for_caller(&caller.actor());
        Ok(WriteRequest {
            fingerprint: Self::fingerprint_of(&caller, "MAIL", game_path, text.as_bytes()),
            actor: caller.actor(),
            caller,
            key: Some(key),
            expected: Expected::Unstated,
            now,
            token_to_check: None,
            by_mail: Some(by_mail),
        })
    }

    /// A write anyone may ask for, with no token and no idempotency key (a dice table's roll
    /// or reveal, whose protocol has neither): its log records `anyone` as the sender. Its
    /// caller is a player named `anyone`, never a role that authorises anything: such a
    /// write's decision reads no caller.
    pub fn anonymous(req: &HttpRequest, raw: &[u8]) -> WriteRequest {
        let caller = Identity {
            name: "anyone".to_owned(),
            role: warlog_events::sender::Role::Player,
        };
        WriteRequest {
            fingerprint: Self::fingerprint_of(&caller, req.method().as_str(), req.path(), raw),
            caller,
            actor: "anyone".to_owned(),
            key: None,
            expected: Expected::Unstated,
            now: req
                .app_data::<web::Data<AppState>>()
                .map_or_else(OffsetDateTime::now_utc, |state| state.clock.now()),
            token_to_check: None,
            by_mail: None,
        }
    }

    pub fn fingerprint_of(caller: &Identity, method: &str, path: &str, body: &[u8]) -> [u8; 32] {
        let mut digest = Sha256::new();
        for part in [
            caller.actor().as_bytes(),
            method.as_bytes(),
            path.as_bytes(),
            body,
        ] {
            digest.update((part.len() as u64).to_be_bytes());
            digest.update(part);
        }
        digest.finalize().into()
    }

    pub fn moment(&self) -> Moment {
        Moment::from_unix_seconds(u64::try_from(self.now.unix_timestamp()).unwrap_or(0))
    }

    fn metadata(&self) -> Metadata {
        let mut metadata = Metadata::recorded_at(self.now).with_actor(self.actor.clone());
        metadata.idempotency_key = self.key.clone();
        metadata.correlation_id = Some(Uuid::new_v4());
        metadata
    }

    /// Events of any stream, each encoded by `encode`, with this request's metadata.
    pub(crate) fn encode_with<E>(
        &self,
        events: &[E],
        encode: impl Fn(&E) -> Result<(EventType, u32, serde_json::Value), EventDecodeError>,
    ) -> Result<Vec<NewEvent>, ApiError> {
        let metadata = self.metadata();
        events
            .iter()
            .map(|event| {
                let (event_type, version, payload) = encode(event).map_err(corrupt)?;
                Ok(NewEvent::new(
                    Uuid::new_v4(),
                    event_type,
                    version,
                    payload,
                    &metadata,
                ))
            })
            .collect()
    }
}
