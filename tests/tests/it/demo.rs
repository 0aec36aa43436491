//! `warlog demo` fills an empty database through the HTTP API, and leaves a filled one be:
//! games with battles the server rolled dice for and placements that differ, a tournament
//! with a substitute seated, an export that passes the offline audit.

use std::collections::BTreeSet;

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use serde_json::Value;
use warlog::audit::AuditInput;
use warlog_api::map::{board_svg, check, MapLayout};
use warlog_api::views::BoardView;
use warlog_api::{AppState, Telemetry};
use warlog_events::audit::Outcome;
use warlog_events::game::{decode_recorded, GameLog, GameStreamEvent};
use warlog_events::RecordedEvent;
use warlog_tests::TestDb;

use crate::games::{export, offline_audit, stream_export, write_export};
use crate::kit::{call, get, TestApp};
use crate::league::project_league;
use crate::pages::listen;

#[actix_web::test]
async fn the_demo_plays_battles_seats_a_substitute_and_passes_the_audit_once() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let state = AppState::without_notifier(db.pool.clone(), &telemetry);
    let app = actix_web::test::init_service(warlog_api::app(state.clone(), &telemetry)).await;
    let (addr, handle) = listen(state.clone(), &telemetry);

    let filled = warlog::demo::fill(&state, &telemetry, &db.config, addr)
        .await
        .expect("the demo fills")
        .expect("an empty database is filled");
    project_league(&db).await;
    let ladder = call(&app, get("/v1/leaderboards/points")).await.json();
    assert_eq!(
        ladder["as_of"], 6,
        "4 friendly games and round 1's two tables"
    );
    assert_eq!(ladder["rows"].as_array().map(Vec::len), Some(12));
    // 4 friendly games, the tournament's 2 rounds of 2 tables, its stream, 12 players.
    let client = db.pool.get().await.expect("connection");
    let streams: Vec<(String, i64)> = client
        .query(
            "SELECT split_part(stream_id, '-', 1), count(DISTINCT stream_id) FROM events GROUP BY 1 ORDER BY 1",
            &[],
        )
        .await
        .expect("streams")
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    let expected = [("game", 9), ("player", 12), ("tournament", 1)]
        .map(|(category, n)| (category.to_owned(), n));
    assert_eq!(streams, expected);

    // The tournament: round 1 played, round 2 running with a substitute in one seat.
    let tournament = call(
        &app,
        get(&format!("/v1/tournaments/{}", filled.tournament_id)),
    )
    .await
    .json();
    let tables = |round: usize| -> Vec<Value> {
        tournament["seated"][round]["tables"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let substitutions = tournament["substitutions"].as_array().expect("a list");
    assert_eq!(substitutions.len(), 1, "{tournament}");
    let substitution = &substitutions[0];
    assert_eq!(substitution["round"], 2);
    assert!(
        tables(1)
            .iter()
            .any(|t| t["game_id"] == substitution["game_id"]
                && t["seats"]
                    .as_array()
                    .is_some_and(|seats| seats.iter().any(|s| {
                        s["player"] == substitution["substitute"]
                            && s["changes"][0]["kind"] == "substitution"
                    }))),
        "the substitute holds the seat: {tournament}"
    );

    // Every ended game: battles the server rolled dice for, by more than one power; a
    // friendly game's export passes the offline audit whole.
    let round_games = |round: usize| -> Vec<String> {
        tables(round)
            .iter()
            .filter_map(|t| t["game_id"].as_str().map(str::to_owned))
            .collect()
    };
    let ended: Vec<String> = filled
        .friendly_games
        .iter()
        .cloned()
        .chain(round_games(0))
        .collect();
    assert_eq!(ended.len(), 6);
    let mut untied = 0;
    for game in &ended {
        let battles = listed(&app, &format!("/v1/games/{game}/battles"), "battles").await;
        let rolled: Vec<&Value> = battles
            .iter()
            .filter(|b| b["dice"].as_array().is_some_and(|d| !d.is_empty()))
            .collect();
        let attackers: BTreeSet<&str> = rolled
            .iter()
            .filter_map(|b| b["attacker"].as_str())
            .collect();
        assert!(
            rolled.len() >= 3 && attackers.len() >= 2,
            "game {game}: {battles:?}"
        );
        let placements = listed(&app, &format!("/v1/games/{game}/placements"), "placements").await;
        let gains: BTreeSet<&str> = placements
            .iter()
            .filter_map(|p| p["percent_gain_exact"].as_str())
            .collect();
        if gains.len() > 1 {
            untied += 1;
        }
        if filled.friendly_games.contains(game) {
            let file = write_export(&export(&app, game).await);
            let report = offline_audit(&file, None);
            assert_eq!(
                report.outcome,
                Outcome::Passed,
                "game {game}: {}",
                report.render()
            );
            let _ = std::fs::remove_file(file);
        }
    }
    assert!(untied >= 1, "some game ends with powers apart");

    // The map at every version of every game of the demo, whole and zoomed to each region:
    // no label overlaps another or leaves the view, and every text reaches 4.5:1.
    let mut drawn = 0;
    // (The Pacific board's game too.)
    let pacific = [filled.pacific_game.clone()];
    for game in ended.iter().chain(&round_games(1)).chain(&pacific) {
        drawn += labels_checked_at_every_version(&export(&app, game).await, game);
    }
    assert!(drawn > 1_000, "{drawn} maps drawn");
    assert!(filled.friendly_games.contains(&filled.audited_game));

    // The tournament's export with its games': every command, the substitution among them,
    // decided again; only the seatings wait for the seed, revealed at the finish.
    let mut files = vec![write_export(
        &stream_export(&app, &format!("tournament-{}", filled.tournament_id)).await,
    )];
    for game in round_games(0).iter().chain(&round_games(1)) {
        files.push(write_export(&export(&app, game).await));
    }
    let report = warlog::audit::audit_files(&AuditInput::files(&files)).expect("the files read");
    assert_eq!(report.outcome, Outcome::Partial, "{}", report.render());
    for file in files {
        let _ = std::fs::remove_file(file);
    }

    // The links the log names lead to pages; the map is the board at a battle.
    let site = format!("http://{addr}");
    for link in [
        &filled.leaderboard,
        &filled.battle_map,
        &filled.tournament,
        &filled.audit,
    ] {
        let path = link.strip_prefix(&site).expect("a link to the service");
        let page = call(&app, get(path)).await;
        assert_eq!(page.status, StatusCode::OK, "{link}");
    }
    assert!(
        filled.battle_map.contains("?version=") && filled.battle_map.contains("&highlight="),
        "{}",
        filled.battle_map
    );

    // The demo's tokens are revoked once it is done: nobody holds them.
    let live: i64 = db
        .pool
        .get()
        .await
        .expect("connection")
        .query_one(
            "SELECT count(*) FROM api_tokens WHERE revoked_at IS NULL",
            &[],
        )
        .await
        .expect("tokens")
        .get(0);
    assert_eq!(live, 0, "live tokens left by the demo");

    // A second start leaves the data as it is.
    let events = event_count(&db).await;
    let again = warlog::demo::fill(&state, &telemetry, &db.config, addr)
        .await
        .expect("nothing to do");
    assert!(again.is_none());
    assert_eq!(event_count(&db).await, events);
    handle.stop(true).await;
}

/// The list under `key` in what `path` answers.
async fn listed<B: MessageBody>(app: &impl TestApp<B>, path: &str, key: &str) -> Vec<Value> {
    let answer = call(app, get(path)).await.json();
    answer[key]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("no {key} in {answer}"))
}

/// Every event of every stream.
pub(crate) async fn event_count(db: &TestDb) -> i64 {
    let client = db.pool.get().await.expect("connection");
    client
        .query_one("SELECT count(*) FROM events", &[])
        .await
        .expect("count")
        .get(0)
}

/// Folds a game's export event by event and checks the labels of every view of its map
/// at each version; how many maps were drawn.
fn labels_checked_at_every_version(events: &[RecordedEvent], game: &str) -> usize {
    let mut folded: Option<GameLog> = None;
    let mut drawn = 0;
    for event in events {
        let decoded = decode_recorded(event).expect("a game event");
        let log = match (folded.as_mut(), decoded) {
            (None, GameStreamEvent::Created(created)) => {
                folded.insert(GameLog::new(created).expect("a game"))
            }
            (Some(log), next) => {
                log.apply(event.stream_version, &next).expect("folds");
                log
            }
            (None, _) => panic!("{game} does not start with its creation"),
        };
        let layout = MapLayout::cached(&log.ruleset.hash, &log.ruleset.board);
        let view = BoardView::of(log);
        let regions: Vec<Option<&str>> = std::iter::once(None)
            .chain(layout.regions().map(|r| Some(r.id.as_str())))
            .collect();
        for region in regions {
            let problems = check::label_problems(&board_svg(&view, &layout, None, region));
            assert!(
                problems.is_empty(),
                "{game} at version {}, {region:?}: {}",
                log.version,
                problems.join("; ")
            );
            drawn += 1;
        }
    }
    drawn
}
