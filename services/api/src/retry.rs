//! How long an outbox (webhook deliveries, mails) waits before trying again.

use std::time::Duration;

/// `base` doubled once per attempt made, at most `max`.
pub fn backoff(base: Duration, max: Duration, attempts: i32) -> Duration {
    let doublings = u32::try_from(attempts.clamp(0, 30)).unwrap_or(0);
    base.saturating_mul(2u32.saturating_pow(doublings)).min(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_doubles_with_each_attempt_up_to_the_most() {
        let (base, max) = (Duration::from_secs(1), Duration::from_secs(60));
        let waits: Vec<u64> = (0..8).map(|a| backoff(base, max, a).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60]);
        assert_eq!(backoff(base, max, -3), base);
        assert_eq!(backoff(base, max, i32::MAX), max);
    }
}
