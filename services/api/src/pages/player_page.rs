//! A player's page: standings per ruleset and season, charts, and the games played.

use actix_web::{get, web, HttpResponse};
use maud::{html, Markup, PreEscaped};

use super::{dates, layout, percent, render, words};
use crate::reads::league::{player_view, PlayerGame, PlayerStanding, PlayerView};
use crate::respond::decimal;
use crate::AppState;

/// A player: standings per ruleset and season, and the game history.
#[get("/players/{handle}")]
pub async fn player(state: web::Data<AppState>, handle: web::Path<String>) -> HttpResponse {
    render(player_view(&state, &handle).await.map(|view| {
        layout(
            &view.display_name,
            html! {
                h1 { (view.display_name) " " small { "@" (view.handle) } }
                (player_standings(&view.standings))
                (player_charts(&view))
                h2 { "Games" }
                (player_games(&view.games))
                @if !view.unrated_games.is_empty() {
                    h2 { "Games not rated" }
                    p.note { "Ended before every power had played a turn of its own (aborted), played by the game master alone (a player never gave an order in person), or voided: no places, no points, no rating change." }
                    table.unrated {
                        thead { tr { th { "Ended" } th { "Game" } th { "Result" } } }
                        tbody { @for g in &view.unrated_games { tr {
                            td { (dates::moment(&g.ended_at)) }
                            td { a href={ "/games/" (g.game_id) } {
                                (g.ruleset) @if g.tournament.is_some() { " · tournament" }
                                " · " (dates::day(&g.ended_at))
                            } }
                            td { (g.status_words) }
                        } } }
                    }
                }
            },
        )
    }))
}

/// A player's charts: points and rating over their games, and how often at each place,
/// for each ruleset they have played (lifetime). Each line starts where a newcomer does,
/// before the first game.
fn player_charts(view: &PlayerView) -> Markup {
    use crate::charts::{bar_chart, line_chart, Series, PALETTE};
    let newcomer = warlog_league::rating::SkillModel::default().newcomer();
    html! {
        @for standing in view.standings.iter().filter(|s| s.season.is_none()) {
            @let ruleset = &standing.ruleset;
            // Oldest first; a replaced seat earned nothing and is not a step.
            @let points = {
                let mut total = 0.0;
                std::iter::once((0.0, 0.0))
                    .chain(
                        view.games
                            .iter()
                            .rev()
                            .filter(|g| &g.ruleset == ruleset && g.result != "replaced")
                            .enumerate()
                            .map(|(i, g)| {
                                total += g.points;
                                ((i + 1) as f64, total)
                            }),
                    )
                    .collect::<Vec<_>>()
            };
            @let steps: Vec<_> = view.rating_history.iter().filter(|r| &r.ruleset == ruleset).collect();
            @let rating: Vec<(f64, f64)> = std::iter::once((0.0, newcomer.ordinal()))
                .chain(steps.iter().enumerate().map(|(i, r)| ((i + 1) as f64, r.ordinal)))
                .collect();
            @let bars: Vec<(String, f64)> = standing
                .places
                .iter()
                .enumerate()
                .map(|(i, n)| (words::ordinal(i + 1), f64::from(*n)))
                .collect();
            h2 { "Over time · " (ruleset) }
            (PreEscaped(line_chart(
                &format!("Points after each game ({ruleset})"),
                "game",
                "points",
                &[Series { label: "points".into(), colour: PALETTE[0], points, labelled: true }],
            )))
            (PreEscaped(line_chart(
                &format!("Skill rating μ − 3σ after each game ({ruleset})"),
                "game",
                "rating",
                &[Series { label: "rating".into(), colour: PALETTE[2], points: rating, labelled: true }],
            )))
            @if let Some(last) = steps.last() {
                p.note {
                    "After " (words::count(steps.len() as f64, "rated game", "rated games")) ": μ\u{a0}"
                    (format!("{:.2}", last.mu)) ", σ\u{a0}" (format!("{:.2}", last.sigma))
                    ", so a rating μ\u{a0}−\u{a0}3σ of " (format!("{:.2}", last.ordinal)) ". "
                    "μ is the most likely skill and σ how uncertain it still is; the rating is a "
                    "skill the player almost surely has at least, and it starts at "
                    (decimal(newcomer.ordinal())) " before the first game."
                }
            }
            (PreEscaped(bar_chart(&format!("Games at each place ({ruleset})"), "", &bars)))
        }
    }
}

/// How many of a tournament's leaders its chart names: the rest are drawn grey.
/// A player's standings, a row per ruleset and season.
fn player_standings(standings: &[PlayerStanding]) -> Markup {
    html! {
        @if standings.is_empty() {
            p.empty { "No finished games yet." }
        } @else {
            // Focusable: it scrolls on a phone, and has no link for a keyboard to reach.
            table tabindex="0" {
                thead { tr {
                    th { "Ruleset" } th { "Season" } th.num { "Points" } th { "Title" }
                    th.num { "Position" } th.num { "Games" } th.num { "Wins" } th { "Times at each place" }
                    th.num { "Avg gain" } th.num { "Rating" }
                } }
                tbody { @for s in standings { tr {
                    td { (s.ruleset) }
                    td { @if let Some(season) = s.season { (season) } @else { "lifetime" } }
                    td.num title=(s.points_exact) { (decimal(s.points)) }
                    td { (s.title) }
                    td.num { (s.position) }
                    td.num { (s.games) }
                    td.num title=(s.wins_exact) { (decimal(s.wins)) }
                    td.places { (words::places_labelled(&s.places)) }
                    td.num { @if let Some(g) = s.average_percent_gain { (percent(g)) } }
                    td.num title={ "μ " (format!("{:.2}", s.rating.mu)) ", σ " (format!("{:.2}", s.rating.sigma)) } {
                        (format!("{:.2}", s.rating.ordinal))
                    }
                } } }
            }
        }
    }
}

/// A player's games, newest first, each linked by what it was.
fn player_games(played: &[PlayerGame]) -> Markup {
    html! {
        @if played.is_empty() { p.empty { "None yet." } } @else {
            table {
                thead { tr {
                    th { "Ended" } th { "Game" } th { "Power" } th { "Result" }
                    th.num { "Place" } th.num { "Points" } th.num { "Gain" }
                } }
                tbody { @for g in played { tr.replaced[g.result == "replaced"] {
                    td { (dates::moment(&g.ended_at)) }
                    // Games' ids share their time-ordered prefix: the link says
                    // what the game was instead.
                    td { a href={ "/games/" (g.game_id) } {
                        (g.ruleset) " as " (g.power)
                        @if g.tournament.is_some() { " · tournament" }
                        " · " (dates::day(&g.ended_at))
                    } }
                    td { (g.power) }
                    td { @if g.result == "replaced" { "Sat in, not scored (the seat's result is another player's)" } @else { "Played" } }
                    td.num { @if let Some(p) = g.place { (words::place(p, g.tied_with.is_some_and(|n| n > 1))) } }
                    td.num title=(g.points_exact) { (decimal(g.points)) }
                    td.num { @if let Some(gain) = g.percent_gain { (percent(gain)) } }
                } } }
            }
        }
    }
}
