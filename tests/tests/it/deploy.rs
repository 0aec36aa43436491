//! The deploy files (`deploy/compose.yaml`, `deploy/k8s/warlog.yaml`) checked against the
//! binary they run: they parse; every command they give is one `warlog` takes; every
//! environment variable they set is one `warlog --help` names; every probe is a route the
//! service answers.

use std::collections::BTreeSet;

use actix_web::http::StatusCode;
use clap::{CommandFactory, Parser};
use warlog_api::{AppState, Telemetry};
use warlog_tests::TestDb;
use yaml_rust2::{Yaml, YamlLoader};

use crate::kit::{app, call, get};

fn documents(path: &str) -> Vec<Yaml> {
    let text = std::fs::read_to_string(warlog_tests::workspace_root().join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every environment variable the CLI reads, from its own definition.
fn cli_environment() -> BTreeSet<String> {
    fn walk(command: &clap::Command, into: &mut BTreeSet<String>) {
        for arg in command.get_arguments() {
            if let Some(env) = arg.get_env() {
                into.insert(env.to_string_lossy().into_owned());
            }
        }
        for sub in command.get_subcommands() {
            walk(sub, into);
        }
    }
    let mut names = BTreeSet::new();
    walk(&warlog::cli::Cli::command(), &mut names);
    names
}

/// Every value under `key` anywhere in a document.
fn find<'a>(yaml: &'a Yaml, key: &str, into: &mut Vec<&'a Yaml>) {
    match yaml {
        Yaml::Hash(map) => {
            for (k, v) in map {
                if k.as_str() == Some(key) {
                    into.push(v);
                }
                find(v, key, into);
            }
        }
        Yaml::Array(items) => items.iter().for_each(|i| find(i, key, into)),
        _ => {}
    }
}

fn strings(yaml: &Yaml) -> Vec<String> {
    yaml.as_vec()
        .map(|v| {
            v.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[actix_web::test]
async fn the_deploy_files_parse_and_name_only_flags_commands_and_routes_that_exist() {
    let db = TestDb::new().await;
    let app = app!(db);
    let environment = cli_environment();
    let k8s = documents("deploy/k8s/warlog.yaml");
    let compose = documents("deploy/compose.yaml");
    assert_eq!(k8s.len(), 3, "a migration Job, the Deployment, the Service");

    // Environment variables: k8s `env` lists and compose `environment` maps of warlog's.
    let mut set = BTreeSet::new();
    let mut envs = Vec::new();
    for doc in &k8s {
        find(doc, "env", &mut envs);
    }
    for list in envs {
        for entry in list.as_vec().into_iter().flatten() {
            set.insert(entry["name"].as_str().expect("a name").to_owned());
        }
    }
    let warlog_service = &compose[0]["services"]["warlog"];
    for (name, _) in warlog_service["environment"]
        .as_hash()
        .expect("environment")
    {
        set.insert(name.as_str().expect("a name").to_owned());
    }
    assert!(set.contains("WARLOG_BIND"), "{set:?}");
    for name in &set {
        assert!(
            environment.contains(name),
            "{name} is not read by warlog: {environment:?}"
        );
    }

    // Commands: the containers' args and the compose health check parse as warlog's own.
    let mut args = Vec::new();
    for doc in &k8s {
        find(doc, "args", &mut args);
    }
    let mut commands: Vec<Vec<String>> = args.iter().map(|a| strings(a)).collect();
    let check = strings(&warlog_service["healthcheck"]["test"]);
    assert_eq!(check.first().map(String::as_str), Some("CMD"));
    commands.push(check[2..].to_vec());
    assert!(
        commands.iter().any(|c| c == &["migrate".to_owned()]),
        "a migration job"
    );
    for command in &commands {
        let argv = std::iter::once("warlog".to_owned()).chain(command.iter().cloned());
        warlog::cli::Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{command:?}: {e}"));
    }

    // Probes: every path is a route the service answers (200, or 503 while not ready).
    let mut paths = vec![check[check.len() - 1].clone()];
    let mut probes = Vec::new();
    for doc in &k8s {
        for key in ["livenessProbe", "readinessProbe", "startupProbe"] {
            find(doc, key, &mut probes);
        }
    }
    assert!(probes.len() >= 3, "liveness, readiness and startup probes");
    for probe in probes {
        paths.push(
            probe["httpGet"]["path"]
                .as_str()
                .expect("a path")
                .to_owned(),
        );
    }
    for path in paths {
        let reply = call(&app, get(&path)).await;
        assert!(
            matches!(
                reply.status,
                StatusCode::OK | StatusCode::SERVICE_UNAVAILABLE
            ),
            "{path}: {}",
            reply.status
        );
    }

    // The image is the operator's to set, and every container asks for resources.
    let mut images = Vec::new();
    let mut resources = Vec::new();
    for doc in &k8s {
        find(doc, "image", &mut images);
        find(doc, "resources", &mut resources);
    }
    assert!(images
        .iter()
        .all(|i| i.as_str() == Some("REGISTRY/warlog:VERSION")));
    assert_eq!(resources.len(), images.len());
    assert!(resources.iter().all(|r| !r["requests"].is_badvalue()));
}

#[test]
fn the_deploy_files_write_no_password_and_give_the_login_role_one_from_a_secret() {
    let compose = &documents("deploy/compose.yaml")[0];
    // No password in clear: not in a URL's user part, not as a value of a *PASSWORD key.
    for (service, settings) in compose["services"].as_hash().expect("services") {
        let service = service.as_str().expect("a name");
        for (name, value) in settings["environment"].as_hash().into_iter().flatten() {
            let name = name.as_str().expect("a name");
            let value = value.as_str().unwrap_or_default();
            assert!(
                !name.ends_with("PASSWORD"),
                "{service}: {name} gives a password in clear"
            );
            if let Some((_, rest)) = value.split_once("://") {
                let authority = rest.split(['/', '?']).next().unwrap_or_default();
                let user = authority.rsplit_once('@').map_or("", |(user, _)| user);
                assert!(!user.contains(':'), "{service}: {name} carries a password");
            }
        }
    }
    let warlog = &compose["services"]["warlog"];
    let files: BTreeSet<String> = compose["secrets"]
        .as_hash()
        .expect("top-level secrets")
        .keys()
        .map(|k| k.as_str().expect("a name").to_owned())
        .collect();
    for name in strings(&warlog["secrets"]) {
        assert!(
            files.contains(&name),
            "warlog mounts {name}, which is not defined"
        );
    }
    let login = warlog["environment"]["WARLOG_DB_LOGIN_PASSWORD_FILE"]
        .as_str()
        .expect("warlog_service's password comes from a file");
    let secret = login
        .strip_prefix("/run/secrets/")
        .expect("a mounted secret");
    assert!(strings(&warlog["secrets"]).iter().any(|s| s == secret));

    // Kubernetes: every password is a secretKeyRef, and the migration Job sets the login
    // role's.
    let k8s = documents("deploy/k8s/warlog.yaml");
    let mut envs = Vec::new();
    for doc in &k8s {
        find(doc, "env", &mut envs);
    }
    let entries: Vec<&Yaml> = envs
        .iter()
        .flat_map(|l| l.as_vec().into_iter().flatten())
        .collect();
    for entry in &entries {
        let name = entry["name"].as_str().expect("a name");
        if name.contains("PASSWORD") || name == "DATABASE_URL" {
            assert!(
                !entry["valueFrom"]["secretKeyRef"].is_badvalue(),
                "{name} does not come from a Secret"
            );
        }
    }
    assert!(
        entries
            .iter()
            .any(|e| e["name"].as_str() == Some("WARLOG_DB_LOGIN_PASSWORD")),
        "the login role's password from a Secret"
    );
}

#[actix_web::test]
async fn warlog_probe_passes_on_a_ready_service_and_fails_where_none_answers() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let state = AppState::without_notifier(db.pool.clone(), &telemetry);
    let (addr, server) = crate::pages::listen(state, &telemetry);
    let probe = |bind: String| {
        warlog::run(warlog::cli::Cli::parse_from([
            "warlog", "probe", "--path", "/healthz", "--bind", &bind,
        ]))
    };
    probe(addr.to_string()).await.expect("answers 200");
    server.stop(true).await;
    let nobody = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let free = nobody.local_addr().expect("an address");
    drop(nobody);
    let failed = probe(free.to_string()).await.expect_err("nothing listens");
    assert!(matches!(failed, warlog::CliError::Exit(1)), "{failed}");
}
