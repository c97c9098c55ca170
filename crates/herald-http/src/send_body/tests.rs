//! Send bodies to drafts: every form, every error with its path, and the fingerprint.

use super::canonical::canonical_json;
use super::*;
use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
use herald_domain::ids::MediaId;
use herald_domain::message::MessageType;
use herald_domain::template::{
    BodyValues, ButtonKind, ButtonValue, HeaderValue, ParamName, TemplateText, TemplateVariables,
};
use herald_domain::values::{FileName, MediaLink};
use serde_json::json;

fn template_draft(body: Value) -> SendDraft {
    draft(SendOperation::Template, &body).unwrap()
}

fn fields(result: Result<SendDraft, ValidationErrors>) -> Vec<String> {
    result
        .unwrap_err()
        .errors()
        .iter()
        .map(|e| e.field.clone())
        .collect()
}

fn texts(values: &[&str]) -> Vec<TemplateText> {
    values.iter().map(|v| TemplateText::parse(v).unwrap()).collect()
}

fn variables(draft: &SendDraft) -> &TemplateVariables {
    match &draft.content {
        MessageContent::Template { variables, .. } => variables,
        other => panic!("not a template: {other:?}"),
    }
}

#[test]
fn kind_comes_from_operation_type_and_template() {
    use SendOperation::*;
    assert_eq!(message_kind(Text, &json!({})), MessageKind::Text);
    assert_eq!(
        message_kind(Text, &json!({"type": "template"})),
        MessageKind::Text
    );
    assert_eq!(
        message_kind(Template, &json!({"type": "text"})),
        MessageKind::Text
    );
    assert_eq!(
        message_kind(Template, &json!({"type": "template"})),
        MessageKind::Template
    );
    assert_eq!(
        message_kind(Template, &json!({"template": {}})),
        MessageKind::Template
    );
    assert_eq!(message_kind(Template, &json!({"type": 3})), MessageKind::Template);
    assert_eq!(message_kind(Template, &json!([1])), MessageKind::Template);
}

#[test]
fn the_seed_text_form() {
    let draft = template_draft(json!({
        "to": "+15551234567", "type": "text", "message": "Your order has shipped 📦",
        "from": "+15550001111", "client_reference": "order-1234"
    }));
    assert_eq!(draft.to.as_str(), "+15551234567");
    assert_eq!(draft.from.unwrap().as_str(), "+15550001111");
    assert_eq!(draft.client_reference.unwrap().as_str(), "order-1234");
    assert_eq!(
        draft.content,
        MessageContent::Text {
            body: MessageText::parse("Your order has shipped 📦").unwrap(),
            preview_url: false
        }
    );
}

#[test]
fn send_text_takes_preview_url() {
    let draft = draft(
        SendOperation::Text,
        &json!({"to": "+15551234567", "message": "Hi", "preview_url": true}),
    )
    .unwrap();
    assert_eq!(
        draft.content,
        MessageContent::Text {
            body: MessageText::parse("Hi").unwrap(),
            preview_url: true
        }
    );
    assert!(draft.from.is_none() && draft.client_reference.is_none());
}

#[test]
fn the_full_template_form() {
    let draft = template_draft(json!({
        "to": "+15551234567",
        "type": "template",
        "template": {"name": "order_shipped", "language": "en_US"},
        "variables": {
            "header": {"type": "text", "values": ["#1234"]},
            "body": ["Ana", "#1234", "Friday"],
            "buttons": [{"index": 0, "sub_type": "url", "values": ["track/1234"]}]
        }
    }));
    let MessageContent::Template { template, variables } = draft.content else {
        panic!("not a template")
    };
    assert_eq!(template.name.as_str(), "order_shipped");
    assert_eq!(template.language.as_str(), "en_US");
    assert_eq!(
        variables,
        TemplateVariables {
            header: Some(HeaderValue::Text(texts(&["#1234"]))),
            body: BodyValues::Positional(texts(&["Ana", "#1234", "Friday"])),
            buttons: vec![ButtonValue {
                index: 0,
                kind: ButtonKind::Url,
                values: texts(&["track/1234"]),
                flow_action_data: None,
            }],
            ..TemplateVariables::default()
        }
    );
}

#[test]
fn the_positional_shorthand() {
    let draft = template_draft(json!({
        "to": "+15551234567",
        "template": {"name": "order_shipped", "language": "en_US"},
        "variables": ["Ana", "#1234", "Friday"]
    }));
    assert_eq!(
        variables(&draft),
        &TemplateVariables::positional(texts(&["Ana", "#1234", "Friday"]))
    );
}

#[test]
fn the_named_shorthand_and_named_full_body() {
    let expected = TemplateVariables::named(vec![
        (
            ParamName::parse("customer").unwrap(),
            TemplateText::parse("Ana").unwrap(),
        ),
        (
            ParamName::parse("date").unwrap(),
            TemplateText::parse("Friday").unwrap(),
        ),
    ]);
    let short = template_draft(json!({
        "to": "+15551234567",
        "template": {"name": "appointment_named", "language": "en_US"},
        "variables": {"date": "Friday", "customer": "Ana"}
    }));
    let mut got = variables(&short).clone();
    if let BodyValues::Named(values) = &mut got.body {
        values.sort_by(|a, b| a.0.cmp(&b.0));
    }
    assert_eq!(got, expected);
    let full = template_draft(json!({
        "to": "+15551234567",
        "template": {"name": "appointment_named", "language": "en_US"},
        "variables": {"body": {"customer": "Ana", "date": "Friday"}}
    }));
    let mut got = variables(&full).clone();
    if let BodyValues::Named(values) = &mut got.body {
        values.sort_by(|a, b| a.0.cmp(&b.0));
    }
    assert_eq!(got, expected);
}

#[test]
fn no_variables_and_empty_object_mean_none() {
    for body in [
        json!({"to": "+15551234567", "template": {"name": "hello_world", "language": "en_US"}}),
        json!({"to": "+15551234567", "template": {"name": "hello_world", "language": "en_US"}, "variables": {}}),
        json!({"to": "+15551234567", "template": {"name": "hello_world", "language": "en_US"}, "variables": null}),
    ] {
        assert_eq!(variables(&template_draft(body)), &TemplateVariables::default());
    }
}

#[test]
fn media_headers_by_link() {
    let draft = template_draft(json!({
        "to": "+15551234567",
        "template": {"name": "invoice_ready", "language": "en_US"},
        "variables": {
            "header": {"type": "document", "link": "https://example.com/i.pdf", "filename": "invoice.pdf"},
            "body": ["INV-1"]
        }
    }));
    assert_eq!(
        variables(&draft).header,
        Some(HeaderValue::Media(MediaAttachment {
            kind: MediaKind::Document,
            source: MediaSource::Link(MediaLink::parse("https://example.com/i.pdf").unwrap()),
            filename: Some(FileName::parse("invoice.pdf").unwrap()),
        }))
    );
}

#[test]
fn a_header_names_an_upload_by_media_id() {
    let draft = template_draft(json!({
        "to": "+15551234567",
        "template": {"name": "promo_image", "language": "en_US"},
        "variables": {"header": {"type": "image", "media_id": "med_01JD0000000000000000000000"}}
    }));
    assert_eq!(
        variables(&draft).header,
        Some(HeaderValue::Media(MediaAttachment {
            kind: MediaKind::Image,
            source: MediaSource::Stored(MediaId::parse("med_01JD0000000000000000000000").unwrap()),
            filename: None,
        }))
    );
}

#[test]
fn send_file_takes_a_media_id_or_a_typed_link() {
    let file = |body: Value| draft(SendOperation::File, &body);
    let by_id =
        file(json!({"to": "+15551234567", "media_id": "med_01JD0000000000000000000000", "caption": "Hi"}))
            .unwrap();
    let MessageContent::Media { media, caption } = by_id.content else {
        panic!("not a media message");
    };
    assert_eq!(
        media.source,
        MediaSource::Stored(MediaId::parse("med_01JD0000000000000000000000").unwrap())
    );
    assert_eq!(caption.unwrap().as_str(), "Hi");
    let by_link =
        file(json!({"to": "+15551234567", "link": "https://e.com/a.mp4", "type": "video"})).unwrap();
    assert!(matches!(
        by_link.content,
        MessageContent::Media {
            media: MediaAttachment {
                kind: MediaKind::Video,
                ..
            },
            ..
        }
    ));
    // Audio and stickers by link: the declared `type` is the kind, as for every link.
    for (kind, expected) in [("audio", MediaKind::Audio), ("sticker", MediaKind::Sticker)] {
        let by_link = file(json!({"to": "+15551234567", "link": "https://e.com/a", "type": kind})).unwrap();
        let MessageContent::Media { media, caption } = by_link.content else {
            panic!("not a media message");
        };
        assert_eq!((media.kind, caption), (expected, None));
    }
    let cases = [
        (
            json!({"to": "+15551234567", "link": "https://e.com/a.webp"}),
            "type",
        ),
        (
            json!({"to": "+15551234567", "link": "https://e.com/a.ogg", "type": "audio", "filename": "a.ogg"}),
            "filename",
        ),
        (json!({"to": "+15551234567"}), "media_id"),
        (
            json!({"to": "+15551234567", "media_id": "msg_01JD0000000000000000000000"}),
            "media_id",
        ),
        (
            json!({"to": "+15551234567", "media_id": "med_01JD0000000000000000000000", "link": "https://e.com/a"}),
            "link",
        ),
        (
            json!({"to": "+15551234567", "link": "https://e.com/a.png", "type": "image", "filename": "a.png"}),
            "filename",
        ),
        (
            json!({"to": "+15551234567", "link": "https://e.com/a", "type": "gif"}),
            "type",
        ),
        (
            json!({"to": "+15551234567", "media_id": "med_01JD0000000000000000000000", "caption": ""}),
            "caption",
        ),
        (
            json!({"to": "+15551234567", "media_id": "med_01JD0000000000000000000000", "message": "hi"}),
            "message",
        ),
    ];
    for (body, field) in cases {
        assert_eq!(fields(file(body.clone())), vec![field.to_owned()], "{body}");
    }
    assert_eq!(message_kind(SendOperation::File, &json!({})), MessageKind::Media);
}

#[test]
fn header_rules() {
    let body = |header: Value| json!({"to": "+15551234567", "template": {"name": "x", "language": "en"}, "variables": {"header": header}});
    let cases = [
        (
            json!({"type": "image", "link": "http://example.com/a.png"}),
            "variables.header.link",
        ),
        (json!({"type": "image"}), "variables.header.media_id"),
        (
            json!({"type": "image", "link": "https://e.com/a.png", "filename": "a.png"}),
            "variables.header.filename",
        ),
        (
            json!({"type": "audio", "link": "https://e.com/a"}),
            "variables.header.type",
        ),
        (json!({"values": ["x"]}), "variables.header.type"),
        (json!({"type": "text"}), "variables.header.values"),
        (
            json!({"type": "text", "values": [1]}),
            "variables.header.values[0]",
        ),
        (json!("text"), "variables.header"),
    ];
    for (header, field) in cases {
        assert_eq!(
            fields(draft(SendOperation::Template, &body(header.clone()))),
            vec![field.to_owned()],
            "{header}"
        );
    }
}

#[test]
fn every_field_error_is_collected_with_its_path() {
    let result = draft(
        SendOperation::Template,
        &json!({
            "to": "15551234567",
            "type": "template",
            "template": {"name": "Order Shipped", "language": "english"},
            "variables": {
                "body": ["Ana", "", "Friday"],
                "buttons": [{"index": 0, "sub_type": "url", "values": [42]}, {"index": 12, "sub_type": "phone"}]
            },
            "from": 15550001111u64,
            "client_reference": "r".repeat(129),
        }),
    );
    assert_eq!(
        fields(result),
        [
            "to",
            "template.name",
            "template.language",
            "variables.body[1]",
            "variables.buttons[0].values[0]",
            "variables.buttons[1].index",
            "variables.buttons[1].sub_type",
            "from",
            "client_reference",
        ]
    );
}

#[test]
fn text_field_errors() {
    let result = draft(
        SendOperation::Template,
        &json!({"to": 15551234567u64, "type": "text", "message": "", "preview_url": "yes", "template": {"name": "x"}}),
    );
    assert_eq!(fields(result), ["to", "template", "message", "preview_url"]);
    let result = draft(SendOperation::Text, &json!({"type": "template"}));
    assert_eq!(fields(result), ["to", "type", "message"]);
    let result = draft(
        SendOperation::Text,
        &json!({"to": "+15551234567", "message": "a".repeat(4097)}),
    );
    let errors = result.unwrap_err();
    assert_eq!(errors.errors()[0].field, "message");
    assert!(errors.errors()[0].message.contains("4096"));
}

#[test]
fn template_shape_errors() {
    let base = |extra: Value| {
        let mut body = json!({"to": "+15551234567"});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        fields(draft(SendOperation::Template, &body))
    };
    assert_eq!(base(json!({})), ["template"]);
    assert_eq!(base(json!({"type": "image"})), ["type", "template"]);
    assert_eq!(base(json!({"template": "order_shipped"})), ["template"]);
    assert_eq!(
        base(json!({"template": {}})),
        ["template.name", "template.language"]
    );
    assert_eq!(
        base(json!({"template": {"name": "a", "language": "en"}, "message": "hi"})),
        ["message"]
    );
    assert_eq!(
        base(json!({"template": {"name": "a", "language": "en"}, "variables": "Ana"})),
        ["variables"]
    );
    assert_eq!(
        base(json!({"template": {"name": "a", "language": "en"}, "variables": ["ok", 3, "a\tb"]})),
        ["variables[1]", "variables[2]"]
    );
    assert_eq!(
        base(json!({"template": {"name": "a", "language": "en"}, "variables": {"Bad Name": "x", "ok": 1}})),
        ["variables.Bad Name", "variables.ok"]
    );
    assert_eq!(
        base(json!({"template": {"name": "a", "language": "en"}, "variables": {"body": "x", "buttons": {}}})),
        ["variables.body", "variables.buttons"]
    );
    assert_eq!(
        base(json!({"template": {"name": "a", "language": "en"}, "variables": {"buttons": ["x"]}})),
        ["variables.buttons[0]"]
    );
}

#[test]
fn a_body_that_is_not_an_object() {
    assert_eq!(fields(draft(SendOperation::Text, &json!([1, 2]))), ["body"]);
}

#[test]
fn header_errors_join_body_errors() {
    let header = Some(FieldError::new("Idempotency-Key", "bad"));
    let ok = draft(
        SendOperation::Text,
        &json!({"to": "+15551234567", "message": "Hi"}),
    );
    assert_eq!(fields(with_header_error(ok, header.clone())), ["Idempotency-Key"]);
    let bad = draft(SendOperation::Text, &json!({"message": "Hi"}));
    assert_eq!(fields(with_header_error(bad, header)), ["to", "Idempotency-Key"]);
    let ok = draft(
        SendOperation::Text,
        &json!({"to": "+15551234567", "message": "Hi"}),
    );
    assert!(with_header_error(ok, None).is_ok());
}

#[test]
fn fingerprints_ignore_key_order_and_whitespace() {
    let a: Value =
        serde_json::from_str(r#"{"to":"+1555","variables":{"b":"2","a":"1"},"x":[1,{"z":1,"y":2}]}"#)
            .unwrap();
    let b: Value = serde_json::from_str(
        "{ \"x\" : [ 1 , { \"y\":2, \"z\":1 } ],\n \"variables\": {\"a\": \"1\", \"b\": \"2\"}, \"to\": \"+1555\" }",
    )
    .unwrap();
    let path = "/api/v1/messages/send-text";
    assert_eq!(fingerprint(path, &a), fingerprint(path, &b));
    assert_eq!(
        canonical_json(&a),
        r#"{"to":"+1555","variables":{"a":"1","b":"2"},"x":[1,{"y":2,"z":1}]}"#
    );
    assert_ne!(
        fingerprint("/api/v1/messages/send-template", &a),
        fingerprint(path, &a)
    );
    let c: Value =
        serde_json::from_str(r#"{"to":"+1556","variables":{"b":"2","a":"1"},"x":[1,{"z":1,"y":2}]}"#)
            .unwrap();
    assert_ne!(fingerprint(path, &a), fingerprint(path, &c));
    let reordered: Value =
        serde_json::from_str(r#"{"to":"+1555","variables":{"b":"2","a":"1"},"x":[{"z":1,"y":2},1]}"#)
            .unwrap();
    assert_ne!(
        fingerprint(path, &a),
        fingerprint(path, &reordered),
        "array order is meaning"
    );
}

mod kinds;

#[test]
fn to_takes_a_number_or_a_business_scoped_user_id() {
    use herald_domain::contact::Recipient;
    use herald_domain::values::UserId;
    let draft = template_draft(json!({
        "to": "US.13491208655302741918", "template": {"name": "hello_world", "language": "en_US"}
    }));
    assert_eq!(
        draft.to,
        Recipient::User(UserId::parse("US.13491208655302741918").unwrap())
    );
    let draft = template_draft(json!({
        "to": "+15551234567", "template": {"name": "hello_world", "language": "en_US"}
    }));
    assert_eq!(
        draft.to,
        Recipient::Number(PhoneNumber::parse("+15551234567").unwrap())
    );
    for to in ["15551234567", "us.123", "US.", "US.12-34"] {
        let result = draft_of(to);
        assert_eq!(fields(result), vec!["to".to_owned()], "{to}");
    }
}

fn draft_of(to: &str) -> Result<SendDraft, ValidationErrors> {
    draft(
        SendOperation::Template,
        &json!({ "to": to, "template": {"name": "hello_world", "language": "en_US"} }),
    )
}
