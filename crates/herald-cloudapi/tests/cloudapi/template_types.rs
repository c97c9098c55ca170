//! The exact `components` of every template type's send (Meta's "Sending template messages"): location
//! headers, named text headers, authentication codes, limited-time offers, Flow buttons and carousels
//! whose cards name stored files by their network id.

use crate::helpers::*;
use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
use herald_domain::content::{Location, LocationDraft};
use herald_domain::ids::MediaId;
use herald_domain::message::MessageContent;
use herald_domain::ports::{MessagingNetwork, NetworkMediaIds};
use herald_domain::template::{
    BodyValues, ButtonKind, ButtonValue, CardValues, HeaderValue, LanguageCode, ParamName, TemplateName,
    TemplateRef, TemplateVariables,
};
use herald_domain::values::MediaLink;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer};

const CARD_IMAGE: &str = "med_01J0000000000000000000000C";
const NETWORK_CARD_IMAGE: &str = "880011223344";

fn template(name: &str, variables: TemplateVariables) -> MessageContent {
    MessageContent::Template {
        template: TemplateRef {
            name: TemplateName::parse(name).unwrap(),
            language: LanguageCode::parse("en_US").unwrap(),
        },
        variables,
    }
}

/// The `components` of the send body of `variables`, sent with `media` to an accepting server.
async fn components(variables: TemplateVariables, media: &NetworkMediaIds) -> Value {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(format!("/{VERSION}/{PHONE_NUMBER_ID}/messages")))
        .respond_with(accepted())
        .mount(&server)
        .await;
    client(&server)
        .send(&sender(), &message(template("any_template", variables)), media)
        .await
        .unwrap();
    let requests = server.received_requests().await.unwrap();
    let body: Value = requests[0].body_json().unwrap();
    body["template"]["components"].clone()
}

fn button(index: u8, kind: ButtonKind, value: &str) -> ButtonValue {
    ButtonValue::new(index, kind, vec![text(value)])
}

#[tokio::test]
async fn a_location_header_sends_the_place() {
    let location = Location::parse(&LocationDraft {
        latitude: Some("37.483307".into()),
        longitude: Some("-122.148981".into()),
        name: Some("Pablo Morales".into()),
        address: Some("1 Hacker Way, Menlo Park, CA 94025".into()),
    })
    .unwrap();
    let variables = TemplateVariables {
        header: Some(HeaderValue::Location(location)),
        body: BodyValues::Positional(vec![text("ORD-9271")]),
        ..TemplateVariables::default()
    };
    assert_eq!(
        components(variables, &no_media()).await,
        json!([
            { "type": "header", "parameters": [ { "type": "location", "location": {
                "latitude": 37.483307, "longitude": -122.148981,
                "name": "Pablo Morales", "address": "1 Hacker Way, Menlo Park, CA 94025"
            } } ] },
            { "type": "body", "parameters": [ { "type": "text", "text": "ORD-9271" } ] }
        ])
    );
}

#[tokio::test]
async fn a_named_text_header_carries_its_parameter_name() {
    let variables = TemplateVariables {
        header: Some(HeaderValue::NamedText(vec![(
            ParamName::parse("order_id").unwrap(),
            text("ORD-9271"),
        )])),
        ..TemplateVariables::default()
    };
    assert_eq!(
        components(variables, &no_media()).await,
        json!([{ "type": "header", "parameters": [
            { "type": "text", "text": "ORD-9271", "parameter_name": "order_id" }
        ] }])
    );
}

#[tokio::test]
async fn an_authentication_code_fills_the_body_and_the_code_button() {
    let variables = TemplateVariables {
        body: BodyValues::Positional(vec![text("482913")]),
        buttons: vec![button(0, ButtonKind::Url, "482913")],
        ..TemplateVariables::default()
    };
    assert_eq!(
        components(variables, &no_media()).await,
        json!([
            { "type": "body", "parameters": [ { "type": "text", "text": "482913" } ] },
            { "type": "button", "sub_type": "url", "index": "0",
              "parameters": [ { "type": "text", "text": "482913" } ] }
        ])
    );
}

#[tokio::test]
async fn a_limited_time_offer_sends_its_expiration_in_milliseconds_and_its_buttons() {
    let variables = TemplateVariables {
        body: BodyValues::Positional(vec![text("Ana")]),
        offer: Some(
            chrono::DateTime::parse_from_rfc3339("2030-01-02T03:04:05.678Z")
                .unwrap()
                .to_utc(),
        ),
        buttons: vec![
            button(0, ButtonKind::CopyCode, "SPRING25"),
            button(1, ButtonKind::Url, "spring"),
        ],
        ..TemplateVariables::default()
    };
    assert_eq!(
        components(variables, &no_media()).await,
        json!([
            { "type": "body", "parameters": [ { "type": "text", "text": "Ana" } ] },
            { "type": "limited_time_offer", "parameters": [ {
                "type": "limited_time_offer",
                "limited_time_offer": { "expiration_time_ms": 1_893_553_445_678_i64 }
            } ] },
            { "type": "button", "sub_type": "copy_code", "index": "0",
              "parameters": [ { "type": "coupon_code", "coupon_code": "SPRING25" } ] },
            { "type": "button", "sub_type": "url", "index": "1",
              "parameters": [ { "type": "text", "text": "spring" } ] }
        ])
    );
}

#[tokio::test]
async fn a_flow_button_sends_its_token_and_data_and_nothing_when_given_nothing() {
    let with_data = TemplateVariables {
        buttons: vec![ButtonValue {
            flow_action_data: Some(r#"{"stars":5,"visit":"2026-11-20"}"#.into()),
            ..button(0, ButtonKind::Flow, "survey-7")
        }],
        ..TemplateVariables::default()
    };
    assert_eq!(
        components(with_data, &no_media()).await,
        json!([{ "type": "button", "sub_type": "flow", "index": "0", "parameters": [ {
            "type": "action",
            "action": { "flow_token": "survey-7", "flow_action_data": { "stars": 5, "visit": "2026-11-20" } }
        } ] }])
    );
    let data_only = TemplateVariables {
        buttons: vec![ButtonValue {
            flow_action_data: Some(r#"{"a":1}"#.into()),
            ..ButtonValue::new(0, ButtonKind::Flow, vec![])
        }],
        ..TemplateVariables::default()
    };
    assert_eq!(
        components(data_only, &no_media()).await,
        json!([{ "type": "button", "sub_type": "flow", "index": "0", "parameters": [ {
            "type": "action", "action": { "flow_action_data": { "a": 1 } }
        } ] }])
    );
}

#[tokio::test]
async fn a_carousel_sends_each_card_with_its_file_body_and_buttons() {
    let card = |source: MediaSource, plant: &str| CardValues {
        header: MediaAttachment {
            kind: MediaKind::Image,
            source,
            filename: None,
        },
        body: BodyValues::Positional(vec![text(plant)]),
        buttons: vec![
            button(0, ButtonKind::QuickReply, &format!("more-{plant}")),
            button(1, ButtonKind::Url, plant),
        ],
    };
    let variables = TemplateVariables {
        body: BodyValues::Positional(vec![text("Ana")]),
        cards: vec![
            card(MediaSource::Stored(MediaId::parse(CARD_IMAGE).unwrap()), "aloe"),
            card(
                MediaSource::Link(MediaLink::parse("https://example.com/pot.png").unwrap()),
                "pot",
            ),
        ],
        ..TemplateVariables::default()
    };
    let mut media = NetworkMediaIds::new();
    media.insert(MediaId::parse(CARD_IMAGE).unwrap(), NETWORK_CARD_IMAGE.to_owned());
    let card_wire = |index: usize, image: Value, plant: &str| {
        json!({ "card_index": index, "components": [
            { "type": "header", "parameters": [ { "type": "image", "image": image } ] },
            { "type": "body", "parameters": [ { "type": "text", "text": plant } ] },
            { "type": "button", "sub_type": "quick_reply", "index": "0",
              "parameters": [ { "type": "payload", "payload": format!("more-{plant}") } ] },
            { "type": "button", "sub_type": "url", "index": "1",
              "parameters": [ { "type": "text", "text": plant } ] }
        ] })
    };
    assert_eq!(
        components(variables, &media).await,
        json!([
            { "type": "body", "parameters": [ { "type": "text", "text": "Ana" } ] },
            { "type": "carousel", "cards": [
                card_wire(0, json!({ "id": NETWORK_CARD_IMAGE }), "aloe"),
                card_wire(1, json!({ "link": "https://example.com/pot.png" }), "pot"),
            ] }
        ])
    );
}

#[tokio::test]
async fn a_card_file_without_a_network_id_never_reaches_the_network() {
    let server = MockServer::start().await;
    let variables = TemplateVariables {
        cards: vec![CardValues {
            header: MediaAttachment {
                kind: MediaKind::Image,
                source: MediaSource::Stored(MediaId::parse(CARD_IMAGE).unwrap()),
                filename: None,
            },
            body: BodyValues::Positional(vec![]),
            buttons: vec![],
        }],
        ..TemplateVariables::default()
    };
    let outcome = client(&server)
        .send(
            &sender(),
            &message(template("spring_carousel", variables)),
            &no_media(),
        )
        .await;
    assert!(
        matches!(&outcome, Err(herald_domain::ports::NetworkError::Permanent(e)) if e.code == "media_unavailable"),
        "{outcome:?}"
    );
    assert!(server.received_requests().await.unwrap().is_empty());
}
