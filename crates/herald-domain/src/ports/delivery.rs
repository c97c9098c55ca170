//! Delivering customer events: the destination rules and one signed attempt.

use crate::ids::EventId;
use crate::webhook::{AttemptReport, WebhookUrl};
use async_trait::async_trait;

/// Whether a URL may be delivered to (scheme and SSRF rules). Adapter: `herald-webhooks`' destination policy.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait DestinationChecker: Send + Sync + 'static {
    /// # Errors
    /// Why the URL is refused, in words for the client.
    async fn check(&self, url: &WebhookUrl) -> Result<(), String>;
}

/// Sends one signed attempt and applies the retry schedule. Adapter: `herald-webhooks`' deliverer.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait WebhookTransport: Send + Sync + 'static {
    /// Posts `payload` to `url` signed with every secret in `secrets` (`whsec_…` text), with `webhook-id` =
    /// `event_id`, and reports the attempt. A destination refused by the SSRF rules is an attempt with
    /// error kind `blocked_destination`, never a connection.
    async fn attempt(
        &self,
        url: &WebhookUrl,
        event_id: &EventId,
        payload: &str,
        secrets: &[String],
        attempt_number: u32,
    ) -> AttemptReport;
}
