//! The dice server TripleA's client talks to (`POST /api/roll`, its own protocol: a form in,
//! `{"status": ...}` out), the service's public key, and each table's view and reveal.
//! Rolls are limited per client and per table; a table's addresses are never read back.

use actix_web::http::header;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use warlog_events::dice_table::{
    example_roll, roll_statement, statement_template, API_ROLL_FIELDS,
};

use crate::body::{JsonBody, RawBody};
use crate::dice_tables::{
    read_form, refusal_parts, reveal, roll_for_client, ClientRoll, DiceTableView, RevealAnswer,
    RollAnswer,
};
use crate::error::ApiError;
use crate::reads::dice::table_view;
use crate::AppState;

resource! {
    roll_dice: [
        InvalidDiceRoll,
        DiceAddressNotRegistered,
        TooManyRequests,
        UnsupportedMediaType,
        PayloadTooLarge,
        RequestTimeout,
        NotReady,
        VersionConflict,
    ] => RollRefused,
    dice_public_key: [],
    dice_table: [DiceTableNotFound],
    reveal_dice_table: [DiceTableNotFound, RevealRefused, NothingToReveal, VersionConflict],
}

/// A roll, as TripleA's client sends it. Other fields are ignored.
#[derive(Default, Deserialize, ToSchema)]
pub struct RollForm {
    /// How many dice: 1 to 5,000.
    #[schema(example = "3")]
    pub times: Option<String>,
    /// Their sides: 1 to 5,000.
    #[schema(example = "6")]
    pub max: Option<String>,
    /// The two players' addresses, in either order: they name the table, and each roll is
    /// mailed to both.
    #[schema(example = "ann@club.example")]
    pub email1: Option<String>,
    #[schema(example = "bob@club.example")]
    pub email2: Option<String>,
}

/// Kept out of logs: the addresses are private.
impl std::fmt::Debug for RollForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RollForm")
            .field("times", &self.times)
            .field("max", &self.max)
            .finish_non_exhaustive()
    }
}

/// A refused roll, as TripleA's client reads it: `status` and every reason.
#[derive(Debug, Serialize, ToSchema)]
pub struct RollRefused {
    /// `Error`.
    #[schema(example = "Error")]
    pub status: &'static str,
    #[schema(example = json!(["times is 0: a roll is 1 to 5000 dice"]))]
    pub errors: Vec<String>,
}

/// Rolls dice for a pair of players, as TripleA's dice-server client asks.
///
/// The table is the pair `email1`, `email2`'s (in either order). The answer is `{"status":"OK","result":{"dice":[...],"signature":...,
/// "date":...}}`, or `{"status":"Error","errors":[...]}` with every reason (and the
/// status of the refusal). The table's page is in the answer's `Link` header.
#[utoipa::path(post, path = "/api/roll", tag = "dice",
    request_body(content = RollForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "The dice, each from 1 to max", body = RollAnswer),
    ))]
#[post("/api/roll")]
pub async fn roll_dice(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: Result<RawBody, ApiError>,
) -> HttpResponse {
    let body = match body {
        Ok(RawBody(body)) => body,
        Err(error) => return refusal(vec![error]),
    };
    match roll(&req, &state, &body).await {
        Ok((table, answer)) => HttpResponse::Ok()
            .insert_header((header::LINK, format!("</dice/{table}>; rel=\"dice-table\"")))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(answer),
        Err(errors) => refusal(errors),
    }
}

async fn roll(
    req: &HttpRequest,
    state: &AppState,
    body: &[u8],
) -> Result<(String, serde_json::Value), Vec<ApiError>> {
    let form: RollForm = read_form(req, body, "times, max, email1, email2").map_err(|e| vec![e])?;
    let rolled = roll_for_client(
        req,
        state,
        body,
        ClientRoll {
            fields: API_ROLL_FIELDS,
            times: form.times.as_deref(),
            max: form.max.as_deref(),
            first: form.email1.as_deref(),
            second: form.email2.as_deref(),
            note: None,
        },
    )
    .await?;
    Ok((rolled.table, rolled.answer))
}

/// A refusal as TripleA's client reads it, with the status of its first reason.
fn refusal(errors: Vec<ApiError>) -> HttpResponse {
    let (mut answer, reasons) = refusal_parts(&errors);
    answer.json(RollRefused {
        status: "Error",
        errors: reasons,
    })
}

/// The key every roll's signature is checked with, and what it signs.
#[derive(Debug, Serialize, ToSchema)]
pub struct DicePublicKey {
    #[schema(example = "Ed25519")]
    pub algorithm: &'static str,
    /// The 32-byte public key, base64.
    pub public_key: String,
    /// The same key as PEM, for `openssl pkeyutl -verify -pubin -inkey key.pem -rawin`.
    pub public_key_pem: String,
    /// What a roll's signature covers, a field a line (UTF-8, no final line break): the
    /// template, with the roll's own values in place of the angle brackets.
    pub statement: String,
    /// A worked example: a made-up roll's statement and its signature by this key, which
    /// any reader can check before trusting the key with a real roll.
    pub example: SignedExample,
}

/// A statement and its signature.
#[derive(Debug, Serialize, ToSchema)]
pub struct SignedExample {
    pub statement: String,
    /// Base64 of the Ed25519 signature.
    pub signature: String,
}

/// The service's public key, which every roll's signature is checked with.
///
/// A roll's signature (base64) is the Ed25519 signature of the roll's statement, so a
/// player can check one roll from its e-mail alone.
#[utoipa::path(get, path = "/.well-known/warlog-dice-key", tag = "dice",
    responses((status = 200, description = "The public key", body = DicePublicKey)))]
#[get("/.well-known/warlog-dice-key")]
pub async fn dice_public_key(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let keys = state.dice.keys(state.store.pool()).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .json(DicePublicKey {
            algorithm: "Ed25519",
            public_key: keys.public_key_base64(),
            public_key_pem: keys.public_key_pem(),
            statement: statement_template(),
            example: {
                let statement = roll_statement(&example_roll());
                SignedExample {
                    signature: keys.sign(&statement),
                    statement,
                }
            },
        }))
}

/// A dice table: its epochs and its latest rolls.
///
/// Each epoch shows its seed's commitment, and the seed once revealed. The whole stream is
/// at `events_url`, as NDJSON for `warlog audit`.
#[utoipa::path(get, path = "/v1/dice-tables/{table}", tag = "dice",
    params(("table" = String, Path, description = "The table's id: 32 hex digits")),
    responses((status = 200, description = "The table", body = DiceTableView)))]
#[get("/v1/dice-tables/{table}")]
pub async fn dice_table(
    req: HttpRequest,
    state: web::Data<AppState>,
    table: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let view = table_view(&req, &state, &table).await?;
    Ok(HttpResponse::Ok().json(view))
}

/// How a reveal is asked for.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RevealRequest {
    /// The secret of the link mailed with the epoch's rolls; without it the table must have
    /// been idle for the stated time (`idle_reveal_from`).
    pub token: Option<String>,
}

/// Reveals the seed of a table's epoch in force, so that every roll of it can be recomputed.
///
/// The next epoch begins under a new committed seed. Anyone with the link mailed to the
/// table's addresses may reveal, and anyone at all once the table has been idle.
#[utoipa::path(post, path = "/v1/dice-tables/{table}/reveal", tag = "dice",
    params(("table" = String, Path, description = "The table's id: 32 hex digits")),
    request_body = RevealRequest,
    responses((status = 200, description = "The seed, and the next epoch's commitment", body = RevealAnswer)))]
#[post("/v1/dice-tables/{table}/reveal")]
pub async fn reveal_dice_table(
    req: HttpRequest,
    state: web::Data<AppState>,
    table: web::Path<String>,
    body: JsonBody<RevealRequest>,
) -> Result<HttpResponse, ApiError> {
    let answer = reveal(&req, &state, &table, body.value.token).await?;
    Ok(HttpResponse::Ok().json(answer))
}
