//! warlog's HTTP API: thin actix-web handlers (parse, call the store or the domain,
//! render), RFC 9457 problem documents for every error, Prometheus metrics, and the
//! OpenAPI document generated from the handlers.

pub mod assets;
pub mod audit_cache;
pub mod auth;
pub mod body;
pub mod charts;
pub mod conditional;
pub mod cors;
pub mod cursor;
pub mod error;
pub mod games;
pub mod input_guard;
pub mod ladder_cache;
pub mod mail;
pub mod map;
pub mod metrics;
pub mod networks;
pub mod openapi_errors;
pub mod orders;
pub mod page_cache;
pub mod pages;
pub mod players;
pub mod public_url;
pub mod query;
pub mod rate_limit;
pub mod respond;
pub mod retry;
mod route_table;
pub mod routes;
pub mod ruleset_upload;
pub mod rulesets;
pub mod schema_names;
pub mod security;
pub mod text_measure;
pub mod token_cache;
pub mod tournaments;
pub mod turns;
mod unsigned_bounds;
pub mod views;
pub mod webhooks;
pub mod write;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpRequest, HttpResponse};
use prometheus::Registry;
use utoipa::OpenApi;
use warlog_store::{EventStore, Pool, StoreMetrics};

use crate::error::{ApiError, ErrorCode, ErrorList};
use crate::metrics::HttpMetrics;
use crate::schema_names::NamedVariants;
pub use route_table::{methods_at, needs_token};

/// What every handler can reach.
#[derive(Debug, Clone)]
pub struct AppState {
    pub store: EventStore,
    pub registry: Registry,
    /// Folded games, so a command reads only the events since the last one.
    pub games: std::sync::Arc<games::GameCache>,
    /// What time it is: the system's, or a test's.
    pub clock: Clock,
    /// Origins whose pages may read the public resources (`*` for any).
    pub cors_origins: std::sync::Arc<Vec<String>>,
    /// Rendered leaderboard pages and recently read ladder heads.
    pub ladders: std::sync::Arc<ladder_cache::LadderCache>,
    /// Games' audits by version.
    pub audits: std::sync::Arc<audit_cache::AuditCache>,
    /// Games' rendered pages and boards by version.
    pub pages: std::sync::Arc<page_cache::PageCache>,
    /// Where the service is reached from outside, for links in documents that leave the
    /// site (calendars, CSV, `Location`); none: such documents carry no link.
    pub public_url: Option<public_url::PublicUrl>,
    /// Per-client limits on public endpoints that compute.
    pub rate_limits: std::sync::Arc<rate_limit::RateLimits>,
    /// A streaming standby for board views (`--read-database-url`); writes and the reads
    /// that must see them use the primary.
    pub reads: Option<warlog_store::Pool>,
    /// Who the bearer tokens seen lately belong to (each request still checks its token).
    pub tokens: std::sync::Arc<token_cache::TokenCache>,
    /// Where webhooks may be sent, the key their secrets are sealed with, the cap.
    pub webhooks: std::sync::Arc<webhooks::WebhookPolicy>,
}

/// Where the service reads the time: the system clock, or one a test sets and advances
/// (the 3-day inactivity rule is tested without waiting 3 days).
#[derive(Debug, Clone, Default)]
pub struct Clock(Option<std::sync::Arc<std::sync::Mutex<time::OffsetDateTime>>>);

impl Clock {
    pub fn system() -> Self {
        Clock(None)
    }

    pub fn fixed(at: time::OffsetDateTime) -> Self {
        Clock(Some(std::sync::Arc::new(std::sync::Mutex::new(at))))
    }

    pub fn now(&self) -> time::OffsetDateTime {
        match &self.0 {
            None => time::OffsetDateTime::now_utc(),
            Some(at) => *at.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }

    /// Moves a fixed clock on (a system clock moves by itself).
    pub fn advance(&self, by: time::Duration) {
        if let Some(at) = &self.0 {
            let mut at = at.lock().unwrap_or_else(|e| e.into_inner());
            *at += by;
        }
    }
}

/// Everything the service's metrics are registered in, built together so that they share
/// one registry.
#[derive(Debug, Clone)]
pub struct Telemetry {
    pub registry: Registry,
    pub store: StoreMetrics,
    pub http: HttpMetrics,
    pub webhooks: webhooks::WebhookMetrics,
}

impl Telemetry {
    pub fn new() -> prometheus::Result<Self> {
        let registry = Registry::new();
        metrics::register_process_and_build(&registry)?;
        let store = StoreMetrics::new(&registry)?;
        let http = HttpMetrics::new(&registry)?;
        let webhooks = webhooks::WebhookMetrics::new(&registry)?;
        Ok(Telemetry {
            registry,
            store,
            http,
            webhooks,
        })
    }
}

/// The header a write's answer carries and a later read may send back: the primary's WAL
/// position after the write committed.
pub const CONSISTENCY_TOKEN: &str = "Consistency-Token";

/// How long a read waits for the standby to replay a token before it goes to the primary.
const REPLICA_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

impl AppState {
    /// A connection for a read that may be served by the standby: the standby's, when
    /// there is one and it has replayed the request's consistency token (waiting a little
    /// for it); else the primary's.
    pub async fn reader(&self, req: &HttpRequest) -> Result<warlog_store::PooledClient, ApiError> {
        let token = req
            .headers()
            .get(CONSISTENCY_TOKEN)
            .map(|v| {
                v.to_str()
                    .ok()
                    .filter(|t| warlog_store::replica::is_lsn(t))
                    .map(str::to_owned)
                    .ok_or_else(|| {
                        ApiError::malformed(format!(
                            "{CONSISTENCY_TOKEN}: a token from a write's answer, like 0/16B3748"
                        ))
                    })
            })
            .transpose()?;
        let primary = || async {
            Ok::<_, ApiError>(
                self.store
                    .pool()
                    .get()
                    .await
                    .map_err(warlog_store::StoreError::from)?,
            )
        };
        let Some(reads) = &self.reads else {
            return primary().await;
        };
        let Ok(standby) = reads.get().await else {
            return primary().await;
        };
        let Some(token) = token else {
            return Ok(standby);
        };
        let started = std::time::Instant::now();
        loop {
            match warlog_store::replica::has_replayed(&standby, &token).await {
                Ok(true) => return Ok(standby),
                Ok(false) if started.elapsed() < REPLICA_WAIT => {
                    actix_web::rt::time::sleep(std::time::Duration::from_millis(20)).await;
                }
                _ => return primary().await,
            }
        }
    }

    pub fn new(store: EventStore, telemetry: &Telemetry) -> Self {
        AppState {
            store,
            registry: telemetry.registry.clone(),
            games: Default::default(),
            clock: Clock::system(),
            cors_origins: Default::default(),
            ladders: Default::default(),
            audits: Default::default(),
            pages: Default::default(),
            public_url: None,
            rate_limits: Default::default(),
            reads: None,
            tokens: Default::default(),
            webhooks: Default::default(),
        }
    }

    /// A state whose appends wake no one (projectors poll): for tests and tools.
    pub fn without_notifier(pool: Pool, telemetry: &Telemetry) -> Self {
        Self::new(EventStore::new(pool, telemetry.store.clone()), telemetry)
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "warlog",
        license(name = "MIT OR Apache-2.0", identifier = "MIT OR Apache-2.0")
    ),
    // Each association runs its own service: paths are relative to where this document
    // was read from, so a client pointed at it finds the API there.
    servers((url = "/", description = "The service that serves this document")),
    components(schemas(error::Problem, orders::OrderInput, orders::RetreatInput, routes::games::VoidGame)),
    tags(
        (name = "league", description = "Players and the ladders: Cut-Throat points with titles, and the skill rating"),
        (name = "tournaments", description = "Tournaments for directors: entries and the waiting list, seated rounds, substitutes, standings, calendars"),
        (name = "rulesets", description = "Rulesets as data: the built-in ones, uploads checked whole with every problem named by its path, and the document format's JSON Schema"),
        (name = "games", description = "Games: orders checked by the rules engine, dice rolled by the server, battles, placements, audits"),
        (name = "events", description = "The event log: streams, heads and the global feed"),
        (name = "webhooks", description = "Subscriptions for admins and directors: signed deliveries of games ended, rounds seated, tournaments finished and ladder changes, retried until accepted"),
        (name = "operations", description = "Health, readiness, metrics and this document"),
    )
)]
#[derive(Debug)]
struct Frame;

/// The OpenAPI document: the frame (info, tags, shared schemas), every resource's paths
/// (`routes::apis`, the same handlers `routes::configure` registers), then the modifiers
/// that add what every route of a kind shares.
#[derive(Debug)]
pub struct ApiDoc;

impl OpenApi for ApiDoc {
    fn openapi() -> utoipa::openapi::OpenApi {
        let mut document = Frame::openapi();
        // Markdown, which Redoc at /docs shows with its headings in the sidebar.
        document.info.description = Some(include_str!("introduction.md").to_owned());
        for part in routes::apis() {
            document.merge(part);
        }
        let modifiers: [&dyn utoipa::Modify; 7] = [
            &BearerAuth,
            &openapi_errors::DeclaredResponses,
            &CommonResponses,
            &ResponseHeaders,
            &NamedVariants,
            &ErrorList,
            &unsigned_bounds::UnsignedBounds,
        ];
        for modifier in modifiers {
            modifier.modify(&mut document);
        }
        document
    }
}

/// Declares the bearer-token scheme the writes use, and says outright (`security: []`)
/// that every operation which does not name it is public: a tool then need not guess
/// whether a missing requirement means "none" or "forgotten".
#[derive(Debug)]
struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        for (_, operation) in operations(openapi) {
            operation.security.get_or_insert_with(Vec::new);
        }
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("A token from `warlog token create`"))
                    .build(),
            ),
        );
    }
}

/// The answers every route of a kind can give, added to the codes its route declares
/// (`openapi_errors`), so that a generated client knows them all: any route may be refused
/// by the edge (`input_guard`: a path or query with a control character or not UTF-8) or
/// find the database unavailable (503); a secured one may be unauthenticated (401); one
/// with a body may send it malformed, too large, too slowly or not declared JSON; a keyed
/// one may send a malformed Idempotency-Key or one used for another request (422).
#[derive(Debug)]
struct CommonResponses;

impl utoipa::Modify for CommonResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::RefOr;
        for (_, operation) in operations(openapi) {
            let secured = operation.security.as_ref().is_some_and(|s| !s.is_empty());
            let has_body = operation.request_body.is_some();
            let keyed = openapi_errors::is_keyed(operation);
            // A consistency token is a pg_lsn.
            for param in operation.parameters.iter_mut().flatten() {
                if param.name == CONSISTENCY_TOKEN {
                    param.schema = Some(RefOr::T(consistency_token_schema()));
                }
            }
            // A resource offered as NDJSON or CSV besides JSON is negotiated
            // (`respond::negotiate`), and an `Accept` none of them matches is refused.
            let negotiated = operation.responses.responses.get("200").is_some_and(|ok| {
                matches!(ok, RefOr::T(ok) if ok.content.keys().any(|c| c == respond::NDJSON || c == respond::CSV))
            });
            let mut codes = vec![ErrorCode::MalformedRequest];
            if secured {
                codes.push(ErrorCode::Unauthorized);
            }
            if negotiated {
                codes.push(ErrorCode::NotAcceptable);
            }
            if has_body {
                codes.extend([
                    ErrorCode::UnsupportedMediaType,
                    ErrorCode::PayloadTooLarge,
                    ErrorCode::RequestTimeout,
                ]);
            }
            if keyed {
                codes.push(ErrorCode::IdempotencyKeyReused);
            }
            codes.push(ErrorCode::NotReady);
            for code in codes {
                openapi_errors::add_problem(&mut operation.responses, code);
            }
        }
    }
}

/// What a consistency token looks like: a pg_lsn.
fn consistency_token_schema() -> utoipa::openapi::Schema {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .pattern(Some("^[0-9A-F]{1,8}/[0-9A-F]{1,8}$"))
        .into()
}

/// Every operation of the document, with its method.
pub(crate) fn operations(
    openapi: &mut utoipa::openapi::OpenApi,
) -> impl Iterator<
    Item = (
        utoipa::openapi::HttpMethod,
        &mut utoipa::openapi::path::Operation,
    ),
> {
    use utoipa::openapi::HttpMethod;
    openapi.paths.paths.values_mut().flat_map(|item| {
        [
            (HttpMethod::Get, &mut item.get),
            (HttpMethod::Post, &mut item.post),
            (HttpMethod::Put, &mut item.put),
            (HttpMethod::Delete, &mut item.delete),
            (HttpMethod::Patch, &mut item.patch),
        ]
        .into_iter()
        .filter_map(|(method, operation)| operation.as_mut().map(|o| (method, o)))
    })
}

/// The headers answers carry, declared where a rule of the edge sends them (the rules
/// live in `respond`, `conditional`, `error` and `write`; a route's own headers, such as a
/// `Location`, are in its annotation):
///
/// - every GET's `200` carries an `ETag` (a handler's, or one the edge makes from the
///   body), and a GET whose `If-None-Match` names it is answered `304`;
/// - a paged list (one with a `limit`) names its next page in `Link`;
/// - `429` and `503` say when to try again (`Retry-After`), `401` how to authenticate
///   (`WWW-Authenticate`);
/// - a write (one that takes an `Idempotency-Key`) answers with its `Consistency-Token`,
///   `Idempotent-Replayed` on a replay, and an `ETag` when its answer names a version;
/// - a file (CSV, a calendar) is named by `Content-Disposition`.
#[derive(Debug)]
struct ResponseHeaders;

impl utoipa::Modify for ResponseHeaders {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::path::ParameterIn;
        use utoipa::openapi::schema::{Schema, Type};
        use utoipa::openapi::{HttpMethod, ObjectBuilder, RefOr, ResponseBuilder};
        // The answers that name a version: their ETag is it.
        let versioned: std::collections::BTreeSet<String> = openapi
            .components
            .iter()
            .flat_map(|c| &c.schemas)
            .filter(|(_, schema)| {
                matches!(schema, RefOr::T(Schema::Object(o))
                    if o.required.iter().any(|r| r == "version"))
            })
            .map(|(name, _)| format!("#/components/schemas/{name}"))
            .collect();
        let text = |description: &str| header(Type::String, description);
        for (method, operation) in operations(openapi) {
            let get = method == HttpMethod::Get;
            let paged = operation
                .parameters
                .iter()
                .flatten()
                .any(|p| p.name == "limit" && matches!(p.parameter_in, ParameterIn::Query));
            let keyed = openapi_errors::is_keyed(operation);
            let responses = &mut operation.responses.responses;
            if get {
                responses.entry("304".to_owned()).or_insert_with(|| {
                    RefOr::T(
                        ResponseBuilder::new()
                            .description("Not modified: the copy If-None-Match names is current")
                            .build(),
                    )
                });
            }
            for (status, response) in responses.iter_mut() {
                let RefOr::T(response) = response else {
                    continue;
                };
                let names_version = response.content.values().any(|c| {
                    matches!(&c.schema, Some(RefOr::Ref(r)) if versioned.contains(&r.ref_location))
                });
                let headers = &mut response.headers;
                let mut declare = |name: &str, header: utoipa::openapi::header::Header| {
                    headers.entry(name.to_owned()).or_insert(header);
                };
                let ok = status == "200";
                if get && (ok || status == "304") {
                    declare(
                        "ETag",
                        text("The representation's tag, for If-None-Match (weak when the answer is compressed)"),
                    );
                }
                if get && ok && paged {
                    declare(
                        "Link",
                        text("`<url>; rel=\"next\"`: the next page, when there is one"),
                    );
                }
                if status == "429" || status == "503" {
                    declare(
                        "Retry-After",
                        header(Type::Integer, "Seconds to wait before trying again"),
                    );
                }
                if status == "401" {
                    declare(
                        "WWW-Authenticate",
                        text("`Bearer realm=\"warlog\"`, with an RFC 6750 `error` when a token was sent and refused"),
                    );
                }
                if keyed && status.starts_with('2') {
                    declare(
                        CONSISTENCY_TOKEN,
                        utoipa::openapi::header::HeaderBuilder::new()
                            .schema(consistency_token_schema())
                            .description(Some(
                                "With a standby for reads: send it with a later read to see this write",
                            ))
                            .build(),
                    );
                    declare(
                        "Idempotent-Replayed",
                        utoipa::openapi::header::HeaderBuilder::new()
                            .schema(
                                ObjectBuilder::new()
                                    .schema_type(Type::String)
                                    .enum_values(Some(["true"])),
                            )
                            .description(Some(
                                "`true` when this is the answer first given to the same Idempotency-Key, sent again",
                            ))
                            .build(),
                    );
                    if names_version {
                        declare(
                            "ETag",
                            text("The stream's version after the write, quoted: send it back as If-Match"),
                        );
                    }
                }
                if response
                    .content
                    .keys()
                    .any(|c| c.starts_with(respond::CSV) || c.starts_with("text/calendar"))
                {
                    declare(
                        "Content-Disposition",
                        text(
                            "`attachment` with the file's name (only on a file: CSV or iCalendar)",
                        ),
                    );
                }
            }
        }
    }
}

/// A response header of `kind` with a description.
fn header(
    kind: utoipa::openapi::schema::Type,
    description: &str,
) -> utoipa::openapi::header::Header {
    utoipa::openapi::header::HeaderBuilder::new()
        .schema(utoipa::openapi::ObjectBuilder::new().schema_type(kind))
        .description(Some(description))
        .build()
}

/// The OpenAPI document as the golden file `openapi/warlog.openapi.json` holds it.
pub fn openapi_pretty_json() -> String {
    let mut json = ApiDoc::openapi()
        .to_pretty_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    json.push('\n');
    json
}

/// The whole application, ready for `HttpServer::new` or `actix_web::test::init_service`.
pub fn app(
    state: AppState,
    telemetry: &Telemetry,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    App::new()
        .app_data(web::Data::new(state))
        .app_data(web::Data::new(telemetry.http.clone()))
        .app_data(
            web::QueryConfig::default()
                .error_handler(|err, _| ApiError::malformed(format!("query string: {err}")).into()),
        )
        .app_data(
            web::PathConfig::default()
                .error_handler(|err, _| ApiError::malformed(format!("path: {err}")).into()),
        )
        .app_data(
            web::JsonConfig::default()
                .limit(256 * 1024)
                .error_handler(|err, _| ApiError::malformed(format!("JSON body: {err}")).into()),
        )
        .wrap(from_fn(auth::authenticate))
        .wrap(from_fn(input_guard::refuse_unreadable_input))
        .wrap(from_fn(cors::head_as_get))
        .wrap(from_fn(cors::cross_origin))
        .wrap(from_fn(conditional::tag_every_answer))
        .wrap(from_fn(security::headers))
        // gzip when the client asks (`Accept-Encoding`), for every body worth it; the
        // cost is measured in docs/benchmarks.md.
        .wrap(actix_web::middleware::Compress::default())
        .wrap(from_fn(conditional::weaken_compressed_tags))
        .wrap(from_fn(metrics::track))
        .configure(routes::configure)
        .service(pages::docs)
        .service(assets::redoc_script)
        .service(assets::stylesheet)
        .service(assets::icon)
        .service(pages::leaderboard)
        .service(pages::games)
        .service(pages::tournaments)
        .service(pages::players)
        .service(pages::odds_page)
        .service(pages::embedded_leaderboard)
        .service(pages::player)
        .service(pages::director_desk)
        .service(pages::tournament)
        .service(pages::turn_page)
        .service(pages::turn_form)
        .service(pages::game)
        .default_service(web::to(route_not_found))
}

async fn route_not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let allowed = methods_at(req.path());
    if !allowed.is_empty() {
        return Err(ApiError::method_not_allowed(
            format!(
                "{} is not answered at {}; {} is",
                req.method(),
                req.path(),
                allowed.join(", ")
            ),
            allowed.join(", "),
        ));
    }
    Err(ApiError::new(
        ErrorCode::RouteNotFound,
        format!("no resource at {} {}", req.method(), req.path()),
    ))
}
