//! The index pages: games, tournaments and players, each a page of the API's own index with
//! a link to the next, and a search box for players (a plain form: no script).

use actix_web::{get, web, HttpRequest, HttpResponse};
use maud::html;

use super::{dates, layout, render};
use crate::query::parse_query;
use crate::reads::games::{game_page, GameListQuery};
use crate::reads::indexes::{player_page, tournament_page, PlayerListQuery, TournamentListQuery};
use crate::AppState;

/// The API's link to the next page, as the page's own.
fn page_link(next: Option<&String>) -> Option<String> {
    next.map(|api| api.strip_prefix("/v1").unwrap_or(api).to_owned())
}

/// Games, oldest first; `?status=running`, `?player=ann`, `?ruleset=...` filter.
#[get("/games")]
pub async fn games(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    render(
        async {
            let query: GameListQuery = parse_query(req.query_string())?;
            let page = game_page(&state, &query).await?;
            Ok(layout(
                "Games",
                html! {
                    h1 { "Games" }
                    p.lead {
                        a href="/games?status=running" { "running" } " · "
                        a href="/games?status=ended" { "ended" } " · "
                        a href="/games?status=aborted" { "aborted" } " · "
                        a href="/games?status=master-only" { "played by the game master alone" } " · "
                        a href="/games" { "all" } " · "
                        a href="/v1/games" { "JSON" }
                    }
                    @if page.games.is_empty() { p.empty { "No games here." } } @else {
                        div.scroll { table {
                            thead { tr {
                                th { "Started" } th { "Game" } th { "Status" } th.num { "Version" }
                            } }
                            tbody { @for g in &page.games { tr {
                                td { (dates::moment(&g.created_at)) }
                                td { a href={ "/games/" (g.game_id) } { (g.title) }
                                    @if g.tournament.is_some() { " · " small { "tournament" } }
                                }
                                td { (super::status_words(&g.status)) }
                                td.num { (g.version) }
                            } } }
                        } }
                    }
                    @if let Some(next) = page_link(page.next.as_ref()) { p.next { a href=(next) { "Next page →" } } }
                },
            ))
        }
        .await,
    )
}

/// Tournaments, oldest first; `?state=open|running|finished`, `?season=2026` filter.
#[get("/tournaments")]
pub async fn tournaments(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    render(
        async {
            let query: TournamentListQuery = parse_query(req.query_string())?;
            let page = tournament_page(&state, &query).await?;
            Ok(layout(
                "Tournaments",
                html! {
                    h1 { "Tournaments" }
                    p.lead {
                        a href="/tournaments?state=open" { "open for entries" } " · "
                        a href="/tournaments?state=running" { "running" } " · "
                        a href="/tournaments?state=finished" { "finished" } " · "
                        a href="/tournaments" { "all" } " · "
                        a href="/v1/tournaments" { "JSON" }
                    }
                    @if page.tournaments.is_empty() { p.empty { "No tournaments here." } } @else {
                        div.scroll { table {
                            thead { tr {
                                th { "Tournament" } th { "Ruleset" } th.num { "Season" } th { "State" } th.num { "Rounds" }
                            } }
                            tbody { @for t in &page.tournaments { tr {
                                td { a href={ "/tournaments/" (t.tournament_id) } { (t.name) } }
                                td { (t.ruleset) }
                                td.num { (t.season) }
                                td { (t.state) }
                                td.num { (t.rounds_seated) " of " (t.rounds) }
                            } } }
                        } }
                    }
                    @if let Some(next) = page_link(page.next.as_ref()) { p.next { a href=(next) { "Next page →" } } }
                },
            ))
        }
        .await,
    )
}

/// Players in handle order; `?q=` finds them by the start of a handle or a name.
#[get("/players")]
pub async fn players(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    render(
        async {
            let query: PlayerListQuery = parse_query(req.query_string())?;
            let page = player_page(&state, &query).await?;
            Ok(layout(
                "Players",
                html! {
                    h1 { "Players" }
                    form.search method="get" action="/players" role="search" {
                        label for="q" { "Handle or name starts with" }
                        input #q type="search" name="q" maxlength="100" value=(query.q.clone().unwrap_or_default());
                        button type="submit" { "Find" }
                    }
                    @if page.players.is_empty() { p.empty { "No players found." } } @else {
                        ul.players { @for p in &page.players {
                            li { a href={ "/players/" (p.handle) } { (p.display_name) } " " small { "@" (p.handle) } }
                        } }
                    }
                    @if let Some(next) = page_link(page.next.as_ref()) { p.next { a href=(next) { "Next page →" } } }
                },
            ))
        }
        .await,
    )
}
