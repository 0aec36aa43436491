//! The public pages: server-rendered HTML with one small stylesheet and no script, built
//! from the same reads the JSON API answers with (`crate::reads`, so a page never shows
//! what the API would not). The leaderboard has an embeddable variant for an iframe on an
//! association's site.

use actix_web::http::header;
use actix_web::{get, HttpResponse};
use maud::{html, Markup, DOCTYPE};
use warlog_events::audit::Verdict;

use crate::error::ApiError;
pub(crate) use crate::number_words as words;

mod dates;
mod dice_page;
mod dice_register;
mod game_page;
mod indexes;
mod ladder;
mod map_key;
mod odds;
mod player_page;
mod tournament_page;
mod turn;
pub use dice_page::{dice_reveal_form, dice_reveal_page, dice_table_page};
pub use dice_register::{
    dice_confirm_form, dice_confirm_page, dice_register_form, dice_register_page,
    dice_register_tables, dice_stop_form, dice_stop_page,
};
pub use game_page::game;
pub use indexes::{games, players, tournaments};
pub use ladder::{embedded_leaderboard, leaderboard};
pub use odds::odds_page;
pub use player_page::player;
pub use tournament_page::{director_desk, tournament};
pub use turn::{turn_form, turn_page};

/// The API reference's policy: Redoc's script from here, its inline styles, its search
/// worker, and the document from here; nothing from elsewhere.
const DOCS_POLICY: &str =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The API reference: Redoc over `/openapi.json`.
#[get("/docs")]
pub async fn docs() -> HttpResponse {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "warlog API" }
            }
            body {
                noscript { p { "The API reference needs JavaScript; the document itself is at "
                    a href="/openapi.json" { "/openapi.json" } "." } }
                main { redoc spec-url="/openapi.json" hide-download-button="false" {} }
                script src=(crate::assets::redoc_href()) {}
            }
        }
    };
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((header::CONTENT_SECURITY_POLICY, DOCS_POLICY))
        .body(markup.into_string())
}

/// Text as one query-string value.
fn url_component(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A gain as people read it: `+25.00%`.
fn percent(value: f64) -> String {
    format!("{value:+.2}%")
}

fn layout(title: &str, body: Markup) -> Markup {
    framed(title, html! {}, body)
}

/// [`layout`], with `head` added to the document's head (a page whose address holds a
/// secret adds `<meta name="referrer" content="no-referrer">`).
fn framed(title: &str, head: Markup, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · warlog" }
                link rel="stylesheet" href=(crate::assets::stylesheet_href());
                link rel="icon" type="image/svg+xml" href=(crate::assets::icon_href());
                (head)
            }
            body {
                header.site {
                    a.brand href="/" { "warlog" }
                    nav {
                        a href="/" { "Points" }
                        a href="/?ladder=skill" { "Skill" }
                        a href="/games" { "Games" }
                        a href="/tournaments" { "Tournaments" }
                        a href="/players" { "Players" }
                        a href="/odds" { "Odds" }
                        a href="/docs" { "API" }
                    }
                }
                main { (body) }
                footer { "Every result is an event in a hash-chained log; every die can be audited." }
            }
        }
    }
}

fn page(markup: Markup) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .body(markup.into_string())
}

/// An error as a page, with the API's status and words.
fn error_page(error: &ApiError) -> HttpResponse {
    let status = error.code.status();
    let markup = layout(
        status.canonical_reason().unwrap_or("Error"),
        html! {
            h1 { (status.as_u16()) " " (status.canonical_reason().unwrap_or("Error")) }
            p.problem { (error.detail) }
            p { a href="/" { "Back to the leaderboard" } }
        },
    );
    HttpResponse::build(status)
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .body(markup.into_string())
}

fn render(result: Result<Markup, ApiError>) -> HttpResponse {
    match result {
        Ok(markup) => page(markup),
        Err(error) => error_page(&error),
    }
}

/// A game's status as people read it: "aborted, not rated".
fn status_words(status: &str) -> &str {
    warlog_events::game::GameStatus::describe_stored(status)
}

fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "passed",
        Verdict::Fail => "failed",
        Verdict::Skipped => "not checked",
    }
}
