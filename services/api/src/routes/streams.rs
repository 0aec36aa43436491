//! Reading the event log: a stream's events and head, the global feed, and the catalogue
//! of streams.

use actix_web::{get, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use warlog_events::{RecordedEvent, StreamCategory, StreamId};
use warlog_store::catalog::{list_streams, StreamSummary};
use warlog_store::{FeedPosition, StoreError};

use crate::cursor::FeedCursor;
use crate::error::{ApiError, ErrorCode};
use crate::query::{PageLimit, ValidQuery};
use crate::respond::{self, Format};
use crate::views::EventView;
use crate::AppState;

resource! {
    list: [InvalidStreamId],
    stream_events: [InvalidStreamId, StreamNotFound],
    stream_head: [InvalidStreamId, StreamNotFound],
    global_feed: [InvalidCursor],
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamEventsQuery {
    /// First stream version to return (default 1).
    #[param(minimum = 1)]
    pub from: Option<u64>,
    /// Page size, 1 to 200 (default 100).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<PageLimit>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct StreamEventsPage {
    pub stream_id: String,
    /// The stream's version when the page was read.
    pub version: u64,
    pub events: Vec<EventView>,
    /// The next page, if there is more.
    pub next: Option<String>,
}

/// A stream's events in order.
///
/// JSON pages, or NDJSON with `Accept: application/x-ndjson`, from version `from`
/// (default 1), up to `limit` events (default 100); `next`, and the `Link` header, name
/// the page after. NDJSON without `limit` is an export: every event from `from` to the
/// head, in one response, as `warlog audit` reads it.
#[utoipa::path(get, path = "/v1/streams/{stream}/events", tag = "events",
    params(("stream" = String, Path, description = "`league`, `game-<id>`, `tournament-<id>` or `player-<id>`"), StreamEventsQuery),
    responses(
        (status = 200, description = "A page of the stream", body = StreamEventsPage,
            content((StreamEventsPage = "application/json"), (EventView = "application/x-ndjson"))),
    ))]
#[get("/v1/streams/{stream}/events")]
pub async fn stream_events(
    req: HttpRequest,
    state: web::Data<AppState>,
    stream: web::Path<String>,
    query: ValidQuery<StreamEventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let format = respond::negotiate(&req, &[Format::Json, Format::Ndjson])?;
    let stream = parse_stream(stream.into_inner())?;
    let from = first_version(query.from)?;
    let limit = query.limit.unwrap_or(PageLimit::DEFAULT);
    let head = state
        .store
        .stream_head(&stream)
        .await?
        .ok_or_else(|| not_found(&stream))?;
    if format == Format::Ndjson && query.limit.is_none() {
        // An export: the whole stream up to the head read above, for `warlog audit`.
        return Ok(export(&req, &state, stream, from, head));
    }
    let events = state.store.read_stream(&stream, from, limit.get()).await?;
    let next = next_page(&stream, &events, head.version, limit);
    let events = views_of(events);
    match format {
        Format::Ndjson => respond::ndjson(&req, &events, next.as_deref()),
        // JSON: the only other representation offered here.
        Format::Json | Format::Csv => respond::json_page(
            &req,
            &StreamEventsPage {
                stream_id: stream.into(),
                version: head.version,
                events,
                next,
            },
        ),
    }
}

/// The first version a page starts at: 1 unless asked; versions start at 1.
fn first_version(from: Option<u64>) -> Result<u64, ApiError> {
    match from {
        Some(0) => Err(ApiError::malformed(
            "query parameter `from`: stream versions start at 1, so from is 1 or more",
        )),
        from => Ok(from.unwrap_or(1)),
    }
}

/// The link to the page after `events`, while the stream goes on past them.
fn next_page(
    stream: &StreamId,
    events: &[RecordedEvent],
    head: u64,
    limit: PageLimit,
) -> Option<String> {
    events
        .last()
        .filter(|last| last.stream_version < head)
        .map(|last| {
            format!(
                "/v1/streams/{stream}/events?from={}&limit={}",
                last.stream_version + 1,
                limit.get()
            )
        })
}

/// Events an export reads and sends at a time.
const EXPORT_PAGE: u32 = 1000;

/// `stream`'s events from `from` to `head`, as NDJSON, read and sent a page at a time, so
/// that no export (a dice table may hold many thousands of rolls) is held whole in memory.
/// Its tag is the head's: the same events, the same bytes.
fn export(
    req: &HttpRequest,
    state: &AppState,
    stream: StreamId,
    from: u64,
    head: warlog_events::ChainHead,
) -> HttpResponse {
    let etag = respond::etag_of(
        format!("export {stream} {from} {} {}", head.version, head.hash.to_hex()).as_bytes(),
    );
    let pool = state.store.pool().clone();
    let pages = futures_util::stream::unfold(from, move |next| {
        let (pool, stream) = (pool.clone(), stream.clone());
        async move {
            if next > head.version {
                return None;
            }
            let page = async {
                let client = pool.get().await.map_err(StoreError::from)?;
                let events = warlog_store::read_stream(&client, &stream, next, EXPORT_PAGE).await?;
                let mut bytes = Vec::with_capacity(events.len() * 256);
                let mut last = head.version;
                for event in events.into_iter().take_while(|e| e.stream_version <= head.version) {
                    last = event.stream_version;
                    serde_json::to_writer(&mut bytes, &EventView::from(event))
                        .map_err(crate::error::corrupt)?;
                    bytes.push(b'\n');
                }
                Ok::<_, ApiError>((actix_web::web::Bytes::from(bytes), last + 1))
            };
            Some(match page.await {
                Ok((bytes, after)) => (Ok(bytes), after),
                // An error ends the stream (the client sees it cut short).
                Err(error) => (Err(error), u64::MAX),
            })
        }
    });
    respond::streamed(req, respond::NDJSON, etag, pages)
}

fn views_of(events: Vec<RecordedEvent>) -> Vec<EventView> {
    events.into_iter().map(EventView::from).collect()
}

#[derive(Debug, Serialize, ToSchema)]
pub struct StreamHeadView {
    pub stream_id: String,
    /// The number of events in the stream.
    pub version: u64,
    /// The hash of the last event: hold on to it, and later check that the log only grew.
    pub head_hash: String,
}

/// A stream's version and head hash.
///
/// The number of events in the stream and the hash of the last one: hold on to the hash,
/// and later check that the log only grew (the stream's events up to that version still
/// end in it).
#[utoipa::path(get, path = "/v1/streams/{stream}/head", tag = "events",
    params(("stream" = String, Path, description = "Stream id")),
    responses(
        (status = 200, description = "The stream's head", body = StreamHeadView),
    ))]
#[get("/v1/streams/{stream}/head")]
pub async fn stream_head(
    req: HttpRequest,
    state: web::Data<AppState>,
    stream: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let stream = parse_stream(stream.into_inner())?;
    let head = state
        .store
        .stream_head(&stream)
        .await?
        .ok_or_else(|| not_found(&stream))?;
    respond::json(
        &req,
        &StreamHeadView {
            stream_id: stream.into(),
            version: head.version,
            head_hash: head.hash.to_hex(),
        },
    )
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FeedQuery {
    /// The `cursor` of the previous page; absent to start at the beginning.
    pub after: Option<String>,
    /// Page size, 1 to 200 (default 100).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<PageLimit>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct FeedPage {
    pub events: Vec<EventView>,
    /// Where this page ends: pass it as `after` to continue.
    pub cursor: String,
    /// The next page (may be empty until more events commit).
    pub next: String,
    /// True when this page is shorter than the limit: the reader has every event that can
    /// be read now (the same is in the `Feed-Caught-Up` header). A "follow `next` until
    /// caught up" loop stops here, and a follower polls `next` again later.
    pub caught_up: bool,
}

/// The header that says whether a feed page reached the end of what can be read now
/// (`Feed-Caught-Up`; header names are compared without case).
pub const FEED_CAUGHT_UP_HEADER: &str = "feed-caught-up";

/// The global feed of all events, in an order that never skips a late commit.
///
/// A page of up to `limit` events (default 100) after the cursor `after`; `next`, and the
/// `Link` header, always name the page after it, which is empty until more events commit.
/// `caught_up` (and the `Feed-Caught-Up` header) says the page reached the end of what
/// can be read now. JSON pages, or NDJSON with `Accept: application/x-ndjson`.
#[utoipa::path(get, path = "/v1/events", tag = "events",
    params(FeedQuery),
    responses(
        (status = 200, description = "A page of the global feed", body = FeedPage,
            content((FeedPage = "application/json"), (EventView = "application/x-ndjson")),
            headers(("Feed-Caught-Up" = bool, description = "true when the page reached the end of what can be read now"))),
    ))]
#[get("/v1/events")]
pub async fn global_feed(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: ValidQuery<FeedQuery>,
) -> Result<HttpResponse, ApiError> {
    let format = respond::negotiate(&req, &[Format::Json, Format::Ndjson])?;
    let after = match &query.after {
        Some(raw) => {
            raw.parse::<FeedCursor>()
                .map_err(|e| ApiError::new(ErrorCode::InvalidCursor, e))?
                .0
        }
        None => FeedPosition::START,
    };
    let limit = query.limit.unwrap_or(PageLimit::DEFAULT);
    let events = state.store.read_all(after, limit.get()).await?;
    let caught_up = events.len() < limit.get() as usize;
    let cursor = FeedCursor(events.last().map(FeedPosition::after).unwrap_or(after)).to_string();
    let next = format!("/v1/events?after={cursor}&limit={}", limit.get());
    let events: Vec<EventView> = events.into_iter().map(EventView::from).collect();
    let mut response = match format {
        Format::Ndjson => respond::ndjson(&req, &events, Some(&next))?,
        // JSON: the only other representation offered here.
        Format::Json | Format::Csv => respond::json_page(
            &req,
            &FeedPage {
                events,
                cursor,
                next,
                caught_up,
            },
        )?,
    };
    response.headers_mut().insert(
        actix_web::http::header::HeaderName::from_static(FEED_CAUGHT_UP_HEADER),
        actix_web::http::header::HeaderValue::from_static(if caught_up { "true" } else { "false" }),
    );
    Ok(response)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamListQuery {
    /// Only streams of this category: game, tournament, player, ruleset, dice, league.
    #[param(value_type = Option<String>)]
    pub category: Option<StreamCategory>,
    /// The last stream id of the previous page.
    pub after: Option<String>,
    /// Page size, 1 to 200 (default 100).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<PageLimit>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct StreamList {
    #[schema(value_type = Vec<Object>)]
    pub streams: Vec<StreamSummary>,
    pub next: Option<String>,
}

/// The catalogue of streams (a read model: it may trail the log by a moment).
///
/// Every stream in id order, or only those of one `category`: game, tournament, player
/// or league. A page holds up to `limit` streams (default 100); `next`, and the `Link`
/// header, name the page after it, which starts after the last stream id.
#[utoipa::path(get, path = "/v1/streams", tag = "events",
    params(StreamListQuery),
    responses(
        (status = 200, description = "A page of the stream catalogue", body = StreamList),
    ))]
#[get("/v1/streams")]
pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: ValidQuery<StreamListQuery>,
) -> Result<HttpResponse, ApiError> {
    let after = query.after.clone().map(parse_stream).transpose()?;
    let limit = query.limit.unwrap_or(PageLimit::DEFAULT);
    let client = state
        .store
        .pool()
        .get()
        .await
        .map_err(warlog_store::StoreError::from)?;
    let streams = list_streams(&client, query.category, after.as_ref(), limit.get()).await?;
    let next = (streams.len() == limit.get() as usize)
        .then(|| streams.last())
        .flatten()
        .map(|last| {
            let category = query
                .category
                .map(|c| format!("category={}&", c.as_str()))
                .unwrap_or_default();
            format!(
                "/v1/streams?{category}after={}&limit={}",
                last.stream_id,
                limit.get()
            )
        });
    respond::json_page(&req, &StreamList { streams, next })
}

respond::pages!(StreamEventsPage, StreamList);

/// The feed always names a next page: more events may commit after any.
impl respond::Page for FeedPage {
    fn next(&self) -> Option<&str> {
        Some(&self.next)
    }
}

fn parse_stream(raw: String) -> Result<StreamId, ApiError> {
    StreamId::try_from(raw).map_err(|e| ApiError::new(ErrorCode::InvalidStreamId, e.to_string()))
}

fn not_found(stream: &StreamId) -> ApiError {
    ApiError::new(
        ErrorCode::StreamNotFound,
        format!("stream {stream} has no events"),
    )
}
