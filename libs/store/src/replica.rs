//! Reads from a streaming standby with read-your-writes: a write's answer carries the
//! primary's WAL position after it committed (a consistency token); a read that brings it
//! back is served by the standby only once the standby has replayed that far.

use deadpool_postgres::GenericClient;

use crate::StoreError;

/// The primary's WAL position now, as `pg_lsn` text (`0/16B3748`): after a commit, at or
/// past that commit.
pub async fn current_lsn(client: &impl GenericClient) -> Result<String, StoreError> {
    Ok(client
        .query_one("SELECT pg_current_wal_lsn()::text", &[])
        .await?
        .get(0))
}

/// Whether this server has everything up to `lsn`: a standby that has replayed it, or a
/// primary (which has it all).
pub async fn has_replayed(client: &impl GenericClient, lsn: &str) -> Result<bool, StoreError> {
    Ok(client
        .query_one(
            "SELECT CASE WHEN pg_is_in_recovery() \
                         THEN coalesce(pg_last_wal_replay_lsn() >= $1::text::pg_lsn, false) \
                         ELSE true END",
            &[&lsn],
        )
        .await?
        .get(0))
}

/// A consistency token: a `pg_lsn` as PostgreSQL writes it (two hex numbers, `X/Y`).
pub fn is_lsn(token: &str) -> bool {
    let Some((high, low)) = token.split_once('/') else {
        return false;
    };
    [high, low]
        .iter()
        .all(|part| (1..=8).contains(&part.len()) && part.chars().all(|c| c.is_ascii_hexdigit()))
}
