//! Dice tables for TripleA players (issue 38): the dice-server protocol spoken as TripleA's
//! client speaks it against a running `warlog serve`, each roll mailed to both addresses
//! through a mail server in the test, the reveal by the mailed link or after the idle time,
//! the limits, and the addresses kept out of every view, page and export.

use std::sync::Arc;
use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use base64::Engine as _;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use warlog_api::dice_tables::{DiceSettings, DiceTables, MailDomains, Registration};
use warlog_api::mail::{MailFrom, MailSettings, Mailer, SmtpUrl};
use warlog_api::{AppState, Telemetry};
use warlog_events::dice_table::{
    canonical_address, date_of, roll_statement, verify_roll, RollSigned,
};
use warlog_rules::game::Moment;
use warlog_tests::{eventually, TestDb};

use crate::kit::{assert_problem, call, get, serve, Reply, TestApp};
use crate::notices::mail_server;

const ANN: &str = "ann@club.example";
const BOB: &str = "bob@club.example";

/// A form body, as TripleA's client encodes it (`@` percent-encoded).
fn form(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(name, value)| format!("{name}={}", value.replace('@', "%40")))
        .collect::<Vec<_>>()
        .join("&")
}

fn roll_request(body: &str) -> TestRequest {
    TestRequest::post()
        .uri("/api/roll")
        .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
        .set_payload(body.to_owned())
}

async fn roll<B: MessageBody>(app: &impl TestApp<B>, times: &str, max: &str) -> Reply {
    let body = form(&[
        ("times", times),
        ("max", max),
        ("email1", ANN),
        ("email2", BOB),
    ]);
    call(app, roll_request(&body)).await
}

/// The table a roll's answer links to.
fn table_of(reply: &Reply) -> String {
    let link = reply.header("link");
    link.strip_prefix("</dice/")
        .and_then(|rest| rest.split_once('>'))
        .map(|(table, _)| table.to_owned())
        .unwrap_or_else(|| panic!("a Link to the table: {link:?}"))
}

/// Dice settings that mail rolls to addresses at `club.example`.
fn mailing_to_the_club() -> DiceSettings {
    DiceSettings {
        mail: true,
        mail_domains: MailDomains::try_from(&["club.example".to_owned()][..]).expect("a domain"),
        ..DiceSettings::default()
    }
}

/// Confirms `addresses` as their owners would by the mailed link, straight in the store:
/// for tests of what follows registration.
pub(crate) async fn confirmed(state: &AppState, addresses: &[&str]) {
    let keys = state.dice.keys(state.store.pool()).await.expect("keys");
    let db = state.store.pool().get().await.expect("a connection");
    for address in addresses {
        let canonical = canonical_address(address, "address").expect("an address");
        warlog_store::dice_addresses::confirm(&db, &keys.address_key(&canonical))
            .await
            .expect("confirmed");
    }
}

/// The app on `db` with these dice settings and limits.
macro_rules! dice_app {
    ($db:expr, $telemetry:expr, $dice:expr) => {{
        let mut state = AppState::without_notifier($db.pool.clone(), $telemetry);
        state.dice = Arc::new($dice);
        state.public_url = Some(
            warlog_api::public_url::PublicUrl::try_from("https://league.example").expect("a URL"),
        );
        let clock = warlog_api::Clock::fixed(
            time::OffsetDateTime::from_unix_timestamp(1_800_000_000).expect("a time"),
        );
        state.clock = clock.clone();
        let keys_state = state.clone();
        let app = actix_web::test::init_service(warlog_api::app(state, $telemetry)).await;
        (app, clock, keys_state)
    }};
}

/// One exchange as TripleA's client makes it (Apache HttpClient 4, as its
/// `MartiDiceRoller` uses it): the path `/api/roll` on the configured URI's scheme, host and
/// port, the form in UTF-8, its own `User-Agent`, gzip accepted; then the answer read whole,
/// whatever its status, and parsed as JSON.
pub(crate) async fn post_as_triplea(
    addr: std::net::SocketAddr,
    body: &str,
) -> (u16, String, Value) {
    let (status, head, body) =
        post_form_as_java(addr, "/api/roll", "triplea/2.7.15043", body).await;
    let json = serde_json::from_str(&body).unwrap_or_else(|e| panic!("JSON ({e}): {body}"));
    (status, head, json)
}

/// A form posted to `path` as TripleA's Java clients post one (HttpClient 4): UTF-8,
/// `user_agent`, gzip accepted, the connection closed after one answer so that the answer
/// can be read to its end; the answer's status, head and body as text, whatever the status.
pub(crate) async fn post_form_as_java(
    addr: std::net::SocketAddr,
    path: &str,
    user_agent: &str,
    body: &str,
) -> (u16, String, String) {
    let mut socket = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connects");
    let request = format!(
        "POST {path} HTTP/1.1\r\nContent-Length: {}\r\n\
         Content-Type: application/x-www-form-urlencoded; charset=UTF-8\r\n\
         Host: {addr}\r\nConnection: close\r\nUser-Agent: {user_agent}\r\n\
         Accept-Encoding: gzip,deflate\r\n\r\n{body}",
        body.len()
    );
    socket
        .write_all(request.as_bytes())
        .await
        .expect("request sent");
    let mut answer = Vec::new();
    socket.read_to_end(&mut answer).await.expect("answer read");
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head and a body");
    let head = String::from_utf8(answer[..split].to_vec()).expect("UTF-8");
    let mut body = answer[split + 4..].to_vec();
    let lower = head.to_ascii_lowercase();
    if lower.contains("transfer-encoding: chunked") {
        body = unchunk(&body);
    }
    if lower.contains("content-encoding: gzip") {
        let mut plain = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&body[..]), &mut plain)
            .expect("gzip");
        body = plain;
    }
    // The answer says UTF-8, which the client then decodes it as.
    let body = String::from_utf8(body).expect("UTF-8");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, head, body)
}

fn unchunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&body[..end]).expect("a chunk size");
        let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        let rest = &body[end + 2..];
        out.extend_from_slice(&rest[..size]);
        body = &rest[size + 2..];
    }
    out
}

/// The dice of an answer as TripleA's client takes them: `status` must be `OK`, and every
/// die of `result.dice` a number from 1 (a die of 0 is refused).
pub(crate) fn dice_as_triplea_reads_them(answer: &Value) -> Result<Vec<u32>, String> {
    if answer["status"] != "OK" {
        return Err(format!(
            "dice server said {}: {}",
            answer["status"], answer["errors"]
        ));
    }
    let dice = answer["result"]["dice"]
        .as_array()
        .ok_or("no dice in the result")?;
    dice.iter()
        .map(|die| match die.as_u64() {
            Some(0) | None => Err(format!("not a die: {die}")),
            Some(n) => Ok(n as u32),
        })
        .collect()
}

#[actix_web::test]
async fn tripleas_client_rolls_against_a_running_server_and_reads_its_dice_or_its_errors() {
    let db = TestDb::new().await;
    let addr = serve(&db, &[]).await;

    // Three six-sided dice for Ann and Bob
    let body = form(&[
        ("times", "3"),
        ("max", "6"),
        ("email1", ANN),
        ("email2", BOB),
    ]);
    let (status, head, answer) = post_as_triplea(addr, &body).await;
    assert_eq!(status, 200, "{answer}");
    let dice = dice_as_triplea_reads_them(&answer).expect("dice");
    assert_eq!(dice.len(), 3);
    assert!(dice.iter().all(|d| (1..=6).contains(d)), "{dice:?}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );

    // Twenty of two sides, the pair given the other way round: the same table
    let body = form(&[
        ("times", "20"),
        ("max", "2"),
        ("email1", BOB),
        ("email2", ANN),
    ]);
    let (_, _, twenty) = post_as_triplea(addr, &body).await;
    let dice = dice_as_triplea_reads_them(&twenty).expect("dice");
    assert_eq!(dice.len(), 20);
    assert!(dice.iter().all(|d| (1..=2).contains(d)), "{dice:?}");

    // The signature holds under the published key, over the table, index, dice and date
    let mut connection = warlog::client::Connection::open(addr)
        .await
        .expect("connects");
    let key = connection
        .json(
            "GET",
            "/.well-known/warlog-dice-key",
            None,
            &Value::Null,
            200,
        )
        .await
        .expect("the key");
    assert_eq!(key["algorithm"], "Ed25519");
    let public_key = base64::engine::general_purpose::STANDARD
        .decode(key["public_key"].as_str().expect("base64"))
        .expect("32 bytes");
    let link = head
        .lines()
        .find_map(|l| {
            l.strip_prefix("link: ")
                .or_else(|| l.strip_prefix("Link: "))
        })
        .expect("a Link header");
    let table = link
        .trim_start_matches("</dice/")
        .split('>')
        .next()
        .expect("a table");
    let view = connection
        .json(
            "GET",
            &format!("/v1/dice-tables/{table}"),
            None,
            &Value::Null,
            200,
        )
        .await
        .expect("the table");
    assert_eq!(view["rolls"], 2);
    let latest = &view["latest_rolls"][0];
    let date_ms = twenty["result"]["date"].as_u64().expect("milliseconds");
    let date = date_of(Moment::from_unix_seconds(date_ms / 1000));
    assert_eq!(latest["date"], date.as_str());
    let statement = roll_statement(&RollSigned {
        table,
        epoch: 1,
        index: latest["index"].as_u64().expect("an index"),
        sides: 2,
        dice: &dice,
        date: &date,
    });
    assert!(verify_roll(
        &public_key,
        &statement,
        twenty["result"]["signature"].as_str().expect("a signature")
    ));

    // A roll of no dice, and one with an address missing: errors the player can act on
    let body = form(&[
        ("times", "0"),
        ("max", "6"),
        ("email1", ANN),
        ("email2", BOB),
    ]);
    let (status, _, refused) = post_as_triplea(addr, &body).await;
    assert_eq!(status, 400);
    assert_eq!(refused["status"], "Error");
    assert!(dice_as_triplea_reads_them(&refused).is_err());
    assert_eq!(
        refused["errors"],
        json!(["times is 0: a roll is 1 to 5000 dice"])
    );
    let body = form(&[("times", "2"), ("max", "6"), ("email1", ANN)]);
    let (status, _, refused) = post_as_triplea(addr, &body).await;
    assert_eq!(status, 400);
    assert_eq!(
        refused["errors"],
        json!(["email2 is missing: give both players' e-mail addresses"])
    );
    // Every reason at once
    let body = form(&[("times", "many"), ("max", "1001"), ("email2", "bob")]);
    let (_, _, refused) = post_as_triplea(addr, &body).await;
    assert_eq!(
        refused["errors"],
        json!([
            "times is \"many\": how many dice to roll, a whole number",
            "email1 is missing: give both players' e-mail addresses",
            "email2 is not an e-mail address"
        ]),
        "the bounds of max are told once times reads"
    );
    // Nothing was rolled for a refused roll
    let view = connection
        .json(
            "GET",
            &format!("/v1/dice-tables/{table}"),
            None,
            &Value::Null,
            200,
        )
        .await
        .expect("the table");
    assert_eq!(view["rolls"], 2);
}

#[actix_web::test]
async fn each_roll_is_mailed_to_both_addresses_with_the_table_and_the_reveal_link_then_forgotten() {
    let db = TestDb::new().await;
    let (port, server) = mail_server().await;
    let telemetry = Telemetry::new().expect("metrics");
    let settings = mailing_to_the_club();
    let (app, _, state) = dice_app!(&db, &telemetry, DiceTables::new(settings, 0, 0));
    confirmed(&state, &[ANN, BOB]).await;
    let first = roll(&app, "3", "6").await;
    assert_eq!(first.status, StatusCode::OK, "{:?}", first.json());
    let second = roll(&app, "1", "20").await;
    let table = table_of(&first);

    let mailer = Mailer::new(MailSettings::new(
        SmtpUrl::try_from(format!("smtp://127.0.0.1:{port}").as_str()).expect("a URL"),
        MailFrom::try_from("Club Dice <dice@club.example>").expect("an address"),
    ))
    .expect("a mailer");
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let sender = warlog_api::mail::spawn_mailer(db.pool.clone(), mailer, stopped);
    eventually("four mails", Duration::from_secs(60), || async {
        (server.delivered().len() >= 4).then_some(())
    })
    .await;
    let _ = stop.send(true);
    sender.await.expect("the mailer stops");

    let delivered = server.delivered();
    assert_eq!(delivered.len(), 4, "two rolls, two addresses each");
    let mut recipients: Vec<String> = delivered.iter().flat_map(|m| m.to.clone()).collect();
    recipients.sort();
    assert_eq!(recipients, [ANN, ANN, BOB, BOB]);
    for (mail, answer) in delivered.iter().zip([&first, &first, &second, &second]) {
        let dice: Vec<String> = answer.json()["result"]["dice"]
            .as_array()
            .expect("dice")
            .iter()
            .map(Value::to_string)
            .collect();
        let listed = dice.join(", ");
        assert!(
            mail.header("Subject").ends_with(&listed),
            "{}",
            mail.header("Subject")
        );
        let body = mail.body();
        assert!(body.contains(&format!("\r\n{listed}\r\n")), "{body}");
        assert!(
            body.contains(&format!("https://league.example/dice/{table}\r\n")),
            "{body}"
        );
        assert!(
            body.contains(&format!(
                "https://league.example/dice/{table}/reveal?token="
            )),
            "{body}"
        );
        assert!(
            body.contains("https://league.example/.well-known/warlog-dice-key"),
            "{body}"
        );
        let signature = answer.json()["result"]["signature"]
            .as_str()
            .expect("a signature")
            .to_owned();
        assert!(body.contains(&format!("Signature: {signature}")), "{body}");
        // Neither address is written in the mail: the envelope carries it
        assert!(!body.contains(ANN) && !body.contains(BOB), "{body}");
    }
    // One roll checked from its mail alone, with openssl and the published key
    check_with_openssl(&app, &delivered[0].body()).await;
    // Once sent, the outbox keeps no address
    let client = db.admin().await;
    let kept: i64 = client
        .query_one(
            "SELECT count(*) FROM mail_outbox WHERE email IS NOT NULL",
            &[],
        )
        .await
        .expect("counted")
        .get(0);
    assert_eq!(kept, 0);
}

/// Checks the roll a mail carries as its reader would, with nothing but the mail, the
/// published key (as PEM) and `openssl pkeyutl -verify`; skipped without openssl.
async fn check_with_openssl<B: MessageBody>(app: &impl TestApp<B>, mail: &str) {
    if std::process::Command::new("openssl")
        .arg("version")
        .output()
        .is_err()
    {
        eprintln!("no openssl on PATH: the check of one roll with it is skipped");
        return;
    }
    let mail = mail.replace("\r\n", "\n");
    let statement = mail
        .split_once("The service signed this statement (Ed25519):\n\n")
        .and_then(|(_, rest)| rest.split_once("\n\nSignature: "))
        .map(|(statement, _)| statement.to_owned())
        .expect("the statement in the mail");
    let signature = mail
        .split_once("Signature: ")
        .and_then(|(_, rest)| rest.lines().next())
        .expect("the signature in the mail");
    let key = call(app, get("/.well-known/warlog-dice-key")).await.json();
    let dir = std::env::temp_dir().join(format!("warlog-roll-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("a folder");
    std::fs::write(
        dir.join("key.pem"),
        key["public_key_pem"].as_str().expect("PEM"),
    )
    .expect("key");
    std::fs::write(
        dir.join("signature.bin"),
        base64::engine::general_purpose::STANDARD
            .decode(signature)
            .expect("base64"),
    )
    .expect("signature");
    let verify = |statement: &str| {
        std::fs::write(dir.join("statement.txt"), statement).expect("statement");
        std::process::Command::new("openssl")
            .current_dir(&dir)
            .args([
                "pkeyutl",
                "-verify",
                "-pubin",
                "-inkey",
                "key.pem",
                "-rawin",
                "-in",
                "statement.txt",
                "-sigfile",
                "signature.bin",
            ])
            .output()
            .expect("openssl runs")
    };
    let checked = verify(&statement);
    assert!(
        checked.status.success(),
        "{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
    let forged = statement.replacen("dice: ", "dice: 1", 1);
    assert!(!verify(&forged).status.success(), "another die fails");
    // The key page states exactly what is signed: its template, filled with this roll's
    // values line by line, is the mailed statement.
    let template = key["statement"].as_str().expect("the statement's form");
    assert_eq!(template.lines().count(), 7, "{template}");
    let filled: Vec<String> = template
        .lines()
        .zip(statement.lines())
        .map(|(form, line)| match form.split_once(": <") {
            Some((name, _)) => {
                let value = line
                    .strip_prefix(&format!("{name}: "))
                    .unwrap_or_else(|| panic!("{line:?} is not the template's {name:?}"));
                format!("{name}: {value}")
            }
            None => form.to_owned(),
        })
        .collect();
    assert_eq!(
        filled.join("\n"),
        statement,
        "the template describes the statement"
    );
    // And its worked example verifies with the published key.
    let example = &key["example"];
    std::fs::write(
        dir.join("signature.bin"),
        base64::engine::general_purpose::STANDARD
            .decode(example["signature"].as_str().expect("a signature"))
            .expect("base64"),
    )
    .expect("signature");
    let checked = verify(example["statement"].as_str().expect("a statement"));
    assert!(checked.status.success(), "the key page's example verifies");
    let _ = std::fs::remove_dir_all(dir);
}

/// How many mails the outbox holds for each address (while they are unsent).
async fn outbox_by_address(db: &TestDb) -> Vec<(String, i64)> {
    let client = db.admin().await;
    client
        .query(
            "SELECT email, count(*) FROM mail_outbox GROUP BY email ORDER BY email",
            &[],
        )
        .await
        .expect("read")
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect()
}

#[actix_web::test]
async fn a_roll_is_mailed_only_where_the_operator_allows_and_refused_past_an_addresss_limit() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let settings = mailing_to_the_club();
    // Registration off: any address may be named, and the operator's domains decide which
    // are mailed.
    let dice = DiceTables::new(settings, 0, 0)
        .mails_per_address(2)
        .with_registration(Registration::Off);
    let (app, _, _) = dice_app!(&db, &telemetry, dice);
    // Ann is at an allowed domain; a stranger's address is not mailed
    for _ in 0..2 {
        let body = form(&[
            ("times", "1"),
            ("max", "6"),
            ("email1", ANN),
            ("email2", "victim@elsewhere.example"),
        ]);
        let rolled = call(&app, roll_request(&body)).await;
        assert_eq!(rolled.status, StatusCode::OK, "{:?}", rolled.json());
    }
    assert_eq!(outbox_by_address(&db).await, [(ANN.to_owned(), 2)]);
    // And Ann is mailed at most twice a minute for one client, however many tables it names
    // her at: a roll that would go unmailed is refused instead, so no one can silence her
    // mail
    let body = form(&[
        ("times", "1"),
        ("max", "6"),
        ("email1", BOB),
        ("email2", ANN),
    ]);
    let refused = call(&app, roll_request(&body)).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        refused.json()["errors"][0],
        "the dice server has mailed one of these addresses as often as it may this minute \
         for you (at most 2 a minute to one address): roll again in a minute"
    );
    assert_eq!(outbox_by_address(&db).await, [(ANN.to_owned(), 2)]);
    // That client spent its own limit: Bob, rolling from elsewhere, is mailed with Ann
    let elsewhere = roll_request(&body).peer_addr("198.51.100.7:4000".parse().expect("an address"));
    assert_eq!(call(&app, elsewhere).await.status, StatusCode::OK);
    assert_eq!(
        outbox_by_address(&db).await,
        [(ANN.to_owned(), 3), (BOB.to_owned(), 1)]
    );

    // Without an allowed domain, nothing is mailed (nor kept) at all
    let db = TestDb::new().await;
    let settings = DiceSettings {
        mail: true,
        ..DiceSettings::default()
    };
    let (app, _, _) = dice_app!(&db, &telemetry, DiceTables::new(settings, 0, 0));
    assert_eq!(roll(&app, "2", "6").await.status, StatusCode::OK);
    assert!(outbox_by_address(&db).await.is_empty());
}

#[actix_web::test]
async fn the_seed_is_revealed_by_the_mailed_link_at_once_or_by_anyone_after_the_idle_time() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let settings = DiceSettings {
        idle_seconds: 3600,
        ..DiceSettings::default()
    };
    let (app, clock, state) = dice_app!(&db, &telemetry, DiceTables::new(settings, 0, 0));
    let rolled = roll(&app, "2", "6").await;
    let table = table_of(&rolled);
    let reveal = |token: Option<String>| {
        TestRequest::post()
            .uri(&format!("/v1/dice-tables/{table}/reveal"))
            .set_json(json!({ "token": token }))
    };

    // Without the link, before the idle time: refused, saying how long
    let early = call(&app, reveal(None)).await;
    assert_problem(&early, StatusCode::FORBIDDEN, "reveal-refused");
    assert!(
        early.json()["detail"]
            .as_str()
            .is_some_and(|d| d.contains("less than 1 hour ago")),
        "{:?}",
        early.json()
    );
    // A link of another epoch opens nothing
    let keys = state.dice.keys(&db.pool).await.expect("keys");
    let wrong = call(&app, reveal(Some(keys.reveal_token(&table, 2)))).await;
    assert_problem(&wrong, StatusCode::FORBIDDEN, "reveal-refused");

    // With the link: revealed at once, and the table rolls on under epoch 2
    let revealed = call(&app, reveal(Some(keys.reveal_token(&table, 1)))).await;
    assert_eq!(revealed.status, StatusCode::OK, "{:?}", revealed.json());
    assert_eq!(revealed.json()["epoch"], 1);
    assert_eq!(revealed.json()["rolls_revealed"], 1);
    assert_eq!(revealed.json()["next_epoch"], 2);
    let again = call(&app, reveal(Some(keys.reveal_token(&table, 2)))).await;
    assert_problem(&again, StatusCode::CONFLICT, "nothing-to-reveal");
    let view = call(&app, get(&format!("/v1/dice-tables/{table}")))
        .await
        .json();
    assert_eq!(view["epoch"], 2);
    assert_eq!(view["epochs"][0]["seed"], revealed.json()["seed"]);
    assert_eq!(
        view["epochs"][1]["commitment"],
        revealed.json()["next_commitment"]
    );

    // Without the link, once the table has not rolled for the idle time: anyone may
    roll(&app, "1", "6").await;
    clock.advance(time::Duration::minutes(59));
    let early = call(&app, reveal(None)).await;
    assert_problem(&early, StatusCode::FORBIDDEN, "reveal-refused");
    clock.advance(time::Duration::minutes(1));
    let idle = call(&app, reveal(None)).await;
    assert_eq!(idle.status, StatusCode::OK, "{:?}", idle.json());
    assert_eq!(idle.json()["epoch"], 2);

    // An id that is no table's
    let unknown = call(
        &app,
        reveal(None).uri("/v1/dice-tables/0123456789abcdef0123456789abcdef/reveal"),
    )
    .await;
    assert_problem(&unknown, StatusCode::NOT_FOUND, "dice-table-not-found");
    let bad = call(&app, get("/v1/dice-tables/not-a-table")).await;
    assert_problem(&bad, StatusCode::NOT_FOUND, "dice-table-not-found");
}

#[actix_web::test]
async fn rolls_are_limited_per_table_and_per_client_and_the_refusal_says_which() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let (app, _, _) = dice_app!(
        &db,
        &telemetry,
        DiceTables::new(DiceSettings::default(), 0, 3)
    );
    for _ in 0..3 {
        assert_eq!(roll(&app, "1", "6").await.status, StatusCode::OK);
    }
    let limited = roll(&app, "1", "6").await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(limited.header("retry-after"), "2");
    assert_eq!(
        limited.json(),
        json!({"status": "Error", "errors": ["at most 3 of these a minute from one client at one dice table"]})
    );
    // The limit is that client's: another client rolls at the same table
    let pair = form(&[
        ("times", "1"),
        ("max", "6"),
        ("email1", ANN),
        ("email2", BOB),
    ]);
    let elsewhere = roll_request(&pair).peer_addr("198.51.100.7:4000".parse().expect("an address"));
    assert_eq!(call(&app, elsewhere).await.status, StatusCode::OK);
    // Another pair's table is not held up by this one
    let body = form(&[
        ("times", "1"),
        ("max", "6"),
        ("email1", "cy@club.example"),
        ("email2", BOB),
    ]);
    assert_eq!(call(&app, roll_request(&body)).await.status, StatusCode::OK);

    let db = TestDb::new().await;
    let (app, _, _) = dice_app!(
        &db,
        &telemetry,
        DiceTables::new(DiceSettings::default(), 2, 0)
    );
    let peer =
        |body: &str| roll_request(body).peer_addr("203.0.113.9:4000".parse().expect("an address"));
    let body = form(&[
        ("times", "1"),
        ("max", "6"),
        ("email1", ANN),
        ("email2", BOB),
    ]);
    for _ in 0..2 {
        assert_eq!(call(&app, peer(&body)).await.status, StatusCode::OK);
    }
    let limited = call(&app, peer(&body)).await;
    assert_eq!(
        limited.json()["errors"],
        json!(["at most 2 of these a minute from one client"])
    );
}

#[actix_web::test]
async fn no_view_page_feed_or_export_shows_a_tables_addresses() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let (app, _, _) = dice_app!(&db, &telemetry, DiceTables::default());
    let rolled = roll(&app, "5", "6").await;
    let table = table_of(&rolled);
    let stream = format!("dice-{table}");
    for uri in [
        format!("/v1/dice-tables/{table}"),
        format!("/v1/streams/{stream}/events"),
        "/v1/streams".to_owned(),
    ] {
        let reply = call(&app, get(&uri)).await;
        assert_eq!(reply.status, StatusCode::OK, "{uri}: {}", reply.text());
        let text = reply.text();
        assert!(
            text.contains(&table) || uri.ends_with("streams"),
            "{uri}: {text}"
        );
        assert!(!text.contains("club.example"), "{uri}: {text}");
    }
    // The feed shows the events once no transaction begun before them is open
    let feed = eventually("the roll in the feed", Duration::from_secs(30), || async {
        let feed = call(&app, get("/v1/events")).await.text();
        feed.contains(&table).then_some(feed)
    })
    .await;
    assert!(!feed.contains("club.example"), "{feed}");
    let export = call(
        &app,
        get(&format!("/v1/streams/{stream}/events"))
            .insert_header(("Accept", "application/x-ndjson")),
    )
    .await;
    assert_eq!(export.status, StatusCode::OK);
    assert_eq!(export.text().lines().count(), 2, "committed, then rolled");
    assert!(!export.text().contains("club.example"));
    // Nor does the outbox keep one when the service sends no mail
    let client = db.admin().await;
    let mails: i64 = client
        .query_one("SELECT count(*) FROM mail_outbox", &[])
        .await
        .expect("counted")
        .get(0);
    assert_eq!(mails, 0);
}

#[actix_web::test]
async fn a_tables_export_of_a_hundred_rolls_passes_warlog_audit_after_the_reveal_and_fails_naming_a_changed_die(
) {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let (app, _, state) = dice_app!(
        &db,
        &telemetry,
        DiceTables::new(DiceSettings::default(), 0, 0)
    );
    // A hundred rolls of every size TripleA asks for
    let asked = [
        ("1", "6"),
        ("3", "6"),
        ("12", "6"),
        ("2", "20"),
        ("200", "2"),
    ];
    let mut table = String::new();
    for n in 0..100 {
        let (times, max) = asked[n % asked.len()];
        let rolled = roll(&app, times, max).await;
        assert_eq!(rolled.status, StatusCode::OK, "{:?}", rolled.json());
        table = table_of(&rolled);
    }
    // Revealed by the link mailed with them
    let keys = state.dice.keys(&db.pool).await.expect("keys");
    let revealed = call(
        &app,
        TestRequest::post()
            .uri(&format!("/v1/dice-tables/{table}/reveal"))
            .set_json(json!({"token": keys.reveal_token(&table, 1)})),
    )
    .await;
    assert_eq!(revealed.status, StatusCode::OK, "{:?}", revealed.json());
    assert_eq!(revealed.json()["rolls_revealed"], 100);

    // The export, and the key, as anyone fetches them
    let export = call(
        &app,
        get(&format!("/v1/streams/dice-{table}/events"))
            .insert_header(("Accept", "application/x-ndjson")),
    )
    .await;
    assert_eq!(export.status, StatusCode::OK);
    let key = call(&app, get("/.well-known/warlog-dice-key")).await.json();
    let public_key = key["public_key"].as_str().expect("a key").to_owned();
    let dir = std::env::temp_dir().join(format!("warlog-dice-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("a folder");
    let file = dir.join("table.ndjson");
    std::fs::write(&file, &export.body).expect("written");
    let audit = |file: &std::path::Path| {
        warlog::audit::audit_files(&warlog::audit::AuditInput {
            files: vec![file.to_owned()],
            dice_key: Some(public_key.clone()),
            ..warlog::audit::AuditInput::default()
        })
        .expect("an export")
    };
    let report = audit(&file);
    assert_eq!(
        report.outcome,
        warlog_events::audit::Outcome::Passed,
        "{}",
        report.render()
    );
    let rendered = report.render();
    assert!(
        rendered.contains("PASS dice: 100 rolls recomputed die by die"),
        "{rendered}"
    );
    assert!(
        rendered.contains("PASS signatures: 100 signatures"),
        "{rendered}"
    );

    // One die changed, the chain hashed again over it: the audit names the roll
    let mut events =
        warlog::audit::read_export(std::io::Cursor::new(&export.body[..])).expect("an export");
    let payload = &mut events[57].payload;
    assert_eq!(payload["index"], 58);
    let die = payload["dice"][0].as_u64().expect("a die");
    let max = payload["max"].as_u64().expect("sides");
    payload["dice"][0] = json!(die % max + 1);
    warlog_events::relink(&mut events);
    let forged = dir.join("forged.ndjson");
    let lines: Vec<String> = events
        .iter()
        .map(|e| serde_json::to_string(e).expect("a line"))
        .collect();
    std::fs::write(&forged, lines.join("\n")).expect("written");
    let report = audit(&forged);
    assert_eq!(
        report.outcome,
        warlog_events::audit::Outcome::Failed,
        "{}",
        report.render()
    );
    let rendered = report.render();
    assert!(rendered.contains("PASS chain"), "re-hashed: {rendered}");
    assert!(
        rendered.contains("FAIL dice: 1 finding\n  event 58: the record says"),
        "{rendered}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[actix_web::test]
async fn a_view_reads_the_latest_rolls_and_the_epoch_in_force_whatever_the_tables_size() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let (app, _, state) = dice_app!(
        &db,
        &telemetry,
        DiceTables::new(DiceSettings::default(), 0, 0)
    );
    let mut table = String::new();
    for _ in 0..1_001 {
        table = table_of(&roll(&app, "1", "6").await);
    }
    let view = call(&app, get(&format!("/v1/dice-tables/{table}")))
        .await
        .json();
    assert_eq!(view["rolls"], 1_001);
    assert_eq!(view["version"], 1_002);
    assert_eq!(view["latest_rolls"].as_array().map(Vec::len), Some(200));
    assert_eq!(view["latest_rolls"][0]["index"], 1_002);
    assert_eq!(view["older_in_export"], true);
    // The epoch in force was committed before the events a view reads: it is shown all the same
    assert_eq!(view["epochs"].as_array().map(Vec::len), Some(1));
    assert_eq!(view["epochs"][0]["epoch"], 1);
    assert_eq!(view["epochs"][0]["commitment"], view["commitment"]);
    let page = call(&app, get(&format!("/dice/{table}"))).await.text();
    assert!(
        page.contains("Older epochs and rolls are in the table"),
        "{page}"
    );

    // Its seed revealed: epoch 1 began before the events a view reads, and is shown all the
    // same, by its seed
    let keys = state.dice.keys(&db.pool).await.expect("keys");
    let revealed = call(
        &app,
        TestRequest::post()
            .uri(&format!("/v1/dice-tables/{table}/reveal"))
            .set_json(json!({"token": keys.reveal_token(&table, 1)})),
    )
    .await;
    assert_eq!(revealed.status, StatusCode::OK, "{:?}", revealed.json());
    let view = call(&app, get(&format!("/v1/dice-tables/{table}")))
        .await
        .json();
    assert_eq!(view["epoch"], 2);
    assert_eq!(view["epochs"][0]["epoch"], 1);
    assert_eq!(view["epochs"][0]["seed"], revealed.json()["seed"]);
    assert_eq!(view["epochs"][0]["committed_at"], Value::Null);
    assert_eq!(view["epochs"][0]["commitment"], commitment_of(&revealed));
    assert_eq!(
        view["epochs"][1]["commitment"],
        revealed.json()["next_commitment"]
    );

    // The export is every event, sent a page at a time, and revalidates by its tag
    let export = call(
        &app,
        get(&format!("/v1/streams/dice-{table}/events"))
            .insert_header(("Accept", "application/x-ndjson")),
    )
    .await;
    assert_eq!(export.status, StatusCode::OK);
    let lines: Vec<Value> = export
        .text()
        .lines()
        .map(|line| serde_json::from_str(line).expect("an event"))
        .collect();
    assert_eq!(lines.len(), 1_004);
    assert!(lines
        .iter()
        .enumerate()
        .all(|(i, e)| e["stream_version"] == i as u64 + 1));
    let again = call(
        &app,
        get(&format!("/v1/streams/dice-{table}/events"))
            .insert_header(("Accept", "application/x-ndjson"))
            .insert_header(("If-None-Match", export.header("etag"))),
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);

    // A service that has folded nothing yet (a restart, another replica) resumes the table
    // from its latest commitment, and rolls on it
    let (fresh, _, _) = dice_app!(
        &db,
        &telemetry,
        DiceTables::new(DiceSettings::default(), 0, 0)
    );
    assert_eq!(roll(&fresh, "2", "6").await.status, StatusCode::OK);
    let view = call(&fresh, get(&format!("/v1/dice-tables/{table}")))
        .await
        .json();
    assert_eq!(
        (
            &view["rolls"],
            &view["version"],
            &view["epoch"],
            &view["rolls_unrevealed"]
        ),
        (&json!(1_002), &json!(1_005), &json!(2), &json!(1))
    );
}

/// The commitment a revealed seed answers to: its SHA-256.
fn commitment_of(revealed: &Reply) -> String {
    let seed = hex::decode(revealed.json()["seed"].as_str().expect("a seed")).expect("hex");
    let seed: [u8; 32] = seed.try_into().expect("32 bytes");
    hex::encode(warlog_rules::dice::GameSeed::from_bytes(seed).commitment())
}

#[actix_web::test]
async fn two_first_rolls_of_a_pair_at_once_both_land_on_one_table() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let (app, _, _) = dice_app!(
        &db,
        &telemetry,
        DiceTables::new(DiceSettings::default(), 0, 0)
    );
    for pair in 0..10 {
        let first = format!("p{pair}@club.example");
        let body = form(&[
            ("times", "2"),
            ("max", "6"),
            ("email1", &first),
            ("email2", BOB),
        ]);
        let (one, two) = futures_util::future::join(
            call(&app, roll_request(&body)),
            call(&app, roll_request(&body)),
        )
        .await;
        // Whichever lost the race to open the table rolls on the table the other opened
        assert_eq!(
            (one.status, two.status),
            (StatusCode::OK, StatusCode::OK),
            "{:?} {:?}",
            one.json(),
            two.json()
        );
        assert_eq!(table_of(&one), table_of(&two));
        let view = call(&app, get(&format!("/v1/dice-tables/{}", table_of(&one))))
            .await
            .json();
        assert_eq!((&view["rolls"], &view["version"]), (&json!(2), &json!(3)));
    }
}

#[actix_web::test]
async fn a_roll_not_sent_as_a_form_and_a_reveal_body_not_understood_are_refused_changing_nothing() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let (app, _, _) = dice_app!(&db, &telemetry, DiceTables::default());
    // A roll sent as JSON: refused in the protocol's words, nothing rolled
    let json_roll = TestRequest::post()
        .uri("/api/roll")
        .set_json(json!({"times": 3, "max": 6, "email1": ANN, "email2": BOB}));
    let refused = call(&app, json_roll).await;
    assert_eq!(refused.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(
        refused.json(),
        json!({"status": "Error", "errors": [
            "send the roll as a form (application/x-www-form-urlencoded): times, max, email1, email2"
        ]})
    );
    let rolled = roll(&app, "1", "6").await;
    let table = table_of(&rolled);
    let before = call(&app, get(&format!("/v1/dice-tables/{table}")))
        .await
        .json();
    assert_eq!(before["version"], 2, "only the form's roll: {before}");
    // A reveal whose body names a field it does not take: a problem, nothing revealed
    let reveal = TestRequest::post()
        .uri(&format!("/v1/dice-tables/{table}/reveal"))
        .set_json(json!({"tokens": "abc"}));
    let refused = call(&app, reveal).await;
    assert_problem(&refused, StatusCode::BAD_REQUEST, "malformed-request");
    assert!(
        refused.json()["detail"]
            .as_str()
            .is_some_and(|d| d.contains("tokens")),
        "{:?}",
        refused.json()
    );
    let after = call(&app, get(&format!("/v1/dice-tables/{table}")))
        .await
        .json();
    assert_eq!(after, before);
}

#[actix_web::test]
async fn the_official_servers_bounds_are_answered_from_one_die_of_one_side_to_five_thousand_of_five_thousand(
) {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let (app, _, _) = dice_app!(&db, &telemetry, DiceTables::default());
    for (times, max) in [("1", "1"), ("5000", "5000")] {
        let reply = roll(&app, times, max).await;
        assert_eq!(
            reply.status,
            StatusCode::OK,
            "{times}d{max}: {}",
            reply.text()
        );
        let dice = dice_as_triplea_reads_them(&reply.json()).expect("dice TripleA reads");
        let (count, sides): (usize, u32) = (times.parse().unwrap(), max.parse().unwrap());
        assert_eq!(dice.len(), count);
        assert!(
            dice.iter().all(|d| (1..=sides).contains(d)),
            "{times}d{max}"
        );
    }
    let over = roll(&app, "5001", "6").await;
    assert_eq!(over.status, StatusCode::BAD_REQUEST);
    assert!(
        over.text().contains("a roll is 1 to 5000 dice"),
        "{}",
        over.text()
    );
}

#[actix_web::test]
async fn a_kelvin_sign_spelling_rolls_at_the_players_table_mailed_as_the_table_spells_it() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let settings = mailing_to_the_club();
    let (app, _, state) = dice_app!(&db, &telemetry, DiceTables::new(settings, 0, 0));
    let kim = "kim@club.example";
    confirmed(&state, &[kim, BOB]).await;
    let roll_for = |email1: &str, email2: &str| {
        roll_request(&form(&[
            ("times", "1"),
            ("max", "6"),
            ("email1", email1),
            ("email2", email2),
        ]))
    };
    let plain = call(&app, roll_for(kim, BOB)).await;
    assert_eq!(plain.status, StatusCode::OK, "{:?}", plain.json());
    // The Kelvin sign (U+212A) for "K", other cases, a trailing dot: the same mailboxes.
    let spelled = call(&app, roll_for("\u{212A}IM@Club.Example.", BOB)).await;
    assert_eq!(spelled.status, StatusCode::OK, "{:?}", spelled.json());
    assert_eq!(
        table_of(&spelled),
        table_of(&plain),
        "the players' own table"
    );
    // Every mail goes to the spelling the table is keyed by.
    let mailed: Vec<(String, i64)> = outbox_by_address(&db).await;
    assert_eq!(
        mailed,
        [(BOB.to_owned(), 2), (kim.to_owned(), 2)],
        "both rolls to both players' own addresses"
    );
    // A look-alike made of two scripts ("bob" with a Cyrillic "о") is refused by its field.
    let refused = call(&app, roll_for(kim, &BOB.replacen('o', "\u{43e}", 1))).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert!(
        refused.text().contains("email2 mixes scripts"),
        "{}",
        refused.text()
    );
}
