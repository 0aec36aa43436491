//! TLS to PostgreSQL (issue 22), against a private cluster of the test's own that accepts
//! only TLS, with a self-signed certificate made by `openssl`: every `sslmode` does what
//! libpq's does.

use std::path::Path;
use std::process::Command;

use warlog_store::discover::{discover, DiscoveryOptions};
use warlog_store::tls::{connector_for, parse_database_url};

/// Runs `openssl` with `args` in `dir`; its complaint fails the test.
pub(crate) fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl runs");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A certificate authority `name` (name.crt, name.key).
fn authority(dir: &Path, name: &str) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.crt"),
            "-subj",
            &format!("/CN={name} test authority"),
        ],
    );
}

/// server.crt and server.key for `host`, signed by `ca`.
fn server_certificate(dir: &Path, ca: &str, host: &str) {
    std::fs::write(dir.join("san.ext"), format!("subjectAltName=DNS:{host}\n")).expect("ext");
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            &format!("/CN={host}"),
        ],
    );
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            &format!("{ca}.crt"),
            "-CAkey",
            &format!("{ca}.key"),
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-days",
            "2",
            "-extfile",
            "san.ext",
        ],
    );
}

/// Whether a connection with `url` succeeds, and then whether it is encrypted.
async fn connects(url: &str) -> Result<bool, String> {
    let (config, tls) = parse_database_url(url)?;
    let connector = connector_for(&tls)?;
    let (client, connection) = config.connect(connector).await.map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    let row = client
        .query_one(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .await
        .map_err(|e| e.to_string())?;
    Ok(row.get(0))
}

#[actix_web::test]
async fn each_sslmode_does_what_libpqs_does_against_a_tls_only_server() {
    if Command::new("openssl").arg("version").output().is_err() {
        eprintln!("no openssl on PATH: the TLS test is skipped");
        return;
    }
    let root = std::env::temp_dir().join(format!("warlog-tls-{}", uuid::Uuid::new_v4().simple()));
    let data = root.join("pg");
    let server = discover(&DiscoveryOptions {
        database_url: None,
        probe_local: false,
        data_dir: data.clone(),
    })
    .await
    .expect("a private cluster");
    let port = server
        .config()
        .get_ports()
        .first()
        .copied()
        .expect("a port");

    // The server's certificate names db.example, signed by a test authority; another
    // authority signed nothing of it.
    let certs = root.join("certs");
    std::fs::create_dir_all(&certs).expect("a directory");
    authority(&certs, "ca");
    authority(&certs, "other");
    server_certificate(&certs, "ca", "db.example");
    for file in ["server.crt", "server.key"] {
        std::fs::copy(certs.join(file), data.join(file)).expect("copied");
    }
    let owner = std::fs::metadata(data.join("PG_VERSION")).expect("the cluster");
    let owner = std::os::unix::fs::MetadataExt::uid(&owner);
    for file in ["server.crt", "server.key"] {
        std::os::unix::fs::chown(data.join(file), Some(owner), None).expect("owned");
    }
    std::fs::set_permissions(
        data.join("server.key"),
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .expect("private");
    let mut conf = std::fs::read_to_string(data.join("postgresql.conf")).expect("conf");
    conf.push_str("\nssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n");
    std::fs::write(data.join("postgresql.conf"), conf).expect("written");
    std::fs::write(
        data.join("pg_hba.conf"),
        "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 reject\n",
    )
    .expect("written");
    let server = tokio::task::spawn_blocking(move || {
        server.stop_cluster().expect("stopped");
        server.start_cluster().expect("started with TLS");
        server
    })
    .await
    .expect("restarted");

    let url = |query: &str| format!("postgres://postgres@127.0.0.1:{port}/postgres?{query}");
    let ca = certs.join("ca.crt").display().to_string();
    let other = certs.join("other.crt").display().to_string();
    // No TLS: the server turns it away.
    assert!(connects(&url("sslmode=disable")).await.is_err());
    // Encrypted, the certificate not checked.
    assert_eq!(connects(&url("sslmode=require")).await, Ok(true));
    assert_eq!(connects(&url("sslmode=prefer")).await, Ok(true));
    // Checked against its root, any host name.
    assert_eq!(
        connects(&url(&format!("sslmode=verify-ca&sslrootcert={ca}"))).await,
        Ok(true)
    );
    assert!(
        connects(&url(&format!("sslmode=verify-ca&sslrootcert={other}")))
            .await
            .is_err()
    );
    // Checked, and for this host: 127.0.0.1 is not db.example.
    let wrong_name = connects(&url(&format!("sslmode=verify-full&sslrootcert={ca}"))).await;
    assert!(wrong_name.is_err(), "{wrong_name:?}");
    // The right name (db.example, reached at 127.0.0.1): accepted.
    let right_name = format!(
        "postgres://postgres@db.example:{port}/postgres?hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert={ca}"
    );
    assert_eq!(connects(&right_name).await, Ok(true));
    // Without a root file, the Mozilla roots: a test authority's certificate is refused.
    assert!(connects(&url("sslmode=verify-full")).await.is_err());

    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&root);
}
