//! Send bodies of the interactive, reaction, location and contacts kinds, and `reply_to` on every send.

use super::*;

fn errors_of(operation: SendOperation, body: Value) -> Vec<(String, String)> {
    draft(operation, &body)
        .unwrap_err()
        .errors()
        .iter()
        .map(|e| (e.field.clone(), e.message.clone()))
        .collect()
}

#[test]
fn an_interactive_header_file_makes_it_media_for_the_plan() {
    use SendOperation::Interactive;
    let with = |header: Value| json!({"type": "button", "header": header});
    assert_eq!(message_kind(Interactive, &json!({})), MessageKind::Text);
    assert_eq!(
        message_kind(Interactive, &with(json!({"type": "text", "text": "Hi"}))),
        MessageKind::Text
    );
    for kind in ["image", "video", "document"] {
        assert_eq!(
            message_kind(Interactive, &with(json!({"type": kind}))),
            MessageKind::Media
        );
    }
    for operation in [
        SendOperation::Reaction,
        SendOperation::Location,
        SendOperation::Contacts,
    ] {
        assert_eq!(message_kind(operation, &json!({})), MessageKind::Text);
    }
}

#[test]
fn interactive_buttons_read_meta_s_object_with_a_reply_to() {
    let body = json!({
        "to": "+15551234567",
        "type": "button",
        "header": {"type": "document", "document": {"media_id": "med_01HZX3N5Q2V8K4T6W9Y1B3D5F7", "filename": "menu.pdf"}},
        "body": {"text": "Pick one"},
        "footer": {"text": "Thanks"},
        "action": {"buttons": [
            {"type": "reply", "reply": {"id": "yes", "title": "Yes"}},
            {"type": "reply", "reply": {"id": "no", "title": "No"}}
        ]},
        "reply_to": "inb_01J0000000000000000000000Y"
    });
    let draft = draft(SendOperation::Interactive, &body).unwrap();
    let MessageContent::Interactive(message) = &draft.content else {
        panic!("not interactive: {:?}", draft.content);
    };
    assert_eq!(message.action.wire_type(), "button");
    assert_eq!(draft.content.kind(), MessageKind::Media);
    assert_eq!(
        draft.reply_to.map(|r| r.to_string()).as_deref(),
        Some("inb_01J0000000000000000000000Y")
    );
}

#[test]
fn interactive_errors_name_meta_s_paths() {
    let body = json!({
        "to": "+15551234567",
        "type": "button",
        "body": {"text": "Pick one"},
        "action": {"buttons": [
            {"type": "reply", "reply": {"id": "a", "title": "A"}},
            {"type": "reply", "reply": {"id": "b", "title": "B"}},
            {"type": "reply", "reply": {"id": "c", "title": "A title over twenty characters"}}
        ]}
    });
    let errors = errors_of(SendOperation::Interactive, body);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, "action.buttons[2].reply.title");

    // A wrong JSON type is reported once, where it is, not again as missing.
    let body = json!({"to": "+15551234567", "type": "list", "body": {"text": 3}, "action": {"button": "Go", "sections": "x"}});
    let fields: Vec<String> = errors_of(SendOperation::Interactive, body)
        .into_iter()
        .map(|(field, _)| field)
        .collect();
    assert_eq!(fields, ["body.text", "action.sections"]);

    let body = json!({"to": "+15551234567", "body": {"text": "x"}});
    let fields: Vec<String> = errors_of(SendOperation::Interactive, body)
        .into_iter()
        .map(|(field, _)| field)
        .collect();
    assert_eq!(fields, ["type", "action"]);
}

#[test]
fn a_flow_s_data_is_kept_as_json_and_must_be_an_object() {
    let flow = |data: Value| {
        json!({
            "to": "+15551234567", "type": "flow", "body": {"text": "Book"},
            "action": {"name": "flow", "parameters": {
                "flow_message_version": "3", "flow_id": "1234", "flow_cta": "Book",
                "flow_action": "navigate", "flow_action_payload": {"screen": "START", "data": data}
            }}
        })
    };
    assert!(draft(SendOperation::Interactive, &flow(json!({"party": 2}))).is_ok());
    let errors = errors_of(SendOperation::Interactive, flow(json!([1])));
    assert_eq!(errors[0].0, "action.parameters.flow_action_payload.data");
}

#[test]
fn a_reaction_needs_a_herald_id_and_one_emoji() {
    let ok = json!({"to": "+15551234567", "message_id": "msg_01J0000000000000000000000Q", "emoji": ""});
    let draft = draft(SendOperation::Reaction, &ok).unwrap();
    assert_eq!(draft.content.message_type(), MessageType::Reaction);
    let fields: Vec<String> = errors_of(
        SendOperation::Reaction,
        json!({"to": "+15551234567", "message_id": "wamid.X", "emoji": "ab"}),
    )
    .into_iter()
    .map(|(field, _)| field)
    .collect();
    assert_eq!(fields, ["message_id", "emoji"]);
    let fields: Vec<String> = errors_of(SendOperation::Reaction, json!({"to": "+15551234567"}))
        .into_iter()
        .map(|(field, _)| field)
        .collect();
    assert_eq!(fields, ["message_id", "emoji"]);
}

#[test]
fn a_location_takes_numbers_or_strings_of_them() {
    let body = json!({"to": "+15551234567", "latitude": -33.8688, "longitude": "151.2093", "name": "Opera"});
    let draft = draft(SendOperation::Location, &body).unwrap();
    let MessageContent::Location(location) = &draft.content else {
        panic!("not a location");
    };
    assert_eq!(location.latitude.as_str(), "-33.8688");
    let fields: Vec<String> = errors_of(
        SendOperation::Location,
        json!({"to": "+15551234567", "latitude": true, "longitude": 200, "type": "text"}),
    )
    .into_iter()
    .map(|(field, _)| field)
    .collect();
    assert_eq!(fields, ["type", "latitude", "longitude"]);
}

#[test]
fn contact_errors_name_the_card_and_field() {
    let body = json!({"to": "+15551234567", "contacts": [
        {"name": {"formatted_name": "Ana", "first_name": "Ana"}, "phones": [{"phone": "+15550001111", "type": "WORK"}]},
        {"name": {"first_name": "Bo"}, "emails": [{"type": "HOME"}], "birthday": "1990-13-01"},
        "junk"
    ]});
    let fields: Vec<String> = errors_of(SendOperation::Contacts, body)
        .into_iter()
        .map(|(field, _)| field)
        .collect();
    assert_eq!(
        fields,
        [
            "contacts[2]",
            "contacts[1].name.formatted_name",
            "contacts[1].emails[0].email",
            "contacts[1].birthday"
        ]
    );
}

#[test]
fn reply_to_is_a_herald_id_on_every_send() {
    let text = json!({"to": "+15551234567", "message": "hi", "reply_to": "msg_01J0000000000000000000000Q"});
    assert!(draft(SendOperation::Text, &text).unwrap().reply_to.is_some());
    let bad = json!({"to": "+15551234567", "message": "hi", "reply_to": "wamid.X"});
    assert_eq!(fields(draft(SendOperation::Text, &bad)), ["reply_to"]);
    let number = json!({"to": "+15551234567", "media_id": "med_01HZX3N5Q2V8K4T6W9Y1B3D5F7", "reply_to": 5});
    assert_eq!(fields(draft(SendOperation::File, &number)), ["reply_to"]);
}
