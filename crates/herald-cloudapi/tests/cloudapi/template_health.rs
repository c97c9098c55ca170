//! The template listing's quality rating and rejection reason (`quality_score.score`, `rejected_reason`),
//! asked for and read into each template's health, so a sync fills what the template webhooks change.

use crate::helpers::*;
use herald_domain::ports::MessagingNetwork;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn quality_and_rejection_reason_are_asked_for_and_read() {
    let server = MockServer::start().await;
    let body = |text: &str| json!([{ "type": "BODY", "text": text }]);
    Mock::given(method("GET"))
        .and(path(format!("/{VERSION}/{WABA_ID}/message_templates")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "data": [
            { "id": "1", "name": "rated", "language": "en_US", "status": "APPROVED", "category": "UTILITY",
              "components": body("Hi"), "quality_score": { "score": "YELLOW", "date": 1_700_000_000 },
              "rejected_reason": "NONE" },
            { "id": "2", "name": "refused", "language": "en_US", "status": "REJECTED", "category": "MARKETING",
              "components": body("Buy"), "rejected_reason": "INVALID_FORMAT" },
            { "id": "3", "name": "odd_rating", "language": "en_US", "status": "APPROVED", "category": "UTILITY",
              "components": body("Hi"), "quality_score": { "score": "not a rating" } }
        ] })))
        .mount(&server)
        .await;

    let templates = client(&server).templates(&sender()).await.unwrap();

    let requests = server.received_requests().await.unwrap();
    let fields: String = requests[0]
        .url
        .query_pairs()
        .find(|(k, _)| k == "fields")
        .unwrap()
        .1
        .into_owned();
    for field in ["quality_score", "rejected_reason"] {
        assert!(fields.split(',').any(|f| f == field), "{fields} lacks {field}");
    }
    let health: Vec<(Option<&str>, Option<&str>)> = templates
        .iter()
        .map(|t| {
            (
                t.health.quality.as_ref().map(|q| q.as_str()),
                t.health.rejected_reason.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        health,
        [
            (Some("YELLOW"), None),
            (None, Some("INVALID_FORMAT")),
            (None, None)
        ],
        "NONE is no reason; a rating the network words otherwise is left out, the template kept"
    );
    assert!(templates.iter().all(|t| t.health.updated_at.is_none()));
}
