//! AAP Historical's own rules (revision 3) over HTTP on the Pacific board, in one game: a
//! submarine takes a convoy centre and a friend's fleet frees it (6, 8.1), a submarine is
//! attacked only where 7.1 allows, a combat air patrol defends its zone (8), the US lends
//! a fighter to the KMT and takes it back (3.5), the KMT and the CCP go to war (3); the
//! export passes the offline audit.

use actix_web::http::StatusCode;
use serde_json::{json, Value};
use warlog::audit::AuditInput;
use warlog_api::auth::Role;
use warlog_tests::TestDb;

use crate::games::{act, export, order, pass_until, write_export};
use crate::kit::{app, call, get, token, TestApp};
use crate::rulesets::{created_game, refused, units_in, PLAYERS};

/// The events of an answer of one type.
fn of_type<'a>(answer: &'a Value, event_type: &str) -> Vec<&'a Value> {
    answer["events"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter(|e| e["event_type"] == event_type)
        .collect()
}

async fn board<B: actix_web::body::MessageBody>(app: &impl TestApp<B>, game: &str) -> Value {
    call(app, get(&format!("/v1/games/{game}/board")))
        .await
        .json()
}

/// The battles the power to act has still to fight.
async fn battles<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    game: &str,
) -> Vec<String> {
    let now = call(app, get(&format!("/v1/games/{game}/now")))
        .await
        .json();
    now["battles"]
        .as_array()
        .map(|b| {
            b.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[actix_web::test]
async fn an_aap_game_over_http_plays_convoys_patrols_loans_hidden_submarines_and_the_chinese_war_and_passes_the_audit(
) {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let game = created_game(
        &app,
        &gm,
        json!({"ruleset": "aap-historical", "players": PLAYERS}),
    )
    .await;

    // Round 1, Japan: its submarine in SZ 16 sails into the UK's empty convoy centre in
    // SZ 15 and, its battles over, captures it (6: "Subs can capture").
    pass_until(&app, &gm, &game, 1, "japan", "CombatMove").await;
    order(
        &app,
        &gm,
        &game,
        "japan",
        json!([{"type": "move", "units": {"SUB": 1}, "path": ["SZ 16", "SZ 15"]},
               {"type": "end_phase"}]),
    )
    .await;
    let ended = order(&app, &gm, &game, "japan", json!([{"type": "end_phase"}])).await;
    let captured = of_type(&ended, "ConvoyCaptured");
    assert_eq!(captured.len(), 1, "{ended}");
    assert_eq!(captured[0]["payload"]["power"], "japan", "{ended}");
    assert_eq!(captured[0]["payload"]["from"], "united-kingdom", "{ended}");

    // Round 1, the US.
    pass_until(&app, &gm, &game, 1, "united-states", "CombatMove").await;
    // A destroyer joins the Japanese submarine in SZ 18, outside any convoy: no battle
    // (7.1), and no attack may be declared on it yet.
    let joined = order(
        &app,
        &gm,
        &game,
        "united-states",
        json!([{"type": "move", "units": {"DES": 1}, "path": ["SZ 17", "SZ 18"]}]),
    )
    .await;
    let moved = of_type(&joined, "UnitsMoved");
    assert!(moved[0]["payload"]["contested"].is_null(), "{joined}");
    let hidden = refused(
        &app,
        &gm,
        &game,
        "united-states",
        json!([{"type": "attack_submarines", "sea_zone": "SZ 18"}]),
    )
    .await;
    assert!(
        hidden["detail"]
            .as_str()
            .is_some_and(|d| d.contains("submarines")),
        "{hidden}"
    );
    // The carrier group from SZ 17 attacks the submarine in the captured centre: in a
    // convoy zone it may be attacked (7.1 ii).
    order(
        &app,
        &gm,
        &game,
        "united-states",
        json!([
            {"type": "move", "units": {"DES": 1, "AC": 1}, "path": ["SZ 17", "SZ 16", "SZ 15"]},
            {"type": "move", "units": {"FTR": 2}, "path": ["SZ 17", "SZ 16", "SZ 15"]},
            {"type": "end_phase"},
        ]),
    )
    .await;
    assert_eq!(battles(&app, &game).await, ["15 Sea Zone"]);
    order(
        &app,
        &gm,
        &game,
        "united-states",
        json!([{"type": "fight_battle", "territory": "SZ 15"}]),
    )
    .await;
    let board_now = board(&app, &game).await;
    assert_eq!(
        units_in(&board_now, "15 Sea Zone", "japan", "SUB"),
        0,
        "sunk"
    );
    // Its battles over, the US liberates the centre for the UK (8.1).
    let ended = order(
        &app,
        &gm,
        &game,
        "united-states",
        json!([{"type": "end_phase"}]),
    )
    .await;
    let liberated = of_type(&ended, "ConvoyLiberated");
    assert_eq!(liberated.len(), 1, "{ended}");
    assert_eq!(liberated[0]["payload"]["for_power"], "united-kingdom");
    // Non-combat: one Philippine fighter patrols over SZ 38, the other flies to the KMT's
    // Kiangsi; the US lends it to the KMT.
    order(
        &app,
        &gm,
        &game,
        "united-states",
        json!([
            {"type": "fly_patrol", "units": {"FTR": 1}, "from": "Philippines", "over": "SZ 38"},
            {"type": "move", "units": {"FTR": 1}, "path": ["Philippines", "SZ 38", "SZ 45", "Kiangsi"]},
            {"type": "lend", "to": "kmt", "territory": "Kiangsi", "units": {"FTR": 1}},
        ]),
    )
    .await;
    let board_now = board(&app, &game).await;
    assert_eq!(
        units_in(&board_now, "38 Sea Zone", "united-states", "FTR"),
        1
    );
    assert_eq!(units_in(&board_now, "Kiangsi", "kmt", "FTR"), 1);

    // Round 2, Japan attacks SZ 38 with ships alone: the patrolling fighter defends it.
    pass_until(&app, &gm, &game, 2, "japan", "CombatMove").await;
    order(
        &app,
        &gm,
        &game,
        "japan",
        json!([{"type": "move", "units": {"BB": 2, "DES": 1}, "path": ["SZ 45", "SZ 38"]},
               {"type": "end_phase"}]),
    )
    .await;
    let fought = order(
        &app,
        &gm,
        &game,
        "japan",
        json!([{"type": "fight_battle", "territory": "SZ 38"}]),
    )
    .await;
    let listing = fought["battles"][0]["listing"].as_str().expect("a listing");
    assert!(listing.contains("FTR"), "the patrol defends: {listing}");

    // Round 2, the KMT declares war on the CCP (3: "they can choose to fight each other")
    // and fights where both stand; the lent fighter flies on to Hunan.
    pass_until(&app, &gm, &game, 2, "kmt", "Purchase").await;
    let war = order(
        &app,
        &gm,
        &game,
        "kmt",
        json!([{"type": "break_agreement", "with": "ccp"}, {"type": "end_phase"}, {"type": "end_phase"}]),
    )
    .await;
    assert_eq!(of_type(&war, "AgreementEnded").len(), 1, "{war}");
    let fronts = battles(&app, &game).await;
    assert!(fronts.contains(&"Shansi".to_owned()), "{fronts:?}");
    for place in fronts {
        order(
            &app,
            &gm,
            &game,
            "kmt",
            json!([{"type": "fight_battle", "territory": place}]),
        )
        .await;
    }
    order(
        &app,
        &gm,
        &game,
        "kmt",
        json!([{"type": "end_phase"},
               {"type": "move", "units": {"FTR": 1}, "path": ["Kiangsi", "Hunan"]}]),
    )
    .await;

    // Round 2, the US takes its fighter back; having flown on the KMT's turn, it may not
    // move again this round (3.5). Its destroyer, beside the Japanese submarine as the US
    // turn began, may now attack it (7.1 iii).
    pass_until(&app, &gm, &game, 2, "united-states", "CombatMove").await;
    let recalled = order(
        &app,
        &gm,
        &game,
        "united-states",
        json!([{"type": "recall", "from": "kmt", "territory": "Hunan", "units": {"FTR": 1}}]),
    )
    .await;
    assert_eq!(of_type(&recalled, "UnitsRecalled").len(), 1, "{recalled}");
    let board_now = board(&app, &game).await;
    assert_eq!(units_in(&board_now, "Hunan", "united-states", "FTR"), 1);
    refused(
        &app,
        &gm,
        &game,
        "united-states",
        json!([{"type": "move", "units": {"FTR": 1}, "path": ["Hunan", "Kiangsi"]}]),
    )
    .await;
    let declared = order(
        &app,
        &gm,
        &game,
        "united-states",
        json!([{"type": "attack_submarines", "sea_zone": "SZ 18"}, {"type": "end_phase"}]),
    )
    .await;
    assert_eq!(
        of_type(&declared, "SubmarinesAttacked").len(),
        1,
        "{declared}"
    );
    assert_eq!(battles(&app, &game).await, ["18 Sea Zone"]);
    order(
        &app,
        &gm,
        &game,
        "united-states",
        json!([{"type": "fight_battle", "territory": "SZ 18"}]),
    )
    .await;

    // The game ends; its export replays under the rules it was played with.
    pass_until(&app, &gm, &game, 3, "japan", "Repairs").await;
    let ended = act(&app, &gm, &game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    let events = export(&app, &game).await;
    warlog::audit::run(&AuditInput::files(&[write_export(&events)]), false)
        .expect("the export passes the audit");
}
