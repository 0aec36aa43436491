//! Rulesets as data over HTTP: uploads checked whole, every problem named by its path and
//! nothing written; a game keeps the revision it was created with; the document format's
//! JSON Schema; AAP Historical refused until a board is uploaded; Enhanced Realism as a
//! Cut-Throat option, from creation to placements and an offline audit.

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_api::{AppState, Telemetry};
use warlog_tests::TestDb;

use crate::games::{
    act, app, assert_problem, call, export, get, order, pass_until, post, token, write_export,
    TestApp,
};

const PLAYERS: [&str; 5] = ["ann", "bob", "cy", "di", "ed"];

async fn cut_throat_document<B: actix_web::body::MessageBody>(app: &impl TestApp<B>) -> Value {
    let reply = call(app, get("/v1/rulesets/cutthroat/document")).await;
    assert_eq!(reply.status, StatusCode::OK);
    reply.json()
}

async fn upload<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    document: &Value,
) -> crate::games::Reply {
    call(app, post("/v1/rulesets", token, document)).await
}

async fn new_game<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    gm: &str,
    body: Value,
) -> crate::games::Reply {
    call(app, post("/v1/games", gm, &body)).await
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

    let old = new_game(
        &app,
        &gm,
        json!({"ruleset": "cheap-infantry", "players": PLAYERS}),
    )
    .await;
    assert_eq!(old.status, StatusCode::CREATED, "{:?}", old.json());
    let old = old.json()["game_id"].as_str().expect("id").to_owned();

    document["units"]["INF"]["cost"] = json!(4);
    let second = upload(&app, &director, &document).await;
    assert_eq!(second.status, StatusCode::CREATED, "{:?}", second.json());
    assert_eq!(second.json()["revision"], 2);
    let listed = call(&app, get("/v1/rulesets/cheap-infantry")).await.json();
    assert_eq!(listed["revision"], 2);
    assert_eq!(listed["origin"], "uploaded");
    let new = new_game(
        &app,
        &gm,
        json!({"ruleset": "cheap-infantry", "players": PLAYERS}),
    )
    .await;
    let new = new.json()["game_id"].as_str().expect("id").to_owned();

    // Russia buys 4 infantry in each: 8 IPC in the old game, 16 in the new.
    for (game, cost) in [(&old, 8), (&new, 16)] {
        pass_until(&app, &gm, game, 1, "russia", "Purchase").await;
        let before = call(&app, get(&format!("/v1/games/{game}/board")))
            .await
            .json();
        let treasury = |board: &Value| {
            board["powers"]
                .as_array()
                .and_then(|p| p.iter().find(|x| x["power"] == "russia"))
                .and_then(|p| p["treasury"].as_u64())
                .expect("russia")
        };
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
        assert_eq!(treasury(&before) - treasury(&after), cost, "game {game}");
    }

    // The old game's export carries its document whole: the offline audit replays it.
    let events = export(&app, &old).await;
    assert_eq!(events[0].payload["ruleset_hash"], first_hash.as_str());
    assert_eq!(
        events[0].payload["ruleset_document"]["units"]["INF"]["cost"],
        2
    );
    act(&app, &gm, &old, "end").await;
    let events = export(&app, &old).await;
    warlog::audit::run(&write_export(&events), None, false).expect("the old revision replays");

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
async fn a_game_of_aap_historical_is_refused_until_a_board_is_uploaded() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let listed = call(&app, get("/v1/rulesets")).await.json();
    let aap = listed
        .as_array()
        .and_then(|l| l.iter().find(|r| r["id"] == "aap-historical"))
        .expect("listed")
        .clone();
    assert_eq!(aap["playable"], false);
    assert_eq!(
        aap["powers"],
        json!(["japan", "ccp", "kmt", "united-kingdom", "united-states"])
    );
    let reply = new_game(
        &app,
        &gm,
        json!({"ruleset": "aap-historical", "players": PLAYERS}),
    )
    .await;
    assert_problem(&reply, StatusCode::UNPROCESSABLE_ENTITY, "board-required");
    assert!(reply.json()["detail"]
        .as_str()
        .is_some_and(|d| d.contains("POST /v1/rulesets")));
    let detail = call(&app, get("/v1/rulesets/aap-historical")).await.json();
    assert!(detail["units"]
        .as_array()
        .is_some_and(|u| u.iter().any(|x| x["code"] == "BB3")));
    assert_eq!(detail["territories"], json!([]));

    // The War rules are a document with their dice tables, not yet played by the engine.
    let war = call(&app, get("/v1/rulesets/war/document")).await.json();
    assert_eq!(
        war["dice_tables"].as_array().map(Vec::len),
        Some(5),
        "{war}"
    );
    let reply = new_game(&app, &gm, json!({"ruleset": "war", "players": PLAYERS})).await;
    assert_problem(
        &reply,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ruleset-not-playable",
    );
    assert!(reply.json()["detail"]
        .as_str()
        .is_some_and(|d| d.contains("zone points")));
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

    let created = new_game(
        &app,
        &gm,
        json!({"ruleset": "cutthroat", "players": PLAYERS, "options": {
            "enhanced_realism": {"scenario": "all_tripled"}, "alternate_turn_order": true}}),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{:?}", created.json());
    let game = created.json()["game_id"].as_str().expect("id").to_owned();
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    assert_eq!(
        view["turn"], "united-states",
        "the alternate turn order: {view}"
    );

    // Round 1 passes; Russia's income is its 24 IPC tripled.
    pass_until(&app, &gm, &game, 2, "russia", "Purchase").await;
    let board = call(&app, get(&format!("/v1/games/{game}/board")))
        .await
        .json();
    let russia = board["powers"]
        .as_array()
        .and_then(|p| p.iter().find(|x| x["power"] == "russia"))
        .expect("russia")
        .clone();
    assert_eq!(russia["treasury"], 24 + 3 * 24, "{russia}");

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
        let refused = call(
            &app,
            post(
                &format!("/v1/games/{game}/orders"),
                &gm,
                &json!({"power": "russia", "orders": [
                    {"type": "place", "territory": territory, "units": units}]}),
            ),
        )
        .await;
        assert_problem(&refused, StatusCode::UNPROCESSABLE_ENTITY, "rule-violation");
        let problem = refused.json();
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
    warlog::audit::run(&write_export(&events), None, false).expect("the export passes the audit");
}
