//! That no control character a client sends reaches the store (issue 56): a NUL in any
//! JSON body, text body, form field or mailed turn is refused with a 400 naming where, and
//! nothing is appended; names refuse C0 and C1 controls; multi-line texts keep their tabs
//! and line breaks; a query parameter the document bounds is refused outside its bounds.

use actix_web::body::MessageBody;
use actix_web::http::{Method, StatusCode};
use actix_web::test::TestRequest;
use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_tests::TestDb;

use crate::demo::event_count;
use crate::games::{create_game, given_a_game};
use crate::kit::{app, assert_problem, call, get, post, token, Reply, TestApp};
use crate::play_by_mail::{a_league_playing_by_mail, outcome_of, reply_to, Via};
use crate::turns::send_turn;

fn document() -> Value {
    serde_json::from_str(&warlog_api::openapi_pretty_json()).expect("valid JSON")
}

/// `schema` with its `$ref`s followed.
fn resolved<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    let mut schema = schema;
    while let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/components/schemas/");
        schema = &doc["components"]["schemas"][name];
    }
    schema
}

/// The `type` of a schema, as a list (`["string", "null"]`).
fn types(schema: &Value) -> Vec<&str> {
    match &schema["type"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// A value of `schema` whose first string, depth first, is `"a\u{0}b"`, with that string's
/// path as a refusal names it (`orders[0].terms`); none when the schema holds no string.
fn with_nul(doc: &Value, schema: &Value, depth: usize) -> Option<(Value, String)> {
    let schema = resolved(doc, schema);
    if depth > 12 {
        return None;
    }
    for alternatives in ["oneOf", "anyOf", "allOf"] {
        if let Some(found) = schema[alternatives]
            .as_array()
            .and_then(|all| all.iter().find_map(|one| with_nul(doc, one, depth + 1)))
        {
            return Some(found);
        }
    }
    let kinds = types(schema);
    if kinds.contains(&"string") {
        return Some((json!("a\u{0}b"), String::new()));
    }
    if kinds.contains(&"array") {
        let (item, path) = with_nul(doc, &schema["items"], depth + 1)?;
        return Some((json!([item]), joined("[0]", &path)));
    }
    for (name, property) in schema["properties"].as_object()? {
        if let Some((value, path)) = with_nul(doc, property, depth + 1) {
            return Some((json!({ name: value }), joined(name, &path)));
        }
    }
    None
}

/// A path under `head`, as serde names it: `a.b`, `a[0]`.
fn joined(head: &str, tail: &str) -> String {
    if tail.is_empty() || tail.starts_with('[') {
        format!("{head}{tail}")
    } else {
        format!("{head}.{tail}")
    }
}

/// Every operation of the document with a request body: method, path (each parameter
/// filled in), content type and the body's schema.
fn operations_with_bodies(doc: &Value) -> Vec<(Method, String, String, Value)> {
    let mut found = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        let filled: String = path
            .split('/')
            .map(|segment| {
                if segment.starts_with('{') {
                    "x0190a0a0"
                } else {
                    segment
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        for (method, operation) in item.as_object().expect("a path item") {
            let Some(content) = operation["requestBody"]["content"].as_object() else {
                continue;
            };
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).expect("a method");
            for (content_type, media) in content {
                found.push((
                    method.clone(),
                    filled.clone(),
                    content_type.clone(),
                    media["schema"].clone(),
                ));
            }
        }
    }
    found
}

/// Sends `body` as `content_type` with the admin's token.
async fn send<B: MessageBody>(
    app: &impl TestApp<B>,
    admin: &str,
    method: Method,
    path: &str,
    content_type: &str,
    body: Vec<u8>,
) -> Reply {
    call(
        app,
        TestRequest::default()
            .method(method)
            .uri(path)
            .insert_header(("Authorization", format!("Bearer {admin}")))
            .insert_header(("Content-Type", content_type.to_owned()))
            .set_payload(body),
    )
    .await
}

#[actix_web::test]
async fn every_string_field_of_every_request_body_in_the_document_refuses_a_nul_with_a_400() {
    let db = TestDb::new().await;
    let app = app!(db);
    // An admin's token, so that every route reads its body rather than refusing the caller.
    let admin = token(&db, "root", Role::Admin).await;
    let doc = document();
    let before = event_count(&db).await;
    let mut tried = 0;
    for (method, path, content_type, schema) in operations_with_bodies(&doc) {
        let Some((value, field)) = with_nul(&doc, &schema, 0) else {
            continue;
        };
        let operation = format!("{method} {path} ({content_type}) at `{field}`");
        let reply = match content_type.as_str() {
            "application/json" => {
                let reply = send(
                    &app,
                    &admin,
                    method,
                    &path,
                    &content_type,
                    value.to_string().into_bytes(),
                )
                .await;
                let detail = reply.json()["detail"].as_str().unwrap_or("").to_owned();
                assert_problem(&reply, StatusCode::BAD_REQUEST, "malformed-request");
                assert!(
                    detail.contains(&format!("`{field}`")) && detail.contains("NUL"),
                    "{operation}: {detail}"
                );
                reply
            }
            "application/x-www-form-urlencoded" => {
                // A form is flat: its first field holds the NUL.
                let body = format!("{field}=a%00b");
                let reply = send(&app, &admin, method, &path, &content_type, body.into()).await;
                assert!(
                    reply.text().contains(&format!("`{field}`")) && reply.text().contains("U+0000"),
                    "{operation}: {}",
                    reply.text()
                );
                reply
            }
            "text/plain" => {
                let reply = send(
                    &app,
                    &admin,
                    method,
                    &path,
                    &content_type,
                    b"end\0turn".to_vec(),
                )
                .await;
                assert_problem(&reply, StatusCode::BAD_REQUEST, "malformed-request");
                assert!(
                    reply.json()["detail"]
                        .as_str()
                        .is_some_and(|d| d.contains("line 1") && d.contains("NUL")),
                    "{operation}: {:?}",
                    reply.json()
                );
                reply
            }
            other => panic!("{operation}: a body of type {other} the test does not know"),
        };
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{operation}");
        tried += 1;
    }
    assert!(tried >= 20, "only {tried} bodies tried");
    assert_eq!(event_count(&db).await, before, "nothing appended");
}

#[actix_web::test]
async fn a_nul_in_a_tournament_name_is_a_400_naming_the_field_and_appends_nothing() {
    let db = TestDb::new().await;
    let app = app!(db);
    let director = token(&db, "dora", Role::Director).await;
    let before = event_count(&db).await;
    let reply = call(
        &app,
        post(
            "/v1/tournaments",
            &director,
            &json!({"name": "n\u{0}", "rounds": 1}),
        ),
    )
    .await;
    assert_problem(&reply, StatusCode::BAD_REQUEST, "malformed-request");
    assert_eq!(
        reply.json()["detail"],
        "JSON body at `name`: contains a NUL character (U+0000), which no text here may hold"
    );
    assert_eq!(event_count(&db).await, before);
}

#[actix_web::test]
async fn a_nul_in_an_offers_terms_is_a_400_naming_the_field_and_appends_nothing() {
    let (db, app, gm, game) = given_a_game!();
    let before = event_count(&db).await;
    let reply = call(
        &app,
        post(
            &format!("/v1/games/{game}/orders"),
            &gm,
            &json!({"power": "russia", "orders": [
                {"type": "offer_agreement", "with": "united-kingdom", "terms": "a\u{0}b"}
            ]}),
        ),
    )
    .await;
    assert_problem(&reply, StatusCode::BAD_REQUEST, "malformed-request");
    assert_eq!(
        reply.json()["detail"],
        "JSON body at `orders[0].terms`: contains a NUL character (U+0000), which no text \
         here may hold"
    );
    assert_eq!(event_count(&db).await, before, "nothing appended");
    // The same escape behind an escaped backslash is text: the offer is taken.
    let taken = call(
        &app,
        post(
            &format!("/v1/games/{game}/orders"),
            &gm,
            &json!({"power": "russia", "orders": [
                {"type": "offer_agreement", "with": "united-kingdom", "terms": "a\\u0000b"}
            ]}),
        ),
    )
    .await;
    assert!(taken.status.is_success(), "{:?}", taken.json());
    assert!(
        event_count(&db).await > before,
        "the second offer is on the record"
    );
}

#[actix_web::test]
async fn a_raw_nul_byte_in_a_turn_text_is_a_400_naming_its_line_and_appends_nothing() {
    let (db, app, gm, game) = given_a_game!();
    let before = event_count(&db).await;
    let reply = send_turn(&app, &gm, &game, "russia", "", "buy 1 INF\nend\0turn\n").await;
    assert_problem(&reply, StatusCode::BAD_REQUEST, "malformed-request");
    assert_eq!(
        reply.json()["detail"],
        "the text's line 2 contains a NUL character (U+0000), which no text here may hold"
    );
    // As JSON, the text is named as a field.
    let json = call(
        &app,
        post(
            &format!("/v1/games/{game}/turn"),
            &gm,
            &json!({"power": "russia", "text": "end\u{0}turn"}),
        ),
    )
    .await;
    assert_problem(&json, StatusCode::BAD_REQUEST, "malformed-request");
    assert!(json.json()["detail"]
        .as_str()
        .is_some_and(|d| d.starts_with("JSON body at `text`")));
    assert_eq!(event_count(&db).await, before);
}

#[actix_web::test]
async fn a_turn_text_with_tabs_and_line_breaks_is_still_taken() {
    let (db, app, gm, game) = given_a_game!();
    let before = event_count(&db).await;
    let reply = send_turn(
        &app,
        &gm,
        &game,
        "russia",
        "",
        "# Russia,\tround 1\r\n\r\n\tend turn\t\r\n",
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
    assert!(event_count(&db).await > before, "the turn is on the record");
}

#[actix_web::test]
async fn a_c1_or_c0_control_in_a_name_is_refused_naming_the_field() {
    let db = TestDb::new().await;
    let app = app!(db);
    let director = token(&db, "dora", Role::Director).await;
    let admin = token(&db, "root", Role::Admin).await;
    let before = event_count(&db).await;
    for name in [
        "Autumn\u{85}Cup",
        "Autumn\u{9f}",
        "Autumn\nCup",
        "Autumn\u{7f}",
    ] {
        let reply = call(
            &app,
            post(
                "/v1/tournaments",
                &director,
                &json!({"name": name, "rounds": 1}),
            ),
        )
        .await;
        assert!(
            matches!(reply.status.as_u16(), 400 | 422),
            "{name:?}: {:?}",
            reply.json()
        );
        let detail = reply.json()["detail"].as_str().unwrap_or("").to_owned();
        assert!(
            detail.contains("`name`") && detail.contains("control character U+"),
            "{name:?}: {detail}"
        );
    }
    // A player's display name likewise.
    let player = call(
        &app,
        post(
            "/v1/players",
            &admin,
            &json!({"handle": "ann", "display_name": "A\u{85}nn"}),
        ),
    )
    .await;
    assert_problem(&player, StatusCode::BAD_REQUEST, "malformed-request");
    assert!(player.json()["detail"]
        .as_str()
        .is_some_and(|d| d.contains("display_name")));
    assert_eq!(event_count(&db).await, before, "nothing appended");
    // Letters of any script are no controls.
    let fine = call(
        &app,
        post(
            "/v1/tournaments",
            &director,
            &json!({"name": "Coupe d'Été — 秋", "rounds": 1}),
        ),
    )
    .await;
    assert_eq!(fine.status, StatusCode::CREATED, "{:?}", fine.json());
}

#[actix_web::test]
async fn a_season_outside_the_documents_bounds_is_a_400_naming_it() {
    let db = TestDb::new().await;
    let app = app!(db);
    let doc = document();
    let season = doc["paths"]["/v1/tournaments"]["get"]["parameters"]
        .as_array()
        .and_then(|all| all.iter().find(|p| p["name"] == "season"))
        .expect("a season parameter")["schema"]
        .clone();
    let (least, most) = (
        season["minimum"].as_i64().expect("a minimum"),
        season["maximum"].as_i64().expect("a maximum"),
    );
    for refused in [-683, least - 1, most + 1] {
        for path in ["/v1/tournaments", "/tournaments"] {
            let reply = call(&app, get(&format!("{path}?season={refused}"))).await;
            assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{path} {refused}");
            assert!(
                reply.text().contains("`season`"),
                "{path}: {}",
                reply.text()
            );
        }
    }
    for taken in [least, 2026, most] {
        let reply = call(&app, get(&format!("/v1/tournaments?season={taken}"))).await;
        assert_eq!(reply.status, StatusCode::OK, "{taken}");
    }
}

/// `path` with its parameters filled in with things that exist: the game `game`, the
/// points ladder, the game's stream (anything else left as its name).
fn filled(path: &str, game: &str) -> String {
    path.replace("{ladder}", "points")
        .replace("{stream}", &format!("game-{game}"))
        .replace("{id}", game)
        .replace(['{', '}'], "")
}

#[actix_web::test]
async fn every_bounded_integer_query_parameter_is_taken_within_its_bounds_and_refused_outside() {
    let (db, app, _gm, game) = given_a_game!();
    let admin = token(&db, "root", Role::Admin).await;
    let doc = document();
    let mut tried = 0;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        let Some(parameters) = item["get"]["parameters"].as_array() else {
            continue;
        };
        let path = filled(path, &game);
        for parameter in parameters.iter().filter(|p| p["in"] == "query") {
            let schema = resolved(&doc, &parameter["schema"]);
            if !types(schema).contains(&"integer") {
                continue;
            }
            let name = parameter["name"].as_str().expect("a name");
            let (least, most) = (schema["minimum"].as_i64(), schema["maximum"].as_i64());
            let uri = |value: i64| format!("{path}?{name}={value}");
            let ask =
                |uri: &str| get(uri).insert_header(("Authorization", format!("Bearer {admin}")));
            for outside in [least.map(|l| l - 1), most.map(|m| m + 1)]
                .into_iter()
                .flatten()
            {
                let uri = uri(outside);
                let reply = call(&app, ask(&uri)).await;
                assert_eq!(
                    reply.status,
                    StatusCode::BAD_REQUEST,
                    "{uri}: {}",
                    reply.text()
                );
                assert!(
                    reply.text().contains(&format!("`{name}`")),
                    "{uri}: {}",
                    reply.text()
                );
                tried += 1;
            }
            for inside in [least, most].into_iter().flatten() {
                let uri = uri(inside);
                let reply = call(&app, ask(&uri)).await;
                assert!(
                    reply.status != StatusCode::BAD_REQUEST && !reply.status.is_server_error(),
                    "{uri}: {} {}",
                    reply.status,
                    reply.text()
                );
            }
        }
    }
    assert!(tried >= 10, "only {tried} bounds tried");
}

#[actix_web::test]
async fn a_nul_or_another_control_in_a_page_form_is_a_400_naming_the_field() {
    let (db, app, gm, game) = given_a_game!();
    let before = event_count(&db).await;
    for (text, shown) in [("end%00turn", "U+0000"), ("end%1Bturn", "U+001B")] {
        let reply = call(
            &app,
            TestRequest::post()
                .uri(&format!("/games/{game}/turn"))
                .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
                .set_payload(format!(
                    "token={gm}&action=submit&version=1&power=russia&text={text}"
                )),
        )
        .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
        assert!(
            reply.text().contains(&format!(
                "form field `text` contains the control character {shown}"
            )),
            "{}",
            reply.text()
        );
    }
    assert_eq!(event_count(&db).await, before);
}

#[actix_web::test]
async fn a_mailed_turn_holding_a_nul_is_refused_in_words_and_appends_nothing() {
    let Some(league) = a_league_playing_by_mail().await else {
        return;
    };
    let mail = league.your_move("russia", 1).await;
    let player = league.seats["russia"].clone();
    let start = league.version().await;
    // A raw NUL byte in an 8bit text, and `=00` in a quoted-printable one.
    let raw = league
        .reply(
            Via::Lmtp,
            "russia",
            &mail,
            "Re: Your move",
            "buy 1 INF\nend\0turn",
        )
        .await;
    let answer = league.answer(&player, &raw).await.body();
    assert!(
        answer.contains("line 2 of the turn contains a NUL character (U+0000)"),
        "{answer}"
    );
    assert!(answer.contains("Nothing was recorded"), "{answer}");
    assert_eq!(outcome_of(&league, &raw).await, "refused nul-character");
    // Its subject holds one too (in an RFC 2047 word): the answer, which repeats it, is
    // still made and sent.
    let quoted = reply_to(&player, &mail, "Re: Your\u{0} move ✓", "")
        .latin1_quoted_printable("end\0turn\n\n> Hello\n");
    league
        .send(
            Via::Smtp,
            &format!("{player}@club.example"),
            &mail.header("Reply-To"),
            &quoted,
        )
        .await;
    let answered = league.answer(&player, &quoted).await;
    assert!(
        answered.header("Subject").contains("Your  move"),
        "{}",
        answered.header("Subject")
    );
    let answer = answered.body();
    assert!(
        answer.contains("line 1 of the turn contains a NUL character (U+0000)"),
        "{answer}"
    );
    assert_eq!(league.version().await, start, "nothing appended");
}
