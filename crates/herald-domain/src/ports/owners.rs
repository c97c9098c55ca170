//! The owner's dashboard: owner accounts, sessions, passwords, and the reads only the dashboard makes.

use super::error::StoreError;
use crate::ids::{MessageId, OrganizationId};
use crate::time::Timestamp;
use async_trait::async_trait;

/// Owner accounts and dashboard sessions.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait OwnerStore: Send + Sync + 'static {
    /// Creates or replaces the organization's owner account, and ends every session of the organization in
    /// the same transaction (a new password logs everyone out).
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown organization; [`StoreError::Conflict`] when the email is
    /// already the login of another organization's owner.
    async fn set_owner(&self, owner: &crate::owner::OwnerAccount) -> Result<(), StoreError>;

    /// The owner whose login is `email`, whatever the organization.
    async fn owner_by_email(
        &self,
        email: &crate::owner::OwnerEmail,
    ) -> Result<Option<crate::owner::OwnerAccount>, StoreError>;

    /// Stores a new session.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown organization; [`StoreError::Conflict`] on a duplicate digest.
    async fn create_session(&self, session: &crate::owner::DashboardSession) -> Result<(), StoreError>;

    /// The session with this digest, expired or not (the caller judges expiry).
    async fn session(
        &self,
        digest: &crate::owner::SessionDigest,
    ) -> Result<Option<crate::owner::DashboardSession>, StoreError>;

    /// Records activity on a session (moves `last_seen_at`); a missing session is not an error.
    async fn touch_session(
        &self,
        digest: &crate::owner::SessionDigest,
        at: Timestamp,
    ) -> Result<(), StoreError>;

    /// Ends a session; idempotent.
    async fn delete_session(&self, digest: &crate::owner::SessionDigest) -> Result<(), StoreError>;

    /// Deletes every session idle since before `idle_before` or past its absolute expiry at `now`;
    /// answers how many.
    async fn delete_expired_sessions(
        &self,
        idle_before: Timestamp,
        now: Timestamp,
    ) -> Result<u64, StoreError>;

    /// The customer events written about one of the organization's messages, by sequence, each with its
    /// deliveries. Empty for an unknown message or another organization's.
    async fn sent_events(
        &self,
        organization: &OrganizationId,
        message: &MessageId,
    ) -> Result<Vec<crate::owner::SentEvent>, StoreError>;
}

/// Hashes and checks owner passwords (Argon2id in production). Async because a hash costs tens of
/// milliseconds of CPU on purpose: adapters run it off the request threads.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait PasswordHasher: Send + Sync + 'static {
    /// # Errors
    /// A description when hashing failed (never contains the password).
    async fn hash(&self, password: &str) -> Result<crate::owner::PasswordHash, String>;

    /// Whether `password` matches `hash`. With `None` (no such owner) it does the same work and answers
    /// `false`, so a login's timing does not tell whether the email exists.
    async fn verify(&self, password: &str, hash: Option<crate::owner::PasswordHash>) -> bool;
}
