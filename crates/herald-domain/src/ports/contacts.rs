//! Contacts: marketing preferences, blocks and the user ids the network pairs with numbers.

use super::error::StoreError;
use crate::contact::{Contact, KeywordRule, PreferenceChange, Recipient, UserId};
use crate::ids::OrganizationId;
use crate::time::Timestamp;
use crate::values::PhoneNumber;
use async_trait::async_trait;

/// Contacts, one per person and organization, found by number or by user id.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ContactStore: Send + Sync + 'static {
    /// The contact `recipient` names (by its number or its user id), if anything was ever recorded.
    async fn contact(
        &self,
        organization: &OrganizationId,
        recipient: &Recipient,
    ) -> Result<Option<Contact>, StoreError>;

    /// The contacts of those of `numbers` anything was ever recorded about, in no order: a broadcast's
    /// recipient checks in one read instead of one per recipient.
    async fn contacts_with_numbers(
        &self,
        organization: &OrganizationId,
        numbers: &[PhoneNumber],
    ) -> Result<Vec<Contact>, StoreError>;

    /// Records a marketing preference and its `contact.preferences` customer event (with its fan-out) in
    /// one transaction, creating the contact if needed. `false` when a change of the same `dedupe_key`
    /// was recorded before (nothing written). A change that names both a number and a user id pairs them.
    async fn record_preference(&self, change: &PreferenceChange) -> Result<bool, StoreError>;

    /// Marks the contact blocked or not (creating it if needed) and answers it as it is now.
    async fn set_blocked(
        &self,
        organization: &OrganizationId,
        recipient: &Recipient,
        blocked: bool,
        at: Timestamp,
    ) -> Result<Contact, StoreError>;

    /// Pairs a number with the user id the network showed with it (an inbound message's contact): the
    /// contact of either gains the other. A pairing already known changes nothing.
    async fn pair_user_id(
        &self,
        organization: &OrganizationId,
        number: &PhoneNumber,
        user_id: &UserId,
        at: Timestamp,
    ) -> Result<(), StoreError>;

    /// The organization's STOP keyword rule (off, [`KeywordRule::default`], until set).
    async fn keyword_rule(&self, organization: &OrganizationId) -> Result<KeywordRule, StoreError>;

    /// Replaces the organization's STOP keyword rule; an empty rule turns it off.
    async fn set_keyword_rule(
        &self,
        organization: &OrganizationId,
        rule: &KeywordRule,
        at: Timestamp,
    ) -> Result<(), StoreError>;
}
