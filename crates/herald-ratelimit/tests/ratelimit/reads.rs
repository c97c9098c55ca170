//! The per-key limiter (reads, and writes that are not sends).

use herald_domain::ports::RateDecision;
use herald_ratelimit::KeyLimiter;
use std::time::Duration;

#[test]
fn a_burst_of_100_then_limits() {
    let reads = KeyLimiter::new(50, 100);
    for n in 1..=100u32 {
        assert!(
            matches!(reads.check("key_a"), RateDecision::Allowed { limit: 100, remaining, .. } if remaining == 100 - n),
            "read {n}"
        );
    }
    assert_eq!(
        reads.check("key_a"),
        RateDecision::Limited {
            limit: 100,
            retry_after_seconds: 1
        }
    );
}

#[test]
fn keys_are_independent() {
    let reads = KeyLimiter::new(1, 2);
    reads.check("key_a");
    reads.check("key_a");
    assert!(matches!(reads.check("key_a"), RateDecision::Limited { .. }));
    assert!(matches!(
        reads.check("key_b"),
        RateDecision::Allowed { remaining: 1, .. }
    ));
}

#[test]
fn reads_refill_at_the_rate() {
    // 50/s: one read back every 20 ms.
    let reads = KeyLimiter::new(50, 2);
    reads.check("key_a");
    reads.check("key_a");
    assert!(matches!(reads.check("key_a"), RateDecision::Limited { .. }));
    std::thread::sleep(Duration::from_millis(25));
    assert!(matches!(reads.check("key_a"), RateDecision::Allowed { .. }));
}
