//! A dice table's pages (issue 38): the table (its epochs, their commitments and revealed
//! seeds, the latest signed rolls, the export and how to check it), and the reveal, asked
//! from a page that changes nothing and done by a form. The players' addresses are never
//! shown: the view holds none.

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use maud::{html, Markup};
use serde::Deserialize;

use super::{dates, error_page, layout, page, render, url_component, words};
use crate::body::FormBody;
use crate::dice_tables::reveal;
use crate::dice_tables::{DiceTableView, EpochView, RollView};
use crate::error::{ApiError, ErrorCode};
use crate::query::parse_query;
use crate::reads::dice::table_view;
use crate::AppState;

/// The table page's query: after a reveal, the epoch whose seed it showed.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TablePageQuery {
    revealed: Option<u32>,
}

/// The reveal link's query. Other parameters are let be: a mail client may add its own.
#[derive(Debug, Deserialize)]
struct RevealLinkQuery {
    token: Option<String>,
}

/// The reveal form as a browser sends it: the mailed link's token, if the page had one.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RevealForm {
    #[serde(default)]
    token: Option<String>,
}

/// A dice table: its epochs, its latest rolls, the export and the reveal.
#[get("/dice/{table}")]
pub async fn dice_table_page(
    req: HttpRequest,
    state: web::Data<AppState>,
    table: web::Path<String>,
) -> HttpResponse {
    render(
        async {
            let query: TablePageQuery = parse_query(req.query_string())?;
            let view = table_view(&req, &state, &table).await?;
            // Without its public address the service cannot name itself: the command says
            // where the address goes.
            let export = match &state.public_url {
                Some(base) => base.join(&view.events_url),
                None => format!("<this site>{}", view.events_url),
            };
            let mailed = state.dice.mails_rolls();
            Ok(table_page(&view, &export, mailed, query.revealed))
        }
        .await,
    )
}

/// The page a mailed reveal link opens: what revealing does, and the button that does it.
/// Opening it changes nothing (a mail scanner may open every link).
#[get("/dice/{table}/reveal")]
pub async fn dice_reveal_page(
    req: HttpRequest,
    state: web::Data<AppState>,
    table: web::Path<String>,
) -> HttpResponse {
    let mut answer = render(
        async {
            let query: RevealLinkQuery = parse_query(req.query_string())?;
            let view = table_view(&req, &state, &table).await?;
            let token = query
                .token
                .map(|t| t.trim().to_owned())
                .filter(|t| !t.is_empty());
            let link = match &token {
                Some(token) => Some(link_epoch(&state, &view, token).await?),
                None => None,
            };
            Ok(confirm_page(
                &view,
                token.as_deref(),
                link,
                state.dice.mails_rolls(),
            ))
        }
        .await,
    );
    // The page holds the link's secret: kept by no cache.
    answer
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    answer
}

/// A press of "Reveal the seed": the reveal done, then the table's page showing the seed;
/// a refusal is a page saying why, in the table's words.
#[post("/dice/{table}/reveal")]
pub async fn dice_reveal_form(
    req: HttpRequest,
    state: web::Data<AppState>,
    table: web::Path<String>,
    form: Result<FormBody<RevealForm>, ApiError>,
) -> HttpResponse {
    let mut answer = match form {
        Err(error) => error_page(&error),
        Ok(form) => match reveal(&req, &state, &table, form.value.token).await {
            // Seen after: a reload of the table's page reveals nothing again.
            Ok(revealed) => HttpResponse::SeeOther()
                .insert_header((
                    header::LOCATION,
                    format!(
                        "/dice/{}?revealed={}",
                        url_component(&table),
                        revealed["epoch"]
                    ),
                ))
                .finish(),
            Err(error) => refused_page(&table, &error),
        },
    };
    answer
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    answer
}

/// Which of the table's epochs a link's token was mailed for, if any.
enum LinkEpoch {
    /// The epoch in force: the link reveals it.
    InForce,
    /// An earlier epoch, revealed already.
    Earlier(u32),
    /// None of this table's.
    Unknown,
}

async fn link_epoch(
    state: &AppState,
    view: &DiceTableView,
    token: &str,
) -> Result<LinkEpoch, ApiError> {
    let keys = state.dice.keys(state.store.pool()).await?;
    // The latest hundred epochs at most: a link older than that is told apart from none.
    Ok((view.epoch.saturating_sub(99).max(1)..=view.epoch)
        .rev()
        .find(|epoch| keys.is_reveal_token(&view.table, *epoch, token))
        .map_or(LinkEpoch::Unknown, |epoch| {
            if epoch == view.epoch {
                LinkEpoch::InForce
            } else {
                LinkEpoch::Earlier(epoch)
            }
        }))
}

/// Where a long run of digits (a hash, a signature) may break between lines: in four
/// pieces, with `<wbr>`, which adds no character (a copy is the digits alone).
fn breakable(digits: &str) -> Markup {
    let chars: Vec<char> = digits.chars().collect();
    html! {
        @for (n, piece) in chars.chunks(chars.len().div_ceil(4).max(1)).enumerate() {
            @if n > 0 { wbr; }
            (piece.iter().collect::<String>())
        }
    }
}

fn title(view: &DiceTableView) -> String {
    format!("Dice table {}", short(&view.table))
}

/// The table's id as a title shows it: its first eight digits.
fn short(table: &str) -> &str {
    table.get(..8).unwrap_or(table)
}

fn table_page(view: &DiceTableView, export: &str, mailed: bool, revealed: Option<u32>) -> Markup {
    let shown_reveal = revealed.and_then(|epoch| {
        view.epochs
            .iter()
            .find(|e| e.epoch == epoch && e.seed.is_some())
    });
    layout(
        &title(view),
        html! {
            h1 { "Dice table " small { (view.table) } }
            p.lead {
                "A dice server table for two players: their TripleA client rolls its dice here, "
                "and every roll is signed, so anyone can check it. The players' e-mail addresses "
                "are not shown"
                @if mailed { "; each roll is mailed to both" }
                "."
            }
            @if let Some(epoch) = shown_reveal {
                section.answer {
                    h2 { "Seed revealed" }
                    p { "The seed of epoch " (epoch.epoch) " is shown below: anyone can now recompute every roll made under it. "
                        "The table rolls on under epoch " (view.epoch) ", whose seed was committed at the same time." }
                }
            }
            section.now aria-labelledby="in-force" {
                h2 #in-force { "Epoch " (view.epoch) ", in force" }
                p {
                    "Rolls are drawn now from the seed of epoch " (view.epoch) ". Its commitment, "
                    "the SHA-256 of that seed, was published before its first roll:"
                }
                p { code.digest { (breakable(&view.commitment)) } }
                p {
                    (words::count(view.rolls as f64, "roll", "rolls")) " at this table; "
                    @if view.rolls_unrevealed == 0 {
                        "none yet under this epoch's seed."
                    } @else {
                        (view.rolls_unrevealed) " under this epoch's seed, which is not revealed yet."
                    }
                }
            }
            (reveal_section(view, mailed))
            h2 #epochs { "Epochs" }
            p.note {
                "Each epoch's seed is committed (its SHA-256 published) before the epoch's first "
                "roll and shown once revealed: the SHA-256 of the seed shown must be the commitment "
                "beside it, and the seed gives every die of the epoch."
            }
            (epochs_table(&view.epochs))
            @if view.older_in_export {
                p.note { "Older epochs and rolls are in the table's export (below)." }
            }
            h2 #rolls { "Latest rolls" }
            (rolls_table(view))
            h2 #check { "Check it yourself" }
            p {
                "Every event of this table is in its export: "
                a href=(view.events_url) { "the table's events" }
                " (a page at a time as JSON; the whole export as NDJSON when read with "
                code { "Accept: application/x-ndjson" } "). Every roll's signature is checked "
                "with " a href=(view.public_key_url) { "the service's public key" } "."
            }
            pre.listing tabindex="0" {
                "curl -H 'Accept: application/x-ndjson' \\\n  '" (export) "' > dice-export.ndjson\n"
                "warlog audit dice-export.ndjson --dice-key <public key>"
            }
            p.note {
                "The audit checks each signature, that each seed revealed is the one its epoch "
                "committed to, and recomputes every die of a revealed epoch from its seed."
            }
        },
    )
}

/// The reveal, when the epoch in force has rolls to reveal.
fn reveal_section(view: &DiceTableView, mailed: bool) -> Markup {
    html! {
        h2 #reveal { "Reveal the seed" }
        @if view.rolls_unrevealed == 0 {
            p.empty {
                "No roll has been made under epoch " (view.epoch) " yet: there is nothing to reveal."
            }
        } @else {
            p {
                "Revealing shows the seed of epoch " (view.epoch) ", so that anyone can recompute its "
                (words::count(view.rolls_unrevealed as f64, "roll", "rolls"))
                "; the table goes on under a new seed, committed at once."
            }
            (idle_words(view, mailed))
            form.reveal method="post" action={ "/dice/" (view.table) "/reveal" } {
                button type="submit" { "Reveal the seed" }
            }
        }
    }
}

/// When a reveal works without the mailed link: once the table has been idle.
fn idle_words(view: &DiceTableView, mailed: bool) -> Markup {
    html! {
        p {
            @if mailed {
                "Each roll's e-mail has a link that reveals the seed at any time. Without it, "
                "the button works only once the table has not rolled for "
            } @else {
                "This service does not mail rolls, so the button works once the table has not "
                "rolled for "
            }
            (view.idle_time)
            @if let Some(from) = &view.idle_reveal_from {
                ": from " (dates::moment(from))
            }
            "."
        }
    }
}

fn epochs_table(epochs: &[EpochView]) -> Markup {
    html! {
        // Focusable: it scrolls on a phone.
        table.epochs tabindex="0" {
            thead { tr {
                th.num { "Epoch" } th { "Commitment (SHA-256 of the seed)" } th { "Committed" }
                th { "Seed" } th { "Revealed" }
            } }
            tbody { @for e in epochs.iter().rev() { tr {
                td.num { (e.epoch) }
                td { code { (breakable(&e.commitment)) } }
                td { @match &e.committed_at {
                    Some(at) => (dates::moment(at)),
                    None => "earlier (in the export)",
                } }
                @match (&e.seed, &e.revealed_at) {
                    (Some(seed), revealed) => {
                        td { code { (breakable(seed)) } }
                        td { @if let Some(at) = revealed { (dates::moment(at)) } }
                    }
                    (None, _) => {
                        td { "not revealed yet" }
                        td {}
                    }
                }
            } } }
        }
    }
}

fn rolls_table(view: &DiceTableView) -> Markup {
    let shown = view.latest_rolls.len() as u64;
    html! {
        @if view.latest_rolls.is_empty() {
            p.empty { "No rolls yet." }
        } @else {
            p.note {
                "Newest first"
                @if shown < view.rolls { ": the latest " (shown) " of " (view.rolls) "; every roll is in the export" }
                ". A roll's number is its place in the table's record; its signature covers the "
                "table, that number, the dice and the date. The client is a tag for the network "
                "the roll was asked from, the same for every roll it asks at this table: the "
                "players can tell their own rolls and each other's from anyone else's."
            }
            // Focusable: it scrolls on a phone.
            table.rolls tabindex="0" {
                thead { tr {
                    th.num { "Roll" } th.num { "Epoch" } th { "Dice" } th { "Date" } th { "Client" } th { "Signature" }
                } }
                tbody { @for roll in &view.latest_rolls { (roll_row(roll)) } }
            }
        }
    }
}

fn roll_row(roll: &RollView) -> Markup {
    let dice: Vec<String> = roll.dice.iter().map(u32::to_string).collect();
    html! {
        tr {
            td.num { (roll.index) }
            td.num { (roll.epoch) }
            td {
                strong.dice { (dice.join(", ")) }
                br;
                small { (words::count(roll.times, "die", "dice")) " of " (roll.max) " sides" }
            }
            td { (dates::moment(&roll.date)) }
            td {
                @match &roll.client {
                    Some(tag) => code { (tag) },
                    None => small { "not recorded" },
                }
            }
            td { small { code.signature { (breakable(&roll.signature)) } } }
        }
    }
}

fn confirm_page(
    view: &DiceTableView,
    token: Option<&str>,
    link: Option<LinkEpoch>,
    mailed: bool,
) -> Markup {
    let back = format!("/dice/{}", view.table);
    layout(
        &format!("Reveal: {}", title(view)),
        html! {
            h1 { "Reveal the seed of epoch " (view.epoch) " " small { "dice table " (view.table) } }
            p.lead {
                "Revealing shows the seed the table's rolls are drawn from now, so that everyone "
                "can recompute every roll of this epoch and see that it is the one recorded. The "
                "table then goes on under a new seed, committed now, before its next roll."
            }
            @match link {
                Some(LinkEpoch::Earlier(epoch)) => {
                    p.problem {
                        "This link was mailed for epoch " (epoch) ", whose seed has been revealed "
                        "already: it is shown on " a href=(back) { "the table's page" } "."
                    }
                }
                Some(LinkEpoch::Unknown) => {
                    p.problem {
                        "This link is not one this table mailed: use the link in the latest "
                        "roll's e-mail, or see " a href=(back) { "the table's page" } "."
                    }
                }
                Some(LinkEpoch::InForce) | None => {
                    @if view.rolls_unrevealed == 0 {
                        p.empty {
                            "No roll has been made under epoch " (view.epoch)
                            " yet: there is nothing to reveal. " a href=(back) { "Back to the table" }
                        }
                    } @else {
                        p {
                            (words::count(view.rolls_unrevealed as f64, "roll", "rolls"))
                            " of epoch " (view.epoch) " will become checkable. Its commitment, published "
                            "before its first roll, is " code.digest { (breakable(&view.commitment)) } "."
                        }
                        @if token.is_none() { (idle_words(view, mailed)) }
                        form.reveal method="post" action={ "/dice/" (view.table) "/reveal" } {
                            @if let Some(token) = token {
                                input type="hidden" name="token" value=(token);
                            }
                            button type="submit" { "Reveal the seed" }
                        }
                        p { a href=(back) { "Back to the table, revealing nothing" } }
                    }
                }
            }
        },
    )
}

/// A refused reveal: the table's words, and the way back to it. Anything else is the
/// site's error page.
fn refused_page(table: &str, error: &ApiError) -> HttpResponse {
    if !matches!(
        error.code,
        ErrorCode::RevealRefused | ErrorCode::NothingToReveal
    ) {
        return error_page(error);
    }
    let status: StatusCode = error.code.status();
    let mut answer = page(layout(
        "Seed not revealed",
        html! {
            h1 { "Seed not revealed" }
            p.problem { (error.detail) }
            p.note { "Nothing was changed." }
            p { a href={ "/dice/" (url_component(table)) } { "Back to the table" } }
        },
    ));
    *answer.status_mut() = status;
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_may_break_in_four_places_and_reads_back_whole() {
        let hash = "0123456789abcdef".repeat(4);
        let shown = breakable(&hash).into_string();
        assert_eq!(shown.matches("<wbr>").count(), 3, "{shown}");
        assert_eq!(shown.replace("<wbr>", ""), hash);
        assert_eq!(breakable("ab").into_string().replace("<wbr>", ""), "ab");
        assert_eq!(breakable("").into_string(), "");
    }
}
