//! Deciding a recorded command again: the heart of the audit. The command is decided on
//! the board before it with [`GameLog::decide_command`] (the server's own decision) and
//! must give exactly the events that follow its record, written by its sender.

use warlog_rules::dice::{Die, GameSeed};
use warlog_rules::game::replay::dice_rolled;
use warlog_rules::game::GameEvent;

use super::Ledger;
use crate::game::{GameLog, GameStreamEvent};
use crate::orders::{Command, Decided, DiceSupply, OrdersGiven, Refusal};
use crate::RecordedEvent;
use warlog_rules::ruleset::Ruleset;

/// What deciding one command again found.
pub(super) struct CommandOutcome {
    /// The game after the command, when its events are exactly the decided ones.
    pub after: Option<GameLog>,
    /// Dice-bearing events checked against the seed.
    pub dice_events: usize,
}

/// Decides `given` again on `log` and compares it with `batch` (its record, then the
/// events up to the next record), whose raw events are `raw`. `all` is the whole log
/// (recorded dice are looked up by version).
#[allow(clippy::too_many_arguments)]
pub(super) fn check_command(
    ledger: &mut Ledger,
    log: &GameLog,
    given: &OrdersGiven,
    batch: &[(u64, GameStreamEvent)],
    raw: &[RecordedEvent],
    all: &[(u64, GameStreamEvent)],
    seed: Option<&GameSeed>,
    revealed: Option<&str>,
) -> CommandOutcome {
    let record = batch[0].0;
    let sender = given.sender.actor();
    if let Some(event) = raw.iter().find(|e| actor(e) != Some(sender.as_str())) {
        ledger.fail(
            "orders",
            event.stream_version,
            format!(
                "{} was written by {}; the orders recorded at event {record} were sent by {sender}",
                event_name_raw(event),
                actor(event).unwrap_or("nobody")
            ),
        );
    }
    // What the log recorded at a version: the dice and any reveal an order's decision
    // takes from there when the seed is not known.
    let played_at = |version: u64| match version.checked_sub(1).and_then(|i| all.get(i as usize)) {
        Some((_, GameStreamEvent::Played(played))) => Some(played),
        _ => None,
    };
    let dice_at =
        |version: u64| -> Vec<Die> { played_at(version).map(dice_rolled).unwrap_or_default() };
    let reveal_at = |version: u64| match played_at(version) {
        Some(GameEvent::StandingOrdersRevealed { orders, salt, .. }) => {
            Some((orders.clone(), salt.clone()))
        }
        _ => None,
    };
    let own_dice = DiceSupply::Recorded {
        dice_at: &dice_at,
        reveal_at: &reveal_at,
        revealed,
    };
    let dice_events = batch
        .iter()
        .filter(|(_, e)| matches!(e, GameStreamEvent::Played(p) if !dice_rolled(p).is_empty()))
        .count();
    let Some(seed) = seed else {
        let own = log.decide_command(given, own_dice);
        if matches(&own, given, batch) {
            return CommandOutcome {
                after: own.ok().map(|d| d.after),
                dice_events: 0,
            };
        }
        describe(ledger, log.ruleset, given, record, &own, batch);
        return CommandOutcome {
            after: None,
            dice_events: 0,
        };
    };
    let seeded = log.decide_command(given, DiceSupply::Seed(seed));
    if matches(&seeded, given, batch) {
        return CommandOutcome {
            after: seeded.ok().map(|d| d.after),
            dice_events,
        };
    }
    // Not the seed's outcome. Dice that are not the seed's are named; and unless the events
    // are what their own dice give, so are the events. Where no die differs, the seed
    // decides it: sealed standing orders that do not open with it, or a reveal that is not
    // theirs, are named even if the record agrees with itself.
    match dice_difference(&seeded, batch) {
        Some((version, message)) => ledger.fail("dice", version, message),
        None => {
            describe(ledger, log.ruleset, given, record, &seeded, batch);
            return CommandOutcome {
                after: None,
                dice_events,
            };
        }
    }
    let own = log.decide_command(given, own_dice);
    if matches(&own, given, batch) {
        return CommandOutcome {
            after: own.ok().map(|d| d.after),
            dice_events,
        };
    }
    describe(ledger, log.ruleset, given, record, &own, batch);
    CommandOutcome {
        after: None,
        dice_events,
    }
}

/// Whether the decision gives exactly the batch's events after its record (the record
/// itself is the batch's own, its version checked by the caller).
fn matches(
    decided: &Result<Decided, Refusal>,
    given: &OrdersGiven,
    batch: &[(u64, GameStreamEvent)],
) -> bool {
    decided.as_ref().is_ok_and(|d| {
        d.events.len() == batch.len()
            && same_record(&d.events[0], given)
            && d.events.iter().zip(batch).skip(1).all(|(a, (_, b))| a == b)
    })
}

/// Whether the decision's record says what the log's does (where a command was cut off
/// after its dice, and why), the refusal's wording aside. `given` is the log's record as
/// decided again, on the version it follows (an offset is named once, where it begins).
fn same_record(decided: &GameStreamEvent, given: &OrdersGiven) -> bool {
    matches!(decided, GameStreamEvent::Orders(record) if record.same_record(given))
}

/// Names a record that does not stop where the rule "a die once rolled counts" stops the
/// command: an order cut off that the rules accept, or an order the rules refuse after a
/// die followed by events the rule would have cut off. Whether it named one.
fn describe_cut_off(
    ledger: &mut Ledger,
    given: &OrdersGiven,
    record: u64,
    decided: &Decided,
    batch: &[(u64, GameStreamEvent)],
) -> bool {
    if same_record(&decided.events[0], given) {
        return false;
    }
    // The refused order's place: right after the orders carried out.
    let carried = |given: &OrdersGiven| match &given.command {
        crate::orders::Command::Orders { orders, .. } => orders.len(),
        _ => 0,
    };
    let message = match (&given.cut_off, &decided.cut_off) {
        (Some(cut), None) => format!(
            "the orders recorded here cut off orders[{}] as refused ({}), but the rules accept \
             it on the board it was given on",
            carried(given),
            cut.code
        ),
        (None, Some(cut)) => {
            let extra = batch.len().saturating_sub(decided.events.len());
            format!(
                "orders[{}] is refused by the rules ({}: {}) after orders[{}] rolled dice; a \
                 die once rolled counts, so the command stops there, but the log goes on with \
                 {extra} event{} the rule would have cut off",
                cut.index,
                cut.violation.code,
                cut.violation.message,
                cut.rolled_by,
                if extra == 1 { "" } else { "s" }
            )
        }
        (Some(recorded), Some(cut)) => format!(
            "the orders recorded here cut off orders[{}] ({}), but the rules cut off orders[{}] \
             ({}: {})",
            carried(given),
            recorded.code,
            cut.index,
            cut.violation.code,
            cut.violation.message
        ),
        // Records without a cut-off are the command as sent on both sides.
        (None, None) => return false,
    };
    let at = match (&given.cut_off, &decided.cut_off) {
        (None, Some(_)) => batch
            .get(decided.events.len())
            .map_or(record, |(version, _)| *version),
        _ => record,
    };
    ledger.fail("orders", at, message);
    true
}

/// Names a record whose mark of orders given by proxy is not what the game says of its
/// sender: a proxy's orders unmarked, or a player's own (or a master's) marked.
fn proxy_mark_difference(given: &OrdersGiven, decided: &GameStreamEvent) -> Option<String> {
    let GameStreamEvent::Orders(decided) = decided else {
        return None;
    };
    let power = match &given.command {
        Command::Orders { power, .. } => power.name(),
        _ => "the power",
    };
    match (&given.proxy_for, &decided.proxy_for) {
        (recorded, found) if recorded == found => None,
        (None, Some(player)) => Some(format!(
            "{} gave these orders for {power} as {player}'s proxy, but the record does not \
             mark them as given by proxy",
            given.sender
        )),
        (Some(player), found) => Some(format!(
            "the record marks these orders as given by {} as {player}'s proxy, but {}",
            given.sender,
            match found {
                Some(seated) => format!("{seated} is seated at {power}"),
                None => format!("{} gave them in their own right", given.sender),
            }
        )),
        (None, None) => None,
    }
}

fn actor(event: &RecordedEvent) -> Option<&str> {
    event.metadata.get("actor").and_then(|a| a.as_str())
}

/// The stored type of an event (`UnitsMoved`).
pub(super) fn event_name(event: &GameStreamEvent) -> String {
    event
        .encode()
        .map(|(t, _, _)| t.to_string())
        .unwrap_or_else(|_| "an event".to_owned())
}

fn event_name_raw(event: &RecordedEvent) -> String {
    event.event_type.to_string()
}

/// Names, in a plain sentence, the first place where the decision and the log part.
fn describe(
    ledger: &mut Ledger,
    ruleset: &Ruleset,
    given: &OrdersGiven,
    record: u64,
    decided: &Result<Decided, Refusal>,
    batch: &[(u64, GameStreamEvent)],
) {
    let what = given.command.describe();
    let decided = match decided {
        Ok(decided) => decided,
        Err(Refusal::Forbidden(why)) => {
            ledger.fail(
                "orders",
                record,
                format!("{} may not give {what}: {why}", given.sender),
            );
            return;
        }
        Err(refusal) => {
            // The refused order as its player wrote it.
            let wrote = match (&given.command, refusal.order_index()) {
                (Command::Orders { orders, .. }, Some(i)) => orders
                    .get(i)
                    .map(|o| {
                        format!(
                            " (orders[{i}] reads \"{}\")",
                            warlog_rules::notation::render_order(o)
                        )
                    })
                    .unwrap_or_default(),
                _ => String::new(),
            };
            let whole = if given.cut_off.is_some() && matches!(refusal, Refusal::Rule { .. }) {
                "; the record keeps an order as refused after a die, but no order before the \
                 refusal rolled one, and a command refused before any die is refused whole: \
                 nothing of it belongs on the record"
            } else {
                ""
            };
            ledger.fail(
                "orders",
                record,
                format!(
                    "the rules refuse the orders recorded here ({what}): {refusal}{wrote}{whole}"
                ),
            );
            return;
        }
    };
    if let Some(message) = proxy_mark_difference(given, &decided.events[0]) {
        ledger.fail("orders", record, message);
        return;
    }
    if describe_cut_off(ledger, given, record, decided, batch) {
        return;
    }
    let last = batch.last().map_or(record, |(v, _)| *v);
    // The record itself is the log's; its version is checked by the caller.
    for k in 1..decided.events.len().max(batch.len()) {
        match (decided.events.get(k), batch.get(k)) {
            (Some(a), Some((version, b))) if a != b => {
                ledger.fail(
                    "orders",
                    *version,
                    format!(
                        "{} is not what the orders recorded at event {record} ({what}) give: {}",
                        event_name(b),
                        difference(ruleset, a, b)
                    ),
                );
                return;
            }
            (Some(_), None) => {
                let missing: Vec<String> = decided.events[k..].iter().map(event_name).collect();
                ledger.fail(
                    "orders",
                    last + 1,
                    format!(
                        "the orders recorded at event {record} ({what}) give {} more event{} \
                         than the log holds after them: {}",
                        missing.len(),
                        if missing.len() == 1 { "" } else { "s" },
                        missing.join(", ")
                    ),
                );
                return;
            }
            (None, Some((version, b))) => {
                ledger.fail(
                    "orders",
                    *version,
                    format!(
                        "{} is not explained by the orders recorded at event {record} ({what}), \
                         which give {} event{}",
                        event_name(b),
                        decided.events.len() - 1,
                        if decided.events.len() == 2 { "" } else { "s" }
                    ),
                );
                return;
            }
            _ => {}
        }
    }
}

/// How a decided event and a recorded one differ: the type, or the first field.
fn difference(ruleset: &Ruleset, decided: &GameStreamEvent, recorded: &GameStreamEvent) -> String {
    let (Ok((dt, _, dp)), Ok((rt, _, rp))) = (decided.encode(), recorded.encode()) else {
        return "they differ".to_owned();
    };
    if dt != rt {
        return format!("the orders give {dt} here");
    }
    super::field_difference_named(&dp, &rp, &|key, value| in_words(ruleset, key, value))
}

/// The first event whose dice are not the seed's, if any.
fn dice_difference(
    seeded: &Result<Decided, Refusal>,
    batch: &[(u64, GameStreamEvent)],
) -> Option<(u64, String)> {
    let seeded = seeded.as_ref().ok()?;
    batch
        .iter()
        .zip(&seeded.events)
        .find_map(|((version, recorded), from_seed)| {
            let (GameStreamEvent::Played(recorded), GameStreamEvent::Played(from_seed)) =
                (recorded, from_seed)
            else {
                return None;
            };
            let (own, theirs) = (dice_rolled(recorded), dice_rolled(from_seed));
            (own != theirs).then(|| {
                (
                    *version,
                    format!(
                        "{} records dice {} but the seed gives {}",
                        event_name(&GameStreamEvent::Played(recorded.clone())),
                        dice_text(&own),
                        dice_text(&theirs)
                    ),
                )
            })
        })
}

/// A stored field in words: territory ids as board names, unit ids as codes with their
/// counts, IPC counts by power. `None` for anything else, which is shown as stored.
fn in_words(ruleset: &Ruleset, key: &str, value: &serde_json::Value) -> Option<String> {
    let place = |v: &serde_json::Value| -> Option<String> {
        let id = usize::try_from(v.as_u64()?).ok()?;
        ruleset
            .board
            .territories()
            .nth(id)
            .map(|(_, t)| t.name.clone())
    };
    let unit = |v: &serde_json::Value| -> Option<String> {
        let id = usize::try_from(v.as_u64()?).ok()?;
        ruleset
            .catalogue
            .units()
            .nth(id)
            .map(|(_, u)| u.code.clone())
    };
    let list = |items: Vec<Option<String>>| -> Option<String> {
        let items: Option<Vec<String>> = items.into_iter().collect();
        items.map(|i| {
            if i.is_empty() {
                "none".to_owned()
            } else {
                i.join(", ")
            }
        })
    };
    match key {
        "territory" | "from" | "to" | "target" | "sea_zone" | "retreat_to" | "contested" => {
            if value.is_null() {
                Some("none".to_owned())
            } else {
                place(value)
            }
        }
        "path" | "captured" | "bombard_from" => list(value.as_array()?.iter().map(place).collect()),
        "units" | "troops" => list(
            value
                .as_array()?
                .iter()
                .map(|pair| {
                    Some(format!(
                        "{} {}",
                        unit(pair.get(0)?)?,
                        pair.get(1)?.as_u64()?
                    ))
                })
                .collect(),
        ),
        "final_ipc" => list(
            value
                .as_array()?
                .iter()
                .map(|pair| {
                    let power: warlog_rules::board::Power =
                        serde_json::from_value(pair.get(0)?.clone()).ok()?;
                    Some(format!("{} {}", power.name(), pair.get(1)?.as_u64()?))
                })
                .collect(),
        ),
        _ => None,
    }
}

pub(super) fn dice_text(dice: &[Die]) -> String {
    let values: Vec<String> = dice.iter().map(|d| d.to_string()).collect();
    format!("[{}]", values.join(" "))
}
