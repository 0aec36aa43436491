//! The auditor: checks a game's log with nothing but the log and, once known, the seed.
//! The server's `GET /v1/games/{id}/audit` and the offline `warlog audit FILE.ndjson` both
//! run [`audit_game`], so they cannot disagree.
//!
//! The checks, in order, each with a verdict and every finding named by its version:
//! - **chain**: the file is a whole stream from version 1, and every hash link holds;
//! - **head**: with a head published earlier, the file reaches it with that hash (a file
//!   cut short at the end is otherwise indistinguishable from a game still being played);
//! - **replay**: every event decodes and folds onto the ruleset's board;
//! - **commitment**: SHA-256 of the seed (given, or revealed in the log) is the one
//!   `GameCreated` committed to;
//! - **power draw**: the seats are the seed's first draw;
//! - **orders**: every recorded command (`OrdersGiven`) is decided again on the board
//!   before it, by its sender's right, with the ruleset the game was created with, and
//!   must give exactly the events that follow it, written by the same sender; every
//!   other event must be explained by a command;
//! - **dice**: every die is the seed's for the version of the event that records it;
//! - **final board**: the final IPC counts in `GameEnded` are the board's;
//! - **placements**: places and points from the final counts;
//! - **by mail**: every command that came by mail names its message by a SHA-256 in hex,
//!   was taken in before it was decided, is the only command of its message, was sent by
//!   a player, and was written under its message's idempotency key.
//!
//! What is not checked is listed in the report, and the verdict is then *partial*.
//! A dice table's export is checked by [`audit_dice_table`], with the same chain check.

mod by_mail;
#[cfg(test)]
mod by_mail_tests;
mod commands;
pub mod dice_table;
mod legacy;
#[cfg(test)]
mod standing_orders_tests;
#[cfg(test)]
mod tests;

use serde::Serialize;
use warlog_rules::board::Power;
use warlog_rules::dice::GameSeed;
use warlog_rules::game::GameEvent;

use crate::game::{decode_recorded, GameCreated, GameLog, GameStreamEvent, PlacementRow};
use crate::sender::Sender;
use crate::{verify_chain, ChainHead, RecordedEvent};

pub use dice_table::audit_dice_table;

/// What one check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
    /// Not checkable from what was given (e.g. dice before the seed is revealed).
    Skipped,
}

impl Verdict {
    fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Skipped => "SKIP",
        }
    }
}

/// One check of the audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub verdict: Verdict,
    pub detail: String,
    /// The stream version of the first event at fault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<u64>,
}

/// One fault, named by the version of the event at fault, in a plain sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub check: &'static str,
    /// What `event` counts: a stream version (`event`), or a row of a published ladder
    /// (`ladder row`).
    pub location: &'static str,
    pub event: u64,
    pub message: String,
}

/// The audit's overall verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every check was made and held.
    Passed,
    /// Nothing failed, but some checks could not be made (listed in `not_checked`).
    Partial,
    /// At least one finding.
    Failed,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Partial => "partial",
            Outcome::Failed => "failed",
        }
    }
}

/// Where the seed the dice were checked with came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SeedSource {
    Given,
    Revealed,
    None,
}

/// A power's IPC count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PowerIpc {
    pub power: Power,
    pub ipc: u32,
}

/// The audit of one game.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    pub stream_id: Option<String>,
    pub events: usize,
    pub head_hash: Option<String>,
    pub seed: SeedSource,
    pub outcome: Outcome,
    pub checks: Vec<Check>,
    /// Every fault found (at most [`MAX_FINDINGS`]; `findings_total` counts them all).
    pub findings: Vec<Finding>,
    pub findings_total: usize,
    /// What could not be checked, and why.
    pub not_checked: Vec<String>,
    /// Recorded commands decided again, and events they explained.
    pub commands_decided: usize,
    /// Each power's IPC count on the final board replayed.
    pub final_ipc: Vec<PowerIpc>,
    /// Places and points, if the game has ended.
    pub placements: Option<Vec<PlacementRow>>,
    /// What the audit computed besides (a tournament's standings), one line each.
    pub notes: Vec<String>,
}

/// Findings kept in a report; a forged log can have a fault at every event.
pub const MAX_FINDINGS: usize = 100;

impl AuditReport {
    pub fn passed(&self) -> bool {
        self.outcome != Outcome::Failed
    }

    /// The first failed check (checks run in the order listed in the module's docs).
    pub fn first_failure(&self) -> Option<&Check> {
        self.failures().next()
    }

    /// Every failed check.
    pub fn failures(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.verdict == Verdict::Fail)
    }

    pub fn check(&self, name: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.name == name)
    }

    /// A plain-text report: one line a check, one line a finding, what was not checked,
    /// the placements and the verdict.
    pub fn render(&self) -> String {
        let mut out = format!(
            "stream {}: {} events, head {}\n",
            self.stream_id.as_deref().unwrap_or("(none)"),
            self.events,
            self.head_hash.as_deref().unwrap_or("(none)")
        );
        for check in &self.checks {
            out.push_str(&format!(
                "{} {}: {}\n",
                check.verdict.word(),
                check.name,
                check.detail
            ));
            for finding in self.findings.iter().filter(|f| f.check == check.name) {
                out.push_str(&format!(
                    "  {} {}: {}\n",
                    finding.location, finding.event, finding.message
                ));
            }
        }
        if self.findings_total > self.findings.len() {
            out.push_str(&format!(
                "  ... and {} more findings\n",
                self.findings_total - self.findings.len()
            ));
        }
        for what in &self.not_checked {
            out.push_str(&format!("not checked: {what}\n"));
        }
        for note in &self.notes {
            out.push_str(&format!("{note}\n"));
        }
        for row in self.placements.iter().flatten() {
            out.push_str(&format!(
                "place {}{} {}: {} -> {} IPC, gain {:.2}%, points {:.2} ({})\n",
                row.place,
                if row.tied_with > 1 { "=" } else { "" },
                row.power.name(),
                row.initial_ipc,
                row.final_ipc,
                row.percent_gain,
                row.points,
                row.player.as_deref().unwrap_or("no player")
            ));
        }
        out.push_str(&match self.outcome {
            Outcome::Failed => format!(
                "verdict: failed ({} finding{})\n",
                self.findings_total,
                if self.findings_total == 1 { "" } else { "s" }
            ),
            Outcome::Partial => {
                "verdict: partial (nothing failed; see what was not checked)\n".to_owned()
            }
            Outcome::Passed => "verdict: passed\n".to_owned(),
        });
        out
    }
}

impl AuditReport {
    /// A report on `events`, to be finished with the checks made.
    pub fn of(events: &[RecordedEvent]) -> AuditReport {
        AuditReport {
            stream_id: events.first().map(|e| e.stream_id.to_string()),
            events: events.len(),
            head_hash: events.last().map(|e| e.hash.to_hex()),
            seed: SeedSource::None,
            outcome: Outcome::Failed,
            checks: Vec::new(),
            findings: Vec::new(),
            findings_total: 0,
            not_checked: Vec::new(),
            commands_decided: 0,
            final_ipc: Vec::new(),
            placements: None,
            notes: Vec::new(),
        }
    }

    /// The checks made, their findings and what was not checked: the outcome follows.
    pub fn finish(&mut self, ledger: Ledger, checks: Vec<Check>, not_checked: Vec<String>) {
        self.findings_total = ledger.total;
        self.findings = ledger.findings;
        self.checks = checks;
        self.not_checked = not_checked;
        self.outcome =
            if self.findings_total > 0 || self.checks.iter().any(|c| c.verdict == Verdict::Fail) {
                Outcome::Failed
            } else if self.not_checked.is_empty() {
                Outcome::Passed
            } else {
                Outcome::Partial
            };
    }
}

/// Findings as they are made, and the checks' verdicts at the end.
#[derive(Debug, Default)]
pub struct Ledger {
    findings: Vec<Finding>,
    total: usize,
    first: Vec<(&'static str, u64)>,
}

impl Ledger {
    pub fn fail(&mut self, check: &'static str, event: u64, message: impl Into<String>) {
        self.fail_at(check, "event", event, message);
    }

    /// A finding at a row of a published ladder (1 for the first).
    pub fn fail_row(&mut self, check: &'static str, row: u64, message: impl Into<String>) {
        self.fail_at(check, "ladder row", row, message);
    }

    fn fail_at(
        &mut self,
        check: &'static str,
        location: &'static str,
        event: u64,
        message: impl Into<String>,
    ) {
        self.total += 1;
        if !self.first.iter().any(|(c, _)| *c == check) {
            self.first.push((check, event));
        }
        if self.findings.len() < MAX_FINDINGS {
            self.findings.push(Finding {
                check,
                location,
                event,
                message: message.into(),
            });
        }
    }

    fn count(&self, check: &str) -> usize {
        self.findings.iter().filter(|f| f.check == check).count()
    }

    /// The check's verdict: failed if it has findings, else `otherwise`.
    pub fn verdict(
        &self,
        name: &'static str,
        otherwise: Verdict,
        detail: impl Into<String>,
    ) -> Check {
        match self.first.iter().find(|(c, _)| *c == name) {
            Some((_, event)) => {
                let n = self.count(name).max(1);
                Check {
                    name,
                    verdict: Verdict::Fail,
                    detail: format!("{n} finding{}", if n == 1 { "" } else { "s" }),
                    event: Some(*event),
                }
            }
            None => Check {
                name,
                verdict: otherwise,
                detail: detail.into(),
                event: None,
            },
        }
    }
}

/// The auditor's working state for one game.
struct Audit<'a> {
    raw: &'a [RecordedEvent],
    decoded: Vec<(u64, GameStreamEvent)>,
    ledger: Ledger,
    checks: Vec<Check>,
    not_checked: Vec<String>,
}

/// Audits a game stream's events (in stream order) with the seed if the caller has one
/// (without it, the seed revealed in the log, if any), and against a head published
/// earlier if the caller kept one.
pub fn audit_game(
    events: &[RecordedEvent],
    given_seed: Option<&GameSeed>,
    published_head: Option<&ChainHead>,
) -> AuditReport {
    let mut audit = Audit {
        raw: events,
        decoded: Vec::with_capacity(events.len()),
        ledger: Ledger::default(),
        checks: Vec::new(),
        not_checked: Vec::new(),
    };
    let mut report = AuditReport::of(events);
    if check_chain(events, published_head, &mut audit.ledger, &mut audit.checks) {
        if let Some((log, seed)) = audit.created(&mut report, given_seed) {
            audit.replay(log, seed.as_ref(), &mut report);
            let by_mail = by_mail::check_by_mail(&mut audit.ledger, &audit.decoded, audit.raw);
            audit.checks.push(by_mail);
        }
    }
    report.finish(audit.ledger, audit.checks, audit.not_checked);
    report
}

/// Audits a stream's export: its chain (reaching `published_head`, if given), then, if the
/// chain holds, the stream's own checks (`own`: a tournament's, a dice table's), which
/// write to the ledger, the checks, what could not be checked and the report.
pub fn audit_after_chain(
    events: &[RecordedEvent],
    published_head: Option<&ChainHead>,
    own: impl FnOnce(&mut Ledger, &mut Vec<Check>, &mut Vec<String>, &mut AuditReport),
) -> AuditReport {
    let mut report = AuditReport::of(events);
    let mut ledger = Ledger::default();
    let mut checks: Vec<Check> = Vec::new();
    let mut not_checked = Vec::new();
    if check_chain(events, published_head, &mut ledger, &mut checks) {
        own(&mut ledger, &mut checks, &mut not_checked, &mut report);
    }
    report.finish(ledger, checks, not_checked);
    report
}

/// The chain and the head of any stream's export: the file is a whole stream from version
/// 1, every link holds, and it reaches the head published earlier, if one is given.
/// `false` when the file is not a stream the other checks can read.
pub fn check_chain(
    raw: &[RecordedEvent],
    published_head: Option<&ChainHead>,
    ledger: &mut Ledger,
    checks: &mut Vec<Check>,
) -> bool {
    let Some(first) = raw.first() else {
        ledger.fail("chain", 1, "the file holds no events");
        checks.push(ledger.verdict("chain", Verdict::Fail, ""));
        return false;
    };
    if first.stream_version != 1 {
        ledger.fail(
            "chain",
            first.stream_version,
            format!(
                "the file starts at version {}: an export holds the whole stream from \
                 version 1, and a part of one cannot be audited",
                first.stream_version
            ),
        );
        checks.push(ledger.verdict("chain", Verdict::Fail, ""));
        return false;
    }
    let chain = match verify_chain(&first.stream_id, raw) {
        Ok(head) => format!("{} links hold", head.version),
        Err(broken) => {
            ledger.fail("chain", broken.stream_version, broken.kind.to_string());
            String::new()
        }
    };
    checks.push(ledger.verdict("chain", Verdict::Pass, chain));
    if let Some(head) = published_head {
        let last = raw.last().map_or(0, |e| e.stream_version);
        match raw.iter().find(|e| e.stream_version == head.version) {
            None => ledger.fail(
                "head",
                last + 1,
                format!(
                    "the file ends at version {last}, but the published head is at version \
                     {}: events {} to {} are missing",
                    head.version,
                    last + 1,
                    head.version
                ),
            ),
            Some(event) if event.hash != head.hash => ledger.fail(
                "head",
                head.version,
                format!(
                    "event {} hashes to {}, but the published head has {}",
                    head.version,
                    event.hash.to_hex(),
                    head.hash.to_hex()
                ),
            ),
            Some(_) => {}
        }
        checks.push(ledger.verdict(
            "head",
            Verdict::Pass,
            format!(
                "the file reaches the published head at version {}",
                head.version
            ),
        ));
    }
    true
}

impl Audit<'_> {
    /// Decodes the log, checks `GameCreated`, the commitment and the power draw; the game
    /// as created and the seed the dice can be checked with.
    fn created(
        &mut self,
        report: &mut AuditReport,
        given_seed: Option<&GameSeed>,
    ) -> Option<(GameLog, Option<GameSeed>)> {
        for event in self.raw {
            match decode_recorded(event) {
                Ok(e) => self.decoded.push((event.stream_version, e)),
                Err(e) => {
                    self.ledger.fail("replay", e.version, e.message);
                    self.checks
                        .push(self.ledger.verdict("replay", Verdict::Fail, ""));
                    return None;
                }
            }
        }
        let stream = self.raw[0].stream_id.clone();
        let created = match self.decoded.first() {
            Some((_, GameStreamEvent::Created(created))) => created.clone(),
            _ => {
                self.ledger
                    .fail("replay", 1, "a game's log starts with GameCreated");
                self.checks
                    .push(self.ledger.verdict("replay", Verdict::Fail, ""));
                return None;
            }
        };
        if stream.as_str() != format!("game-{}", created.game_id) {
            self.ledger.fail(
                "replay",
                1,
                format!(
                    "GameCreated names game {}, not the stream {stream}",
                    created.game_id
                ),
            );
            self.checks
                .push(self.ledger.verdict("replay", Verdict::Fail, ""));
            return None;
        }
        // The same rule the server applied when it created the game: its master holds no
        // seat in it unless an admin created it.
        let creator = self.raw[0].metadata.get("actor").and_then(|a| a.as_str());
        if let Some(creator) = creator.and_then(Sender::from_actor) {
            if let Err(why) = crate::orders::may_create(&created, &creator) {
                self.ledger
                    .fail("orders", 1, format!("created by {creator}: {why}"));
            }
        }
        let revealed = self.decoded.iter().find_map(|(v, e)| match e {
            GameStreamEvent::SeedRevealed(r) => Some((*v, r.seed.clone())),
            _ => None,
        });
        let seed = self.commitment(report, &created, given_seed, revealed);
        let draw = power_draw(&created, seed.as_ref());
        if let Some((event, message)) = draw.failure {
            self.ledger.fail("power draw", event, message);
        }
        if draw.verdict == Verdict::Skipped {
            self.not_checked
                .push(format!("the power draw: {}", draw.detail));
        }
        self.checks
            .push(self.ledger.verdict("power draw", draw.verdict, draw.detail));
        match GameLog::new(created) {
            Ok(log) => Some((log, seed)),
            Err(e) => {
                self.ledger.fail("replay", e.version, e.message);
                self.checks
                    .push(self.ledger.verdict("replay", Verdict::Fail, ""));
                None
            }
        }
    }

    /// Checks the seed against the commitment; the seed the dice can be checked with.
    fn commitment(
        &mut self,
        report: &mut AuditReport,
        created: &GameCreated,
        given: Option<&GameSeed>,
        revealed: Option<(u64, String)>,
    ) -> Option<GameSeed> {
        let revealed_seed = revealed.as_ref().map(|(v, hex_seed)| {
            (
                *v,
                hex::decode(hex_seed)
                    .ok()
                    .and_then(|b| <[u8; 32]>::try_from(b).ok())
                    .map(GameSeed::from_bytes),
            )
        });
        let (seed, at, source) = match (given, revealed_seed) {
            (Some(seed), _) => (seed.clone(), 1, SeedSource::Given),
            (None, Some((v, Some(seed)))) => (seed, v, SeedSource::Revealed),
            (None, Some((v, None))) => {
                self.ledger.fail(
                    "commitment",
                    v,
                    "SeedRevealed does not hold a 32-byte hex seed",
                );
                self.checks
                    .push(self.ledger.verdict("commitment", Verdict::Fail, ""));
                return None;
            }
            (None, None) => {
                self.not_checked.push(
                    "the dice and the seed's commitment: the seed is not revealed (it is when \
                     the game ends) and none was given"
                        .to_owned(),
                );
                self.checks.push(self.ledger.verdict(
                    "commitment",
                    Verdict::Skipped,
                    "the seed is not revealed and none was given",
                ));
                return None;
            }
        };
        report.seed = source;
        let commitment = hex::encode(seed.commitment());
        if commitment != created.seed_commitment {
            self.ledger.fail(
                "commitment",
                at,
                format!(
                    "SHA-256 of the {} seed is {commitment}, not the commitment {} in GameCreated",
                    if source == SeedSource::Given {
                        "given"
                    } else {
                        "revealed"
                    },
                    created.seed_commitment
                ),
            );
            self.checks
                .push(self.ledger.verdict("commitment", Verdict::Fail, ""));
            return None;
        }
        self.checks.push(self.ledger.verdict(
            "commitment",
            Verdict::Pass,
            "SHA-256 of the seed is the commitment in GameCreated",
        ));
        Some(seed)
    }

    /// Folds the log, deciding every recorded command again.
    fn replay(&mut self, mut log: GameLog, seed: Option<&GameSeed>, report: &mut AuditReport) {
        let orders_recorded = log.created.orders_recorded;
        let revealed = self.decoded.iter().find_map(|(_, e)| match e {
            GameStreamEvent::SeedRevealed(r) => Some(r.seed.clone()),
            _ => None,
        });
        let mut undecided: Vec<u64> = Vec::new();
        let mut dice_events = 0;
        let mut version_offset: i128 = 0;
        let n = self.decoded.len();
        let mut i = 1;
        while i < n {
            if let GameStreamEvent::Orders(given) = &self.decoded[i].1 {
                let end = self.decoded[i + 1..]
                    .iter()
                    .position(|(_, e)| matches!(e, GameStreamEvent::Orders(_)))
                    .map_or(n, |k| i + 1 + k);
                let mut given = given.clone();
                // A record that names another version than the one it follows: an event
                // was inserted or dropped before it. Named where the offset first changes
                // (not at every later record), and the command still decided on the
                // version it follows.
                let offset = i128::from(log.version) - i128::from(given.expected_version);
                if offset != version_offset {
                    self.ledger.fail(
                        "orders",
                        self.decoded[i].0,
                        format!(
                            "the orders recorded here say they were decided on version {}, but \
                             they follow version {}: {}",
                            given.expected_version,
                            log.version,
                            if offset > version_offset {
                                "an event was inserted before them"
                            } else {
                                "an event before them was dropped"
                            }
                        ),
                    );
                    version_offset = offset;
                }
                given.expected_version = log.version;
                let outcome = commands::check_command(
                    &mut self.ledger,
                    &log,
                    &given,
                    &self.decoded[i..end],
                    &self.raw[i..end],
                    &self.decoded,
                    seed,
                    revealed.as_deref(),
                );
                report.commands_decided += 1;
                dice_events += outcome.dice_events;
                match outcome.after {
                    Some(after) => log = after,
                    None => {
                        if let Err(e) = fold(&mut log, &self.decoded[i..end]) {
                            self.ledger.fail("replay", e.version, e.message);
                            self.checks
                                .push(self.ledger.verdict("replay", Verdict::Fail, ""));
                            return;
                        }
                    }
                }
                i = end;
                continue;
            }
            let (version, event) = &self.decoded[i];
            if orders_recorded {
                self.ledger.fail(
                    "orders",
                    *version,
                    format!(
                        "{} is not explained by any recorded order: every event of this game \
                         follows the OrdersGiven that caused it",
                        commands::event_name(event)
                    ),
                );
            } else {
                undecided.push(*version);
                dice_events +=
                    legacy::check_dice_bearing(&mut self.ledger, &log, i, &self.decoded, seed);
            }
            if let Err(e) = fold(&mut log, &self.decoded[i..=i]) {
                self.ledger.fail("replay", e.version, e.message);
                self.checks
                    .push(self.ledger.verdict("replay", Verdict::Fail, ""));
                return;
            }
            i += 1;
        }
        self.checks.push(self.ledger.verdict(
            "replay",
            Verdict::Pass,
            format!(
                "{n} events fold to round {}, the {} phase, {} to play",
                log.state.round,
                log.state.phase.name(),
                log.state.power(&log.ruleset.board).name()
            ),
        ));
        let orders_verdict = if undecided.is_empty() {
            Verdict::Pass
        } else {
            self.not_checked.push(format!(
                "{}: recorded before orders were on the record, so folded and their dice \
                 checked, but not decided again",
                version_ranges(&undecided)
            ));
            Verdict::Skipped
        };
        self.checks.push(self.ledger.verdict(
            "orders",
            orders_verdict,
            format!(
                "{} recorded commands decided again give exactly the events that follow them{}",
                report.commands_decided,
                if undecided.is_empty() {
                    String::new()
                } else {
                    format!("; {} events not decided again", undecided.len())
                }
            ),
        ));
        self.checks.push(match seed {
            Some(_) => self.ledger.verdict(
                "dice",
                Verdict::Pass,
                format!(
                    "{} match the seed",
                    warlog_rules::words::counted(
                        dice_events as u64,
                        "dice-bearing event",
                        "dice-bearing events"
                    )
                ),
            ),
            None => self.ledger.verdict(
                "dice",
                Verdict::Skipped,
                "the seed is not known: the dice cannot be recomputed",
            ),
        });
        self.final_board(&log, report);
    }

    fn final_board(&mut self, log: &GameLog, report: &mut AuditReport) {
        report.final_ipc = log
            .ruleset
            .powers()
            .iter()
            .map(|p| PowerIpc {
                power: *p,
                ipc: log.state.ipc_count(&log.ruleset.board, *p),
            })
            .collect();
        let ended = self.decoded.iter().find_map(|(v, e)| match e {
            GameStreamEvent::Played(GameEvent::GameEnded { final_ipc, .. }) => {
                Some((*v, final_ipc))
            }
            _ => None,
        });
        if let Some(reason) = &log.state.voided {
            let detail = format!("the game was voided ({reason}): it has no final board to score");
            self.checks
                .push(self.ledger.verdict("final board", Verdict::Pass, detail));
            self.checks.push(self.ledger.verdict(
                "placements",
                Verdict::Pass,
                "a voided game has no places and no points",
            ));
            return;
        }
        let Some((version, final_ipc)) = ended else {
            self.not_checked
                .push("the final board and the placements: the game has not ended".to_owned());
            self.checks.push(self.ledger.verdict(
                "final board",
                Verdict::Skipped,
                "the game has not ended",
            ));
            self.checks.push(self.ledger.verdict(
                "placements",
                Verdict::Skipped,
                "the game has not ended",
            ));
            return;
        };
        let board: Vec<(Power, u32)> = report.final_ipc.iter().map(|p| (p.power, p.ipc)).collect();
        if *final_ipc != board {
            self.ledger.fail(
                "final board",
                version,
                format!(
                    "GameEnded records {}; the board replayed gives {}",
                    ipc_text(final_ipc),
                    ipc_text(&board)
                ),
            );
        }
        self.checks.push(self.ledger.verdict(
            "final board",
            Verdict::Pass,
            "the final IPC counts are the board's",
        ));
        if matches!(
            log.status(),
            crate::game::GameStatus::Aborted | crate::game::GameStatus::MasterOnly
        ) {
            let why = log.why_not_rated().unwrap_or_default();
            self.checks.push(self.ledger.verdict(
                "placements",
                Verdict::Pass,
                format!("{why}: no places and no points"),
            ));
            return;
        }
        match log.placements() {
            None => self.ledger.fail(
                "placements",
                version,
                "the log records GameEnded but the board replayed has not ended",
            ),
            Some(Ok(rows)) => report.placements = Some(rows),
            Some(Err(e)) => self.ledger.fail("placements", log.version, e),
        }
        self.checks.push(self.ledger.verdict(
            "placements",
            Verdict::Pass,
            "places and points from the final IPC counts",
        ));
    }
}

/// How a decided payload and a recorded one differ, in words: their first field that does.
pub fn field_difference(decided: &serde_json::Value, recorded: &serde_json::Value) -> String {
    field_difference_named(decided, recorded, &|_, _| None)
}

/// The same, with `name` giving a field's value in words where it can (board names for
/// territory ids, unit codes for unit ids).
pub fn field_difference_named(
    decided: &serde_json::Value,
    recorded: &serde_json::Value,
    name: &dyn Fn(&str, &serde_json::Value) -> Option<String>,
) -> String {
    let field = match (decided.as_object(), recorded.as_object()) {
        (Some(d), Some(r)) => d
            .keys()
            .chain(r.keys())
            .find(|k| d.get(*k) != r.get(*k))
            .cloned(),
        _ => None,
    };
    let text = |value: Option<&serde_json::Value>| match value {
        Some(v) => name(field.as_deref().unwrap_or_default(), v).unwrap_or_else(|| short(Some(v))),
        None => "absent".to_owned(),
    };
    match &field {
        Some(key) => format!(
            "its {} is {} in the log, {} by the rules",
            key.replace('_', " "),
            text(recorded.get(key)),
            text(decided.get(key))
        ),
        None => "they differ".to_owned(),
    }
}

fn short(value: Option<&serde_json::Value>) -> String {
    let text = value.map_or_else(|| "absent".to_owned(), |v| v.to_string());
    if text.chars().count() > 120 {
        format!("{}...", text.chars().take(117).collect::<String>())
    } else {
        text
    }
}

/// Folds recorded events onto the log as they are.
fn fold(
    log: &mut GameLog,
    events: &[(u64, GameStreamEvent)],
) -> Result<(), crate::game::GameLogError> {
    for (version, event) in events {
        log.apply(*version, event)?;
    }
    Ok(())
}

/// `Germany 40, Russia 24` from (power, count) pairs.
fn ipc_text(counts: &[(Power, u32)]) -> String {
    counts
        .iter()
        .map(|(p, n)| format!("{} {n}", p.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `events 2 to 40, 43` from sorted versions.
fn version_ranges(versions: &[u64]) -> String {
    let mut parts = Vec::new();
    let mut start = versions[0];
    let mut end = start;
    for &v in &versions[1..] {
        if v == end + 1 {
            end = v;
        } else {
            parts.push((start, end));
            start = v;
            end = v;
        }
    }
    parts.push((start, end));
    let text: Vec<String> = parts
        .iter()
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a} to {b}")
            }
        })
        .collect();
    format!(
        "event{} {}",
        if versions.len() == 1 { "" } else { "s" },
        text.join(", ")
    )
}

/// The power draw's verdict.
struct Draw {
    verdict: Verdict,
    detail: String,
    failure: Option<(u64, String)>,
}

fn power_draw(created: &GameCreated, seed: Option<&GameSeed>) -> Draw {
    let skip = |detail: String| Draw {
        verdict: Verdict::Skipped,
        detail,
        failure: None,
    };
    let fail = |message: String| Draw {
        verdict: Verdict::Fail,
        detail: String::new(),
        failure: Some((1, message)),
    };
    if let Some(seated_by) = &created.seated_by {
        return skip(format!(
            "the seats are {seated_by}'s, drawn and recorded in that tournament's log (audit its export)"
        ));
    }
    let Some(seed) = seed else {
        return skip("no seed that matches the commitment".to_owned());
    };
    let ruleset = match created.ruleset() {
        Ok(ruleset) => ruleset,
        Err(e) => return fail(e),
    };
    let mut dice = seed.dice_for(&created.game_id, 1);
    match GameCreated::draw(
        ruleset,
        &created.players,
        created.bids.as_deref(),
        &mut dice,
    ) {
        Ok(seats) if seats == created.seats => Draw {
            verdict: Verdict::Pass,
            detail: "the seats are the seed's first draw".to_owned(),
            failure: None,
        },
        Ok(seats) => fail(format!(
            "GameCreated seats {}; the seed draws {}",
            seats_text(&created.seats),
            seats_text(&seats)
        )),
        Err(e) => fail(e.message),
    }
}

fn seats_text(seats: &[(Power, String)]) -> String {
    seats
        .iter()
        .map(|(p, who)| format!("{} at {}", who, p.name()))
        .collect::<Vec<_>>()
        .join(", ")
}
