//! Issue 36, item 5: a defender's submarines retreat to a safe zone by standing order
//! (Cut-Throat, Sub movements: "any nation's subs, have the capability to either submerge in
//! a combat zone upon attack or retreat to a safe zone"), set over HTTP and in plain words,
//! sealed, and followed by the battle of the next turn; and AAP's CCP blending in
//! (3.1) in the odds.

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::json;
use warlog_api::auth::Role;
use warlog_tests::TestDb;

use crate::games::{
    create_game, export, offline_audit, order, pass_until, player_token, send_orders, write_export,
};
use crate::kit::{app, call, token};
use crate::turns::send_turn;

#[actix_web::test]
async fn submarines_ordered_over_http_to_retreat_leave_the_next_turns_battle_for_a_safe_zone() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let game = create_game(&app, &gm).await;
    let uk = player_token(&db, &app, &game, "united-kingdom").await;

    // Round 1, the United Kingdom's turn: refusals name what is wrong and append nothing.
    pass_until(&app, &gm, &game, 1, "united-kingdom", "Repairs").await;
    let before = export(&app, &game).await.len();
    for (orders, says) in [
        (
            json!([{"type": "set_standing_orders", "retreat_subs": true,
                    "retreat_subs_to": "United Kingdom"}]),
            "submarines retreat to a sea zone",
        ),
        (
            json!([{"type": "set_standing_orders", "retreat_subs_to": "Baltic Sea Zone"}]),
            "goes with the order to retreat them",
        ),
        (
            json!([{"type": "set_standing_orders", "blend_in": {"after_round": 1}}]),
            "no guerrillas",
        ),
    ] {
        let reply = send_orders(&app, &uk, &game, "united-kingdom", &orders).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{orders}");
        let detail = reply.json()["detail"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(detail.contains(says), "{detail}");
    }
    assert_eq!(export(&app, &game).await.len(), before);
    // The order in plain words, for the North Sea, where the British fleet stands.
    let set = send_turn(
        &app,
        &uk,
        &game,
        "united-kingdom",
        "",
        "standing orders for North Sea Zone; retreat subs\n",
    )
    .await;
    assert_eq!(set.status, StatusCode::OK, "{:?}", set.json());
    let recorded = export(&app, &game).await;
    assert!(
        recorded
            .iter()
            .any(|e| e.event_type.as_str() == "StandingOrdersSealed"),
        "sealed"
    );

    // Round 2, Germany's fighter and bomber attack the North Sea.
    pass_until(&app, &gm, &game, 2, "germany", "CombatMove").await;
    order(
        &app,
        &gm,
        &game,
        "germany",
        json!([{"type": "move", "units": {"FTR": 1, "BMB": 1},
                "path": ["Germany", "Baltic Sea Zone", "North Sea Zone"]}]),
    )
    .await;
    let fought = order(
        &app,
        &gm,
        &game,
        "germany",
        json!([{"type": "end_phase"}, {"type": "fight_battle", "territory": "North Sea Zone"}]),
    )
    .await;
    let events = fought["events"].as_array().expect("events");
    let battle = events
        .iter()
        .find(|e| e["event_type"] == "BattleFought")
        .map(|e| &e["payload"])
        .expect("a battle");
    // The three submarines left before the first die, for the Baltic: next door, empty,
    // and first in the board's order.
    assert_eq!(
        battle["subs_retreated"]["power"], "united-kingdom",
        "{battle}"
    );
    assert_eq!(battle["subs_retreated"]["subs"][0][2], 3, "{battle}");
    let listing = battle["listing"].as_str().expect("a listing");
    assert!(
        listing.contains(
            "Defender's submarines retreated before the first die: 3 SUB (United Kingdom) to \
             Baltic Sea Zone\n"
        ),
        "{listing}"
    );
    assert!(
        listing.starts_with(
            "Defender's standing orders (United Kingdom, for this place, given in round 1 on \
             United Kingdom's turn): submarines retreat to a safe zone\n"
        ),
        "{listing}"
    );
    let board = call(&app, crate::kit::get(&format!("/v1/games/{game}/board")))
        .await
        .json();
    let baltic = board["places"]
        .as_array()
        .and_then(|t| t.iter().find(|p| p["name"] == "Baltic Sea Zone"))
        .cloned()
        .unwrap_or_default();
    assert!(
        baltic.to_string().contains("SUB"),
        "the submarines are in the Baltic: {baltic}"
    );

    // The export passes the audit: the battle is decided again, the retreat with it.
    let report = offline_audit(&write_export(&export(&app, &game).await), None);
    assert!(report.findings.is_empty(), "{}", report.render());
}

#[actix_web::test]
async fn the_odds_over_http_know_the_ccp_blending_in() {
    let db = TestDb::new().await;
    let app = app!(db);
    // Six Japanese infantry against four of the CCP's, who blend in after round 1: Japan
    // wins only by four hits or more of six dice at 1.
    let odds = call(
        &app,
        TestRequest::post().uri("/v1/odds").set_json(json!({
            "attacker": "6 inf", "defender": "4 inf", "ruleset": "aap-historical",
            "attacker_power": "japan", "defender_power": "ccp",
            "defender_blend_in": {"after_round": 1}})),
    )
    .await;
    assert_eq!(odds.status, StatusCode::OK, "{:?}", odds.json());
    let odds = odds.json();
    let p: f64 = 1.0 / 6.0;
    let choose = |k: i32| {
        (0..k)
            .map(|i| f64::from(6 - i) / f64::from(i + 1))
            .product::<f64>()
    };
    let win: f64 = (4..=6)
        .map(|k| choose(k) * p.powi(k) * (1.0 - p).powi(6 - k))
        .sum();
    let served = |field: &str| odds[field].as_f64().unwrap_or(f64::NAN);
    assert!((served("attacker_win") - win).abs() < 1e-9, "{odds}");
    assert!((served("blended_in") - (1.0 - win)).abs() < 1e-9, "{odds}");
}
