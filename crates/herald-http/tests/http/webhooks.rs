//! The webhook endpoints over mocked ports: shapes, the secret shown only at create and rotate, and the
//! error mapping (404 across organizations, 403 over the plan, 422 naming the field).

use crate::helpers::{GENERATED_SECRET, World, authed, call, now, org_id, post_json};
use actix_web::test::{self, TestRequest};
use herald_domain::customer_event::CustomerEventType;
use herald_domain::ids::{DeliveryId, EventId, OrganizationId, WebhookId};
use herald_domain::organization::SealedSecret;
use herald_domain::webhook::{
    Delivery, DeliveryAttempt, DeliveryStatus, EventSelection, WebhookEndpoint, WebhookUrl,
};
use serde_json::json;
use std::sync::{Arc, Mutex};
use ulid::Ulid;

fn endpoint(n: u128) -> WebhookEndpoint {
    WebhookEndpoint {
        id: WebhookId::from_ulid(Ulid::from_parts(5, n)),
        organization_id: org_id(),
        url: WebhookUrl::parse("https://example.com/hook").unwrap(),
        events: EventSelection::ALL,
        description: Some("orders".into()),
        enabled: true,
        disabled_reason: None,
        secret: SealedSecret::new(b"=cesrev_cesr_hw".to_vec()),
        previous_secret: None,
        previous_secret_expires_at: None,
        failing_since: None,
        created_at: now(),
        updated_at: now(),
    }
}

#[actix_rt::test]
async fn create_shows_the_secret_once_and_reads_never_do() {
    let mut world = World::new();
    let created: Arc<Mutex<Vec<WebhookEndpoint>>> = Arc::default();
    world.destinations.expect_check().returning(|_| Ok(()));
    let stored = created.clone();
    world
        .webhooks
        .expect_endpoints()
        .returning(move |_| Ok(stored.lock().unwrap().clone()));
    let sink = created.clone();
    world.webhooks.expect_create_endpoint().returning(move |e, _| {
        sink.lock().unwrap().push(e.clone());
        Ok(true)
    });
    let app = test::init_service(herald_http::app(world.context())).await;

    let reply = call(
        &app,
        post_json(
            "/api/v1/webhooks",
            &json!({"url": "https://example.com/hook", "events": ["message.failed"], "description": "ops"}),
        )
        .to_request(),
    )
    .await;
    assert_eq!(reply.status, 201, "{}", reply.text);
    assert_eq!(reply.json["secret"], GENERATED_SECRET);
    assert_eq!(reply.json["events"], json!(["message.failed"]));
    assert_eq!(reply.json["enabled"], true);
    assert!(reply.json["disabled_reason"].is_null());
    let id = reply.json["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("whk_"));
    assert_eq!(
        reply.header("location"),
        Some(format!("/api/v1/webhooks/{id}").as_str())
    );
    let stored = created.lock().unwrap()[0].clone();
    assert_ne!(
        stored.secret.as_bytes(),
        GENERATED_SECRET.as_bytes(),
        "sealed at rest"
    );

    let list = call(
        &app,
        authed(TestRequest::get().uri("/api/v1/webhooks")).to_request(),
    )
    .await;
    assert_eq!(list.status, 200);
    assert_eq!(list.json["data"][0]["id"], id.as_str());
    assert!(!list.text.contains("whsec_"), "{}", list.text);
    assert!(list.json["data"][0].get("secret").is_none());
}

#[actix_rt::test]
async fn invalid_input_names_the_field() {
    let mut world = World::new();
    world.webhooks.expect_endpoints().returning(|_| Ok(vec![]));
    world
        .destinations
        .expect_check()
        .returning(|_| Err("the webhook host `127.0.0.1` is not a public address".into()));
    let app = test::init_service(herald_http::app(world.context())).await;

    for (body, fields) in [
        (json!({"events": ["message.status"]}), vec!["url"]),
        (json!({"url": "ftp://x"}), vec!["url"]),
        (
            json!({"url": "https://a.example", "events": ["message.nope"]}),
            vec!["events"],
        ),
        (json!({"url": "https://a.example", "events": []}), vec!["events"]),
        (
            json!({"url": "nope", "events": ["x"], "description": "d".repeat(501)}),
            vec!["url", "events", "description"],
        ),
        (json!({"url": "https://127.0.0.1/hook"}), vec!["url"]),
    ] {
        let reply = call(&app, post_json("/api/v1/webhooks", &body).to_request()).await;
        reply.assert_problem(422, "validation_failed");
        assert_eq!(reply.error_fields(), fields, "{body}");
    }
    let refused = call(
        &app,
        post_json("/api/v1/webhooks", &json!({"url": "https://127.0.0.1/hook"})).to_request(),
    )
    .await;
    assert!(
        refused.text.contains("is not a public address"),
        "{}",
        refused.text
    );
}

#[actix_rt::test]
async fn the_plan_caps_the_endpoint_count() {
    let mut world = World::new();
    // The business plan allows 10.
    world
        .webhooks
        .expect_endpoints()
        .returning(|_| Ok((0..10).map(endpoint).collect()));
    world.webhooks.expect_create_endpoint().never();
    let app = test::init_service(herald_http::app(world.context())).await;
    let reply = call(
        &app,
        post_json("/api/v1/webhooks", &json!({"url": "https://example.com/x"})).to_request(),
    )
    .await;
    reply.assert_problem(403, "plan_forbids");
    assert!(
        reply.json["detail"]
            .as_str()
            .unwrap()
            .contains("10 webhook endpoints")
    );
}

#[actix_rt::test]
async fn other_organizations_ids_and_garbage_are_not_found() {
    let mut world = World::new();
    world.webhooks.expect_endpoint().returning(|org, _| {
        assert_eq!(*org, org_id(), "always scoped to the caller's organization");
        Ok(None)
    });
    world
        .webhooks
        .expect_delete_endpoint()
        .returning(|_, _| Err(herald_domain::ports::StoreError::NotFound));
    world
        .webhooks
        .expect_redeliver()
        .returning(|_, _, _, _| Err(herald_domain::ports::StoreError::NotFound));
    world.webhooks.expect_patch_endpoint().returning(|org, _, _, _| {
        assert_eq!(*org, org_id(), "always scoped to the caller's organization");
        Err(herald_domain::ports::StoreError::NotFound)
    });
    world
        .webhooks
        .expect_rotate_endpoint_secret()
        .returning(|org, _, _, _, _| {
            assert_eq!(*org, org_id(), "always scoped to the caller's organization");
            Err(herald_domain::ports::StoreError::NotFound)
        });
    let app = test::init_service(herald_http::app(world.context())).await;
    let other = WebhookId::from_ulid(Ulid::from_parts(9, 9));
    let dlv = DeliveryId::from_ulid(Ulid::from_parts(9, 9));
    for req in [
        authed(TestRequest::get().uri(&format!("/api/v1/webhooks/{other}"))),
        authed(TestRequest::get().uri("/api/v1/webhooks/not-an-id")),
        authed(TestRequest::delete().uri(&format!("/api/v1/webhooks/{other}"))),
        authed(TestRequest::patch().uri(&format!("/api/v1/webhooks/{other}")))
            .set_json(json!({"enabled": false})),
        authed(TestRequest::post().uri(&format!("/api/v1/webhooks/{other}/rotate-secret"))),
        authed(TestRequest::post().uri(&format!("/api/v1/webhooks/{other}/test"))),
        authed(TestRequest::get().uri(&format!("/api/v1/webhooks/{other}/deliveries"))),
        authed(TestRequest::post().uri(&format!("/api/v1/webhooks/{other}/deliveries/{dlv}/redeliver"))),
        authed(TestRequest::post().uri(&format!("/api/v1/webhooks/{other}/recover")))
            .set_json(json!({"since": "2026-01-01T00:00:00Z"})),
    ] {
        let reply = call(&app, req.to_request()).await;
        reply.assert_problem(404, "not_found");
    }
    let unauthenticated = call(&app, TestRequest::get().uri("/api/v1/webhooks").to_request()).await;
    unauthenticated.assert_problem(401, "unauthenticated");
}

#[actix_rt::test]
async fn patch_rotate_test_delete_and_recover() {
    let mut world = World::new();
    let current = Arc::new(Mutex::new(endpoint(1)));
    let id = current.lock().unwrap().id;
    let read = current.clone();
    world
        .webhooks
        .expect_endpoint()
        .returning(move |_, _| Ok(Some(read.lock().unwrap().clone())));
    let write = current.clone();
    world
        .webhooks
        .expect_patch_endpoint()
        .returning(move |_, _, patch, at| {
            patch.apply_to(&mut write.lock().unwrap(), at);
            Ok(())
        });
    let rotate = current.clone();
    world
        .webhooks
        .expect_rotate_endpoint_secret()
        .returning(move |_, _, secret, until, at| {
            let mut stored = rotate.lock().unwrap();
            stored.previous_secret = Some(std::mem::replace(&mut stored.secret, secret.clone()));
            stored.previous_secret_expires_at = Some(until);
            stored.updated_at = at;
            Ok(())
        });
    world.destinations.expect_check().returning(|_| Ok(()));
    world
        .webhooks
        .expect_record_test_event()
        .returning(|_, _, test, _| {
            assert!(
                test.payload.contains(r#""type":"webhook.test""#),
                "{}",
                test.payload
            );
            Ok(true)
        });
    world.webhooks.expect_delete_endpoint().returning(|_, _| Ok(()));
    world.webhooks.expect_recover().returning(|_, _, since, _| {
        assert_eq!(since.to_rfc3339(), "2026-01-02T03:04:05+00:00");
        Ok(3)
    });
    let app = test::init_service(herald_http::app(world.context())).await;
    let path = format!("/api/v1/webhooks/{id}");

    let patched = call(
        &app,
        authed(TestRequest::patch().uri(&path))
            .set_json(json!({"enabled": false, "description": null, "events": ["message.inbound"]}))
            .to_request(),
    )
    .await;
    assert_eq!(patched.status, 200, "{}", patched.text);
    assert_eq!(patched.json["enabled"], false);
    assert!(patched.json["description"].is_null());
    assert_eq!(patched.json["events"], json!(["message.inbound"]));
    assert_eq!(patched.json["url"], "https://example.com/hook", "untouched");
    let bad = call(
        &app,
        authed(TestRequest::patch().uri(&path))
            .set_json(json!({"url": "mailto:x"}))
            .to_request(),
    )
    .await;
    bad.assert_problem(422, "validation_failed");
    assert_eq!(bad.error_fields(), ["url"]);

    let rotated = call(
        &app,
        authed(TestRequest::post().uri(&format!("{path}/rotate-secret"))).to_request(),
    )
    .await;
    assert_eq!(rotated.status, 200, "{}", rotated.text);
    assert_eq!(rotated.json["secret"], GENERATED_SECRET);
    assert!(rotated.json["secret_rotated_until"].is_string());
    let after = call(&app, authed(TestRequest::get().uri(&path)).to_request()).await;
    assert!(!after.text.contains("whsec_"), "{}", after.text);
    assert!(after.json["secret_rotated_until"].is_string());

    let tested = call(
        &app,
        authed(TestRequest::post().uri(&format!("{path}/test"))).to_request(),
    )
    .await;
    assert_eq!(tested.status, 202, "{}", tested.text);
    assert!(tested.json["event_id"].as_str().unwrap().starts_with("evt_"));

    let recovered = call(
        &app,
        authed(TestRequest::post().uri(&format!("{path}/recover")))
            .set_json(json!({"since": "2026-01-02T03:04:05Z"}))
            .to_request(),
    )
    .await;
    assert_eq!(recovered.status, 202, "{}", recovered.text);
    assert_eq!(recovered.json, json!({"requeued": 3}));
    let no_since = call(
        &app,
        authed(TestRequest::post().uri(&format!("{path}/recover")))
            .set_json(json!({"since": "yesterday"}))
            .to_request(),
    )
    .await;
    no_since.assert_problem(422, "validation_failed");
    assert_eq!(no_since.error_fields(), ["since"]);

    let deleted = call(&app, authed(TestRequest::delete().uri(&path)).to_request()).await;
    assert_eq!(deleted.status, 204);
    assert!(deleted.text.is_empty());
}

/// What one `deliveries` call was asked: status filter, cursor, limit.
type Seen = (Option<DeliveryStatus>, Option<DeliveryId>, u32);

#[actix_rt::test]
async fn deliveries_page_with_attempts_and_cursors() {
    let mut world = World::new();
    let id = endpoint(1).id;
    world
        .webhooks
        .expect_endpoint()
        .returning(|_, _| Ok(Some(endpoint(1))));
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let log = seen.clone();
    world.webhooks.expect_deliveries().returning(
        move |org: &OrganizationId, endpoint, status, before, limit| {
            assert_eq!(*org, org_id());
            assert_eq!(*endpoint, id);
            log.lock().unwrap().push((status, before, limit));
            Ok((0..u128::from(limit))
                .map(|n| Delivery {
                    id: DeliveryId::from_ulid(Ulid::from_parts(7, 100 - n)),
                    organization_id: org_id(),
                    endpoint_id: id,
                    event_id: EventId::from_ulid(Ulid::from_parts(8, n)),
                    event_type: CustomerEventType::MessageStatus,
                    status: DeliveryStatus::Pending,
                    next_attempt_at: Some(now()),
                    attempts: vec![DeliveryAttempt {
                        number: 1,
                        at: now(),
                        status_code: Some(500),
                        response_prefix: "oops".into(),
                        error_kind: Some("http_status".into()),
                        duration_ms: 12,
                    }],
                    created_at: now(),
                })
                .collect())
        },
    );
    let app = test::init_service(herald_http::app(world.context())).await;
    let base = format!("/api/v1/webhooks/{id}/deliveries");

    let page = call(
        &app,
        authed(TestRequest::get().uri(&format!("{base}?status=pending&limit=2"))).to_request(),
    )
    .await;
    assert_eq!(page.status, 200, "{}", page.text);
    let first = &page.json["data"][0];
    assert_eq!(first["event_type"], "message.status");
    assert_eq!(first["status"], "pending");
    assert!(first["next_attempt_at"].is_string());
    assert_eq!(
        first["attempts"][0],
        json!({"number": 1, "at": "2026-11-21T10:15:30.123Z", "status_code": 500, "response_body": "oops",
               "error_kind": "http_status", "duration_ms": 12})
    );
    let cursor = page.json["next_cursor"].as_str().unwrap().to_owned();
    let next = call(
        &app,
        authed(TestRequest::get().uri(&format!("{base}?cursor={cursor}&limit=2"))).to_request(),
    )
    .await;
    assert_eq!(next.status, 200);
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen[0], (Some(DeliveryStatus::Pending), None, 2));
        let last_of_first = page.json["data"][1]["id"].as_str().unwrap();
        assert_eq!(seen[1].1.unwrap().to_string(), last_of_first);
    }
    for (query, field) in [
        ("status=later", "status"),
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("cursor=zzz", "cursor"),
    ] {
        let reply = call(
            &app,
            authed(TestRequest::get().uri(&format!("{base}?{query}"))).to_request(),
        )
        .await;
        reply.assert_problem(422, "validation_failed");
        assert_eq!(reply.error_fields(), [field], "{query}");
    }
    let default_page = call(&app, authed(TestRequest::get().uri(&base)).to_request()).await;
    assert_eq!(default_page.json["data"].as_array().unwrap().len(), 50);
}
