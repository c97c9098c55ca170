//! The checks about the recipient themself (issue 20: a block, a marketing opt-out), made after the
//! content checks by a real send and by its dry run alike: the one place they plug in.

use super::{SendDraft, SendError, SendMessage};
use crate::contact::{RecipientRefusal, SendPurpose};
use crate::organization::Organization;

impl SendMessage {
    /// Every refusal the recipient's state gives a send of `purpose`, in the order a send meets them
    /// (blocked, then opted out); empty when it may go.
    pub(super) async fn recipient_refusals(
        &self,
        organization: &Organization,
        draft: &SendDraft,
        purpose: SendPurpose,
    ) -> Result<Vec<SendError>, SendError> {
        let refusals = self
            .recipients
            .refusals(&organization.id, &draft.to, purpose)
            .await?;
        Ok(refusals
            .into_iter()
            .map(|refusal: RecipientRefusal| SendError::Recipient {
                refusal,
                to: draft.to.clone(),
            })
            .collect())
    }

    /// Refuses a send the recipient's state forbids, with the first refusal it meets.
    pub(super) async fn check_recipient(
        &self,
        organization: &Organization,
        draft: &SendDraft,
        purpose: SendPurpose,
    ) -> Result<(), SendError> {
        match self
            .recipient_refusals(organization, draft, purpose)
            .await?
            .into_iter()
            .next()
        {
            Some(refusal) => Err(refusal),
            None => Ok(()),
        }
    }
}
