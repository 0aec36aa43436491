//! A game's page: seats, the board, placements, battles, orders and the audit's verdict,
//! rendered once per version.

use std::sync::Arc;

use actix_web::{get, web, HttpRequest, HttpResponse};
use maud::{html, Markup, PreEscaped};
use serde::Deserialize;
use warlog_events::audit::{AuditReport, Outcome};
use warlog_events::game::GameLog;

use super::{dates, error_page, layout, map_key, percent, url_component, verdict_word, words};
use crate::error::{ApiError, ErrorCode};
use crate::games::{OrdersWritten, PhaseEnd};
use crate::page_cache::{PageKey, Rendered, View};
use crate::query::parse_query;
use crate::reads::games::{chronicle, game_view, load, log_at};
use crate::respond::decimal;
use crate::views::{BattleView, BoardView, GameView, NowView, PlacementsView};
use crate::AppState;

/// A game: seats, the board by territory, placements, battle logs in the seed's notation,
/// and the server's audit verdict. Rendered once per version of the game and query, and
/// kept ([`crate::page_cache`]): a request at an unchanged head reads the head and nothing
/// else.
#[get("/games/{id}")]
pub async fn game(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> HttpResponse {
    match kept_game_page(&state, &id, &req).await {
        Ok(rendered) => rendered.respond(&req),
        Err(error) => error_page(&error),
    }
}

/// The game page's query: the map's version and the place to ring.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GamePageQuery {
    version: Option<u64>,
    highlight: Option<String>,
    /// A region of the map to zoom to.
    region: Option<String>,
}

/// The battles a game page shows (the latest); the battle list has them all.
const BATTLES_SHOWN: usize = 50;
/// The commands a game page lists (the latest); the event log has them all.
const ORDERS_SHOWN: usize = 50;
/// The phase ends a game page lists (the latest); the steps reach every version.
const PHASES_SHOWN: usize = 100;

/// The game page as kept for the game's head, rendered when it is not.
async fn kept_game_page(
    state: &AppState,
    id: &str,
    req: &HttpRequest,
) -> Result<std::sync::Arc<Rendered>, ApiError> {
    let query: GamePageQuery = parse_query(req.query_string())?;
    let stream = crate::games::game_stream(id)?;
    let head = state
        .store
        .stream_head(&stream)
        .await?
        .ok_or_else(|| ApiError::new(ErrorCode::GameNotFound, format!("no game {id:?}")))?
        .version;
    let key = PageKey {
        game: stream,
        version: head,
        view: View::Page {
            shown: query.version.filter(|v| *v != head),
            highlight: query.highlight.clone(),
            region: query.region.clone(),
        },
    };
    state
        .pages
        .get_or_render(key, || async {
            let (version, markup) = game_markup(state, id, req, &query).await?;
            let html = markup.into_string().into_bytes();
            Ok((version, Rendered::new("text/html; charset=utf-8", html)))
        })
        .await
}

/// The versions at which a power's turn ended (the next one's begins after them).
fn turn_ends(phases: &[PhaseEnd]) -> Vec<u64> {
    phases
        .windows(2)
        .filter(|pair| pair[0].1 != pair[1].1)
        .map(|pair| pair[0].0)
        .collect()
}

/// The game page, and the version of the game it shows.
async fn game_markup(
    state: &AppState,
    id: &str,
    req: &HttpRequest,
    query: &GamePageQuery,
) -> Result<(u64, Markup), ApiError> {
    // The chronicle first: the fold it carries on is kept, and `load` finds it. A write in
    // between leaves the chronicle behind the fold: it is carried on to the fold's version
    // (or past it, and shown up to it, below).
    let mut chronicle = chronicle(state, id).await?;
    let log = load(state, id).await?;
    if chronicle.version() < log.version {
        chronicle = crate::reads::games::chronicle(state, id).await?;
    }
    let view = game_view(state, req, &log).await?;
    let board = BoardView::of(&log);
    let now = NowView::of(&log);
    let shown = match query.version {
        Some(v) if v != log.version => log_at(state, req, id, Some(v)).await?,
        _ => log.clone(),
    };
    let placements = log
        .placements()
        .and_then(Result::ok)
        .map(|rows| PlacementsView::new(&log, rows));
    // Up to the fold's version: the chronicle may have been carried past it.
    let battles: Vec<_> = chronicle
        .battles
        .iter()
        .filter(|b| b.version <= log.version)
        .collect();
    let orders: Vec<_> = chronicle
        .orders
        .iter()
        .filter(|o| o.version <= log.version)
        .collect();
    let report = crate::audit_cache::audit_of(state, id).await?;
    let version = log.version;
    Ok((
        version,
        layout(
            &view.title,
            html! {
                (heading(&view, &board))
                (now_section(id, &now))
                (audit_section(&report))
                (seats_section(&view, &board))
                @if let Some(placements) = &placements { (placements_section(placements)) }
                (map_section(id, version, &shown, &chronicle.phases, query))
                (board_section(&board))
                (orders_section(&orders))
                (battles_section(id, &battles))
            },
        ),
    ))
}

/// The title, where the game stands, and why it counts for nobody when it does not.
fn heading(view: &GameView, board: &BoardView) -> Markup {
    html! {
        h1 { (view.title) }
        p.lead {
            (view.standing)
            @if view.status == "running" { " · " (board.phase_name) }
            @if let Some(t) = &view.tournament { " · " a href={ "/tournaments/" (t) } { "tournament" } }
            " · " small { "game " (view.game_id) }
        }
        @if let Some(reason) = &view.void_reason {
            p.note { "This game was voided and counts for nobody: " (reason) }
        } @else if let Some(why) = &view.not_rated {
            p.note.not-rated { "This game is " (why) ". It gives no places and no points and changes no rating." }
        }
    }
}

/// What may be done now, in sentences, with the way to play a turn.
fn now_section(id: &str, now: &NowView) -> Markup {
    html! {
        section.now aria-labelledby="now" {
            h2 #now { "Now" }
            @for sentence in &now.in_words { p { (sentence) } }
            @if !now.over { p { a.play href={ "/games/" (id) "/turn" } { "Play a turn: write it in plain words, preview it, submit it" } } }
            p.note { "The same for tools: " a href={ "/v1/games/" (id) "/now" } { "what may be done now (JSON)" } "." }
        }
    }
}

/// The server's audit: each check's verdict, the findings and what could not be checked.
fn audit_section(report: &AuditReport) -> Markup {
    let failed = report.outcome == Outcome::Failed;
    let partial = report.outcome == Outcome::Partial;
    html! {
        section.audit.failed[failed].partial[partial] {
            h2 { "Audit: " (report.outcome.as_str()) }
            ul { @for check in &report.checks {
                li { strong { (check.name) } ": " (verdict_word(check.verdict)) " · " (check.detail) }
            } }
            @if !report.findings.is_empty() {
                h3 { "Findings" }
                ul { @for finding in &report.findings {
                    li { "Event " (finding.event) ": " (finding.message) }
                } }
            }
            @if !report.not_checked.is_empty() {
                h3 { "Not checked" }
                ul { @for what in &report.not_checked { li { (what) } } }
            }
        }
    }
}

/// Who holds each power, its money, and whose hand gave its orders.
fn seats_section(view: &GameView, board: &BoardView) -> Markup {
    html! {
        h2 { "Seats" }
        @if view.orders_recorded {
            p.note { "Orders given by the player, by the game master (or a director) on the player's behalf, and by a proxy the player named for an absence, as the record holds them. A proxy gives orders until the time shown; the seat and its result stay the player's." }
        } @else {
            p.note { "This game was created before orders were recorded: who gave them is not known." }
        }
        table.seats {
            thead { tr {
                th { "Power" } th { "Player" } th.num { "IPC" } th.num { "Start" } th.num { "Treasury" }
                th.num { "Turns played" } th.num { "Orders by the player" } th.num { "Orders by the game master" } th.num { "Orders by a proxy" }
            } }
            tbody { @for p in &board.powers { tr {
                td { (p.power.name()) }
                td { @for seat in view.seats.iter().filter(|s| s.power == p.power) {
                    a href={ "/players/" (seat.player) } { (seat.player) }
                    @if seat.substitute_turns.is_some() { " (substitute)" }
                    @if let Some(proxy) = &seat.proxy {
                        br;
                        small.proxy { "proxy: " a href={ "/players/" (proxy.player) } { (proxy.player) } " until " (dates::moment(&proxy.until)) }
                    }
                } }
                td.num { (p.ipc_count) }
                td.num { (p.starting_ipc) }
                td.num {
                    (p.treasury)
                    @if let Some(tokens) = p.kamikaze_tokens { br; small { (tokens) " kamikaze tokens" } }
                }
                @if let Some(play) = view.play.iter().find(|q| q.power == p.power) {
                    td.num { (play.turns_played) }
                    td.num { @if view.orders_recorded { (play.orders_by_player) } }
                    td.num { @if view.orders_recorded { (play.orders_by_game_master) } }
                    td.num { @if view.orders_recorded { (play.orders_by_proxy) } }
                } @else {
                    td {} td {} td {} td {}
                }
            } } }
        }
    }
}

/// The places of a game that ended rated, and the points each place gives.
fn placements_section(placements: &PlacementsView) -> Markup {
    html! {
        h2 { "Placements" }
        p.note { (placements.tie_policy) }
        table tabindex="0" {
            thead { tr { th.num { "Place" } th { "Power" } th { "Player" } th.num { "Gain" } th.num { "Points" } } }
            tbody { @for row in &placements.placements { tr {
                td.num { (words::place(row.place, row.tied_with > 1)) }
                td { (row.power.name()) }
                td { @if let Some(p) = &row.player { (p) } }
                td.num title=(row.percent_gain_exact) { (percent(row.percent_gain)) }
                td.num title=(row.points_exact) { (decimal(row.points)) }
            } } }
        }
    }
}

/// The map at the version shown (`latest` is the game's), the steps to the versions around
/// it, the zoom to a region, and every phase's end as a link to the map after it.
fn map_section(
    id: &str,
    latest: u64,
    shown: &GameLog,
    phases: &[PhaseEnd],
    query: &GamePageQuery,
) -> Markup {
    let turns = turn_ends(phases);
    let at = shown.version;
    let previous_turn = turns.iter().rev().find(|v| **v < at).copied().unwrap_or(1);
    let next_turn = turns.iter().find(|v| **v > at).copied();
    let region = query.region.as_deref();
    let zoomed = region.map_or(String::new(), |r| format!("&region={}", url_component(r)));
    let map_link = |version: u64| format!("/games/{id}?version={version}{zoomed}#map");
    // One board view and one layout serve the map, its zoom links and its table.
    let shown_board = BoardView::of(shown);
    let map_layout = crate::map::MapLayout::cached(&shown.ruleset.hash, &shown.ruleset.board);
    let map = crate::map::board_svg(
        &shown_board,
        &map_layout,
        query.highlight.as_deref(),
        region,
    );
    let regions: Vec<(String, String)> = map_layout
        .regions()
        .map(|r| (r.id.clone(), r.name.clone()))
        .collect();
    let ringed = query.highlight.as_deref().map_or(String::new(), |h| {
        format!("&highlight={}", url_component(h))
    });
    let zoom_link = |to: Option<&str>| {
        let zoomed = to.map_or(String::new(), |r| format!("&region={}", url_component(r)));
        format!("/games/{id}?version={at}{ringed}{zoomed}#map")
    };
    // Up to the fold's version: the chronicle may have been carried past it.
    let phases: Vec<_> = phases.iter().filter(|p| p.0 <= latest).collect();
    let phases_shown = &phases[phases.len().saturating_sub(PHASES_SHOWN)..];
    html! {
        h2 #map { "Map" }
        p.note {
            "After event " (at) " of " (latest) ": round " (shown_board.round) ", "
            (shown_board.turn.name()) "'s " (shown_board.phase_name) "."
            @if let Some(place) = &query.highlight { " (Ringed: " (place) ")" }
        }
        nav.steps aria-label="Versions of the map" {
            @if at > 1 { a href=(map_link(previous_turn)) { "← previous turn" } }
            @if at > 1 { a href=(map_link(at - 1)) { "← one event" } }
            @if at < latest { a href=(map_link(at + 1)) { "one event →" } }
            @if let Some(next) = next_turn { a href=(map_link(next)) { "next turn →" } }
            @if at < latest { a href={ "/games/" (id) "#map" } { "latest" } }
            " · " a href={ "/v1/games/" (id) "/board.svg?version=" (at) } { "SVG" }
        }
        (map_key::zoom_links(&zoom_link, &regions, region))
        figure.map {
            div.map-frame tabindex="0" role="region" aria-label="The map (it scrolls sideways on a narrow screen)" { (PreEscaped(map)) }
            figcaption { (map_key::legend(shown.ruleset)) }
        }
        (map_key::places_by_holder(&shown_board, shown.ruleset))
        details.phases {
            @if phases_shown.len() < phases.len() {
                summary { "The latest " (phases_shown.len()) " phases of " (phases.len()) }
            } @else {
                summary { "Every phase (" (phases.len()) ")" }
            }
            ol start=(phases.len() - phases_shown.len() + 1) { @for (version, power, phase) in phases_shown.iter().copied() {
                li { a href=(map_link(*version)) {
                    "After " (power.name()) "'s " (phase.name()) " (event " (version) ")"
                } }
            } }
        }
    }
}

/// Every place with its holder and units, as the game stands.
fn board_section(board: &BoardView) -> Markup {
    html! {
        h2 { "Board" }
        table.board tabindex="0" {
            thead { tr { th { "Territory" } th.num { "IPC" } th { "Held by" } th { "Units" } } }
            tbody { @for place in &board.places { tr.sea[place.sea].contested[place.contested] {
                td { (place.name) }
                td.num { @if !place.sea { (place.ipc) } }
                td { @if let Some(h) = place.holder { (h.name()) } }
                td { (place.units.iter().map(|s| {
                    let damaged = if s.damage > 0 { " (damaged)" } else { "" };
                    format!("{} {} {}{damaged}", s.power.name(), s.count, s.unit)
                }).collect::<Vec<_>>().join(", ")) }
            } } }
        }
    }
}

/// The latest orders on the record, written as players write a turn.
fn orders_section(orders: &[&Arc<OrdersWritten>]) -> Markup {
    let orders_shown = &orders[orders.len().saturating_sub(ORDERS_SHOWN)..];
    html! {
        h2 #orders { "Orders" }
        @if orders.is_empty() { p.empty { "No orders yet." } } @else {
            p.note {
                "Each power's orders as the record keeps them, written as players write a turn"
                @if orders_shown.len() < orders.len() { " (the latest " (orders_shown.len()) " of " (orders.len()) ")" }
                "."
            }
            details.orders {
                summary { "Orders on the record" }
                ol.orders { @for written in orders_shown {
                    li {
                        "Event " (written.version) ": " (written.power.name()) ", by " (written.by)
                        pre.turn tabindex="0" { (written.lines.join("\n")) }
                        @if let Some(refused) = &written.refused { p.problem { (refused) } }
                    }
                } }
            }
        }
    }
}

/// The latest battles, each with its listing in the seed's notation and a link to its place
/// on the map.
fn battles_section(id: &str, battles: &[&Arc<BattleView>]) -> Markup {
    let battles_shown = &battles[battles.len().saturating_sub(BATTLES_SHOWN)..];
    html! {
        h2 { "Battles" }
        @if battles.is_empty() { p.empty { "No battles yet." } }
        @if battles_shown.len() < battles.len() {
            p.note {
                "The latest " (battles_shown.len()) " of " (battles.len()) " battles; "
                a href={ "/v1/games/" (id) "/battles" } { "every battle" }
                " is in the battle list, a page at a time."
            }
        }
        @for battle in battles_shown {
            section.battle {
                h3 { (battle.number) ". " (battle.territory) ", round " (battle.round) " · " (battle.result)
                    " · " a href={ "/games/" (id) "?version=" (battle.version) "&highlight=" (url_component(&battle.territory)) "#map" } { "on the map" } }
                pre.listing tabindex="0" { (battle.listing) }
            }
        }
    }
}
