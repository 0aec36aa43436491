//! The event envelope: what a writer hands the store ([`NewEvent`]) and what a reader gets
//! back ([`RecordedEvent`]).

use serde::{de::DeserializeOwned, Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::chain::Hash;
use crate::upcast::{UpcastError, Upcasters};
use crate::{EventType, IdempotencyKey, StreamId};
use warlog_rules::canonical::{write_string, write_value};

/// Who wrote an event and why: part of the hashed content of every event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// The authenticated caller, e.g. `user:alice` or `system:projector`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// The event or command this one was caused by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub causation_id: Option<Uuid>,
    /// Ties together every event of one user request or workflow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<IdempotencyKey>,
    /// When the service accepted the event, to the microsecond (PostgreSQL's precision).
    #[serde(with = "time::serde::rfc3339")]
    pub recorded_at: OffsetDateTime,
}

impl Metadata {
    /// Metadata for an event recorded at `now`; the clock is the caller's.
    pub fn recorded_at(now: OffsetDateTime) -> Self {
        let micros = now.nanosecond() / 1_000 * 1_000;
        Metadata {
            actor: None,
            causation_id: None,
            correlation_id: None,
            idempotency_key: None,
            recorded_at: now.replace_nanosecond(micros).unwrap_or(now),
        }
    }

    pub fn with_actor(mut self, actor: impl Into<String>) -> Self {
        self.actor = Some(actor.into());
        self
    }
}

/// A typed event of the domain. `EVENT_VERSION` is the version written today; older stored
/// versions are brought up to it by [`Upcasters`] when read.
pub trait DomainEvent: Serialize + DeserializeOwned {
    const EVENT_TYPE: &'static str;
    const EVENT_VERSION: u32;
}

/// An event a writer wants appended.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEvent {
    pub event_id: Uuid,
    pub event_type: EventType,
    pub event_version: u32,
    pub payload: Value,
    pub metadata: Value,
}

impl NewEvent {
    pub fn new(
        event_id: Uuid,
        event_type: EventType,
        event_version: u32,
        payload: Value,
        metadata: &Metadata,
    ) -> Self {
        NewEvent {
            event_id,
            event_type,
            event_version: event_version.max(1),
            payload,
            // Serialising a struct of strings, ids and a formatted time cannot fail.
            metadata: serde_json::to_value(metadata).unwrap_or(Value::Null),
        }
    }

    /// Wraps a typed domain event.
    pub fn from_domain<E: DomainEvent>(
        event_id: Uuid,
        event: &E,
        metadata: &Metadata,
    ) -> Result<Self, EventDecodeError> {
        let event_type = EventType::try_from(E::EVENT_TYPE)
            .map_err(|e| EventDecodeError::Payload(e.to_string()))?;
        let payload =
            serde_json::to_value(event).map_err(|e| EventDecodeError::Payload(e.to_string()))?;
        Ok(NewEvent::new(
            event_id,
            event_type,
            E::EVENT_VERSION,
            payload,
            metadata,
        ))
    }

    /// The bytes this event contributes to its stream's hash chain.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        canonical_event_bytes(
            &self.event_id,
            &self.event_type,
            self.event_version,
            &self.metadata,
            &self.payload,
        )
    }
}

/// An event as stored: its place in the global log and in its stream, and its chain links.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedEvent {
    /// Position in the global log. Unique and increasing in insertion order, but not in
    /// commit order: readers of the global feed order by `(tx_id, position)`.
    pub position: i64,
    pub stream_id: StreamId,
    /// 1 for a stream's first event; no gaps.
    pub stream_version: u64,
    pub event_id: Uuid,
    pub event_type: EventType,
    pub event_version: u32,
    pub payload: Value,
    pub metadata: Value,
    /// The id (`xid8`) of the transaction that wrote the event (absent from exports: it
    /// orders the global feed and is no part of the chain).
    #[serde(default)]
    pub tx_id: u64,
    pub prev_hash: Hash,
    pub hash: Hash,
}

impl RecordedEvent {
    /// The bytes this event contributes to its stream's hash chain, recomputed from what
    /// was stored.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        canonical_event_bytes(
            &self.event_id,
            &self.event_type,
            self.event_version,
            &self.metadata,
            &self.payload,
        )
    }

    /// The typed event, brought up to `E::EVENT_VERSION` by the registered upcasters.
    pub fn decode<E: DomainEvent>(&self, upcasters: &Upcasters) -> Result<E, EventDecodeError> {
        if self.event_type.as_str() != E::EVENT_TYPE {
            return Err(EventDecodeError::WrongType {
                expected: E::EVENT_TYPE,
                found: self.event_type.to_string(),
            });
        }
        let payload = upcasters.upcast(
            &self.event_type,
            self.event_version,
            E::EVENT_VERSION,
            self.payload.clone(),
        )?;
        serde_json::from_value(payload).map_err(|e| EventDecodeError::Payload(e.to_string()))
    }

    /// The metadata, typed.
    pub fn typed_metadata(&self) -> Result<Metadata, EventDecodeError> {
        serde_json::from_value(self.metadata.clone())
            .map_err(|e| EventDecodeError::Payload(format!("metadata: {e}")))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventDecodeError {
    #[error("expected a {expected} event, found {found}")]
    WrongType {
        expected: &'static str,
        found: String,
    },
    #[error(transparent)]
    Upcast(#[from] UpcastError),
    #[error("payload does not decode: {0}")]
    Payload(String),
}

/// `{"event_id":..,"event_type":..,"event_version":..,"metadata":..,"payload":..}` in
/// canonical form (keys already in sorted order). The stream id and version are not in it:
/// the chain's genesis names the stream and each link fixes the order.
fn canonical_event_bytes(
    event_id: &Uuid,
    event_type: &EventType,
    event_version: u32,
    metadata: &Value,
    payload: &Value,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(b"{\"event_id\":\"");
    out.extend_from_slice(event_id.hyphenated().to_string().as_bytes());
    out.extend_from_slice(b"\",\"event_type\":");
    write_string(event_type.as_str(), &mut out);
    out.extend_from_slice(b",\"event_version\":");
    out.extend_from_slice(event_version.to_string().as_bytes());
    out.extend_from_slice(b",\"metadata\":");
    write_value(metadata, &mut out);
    out.extend_from_slice(b",\"payload\":");
    write_value(payload, &mut out);
    out.push(b'}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::{verify_chain, verify_extends, ChainBreakKind, ChainHead};
    use serde_json::json;
    use time::macros::datetime;

    fn stream() -> StreamId {
        StreamId::try_from("game-1").expect("valid")
    }

    /// Builds a correctly chained stream of `n` events, as the store would.
    fn chained(n: u64) -> Vec<RecordedEvent> {
        let meta = Metadata::recorded_at(datetime!(2026-11-22 12:00:00.123456789 UTC));
        let mut prev = Hash::genesis(&stream());
        (1..=n)
            .map(|v| {
                let new = NewEvent::new(
                    Uuid::from_u128(v.into()),
                    EventType::try_from("TurnEnded").expect("valid"),
                    1,
                    json!({"round": v, "notes": {"b": 1, "a": [1.0, 2.5]}}),
                    &meta,
                );
                let hash = Hash::link(&prev, &new.canonical_bytes());
                let event = RecordedEvent {
                    position: i64::try_from(v).expect("small") * 10,
                    stream_id: stream(),
                    stream_version: v,
                    event_id: new.event_id,
                    event_type: new.event_type,
                    event_version: new.event_version,
                    payload: new.payload,
                    metadata: new.metadata,
                    tx_id: 100 + v,
                    prev_hash: prev,
                    hash,
                };
                prev = hash;
                event
            })
            .collect()
    }

    #[test]
    fn an_intact_chain_verifies_to_its_head() {
        let events = chained(5);
        let head = verify_chain(&stream(), &events).expect("intact");
        assert_eq!(head.version, 5);
        assert_eq!(head.hash, events[4].hash);
    }

    #[test]
    fn a_changed_payload_is_named_by_version_and_event_id() {
        let mut events = chained(5);
        events[2].payload["round"] = json!(99);
        let err = verify_chain(&stream(), &events).expect_err("tampered");
        assert_eq!(err.stream_version, 3);
        assert_eq!(err.event_id, Some(events[2].event_id));
        assert!(matches!(*err.kind, ChainBreakKind::HashMismatch { .. }));
    }

    #[test]
    fn a_changed_metadata_field_breaks_the_chain() {
        let mut events = chained(3);
        events[0].metadata["actor"] = json!("user:mallory");
        let err = verify_chain(&stream(), &events).expect_err("tampered");
        assert_eq!(err.stream_version, 1);
    }

    #[test]
    fn a_dropped_event_is_reported_as_a_gap() {
        let mut events = chained(4);
        events.remove(1);
        let err = verify_chain(&stream(), &events).expect_err("gap");
        assert_eq!(err.stream_version, 3);
        assert_eq!(*err.kind, ChainBreakKind::VersionGap { expected: 2 });
    }

    #[test]
    fn a_chain_moved_to_another_stream_does_not_verify() {
        let events = chained(2);
        let other = StreamId::try_from("game-2").expect("valid");
        assert!(verify_chain(&other, &events).is_err());
    }

    #[test]
    fn key_order_and_number_spelling_do_not_change_the_hash() {
        let events = chained(1);
        let mut reordered = events[0].clone();
        reordered.payload =
            serde_json::from_str(r#"{ "notes": {"a": [1, 2.50], "b": 1.0}, "round": 1 }"#)
                .expect("json");
        assert_eq!(reordered.canonical_bytes(), events[0].canonical_bytes());
    }

    #[test]
    fn a_held_head_is_checked_against_the_grown_chain() {
        let events = chained(6);
        let held = ChainHead {
            version: 3,
            hash: events[2].hash,
        };
        assert_eq!(
            verify_extends(&stream(), held, &events)
                .expect("grew")
                .version,
            6
        );
        let forged = ChainHead {
            version: 3,
            hash: events[1].hash,
        };
        let err = verify_extends(&stream(), forged, &events).expect_err("not an extension");
        assert!(matches!(*err.kind, ChainBreakKind::NotAnExtension { .. }));
        let future = ChainHead {
            version: 9,
            hash: events[5].hash,
        };
        let err = verify_extends(&stream(), future, &events).expect_err("shrunk");
        assert_eq!(*err.kind, ChainBreakKind::Shrunk { held_version: 9 });
    }

    #[test]
    fn recorded_at_keeps_microseconds_only() {
        let meta = Metadata::recorded_at(datetime!(2026-11-22 12:00:00.123456789 UTC));
        let value = serde_json::to_value(&meta).expect("serializable");
        assert_eq!(value["recorded_at"], json!("2026-11-22T12:00:00.123456Z"));
    }
}
