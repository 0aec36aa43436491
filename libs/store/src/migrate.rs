//! Numbered SQL migrations from `schema/`, compiled into the binary and applied at start-up
//! and by `warlog migrate`.

use tokio_postgres::Client;

use crate::StoreError;

mod embedded {
    refinery::embed_migrations!("../../schema");
}

/// Any fixed number works; it only has to be the same for every warlog process, so two of
/// them starting together apply the migrations one after the other.
const MIGRATION_LOCK: i64 = 0x7761_726c_6f67; // "warlog"

/// The first migration's checksum as databases made before its one comment was changed
/// recorded it: the comment cited a file outside the repository, and now cites
/// `docs/design.md`. Its statements are unchanged.
const V1_CHECKSUM_BEFORE_ITS_COMMENT: u64 = 2_942_637_973_760_330_086;

/// Applies every migration not yet applied, under an advisory lock. Returns the versions
/// applied by this call.
pub async fn migrate(client: &mut Client) -> Result<Vec<u32>, StoreError> {
    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    // The runner creates its history table "if not exists": on every start after the first,
    // PostgreSQL would answer with a NOTICE that says nothing to an operator.
    client
        .batch_execute("SET client_min_messages TO warning")
        .await?;
    restate_comment_only_change(client).await?;
    let result = embedded::migrations::runner()
        .set_abort_divergent(true)
        .run_async(client)
        .await;
    client.batch_execute("RESET client_min_messages").await?;
    client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
        .await?;
    let report = result.map_err(|e| StoreError::Migration(e.to_string()))?;
    Ok(report
        .applied_migrations()
        .iter()
        .map(|m| m.version())
        .collect())
}

/// A database that applied the first migration before its comment changed records the old
/// checksum; the runner would call that divergent. Only that exact old checksum is
/// replaced by the new one: any other difference still aborts.
async fn restate_comment_only_change(client: &Client) -> Result<(), StoreError> {
    let Some(first) = embedded::migrations::runner()
        .get_migrations()
        .iter()
        .find(|m| m.version() == 1)
        .map(|m| m.checksum())
    else {
        return Ok(());
    };
    let history = client
        .query_one(
            "SELECT to_regclass('refinery_schema_history') IS NOT NULL",
            &[],
        )
        .await?
        .get::<_, bool>(0);
    if history {
        client
            .execute(
                "UPDATE refinery_schema_history SET checksum = $1 \
                 WHERE version = 1 AND checksum = $2",
                &[
                    &first.to_string(),
                    &V1_CHECKSUM_BEFORE_ITS_COMMENT.to_string(),
                ],
            )
            .await?;
    }
    Ok(())
}

/// How far a database's schema is from this build's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaStatus {
    pub applied: Option<u32>,
    pub latest: u32,
}

impl SchemaStatus {
    pub fn is_current(&self) -> bool {
        self.applied == Some(self.latest)
    }
}

/// The schema version of the database behind `client`, for readiness checks.
pub async fn schema_status(client: &impl crate::GenericClient) -> Result<SchemaStatus, StoreError> {
    let latest = embedded::migrations::runner()
        .get_migrations()
        .iter()
        .map(|m| m.version())
        .max()
        .unwrap_or(0);
    let exists: bool = client
        .query_one(
            "SELECT to_regclass('refinery_schema_history') IS NOT NULL",
            &[],
        )
        .await?
        .get(0);
    let applied = if exists {
        let version: Option<i32> = client
            .query_one("SELECT max(version) FROM refinery_schema_history", &[])
            .await?
            .get(0);
        version.and_then(|v| u32::try_from(v).ok())
    } else {
        None
    };
    Ok(SchemaStatus { applied, latest })
}
