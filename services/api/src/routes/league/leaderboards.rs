//! The ladders over HTTP: a ladder's pages (JSON or CSV), read as of the league's state
//! when the first page was served, so paging never repeats or skips a player.

use std::sync::Arc;

use actix_web::{get, web, HttpRequest, HttpResponse};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use warlog_rules::scoring::Title;
use warlog_store::league::{
    ladder_head, ladder_page, points_of, Ladder, LadderQuery, LadderRow,
};
use warlog_store::StoreError;

use crate::error::{corrupt, ApiError, ErrorCode};
use crate::ladder_cache::{CachedPage, PageKey};
use crate::query::ValidQuery;
use crate::respond::{self, csv_field, decimal, Format};
use crate::AppState;


use super::DEFAULT_RULESET;

/// Which page of a ladder.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct LeaderboardParams {
    /// A calendar year (the year the games ended); lifetime when absent.
    #[param(minimum = 1, maximum = 65535)]
    pub season: Option<u16>,
    /// Default `cutthroat`.
    pub ruleset: Option<String>,
    /// The `next` cursor of the previous page.
    pub after: Option<String>,
    /// 1 to 200; default 50.
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
    /// `json` or `csv`, for a link, which cannot set `Accept`; without it, `Accept` decides.
    #[param(value_type = Option<String>, pattern = "^(json|csv)$")]
    #[serde(default)]
    pub format: Option<Format>,
}

/// One row of a ladder.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LeaderboardRow {
    /// 1-based position in the ladder's order.
    pub position: u64,
    pub player: String,
    pub display_name: String,
    /// Total points, as a decimal (`8.5`).
    pub points: f64,
    /// The same, exact (`"17/2"` when tied places were shared).
    pub points_exact: String,
    pub title: String,
    pub games: i32,
    /// Sole first places, and shares of shared ones; an all-tied game is nobody's win.
    pub wins: f64,
    /// The same, exact (`"3/2"`).
    pub wins_exact: String,
    pub rating: f64,
    pub mu: f64,
    pub sigma: f64,
}

/// A page of a ladder.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderboardPage {
    /// `points` (Cut-Throat points; ties go to whoever reached the total first) or `skill`
    /// (the Plackett-Luce rating's `mu - 3 sigma`).
    pub ladder: String,
    pub ruleset: String,
    pub season: Option<u16>,
    /// The league's state this page shows (the count of finished games it includes).
    pub as_of: i64,
    pub rows: Vec<LeaderboardRow>,
    /// The next page, if any.
    pub next: Option<String>,
}

/// Where the next page starts: as of which league state, after which row.
#[derive(Debug, Clone, PartialEq)]
struct LadderCursor {
    as_of: i64,
    position: u64,
    sort_key: f64,
    tiebreak: i64,
    player: String,
}

const CURSOR_PREFIX: &str = "l1";

impl LadderCursor {
    fn encode(&self) -> String {
        let raw = format!(
            "{CURSOR_PREFIX}:{}:{}:{}:{}:{}",
            self.as_of,
            self.position,
            self.sort_key.to_bits(),
            self.tiebreak,
            self.player
        );
        URL_SAFE_NO_PAD.encode(raw)
    }

    fn decode(text: &str) -> Result<LadderCursor, ApiError> {
        let bad = || {
            ApiError::new(
                ErrorCode::InvalidCursor,
                format!("cursor {text:?} is not one this service issued"),
            )
        };
        let bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| bad())?;
        let raw = String::from_utf8(bytes).map_err(|_| bad())?;
        let mut parts = raw.splitn(6, ':');
        if parts.next() != Some(CURSOR_PREFIX) {
            return Err(bad());
        }
        let mut next = || parts.next().ok_or_else(bad);
        let as_of = next()?.parse().map_err(|_| bad())?;
        let position = next()?.parse().map_err(|_| bad())?;
        let sort_key = f64::from_bits(next()?.parse().map_err(|_| bad())?);
        let tiebreak = next()?.parse().map_err(|_| bad())?;
        let player = next()?.to_owned();
        if as_of < 0 || !sort_key.is_finite() {
            return Err(bad());
        }
        Ok(LadderCursor {
            as_of,
            position,
            sort_key,
            tiebreak,
            player,
        })
    }
}

fn ladder_of(name: &str) -> Result<Ladder, ApiError> {
    match name {
        "points" => Ok(Ladder::Points),
        "skill" => Ok(Ladder::Skill),
        other => Err(ApiError::new(
            ErrorCode::LadderNotFound,
            format!("no ladder {other:?}: the ladders are `points` and `skill`"),
        )),
    }
}

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

/// A ladder request, checked and pinned to a league state.
struct PinnedLadder<'a> {
    ladder: Ladder,
    ruleset: &'a str,
    season: i32,
    limit: u32,
    cursor: Option<LadderCursor>,
    as_of: i64,
}

/// Checks the parameters and pins the league state: the cursor's, or the scope's head.
async fn pin<'a>(
    state: &AppState,
    ladder_name: &str,
    params: &'a LeaderboardParams,
) -> Result<PinnedLadder<'a>, ApiError> {
    let ladder = ladder_of(ladder_name)?;
    let ruleset = params.ruleset.as_deref().unwrap_or(DEFAULT_RULESET);
    if !warlog_rules::document::RulesetDocument::BUILTIN.contains(&ruleset) {
        // An uploaded ruleset has a ladder of its own: it must exist.
        let client = state.store.pool().get().await.map_err(StoreError::from)?;
        crate::rulesets::find(&client, ruleset).await?;
    }
    let limit = params.limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(ApiError::malformed(format!(
            "query parameter `limit`: {limit} is not between 1 and 200"
        )));
    }
    if params.season == Some(0) {
        return Err(ApiError::malformed(
            "query parameter `season`: 0 is not a year; leave it out for lifetime",
        ));
    }
    let season = i32::from(params.season.unwrap_or(0));
    let cursor = params
        .after
        .as_deref()
        .map(LadderCursor::decode)
        .transpose()?;
    let as_of = match &cursor {
        Some(c) => c.as_of,
        None => match state.ladders.head(ladder.as_str(), ruleset, season) {
            Some(head) => head,
            None => {
                let client = state.store.pool().get().await.map_err(StoreError::from)?;
                let head = ladder_head(&client, ladder, ruleset, season).await?;
                state
                    .ladders
                    .keep_head(ladder.as_str(), ruleset, season, head);
                head
            }
        },
    };
    Ok(PinnedLadder {
        ladder,
        ruleset,
        season,
        limit,
        cursor,
        as_of,
    })
}

/// A ladder page's content, shared by the API and the HTML pages.
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

pub async fn leaderboard_page(
    state: &AppState,
    ladder_name: &str,
    params: &LeaderboardParams,
) -> Result<LeaderboardPage, ApiError> {
    let pinned = pin(state, ladder_name, params).await?;
    page_at(state, &pinned, ladder_name, params).await
}

async fn page_at(
    state: &AppState,
    pinned: &PinnedLadder<'_>,
    ladder_name: &str,
    params: &LeaderboardParams,
) -> Result<LeaderboardPage, ApiError> {
    let PinnedLadder {
        ladder,
        ruleset,
        season,
        limit,
        ref cursor,
        as_of,
    } = *pinned;
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let query = LadderQuery {
        ladder,
        ruleset: ruleset.to_owned(),
        season,
        as_of,
        after: cursor
            .as_ref()
            .map(|c| (c.sort_key, c.tiebreak, c.player.clone())),
        limit: limit + 1,
    };
    let mut rows = ladder_page(&client, &query).await?;
    let more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    // The one Commander of CT is the points ladder's first row, if at 23 or more. The first
    // page of the points ladder holds it already; other pages ask for it.
    let leader = match (ladder, &cursor, rows.first()) {
        (Ladder::Points, None, first) => first.cloned(),
        _ => ladder_page(
            &client,
            &LadderQuery {
                ladder: Ladder::Points,
                after: None,
                limit: 1,
                ..query.clone()
            },
        )
        .await?
        .into_iter()
        .next(),
    }
    .map(|r| r.player);
    let start = cursor.as_ref().map_or(0, |c| c.position);
    let next = if more {
        rows.last().map(|last| {
            let cursor = LadderCursor {
                as_of,
                position: start + rows.len() as u64,
                sort_key: last.sort_key,
                tiebreak: last.tiebreak,
                player: last.player.clone(),
            };
            let mut link = format!(
                "/v1/leaderboards/{ladder_name}?ruleset={ruleset}&limit={limit}&after={}",
                cursor.encode()
            );
            if let Some(season) = params.season {
                link.push_str(&format!("&season={season}"));
            }
            link
        })
    } else {
        None
    };
    let rows = rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| row_view(start + i as u64 + 1, r, leader.as_deref()))
        .collect();
    Ok(LeaderboardPage {
        ladder: ladder.as_str().to_owned(),
        ruleset: ruleset.to_owned(),
        season: params.season,
        as_of,
        rows,
        next,
    })
}

/// A ladder's row, given the player leading the scope (the one Commander of CT, at 23 or
/// more).
fn row_view(position: u64, row: LadderRow, leader: Option<&str>) -> LeaderboardRow {
    let points = points_of(row.points_scaled);
    let title = Title::in_ladder(points, leader == Some(row.player.as_str()));
    LeaderboardRow {
        position,
        display_name: row.display_name.unwrap_or_else(|| row.player.clone()),
        player: row.player,
        points: points.to_f64(),
        points_exact: points.to_string(),
        title: title.name().to_owned(),
        games: row.games,
        wins: points_of(row.wins_scaled).to_f64(),
        wins_exact: points_of(row.wins_scaled).to_string(),
        rating: row.mu - 3.0 * row.sigma,
        mu: row.mu,
        sigma: row.sigma,
    }
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
