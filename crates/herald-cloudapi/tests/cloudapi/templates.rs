//! Listing templates: query, paging, and the parsed structure.

use crate::helpers::*;
use herald_domain::attachment::MediaKind;
use herald_domain::ports::{MessagingNetwork, NetworkError, NetworkTemplate};
use herald_domain::template::{BodySpec, ButtonKind, ButtonSpec, HeaderSpec, ParamName};
use serde_json::json;
use wiremock::matchers::{method, path, query_param, query_param_is_missing};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn button(index: u8, kind: ButtonKind, parameters: u8) -> ButtonSpec {
    ButtonSpec {
        index,
        kind,
        parameters,
    }
}

fn by_name<'a>(templates: &'a [NetworkTemplate], name: &str) -> &'a NetworkTemplate {
    templates
        .iter()
        .find(|t| t.name.as_str() == name)
        .unwrap_or_else(|| panic!("template {name} is missing"))
}

#[tokio::test]
async fn every_page_is_fetched_and_parsed() {
    let server = MockServer::start().await;
    let list_path = format!("/{VERSION}/{WABA_ID}/message_templates");
    let page_one = json!({
        "data": [
            {
                "id": "1689556908129832", "name": "order_shipped", "language": "en_US",
                "status": "APPROVED", "category": "UTILITY", "parameter_format": "POSITIONAL",
                "components": [
                    { "type": "HEADER", "format": "TEXT", "text": "Order {{1}}",
                      "example": { "header_text": ["ORD-1"] } },
                    { "type": "BODY", "text": "Hi {{1}}, order {{2}} ships {{3}}. Thanks {{1}}!",
                      "example": { "body_text": [["Asha", "ORD-9271", "Friday"]] } },
                    { "type": "FOOTER", "text": "Reply STOP to opt out" },
                    { "type": "BUTTONS", "buttons": [
                        { "type": "URL", "text": "Track", "url": "https://example.com/t/{{1}}",
                          "example": ["https://example.com/t/ORD-9271"] },
                        { "type": "QUICK_REPLY", "text": "Unsubscribe" },
                        { "type": "PHONE_NUMBER", "text": "Call us", "phone_number": "+15550001111" },
                        { "type": "URL", "text": "Help", "url": "https://example.com/help" }
                    ] }
                ]
            },
            {
                "id": "2", "name": "invoice_ready", "language": "en", "status": "PAUSED",
                "category": "UTILITY",
                "components": [
                    { "type": "HEADER", "format": "DOCUMENT", "example": { "header_handle": ["4::YX"] } },
                    { "type": "BODY", "text": "Your invoice, {{1}}." }
                ]
            },
            { "id": "3", "name": "Not A Valid Name", "language": "en", "status": "APPROVED",
              "category": "MARKETING", "components": [] },
            { "id": "4", "name": "gif_header", "language": "en", "status": "APPROVED",
              "category": "MARKETING",
              "components": [ { "type": "HEADER", "format": "GIF" }, { "type": "BODY", "text": "Hi" } ] }
        ],
        "paging": {
            "cursors": { "before": "QVFIB", "after": "QVFIA1" },
            "next": "https://graph.facebook.com/v23.0/102290129340398/message_templates?after=QVFIA1"
        }
    });
    let page_two = json!({
        "data": [
            {
                "id": "5", "name": "appointment_reminder", "language": "pt_BR", "status": "APPROVED",
                "category": "MARKETING", "parameter_format": "NAMED",
                "components": [
                    { "type": "HEADER", "format": "TEXT", "text": "Reminder" },
                    { "type": "BODY", "text": "Hi {{customer}}, see you {{date}}, {{customer}}.",
                      "example": { "body_text_named_params": [
                          { "param_name": "customer", "example": "Ana" },
                          { "param_name": "date", "example": "Friday" } ] } },
                    { "type": "BUTTONS", "buttons": [
                        { "type": "COPY_CODE", "example": "SAVE20" },
                        { "type": "FLOW", "text": "Book", "flow_id": "123" },
                        { "type": "VOICE_CALL", "text": "Call" }
                    ] }
                ]
            },
            {
                "id": "6", "name": "store_location", "language": "en_GB", "status": "APPROVED",
                "category": "UTILITY",
                "components": [
                    { "type": "HEADER", "format": "LOCATION" },
                    { "type": "BODY", "text": "Our store is open." }
                ]
            }
        ],
        "paging": { "cursors": { "before": "QVFIA1", "after": "QVFIA2" } }
    });
    Mock::given(method("GET"))
        .and(path(list_path.clone()))
        .and(query_param_is_missing("after"))
        .respond_with(ResponseTemplate::new(200).set_body_json(page_one))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(list_path.clone()))
        .and(query_param("after", "QVFIA1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(page_two))
        .expect(1)
        .mount(&server)
        .await;
    // Only reached if the client asked past the last page.
    Mock::given(method("GET"))
        .and(path(list_path))
        .and(query_param("after", "QVFIA2"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "data": [] })))
        .mount(&server)
        .await;

    let templates = client(&server).templates(&sender()).await.unwrap();

    let requests = server.received_requests().await.unwrap();
    let first = &requests[0];
    let query: Vec<(String, String)> = first.url.query_pairs().into_owned().collect();
    assert!(query.contains(&("limit".into(), "100".into())), "{query:?}");
    let fields = &query.iter().find(|(k, _)| k == "fields").unwrap().1;
    for field in [
        "name",
        "status",
        "language",
        "category",
        "components",
        "id",
        "parameter_format",
    ] {
        assert!(fields.split(',').any(|f| f == field), "{fields} lacks {field}");
    }
    assert_eq!(
        first.headers.get("authorization").unwrap().to_str().unwrap(),
        format!("Bearer {TOKEN}")
    );

    let names: Vec<&str> = templates.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "order_shipped",
            "invoice_ready",
            "appointment_reminder",
            "store_location"
        ],
        "unparseable templates are skipped, the others kept in order"
    );

    let order = by_name(&templates, "order_shipped");
    assert_eq!(order.language.as_str(), "en_US");
    assert!(order.status.is_approved());
    assert_eq!(order.category, "UTILITY");
    assert_eq!(order.network_id.as_deref(), Some("1689556908129832"));
    assert_eq!(order.structure.header, HeaderSpec::Text);
    assert_eq!(order.structure.body, BodySpec::Positional(3));
    assert_eq!(
        order.structure.buttons,
        [
            button(0, ButtonKind::Url, 1),
            button(1, ButtonKind::QuickReply, 0),
            button(2, ButtonKind::Static, 0),
            button(3, ButtonKind::Static, 0),
        ]
    );

    let invoice = by_name(&templates, "invoice_ready");
    assert_eq!(invoice.status.as_str(), "PAUSED");
    assert_eq!(invoice.structure.header, HeaderSpec::Media(MediaKind::Document));
    assert_eq!(invoice.structure.body, BodySpec::Positional(1));
    assert!(invoice.structure.buttons.is_empty());

    let reminder = by_name(&templates, "appointment_reminder");
    assert_eq!(reminder.structure.header, HeaderSpec::None);
    assert_eq!(
        reminder.structure.body,
        BodySpec::Named(vec![
            ParamName::parse("customer").unwrap(),
            ParamName::parse("date").unwrap()
        ])
    );
    assert_eq!(
        reminder.structure.buttons,
        [
            button(0, ButtonKind::CopyCode, 1),
            button(1, ButtonKind::Flow, 0),
            button(2, ButtonKind::Static, 0),
        ]
    );

    let store = by_name(&templates, "store_location");
    assert_eq!(store.structure.header, HeaderSpec::Location);
    assert_eq!(store.structure.body, BodySpec::Positional(0));
}

#[tokio::test]
async fn an_error_while_listing_is_classified() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(graph_error(401, 190, "Error validating access token"))
        .mount(&server)
        .await;
    let error = client(&server).templates(&sender()).await.unwrap_err();
    assert_eq!(
        error,
        NetworkError::Credentials {
            code: Some(190),
            detail: "Error validating access token".into()
        }
    );
}

fn simple(name: &str) -> serde_json::Value {
    json!({ "id": name, "name": name, "language": "en", "status": "APPROVED", "category": "UTILITY",
            "components": [ { "type": "BODY", "text": "Hello {{1}}" } ] })
}

#[tokio::test]
async fn next_links_are_followed_only_to_the_configured_server() {
    let server = MockServer::start().await;
    let list_path = format!("/{VERSION}/{WABA_ID}/message_templates");
    Mock::given(method("GET"))
        .and(path(list_path.clone()))
        .and(query_param_is_missing("page"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "data": [simple("first")],
            "paging": { "next": format!("{}{list_path}?page=2", server.uri()) }
        })))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(list_path.clone()))
        .and(query_param("page", "2"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "data": [simple("second")],
            "paging": { "next": "https://elsewhere.example/v23.0/1/message_templates?access_token=leak" }
        })))
        .expect(1)
        .mount(&server)
        .await;
    let templates = client(&server).templates(&sender()).await.unwrap();
    let names: Vec<&str> = templates.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["first", "second"]);
    assert_eq!(templates[1].structure.body, BodySpec::Positional(1));
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}
