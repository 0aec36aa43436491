//! Schema evolution without rewriting history: stored events keep the version they were
//! written with; readers bring old payloads up to date, one version step at a time.

use std::collections::HashMap;

use serde_json::Value;

use crate::EventType;

/// One step: the payload of version `n` in, the payload of version `n + 1` out.
pub type UpcastStep = fn(Value) -> Result<Value, String>;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpcastError {
    #[error("no upcaster from {event_type} v{from} to v{to}")]
    Missing {
        event_type: String,
        from: u32,
        to: u32,
    },
    #[error("{event_type} v{from} is newer than this build knows (v{known})")]
    FromTheFuture {
        event_type: String,
        from: u32,
        known: u32,
    },
    #[error("upcasting {event_type} v{from}: {reason}")]
    Failed {
        event_type: String,
        from: u32,
        reason: String,
    },
}

/// The registered steps, keyed by event type and the version they start from.
#[derive(Debug, Default, Clone)]
pub struct Upcasters {
    steps: HashMap<(String, u32), UpcastStep>,
}

impl Upcasters {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers the step from `from_version` to `from_version + 1`.
    pub fn register(mut self, event_type: &str, from_version: u32, step: UpcastStep) -> Self {
        self.steps
            .insert((event_type.to_owned(), from_version), step);
        self
    }

    /// Brings `payload`, stored as `version`, up to `target`.
    pub fn upcast(
        &self,
        event_type: &EventType,
        version: u32,
        target: u32,
        mut payload: Value,
    ) -> Result<Value, UpcastError> {
        let name = event_type.as_str();
        if version > target {
            return Err(UpcastError::FromTheFuture {
                event_type: name.to_owned(),
                from: version,
                known: target,
            });
        }
        for from in version..target {
            let step =
                self.steps
                    .get(&(name.to_owned(), from))
                    .ok_or_else(|| UpcastError::Missing {
                        event_type: name.to_owned(),
                        from,
                        to: from + 1,
                    })?;
            payload = step(payload).map_err(|reason| UpcastError::Failed {
                event_type: name.to_owned(),
                from,
                reason,
            })?;
        }
        Ok(payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rename_player_to_handle(mut v: Value) -> Result<Value, String> {
        let obj = v.as_object_mut().ok_or("payload is not an object")?;
        let player = obj.remove("player").ok_or("no player field")?;
        obj.insert("handle".into(), player);
        Ok(v)
    }

    fn add_default_season(mut v: Value) -> Result<Value, String> {
        v["season"] = json!(2000);
        Ok(v)
    }

    fn registry() -> Upcasters {
        Upcasters::new()
            .register("PlayerJoined", 1, rename_player_to_handle)
            .register("PlayerJoined", 2, add_default_season)
    }

    fn player_joined() -> EventType {
        EventType::try_from("PlayerJoined").expect("valid")
    }

    #[test]
    fn a_v1_payload_is_upcast_through_every_step_to_the_current_version() {
        let v3 = registry()
            .upcast(&player_joined(), 1, 3, json!({"player": "ann"}))
            .expect("upcast");
        assert_eq!(v3, json!({"handle": "ann", "season": 2000}));
    }

    #[test]
    fn a_current_payload_is_returned_unchanged() {
        let v = json!({"handle": "ann", "season": 2026});
        assert_eq!(registry().upcast(&player_joined(), 3, 3, v.clone()), Ok(v));
    }

    #[test]
    fn a_missing_step_and_a_future_version_are_errors() {
        let none = Upcasters::new();
        assert!(matches!(
            none.upcast(&player_joined(), 1, 2, json!({})),
            Err(UpcastError::Missing { from: 1, .. })
        ));
        assert!(matches!(
            registry().upcast(&player_joined(), 4, 3, json!({})),
            Err(UpcastError::FromTheFuture { .. })
        ));
    }

    #[test]
    fn a_failing_step_names_its_reason() {
        let err = registry()
            .upcast(&player_joined(), 1, 3, json!({"nobody": 1}))
            .expect_err("fails");
        assert!(err.to_string().contains("no player field"), "{err}");
    }
}
