//! Stream events stored by their serde variant: the variant's name is the event type and
//! its fields are the payload, so an enum of events needs no hand-written table of names.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::{EventDecodeError, EventType};

fn payload_error(e: impl std::fmt::Display) -> EventDecodeError {
    EventDecodeError::Payload(e.to_string())
}

/// The event type and payload of an externally tagged enum's value (`{"Variant": fields}`).
pub fn encode_variant<E: Serialize>(event: &E) -> Result<(EventType, Value), EventDecodeError> {
    match serde_json::to_value(event) {
        Ok(Value::Object(map)) if map.len() == 1 => {
            let (name, payload) = map
                .into_iter()
                .next()
                .ok_or_else(|| payload_error("empty"))?;
            Ok((EventType::try_from(name).map_err(payload_error)?, payload))
        }
        Ok(other) => Err(payload_error(format!("unexpected form {other}"))),
        Err(e) => Err(payload_error(e)),
    }
}

/// Reads back what [`encode_variant`] wrote; the error names the event type.
pub fn decode_variant<E: DeserializeOwned>(
    event_type: &str,
    payload: &Value,
) -> Result<E, EventDecodeError> {
    let mut tagged = serde_json::Map::new();
    tagged.insert(event_type.to_owned(), payload.clone());
    serde_json::from_value(Value::Object(tagged))
        .map_err(|e| payload_error(format!("{event_type}: {e}")))
}
