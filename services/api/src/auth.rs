//! Bearer tokens and roles (docs/design.md, "HTTP conventions"). A token is shown once when it
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
use warlog_store::tokens::{create_token, find_token};
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
}

/// The caller of a request, resolved one way for every handler: `None` without an
/// `Authorization` header; a token not seen lately is looked up (by [`authenticate`], or
/// here), and one seen lately is taken from memory with its token still to check. That
/// check is made by the write the request makes (the append checks the token in the same
/// statement, see [`crate::write::WriteRequest`]), by [`Caller::verified`] before any other
/// change, or, failing both, before the answer goes out ([`authenticate`]).
#[derive(Debug, Clone, Default)]
pub struct Caller {
    identity: Option<Identity>,
    /// The hash of the token still to check; `None`: checked already (or no token).
    token_to_check: Option<[u8; 32]>,
}

impl Caller {
    /// A caller whose token was checked now (a page's form gives its token in the body).
    pub fn checked(identity: Identity) -> Caller {
        Caller {
            identity: Some(identity),
            token_to_check: None,
        }
    }

    /// Who the token names, for deciding what they may do. Writes need a token.
    pub fn require(&self) -> Result<&Identity, ApiError> {
        self.identity.as_ref().ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unauthorized,
                "this write needs `Authorization: Bearer <token>` (see `warlog token create`)",
            )
        })
    }

    /// The hash of the token a write must check in the statement that writes; `None`:
    /// checked already.
    pub fn token_to_check(&self) -> Option<[u8; 32]> {
        self.token_to_check
    }

    /// Who the token names, its token checked now if it was not yet: for a change that is
    /// not an append (which checks the token itself), before it is made.
    pub async fn verified(&self, req: &HttpRequest) -> Result<&Identity, ApiError> {
        let identity = self.require()?;
        if let Some(token) = &self.token_to_check {
            let state = req
                .app_data::<web::Data<AppState>>()
                .ok_or_else(|| ApiError::new(ErrorCode::Internal, "no state"))?;
            look_up(state, token)
                .await?
                .ok_or(StoreError::TokenRefused)?;
            req.extensions_mut().insert(TokenChecked);
        }
        Ok(identity)
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
        if let Some(remembered) = req.extensions().get::<Remembered>().cloned() {
            return Box::pin(async move {
                Ok(Caller {
                    identity: Some(remembered.identity),
                    token_to_check: Some(remembered.token),
                })
            });
        }
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let header = req
            .headers()
            .get(header::AUTHORIZATION)
            .map(|v| v.to_str().map(str::to_owned));
        Box::pin(resolve(header, state))
    }
}

/// A caller remembered from an earlier request with the same token, its token not yet
/// checked in this one (put in the request's extensions by [`authenticate`]).
#[derive(Debug, Clone)]
struct Remembered {
    identity: Identity,
    token: [u8; 32],
}

/// Put in a request's or a response's extensions once the request's token was checked in
/// the database: by looking it up, or by the write it made.
#[derive(Debug, Clone, Copy)]
pub struct TokenChecked;

/// Middleware: on a route that needs a token, no answer goes out before the caller's token
/// is checked, so a client without a valid token learns that (401) and nothing about its
/// body (400, 413, 415). A token not seen lately is looked up before anything else of the
/// request is read; one seen lately names its caller from memory, and is checked by the
/// write the request makes or, failing that, before the answer goes out, which then is a
/// 401 if the token is no longer valid: a revoked or expired token is refused at once.
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
    let token = header
        .as_ref()
        .and_then(|h| h.as_ref().ok())
        .and_then(|h| bearer(h).ok())
        .map(hash_token);
    let remembered = token.zip(state.clone()).and_then(|(token, state)| {
        let identity = state.tokens.get(&token)?;
        Some((Remembered { identity, token }, state))
    });
    if let Some((remembered, state)) = remembered {
        let token = remembered.token;
        req.extensions_mut().insert(remembered);
        let res = next.call(req).await?;
        let checked = res.request().extensions().contains::<TokenChecked>()
            || res.response().extensions().contains::<TokenChecked>();
        let refused = if checked {
            None
        } else {
            match look_up(&state, &token).await {
                Ok(Some(_)) => None,
                Ok(None) => Some(ApiError::from(StoreError::TokenRefused)),
                Err(e) => Some(e),
            }
        };
        return Ok(match refused {
            None => res.map_into_left_body(),
            Some(refused) => {
                let response = actix_web::ResponseError::error_response(&refused);
                let (req, _) = res.into_parts();
                actix_web::dev::ServiceResponse::new(req, response).map_into_right_body()
            }
        });
    }
    let caller = resolve(header, state)
        .await
        .and_then(|caller| caller.require().map(|_| caller.clone()));
    match caller {
        Ok(caller) => {
            req.extensions_mut().insert(caller);
            req.extensions_mut().insert(TokenChecked);
            Ok(next.call(req).await?.map_into_left_body())
        }
        Err(refused) => {
            let response = actix_web::ResponseError::error_response(&refused);
            Ok(req.into_response(response).map_into_right_body())
        }
    }
}

/// The holder of a token given in a page's form (not a header): looked up now.
pub async fn identify(state: &AppState, token: &str) -> Result<Identity, ApiError> {
    let token = token.trim();
    if token.is_empty() {
        return Err(ApiError::unauthorized(
            "invalid_request",
            "give your token (see `warlog token create`)",
        ));
    }
    look_up(state, &hash_token(token)).await?.ok_or_else(|| {
        ApiError::unauthorized(
            "invalid_token",
            "this token is not valid: it is unknown, revoked or expired",
        )
    })
}

/// Who holds the token with this hash, looked up in the database now (`None`: unknown,
/// revoked or expired): remembered if it is valid, forgotten if not.
async fn look_up(state: &AppState, token: &[u8; 32]) -> Result<Option<Identity>, ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let Some(holder) = find_token(&client, token).await? else {
        state.tokens.forget(token);
        return Ok(None);
    };
    let role = holder
        .role
        .parse()
        .map_err(|e: String| ApiError::new(ErrorCode::Internal, e))?;
    let identity = Identity {
        name: holder.name,
        role,
    };
    state.tokens.keep(*token, identity.clone());
    Ok(Some(identity))
}

/// The token of an `Authorization: Bearer <token>` header.
fn bearer(header: &str) -> Result<&str, ApiError> {
    header
        .strip_prefix("Bearer ")
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            ApiError::unauthorized(
                "invalid_request",
                "the Authorization header is not `Bearer <token>`",
            )
        })
}

/// Who the `Authorization` header (if any) names, looked up in the database (and
/// remembered).
async fn resolve(
    header: Option<Result<String, header::ToStrError>>,
    state: Option<web::Data<AppState>>,
) -> Result<Caller, ApiError> {
    let Some(header) = header else {
        return Ok(Caller::default());
    };
    let header = header.map_err(|_| {
        ApiError::unauthorized("invalid_request", "the Authorization header is not text")
    })?;
    let token = hash_token(bearer(&header)?);
    let state = state.ok_or_else(|| ApiError::new(ErrorCode::Internal, "no state"))?;
    let identity = look_up(&state, &token)
        .await?
        .ok_or(StoreError::TokenRefused)?;
    Ok(Caller::checked(identity))
}

/// SHA-256 of a token: what the database keeps.
pub fn hash_token(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Makes a token for `name` with `role`, stores its hash, and returns it: the only time
/// it is ever shown. Refused when a live token already has the name.
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
    let made = create_token(
        client,
        &hash_token(&token),
        name,
        role.as_str(),
        expires_in_days,
    )
    .await?;
    match made {
        Ok(()) => Ok(token),
        // Rights follow the name the record gives a sender: no two live tokens share one.
        Err(taken) => Err(ApiError::malformed(format!(
            "a live token is already named {name} (id {}): revoke it first \
             (warlog token revoke), or give this token a name of its own",
            taken.id
        ))),
    }
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
}
