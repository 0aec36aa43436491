//! The public pages: server-rendered HTML with one small stylesheet and no script, built
//! from the same functions the JSON API answers with (so a page never shows what the API
//! would not). The leaderboard has an embeddable variant for an iframe on an
//! association's site.

use actix_web::http::header;
use actix_web::{get, web, HttpRequest, HttpResponse};
use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde::Deserialize;
use warlog_events::audit::{Outcome, Verdict};

use crate::error::{ApiError, ErrorCode};
use crate::games::PhaseEnd;
use crate::number_words as words;
use crate::page_cache::{PageKey, Rendered, View};
use crate::query::parse_query;
use crate::respond::decimal;
use crate::routes::games::{chronicle, load};
use crate::routes::league::{
    leaderboard_page, player_view, LeaderboardPage, LeaderboardParams, PlayerGame, PlayerStanding,
};
use crate::routes::tournaments::{
    seats_waited_on, tournament_standings, RoundView, SeatWaitedOn, StandingsView,
    SubstitutionMade, TournamentView,
};
use crate::views::{BoardView, NowView, PlacementsView};
use crate::AppState;

mod dates;
mod indexes;
mod map_key;
mod odds;
mod turn;
pub use indexes::{games, players, tournaments};
pub use odds::odds_page;
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
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · warlog" }
                link rel="stylesheet" href=(crate::assets::stylesheet_href());
                link rel="icon" type="image/svg+xml" href=(crate::assets::icon_href());
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
                    "A game ended before every power had played a turn of its own is aborted, not rated. "
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
                    p.note { "Ended before every power had played a turn of its own (aborted), or voided: no places, no points, no rating change." }
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
fn player_charts(view: &crate::routes::league::PlayerView) -> Markup {
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
const LEADERS_NAMED: usize = 3;

/// A tournament's standings by round: each player's running points after each round, the
/// leaders (the first three ranks, ties included) in colour and named at their lines' ends.
fn standings_chart(standings: &crate::routes::tournaments::StandingsView) -> String {
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
                    p.note { "A game ended before every power had played a turn of its own is aborted, not rated: its players get no points for it and it is not among their games." }
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
        chronicle = crate::routes::games::chronicle(state, id).await?;
    }
    let view = crate::routes::games::game_view(state, req, &log).await?;
    let board = BoardView::of(&log);
    let now = NowView::of(&log);
    let shown = match query.version {
        Some(v) if v != log.version => {
            crate::routes::games::log_at(state, req, id, Some(v)).await?
        }
        _ => log.clone(),
    };
    let phases = &chronicle.phases;
    let turns = turn_ends(phases);
    let at = shown.version;
    let previous_turn = turns.iter().rev().find(|v| **v < at).copied().unwrap_or(1);
    let next_turn = turns.iter().find(|v| **v > at).copied();
    let region = query.region.as_deref();
    let zoomed = region.map_or(String::new(), |r| format!("&region={}", url_component(r)));
    let map_link = |version: u64| format!("/games/{id}?version={version}{zoomed}#map");
    // One board view and one layout serve the map, its zoom links and its table.
    let shown_board = BoardView::of(&shown);
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
    let phases: Vec<_> = phases.iter().filter(|p| p.0 <= log.version).collect();
    let battles_shown = &battles[battles.len().saturating_sub(BATTLES_SHOWN)..];
    let orders: Vec<_> = chronicle
        .orders
        .iter()
        .filter(|o| o.version <= log.version)
        .collect();
    let orders_shown = &orders[orders.len().saturating_sub(ORDERS_SHOWN)..];
    let phases_shown = &phases[phases.len().saturating_sub(PHASES_SHOWN)..];
    let report = crate::audit_cache::audit_of(state, id).await?;
    let failed = report.outcome == Outcome::Failed;
    let partial = report.outcome == Outcome::Partial;
    let version = log.version;
    Ok((
        version,
        layout(
            &view.title,
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
                section.now aria-labelledby="now" {
                    h2 #now { "Now" }
                    @for sentence in &now.in_words { p { (sentence) } }
                    @if !now.over { p { a.play href={ "/games/" (id) "/turn" } { "Play a turn: write it in plain words, preview it, submit it" } } }
                    p.note { "The same for tools: " a href={ "/v1/games/" (id) "/now" } { "what may be done now (JSON)" } "." }
                }
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
                @if let Some(placements) = &placements {
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
                h2 #map { "Map" }
                p.note {
                    "After event " (at) " of " (log.version) ": round " (shown_board.round) ", "
                    (shown_board.turn.name()) "'s " (shown_board.phase_name) "."
                    @if let Some(place) = &query.highlight { " (Ringed: " (place) ")" }
                }
                nav.steps aria-label="Versions of the map" {
                    @if at > 1 { a href=(map_link(previous_turn)) { "← previous turn" } }
                    @if at > 1 { a href=(map_link(at - 1)) { "← one event" } }
                    @if at < log.version { a href=(map_link(at + 1)) { "one event →" } }
                    @if let Some(next) = next_turn { a href=(map_link(next)) { "next turn →" } }
                    @if at < log.version { a href={ "/games/" (id) "#map" } { "latest" } }
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
            },
        ),
    ))
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
