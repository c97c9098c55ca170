//! Contacts: marketing preferences, blocks and the user ids the network pairs with numbers.

use super::error::StoreError;
use crate::contact::{Contact, KeywordRule, PreferenceChange, Recipient};
use crate::ids::OrganizationId;
use crate::time::Timestamp;
use crate::values::PhoneNumber;
use crate::values::UserId;
use async_trait::async_trait;

/// Contacts, one per person and organization, found by number or by user id.
///
/// One person, one contact: a number is stored and found by its [`PhoneNumber::person_key`] (its national
/// variants are one person), and whenever a write names a number and a user id held by two contacts (a
/// pairing, a change naming both), the two become one in that write's transaction, by
/// [`Contact::merged_with`]. So every read below, by either identity, answers the merged contact.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ContactStore: Send + Sync + 'static {
    /// The contact `recipient` names (by its number's person key or its user id), if anything was ever
    /// recorded.
    async fn contact(
        &self,
        organization: &OrganizationId,
        recipient: &Recipient,
    ) -> Result<Option<Contact>, StoreError>;

    /// The contacts of those of `numbers` anything was ever recorded about (found by person key), in no
    /// order: a broadcast's recipient checks in one read instead of one per recipient.
    async fn contacts_with_numbers(
        &self,
        organization: &OrganizationId,
        numbers: &[PhoneNumber],
    ) -> Result<Vec<Contact>, StoreError>;

    /// The contacts holding those of `user_ids` anything was ever recorded about, in no order (a broadcast's
    /// rows addressed by user id).
    async fn contacts_with_user_ids(
        &self,
        organization: &OrganizationId,
        user_ids: &[UserId],
    ) -> Result<Vec<Contact>, StoreError>;

    /// Records a marketing preference and its `contact.preferences` customer event (with its fan-out) in
    /// one transaction, creating the contact if needed. `false` (nothing written) when a change of the same
    /// `dedupe_key` was recorded before, or when a change of the organization's (source `api` or `keyword`)
    /// would leave the preference as it is. A change that names both a number and a user id pairs them
    /// (merging their contacts).
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
    /// contact of either gains the other (the number in this form), and when each has one, the two are
    /// merged into the number's. A pairing already known changes nothing.
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
