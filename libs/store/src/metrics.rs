//! What the store counts, registered in the caller's Prometheus registry.

use prometheus::{IntCounter, IntCounterVec, IntGaugeVec, Opts, Registry};

/// The outcomes `warlog_appends_total` counts.
pub const APPEND_OUTCOMES: [&str; 4] = ["appended", "conflict", "rejected", "error"];

#[derive(Debug, Clone)]
pub struct StoreMetrics {
    pub events_appended: IntCounter,
    pub appends: IntCounterVec,
    pub projector_lag: IntGaugeVec,
}

impl StoreMetrics {
    pub fn new(registry: &Registry) -> prometheus::Result<Self> {
        let events_appended = IntCounter::new(
            "warlog_events_appended_total",
            "Events appended to the event store (idempotent replays not counted).",
        )?;
        let appends = IntCounterVec::new(
            Opts::new(
                "warlog_appends_total",
                "Append requests by outcome: appended, conflict, rejected, error.",
            ),
            &["outcome"],
        )?;
        let projector_lag = IntGaugeVec::new(
            Opts::new(
                "warlog_projector_lag_events",
                "Events in the global log a projector has not applied yet.",
            ),
            &["projector"],
        )?;
        // Every outcome shows from the start, at 0: a rate over a series that appears only
        // with its first event reads as no data, not as none.
        for outcome in APPEND_OUTCOMES {
            appends.with_label_values(&[outcome]);
        }
        registry.register(Box::new(events_appended.clone()))?;
        registry.register(Box::new(appends.clone()))?;
        registry.register(Box::new(projector_lag.clone()))?;
        Ok(StoreMetrics {
            events_appended,
            appends,
            projector_lag,
        })
    }

    /// Metrics registered nowhere, for tools and tests that do not export them.
    pub fn unregistered() -> Self {
        // Registering in a fresh registry cannot collide.
        Self::new(&Registry::new()).expect("a fresh registry has no name collisions")
    }
}
