//! What the tournament endpoints show: the tournament, its rounds, standings (JSON or
//! CSV) and the seats waiting on inactive players.

use actix_web::{get, web, HttpRequest, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;
use warlog_rules::board::Power;
use warlog_store::StoreError;

use crate::error::{ApiError, ErrorCode};
use crate::reads::tournaments::{
    seats_waited_on, tournament_standings, RoundView, StandingsView, TournamentView,
};
use crate::respond::{self, csv_field, decimal, Format};
use crate::tournaments::*;
use crate::AppState;

/// A tournament.
///
/// Its settings (ruleset, rounds and their deadlines, table size, points per place,
/// tiebreakers), its entrants and waiting list, the rounds seated so far, the substitutions
/// made, and the seed's commitment; once finished, the seed itself.
#[utoipa::path(get, path = "/v1/tournaments/{id}", tag = "tournaments",
    params(("id" = String, Path)),
    responses(
        (status = 200, description = "The tournament", body = TournamentView),
    ))]
#[get("/v1/tournaments/{id}")]
pub async fn tournament_detail(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let tournament = load_tournament(&client, &id).await?;
    respond::json(&req, &TournamentView::of(&tournament))
}

/// `?format=`: a representation for a link, which cannot set `Accept`.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct FormatQuery {
    /// `json` or `csv`; without it, `Accept` decides.
    #[param(value_type = Option<String>, pattern = "^(json|csv)$")]
    pub format: Option<Format>,
}

/// The standings so far, tiebreakers applied and named.
///
/// One row per player, in rank order, with each round's result; where a tiebreaker
/// decided between two players the row names it. JSON, or CSV (a file) with
/// `Accept: text/csv` or `?format=csv`.
#[utoipa::path(get, path = "/v1/tournaments/{id}/standings", tag = "tournaments",
    params(("id" = String, Path), FormatQuery),
    responses(
        (status = 200, description = "Standings: JSON, or CSV with `Accept: text/csv` or `?format=csv` (one row per player, decimals with the exact values beside them)",
            content((StandingsView = "application/json"), (String = "text/csv"))),
    ))]
#[get("/v1/tournaments/{id}/standings")]
pub async fn tournament_standings_route(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    query: crate::query::ValidQuery<FormatQuery>,
) -> Result<HttpResponse, ApiError> {
    let format = respond::negotiate_or(&req, query.format, &[Format::Json, Format::Csv])?;
    let (_, view) = tournament_standings(&state, &id).await?;
    match format {
        Format::Csv => Ok(respond::csv(
            &req,
            standings_csv(&view),
            &format!("tournament-{id}-standings.csv"),
        )),
        _ => respond::json(&req, &view),
    }
}

fn standings_csv(view: &StandingsView) -> Vec<u8> {
    let mut out = String::from(
        "rank,player,status,points,points_exact,percent_gain,percent_gain_exact,best_result,games,wins,wins_exact,byes,title,decided_by\r\n",
    );
    for row in &view.rows {
        let fields = [
            row.rank.to_string(),
            row.player.clone(),
            row.status.clone(),
            // Decimals for people and spreadsheets (a fraction like 8/3 reads as a date);
            // the exact values in their own columns for tools.
            decimal(row.points),
            row.points_exact.clone(),
            format!("{:.2}", row.percent_gain),
            row.percent_gain_exact.clone(),
            row.best_result.clone().unwrap_or_default(),
            row.games.to_string(),
            decimal(row.wins),
            row.wins_exact.clone(),
            row.byes.to_string(),
            row.title.clone(),
            row.decided_by.clone().unwrap_or_default(),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f).into_owned()).collect();
        out.push_str(&line.join(","));
        out.push_str("\r\n");
    }
    out.into_bytes()
}

/// One round: its tables and games, byes, and how it was seated.
///
/// `round` counts from 1. The seating's explanation says which repeats it avoided (and
/// the fewest possible), who had a bye and why, and what the director's constraints cost.
///
/// A round not yet seated is not found (404).
#[utoipa::path(get, path = "/v1/tournaments/{id}/rounds/{round}", tag = "tournaments",
    params(("id" = String, Path), ("round" = u32, Path)),
    responses(
        (status = 200, description = "The round", body = RoundView),
    ))]
#[get("/v1/tournaments/{id}/rounds/{round}")]
pub async fn round_detail(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id, round) = path.into_inner();
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let tournament = load_tournament(&client, &id).await?;
    let seated = round
        .parse::<usize>()
        .ok()
        .and_then(|r| r.checked_sub(1))
        .and_then(|r| tournament.rounds.get(r))
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::TournamentNotFound,
                format!(
                    "round {round:?} is not seated; {} of {} are",
                    tournament.rounds.len(),
                    tournament.created.rounds
                ),
            )
        })?;
    respond::json(&req, &RoundView::of(&tournament, seated))
}

/// A seat whose player has let a due turn wait more than 3 days.
#[derive(Debug, Serialize, ToSchema)]
pub struct InactiveSeat {
    pub round: u32,
    pub table: u32,
    pub game_id: String,
    #[schema(value_type = String, example = "russia")]
    pub power: Power,
    pub player: String,
    /// When the game last moved on (the last phase's end, or the game's start).
    pub idle_since: String,
    pub idle_hours: u64,
    /// The first player on the waiting list, offered the seat; the director confirms.
    pub offered_to: Option<String>,
}

/// The seats open to substitutes now.
///
/// A seat is open when its player's turn is due and they have been inactive more than 3
/// days (Cut-Throat, Rules for players); each names when its game last moved on and the
/// first player on the waiting list, offered the seat, whom the director confirms with
/// `POST /v1/tournaments/{id}/substitutions`.
#[utoipa::path(get, path = "/v1/tournaments/{id}/inactive", tag = "tournaments",
    params(("id" = String, Path)),
    responses(
        (status = 200, description = "Inactive seats, oldest first", body = Vec<InactiveSeat>),
    ))]
#[get("/v1/tournaments/{id}/inactive")]
pub async fn inactive_seats(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (tournament, watch) = seats_waited_on(&state, &id).await?;
    let seats: Vec<InactiveSeat> = watch
        .into_iter()
        .filter(|w| w.due)
        .map(|w| InactiveSeat {
            round: w.round,
            table: w.table,
            game_id: w.game_id,
            power: w.power,
            player: w.player,
            idle_since: w.idle_since,
            idle_hours: w.idle_hours,
            offered_to: tournament.waiting.first().cloned(),
        })
        .collect();
    respond::json(&req, &seats)
}
