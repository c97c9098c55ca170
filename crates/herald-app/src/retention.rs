//! The retention sweep: removes, batch after batch, what is older than its plan's retention.

use herald_domain::ports::{Clock, RetentionReport, RetentionStore};
use std::time::Duration;
use tokio::sync::watch;

/// How the retention sweep runs.
#[derive(Debug, Clone, Copy)]
pub struct RetentionSettings {
    /// How often a sweep starts.
    pub interval: Duration,
    /// Messages (and separately inbound messages, organization events and callbacks) removed per transaction,
    /// with their rows.
    pub batch: u32,
    /// The shortest pause between two transactions of one sweep.
    pub pause: Duration,
    /// The most of its time a sweep spends inside its transactions, percent (1 to 100).
    pub busy_percent: u8,
}

impl RetentionSettings {
    /// The sweep's settings from the `[retention]` section (`retention_*`).
    pub fn new(retention: &crate::config::RetentionSection) -> Self {
        Self {
            interval: Duration::from_secs(retention.interval_seconds),
            batch: retention.batch.max(1),
            pause: Duration::from_millis(retention.pause_ms),
            busy_percent: retention.busy_percent.clamp(1, 100),
        }
    }

    /// The pause after a transaction that took `busy`: at least `pause`, and long enough that the sweep is
    /// inside its transactions at most `busy_percent` of the time. A transaction slowed by a busy database
    /// is followed by a longer pause, so the sweep yields to sends instead of competing with them (the P6
    /// bench: with a fixed 200 ms pause on 10 million messages, sends beside a sweep ran at 0.65× their rate
    /// alone; docs/benchmarks-history.md, P6).
    pub fn pause_after(&self, busy: Duration) -> Duration {
        let percent = u32::from(self.busy_percent.clamp(1, 100));
        self.pause.max(busy * (100 - percent) / percent)
    }
}

/// What one sweep removed, and why it ended.
#[derive(Debug)]
pub struct Swept {
    /// The rows removed, summed over the sweep's batches.
    pub removed: RetentionReport,
    /// Why the sweep ended.
    pub ended: SweepEnd,
}

/// Why a sweep ended.
#[derive(Debug, PartialEq, Eq)]
pub enum SweepEnd {
    /// A batch came back short: nothing more is due.
    NothingDue,
    /// Asked to stop (the workers stop, or `admin retention sweep --seconds` ran out) with more perhaps due.
    Stopped,
    /// A batch failed (the next sweep tries again), with the store's error.
    Failed(String),
}

/// One sweep: batches until one comes back short (nothing more is due), `stop` turns true, or a batch fails
/// (the next sweep tries again).
pub async fn sweep_retention(
    store: &dyn RetentionStore,
    clock: &dyn Clock,
    settings: RetentionSettings,
    stop: &watch::Receiver<bool>,
) -> Swept {
    let mut removed = RetentionReport::default();
    let ended = loop {
        if *stop.borrow() {
            break SweepEnd::Stopped;
        }
        let started = tokio::time::Instant::now();
        match store.purge_expired(clock.now(), settings.batch).await {
            Ok(report) => {
                for (table, rows) in report.by_table() {
                    if rows > 0 {
                        metrics::counter!("herald_retention_deleted_rows_total", "table" => table)
                            .increment(rows);
                    }
                }
                removed = add(removed, report);
                if report.roots() < u64::from(settings.batch) {
                    break SweepEnd::NothingDue;
                }
            }
            Err(error) => {
                metrics::counter!("herald_retention_failures_total").increment(1);
                tracing::warn!(%error, "a retention batch failed");
                break SweepEnd::Failed(error.to_string());
            }
        }
        // The pause can be long after a slow transaction: asked to stop, the sweep does not wait it out.
        let mut stopping = stop.clone();
        tokio::select! {
            () = tokio::time::sleep(settings.pause_after(started.elapsed())) => {}
            Ok(()) = stopping.changed() => {}
        }
    };
    if removed.total() > 0 {
        tracing::info!(
            messages = removed.messages,
            inbound = removed.inbound,
            callbacks = removed.callbacks,
            rows = removed.total(),
            "removed rows past their retention"
        );
    }
    Swept { removed, ended }
}

fn add(a: RetentionReport, b: RetentionReport) -> RetentionReport {
    RetentionReport {
        messages: a.messages + b.messages,
        inbound: a.inbound + b.inbound,
        status_events: a.status_events + b.status_events,
        customer_events: a.customer_events + b.customer_events,
        account_events: a.account_events + b.account_events,
        jobs: a.jobs + b.jobs,
        deliveries: a.deliveries + b.deliveries,
        callbacks: a.callbacks + b.callbacks,
        broadcasts: a.broadcasts + b.broadcasts,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;
    use herald_domain::Timestamp;
    use herald_domain::ports::StoreError;
    use std::sync::Mutex;

    /// Answers the queued results in turn (then empty reports), and counts the calls and their limits.
    struct Scripted(Mutex<(Vec<Batch>, Vec<u32>)>);

    type Batch = Result<RetentionReport, StoreError>;

    impl Scripted {
        fn new(results: Vec<Batch>) -> Self {
            Self(Mutex::new((results, Vec::new())))
        }

        fn limits(&self) -> Vec<u32> {
            self.0.lock().unwrap().1.clone()
        }
    }

    #[async_trait::async_trait]
    impl RetentionStore for Scripted {
        async fn purge_expired(&self, _now: Timestamp, limit: u32) -> Result<RetentionReport, StoreError> {
            let mut state = self.0.lock().unwrap();
            state.1.push(limit);
            if state.0.is_empty() {
                Ok(RetentionReport::default())
            } else {
                state.0.remove(0)
            }
        }
    }

    const SETTINGS: RetentionSettings = RetentionSettings {
        interval: Duration::from_secs(3_600),
        batch: 2,
        pause: Duration::ZERO,
        busy_percent: 100,
    };

    fn full() -> RetentionReport {
        RetentionReport {
            messages: 2,
            status_events: 6,
            ..RetentionReport::default()
        }
    }

    struct At(Timestamp);

    impl Clock for At {
        fn now(&self) -> Timestamp {
            self.0
        }
    }

    /// A sweep goes on batch after batch while each comes back full, stops at the first short one, and
    /// asks every batch for the configured bound.
    #[tokio::test]
    async fn a_sweep_runs_full_batches_until_a_short_one() {
        let short = RetentionReport {
            messages: 1,
            ..RetentionReport::default()
        };
        let store = Scripted::new(vec![Ok(full()), Ok(full()), Ok(short), Ok(full())]);
        let (_stop, stopped) = watch::channel(false);
        let swept = sweep_retention(&store, &At(chrono::Utc::now()), SETTINGS, &stopped).await;
        assert_eq!(swept.ended, SweepEnd::NothingDue);
        assert_eq!(swept.removed.messages, 5);
        assert_eq!(swept.removed.total(), 17);
        assert_eq!(
            store.limits(),
            [2, 2, 2],
            "three batches of at most 2, then it stops"
        );
    }

    /// A failed batch ends the sweep with the store's error and keeps what earlier batches removed.
    #[tokio::test]
    async fn a_failed_batch_ends_the_sweep_with_its_error() {
        let store = Scripted::new(vec![
            Ok(full()),
            Err(StoreError::Unavailable("the pool is empty".into())),
            Ok(full()),
        ]);
        let (_stop, stopped) = watch::channel(false);
        let swept = sweep_retention(&store, &At(chrono::Utc::now()), SETTINGS, &stopped).await;
        assert_eq!(
            swept.ended,
            SweepEnd::Failed("store unavailable: the pool is empty".into())
        );
        assert_eq!(swept.removed, full());
        assert_eq!(store.limits().len(), 2, "no batch after the failed one");
    }

    /// Asked to stop, a sweep starts no further batch, however much is still due.
    #[tokio::test]
    async fn a_stopped_sweep_starts_no_further_batch() {
        let store = Scripted::new(vec![Ok(full()), Ok(full()), Ok(full())]);
        let (stop, stopped) = watch::channel(false);
        stop.send(true).unwrap();
        let swept = sweep_retention(&store, &At(chrono::Utc::now()), SETTINGS, &stopped).await;
        assert_eq!(swept.ended, SweepEnd::Stopped);
        assert_eq!(swept.removed, RetentionReport::default());
        assert!(store.limits().is_empty());
    }

    /// Takes `busy` for every batch, as a database under load would, and answers full batches `full` times.
    struct Slow {
        busy: Duration,
        full: Mutex<u32>,
    }

    #[async_trait::async_trait]
    impl RetentionStore for Slow {
        async fn purge_expired(&self, _now: Timestamp, _limit: u32) -> Result<RetentionReport, StoreError> {
            tokio::time::sleep(self.busy).await;
            let mut left = self.full.lock().unwrap();
            if *left == 0 {
                return Ok(RetentionReport::default());
            }
            *left -= 1;
            Ok(full())
        }
    }

    /// The pause after a transaction keeps the sweep inside its transactions at most `busy_percent` of the
    /// time, and never drops below the configured pause.
    #[test]
    fn the_pause_grows_with_the_time_a_transaction_took() {
        let settings = RetentionSettings {
            pause: Duration::from_millis(200),
            busy_percent: 20,
            ..SETTINGS
        };
        assert_eq!(
            settings.pause_after(Duration::from_millis(10)),
            Duration::from_millis(200)
        );
        assert_eq!(
            settings.pause_after(Duration::from_millis(300)),
            Duration::from_millis(1_200)
        );
        let all_the_time = RetentionSettings {
            busy_percent: 100,
            ..settings
        };
        assert_eq!(
            all_the_time.pause_after(Duration::from_secs(5)),
            Duration::from_millis(200)
        );
    }

    /// A sweep whose transactions take 100 ms each, allowed 25 % of its time, pauses 300 ms after each
    /// full batch: three batches (the last one short) take 3 × 100 + 2 × 300 ms.
    #[tokio::test(start_paused = true)]
    async fn a_slow_transaction_is_followed_by_a_longer_pause() {
        let store = Slow {
            busy: Duration::from_millis(100),
            full: Mutex::new(2),
        };
        let settings = RetentionSettings {
            pause: Duration::from_millis(10),
            busy_percent: 25,
            ..SETTINGS
        };
        let (_stop, stopped) = watch::channel(false);
        let started = tokio::time::Instant::now();
        let swept = sweep_retention(&store, &At(chrono::Utc::now()), settings, &stopped).await;
        assert_eq!(swept.ended, SweepEnd::NothingDue);
        assert_eq!(swept.removed.messages, 4);
        assert_eq!(started.elapsed(), Duration::from_millis(900));
    }

    /// Asked to stop during a long pause, a sweep ends then rather than when the pause would have.
    #[tokio::test(start_paused = true)]
    async fn a_sweep_asked_to_stop_does_not_wait_its_pause_out() {
        let store = Slow {
            busy: Duration::from_millis(100),
            full: Mutex::new(10),
        };
        let settings = RetentionSettings {
            busy_percent: 1,
            ..SETTINGS
        };
        let (stop, stopped) = watch::channel(false);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            stop.send(true).unwrap();
        });
        let started = tokio::time::Instant::now();
        let swept = sweep_retention(&store, &At(chrono::Utc::now()), settings, &stopped).await;
        assert_eq!(swept.ended, SweepEnd::Stopped);
        assert_eq!(
            swept.removed.messages, 2,
            "one batch, then the 9.9 s pause it left early"
        );
        assert_eq!(started.elapsed(), Duration::from_secs(1));
    }
}
