//! Projectors: read the global feed, apply each event to a read model, and store the
//! checkpoint in the same transaction as the rows, so a crash can neither lose nor repeat
//! an event. LISTEN/NOTIFY on a dedicated connection wakes them early; polling is the
//! fallback, so a lost notification only costs latency.
//!
//! A projector that meets an event it cannot decode stops there: it applies everything
//! before that event, records where and why it stopped (`projector_checkpoints`, read by
//! `/readyz` through [`stopped_projections`]) and runs no further. Events never change, so
//! trying again cannot help; a build that decodes the event gets past it on its next start
//! and clears the record. The other projectors and the API go on.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{GenericClient, Pool, Transaction};
use futures_util::future::poll_fn;
use tokio::sync::{watch, Notify};
use tokio_postgres::AsyncMessage;
use warlog_events::RecordedEvent;

use crate::{read_all, FeedPosition, StoreError, StoreMetrics};

/// The channel listeners wait on for a wake-up after appends.
pub const NOTIFY_CHANNEL: &str = "warlog_events";

/// Sends the wake-up `NOTIFY` after appends, outside the appending transactions: a
/// transaction that notifies holds a cluster-wide lock through its commit, which would
/// serialise every append (measured: 40% fewer appends per second at 8 writers). Bursts
/// collapse into one notification, since a pending signal is kept only once.
#[derive(Debug, Clone)]
pub struct Notifier {
    signal: Arc<Notify>,
}

impl Notifier {
    /// Starts the task that sends the notifications, on connections from `pool`.
    pub fn spawn(pool: Pool, mut shutdown: watch::Receiver<bool>) -> Self {
        let signal = Arc::new(Notify::new());
        let pending = signal.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = pending.notified() => {}
                    _ = shutdown.changed() => break,
                }
                let sent = match pool.get().await {
                    Ok(client) => client
                        .batch_execute(&format!("NOTIFY {NOTIFY_CHANNEL}"))
                        .await
                        .map_err(StoreError::from),
                    Err(e) => Err(e.into()),
                };
                if let Err(error) = sent {
                    tracing::debug!(%error, "wake-up notification not sent; projectors will poll");
                }
            }
        });
        Notifier { signal }
    }

    /// Records that events were appended; a notification follows shortly.
    pub fn appended(&self) {
        self.signal.notify_one();
    }
}

/// When an event was recorded (RFC 3339, from its metadata), for read models that keep
/// times; the epoch for an event without one (none is appended without it).
pub fn recorded_at(event: &RecordedEvent) -> &str {
    event
        .metadata
        .get("recorded_at")
        .and_then(|v| v.as_str())
        .unwrap_or("1970-01-01T00:00:00Z")
}

/// An event's stream version as the read models' `bigint` columns keep it.
pub fn version_of(event: &RecordedEvent) -> i64 {
    i64::try_from(event.stream_version).unwrap_or(i64::MAX)
}

/// A read model built from the event log.
pub trait Projection: Send + Sync {
    /// Unique and stable: the checkpoint is stored under it.
    fn name(&self) -> &'static str;

    /// Empties the read model, before a rebuild.
    fn reset(&self, tx: &Transaction<'_>) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Applies one event, inside the batch's transaction. An event it cannot decode is
    /// [`StoreError::Corrupt`], and the projector stops there.
    fn apply(
        &self,
        tx: &Transaction<'_>,
        event: &RecordedEvent,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// Runs one projection against a pool.
#[derive(Debug, Clone)]
pub struct Projector<P> {
    pool: Pool,
    projection: P,
    batch_size: u32,
    metrics: StoreMetrics,
}

impl<P: Projection> Projector<P> {
    pub fn new(pool: Pool, projection: P, metrics: StoreMetrics) -> Self {
        // The projector's lag shows from its start, before its first pass.
        metrics
            .projector_lag
            .with_label_values(&[projection.name()]);
        Projector {
            pool,
            projection,
            batch_size: 500,
            metrics,
        }
    }

    pub fn with_batch_size(mut self, batch_size: u32) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Applies the next batch of the feed; returns how many events it applied. An event the
    /// projection cannot decode ends the batch: the events before it are applied, the stop is
    /// recorded, and the answer is [`StoreError::ProjectionStopped`].
    pub async fn step(&self) -> Result<usize, StoreError> {
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        let checkpoint = lock_checkpoint(&tx, self.projection.name()).await?;
        let events = read_all(&tx, checkpoint, self.batch_size).await?;
        for (index, event) in events.iter().enumerate() {
            match self.projection.apply(&tx, event).await {
                Ok(()) => {}
                Err(StoreError::Corrupt(reason)) => {
                    // What the failed apply may have written goes with the transaction.
                    tx.rollback().await?;
                    drop(client);
                    return Err(self
                        .stop_at(checkpoint, &events[..index], event, reason)
                        .await);
                }
                Err(error) => return Err(error),
            }
        }
        if let Some(last) = events.last() {
            save_checkpoint(&tx, self.projection.name(), FeedPosition::after(last)).await?;
        }
        tx.commit().await?;
        Ok(events.len())
    }

    /// Applies `before` (the events ahead of `undecodable` in a batch read at `checkpoint`)
    /// and records that the projection stopped at `undecodable`, in one transaction; the
    /// error that says so.
    async fn stop_at(
        &self,
        checkpoint: FeedPosition,
        before: &[RecordedEvent],
        undecodable: &RecordedEvent,
        reason: String,
    ) -> StoreError {
        match self
            .record_stop(checkpoint, before, undecodable, &reason)
            .await
        {
            Ok(()) => stopped_at(self.projection.name(), undecodable, reason),
            // Not on record (the database went away, say): the projector tries again.
            Err(error) => error,
        }
    }

    async fn record_stop(
        &self,
        checkpoint: FeedPosition,
        before: &[RecordedEvent],
        undecodable: &RecordedEvent,
        reason: &str,
    ) -> Result<(), StoreError> {
        let name = self.projection.name();
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        // Another runner of this projection may have moved on meanwhile; it meets the same
        // event and records the same stop.
        if lock_checkpoint(&tx, name).await? != checkpoint {
            return Ok(());
        }
        for event in before {
            self.projection.apply(&tx, event).await?;
        }
        if let Some(last) = before.last() {
            save_checkpoint(&tx, name, FeedPosition::after(last)).await?;
        }
        tx.execute(
            "UPDATE projector_checkpoints SET stopped_at = now(), stopped_stream = $2, \
                 stopped_version = $3, stopped_reason = $4 \
             WHERE projector = $1",
            &[
                &name,
                &undecodable.stream_id.as_str(),
                &version_of(undecodable),
                &reason,
            ],
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Applies batches until the feed has nothing more to give; returns the events applied.
    pub async fn catch_up(&self) -> Result<u64, StoreError> {
        let mut total = 0u64;
        loop {
            let applied = self.step().await?;
            total += applied as u64;
            if applied < self.batch_size as usize {
                self.record_lag().await?;
                return Ok(total);
            }
        }
    }

    /// Empties the read model and replays the whole log into it, in one transaction: readers
    /// see the old rows until the new ones are complete.
    pub async fn rebuild(&self) -> Result<u64, StoreError> {
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        lock_checkpoint(&tx, self.projection.name()).await?;
        self.projection.reset(&tx).await?;
        let mut position = FeedPosition::START;
        let mut total = 0u64;
        loop {
            let events = read_all(&tx, position, self.batch_size).await?;
            for event in &events {
                match self.projection.apply(&tx, event).await {
                    Err(StoreError::Corrupt(reason)) => {
                        return Err(stopped_at(self.projection.name(), event, reason))
                    }
                    applied => applied?,
                }
            }
            total += events.len() as u64;
            match events.last() {
                Some(last) => position = FeedPosition::after(last),
                None => break,
            }
        }
        save_checkpoint(&tx, self.projection.name(), position).await?;
        tx.commit().await?;
        Ok(total)
    }

    /// Where the projector has read up to.
    pub async fn checkpoint(&self) -> Result<FeedPosition, StoreError> {
        let client = self.pool.get().await?;
        read_checkpoint(&client, self.projection.name()).await
    }

    /// Keeps the read model up to date until `shutdown` turns true: catches up, then waits
    /// for a notification or the poll interval. Errors are logged and retried, except an
    /// event the projection cannot decode: there it stops (see the module's documentation).
    pub async fn run(
        self,
        mut wake: watch::Receiver<u64>,
        mut shutdown: watch::Receiver<bool>,
        poll_interval: Duration,
    ) {
        let name = self.projection.name();
        tracing::info!(projector = name, "projector started");
        while !*shutdown.borrow() {
            match self.catch_up().await {
                Ok(_) => {}
                Err(error @ StoreError::ProjectionStopped { .. }) => {
                    tracing::error!(projector = name, %error, "projector stopped; /readyz names it");
                    return;
                }
                Err(error) => {
                    tracing::error!(projector = name, %error, "projector step failed; will retry");
                }
            }
            tokio::select! {
                _ = wake.changed() => {}
                _ = tokio::time::sleep(poll_interval) => {}
                _ = shutdown.changed() => {}
            }
        }
        tracing::info!(projector = name, "projector stopped");
    }

    async fn record_lag(&self) -> Result<(), StoreError> {
        let client = self.pool.get().await?;
        let checkpoint = read_checkpoint(&client, self.projection.name()).await?;
        // Bounded, so a far-behind projector does not make this a full scan.
        let lag: i64 = client
            .query_one(
                "SELECT count(*) FROM (SELECT 1 FROM events \
                 WHERE (tx_id, position) > ($1::text::xid8, $2) LIMIT 1000000) behind",
                &[&checkpoint.tx_id.to_string(), &checkpoint.position],
            )
            .await?
            .get(0);
        self.metrics
            .projector_lag
            .with_label_values(&[self.projection.name()])
            .set(lag);
        Ok(())
    }
}

/// The error of `projection` stopping at `event`, which does not decode for `reason`.
fn stopped_at(projection: &'static str, event: &RecordedEvent, reason: String) -> StoreError {
    StoreError::ProjectionStopped {
        projection,
        stream: event.stream_id.clone(),
        version: event.stream_version,
        reason,
    }
}

/// Takes the projector's checkpoint row for this transaction (creating it at the start of
/// the feed), so two runners of one projector take turns instead of applying a batch twice.
async fn lock_checkpoint(tx: &Transaction<'_>, name: &str) -> Result<FeedPosition, StoreError> {
    tx.execute(
        "INSERT INTO projector_checkpoints (projector) VALUES ($1) ON CONFLICT DO NOTHING",
        &[&name],
    )
    .await?;
    let row = tx
        .query_one(
            "SELECT tx_id::text::bigint, position FROM projector_checkpoints \
             WHERE projector = $1 FOR UPDATE",
            &[&name],
        )
        .await?;
    to_position(row.get(0), row.get(1))
}

async fn read_checkpoint(
    client: &impl GenericClient,
    name: &str,
) -> Result<FeedPosition, StoreError> {
    let row = client
        .query_opt(
            "SELECT tx_id::text::bigint, position FROM projector_checkpoints WHERE projector = $1",
            &[&name],
        )
        .await?;
    match row {
        Some(row) => to_position(row.get(0), row.get(1)),
        None => Ok(FeedPosition::START),
    }
}

async fn save_checkpoint(
    tx: &Transaction<'_>,
    name: &str,
    position: FeedPosition,
) -> Result<(), StoreError> {
    // Moving on clears a stop: a build that decodes the event got past it.
    tx.execute(
        "UPDATE projector_checkpoints SET tx_id = $2::text::xid8, position = $3, updated_at = now(), \
             stopped_at = NULL, stopped_stream = NULL, stopped_version = NULL, stopped_reason = NULL \
         WHERE projector = $1",
        &[&name, &position.tx_id.to_string(), &position.position],
    )
    .await?;
    Ok(())
}

/// A projection stopped at an event it cannot decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoppedProjection {
    pub projection: String,
    pub stream: String,
    pub version: i64,
    /// Why the event does not decode.
    pub reason: String,
}

impl std::fmt::Display for StoppedProjection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "projection {} stopped at event {} of stream {}, which it cannot decode: {}",
            self.projection, self.version, self.stream, self.reason
        )
    }
}

/// Every projection that is stopped, by name.
pub async fn stopped_projections(
    client: &impl GenericClient,
) -> Result<Vec<StoppedProjection>, StoreError> {
    let rows = client
        .query(
            "SELECT projector, stopped_stream, stopped_version, stopped_reason \
               FROM projector_checkpoints WHERE stopped_at IS NOT NULL ORDER BY projector",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| StoppedProjection {
            projection: row.get(0),
            stream: row.get::<_, Option<String>>(1).unwrap_or_default(),
            version: row.get::<_, Option<i64>>(2).unwrap_or_default(),
            reason: row.get::<_, Option<String>>(3).unwrap_or_default(),
        })
        .collect())
}

fn to_position(tx_id: i64, position: i64) -> Result<FeedPosition, StoreError> {
    Ok(FeedPosition {
        tx_id: u64::try_from(tx_id)
            .map_err(|_| StoreError::Corrupt(format!("checkpoint tx id {tx_id}")))?,
        position,
    })
}

/// Listens for `warlog_events` notifications on a connection of its own and bumps the
/// returned counter on each; reconnects with a back-off when the connection drops.
pub fn spawn_listener(
    config: tokio_postgres::Config,
    mut shutdown: watch::Receiver<bool>,
) -> watch::Receiver<u64> {
    let (wake_tx, wake_rx) = watch::channel(0u64);
    tokio::spawn(async move {
        let mut backoff = Duration::from_millis(200);
        while !*shutdown.borrow() {
            match listen_once(&config, &wake_tx, &mut shutdown).await {
                Ok(()) => break,
                Err(error) => {
                    tracing::warn!(%error, "event listener lost its connection; polling until it is back");
                    tokio::select! {
                        _ = tokio::time::sleep(backoff) => {}
                        _ = shutdown.changed() => {}
                    }
                    backoff = (backoff * 2).min(Duration::from_secs(10));
                }
            }
        }
    });
    wake_rx
}

async fn listen_once(
    config: &tokio_postgres::Config,
    wake: &watch::Sender<u64>,
    shutdown: &mut watch::Receiver<bool>,
) -> Result<(), StoreError> {
    let (client, mut connection) = config
        .connect(crate::tls::connector().map_err(StoreError::Tls)?)
        .await?;
    let (closed_tx, mut closed_rx) =
        tokio::sync::oneshot::channel::<Option<tokio_postgres::Error>>();
    let wake = wake.clone();
    tokio::spawn(async move {
        let error = loop {
            match poll_fn(|cx| connection.poll_message(cx)).await {
                Some(Ok(AsyncMessage::Notification(_))) => {
                    wake.send_modify(|n| *n = n.wrapping_add(1));
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => break Some(e),
                None => break None,
            }
        };
        let _ = closed_tx.send(error);
    });
    client
        .batch_execute(&format!("LISTEN {NOTIFY_CHANNEL}"))
        .await?;
    tracing::debug!("listening for {NOTIFY_CHANNEL}");
    tokio::select! {
        closed = &mut closed_rx => match closed {
            Ok(Some(e)) => Err(StoreError::Database(e)),
            _ => Err(StoreError::ConnectionClosed),
        },
        _ = shutdown.changed() => Ok(()),
    }
}
