//! What every handler can reach: the store, the caches, the policies, and where reads go.

use prometheus::Registry;
use warlog_store::{EventStore, Pool};

use crate::error::ApiError;
use crate::{
    audit_cache, dice_tables, games, ladder_cache, page_cache, public_url, rate_limit, token_cache,
    webhooks, Clock, Telemetry,
};
use actix_web::HttpRequest;

/// What every handler can reach.
#[derive(Debug, Clone)]
pub struct AppState {
    pub store: EventStore,
    pub registry: Registry,
    /// Folded games, so a command reads only the events since the last one.
    pub games: std::sync::Arc<games::GameCache>,
    /// What time it is: the system's, or a test's.
    pub clock: Clock,
    /// Origins whose pages may read the public resources (`*` for any).
    pub cors_origins: std::sync::Arc<Vec<String>>,
    /// Rendered leaderboard pages and recently read ladder heads.
    pub ladders: std::sync::Arc<ladder_cache::LadderCache>,
    /// Games' audits by version.
    pub audits: std::sync::Arc<audit_cache::AuditCache>,
    /// Games' rendered pages and boards by version.
    pub pages: std::sync::Arc<page_cache::PageCache>,
    /// Where the service is reached from outside, for links in documents that leave the
    /// site (calendars, CSV, `Location`); none: such documents carry no link.
    pub public_url: Option<public_url::PublicUrl>,
    /// Per-client limits on public endpoints that compute.
    pub rate_limits: std::sync::Arc<rate_limit::RateLimits>,
    /// A streaming standby for board views (`--read-database-url`); writes and the reads
    /// that must see them use the primary.
    pub reads: Option<warlog_store::Pool>,
    /// Who the bearer tokens seen lately belong to (each request still checks its token).
    pub tokens: std::sync::Arc<token_cache::TokenCache>,
    /// Where webhooks may be sent, the key their secrets are sealed with, the cap.
    pub webhooks: std::sync::Arc<webhooks::WebhookPolicy>,
    /// The dice tables' keys, settings and limits.
    pub dice: std::sync::Arc<dice_tables::DiceTables>,
    /// Turns by mail: reports to the table, and how players' mails are decided.
    pub mail_desk: std::sync::Arc<crate::mail_desk::MailDesk>,
}

/// The header a write's answer carries and a later read may send back: the primary's WAL
/// position after the write committed.
pub const CONSISTENCY_TOKEN: &str = "Consistency-Token";

/// How long a read waits for the standby to replay a token before it goes to the primary.
const REPLICA_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

impl AppState {
    /// A connection for a read that may be served by the standby: the standby's, when
    /// there is one and it has replayed the request's consistency token (waiting a little
    /// for it); else the primary's.
    pub async fn reader(&self, req: &HttpRequest) -> Result<warlog_store::PooledClient, ApiError> {
        let token = req
            .headers()
            .get(CONSISTENCY_TOKEN)
            .map(|v| {
                v.to_str()
                    .ok()
                    .filter(|t| warlog_store::replica::is_lsn(t))
                    .map(str::to_owned)
                    .ok_or_else(|| {
                        ApiError::malformed(format!(
                            "{CONSISTENCY_TOKEN}: a token from a write's answer, like 0/16B3748"
                        ))
                    })
            })
            .transpose()?;
        let primary = || async {
            Ok::<_, ApiError>(
                self.store
                    .pool()
                    .get()
                    .await
                    .map_err(warlog_store::StoreError::from)?,
            )
        };
        let Some(reads) = &self.reads else {
            return primary().await;
        };
        let Ok(standby) = reads.get().await else {
            return primary().await;
        };
        let Some(token) = token else {
            return Ok(standby);
        };
        let started = std::time::Instant::now();
        loop {
            match warlog_store::replica::has_replayed(&standby, &token).await {
                Ok(true) => return Ok(standby),
                Ok(false) if started.elapsed() < REPLICA_WAIT => {
                    actix_web::rt::time::sleep(std::time::Duration::from_millis(20)).await;
                }
                _ => return primary().await,
            }
        }
    }

    pub fn new(store: EventStore, telemetry: &Telemetry) -> Self {
        AppState {
            store,
            registry: telemetry.registry.clone(),
            games: Default::default(),
            clock: Clock::system(),
            cors_origins: Default::default(),
            ladders: Default::default(),
            audits: Default::default(),
            pages: Default::default(),
            public_url: None,
            rate_limits: Default::default(),
            reads: None,
            tokens: Default::default(),
            webhooks: Default::default(),
            dice: Default::default(),
            mail_desk: Default::default(),
        }
    }

    /// A state whose appends wake no one (projectors poll): for tests and tools.
    pub fn without_notifier(pool: Pool, telemetry: &Telemetry) -> Self {
        Self::new(EventStore::new(pool, telemetry.store.clone()), telemetry)
    }
}
