//! The records of commands that came by mail (issue 51), checked with what the export
//! alone can show: each names its message by a well-formed hash, was taken in before it
//! was decided, gave one command only, came from a player, passed what the service
//! requires of a mail, and was written under its message's idempotency key.
//!
//! The Message-ID itself and the sender's address are never on the record, so the
//! auditor cannot tell which mail a hash stands for: it checks that the records agree
//! with each other and with the rules the mail intake follows.

use std::collections::HashMap;

use warlog_rules::game::Moment;

use super::{Check, Ledger, Verdict};
use crate::command::{ByMail, DmarcVerdict, OrdersGiven};
use crate::game::GameStreamEvent;
use crate::sender::Role;
use crate::{IdempotencyKey, RecordedEvent};

/// The check's name in the report.
pub(super) const CHECK: &str = "by mail";

/// Digits in a SHA-256 written in hex.
const HASH_DIGITS: usize = 64;

/// Checks every record of a command that came by mail in `decoded` (the whole log, in
/// order), whose raw events are `raw` (the same events, as exported).
pub(super) fn check_by_mail(
    ledger: &mut Ledger,
    decoded: &[(u64, GameStreamEvent)],
    raw: &[RecordedEvent],
) -> Check {
    // Each message's first record: a second one is the same mail deciding twice.
    let mut first_record: HashMap<&str, u64> = HashMap::new();
    let mut by_mail = 0usize;
    for ((version, event), recorded) in decoded.iter().zip(raw) {
        let GameStreamEvent::Orders(given) = event else {
            continue;
        };
        let Some(mail) = &given.by_mail else {
            continue;
        };
        by_mail += 1;
        let version = *version;
        let well_formed = match hash_fault(&mail.message) {
            Some(fault) => {
                ledger.fail(
                    CHECK,
                    version,
                    format!(
                        "the record names its message by \"{}\", which is not a SHA-256 in \
                         lowercase hex: {fault}",
                        shortened(&mail.message)
                    ),
                );
                false
            }
            None => true,
        };
        if mail.received_at > given.at {
            ledger.fail(
                CHECK,
                version,
                format!(
                    "the record says its message was taken in at {}, {} after the orders were \
                     decided at {}: a command by mail is decided from a message already taken in",
                    moment_text(mail.received_at),
                    seconds_text(mail.received_at.unix_seconds() - given.at.unix_seconds()),
                    moment_text(given.at)
                ),
            );
        }
        match first_record.get(mail.message.as_str()) {
            Some(first) => ledger.fail(
                CHECK,
                version,
                format!(
                    "the message named here already gave the command recorded at event \
                     {first}: one message gives one command (a message delivered twice is one \
                     turn)"
                ),
            ),
            None => {
                first_record.insert(&mail.message, version);
            }
        }
        if given.sender.role != Role::Player {
            ledger.fail(
                CHECK,
                version,
                format!(
                    "the record says {} {} sent these orders by mail, but a mail is taken only \
                     from a seated player or their proxy, who write as players",
                    given.sender.role.describe(),
                    given.sender.name
                ),
            );
        }
        if mail.dmarc == DmarcVerdict::Fail {
            ledger.fail(
                CHECK,
                version,
                "the record says the sender's domain disowned the message (DMARC failed), but \
                 the service refuses such a mail: no command comes of it",
            );
        }
        if well_formed {
            if let Some(fault) = key_fault(given, mail, recorded) {
                ledger.fail(CHECK, version, fault);
            }
        }
    }
    let detail = match by_mail {
        0 => "no command came by mail".to_owned(),
        n => format!(
            "{} by mail, each from a player, its message named by a hash, taken in before it \
             was decided and giving no other command",
            warlog_rules::words::counted(n as u64, "command came", "commands came")
        ),
    };
    ledger.verdict(CHECK, Verdict::Pass, detail)
}

/// What makes `message` other than 64 lowercase hex digits, in words; `None` if nothing.
fn hash_fault(message: &str) -> Option<String> {
    if let Some(c) = message
        .chars()
        .find(|c| !matches!(c, '0'..='9' | 'a'..='f'))
    {
        let what = if c.is_ascii_hexdigit() {
            "an uppercase hex digit"
        } else {
            "not a hex digit"
        };
        return Some(format!("'{c}' is {what}"));
    }
    let digits = message.len();
    (digits != HASH_DIGITS).then(|| format!("it has {digits} digits, not {HASH_DIGITS}"))
}

/// The server writes a command by mail under its message's idempotency key (so that the
/// message delivered twice is written once): what is wrong with the record's key, if
/// anything.
fn key_fault(given: &OrdersGiven, mail: &ByMail, recorded: &RecordedEvent) -> Option<String> {
    let expected = IdempotencyKey::try_from(format!("mail-{}", mail.message))
        .ok()?
        .for_caller(&given.sender.actor());
    let found = recorded
        .metadata
        .get("idempotency_key")
        .and_then(|k| k.as_str());
    let why = match found {
        Some(found) if found == expected.as_str() => return None,
        Some(_) => "under another key",
        None => "under no key",
    };
    Some(format!(
        "the record names a message, but its events were written {why}: the service writes a \
         command by mail under its message's key, so that the message delivered twice is one \
         turn"
    ))
}

/// A forged value shown in a sentence, cut short if long.
fn shortened(text: &str) -> String {
    const SHOWN: usize = 72;
    if text.chars().count() > SHOWN {
        format!("{}...", text.chars().take(SHOWN - 3).collect::<String>())
    } else {
        text.to_owned()
    }
}

/// A moment to the second: `2027-01-15 12:00:30 UTC`.
fn moment_text(at: Moment) -> String {
    let format =
        time::macros::format_description!("[year]-[month]-[day] [hour]:[minute]:[second] UTC");
    i64::try_from(at.unix_seconds())
        .ok()
        .and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok())
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| format!("{} seconds after 1970", at.unix_seconds()))
}

fn seconds_text(seconds: u64) -> String {
    warlog_rules::words::counted(seconds, "second", "seconds")
}
