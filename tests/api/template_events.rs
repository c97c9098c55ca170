//! The network's notices end to end (docs/api.md §9, §6, §6.2, §13): a template created through the API
//! is approved by the simulator's review, whose `message_template_status_update` callback updates the copy
//! and reaches a real customer receiver as `template.status`, and the template is then sent and delivered;
//! the simulator's control endpoint drives quality, category, number and account notices through the real
//! callback path into the template and sender resources and the subscribed endpoints — on both stores.

use crate::helpers::{Db, assert_problem};
use crate::network::{NetApp, hub_signature, spawn};
use crate::webhooks::{Answer, Recorded, spawn_receiver};
use serde_json::{Value, json};
use std::time::Duration;

on_both_stores!(
    a_created_template_is_approved_announced_to_the_customer_and_sent,
    notices_update_templates_and_senders_and_reach_subscribers_once,
    senders_are_a_read_only_organization_scoped_resource,
    a_business_account_belongs_to_one_organization_unless_shared,
);

async fn app(db: Db) -> NetApp {
    spawn(
        db,
        |settings| {
            settings.simulator.template_review_ms = 300;
            settings.webhooks.allow_insecure = true;
            settings.webhooks.allow_private_targets = true;
            settings.webhooks.timeout_seconds = 5;
        },
        80,
    )
    .await
}

fn definition(name: &str) -> Value {
    json!({
        "name": name, "language": "en_US", "category": "UTILITY",
        "components": [
            { "type": "BODY", "text": "Hi {{1}}, your order ships today.", "example": { "body_text": [["Asha"]] } }
        ]
    })
}

async fn register(app: &NetApp, url: &str, events: Option<&[&str]>) -> String {
    let mut body = json!({ "url": url });
    if let Some(events) = events {
        body["events"] = json!(events);
    }
    let created = app.post_response("/api/v1/webhooks", &body).await;
    assert_eq!(created.status(), 201);
    created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The simulator's control endpoint: Meta's `field` and `value`, delivered to Herald before it answers.
async fn notice(app: &NetApp, field: &str, value: Value) {
    let answer = app
        .http
        .post(format!("{}/simulator/control/notice", app.base))
        .json(&json!({ "field": field, "value": value }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let answer: Value = answer.json().await.unwrap();
    assert_eq!(answer["delivered"], true, "{answer}");
}

fn of_type<'a>(requests: &'a [Recorded], kind: &str) -> Vec<&'a Recorded> {
    requests.iter().filter(|r| r.event_type() == kind).collect()
}

async fn a_created_template_is_approved_announced_to_the_customer_and_sent(db: Db) {
    let app = app(db).await;
    let receiver = spawn_receiver(&[], Answer::Status(204));
    register(&app, &receiver.url, Some(&["template.status"])).await;

    let created = app
        .post_response("/api/v1/templates", &definition("order_update"))
        .await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.unwrap();
    assert_eq!(created["status"], "PENDING");

    let requests = receiver
        .wait_until(Duration::from_secs(15), |r| {
            !of_type(r, "template.status").is_empty()
        })
        .await;
    let event = of_type(&requests, "template.status")[0].json();
    let data = &event["data"];
    assert_eq!(data["template"]["name"], "order_update");
    assert_eq!(data["template"]["language"], "en_US");
    assert!(data["template"]["network_id"].is_string(), "{event}");
    assert_eq!(data["event"], "APPROVED");
    assert_eq!(data["status"], "APPROVED");
    assert_eq!(data["previous_status"], "PENDING");
    assert_eq!(data["reason"], Value::Null);
    assert!(data["occurred_at"].is_string());

    // The callback updated Herald's copy: no sync is needed before sending.
    let copy = app.get("/api/v1/templates/order_update/en_US").await;
    assert_eq!(copy["status"], "APPROVED", "{copy}");
    assert!(copy["updated_at"].is_string());
    let message = app
        .send(
            "/api/v1/messages/send-template",
            json!({ "to": "+15551234567", "template": { "name": "order_update", "language": "en_US" },
                    "variables": ["Asha"] }),
        )
        .await;
    app.wait_status(message["id"].as_str().unwrap(), "delivered")
        .await;

    let rejected = app
        .post_response("/api/v1/templates", &definition("please_reject"))
        .await;
    assert_eq!(rejected.status(), 201);
    let requests = receiver
        .wait_until(Duration::from_secs(15), |r| {
            of_type(r, "template.status").len() >= 2
        })
        .await;
    let event = of_type(&requests, "template.status")[1].json();
    assert_eq!(event["data"]["status"], "REJECTED");
    assert_eq!(event["data"]["reason"], "INVALID_FORMAT");
    let copy = app.get("/api/v1/templates/please_reject/en_US").await;
    assert_eq!(copy["status"], "REJECTED");
    assert_eq!(copy["rejected_reason"], "INVALID_FORMAT");
    assert!(
        requests.iter().all(|r| r.event_type() == "template.status"),
        "the endpoint chose template.status only"
    );
}

async fn notices_update_templates_and_senders_and_reach_subscribers_once(db: Db) {
    let app = app(db).await;
    let receiver = spawn_receiver(&[], Answer::Status(204));
    register(&app, &receiver.url, None).await;

    let template = json!({ "message_template_name": "order_shipped", "message_template_language": "en_US" });
    let mut quality = template.clone();
    quality["previous_quality_score"] = json!("GREEN");
    quality["new_quality_score"] = json!("YELLOW");
    notice(&app, "message_template_quality_update", quality.clone()).await;
    let mut category = template.clone();
    category["previous_category"] = json!("UTILITY");
    category["new_category"] = json!("MARKETING");
    notice(&app, "template_category_update", category).await;
    notice(
        &app,
        "phone_number_quality_update",
        json!({ "display_phone_number": "15550001111", "event": "FLAGGED", "current_limit": "TIER_10K" }),
    )
    .await;
    notice(
        &app,
        "account_update",
        json!({ "event": "ACCOUNT_VIOLATION", "violation_info": { "violation_type": "SCAM" } }),
    )
    .await;

    let requests = receiver
        .wait_until(Duration::from_secs(15), |r| r.len() >= 4)
        .await;
    let kinds: Vec<String> = requests.iter().map(Recorded::event_type).collect();
    for kind in [
        "template.quality",
        "template.category",
        "sender.quality",
        "account.update",
    ] {
        assert!(kinds.iter().any(|k| k == kind), "{kind} in {kinds:?}");
    }
    let quality_event = of_type(&requests, "template.quality")[0].json();
    assert_eq!(quality_event["data"]["quality"], "YELLOW");
    assert_eq!(quality_event["data"]["previous_quality"], "GREEN");
    assert_eq!(quality_event["data"]["template"]["network_id"], "3000000002");
    let sender_event = of_type(&requests, "sender.quality")[0].json();
    assert_eq!(sender_event["data"]["sender"]["number"], "+15550001111");
    assert_eq!(sender_event["data"]["quality_rating"], "RED");
    let account_event = of_type(&requests, "account.update")[0].json();
    assert_eq!(account_event["data"]["business_account_id"], "2000000001");
    assert_eq!(
        account_event["data"]["details"]["violation_info"]["violation_type"],
        "SCAM"
    );

    let copy = app.get("/api/v1/templates/order_shipped/en_US").await;
    assert_eq!(copy["quality"], "YELLOW", "{copy}");
    assert_eq!(copy["category"], "MARKETING");
    let senders = app.get("/api/v1/senders").await;
    assert_eq!(senders["data"][0]["quality_rating"], "RED", "{senders}");
    assert_eq!(senders["data"][0]["messaging_limit"], "TIER_10K");

    // The network delivering the same notice again (same time, same value) records nothing more.
    let envelope = json!({
        "object": "whatsapp_business_account",
        "entry": [{ "id": "2000000001", "time": 1_700_000_000, "changes": [
            { "field": "message_template_quality_update", "value": quality } ] }]
    });
    for _ in 0..2 {
        let body = serde_json::to_vec(&envelope).unwrap();
        let answer = app
            .http
            .post(format!("{}/webhooks/whatsapp", app.base))
            .header("content-type", "application/json")
            .header(
                "x-hub-signature-256",
                hub_signature(app.app_secret.as_bytes(), &body),
            )
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
    }
    let requests = receiver
        .wait_until(Duration::from_secs(15), |r| {
            of_type(r, "template.quality").len() >= 2
        })
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        of_type(&receiver.requests(), "template.quality").len(),
        2,
        "one event for the redelivered notice; got {:?}",
        requests.iter().map(Recorded::event_type).collect::<Vec<_>>()
    );
}

async fn senders_are_a_read_only_organization_scoped_resource(db: Db) {
    let app = app(db).await;
    let listed = app.get("/api/v1/senders").await;
    let senders = listed["data"].as_array().unwrap();
    assert_eq!(senders.len(), 1, "{listed}");
    let sender = &senders[0];
    assert_eq!(sender["number"], "+15550001111");
    assert_eq!(sender["default"], true);
    assert_eq!(sender["phone_number_id"], "1000000001");
    assert_eq!(sender["quality_rating"], Value::Null);
    assert_eq!(sender["messaging_limit"], Value::Null);
    for secret in ["access_token", "access_token_env", "sealed_access_token"] {
        assert!(sender.get(secret).is_none(), "{secret} is never shown: {sender}");
    }
    let id = sender["id"].as_str().unwrap();
    let one = app.get(&format!("/api/v1/senders/{id}")).await;
    assert_eq!(&one, sender);
    assert_problem(
        app.get_response("/api/v1/senders/snd_01JD0000000000000000000000")
            .await,
        404,
        "not_found",
    )
    .await;
    assert_problem(
        app.get_response("/api/v1/senders/not-an-id").await,
        404,
        "not_found",
    )
    .await;

    let refused = app
        .post_response(
            "/api/v1/webhooks",
            &json!({ "url": "http://127.0.0.1:9/hook", "events": ["template.status", "template.deleted"] }),
        )
        .await;
    let problem = assert_problem(refused, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "events", "{problem}");
}

async fn register_as(app: &NetApp, key: &str, url: &str) {
    let created = app
        .http
        .post(format!("{}/api/v1/webhooks", app.base))
        .bearer_auth(key)
        .json(&json!({ "url": url, "events": ["template.status"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
}

async fn call_as(
    app: &NetApp,
    key: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> reqwest::Response {
    let request = app
        .http
        .request(method, format!("{}{path}", app.base))
        .bearer_auth(key);
    match body {
        Some(body) => request.json(&body),
        None => request,
    }
    .send()
    .await
    .unwrap()
}

/// One organization per business account (docs/operations.md): a second organization's number of the
/// first's WABA is refused unless shared on purpose. One registered before the rule (straight into the
/// store, as any was) receives none of the account's template events, and its `DELETE` of the first's
/// template (whose copy its sync gave it) answers `404` and deletes nothing; an organization the account
/// is shared with receives them, deletes its own templates and no other's — on both stores.
async fn a_business_account_belongs_to_one_organization_unless_shared(db: Db) {
    use herald_domain::ids::SenderId;
    use herald_domain::organization::{NetworkRef, SenderNumber};
    use herald_domain::usecases::{AdminError, NewSender};
    use herald_domain::values::PhoneNumber;
    use reqwest::Method;

    let app = app(db).await;
    let owner_receiver = spawn_receiver(&[], Answer::Status(204));
    register(&app, &owner_receiver.url, Some(&["template.status"])).await;
    let waba = NetworkRef::parse("2000000001").unwrap();
    let new_sender = |org, number: &str, pnid: &str, shared_waba| NewSender {
        organization_id: org,
        number: PhoneNumber::parse(number).unwrap(),
        phone_number_id: NetworkRef::parse(pnid).unwrap(),
        waba_id: waba.clone(),
        access_token_env: None,
        access_token: None,
        is_default: true,
        throughput_per_second: 80,
        shared_waba,
    };

    // The intruder: refused by the operator's command, then registered as before the rule.
    let (intruder, intruder_key) = crate::helpers::new_org(&app.services, "business").await;
    let refused = app
        .services
        .admin()
        .add_sender(new_sender(intruder, "+15550002222", "1000000002", false))
        .await;
    assert!(
        matches!(&refused, Err(AdminError::BusinessAccountTaken { owner, .. }) if *owner == app.org),
        "{refused:?}"
    );
    app.services
        .store
        .accounts()
        .add_sender(&SenderNumber {
            id: SenderId::from_ulid(app.services.ids.next_ulid()),
            organization_id: intruder,
            number: PhoneNumber::parse("+15550002222").unwrap(),
            phone_number_id: NetworkRef::parse("1000000002").unwrap(),
            waba_id: waba.clone(),
            access_token_env: None,
            sealed_access_token: None,
            is_default: true,
            throughput_per_second: 80,
            created_at: chrono::Utc::now(),
        })
        .await
        .unwrap();
    let intruder_receiver = spawn_receiver(&[], Answer::Status(204));
    register_as(&app, &intruder_key, &intruder_receiver.url).await;

    // The sharer: the operator shares the account on purpose.
    let (sharer, sharer_key) = crate::helpers::new_org(&app.services, "business").await;
    app.services
        .admin()
        .add_sender(new_sender(sharer, "+15550003333", "1000000003", true))
        .await
        .unwrap();
    let sharer_receiver = spawn_receiver(&[], Answer::Status(204));
    register_as(&app, &sharer_key, &sharer_receiver.url).await;

    let created = app
        .post_response("/api/v1/templates", &definition("victim_tpl"))
        .await;
    assert_eq!(created.status(), 201);
    let approved = |r: &[Recorded]| {
        of_type(r, "template.status")
            .iter()
            .any(|e| e.json()["data"]["status"] == "APPROVED")
    };
    owner_receiver.wait_until(Duration::from_secs(15), approved).await;
    sharer_receiver
        .wait_until(Duration::from_secs(15), approved)
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        of_type(&intruder_receiver.requests(), "template.status").is_empty(),
        "the intruder received the owner's template events"
    );

    for key in [&intruder_key, &sharer_key] {
        let synced = call_as(&app, key, Method::POST, "/api/v1/templates/sync", None).await;
        assert_eq!(synced.status(), 200);
        let copy = call_as(&app, key, Method::GET, "/api/v1/templates/victim_tpl/en_US", None).await;
        assert_eq!(copy.status(), 200, "the sync lists the account's templates");
        let deleted = call_as(&app, key, Method::DELETE, "/api/v1/templates/victim_tpl", None).await;
        assert_problem(deleted, 404, "not_found").await;
    }
    let synced = app.post_response("/api/v1/templates/sync", &json!({})).await;
    assert_eq!(synced.status(), 200);
    let kept = app.get_response("/api/v1/templates/victim_tpl/en_US").await;
    assert_eq!(kept.status(), 200, "the owner's template is still on the network");

    // The sharer's own template is its own: it deletes it, the owner cannot.
    let created = call_as(
        &app,
        &sharer_key,
        Method::POST,
        "/api/v1/templates",
        Some(definition("sharer_tpl")),
    )
    .await;
    assert_eq!(created.status(), 201);
    let refused = app
        .http
        .delete(format!("{}/api/v1/templates/sharer_tpl", app.base))
        .bearer_auth(&app.key)
        .send()
        .await
        .unwrap();
    assert_problem(refused, 404, "not_found").await;
    let deleted = call_as(
        &app,
        &sharer_key,
        Method::DELETE,
        "/api/v1/templates/sharer_tpl",
        None,
    )
    .await;
    assert_eq!(deleted.status(), 204);
}
