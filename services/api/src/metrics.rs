//! HTTP metrics, labelled by route template (`/v1/streams/{stream}/head`, never the raw
//! path, so a crawler cannot blow up the label set).

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web;
use prometheus::{HistogramOpts, HistogramVec, IntCounterVec, IntGaugeVec, Opts, Registry};

/// The process's own metrics (CPU seconds, resident memory, open files, start time: the
/// `process_*` family every Prometheus dashboard knows, read from `/proc` on Linux) and
/// `warlog_build_info`, always 1, whose labels say which build answers.
pub fn register_process_and_build(registry: &Registry) -> prometheus::Result<()> {
    #[cfg(target_os = "linux")]
    registry.register(Box::new(
        prometheus::process_collector::ProcessCollector::for_self(),
    ))?;
    let build = IntGaugeVec::new(
        Opts::new(
            "warlog_build_info",
            "The build answering: its version and profile (always 1).",
        ),
        &["version", "profile"],
    )?;
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    build
        .with_label_values(&[env!("CARGO_PKG_VERSION"), profile])
        .set(1);
    registry.register(Box::new(build))?;
    Ok(())
}

#[derive(Debug, Clone)]
pub struct HttpMetrics {
    requests: IntCounterVec,
    duration: HistogramVec,
}

impl HttpMetrics {
    pub fn new(registry: &Registry) -> prometheus::Result<Self> {
        let labels = ["method", "route", "status"];
        let requests = IntCounterVec::new(
            Opts::new("warlog_http_requests_total", "HTTP requests answered."),
            &labels,
        )?;
        let duration = HistogramVec::new(
            HistogramOpts::new(
                "warlog_http_request_duration_seconds",
                "Time to answer an HTTP request.",
            )
            .buckets(vec![
                0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
            ]),
            &labels,
        )?;
        registry.register(Box::new(requests.clone()))?;
        registry.register(Box::new(duration.clone()))?;
        Ok(HttpMetrics { requests, duration })
    }

    fn observe(&self, method: &str, route: &str, status: u16, seconds: f64) {
        let status = status.to_string();
        let labels = [method, route, status.as_str()];
        self.requests.with_label_values(&labels).inc();
        self.duration.with_label_values(&labels).observe(seconds);
    }
}

/// Middleware: counts and times every request, and logs it.
pub async fn track(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody + 'static>, actix_web::Error> {
    let started = Instant::now();
    let metrics = req.app_data::<web::Data<HttpMetrics>>().cloned();
    let method = req.method().to_string();
    let result = next.call(req).await;
    let elapsed = started.elapsed();
    let (status, route) = match &result {
        Ok(res) => (
            res.status().as_u16(),
            res.request()
                .match_pattern()
                .unwrap_or_else(|| "unmatched".to_owned()),
        ),
        Err(e) => (
            e.as_response_error().status_code().as_u16(),
            "unmatched".to_owned(),
        ),
    };
    if let Some(metrics) = metrics {
        metrics.observe(&method, &route, status, elapsed.as_secs_f64());
    }
    tracing::info!(
        method,
        route,
        status,
        // To the microsecond: `1.502`, not `1.5015390000000002`.
        elapsed_ms = (elapsed.as_secs_f64() * 1e6).round() / 1e3,
        "request"
    );
    result
}
