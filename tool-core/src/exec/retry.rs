//! Exponential backoff with full jitter, for retries of transient failures.

use std::time::Duration;

/// How long to wait before each retry: a random delay up to `base * 2^(attempt-1)`, at most
/// `max` ("full jitter": retries of many clients spread out instead of arriving together).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Backoff {
    /// The first retry waits up to this long.
    pub base: Duration,
    /// No retry waits longer.
    pub max: Duration,
}

/// Builders: set one field each, the others kept (the struct is `#[non_exhaustive]`, so a
/// literal cannot be written outside this crate).
impl Backoff {
    /// Sets `base`: the first retry waits up to this long.
    #[must_use]
    pub const fn base(mut self, base: Duration) -> Self {
        self.base = base;
        self
    }

    /// Sets `max`: no retry waits longer.
    #[must_use]
    pub const fn max(mut self, max: Duration) -> Self {
        self.max = max;
        self
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Self {
            base: Duration::from_millis(100),
            max: Duration::from_secs(5),
        }
    }
}

impl Backoff {
    /// The delay before retry number `attempt` (1 for the first retry).
    pub fn delay(&self, attempt: u32) -> Duration {
        let ceiling = self
            .base
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(20))
            .min(self.max);
        let fraction = f64::from(fastrand::u32(..)) / f64::from(u32::MAX);
        ceiling.mul_f64(fraction)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_and_stay_under_the_cap() {
        let b = Backoff {
            base: Duration::from_millis(10),
            max: Duration::from_millis(50),
        };
        for attempt in 1..40 {
            let d = b.delay(attempt);
            let ceiling = Duration::from_millis(10 * (1 << (attempt - 1).min(20))).min(b.max);
            assert!(d <= ceiling, "{attempt}: {d:?} > {ceiling:?}");
        }
        let spread: std::collections::BTreeSet<_> = (0..50).map(|_| b.delay(3)).collect();
        assert!(spread.len() > 10, "jitter spreads the delays");
    }
}
