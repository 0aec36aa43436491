//! The Pacific board's kamikaze tokens over HTTP (AAP 1i): Japan strikes a US destroyer in
//! a kamikaze zone on the US's turn, after its combat move and before its battle, with
//! dice from the game's seed; the tokens left show beside Japan's treasury, and the export
//! passes the offline audit.

use actix_web::http::StatusCode;
use serde_json::{json, Value};
use warlog::audit::AuditInput;
use warlog_api::auth::Role;
use warlog_tests::TestDb;

use crate::games::{act, export, order, pass_until, write_export};
use crate::kit::{app, call, get, token};
use crate::rulesets::{created_game, refused, PLAYERS};

/// Japan's kamikaze tokens on a board view.
fn kamikaze_tokens(board: &Value) -> Value {
    board["powers"]
        .as_array()
        .and_then(|p| p.iter().find(|x| x["power"] == "japan"))
        .map(|p| p["kamikaze_tokens"].clone())
        .unwrap_or_else(|| panic!("japan in {board}"))
}

#[actix_web::test]
async fn japan_strikes_a_us_destroyer_with_kamikazes_on_the_us_turn_and_the_audit_agrees() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let game = created_game(
        &app,
        &gm,
        json!({"ruleset": "aap-historical", "players": PLAYERS}),
    )
    .await;
    let board_url = format!("/v1/games/{game}/board");
    assert_eq!(
        kamikaze_tokens(&call(&app, get(&board_url)).await.json()),
        12
    );

    // Round 1, the US: its destroyer in SZ 38 attacks Japan's transport in SZ 35, a
    // kamikaze zone.
    pass_until(&app, &gm, &game, 1, "united-states", "CombatMove").await;
    let strike = json!([{"type": "kamikaze_attack",
                         "strikes": [{"sea_zone": "SZ 35", "unit": "DES", "tokens": 2}]}]);
    // Not while the US still moves.
    let early = refused(&app, &gm, &game, "japan", strike.clone()).await;
    assert_eq!(early["violation"], "wrong-phase", "{early}");
    order(
        &app,
        &gm,
        &game,
        "united-states",
        json!([{"type": "move", "units": {"DES": 1}, "path": ["SZ 38", "SZ 35"]},
               {"type": "end_phase"}]),
    )
    .await;

    // Its combat move over, Japan spends 2 tokens on the destroyer: two dice of the seed.
    let struck = order(&app, &gm, &game, "japan", strike.clone()).await;
    let events: Vec<&Value> = struck["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event_type"] == "KamikazesStruck")
        .collect();
    assert_eq!(events.len(), 1, "{struck}");
    let hit = &events[0]["payload"]["strikes"][0];
    assert_eq!(hit["dice"].as_array().map(Vec::len), Some(2), "{struck}");
    assert_eq!(
        kamikaze_tokens(&call(&app, get(&board_url)).await.json()),
        10
    );
    // Once a turn.
    let again = refused(&app, &gm, &game, "japan", strike).await;
    assert_eq!(again["violation"], "kamikaze-once-a-turn", "{again}");

    // The battle is fought if the destroyer is still afloat, and off if it sank.
    if hit["sunk"] == false {
        order(
            &app,
            &gm,
            &game,
            "united-states",
            json!([{"type": "fight_battle", "territory": "SZ 35"}]),
        )
        .await;
    }
    pass_until(&app, &gm, &game, 2, "japan", "Repairs").await;
    let ended = act(&app, &gm, &game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    let events = export(&app, &game).await;
    warlog::audit::run(&AuditInput::files(&[write_export(&events)]), false)
        .expect("the export passes the audit");
}
