//! The scenarios, each run against both stores.

use crate::helpers::{TestApp, assert_problem, new_org};
use herald_domain::api_key::ApiKey;
use herald_domain::ids::ApiKeyId;
use herald_domain::organization::AccountStatus;
use serde_json::{Value, json};

macro_rules! both_stores {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let app = crate::helpers::spawn_app(crate::helpers::Db::Sqlite).await.expect("SQLite always runs");
                    super::$name(app).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    match crate::helpers::spawn_app(crate::helpers::Db::Postgres).await {
                        Some(app) => super::$name(app).await,
                        None => eprintln!("SKIPPED (HERALD_TEST_DATABASE_URL unset): postgres::{}", stringify!($name)),
                    }
                }
            )*
        }
    };
}

both_stores!(
    health_and_readiness,
    every_auth_case,
    validation_failures_name_every_field,
    free_form_outside_the_window_is_refused,
    text_inside_the_window_is_accepted,
    templates_accepted_and_refused_for_each_code,
    idempotent_replay_reuse_and_conflict,
    quota_is_never_over_counted_under_concurrency,
    another_organizations_message_is_not_found,
    cursor_pagination_covers_the_log_exactly_once,
    status_history_and_window_endpoints,
    a_disabled_key_is_refused_on_its_next_request,
    refused_requests_store_nothing,
    errors_for_paths_methods_and_bodies,
);

const TO: &str = "+15551234567";

fn hello(to: &str) -> Value {
    json!({ "to": to, "template": { "name": "hello_world", "language": "en_US" } })
}

async fn health_and_readiness(app: TestApp) {
    assert_eq!(
        app.http.get(app.url("/healthz")).send().await.unwrap().status(),
        200
    );
    assert_eq!(
        app.http.get(app.url("/readyz")).send().await.unwrap().status(),
        200
    );
    let spec: Value = app
        .http
        .get(app.url("/api/v1/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(spec["paths"]["/api/v1/messages/send-template"].is_object());
}

async fn every_auth_case(app: TestApp) {
    let path = "/api/v1/messages";
    let missing = app.http.get(app.url(path)).send().await.unwrap();
    assert_eq!(missing.headers()["www-authenticate"], "Bearer realm=\"herald\"");
    let missing_body = assert_problem(missing, 401, "unauthenticated").await;

    let basic = app
        .http
        .get(app.url(path))
        .basic_auth("user", Some("pw"))
        .send()
        .await
        .unwrap();
    assert_problem(basic, 401, "unauthenticated").await;
    assert_problem(app.get_as("hk_live_short", path).await, 401, "unauthenticated").await;

    let unknown = format!("hk_live_{}", "Q".repeat(40));
    let unknown_body = assert_problem(app.get_as(&unknown, path).await, 401, "unauthenticated").await;
    // No oracle: a malformed and a well-formed unknown key get the same answer.
    assert_eq!(unknown_body["detail"], missing_body["detail"]);
    assert_eq!(unknown_body["title"], missing_body["title"]);

    let (other_org, other_key) = new_org(&app.services, "starter").await;
    assert_eq!(app.get_as(&other_key, path).await.status(), 200);
    app.services
        .admin()
        .set_account_status(&other_org, AccountStatus::Suspended)
        .await
        .unwrap();
    assert_problem(app.get_as(&other_key, path).await, 403, "account_inactive").await;
    assert_problem(
        app.post_as(&other_key, "/api/v1/messages/send-template", &hello(TO))
            .await,
        403,
        "account_inactive",
    )
    .await;
    app.services
        .admin()
        .set_account_status(&other_org, AccountStatus::Closed)
        .await
        .unwrap();
    assert_problem(app.get_as(&other_key, path).await, 403, "account_inactive").await;
    app.services
        .admin()
        .set_account_status(&other_org, AccountStatus::Active)
        .await
        .unwrap();
    assert_eq!(app.get_as(&other_key, path).await.status(), 200);

    let key_id = key_id_of(&app, &other_key).await;
    app.services.admin().disable_key(&key_id).await.unwrap();
    assert_problem(app.get_as(&other_key, path).await, 401, "api_key_disabled").await;

    // Browsers' preflights are refused: keys belong on servers.
    let preflight = app
        .http
        .request(
            reqwest::Method::OPTIONS,
            app.url("/api/v1/messages/send-template"),
        )
        .header("origin", "https://example.com")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 403);
    assert!(!preflight.headers().contains_key("access-control-allow-origin"));
}

async fn key_id_of(app: &TestApp, key: &str) -> ApiKeyId {
    let digest = ApiKey::parse(key).unwrap().digest();
    app.services
        .store
        .accounts()
        .find_credential(&digest)
        .await
        .unwrap()
        .unwrap()
        .key
        .id
}

async fn validation_failures_name_every_field(app: TestApp) {
    let body = json!({ "to": "15551234567", "message": "", "client_reference": "x".repeat(129) });
    let problem = assert_problem(
        app.post("/api/v1/messages/send-text", &body).await,
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
    for field in ["to", "message", "client_reference"] {
        assert!(fields.contains(&field), "{field} missing from {problem}");
    }
    let template = json!({ "to": TO, "template": { "name": "Bad Name", "language": "english" }, "variables": ["ok", "line\nbreak"] });
    let problem = assert_problem(
        app.post("/api/v1/messages/send-template", &template).await,
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
    // The shorthand names the field as the client wrote it.
    for field in ["template.name", "template.language", "variables[1]"] {
        assert!(fields.contains(&field), "{field} missing from {problem}");
    }
}

async fn free_form_outside_the_window_is_refused(app: TestApp) {
    let body = json!({ "to": TO, "message": "hi" });
    let problem = assert_problem(
        app.post("/api/v1/messages/send-text", &body).await,
        422,
        "service_window_closed",
    )
    .await;
    assert!(problem["detail"].as_str().unwrap().contains(TO));
    // The seed's text form on send-template follows the same rule.
    let seed = json!({ "to": TO, "type": "text", "message": "Your order has shipped 📦" });
    assert_problem(
        app.post("/api/v1/messages/send-template", &seed).await,
        422,
        "service_window_closed",
    )
    .await;
}

async fn text_inside_the_window_is_accepted(app: TestApp) {
    app.open_window(TO).await;
    let seed = json!({ "to": TO, "type": "text", "message": "Your order has shipped 📦", "client_reference": "order-1" });
    let response = app.post("/api/v1/messages/send-template", &seed).await;
    assert_eq!(response.status(), 202);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let message: Value = response.json().await.unwrap();
    assert_eq!(
        location,
        format!("/api/v1/messages/{}", message["id"].as_str().unwrap())
    );
    assert_eq!(message["status"], "accepted");
    assert_eq!(message["type"], "text");
    assert_eq!(message["text"], "Your order has shipped 📦");
    assert_eq!(message["to"], TO);
    assert_eq!(message["from"], "+15550001111");
    assert_eq!(message["client_reference"], "order-1");
    assert!(message["timestamps"]["accepted"].is_string());
    let fetched: Value = app.get(&location).await.json().await.unwrap();
    assert_eq!(fetched, message);
    let response = app
        .post(
            "/api/v1/messages/send-text",
            &json!({ "to": TO, "message": "second" }),
        )
        .await;
    assert_eq!(response.status(), 202);
    assert_eq!(app.usage().await, 2);
}

async fn templates_accepted_and_refused_for_each_code(app: TestApp) {
    let send = |body: Value| {
        let app = &app;
        async move { app.post("/api/v1/messages/send-template", &body).await }
    };
    assert_eq!(send(hello(TO)).await.status(), 202);
    let full = json!({
        "to": TO, "type": "template",
        "template": { "name": "order_shipped", "language": "en_US" },
        "variables": {
            "header": { "type": "text", "values": ["#1234"] },
            "body": ["Ana", "#1234", "Friday"],
            "buttons": [ { "index": 0, "sub_type": "url", "values": ["track/1234"] } ]
        }
    });
    let accepted: Value = {
        let response = send(full.clone()).await;
        assert_eq!(response.status(), 202);
        response.json().await.unwrap()
    };
    assert_eq!(
        accepted["template"],
        json!({ "name": "order_shipped", "language": "en_US" })
    );
    let named = json!({ "to": TO, "template": { "name": "appointment_named", "language": "en_US" },
        "variables": { "customer": "Ana", "date": "Friday" } });
    assert_eq!(send(named).await.status(), 202);
    let document = json!({ "to": TO, "template": { "name": "invoice_ready", "language": "en_US" },
        "variables": { "header": { "type": "document", "link": "https://example.com/inv.pdf", "filename": "inv.pdf" }, "body": ["INV-1"] } });
    assert_eq!(send(document).await.status(), 202);

    let unknown = json!({ "to": TO, "template": { "name": "no_such_template", "language": "en_US" } });
    assert_problem(send(unknown).await, 404, "template_not_found").await;
    let wrong_language = json!({ "to": TO, "template": { "name": "hello_world", "language": "pt_BR" } });
    assert_problem(send(wrong_language).await, 404, "template_not_found").await;
    let paused = json!({ "to": TO, "template": { "name": "spring_sale", "language": "en_US" } });
    assert_problem(send(paused).await, 422, "template_not_approved").await;
    let mut short = full.clone();
    short["variables"]["body"] = json!(["Ana", "#1234"]);
    let problem = assert_problem(send(short).await, 422, "template_variables_mismatch").await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("body expects 3 parameters, got 2"),
        "{problem}"
    );
    let image_for_document = json!({ "to": TO, "template": { "name": "invoice_ready", "language": "en_US" },
        "variables": { "header": { "type": "image", "link": "https://example.com/a.png" }, "body": ["INV-1"] } });
    assert_problem(send(image_for_document).await, 422, "header_media_mismatch").await;
    assert_eq!(app.usage().await, 4, "only the accepted sends count");
}

async fn idempotent_replay_reuse_and_conflict(app: TestApp) {
    let send = |key: &'static str, body: Value| {
        let app = &app;
        async move {
            app.http
                .post(app.url("/api/v1/messages/send-template"))
                .bearer_auth(&app.key)
                .header("idempotency-key", key)
                .json(&body)
                .send()
                .await
                .unwrap()
        }
    };
    let first = send("order-1234", hello(TO)).await;
    assert_eq!(first.status(), 202);
    assert!(!first.headers().contains_key("idempotent-replayed"));
    let first: Value = first.json().await.unwrap();
    let replay = send("order-1234", hello(TO)).await;
    assert_eq!(replay.status(), 202);
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(replay.json::<Value>().await.unwrap(), first);
    assert_eq!(
        app.all_message_ids().await.len(),
        1,
        "a replay sends nothing again"
    );
    assert_eq!(app.usage().await, 1);

    assert_problem(
        send("order-1234", hello("+15557654321")).await,
        422,
        "idempotency_key_reused",
    )
    .await;

    // A request with the same key and body still in flight: plant its claim as the handler would.
    let body = hello(TO);
    let fingerprint = herald_http::request_fingerprint("/api/v1/messages/send-template", &body);
    let now = chrono::Utc::now();
    let claim = herald_domain::ports::IdempotencyClaim {
        organization_id: app.org,
        key: herald_domain::values::IdempotencyKey::parse("in-flight").unwrap(),
        token: herald_domain::dispatch::ClaimToken(app.services.ids.next_ulid()),
        fingerprint,
        now,
        lock_until: now - chrono::TimeDelta::seconds(60),
        completed_after: now - chrono::TimeDelta::hours(24),
    };
    let started = app
        .services
        .store
        .messages()
        .begin_idempotent(&claim)
        .await
        .unwrap();
    assert_eq!(started, herald_domain::ports::IdempotencyBegin::Started);
    assert_problem(send("in-flight", body).await, 409, "idempotency_conflict").await;
    assert_problem(
        send("bad key with spaces", hello(TO)).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(app.usage().await, 1);
}

async fn quota_is_never_over_counted_under_concurrency(app: TestApp) {
    let (org, key) = new_org(&app.services, "trial").await;
    let sender =
        crate::helpers::add_default_sender(&app.services, &org, "+15550009999", "1000000099", 80).await;
    herald_app::demo::seed_templates(&app.services, &org)
        .await
        .unwrap();
    // Fill the trial quota (1,000) to 20 below the limit straight through the store.
    crate::helpers::fill_quota(&app.services, &org, &sender, 980, 1_000).await;
    let period = herald_domain::time::BillingPeriod::containing(chrono::Utc::now());
    assert_eq!(
        app.services.store.messages().usage(&org, &period).await.unwrap(),
        980
    );

    let sends = (0..50).map(|i| {
        let app = &app;
        let key = key.clone();
        async move {
            app.post_as(
                &key,
                "/api/v1/messages/send-template",
                &hello(&format!("+1555200{i:04}")),
            )
            .await
        }
    });
    let responses = futures::future::join_all(sends).await;
    let mut accepted = 0;
    let mut refused = 0;
    for response in responses {
        match response.status().as_u16() {
            202 => accepted += 1,
            429 => {
                let retry_after: u64 = response.headers()["retry-after"]
                    .to_str()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!(retry_after >= 1);
                assert_problem(response, 429, "quota_exceeded").await;
                refused += 1;
            }
            other => panic!("unexpected status {other}: {}", response.text().await.unwrap()),
        }
    }
    assert_eq!((accepted, refused), (20, 30));
    assert_eq!(
        app.services.store.messages().usage(&org, &period).await.unwrap(),
        1_000
    );
}

async fn another_organizations_message_is_not_found(app: TestApp) {
    let message: Value = app
        .post("/api/v1/messages/send-template", &hello(TO))
        .await
        .json()
        .await
        .unwrap();
    let id = message["id"].as_str().unwrap();
    let (_, other_key) = new_org(&app.services, "business").await;
    assert_problem(
        app.get_as(&other_key, &format!("/api/v1/messages/{id}")).await,
        404,
        "not_found",
    )
    .await;
    assert_problem(
        app.get_as(&other_key, &format!("/api/v1/messages/{id}/events"))
            .await,
        404,
        "not_found",
    )
    .await;
    let listed: Value = app
        .get_as(&other_key, "/api/v1/messages")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["data"], json!([]));
    assert_eq!(app.get(&format!("/api/v1/messages/{id}")).await.status(), 200);
    assert_problem(app.get("/api/v1/messages/msg_nonsense").await, 404, "not_found").await;
}

async fn cursor_pagination_covers_the_log_exactly_once(app: TestApp) {
    let mut sent = Vec::new();
    for i in 0..25 {
        let body = json!({ "to": format!("+1555300{i:04}"), "template": { "name": "hello_world", "language": "en_US" }, "client_reference": format!("ref-{i}") });
        let message: Value = app
            .post("/api/v1/messages/send-template", &body)
            .await
            .json()
            .await
            .unwrap();
        sent.push(message["id"].as_str().unwrap().to_owned());
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            Some(c) => format!("/api/v1/messages?limit=10&cursor={c}"),
            None => "/api/v1/messages?limit=10".to_owned(),
        };
        let page: Value = app.get(&path).await.json().await.unwrap();
        pages += 1;
        seen.extend(
            page["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["id"].as_str().unwrap().to_owned()),
        );
        // A message accepted between page reads must not disturb the walk.
        if pages == 1 {
            assert_eq!(
                app.post("/api/v1/messages/send-template", &hello("+15553999999"))
                    .await
                    .status(),
                202
            );
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    sent.reverse();
    assert_eq!(seen, sent, "newest first, each exactly once");

    let filtered: Value = app
        .get("/api/v1/messages?client_reference=ref-3")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(filtered["data"].as_array().unwrap().len(), 1);
    let by_to: Value = app
        .get("/api/v1/messages?to=%2B15553000007&type=template&status=accepted")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(by_to["data"][0]["to"], "+15553000007");
    assert_problem(
        app.get("/api/v1/messages?limit=0").await,
        422,
        "validation_failed",
    )
    .await;
    assert_problem(
        app.get("/api/v1/messages?limit=201").await,
        422,
        "validation_failed",
    )
    .await;
    assert_problem(
        app.get("/api/v1/messages?cursor=garbage").await,
        422,
        "validation_failed",
    )
    .await;
    assert_problem(
        app.get("/api/v1/messages?status=lost").await,
        422,
        "validation_failed",
    )
    .await;
}

async fn status_history_and_window_endpoints(app: TestApp) {
    let message: Value = app
        .post("/api/v1/messages/send-template", &hello(TO))
        .await
        .json()
        .await
        .unwrap();
    let id = message["id"].as_str().unwrap();
    let events: Value = app
        .get(&format!("/api/v1/messages/{id}/events"))
        .await
        .json()
        .await
        .unwrap();
    let events = events["data"].as_array().unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["status"], "accepted");
    assert_eq!(events[0]["applied"], true);

    let closed: Value = app
        .get("/api/v1/contacts/%2B15551234567/window")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(closed["open"], false);
    assert_eq!(closed["number"], TO);
    assert_eq!(closed["from"], "+15550001111");
    assert!(closed["last_inbound_at"].is_null());
    app.open_window(TO).await;
    let open: Value = app
        .get("/api/v1/contacts/%2B15551234567/window?from=%2B15550001111")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(open["open"], true);
    assert!(open["expires_at"].is_string());
    assert_problem(
        app.get("/api/v1/contacts/15551234567/window").await,
        422,
        "validation_failed",
    )
    .await;
    assert_problem(
        app.get("/api/v1/contacts/%2B15551234567/window?from=%2B15559999999")
            .await,
        422,
        "validation_failed",
    )
    .await;
}

async fn a_disabled_key_is_refused_on_its_next_request(app: TestApp) {
    assert_eq!(app.get("/api/v1/messages").await.status(), 200);
    let key_id = key_id_of(&app, &app.key).await;
    app.services.admin().disable_key(&key_id).await.unwrap();
    assert_problem(app.get("/api/v1/messages").await, 401, "api_key_disabled").await;
    assert_problem(
        app.post("/api/v1/messages/send-template", &hello(TO)).await,
        401,
        "api_key_disabled",
    )
    .await;
}

async fn refused_requests_store_nothing(app: TestApp) {
    let refused = [
        json!({ "to": "bad", "template": { "name": "hello_world", "language": "en_US" } }),
        json!({ "to": TO, "type": "text", "message": "outside the window" }),
        json!({ "to": TO, "template": { "name": "order_shipped", "language": "en_US" }, "variables": ["a"] }),
        json!({ "to": TO, "template": { "name": "spring_sale", "language": "en_US" } }),
        json!({ "to": TO, "template": { "name": "nope", "language": "en_US" } }),
        json!({ "to": TO, "from": "+15550000000", "template": { "name": "hello_world", "language": "en_US" } }),
    ];
    for body in refused {
        let response = app.post("/api/v1/messages/send-template", &body).await;
        assert!(
            response.status().is_client_error(),
            "{body} → {}",
            response.status()
        );
    }
    assert!(app.all_message_ids().await.is_empty());
    assert_eq!(app.usage().await, 0);
    let (org, key) = new_org(&app.services, "trial").await;
    let _ = org;
    let media = json!({ "to": TO, "template": { "name": "hello_world", "language": "en_US" } });
    // A trial organization without a sender: refused on `from`, nothing stored for it either.
    assert_problem(
        app.post_as(&key, "/api/v1/messages/send-template", &media).await,
        422,
        "validation_failed",
    )
    .await;
}

async fn errors_for_paths_methods_and_bodies(app: TestApp) {
    assert_problem(app.get("/api/v1/nowhere").await, 404, "not_found").await;
    let delete = app
        .http
        .delete(app.url("/api/v1/messages/send-text"))
        .bearer_auth(&app.key)
        .send()
        .await
        .unwrap();
    assert_problem(delete, 405, "method_not_allowed").await;
    let not_json = app
        .http
        .post(app.url("/api/v1/messages/send-text"))
        .bearer_auth(&app.key)
        .header("content-type", "application/json")
        .body("{ not json")
        .send()
        .await
        .unwrap();
    assert_problem(not_json, 400, "invalid_json").await;
    let form = app
        .http
        .post(app.url("/api/v1/messages/send-text"))
        .bearer_auth(&app.key)
        .header("content-type", "text/plain")
        .body("hi")
        .send()
        .await
        .unwrap();
    assert_problem(form, 415, "unsupported_media_type").await;
    let huge = json!({ "to": TO, "message": "x".repeat(300 * 1024) });
    assert_problem(
        app.post("/api/v1/messages/send-text", &huge).await,
        413,
        "payload_too_large",
    )
    .await;
    let echoed = app
        .http
        .get(app.url("/healthz"))
        .header("x-request-id", "client-abc.1")
        .send()
        .await
        .unwrap();
    assert_eq!(echoed.headers()["x-request-id"], "client-abc.1");
    let replaced = app
        .http
        .get(app.url("/healthz"))
        .header("x-request-id", "bad id!")
        .send()
        .await
        .unwrap();
    assert_ne!(replaced.headers()["x-request-id"], "bad id!");
}

/// The HTTP layer is the same on both stores, so this runs once. A client pool reuses a connection it has
/// left idle for seconds (reqwest and Go keep one 90 s): a server that closed it after actix's default 5 s
/// would race such a reuse, and the request would die unanswered. `http_keep_alive_seconds` (120 s)
/// keeps the connection past that pause.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_connection_is_kept_past_a_six_second_pause() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn health_on(stream: &mut tokio::net::TcpStream) -> String {
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: herald\r\n\r\n")
            .await
            .unwrap();
        let mut answer = vec![0_u8; 4096];
        let read = stream.read(&mut answer).await.unwrap();
        String::from_utf8_lossy(&answer[..read]).into_owned()
    }

    let app = crate::helpers::spawn_app(crate::helpers::Db::Sqlite)
        .await
        .expect("SQLite always runs");
    let address = app.base.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let first = health_on(&mut stream).await;
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    tokio::time::sleep(std::time::Duration::from_secs(6)).await;
    let second = health_on(&mut stream).await;
    assert!(
        second.starts_with("HTTP/1.1 200"),
        "the idle connection was closed: {second:?}"
    );
}
