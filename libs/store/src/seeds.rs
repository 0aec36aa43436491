//! Dice seeds: each game's and tournament's, secret until revealed.

use deadpool_postgres::GenericClient;
use warlog_events::{RecordedEvent, StreamId};
use warlog_rules::dice::GameSeed;

use crate::StoreError;

/// Writes a whole game played outside the service (a sample game for a benchmark or a
/// test) as the service would have: its seed kept, its events appended in order, their
/// chain linked, in appends of at most [`crate::MAX_EVENTS_PER_APPEND`].
pub async fn write_played_game(
    client: &impl GenericClient,
    stream: &StreamId,
    seed: &GameSeed,
    recorded: &[RecordedEvent],
) -> Result<(), StoreError> {
    save_seed(client, stream, seed).await?;
    let mut version = 0u64;
    for chunk in recorded.chunks(crate::MAX_EVENTS_PER_APPEND) {
        let chunk: Vec<warlog_events::NewEvent> = chunk
            .iter()
            .map(|e| warlog_events::NewEvent {
                event_id: e.event_id,
                event_type: e.event_type.clone(),
                event_version: e.event_version,
                payload: e.payload.clone(),
                metadata: e.metadata.clone(),
            })
            .collect();
        let expected = match version {
            0 => crate::ExpectedVersion::NoStream,
            at => crate::ExpectedVersion::Exact(at),
        };
        crate::append(client, stream, expected, &chunk).await?;
        version += chunk.len() as u64;
    }
    Ok(())
}

/// Keeps a new game's seed. Call it in the transaction that appends `GameCreated`.
pub async fn save_seed(
    client: &impl GenericClient,
    stream: &StreamId,
    seed: &GameSeed,
) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO dice_seeds (stream_id, seed) VALUES ($1, $2)",
            &[&stream.as_str(), &seed.expose().as_slice()],
        )
        .await?;
    Ok(())
}

/// A game's seed. Only the command path and the reveal may call this: the seed never
/// leaves the service before `SeedRevealed`.
pub async fn load_seed(
    client: &impl GenericClient,
    stream: &StreamId,
) -> Result<Option<GameSeed>, StoreError> {
    let row = client
        .query_opt(
            "SELECT seed FROM dice_seeds WHERE stream_id = $1",
            &[&stream.as_str()],
        )
        .await?;
    row.map(|r| {
        <[u8; 32]>::try_from(r.get::<_, &[u8]>(0))
            .map(GameSeed::from_bytes)
            .map_err(|_| StoreError::Corrupt(format!("the seed of {stream} is not 32 bytes")))
    })
    .transpose()
}

/// Notes when a seed was revealed (the event itself is the public record).
pub async fn mark_seed_revealed(
    client: &impl GenericClient,
    stream: &StreamId,
) -> Result<(), StoreError> {
    client
        .execute(
            "UPDATE dice_seeds SET revealed_at = now() WHERE stream_id = $1",
            &[&stream.as_str()],
        )
        .await?;
    Ok(())
}
