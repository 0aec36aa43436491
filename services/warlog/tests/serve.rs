//! The binary as a newcomer runs it: `warlog serve` with no configuration answers
//! `/healthz`, and stops cleanly on SIGTERM; it does not serve as a superuser unless told to.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A bare HTTP/1.1 GET, so this test needs no HTTP client crate.
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let status = response.split(' ').nth(1)?.parse().ok()?;
    let body = response
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    Some((status, body))
}

struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `warlog` with `args`, run from the workspace, binding `port` and using `database`.
fn warlog(workspace: &std::path::Path, port: u16, database: &str, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warlog"));
    command
        .current_dir(workspace)
        .args(args)
        .env("WARLOG_BIND", format!("127.0.0.1:{port}"))
        .env("WARLOG_DATABASE", database)
        .env("WARLOG_WORKERS", "1");
    command
}

/// Starts `warlog` with `args` on `port` and waits (at most 120 s) for `/healthz`; a process
/// that exits first fails the test.
fn serve_until_healthy(
    workspace: &std::path::Path,
    port: u16,
    database: &str,
    args: &[&str],
) -> (Served, (u16, String)) {
    let child = warlog(workspace, port, database, args)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("warlog starts");
    let mut served = Served(child);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(answer) = get(port, "/healthz") {
            return (served, answer);
        }
        if let Some(status) = served.0.try_wait().expect("status") {
            panic!("warlog {args:?} exited with {status} before serving");
        }
        assert!(
            Instant::now() < deadline,
            "warlog did not answer within 120 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn warlog_serves_healthz_with_no_configuration_and_stops_on_sigterm() {
    let port = free_port();
    let database = format!("warlog_smoke_{}", std::process::id());
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root");
    let (mut served, health) = serve_until_healthy(&workspace, port, &database, &[]);
    assert_eq!(health.0, 200);
    assert!(health.1.contains("\"ok\""), "{}", health.1);
    let ready = get(port, "/readyz").expect("readyz answers");
    assert_eq!(ready.0, 200, "{}", ready.1);

    let pid = served.0.id().to_string();
    let signalled = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(signalled.success());
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = served.0.try_wait().expect("status") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "warlog did not stop within 60 s of SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "warlog exited with {status}");

    drop_database(&workspace, &database);
}

/// The server as `warlog serve` run from the workspace finds it, on a runtime of its own
/// (these tests are not async).
fn on_the_found_server<T>(
    workspace: &std::path::Path,
    work: impl AsyncFnOnce(
        Result<warlog_store::discover::Server, warlog_store::discover::DiscoveryError>,
    ) -> T,
) -> T {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let options = warlog_store::discover::DiscoveryOptions {
            data_dir: workspace.join("var/pg"),
            ..warlog_store::discover::DiscoveryOptions::from_env()
        };
        work(warlog_store::discover::discover(&options).await).await
    })
}

/// Leaves no database behind (best effort: a test has passed or failed either way).
fn drop_database(workspace: &std::path::Path, database: &str) {
    on_the_found_server(workspace, async |server| {
        if let Ok(server) = server {
            if server.source() != warlog_store::discover::Source::DatabaseUrl {
                let _ = server.drop_database(database).await;
            }
        }
    });
}

#[test]
fn warlog_refuses_to_serve_as_a_superuser_and_says_so_in_one_line_unless_told_to() {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root");
    let database = format!("warlog_superuser_{}", std::process::id());
    // No login role: the owner the server was found with (postgres, a superuser, on the
    // local server and on a private cluster alike) would serve with SET ROLE.
    assert!(
        owner_is_superuser(&workspace),
        "this test needs the database owner to be a superuser (DATABASE_URL names another)"
    );
    let refused = warlog(
        &workspace,
        free_port(),
        &database,
        &["serve", "--db-login-role="],
    )
    .env_remove("WARLOG_ALLOW_SUPERUSER")
    .output()
    .expect("warlog runs");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "served as a superuser: {stderr}");
    // The log has the refusal as an ERROR record; the person at the terminal gets it as
    // warlog's one closing line.
    let refusal: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("warlog: refusing to serve"))
        .collect();
    assert_eq!(refusal.len(), 1, "{stderr}");
    assert!(
        refusal[0].contains("a superuser") && refusal[0].contains("--allow-superuser"),
        "{stderr}"
    );

    // Told to, it serves.
    let port = free_port();
    let (served, health) = serve_until_healthy(
        &workspace,
        port,
        &database,
        &["serve", "--db-login-role=", "--allow-superuser"],
    );
    assert_eq!(health.0, 200);
    drop(served);
    drop_database(&workspace, &database);
}

/// Whether the owner the binary finds the server with (as `warlog serve` would) is a
/// superuser.
fn owner_is_superuser(workspace: &std::path::Path) -> bool {
    on_the_found_server(workspace, async |server| {
        let pool = warlog_store::connect_pool(
            server.expect("a server").config(),
            &warlog_store::PoolOptions {
                max_size: 1,
                role: None,
            },
        )
        .await
        .expect("the owner connects");
        let client = pool.get().await.expect("a connection");
        warlog_store::superuser_login(&client)
            .await
            .expect("the login's rights")
            .is_some()
    })
}
