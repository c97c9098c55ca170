//! The send path of a marketing template (docs/cloud-api.md §1.6): `/marketing_messages` with its own
//! field, `/messages` for everything else, and `auto` falling back to `/messages` when the Marketing
//! Messages API refuses the business.

use crate::helpers::*;
use herald_domain::marketing::{MarketingRoute, MarketingSend, NetworkRoute};
use herald_domain::message::{Message, MessageContent};
use herald_domain::ports::{MessagingNetwork, NetworkError, NetworkMediaIds};
use herald_domain::template::{LanguageCode, TemplateName, TemplateRef, TemplateVariables};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn promo(marketing: Option<MarketingSend>) -> Message {
    let mut message = message(MessageContent::Template {
        template: TemplateRef {
            name: TemplateName::parse("spring_promo").unwrap(),
            language: LanguageCode::parse("en_US").unwrap(),
        },
        variables: TemplateVariables::default(),
    });
    message.marketing = marketing;
    message
}

fn terms_not_accepted() -> ResponseTemplate {
    ResponseTemplate::new(400).set_body_json(json!({ "error": {
        "message": "(#200) You must accept the Marketing Messages Lite API terms to use the API.",
        "type": "OAuthException",
        "code": 131055,
        "fbtrace_id": "AacMONwqoqRZJidqSa1LDey"
    }}))
}

fn marketing_path() -> String {
    format!("/{VERSION}/{PHONE_NUMBER_ID}/marketing_messages")
}

fn messages_path() -> String {
    format!("/{VERSION}/{PHONE_NUMBER_ID}/messages")
}

/// Answers `times` POSTs to `at` with `response` (checked when the server drops).
async fn answer(server: &MockServer, at: String, response: ResponseTemplate, times: u64) {
    Mock::given(method("POST"))
        .and(path(at))
        .respond_with(response)
        .expect(times)
        .mount(server)
        .await;
}

async fn bodies(server: &MockServer, on: &str) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|request| request.url.path() == on)
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect()
}

#[tokio::test]
async fn the_marketing_route_posts_to_marketing_messages_with_activity_sharing() {
    let server = MockServer::start().await;
    answer(&server, marketing_path(), accepted(), 1).await;
    let message = promo(Some(MarketingSend {
        route: MarketingRoute::MarketingMessages,
        activity_sharing: Some(false),
    }));
    let receipt = client(&server)
        .send(&sender(), &message, &NetworkMediaIds::default())
        .await
        .unwrap();
    assert_eq!(receipt.route, NetworkRoute::MarketingMessages);
    assert_eq!(receipt.network_message_id, WAMID);
    let sent = bodies(&server, &marketing_path()).await;
    assert_eq!(sent[0]["message_activity_sharing"], false);
    assert_eq!(sent[0]["type"], "template");
    assert_eq!(sent[0]["template"]["name"], "spring_promo");
}

#[tokio::test]
async fn other_messages_and_the_cloud_api_route_post_to_messages_without_marketing_fields() {
    let server = MockServer::start().await;
    answer(&server, messages_path(), accepted(), 2).await;
    let client = client(&server);
    for marketing in [
        None,
        Some(MarketingSend {
            route: MarketingRoute::CloudApi,
            activity_sharing: Some(true),
        }),
    ] {
        let receipt = client
            .send(&sender(), &promo(marketing), &NetworkMediaIds::default())
            .await
            .unwrap();
        assert_eq!(receipt.route, NetworkRoute::CloudApi);
    }
    for body in bodies(&server, &messages_path()).await {
        assert!(body.get("message_activity_sharing").is_none(), "{body}");
    }
}

#[tokio::test]
async fn auto_falls_back_to_the_cloud_api_when_the_business_has_not_accepted_the_terms() {
    let server = MockServer::start().await;
    answer(&server, marketing_path(), terms_not_accepted(), 1).await;
    answer(&server, messages_path(), accepted(), 1).await;
    let message = promo(Some(MarketingSend {
        route: MarketingRoute::Auto,
        activity_sharing: Some(true),
    }));
    let receipt = client(&server)
        .send(&sender(), &message, &NetworkMediaIds::default())
        .await
        .unwrap();
    assert_eq!(receipt.route, NetworkRoute::CloudApi);
    let resent = bodies(&server, &messages_path()).await;
    assert!(
        resent[0].get("message_activity_sharing").is_none(),
        "{}",
        resent[0]
    );
}

#[tokio::test]
async fn auto_takes_marketing_messages_when_it_accepts() {
    let server = MockServer::start().await;
    answer(&server, marketing_path(), accepted(), 1).await;
    let message = promo(Some(MarketingSend::default()));
    let receipt = client(&server)
        .send(&sender(), &message, &NetworkMediaIds::default())
        .await
        .unwrap();
    assert_eq!(receipt.route, NetworkRoute::MarketingMessages);
    assert!(bodies(&server, &messages_path()).await.is_empty());
}

#[tokio::test]
async fn the_marketing_route_fails_for_good_when_refused() {
    let server = MockServer::start().await;
    answer(&server, marketing_path(), terms_not_accepted(), 1).await;
    let message = promo(Some(MarketingSend {
        route: MarketingRoute::MarketingMessages,
        activity_sharing: None,
    }));
    let error = client(&server)
        .send(&sender(), &message, &NetworkMediaIds::default())
        .await
        .unwrap_err();
    let NetworkError::Permanent(error) = error else {
        panic!("expected a permanent error, got {error:?}");
    };
    assert_eq!(error.code.as_str(), "marketing_messages_refused");
    assert_eq!(error.network_code, Some(131055));
    assert!(bodies(&server, &messages_path()).await.is_empty());
}
