//! Organizations, plans, sender numbers and API keys.

use super::error::StoreError;
use crate::api_key::{ApiKeyDigest, ApiKeyRecord};
use crate::ids::{ApiKeyId, OrganizationId, SenderId};
use crate::organization::{
    AccountStatus, NetworkRef, Organization, Plan, PlanName, SealedSecret, SenderNumber,
};
use crate::time::Timestamp;
use async_trait::async_trait;
use std::sync::Arc;

/// A key with everything authentication needs, read in one go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    pub key: ApiKeyRecord,
    pub organization: Organization,
    pub plan: Plan,
}

/// Organizations, plans, sender numbers and API keys.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait AccountStore: Send + Sync + 'static {
    /// Every plan, seeded ones included, ordered by name.
    async fn plans(&self) -> Result<Vec<Plan>, StoreError>;

    async fn plan(&self, name: &PlanName) -> Result<Option<Plan>, StoreError>;

    /// Creates the plan, or replaces every limit of the one with its name; organizations on it get the new
    /// limits from their next request.
    async fn put_plan(&self, plan: &Plan) -> Result<(), StoreError>;

    /// # Errors
    /// [`StoreError::Conflict`] when the id exists; [`StoreError::NotFound`] when the plan does not.
    async fn create_organization(&self, organization: &Organization) -> Result<(), StoreError>;

    async fn organization(&self, id: &OrganizationId) -> Result<Option<Organization>, StoreError>;

    /// All organizations, oldest first.
    async fn organizations(&self) -> Result<Vec<Organization>, StoreError>;

    /// # Errors
    /// [`StoreError::NotFound`] when the organization does not exist.
    async fn set_account_status(&self, id: &OrganizationId, status: AccountStatus) -> Result<(), StoreError>;

    /// # Errors
    /// [`StoreError::NotFound`] when the organization or the plan does not exist.
    async fn set_plan(&self, id: &OrganizationId, plan: &PlanName) -> Result<(), StoreError>;

    /// Registers a sender. When it is the default, the organization's other senders stop being default, in
    /// the same transaction.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the number is already registered for the organization, or the
    /// network's phone number id is registered anywhere; [`StoreError::NotFound`] for an unknown
    /// organization.
    async fn add_sender(&self, sender: &SenderNumber) -> Result<(), StoreError>;

    /// The organization's senders, oldest first. Shared: every send reads them, and the read cache hands out
    /// the list it keeps rather than a copy of each sender.
    async fn senders(&self, organization: &OrganizationId) -> Result<Arc<[SenderNumber]>, StoreError>;

    /// The sender the network knows by `phone_number_id`, whatever its organization (for routing the
    /// network's callbacks).
    async fn sender_by_phone_number_id(
        &self,
        phone_number_id: &NetworkRef,
    ) -> Result<Option<SenderNumber>, StoreError>;

    /// As [`AccountStore::add_sender`], the sender recorded as its organization's explicit share of a
    /// business account another organization owns (the operator's `--shared-waba`): the organization is
    /// then one of [`AccountStore::business_account_organizations`].
    ///
    /// # Errors
    /// As [`AccountStore::add_sender`].
    async fn add_shared_sender(&self, sender: &SenderNumber) -> Result<(), StoreError>;

    /// The organizations business account `waba_id` belongs to: its owner, the organization of its oldest
    /// sender, first; then each organization with a sender added by [`AccountStore::add_shared_sender`], in
    /// the order they were added, each once. Another organization with a sender of the account (registered
    /// before a WABA had one owner) is not among them. Empty for an account no sender has.
    async fn business_account_organizations(
        &self,
        waba_id: &NetworkRef,
    ) -> Result<Vec<OrganizationId>, StoreError>;

    /// Every organization's senders of business account `waba_id`, oldest first (for routing the network's
    /// notices about an account, its templates and its numbers).
    async fn senders_of_business_account(
        &self,
        waba_id: &NetworkRef,
    ) -> Result<Vec<SenderNumber>, StoreError>;

    /// The quality and messaging limit the network last reported for each of the organization's senders,
    /// by sender (senders without a report are absent).
    async fn sender_qualities(
        &self,
        organization: &OrganizationId,
    ) -> Result<Vec<(SenderId, crate::notice::SenderQuality)>, StoreError>;

    /// Records, on each of the organization's senders in business account `waba_id`, the webhook fields the
    /// account was last found not to deliver to Herald's app (empty: none missing).
    async fn record_webhook_fields_missing(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        missing: &[String],
    ) -> Result<(), StoreError>;

    /// The missing webhook fields last recorded for each of the organization's senders, by sender (senders
    /// never checked are absent).
    async fn webhook_fields_missing(
        &self,
        organization: &OrganizationId,
    ) -> Result<Vec<(SenderId, Vec<String>)>, StoreError>;

    /// Replaces the sender's sealed access token with `new` only while it still is `expected` (compare and
    /// set): a token changed meanwhile is kept, never overwritten with one sealed from an older read.
    /// Answers whether it was replaced; `false` also for an unknown sender or one of another organization.
    async fn replace_sealed_access_token(
        &self,
        organization: &OrganizationId,
        id: &SenderId,
        expected: &SealedSecret,
        new: &SealedSecret,
    ) -> Result<bool, StoreError>;

    /// # Errors
    /// [`StoreError::Conflict`] on a duplicate id or digest; [`StoreError::NotFound`] for an unknown
    /// organization.
    async fn create_api_key(&self, key: &ApiKeyRecord) -> Result<(), StoreError>;

    /// The organization's keys, oldest first.
    async fn api_keys(&self, organization: &OrganizationId) -> Result<Vec<ApiKeyRecord>, StoreError>;

    async fn api_key(&self, id: &ApiKeyId) -> Result<Option<ApiKeyRecord>, StoreError>;

    /// Disables a key (idempotent) and returns it as it now is.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when the key does not exist.
    async fn disable_api_key(&self, id: &ApiKeyId, at: Timestamp) -> Result<ApiKeyRecord, StoreError>;

    /// The key with this digest, its organization and plan.
    async fn find_credential(&self, digest: &ApiKeyDigest) -> Result<Option<Credential>, StoreError>;

    /// Records that the key was used at `at`.
    async fn touch_api_key(&self, id: &ApiKeyId, at: Timestamp) -> Result<(), StoreError>;
}
