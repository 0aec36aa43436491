//! Logs recorded before orders were on the record: no `OrdersGiven` explains their events,
//! so only the dice-bearing ones can be decided again, from the order each one implies
//! ([`order_behind`]), as the auditor did before.

use warlog_rules::dice::RecordedDice;
use warlog_rules::game::replay::{dice_rolled, order_behind};
use warlog_rules::game::{decide, GameEvent, Moment};

use super::commands::{dice_text, event_name};
use super::Ledger;
use crate::game::{GameLog, GameStreamEvent};
use warlog_rules::dice::GameSeed;

/// How many events after a dice-bearing one are compared with its re-decided order: far
/// more than any order makes (a battle, then the agreements a capital's loss voids).
const ORDER_WINDOW: usize = 64;

/// Checks the event at `i` if it bears dice: its consequences from its own dice, and its
/// dice from the seed. Returns 1 if it bore dice checked against the seed.
pub(super) fn check_dice_bearing(
    ledger: &mut Ledger,
    log: &GameLog,
    i: usize,
    decoded: &[(u64, GameStreamEvent)],
    seed: Option<&GameSeed>,
) -> usize {
    let (version, GameStreamEvent::Played(played)) = &decoded[i] else {
        return 0;
    };
    let Some((power, order)) = order_behind(played) else {
        return 0;
    };
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
    let name = event_name(&decoded[i].1);
    if !(prefix_of(&again, &recorded) && recorded_dice.used_exactly()) {
        ledger.fail(
            "orders",
            *version,
            format!("{name} does not follow from its own dice on the board before it"),
        );
    }
    let Some(seed) = seed else {
        return 0;
    };
    let mut dice = seed.dice_for(&log.created.game_id, *version);
    let seeded = decide(
        rules,
        &log.state,
        power,
        &order,
        Moment::default(),
        &mut dice,
    );
    if !prefix_of(&seeded, &recorded) {
        let from_seed = seeded
            .as_ref()
            .ok()
            .and_then(|e| e.first())
            .map(dice_rolled)
            .unwrap_or_default();
        ledger.fail(
            "dice",
            *version,
            format!(
                "{name} records dice {} but the seed gives {}",
                dice_text(&own),
                dice_text(&from_seed)
            ),
        );
    }
    1
}

fn prefix_of(
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
