//! The OpenAPI document: the frame (info, tags, shared schemas), every resource's paths,
//! and the modifiers that add what every route of a kind shares (security, common answers,
//! response headers, named variants, the error list, unsigned bounds).

mod errors;

use utoipa::OpenApi;

use crate::error::{ErrorCode, ErrorList};
use crate::schema_names::NamedVariants;
use crate::{error, orders, respond, routes, unsigned_bounds, CONSISTENCY_TOKEN};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "warlog",
        license(name = "MIT OR Apache-2.0", identifier = "MIT OR Apache-2.0")
    ),
    // Each association runs its own service: paths are relative to where this document
    // was read from, so a client pointed at it finds the API there.
    servers((url = "/", description = "The service that serves this document")),
    components(schemas(error::Problem, orders::OrderInput, orders::RetreatInput, routes::games::VoidGame, routes::dice::RollRefused, routes::dice_marti::MartiRefusal)),
    tags(
        (name = "league", description = "Players and the ladders: Cut-Throat points with titles, and the skill rating"),
        (name = "tournaments", description = "Tournaments for directors: entries and the waiting list, seated rounds, substitutes, standings, calendars"),
        (name = "rulesets", description = "Rulesets as data: the built-in ones, uploads checked whole with every problem named by its path, and the document format's JSON Schema"),
        (name = "games", description = "Games: orders checked by the rules engine, dice rolled by the server, battles, placements, audits"),
        (name = "events", description = "The event log: streams, heads and the global feed"),
        (name = "dice", description = "A dice server TripleA's client can talk to: each pair of addresses has a table whose every roll is signed, mailed to both and recomputable by anyone once its seed is revealed"),
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
            &errors::DeclaredResponses,
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
            let keyed = errors::is_keyed(operation);
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
                errors::add_problem(&mut operation.responses, code);
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
            let keyed = errors::is_keyed(operation);
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
