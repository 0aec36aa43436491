//! The API's handlers, one module per resource. Each module declares its routes once,
//! with [`resource!`]: that gives it the `configure` that registers them with actix-web and
//! the `Api` whose OpenAPI paths are the same handlers, so the route tree and the
//! document's tree are one tree (`crate::app` and `crate::ApiDoc` take every module's).

/// Declares a resource's handlers: `configure` registers them (in the order given, which
/// is the order actix tries them) and `Api` documents them.
macro_rules! resource {
    ($($handler:ident),* $(,)?) => {
        /// This resource's part of the OpenAPI document.
        #[derive(Debug, utoipa::OpenApi)]
        #[openapi(paths($($handler),*))]
        pub struct Api;

        /// Registers this resource's handlers.
        pub fn configure(config: &mut actix_web::web::ServiceConfig) {
            $(config.service($handler);)*
        }
    };
}

pub mod games;
pub mod indexes;
pub mod league;
pub mod odds;
pub mod ops;
pub mod player_email;
pub mod rulesets;
pub mod streams;
pub mod tournaments;
pub mod turns;
pub mod webhooks;

/// Every resource's part of the OpenAPI document.
pub fn apis() -> Vec<utoipa::openapi::OpenApi> {
    use utoipa::OpenApi;
    vec![
        ops::Api::openapi(),
        streams::Api::openapi(),
        rulesets::Api::openapi(),
        games::Api::openapi(),
        turns::Api::openapi(),
        odds::Api::openapi(),
        league::Api::openapi(),
        player_email::Api::openapi(),
        indexes::Api::openapi(),
        tournaments::Api::openapi(),
        webhooks::Api::openapi(),
    ]
}

/// Registers every resource's handlers.
pub fn configure(config: &mut actix_web::web::ServiceConfig) {
    ops::configure(config);
    streams::configure(config);
    rulesets::configure(config);
    games::configure(config);
    turns::configure(config);
    odds::configure(config);
    league::configure(config);
    player_email::configure(config);
    indexes::configure(config);
    tournaments::configure(config);
    webhooks::configure(config);
}
