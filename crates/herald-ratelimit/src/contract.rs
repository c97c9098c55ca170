//! The scripted suite every [`RateLimiter`] adapter must pass, run against its real backend.
//!
//! Each scenario uses fresh organization ids, so scenarios may run in parallel on one limiter (one Redis).
//! They panic on the first broken rule. Timings are chosen so a scenario takes at most about 2 s and
//! stays correct on a loaded machine: the slow rates (1/s) are used where a check must not refill
//! between calls, the fast ones where waiting is involved.

use herald_domain::ids::OrganizationId;
use herald_domain::organization::{Plan, PlanName};
use herald_domain::ports::{RateDecision, RateLimiter};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A plan with only the numbers a rate limiter reads set meaningfully.
pub fn plan(name: &str, rate_per_second: u32, burst: u32) -> Plan {
    Plan {
        name: PlanName::parse(name).expect("a valid plan name"),
        rate_per_second,
        burst,
        monthly_quota: None,
        text_allowed: true,
        template_allowed: true,
        media_allowed: true,
        max_file_bytes: 1_000_000,
        media_storage_bytes: None,
        webhook_endpoints: 1,
    }
}

/// A seeded plan by name (`trial`, `starter`, …).
pub fn seeded_plan(name: &str) -> Plan {
    Plan::defaults()
        .into_iter()
        .find(|p| p.name.as_str() == name)
        .expect("a seeded plan")
}

/// An organization id no other scenario uses.
pub fn new_organization() -> OrganizationId {
    OrganizationId::from_ulid(ulid::Ulid::new())
}

async fn check(limiter: &dyn RateLimiter, org: &OrganizationId, plan: &Plan, cost: u32) -> RateDecision {
    limiter
        .check(org, plan, cost)
        .await
        .unwrap_or_else(|e| panic!("check failed: {e}"))
}

async fn peek(limiter: &dyn RateLimiter, org: &OrganizationId, plan: &Plan) -> RateDecision {
    limiter
        .peek(org, plan, 1)
        .await
        .unwrap_or_else(|e| panic!("peek failed: {e}"))
}

/// Every scenario, concurrently, on one limiter.
pub async fn run_all(limiter: Arc<dyn RateLimiter>) {
    let l = limiter.as_ref();
    tokio::join!(
        burst_passes_then_the_next_is_limited(l),
        waiting_retry_after_lets_the_next_pass(l),
        remaining_counts_down_by_one_per_send(l),
        organizations_are_independent(l),
        a_plan_change_applies_on_the_next_call(l),
        cost_above_one_takes_that_many(l),
        a_peek_answers_as_a_check_and_takes_nothing(l),
        concurrent_checks_stay_within_rate_and_burst(limiter.clone()),
    );
}

/// A peek answers what a check would, and takes nothing: a dry run leaves the allowance to the real send.
pub async fn a_peek_answers_as_a_check_and_takes_nothing(limiter: &dyn RateLimiter) {
    let org = new_organization();
    let trial = plan("trial", 1, 3);
    for _ in 0..10 {
        assert!(
            matches!(
                peek(limiter, &org, &trial).await,
                RateDecision::Allowed { limit: 3, .. }
            ),
            "peeks on a full bucket pass, however many"
        );
    }
    for n in 1..=3u32 {
        assert!(
            matches!(
                check(limiter, &org, &trial, 1).await,
                RateDecision::Allowed { .. }
            ),
            "send {n}: the peeks spent nothing"
        );
    }
    assert_eq!(
        peek(limiter, &org, &trial).await,
        RateDecision::Limited {
            limit: 3,
            retry_after_seconds: 1
        },
        "a peek on an empty bucket is limited as a check is"
    );
    assert!(matches!(
        check(limiter, &org, &trial, 1).await,
        RateDecision::Limited { .. }
    ));
}

/// A full bucket lets exactly `burst` sends through at once; the next is limited for 1 s.
pub async fn burst_passes_then_the_next_is_limited(limiter: &dyn RateLimiter) {
    let org = new_organization();
    let trial = plan("trial", 1, 5);
    for n in 1..=5u32 {
        let decision = check(limiter, &org, &trial, 1).await;
        assert!(
            matches!(decision, RateDecision::Allowed { limit: 5, .. }),
            "send {n} of a burst of 5: {decision:?}"
        );
    }
    assert_eq!(
        check(limiter, &org, &trial, 1).await,
        RateDecision::Limited {
            limit: 5,
            retry_after_seconds: 1
        },
        "the send after the burst waits for one interval (1 s at 1/s), rounded up"
    );
}

/// After waiting `retry_after_seconds`, the next send passes.
pub async fn waiting_retry_after_lets_the_next_pass(limiter: &dyn RateLimiter) {
    let org = new_organization();
    let fast = plan("fast", 2, 2);
    for _ in 0..2 {
        assert!(matches!(
            check(limiter, &org, &fast, 1).await,
            RateDecision::Allowed { .. }
        ));
    }
    let RateDecision::Limited {
        retry_after_seconds, ..
    } = check(limiter, &org, &fast, 1).await
    else {
        panic!("the third send at burst 2 must be limited");
    };
    assert!(retry_after_seconds >= 1);
    tokio::time::sleep(Duration::from_secs(retry_after_seconds)).await;
    let decision = check(limiter, &org, &fast, 1).await;
    assert!(
        matches!(decision, RateDecision::Allowed { limit: 2, .. }),
        "after waiting {retry_after_seconds} s: {decision:?}"
    );
}

/// `remaining` counts down by one per send and `reset_seconds` up; an untouched bucket is full with
/// reset 0 (cost 0 only looks).
pub async fn remaining_counts_down_by_one_per_send(limiter: &dyn RateLimiter) {
    let org = new_organization();
    let slow = plan("slow", 1, 10);
    assert_eq!(
        check(limiter, &org, &slow, 0).await,
        RateDecision::Allowed {
            limit: 10,
            remaining: 10,
            reset_seconds: 0
        }
    );
    for sent in 1..=10u32 {
        assert_eq!(
            check(limiter, &org, &slow, 1).await,
            RateDecision::Allowed {
                limit: 10,
                remaining: 10 - sent,
                reset_seconds: u64::from(sent)
            },
            "after {sent} sends at 1/s"
        );
    }
}

/// One organization's exhausted bucket does not touch another's.
pub async fn organizations_are_independent(limiter: &dyn RateLimiter) {
    let (a, b) = (new_organization(), new_organization());
    let small = plan("small", 1, 3);
    for _ in 0..3 {
        check(limiter, &a, &small, 1).await;
    }
    assert!(matches!(
        check(limiter, &a, &small, 1).await,
        RateDecision::Limited { .. }
    ));
    assert_eq!(
        check(limiter, &b, &small, 1).await,
        RateDecision::Allowed {
            limit: 3,
            remaining: 2,
            reset_seconds: 1
        }
    );
    assert!(matches!(
        check(limiter, &a, &small, 1).await,
        RateDecision::Limited { .. }
    ));
}

/// Moving an organization from `trial` (1/s, burst 5) to `starter` (20/s, burst 40) lets more through at
/// once on the very next call, the sends already used still counted; moving back does not panic and
/// limits to the smaller bucket.
pub async fn a_plan_change_applies_on_the_next_call(limiter: &dyn RateLimiter) {
    let org = new_organization();
    let (trial, starter) = (seeded_plan("trial"), seeded_plan("starter"));
    for _ in 0..5 {
        assert!(matches!(
            check(limiter, &org, &trial, 1).await,
            RateDecision::Allowed { .. }
        ));
    }
    assert!(matches!(
        check(limiter, &org, &trial, 1).await,
        RateDecision::Limited { .. }
    ));

    let first = check(limiter, &org, &starter, 1).await;
    let RateDecision::Allowed {
        limit: 40, remaining, ..
    } = first
    else {
        panic!("the first send on starter after an exhausted trial: {first:?}");
    };
    // The 5 trial sends are carried over (not a fresh 40), and a refill may have added a little.
    assert!((34..=36).contains(&remaining), "remaining {remaining}");
    let mut more = 0;
    while let RateDecision::Allowed { .. } = check(limiter, &org, &starter, 1).await {
        more += 1;
        assert!(more <= 60, "starter never limits");
    }
    assert!(more >= 34, "only {more} more sends passed on starter");

    let back = check(limiter, &org, &trial, 1).await;
    assert!(
        matches!(
            back,
            RateDecision::Limited {
                limit: 5,
                retry_after_seconds: 1..
            }
        ),
        "back on trial with a full starter debt: {back:?}"
    );
}

/// A check may take several sends at once; one larger than the burst never passes.
pub async fn cost_above_one_takes_that_many(limiter: &dyn RateLimiter) {
    let org = new_organization();
    let slow = plan("slow", 1, 10);
    assert!(matches!(
        check(limiter, &org, &slow, 4).await,
        RateDecision::Allowed { remaining: 6, .. }
    ));
    assert!(matches!(
        check(limiter, &org, &slow, 4).await,
        RateDecision::Allowed { remaining: 2, .. }
    ));
    assert_eq!(
        check(limiter, &org, &slow, 4).await,
        RateDecision::Limited {
            limit: 10,
            retry_after_seconds: 2
        },
        "4 sends with 2 left wait for 2 more at 1/s"
    );
    assert!(matches!(
        check(limiter, &org, &slow, 2).await,
        RateDecision::Allowed { remaining: 0, .. }
    ));

    let other = new_organization();
    assert!(matches!(
        check(limiter, &other, &slow, 11).await,
        RateDecision::Limited {
            retry_after_seconds: 1..,
            ..
        }
    ));
    assert!(matches!(
        check(limiter, &other, &slow, 1).await,
        RateDecision::Allowed { remaining: 9, .. }
    ));
}

/// 8 tasks checking one organization (20/s, burst 10) for 2 s: the sends let through never exceed
/// `rate × elapsed + burst` (+1 for rounding), and the limiter does let the sustained rate through.
pub async fn concurrent_checks_stay_within_rate_and_burst(limiter: Arc<dyn RateLimiter>) {
    const RATE: u32 = 20;
    const BURST: u32 = 10;
    const TASKS: usize = 8;
    let org = new_organization();
    let fast = plan("fast", RATE, BURST);
    let allowed = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let deadline = start + Duration::from_secs(2);
    let tasks: Vec<_> = (0..TASKS)
        .map(|_| {
            let (limiter, fast, allowed) = (limiter.clone(), fast.clone(), allowed.clone());
            tokio::spawn(async move {
                while Instant::now() < deadline {
                    if let RateDecision::Allowed { .. } = check(limiter.as_ref(), &org, &fast, 1).await {
                        allowed.fetch_add(1, Ordering::Relaxed);
                    }
                    // Keeps the hammering from starving other tests on a small machine; still
                    // thousands of checks per second.
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("a checking task panicked");
    }
    let elapsed = start.elapsed().as_secs_f64();
    let allowed = allowed.load(Ordering::Relaxed) as f64;
    let ceiling = f64::from(RATE) * elapsed + f64::from(BURST) + 1.0;
    let floor = f64::from(BURST) + f64::from(RATE) * elapsed * 0.5;
    assert!(
        allowed <= ceiling,
        "{allowed} sends passed in {elapsed:.2} s, more than {ceiling:.1}"
    );
    assert!(
        allowed >= floor,
        "only {allowed} sends passed in {elapsed:.2} s, fewer than {floor:.1}"
    );
}
