use super::shared::new_id;
use crate::dispatch::{ClaimToken, ClaimedJob, JobCompletion, JobHistory, JobOutcome};
use crate::ids::{EventId, JobId, MediaId, OrganizationId, SenderId};
use crate::media::{MediaRecord, NETWORK_UPLOAD_REUSE_DAYS, NetworkUpload};
use crate::message::MessageError;
use crate::ports::{
    Clock, IdGenerator, MediaCatalog, MediaStore, MediaUpload, MessagingNetwork, NetworkError,
    NetworkMediaIds, OutboxStore, Pacer, SecretSource, StoreError,
};
use crate::time::{Duration, Timestamp, bounded_delay};
use crate::trace::{NoTraceLinks, TraceLinks, span_following};
use futures::future::Either;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tracing::Instrument as _;

/// Tunables of dispatch.
#[derive(Debug, Clone)]
pub struct DispatchSettings {
    /// Jobs claimed per round.
    pub batch_size: u32,
    /// How long a claim holds a job; longer than the network request timeout plus margin, so a live worker
    /// never loses its job mid-call.
    pub lease: Duration,
    /// After an unknown outcome, how long to wait for a callback carrying the message id before resending.
    pub callback_window: Duration,
    /// How long a job of an inactive organization waits before it is looked at again.
    pub hold: Duration,
    /// First retry delay; doubles per attempt.
    pub base_backoff: Duration,
    pub max_backoff: Duration,
    /// Retry delay while a sender's credentials are broken.
    pub credentials_retry: Duration,
}

impl Default for DispatchSettings {
    fn default() -> Self {
        Self {
            batch_size: 100,
            lease: Duration::seconds(60),
            callback_window: Duration::minutes(5),
            hold: Duration::seconds(30),
            base_backoff: Duration::seconds(2),
            max_backoff: Duration::minutes(10),
            credentials_retry: Duration::minutes(5),
        }
    }
}

/// The ports [`DispatchMessages`] drives.
pub struct DispatchPorts {
    pub outbox: Arc<dyn OutboxStore>,
    pub network: Arc<dyn MessagingNetwork>,
    /// Uploaded files (metadata, and the network uploads already made for each sender).
    pub catalog: Arc<dyn MediaCatalog>,
    /// Uploaded files' bytes, read when a file must be uploaded to the network.
    pub files: Arc<dyn MediaStore>,
    pub pacer: Arc<dyn Pacer>,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
    pub random: Arc<dyn SecretSource>,
}

/// What one round did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DispatchReport {
    pub claimed: usize,
    pub submitted: usize,
    pub retried: usize,
    pub failed: usize,
    pub awaiting_callback: usize,
    pub held: usize,
    pub already_done: usize,
    /// Outcomes not recorded because the claim was lost (its lease expired and another worker took over).
    pub claims_lost: usize,
}

/// How one claimed job's round ended, as [`DispatchReport`] counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DispatchOutcome {
    Submitted,
    Retried,
    Failed,
    AwaitingCallback,
    Held,
    AlreadyDone,
    ClaimLost,
}

impl DispatchOutcome {
    /// The name monitoring gives it (`herald_dispatch_total{outcome}`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Submitted => "submitted",
            Self::Retried => "retried",
            Self::Failed => "failed",
            Self::AwaitingCallback => "awaiting_callback",
            Self::Held => "held",
            Self::AlreadyDone => "already_done",
            Self::ClaimLost => "claim_lost",
        }
    }
}

/// One job of a round, for monitoring: whose it was and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchedJob {
    pub organization_id: OrganizationId,
    pub sender_id: SenderId,
    pub outcome: DispatchOutcome,
    /// For a submission: how long the message waited from its acceptance until the network took it.
    pub accept_to_submitted: Option<Duration>,
}

/// A round's counts and its recorded jobs one by one (a job whose outcome could not be recorded is in
/// neither).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DispatchRound {
    pub report: DispatchReport,
    pub jobs: Vec<DispatchedJob>,
}

/// Sends queued messages to the network (flow 2 of the architecture).
pub struct DispatchMessages {
    ports: DispatchPorts,
    settings: DispatchSettings,
    traces: Arc<dyn TraceLinks>,
}

impl DispatchMessages {
    pub fn new(ports: DispatchPorts, settings: DispatchSettings) -> Self {
        Self {
            ports,
            settings,
            traces: Arc::new(NoTraceLinks),
        }
    }

    /// Makes each message's dispatch (and its network call) a part of the trace that accepted it.
    #[must_use]
    pub fn with_trace_links(mut self, traces: Arc<dyn TraceLinks>) -> Self {
        self.traces = traces;
        self
    }

    pub fn settings(&self) -> &DispatchSettings {
        &self.settings
    }

    /// Claims one batch of due jobs and dispatches them concurrently (each sender paced to its throughput).
    /// Each outcome is recorded as soon as it is in, together with every other one that came in meanwhile
    /// (one store transaction for the outcomes that finish together), and the jobs still being worked on have
    /// their lease renewed every third of it: a job waiting its sender's turn, or a long media transfer,
    /// never loses its claim to another worker, which would send the message a second time.
    ///
    /// # Errors
    /// A store failure while claiming. When outcomes cannot be recorded together they are recorded one by
    /// one, so a failure costs only its own job: that job is reclaimed when its lease expires (and then it
    /// waits for a callback before any resend).
    pub async fn run_once(&self) -> Result<DispatchReport, StoreError> {
        Ok(self.run_round().await?.report)
    }

    /// [`Self::run_once`], answering each recorded job as well as the counts (what the metrics need).
    ///
    /// # Errors
    /// As [`Self::run_once`].
    #[tracing::instrument(name = "dispatch_round", skip_all)]
    pub async fn run_round(&self) -> Result<DispatchRound, StoreError> {
        let token = ClaimToken(self.ports.ids.next_ulid());
        let now = self.ports.clock.now();
        let jobs = self
            .ports
            .outbox
            .claim_jobs(&token, now, now + self.settings.lease, self.settings.batch_size)
            .await?;
        let mut report = DispatchReport {
            claimed: jobs.len(),
            ..DispatchReport::default()
        };
        let outstanding: Mutex<Vec<JobId>> = Mutex::new(jobs.iter().map(|job| job.job_id).collect());
        // What the completion does not carry: the job's sender and its message's acceptance time.
        let origins: std::collections::HashMap<JobId, (SenderId, Timestamp)> = jobs
            .iter()
            .map(|job| (job.job_id, (job.sender.id, job.message.created_at)))
            .collect();
        let mut dispatched = Vec::with_capacity(jobs.len());
        let round = std::pin::pin!(super::shared::record_as_they_come(
            jobs.into_iter().map(|job| {
                let outstanding = &outstanding;
                async move {
                    let completion = self.dispatch_one(token, job).await;
                    lock(outstanding).retain(|id| *id != completion.job_id);
                    completion
                }
            }),
            |batch: Vec<JobCompletion>| async move {
                let answers = self.record(&batch).await;
                batch.into_iter().zip(answers).collect()
            },
        ));
        let renewals = std::pin::pin!(self.renew_leases(token, &outstanding));
        let recorded = match futures::future::select(round, renewals).await {
            Either::Left((recorded, _)) => recorded,
            Either::Right(((), round)) => round.await,
        };
        for (completion, result) in recorded {
            let origin = origins.get(&completion.job_id).copied();
            let mut job = |outcome: DispatchOutcome| {
                if let Some((sender_id, accepted_at)) = origin {
                    dispatched.push(DispatchedJob {
                        organization_id: completion.organization_id,
                        sender_id,
                        outcome,
                        accept_to_submitted: (outcome == DispatchOutcome::Submitted)
                            .then(|| (completion.at - accepted_at).max(Duration::zero())),
                    });
                }
            };
            match result {
                Ok(true) => match completion.outcome {
                    JobOutcome::Submitted { .. } => {
                        report.submitted += 1;
                        job(DispatchOutcome::Submitted);
                    }
                    JobOutcome::Retry { .. } => {
                        report.retried += 1;
                        job(DispatchOutcome::Retried);
                    }
                    JobOutcome::Failed { .. } => {
                        report.failed += 1;
                        job(DispatchOutcome::Failed);
                    }
                    JobOutcome::AwaitCallback { .. } => {
                        report.awaiting_callback += 1;
                        job(DispatchOutcome::AwaitingCallback);
                    }
                    JobOutcome::Hold { .. } => {
                        report.held += 1;
                        job(DispatchOutcome::Held);
                    }
                    JobOutcome::AlreadyDone => {
                        report.already_done += 1;
                        job(DispatchOutcome::AlreadyDone);
                    }
                },
                Ok(false) => {
                    tracing::warn!(job = %completion.job_id, "claim lost before the outcome was recorded");
                    report.claims_lost += 1;
                    job(DispatchOutcome::ClaimLost);
                }
                Err(error) => {
                    tracing::warn!(
                        %error,
                        job = %completion.job_id,
                        "could not record a dispatch outcome; the job will be reclaimed"
                    );
                }
            }
        }
        Ok(DispatchRound {
            report,
            jobs: dispatched,
        })
    }

    /// Each sender's jobs not done yet and when the oldest due one became due, with the time they were read
    /// at (the ages are measured from it).
    ///
    /// # Errors
    /// A store failure.
    pub async fn backlog(&self) -> Result<(Timestamp, Vec<crate::dispatch::SenderBacklog>), StoreError> {
        let now = self.ports.clock.now();
        Ok((now, self.ports.outbox.backlog(now).await?))
    }

    /// Every third of the lease, extends the lease of the round's jobs that have no outcome yet; returns
    /// once none is left. A renewal that fails is tried again at the next tick (two more before the lease
    /// would lapse).
    async fn renew_leases(&self, token: ClaimToken, outstanding: &Mutex<Vec<JobId>>) {
        let every = (self.settings.lease / 3)
            .to_std()
            .unwrap_or_default()
            .max(std::time::Duration::from_millis(10));
        loop {
            futures_timer::Delay::new(every).await;
            let jobs = lock(outstanding).clone();
            if jobs.is_empty() {
                return;
            }
            let lease_until = self.ports.clock.now() + self.settings.lease;
            match self.ports.outbox.renew_jobs(&token, &jobs, lease_until).await {
                Ok(held) if held < jobs.len() => tracing::warn!(
                    renewed = held,
                    asked = jobs.len(),
                    "some dispatch claims were lost before their lease was renewed"
                ),
                Ok(_) => {}
                Err(error) => tracing::warn!(%error, "could not renew the lease of a dispatch round's jobs"),
            }
        }
    }

    /// Records a round's completions in one transaction (one commit per round rather than per job), or one
    /// by one when that fails.
    async fn record(&self, completions: &[JobCompletion]) -> Vec<Result<bool, StoreError>> {
        super::shared::record_completions(
            completions,
            |all| self.ports.outbox.complete_jobs(all),
            |one| self.ports.outbox.complete_job(one),
        )
        .await
    }

    /// Decides one claimed job's outcome (sending it when it is due a send) and returns the completion to
    /// record under the round's `token`.
    async fn dispatch_one(&self, token: ClaimToken, job: ClaimedJob) -> JobCompletion {
        let span = span_following(
            self.traces.as_ref(),
            tracing::info_span!("dispatch_message", message_id = %job.message.id, attempt = job.attempts),
            job.trace.as_ref(),
        );
        let outcome = self.decide(&job).instrument(span).await;
        JobCompletion {
            job_id: job.job_id,
            organization_id: job.organization_id,
            message_id: job.message.id,
            token,
            outcome,
            at: self.ports.clock.now(),
            event_id: new_id(self.ports.ids.as_ref(), EventId::from_ulid),
            customer_event_id: new_id(self.ports.ids.as_ref(), EventId::from_ulid),
        }
    }

    async fn decide(&self, job: &ClaimedJob) -> JobOutcome {
        let now = self.ports.clock.now();
        // A scheduled message is claimed only at its `send_at` (the job's `available_at`).
        if !job.message.status.is_undispatched() {
            return JobOutcome::AlreadyDone;
        }
        if !job.account_status.is_active() {
            return JobOutcome::Hold {
                until: now + self.settings.hold,
            };
        }
        if now >= job.deadline {
            return JobOutcome::Failed {
                error: expired(job, "no attempt succeeded in time"),
            };
        }
        if job.history == JobHistory::Reclaimed {
            // The previous worker may have reached the network before it died: resending now could deliver
            // twice. A callback carrying the message id will settle it; only silence leads to a resend.
            return JobOutcome::AwaitCallback {
                until: now + self.settings.callback_window,
                detail: "the previous attempt's outcome is unknown (its worker stopped)".into(),
            };
        }
        let result = match self.network_media(job, now).await {
            Ok(media) => {
                self.ports.pacer.wait_turn(&job.sender).await;
                self.ports
                    .network
                    .send(&job.sender, &job.message, &media)
                    .instrument(tracing::info_span!("network_send", message_id = %job.message.id))
                    .await
            }
            Err(error) => Err(error),
        };
        let now = self.ports.clock.now();
        let retry = |at: Timestamp, error: String| {
            if at >= job.deadline {
                JobOutcome::Failed {
                    error: expired(job, &error),
                }
            } else {
                JobOutcome::Retry { at, error }
            }
        };
        match result {
            Ok(receipt) => JobOutcome::Submitted {
                network_message_id: receipt.network_message_id,
                route: receipt.route,
            },
            Err(NetworkError::Retryable {
                retry_after, detail, ..
            }) => {
                // The network's wait is held to the longest delay, so no header can overflow `now + delay`.
                let delay = self
                    .backoff(job.attempts)
                    .max(bounded_delay(retry_after.unwrap_or_default()));
                retry(now + delay, detail)
            }
            Err(NetworkError::Throttled {
                retry_after, detail, ..
            }) => {
                let pause = bounded_delay(retry_after.unwrap_or_else(|| Duration::seconds(1)));
                self.ports.pacer.slow_down(&job.sender, pause);
                retry(now + pause, detail)
            }
            Err(NetworkError::Permanent(error)) => JobOutcome::Failed { error },
            Err(NetworkError::Credentials { detail, .. }) => {
                retry(now + self.settings.credentials_retry, detail)
            }
            Err(NetworkError::OutcomeUnknown { detail }) => JobOutcome::AwaitCallback {
                until: now + self.settings.callback_window,
                detail,
            },
        }
    }

    /// The network's ids of the message's stored files (a file message's, a template header's, a
    /// carousel's card headers'): an earlier upload of the same bytes for this sender while the network
    /// still keeps it, or a fresh upload. Errors are classified as a send's, except that an upload's
    /// unknown outcome is simply retried (no callback will ever settle it, and a second upload only costs
    /// bandwidth).
    async fn network_media(
        &self,
        job: &crate::dispatch::ClaimedJob,
        now: Timestamp,
    ) -> Result<NetworkMediaIds, NetworkError> {
        let mut ids = NetworkMediaIds::new();
        for (_, attachment) in job.message.content.attachments() {
            if let crate::attachment::MediaSource::Stored(media_id) = attachment.source
                && !ids.contains_key(&media_id)
            {
                let network_id = self.network_upload_of(job, media_id, now).await?;
                ids.insert(media_id, network_id);
            }
        }
        Ok(ids)
    }

    async fn network_upload_of(
        &self,
        job: &crate::dispatch::ClaimedJob,
        media_id: MediaId,
        now: Timestamp,
    ) -> Result<String, NetworkError> {
        let store_failed = |error: StoreError| NetworkError::Retryable {
            code: None,
            detail: format!("media store: {error}"),
            retry_after: None,
        };
        let file = match self
            .ports
            .catalog
            .media(&job.organization_id, &media_id)
            .await
            .map_err(store_failed)?
        {
            Some(MediaRecord::Uploaded(file)) => file,
            _ => return Err(media_unavailable(media_id, "the upload was deleted")),
        };
        if let Some(network_id) = self
            .ports
            .catalog
            .network_upload(&job.organization_id, &job.sender.id, &file.sha256, now)
            .await
            .map_err(store_failed)?
        {
            return Ok(network_id);
        }
        let handle = self
            .ports
            .files
            .open(&file.sha256)
            .await
            .map_err(|error| store_failed(StoreError::Unavailable(error.to_string())))?
            .ok_or_else(|| media_unavailable(media_id, "its bytes are missing from the media store"))?;
        let upload = MediaUpload {
            file: handle,
            size: file.size,
            mime_type: file.mime_type.clone(),
            filename: file
                .filename
                .as_ref()
                .map_or_else(|| format!("{media_id}"), |name| name.as_str().to_owned()),
        };
        let network_id = match self.ports.network.upload_media(&job.sender, upload).await {
            Ok(network_id) => network_id,
            Err(NetworkError::OutcomeUnknown { detail }) => {
                return Err(NetworkError::Retryable {
                    code: None,
                    detail: format!("media upload: {detail}"),
                    retry_after: None,
                });
            }
            Err(error) => return Err(error),
        };
        let record = NetworkUpload {
            organization_id: job.organization_id,
            sender_id: job.sender.id,
            sha256: file.sha256,
            network_media_id: network_id.clone(),
            uploaded_at: now,
            reuse_until: now + Duration::days(NETWORK_UPLOAD_REUSE_DAYS),
        };
        if let Err(error) = self.ports.catalog.record_network_upload(&record).await {
            // The send can still go; the next one of these bytes just uploads them again.
            tracing::warn!(%error, media = %media_id, "could not remember a network upload");
        }
        Ok(network_id)
    }

    /// Exponential backoff with ±20 % jitter, so retries of many messages do not arrive together.
    fn backoff(&self, attempts: u32) -> Duration {
        let exponent = attempts.saturating_sub(1).min(20);
        let base = self.settings.base_backoff * 2_i32.saturating_pow(exponent);
        let capped = base.min(self.settings.max_backoff);
        let mut byte = [0_u8; 1];
        self.ports.random.fill(&mut byte);
        // 0..=255 → 0.8..=1.2
        let factor_permille = 800 + i64::from(byte[0]) * 400 / 255;
        Duration::milliseconds(capped.num_milliseconds() * factor_permille / 1000)
    }
}

/// The round's list of jobs without an outcome; a panic elsewhere cannot leave it inconsistent (each change is
/// one `retain`), so a poisoned lock is still usable.
fn lock(outstanding: &Mutex<Vec<JobId>>) -> MutexGuard<'_, Vec<JobId>> {
    outstanding.lock().unwrap_or_else(PoisonError::into_inner)
}

fn media_unavailable(media_id: MediaId, why: &str) -> NetworkError {
    NetworkError::Permanent(MessageError {
        code: "media_unavailable".into(),
        title: "The media file is not available".into(),
        detail: format!("{media_id} cannot be sent: {why}"),
        network_code: None,
    })
}

fn expired(job: &ClaimedJob, last_error: &str) -> MessageError {
    MessageError {
        code: "delivery_expired".into(),
        title: "Delivery deadline passed".into(),
        detail: format!(
            "the network did not take the message before {} ({} attempts; last: {last_error})",
            job.deadline.to_rfc3339(),
            job.attempts
        ),
        network_code: None,
    }
}
