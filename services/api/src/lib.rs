//! warlog's HTTP API: thin actix-web handlers (parse, call the store or the domain,
//! render), RFC 9457 problem documents for every error, Prometheus metrics, and the
//! OpenAPI document generated from the handlers.

pub mod assets;
pub mod audit_cache;
pub mod auth;
pub mod body;
pub mod charts;
pub mod conditional;
pub mod cors;
pub mod cursor;
pub mod dice_tables;
pub mod error;
pub mod games;
pub mod input_guard;
pub mod ladder_cache;
pub mod mail;
pub mod mail_desk;
pub mod mail_in;
pub mod map;
pub mod metrics;
pub mod networks;
pub mod new_game;
pub(crate) mod number_words;
pub mod orders;
pub mod page_cache;
pub mod pages;
pub mod players;
pub mod public_url;
pub mod query;
pub mod rate_limit;
pub(crate) mod reads;
pub mod respond;
pub mod retry;
mod route_table;
pub mod routes;
pub mod ruleset_upload;
pub mod rulesets;
pub mod schema_names;
pub mod security;
pub mod text_measure;
pub mod token_cache;
pub mod tournaments;
pub mod turns;
mod unsigned_bounds;
pub mod views;
pub mod webhooks;
pub mod write;

mod app;
mod clock;
mod openapi;
mod state;
mod telemetry;

pub use app::app;
pub use clock::Clock;
pub use state::{AppState, CONSISTENCY_TOKEN};
pub use telemetry::Telemetry;

pub use openapi::{openapi_pretty_json, ApiDoc};
pub use route_table::{methods_at, needs_token};
