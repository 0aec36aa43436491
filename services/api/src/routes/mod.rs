//! The API's handlers, one module per resource (the reads they share with the pages are in
//! `crate::reads`). Each module declares its routes once, with [`resource!`]: that gives
//! it the `configure` that registers them with actix-web,
//! the `Api` whose OpenAPI paths are the same handlers, so the route tree and the
//! document's tree are one tree (`crate::app` and `crate::ApiDoc` take every module's),
//! and `ERRORS`, what each operation can refuse with, from which the document's problem
//! answers are written (`crate::openapi`).

/// Declares a resource's handlers: `configure` registers them (in the order given, which
/// is the order actix tries them), `Api` documents them, and `ERRORS` holds each one's
/// error codes, the ones its own path can give (the ones every route of its kind gives, such
/// as a 401 on a secured route, come from `CommonResponses`). `keyed` before the list: the
/// operation takes an `Idempotency-Key`. `=> Schema` after it: the operation refuses in a
/// protocol's own JSON (the schema named), not in a problem document.
///
/// ```ignore
/// resource! {
///     game_list: [],
///     end_game: keyed [Forbidden, GameNotFound, RuleViolation],
///     roll_dice: [InvalidDiceRoll] => RollRefused,
/// }
/// ```
macro_rules! resource {
    (@keyed) => { false };
    (@keyed keyed) => { true };
    (@refusal) => { None };
    (@refusal $refusal:ident) => { Some((stringify!($refusal), "application/json")) };
    (@refusal $refusal:ident as $media:literal) => { Some((stringify!($refusal), $media)) };
    ($($handler:ident: $($keyed:ident)? [$($code:ident),* $(,)?] $(=> $refusal:ident $(as $media:literal)?)?),* $(,)?) => {
        /// This resource's part of the OpenAPI document.
        #[derive(Debug, utoipa::OpenApi)]
        #[openapi(paths($($handler),*))]
        pub struct Api;

        /// Registers this resource's handlers.
        pub fn configure(config: &mut actix_web::web::ServiceConfig) {
            $(config.service($handler);)*
        }

        /// What each of this resource's operations can refuse with.
        pub const ERRORS: &[crate::error::DeclaredErrors] = &[$(
            crate::error::DeclaredErrors {
                operation: stringify!($handler),
                keyed: resource!(@keyed $($keyed)?),
                codes: &[$(crate::error::ErrorCode::$code),*],
                refusal: resource!(@refusal $($refusal $(as $media)?)?),
            },
        )*];
    };
}

/// The resources, in the order their routes are registered and documented: `apis`,
/// `configure` and `errors` each take every one's.
macro_rules! resources {
    ($(pub mod $module:ident;)*) => {
        $(pub mod $module;)*

        /// Every resource's part of the OpenAPI document.
        pub fn apis() -> Vec<utoipa::openapi::OpenApi> {
            use utoipa::OpenApi;
            vec![$($module::Api::openapi()),*]
        }

        /// Registers every resource's handlers.
        pub fn configure(config: &mut actix_web::web::ServiceConfig) {
            $($module::configure(config);)*
        }

        /// What every operation can refuse with, by its operation id.
        pub fn errors() -> impl Iterator<Item = &'static crate::error::DeclaredErrors> {
            [$($module::ERRORS),*].into_iter().flatten()
        }
    };
}

// Written as module declarations so that a reader of the source (and the module checks of
// `tests/tests/module_circles`) sees the route modules as the compiler does.
resources! {
    pub mod ops;
    pub mod streams;
    pub mod rulesets;
    pub mod games;
    pub mod turns;
    pub mod odds;
    pub mod league;
    pub mod player_email;
    pub mod indexes;
    pub mod tournaments;
    pub mod webhooks;
    pub mod dice;
    pub mod dice_marti;
    pub mod dice_addresses;
}
