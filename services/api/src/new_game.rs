//! A new game, as the one write path takes it: a fresh seed from the OS, the seats drawn
//! from it, `GameCreated` appended to a stream that must not exist yet.

use actix_web::http::StatusCode;
use warlog_events::game::{Entrants, GameLog, GameStreamEvent};
use warlog_rules::document::GameOptions;
use warlog_rules::ruleset::Ruleset;
use warlog_store::PooledClient;

use crate::error::{corrupt, ApiError, ErrorCode};
use crate::games::game_stream;
use crate::views::GameView;
use crate::write::{fresh_seed, new_id, Decision, StreamAppend, Write, WriteRequest};
use crate::AppState;

/// A game to create under a ruleset with the options asked for (a bid's survival round is
/// the entrants' to set), with its players (and bids), filed under a tournament or not.
#[derive(Debug)]
pub struct NewGame {
    pub ruleset: String,
    pub options: GameOptions,
    pub entrants: Entrants,
    pub tournament: Option<String>,
}

impl Write for NewGame {
    /// The rules the game is played by.
    type Loaded = &'static Ruleset;
    /// The new game, as the answer shows it.
    type Decided = GameView;

    /// Only a role that may create games reads anything; then the ruleset with the options
    /// asked for; and a game counts in a tournament's results
    /// only if its director (or an admin) filed it there.
    async fn load(
        &self,
        _: &AppState,
        client: &PooledClient,
        request: &WriteRequest,
        _: bool,
    ) -> Result<&'static Ruleset, ApiError> {
        warlog_events::orders::may_create_games(&request.caller.sender())?;
        if let Some(id) = &self.tournament {
            let tournament = crate::tournaments::load_tournament(client, id).await?;
            crate::tournaments::require_director(&request.caller, &tournament)?;
        }
        crate::rulesets::find(client, &self.ruleset)
            .await?
            .playable(&self.entrants.options(self.options))
    }

    fn decide(
        &self,
        ruleset: &'static Ruleset,
        request: &WriteRequest,
    ) -> Result<Decision<GameView>, ApiError> {
        let seed = fresh_seed()?;
        let game_id = new_id();
        let created = GameLog::create(
            ruleset,
            &game_id,
            self.entrants.clone(),
            request.caller.name.clone(),
            self.tournament.clone(),
            request.moment(),
            &seed,
        )
        .map_err(|v| ApiError::rule_violation("players", &v))?;
        warlog_events::orders::may_create(&created, &request.caller.sender())?;
        let view = GameView::of(&GameLog::new(created.clone()).map_err(corrupt)?);
        let append = StreamAppend::new_with_seed(
            game_stream(&game_id)?,
            request.encode_with(
                &[GameStreamEvent::Created(created)],
                GameStreamEvent::encode,
            )?,
            seed,
        );
        Ok(Decision {
            appends: vec![append],
            status: StatusCode::CREATED,
            decided: view,
        })
    }

    fn moved_on(&self, _: u64) -> ApiError {
        ApiError::new(ErrorCode::Internal, "a new game id was taken")
    }
}
