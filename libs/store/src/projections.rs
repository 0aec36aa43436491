//! Every projection the service keeps, in one list: `warlog serve` runs a projector for
//! each and `warlog rebuild <name>` rebuilds one by its name, so a projection registered
//! here is both kept and rebuildable, and registered nowhere else.

use deadpool_postgres::Transaction;
use warlog_events::RecordedEvent;

use crate::catalog::StreamCatalog;
use crate::games::GameSummaries;
use crate::league::League;
use crate::projector::Projection;
use crate::tournaments::TournamentSummaries;
use crate::webhooks::WebhookOutbox;
use crate::StoreError;

/// A projection by its name: the one its checkpoint is stored under, and `warlog rebuild`
/// takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectionName {
    StreamCatalog,
    GameSummaries,
    TournamentSummaries,
    League,
    Webhooks,
}

/// What the projections that take settings are built from.
#[derive(Debug, Clone)]
pub struct ProjectionSettings<Outbox> {
    /// The league's skill model.
    pub league: League,
    /// The outbox, made only when it is built: making it reads the mail options, which a
    /// rebuild of another projection has no reason to check (nor to warn about).
    pub outbox: Outbox,
}

impl ProjectionName {
    /// Every projection, in the order `warlog serve` starts their projectors and
    /// `warlog rebuild` lists their names.
    pub const ALL: [ProjectionName; 5] = [
        ProjectionName::StreamCatalog,
        ProjectionName::GameSummaries,
        ProjectionName::TournamentSummaries,
        ProjectionName::League,
        ProjectionName::Webhooks,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ProjectionName::StreamCatalog => "stream_catalog",
            ProjectionName::GameSummaries => "game_summaries",
            ProjectionName::TournamentSummaries => "tournament_summaries",
            ProjectionName::League => "league",
            ProjectionName::Webhooks => "webhooks",
        }
    }

    /// The projection named `name`, if there is one.
    pub fn named(name: &str) -> Option<ProjectionName> {
        Self::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// Every name, in [`ProjectionName::ALL`]'s order, for a message that lists them.
    pub fn names() -> Vec<&'static str> {
        Self::ALL.into_iter().map(ProjectionName::as_str).collect()
    }

    /// The projection itself, built from `settings`.
    pub fn build<E>(
        self,
        settings: &ProjectionSettings<impl Fn() -> Result<WebhookOutbox, E>>,
    ) -> Result<AnyProjection, E> {
        Ok(match self {
            ProjectionName::StreamCatalog => AnyProjection::StreamCatalog(StreamCatalog),
            ProjectionName::GameSummaries => AnyProjection::GameSummaries(GameSummaries),
            ProjectionName::TournamentSummaries => {
                AnyProjection::TournamentSummaries(TournamentSummaries)
            }
            ProjectionName::League => AnyProjection::League(settings.league),
            ProjectionName::Webhooks => AnyProjection::Webhooks((settings.outbox)()?),
        })
    }
}

/// Any of the projections, so that one projector type runs each of them: the trait's
/// methods return futures of their own types, which rules out a `dyn Projection`.
#[derive(Debug, Clone)]
pub enum AnyProjection {
    StreamCatalog(StreamCatalog),
    GameSummaries(GameSummaries),
    TournamentSummaries(TournamentSummaries),
    League(League),
    Webhooks(WebhookOutbox),
}

impl Projection for AnyProjection {
    fn name(&self) -> &'static str {
        match self {
            AnyProjection::StreamCatalog(p) => p.name(),
            AnyProjection::GameSummaries(p) => p.name(),
            AnyProjection::TournamentSummaries(p) => p.name(),
            AnyProjection::League(p) => p.name(),
            AnyProjection::Webhooks(p) => p.name(),
        }
    }

    async fn reset(&self, tx: &Transaction<'_>) -> Result<(), StoreError> {
        match self {
            AnyProjection::StreamCatalog(p) => p.reset(tx).await,
            AnyProjection::GameSummaries(p) => p.reset(tx).await,
            AnyProjection::TournamentSummaries(p) => p.reset(tx).await,
            AnyProjection::League(p) => p.reset(tx).await,
            AnyProjection::Webhooks(p) => p.reset(tx).await,
        }
    }

    async fn apply(&self, tx: &Transaction<'_>, event: &RecordedEvent) -> Result<(), StoreError> {
        match self {
            AnyProjection::StreamCatalog(p) => p.apply(tx, event).await,
            AnyProjection::GameSummaries(p) => p.apply(tx, event).await,
            AnyProjection::TournamentSummaries(p) => p.apply(tx, event).await,
            AnyProjection::League(p) => p.apply(tx, event).await,
            AnyProjection::Webhooks(p) => p.apply(tx, event).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_is_the_one_its_projection_keeps_its_checkpoint_under() {
        let settings = ProjectionSettings {
            league: League::default(),
            outbox: || Ok::<_, ()>(WebhookOutbox::default()),
        };
        for name in ProjectionName::ALL {
            let built = name.build(&settings).expect("built");
            assert_eq!(built.name(), name.as_str());
            assert_eq!(ProjectionName::named(name.as_str()), Some(name));
        }
        assert_eq!(ProjectionName::named("ladders"), None);
    }

    #[test]
    fn a_rebuild_of_another_projection_does_not_make_the_outbox() {
        let settings = ProjectionSettings {
            league: League::default(),
            outbox: || Err("the mail options were read"),
        };
        assert!(ProjectionName::League.build(&settings).is_ok());
        assert!(ProjectionName::Webhooks.build(&settings).is_err());
    }
}
