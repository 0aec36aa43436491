//! The league's reads, the API's and the pages' alike: a player's standings, games and
//! rating history, whether a handle is registered, and a ladder's pages, each pinned to the
//! league's state its first page showed (the cursor carries it), so paging never repeats or
//! skips a player while games finish.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use warlog_events::game::GameStatus;
use warlog_events::{StreamCategory, StreamId};
use warlog_league::rating::Rating;
use warlog_rules::scoring::Title;
use warlog_store::league::{
    find_player, ladder_head, ladder_page, player_history, player_standings, points_of,
    rating_history, HistoryRow, Ladder, LadderQuery, LadderRow,
};
use warlog_store::{stream_head, StoreError};

use crate::error::{ApiError, ErrorCode};
use crate::respond::Format;
use crate::rulesets::DEFAULT_RULESET;
use crate::AppState;

/// A player's standing in one ladder scope.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PlayerStanding {
    pub ruleset: String,
    /// The calendar year; absent for lifetime.
    pub season: Option<i32>,
    /// Points, as a decimal (`8.5`).
    pub points: f64,
    /// The same, exact (`"17/2"` when tied places were shared).
    pub points_exact: String,
    pub title: String,
    /// 1-based, on the points ladder.
    pub position: i64,
    pub games: i32,
    /// Sole first places, and shares of shared ones; an all-tied game is nobody's win.
    pub wins: f64,
    /// The same, exact (`"3/2"`).
    pub wins_exact: String,
    /// How many times at each place, first place first.
    pub places: Vec<u32>,
    /// Percentage points, over the games played.
    pub average_percent_gain: Option<f64>,
    pub rating: RatingView,
}

/// A skill rating.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RatingView {
    pub mu: f64,
    pub sigma: f64,
    /// `mu - 3 sigma`: the skill ladder's order.
    pub ordinal: f64,
}

/// One finished game of a player.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PlayerGame {
    pub game_id: String,
    pub ruleset: String,
    pub tournament: Option<String>,
    pub power: String,
    /// `played`, or `replaced`: sat at the seat without taking its result (a substitute before
    /// the seat became theirs: no points; docs/rulesets.md, "Results follow play").
    pub result: String,
    pub place: Option<i32>,
    pub tied_with: Option<i32>,
    /// Points, as a decimal (`2.67`).
    pub points: f64,
    /// The same, exact (`"8/3"` when tied places were shared).
    pub points_exact: String,
    /// The gain, as a percentage of the starting IPC (`-20.83`).
    pub percent_gain: Option<f64>,
    /// The same, exact, as a fraction of the starting IPC (`"-5/24"`).
    pub percent_gain_exact: Option<String>,
    #[schema(format = DateTime)]
    pub ended_at: String,
}

/// A game of a player's that ended without counting.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct UnratedGame {
    pub game_id: String,
    pub ruleset: String,
    pub tournament: Option<String>,
    /// `aborted` (ended before every seated power had played a turn of its own),
    /// `master-only` (a seated player never gave an order in person) or `voided`.
    pub status: String,
    /// The same in plain words: `aborted, not rated`.
    pub status_words: String,
    #[schema(format = DateTime)]
    pub ended_at: String,
}

/// A player's page.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PlayerView {
    pub handle: String,
    pub display_name: String,
    /// Lifetime and per-season standings, per ruleset.
    pub standings: Vec<PlayerStanding>,
    /// Newest first.
    pub games: Vec<PlayerGame>,
    /// The games the player sat down to that ended without counting (aborted, played by the game
    /// master alone, or voided),
    /// newest first: no points, no rating change, not among `games`.
    pub unrated_games: Vec<UnratedGame>,
    /// The lifetime skill rating after each game that moved it, per ruleset, oldest first.
    pub rating_history: Vec<RatingStepView>,
}

/// The skill rating after one game.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RatingStepView {
    pub ruleset: String,
    /// The league's count of finished games when this rating was set.
    pub league_game: i64,
    pub mu: f64,
    pub sigma: f64,
    /// `mu - 3 sigma`.
    pub ordinal: f64,
}

/// The player page's content, shared by the API and the HTML page.
pub(crate) async fn player_view(state: &AppState, handle: &str) -> Result<PlayerView, ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let registered = find_player(&client, handle).await?;
    let history = player_history(&client, handle, 10_000).await?;
    let unrated = warlog_store::games::unrated_games(&client, handle, 1_000).await?;
    let Some(display_name) = registered
        .map(|p| p.display_name)
        .or_else(|| (!history.is_empty() || !unrated.is_empty()).then(|| handle.to_owned()))
    else {
        return Err(ApiError::new(
            ErrorCode::PlayerNotFound,
            format!("no player {handle:?}"),
        ));
    };
    let standings = player_standings(&client, handle)
        .await?
        .into_iter()
        .map(|s| {
            let points = points_of(s.points_scaled);
            let leads = s.leader.as_deref() == Some(handle);
            let played: Vec<&HistoryRow> = history
                .iter()
                .filter(|h| {
                    !h.replaced && h.ruleset == s.ruleset && (s.season == 0 || h.season == s.season)
                })
                .collect();
            let mut places = vec![0u32; 5];
            for h in &played {
                if let Some(place) = h.place.and_then(|p| usize::try_from(p).ok()) {
                    if place >= 1 {
                        if places.len() < place {
                            places.resize(place, 0);
                        }
                        places[place - 1] += 1;
                    }
                }
            }
            let gains: Vec<f64> = played.iter().filter_map(|h| h.percent_gain_value).collect();
            PlayerStanding {
                ruleset: s.ruleset,
                season: (s.season != 0).then_some(s.season),
                points: points.to_f64(),
                points_exact: points.to_string(),
                title: Title::in_ladder(points, leads).name().to_owned(),
                position: s.points_position,
                games: s.games,
                wins: points_of(s.wins_scaled).to_f64(),
                wins_exact: points_of(s.wins_scaled).to_string(),
                places,
                average_percent_gain: (!gains.is_empty())
                    .then(|| gains.iter().sum::<f64>() / gains.len() as f64),
                rating: RatingView {
                    mu: s.mu,
                    sigma: s.sigma,
                    ordinal: Rating {
                        mu: s.mu,
                        sigma: s.sigma,
                    }
                    .ordinal(),
                },
            }
        })
        .collect();
    let games = history
        .into_iter()
        .map(|h| PlayerGame {
            game_id: h.game_id,
            ruleset: h.ruleset,
            tournament: h.tournament,
            power: h.power,
            result: if h.replaced { "replaced" } else { "played" }.to_owned(),
            place: h.place,
            tied_with: h.tied_with,
            points: points_of(h.points_scaled).to_f64(),
            points_exact: points_of(h.points_scaled).to_string(),
            percent_gain: h.percent_gain_value,
            percent_gain_exact: h.percent_gain,
            ended_at: h.ended_at,
        })
        .collect();
    let rating_history = rating_history(&client, handle)
        .await?
        .into_iter()
        .map(|step| RatingStepView {
            ruleset: step.ruleset,
            league_game: step.seq,
            mu: step.mu,
            sigma: step.sigma,
            ordinal: Rating {
                mu: step.mu,
                sigma: step.sigma,
            }
            .ordinal(),
        })
        .collect();
    let unrated_games = unrated
        .into_iter()
        .map(|g| UnratedGame {
            status_words: GameStatus::describe_stored(&g.status).to_owned(),
            game_id: g.game_id,
            ruleset: g.ruleset,
            tournament: g.tournament,
            status: g.status,
            ended_at: g.updated_at,
        })
        .collect();
    Ok(PlayerView {
        handle: handle.to_owned(),
        display_name,
        standings,
        games,
        unrated_games,
        rating_history,
    })
}

/// Refuses (404 `player-not-found`) a handle no player registered.
pub(crate) async fn require_registered(state: &AppState, player: &str) -> Result<(), ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let stream = StreamId::of(StreamCategory::Player, player)
        .map_err(|e| ApiError::malformed(format!("player: {e}")))?;
    if stream_head(&client, &stream).await?.is_none() {
        return Err(ApiError::new(
            ErrorCode::PlayerNotFound,
            format!("{player} is not a registered player: register with POST /v1/players"),
        ));
    }
    Ok(())
}

/// Which page of a ladder.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct LeaderboardParams {
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
pub(crate) struct LeaderboardRow {
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
pub(crate) struct LeaderboardPage {
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

/// A ladder request, checked and pinned to a league state.
pub(crate) struct PinnedLadder<'a> {
    pub(crate) ladder: Ladder,
    pub(crate) ruleset: &'a str,
    pub(crate) season: i32,
    pub(crate) limit: u32,
    cursor: Option<LadderCursor>,
    pub(crate) as_of: i64,
}

/// Checks the parameters and pins the league state: the cursor's, or the scope's head.
pub(crate) async fn pin<'a>(
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
pub(crate) async fn leaderboard_page(
    state: &AppState,
    ladder_name: &str,
    params: &LeaderboardParams,
) -> Result<LeaderboardPage, ApiError> {
    let pinned = pin(state, ladder_name, params).await?;
    page_at(state, &pinned, ladder_name, params).await
}

/// The page a pinned request asks for, read as of its league state; the API calls it
/// only for a page its cache does not keep.
pub(crate) async fn page_at(
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
