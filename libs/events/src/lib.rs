//! The event log's vocabulary: what an event is, how it is encoded byte for byte, and how
//! each stream's hash chain proves the log only ever grew.
//!
//! Everything here is pure: no IO, no clock (times come in as arguments), no randomness
//! (event ids are handed in by the caller).

pub mod audit;
pub mod by_mail;
/// The canonical encoding lives with the rules (ruleset documents hash by it too); the log
/// encodes its events by the same.
pub use warlog_rules::canonical;
pub mod chain;
mod command;
pub mod dice_table;
pub mod entrants;
mod envelope;
pub mod game;
mod ids;
pub mod in_person;
pub mod naming;
pub mod notices;
pub mod orders;
pub mod preview;
pub mod proxy;
pub mod refusal;
pub mod ruleset;
#[cfg(any(test, feature = "samples"))]
pub mod sample;
pub mod sealed;
pub mod sender;
pub mod shares;
pub mod turn;
pub mod upcast;
pub mod variant;
pub mod void_reason;

pub use chain::{
    relink, verify_chain, verify_extends, ChainBreak, ChainBreakKind, ChainHead, ChainVerifier,
    Hash,
};
pub use envelope::{DomainEvent, EventDecodeError, Metadata, NewEvent, RecordedEvent};
pub use ids::{EventType, IdError, IdempotencyKey, StreamCategory, StreamId};
