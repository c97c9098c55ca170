//! The retention sweep (issue 18): removes, batch after batch, what is older than its plan's retention.

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
    /// The pause between two transactions of one sweep.
    pub pause: Duration,
}

/// One sweep: batches until one comes back short (nothing more is due), the workers stop, or a batch fails
/// (the next sweep tries again).
pub async fn sweep_retention(
    store: &dyn RetentionStore,
    clock: &dyn Clock,
    settings: RetentionSettings,
    stop: &watch::Receiver<bool>,
) -> RetentionReport {
    let mut swept = RetentionReport::default();
    while !*stop.borrow() {
        match store.purge_expired(clock.now(), settings.batch).await {
            Ok(report) => {
                for (table, rows) in report.by_table() {
                    if rows > 0 {
                        metrics::counter!("herald_retention_deleted_rows_total", "table" => table)
                            .increment(rows);
                    }
                }
                swept = add(swept, report);
                if report.roots() < u64::from(settings.batch) {
                    break;
                }
            }
            Err(error) => {
                metrics::counter!("herald_retention_failures_total").increment(1);
                tracing::warn!(%error, "a retention batch failed");
                break;
            }
        }
        tokio::time::sleep(settings.pause).await;
    }
    if swept.total() > 0 {
        tracing::info!(
            messages = swept.messages,
            inbound = swept.inbound,
            callbacks = swept.callbacks,
            rows = swept.total(),
            "removed rows past their retention"
        );
    }
    swept
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

    /// Answers the queued reports in turn (then empty ones), and counts the calls and their limits.
    struct Scripted(Mutex<(Vec<RetentionReport>, Vec<u32>)>);

    #[async_trait::async_trait]
    impl RetentionStore for Scripted {
        async fn purge_expired(&self, _now: Timestamp, limit: u32) -> Result<RetentionReport, StoreError> {
            let mut state = self.0.lock().unwrap();
            state.1.push(limit);
            Ok(if state.0.is_empty() {
                RetentionReport::default()
            } else {
                state.0.remove(0)
            })
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
        let full = RetentionReport {
            messages: 2,
            status_events: 6,
            ..RetentionReport::default()
        };
        let short = RetentionReport {
            messages: 1,
            ..RetentionReport::default()
        };
        let store = Scripted(Mutex::new((vec![full, full, short, full], Vec::new())));
        let (_stop, stopped) = watch::channel(false);
        let settings = RetentionSettings {
            interval: Duration::from_secs(3_600),
            batch: 2,
            pause: Duration::ZERO,
        };
        let swept = sweep_retention(&store, &At(chrono::Utc::now()), settings, &stopped).await;
        assert_eq!(swept.messages, 5);
        assert_eq!(swept.total(), 17);
        assert_eq!(
            store.0.lock().unwrap().1,
            [2, 2, 2],
            "three batches of at most 2, then it stops"
        );
    }
}
