//! Bearer tokens, kept as their SHA-256 hashes.

use deadpool_postgres::GenericClient;

use crate::StoreError;

/// A bearer token's holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenHolder {
    pub name: String,
    pub role: String,
}

/// A live token already holds the name asked for: its id (as `warlog token list` shows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameTaken {
    pub id: String,
}

/// Stores a new token's hash, unless a live token already has `name` (names of live tokens
/// are unique: the record names a sender by role and name, and rights follow it). An
/// expired token of that name is retired first, marked revoked at its expiry.
pub async fn create_token(
    client: &impl GenericClient,
    token_hash: &[u8; 32],
    name: &str,
    role: &str,
    expires_in_days: Option<u32>,
) -> Result<Result<(), NameTaken>, StoreError> {
    let days = expires_in_days
        .map(i32::try_from)
        .transpose()
        .unwrap_or(Some(i32::MAX));
    client
        .execute(
            "UPDATE api_tokens SET revoked_at = expires_at \
              WHERE name = $1 AND revoked_at IS NULL AND expires_at <= now()",
            &[&name],
        )
        .await?;
    let inserted = client
        .execute(
            "INSERT INTO api_tokens (token_hash, name, role, expires_at) \
             VALUES ($1, $2, $3, now() + make_interval(days => $4))",
            &[&token_hash.as_slice(), &name, &role, &days],
        )
        .await;
    match inserted {
        Ok(_) => Ok(Ok(())),
        Err(e) if e.as_db_error().and_then(|d| d.constraint()) == Some("api_tokens_live_name") => {
            let id: String = client
                .query_one(
                    "SELECT left(encode(token_hash, 'hex'), 12) FROM api_tokens \
                      WHERE name = $1 AND revoked_at IS NULL",
                    &[&name],
                )
                .await?
                .get(0);
            Ok(Err(NameTaken { id }))
        }
        Err(e) => Err(e.into()),
    }
}

/// A token as an administrator sees it: never the token, only its id (the first twelve
/// hex digits of its hash), holder, role and dates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRow {
    pub id: String,
    pub name: String,
    pub role: String,
    pub created_at: String,
    pub expires_at: Option<String>,
    pub revoked_at: Option<String>,
}

/// Every token, oldest first.
pub async fn list_tokens(client: &impl GenericClient) -> Result<Vec<TokenRow>, StoreError> {
    let format = "YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"";
    Ok(client
        .query(
            &format!(
                "SELECT left(encode(token_hash, 'hex'), 12), name, role, \
                        to_char(created_at AT TIME ZONE 'UTC', '{format}'), \
                        to_char(expires_at AT TIME ZONE 'UTC', '{format}'), \
                        to_char(revoked_at AT TIME ZONE 'UTC', '{format}') \
                   FROM api_tokens ORDER BY created_at, token_hash"
            ),
            &[],
        )
        .await?
        .iter()
        .map(|r| TokenRow {
            id: r.get(0),
            name: r.get(1),
            role: r.get(2),
            created_at: r.get(3),
            expires_at: r.get(4),
            revoked_at: r.get(5),
        })
        .collect())
}

/// Revokes the one live token whose id starts with `id` (at least 6 hex digits); how
/// many matched (the caller refuses anything but one).
pub async fn revoke_token(client: &impl GenericClient, id: &str) -> Result<u64, StoreError> {
    let matching: i64 = client
        .query_one(
            "SELECT count(*) FROM api_tokens \
              WHERE encode(token_hash, 'hex') LIKE $1 || '%' AND revoked_at IS NULL",
            &[&id],
        )
        .await?
        .get(0);
    if matching != 1 {
        return Ok(u64::try_from(matching).unwrap_or(0));
    }
    Ok(client
        .execute(
            "UPDATE api_tokens SET revoked_at = now() \
              WHERE encode(token_hash, 'hex') LIKE $1 || '%' AND revoked_at IS NULL",
            &[&id],
        )
        .await?)
}

/// Who holds the token with this hash, unless it is unknown, revoked or expired.
pub async fn find_token(
    client: &impl GenericClient,
    token_hash: &[u8; 32],
) -> Result<Option<TokenHolder>, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT name, role FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL \
               AND (expires_at IS NULL OR expires_at > now())",
        )
        .await?;
    Ok(client
        .query_opt(&statement, &[&token_hash.as_slice()])
        .await?
        .map(|row| TokenHolder {
            name: row.get(0),
            role: row.get(1),
        }))
}
