//! A tournament's page and its director's desk: standings, rounds, the waiting list and
//! substitutions.

use actix_web::{get, web, HttpResponse};
use maud::{html, Markup, PreEscaped};

use super::{dates, layout, percent, render, status_words, words};
use crate::reads::tournaments::{
    seats_waited_on, tournament_standings, RoundView, SeatWaitedOn, StandingsView,
    SubstitutionMade, TournamentView,
};
use crate::respond::decimal;
use crate::AppState;

const LEADERS_NAMED: usize = 3;

/// A tournament's standings by round: each player's running points after each round, the
/// leaders (the first three ranks, ties included) in colour and named at their lines' ends.
fn standings_chart(standings: &StandingsView) -> String {
    use crate::charts::{line_chart, Series, PALETTE};
    let mut coloured = 0;
    let series: Vec<Series> = standings
        .rows
        .iter()
        .map(|row| {
            let mut total = 0.0;
            let mut results: Vec<_> = row.results.iter().collect();
            results.sort_by_key(|r| r.round);
            let leader = row.rank <= LEADERS_NAMED && row.status == "playing";
            let colour = PALETTE[coloured % PALETTE.len()];
            if leader {
                coloured += 1;
            }
            Series {
                label: row.player.clone(),
                colour,
                points: std::iter::once((0.0, 0.0))
                    .chain(results.iter().map(|r| {
                        total += r.points;
                        (f64::from(r.round), total)
                    }))
                    .collect(),
                labelled: leader,
            }
        })
        .collect();
    line_chart("Points by round", "round", "points", &series)
}

/// A tournament: standings with the tiebreakers shown, and every round's tables.
#[get("/tournaments/{id}")]
pub async fn tournament(state: web::Data<AppState>, id: web::Path<String>) -> HttpResponse {
    render(tournament_standings(&state, &id).await.map(|(tournament, standings)| {
        let view = TournamentView::of(&tournament);
        layout(
            &view.name,
            html! {
                h1 { (view.name) }
                p.lead {
                    (view.ruleset) " · " (words::count(view.rounds, "round", "rounds")) " · directed by " (view.director)
                    @if view.finished_at.is_some() { " · finished" }
                    " · " a href={ "/v1/tournaments/" (view.tournament_id) "/calendar.ics" } { "calendar" }
                    " · " a href={ "/v1/tournaments/" (view.tournament_id) "/standings" } { "JSON" }
                    " · " a href={ "/tournaments/" (view.tournament_id) "/director" } { "director's desk" }
                }
                h2 { "Standings" }
                p.note { "Ties broken by " (standings.tiebreakers.join(", then ")) "." }
                @if standings.rounds_seated > 0 {
                    (PreEscaped(standings_chart(&standings)))
                    p.note { "The leaders in colour, named at their lines' ends; every other player in grey (each point has its player and points as a tooltip, and the table below has them all)." }
                }
                (standings_table(&standings))
                @let unrated = unrated_tables(&standings);
                @if !unrated.is_empty() {
                    p.note { "A game ended before every power had played a turn of its own is aborted, and one in which a player never gave an order in person was played by its game master alone: neither is rated, its players get no points for it and it is not among their games." }
                }
                (rounds_seated(&view.seated, &unrated))
                @if !view.waiting.is_empty() { p.note { "Waiting list: " (view.waiting.join(", ")) } }
            },
        )
    }))
}

/// A tournament director's desk: whose turns are waiting and since when, the seats open to
/// a substitute, the substitutions and swaps made, and the rounds' deadlines.
#[get("/tournaments/{id}/director")]
pub async fn director_desk(state: web::Data<AppState>, id: web::Path<String>) -> HttpResponse {
    render(seats_waited_on(&state, &id).await.map(|(held, waiting)| {
        let view = TournamentView::of(&held);
        let offered = view.waiting.first().cloned();
        layout(
            &format!("{}: the director's desk", view.name),
            html! {
                h1 { (view.name) " " small { "the director's desk" } }
                p.lead { a href={ "/tournaments/" (view.tournament_id) } { "standings and tables" } }
                h2 { "Turns waiting" }
                p.note { "A seat is open to a substitute once its player has let a due turn wait more than 3 days." }
                (waiting_table(&waiting, offered.as_ref()))
                h2 { "Substitutions" }
                (substitutions_table(&view.substitutions))
                h2 { "Swaps" }
                @let swaps: Vec<_> = view.seated.iter().flat_map(|r| r.swaps.iter().map(move |s| (r.round, s))).collect();
                @if swaps.is_empty() { p.empty { "None." } } @else {
                    ul { @for (round, swap) in &swaps {
                        li { "Round " (round) ": " (swap.players[0]) " and " (swap.players[1]) " changed seats (" (dates::moment(&swap.at)) "): " (swap.reason) }
                    } }
                }
                h2 { "Deadlines" }
                ul { @for (i, deadline) in view.deadlines.iter().enumerate() {
                    li {
                        "Round " (i + 1) ": " (dates::moment(deadline))
                        @if i < view.seated.len() { " · seated" } @else { " · not seated yet" }
                    }
                } }
                @if !view.waiting.is_empty() { p.note { "Waiting list: " (view.waiting.join(", ")) } }
            },
        )
    }))
}

/// The standings table, ties broken as the note above it says.
fn standings_table(standings: &StandingsView) -> Markup {
    let ranks = words::shared_places(
        &standings.rows,
        |row| row.rank as u64,
        |a, b| a.rank == b.rank,
    );
    html! {
        table.standings {
            thead { tr {
                th.num { "#" } th { "Player" } th.num { "Points" } th.num { "Gain" }
                th.num { "Games" } th.num { "Wins" } th.num { "Byes" } th { "Title" } th { "Placed by" }
            } }
            tbody { @for (row, (rank, shared)) in standings.rows.iter().zip(&ranks) { tr.replaced[row.status != "playing"] {
                td.num { (words::place(rank, *shared)) }
                td { a href={ "/players/" (row.player) } { (row.player) }
                     @if row.status != "playing" { " " small { "(" (row.status) ")" } } }
                td.num title=(row.points_exact) { (decimal(row.points)) }
                td.num title=(row.percent_gain_exact) { (percent(row.percent_gain)) }
                td.num { (row.games) }
                td.num title=(row.wins_exact) { (decimal(row.wins)) }
                td.num { (row.byes) }
                td { (row.title) }
                td { @if let Some(by) = &row.decided_by { (by) } }
            } } }
        }
    }
}

/// The tournament's games that ended without counting, by id: how people read why.
fn unrated_tables(standings: &StandingsView) -> std::collections::BTreeMap<String, String> {
    standings
        .rows
        .iter()
        .flat_map(|row| &row.results)
        .filter_map(|r| {
            let words = status_words(r.not_rated.as_deref()?).to_owned();
            Some((r.game_id.clone()?, words))
        })
        .collect()
}

/// The seated rounds, newest first: how each was seated, its tables (each seat's player as
/// drawn and as it now stands, with every change's reason) and byes, and which games count
/// for nothing.
fn rounds_seated(
    rounds: &[RoundView],
    unrated: &std::collections::BTreeMap<String, String>,
) -> Markup {
    html! {
        @for round in rounds.iter().rev() {
            h2 { "Round " (round.round) }
            @if let Some(deadline) = &round.deadline { p.note { "Deadline: " (dates::moment(deadline)) } }
            ul.explanation { @for line in &round.explanation { li { (line) } } }
            @for swap in &round.swaps {
                p.note { "The director swapped " (swap.players[0]) " and " (swap.players[1]) ": " (swap.reason) }
            }
            p.note { (round.rules) }
            div.tables { @for table in &round.tables {
                section.table {
                    h3 { "Table " (table.table) " · " a href={ "/games/" (table.game_id) } { "game" }
                        @if let Some(words) = unrated.get(&table.game_id) { " · " (words) } }
                    ul { @for seat in &table.seats {
                        li {
                            span.power { (seat.power.name()) } " " a href={ "/players/" (seat.player) } { (seat.player) }
                            // Powers by the draw: who was drawn to the seat, and each change's reason.
                            @if !seat.changes.is_empty() {
                                span.note { " · drawn: " (seat.drawn_player) "; now: " (seat.player) }
                                ul.changes { @for change in &seat.changes {
                                    li.note { (change.words) " (" (dates::moment(&change.at)) ")" }
                                } }
                            }
                        }
                    } }
                }
            } }
            @if !round.byes.is_empty() {
                p { "Byes: " @for (i, bye) in round.byes.iter().enumerate() {
                    @if i > 0 { ", " } (bye.player) " (" (words::count(bye.points as f64, "point", "points")) ")"
                } }
            }
        }
    }
}

/// The seats whose turns are due, longest waiting first, and who a due seat is offered to.
fn waiting_table(waiting: &[SeatWaitedOn], offered: Option<&String>) -> Markup {
    html! {
        @if waiting.is_empty() { p.empty { "No game is waiting on anyone." } } @else {
            table.waiting {
                thead { tr {
                    th.num { "Round" } th.num { "Table" } th { "Game" } th { "Power" } th { "Player" }
                    th { "Waiting since" } th.num { "Hours" } th { "Substitute from" } th { "Status" }
                } }
                tbody { @for w in waiting { tr.due[w.due] {
                    td.num { (w.round) }
                    td.num { (w.table) }
                    td { a href={ "/games/" (w.game_id) } { "game" } }
                    td { (w.power.name()) }
                    td { a href={ "/players/" (w.player) } { (w.player) } }
                    td { (dates::moment(&w.idle_since)) }
                    td.num { (w.idle_hours) }
                    td { (dates::moment(&w.due_at)) }
                    td { @if w.due {
                        "due for a substitute"
                        @if let Some(next) = offered { " (offered to " (next) ")" } @else { " (the waiting list is empty)" }
                    } @else { "waiting" } }
                } } }
            }
        }
    }
}

/// The substitutions made.
fn substitutions_table(substitutions: &[SubstitutionMade]) -> Markup {
    html! {
        @if substitutions.is_empty() { p.empty { "None." } } @else {
            table {
                thead { tr { th.num { "Round" } th { "Game" } th { "Power" } th { "Replaced" } th { "Substitute" } th { "At" } } }
                tbody { @for sub in substitutions { tr {
                    td.num { (sub.round) }
                    td { a href={ "/games/" (sub.game_id) } { "game" } }
                    td { (sub.power.name()) }
                    td { (sub.replaced) }
                    td { (sub.substitute) }
                    td { (dates::moment(&sub.at)) }
                } } }
            }
        }
    }
}
