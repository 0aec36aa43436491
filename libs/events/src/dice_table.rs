//! A dice table (issue 38): the rolls a dice server makes for one pair of players, as a
//! stream of its own, every die drawn from a seed committed before its first roll.
//!
//! A table lives in epochs. Each begins with `SeedCommitted` (the SHA-256 of a fresh seed);
//! each roll is `DiceRolled`, its dice drawn from that seed at the roll's stream version
//! ([`GameSeed::dice_for`] with the table's id, then [`SeededDice::roll_sides`]); a reveal
//! is `SeedRevealed`, after which anyone can recompute every die of the epoch
//! ([`audit`]), and the table goes on under a new seed committed in the same append.
//! Every roll is signed by the service ([`keys`]); its seed is revealed by a link only the
//! table's two addresses are sent, or by anyone once the table has been idle long enough.
//! Decisions take the seeds, the keys and the time as arguments; nothing here draws or
//! reads a clock.

mod asked;
mod keys;
mod lookalike;
mod mail;
mod registration;

pub use asked::{RollFields, RollRead, API_ROLL_FIELDS, MARTI_FIELDS};
pub use keys::{
    date_of, example_roll, roll_statement, statement_template, verify_roll, DiceKeys, RollSigned,
};
pub use lookalike::lookalike_form;
pub use mail::{roll_mail, RollLinks};
pub use registration::{
    check_registered, AddressLink, LinkedAddress, CONFIRM_LINK_HOURS, STOP_LINK_DAYS,
    TABLES_LINK_HOURS,
};

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::collections::BTreeMap;
use warlog_rules::dice::{GameSeed, SeededDice};
use warlog_rules::game::Moment;

use crate::refusal::RefusalKind;
use crate::{EventDecodeError, EventType, StreamCategory, StreamId};

/// The most dice one roll may ask for: the bounds of TripleA's official dice server, whose
/// client sends a whole fire step as one roll, and a random start on a map of N
/// territories as N dice of N sides.
pub const MAX_TIMES: u32 = 5000;
/// The fewest and the most sides a die may have (a one-sided die always shows 1).
pub const MIN_SIDES: u32 = 1;
pub const MAX_SIDES: u32 = 5000;

/// A dice table's id: the keyed hash (HMAC-SHA-256 under the service's key) of its pair
/// of addresses, each trimmed and lower-cased, in either order. Who holds the key can find
/// a pair's table; no one can read the addresses back from it, so they are never shown or
/// exported.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DiceTableId(String);

/// The longest address taken (RFC 5321's path limit), in bytes.
pub const MAX_ADDRESS: usize = 254;

impl DiceTableId {
    /// The table of `first` and `second`, under `key`.
    pub fn of(key: &[u8], first: &str, second: &str) -> Result<DiceTableId, Vec<String>> {
        let mut pair = match (
            canonical_address(first, "email1"),
            canonical_address(second, "email2"),
        ) {
            (Ok(first), Ok(second)) => [first, second],
            (first, second) => return Err(first.err().into_iter().chain(second.err()).collect()),
        };
        pair.sort();
        let mut mac = Hmac::<Sha256>::new_from_slice(key)
            .map_err(|_| vec!["the dice tables' key cannot be used".to_owned()])?;
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

impl TryFrom<&str> for DiceTableId {
    type Error = String;

    /// A table's id as its links give it: 32 hex digits, lower case.
    fn try_from(text: &str) -> Result<Self, String> {
        if text.len() == 32 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            Ok(DiceTableId(text.to_owned()))
        } else {
            Err(format!(
                "\"{}\" is not a dice table's id (32 hex digits)",
                shown(text)
            ))
        }
    }
}

/// An address as a table keys it and its mail is sent to: one mailbox, one spelling (issue
/// 52). Trimmed; in Unicode's compatibility form (NFKC: the Kelvin sign is a K, a
/// full-width letter its plain one) and lower case; the domain in its IDNA (ASCII) form
/// without a trailing dot; plausible (one `@` with something on each side, no spaces or
/// control characters, at most 254 characters). A name mixing scripts (a Cyrillic "о" among
/// Latin letters) is refused: it is another mailbox that looks like someone's. Each refusal
/// names `field`.
pub fn canonical_address(raw: &str, field: &str) -> Result<String, String> {
    use unicode_normalization::UnicodeNormalization;
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(format!(
            "{field} is missing: give both players' e-mail addresses"
        ));
    }
    let address: String = trimmed.nfkc().collect::<String>().to_lowercase();
    let not_an_address = || format!("{field} is not an e-mail address");
    if address.len() > MAX_ADDRESS || address.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(not_an_address());
    }
    let Some((local, domain)) = address.split_once('@') else {
        return Err(not_an_address());
    };
    let domain = domain.strip_suffix('.').unwrap_or(domain);
    if local.is_empty() || domain.is_empty() || domain.contains('@') {
        return Err(not_an_address());
    }
    let domain = idna::domain_to_ascii(domain)
        .ok()
        .filter(|d| !d.is_empty() && d.len() <= MAX_ADDRESS)
        .ok_or_else(|| format!("{field}'s domain is not a domain name"))?;
    let scripts = scripts_of(local);
    if scripts.len() > 1 {
        return Err(format!(
            "{field} mixes scripts in its name ({}): a look-alike of an address is another \
             mailbox; write the address as its owner does",
            scripts.join(" and ")
        ));
    }
    let canonical = format!("{local}@{domain}");
    if canonical.len() > MAX_ADDRESS {
        return Err(not_an_address());
    }
    Ok(canonical)
}

/// The scripts of `text`'s letters, by name, in the order first met (digits and
/// punctuation belong to none).
fn scripts_of(text: &str) -> Vec<&'static str> {
    use unicode_script::{Script, UnicodeScript};
    let mut scripts: Vec<&'static str> = Vec::new();
    for c in text.chars() {
        let script = c.script();
        if matches!(script, Script::Common | Script::Inherited | Script::Unknown) {
            continue;
        }
        let name = script.full_name();
        if !scripts.contains(&name) {
            scripts.push(name);
        }
    }
    scripts
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
    /// A roll: `times` dice of `max` sides, each from 1 to `max`. Its index is its place in
    /// the stream; its signature, the service's over [`roll_statement`], in base64.
    DiceRolled {
        epoch: u32,
        index: u64,
        times: u32,
        max: u32,
        dice: Vec<u32>,
        at: Moment,
        signature: String,
        /// Which client asked ([`DiceKeys::client_tag`]): the same tag for every roll one
        /// client makes at this table, so the players can tell theirs from anyone else's.
        /// Not signed; rolls recorded before clients were tagged have none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
    },
    /// An epoch's seed, in hex, revealed: every die of the epoch can be recomputed now.
    SeedRevealed {
        epoch: u32,
        seed: String,
        at: Moment,
    },
}

impl DiceTableEvent {
    /// When the event happened.
    pub fn at(&self) -> Moment {
        match self {
            DiceTableEvent::SeedCommitted { at, .. }
            | DiceTableEvent::DiceRolled { at, .. }
            | DiceTableEvent::SeedRevealed { at, .. } => *at,
        }
    }

    /// A roll's statement at `table`, the text its signature is over ([`roll_statement`]);
    /// none for an event that is not a roll.
    pub fn statement(&self, table: &str) -> Option<String> {
        let DiceTableEvent::DiceRolled {
            epoch,
            index,
            max,
            dice,
            at,
            ..
        } = self
        else {
            return None;
        };
        Some(roll_statement(&RollSigned {
            table,
            epoch: *epoch,
            index: *index,
            sides: *max,
            dice,
            date: &date_of(*at),
        }))
    }
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
    /// The epoch in force, the commitment to its seed, and when it was committed.
    pub epoch: u32,
    pub commitment: String,
    pub committed_at: Moment,
    /// Rolls made, over every epoch, and in the epoch in force.
    pub rolls: u64,
    pub epoch_rolls: u64,
    /// When the table last rolled (or its epoch began): its idle time runs from here.
    pub last_at: Moment,
}

/// Why a decision, a fold or an audit was refused, in words a player can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiceTableError {
    /// The seed given is not the one committed: the service's fault, never the player's.
    #[error("{0}")]
    WrongSeed(String),
    /// The reveal link is not this epoch's, and the table has not been idle long enough.
    #[error("{0}")]
    RevealRefused(String),
    /// No roll since the last reveal: there is nothing to check yet.
    #[error("{0}")]
    NothingToReveal(String),
    /// The record does not hold (a fold or an audit).
    #[error("{0}")]
    Record(String),
}

impl crate::refusal::Refusal for DiceTableError {
    fn kind(&self) -> RefusalKind {
        match self {
            DiceTableError::RevealRefused(_) => RefusalKind::RevealRefused,
            DiceTableError::NothingToReveal(_) => RefusalKind::NothingToReveal,
            DiceTableError::WrongSeed(_) | DiceTableError::Record(_) => RefusalKind::Fault,
        }
    }
}

/// How a reveal is asked for: with the secret of the link mailed to the table's addresses,
/// or by anyone once the table has been idle for the stated time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RevealAsked {
    ByLink(String),
    AfterIdle,
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
                        epoch,
                        commitment,
                        at,
                    },
                ) => DiceTable {
                    table: table.to_owned(),
                    version,
                    epoch: *epoch,
                    commitment: commitment.clone(),
                    committed_at: *at,
                    rolls: 0,
                    epoch_rolls: 0,
                    last_at: *at,
                },
                (None, _) => {
                    return Err(DiceTableError::Record(
                        "a dice table begins by committing a seed".to_owned(),
                    ))
                }
                (Some(mut folded), event) => {
                    folded.apply(event);
                    folded
                }
            });
        }
        folded.ok_or_else(|| DiceTableError::Record(format!("no dice table {table}")))
    }

    /// The table as a stream the service wrote leaves it, known from three of its events
    /// rather than all: its latest `SeedCommitted` (at `committed_version`), its last event
    /// and its version. Every epoch but the one in force was revealed, each reveal in the
    /// append that committed the next epoch, so the rest is counting.
    pub fn resume(
        table: &str,
        committed: &DiceTableEvent,
        committed_version: u64,
        last: &DiceTableEvent,
        version: u64,
    ) -> Result<DiceTable, DiceTableError> {
        let DiceTableEvent::SeedCommitted {
            epoch,
            commitment,
            at,
        } = committed
        else {
            return Err(DiceTableError::Record(format!(
                "table {table}: resumed from an event that commits no seed"
            )));
        };
        // Epochs 1 to `epoch` committed, 1 to `epoch - 1` revealed: the rest are rolls.
        let seed_events = 2 * u64::from(*epoch) - 1;
        if version < committed_version || version < seed_events {
            return Err(DiceTableError::Record(format!(
                "table {table}: version {version} cannot hold epoch {epoch}"
            )));
        }
        Ok(DiceTable {
            table: table.to_owned(),
            version,
            epoch: *epoch,
            commitment: commitment.clone(),
            committed_at: *at,
            rolls: version - seed_events,
            epoch_rolls: version - committed_version,
            last_at: last.at(),
        })
    }

    /// Takes in the next event.
    pub fn apply(&mut self, event: &DiceTableEvent) {
        self.version += 1;
        match event {
            DiceTableEvent::SeedCommitted {
                epoch,
                commitment,
                at,
            } => {
                self.epoch = *epoch;
                self.commitment = commitment.clone();
                self.committed_at = *at;
                self.epoch_rolls = 0;
                self.last_at = *at;
            }
            DiceTableEvent::DiceRolled { at, .. } => {
                self.rolls += 1;
                self.epoch_rolls += 1;
                self.last_at = *at;
            }
            DiceTableEvent::SeedRevealed { .. } => {}
        }
    }

    /// A roll of what was asked, its dice from `seed` (the epoch's) at the version it will
    /// be recorded at, signed with `keys`.
    pub fn roll(
        &self,
        asked: DiceAsked,
        seed: &GameSeed,
        keys: &DiceKeys,
        at: Moment,
        client: Option<String>,
    ) -> Result<Vec<DiceTableEvent>, DiceTableError> {
        self.check_seed(seed)?;
        let index = self.version + 1;
        let mut roll = DiceTableEvent::DiceRolled {
            epoch: self.epoch,
            index,
            times: asked.times,
            max: asked.max,
            dice: draw(&mut seed.dice_for(&self.table, index), asked),
            at,
            signature: String::new(),
            client,
        };
        let statement = roll.statement(&self.table).unwrap_or_default();
        if let DiceTableEvent::DiceRolled { signature, .. } = &mut roll {
            *signature = keys.sign(&statement);
        }
        Ok(vec![roll])
    }

    /// When anyone may ask for the seed to be revealed: `idle_seconds` after the last roll.
    pub fn idle_reveal_from(&self, idle_seconds: u64) -> Moment {
        self.last_at.plus_seconds(idle_seconds)
    }

    /// The epoch's seed revealed, as `asked` (a link's secret must be this epoch's; without
    /// one the table must have been idle `idle_seconds`), and the next epoch begun under
    /// `next`.
    pub fn reveal(
        &self,
        asked: &RevealAsked,
        keys: &DiceKeys,
        idle_seconds: u64,
        seeds: (&GameSeed, &GameSeed),
        at: Moment,
    ) -> Result<Vec<DiceTableEvent>, DiceTableError> {
        let (seed, next) = seeds;
        if self.epoch_rolls == 0 {
            return Err(DiceTableError::NothingToReveal(format!(
                "table {} has not rolled since its seed was last revealed: there is nothing \
                 to check yet",
                self.table
            )));
        }
        match asked {
            RevealAsked::ByLink(token) if keys.is_reveal_token(&self.table, self.epoch, token) => {}
            RevealAsked::ByLink(_) => {
                return Err(DiceTableError::RevealRefused(format!(
                    "this reveal link is not the one for epoch {} of table {}: use the link \
                     in the latest roll's e-mail",
                    self.epoch, self.table
                )))
            }
            RevealAsked::AfterIdle if at >= self.idle_reveal_from(idle_seconds) => {}
            RevealAsked::AfterIdle => {
                return Err(DiceTableError::RevealRefused(format!(
                    "table {} rolled less than {} ago: until then only the link in a roll's \
                     e-mail reveals its seed",
                    self.table,
                    idle_in_words(idle_seconds)
                )))
            }
        }
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
            Err(DiceTableError::WrongSeed(format!(
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
/// epochs), those whose epoch's seed is not revealed yet, and the signatures checked (every
/// roll's, when the service's public key was given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiceTableAudit {
    pub rolls_checked: u64,
    pub rolls_unrevealed: u64,
    pub signatures_checked: u64,
}

/// What a finding of a table's audit is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiceTableCheck {
    /// An epoch's commitment, or the seed revealed for it.
    Commitments,
    /// A roll's index or dice.
    Dice,
    /// A roll's signature.
    Signatures,
}

/// One fault an audit found: the event, by its place in the stream, and why, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiceTableFinding {
    pub check: DiceTableCheck,
    pub event: u64,
    /// Why, without the event's place (a report names it beside).
    pub message: String,
}

impl std::fmt::Display for DiceTableFinding {
    /// The finding with its place: `roll at event 58: ...`, `event 3 ...`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.check {
            DiceTableCheck::Commitments => write!(f, "event {}: {}", self.event, self.message),
            DiceTableCheck::Dice | DiceTableCheck::Signatures => {
                write!(f, "roll at event {}: {}", self.event, self.message)
            }
        }
    }
}

/// Checks a table's events as an auditor holding its export, to the end: each revealed
/// seed against its commitment, epochs in order, every roll's epoch, index and signature
/// (given the service's public key) and every die of a revealed epoch recomputed. Every
/// fault found, in order (the seeds, then roll by roll), and what was checked. A roll at fault is still checked otherwise, so a changed
/// die is named both by its signature and by its dice.
pub fn audit_findings(
    table: &str,
    events: &[DiceTableEvent],
    public_key: Option<&[u8]>,
) -> (DiceTableAudit, Vec<DiceTableFinding>) {
    let (seeds, mut findings) = revealed_seeds(events);
    let mut found = DiceTableAudit {
        rolls_checked: 0,
        rolls_unrevealed: 0,
        signatures_checked: 0,
    };
    // The epoch in force, and whether its seed is public already (then no roll may follow
    // until the next epoch is committed: its dice would be anyone's to pick).
    let mut in_force = 0;
    let mut public = false;
    for (i, event) in events.iter().enumerate() {
        let version = i as u64 + 1;
        match event {
            DiceTableEvent::SeedCommitted { epoch, .. } => (in_force, public) = (*epoch, false),
            DiceTableEvent::SeedRevealed { epoch, .. } if *epoch == in_force => public = true,
            _ => {}
        }
        let DiceTableEvent::DiceRolled {
            epoch,
            index,
            times,
            max,
            dice,
            signature,
            ..
        } = event
        else {
            continue;
        };
        let wrong = |check, why: String| DiceTableFinding {
            check,
            event: version,
            message: why,
        };
        // A roll is drawn from the seed in force when it is made: one that names another
        // epoch (one already revealed, whose dice anyone could pick) is no roll of it.
        if *epoch != in_force {
            findings.push(wrong(
                DiceTableCheck::Dice,
                format!("it names epoch {epoch}, but epoch {in_force} is in force there"),
            ));
            continue;
        }
        if public {
            findings.push(wrong(
                DiceTableCheck::Dice,
                format!("it was made after epoch {epoch}'s seed was revealed, before a new one was committed"),
            ));
            continue;
        }
        if *index != version {
            findings.push(wrong(
                DiceTableCheck::Dice,
                format!("its index is {index}, not its place"),
            ));
        }
        if let Some(key) = public_key {
            let statement = event.statement(table).unwrap_or_default();
            if verify_roll(key, &statement, signature) {
                found.signatures_checked += 1;
            } else {
                findings.push(wrong(
                    DiceTableCheck::Signatures,
                    "the signature is not the service's over its table, index, dice and date"
                        .to_owned(),
                ));
            }
        }
        let Some(seed) = seeds.get(epoch) else {
            found.rolls_unrevealed += 1;
            continue;
        };
        let asked = match DiceAsked::try_from((*times, *max)) {
            Ok(asked) => asked,
            Err(why) => {
                findings.push(wrong(DiceTableCheck::Dice, why));
                continue;
            }
        };
        let expected = draw(&mut seed.dice_for(table, version), asked);
        if &expected == dice {
            found.rolls_checked += 1;
        } else {
            findings.push(wrong(
                DiceTableCheck::Dice,
                format!(
                    "the record says {}, the seed gives {}",
                    listed(dice),
                    listed(&expected)
                ),
            ));
        }
    }
    (found, findings)
}

/// The seeds revealed, by epoch, each checked against its epoch's commitment; a seed that
/// does not hold is named and left out.
fn revealed_seeds(events: &[DiceTableEvent]) -> (BTreeMap<u32, GameSeed>, Vec<DiceTableFinding>) {
    let mut commitments = BTreeMap::new();
    let mut seeds = BTreeMap::new();
    let mut findings = Vec::new();
    // The epoch in force, and whether its seed is revealed: epochs follow one another, each
    // committed once its forerunner is revealed.
    let mut in_force: Option<(u32, bool)> = None;
    for (i, event) in events.iter().enumerate() {
        let version = i as u64 + 1;
        let mut wrong = |why: String| {
            findings.push(DiceTableFinding {
                check: DiceTableCheck::Commitments,
                event: version,
                message: why,
            })
        };
        match event {
            DiceTableEvent::SeedCommitted {
                epoch, commitment, ..
            } => {
                match in_force {
                    None if *epoch != 1 => wrong(format!("commits epoch {epoch} first, not 1")),
                    Some((before, _)) if *epoch != before + 1 => {
                        wrong(format!("commits epoch {epoch} after epoch {before}"))
                    }
                    Some((before, false)) => wrong(format!(
                        "commits epoch {epoch} while epoch {before}'s seed is not revealed"
                    )),
                    _ => {}
                }
                if commitments.contains_key(epoch) {
                    wrong(format!("commits epoch {epoch} a second time"));
                } else {
                    commitments.insert(*epoch, commitment.clone());
                }
                in_force = Some((*epoch, false));
            }
            DiceTableEvent::SeedRevealed { epoch, .. }
                if in_force.is_none_or(|(current, revealed)| current != *epoch || revealed) =>
            {
                wrong(format!(
                    "reveals epoch {epoch}, which is not the epoch in force"
                ));
            }
            DiceTableEvent::SeedRevealed { epoch, seed, .. } => {
                in_force = Some((*epoch, true));
                let Some(seed) = parse_seed(seed) else {
                    wrong("reveals no seed".to_owned());
                    continue;
                };
                match commitments.get(epoch) {
                    None => wrong(format!("reveals epoch {epoch}, never committed")),
                    Some(committed) if &hex::encode(seed.commitment()) != committed => wrong(
                        format!("reveals a seed for epoch {epoch} that is not the one committed"),
                    ),
                    Some(_) => {
                        seeds.insert(*epoch, seed);
                    }
                }
                // The service commits the next epoch in the append that reveals one.
                if !matches!(
                    events.get(i + 1),
                    Some(DiceTableEvent::SeedCommitted { .. })
                ) {
                    wrong(format!(
                        "reveals epoch {epoch}, and no new epoch is committed right after it"
                    ));
                }
            }
            DiceTableEvent::DiceRolled { .. } => {}
        }
    }
    (seeds, findings)
}

/// An idle time as people read it: `7 days`, `36 hours`, `15 minutes`.
pub fn idle_in_words(seconds: u64) -> String {
    let (count, unit) = match seconds {
        s if s >= 2 * 86_400 && s % 86_400 == 0 => (s / 86_400, "day"),
        s if s >= 3_600 && s % 3_600 == 0 => (s / 3_600, "hour"),
        s if s >= 60 => (s.div_ceil(60), "minute"),
        s => (s, "second"),
    };
    format!("{count} {unit}{}", if count == 1 { "" } else { "s" })
}

/// A value a refusal quotes back: its first 40 characters, control characters left out.
pub fn shown(text: &str) -> String {
    let kept: String = text.chars().filter(|c| !c.is_control()).take(40).collect();
    if text.chars().count() > 40 {
        format!("{kept}...")
    } else {
        kept
    }
}

/// Dice as people read them: `3, 6, 1`.
pub(crate) fn listed(dice: &[u32]) -> String {
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
