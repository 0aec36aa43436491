//! warlog's integration tests: one binary, real PostgreSQL, one fresh database per test.

mod control_characters;
mod demo;
mod deploy;
mod dice;
mod dice_older_clients;
mod dice_oracle;
mod dice_pages;
mod dice_register_pages;
mod dice_registration;
mod directors;
mod discovery;
mod dovecot;
mod edge;
mod feed;
mod games;
mod hardening;
mod home_cooked;
mod http;
mod immutability;
mod integrators;
mod kit;
mod league;
mod mail_clients;
mod map_labels;
mod notices;
mod openapi;
mod pacific;
mod pacific_board;
mod page_words;
mod pages;
mod play_by_mail;
mod projector;
mod proxies;
mod record_share;
mod replicas;
mod restore;
mod rulesets;
mod standby;
mod store;
mod sub_retreat;
mod tls;
mod tournaments;
mod turns;
mod webhooks;

use serde_json::json;
use uuid::Uuid;
use warlog_events::{EventType, Metadata, NewEvent, StreamId};

pub fn stream(raw: &str) -> StreamId {
    StreamId::try_from(raw).expect("valid stream id")
}

/// A plausible game event with a payload that differs by `n`.
pub fn order(n: u64) -> NewEvent {
    NewEvent::new(
        Uuid::new_v4(),
        EventType::try_from("OrderSubmitted").expect("valid"),
        1,
        json!({"power": "Germany", "order": "move", "from": "Germany", "to": "Karelia", "n": n}),
        &Metadata::recorded_at(time::OffsetDateTime::now_utc()).with_actor("test"),
    )
}
