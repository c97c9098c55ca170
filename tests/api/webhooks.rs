//! Customer webhooks end to end (docs/api.md §9): the real server with its workers and the in-process simulator,
//! delivering to a REAL local HTTP receiver whose requests are recorded raw and verified with the
//! independent `standardwebhooks` crate — on both stores.

use crate::helpers::{Db, assert_problem, new_org};
use crate::network::{fast_settings, store_for};
use actix_web::{HttpRequest, HttpResponse, web};
use herald_app::config::Settings;
use herald_app::{Application, Services};
use herald_domain::ids::OrganizationId;
use herald_domain::organization::PlanName;
use herald_domain::values::DisplayName;
use serde_json::{Value, json};
use std::any::Any;
use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

on_both_stores!(
    every_event_kind_arrives_signed_and_verifies,
    broadcast_events_arrive_signed_only_where_subscribed,
    failed_attempts_are_retried_with_the_same_webhook_id,
    a_hanging_endpoint_does_not_delay_a_healthy_one,
    an_endpoint_never_gets_more_requests_at_once_than_its_cap,
    during_rotation_both_secrets_verify,
    redeliver_and_recover_after_a_disabled_period,
    private_and_loopback_destinations_are_refused,
    the_plan_caps_endpoints,
    an_endpoint_failing_for_five_days_is_disabled,
    control_characters_in_a_description_are_refused,
);

const SENDER: &str = "+15550001111";

// ---------------------------------------------------------------------------------------------------------
// The receiver: a real HTTP server on a random loopback port.

/// How the receiver answers one request.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Answer {
    Status(u16),
    /// Answers 200 after this long.
    Slow(Duration),
    /// Never answers (the attempt times out).
    Hang,
}

/// One request as it arrived.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
    at: Instant,
}

impl Recorded {
    fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    pub(crate) fn event_type(&self) -> String {
        self.json()["type"].as_str().unwrap_or_default().to_owned()
    }

    /// Verifies with the independent Standard Webhooks implementation, on the raw bytes.
    fn verifies_with(&self, secret: &str) -> bool {
        standardwebhooks::Webhook::new(secret)
            .unwrap()
            .verify(&self.body, &self.headers)
            .is_ok()
    }
}

struct ReceiverState {
    log: Mutex<Vec<Recorded>>,
    script: Mutex<VecDeque<Answer>>,
    otherwise: Answer,
    /// Requests being answered now, and the most there ever were at once.
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
}

pub(crate) struct Receiver {
    pub(crate) url: String,
    state: web::Data<ReceiverState>,
    handle: actix_web::dev::ServerHandle,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        drop(self.handle.stop(false));
    }
}

async fn receive(req: HttpRequest, body: web::Bytes, state: web::Data<ReceiverState>) -> HttpResponse {
    let mut headers = reqwest::header::HeaderMap::new();
    for (name, value) in req.headers() {
        headers.append(
            reqwest::header::HeaderName::from_bytes(name.as_str().as_bytes()).unwrap(),
            reqwest::header::HeaderValue::from_bytes(value.as_bytes()).unwrap(),
        );
    }
    state.log.lock().unwrap().push(Recorded {
        headers,
        body: body.to_vec(),
        at: Instant::now(),
    });
    let _answering = Answering::begin(&state);
    let answer = state
        .script
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or(state.otherwise);
    match answer {
        Answer::Status(code) => HttpResponse::build(actix_web::http::StatusCode::from_u16(code).unwrap())
            .body(format!("answered {code}")),
        Answer::Slow(after) => {
            tokio::time::sleep(after).await;
            HttpResponse::Ok().body("answered 200")
        }
        Answer::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            HttpResponse::Ok().finish()
        }
    }
}

/// One request being answered, counted in [`ReceiverState::in_flight`] until it is answered or dropped (its
/// client gave up).
struct Answering<'a>(&'a AtomicUsize);

impl<'a> Answering<'a> {
    fn begin(state: &'a ReceiverState) -> Self {
        let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        state.most_in_flight.fetch_max(now, Ordering::SeqCst);
        Self(&state.in_flight)
    }
}

impl Drop for Answering<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A receiver that answers `script` in order, then `otherwise` for every later request.
pub(crate) fn spawn_receiver(script: &[Answer], otherwise: Answer) -> Receiver {
    let state = web::Data::new(ReceiverState {
        log: Mutex::default(),
        script: Mutex::new(script.iter().copied().collect()),
        otherwise,
        in_flight: AtomicUsize::new(0),
        most_in_flight: AtomicUsize::new(0),
    });
    let data = state.clone();
    let server = actix_web::HttpServer::new(move || {
        actix_web::App::new()
            .app_data(data.clone())
            .default_service(web::to(receive))
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .unwrap();
    let port = server.addrs()[0].port();
    let server = server.run();
    let handle = server.handle();
    tokio::spawn(server);
    Receiver {
        url: format!("http://127.0.0.1:{port}/hook"),
        state,
        handle,
    }
}

impl Receiver {
    pub(crate) fn requests(&self) -> Vec<Recorded> {
        self.state.log.lock().unwrap().clone()
    }

    /// The most requests this receiver was answering at once.
    fn most_in_flight(&self) -> usize {
        self.state.most_in_flight.load(Ordering::SeqCst)
    }

    /// Waits until `done` holds for the recorded requests (at most `within`).
    pub(crate) async fn wait_until(
        &self,
        within: Duration,
        done: impl Fn(&[Recorded]) -> bool,
    ) -> Vec<Recorded> {
        let deadline = Instant::now() + within;
        loop {
            let requests = self.requests();
            if done(&requests) {
                return requests;
            }
            assert!(
                Instant::now() < deadline,
                "the receiver did not get what was expected; got {:?}",
                requests.iter().map(Recorded::event_type).collect::<Vec<_>>()
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    async fn wait_for_count(&self, n: usize, within: Duration) -> Vec<Recorded> {
        self.wait_until(within, |r| r.len() >= n).await
    }
}

// ---------------------------------------------------------------------------------------------------------
// Herald with workers, the simulator, and relaxed destination rules (the receiver is on loopback over http).

struct HookApp {
    base: String,
    http: reqwest::Client,
    services: Services,
    org: OrganizationId,
    key: String,
    handle: actix_web::dev::ServerHandle,
    _guard: Box<dyn Any + Send>,
}

impl Drop for HookApp {
    fn drop(&mut self) {
        drop(self.handle.stop(false));
    }
}

fn local_settings() -> Settings {
    let mut settings = fast_settings();
    settings.webhooks.allow_insecure = true;
    settings.webhooks.allow_private_targets = true;
    settings.webhooks.timeout_seconds = 5;
    settings
}

async fn spawn(db: Db, settings: Settings) -> HookApp {
    let (store, guard) = store_for(db).await;
    let services = Services::with_store(store);
    let admin = services.admin();
    let org = admin
        .create_organization(
            DisplayName::parse("Hook org").unwrap(),
            PlanName::parse("business").unwrap(),
            None,
        )
        .await
        .unwrap();
    crate::helpers::add_default_sender(&services, &org.id, SENDER, "1000000001", 80).await;
    let (_, key) = admin.create_key(&org.id, None).await.unwrap();
    let app = Application::build(&settings, &services, herald_app::cli::Role::All).expect("server binds");
    let base = format!("http://127.0.0.1:{}", app.port().unwrap());
    let handle = app.handle().unwrap();
    app.sync_templates_now().await.unwrap();
    tokio::spawn(app.run_until_stopped());
    HookApp {
        base,
        http: reqwest::Client::new(),
        services,
        org: org.id,
        key: key.expose().to_owned(),
        handle,
        _guard: Box::new(guard),
    }
}

impl HookApp {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> reqwest::Response {
        self.call_as(&self.key, method, path, body).await
    }

    async fn call_as(
        &self,
        key: &str,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> reqwest::Response {
        let mut request = self.http.request(method, self.url(path)).bearer_auth(key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        request.send().await.unwrap()
    }

    async fn expect(&self, method: reqwest::Method, path: &str, body: Option<Value>, status: u16) -> Value {
        let response = self.call(method.clone(), path, body).await;
        let got = response.status().as_u16();
        let text = response.text().await.unwrap();
        assert_eq!(got, status, "{method} {path}: {text}");
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    /// Registers `url` for `events` (all when `None`); answers (id, secret).
    async fn register(&self, url: &str, events: Option<&[&str]>) -> (String, String) {
        let mut body = json!({ "url": url, "description": "test receiver" });
        if let Some(events) = events {
            body["events"] = json!(events);
        }
        let created = self
            .expect(reqwest::Method::POST, "/api/v1/webhooks", Some(body), 201)
            .await;
        (
            created["id"].as_str().unwrap().to_owned(),
            created["secret"].as_str().unwrap().to_owned(),
        )
    }

    async fn send_template(&self, to: &str) -> String {
        let body = json!({ "to": to, "template": { "name": "hello_world", "language": "en_US" } });
        let message = self
            .expect(
                reqwest::Method::POST,
                "/api/v1/messages/send-template",
                Some(body),
                202,
            )
            .await;
        message["id"].as_str().unwrap().to_owned()
    }

    async fn send_test(&self, endpoint: &str) -> String {
        let answer = self
            .expect(
                reqwest::Method::POST,
                &format!("/api/v1/webhooks/{endpoint}/test"),
                None,
                202,
            )
            .await;
        answer["event_id"].as_str().unwrap().to_owned()
    }

    async fn deliveries(&self, endpoint: &str, query: &str) -> Vec<Value> {
        let page = self
            .expect(
                reqwest::Method::GET,
                &format!("/api/v1/webhooks/{endpoint}/deliveries?{query}"),
                None,
                200,
            )
            .await;
        page["data"].as_array().unwrap().clone()
    }

    /// Polls the deliveries API until `done` holds (at most 30 s).
    async fn wait_deliveries(&self, endpoint: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let deliveries = self.deliveries(endpoint, "limit=200").await;
            if done(&deliveries) {
                return deliveries;
            }
            assert!(
                Instant::now() < deadline,
                "deliveries never got there: {deliveries:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn wait_message_status(&self, id: &str, status: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let message = self
                .expect(reqwest::Method::GET, &format!("/api/v1/messages/{id}"), None, 200)
                .await;
            if message["status"] == status {
                return;
            }
            assert!(Instant::now() < deadline, "message stuck: {message}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

// ---------------------------------------------------------------------------------------------------------

async fn every_event_kind_arrives_signed_and_verifies(db: Db) {
    let app = spawn(db, local_settings()).await;
    let receiver = spawn_receiver(&[], Answer::Status(204));
    let (endpoint, secret) = app.register(&receiver.url, None).await;

    let delivered = app.send_template("+15551234567").await;
    let failed = app.send_template("+15551239999").await;
    let inbound = app
        .http
        .post(app.url("/simulator/control/inbound"))
        .json(&json!({ "from": "+15551230000", "to": SENDER, "text": "Olá 📦" }))
        .send()
        .await
        .unwrap();
    assert_eq!(inbound.status(), 200);
    let test_event = app.send_test(&endpoint).await;

    let kinds = [
        "message.status",
        "message.failed",
        "message.inbound",
        "webhook.test",
    ];
    let requests = receiver
        .wait_until(Duration::from_secs(30), |requests| {
            kinds
                .iter()
                .all(|kind| requests.iter().any(|r| r.event_type() == *kind))
        })
        .await;
    for request in &requests {
        assert!(
            request.verifies_with(&secret),
            "{} does not verify",
            request.event_type()
        );
        assert!(!request.verifies_with("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
        assert_eq!(request.header("content-type"), "application/json");
        assert!(request.header("webhook-id").starts_with("evt_"));
        assert!(request.header("webhook-signature").starts_with("v1,"));
        let body = request.json();
        assert!(body["timestamp"].is_string(), "{body}");
        assert!(body["data"].is_object(), "{body}");
    }
    let of = |kind: &str| -> Vec<Value> {
        requests
            .iter()
            .filter(|r| r.event_type() == kind)
            .map(Recorded::json)
            .collect()
    };
    assert!(
        of("message.status")
            .iter()
            .any(|e| e["data"]["message_id"] == delivered.as_str())
    );
    let failure = of("message.failed");
    assert!(failure.iter().any(|e| e["data"]["message_id"] == failed.as_str()));
    assert!(
        failure.iter().all(|e| e["data"]["error"].is_object()),
        "{failure:?}"
    );
    assert!(
        of("message.inbound")
            .iter()
            .any(|e| e["data"]["from"] == "+15551230000")
    );
    let tests: Vec<&Recorded> = requests
        .iter()
        .filter(|r| r.event_type() == "webhook.test")
        .collect();
    assert_eq!(tests[0].header("webhook-id"), test_event);

    // Secrets never come back in reads.
    for path in [
        "/api/v1/webhooks".to_owned(),
        format!("/api/v1/webhooks/{endpoint}"),
    ] {
        let text = app
            .call(reqwest::Method::GET, &path, None)
            .await
            .text()
            .await
            .unwrap();
        assert!(!text.contains(&secret) && !text.contains("whsec_"), "{text}");
    }
    let listed = app.deliveries(&endpoint, "status=succeeded").await;
    assert!(listed.iter().all(|d| d["status"] == "succeeded"));
    assert!(!listed.is_empty());
}

async fn failed_attempts_are_retried_with_the_same_webhook_id(db: Db) {
    let app = spawn(db, local_settings()).await;
    let receiver = spawn_receiver(&[Answer::Status(500), Answer::Status(500)], Answer::Status(200));
    let (endpoint, secret) = app.register(&receiver.url, Some(&["message.failed"])).await;
    let event = app.send_test(&endpoint).await;

    // Attempt 1 at once, attempt 2 five seconds (± 20 %) later.
    let two = receiver.wait_for_count(2, Duration::from_secs(20)).await;
    let gap = two[1].at - two[0].at;
    assert!(
        gap >= Duration::from_secs(3) && gap <= Duration::from_secs(10),
        "the second attempt came {gap:?} after the first"
    );
    let pending = app
        .wait_deliveries(&endpoint, |d| {
            d.first()
                .is_some_and(|d| d["attempts"].as_array().unwrap().len() == 2)
        })
        .await;
    let delivery = &pending[0];
    assert_eq!(delivery["status"], "pending");
    let next: chrono::DateTime<chrono::Utc> = delivery["next_attempt_at"].as_str().unwrap().parse().unwrap();
    let until_next = next - chrono::Utc::now();
    assert!(
        until_next > chrono::TimeDelta::minutes(3) && until_next < chrono::TimeDelta::minutes(7),
        "the third attempt is due 5 min (± 20 %) after the second, not in {until_next}"
    );
    // The schedule's 5 minutes are bridged by a redelivery, which keeps the delivery and its attempts.
    let delivery_id = delivery["id"].as_str().unwrap();
    app.expect(
        reqwest::Method::POST,
        &format!("/api/v1/webhooks/{endpoint}/deliveries/{delivery_id}/redeliver"),
        None,
        202,
    )
    .await;
    let three = receiver.wait_for_count(3, Duration::from_secs(20)).await;
    assert_eq!(three.len(), 3);
    for request in &three {
        assert_eq!(
            request.header("webhook-id"),
            event,
            "the same webhook-id on every attempt"
        );
        assert_eq!(request.body, three[0].body, "the same bytes on every attempt");
        assert!(request.verifies_with(&secret));
    }
    let done = app
        .wait_deliveries(&endpoint, |d| {
            d.first().is_some_and(|d| d["status"] == "succeeded")
        })
        .await;
    let attempts = done[0]["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 3, "{attempts:?}");
    let codes: Vec<u64> = attempts
        .iter()
        .map(|a| a["status_code"].as_u64().unwrap())
        .collect();
    assert_eq!(codes, [500, 500, 200]);
    assert_eq!(attempts[0]["error_kind"], "http_status");
    assert_eq!(attempts[0]["response_body"], "answered 500");
    assert!(attempts[2]["error_kind"].is_null());
    assert_eq!(
        attempts
            .iter()
            .map(|a| a["number"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [1, 2, 3]
    );
}

async fn a_hanging_endpoint_does_not_delay_a_healthy_one(db: Db) {
    let timeout = 10;
    let mut settings = local_settings();
    settings.webhooks.timeout_seconds = timeout;
    // Test events are this scenario's event source: more than the default 5 wait at once.
    settings.webhooks.pending_tests = 100;
    let app = spawn(db, settings).await;
    let hanging = spawn_receiver(&[], Answer::Hang);
    let healthy = spawn_receiver(&[], Answer::Status(200));
    let (slow, _) = app.register(&hanging.url, None).await;
    let (fast, _) = app.register(&healthy.url, None).await;

    // More events for the dead endpoint than its in-flight cap, so some wait behind the hanging ones.
    for _ in 0..6 {
        app.send_test(&slow).await;
    }
    hanging.wait_for_count(4, Duration::from_secs(10)).await;
    let mut delays = Vec::new();
    for n in 1..=3 {
        let sent = Instant::now();
        app.send_test(&fast).await;
        let got = healthy.wait_for_count(n, Duration::from_secs(20)).await;
        delays.push(got[n - 1].at - sent);
    }
    // Generous: a healthy delivery takes a poll interval or so, far below the dead endpoint's timeout.
    let bound = Duration::from_secs(timeout / 3);
    assert!(
        delays.iter().all(|d| *d < bound),
        "healthy deliveries took {delays:?} (bound {bound:?}) while another endpoint hung"
    );
    // A message event fans out to both; the healthy one gets it promptly too.
    let sent = Instant::now();
    app.send_template("+15551234567").await;
    let got = healthy
        .wait_until(Duration::from_secs(20), |r| {
            r.iter().any(|r| r.event_type() == "message.status")
        })
        .await;
    let first_status = got.iter().find(|r| r.event_type() == "message.status").unwrap();
    assert!(first_status.at - sent < Duration::from_secs(timeout / 2));
}

/// The per-endpoint cap (`webhook_per_endpoint_inflight`, 4) bounds the requests an endpoint gets at once,
/// also while the worker is still recording the outcomes of the ones that came back: 16 deliveries due
/// together to an endpoint that takes 400 ms to answer reach it at most 4 at a time, each once, and all
/// succeed.
async fn an_endpoint_never_gets_more_requests_at_once_than_its_cap(db: Db) {
    let mut settings = local_settings();
    settings.webhooks.pending_tests = 100;
    assert_eq!(settings.webhooks.per_endpoint_inflight, 4, "the default cap");
    let app = spawn(db, settings).await;
    let receiver = spawn_receiver(&[], Answer::Slow(Duration::from_millis(400)));
    let (endpoint, _) = app.register(&receiver.url, None).await;
    for _ in 0..16 {
        app.send_test(&endpoint).await;
    }
    let done = app
        .wait_deliveries(&endpoint, |d| {
            d.len() == 16 && d.iter().all(|d| d["status"] == "succeeded")
        })
        .await;
    assert!(done.iter().all(|d| d["attempts"].as_array().unwrap().len() == 1));
    let requests = receiver.requests();
    let ids: HashSet<&str> = requests.iter().map(|r| r.header("webhook-id")).collect();
    assert_eq!(
        (requests.len(), ids.len()),
        (16, 16),
        "each delivery arrived once"
    );
    let most = receiver.most_in_flight();
    assert!(
        (2..=4).contains(&most),
        "at most the cap at once, and more than one: {most}"
    );
}

async fn during_rotation_both_secrets_verify(db: Db) {
    let app = spawn(db, local_settings()).await;
    let receiver = spawn_receiver(&[], Answer::Status(200));
    let (endpoint, old) = app.register(&receiver.url, None).await;
    let rotated = app
        .expect(
            reqwest::Method::POST,
            &format!("/api/v1/webhooks/{endpoint}/rotate-secret"),
            None,
            200,
        )
        .await;
    let new = rotated["secret"].as_str().unwrap().to_owned();
    assert_ne!(new, old);
    assert!(new.starts_with("whsec_"));
    let until: chrono::DateTime<chrono::Utc> =
        rotated["secret_rotated_until"].as_str().unwrap().parse().unwrap();
    assert!(until - chrono::Utc::now() > chrono::TimeDelta::hours(23));

    app.send_test(&endpoint).await;
    let got = receiver.wait_for_count(1, Duration::from_secs(20)).await;
    let signature = got[0].header("webhook-signature");
    assert_eq!(signature.split(' ').count(), 2, "two signatures: {signature}");
    assert!(
        got[0].verifies_with(&old),
        "a receiver still holding the old secret verifies"
    );
    assert!(
        got[0].verifies_with(&new),
        "a receiver holding the new secret verifies"
    );

    let read = app
        .call(
            reqwest::Method::GET,
            &format!("/api/v1/webhooks/{endpoint}"),
            None,
        )
        .await
        .text()
        .await
        .unwrap();
    assert!(!read.contains(&old) && !read.contains(&new), "{read}");
}

async fn redeliver_and_recover_after_a_disabled_period(db: Db) {
    let app = spawn(db, local_settings()).await;
    let receiver = spawn_receiver(&[], Answer::Status(200));
    let (endpoint, secret) = app.register(&receiver.url, Some(&["message.status"])).await;
    let path = format!("/api/v1/webhooks/{endpoint}");
    let since = chrono::Utc::now() - chrono::TimeDelta::seconds(1);

    let paused = app
        .expect(
            reqwest::Method::PATCH,
            &path,
            Some(json!({"enabled": false})),
            200,
        )
        .await;
    assert_eq!(paused["enabled"], false);
    let message = app.send_template("+15551234567").await;
    app.wait_message_status(&message, "delivered").await;
    let skipped = app
        .wait_deliveries(&endpoint, |d| {
            !d.is_empty() && d.iter().all(|d| d["status"] == "skipped")
        })
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        receiver.requests().is_empty(),
        "nothing goes to a disabled endpoint"
    );
    let skipped_count = app.deliveries(&endpoint, "status=skipped&limit=200").await.len();
    assert!(skipped_count >= skipped.len());

    app.expect(reqwest::Method::PATCH, &path, Some(json!({"enabled": true})), 200)
        .await;
    let recovered = app
        .expect(
            reqwest::Method::POST,
            &format!("{path}/recover"),
            Some(json!({ "since": since.to_rfc3339() })),
            202,
        )
        .await;
    assert_eq!(recovered["requeued"].as_u64().unwrap() as usize, skipped_count);
    let got = receiver
        .wait_for_count(skipped_count, Duration::from_secs(20))
        .await;
    assert!(got.iter().all(|r| r.verifies_with(&secret)));
    assert!(
        got.iter()
            .all(|r| r.json()["data"]["message_id"] == message.as_str())
    );
    app.wait_deliveries(&endpoint, |d| d.iter().all(|d| d["status"] == "succeeded"))
        .await;

    // Redeliver one succeeded delivery: the same event again, with the same webhook-id.
    let delivery = &app.deliveries(&endpoint, "status=succeeded").await[0];
    let id = delivery["id"].as_str().unwrap();
    app.expect(
        reqwest::Method::POST,
        &format!("{path}/deliveries/{id}/redeliver"),
        None,
        202,
    )
    .await;
    let again = receiver
        .wait_for_count(skipped_count + 1, Duration::from_secs(20))
        .await;
    let last = again.last().unwrap();
    assert_eq!(last.header("webhook-id"), delivery["event_id"].as_str().unwrap());
    let unknown = app
        .call(
            reqwest::Method::POST,
            &format!("{path}/deliveries/dlv_01JD0000000000000000000000/redeliver"),
            None,
        )
        .await;
    assert_problem(unknown, 404, "not_found").await;
}

async fn private_and_loopback_destinations_are_refused(db: Db) {
    let mut settings = local_settings();
    // http is allowed so that the refusal below is about the address, not the scheme.
    settings.webhooks.allow_insecure = true;
    settings.webhooks.allow_private_targets = false;
    let app = spawn(db, settings).await;
    for url in [
        "http://127.0.0.1/hook",
        "http://[::1]/hook",
        "http://10.0.0.1/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::ffff:127.0.0.1]/hook",
        "http://localhost/hook",
    ] {
        let response = app
            .call(
                reqwest::Method::POST,
                "/api/v1/webhooks",
                Some(json!({ "url": url })),
            )
            .await;
        let problem = assert_problem(response, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], "url", "{url}: {problem}");
    }
    let listed = app
        .expect(reqwest::Method::GET, "/api/v1/webhooks", None, 200)
        .await;
    assert_eq!(listed["data"], json!([]), "nothing was registered");
}

async fn the_plan_caps_endpoints(db: Db) {
    let app = spawn(db, local_settings()).await;
    let (trial_org, trial_key) = new_org(&app.services, "trial").await;
    assert_ne!(trial_org, app.org);
    let receiver = spawn_receiver(&[], Answer::Status(200));
    let first = app
        .call_as(
            &trial_key,
            reqwest::Method::POST,
            "/api/v1/webhooks",
            Some(json!({ "url": receiver.url })),
        )
        .await;
    assert_eq!(first.status(), 201);
    let second = app
        .call_as(
            &trial_key,
            reqwest::Method::POST,
            "/api/v1/webhooks",
            Some(json!({ "url": receiver.url })),
        )
        .await;
    assert_problem(second, 403, "plan_forbids").await;
    // The trial organization's endpoint is invisible to another organization.
    let trial_list: Value = app
        .call_as(&trial_key, reqwest::Method::GET, "/api/v1/webhooks", None)
        .await
        .json()
        .await
        .unwrap();
    let trial_endpoint = trial_list["data"][0]["id"].as_str().unwrap().to_owned();
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = app
            .call(method, &format!("/api/v1/webhooks/{trial_endpoint}"), None)
            .await;
        assert_problem(response, 404, "not_found").await;
    }
    let response = app
        .call(
            reqwest::Method::POST,
            &format!("/api/v1/webhooks/{trial_endpoint}/test"),
            None,
        )
        .await;
    assert_problem(response, 404, "not_found").await;
    // The business organization is not affected by the trial's count.
    app.register(&receiver.url, None).await;
    app.register(&receiver.url, None).await;
}

// ---------------------------------------------------------------------------------------------------------
// Use-case level: the real store, a clock the test moves, a transport that always fails.

struct AlwaysFails;

#[async_trait::async_trait]
impl herald_domain::ports::WebhookTransport for AlwaysFails {
    async fn attempt(
        &self,
        _url: &herald_domain::webhook::WebhookUrl,
        _event_id: &herald_domain::ids::EventId,
        _payload: &str,
        _secrets: &[String],
        attempt_number: u32,
    ) -> herald_domain::webhook::AttemptReport {
        let outcome = herald_webhooks::AttemptOutcome {
            status: Some(503),
            body_prefix: "down".into(),
            error_kind: Some(herald_webhooks::AttemptErrorKind::HttpStatus),
            error_detail: None,
            retry_after: None,
            succeeded: false,
            duration: Duration::from_millis(3),
        };
        let retry_in = herald_webhooks::next_attempt(attempt_number, &outcome, 0.0)
            .map(|d| chrono::TimeDelta::from_std(d).unwrap());
        herald_domain::webhook::AttemptReport {
            attempt: herald_domain::webhook::DeliveryAttempt {
                number: attempt_number,
                at: chrono::Utc::now(),
                status_code: Some(503),
                response_prefix: "down".into(),
                error_kind: Some("http_status".into()),
                duration_ms: 3,
            },
            succeeded: false,
            retry_in,
        }
    }
}

struct AnyDestination;

#[async_trait::async_trait]
impl herald_domain::ports::DestinationChecker for AnyDestination {
    async fn check(&self, _url: &herald_domain::webhook::WebhookUrl) -> Result<(), String> {
        Ok(())
    }
}

async fn an_endpoint_failing_for_five_days_is_disabled(db: Db) {
    use herald_domain::usecases::{DeliverWebhooks, DeliverySettings, ManageWebhooks};
    use herald_domain::webhook::{DeliveryStatus, WebhookUrl};
    use herald_testkit::fixtures::{FixedClock, truncate_to_micros};

    let (store, _guard) = store_for(db).await;
    let services = Services::with_store(store);
    let (org, _) = new_org(&services, "business").await;
    let plan = services
        .store
        .accounts()
        .plan(&PlanName::parse("business").unwrap())
        .await
        .unwrap()
        .unwrap();
    let clock = Arc::new(FixedClock::new(truncate_to_micros(chrono::Utc::now())));
    let sealer = services.sealer.clone().unwrap();
    let manage = ManageWebhooks::new(
        services.store.webhooks(),
        Arc::new(AnyDestination),
        sealer.clone(),
        services.secrets.clone(),
        clock.clone(),
        services.ids.clone(),
    );
    let deliver = DeliverWebhooks::new(
        services.store.webhooks(),
        Arc::new(AlwaysFails),
        sealer,
        clock.clone(),
        services.ids.clone(),
        DeliverySettings::default(),
    );
    let (endpoint, _) = manage
        .create(
            &org,
            &plan,
            WebhookUrl::parse("https://receiver.example/hook").unwrap(),
            None,
            None,
        )
        .await
        .unwrap();
    let started = clock.now_value();
    manage.send_test(&org, &endpoint.id).await.unwrap();

    // Walk the whole schedule: each round makes one attempt, then the clock jumps to the next one.
    let mut rounds = 0;
    loop {
        let report = deliver.run_once().await.unwrap();
        assert_eq!(report.claimed, 1, "round {rounds}");
        rounds += 1;
        let delivery = manage
            .deliveries(&org, &endpoint.id, None, None, 10)
            .await
            .unwrap()
            .remove(0);
        if delivery.status == DeliveryStatus::Failed {
            assert_eq!(delivery.attempts.len(), 8);
            assert_eq!(delivery.next_attempt_at, None);
            break;
        }
        assert_eq!(delivery.status, DeliveryStatus::Pending);
        let next = delivery.next_attempt_at.unwrap();
        // Not due a moment before its time.
        clock.set(next - chrono::TimeDelta::seconds(1));
        assert_eq!(deliver.run_once().await.unwrap().claimed, 0);
        clock.set(next);
        assert!(rounds < 8);
    }
    assert_eq!(rounds, 8);
    let endpoint_now = manage.get(&org, &endpoint.id).await.unwrap();
    assert!(endpoint_now.enabled, "27 hours of failure is not yet 5 days");
    assert_eq!(endpoint_now.failing_since, Some(started));

    // Five days after the first failure, one more failed attempt disables it, with the reason stored.
    clock.set(started + chrono::TimeDelta::days(5) + chrono::TimeDelta::minutes(1));
    manage.send_test(&org, &endpoint.id).await.unwrap();
    let report = deliver.run_once().await.unwrap();
    assert_eq!(report.endpoints_disabled, 1, "{report:?}");
    let disabled = manage.get(&org, &endpoint.id).await.unwrap();
    assert!(!disabled.enabled);
    let reason = disabled.disabled_reason.unwrap();
    assert!(reason.contains("failed since"), "{reason}");
    // Deliveries of a disabled endpoint are not attempted.
    manage.send_test(&org, &endpoint.id).await.unwrap();
    clock.set(started + chrono::TimeDelta::days(6));
    assert_eq!(deliver.run_once().await.unwrap().claimed, 0);
    let failed = manage
        .deliveries(&org, &endpoint.id, Some(DeliveryStatus::Failed), None, 10)
        .await
        .unwrap();
    assert!(!failed.is_empty());
}

/// Reads a [`herald_testkit::fixtures::FixedClock`] without naming the port trait at every call.
trait ClockValue {
    fn now_value(&self) -> chrono::DateTime<chrono::Utc>;
}

impl ClockValue for herald_testkit::fixtures::FixedClock {
    fn now_value(&self) -> chrono::DateTime<chrono::Utc> {
        herald_domain::ports::Clock::now(self)
    }
}

/// NUL reached PostgreSQL and answered 500: every control character but line breaks and tabs is a field
/// error now, on create and on patch, and nothing is stored.
async fn control_characters_in_a_description_are_refused(db: Db) {
    let app = spawn(db, local_settings()).await;
    let receiver = spawn_receiver(&[], Answer::Status(200));
    for description in ["nul\u{0}here", "bell\u{7}", "escape\u{1b}[31m"] {
        let response = app
            .call(
                reqwest::Method::POST,
                "/api/v1/webhooks",
                Some(json!({ "url": receiver.url, "description": description })),
            )
            .await;
        let problem = assert_problem(response, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], "description", "{problem}");
    }
    let listed = app
        .expect(reqwest::Method::GET, "/api/v1/webhooks", None, 200)
        .await;
    assert_eq!(listed["data"], json!([]), "nothing was registered");

    let created = app
        .expect(
            reqwest::Method::POST,
            "/api/v1/webhooks",
            Some(json!({ "url": receiver.url, "description": "two\nlines\tand a tab" })),
            201,
        )
        .await;
    let id = created["id"].as_str().unwrap();
    let response = app
        .call(
            reqwest::Method::PATCH,
            &format!("/api/v1/webhooks/{id}"),
            Some(json!({ "description": "nul\u{0}" })),
        )
        .await;
    let problem = assert_problem(response, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "description", "{problem}");
    let kept = app
        .expect(reqwest::Method::GET, &format!("/api/v1/webhooks/{id}"), None, 200)
        .await;
    assert_eq!(kept["description"], "two\nlines\tand a tab");
}

/// A broadcast's end reaches the receiver as `broadcast.completed`, signed, its data the broadcast as GET
/// shows it; a cancelled one ends with it too; an endpoint that took only `message.status` gets neither.
async fn broadcast_events_arrive_signed_only_where_subscribed(db: Db) {
    let app = spawn(db, local_settings()).await;
    let receiver = spawn_receiver(&[], Answer::Status(204));
    let (_, secret) = app
        .register(
            &receiver.url,
            Some(&["broadcast.progress", "broadcast.completed"]),
        )
        .await;
    let others = spawn_receiver(&[], Answer::Status(204));
    app.register(&others.url, Some(&["message.status"])).await;
    let body = |to: &str, send_at: Option<String>| {
        let mut body = json!({
            "template": { "name": "hello_world", "language": "en_US" },
            "recipients": [ { "to": to } ],
        });
        if let Some(send_at) = send_at {
            body["send_at"] = json!(send_at);
        }
        body
    };
    let sent = app
        .expect(
            reqwest::Method::POST,
            "/api/v1/broadcasts",
            Some(body("+15551239101", None)),
            202,
        )
        .await;
    let later =
        (chrono::Utc::now() + chrono::TimeDelta::hours(1)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let held = app
        .expect(
            reqwest::Method::POST,
            "/api/v1/broadcasts",
            Some(body("+15551239102", Some(later))),
            202,
        )
        .await;
    let held_id = held["id"].as_str().unwrap();
    app.expect(
        reqwest::Method::POST,
        &format!("/api/v1/broadcasts/{held_id}/cancel"),
        Some(json!({})),
        200,
    )
    .await;

    let completed =
        |r: &Recorded, id: &Value| r.event_type() == "broadcast.completed" && r.json()["data"]["id"] == *id;
    let requests = receiver
        .wait_until(Duration::from_secs(30), |rs| {
            rs.iter().any(|r| completed(r, &sent["id"])) && rs.iter().any(|r| completed(r, &held["id"]))
        })
        .await;
    let done = requests.iter().find(|r| completed(r, &sent["id"])).unwrap();
    assert!(done.verifies_with(&secret), "signed with the endpoint's secret");
    let data = &done.json()["data"];
    assert_eq!(data["status"], "completed", "{data}");
    assert_eq!(data["released"], 1, "{data}");
    assert!(data["completed_at"].is_string(), "{data}");
    let read = app
        .expect(
            reqwest::Method::GET,
            &format!("/api/v1/broadcasts/{}", sent["id"].as_str().unwrap()),
            None,
            200,
        )
        .await;
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(data), keys(&read), "the event's data is the resource");
    let cancelled = requests.iter().find(|r| completed(r, &held["id"])).unwrap();
    assert_eq!(cancelled.json()["data"]["status"], "cancelled");
    assert_eq!(cancelled.json()["data"]["counts"]["cancelled"], 1);

    // The message.status endpoint got the sent message's news, never a broadcast event.
    others
        .wait_until(Duration::from_secs(30), |rs| {
            rs.iter().any(|r| r.event_type() == "message.status")
        })
        .await;
    assert!(
        others
            .requests()
            .iter()
            .all(|r| !r.event_type().starts_with("broadcast.")),
        "an endpoint that did not subscribe gets no broadcast event"
    );
}
