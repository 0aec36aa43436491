//! The service's metrics registry and what is registered in it.

use prometheus::Registry;
use warlog_store::StoreMetrics;

use crate::metrics::{self, HttpMetrics};
use crate::webhooks;

/// Everything the service's metrics are registered in, built together so that they share
/// one registry.
#[derive(Debug, Clone)]
pub struct Telemetry {
    pub registry: Registry,
    pub store: StoreMetrics,
    pub http: HttpMetrics,
    pub webhooks: webhooks::WebhookMetrics,
    pub mail: crate::mail_in::MailMetrics,
}

impl Telemetry {
    pub fn new() -> prometheus::Result<Self> {
        let registry = Registry::new();
        metrics::register_process_and_build(&registry)?;
        let store = StoreMetrics::new(&registry)?;
        let http = HttpMetrics::new(&registry)?;
        let webhooks = webhooks::WebhookMetrics::new(&registry)?;
        let mail = crate::mail_in::MailMetrics::new(&registry)?;
        Ok(Telemetry {
            registry,
            store,
            http,
            webhooks,
            mail,
        })
    }
}
