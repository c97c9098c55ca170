//! The checks about the recipient themself (a block, a marketing opt-out), as a dry run reads
//! them after the content checks. A real send has them made by its accept's transaction
//! (`AcceptRequest::recipient_check`, the same `RecipientRefusal::all_for`), still before the quota.

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
}
