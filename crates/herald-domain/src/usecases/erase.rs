//! Erasing a person (docs/api.md §7.2, `DELETE /api/v1/contacts/{recipient}`): their queued messages
//! cancelled first (quota given back), then their content erased in one transaction, then the bytes of
//! their files removed.

use super::shared::{cancel_update, new_id};
use crate::contact::Recipient;
use crate::erasure::{ErasedPerson, Erasure, PersonIdentities};
use crate::ids::{EventId, OrganizationId};
use crate::media::Sha256Digest;
use crate::ports::{
    Clock, ErasureStore, IdGenerator, MediaCatalog, MediaStore, QUEUED_PAGE, ScheduleStore, SecretSealer,
    StoreError,
};
use crate::status::StatusUpdate;
use std::sync::Arc;

/// Rounds of cancel-then-erase before giving up: a send accepted for the person between the cancel and
/// the erasure's transaction makes the transaction refuse, and the next round cancels it.
const ROUNDS: usize = 4;

/// Pages of queued messages cancelled in one round (each of [`QUEUED_PAGE`]): a bound on one request's work.
const CANCEL_PAGES: usize = 20;

/// Leftover files (of an erasure that stopped before removing them) collected by each erasure.
const LEFTOVER_FILES: u32 = 100;

/// Why an erasure did not happen. Nothing was erased (queued messages may have been cancelled).
#[derive(Debug, thiserror::Error)]
pub enum EraseError {
    /// Nothing the organization holds names the person, and they were never erased: `404 not_found`.
    #[error("no contact, message or erasure of this person")]
    NotFound,
    /// New messages to the person kept being queued while the erasure ran: `409 conflict`, try again.
    #[error("messages to this person kept being queued during the erasure; try again")]
    Busy,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What an erasure did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Erased {
    /// What the person's kept rows hold instead of their number or user id.
    pub marker: ErasedPerson,
    /// Queued messages cancelled first (their quota given back).
    pub cancelled: u64,
    /// Messages and inbound messages whose content was erased now (0 when repeated).
    pub messages: u64,
    pub inbound: u64,
    /// Uploads deleted with their bytes.
    pub files: u64,
}

/// The ports [`ErasePerson`] drives.
pub struct ErasePorts {
    pub erasure: Arc<dyn ErasureStore>,
    pub schedule: Arc<dyn ScheduleStore>,
    pub catalog: Arc<dyn MediaCatalog>,
    pub files: Arc<dyn MediaStore>,
    /// Holds the key of the markers ([`SecretSealer::person_digest`]).
    pub sealer: Arc<dyn SecretSealer>,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
}

/// Erases what an organization holds about one person.
pub struct ErasePerson {
    ports: ErasePorts,
}

impl ErasePerson {
    pub fn new(ports: ErasePorts) -> Self {
        Self { ports }
    }

    /// Erases the person `recipient` names (by any form of their number, or a user id paired with it).
    /// Idempotent: a person erased before answers the same success, with nothing new erased.
    ///
    /// # Errors
    /// See [`EraseError`].
    #[tracing::instrument(skip_all, fields(organization = %organization))]
    pub async fn erase(
        &self,
        organization: &OrganizationId,
        recipient: &Recipient,
    ) -> Result<Erased, EraseError> {
        let identities = self
            .ports
            .erasure
            .person_identities(organization, recipient)
            .await?;
        let Some(primary) = identities.primary() else {
            return Err(EraseError::NotFound);
        };
        let marker = self.marker(organization, &primary);
        let markers = identities
            .texts()
            .iter()
            .map(|identity| self.marker(organization, identity))
            .collect();
        let mut cancelled = 0;
        for _ in 0..ROUNDS {
            cancelled += self.cancel_queued(organization, &identities).await?;
            let erasure = Erasure {
                organization_id: *organization,
                identities: identities.clone(),
                marker: marker.clone(),
                markers: Vec::clone(&markers),
                event_id: new_id(self.ports.ids.as_ref(), EventId::from_ulid),
                at: self.ports.clock.now(),
            };
            match self.ports.erasure.erase_person(&erasure).await {
                Ok(outcome) if !outcome.known => return Err(EraseError::NotFound),
                Ok(outcome) => {
                    let mut files = self.remove_files(outcome.files).await;
                    // Files an earlier erasure left (it stopped after its commit) are collected here too.
                    let leftovers = self.ports.erasure.erased_files(LEFTOVER_FILES).await?;
                    files += self.remove_files(leftovers).await;
                    tracing::info!(
                        messages = outcome.messages,
                        inbound = outcome.inbound,
                        cancelled,
                        "erased a person"
                    );
                    return Ok(Erased {
                        marker,
                        cancelled,
                        messages: outcome.messages,
                        inbound: outcome.inbound,
                        files,
                    });
                }
                Err(StoreError::Conflict(_)) => continue,
                Err(other) => return Err(other.into()),
            }
        }
        Err(EraseError::Busy)
    }

    fn marker(&self, organization: &OrganizationId, identity: &str) -> ErasedPerson {
        ErasedPerson::from_digest(&self.ports.sealer.person_digest(organization, identity))
    }

    /// Cancels the person's queued messages, a page at a time, as `POST /messages/{id}/cancel` does (quota
    /// given back); answers how many.
    async fn cancel_queued(
        &self,
        organization: &OrganizationId,
        identities: &PersonIdentities,
    ) -> Result<u64, StoreError> {
        let mut cancelled = 0;
        for _ in 0..CANCEL_PAGES {
            let queued = self
                .ports
                .erasure
                .queued_messages(organization, identities, QUEUED_PAGE)
                .await?;
            if queued.is_empty() {
                break;
            }
            let now = self.ports.clock.now();
            let updates: Vec<StatusUpdate> = queued
                .iter()
                .map(|id| cancel_update(self.ports.ids.as_ref(), organization, id, now))
                .collect();
            let done = self.ports.schedule.cancel_many(&updates).await?;
            cancelled += u64::from(done);
            if done == 0 {
                // Dispatch claimed them first: not queued any more.
                break;
            }
        }
        Ok(cancelled)
    }

    /// Removes the bytes of `digests` that no upload points at any more, then forgets the removed ones
    /// (a failure is logged and left for the next erasure); answers how many were removed.
    async fn remove_files(&self, digests: Vec<Sha256Digest>) -> u64 {
        let mut done = Vec::with_capacity(digests.len());
        for digest in digests {
            let removed = match self.ports.catalog.digest_in_use(&digest).await {
                Ok(true) => true,
                Ok(false) => match self.ports.files.remove(&digest).await {
                    Ok(_) => true,
                    Err(error) => {
                        tracing::warn!(%error, sha256 = %digest, "could not remove an erased file");
                        false
                    }
                },
                Err(error) => {
                    tracing::warn!(%error, sha256 = %digest, "could not check an erased file");
                    false
                }
            };
            if removed {
                done.push(digest);
            }
        }
        if let Err(error) = self.ports.erasure.files_removed(&done).await {
            tracing::warn!(%error, "could not forget removed erased files; the next erasure does");
        }
        u64::try_from(done.len()).unwrap_or(u64::MAX)
    }
}
