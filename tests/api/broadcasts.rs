//! Broadcasts (docs/api.md §4.10) on a real server, on both stores: the valid rows accepted and the invalid
//! ones listed by index with nothing stored for them, the recipient limit and a body past the usual 256 KiB,
//! the all-or-nothing quota, `Idempotency-Key` replays, reading (list, one, its messages) with another
//! organization's ids answering 404, cancelling (its messages cancelled, the quota given back, a second
//! cancel 409), and a broadcast dispatched end to end through the simulator by the pacer and dispatch workers.

use crate::helpers::{Db, TestApp, assert_problem, new_org, spawn_app};
use crate::network::spawn;
use chrono::{TimeDelta, Utc};
use herald_domain::organization::PlanName;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

on_both_stores!(
    the_valid_rows_are_accepted_and_the_invalid_ones_listed_by_index,
    too_many_recipients_or_no_valid_row_is_refused_and_nothing_is_stored,
    a_broadcast_the_quota_cannot_take_whole_is_refused_and_nothing_is_stored,
    an_idempotency_key_answers_the_same_broadcast,
    broadcasts_are_listed_read_and_paged_and_another_orgs_are_not_found,
    a_cancelled_broadcast_cancels_its_messages_and_gives_the_quota_back,
    a_broadcast_is_dispatched_through_the_simulator,
    a_paused_broadcast_is_listed_by_status_resumed_and_not_cancellable_once_completed,
);

const BROADCASTS: &str = "/api/v1/broadcasts";

/// `appointment_named` (body `{{customer}}`, `{{date}}`) to `rows`.
fn appointments(rows: Value) -> Value {
    json!({
        "template": { "name": "appointment_named", "language": "en_US" },
        "recipients": rows,
    })
}

fn row(to: &str) -> Value {
    json!({ "to": to, "variables": { "customer": "Ana", "date": "Friday" } })
}

/// The ids of every broadcast of the app's organization, newest first.
async fn broadcast_ids(app: &TestApp) -> Vec<String> {
    let page: Value = app.get(BROADCASTS).await.json().await.unwrap();
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn create(app: &TestApp, body: &Value) -> Value {
    let response = app.post(BROADCASTS, body).await;
    assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
    response.json().await.unwrap()
}

async fn the_valid_rows_are_accepted_and_the_invalid_ones_listed_by_index(db: Db) {
    let Some(app) = spawn_app(db).await else { return };
    let body = appointments(json!([
        { "to": "+15551230001", "variables": { "customer": "Ana", "date": "Friday" }, "client_reference": "r-0" },
        { "to": "15551230002", "variables": { "customer": "Bo", "date": "Monday" } },
        { "to": "+15551230003", "variables": { "customer": "Cy" } },
        { "to": "+15551230001", "variables": { "customer": "Ana again", "date": "Friday" } },
        { "to": "+15551230005", "variables": { "customer": "Di", "date": "Sunday" }, "client_reference": "r-4" },
        { "to": "+15551230006", "colour": "blue" },
    ]));
    let response = app.post(BROADCASTS, &body).await;
    assert_eq!(response.status(), 202);
    let id_location = response.headers()["location"].to_str().unwrap().to_owned();
    let created: Value = response.json().await.unwrap();
    let id = created["id"].as_str().unwrap();
    assert!(id.starts_with("brd_"), "{created}");
    assert_eq!(id_location, format!("/api/v1/broadcasts/{id}"));
    assert_eq!(created["accepted"], 2, "{created}");
    assert_eq!(created["total"], 2, "{created}");
    assert_eq!(created["released"], 0, "{created}");
    assert_eq!(created["from"], "+15550001111");
    assert_eq!(
        created["template"],
        json!({ "name": "appointment_named", "language": "en_US" })
    );
    assert!(
        matches!(created["status"].as_str(), Some("scheduled" | "running")),
        "{created}"
    );
    assert_eq!(created["counts"]["accepted"], 2, "{created}");
    assert!(created["pause"].is_null());
    let rejected = created["rejected"].as_array().unwrap();
    let indexes: Vec<u64> = rejected.iter().map(|r| r["index"].as_u64().unwrap()).collect();
    assert_eq!(indexes, [1, 2, 3, 5], "{created}");
    let fields = |i: usize| -> Vec<String> {
        rejected[i]["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(fields(0), ["to"], "a bad number: {created}");
    assert_eq!(fields(1), ["variables"], "a missing variable: {created}");
    assert_eq!(fields(2), ["to"], "a repeated recipient: {created}");
    assert!(
        rejected[2]["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("row 0"),
        "{created}"
    );
    assert_eq!(fields(3), ["colour"], "an unknown field: {created}");

    // Only the valid rows became messages, each with its own variables and reference.
    assert_eq!(app.usage().await, 2);
    let ids = app.all_message_ids().await;
    assert_eq!(ids.len(), 2, "nothing stored for the rejected rows");
    let page: Value = app
        .get(&format!("{BROADCASTS}/{id}/messages"))
        .await
        .json()
        .await
        .unwrap();
    let mut seen: Vec<(String, String)> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert_eq!(m["broadcast_id"], id, "{m}");
            assert_eq!(m["status"], "accepted", "{m}");
            assert_eq!(m["type"], "template", "{m}");
            (
                m["to"].as_str().unwrap().to_owned(),
                m["client_reference"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("+15551230001".to_owned(), "r-0".to_owned()),
            ("+15551230005".to_owned(), "r-4".to_owned())
        ]
    );
    let one = page["data"][0]["id"].as_str().unwrap();
    let message: Value = app
        .get(&format!("/api/v1/messages/{one}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(message["broadcast_id"], id, "the message names its broadcast");

    // A single send's message has no broadcast.
    let single = app
        .post(
            "/api/v1/messages/send-template",
            &json!({ "to": "+15551230009", "template": { "name": "hello_world", "language": "en_US" } }),
        )
        .await;
    let single: Value = single.json().await.unwrap();
    assert!(single["broadcast_id"].is_null(), "{single}");
}

async fn too_many_recipients_or_no_valid_row_is_refused_and_nothing_is_stored(db: Db) {
    let Some(app) = spawn_app(db).await else { return };
    // 10,001 rows with their variables: well past the 256 KiB of a single send's body, so this also shows
    // the broadcast's own body limit lets 10,000 recipients in.
    let rows: Vec<Value> = (0..10_001).map(|i| row(&format!("+1555{i:07}"))).collect();
    let body = appointments(Value::Array(rows));
    assert!(body.to_string().len() > 256 * 1024);
    let problem = assert_problem(app.post(BROADCASTS, &body).await, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "recipients", "{problem}");
    assert!(
        problem["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("10,000"),
        "{problem}"
    );
    for empty in [json!([]), json!("+15551234567")] {
        let problem = assert_problem(
            app.post(BROADCASTS, &appointments(empty)).await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(problem["errors"][0]["field"], "recipients", "{problem}");
    }

    // Every row invalid: refused whole, each row listed.
    let body = appointments(json!([
        { "to": "nobody" },
        { "to": "+15551230002", "variables": { "customer": "Bo" } },
    ]));
    let problem = assert_problem(app.post(BROADCASTS, &body).await, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "recipients", "{problem}");
    let rejected = problem["rejected"].as_array().expect("the rows are listed");
    assert_eq!(rejected.len(), 2, "{problem}");
    assert_eq!(rejected[0]["index"], 0);
    assert_eq!(rejected[0]["errors"][0]["field"], "to");
    assert_eq!(rejected[1]["index"], 1);
    assert_eq!(rejected[1]["errors"][0]["field"], "variables");

    // The shared fields and the template.
    let problem = assert_problem(
        app.post(
            BROADCASTS,
            &json!({ "template": { "name": "hello_world" }, "send_at": "soon", "recipients": [row("+15551230001")] }),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    let fields: Vec<&str> = problem["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["template.language", "send_at"], "{problem}");
    let mut unknown = appointments(json!([row("+15551230001")]));
    unknown["template"]["name"] = json!("no_such_template");
    assert_problem(app.post(BROADCASTS, &unknown).await, 404, "template_not_found").await;
    let paused = json!({
        "template": { "name": "spring_sale", "language": "en_US" },
        "recipients": [{ "to": "+15551230001", "variables": ["20%"] }],
    });
    assert_problem(app.post(BROADCASTS, &paused).await, 422, "template_not_approved").await;
    let mut too_early = appointments(json!([row("+15551230001")]));
    too_early["send_at"] = json!((Utc::now() + TimeDelta::seconds(5)).to_rfc3339());
    let problem = assert_problem(app.post(BROADCASTS, &too_early).await, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "send_at", "{problem}");
    let response = app
        .http
        .post(app.url(BROADCASTS))
        .bearer_auth(&app.key)
        .header("content-type", "text/plain")
        .body(appointments(json!([row("+15551230001")])).to_string())
        .send()
        .await
        .unwrap();
    assert_problem(response, 415, "unsupported_media_type").await;

    assert_eq!(app.usage().await, 0);
    assert!(app.all_message_ids().await.is_empty(), "nothing stored");
    assert!(broadcast_ids(&app).await.is_empty(), "no broadcast stored");
}

async fn a_broadcast_the_quota_cannot_take_whole_is_refused_and_nothing_is_stored(db: Db) {
    let Some(app) = spawn_app(db).await else { return };
    let accounts = app.services.store.accounts();
    let business = accounts
        .plan(&PlanName::parse("business").unwrap())
        .await
        .unwrap()
        .unwrap();
    let small = herald_domain::organization::Plan {
        name: PlanName::parse("small").unwrap(),
        monthly_quota: Some(3),
        ..business
    };
    accounts.put_plan(&small).await.unwrap();
    let (org, key) = new_org(&app.services, "small").await;
    crate::helpers::add_default_sender(&app.services, &org, "+15550002222", "1000000002", 80).await;
    herald_app::demo::seed_templates(&app.services, &org)
        .await
        .unwrap();
    let usage = || async {
        app.services
            .store
            .messages()
            .usage(&org, &herald_domain::time::BillingPeriod::containing(Utc::now()))
            .await
            .unwrap()
    };

    let four = appointments(json!([
        row("+15551230001"),
        row("+15551230002"),
        row("+15551230003"),
        row("+15551230004"),
        { "to": "bad" },
    ]));
    let response = app.post_as(&key, BROADCASTS, &four).await;
    let retry_after: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry_after >= 1);
    let problem = assert_problem(response, 429, "quota_exceeded").await;
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("needs 4") && detail.contains("3 left") && detail.contains("nothing was stored"),
        "{detail}"
    );
    assert_eq!(usage().await, 0, "usage unchanged");
    let listed: Value = app.get_as(&key, "/api/v1/messages").await.json().await.unwrap();
    assert_eq!(listed["data"], json!([]), "no message stored");
    let broadcasts: Value = app.get_as(&key, BROADCASTS).await.json().await.unwrap();
    assert_eq!(broadcasts["data"], json!([]), "no broadcast stored");

    // Exactly what is left fits.
    let three = appointments(json!([
        row("+15551230001"),
        row("+15551230002"),
        row("+15551230003"),
    ]));
    let response = app.post_as(&key, BROADCASTS, &three).await;
    assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
    assert_eq!(usage().await, 3);
    let one_more = appointments(json!([row("+15551230004")]));
    assert_problem(
        app.post_as(&key, BROADCASTS, &one_more).await,
        429,
        "quota_exceeded",
    )
    .await;
    assert_eq!(usage().await, 3);
}

async fn an_idempotency_key_answers_the_same_broadcast(db: Db) {
    let Some(app) = spawn_app(db).await else { return };
    let body = appointments(json!([row("+15551230001"), row("+15551230002"), { "to": "x" }]));
    let post = |body: &Value| {
        app.http
            .post(app.url(BROADCASTS))
            .bearer_auth(&app.key)
            .header("Idempotency-Key", "campaign-2026-11")
            .json(body)
            .send()
    };
    let first = post(&body).await.unwrap();
    assert_eq!(first.status(), 202);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let first: Value = first.json().await.unwrap();
    assert_eq!(first["rejected"].as_array().unwrap().len(), 1);

    let again = post(&body).await.unwrap();
    assert_eq!(again.status(), 202);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["id"], first["id"], "the same broadcast");
    assert_eq!(again["total"], 2);
    assert_eq!(again["accepted"], 2);
    assert_eq!(app.usage().await, 2, "counted once");
    assert_eq!(app.all_message_ids().await.len(), 2, "stored once");
    assert_eq!(broadcast_ids(&app).await.len(), 1);

    let other = appointments(json!([row("+15551230003")]));
    assert_problem(post(&other).await.unwrap(), 422, "idempotency_key_reused").await;
    assert_eq!(app.usage().await, 2);
    let bad_key = app
        .http
        .post(app.url(BROADCASTS))
        .bearer_auth(&app.key)
        .header("Idempotency-Key", "")
        .json(&body)
        .send()
        .await
        .unwrap();
    let problem = assert_problem(bad_key, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "Idempotency-Key", "{problem}");
}

async fn broadcasts_are_listed_read_and_paged_and_another_orgs_are_not_found(db: Db) {
    let Some(app) = spawn_app(db).await else { return };
    let first = create(
        &app,
        &appointments(json!([row("+15551230001"), row("+15551230002")])),
    )
    .await;
    let second = create(&app, &appointments(json!([row("+15551230003")]))).await;
    let (first_id, second_id) = (first["id"].as_str().unwrap(), second["id"].as_str().unwrap());
    assert_eq!(broadcast_ids(&app).await, [second_id, first_id], "newest first");

    let page: Value = app
        .get(&format!("{BROADCASTS}?limit=1"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page["data"].as_array().unwrap().len(), 1);
    assert_eq!(page["data"][0]["id"], second_id);
    assert_eq!(
        page["data"][0]["counts"]["accepted"], 1,
        "listed with its counts: {page}"
    );
    let cursor = page["next_cursor"].as_str().expect("a next page");
    let page: Value = app
        .get(&format!("{BROADCASTS}?limit=1&cursor={cursor}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page["data"][0]["id"], first_id);
    assert!(page["next_cursor"].is_null(), "{page}");
    let none: Value = app
        .get(&format!("{BROADCASTS}?status=completed"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(none["data"], json!([]));
    let problem = assert_problem(
        app.get(&format!("{BROADCASTS}?status=sent&limit=0&cursor=nope"))
            .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"].as_array().unwrap().len(), 3, "{problem}");

    let one: Value = app
        .get(&format!("{BROADCASTS}/{first_id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(one["id"], first_id);
    assert_eq!(one["total"], 2);
    assert_eq!(one["counts"]["accepted"], 2, "{one}");
    assert_eq!(one["counts"]["delivered"], 0, "every status is counted: {one}");
    for key in ["created_at", "updated_at"] {
        assert!(one[key].is_string(), "{key}: {one}");
    }
    for key in ["send_at", "completed_at", "cancelled_at", "pause"] {
        assert!(one[key].is_null(), "{key}: {one}");
    }
    assert!(
        one.get("rejected").is_none(),
        "only the creation answer lists rejected rows"
    );

    let messages: Value = app
        .get(&format!("{BROADCASTS}/{first_id}/messages?limit=1"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(messages["data"].as_array().unwrap().len(), 1);
    let cursor = messages["next_cursor"].as_str().expect("a next page");
    let rest: Value = app
        .get(&format!(
            "{BROADCASTS}/{first_id}/messages?limit=1&cursor={cursor}"
        ))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(rest["data"].as_array().unwrap().len(), 1);
    assert_ne!(rest["data"][0]["id"], messages["data"][0]["id"]);
    assert!(rest["next_cursor"].is_null());
    let by_status: Value = app
        .get(&format!("{BROADCASTS}/{first_id}/messages?status=delivered"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(by_status["data"], json!([]));
    let by_to: Value = app
        .get(&format!("{BROADCASTS}/{first_id}/messages?to=%2B15551230002"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(by_to["data"].as_array().unwrap().len(), 1);
    assert_eq!(by_to["data"][0]["to"], "+15551230002");
    assert_problem(
        app.get(&format!("{BROADCASTS}/{first_id}/messages?limit=500"))
            .await,
        422,
        "validation_failed",
    )
    .await;

    // Unknown, malformed, and another organization's ids: 404 alike.
    let (_, other_key) = new_org(&app.services, "business").await;
    for path in [
        format!("{BROADCASTS}/{first_id}"),
        format!("{BROADCASTS}/{first_id}/messages"),
    ] {
        assert_problem(app.get_as(&other_key, &path).await, 404, "not_found").await;
    }
    for action in ["cancel", "resume"] {
        let path = format!("{BROADCASTS}/{first_id}/{action}");
        assert_problem(app.post_as(&other_key, &path, &json!({})).await, 404, "not_found").await;
    }
    let theirs: Value = app.get_as(&other_key, BROADCASTS).await.json().await.unwrap();
    assert_eq!(theirs["data"], json!([]), "another organization sees none");
    for path in [
        format!("{BROADCASTS}/brd_01JD0000000000000000000000"),
        format!("{BROADCASTS}/nonsense"),
        format!("{BROADCASTS}/brd_01JD0000000000000000000000/messages"),
    ] {
        assert_problem(app.get(&path).await, 404, "not_found").await;
    }
    let one: Value = app
        .get(&format!("{BROADCASTS}/{first_id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_ne!(
        one["status"], "cancelled",
        "the other organization's cancel changed nothing"
    );
}

async fn a_cancelled_broadcast_cancels_its_messages_and_gives_the_quota_back(db: Db) {
    let Some(app) = spawn_app(db).await else { return };
    let send_at = (Utc::now() + TimeDelta::hours(2)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let mut body = appointments(json!([
        row("+15551230001"),
        row("+15551230002"),
        row("+15551230003"),
    ]));
    body["send_at"] = json!(send_at);
    let created = create(&app, &body).await;
    assert_eq!(created["status"], "scheduled", "{created}");
    assert_eq!(created["counts"]["scheduled"], 3, "{created}");
    assert!(created["send_at"].is_string(), "{created}");
    let id = created["id"].as_str().unwrap();
    assert_eq!(app.usage().await, 3);
    // Nothing to resume: it is not paused.
    let problem = assert_problem(
        app.post(&format!("{BROADCASTS}/{id}/resume"), &json!({})).await,
        409,
        "broadcast_not_paused",
    )
    .await;
    assert!(
        problem["detail"].as_str().unwrap().contains("scheduled"),
        "{problem}"
    );

    let response = app.post(&format!("{BROADCASTS}/{id}/cancel"), &json!({})).await;
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
    let cancelled: Value = response.json().await.unwrap();
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert!(cancelled["cancelled_at"].is_string(), "{cancelled}");
    assert_eq!(cancelled["counts"]["cancelled"], 3, "{cancelled}");
    assert_eq!(cancelled["counts"]["scheduled"], 0, "{cancelled}");
    assert_eq!(app.usage().await, 0, "the quota is given back");
    let messages: Value = app
        .get(&format!("{BROADCASTS}/{id}/messages?status=cancelled"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(messages["data"].as_array().unwrap().len(), 3, "{messages}");
    let listed: Value = app
        .get(&format!("{BROADCASTS}?status=cancelled"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["data"][0]["id"], id);

    let again = app.post(&format!("{BROADCASTS}/{id}/cancel"), &json!({})).await;
    let problem = assert_problem(again, 409, "broadcast_not_cancellable").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("cancelled"),
        "{problem}"
    );
    assert_eq!(app.usage().await, 0);
}

/// With the workers and the simulator: the pacer releases the broadcast, dispatch sends each message once,
/// the network's reports come back, and the broadcast completes with every message delivered.
async fn a_broadcast_is_dispatched_through_the_simulator(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let recipients: Vec<Value> = (1..=5).map(|i| row(&format!("+1555123000{i}"))).collect();
    let created = app.send(BROADCASTS, appointments(Value::Array(recipients))).await;
    let id = created["id"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(30);
    let done = loop {
        let broadcast = app.get(&format!("{BROADCASTS}/{id}")).await;
        if broadcast["status"] == "completed" && broadcast["counts"]["delivered"] == 5 {
            break broadcast;
        }
        assert!(Instant::now() < deadline, "not completed in time: {broadcast}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(done["released"], 5, "{done}");
    assert!(done["completed_at"].is_string(), "{done}");
    let page = app.get(&format!("{BROADCASTS}/{id}/messages")).await;
    let sent = app.simulator_sent().await;
    for message in page["data"].as_array().unwrap() {
        let copies = sent
            .iter()
            .filter(|r| r["biz_opaque_callback_data"] == message["id"])
            .count();
        assert_eq!(copies, 1, "each message sent once: {message}");
    }
}

/// Polls the broadcast until `done` holds (at most 30 s).
async fn wait_broadcast(app: &crate::network::NetApp, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let broadcast = app.get(&format!("{BROADCASTS}/{id}")).await;
        if done(&broadcast) {
            return broadcast;
        }
        assert!(Instant::now() < deadline, "timed out; last seen: {broadcast}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The simulator answers `…9995` with the spam-rate error (131048): the resource says why it paused, the list
/// finds it by `status=paused`, resume answers it `running`, and once completed a cancel is refused. (That
/// nothing is released while paused is `broadcast_pacing.rs`'s.)
async fn a_paused_broadcast_is_listed_by_status_resumed_and_not_cancellable_once_completed(db: Db) {
    // 1 message/s: the pacer releases two at first, so the third is still held when the spam-rate error
    // comes back (a broadcast with nothing left to hold does not pause).
    let app = spawn(db, |_| {}, 1).await;
    let recipients: Vec<Value> = ["+15551239995", "+15551230001", "+15551230002"]
        .into_iter()
        .map(row)
        .collect();
    let created = app.send(BROADCASTS, appointments(Value::Array(recipients))).await;
    let id = created["id"].as_str().unwrap().to_owned();
    let paused = wait_broadcast(&app, &id, |b| b["status"] == "paused").await;
    assert_eq!(paused["pause"]["code"], "spam_rate_limited", "{paused}");
    assert_eq!(paused["pause"]["network_code"], 131_048, "{paused}");
    assert!(paused["pause"]["paused_at"].is_string(), "{paused}");
    assert!(
        paused["pause"]["detail"]
            .as_str()
            .unwrap()
            .contains("spam_rate_limited"),
        "{paused}"
    );
    let listed = app.get(&format!("{BROADCASTS}?status=paused")).await;
    assert_eq!(listed["data"][0]["id"], id, "{listed}");

    let response = app
        .post_response(&format!("{BROADCASTS}/{id}/resume"), &json!({}))
        .await;
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
    let resumed: Value = response.json().await.unwrap();
    assert_eq!(resumed["status"], "running", "{resumed}");
    assert!(resumed["pause"].is_null(), "{resumed}");
    // Completed once dispatch is done with every message; the network's delivery reports may come after.
    let done = wait_broadcast(&app, &id, |b| {
        b["status"] == "completed" && b["counts"]["delivered"] == 2
    })
    .await;
    assert_eq!(done["counts"]["failed"], 1, "{done}");
    assert_eq!(done["counts"]["delivered"], 2, "{done}");
    let again = app
        .post_response(&format!("{BROADCASTS}/{id}/cancel"), &json!({}))
        .await;
    let problem = assert_problem(again, 409, "broadcast_not_cancellable").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("completed"),
        "{problem}"
    );
}
