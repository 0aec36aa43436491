//! A dice table's pages over real PostgreSQL (issue 38): rolls made through TripleA's
//! `POST /api/roll`, then the table's page (rolls, commitments, the export, never the
//! addresses), the reveal link's page (which changes nothing), and the reveal's form,
//! refused in plain words, done by the mailed link's token or after the idle time.

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::Value;
use warlog_api::dice_tables::{
    DiceSettings, DiceTables, DEFAULT_ROLLS_PER_MINUTE, DEFAULT_TABLE_ROLLS_PER_MINUTE,
};
use warlog_api::{AppState, Clock, Telemetry};
use warlog_rules::dice::GameSeed;
use warlog_tests::TestDb;

use crate::kit::{call, get, Reply, TestApp};
use crate::tournaments::START;

const ANN: &str = "ann@club.example";
const BOB: &str = "bob@club.example";
const PAIR: &str = "email1=ann@club.example&email2=bob@club.example";

/// The app on a test's database at [`START`], mailing each roll (or not: `without mail`),
/// the state it runs on (for the service's dice keys) and its clock.
macro_rules! dice_app {
    ($db:expr) => {
        dice_app!($db, mail true)
    };
    ($db:expr, without mail) => {
        dice_app!($db, mail false)
    };
    ($db:expr, mail $mail:expr) => {{
        let telemetry = Telemetry::new().expect("metrics");
        let mut state = AppState::without_notifier($db.pool.clone(), &telemetry);
        let settings = DiceSettings {
            mail: $mail,
            mail_domains: if $mail {
                warlog_api::dice_tables::MailDomains::Any
            } else {
                warlog_api::dice_tables::MailDomains::None
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
        if $mail {
            crate::dice::confirmed(&state, &[ANN, BOB]).await;
        }
        let app =
            actix_web::test::init_service(warlog_api::app(state.clone(), &telemetry)).await;
        (app, state, clock)
    }};
}

fn form(uri: &str, body: &str) -> TestRequest {
    TestRequest::post()
        .uri(uri)
        .insert_header(("content-type", "application/x-www-form-urlencoded"))
        .set_payload(body.to_owned())
}

/// Three dice of six sides at Ann and Bob's table: the answer's `result`, and the table's
/// id from the `Link` header.
pub(crate) async fn roll<B: MessageBody>(app: &impl TestApp<B>) -> (Value, String) {
    let reply = call(app, form("/api/roll", &format!("times=3&max=6&{PAIR}"))).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let answer = reply.json();
    assert_eq!(answer["status"], "OK", "{answer}");
    let link = reply.header("link");
    let table = link
        .strip_prefix("</dice/")
        .and_then(|rest| rest.strip_suffix(">; rel=\"dice-table\""))
        .unwrap_or_else(|| panic!("the table's page in the Link header: {link}"))
        .to_owned();
    (answer["result"].clone(), table)
}

/// The table as the API shows it.
async fn table_json<B: MessageBody>(app: &impl TestApp<B>, table: &str) -> Value {
    let reply = call(app, get(&format!("/v1/dice-tables/{table}"))).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    reply.json()
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

/// A page's text as read: long digits may break at a `<wbr>`, which adds no character.
fn read(reply: &Reply) -> String {
    reply.text().replace("<wbr>", "")
}

/// The reveal token mailed with epoch `epoch`'s rolls.
pub(crate) async fn reveal_token(state: &AppState, table: &str, epoch: u32) -> String {
    let keys = state
        .dice
        .keys(state.store.pool())
        .await
        .expect("the dice keys");
    keys.reveal_token(table, epoch)
}

/// No page of a table shows either address, or Rust's own words for a value.
fn plain(page: &str) {
    for private in ["ann@", "bob@", "club.example", "ann%40"] {
        assert!(!page.contains(private), "{private} on the page: {page}");
    }
    for debug in ["Some(", "None", "DiceTable", "EpochView", "RollView", "\\n"] {
        assert!(!page.contains(debug), "{debug} on the page: {page}");
    }
}

#[actix_web::test]
async fn a_tables_page_shows_its_rolls_newest_first_and_its_commitment_and_never_the_addresses() {
    let db = TestDb::new().await;
    let (app, _state, _clock) = dice_app!(db);
    let (first, table) = roll(&app).await;
    let (second, again) = roll(&app).await;
    assert_eq!(table, again, "the pair's one table");
    let view = table_json(&app, &table).await;

    let reply = page(&app, get(&format!("/dice/{table}"))).await;
    assert_eq!(reply.status, StatusCode::OK);
    let text = read(&reply);
    plain(&text);
    assert!(
        text.contains("A dice server table for two players"),
        "{text}"
    );
    assert!(text.contains("every roll is signed"), "{text}");
    assert!(text.contains("each roll is mailed to both"), "{text}");
    // The epoch in force and its commitment.
    assert!(text.contains("Epoch 1, in force"), "{text}");
    let commitment = view["commitment"].as_str().expect("a commitment");
    assert_eq!(commitment.len(), 64);
    assert!(text.contains(commitment), "{text}");
    assert!(text.contains("not revealed yet"), "{text}");
    // Both rolls, newest first, with their dice, what was rolled and their signatures.
    let dice = |result: &Value| {
        result["dice"]
            .as_array()
            .expect("dice")
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let signature = |result: &Value| {
        result["signature"]
            .as_str()
            .expect("a signature")
            .to_owned()
    };
    let newest = text
        .find(&signature(&second))
        .expect("the second roll's signature");
    let oldest = text
        .find(&signature(&first))
        .expect("the first roll's signature");
    assert!(newest < oldest, "newest first: {text}");
    for result in [&first, &second] {
        assert!(
            text.contains(&format!("<strong class=\"dice\">{}</strong>", dice(result))),
            "{} on the page: {text}",
            dice(result)
        );
    }
    assert_eq!(text.matches("3 dice of 6 sides").count(), 2, "{text}");
    // Each roll's number is its index, as the API's view gives it.
    for roll in view["latest_rolls"].as_array().expect("rolls") {
        assert!(
            text.contains(&format!("<td class=\"num\">{}</td>", roll["index"])),
            "{roll}: {text}"
        );
    }
    // The date in words, with the machine's time beside it.
    let at = time::OffsetDateTime::from_unix_timestamp(START).expect("a time");
    let words = format!(
        "{} {} {}, {:02}:{:02} UTC</time>",
        at.day(),
        at.month(),
        at.year(),
        at.hour(),
        at.minute()
    );
    assert!(text.contains(&words), "{words}: {text}");
    // The export, how to read it, the public key and how to check it all.
    let events_url = view["events_url"].as_str().expect("the export");
    assert!(
        text.contains(&format!("href=\"{events_url}\"")),
        "{events_url}: {text}"
    );
    assert!(text.contains("Accept: application/x-ndjson"), "{text}");
    assert!(
        text.contains(&format!(
            "curl -H 'Accept: application/x-ndjson' \\\n  '&lt;this site&gt;{events_url}' &gt; dice-export.ndjson"
        )),
        "{text}"
    );
    assert!(
        text.contains("href=\"/.well-known/warlog-dice-key\""),
        "{text}"
    );
    assert!(
        text.contains("warlog audit dice-export.ndjson --dice-key &lt;public key&gt;"),
        "{text}"
    );
    // The reveal: a form, and the words on when it works without the mailed link.
    assert!(
        text.contains(&format!(
            "<form class=\"reveal\" method=\"post\" action=\"/dice/{table}/reveal\">"
        )),
        "{text}"
    );
    assert!(text.contains(">Reveal the seed</button>"), "{text}");
    assert!(
        text.contains("Each roll's e-mail has a link that reveals the seed at any time"),
        "{text}"
    );
    assert!(text.contains("has not rolled for 7 days"), "{text}");
    let idle_from = view["idle_reveal_from"].as_str().expect("when");
    assert!(
        text.contains(&format!("<time datetime=\"{idle_from}\">")),
        "{idle_from}: {text}"
    );

    // The export the page points to is the table's record as NDJSON, every event a line.
    let export = call(
        &app,
        get(events_url).insert_header(("accept", "application/x-ndjson")),
    )
    .await;
    assert_eq!(export.status, StatusCode::OK, "{}", export.text());
    assert_eq!(
        export.text().lines().count() as u64,
        view["version"].as_u64().expect("a version")
    );
    plain(&export.text());
}

#[actix_web::test]
async fn the_reveal_links_page_says_what_revealing_does_and_changes_nothing() {
    let db = TestDb::new().await;
    let (app, state, _clock) = dice_app!(db);
    let (_, table) = roll(&app).await;
    let before = table_json(&app, &table).await;
    let token = reveal_token(&state, &table, 1).await;

    let reply = page(&app, get(&format!("/dice/{table}/reveal?token={token}"))).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("cache-control"), "no-store");
    let text = read(&reply);
    plain(&text);
    assert!(
        text.contains("everyone can recompute every roll of this epoch"),
        "{text}"
    );
    assert!(text.contains("new seed, committed now"), "{text}");
    assert!(
        text.contains(&format!(
            "<input type=\"hidden\" name=\"token\" value=\"{token}\">"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("action=\"/dice/{table}/reveal\"")),
        "{text}"
    );
    // Opened twice (a mail scanner, then the player): the table is as it was.
    let _ = call(&app, get(&format!("/dice/{table}/reveal?token={token}"))).await;
    assert_eq!(table_json(&app, &table).await, before);

    // A link that is none of the table's says so, and offers no button.
    let wrong = page(
        &app,
        get(&format!("/dice/{table}/reveal?token={}", "0".repeat(32))),
    )
    .await;
    assert_eq!(wrong.status, StatusCode::OK);
    let text = read(&wrong);
    assert!(
        text.contains("This link is not one this table mailed"),
        "{text}"
    );
    assert!(!text.contains("<form"), "{text}");
    assert_eq!(table_json(&app, &table).await, before);
}

#[actix_web::test]
async fn a_reveal_without_the_link_is_refused_in_plain_words_while_the_table_has_just_rolled() {
    let db = TestDb::new().await;
    let (app, _state, _clock) = dice_app!(db);
    let (_, table) = roll(&app).await;
    let before = table_json(&app, &table).await;

    let reply = page(&app, form(&format!("/dice/{table}/reveal"), "")).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{}", reply.text());
    let text = read(&reply);
    plain(&text);
    assert!(text.contains("Seed not revealed"), "{text}");
    assert!(text.contains("rolled less than 7 days ago"), "{text}");
    assert!(text.contains("Nothing was changed."), "{text}");
    assert!(text.contains(&format!("href=\"/dice/{table}\"")), "{text}");
    assert_eq!(table_json(&app, &table).await, before);
}

#[actix_web::test]
async fn the_mailed_links_token_reveals_the_seed_and_the_page_then_shows_it_and_the_next_commitment(
) {
    let db = TestDb::new().await;
    let (app, state, _clock) = dice_app!(db);
    let (_, table) = roll(&app).await;
    let token = reveal_token(&state, &table, 1).await;

    let reply = call(
        &app,
        form(&format!("/dice/{table}/reveal"), &format!("token={token}")),
    )
    .await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER, "{}", reply.text());
    let location = reply.header("location");
    assert_eq!(location, format!("/dice/{table}?revealed=1"));

    let view = table_json(&app, &table).await;
    let epochs = view["epochs"].as_array().expect("epochs");
    assert_eq!(epochs.len(), 2, "{view}");
    let seed = epochs[0]["seed"]
        .as_str()
        .expect("epoch 1's seed, revealed");
    let bytes: [u8; 32] = hex::decode(seed)
        .expect("hex")
        .try_into()
        .expect("32 bytes");
    assert_eq!(
        hex::encode(GameSeed::from_bytes(bytes).commitment()),
        epochs[0]["commitment"].as_str().expect("its commitment"),
        "the seed is the one committed"
    );
    let next = epochs[1]["commitment"]
        .as_str()
        .expect("epoch 2's commitment");

    let shown = page(&app, get(&location)).await;
    assert_eq!(shown.status, StatusCode::OK);
    let text = read(&shown);
    plain(&text);
    assert!(text.contains("Seed revealed"), "{text}");
    assert!(text.contains(seed), "epoch 1's seed: {text}");
    assert!(text.contains(next), "epoch 2's commitment: {text}");
    assert!(text.contains("Epoch 2, in force"), "{text}");
    // Nothing has rolled under epoch 2: nothing to reveal, no button.
    assert!(
        text.contains("No roll has been made under epoch 2 yet"),
        "{text}"
    );
    assert!(!text.contains("<form"), "{text}");

    // The link again: its epoch is revealed already, and the page says where.
    let stale = page(&app, get(&format!("/dice/{table}/reveal?token={token}"))).await;
    let text = read(&stale);
    assert!(
        text.contains("This link was mailed for epoch 1, whose seed has been revealed already"),
        "{text}"
    );
    assert!(!text.contains("<form"), "{text}");
    // Pressed again (a reload of the form): nothing to reveal, in words.
    let again = page(
        &app,
        form(&format!("/dice/{table}/reveal"), &format!("token={token}")),
    )
    .await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.text());
    assert!(
        again.text().contains("nothing to check yet"),
        "{}",
        again.text()
    );
    assert_eq!(table_json(&app, &table).await, view);
}

#[actix_web::test]
async fn a_table_idle_for_the_operators_time_is_revealed_by_anyone_from_its_page() {
    let db = TestDb::new().await;
    let (app, _state, clock) = dice_app!(db, without mail);
    let (_, table) = roll(&app).await;
    let text = page(&app, get(&format!("/dice/{table}"))).await.text();
    assert!(
        text.contains("This service does not mail rolls, so the button works once the table has not rolled for 7 days"),
        "{text}"
    );
    assert!(!text.contains("mailed to both"), "{text}");
    clock.advance(time::Duration::days(7));

    let reply = call(&app, form(&format!("/dice/{table}/reveal"), "")).await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER, "{}", reply.text());
    let view = table_json(&app, &table).await;
    assert!(view["epochs"][0]["seed"].is_string(), "{view}");
    assert_eq!(view["epoch"], 2, "{view}");
}

#[actix_web::test]
async fn an_unknown_table_is_a_page_not_found_whichever_page_is_asked() {
    let db = TestDb::new().await;
    let (app, _state, _clock) = dice_app!(db);
    let unknown = "0123456789abcdef0123456789abcdef";
    for req in [
        get(&format!("/dice/{unknown}")),
        get(&format!("/dice/{unknown}/reveal?token=abc")),
        form(&format!("/dice/{unknown}/reveal"), ""),
        get("/dice/not-a-table"),
    ] {
        let reply = page(&app, req).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{}", reply.text());
        plain(&reply.text());
    }
    let text = page(&app, get(&format!("/dice/{unknown}"))).await.text();
    assert!(text.contains("no dice table"), "{text}");

    // Another method at the reveal is told the two it answers.
    let put = call(
        &app,
        TestRequest::put().uri(&format!("/dice/{unknown}/reveal")),
    )
    .await;
    assert_eq!(put.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(put.header("allow"), "GET, HEAD, POST");
}
