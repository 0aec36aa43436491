//! Limits for public endpoints that compute: a token bucket per client address, and a cap
//! on the computations running at once whoever asks. Anyone may ask for odds, but nobody,
//! nor many addresses together, may keep the service's cores busy.
//!
//! The client is the connection's peer, unless the peer is a trusted reverse proxy: then it
//! is the address the proxies report in `X-Forwarded-For`, read from the right (each proxy
//! appends the address it saw) up to the first one that is not itself a trusted proxy.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use actix_web::HttpRequest;
use ipnet::IpNet;

use crate::networks::{canonical, contains, parse_network};

use crate::error::{ApiError, ErrorCode};

/// Clients remembered at most; beyond it, those with a full bucket are forgotten.
const MAX_CLIENTS: usize = 10_000;

/// A limit of `per_minute` requests a minute per key (a client's address, or a dice
/// table), in bursts of up to `per_minute` (or so many an hour, for what is asked rarely).
#[derive(Debug)]
pub struct RateLimit<K = Option<IpAddr>> {
    per_minute: u32,
    /// The window the limit is counted over, in seconds: a minute, or an hour.
    window: f64,
    buckets: Mutex<HashMap<K, (f64, Instant)>>,
}

impl<K: std::hash::Hash + Eq> RateLimit<K> {
    /// `0`: no limit.
    pub fn per_minute(per_minute: u32) -> RateLimit<K> {
        RateLimit {
            per_minute,
            window: 60.0,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// `per_hour` requests an hour per key, in bursts of up to `per_hour`; `0`: no limit.
    pub fn per_hour(per_hour: u32) -> RateLimit<K> {
        RateLimit {
            window: 3600.0,
            ..RateLimit::per_minute(per_hour)
        }
    }

    /// The requests allowed a window, a minute or an hour (`0`: no limit).
    pub fn limit(&self) -> u32 {
        self.per_minute
    }

    /// Takes one request from `client`'s bucket, or refuses it with 429.
    pub fn admit(&self, client: K) -> Result<(), ApiError> {
        self.admit_from(client, "from one client")
    }

    /// Takes one request from `key`'s bucket, or refuses it with 429 saying the limit is
    /// `whose` (`from one client`, `at one table`).
    pub fn admit_from(&self, client: K, whose: &str) -> Result<(), ApiError> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let now = Instant::now();
        let capacity = f64::from(self.per_minute);
        let Ok(mut buckets) = self.buckets.lock() else {
            return Ok(());
        };
        if buckets.len() >= MAX_CLIENTS && !buckets.contains_key(&client) {
            let per_second = capacity / self.window;
            buckets.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * per_second < capacity
            });
        }
        let (tokens, at) = buckets.entry(client).or_insert((capacity, now));
        let refilled = (*tokens + now.duration_since(*at).as_secs_f64() * capacity / self.window)
            .min(capacity);
        if refilled < 1.0 {
            *tokens = refilled;
            *at = now;
            return Err(ApiError::new(
                ErrorCode::TooManyRequests,
                format!(
                    "at most {} of these {} {whose}",
                    self.per_minute,
                    if self.window > 60.0 {
                        "an hour"
                    } else {
                        "a minute"
                    }
                ),
            ));
        }
        *tokens = refilled - 1.0;
        *at = now;
        Ok(())
    }
}

/// The reverse proxies whose `X-Forwarded-For` is believed.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<IpNet>);

impl TryFrom<&[String]> for TrustedProxies {
    type Error = String;

    /// Addresses (`10.0.0.5`) and networks (`10.0.0.0/24`).
    fn try_from(entries: &[String]) -> Result<Self, String> {
        entries
            .iter()
            .map(|entry| entry.trim())
            .filter(|entry| !entry.is_empty())
            .map(|entry| {
                parse_network(entry).ok_or_else(|| {
                    format!("trusted proxy {entry:?}: not an address or a network like 10.0.0.0/24")
                })
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }
}

impl TrustedProxies {
    fn trusts(&self, address: IpAddr) -> bool {
        self.0.iter().any(|net| contains(net, address))
    }

    /// Who a request comes from (see the module's comment); none for a test request with
    /// no peer.
    pub fn client_of(&self, req: &HttpRequest) -> Option<IpAddr> {
        let peer = canonical(req.peer_addr()?.ip());
        if !self.trusts(peer) {
            return Some(peer);
        }
        let reported: Vec<&str> = req
            .headers()
            .get_all("x-forwarded-for")
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(str::trim)
            .collect();
        let mut client = peer;
        for entry in reported.iter().rev() {
            // What a proxy we do not trust wrote is not believed: the last trusted hop's
            // view stands.
            let Ok(address) = entry.parse::<IpAddr>().map(canonical) else {
                break;
            };
            client = address;
            if !self.trusts(address) {
                break;
            }
        }
        Some(client)
    }
}

/// A cap on computations running at once: beyond it, 503 with `Retry-After`.
#[derive(Debug)]
pub struct ComputeSlots {
    max: usize,
    running: AtomicUsize,
}

/// One computation's place under the cap, given back when dropped.
#[derive(Debug)]
pub struct ComputeSlot(Arc<RateLimits>);

impl Drop for ComputeSlot {
    fn drop(&mut self) {
        self.0.computing.running.fetch_sub(1, Ordering::AcqRel);
    }
}

impl ComputeSlots {
    /// At most `max` at once (at least one).
    pub fn at_most(max: usize) -> ComputeSlots {
        ComputeSlots {
            max: max.max(1),
            running: AtomicUsize::new(0),
        }
    }

    /// As many as the machine has cores: each computation keeps one busy.
    pub fn per_core() -> ComputeSlots {
        Self::at_most(std::thread::available_parallelism().map_or(1, usize::from))
    }

    /// How many are running now.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::Acquire)
    }
}

/// The service's rate limits.
#[derive(Debug)]
pub struct RateLimits {
    /// `POST /v1/odds`, per client.
    pub odds: RateLimit,
    /// Odds computed at once, from every client together.
    pub computing: ComputeSlots,
    /// Whose `X-Forwarded-For` names the client.
    pub proxies: TrustedProxies,
}

impl RateLimits {
    /// Admits a computation for `req`: within its client's rate (else 429) and under the
    /// cap (else 503). The slot is held until the returned guard is dropped.
    pub fn admit_computation(self: &Arc<Self>, req: &HttpRequest) -> Result<ComputeSlot, ApiError> {
        self.odds.admit(self.proxies.client_of(req))?;
        let slots = &self.computing;
        slots
            .running
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < slots.max).then_some(n + 1)
            })
            .map_err(|_| {
                ApiError::new(
                    ErrorCode::Busy,
                    format!(
                        "{} computations are running, as many as this service runs at once",
                        slots.max
                    ),
                )
            })?;
        Ok(ComputeSlot(self.clone()))
    }
}

/// Odds a minute per client by default: a person planning attacks asks far fewer.
pub const DEFAULT_ODDS_PER_MINUTE: u32 = 60;

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            odds: RateLimit::per_minute(DEFAULT_ODDS_PER_MINUTE),
            computing: ComputeSlots::per_core(),
            proxies: TrustedProxies::default(),
        }
    }
}

/// Sets its flag when dropped: when actix drops the request's future (the server shutting
/// down), the computation it started stops. Actix does not drop a handler whose client
/// went away, so such a computation runs out its budget: about a second, whoever asked.
struct CancelOnDrop(Arc<std::sync::atomic::AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Runs `work` for a client: within its rate limit and the cap on computations at once, off
/// the request threads, with a flag that is set if the request is dropped (`work` stops
/// when it sees it). The odds' and the turn previews'.
pub async fn computation<T: Send + 'static>(
    req: &HttpRequest,
    state: &crate::AppState,
    work: impl FnOnce(Arc<std::sync::atomic::AtomicBool>) -> T + Send + 'static,
) -> Result<T, ApiError> {
    let slot = state.rate_limits.admit_computation(req)?;
    let cancelled = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let _guard = CancelOnDrop(cancelled.clone());
    actix_web::web::block(move || {
        let _slot = slot;
        work(cancelled)
    })
    .await
    .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn proxies(list: &[&str]) -> TrustedProxies {
        let list: Vec<String> = list.iter().map(|s| (*s).to_owned()).collect();
        TrustedProxies::try_from(list.as_slice()).expect("valid")
    }

    fn from(peer: &str, forwarded: Option<&str>) -> HttpRequest {
        let mut req = TestRequest::get().peer_addr(peer.parse().expect("a socket address"));
        if let Some(list) = forwarded {
            req = req.insert_header(("X-Forwarded-For", list));
        }
        req.to_http_request()
    }

    #[test]
    fn without_trusted_proxies_the_client_is_the_peer_whatever_it_claims() {
        let none = TrustedProxies::default();
        let req = from("203.0.113.9:4000", Some("198.51.100.1"));
        assert_eq!(none.client_of(&req), Some("203.0.113.9".parse().unwrap()));
    }

    #[test]
    fn behind_a_trusted_proxy_the_client_is_the_last_address_not_a_proxy() {
        let trusted = proxies(&["10.0.0.0/24", "10.9.9.9"]);
        // The client forged a first entry; the proxies appended what they saw.
        let req = from("10.0.0.2:4000", Some("6.6.6.6, 198.51.100.7, 10.9.9.9"));
        assert_eq!(
            trusted.client_of(&req),
            Some("198.51.100.7".parse().unwrap())
        );
        // A peer that is not a trusted proxy is the client, header or not.
        let req = from("198.51.100.8:4000", Some("6.6.6.6"));
        assert_eq!(
            trusted.client_of(&req),
            Some("198.51.100.8".parse().unwrap())
        );
        // A proxy that reports nothing readable: the proxy itself is all that is known.
        let req = from("10.0.0.2:4000", Some("garbage"));
        assert_eq!(trusted.client_of(&req), Some("10.0.0.2".parse().unwrap()));
    }

    #[test]
    fn a_trusted_proxy_entry_that_is_not_an_address_is_refused() {
        let list = vec!["10.0.0.0/33".to_owned()];
        assert!(TrustedProxies::try_from(list.as_slice()).is_err());
    }

    #[test]
    fn the_cap_refuses_a_computation_beyond_it_until_one_ends() {
        let limits = Arc::new(RateLimits {
            odds: RateLimit::per_minute(0),
            computing: ComputeSlots::at_most(1),
            proxies: TrustedProxies::default(),
        });
        let req = from("203.0.113.9:4000", None);
        let first = limits.admit_computation(&req).expect("a free slot");
        let refused = limits.admit_computation(&req).expect_err("no slot left");
        assert_eq!(refused.code, ErrorCode::Busy);
        drop(first);
        assert!(limits.admit_computation(&req).is_ok());
        assert_eq!(limits.computing.running(), 0);
    }
}
