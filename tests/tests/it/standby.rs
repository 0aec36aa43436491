//! Reads from a streaming standby (issue 22): a primary and a standby made with
//! `pg_basebackup`, both private clusters of the test's own. Board views read from the
//! standby; a write's `Consistency-Token` keeps a client's reads after its own writes, the
//! standby serving them once it has replayed that far and the primary meanwhile.

use std::process::Command;

use actix_web::http::StatusCode;
use serde_json::json;
use warlog_api::auth::Role;
use warlog_api::{AppState, Telemetry};
use warlog_store::discover::{
    discover, postgres_bin_dir, run_postgres_tool, running_as_root, DiscoveryOptions,
};
use warlog_store::{connect_pool, PoolOptions};

use crate::kit::{call, get, post};

/// Runs a PostgreSQL tool as the private clusters' tools run; it must succeed.
fn run(tool: &str, args: &[&str]) {
    let out = run_postgres_tool(tool, args).expect("the tool runs");
    assert!(
        out.status.success(),
        "{tool} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
}

#[actix_web::test]
async fn board_views_read_from_the_standby_and_a_consistency_token_keeps_read_your_writes() {
    if postgres_bin_dir().is_none_or(|d| !d.join("pg_basebackup").is_file()) {
        eprintln!("no pg_basebackup: the standby test is skipped (apt-get install postgresql)");
        return;
    };
    let root =
        std::env::temp_dir().join(format!("warlog-standby-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&root).expect("a directory");
    if running_as_root() {
        // pg_basebackup runs as postgres and writes the standby under this directory.
        let out = Command::new("chown")
            .arg("postgres")
            .arg(&root)
            .output()
            .expect("chown runs");
        assert!(out.status.success());
    }
    let server = discover(&DiscoveryOptions {
        database_url: None,
        probe_local: false,
        data_dir: root.join("primary"),
    })
    .await
    .expect("a primary");
    let primary_port = server
        .config()
        .get_ports()
        .first()
        .copied()
        .expect("a port");
    server.create_database("warlog").await.expect("a database");
    let config = server.config_for("warlog");
    warlog::migrate(&config).await.expect("migrated");
    let gm = warlog::owner_token(&config, "gus", Role::Gm)
        .await
        .expect("token");

    // The standby: a base backup of the primary, following it by streaming replication.
    let standby_dir = root.join("standby");
    let standby_port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let (dir, log) = (standby_dir.display().to_string(), root.join("standby.log"));
    let primary = primary_port.to_string();
    let dir2 = dir.clone();
    tokio::task::spawn_blocking(move || {
        run(
            "pg_basebackup",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &primary,
                "-U",
                "postgres",
                "-D",
                &dir2,
                "-R",
                "-X",
                "stream",
                "--checkpoint=fast",
            ],
        );
    })
    .await
    .expect("backed up");
    let mut conf = std::fs::read_to_string(standby_dir.join("postgresql.auto.conf")).expect("conf");
    conf.push_str(&format!("port = {standby_port}\nhot_standby = on\n"));
    std::fs::write(standby_dir.join("postgresql.auto.conf"), conf).expect("written");
    let (dir3, log3) = (dir.clone(), log.display().to_string());
    tokio::task::spawn_blocking(move || {
        run(
            "pg_ctl",
            &["start", "-D", &dir3, "-l", &log3, "-w", "-t", "60"],
        );
    })
    .await
    .expect("started");

    let mut standby = tokio_postgres::Config::new();
    standby
        .host("127.0.0.1")
        .port(standby_port)
        .user("postgres")
        .dbname("warlog")
        .ssl_mode(tokio_postgres::config::SslMode::Disable);
    let service = PoolOptions {
        max_size: 4,
        ..PoolOptions::default()
    };
    let primary_pool = connect_pool(config.clone(), &service)
        .await
        .expect("primary pool");
    let standby_pool = connect_pool(standby.clone(), &service)
        .await
        .expect("standby pool");
    let state = |reads| {
        let telemetry = Telemetry::new().expect("metrics");
        let mut state = AppState::without_notifier(primary_pool.clone(), &telemetry);
        state.reads = Some(reads);
        (state, telemetry)
    };
    let (writer_state, writer_telemetry) = state(standby_pool.clone());
    let writer =
        actix_web::test::init_service(warlog_api::app(writer_state, &writer_telemetry)).await;
    // Another replica of the service: its caches have not seen the writer's games.
    let (reader_state, reader_telemetry) = state(standby_pool.clone());
    let reader =
        actix_web::test::init_service(warlog_api::app(reader_state, &reader_telemetry)).await;
    let create = || {
        post(
            "/v1/games",
            &gm,
            &json!({"ruleset": "cutthroat", "players": ["ann", "bob", "cy", "di", "ed"]}),
        )
    };

    // The standby stops replaying: what the primary writes now, it does not have.
    let (admin, connection) = standby
        .connect(tokio_postgres::NoTls)
        .await
        .expect("an admin connection to the standby");
    tokio::spawn(connection);
    admin
        .batch_execute("SELECT pg_wal_replay_pause()")
        .await
        .expect("paused");
    let created = call(&writer, create()).await;
    assert_eq!(created.status, StatusCode::CREATED);
    let token = created
        .headers
        .get("consistency-token")
        .and_then(|v| v.to_str().ok())
        .expect("a consistency token")
        .to_owned();
    let game = created.json()["game_id"].as_str().expect("id").to_owned();
    let url = format!("/v1/games/{game}/board");
    // Without the token the read goes to the standby, which has not got the game.
    let stale = call(&reader, get(&url)).await;
    assert_eq!(stale.status, StatusCode::NOT_FOUND, "read from the standby");
    // With it, the standby is behind: the primary answers.
    let fresh = call(
        &reader,
        get(&url).insert_header(("Consistency-Token", token.clone())),
    )
    .await;
    assert_eq!(fresh.status, StatusCode::OK, "read your writes");
    // A token that is not one is refused.
    let bad = call(
        &reader,
        get(&url).insert_header(("Consistency-Token", "soon")),
    )
    .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);

    // Replay resumes: the standby catches up and serves the game itself.
    admin
        .batch_execute("SELECT pg_wal_replay_resume()")
        .await
        .expect("resumed");
    warlog_tests::eventually(
        "the standby to replay the game",
        std::time::Duration::from_secs(30),
        || async {
            let replayed =
                warlog_store::replica::has_replayed(&standby_pool.get().await.ok()?, &token)
                    .await
                    .ok()?;
            replayed.then_some(())
        },
    )
    .await;
    let from_standby = call(&reader, get(&format!("/v1/games/{game}"))).await;
    assert_eq!(from_standby.status, StatusCode::OK);

    drop(admin);
    primary_pool.close();
    standby_pool.close();
    let dir4 = dir.clone();
    tokio::task::spawn_blocking(move || {
        run("pg_ctl", &["stop", "-D", &dir4, "-m", "fast", "-w"]);
    })
    .await
    .expect("stopped");
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&root);
}
