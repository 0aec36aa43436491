//! The answer to a write on a game: what it appended, in words and as events, the battles
//! among them, and the order refused after dice, if one was.

use serde::Serialize;
use utoipa::ToSchema;
use warlog_events::game::{GameLog, GameStreamEvent};
use warlog_events::orders::{order_at, CutOff};
use warlog_events::{NewEvent, StreamId};
use warlog_rules::game::{words, GameEvent};
use warlog_store::AppendOutcome;

use crate::error::{corrupt, ApiError};
use crate::views::{battle_view, BattleView, EventView};

/// What a write appended.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WriteAccepted {
    pub game_id: String,
    /// The game's version after the write.
    pub version: u64,
    /// What the write did, in words, a sentence an event.
    pub summary: Vec<String>,
    pub events: Vec<EventView>,
    /// The battles and raids among them, with their listings.
    pub battles: Vec<BattleView>,
    /// Present when an order was refused after an earlier order of the same request had
    /// rolled dice: a die once rolled counts, so the orders before the refused one are
    /// appended with their dice, and it and the orders after it are not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<RefusedAfterDice>,
}

/// An order refused after dice were rolled earlier in its request.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RefusedAfterDice {
    /// The refused order's place in the request's `orders` (from 0; for a turn text,
    /// among the orders its lines made).
    pub index: usize,
    /// For a turn text: the line (from 1) of the refused order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The refusal's stable code, as in a `rule-violation` problem.
    pub code: String,
    /// The rule it breaks.
    pub rule: String,
    /// In words: what was refused and why, and what was appended.
    pub detail: String,
    /// The first order of the request that rolled dice.
    pub rolled_by: usize,
    /// How many orders after the refused one were not carried out (sent again, they are
    /// decided on the board as it is now).
    pub not_decided: usize,
}

impl RefusedAfterDice {
    /// `lines`: for a turn text, the line each order came from.
    pub(super) fn of(cut: &CutOff, lines: Option<&[usize]>) -> Self {
        let line_of = |i: usize| lines.and_then(|l| l.get(i).copied());
        let name = |i: usize| match line_of(i) {
            Some(line) => format!("line {line}"),
            None => order_at(i),
        };
        let carried = match (cut.index, line_of(0), line_of(cut.index)) {
            (n, Some(first), refused) => {
                // The last line carried out whole; the refused line's phase ends may have
                // stood without it.
                let whole = (0..n)
                    .rev()
                    .filter_map(line_of)
                    .find(|l| Some(*l) != refused);
                let ended = line_of(n - 1).is_some() && line_of(n - 1) == refused;
                let lines = match whole {
                    Some(last) if last == first => {
                        format!("line {first} was carried out and stands")
                    }
                    Some(last) => format!("lines {first} to {last} were carried out and stand"),
                    None => String::new(),
                };
                match (lines.is_empty(), ended, refused) {
                    (false, true, Some(r)) => {
                        format!("{lines}, and the phases before line {r} ended")
                    }
                    (true, _, Some(r)) => format!("the phases before line {r} ended"),
                    _ => lines,
                }
            }
            (1, None, _) => "orders[0] was carried out and stands".to_owned(),
            (2, None, _) => "orders[0] and orders[1] were carried out and stand".to_owned(),
            (n, None, _) => format!("orders[0] to orders[{}] were carried out and stand", n - 1),
        };
        let rest = match (cut.not_decided, lines.is_some()) {
            (0, _) => String::new(),
            (_, true) => " The lines after it were not carried out; send them again if they \
                          still apply."
                .to_owned(),
            (1, false) => {
                " The order after it was not carried out; send it again if it still applies."
                    .to_owned()
            }
            (n, false) => format!(
                " The {n} orders after it were not carried out; send them again if they still \
                 apply."
            ),
        };
        RefusedAfterDice {
            index: cut.index,
            line: line_of(cut.index),
            code: cut.violation.code.as_str().to_owned(),
            rule: cut.violation.rule.to_owned(),
            detail: format!(
                "{} was refused: {} ({}). {carried}: {} rolled dice, and dice once rolled \
                 count.{rest}",
                name(cut.index),
                cut.violation.message,
                cut.violation.rule,
                name(cut.rolled_by)
            ),
            rolled_by: cut.rolled_by,
            not_decided: cut.not_decided,
        }
    }
}

/// What a write did, in words, from the game before it (so battles name their losses).
pub(super) fn summary_of(before: &GameLog, decided: &[GameStreamEvent]) -> Vec<String> {
    let played: Vec<GameEvent> = decided
        .iter()
        .filter_map(|event| match event {
            GameStreamEvent::Played(played) => Some(played.clone()),
            _ => None,
        })
        .collect();
    let mut summary = words::summary(before.ruleset.rules(), Some(&before.state), &played);
    if decided
        .iter()
        .any(|e| matches!(e, GameStreamEvent::SeedRevealed(_)))
    {
        summary.push("The dice seed was revealed: every die can be checked now.".to_owned());
    }
    summary
}

#[allow(clippy::too_many_arguments)]
pub(super) fn accepted(
    after: &GameLog,
    stream: &StreamId,
    events: &[NewEvent],
    decided: &[GameStreamEvent],
    outcome: &AppendOutcome,
    battles_before: usize,
    cut_off: Option<&CutOff>,
    lines: Option<&[usize]>,
    summary: Vec<String>,
) -> Result<serde_json::Value, ApiError> {
    let views: Vec<EventView> = events
        .iter()
        .zip(&outcome.events)
        .map(|(new, at)| EventView::appended(stream, new, at))
        .collect();
    let mut battles = Vec::new();
    for (event, at) in decided.iter().zip(&outcome.events) {
        if let GameStreamEvent::Played(played) = event {
            let number = battles_before + battles.len() + 1;
            if let Some(view) = battle_view(
                after.ruleset,
                number,
                at.stream_version,
                after.state.round,
                played,
            ) {
                battles.push(view);
            }
        }
    }
    serde_json::to_value(WriteAccepted {
        game_id: after.created.game_id.clone(),
        version: after.version,
        summary,
        events: views,
        battles,
        refused: cut_off.map(|cut| RefusedAfterDice::of(cut, lines)),
    })
    .map_err(corrupt)
}
