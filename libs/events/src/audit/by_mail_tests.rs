//! Turns by mail before the auditor, given/when/then: an honest game with turns sent by
//! mail passes, and each forgery of a by-mail record, applied to its export with the hash
//! chain recomputed afterwards, is named by its version in plain words.

use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use super::tests::audit;
use super::*;
use crate::command::{ByMail, DmarcVerdict, OrdersGiven};
use crate::sample::SampleGame;
use crate::sender::Role;
use crate::{relink, IdempotencyKey};
use warlog_rules::ruleset::Ruleset;

/// The SHA-256 of the `n`th reply's Message-ID, as the intake names a message.
fn message(n: usize) -> String {
    hex::encode(Sha256::digest(format!("<reply-{n}@club.example>")))
}

/// A Cut-Throat game in which every other random order came by mail (each in a message of
/// its own), ended by its game master, as exported. Played once: every test forges a copy.
fn played_by_mail() -> Vec<RecordedEvent> {
    static EXPORT: OnceLock<Vec<RecordedEvent>> = OnceLock::new();
    EXPORT
        .get_or_init(|| {
            let ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
            let mut game = SampleGame::new(ruleset, "mail-test", GameSeed::from_bytes([7; 32]), 3);
            let mut mails = 0;
            for turn in 0..20_000 {
                if game.stream.len() >= 300 || game.log.state.ended.is_some() {
                    break;
                }
                if turn % 2 == 0 {
                    if game.play_random_order_by_mail(&message(mails)) {
                        mails += 1;
                    }
                } else {
                    game.play_random_order();
                }
            }
            assert!(mails >= 20, "{mails} commands by mail");
            assert!(game.end(), "the game master ends the game");
            game.recorded()
        })
        .clone()
}

/// The export's records of commands that came by mail: each one's index and record.
fn mail_records(events: &[RecordedEvent]) -> Vec<(usize, OrdersGiven)> {
    events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match crate::game::decode_recorded(e) {
            Ok(GameStreamEvent::Orders(given)) if given.by_mail.is_some() => Some((i, given)),
            _ => None,
        })
        .collect()
}

/// The record at `index`, decoded.
fn record_at(events: &[RecordedEvent], index: usize) -> OrdersGiven {
    match crate::game::decode_recorded(&events[index]) {
        Ok(GameStreamEvent::Orders(given)) => given,
        other => panic!("event {} is not a record: {other:?}", index + 1),
    }
}

/// The record at `index` rewritten by `forge`, nothing else.
fn forge_record(events: &mut [RecordedEvent], index: usize, forge: impl FnOnce(&mut OrdersGiven)) {
    let mut given = record_at(events, index);
    forge(&mut given);
    let (_, _, payload) = GameStreamEvent::Orders(given).encode().expect("encodes");
    events[index].payload = payload;
}

/// A careful forger: the record at `index` rewritten by `forge`, and every event of its
/// append written again as the server would have written the forged record (its sender as
/// the actor, its message's idempotency key).
fn forge_with_its_key(
    events: &mut [RecordedEvent],
    index: usize,
    forge: impl FnOnce(&mut OrdersGiven),
) {
    forge_record(events, index, forge);
    let given = record_at(events, index);
    let actor = given.sender.actor();
    let key = given.by_mail.as_ref().map(|mail| {
        IdempotencyKey::try_from(format!("mail-{}", mail.message))
            .expect("a key")
            .for_caller(&actor)
    });
    let next = events[index + 1..]
        .iter()
        .position(|e| e.event_type.as_str() == "OrdersGiven")
        .map_or(events.len(), |k| index + 1 + k);
    for event in &mut events[index..next] {
        event.metadata["actor"] = serde_json::json!(actor);
        match &key {
            Some(key) => event.metadata["idempotency_key"] = serde_json::json!(key.as_str()),
            None => {
                if let Some(metadata) = event.metadata.as_object_mut() {
                    metadata.remove("idempotency_key");
                }
            }
        }
    }
}

/// With the chain recomputed, the audit fails with a by-mail finding at `version` that
/// says `words`, in plain words.
fn assert_named_at(events: &mut [RecordedEvent], version: u64, words: &str) {
    relink(events);
    let report = audit(events);
    assert_eq!(report.outcome, Outcome::Failed, "{}", report.render());
    let finding = report
        .findings
        .iter()
        .find(|f| f.check == "by mail" && f.event == version)
        .unwrap_or_else(|| {
            panic!(
                "expected a by-mail finding at event {version}:\n{}",
                report.render()
            )
        });
    assert!(
        finding.message.contains(words),
        "expected \"{words}\" in: {}",
        finding.message
    );
    for debug in ["Some(", "ByMail", "Moment(", "Role::", "\\\""] {
        assert!(!finding.message.contains(debug), "{}", finding.message);
    }
    assert_eq!(
        report.check("by mail").map(|c| (c.verdict, c.event)),
        Some((Verdict::Fail, Some(version))),
        "{}",
        report.render()
    );
}

#[test]
fn given_turns_sent_by_mail_when_the_export_is_audited_then_every_check_passes() {
    // Given a game in which many turns came by mail...
    let events = played_by_mail();
    let mails = mail_records(&events);
    // ...when its export is audited...
    let report = audit(&events);
    // ...then every check passes, the by-mail records among them.
    assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
    for check in &report.checks {
        assert_eq!(check.verdict, Verdict::Pass, "{}", report.render());
    }
    let by_mail = report.check("by mail").expect("a by-mail check");
    assert!(
        by_mail
            .detail
            .starts_with(&format!("{} commands came by mail", mails.len())),
        "{}",
        report.render()
    );
    // The export shows the channel and never the address.
    let text: String = events
        .iter()
        .map(|e| serde_json::to_string(e).expect("json"))
        .collect();
    assert!(
        !text.contains("club.example"),
        "no Message-ID in the export"
    );
}

#[test]
fn given_no_turn_by_mail_when_the_export_is_audited_then_the_check_says_so() {
    let mut events = played_by_mail();
    for (index, _) in mail_records(&events) {
        forge_with_its_key(&mut events, index, |given| given.by_mail = None);
    }
    relink(&mut events);
    let report = audit(&events);
    assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
    assert_eq!(
        report.check("by mail").map(|c| c.detail.as_str()),
        Some("no command came by mail")
    );
}

#[test]
fn given_a_message_named_by_anything_but_64_lowercase_hex_digits_then_its_record_is_named() {
    let honest = played_by_mail();
    let (index, given) = mail_records(&honest)[3].clone();
    let hash = given.by_mail.expect("by mail").message;
    for (forged, words) in [
        (hash.to_uppercase(), "is an uppercase hex digit"),
        (hash[..63].to_owned(), "it has 63 digits, not 64"),
        (
            "<reply-3@club.example>".to_owned(),
            "'<' is not a hex digit",
        ),
    ] {
        // Given the record's message named otherwise (its key to match)...
        let mut events = honest.clone();
        forge_with_its_key(&mut events, index, |given| {
            given.by_mail.as_mut().expect("by mail").message = forged.clone();
        });
        // ...then the audit names it.
        assert_named_at(&mut events, index as u64 + 1, words);
        assert_named_at(
            &mut events,
            index as u64 + 1,
            "is not a SHA-256 in lowercase hex",
        );
    }
}

#[test]
fn given_a_message_taken_in_after_its_orders_were_decided_then_its_record_is_named() {
    let mut events = played_by_mail();
    let (index, _) = mail_records(&events)[5].clone();
    // Given a record whose message arrived a minute and a half after its decision...
    forge_with_its_key(&mut events, index, |given| {
        given.by_mail.as_mut().expect("by mail").received_at = given.at.plus_seconds(90);
    });
    // ...then the audit names it, with both times.
    assert_named_at(
        &mut events,
        index as u64 + 1,
        "90 seconds after the orders were decided at",
    );
}

#[test]
fn given_a_message_taken_in_the_second_its_orders_were_decided_then_the_record_holds() {
    let mut events = played_by_mail();
    let (index, _) = mail_records(&events)[5].clone();
    forge_with_its_key(&mut events, index, |given| {
        given.by_mail.as_mut().expect("by mail").received_at = given.at;
    });
    relink(&mut events);
    let report = audit(&events);
    assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
}

#[test]
fn given_one_message_that_gave_two_commands_then_the_second_is_named() {
    let mut events = played_by_mail();
    let records = mail_records(&events);
    let (first, first_given) = records[2].clone();
    let (second, _) = records[6].clone();
    // Given a later record naming an earlier one's message (its key to match)...
    forge_with_its_key(&mut events, second, |given| {
        given.by_mail = first_given.by_mail.clone().map(|mail| ByMail {
            received_at: given.at,
            ..mail
        });
    });
    // ...then the audit names the later one, and where the message was first used.
    assert_named_at(
        &mut events,
        second as u64 + 1,
        &format!(
            "the message named here already gave the command recorded at event {}",
            first + 1
        ),
    );
}

#[test]
fn given_orders_by_mail_from_the_game_master_then_their_record_is_named() {
    let mut events = played_by_mail();
    let (index, _) = mail_records(&events)[4].clone();
    // Given a by-mail record whose sender is the game master (the actors and key to match)...
    forge_with_its_key(&mut events, index, |given| {
        given.sender.role = Role::Gm;
        given.sender.name = crate::sample::GAME_MASTER.to_owned();
    });
    // ...then the audit names it: mail is taken only from seated players and their proxies.
    assert_named_at(
        &mut events,
        index as u64 + 1,
        "the record says the game master gm sent these orders by mail, but a mail is taken \
         only from a seated player or their proxy",
    );
}

#[test]
fn given_a_mail_that_failed_dmarc_on_the_record_then_it_is_named() {
    let mut events = played_by_mail();
    let (index, _) = mail_records(&events)[1].clone();
    forge_with_its_key(&mut events, index, |given| {
        given.by_mail.as_mut().expect("by mail").dmarc = DmarcVerdict::Fail;
    });
    assert_named_at(
        &mut events,
        index as u64 + 1,
        "the service refuses such a mail",
    );
}

/// The re-decision of a command takes its by-mail record as given (how the command came is
/// not something the rules decide), so a changed record is caught by its idempotency key,
/// which the server writes from the message.
#[test]
fn given_a_record_whose_message_was_changed_then_its_key_names_it() {
    let mut events = played_by_mail();
    let (index, _) = mail_records(&events)[7].clone();
    // Given another message's well-formed hash on the record, the key left as written...
    forge_record(&mut events, index, |given| {
        given.by_mail.as_mut().expect("by mail").message = message(9_999);
    });
    // ...then the audit names it.
    assert_named_at(
        &mut events,
        index as u64 + 1,
        "the record names a message, but its events were written under another key",
    );
}

#[test]
fn given_a_command_from_the_web_made_to_say_it_came_by_mail_then_its_record_is_named() {
    let mut events = played_by_mail();
    let index = events
        .iter()
        .enumerate()
        .position(|(i, e)| {
            e.event_type.as_str() == "OrdersGiven"
                && i > 0
                && record_at(&events, i).by_mail.is_none()
                && record_at(&events, i).sender.role == Role::Player
        })
        .expect("a command from the web");
    forge_record(&mut events, index, |given| {
        given.by_mail = Some(ByMail {
            message: message(10_000),
            received_at: given.at,
            dmarc: DmarcVerdict::Pass,
        });
    });
    assert_named_at(
        &mut events,
        index as u64 + 1,
        "the record names a message, but its events were written under no key",
    );
}
