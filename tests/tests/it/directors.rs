//! What tournament directors need (issue 23), over HTTP against real PostgreSQL: calendar
//! links that open, wins that mean a win, a director's hand on the seating (constraints
//! before it, a swap after it), with the reason on the record.

use actix_web::http::StatusCode;
use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_api::public_url::PublicUrl;
use warlog_api::{AppState, Clock, Telemetry};
use warlog_tests::TestDb;

use crate::games::{act, order, plays_the_first_round};
use crate::kit::{assert_problem, call, get, post, token, TestApp};
use crate::league::project_league;
use crate::tournaments::{
    deadlines, exports, finish, game_ids, germany_takes_moscow, names, names_the_forgery,
    open_tournament, passes_the_tournament_audit, round_seated_at, seat, tables_of, START,
};

/// The app at the tournaments' start time, with `public_url` if given.
macro_rules! director_app {
    ($db:expr, $public_url:expr) => {{
        let telemetry = Telemetry::new().expect("metrics");
        let mut state = AppState::without_notifier($db.pool.clone(), &telemetry);
        state.clock =
            Clock::fixed(time::OffsetDateTime::from_unix_timestamp(START).expect("a start"));
        state.public_url = $public_url;
        actix_web::test::init_service(warlog_api::app(state, &telemetry)).await
    }};
}

/// A two-round tournament of `n` players, p01 to pNN, all entered; its id.
async fn opened<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    director: &str,
    n: usize,
) -> String {
    let players = names("p", n);
    let (tournament, _) = open_tournament(
        app,
        director,
        &players,
        json!({"name": "Spring Open", "rounds": 2, "deadlines": deadlines(2), "short_tables": "byes"}),
    )
    .await;
    tournament
}

/// A tournament of `n` players with one round seated; its id and the round.
async fn seated<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    director: &str,
    n: usize,
) -> (String, Value) {
    let tournament = opened(app, director, n).await;
    let round = seat(app, director, &tournament).await;
    (tournament, round)
}

async fn calendar_of<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    tournament: &str,
) -> String {
    let ics = call(
        app,
        get(&format!("/v1/tournaments/{tournament}/calendar.ics")),
    )
    .await;
    assert_eq!(ics.status, StatusCode::OK);
    std::str::from_utf8(&ics.body)
        .expect("utf-8")
        .replace("\r\n ", "")
}

#[actix_web::test]
async fn with_a_public_url_calendar_events_link_to_their_games_and_without_one_they_carry_none() {
    let db = TestDb::new().await;
    let linked = director_app!(
        db,
        Some(PublicUrl::try_from("https://league.example/warlog/").expect("url"))
    );
    let bare = director_app!(db, None);
    let director = token(&db, "dora", Role::Director).await;
    let (tournament, round) = seated(&linked, &director, 10).await;
    let calendar = calendar_of(&linked, &tournament).await;
    for game in game_ids(&round) {
        assert!(
            calendar.contains(&format!(
                "URL:https://league.example/warlog/games/{game}\r\n"
            )),
            "{calendar}"
        );
    }
    // Without a public address there is no link, rather than a path no calendar can open.
    let calendar = calendar_of(&bare, &tournament).await;
    assert!(!calendar.contains("URL:"), "{calendar}");
    assert_eq!(calendar.matches("BEGIN:VEVENT").count(), 2 + 2);
}

/// A refusal with this status and code whose detail says `says`.
fn refused_saying(reply: &crate::kit::Reply, status: StatusCode, code: &str, says: &str) {
    assert_problem(reply, status, code);
    assert!(
        reply.json()["detail"]
            .as_str()
            .is_some_and(|d| d.contains(says)),
        "{says}: {:?}",
        reply.json()
    );
}

/// The row of `player` in a JSON list of rows.
fn row_of<'a>(rows: &'a Value, player: &str) -> &'a Value {
    rows.as_array()
        .and_then(|r| r.iter().find(|x| x["player"] == player))
        .unwrap_or_else(|| panic!("{player} in {rows}"))
}

#[actix_web::test]
async fn an_all_tied_game_is_no_ones_win_on_the_ladder_player_pages_csv_and_standings() {
    let db = TestDb::new().await;
    let app = director_app!(db, None);
    let director = token(&db, "dora", Role::Director).await;
    // Two tables: one ended after a quiet first round (all five tie), one won by Germany.
    let (tournament, round) = seated(&app, &director, 10).await;
    let games = game_ids(&round);
    plays_the_first_round(&app, &db, &games[0]).await;
    let ended = act(&app, &director, &games[0], "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    germany_takes_moscow(&app, &db, &director, &games[1]).await;
    project_league(&db).await;
    let tables = tables_of(&round);
    let tied = &tables[0][0].1;
    let german = &tables[1]
        .iter()
        .find(|(power, _)| power == "germany")
        .expect("Germany")
        .1;

    let ladder = call(&app, get("/v1/leaderboards/points")).await.json();
    assert_eq!(row_of(&ladder["rows"], tied)["wins"], json!(0.0));
    assert_eq!(row_of(&ladder["rows"], german)["wins"], json!(1.0));
    assert_eq!(row_of(&ladder["rows"], german)["wins_exact"], "1");
    let page = call(&app, get(&format!("/v1/players/{tied}"))).await.json();
    assert_eq!(page["standings"][0]["wins"], json!(0.0), "{page}");
    let standings = call(
        &app,
        get(&format!("/v1/tournaments/{tournament}/standings")),
    )
    .await
    .json();
    assert_eq!(row_of(&standings["rows"], tied)["wins"], json!(0.0));
    assert_eq!(row_of(&standings["rows"], german)["wins"], json!(1.0));
    let csv = call(
        &app,
        get("/v1/leaderboards/points").insert_header(("Accept", "text/csv")),
    )
    .await;
    let text = std::str::from_utf8(&csv.body).expect("utf-8");
    let line = text
        .lines()
        .find(|l| l.split(',').nth(1) == Some(tied.as_str()))
        .expect("the tied player's line");
    assert_eq!(line.split(',').nth(6), Some("0"), "{line}");
}

#[actix_web::test]
async fn an_aborted_tournament_game_gives_its_players_no_points_and_the_standings_say_so() {
    let db = TestDb::new().await;
    let app = director_app!(db, None);
    let director = token(&db, "dora", Role::Director).await;
    // Two tables: one ended before anyone moved (aborted), one won by Germany.
    let (tournament, round) = seated(&app, &director, 10).await;
    let games = game_ids(&round);
    let ended = act(&app, &director, &games[0], "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    germany_takes_moscow(&app, &db, &director, &games[1]).await;
    let tables = tables_of(&round);

    let standings = call(
        &app,
        get(&format!("/v1/tournaments/{tournament}/standings")),
    )
    .await
    .json();
    for (power, player) in &tables[0] {
        let row = row_of(&standings["rows"], player);
        assert_eq!(
            (&row["points_exact"], &row["games"]),
            (&json!("0"), &json!(0)),
            "{row}"
        );
        assert_eq!(
            row["results"],
            json!([{
                "round": 1, "game_id": games[0], "power": power, "place": null,
                "points": 0.0, "points_exact": "0", "percent_gain": 0.0,
                "percent_gain_exact": "0", "not_rated": "aborted"
            }]),
            "{row}"
        );
    }
    for (_, player) in &tables[1] {
        let row = row_of(&standings["rows"], player);
        assert_eq!(row["games"], 1, "{row}");
        assert!(row["results"][0].get("not_rated").is_none(), "{row}");
    }
    let page = call(&app, get(&format!("/tournaments/{tournament}"))).await;
    let html = std::str::from_utf8(&page.body).expect("utf-8");
    assert!(html.contains(" · aborted, not rated"), "{html}");
}

#[actix_web::test]
async fn a_keep_apart_constraint_holds_in_the_seating_and_the_explanation_names_its_cost() {
    let db = TestDb::new().await;
    let app = director_app!(db, None);
    let director = token(&db, "dora", Role::Director).await;
    let tournament = opened(&app, &director, 10).await;
    let rounds = format!("/v1/tournaments/{tournament}/rounds");
    // A constraint without a reason, or naming someone not entered, is refused and
    // nothing is seated.
    for (body, code, says) in [
        (
            json!({"keep_apart": [["p01", "p02"]]}),
            "tournament-rule",
            "reason",
        ),
        (
            json!({"keep_apart": [["p01", "zed"]], "reason": "r"}),
            "tournament-rule",
            "zed",
        ),
        (
            json!({"keep_apart": "p01"}),
            "malformed-request",
            "keep_apart",
        ),
    ] {
        let reply = call(&app, post(&rounds, &director, &body)).await;
        let status = if code == "malformed-request" {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::UNPROCESSABLE_ENTITY
        };
        refused_saying(&reply, status, code, says);
    }
    let detail = call(&app, get(&format!("/v1/tournaments/{tournament}")))
        .await
        .json();
    assert_eq!(detail["seated"], json!([]), "nothing seated");

    let reply = call(
        &app,
        post(
            &rounds,
            &director,
            &json!({"keep_apart": [["p01", "p02"], ["p03", "p04"]],
                    "fixed_tables": [{"player": "p05", "table": 2}],
                    "reason": "two households; p05 plays table 2's evenings"}),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.json());
    let round = reply.json();
    let table_of = |player: &str| {
        tables_of(&round)
            .iter()
            .position(|t| t.iter().any(|(_, who)| who == player))
            .expect("seated")
    };
    assert_ne!(table_of("p01"), table_of("p02"));
    assert_ne!(table_of("p03"), table_of("p04"));
    assert_eq!(table_of("p05"), 1, "table 2");
    let explanation = round["explanation"].to_string();
    assert!(
        explanation.contains("the director's constraints (two households"),
        "{explanation}"
    );
    assert!(
        explanation.contains("they cost no repeated table-mates"),
        "round 1 has no history: {explanation}"
    );
    assert_eq!(round["constraints"]["keep_apart"][0], json!(["p01", "p02"]));
    assert!(round["rules"]
        .as_str()
        .is_some_and(|r| r.contains("a pair's third meeting")));
}

#[actix_web::test]
async fn a_swap_before_the_round_begins_moves_both_seats_and_is_refused_once_a_game_has_an_order() {
    let db = TestDb::new().await;
    let app = director_app!(db, None);
    let director = token(&db, "dora", Role::Director).await;
    let (tournament, round) = seated(&app, &director, 10).await;
    let tables = tables_of(&round);
    let games = game_ids(&round);
    let (a_power, a) = tables[0][0].clone();
    let (b_power, b) = tables[1][1].clone();
    let swaps = format!("/v1/tournaments/{tournament}/swaps");
    // Two players at one table, or no reason: refused.
    for (body, says) in [
        (
            json!({"players": [a, tables[0][1].1], "reason": "r"}),
            "both sit at table 1",
        ),
        (json!({"players": [a, b], "reason": " "}), "reason"),
        (
            json!({"players": [a, "zed"], "reason": "r"}),
            "zed has no seat",
        ),
    ] {
        let reply = call(&app, post(&swaps, &director, &body)).await;
        refused_saying(
            &reply,
            StatusCode::UNPROCESSABLE_ENTITY,
            "tournament-rule",
            says,
        );
    }
    // Another tournament's director may neither swap, nor appoint a substitute, nor finish
    // here; the record stays as it was.
    let otto = token(&db, "otto", Role::Director).await;
    let before = call(&app, get(&format!("/v1/tournaments/{tournament}")))
        .await
        .json()["version"]
        .clone();
    for (path, body) in [
        (
            swaps.clone(),
            json!({"players": [a, b], "reason": "otto's say"}),
        ),
        (
            format!("/v1/tournaments/{tournament}/substitutions"),
            json!({"game_id": games[0]}),
        ),
        (format!("/v1/tournaments/{tournament}/finish"), json!({})),
    ] {
        let reply = call(&app, post(&path, &otto, &body)).await;
        refused_saying(
            &reply,
            StatusCode::FORBIDDEN,
            "forbidden",
            "otto may not direct this tournament",
        );
    }
    let after = call(&app, get(&format!("/v1/tournaments/{tournament}")))
        .await
        .json()["version"]
        .clone();
    assert_eq!(after, before, "nothing appended");
    let reply = call(
        &app,
        post(
            &swaps,
            &director,
            &json!({"players": [a, b], "reason": "a can only play table 2's evenings"}),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.json());
    let after = tables_of(&reply.json());
    assert_eq!(after[0][0], (a_power.clone(), b.clone()));
    assert_eq!(after[1][1], (b_power.clone(), a.clone()));
    assert_eq!(
        reply.json()["swaps"][0]["reason"],
        "a can only play table 2's evenings"
    );
    // The games' seats moved too, with the reason on each game's record.
    for (game, power, player) in [(&games[0], &a_power, &b), (&games[1], &b_power, &a)] {
        let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
        let seat = view["seats"]
            .as_array()
            .and_then(|s| s.iter().find(|x| &x["power"] == power))
            .expect("the seat");
        assert_eq!(&seat["player"], player, "{view}");
    }
    // Each game's audit decides the director's seat change again and finds it sound.
    for game in &games {
        let events = crate::games::export(&app, game).await;
        let report = warlog_events::audit::audit_game(&events, None, None);
        assert_ne!(
            report.outcome,
            warlog_events::audit::Outcome::Failed,
            "{}",
            report.render()
        );
    }
    // Once a game of the round has an order, the seats stand.
    order(
        &app,
        &director,
        &games[1],
        "russia",
        json!([{"type": "end_phase"}]),
    )
    .await;
    let reply = call(
        &app,
        post(
            &swaps,
            &director,
            &json!({"players": [a, b], "reason": "changed our minds"}),
        ),
    )
    .await;
    refused_saying(
        &reply,
        StatusCode::UNPROCESSABLE_ENTITY,
        "tournament-rule",
        "has an order",
    );
}

#[actix_web::test]
async fn a_swap_chain_that_would_exchange_two_powers_of_one_table_is_refused_with_nothing_appended()
{
    let db = TestDb::new().await;
    let app = director_app!(db, None);
    let director = token(&db, "dora", Role::Director).await;
    // bob and gil2 drawn to table 1, di to table 2 (the issue's names for the seats).
    let (tournament, round) = seated(&app, &director, 10).await;
    let tables = tables_of(&round);
    let (bob_power, bob) = tables[0][0].clone();
    let (gil2_power, gil2) = tables[0][1].clone();
    let (di_power, di) = tables[1][0].clone();
    let swaps = format!("/v1/tournaments/{tournament}/swaps");
    // gil2 and di change tables: allowed.
    let first = call(
        &app,
        post(
            &swaps,
            &director,
            &json!({"players": [gil2, di], "reason": "gil2 plays on weekdays only"}),
        ),
    )
    .await;
    assert_eq!(first.status, StatusCode::CREATED, "{:?}", first.json());
    let version = format!("/v1/tournaments/{tournament}");
    let before = call(&app, get(&version)).await.json()["version"].clone();
    // gil2 and bob next: gil2 would be back at table 1 with bob's power (and bob and di
    // would finish the exchange). Refused, naming the players, the table and the powers,
    // and nothing appended.
    let chain = call(
        &app,
        post(
            &swaps,
            &director,
            &json!({"players": [gil2, bob], "reason": "just because"}),
        ),
    )
    .await;
    let bob_power_name = power_name(&bob_power);
    let gil2_power_name = power_name(&gil2_power);
    refused_saying(
        &chain,
        StatusCode::UNPROCESSABLE_ENTITY,
        "tournament-rule",
        &format!(
            "swap-chain: swapping {gil2} and {bob} would seat {gil2} back at table 1 holding \
             {bob_power_name}, the power {bob} was drawn to, but {gil2} was drawn to \
             {gil2_power_name} at that table"
        ),
    );
    // The chain's last swap is between two players now at one table: refused too.
    let last = call(
        &app,
        post(
            &swaps,
            &director,
            &json!({"players": [bob, di], "reason": "r"}),
        ),
    )
    .await;
    refused_saying(
        &last,
        StatusCode::UNPROCESSABLE_ENTITY,
        "tournament-rule",
        "both sit at table 1",
    );
    let after = call(&app, get(&version)).await.json()["version"].clone();
    assert_eq!(after, before, "nothing appended");
    // The round shows each seat's player as drawn and as it now stands, with the reason.
    let shown = call(&app, get(&format!("/v1/tournaments/{tournament}/rounds/1")))
        .await
        .json();
    let seat = |table: usize, seat: usize| shown["tables"][table]["seats"][seat].clone();
    assert_eq!(seat(0, 1)["power"], json!(gil2_power));
    assert_eq!(seat(0, 1)["player"], json!(di));
    assert_eq!(seat(0, 1)["drawn_player"], json!(gil2));
    assert_eq!(seat(0, 1)["changes"][0]["kind"], "swap");
    assert_eq!(seat(0, 1)["changes"][0]["from"], json!(gil2));
    assert_eq!(seat(0, 1)["changes"][0]["to"], json!(di));
    assert_eq!(
        seat(0, 1)["changes"][0]["reason"],
        "gil2 plays on weekdays only"
    );
    assert_eq!(seat(1, 0)["power"], json!(di_power));
    assert_eq!(seat(1, 0)["drawn_player"], json!(di));
    assert_eq!(seat(1, 0)["player"], json!(gil2));
    assert_eq!(seat(0, 0)["drawn_player"], json!(bob));
    assert_eq!(seat(0, 0)["changes"], json!([]));
    let page = call(&app, get(&format!("/tournaments/{tournament}"))).await;
    let page = String::from_utf8_lossy(&page.body);
    for says in [
        format!("drawn: {gil2}; now: {di}"),
        format!("{di} took it from {gil2} by a swap: gil2 plays on weekdays only"),
        format!("drawn: {di}; now: {gil2}"),
    ] {
        assert!(page.contains(&says), "{says}: {page}");
    }
    // A forger who appends the refused swap to the record (the chain recomputed) is named
    // by the tournament's auditor, which decides every swap again.
    let (events, games) = exports(&app, &tournament, &[round]).await;
    let report = warlog_league::audit::audit_tournament(&events, &games, None);
    assert_ne!(
        report.outcome,
        warlog_events::audit::Outcome::Failed,
        "{}",
        report.render()
    );
    let mut forged = events.clone();
    let mut chained = events
        .iter()
        .find(|e| e.event_type.as_str() == "SeatsSwapped")
        .expect("the swap")
        .clone();
    chained.payload["players"] = json!([gil2, bob]);
    chained.stream_version = forged.len() as u64 + 1;
    chained.event_id = uuid::Uuid::new_v4();
    chained.position = forged.last().expect("events").position + 1;
    forged.push(chained);
    warlog_events::relink(&mut forged);
    let at = forged.len() - 1;
    names_the_forgery(
        &forged,
        &games,
        at,
        "no chain of swaps may exchange powers within a table",
    );
}

/// A power's name as people read it (`united-kingdom` reads `United Kingdom`).
fn power_name(power: &str) -> &'static str {
    serde_json::from_value::<warlog_rules::board::Power>(json!(power))
        .expect("a power")
        .name()
}

#[actix_web::test]
async fn the_tournament_audit_seats_constrained_rounds_again_and_accepts_the_directors_swap() {
    let db = TestDb::new().await;
    let app = director_app!(db, None);
    let director = token(&db, "dora", Role::Director).await;
    let tournament = opened(&app, &director, 10).await;
    let rounds_url = format!("/v1/tournaments/{tournament}/rounds");
    let constrained = json!({"keep_together": [["p01", "p02"]], "keep_apart": [["p03", "p04"]],
                             "reason": "carpool; one household"});
    let mut rounds = Vec::new();
    for round in 1..=2 {
        let reply = call(&app, post(&rounds_url, &director, &constrained)).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.json());
        let seated = reply.json();
        if round == 1 {
            let tables = tables_of(&seated);
            let swapped = call(
                &app,
                post(
                    &format!("/v1/tournaments/{tournament}/swaps"),
                    &director,
                    &json!({"players": [tables[0][4].1, tables[1][4].1], "reason": "late train"}),
                ),
            )
            .await;
            assert_eq!(swapped.status, StatusCode::CREATED, "{:?}", swapped.json());
        }
        for game in game_ids(&seated) {
            // Played after the swap: the game has begun by the time the auditor reads it.
            order(
                &app,
                &director,
                &game,
                "russia",
                json!([{"type": "end_phase"}]),
            )
            .await;
            let ended = act(&app, &director, &game, "end").await;
            assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
        }
        rounds.push(seated);
    }
    finish(&app, &director, &tournament).await;
    let (events, games) = exports(&app, &tournament, &rounds).await;
    passes_the_tournament_audit(&events, &games, 2);
    // Without the constraints on the record, the seed seats round 2 otherwise.
    let mut forged = events.clone();
    let at = round_seated_at(&forged, 2);
    forged[at]
        .payload
        .as_object_mut()
        .expect("an object")
        .remove("constraints");
    warlog_events::relink(&mut forged);
    let report = warlog_league::audit::audit_tournament(&forged, &games, None);
    assert!(
        report.findings.iter().any(|f| f.check == "seating"),
        "{}",
        report.render()
    );
    // A forger names two other players in the swap (each at a table of their own, so the
    // tournament's rules allow it) and recomputes the chain: the games' records gave the
    // seats to the players swapped, so the auditor names the swap.
    let at = events
        .iter()
        .position(|e| e.event_type.as_str() == "SeatsSwapped")
        .expect("the swap");
    let tables = tables_of(&rounds[0]);
    let mut forged = events.clone();
    forged[at].payload["players"] = json!([tables[0][3].1, tables[1][3].1]);
    warlog_events::relink(&mut forged);
    names_the_forgery(&forged, &games, at, "does not record");
    // Or gives the swap to a director of another tournament.
    let mut forged = events.clone();
    forged[at].metadata["actor"] = json!("director:otto");
    warlog_events::relink(&mut forged);
    names_the_forgery(&forged, &games, at, "otto may not direct this tournament");
    // Or moves a player to the table they already sit at: the rules refuse it.
    let mut forged = events.clone();
    forged[at].payload["players"] = json!([tables[0][3].1, tables[0][4].1]);
    warlog_events::relink(&mut forged);
    names_the_forgery(&forged, &games, at, "a swap is between two tables");
    // Or drops the swap from the tournament's record, keeping the seats it gave on the
    // games' (the events after it renumbered, the chain recomputed): the games' seat
    // changes are named, for no command of the tournament gives them.
    let mut forged = events.clone();
    forged.remove(at);
    for event in &mut forged[at..] {
        event.stream_version -= 1;
    }
    warlog_events::relink(&mut forged);
    let report = warlog_league::audit::audit_tournament(&forged, &games, None);
    assert_eq!(
        report.outcome,
        warlog_events::audit::Outcome::Failed,
        "{}",
        report.render()
    );
    for game in &game_ids(&rounds[0])[..2] {
        assert!(
            report.findings.iter().any(|f| f.check == "games"
                && f.event == events[round_seated_at(&events, 1)].stream_version
                && f.message.contains(game.as_str())
                && f.message.contains("taking")
                && f.message
                    .contains("which no command of the tournament gives")),
            "{game}: {}",
            report.render()
        );
    }
    // Without the swapped games' exports, the swap's records on them are not checked:
    // partial, naming them.
    let swapped: Vec<String> = game_ids(&rounds[0]);
    let others: Vec<_> = games
        .iter()
        .filter(|g| {
            !swapped
                .iter()
                .any(|id| g[0].stream_id.to_string() == format!("game-{id}"))
        })
        .cloned()
        .collect();
    let report = warlog_league::audit::audit_tournament(&events, &others, None);
    assert_eq!(
        report.outcome,
        warlog_events::audit::Outcome::Partial,
        "{}",
        report.render()
    );
    assert!(
        report
            .not_checked
            .iter()
            .any(|n| n.contains("record on game") && n.contains(swapped[0].as_str())),
        "{}",
        report.render()
    );
}
