use super::new_id;
use crate::dispatch::{ClaimToken, ClaimedJob, JobCompletion, JobHistory, JobOutcome};
use crate::ids::EventId;
use crate::message::{MessageError, MessageStatus};
use crate::network::{MessagingNetwork, NetworkError};
use crate::ports::{Clock, IdGenerator, OutboxStore, Pacer, SecretSource, StoreError};
use crate::time::{Duration, Timestamp};
use std::sync::Arc;

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

/// Sends queued messages to the network (flow 2 of the architecture).
pub struct DispatchMessages {
    ports: DispatchPorts,
    settings: DispatchSettings,
}

impl DispatchMessages {
    pub fn new(ports: DispatchPorts, settings: DispatchSettings) -> Self {
        Self { ports, settings }
    }

    pub fn settings(&self) -> &DispatchSettings {
        &self.settings
    }

    /// Claims one batch of due jobs, dispatches them concurrently (each sender paced to its throughput), and
    /// records every outcome.
    ///
    /// # Errors
    /// A store failure while claiming. A failure while recording one job's outcome leaves that job to be
    /// reclaimed when its lease expires (and then it waits for a callback before any resend).
    #[tracing::instrument(name = "dispatch_round", skip_all)]
    pub async fn run_once(&self) -> Result<DispatchReport, StoreError> {
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
        let results =
            futures::future::join_all(jobs.into_iter().map(|job| self.dispatch_one(token, job))).await;
        for result in results {
            match result {
                Ok(Some(outcome)) => match outcome {
                    JobOutcome::Submitted { .. } => report.submitted += 1,
                    JobOutcome::Retry { .. } => report.retried += 1,
                    JobOutcome::Failed { .. } => report.failed += 1,
                    JobOutcome::AwaitCallback { .. } => report.awaiting_callback += 1,
                    JobOutcome::Hold { .. } => report.held += 1,
                    JobOutcome::AlreadyDone => report.already_done += 1,
                },
                Ok(None) => report.claims_lost += 1,
                Err(error) => {
                    tracing::warn!(%error, "could not record a dispatch outcome; the job will be reclaimed");
                }
            }
        }
        Ok(report)
    }

    /// `Ok(None)` when the claim was lost before the outcome could be recorded.
    async fn dispatch_one(
        &self,
        token: ClaimToken,
        job: ClaimedJob,
    ) -> Result<Option<JobOutcome>, StoreError> {
        let outcome = self.decide(&job).await;
        let completion = JobCompletion {
            job_id: job.job_id,
            organization_id: job.organization_id,
            message_id: job.message.id,
            token,
            outcome,
            at: self.ports.clock.now(),
            event_id: new_id(self.ports.ids.as_ref(), EventId::from_ulid),
            customer_event_id: new_id(self.ports.ids.as_ref(), EventId::from_ulid),
        };
        let held = self.ports.outbox.complete_job(&completion).await?;
        if !held {
            tracing::warn!(job = %job.job_id, "claim lost before the outcome was recorded");
        }
        Ok(held.then_some(completion.outcome))
    }

    async fn decide(&self, job: &ClaimedJob) -> JobOutcome {
        let now = self.ports.clock.now();
        if job.message.status != MessageStatus::Accepted {
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
        self.ports.pacer.wait_turn(&job.sender).await;
        let result = self.ports.network.send(&job.sender, &job.message).await;
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
            },
            Err(NetworkError::Retryable {
                retry_after, detail, ..
            }) => {
                let delay = self.backoff(job.attempts).max(retry_after.unwrap_or_default());
                retry(now + delay, detail)
            }
            Err(NetworkError::Throttled {
                retry_after, detail, ..
            }) => {
                let pause = retry_after.unwrap_or_else(|| Duration::seconds(1));
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
