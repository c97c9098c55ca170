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
use tokio::sync::{mpsc, watch};
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
    /// Longest a webhook loop waits before claiming again when nothing wakes it.
    pub webhook_poll_interval: Duration,
    /// Most webhook attempts one loop keeps in flight at once (slow endpoints' included).
    pub webhook_in_flight_per_loop: usize,
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
            let (poll, in_flight) = (
                settings.webhook_poll_interval,
                settings.webhook_in_flight_per_loop.max(1),
            );
            workers.supervise("webhooks", move |stop| {
                webhook_loop(webhooks.clone(), notifier.clone(), stop, poll, in_flight)
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

    /// Adds the retention sweep: every `interval`, rows older than their organization's plan's
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

    /// Adds the broadcast pacer: every `interval`, each running broadcast gets what its pace
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
                if !paused_after_failure(&mut stop).await {
                    return;
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

/// After a failed store call, waits a second before the loop tries again (the store is likely down or
/// overloaded); `false` when the workers stop meanwhile.
async fn paused_after_failure(stop: &mut watch::Receiver<bool>) -> bool {
    tokio::select! {
        () = tokio::time::sleep(Duration::from_secs(1)) => true,
        _ = stop.changed() => false,
    }
}

/// Delivers customer webhooks as a pipeline of three steps, each one at a time and each taking everything
/// that piled up while its previous run was busy (as group commit does):
/// - the claim leases due deliveries (the store's per-endpoint cap counts every live lease, every process's);
/// - each claimed delivery is attempted at once, in its own task;
/// - the recorder records every completion that is in, in one transaction, and gives the slots back.
///
/// When the loop claims again is [`Slots`]' rule; the store's notifier (deliveries queued) and `poll`
/// (retries become due by time alone) wake it too. Rounds that each waited for their slowest attempt before
/// claiming again left slots idle (docs/benchmarks-history.md, "Deliveries as a pipeline"). A dead endpoint's
/// attempt holds only its own slot, up to the timeout: nothing waits for it but its own recording. At most
/// `max_in_flight` attempts run at once.
async fn webhook_loop(
    deliver: Arc<DeliverWebhooks>,
    notifier: WorkNotifier,
    mut stop: watch::Receiver<bool>,
    poll: Duration,
    max_in_flight: usize,
) {
    let (completed, arrivals) = mpsc::unbounded_channel();
    let (freed, mut recorded) = mpsc::unbounded_channel();
    let recorder = tokio::spawn(record_webhook_outcomes(deliver.clone(), arrivals, freed));
    let mut attempts = JoinSet::new();
    let mut slots = Slots::new(max_in_flight);
    loop {
        while attempts.try_join_next().is_some() {}
        if *stop.borrow() {
            break;
        }
        if let Some(limit) = slots.claim_limit(deliver.settings().batch_size) {
            match deliver.claim(limit).await {
                Ok(claim) => {
                    crate::metrics::record_webhook_lags(&claim.first_attempt_lags);
                    slots.claimed(claim.deliveries.len(), limit);
                    for delivery in claim.deliveries {
                        let (deliver, completed) = (deliver.clone(), completed.clone());
                        attempts.spawn(async move {
                            let completion = deliver.attempt_traced(claim.token, delivery).await;
                            // The recorder outlives every attempt: it ends only once they all sent theirs.
                            let _ = completed.send(completion);
                        });
                    }
                    continue;
                }
                Err(error) => {
                    tracing::warn!(%error, "webhook claim failed");
                    if !paused_after_failure(&mut stop).await {
                        break;
                    }
                    continue;
                }
            }
        }
        let (mut given_back, woken) = tokio::select! {
            given_back = recorded.recv() => match given_back {
                Some(given_back) => (given_back, false),
                // Only a panic ends the recorder while this loop runs; without it no slot would come back,
                // so end the loop too and let its supervisor start both again.
                None => break,
            },
            () = notifier.wait(poll), if slots.has_room() => (0, true),
            _ = stop.changed() => break,
        };
        // Every recording that is in counts, not only the one that woke the loop.
        while let Ok(more) = recorded.try_recv() {
            given_back += more;
        }
        slots.given_back(given_back, woken);
    }
    // Let the attempts in flight record their outcome; what does not finish within the shutdown grace is
    // reclaimed after its lease (delivery is at least once).
    while attempts.join_next().await.is_some() {}
    drop(completed);
    if recorder.await.is_err() {
        tracing::error!("the webhook recorder ended without recording everything (it panicked)");
    }
}

/// The attempts a [`webhook_loop`] has in flight, and when it claims again. A claim costs about the same
/// whatever it finds, so the loop claims again at once only after a full batch (more may be due); then once
/// half of its last claim was given back, or all of it, or when woken (new deliveries, the poll). Claiming at
/// every slot given back made claims of one or two deliveries and cost 0.75× the rate
/// (docs/benchmarks-history.md, "Deliveries as a pipeline"). When half of a claim hangs on a dead endpoint,
/// the rest waits for the poll once (at most 200 ms), as the round it replaced waited once before starting
/// another beside it.
#[derive(Debug)]
struct Slots {
    max_in_flight: usize,
    in_flight: usize,
    last_claim: usize,
    given_back_since: usize,
    claim_now: bool,
}

impl Slots {
    const fn new(max_in_flight: usize) -> Self {
        Self {
            max_in_flight,
            in_flight: 0,
            last_claim: 0,
            given_back_since: 0,
            claim_now: true,
        }
    }

    const fn has_room(&self) -> bool {
        self.in_flight < self.max_in_flight
    }

    /// How many to claim now, if it is time to claim.
    fn claim_limit(&self, batch_size: u32) -> Option<u32> {
        let room = self.max_in_flight.saturating_sub(self.in_flight);
        (self.claim_now && room > 0).then(|| u32::try_from(room).unwrap_or(u32::MAX).min(batch_size))
    }

    /// A claim of up to `limit` found `count`.
    fn claimed(&mut self, count: usize, limit: u32) {
        self.in_flight += count;
        self.last_claim = count;
        self.given_back_since = 0;
        self.claim_now = u32::try_from(count).is_ok_and(|count| count >= limit);
    }

    /// Recordings gave `count` slots back (`woken`: the notifier or the poll fired instead).
    fn given_back(&mut self, count: usize, woken: bool) {
        self.in_flight = self.in_flight.saturating_sub(count);
        self.given_back_since += count;
        self.claim_now =
            woken || (count > 0 && (self.in_flight == 0 || self.given_back_since * 2 >= self.last_claim));
    }
}

/// The recorder of [`webhook_loop`]: records every completion that is in, in one transaction, then answers
/// how many slots that gave back. Ends when every attempt has sent its completion.
async fn record_webhook_outcomes(
    deliver: Arc<DeliverWebhooks>,
    mut arrivals: mpsc::UnboundedReceiver<herald_domain::webhook::DeliveryCompletion>,
    freed: mpsc::UnboundedSender<usize>,
) {
    while let Some(first) = arrivals.recv().await {
        let mut batch = vec![first];
        while let Ok(more) = arrivals.try_recv() {
            batch.push(more);
        }
        let count = batch.len();
        let report = deliver.record_outcomes(batch).await;
        tracing::debug!(?report, "webhook attempts recorded");
        crate::metrics::record_webhooks(&report);
        // The loop may have stopped already; the slots only matter to a loop still claiming.
        let _ = freed.send(count);
    }
}

/// Stored callbacks one pass of the backlog sweep reads.
const BACKLOG_PAGE: u32 = 100;

/// Pages one sweep takes at most: a large backlog (after an outage) is worked off page after page rather
/// than one page per interval, and the sweep still ends now and then to update the parked count.
const BACKLOG_PAGES_PER_SWEEP: usize = 100;

/// One backlog sweep of stored callbacks, logged. The number of parked callbacks is logged whenever it
/// changes (`last_parked` is the count last logged), so an operator sees them pile up without a line every
/// sweep.
///
/// A page that came back full and without a failure is followed at once by the next; a failure ends the
/// sweep, so a callback that fails is tried again at the next interval, not at once.
pub async fn sweep_callbacks(callbacks: &ProcessCallbacks, last_parked: &AtomicU64) {
    let mut swept = BacklogReport::default();
    for _ in 0..BACKLOG_PAGES_PER_SWEEP {
        match callbacks
            .process_backlog(herald_domain::time::Duration::seconds(10), BACKLOG_PAGE)
            .await
        {
            Ok(report) => {
                swept.processed += report.processed;
                swept.failed += report.failed;
                swept.parked += report.parked;
                swept.unreadable += report.unreadable;
                swept.read += report.read;
                if report.failed > 0 || u32::try_from(report.read) != Ok(BACKLOG_PAGE) {
                    break;
                }
            }
            Err(error) => {
                tracing::warn!(%error, "callback backlog sweep failed");
                break;
            }
        }
    }
    // One line a sweep, however many pages it took.
    if swept != BacklogReport::default() {
        crate::metrics::record_backlog(&swept);
        tracing::info!(
            callbacks = swept.processed,
            failed = swept.failed,
            parked = swept.parked + swept.unreadable,
            unreadable = swept.unreadable,
            "processed stored callbacks from the backlog"
        );
    }
    let parked = callbacks.parked_count().await;
    if let Ok(count) = &parked {
        crate::metrics::record_parked(*count);
    }
    match parked {
        Ok(parked) if parked != last_parked.swap(parked, Ordering::Relaxed) => tracing::warn!(
            parked,
            "stored callbacks parked, after failing repeatedly or unreadable (`herald admin callbacks list`)"
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

    /// A loop whose store call failed pauses before trying again, unless the workers stop meanwhile: then
    /// it is told to end at once instead of sleeping out its pause.
    #[tokio::test]
    async fn a_paused_loop_ends_when_the_workers_stop() {
        let (stopping, mut stop) = watch::channel(false);
        stopping.send(true).unwrap();
        assert!(!paused_after_failure(&mut stop).await, "stopped: end the loop");
    }

    /// A webhook loop claims at once at first and after a full batch; after a partial one it waits until
    /// half of it came back (however many recordings that took), or all of it, or it is woken.
    #[test]
    fn a_webhook_loop_claims_again_once_half_its_last_claim_came_back() {
        let mut slots = Slots::new(1_600);
        assert_eq!(slots.claim_limit(100), Some(100), "the first claim is at once");
        slots.claimed(100, 100);
        assert_eq!(slots.claim_limit(100), Some(100), "a full batch: more may be due");
        slots.claimed(16, 100);
        assert_eq!(slots.claim_limit(100), None, "a partial claim waits");
        slots.given_back(7, false);
        assert_eq!(slots.claim_limit(100), None, "7 of 16 back");
        slots.given_back(1, false);
        assert_eq!(slots.claim_limit(100), Some(100), "half of the last claim back");
        slots.claimed(8, 100);
        slots.given_back(3, false);
        assert_eq!(slots.claim_limit(100), None);
        slots.given_back(0, true);
        assert_eq!(
            slots.claim_limit(100),
            Some(100),
            "woken: new deliveries or the poll"
        );
    }

    /// A claim that found nothing waits to be woken or for a recording; the loop never has more than its
    /// most in flight, and claims no more than the room left.
    #[test]
    fn a_webhook_loop_waits_after_an_empty_claim_and_stays_within_its_room() {
        let mut slots = Slots::new(20);
        slots.claimed(0, 20);
        assert_eq!(slots.claim_limit(100), None, "nothing was due");
        slots.given_back(0, true);
        slots.claimed(18, 20);
        slots.given_back(9, false);
        assert_eq!(
            slots.claim_limit(100),
            Some(11),
            "the room left, not the batch size"
        );
        slots.claimed(11, 11);
        assert!(!slots.has_room());
        assert_eq!(
            slots.claim_limit(100),
            None,
            "full: even a full batch waits for room"
        );
        slots.given_back(20, false);
        assert_eq!(slots.claim_limit(100), Some(20), "everything came back");
    }

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
