//! Rulesets as the service knows them: the built-in documents, and uploaded ones kept as a
//! `ruleset-<id>` stream with one `RulesetPublished` event per revision. A game created
//! with a ruleset plays its latest revision and records that document's hash (and, for an
//! upload, the document itself), so a later revision never changes it.

use warlog_events::{StreamCategory, StreamId};
use warlog_rules::document::{DocumentProblem, GameOptions, RulesetDocument};
use warlog_rules::ruleset::{Ruleset, RulesetError};
use warlog_store::catalog::list_streams;
use warlog_store::{read_stream, GenericClient};

use crate::error::{corrupt, ApiError, ErrorCode};

pub use warlog_events::ruleset::{RulesetPublished, PUBLISHED};

/// The ruleset a ladder shows, and a new tournament plays, when none is named.
pub const DEFAULT_RULESET: &str = "cutthroat";

/// An uploaded document, checked whole: every problem named by its path, a built-in's id
/// refused. With it, why the engine cannot play it yet, if it cannot (it is still kept).
pub fn upload(value: &serde_json::Value) -> Result<(RulesetDocument, Option<String>), ApiError> {
    let invalid = |problems| ApiError::invalid_document("the ruleset document", problems);
    let document = RulesetDocument::parse(value).map_err(invalid)?;
    if RulesetDocument::BUILTIN.contains(&document.id.as_str()) {
        return Err(invalid(vec![DocumentProblem {
            path: "/id".into(),
            message: format!(
                "{} is built in; an upload takes an id of its own",
                document.id
            ),
        }]));
    }
    let not_playable = match Ruleset::uploaded(&document, &Default::default()) {
        Ok(_) => None,
        Err(RulesetError::Invalid(problems)) => return Err(invalid(problems)),
        // Checked documents build; anything left is the board or setup data itself.
        Err(RulesetError::Data(message)) => {
            return Err(invalid(vec![DocumentProblem {
                path: String::new(),
                message,
            }]))
        }
        Err(other) => Some(other.to_string()),
    };
    Ok((document, not_playable))
}

/// The latest revision of an uploaded ruleset; none for a ruleset never uploaded.
pub async fn latest_revision(
    client: &impl GenericClient,
    id: &str,
) -> Result<Option<warlog_events::ruleset::LatestRevision>, ApiError> {
    match find(client, id).await {
        Ok(KnownRuleset {
            revision: Some(revision),
            hash,
            ..
        }) => Ok(Some(warlog_events::ruleset::LatestRevision {
            revision,
            hash,
        })),
        Ok(_) => Ok(None),
        Err(e) if e.code == ErrorCode::RulesetNotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// A ruleset document and where it comes from.
#[derive(Debug, Clone)]
pub struct KnownRuleset {
    pub document: RulesetDocument,
    pub hash: String,
    /// The upload's revision (stream version); `None` for a built-in.
    pub revision: Option<u64>,
}

impl KnownRuleset {
    fn builtin(id: &str) -> Result<KnownRuleset, ApiError> {
        let (document, hash) = RulesetDocument::builtin_hashed(id).map_err(corrupt)?;
        Ok(KnownRuleset {
            document,
            hash,
            revision: None,
        })
    }

    /// The engine's ruleset for a game with `options`, or why there is none.
    pub fn playable(&self, options: &GameOptions) -> Result<&'static Ruleset, ApiError> {
        let built = match self.revision {
            None => Ruleset::builtin_with(&self.document.id, options),
            Some(_) => Ruleset::uploaded(&self.document, options),
        };
        built.map_err(refusal)
    }
}

/// An error naming why a ruleset cannot be played.
pub fn refusal(error: RulesetError) -> ApiError {
    match error {
        RulesetError::Unknown(..) => ApiError::new(ErrorCode::RulesetNotFound, error.to_string()),
        RulesetError::BoardRequired(_) => {
            ApiError::new(ErrorCode::BoardRequired, error.to_string())
        }
        RulesetError::NotPlayable { .. } => {
            ApiError::new(ErrorCode::RulesetNotPlayable, error.to_string())
        }
        RulesetError::Invalid(problems) => ApiError::invalid_document("options", problems),
        RulesetError::Data(_) => ApiError::new(ErrorCode::Internal, error.to_string()),
    }
}

/// The stream of an uploaded ruleset.
pub fn stream_of(id: &str) -> Result<StreamId, ApiError> {
    StreamId::of(StreamCategory::Ruleset, id)
        .map_err(|e| ApiError::new(ErrorCode::RulesetNotFound, e.to_string()))
}

/// A built-in ruleset, or the latest revision of an uploaded one.
pub async fn find(client: &impl GenericClient, id: &str) -> Result<KnownRuleset, ApiError> {
    if RulesetDocument::BUILTIN.contains(&id) {
        return KnownRuleset::builtin(id);
    }
    let not_found = || {
        ApiError::new(
            ErrorCode::RulesetNotFound,
            format!(
                "no ruleset {id:?}; built in: {}, or one uploaded with POST /v1/rulesets",
                RulesetDocument::BUILTIN.join(", ")
            ),
        )
    };
    let stream = stream_of(id).map_err(|_| not_found())?;
    latest(client, &stream).await?.ok_or_else(not_found)
}

/// The latest revision in a ruleset stream.
async fn latest(
    client: &impl GenericClient,
    stream: &StreamId,
) -> Result<Option<KnownRuleset>, ApiError> {
    let Some(head) = warlog_store::stream_head(client, stream).await? else {
        return Ok(None);
    };
    let events = read_stream(client, stream, head.version, 1).await?;
    let Some(event) = events.last() else {
        return Ok(None);
    };
    let published: RulesetPublished =
        serde_json::from_value(event.payload.clone()).map_err(corrupt)?;
    Ok(Some(KnownRuleset {
        hash: published.hash,
        document: published.document,
        revision: Some(event.stream_version),
    }))
}

/// Every ruleset: the built-in ones, then the uploaded ones by id (their latest revision).
pub async fn list(client: &impl GenericClient) -> Result<Vec<KnownRuleset>, ApiError> {
    let mut known = RulesetDocument::BUILTIN
        .iter()
        .map(|id| KnownRuleset::builtin(id))
        .collect::<Result<Vec<_>, ApiError>>()?;
    let mut after: Option<StreamId> = None;
    loop {
        let page = list_streams(client, Some(StreamCategory::Ruleset), after.as_ref(), 500).await?;
        for summary in &page {
            let stream = StreamId::try_from(summary.stream_id.as_str()).map_err(corrupt)?;
            if let Some(ruleset) = latest(client, &stream).await? {
                known.push(ruleset);
            }
            after = Some(stream);
        }
        if page.len() < 500 {
            return Ok(known);
        }
    }
}
