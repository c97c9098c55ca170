//! Erasing a person (docs/api.md §7.2): their content erased in one transaction, what billing and
//! statistics need kept under a keyed marker.

use super::error::StoreError;
use crate::contact::Recipient;
use crate::erasure::{ErasedPerson, Erasure, ErasureOutcome, PersonIdentities};
use crate::ids::{MessageId, OrganizationId};
use crate::media::Sha256Digest;
use async_trait::async_trait;

/// The most queued messages [`ErasureStore::queued_messages`] answers at once.
pub const QUEUED_PAGE: u32 = 500;

/// The store side of an erasure.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ErasureStore: Send + Sync + 'static {
    /// Every way the organization's rows name the person `recipient` names: `recipient` itself, the
    /// number and user id of their contact, the user ids their inbound messages came with (and the numbers
    /// that came with those user ids), each number with all its national forms, up to
    /// [`crate::erasure::MAX_IDENTITIES`].
    async fn person_identities(
        &self,
        organization: &OrganizationId,
        recipient: &Recipient,
    ) -> Result<PersonIdentities, StoreError>;

    /// Up to `limit` of the organization's messages to `identities` that a cancel can still stop (`accepted`
    /// or `scheduled`, their job never taken by dispatch; broadcast rows included), oldest first: what an
    /// erasure cancels first.
    async fn queued_messages(
        &self,
        organization: &OrganizationId,
        identities: &PersonIdentities,
        limit: u32,
    ) -> Result<Vec<MessageId>, StoreError>;

    /// Carries out `erasure` in ONE transaction (docs/api.md §7.2 lists what is erased and what is kept):
    /// the person's messages and inbound messages keep their ids, times, statuses and pricing with
    /// [`Erasure::marker`] in place of the number or user id and their content erased; their contact and
    /// service windows are deleted; the customer events about them lose their payload and their
    /// deliveries' response logs; the uploads only their messages used are deleted, their digests recorded
    /// as still to be removed ([`ErasureStore::erased_files`]); [`Erasure::markers`] join the erasure log,
    /// and the `contact.erased` event is written (with its fan-out) unless nothing named the person.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when a message [`ErasureStore::queued_messages`] would answer remains (the
    /// caller cancels it and tries again); nothing is written then.
    async fn erase_person(&self, erasure: &Erasure) -> Result<ErasureOutcome, StoreError>;

    /// The digests of erased files whose bytes are still to be removed (up to `limit`), of any
    /// organization: left by an erasure that stopped before it removed them.
    async fn erased_files(&self, limit: u32) -> Result<Vec<Sha256Digest>, StoreError>;

    /// Forgets `digests` once their bytes are removed (or still used by another upload).
    async fn files_removed(&self, digests: &[Sha256Digest]) -> Result<(), StoreError>;

    /// Whether any of `markers` is in the organization's erasure log.
    async fn erased_before(
        &self,
        organization: &OrganizationId,
        markers: &[ErasedPerson],
    ) -> Result<bool, StoreError>;
}
