//! A whole turn in plain words (`POST /v1/games/{id}/turn`): round 2 of a Cut-Throat
//! game played with one text per power, a battle among them; previews that append nothing
//! and show no die; bad lines refused naming the line.

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::Value;
use warlog_api::auth::Role;
use warlog_events::audit::Verdict;
use warlog_tests::TestDb;

use crate::games::{create_game, export, given_a_game, offline_audit, write_export};
use crate::kit::{app, assert_problem, call, get, post, token, Reply, TestApp};

/// Sends `text` as `power`'s turn, as plain text (`query` adds to `power=`).
pub(crate) async fn send_turn<B: MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    game: &str,
    power: &str,
    query: &str,
    text: &str,
) -> Reply {
    call(
        app,
        TestRequest::post()
            .uri(&format!("/v1/games/{game}/turn?power={power}{query}"))
            .insert_header(("Authorization", format!("Bearer {token}")))
            .insert_header(("Content-Type", "text/plain; charset=utf-8"))
            .set_payload(text.to_owned()),
    )
    .await
}

async fn turn<B: MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    game: &str,
    power: &str,
    text: &str,
) -> Value {
    let reply = send_turn(app, token, game, power, "", text).await;
    assert_eq!(reply.status, StatusCode::OK, "{power}: {:?}", reply.json());
    reply.json()
}

/// Round 1 of a Cut-Throat game, every power ending its turn (no combat in round 1).
pub(crate) async fn end_round_one<B: MessageBody>(app: &impl TestApp<B>, gm: &str, game: &str) {
    for power in ORDER {
        turn(app, gm, game, power, "end turn\n").await;
    }
}

async fn version<B: MessageBody>(app: &impl TestApp<B>, game: &str) -> u64 {
    call(app, get(&format!("/v1/games/{game}"))).await.json()["version"]
        .as_u64()
        .expect("a version")
}

pub(crate) const ORDER: [&str; 5] = [
    "russia",
    "germany",
    "united-kingdom",
    "japan",
    "united-states",
];

/// Every key anywhere in a JSON value.
fn keys(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                into.push(k.clone());
                keys(v, into);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| keys(v, into)),
        _ => {}
    }
}

#[actix_web::test]
async fn round_two_of_a_cut_throat_game_played_with_one_turn_text_per_power_passes_the_audit() {
    let (_db, app, gm, game) = given_a_game!();
    // Round 1: no combat in Cut-Throat; each power ends its turn.
    end_round_one(&app, &gm, &game).await;
    let round_two = [
        (
            "russia",
            "# Russia, round 2\n\
             buy 3 infantry\n\
             move 5 INF: Caucasus > Ukraine\n\
             move 3 inf, 1 arm from Karelia to Ukraine\n\
             battle Ukraine; combat SAAC; loss INF, ARM\n\
             place 3 INF in Russia\n\
             end turn\n",
        ),
        ("germany", "buy 2 INF\nplace 2 INF in Germany\nend turn\n"),
        (
            "united-kingdom",
            "Purchase:\nbuy 1 INF\nPlacement:\nplace 1 INF in United Kingdom\ndone\n",
        ),
        ("japan", "buy 1 INF\nplace 1 INF in Japan\nend turn\n"),
        (
            "united-states",
            "buy 1 INF\nplace 1 INF in East US\nend turn\n",
        ),
    ];
    let mut battles = 0;
    for (power, text) in round_two {
        let before = version(&app, &game).await;
        let answer = turn(&app, &gm, &game, power, text).await;
        // The answer gives the new version and what the turn did in words.
        let summary = answer["summary"].as_array().expect("a summary");
        assert!(!summary.is_empty(), "{answer}");
        assert!(summary
            .iter()
            .all(|s| s.as_str().is_some_and(|s| !s.contains("Some("))));
        assert!(answer["version"].as_u64().expect("a version") > before);
        assert!(answer["refused"].is_null(), "{power}: {answer}");
        battles += answer["battles"].as_array().map_or(0, Vec::len);
    }
    assert_eq!(battles, 1, "Russia's battle in Ukraine");
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    assert_eq!(
        (view["round"].as_u64(), view["turn"].as_str()),
        (Some(3), Some("russia"))
    );

    // The game page shows each power's orders as players write them.
    let page = call(&app, get(&format!("/games/{game}"))).await.text();
    assert!(
        page.contains("battle Ukraine S.S.R.; combat SAAC; loss INF, ARM"),
        "the battle order as written"
    );
    assert!(page.contains("move 1 ARM, 3 INF: Karelia S.S.R. &gt; Ukraine S.S.R."));

    // Tools may read the events by name.
    let named = call(&app, get(&format!("/v1/games/{game}/events?names=true")))
        .await
        .json();
    let fought = named
        .as_array()
        .and_then(|events| events.iter().find(|e| e["event_type"] == "BattleFought"))
        .expect("the battle");
    assert_eq!(fought["payload"]["territory"], "Ukraine S.S.R.", "{fought}");

    let ended = call(
        &app,
        post(&format!("/v1/games/{game}/end"), &gm, &Value::Null),
    )
    .await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    let path = write_export(&export(&app, &game).await);
    let report = offline_audit(&path, None);
    assert!(
        report.checks.iter().all(|c| c.verdict == Verdict::Pass),
        "{report:?}"
    );
}

#[actix_web::test]
async fn a_preview_appends_nothing_holds_no_die_and_gives_each_battle_its_odds() {
    let (_db, app, gm, game) = given_a_game!();
    end_round_one(&app, &gm, &game).await;
    let before = version(&app, &game).await;
    let text = "buy 3 INF\nmove 5 INF: Caucasus > Ukraine\nbattle Ukraine; loss INF\n\
                place 3 INF in Russia\nend turn\n";
    let reply = send_turn(&app, &gm, &game, "russia", "&dry_run=true", text).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
    let preview = reply.json();
    assert_eq!(preview["dry_run"], true);
    assert_eq!(version(&app, &game).await, before, "nothing appended");
    let mut all = Vec::new();
    keys(&preview, &mut all);
    for secret in ["dice", "rolls_of", "listing", "seed"] {
        assert!(!all.iter().any(|k| k == secret), "{secret} in {preview}");
    }
    let battle = preview["lines"]
        .as_array()
        .and_then(|lines| lines.iter().find(|l| !l["battle"].is_null()))
        .map(|l| l["battle"].clone())
        .expect("a battle line");
    let total: f64 = [
        "attacker_wins",
        "defender_wins",
        "both_destroyed",
        "attacker_withdraws",
    ]
    .iter()
    .filter_map(|k| battle[k].as_f64())
    .sum();
    assert!((total - 1.0).abs() < 1e-6, "{battle}");
    assert_eq!(battle["territory"], "Ukraine S.S.R.");
    assert!(battle["detail"].as_str().is_some_and(|d| d.contains('%')));
    // The line after the battle is checked on the board even dice leave, and says so.
    let place = preview["lines"]
        .as_array()
        .and_then(|lines| lines.iter().find(|l| l["line"] == 4))
        .expect("the placement");
    assert_eq!(place["after_dice"], true, "{preview}");
    assert_eq!(preview["then"]["to_play"], "germany", "{preview}");
}

#[actix_web::test]
async fn a_bad_line_is_refused_naming_its_line_and_nothing_is_appended() {
    let (_db, app, gm, game) = given_a_game!();
    end_round_one(&app, &gm, &game).await;
    let before = version(&app, &game).await;
    let russia = |query: &'static str, text: &'static str| {
        send_turn(&app, &gm, &game, "russia", query, text)
    };

    // An unknown place: the line, the column and the closest names.
    let reply = russia("", "buy 2 INF\nmove 5 INF: Caucasus > Ukrane\n").await;
    assert_problem(&reply, StatusCode::UNPROCESSABLE_ENTITY, "turn-unreadable");
    let problem = reply.json();
    assert_eq!(
        (problem["line"].as_u64(), problem["column"].as_u64()),
        (Some(2), Some(24))
    );
    assert_eq!(problem["suggestions"][0], "Ukraine S.S.R.", "{problem}");

    // A purchase after a move: the engine's refusal, on its line.
    let reply = russia("", "move 5 INF: Caucasus > Ukraine\nbuy 1 INF\n").await;
    assert_problem(&reply, StatusCode::UNPROCESSABLE_ENTITY, "rule-violation");
    let problem = reply.json();
    assert_eq!(problem["line"], 2, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("line 2: ")),
        "{problem}"
    );

    // A unit that cannot reach.
    let reply = russia(
        "",
        "# too far\nmove 1 INF: Caucasus > Ukraine > East Europe\n",
    )
    .await;
    assert_problem(&reply, StatusCode::UNPROCESSABLE_ENTITY, "rule-violation");
    assert_eq!(reply.json()["line"], 2, "{:?}", reply.json());

    // The same, previewed: refused in the answer, nothing appended either.
    let reply = russia(
        "&dry_run=true",
        "buy 2 INF\nmove 1 INF: Caucasus > Ukraine > East Europe\n",
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
    assert_eq!(reply.json()["refused"]["line"], 2, "{:?}", reply.json());

    assert_eq!(version(&app, &game).await, before, "nothing appended");
}

#[actix_web::test]
async fn a_turn_sent_as_json_with_a_text_field_is_taken_like_plain_text() {
    let (_db, app, gm, game) = given_a_game!();
    let reply = call(
        &app,
        post(
            &format!("/v1/games/{game}/turn"),
            &gm,
            &serde_json::json!({"text": "end phase\nend phase\n", "power": "russia"}),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    assert_eq!(view["phase"], "Purchase");
    let refused = call(
        &app,
        TestRequest::post()
            .uri(&format!("/v1/games/{game}/turn"))
            .insert_header(("Authorization", format!("Bearer {gm}")))
            .insert_header(("Content-Type", "text/html"))
            .set_payload("end phase"),
    )
    .await;
    assert_problem(
        &refused,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported-media-type",
    );
    // A JSON turn with the text form's query, and text that is not UTF-8: 400, nothing
    // appended.
    let before = version(&app, &game).await;
    let both = call(
        &app,
        post(
            &format!("/v1/games/{game}/turn?dry_run=true"),
            &gm,
            &serde_json::json!({"text": "end phase\n"}),
        ),
    )
    .await;
    assert_problem(&both, StatusCode::BAD_REQUEST, "malformed-request");
    let garbled = call(
        &app,
        TestRequest::post()
            .uri(&format!("/v1/games/{game}/turn"))
            .insert_header(("Authorization", format!("Bearer {gm}")))
            .insert_header(("Content-Type", "text/plain"))
            .set_payload(vec![b'e', 0xff, 0xfe, b'\n']),
    )
    .await;
    assert_problem(&garbled, StatusCode::BAD_REQUEST, "malformed-request");
    assert_eq!(version(&app, &game).await, before, "nothing appended");
}

#[actix_web::test]
async fn a_player_may_neither_preview_nor_send_a_turn_for_a_power_not_theirs() {
    let (db, app, _gm, game) = given_a_game!();
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    let seat = |power: &str| {
        view["seats"]
            .as_array()
            .and_then(|seats| seats.iter().find(|s| s["power"] == power))
            .and_then(|s| s["player"].as_str())
            .expect("a seat")
            .to_owned()
    };
    // Russia is to play; the player seated for Germany tries to play it.
    let german = token(&db, &seat("germany"), Role::Player).await;
    let before = version(&app, &game).await;
    for query in ["&dry_run=true", ""] {
        let reply = send_turn(&app, &german, &game, "russia", query, "end phase\n").await;
        assert_problem(&reply, StatusCode::FORBIDDEN, "forbidden");
    }
    assert_eq!(version(&app, &game).await, before, "nothing appended");
    // Russia's own player may.
    let russian = token(&db, &seat("russia"), Role::Player).await;
    let reply = send_turn(
        &app,
        &russian,
        &game,
        "russia",
        "&dry_run=true",
        "end phase\n",
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
}
