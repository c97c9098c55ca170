//! The messages a send points at (`reply_to`, a reaction's `message_id`), looked up when it is accepted.

use super::{SendDraft, SendError, SendMessage};
use crate::content::MessageTarget;
use crate::error::ValidationErrors;
use crate::organization::{Organization, SenderNumber};
use crate::ports::ReferencedMessage;
use crate::values::PhoneNumber;

impl SendMessage {
    /// Looks up the messages the draft points at (`reply_to`, a reaction's `message_id`) and fills in their
    /// network ids, so dispatch sends them without another read. Answers the resolved `reply_to`.
    pub(super) async fn resolve_targets(
        &self,
        organization: &Organization,
        sender: &SenderNumber,
        draft: &mut SendDraft,
    ) -> Result<Option<MessageTarget>, SendError> {
        let mut errors = ValidationErrors::new();
        let mut reply_to = None;
        if let Some(reference) = draft.reply_to {
            let found = self.messages.referenced(&organization.id, &reference).await?;
            match check_target(found.as_ref(), sender, &draft.to) {
                Ok(network_id) => {
                    reply_to = Some(MessageTarget {
                        message: reference,
                        network_message_id: Some(network_id),
                    });
                }
                Err(error) => errors.push(error.at("reply_to")),
            }
        }
        let to = draft.to.clone();
        if let Some(target) = draft.content.reaction_target_mut() {
            let found = self
                .messages
                .referenced(&organization.id, &target.message)
                .await?;
            match check_target(found.as_ref(), sender, &to) {
                Ok(network_id) => target.network_message_id = Some(network_id),
                Err(error) => errors.push(error.at("message_id")),
            }
        }
        errors.finish(reply_to).map_err(SendError::Invalid)
    }
}

/// The rules a reply's or a reaction's target keeps (docs/api.md §4): a message of this organization (another
/// organization's id reads exactly like an unknown one), of this conversation (same business sender, same
/// customer), that the network already knows by its id. Answers that id.
fn check_target(
    found: Option<&ReferencedMessage>,
    sender: &SenderNumber,
    to: &PhoneNumber,
) -> Result<String, crate::error::InvalidValue> {
    use crate::error::InvalidValue;
    let found = found.ok_or_else(|| InvalidValue::new("no message with this id"))?;
    if found.sender_id != sender.id || &found.counterpart != to {
        return Err(InvalidValue::new(format!(
            "is a message of another conversation: it must be between {} and {to}",
            sender.number
        )));
    }
    found.network_message_id.clone().ok_or_else(|| {
        InvalidValue::new(
            "has no network id yet (it is still `accepted`); retry once it is `submitted` or later",
        )
    })
}
