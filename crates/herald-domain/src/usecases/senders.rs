//! The organization's senders as a read-only resource (docs/api.md §6.2): each number with the quality
//! and messaging limit the network last reported, never its credentials.

use crate::ids::{OrganizationId, SenderId};
use crate::notice::SenderQuality;
use crate::organization::SenderNumber;
use crate::ports::{AccountStore, StoreError};
use std::sync::Arc;

/// A sender as the API shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SenderView {
    pub sender: SenderNumber,
    /// Empty until the network reports on the number.
    pub quality: SenderQuality,
    /// The webhook fields Herald needs that the number's business account was last found not to deliver
    /// to Herald's app; `None` until the account was checked.
    pub webhook_fields_missing: Option<Vec<String>>,
}

/// Lists and reads the organization's senders.
pub struct Senders {
    accounts: Arc<dyn AccountStore>,
}

impl Senders {
    pub fn new(accounts: Arc<dyn AccountStore>) -> Self {
        Self { accounts }
    }

    /// The organization's senders, oldest first, each with its last reported quality.
    ///
    /// # Errors
    /// A store failure.
    pub async fn list(&self, organization: &OrganizationId) -> Result<Vec<SenderView>, StoreError> {
        let senders = self.accounts.senders(organization).await?;
        let mut qualities = self.accounts.sender_qualities(organization).await?;
        let mut checks = self.accounts.webhook_fields_missing(organization).await?;
        Ok(senders
            .iter()
            .cloned()
            .map(|sender| {
                let quality = qualities
                    .iter()
                    .position(|(id, _)| *id == sender.id)
                    .map(|at| qualities.swap_remove(at).1)
                    .unwrap_or_default();
                let webhook_fields_missing = checks
                    .iter()
                    .position(|(id, _)| *id == sender.id)
                    .map(|at| checks.swap_remove(at).1);
                SenderView {
                    sender,
                    quality,
                    webhook_fields_missing,
                }
            })
            .collect())
    }

    /// One of the organization's senders; `None` for another organization's id too.
    ///
    /// # Errors
    /// A store failure.
    pub async fn one(
        &self,
        organization: &OrganizationId,
        id: &SenderId,
    ) -> Result<Option<SenderView>, StoreError> {
        Ok(self
            .list(organization)
            .await?
            .into_iter()
            .find(|view| view.sender.id == *id))
    }
}
