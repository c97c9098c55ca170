//! The domain's `Pacer` port: each sender number at its throughput, and held back when the network says it
//! is over it.

use governor::clock::Clock;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use herald_domain::ids::SenderId;
use herald_domain::organization::SenderNumber;
use herald_domain::ports::Pacer;
use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One GCRA bucket per sender number at its throughput, plus pauses the network asked for.
#[derive(Default)]
pub struct SenderPacer {
    buckets: Mutex<HashMap<SenderId, (u32, Arc<DefaultDirectRateLimiter>)>>,
    paused_until: Mutex<HashMap<SenderId, Instant>>,
}

impl SenderPacer {
    fn bucket(&self, sender: &SenderNumber) -> Option<Arc<DefaultDirectRateLimiter>> {
        let rate = NonZeroU32::new(sender.throughput_per_second.clamp(1, 1_000))?;
        let mut buckets = self.buckets.lock().ok()?;
        let entry = buckets
            .entry(sender.id)
            .or_insert_with(|| (0, Arc::new(RateLimiter::direct(Quota::per_second(rate)))));
        // A changed throughput (the operator raised it) gets a fresh bucket.
        if entry.0 != rate.get() {
            *entry = (rate.get(), Arc::new(RateLimiter::direct(Quota::per_second(rate))));
        }
        Some(entry.1.clone())
    }
}

#[async_trait::async_trait]
impl Pacer for SenderPacer {
    async fn wait_turn(&self, sender: &SenderNumber) {
        let pause = self
            .paused_until
            .lock()
            .ok()
            .and_then(|p| p.get(&sender.id).copied());
        if let Some(until) = pause {
            let now = Instant::now();
            if until > now {
                tokio::time::sleep(until - now).await;
            }
        }
        if let Some(bucket) = self.bucket(sender) {
            // Not governor's `until_ready`: it sleeps on futures-timer's global thread, a hand-off to that
            // thread and back for every wait (about 5 % of Herald's CPU while a broadcast went out at 200/s).
            // tokio's timer is driven by the waiting worker's own runtime.
            while let Err(not_until) = bucket.check() {
                tokio::time::sleep(not_until.wait_time_from(bucket.clock().now())).await;
            }
        }
    }

    fn slow_down(&self, sender: &SenderNumber, pause: herald_domain::time::Duration) {
        let pause = pause
            .to_std()
            .unwrap_or(Duration::from_secs(1))
            .min(Duration::from_secs(60));
        if let Ok(mut paused) = self.paused_until.lock() {
            let until = Instant::now() + pause;
            let entry = paused.entry(sender.id).or_insert(until);
            *entry = (*entry).max(until);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;
    use herald_testkit::fixtures::{SIMULATOR_SENDER_1, organization, sender as fixture};

    fn sender(throughput_per_second: u32) -> SenderNumber {
        SenderNumber {
            throughput_per_second,
            ..fixture(organization("starter").id, SIMULATOR_SENDER_1, true)
        }
    }

    #[tokio::test]
    async fn a_sender_gets_its_throughput_at_once_then_waits_for_its_next_turn() {
        let pacer = SenderPacer::default();
        let sender = sender(5);
        for turn in 0..5 {
            assert!(
                pacer.wait_turn(&sender).now_or_never().is_some(),
                "turn {turn} of the first second's five is given at once"
            );
        }
        assert!(
            pacer.wait_turn(&sender).now_or_never().is_none(),
            "the sixth waits for its turn"
        );
        // The wait ends (about 200 ms at 5/s); the bound is only there so a broken pacer fails, not hangs.
        tokio::time::timeout(Duration::from_secs(30), pacer.wait_turn(&sender))
            .await
            .expect("the next turn comes");
    }

    #[tokio::test]
    async fn a_sender_the_network_slowed_down_waits_out_the_pause() {
        let pacer = SenderPacer::default();
        let sender = sender(1_000);
        pacer.slow_down(&sender, herald_domain::time::Duration::milliseconds(300));
        assert!(
            pacer.wait_turn(&sender).now_or_never().is_none(),
            "a paused sender's turn waits"
        );
        let other = self::sender(1_000);
        assert!(
            pacer.wait_turn(&other).now_or_never().is_some(),
            "another sender is not held back"
        );
        tokio::time::timeout(Duration::from_secs(30), pacer.wait_turn(&sender))
            .await
            .expect("the pause ends");
    }
}
