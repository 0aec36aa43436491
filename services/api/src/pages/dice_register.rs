//! The pages registering an address with the dice server (issue 52): the form asking for a
//! link, the page a confirmation link opens (which changes nothing) and its button, and the
//! list of tables naming an address. They do in a browser what `/v1/dice-addresses` does,
//! through the same functions. The pages a mailed link opens hold its token in their
//! address: no cache keeps them and no `Referer` carries it on.

use actix_web::http::header::{self, HeaderValue};
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use maud::{html, Markup};
use serde::Deserialize;
use warlog_events::dice_table::{CONFIRM_LINK_HOURS, MAX_ADDRESS, TABLES_LINK_HOURS};
use warlog_store::dice_addresses::MAX_TABLES_LISTED;

use super::{dates, error_page, framed, layout, page, words};
use crate::body::FormBody;
use crate::dice_tables::{
    confirm_address, mail_address_link, stop_address, tables_naming, NamingView, CONFIRM_PAGE,
    LINK_MAILS_PER_ADDRESS_PER_HOUR, REGISTER_PATH, STOP_PAGE,
};
use crate::error::{ApiError, ErrorCode};
use crate::query::parse_query;
use crate::AppState;

/// The registration form as a browser sends it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegisterForm {
    #[serde(default)]
    address: String,
}

/// A mailed link's query. Other parameters are let be: a mail client may add its own.
#[derive(Debug, Deserialize)]
struct LinkQuery {
    token: Option<String>,
}

/// The confirmation form as a browser sends it: the mailed link's token.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfirmForm {
    #[serde(default)]
    token: String,
}

/// What registering is for, and the form asking for a link: to confirm an address, or,
/// once confirmed, to list the tables naming it.
#[get("/dice/register")]
pub async fn dice_register_page(state: web::Data<AppState>) -> HttpResponse {
    if !state.dice.settings.mail {
        return unavailable_page(&unavailable());
    }
    page(register_page("", None))
}

/// A press of "Mail me a link": the link mailed, and a page saying so; a refusal is the
/// form again, saying why.
#[post("/dice/register")]
pub async fn dice_register_form(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: Result<FormBody<RegisterForm>, ApiError>,
) -> HttpResponse {
    let typed = match &form {
        Ok(form) => form.value.address.trim().to_owned(),
        Err(_) => String::new(),
    };
    let done = match form {
        Err(error) => Err(error),
        Ok(_) if typed.is_empty() => {
            Err(ApiError::malformed("give the e-mail address to register"))
        }
        Ok(_) => mail_address_link(&req, &state, &typed).await,
    };
    let answer = match done {
        Ok(()) => page(mailed_page(&typed)),
        Err(error) => match error.code {
            ErrorCode::DiceRegistrationUnavailable => unavailable_page(&error),
            ErrorCode::Internal | ErrorCode::NotReady | ErrorCode::Busy => error_page(&error),
            _ => {
                let mut answer = page(register_page(&typed, Some(&error)));
                *answer.status_mut() = error.code.status();
                answer
            }
        },
    };
    // The answer shows the address typed: kept by no cache.
    private(answer)
}

/// The page a confirmation link opens: what confirming does, and the button that does it.
/// Opening it changes nothing (a mail scanner may open every link).
#[get("/dice/register/confirm")]
pub async fn dice_confirm_page(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    button_page(&req, &state, confirm_page)
}

/// The page a mailed link opens before its button: `asking`, with the link's token.
fn button_page(req: &HttpRequest, state: &AppState, asking: fn(&str) -> Markup) -> HttpResponse {
    let answer = if state.dice.settings.mail {
        match link_token(req.query_string()) {
            Ok(token) => page(asking(&token)),
            Err(error) => link_refused(&error),
        }
    } else {
        unavailable_page(&unavailable())
    };
    private(answer)
}

/// A press of "Confirm this address": the address confirmed, and the tables naming it.
#[post("/dice/register/confirm")]
pub async fn dice_confirm_form(
    state: web::Data<AppState>,
    form: Result<FormBody<ConfirmForm>, ApiError>,
) -> HttpResponse {
    let answer = match form {
        Err(error) => link_refused(&error),
        Ok(form) => match confirm_address(&state, &form.value.token).await {
            Ok(view) => page(confirmed_page(&view)),
            Err(error) => link_refused(&error),
        },
    };
    private(answer)
}

/// The page the stop link of a roll's mail opens: what stopping does, and the button that
/// does it. Opening it changes nothing.
#[get("/dice/register/stop")]
pub async fn dice_stop_page(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    button_page(&req, &state, stop_page)
}

/// A press of "Stop the dice mail": the address's registration ended.
#[post("/dice/register/stop")]
pub async fn dice_stop_form(
    state: web::Data<AppState>,
    form: Result<FormBody<ConfirmForm>, ApiError>,
) -> HttpResponse {
    let answer = match form {
        Err(error) => link_refused(&error),
        Ok(form) => match stop_address(&state, &form.value.token).await {
            Ok(_) => page(stopped_page()),
            Err(error) => link_refused(&error),
        },
    };
    private(answer)
}

/// The page a tables link opens: every table naming the address, or one that looks like
/// it.
#[get("/dice/register/tables")]
pub async fn dice_register_tables(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let answer = match link_token(req.query_string()) {
        Err(error) => link_refused(&error),
        Ok(token) => match tables_naming(&state, &token).await {
            Ok(view) => page(tables_page(&view)),
            Err(error) => link_refused(&error),
        },
    };
    private(answer)
}

/// The token of a mailed link's query; none is a link cut short.
fn link_token(query: &str) -> Result<String, ApiError> {
    let query: LinkQuery = parse_query(query)?;
    query
        .token
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::AddressLinkRefused,
                "this page is opened by the link mailed to the address, which ends in its \
                 token: copy the whole link from the mail",
            )
        })
}

/// A page holding an address or a link's token: kept by no cache, and named in no
/// `Referer` when a link on it is followed.
fn private(mut answer: HttpResponse) -> HttpResponse {
    let headers = answer.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    answer
}

/// A page whose own address holds a link's token: the token goes on in no `Referer`.
fn secret_layout(title: &str, body: Markup) -> Markup {
    framed(
        title,
        html! { meta name="referrer" content="no-referrer"; },
        body,
    )
}

/// `detail` as a sentence: a capital first, a full stop last.
fn sentence(detail: &str) -> String {
    let mut chars = detail.trim().chars();
    let mut text: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => return String::new(),
    };
    if !text.ends_with(['.', '!', '?']) {
        text.push('.');
    }
    text
}

/// A table's id as a link shows it: its first eight digits.
fn short(table: &str) -> &str {
    table.get(..8).unwrap_or(table)
}

fn unavailable() -> ApiError {
    ApiError::new(
        ErrorCode::DiceRegistrationUnavailable,
        "this dice server sends no mail, so it registers no address: a roll here may name any \
         address, and no one is mailed its dice",
    )
}

/// Registration where the service mails no one: there is nothing to register.
fn unavailable_page(error: &ApiError) -> HttpResponse {
    let mut answer = page(layout(
        "No registration here",
        html! {
            h1 { "No registration here" }
            p.problem { (sentence(&error.detail)) }
            p { a href="/" { "Back to the leaderboard" } }
        },
    ));
    *answer.status_mut() = error.code.status();
    answer
}

/// A mailed link refused (not one mailed, expired, cut short): why, and where to ask for
/// another. Anything else is the site's error page.
fn link_refused(error: &ApiError) -> HttpResponse {
    match error.code {
        ErrorCode::AddressLinkRefused
        | ErrorCode::MalformedRequest
        | ErrorCode::UnsupportedMediaType
        | ErrorCode::PayloadTooLarge => {}
        ErrorCode::DiceRegistrationUnavailable => return unavailable_page(error),
        _ => return error_page(error),
    }
    let mut answer = page(secret_layout(
        "This link does not work",
        html! {
            h1 { "This link does not work" }
            p.problem { (sentence(&error.detail)) }
            p.note { "Nothing was changed." }
            p {
                "A new link is mailed to your address from "
                a href=(REGISTER_PATH) { "the registration page" } "."
            }
        },
    ));
    *answer.status_mut() = error.code.status();
    answer
}

fn register_page(typed: &str, refused: Option<&ApiError>) -> Markup {
    layout(
        "Register with the dice server",
        html! {
            h1 { "Register your address with the dice server" }
            p.lead {
                "A roll at this dice server names the two players' e-mail addresses, and is "
                "mailed to both, so that neither can roll in secret until the dice suit. As on "
                "TripleA's official dice server, a roll may name an address only once its "
                "owner has confirmed it, by a link mailed to it: no one can have dice mailed "
                "to an address whose owner did not ask for them. Every roll's mail carries a "
                "link that stops the dice mail to its address."
            }
            p {
                "TripleA's own Register button opens the official dice server's site, which "
                "registers addresses for that server alone: a player of this server registers "
                "here. Each player registers their own address, once."
            }
            h2 #how { "How it works" }
            ol {
                li { "Give your e-mail address below." }
                li {
                    "A link is mailed to it, which holds for " (CONFIRM_LINK_HOURS) " hours."
                }
                li {
                    "Open the link and press " strong { "Confirm this address" } ". From then "
                    "on rolls here may name it, and each is mailed to it."
                }
            }
            p {
                "Registered already? The same form mails you a link to the list of every dice "
                "table naming your address, or an address that looks like it; that link holds "
                "for " (TABLES_LINK_HOURS) " hours."
            }
            (register_form(typed, refused))
            p.note {
                "The answer to this form is the same whether or not an address is registered. "
                "At most " (LINK_MAILS_PER_ADDRESS_PER_HOUR) " links an hour are mailed to one "
                "address."
            }
        },
    )
}

fn register_form(typed: &str, refused: Option<&ApiError>) -> Markup {
    html! {
        @if let Some(error) = refused {
            p.problem id="address-problem" {
                (sentence(&format!("No link was mailed: {}", error.detail)))
            }
        }
        form.search method="post" action=(REGISTER_PATH) {
            label for="address" { "Your e-mail address" }
            // Text, not `email`: a browser's own check refuses addresses of other scripts,
            // which this server takes.
            input #address type="text" name="address" inputmode="email" autocomplete="email"
                autocapitalize="none" spellcheck="false" required maxlength=(MAX_ADDRESS)
                value=(typed)
                aria-invalid=[refused.map(|_| "true")]
                aria-describedby=[refused.map(|_| "address-problem")];
            button type="submit" { "Mail me a link" }
        }
    }
}

fn mailed_page(typed: &str) -> Markup {
    layout(
        "Check your mail",
        html! {
            h1 { "Check your mail" }
            section.answer {
                p { "A link was mailed to " strong { (typed) } "." }
                p {
                    "If the address is not confirmed yet, the link confirms it (open it within "
                    (CONFIRM_LINK_HOURS) " hours); if it is, the link lists the dice tables "
                    "naming it (open it within " (TABLES_LINK_HOURS) " hours)."
                }
            }
            p.note {
                "No mail? It may take a few minutes, or be in the spam folder. You may ask "
                "again: at most " (LINK_MAILS_PER_ADDRESS_PER_HOUR) " links an hour are "
                "mailed to one address."
            }
            p { a href=(REGISTER_PATH) { "Register another address" } }
        },
    )
}

fn confirm_page(token: &str) -> Markup {
    secret_layout(
        "Confirm your address",
        html! {
            h1 { "Confirm your address" }
            p.lead {
                "Confirming registers the address this link was mailed to with the dice "
                "server: rolls here may then name it, and each roll naming it is mailed to it."
            }
            form.reveal method="post" action=(CONFIRM_PAGE) {
                input type="hidden" name="token" value=(token);
                button type="submit" { "Confirm this address" }
            }
            p.note {
                "If you did not ask to register it, close this page: nothing is changed until "
                "the button is pressed, and the address stays unregistered."
            }
        },
    )
}

fn stop_page(token: &str) -> Markup {
    secret_layout(
        "Stop the dice mail",
        html! {
            h1 { "Stop the dice mail to your address" }
            p.lead {
                "Stopping ends the registration of the address this link was mailed to: no "
                "more rolls are mailed to it, and a roll naming it is refused until it is "
                "registered again."
            }
            form.reveal method="post" action=(STOP_PAGE) {
                input type="hidden" name="token" value=(token);
                button type="submit" { "Stop the dice mail" }
            }
            p.note { "Nothing is changed until the button is pressed." }
        },
    )
}

fn stopped_page() -> Markup {
    secret_layout(
        "The dice mail is stopped",
        html! {
            h1 { "The dice mail is stopped" }
            section.answer {
                p {
                    "No more rolls are mailed to this address, and no roll may name it. To "
                    "play again, register it again from "
                    a href=(REGISTER_PATH) { "the registration page" } "."
                }
            }
        },
    )
}

fn confirmed_page(view: &NamingView) -> Markup {
    secret_layout(
        "Your address is confirmed",
        html! {
            h1 { "Your address is confirmed" }
            section.answer {
                p {
                    "Rolls at this dice server may now name it, and each roll naming it is "
                    "mailed to it."
                }
            }
            h2 #tables { "The tables naming it" }
            (tables_list(view))
        },
    )
}

fn tables_page(view: &NamingView) -> Markup {
    secret_layout(
        "The dice tables naming your address",
        html! {
            h1 { "The dice tables naming your address" }
            @if view.confirmed {
                (tables_list(view))
            } @else {
                p.problem {
                    "This address is not confirmed yet, so no roll may name it and no table "
                    "is listed."
                }
                p {
                    "To confirm it, open the link in the confirmation mail and press "
                    strong { "Confirm this address" } ". If that link has expired, ask for a "
                    "new one on " a href=(REGISTER_PATH) { "the registration page" } "."
                }
            }
        },
    )
}

/// The tables naming the address, or a look-alike, most recently named first.
fn tables_list(view: &NamingView) -> Markup {
    let lookalikes = view.tables.iter().any(|t| !t.exactly);
    html! {
        @if view.tables.is_empty() {
            p.empty { "No table names this address, or one that looks like it, yet." }
        } @else {
            p.note {
                "Most recently named first"
                @if view.tables.len() as i64 >= MAX_TABLES_LISTED { ": the latest " (MAX_TABLES_LISTED) }
                "."
            }
            @if lookalikes {
                p.note {
                    "A look-alike is an address written another way that reads the same: a "
                    "+tag, dots in the name, letters of another script. It is another mailbox, "
                    "so the rolls of a table naming it were not mailed to you."
                }
            }
            // Focusable: it scrolls on a phone.
            table.naming tabindex="0" {
                thead { tr { th { "Table" } th { "Names" } th { "First named" } } }
                tbody { @for t in &view.tables { tr {
                    td { a href=(t.page) { "Dice table " (short(&t.table)) } }
                    td { @if t.exactly { "this address" } @else { "a look-alike" } }
                    td { (dates::moment(&t.named_at)) }
                } } }
            }
        }
        @if view.confirmed_lookalike_tables > 0 {
            p.note {
                (words::count(view.confirmed_lookalike_tables as f64, "table names", "tables name"))
                " an address that looks like yours and that its owner registered (you, under a "
                "+tag, or someone else): they are listed at that address's own link, not here. "
                "If you registered no such address, a player may be rolling under a name "
                "passed off as yours."
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice_tables::TABLES_PAGE;

    #[test]
    fn a_detail_reads_as_a_sentence() {
        assert_eq!(
            sentence("this link has expired: ask for a new one"),
            "This link has expired: ask for a new one."
        );
        assert_eq!(sentence("done."), "Done.");
        assert_eq!(sentence(""), "");
    }

    #[test]
    fn the_pages_are_where_the_mailed_links_point() {
        assert_eq!(REGISTER_PATH, "/dice/register");
        assert_eq!(CONFIRM_PAGE, "/dice/register/confirm");
        assert_eq!(TABLES_PAGE, "/dice/register/tables");
    }
}
