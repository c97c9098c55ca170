//! The exact wire body of every send kind, the path, and the bearer token.

use crate::helpers::*;
use herald_cloudapi::CloudApiClient;
use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
use herald_domain::ids::MediaId;
use herald_domain::message::MessageContent;
use herald_domain::ports::{MessagingNetwork, NetworkError, NetworkReceipt};
use herald_domain::template::{
    BodyValues, ButtonKind, ButtonValue, HeaderValue, LanguageCode, ParamName, TemplateName, TemplateRef,
    TemplateVariables,
};
use herald_domain::values::{Caption, FileName, MediaLink, MessageText};
use serde_json::{Value, json};
use wiremock::MockServer;

fn link(url: &str) -> MediaSource {
    MediaSource::Link(MediaLink::parse(url).unwrap())
}

fn template(name: &str, variables: TemplateVariables) -> MessageContent {
    MessageContent::Template {
        template: TemplateRef {
            name: TemplateName::parse(name).unwrap(),
            language: LanguageCode::parse("en_US").unwrap(),
        },
        variables,
    }
}

/// Sends `content` to a server that accepts it and checks the body is exactly `expected_kind` + `object`.
async fn assert_body(content: MessageContent, kind: &str, object: Value) {
    let (outcome, request) = send_with(accepted(), content).await;
    assert_eq!(
        outcome,
        Ok(NetworkReceipt {
            network_message_id: WAMID.to_owned(),
            route: herald_domain::marketing::NetworkRoute::CloudApi,
        })
    );
    let mut expected = json!({
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": "+16505551234",
        "type": kind,
        "biz_opaque_callback_data": MESSAGE_ID,
    });
    expected[kind] = object;
    let body: Value = request.body_json().unwrap();
    assert_eq!(body, expected);
}

#[tokio::test]
async fn text_goes_to_the_sender_path_with_the_bearer_token() {
    let content = MessageContent::Text {
        body: MessageText::parse("Order shipped: https://example.com/t/123").unwrap(),
        preview_url: true,
    };
    let (outcome, request) = send_with(accepted(), content.clone()).await;
    assert_eq!(outcome.unwrap().network_message_id, WAMID);
    assert_eq!(request.method.as_str(), "POST");
    assert_eq!(request.url.path(), format!("/v23.0/{PHONE_NUMBER_ID}/messages"));
    assert_eq!(
        request.headers.get("authorization").unwrap().to_str().unwrap(),
        format!("Bearer {TOKEN}")
    );
    assert!(
        request
            .headers
            .get("content-type")
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    assert_body(
        content,
        "text",
        json!({ "preview_url": true, "body": "Order shipped: https://example.com/t/123" }),
    )
    .await;
}

#[tokio::test]
async fn text_without_preview_says_false() {
    let content = MessageContent::Text {
        body: MessageText::parse("héllo 👋").unwrap(),
        preview_url: false,
    };
    assert_body(
        content,
        "text",
        json!({ "preview_url": false, "body": "héllo 👋" }),
    )
    .await;
}

#[tokio::test]
async fn document_by_link_carries_caption_and_filename() {
    let content = MessageContent::Media {
        media: MediaAttachment {
            kind: MediaKind::Document,
            source: link("https://example.com/inv/123.pdf"),
            filename: Some(FileName::parse("invoice-123.pdf").unwrap()),
        },
        caption: Some(Caption::parse("Invoice #123").unwrap()),
    };
    assert_body(
        content,
        "document",
        json!({
            "link": "https://example.com/inv/123.pdf",
            "caption": "Invoice #123",
            "filename": "invoice-123.pdf"
        }),
    )
    .await;
}

#[tokio::test]
async fn audio_and_sticker_by_link_carry_the_link_alone() {
    for (kind, url) in [
        (MediaKind::Audio, "https://example.com/voice.ogg"),
        (MediaKind::Sticker, "https://example.com/party.webp"),
    ] {
        let content = MessageContent::Media {
            media: MediaAttachment {
                kind,
                source: link(url),
                filename: None,
            },
            caption: None,
        };
        assert_body(content, kind.as_str(), json!({ "link": url })).await;
    }
}

#[tokio::test]
async fn image_and_video_by_link() {
    let image = MessageContent::Media {
        media: MediaAttachment {
            kind: MediaKind::Image,
            source: link("https://example.com/p.jpg"),
            filename: None,
        },
        caption: Some(Caption::parse("The best succulent ever?").unwrap()),
    };
    assert_body(
        image,
        "image",
        json!({ "link": "https://example.com/p.jpg", "caption": "The best succulent ever?" }),
    )
    .await;
    let video = MessageContent::Media {
        media: MediaAttachment {
            kind: MediaKind::Video,
            source: link("https://example.com/unboxing.mp4"),
            filename: None,
        },
        caption: None,
    };
    assert_body(
        video,
        "video",
        json!({ "link": "https://example.com/unboxing.mp4" }),
    )
    .await;
}

#[tokio::test]
async fn template_with_text_header_positional_body_and_url_button() {
    let variables = TemplateVariables {
        header: Some(HeaderValue::Text(vec![text("Spring sale")])),
        body: BodyValues::Positional(vec![text("Asha"), text("ORD-9271"), text("Friday")]),
        buttons: vec![ButtonValue {
            index: 0,
            kind: ButtonKind::Url,
            values: vec![text("ORD-9271")],
            flow_action_data: None,
        }],
        ..TemplateVariables::default()
    };
    assert_body(
        template("order_shipped", variables),
        "template",
        json!({
            "name": "order_shipped",
            "language": { "code": "en_US" },
            "components": [
                { "type": "header", "parameters": [ { "type": "text", "text": "Spring sale" } ] },
                { "type": "body", "parameters": [
                    { "type": "text", "text": "Asha" },
                    { "type": "text", "text": "ORD-9271" },
                    { "type": "text", "text": "Friday" }
                ] },
                { "type": "button", "sub_type": "url", "index": "0",
                  "parameters": [ { "type": "text", "text": "ORD-9271" } ] }
            ]
        }),
    )
    .await;
}

#[tokio::test]
async fn named_template_carries_parameter_names_and_other_buttons() {
    let name = |n: &str| ParamName::parse(n).unwrap();
    let variables = TemplateVariables {
        header: None,
        body: BodyValues::Named(vec![
            (name("customer"), text("Ana")),
            (name("date"), text("Friday")),
        ]),
        buttons: vec![
            ButtonValue {
                index: 1,
                kind: ButtonKind::QuickReply,
                values: vec![text("STOP_PROMOS")],
                flow_action_data: None,
            },
            ButtonValue {
                index: 2,
                kind: ButtonKind::CopyCode,
                values: vec![text("SAVE20")],
                flow_action_data: None,
            },
            // A quick reply without a payload takes nothing, so it is left out.
            ButtonValue {
                index: 3,
                kind: ButtonKind::QuickReply,
                values: vec![],
                flow_action_data: None,
            },
        ],
        ..TemplateVariables::default()
    };
    assert_body(
        template("appointment_reminder", variables),
        "template",
        json!({
            "name": "appointment_reminder",
            "language": { "code": "en_US" },
            "components": [
                { "type": "body", "parameters": [
                    { "type": "text", "text": "Ana", "parameter_name": "customer" },
                    { "type": "text", "text": "Friday", "parameter_name": "date" }
                ] },
                { "type": "button", "sub_type": "quick_reply", "index": "1",
                  "parameters": [ { "type": "payload", "payload": "STOP_PROMOS" } ] },
                { "type": "button", "sub_type": "copy_code", "index": "2",
                  "parameters": [ { "type": "coupon_code", "coupon_code": "SAVE20" } ] }
            ]
        }),
    )
    .await;
}

#[tokio::test]
async fn media_header_templates_send_the_link() {
    let variables = TemplateVariables {
        header: Some(HeaderValue::Media(MediaAttachment {
            kind: MediaKind::Document,
            source: link("https://example.com/inv/9.pdf"),
            filename: Some(FileName::parse("invoice-9.pdf").unwrap()),
        })),
        body: BodyValues::Positional(vec![text("Asha")]),
        buttons: vec![],
        ..TemplateVariables::default()
    };
    assert_body(
        template("invoice_ready", variables),
        "template",
        json!({
            "name": "invoice_ready",
            "language": { "code": "en_US" },
            "components": [
                { "type": "header", "parameters": [ {
                    "type": "document",
                    "document": { "link": "https://example.com/inv/9.pdf", "filename": "invoice-9.pdf" }
                } ] },
                { "type": "body", "parameters": [ { "type": "text", "text": "Asha" } ] }
            ]
        }),
    )
    .await;
    let image_header = TemplateVariables {
        header: Some(HeaderValue::Media(MediaAttachment {
            kind: MediaKind::Image,
            source: link("https://example.com/p.jpg"),
            filename: None,
        })),
        ..TemplateVariables::default()
    };
    assert_body(
        template("spring_promo", image_header),
        "template",
        json!({
            "name": "spring_promo",
            "language": { "code": "en_US" },
            "components": [
                { "type": "header", "parameters": [ {
                    "type": "image", "image": { "link": "https://example.com/p.jpg" }
                } ] }
            ]
        }),
    )
    .await;
}

#[tokio::test]
async fn a_template_without_variables_has_no_components() {
    assert_body(
        template("hello_world", TemplateVariables::default()),
        "template",
        json!({ "name": "hello_world", "language": { "code": "en_US" } }),
    )
    .await;
}

#[tokio::test]
async fn stored_media_is_refused_before_any_request() {
    let server = MockServer::start().await;
    let stored = MessageContent::Media {
        media: MediaAttachment {
            kind: MediaKind::Image,
            source: MediaSource::Stored(MediaId::parse("med_01J0000000000000000000000D").unwrap()),
            filename: None,
        },
        caption: None,
    };
    let outcome = client(&server)
        .send(&sender(), &message(stored), &no_media())
        .await;
    match outcome {
        Err(NetworkError::Permanent(error)) => {
            assert_eq!(error.code, "media_unavailable");
            assert_eq!(error.network_code, None);
        }
        other => panic!("expected media_unavailable, got {other:?}"),
    }
    assert!(server.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn the_token_comes_from_the_senders_variable_or_is_missing() {
    let server = MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(accepted())
        .mount(&server)
        .await;
    let content = MessageContent::Text {
        body: MessageText::parse("hi").unwrap(),
        preview_url: false,
    };

    // Cargo sets CARGO_PKG_NAME for the test process; setting a variable ourselves would need `unsafe`.
    let variable_value = std::env::var("CARGO_PKG_NAME").expect("cargo sets CARGO_PKG_NAME for tests");
    let mut own_token = sender();
    own_token.access_token_env = Some("CARGO_PKG_NAME".into());
    client(&server)
        .send(&own_token, &message(content.clone()), &no_media())
        .await
        .unwrap();
    let requests = server.received_requests().await.unwrap();
    assert_eq!(
        requests[0]
            .headers
            .get("authorization")
            .unwrap()
            .to_str()
            .unwrap(),
        format!("Bearer {variable_value}")
    );

    let mut unset = sender();
    unset.access_token_env = Some("HERALD_TEST_VARIABLE_THAT_IS_NEVER_SET".into());
    let outcome = client(&server)
        .send(&unset, &message(content.clone()), &no_media())
        .await;
    match outcome {
        Err(NetworkError::Credentials { code: None, detail }) => {
            assert!(detail.contains("HERALD_TEST_VARIABLE_THAT_IS_NEVER_SET"));
        }
        other => panic!("expected a credentials error, got {other:?}"),
    }

    let mut no_default = config(&server.uri());
    no_default.default_access_token = None;
    let outcome = CloudApiClient::new(no_default)
        .unwrap()
        .send(&sender(), &message(content), &no_media())
        .await;
    assert!(
        matches!(outcome, Err(NetworkError::Credentials { code: None, .. })),
        "{outcome:?}"
    );
    // Neither refused send reached the network.
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_success_without_a_message_id_is_an_unknown_outcome() {
    let content = MessageContent::Text {
        body: MessageText::parse("hi").unwrap(),
        preview_url: false,
    };
    let (outcome, _) = send_with(
        wiremock::ResponseTemplate::new(200).set_body_string("<html>ok</html>"),
        content,
    )
    .await;
    assert!(
        matches!(outcome, Err(NetworkError::OutcomeUnknown { .. })),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_business_scoped_user_id_goes_in_recipient_without_to() {
    use herald_domain::contact::Recipient;
    use herald_domain::values::UserId;
    let server = MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(accepted())
        .mount(&server)
        .await;
    let mut to_user = message(MessageContent::Text {
        body: MessageText::parse("hello").unwrap(),
        preview_url: false,
    });
    to_user.to = Recipient::User(UserId::parse("US.13491208655302741918").unwrap());
    let outcome = client(&server).send(&sender(), &to_user, &no_media()).await;
    assert_eq!(outcome.unwrap().network_message_id, WAMID);
    let requests = server.received_requests().await.unwrap();
    let body: Value = requests[0].body_json().unwrap();
    assert_eq!(body["recipient"], "US.13491208655302741918", "{body}");
    assert!(
        body.get("to").is_none(),
        "Meta's `to` would win over `recipient`: {body}"
    );
    assert_eq!(body["recipient_type"], "individual");
}
