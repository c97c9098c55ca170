//! Webhook endpoints and their deliveries.

use super::error::StoreError;
use crate::dispatch::ClaimToken;
use crate::ids::{DeliveryId, OrganizationId, WebhookId};
use crate::organization::SealedSecret;
use crate::time::Timestamp;
use crate::webhook::{
    ClaimedDelivery, Delivery, DeliveryCompletion, DeliveryStatus, EndpointPatch, SecretSlot, TestEvent,
    WebhookEndpoint,
};
use async_trait::async_trait;

/// Endpoints and deliveries. Fan-out happens inside the store, in the transaction that writes each customer
/// event: one delivery per subscribed endpoint of the organization (`pending` when enabled, `skipped` when
/// disabled), so no event ever exists without its deliveries.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait WebhookStore: Send + Sync + 'static {
    /// Creates the endpoint unless its organization already has `limit` endpoints; answers whether it
    /// did. The count and the insert are one transaction that concurrent creates of the organization
    /// take in turn, so together they never pass `limit`.
    async fn create_endpoint(&self, endpoint: &WebhookEndpoint, limit: u32) -> Result<bool, StoreError>;
    /// The organization's endpoints, oldest first.
    async fn endpoints(&self, organization: &OrganizationId) -> Result<Vec<WebhookEndpoint>, StoreError>;
    async fn endpoint(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
    ) -> Result<Option<WebhookEndpoint>, StoreError>;
    /// Writes the fields `patch` gives, and `updated_at`; nothing else. Enabling a disabled endpoint also
    /// clears its disable reason and failing streak. # Errors [`StoreError::NotFound`].
    async fn patch_endpoint(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
        patch: &EndpointPatch,
        at: Timestamp,
    ) -> Result<(), StoreError>;
    /// In one statement: the current secret becomes the previous one (signing until `previous_until`) and
    /// `secret` the current one. # Errors [`StoreError::NotFound`].
    async fn rotate_endpoint_secret(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
        secret: &SealedSecret,
        previous_until: Timestamp,
        at: Timestamp,
    ) -> Result<(), StoreError>;
    /// Replaces one of the endpoint's sealed secrets with `new` only while it still is `expected` (compare
    /// and set): a rotation that landed meanwhile is kept. `updated_at` is not touched (the secret itself
    /// does not change). Answers whether it was replaced; `false` also for an unknown endpoint or one of
    /// another organization.
    async fn replace_endpoint_secret(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
        which: SecretSlot,
        expected: &SealedSecret,
        new: &SealedSecret,
    ) -> Result<bool, StoreError>;
    /// Deletes the endpoint and its deliveries. # Errors [`StoreError::NotFound`].
    async fn delete_endpoint(&self, organization: &OrganizationId, id: &WebhookId) -> Result<(), StoreError>;

    /// Writes a `webhook.test` customer event and one pending delivery of it to `endpoint`, unless the
    /// endpoint already has `max_pending` test deliveries pending (`false`: nothing written). The check and
    /// the write are one step.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for another organization's or an unknown endpoint.
    async fn record_test_event(
        &self,
        organization: &OrganizationId,
        endpoint: &WebhookId,
        event: &TestEvent,
        max_pending: u32,
    ) -> Result<bool, StoreError>;

    /// The endpoint's deliveries, newest first, with their attempts; `before` is the cursor.
    async fn deliveries(
        &self,
        organization: &OrganizationId,
        endpoint: &WebhookId,
        status: Option<DeliveryStatus>,
        before: Option<DeliveryId>,
        limit: u32,
    ) -> Result<Vec<Delivery>, StoreError>;

    /// Queues one delivery again now (whatever its status). # Errors [`StoreError::NotFound`].
    async fn redeliver(
        &self,
        organization: &OrganizationId,
        endpoint: &WebhookId,
        delivery: &DeliveryId,
        at: Timestamp,
    ) -> Result<(), StoreError>;

    /// Queues every `failed` or `skipped` delivery of the endpoint created at or after `since`; answers how
    /// many.
    async fn recover(
        &self,
        organization: &OrganizationId,
        endpoint: &WebhookId,
        since: Timestamp,
        at: Timestamp,
    ) -> Result<u64, StoreError>;

    /// Claims due pending deliveries with a lease, never giving one endpoint more than `per_endpoint_cap`
    /// deliveries in flight (counting live leases of other claims), so a slow endpoint never starves others.
    /// Deliveries of disabled endpoints are not claimed.
    async fn claim_deliveries(
        &self,
        token: &ClaimToken,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
        per_endpoint_cap: u32,
    ) -> Result<Vec<ClaimedDelivery>, StoreError>;

    /// Records an attempt and the delivery's new state, and the endpoint's health (disabling it when asked),
    /// if the claim still holds; `false` (nothing written) otherwise.
    async fn complete_delivery(&self, completion: &DeliveryCompletion) -> Result<bool, StoreError>;

    /// Records the outcomes of one delivery round together, in ONE transaction: each exactly as
    /// [`Self::complete_delivery`] would record it alone, in order. Answers one flag per completion, in
    /// order: `false` when that delivery is no longer held by its token, and then nothing was written for
    /// it; a lost claim does not keep the others from being recorded.
    ///
    /// # Errors
    /// A store failure; then NOTHING of the batch was written (the transaction rolled back), so the caller
    /// may still record the completions one by one.
    async fn complete_deliveries(&self, completions: &[DeliveryCompletion]) -> Result<Vec<bool>, StoreError>;

    /// How many deliveries are `pending` (neither succeeded, failed nor skipped), every organization's.
    async fn count_pending_deliveries(&self) -> Result<u64, StoreError>;
}
