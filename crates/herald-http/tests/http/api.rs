//! The application's behaviour over HTTP: auth, problems, routing, sends, reads.

use crate::helpers::*;
use actix_web::test::{self, TestRequest};
use herald_domain::ids::{MessageId, TemplateId};
use herald_domain::message::{Message, MessageContent, MessageStatus};
use herald_domain::ports::{AcceptOutcome, IdempotencyBegin, StoreError};
use herald_domain::template::{
    BodySpec, HeaderSpec, LanguageCode, Template, TemplateName, TemplateStatus, TemplateStructure,
};
use herald_domain::values::{MessageText, PhoneNumber, RequestFingerprint};
use herald_domain::window::ServiceWindow;
use herald_http::app;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use ulid::Ulid;

fn stored_message(n: u128) -> Message {
    Message::accepted(
        MessageId::from_ulid(Ulid::from_parts(1_795_256_130_000, n)),
        org_id(),
        (sender().id, sender().number),
        PhoneNumber::parse("+15551234567").unwrap(),
        MessageContent::Text {
            body: MessageText::parse("Hi").unwrap(),
            preview_url: false,
        },
        None,
        now(),
    )
}

fn hello_world() -> Template {
    Template {
        id: TemplateId::from_ulid(Ulid::from_parts(1, 9)),
        organization_id: org_id(),
        waba_id: sender().waba_id,
        name: TemplateName::parse("hello_world").unwrap(),
        language: LanguageCode::parse("en_US").unwrap(),
        status: TemplateStatus::approved(),
        category: "UTILITY".into(),
        structure: TemplateStructure {
            header: HeaderSpec::None,
            body: BodySpec::Positional(0),
            buttons: vec![],
            ..TemplateStructure::default()
        },
        network_id: None,
        synced_at: now(),
        health: Default::default(),
    }
}

#[actix_web::test]
async fn auth_failures_are_problems_without_an_oracle() {
    let app = test::init_service(app(World::new().context())).await;
    let mut bodies = Vec::new();
    for authorization in [
        None,
        Some("Basic dXNlcjpwYXNz".to_owned()),
        Some("Bearer not-a-key".to_owned()),
        Some(format!("Bearer {UNKNOWN_KEY}")),
    ] {
        let mut req = TestRequest::get().uri("/api/v1/messages");
        if let Some(value) = &authorization {
            req = req.insert_header(("Authorization", value.as_str()));
        }
        let reply = call(&app, req.to_request()).await;
        reply.assert_problem(401, "unauthenticated");
        assert_eq!(reply.header("www-authenticate"), Some("Bearer realm=\"herald\""));
        let mut body = reply.json.clone();
        body.as_object_mut().unwrap().remove("request_id");
        bodies.push(body);
    }
    assert!(
        bodies.windows(2).all(|w| w[0] == w[1]),
        "identical bodies: {bodies:?}"
    );

    let req = TestRequest::get()
        .uri("/api/v1/messages")
        .insert_header(("Authorization", format!("Bearer {DISABLED_KEY}")));
    call(&app, req.to_request())
        .await
        .assert_problem(401, "api_key_disabled");
    let req = TestRequest::get()
        .uri("/api/v1/messages")
        .insert_header(("Authorization", format!("Bearer {SUSPENDED_KEY}")));
    call(&app, req.to_request())
        .await
        .assert_problem(403, "account_inactive");
}

#[actix_web::test]
async fn authentication_comes_before_the_body() {
    let app = test::init_service(app(World::new().context())).await;
    let req = TestRequest::post()
        .uri("/api/v1/messages/send-text")
        .insert_header(("content-type", "text/plain"))
        .set_payload("{not json");
    call(&app, req.to_request())
        .await
        .assert_problem(401, "unauthenticated");
}

#[actix_web::test]
async fn preflight_is_refused_and_no_cors_headers_are_sent() {
    let app = test::init_service(app(World::new().context())).await;
    for path in ["/api/v1/messages/send-text", "/api/v1/nowhere"] {
        let req = TestRequest::default()
            .method(actix_web::http::Method::OPTIONS)
            .uri(path)
            .insert_header(("Origin", "https://evil.example"))
            .insert_header(("Access-Control-Request-Method", "POST"));
        let reply = call(&app, req.to_request()).await;
        reply.assert_problem(403, "cors_forbidden");
        assert!(
            reply
                .headers
                .keys()
                .all(|h| !h.as_str().starts_with("access-control"))
        );
    }
    let req = authed(TestRequest::get().uri("/api/v1/messages/msg_x"))
        .insert_header(("Origin", "https://evil.example"));
    let reply = call(&app, req.to_request()).await;
    assert!(
        reply
            .headers
            .keys()
            .all(|h| !h.as_str().starts_with("access-control"))
    );
}

#[actix_web::test]
async fn unknown_paths_and_methods() {
    let app = test::init_service(app(World::new().context())).await;
    call(&app, TestRequest::get().uri("/nowhere").to_request())
        .await
        .assert_problem(404, "not_found");
    call(
        &app,
        authed(TestRequest::get().uri("/api/v1/nowhere")).to_request(),
    )
    .await
    .assert_problem(404, "not_found");
    call(
        &app,
        authed(TestRequest::get().uri("/api/v1/messages/send-text")).to_request(),
    )
    .await
    .assert_problem(405, "method_not_allowed");
    call(&app, TestRequest::post().uri("/healthz").to_request())
        .await
        .assert_problem(405, "method_not_allowed");
    call(
        &app,
        authed(TestRequest::delete().uri("/api/v1/messages")).to_request(),
    )
    .await
    .assert_problem(405, "method_not_allowed");
}

#[actix_web::test]
async fn body_problems() {
    let app = test::init_service(app(World::new().context())).await;
    let req = authed(TestRequest::post().uri("/api/v1/messages/send-text")).set_payload("{\"to\": ");
    call(
        &app,
        req.insert_header(("content-type", "application/json"))
            .to_request(),
    )
    .await
    .assert_problem(400, "invalid_json");
    let req = authed(TestRequest::post().uri("/api/v1/messages/send-text"))
        .insert_header(("content-type", "text/plain"))
        .set_payload("{}");
    call(&app, req.to_request())
        .await
        .assert_problem(415, "unsupported_media_type");
    let big = json!({"to": "+15551234567", "message": "a".repeat(256 * 1024)});
    call(&app, post_json("/api/v1/messages/send-text", &big).to_request())
        .await
        .assert_problem(413, "payload_too_large");
}

#[actix_web::test]
async fn a_broadcast_body_may_be_up_to_16_mib() {
    let app = test::init_service(app(World::new().context())).await;
    // Past a send's 256 KiB: read, and judged (here: no template, so nothing else is looked up).
    let rows: Vec<Value> = (0..5_000)
        .map(|i| json!({"to": format!("+1555{i:07}"), "client_reference": "r".repeat(100)}))
        .collect();
    let body = json!({"recipients": rows});
    assert!(body.to_string().len() > 256 * 1024);
    let reply = call(&app, post_json("/api/v1/broadcasts", &body).to_request()).await;
    reply.assert_problem(422, "validation_failed");
    assert_eq!(reply.error_fields(), ["template"]);
    let huge =
        json!({"recipients": [{"to": "+15551234567", "client_reference": "r".repeat(16 * 1024 * 1024)}]});
    call(&app, post_json("/api/v1/broadcasts", &huge).to_request())
        .await
        .assert_problem(413, "payload_too_large");
    let req = authed(TestRequest::post().uri("/api/v1/broadcasts"))
        .insert_header(("content-type", "text/plain"))
        .set_payload("{}");
    call(&app, req.to_request())
        .await
        .assert_problem(415, "unsupported_media_type");
}

#[actix_web::test]
async fn field_errors_are_collected_after_plan_and_rate() {
    let app = test::init_service(app(World::new().context())).await;
    let body = json!({
        "to": 15551234567u64,
        "template": {"name": "order_shipped", "language": "english"},
        "variables": {"body": ["Ana", ""], "buttons": [{"index": 0, "sub_type": "url", "values": [1]}]},
        "client_reference": ""
    });
    let req =
        post_json("/api/v1/messages/send-template", &body).insert_header(("Idempotency-Key", "has space"));
    let reply = call(&app, req.to_request()).await;
    reply.assert_problem(422, "validation_failed");
    assert_eq!(
        reply.error_fields(),
        [
            "to",
            "template.language",
            "variables.body[1]",
            "variables.buttons[0].values[0]",
            "client_reference",
            "Idempotency-Key"
        ]
    );
}

#[actix_web::test]
async fn a_template_send_is_accepted_and_replayed() {
    let mut world = World::new();
    let stored: Arc<Mutex<Option<(RequestFingerprint, Message)>>> = Arc::default();
    world
        .templates
        .expect_template()
        .returning(|_, _, _, _| Ok(Some(hello_world().into())));
    let state = stored.clone();
    world.messages.expect_begin_idempotent().returning(move |claim| {
        let mut guard = state.lock().unwrap();
        Ok(match &*guard {
            Some((fingerprint, message)) => IdempotencyBegin::Completed {
                fingerprint: *fingerprint,
                message_id: message.id,
            },
            None => {
                *guard = Some((claim.fingerprint, stored_message(0)));
                IdempotencyBegin::Started
            }
        })
    });
    let state = stored.clone();
    world.messages.expect_accept().times(1).returning(move |request| {
        let mut guard = state.lock().unwrap();
        let fingerprint = guard.as_ref().unwrap().0;
        *guard = Some((fingerprint, request.message.clone()));
        Ok(AcceptOutcome::Accepted)
    });
    let state = stored.clone();
    world
        .messages
        .expect_message()
        .returning(move |_, _| Ok(state.lock().unwrap().as_ref().map(|(_, m)| m.clone())));
    let app = test::init_service(app(world.context())).await;

    let first = r#"{"to": "+15551234567", "template": {"name": "hello_world", "language": "en_US"}, "client_reference": "order-1"}"#;
    let again = r#"{"client_reference":"order-1","template":{"language":"en_US","name":"hello_world"},
                    "to":"+15551234567"}"#;
    let mut replies = Vec::new();
    for body in [first, again] {
        let req = authed(TestRequest::post().uri("/api/v1/messages/send-template"))
            .insert_header(("content-type", "application/json"))
            .insert_header(("Idempotency-Key", "order-1/attempt"))
            .set_payload(body);
        replies.push(call(&app, req.to_request()).await);
    }
    let (accepted, replayed) = (&replies[0], &replies[1]);
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    let id = accepted.json["id"].as_str().unwrap();
    assert!(id.starts_with("msg_"));
    assert_eq!(
        accepted.header("location"),
        Some(format!("/api/v1/messages/{id}").as_str())
    );
    assert_eq!(accepted.header("idempotent-replayed"), None);
    assert_eq!(accepted.json["status"], "accepted");
    assert_eq!(accepted.json["type"], "template");
    assert_eq!(accepted.json["from"], SENDER);
    assert_eq!(
        accepted.json["template"],
        json!({"name": "hello_world", "language": "en_US"})
    );
    assert_eq!(accepted.json["client_reference"], "order-1");
    assert_eq!(accepted.json["created_at"], "2026-11-21T10:15:30.123Z");

    assert_eq!(replayed.status, 202, "{}", replayed.text);
    assert_eq!(replayed.header("idempotent-replayed"), Some("true"));
    assert_eq!(
        replayed.json, accepted.json,
        "same body, whatever the key order and whitespace"
    );
    assert_eq!(replayed.header("location"), accepted.header("location"));
}

#[actix_web::test]
async fn a_text_outside_the_window_is_refused() {
    let mut world = World::new();
    world.windows.expect_window().returning(|_, _, _| Ok(None));
    let app = test::init_service(app(world.context())).await;
    let body = json!({"to": "+15551234567", "type": "text", "message": "Hi"});
    let reply = call(
        &app,
        post_json("/api/v1/messages/send-template", &body).to_request(),
    )
    .await;
    reply.assert_problem(422, "service_window_closed");
    assert!(reply.json["detail"].as_str().unwrap().contains("+15551234567"));
}

#[actix_web::test]
async fn a_down_store_is_503_with_retry_after() {
    let mut world = World::new();
    world.messages.expect_message().returning(|_, _| {
        Err(StoreError::Unavailable(
            "connection refused to db.internal:5432".into(),
        ))
    });
    let app = test::init_service(app(world.context())).await;
    let id = stored_message(1).id;
    let reply = call(
        &app,
        authed(TestRequest::get().uri(&format!("/api/v1/messages/{id}"))).to_request(),
    )
    .await;
    reply.assert_problem(503, "unavailable");
    assert!(reply.header("retry-after").is_some());
    assert!(!reply.text.contains("db.internal"));
}

#[actix_web::test]
async fn reading_messages() {
    let mut world = World::new();
    let known = stored_message(7);
    let found = known.clone();
    world
        .messages
        .expect_message()
        .returning(move |_, id| Ok((*id == found.id).then(|| found.clone())));
    world.messages.expect_status_history().returning(|_, _| Ok(None));
    let app = test::init_service(app(world.context())).await;

    let reply = call(
        &app,
        authed(TestRequest::get().uri(&format!("/api/v1/messages/{}", known.id))).to_request(),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(reply.json["id"], known.id.to_string());
    assert_eq!(reply.json["text"], "Hi");
    assert_eq!(reply.json["timestamps"]["accepted"], "2026-11-21T10:15:30.123Z");

    let other = stored_message(8).id;
    for path in [
        format!("/api/v1/messages/{other}"),
        "/api/v1/messages/not-an-id".to_owned(),
        format!("/api/v1/messages/{other}/events"),
        "/api/v1/messages/msg_zzz/events".to_owned(),
    ] {
        call(&app, authed(TestRequest::get().uri(&path)).to_request())
            .await
            .assert_problem(404, "not_found");
    }
}

#[actix_web::test]
async fn the_log_pages_with_opaque_cursors() {
    let mut world = World::new();
    let seen_before: Arc<Mutex<Vec<Option<MessageId>>>> = Arc::default();
    let seen = seen_before.clone();
    world.messages.expect_messages().returning(move |_, query| {
        seen.lock().unwrap().push(query.before);
        // Three rows for a limit of 2 (the use case asks for one more): there is a next page.
        Ok((0..query.limit.min(3))
            .map(|n| stored_message(100 - u128::from(n)))
            .collect())
    });
    let app = test::init_service(app(world.context())).await;

    let reply = call(
        &app,
        authed(TestRequest::get().uri("/api/v1/messages?limit=2&status=accepted")).to_request(),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(reply.json["data"].as_array().unwrap().len(), 2);
    let cursor = reply.json["next_cursor"].as_str().unwrap().to_owned();
    let last = reply.json["data"][1]["id"].as_str().unwrap().to_owned();
    assert!(!cursor.contains(&last));

    let reply = call(
        &app,
        authed(TestRequest::get().uri(&format!("/api/v1/messages?limit=2&cursor={cursor}"))).to_request(),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let seen = seen_before.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0], None);
    assert_eq!(seen[1].unwrap().to_string(), last);

    let reply = call(
        &app,
        authed(TestRequest::get().uri("/api/v1/messages?cursor=bogus&limit=500&to=%2B1")).to_request(),
    )
    .await;
    reply.assert_problem(422, "validation_failed");
    assert_eq!(reply.error_fields(), ["cursor", "limit", "to"]);
}

#[actix_web::test]
async fn the_window_takes_encoded_and_literal_plus() {
    let mut world = World::new();
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let record = asked.clone();
    world.windows.expect_window().returning(move |_, _, recipient| {
        record.lock().unwrap().push(recipient.to_string());
        Ok(Some(ServiceWindow {
            organization_id: org_id(),
            sender_id: sender().id,
            recipient: recipient.clone(),
            last_inbound_at: now() - chrono::TimeDelta::hours(1),
        }))
    });
    let app = test::init_service(app(world.context())).await;
    for path in [
        "/api/v1/contacts/%2B15551234567/window",
        "/api/v1/contacts/+15551234567/window",
        "/api/v1/contacts/%2b15551234567/window?from=%2B15550001111",
    ] {
        let reply = call(&app, authed(TestRequest::get().uri(path)).to_request()).await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.text);
        assert_eq!(
            reply.json,
            json!({
                "number": "+15551234567",
                "from": SENDER,
                "open": true,
                "last_inbound_at": "2026-11-21T09:15:30.123Z",
                "expires_at": "2026-11-22T09:15:30.123Z"
            }),
            "{path}"
        );
    }
    assert_eq!(asked.lock().unwrap().len(), 3);
    // In a query string `+` means a space, so an unencoded `from` is refused rather than guessed.
    let reply = call(
        &app,
        authed(TestRequest::get().uri("/api/v1/contacts/15551234567/window?from=+15550001111")).to_request(),
    )
    .await;
    reply.assert_problem(422, "validation_failed");
    assert_eq!(reply.error_fields(), ["number", "from"]);
}

#[actix_web::test]
async fn request_ids_are_echoed_only_when_safe() {
    let app = test::init_service(app(World::new().context())).await;
    let reply = call(
        &app,
        TestRequest::get()
            .uri("/healthz")
            .insert_header(("X-Request-Id", "client-42.a_b"))
            .to_request(),
    )
    .await;
    assert_eq!(reply.header("x-request-id"), Some("client-42.a_b"));
    let reply = call(
        &app,
        TestRequest::get()
            .uri("/nowhere")
            .insert_header(("X-Request-Id", "bad id!"))
            .to_request(),
    )
    .await;
    let id = reply.header("x-request-id").unwrap();
    assert!(id.starts_with("req_") && id.len() == 30, "{id}");
    assert_eq!(reply.json["request_id"], id);
}

#[actix_web::test]
async fn operations_endpoints() {
    let app = test::init_service(app(World::new().context())).await;
    let reply = call(&app, TestRequest::get().uri("/healthz").to_request()).await;
    assert_eq!((reply.status, reply.json.clone()), (200, json!({"status": "ok"})));
    let reply = call(&app, TestRequest::get().uri("/readyz").to_request()).await;
    assert_eq!((reply.status, reply.json.clone()), (200, json!({"status": "ok"})));
    let reply = call(&app, TestRequest::get().uri("/api/v1/openapi.json").to_request()).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json, serde_json::to_value(herald_http::openapi()).unwrap());
    let reply = call(&app, TestRequest::get().uri("/docs").to_request()).await;
    assert_eq!(reply.status, 200);
    assert!(reply.header("content-type").unwrap().starts_with("text/html"));
    assert!(reply.text.contains("/api/v1/messages/send-template"));

    let mut world = World::new();
    world.ready = Err("migrations pending: 2026_11_01_outbox".into());
    let not_ready = test::init_service(herald_http::app(world.context())).await;
    let reply = call(&not_ready, TestRequest::get().uri("/readyz").to_request()).await;
    reply.assert_problem(503, "unavailable");
    assert!(reply.header("retry-after").is_some());
    assert!(!reply.text.contains("migrations pending"));
}

#[actix_web::test]
async fn status_is_never_changed_by_reads() {
    // A guard against a resource mapping that invents state: a delivered message reads as delivered.
    let mut world = World::new();
    let mut message = stored_message(3);
    message.status = MessageStatus::Delivered;
    message.network_message_id = Some("wamid.X".into());
    message.timestamps.delivered = Some(now());
    let found = message.clone();
    world
        .messages
        .expect_message()
        .returning(move |_, _| Ok(Some(found.clone())));
    let app = test::init_service(app(world.context())).await;
    let reply = call(
        &app,
        authed(TestRequest::get().uri(&format!("/api/v1/messages/{}", message.id))).to_request(),
    )
    .await;
    assert_eq!(reply.json["status"], "delivered");
    assert_eq!(reply.json["network_message_id"], "wamid.X");
    assert_eq!(reply.json["timestamps"]["delivered"], "2026-11-21T10:15:30.123Z");
}
