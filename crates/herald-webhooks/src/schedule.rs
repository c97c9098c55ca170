//! The retry schedule of docs/api.md §9, as pure functions of the attempt just made.

use std::time::Duration;

use crate::delivery::{AttemptErrorKind, AttemptOutcome};

/// Delay before each attempt, attempt 1 first: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
pub const SCHEDULE: [Duration; 8] = [
    Duration::ZERO,
    Duration::from_secs(5),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 3600),
    Duration::from_secs(5 * 3600),
    Duration::from_secs(10 * 3600),
    Duration::from_secs(10 * 3600),
];

/// How many attempts a delivery gets before it is marked failed.
// The table has 8 entries; the cast cannot truncate.
#[allow(clippy::cast_possible_truncation)]
pub const MAX_ATTEMPTS: u32 = SCHEDULE.len() as u32;

/// The largest jitter, as a fraction of the scheduled delay, either way.
pub const MAX_JITTER: f64 = 0.2;

/// The shortest wait after a timeout or a `429`, so a struggling receiver is not hammered.
pub const THROTTLED_MINIMUM: Duration = Duration::from_secs(60);

/// The wait before the next attempt, or `None` when there is none: the attempt succeeded, or it was
/// attempt [`MAX_ATTEMPTS`] and the delivery has failed.
///
/// `attempt_number` is the 1-based number of the attempt `outcome` came from; `jitter` is a random value in
/// `[-0.2, 0.2]` (clamped to it) applied to the scheduled delay. A timeout or `429` waits at least
/// [`THROTTLED_MINIMUM`]; a `Retry-After` is honoured but kept within `[scheduled, 2 × scheduled]` so a
/// receiver can slow Herald down without stalling or flooding it.
#[must_use]
pub fn next_attempt(attempt_number: u32, outcome: &AttemptOutcome, jitter: f64) -> Option<Duration> {
    if outcome.succeeded {
        return None;
    }
    let base = *SCHEDULE.get(usize::try_from(attempt_number).ok()?)?;
    let jitter = if jitter.is_finite() {
        jitter.clamp(-MAX_JITTER, MAX_JITTER)
    } else {
        0.0
    };
    let mut scheduled = base.mul_f64(1.0 + jitter);
    let throttled = outcome.error_kind == Some(AttemptErrorKind::Timeout) || outcome.status == Some(429);
    if throttled {
        scheduled = scheduled.max(THROTTLED_MINIMUM);
    }
    if let Some(asked) = outcome.retry_after {
        scheduled = asked.clamp(scheduled, scheduled.saturating_mul(2));
    }
    Some(scheduled)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(status: Option<u16>, kind: AttemptErrorKind) -> AttemptOutcome {
        AttemptOutcome {
            status,
            body_prefix: String::new(),
            error_kind: Some(kind),
            error_detail: None,
            retry_after: None,
            succeeded: false,
            duration: Duration::from_millis(10),
        }
    }

    fn http_500() -> AttemptOutcome {
        failed(Some(500), AttemptErrorKind::HttpStatus)
    }

    const S: u64 = 1;
    const M: u64 = 60;
    const H: u64 = 3600;

    #[test]
    fn table_without_jitter() {
        let want = [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H];
        for (i, secs) in want.iter().enumerate() {
            let attempt = u32::try_from(i + 1).unwrap();
            assert_eq!(
                next_attempt(attempt, &http_500(), 0.0),
                Some(Duration::from_secs(*secs)),
                "after attempt {attempt}"
            );
        }
        assert_eq!(next_attempt(8, &http_500(), 0.0), None, "attempt 8 is the last");
        assert_eq!(next_attempt(9, &http_500(), 0.0), None);
        assert_eq!(next_attempt(u32::MAX, &http_500(), 0.0), None);
        assert_eq!(
            next_attempt(0, &http_500(), 0.0),
            Some(Duration::ZERO),
            "the first attempt is at once"
        );
        assert_eq!(MAX_ATTEMPTS, 8);
    }

    #[test]
    fn success_stops() {
        let ok = AttemptOutcome {
            status: Some(204),
            error_kind: None,
            succeeded: true,
            ..http_500()
        };
        for attempt in 1..=8 {
            assert_eq!(next_attempt(attempt, &ok, 0.0), None);
        }
    }

    #[test]
    fn jitter_scales_and_is_clamped() {
        assert_eq!(
            next_attempt(3, &http_500(), 0.2),
            Some(Duration::from_secs(36 * M))
        );
        assert_eq!(
            next_attempt(3, &http_500(), -0.2),
            Some(Duration::from_secs(24 * M))
        );
        assert_eq!(
            next_attempt(7, &http_500(), 0.1),
            Some(Duration::from_secs(11 * H))
        );
        assert_eq!(
            next_attempt(3, &http_500(), 5.0),
            Some(Duration::from_secs(36 * M))
        );
        assert_eq!(
            next_attempt(3, &http_500(), -5.0),
            Some(Duration::from_secs(24 * M))
        );
        assert_eq!(
            next_attempt(3, &http_500(), f64::NAN),
            Some(Duration::from_secs(30 * M))
        );
        assert_eq!(next_attempt(1, &http_500(), -0.2), Some(Duration::from_secs(4)));
    }

    #[test]
    fn timeout_and_429_wait_at_least_a_minute() {
        let timeout = failed(None, AttemptErrorKind::Timeout);
        let throttled = failed(Some(429), AttemptErrorKind::HttpStatus);
        for outcome in [&timeout, &throttled] {
            assert_eq!(next_attempt(1, outcome, 0.0), Some(Duration::from_secs(60)));
            assert_eq!(next_attempt(1, outcome, 0.2), Some(Duration::from_secs(60)));
            // Longer scheduled delays are untouched.
            assert_eq!(next_attempt(2, outcome, 0.0), Some(Duration::from_secs(5 * M)));
        }
        // Other failures keep the short first retry.
        assert_eq!(
            next_attempt(1, &failed(None, AttemptErrorKind::Connect), 0.0),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            next_attempt(1, &failed(Some(503), AttemptErrorKind::HttpStatus), 0.0),
            Some(Duration::from_secs(5))
        );
    }

    #[test]
    fn retry_after_is_kept_within_scheduled_and_twice_scheduled() {
        let with = |secs: u64, status: u16| AttemptOutcome {
            retry_after: Some(Duration::from_secs(secs)),
            ..failed(Some(status), AttemptErrorKind::HttpStatus)
        };
        // Inside the window: honoured exactly.
        assert_eq!(
            next_attempt(2, &with(7 * M, 503), 0.0),
            Some(Duration::from_secs(7 * M))
        );
        // Shorter than scheduled: the schedule wins.
        assert_eq!(
            next_attempt(2, &with(1, 503), 0.0),
            Some(Duration::from_secs(5 * M))
        );
        // Longer than twice scheduled: capped.
        assert_eq!(
            next_attempt(2, &with(10 * H, 503), 0.0),
            Some(Duration::from_secs(10 * M))
        );
        // 429 after attempt 1: the 60 s floor is the scheduled delay, so the window is [60 s, 120 s].
        assert_eq!(
            next_attempt(1, &with(90, 429), 0.0),
            Some(Duration::from_secs(90))
        );
        assert_eq!(
            next_attempt(1, &with(3600, 429), 0.0),
            Some(Duration::from_secs(120))
        );
        assert_eq!(next_attempt(1, &with(0, 429), 0.0), Some(Duration::from_secs(60)));
        // The window follows the jittered delay.
        assert_eq!(
            next_attempt(3, &with(10 * H, 503), 0.2),
            Some(Duration::from_secs(72 * M))
        );
        // Never past the last attempt.
        assert_eq!(next_attempt(8, &with(60, 503), 0.0), None);
    }
}
