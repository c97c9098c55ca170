//! The recipient checks every send meets (blocked, opted out), in one place so that the send and its
//! dry run ask the same question the same way.

use crate::contact::{Recipient, RecipientRefusal, SendPurpose};
use crate::ids::OrganizationId;
use crate::ports::{ContactStore, StoreError};
use crate::values::PhoneNumber;
use std::collections::HashMap;
use std::sync::Arc;

/// Why [`RecipientChecks::check`] did not pass.
#[derive(Debug, thiserror::Error)]
pub enum RecipientCheckError {
    #[error(transparent)]
    Refused(RecipientRefusal),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Whether a recipient may be sent a message of some purpose (docs/api.md §7.1).
#[derive(Clone)]
pub struct RecipientChecks {
    /// `None`: nothing is refused (a use case built without contacts, as in unit tests of other rules).
    contacts: Option<Arc<dyn ContactStore>>,
}

impl RecipientChecks {
    pub fn new(contacts: Arc<dyn ContactStore>) -> Self {
        Self {
            contacts: Some(contacts),
        }
    }

    /// Checks that refuse nothing.
    pub fn allow_all() -> Self {
        Self { contacts: None }
    }

    /// Whether sends are checked at all (a real send leaves the check to its accept's transaction,
    /// [`crate::ports::AcceptRequest::recipient_check`]).
    pub fn enabled(&self) -> bool {
        self.contacts.is_some()
    }

    /// Every refusal a send of `purpose` to `recipient` would meet, in the order they are checked
    /// (blocked, then opted out); empty when it may go.
    ///
    /// # Errors
    /// A store failure.
    pub async fn refusals(
        &self,
        organization: &OrganizationId,
        recipient: &Recipient,
        purpose: SendPurpose,
    ) -> Result<Vec<RecipientRefusal>, StoreError> {
        let Some(contacts) = &self.contacts else {
            return Ok(Vec::new());
        };
        Ok(contacts
            .contact(organization, recipient)
            .await?
            .map(|contact| RecipientRefusal::all_for(&contact, purpose))
            .unwrap_or_default())
    }

    /// The first refusal a send of `purpose` to each of `numbers` would meet, for those refused (one store
    /// read for all of them: a broadcast's rows).
    ///
    /// # Errors
    /// A store failure.
    pub async fn refused_numbers(
        &self,
        organization: &OrganizationId,
        numbers: &[PhoneNumber],
        purpose: SendPurpose,
    ) -> Result<HashMap<PhoneNumber, RecipientRefusal>, StoreError> {
        let Some(contacts) = &self.contacts else {
            return Ok(HashMap::new());
        };
        Ok(contacts
            .contacts_with_numbers(organization, numbers)
            .await?
            .into_iter()
            .filter_map(|contact| {
                let refusal = *RecipientRefusal::all_for(&contact, purpose).first()?;
                Some((contact.number?, refusal))
            })
            .collect())
    }

    /// The number a send to `recipient` reaches, as far as the organization knows it: a number itself; a user
    /// id's number when a contact pairs them (an inbound message or a preference that carried both); `None`
    /// for a user id never seen with a number (so its service window counts as closed).
    ///
    /// # Errors
    /// A store failure.
    pub async fn linked_number(
        &self,
        organization: &OrganizationId,
        recipient: &Recipient,
    ) -> Result<Option<PhoneNumber>, StoreError> {
        match (recipient, &self.contacts) {
            (Recipient::Number(number), _) => Ok(Some(number.clone())),
            (Recipient::User(_), None) => Ok(None),
            (Recipient::User(_), Some(contacts)) => Ok(contacts
                .contact(organization, recipient)
                .await?
                .and_then(|contact| contact.number)),
        }
    }

    /// The first refusal a send of `purpose` to `recipient` meets.
    ///
    /// # Errors
    /// [`RecipientCheckError::Refused`] with it, or a store failure.
    pub async fn check(
        &self,
        organization: &OrganizationId,
        recipient: &Recipient,
        purpose: SendPurpose,
    ) -> Result<(), RecipientCheckError> {
        match self.refusals(organization, recipient, purpose).await?.first() {
            Some(refusal) => Err(RecipientCheckError::Refused(*refusal)),
            None => Ok(()),
        }
    }
}
