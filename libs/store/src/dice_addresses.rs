//! Registered dice addresses and the tables naming them (issue 52), kept by keyed hash
//! only: whether an address is confirmed, and which tables name it or a look-alike of it.

use deadpool_postgres::GenericClient;

use crate::StoreError;

/// The most tables one listing shows.
pub const MAX_TABLES_LISTED: i64 = 500;

/// A table naming an address, or one that looks like it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableNaming {
    /// The table's id (32 hex digits).
    pub table: String,
    /// Whether it names the address exactly (else an address that looks like it).
    pub exactly: bool,
    /// When the table first named it, in seconds since 1970.
    pub named_at: i64,
}

fn key_bytes(hex_key: &str) -> Result<Vec<u8>, StoreError> {
    hex::decode(hex_key)
        .ok()
        .filter(|k| k.len() == 16)
        .ok_or_else(|| StoreError::Corrupt(format!("\"{hex_key}\" is not an address key")))
}

/// Of `address_keys`, which are confirmed, in order.
pub async fn confirmed(
    client: &impl GenericClient,
    address_keys: &[&str],
) -> Result<Vec<bool>, StoreError> {
    let keys = address_keys
        .iter()
        .map(|k| key_bytes(k))
        .collect::<Result<Vec<_>, _>>()?;
    let rows = client
        .query(
            "SELECT address_key FROM dice_addresses WHERE address_key = ANY($1)",
            &[&keys],
        )
        .await?;
    let found: Vec<Vec<u8>> = rows.iter().map(|r| r.get(0)).collect();
    Ok(keys.iter().map(|k| found.contains(k)).collect())
}

/// Confirms the address whose key is `address_key`; whether it was new.
pub async fn confirm(client: &impl GenericClient, address_key: &str) -> Result<bool, StoreError> {
    let inserted = client
        .execute(
            "INSERT INTO dice_addresses (address_key) VALUES ($1) ON CONFLICT DO NOTHING",
            &[&key_bytes(address_key)?],
        )
        .await?;
    Ok(inserted == 1)
}

/// Ends the registration of the address keyed `address_key`; whether it was registered.
pub async fn forget(client: &impl GenericClient, address_key: &str) -> Result<bool, StoreError> {
    let deleted = client
        .execute(
            "DELETE FROM dice_addresses WHERE address_key = $1",
            &[&key_bytes(address_key)?],
        )
        .await?;
    Ok(deleted == 1)
}

/// Notes that `table` names the address keyed `address_key`, whose look-alike key is
/// `lookalike_key` (once; again is nothing). Call it in the transaction of the roll.
pub async fn name_table(
    client: &impl GenericClient,
    table: &str,
    address_key: &str,
    lookalike_key: &str,
) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO dice_table_names (lookalike_key, address_key, table_id) \
             VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &[&key_bytes(lookalike_key)?, &key_bytes(address_key)?, &table],
        )
        .await?;
    Ok(())
}

/// The tables naming the address keyed `address_key` or one that looks like it
/// (`lookalike_key`), the most recently named first, at most [`MAX_TABLES_LISTED`]. A
/// look-alike confirmed by its owner is another person's mailbox: its tables are theirs,
/// and are not listed.
pub async fn tables_naming(
    client: &impl GenericClient,
    address_key: &str,
    lookalike_key: &str,
) -> Result<Vec<TableNaming>, StoreError> {
    let address = key_bytes(address_key)?;
    let rows = client
        .query(
            "SELECT table_id, bool_or(address_key = $2), \
                    extract(epoch FROM min(named_at))::bigint AS named \
             FROM dice_table_names n WHERE lookalike_key = $1 \
               AND (address_key = $2 OR NOT EXISTS \
                    (SELECT 1 FROM dice_addresses a WHERE a.address_key = n.address_key)) \
             GROUP BY table_id ORDER BY named DESC, table_id LIMIT $3",
            &[&key_bytes(lookalike_key)?, &address, &MAX_TABLES_LISTED],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| TableNaming {
            table: r.get(0),
            exactly: r.get(1),
            named_at: r.get(2),
        })
        .collect())
}

/// How many tables name an address that looks like the one keyed `address_key`
/// (`lookalike_key`) and that its own owner confirmed: another person's mailbox, whose
/// tables are not listed, only counted, so that a look-alike in use is known.
pub async fn tables_naming_confirmed_lookalikes(
    client: &impl GenericClient,
    address_key: &str,
    lookalike_key: &str,
) -> Result<i64, StoreError> {
    let row = client
        .query_one(
            "SELECT count(DISTINCT table_id) FROM dice_table_names n \
             WHERE lookalike_key = $1 AND address_key <> $2 \
               AND EXISTS (SELECT 1 FROM dice_addresses a WHERE a.address_key = n.address_key)",
            &[&key_bytes(lookalike_key)?, &key_bytes(address_key)?],
        )
        .await?;
    Ok(row.get(0))
}
