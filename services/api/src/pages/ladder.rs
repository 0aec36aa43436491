//! The leaderboard page, and its variant for an iframe on an association's site.

use actix_web::http::header;
use actix_web::{get, web, HttpRequest, HttpResponse};
use maud::{html, Markup, DOCTYPE};
use serde::Deserialize;

use super::{layout, render, words};
use crate::error::ApiError;
use crate::query::parse_query;
use crate::reads::league::{leaderboard_page, LeaderboardPage, LeaderboardParams};
use crate::respond::decimal;
use crate::AppState;

/// The leaderboard page's query: the API's, and which ladder.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LadderQuery {
    pub ladder: Option<String>,
    pub season: Option<u16>,
    pub ruleset: Option<String>,
    pub after: Option<String>,
    pub limit: Option<u32>,
}

/// The ladder a page's query asks for; a bad query is an error page like any other.
async fn ladder(state: &AppState, req: &HttpRequest) -> Result<LeaderboardPage, ApiError> {
    let query: LadderQuery = parse_query(req.query_string())?;
    let params = LeaderboardParams {
        season: query.season,
        ruleset: query.ruleset.clone(),
        after: query.after.clone(),
        limit: query.limit,
        format: None,
    };
    leaderboard_page(state, query.ladder.as_deref().unwrap_or("points"), &params).await
}

fn ladder_table(page: &LeaderboardPage, base: &str) -> Markup {
    let skill = page.ladder == "skill";
    // Equal ratings are a tie (the handle only lists them); equal points are not: the
    // player who reached the total first ranks first.
    let places = words::shared_places(
        &page.rows,
        |row| row.position,
        |a, b| skill && a.rating == b.rating,
    );
    let next = page.next.as_ref().map(|cursor| {
        let mut query = form_urlencoded::Serializer::new(String::new());
        query.append_pair("ladder", &page.ladder);
        query.append_pair("ruleset", &page.ruleset);
        if let Some(season) = page.season {
            query.append_pair("season", &season.to_string());
        }
        query.append_pair("after", cursor);
        format!("{base}?{}", query.finish())
    });
    html! {
        @if page.rows.is_empty() {
            p.empty { "No finished games yet." }
        } @else {
            table.ladder {
                thead { tr {
                    th.num { "#" } th { "Player" }
                    @if skill {
                        th.num { "Rating" }
                        th.num.symbol { abbr title="mu: the most likely skill" { "μ" } }
                        th.num.symbol { abbr title="sigma: how uncertain the skill still is" { "σ" } }
                    }
                    @else { th.num { "Points" } th { "Title" } }
                    th.num { "Games" } th.num { "Wins" }
                } }
                tbody {
                    @for (row, (at, shared)) in page.rows.iter().zip(&places) {
                        tr {
                            td.num { (words::place(at, *shared)) }
                            td { a href={ "/players/" (row.player) } { (row.display_name) } " " small { "@" (row.player) } }
                            @if skill {
                                td.num { (format!("{:.2}", row.rating)) }
                                td.num { (format!("{:.2}", row.mu)) }
                                td.num { (format!("{:.2}", row.sigma)) }
                            } @else {
                                td.num title=(row.points_exact) { (decimal(row.points)) }
                                td { (row.title) }
                            }
                            td.num { (row.games) }
                            td.num title=(row.wins_exact) { (decimal(row.wins)) }
                        }
                    }
                }
            }
            @if let Some(next) = next { p.next { a href=(next) { "Next page →" } } }
        }
    }
}

/// What the skill rating is and what it means, in the model's own numbers.
fn skill_lead() -> Markup {
    let model = warlog_league::rating::SkillModel::default();
    let newcomer = model.newcomer();
    html! {
        p.lead {
            "Ranked by the rating μ\u{a0}−\u{a0}3σ. Each player's skill is a belief the league keeps "
            "(the Weng–Lin model OpenSkill implements, over the places at each table): "
            "μ is the most likely skill and σ how uncertain it still is. "
            "A newcomer starts at μ\u{a0}" (decimal(newcomer.mu)) ", σ\u{a0}" (decimal(newcomer.sigma))
            ", a rating of " (decimal(newcomer.ordinal())) "; each rated game moves μ by the places "
            "and narrows σ. The rating μ\u{a0}−\u{a0}3σ is a skill the player almost surely (99.9%) has at "
            "least: it rises with good places and with games played, so one lucky game does not "
            "put a newcomer on top. Equal ratings share a place (written 3=)."
        }
    }
}

fn ladder_heading(page: &LeaderboardPage) -> String {
    let what = if page.ladder == "skill" {
        "Skill ladder"
    } else {
        "Cut-Throat points"
    };
    let when = page
        .season
        .map_or_else(|| "lifetime".to_owned(), |s| format!("season {s}"));
    format!("{what} · {} · {when}", page.ruleset)
}

/// The leaderboard: points with titles, or the skill rating.
#[get("/")]
pub async fn leaderboard(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    render(ladder(&state, &req).await.map(|page| {
        let heading = ladder_heading(&page);
        layout(
            &heading,
            html! {
                h1 { (heading) }
                @if page.ladder == "skill" {
                    (skill_lead())
                } @else {
                    p.lead {
                        "Places by percent IPC gain; points 5, 3, 2, −1, −2; tied places share. "
                        "Equal totals rank by who reached the total first."
                    }
                }
                p.lead {
                    "A game ended before every power had played a turn of its own is aborted, not rated; so is one in which a player never gave an order in person (by their own token, by mail or through a proxy they named). "
                    a href={ "/v1/leaderboards/" (page.ladder) } { "JSON" } " · "
                    a href={ "/embed/leaderboard?ladder=" (page.ladder) } { "embeddable" }
                }
                (ladder_table(&page, "/"))
            },
        )
    }))
}

/// The leaderboard for an iframe: no navigation, links open in the parent page.
#[get("/embed/leaderboard")]
pub async fn embedded_leaderboard(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    let mut response = render(ladder(&state, &req).await.map(|page| {
        html! {
            (DOCTYPE)
            html lang="en" {
                head {
                    meta charset="utf-8";
                    title { (ladder_heading(&page)) }
                    link rel="stylesheet" href=(crate::assets::stylesheet_href());
                    base target="_top";
                }
                body.embed { main {
                    h1 { (ladder_heading(&page)) }
                    (ladder_table(&page, "/embed/leaderboard"))
                } }
            }
        }
    }));
    // Any site may frame it: that is its purpose.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static(crate::security::EMBED_POLICY),
    );
    response
}
