//! Delivering customer events to their webhook endpoints (flow 4).

use crate::dispatch::ClaimToken;
use crate::ports::{
    Clock, IdGenerator, SealContext, SecretSealer, StoreError, WebhookStore, WebhookTransport,
};
use crate::time::Duration;
use crate::trace::{NoTraceLinks, TraceLinks, span_following};
use crate::webhook::{ClaimedDelivery, DeliveryCompletion, DeliveryStatus};
use std::sync::Arc;
use tracing::Instrument as _;

/// Tunables of [`DeliverWebhooks`].
#[derive(Debug, Clone)]
pub struct DeliverySettings {
    pub batch_size: u32,
    /// Longer than the 15 s request timeout plus margin.
    pub lease: Duration,
    /// Most deliveries in flight to one endpoint.
    pub per_endpoint_cap: u32,
    /// An endpoint failing every attempt for this long is disabled.
    pub disable_after: Duration,
}

impl Default for DeliverySettings {
    fn default() -> Self {
        Self {
            batch_size: 100,
            lease: Duration::seconds(60),
            per_endpoint_cap: 4,
            disable_after: Duration::days(5),
        }
    }
}

/// What one delivery round did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeliveryReport {
    pub claimed: usize,
    pub succeeded: usize,
    pub retrying: usize,
    pub failed: usize,
    pub endpoints_disabled: usize,
    pub claims_lost: usize,
}

/// A round's counts, and how long each delivery it attempted for the first time had waited since its event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeliveryRound {
    pub report: DeliveryReport,
    pub first_attempt_lags: Vec<Duration>,
}

/// Deliveries leased under one token by [`DeliverWebhooks::claim`].
#[derive(Debug)]
pub struct DeliveryClaim {
    pub token: ClaimToken,
    pub deliveries: Vec<ClaimedDelivery>,
    /// How long each delivery attempted for the first time had waited since its event.
    pub first_attempt_lags: Vec<Duration>,
}

/// Counts one completion's recording in `report`; a failure to record is logged (the delivery is reclaimed
/// when its lease expires: at-least-once delivery).
fn tally(report: &mut DeliveryReport, completion: &DeliveryCompletion, recorded: Result<bool, StoreError>) {
    match recorded {
        Ok(true) => {
            match completion.status {
                DeliveryStatus::Succeeded => report.succeeded += 1,
                DeliveryStatus::Failed => report.failed += 1,
                _ => report.retrying += 1,
            }
            report.endpoints_disabled += usize::from(completion.disable_reason.is_some());
        }
        Ok(false) => report.claims_lost += 1,
        Err(error) => {
            tracing::warn!(
                %error,
                delivery = %completion.delivery_id,
                "could not record a webhook attempt; it will be reclaimed"
            )
        }
    }
}

/// The webhook dispatcher (flow 4): claims due deliveries and attempts them concurrently.
pub struct DeliverWebhooks {
    webhooks: Arc<dyn WebhookStore>,
    transport: Arc<dyn WebhookTransport>,
    sealer: Arc<dyn SecretSealer>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    settings: DeliverySettings,
    traces: Arc<dyn TraceLinks>,
}

impl DeliverWebhooks {
    pub fn new(
        webhooks: Arc<dyn WebhookStore>,
        transport: Arc<dyn WebhookTransport>,
        sealer: Arc<dyn SecretSealer>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        settings: DeliverySettings,
    ) -> Self {
        Self {
            webhooks,
            transport,
            sealer,
            clock,
            ids,
            settings,
            traces: Arc::new(NoTraceLinks),
        }
    }

    /// Makes each delivery attempt of a message's event a part of the trace that accepted the message.
    #[must_use]
    pub fn with_trace_links(mut self, traces: Arc<dyn TraceLinks>) -> Self {
        self.traces = traces;
        self
    }

    pub fn settings(&self) -> &DeliverySettings {
        &self.settings
    }

    /// One round.
    ///
    /// # Errors
    /// A store failure while claiming; a failure recording one outcome leaves that delivery to be reclaimed
    /// when its lease expires (at-least-once delivery).
    pub async fn run_once(&self) -> Result<DeliveryReport, StoreError> {
        Ok(self.run_round().await?.report)
    }

    /// How many deliveries are pending, every organization's.
    ///
    /// # Errors
    /// A store failure.
    pub async fn pending(&self) -> Result<u64, StoreError> {
        self.webhooks.count_pending_deliveries().await
    }

    /// [`Self::run_once`], answering the first attempts' lags as well (what the metrics need).
    ///
    /// # Errors
    /// As [`Self::run_once`].
    #[tracing::instrument(name = "webhook_round", skip_all)]
    pub async fn run_round(&self) -> Result<DeliveryRound, StoreError> {
        let claim = self.claim(self.settings.batch_size).await?;
        let mut report = DeliveryReport {
            claimed: claim.deliveries.len(),
            ..DeliveryReport::default()
        };
        // Each attempt's completion is recorded as soon as it is in, together with every other one that
        // came in meanwhile: a slow endpoint never holds a quick one's leases (which count against its
        // in-flight cap) until the round ends.
        let token = claim.token;
        let recorded = super::shared::record_as_they_come(
            claim
                .deliveries
                .into_iter()
                .map(|delivery| self.attempt_traced(token, delivery)),
            |batch: Vec<DeliveryCompletion>| async move {
                let answers = self.record(&batch).await;
                batch.into_iter().zip(answers).collect()
            },
        )
        .await;
        for (completion, recorded) in recorded {
            tally(&mut report, &completion, recorded);
        }
        Ok(DeliveryRound {
            report,
            first_attempt_lags: claim.first_attempt_lags,
        })
    }

    /// Leases up to `limit` due deliveries (within each endpoint's in-flight cap) under a new token. The
    /// pieces of a round, for a worker that keeps attempts flowing instead of running rounds: claim, attempt
    /// each ([`Self::attempt_traced`]), record what came back ([`Self::record_outcomes`]).
    ///
    /// # Errors
    /// A store failure.
    #[tracing::instrument(name = "webhook_claim", skip_all)]
    pub async fn claim(&self, limit: u32) -> Result<DeliveryClaim, StoreError> {
        let token = ClaimToken(self.ids.next_ulid());
        let now = self.clock.now();
        let deliveries = self
            .webhooks
            .claim_deliveries(
                &token,
                now,
                now + self.settings.lease,
                limit,
                self.settings.per_endpoint_cap,
            )
            .await?;
        // Measured at the claim, which the attempt follows at once.
        let first_attempt_lags = deliveries
            .iter()
            .filter(|delivery| delivery.attempt_number == 1)
            .map(|delivery| (now - delivery.created_at).max(Duration::zero()))
            .collect();
        Ok(DeliveryClaim {
            token,
            deliveries,
            first_attempt_lags,
        })
    }

    /// Attempts one claimed delivery inside its own span (part of the trace that accepted its message), and
    /// answers the completion to record under the claim's `token`.
    pub fn attempt_traced(
        &self,
        token: ClaimToken,
        delivery: ClaimedDelivery,
    ) -> impl std::future::Future<Output = DeliveryCompletion> + Send + '_ {
        let span = span_following(
            self.traces.as_ref(),
            tracing::info_span!(
                "webhook_delivery",
                delivery_id = %delivery.delivery_id,
                event_type = delivery.event_type.as_str(),
                attempt = delivery.attempt_number,
            ),
            delivery.trace.as_ref(),
        );
        self.attempt(token, delivery).instrument(span)
    }

    /// Records completions (of any claims) in one transaction, or one by one when that fails, and counts
    /// what they did. `claimed` stays 0: the claims were counted by whoever made them.
    pub async fn record_outcomes(&self, completions: Vec<DeliveryCompletion>) -> DeliveryReport {
        let answers = self.record(&completions).await;
        let mut report = DeliveryReport::default();
        for (completion, recorded) in completions.iter().zip(answers) {
            tally(&mut report, completion, recorded);
        }
        report
    }

    /// Records completions in one transaction (one commit for them all rather than one each), or one by one
    /// when that fails.
    async fn record(&self, completions: &[DeliveryCompletion]) -> Vec<Result<bool, StoreError>> {
        super::shared::record_completions(
            completions,
            |all| self.webhooks.complete_deliveries(all),
            |one| self.webhooks.complete_delivery(one),
        )
        .await
    }

    /// Attempts one claimed delivery and returns the completion to record under the round's `token`.
    async fn attempt(&self, token: ClaimToken, delivery: ClaimedDelivery) -> DeliveryCompletion {
        let endpoint = &delivery.endpoint;
        let started = self.clock.now();
        let mut secrets = Vec::new();
        let mut sealed = vec![&endpoint.secret];
        if let (Some(previous), Some(until)) =
            (&endpoint.previous_secret, endpoint.previous_secret_expires_at)
            && until > started
        {
            sealed.push(previous);
        }
        let context = SealContext::webhook(&endpoint.id);
        for secret in sealed {
            match self.sealer.open(&context, secret.as_bytes()) {
                Ok(opened) => secrets.push(opened.text),
                Err(error) => {
                    tracing::error!(%error, endpoint = %endpoint.id, "cannot open a webhook secret")
                }
            }
        }
        let report = self
            .transport
            .attempt(
                &endpoint.url,
                &delivery.event_id,
                &delivery.payload,
                &secrets,
                delivery.attempt_number,
            )
            .await;
        let now = self.clock.now();
        let (status, next_attempt_at) = if report.succeeded {
            (DeliveryStatus::Succeeded, None)
        } else {
            match report.retry_in {
                Some(delay) => (DeliveryStatus::Pending, Some(now + delay)),
                None => (DeliveryStatus::Failed, None),
            }
        };
        let failing_since = if report.succeeded {
            None
        } else {
            Some(endpoint.failing_since.unwrap_or(started))
        };
        let disable_reason = failing_since
            .filter(|since| now - *since >= self.settings.disable_after)
            .map(|since| {
                format!(
                    "disabled by Herald: every delivery attempt failed since {} (last: {})",
                    since.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                    report.attempt.error_kind.as_deref().unwrap_or("http_status")
                )
            });
        DeliveryCompletion {
            delivery_id: delivery.delivery_id,
            token,
            attempt: report.attempt,
            status,
            next_attempt_at,
            failing_since,
            disable_reason,
        }
    }
}
