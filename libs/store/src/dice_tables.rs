//! Dice tables' secrets (issue 38): each epoch's seed, secret until revealed, and the
//! service's own keys, drawn once and shared by every replica.

use deadpool_postgres::GenericClient;
use warlog_events::StreamId;
use warlog_rules::dice::GameSeed;

use crate::StoreError;

/// The secret the table ids are keyed with.
pub const TABLE_KEY: &str = "dice-table-key";
/// The seed of the Ed25519 key rolls are signed with.
pub const SIGNING_SEED: &str = "dice-signing-seed";

/// The service's secret `name`: the one kept, or `drawn` kept now if there was none (the
/// first of several replicas starting at once wins, and all read its).
pub async fn service_secret(
    client: &impl GenericClient,
    name: &str,
    drawn: [u8; 32],
) -> Result<[u8; 32], StoreError> {
    client
        .execute(
            "INSERT INTO service_secrets (name, secret) VALUES ($1, $2) \
             ON CONFLICT (name) DO NOTHING",
            &[&name, &drawn.as_slice()],
        )
        .await?;
    let row = client
        .query_one(
            "SELECT secret FROM service_secrets WHERE name = $1",
            &[&name],
        )
        .await?;
    <[u8; 32]>::try_from(row.get::<_, &[u8]>(0))
        .map_err(|_| StoreError::Corrupt(format!("the service secret {name} is not 32 bytes")))
}

/// Keeps the seed of `stream`'s epoch `epoch`. Call it in the transaction that appends the
/// epoch's `SeedCommitted`.
pub async fn save_epoch_seed(
    client: &impl GenericClient,
    stream: &StreamId,
    epoch: u32,
    seed: &GameSeed,
) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO dice_table_seeds (stream_id, epoch, seed) VALUES ($1, $2, $3)",
            &[
                &stream.as_str(),
                &epoch_number(epoch)?,
                &seed.expose().as_slice(),
            ],
        )
        .await?;
    Ok(())
}

/// The seed of `stream`'s epoch `epoch`. Only the roll and the reveal may call this: a
/// seed never leaves the service before its `SeedRevealed`.
pub async fn load_epoch_seed(
    client: &impl GenericClient,
    stream: &StreamId,
    epoch: u32,
) -> Result<Option<GameSeed>, StoreError> {
    let row = client
        .query_opt(
            "SELECT seed FROM dice_table_seeds WHERE stream_id = $1 AND epoch = $2",
            &[&stream.as_str(), &epoch_number(epoch)?],
        )
        .await?;
    row.map(|r| {
        <[u8; 32]>::try_from(r.get::<_, &[u8]>(0))
            .map(GameSeed::from_bytes)
            .map_err(|_| {
                StoreError::Corrupt(format!(
                    "the seed of {stream} epoch {epoch} is not 32 bytes"
                ))
            })
    })
    .transpose()
}

/// Notes when an epoch's seed was revealed (the event itself is the public record).
pub async fn mark_epoch_revealed(
    client: &impl GenericClient,
    stream: &StreamId,
    epoch: u32,
) -> Result<(), StoreError> {
    client
        .execute(
            "UPDATE dice_table_seeds SET revealed_at = now() WHERE stream_id = $1 AND epoch = $2",
            &[&stream.as_str(), &epoch_number(epoch)?],
        )
        .await?;
    Ok(())
}

fn epoch_number(epoch: u32) -> Result<i32, StoreError> {
    i32::try_from(epoch).map_err(|_| StoreError::Corrupt(format!("epoch {epoch} is too large")))
}
