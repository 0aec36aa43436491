//! Tournaments over HTTP against real PostgreSQL: a 15-player, 3-round Cut-Throat event
//! with a substitution, scored and ranked by hand; 16 and 17 players under each short-table
//! policy; the calendar and the CSV; and requests that are refused and change nothing.

use std::collections::{BTreeMap, HashMap, HashSet};

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_events::audit::Outcome;
use warlog_events::relink;
use warlog_league::audit::audit_tournament;
use warlog_tests::TestDb;

use crate::games::{
    act, export, german_armour_takes, order, pass_until, plays_the_first_round, stream_export,
};
use crate::kit::{app, assert_problem, call, get, post, token, TestApp};

/// The moment the tests' clock starts at (2026-11-02T10:00:00Z).
pub(crate) const START: i64 = 1_793_613_600;

pub(crate) fn deadlines(rounds: usize) -> Vec<String> {
    (1..=rounds)
        .map(|r| {
            let at = time::OffsetDateTime::from_unix_timestamp(START + 14 * 86_400 * r as i64)
                .expect("a deadline");
            at.format(&time::format_description::well_known::Rfc3339)
                .expect("formatted")
        })
        .collect()
}

pub(crate) async fn register<B: MessageBody>(
    app: &impl TestApp<B>,
    director: &str,
    players: &[String],
) {
    for player in players {
        let reply = call(
            app,
            post(
                "/v1/players",
                director,
                &json!({"handle": player, "display_name": player.to_uppercase()}),
            ),
        )
        .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.json());
    }
}

pub(crate) async fn create_tournament<B: MessageBody>(
    app: &impl TestApp<B>,
    director: &str,
    settings: Value,
) -> String {
    let reply = call(app, post("/v1/tournaments", director, &settings)).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.json());
    reply.json()["tournament_id"]
        .as_str()
        .expect("an id")
        .to_owned()
}

/// Enters each player; the answer's status (`entered` or `waiting`), per player.
pub(crate) async fn enter<B: MessageBody>(
    app: &impl TestApp<B>,
    director: &str,
    tournament: &str,
    players: &[String],
) -> Vec<String> {
    let mut statuses = Vec::new();
    for player in players {
        let reply = call(
            app,
            post(
                &format!("/v1/tournaments/{tournament}/entries"),
                director,
                &json!({ "player": player }),
            ),
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
        statuses.push(reply.json()["status"].as_str().expect("status").to_owned());
    }
    statuses
}

/// Registers `players`, creates a tournament with `settings`, and enters them all; the
/// tournament's id and each entry's status (`entered` or `waiting`).
pub(crate) async fn open_tournament<B: MessageBody>(
    app: &impl TestApp<B>,
    director: &str,
    players: &[String],
    settings: Value,
) -> (String, Vec<String>) {
    register(app, director, players).await;
    let tournament = create_tournament(app, director, settings).await;
    let statuses = enter(app, director, &tournament, players).await;
    (tournament, statuses)
}

pub(crate) async fn seat<B: MessageBody>(
    app: &impl TestApp<B>,
    director: &str,
    tournament: &str,
) -> Value {
    let reply = call(
        app,
        post(
            &format!("/v1/tournaments/{tournament}/rounds"),
            director,
            &json!({}),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.json());
    reply.json()
}

async fn tournament_version<B: MessageBody>(app: &impl TestApp<B>, tournament: &str) -> u64 {
    call(app, get(&format!("/v1/tournaments/{tournament}")))
        .await
        .json()["version"]
        .as_u64()
        .expect("a version")
}

pub(crate) fn names(prefix: &str, n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("{prefix}{i:02}")).collect()
}

/// Russia empties Russia and Karelia in round 1; in round 2 a German armour drives through
/// Karelia into Moscow unopposed (no dice), and the director ends the game. Germany is
/// first, Russia fifth, and the three powers whose IPCs did not move share 2nd to 4th.
pub(crate) async fn germany_takes_moscow<B: MessageBody>(
    app: &impl TestApp<B>,
    db: &TestDb,
    gm: &str,
    game: &str,
) {
    pass_until(app, gm, game, 1, "russia", "NonCombatMove").await;
    order(app, gm, game, "russia", json!([
        {"type": "move", "units": {"INF": 6, "ARM": 2, "FTR": 2}, "path": ["Russia", "Caucasus"]},
        {"type": "move", "units": {"INF": 3, "ARM": 1, "FTR": 1}, "path": ["Karelia", "Caucasus"]},
    ]))
    .await;
    german_armour_takes(app, gm, game, 2, &["East Europe", "Karelia", "Russia"]).await;
    crate::games::each_player_gives_an_order(app, db, game).await;
    let ended = act(app, gm, game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
}

/// Points as fifteenths: every value in this tournament is a whole number of them.
type Fifteenths = i64;
const GERMANY_WINS: Fifteenths = 5 * 15;
const RUSSIA_LAST: Fifteenths = -2 * 15;
/// 2nd, 3rd and 4th shared by three: (3 + 2 - 1) / 3.
const SHARED_SECOND: Fifteenths = 4 * 5;
/// All five tied: (5 + 3 + 2 - 1 - 2) / 5.
const ALL_TIED: Fifteenths = 7 * 3;

/// The Cut-Throat titles by total points (docs/design.md, "Scoring"; nobody here reaches 23).
fn title_for(points: Fifteenths) -> &'static str {
    let whole = points.div_euclid(15);
    match whole {
        i64::MIN..=2 => "Enlisted",
        3..=5 => "Sergeant of Rebel Forces",
        6..=8 => "Commander of Minor Skirmishes",
        9..=12 => "Leader of Domestic Principle",
        13..=17 => "Brigadier of Foreign Wars",
        _ => "General of Global Domination",
    }
}

pub(crate) fn tables_of(round: &Value) -> Vec<Vec<(String, String)>> {
    round["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| {
            t["seats"]
                .as_array()
                .expect("seats")
                .iter()
                .map(|s| {
                    (
                        s["power"].as_str().expect("power").to_owned(),
                        s["player"].as_str().expect("player").to_owned(),
                    )
                })
                .collect()
        })
        .collect()
}

fn pairs(table: &[(String, String)]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, (_, a)) in table.iter().enumerate() {
        for (_, b) in &table[i + 1..] {
            let (x, y) = if a < b { (a, b) } else { (b, a) };
            out.push((x.clone(), y.clone()));
        }
    }
    out
}

/// How many pairs at this round's tables met at an earlier round's table.
fn repeats(earlier: &[Vec<Vec<(String, String)>>], round: &[Vec<(String, String)>]) -> usize {
    let met: HashSet<(String, String)> = earlier.iter().flatten().flat_map(|t| pairs(t)).collect();
    round
        .iter()
        .flat_map(|t| pairs(t))
        .filter(|p| met.contains(p))
        .count()
}

#[actix_web::test]
async fn a_fifteen_player_three_round_tournament_is_seated_scored_and_ranked_as_the_rules_say() {
    let db = TestDb::new().await;
    let (app, clock) = app!(db, clock at START);
    let director = token(&db, "dora", Role::Director).await;
    let players = names("p", 15);
    let mut everyone = players.clone();
    everyone.push("sub".to_owned());
    register(&app, &director, &everyone).await;

    let tournament = create_tournament(
        &app,
        &director,
        json!({
            "name": "Autumn Cut-Throat",
            "rounds": 3,
            "deadlines": deadlines(3),
            "short_tables": "waiting_list",
            "capacity": 15,
        }),
    )
    .await;
    let statuses = enter(&app, &director, &tournament, &everyone).await;
    assert_eq!(statuses.iter().filter(|s| *s == "entered").count(), 15);
    assert_eq!(statuses.last().map(String::as_str), Some("waiting"));

    // Round 1: three tables of five, nobody has met anybody.
    let round1 = seat(&app, &director, &tournament).await;
    let tables1 = tables_of(&round1);
    assert_eq!(tables1.len(), 3);
    assert!(tables1.iter().all(|t| t.len() == 5));
    assert_eq!(round1["repeated_table_mates"], 0);
    let seated: HashSet<&String> = tables1.iter().flatten().map(|(_, p)| p).collect();
    assert_eq!(seated.len(), 15);
    assert!(!seated.contains(&"sub".to_owned()));

    // The next round waits for the games.
    let version = tournament_version(&app, &tournament).await;
    let early = call(
        &app,
        post(
            &format!("/v1/tournaments/{tournament}/rounds"),
            &director,
            &json!({}),
        ),
    )
    .await;
    assert_problem(&early, StatusCode::UNPROCESSABLE_ENTITY, "tournament-rule");
    assert!(early.json()["detail"]
        .as_str()
        .is_some_and(|d| d.contains("games-running")));
    // The refusal's code is the league's table's, for clients to match on.
    assert_eq!(early.json()["violation"], "games-running");
    assert!(early.json().get("rule").is_none());
    assert_eq!(tournament_version(&app, &tournament).await, version);

    let games1: Vec<String> = game_ids(&round1);
    for game in &games1 {
        germany_takes_moscow(&app, &db, &director, game).await;
    }

    // Round 2: 15 players at 3 tables cannot avoid every repeat. Each round-1 table's five
    // spread over three tables at best as 2 + 2 + 1: two pairs meet again per old table.
    let round2 = seat(&app, &director, &tournament).await;
    let tables2 = tables_of(&round2);
    assert_eq!(repeats(std::slice::from_ref(&tables1), &tables2), 6);
    assert_eq!(round2["repeated_table_mates"], 6);
    assert_eq!(round2["least_possible_repeats"], 6);
    let games2 = game_ids(&round2);

    // Table 1's Russia has the first turn. Not yet 3 days: no substitute.
    let first_game = &games2[0];
    let russia_of_table1 = tables2[0]
        .iter()
        .find(|(power, _)| power == "russia")
        .map(|(_, p)| p.clone())
        .expect("a Russian player");
    let version = tournament_version(&app, &tournament).await;
    let too_soon = substitute(&app, &director, &tournament, first_game).await;
    assert_eq!(
        too_soon.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{:?}",
        too_soon.json()
    );
    assert!(
        too_soon.json()["detail"]
            .as_str()
            .is_some_and(|d| d.contains("3 days")),
        "{:?}",
        too_soon.json()
    );
    assert_eq!(tournament_version(&app, &tournament).await, version);
    let offers = call(&app, get(&format!("/v1/tournaments/{tournament}/inactive")))
        .await
        .json();
    assert_eq!(offers, json!([]));

    // Three days and an hour later every table's Russia is offered to the waiting list.
    clock.advance(time::Duration::hours(73));
    let offers = call(&app, get(&format!("/v1/tournaments/{tournament}/inactive")))
        .await
        .json();
    let offers = offers.as_array().expect("offers");
    assert_eq!(offers.len(), 3);
    assert!(offers
        .iter()
        .all(|o| o["power"] == "russia" && o["offered_to"] == "sub" && o["idle_hours"] == 73));

    // The director confirms the offer for table 1.
    let confirmed = substitute(&app, &director, &tournament, first_game).await;
    assert_eq!(
        confirmed.status,
        StatusCode::CREATED,
        "{:?}",
        confirmed.json()
    );
    let confirmed = confirmed.json();
    assert_eq!(confirmed["replaced"], json!(russia_of_table1));
    assert_eq!(confirmed["substitute"], "sub");
    assert_eq!(confirmed["power"], "russia");
    let game_view = call(&app, get(&format!("/v1/games/{first_game}")))
        .await
        .json();
    let russia_seat = game_view["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .find(|s| s["power"] == "russia")
        .cloned()
        .expect("Russia's seat");
    assert_eq!(russia_seat["player"], "sub", "{game_view}");
    // The waiting list is used up.
    let again = substitute(&app, &director, &tournament, &games2[1]).await;
    assert_problem(&again, StatusCode::UNPROCESSABLE_ENTITY, "tournament-rule");

    for game in &games2 {
        germany_takes_moscow(&app, &db, &director, game).await;
    }

    // Round 3: the substitute plays on; the replaced player does not. As played, round 2's
    // table 1 had the substitute at Russia.
    let round3 = seat(&app, &director, &tournament).await;
    let tables3 = tables_of(&round3);
    let seated3: HashSet<&String> = tables3.iter().flatten().map(|(_, p)| p).collect();
    assert!(seated3.contains(&"sub".to_owned()));
    assert!(!seated3.contains(&russia_of_table1));
    assert_eq!(seated3.len(), 15);
    let detail = call(&app, get(&format!("/v1/tournaments/{tournament}")))
        .await
        .json();
    let played2 = tables_of(&detail["seated"][1]);
    assert!(played2[0].contains(&("russia".to_owned(), "sub".to_owned())));
    let as_played = [tables1.clone(), played2.clone()];
    let repeated3 = repeats(&as_played, &tables3);
    assert_eq!(round3["repeated_table_mates"], json!(repeated3));
    assert_eq!(round3["least_possible_repeats"], json!(repeated3));
    // Nobody meets anybody three times.
    let mut met: HashMap<(String, String), usize> = HashMap::new();
    for table in tables1.iter().chain(&played2).chain(&tables3) {
        for pair in pairs(table) {
            *met.entry(pair).or_default() += 1;
        }
    }
    assert!(met.values().all(|n| *n <= 2), "{met:?}");
    // Nobody plays a power twice.
    let mut powers: HashMap<&String, Vec<&String>> = HashMap::new();
    for (power, player) in tables1.iter().chain(&played2).chain(&tables3).flatten() {
        powers.entry(player).or_default().push(power);
    }
    for (player, played) in &powers {
        let distinct: HashSet<_> = played.iter().collect();
        assert_eq!(distinct.len(), played.len(), "{player} played {played:?}");
    }
    // Round 3 ends after a quiet first round: all five tied at every table.
    for game in game_ids(&round3) {
        plays_the_first_round(&app, &db, &game).await;
        assert_eq!(
            act(&app, &director, &game, "end").await.status,
            StatusCode::OK
        );
    }

    finish(&app, &director, &tournament).await;
    // The end reveals the seed that drew every seating, power and tiebreak.
    let detail = call(&app, get(&format!("/v1/tournaments/{tournament}")))
        .await
        .json();
    let seed: [u8; 32] = hex::decode(detail["seed"].as_str().expect("the seed, revealed"))
        .expect("hex")
        .try_into()
        .expect("32 bytes");
    assert_eq!(
        json!(hex::encode(
            warlog_rules::dice::GameSeed::from_bytes(seed).commitment()
        )),
        detail["seed_commitment"]
    );

    // The auditor, with the tournament's export and its games': every round seated again
    // from the revealed seed, every game created with its table's seats and passing its
    // own audit (the substitution included).
    let (tournament_events, games) = exports(
        &app,
        &tournament,
        &[round1.clone(), round2.clone(), round3.clone()],
    )
    .await;
    passes_the_tournament_audit(&tournament_events, &games, 3);
    // Without some of the games' exports (one of round 1's, or all), what depends on them
    // is not checked: partial, not failed, naming the games.
    for given in [&games[1..], &[][..]] {
        let report = audit_tournament(&tournament_events, given, None);
        assert_eq!(report.outcome, Outcome::Partial, "{}", report.render());
        assert!(
            report.render().contains(game_ids(&round1)[0].as_str()),
            "{}",
            report.render()
        );
        // and `warlog audit TOURNAMENT.ndjson GAME.ndjson...` says so by its exit code, 3.
        let files: Vec<std::path::PathBuf> = std::iter::once(&tournament_events[..])
            .chain(given.iter().map(Vec::as_slice))
            .map(crate::games::write_export)
            .collect();
        let exit = warlog::audit::run(&warlog::audit::AuditInput::files(&files), false);
        assert!(
            matches!(exit, Err(warlog::CliError::Exit(warlog::audit::PARTIAL))),
            "{exit:?}"
        );
    }
    // A forger swaps two players between tables of round 2 and recomputes the chain.
    let mut forged = tournament_events.clone();
    let at = round_seated_at(&forged, 2);
    let tables = &mut forged[at].payload["seating"]["tables"];
    let first = tables[0]["seats"][0][1].clone();
    tables[0]["seats"][0][1] = tables[1]["seats"][0][1].clone();
    tables[1]["seats"][0][1] = first;
    relink(&mut forged);
    let report = audit_tournament(&forged, &games, None);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.check == "seating" && f.event == forged[at].stream_version),
        "{}",
        report.render()
    );
    // A forger moves the substitute to another seat of the same table (the player there
    // named as the one replaced, so the tournament's own rules allow it) and recomputes the
    // chain: the game's record gave the substitute Russia, so the auditor names the event.
    let mut forged = tournament_events.clone();
    let at = appointed_at(&forged);
    let game = forged[at].payload["game_id"].clone();
    let table = tables_of(&round2)
        .into_iter()
        .zip(game_ids(&round2))
        .find(|(_, id)| json!(id) == game)
        .map(|(table, _)| table)
        .expect("the substitution's table");
    let (power, player) = table
        .iter()
        .find(|(power, _)| power == "germany")
        .cloned()
        .expect("germany's seat");
    forged[at].payload["power"] = json!(power);
    forged[at].payload["replaced"] = json!(player);
    relink(&mut forged);
    names_the_forgery(&forged, &games, at, "does not record");
    // Or names a substitute who was never waiting: the rules refuse it.
    let mut forged = tournament_events.clone();
    forged[at].payload["substitute"] = json!("p99");
    relink(&mut forged);
    names_the_forgery(&forged, &games, at, "not on the waiting list");
    // Or puts the appointment in another director's name.
    let mut forged = tournament_events.clone();
    forged[at].metadata["actor"] = json!("director:otto");
    relink(&mut forged);
    names_the_forgery(&forged, &games, at, "otto may not direct this tournament");

    // By hand: Germany 5, Russia -2, the others 4/3 in rounds 1 and 2; 7/5 each in round 3.
    // Results follow play: the substitute played the two rounds at Russia that make the
    // seat theirs, so Russia's -2 is the substitute's, and the replaced player takes last
    // place's -2 for the seat they left (going idle never beats playing it out).
    let mut expected: BTreeMap<String, Fifteenths> = BTreeMap::new();
    expected.insert(russia_of_table1.clone(), RUSSIA_LAST);
    for tables in [&tables1, &played2] {
        for table in tables {
            for (power, player) in table {
                let points = match power.as_str() {
                    "germany" => GERMANY_WINS,
                    "russia" => RUSSIA_LAST,
                    _ => SHARED_SECOND,
                };
                *expected.entry(player.clone()).or_default() += points;
            }
        }
    }
    for (_, player) in tables3.iter().flatten() {
        *expected.entry(player.clone()).or_default() += ALL_TIED;
    }
    let standings = call(
        &app,
        get(&format!("/v1/tournaments/{tournament}/standings")),
    )
    .await
    .json();
    assert_eq!(standings["finished"], true);
    let rows = standings["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 16, "15 players and the substitute");
    for row in rows {
        let player = row["player"].as_str().expect("player");
        let want = expected[player];
        let got = row["points"].as_f64().expect("points");
        assert!(
            (got - want as f64 / 15.0).abs() < 1e-9,
            "{player}: {got} != {want}/15"
        );
        assert_eq!(row["title"], title_for(want), "{player}");
        let status = if player == russia_of_table1 {
            "replaced"
        } else {
            "playing"
        };
        assert_eq!(row["status"], status, "{player}");
    }
    let replaced_row = rows
        .iter()
        .find(|r| r["player"] == json!(russia_of_table1))
        .expect("the replaced player's row");
    assert_eq!(
        replaced_row["games"], 2,
        "round 1, and last place for round 2's seat"
    );
    // Ranked by points, each tie broken by a named tiebreaker.
    let ranks: Vec<u64> = rows.iter().map(|r| r["rank"].as_u64().unwrap()).collect();
    assert_eq!(ranks, (1..=16).collect::<Vec<_>>());
    for pair in rows.windows(2) {
        let (a, b) = (
            pair[0]["points"].as_f64().unwrap(),
            pair[1]["points"].as_f64().unwrap(),
        );
        assert!(a >= b - 1e-12, "{a} before {b}");
        let decided_by = pair[1]["decided_by"].as_str().expect("a tiebreaker");
        if (a - b).abs() > 1e-12 {
            assert_eq!(decided_by, "total points");
        } else {
            assert_ne!(decided_by, "total points", "{:?} {:?}", pair[0], pair[1]);
        }
    }

    // The same standings as CSV.
    let csv = call(
        &app,
        get(&format!("/v1/tournaments/{tournament}/standings"))
            .insert_header(("Accept", "text/csv")),
    )
    .await;
    assert_eq!(csv.status, StatusCode::OK);
    let text = std::str::from_utf8(&csv.body).expect("utf-8");
    let lines: Vec<&str> = text.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert!(lines[0].starts_with("rank,player,status,points"));
    assert_eq!(lines.len(), 17);
    assert!(lines[1].starts_with(&format!("1,{},", rows[0]["player"].as_str().unwrap())));

    // The calendar: one event per deadline and one per game.
    let ics = call(
        &app,
        get(&format!("/v1/tournaments/{tournament}/calendar.ics")),
    )
    .await;
    assert_eq!(ics.status, StatusCode::OK);
    assert!(ics
        .headers
        .get("content-type")
        .expect("a type")
        .to_str()
        .unwrap()
        .starts_with("text/calendar"));
    let calendar = std::str::from_utf8(&ics.body)
        .expect("utf-8")
        .replace("\r\n ", "");
    assert!(calendar.starts_with("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"));
    assert!(calendar.ends_with("END:VCALENDAR\r\n"));
    assert_eq!(calendar.matches("BEGIN:VEVENT").count(), 3 + 9);
    assert!(calendar.contains("SUMMARY:Autumn Cut-Throat: round 2\\, table 1"));
    assert!(calendar.contains("sub (Russia)"));
    for line in std::str::from_utf8(&ics.body).unwrap().split("\r\n") {
        assert!(line.len() <= 75, "{line}");
    }
    assert_a_valid_calendar(&calendar);
    let again = call(
        &app,
        get(&format!("/v1/tournaments/{tournament}/calendar.ics"))
            .insert_header(("If-None-Match", ics.header("etag"))),
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);

    // Finished is final.
    let late = call(
        &app,
        post(
            &format!("/v1/tournaments/{tournament}/entries"),
            &director,
            &json!({"player": "p01"}),
        ),
    )
    .await;
    assert_problem(&late, StatusCode::UNPROCESSABLE_ENTITY, "tournament-rule");
}

/// RFC 5545 as a parser reads it (the `icalendar` crate), and what a parser lets pass:
/// every event transparent, and one with an end ending after it starts.
fn assert_a_valid_calendar(unfolded: &str) {
    icalendar::parser::read_calendar(unfolded).expect("the calendar parses");
    let parsed: icalendar::Calendar = unfolded.parse().expect("the calendar reads");
    assert!(!parsed.components.is_empty());
    for event in unfolded.split("BEGIN:VEVENT").skip(1) {
        let property = |name: &str| {
            event
                .split("\r\n")
                .find_map(|line| line.strip_prefix(&format!("{name}:")))
                .map(str::to_owned)
        };
        assert_eq!(
            property("TRANSP").as_deref(),
            Some("TRANSPARENT"),
            "{event}"
        );
        let start = property("DTSTART").expect("a start");
        if let Some(end) = property("DTEND") {
            // Basic-format UTC times compare as text.
            assert!(end > start, "DTEND after DTSTART: {event}");
        }
    }
}

async fn substitute<B: MessageBody>(
    app: &impl TestApp<B>,
    director: &str,
    tournament: &str,
    game: &str,
) -> crate::kit::Reply {
    call(
        app,
        post(
            &format!("/v1/tournaments/{tournament}/substitutions"),
            director,
            &json!({ "game_id": game }),
        ),
    )
    .await
}

/// The director finishes the tournament, revealing its seed.
pub(crate) async fn finish<B: MessageBody>(
    app: &impl TestApp<B>,
    director: &str,
    tournament: &str,
) {
    let finished = call(
        app,
        post(
            &format!("/v1/tournaments/{tournament}/finish"),
            director,
            &json!({}),
        ),
    )
    .await;
    assert_eq!(finished.status, StatusCode::OK, "{:?}", finished.json());
}

/// The tournament's export and its rounds' games' exports, as an auditor is given them.
pub(crate) async fn exports<B: MessageBody>(
    app: &impl TestApp<B>,
    tournament: &str,
    rounds: &[Value],
) -> (
    Vec<warlog_events::RecordedEvent>,
    Vec<Vec<warlog_events::RecordedEvent>>,
) {
    let events = stream_export(app, &format!("tournament-{tournament}")).await;
    let mut games = Vec::new();
    for round in rounds {
        for game in game_ids(round) {
            games.push(export(app, &game).await);
        }
    }
    (events, games)
}

/// The tournament's export passes its audit with the games', every round seated again.
pub(crate) fn passes_the_tournament_audit(
    events: &[warlog_events::RecordedEvent],
    games: &[Vec<warlog_events::RecordedEvent>],
    rounds: usize,
) {
    let report = audit_tournament(events, games, None);
    assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
    assert!(
        report
            .render()
            .contains(&format!("{rounds} rounds seated again")),
        "{}",
        report.render()
    );
}

/// Where the `SubstituteAppointed` stands in a tournament's export.
fn appointed_at(events: &[warlog_events::RecordedEvent]) -> usize {
    events
        .iter()
        .position(|e| e.event_type.as_str() == "SubstituteAppointed")
        .expect("a substitution")
}

/// The tournament audit fails, naming the forged event (at `at`) for its command, saying
/// `says`.
pub(crate) fn names_the_forgery(
    forged: &[warlog_events::RecordedEvent],
    games: &[Vec<warlog_events::RecordedEvent>],
    at: usize,
    says: &str,
) {
    let report = audit_tournament(forged, games, None);
    assert_eq!(report.outcome, Outcome::Failed, "{}", report.render());
    assert!(
        report.findings.iter().any(|f| f.check == "commands"
            && f.event == forged[at].stream_version
            && f.message.contains(says)),
        "{}",
        report.render()
    );
}

/// Where round `round`'s `RoundSeated` stands in a tournament's export.
pub(crate) fn round_seated_at(events: &[warlog_events::RecordedEvent], round: u32) -> usize {
    events
        .iter()
        .position(|e| e.event_type.as_str() == "RoundSeated" && e.payload["round"] == round)
        .unwrap_or_else(|| panic!("round {round}"))
}

pub(crate) fn game_ids(round: &Value) -> Vec<String> {
    round["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| t["game_id"].as_str().expect("a game").to_owned())
        .collect()
}

#[actix_web::test]
async fn sixteen_players_with_a_waiting_list_fill_a_fourth_table_from_it_and_say_so() {
    let db = TestDb::new().await;
    let (app, _clock) = app!(db, clock at START);
    let director = token(&db, "dora", Role::Director).await;
    let players = names("p", 20);
    let (tournament, statuses) = open_tournament(
        &app,
        &director,
        &players,
        json!({
            "name": "Sixteen", "rounds": 2, "deadlines": deadlines(2),
            "short_tables": "waiting_list", "capacity": 16,
        }),
    )
    .await;
    assert_eq!(statuses.iter().filter(|s| *s == "waiting").count(), 4);
    let round = seat(&app, &director, &tournament).await;
    assert_eq!(tables_of(&round).len(), 4);
    assert_eq!(round["byes"], json!([]));
    assert_eq!(
        round["promoted"],
        json!(["p17", "p18", "p19", "p20"]),
        "{round}"
    );
    let explanation = round["explanation"].to_string();
    assert!(explanation.contains("waiting list"), "{explanation}");
    let detail = call(&app, get(&format!("/v1/tournaments/{tournament}")))
        .await
        .json();
    assert_eq!(detail["waiting"], json!([]));
    assert_eq!(detail["entrants"].as_array().map(Vec::len), Some(20));
}

#[actix_web::test]
async fn seventeen_players_with_byes_seat_fifteen_and_give_the_lowest_ranked_two_byes() {
    let db = TestDb::new().await;
    let (app, _clock) = app!(db, clock at START);
    let director = token(&db, "dora", Role::Director).await;
    let players = names("p", 18);
    let (tournament, statuses) = open_tournament(
        &app,
        &director,
        &players,
        json!({
            "name": "Seventeen", "rounds": 2, "deadlines": deadlines(2),
            "short_tables": "byes", "bye_points": 2, "capacity": 17,
        }),
    )
    .await;
    assert_eq!(statuses.last().map(String::as_str), Some("waiting"));
    // The lowest-ranked are the last two of the standings the round is seated from.
    let before = call(
        &app,
        get(&format!("/v1/tournaments/{tournament}/standings")),
    )
    .await
    .json();
    let ranked: Vec<&str> = before["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["player"].as_str().expect("player"))
        .collect();
    assert_eq!(ranked.len(), 17);
    let round = seat(&app, &director, &tournament).await;
    let tables = tables_of(&round);
    assert_eq!(tables.len(), 3);
    let byes = round["byes"].as_array().expect("byes");
    let bye_players: Vec<&str> = byes.iter().map(|b| b["player"].as_str().unwrap()).collect();
    let mut given = bye_players.clone();
    given.sort_unstable();
    let mut lowest = ranked[15..].to_vec();
    lowest.sort_unstable();
    assert_eq!(given, lowest, "byes for the lowest-ranked");
    assert_eq!(byes.len(), 2);
    assert!(byes.iter().all(|b| b["points"] == 2));
    // The director chose byes: the waiting list waits.
    assert_eq!(round["promoted"], json!([]));
    let explanation = round["explanation"].to_string();
    assert!(explanation.contains("bye"), "{explanation}");
    for player in &bye_players {
        assert!(explanation.contains(player), "{explanation}");
        assert!(tables.iter().flatten().all(|(_, p)| p != player));
    }
    // The byes score their points in the standings.
    let standings = call(
        &app,
        get(&format!("/v1/tournaments/{tournament}/standings")),
    )
    .await
    .json();
    let rows = standings["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 17);
    for row in rows {
        let has_bye = bye_players.contains(&row["player"].as_str().unwrap());
        assert_eq!(row["byes"], u32::from(has_bye), "{row}");
        if has_bye {
            assert_eq!(row["points_exact"], "2");
        }
    }
}

#[actix_web::test]
async fn bad_tournament_requests_name_what_is_wrong_and_append_nothing() {
    let db = TestDb::new().await;
    let (app, _clock) = app!(db, clock at START);
    let director = token(&db, "dora", Role::Director).await;
    let other = token(&db, "otto", Role::Director).await;
    let player = token(&db, "p01", Role::Player).await;
    register(&app, &director, &names("p", 2)).await;
    let good = json!({
        "name": "Spring", "rounds": 2, "deadlines": deadlines(2), "short_tables": "byes",
    });
    let streams_before = stream_count(&db).await;
    // A deadline that is no time is malformed; a setting that breaks a rule is refused.
    let rule = (StatusCode::UNPROCESSABLE_ENTITY, "tournament-rule");
    let malformed = (StatusCode::BAD_REQUEST, "malformed-request");
    for (change, field, (status, code)) in [
        (json!({"deadlines": deadlines(1)}), "deadlines", rule),
        (
            json!({"deadlines": ["soon", "later"]}),
            "deadlines[0]",
            malformed,
        ),
        (
            json!({"deadlines": ["2020-01-01T00:00:00Z", "2020-02-01T00:00:00Z"]}),
            "deadlines[0]",
            rule,
        ),
        (json!({"rounds": 0, "deadlines": []}), "rounds", rule),
        (
            json!({"points_per_place": [5, 3, 2]}),
            "points_per_place",
            rule,
        ),
        (
            json!({"points_per_place": [1, 3, 2, 0, 0]}),
            "points_per_place",
            rule,
        ),
        (
            json!({"tiebreakers": ["best_result", "total_points"]}),
            "tiebreakers",
            rule,
        ),
        (
            json!({"tiebreakers": ["total_points", "total_points"]}),
            "tiebreakers",
            rule,
        ),
        (json!({"table_size": 4}), "table_size", rule),
        (json!({"capacity": 3}), "capacity", rule),
        (
            json!({"late_entries_until_round": 3}),
            "late_entries_until_round",
            rule,
        ),
        (json!({"name": " "}), "name", rule),
        // Deadlines or a round's length in days, not both; a length of 1 to 365 days.
        (json!({"days_per_round": 14}), "days_per_round", malformed),
        (
            json!({"deadlines": null, "days_per_round": 0}),
            "days_per_round",
            rule,
        ),
        (
            json!({"deadlines": null, "days_per_round": 366}),
            "days_per_round",
            rule,
        ),
    ] {
        let mut body = good.clone();
        for (k, v) in change.as_object().unwrap() {
            body[k] = v.clone();
        }
        let reply = call(&app, post("/v1/tournaments", &director, &body)).await;
        assert_problem(&reply, status, code);
        let detail = reply.json()["detail"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(detail.contains(&format!("`{field}`")), "{field}: {detail}");
    }
    let unknown = call(
        &app,
        post("/v1/tournaments", &director, &json!({"name": "x", "rounds": 1, "deadlines": deadlines(1), "short_tables": "coin_toss"})),
    )
    .await;
    assert_problem(&unknown, StatusCode::BAD_REQUEST, "malformed-request");
    let forbidden = call(&app, post("/v1/tournaments", &player, &good)).await;
    assert_problem(&forbidden, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(stream_count(&db).await, streams_before);

    let tournament = create_tournament(&app, &director, good).await;
    let version = tournament_version(&app, &tournament).await;
    let path = format!("/v1/tournaments/{tournament}/entries");
    let unregistered = call(&app, post(&path, &director, &json!({"player": "nobody"}))).await;
    assert_problem(&unregistered, StatusCode::NOT_FOUND, "player-not-found");
    let bad_handle = call(
        &app,
        post(&path, &director, &json!({"player": "Not A Handle"})),
    )
    .await;
    assert_problem(&bad_handle, StatusCode::BAD_REQUEST, "malformed-request");
    let someone_else = call(&app, post(&path, &player, &json!({"player": "p02"}))).await;
    assert_problem(&someone_else, StatusCode::FORBIDDEN, "forbidden");
    let not_director = call(&app, post(&path, &other, &json!({"player": "p02"}))).await;
    assert_problem(&not_director, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(tournament_version(&app, &tournament).await, version);

    // A player enters itself; twice is refused.
    let own = call(&app, post(&path, &player, &json!({"player": "p01"}))).await;
    assert_eq!(own.status, StatusCode::OK, "{:?}", own.json());
    let twice = call(&app, post(&path, &director, &json!({"player": "p01"}))).await;
    assert_problem(&twice, StatusCode::UNPROCESSABLE_ENTITY, "tournament-rule");
    // Too few players to seat a table.
    let version = tournament_version(&app, &tournament).await;
    let rounds = format!("/v1/tournaments/{tournament}/rounds");
    let thin = call(&app, post(&rounds, &director, &json!({}))).await;
    assert_problem(&thin, StatusCode::UNPROCESSABLE_ENTITY, "tournament-rule");
    let by_other = call(&app, post(&rounds, &other, &json!({}))).await;
    assert_problem(&by_other, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(tournament_version(&app, &tournament).await, version);
    // Dropping: a player may drop itself.
    let dropped = call(
        &app,
        TestRequest::delete()
            .uri(&format!("/v1/tournaments/{tournament}/entries/p01"))
            .insert_header(("Authorization", format!("Bearer {player}"))),
    )
    .await;
    assert_eq!(dropped.status, StatusCode::OK, "{:?}", dropped.json());
    assert_eq!(dropped.json()["status"], "dropped");

    // Substitutes and the end: refused without a change.
    let version = tournament_version(&app, &tournament).await;
    let not_ours = substitute(&app, &director, &tournament, "0190a0a0a0a0a0a0").await;
    assert_problem(
        &not_ours,
        StatusCode::UNPROCESSABLE_ENTITY,
        "tournament-rule",
    );
    assert!(not_ours.json()["detail"]
        .as_str()
        .is_some_and(|d| d.contains("not-a-tournament-game")));
    let extra_field = call(
        &app,
        post(
            &format!("/v1/tournaments/{tournament}/substitutions"),
            &director,
            &json!({"game_id": "x", "power": "russia"}),
        ),
    )
    .await;
    assert_problem(&extra_field, StatusCode::BAD_REQUEST, "malformed-request");
    let early_end = call(
        &app,
        post(
            &format!("/v1/tournaments/{tournament}/finish"),
            &director,
            &json!({}),
        ),
    )
    .await;
    assert_problem(
        &early_end,
        StatusCode::UNPROCESSABLE_ENTITY,
        "tournament-rule",
    );
    assert_eq!(tournament_version(&app, &tournament).await, version);

    let missing = call(
        &app,
        get("/v1/tournaments/0190a0a0a0a0a0a0a0a0a0a0a0a0a0a0"),
    )
    .await;
    assert_problem(&missing, StatusCode::NOT_FOUND, "tournament-not-found");
    let missing_round = call(&app, get(&format!("/v1/tournaments/{tournament}/rounds/1"))).await;
    assert_problem(
        &missing_round,
        StatusCode::NOT_FOUND,
        "tournament-not-found",
    );
}

/// A role that may not create a game or a tournament is refused before anything it named is
/// read: it learns nothing of which rulesets or tournaments exist, and nothing is appended.
#[actix_web::test]
async fn a_role_that_may_not_create_is_refused_before_what_it_names_is_read() {
    let db = TestDb::new().await;
    let (app, _clock) = app!(db, clock at START);
    let player = token(&db, "p01", Role::Player).await;
    let streams_before = stream_count(&db).await;
    let game = call(
        &app,
        post(
            "/v1/games",
            &player,
            &json!({"ruleset": "no-such-ruleset", "players": ["a", "b", "c", "d", "e"],
                    "tournament": "0190a0a0a0a0a0a0a0a0a0a0a0a0a0a0"}),
        ),
    )
    .await;
    assert_problem(&game, StatusCode::FORBIDDEN, "forbidden");
    let tournament = call(
        &app,
        post(
            "/v1/tournaments",
            &player,
            &json!({"name": "x", "rounds": 1, "ruleset": "no-such-ruleset"}),
        ),
    )
    .await;
    assert_problem(&tournament, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(stream_count(&db).await, streams_before, "nothing appended");
}

pub(crate) async fn stream_count(db: &TestDb) -> i64 {
    let client = db.pool.get().await.expect("connection");
    client
        .query_one("SELECT count(DISTINCT stream_id) FROM events", &[])
        .await
        .expect("count")
        .get(0)
}

#[actix_web::test]
async fn twenty_five_players_never_share_a_table_twice_nor_play_a_power_twice_in_three_rounds() {
    let db = TestDb::new().await;
    let (app, _clock) = app!(db, clock at START);
    let director = token(&db, "dora", Role::Director).await;
    let players = names("p", 25);
    let (tournament, _) = open_tournament(
        &app,
        &director,
        &players,
        json!({"name": "Twenty-five", "rounds": 3, "deadlines": deadlines(3), "short_tables": "byes"}),
    )
    .await;
    let mut rounds: Vec<Vec<Vec<(String, String)>>> = Vec::new();
    for _ in 0..3 {
        let round = seat(&app, &director, &tournament).await;
        // A seating without repeats exists for 25 players (five tables, three rounds).
        assert_eq!(round["repeated_table_mates"], 0, "{round}");
        assert_eq!(round["repeated_powers"], 0, "{round}");
        let tables = tables_of(&round);
        assert_eq!(repeats(&rounds, &tables), 0);
        rounds.push(tables);
        for game in game_ids(&round) {
            assert_eq!(
                act(&app, &director, &game, "end").await.status,
                StatusCode::OK
            );
        }
    }
    let mut powers: HashMap<&String, HashSet<&String>> = HashMap::new();
    for (power, player) in rounds.iter().flatten().flatten() {
        assert!(
            powers.entry(player).or_default().insert(power),
            "{player} twice at {power}"
        );
    }
    assert_eq!(powers.len(), 25);
}

/// The standings' ranks, in order.
fn ranks_of(standings: &Value) -> Vec<u64> {
    standings["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["rank"].as_u64().expect("a rank"))
        .collect()
}

#[actix_web::test]
async fn the_tie_break_draw_is_unknown_until_the_finish_reveals_it_and_the_auditor_checks_it() {
    // Given a one-round tournament of ten whose two tables end alike (Germany first,
    // Russia last, three sharing 2nd to 4th): players tied on everything but the draw,
    let db = TestDb::new().await;
    let (app, _clock) = app!(db, clock at START);
    let director = token(&db, "dora", Role::Director).await;
    let players = names("t", 10);
    let (tournament, _) = open_tournament(
        &app,
        &director,
        &players,
        json!({
            "name": "Tied Open",
            "rounds": 1,
            "deadlines": deadlines(1),
            "short_tables": "byes",
        }),
    )
    .await;
    let round = seat(&app, &director, &tournament).await;
    for game in game_ids(&round) {
        germany_takes_moscow(&app, &db, &director, &game).await;
    }
    // when the standings are read before the finish, then the ties are shown as ties: the
    // two Germanys share 1st, the six sharing places share 3rd, the two Russias 9th, and no
    // line is placed by a draw;
    let standings_path = format!("/v1/tournaments/{tournament}/standings");
    let before = call(&app, get(&standings_path)).await.json();
    assert_eq!(before["finished"], false);
    assert_eq!(
        ranks_of(&before),
        [1, 1, 3, 3, 3, 3, 3, 3, 9, 9],
        "{before}"
    );
    assert!(before["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .all(|r| r["decided_by"] != "the seeded draw"));
    // nor does anything public hold the means to draw it: the seed is not revealed and no
    // event of the tournament carries a finishing draw.
    let detail = call(&app, get(&format!("/v1/tournaments/{tournament}")))
        .await
        .json();
    assert!(detail["seed"].is_null(), "{detail}");
    let events = stream_export(&app, &format!("tournament-{tournament}")).await;
    assert!(events
        .iter()
        .all(|e| e.event_type.as_str() != "TournamentFinished"));

    // When the director finishes, then the finish records the draw, taken with the seed it
    // reveals, and it separates every tie: the one drawn earlier ranks above.
    finish(&app, &director, &tournament).await;
    let after = call(&app, get(&standings_path)).await.json();
    assert_eq!(ranks_of(&after), (1..=10).collect::<Vec<u64>>(), "{after}");
    let (tournament_events, games) = exports(&app, &tournament, &[round]).await;
    let finished_at = tournament_events
        .iter()
        .position(|e| e.event_type.as_str() == "TournamentFinished")
        .expect("the finish");
    let draw: Vec<String> = tournament_events[finished_at].payload["draw"]
        .as_array()
        .expect("the finish's draw")
        .iter()
        .map(|p| p.as_str().expect("a player").to_owned())
        .collect();
    let mut drawn = draw.clone();
    drawn.sort();
    assert_eq!(drawn, players);
    let rows = after["rows"].as_array().expect("rows");
    let drawn_at = |row: &Value| draw.iter().position(|p| row["player"] == json!(p));
    for pair in rows.windows(2) {
        if pair[1]["decided_by"] == "the seeded draw" {
            assert!(drawn_at(&pair[0]) < drawn_at(&pair[1]), "{after}");
        }
    }
    let by_draw = rows
        .iter()
        .filter(|r| r["decided_by"] == "the seeded draw")
        .count();
    assert_eq!(by_draw, 1 + 5 + 1, "{after}");
    // and the auditor draws it again from the revealed seed: it passes, and a forged draw
    // (two players exchanged, the chain recomputed) is named at the finish.
    passes_the_tournament_audit(&tournament_events, &games, 1);
    let mut forged = tournament_events.clone();
    let forged_draw = &mut forged[finished_at].payload["draw"];
    let first = forged_draw[0].clone();
    forged_draw[0] = forged_draw[1].clone();
    forged_draw[1] = first;
    relink(&mut forged);
    names_the_forgery(&forged, &games, finished_at, "its draw is");
}

/// The number of events in a game's stream.
async fn game_version<B: MessageBody>(app: &impl TestApp<B>, game: &str) -> u64 {
    call(app, get(&format!("/v1/games/{game}"))).await.json()["version"]
        .as_u64()
        .expect("a version")
}

#[actix_web::test]
async fn a_player_dropped_while_seated_cannot_come_back_as_a_substitute_in_her_own_game() {
    let db = TestDb::new().await;
    let (app, clock) = app!(db, clock at START);
    let director = token(&db, "dora", Role::Director).await;
    let lee = token(&db, "lee", Role::Player).await;
    let players: Vec<String> = ["lee", "pat", "ann", "bob", "cy"]
        .iter()
        .map(|p| (*p).to_owned())
        .collect();
    // Given a table of five in a running round, lee at one of its powers,
    let (tournament, _) = open_tournament(
        &app,
        &director,
        &players,
        json!({"name": "Seats", "rounds": 2, "deadlines": deadlines(2), "short_tables": "byes", "capacity": 5}),
    )
    .await;
    let round = seat(&app, &director, &tournament).await;
    let game = game_ids(&round)[0].clone();
    let lees_power = tables_of(&round)[0]
        .iter()
        .find(|(_, p)| p == "lee")
        .map(|(power, _)| power.clone())
        .expect("lee is seated");
    // when lee drops herself while seated,
    let dropped = call(
        &app,
        TestRequest::delete()
            .uri(&format!("/v1/tournaments/{tournament}/entries/lee"))
            .insert_header(("Authorization", format!("Bearer {lee}"))),
    )
    .await;
    assert_eq!(dropped.status, StatusCode::OK, "{:?}", dropped.json());
    let version = tournament_version(&app, &tournament).await;
    let game_at = game_version(&app, &game).await;
    // then she may not enter again while her game runs (she would wait for a seat in it),
    let again = call(
        &app,
        post(
            &format!("/v1/tournaments/{tournament}/entries"),
            &lee,
            &json!({"player": "lee"}),
        ),
    )
    .await;
    assert_problem(&again, StatusCode::UNPROCESSABLE_ENTITY, "tournament-rule");
    let detail = again.json()["detail"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(detail.contains("seated-this-round"), "{detail}");
    // and when the first power to act is idle for three days, the director may not give
    // its seat to lee: she holds one in that game already.
    clock.advance(time::Duration::hours(73));
    let offers = call(&app, get(&format!("/v1/tournaments/{tournament}/inactive")))
        .await
        .json();
    assert!(
        offers
            .as_array()
            .expect("offers")
            .iter()
            .all(|o| o["offered_to"] != "lee"),
        "{offers}"
    );
    let to_lee = call(
        &app,
        post(
            &format!("/v1/tournaments/{tournament}/substitutions"),
            &director,
            &json!({"game_id": game, "substitute": "lee"}),
        ),
    )
    .await;
    assert_problem(&to_lee, StatusCode::UNPROCESSABLE_ENTITY, "tournament-rule");
    // Nothing was appended, and lee holds one seat: her own.
    assert_eq!(tournament_version(&app, &tournament).await, version);
    assert_eq!(game_version(&app, &game).await, game_at);
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    let held: Vec<&Value> = view["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .filter(|s| s["player"] == "lee")
        .collect();
    assert_eq!(held.len(), 1, "{view}");
    assert_eq!(held[0]["power"], json!(lees_power));
}

#[actix_web::test]
async fn a_player_who_goes_idle_keeps_the_seats_losing_result_and_the_substitute_takes_none_of_it()
{
    let db = TestDb::new().await;
    let (app, clock) = app!(db, clock at START);
    let director = token(&db, "dora", Role::Director).await;
    let players: Vec<String> = ["ann", "bob", "cy", "di", "ed", "kim"]
        .iter()
        .map(|p| (*p).to_owned())
        .collect();
    // Given a table of five with kim waiting,
    let (tournament, statuses) = open_tournament(
        &app,
        &director,
        &players,
        json!({"name": "Idle", "rounds": 1, "deadlines": deadlines(1), "short_tables": "byes",
               "capacity": 5}),
    )
    .await;
    assert_eq!(statuses.last().map(String::as_str), Some("waiting"));
    let round = seat(&app, &director, &tournament).await;
    let game = game_ids(&round)[0].clone();
    let idle = tables_of(&round)[0]
        .iter()
        .find(|(power, _)| power == "russia")
        .map(|(_, p)| p.clone())
        .expect("Russia's player");
    // when Russia's player plays round 1 (Russia's army leaves Moscow) and goes idle, kim
    // takes the seat after three days, Germany takes Moscow in round 2,
    pass_until(&app, &director, &game, 1, "russia", "NonCombatMove").await;
    let idle_token = token(&db, &idle, Role::Player).await;
    order(&app, &idle_token, &game, "russia", json!([
        {"type": "move", "units": {"INF": 6, "ARM": 2, "FTR": 2}, "path": ["Russia", "Caucasus"]},
        {"type": "move", "units": {"INF": 3, "ARM": 1, "FTR": 1}, "path": ["Karelia", "Caucasus"]},
    ]))
    .await;
    pass_until(&app, &director, &game, 2, "russia", "Repairs").await;
    clock.advance(time::Duration::hours(73));
    let appointed = substitute(&app, &director, &tournament, &game).await;
    assert_eq!(
        appointed.status,
        StatusCode::CREATED,
        "{:?}",
        appointed.json()
    );
    assert_eq!(appointed.json()["substitute"], "kim");
    german_armour_takes(
        &app,
        &director,
        &game,
        2,
        &["East Europe", "Karelia", "Russia"],
    )
    .await;
    crate::games::each_player_gives_an_order(&app, &db, &game).await;
    let ended = act(&app, &director, &game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    // and the game ends with Russia last, kim having played one turn of it, not the two
    // rounds that make a seat the substitute's,

    // then the idle player takes Russia's last place, and kim nothing she did not play
    // for: the idle player does not rank above kim for quitting.
    let standings = call(
        &app,
        get(&format!("/v1/tournaments/{tournament}/standings")),
    )
    .await
    .json();
    let row = |who: &str| {
        standings["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .find(|r| r["player"] == who)
            .cloned()
            .unwrap_or_else(|| panic!("{who} in {standings}"))
    };
    let (idle_row, kim_row) = (row(&idle), row("kim"));
    assert_eq!(idle_row["points"], json!(-2.0), "{idle_row}");
    assert_eq!(idle_row["games"], 1, "{idle_row}");
    assert_eq!(kim_row["points"], json!(0.0), "{kim_row}");
    assert_eq!(kim_row["games"], 0, "{kim_row}");
    assert!(
        kim_row["rank"].as_u64() < idle_row["rank"].as_u64(),
        "{standings}"
    );
    // The league's ladders follow the same rule: the idle player's -2, and no row for kim.
    crate::league::project_league(&db).await;
    let ladder = call(&app, get("/v1/leaderboards/points")).await.json();
    let rows = ladder["rows"].as_array().expect("rows");
    let on_ladder = |who: &str| rows.iter().find(|r| r["player"] == who).cloned();
    assert_eq!(
        on_ladder(&idle).map(|r| r["points_exact"].clone()),
        Some(json!("-2")),
        "{ladder}"
    );
    assert_eq!(on_ladder("kim"), None, "{ladder}");
    assert_eq!(rows.len(), 5, "{ladder}");
}

#[actix_web::test]
async fn a_tournament_without_a_short_tables_policy_fills_short_tables_from_its_waiting_list() {
    let db = TestDb::new().await;
    let app = app!(db);
    let director = token(&db, "dora", Role::Director).await;
    let id = create_tournament(
        &app,
        &director,
        json!({"name": "Spring", "rounds": 1, "deadlines": ["2099-01-01T00:00:00Z"]}),
    )
    .await;
    let view = call(&app, get(&format!("/v1/tournaments/{id}")))
        .await
        .json();
    assert_eq!(view["short_tables"], "waiting_list", "{view}");
}
