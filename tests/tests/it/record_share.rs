//! Every power's share of the record is bounded (issue 56), over HTTP against real
//! PostgreSQL: the flood measured (Japan's player, not on turn, sending batches of 200
//! standing orders, and an offer of 200,000 characters of terms) is refused past the limits
//! and appends nothing, so the game's version and page stay as they were; a power's
//! legitimate standing orders and offers still work, and its share comes back with the
//! next turn.

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_tests::TestDb;

use crate::games::{
    act, create_game, export, offline_audit, order, pass_until, player_token, send_orders,
    write_export,
};
use crate::kit::{app, assert_problem, call, get, token, Reply, TestApp};

/// 2027-01-15 08:00 UTC: the clock stands still, so a page changes only with its game.
const START: i64 = 1_800_000_000;

/// Standing orders for all of a power's battles: lose infantry first.
fn standing_orders() -> Value {
    json!({"type": "set_standing_orders", "order_of_loss": ["inf"]})
}

fn batch(count: usize) -> Value {
    Value::Array(vec![standing_orders(); count])
}

/// What a reader sees of the game: its version, its ETag and the size of its page.
async fn seen<B: MessageBody>(app: &impl TestApp<B>, game: &str) -> (u64, String, usize) {
    let view = call(app, get(&format!("/v1/games/{game}"))).await;
    assert_eq!(view.status, StatusCode::OK);
    let page = call(app, get(&format!("/games/{game}"))).await;
    assert_eq!(page.status, StatusCode::OK);
    (
        view.json()["version"].as_u64().expect("a version"),
        view.header("etag"),
        page.body.len(),
    )
}

/// A 422 naming the refusal's code, its limit and where the limits are stated.
fn assert_refused(reply: &Reply, violation: &str, words: &[&str]) {
    assert_problem(reply, StatusCode::UNPROCESSABLE_ENTITY, "rule-violation");
    let problem = reply.json();
    assert_eq!(problem["violation"], violation, "{problem}");
    assert_eq!(
        problem["rule"],
        "docs/rulesets.md, Every power's share of the record"
    );
    let detail = problem["detail"].as_str().expect("a detail");
    for said in words {
        assert!(detail.contains(said), "{said:?} not in {detail}");
    }
}

#[actix_web::test]
async fn a_flood_of_orders_out_of_turn_is_refused_past_the_limit_and_appends_nothing() {
    // Given a Cut-Throat game in Russia's turn, and Japan's player,
    let db = TestDb::new().await;
    let (app, _clock) = app!(db, clock at START);
    let gm = token(&db, "gus", Role::Gm).await;
    let game = create_game(&app, &gm).await;
    let japan = player_token(&db, &app, &game, "japan").await;
    // when Japan leaves standing orders for its home and offers Germany a pact, as a player
    // does while another plays, then both are taken;
    order(
        &app,
        &japan,
        &game,
        "japan",
        json!([{"type": "set_standing_orders", "territory": "Japan",
                "order_of_loss": ["inf", "arm"]}]),
    )
    .await;
    order(
        &app,
        &japan,
        &game,
        "japan",
        json!([{"type": "offer_agreement", "with": "germany", "terms": "non-aggression"}]),
    )
    .await;
    let before = seen(&app, &game).await;

    // when it sends ten batches of 200 standing orders, as the flood measured did,
    for _ in 0..10 {
        let flood = send_orders(&app, &japan, &game, "japan", &batch(200)).await;
        // then each is refused whole, naming the limit and when it starts again,
        assert_refused(
            &flood,
            "out-of-turn-limit",
            &[
                "Japan may give at most 20 orders a turn while another power is on turn",
                "during Russia's turn",
                "starts again when the turn passes",
            ],
        );
    }
    // and an offer of 200,000 characters of terms is refused, naming the terms' limit;
    let long = send_orders(
        &app,
        &japan,
        &game,
        "japan",
        &json!([{"type": "offer_agreement", "with": "united-kingdom",
                 "terms": "x".repeat(200_000)}]),
    )
    .await;
    assert_refused(
        &long,
        "terms-too-long",
        &["orders[0]", "at most 2,000 characters", "these are 200,000"],
    );
    // and the game's version, its ETag and its page are as they were.
    assert_eq!(seen(&app, &game).await, before);

    // Within the limit, Japan's orders are taken: 18 more make its 20 this turn,
    order(&app, &japan, &game, "japan", batch(18)).await;
    let full = seen(&app, &game).await;
    // and the 21st is refused, appending nothing.
    let one_more = send_orders(&app, &japan, &game, "japan", &batch(1)).await;
    assert_refused(&one_more, "out-of-turn-limit", &["would make 21"]);
    assert_eq!(seen(&app, &game).await, full);

    // When the turn passes to Germany, Japan's share is there again.
    pass_until(&app, &gm, &game, 1, "germany", "Purchase").await;
    order(&app, &japan, &game, "japan", batch(20)).await;
    let refused = send_orders(&app, &japan, &game, "japan", &batch(1)).await;
    assert_refused(&refused, "out-of-turn-limit", &["during Germany's turn"]);

    // The export, the game ended (its seed revealed), passes the offline audit.
    let ended = act(&app, &gm, &game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    let report = offline_audit(&write_export(&export(&app, &game).await), None);
    assert_eq!(
        report.outcome,
        warlog_events::audit::Outcome::Passed,
        "{}",
        report.render()
    );
}
