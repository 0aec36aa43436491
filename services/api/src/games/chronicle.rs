//! What the game page and the battle list read from a whole log: every battle, every
//! phase's end and every command of orders, carried on as the log grows.

use std::sync::Arc;

use warlog_events::game::{GameLog, GameStreamEvent};
use warlog_events::orders::{Command, OrdersGiven};
use warlog_events::{RecordedEvent, StreamId};
use warlog_store::GenericClient;

use super::cache::{GameCache, CHRONICLE_LIMIT};
use super::fold::{not_found, read_events};
use crate::error::{corrupt, ApiError};
use crate::views::{battle_view, BattleView};

/// Every battle and every phase's end of a game up to its fold's version. A log never
/// changes below its head, so a later read folds only the events appended since.
#[derive(Debug, Clone)]
pub struct Chronicle {
    log: GameLog,
    /// Numbered from 1, in order; shared, so carrying a chronicle on copies no listing.
    pub battles: Vec<Arc<BattleView>>,
    /// Where each phase ended: (version, power, phase), in order.
    pub phases: Vec<PhaseEnd>,
    /// Each power's orders on the record, in the turn notation, in order.
    pub orders: Vec<Arc<OrdersWritten>>,
}

/// A command of orders on the record, as players write them.
#[derive(Debug, Clone)]
pub struct OrdersWritten {
    /// The record's version.
    pub version: u64,
    pub power: warlog_rules::board::Power,
    /// Who sent them: `ann`, `cy, ann's proxy`, or `the game master alice`, followed by
    /// `, by mail` for orders that came by mail.
    pub by: String,
    /// One line an order ([`warlog_rules::notation::render_order`]).
    pub lines: Vec<String>,
    /// The order refused after a die, and why, if the command was cut off there.
    pub refused: Option<String>,
}

impl OrdersWritten {
    fn of(version: u64, given: &OrdersGiven) -> Option<Self> {
        let Command::Orders { power, orders } = &given.command else {
            return None;
        };
        let by = match (given.sender.role, &given.proxy_for) {
            (warlog_events::sender::Role::Player, Some(player)) => {
                format!("{}, {player}'s proxy", given.sender.name)
            }
            (warlog_events::sender::Role::Player, None) => given.sender.name.clone(),
            (role, _) => format!("{} {}", role.describe(), given.sender.name),
        };
        // The channel is on the record too: a turn that came by mail says so.
        let by = if given.by_mail.is_some() {
            format!("{by}, by mail")
        } else {
            by
        };
        Some(OrdersWritten {
            version,
            power: *power,
            by,
            lines: orders
                .iter()
                .map(warlog_rules::notation::render_order)
                .collect(),
            refused: given.cut_off.as_ref().map(|cut| {
                format!(
                    "{} was refused after a die: {}",
                    warlog_rules::notation::render_order(&cut.order),
                    cut.message
                )
            }),
        })
    }
}

/// Where a phase ended: the `PhaseEnded` event's version, whose phase it was.
pub type PhaseEnd = (u64, warlog_rules::board::Power, warlog_rules::game::Phase);

impl Chronicle {
    /// The version read up to.
    pub fn version(&self) -> u64 {
        self.log.version
    }

    /// Takes in the next event of the log.
    fn record(kept: Option<Chronicle>, event: &RecordedEvent) -> Result<Chronicle, ApiError> {
        let decoded = warlog_events::game::decode_recorded(event).map_err(corrupt)?;
        let Some(mut chronicle) = kept else {
            let GameStreamEvent::Created(created) = decoded else {
                return Err(corrupt("the stream does not start with GameCreated"));
            };
            return Ok(Chronicle {
                log: GameLog::new(created).map_err(corrupt)?,
                battles: Vec::new(),
                phases: Vec::new(),
                orders: Vec::new(),
            });
        };
        if let GameStreamEvent::Orders(given) = &decoded {
            if let Some(written) = OrdersWritten::of(event.stream_version, given) {
                chronicle.orders.push(Arc::new(written));
            }
        }
        if let GameStreamEvent::Played(played) = &decoded {
            let before = &chronicle.log;
            if let warlog_rules::game::GameEvent::PhaseEnded { power, phase, .. } = played {
                chronicle
                    .phases
                    .push((event.stream_version, *power, *phase));
            }
            let number = chronicle.battles.len() + 1;
            if let Some(view) = battle_view(
                before.ruleset,
                number,
                event.stream_version,
                before.state.round,
                played,
            ) {
                chronicle.battles.push(Arc::new(view));
            }
        }
        chronicle
            .log
            .apply(event.stream_version, &decoded)
            .map_err(corrupt)?;
        Ok(chronicle)
    }
}

/// A game's battles and phase ends as of its latest event: the kept chronicle carried on
/// by the events appended since (none read when there are none).
pub async fn chronicle(
    client: &impl GenericClient,
    cache: &GameCache,
    stream: &StreamId,
) -> Result<Arc<Chronicle>, ApiError> {
    let kept = cache
        .chronicles
        .lock()
        .ok()
        .and_then(|c| c.get(stream).cloned());
    let from = kept.as_ref().map_or(1, |c| c.version() + 1);
    let events = read_events(client, stream, from..=u64::MAX).await?;
    if events.is_empty() {
        return kept.ok_or_else(|| not_found(stream));
    }
    let mut chronicle = kept.map(Arc::unwrap_or_clone);
    for event in &events {
        chronicle = Some(Chronicle::record(chronicle, event)?);
    }
    let chronicle = Arc::new(chronicle.ok_or_else(|| not_found(stream))?);
    // Its fold is the game's latest: a read of the game after it reads nothing again.
    cache.put(stream, chronicle.log.clone());
    if let Ok(mut kept) = cache.chronicles.lock() {
        // Never an older chronicle over a newer one a faster reader kept.
        if kept
            .get(stream)
            .is_none_or(|c| c.version() < chronicle.version())
        {
            if kept.len() >= CHRONICLE_LIMIT && !kept.contains_key(stream) {
                kept.clear();
            }
            kept.insert(stream.clone(), chronicle.clone());
        }
    }
    Ok(chronicle)
}
