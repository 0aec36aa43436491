//! The ladders over HTTP: a ladder's pages (JSON or CSV), read as of the league's state
//! when the first page was served, so paging never repeats or skips a player.

use std::sync::Arc;

use actix_web::{get, web, HttpRequest, HttpResponse};

use crate::error::{corrupt, ApiError};
use crate::ladder_cache::{CachedPage, PageKey};
use crate::query::ValidQuery;
use crate::reads::league::{page_at, pin, LeaderboardPage, LeaderboardParams};
use crate::respond::{self, csv_field, decimal, Format};
use crate::AppState;

/// A ladder, one page at a time.
///
/// `points` ranks by Cut-Throat points (ties go to whoever reached the total first),
/// `skill` by the skill rating's `mu - 3 sigma`; lifetime or one `season`, for one ruleset
/// (default `cutthroat`). A page holds up to `limit` rows (default 50); its `next` cursor,
/// also in `Link`, keeps the league state the first page showed, so a walk through the
/// pages sees one ladder even while games end. JSON, or CSV (a file) with
/// `Accept: text/csv` or `?format=csv`.
#[utoipa::path(get, path = "/v1/leaderboards/{ladder}", tag = "league",
    params(("ladder" = String, Path, description = "`points` or `skill`"), LeaderboardParams),
    responses(
        (status = 200, description = "A page: JSON, or CSV with `Accept: text/csv` or `?format=csv` (position, player, display_name, points, title, games, wins, rating, mu, sigma, points_exact, wins_exact); `Link` names the next",
            content((LeaderboardPage = "application/json"), (String = "text/csv"))),
    ))]
#[get("/v1/leaderboards/{ladder}")]
pub async fn leaderboard(
    state: web::Data<AppState>,
    req: HttpRequest,
    ladder: web::Path<String>,
    params: ValidQuery<LeaderboardParams>,
) -> Result<HttpResponse, ApiError> {
    let format = respond::negotiate_or(&req, params.format, &[Format::Json, Format::Csv])?;
    let pinned = pin(&state, &ladder, &params).await?;
    let key = PageKey {
        ladder: pinned.ladder.as_str(),
        ruleset: pinned.ruleset.to_owned(),
        season: pinned.season,
        as_of: pinned.as_of,
        after: params.after.clone(),
        limit: pinned.limit,
        format: if format == Format::Csv { "csv" } else { "json" },
    };
    let page = match state.ladders.page(&key) {
        Some(page) => page,
        None => {
            let page = page_at(&state, &pinned, &ladder, &params).await?;
            let rendered = Arc::new(rendered(&page, format)?);
            state.ladders.keep_page(key, rendered.clone());
            rendered
        }
    };
    let content_type = match format {
        Format::Csv => respond::CSV_UTF8,
        _ => respond::JSON,
    };
    let mut response = respond::conditional_with(
        &req,
        content_type,
        page.body.clone(),
        page.next.as_deref(),
        page.etag.clone(),
    );
    if format == Format::Csv {
        let season = params
            .season
            .map_or_else(|| "lifetime".to_owned(), |s| s.to_string());
        respond::name_the_file(
            &mut response,
            &format!(
                "ladder-{}-{}-{season}.csv",
                pinned.ladder.as_str(),
                pinned.ruleset
            ),
        );
    }
    Ok(response)
}

/// A page as the cache keeps it: its body in the format asked, and the body's ETag.
fn rendered(page: &LeaderboardPage, format: Format) -> Result<CachedPage, ApiError> {
    let body = match format {
        Format::Csv => leaderboard_csv(page),
        _ => serde_json::to_vec(page).map_err(corrupt)?,
    };
    Ok(CachedPage {
        etag: respond::etag_of(&body),
        body: body.into(),
        next: page.next.clone(),
    })
}

fn leaderboard_csv(page: &LeaderboardPage) -> Vec<u8> {
    let mut out =
        String::from("position,player,display_name,points,title,games,wins,rating,mu,sigma,points_exact,wins_exact\r\n");
    for r in &page.rows {
        // Decimals for people and spreadsheets (a fraction like 8/3 reads as a date); the
        // exact values last, for tools.
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{:.6},{:.6},{:.6},{},{}\r\n",
            r.position,
            csv_field(&r.player),
            csv_field(&r.display_name),
            decimal(r.points),
            csv_field(&r.title),
            r.games,
            decimal(r.wins),
            r.rating,
            r.mu,
            r.sigma,
            csv_field(&r.points_exact),
            csv_field(&r.wins_exact),
        ));
    }
    out.into_bytes()
}
