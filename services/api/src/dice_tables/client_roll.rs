//! A roll asked by one of TripleA's clients, whichever protocol it speaks (`/api/roll`'s
//! JSON or `/MARTI.php`'s page): limits per client, then per client at the table; the
//! addresses registered (when required); the mail; the roll through the one write path.
//! The protocols differ only in their field names and in how they answer: both read their
//! form, and give a refusal its status, by the same two functions here.

use actix_web::http::{header, StatusCode};
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder};
use warlog_events::dice_table::{check_registered, RollFields, RollRead};
use warlog_store::dice_addresses::confirmed;

use super::{stop_link, DiceClient, DiceRoll, RollMailing, RollRecipient};
use crate::error::{ApiError, ErrorCode};
use crate::write::{self, WriteRequest};
use crate::AppState;

/// Where an address is registered.
pub const REGISTER_PATH: &str = "/dice/register";

/// A roll as a client's form gives it, under its protocol's field names.
#[derive(Debug, Clone, Copy)]
pub struct ClientRoll<'a> {
    pub fields: RollFields,
    pub times: Option<&'a str>,
    pub max: Option<&'a str>,
    pub first: Option<&'a str>,
    pub second: Option<&'a str>,
    /// What the client says the roll is for (the 2.x clients' `subject`): put in the mail,
    /// not recorded.
    pub note: Option<&'a str>,
}

/// A roll made: its table, and the answer `/api/roll` gives (`status` and `result`).
#[derive(Debug)]
pub struct Rolled {
    pub table: String,
    pub answer: serde_json::Value,
}

/// Rolls what `roll` asks for the client making `req` (whose body, for its idempotency
/// fingerprint, is `body`), or every reason not to.
pub async fn roll_for_client(
    req: &HttpRequest,
    state: &AppState,
    body: &[u8],
    roll: ClientRoll<'_>,
) -> Result<Rolled, Vec<ApiError>> {
    let dice = &state.dice;
    let client = DiceClient::of(req, state);
    dice.per_client.admit(client.clone()).map_err(|e| vec![e])?;
    let RollRead { asked, addresses } = roll
        .fields
        .read(roll.times, roll.max, roll.first, roll.second)
        .map_err(|why| invalid(why, ErrorCode::InvalidDiceRoll))?;
    let keys = dice.keys(state.store.pool()).await.map_err(|e| vec![e])?;
    let table = keys
        .table_of(&addresses[0], &addresses[1])
        .map_err(|why| invalid(why, ErrorCode::InvalidDiceRoll))?;
    dice.per_table
        .admit_from(
            client.limit_key(&keys, table.as_str()),
            "from one client at one dice table",
        )
        .map_err(|e| vec![e])?;
    let address_keys = addresses.clone().map(|a| keys.address_key(&a));
    if dice.requires_registration() {
        let pool = state.store.pool();
        let db = pool
            .get()
            .await
            .map_err(|e| vec![warlog_store::StoreError::from(e).into()])?;
        let found = confirmed(&db, &[&address_keys[0], &address_keys[1]])
            .await
            .map_err(|e| vec![e.into()])?;
        let register_at = match &state.public_url {
            Some(base) => base.join(REGISTER_PATH),
            None => REGISTER_PATH.to_owned(),
        };
        // Registration is consent to the dice mail: an address the service never mails
        // (its domain is not the operator's choice) needs none.
        let mailed = |n: usize| dice.settings.mail_domains.allows(&addresses[n]);
        check_registered(
            &roll.fields,
            &addresses,
            [found[0] || !mailed(0), found[1] || !mailed(1)],
            &register_at,
        )
        .map_err(|why| invalid(why, ErrorCode::DiceAddressNotRegistered))?;
    }
    let recipients = dice
        .recipients(&keys, &addresses, &client)
        .map_err(|e| vec![e])?;
    // Where registration made the mail, every mail says how to stop it.
    let now = state.clock.moment();
    let recipients: Vec<RollRecipient> = recipients
        .into_iter()
        .map(|address| RollRecipient {
            stop_link: dice
                .requires_registration()
                .then(|| stop_link(&state.public_url, &keys, &address, now)),
            address,
        })
        .collect();
    let mail = (!recipients.is_empty()).then(|| {
        let mailing = RollMailing {
            public_url: state.public_url.clone(),
            idle: dice.idle_in_words(),
            note: roll.note.map(str::to_owned),
        };
        (mailing, recipients)
    });
    let names = addresses
        .iter()
        .zip(&address_keys)
        .map(|(address, key)| (key.clone(), keys.lookalike_key(address)))
        .collect();
    let write = DiceRoll {
        client_tag: client.tag(&keys, table.as_str()),
        table: table.clone(),
        asked,
        keys,
        mail,
        names,
    };
    let request = WriteRequest::anonymous(req, body);
    let written = write::run(state, &request, &write)
        .await
        .map_err(|e| vec![e])?;
    Ok(Rolled {
        table: table.as_str().to_owned(),
        answer: written.body,
    })
}

fn invalid(reasons: Vec<String>, code: ErrorCode) -> Vec<ApiError> {
    reasons
        .into_iter()
        .map(|why| ApiError::new(code, why))
        .collect()
}

/// The form, from a body sent as `application/x-www-form-urlencoded` (or with no type);
/// `fields` names what it should hold. A field holding a control character (a tab or a
/// line break aside) is refused by its name, as a page's form is.
pub(crate) fn read_form<T: serde::de::DeserializeOwned>(
    req: &HttpRequest,
    body: &[u8],
    fields: &str,
) -> Result<T, ApiError> {
    let form_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
    if !form_type {
        return Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!("send the roll as a form (application/x-www-form-urlencoded): {fields}"),
        ));
    }
    if let Some(problem) = crate::input_guard::lenient_form_problem(body) {
        return Err(ApiError::malformed(problem));
    }
    serde_urlencoded::from_bytes(body)
        .map_err(|_| ApiError::new(ErrorCode::InvalidDiceRoll, "the form cannot be read"))
}

/// A refused roll's status (its first reason's, with `Retry-After` where waiting helps),
/// and every reason in words (an internal error by the reference it is logged under).
pub(crate) fn refusal_parts(errors: &[ApiError]) -> (HttpResponseBuilder, Vec<String>) {
    let status = errors
        .first()
        .map_or(StatusCode::BAD_REQUEST, |e| e.code.status());
    let reasons = errors
        .iter()
        .map(|error| {
            let problem = error.problem();
            if error.code == ErrorCode::Internal {
                let reference = uuid::Uuid::new_v4();
                tracing::error!(%reference, detail = %problem.detail, "internal error");
                format!("something went wrong inside the dice server; quote reference {reference} to its operators")
            } else {
                problem.detail
            }
        })
        .collect();
    let mut answer = HttpResponse::build(status);
    if matches!(status.as_u16(), 429 | 503) {
        answer.insert_header((
            header::RETRY_AFTER,
            crate::error::RETRY_AFTER_SECONDS.to_string(),
        ));
    }
    (answer, reasons)
}
