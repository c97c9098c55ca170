//! The recipient checks every send meets (blocked, opted out), in one place so that the send and its
//! dry run ask the same question the same way.

use crate::contact::{Recipient, RecipientRefusal, SendPurpose};
use crate::ids::OrganizationId;
use crate::ports::{ContactStore, StoreError};
use crate::values::PhoneNumber;
use crate::values::UserId;
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

    /// The first refusal a send of `purpose` to each of `recipients` would meet, for those refused, keyed by
    /// the recipient as asked (two store reads for all of them, numbers and user ids: a broadcast's rows). A
    /// number is refused by its person's contact whichever national variant it is written in.
    ///
    /// # Errors
    /// A store failure.
    pub async fn refused_recipients(
        &self,
        organization: &OrganizationId,
        recipients: &[Recipient],
        purpose: SendPurpose,
    ) -> Result<HashMap<Recipient, RecipientRefusal>, StoreError> {
        let Some(contacts) = &self.contacts else {
            return Ok(HashMap::new());
        };
        let numbers: Vec<PhoneNumber> = recipients.iter().filter_map(Recipient::number).cloned().collect();
        let users: Vec<UserId> = recipients
            .iter()
            .filter_map(|recipient| match recipient {
                Recipient::User(id) => Some(id.clone()),
                Recipient::Number(_) | Recipient::Erased(_) => None,
            })
            .collect();
        let mut found = Vec::new();
        if !numbers.is_empty() {
            found.extend(contacts.contacts_with_numbers(organization, &numbers).await?);
        }
        if !users.is_empty() {
            found.extend(contacts.contacts_with_user_ids(organization, &users).await?);
        }
        let mut by_person: HashMap<PhoneNumber, RecipientRefusal> = HashMap::new();
        let mut by_user: HashMap<UserId, RecipientRefusal> = HashMap::new();
        for contact in found {
            let Some(refusal) = RecipientRefusal::all_for(&contact, purpose).first().copied() else {
                continue;
            };
            if let Some(number) = &contact.number {
                by_person.insert(number.person_key(), refusal);
            }
            if let Some(id) = contact.user_id {
                by_user.insert(id, refusal);
            }
        }
        Ok(recipients
            .iter()
            .filter_map(|recipient| {
                let refusal = match recipient {
                    Recipient::Number(number) => by_person.get(&number.person_key()),
                    Recipient::User(id) => by_user.get(id),
                    Recipient::Erased(_) => None,
                }?;
                Some((recipient.clone(), *refusal))
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
            (Recipient::User(_), None) | (Recipient::Erased(_), _) => Ok(None),
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
