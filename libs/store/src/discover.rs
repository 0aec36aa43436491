//! Finding a PostgreSQL to use, with no set-up (docs/design.md, "Running and testing"):
//!
//! 1. `DATABASE_URL`, when set;
//! 2. else a PostgreSQL answering on 127.0.0.1:5432 as user `postgres`;
//! 3. else a private cluster in [`default_data_dir`] (or the directory given), created
//!    with the local install's `initdb` and started with its `pg_ctl` (as the `postgres` OS
//!    user when we are root), and stopped again by [`Server::shutdown`] if this process
//!    started it.
//!
//! The service and the tests share this code, so the tests find the same database a
//! newcomer's `cargo run` does.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use tokio_postgres::Config;

/// Where to look.
#[derive(Debug, Clone)]
pub struct DiscoveryOptions {
    /// `DATABASE_URL`: used as it is when set.
    pub database_url: Option<String>,
    /// Whether to try 127.0.0.1:5432 before starting a private cluster.
    pub probe_local: bool,
    /// The private cluster's data directory.
    pub data_dir: PathBuf,
}

impl DiscoveryOptions {
    /// The defaults of `warlog serve`: `DATABASE_URL` from the environment, the local
    /// server, then the private cluster in [`default_data_dir`].
    pub fn from_env() -> Self {
        DiscoveryOptions {
            database_url: std::env::var("DATABASE_URL").ok().filter(|u| !u.is_empty()),
            probe_local: true,
            data_dir: default_data_dir(),
        }
    }
}

/// Where the private cluster lives unless told otherwise: one place for every `warlog`
/// command, wherever it is run from. `$XDG_DATA_HOME/warlog/pg` when that is set; for root,
/// `/var/lib/warlog/pg` (root's home is closed to the `postgres` user the cluster runs
/// as); else the platform's data directory (`~/.local/share/warlog/pg` on Linux).
pub fn default_data_dir() -> PathBuf {
    data_dir_of(
        std::env::var_os("XDG_DATA_HOME").map(PathBuf::from),
        is_root(),
        dirs::data_dir,
    )
}

fn data_dir_of(
    xdg_data_home: Option<PathBuf>,
    root: bool,
    platform: impl FnOnce() -> Option<PathBuf>,
) -> PathBuf {
    // The XDG specification ignores a relative XDG_DATA_HOME.
    let data_home = xdg_data_home
        .filter(|dir| dir.is_absolute())
        .or_else(|| root.then(|| PathBuf::from("/var/lib")))
        .or_else(platform);
    match data_home {
        Some(home) => home.join("warlog").join("pg"),
        // No home directory at all (a bare container): beside the working directory.
        None => PathBuf::from("var/pg"),
    }
}

/// Where clusters lived before [`default_data_dir`]: a newcomer's data may still be there.
const EARLIER_DATA_DIR: &str = "var/pg";

#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    #[error("no PostgreSQL found: nothing answers on 127.0.0.1:5432 and neither initdb nor pg_ctl is on PATH or under /usr/lib/postgresql/*/bin. Install PostgreSQL (e.g. `apt-get install postgresql`) or set DATABASE_URL.")]
    NoPostgres,
    #[error("DATABASE_URL is not a valid PostgreSQL connection string: {0}")]
    BadUrl(String),
    #[error("private PostgreSQL cluster in {dir}: {message}")]
    Cluster { dir: String, message: String },
    #[error("database: {}", crate::describe_pg(.0))]
    Database(#[from] tokio_postgres::Error),
}

/// How the server was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    DatabaseUrl,
    LocalServer,
    PrivateCluster,
}

/// A PostgreSQL server warlog may use.
#[derive(Debug)]
pub struct Server {
    base: Config,
    source: Source,
    cluster: Option<PrivateCluster>,
}

impl Server {
    pub fn source(&self) -> Source {
        self.source
    }

    /// The connection settings as discovered (for `DATABASE_URL`, its database).
    pub fn config(&self) -> Config {
        self.base.clone()
    }

    /// The same server, logging in with `password` (read from a secret rather than the URL).
    pub fn with_password(mut self, password: &str) -> Server {
        self.base.password(password);
        self
    }

    /// The same server, another database.
    pub fn config_for(&self, database: &str) -> Config {
        let mut config = self.base.clone();
        config.dbname(database);
        config
    }

    /// Where the server is, for the start-up log line.
    pub fn describe(&self) -> String {
        let hosts: Vec<String> = self
            .base
            .get_hosts()
            .iter()
            .map(|h| match h {
                tokio_postgres::config::Host::Tcp(name) => name.clone(),
                tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
            })
            .collect();
        let port = self.base.get_ports().first().copied().unwrap_or(5432);
        let place = format!("{}:{}", hosts.join(","), port);
        match (&self.source, &self.cluster) {
            (Source::DatabaseUrl, _) => format!("DATABASE_URL ({place})"),
            (Source::LocalServer, _) => format!("local PostgreSQL ({place})"),
            (Source::PrivateCluster, Some(c)) => {
                format!("private cluster in {} ({place})", c.data_dir.display())
            }
            (Source::PrivateCluster, None) => format!("private cluster ({place})"),
        }
    }

    /// Stops this process's private cluster (for tests of a database going away).
    pub fn stop_cluster(&self) -> Result<(), String> {
        match &self.cluster {
            Some(cluster) => cluster.stop(),
            None => Err("not a private cluster".to_owned()),
        }
    }

    /// Starts this process's private cluster again.
    pub fn start_cluster(&self) -> Result<(), String> {
        match &self.cluster {
            Some(cluster) => cluster.start(),
            None => Err("not a private cluster".to_owned()),
        }
    }

    /// The database warlog serves from: `DATABASE_URL`'s own, or `name` (created if
    /// missing) on a discovered server.
    pub async fn service_database(&self, name: &str) -> Result<Config, DiscoveryError> {
        if self.source == Source::DatabaseUrl {
            return Ok(self.base.clone());
        }
        self.create_database(name).await?;
        Ok(self.config_for(name))
    }

    /// Creates a database unless it exists.
    pub async fn create_database(&self, name: &str) -> Result<(), DiscoveryError> {
        let client = connect(&self.base).await?;
        let exists = client
            .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
            .await?
            .is_some();
        if !exists {
            let sql = format!("CREATE DATABASE {}", quote_ident(name));
            if let Err(e) = client.batch_execute(&sql).await {
                // Another process created it first: that is what we wanted.
                if e.code() != Some(&tokio_postgres::error::SqlState::DUPLICATE_DATABASE) {
                    return Err(e.into());
                }
            }
        }
        Ok(())
    }

    /// Drops a database, closing its connections.
    pub async fn drop_database(&self, name: &str) -> Result<(), DiscoveryError> {
        let client = connect(&self.base).await?;
        client
            .batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                quote_ident(name)
            ))
            .await?;
        Ok(())
    }

    /// Stops the private cluster if this process started it.
    pub async fn shutdown(self) {
        if let Some(cluster) = self.cluster.filter(|c| c.started_here) {
            let dir = cluster.data_dir.display().to_string();
            match tokio::task::spawn_blocking(move || cluster.stop()).await {
                Ok(Ok(())) => tracing::info!(dir, "stopped the private PostgreSQL cluster"),
                Ok(Err(e)) => tracing::warn!(dir, error = %e, "could not stop the private cluster"),
                Err(e) => tracing::warn!(dir, error = %e, "could not stop the private cluster"),
            }
        }
    }
}

/// Finds a server, in the order the module documentation gives.
pub async fn discover(options: &DiscoveryOptions) -> Result<Server, DiscoveryError> {
    if let Some(url) = &options.database_url {
        let (config, tls) = crate::tls::parse_database_url(url).map_err(DiscoveryError::BadUrl)?;
        crate::tls::configure(tls);
        return Ok(Server {
            base: config,
            source: Source::DatabaseUrl,
            cluster: None,
        });
    }
    if options.probe_local {
        let mut local = Config::new();
        local
            .host("127.0.0.1")
            .port(5432)
            .user("postgres")
            .dbname("postgres")
            .ssl_mode(tokio_postgres::config::SslMode::Disable)
            .connect_timeout(Duration::from_secs(3));
        match connect(&local).await {
            Ok(_) => {
                return Ok(Server {
                    base: local,
                    source: Source::LocalServer,
                    cluster: None,
                })
            }
            Err(e) => tracing::info!(error = %e, "no usable PostgreSQL on 127.0.0.1:5432"),
        }
    }
    let data_dir = options.data_dir.clone();
    let cluster = tokio::task::spawn_blocking(move || PrivateCluster::prepare(&data_dir))
        .await
        .map_err(|e| DiscoveryError::Cluster {
            dir: options.data_dir.display().to_string(),
            message: e.to_string(),
        })??;
    let mut config = Config::new();
    config
        .host("127.0.0.1")
        .port(cluster.port)
        .user("postgres")
        .dbname("postgres")
        .ssl_mode(tokio_postgres::config::SslMode::Disable)
        .connect_timeout(Duration::from_secs(10));
    connect(&config).await?;
    tracing::info!(
        dir = %cluster.data_dir.display(),
        port = cluster.port,
        started_here = cluster.started_here,
        "using a private PostgreSQL cluster"
    );
    Ok(Server {
        base: config,
        source: Source::PrivateCluster,
        cluster: Some(cluster),
    })
}

async fn connect(config: &Config) -> Result<tokio_postgres::Client, DiscoveryError> {
    let tls = crate::tls::connector().map_err(|e| DiscoveryError::BadUrl(e.to_string()))?;
    let (client, connection) = config.connect(tls).await?;
    tokio::spawn(async move {
        if let Err(error) = connection.await {
            tracing::debug!(%error, "admin connection ended");
        }
    });
    Ok(client)
}

fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A cluster under our own data directory.
#[derive(Debug)]
struct PrivateCluster {
    data_dir: PathBuf,
    bin_dir: PathBuf,
    port: u16,
    run_as_postgres: bool,
    started_here: bool,
}

const PORT_FILE: &str = "warlog.port";

impl PrivateCluster {
    /// Creates the cluster if needed and starts it unless it runs already. Holds a file
    /// lock meanwhile, so parallel test processes do not initialise it twice.
    fn prepare(data_dir: &Path) -> Result<Self, DiscoveryError> {
        let fail = |message: String| DiscoveryError::Cluster {
            dir: data_dir.display().to_string(),
            message,
        };
        let bin_dir = find_bin_dir().ok_or(DiscoveryError::NoPostgres)?;
        let run_as_postgres = is_root();
        let parent = data_dir.parent().unwrap_or(Path::new("."));
        fs::create_dir_all(parent)
            .map_err(|e| fail(format!("creating {}: {e}", parent.display())))?;
        let lock_path = parent.join(".pg.lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| fail(format!("opening {}: {e}", lock_path.display())))?;
        lock.lock()
            .map_err(|e| fail(format!("locking {}: {e}", lock_path.display())))?;
        let result = Self::prepare_locked(data_dir, bin_dir, run_as_postgres);
        drop(lock);
        result.map_err(fail)
    }

    fn prepare_locked(
        data_dir: &Path,
        bin_dir: PathBuf,
        run_as_postgres: bool,
    ) -> Result<Self, String> {
        if !data_dir.join("PG_VERSION").exists() {
            init_cluster(data_dir, &bin_dir, run_as_postgres)?;
            warn_new_cluster(data_dir);
        }
        let data_dir = data_dir
            .canonicalize()
            .map_err(|e| format!("resolving {}: {e}", data_dir.display()))?;
        let port: u16 = fs::read_to_string(data_dir.join(PORT_FILE))
            .map_err(|e| format!("reading {PORT_FILE}: {e}"))?
            .trim()
            .parse()
            .map_err(|e| format!("{PORT_FILE}: {e}"))?;
        let mut cluster = PrivateCluster {
            data_dir,
            bin_dir,
            port,
            run_as_postgres,
            started_here: false,
        };
        if !cluster.is_running()? {
            cluster.start()?;
            cluster.started_here = true;
        }
        Ok(cluster)
    }

    fn pg_ctl(&self, args: &[&str]) -> Result<Output, String> {
        run_tool(&self.bin_dir, "pg_ctl", args, self.run_as_postgres)
    }

    fn is_running(&self) -> Result<bool, String> {
        let dir = self.data_dir.display().to_string();
        Ok(self.pg_ctl(&["status", "-D", &dir])?.status.success())
    }

    fn start(&self) -> Result<(), String> {
        let dir = self.data_dir.display().to_string();
        let log = self.data_dir.join("server.log").display().to_string();
        let out = self.pg_ctl(&["start", "-D", &dir, "-l", &log, "-w", "-t", "120"])?;
        if out.status.success() {
            Ok(())
        } else {
            let server_log = fs::read_to_string(&log).unwrap_or_default();
            let tail: Vec<&str> = server_log.lines().rev().take(5).collect();
            Err(format!(
                "pg_ctl start failed: {}{} (server log: {})",
                String::from_utf8_lossy(&out.stderr).trim(),
                String::from_utf8_lossy(&out.stdout).trim(),
                tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
            ))
        }
    }

    fn stop(&self) -> Result<(), String> {
        let dir = self.data_dir.display().to_string();
        let out = self.pg_ctl(&["stop", "-D", &dir, "-m", "fast", "-w"])?;
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
        }
    }
}

/// Says, where an operator will see it, that a new and empty cluster now holds the data,
/// and where an earlier one is if one is in sight: a second, empty cluster must not pass
/// unnoticed.
fn warn_new_cluster(data_dir: &Path) {
    let dir = data_dir.display().to_string();
    tracing::warn!(
        "created a new, empty PostgreSQL cluster in {dir}: warlog keeps its data there from \
         now on (--data-dir or WARLOG_DATA_DIR chooses another place)"
    );
    let earlier = Path::new(EARLIER_DATA_DIR);
    let same = earlier.canonicalize().ok() == data_dir.canonicalize().ok();
    if !same && earlier.join("PG_VERSION").exists() {
        let earlier = earlier
            .canonicalize()
            .unwrap_or_else(|_| earlier.to_path_buf());
        tracing::warn!(
            "an earlier cluster is in {}: to keep using its data, run warlog with --data-dir {}",
            earlier.display(),
            earlier.display()
        );
    }
}

fn init_cluster(data_dir: &Path, bin_dir: &Path, run_as_postgres: bool) -> Result<(), String> {
    fs::create_dir_all(data_dir).map_err(|e| format!("creating the directory: {e}"))?;
    if run_as_postgres {
        // initdb refuses to run as root; the cluster belongs to the postgres user.
        let out = Command::new("chown")
            .arg("postgres:")
            .arg(data_dir)
            .output()
            .map_err(|e| format!("chown: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "cannot give {} to the postgres user (does it exist?): {}",
                data_dir.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    let dir = data_dir
        .canonicalize()
        .map_err(|e| format!("resolving the directory: {e}"))?;
    let dir_arg = dir.display().to_string();
    let out = run_tool(
        bin_dir,
        "initdb",
        &[
            "-D",
            &dir_arg,
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
        ],
        run_as_postgres,
    )?;
    if !out.status.success() {
        return Err(format!(
            "initdb failed: {}{}",
            String::from_utf8_lossy(&out.stderr).trim(),
            if run_as_postgres {
                " (the postgres user must be able to reach this directory)"
            } else {
                ""
            }
        ));
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("finding a free port: {e}"))?
        .port();
    let mut conf = OpenOptions::new()
        .append(true)
        .open(dir.join("postgresql.conf"))
        .map_err(|e| format!("opening postgresql.conf: {e}"))?;
    writeln!(
        conf,
        "\n# warlog private cluster\nlisten_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = '{}'\nmax_connections = 200",
        dir_arg.replace('\'', "''")
    )
    .map_err(|e| format!("writing postgresql.conf: {e}"))?;
    let mut port_file =
        File::create(dir.join(PORT_FILE)).map_err(|e| format!("{PORT_FILE}: {e}"))?;
    writeln!(port_file, "{port}").map_err(|e| format!("{PORT_FILE}: {e}"))?;
    Ok(())
}

fn run_tool(
    bin_dir: &Path,
    tool: &str,
    args: &[&str],
    as_postgres: bool,
) -> Result<Output, String> {
    let program = bin_dir.join(tool);
    let mut command = if as_postgres {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(&program);
        c
    } else {
        Command::new(&program)
    };
    command
        .args(args)
        .current_dir("/")
        .output()
        .map_err(|e| format!("running {}: {e}", program.display()))
}

/// The directory holding `initdb` and `pg_ctl`: on PATH, else the newest
/// /usr/lib/postgresql/<version>/bin.
/// Where the local PostgreSQL install keeps its tools (initdb, pg_ctl, pg_dump, psql).
pub fn postgres_bin_dir() -> Option<PathBuf> {
    find_bin_dir()
}

fn find_bin_dir() -> Option<PathBuf> {
    let has_tools = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if has_tools(&dir) {
                // Resolve Debian's wrapper links to the real versioned directory.
                let real = dir.join("initdb").canonicalize().ok();
                return Some(
                    real.and_then(|p| p.parent().map(Path::to_path_buf))
                        .filter(|d| has_tools(d))
                        .unwrap_or(dir),
                );
            }
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            has_tools(&bin).then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// Runs one of the local install's tools (`pg_basebackup`, `pg_ctl`, ...), as the
/// `postgres` user when this process is root, as the private cluster's own tools run: for
/// tests that make standbys of private clusters.
pub fn run_postgres_tool(tool: &str, args: &[&str]) -> Result<Output, String> {
    let bin = find_bin_dir().ok_or_else(|| "no PostgreSQL tools found".to_owned())?;
    run_tool(&bin, tool, args, is_root())
}

/// Whether this process runs as root (files a private cluster uses must then be given to
/// the `postgres` user).
pub fn running_as_root() -> bool {
    is_root()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn home() -> Option<PathBuf> {
        Some(PathBuf::from("/home/ann/.local/share"))
    }

    #[test]
    fn the_private_cluster_lives_in_the_data_directory_whatever_the_working_directory() {
        assert_eq!(
            data_dir_of(None, false, home),
            PathBuf::from("/home/ann/.local/share/warlog/pg")
        );
        assert_eq!(
            data_dir_of(Some("/srv/data".into()), false, home),
            PathBuf::from("/srv/data/warlog/pg")
        );
        assert_eq!(
            data_dir_of(Some("relative".into()), false, home),
            PathBuf::from("/home/ann/.local/share/warlog/pg"),
            "a relative XDG_DATA_HOME is ignored, as the specification says"
        );
    }

    #[test]
    fn root_keeps_its_cluster_under_var_lib_where_the_postgres_user_can_reach_it() {
        assert_eq!(
            data_dir_of(None, true, home),
            PathBuf::from("/var/lib/warlog/pg")
        );
        assert_eq!(
            data_dir_of(Some("/tmp/x".into()), true, home),
            PathBuf::from("/tmp/x/warlog/pg")
        );
    }

    #[test]
    fn with_no_home_at_all_the_cluster_is_beside_the_working_directory() {
        assert_eq!(data_dir_of(None, false, || None), PathBuf::from("var/pg"));
    }
}
