//! The backup and restore drill (docs/operations.md), end to end: heads published, the
//! database dumped with `pg_dump` and restored into a new one with `psql`, and `warlog
//! verify --heads` passing on the honest restore and naming the stream whose event a
//! tampered dump dropped.

use std::path::PathBuf;
use std::process::Command;

use warlog_api::auth::Role;
use warlog_tests::TestDb;

use crate::games::{create_game, order, pass_until};
use crate::kit::{app, token};

fn tool(name: &str) -> PathBuf {
    warlog_store::discover::postgres_bin_dir()
        .map(|dir| dir.join(name))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

/// The connection arguments for a test database.
fn args(db: &TestDb) -> Vec<String> {
    let config = &db.config;
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        _ => "127.0.0.1".to_owned(),
    };
    vec![
        "-h".into(),
        host,
        "-p".into(),
        config
            .get_ports()
            .first()
            .copied()
            .unwrap_or(5432)
            .to_string(),
        "-U".into(),
        config.get_user().unwrap_or("postgres").to_owned(),
        "-d".into(),
        db.name.clone(),
    ]
}

fn dump(db: &TestDb) -> String {
    let out = Command::new(tool("pg_dump"))
        .args(args(db))
        .args(["--format=plain", "--no-owner"])
        .output()
        .expect("pg_dump runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("a text dump")
}

/// A new database holding `sql`, restored with `psql`.
async fn restore(sql: String) -> TestDb {
    let target = TestDb::empty().await;
    let args = args(&target);
    tokio::task::spawn_blocking(move || {
        let file =
            std::env::temp_dir().join(format!("warlog-restore-{}.sql", uuid::Uuid::new_v4()));
        std::fs::write(&file, sql).expect("written");
        let out = Command::new(tool("psql"))
            .args(args)
            .args(["-q", "-v", "ON_ERROR_STOP=1", "-f"])
            .arg(&file)
            .output()
            .expect("psql runs");
        let _ = std::fs::remove_file(&file);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    })
    .await
    .expect("restored");
    target
}

async fn verified(
    db: &TestDb,
    heads: &std::collections::BTreeMap<String, warlog_store::verify::PublishedHead>,
) -> warlog::verify::Verified {
    let client = db.admin_pool.get().await.expect("connection");
    warlog::verify::verify(&client, heads)
        .await
        .expect("verified")
}

#[actix_web::test]
async fn a_restored_dump_passes_verify_against_the_published_heads_and_a_dropped_event_is_named() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let game = create_game(&app, &gm).await;
    pass_until(&app, &gm, &game, 1, "russia", "Placement").await;
    order(
        &app,
        &gm,
        &game,
        "russia",
        serde_json::json!([{"type": "end_phase"}]),
    )
    .await;
    let stream = format!("game-{game}");

    // Publish the heads.
    let mut published = Vec::new();
    let client = db.admin_pool.get().await.expect("connection");
    let count = warlog::verify::heads(&client, &mut published)
        .await
        .expect("heads");
    assert!(count >= 1);
    let file = std::env::temp_dir().join(format!("warlog-heads-{}.jsonl", uuid::Uuid::new_v4()));
    std::fs::write(&file, &published).expect("written");
    let heads = warlog::verify::read_heads(&file).expect("read back");
    // A heads file that is not one is refused, naming its line.
    std::fs::write(
        &file,
        format!("{}not a head\n", String::from_utf8_lossy(&published)),
    )
    .expect("written");
    let refused = warlog::verify::read_heads(&file).expect_err("unreadable");
    assert!(
        refused.to_string().contains(&format!("line {}", count + 1)),
        "{refused}"
    );
    let _ = std::fs::remove_file(&file);
    let game_head = heads.get(&stream).expect("the game's head").clone();

    // The honest restore.
    let sql = dump(&db);
    let restored = restore(sql.clone()).await;
    let report = verified(&restored, &heads).await;
    assert!(report.problems.is_empty(), "{}", report.render());
    assert_eq!(report.published_checked, heads.len() as u64);
    assert!(report.render().contains("verdict: passed"));

    // A dump whose last event of the game was dropped: a valid but shorter chain, which only
    // the published head shows.
    let last = format!("\t{stream}\t{}\t", game_head.version);
    let tampered: String = sql
        .lines()
        .filter(|line| !line.contains(&last))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_ne!(
        tampered.len(),
        sql.len(),
        "the event's line was in the dump"
    );
    let short = restore(tampered).await;
    let report = verified(&short, &heads).await;
    let named: Vec<&str> = report.problems.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(named, [stream.as_str()], "{}", report.render());
    assert!(
        report.render().contains("holds only"),
        "{}",
        report.render()
    );
    assert!(report.render().contains("verdict: failed"));
}
