//! The pages' words (issue 35, item 6) over real PostgreSQL: a tie written one way on every
//! page ("1=" on the game, the player, the standings and the skill ladder), places
//! labelled, dates in words with the machine's time beside them, counts with the right
//! noun, and the skill ladder's μ and σ under a subtitle of its own.

use actix_web::http::StatusCode;
use serde_json::json;
use warlog_api::auth::Role;
use warlog_tests::TestDb;

use crate::games::{act, plays_the_first_round};
use crate::kit::{app, call, get, token};
use crate::league::project_league;
use crate::tournaments::{game_ids, names, open_tournament, seat, tables_of, START};

/// The cells of a page's table column that hold `text` exactly.
fn cells(page: &str, text: &str) -> usize {
    page.matches(&format!("<td class=\"num\">{text}</td>"))
        .count()
}

#[actix_web::test]
async fn a_tie_is_written_one_way_on_every_page_and_times_and_counts_read_as_words() {
    let db = TestDb::new().await;
    let (app, _clock) = app!(db, clock at START);
    let director = token(&db, "dora", Role::Director).await;
    // Two tables of five: the first ends after a quiet first round, all five tied for 1st
    // (the other is still being played).
    let deadline = "2026-11-16T10:00:00Z";
    let (tournament, _) = open_tournament(
        &app,
        &director,
        &names("p", 10),
        json!({
            "name": "Tie Open",
            "rounds": 2,
            "deadlines": [deadline, "2026-11-30T10:00:00Z"],
            "short_tables": "byes",
        }),
    )
    .await;
    let round = seat(&app, &director, &tournament).await;
    let games = game_ids(&round);
    let tied_game = &games[0];
    plays_the_first_round(&app, &db, tied_game).await;
    let ended = act(&app, &director, tied_game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    project_league(&db).await;
    let tied = &tables_of(&round)[0][0].1;

    // The game: five sharing 1st.
    let game = call(&app, get(&format!("/games/{tied_game}"))).await.text();
    assert_eq!(cells(&game, "1="), 5, "{game}");

    // The skill ladder: the five tied newcomers have one rating and share a place; its
    // headers are μ and σ, under words of its own on what the rating means.
    let skill = call(&app, get("/?ladder=skill")).await.text();
    let shared: Vec<usize> = (1..=10)
        .map(|n| cells(&skill, &format!("{n}=")))
        .filter(|count| *count > 0)
        .collect();
    assert_eq!(shared, [5], "the five tied share a place: {skill}");
    assert!(skill.contains("<th class=\"num symbol\"><abbr"), "{skill}");
    assert!(
        skill.contains(">μ</abbr>") && skill.contains(">σ</abbr>"),
        "{skill}"
    );
    assert!(
        skill.contains("Ranked by the rating μ\u{a0}−\u{a0}3σ"),
        "{skill}"
    );
    assert!(
        !skill.contains("points 5, 3, 2"),
        "not the points ladder's words: {skill}"
    );

    // The player: the place shared, the places labelled, the end in words.
    let player = call(&app, get(&format!("/players/{tied}"))).await.text();
    assert_eq!(cells(&player, "1="), 1, "{player}");
    assert!(
        player.contains("1st 1 · 2nd 0 · 3rd 0 · 4th 0 · 5th 0"),
        "{player}"
    );
    assert!(player.contains("<time datetime=\"20"), "{player}");
    assert!(player.contains("After 1 rated game: μ\u{a0}"), "{player}");
    assert!(
        player.contains("Skill rating μ − 3σ after each game"),
        "{player}"
    );

    // The standings: the five share a rank before the finish's draw; the deadline in
    // words; the rounds counted.
    let standings = call(&app, get(&format!("/tournaments/{tournament}")))
        .await
        .text();
    let ranks: usize = (1..=10).map(|n| cells(&standings, &format!("{n}="))).sum();
    assert!(ranks >= 5, "the tied five share a rank: {standings}");
    assert!(
        standings.contains(&format!(
            "Deadline: <time datetime=\"{deadline}\">16 November 2026, 10:00 UTC</time>"
        )),
        "{standings}"
    );
    assert!(
        standings.contains("Tie Open") && standings.contains(" · 2 rounds · "),
        "{standings}"
    );
    assert!(
        !standings.contains("T10:00:00Z<"),
        "no raw time shown: {standings}"
    );
}
