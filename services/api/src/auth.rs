//! Bearer tokens and roles (DESIGN.md, "HTTP conventions"). A token is shown once when it
//! is made; the database keeps only its SHA-256, so a leaked table grants nothing.
//!
//! Roles: `admin` may do everything; `director` and `gm` create games and act on the games
//! they created (a director may also reveal any game's seed); `player` orders only for a
//! power seated to its own handle (the token's name); `auditor` reads, and reveals nothing.

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use futures_util::future::LocalBoxFuture;
use sha2::{Digest, Sha256};
use warlog_store::games::{create_token, find_token};
use warlog_store::{GenericClient, StoreError};

use crate::error::{ApiError, ErrorCode};
use crate::AppState;

pub use warlog_events::sender::Role;

/// An authenticated caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub role: Role,
}

impl Identity {
    /// How the caller appears in event metadata.
    pub fn actor(&self) -> String {
        self.sender().actor()
    }

    /// The caller as the log records the sender of a command.
    pub fn sender(&self) -> warlog_events::sender::Sender {
        warlog_events::sender::Sender {
            role: self.role,
            name: self.name.clone(),
        }
    }

    /// Refused unless the caller has one of `roles`.
    pub fn require_role(&self, roles: &[Role], what: &str) -> Result<(), ApiError> {
        if roles.contains(&self.role) {
            Ok(())
        } else {
            let allowed: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
            Err(ApiError::new(
                ErrorCode::Forbidden,
                format!(
                    "{what} needs the role {}; this token is a {}",
                    allowed.join(" or "),
                    self.role
                ),
            ))
        }
    }
}

/// The caller of a request: `None` without an `Authorization` header.
#[derive(Debug, Clone)]
pub struct Caller(pub Option<Identity>);

impl Caller {
    /// Writes need a token.
    pub fn require(&self) -> Result<&Identity, ApiError> {
        self.0.as_ref().ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unauthorized,
                "this write needs `Authorization: Bearer <token>` (see `warlog token create`)",
            )
        })
    }
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        if let Some(known) = req.extensions().get::<Caller>() {
            let known = known.clone();
            return Box::pin(async move { Ok(known) });
        }
        let header = req
            .headers()
            .get(header::AUTHORIZATION)
            .map(|v| v.to_str().map(str::to_owned));
        let state = req.app_data::<web::Data<AppState>>().cloned();
        Box::pin(resolve(header, state))
    }
}

/// Middleware: on a route that needs a token, the caller is authenticated before anything
/// else of the request is read, so a client without a valid token learns that (401) and
/// nothing about its body (400, 413, 415).
pub async fn authenticate(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<
    actix_web::dev::ServiceResponse<
        actix_web::body::EitherBody<impl actix_web::body::MessageBody + 'static>,
    >,
    actix_web::Error,
> {
    if !crate::needs_token(req.method(), req.path()) {
        return Ok(next.call(req).await?.map_into_left_body());
    }
    let header = req
        .headers()
        .get(header::AUTHORIZATION)
        .map(|v| v.to_str().map(str::to_owned));
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let caller = resolve(header, state)
        .await
        .and_then(|caller| caller.require().map(|_| caller.clone()));
    match caller {
        Ok(caller) => {
            req.extensions_mut().insert(caller);
            Ok(next.call(req).await?.map_into_left_body())
        }
        Err(refused) => {
            let response = actix_web::ResponseError::error_response(&refused);
            Ok(req.into_response(response).map_into_right_body())
        }
    }
}

/// Who the `Authorization` header (if any) names.
async fn resolve(
    header: Option<Result<String, header::ToStrError>>,
    state: Option<web::Data<AppState>>,
) -> Result<Caller, ApiError> {
    let Some(header) = header else {
        return Ok(Caller(None));
    };
    let unauthorized = |detail: &str| ApiError::new(ErrorCode::Unauthorized, detail);
    let header = header.map_err(|_| unauthorized("the Authorization header is not text"))?;
    let token = header
        .strip_prefix("Bearer ")
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| unauthorized("the Authorization header is not `Bearer <token>`"))?;
    let state = state.ok_or_else(|| ApiError::new(ErrorCode::Internal, "no state"))?;
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let holder = find_token(&client, &hash_token(token))
        .await?
        .ok_or_else(|| unauthorized("the bearer token is unknown or revoked"))?;
    let role = holder
        .role
        .parse()
        .map_err(|e: String| ApiError::new(ErrorCode::Internal, e))?;
    Ok(Caller(Some(Identity {
        name: holder.name,
        role,
    })))
}

/// SHA-256 of a token: what the database keeps.
pub fn hash_token(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Makes a token for `name` with `role`, stores its hash, and returns it: the only time
/// it is ever shown.
pub async fn issue_token(
    client: &impl GenericClient,
    name: &str,
    role: Role,
) -> Result<String, ApiError> {
    issue_token_expiring(client, name, role, None).await
}

/// [`issue_token`], refused after `expires_in_days` days (if given).
pub async fn issue_token_expiring(
    client: &impl GenericClient,
    name: &str,
    role: Role,
    expires_in_days: Option<u32>,
) -> Result<String, ApiError> {
    if name.is_empty() || name.len() > 100 || name.chars().any(char::is_control) {
        return Err(ApiError::malformed(
            "a token's name is 1 to 100 printable characters",
        ));
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("no OS randomness: {e}")))?;
    let token = format!("wl_{}", URL_SAFE_NO_PAD.encode(bytes));
    create_token(
        client,
        &hash_token(&token),
        name,
        role.as_str(),
        expires_in_days,
    )
    .await?;
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_read_back_from_their_names_and_unknown_ones_are_refused() {
        for role in Role::ALL {
            assert_eq!(role.as_str().parse::<Role>(), Ok(role));
        }
        assert!("root".parse::<Role>().is_err());
    }

    #[test]
    fn a_role_outside_the_allowed_ones_is_forbidden_and_says_which_are_allowed() {
        let player = Identity {
            name: "ann".into(),
            role: Role::Player,
        };
        let error = player
            .require_role(&[Role::Admin, Role::Director], "revealing a seed")
            .expect_err("forbidden");
        assert_eq!(error.code, ErrorCode::Forbidden);
        assert!(
            error.detail.contains("admin or director"),
            "{}",
            error.detail
        );
    }
}
