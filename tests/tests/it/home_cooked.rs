//! A game of the home-cooked "War" rules over HTTP, with the server's dice: bases rolled,
//! initiative each round, the player to the right placing the non-player nations'
//! reinforcements, spending, moves that parley and fight the militia, then the result by
//! zone points and the export replayed by the offline auditor; and a house start chart,
//! uploaded as data, that the bases are rolled on.

use std::collections::BTreeSet;
use warlog::audit::AuditInput;

use actix_web::http::StatusCode;
use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_events::audit::{audit_game, Outcome, Verdict};
use warlog_events::chain::relink;
use warlog_tests::TestDb;

use crate::games::{act, export, offline_audit, order, send_orders, write_export};
use crate::kit::{app, assert_problem, call, get, post, token, TestApp};
use crate::rulesets::{treasury, units_in};

const PLAYERS: [&str; 5] = ["ann", "bob", "cy", "di", "ed"];
const SHIPS: [&str; 4] = ["SUB", "TRN", "BB", "AC"];

/// The board's places, from the ruleset: name → (sea, neighbours).
struct Map(Vec<(String, bool, Vec<String>)>);

impl Map {
    fn sea(&self, name: &str) -> bool {
        self.0.iter().any(|(n, sea, _)| n == name && *sea)
    }

    fn neighbours(&self, name: &str) -> Vec<String> {
        self.0
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, _, next)| next.clone())
            .unwrap_or_default()
    }
}

async fn war_map<B: actix_web::body::MessageBody>(app: &impl TestApp<B>) -> Map {
    let detail = call(app, get("/v1/rulesets/war")).await.json();
    let places = detail["territories"].as_array().expect("territories");
    Map(places
        .iter()
        .map(|t| {
            (
                t["name"].as_str().expect("name").to_owned(),
                t["sea"] == true,
                t["neighbours"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|n| n.as_str().map(str::to_owned))
                    .collect(),
            )
        })
        .collect())
}

async fn board<B: actix_web::body::MessageBody>(app: &impl TestApp<B>, game: &str) -> Value {
    call(app, get(&format!("/v1/games/{game}/board")))
        .await
        .json()
}

async fn version<B: actix_web::body::MessageBody>(app: &impl TestApp<B>, game: &str) -> Value {
    call(app, get(&format!("/v1/games/{game}"))).await.json()["version"].clone()
}

fn holder(board: &Value, place: &str) -> Option<String> {
    board["places"]
        .as_array()
        .and_then(|p| p.iter().find(|x| x["name"] == place))
        .and_then(|p| p["holder"].as_str().map(str::to_owned))
}

fn text(value: &Value) -> String {
    value.as_str().expect("a string").to_owned()
}

fn pairs(value: &Value) -> Vec<(String, u64)> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| (text(&p[0]), p[1].as_u64().expect("a count")))
        .collect()
}

/// The reinforcer's turn: roll, place everything (ships at sea, the rest in a land zone no
/// player holds), end.
async fn reinforce<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    gm: &str,
    game: &str,
    map: &Map,
) {
    let now = board(app, game).await;
    let reinforcer = text(&now["war"]["reinforcer"]);
    order(
        app,
        gm,
        game,
        &reinforcer,
        json!([{"type": "roll_reinforcements"}]),
    )
    .await;
    let now = board(app, game).await;
    let free_land = map
        .0
        .iter()
        .filter(|(name, sea, _)| !sea && holder(&now, name).is_none())
        .map(|(name, _, _)| name.clone())
        .nth(3)
        .expect("a zone no player holds");
    let sea_zone = map
        .0
        .iter()
        .find(|(_, sea, _)| *sea)
        .map(|(name, _, _)| name.clone())
        .expect("a sea zone");
    let mut orders = Vec::new();
    for (unit, n) in pairs(&now["war"]["reinforcements_to_place"]) {
        let zone = if SHIPS.contains(&unit.as_str()) {
            &sea_zone
        } else {
            &free_land
        };
        orders.push(json!({"type": "place", "territory": zone, "units": {unit: n}}));
    }
    orders.push(json!({"type": "end_phase"}));
    order(app, gm, game, &reinforcer, Value::Array(orders)).await;
}

/// The active player's spending: infrastructure and research when rich, then a tank and
/// soldiers at a base it still holds.
async fn spend<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    game: &str,
    active: &str,
) {
    let now = board(app, game).await;
    let bases: Vec<String> = now["war"]["bases"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b[0] == active))
        .and_then(|b| b[1].as_array())
        .into_iter()
        .flatten()
        .map(text)
        .filter(|base| holder(&now, base).as_deref() == Some(active))
        .collect();
    let mut money = treasury(&now, active);
    let mut orders = Vec::new();
    if let Some(base) = bases.first() {
        if money >= 17 {
            orders.push(json!({"type": "build_infrastructure", "territory": base}));
            orders.push(json!({"type": "develop_weapons", "dice": 1}));
            money -= 10;
        }
        if money >= 5 {
            orders.push(json!({"type": "place", "territory": base, "units": {"ARM": 1}}));
            money -= 5;
        }
        let soldiers = (money / 2).min(3);
        if soldiers > 0 {
            orders.push(json!({"type": "place", "territory": base, "units": {"INF": soldiers}}));
        }
    }
    orders.push(json!({"type": "end_phase"}));
    order(app, token, game, active, Value::Array(orders)).await;
}

/// The active player's moves: each tank two zones through a non-player zone (a parley)
/// into another, each base's soldiers into a neighbouring zone no other player holds.
async fn advance<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    gm: &str,
    game: &str,
    active: &str,
    map: &Map,
) -> usize {
    let now = board(app, game).await;
    let mut orders = Vec::new();
    let mine: Vec<String> = now["places"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["holder"] == active)
        .map(|p| text(&p["name"]))
        .collect();
    let not_a_players = |place: &String| !map.sea(place) && holder(&now, place).is_none();
    let mut targets = BTreeSet::new();
    for place in &mine {
        let tanks = units_in(&now, place, active, "ARM");
        let through = map
            .neighbours(place)
            .into_iter()
            .filter(not_a_players)
            .find_map(|via| {
                let to = map
                    .neighbours(&via)
                    .into_iter()
                    .find(|to| not_a_players(to) && to != place && !targets.contains(to))?;
                Some((via, to))
            });
        if let (true, Some((via, to))) = (tanks > 0, through) {
            targets.insert(to.clone());
            orders.push(json!({"type": "move", "units": {"ARM": tanks}, "path": [place, via, to]}));
        }
        let soldiers = units_in(&now, place, active, "INF");
        let next = map
            .neighbours(place)
            .into_iter()
            .find(|n| not_a_players(n) && !targets.contains(n));
        if let (true, Some(next)) = (soldiers > 0, next) {
            targets.insert(next.clone());
            orders.push(json!({"type": "move", "units": {"INF": soldiers}, "path": [place, next]}));
        }
    }
    let moves = orders.len();
    orders.push(json!({"type": "end_phase"}));
    order(app, gm, game, active, Value::Array(orders)).await;
    moves
}

#[actix_web::test]
async fn a_war_game_over_http_rolls_every_table_from_the_seed_and_its_export_passes_the_audit() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let map = war_map(&app).await;

    let listed = call(&app, get("/v1/rulesets/war")).await.json();
    assert_eq!(listed["playable"], true, "{listed}");
    let created = call(
        &app,
        post(
            "/v1/games",
            &gm,
            &json!({"ruleset": "war", "players": PLAYERS}),
        ),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{:?}", created.json());
    let game = text(&created.json()["game_id"]);

    // Before the bases are rolled, nothing else goes, and a refusal appends nothing.
    let before = version(&app, &game).await;
    let early = send_orders(
        &app,
        &gm,
        &game,
        "russia",
        &json!([{"type": "place", "territory": "Russia", "units": {"INF": 1}}]),
    )
    .await;
    assert_problem(&early, StatusCode::UNPROCESSABLE_ENTITY, "rule-violation");
    assert_eq!(
        early.json()["violation"],
        "wrong-phase",
        "{:?}",
        early.json()
    );
    assert!(
        early.json()["detail"]
            .as_str()
            .is_some_and(|d| d.contains("a Place order") && d.contains("roll_start_zones")),
        "{:?}",
        early.json()
    );
    assert_eq!(version(&app, &game).await, before);

    order(
        &app,
        &gm,
        &game,
        "japan",
        json!([{"type": "roll_start_zones"}]),
    )
    .await;
    let start = board(&app, &game).await;
    let bases = start["war"]["bases"].as_array().expect("bases").clone();
    assert_eq!(bases.len(), 5, "{start}");
    for base in &bases {
        let zones = base[1].as_array().expect("zones");
        assert_eq!(zones.len(), 3, "{base}");
        for zone in zones {
            assert_eq!(
                holder(&start, &text(zone)),
                base[0].as_str().map(str::to_owned)
            );
        }
    }

    // Each player spends their own money (the game master does the rest): a game its master
    // played alone would not be rated.
    let players = crate::games::seat_tokens(&app, &db, &game).await;
    let mut moves = 0;
    for round in 1..=3 {
        order(
            &app,
            &gm,
            &game,
            "russia",
            json!([{"type": "roll_initiative"}]),
        )
        .await;
        let now = board(&app, &game).await;
        assert_eq!(now["round"], round);
        let order_of_play: Vec<String> = now["war"]["order"]
            .as_array()
            .expect("an order")
            .iter()
            .map(text)
            .collect();
        assert_eq!(order_of_play.len(), 5);
        for active in &order_of_play {
            if round == 1 && active == &order_of_play[0] {
                // Only the player to the right rolls; and never into a player's zone.
                let at = version(&app, &game).await;
                let own = send_orders(
                    &app,
                    &gm,
                    &game,
                    active,
                    &json!([{"type": "roll_reinforcements"}]),
                )
                .await;
                assert_problem(&own, StatusCode::UNPROCESSABLE_ENTITY, "rule-violation");
                assert_eq!(own.json()["violation"], "not-your-turn", "{:?}", own.json());
                assert_eq!(version(&app, &game).await, at, "a refusal appends nothing");
                let reinforcer = text(&now["war"]["reinforcer"]);
                let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
                assert_eq!(view["turn"], active.as_str());
                assert_eq!(view["to_act"], reinforcer.as_str(), "{view}");
                // Orders without a power are the reinforcer's now.
                let rolled = call(
                    &app,
                    post(
                        &format!("/v1/games/{game}/orders"),
                        &gm,
                        &json!({"orders": [{"type": "roll_reinforcements"}]}),
                    ),
                )
                .await;
                assert_eq!(rolled.status, StatusCode::OK, "{:?}", rolled.json());
                let rolled = board(&app, &game).await;
                let (unit, _) = pairs(&rolled["war"]["reinforcements_to_place"])[0].clone();
                let base = text(&bases[0][1][0]);
                let into_base = send_orders(
                    &app,
                    &gm,
                    &game,
                    &reinforcer,
                    &json!([{"type": "place", "territory": base, "units": {unit.clone(): 1}}]),
                )
                .await;
                let violation = into_base.json()["violation"].clone();
                assert!(
                    violation == "player-zone" || violation == "wrong-terrain",
                    "{:?}",
                    into_base.json()
                );
                let placed = version(&app, &game).await;
                let unknown = send_orders(
                    &app,
                    &gm,
                    &game,
                    &reinforcer,
                    &json!([{"type": "place", "territory": "Atlantis", "units": {unit: 1}}]),
                )
                .await;
                assert_eq!(unknown.status, StatusCode::UNPROCESSABLE_ENTITY);
                assert!(unknown.json()["detail"]
                    .as_str()
                    .is_some_and(|d| d.contains("Atlantis")));
                assert_eq!(version(&app, &game).await, placed, "nothing appended");
                // An order of loss naming a unit the ruleset lacks is refused; a good one
                // stands, out of turn.
                let dragon = send_orders(
                    &app,
                    &gm,
                    &game,
                    active,
                    &json!([{"type": "set_order_of_loss", "units": ["INF", "DRAGON"]}]),
                )
                .await;
                assert_eq!(dragon.status, StatusCode::UNPROCESSABLE_ENTITY);
                assert!(dragon.json()["detail"]
                    .as_str()
                    .is_some_and(|d| d.contains("DRAGON")));
                assert_eq!(version(&app, &game).await, placed, "nothing appended");
                order(
                    &app,
                    &gm,
                    &game,
                    active,
                    json!([{"type": "set_order_of_loss", "units": ["INF", "ARM"]}]),
                )
                .await;
                // The roll stands; the reinforcer places it all now.
                let now = board(&app, &game).await;
                let sea_zone = map
                    .0
                    .iter()
                    .find(|(_, sea, _)| *sea)
                    .expect("sea")
                    .0
                    .clone();
                let land = map
                    .0
                    .iter()
                    .find(|(name, sea, _)| !sea && holder(&now, name).is_none())
                    .expect("land")
                    .0
                    .clone();
                let mut orders: Vec<Value> = pairs(&now["war"]["reinforcements_to_place"])
                    .into_iter()
                    .map(|(unit, n)| {
                        let zone = if SHIPS.contains(&unit.as_str()) {
                            &sea_zone
                        } else {
                            &land
                        };
                        json!({"type": "place", "territory": zone, "units": {unit: n}})
                    })
                    .collect();
                orders.push(json!({"type": "end_phase"}));
                order(&app, &gm, &game, &reinforcer, Value::Array(orders)).await;
            } else {
                reinforce(&app, &gm, &game, &map).await;
            }
            spend(&app, &players[active], &game, active).await;
            moves += advance(&app, &gm, &game, active, &map).await;
        }
    }
    assert!(moves > 0, "the players moved");

    let last = board(&app, &game).await;
    let ended = act(&app, &gm, &game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    let placements = call(&app, get(&format!("/v1/games/{game}/placements")))
        .await
        .json();
    let rows = placements["placements"]
        .as_array()
        .unwrap_or_else(|| panic!("{placements}"))
        .clone();
    assert_eq!(rows.len(), 5, "{placements}");
    let zone_points = |power: &Value| {
        last["powers"]
            .as_array()
            .and_then(|p| p.iter().find(|x| x["power"] == *power))
            .and_then(|p| p["ipc_count"].as_u64())
            .expect("zone points")
    };
    for row in &rows {
        assert_eq!(
            row["final_ipc"].as_u64(),
            Some(zone_points(&row["power"])),
            "{row}"
        );
        for other in &rows {
            if row["final_ipc"].as_u64() > other["final_ipc"].as_u64() {
                assert!(
                    row["place"].as_u64() < other["place"].as_u64(),
                    "{placements}"
                );
            }
        }
    }
    // The lowest zone points take the last place: the "Dan Quayle reward".
    let lowest = rows.iter().filter_map(|r| r["final_ipc"].as_u64()).min();
    assert!(rows
        .iter()
        .filter(|r| r["final_ipc"].as_u64() == lowest)
        .all(|r| r["place"].as_u64().unwrap_or(0) + r["tied_with"].as_u64().unwrap_or(1) - 1 == 5));

    let events = export(&app, &game).await;
    let kinds: BTreeSet<&str> = events.iter().map(|e| e.event_type.as_str()).collect();
    for kind in [
        "StartZonesRolled",
        "InitiativeRolled",
        "ReinforcementsRolled",
        "NeutralForcesPlaced",
        "WarUnitsBought",
        "WarMoveResolved",
        "IncomeCollected",
        "GameEnded",
        "SeedRevealed",
    ] {
        assert!(kinds.contains(kind), "{kind} in {kinds:?}");
    }
    let fought = events
        .iter()
        .filter(|e| e.event_type.as_str() == "WarMoveResolved")
        .filter(|e| !e.payload["battle"].is_null())
        .count();
    assert!(fought > 0, "a militia was fought");
    let battles = call(&app, get(&format!("/v1/games/{game}/battles")))
        .await
        .json();
    assert!(
        battles.to_string().contains("soldiers of militia"),
        "{battles}"
    );
    // The archive's page for the game shows its War battles too.
    let page = call(&app, get(&format!("/games/{game}"))).await;
    assert_eq!(page.status, StatusCode::OK);
    let html = String::from_utf8_lossy(&page.body);
    assert!(
        html.contains("war-battle") || html.contains("militia"),
        "{html}"
    );
    warlog::audit::run(&AuditInput::files(&[write_export(&events)]), false)
        .expect("the export passes the audit");
    let report = audit_game(&events, None, None);
    let dice = report
        .checks
        .iter()
        .find(|c| c.name == "dice")
        .expect("dice");
    assert_eq!(dice.verdict, Verdict::Pass, "{}", report.render());

    // One reinforcement die changed, the chain recomputed by a forger: the dice check
    // names the event.
    let rolled_at = events
        .iter()
        .position(|e| e.event_type.as_str() == "ReinforcementsRolled")
        .expect("reinforcements");
    let mut forged = events.clone();
    let die = forged[rolled_at].payload["dice"][0]
        .as_u64()
        .expect("a die");
    forged[rolled_at].payload["dice"][0] = json!(die % 6 + 1);
    relink(&mut forged);
    let report = audit_game(&forged, None, None);
    let forged_at = Some(events[rolled_at].stream_version);
    assert!(
        report
            .failures()
            .any(|c| (c.name, c.event) == ("dice", forged_at)),
        "{}",
        report.render()
    );

    crate::league::project_league(&db).await;
    let ladder = call(&app, get("/v1/leaderboards/points?ruleset=war"))
        .await
        .json();
    assert_eq!(ladder["rows"].as_array().map(Vec::len), Some(5), "{ladder}");
}

#[actix_web::test]
async fn a_house_start_chart_uploaded_as_data_places_every_base_on_its_zones() {
    let db = TestDb::new().await;
    let app = app!(db);
    let director = token(&db, "dora", Role::Director).await;
    let mut document = call(&app, get("/v1/rulesets/war/document")).await.json();
    document["id"] = json!("war-europe");
    // Every total of the house chart lands in Europe or Russia.
    let zones = [
        "Germany",
        "West Europe",
        "South Europe",
        "East Europe",
        "Ukraine S.S.R.",
        "Karelia S.S.R.",
        "Caucasus",
        "Russia",
    ];
    let rows: Vec<Value> = (3..=18u8)
        .map(|total| {
            json!({"from": total, "to": total, "result": zones[usize::from(total) % zones.len()]})
        })
        .collect();
    document["dice_tables"][0]["rows"] = json!(rows);
    let uploaded = call(&app, post("/v1/rulesets", &director, &document)).await;
    assert_eq!(
        uploaded.status,
        StatusCode::CREATED,
        "{:?}",
        uploaded.json()
    );

    // Five players, three bases each, eight zones on the chart: the last player's rolls
    // run out of free zones, and the chart's bound stops the rolling.
    let created = call(
        &app,
        post(
            "/v1/games",
            &director,
            &json!({"ruleset": "war-europe", "players": PLAYERS}),
        ),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{:?}", created.json());
    let game = text(&created.json()["game_id"]);
    order(
        &app,
        &director,
        &game,
        "russia",
        json!([{"type": "roll_start_zones"}]),
    )
    .await;
    let start = board(&app, &game).await;
    let bases: Vec<String> = start["war"]["bases"]
        .as_array()
        .expect("bases")
        .iter()
        .flat_map(|b| b[1].as_array().cloned().unwrap_or_default())
        .map(|z| text(&z))
        .collect();
    assert_eq!(
        bases.len(),
        zones.len(),
        "every zone of the chart, once: {bases:?}"
    );
    assert!(
        bases.iter().all(|b| zones.contains(&b.as_str())),
        "{bases:?}"
    );
    let events = export(&app, &game).await;
    assert!(events[0].payload["ruleset_document"]["dice_tables"].is_array());
    // Still being played: nothing fails, and the dice wait for the reveal.
    let report = offline_audit(&write_export(&events), None);
    assert_eq!(report.outcome, Outcome::Partial, "{}", report.render());
}
