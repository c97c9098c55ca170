//! The domain's `Pacer` port: each sender number at its throughput, and held back when the network says it
//! is over it.

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
            bucket.until_ready().await;
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
