//! warlog's PostgreSQL event store: append and read events, the global feed, read models
//! and the projectors that keep them, migrations, and finding a database to use.
//!
//! All SQL lives in this crate. Functions that touch the database take any
//! [`deadpool_postgres::GenericClient`], so they run inside a caller's transaction or on
//! their own; [`EventStore`] wraps a pool for the common case and counts what it does.

pub mod bench;
pub mod catalog;
pub mod dice_addresses;
pub mod dice_tables;
pub mod discover;
mod error;
mod events;
pub mod games;
pub mod idempotency;
pub mod inbox;
pub mod league;
pub mod mail;
mod metrics;
mod migrate;
mod pool;
pub mod projections;
pub mod projector;
pub mod replica;
pub mod seeds;
pub mod tls;
pub mod tokens;
pub mod tournaments;
pub mod verify;
pub mod webhooks;

pub use deadpool_postgres::{Client as PooledClient, GenericClient, Pool};
pub use error::{describe_pg, StoreError};
pub use events::{
    append, append_checking_token, latest_seed_event, read_all, read_stream, stream_head,
    verify_stream, AppendOutcome, AppendedEvent, EventStore, ExpectedVersion, FeedPosition,
    MAX_EVENTS_PER_APPEND,
};
pub use metrics::StoreMetrics;
pub use migrate::{migrate, schema_status, SchemaStatus};
pub use pool::{
    connect_pool, set_login_password, superuser_login, PoolOptions, APP_ROLE, SERVICE_LOGIN,
};
