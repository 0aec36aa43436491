//! Test support: every test gets a fresh, migrated database on the server that
//! `warlog serve` itself would find (`DATABASE_URL`, else 127.0.0.1:5432, else the private
//! cluster under the workspace's `var/pg`), and drops it when done.

use std::path::PathBuf;
use std::time::Duration;

use deadpool_postgres::Pool;
use tokio::sync::OnceCell;
use tokio_postgres::{Client, Config, NoTls};
use warlog_store::discover::{discover, DiscoveryOptions, Server};
use warlog_store::{connect_pool, PoolOptions};

/// The workspace root (this crate lives in `<root>/tests`).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

static SERVER: OnceCell<Server> = OnceCell::const_new();

/// The server the tests use, found once per test process.
pub async fn server() -> &'static Server {
    SERVER
        .get_or_init(|| async {
            let options = DiscoveryOptions {
                data_dir: workspace_root().join("var/pg"),
                ..DiscoveryOptions::from_env()
            };
            discover(&options)
                .await
                .unwrap_or_else(|e| panic!("no PostgreSQL for the tests: {e}"))
        })
        .await
}

/// A fresh database, migrated, with a pool that works as the service's role.
#[derive(Debug)]
pub struct TestDb {
    pub name: String,
    pub config: Config,
    /// As the service works: the login user switched to the service's role.
    pub pool: Pool,
    /// As an administrator works (`warlog token`): the login user's own rights.
    pub admin_pool: Pool,
}

impl TestDb {
    pub async fn new() -> Self {
        Self::with_pool_size(8).await
    }

    pub async fn with_pool_size(max_size: usize) -> Self {
        Self::create(max_size, true).await
    }

    /// A fresh database with nothing in it (no migrations): a restore's target.
    pub async fn empty() -> Self {
        Self::create(2, false).await
    }

    async fn create(max_size: usize, migrated: bool) -> Self {
        let server = server().await;
        let name = format!("warlog_test_{}", uuid::Uuid::new_v4().simple());
        server
            .create_database(&name)
            .await
            .unwrap_or_else(|e| panic!("creating {name}: {e}"));
        let config = server.config_for(&name);
        if migrated {
            warlog::migrate(&config)
                .await
                .unwrap_or_else(|e| panic!("migrating {name}: {e}"));
        }
        let pool = connect_pool(
            config.clone(),
            &PoolOptions {
                max_size,
                ..PoolOptions::default()
            },
        )
        .await
        .unwrap_or_else(|e| panic!("pool for {name}: {e}"));
        let admin_pool = connect_pool(
            config.clone(),
            &PoolOptions {
                max_size: 2,
                role: None,
            },
        )
        .await
        .unwrap_or_else(|e| panic!("admin pool for {name}: {e}"));
        TestDb {
            name,
            config,
            pool,
            admin_pool,
        }
    }

    /// A connection as the login user (a superuser on the test servers), not the service's
    /// role: for what only an administrator can try.
    pub async fn admin(&self) -> Client {
        self.connect(&self.config, "admin").await
    }

    /// A connection as the service logs in: `warlog_service`, with `warlog_app`'s rights
    /// only (trust authentication on the test servers).
    pub async fn service_login(&self) -> Client {
        let mut login = self.config.clone();
        login.user(warlog_store::SERVICE_LOGIN);
        self.connect(&login, "warlog_service's").await
    }

    async fn connect(&self, config: &Config, whose: &str) -> Client {
        let (client, connection) = config
            .connect(NoTls)
            .await
            .unwrap_or_else(|e| panic!("{whose} connection to {}: {e}", self.name));
        tokio::spawn(connection);
        client
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        self.pool.close();
        let name = self.name.clone();
        let Some(server) = SERVER.get() else { return };
        // Drop runs outside any async context we could borrow; a short-lived runtime of its
        // own drops the database.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            runtime.block_on(server.drop_database(&name)).ok()
        })
        .join();
        if !matches!(dropped, Ok(Some(()))) {
            eprintln!("note: could not drop test database {}", self.name);
        }
    }
}

/// Polls `check` until it returns `Some`, for conditions another transaction or task makes
/// true (a commit reaching the feed, a projector catching up). Panics after `limit`.
pub async fn eventually<T, F, Fut>(what: &str, limit: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
