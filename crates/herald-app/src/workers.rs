//! The background loops of the `worker` role: dispatch, customer webhook delivery, the callback backlog
//! sweep, template sync.

use herald_domain::usecases::{DeliverWebhooks, DispatchMessages, Media, ProcessCallbacks, SyncTemplates};
use herald_media::FsMediaStore;
use herald_store::WorkNotifier;
use std::sync::Arc;
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
}

/// Running loops; stopping lets each finish the round it is in.
pub struct Workers {
    stop: watch::Sender<bool>,
    handles: Vec<JoinHandle<()>>,
}

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
        let (stop, _) = watch::channel(false);
        let mut handles = Vec::new();
        for _ in 0..settings.dispatch_loops.max(1) {
            handles.push(tokio::spawn(dispatch_loop(
                dispatch.clone(),
                notifier.clone(),
                stop.subscribe(),
                settings.poll_interval,
            )));
        }
        for _ in 0..settings.webhook_loops.max(1) {
            handles.push(tokio::spawn(webhook_loop(
                webhooks.clone(),
                webhook_notifier.clone(),
                stop.subscribe(),
                settings.webhook_poll_interval,
                settings.webhook_rounds_per_loop.max(1),
            )));
        }
        handles.push(tokio::spawn(every(
            settings.backlog_interval,
            stop.subscribe(),
            move || {
                let callbacks = callbacks.clone();
                async move {
                    match callbacks
                        .process_backlog(herald_domain::time::Duration::seconds(10), 100)
                        .await
                    {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(callbacks = n, "processed stored callbacks from the backlog"),
                        Err(error) => tracing::warn!(%error, "callback backlog sweep failed"),
                    }
                }
            },
        )));
        handles.push(tokio::spawn(every(
            settings.template_sync_interval,
            stop.subscribe(),
            move || {
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
            },
        )));
        Self { stop, handles }
    }

    /// Adds the media cleanup: every `interval`, expired uploads (30 days) and the bytes nothing points
    /// at any more are deleted, and staging files older than an hour (left by a crash mid-upload) too.
    pub fn spawn_media_cleanup(&mut self, media: Arc<Media>, files: Arc<FsMediaStore>, interval: Duration) {
        self.handles
            .push(tokio::spawn(every(interval, self.stop.subscribe(), move || {
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
            })));
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
) {
    loop {
        if *stop.borrow() {
            return;
        }
        match dispatch.run_once().await {
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
            let result = round.run_once().await;
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
