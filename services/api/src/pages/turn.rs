//! The turn page, `/games/{id}/turn`: the map as it stands, what the player may do now,
//! a text area for the turn in plain words, the player's token, and Preview and Submit.
//! A plain form (no script): the answer is the same page with the preview, the turn's
//! summary or the line that is wrong, decided by the same code as `POST /v1/games/{id}/turn`.

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use maud::{html, Markup, PreEscaped};
use serde::Deserialize;
use warlog_events::game::GameLog;
use warlog_rules::board::Power;

use super::{layout, render};
use crate::auth::Caller;
use crate::body::FormBody;
use crate::error::ApiError;
use crate::games::GameCommand;
use crate::reads::games::{game_view, load_for_read};
use crate::turns::TurnText;
use crate::turns::{self, TurnPreview};
use crate::views::GameView;
use crate::write::{self, Expected, WriteRequest};
use crate::AppState;

/// The form as a browser sends it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnForm {
    text: String,
    token: String,
    /// `preview` or `submit`: the button pressed.
    action: String,
    /// The game's version the page showed: a turn written for an older board is refused.
    version: u64,
    /// The power the text is for (default: the power to play).
    #[serde(default)]
    power: Option<String>,
}

/// What the page shows above the form after a press.
enum Answer {
    Preview(Box<TurnPreview>),
    Submitted(serde_json::Value),
    Refused(ApiError),
}

/// The turn page.
#[get("/games/{id}/turn")]
pub async fn turn_page(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> HttpResponse {
    render(
        async {
            let log = load_for_read(&state, &req, &id).await?;
            let view = game_view(&state, &req, &log).await?;
            Ok(page(&log, &view, None, "", None))
        }
        .await,
    )
}

/// A press of Preview or Submit.
#[post("/games/{id}/turn")]
pub async fn turn_form(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
    form: Result<FormBody<TurnForm>, ApiError>,
) -> HttpResponse {
    let form = match form {
        Ok(form) => form,
        Err(error) => return super::error_page(&error),
    };
    let mut answer = render(
        async {
            let stream = crate::games::game_stream(&id)?;
            let form = &form.value;
            let power = match form.power.as_deref().filter(|p| !p.is_empty()) {
                Some(name) => Some(
                    serde_json::from_value::<Power>(serde_json::Value::String(name.to_owned()))
                        .map_err(|_| {
                            ApiError::malformed(format!("there is no power \"{name}\""))
                        })?,
                ),
                None => None,
            };
            let mut shown = None;
            let answer = match crate::auth::identify(&state, &form.token).await {
                Err(refused) => Answer::Refused(refused),
                Ok(caller) => {
                    let request = WriteRequest::of(
                        &req,
                        &Caller::checked(caller.clone()),
                        form.text.as_bytes(),
                        Expected::Body(form.version),
                    )?;
                    if form.action == "submit" {
                        let turn = GameCommand {
                            stream: stream.clone(),
                            commanding: TurnText {
                                text: &form.text,
                                power,
                            },
                        };
                        let written = write::run(&state, &request, &turn).await;
                        match written {
                            Ok(written) => Answer::Submitted(written.body),
                            Err(refused) => Answer::Refused(refused),
                        }
                    } else {
                        let client = state.reader(&req).await?;
                        let log = crate::games::load(&client, &state.games, &stream).await?;
                        drop(client);
                        // The page shows this same board: a preview changes nothing.
                        shown = Some(log.clone());
                        let previewed = match request.expected.check(log.version) {
                            Ok(()) => {
                                turns::preview_for(
                                    &req,
                                    &state,
                                    log,
                                    caller.sender(),
                                    request.moment(),
                                    form.text.clone(),
                                    power,
                                )
                                .await
                            }
                            Err(stale) => Err(stale),
                        };
                        match previewed {
                            Ok(preview) => Answer::Preview(Box::new(preview)),
                            Err(refused) => Answer::Refused(refused),
                        }
                    }
                }
            };
            let log = match shown {
                Some(log) => log,
                None => {
                    let client = state.reader(&req).await?;
                    crate::games::load(&client, &state.games, &stream).await?
                }
            };
            // After a submit the text is done with; otherwise it stays to be corrected.
            let text = match answer {
                Answer::Submitted(_) => "",
                _ => form.text.as_str(),
            };
            let view = game_view(&state, &req, &log).await?;
            Ok(page(
                &log,
                &view,
                Some(&answer),
                text,
                form.power.as_deref(),
            ))
        }
        .await,
    );
    // An answer to a form holds the player's turn: kept by no cache.
    answer.headers_mut().insert(
        actix_web::http::header::CACHE_CONTROL,
        actix_web::http::header::HeaderValue::from_static("no-store"),
    );
    answer
}

fn page(
    log: &GameLog,
    view: &GameView,
    answer: Option<&Answer>,
    text: &str,
    power: Option<&str>,
) -> Markup {
    let id = &log.created.game_id;
    let map = crate::map::game_svg(log, None, None);
    let rules = log.ruleset.rules();
    let to_play = log.state.to_act(rules);
    let title = format!("Turn: {}", view.title);
    layout(
        &title,
        html! {
            h1 { (view.title) }
            p.lead {
                (view.standing) " · " a href={ "/games/" (id) } { "the game" }
            }
            @if let Some(answer) = answer { (answer_markup(answer)) }
            section.now {
                h2 { "Now" }
                (now_markup(log))
            }
            form.turn method="post" action={ "/games/" (id) "/turn" } {
                label for="text" { "Your turn, one order per line" }
                textarea #text name="text" rows="14" cols="70" spellcheck="false"
                    placeholder="buy 3 INF, 1 ARM\nmove 2 INF: Germany > East Europe\nbattle East Europe; combat SAAC; loss INF, ARM\nplace 3 INF, 1 ARM in Germany\nend turn" { (text) }
                label for="power" { "For" }
                select #power name="power" {
                    @for p in rules.board.turn_order() {
                        @let value = power_value(*p);
                        @let chosen = power.map_or(*p == to_play, |chosen| chosen == value);
                        option value=(value) selected[chosen] { (p.name()) }
                    }
                }
                label for="token" { "Your token" }
                input #token type="password" name="token" autocomplete="off" required;
                input type="hidden" name="version" value=(log.version);
                div.buttons {
                    button type="submit" name="action" value="preview" { "Preview" }
                    button type="submit" name="action" value="submit" { "Submit" }
                }
                p.note { "Preview decides the turn without rolling a die: each battle shows its odds. Submit carries it out." }
            }
            details.grammar {
                summary { "How to write a turn" }
                pre { (GRAMMAR) }
            }
            h2 #map { "Map" }
            figure.map { (PreEscaped(map)) }
        },
    )
}

/// A power as the API names it (`united-kingdom`).
fn power_value(power: Power) -> String {
    serde_json::to_value(power)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// What may be done now, in the words the game page uses.
fn now_markup(log: &GameLog) -> Markup {
    let now = crate::views::NowView::of(log);
    html! { @for sentence in &now.in_words { p { (sentence) } } }
}

fn answer_markup(answer: &Answer) -> Markup {
    match answer {
        Answer::Refused(error) => html! {
            section.answer.refused {
                h2 { "Not accepted" }
                p.problem { (error.detail) }
                @if let Some(place) = &error.text_place {
                    p { "Line " (place.line)
                        @if let Some(column) = place.column { ", column " (column) }
                        "." }
                    @if !place.suggestions.is_empty() {
                        p { "Did you mean: " (place.suggestions.join(", ")) "?" }
                    }
                }
                p.note { "Nothing was recorded." }
            }
        },
        Answer::Preview(preview) => html! {
            section.answer.preview {
                h2 { "Preview: nothing recorded, no die rolled" }
                ol.lines { @for line in &preview.lines {
                    li value=(line.line) {
                        code { (line.orders.last().map(String::as_str).unwrap_or("")) }
                        @for words in &line.outcome { br; (words) }
                        @if line.after_dice { br; em { "Checked as if the battles before it went their even way." } }
                    }
                } }
                @if let Some(refused) = &preview.refused {
                    p.problem { (refused.detail) }
                }
                p { (preview.then.detail) }
            }
        },
        Answer::Submitted(body) => html! {
            section.answer.submitted {
                h2 { "Turn recorded" }
                p { "The game is at version " (body["version"]) "." }
                ul { @for sentence in body["summary"].as_array().into_iter().flatten() {
                    li { (sentence.as_str().unwrap_or_default()) }
                } }
                @if let Some(refused) = body["refused"]["detail"].as_str() {
                    p.problem { (refused) }
                }
            }
        },
    }
}

/// The notation in brief; `docs/playing.md` has it all.
const GRAMMAR: &str = "\
buy 3 INF, 1 ARM                      purchase (unit codes or names)
move 2 INF, 1 ARM: Germany > East Europe   a move along a path (or: from A to B via C)
battle East Europe; combat SAAC; loss INF, ARM; retreat after round 2; retreat to Germany
bomb Germany                          a strategic bombing raid
place 3 INF in Germany                placement
research 2 dice · war loan · repay war loan 10 · repair battleship in Baltic Sea Zone
offer agreement to Japan: terms · accept agreement from Japan · break agreement with Japan
grant enter to Japan · revoke rail from Japan
standing orders for Germany; loss INF, ARM
non-combat move:                      a heading: the turn goes on to that phase
end phase · end turn                  # a comment
Phases end by themselves before a line of a later phase.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_order_line_of_the_pages_grammar_reads_in_cut_throat() {
        let ruleset = warlog_rules::ruleset::Ruleset::builtin("cutthroat").expect("cutthroat");
        for line in GRAMMAR.lines().take(GRAMMAR.lines().count() - 1) {
            let example = line.split("   ").next().unwrap_or(line);
            for order in example.split(" · ") {
                let order = order.split("  ").next().unwrap_or(order).trim();
                let read = warlog_rules::notation::parse_line(order, 1, ruleset);
                assert!(matches!(read, Ok(Some(_))), "{order}: {read:?}");
            }
        }
    }
}
