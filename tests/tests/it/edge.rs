//! The HTTP edge as the RFCs have it: unreadable input refused before anything reads it,
//! compression when asked, the 401 challenge, `Link` on every paged list, conditional
//! pages, versioned assets, formula-safe CSV and a valid calendar.

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::json;
use warlog_api::auth::Role;
use warlog_store::projector::Projector;
use warlog_store::StoreMetrics;
use warlog_tests::{eventually, TestDb};

use crate::games::create_game;
use crate::kit::{app, assert_problem, call, get, post, token};
use crate::tournaments::{create_tournament, register};

#[actix_web::test]
async fn a_control_character_in_any_path_or_query_is_a_400_naming_it() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    for uri in [
        "/v1/games?player=%00",
        "/v1/players?after=%00",
        "/v1/tournaments?ruleset=%00",
        "/v1/players/a%00",
        "/v1/games/a%00",
        "/v1/games/a%00/battles",
        "/v1/streams/game-%00/events",
        "/v1/streams?after=x%1B",
        "/v1/events?after=%00",
        "/v1/leaderboards/points?ruleset=%00",
        "/v1/tournaments/%00/standings",
        "/games/%00",
        "/players?q=%07",
        "/v1/players/%FF",
    ] {
        let reply = call(&app, get(uri)).await;
        assert_problem(&reply, StatusCode::BAD_REQUEST, "malformed-request");
        let detail = reply.json()["detail"].as_str().unwrap_or("").to_owned();
        assert!(
            detail.contains("control character") || detail.contains("UTF-8"),
            "{uri}: {detail}"
        );
    }
    // A write too, before its token or its body is looked at.
    let write = call(&app, post("/v1/games/a%00/orders", &gm, &json!({}))).await;
    assert_problem(&write, StatusCode::BAD_REQUEST, "malformed-request");
}

#[actix_web::test]
async fn text_answers_are_gzipped_when_asked_and_only_then() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let game = create_game(&app, &gm).await;
    for uri in [
        "/".to_owned(),
        "/openapi.json".to_owned(),
        format!("/v1/games/{game}/board.svg"),
    ] {
        let zipped = call(&app, get(&uri).insert_header(("Accept-Encoding", "gzip"))).await;
        assert_eq!(zipped.status, StatusCode::OK, "{uri}");
        assert_eq!(zipped.header("content-encoding"), "gzip", "{uri}");
        assert!(
            zipped.body.starts_with(&[0x1f, 0x8b]),
            "{uri}: a gzip stream"
        );
        // Its tag is weak: the bytes are the compressed ones.
        assert!(zipped.header("etag").starts_with("W/\""), "{uri}");
        let plain = call(&app, get(&uri)).await;
        assert_eq!(plain.header("content-encoding"), "", "{uri}");
        assert!(plain.body.len() > zipped.body.len(), "{uri}");
        // Either tag revalidates either form.
        let again = call(
            &app,
            get(&uri).insert_header(("If-None-Match", zipped.header("etag"))),
        )
        .await;
        assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{uri}");
    }
}

#[actix_web::test]
async fn odds_numbers_beyond_what_the_document_allows_are_refused_by_name() {
    let db = TestDb::new().await;
    let app = app!(db);
    for shots in [61u64, 2_147_483_648] {
        let reply = call(
            &app,
            TestRequest::post().uri("/v1/odds").set_json(
                json!({"attacker": "3 inf", "defender": "2 inf", "support_shots": shots}),
            ),
        )
        .await;
        assert_problem(&reply, StatusCode::BAD_REQUEST, "malformed-request");
        let detail = reply.json()["detail"].as_str().unwrap_or("").to_owned();
        assert!(detail.contains("support_shots"), "{shots}: {detail}");
    }
}

#[actix_web::test]
async fn every_401_carries_a_bearer_challenge() {
    let db = TestDb::new().await;
    let app = app!(db);
    let body = json!({"ruleset": "cutthroat", "players": ["a", "b", "c", "d", "e"]});
    let none = call(&app, TestRequest::post().uri("/v1/games").set_json(&body)).await;
    assert_problem(&none, StatusCode::UNAUTHORIZED, "unauthorized");
    assert_eq!(none.header("www-authenticate"), "Bearer realm=\"warlog\"");
    let wrong = call(&app, post("/v1/games", "wl_not-a-token", &body)).await;
    assert_problem(&wrong, StatusCode::UNAUTHORIZED, "unauthorized");
    assert_eq!(
        wrong.header("www-authenticate"),
        "Bearer realm=\"warlog\", error=\"invalid_token\""
    );
    let basic = call(
        &app,
        TestRequest::post()
            .uri("/v1/games")
            .insert_header(("Authorization", "Basic Zm9vOmJhcg=="))
            .set_json(&body),
    )
    .await;
    assert_eq!(
        basic.header("www-authenticate"),
        "Bearer realm=\"warlog\", error=\"invalid_request\""
    );
}

#[actix_web::test]
async fn every_paged_list_names_its_next_page_in_a_link_header() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let director = token(&db, "dora", Role::Director).await;
    register(&app, &director, &["ann".to_owned(), "bob".to_owned()]).await;
    let game = create_game(&app, &gm).await;
    create_game(&app, &gm).await;
    // A second event in the game's stream: the game master ends it.
    let ended = crate::games::act(&app, &gm, &game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    for name in ["One", "Two"] {
        create_tournament(
            &app,
            &director,
            json!({"name": name, "rounds": 1, "deadlines": ["2099-01-01T00:00:00Z"], "short_tables": "byes"}),
        )
        .await;
    }
    let pool = || db.pool.clone();
    let metrics = StoreMetrics::unregistered;
    let games = Projector::new(pool(), warlog_store::games::GameSummaries, metrics());
    let streams = Projector::new(pool(), warlog_store::catalog::StreamCatalog, metrics());
    let tournaments = Projector::new(
        pool(),
        warlog_store::tournaments::TournamentSummaries,
        metrics(),
    );
    let league = Projector::new(pool(), warlog_store::league::League::default(), metrics());
    for uri in [
        "/v1/players?limit=1".to_owned(),
        "/v1/games?limit=1".to_owned(),
        "/v1/tournaments?limit=1".to_owned(),
        "/v1/streams?limit=1".to_owned(),
        "/v1/events?limit=1".to_owned(),
        format!("/v1/streams/game-{game}/events?limit=1"),
    ] {
        // The indexes are read models: they list what their projectors have caught up with.
        let page = eventually(
            &format!("{uri} to have a next page"),
            Duration::from_secs(30),
            || async {
                games.catch_up().await.expect("games projected");
                streams.catch_up().await.expect("streams projected");
                tournaments.catch_up().await.expect("tournaments projected");
                league.catch_up().await.expect("league projected");
                let page = call(&app, get(&uri)).await;
                page.json()["next"].is_string().then_some(page)
            },
        )
        .await;
        let next = page.json()["next"].as_str().unwrap_or("").to_owned();
        assert_eq!(
            page.header("link"),
            format!("<{next}>; rel=\"next\""),
            "{uri}"
        );
    }
}

#[actix_web::test]
async fn pages_and_the_document_answer_304_to_their_tag_and_assets_are_versioned() {
    let db = TestDb::new().await;
    let app = app!(db);
    for uri in ["/", "/games", "/docs", "/openapi.json", "/favicon.ico"] {
        let first = call(&app, get(uri)).await;
        assert_eq!(first.status, StatusCode::OK, "{uri}");
        let tag = first.header("etag");
        assert!(tag.starts_with('"'), "{uri}: {tag}");
        let again = call(
            &app,
            get(uri).insert_header(("If-None-Match", tag.as_str())),
        )
        .await;
        assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{uri}");
        assert!(again.body.is_empty(), "{uri}");
    }
    // The page links its stylesheet by a versioned address, kept for a year.
    let page = String::from_utf8(call(&app, get("/")).await.body.to_vec()).expect("utf-8");
    let href = page
        .split("href=\"")
        .map(|rest| rest.split('"').next().unwrap_or(""))
        .find(|href| href.starts_with("/assets/warlog.css?v="))
        .expect("a versioned stylesheet")
        .to_owned();
    let versioned = call(&app, get(&href)).await;
    assert!(versioned.header("cache-control").contains("immutable"));
    let bare = call(&app, get("/assets/warlog.css")).await;
    assert_eq!(bare.header("cache-control"), "no-cache");
    assert!(page.contains("rel=\"icon\""));
}

#[actix_web::test]
async fn a_csv_cell_starting_with_an_equals_sign_is_neutralised_and_the_file_is_named() {
    let db = TestDb::new().await;
    let app = app!(db);
    let director = token(&db, "dora", Role::Director).await;
    let reply = call(
        &app,
        post(
            "/v1/players",
            &director,
            &json!({"handle": "eve", "display_name": "=HYPERLINK(\"http://x\")"}),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.json());
    let gm = token(&db, "gus", Role::Gm).await;
    crate::league::finished_game(&app, &db, &gm, &["eve", "fay", "gil", "hal", "ivy"]).await;
    crate::league::project_league(&db).await;
    let csv = call(&app, get("/v1/leaderboards/points?format=csv")).await;
    assert_eq!(csv.status, StatusCode::OK);
    assert!(csv.header("content-type").starts_with("text/csv"));
    assert!(
        csv.header("content-disposition")
            .starts_with("attachment; filename=\"ladder-points-"),
        "{}",
        csv.header("content-disposition")
    );
    // A format neither offers is named as such, on the ladders and the standings alike.
    let xml = call(&app, get("/v1/leaderboards/points?format=xml")).await;
    assert_problem(&xml, StatusCode::BAD_REQUEST, "malformed-request");
    assert!(xml.json()["detail"]
        .as_str()
        .unwrap_or("")
        .contains("format"));
    let text = String::from_utf8(csv.body.to_vec()).expect("utf-8");
    assert!(text.contains("\"'=HYPERLINK(\"\"http://x\"\")\""), "{text}");
    assert!(!text.contains(",=HYPERLINK"), "{text}");
}

#[actix_web::test]
async fn a_game_is_named_by_its_ruleset_and_players_and_an_ended_one_says_how_it_ended() {
    let db = TestDb::new().await;
    let app = app!(db);
    let gm = token(&db, "gus", Role::Gm).await;
    let players = ["ann", "bob", "cy", "di", "ed"];
    let game = crate::league::finished_game(&app, &db, &gm, &players).await;
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    let title = view["title"].as_str().expect("a title").to_owned();
    assert!(
        title.contains("Cut-Throat") && title.ends_with(": ann, bob, cy, di, ed"),
        "{title}"
    );
    for player in players {
        assert!(title.contains(player), "{title}");
    }
    let standing = view["standing"].as_str().expect("a standing");
    assert!(standing.starts_with("ended in round "), "{standing}");
    assert!(standing.contains(" first, "), "{standing}");
    assert!(!standing.contains("to play"), "{standing}");
    let page = call(&app, get(&format!("/games/{game}"))).await.text();
    assert!(
        page.contains(&format!("<h1>{title}</h1>")),
        "the heading is the name"
    );
    let lead = page
        .split("<p class=\"lead\">")
        .nth(1)
        .and_then(|rest| rest.split("</p>").next())
        .expect("a lead");
    assert!(lead.starts_with(standing), "{lead}");
    assert!(
        !lead.contains(" to play"),
        "an ended game is nobody's to play: {lead}"
    );
    // The index names it the same way, once the summaries have caught up with it.
    let summaries = Projector::new(
        db.pool.clone(),
        warlog_store::games::GameSummaries,
        StoreMetrics::unregistered(),
    );
    let index = eventually("the game in the index", Duration::from_secs(30), || async {
        summaries.catch_up().await.expect("projected");
        let page = String::from_utf8(call(&app, get("/games")).await.body.to_vec()).ok()?;
        page.contains(&game).then_some(page)
    })
    .await;
    assert!(index.contains(&title), "{index}");
    assert!(
        !index.contains(&format!(">{}<", "cutthroat")),
        "no bare ruleset id as a name"
    );
}

#[actix_web::test]
async fn a_tournament_game_is_named_by_its_tournament_round_and_table() {
    let db = TestDb::new().await;
    let app = app!(db);
    let director = token(&db, "dora", Role::Director).await;
    let players = crate::tournaments::names("p", 5);
    crate::tournaments::register(&app, &director, &players).await;
    let tournament = create_tournament(
        &app,
        &director,
        json!({"name": "Winter Open", "rounds": 1, "deadlines": ["2099-01-01T00:00:00Z"], "short_tables": "byes"}),
    )
    .await;
    crate::tournaments::enter(&app, &director, &tournament, &players).await;
    let round = crate::tournaments::seat(&app, &director, &tournament).await;
    let game = crate::tournaments::game_ids(&round).remove(0);
    let pool = || db.pool.clone();
    let tournaments = Projector::new(
        pool(),
        warlog_store::tournaments::TournamentSummaries,
        StoreMetrics::unregistered(),
    );
    let games = Projector::new(
        pool(),
        warlog_store::games::GameSummaries,
        StoreMetrics::unregistered(),
    );
    // The tournament's name comes from its summary, and the index is a read model too.
    let title = "Winter Open, round 1, table 1";
    let (view, index) = eventually("the summaries", Duration::from_secs(30), || async {
        tournaments.catch_up().await.expect("tournaments projected");
        games.catch_up().await.expect("games projected");
        let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
        let index = call(&app, get(&format!("/v1/games?tournament={tournament}")))
            .await
            .json();
        (view["title"] == title && index["games"][0]["title"] == title).then_some((view, index))
    })
    .await;
    assert_eq!(view["title"], title, "{view}");
    assert_eq!(index["games"][0]["title"], title, "{index}");
    let page = call(&app, get(&format!("/games/{game}"))).await.text();
    assert!(
        page.contains("<h1>Winter Open, round 1, table 1</h1>"),
        "{page}"
    );
}
