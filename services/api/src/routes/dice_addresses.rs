//! Registering an address with the dice server (issue 52), for TripleA players and any
//! other client: ask for a link, open it to confirm, and with a later link list every
//! table naming the address or one that looks like it. The pages at `/dice/register` do
//! the same in a browser.

use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use warlog_events::dice_table::{CONFIRM_LINK_HOURS, TABLES_LINK_HOURS};

use crate::body::JsonBody;
use crate::dice_tables::{
    confirm_address, mail_address_link, stop_address, tables_naming, NamingView,
};
use crate::error::ApiError;
use crate::query::ValidQuery;
use crate::AppState;

resource! {
    register_dice_address: [
        DiceRegistrationUnavailable,
        DiceAddressNotMailed,
        TooManyRequests,
        UnsupportedMediaType,
        PayloadTooLarge,
    ],
    confirm_dice_address: [
        DiceRegistrationUnavailable,
        AddressLinkRefused,
        UnsupportedMediaType,
        PayloadTooLarge,
    ],
    dice_address_tables: [DiceRegistrationUnavailable, AddressLinkRefused],
    stop_dice_address: [
        DiceRegistrationUnavailable,
        AddressLinkRefused,
        UnsupportedMediaType,
        PayloadTooLarge,
    ],
}

/// An address to register, or whose tables to list.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddressRequest {
    #[schema(example = "ann@club.example")]
    pub address: String,
}

/// What was done: a link was mailed.
#[derive(Debug, Serialize, ToSchema)]
pub struct LinkMailed {
    /// `mailed`.
    #[schema(example = "mailed")]
    pub status: &'static str,
    pub detail: String,
}

/// A link's secret, from the mail.
#[derive(Debug, Deserialize, ToSchema, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct LinkToken {
    pub token: String,
}

/// Mails a link to the address: to confirm it, or, once confirmed, to list its tables.
///
/// The answer is the same whether or not the address is registered. At most 3 such mails
/// an hour go to one address, and one client may ask for 10 an hour.
#[utoipa::path(post, path = "/v1/dice-addresses", tag = "dice",
    request_body = AddressRequest,
    responses((status = 202, description = "A link was mailed to the address", body = LinkMailed)))]
#[post("/v1/dice-addresses")]
pub async fn register_dice_address(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonBody<AddressRequest>,
) -> Result<HttpResponse, ApiError> {
    mail_address_link(&req, &state, &body.value.address).await?;
    Ok(HttpResponse::build(StatusCode::ACCEPTED).json(LinkMailed {
        status: "mailed",
        detail: format!(
            "a link was mailed to the address: if it is not confirmed yet, the link confirms it \
             (open it within {CONFIRM_LINK_HOURS} hours); if it is, the link lists the tables \
             naming it (open it within {TABLES_LINK_HOURS} hours)"
        ),
    }))
}

/// Confirms the address a mailed link was sent to.
///
/// The token is the `token` of the link in the confirmation mail; it holds 48 hours. Once
/// confirmed, the address may be named in rolls and is mailed them. The answer lists the
/// tables naming it, or an address that looks like it.
#[utoipa::path(post, path = "/v1/dice-addresses/confirm", tag = "dice",
    request_body = LinkToken,
    responses((status = 200, description = "The address is confirmed", body = NamingView)))]
#[post("/v1/dice-addresses/confirm")]
pub async fn confirm_dice_address(
    state: web::Data<AppState>,
    body: JsonBody<LinkToken>,
) -> Result<HttpResponse, ApiError> {
    let view = confirm_address(&state, &body.value.token).await?;
    Ok(HttpResponse::Ok().json(view))
}

/// Lists the tables naming the address a mailed link was sent to.
///
/// With the token of a link mailed to a confirmed address (a tables link holds 24 hours),
/// every table naming the address, or an address that looks like it (`bob+x@`, `b.ob@`,
/// letters of another script), newest first. No address is shown.
#[utoipa::path(get, path = "/v1/dice-addresses/tables", tag = "dice",
    params(LinkToken),
    responses((status = 200, description = "The tables", body = NamingView)))]
#[get("/v1/dice-addresses/tables")]
pub async fn dice_address_tables(
    state: web::Data<AppState>,
    query: ValidQuery<LinkToken>,
) -> Result<HttpResponse, ApiError> {
    let view = tables_naming(&state, &query.token).await?;
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .json(view))
}

/// What a stop link did.
#[derive(Debug, Serialize, ToSchema)]
pub struct MailStopped {
    /// `stopped`.
    #[schema(example = "stopped")]
    pub status: &'static str,
    pub detail: String,
}

/// Stops the dice mail to the address a roll's mail was sent to.
///
/// The token is the `token` of the stop link in every roll's mail (it holds a year). The
/// address's registration ends: no more rolls are mailed to it, and a roll naming it is
/// refused until it is registered again.
#[utoipa::path(post, path = "/v1/dice-addresses/stop", tag = "dice",
    request_body = LinkToken,
    responses((status = 200, description = "The dice mail is stopped", body = MailStopped)))]
#[post("/v1/dice-addresses/stop")]
pub async fn stop_dice_address(
    state: web::Data<AppState>,
    body: JsonBody<LinkToken>,
) -> Result<HttpResponse, ApiError> {
    stop_address(&state, &body.value.token).await?;
    Ok(HttpResponse::Ok().json(MailStopped {
        status: "stopped",
        detail: "no more rolls are mailed to this address, and a roll naming it is refused \
                 until it is registered again"
            .to_owned(),
    }))
}
