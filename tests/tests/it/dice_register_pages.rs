//! The dice server's registration pages over real PostgreSQL (issue 52): the form mails a
//! link, the link's page changes nothing until its button is pressed, the confirmed address
//! may then be named in rolls, and a later link lists the tables naming it or a look-alike;
//! refusals in plain words; the pages in headless Chromium with axe-core.

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use warlog_api::dice_tables::{
    DiceSettings, DiceTables, MailDomains, DEFAULT_ROLLS_PER_MINUTE, DEFAULT_TABLE_ROLLS_PER_MINUTE,
};
use warlog_api::{AppState, Clock, Telemetry};
use warlog_tests::TestDb;

use crate::kit::{call, get, Reply, TestApp};
use crate::tournaments::START;

const ANN: &str = "ann@club.example";
const BOB: &str = "bob@club.example";
/// Ann's second mailbox, which looks like her first.
const ANN_TAGGED: &str = "ann+dice@club.example";

/// The app on a test's database at [`START`], mailing rolls and links to `club.example`
/// (or mailing no one: `without mail`); the state it runs on, its clock and its telemetry.
macro_rules! register_app {
    ($db:expr) => {
        register_app!($db, mail true)
    };
    ($db:expr, without mail) => {
        register_app!($db, mail false)
    };
    ($db:expr, mail $mail:expr) => {{
        let telemetry = Telemetry::new().expect("metrics");
        let mut state = AppState::without_notifier($db.pool.clone(), &telemetry);
        let settings = DiceSettings {
            mail: $mail,
            mail_domains: if $mail {
                MailDomains::try_from(&["club.example".to_owned()][..]).expect("a domain")
            } else {
                MailDomains::None
            },
            ..DiceSettings::default()
        };
        state.dice = std::sync::Arc::new(DiceTables::new(
            settings,
            DEFAULT_ROLLS_PER_MINUTE,
            DEFAULT_TABLE_ROLLS_PER_MINUTE,
        ));
        let clock = Clock::fixed(time::OffsetDateTime::from_unix_timestamp(START).expect("a time"));
        state.clock = clock.clone();
        let app =
            actix_web::test::init_service(warlog_api::app(state.clone(), &telemetry)).await;
        (app, state, clock, telemetry)
    }};
}

/// A value as a form carries it.
fn encoded(value: &str) -> String {
    value
        .replace('%', "%25")
        .replace('+', "%2B")
        .replace('@', "%40")
        .replace('&', "%26")
        .replace('=', "%3D")
        .replace(' ', "+")
}

fn form(uri: &str, body: &str) -> TestRequest {
    TestRequest::post()
        .uri(uri)
        .insert_header(("content-type", "application/x-www-form-urlencoded"))
        .set_payload(body.to_owned())
}

/// A page: HTML, with its status.
async fn page<B: MessageBody>(app: &impl TestApp<B>, req: TestRequest) -> Reply {
    let reply = call(app, req).await;
    assert!(
        reply.header("content-type").starts_with("text/html"),
        "a page: {} {}",
        reply.status,
        reply.text()
    );
    reply
}

/// The registration form sent with `address`.
async fn ask_for_link<B: MessageBody>(app: &impl TestApp<B>, address: &str) -> Reply {
    page(
        app,
        form("/dice/register", &format!("address={}", encoded(address))),
    )
    .await
}

/// The latest mail the outbox holds for `address`: its subject and body.
async fn latest_mail(db: &TestDb, address: &str) -> (String, String) {
    let client = db.admin().await;
    let row = client
        .query_opt(
            "SELECT subject, body FROM mail_outbox WHERE email = $1 \
             ORDER BY created_at DESC LIMIT 1",
            &[&address],
        )
        .await
        .expect("read")
        .unwrap_or_else(|| panic!("a mail to {address}"));
    (row.get(0), row.get(1))
}

/// How many mails the outbox holds for `address`.
async fn mails_to(db: &TestDb, address: &str) -> i64 {
    db.admin()
        .await
        .query_one(
            "SELECT count(*) FROM mail_outbox WHERE email = $1",
            &[&address],
        )
        .await
        .expect("read")
        .get(0)
}

/// The link to `page` in a mail's body, as its path and query; and its token.
fn link_in(body: &str, page: &str) -> (String, String) {
    let at = body
        .find(&format!("{page}?token="))
        .unwrap_or_else(|| panic!("a link to {page} in the mail: {body}"));
    let link: String = body[at..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    let token = link
        .split_once("?token=")
        .map(|(_, token)| token.to_owned())
        .expect("a token");
    (link, token)
}

/// Asks for a link for `address` and confirms it through the pages: the confirmation link's
/// token.
async fn register<B: MessageBody>(app: &impl TestApp<B>, db: &TestDb, address: &str) -> String {
    let asked = ask_for_link(app, address).await;
    assert_eq!(asked.status, StatusCode::OK, "{}", asked.text());
    let (_, body) = latest_mail(db, address).await;
    let (_, token) = link_in(&body, "/dice/register/confirm");
    let confirmed = page(
        app,
        form("/dice/register/confirm", &format!("token={token}")),
    )
    .await;
    assert_eq!(confirmed.status, StatusCode::OK, "{}", confirmed.text());
    token
}

/// A roll naming `first` and `second`: the table's id from the `Link` header.
async fn roll<B: MessageBody>(app: &impl TestApp<B>, first: &str, second: &str) -> String {
    let reply = call(
        app,
        form(
            "/api/roll",
            &format!(
                "times=3&max=6&email1={}&email2={}",
                encoded(first),
                encoded(second)
            ),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.json()["status"], "OK", "{}", reply.text());
    let link = reply.header("link");
    link.strip_prefix("</dice/")
        .and_then(|rest| rest.strip_suffix(">; rel=\"dice-table\""))
        .unwrap_or_else(|| panic!("the table's page in the Link header: {link}"))
        .to_owned()
}

/// Asks for Ann's tables link (a minute later: one link a second is mailed to an address)
/// and returns it as its path and query.
async fn tables_link<B: MessageBody>(app: &impl TestApp<B>, db: &TestDb, clock: &Clock) -> String {
    clock.advance(time::Duration::minutes(1));
    let asked = ask_for_link(app, ANN).await;
    assert_eq!(asked.status, StatusCode::OK, "{}", asked.text());
    let (subject, body) = latest_mail(db, ANN).await;
    assert_eq!(subject, "Dice: the tables naming your address");
    link_in(&body, "/dice/register/tables").0
}

/// No page shows Rust's own words for a value.
fn plain(page: &str) {
    for debug in [
        "Some(",
        "None",
        "NamingView",
        "TableNamingView",
        "ApiError",
        "AddressLinkRefused",
        "MalformedRequest",
        "TooManyRequests",
        "DiceAddressNotMailed",
        "\\n",
    ] {
        assert!(!page.contains(debug), "{debug} on the page: {page}");
    }
}

#[actix_web::test]
async fn an_address_is_registered_by_the_form_the_mailed_link_and_its_button_and_then_lists_its_tables(
) {
    let db = TestDb::new().await;
    let (app, _state, clock, _telemetry) = register_app!(db);

    // The form, and what registering is for.
    let reply = page(&app, get("/dice/register")).await;
    assert_eq!(reply.status, StatusCode::OK);
    let text = reply.text();
    plain(&text);
    for words in [
        "only once its owner has confirmed it, by a link mailed to it",
        "TripleA's own Register button opens the official dice server's site",
        "a player of this server registers here",
        "Registered already? The same form mails you a link to the list of every dice table naming your address",
        "<form class=\"search\" method=\"post\" action=\"/dice/register\">",
        "<label for=\"address\">Your e-mail address</label>",
        "name=\"address\"",
        ">Mail me a link</button>",
    ] {
        assert!(text.contains(words), "{words}: {text}");
    }

    // Ann asks: the answer names the address she typed, and a link is mailed to it.
    let reply = ask_for_link(&app, &format!("  {ANN} ")).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.header("cache-control"), "no-store");
    let text = reply.text();
    plain(&text);
    assert!(
        text.contains(&format!("A link was mailed to <strong>{ANN}</strong>.")),
        "{text}"
    );
    assert!(text.contains("open it within 48 hours"), "{text}");
    assert_eq!(mails_to(&db, ANN).await, 1);
    let (subject, body) = latest_mail(&db, ANN).await;
    assert_eq!(subject, "Dice: confirm your address");
    let (link, token) = link_in(&body, "/dice/register/confirm");

    // The link's page (with what a mail client adds) offers the button, and changes nothing,
    // however often it is opened.
    for _ in 0..2 {
        let opened = page(
            &app,
            get(&format!("{link}&utm_source=mail&utm_medium=email")),
        )
        .await;
        assert_eq!(opened.status, StatusCode::OK, "{}", opened.text());
        assert_eq!(opened.header("cache-control"), "no-store");
        assert_eq!(opened.header("referrer-policy"), "no-referrer");
        let text = opened.text();
        plain(&text);
        assert!(
            text.contains("<meta name=\"referrer\" content=\"no-referrer\">"),
            "{text}"
        );
        assert!(
            text.contains("method=\"post\" action=\"/dice/register/confirm\""),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "<input type=\"hidden\" name=\"token\" value=\"{token}\">"
            )),
            "{text}"
        );
        assert!(text.contains(">Confirm this address</button>"), "{text}");
        assert!(
            text.contains("nothing is changed until the button is pressed"),
            "{text}"
        );
    }
    let unconfirmed = call(
        &app,
        get(&format!("/v1/dice-addresses/tables?token={token}")),
    )
    .await;
    assert_eq!(unconfirmed.status, StatusCode::OK, "{}", unconfirmed.text());
    assert_eq!(unconfirmed.json()["confirmed"], false);
    // Its tables page says so too, and how to confirm.
    let tables = page(&app, get(&format!("/dice/register/tables?token={token}"))).await;
    assert_eq!(tables.status, StatusCode::OK);
    let text = tables.text();
    assert!(text.contains("This address is not confirmed yet"), "{text}");
    assert!(
        text.contains("open the link in the confirmation mail and press"),
        "{text}"
    );

    // The button confirms it: no table names it yet.
    let confirmed = page(
        &app,
        form("/dice/register/confirm", &format!("token={token}")),
    )
    .await;
    assert_eq!(confirmed.status, StatusCode::OK, "{}", confirmed.text());
    assert_eq!(confirmed.header("cache-control"), "no-store");
    let text = confirmed.text();
    plain(&text);
    assert!(text.contains("Your address is confirmed"), "{text}");
    assert!(
        text.contains("No table names this address, or one that looks like it, yet."),
        "{text}"
    );
    let now = call(
        &app,
        get(&format!("/v1/dice-addresses/tables?token={token}")),
    )
    .await;
    assert_eq!(now.json()["confirmed"], true, "{}", now.text());

    // Bob and Ann's second mailbox register too; a table for each pair.
    register(&app, &db, BOB).await;
    register(&app, &db, ANN_TAGGED).await;
    let table = roll(&app, ANN, BOB).await;
    let tagged_table = roll(&app, ANN_TAGGED, BOB).await;
    assert_ne!(table, tagged_table);

    // Ann then stops the dice mail to her second mailbox by the link in its roll's mail (a
    // page that changes nothing, then its button): that address is no one's registered
    // mailbox now, only a look-alike of hers, and her list shows its table as one.
    let (_, body) = latest_mail(&db, ANN_TAGGED).await;
    let (stop_link, stop) = link_in(&body, "/dice/register/stop");
    let asked = page(&app, get(&stop_link)).await;
    assert_eq!(asked.status, StatusCode::OK, "{}", asked.text());
    assert!(
        asked.text().contains("Stop the dice mail"),
        "{}",
        asked.text()
    );
    let stopped = page(&app, form("/dice/register/stop", &format!("token={stop}"))).await;
    assert_eq!(stopped.status, StatusCode::OK, "{}", stopped.text());
    assert!(
        stopped.text().contains("The dice mail is stopped"),
        "{}",
        stopped.text()
    );

    // Ann asks again: the mail links to the list of her tables, each linked, with the
    // one naming her other mailbox told apart, and when each first named her.
    let link = tables_link(&app, &db, &clock).await;
    let listed = page(&app, get(&format!("{link}&fbclid=x"))).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.text());
    assert_eq!(listed.header("cache-control"), "no-store");
    assert_eq!(listed.header("referrer-policy"), "no-referrer");
    let text = listed.text();
    plain(&text);
    assert!(
        text.contains("<meta name=\"referrer\" content=\"no-referrer\">"),
        "{text}"
    );
    assert!(
        text.contains("The dice tables naming your address"),
        "{text}"
    );
    for id in [&table, &tagged_table] {
        assert!(
            text.contains(&format!(
                "<a href=\"/dice/{id}\">Dice table {}</a>",
                &id[..8]
            )),
            "{id}: {text}"
        );
    }
    assert_eq!(text.matches("<td>this address</td>").count(), 1, "{text}");
    assert_eq!(text.matches("<td>a look-alike</td>").count(), 1, "{text}");
    assert!(
        text.contains("A look-alike is an address written another way that reads the same"),
        "{text}"
    );
    assert!(
        text.contains(
            "It is another mailbox, so the rolls of a table naming it were not mailed to you."
        ),
        "{text}"
    );
    let (_, token) = link.split_once("?token=").expect("a token");
    let api = call(
        &app,
        get(&format!("/v1/dice-addresses/tables?token={token}")),
    )
    .await;
    for named in api.json()["tables"].as_array().expect("tables") {
        let at = named["named_at"].as_str().expect("a date");
        assert!(
            text.contains(&format!("<time datetime=\"{at}\">")),
            "{at}: {text}"
        );
    }
    assert!(text.contains(" UTC</time>"), "a date in words: {text}");
    // The list shows no address, hers or anyone's.
    assert!(!text.contains("club.example"), "{text}");
}

#[actix_web::test]
async fn a_refusal_is_the_form_again_or_a_page_in_plain_words_with_the_apis_status() {
    let db = TestDb::new().await;
    let (app, _state, _clock, _telemetry) = register_app!(db);

    for (typed, status, words) in [
        (
            "",
            StatusCode::BAD_REQUEST,
            "No link was mailed: give the e-mail address to register.",
        ),
        (
            "not an address",
            StatusCode::BAD_REQUEST,
            "No link was mailed: address is not an e-mail address.",
        ),
        (
            "eve@elsewhere.example",
            StatusCode::UNPROCESSABLE_ENTITY,
            "No link was mailed: this dice server mails no address at elsewhere.example.",
        ),
    ] {
        let reply = ask_for_link(&app, typed).await;
        assert_eq!(reply.status, status, "{typed}: {}", reply.text());
        let text = reply.text();
        plain(&text);
        assert!(text.contains(words), "{typed}: {text}");
        // The form again, with what was typed and the error tied to the field.
        assert!(text.contains("action=\"/dice/register\""), "{text}");
        assert!(text.contains(&format!("value=\"{typed}\"")), "{text}");
        assert!(
            text.contains("aria-describedby=\"address-problem\""),
            "{text}"
        );
    }
    assert_eq!(mails_to(&db, "eve@elsewhere.example").await, 0);

    // Three links an hour to one address; the fourth is refused, in words.
    for _ in 0..3 {
        assert_eq!(ask_for_link(&app, ANN).await.status, StatusCode::OK);
    }
    let refused = ask_for_link(&app, ANN).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(
        refused
            .text()
            .contains("No link was mailed: this address has been mailed 3 links this hour"),
        "{}",
        refused.text()
    );

    // A link that is none of the service's, or cut short: why, and where to ask again.
    for req in [
        form(
            "/dice/register/confirm",
            &format!("token={}", "A".repeat(54)),
        ),
        form("/dice/register/confirm", ""),
        get("/dice/register/tables?token=forged"),
        get("/dice/register/tables"),
        get("/dice/register/confirm"),
    ] {
        let reply = page(&app, req).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{}", reply.text());
        assert_eq!(reply.header("cache-control"), "no-store");
        let text = reply.text();
        plain(&text);
        assert!(text.contains("This link does not work"), "{text}");
        assert!(text.contains("Nothing was changed."), "{text}");
        assert!(text.contains("href=\"/dice/register\""), "{text}");
    }
    let forged = page(
        &app,
        form(
            "/dice/register/confirm",
            &format!("token={}", "A".repeat(54)),
        ),
    )
    .await;
    assert!(
        forged.text().contains(
            "This link is not one the dice server mailed (copy the whole link from the mail)."
        ),
        "{}",
        forged.text()
    );

    // Another method is told the ones each page answers: none is taken for a table.
    for (path, allowed) in [
        ("/dice/register", "GET, HEAD, POST"),
        ("/dice/register/confirm", "GET, HEAD, POST"),
        ("/dice/register/tables", "GET, HEAD"),
    ] {
        let put = call(&app, TestRequest::put().uri(path)).await;
        assert_eq!(put.status, StatusCode::METHOD_NOT_ALLOWED, "{path}");
        assert_eq!(put.header("allow"), allowed, "{path}");
    }
}

#[actix_web::test]
async fn a_dice_server_that_mails_no_one_says_it_registers_no_address() {
    let db = TestDb::new().await;
    let (app, _state, _clock, _telemetry) = register_app!(db, without mail);
    for req in [
        get("/dice/register"),
        form("/dice/register", &format!("address={}", encoded(ANN))),
        get("/dice/register/confirm?token=abc"),
        form("/dice/register/confirm", "token=abc"),
        get("/dice/register/tables?token=abc"),
    ] {
        let reply = page(&app, req).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{}", reply.text());
        let text = reply.text();
        plain(&text);
        assert!(text.contains("No registration here"), "{text}");
        assert!(
            text.contains("sends no mail, so it registers no address"),
            "{text}"
        );
        assert!(!text.contains("<form"), "{text}");
    }
    assert_eq!(mails_to(&db, ANN).await, 0);
}

/// The page test's browser (`tests/pages/run.sh`): playwright-core driving this machine's
/// Chromium, axe-core run on every page. `None` where the machine has none, unless
/// `WARLOG_REQUIRE_CHROMIUM=1`.
struct Browser {
    process: tokio::process::Child,
    requests: tokio::process::ChildStdin,
    answers: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    violations: Vec<String>,
}

impl Browser {
    async fn start(test: &str) -> Option<Self> {
        use tokio::io::AsyncBufReadExt;
        let skipped = |why: &str| {
            assert!(
                std::env::var("WARLOG_REQUIRE_CHROMIUM").as_deref() != Ok("1"),
                "WARLOG_REQUIRE_CHROMIUM=1 but {why}"
            );
            eprintln!("{why}: {test} is skipped");
            None
        };
        let Some(chromium) = crate::pages::chromium() else {
            return skipped("no chromium on PATH (apt-get install chromium)");
        };
        let runs = |program: &str| {
            std::process::Command::new(program)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        };
        if !runs("node") || !runs("npm") {
            return skipped("no node or npm on PATH (apt-get install nodejs npm)");
        }
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("pages")
            .join("run.sh");
        let mut process = tokio::process::Command::new(script)
            .arg(&chromium)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("tests/pages/run.sh starts");
        let requests = process.stdin.take().expect("its input");
        let mut answers =
            tokio::io::BufReader::new(process.stdout.take().expect("its output")).lines();
        match answers.next_line().await {
            Ok(Some(line)) if line.contains("\"ready\":true") => {}
            _ => return skipped("the page browser did not start (tests/pages/run.sh)"),
        }
        Some(Self {
            process,
            requests,
            answers,
            violations: Vec::new(),
        })
    }

    /// Loads `url` in a window `width` pixels wide, keeps a screenshot named `name` under
    /// `target/screenshots/`, notes what axe-core found, and returns the DOM.
    async fn render_at(&mut self, url: &str, name: &str, width: u32) -> String {
        use tokio::io::AsyncWriteExt;
        let shots = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("target")
            .join("screenshots");
        std::fs::create_dir_all(&shots).expect("a screenshot folder");
        let request = serde_json::json!({
            "url": url,
            "width": width,
            "screenshot": shots.join(format!("{name}.png")),
        });
        self.requests
            .write_all(format!("{request}\n").as_bytes())
            .await
            .expect("the browser takes a request");
        let answer = self
            .answers
            .next_line()
            .await
            .expect("the browser answers")
            .expect("the browser answers before it stops");
        let answer: serde_json::Value = serde_json::from_str(&answer).expect("a JSON line");
        if let Some(error) = answer["error"].as_str() {
            panic!("{name}: the browser failed: {error}");
        }
        assert_eq!(answer["status"], 200, "{name}: {url}");
        for rule in answer["violations"]
            .as_array()
            .expect("axe-core's violations")
        {
            for node in rule["nodes"].as_array().expect("its elements") {
                self.violations.push(format!(
                    "{name}: {} ({}): {}\n    element: {}\n    {}",
                    rule["id"], rule["impact"], rule["help"], node["target"], node["summary"]
                ));
            }
        }
        answer["dom"].as_str().unwrap_or_default().to_owned()
    }

    /// Stops the browser; fails on any violation axe-core found.
    async fn finish(self) {
        let Self {
            mut process,
            requests,
            violations,
            ..
        } = self;
        drop(requests);
        let status = process.wait().await.expect("the browser stops");
        assert!(status.success(), "the browser stopped with {status}");
        assert!(
            violations.is_empty(),
            "axe-core found {} violations:\n{}",
            violations.len(),
            violations.join("\n")
        );
    }
}

#[actix_web::test]
async fn the_register_and_tables_pages_render_in_headless_chromium_with_no_axe_violation() {
    let Some(mut browser) = Browser::start("the registration pages' browser test").await else {
        return;
    };
    let db = TestDb::new().await;
    let (app, state, clock, telemetry) = register_app!(db);
    let confirm = {
        let asked = ask_for_link(&app, BOB).await;
        assert_eq!(asked.status, StatusCode::OK);
        link_in(&latest_mail(&db, BOB).await.1, "/dice/register/confirm").0
    };
    register(&app, &db, ANN).await;
    register(&app, &db, ANN_TAGGED).await;
    register(&app, &db, "carl@club.example").await;
    roll(&app, ANN, "carl@club.example").await;
    roll(&app, ANN_TAGGED, "carl@club.example").await;
    let tables = tables_link(&app, &db, &clock).await;

    let (addr, handle) = crate::pages::listen(state, &telemetry);
    let base = format!("http://{addr}");
    for (width, suffix) in [(1280, ""), (390, "-phone")] {
        let asking = browser
            .render_at(
                &format!("{base}/dice/register"),
                &format!("dice-register{suffix}"),
                width,
            )
            .await;
        assert!(asking.contains("Mail me a link"), "{asking}");
        let listed = browser
            .render_at(
                &format!("{base}{tables}"),
                &format!("dice-register-tables{suffix}"),
                width,
            )
            .await;
        assert!(listed.contains("this address"), "{listed}");
        assert!(listed.contains("looks like yours"), "{listed}");
    }
    let opened = browser
        .render_at(&format!("{base}{confirm}"), "dice-register-confirm", 1280)
        .await;
    assert!(opened.contains("Confirm this address"), "{opened}");
    browser.finish().await;
    handle.stop(true).await;
}
