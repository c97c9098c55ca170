//! Pricing and dry runs end to end (docs/api.md §4, §5, §5.2): the simulator's pricing objects
//! stored on each message and shown with its estimated cost, usage by day and category, and dry runs that
//! report every refusal a real send meets and leave nothing behind — on both stores.

use crate::files::{custom_plan, file_part, files_under};
use crate::helpers::{Db, assert_problem};
use crate::network::{NetApp, spawn, template};
use herald_domain::organization::{Plan, PlanName};
use herald_testkit::files;
use reqwest::multipart::Form;
use serde_json::{Value, json};

on_both_stores!(
    a_delivered_template_carries_the_networks_pricing_and_its_estimated_cost,
    usage_sums_messages_and_cost_by_day_and_category,
    a_dry_run_reports_each_refusal_the_real_send_meets,
    a_dry_run_that_would_pass_stores_counts_and_spends_nothing,
    a_dry_run_sees_the_rate_limit_without_spending_it,
    a_dry_run_of_a_form_keeps_no_file,
    a_dry_run_of_a_form_meets_the_media_storage_check,
    a_file_to_a_blocked_recipient_meets_the_storage_first_and_keeps_no_file,
    usage_ranges_are_checked,
    usage_days_beyond_the_documented_range_are_refused_not_panicking,
);

const TO: &str = "+15551230042";

impl NetApp {
    async fn dry_run(&self, path: &str, body: &Value) -> Value {
        let response = self.post_response(&format!("{path}?dry_run=true"), body).await;
        assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
        response.json().await.unwrap()
    }

    async fn set_rate(&self, category: &str, amount: &str) {
        self.services
            .rate_cards()
            .set(&self.org, category, amount, "EUR")
            .await
            .unwrap();
    }

    async fn quota_used(&self) -> u64 {
        self.services
            .store
            .messages()
            .usage(
                &self.org,
                &herald_domain::time::BillingPeriod::containing(chrono::Utc::now()),
            )
            .await
            .unwrap()
    }
}

fn order_shipped(to: &str) -> Value {
    json!({ "to": to, "template": { "name": "order_shipped", "language": "en_US" },
            "variables": { "header": { "type": "text", "values": ["#1"] }, "body": ["Ana", "#1", "Friday"],
                           "buttons": [ { "index": 0, "sub_type": "url", "values": ["track/1"] } ] } })
}

async fn a_delivered_template_carries_the_networks_pricing_and_its_estimated_cost(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let sent = app.send("/api/v1/messages/send-template", template(TO)).await;
    assert!(
        sent.get("pricing").is_none(),
        "no pricing before the network's word: {sent}"
    );
    let id = sent["id"].as_str().unwrap();
    let (message, _) = app.wait_status(id, "delivered").await;
    assert_eq!(
        message["pricing"],
        json!({ "model": "pmp", "category": "utility", "type": "regular", "billable": true }),
        "the simulator prices a UTILITY template as Meta does: {message}"
    );
    assert!(message.get("estimated_cost").is_none(), "no rate, no estimate");
    app.set_rate("utility", "0.0147").await;
    let message = app.get(&format!("/api/v1/messages/{id}")).await;
    assert_eq!(
        message["estimated_cost"],
        json!({ "amount": "0.0147", "currency": "EUR" })
    );
    let page = app.get("/api/v1/messages?limit=10").await;
    assert_eq!(page["data"][0]["estimated_cost"]["amount"], "0.0147");

    // A free-form reply inside the window is service, billed since 2026-10-01 (the simulator prices by
    // today's rules, as Meta does).
    app.open_window_with(TO).await;
    app.set_rate("service", "1").await;
    let text = app
        .send(
            "/api/v1/messages/send-text",
            json!({ "to": TO, "message": "Thanks!" }),
        )
        .await;
    let (text, _) = app.wait_status(text["id"].as_str().unwrap(), "delivered").await;
    assert_eq!(text["pricing"]["category"], "service");
    assert_eq!(text["pricing"]["billable"], true);
    assert_eq!(text["pricing"]["type"], "regular");
    assert_eq!(
        text["estimated_cost"],
        json!({ "amount": "1.00", "currency": "EUR" })
    );
}

async fn usage_sums_messages_and_cost_by_day_and_category(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.set_rate("utility", "0.01").await;
    let mut ids = Vec::new();
    for n in 0..3 {
        let sent = app
            .send(
                "/api/v1/messages/send-template",
                template(&format!("+1555123005{n}")),
            )
            .await;
        ids.push(sent["id"].as_str().unwrap().to_owned());
    }
    for id in &ids {
        app.wait_status(id, "delivered").await;
    }
    let today = chrono::Utc::now().date_naive().to_string();
    let usage = app
        .get(&format!("/api/v1/usage?from={today}&until={today}"))
        .await;
    assert_eq!(usage["from"], today);
    assert_eq!(usage["until"], today);
    let days = usage["days"].as_array().unwrap();
    assert_eq!(days.len(), 1, "{usage}");
    assert_eq!(days[0]["day"], today);
    let utility = usage["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["category"] == "utility")
        .unwrap_or_else(|| panic!("{usage}"));
    assert_eq!(utility["messages"], 3);
    assert_eq!(utility["billable"], 3);
    assert_eq!(
        utility["estimated_cost"],
        json!({ "amount": "0.03", "currency": "EUR" })
    );
    assert_eq!(usage["messages"], 3, "{usage}");
    assert_eq!(usage["estimated_cost"]["amount"], "0.03");
    assert_eq!(days[0]["estimated_cost"]["amount"], "0.03");

    // Another organization's key sees none of it; the default range (the last 30 days) does.
    let (_, other_key) = crate::helpers::new_org(&app.services, "business").await;
    let other: Value = app
        .http
        .get(format!("{}/api/v1/usage", app.base))
        .bearer_auth(other_key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(other["messages"], 0, "{other}");
    assert_eq!(other["days"], json!([]));
    let default = app.get("/api/v1/usage").await;
    assert_eq!(default["messages"], 3);
    assert_eq!(default["until"], today);
}

async fn usage_ranges_are_checked(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    for (query, field) in [
        ("from=2026-11-02&until=2026-11-01", "from"),
        ("from=2026-01-01&until=2026-12-31", "until"),
        ("from=yesterday", "from"),
        ("until=2026-02-30", "until"),
    ] {
        let response = app.get_response(&format!("/api/v1/usage?{query}")).await;
        let problem = assert_problem(response, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field, "{query}: {problem}");
    }
    let response = app
        .get_response("/api/v1/usage?from=2026-01-01&until=2026-04-02")
        .await;
    assert_eq!(response.status(), 200, "92 days, both ends included, is the most");
}

/// Days outside 2000-01-01 to 9999-12-31 (docs/api.md §5.2) are refused naming their parameter, among them
/// the ones that made chrono's arithmetic panic and PostgreSQL refuse a timestamp; the first and last days
/// of the range are answered, on both stores, and the server answers on afterwards.
async fn usage_days_beyond_the_documented_range_are_refused_not_panicking(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    for (query, fields) in [
        ("until=-262143-01-01", vec!["until"]),
        (
            "until=%2B262142-12-31&from=%2B262142-12-30",
            vec!["from", "until"],
        ),
        ("until=-4713-12-01", vec!["until"]),
        ("from=1999-12-31&until=2000-01-01", vec!["from"]),
        ("from=9999-12-31&until=%2B10000-01-01", vec!["until"]),
        ("until=0000-01-01", vec!["until"]),
    ] {
        let response = app.get_response(&format!("/api/v1/usage?{query}")).await;
        let problem = assert_problem(response, 422, "validation_failed").await;
        let named: Vec<&str> = problem["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap())
            .collect();
        assert_eq!(named, fields, "{query}: {problem}");
    }
    for (query, from, until) in [
        ("until=2000-01-05", "2000-01-01", "2000-01-05"),
        ("from=9999-10-01&until=9999-12-31", "9999-10-01", "9999-12-31"),
    ] {
        let usage = app.get(&format!("/api/v1/usage?{query}")).await;
        assert_eq!(
            (usage["from"].as_str(), usage["until"].as_str()),
            (Some(from), Some(until)),
            "{usage}"
        );
        assert_eq!(usage["messages"], 0, "{usage}");
    }
    assert_eq!(app.get("/api/v1/usage").await["messages"], 0);
}

/// For each refusal, the dry run answers `200` with it first among its refusals, and the same request
/// without `dry_run` is refused with exactly that status and code.
async fn a_dry_run_reports_each_refusal_the_real_send_meets(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let text = "/api/v1/messages/send-text";
    let send_template = "/api/v1/messages/send-template";
    let mut wrong_variables = order_shipped(TO);
    wrong_variables["variables"]["body"] = json!(["Ana"]);
    let cases: Vec<(&str, Value, u16, &str)> = vec![
        (
            text,
            json!({ "to": TO, "message": "Hello" }),
            422,
            "service_window_closed",
        ),
        (
            text,
            json!({ "to": "15551230042", "message": "Hello" }),
            422,
            "validation_failed",
        ),
        (
            send_template,
            json!({ "to": TO, "template": { "name": "nope", "language": "en_US" } }),
            404,
            "template_not_found",
        ),
        (
            send_template,
            json!({ "to": TO, "template": { "name": "spring_sale", "language": "en_US" } }),
            422,
            "template_not_approved",
        ),
        (send_template, wrong_variables, 422, "template_variables_mismatch"),
        (
            send_template,
            json!({ "to": TO, "from": "+15559990000", "template": { "name": "hello_world", "language": "en_US" } }),
            422,
            "validation_failed",
        ),
    ];
    for (path, body, status, code) in &cases {
        let run = app.dry_run(path, body).await;
        assert_eq!(run["would_accept"], false, "{code}: {run}");
        let first = &run["refusals"][0];
        assert_eq!(first["code"], *code, "{run}");
        assert_eq!(first["status"], *status, "{run}");
        assert_eq!(first["type"], format!("urn:herald:error:{code}"));
        assert_problem(app.post_response(path, body).await, *status, code).await;
    }
    // Refusals come in the order a send meets them: the closed window after an unknown reply target.
    let both = json!({ "to": TO, "message": "Hello", "reply_to": "msg_01JD0000000000000000000000" });
    let run = app.dry_run(text, &both).await;
    let codes: Vec<_> = run["refusals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["code"].clone())
        .collect();
    assert_eq!(
        codes,
        [json!("validation_failed"), json!("service_window_closed")],
        "{run}"
    );
    assert_eq!(run["refusals"][0]["errors"][0]["field"], "reply_to");
    assert_eq!(run["window"]["open"], false);

    // The plan's quota: used up, the dry run says so and the send is refused.
    let tiny = Plan {
        name: PlanName::parse("tiny").unwrap(),
        monthly_quota: Some(0),
        ..app
            .services
            .store
            .accounts()
            .plan(&PlanName::parse("business").unwrap())
            .await
            .unwrap()
            .unwrap()
    };
    app.services.store.accounts().put_plan(&tiny).await.unwrap();
    let (tiny_org, tiny_key) = crate::helpers::new_org(&app.services, "tiny").await;
    crate::helpers::add_default_sender(&app.services, &tiny_org, "+15550002222", "1000000002", 80).await;
    herald_app::demo::seed_templates(&app.services, &tiny_org)
        .await
        .unwrap();
    let post_as = |query: &'static str| {
        app.http
            .post(format!("{}{send_template}{query}", app.base))
            .bearer_auth(&tiny_key)
            .json(&template(TO))
            .send()
    };
    let run: Value = post_as("?dry_run=true").await.unwrap().json().await.unwrap();
    assert_eq!(run["refusals"][0]["code"], "quota_exceeded", "{run}");
    assert_eq!(run["refusals"][0]["status"], 429);
    assert_problem(post_as("").await.unwrap(), 429, "quota_exceeded").await;

    // A suspended organization: authentication refuses both alike, before any check.
    app.services
        .admin()
        .set_account_status(&tiny_org, herald_domain::organization::AccountStatus::Suspended)
        .await
        .unwrap();
    assert_problem(post_as("?dry_run=true").await.unwrap(), 403, "account_inactive").await;
    assert_problem(post_as("").await.unwrap(), 403, "account_inactive").await;

    // A misspelt dry run is refused, never read as a send.
    let response = app
        .post_response(&format!("{send_template}?dry_run=yes"), &template(TO))
        .await;
    let problem = assert_problem(response, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "dry_run");
    assert_eq!(
        app.message_count().await,
        0,
        "nothing was stored by any dry run or refusal"
    );
}

async fn a_dry_run_that_would_pass_stores_counts_and_spends_nothing(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.set_rate("utility", "0.02").await;
    let run = app
        .dry_run("/api/v1/messages/send-template", &order_shipped(TO))
        .await;
    assert_eq!(run["would_accept"], true, "{run}");
    assert_eq!(run["refusals"], json!([]));
    assert_eq!(run["pricing"], json!({ "category": "utility", "billable": true }));
    assert_eq!(
        run["estimated_cost"],
        json!({ "amount": "0.02", "currency": "EUR" })
    );
    assert_eq!(
        run["window"],
        json!({ "open": false, "last_inbound_at": null, "expires_at": null })
    );

    // In the window a utility template is billed again since 2026-10-01 (free from 2025-07-01), and a
    // text is service, billed since then at the card's service rate, or its utility rate without one.
    app.open_window_with(TO).await;
    let run = app
        .dry_run("/api/v1/messages/send-template", &order_shipped(TO))
        .await;
    assert_eq!(run["pricing"], json!({ "category": "utility", "billable": true }));
    assert_eq!(run["estimated_cost"]["amount"], "0.02");
    assert_eq!(run["window"]["open"], true);
    assert!(run["window"]["expires_at"].is_string());
    let run = app
        .dry_run(
            "/api/v1/messages/send-text",
            &json!({ "to": TO, "message": "Hi" }),
        )
        .await;
    assert_eq!(run["would_accept"], true, "{run}");
    assert_eq!(run["pricing"], json!({ "category": "service", "billable": true }));
    assert_eq!(
        run["estimated_cost"],
        json!({ "amount": "0.02", "currency": "EUR" }),
        "no service rate: the utility rate: {run}"
    );

    // An Idempotency-Key is ignored: the real send with it afterwards is a first send, not a replay.
    let response = app
        .http
        .post(format!("{}/api/v1/messages/send-template?dry_run=true", app.base))
        .bearer_auth(&app.key)
        .header("Idempotency-Key", "order-1")
        .json(&order_shipped(TO))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(app.message_count().await, 0);
    assert_eq!(app.quota_used().await, 0);
    assert!(
        app.simulator_sent().await.is_empty(),
        "nothing reached the network"
    );
    let response = app
        .http
        .post(format!("{}/api/v1/messages/send-template", app.base))
        .bearer_auth(&app.key)
        .header("Idempotency-Key", "order-1")
        .json(&order_shipped(TO))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    assert!(response.headers().get("idempotent-replayed").is_none());
    assert_eq!(app.quota_used().await, 1);
}

async fn a_dry_run_sees_the_rate_limit_without_spending_it(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.services
        .admin()
        .set_plan(&app.org, PlanName::parse("trial").unwrap())
        .await
        .unwrap();
    // Trial: burst 5. Dry runs spend none of it (they have a bucket of their own, of the same size: docs/api.md
    // §3, so only a few here, leaving one for the last).
    for _ in 0..3 {
        let run = app.dry_run("/api/v1/messages/send-template", &template(TO)).await;
        assert_eq!(run["would_accept"], true, "{run}");
    }
    for n in 0..5 {
        let response = app
            .post_response(
                "/api/v1/messages/send-template",
                &template(&format!("+1555123007{n}")),
            )
            .await;
        assert_eq!(response.status(), 202, "send {n}: the dry runs took nothing");
    }
    let run = app.dry_run("/api/v1/messages/send-template", &template(TO)).await;
    assert_eq!(run["refusals"][0]["code"], "rate_limited", "{run}");
    assert_eq!(run["refusals"][0]["status"], 429);
    assert_problem(
        app.post_response("/api/v1/messages/send-template", &template(TO))
            .await,
        429,
        "rate_limited",
    )
    .await;
}

async fn a_dry_run_of_a_form_keeps_no_file(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let form = || {
        Form::new()
            .text("to", TO)
            .part("file", file_part(files::jpeg(), "a.jpg", "image/jpeg"))
    };
    let response = app
        .post_form("/api/v1/messages/send-file?dry_run=true", form())
        .await;
    assert_eq!(response.status(), 200);
    let run: Value = response.json().await.unwrap();
    assert_eq!(run["refusals"][0]["code"], "service_window_closed", "{run}");
    assert_problem(
        app.post_form("/api/v1/messages/send-file", form()).await,
        422,
        "service_window_closed",
    )
    .await;
    app.open_window_with(TO).await;
    let response = app
        .post_form("/api/v1/messages/send-file?dry_run=true", form())
        .await;
    let run: Value = response.json().await.unwrap();
    assert_eq!(run["would_accept"], true, "{run}");
    assert_eq!(app.message_count().await, 0);
    assert_eq!(
        files_under(app.media_root()),
        Vec::<String>::new(),
        "the dry run kept no file"
    );
}

/// A multipart send's dry run makes the media storage check a real send makes (its file's bytes beside the
/// organization's unexpired uploads), answering its `413 payload_too_large` as a refusal, and still keeps
/// no file; with room, it would be accepted.
async fn a_dry_run_of_a_form_meets_the_media_storage_check(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.open_window_with(TO).await;
    let size = files::padded(files::png(), 10_000).len() as u64;
    custom_plan(&app, |plan| plan.media_storage_bytes = Some(size + size / 2)).await;
    // Files of their own bytes, so deduplication on disk cannot hide one.
    let png = |n: u8| {
        let mut bytes = files::padded(files::png(), 10_000);
        *bytes.last_mut().unwrap() = n;
        file_part(bytes, "p.png", "image/png")
    };
    let form = |n: u8| Form::new().text("to", TO).part("file", png(n));
    let run: Value = app
        .post_form("/api/v1/messages/send-file?dry_run=true", form(1))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(run["would_accept"], true, "room for one file: {run}");
    let uploaded = app
        .post_form("/api/v1/media", Form::new().part("file", png(0)))
        .await;
    assert_eq!(uploaded.status(), 201, "{}", uploaded.text().await.unwrap());
    let before = files_under(app.media_root());

    let response = app
        .post_form("/api/v1/messages/send-file?dry_run=true", form(2))
        .await;
    assert_eq!(response.status(), 200);
    let run: Value = response.json().await.unwrap();
    assert_eq!(run["would_accept"], false, "{run}");
    let refusals = run["refusals"].as_array().unwrap();
    assert_eq!(refusals.len(), 1, "{run}");
    assert_eq!(refusals[0]["code"], "payload_too_large", "{run}");
    assert_eq!(refusals[0]["status"], 413, "{run}");
    let detail = refusals[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("media storage is full") && detail.contains(&format!("hold {size}")),
        "{run}"
    );
    // The real send meets the same refusal, with the same detail.
    let real = assert_problem(
        app.post_form("/api/v1/messages/send-file", form(2)).await,
        413,
        "payload_too_large",
    )
    .await;
    assert_eq!(real["detail"], refusals[0]["detail"], "{real}");
    assert_eq!(
        files_under(app.media_root()),
        before,
        "neither the dry run nor the refused send kept a file"
    );
    assert_eq!(app.message_count().await, 0);
}

/// A real send stores its file before its accept, whose transaction checks the recipient: a file that does
/// not fit answers `413 payload_too_large` even to a blocked recipient, and the dry run lists the two
/// refusals in that order; a file that fits, to a blocked recipient, answers `422 recipient_blocked` and the
/// stored file is removed again. Nothing is stored or counted either way.
async fn a_file_to_a_blocked_recipient_meets_the_storage_first_and_keeps_no_file(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.open_window_with(TO).await;
    let blocked = app
        .post_response(
            &format!("/api/v1/contacts/{}/block", TO.replace('+', "%2B")),
            &json!({}),
        )
        .await;
    assert_eq!(blocked.status(), 200, "{}", blocked.text().await.unwrap());
    let bytes = files::padded(files::png(), 10_000);
    let size = bytes.len() as u64;
    let form = || {
        Form::new()
            .text("to", TO)
            .part("file", file_part(bytes.clone(), "p.png", "image/png"))
    };

    custom_plan(&app, |plan| plan.media_storage_bytes = Some(size / 2)).await;
    let run: Value = app
        .post_form("/api/v1/messages/send-file?dry_run=true", form())
        .await
        .json()
        .await
        .unwrap();
    let codes: Vec<&str> = run["refusals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["payload_too_large", "recipient_blocked"], "{run}");
    assert_problem(
        app.post_form("/api/v1/messages/send-file", form()).await,
        413,
        "payload_too_large",
    )
    .await;

    custom_plan(&app, |plan| plan.media_storage_bytes = Some(size * 4)).await;
    assert_problem(
        app.post_form("/api/v1/messages/send-file", form()).await,
        422,
        "recipient_blocked",
    )
    .await;
    assert_eq!(
        files_under(app.media_root()),
        Vec::<String>::new(),
        "the file stored before the accept's refusal is removed"
    );
    assert_eq!(app.message_count().await, 0);
    assert_eq!(
        app.get("/api/v1/usage").await["messages"],
        0,
        "a refused send is not counted"
    );
}
