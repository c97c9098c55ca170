//! The background loops of the `worker` role: dispatch, the callback backlog sweep, template sync.

use herald_domain::usecases::{DispatchMessages, ProcessCallbacks, SyncTemplates};
use herald_store::WorkNotifier;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How the loops run.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// Concurrent dispatch loops in this process.
    pub dispatch_loops: usize,
    /// Longest sleep between dispatch rounds when nothing wakes the loop.
    pub poll_interval: Duration,
    pub backlog_interval: Duration,
    pub template_sync_interval: Duration,
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
        notifier: WorkNotifier,
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
    let batch = dispatch.settings().batch_size as usize;
    loop {
        if *stop.borrow() {
            return;
        }
        match dispatch.run_once().await {
            // A full batch means more may be waiting: go again at once.
            Ok(report) if report.claimed >= batch => continue,
            Ok(report) => {
                if report.claimed > 0 {
                    tracing::debug!(?report, "dispatch round");
                }
            }
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
