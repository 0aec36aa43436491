//! The dice server as TripleA's 2.x clients speak to it (2.6 and 2.7, which most players
//! still run): `POST /MARTI.php` with the form fields `numdice`, `numsides`, `subject`,
//! `roller` and `gm`, answered with what the client reads with two patterns: a page with
//! `your dice are: 1,2,3<p>` for the dice, a line of text `fatal error: ...!` for a refusal. The same tables,
//! limits, registration, signatures and mails as `/api/roll`.

use actix_web::http::header;
use actix_web::{post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use utoipa::ToSchema;
use warlog_events::dice_table::MARTI_FIELDS;

use crate::body::RawBody;
use crate::dice_tables::{read_form, refusal_parts, roll_for_client, ClientRoll, Rolled};
use crate::error::ApiError;
use crate::AppState;

resource! {
    roll_dice_marti: [
        InvalidDiceRoll,
        DiceAddressNotRegistered,
        TooManyRequests,
        UnsupportedMediaType,
        PayloadTooLarge,
        RequestTimeout,
        NotReady,
        VersionConflict,
    ] => MartiRefusal as "text/plain",
    roll_dice_marti_lower_case: [
        InvalidDiceRoll,
        DiceAddressNotRegistered,
        TooManyRequests,
        UnsupportedMediaType,
        PayloadTooLarge,
        RequestTimeout,
        NotReady,
        VersionConflict,
    ] => MartiRefusal as "text/plain",
}

/// A refused roll, as TripleA's 2.x clients read it: one line, `fatal error: ` then every
/// reason, separated by `; `, then `!`.
#[derive(Debug, ToSchema)]
#[schema(value_type = String, example = "fatal error: numdice is 0: a roll is 1 to 5000 dice!")]
pub struct MartiRefusal(pub String);

/// A roll as TripleA's 2.x clients send it. Other fields are ignored.
#[derive(Default, Deserialize, ToSchema)]
pub struct MartiForm {
    /// How many dice: 1 to 5,000.
    #[schema(example = "3")]
    pub numdice: Option<String>,
    /// Their sides: 1 to 5,000.
    #[schema(example = "6")]
    pub numsides: Option<String>,
    /// `<game id>:<what the roll is for>`, at most 200 characters: put in the roll's mail.
    #[schema(example = "TripleA:Germany attacks Karelia")]
    pub subject: Option<String>,
    /// The player rolling (To) and the other player or game master (Cc): together they
    /// name the table, in either order.
    #[schema(example = "ann@club.example")]
    pub roller: Option<String>,
    #[schema(example = "bob@club.example")]
    pub gm: Option<String>,
}

/// Kept out of logs: the addresses are private.
impl std::fmt::Debug for MartiForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MartiForm")
            .field("numdice", &self.numdice)
            .field("numsides", &self.numsides)
            .finish_non_exhaustive()
    }
}

/// Rolls dice for a pair of players, as TripleA's 2.x clients ask.
///
/// The answer is a page: `your dice are: 4,1,6<p>` (each from 1 to `numsides`), or a line
/// of text, `fatal error: <every reason, separated by "; ">!`, with the status of the
/// refusal. The
/// table is the same as `/api/roll`'s for the same two addresses; its page is in the
/// answer's `Link` header.
#[utoipa::path(post, path = "/MARTI.php", tag = "dice",
    request_body(content = MartiForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "The dice, on a page", content_type = "text/html", body = String),
    ))]
#[post("/MARTI.php")]
pub async fn roll_dice_marti(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: Result<RawBody, ApiError>,
) -> HttpResponse {
    answer(&req, &state, body).await
}

/// Rolls dice as `/MARTI.php` does, at the lower-case path some older builds post to.
///
/// The same form, answer and table as `/MARTI.php`.
#[utoipa::path(post, path = "/marti.php", tag = "dice",
    request_body(content = MartiForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "The dice, on a page", content_type = "text/html", body = String),
    ))]
#[post("/marti.php")]
pub async fn roll_dice_marti_lower_case(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: Result<RawBody, ApiError>,
) -> HttpResponse {
    answer(&req, &state, body).await
}

async fn answer(
    req: &HttpRequest,
    state: &AppState,
    body: Result<RawBody, ApiError>,
) -> HttpResponse {
    let rolled = match body {
        Ok(RawBody(body)) => roll(req, state, &body).await,
        Err(error) => Err(vec![error]),
    };
    match rolled {
        Ok(rolled) => {
            let dice: Vec<String> = rolled.answer["result"]["dice"]
                .as_array()
                .map(|dice| dice.iter().map(|d| d.to_string()).collect())
                .unwrap_or_default();
            let signature = rolled.answer["result"]["signature"]
                .as_str()
                .unwrap_or_default();
            HttpResponse::Ok()
                .insert_header((
                    header::LINK,
                    format!("</dice/{}>; rel=\"dice-table\"", rolled.table),
                ))
                .insert_header((header::CACHE_CONTROL, "no-store"))
                .content_type("text/html; charset=utf-8")
                .body(page(&format!(
                    "your dice are: {}<p>\n<p>Rolled at dice table <a href=\"/dice/{table}\">\
                     {table}</a>, whose page lists every roll. Signature (Ed25519, checked with \
                     the key at /.well-known/warlog-dice-key): {signature}</p>",
                    dice.join(","),
                    table = rolled.table,
                )))
        }
        Err(errors) => {
            let (mut answer, reasons) = refusal_parts(&errors);
            answer
                .insert_header((header::CACHE_CONTROL, "no-store"))
                .content_type("text/plain; charset=utf-8")
                .body(fatal_error(&reasons).0)
        }
    }
}

/// The refusal's line. The client's pattern reads to the last `!` before a line ends, and
/// Java ends a line at any of `\r`, `\n`, U+0085, U+2028 and U+2029: none is left inside.
fn fatal_error(reasons: &[String]) -> MartiRefusal {
    let one_line =
        |reason: &String| reason.replace(['\r', '\n', '\u{85}', '\u{2028}', '\u{2029}', '!'], " ");
    let reasons: Vec<String> = reasons.iter().map(one_line).collect();
    MartiRefusal(format!("fatal error: {}!\n", reasons.join("; ")))
}

async fn roll(req: &HttpRequest, state: &AppState, body: &[u8]) -> Result<Rolled, Vec<ApiError>> {
    let form: MartiForm =
        read_form(req, body, "numdice, numsides, subject, roller, gm").map_err(|e| vec![e])?;
    roll_for_client(
        req,
        state,
        body,
        ClientRoll {
            fields: MARTI_FIELDS,
            times: form.numdice.as_deref(),
            max: form.numsides.as_deref(),
            first: form.roller.as_deref(),
            second: form.gm.as_deref(),
            note: form.subject.as_deref(),
        },
    )
    .await
}

fn page(content: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>warlog dice</title></head><body>\n{content}\n</body></html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_one_line_the_older_clients_pattern_reads_whole() {
        let reasons = vec![
            "numdice is \"1\u{2028}2!\": how many dice to roll".to_owned(),
            "gm is missing\r\nnow".to_owned(),
        ];
        let line = fatal_error(&reasons).0;
        assert_eq!(
            line,
            "fatal error: numdice is \"1 2 \": how many dice to roll; gm is missing  now!\n"
        );
        let first_break = line
            .find(['\r', '\n', '\u{85}', '\u{2028}', '\u{2029}'])
            .expect("the final line break");
        assert_eq!(line[..first_break].matches('!').count(), 1);
        assert!(line[..first_break].ends_with('!'));
    }
}
