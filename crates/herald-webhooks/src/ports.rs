//! This crate behind the domain's ports: the destination rules as its `DestinationChecker`, and one signed
//! attempt with the retry schedule applied as its `WebhookTransport`.

use crate::delivery::{AttemptErrorKind, AttemptOutcome, Deliverer, DelivererBuildError, DeliveryTimeouts};
use crate::destination::DestinationPolicy;
use crate::schedule::{MAX_JITTER, next_attempt};
use crate::signing::WebhookSecret;
use async_trait::async_trait;
use herald_domain::ids::EventId;
use herald_domain::ports::{DestinationChecker, WebhookTransport};
use herald_domain::time::Duration;
use herald_domain::webhook::{AttemptReport, DeliveryAttempt, WebhookUrl};
use rand::Rng as _;

/// The scheme and SSRF rules at registration (and on a changed URL).
pub struct WebhookDestinations {
    policy: DestinationPolicy,
}

impl WebhookDestinations {
    pub fn new(policy: DestinationPolicy) -> Self {
        Self { policy }
    }
}

#[async_trait]
impl DestinationChecker for WebhookDestinations {
    async fn check(&self, url: &WebhookUrl) -> Result<(), String> {
        self.policy
            .check_url(url.as_str())
            .await
            .map(|_| ())
            .map_err(|refused| refused.to_string())
    }
}

/// One signed delivery attempt, and the retry schedule applied to its outcome.
pub struct WebhookSender {
    deliverer: Deliverer,
    retry_scale: f64,
}

impl WebhookSender {
    /// # Errors
    /// When the HTTP client cannot be built.
    /// `retry_scale` (0 < scale ≤ 1) multiplies every wait of the schedule (`webhook_retry_scale`).
    pub fn new(
        policy: DestinationPolicy,
        timeout: std::time::Duration,
        retry_scale: f64,
    ) -> Result<Self, DelivererBuildError> {
        let timeouts = DeliveryTimeouts {
            total: timeout,
            connect: DeliveryTimeouts::default().connect.min(timeout),
        };
        Ok(Self {
            deliverer: Deliverer::new(policy, timeouts)?,
            retry_scale,
        })
    }
}

#[async_trait]
impl WebhookTransport for WebhookSender {
    async fn attempt(
        &self,
        url: &WebhookUrl,
        event_id: &EventId,
        payload: &str,
        secrets: &[String],
        attempt_number: u32,
    ) -> AttemptReport {
        let keys: Vec<WebhookSecret> = secrets
            .iter()
            .filter_map(|text| match WebhookSecret::parse(text) {
                Ok(secret) => Some(secret),
                Err(error) => {
                    // The reason names a rule, never the secret.
                    tracing::error!(%error, "a stored webhook secret does not parse; it cannot sign");
                    None
                }
            })
            .collect();
        let keys: Vec<&WebhookSecret> = keys.iter().collect();
        let at = chrono::Utc::now();
        let outcome = self
            .deliverer
            .check_and_deliver(
                url.as_str(),
                &event_id.to_string(),
                at.timestamp(),
                payload.as_bytes(),
                &keys,
            )
            .await;
        let jitter = rand::rng().random_range(-MAX_JITTER..=MAX_JITTER);
        report(attempt_number, at, &outcome, jitter, self.retry_scale)
    }
}

/// The domain's view of an attempt.
fn report(
    attempt_number: u32,
    at: herald_domain::Timestamp,
    outcome: &AttemptOutcome,
    jitter: f64,
    retry_scale: f64,
) -> AttemptReport {
    let retry_in = next_attempt(attempt_number, outcome, jitter)
        .map(|wait| wait.mul_f64(retry_scale.clamp(f64::MIN_POSITIVE, 1.0)))
        .map(|wait| Duration::from_std(wait).unwrap_or(Duration::MAX));
    AttemptReport {
        attempt: DeliveryAttempt {
            number: attempt_number,
            at,
            status_code: outcome.status,
            response_prefix: outcome.body_prefix.clone(),
            error_kind: outcome
                .error_kind
                .map(|kind| AttemptErrorKind::as_str(kind).to_owned()),
            duration_ms: u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX),
        },
        succeeded: outcome.succeeded,
        retry_in,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(status: Option<u16>, kind: Option<AttemptErrorKind>) -> AttemptOutcome {
        AttemptOutcome {
            status,
            body_prefix: "body".into(),
            error_kind: kind,
            error_detail: None,
            retry_after: None,
            succeeded: kind.is_none(),
            duration: std::time::Duration::from_millis(42),
        }
    }

    #[test]
    fn outcomes_map_to_reports_with_the_schedule() {
        let at = chrono::Utc::now();
        let ok = report(1, at, &outcome(Some(204), None), 0.0, 1.0);
        assert!(ok.succeeded);
        assert_eq!(ok.retry_in, None);
        assert_eq!(ok.attempt.error_kind, None);
        assert_eq!(ok.attempt.duration_ms, 42);
        assert_eq!(ok.attempt.status_code, Some(204));

        let failed = report(
            1,
            at,
            &outcome(Some(500), Some(AttemptErrorKind::HttpStatus)),
            0.0,
            1.0,
        );
        assert!(!failed.succeeded);
        assert_eq!(
            failed.retry_in,
            Some(Duration::seconds(5)),
            "attempt 2 comes 5 s later"
        );
        assert_eq!(failed.attempt.error_kind.as_deref(), Some("http_status"));
        assert_eq!(failed.attempt.response_prefix, "body");

        let jittered = report(
            2,
            at,
            &outcome(Some(500), Some(AttemptErrorKind::HttpStatus)),
            0.2,
            1.0,
        );
        assert_eq!(jittered.retry_in, Some(Duration::seconds(360)), "5 min + 20 %");

        let blocked = report(
            3,
            at,
            &outcome(None, Some(AttemptErrorKind::BlockedDestination)),
            0.0,
            1.0,
        );
        assert_eq!(blocked.attempt.error_kind.as_deref(), Some("blocked_destination"));
        assert_eq!(blocked.attempt.status_code, None);

        let last = report(
            8,
            at,
            &outcome(Some(500), Some(AttemptErrorKind::HttpStatus)),
            0.0,
            1.0,
        );
        assert_eq!(last.retry_in, None, "the schedule ends after attempt 8");

        let compressed = report(
            3,
            at,
            &outcome(Some(500), Some(AttemptErrorKind::HttpStatus)),
            0.0,
            0.01,
        );
        assert_eq!(
            compressed.retry_in,
            Some(Duration::seconds(18)),
            "30 min scaled by 0.01"
        );
    }

    #[tokio::test]
    async fn destinations_follow_the_policy() {
        let strict = WebhookDestinations::new(DestinationPolicy::default());
        let url = |u: &str| WebhookUrl::parse(u).unwrap();
        let refused = strict.check(&url("http://127.0.0.1:9/x")).await.unwrap_err();
        assert!(refused.contains("https"), "{refused}");
        let refused = strict.check(&url("https://127.0.0.1/x")).await.unwrap_err();
        assert!(refused.contains("is not a public address"), "{refused}");
        let relaxed = WebhookDestinations::new(DestinationPolicy {
            allow_insecure: true,
            allow_private: true,
        });
        relaxed.check(&url("http://127.0.0.1:9/x")).await.unwrap();
    }
}
