//! A player registered through the one write path: `PlayerRegistered` appended to a
//! stream of the handle's own, which must not exist yet (a handle is its player's for good).

use actix_web::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;
use warlog_events::{StreamCategory, StreamId};
use warlog_league::players::{may_register, DisplayName, Handle, PlayerEvent};
use warlog_store::{ExpectedVersion, PooledClient};

use crate::error::{ApiError, ErrorCode};
use crate::write::{Decision, SeedDuty, StreamAppend, Write, WriteRequest};
use crate::AppState;

/// A registered player.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerRegistered {
    pub handle: String,
    pub display_name: String,
}

/// A handle to register, with its display name (the handle's own when none is given).
#[derive(Debug)]
pub struct NewPlayer {
    pub handle: Handle,
    pub display_name: Option<DisplayName>,
}

impl Write for NewPlayer {
    type Loaded = ();
    type Decided = PlayerRegistered;

    async fn load(
        &self,
        _: &AppState,
        _: &PooledClient,
        _: &WriteRequest,
        _: bool,
    ) -> Result<(), ApiError> {
        Ok(())
    }

    fn decide(
        &self,
        (): (),
        request: &WriteRequest,
    ) -> Result<Decision<PlayerRegistered>, ApiError> {
        may_register(&request.caller.sender(), &self.handle)?;
        let stream = StreamId::of(StreamCategory::Player, self.handle.as_str())
            .map_err(|e| ApiError::malformed(format!("handle: {e}")))?;
        let display_name = self
            .display_name
            .clone()
            .unwrap_or_else(|| DisplayName::from(&self.handle));
        let registered = PlayerRegistered {
            handle: self.handle.to_string(),
            display_name: display_name.as_str().to_owned(),
        };
        let event = PlayerEvent::PlayerRegistered {
            handle: self.handle.clone(),
            display_name,
            at: request.moment(),
        };
        let append = StreamAppend {
            stream,
            expected: ExpectedVersion::NoStream,
            events: request.encode_with(&[event], PlayerEvent::encode)?,
            seed: SeedDuty::None,
            mails: Vec::new(),
            private: Vec::new(),
        };
        Ok(Decision {
            appends: vec![append],
            status: StatusCode::CREATED,
            decided: registered,
        })
    }

    fn moved_on(&self, _: u64) -> ApiError {
        ApiError::new(
            ErrorCode::PlayerExists,
            format!("the handle {} is already registered", self.handle),
        )
    }
}
