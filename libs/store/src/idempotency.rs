//! Idempotent writes: the first answer to a request made with an idempotency key, kept
//! in the transaction of its events, so a retry gets it again and appends nothing.

use deadpool_postgres::GenericClient;

use crate::StoreError;

/// The first answer to a request made with an idempotency key.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedResponse {
    pub fingerprint: Vec<u8>,
    pub status: u16,
    pub body: serde_json::Value,
}

pub async fn recorded_response(
    client: &impl GenericClient,
    key: &str,
) -> Result<Option<RecordedResponse>, StoreError> {
    let statement = client
        .prepare_cached("SELECT fingerprint, status, body FROM request_responses WHERE key = $1")
        .await?;
    Ok(client
        .query_opt(&statement, &[&key])
        .await?
        .map(|row| RecordedResponse {
            fingerprint: row.get(0),
            status: u16::try_from(row.get::<_, i32>(1)).unwrap_or(500),
            body: row.get(2),
        }))
}

/// Records the answer to a keyed request, in the transaction of its events. A concurrent
/// request with the same key fails here (unique violation) and its events roll back.
pub async fn record_response(
    client: &impl GenericClient,
    key: &str,
    fingerprint: &[u8; 32],
    status: u16,
    body: &serde_json::Value,
) -> Result<(), StoreError> {
    let statement = client
        .prepare_cached(
            "INSERT INTO request_responses (key, fingerprint, status, body) VALUES ($1, $2, $3, $4)",
        )
        .await?;
    client
        .execute(
            &statement,
            &[&key, &fingerprint.as_slice(), &i32::from(status), body],
        )
        .await
        .map_err(|e| match e.as_db_error().and_then(|d| d.constraint()) {
            Some("request_responses_pkey") => StoreError::IdempotencyRace,
            _ => StoreError::Database(e),
        })?;
    Ok(())
}
