//! The GCRA (generic cell rate algorithm) arithmetic shared by every limiter in this crate.
//!
//! A bucket is one number, the theoretical arrival time (TAT): the instant at which the bucket would be
//! full again. `debt = TAT - now` (never negative) is how much of the bucket is used, in microseconds of
//! refill; each send adds one emission interval (`1 s / rate`) of debt, and a send passes when the debt
//! after it stays within the bucket's window (`burst × interval`).
//!
//! Times are whole microseconds: the Redis script does the same arithmetic in Lua doubles, which are
//! exact up to 2^53 µs (285 years), so both adapters compute identical decisions.
//!
//! Next to the TAT a bucket keeps the interval it was charged with, so that a plan change can re-express
//! the debt in the new plan's intervals: a bucket that has used 5 sends on one plan has used 5 sends on
//! the next one (clamped to the new bucket's size), rather than keeping a time debt sized for the old rate.

use herald_domain::organization::Plan;
use herald_domain::ports::RateDecision;

/// Microseconds per second.
pub(crate) const MICROS: u64 = 1_000_000;

/// What `retry_after_seconds` says when no send can ever pass (a plan with rate or burst 0): the
/// caller should come back later, by when the plan may have changed.
pub(crate) const BLOCKED_RETRY_SECONDS: u64 = 60;

/// The numbers of one limit, derived from a rate and a burst.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Params {
    /// Microseconds of debt one send adds (`1 s / rate`, at least 1 µs).
    pub(crate) interval_us: u64,
    pub(crate) burst: u32,
}

impl Params {
    /// `None` when nothing can ever pass (rate or burst 0).
    pub(crate) fn new(rate_per_second: u32, burst: u32) -> Option<Self> {
        if rate_per_second == 0 || burst == 0 {
            return None;
        }
        Some(Self {
            interval_us: (MICROS / u64::from(rate_per_second)).max(1),
            burst,
        })
    }

    pub(crate) fn from_plan(plan: &Plan) -> Option<Self> {
        Self::new(plan.rate_per_second, plan.burst)
    }

    /// The bucket's size in microseconds of debt.
    pub(crate) fn window_us(self) -> u64 {
        u64::from(self.burst).saturating_mul(self.interval_us)
    }

    fn cost_us(self, cost: u32) -> u64 {
        u64::from(cost).saturating_mul(self.interval_us)
    }
}

/// A stored bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bucket {
    /// The theoretical arrival time, in microseconds on the limiter's clock.
    pub(crate) tat_us: u64,
    /// The interval the debt was charged with.
    pub(crate) interval_us: u64,
}

/// The outcome of one check, before it is turned into a [`RateDecision`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// The sends passed; `debt_us` is the debt after them.
    Allowed { debt_us: u64 },
    /// They did not; `debt_us` is the debt as it stands.
    Limited { debt_us: u64 },
}

/// The debt of `stored` at `now_us`, expressed in `params`' intervals and at most one full bucket, and
/// whether that differs from what is stored (so the new form must be written back even when the check
/// is limited, or the plan change would be re-applied from the old TAT on every call).
pub(crate) fn current_debt(stored: Option<Bucket>, now_us: u64, params: Params) -> (u64, bool) {
    let Some(bucket) = stored else {
        return (0, false);
    };
    let mut debt = bucket.tat_us.saturating_sub(now_us);
    let mut changed = false;
    if bucket.interval_us != params.interval_us {
        changed = true;
        if bucket.interval_us > 0 {
            // Rounded up: a plan change must never forgive part of a send.
            let scaled =
                (u128::from(debt) * u128::from(params.interval_us)).div_ceil(u128::from(bucket.interval_us));
            debt = u64::try_from(scaled).unwrap_or(u64::MAX);
        }
    }
    if debt > params.window_us() {
        // A smaller bucket is simply empty; debt beyond it would lock the org out for longer than
        // the new plan could ever have.
        debt = params.window_us();
        changed = true;
    }
    (debt, changed)
}

/// Whether `cost` sends fit on top of `debt_us`.
pub(crate) fn step(debt_us: u64, params: Params, cost: u32) -> Step {
    let after = debt_us.saturating_add(params.cost_us(cost));
    if after <= params.window_us() {
        Step::Allowed { debt_us: after }
    } else {
        Step::Limited { debt_us }
    }
}

/// The decision the port returns for `step`.
pub(crate) fn decision(params: Params, cost: u32, step: Step) -> RateDecision {
    let limit = params.burst;
    match step {
        Step::Allowed { debt_us } => {
            let free = params.window_us().saturating_sub(debt_us);
            RateDecision::Allowed {
                limit,
                remaining: u32::try_from(free / params.interval_us).unwrap_or(limit),
                reset_seconds: debt_us.div_ceil(MICROS),
            }
        }
        Step::Limited { debt_us } => {
            let wait_us = if cost > params.burst {
                // It will never pass; the best the caller can do is wait for a full bucket.
                debt_us
            } else {
                debt_us
                    .saturating_add(params.cost_us(cost))
                    .saturating_sub(params.window_us())
            };
            RateDecision::Limited {
                limit,
                retry_after_seconds: wait_us.div_ceil(MICROS).max(1),
            }
        }
    }
}

/// The decision for a limit under which nothing can pass.
pub(crate) fn blocked(burst: u32) -> RateDecision {
    RateDecision::Limited {
        limit: burst,
        retry_after_seconds: BLOCKED_RETRY_SECONDS,
    }
}

/// One whole check against a stored bucket: the decision and the bucket to store (`None`: nothing to
/// write, or the bucket is full and can be forgotten — see `Outcome::store`).
pub(crate) fn check(stored: Option<Bucket>, now_us: u64, params: Params, cost: u32) -> Outcome {
    let (debt, changed) = current_debt(stored, now_us, params);
    let step = step(debt, params, cost);
    let write = match step {
        Step::Allowed { debt_us } => Some(debt_us),
        Step::Limited { debt_us } if changed => Some(debt_us),
        Step::Limited { .. } => None,
    };
    Outcome {
        decision: decision(params, cost, step),
        store: write.map(|debt_us| Bucket {
            tat_us: now_us.saturating_add(debt_us),
            interval_us: params.interval_us,
        }),
    }
}

/// What [`check`] decided and what to write back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub(crate) decision: RateDecision,
    /// The bucket to store, or `None` to leave the stored one as it is.
    pub(crate) store: Option<Bucket>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(rate: u32, burst: u32) -> Params {
        Params::new(rate, burst).unwrap()
    }

    /// Runs `check` on a bucket kept in a variable, like the adapters do.
    fn run(bucket: &mut Option<Bucket>, now_us: u64, params: Params, cost: u32) -> RateDecision {
        let outcome = check(*bucket, now_us, params, cost);
        if let Some(new) = outcome.store {
            *bucket = Some(new);
        }
        outcome.decision
    }

    #[test]
    fn a_full_bucket_passes_burst_then_limits() {
        let p = params(1, 5);
        let mut bucket = None;
        for remaining in (0..5).rev() {
            assert_eq!(
                run(&mut bucket, 0, p, 1),
                RateDecision::Allowed {
                    limit: 5,
                    remaining,
                    reset_seconds: 5 - u64::from(remaining)
                }
            );
        }
        assert_eq!(
            run(&mut bucket, 0, p, 1),
            RateDecision::Limited {
                limit: 5,
                retry_after_seconds: 1
            }
        );
        // A tenth of a second later the next send is still 0.9 s away: rounded up to 1.
        assert_eq!(
            run(&mut bucket, 100_000, p, 1),
            RateDecision::Limited {
                limit: 5,
                retry_after_seconds: 1
            }
        );
        assert!(matches!(
            run(&mut bucket, MICROS, p, 1),
            RateDecision::Allowed { remaining: 0, .. }
        ));
    }

    #[test]
    fn reset_is_zero_only_when_full() {
        let p = params(10, 20);
        let mut bucket = None;
        assert_eq!(
            run(&mut bucket, 0, p, 0),
            RateDecision::Allowed {
                limit: 20,
                remaining: 20,
                reset_seconds: 0
            }
        );
        assert_eq!(
            run(&mut bucket, 0, p, 1),
            RateDecision::Allowed {
                limit: 20,
                remaining: 19,
                reset_seconds: 1
            }
        );
        assert_eq!(
            run(&mut bucket, 100_000, p, 0),
            RateDecision::Allowed {
                limit: 20,
                remaining: 20,
                reset_seconds: 0
            }
        );
    }

    #[test]
    fn cost_above_one_takes_that_many() {
        let p = params(1, 10);
        let mut bucket = None;
        assert!(matches!(
            run(&mut bucket, 0, p, 4),
            RateDecision::Allowed { remaining: 6, .. }
        ));
        assert!(matches!(
            run(&mut bucket, 0, p, 4),
            RateDecision::Allowed { remaining: 2, .. }
        ));
        assert_eq!(
            run(&mut bucket, 0, p, 4),
            RateDecision::Limited {
                limit: 10,
                retry_after_seconds: 2
            }
        );
        assert!(matches!(
            run(&mut bucket, 0, p, 2),
            RateDecision::Allowed { remaining: 0, .. }
        ));
    }

    #[test]
    fn a_cost_above_burst_never_passes_and_says_when_the_bucket_is_full() {
        let p = params(1, 3);
        let mut bucket = None;
        assert_eq!(
            run(&mut bucket, 0, p, 4),
            RateDecision::Limited {
                limit: 3,
                retry_after_seconds: 1
            }
        );
        run(&mut bucket, 0, p, 2);
        assert_eq!(
            run(&mut bucket, 0, p, 4),
            RateDecision::Limited {
                limit: 3,
                retry_after_seconds: 2
            }
        );
    }

    #[test]
    fn an_upgrade_keeps_the_sends_used_not_the_time_debt() {
        let trial = params(1, 5);
        let starter = params(20, 40);
        let mut bucket = None;
        for _ in 0..5 {
            run(&mut bucket, 0, trial, 1);
        }
        assert!(matches!(
            run(&mut bucket, 0, trial, 1),
            RateDecision::Limited { .. }
        ));
        assert_eq!(
            run(&mut bucket, 0, starter, 1),
            RateDecision::Allowed {
                limit: 40,
                remaining: 34,
                reset_seconds: 1
            }
        );
    }

    #[test]
    fn a_downgrade_empties_the_smaller_bucket_without_locking_out() {
        let starter = params(20, 40);
        let trial = params(1, 5);
        let mut bucket = None;
        run(&mut bucket, 0, starter, 40);
        // 40 sends at 1/s would be 40 s of debt; clamped to trial's 5 s bucket, one send is 1 s away.
        assert_eq!(
            run(&mut bucket, 0, trial, 1),
            RateDecision::Limited {
                limit: 5,
                retry_after_seconds: 1
            }
        );
        // The rescaled bucket was written back, so the change is not re-applied from the old TAT.
        assert_eq!(
            bucket,
            Some(Bucket {
                tat_us: 5 * MICROS,
                interval_us: MICROS
            })
        );
        assert!(matches!(
            run(&mut bucket, MICROS, trial, 1),
            RateDecision::Allowed { remaining: 0, .. }
        ));
    }

    #[test]
    fn rate_or_burst_zero_blocks() {
        assert_eq!(Params::new(0, 5), None);
        assert_eq!(Params::new(5, 0), None);
        assert_eq!(
            blocked(5),
            RateDecision::Limited {
                limit: 5,
                retry_after_seconds: BLOCKED_RETRY_SECONDS
            }
        );
    }

    #[test]
    fn huge_numbers_saturate_instead_of_overflowing() {
        let p = params(u32::MAX, u32::MAX);
        let mut bucket = None;
        assert!(matches!(
            run(&mut bucket, u64::MAX - 1, p, u32::MAX),
            RateDecision::Allowed { .. }
        ));
        assert!(matches!(
            run(&mut bucket, u64::MAX - 1, p, u32::MAX),
            RateDecision::Limited { .. }
        ));
    }
}
