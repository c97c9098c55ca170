//! send-reaction's body (docs/api.md §4.7): the Herald id of the message reacted to and the emoji; the use
//! case looks the message up in the conversation.

use super::fields::{required, string_at};
use herald_domain::ValidationErrors;
use herald_domain::content::{Emoji, MessageRef, MessageTarget, Reaction};
use herald_domain::message::MessageContent;
use serde_json::{Map, Value};

/// `send-reaction`: `message_id` (a `msg_…` or `inb_…` id) and `emoji` (empty removes the reaction).
pub(super) fn reaction_content(
    object: &Map<String, Value>,
    errors: &mut ValidationErrors,
) -> Option<MessageContent> {
    let message = required(object, "message_id", "message_id", errors)
        .and_then(|v| string_at(v, "message_id", errors))
        .and_then(|s| errors.check("message_id", MessageRef::parse(s)));
    let emoji = required(object, "emoji", "emoji", errors)
        .and_then(|v| string_at(v, "emoji", errors))
        .and_then(|s| errors.check("emoji", Emoji::parse(s)));
    Some(MessageContent::Reaction(Reaction {
        target: MessageTarget::named(message?),
        emoji: emoji?,
    }))
}
