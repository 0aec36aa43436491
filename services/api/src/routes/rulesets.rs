//! Rulesets over HTTP: the list, one in full, its document, the document format's JSON
//! Schema, and uploads (`POST /v1/rulesets`, admin or director), each checked whole and
//! every problem reported with its path.

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use utoipa::{PartialSchema, ToSchema};
use warlog_rules::document::RulesetDocument;
use warlog_store::StoreError;

use crate::auth::Caller;
use crate::body::JsonBody;
use crate::error::{corrupt, ApiError};
use crate::respond;
use crate::ruleset_upload::{RulesetPublishedView, RulesetUpload};
use crate::rulesets::{self as known, KnownRuleset};
use crate::views::{RulesetSummary, RulesetView};
use crate::write::{self, Expected, WriteRequest};
use crate::AppState;

resource! {
    rulesets: [],
    ruleset_schema: [],
    ruleset_detail: [RulesetNotFound],
    ruleset_document: [RulesetNotFound],
    publish_ruleset: keyed [Forbidden, VersionConflict, InvalidRuleset],
}

/// Every ruleset: built in, then uploaded (each at its latest revision).
///
/// Each with its powers, the documents it follows, the hash games created with it
/// record, and whether a game can be created with it now (and if not, why).
#[utoipa::path(get, path = "/v1/rulesets", tag = "rulesets",
    responses((status = 200, description = "The rulesets", body = Vec<RulesetSummary>)))]
#[get("/v1/rulesets")]
pub async fn rulesets(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let list: Vec<RulesetSummary> = known::list(&client)
        .await?
        .iter()
        .map(RulesetSummary::of)
        .collect();
    respond::json(&req, &list)
}

/// The JSON Schema (2020-12) of the ruleset document format.
///
/// The shape `POST /v1/rulesets` accepts, for an editor to check a document before it is
/// uploaded; the upload checks the document further, and names every problem by its path.
#[utoipa::path(get, path = "/v1/rulesets/schema", tag = "rulesets",
    responses((status = 200, description = "JSON Schema of a ruleset document", body = Object,
        content_type = "application/schema+json")))]
#[get("/v1/rulesets/schema")]
pub async fn ruleset_schema() -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok()
        .content_type("application/schema+json")
        .json(document_schema()?))
}

/// The document format's schema: utoipa's schemas of the document types, with their
/// references pointed at `$defs`.
pub fn document_schema() -> Result<serde_json::Value, ApiError> {
    let mut defs = Vec::new();
    <RulesetDocument as ToSchema>::schemas(&mut defs);
    let mut schema = serde_json::to_value(RulesetDocument::schema()).map_err(corrupt)?;
    let mut definitions = serde_json::Map::new();
    for (name, def) in defs {
        definitions.insert(name, serde_json::to_value(def).map_err(corrupt)?);
    }
    if let Some(object) = schema.as_object_mut() {
        object.insert(
            "$schema".into(),
            "https://json-schema.org/draft/2020-12/schema".into(),
        );
        object.insert("$id".into(), "urn:warlog:ruleset-document:1".into());
        object.insert("title".into(), "warlog ruleset document, format 1".into());
        object.insert("$defs".into(), definitions.into());
    }
    point_refs_at_defs(&mut schema);
    Ok(schema)
}

fn point_refs_at_defs(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(object) => {
            for (key, item) in object.iter_mut() {
                match (key.as_str(), item) {
                    ("$ref", serde_json::Value::String(target)) => {
                        *target = target.replace("#/components/schemas/", "#/$defs/");
                    }
                    (_, item) => point_refs_at_defs(item),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(point_refs_at_defs),
        _ => {}
    }
}

/// A ruleset in full.
///
/// Its units (with the ids stored in events), board, setup and points, built in or at
/// its latest uploaded revision.
#[utoipa::path(get, path = "/v1/rulesets/{id}", tag = "rulesets",
    params(("id" = String, Path, description = "e.g. `cutthroat`")),
    responses(
        (status = 200, description = "The ruleset", body = RulesetView),
    ))]
#[get("/v1/rulesets/{id}")]
pub async fn ruleset_detail(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let known = find(&state, &id).await?;
    respond::json(&req, &RulesetView::of(&known)?)
}

/// A ruleset's document, as uploaded or built in.
///
/// The document in the format `/v1/rulesets/schema` describes: download it, edit it and
/// upload it again.
#[utoipa::path(get, path = "/v1/rulesets/{id}/document", tag = "rulesets",
    params(("id" = String, Path, description = "e.g. `cutthroat`")),
    responses(
        (status = 200, description = "The document", body = RulesetDocument),
    ))]
#[get("/v1/rulesets/{id}/document")]
pub async fn ruleset_document(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    respond::json(&req, &find(&state, &id).await?.document)
}

async fn find(state: &AppState, id: &str) -> Result<KnownRuleset, ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    known::find(&client, id).await
}

/// Uploads a ruleset document, or a new revision of one (admin or director).
///
/// The document is checked whole, and every problem is named by its path (422). Games
/// already created keep the revision they were created with; the same document as the
/// latest revision writes nothing (200).
#[utoipa::path(post, path = "/v1/rulesets", tag = "rulesets",
    request_body = RulesetDocument,
    responses(
        (status = 201, description = "Published as a new revision", body = RulesetPublishedView,
            headers(("Location" = String, description = "The ruleset: `/v1/rulesets/{id}`"))),
        (status = 200, description = "The same document as the latest revision: nothing written", body = RulesetPublishedView,
            headers(("Location" = String, description = "The ruleset: `/v1/rulesets/{id}`"))),
    ),
    security(("bearer" = [])))]
#[post("/v1/rulesets")]
pub async fn publish_ruleset(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    body: JsonBody<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    let request = WriteRequest::of(&req, &caller, &body.raw, Expected::Unstated)?;
    let upload = RulesetUpload {
        document: &body.value,
    };
    let written = write::run(&state, &request, &upload).await?;
    let location = written
        .body
        .get("id")
        .and_then(|id| id.as_str())
        .map(|id| format!("/v1/rulesets/{id}"));
    Ok(written.respond(location))
}
