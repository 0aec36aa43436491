//! The auditor: checks a game's log with nothing but the log and, once known, the seed.
//! The server's `GET /v1/games/{id}/audit` and the offline `warlog audit FILE.ndjson` both
//! run [`audit_game`], so they cannot disagree.
//!
//! The checks, each with a verdict and the first event at fault:
//! - **chain**: every hash link (DESIGN.md, "The event store contract");
//! - **replay**: every event decodes and folds onto the ruleset's board;
//! - **commitment**: SHA-256 of the seed (given, or revealed in the log) is the one
//!   `GameCreated` committed to;
//! - **power draw**: the seats are the seed's first draw;
//! - **dice**: every dice-bearing event is what its order gives with the seed's dice for
//!   that event's stream version;
//! - **consequences**: every dice-bearing event follows from its own dice (checkable before
//!   the seed is revealed);
//! - **final board**: the final IPC counts in `GameEnded` are the board's;
//! - **placements**: places and points from the final counts.

use serde::Serialize;
use warlog_rules::board::Power;
use warlog_rules::dice::{GameSeed, RecordedDice};
use warlog_rules::game::replay::{dice_rolled, order_behind};
use warlog_rules::game::{decide, GameEvent, Moment};

use crate::game::{decode_recorded, GameCreated, GameLog, GameStreamEvent, PlacementRow};
use crate::{verify_chain, RecordedEvent};

/// What one check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
    /// Not checkable from what was given (e.g. dice before the seed is revealed).
    Skipped,
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

impl Check {
    fn pass(name: &'static str, detail: impl Into<String>) -> Self {
        Check {
            name,
            verdict: Verdict::Pass,
            detail: detail.into(),
            event: None,
        }
    }

    fn fail(name: &'static str, event: u64, detail: impl Into<String>) -> Self {
        Check {
            name,
            verdict: Verdict::Fail,
            detail: detail.into(),
            event: Some(event),
        }
    }

    fn skipped(name: &'static str, detail: impl Into<String>) -> Self {
        Check {
            name,
            verdict: Verdict::Skipped,
            detail: detail.into(),
            event: None,
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

/// The audit of one game.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    pub stream_id: Option<String>,
    pub events: usize,
    pub head_hash: Option<String>,
    pub seed: SeedSource,
    pub checks: Vec<Check>,
    /// Each power's IPC count on the final board replayed.
    pub final_ipc: Vec<(Power, u32)>,
    /// Places and points, if the game has ended.
    pub placements: Option<Vec<PlacementRow>>,
}

impl AuditReport {
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.verdict != Verdict::Fail)
    }

    /// The first failed check (checks run in the order listed in the module's docs).
    pub fn first_failure(&self) -> Option<&Check> {
        self.failures().next()
    }

    /// Every failed check, as (name, first event at fault).
    pub fn failures(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.verdict == Verdict::Fail)
    }

    /// A plain-text report, one line a check.
    pub fn render(&self) -> String {
        let mut out = format!(
            "stream {}: {} events, head {}\n",
            self.stream_id.as_deref().unwrap_or("?"),
            self.events,
            self.head_hash.as_deref().unwrap_or("-")
        );
        for check in &self.checks {
            let verdict = match check.verdict {
                Verdict::Pass => "PASS",
                Verdict::Fail => "FAIL",
                Verdict::Skipped => "SKIP",
            };
            let at = check
                .event
                .map(|v| format!(" (event {v})"))
                .unwrap_or_default();
            out.push_str(&format!(
                "{verdict} {:<13}{at} {}\n",
                check.name, check.detail
            ));
        }
        for row in self.placements.iter().flatten() {
            out.push_str(&format!(
                "  place {} {:<8} {:>3} -> {:>3} IPC, gain {:>7.2}%, points {} ({})\n",
                row.place,
                row.power.name(),
                row.initial_ipc,
                row.final_ipc,
                row.percent_gain_pct,
                row.points,
                row.player.as_deref().unwrap_or("-")
            ));
        }
        out.push_str(if self.passed() {
            "verdict: PASS\n"
        } else {
            "verdict: FAIL\n"
        });
        out
    }
}

/// How many events after a dice-bearing one the auditor compares a re-decided order with:
/// far more than any order makes (a battle, then the agreements a capital's loss voids).
const ORDER_WINDOW: usize = 64;

/// Audits a game stream's events (in stream order) with the seed if the caller has one;
/// without it, the seed revealed in the log (if any) is used.
pub fn audit_game(events: &[RecordedEvent], given_seed: Option<&GameSeed>) -> AuditReport {
    let mut report = AuditReport {
        stream_id: events.first().map(|e| e.stream_id.to_string()),
        events: events.len(),
        head_hash: events.last().map(|e| e.hash.to_hex()),
        seed: SeedSource::None,
        checks: Vec::new(),
        final_ipc: Vec::new(),
        placements: None,
    };
    let Some(first) = events.first() else {
        report
            .checks
            .push(Check::fail("chain", 1, "the log has no events"));
        return report;
    };
    report
        .checks
        .push(match verify_chain(&first.stream_id, events) {
            Ok(head) => Check::pass("chain", format!("{} links hold", head.version)),
            Err(broken) => Check::fail("chain", broken.stream_version, broken.to_string()),
        });

    // Decode everything first: the dice checks look ahead at an order's later events.
    let mut decoded = Vec::with_capacity(events.len());
    for event in events {
        match decode_recorded(event) {
            Ok(e) => decoded.push((event.stream_version, e)),
            Err(e) => {
                report
                    .checks
                    .push(Check::fail("replay", e.version, e.message));
                return report;
            }
        }
    }
    let Some((_, GameStreamEvent::Created(created))) = decoded.first() else {
        report.checks.push(Check::fail(
            "replay",
            first.stream_version,
            "a game's log starts with GameCreated",
        ));
        return report;
    };
    if first.stream_id.as_str() != format!("game-{}", created.game_id) {
        report.checks.push(Check::fail(
            "replay",
            1,
            format!(
                "GameCreated names game {}, not the stream {}",
                created.game_id, first.stream_id
            ),
        ));
        return report;
    }

    let revealed = decoded.iter().find_map(|(v, e)| match e {
        GameStreamEvent::SeedRevealed(r) => Some((*v, r.seed.clone())),
        _ => None,
    });
    let seed = check_commitment(&mut report, created, given_seed, revealed);
    report.checks.push(power_draw(created, seed.as_ref()));

    let mut log = match GameLog::new(created.clone()) {
        Ok(log) => log,
        Err(e) => {
            report
                .checks
                .push(Check::fail("replay", e.version, e.message));
            return report;
        }
    };
    let mut dice_check = match &seed {
        Some(_) => Check::pass("dice", "every die is the seed's"),
        None => Check::skipped(
            "dice",
            "the seed is not revealed: dice cannot be recomputed",
        ),
    };
    let mut consequences = Check::pass(
        "consequences",
        "every battle, raid and roll follows from its dice",
    );
    let mut final_board = Check::skipped("final board", "the game has not ended");
    let mut dice_events = 0;
    for (i, (version, event)) in decoded.iter().enumerate().skip(1) {
        if let GameStreamEvent::Played(played) = event {
            if let Some((power, order)) = order_behind(played) {
                dice_events += 1;
                // The order's events follow this one; an order makes only a few, so a
                // short window of what follows is all a comparison can need.
                let recorded: Vec<&GameEvent> = decoded[i..]
                    .iter()
                    .take(ORDER_WINDOW)
                    .filter_map(|(_, e)| match e {
                        GameStreamEvent::Played(p) => Some(p),
                        _ => None,
                    })
                    .collect();
                let rules = log.ruleset.rules();
                let own = dice_rolled(played);
                let mut recorded_dice = RecordedDice::new(&own);
                let again = decide(
                    rules,
                    &log.state,
                    power,
                    &order,
                    Moment::default(),
                    &mut recorded_dice,
                );
                let follows = same_events(&again, &recorded) && recorded_dice.used_exactly();
                if consequences.verdict == Verdict::Pass && !follows {
                    consequences = Check::fail(
                        "consequences",
                        *version,
                        format!(
                            "{} does not follow from its own dice on the board before it",
                            event_name(played)
                        ),
                    );
                }
                if let (Some(seed), Verdict::Pass) = (&seed, dice_check.verdict) {
                    let mut dice = seed.dice_for(&created.game_id, *version);
                    let seeded = decide(
                        rules,
                        &log.state,
                        power,
                        &order,
                        Moment::default(),
                        &mut dice,
                    );
                    if !same_events(&seeded, &recorded) {
                        let from_seed = seeded
                            .as_ref()
                            .ok()
                            .and_then(|e| e.first())
                            .map(dice_rolled)
                            .unwrap_or_default();
                        dice_check = Check::fail(
                            "dice",
                            *version,
                            format!(
                                "{} records dice {} but the seed gives {}",
                                event_name(played),
                                dice_text(&own),
                                dice_text(&from_seed)
                            ),
                        );
                    }
                }
            }
            if let GameEvent::GameEnded { final_ipc, .. } = played {
                let board: Vec<(Power, u32)> = log
                    .ruleset
                    .powers()
                    .iter()
                    .map(|p| (*p, log.state.ipc_count(&log.ruleset.board, *p)))
                    .collect();
                final_board = if *final_ipc == board {
                    Check::pass("final board", "the final IPC counts are the board's")
                } else {
                    Check::fail(
                        "final board",
                        *version,
                        format!(
                            "GameEnded records {final_ipc:?}; the board replayed gives {board:?}"
                        ),
                    )
                };
            }
        }
        if let Err(e) = log.apply(*version, event) {
            report
                .checks
                .push(Check::fail("replay", e.version, e.message));
            return report;
        }
    }
    report.checks.push(Check::pass(
        "replay",
        format!(
            "{} events fold to round {}, {:?} of {}",
            decoded.len(),
            log.state.round,
            log.state.phase,
            log.state.power(&log.ruleset.board)
        ),
    ));
    if dice_check.verdict == Verdict::Pass {
        dice_check.detail = format!("{dice_events} dice-bearing events match the seed");
    }
    report.checks.push(dice_check);
    report.checks.push(consequences);
    report.checks.push(final_board);
    report.final_ipc = log
        .ruleset
        .powers()
        .iter()
        .map(|p| (*p, log.state.ipc_count(&log.ruleset.board, *p)))
        .collect();
    report.checks.push(match log.placements() {
        None => Check::skipped("placements", "the game has not ended"),
        Some(Ok(rows)) => {
            report.placements = Some(rows);
            Check::pass("placements", "places and points from the final IPC counts")
        }
        Some(Err(e)) => Check::fail("placements", log.version, e),
    });
    report
}

/// Checks the seed against the commitment; the seed the dice can be checked with, if any.
fn check_commitment(
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
        (Some(seed), _) => (Some(seed.clone()), 1, SeedSource::Given),
        (None, Some((v, Some(seed)))) => (Some(seed), v, SeedSource::Revealed),
        (None, Some((v, None))) => {
            report.checks.push(Check::fail(
                "commitment",
                v,
                "SeedRevealed does not hold a 32-byte hex seed",
            ));
            return None;
        }
        (None, None) => {
            report.checks.push(Check::skipped(
                "commitment",
                "the seed is not revealed and none was given",
            ));
            return None;
        }
    };
    report.seed = source;
    let seed = seed?;
    let commitment = hex::encode(seed.commitment());
    if commitment != created.seed_commitment {
        report.checks.push(Check::fail(
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
        ));
        return None;
    }
    report.checks.push(Check::pass(
        "commitment",
        "SHA-256 of the seed is the commitment in GameCreated",
    ));
    Some(seed)
}

fn power_draw(created: &GameCreated, seed: Option<&GameSeed>) -> Check {
    if let Some(seated_by) = &created.seated_by {
        return Check::skipped(
            "power draw",
            format!("the seats are {seated_by}'s, drawn and recorded in that tournament's log"),
        );
    }
    let Some(seed) = seed else {
        return Check::skipped("power draw", "no seed that matches the commitment");
    };
    let ruleset = match created.ruleset() {
        Ok(ruleset) => ruleset,
        Err(e) => return Check::fail("power draw", 1, e),
    };
    let mut dice = seed.dice_for(&created.game_id, 1);
    match GameCreated::draw(
        ruleset,
        &created.players,
        created.bids.as_deref(),
        &mut dice,
    ) {
        Ok(seats) if seats == created.seats => {
            Check::pass("power draw", "the seats are the seed's first draw")
        }
        Ok(seats) => Check::fail(
            "power draw",
            1,
            format!(
                "GameCreated seats {:?}; the seed draws {seats:?}",
                created.seats
            ),
        ),
        Err(e) => Check::fail("power draw", 1, e.message),
    }
}

fn same_events(
    decided: &Result<Vec<GameEvent>, warlog_rules::game::RuleViolation>,
    recorded: &[&GameEvent],
) -> bool {
    match decided {
        Ok(events) => {
            events.len() <= recorded.len() && events.iter().zip(recorded).all(|(a, b)| a == *b)
        }
        Err(_) => false,
    }
}

fn event_name(event: &GameEvent) -> String {
    GameStreamEvent::Played(event.clone())
        .encode()
        .map(|(t, _, _)| t.to_string())
        .unwrap_or_else(|_| "event".to_owned())
}

fn dice_text(dice: &[warlog_rules::dice::Die]) -> String {
    let values: Vec<String> = dice.iter().map(|d| d.to_string()).collect();
    format!("[{}]", values.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::SeedRevealed;
    use crate::{relink, Hash, StreamId};
    use warlog_rules::game::autoplay::random_order;
    use warlog_rules::game::DirectorOrder;
    use warlog_rules::ruleset::Ruleset;

    const GAME: &str = "7";

    fn seed() -> GameSeed {
        GameSeed::from_bytes([42; 32])
    }

    /// Plays a random game through the same decide-and-fold path as the server, to its
    /// end and the reveal, and records it with a proper chain.
    fn played_game() -> Vec<RecordedEvent> {
        let ruleset = Ruleset::builtin("cutthroat").expect("ruleset");
        let players = ["ann", "bob", "cy", "di", "ed"].map(String::from).to_vec();
        let at = Moment::from_unix_seconds(1_800_000_000);
        let created = GameLog::create(ruleset, GAME, players, "gm".into(), None, at, &seed())
            .expect("created");
        let mut stream = vec![GameStreamEvent::Created(created.clone())];
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
                stream.push(event);
            }
        }
        assert!(dice_events > 3, "the game rolled dice {dice_events} times");
        for event in log
            .decide_director(&DirectorOrder::EndGame, at)
            .expect("ends")
        {
            stream.push(GameStreamEvent::Played(event));
        }
        stream.push(GameStreamEvent::SeedRevealed(SeedRevealed {
            seed: hex::encode(seed().expose()),
        }));
        let stream_id = StreamId::try_from(format!("game-{GAME}")).expect("id");
        let mut recorded: Vec<RecordedEvent> = stream
            .iter()
            .enumerate()
            .map(|(i, event)| {
                let (event_type, event_version, payload) = event.encode().expect("encodes");
                RecordedEvent {
                    position: i as i64 + 1,
                    stream_id: stream_id.clone(),
                    stream_version: i as u64 + 1,
                    event_id: uuid::Uuid::from_u128(i as u128 + 1),
                    event_type,
                    event_version,
                    payload,
                    metadata: serde_json::json!({"recorded_at": "2027-01-15T12:00:00Z"}),
                    tx_id: 0,
                    prev_hash: Hash::genesis(&stream_id),
                    hash: Hash::genesis(&stream_id),
                }
            })
            .collect();
        relink(&mut recorded);
        recorded
    }

    fn first_dice_event(events: &[RecordedEvent]) -> usize {
        events
            .iter()
            .position(|e| {
                e.payload
                    .get("dice")
                    .is_some_and(|d| d.as_array().is_some_and(|a| !a.is_empty()))
            })
            .expect("a battle or research with dice")
    }

    #[test]
    fn an_honest_game_passes_every_check_with_the_revealed_seed() {
        let events = played_game();
        let report = audit_game(&events, None);
        assert!(report.passed(), "{}", report.render());
        assert_eq!(report.seed, SeedSource::Revealed);
        for check in &report.checks {
            assert_eq!(check.verdict, Verdict::Pass, "{}", report.render());
        }
        let placements = report.placements.expect("the game ended");
        assert_eq!(placements.len(), 5);
    }

    #[test]
    fn before_the_reveal_the_dice_are_skipped_but_their_consequences_are_checked() {
        let mut events = played_game();
        events.pop();
        let report = audit_game(&events, None);
        assert!(report.passed(), "{}", report.render());
        let verdict = |name| {
            report
                .checks
                .iter()
                .find(|c| c.name == name)
                .map(|c| c.verdict)
        };
        assert_eq!(verdict("dice"), Some(Verdict::Skipped));
        assert_eq!(verdict("consequences"), Some(Verdict::Pass));
    }

    #[test]
    fn a_changed_die_is_named_even_when_the_forger_recomputes_the_chain() {
        let mut events = played_game();
        let i = first_dice_event(&events);
        let dice = events[i].payload["dice"].as_array_mut().expect("dice");
        let old = dice[0].as_u64().expect("a die");
        dice[0] = serde_json::json!(old % 6 + 1);
        let version = events[i].stream_version;
        // Untouched chain: the chain check names the event.
        let report = audit_game(&events, None);
        assert_eq!(
            report.first_failure().map(|c| (c.name, c.event)),
            Some(("chain", Some(version)))
        );
        // Recomputed chain: the dice check names it.
        relink(&mut events);
        let report = audit_game(&events, None);
        assert!(
            report
                .failures()
                .any(|c| (c.name, c.event) == ("dice", Some(version))),
            "{}",
            report.render()
        );
    }

    #[test]
    fn a_changed_payload_breaks_the_chain_at_that_event() {
        let mut events = played_game();
        let i = events.len() / 2;
        events[i].payload["tampered"] = serde_json::json!(true);
        let report = audit_game(&events, None);
        let failure = report.first_failure().expect("fails");
        assert_eq!(
            (failure.name, failure.event),
            ("chain", Some(events[i].stream_version))
        );
    }

    #[test]
    fn the_wrong_seed_fails_the_commitment_at_game_created() {
        let events = played_game();
        let report = audit_game(&events, Some(&GameSeed::from_bytes([1; 32])));
        let failure = report.first_failure().expect("fails");
        assert_eq!((failure.name, failure.event), ("commitment", Some(1)));
        assert!(!report.passed());
    }

    #[test]
    fn seats_not_drawn_from_the_seed_are_named() {
        let mut events = played_game();
        let seats = events[0].payload["seats"].as_array_mut().expect("seats");
        seats.swap(0, 1);
        relink(&mut events);
        let report = audit_game(&events, None);
        assert_eq!(
            report.first_failure().map(|c| (c.name, c.event)),
            Some(("power draw", Some(1)))
        );
    }

    #[test]
    fn an_id_off_the_board_is_a_replay_failure_not_a_crash() {
        let mut events = played_game();
        let i = events
            .iter()
            .position(|e| e.event_type.as_str() == "UnitsPlaced")
            .expect("a placement");
        events[i].payload["territory"] = serde_json::json!(250);
        relink(&mut events);
        let report = audit_game(&events, None);
        assert_eq!(
            report.first_failure().map(|c| (c.name, c.event)),
            Some(("replay", Some(events[i].stream_version)))
        );
    }
}
