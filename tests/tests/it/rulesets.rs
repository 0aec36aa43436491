//! Rulesets as data over HTTP: uploads checked whole, every problem named by its path and
//! nothing written; a game keeps the revision it was created with; the document format's
//! JSON Schema; a ruleset without a board refused until one is uploaded; AAP Historical
//! played out of the box on the Pacific board; Enhanced Realism as a
//! Cut-Throat option, from creation to placements and an offline audit.

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::{json, Value};
use warlog::audit::AuditInput;
use warlog_api::auth::Role;
use warlog_tests::TestDb;

use crate::games::{
    act, export, order, pass_until, plays_the_first_round, send_orders, write_export,
};
use crate::kit::{app, assert_problem, call, get, post, token, TestApp};

pub(crate) const PLAYERS: [&str; 5] = ["ann", "bob", "cy", "di", "ed"];

async fn cut_throat_document<B: actix_web::body::MessageBody>(app: &impl TestApp<B>) -> Value {
    let reply = call(app, get("/v1/rulesets/cutthroat/document")).await;
    assert_eq!(reply.status, StatusCode::OK);
    reply.json()
}

async fn upload<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    document: &Value,
) -> crate::kit::Reply {
    call(app, post("/v1/rulesets", token, document)).await
}

async fn new_game<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    gm: &str,
    body: Value,
) -> crate::kit::Reply {
    call(app, post("/v1/games", gm, &body)).await
}

/// Orders that must be refused as breaking a rule; the problem.
pub(crate) async fn refused<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    game: &str,
    power: &str,
    orders: Value,
) -> Value {
    let reply = send_orders(app, token, game, power, &orders).await;
    assert_problem(&reply, StatusCode::UNPROCESSABLE_ENTITY, "rule-violation");
    reply.json()
}

/// A new game of `ruleset` for the five players; its id.
pub(crate) async fn created_game<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    gm: &str,
    body: Value,
) -> String {
    let created = new_game(app, gm, body).await;
    assert_eq!(created.status, StatusCode::CREATED, "{:?}", created.json());
    created.json()["game_id"].as_str().expect("id").to_owned()
}

async fn stream_length<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    stream: &str,
) -> usize {
    let reply = call(app, get(&format!("/v1/streams/{stream}/events"))).await;
    reply.json()["events"].as_array().map_or(0, Vec::len)
}

#[actix_web::test]
async fn an_uploaded_ruleset_with_five_mistakes_gets_all_five_reported_with_paths() {
    let db = TestDb::new().await;
    let app = app!(db);
    let director = token(&db, "dora", Role::Director).await;
    let mut document = cut_throat_document(&app).await;
    document["id"] = json!("house");
    document["units"]["INF"]["cost"] = json!("three");
    document["turn_order"][4] = json!("russia");
    document["board"]["connections"][0][1] = json!("Atlantis");
    document["setup"][0]["units"] = json!("3 INF, 1 DRAGON");
    document["victory"] = json!({"rule": "survive_to_round", "power": "japan", "round": 0});

    let reply = upload(&app, &director, &document).await;
    assert_problem(&reply, StatusCode::UNPROCESSABLE_ENTITY, "invalid-ruleset");
    let problem = reply.json();
    let errors = problem["errors"].as_array().expect("errors");
    let paths: Vec<&str> = errors.iter().filter_map(|e| e["path"].as_str()).collect();
    for (path, says) in [
        ("/units/INF/cost", "expected u32"),
        ("/turn_order/4", "already in the turn order"),
        ("/board/connections/0/1", "Atlantis"),
        ("/setup/0/units", "DRAGON"),
        ("/victory/round", "round 1 or later"),
    ] {
        assert!(
            errors
                .iter()
                .any(|e| e["path"] == path
                    && e["message"].as_str().is_some_and(|m| m.contains(says))),
            "{path} ({says}) missing from {paths:?}"
        );
    }
    assert!(problem["detail"]
        .as_str()
        .is_some_and(|d| d.contains("/setup/0/units")));
    assert_eq!(
        stream_length(&app, "ruleset-house").await,
        0,
        "nothing written"
    );

    // Not JSON at all, a built-in's id, and a player's upload: refused, nothing written.
    let not_json = call(
        &app,
        TestRequest::post()
            .uri("/v1/rulesets")
            .insert_header(("Authorization", format!("Bearer {director}")))
            .insert_header(("Content-Type", "application/json"))
            .set_payload("{\"format\": 1,"),
    )
    .await;
    assert_problem(&not_json, StatusCode::BAD_REQUEST, "malformed-request");
    let builtin = upload(&app, &director, &cut_throat_document(&app).await).await;
    assert_problem(
        &builtin,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid-ruleset",
    );
    assert_eq!(builtin.json()["errors"][0]["path"], "/id");
    let player = token(&db, "ann", Role::Player).await;
    let mut good = cut_throat_document(&app).await;
    good["id"] = json!("house");
    assert_problem(
        &upload(&app, &player, &good).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    assert_eq!(stream_length(&app, "ruleset-house").await, 0);
}

#[actix_web::test]
async fn a_game_keeps_the_ruleset_revision_it_was_created_with() {
    let db = TestDb::new().await;
    let app = app!(db);
    let director = token(&db, "dora", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let mut document = cut_throat_document(&app).await;
    document["id"] = json!("cheap-infantry");
    document["name"] = json!("Cut-Throat with 2-IPC infantry");
    document["units"]["INF"]["cost"] = json!(2);
    let first = upload(&app, &director, &document).await;
    assert_eq!(first.status, StatusCode::CREATED, "{:?}", first.json());
    assert_eq!(first.json()["revision"], 1);
    let first_hash = first.json()["hash"].as_str().expect("hash").to_owned();
    // The same document again writes nothing.
    let again = upload(&app, &director, &document).await;
    assert_eq!(
        (again.status, again.json()["revision"].clone()),
        (StatusCode::OK, json!(1))
    );

    let old = created_game(
        &app,
        &gm,
        json!({"ruleset": "cheap-infantry", "players": PLAYERS}),
    )
    .await;

    document["units"]["INF"]["cost"] = json!(4);
    let second = upload(&app, &director, &document).await;
    assert_eq!(second.status, StatusCode::CREATED, "{:?}", second.json());
    assert_eq!(second.json()["revision"], 2);
    let listed = call(&app, get("/v1/rulesets/cheap-infantry")).await.json();
    assert_eq!(listed["revision"], 2);
    assert_eq!(listed["origin"], "uploaded");
    let new = created_game(
        &app,
        &gm,
        json!({"ruleset": "cheap-infantry", "players": PLAYERS}),
    )
    .await;

    // Russia buys 4 infantry in each: 8 IPC in the old game, 16 in the new.
    for (game, cost) in [(&old, 8), (&new, 16)] {
        pass_until(&app, &gm, game, 1, "russia", "Purchase").await;
        let before = call(&app, get(&format!("/v1/games/{game}/board")))
            .await
            .json();
        order(
            &app,
            &gm,
            game,
            "russia",
            json!([{"type": "purchase", "units": {"INF": 4}}]),
        )
        .await;
        let after = call(&app, get(&format!("/v1/games/{game}/board")))
            .await
            .json();
        assert_eq!(
            treasury(&before, "russia") - treasury(&after, "russia"),
            cost,
            "game {game}"
        );
    }

    // The old game's export carries its document whole: the offline audit replays it.
    let events = export(&app, &old).await;
    assert_eq!(events[0].payload["ruleset_hash"], first_hash.as_str());
    assert_eq!(
        events[0].payload["ruleset_document"]["units"]["INF"]["cost"],
        2
    );
    // Russia places what it bought, and the first round is played out: the game counts.
    pass_until(&app, &gm, &old, 1, "russia", "Placement").await;
    order(
        &app,
        &gm,
        &old,
        "russia",
        json!([{"type": "place", "territory": "Russia", "units": {"INF": 4}}]),
    )
    .await;
    plays_the_first_round(&app, &db, &old).await;
    act(&app, &gm, &old, "end").await;
    let events = export(&app, &old).await;
    warlog::audit::run(&AuditInput::files(&[write_export(&events)]), false)
        .expect("the old revision replays");

    // Its points go to the uploaded ruleset's own ladder, not Cut-Throat's.
    crate::league::project_league(&db).await;
    let own = call(&app, get("/v1/leaderboards/points?ruleset=cheap-infantry")).await;
    assert_eq!(own.status, StatusCode::OK, "{:?}", own.json());
    assert_eq!(
        own.json()["rows"].as_array().map(Vec::len),
        Some(5),
        "{:?}",
        own.json()
    );
    let cut_throat = call(&app, get("/v1/leaderboards/points?ruleset=cutthroat")).await;
    assert_eq!(
        cut_throat.json()["rows"],
        json!([]),
        "{:?}",
        cut_throat.json()
    );
    let unknown = call(&app, get("/v1/leaderboards/points?ruleset=no-such-rules")).await;
    assert_problem(&unknown, StatusCode::NOT_FOUND, "ruleset-not-found");
}

#[actix_web::test]
async fn the_document_format_has_a_json_schema_whose_references_all_resolve() {
    let db = TestDb::new().await;
    let app = app!(db);
    for unknown in ["/v1/rulesets/chess", "/v1/rulesets/Not%20An%20Id/document"] {
        let reply = call(&app, get(unknown)).await;
        assert_problem(&reply, StatusCode::NOT_FOUND, "ruleset-not-found");
    }
    let reply = call(&app, get("/v1/rulesets/schema")).await;
    assert_eq!(reply.status, StatusCode::OK);
    let schema = reply.json();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let defs = schema["$defs"].as_object().expect("$defs");
    for name in [
        "UnitDocument",
        "BoardDocument",
        "PlaceDocument",
        "IncomeRule",
        "ScoringRule",
    ] {
        assert!(defs.contains_key(name), "{name} in {:?}", defs.keys());
    }
    let mut refs = Vec::new();
    collect_refs(&schema, &mut refs);
    assert!(!refs.is_empty());
    for target in refs {
        let name = target
            .strip_prefix("#/$defs/")
            .unwrap_or_else(|| panic!("{target}"));
        assert!(defs.contains_key(name), "{target} does not resolve");
    }
    let required: Vec<&str> = schema["required"]
        .as_array()
        .expect("required")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        required.contains(&"turn_order") && required.contains(&"scoring"),
        "{required:?}"
    );
}

fn collect_refs(value: &Value, refs: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, item) in object {
                match (key.as_str(), item) {
                    ("$ref", Value::String(target)) => refs.push(target.clone()),
                    _ => collect_refs(item, refs),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| collect_refs(i, refs)),
        _ => {}
    }
}

#[actix_web::test]
async fn a_ruleset_without_a_board_is_refused_until_a_board_is_uploaded() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let director = token(&db, "dora", Role::Director).await;
    let mut document = call(&app, get("/v1/rulesets/aap-historical/document"))
        .await
        .json();
    document["id"] = json!("aap-own-board");
    document["board"] = Value::Null;
    document["setup"] = json!([]);
    let uploaded = upload(&app, &director, &document).await;
    assert_eq!(
        uploaded.status,
        StatusCode::CREATED,
        "{:?}",
        uploaded.json()
    );
    assert_eq!(uploaded.json()["playable"], false);
    let reply = new_game(
        &app,
        &gm,
        json!({"ruleset": "aap-own-board", "players": PLAYERS}),
    )
    .await;
    assert_problem(&reply, StatusCode::UNPROCESSABLE_ENTITY, "board-required");
    assert!(reply.json()["detail"]
        .as_str()
        .is_some_and(|d| d.contains("POST /v1/rulesets")));

    // The War rules are a document with their dice tables (played in `war.rs`).
    let war = call(&app, get("/v1/rulesets/war/document")).await.json();
    assert_eq!(
        war["dice_tables"].as_array().map(Vec::len),
        Some(5),
        "{war}"
    );
}

#[actix_web::test]
async fn enhanced_realism_refuses_placements_beyond_capacity_and_ends_in_audited_placements() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;

    let unknown = new_game(
        &app,
        &gm,
        json!({"ruleset": "cutthroat", "players": PLAYERS, "options": {"fog_of_war": true}}),
    )
    .await;
    assert_problem(&unknown, StatusCode::BAD_REQUEST, "malformed-request");
    assert!(unknown.json()["detail"]
        .as_str()
        .is_some_and(|d| d.contains("fog_of_war")));
    let scenario = new_game(
        &app,
        &gm,
        json!({"ruleset": "cutthroat", "players": PLAYERS,
               "options": {"enhanced_realism": {"scenario": "galactic"}}}),
    )
    .await;
    assert_problem(&scenario, StatusCode::BAD_REQUEST, "malformed-request");
    assert!(scenario.json()["detail"]
        .as_str()
        .is_some_and(|d| d.contains("galactic")));

    let game = created_game(
        &app,
        &gm,
        json!({"ruleset": "cutthroat", "players": PLAYERS, "options": {
            "enhanced_realism": {"scenario": "all_tripled"}, "alternate_turn_order": true}}),
    )
    .await;
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    assert_eq!(
        view["turn"], "united-states",
        "the alternate turn order: {view}"
    );

    // Round 1 passes; Russia's income is its 24 IPC tripled, collected at the beginning of
    // each of its turns (round 1's too) on top of the setup's 24.
    pass_until(&app, &gm, &game, 2, "russia", "Purchase").await;
    let board = call(&app, get(&format!("/v1/games/{game}/board")))
        .await
        .json();
    assert_eq!(treasury(&board, "russia"), 24 + 2 * 3 * 24);
    let no_complex = refused(
        &app,
        &gm,
        &game,
        "russia",
        json!([{"type": "expand_complex", "territory": "Caucasus"}]),
    )
    .await;
    assert_eq!(no_complex["violation"], "no-factory", "{no_complex}");

    order(
        &app,
        &gm,
        &game,
        "russia",
        json!([{"type": "expand_complex", "territory": "Karelia"},
               {"type": "purchase", "units": {"INF": 9, "FTR": 1, "ART": 1}}]),
    )
    .await;
    pass_until(&app, &gm, &game, 2, "russia", "Placement").await;
    let version = call(&app, get(&format!("/v1/games/{game}"))).await.json()["version"].clone();
    for (territory, units) in [
        ("Russia", json!({"INF": 9})),
        ("Karelia", json!({"FTR": 1})),
    ] {
        let problem = refused(
            &app,
            &gm,
            &game,
            "russia",
            json!([{"type": "place", "territory": territory, "units": units}]),
        )
        .await;
        assert_eq!(problem["violation"], "beyond-capacity", "{problem}");
        assert!(problem["rule"]
            .as_str()
            .is_some_and(|r| r.contains("Enhanced Realism")));
    }
    let unchanged = call(&app, get(&format!("/v1/games/{game}"))).await.json()["version"].clone();
    assert_eq!(unchanged, version, "a refused order appends nothing");
    // Karelia expanded once: 10 of capacity, still short of a fighter; Moscow takes it.
    order(
        &app,
        &gm,
        &game,
        "russia",
        json!([{"type": "place", "territory": "Russia", "units": {"INF": 8, "FTR": 1, "ART": 1}},
               {"type": "place", "territory": "Karelia", "units": {"INF": 1}}]),
    )
    .await;

    crate::games::each_player_gives_an_order(&app, &db, &game).await;
    let ended = act(&app, &gm, &game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    let placements = call(&app, get(&format!("/v1/games/{game}/placements")))
        .await
        .json();
    assert_eq!(
        placements["placements"].as_array().map(Vec::len),
        Some(5),
        "{placements}"
    );
    let events = export(&app, &game).await;
    assert_eq!(
        events[0].payload["options"]["enhanced_realism"]["scenario"],
        "all_tripled"
    );
    assert!(
        events[0].payload.get("ruleset_document").is_none(),
        "a built-in is not copied"
    );
    warlog::audit::run(&AuditInput::files(&[write_export(&events)]), false)
        .expect("the export passes the audit");
}

/// A power's treasury on a board view.
pub(crate) fn treasury(board: &Value, power: &str) -> u64 {
    board["powers"]
        .as_array()
        .and_then(|p| p.iter().find(|x| x["power"] == power))
        .and_then(|p| p["treasury"].as_u64())
        .unwrap_or_else(|| panic!("{power} in {board}"))
}

/// How many `unit` of `power` stand in `place` on a board view.
pub(crate) fn units_in(board: &Value, place: &str, power: &str, unit: &str) -> u64 {
    board["places"]
        .as_array()
        .and_then(|p| p.iter().find(|x| x["name"] == place))
        .and_then(|p| p["units"].as_array())
        .map(|units| {
            units
                .iter()
                .filter(|u| u["power"] == power && u["unit"] == unit)
                .filter_map(|u| u["count"].as_u64())
                .sum()
        })
        .unwrap_or(0)
}

#[actix_web::test]
async fn aap_historical_with_an_uploaded_board_plays_to_placements_by_survival_and_passes_the_audit(
) {
    let db = TestDb::new().await;
    let app = app!(db);
    let director = token(&db, "dora", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;

    // The director uploads the board (and its setup) into AAP Historical's document.
    let fixture: Value =
        serde_json::from_str(include_str!("../../fixtures/aap-test-board.json")).expect("fixture");
    let reply = call(&app, get("/v1/rulesets/aap-historical/document")).await;
    let mut document = reply.json();
    document["id"] = json!("aap-pacific");
    document["board"] = fixture["board"].clone();
    document["setup"] = fixture["setup"].clone();
    // The small board has only some of the Pacific's convoy routes: the upload names each
    // place missing, so the director keeps those it has.
    let on_board = |name: &Value| {
        fixture["board"]["territories"]
            .as_array()
            .expect("territories")
            .iter()
            .any(|t| {
                t["name"] == *name
                    || t["aliases"]
                        .as_array()
                        .is_some_and(|a| a.iter().any(|alias| alias == name))
            })
    };
    let routes: Vec<Value> = document["special_rules"]["convoy_routes"]
        .as_array()
        .expect("routes")
        .iter()
        .filter(|r| on_board(&r["sea_zone"]) && on_board(&r["territory"]))
        .cloned()
        .collect();
    document["special_rules"]["convoy_routes"] = json!(routes);
    // And only some of its bases and kamikaze zones.
    let bases: Vec<Value> = document["special_rules"]["bases"]
        .as_array()
        .expect("bases")
        .iter()
        .filter(|b| on_board(&b["territory"]))
        .cloned()
        .collect();
    document["special_rules"]["bases"] = json!(bases);
    let zones: Vec<Value> = document["special_rules"]["kamikaze_tokens"]["zones"]
        .as_array()
        .expect("kamikaze zones")
        .iter()
        .filter(|z| on_board(z))
        .cloned()
        .collect();
    document["special_rules"]["kamikaze_tokens"]["zones"] = json!(zones);
    let uploaded = upload(&app, &director, &document).await;
    assert_eq!(
        uploaded.status,
        StatusCode::CREATED,
        "{:?}",
        uploaded.json()
    );
    assert_eq!(uploaded.json()["playable"], true, "{:?}", uploaded.json());

    // The players bid the turns Japan needs: bob and ed bid 10, the lowest; the seed picks.
    let bids = json!({"ann": 12, "bob": 10, "cy": 11, "di": 13, "ed": 10});
    for (bad, says) in [
        (json!({"ann": 12}), "bob has no bid"),
        (
            json!({"ann": 12, "bob": 0, "cy": 1, "di": 1, "ed": 1}),
            "1 to 30",
        ),
        (
            json!({"ann": 1, "bob": 1, "cy": 1, "di": 1, "ed": 1, "zed": 1}),
            "zed is not a player",
        ),
    ] {
        let reply = new_game(
            &app,
            &gm,
            json!({"ruleset": "aap-pacific", "players": PLAYERS, "bids": bad}),
        )
        .await;
        assert_problem(&reply, StatusCode::BAD_REQUEST, "malformed-request");
        assert!(
            reply.json()["detail"]
                .as_str()
                .is_some_and(|d| d.contains(says)),
            "{says}"
        );
    }
    let no_survivor = new_game(
        &app,
        &gm,
        json!({"ruleset": "cutthroat", "players": PLAYERS, "bids": bids}),
    )
    .await;
    assert_problem(
        &no_survivor,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid-ruleset",
    );
    let game = created_game(
        &app,
        &gm,
        json!({"ruleset": "aap-pacific", "players": PLAYERS, "bids": bids}),
    )
    .await;
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    let japan = view["seats"]
        .as_array()
        .and_then(|s| s.iter().find(|x| x["power"] == "japan"))
        .expect("japan's seat")
        .clone();
    assert!(
        japan["player"] == "bob" || japan["player"] == "ed",
        "{japan}"
    );
    let board_at = |game: String| {
        let app = &app;
        async move {
            call(app, get(&format!("/v1/games/{game}/board")))
                .await
                .json()
        }
    };
    let board = board_at(game.clone()).await;
    assert_eq!(board["turn"], "japan", "Japan plays first");
    assert_eq!(
        treasury(&board, "united-states"),
        12 + 15,
        "10 for the mainland, 2 for the rest, 15 for the convoy centres"
    );

    // Round 1 passes: Japan's free units arrive at SZ 36; the US mainland is worth 20.
    pass_until(&app, &gm, &game, 2, "japan", "Repairs").await;
    let board = board_at(game.clone()).await;
    for (unit, count) in [("TRN", 2), ("SUB", 1), ("DES", 1), ("FTR", 3)] {
        assert_eq!(
            units_in(&board, "SZ 36", "japan", unit),
            count,
            "{unit} at SZ 36"
        );
    }
    assert_eq!(
        units_in(&board, "SZ 3", "united-states", "AC"),
        1,
        "the US's turn-1 carrier"
    );
    assert_eq!(treasury(&board, "united-states"), 27 + 37);
    // The Chinese raised infantry instead of money: the CCP 2 + 2 areas, the KMT 3 areas
    // + the Burma Road.
    assert_eq!(units_in(&board, "Shansi", "ccp", "INF"), 4 + 4);
    assert_eq!(units_in(&board, "Szechwan", "kmt", "INF"), 3 + 4);
    assert_eq!((treasury(&board, "ccp"), treasury(&board, "kmt")), (0, 0));

    // Japan marches into Shansi; the CCP's guerrillas refuse the battle and stay, and
    // Japan holds the province.
    pass_until(&app, &gm, &game, 2, "japan", "CombatMove").await;
    order(
        &app,
        &gm,
        &game,
        "japan",
        json!([{"type": "move", "units": {"INF": 6}, "path": ["Manchuria", "Shansi"]}]),
    )
    .await;
    order(
        &app,
        &gm,
        &game,
        "ccp",
        json!([{"type": "avoid_combat", "territory": "Shansi"}]),
    )
    .await;
    let board = board_at(game.clone()).await;
    let shansi = board["places"]
        .as_array()
        .and_then(|p| p.iter().find(|x| x["name"] == "Shansi"))
        .expect("Shansi")
        .clone();
    assert_eq!(
        (shansi["holder"].clone(), shansi["contested"].clone()),
        (json!("japan"), json!(false))
    );
    assert_eq!(units_in(&board, "Shansi", "ccp", "INF"), 8, "still there");

    // The US builds no complexes; Hawaii's limited complex places two units a turn.
    pass_until(&app, &gm, &game, 2, "united-states", "Purchase").await;
    let complex = refused(
        &app,
        &gm,
        &game,
        "united-states",
        json!([{"type": "purchase", "units": {"INF": 3, "IC": 1}}]),
    )
    .await;
    assert_eq!(complex["violation"], "no-new-complexes");
    order(
        &app,
        &gm,
        &game,
        "united-states",
        json!([{"type": "purchase", "units": {"INF": 3}}]),
    )
    .await;
    pass_until(&app, &gm, &game, 2, "united-states", "Placement").await;
    let version = call(&app, get(&format!("/v1/games/{game}"))).await.json()["version"].clone();
    for (territory, units, violation) in [
        ("Hawaiian Isl", json!({"INF": 3}), "production-limit"),
        ("Philippines", json!({"INF": 1}), "no-factory"),
    ] {
        let problem = refused(
            &app,
            &gm,
            &game,
            "united-states",
            json!([{"type": "place", "territory": territory, "units": units}]),
        )
        .await;
        assert_eq!(problem["violation"], violation, "{problem}");
    }
    let unchanged = call(&app, get(&format!("/v1/games/{game}"))).await.json()["version"].clone();
    assert_eq!(unchanged, version);
    order(
        &app,
        &gm,
        &game,
        "united-states",
        json!([{"type": "place", "territory": "Hawaiian Isl", "units": {"INF": 2}},
               {"type": "place", "territory": "United States", "units": {"INF": 1}},
               {"type": "end_phase"}, {"type": "end_phase"}]),
    )
    .await;
    let board = board_at(game.clone()).await;
    assert_eq!(
        treasury(&board, "united-states"),
        27 + 37 - 9 + 47,
        "3 INF bought, then 47 of income"
    );

    // Ended in round 3, before Japan has lasted through round 12: the Allies win, sharing
    // the first four places.
    crate::games::each_player_gives_an_order(&app, &db, &game).await;
    let ended = act(&app, &gm, &game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    let placements = call(&app, get(&format!("/v1/games/{game}/placements")))
        .await
        .json();
    let rows = placements["placements"].as_array().expect("rows");
    let japan = rows.iter().find(|r| r["power"] == "japan").expect("japan");
    assert_eq!(japan["place"], 5, "{placements}");
    assert!(
        rows.iter()
            .filter(|r| r["power"] != "japan")
            .all(|r| r["place"] == 1 && r["points_exact"] == "9/4"),
        "{placements}"
    );
    let events = export(&app, &game).await;
    assert!(events[0].payload["ruleset_document"]["board"].is_object());
    assert_eq!(events[0].payload["options"]["survive_to_round"], 10);
    assert_eq!(
        events[0].payload["ruleset_document"]["victory"]["round"],
        10
    );
    warlog::audit::run(&AuditInput::files(&[write_export(&events)]), false)
        .expect("the export passes the audit");

    crate::league::project_league(&db).await;
    let ladder = call(&app, get("/v1/leaderboards/points?ruleset=aap-pacific"))
        .await
        .json();
    assert_eq!(ladder["rows"].as_array().map(Vec::len), Some(5), "{ladder}");
}

#[actix_web::test]
async fn aap_historical_plays_out_of_the_box_from_creation_to_japans_survival_and_passes_the_audit()
{
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let listed = call(&app, get("/v1/rulesets")).await.json();
    let aap = listed
        .as_array()
        .and_then(|l| l.iter().find(|r| r["id"] == "aap-historical"))
        .expect("listed")
        .clone();
    assert_eq!(aap["playable"], true, "{aap}");
    assert_eq!(
        aap["powers"],
        json!(["japan", "ccp", "kmt", "united-kingdom", "united-states"])
    );
    let game = created_game(
        &app,
        &gm,
        json!({"ruleset": "aap-historical", "players": PLAYERS}),
    )
    .await;
    let board_url = format!("/v1/games/{game}/board");
    let board = call(&app, get(&board_url)).await.json();
    // 2: "At start: Japan: 24, India: 15, Aus.: 20, USA: 30"; the UK's convoy centres
    // pay from its first collection.
    for (power, money) in [
        ("japan", 24),
        ("united-kingdom", 35),
        ("united-states", 30),
        ("ccp", 0),
        ("kmt", 0),
    ] {
        assert_eq!(treasury(&board, power), money, "{power}");
    }
    assert_eq!(units_in(&board, "36 Sea Zone", "japan", "BB"), 6);
    assert_eq!(units_in(&board, "Shansi", "ccp", "INF"), 4);
    assert_eq!(units_in(&board, "Shansi", "kmt", "INF"), 2);
    // 1i: "Japan has 12 kamikazes", shown beside its treasury; no other power has any.
    let tokens: Vec<(String, Value)> = board["powers"]
        .as_array()
        .expect("powers")
        .iter()
        .map(|p| (p["power"].to_string(), p["kamikaze_tokens"].clone()))
        .filter(|(_, tokens)| !tokens.is_null())
        .collect();
    assert_eq!(tokens, [("\"japan\"".to_owned(), json!(12))]);

    // Round 1: Japan buys three infantry, and its army in French Indo-China attacks the
    // KMT in Kwangsi; SZ 20's battleships stay put all round (1h, 2.4).
    pass_until(&app, &gm, &game, 1, "japan", "Purchase").await;
    order(
        &app,
        &gm,
        &game,
        "japan",
        json!([
            {"type": "purchase", "units": {"INF": 3}},
            {"type": "end_phase"},
            {"type": "move", "units": {"INF": 2, "ART": 2, "ARM": 1},
             "path": ["French Indo-China", "Kwangsi"]},
            {"type": "end_phase"},
            {"type": "fight_battle", "territory": "Kwangsi"},
            {"type": "end_phase"},
        ]),
    )
    .await;
    let held = refused(
        &app,
        &gm,
        &game,
        "japan",
        json!([{"type": "move", "units": {"BB": 1}, "path": ["SZ 20", "SZ 21"]}]),
    )
    .await;
    assert!(
        held["detail"]
            .as_str()
            .is_some_and(|d| d.contains("SZ 20") || d.contains("20 Sea Zone")),
        "{held}"
    );
    pass_until(&app, &gm, &game, 1, "japan", "Placement").await;
    order(
        &app,
        &gm,
        &game,
        "japan",
        json!([{"type": "place", "territory": "Japan", "units": {"INF": 3}}]),
    )
    .await;
    let board = call(&app, get(&board_url)).await.json();
    assert_eq!(units_in(&board, "Japan", "japan", "INF"), 8 + 3 + 3);

    // The KMT raises 5 in Szechwan at the start of its turn (the US's 40 comes at the end
    // of its first).
    pass_until(&app, &gm, &game, 1, "kmt", "WeaponsDevelopment").await;
    let board = call(&app, get(&board_url)).await.json();
    assert_eq!(units_in(&board, "Szechwan", "kmt", "INF"), 3 + 2 + 5);
    pass_until(&app, &gm, &game, 2, "japan", "Repairs").await;
    let board = call(&app, get(&board_url)).await.json();
    assert_eq!(treasury(&board, "united-states"), 30 + 40);

    // Japan holds out to turn 12 (9: "Japan must win by surviving until turn 12"): the
    // director's end then gives Japan the first place alone.
    for round in 3..=12 {
        pass_until(&app, &gm, &game, round, "japan", "Repairs").await;
    }
    crate::games::each_player_gives_an_order(&app, &db, &game).await;
    let ended = act(&app, &gm, &game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    let placements = call(&app, get(&format!("/v1/games/{game}/placements")))
        .await
        .json();
    let rows = placements["placements"].as_array().expect("rows");
    for row in rows {
        let place = if row["power"] == "japan" { 1 } else { 2 };
        assert_eq!(row["place"], place, "{placements}");
    }
    let events = export(&app, &game).await;
    assert!(
        events[0].payload.get("ruleset_document").is_none(),
        "a built-in is not copied"
    );
    warlog::audit::run(&AuditInput::files(&[write_export(&events)]), false)
        .expect("the export passes the audit");
}
