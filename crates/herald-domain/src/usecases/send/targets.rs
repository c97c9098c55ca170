//! The messages a send points at (`reply_to`, a reaction's `message_id`), looked up when it is accepted.

use super::{SendDraft, SendError, SendMessage};
use crate::contact::Recipient;
use crate::content::MessageTarget;
use crate::error::ValidationErrors;
use crate::organization::{Organization, SenderNumber};
use crate::ports::ReferencedMessage;
use crate::values::PhoneNumber;

/// The customer of a send: as the client named them, and the number a user id is paired with.
struct Customer {
    named: Recipient,
    linked: Option<PhoneNumber>,
}

impl Customer {
    /// Whether `counterpart` (a message's customer) is this one.
    fn is(&self, counterpart: &Recipient) -> bool {
        counterpart == &self.named
            || matches!((counterpart, &self.linked), (Recipient::Number(n), Some(linked)) if n == linked)
    }
}

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
        // A conversation is kept by number: a user id's paired number names the same one (looked up only
        // when there is a target to check).
        let linked = if draft.reply_to.is_some() || draft.content.reaction_target_mut().is_some() {
            self.recipients.linked_number(&organization.id, &draft.to).await?
        } else {
            None
        };
        let to = Customer {
            named: draft.to.clone(),
            linked,
        };
        if let Some(reference) = draft.reply_to {
            let found = self.messages.referenced(&organization.id, &reference).await?;
            match check_target(found.as_ref(), sender, &to) {
                Ok(network_id) => {
                    reply_to = Some(MessageTarget {
                        message: reference,
                        network_message_id: Some(network_id),
                    });
                }
                Err(error) => errors.push(error.at("reply_to")),
            }
        }
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
    to: &Customer,
) -> Result<String, crate::error::InvalidValue> {
    use crate::error::InvalidValue;
    let found = found.ok_or_else(|| InvalidValue::new("no message with this id"))?;
    if found.sender_id != sender.id || !to.is(&found.counterpart) {
        return Err(InvalidValue::new(format!(
            "is a message of another conversation: it must be between {} and {}",
            sender.number, to.named
        )));
    }
    found.network_message_id.clone().ok_or_else(|| {
        InvalidValue::new(
            "has no network id yet (it is still `accepted`); retry once it is `submitted` or later",
        )
    })
}
