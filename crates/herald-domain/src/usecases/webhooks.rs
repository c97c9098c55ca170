use super::shared::new_id;
use crate::error::ValidationErrors;
use crate::ids::{DeliveryId, EventId, OrganizationId, WebhookId};
use crate::organization::{Plan, SealedSecret};
use crate::ports::{
    Clock, DestinationChecker, IdGenerator, SealContext, SecretSealer, SecretSource, StoreError, WebhookStore,
};
use crate::time::{Duration, Timestamp};
use crate::webhook::{Delivery, DeliveryStatus, EventSelection, TestEvent, WebhookEndpoint, WebhookUrl};
use std::sync::Arc;

/// Why a webhook operation was refused.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// No such endpoint or delivery for this organization.
    #[error("not found")]
    NotFound,
    #[error("the plan allows {limit} webhook endpoints")]
    PlanForbids { limit: u32 },
    #[error("validation failed: {0}")]
    Invalid(ValidationErrors),
    /// The endpoint already has `limit` test events waiting to be delivered.
    #[error("{limit} test events are already waiting for this endpoint")]
    TestsPending { limit: u32 },
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for WebhookError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::NotFound => Self::NotFound,
            other => Self::Store(other),
        }
    }
}

/// How many `webhook.test` events may wait for delivery to one endpoint at once, unless configured.
pub const DEFAULT_MAX_PENDING_TESTS: u32 = 5;

/// The longest description an endpoint takes, in characters.
pub const DESCRIPTION_MAX_CHARS: usize = 500;

/// An endpoint's description: at most [`DESCRIPTION_MAX_CHARS`] characters, no control characters but
/// line breaks and tabs. Checked here so the API, the dashboard and any other caller refuse alike.
///
/// # Errors
/// [`WebhookError::Invalid`] on `description`.
pub fn check_description(description: Option<&str>) -> Result<(), WebhookError> {
    let Some(description) = description else {
        return Ok(());
    };
    let count = description.chars().count();
    let problem = if count > DESCRIPTION_MAX_CHARS {
        Some(format!(
            "must be at most {DESCRIPTION_MAX_CHARS} characters, got {count}"
        ))
    } else {
        crate::values::no_control_characters(description, "description", true)
            .err()
            .map(|e| e.to_string())
    };
    match problem {
        Some(message) => Err(WebhookError::Invalid(ValidationErrors::single(
            "description",
            message,
        ))),
        None => Ok(()),
    }
}

pub use crate::webhook::EndpointPatch;

/// How long the secret before a rotation keeps signing.
fn rotation_overlap() -> Duration {
    Duration::hours(24)
}

/// Endpoint management (docs/api.md §9), for the API and the dashboard.
pub struct ManageWebhooks {
    webhooks: Arc<dyn WebhookStore>,
    destinations: Arc<dyn DestinationChecker>,
    sealer: Arc<dyn SecretSealer>,
    secrets: Arc<dyn SecretSource>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    max_pending_tests: u32,
}

impl ManageWebhooks {
    pub fn new(
        webhooks: Arc<dyn WebhookStore>,
        destinations: Arc<dyn DestinationChecker>,
        sealer: Arc<dyn SecretSealer>,
        secrets: Arc<dyn SecretSource>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
    ) -> Self {
        Self {
            webhooks,
            destinations,
            sealer,
            secrets,
            clock,
            ids,
            max_pending_tests: DEFAULT_MAX_PENDING_TESTS,
        }
    }

    /// How many `webhook.test` events may wait for delivery to one endpoint at once (at least 1).
    #[must_use]
    pub fn with_max_pending_tests(mut self, max: u32) -> Self {
        self.max_pending_tests = max.max(1);
        self
    }

    /// Creates an endpoint; answers it with its secret (`whsec_…`), shown this once.
    ///
    /// # Errors
    /// [`WebhookError::PlanForbids`] over the plan's endpoint count; [`WebhookError::Invalid`] on `url` when
    /// the destination rules refuse it.
    pub async fn create(
        &self,
        organization: &OrganizationId,
        plan: &Plan,
        url: WebhookUrl,
        events: Option<EventSelection>,
        description: Option<String>,
    ) -> Result<(WebhookEndpoint, String), WebhookError> {
        check_description(description.as_deref())?;
        let over_limit = WebhookError::PlanForbids {
            limit: plan.webhook_endpoints,
        };
        // A quick answer for the common case; the store checks again in the insert's transaction, so
        // concurrent creates cannot pass the limit.
        let existing = self.webhooks.endpoints(organization).await?;
        if existing.len() >= plan.webhook_endpoints as usize {
            return Err(over_limit);
        }
        self.check_destination(&url).await?;
        let secret = self.new_secret();
        let now = self.clock.now();
        let id = new_id(self.ids.as_ref(), WebhookId::from_ulid);
        let endpoint = WebhookEndpoint {
            id,
            organization_id: *organization,
            url,
            events: events.unwrap_or(EventSelection::ALL),
            description,
            enabled: true,
            disabled_reason: None,
            secret: SealedSecret::new(self.sealer.seal(&SealContext::webhook(&id), &secret)),
            previous_secret: None,
            previous_secret_expires_at: None,
            failing_since: None,
            created_at: now,
            updated_at: now,
        };
        if !self
            .webhooks
            .create_endpoint(&endpoint, plan.webhook_endpoints)
            .await?
        {
            return Err(over_limit);
        }
        Ok((endpoint, secret))
    }

    /// The organization's endpoints; a rotation whose overlap has ended is no longer shown.
    ///
    /// # Errors
    /// A store failure.
    pub async fn list(&self, organization: &OrganizationId) -> Result<Vec<WebhookEndpoint>, WebhookError> {
        let now = self.clock.now();
        let mut endpoints = self.webhooks.endpoints(organization).await?;
        for endpoint in &mut endpoints {
            endpoint.forget_expired_rotation(now);
        }
        Ok(endpoints)
    }

    /// One endpoint; a rotation whose overlap has ended is no longer shown.
    ///
    /// # Errors
    /// [`WebhookError::NotFound`].
    pub async fn get(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
    ) -> Result<WebhookEndpoint, WebhookError> {
        let mut endpoint = self
            .webhooks
            .endpoint(organization, id)
            .await?
            .ok_or(WebhookError::NotFound)?;
        endpoint.forget_expired_rotation(self.clock.now());
        Ok(endpoint)
    }

    /// Applies a patch. Re-enabling clears the disable reason and the failing streak.
    ///
    /// # Errors
    /// [`WebhookError::NotFound`]; [`WebhookError::Invalid`] for a refused new URL.
    pub async fn update(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
        patch: EndpointPatch,
    ) -> Result<WebhookEndpoint, WebhookError> {
        if let Some(Some(description)) = &patch.description {
            check_description(Some(description))?;
        }
        if let Some(url) = &patch.url {
            self.check_destination(url).await?;
        }
        // Only the patched columns are written: a rotation or the worker's disable that lands meanwhile
        // is kept, not overwritten with what this request read.
        self.webhooks
            .patch_endpoint(organization, id, &patch, self.clock.now())
            .await?;
        self.get(organization, id).await
    }

    /// # Errors
    /// [`WebhookError::NotFound`].
    pub async fn delete(&self, organization: &OrganizationId, id: &WebhookId) -> Result<(), WebhookError> {
        Ok(self.webhooks.delete_endpoint(organization, id).await?)
    }

    /// A new secret; the old one keeps signing (a second signature) for 24 hours.
    ///
    /// # Errors
    /// [`WebhookError::NotFound`].
    pub async fn rotate_secret(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
    ) -> Result<(WebhookEndpoint, String), WebhookError> {
        let secret = self.new_secret();
        let now = self.clock.now();
        // One statement moves the current secret to `previous` and sets the new one, so two rotations or
        // a PATCH at the same time cannot bring an old secret back.
        self.webhooks
            .rotate_endpoint_secret(
                organization,
                id,
                &SealedSecret::new(self.sealer.seal(&SealContext::webhook(id), &secret)),
                now + rotation_overlap(),
                now,
            )
            .await?;
        let endpoint = self.get(organization, id).await?;
        Ok((endpoint, secret))
    }

    /// Queues a `webhook.test` event to this endpoint now; answers the event id.
    ///
    /// # Errors
    /// [`WebhookError::NotFound`]; [`WebhookError::TestsPending`] while the endpoint already has the
    /// maximum of test events (5 by default) waiting to be delivered (a test to a dead receiver would otherwise
    /// queue without end).
    pub async fn send_test(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
    ) -> Result<EventId, WebhookError> {
        let endpoint = self.get(organization, id).await?;
        let now = self.clock.now();
        let event_id = new_id(self.ids.as_ref(), EventId::from_ulid);
        // Ids and RFC 3339 times need no JSON escaping.
        let payload = format!(
            r#"{{"type":"webhook.test","timestamp":"{}","data":{{"endpoint_id":"{}","event_id":"{}"}}}}"#,
            now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            endpoint.id,
            event_id
        );
        let event = TestEvent {
            event_id,
            delivery_id: new_id(self.ids.as_ref(), DeliveryId::from_ulid),
            payload,
            at: now,
        };
        if !self
            .webhooks
            .record_test_event(organization, &endpoint.id, &event, self.max_pending_tests)
            .await?
        {
            return Err(WebhookError::TestsPending {
                limit: self.max_pending_tests,
            });
        }
        Ok(event_id)
    }

    /// The endpoint's deliveries with their attempts, newest first.
    ///
    /// # Errors
    /// [`WebhookError::NotFound`] for an unknown endpoint; [`WebhookError::Invalid`] for a limit out of 1–200.
    pub async fn deliveries(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
        status: Option<DeliveryStatus>,
        before: Option<DeliveryId>,
        limit: u32,
    ) -> Result<Vec<Delivery>, WebhookError> {
        if !(1..=200).contains(&limit) {
            return Err(WebhookError::Invalid(ValidationErrors::single(
                "limit",
                "must be between 1 and 200",
            )));
        }
        self.get(organization, id).await?;
        Ok(self
            .webhooks
            .deliveries(organization, id, status, before, limit)
            .await?)
    }

    /// # Errors
    /// [`WebhookError::NotFound`].
    pub async fn redeliver(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
        delivery: &DeliveryId,
    ) -> Result<(), WebhookError> {
        Ok(self
            .webhooks
            .redeliver(organization, id, delivery, self.clock.now())
            .await?)
    }

    /// Re-queues every failed or skipped delivery since `since`; answers how many.
    ///
    /// # Errors
    /// [`WebhookError::NotFound`].
    pub async fn recover(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
        since: Timestamp,
    ) -> Result<u64, WebhookError> {
        self.get(organization, id).await?;
        Ok(self
            .webhooks
            .recover(organization, id, since, self.clock.now())
            .await?)
    }

    async fn check_destination(&self, url: &WebhookUrl) -> Result<(), WebhookError> {
        self.destinations
            .check(url)
            .await
            .map_err(|reason| WebhookError::Invalid(ValidationErrors::single("url", reason)))
    }

    /// `whsec_` + base64 of 32 random bytes.
    fn new_secret(&self) -> String {
        use base64::Engine as _;
        let mut bytes = [0_u8; 32];
        self.secrets.fill(&mut bytes);
        format!(
            "whsec_{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        )
    }
}
