//! A ruleset document uploaded through the one write path: checked whole, then put on the
//! record as a new revision, or nothing when it is the latest revision again.

use actix_web::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;
use warlog_events::ruleset::{may_publish, publish, Publication};
use warlog_store::{ExpectedVersion, PooledClient};

use crate::error::{ApiError, ErrorCode};
use crate::rulesets::{self as known, RulesetPublished};
use crate::write::{Decision, SeedDuty, StreamAppend, Write, WriteRequest};
use crate::AppState;

/// What an upload recorded.
#[derive(Debug, Serialize, ToSchema)]
pub struct RulesetPublishedView {
    pub id: String,
    /// 1 for the first upload of this id, then one more per revision.
    pub revision: u64,
    /// What games created with this revision record.
    pub hash: String,
    /// Whether a game can be created with it now (`board-required`, `ruleset-not-playable`
    /// otherwise, named in `not_playable`).
    pub playable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_playable: Option<String>,
}

/// A ruleset document as uploaded (JSON, not yet checked).
#[derive(Debug)]
pub struct RulesetUpload<'a> {
    pub document: &'a serde_json::Value,
}

/// What the decision reads: the document checked (with why it is not playable, if it is
/// not), and the latest revision of its id.
#[derive(Debug)]
pub struct Checked {
    document: warlog_rules::document::RulesetDocument,
    not_playable: Option<String>,
    latest: Option<warlog_events::ruleset::LatestRevision>,
}

impl Write for RulesetUpload<'_> {
    type Loaded = Checked;
    /// The answer, and the id (for a lost race's words).
    type Decided = RulesetPublishedView;

    /// Only an officer's upload is read; then the document is checked whole.
    async fn load(
        &self,
        _: &AppState,
        client: &PooledClient,
        request: &WriteRequest,
        _: bool,
    ) -> Result<Checked, ApiError> {
        may_publish(&request.caller.sender())?;
        let (document, not_playable) = known::upload(self.document)?;
        let latest = known::latest_revision(client, &document.id).await?;
        Ok(Checked {
            document,
            not_playable,
            latest,
        })
    }

    fn decide(
        &self,
        checked: Checked,
        request: &WriteRequest,
    ) -> Result<Decision<RulesetPublishedView>, ApiError> {
        let Checked {
            document,
            not_playable,
            latest,
        } = checked;
        let hash = document.hash();
        let view = |revision: u64| RulesetPublishedView {
            id: document.id.clone(),
            revision,
            hash: hash.clone(),
            playable: not_playable.is_none(),
            not_playable: not_playable.clone(),
        };
        match publish(&document, &hash, latest.as_ref()) {
            Publication::Unchanged { revision } => Ok(Decision {
                appends: Vec::new(),
                status: StatusCode::OK,
                decided: view(revision),
            }),
            Publication::Revision { after, event } => Ok(Decision {
                appends: vec![StreamAppend {
                    stream: known::stream_of(&document.id)?,
                    expected: after.map_or(ExpectedVersion::NoStream, ExpectedVersion::Exact),
                    events: request.encode_with(&[*event], RulesetPublished::encode)?,
                    seed: SeedDuty::None,
                    mails: Vec::new(),
                    private: Vec::new(),
                }],
                status: StatusCode::CREATED,
                decided: view(after.map_or(1, |a| a + 1)),
            }),
        }
    }

    fn moved_on(&self, _: u64) -> ApiError {
        let id = self
            .document
            .get("id")
            .and_then(|id| id.as_str())
            .unwrap_or("the ruleset");
        ApiError::new(
            ErrorCode::VersionConflict,
            format!("{id} was revised by another upload at the same time; upload again"),
        )
    }
}
