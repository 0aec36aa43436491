//! Events by name, for tools: the JSON of an event (or anything else that serialises)
//! with places by their board names and unit types by their codes, where the log writes
//! index numbers (`"territory": "Ukraine"`, `["INF", 3]` for `8` and `[0, 3]`).
//!
//! How: a naming context that the `Serialize` impls of [`TerritoryId`] and [`UnitTypeId`]
//! consult. It is set only while a [`Named`] value is being serialised, on that thread,
//! and put back as it was afterwards (also on a panic). Why this design:
//!
//! - **The least code.** Every event type, nested ones included (`BattleFought`,
//!   `WarMove`, an agreement's outbreak, standing orders), and every type yet to come gets
//!   named output from its own `#[derive(Serialize)]`; a parallel set of "named" types
//!   would double the vocabulary and drift from it.
//! - **The log's bytes cannot change.** Outside a [`Named`] value's own serialisation the
//!   ids serialise as the integers they always were, so the canonical encoding and the hash
//!   chain never see a name: the scope is one `serialize` call, not a closure in which other
//!   code (an append, a hash) could run. It is thread-local, so a scope on another thread
//!   changes nothing here, and serde serialises eagerly, so no scope outlives its call.
//! - **Deserialisation is untouched**: names are for reading; the log and the API's orders
//!   read ids as they did (orders by name go through [`crate::game::named`]).
//!
//! An id that is not on the board or in the catalogue (an imported log's) stays a number.

use std::cell::RefCell;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use crate::board::TerritoryId;
use crate::game::Rules;
use crate::units::UnitTypeId;

/// The names of one ruleset's places and unit types, by index. Build it once and name as
/// many values with it as needed; cloning it is cheap.
#[derive(Debug, Clone)]
pub struct Names {
    tables: Arc<Tables>,
}

#[derive(Debug)]
struct Tables {
    places: Vec<String>,
    units: Vec<String>,
}

thread_local! {
    /// The names in force while a [`Named`] value serialises on this thread.
    static IN_FORCE: RefCell<Option<Arc<Tables>>> = const { RefCell::new(None) };
}

impl Names {
    /// The board's names and the catalogue's codes.
    pub fn of(rules: Rules<'_>) -> Names {
        Names {
            tables: Arc::new(Tables {
                places: rules
                    .board
                    .territories()
                    .map(|(_, t)| t.name.clone())
                    .collect(),
                units: rules
                    .catalogue
                    .units()
                    .map(|(_, u)| u.code.clone())
                    .collect(),
            }),
        }
    }

    /// `value`, to serialise with these names.
    pub fn named<'a, T: ?Sized>(&'a self, value: &'a T) -> Named<'a, T> {
        Named { names: self, value }
    }

    /// `value` as JSON with these names.
    pub fn to_json<T: Serialize + ?Sized>(&self, value: &T) -> serde_json::Value {
        // Serialising into a `Value` fails only for maps whose keys are not strings, which
        // the game's types do not have.
        serde_json::to_value(self.named(value)).unwrap_or(serde_json::Value::Null)
    }
}

/// `value` as JSON with places by their board names and units by their codes.
pub fn to_named_json<T: Serialize + ?Sized>(rules: Rules<'_>, value: &T) -> serde_json::Value {
    Names::of(rules).to_json(value)
}

/// A value that serialises with names (see the module's notes); anything else serialises
/// as it always does.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a, T: ?Sized> {
    names: &'a Names,
    value: &'a T,
}

impl<T: Serialize + ?Sized> Serialize for Named<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let _scope = Scope::enter(self.names.tables.clone());
        self.value.serialize(serializer)
    }
}

/// Puts the names in force, and back what was in force before when dropped.
struct Scope {
    before: Option<Arc<Tables>>,
}

impl Scope {
    fn enter(tables: Arc<Tables>) -> Scope {
        let before = IN_FORCE.with(|cell| cell.replace(Some(tables)));
        Scope { before }
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let before = self.before.take();
        IN_FORCE.with(|cell| *cell.borrow_mut() = before);
    }
}

/// Which table an id names into.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Place,
    Unit,
}

/// Serialises an id: its name while one is in force, else its index.
pub(crate) fn serialize_id<S: Serializer>(
    kind: Kind,
    index: u8,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    IN_FORCE.with(|cell| {
        let tables = cell.borrow();
        let name = tables.as_ref().and_then(|t| {
            let names = match kind {
                Kind::Place => &t.places,
                Kind::Unit => &t.units,
            };
            names.get(usize::from(index))
        });
        match name {
            Some(name) => serializer.serialize_str(name),
            None => serializer.serialize_u8(index),
        }
    })
}

impl Serialize for TerritoryId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_id(Kind::Place, self.index() as u8, serializer)
    }
}

impl Serialize for UnitTypeId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_id(Kind::Unit, self.index() as u8, serializer)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Barrier;

    use serde_json::json;

    use super::*;
    use crate::canonical::to_canonical_bytes;
    use crate::game::GameEvent;
    use crate::ruleset::Ruleset;

    fn rules() -> Rules<'static> {
        Ruleset::builtin("cutthroat").expect("built in").rules()
    }

    fn moved() -> GameEvent {
        let rules = rules();
        let place = |name: &str| rules.board.id(name).expect(name);
        let unit = |code: &str| rules.catalogue.id(code).expect(code);
        GameEvent::UnitsMoved {
            power: crate::board::Power::Germany,
            units: vec![(unit("INF"), 2), (unit("ARM"), 1)],
            path: vec![place("East Europe"), place("Ukraine")],
            captured: Vec::new(),
            contested: Some(place("Ukraine")),
            passengers: Vec::new(),
        }
    }

    fn canonical(event: &GameEvent) -> Vec<u8> {
        to_canonical_bytes(&serde_json::to_value(event).expect("serialises"))
    }

    #[test]
    fn a_named_event_shows_board_names_and_unit_codes_where_the_plain_one_shows_numbers() {
        let rules = rules();
        let event = moved();
        let (ukraine, east_europe) = (
            rules.board.id("Ukraine").expect("Ukraine").index(),
            rules.board.id("East Europe").expect("East Europe").index(),
        );
        let (inf, arm) = (
            rules.catalogue.id("INF").expect("INF").index(),
            rules.catalogue.id("ARM").expect("ARM").index(),
        );
        let plain = serde_json::to_value(&event).expect("serialises");
        assert_eq!(
            plain,
            json!({"UnitsMoved": {
                "power": "germany",
                "units": [[inf, 2], [arm, 1]],
                "path": [east_europe, ukraine],
                "captured": [],
                "contested": ukraine,
                "passengers": [],
            }})
        );
        assert_eq!(
            to_named_json(rules, &event),
            json!({"UnitsMoved": {
                "power": "germany",
                "units": [["INF", 2], ["ARM", 1]],
                "path": ["East Europe", "Ukraine S.S.R."],
                "captured": [],
                "contested": "Ukraine S.S.R.",
                "passengers": [],
            }})
        );
        // Named once, plain again: the names were in force for that one call only.
        assert_eq!(serde_json::to_value(&event).expect("serialises"), plain);
    }

    #[test]
    fn the_canonical_bytes_of_an_event_are_the_same_while_another_thread_names_events() {
        /// Serialises a place, but only once the other thread has read its bytes: the
        /// names stay in force on this thread the whole time.
        struct Slow<'a> {
            inside: &'a Barrier,
            done: &'a Barrier,
            place: TerritoryId,
        }
        impl Serialize for Slow<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                self.inside.wait();
                self.done.wait();
                self.place.serialize(serializer)
            }
        }

        let rules = rules();
        let event = moved();
        let before = canonical(&event);
        let names = Names::of(rules);
        let (inside, done) = (Barrier::new(2), Barrier::new(2));
        let slow = Slow {
            inside: &inside,
            done: &done,
            place: rules.board.id("Ukraine").expect("Ukraine"),
        };
        let named = std::thread::scope(|scope| {
            let naming = scope.spawn(|| names.to_json(&slow));
            inside.wait();
            let during = canonical(&event);
            done.wait();
            assert_eq!(during, before, "names leaked into another thread's bytes");
            naming.join().expect("named")
        });
        assert_eq!(named, json!("Ukraine S.S.R."));
        assert_eq!(canonical(&event), before);
    }

    #[test]
    fn names_are_put_back_as_they_were_after_a_nested_scope_and_after_a_panic() {
        struct Inner<'a>(&'a Names, TerritoryId);
        impl Serialize for Inner<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeTuple;
                let mut tuple = serializer.serialize_tuple(2)?;
                tuple.serialize_element(&self.0.named(&self.1))?;
                // Still named after the inner scope ended.
                tuple.serialize_element(&self.1)?;
                tuple.end()
            }
        }
        struct Panics;
        impl Serialize for Panics {
            fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                panic!("a serialiser that fails halfway");
            }
        }

        let rules = rules();
        let names = Names::of(rules);
        let karelia = rules.board.id("Karelia").expect("Karelia");
        assert_eq!(
            names.to_json(&Inner(&names, karelia)),
            json!(["Karelia S.S.R.", "Karelia S.S.R."])
        );
        let panicked = std::panic::catch_unwind(|| names.to_json(&Panics));
        assert!(panicked.is_err());
        assert_eq!(
            serde_json::to_value(karelia).expect("serialises"),
            json!(karelia.index())
        );
    }

    #[test]
    fn an_event_reads_back_from_its_plain_json_as_before() {
        let event = moved();
        let plain = serde_json::to_value(&event).expect("serialises");
        let read: GameEvent = serde_json::from_value(plain).expect("reads back");
        assert_eq!(read, event);
        // Names are for reading, not for the log: they do not read back as ids.
        let named = to_named_json(rules(), &event);
        assert!(serde_json::from_value::<GameEvent>(named).is_err());
    }

    #[test]
    fn an_id_off_the_board_stays_a_number() {
        let off: TerritoryId = serde_json::from_value(json!(250)).expect("an id");
        assert_eq!(to_named_json(rules(), &off), json!(250));
    }
}
