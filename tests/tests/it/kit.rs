//! The tests' HTTP kit, shared by every module: the app on a fresh database (`app!`), a
//! token of any role, requests, replies and problem checks.

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::http::header::HeaderMap;
use actix_web::http::StatusCode;
use actix_web::test::{self, TestRequest};
use actix_web::web::Bytes;
use serde_json::Value;
use warlog_api::auth::{issue_token, Role};
use warlog_tests::TestDb;

#[derive(Debug)]
pub(crate) struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// The body as text (a page).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn code(&self) -> String {
        self.json()["code"].as_str().unwrap_or_default().to_owned()
    }

    /// A header's value as text; empty when absent.
    pub fn header(&self, name: &str) -> String {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    }
}

/// The app under test, as `test::init_service` makes it.
pub(crate) trait TestApp<B>:
    Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>
{
}

impl<S, B> TestApp<B> for S where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>
{
}

pub(crate) async fn call<B: MessageBody>(app: &impl TestApp<B>, req: TestRequest) -> Reply {
    let res = test::call_service(app, req.to_request()).await;
    let status = res.status();
    let headers = res.headers().clone();
    let body = test::read_body(res).await;
    Reply {
        status,
        headers,
        body,
    }
}

pub(crate) fn assert_problem(reply: &Reply, status: StatusCode, code: &str) {
    assert_eq!(
        (reply.status, reply.code().as_str()),
        (status, code),
        "{:?}",
        reply.json()
    );
}

pub(crate) fn get(uri: &str) -> TestRequest {
    TestRequest::get().uri(uri)
}

pub(crate) fn post(uri: &str, token: &str, body: &Value) -> TestRequest {
    TestRequest::post()
        .uri(uri)
        .insert_header(("Authorization", format!("Bearer {token}")))
        .set_json(body)
}

/// The app on a test's database; with a clock, the app and a clock the test moves on.
macro_rules! app {
    ($db:expr) => {{
        let telemetry = warlog_api::Telemetry::new().expect("metrics");
        let state = warlog_api::AppState::without_notifier($db.pool.clone(), &telemetry);
        actix_web::test::init_service(warlog_api::app(state, &telemetry)).await
    }};
    ($db:expr, clock at $start:expr) => {{
        let telemetry = warlog_api::Telemetry::new().expect("metrics");
        let mut state = warlog_api::AppState::without_notifier($db.pool.clone(), &telemetry);
        let clock = warlog_api::Clock::fixed(
            time::OffsetDateTime::from_unix_timestamp($start).expect("a start time"),
        );
        state.clock = clock.clone();
        let app = actix_web::test::init_service(warlog_api::app(state, &telemetry)).await;
        (app, clock)
    }};
}
pub(crate) use app;

/// A live token of `role` named `name` on `db`. Asked again for the same name and role,
/// it gives the same token: the service keeps one live token per name, and a test, its
/// kit and its helpers may each need a seated player's.
pub(crate) async fn token(db: &TestDb, name: &str, role: Role) -> String {
    type Issued = std::collections::HashMap<(String, String, &'static str), String>;
    static ISSUED: std::sync::LazyLock<std::sync::Mutex<Issued>> =
        std::sync::LazyLock::new(Default::default);
    let key = (db.name.clone(), name.to_owned(), role.as_str());
    if let Some(token) = ISSUED.lock().expect("tokens").get(&key) {
        return token.clone();
    }
    // Tokens are an administrator's to make: the service's role may only read them.
    let client = db.admin_pool.get().await.expect("connection");
    let token = issue_token(&client, name, role).await.expect("token");
    ISSUED.lock().expect("tokens").insert(key, token.clone());
    token
}

/// `warlog serve` on `db`, as an operator starts it, on a free port with `options` added;
/// its address once it answers `/readyz`.
pub(crate) async fn serve(db: &TestDb, options: &[&str]) -> std::net::SocketAddr {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().expect("addr");
    let bind = addr.to_string();
    let mut args = vec!["warlog", "serve", "--database", &db.name, "--bind", &bind];
    args.extend_from_slice(options);
    let cli = <warlog::cli::Cli as clap::Parser>::parse_from(args);
    actix_web::rt::spawn(async move {
        if let Err(e) = warlog::run(cli).await {
            panic!("serve: {e}");
        }
    });
    warlog_tests::eventually(
        "the service to be ready",
        std::time::Duration::from_secs(30),
        || async {
            let mut connection = warlog::client::Connection::open(addr).await.ok()?;
            let (status, _) = connection.send("GET", "/readyz", None, "").await.ok()?;
            (status == 200).then_some(())
        },
    )
    .await;
    addr
}
