//! `POST /webhooks/whatsapp` over mocked ports: which path a callback takes.

use crate::helpers::{now, sender};
use actix_web::{App, test, web};
use herald_domain::ids::MessageId;
use herald_domain::network::{NetworkEvent, NetworkStatusReport, ParsedCallback, ReportedStatus};
use herald_domain::organization::NetworkRef;
use herald_domain::ports::{
    CallbackAuthenticator, MockAccountStore, MockCallbackDecoder, MockClock, MockIdGenerator,
    MockTrackingStore,
};
use herald_domain::usecases::ProcessCallbacks;
use herald_http::network::{self, NetworkWebhook};
use std::sync::Arc;
use ulid::Ulid;

struct Signed;

impl CallbackAuthenticator for Signed {
    fn signature_valid(&self, signature: Option<&str>, _: &[u8]) -> bool {
        signature == Some("sha256=valid")
    }

    fn verify_token_valid(&self, _: &str) -> bool {
        false
    }
}

/// One status report of a message the store knows, decoded from any body.
fn one_status() -> MockCallbackDecoder {
    let mut decoder = MockCallbackDecoder::new();
    decoder.expect_decode().returning(|_| {
        Ok(ParsedCallback {
            events: vec![NetworkEvent::Status(NetworkStatusReport {
                phone_number_id: NetworkRef::parse("1000000001").unwrap(),
                network_message_id: "wamid.INLINE".to_owned(),
                callback_data: Some(MessageId::from_ulid(Ulid::from_parts(1, 9)).to_string()),
                status: ReportedStatus::Delivered,
                occurred_at: now(),
                recipient: None,
                recipient_user_id: None,
                error: None,
                pricing: None,
            })],
            skipped: Vec::new(),
            unknown_fields: Vec::new(),
        })
    });
    decoder
}

/// While every permit for processing stored callbacks is taken (a burst's excess waiting its turn), a new
/// status callback is still stored and applied by one transaction before its `200`, not stored alone to wait
/// behind them: sharing one bound let a burst's excess keep every later callback on the dearer path.
#[actix_web::test]
async fn a_status_callback_is_applied_as_it_arrives_while_stored_ones_wait_for_processing() {
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_sender_by_phone_number_id()
        .returning(|_| Ok(Some(sender())));
    let mut tracking = MockTrackingStore::new();
    tracking
        .expect_store_callback_applying_status()
        .times(1)
        .returning(|_, _, _| Ok(None));
    tracking
        .expect_mark_callback_processed()
        .returning(|_, _, _| Ok(()));
    tracking.expect_store_callback().never();
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let mut ids = MockIdGenerator::new();
    ids.expect_next_ulid().returning(|| Ulid::from_parts(2, 1));
    let callbacks = ProcessCallbacks::new(
        Arc::new(accounts),
        Arc::new(tracking),
        Arc::new(one_status()),
        Arc::new(clock),
        Arc::new(ids),
    );
    let webhook = web::Data::new(NetworkWebhook::new(Arc::new(callbacks), Arc::new(Signed), 1));
    let _waiting = Arc::clone(&webhook.processing)
        .try_acquire_owned()
        .expect("the only processing permit");
    let app =
        test::init_service(App::new().configure(|config| network::configure(config, webhook.clone()))).await;

    let response = test::call_service(
        &app,
        test::TestRequest::post()
            .uri("/webhooks/whatsapp")
            .insert_header(("x-hub-signature-256", "sha256=valid"))
            .set_payload(r#"{"object":"whatsapp_business_account"}"#)
            .to_request(),
    )
    .await;

    assert_eq!(response.status(), 200);
}
