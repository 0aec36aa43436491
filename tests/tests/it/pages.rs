//! The public pages in a real browser: headless Chromium loads each page from a running
//! server, the rendered DOM is checked for the key content, and a screenshot of each is kept
//! under `target/screenshots/`.
//!
//! Without a Chromium on the machine the test says so and passes, unless
//! `WARLOG_REQUIRE_CHROMIUM=1` (CI sets it, and installs Debian's `chromium`).

use std::path::{Path, PathBuf};

use actix_web::http::StatusCode;
use actix_web::HttpServer;
use serde_json::json;
use warlog_api::auth::Role;
use warlog_api::{AppState, Clock, Telemetry};
use warlog_tests::TestDb;

use crate::kit::{assert_problem, call, get, token};
use crate::league::project_league;
use crate::tournaments::{
    create_tournament, deadlines, enter, game_ids, germany_takes_moscow, names, register, seat,
    START,
};

/// The app on a real socket (for clients outside the process), and how to stop it.
pub(crate) fn listen(
    state: AppState,
    telemetry: &Telemetry,
) -> (std::net::SocketAddr, actix_web::dev::ServerHandle) {
    let telemetry = telemetry.clone();
    let server = HttpServer::new(move || warlog_api::app(state.clone(), &telemetry))
        .disable_signals()
        .workers(1)
        .bind("127.0.0.1:0")
        .expect("a port");
    let addr = *server.addrs().first().expect("an address");
    let running = server.run();
    let handle = running.handle();
    actix_web::rt::spawn(running);
    (addr, handle)
}

pub(crate) fn chromium() -> Option<PathBuf> {
    let candidates = ["chromium", "chromium-browser", "google-chrome", "chrome"];
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in candidates {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("target")
        .join("screenshots");
    std::fs::create_dir_all(&dir).expect("a screenshot folder");
    dir
}

pub(crate) async fn run_chromium(browser: &Path, args: &[String]) -> String {
    let profile = tempdir();
    let output = tokio::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--no-first-run",
            "--virtual-time-budget=3000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .await
        .expect("chromium runs");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        output.status.success(),
        "chromium {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub(crate) fn tempdir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warlog-chromium-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("a profile folder");
    dir
}

/// Renders `url`, keeps a screenshot named `name`, and returns the DOM Chromium built.
async fn render(browser: &Path, url: &str, name: &str) -> String {
    render_at(browser, url, name, 1280).await
}

/// [`render`] in a window `width` pixels wide (390: a phone).
async fn render_at(browser: &Path, url: &str, name: &str, width: u32) -> String {
    let shot = screenshots().join(format!("{name}.png"));
    let _ = std::fs::remove_file(&shot);
    run_chromium(
        browser,
        &[
            format!("--screenshot={}", shot.display()),
            format!("--window-size={width},1600"),
            url.to_owned(),
        ],
    )
    .await;
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 5_000,
        "{name}: a real picture"
    );
    run_chromium(browser, &["--dump-dom".to_owned(), url.to_owned()]).await
}

#[actix_web::test]
async fn every_public_page_renders_in_headless_chromium_with_its_key_content() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var("WARLOG_REQUIRE_CHROMIUM").as_deref() != Ok("1"),
            "WARLOG_REQUIRE_CHROMIUM=1 but no chromium on PATH (apt-get install chromium)"
        );
        eprintln!("no chromium on PATH: the page test is skipped (apt-get install chromium)");
        return;
    };
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let mut state = AppState::without_notifier(db.pool.clone(), &telemetry);
    state.clock =
        Clock::fixed(time::OffsetDateTime::from_unix_timestamp(START).expect("a start time"));
    let app = actix_web::test::init_service(warlog_api::app(state.clone(), &telemetry)).await;

    // A finished game on the ladders, and a tournament with a round seated.
    let director = token(&db, "dora", Role::Director).await;
    let players = names("p", 5);
    register(&app, &director, &players).await;
    let tournament = create_tournament(
        &app,
        &director,
        json!({"name": "Winter <Open>", "rounds": 2, "deadlines": deadlines(2), "short_tables": "byes"}),
    )
    .await;
    enter(&app, &director, &tournament, &players).await;
    let round = seat(&app, &director, &tournament).await;
    let game = game_ids(&round).remove(0);
    germany_takes_moscow(&app, &director, &game).await;
    project_league(&db).await;
    let german = round["tables"][0]["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .find(|s| s["power"] == "germany")
        .and_then(|s| s["player"].as_str())
        .expect("Germany's player")
        .to_owned();
    let ladder = call(&app, get("/v1/leaderboards/points")).await.json();
    assert_eq!(ladder["rows"][0]["player"], json!(german));

    let (addr, handle) = listen(state, &telemetry);
    let base = format!("http://{addr}");

    let home = render(&browser, &format!("{base}/"), "leaderboard").await;
    assert!(home.contains("Cut-Throat points"), "{home}");
    assert!(home.contains(&format!("/players/{german}")), "{home}");
    assert!(
        home.contains("Sergeant of Rebel Forces"),
        "5 points: {home}"
    );

    let embed = render(
        &browser,
        &format!("{base}/embed/leaderboard"),
        "leaderboard-embed",
    )
    .await;
    assert!(embed.contains("<base target=\"_top\">"), "{embed}");
    assert!(!embed.contains("<nav>"), "no site navigation in an iframe");
    assert!(embed.contains(&german));

    let player = render(&browser, &format!("{base}/players/{german}"), "player").await;
    assert!(
        player.contains(&german.to_uppercase()),
        "display name: {player}"
    );
    assert!(player.contains("Sergeant of Rebel Forces"), "{player}");
    assert!(player.contains(&format!("/games/{game}")), "{player}");

    let event = render(
        &browser,
        &format!("{base}/tournaments/{tournament}"),
        "tournament",
    )
    .await;
    assert!(event.contains("Winter &lt;Open&gt;"), "escaped: {event}");
    assert!(event.contains("Round 1"), "{event}");
    assert!(event.contains("Table 1"), "{event}");
    assert!(event.contains("Ties broken by total points"), "{event}");
    for player in &players {
        assert!(event.contains(player.as_str()), "{player} in {event}");
    }
    assert!(
        event.contains("How tables are chosen"),
        "the seating's rules: {event}"
    );

    let desk = render(
        &browser,
        &format!("{base}/tournaments/{tournament}/director"),
        "director",
    )
    .await;
    assert!(desk.contains("the director's desk"), "{desk}");
    assert!(desk.contains("Turns waiting"), "{desk}");
    assert!(desk.contains("Substitutions"), "{desk}");
    assert!(desk.contains("Round 1: "), "deadlines: {desk}");
    assert!(desk.contains("seated"), "{desk}");
    assert!(desk.contains("Round 2: "), "{desk}");
    assert!(desk.contains("not seated yet"), "{desk}");

    let board = render(&browser, &format!("{base}/games/{game}"), "game").await;
    // A tournament's game: its seats are the tournament's draw, checked by the tournament's
    // audit, so this page's audit is partial and says so.
    assert!(board.contains("Audit: partial"), "{board}");
    assert!(board.contains("Not checked"), "{board}");
    assert!(board.contains("Placements"), "{board}");
    assert!(board.contains("Karelia"), "the board by territory: {board}");
    assert!(board.contains("Battles"), "{board}");
    assert!(board.contains("Attacker wins"), "the battle log: {board}");
    // Plain words, not the engine's names.
    for name in ["AttackerWins", "NonCombatMove", "CombatMove"] {
        assert!(!board.contains(name), "{name} on the page: {board}");
    }

    // The indexes, each linked from every page's navigation, read their read models.
    let summaries = (
        warlog_store::projector::Projector::new(
            db.pool.clone(),
            warlog_store::games::GameSummaries,
            warlog_store::StoreMetrics::unregistered(),
        ),
        warlog_store::projector::Projector::new(
            db.pool.clone(),
            warlog_store::tournaments::TournamentSummaries,
            warlog_store::StoreMetrics::unregistered(),
        ),
    );
    warlog_tests::eventually(
        "the indexes to list the game and the tournament",
        std::time::Duration::from_secs(30),
        || async {
            summaries.0.catch_up().await.expect("games projected");
            summaries.1.catch_up().await.expect("tournaments projected");
            let games = call(&app, get("/v1/games")).await.json();
            let tournaments = call(&app, get("/v1/tournaments")).await.json();
            (games["games"].as_array().is_some_and(|g| !g.is_empty())
                && tournaments["tournaments"][0]["state"] == "running")
                .then_some(())
        },
    )
    .await;
    for (path, name) in [
        ("/games", "games"),
        ("/tournaments", "tournaments"),
        ("/players?q=p0", "players"),
    ] {
        let index = render(&browser, &format!("{base}{path}"), name).await;
        for link in [
            "href=\"/games\"",
            "href=\"/tournaments\"",
            "href=\"/players\"",
        ] {
            assert!(index.contains(link), "{path}: the nav links {link}");
        }
        match name {
            "games" => assert!(index.contains(&format!("/games/{game}")), "{index}"),
            "tournaments" => {
                assert!(index.contains("Winter &lt;Open&gt;"), "{index}");
                assert!(index.contains("running"), "{index}");
            }
            _ => {
                for player in &players {
                    assert!(index.contains(&format!("/players/{player}")), "{index}");
                }
            }
        }
    }
    // The player's page reads in decimals and plain words, and its game links say what
    // each game was rather than a shared id prefix.
    assert!(player.contains("Played"), "{player}");
    assert!(player.contains("cutthroat as "), "{player}");
    assert!(!player.contains(&format!(">{}<", &game[..8])), "{player}");

    // The map at three versions of the game: a shape for every territory and sea zone of the
    // board, in the holder's colour of the board view at that version, with its units; at a desktop's width and a
    // phone's.
    let latest = call(&app, get(&format!("/v1/games/{game}"))).await.json()["version"]
        .as_u64()
        .expect("a version");
    let territories: Vec<String> = call(&app, get("/v1/rulesets/cutthroat")).await.json()
        ["territories"]
        .as_array()
        .expect("territories")
        .iter()
        .map(|t| t["name"].as_str().expect("a name").to_owned())
        .collect();
    assert_eq!(territories.len(), 128, "the Classic board");
    for version in [1, latest / 2, latest] {
        let board = call(
            &app,
            get(&format!("/v1/games/{game}/board?version={version}")),
        )
        .await
        .json();
        let url = format!("{base}/games/{game}?version={version}");
        let page = render(&browser, &url, &format!("map-v{version}")).await;
        render_at(&browser, &url, &format!("map-v{version}-phone"), 390).await;
        let shapes = map_shapes(&page);
        let places = board["places"].as_array().expect("places");
        // Every territory and sea zone of the board has its shape, held or empty.
        assert_eq!(
            shapes.len(),
            territories.len(),
            "one shape per place at {version}"
        );
        for territory in &territories {
            assert!(
                shapes.iter().any(|s| &s.name == territory),
                "{territory} at {version}"
            );
        }
        for shape in shapes
            .iter()
            .filter(|s| !places.iter().any(|p| p["name"] == s.name.as_str()))
        {
            assert_eq!(
                (shape.holder.as_str(), shape.units),
                ("", 0),
                "{} is empty",
                shape.name
            );
        }
        for place in places {
            let name = place["name"].as_str().expect("a name");
            let shape = shapes
                .iter()
                .find(|s| s.name == name)
                .unwrap_or_else(|| panic!("{name} is on the map at {version}"));
            let holder = place["holder"].as_str().unwrap_or("");
            assert_eq!(shape.holder, holder, "{name} at {version}");
            let units: u64 = place["units"]
                .as_array()
                .expect("units")
                .iter()
                .map(|u| u["count"].as_u64().expect("a count"))
                .sum();
            assert_eq!(shape.units, units, "{name}'s units at {version}");
            if !place["sea"].as_bool().unwrap_or(false) {
                let power = (!holder.is_empty()).then(|| {
                    serde_json::from_value::<warlog_rules::board::Power>(json!(holder))
                        .expect("a power")
                });
                assert_eq!(
                    shape.fill,
                    warlog_api::map::colour(power),
                    "{name}'s colour"
                );
            }
        }
        assert!(
            page.contains("aria-labelledby=\"map-title map-desc\""),
            "a text alternative"
        );
    }
    // A battle's listing links to the map at its version with its place ringed.
    let battles = call(&app, get(&format!("/v1/games/{game}/battles")))
        .await
        .json();
    if let Some(battle) = battles["battles"].as_array().and_then(|b| b.first()) {
        let version = battle["version"].as_u64().expect("a version");
        assert!(
            board.contains(&format!("/games/{game}?version={version}&amp;highlight=")),
            "{board}"
        );
        let ringed = render(
            &browser,
            &format!("{base}/games/{game}?version={version}&highlight=Karelia%20S.S.R."),
            "map-battle",
        )
        .await;
        assert!(
            ringed.contains("place land highlighted\" data-name=\"Karelia S.S.R.\""),
            "ringed"
        );
    }
    let svg = call(&app, get(&format!("/v1/games/{game}/board.svg?version=1"))).await;
    // A version the game has not reached is a problem, not a picture.
    for version in ["0", "99999", "many"] {
        let refused = call(
            &app,
            get(&format!("/v1/games/{game}/board.svg?version={version}")),
        )
        .await;
        assert_problem(&refused, StatusCode::BAD_REQUEST, "malformed-request");
    }
    assert_eq!(svg.status, StatusCode::OK);
    assert!(svg.header("content-type").starts_with("image/svg+xml"));

    // Charts: a player's points, rating and places; a tournament's standings by round.
    let charts = render_at(
        &browser,
        &format!("{base}/players/{german}"),
        "player-phone",
        390,
    )
    .await;
    assert_eq!(
        charts.matches("class=\"chart line\"").count(),
        2,
        "{charts}"
    );
    assert_eq!(
        charts.matches("class=\"chart bars\"").count(),
        1,
        "{charts}"
    );
    assert!(charts.contains("Points after each game"), "{charts}");
    let standings = render_at(
        &browser,
        &format!("{base}/tournaments/{tournament}"),
        "tournament-phone",
        390,
    )
    .await;
    assert!(standings.contains("Points by round"), "{standings}");
    for player in &players {
        assert!(
            standings.contains(&format!("data-label=\"{player}\"")),
            "{player}'s line"
        );
    }

    // The odds page: the form, and the same odds as the API's.
    let api_odds = call(
        &app,
        actix_web::test::TestRequest::post()
            .uri("/v1/odds")
            .set_json(json!({"attacker": "3 inf, 1 arm", "defender": "2 inf"})),
    )
    .await
    .json();
    for (width, name) in [(1280, "odds"), (390, "odds-phone")] {
        let odds = render_at(
            &browser,
            &format!("{base}/odds?attacker=3+inf%2C+1+arm&defender=2+inf&ruleset=cutthroat&order="),
            name,
            width,
        )
        .await;
        let win = format!(
            "{:.2}%",
            api_odds["attacker_win"].as_f64().expect("odds") * 100.0
        );
        assert!(odds.contains(&win), "{win} on the page: {odds}");
        assert!(odds.contains("Expected losses"), "{odds}");
        assert!(odds.contains("class=\"chart bars\""), "{odds}");
    }
    let empty_form = render(&browser, &format!("{base}/odds"), "odds-form").await;
    assert!(empty_form.contains("Compute the odds") && !empty_form.contains("Expected losses"));

    // The API reference renders with every other host unreachable: nothing it needs comes
    // from elsewhere.
    let offline = [
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1".to_owned(),
        "--virtual-time-budget=10000".to_owned(),
    ];
    let shot = screenshots().join("docs.png");
    let _ = std::fs::remove_file(&shot);
    let docs_url = format!("{base}/docs");
    let mut args = offline.to_vec();
    args.extend([
        format!("--screenshot={}", shot.display()),
        "--window-size=1280,1600".to_owned(),
        docs_url.clone(),
    ]);
    run_chromium(&browser, &args).await;
    assert!(std::fs::read(&shot).expect("a screenshot").len() > 5_000);
    let mut args = offline.to_vec();
    args.extend(["--dump-dom".to_owned(), docs_url]);
    let docs = run_chromium(&browser, &args).await;
    // Redoc built the reference in the page: operations with their paths and the tags.
    for rendered in [
        "A ladder, one page at a time.",
        "/v1/leaderboards/{ladder}",
        "webhooks",
    ] {
        assert!(
            docs.contains(rendered),
            "{rendered} in the reference: {}",
            &docs[..docs.len().min(2000)]
        );
    }

    // A missing page is a page too, with the API's words.
    for (path, status, words) in [
        ("/players/nobody", StatusCode::NOT_FOUND, "nobody"),
        ("/?ladder=elo", StatusCode::NOT_FOUND, "the ladders are"),
        ("/?limit=0", StatusCode::BAD_REQUEST, "limit"),
        ("/?limit=many", StatusCode::BAD_REQUEST, "limit"),
        (
            "/embed/leaderboard?colour=red",
            StatusCode::BAD_REQUEST,
            "colour",
        ),
        (
            "/tournaments/0190a0a0a0a0a0a0",
            StatusCode::NOT_FOUND,
            "no tournament",
        ),
        ("/games/0190a0a0a0a0a0a0", StatusCode::NOT_FOUND, "no game"),
        (
            &format!("/games/{game}?version=0"),
            StatusCode::BAD_REQUEST,
            "version",
        ),
        (
            &format!("/games/{game}?version=99999"),
            StatusCode::BAD_REQUEST,
            "version",
        ),
        (
            &format!("/games/{game}?turn=2"),
            StatusCode::BAD_REQUEST,
            "turn",
        ),
        (
            "/tournaments?state=paused",
            StatusCode::BAD_REQUEST,
            "state",
        ),
        ("/players?q=&limit=0", StatusCode::BAD_REQUEST, "limit"),
        (
            "/odds?attacker=3+zzz&defender=1+inf",
            StatusCode::UNPROCESSABLE_ENTITY,
            "zzz",
        ),
        ("/odds?colour=red", StatusCode::BAD_REQUEST, "colour"),
    ] {
        let reply = call(&app, get(path)).await;
        assert_eq!(reply.status, status, "{path}");
        let content_type = reply.headers.get("content-type").expect("a type");
        assert!(
            content_type.to_str().unwrap().starts_with("text/html"),
            "{path}: {content_type:?}"
        );
        let page = std::str::from_utf8(&reply.body).expect("utf-8");
        assert!(page.contains(words), "{path}: {page}");
    }

    handle.stop(true).await;
}

/// One place's shape on a rendered map.
#[derive(Debug)]
struct MapShape {
    name: String,
    holder: String,
    units: u64,
    fill: String,
}

/// The places of the map in a page's DOM, read from their `data-` attributes and shapes.
fn map_shapes(dom: &str) -> Vec<MapShape> {
    let attribute = |tag: &str, name: &str| -> String {
        let key = format!("{name}=\"");
        tag.find(&key)
            .map(|at| {
                let rest = &tag[at + key.len()..];
                rest[..rest.find('"').unwrap_or(0)].to_owned()
            })
            .unwrap_or_default()
    };
    dom.split("<g class=\"place ")
        .skip(1)
        .map(|part| {
            let tag = &part[..part.find('>').unwrap_or(part.len())];
            let shape = part
                .find("class=\"shape\"")
                .map(|at| &part[at..at + part[at..].find('>').unwrap_or(0)])
                .unwrap_or("");
            MapShape {
                name: attribute(tag, "data-name").replace("&amp;", "&"),
                holder: attribute(tag, "data-holder"),
                units: attribute(tag, "data-unit-count").parse().unwrap_or(0),
                fill: attribute(shape, "fill"),
            }
        })
        .collect()
}

/// The page's own value of a form field (`name="version" value="12"`).
fn field_value(dom: &str, name: &str) -> String {
    let at = dom
        .find(&format!("name=\"{name}\""))
        .unwrap_or_else(|| panic!("a {name} field in the page"));
    let tail = &dom[at..];
    let start = tail.find("value=\"").expect("a value") + 7;
    let end = tail[start..].find('"').expect("a closing quote");
    tail[start..start + end].to_owned()
}

/// Presses a button of the turn page's form in Chromium: a local page holds the same form
/// (its action and fields as the turn page wrote them, filled in as a player would) and
/// presses `action`; the DOM of the page the server answers with.
async fn press(
    browser: &Path,
    page: &str,
    action_url: &str,
    fields: &[(&str, &str)],
    action: &str,
) -> String {
    let inputs: String = fields
        .iter()
        .map(|(name, value)| {
            let value = value
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('"', "&quot;");
            format!("<textarea name=\"{name}\">{value}</textarea>")
        })
        .collect();
    let html = format!(
        "<!doctype html><form method=\"post\" action=\"{action_url}\">{inputs}\
         <button id=\"press\" name=\"action\" value=\"{action}\">go</button></form>\
         <script>document.getElementById('press').click()</script>"
    );
    let file = tempdir().join(format!("{page}.html"));
    std::fs::write(&file, html).expect("the form page");
    run_chromium(
        browser,
        &[
            "--dump-dom".to_owned(),
            format!("file://{}", file.display()),
        ],
    )
    .await
}

#[actix_web::test]
async fn the_turn_page_previews_and_submits_a_real_turn_in_headless_chromium() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var("WARLOG_REQUIRE_CHROMIUM").as_deref() != Ok("1"),
            "WARLOG_REQUIRE_CHROMIUM=1 but no chromium on PATH (apt-get install chromium)"
        );
        eprintln!("no chromium on PATH: the turn page test is skipped (apt-get install chromium)");
        return;
    };
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let state = AppState::without_notifier(db.pool.clone(), &telemetry);
    let app = actix_web::test::init_service(warlog_api::app(state.clone(), &telemetry)).await;
    let gm = token(&db, "alice", Role::Gm).await;
    let game = crate::games::create_game(&app, &gm).await;
    crate::turns::end_round_one(&app, &gm, &game).await;
    let (addr, server) = listen(state, &telemetry);
    let base = format!("http://{addr}");

    let page = render(&browser, &format!("{base}/games/{game}/turn"), "turn").await;
    for key in [
        "Russia to play",
        "repairs (then",
        "<textarea",
        "Preview",
        "Submit",
        "<svg",
    ] {
        assert!(page.contains(key), "{key} on the turn page: {page}");
    }
    let version = field_value(&page, "version");
    let action = format!("{base}/games/{game}/turn");
    assert!(
        page.contains(&format!("action=\"/games/{game}/turn\"")),
        "{page}"
    );
    let text = "buy 3 INF\nmove 5 INF: Caucasus > Ukraine\nbattle Ukraine; combat SAAC; loss INF\nplace 3 INF in Russia\nend turn\n";
    let fields = [
        ("text", text),
        ("token", gm.as_str()),
        ("version", version.as_str()),
        ("power", "russia"),
    ];

    let previewed = press(&browser, "preview", &action, &fields, "preview").await;
    assert!(
        previewed.contains("Preview: nothing recorded, no die rolled"),
        "{previewed}"
    );
    assert!(
        previewed.contains("Battle in Ukraine S.S.R.: the attacker wins"),
        "{previewed}"
    );
    let after_preview = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    assert_eq!(
        after_preview["version"].to_string(),
        version,
        "a preview records nothing"
    );

    let submitted = press(&browser, "submit", &action, &fields, "submit").await;
    assert!(submitted.contains("Turn recorded"), "{submitted}");
    let after = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    assert_eq!(after["turn"], "germany", "{after}");
    assert!(submitted.contains("Germany to play"), "{submitted}");

    // A bad line, through the page: named, with the closest names, and nothing recorded.
    let version = after["version"].to_string();
    let bad = [
        ("text", "buy 2 INF\nplace 2 INF in Germny\n"),
        ("token", gm.as_str()),
        ("version", version.as_str()),
        ("power", "germany"),
    ];
    let refused = press(&browser, "refused", &action, &bad, "submit").await;
    assert!(
        refused.contains("Not accepted") && refused.contains("Line 2"),
        "{refused}"
    );
    assert!(refused.contains("Did you mean: Germany?"), "{refused}");
    server.stop(true).await;
}
