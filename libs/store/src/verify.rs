//! The whole log checked where it lies: every stream's chain recomputed from its genesis,
//! one stream at a time (memory stays bounded whatever the log's size), and the heads an
//! association published compared with what the database holds now. `warlog verify` and
//! `warlog heads` are built on this.

use deadpool_postgres::GenericClient;
use serde::{Deserialize, Serialize};
use warlog_events::StreamId;

use crate::events::verify_stream;
use crate::StoreError;

/// A stream's head as published: `{"stream": "game-1", "version": 12, "hash": "ab12..."}`,
/// one JSON object a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishedHead {
    pub stream: String,
    pub version: u64,
    pub hash: String,
}

/// What is wrong with one stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// The chain does not hold at some event.
    Broken(String),
    /// A published stream is not in the database.
    Missing,
    /// The stream is shorter than when its head was published.
    Shrunk { published: u64, found: u64 },
    /// The event at the published version is not the one published.
    Changed { version: u64 },
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mismatch::Broken(why) => write!(f, "its chain is broken: {why}"),
            Mismatch::Missing => f.write_str("published, but not in the database"),
            Mismatch::Shrunk { published, found } => write!(
                f,
                "published at version {published}, but the database holds only {found}"
            ),
            Mismatch::Changed { version } => write!(
                f,
                "the event at version {version} is not the one whose hash was published"
            ),
        }
    }
}

/// Stream ids after `after`, in order, at most `limit`.
pub async fn stream_ids_after(
    client: &impl GenericClient,
    after: &str,
    limit: u32,
) -> Result<Vec<StreamId>, StoreError> {
    let rows = client
        .query(
            "SELECT DISTINCT stream_id FROM events WHERE stream_id > $1 \
             ORDER BY stream_id LIMIT $2",
            &[&after, &i64::from(limit)],
        )
        .await?;
    rows.iter()
        .map(|r| {
            StreamId::try_from(r.get::<_, String>(0))
                .map_err(|e| StoreError::Corrupt(e.to_string()))
        })
        .collect()
}

/// The stored hash of `stream`'s event at `version` (hex), if it has one.
async fn hash_at(
    client: &impl GenericClient,
    stream: &str,
    version: u64,
) -> Result<Option<String>, StoreError> {
    let version = i64::try_from(version).unwrap_or(i64::MAX);
    Ok(client
        .query_opt(
            "SELECT encode(hash, 'hex') FROM events WHERE stream_id = $1 AND stream_version = $2",
            &[&stream, &version],
        )
        .await?
        .map(|r| r.get(0)))
}

/// Checks one stream: its whole chain, and against its published head if there is one.
/// The stream's head now, or what is wrong.
pub async fn check_stream(
    client: &impl GenericClient,
    stream: &StreamId,
    published: Option<&PublishedHead>,
) -> Result<Result<PublishedHead, Mismatch>, StoreError> {
    let head = match verify_stream(client, stream).await? {
        Ok(head) => head,
        Err(broken) => return Ok(Err(Mismatch::Broken(broken.to_string()))),
    };
    let now = PublishedHead {
        stream: stream.as_str().to_owned(),
        version: head.version,
        hash: head.hash.to_hex(),
    };
    let Some(published) = published else {
        return Ok(Ok(now));
    };
    if head.version == 0 {
        return Ok(Err(Mismatch::Missing));
    }
    if head.version < published.version {
        return Ok(Err(Mismatch::Shrunk {
            published: published.version,
            found: head.version,
        }));
    }
    // The chain was recomputed and holds, so the stored hash is the computed one.
    let at = hash_at(client, stream.as_str(), published.version).await?;
    if at.as_deref() != Some(published.hash.to_ascii_lowercase().as_str()) {
        return Ok(Err(Mismatch::Changed {
            version: published.version,
        }));
    }
    Ok(Ok(now))
}
