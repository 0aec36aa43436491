//! Per-client rate limits for public endpoints that compute (a token bucket per client
//! address): anyone may ask for odds, but nobody may keep the service's cores busy.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

use actix_web::HttpRequest;

use crate::error::{ApiError, ErrorCode};

/// Clients remembered at most; beyond it, those with a full bucket are forgotten.
const MAX_CLIENTS: usize = 10_000;

/// A limit of `per_minute` requests a minute per client, in bursts of up to `per_minute`.
#[derive(Debug)]
pub struct RateLimit {
    per_minute: u32,
    buckets: Mutex<HashMap<Option<IpAddr>, (f64, Instant)>>,
}

impl RateLimit {
    /// `0`: no limit.
    pub fn per_minute(per_minute: u32) -> RateLimit {
        RateLimit {
            per_minute,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from the client's bucket, or refuses it with 429.
    pub fn admit(&self, req: &HttpRequest) -> Result<(), ApiError> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let client = req.peer_addr().map(|a| a.ip());
        let now = Instant::now();
        let capacity = f64::from(self.per_minute);
        let Ok(mut buckets) = self.buckets.lock() else {
            return Ok(());
        };
        if buckets.len() >= MAX_CLIENTS && !buckets.contains_key(&client) {
            let per_second = capacity / 60.0;
            buckets.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * per_second < capacity
            });
        }
        let (tokens, at) = buckets.entry(client).or_insert((capacity, now));
        let refilled =
            (*tokens + now.duration_since(*at).as_secs_f64() * capacity / 60.0).min(capacity);
        if refilled < 1.0 {
            *tokens = refilled;
            *at = now;
            return Err(ApiError::new(
                ErrorCode::TooManyRequests,
                format!(
                    "at most {} of these a minute from one client",
                    self.per_minute
                ),
            ));
        }
        *tokens = refilled - 1.0;
        *at = now;
        Ok(())
    }
}

/// The service's rate limits.
#[derive(Debug)]
pub struct RateLimits {
    /// `POST /v1/odds`.
    pub odds: RateLimit,
}

/// Odds a minute per client by default: a person planning attacks asks far fewer.
pub const DEFAULT_ODDS_PER_MINUTE: u32 = 60;

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            odds: RateLimit::per_minute(DEFAULT_ODDS_PER_MINUTE),
        }
    }
}
