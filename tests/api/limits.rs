//! Rate limits and account controls (docs/api.md §1, §2, §3, §8), on both stores: the send rate with its headers
//! and `Retry-After`, checked before the body is read; dry runs and broadcast rows in buckets of their own; the
//! separate read limit, plan changes on a running server, a suspended organization's queued messages waiting
//! for its reactivation; and refusals of huge bodies that stay small.

use crate::helpers::{Db, assert_problem};
use crate::network::{spawn, template};
use herald_domain::organization::{AccountStatus, PlanName};
use serde_json::Value;
use std::time::{Duration, Instant};

on_both_stores!(
    a_trial_burst_gets_429_with_headers_and_retry_after_lets_the_next_through,
    reads_are_limited_separately_from_sends,
    writes_other_than_sends_are_limited_per_key,
    a_plan_change_applies_to_the_running_server,
    a_suspended_organizations_queued_messages_wait_and_then_go,
    a_send_over_its_rate_is_refused_before_its_body_is_read,
    dry_runs_have_a_rate_of_their_own,
    broadcast_rows_have_a_bucket_of_their_own_and_spare_other_organizations,
    a_body_of_a_million_errors_is_refused_with_a_small_answer,
    a_chunked_body_over_the_limit_is_refused_while_it_streams,
);

fn header(response: &reqwest::Response, name: &str) -> Option<u64> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
}

async fn post(app: &crate::network::NetApp, body: &Value) -> reqwest::Response {
    app.http
        .post(format!("{}/api/v1/messages/send-template", app.base))
        .bearer_auth(&app.key)
        .json(body)
        .send()
        .await
        .unwrap()
}

async fn a_trial_burst_gets_429_with_headers_and_retry_after_lets_the_next_through(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.services
        .admin()
        .set_plan(&app.org, PlanName::parse("trial").unwrap())
        .await
        .unwrap();
    // Trial: 1 send/s, burst 5.
    let mut remaining = Vec::new();
    for i in 0..5 {
        let response = post(&app, &template(&format!("+155560000{i:02}"))).await;
        assert_eq!(response.status(), 202, "send {i} of the burst");
        assert_eq!(header(&response, "ratelimit-limit"), Some(5));
        remaining.push(header(&response, "ratelimit-remaining").unwrap());
    }
    assert_eq!(
        remaining,
        [4, 3, 2, 1, 0],
        "remaining counts down by one per send"
    );
    let refused = post(&app, &template("+15556000099")).await;
    let retry_after = header(&refused, "retry-after").expect("Retry-After on 429");
    assert!(retry_after >= 1);
    assert_eq!(header(&refused, "ratelimit-remaining"), Some(0));
    assert!(header(&refused, "ratelimit-reset").is_some());
    assert_problem(refused, 429, "rate_limited").await;
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
    assert_eq!(usage, 5, "a refused send is not counted");

    tokio::time::sleep(Duration::from_secs(retry_after)).await;
    let after = post(&app, &template("+15556000098")).await;
    assert_eq!(
        after.status(),
        202,
        "honouring Retry-After lets the next send through"
    );
    // Reads carry the send-rate headers too, and cost nothing against the send rate.
    let read = app
        .http
        .get(format!("{}/api/v1/messages", app.base))
        .bearer_auth(&app.key)
        .send()
        .await
        .unwrap();
    assert_eq!(read.status(), 200);
    assert_eq!(header(&read, "ratelimit-limit"), Some(5));
}

async fn reads_are_limited_separately_from_sends(db: Db) {
    let app = spawn(
        db,
        |s| {
            s.limits.read_rate_per_second = 1;
            s.limits.read_burst = 3;
        },
        80,
    )
    .await;
    let read = || async {
        app.http
            .get(format!("{}/api/v1/messages", app.base))
            .bearer_auth(&app.key)
            .send()
            .await
            .unwrap()
    };
    for _ in 0..3 {
        assert_eq!(read().await.status(), 200);
    }
    let limited = read().await;
    assert!(header(&limited, "retry-after").unwrap() >= 1);
    assert_problem(limited, 429, "rate_limited").await;
    // Sends have their own allowance (the business plan's).
    assert_eq!(post(&app, &template("+15556100001")).await.status(), 202);
}

async fn writes_other_than_sends_are_limited_per_key(db: Db) {
    let app = spawn(
        db,
        |s| {
            s.limits.write_rate_per_second = 1;
            s.limits.write_burst = 3;
        },
        80,
    )
    .await;
    let write = |key: String, n: usize| {
        let app = &app;
        async move {
            // Mixed writes share one allowance: a template sync and deletes of unknown endpoints.
            let request = if n.is_multiple_of(2) {
                app.http.post(format!("{}/api/v1/templates/sync", app.base))
            } else {
                app.http.delete(format!(
                    "{}/api/v1/webhooks/whk_01JD0000000000000000000000",
                    app.base
                ))
            };
            request.bearer_auth(key).send().await.unwrap()
        }
    };
    for n in 0..3 {
        let status = write(app.key.clone(), n).await.status();
        assert!(status == 200 || status == 404, "write {n}: {status}");
    }
    let limited = write(app.key.clone(), 3).await;
    assert!(header(&limited, "retry-after").unwrap() >= 1);
    let problem = assert_problem(limited, 429, "rate_limited").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("changes"),
        "{problem}"
    );
    // Sends are bounded by the plan's send rate, not by the write limit.
    for n in 0..5 {
        assert_eq!(
            post(&app, &template(&format!("+155561100{n:02}"))).await.status(),
            202
        );
    }
    // The limit is the key's: another key of the same organization still writes.
    let (_, other) = app.services.admin().create_key(&app.org, None).await.unwrap();
    assert_eq!(write(other.expose().to_owned(), 0).await.status(), 200);
}

async fn a_plan_change_applies_to_the_running_server(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let admin = app.services.admin();
    admin
        .set_plan(&app.org, PlanName::parse("trial").unwrap())
        .await
        .unwrap();
    // The trial plan: a burst of 5, then 1/s. Count the sends accepted before the first 429; a slow
    // machine refills one token per second spent, so the bound grows with the time taken, never the count.
    let started = std::time::Instant::now();
    let mut accepted = 0_u64;
    loop {
        let status = post(&app, &template(&format!("+155562000{accepted:02}")))
            .await
            .status();
        if status == 429 {
            break;
        }
        assert_eq!(status, 202);
        accepted += 1;
        assert!(accepted <= 60, "the trial plan's limit never applied");
    }
    let refills = started.elapsed().as_secs() + 1;
    assert!(
        (5..=5 + refills).contains(&accepted),
        "{accepted} sends accepted before the first 429 in {} s",
        started.elapsed().as_secs()
    );
    admin
        .set_plan(&app.org, PlanName::parse("starter").unwrap())
        .await
        .unwrap();
    let upgraded = post(&app, &template("+15556200098")).await;
    assert_eq!(upgraded.status(), 202, "the new plan's burst applies at once");
    assert_eq!(header(&upgraded, "ratelimit-limit"), Some(40));
    // The trial plan allows no files: the kind check follows the plan too.
    admin
        .set_plan(&app.org, PlanName::parse("trial").unwrap())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let text = app
        .http
        .post(format!("{}/api/v1/messages/send-text", app.base))
        .bearer_auth(&app.key)
        .json(&serde_json::json!({ "to": "+15556200097", "message": "hi" }))
        .send()
        .await
        .unwrap();
    assert_ne!(
        text.status(),
        403,
        "text is allowed on trial (refused here only by the window)"
    );
}

async fn a_suspended_organizations_queued_messages_wait_and_then_go(db: Db) {
    let app = spawn(db, |s| s.dispatch.hold_seconds = 1, 80).await;
    let admin = app.services.admin();
    // Stop the workers from taking it before the suspension: queue it while suspended.
    admin
        .set_account_status(&app.org, AccountStatus::Suspended)
        .await
        .unwrap();
    let refused = post(&app, &template("+15556300001")).await;
    assert_problem(refused, 403, "account_inactive").await;
    let sender = app.services.store.accounts().senders(&app.org).await.unwrap()[0].clone();
    crate::helpers::fill_quota(&app.services, &app.org, &sender, 3, 1_000_000).await;
    let waiting = herald_domain::ports::MessageQuery {
        status: Some(herald_domain::message::MessageStatus::Accepted),
        limit: 10,
        ..Default::default()
    };
    // Several hold periods pass: nothing is sent while the organization is suspended.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let held = app
        .services
        .store
        .messages()
        .messages(&app.org, &waiting)
        .await
        .unwrap();
    assert_eq!(held.len(), 3, "queued messages are held, not sent");
    let sent: Value = app
        .http
        .get(format!("{}/simulator/control/sent", app.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(sent.as_array().unwrap().len(), 0);

    admin
        .set_account_status(&app.org, AccountStatus::Active)
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !app
        .services
        .store
        .messages()
        .messages(&app.org, &waiting)
        .await
        .unwrap()
        .is_empty()
    {
        assert!(
            Instant::now() < deadline,
            "held messages did not go after reactivation"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for message in held {
        app.wait_status(&message.id.to_string(), "delivered").await;
    }
}

async fn a_send_over_its_rate_is_refused_before_its_body_is_read(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.services
        .admin()
        .set_plan(&app.org, PlanName::parse("trial").unwrap())
        .await
        .unwrap();
    for i in 0..5 {
        assert_eq!(
            post(&app, &template(&format!("+155564000{i:02}"))).await.status(),
            202
        );
    }
    // Not JSON at all: only a check made before the body is read can answer it with 429.
    let refused = app
        .http
        .post(format!("{}/api/v1/messages/send-template", app.base))
        .bearer_auth(&app.key)
        .header("content-type", "application/json")
        .body("this is not JSON")
        .send()
        .await
        .unwrap();
    assert!(header(&refused, "retry-after").unwrap() >= 1);
    let problem = assert_problem(refused, 429, "rate_limited").await;
    assert!(problem["detail"].as_str().unwrap().contains("sends"), "{problem}");
}

async fn dry_run(app: &crate::network::NetApp, to: &str) -> reqwest::Response {
    app.http
        .post(format!("{}/api/v1/messages/send-template?dry_run=true", app.base))
        .bearer_auth(&app.key)
        .json(&template(to))
        .send()
        .await
        .unwrap()
}

async fn dry_runs_have_a_rate_of_their_own(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.services
        .admin()
        .set_plan(&app.org, PlanName::parse("trial").unwrap())
        .await
        .unwrap();
    // Trial: 1/s, burst 5, for dry runs as for sends, in a bucket apart.
    let started = Instant::now();
    let mut passed = 0_u64;
    let refused = loop {
        let response = dry_run(&app, "+15556500001").await;
        if response.status() != 200 {
            break response;
        }
        passed += 1;
        assert!(passed <= 60, "dry runs were never limited");
    };
    assert!(
        (5..=5 + started.elapsed().as_secs() + 1).contains(&passed),
        "{passed} dry runs before the first 429"
    );
    assert!(header(&refused, "retry-after").unwrap() >= 1);
    let problem = assert_problem(refused, 429, "rate_limited").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("dry runs"),
        "{problem}"
    );
    // A multipart dry run is refused before its 10 MB are read.
    let form = reqwest::multipart::Form::new().text("to", "+15556500001").part(
        "file",
        reqwest::multipart::Part::bytes(vec![0_u8; 10_000_000]).file_name("big.pdf"),
    );
    let multipart = app
        .http
        .post(format!("{}/api/v1/messages/send-file?dry_run=true", app.base))
        .bearer_auth(&app.key)
        .multipart(form)
        .send()
        .await;
    // The server may answer and close before the client has written the whole body.
    if let Ok(multipart) = multipart {
        assert_problem(multipart, 429, "rate_limited").await;
    }
    // Real sends kept their whole allowance, and dry runs counted nothing.
    for i in 0..5 {
        let response = post(&app, &template(&format!("+155565000{i:02}"))).await;
        assert_eq!(response.status(), 202, "send {i} after the dry runs");
    }
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
    assert_eq!(usage, 5);
}

fn broadcast(first: usize, rows: usize) -> Value {
    let recipients: Vec<Value> = (first..first + rows)
        .map(|n| serde_json::json!({ "to": format!("+1555{n:08}") }))
        .collect();
    serde_json::json!({
        "template": { "name": "hello_world", "language": "en_US" },
        "recipients": recipients,
    })
}

async fn broadcast_rows_have_a_bucket_of_their_own_and_spare_other_organizations(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let path = "/api/v1/broadcasts";
    // A dry run of 6,000 rows charges none: the real broadcast of 6,000 below still fits, and the second one
    // is refused only because of it.
    let dry = app
        .post_response(&format!("{path}?dry_run=true"), &broadcast(0, 6_000))
        .await;
    assert_eq!(dry.status(), 200, "{}", dry.text().await.unwrap());
    // The business plan: 80 rows/s, and room for one broadcast of 10,000 rows at once.
    let keyed = |body: Value| {
        app.http
            .post(format!("{}{path}", app.base))
            .bearer_auth(&app.key)
            .header("Idempotency-Key", "rows-once")
            .json(&body)
            .send()
    };
    let first = keyed(broadcast(0, 6_000)).await.unwrap();
    assert_eq!(first.status(), 202, "{}", first.text().await.unwrap());
    // Its replay stores no row, so it is charged none: 6,000 more would not fit in the 4,000 left.
    let replay = keyed(broadcast(0, 6_000)).await.unwrap();
    assert_eq!(replay.status(), 202, "{}", replay.text().await.unwrap());
    assert_eq!(
        replay
            .headers()
            .get("idempotent-replayed")
            .and_then(|v| v.to_str().ok()),
        Some("true")
    );
    let second = app.post_response(path, &broadcast(6_000, 6_000)).await;
    let retry_after = header(&second, "retry-after").expect("Retry-After on 429");
    // At most 2,000 rows are missing, at 80 a second.
    assert!((1..=26).contains(&retry_after), "Retry-After {retry_after}");
    let problem = assert_problem(second, 429, "rate_limited").await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("broadcast recipient rows"),
        "{problem}"
    );
    // The refused rows were not stored; a broadcast within what is left passes.
    let list: Value = app.get(path).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    let third = app.post_response(path, &broadcast(12_000, 1_000)).await;
    assert_eq!(third.status(), 202);
    // Single sends, the organization's own and another's, are not charged for rows.
    assert_eq!(post(&app, &template("+15556600001")).await.status(), 202);
    let admin = app.services.admin();
    let other = admin
        .create_organization(
            herald_domain::values::DisplayName::parse("Other").unwrap(),
            PlanName::parse("business").unwrap(),
            None,
        )
        .await
        .unwrap();
    crate::helpers::add_default_sender(&app.services, &other.id, "+15550002222", "1000000002", 80).await;
    herald_app::demo::seed_templates(&app.services, &other.id)
        .await
        .unwrap();
    let (_, key) = admin.create_key(&other.id, None).await.unwrap();
    let other_send = app
        .http
        .post(format!("{}/api/v1/messages/send-template", app.base))
        .bearer_auth(key.expose())
        .json(&template("+15556600002"))
        .send()
        .await
        .unwrap();
    assert_eq!(other_send.status(), 202, "{}", other_send.text().await.unwrap());
}

/// The first 100 errors and the count: a small answer, however many errors the body had.
async fn assert_capped(response: reqwest::Response, at_least: u64) {
    assert_eq!(response.status(), 422);
    let body = response.bytes().await.unwrap();
    assert!(body.len() < 64 * 1024, "an answer of {} bytes", body.len());
    let problem: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(problem["code"], "validation_failed");
    assert!(problem["errors"].as_array().unwrap().len() <= 100, "{problem}");
    assert!(problem["errors_total"].as_u64().unwrap() >= at_least, "{problem}");
}

async fn a_body_of_a_million_errors_is_refused_with_a_small_answer(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    // 16 MiB of unknown keys: about 1.3 million of them.
    let mut body = String::with_capacity(16 * 1024 * 1024);
    body.push('{');
    let mut keys = 0_u64;
    while body.len() < 16 * 1024 * 1024 - 32 {
        if keys > 0 {
            body.push(',');
        }
        body.push_str(&format!("\"k{keys:07}\":0"));
        keys += 1;
    }
    body.push('}');
    let response = app
        .http
        .post(format!("{}/api/v1/broadcasts", app.base))
        .bearer_auth(&app.key)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_capped(response, keys).await;
    // 80,000 wrong body variables in 240 KB.
    let mut send = template("+15556700001");
    send["variables"] = serde_json::json!({ "body": vec![serde_json::json!({}); 80_000] });
    let response = post(&app, &send).await;
    assert_capped(response, 100).await;
}

/// A body without `Content-Length` (chunked) of `chunks` chunks of 64 KiB of JSON-ish bytes.
fn chunked(chunks: usize) -> reqwest::Body {
    let stream = futures::stream::iter(
        std::iter::once(b"{\"recipients\": [".to_vec())
            .chain(std::iter::repeat_n(vec![b' '; 64 * 1024], chunks))
            .map(Ok::<_, std::io::Error>),
    );
    reqwest::Body::wrap_stream(stream)
}

async fn a_chunked_body_over_the_limit_is_refused_while_it_streams(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    for (path, chunks) in [
        ("/api/v1/broadcasts", 16 * 16 + 2),
        ("/api/v1/messages/send-template", 5),
        ("/api/v1/contacts/keyword-rule", 5),
    ] {
        let method = if path.ends_with("keyword-rule") {
            reqwest::Method::PUT
        } else {
            reqwest::Method::POST
        };
        let response = app
            .http
            .request(method, format!("{}{path}", app.base))
            .bearer_auth(&app.key)
            .header("content-type", "application/json")
            .body(chunked(chunks))
            .send()
            .await;
        let response = response.unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_problem(response, 413, "payload_too_large").await;
    }
}
