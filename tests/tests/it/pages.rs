//! The public pages in a real browser: headless Chromium, driven by playwright-core
//! (`tests/pages/`, locked), loads each page from a running server; the rendered DOM is
//! checked for the key content, axe-core checks every page (no violation, but for the few
//! [`KNOWN`] ones), and a screenshot of each is kept under `target/screenshots/`.
//!
//! Without Chromium, Node.js or npm on the machine the test says so and passes, unless
//! `WARLOG_REQUIRE_CHROMIUM=1` (CI sets it, and installs Debian's `chromium`, `nodejs` and
//! `npm`). The first run installs the two npm packages (`npm ci`).

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

/// The first of `names` on PATH.
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

pub(crate) fn chromium() -> Option<PathBuf> {
    on_path(&["chromium", "chromium-browser", "google-chrome", "chrome"])
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

/// Violations axe-core finds that are left, knowingly, for a fix elsewhere: the rule, a
/// piece of the element's selector, and why. None today. Each one seen is reported on every
/// run; one no longer seen fails the public pages' test, so that the list only shrinks.
const KNOWN: &[(&str, &str, &str)] = &[];

/// One element axe-core found against one rule on one page.
struct Violation {
    page: String,
    rule: String,
    impact: String,
    help: String,
    target: String,
    summary: String,
}

impl Violation {
    fn known(&self) -> Option<&'static (&'static str, &'static str, &'static str)> {
        KNOWN
            .iter()
            .find(|(rule, target, _)| self.rule == *rule && self.target.contains(target))
    }
}

/// The violations as people read them: one entry per rule and element, with every page it
/// was found on.
fn listed(violations: &[&Violation]) -> String {
    let mut entries: Vec<(String, Vec<&str>)> = Vec::new();
    for v in violations {
        let mut entry = format!(
            "{} ({}): {}\n    element: {}\n    {}",
            v.rule,
            v.impact,
            v.help,
            v.target,
            v.summary.replace('\n', "\n    ")
        );
        if let Some((_, _, why)) = v.known() {
            entry.push_str(&format!("\n    left: {why}"));
        }
        match entries.iter_mut().find(|(e, _)| *e == entry) {
            Some((_, pages)) => pages.push(&v.page),
            None => entries.push((entry, vec![&v.page])),
        }
    }
    entries
        .iter()
        .map(|(entry, pages)| format!("- {entry}\n    on {}\n", pages.join(", ")))
        .collect()
}

/// The page test's browser: `tests/pages/run.sh`, playwright-core driving this machine's
/// Chromium with axe-core run on every page, one request and one answer a line.
struct Browser {
    chromium: PathBuf,
    process: tokio::process::Child,
    requests: tokio::process::ChildStdin,
    answers: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    violations: Vec<Violation>,
    /// How many elements axe-core could not decide, by rule and page (text in an SVG, whose
    /// background it cannot tell): reported, for a person to look at.
    undecided: std::collections::BTreeMap<String, std::collections::BTreeMap<String, usize>>,
}

/// `None` for a test that cannot run here, saying why; under `WARLOG_REQUIRE_CHROMIUM=1`
/// (CI) a failure instead.
fn skipped<T>(test: &str, why: &str) -> Option<T> {
    assert!(
        std::env::var("WARLOG_REQUIRE_CHROMIUM").as_deref() != Ok("1"),
        "WARLOG_REQUIRE_CHROMIUM=1 but {why}"
    );
    eprintln!("{why}: {test} is skipped");
    None
}

impl Browser {
    /// The browser, or `None` where the machine has no Chromium, Node.js or npm.
    async fn start(test: &str) -> Option<Self> {
        use tokio::io::AsyncBufReadExt;
        let Some(chromium) = chromium() else {
            return skipped(test, "no chromium on PATH (apt-get install chromium)");
        };
        if on_path(&["node"]).is_none() || on_path(&["npm"]).is_none() {
            return skipped(test, "no node or npm on PATH (apt-get install nodejs npm)");
        }
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("pages")
            .join("run.sh");
        let mut process = tokio::process::Command::new(script)
            .arg(&chromium)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("tests/pages/run.sh starts");
        let requests = process.stdin.take().expect("its input");
        let mut answers =
            tokio::io::BufReader::new(process.stdout.take().expect("its output")).lines();
        let ready: serde_json::Value = match answers.next_line().await {
            Ok(Some(line)) => serde_json::from_str(&line).expect("a JSON line"),
            _ => {
                return skipped(
                    test,
                    "the page browser did not start (tests/pages/run.sh, whose first run installs its npm packages)",
                )
            }
        };
        let version = |of: &str| ready[of].as_str().unwrap_or("?").to_owned();
        eprintln!(
            "{test}: axe-core {}, playwright-core {}, Chromium {}",
            version("axe_core"),
            version("playwright_core"),
            version("chromium")
        );
        Some(Self {
            chromium,
            process,
            requests,
            answers,
            violations: Vec::new(),
            undecided: std::collections::BTreeMap::new(),
        })
    }

    /// Loads the page `request` names (its `url`, the window's `width`, a selector to
    /// `wait_for`, axe-core's rules to `disable`, `full_page`: false for a screenshot of the
    /// window only), keeps a screenshot of the whole page named `name` and what axe-core
    /// found, and returns the DOM Chromium built.
    async fn visit(&mut self, name: &str, mut request: serde_json::Value) -> String {
        use tokio::io::AsyncWriteExt;
        let shot = screenshots().join(format!("{name}.png"));
        let _ = std::fs::remove_file(&shot);
        request["screenshot"] = json!(shot);
        let line = format!("{request}\n");
        self.requests
            .write_all(line.as_bytes())
            .await
            .expect("the browser takes a request");
        let answer = self
            .answers
            .next_line()
            .await
            .expect("the browser answers")
            .expect("the browser answers before it stops");
        let answer: serde_json::Value = serde_json::from_str(&answer).expect("a JSON line");
        if let Some(error) = answer["error"].as_str() {
            panic!("{name}: the browser failed: {error}");
        }
        assert_eq!(answer["status"], 200, "{name}: {}", request["url"]);
        let png = std::fs::read(&shot).expect("a screenshot");
        assert!(
            png.starts_with(b"\x89PNG") && png.len() > 5_000,
            "{name}: a real picture"
        );
        let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_owned();
        for rule in answer["violations"]
            .as_array()
            .expect("axe-core's violations")
        {
            for node in rule["nodes"].as_array().expect("its elements") {
                self.violations.push(Violation {
                    page: name.to_owned(),
                    rule: text(&rule["id"]),
                    impact: text(&rule["impact"]),
                    help: text(&rule["help"]),
                    target: node["target"]
                        .as_array()
                        .expect("a target")
                        .iter()
                        .map(text)
                        .collect::<Vec<_>>()
                        .join(" "),
                    summary: text(&node["summary"]),
                });
            }
        }
        for rule in answer["incomplete"]
            .as_array()
            .expect("axe-core's undecided")
        {
            let elements = rule["nodes"].as_array().map_or(0, Vec::len);
            *self
                .undecided
                .entry(text(&rule["id"]))
                .or_default()
                .entry(name.to_owned())
                .or_default() += elements;
        }
        text(&answer["dom"])
    }

    /// [`Browser::visit`] in a window 1280 pixels wide.
    async fn render(&mut self, url: &str, name: &str) -> String {
        self.render_at(url, name, 1280).await
    }

    /// [`Browser::visit`] in a window `width` pixels wide (390: a phone).
    async fn render_at(&mut self, url: &str, name: &str, width: u32) -> String {
        self.visit(name, json!({"url": url, "width": width})).await
    }

    /// Stops the browser, and fails on any violation axe-core found that [`KNOWN`] does not
    /// list, and (for a test that visits every page, `every_page`) on any entry of it no
    /// longer found.
    async fn finish(self, every_page: bool) {
        let Self {
            mut process,
            requests,
            violations,
            undecided,
            ..
        } = self;
        for (rule, pages) in &undecided {
            let pages: Vec<_> = pages
                .iter()
                .map(|(page, elements)| format!("{page} {elements}"))
                .collect();
            eprintln!(
                "axe-core could not decide {rule} for these elements (by page), a person should look: {}",
                pages.join(", ")
            );
        }
        drop(requests);
        let status = process.wait().await.expect("the browser stops");
        assert!(status.success(), "the browser stopped with {status}");
        let (known, new): (Vec<&Violation>, Vec<&Violation>) =
            violations.iter().partition(|v| v.known().is_some());
        if !known.is_empty() {
            eprintln!(
                "axe-core: known violations, left for their own fixes (KNOWN):\n{}",
                listed(&known)
            );
        }
        assert!(
            new.is_empty(),
            "axe-core found {} violations (an element on a page each):\n{}",
            new.len(),
            listed(&new)
        );
        if every_page {
            let gone: Vec<_> = KNOWN
                .iter()
                .filter(|entry| !known.iter().any(|v| v.known() == Some(*entry)))
                .map(|(rule, target, _)| format!("{rule} at {target}"))
                .collect();
            assert!(
                gone.is_empty(),
                "fixed, so no longer to be listed in KNOWN: {}",
                gone.join("; ")
            );
        }
    }
}

#[actix_web::test]
async fn every_public_page_renders_in_headless_chromium_with_its_key_content() {
    let Some(mut pages) = Browser::start("the page test").await else {
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
    germany_takes_moscow(&app, &db, &director, &game).await;
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

    // A dice table with a roll (issue 38), and the link its e-mail would carry.
    let (_, dice_table) = crate::dice_pages::roll(&app).await;
    let reveal_token = crate::dice_pages::reveal_token(&state, &dice_table, 1).await;

    let (addr, handle) = listen(state, &telemetry);
    let base = format!("http://{addr}");

    let home = pages.render(&format!("{base}/"), "leaderboard").await;
    assert!(home.contains("Cut-Throat points"), "{home}");
    assert!(home.contains(&format!("/players/{german}")), "{home}");
    assert!(
        home.contains("Sergeant of Rebel Forces"),
        "5 points: {home}"
    );

    let skill = pages
        .render(&format!("{base}/?ladder=skill"), "leaderboard-skill")
        .await;
    assert!(skill.contains("Skill ladder"), "{skill}");

    let embed = pages
        .render(&format!("{base}/embed/leaderboard"), "leaderboard-embed")
        .await;
    assert!(embed.contains("<base target=\"_top\">"), "{embed}");
    assert!(!embed.contains("<nav>"), "no site navigation in an iframe");
    assert!(embed.contains(&german));

    let player = pages
        .render(&format!("{base}/players/{german}"), "player")
        .await;
    assert!(
        player.contains(&german.to_uppercase()),
        "display name: {player}"
    );
    assert!(player.contains("Sergeant of Rebel Forces"), "{player}");
    assert!(player.contains(&format!("/games/{game}")), "{player}");

    let event = pages
        .render(&format!("{base}/tournaments/{tournament}"), "tournament")
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

    let desk = pages
        .render(
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

    let board = pages.render(&format!("{base}/games/{game}"), "game").await;
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
        let index = pages.render(&format!("{base}{path}"), name).await;
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
        let page = pages.render(&url, &format!("map-v{version}")).await;
        pages
            .render_at(&url, &format!("map-v{version}-phone"), 390)
            .await;
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
        let url = format!("{base}/games/{game}?version={version}&highlight=Karelia%20S.S.R.");
        for (width, name) in [(1280, "map-battle"), (390, "map-battle-phone")] {
            let ringed = pages.render_at(&url, name, width).await;
            assert!(
                ringed.contains("place land highlighted\" data-name=\"Karelia S.S.R.\""),
                "ringed"
            );
        }
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
    let charts = pages
        .render_at(&format!("{base}/players/{german}"), "player-phone", 390)
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
    let standings = pages
        .render_at(
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
        let odds = pages
            .render_at(
                &format!(
                    "{base}/odds?attacker=3+inf%2C+1+arm&defender=2+inf&ruleset=cutthroat&order="
                ),
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
    let empty_form = pages.render(&format!("{base}/odds"), "odds-form").await;
    assert!(empty_form.contains("Compute the odds") && !empty_form.contains("Expected losses"));

    // A dice table's page and its reveal link's page, which changes nothing.
    for (width, name) in [(1280, "dice-table"), (390, "dice-table-phone")] {
        let table = pages
            .render_at(&format!("{base}/dice/{dice_table}"), name, width)
            .await;
        assert!(table.contains("Epoch 1, in force"), "{table}");
        assert!(table.contains("3 dice of 6 sides"), "{table}");
        assert!(table.contains("Reveal the seed"), "{table}");
        assert!(!table.contains("club.example"), "no address: {table}");
    }
    let confirm = pages
        .render(
            &format!("{base}/dice/{dice_table}/reveal?token={reveal_token}"),
            "dice-reveal",
        )
        .await;
    assert!(
        confirm.contains("everyone can recompute every roll of this epoch"),
        "{confirm}"
    );
    assert!(confirm.contains("Reveal the seed"), "{confirm}");

    // The API reference renders with every other host unreachable (as every page here):
    // nothing it needs comes from elsewhere. Its markup is Redoc's, not ours: Redoc puts an
    // operation's h5 under its h2 and its code blocks in boxes that scroll without taking
    // the focus, so those two rules are not run on it; every other rule is, colour contrast
    // included, and the page's own frame (language, title, the main landmark) is ours.
    let docs = pages
        .visit(
            "docs",
            json!({
                "url": format!("{base}/docs"),
                "width": 1280,
                "wait_for": ".api-content h2",
                "disable": ["heading-order", "scrollable-region-focusable"],
                // Sixty thousand pixels whole: its first screen is enough to see it.
                "full_page": false,
            }),
        )
        .await;
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

    pages.finish(true).await;
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
    let Some(mut pages) = Browser::start("the turn page test").await else {
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

    let page = pages
        .render(&format!("{base}/games/{game}/turn"), "turn")
        .await;
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

    let previewed = press(&pages.chromium, "preview", &action, &fields, "preview").await;
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

    let submitted = press(&pages.chromium, "submit", &action, &fields, "submit").await;
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
    let refused = press(&pages.chromium, "refused", &action, &bad, "submit").await;
    assert!(
        refused.contains("Not accepted") && refused.contains("Line 2"),
        "{refused}"
    );
    assert!(refused.contains("Did you mean: Germany?"), "{refused}");
    pages.finish(false).await;
    server.stop(true).await;
}
