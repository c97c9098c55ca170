//! Builders for the domain values the client works on, and a client pointed at a wiremock server.

use herald_cloudapi::{CloudApiClient, CloudApiConfig};
use herald_domain::ids::{MessageId, OrganizationId, SenderId};
use herald_domain::message::{Message, MessageContent};
use herald_domain::organization::{NetworkRef, SenderNumber};
use herald_domain::ports::{MessagingNetwork, NetworkError, NetworkReceipt};
use herald_domain::template::TemplateText;
use herald_domain::values::PhoneNumber;
use secrecy::SecretString;
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

pub const VERSION: &str = "v23.0";
pub const PHONE_NUMBER_ID: &str = "106540352242922";
pub const WABA_ID: &str = "102290129340398";
pub const APP_ID: &str = "987654321012345";
pub const TOKEN: &str = "test-token-not-a-secret";
pub const MESSAGE_ID: &str = "msg_01J0000000000000000000000A";
pub const WAMID: &str = "wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI1RjQyNUE3NEYxMzAzMzQ5MkEA";

pub fn config(base_url: &str) -> CloudApiConfig {
    CloudApiConfig {
        base_url: base_url.to_owned(),
        graph_version: VERSION.to_owned(),
        default_access_token: Some(SecretString::from(TOKEN)),
        request_timeout: Duration::from_secs(5),
        connect_timeout: Duration::from_secs(2),
        media_timeout: Duration::from_secs(60),
        media_download_hosts: vec![herald_cloudapi::META_MEDIA_HOST.to_owned()],
        app_id: Some(APP_ID.to_owned()),
    }
}

pub fn client(server: &MockServer) -> CloudApiClient {
    CloudApiClient::new(config(&server.uri())).unwrap()
}

pub fn sender() -> SenderNumber {
    SenderNumber {
        id: SenderId::parse("snd_01J0000000000000000000000B").unwrap(),
        organization_id: OrganizationId::parse("org_01J0000000000000000000000C").unwrap(),
        number: PhoneNumber::parse("+15550001111").unwrap(),
        phone_number_id: NetworkRef::parse(PHONE_NUMBER_ID).unwrap(),
        waba_id: NetworkRef::parse(WABA_ID).unwrap(),
        access_token_env: None,
        sealed_access_token: None,
        is_default: true,
        throughput_per_second: 80,
        created_at: chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
    }
}

pub fn message(content: MessageContent) -> Message {
    let sender = sender();
    Message::accepted(
        MessageId::parse(MESSAGE_ID).unwrap(),
        sender.organization_id,
        (sender.id, sender.number),
        PhoneNumber::parse("+16505551234").unwrap(),
        content,
        None,
        chrono::DateTime::from_timestamp(1_700_000_100, 0).unwrap(),
    )
}

pub fn text(value: &str) -> TemplateText {
    TemplateText::parse(value).unwrap()
}

/// The Cloud API's success answer.
pub fn accepted() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(serde_json::json!({
        "messaging_product": "whatsapp",
        "contacts": [{ "input": "+16505551234", "wa_id": "16505551234" }],
        "messages": [{ "id": WAMID, "message_status": "accepted" }]
    }))
}

/// A Graph error answer.
pub fn graph_error(status: u16, code: i64, details: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(serde_json::json!({
        "error": {
            "message": format!("(#{code}) Something"),
            "type": "OAuthException",
            "code": code,
            "error_data": { "messaging_product": "whatsapp", "details": details },
            "fbtrace_id": "Az8or2yhqkZfEZ-_4Qn_Bam"
        }
    }))
}

/// Mounts `response` on the messages path, sends `content`, and returns the outcome with the one request made.
pub async fn send_with(
    response: ResponseTemplate,
    content: MessageContent,
) -> (Result<NetworkReceipt, NetworkError>, Request) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(format!("/{VERSION}/{PHONE_NUMBER_ID}/messages")))
        .respond_with(response)
        .mount(&server)
        .await;
    let outcome = client(&server)
        .send(&sender(), &message(content), &no_media())
        .await;
    let mut requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1, "exactly one request reaches the network");
    (outcome, requests.remove(0))
}

/// No stored files to send by id.
pub fn no_media() -> herald_domain::ports::NetworkMediaIds {
    herald_domain::ports::NetworkMediaIds::new()
}
