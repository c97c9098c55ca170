//! The contact resource (docs/api.md §7.1): window, marketing preference and block state of one person,
//! the organization's own opt-outs, blocks through the network's block list, and the STOP keyword rule.

use super::shared::new_id;
use crate::contact::{
    Contact, KeywordRule, MarketingPreference, PreferenceChange, PreferenceSource, Recipient,
};
use crate::error::{FieldError, ValidationErrors};
use crate::ids::{EventId, OrganizationId};
use crate::organization::{SenderNumber, choose_sender};
use crate::ports::{
    AccountStore, Clock, ContactStore, IdGenerator, MessagingNetwork, NetworkError, StoreError, WindowStore,
};
use crate::time::Timestamp;
use crate::values::PhoneNumber;
use crate::window::ServiceWindow;
use std::sync::Arc;

/// Why a contact operation was refused; nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum ContactError {
    #[error("validation failed: {0}")]
    Invalid(ValidationErrors),
    /// Blocking needs a message from the person to that sender in the last 24 hours (the network's rule).
    #[error("{recipient} has not written to {from} in the last 24 hours")]
    WindowClosed { recipient: Recipient, from: PhoneNumber },
    /// The network refused to block or unblock; its reason.
    #[error("the network refused: {0}")]
    NetworkRefused(String),
    #[error(transparent)]
    Network(NetworkError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The service window of a contact with one sender.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContactWindow {
    pub from: PhoneNumber,
    pub open: bool,
    pub last_inbound_at: Option<Timestamp>,
    pub expires_at: Option<Timestamp>,
}

/// A contact as the API shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContactView {
    pub contact: Contact,
    /// With the sender asked for, or the default sender; `None` when the organization has no sender.
    pub window: Option<ContactWindow>,
}

/// The ports [`Contacts`] drives.
pub struct ContactPorts {
    pub accounts: Arc<dyn AccountStore>,
    pub contacts: Arc<dyn ContactStore>,
    pub windows: Arc<dyn WindowStore>,
    pub network: Arc<dyn MessagingNetwork>,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
}

/// Reads and changes contacts.
pub struct Contacts {
    accounts: Arc<dyn AccountStore>,
    contacts: Arc<dyn ContactStore>,
    windows: Arc<dyn WindowStore>,
    network: Arc<dyn MessagingNetwork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
}

impl Contacts {
    pub fn new(ports: ContactPorts) -> Self {
        Self {
            accounts: ports.accounts,
            contacts: ports.contacts,
            windows: ports.windows,
            network: ports.network,
            clock: ports.clock,
            ids: ports.ids,
        }
    }

    /// The contact `recipient` names, with its window with the sender `from` (default: the default
    /// sender). Someone nothing is recorded about reads as marketing allowed, not blocked.
    ///
    /// # Errors
    /// `from` not a sender of the organization; a store failure.
    pub async fn get(
        &self,
        organization: &OrganizationId,
        recipient: &Recipient,
        from: Option<PhoneNumber>,
    ) -> Result<ContactView, ContactError> {
        let sender = self.window_sender(organization, from.as_ref()).await?;
        let now = self.clock.now();
        let contact = self
            .contacts
            .contact(organization, recipient)
            .await?
            .unwrap_or_else(|| Contact::unknown(*organization, recipient, now));
        self.view(contact, sender.as_ref()).await
    }

    /// Records the organization's own opt-out (`Stopped`) or opt-in (`Allowed`) for `recipient`, with its
    /// `contact.preferences` event; one that would leave the preference as it is records nothing and sends
    /// no event (the store's rule, [`ContactStore::record_preference`]). Answers the contact as it is now.
    ///
    /// # Errors
    /// A store failure.
    pub async fn set_marketing(
        &self,
        organization: &OrganizationId,
        recipient: &Recipient,
        preference: MarketingPreference,
    ) -> Result<ContactView, ContactError> {
        let sender = self.window_sender(organization, None).await?;
        let now = self.clock.now();
        let (number, user_id) = match recipient {
            Recipient::Number(number) => (Some(number.clone()), None),
            Recipient::User(id) => (None, Some(id.clone())),
            Recipient::Erased(_) => (None, None),
        };
        self.contacts
            .record_preference(&PreferenceChange {
                organization_id: *organization,
                number,
                user_id,
                preference,
                source: PreferenceSource::Api,
                occurred_at: now,
                recorded_at: now,
                event_id: new_id(self.ids.as_ref(), EventId::from_ulid),
                dedupe_key: None,
            })
            .await?;
        let contact = self
            .contacts
            .contact(organization, recipient)
            .await?
            .unwrap_or_else(|| Contact::unknown(*organization, recipient, now));
        self.view(contact, sender.as_ref()).await
    }

    /// Blocks or unblocks `recipient` on the network's block list of the sender `from` (default: the
    /// default sender), then records it on the contact. Blocking needs the person's message to that sender
    /// within the last 24 hours (the network's rule, checked first when the number is known); unblocking
    /// has no such rule.
    ///
    /// # Errors
    /// See [`ContactError`]; on any error the contact is unchanged.
    pub async fn set_blocked(
        &self,
        organization: &OrganizationId,
        recipient: &Recipient,
        from: Option<PhoneNumber>,
        blocked: bool,
    ) -> Result<ContactView, ContactError> {
        let sender = self.sender(organization, from.as_ref()).await?;
        let now = self.clock.now();
        let known = self.contacts.contact(organization, recipient).await?;
        if blocked {
            // The network blocks only users who wrote in the last 24 hours: the window of the number, or
            // of the user id for a user who writes without one.
            let key = known
                .as_ref()
                .and_then(|c| c.number.clone())
                .map_or_else(|| recipient.clone(), Recipient::Number);
            let window = self.windows.window(organization, &sender.id, &key).await?;
            if !window.is_some_and(|w| w.is_open_at(now)) {
                return Err(ContactError::WindowClosed {
                    recipient: recipient.clone(),
                    from: sender.number.clone(),
                });
            }
        }
        let failures = self
            .network
            .block_users(&sender, std::slice::from_ref(recipient), blocked)
            .await
            .map_err(|error| match error {
                NetworkError::Permanent(refusal) => {
                    ContactError::NetworkRefused(format!("{} ({})", refusal.title, refusal.detail))
                }
                other => ContactError::Network(other),
            })?;
        if let Some(failure) = failures.first() {
            return Err(ContactError::NetworkRefused(failure.reason.clone()));
        }
        let contact = self
            .contacts
            .set_blocked(organization, recipient, blocked, now)
            .await?;
        self.view(contact, Some(&sender)).await
    }

    /// The organization's STOP keyword rule.
    ///
    /// # Errors
    /// A store failure.
    pub async fn keyword_rule(&self, organization: &OrganizationId) -> Result<KeywordRule, ContactError> {
        Ok(self.contacts.keyword_rule(organization).await?)
    }

    /// Replaces the organization's STOP keyword rule (empty lists turn it off).
    ///
    /// # Errors
    /// A store failure.
    pub async fn set_keyword_rule(
        &self,
        organization: &OrganizationId,
        rule: &KeywordRule,
    ) -> Result<(), ContactError> {
        Ok(self
            .contacts
            .set_keyword_rule(organization, rule, self.clock.now())
            .await?)
    }

    async fn sender(
        &self,
        organization: &OrganizationId,
        from: Option<&PhoneNumber>,
    ) -> Result<SenderNumber, ContactError> {
        let senders = self.accounts.senders(organization).await?;
        choose_sender(&senders, from).cloned().ok_or_else(|| {
            ContactError::Invalid(ValidationErrors::from(FieldError::new(
                "from",
                match from {
                    Some(number) => format!("{number} is not a sender number of this organization"),
                    None => "the organization has no default sender number; name one in `from`".to_owned(),
                },
            )))
        })
    }

    /// The sender a contact's window is shown for: `from`, which must be a sender of the organization,
    /// or the default sender, if there is one.
    async fn window_sender(
        &self,
        organization: &OrganizationId,
        from: Option<&PhoneNumber>,
    ) -> Result<Option<SenderNumber>, ContactError> {
        match self.sender(organization, from).await {
            Ok(sender) => Ok(Some(sender)),
            Err(ContactError::Invalid(_)) if from.is_none() => Ok(None),
            Err(other) => Err(other),
        }
    }

    async fn view(
        &self,
        contact: Contact,
        sender: Option<&SenderNumber>,
    ) -> Result<ContactView, ContactError> {
        let Some(sender) = sender else {
            return Ok(ContactView {
                contact,
                window: None,
            });
        };
        // Kept by number; by user id for a user known only by it (docs/api.md §7).
        let key = contact
            .number
            .clone()
            .map(Recipient::Number)
            .or_else(|| contact.user_id.clone().map(Recipient::User));
        let window = match key {
            Some(key) => {
                self.windows
                    .window(&contact.organization_id, &sender.id, &key)
                    .await?
            }
            None => None,
        };
        let now = self.clock.now();
        Ok(ContactView {
            window: Some(ContactWindow {
                from: sender.number.clone(),
                open: window.as_ref().is_some_and(|w| w.is_open_at(now)),
                last_inbound_at: window.as_ref().map(|w| w.last_inbound_at),
                expires_at: window.as_ref().map(ServiceWindow::expires_at),
            }),
            contact,
        })
    }
}
