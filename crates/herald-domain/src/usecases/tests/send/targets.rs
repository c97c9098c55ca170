//! `reply_to` and a reaction's `message_id`: looked up at acceptance, kept with their network id, and refused
//! with a field error (nothing accepted) when they name no message of this conversation the network knows.

use super::*;
use crate::content::{Emoji, MessageRef, MessageTarget, Reaction};
use crate::ports::ReferencedMessage;

const OTHER_CUSTOMER: &str = "+15557654321";

fn target_ref() -> MessageRef {
    MessageRef::parse("msg_01J00000000000000000000009").unwrap()
}

fn found(customer: &str, sender: SenderId, wamid: Option<&str>) -> Option<ReferencedMessage> {
    Some(ReferencedMessage {
        sender_id: sender,
        counterpart: phone(customer).into(),
        network_message_id: wamid.map(str::to_owned),
    })
}

impl Ports {
    /// `referenced` answers `answer` once, for this organization and `target_ref()`.
    fn referenced(&mut self, answer: Option<ReferencedMessage>) -> &mut Self {
        self.messages
            .expect_referenced()
            .withf(|org, reference| *org == org_id() && *reference == target_ref())
            .times(1)
            .returning(move |_, _| Ok(answer.clone()));
        self
    }

    fn open_default_window(&mut self) -> &mut Self {
        self.window(
            default_sender().id,
            Some(window_since(default_sender().id, chrono::TimeDelta::hours(1))),
        )
    }
}

fn reply_command() -> SendCommand {
    let mut draft = draft(text_content("hello"));
    draft.reply_to = Some(target_ref());
    command(MessageKind::Text, Ok(draft))
}

fn reaction_command() -> SendCommand {
    let content = MessageContent::Reaction(Reaction {
        target: MessageTarget::named(target_ref()),
        emoji: Emoji::parse("👍").unwrap(),
    });
    command(MessageKind::Text, Ok(draft(content)))
}

#[test]
fn a_reply_is_accepted_with_its_target_s_network_id() {
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .referenced(found(RECIPIENT, default_sender().id, Some("wamid.T")))
        .open_default_window();
    let accepted = ports.accept(AcceptOutcome::Accepted);

    let result = run(ports.build().execute(reply_command()));

    let Ok(SendOutcome::Accepted(message)) = result else {
        panic!("expected Accepted, got {result:?}");
    };
    let expected = MessageTarget {
        message: target_ref(),
        network_message_id: Some("wamid.T".into()),
    };
    assert_eq!(message.reply_to, Some(expected));
    assert_eq!(accepted.lock().unwrap().clone().unwrap().message, message);
}

#[test]
fn a_reaction_keeps_its_target_s_network_id_in_the_content() {
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .referenced(found(RECIPIENT, default_sender().id, Some("wamid.R")))
        .open_default_window();
    let _accepted = ports.accept(AcceptOutcome::Accepted);

    let result = run(ports.build().execute(reaction_command()));

    let Ok(SendOutcome::Accepted(message)) = result else {
        panic!("expected Accepted, got {result:?}");
    };
    assert_eq!(
        message
            .content
            .reaction_target()
            .and_then(|t| t.network_message_id.as_deref()),
        Some("wamid.R")
    );
    assert_eq!(message.reply_to, None);
}

/// Each refusal names the field and says why; nothing is accepted and no window is read.
fn refused(answer: Option<ReferencedMessage>, command: SendCommand, field: &str, says: &str) {
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .referenced(answer)
        .never_window()
        .never_accept();

    let result = run(ports.build().execute(command));

    let Err(SendError::Invalid(errors)) = result else {
        panic!("expected a field error, got {result:?}");
    };
    let [error] = errors.errors() else {
        panic!("expected one error, got {errors:?}");
    };
    assert_eq!(error.field, field);
    assert!(error.message.contains(says), "{}", error.message);
}

#[test]
fn an_unknown_or_foreign_target_reads_as_no_message() {
    // The store answers `None` alike for an unknown id and another organization's.
    refused(None, reply_command(), "reply_to", "no message with this id");
    refused(None, reaction_command(), "message_id", "no message with this id");
}

#[test]
fn a_target_of_another_conversation_is_refused() {
    let other_customer = found(OTHER_CUSTOMER, default_sender().id, Some("wamid.T"));
    refused(
        other_customer,
        reply_command(),
        "reply_to",
        "another conversation",
    );
    let other_sender = found(RECIPIENT, second_sender().id, Some("wamid.T"));
    refused(
        other_sender,
        reaction_command(),
        "message_id",
        "another conversation",
    );
}

#[test]
fn a_target_the_network_does_not_know_yet_asks_for_a_retry() {
    let still_accepted = found(RECIPIENT, default_sender().id, None);
    refused(
        still_accepted.clone(),
        reply_command(),
        "reply_to",
        "`submitted` or later",
    );
    refused(
        still_accepted,
        reaction_command(),
        "message_id",
        "`submitted` or later",
    );
}
