//! `warlog bench append`: how fast the event store appends, next to a baseline measured in
//! the same run on the same server: plain single-row inserts into a table with no
//! constraints, by the same number of connections. Runs in a throw-away database.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::Barrier;
use uuid::Uuid;
use warlog_events::{EventType, Metadata, NewEvent, StreamId};
use warlog_store::discover::Server;
use warlog_store::{connect_pool, ExpectedVersion, Pool, PoolOptions, StoreError};

use crate::CliError;

#[derive(Debug, Clone, Copy, Default)]
struct Measured {
    /// Rows or events written.
    events: u64,
    /// Successful statements or appends.
    appends: u64,
    conflicts: u64,
    elapsed: Duration,
}

impl Measured {
    fn events_per_second(&self) -> f64 {
        self.events as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    fn appends_per_second(&self) -> f64 {
        self.appends as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    fn conflict_rate(&self) -> f64 {
        let tries = self.appends + self.conflicts;
        if tries == 0 {
            0.0
        } else {
            self.conflicts as f64 / tries as f64
        }
    }

    fn add(&mut self, other: Measured) {
        self.events += other.events;
        self.appends += other.appends;
        self.conflicts += other.conflicts;
    }
}

/// Workloads being compared run in alternating slices, this many each, so that drift in
/// the machine's disk or CPU (large on shared VMs) falls on both sides of a ratio alike.
const ROUNDS: u32 = 5;

/// Runs `workloads` in `ROUNDS` alternating slices of `slice` each and adds up each one's
/// figures.
async fn interleaved<const N: usize>(
    pool: &Pool,
    writers: usize,
    slice: Duration,
    workloads: [Workload; N],
) -> Result<[Measured; N], CliError> {
    let mut totals = [Measured::default(); N];
    for _ in 0..ROUNDS {
        for (total, workload) in totals.iter_mut().zip(workloads) {
            let m = measure(pool, writers, slice, workload).await?;
            total.add(m);
            total.elapsed += m.elapsed;
        }
    }
    Ok(totals)
}

/// The store's bare 1-event append rate (events/s) with `writers` writers on distinct
/// streams for `slice`: the ceiling an order path is measured against. `run` keeps each
/// call's streams apart from the others'.
pub async fn bare_appends(
    pool: &Pool,
    writers: usize,
    slice: Duration,
    run: u32,
) -> Result<f64, CliError> {
    let m = measure(
        pool,
        writers,
        slice,
        Workload::DistinctStreams { batch: 1, run },
    )
    .await?;
    Ok(m.events_per_second())
}

/// Runs every scenario in a fresh database on `server` and prints a Markdown table.
/// `slice` is the length of one slice of one workload.
pub async fn append(server: &Server, slice: Duration) -> Result<(), CliError> {
    in_throwaway_database(server, async |database| {
        run_scenarios(server, database, slice).await
    })
    .await
}

/// Runs `bench` on a fresh database, dropped afterwards whatever the outcome.
pub async fn in_throwaway_database(
    server: &Server,
    bench: impl AsyncFnOnce(&str) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let database = format!("warlog_bench_{}", Uuid::new_v4().simple());
    server.create_database(&database).await?;
    let result = bench(&database).await;
    server.drop_database(&database).await?;
    result
}

async fn run_scenarios(server: &Server, database: &str, slice: Duration) -> Result<(), CliError> {
    let config = server.config_for(database);
    crate::migrate(&config).await?;
    let tls = warlog_store::tls::connector().map_err(CliError::Other)?;
    let (admin, connection) = config.connect(tls).await?;
    tokio::spawn(connection);
    warlog_store::bench::create_baseline_table(&admin).await?;
    let warlog_store::bench::ServerSettings {
        version,
        synchronous_commit: sync_commit,
    } = warlog_store::bench::server_settings(&admin).await?;
    let pool = connect_pool(
        config,
        &PoolOptions {
            max_size: 40,
            ..PoolOptions::default()
        },
    )
    .await?;

    println!(
        "warlog bench append: {ROUNDS} alternating rounds of {:.1} s per workload, PostgreSQL {version}, synchronous_commit={sync_commit}, {} cores",
        slice.as_secs_f64(),
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
    );
    println!();
    println!(
        "| scenario | writers | events/s | appends/s | baseline rows/s | ratio | conflict rate |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let mut run = 0u32;
    for writers in [1usize, 8, 32] {
        run += 1;
        let [baseline, single, batched] = interleaved(
            &pool,
            writers,
            slice,
            [
                Workload::Baseline,
                Workload::DistinctStreams { batch: 1, run },
                Workload::DistinctStreams { batch: 10, run },
            ],
        )
        .await?;
        print_row(
            "1-event appends, distinct streams",
            writers,
            &single,
            Some(&baseline),
        );
        print_row(
            "10-event appends, distinct streams",
            writers,
            &batched,
            Some(&baseline),
        );
        print_row("baseline: single-row insert", writers, &baseline, None);
    }
    // Group commit (issue 20, item 4): the same number of 1-event appends in flight, but
    // `group` of them share one transaction and one commit.
    for (writers, group) in [(8usize, 4usize), (8, 8), (32, 8)] {
        run += 1;
        let [baseline, single, grouped] = interleaved(
            &pool,
            writers,
            slice,
            [
                Workload::Baseline,
                Workload::DistinctStreams { batch: 1, run },
                Workload::Grouped { run, group },
            ],
        )
        .await?;
        print_row(
            "1-event appends, one transaction each",
            writers,
            &single,
            Some(&baseline),
        );
        print_row(
            &format!("1-event appends, {group} to a transaction"),
            writers,
            &grouped,
            Some(&baseline),
        );
    }
    run += 1;
    let [baseline, hot] = interleaved(
        &pool,
        8,
        slice,
        [Workload::Baseline, Workload::HotStream { run }],
    )
    .await?;
    print_row("1-event appends, one hot stream", 8, &hot, Some(&baseline));
    pool.close();
    Ok(())
}

fn print_row(name: &str, writers: usize, m: &Measured, baseline: Option<&Measured>) {
    let (base, ratio) = match baseline {
        Some(b) => (
            format!("{:.0}", b.events_per_second()),
            format!(
                "{:.2}",
                m.events_per_second() / b.events_per_second().max(1e-9)
            ),
        ),
        None => ("-".to_owned(), "-".to_owned()),
    };
    println!(
        "| {name} | {writers} | {:.0} | {:.0} | {base} | {ratio} | {:.1}% |",
        m.events_per_second(),
        m.appends_per_second(),
        m.conflict_rate() * 100.0
    );
}

#[derive(Debug, Clone, Copy)]
enum Workload {
    Baseline,
    DistinctStreams {
        batch: usize,
        run: u32,
    },
    HotStream {
        run: u32,
    },
    /// 1-event appends to distinct streams, `group` of them pipelined in one transaction
    /// (one writer per group).
    Grouped {
        run: u32,
        group: usize,
    },
}

async fn measure(
    pool: &Pool,
    writers: usize,
    duration: Duration,
    workload: Workload,
) -> Result<Measured, CliError> {
    let tasks_count = match workload {
        Workload::Grouped { group, .. } => writers.div_ceil(group),
        _ => writers,
    };
    let barrier = Arc::new(Barrier::new(tasks_count));
    let mut tasks = Vec::with_capacity(tasks_count);
    for writer in 0..tasks_count {
        let pool = pool.clone();
        let barrier = barrier.clone();
        tasks.push(tokio::spawn(async move {
            let client = pool.get().await.map_err(StoreError::from)?;
            barrier.wait().await;
            let deadline = Instant::now() + duration;
            let started = Instant::now();
            let mut m = match workload {
                Workload::Baseline => baseline_writer(&client, writer, deadline).await?,
                Workload::DistinctStreams { batch, run } => {
                    let stream = bench_stream(run, writer)?;
                    store_writer(&client, &stream, batch, deadline).await?
                }
                Workload::HotStream { run } => {
                    let stream = bench_stream(run, 0)?;
                    store_writer(&client, &stream, 1, deadline).await?
                }
                Workload::Grouped { run, group } => {
                    let streams = (0..group)
                        .map(|i| bench_stream(run, writer * group + i))
                        .collect::<Result<Vec<_>, _>>()?;
                    grouped_writer(&client, &streams, deadline).await?
                }
            };
            m.elapsed = started.elapsed();
            Ok::<Measured, CliError>(m)
        }));
    }
    let mut total = Measured::default();
    let mut longest = Duration::ZERO;
    for task in tasks {
        let m = task
            .await
            .map_err(|e| CliError::Other(format!("bench writer panicked: {e}")))??;
        longest = longest.max(m.elapsed);
        total.add(m);
    }
    total.elapsed = longest;
    Ok(total)
}

fn bench_stream(run: u32, writer: usize) -> Result<StreamId, CliError> {
    StreamId::try_from(format!("game-bench-{run}-{writer}"))
        .map_err(|e| CliError::Other(e.to_string()))
}

/// An order event as a game would append it, for round `n`.
fn order_event(event_type: &EventType, n: u64, metadata: &Metadata) -> NewEvent {
    NewEvent::new(
        Uuid::new_v4(),
        event_type.clone(),
        1,
        order_payload(n),
        metadata,
    )
}

fn order_payload(n: u64) -> serde_json::Value {
    json!({
        "power": "Germany",
        "order": "combat_move",
        "from": "Germany",
        "to": "Karelia",
        "units": ["INF", "INF", "ARM", "FTR"],
        "round": n,
    })
}

async fn baseline_writer(
    client: &deadpool_postgres::Client,
    writer: usize,
    deadline: Instant,
) -> Result<Measured, CliError> {
    let stream = format!("baseline-{writer}");
    let mut m = Measured::default();
    while Instant::now() < deadline {
        let version = i64::try_from(m.events).unwrap_or(i64::MAX);
        warlog_store::bench::insert_baseline_row(
            client,
            &stream,
            version,
            &order_payload(m.events),
        )
        .await?;
        m.events += 1;
        m.appends += 1;
    }
    Ok(m)
}

/// Group commit: one 1-event append to each of `streams` in one transaction, the appends
/// pipelined on the connection, then one commit for all of them.
async fn grouped_writer(
    client: &deadpool_postgres::Client,
    streams: &[StreamId],
    deadline: Instant,
) -> Result<Measured, CliError> {
    let event_type =
        EventType::try_from("OrderSubmitted").map_err(|e| CliError::Other(e.to_string()))?;
    let mut known = Vec::with_capacity(streams.len());
    for stream in streams {
        let head = warlog_store::stream_head(client, stream).await?;
        known.push(head.map(|h| h.version).unwrap_or(0));
    }
    let mut m = Measured::default();
    while Instant::now() < deadline {
        let metadata = Metadata::recorded_at(time::OffsetDateTime::now_utc()).with_actor("bench");
        let batches: Vec<Vec<NewEvent>> = known
            .iter()
            .map(|&version| vec![order_event(&event_type, version, &metadata)])
            .collect();
        let group: Vec<(&StreamId, ExpectedVersion, &[NewEvent])> = streams
            .iter()
            .zip(&known)
            .zip(&batches)
            .map(|((stream, &version), events)| {
                (stream, ExpectedVersion::Exact(version), events.as_slice())
            })
            .collect();
        if let Some(outcomes) = warlog_store::bench::append_group(client, &group).await? {
            for (version, outcome) in known.iter_mut().zip(outcomes) {
                *version = outcome.head().map(|h| h.version).unwrap_or(*version);
                m.events += 1;
                m.appends += 1;
            }
        } else {
            // One append failed, so the group did: learn the heads again and retry.
            m.conflicts += 1;
            for (version, stream) in known.iter_mut().zip(streams) {
                let head = warlog_store::stream_head(client, stream).await?;
                *version = head.map(|h| h.version).unwrap_or(0);
            }
        }
    }
    Ok(m)
}

/// Appends like a command handler does: with the version it last saw; on a conflict it
/// learns the stream's version and tries again.
async fn store_writer(
    client: &deadpool_postgres::Client,
    stream: &StreamId,
    batch: usize,
    deadline: Instant,
) -> Result<Measured, CliError> {
    let event_type =
        EventType::try_from("OrderSubmitted").map_err(|e| CliError::Other(e.to_string()))?;
    let mut known = warlog_store::stream_head(client, stream)
        .await?
        .map(|h| h.version)
        .unwrap_or(0);
    let mut m = Measured::default();
    while Instant::now() < deadline {
        let metadata = Metadata::recorded_at(time::OffsetDateTime::now_utc()).with_actor("bench");
        let events: Vec<NewEvent> = (0..batch)
            .map(|i| order_event(&event_type, known + i as u64, &metadata))
            .collect();
        match warlog_store::append(client, stream, ExpectedVersion::Exact(known), &events).await {
            Ok(outcome) => {
                known = outcome.head().map(|h| h.version).unwrap_or(known);
                m.events += events.len() as u64;
                m.appends += 1;
            }
            Err(StoreError::Conflict { actual, .. }) => {
                known = actual;
                m.conflicts += 1;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(m)
}
