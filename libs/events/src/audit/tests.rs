//! The auditor against forgeries: each applied to an honest export with the hash chain
//! recomputed afterwards (what anyone with write access to the database or the file can
//! do), and named with its version without a published head.

use super::*;
use crate::game::SeedRevealed;
use crate::sample::SampleGame;
use crate::{relink, Hash, StreamId};
use warlog_rules::document::{EnhancedRealism, GameOptions, RulesetDocument};
use warlog_rules::game::autoplay::random_order;
use warlog_rules::game::replay::order_behind;
use warlog_rules::game::{DirectorOrder, Moment};
use warlog_rules::ruleset::Ruleset;

const GAME: &str = "7";

fn seed() -> GameSeed {
    GameSeed::from_bytes([42; 32])
}

fn cutthroat() -> &'static Ruleset {
    Ruleset::builtin("cutthroat").expect("ruleset")
}

/// A game of `ruleset` played through the server's decision to `events` events, ended by
/// its game master (which reveals the seed), and recorded with a proper chain.
fn played(ruleset: &'static Ruleset, events: usize) -> Vec<RecordedEvent> {
    let mut game = SampleGame::new(ruleset, GAME, seed(), 3);
    game.play_until(events, 40 * events);
    assert!(game.end(), "the game master ends the game");
    game.recorded()
}

fn honest() -> Vec<RecordedEvent> {
    played(cutthroat(), 600)
}

pub(super) fn audit(events: &[RecordedEvent]) -> AuditReport {
    audit_game(events, None, None)
}

/// The forged log's report must name `check` at `version`.
pub(super) fn assert_names(events: &[RecordedEvent], check: &str, version: u64) {
    let report = audit(events);
    assert_eq!(report.outcome, Outcome::Failed, "{}", report.render());
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.check == check && f.event == version),
        "expected a {check} finding at event {version}:\n{}",
        report.render()
    );
}

fn position(events: &[RecordedEvent], event_type: &str) -> usize {
    events
        .iter()
        .position(|e| e.event_type.as_str() == event_type)
        .unwrap_or_else(|| panic!("the game has a {event_type}"))
}

/// Turns the first die of the first event with dice that `which` picks into another
/// number; that event's index.
fn change_first_die(events: &mut [RecordedEvent], which: impl Fn(&RecordedEvent) -> bool) -> usize {
    let i = events
        .iter()
        .position(|e| {
            which(e)
                && e.payload
                    .get("dice")
                    .is_some_and(|d| d.as_array().is_some_and(|a| !a.is_empty()))
        })
        .expect("an event with dice");
    let die = &mut events[i].payload["dice"][0];
    let old = die.as_u64().expect("a die");
    *die = serde_json::json!(old % 6 + 1);
    i
}

/// Versions and positions run 1, 2, 3 ... again after an insertion or a removal.
fn renumber(events: &mut [RecordedEvent]) {
    for (i, event) in events.iter_mut().enumerate() {
        event.stream_version = i as u64 + 1;
        event.position = i as i64 + 1;
    }
    relink(events);
}

#[test]
fn an_honest_cut_throat_game_passes_every_check_and_decides_every_command_again() {
    let events = honest();
    let report = audit(&events);
    assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
    assert_eq!(report.seed, SeedSource::Revealed);
    for check in &report.checks {
        assert_eq!(check.verdict, Verdict::Pass, "{}", report.render());
    }
    let commands = events
        .iter()
        .filter(|e| e.event_type.as_str() == "OrdersGiven")
        .count();
    assert_eq!(report.commands_decided, commands);
    assert!(commands > 50, "{commands} commands");
    assert_eq!(report.placements.as_ref().map(Vec::len), Some(5));
}

/// Enhanced Realism, all players tripled.
fn all_tripled() -> GameOptions {
    GameOptions {
        enhanced_realism: Some(EnhancedRealism {
            scenario: serde_json::from_value(serde_json::json!("all_tripled")).expect("scenario"),
            usa_phased_in: false,
        }),
        ..GameOptions::default()
    }
}

#[test]
fn honest_games_of_enhanced_realism_war_and_an_uploaded_aap_board_pass() {
    let options = all_tripled();
    let er = Ruleset::builtin_with("cutthroat", &options).expect("enhanced realism");
    let war = Ruleset::builtin("war").expect("war");
    for ruleset in [er, war, aap()] {
        let events = played(ruleset, 400);
        let report = audit(&events);
        assert_eq!(
            report.outcome,
            Outcome::Passed,
            "{}: {}",
            ruleset.id,
            report.render()
        );
        assert!(report.commands_decided > 20, "{}", report.render());
    }
}

/// Cut-Throat's revision 5 collects Enhanced Realism's income at the beginning of the
/// turn; a game created under revision 4 recorded that revision's hash, plays and audits
/// under it, and its income still comes at the end of each turn.
#[test]
fn an_enhanced_realism_game_of_cut_throat_revision_four_audits_under_revision_four() {
    let options = all_tripled();
    let revisions = RulesetDocument::builtin_revisions("cutthroat").expect("revisions");
    let hash = revisions[3].with_options(&options).expect("offered").hash();
    let earlier = Ruleset::builtin_revision("cutthroat", &options, &hash)
        .expect("built")
        .expect("revision 4 is kept");
    assert!(!earlier.economy.collected_at_turn_start);

    let events = played(earlier, 400);
    let report = audit(&events);

    assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
    assert!(report.commands_decided > 20, "{}", report.render());
    let created = &events[0].payload;
    assert_eq!(created["ruleset_hash"], serde_json::json!(hash));
    // Every collection closes a turn: the next phase ended is an income phase.
    let mut collections = 0;
    for (i, event) in events.iter().enumerate() {
        if event.event_type.as_str() == "IncomeCollected" {
            collections += 1;
            let next_phase_end = events[i..]
                .iter()
                .find(|e| e.event_type.as_str() == "PhaseEnded")
                .expect("the phase ends");
            assert_eq!(
                next_phase_end.payload["phase"], "Income",
                "{}",
                event.payload
            );
        }
    }
    assert!(collections > 0);
}

fn aap() -> &'static Ruleset {
    let fixture: serde_json::Value = serde_json::from_str(include_str!(
        "../../../../tests/fixtures/aap-test-board.json"
    ))
    .expect("fixture");
    let mut document = RulesetDocument::builtin("aap-historical").expect("aap");
    document.id = "aap-audit-test".into();
    document.board = Some(serde_json::from_value(fixture["board"].clone()).expect("board"));
    document.setup = serde_json::from_value(fixture["setup"].clone()).expect("setup");
    let board = document.board.clone().expect("a board");
    document.special_rules.keep_places_on(&board);
    Ruleset::uploaded(&document, &GameOptions::default()).expect("playable with a board")
}

#[test]
fn before_the_reveal_the_audit_is_partial_and_says_the_dice_were_not_checked() {
    let mut game = SampleGame::new(cutthroat(), GAME, seed(), 3);
    game.play_until(300, 12_000);
    let report = audit(&game.recorded());
    assert_eq!(report.outcome, Outcome::Partial, "{}", report.render());
    assert_eq!(
        report.check("dice").map(|c| c.verdict),
        Some(Verdict::Skipped)
    );
    assert_eq!(
        report.check("orders").map(|c| c.verdict),
        Some(Verdict::Pass)
    );
    assert!(
        report
            .not_checked
            .iter()
            .any(|n| n.contains("the seed is not revealed")),
        "{:?}",
        report.not_checked
    );
    assert!(report.render().contains("verdict: partial"));
}

#[test]
fn a_move_turned_into_a_capture_is_named() {
    let mut events = honest();
    let i = position(&events, "UnitsMoved");
    let path = events[i].payload["path"].clone();
    let to = path
        .as_array()
        .and_then(|p| p.last())
        .cloned()
        .expect("a path");
    events[i].payload["captured"] = serde_json::json!([to]);
    relink(&mut events);
    assert_names(&events, "orders", events[i].stream_version);
}

#[test]
fn a_changed_purchase_count_is_named() {
    let mut events = honest();
    let i = position(&events, "UnitsPurchased");
    let count = events[i].payload["units"][0][1].as_u64().expect("a count");
    events[i].payload["units"][0][1] = serde_json::json!(count + 1);
    relink(&mut events);
    assert_names(&events, "orders", events[i].stream_version);
    let report = audit(&events);
    let finding = &report.findings[0].message;
    assert!(
        finding.contains("UnitsPurchased is not what the orders"),
        "{finding}"
    );
    assert!(finding.contains("its units is"), "{finding}");
    // Units by their codes, not the stored ids.
    assert!(!finding.contains("[["), "{finding}");
}

#[test]
fn a_placement_where_the_rules_forbid_it_is_refused_even_with_its_order_changed() {
    let mut events = honest();
    let i = position(&events, "UnitsPlaced");
    // The forger moves the placement, in the event and in the order behind it, to a place
    // with no industrial complex.
    let nowhere = cutthroat()
        .board
        .id("East Europe")
        .expect("a place with no complex");
    events[i].payload["territory"] = serde_json::json!(nowhere.index());
    let record = (0..i)
        .rev()
        .find(|k| events[*k].event_type.as_str() == "OrdersGiven")
        .expect("the placement's record");
    for order in events[record].payload["command"]["orders"]
        .as_array_mut()
        .expect("orders")
    {
        if order["type"] == "place" {
            order["territory"] = serde_json::json!("East Europe");
        }
    }
    relink(&mut events);
    assert_names(&events, "orders", events[record].stream_version);
    let report = audit(&events);
    assert!(
        report.findings[0]
            .message
            .contains("the rules refuse the orders recorded here"),
        "{}",
        report.render()
    );
}

#[test]
fn an_events_changed_actor_is_named() {
    let mut events = honest();
    let i = position(&events, "UnitsPurchased");
    events[i].metadata["actor"] = serde_json::json!("player:mallory");
    relink(&mut events);
    assert_names(&events, "orders", events[i].stream_version);
    let report = audit(&events);
    assert!(
        report.findings[0]
            .message
            .contains("was written by player:mallory"),
        "{}",
        report.render()
    );
}

#[test]
fn an_order_given_for_another_players_power_is_named() {
    let mut events = honest();
    let i = position(&events, "OrdersGiven") + 2;
    let record = (i..events.len())
        .find(|k| {
            events[*k].event_type.as_str() == "OrdersGiven"
                && events[*k].payload["sender"]["role"] == "player"
        })
        .expect("a player's orders");
    events[record].payload["sender"]["name"] = serde_json::json!("mallory");
    let actor = events[record].metadata["actor"].clone();
    for event in &mut events[record..] {
        if event.metadata["actor"] == actor {
            event.metadata["actor"] = serde_json::json!("player:mallory");
        }
    }
    relink(&mut events);
    assert_names(&events, "orders", events[record].stream_version);
}

#[test]
fn an_inserted_event_is_named() {
    let mut events = honest();
    let i = position(&events, "IncomeCollected");
    let copy = events[i].clone();
    events.insert(i + 1, copy);
    renumber(&mut events);
    assert_names(&events, "orders", i as u64 + 2);
    // Every later record now names a version one short: said once, where it starts.
    let report = audit(&events);
    let shifted = report
        .findings
        .iter()
        .filter(|f| f.message.contains("an event was inserted before them"))
        .count();
    assert_eq!(shifted, 1, "{}", report.render());
    // And the later records, decided on the versions they follow, are not named for it.
    assert!(
        report
            .findings
            .iter()
            .all(|f| !f.message.contains("differs from what was sent")),
        "{}",
        report.render()
    );
}

#[test]
fn a_dropped_game_ended_with_the_reveal_kept_is_named() {
    let mut events = honest();
    let i = position(&events, "GameEnded");
    events.remove(i);
    renumber(&mut events);
    assert_names(&events, "orders", i as u64 + 1);
}

#[test]
fn changed_final_ipc_counts_are_named() {
    let mut events = honest();
    let i = position(&events, "GameEnded");
    let count = events[i].payload["final_ipc"][0][1]
        .as_u64()
        .expect("a count");
    events[i].payload["final_ipc"][0][1] = serde_json::json!(count + 5);
    relink(&mut events);
    assert_names(&events, "orders", events[i].stream_version);
    assert_names(&events, "final board", events[i].stream_version);
}

#[test]
fn a_changed_war_reinforcement_roll_is_named() {
    let war = Ruleset::builtin("war").expect("war");
    let mut events = played(war, 400);
    let i = change_first_die(&mut events, |e| {
        e.event_type.as_str() == "ReinforcementsRolled"
    });
    relink(&mut events);
    assert_names(&events, "dice", events[i].stream_version);
}

#[test]
fn a_changed_die_is_named_even_when_the_forger_recomputes_the_chain() {
    let mut events = honest();
    let i = change_first_die(&mut events, |_| true);
    let version = events[i].stream_version;
    // Untouched chain: the chain check names the event.
    assert_names(&events, "chain", version);
    relink(&mut events);
    let report = audit(&events);
    assert!(
        report.findings.iter().any(|f| f.event == version),
        "{}",
        report.render()
    );
}

#[test]
fn a_changed_payload_breaks_the_chain_at_that_event() {
    let mut events = honest();
    let i = events.len() / 2;
    events[i].payload["tampered"] = serde_json::json!(true);
    let report = audit(&events);
    let failure = report.first_failure().expect("fails");
    assert_eq!(
        (failure.name, failure.event),
        ("chain", Some(events[i].stream_version))
    );
}

#[test]
fn truncation_is_caught_with_the_published_head_and_a_part_of_a_stream_is_refused() {
    let events = honest();
    let head = ChainHead {
        version: events.len() as u64,
        hash: events.last().expect("events").hash,
    };
    // The end's record, GameEnded and the reveal dropped: without a head, a game still
    // being played; with it, events missing.
    let cut = &events[..events.len() - 3];
    assert_ne!(audit(cut).outcome, Outcome::Failed);
    let report = audit_game(cut, None, Some(&head));
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(
        report.check("head").and_then(|c| c.event),
        Some(cut.len() as u64 + 1),
        "{}",
        report.render()
    );
    assert!(
        report.render().contains("are missing"),
        "{}",
        report.render()
    );
    assert_eq!(
        audit_game(&events, None, Some(&head)).outcome,
        Outcome::Passed
    );
    let part = &events[100..];
    let report = audit(part);
    assert_eq!(report.outcome, Outcome::Failed);
    assert!(
        report.findings[0]
            .message
            .contains("the file starts at version 101"),
        "{}",
        report.render()
    );
}

#[test]
fn the_wrong_seed_fails_the_commitment_at_game_created() {
    let events = honest();
    let report = audit_game(&events, Some(&GameSeed::from_bytes([1; 32])), None);
    let failure = report.first_failure().expect("fails");
    assert_eq!((failure.name, failure.event), ("commitment", Some(1)));
}

#[test]
fn seats_not_drawn_from_the_seed_are_named() {
    let mut events = honest();
    let seats = events[0].payload["seats"].as_array_mut().expect("seats");
    seats.swap(0, 1);
    relink(&mut events);
    let report = audit(&events);
    assert_eq!(
        report.first_failure().map(|c| (c.name, c.event)),
        Some(("power draw", Some(1)))
    );
}

#[test]
fn an_id_off_the_board_is_a_finding_not_a_crash() {
    let mut events = honest();
    let i = position(&events, "UnitsPlaced");
    events[i].payload["territory"] = serde_json::json!(250);
    relink(&mut events);
    let report = audit(&events);
    assert_eq!(report.outcome, Outcome::Failed);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.event == events[i].stream_version),
        "{}",
        report.render()
    );
}

#[test]
fn verdicts_are_plain_words_with_no_debug_output() {
    let mut events = honest();
    let i = position(&events, "GameEnded");
    events[i].payload["final_ipc"][0][1] = serde_json::json!(99);
    relink(&mut events);
    let text = audit(&events).render();
    for debug in ["Some(", "None", "[(", "Russia, ", "\u{1b}["] {
        assert!(!text.contains(debug), "{debug:?} in:\n{text}");
    }
}

/// A game as logs were written before orders were on the record: the events alone, each
/// order's dice from the version of its first event.
fn legacy_game() -> Vec<RecordedEvent> {
    let ruleset = cutthroat();
    let players = ["ann", "bob", "cy", "di", "ed"].map(String::from).to_vec();
    let at = Moment::from_unix_seconds(1_800_000_000);
    let mut created =
        GameLog::create(ruleset, GAME, players, "gm".into(), None, at, &seed()).expect("created");
    created.orders_recorded = false;
    let mut stream = vec![(
        GameStreamEvent::Created(created.clone()),
        "gm:gm".to_owned(),
    )];
    let mut log = GameLog::new(created).expect("log");
    let mut next = 3u64;
    let mut choose = |n: usize| {
        next = next.wrapping_mul(6364136223846793005).wrapping_add(1);
        ((next >> 33) % n.max(1) as u64) as usize
    };
    let mut dice_events = 0;
    for _ in 0..4000 {
        let (by, order) = random_order(ruleset.rules(), &log.state, &mut choose);
        let Ok(events) = log.decide(by, &order, at, &seed()) else {
            continue;
        };
        for event in events {
            dice_events += usize::from(order_behind(&event).is_some());
            let event = GameStreamEvent::Played(event);
            log.apply(log.version + 1, &event).expect("folds");
            stream.push((event, "player:someone".to_owned()));
        }
    }
    assert!(dice_events > 3, "the game rolled dice {dice_events} times");
    for event in log
        .decide_director(&DirectorOrder::EndGame, at)
        .expect("ends")
    {
        stream.push((GameStreamEvent::Played(event), "gm:gm".to_owned()));
    }
    stream.push((
        GameStreamEvent::SeedRevealed(SeedRevealed {
            seed: hex::encode(seed().expose()),
        }),
        "gm:gm".to_owned(),
    ));
    crate::sample::record(&stream, GAME)
}

#[test]
fn a_log_from_before_orders_were_recorded_audits_as_partial_and_says_what_was_not_decided() {
    let events = legacy_game();
    let report = audit(&events);
    assert_eq!(report.outcome, Outcome::Partial, "{}", report.render());
    assert_eq!(report.check("dice").map(|c| c.verdict), Some(Verdict::Pass));
    assert_eq!(
        report.check("orders").map(|c| c.verdict),
        Some(Verdict::Skipped)
    );
    let last = events.len();
    assert!(
        report
            .not_checked
            .iter()
            .any(|n| n.starts_with(&format!("events 2 to {last}: recorded before orders"))),
        "{:?}",
        report.not_checked
    );
}

#[test]
fn in_a_log_from_before_orders_were_recorded_a_changed_die_is_still_named() {
    let mut events = legacy_game();
    let i = change_first_die(&mut events, |_| true);
    relink(&mut events);
    assert_names(&events, "dice", events[i].stream_version);
}

#[test]
fn the_stream_id_and_the_chain_bind_the_file_to_its_game() {
    let events = honest();
    let other = StreamId::try_from("game-8".to_owned()).expect("id");
    let mut moved = events.clone();
    for e in &mut moved {
        e.stream_id = other.clone();
        e.prev_hash = Hash::genesis(&other);
    }
    relink(&mut moved);
    let report = audit(&moved);
    assert_eq!(report.outcome, Outcome::Failed, "{}", report.render());
}

/// A game played to `events` events, then voided by its own master as a director (a
/// director acts on the games it masters): its export.
fn voided_by_its_director(events: usize) -> Vec<RecordedEvent> {
    let mut game = SampleGame::new(cutthroat(), GAME, seed(), 3);
    game.play_until(events, 40 * events);
    let director = crate::sender::Sender {
        role: crate::sender::Role::Director,
        name: crate::sample::GAME_MASTER.into(),
    };
    let void = crate::orders::Command::VoidGame {
        reason: "abandoned".into(),
    };
    assert!(game.send(director, void));
    game.recorded()
}

#[test]
fn a_voided_game_passes_and_a_changed_reason_is_named() {
    let mut events = voided_by_its_director(200);
    let report = audit(&events);
    assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
    assert!(report.placements.is_none());
    let i = position(&events, "GameVoided");
    events[i].payload["reason"] = serde_json::json!("never played");
    relink(&mut events);
    assert_names(&events, "orders", events[i].stream_version);
}

#[test]
fn a_void_forged_as_another_directors_is_named_at_its_record() {
    // Given an honest void by the game's own director, re-signed as a director of some
    // other game (record and actors alike, the chain recomputed):
    let mut events = voided_by_its_director(100);
    let record = position(&events, "GameVoided") - 1;
    events[record].payload["sender"]["name"] = serde_json::json!("dave");
    for event in &mut events[record..] {
        event.metadata["actor"] = serde_json::json!("director:dave");
    }
    relink(&mut events);
    // then the auditor names the record: dave may not void it.
    assert_names(&events, "orders", events[record].stream_version);
    assert!(audit(&events).render().contains("dave directs neither"));
}

/// A game whose last command was cut off after its battle: `[fight_battle, purchase]` in the
/// Battles phase, ended by its game master (the seed revealed); the record's index.
fn cut_off_after_a_battle() -> (Vec<RecordedEvent>, usize) {
    use crate::orders::tests::{at_a_battle, by_the_master, named};
    let (mut game, place) = at_a_battle();
    let given = by_the_master(
        &game,
        vec![
            named(serde_json::json!({"type": "fight_battle", "territory": place})),
            named(serde_json::json!({"type": "purchase", "units": {"INF": 1}})),
        ],
    );
    let record = game.stream.len();
    assert!(game.send(given.sender.clone(), given.command.clone()));
    assert!(game.end(), "the game master ends the game");
    let events = game.recorded();
    assert!(events[record].payload.get("cut_off").is_some(), "cut off");
    (events, record)
}

#[test]
fn a_command_cut_off_after_its_dice_passes_the_audit() {
    let (events, _) = cut_off_after_a_battle();
    let report = audit(&events);
    assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
}

#[test]
fn events_after_a_die_that_the_rule_would_have_cut_off_are_named() {
    // A forger keeps the purchase refused after the battle: the record without its cut-off,
    // and a purchase after the battle's event.
    let (mut events, record) = cut_off_after_a_battle();
    let purchase = events[record].payload["cut_off"]["order"].clone();
    let payload = &mut events[record].payload;
    payload["command"]["orders"]
        .as_array_mut()
        .expect("orders")
        .push(purchase);
    payload.as_object_mut().expect("a record").remove("cut_off");
    let bought = events[position(&events, "UnitsPurchased")].clone();
    events.insert(record + 2, bought);
    renumber(&mut events);
    let forged = events[record + 2].stream_version;
    assert_names(&events, "orders", forged);
    let report = audit(&events);
    assert!(
        report.render().contains("the rule would have cut off"),
        "{}",
        report.render()
    );
}

#[test]
fn an_order_recorded_as_cut_off_that_the_rules_accept_is_named() {
    let (mut events, record) = cut_off_after_a_battle();
    events[record].payload["cut_off"]["order"] =
        serde_json::json!({"type": "offer_agreement", "with": "germany", "terms": "peace"});
    relink(&mut events);
    assert_names(&events, "orders", events[record].stream_version);
    let rendered = audit(&events).render();
    assert!(rendered.contains("the rules accept it"), "{rendered}");
}

#[test]
fn a_cut_off_with_no_die_before_it_is_named() {
    // Nothing was rolled before the refused order, so the command should have been refused
    // whole and nothing of it recorded.
    let (mut events, record) = cut_off_after_a_battle();
    events[record].payload["command"]["orders"] = serde_json::json!([]);
    relink(&mut events);
    assert_names(&events, "orders", events[record].stream_version);
    assert!(audit(&events).render().contains("refused whole"));
}

#[test]
fn a_game_whose_master_holds_a_seat_is_named_unless_an_admin_created_it() {
    // The server refuses such a game unless an admin creates it (issue 40); a log that
    // seats its master under another creator was not written by the server.
    let mut events = played(cutthroat(), 40);
    let seated = events[0].payload["players"][0].clone();
    events[0].payload["game_master"] = seated.clone();
    relink(&mut events);
    assert_names(&events, "orders", 1);
    let report = audit(&events);
    assert!(
        report.render().contains("may not also hold a seat"),
        "{}",
        report.render()
    );
    // Created by an admin, the same seating is on the record as allowed.
    events[0].metadata["actor"] = serde_json::json!("admin:root");
    relink(&mut events);
    let report = audit(&events);
    assert!(
        !report.render().contains("may not also hold a seat"),
        "{}",
        report.render()
    );
}
