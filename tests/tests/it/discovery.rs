//! Finding PostgreSQL for the tests and the demo: a private cluster when no server runs, and
//! a malformed `DATABASE_URL` named as such.

use warlog_store::discover::{discover, DiscoveryError, DiscoveryOptions, Source};
use warlog_tests::workspace_root;

/// The path a newcomer without a running PostgreSQL takes: a private cluster created with
/// the local install, started, used, and stopped again.
#[tokio::test]
async fn without_a_server_a_private_cluster_is_created_started_and_stopped() {
    let data_dir = workspace_root()
        .join("var/test-clusters")
        .join(uuid::Uuid::new_v4().simple().to_string())
        .join("pg");
    let options = DiscoveryOptions {
        database_url: None,
        probe_local: false,
        data_dir: data_dir.clone(),
    };
    let server = match discover(&options).await {
        Err(DiscoveryError::NoPostgres) if std::env::var_os("DATABASE_URL").is_some() => {
            eprintln!("skipped: no local PostgreSQL install, tests run against DATABASE_URL");
            return;
        }
        other => other.expect("a private cluster"),
    };
    assert_eq!(server.source(), Source::PrivateCluster);
    assert!(
        server.describe().contains("private cluster"),
        "{}",
        server.describe()
    );
    let config = server.service_database("warlog").await.expect("database");
    let (client, connection) = config
        .connect(tokio_postgres::NoTls)
        .await
        .expect("connects");
    tokio::spawn(connection);
    let db: String = client
        .query_one("SELECT current_database()::text", &[])
        .await
        .expect("query")
        .get(0);
    assert_eq!(db, "warlog");
    drop(client);

    server.shutdown().await;
    let refused = config.connect(tokio_postgres::NoTls).await;
    assert!(refused.is_err(), "the cluster is stopped");
    if let Some(run_dir) = data_dir.parent() {
        let _ = std::fs::remove_dir_all(run_dir);
    }
}

#[tokio::test]
async fn a_malformed_database_url_is_named_as_such() {
    let options = DiscoveryOptions {
        database_url: Some("postgres://[nope".to_owned()),
        probe_local: true,
        data_dir: workspace_root().join("var/unused"),
    };
    let err = discover(&options).await.expect_err("bad url");
    assert!(matches!(err, DiscoveryError::BadUrl(_)), "{err}");
    assert!(err.to_string().contains("DATABASE_URL"));
}
