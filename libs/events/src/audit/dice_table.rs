//! The dice table auditor: checks a dice table's export (issue 38) with nothing but the
//! export and, for the signatures, the service's public key. `warlog audit FILE` runs it on
//! a `dice-<id>` stream.
//!
//! The checks, in order, each with a verdict and every finding named by its version:
//! - **chain** and **head**: as for any stream ([`check_chain`]);
//! - **replay**: every event reads as a dice table's, and the table begins with a seed
//!   committed;
//! - **commitments**: every revealed seed is the one its epoch committed to;
//! - **dice**: every roll's index is its place, and every die of a revealed epoch is the
//!   seed's at that place (the rolls of an epoch not revealed yet are not checked, and the
//!   verdict is then *partial*);
//! - **signatures**: with the public key, every roll is signed by the service over its
//!   table, index, dice and date.
//!
//! The decisions are the domain's ([`dice_table::audit_findings`]); this only files them.

use base64::Engine as _;
use std::collections::BTreeSet;
use warlog_rules::words::counted;

use super::{audit_after_chain, AuditReport, Check, Ledger, Verdict};
use crate::dice_table::{self, DiceTable, DiceTableCheck, DiceTableEvent};
use crate::{ChainHead, RecordedEvent, StreamCategory};

/// Audits a dice table stream's events (in stream order), against a head published earlier
/// if the caller kept one, and with the service's Ed25519 public key (32 bytes) if the
/// caller has it (without it the signatures are not checked).
pub fn audit_dice_table(
    events: &[RecordedEvent],
    published_head: Option<&ChainHead>,
    public_key: Option<&[u8]>,
) -> AuditReport {
    audit_after_chain(events, published_head, |ledger, checks, not_checked, _| {
        audit_table(events, public_key, ledger, checks, not_checked);
    })
}

/// The service's public key as `GET /.well-known/warlog-dice-key` publishes it
/// (`public_key`: 32 bytes, base64), read back.
pub fn public_key_from_base64(text: &str) -> Result<[u8; 32], String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|_| "it is not base64".to_owned())?;
    let length = bytes.len();
    <[u8; 32]>::try_from(bytes)
        .map_err(|_| format!("it has {length} bytes; an Ed25519 public key has 32"))
}

fn audit_table(
    raw: &[RecordedEvent],
    public_key: Option<&[u8]>,
    ledger: &mut Ledger,
    checks: &mut Vec<Check>,
    not_checked: &mut Vec<String>,
) {
    let stream = &raw[0].stream_id;
    let table = match stream.as_str().strip_prefix("dice-") {
        Some(table) if stream.category() == StreamCategory::Dice => table,
        _ => {
            ledger.fail(
                "replay",
                1,
                format!("stream {stream} is not a dice table's (dice-<id>)"),
            );
            checks.push(ledger.verdict("replay", Verdict::Fail, ""));
            return;
        }
    };
    let mut events = Vec::with_capacity(raw.len());
    for event in raw {
        match DiceTableEvent::decode(
            event.event_type.as_str(),
            event.event_version,
            &event.payload,
        ) {
            Ok(decoded) => events.push(decoded),
            Err(e) => ledger.fail(
                "replay",
                event.stream_version,
                format!(
                    "{} does not read as a dice table's event: {e}",
                    event.event_type.as_str()
                ),
            ),
        }
    }
    // The domain names events by their place among the table's: with one unread, every
    // later place would be wrong, so nothing further is checked.
    if events.len() < raw.len() {
        checks.push(ledger.verdict("replay", Verdict::Fail, ""));
        return;
    }
    let folded = match DiceTable::fold(table, &events) {
        Ok(folded) => folded,
        Err(e) => {
            ledger.fail("replay", 1, e.to_string());
            checks.push(ledger.verdict("replay", Verdict::Fail, ""));
            return;
        }
    };
    checks.push(ledger.verdict(
        "replay",
        Verdict::Pass,
        format!(
            "{} fold to epoch {}, after {}",
            counted(raw.len() as u64, "event", "events"),
            folded.epoch,
            counted(folded.rolls, "roll", "rolls")
        ),
    ));

    let (found, findings) = dice_table::audit_findings(table, &events, public_key);
    for finding in findings {
        ledger.fail(check_name(finding.check), finding.event, finding.message);
    }
    let revealed: BTreeSet<u32> = events
        .iter()
        .filter_map(|e| match e {
            DiceTableEvent::SeedRevealed { epoch, .. } => Some(*epoch),
            _ => None,
        })
        .collect();
    let committed = events
        .iter()
        .filter(|e| matches!(e, DiceTableEvent::SeedCommitted { .. }))
        .count() as u64;
    // The rolls whose epoch has no seed revealed: their dice wait for the reveal.
    let waiting: Vec<(u64, u32)> = events
        .iter()
        .zip(raw)
        .filter_map(|(e, r)| match e {
            DiceTableEvent::DiceRolled { epoch, .. } if !revealed.contains(epoch) => {
                Some((r.stream_version, *epoch))
            }
            _ => None,
        })
        .collect();

    checks.push(commitments(
        ledger,
        revealed.len() as u64,
        committed,
        &waiting,
    ));
    checks.push(dice(ledger, found.rolls_checked, &waiting, not_checked));
    checks.push(match public_key {
        Some(_) => ledger.verdict(
            "signatures",
            Verdict::Pass,
            format!(
                "{} the service's, over their table, index, dice and date",
                counted(found.signatures_checked, "signature is", "signatures are")
            ),
        ),
        None => {
            not_checked.push(
                "the rolls' signatures: no public key was given (the service publishes it at \
                 /.well-known/warlog-dice-key)"
                    .to_owned(),
            );
            ledger.verdict(
                "signatures",
                Verdict::Skipped,
                "no public key was given: the signatures cannot be checked",
            )
        }
    });
}

fn check_name(check: DiceTableCheck) -> &'static str {
    match check {
        DiceTableCheck::Commitments => "commitments",
        DiceTableCheck::Dice => "dice",
        DiceTableCheck::Signatures => "signatures",
    }
}

fn commitments(ledger: &Ledger, revealed: u64, committed: u64, waiting: &[(u64, u32)]) -> Check {
    if revealed == 0 && !waiting.is_empty() {
        // Not listed as not checked on its own: the dice waiting say why.
        return ledger.verdict(
            "commitments",
            Verdict::Skipped,
            "no seed is revealed yet: each is checked against its commitment once revealed",
        );
    }
    ledger.verdict(
        "commitments",
        Verdict::Pass,
        format!(
            "{} the one{} committed to ({} of {} not revealed yet)",
            counted(revealed, "revealed seed is", "revealed seeds are"),
            if revealed == 1 { "" } else { "s" },
            counted(committed.saturating_sub(revealed), "epoch", "epochs"),
            committed
        ),
    )
}

fn dice(
    ledger: &Ledger,
    checked: u64,
    waiting: &[(u64, u32)],
    not_checked: &mut Vec<String>,
) -> Check {
    let recomputed = format!(
        "{} recomputed die by die from the revealed seeds",
        counted(checked, "roll", "rolls")
    );
    if waiting.is_empty() {
        return ledger.verdict("dice", Verdict::Pass, recomputed);
    }
    let epochs: BTreeSet<u32> = waiting.iter().map(|(_, epoch)| *epoch).collect();
    let epochs = epochs
        .iter()
        .map(|e| format!("epoch {e}'s"))
        .collect::<Vec<_>>()
        .join(", ");
    let versions: Vec<u64> = waiting.iter().map(|(version, _)| *version).collect();
    not_checked.push(format!(
        "the dice of {} ({}): {epochs} seed is not revealed yet (a roll's e-mail has the link \
         that reveals it, and anyone may once the table has been idle)",
        counted(waiting.len() as u64, "roll", "rolls"),
        super::version_ranges(&versions)
    ));
    ledger.verdict(
        "dice",
        Verdict::Skipped,
        format!(
            "{recomputed}; {} not: {epochs} seed is not revealed yet",
            counted(waiting.len() as u64, "roll", "rolls")
        ),
    )
}

/// A dice table played for tests and examples: opened, rolled and revealed by the domain's
/// own decisions, signed with fixed keys, and recorded with its chain as an export holds it.
#[cfg(any(test, feature = "samples"))]
pub mod sample {
    use warlog_rules::dice::GameSeed;
    use warlog_rules::game::Moment;

    use crate::dice_table::{open, DiceAsked, DiceKeys, DiceTable, DiceTableEvent, RevealAsked};
    use crate::{relink, RecordedEvent, StreamCategory, StreamId};

    /// When the sample table opens (late 2026), and the time between its events.
    const OPENED: u64 = 1_790_000_000;
    const STEP: u64 = 60;

    #[derive(Debug)]
    pub struct SampleTable {
        pub keys: DiceKeys,
        /// The table's id, 32 hex digits.
        pub table: String,
        pub events: Vec<DiceTableEvent>,
        /// The epoch in force; its seed is 32 bytes of its number.
        epoch: u8,
    }

    impl SampleTable {
        /// The table of `ann@example.org` and `bob@example.org`, opened under epoch 1's seed.
        pub fn open() -> SampleTable {
            let keys = DiceKeys::from_secrets([3; 32], [4; 32]).expect("keys");
            let table = keys
                .table_of("ann@example.org", "bob@example.org")
                .expect("a pair")
                .as_str()
                .to_owned();
            SampleTable {
                keys,
                table,
                events: open(
                    &GameSeed::from_bytes([1; 32]),
                    Moment::from_unix_seconds(OPENED),
                ),
                epoch: 1,
            }
        }

        fn folded(&self) -> DiceTable {
            DiceTable::fold(&self.table, &self.events).expect("folds")
        }

        fn next_at(&self) -> Moment {
            Moment::from_unix_seconds(OPENED + STEP * self.events.len() as u64)
        }

        fn seed(epoch: u8) -> GameSeed {
            GameSeed::from_bytes([epoch; 32])
        }

        /// `rolls` rolls (2d6, 1d20, 3d12 and 10d6 in turn).
        pub fn roll(&mut self, rolls: usize) -> &mut Self {
            let asked = [(2, 6), (1, 20), (3, 12), (10, 6)];
            for i in 0..rolls {
                let asked = DiceAsked::try_from(asked[i % asked.len()]).expect("in bounds");
                let roll = self
                    .folded()
                    .roll(
                        asked,
                        &Self::seed(self.epoch),
                        &self.keys,
                        self.next_at(),
                        None,
                    )
                    .expect("rolls");
                self.events.extend(roll);
            }
            self
        }

        /// The epoch's seed revealed by its link, the next committed.
        pub fn reveal(&mut self) -> &mut Self {
            let table = self.folded();
            let link = RevealAsked::ByLink(self.keys.reveal_token(&self.table, table.epoch));
            let seeds = (&Self::seed(self.epoch), &Self::seed(self.epoch + 1));
            let revealed = table
                .reveal(&link, &self.keys, 86_400, seeds, self.next_at())
                .expect("reveals");
            self.events.extend(revealed);
            self.epoch += 1;
            self
        }

        /// The stream as an export holds it: versions, ids, metadata and the hash chain.
        pub fn recorded(&self) -> Vec<RecordedEvent> {
            let stream_id = StreamId::of(StreamCategory::Dice, &self.table).expect("a stream id");
            crate::sample::record_encoded(
                &stream_id,
                self.events
                    .iter()
                    .map(|event| (event.encode().expect("encodes"), "anyone")),
            )
        }
    }

    /// Changes the first die of the roll at `version` into another number, and hashes the
    /// chain again from there (what anyone with write access to the store or the file can
    /// do).
    pub fn change_first_die(events: &mut [RecordedEvent], version: u64) {
        let event = events
            .iter_mut()
            .find(|e| e.stream_version == version)
            .expect("the event");
        let max = event.payload["max"].as_u64().expect("a roll's sides");
        let die = &mut event.payload["dice"][0];
        let old = die.as_u64().expect("a die");
        *die = serde_json::json!(old % max + 1);
        relink(events);
    }
}

#[cfg(test)]
mod tests {
    use super::sample::{change_first_die, SampleTable};
    use super::*;
    use crate::audit::Outcome;

    fn hundred_revealed() -> SampleTable {
        let mut table = SampleTable::open();
        table.roll(100).reveal();
        table
    }

    #[test]
    fn a_hundred_revealed_rolls_pass_every_die_recomputed_and_every_signature_checked() {
        // Given a table's export: a hundred rolls, then its seed revealed
        let table = hundred_revealed();
        let events = table.recorded();
        // When it is audited with the service's public key
        let report = audit_dice_table(&events, None, Some(table.keys.public_key()));
        // Then it passes, with every roll recomputed and every signature checked
        assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
        let detail = |name: &str| report.check(name).expect(name).detail.clone();
        assert_eq!(
            detail("dice"),
            "100 rolls recomputed die by die from the revealed seeds"
        );
        assert!(
            detail("signatures").starts_with("100 signatures are the service's"),
            "{}",
            report.render()
        );
        assert!(
            detail("commitments").starts_with("1 revealed seed is the one committed to"),
            "{}",
            report.render()
        );
        assert_eq!(detail("chain"), "103 links hold");
    }

    #[test]
    fn a_changed_die_fails_naming_its_roll_even_with_the_chain_hashed_again() {
        // Given the export with one die of the roll at event 58 changed, and the chain
        // hashed again from there so it still holds
        let table = hundred_revealed();
        let mut events = table.recorded();
        change_first_die(&mut events, 58);
        // When it is audited with the key
        let report = audit_dice_table(&events, None, Some(table.keys.public_key()));
        // Then the chain holds, but the dice and the signature fail at that roll
        assert_eq!(report.outcome, Outcome::Failed, "{}", report.render());
        assert_eq!(report.check("chain").expect("chain").verdict, Verdict::Pass);
        let dice = report.check("dice").expect("dice");
        assert_eq!((dice.verdict, dice.event), (Verdict::Fail, Some(58)));
        let finding = |check: &str| {
            report
                .findings
                .iter()
                .find(|f| f.check == check)
                .unwrap_or_else(|| panic!("a {check} finding:\n{}", report.render()))
        };
        assert_eq!(finding("dice").event, 58);
        assert!(
            finding("dice").message.starts_with("the record says"),
            "{}",
            report.render()
        );
        assert!(
            finding("signatures")
                .message
                .starts_with("the signature is not the service's"),
            "{}",
            report.render()
        );
        assert_eq!(report.findings_total, 2, "{}", report.render());
        // And without the key it still fails, by its dice
        let report = audit_dice_table(&events, None, None);
        assert_eq!(report.outcome, Outcome::Failed, "{}", report.render());
        assert_eq!(report.findings.len(), 1, "{}", report.render());
        assert!(report.findings[0].message.starts_with("the record says"));
    }

    #[test]
    fn without_the_public_key_the_signatures_are_skipped_not_failed() {
        let events = hundred_revealed().recorded();
        let report = audit_dice_table(&events, None, None);
        assert_eq!(report.outcome, Outcome::Partial, "{}", report.render());
        let signatures = report.check("signatures").expect("signatures");
        assert_eq!(signatures.verdict, Verdict::Skipped);
        assert!(signatures.detail.contains("no public key was given"));
        assert_eq!(report.check("dice").expect("dice").verdict, Verdict::Pass);
        assert!(
            report
                .not_checked
                .iter()
                .any(|n| n.starts_with("the rolls' signatures")),
            "{}",
            report.render()
        );
    }

    #[test]
    fn rolls_whose_seed_is_not_revealed_yet_make_the_verdict_partial() {
        // Given a table revealed after 3 rolls, then rolled twice more under epoch 2
        let mut table = SampleTable::open();
        table.roll(3).reveal().roll(2);
        let events = table.recorded();
        // When it is audited with the key
        let report = audit_dice_table(&events, None, Some(table.keys.public_key()));
        // Then the revealed rolls are recomputed, the others wait for their seed
        assert_eq!(report.outcome, Outcome::Partial, "{}", report.render());
        let dice = report.check("dice").expect("dice");
        assert_eq!(dice.verdict, Verdict::Skipped);
        assert_eq!(
            dice.detail,
            "3 rolls recomputed die by die from the revealed seeds; 2 rolls not: epoch 2's \
             seed is not revealed yet"
        );
        assert!(
            report.not_checked[0].starts_with(
                "the dice of 2 rolls (events 7 to 8): epoch 2's seed is not revealed yet"
            ),
            "{}",
            report.render()
        );
        // And every signature is checked all the same
        assert!(report
            .check("signatures")
            .expect("signatures")
            .detail
            .starts_with("5 signatures are"));
    }

    #[test]
    fn a_line_that_is_not_a_dice_tables_event_is_named_by_its_version() {
        let mut events = hundred_revealed().recorded();
        events[4].payload["surprise"] = serde_json::json!(1);
        crate::relink(&mut events);
        let report = audit_dice_table(&events, None, None);
        assert_eq!(report.outcome, Outcome::Failed, "{}", report.render());
        assert_eq!(report.findings[0].check, "replay");
        assert_eq!(report.findings[0].event, 5);
        assert!(
            report.findings[0]
                .message
                .starts_with("DiceRolled does not read as a dice table's event"),
            "{}",
            report.render()
        );
    }

    #[test]
    fn a_revealed_seed_that_is_not_the_committed_one_fails_the_commitments() {
        let mut events = hundred_revealed().recorded();
        events[101].payload["seed"] = serde_json::json!(hex::encode([7u8; 32]));
        crate::relink(&mut events);
        let report = audit_dice_table(&events, None, None);
        let commitments = report.check("commitments").expect("commitments");
        assert_eq!(
            (commitments.verdict, commitments.event),
            (Verdict::Fail, Some(102))
        );
        assert!(report.findings[0]
            .message
            .contains("reveals a seed for epoch 1 that is not the one committed"));
    }

    #[test]
    fn a_roll_that_names_an_epoch_no_longer_in_force_fails_the_dice() {
        // Given a table revealed after 3 rolls, then rolled under epoch 2, whose last roll
        // is relabelled as epoch 1's (whose seed anyone knows now)
        let mut table = SampleTable::open();
        table.roll(3).reveal().roll(2);
        let mut events = table.recorded();
        let last = events.len() - 1;
        events[last].payload["epoch"] = serde_json::json!(1);
        crate::relink(&mut events);
        // When it is audited
        let report = audit_dice_table(&events, None, None);
        // Then that roll is refused for its epoch
        assert_eq!(report.outcome, Outcome::Failed, "{}", report.render());
        let finding = &report.findings[0];
        assert_eq!((finding.check, finding.event), ("dice", 8));
        assert_eq!(
            finding.message,
            "it names epoch 1, but epoch 2 is in force there"
        );
    }

    #[test]
    fn epochs_follow_one_another_each_after_its_forerunner_is_revealed() {
        let mut events = hundred_revealed().recorded();
        // The next epoch committed as epoch 3
        let last = events.len() - 1;
        events[last].payload["epoch"] = serde_json::json!(3);
        crate::relink(&mut events);
        let report = audit_dice_table(&events, None, None);
        assert_eq!(
            report.findings[0].message,
            "commits epoch 3 after epoch 1",
            "{}",
            report.render()
        );
    }

    #[test]
    fn the_public_key_reads_from_base64_and_anything_else_is_refused_saying_why() {
        let keys = SampleTable::open().keys;
        let key = public_key_from_base64(&keys.public_key_base64()).expect("a key");
        assert_eq!(key.as_slice(), keys.public_key());
        assert_eq!(
            public_key_from_base64("not base64!").expect_err("refused"),
            "it is not base64"
        );
        assert_eq!(
            public_key_from_base64("AAAA").expect_err("refused"),
            "it has 3 bytes; an Ed25519 public key has 32"
        );
    }
}
