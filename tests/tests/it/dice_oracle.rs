//! Issue 39: no dice oracle. A refused batch must never tell a player how a battle, a raid
//! or a war loan would have gone: once an order of a batch rolls dice, the orders before a
//! refused one stand with their dice, and only the refused order (with those after it) is
//! cut off; a refusal that comes before any die refuses the whole batch.
//!
//! The server draws each game's seed, so these tests cannot choose the dice: each holds for
//! every outcome, and checks that the answer agrees with the dice on the record.

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_events::audit::Outcome;
use warlog_tests::TestDb;

use crate::games::{
    act, create_game, export, german_armour_takes, given_a_game, offline_audit, order, pass_until,
    send_orders, write_export,
};
use crate::kit::{app, assert_problem, call, get, post, token, Reply, TestApp};
use crate::rulesets::units_in;

async fn version<B: MessageBody>(app: &impl TestApp<B>, game: &str) -> u64 {
    call(app, get(&format!("/v1/games/{game}"))).await.json()["version"]
        .as_u64()
        .expect("a version")
}

async fn board<B: MessageBody>(app: &impl TestApp<B>, game: &str) -> Value {
    let reply = call(app, get(&format!("/v1/games/{game}/board"))).await;
    assert_eq!(reply.status, StatusCode::OK);
    reply.json()
}

/// A power's row of the board's `powers`.
fn power<'a>(board: &'a Value, power: &str) -> &'a Value {
    board["powers"]
        .as_array()
        .and_then(|p| p.iter().find(|x| x["power"] == power))
        .unwrap_or_else(|| panic!("{power} on the board: {board}"))
}

fn treasury(board: &Value, of: &str) -> u64 {
    power(board, of)["treasury"].as_u64().expect("a treasury")
}

fn events(answer: &Value) -> &[Value] {
    answer["events"].as_array().map_or(&[], Vec::as_slice)
}

/// The answer's events of one type.
fn of_type<'a>(answer: &'a Value, event_type: &str) -> Vec<&'a Value> {
    events(answer)
        .iter()
        .filter(|e| e["event_type"] == event_type)
        .collect()
}

/// A list the record may leave out when it is empty.
fn list_or_empty(value: &Value) -> Vec<Value> {
    value.as_array().cloned().unwrap_or_default()
}

/// What every answer to a batch says, cut off or not: the record first, the orders carried
/// out on it, the version after the last event, and, when cut off, the refused order and
/// those after it on the record and in `refused`.
fn assert_answer(answer: &Value, sent: &Value, cut_at: Option<usize>, rolled_by: usize) {
    let sent = sent.as_array().expect("orders");
    let appended = events(answer);
    assert!(!appended.is_empty(), "{answer}");
    let record = &appended[0];
    assert_eq!(record["event_type"], "OrdersGiven", "{answer}");
    let versions: Vec<u64> = appended
        .iter()
        .filter_map(|e| e["stream_version"].as_u64())
        .collect();
    assert_eq!(versions.len(), appended.len(), "{answer}");
    assert!(
        versions.windows(2).all(|w| w[1] == w[0] + 1),
        "one append, in order: {versions:?}"
    );
    assert_eq!(
        answer["version"].as_u64(),
        versions.last().copied(),
        "{answer}"
    );
    let command = &record["payload"]["command"];
    match cut_at {
        None => {
            assert!(answer.get("refused").is_none(), "{answer}");
            assert_eq!(command["orders"], Value::Array(sent.clone()), "{answer}");
            assert!(
                record["payload"].get("cut_off").is_none_or(Value::is_null),
                "{answer}"
            );
        }
        Some(k) => {
            let refused = &answer["refused"];
            assert_eq!(refused["index"], k, "{answer}");
            assert_eq!(refused["rolled_by"], rolled_by, "{answer}");
            assert_eq!(refused["not_decided"], sent.len() - k - 1, "{answer}");
            let detail = refused["detail"].as_str().expect("a detail");
            assert!(detail.starts_with(&format!("orders[{k}]")), "{answer}");
            assert!(
                refused["code"].as_str().is_some_and(|c| !c.is_empty()),
                "{answer}"
            );
            assert!(
                refused["rule"].as_str().is_some_and(|r| !r.is_empty()),
                "{answer}"
            );
            // On the record: the orders carried out, then the one cut off and the rest.
            assert_eq!(
                command["orders"],
                Value::Array(sent[..k].to_vec()),
                "{answer}"
            );
            let cut = &record["payload"]["cut_off"];
            assert_eq!(cut["order"], sent[k], "{answer}");
            assert_eq!(
                list_or_empty(&cut["not_decided"]),
                sent[k + 1..],
                "{answer}"
            );
            assert_eq!(cut["code"], refused["code"], "{answer}");
            assert_eq!(cut["rule"], refused["rule"], "{answer}");
            let message = cut["message"].as_str().expect("a message");
            assert!(
                !message.is_empty() && detail.contains(message),
                "the detail says the recorded message in words: {answer}"
            );
        }
    }
}

/// The game's version and its export agree with the answer: the answer's last event is the
/// game's last, and every event it names is on the record as answered.
async fn assert_on_the_record<B: MessageBody>(app: &impl TestApp<B>, game: &str, answer: &Value) {
    let at = answer["version"].as_u64().expect("a version");
    assert_eq!(
        version(app, game).await,
        at,
        "the game is where the answer says"
    );
    let record = export(app, game).await;
    assert_eq!(
        record.last().map(|e| e.stream_version),
        Some(at),
        "nothing appended beyond the answer"
    );
    for event in events(answer) {
        let v = event["stream_version"].as_u64().expect("a version");
        let kept = record
            .iter()
            .find(|e| e.stream_version == v)
            .expect("on the record");
        assert_eq!(kept.event_type.as_str(), event["event_type"], "{event}");
        assert_eq!(kept.payload, event["payload"], "{event}");
    }
    for battle in answer["battles"].as_array().map_or(&[][..], Vec::as_slice) {
        let v = battle["version"].as_u64().expect("a version");
        assert!(
            events(answer).iter().any(|e| e["stream_version"] == v),
            "the battle's event is among the answer's: {battle}"
        );
    }
}

/// A refusal before any die: the whole batch refused, in problem+json, with nothing
/// appended and the board unchanged.
async fn assert_refused_whole<B: MessageBody>(
    app: &impl TestApp<B>,
    gm: &str,
    game: &str,
    who: &str,
    orders: &Value,
    at: usize,
) -> Reply {
    let before = (version(app, game).await, board(app, game).await);
    let length = export(app, game).await.len();
    let reply = send_orders(app, gm, game, who, orders).await;
    assert_problem(&reply, StatusCode::UNPROCESSABLE_ENTITY, "rule-violation");
    let problem = reply.json();
    assert!(problem.get("refused").is_none(), "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with(&format!("orders[{at}]:"))),
        "{problem}"
    );
    assert_eq!(
        (version(app, game).await, board(app, game).await),
        before,
        "nothing appended"
    );
    assert_eq!(export(app, game).await.len(), length);
    reply
}

/// The game's end, and the offline audit of its export before and after the reveal: the
/// auditor accepts a record with cut-off batches.
async fn end_and_audit<B: MessageBody>(app: &impl TestApp<B>, gm: &str, game: &str) {
    let running = write_export(&export(app, game).await);
    let report = offline_audit(&running, None);
    assert!(report.passed(), "{}", report.render());
    let ended = act(app, gm, game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    let over = write_export(&export(app, game).await);
    let report = offline_audit(&over, None);
    assert!(report.passed(), "{}", report.render());
    assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
    let seed = call(app, get(&format!("/v1/games/{game}"))).await.json()["seed"]
        .as_str()
        .expect("revealed")
        .to_owned();
    let report = offline_audit(&over, Some(&seed));
    assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
    let audit = call(app, get(&format!("/v1/games/{game}/audit")))
        .await
        .json();
    assert_eq!(audit["outcome"], "passed", "{audit}");
    for path in [running, over] {
        let _ = std::fs::remove_file(path);
    }
}

/// The probe: a German armour attacks Karelia, the battle is fought, and the last
/// order moves infantry in as a non-combat move, which is legal only if Karelia was taken.
fn probe() -> Value {
    json!([
        {"type": "move", "units": {"ARM": 1}, "path": ["East Europe", "Karelia S.S.R."]},
        {"type": "end_phase"},
        {"type": "fight_battle", "territory": "Karelia S.S.R."},
        {"type": "end_phase"},
        {"type": "move", "units": {"INF": 1}, "path": ["East Europe", "Karelia S.S.R."]},
    ])
}

/// The one battle of an answer, checked against its recorded event: its dice and whether
/// the attacker took the place.
fn the_battle<'a>(answer: &'a Value, kind: &str, territory: &str) -> (&'a Value, &'a Value) {
    let battles = answer["battles"].as_array().expect("battles");
    assert_eq!(battles.len(), 1, "{answer}");
    let battle = &battles[0];
    assert_eq!(
        (battle["kind"].as_str(), battle["territory"].as_str()),
        (Some(kind), Some(territory)),
        "{answer}"
    );
    let event = events(answer)
        .iter()
        .find(|e| e["stream_version"] == battle["version"])
        .expect("the battle's event");
    (battle, event)
}

#[actix_web::test]
async fn the_probe_on_karelia_either_appends_the_battle_and_refuses_only_the_probing_move_or_takes_karelia(
) {
    let (_db, app, gm, game) = given_a_game!();
    pass_until(&app, &gm, &game, 2, "germany", "CombatMove").await;
    let start = board(&app, &game).await;
    assert_eq!(units_in(&start, "East Europe", "germany", "INF"), 3);
    assert!(
        units_in(&start, "Karelia S.S.R.", "russia", "INF") > 0,
        "Karelia is defended"
    );

    // The probing move before any die: the whole batch is refused, for a reason that holds
    // whatever the dice (a move in the battles phase).
    let early = json!([
        {"type": "move", "units": {"ARM": 1}, "path": ["East Europe", "Karelia S.S.R."]},
        {"type": "end_phase"},
        {"type": "move", "units": {"INF": 1}, "path": ["East Europe", "Karelia S.S.R."]},
        {"type": "fight_battle", "territory": "Karelia S.S.R."},
    ]);
    assert_refused_whole(&app, &gm, &game, "germany", &early, 2).await;

    // Bad input around the dice changes nothing either: a name the board does not know
    // after the battle is refused before any die (names are read first), and a client may
    // not write the record's cut-off itself.
    let length = export(&app, &game).await.len();
    let mut misnamed = probe();
    misnamed[4]["path"][1] = json!("Karelia SSRR");
    let unknown = send_orders(&app, &gm, &game, "germany", &misnamed).await;
    assert_problem(
        &unknown,
        StatusCode::UNPROCESSABLE_ENTITY,
        "unknown-territory",
    );
    assert!(
        unknown.json()["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("orders[4]") && d.contains("Karelia SSRR")),
        "{:?}",
        unknown.json()
    );
    let forged = call(
        &app,
        post(
            &format!("/v1/games/{game}/orders"),
            &gm,
            &json!({"power": "germany", "orders": probe(),
                    "cut_off": {"order": {"type": "end_phase"}, "code": "wrong-phase",
                                "rule": "", "message": ""}}),
        ),
    )
    .await;
    assert_problem(&forged, StatusCode::BAD_REQUEST, "malformed-request");
    assert!(
        forged.json()["detail"]
            .as_str()
            .is_some_and(|d| d.contains("cut_off")),
        "{:?}",
        forged.json()
    );
    assert_eq!(export(&app, &game).await.len(), length, "nothing appended");

    // The probe itself: the battle is fought and stands, whatever follows it.
    let sent = probe();
    let reply = send_orders(&app, &gm, &game, "germany", &sent).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
    let answer = reply.json();
    let (battle, fought) = the_battle(&answer, "battle", "Karelia S.S.R.");
    assert_eq!(fought["event_type"], "BattleFought", "{answer}");
    assert_eq!(fought["payload"]["dice"], battle["dice"], "{answer}");
    assert_eq!(
        fought["payload"]["captured"], battle["captured"],
        "{answer}"
    );
    let taken = battle["captured"].as_bool().expect("captured or not");
    let after = board(&app, &game).await;
    assert_eq!(
        units_in(&after, "Karelia S.S.R.", "germany", "ARM") > 0,
        taken,
        "the board agrees with the battle: {battle}"
    );
    // The dice decide the last order, and only it.
    let cut_at = (!taken).then_some(4);
    assert_answer(&answer, &sent, cut_at, 2);
    let moved_in = units_in(&after, "Karelia S.S.R.", "germany", "INF");
    if taken {
        assert_eq!(moved_in, 1, "the infantry moved in: {after}");
        assert_eq!(units_in(&after, "East Europe", "germany", "INF"), 2);
    } else {
        assert_eq!(moved_in, 0, "nothing of the refused order: {after}");
        assert_eq!(units_in(&after, "East Europe", "germany", "INF"), 3);
        let battle_at = battle["version"].as_u64().expect("a version");
        assert!(
            !events(&answer)
                .iter()
                .any(|e| e["event_type"] == "UnitsMoved"
                    && e["stream_version"].as_u64() > Some(battle_at)),
            "no move after the battle: {answer}"
        );
        assert_eq!(
            (after["phase"].as_str(), after["turn"].as_str()),
            (Some("NonCombatMove"), Some("germany")),
            "the batch stopped where the refused order stood"
        );
        // The order alone is refused now for the same rule, before any die.
        let alone = json!([sent[4]]);
        let problem = assert_refused_whole(&app, &gm, &game, "germany", &alone, 0)
            .await
            .json();
        assert_eq!(problem["violation"], answer["refused"]["code"], "{problem}");
        assert_eq!(problem["rule"], answer["refused"]["rule"], "{problem}");
    }
    assert_on_the_record(&app, &game, &answer).await;
    end_and_audit(&app, &gm, &game).await;
}

#[actix_web::test]
async fn a_bomber_flies_home_after_its_raid_only_if_it_survived_and_the_raid_stands_either_way() {
    let (_db, app, gm, game) = given_a_game!();
    pass_until(&app, &gm, &game, 2, "united-kingdom", "CombatMove").await;
    order(
        &app,
        &gm,
        &game,
        "united-kingdom",
        json!([
            {"type": "move", "units": {"BMB": 1},
             "path": ["United Kingdom", "North Sea Zone", "West Europe", "Germany"]},
            {"type": "end_phase"},
        ]),
    )
    .await;
    let home = ["Germany", "West Europe", "North Sea Zone", "United Kingdom"];
    let flight = json!({"type": "move", "units": {"BMB": 1}, "path": home});
    let raid = json!({"type": "fight_battle", "territory": "Germany", "bombing_raid": true});

    // The flight home before the raid: refused whole, before the AA gun fires.
    assert_refused_whole(
        &app,
        &gm,
        &game,
        "united-kingdom",
        &json!([flight, raid]),
        0,
    )
    .await;

    let before = board(&app, &game).await;
    let bombers_home = units_in(&before, "United Kingdom", "united-kingdom", "BMB");
    assert_eq!(units_in(&before, "Germany", "united-kingdom", "BMB"), 1);
    let sent = json!([raid, {"type": "end_phase"}, flight]);
    let reply = send_orders(&app, &gm, &game, "united-kingdom", &sent).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
    let answer = reply.json();
    let (battle, flown) = the_battle(&answer, "bombing-raid", "Germany");
    assert_eq!(flown["event_type"], "RaidFlown", "{answer}");
    let recorded = &flown["payload"]["raid"];
    let shot_down = recorded["shot_down"].as_u64().expect("shot down or not");
    let anti_aircraft = list_or_empty(&recorded["anti_aircraft"]);
    assert_eq!(
        anti_aircraft.iter().filter(|d| **d == json!(1)).count() as u64,
        shot_down,
        "a 1 shoots a bomber down: {recorded}"
    );
    assert_eq!(
        battle["dice"].as_array().map(Vec::len),
        Some(anti_aircraft.len() + list_or_empty(&recorded["damage_dice"]).len()),
        "{answer}"
    );
    let lost = recorded["ipc_lost"].as_u64().expect("IPC lost");
    let after = board(&app, &game).await;
    assert_eq!(
        treasury(&after, "germany"),
        treasury(&before, "germany") - lost,
        "the raid stands: {recorded}"
    );
    let survived = shot_down == 0;
    assert_answer(&answer, &sent, (!survived).then_some(2), 0);
    assert_eq!(units_in(&after, "Germany", "united-kingdom", "BMB"), 0);
    assert_eq!(
        units_in(&after, "United Kingdom", "united-kingdom", "BMB"),
        bombers_home + u64::from(survived),
        "home only if it survived: {recorded}"
    );
    assert_eq!(after["phase"], "NonCombatMove", "{after}");
    assert_on_the_record(&app, &game, &answer).await;
    end_and_audit(&app, &gm, &game).await;
}

/// Russia in round 4 as the scripted game plays it: its forces leave Russia and Karelia in
/// round 1, a German armour takes Moscow in round 2 and Kazakh in round 3, so Russia holds
/// half its starting IPC or less and may apply for a war loan.
async fn russia_in_need_of_a_loan<B: MessageBody>(app: &impl TestApp<B>, gm: &str, game: &str) {
    pass_until(app, gm, game, 1, "russia", "NonCombatMove").await;
    order(app, gm, game, "russia", json!([
        {"type": "move", "units": {"INF": 6, "ARM": 2, "FTR": 2}, "path": ["Russia", "Caucasus"]},
        {"type": "move", "units": {"INF": 3, "ARM": 1, "FTR": 1}, "path": ["Karelia", "Caucasus"]},
        {"type": "move", "units": {"INF": 1, "ARM": 1}, "path": ["Kazakh", "Novosibirsk"]},
    ]))
    .await;
    german_armour_takes(app, gm, game, 2, &["East Europe", "Karelia", "Russia"]).await;
    german_armour_takes(app, gm, game, 3, &["Russia", "Kazakh"]).await;
    pass_until(app, gm, game, 4, "russia", "Repairs").await;
}

/// A war loan's size by its die (Cut-Throat, War Loans).
fn loan_for(die: u64) -> u64 {
    match die {
        3 => 15,
        4 => 20,
        5 => 25,
        6 => 30,
        _ => 0,
    }
}

#[actix_web::test]
async fn a_purchase_that_needs_a_high_war_loan_is_refused_alone_after_a_low_one_and_the_loan_stands(
) {
    let (_db, app, gm, game) = given_a_game!();
    russia_in_need_of_a_loan(&app, &gm, &game).await;
    let before = board(&app, &game).await;
    let russia = power(&before, "russia");
    assert!(
        russia["ipc_count"].as_u64().unwrap_or(u64::MAX) * 2
            <= russia["starting_ipc"].as_u64().unwrap_or_default(),
        "a loan needs 50% or less: {russia}"
    );
    assert_eq!(russia["technologies"], json!([]), "infantry at 3 IPC");
    let held = treasury(&before, "russia");
    // More than Russia holds, within what it holds with a loan of 20 or more (a 4 to 6).
    let infantry = (held + 20) / 3;
    let cost = infantry * 3;
    assert!(cost > held && cost <= held + 20 && cost > held + 15);
    let purchase = json!({"type": "purchase", "units": {"INF": infantry}});

    // Without the loan, before any die: the whole batch is refused.
    let early = json!([{"type": "end_phase"}, {"type": "end_phase"}, purchase, {"type": "apply_for_war_loan"}]);
    let without = assert_refused_whole(&app, &gm, &game, "russia", &early, 2)
        .await
        .json();

    let sent = json!([
        {"type": "apply_for_war_loan"},
        {"type": "end_phase"},
        {"type": "end_phase"},
        purchase,
        {"type": "end_phase"},
    ]);
    let reply = send_orders(&app, &gm, &game, "russia", &sent).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.json());
    let answer = reply.json();
    let loans = of_type(&answer, "WarLoanApplied");
    assert_eq!(loans.len(), 1, "{answer}");
    assert_eq!(
        events(&answer)[1]["event_type"],
        "WarLoanApplied",
        "{answer}"
    );
    let die = loans[0]["payload"]["die"].as_u64().expect("a die");
    let granted = loans[0]["payload"]["granted"].as_u64().expect("granted");
    assert_eq!(granted, loan_for(die), "{answer}");
    let affordable = held + granted >= cost;
    assert_answer(&answer, &sent, (!affordable).then_some(3), 0);
    let after = board(&app, &game).await;
    if affordable {
        let bought = of_type(&answer, "UnitsPurchased");
        assert_eq!(bought.len(), 1, "{answer}");
        assert_eq!(bought[0]["payload"]["cost"], cost, "{answer}");
        assert_eq!(treasury(&after, "russia"), held + granted - cost, "{after}");
        assert_eq!(after["pending"]["INF"], infantry, "{after}");
        assert_eq!(after["phase"], "CombatMove", "{after}");
    } else {
        // Refused for the rule that refused it without the loan, and nothing after it.
        assert_eq!(answer["refused"]["code"], without["violation"], "{answer}");
        assert_eq!(answer["refused"]["rule"], without["rule"], "{answer}");
        assert!(of_type(&answer, "UnitsPurchased").is_empty(), "{answer}");
        assert_eq!(treasury(&after, "russia"), held + granted, "{after}");
        assert_eq!(after["pending"], json!({}), "{after}");
        assert_eq!(
            (after["phase"].as_str(), after["turn"].as_str()),
            (Some("Purchase"), Some("russia")),
            "{after}"
        );
    }
    assert_on_the_record(&app, &game, &answer).await;
    end_and_audit(&app, &gm, &game).await;
}

#[actix_web::test]
async fn a_cut_off_batch_sent_again_with_its_idempotency_key_gets_the_same_answer_and_appends_nothing(
) {
    let (_db, app, gm, game) = given_a_game!();
    pass_until(&app, &gm, &game, 2, "germany", "CombatMove").await;
    let uri = format!("/v1/games/{game}/orders");
    let sent = probe();
    let keyed = |orders: &Value| {
        post(&uri, &gm, &json!({"power": "germany", "orders": orders}))
            .insert_header(("Idempotency-Key", "germany-round-2-karelia"))
    };
    let first = call(&app, keyed(&sent)).await;
    assert_eq!(first.status, StatusCode::OK, "{:?}", first.json());
    assert_eq!(first.header("Idempotent-Replayed"), "");
    let answer = first.json();
    let (battle, _) = the_battle(&answer, "battle", "Karelia S.S.R.");
    // Whatever the dice: cut off exactly when Karelia held.
    let taken = battle["captured"].as_bool().expect("captured or not");
    assert_answer(&answer, &sent, (!taken).then_some(4), 2);
    let at = version(&app, &game).await;
    let length = export(&app, &game).await.len();

    let again = call(&app, keyed(&sent)).await;
    assert_eq!(again.status, first.status);
    assert_eq!(again.json(), answer, "the same answer, refusal and all");
    assert_eq!(again.header("Idempotent-Replayed"), "true");
    assert_eq!(version(&app, &game).await, at, "nothing appended");
    assert_eq!(export(&app, &game).await.len(), length);

    // The key answers that batch only: the batch without its last order is another request.
    let shorter = json!(sent.as_array().map(|o| o[..4].to_vec()));
    let other = call(&app, keyed(&shorter)).await;
    assert_problem(
        &other,
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency-key-reused",
    );
    assert_eq!(version(&app, &game).await, at, "nothing appended");
    assert_on_the_record(&app, &game, &answer).await;
    end_and_audit(&app, &gm, &game).await;
}
