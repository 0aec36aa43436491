//! A dice table (issue 38): the rolls a dice server makes for one pair of players, as a
//! stream of its own, every die drawn from a seed committed before its first roll.
//!
//! A table lives in epochs. Each begins with `SeedCommitted` (the SHA-256 of a fresh seed);
//! each roll is `DiceRolled`, its dice drawn from that seed at the roll's stream version
//! ([`GameSeed::dice_for`] with the table's id, then [`SeededDice::roll_sides`]); a reveal
//! is `SeedRevealed`, after which anyone can recompute every die of the epoch
//! ([`audit`]), and the table goes on under a new seed committed in the same append.
//! Decisions take the seeds and the time as arguments; nothing here draws or reads a clock.

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use warlog_rules::dice::{GameSeed, SeededDice};
use warlog_rules::game::Moment;

use crate::{EventDecodeError, EventType, StreamCategory, StreamId};

/// The most dice one roll may ask for.
pub const MAX_TIMES: u32 = 200;
/// The fewest and the most sides a die may have.
pub const MIN_SIDES: u32 = 2;
pub const MAX_SIDES: u32 = 1000;

/// A dice table's id: the keyed hash (HMAC-SHA-256 under the service's key) of its pair
/// of addresses, each trimmed and lower-cased, in either order. Who holds the key can find
/// a pair's table; no one can read the addresses back from it, so they are never shown or
/// exported.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DiceTableId(String);

/// The longest address taken (RFC 5321's path limit).
const MAX_ADDRESS: usize = 254;

impl DiceTableId {
    /// The table of `first` and `second`, under `key`.
    pub fn of(key: &[u8], first: &str, second: &str) -> Result<DiceTableId, String> {
        let mut pair = [address(first, "email1")?, address(second, "email2")?];
        pair.sort();
        let mut mac = Hmac::<Sha256>::new_from_slice(key)
            .map_err(|_| "the dice tables' key cannot be used".to_owned())?;
        for address in &pair {
            mac.update(&(address.len() as u64).to_be_bytes());
            mac.update(address.as_bytes());
        }
        // 128 bits name a table among any number of pairs a league will see.
        Ok(DiceTableId(hex::encode(&mac.finalize().into_bytes()[..16])))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The table's stream, `dice-<id>`.
    pub fn stream(&self) -> Result<StreamId, crate::IdError> {
        StreamId::of(StreamCategory::Dice, &self.0)
    }
}

/// An address as a table keys it: trimmed, lower-cased, plausible (one `@` with something
/// on each side, no spaces or control characters, at most 254 characters).
fn address(raw: &str, field: &str) -> Result<String, String> {
    let address = raw.trim().to_lowercase();
    let plausible = address.len() <= MAX_ADDRESS
        && !address.chars().any(|c| c.is_whitespace() || c.is_control())
        && address.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && !domain.is_empty() && !domain.contains('@')
        });
    if plausible {
        Ok(address)
    } else if address.is_empty() {
        Err(format!(
            "{field} is missing: give both players' e-mail addresses"
        ))
    } else {
        Err(format!("{field} is not an e-mail address"))
    }
}

/// One event of a dice table's stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum DiceTableEvent {
    /// An epoch begins: the SHA-256 of its seed, in hex, published before its first roll.
    SeedCommitted {
        epoch: u32,
        commitment: String,
        at: Moment,
    },
    /// A roll: `times` dice of `max` sides, each from 1 to `max`.
    DiceRolled {
        epoch: u32,
        times: u32,
        max: u32,
        dice: Vec<u32>,
        at: Moment,
    },
    /// An epoch's seed, in hex, revealed: every die of the epoch can be recomputed now.
    SeedRevealed {
        epoch: u32,
        seed: String,
        at: Moment,
    },
}

/// Every dice table event type is at version 1 so far.
pub const DICE_TABLE_EVENT_VERSION: u32 = 1;

impl DiceTableEvent {
    /// The event as stored: its type (the variant's name), version and payload.
    pub fn encode(&self) -> Result<(EventType, u32, serde_json::Value), EventDecodeError> {
        let mut payload =
            serde_json::to_value(self).map_err(|e| EventDecodeError::Payload(e.to_string()))?;
        let kind = payload
            .as_object_mut()
            .and_then(|fields| fields.remove("type"))
            .and_then(|kind| kind.as_str().map(str::to_owned))
            .unwrap_or_default();
        let event_type = EventType::try_from(kind.as_str())
            .map_err(|e| EventDecodeError::Payload(e.to_string()))?;
        Ok((event_type, DICE_TABLE_EVENT_VERSION, payload))
    }

    /// An event as stored, read back.
    pub fn decode(
        event_type: &str,
        version: u32,
        payload: &serde_json::Value,
    ) -> Result<DiceTableEvent, EventDecodeError> {
        if version != DICE_TABLE_EVENT_VERSION {
            return Err(EventDecodeError::Payload(format!(
                "{event_type} version {version}: only version {DICE_TABLE_EVENT_VERSION} is known"
            )));
        }
        let mut tagged = payload.clone();
        if let Some(fields) = tagged.as_object_mut() {
            fields.insert("type".to_owned(), serde_json::Value::from(event_type));
        }
        serde_json::from_value(tagged).map_err(|e| EventDecodeError::Payload(e.to_string()))
    }
}

/// What a roll asks for, within the bounds: 1 to [`MAX_TIMES`] dice of [`MIN_SIDES`] to
/// [`MAX_SIDES`] sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiceAsked {
    times: u32,
    max: u32,
}

impl TryFrom<(u32, u32)> for DiceAsked {
    type Error = String;

    /// `(times, max)`, as a dice server's client sends them.
    fn try_from((times, max): (u32, u32)) -> Result<Self, String> {
        if !(1..=MAX_TIMES).contains(&times) {
            return Err(format!("times is {times}: a roll is 1 to {MAX_TIMES} dice"));
        }
        if !(MIN_SIDES..=MAX_SIDES).contains(&max) {
            return Err(format!(
                "max is {max}: a die has {MIN_SIDES} to {MAX_SIDES} sides"
            ));
        }
        Ok(DiceAsked { times, max })
    }
}

/// A dice table folded from its stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiceTable {
    /// The table's id (the keyed hash of its pair of addresses; never the addresses).
    pub table: String,
    /// How many events the stream holds.
    pub version: u64,
    /// The epoch in force, and the commitment to its seed.
    pub epoch: u32,
    pub commitment: String,
    /// Rolls made, over every epoch.
    pub rolls: u64,
}

/// Why a decision or a fold was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiceTableError(pub String);

impl std::fmt::Display for DiceTableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The events that open a table under `seed`: its first epoch, committed.
pub fn open(seed: &GameSeed, at: Moment) -> Vec<DiceTableEvent> {
    vec![DiceTableEvent::SeedCommitted {
        epoch: 1,
        commitment: hex::encode(seed.commitment()),
        at,
    }]
}

impl DiceTable {
    /// The table as its events leave it; the first must commit a seed.
    pub fn fold(table: &str, events: &[DiceTableEvent]) -> Result<DiceTable, DiceTableError> {
        let mut folded: Option<DiceTable> = None;
        for (i, event) in events.iter().enumerate() {
            let version = i as u64 + 1;
            folded = Some(match (folded, event) {
                (
                    None,
                    DiceTableEvent::SeedCommitted {
                        epoch, commitment, ..
                    },
                ) => DiceTable {
                    table: table.to_owned(),
                    version,
                    epoch: *epoch,
                    commitment: commitment.clone(),
                    rolls: 0,
                },
                (None, _) => {
                    return Err(DiceTableError(
                        "a dice table begins by committing a seed".to_owned(),
                    ))
                }
                (Some(mut folded), event) => {
                    folded.apply(event);
                    folded
                }
            });
        }
        folded.ok_or_else(|| DiceTableError(format!("no dice table {table}")))
    }

    /// Takes in the next event.
    pub fn apply(&mut self, event: &DiceTableEvent) {
        self.version += 1;
        match event {
            DiceTableEvent::SeedCommitted {
                epoch, commitment, ..
            } => {
                self.epoch = *epoch;
                self.commitment = commitment.clone();
            }
            DiceTableEvent::DiceRolled { .. } => self.rolls += 1,
            DiceTableEvent::SeedRevealed { .. } => {}
        }
    }

    /// A roll of what was asked, its dice from `seed` (the epoch's) at the version it will
    /// be recorded at.
    pub fn roll(
        &self,
        asked: DiceAsked,
        seed: &GameSeed,
        at: Moment,
    ) -> Result<Vec<DiceTableEvent>, DiceTableError> {
        self.check_seed(seed)?;
        let mut dice = seed.dice_for(&self.table, self.version + 1);
        Ok(vec![DiceTableEvent::DiceRolled {
            epoch: self.epoch,
            times: asked.times,
            max: asked.max,
            dice: draw(&mut dice, asked),
            at,
        }])
    }

    /// The epoch's seed revealed, and the next epoch begun under `next`.
    pub fn reveal(
        &self,
        seed: &GameSeed,
        next: &GameSeed,
        at: Moment,
    ) -> Result<Vec<DiceTableEvent>, DiceTableError> {
        self.check_seed(seed)?;
        Ok(vec![
            DiceTableEvent::SeedRevealed {
                epoch: self.epoch,
                seed: hex::encode(seed.expose()),
                at,
            },
            DiceTableEvent::SeedCommitted {
                epoch: self.epoch + 1,
                commitment: hex::encode(next.commitment()),
                at,
            },
        ])
    }

    fn check_seed(&self, seed: &GameSeed) -> Result<(), DiceTableError> {
        if hex::encode(seed.commitment()) == self.commitment {
            Ok(())
        } else {
            Err(DiceTableError(format!(
                "the seed given is not the one table {} committed to for epoch {}",
                self.table, self.epoch
            )))
        }
    }
}

fn draw(dice: &mut SeededDice, asked: DiceAsked) -> Vec<u32> {
    (0..asked.times)
        .map(|_| dice.roll_sides(asked.max))
        .collect()
}

/// What an audit of a table found: the rolls checked die by die (those of revealed
/// epochs), and those whose epoch's seed is not revealed yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiceTableAudit {
    pub rolls_checked: u64,
    pub rolls_unrevealed: u64,
}

/// Checks a table's events as an auditor holding its export: each revealed seed against
/// its commitment, and every die of a revealed epoch recomputed. The first difference is
/// named by the roll's stream version.
pub fn audit(table: &str, events: &[DiceTableEvent]) -> Result<DiceTableAudit, DiceTableError> {
    let mut commitments = std::collections::BTreeMap::new();
    let mut seeds = std::collections::BTreeMap::new();
    for (i, event) in events.iter().enumerate() {
        let version = i as u64 + 1;
        match event {
            DiceTableEvent::SeedCommitted {
                epoch, commitment, ..
            } => {
                if commitments.insert(*epoch, commitment.clone()).is_some() {
                    return Err(DiceTableError(format!(
                        "event {version} commits epoch {epoch} a second time"
                    )));
                }
            }
            DiceTableEvent::SeedRevealed { epoch, seed, .. } => {
                let seed = parse_seed(seed)
                    .ok_or_else(|| DiceTableError(format!("event {version}: not a seed")))?;
                let committed = commitments.get(epoch).ok_or_else(|| {
                    DiceTableError(format!(
                        "event {version} reveals epoch {epoch}, never committed"
                    ))
                })?;
                if &hex::encode(seed.commitment()) != committed {
                    return Err(DiceTableError(format!(
                        "event {version}: the seed revealed for epoch {epoch} is not the one committed"
                    )));
                }
                seeds.insert(*epoch, seed);
            }
            DiceTableEvent::DiceRolled { .. } => {}
        }
    }
    let mut found = DiceTableAudit {
        rolls_checked: 0,
        rolls_unrevealed: 0,
    };
    for (i, event) in events.iter().enumerate() {
        let version = i as u64 + 1;
        let DiceTableEvent::DiceRolled {
            epoch,
            times,
            max,
            dice,
            ..
        } = event
        else {
            continue;
        };
        let Some(seed) = seeds.get(epoch) else {
            found.rolls_unrevealed += 1;
            continue;
        };
        let asked = DiceAsked::try_from((*times, *max))
            .map_err(|why| DiceTableError(format!("roll at event {version}: {why}")))?;
        let expected = draw(&mut seed.dice_for(table, version), asked);
        if &expected != dice {
            return Err(DiceTableError(format!(
                "roll at event {version}: the record says {}, the seed gives {}",
                listed(dice),
                listed(&expected)
            )));
        }
        found.rolls_checked += 1;
    }
    Ok(found)
}

/// Dice as people read them: `3, 6, 1`.
fn listed(dice: &[u32]) -> String {
    dice.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_seed(text: &str) -> Option<GameSeed> {
    let bytes: [u8; 32] = hex::decode(text).ok()?.try_into().ok()?;
    Some(GameSeed::from_bytes(bytes))
}

#[cfg(test)]
mod tests;
