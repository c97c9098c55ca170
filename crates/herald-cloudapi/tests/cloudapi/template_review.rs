//! Template review: samples through the app's resumable upload, then submit, edit and delete, each on its
//! exact wire request.

use crate::helpers::*;
use herald_cloudapi::CloudApiClient;
use herald_domain::ports::{MediaUpload, NetworkError, SampleHandles, TemplateReview};
use herald_domain::template::TemplateName;
use herald_domain::template::definition::{Node, TemplateDefinition};
use serde_json::{Value, json};
use std::io::Write as _;
use wiremock::matchers::{body_bytes, body_json, header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn node(value: &Value) -> Node {
    match value {
        Value::Null => Node::Null,
        Value::Bool(b) => Node::Bool(*b),
        Value::Number(n) => Node::Number(n.to_string()),
        Value::String(s) => Node::Text(s.clone()),
        Value::Array(items) => Node::List(items.iter().map(node).collect()),
        Value::Object(fields) => Node::Object(fields.iter().map(|(k, v)| (k.clone(), node(v))).collect()),
    }
}

fn order_update() -> Value {
    json!({
        "name": "order_update", "language": "en_US", "category": "UTILITY",
        "components": [
            { "type": "BODY", "text": "Hi {{1}}, it ships today.", "example": { "body_text": [["Asha"]] } },
            { "type": "BUTTONS", "buttons": [{ "type": "QUICK_REPLY", "text": "Thanks" }] }
        ]
    })
}

fn definition(value: &Value) -> TemplateDefinition {
    TemplateDefinition::parse(&node(value)).unwrap()
}

#[tokio::test]
async fn a_submission_posts_metas_body_to_the_business_account() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(format!("/{VERSION}/{WABA_ID}/message_templates")))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .and(body_json(order_update()))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(
                json!({ "id": "594425479261596", "status": "PENDING", "category": "UTILITY" }),
            ),
        )
        .expect(1)
        .mount(&server)
        .await;
    let submitted = client(&server)
        .submit_template(&sender(), &definition(&order_update()), &SampleHandles::new())
        .await
        .unwrap();
    assert_eq!(submitted.network_id, "594425479261596");
    assert_eq!(submitted.status.as_str(), "PENDING");
    assert_eq!(submitted.category, "UTILITY");
}

#[tokio::test]
async fn a_refused_submission_is_a_permanent_error_with_metas_reason() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(format!("/{VERSION}/{WABA_ID}/message_templates")))
        .respond_with(graph_error(400, 100, "Invalid parameter"))
        .mount(&server)
        .await;
    let error = client(&server)
        .submit_template(&sender(), &definition(&order_update()), &SampleHandles::new())
        .await
        .unwrap_err();
    assert!(
        matches!(error, NetworkError::Permanent(ref e) if e.network_code == Some(100)),
        "{error:?}"
    );
}

#[tokio::test]
async fn an_edit_posts_the_components_to_the_template_and_goes_back_to_review() {
    let server = MockServer::start().await;
    let expected = json!({ "category": "UTILITY", "components": order_update()["components"] });
    Mock::given(method("POST"))
        .and(path(format!("/{VERSION}/594425479261596")))
        .and(body_json(expected))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "success": true })))
        .expect(1)
        .mount(&server)
        .await;
    let edited = client(&server)
        .edit_template(
            &sender(),
            "594425479261596",
            &definition(&order_update()),
            &SampleHandles::new(),
        )
        .await
        .unwrap();
    assert_eq!(edited.status.as_str(), "PENDING");
    let refused = client(&server)
        .edit_template(
            &sender(),
            "../me",
            &definition(&order_update()),
            &SampleHandles::new(),
        )
        .await;
    assert!(
        refused.is_err(),
        "a network id that is not numeric never reaches the URL"
    );
}

#[tokio::test]
async fn a_delete_names_the_template_and_optionally_one_language() {
    let server = MockServer::start().await;
    Mock::given(method("DELETE"))
        .and(path(format!("/{VERSION}/{WABA_ID}/message_templates")))
        .and(query_param("name", "order_update"))
        .and(query_param("hsm_id", "594425479261596"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "success": true })))
        .expect(1)
        .mount(&server)
        .await;
    client(&server)
        .delete_template(
            &sender(),
            &TemplateName::parse("order_update").unwrap(),
            Some("594425479261596".to_owned()),
        )
        .await
        .unwrap();
}

fn sample(bytes: &[u8]) -> MediaUpload {
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(bytes).unwrap();
    std::io::Seek::rewind(&mut file).unwrap();
    MediaUpload {
        file,
        size: bytes.len() as u64,
        mime_type: "image/png".to_owned(),
        filename: "sample.png".to_owned(),
    }
}

#[tokio::test]
async fn a_sample_goes_through_the_apps_resumable_upload() {
    let server = MockServer::start().await;
    let bytes = b"\x89PNG\r\n\x1a\nsample-bytes".to_vec();
    Mock::given(method("POST"))
        .and(path(format!("/{VERSION}/{APP_ID}/uploads")))
        .and(query_param("file_name", "sample.png"))
        .and(query_param("file_length", bytes.len().to_string().as_str()))
        .and(query_param("file_type", "image/png"))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "id": "upload:MTphdHRhY2htZW50" })))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(format!("/{VERSION}/upload:MTphdHRhY2htZW50")))
        .and(header("authorization", format!("OAuth {TOKEN}").as_str()))
        .and(header("file_offset", "0"))
        .and(body_bytes(bytes.clone()))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "h": "4::aW1hZ2U=" })))
        .expect(1)
        .mount(&server)
        .await;
    let handle = client(&server)
        .upload_sample(&sender(), sample(&bytes))
        .await
        .unwrap();
    assert_eq!(handle, "4::aW1hZ2U=");
}

#[tokio::test]
async fn without_an_app_id_a_sample_cannot_be_uploaded() {
    let server = MockServer::start().await;
    let mut config = config(&server.uri());
    config.app_id = None;
    let error = CloudApiClient::new(config)
        .unwrap()
        .upload_sample(&sender(), sample(b"x"))
        .await
        .unwrap_err();
    assert!(matches!(error, NetworkError::Credentials { .. }), "{error:?}");
    assert!(server.received_requests().await.unwrap_or_default().is_empty());
}
