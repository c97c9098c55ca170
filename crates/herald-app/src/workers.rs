//! The background loops of the `worker` role: dispatch, customer webhook delivery, the callback backlog
//! sweep, template sync.

use crate::retention::{RetentionSettings, sweep_retention};
use herald_domain::ports::{Clock, RetentionStore};
use herald_domain::usecases::{
    BacklogReport, Broadcasts, DeliverWebhooks, DispatchMessages, Media, ProcessCallbacks, SyncTemplates,
};
use herald_media::FsMediaStore;
use herald_store::WorkNotifier;
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::{Semaphore, oneshot, watch};
use tokio::task::{JoinHandle, JoinSet};

/// Expired uploads deleted per store call.
const MEDIA_EXPIRY_BATCH: u32 = 500;

/// A staged upload older than this belongs to no request any more (a request streams its file and is
/// answered within minutes).
const STALE_STAGING: Duration = Duration::from_secs(3_600);

/// How the loops run.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// Concurrent dispatch loops in this process.
    pub dispatch_loops: usize,
    /// Longest sleep between dispatch rounds when nothing wakes the loop.
    pub poll_interval: Duration,
    pub backlog_interval: Duration,
    pub template_sync_interval: Duration,
    /// Concurrent webhook delivery loops in this process.
    pub webhook_loops: usize,
    /// Longest sleep between webhook rounds when nothing wakes the loop, and how long a loop waits for a round
    /// before starting the next one beside it.
    pub webhook_poll_interval: Duration,
    /// Most webhook rounds one loop keeps in flight at once (rounds held up by slow endpoints included).
    pub webhook_rounds_per_loop: usize,
    /// How often the outbox backlog and the pending webhook deliveries are sampled for the gauges; `None`,
    /// never (no metrics are served).
    pub gauge_interval: Option<Duration>,
    /// `metrics_organization_labels`: label the dispatch and outbox series by organization (and sender).
    pub organization_labels: bool,
}

/// Running loops; stopping lets each finish the round it is in. Every loop is supervised: one that ends
/// while the workers are not stopping (a panic in its body) is logged and started again.
pub struct Workers {
    stop: watch::Sender<bool>,
    handles: Vec<JoinHandle<()>>,
}

/// How long a supervisor waits before starting a loop again that ended on its own, so a loop that fails at
/// once every time does not spin.
const RESTART_DELAY: Duration = Duration::from_secs(1);

impl Workers {
    pub fn start(
        dispatch: Arc<DispatchMessages>,
        callbacks: Arc<ProcessCallbacks>,
        sync: Arc<SyncTemplates>,
        webhooks: Arc<DeliverWebhooks>,
        notifier: WorkNotifier,
        webhook_notifier: WorkNotifier,
        settings: &WorkerSettings,
    ) -> Self {
        let mut workers = Self::none();
        let labels = settings.organization_labels;
        if let Some(interval) = settings.gauge_interval {
            let (backlog, pending) = (dispatch.clone(), webhooks.clone());
            workers.supervise("gauges", move |stop| {
                let (backlog, pending) = (backlog.clone(), pending.clone());
                let published = Arc::new(std::sync::Mutex::new(HashSet::new()));
                every(interval, stop, move || {
                    let (backlog, pending, published) = (backlog.clone(), pending.clone(), published.clone());
                    async move { sample_gauges(&backlog, &pending, labels, &published).await }
                })
            });
        }
        workers.spawn_dispatch_labelled(
            dispatch,
            notifier,
            settings.dispatch_loops,
            settings.poll_interval,
            labels,
        );
        for _ in 0..settings.webhook_loops.max(1) {
            let (webhooks, notifier) = (webhooks.clone(), webhook_notifier.clone());
            let (poll, rounds) = (
                settings.webhook_poll_interval,
                settings.webhook_rounds_per_loop.max(1),
            );
            workers.supervise("webhooks", move |stop| {
                webhook_loop(webhooks.clone(), notifier.clone(), stop, poll, rounds)
            });
        }
        let interval = settings.backlog_interval;
        let parked = Arc::new(AtomicU64::new(0));
        workers.supervise("callback backlog", move |stop| {
            let (callbacks, parked) = (callbacks.clone(), parked.clone());
            every(interval, stop, move || {
                let (callbacks, parked) = (callbacks.clone(), parked.clone());
                async move { sweep_callbacks(&callbacks, &parked).await }
            })
        });
        let interval = settings.template_sync_interval;
        workers.supervise("template sync", move |stop| {
            let sync = sync.clone();
            every(interval, stop, move || {
                let sync = sync.clone();
                async move {
                    match sync.sync_all().await {
                        Ok(report) => tracing::info!(
                            templates = report.templates,
                            accounts = report.business_accounts,
                            "templates synced"
                        ),
                        Err(error) => tracing::warn!(%error, "template sync failed"),
                    }
                }
            })
        });
        workers
    }

    /// No loops yet; add them with the `spawn_*` methods.
    pub fn none() -> Self {
        let (stop, _) = watch::channel(false);
        Self {
            stop,
            handles: Vec::new(),
        }
    }

    /// Adds `loops` dispatch loops (at least one), each woken by `notifier` or after `poll` at the latest.
    pub fn spawn_dispatch(
        &mut self,
        dispatch: Arc<DispatchMessages>,
        notifier: WorkNotifier,
        loops: usize,
        poll: Duration,
    ) {
        self.spawn_dispatch_labelled(dispatch, notifier, loops, poll, false);
    }

    /// [`Self::spawn_dispatch`], its metrics labelled by organization when `organization_labels`.
    fn spawn_dispatch_labelled(
        &mut self,
        dispatch: Arc<DispatchMessages>,
        notifier: WorkNotifier,
        loops: usize,
        poll: Duration,
        organization_labels: bool,
    ) {
        for _ in 0..loops.max(1) {
            let (dispatch, notifier) = (dispatch.clone(), notifier.clone());
            self.supervise("dispatch", move |stop| {
                dispatch_loop(
                    dispatch.clone(),
                    notifier.clone(),
                    stop,
                    poll,
                    organization_labels,
                )
            });
        }
    }

    /// Runs the loop `run` makes, and makes and runs it again whenever it ends before the workers stop.
    fn supervise<F, Fut>(&mut self, name: &'static str, run: F)
    where
        F: Fn(watch::Receiver<bool>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let stop = self.stop.subscribe();
        self.handles
            .push(tokio::spawn(supervised(name, stop, RESTART_DELAY, run)));
    }

    /// Adds the media cleanup: every `interval`, expired uploads (30 days) and the bytes nothing points
    /// at any more are deleted, and staging files older than an hour (left by a crash mid-upload) too.
    pub fn spawn_media_cleanup(&mut self, media: Arc<Media>, files: Arc<FsMediaStore>, interval: Duration) {
        self.supervise("media cleanup", move |stop| {
            let (media, files) = (media.clone(), files.clone());
            every(interval, stop, move || {
                let media = media.clone();
                let files = files.clone();
                async move {
                    loop {
                        match media.expire(MEDIA_EXPIRY_BATCH).await {
                            Ok(0) => break,
                            Ok(n) => {
                                tracing::info!(uploads = n, "deleted expired uploads");
                                if n < MEDIA_EXPIRY_BATCH as usize {
                                    break;
                                }
                            }
                            Err(error) => {
                                tracing::warn!(%error, "media expiry failed");
                                break;
                            }
                        }
                    }
                    match files.sweep_staging(STALE_STAGING).await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(files = n, "removed stale staged uploads"),
                        Err(error) => tracing::warn!(%error, "sweeping the media staging area failed"),
                    }
                }
            })
        });
    }

    /// Adds the retention sweep (issue 18): every `interval`, rows older than their organization's plan's
    /// retention are removed, `batch` messages (with their rows) per transaction and a `pause` between
    /// transactions, so the sweep never holds locks long nor competes with sends for the database.
    pub fn spawn_retention(
        &mut self,
        store: Arc<dyn RetentionStore>,
        clock: Arc<dyn Clock>,
        settings: RetentionSettings,
    ) {
        self.supervise("retention", move |stop| {
            let (store, clock) = (store.clone(), clock.clone());
            let stopped = stop.clone();
            every(settings.interval, stop, move || {
                let (store, clock, stopped) = (store.clone(), clock.clone(), stopped.clone());
                async move {
                    sweep_retention(&*store, &*clock, settings, &stopped).await;
                }
            })
        });
    }

    /// Adds the broadcast pacer (issue 19): every `interval`, each running broadcast gets what its pace
    /// allows released to dispatch, is paused on a sender or quality error, and is completed once done.
    /// Every step is one transaction that is safe to repeat, so several processes may run it at once.
    pub fn spawn_broadcast_pacer(&mut self, broadcasts: Arc<Broadcasts>, interval: Duration) {
        self.supervise("broadcast pacer", move |stop| {
            let broadcasts = broadcasts.clone();
            every(interval, stop, move || {
                let broadcasts = broadcasts.clone();
                async move {
                    match broadcasts.pace().await {
                        Ok(report) if report.released + report.paused + report.completed > 0 => {
                            tracing::debug!(
                                released = report.released,
                                paused = report.paused,
                                completed = report.completed,
                                "broadcasts paced"
                            );
                        }
                        Ok(_) => {}
                        Err(error) => tracing::warn!(%error, "broadcast pacing failed"),
                    }
                }
            })
        });
    }

    /// Asks every loop to stop after its current round and waits for them, at most `grace`.
    pub async fn stop(self, grace: Duration) {
        let _ = self.stop.send(true);
        let all = futures::future::join_all(self.handles);
        if tokio::time::timeout(grace, all).await.is_err() {
            tracing::warn!("workers did not stop in time; their claimed jobs will be reclaimed");
        }
    }
}

async fn dispatch_loop(
    dispatch: Arc<DispatchMessages>,
    notifier: WorkNotifier,
    mut stop: watch::Receiver<bool>,
    poll: Duration,
    organization_labels: bool,
) {
    loop {
        if *stop.borrow() {
            return;
        }
        let round = dispatch.run_round().await;
        if let Ok(round) = &round {
            crate::metrics::record_dispatch(round, organization_labels);
        }
        match round.map(|round| round.report) {
            // A claim takes a fair share per sender, so a batch may fall short with more still due: any
            // claim means more may be waiting, so go again at once (an empty round then falls through to
            // the wait).
            Ok(report) if report.claimed > 0 => {
                tracing::debug!(?report, "dispatch round");
                continue;
            }
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(%error, "dispatch round failed");
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs(1)) => {}
                    _ = stop.changed() => return,
                }
                continue;
            }
        }
        tokio::select! {
            () = notifier.wait(poll) => {}
            _ = stop.changed() => return,
        }
    }
}

/// Delivers customer webhooks.
///
/// A round lasts as long as its slowest attempt, and a dead endpoint's attempt lasts the whole timeout.
/// So the loop never waits for a round longer than `poll`: a round still running then is left to finish
/// in the background (up to `max_rounds` of them) while the next round claims what else is due. The
/// store's per-endpoint in-flight cap keeps those background rounds from being all one dead endpoint's,
/// and so keeps one slow endpoint from delaying another's events.
async fn webhook_loop(
    deliver: Arc<DeliverWebhooks>,
    notifier: WorkNotifier,
    mut stop: watch::Receiver<bool>,
    poll: Duration,
    max_rounds: usize,
) {
    let permits = Arc::new(Semaphore::new(max_rounds));
    let mut rounds = JoinSet::new();
    loop {
        while rounds.try_join_next().is_some() {}
        if *stop.borrow() {
            break;
        }
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => permit,
            _ = stop.changed() => break,
        };
        let Ok(permit) = permit else { break };
        let (done, finished) = oneshot::channel();
        let round = deliver.clone();
        rounds.spawn(async move {
            let result = round.run_round().await;
            if let Ok(round) = &result {
                crate::metrics::record_webhooks(round);
            }
            let result = result.map(|round| round.report);
            drop(permit);
            let _ = done.send(result);
        });
        let outcome = tokio::select! {
            outcome = tokio::time::timeout(poll, finished) => outcome,
            _ = stop.changed() => break,
        };
        match outcome {
            // Still running after `poll` (a slow endpoint): start the next round beside it.
            Err(_) => continue,
            Ok(Err(_)) => tracing::error!("a webhook round ended without a result (it panicked)"),
            // The per-endpoint cap keeps a round below the batch size even with more due, so any claim means
            // more may be waiting: go again at once (an empty round then falls through to the wait).
            Ok(Ok(Ok(report))) if report.claimed > 0 => {
                tracing::debug!(?report, "webhook round");
                continue;
            }
            Ok(Ok(Ok(_))) => {}
            Ok(Ok(Err(error))) => {
                tracing::warn!(%error, "webhook round failed");
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs(1)) => {}
                    _ = stop.changed() => break,
                }
                continue;
            }
        }
        tokio::select! {
            () = notifier.wait(poll) => {}
            _ = stop.changed() => break,
        }
    }
    // Let the attempts in flight record their outcome; what does not finish within the shutdown grace is
    // reclaimed after its lease (delivery is at least once).
    while rounds.join_next().await.is_some() {}
}

/// One backlog sweep of stored callbacks, logged. The number of parked callbacks is logged whenever it
/// changes (`last_parked` is the count last logged), so an operator sees them pile up without a line every
/// sweep.
async fn sweep_callbacks(callbacks: &ProcessCallbacks, last_parked: &AtomicU64) {
    match callbacks
        .process_backlog(herald_domain::time::Duration::seconds(10), 100)
        .await
    {
        Ok(report) if report == BacklogReport::default() => {}
        Ok(report) => {
            crate::metrics::record_backlog(&report);
            tracing::info!(
                callbacks = report.processed,
                failed = report.failed,
                parked = report.parked,
                "processed stored callbacks from the backlog"
            );
        }
        Err(error) => tracing::warn!(%error, "callback backlog sweep failed"),
    }
    let parked = callbacks.parked_count().await;
    if let Ok(count) = &parked {
        crate::metrics::record_parked(*count);
    }
    match parked {
        Ok(parked) if parked != last_parked.swap(parked, Ordering::Relaxed) => tracing::warn!(
            parked,
            "stored callbacks parked after failing repeatedly (`herald admin callbacks list`)"
        ),
        Ok(_) => {}
        Err(error) => tracing::warn!(%error, "could not count parked callbacks"),
    }
}

/// Samples the outbox backlog and the pending webhook deliveries into their gauges: one store read each.
async fn sample_gauges(
    dispatch: &DispatchMessages,
    webhooks: &DeliverWebhooks,
    organization_labels: bool,
    published: &std::sync::Mutex<HashSet<(String, String)>>,
) {
    match dispatch.backlog().await {
        Ok((now, backlog)) => {
            // Only this loop takes the lock, so a poisoned one is just its own earlier panic.
            let mut published = published
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            crate::metrics::record_outbox(&backlog, now, organization_labels, &mut published);
        }
        Err(error) => tracing::warn!(%error, "could not sample the outbox backlog"),
    }
    match webhooks.pending().await {
        Ok(pending) => crate::metrics::record_webhook_pending(pending),
        Err(error) => tracing::warn!(%error, "could not count the pending webhook deliveries"),
    }
}

/// Runs the loop `run` makes until the workers stop; a loop that ends before that (its body panicked, or it
/// returned) is logged and started again after `delay`.
async fn supervised<F, Fut>(name: &'static str, mut stop: watch::Receiver<bool>, delay: Duration, run: F)
where
    F: Fn(watch::Receiver<bool>) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    loop {
        let ended = tokio::spawn(run(stop.clone())).await;
        if *stop.borrow() {
            return;
        }
        match ended {
            Err(error) if error.is_panic() => {
                tracing::error!(worker = name, "a worker loop panicked; starting it again");
            }
            _ => tracing::error!(worker = name, "a worker loop ended on its own; starting it again"),
        }
        metrics::counter!("herald_worker_loop_restarts_total", "loop" => name).increment(1);
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            _ = stop.changed() => return,
        }
    }
}

/// Runs `job` now and then every `interval` until stopped.
async fn every<F, Fut>(interval: Duration, mut stop: watch::Receiver<bool>, job: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    loop {
        if *stop.borrow() {
            return;
        }
        job().await;
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            _ = stop.changed() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic, reason = "test code")]
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A loop whose body panics is started again (and one that returns on its own too); once the workers
    /// stop, the supervisor ends with the loop instead of starting it again.
    #[tokio::test]
    async fn a_loop_that_panics_or_ends_is_started_again_until_the_workers_stop() {
        let (stop, _) = watch::channel(false);
        let runs = Arc::new(AtomicUsize::new(0));
        let (third_run, mut started) = tokio::sync::mpsc::unbounded_channel();
        let counted = runs.clone();
        let supervisor = tokio::spawn(supervised(
            "test",
            stop.subscribe(),
            Duration::from_millis(1),
            move |mut stop| {
                let run = counted.fetch_add(1, Ordering::SeqCst) + 1;
                let third_run = third_run.clone();
                async move {
                    match run {
                        1 => panic!("the first run's body panics"),
                        2 => {}
                        _ => {
                            let _ = third_run.send(());
                            let _ = stop.changed().await;
                        }
                    }
                }
            },
        ));
        started.recv().await.unwrap();
        assert_eq!(
            runs.load(Ordering::SeqCst),
            3,
            "started again after the panic and after the return"
        );
        stop.send(true).unwrap();
        supervisor.await.unwrap();
        assert_eq!(runs.load(Ordering::SeqCst), 3, "not started again once stopping");
    }
}
