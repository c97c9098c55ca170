//! Wake-ups for the dispatch workers: a worker that found nothing due sleeps in [`WorkNotifier::wait`] and
//! is woken as soon as a message is accepted, instead of polling the outbox in a tight loop.

use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// Tells waiting dispatch workers that jobs may have become due. Cheap to clone; every clone shares one
/// signal. On PostgreSQL the signal comes from `LISTEN herald_outbox` (so an accept in ANY process wakes the
/// workers of every process); on SQLite, which has one process, from the store's own `accept`.
#[derive(Debug, Clone, Default)]
pub struct WorkNotifier {
    signal: Arc<Notify>,
}

impl WorkNotifier {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Waits until jobs may have become due, or `timeout` passed, whichever comes first. Never waits longer
    /// than `timeout`; may return early without new work (a wake-up is a hint, the outbox is the truth), so
    /// callers keep the timeout as their polling fallback (jobs also become due by time alone: retries,
    /// expired leases).
    pub async fn wait(&self, timeout: Duration) {
        let _elapsed = tokio::time::timeout(timeout, self.signal.notified()).await;
    }

    /// Wakes every current waiter, and leaves one permit so that a worker about to wait (it just found
    /// nothing due, a moment before this work arrived) does not sleep through it.
    pub(crate) fn wake(&self) {
        self.signal.notify_waiters();
        self.signal.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[tokio::test]
    async fn wait_returns_at_its_timeout_without_work_and_early_with_it() {
        let notifier = WorkNotifier::new();
        let started = Instant::now();
        notifier.wait(Duration::from_millis(50)).await;
        assert!(started.elapsed() >= Duration::from_millis(50));

        let waiter = {
            let notifier = notifier.clone();
            tokio::spawn(async move {
                let started = Instant::now();
                notifier.wait(Duration::from_secs(30)).await;
                started.elapsed()
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        notifier.wake();
        let waited = waiter.await.unwrap();
        assert!(waited < Duration::from_secs(10), "woken after {waited:?}");
    }

    #[tokio::test]
    async fn a_wake_before_the_wait_is_not_lost() {
        let notifier = WorkNotifier::new();
        notifier.wake();
        let started = Instant::now();
        notifier.wait(Duration::from_secs(30)).await;
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
