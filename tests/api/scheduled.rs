//! Scheduled sends and cancel (docs/api.md §4 `send_at`, §5 `POST /messages/{id}/cancel`), on both stores:
//! every answer the two add (202 `scheduled`, 422 on `send_at`, 200 `cancelled`, 409 `not_cancellable`,
//! 404), the quota given back, the multipart form's `send_at`, and a scheduled message dispatched by the
//! workers only once its time has come.

use crate::helpers::{Db, TestApp, assert_problem, new_org, spawn_app};
use crate::network::spawn;
use crate::webhooks::{Answer, spawn_receiver};
use chrono::{DateTime, TimeDelta, Utc};
use herald_domain::dispatch::ClaimToken;
use herald_testkit::files;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

on_both_stores!(
    a_scheduled_send_is_cancelled_with_its_quota_given_back,
    send_at_out_of_range_or_malformed_is_refused_and_stores_nothing,
    a_claimed_message_is_not_cancellable_and_another_orgs_is_not_found,
    a_multipart_send_takes_send_at_too,
    the_workers_send_a_scheduled_message_once_its_time_has_come,
    a_scheduled_acceptance_is_announced_an_immediate_one_is_not,
);

const TO: &str = "+15551234567";

fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn hello_at(send_at: &str) -> Value {
    json!({
        "to": TO,
        "template": { "name": "hello_world", "language": "en_US" },
        "send_at": send_at,
    })
}

/// The API alone: nothing dispatches, so a scheduled message stays scheduled.
async fn app(db: Db) -> Option<TestApp> {
    spawn_app(db).await
}

async fn schedule(app: &TestApp, ahead: TimeDelta) -> Value {
    let response = app
        .post(
            "/api/v1/messages/send-template",
            &hello_at(&rfc3339(Utc::now() + ahead)),
        )
        .await;
    assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
    response.json().await.unwrap()
}

async fn a_scheduled_send_is_cancelled_with_its_quota_given_back(db: Db) {
    let Some(app) = app(db).await else { return };
    let send_at = rfc3339(Utc::now() + TimeDelta::hours(2));
    let response = app
        .post("/api/v1/messages/send-template", &hello_at(&send_at))
        .await;
    assert_eq!(response.status(), 202);
    let message: Value = response.json().await.unwrap();
    assert_eq!(message["status"], "scheduled", "{message}");
    assert_eq!(
        message["send_at"]
            .as_str()
            .unwrap()
            .parse::<DateTime<Utc>>()
            .unwrap(),
        send_at.parse::<DateTime<Utc>>().unwrap()
    );
    assert!(message["timestamps"]["scheduled"].is_string(), "{message}");
    assert!(message["timestamps"]["accepted"].is_null(), "{message}");
    assert_eq!(app.usage().await, 1, "the quota is taken at acceptance");
    let id = message["id"].as_str().unwrap();
    let log: Value = app
        .get("/api/v1/messages?status=scheduled")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(log["data"][0]["id"], id, "{log}");

    let response = app
        .post(&format!("/api/v1/messages/{id}/cancel"), &json!({}))
        .await;
    assert_eq!(response.status(), 200);
    let cancelled: Value = response.json().await.unwrap();
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert!(cancelled["timestamps"]["cancelled"].is_string(), "{cancelled}");
    assert_eq!(app.usage().await, 0, "a cancelled message gives its quota back");
    let usage: Value = app.get("/api/v1/usage").await.json().await.unwrap();
    assert_eq!(
        usage["messages"], 0,
        "a message cancelled before it was sent is never billed: {usage}"
    );
    let read: Value = app
        .get(&format!("/api/v1/messages/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(read["status"], "cancelled");
    let history: Value = app
        .get(&format!("/api/v1/messages/{id}/events"))
        .await
        .json()
        .await
        .unwrap();
    let statuses: Vec<&str> = history["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["scheduled", "cancelled"], "{history}");

    let again = app
        .post(&format!("/api/v1/messages/{id}/cancel"), &json!({}))
        .await;
    let problem = assert_problem(again, 409, "not_cancellable").await;
    assert_eq!(
        problem["detail"],
        "The message is cancelled; only a scheduled or accepted message not yet taken by dispatch can be \
         cancelled.",
        "a final message's refusal names its status, not a dispatch worker: {problem}"
    );
    assert_eq!(app.usage().await, 0);
}

async fn send_at_out_of_range_or_malformed_is_refused_and_stores_nothing(db: Db) {
    let Some(app) = app(db).await else { return };
    for send_at in [
        json!(rfc3339(Utc::now() + TimeDelta::seconds(20))),
        json!(rfc3339(Utc::now() - TimeDelta::hours(1))),
        json!(rfc3339(Utc::now() + TimeDelta::days(36))),
        json!("tomorrow at nine"),
        json!("2026-12-01T09:00:00"),
        json!(1_767_000_000),
    ] {
        let mut body = hello_at("");
        body["send_at"] = send_at.clone();
        let response = app.post("/api/v1/messages/send-template", &body).await;
        let problem = assert_problem(response, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], "send_at", "{send_at}: {problem}");
    }
    assert_eq!(app.usage().await, 0);
    assert!(app.all_message_ids().await.is_empty(), "nothing stored");
}

async fn a_claimed_message_is_not_cancellable_and_another_orgs_is_not_found(db: Db) {
    let Some(app) = app(db).await else { return };
    let message = schedule(&app, TimeDelta::hours(1)).await;
    let id = message["id"].as_str().unwrap();
    let (_, other_key) = new_org(&app.services, "business").await;
    let foreign = app
        .http
        .post(app.url(&format!("/api/v1/messages/{id}/cancel")))
        .bearer_auth(&other_key)
        .send()
        .await
        .unwrap();
    assert_problem(foreign, 404, "not_found").await;
    let unknown = app
        .post(
            "/api/v1/messages/msg_01JD0000000000000000000000/cancel",
            &json!({}),
        )
        .await;
    assert_problem(unknown, 404, "not_found").await;
    let malformed = app.post("/api/v1/messages/nonsense/cancel", &json!({})).await;
    assert_problem(malformed, 404, "not_found").await;

    // A dispatch worker claims it at its time (this app runs none: the claim is made here, as one would).
    let due = Utc::now() + TimeDelta::hours(1) + TimeDelta::seconds(5);
    let claimed = app
        .services
        .store
        .outbox()
        .claim_jobs(
            &ClaimToken(herald_testkit::fixtures::next_ulid()),
            due,
            due + TimeDelta::seconds(60),
            10,
        )
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    let response = app
        .post(&format!("/api/v1/messages/{id}/cancel"), &json!({}))
        .await;
    let problem = assert_problem(response, 409, "not_cancellable").await;
    assert_eq!(
        problem["detail"],
        "The message is scheduled but a dispatch worker has already taken it; only a scheduled or accepted \
         message not yet taken by dispatch can be cancelled.",
        "{problem}"
    );
    assert_eq!(app.usage().await, 1, "a refused cancel gives nothing back");
}

async fn a_multipart_send_takes_send_at_too(db: Db) {
    let Some(app) = app(db).await else { return };
    app.open_window(TO).await;
    let send_at = rfc3339(Utc::now() + TimeDelta::days(3));
    let form = |send_at: &str| {
        Form::new()
            .text("to", TO)
            .text("send_at", send_at.to_owned())
            .part(
                "file",
                Part::bytes(files::pdf())
                    .file_name("terms.pdf")
                    .mime_str("application/pdf")
                    .unwrap(),
            )
    };
    let send = |form: Form| {
        app.http
            .post(app.url("/api/v1/messages/send-file"))
            .bearer_auth(&app.key)
            .multipart(form)
            .send()
    };
    let response = send(form("next week")).await.unwrap();
    let problem = assert_problem(response, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "send_at", "{problem}");
    let response = send(form(&send_at)).await.unwrap();
    assert_eq!(response.status(), 202);
    let message: Value = response.json().await.unwrap();
    assert_eq!(message["status"], "scheduled", "{message}");
    assert_eq!(message["type"], "document");
}

async fn the_workers_send_a_scheduled_message_once_its_time_has_come(db: Db) {
    let app = spawn(db, |s| s.dispatch.schedule_min_lead_seconds = 1, 80).await;
    let send_at = Utc::now() + TimeDelta::seconds(2);
    let message = app
        .send(
            "/api/v1/messages/send-template",
            json!({
                "to": TO,
                "template": { "name": "hello_world", "language": "en_US" },
                "send_at": send_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            }),
        )
        .await;
    assert_eq!(message["status"], "scheduled", "{message}");
    let id = message["id"].as_str().unwrap();
    let (delivered, _) = app.wait_status(id, "delivered").await;
    let submitted: DateTime<Utc> = delivered["timestamps"]["submitted"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    // The network's reports carry whole seconds (a `sent` before the dispatcher's own `submitted` fills
    // that time in): compare at the second.
    let second = chrono::SubsecRound::trunc_subsecs(send_at, 0);
    assert!(
        submitted >= second,
        "dispatched at {submitted}, before its send_at {send_at}"
    );
    assert!(delivered["timestamps"]["accepted"].is_null(), "{delivered}");
    let copies = app
        .simulator_sent()
        .await
        .iter()
        .filter(|r| r["biz_opaque_callback_data"] == id)
        .count();
    assert_eq!(copies, 1, "sent once");
}

/// A send with `send_at` is announced at acceptance: `message.status` `scheduled` (no previous status,
/// sequence 1) reaches an endpoint subscribed to `message.status`, followed by its dispatch's events (or by
/// `cancelled`) numbered on from it; an immediate send's first event is still `submitted`. An endpoint that
/// takes only `message.failed` hears of none of them.
async fn a_scheduled_acceptance_is_announced_an_immediate_one_is_not(db: Db) {
    let app = spawn(
        db,
        |s| {
            s.dispatch.schedule_min_lead_seconds = 1;
            s.webhooks.allow_insecure = true;
            s.webhooks.allow_private_targets = true;
            s.webhooks.timeout_seconds = 5;
        },
        80,
    )
    .await;
    let receiver = spawn_receiver(&[], Answer::Status(204));
    let failures = spawn_receiver(&[], Answer::Status(204));
    for (url, events) in [
        (&receiver.url, json!(["message.status"])),
        (&failures.url, json!(["message.failed"])),
    ] {
        let created = app
            .post_response("/api/v1/webhooks", &json!({ "url": url, "events": events }))
            .await;
        assert_eq!(created.status(), 201);
    }
    let at = |ahead: TimeDelta| (Utc::now() + ahead).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let hello = |send_at: Option<String>, reference: &str| {
        let mut body = json!({
            "to": TO,
            "template": { "name": "hello_world", "language": "en_US" },
            "client_reference": reference,
        });
        if let Some(send_at) = send_at {
            body["send_at"] = json!(send_at);
        }
        body
    };
    let scheduled = app
        .send(
            "/api/v1/messages/send-template",
            hello(Some(at(TimeDelta::seconds(2))), "later"),
        )
        .await;
    let kept = app
        .send(
            "/api/v1/messages/send-template",
            hello(Some(at(TimeDelta::hours(1))), "never"),
        )
        .await;
    let now = app
        .send("/api/v1/messages/send-template", hello(None, "now"))
        .await;
    assert_eq!(
        (&scheduled["status"], &kept["status"], &now["status"]),
        (&json!("scheduled"), &json!("scheduled"), &json!("accepted"))
    );
    let (scheduled_id, kept_id, now_id) = (
        scheduled["id"].as_str().unwrap(),
        kept["id"].as_str().unwrap(),
        now["id"].as_str().unwrap(),
    );
    let cancelled = app
        .post_response(&format!("/api/v1/messages/{kept_id}/cancel"), &json!({}))
        .await;
    assert_eq!(cancelled.status(), 200);
    app.wait_status(scheduled_id, "delivered").await;
    app.wait_status(now_id, "delivered").await;

    // Each message's events, by sequence: (status, previous_status, sequence).
    let events_of = |requests: &[crate::webhooks::Recorded], id: &str| {
        let mut events: Vec<(String, Value, u64)> = requests
            .iter()
            .map(crate::webhooks::Recorded::json)
            .filter(|body| body["data"]["message_id"] == id)
            .map(|body| {
                assert_eq!(body["type"], "message.status", "{body}");
                (
                    body["data"]["status"].as_str().unwrap().to_owned(),
                    body["data"]["previous_status"].clone(),
                    body["data"]["sequence"].as_u64().unwrap(),
                )
            })
            .collect();
        events.sort_by_key(|(_, _, sequence)| *sequence);
        events
    };
    let delivered = |requests: &[crate::webhooks::Recorded], id: &str| {
        events_of(requests, id)
            .iter()
            .any(|(status, _, _)| status == "delivered")
    };
    let requests = receiver
        .wait_until(std::time::Duration::from_secs(20), |r| {
            delivered(r, scheduled_id) && delivered(r, now_id) && events_of(r, kept_id).len() >= 2
        })
        .await;
    let first = requests
        .iter()
        .map(crate::webhooks::Recorded::json)
        .find(|body| body["data"]["message_id"] == scheduled_id && body["data"]["sequence"] == 1)
        .unwrap();
    assert_eq!(first["data"]["status"], "scheduled", "{first}");
    assert!(first["data"]["previous_status"].is_null(), "{first}");
    assert_eq!(first["data"]["to"], TO, "{first}");
    assert_eq!(first["data"]["client_reference"], "later", "{first}");
    assert!(first["data"]["network_message_id"].is_null(), "{first}");
    assert!(first["data"].get("pricing").is_none(), "{first}");

    let scheduled_events = events_of(&requests, scheduled_id);
    assert_eq!(
        scheduled_events.iter().take(2).cloned().collect::<Vec<_>>(),
        [
            ("scheduled".to_owned(), Value::Null, 1),
            ("submitted".to_owned(), json!("scheduled"), 2),
        ],
        "{scheduled_events:?}"
    );
    assert_eq!(
        events_of(&requests, kept_id),
        [
            ("scheduled".to_owned(), Value::Null, 1),
            ("cancelled".to_owned(), json!("scheduled"), 2),
        ]
    );
    let now_events = events_of(&requests, now_id);
    assert_eq!(
        now_events.first(),
        Some(&("submitted".to_owned(), json!("accepted"), 1)),
        "an immediate send's acceptance sends no event: {now_events:?}"
    );
    assert!(
        now_events.iter().all(|(status, _, _)| status != "accepted"),
        "{now_events:?}"
    );
    assert!(
        failures.requests().is_empty(),
        "a `message.failed` endpoint takes no status event"
    );
}
