//! Proxies over HTTP (Cut-Throat, Rules for players: "Temporary proxies should be given to
//! trusted allies during planned absences"): a seated player names another registered
//! player, who orders the power until the stated time and not after; the game shows it,
//! and the export passes the audit.

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_store::games::GameSummaries;
use warlog_store::projector::Projector;
use warlog_store::StoreMetrics;
use warlog_tests::TestDb;

use crate::games::{act, create_game, export, offline_audit, send_orders, write_export};
use crate::kit::{app, assert_problem, call, get, post, token, Reply, TestApp};

/// 2027-01-15 08:00 UTC.
const START: i64 = 1_800_000_000;
const DAY: i64 = 24 * 60 * 60;

fn rfc3339(unix: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(unix)
        .expect("a time")
        .format(&time::format_description::well_known::Rfc3339)
        .expect("formatted")
}

/// `token`'s naming of `proxy` for `power` until `until` (RFC 3339, or anything).
async fn name<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    (game, power): (&str, &str),
    proxy: &str,
    until: &str,
) -> Reply {
    let body = json!({"power": power, "proxy": proxy, "until": until});
    call(
        app,
        post(&format!("/v1/games/{game}/proxies"), token, &body),
    )
    .await
}

/// `token`'s end of the proxy at `power`.
async fn end<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    (game, power): (&str, &str),
) -> Reply {
    let request = TestRequest::delete()
        .uri(&format!("/v1/games/{game}/proxies/{power}"))
        .insert_header(("Authorization", format!("Bearer {token}")));
    call(app, request).await
}

fn event_types(reply: &Reply) -> Vec<String> {
    reply.json()["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["event_type"].as_str().map(str::to_owned))
        .collect()
}

/// The entry of `list` (seats, play) for `power`.
fn of_power<'a>(list: &'a Value, power: &str) -> &'a Value {
    list.as_array()
        .and_then(|l| l.iter().find(|x| x["power"] == power))
        .expect("the power's entry")
}

#[actix_web::test]
async fn a_proxy_named_over_http_orders_the_power_until_the_stated_time_and_the_export_passes_the_audit(
) {
    // Given a game, the power to act's player and another of its players (an ally), who
    // is registered;
    let db = TestDb::new().await;
    let (app, clock) = app!(db, clock at START);
    let gm = token(&db, "alice", Role::Gm).await;
    let admin = token(&db, "root", Role::Admin).await;
    let game = create_game(&app, &gm).await;
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    let power = view["to_act"].as_str().expect("a power").to_owned();
    let player = of_power(&view["seats"], &power)["player"]
        .as_str()
        .expect("seated")
        .to_owned();
    let seats = view["seats"].as_array().expect("seats");
    let ally = seats
        .iter()
        .filter_map(|s| s["player"].as_str())
        .find(|p| *p != player)
        .expect("another player")
        .to_owned();
    let registered = call(&app, post("/v1/players", &admin, &json!({"handle": ally}))).await;
    assert_eq!(
        registered.status,
        StatusCode::CREATED,
        "{:?}",
        registered.json()
    );
    let player_token = token(&db, &player, Role::Player).await;
    let ally_token = token(&db, &ally, Role::Player).await;
    let until = rfc3339(START + 2 * DAY);
    let before = export(&app, &game).await.len();

    // when the names, times or senders are wrong, then each is refused by its code, with
    // nothing appended: a player nobody registered, a time that is no time, a player not
    // seated at the power, a proxy of more than 30 days;
    let at = (game.as_str(), power.as_str());
    let month_and_a_day = rfc3339(START + 31 * DAY);
    for (by, proxy, until, status, code) in [
        (
            &player_token,
            "nobody",
            until.as_str(),
            StatusCode::NOT_FOUND,
            "player-not-found",
        ),
        (
            &player_token,
            ally.as_str(),
            "next tuesday",
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            &ally_token,
            ally.as_str(),
            until.as_str(),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        (
            &player_token,
            ally.as_str(),
            month_and_a_day.as_str(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "rule-violation",
        ),
    ] {
        let refused = name(&app, by, at, proxy, until).await;
        assert_problem(&refused, status, code);
        if code == "rule-violation" {
            assert_eq!(
                refused.json()["violation"],
                "bad-proxy",
                "{:?}",
                refused.json()
            );
        }
    }
    assert_eq!(export(&app, &game).await.len(), before);

    // when the player names the ally proxy for two days, then the record and ProxyNamed
    // are appended and the game shows the proxy at the seat;
    let named = name(&app, &player_token, at, &ally, &until).await;
    assert_eq!(named.status, StatusCode::OK, "{:?}", named.json());
    assert_eq!(event_types(&named), ["OrdersGiven", "ProxyNamed"]);
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    let seat = of_power(&view["seats"], &power);
    assert_eq!(seat["player"], player.as_str(), "the seat is unchanged");
    assert_eq!(seat["proxy"]["player"], ally.as_str());
    assert_eq!(seat["proxy"]["until"], until.as_str());
    let now = call(&app, get(&format!("/v1/games/{game}/now")))
        .await
        .json();
    assert_eq!(now["proxy"]["player"], ally.as_str());
    let said =
        format!("{ally} may give these orders as {player}'s proxy until 2027-01-17 08:00 UTC.");
    assert!(
        now["in_words"]
            .as_array()
            .expect("sentences")
            .contains(&json!(said)),
        "{now}"
    );

    // when the ally orders the power, then the orders stand, counted as a proxy's;
    let ordered = send_orders(
        &app,
        &ally_token,
        &game,
        &power,
        &json!([{"type": "end_phase"}]),
    )
    .await;
    assert_eq!(ordered.status, StatusCode::OK, "{:?}", ordered.json());
    let record = &ordered.json()["events"][0];
    assert_eq!(record["event_type"], "OrdersGiven");
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    let play = of_power(&view["play"], &power);
    assert_eq!(
        (&play["orders_by_player"], &play["orders_by_proxy"]),
        (&json!(0), &json!(1)),
        "{play}"
    );
    // and the game page shows the proxy at the seat and the proxy's orders.
    let page = call(&app, get(&format!("/games/{game}"))).await.text();
    assert!(page.contains("Orders by a proxy"), "{page}");
    assert!(
        page.contains(&format!(
            "proxy: <a href=\"/players/{ally}\">{ally}</a> until"
        )),
        "{page}"
    );
    assert!(
        page.contains(&format!("{ally}, {player}&#39;s proxy"))
            || page.contains(&format!("{ally}, {player}'s proxy")),
        "{page}"
    );

    // When the stated time has passed, then the ally's orders are refused, saying why,
    clock.advance(time::Duration::seconds(2 * DAY));
    let late = send_orders(
        &app,
        &ally_token,
        &game,
        &power,
        &json!([{"type": "end_phase"}]),
    )
    .await;
    assert_problem(&late, StatusCode::FORBIDDEN, "forbidden");
    assert!(
        late.json()["detail"]
            .as_str()
            .is_some_and(|d| d.contains(&format!("{ally}'s proxy for {player} ended at"))),
        "{:?}",
        late.json()
    );
    // and there is none in force to end.
    let none = end(&app, &player_token, at).await;
    assert_problem(&none, StatusCode::UNPROCESSABLE_ENTITY, "rule-violation");
    let not_a_power = end(&app, &player_token, (&game, "atlantis")).await;
    assert_problem(&not_a_power, StatusCode::BAD_REQUEST, "malformed-request");

    // When the master names the ally again and the ally steps down, then ProxyEnded is
    // appended and the seat shows no proxy.
    let again = name(&app, &gm, at, &ally, &rfc3339(START + 3 * DAY)).await;
    assert_eq!(again.status, StatusCode::OK, "{:?}", again.json());
    let ended = end(&app, &ally_token, at).await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    assert_eq!(event_types(&ended), ["OrdersGiven", "ProxyEnded"]);
    let view = call(&app, get(&format!("/v1/games/{game}"))).await.json();
    assert!(of_power(&view["seats"], &power).get("proxy").is_none());

    // The games index counts the proxy's orders apart too.
    let projector = Projector::new(db.pool.clone(), GameSummaries, StoreMetrics::unregistered());
    let counted = warlog_tests::eventually(
        "the proxy's orders listed",
        std::time::Duration::from_secs(60),
        || async {
            projector.catch_up().await.expect("projected");
            let listed = call(&app, get(&format!("/v1/games?player={player}")))
                .await
                .json();
            let orders = listed["games"][0]["orders"][power.as_str()].clone();
            (!orders.is_null()).then_some(orders)
        },
    )
    .await;
    assert_eq!(
        counted,
        json!({"by_player": 0, "by_game_master": 0, "by_proxy": 1})
    );

    // The export, the game ended (and its seed revealed), passes the offline audit.
    assert_eq!(act(&app, &gm, &game, "end").await.status, StatusCode::OK);
    let events = export(&app, &game).await;
    let report = offline_audit(&write_export(&events), None);
    assert_eq!(
        report.outcome,
        warlog_events::audit::Outcome::Passed,
        "{}",
        report.render()
    );
}
