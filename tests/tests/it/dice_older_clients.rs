//! TripleA's dice clients before release 2026-06 (the 2.x line) roll at warlog's dice tables
//! through `POST /MARTI.php`, and read their dice or the refusal from the answer's text as
//! those clients do, with the same two patterns.
//!
//! Each test runs `warlog serve` on a fresh database and sends the request as raw HTTP/1.1
//! bytes, as the 2.x client's Apache HttpClient sends them, so that the path, the form's
//! encoding and the answer's bytes are exactly what the client would meet.

use std::net::SocketAddr;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{json, Value};
use warlog_tests::TestDb;

use crate::dice::{dice_as_triplea_reads_them, post_as_triplea, post_form_as_java};
use crate::kit::serve;

const ANN: &str = "ann@club.example";
const BOB: &str = "bob@club.example";

/// The 2.x client's pattern for a refusal. Java's `.` stops at any line terminator, not
/// only at `\n` as Rust's does, so the class spells Java's terminators out.
static FATAL_ERROR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"fatal error:([^\n\r\x{85}\x{2028}\x{2029}]*)!").expect("a pattern")
});

/// The 2.x client's pattern for the dice. Java's `\s` and `\d` are ASCII only; Rust's are
/// Unicode, so the ASCII forms are used to read no more than the client reads.
static YOUR_DICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"your dice are:(?-u:\s)*((?:[0-9]+(?:,[0-9]+)*)?)(?-u:\s)*<p>").expect("a pattern")
});

/// The dice in a MARTI answer's text, as the 2.x client reads them: a `fatal error:...!`
/// anywhere is a failed roll with that message (whatever the HTTP status); otherwise the
/// dice after `your dice are:`, none of them 0; and "invalid format" when neither is found.
fn dice_as_the_older_client_reads_them(text: &str) -> Result<Vec<u32>, String> {
    if let Some(fatal) = FATAL_ERROR.captures(text) {
        return Err(fatal[1].to_owned());
    }
    let dice = YOUR_DICE
        .captures(text)
        .ok_or_else(|| "invalid format".to_owned())?;
    dice[1]
        .split(',')
        .filter(|part| !part.is_empty())
        .map(|part| match part.parse::<i32>() {
            Ok(0) => Err("Die can't be zero".to_owned()),
            Ok(die) => u32::try_from(die).map_err(|_| format!("not a die: {die}")),
            Err(e) => Err(format!("not a die: {part}: {e}")),
        })
        .collect()
}

/// A form as Apache HttpClient's `UrlEncodedFormEntity` encodes it in UTF-8: letters,
/// digits and `-_.*` as they are, a space as `+`, every other byte as `%XX`.
fn java_form(fields: &[(&str, &str)]) -> String {
    let encode = |text: &str| {
        text.bytes()
            .map(|b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'*' => {
                    (b as char).to_string()
                }
                b' ' => "+".to_owned(),
                _ => format!("%{b:02X}"),
            })
            .collect::<String>()
    };
    fields
        .iter()
        .map(|(name, value)| format!("{}={}", encode(name), encode(value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The fields of a 2.x roll, in the order the client sends them.
fn marti_fields<'a>(
    numdice: &'a str,
    numsides: &'a str,
    subject: &'a str,
    roller: &'a str,
    gm: &'a str,
) -> Vec<(&'a str, &'a str)> {
    vec![
        ("numdice", numdice),
        ("numsides", numsides),
        ("subject", subject),
        ("roller", roller),
        ("gm", gm),
    ]
}

/// An HTTP answer as read off the socket: its status, head and body as text.
#[derive(Debug)]
struct Answer {
    status: u16,
    head: String,
    text: String,
}

/// A header's value in an answer's head, whatever the case of its name.
fn header_in<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().skip(1).find_map(|line| {
        let (field, value) = line.split_once(':')?;
        field
            .trim()
            .eq_ignore_ascii_case(name)
            .then_some(value.trim())
    })
}

/// One roll as a 2.x client posts it to `path`, with the client's own `User-Agent`; the
/// body then read as text whatever the status.
async fn post_as_an_older_client(addr: SocketAddr, path: &str, body: &str) -> Answer {
    let (status, head, text) = post_form_as_java(addr, path, "triplea/2.7.15622", body).await;
    Answer { status, head, text }
}

/// The table a `Link: </dice/<table>>; rel="dice-table"` header names, checking its form.
fn table_linked_in(head: &str) -> String {
    let link = header_in(head, "link").unwrap_or_else(|| panic!("a Link header: {head}"));
    let table = link
        .strip_prefix("</dice/")
        .and_then(|rest| rest.split_once('>'))
        .map(|(table, _)| table.to_owned())
        .unwrap_or_else(|| panic!("a Link to a dice table: {link}"));
    assert_eq!(link, format!("</dice/{table}>; rel=\"dice-table\""));
    table
}

/// A table's view, as anyone reads it.
async fn table_view(addr: SocketAddr, table: &str) -> Value {
    let mut connection = warlog::client::Connection::open(addr)
        .await
        .expect("connects");
    connection
        .json(
            "GET",
            &format!("/v1/dice-tables/{table}"),
            None,
            &Value::Null,
            200,
        )
        .await
        .expect("the table's view")
}

/// A roll's dice in a view's `latest_rolls`.
fn dice_in(roll: &Value) -> Vec<u32> {
    roll["dice"]
        .as_array()
        .unwrap_or_else(|| panic!("dice in {roll}"))
        .iter()
        .map(|die| {
            die.as_u64()
                .and_then(|d| u32::try_from(d).ok())
                .expect("a die")
        })
        .collect()
}

#[actix_web::test]
async fn an_older_client_and_a_newer_one_roll_at_one_table_and_each_reads_its_dice() {
    let db = TestDb::new().await;
    let addr = serve(&db, &[]).await;

    // A 2.7 client: three six-sided dice, Ann the roller (To) and Bob the game master (Cc)
    let body = java_form(&marti_fields(
        "3",
        "6",
        "TripleA:Germany attacks Karelia",
        ANN,
        BOB,
    ));
    let older = post_as_an_older_client(addr, "/MARTI.php", &body).await;
    assert_eq!(older.status, 200, "{}", older.text);
    assert_eq!(
        header_in(&older.head, "content-type").map(str::to_ascii_lowercase),
        Some("text/html; charset=utf-8".to_owned()),
        "{}",
        older.head
    );
    let older_dice = dice_as_the_older_client_reads_them(&older.text)
        .unwrap_or_else(|e| panic!("the 2.x client fails with {e:?} on: {}", older.text));
    assert_eq!(older_dice.len(), 3, "{}", older.text);
    assert!(
        older_dice.iter().all(|d| (1..=6).contains(d)),
        "{older_dice:?}"
    );

    // A newer client: the same pair the other way round, on the newer protocol
    let body = java_form(&[
        ("times", "2"),
        ("max", "12"),
        ("email1", BOB),
        ("email2", ANN),
    ]);
    let (status, newer_head, newer) = post_as_triplea(addr, &body).await;
    assert_eq!(status, 200, "{newer}");
    let newer_dice = dice_as_triplea_reads_them(&newer).expect("the newer client's dice");
    assert_eq!(newer_dice.len(), 2);
    assert!(
        newer_dice.iter().all(|d| (1..=12).contains(d)),
        "{newer_dice:?}"
    );

    // A table is the pair in either order, whichever protocol asked: one table
    let table = table_linked_in(&older.head);
    assert_eq!(table_linked_in(&newer_head), table);

    // Its view holds both rolls, newest first, each with the dice its client read
    let view = table_view(addr, &table).await;
    assert_eq!(view["rolls"], 2, "{view}");
    let latest = &view["latest_rolls"];
    assert_eq!(
        (&latest[0]["times"], &latest[0]["max"]),
        (&json!(2), &json!(12))
    );
    assert_eq!(dice_in(&latest[0]), newer_dice);
    assert_eq!(
        (&latest[1]["times"], &latest[1]["max"]),
        (&json!(3), &json!(6))
    );
    assert_eq!(dice_in(&latest[1]), older_dice);
}

#[actix_web::test]
async fn an_older_clients_refusal_is_read_as_a_fatal_error_naming_its_fields() {
    let db = TestDb::new().await;
    let addr = serve(&db, &[]).await;
    let subject = "TripleA:Russia defends Karelia";

    // No dice, and sides that are not a number: both reasons, each by its 2.x field name
    let body = java_form(&marti_fields("0", "x", subject, ANN, BOB));
    let refused = post_as_an_older_client(addr, "/MARTI.php", &body).await;
    // The client takes the message from the first pattern and never looks for dice; it
    // shows the message as it is, so the test checks it as the player would read it.
    let message =
        dice_as_the_older_client_reads_them(&refused.text).expect_err("a refusal, not dice");
    let reasons: Vec<&str> = message.trim().split("; ").collect();
    assert_eq!(reasons.len(), 2, "{message:?} in {}", refused.text);
    assert_eq!(reasons[0], "numdice is 0: a roll is 1 to 5000 dice");
    assert!(
        reasons[1].starts_with("numsides is ")
            && reasons[1].contains("how many sides each die has, a whole number"),
        "{message:?}"
    );
    assert!(
        !message.contains("times") && !message.contains("max"),
        "{message:?}"
    );

    // The game master's address left out, or sent blank as the client sends an unset one:
    // the reason names `gm`, the field the client sent, and nothing else
    let blank = marti_fields("2", "6", subject, ANN, "");
    let left_out: Vec<_> = blank
        .iter()
        .copied()
        .filter(|(name, _)| *name != "gm")
        .collect();
    for fields in [left_out, blank] {
        let refused = post_as_an_older_client(addr, "/MARTI.php", &java_form(&fields)).await;
        let message =
            dice_as_the_older_client_reads_them(&refused.text).expect_err("a refusal, not dice");
        assert!(
            message.trim().starts_with("gm is missing") && !message.contains("; "),
            "{message:?} in {}",
            refused.text
        );
    }

    // Refusals roll nothing: the pair's first roll that reads is the table's only roll
    let body = java_form(&marti_fields("1", "6", subject, ANN, BOB));
    let rolled = post_as_an_older_client(addr, "/MARTI.php", &body).await;
    let dice = dice_as_the_older_client_reads_them(&rolled.text).expect("dice");
    let view = table_view(addr, &table_linked_in(&rolled.head)).await;
    assert_eq!(view["rolls"], 1, "{view}");
    assert_eq!(dice_in(&view["latest_rolls"][0]), dice);
}

#[actix_web::test]
async fn the_lower_case_path_of_some_older_builds_rolls_too() {
    let db = TestDb::new().await;
    let addr = serve(&db, &[]).await;
    let body = java_form(&marti_fields(
        "4",
        "20",
        "TripleA:Japan bombs Sydney",
        ANN,
        BOB,
    ));
    let answer = post_as_an_older_client(addr, "/marti.php", &body).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let dice = dice_as_the_older_client_reads_them(&answer.text)
        .unwrap_or_else(|e| panic!("the 2.x client fails with {e:?} on: {}", answer.text));
    assert_eq!(dice.len(), 4);
    assert!(dice.iter().all(|d| (1..=20).contains(d)), "{dice:?}");
    // The same table as the upper-case path would roll at, with this roll on it
    let view = table_view(addr, &table_linked_in(&answer.head)).await;
    assert_eq!(view["rolls"], 1, "{view}");
    assert_eq!(dice_in(&view["latest_rolls"][0]), dice);
}

#[actix_web::test]
async fn a_five_thousand_die_roll_is_read_by_the_older_clients_parser() {
    let db = TestDb::new().await;
    let addr = serve(&db, &[]).await;
    let body = java_form(&marti_fields(
        "5000",
        "5000",
        "TripleA:the largest roll the official server allows",
        ANN,
        BOB,
    ));
    let answer = post_as_an_older_client(addr, "/MARTI.php", &body).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let dice = dice_as_the_older_client_reads_them(&answer.text)
        .unwrap_or_else(|e| panic!("the 2.x client fails with {e:?}"));
    assert_eq!(dice.len(), 5000);
    assert!(dice.iter().all(|d| (1..=5000).contains(d)));
    // Five thousand dice of five thousand sides all alike would be a fault, not luck
    assert!(
        dice.iter().any(|d| *d != dice[0]),
        "every die is {}",
        dice[0]
    );
    let view = table_view(addr, &table_linked_in(&answer.head)).await;
    assert_eq!(dice_in(&view["latest_rolls"][0]), dice);
}
