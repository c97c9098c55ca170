//! Broadcasts' checks on a real server, on both stores: a dry run judges every row and the quota as the
//! create would, answers what it found, and stores, counts and sends nothing (a misspelt `dry_run` or any
//! other query parameter is refused); the shared header's file is named `header.media_id`; a `send_at` at
//! second 60 is refused rather than read back a second later.

use crate::helpers::{Db, assert_problem, spawn_app};
use crate::network::spawn;
use serde_json::{Value, json};
use std::time::Duration;

on_both_stores!(
    a_broadcast_dry_run_judges_every_row_and_stores_counts_and_sends_nothing,
    a_broadcast_dry_run_takes_only_a_true_or_false_dry_run,
    a_shared_header_naming_no_upload_is_refused_on_header_media_id,
    a_send_at_at_second_60_is_refused,
);

const BROADCASTS: &str = "/api/v1/broadcasts";

fn appointments(rows: Value) -> Value {
    json!({
        "template": { "name": "appointment_named", "language": "en_US" },
        "recipients": rows,
    })
}

fn row(to: &str) -> Value {
    json!({ "to": to, "variables": { "customer": "Ana", "date": "Friday" } })
}

fn fields(problem_or_row: &Value) -> Vec<String> {
    problem_or_row["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap().to_owned())
        .collect()
}

/// With the workers and the simulator running, so a dry run that sent would be seen at the network.
async fn a_broadcast_dry_run_judges_every_row_and_stores_counts_and_sends_nothing(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.services
        .rate_cards()
        .set(&app.org, "utility", "0.0100", "EUR")
        .await
        .unwrap();
    let body = appointments(json!([
        row("+15551230001"),
        row("15551230002"),
        row("+15551230003"),
        row("+15551230001"),
    ]));
    let dry_run = |key: &'static str| {
        app.http
            .post(format!("{}{BROADCASTS}?dry_run=true", app.base))
            .bearer_auth(&app.key)
            .header("Idempotency-Key", key)
            .json(&body)
            .send()
    };
    let response = dry_run("campaign-1").await.unwrap();
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
    let run: Value = response.json().await.unwrap();
    assert_eq!(run["would_accept"], true, "{run}");
    assert_eq!(run["refusals"], json!([]), "{run}");
    assert_eq!(run["accepted"], 2, "{run}");
    let indexes: Vec<u64> = run["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["index"].as_u64().unwrap())
        .collect();
    assert_eq!(indexes, [1, 3], "the bad number and the repeat: {run}");
    assert_eq!(fields(&run["rejected"][0]), ["to"], "{run}");
    assert_eq!(run["pricing"], json!({ "category": "utility", "billable": true }));
    assert_eq!(run["estimated_cost"]["currency"], "EUR", "{run}");
    let amount: f64 = run["estimated_cost"]["amount"].as_str().unwrap().parse().unwrap();
    assert!((amount - 0.02).abs() < 1e-9, "two messages at 0.01: {run}");
    assert!(run.get("id").is_none(), "no broadcast: {run}");

    // Nothing stored, counted or sent.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        app.simulator_sent().await.is_empty(),
        "nothing reached the network"
    );
    let page = app.get(BROADCASTS).await;
    assert_eq!(page["data"], json!([]), "no broadcast stored: {page}");
    let messages = app.get("/api/v1/messages").await;
    assert_eq!(messages["data"], json!([]), "no message stored: {messages}");
    let usage = app
        .services
        .store
        .messages()
        .usage(
            &app.org,
            &herald_domain::time::BillingPeriod::containing(chrono::Utc::now()),
        )
        .await
        .unwrap();
    assert_eq!(usage, 0, "nothing counted");

    // The key was not taken: the real create with it afterwards is a first one.
    let created = app
        .http
        .post(format!("{}{BROADCASTS}", app.base))
        .bearer_auth(&app.key)
        .header("Idempotency-Key", "campaign-1")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 202);
    assert!(created.headers().get("idempotent-replayed").is_none());
    let created: Value = created.json().await.unwrap();
    assert_eq!(created["accepted"], run["accepted"], "the dry run told the truth");
    assert_eq!(created["rejected"], run["rejected"], "the dry run told the truth");
}

async fn a_broadcast_dry_run_takes_only_a_true_or_false_dry_run(db: Db) {
    let Some(app) = spawn_app(db).await else { return };
    let body = appointments(json!([row("+15551230001"), row("+15551230002")]));
    for (query, field) in [
        ("?dry_run=yes", "dry_run"),
        ("?dry_run=1", "dry_run"),
        ("?dry_run=true&colour=blue", "colour"),
        ("?dryrun=true", "dryrun"),
    ] {
        let problem = assert_problem(
            app.post(&format!("{BROADCASTS}{query}"), &body).await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(fields(&problem), [field], "{query}: {problem}");
    }
    assert_eq!(app.usage().await, 0);
    assert!(app.all_message_ids().await.is_empty(), "nothing stored");
    let page: Value = app.get(BROADCASTS).await.json().await.unwrap();
    assert_eq!(page["data"], json!([]), "{page}");

    // `false` is an ordinary create.
    let response = app.post(&format!("{BROADCASTS}?dry_run=false"), &body).await;
    assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
    assert_eq!(app.usage().await, 2);
}

async fn a_shared_header_naming_no_upload_is_refused_on_header_media_id(db: Db) {
    let Some(app) = spawn_app(db).await else { return };
    let body = json!({
        "template": { "name": "promo_image", "language": "en_US" },
        "header": { "type": "image", "media_id": "med_01JD0000000000000000000000" },
        "recipients": [ { "to": "+15551230001", "variables": ["20% off"] } ],
    });
    let problem = assert_problem(app.post(BROADCASTS, &body).await, 422, "validation_failed").await;
    assert_eq!(fields(&problem), ["header.media_id"], "{problem}");
    assert!(app.all_message_ids().await.is_empty());
}

async fn a_send_at_at_second_60_is_refused(db: Db) {
    let Some(app) = spawn_app(db).await else { return };
    let mut body = appointments(json!([row("+15551230001")]));
    let minute = (chrono::Utc::now() + chrono::TimeDelta::hours(2)).format("%Y-%m-%dT%H:%M");
    body["send_at"] = json!(format!("{minute}:60Z"));
    let problem = assert_problem(app.post(BROADCASTS, &body).await, 422, "validation_failed").await;
    assert_eq!(fields(&problem), ["send_at"], "{problem}");
    assert!(app.all_message_ids().await.is_empty());

    // Second 59 goes, and reads back as it was answered.
    body["send_at"] = json!(format!("{minute}:59Z"));
    let response = app.post(BROADCASTS, &body).await;
    assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
    let created: Value = response.json().await.unwrap();
    let id = created["id"].as_str().unwrap();
    let read: Value = app.get(&format!("{BROADCASTS}/{id}")).await.json().await.unwrap();
    assert_eq!(read["send_at"], created["send_at"], "{created} {read}");
}
