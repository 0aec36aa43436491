//! A player's e-mail address, where "your move" mails go when the player's turn begins. It
//! is private: only the player named and admins read or change it (`may_manage_email`, in
//! the league's rules), it is a row of its own and never an event (the log is exported
//! publicly), and no public view, page or export shows it.

use actix_web::http::header;
use actix_web::{delete, get, put, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use warlog_league::players::{may_manage_email, EmailAddress, Handle};
use warlog_store::mail::{delete_email, find_email, set_email, PlayerEmail};
use warlog_store::StoreError;

use crate::auth::{Caller, Identity};
use crate::body::JsonBody;
use crate::error::{ApiError, ErrorCode};
use crate::AppState;

resource! {
    player_email: [Forbidden, EmailNotSet],
    set_player_email: [Forbidden],
    delete_player_email: [Forbidden],
}

/// A new address.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"email": "ann@club.example"}))]
pub struct SetEmail {
    /// A plausible address: at most 254 characters, `local@domain` with a domain of two or
    /// more labels, printable ASCII without spaces, quotes or brackets.
    #[schema(value_type = String)]
    pub email: EmailAddress,
}

/// A player's address on file.
#[derive(Debug, Serialize, ToSchema)]
pub struct EmailView {
    pub handle: String,
    pub email: String,
    /// The token name that set it: the player, or an admin.
    pub set_by: String,
    #[schema(format = DateTime)]
    pub set_at: String,
}

impl From<PlayerEmail> for EmailView {
    fn from(row: PlayerEmail) -> Self {
        EmailView {
            handle: row.handle,
            email: row.email,
            set_by: row.set_by,
            set_at: row.set_at,
        }
    }
}

/// The handle from the path, and the caller, if the league's rule lets the caller manage
/// that player's address.
async fn allowed<'a>(
    req: &HttpRequest,
    caller: &'a Caller,
    handle: &str,
) -> Result<(&'a Identity, Handle), ApiError> {
    let caller = caller.verified(req).await?;
    let handle = Handle::try_from(handle.to_owned()).map_err(ApiError::malformed)?;
    may_manage_email(&caller.sender(), &handle)?;
    Ok((caller, handle))
}

/// An address is no one else's business: not kept by caches on the way.
fn private(view: EmailView) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "private, no-store"))
        .json(view)
}

/// A player's e-mail address (the player or an admin).
///
/// The address "your move" mails go to when one of the player's powers begins its turn, who
/// set it and when. Only the player named (a player's token under that handle) or an admin
/// may read it; it appears in no public view, page or export.
#[utoipa::path(get, path = "/v1/players/{handle}/email", tag = "league",
    params(("handle" = String, Path)),
    responses(
        (status = 200, description = "The address on file", body = EmailView),
    ),
    security(("bearer" = [])))]
#[get("/v1/players/{handle}/email")]
pub async fn player_email(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    handle: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (_, handle) = allowed(&req, &caller, &handle).await?;
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let found = find_email(&client, handle.as_str())
        .await?
        .ok_or_else(|| not_set(&handle))?;
    Ok(private(found.into()))
}

/// Sets a player's e-mail address (the player or an admin).
///
/// From the next turn the player's power begins, a plain-text mail tells them it is their
/// move, with the link to the turn page, when the operator has configured mail
/// (docs/operations.md). The address replaces any earlier one; mails not yet sent go to the
/// new one. It is kept apart from the league's record and shown to nobody else.
///
/// An address that is not plausible is refused (400; the detail says why).
#[utoipa::path(put, path = "/v1/players/{handle}/email", tag = "league",
    params(("handle" = String, Path)),
    request_body = SetEmail,
    responses(
        (status = 200, description = "The address on file now", body = EmailView),
    ),
    security(("bearer" = [])))]
#[put("/v1/players/{handle}/email")]
pub async fn set_player_email(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    handle: web::Path<String>,
    body: JsonBody<SetEmail>,
) -> Result<HttpResponse, ApiError> {
    let (caller, handle) = allowed(&req, &caller, &handle).await?;
    let at = state
        .clock
        .now()
        .format(&time::format_description::well_known::Rfc3339)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("the time: {e}")))?;
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    set_email(
        &client,
        handle.as_str(),
        body.value.email.as_str(),
        &caller.name,
        &at,
    )
    .await?;
    let kept = find_email(&client, handle.as_str())
        .await?
        .ok_or_else(|| ApiError::new(ErrorCode::Internal, "the address was not kept"))?;
    Ok(private(kept.into()))
}

/// Removes a player's e-mail address (the player or an admin).
///
/// No more mails are made for the player, and those not yet sent are dropped. Removing an
/// address that is not on file is no error: either way there is none afterwards.
#[utoipa::path(delete, path = "/v1/players/{handle}/email", tag = "league",
    params(("handle" = String, Path)),
    responses(
        (status = 204, description = "No address on file any more"),
    ),
    security(("bearer" = [])))]
#[delete("/v1/players/{handle}/email")]
pub async fn delete_player_email(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    handle: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (_, handle) = allowed(&req, &caller, &handle).await?;
    let mut client = state.store.pool().get().await.map_err(StoreError::from)?;
    delete_email(&mut client, handle.as_str()).await?;
    Ok(HttpResponse::NoContent().finish())
}

fn not_set(handle: &Handle) -> ApiError {
    ApiError::new(
        ErrorCode::EmailNotSet,
        format!("{handle} has no e-mail address on file"),
    )
}
