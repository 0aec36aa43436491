//! Registered addresses and strangers at the dice server (issue 52): with registration on,
//! a roll naming an unconfirmed address is refused as TripleA's client reads refusals; the
//! address's owner confirms it by the mailed link; a stranger naming two players spends
//! only their own limits and is told apart on the table; and an owner lists every table
//! naming their address or one that looks like it.

use std::sync::Arc;

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::{json, Value};
use warlog_api::dice_tables::{
    DiceSettings, DiceTables, MailDomains, Registration, DEFAULT_ROLLS_PER_MINUTE,
    DEFAULT_TABLE_ROLLS_PER_MINUTE,
};
use warlog_api::{AppState, Clock, Telemetry};
use warlog_tests::TestDb;

use crate::kit::{assert_problem, call, get, Reply, TestApp};

const ANN: &str = "ann@club.example";
const BOB: &str = "bob@club.example";
const PLAYERS: &str = "198.51.100.7:4000";
const STRANGER: &str = "203.0.113.66:4000";

/// The app on `db`, mailing rolls to `club.example` with the default limits, registration
/// as `registration` says.
macro_rules! registering_app {
    ($db:expr, $registration:expr) => {{
        let telemetry = Telemetry::new().expect("metrics");
        let mut state = AppState::without_notifier($db.pool.clone(), &telemetry);
        let settings = DiceSettings {
            mail: true,
            mail_domains: MailDomains::try_from(&["club.example".to_owned()][..])
                .expect("a domain"),
            ..DiceSettings::default()
        };
        state.dice = Arc::new(
            DiceTables::new(
                settings,
                DEFAULT_ROLLS_PER_MINUTE,
                DEFAULT_TABLE_ROLLS_PER_MINUTE,
            )
            .with_registration($registration),
        );
        state.public_url = Some(
            warlog_api::public_url::PublicUrl::try_from("https://league.example").expect("a URL"),
        );
        let clock =
            Clock::fixed(time::OffsetDateTime::from_unix_timestamp(1_800_000_000).expect("a time"));
        state.clock = clock.clone();
        let app = actix_web::test::init_service(warlog_api::app(state, &telemetry)).await;
        (app, clock)
    }};
}

/// A form field's value as a browser encodes it.
fn encoded(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// One die of six sides for `first` and `second`, asked from `peer`.
fn roll_from(peer: &str, first: &str, second: &str) -> TestRequest {
    TestRequest::post()
        .uri("/api/roll")
        .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
        .peer_addr(peer.parse().expect("an address"))
        .set_payload(format!(
            "times=1&max=6&email1={}&email2={}",
            encoded(first),
            encoded(second)
        ))
}

fn ask_link(peer: &str, address: &str) -> TestRequest {
    TestRequest::post()
        .uri("/v1/dice-addresses")
        .peer_addr(peer.parse().expect("an address"))
        .set_json(json!({ "address": address }))
}

/// The mails to `address`, oldest first: subject and body.
async fn mails_to(db: &TestDb, address: &str) -> Vec<(String, String)> {
    let client = db.pool.get().await.expect("a connection");
    client
        .query(
            "SELECT subject, body FROM mail_outbox WHERE email = $1 ORDER BY began_at, mail_id",
            &[&address],
        )
        .await
        .expect("the outbox")
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect()
}

/// The token of the last link of `page` mailed to `address`.
async fn mailed_token(db: &TestDb, address: &str, page: &str) -> String {
    let mails = mails_to(db, address).await;
    let (_, body) = mails
        .iter()
        .rev()
        .find(|(_, body)| body.contains(page))
        .unwrap_or_else(|| panic!("no link to {page} mailed to {address}: {mails:?}"));
    let from = body.find(&format!("{page}?token=")).expect("the link") + page.len() + 7;
    body[from..]
        .split(|c: char| c.is_whitespace())
        .next()
        .expect("a token")
        .to_owned()
}

/// Registers `address` as its owner would: asks, then opens the mailed link.
async fn register<B: MessageBody>(app: &impl TestApp<B>, db: &TestDb, address: &str) -> Value {
    let asked = call(app, ask_link(PLAYERS, address)).await;
    assert_eq!(asked.status, StatusCode::ACCEPTED, "{}", asked.text());
    let token = mailed_token(db, address, "https://league.example/dice/register/confirm").await;
    let confirmed = call(
        app,
        TestRequest::post()
            .uri("/v1/dice-addresses/confirm")
            .set_json(json!({ "token": token })),
    )
    .await;
    assert_eq!(confirmed.status, StatusCode::OK, "{}", confirmed.text());
    confirmed.json()
}

fn table_of(reply: &Reply) -> String {
    reply
        .header("link")
        .trim_start_matches("</dice/")
        .split('>')
        .next()
        .expect("a table")
        .to_owned()
}

#[actix_web::test]
async fn an_unconfirmed_address_is_refused_as_triplea_reads_it_until_its_owner_opens_the_mailed_link(
) {
    let db = TestDb::new().await;
    let (app, clock) = registering_app!(&db, Registration::Auto);

    // Registration is on by default when rolls are mailed: both addresses are named
    let refused = call(&app, roll_from(PLAYERS, ANN, BOB)).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(
        refused.json(),
        json!({"status": "Error", "errors": [
            "email1 (ann@club.example) is not registered with this dice server: register it at \
             https://league.example/dice/register and open the link mailed to it, then roll again",
            "email2 (bob@club.example) is not registered with this dice server: register it at \
             https://league.example/dice/register and open the link mailed to it, then roll again",
        ]})
    );
    assert!(
        mails_to(&db, ANN).await.is_empty(),
        "a refused roll mails no one"
    );

    // Ann asks, in any spelling: the link goes to her one mailbox
    let asked = call(&app, ask_link(PLAYERS, "Ann@CLUB.example.")).await;
    assert_eq!(asked.status, StatusCode::ACCEPTED, "{}", asked.text());
    assert_eq!(asked.json()["status"], "mailed");
    let mails = mails_to(&db, ANN).await;
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert_eq!(mails[0].0, "Dice: confirm your address");
    let token = mailed_token(&db, ANN, "https://league.example/dice/register/confirm").await;

    // Until the link is opened, Ann is not registered; a forged link confirms nothing
    let still = call(&app, roll_from(PLAYERS, ANN, BOB)).await;
    assert_eq!(still.json()["errors"].as_array().map(Vec::len), Some(2));
    let forged = call(
        &app,
        TestRequest::post()
            .uri("/v1/dice-addresses/confirm")
            .set_json(json!({ "token": format!("{token}x") })),
    )
    .await;
    assert_problem(&forged, StatusCode::FORBIDDEN, "address-link-refused");

    let confirmed = call(
        &app,
        TestRequest::post()
            .uri("/v1/dice-addresses/confirm")
            .set_json(json!({ "token": token })),
    )
    .await;
    assert_eq!(confirmed.status, StatusCode::OK, "{}", confirmed.text());
    assert_eq!(
        confirmed.json(),
        json!({"confirmed": true, "tables": [], "confirmed_lookalike_tables": 0})
    );
    // The mail names no address: the outbox keeps bodies
    assert!(!mails[0].1.contains(ANN), "{}", mails[0].1);
    let half = call(&app, roll_from(PLAYERS, ANN, BOB)).await;
    assert_eq!(half.status, StatusCode::FORBIDDEN);
    assert_eq!(half.json()["errors"].as_array().map(Vec::len), Some(1));
    assert!(
        half.text().contains("email2 (bob@club.example)"),
        "{}",
        half.text()
    );

    // Bob's link, opened after it expired, confirms nothing; a new one does
    let asked = call(&app, ask_link(PLAYERS, BOB)).await;
    assert_eq!(asked.status, StatusCode::ACCEPTED);
    let late = mailed_token(&db, BOB, "https://league.example/dice/register/confirm").await;
    clock.advance(time::Duration::hours(49));
    let expired = call(
        &app,
        TestRequest::post()
            .uri("/v1/dice-addresses/confirm")
            .set_json(json!({ "token": late })),
    )
    .await;
    assert_problem(&expired, StatusCode::FORBIDDEN, "address-link-refused");
    assert!(expired.text().contains("expired"), "{}", expired.text());
    register(&app, &db, BOB).await;

    let rolled = call(&app, roll_from(PLAYERS, ANN, BOB)).await;
    assert_eq!(rolled.status, StatusCode::OK, "{}", rolled.text());
    let dice_mails = |mails: Vec<(String, String)>| {
        mails
            .into_iter()
            .filter(|(subject, _)| subject.starts_with("Dice: 1d6"))
            .count()
    };
    assert_eq!(dice_mails(mails_to(&db, ANN).await), 1);
    assert_eq!(dice_mails(mails_to(&db, BOB).await), 1);

    // An address the operator never mails needs no registration: the roll goes to Ann alone
    let unmailed = call(&app, roll_from(PLAYERS, ANN, "cy@elsewhere.example")).await;
    assert_eq!(unmailed.status, StatusCode::OK, "{}", unmailed.text());
    assert_eq!(dice_mails(mails_to(&db, ANN).await), 2);

    // Every roll's mail says how to stop the dice mail; Bob stops it, and is named no more
    let stop = mailed_token(&db, BOB, "https://league.example/dice/register/stop").await;
    let stopped = call(
        &app,
        TestRequest::post()
            .uri("/v1/dice-addresses/stop")
            .set_json(json!({ "token": stop })),
    )
    .await;
    assert_eq!(stopped.status, StatusCode::OK, "{}", stopped.text());
    assert_eq!(stopped.json()["status"], "stopped");
    let after = call(&app, roll_from(PLAYERS, ANN, BOB)).await;
    assert_eq!(after.status, StatusCode::FORBIDDEN, "{}", after.text());
    assert_eq!(dice_mails(mails_to(&db, BOB).await), 1);

    // A whole-Cyrillic look-alike of an address is another mailbox, never confirmed
    let lookalike = call(&app, roll_from(PLAYERS, ANN, "\u{430}nn@club.example")).await;
    assert_eq!(lookalike.status, StatusCode::BAD_REQUEST, "mixed scripts");
    let cyrillic = call(&app, roll_from(PLAYERS, ANN, "\u{43e}\u{43e}@club.example")).await;
    assert_eq!(
        cyrillic.status,
        StatusCode::FORBIDDEN,
        "{}",
        cyrillic.text()
    );
}

#[actix_web::test]
async fn a_link_is_mailed_at_most_three_times_an_hour_to_one_address_and_ten_for_one_client() {
    let db = TestDb::new().await;
    let (app, _) = registering_app!(&db, Registration::On);
    for _ in 0..3 {
        assert_eq!(
            call(&app, ask_link(STRANGER, ANN)).await.status,
            StatusCode::ACCEPTED
        );
    }
    let fourth = call(&app, ask_link(PLAYERS, ANN)).await;
    assert_problem(&fourth, StatusCode::TOO_MANY_REQUESTS, "too-many-requests");
    assert_eq!(mails_to(&db, ANN).await.len(), 3);
    for n in 3..10 {
        let address = format!("player{n}@club.example");
        assert_eq!(
            call(&app, ask_link(STRANGER, &address)).await.status,
            StatusCode::ACCEPTED
        );
    }
    let eleventh = call(&app, ask_link(STRANGER, "player10@club.example")).await;
    assert_problem(
        &eleventh,
        StatusCode::TOO_MANY_REQUESTS,
        "too-many-requests",
    );
    assert!(mails_to(&db, "player10@club.example").await.is_empty());
    // An address at a domain the operator does not mail cannot be registered
    let elsewhere = call(&app, ask_link(PLAYERS, "eve@elsewhere.example")).await;
    assert_problem(
        &elsewhere,
        StatusCode::UNPROCESSABLE_ENTITY,
        "dice-address-not-mailed",
    );
}

#[actix_web::test]
async fn a_strangers_hundred_rolls_naming_two_players_leave_their_own_next_roll_accepted_and_tagged_apart(
) {
    let db = TestDb::new().await;
    let (app, _) = registering_app!(&db, Registration::On);
    register(&app, &db, ANN).await;
    register(&app, &db, BOB).await;

    let mut refused = 0;
    let mut table = String::new();
    for _ in 0..100 {
        let reply = call(&app, roll_from(STRANGER, ANN, BOB)).await;
        match reply.status {
            StatusCode::OK => table = table_of(&reply),
            StatusCode::TOO_MANY_REQUESTS => refused += 1,
            other => panic!("{other}: {}", reply.text()),
        }
    }
    // Their 60 a minute (refilled as the rolls go, so a few more may pass on a slow run)
    assert!(refused > 0, "the stranger was stopped by their own limit");
    let accepted = 100 - refused;
    let players = call(&app, roll_from(PLAYERS, BOB, ANN)).await;
    assert_eq!(players.status, StatusCode::OK, "{}", players.text());
    assert_eq!(table_of(&players), table);
    assert_eq!(
        mails_to(&db, ANN)
            .await
            .iter()
            .filter(|(subject, _)| subject.starts_with("Dice: 1d6"))
            .count(),
        accepted + 1,
        "the players' own roll is mailed, as were the stranger's it allowed"
    );

    // The table tells the players' roll from the stranger's
    let view = call(&app, get(&format!("/v1/dice-tables/{table}")))
        .await
        .json();
    let rolls = view["latest_rolls"].as_array().expect("rolls");
    let tags: Vec<&str> = rolls
        .iter()
        .map(|r| r["client"].as_str().expect("a client tag"))
        .collect();
    assert_eq!(tags.len(), accepted + 1);
    let (newest, strangers) = tags.split_first().expect("a roll");
    assert!(
        strangers.iter().all(|t| t == &strangers[0]),
        "{strangers:?}"
    );
    assert_ne!(newest, &strangers[0], "the players' roll has its own tag");
    assert_eq!(newest.len(), 8);
    let page = call(&app, get(&format!("/dice/{table}"))).await.text();
    assert!(page.contains(newest) && page.contains(strangers[0]));
    assert!(!page.contains("198.51.100.7") && !page.contains("203.0.113.66"));
}

#[actix_web::test]
async fn an_owner_lists_every_table_naming_their_address_or_one_that_looks_like_it() {
    let db = TestDb::new().await;
    // Tables made while anyone could be named (registration off): the owner finds them all
    let (app, _) = registering_app!(&db, Registration::Off);
    let eve = "eve@club.example";
    let mut lookalikes = Vec::new();
    for spelling in [
        "bob+x@club.example",
        "b.ob@club.example",
        "b0b@club.example",
    ] {
        let reply = call(&app, roll_from(STRANGER, eve, spelling)).await;
        assert_eq!(reply.status, StatusCode::OK, "{spelling}: {}", reply.text());
        lookalikes.push(table_of(&reply));
    }
    let real = table_of(&call(&app, roll_from(PLAYERS, ANN, "BOB@Club.Example.")).await);
    let unrelated = table_of(&call(&app, roll_from(STRANGER, eve, "rob@club.example")).await);

    let listed = register(&app, &db, BOB).await;
    let tables = listed["tables"].as_array().expect("tables");
    let exactly = |id: &str| {
        tables
            .iter()
            .find(|t| t["table"] == id)
            .map(|t| t["exactly"].as_bool().expect("a flag"))
    };
    assert_eq!(exactly(&real), Some(true), "{listed}");
    for table in &lookalikes {
        assert_eq!(exactly(table), Some(false), "{table}: {listed}");
    }
    assert_eq!(exactly(&unrelated), None, "rob is not bob");
    assert_eq!(tables.len(), 4);
    assert_eq!(listed["confirmed_lookalike_tables"], 0);

    // Whoever owns and confirms a look-alike sees its own tables, never Bob's; Bob's list
    // then counts that look-alike's table without listing it (another person's mailbox)
    let theirs = register(&app, &db, "b0b@club.example").await;
    let their_tables: Vec<&str> = theirs["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| t["table"].as_str().expect("an id"))
        .collect();
    assert!(!their_tables.contains(&real.as_str()), "{theirs}");
    assert!(their_tables.contains(&lookalikes[2].as_str()), "{theirs}");
    assert_eq!(
        theirs["confirmed_lookalike_tables"], 1,
        "Bob's own table, counted"
    );

    // Later, asking again mails the list's link instead of a confirmation
    assert_eq!(
        call(&app, ask_link(PLAYERS, BOB)).await.status,
        StatusCode::ACCEPTED
    );
    let mails = mails_to(&db, BOB).await;
    let last = mails.last().expect("a mail");
    assert_eq!(last.0, "Dice: the tables naming your address");
    let token = mailed_token(&db, BOB, "https://league.example/dice/register/tables").await;
    let again = call(
        &app,
        get(&format!("/v1/dice-addresses/tables?token={token}")),
    )
    .await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text());
    let now_listed = again.json();
    assert_eq!(now_listed["confirmed_lookalike_tables"], 1, "{now_listed}");
    let still: Vec<&Value> = listed["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .filter(|t| t["table"] != lookalikes[2].as_str())
        .collect();
    assert_eq!(
        now_listed["tables"]
            .as_array()
            .expect("tables")
            .iter()
            .collect::<Vec<_>>(),
        still
    );
    assert_eq!(again.header("cache-control"), "no-store");
    // The list names tables, never an address
    assert!(!again.text().contains("bob"), "{}", again.text());
}
