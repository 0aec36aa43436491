//! What can go wrong in the store, and whether it is the database being unavailable (a
//! client may try again) rather than the request.

use warlog_events::StreamId;

use crate::ExpectedVersion;

/// What can go wrong in the store. `Conflict` is an answer to the caller's request; the rest
/// are faults.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("stream {stream} is at version {actual}, not the expected {expected}")]
    Conflict {
        stream: StreamId,
        expected: ExpectedVersion,
        actual: u64,
    },
    #[error("an event id in this append is already in the log")]
    DuplicateEventId,
    #[error("a concurrent request with the same idempotency key was recorded first")]
    IdempotencyRace,
    #[error("the bearer token is unknown, revoked or expired")]
    TokenRefused,
    #[error("an append needs between 1 and {max} events, not {count}", max = crate::MAX_EVENTS_PER_APPEND)]
    BadEventCount { count: usize },
    #[error("stored data does not decode: {0}")]
    Corrupt(String),
    /// A projector met an event it cannot decode and stopped before it (projector.rs).
    #[error("projection {projection} stopped at event {version} of stream {stream}, which it cannot decode: {reason}")]
    ProjectionStopped {
        projection: &'static str,
        stream: StreamId,
        version: u64,
        reason: String,
    },
    #[error("database: {}", describe_pg(.0))]
    Database(#[from] tokio_postgres::Error),
    #[error("connection pool: {0}")]
    Pool(#[from] deadpool_postgres::PoolError),
    #[error("the database connection closed")]
    ConnectionClosed,
    #[error("migrations: {0}")]
    Migration(String),
    #[error("TLS to the database: {0}")]
    Tls(String),
}

impl StoreError {
    /// Whether the database is unreachable or going away, rather than the request being
    /// wrong: a lost or refused connection, a server shutting down or starting up, too
    /// many connections, or a read-only standby. A client may try again shortly.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Pool(_) | StoreError::ConnectionClosed => true,
            StoreError::Database(e) => {
                e.is_closed()
                    || e.code().is_some_and(|c| {
                        let code = c.code();
                        // 08: connection exception; 57P01-57P03: shutdown and startup;
                        // 53300: too many connections; 25006: read-only transaction.
                        code.starts_with("08")
                            || matches!(code, "57P01" | "57P02" | "57P03" | "53300" | "25006")
                    })
            }
            _ => false,
        }
    }

    /// The SQLSTATE of a database error, if this is one.
    pub fn sql_state(&self) -> Option<&str> {
        match self {
            StoreError::Database(e) => e.code().map(|c| c.code()),
            _ => None,
        }
    }
}

/// `tokio_postgres::Error` displays only "db error" for server errors; the server's own
/// message and detail are what a reader needs.
pub fn describe_pg(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => match db.detail() {
            Some(detail) => format!("{} ({}; {detail})", db.message(), db.code().code()),
            None => format!("{} ({})", db.message(), db.code().code()),
        },
        None => error.to_string(),
    }
}
