//! End to end through the network: the real Cloud API client, the simulator (served in-process on the
//! app's random port) and its signed callbacks, the dispatch workers and callback processing — on both
//! stores.

use crate::helpers::{Db, assert_problem};
use herald_app::config::Settings;
use herald_app::{Application, Services};
use herald_domain::ids::OrganizationId;
use herald_domain::organization::PlanName;
use herald_domain::values::DisplayName;
use serde_json::{Value, json};
use std::any::Any;
use std::sync::Arc;
use std::time::{Duration, Instant};

on_both_stores!(
    text_inside_the_window_is_delivered,
    templates_are_delivered_and_endings_steer_the_outcome,
    duplicated_callbacks_produce_one_event_each,
    the_callbacks_of_a_delivered_message_are_all_marked_processed,
    throughput_errors_slow_dispatch_without_failing,
    a_worker_dying_after_the_network_accepted_does_not_double_send,
    a_slow_sender_gets_each_of_200_messages_submitted_exactly_once,
    network_callbacks_need_a_valid_signature,
    templates_are_synced_from_the_network_and_listed,
    one_backlog_sweep_works_off_every_page_and_keeps_each_message_s_order,
    a_backlog_page_of_unreadable_rows_is_parked_and_the_sweep_goes_on_to_the_next,
);

const SENDER: &str = "+15550001111";

/// Herald with workers and the in-process simulator, one organization whose sender is the simulator's first
/// number, and its templates synced from the simulator.
pub struct NetApp {
    pub base: String,
    pub http: reqwest::Client,
    pub services: Services,
    pub org: OrganizationId,
    pub key: String,
    pub app_secret: String,
    handle: actix_web::dev::ServerHandle,
    _guard: Box<dyn Any + Send>,
}

impl Drop for NetApp {
    fn drop(&mut self) {
        drop(self.handle.stop(false));
    }
}

pub async fn store_for(db: Db) -> (herald_store::Store, herald_store::testing::Guard) {
    match db {
        Db::Sqlite => herald_store::testing::fresh_sqlite()
            .await
            .expect("fresh SQLite store"),
        Db::Postgres => herald_store::testing::fresh_postgres()
            .await
            .expect("fresh PostgreSQL store")
            .expect("HERALD_TEST_DATABASE_URL is set"),
    }
}

/// Settings that make the simulator and the workers quick, for tests.
pub fn fast_settings() -> Settings {
    let mut settings = Settings::default();
    settings.server.listen = "127.0.0.1:0".into();
    settings.server.http_workers = 2;
    settings.network.app_secret = Some("test-app-secret".to_owned().into());
    settings.simulator.callback_delay_min_ms = 5;
    settings.simulator.callback_delay_max_ms = 20;
    settings.dispatch.poll_ms = 50;
    settings.dispatch.base_backoff_ms = 50;
    settings.server.shutdown_timeout_seconds = 1;
    settings
}

pub(crate) async fn spawn(db: Db, tweak: impl FnOnce(&mut Settings), throughput: u32) -> NetApp {
    let (store, guard) = store_for(db).await;
    let mut settings = fast_settings();
    tweak(&mut settings);
    let services = Services::with_store(store);
    let admin = services.admin();
    let org = admin
        .create_organization(
            DisplayName::parse("Net org").unwrap(),
            PlanName::parse("business").unwrap(),
            None,
        )
        .await
        .unwrap();
    crate::helpers::add_default_sender(&services, &org.id, SENDER, "1000000001", throughput).await;
    let (_, key) = admin.create_key(&org.id, None).await.unwrap();
    let app = Application::build(&settings, &services, herald_app::cli::Role::All).expect("server binds");
    let base = format!("http://127.0.0.1:{}", app.port().unwrap());
    let handle = app.handle().unwrap();
    app.sync_templates_now().await.unwrap();
    tokio::spawn(app.run_until_stopped());
    NetApp {
        base,
        http: reqwest::Client::new(),
        services,
        org: org.id,
        key: key.expose().to_owned(),
        app_secret: "test-app-secret".into(),
        handle,
        _guard: Box::new(guard),
    }
}

impl NetApp {
    /// POSTs JSON with this app's key; the answer as it came.
    pub(crate) async fn post_response(&self, path: &str, body: &Value) -> reqwest::Response {
        self.http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .json(body)
            .send()
            .await
            .unwrap()
    }

    /// GETs with this app's key; the answer as it came.
    pub(crate) async fn get_response(&self, path: &str) -> reqwest::Response {
        self.http
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .send()
            .await
            .unwrap()
    }

    pub(crate) async fn send(&self, path: &str, body: Value) -> Value {
        let response = self.post_response(path, &body).await;
        assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
        response.json().await.unwrap()
    }

    pub(crate) async fn get(&self, path: &str) -> Value {
        self.get_response(path).await.json().await.unwrap()
    }

    /// Polls the message until `done` holds (at most 30 s).
    pub(crate) async fn wait_for(&self, id: &str, done: impl Fn(&Value, &Value) -> bool) -> (Value, Value) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let message = self.get(&format!("/api/v1/messages/{id}")).await;
            let events = self.get(&format!("/api/v1/messages/{id}/events")).await;
            if done(&message, &events) {
                return (message, events);
            }
            assert!(
                Instant::now() < deadline,
                "timed out; last seen: {message}\n{events}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub(crate) async fn wait_status(&self, id: &str, status: &str) -> (Value, Value) {
        self.wait_for(id, |m, _| m["status"] == status).await
    }

    pub(crate) async fn simulator_sent(&self) -> Vec<Value> {
        let sent: Value = self
            .http
            .get(format!("{}/simulator/control/sent", self.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        sent.as_array().cloned().unwrap_or_default()
    }

    async fn copies_sent(&self, message_id: &str) -> usize {
        self.simulator_sent()
            .await
            .iter()
            .filter(|r| r["biz_opaque_callback_data"] == message_id)
            .count()
    }
}

/// The network's `X-Hub-Signature-256` of `body` under `secret`: `sha256=` and the hex HMAC-SHA256.
pub(crate) fn hub_signature(secret: &[u8], body: &[u8]) -> String {
    use hmac::Mac as _;
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret).unwrap();
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

pub(crate) fn template(to: &str) -> Value {
    json!({ "to": to, "template": { "name": "hello_world", "language": "en_US" } })
}

fn statuses(events: &Value) -> Vec<(String, bool)> {
    events["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["status"].as_str().unwrap().to_owned(),
                e["applied"].as_bool().unwrap(),
            )
        })
        .collect()
}

async fn text_inside_the_window_is_delivered(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let to = "+15551234567";
    // Free-form is refused until the number writes in.
    let closed = app
        .post_response(
            "/api/v1/messages/send-text",
            &json!({ "to": to, "message": "hi" }),
        )
        .await;
    assert_problem(closed, 422, "service_window_closed").await;

    let inbound = app
        .http
        .post(format!("{}/simulator/control/inbound", app.base))
        .json(&json!({ "from": to, "to": SENDER, "text": "Olá, where is my order? 📦" }))
        .send()
        .await
        .unwrap();
    assert_eq!(inbound.status(), 200);
    let deadline = Instant::now() + Duration::from_secs(20);
    while app.get("/api/v1/contacts/%2B15551234567/window").await["open"] != true {
        assert!(
            Instant::now() < deadline,
            "the inbound message never opened the window"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let events = app.services.store.customer_events(&app.org).await.unwrap();
    let inbound_event = events
        .iter()
        .find(|e| e.event_type.as_str() == "message.inbound")
        .expect("inbound event");
    let payload: Value = serde_json::from_str(&inbound_event.payload).unwrap();
    assert_eq!(
        payload["data"]["text"]["body"], "Olá, where is my order? 📦",
        "non-ASCII text survives the signed callback"
    );
    assert_eq!(payload["data"]["from"], to);

    let message = app
        .send(
            "/api/v1/messages/send-text",
            json!({ "to": to, "message": "On its way!" }),
        )
        .await;
    let (delivered, _) = app
        .wait_status(message["id"].as_str().unwrap(), "delivered")
        .await;
    assert!(
        delivered["network_message_id"]
            .as_str()
            .unwrap()
            .starts_with("wamid.")
    );
    let request = app
        .simulator_sent()
        .await
        .into_iter()
        .find(|r| r["biz_opaque_callback_data"] == message["id"])
        .expect("the simulator received the send");
    assert_eq!(request["request"]["type"], "text");
    assert_eq!(request["request"]["text"]["body"], "On its way!");
}

async fn templates_are_delivered_and_endings_steer_the_outcome(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let plain = app
        .send("/api/v1/messages/send-template", template("+15551234567"))
        .await;
    let refused = app
        .send("/api/v1/messages/send-template", template("+15551239999"))
        .await;
    let flaky = app
        .send("/api/v1/messages/send-template", template("+15551239998"))
        .await;
    let early_delivery = app
        .send("/api/v1/messages/send-template", template("+15551239996"))
        .await;
    let reader = app
        .send("/api/v1/messages/send-template", template("+15551239997"))
        .await;
    let full = json!({
        "to": "+15551234568",
        "template": { "name": "order_shipped", "language": "en_US" },
        "variables": { "header": { "type": "text", "values": ["#1234"] }, "body": ["Ana", "#1234", "Friday"],
                       "buttons": [ { "index": 0, "sub_type": "url", "values": ["track/1234"] } ] }
    });
    let shipped = app.send("/api/v1/messages/send-template", full).await;

    // The simulator reports `sent` then `delivered` a few milliseconds apart, and Herald processes stored
    // callbacks concurrently: on a loaded machine `delivered` may be processed first. Either way both are
    // in the history and the applied statuses only ever move forward.
    let (_, events) = app
        .wait_for(plain["id"].as_str().unwrap(), |m, events| {
            let seen = statuses(events);
            m["status"] == "delivered" && seen.iter().any(|(s, _)| s == "sent")
        })
        .await;
    let applied: Vec<String> = statuses(&events)
        .into_iter()
        .filter(|(_, a)| *a)
        .map(|(s, _)| s)
        .collect();
    assert!(
        applied == ["accepted", "submitted", "sent", "delivered"]
            || applied == ["accepted", "submitted", "delivered"],
        "applied statuses only move forward: {applied:?}"
    );
    app.wait_status(shipped["id"].as_str().unwrap(), "delivered")
        .await;

    let (failed, _) = app.wait_status(refused["id"].as_str().unwrap(), "failed").await;
    assert_eq!(failed["error"]["network_code"], 131026, "{failed}");
    assert_eq!(failed["error"]["code"], "recipient_unreachable");

    let flaky_id = flaky["id"].as_str().unwrap();
    app.wait_status(flaky_id, "delivered").await;
    assert_eq!(
        app.copies_sent(flaky_id).await,
        1,
        "two 500s, then one accepted send"
    );

    // The simulator reports `delivered` before `sent`. Herald processes stored callbacks in concurrent
    // background tasks, so on a loaded machine the two may be processed in either order; either way both
    // are in the history, the message ends `delivered`, and a `sent` processed after `delivered` is
    // recorded without being applied.
    let early_id = early_delivery["id"].as_str().unwrap();
    let (message, events) = app
        .wait_for(early_id, |m, events| {
            let seen = statuses(events);
            m["status"] == "delivered"
                && seen.iter().any(|(s, _)| s == "sent")
                && seen.iter().any(|(s, _)| s == "delivered")
        })
        .await;
    assert_eq!(
        message["status"], "delivered",
        "a late `sent` does not move it back"
    );
    let seen = statuses(&events);
    assert!(seen.contains(&("delivered".to_owned(), true)));
    // The history is in the reports' own time order (the simulator dates `delivered` first), so which one
    // was processed later is read from `recorded_at`: a `sent` recorded after the applied `delivered` is
    // kept in the history but never applied.
    let entries = events["data"].as_array().unwrap();
    let recorded =
        |e: &Value| chrono::DateTime::parse_from_rfc3339(e["recorded_at"].as_str().unwrap()).unwrap();
    let delivered = entries
        .iter()
        .find(|e| e["status"] == "delivered" && e["applied"] == true)
        .unwrap();
    assert!(
        entries
            .iter()
            .filter(|e| e["status"] == "sent" && recorded(e) > recorded(delivered))
            .all(|e| e["applied"] == false),
        "a `sent` processed after `delivered` is recorded, never applied: {entries:?}"
    );

    app.wait_status(reader["id"].as_str().unwrap(), "read").await;
    for id in
        [&plain, &refused, &flaky, &early_delivery, &reader, &shipped].map(|m| m["id"].as_str().unwrap())
    {
        // `…9999` too: the network takes the request, then reports the failure.
        assert_eq!(app.copies_sent(id).await, 1, "{id}");
    }
}

async fn duplicated_callbacks_produce_one_event_each(db: Db) {
    let app = spawn(db, |s| s.simulator.duplicate_callbacks = true, 80).await;
    let message = app
        .send("/api/v1/messages/send-template", template("+15551234567"))
        .await;
    let id = message["id"].as_str().unwrap();
    // Wait until both copies of `delivered` were recorded.
    let (_, events) = app
        .wait_for(id, |m, e| {
            m["status"] == "delivered" && statuses(e).iter().filter(|(s, _)| s == "delivered").count() == 2
        })
        .await;
    let history = statuses(&events);
    assert_eq!(history.iter().filter(|(s, a)| s == "delivered" && *a).count(), 1);
    assert_eq!(
        history.iter().filter(|(s, a)| s == "delivered" && !*a).count(),
        1,
        "{history:?}"
    );
    let customer: Vec<(String, u32)> = app
        .services
        .store
        .customer_events(&app.org)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.message_id.map(|m| m.to_string()) == Some(id.to_owned()))
        .map(|e| {
            let payload: Value = serde_json::from_str(&e.payload).unwrap();
            (payload["data"]["status"].as_str().unwrap().to_owned(), e.sequence)
        })
        .collect();
    assert_eq!(
        customer,
        [
            ("submitted".to_owned(), 1),
            ("sent".to_owned(), 2),
            ("delivered".to_owned(), 3)
        ],
        "one customer event per change of status, in sequence"
    );
}

/// Every status callback the network sent for a delivered message is marked processed (the usual callback,
/// one status report, in the transaction that applies it), so the backlog sweep has nothing to redo.
async fn the_callbacks_of_a_delivered_message_are_all_marked_processed(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let message = app
        .send("/api/v1/messages/send-template", template("+15551234567"))
        .await;
    app.wait_status(message["id"].as_str().unwrap(), "delivered")
        .await;
    let tracking = app.services.store.tracking();
    let later = chrono::Utc::now() + chrono::TimeDelta::hours(1);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = tracking
            .unprocessed_callbacks(later, 10, later)
            .await
            .unwrap()
            .callbacks;
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "callbacks left unprocessed: {:?}",
            left.iter()
                .map(|c| String::from_utf8_lossy(&c.body).into_owned())
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn throughput_errors_slow_dispatch_without_failing(db: Db) {
    // Herald's pacing (100/s) is above the simulator's limit (5/s): the network answers 130429 and dispatch
    // must back off and retry, never fail.
    let app = spawn(db, |s| s.simulator.throughput_per_sender = 5, 100).await;
    let mut ids = Vec::new();
    for i in 0..15 {
        let message = app
            .send(
                "/api/v1/messages/send-template",
                template(&format!("+155520000{i:02}")),
            )
            .await;
        ids.push(message["id"].as_str().unwrap().to_owned());
    }
    for id in &ids {
        let (message, _) = app
            .wait_for(id, |m, _| m["status"] == "delivered" || m["status"] == "failed")
            .await;
        assert_eq!(message["status"], "delivered", "{message}");
        assert_eq!(app.copies_sent(id).await, 1);
    }
}

/// A worker that dies after the network accepted its send but before it recorded `submitted` must not cause a
/// second send: the job is reclaimed when its lease expires, waits for a callback carrying its message id, and
/// finds the message already moved on.
async fn a_worker_dying_after_the_network_accepted_does_not_double_send(db: Db) {
    use herald_domain::dispatch::JobCompletion;
    use herald_domain::ports::{OutboxStore, StoreError};
    use herald_domain::usecases::{DispatchMessages, DispatchPorts, DispatchSettings};

    /// An outbox whose completions never land: the process "dies" right after the network call.
    struct DiesBeforeRecording(Arc<dyn OutboxStore>);

    #[async_trait::async_trait]
    impl OutboxStore for DiesBeforeRecording {
        async fn claim_jobs(
            &self,
            token: &herald_domain::dispatch::ClaimToken,
            now: herald_domain::Timestamp,
            lease_until: herald_domain::Timestamp,
            limit: u32,
        ) -> Result<Vec<herald_domain::dispatch::ClaimedJob>, StoreError> {
            self.0.claim_jobs(token, now, lease_until, limit).await
        }
        async fn renew_jobs(
            &self,
            token: &herald_domain::dispatch::ClaimToken,
            jobs: &[herald_domain::ids::JobId],
            lease_until: herald_domain::Timestamp,
        ) -> Result<usize, StoreError> {
            self.0.renew_jobs(token, jobs, lease_until).await
        }
        async fn complete_job(&self, _: &JobCompletion) -> Result<bool, StoreError> {
            Err(StoreError::Unavailable("the worker died".into()))
        }
        async fn complete_jobs(&self, _: &[JobCompletion]) -> Result<Vec<bool>, StoreError> {
            Err(StoreError::Unavailable("the worker died".into()))
        }
        async fn backlog(
            &self,
            now: herald_domain::Timestamp,
        ) -> Result<Vec<herald_domain::dispatch::SenderBacklog>, StoreError> {
            self.0.backlog(now).await
        }
    }

    // The API alone (with the simulator and callbacks); dispatch runs by hand below.
    let (store, guard) = store_for(db).await;
    let services = Services::with_store(store);
    let settings = fast_settings();
    let app = crate::helpers::spawn_api_on(&settings, &services, Box::new(guard)).await;
    let message: Value = app
        .post("/api/v1/messages/send-template", &template("+15551234567"))
        .await
        .json()
        .await
        .unwrap();
    let id = message["id"].as_str().unwrap().to_owned();

    let network: Arc<dyn herald_domain::ports::MessagingNetwork> = Arc::new(
        herald_cloudapi::CloudApiClient::new({
            let mut config = herald_cloudapi::CloudApiConfig::new(format!("{}/simulator", app.base), "v23.0");
            config.default_access_token = Some(herald_simulator::DEFAULT_ACCESS_TOKEN.to_owned().into());
            config
        })
        .unwrap(),
    );
    let dispatcher = |outbox: Arc<dyn OutboxStore>| {
        DispatchMessages::new(
            DispatchPorts {
                outbox,
                network: network.clone(),
                catalog: services.store.media(),
                files: services.files.clone(),
                pacer: Arc::new(herald_ratelimit::SenderPacer::default()),
                clock: services.clock.clone(),
                ids: services.ids.clone(),
                random: services.secrets.clone(),
            },
            DispatchSettings {
                lease: herald_domain::time::Duration::milliseconds(500),
                callback_window: herald_domain::time::Duration::milliseconds(500),
                ..DispatchSettings::default()
            },
        )
    };
    let dying = dispatcher(Arc::new(DiesBeforeRecording(services.store.outbox())));
    let report = dying.run_once().await.unwrap();
    assert_eq!(report.claimed, 1);
    assert_eq!(
        app.copies_sent_to(&id).await,
        1,
        "the network accepted the first attempt"
    );

    // The restarted worker: the lease expires, the job comes back as reclaimed and waits for a callback.
    let restarted = dispatcher(services.store.outbox());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let report = restarted.run_once().await.unwrap();
        if report.already_done == 1 {
            break;
        }
        assert_eq!(
            report.submitted, 0,
            "a reclaimed job must not be resent while a callback may come"
        );
        assert!(Instant::now() < deadline, "the job never settled");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let fetched: Value = app
        .get(&format!("/api/v1/messages/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert!(
        ["sent", "delivered"].contains(&fetched["status"].as_str().unwrap()),
        "{fetched}"
    );
    assert_eq!(
        app.copies_sent_to(&id).await,
        1,
        "exactly one copy reached the network"
    );
    assert_eq!(
        restarted.run_once().await.unwrap().claimed,
        0,
        "nothing is left to dispatch"
    );
}

/// A network that accepts every send and counts them per message: the record of what was submitted.
#[derive(Default)]
struct CountingNetwork {
    sends: std::sync::Mutex<std::collections::HashMap<herald_domain::ids::MessageId, u32>>,
}

#[async_trait::async_trait]
impl herald_domain::ports::MessagingNetwork for CountingNetwork {
    async fn send(
        &self,
        _: &herald_domain::organization::SenderNumber,
        message: &herald_domain::message::Message,
        _: &herald_domain::ports::NetworkMediaIds,
    ) -> Result<herald_domain::ports::NetworkReceipt, herald_domain::ports::NetworkError> {
        *self.sends.lock().unwrap().entry(message.id).or_default() += 1;
        Ok(herald_domain::ports::NetworkReceipt {
            network_message_id: format!("wamid.{}", message.id),
            route: herald_domain::marketing::NetworkRoute::CloudApi,
        })
    }
    async fn upload_media(
        &self,
        _: &herald_domain::organization::SenderNumber,
        _: herald_domain::ports::MediaUpload,
    ) -> Result<String, herald_domain::ports::NetworkError> {
        unreachable!("these messages carry no file")
    }
    async fn download_media(
        &self,
        _: &herald_domain::organization::SenderNumber,
        _: &str,
    ) -> Result<herald_domain::ports::MediaDownload, herald_domain::ports::NetworkError> {
        unreachable!("nothing is downloaded")
    }
    async fn mark_read(
        &self,
        _: &herald_domain::organization::SenderNumber,
        _: &str,
        _: bool,
    ) -> Result<(), herald_domain::ports::NetworkError> {
        unreachable!("nothing is marked read")
    }
    async fn block_users(
        &self,
        _: &herald_domain::organization::SenderNumber,
        _: &[herald_domain::contact::Recipient],
        _: bool,
    ) -> Result<Vec<herald_domain::ports::BlockFailure>, herald_domain::ports::NetworkError> {
        unreachable!("nobody is blocked")
    }
    async fn templates(
        &self,
        _: &herald_domain::organization::SenderNumber,
    ) -> Result<Vec<herald_domain::ports::NetworkTemplate>, herald_domain::ports::NetworkError> {
        Ok(Vec::new())
    }

    async fn app_subscription(
        &self,
        _: &herald_domain::organization::SenderNumber,
    ) -> Result<herald_domain::ports::AppSubscription, herald_domain::ports::NetworkError> {
        Ok(herald_domain::ports::AppSubscription::Subscribed)
    }
}

/// A sender at 1 message/s with time scaled 20×: one send every 50 ms, turns handed out first come first
/// served (a fair lock), as the production pacer does for one sender.
struct ScaledPacer {
    next: tokio::sync::Mutex<tokio::time::Instant>,
}

#[async_trait::async_trait]
impl herald_domain::ports::Pacer for ScaledPacer {
    async fn wait_turn(&self, _: &herald_domain::organization::SenderNumber) {
        let turn = {
            let mut next = self.next.lock().await;
            let turn = (*next).max(tokio::time::Instant::now());
            *next = turn + Duration::from_millis(50);
            turn
        };
        tokio::time::sleep_until(turn).await;
    }
    fn slow_down(&self, _: &herald_domain::organization::SenderNumber, _: herald_domain::time::Duration) {}
}

/// A sender far slower than its backlog (1 message/s, 200 queued, two dispatch loops each claiming the 60 it
/// sends within a lease), with time scaled 20× (a 3 s lease for 60 s, a 15 s callback wait for 5 min; a
/// tighter scale made the lease itself lapse on a starved 2-core machine, which is not what is tested):
/// the second loop's jobs wait behind the first's in the sender's pacer for longer than their lease. The real dispatch loops on the real store must submit
/// every message exactly once — before lease renewal, the first loop reclaimed the second's waiting jobs,
/// the second's sends were thrown away as "claim lost", and each was sent again after the callback wait.
async fn a_slow_sender_gets_each_of_200_messages_submitted_exactly_once(db: Db) {
    use herald_domain::usecases::{DispatchMessages, DispatchPorts, DispatchSettings};

    let (store, _guard) = store_for(db).await;
    let services = Services::with_store(store);
    let org = services
        .admin()
        .create_organization(
            DisplayName::parse("Slow").unwrap(),
            PlanName::parse("enterprise").unwrap(),
            None,
        )
        .await
        .unwrap();
    // 1 message/s scaled 20×: what the store caps a claim at (as much as the sender sends within the
    // lease) is the scaled throughput times the scaled lease, 60 jobs.
    let sender =
        crate::helpers::add_default_sender(&services, &org.id, "+15550003333", "1000000003", 20).await;
    crate::helpers::fill_quota(&services, &org.id, &sender, 200, 10_000).await;

    let network = Arc::new(CountingNetwork::default());
    let dispatch = Arc::new(DispatchMessages::new(
        DispatchPorts {
            outbox: services.store.outbox(),
            network: network.clone(),
            catalog: services.store.media(),
            files: services.files.clone(),
            pacer: Arc::new(ScaledPacer {
                next: tokio::sync::Mutex::new(tokio::time::Instant::now()),
            }),
            clock: services.clock.clone(),
            ids: services.ids.clone(),
            random: services.secrets.clone(),
        },
        DispatchSettings {
            batch_size: 100,
            lease: herald_domain::time::Duration::seconds(3),
            callback_window: herald_domain::time::Duration::seconds(15),
            ..DispatchSettings::default()
        },
    ));
    let mut workers = herald_app::workers::Workers::none();
    workers.spawn_dispatch(
        dispatch,
        services.store.work_notifier(),
        2,
        Duration::from_millis(100),
    );

    let waiting = herald_domain::ports::MessageQuery {
        status: Some(herald_domain::message::MessageStatus::Accepted),
        limit: 1,
        ..Default::default()
    };
    let deadline = Instant::now() + Duration::from_secs(90);
    while !services
        .store
        .messages()
        .messages(&org.id, &waiting)
        .await
        .is_ok_and(|left| left.is_empty())
    {
        assert!(Instant::now() < deadline, "dispatch did not drain the queue");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Every message is submitted, so every job is closed: no send can follow.
    workers.stop(Duration::from_secs(10)).await;
    let sends = network.sends.lock().unwrap().clone();
    assert_eq!(sends.len(), 200, "every message reached the network");
    let twice: Vec<_> = sends.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        twice.is_empty(),
        "{} messages sent more than once, e.g. {:?}",
        twice.len(),
        twice.iter().take(3).collect::<Vec<_>>()
    );
}

async fn network_callbacks_need_a_valid_signature(db: Db) {
    let app = spawn(
        db,
        |s| s.network.verify_token = Some("verify-me".to_owned().into()),
        80,
    )
    .await;
    let url = format!("{}/webhooks/whatsapp", app.base);
    let ok = app
        .http
        .get(format!(
            "{url}?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=1158201444"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(ok.text().await.unwrap(), "1158201444");
    let wrong = app
        .http
        .get(format!(
            "{url}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 403);

    let fixtures: Value =
        serde_json::from_str(include_str!("../../fixtures/cloud-api/message.json")).unwrap();
    let body = serde_json::to_vec(&fixtures["text"]).unwrap();
    let unsigned = app.http.post(&url).body(body.clone()).send().await.unwrap();
    assert_eq!(unsigned.status(), 401);
    let forged = hub_signature(b"wrong-secret", &body);
    let refused = app
        .http
        .post(&url)
        .header("x-hub-signature-256", forged)
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let signed = hub_signature(app.app_secret.as_bytes(), &body);
    let accepted = app
        .http
        .post(&url)
        .header("x-hub-signature-256", signed)
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(
        accepted.status(),
        200,
        "an unknown phone_number_id is logged and acknowledged"
    );
}

/// Two worker processes' worth of dispatch (separate connection pools, as separate processes would have) on
/// one PostgreSQL database: 2,000 queued messages, each submitted exactly once — the simulator's own record
/// of what it accepted is the proof.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_two_worker_pools_submit_2000_messages_exactly_once() {
    let Some((store, guard)) = herald_store::testing::fresh_postgres()
        .await
        .expect("fresh PostgreSQL store")
    else {
        eprintln!(
            "SKIPPED (HERALD_TEST_DATABASE_URL unset): network::postgres_two_worker_pools_submit_2000_messages_exactly_once"
        );
        return;
    };
    let url = guard.database_url().to_owned();
    let api_services = Services::with_store(store);
    let settings = fast_settings();
    let api = crate::helpers::spawn_api_on(&settings, &api_services, Box::new(guard)).await;

    // A second sender at 1,000 messages/s, so the run is bounded by the network's own limit.
    let admin = api_services.admin();
    let org = admin
        .create_organization(
            DisplayName::parse("Bulk").unwrap(),
            PlanName::parse("enterprise").unwrap(),
            None,
        )
        .await
        .unwrap();
    let sender =
        crate::helpers::add_default_sender(&api_services, &org.id, "+15550002222", "1000000002", 1_000).await;
    crate::helpers::fill_quota(&api_services, &org.id, &sender, 2_000, 10_000).await;

    let mut worker_settings = fast_settings();
    worker_settings.store.database_url = url;
    // Worker processes on PostgreSQL refuse to start without the key that opens stored tokens.
    worker_settings.store.encryption_key =
        Some("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=".to_owned().into());
    worker_settings.simulator.url = Some(format!("{}/simulator", api.base));
    worker_settings.dispatch.loops = 2;
    let mut workers = Vec::new();
    for _ in 0..2 {
        let services = Services::connect(&worker_settings).await.unwrap();
        workers.push(Application::build(&worker_settings, &services, herald_app::cli::Role::Worker).unwrap());
    }

    let messages = api_services.store.messages();
    let waiting = herald_domain::ports::MessageQuery {
        status: Some(herald_domain::message::MessageStatus::Accepted),
        limit: 1,
        ..Default::default()
    };
    let deadline = Instant::now() + Duration::from_secs(180);
    // Under a full test run the pool can be busy for a moment: a read that times out is simply repeated.
    while !messages
        .messages(&org.id, &waiting)
        .await
        .is_ok_and(|left| left.is_empty())
    {
        assert!(Instant::now() < deadline, "dispatch did not drain the queue");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let sent: Vec<Value> = api
        .http
        .get(api.url("/simulator/control/sent"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ours: Vec<&str> = sent
        .iter()
        .filter(|r| r["phone_number_id"] == "1000000002")
        .map(|r| r["biz_opaque_callback_data"].as_str().unwrap())
        .collect();
    let unique: std::collections::HashSet<&str> = ours.iter().copied().collect();
    // A shortfall names where the missing messages ended (this test once saw 1,977 of 2,000 under a loaded
    // full run): their statuses, and the errors of those that failed.
    let mut ended = Vec::new();
    if unique.len() != 2_000 {
        for status in herald_domain::message::MessageStatus::ALL {
            let query = herald_domain::ports::MessageQuery {
                status: Some(status),
                limit: 2_001,
                ..Default::default()
            };
            let found = messages.messages(&org.id, &query).await.unwrap();
            let errors: std::collections::BTreeSet<String> = found
                .iter()
                .filter_map(|m| m.error.as_ref().map(|e| format!("{}: {}", e.code, e.detail)))
                .take(3)
                .collect();
            ended.push(format!("{status:?} {} {errors:?}", found.len()));
        }
    }
    assert_eq!(
        unique.len(),
        2_000,
        "every message reached the network; by status: {ended:?}"
    );
    assert_eq!(ours.len(), 2_000, "and none twice");
    drop(workers);
}

async fn templates_are_synced_from_the_network_and_listed(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let all = app.get("/api/v1/templates").await;
    let names: Vec<&str> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 15, "{all}");
    for name in [
        "hello_world",
        "order_shipped",
        "invoice_ready",
        "promo_image",
        "welcome_video",
        "appointment_named",
        "spring_sale",
        "verify_code",
        "spring_carousel",
        "flash_sale_offer",
        "coupon_code",
        "survey_flow",
        "store_location",
        "order_named",
        "booking_links",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    let approved = app.get("/api/v1/templates?status=APPROVED").await;
    assert_eq!(
        approved["data"].as_array().unwrap().len(),
        14,
        "spring_sale is PAUSED"
    );

    let shipped = app.get("/api/v1/templates/order_shipped/en_US").await;
    assert_eq!(shipped["status"], "APPROVED");
    assert_eq!(shipped["header"], json!({ "format": "text", "parameters": 1 }));
    assert_eq!(shipped["body"]["parameter_format"], "positional");
    assert_eq!(shipped["body"]["parameters"], 3);
    assert_eq!(
        shipped["buttons"],
        json!([{ "index": 0, "sub_type": "url", "parameters": 1 }])
    );
    let named = app.get("/api/v1/templates/appointment_named/en_US").await;
    assert_eq!(named["body"]["names"], json!(["customer", "date"]));
    let invoice = app.get("/api/v1/templates/invoice_ready/en_US").await;
    assert_eq!(invoice["header"]["format"], "document");

    let missing = app.get_response("/api/v1/templates/nope/en_US").await;
    assert_problem(missing, 404, "template_not_found").await;
    let synced = app
        .http
        .post(format!("{}/api/v1/templates/sync", app.base))
        .bearer_auth(&app.key)
        .send()
        .await
        .unwrap();
    assert_eq!(synced.status(), 200);
    assert_eq!(
        synced.json::<Value>().await.unwrap(),
        json!({ "business_accounts": 1, "templates": 15 })
    );
}

/// Stored callbacks left to the backlog (here planted as a process that died after answering the network would
/// leave them): more than a page of them, among which three reports about one message. One sweep processes
/// them all, page after page, and that message's reports — applied in waves beside other messages' — reach it
/// in the order they arrived: its events are `sent`, `delivered`, `read`, numbered in turn.
async fn one_backlog_sweep_works_off_every_page_and_keeps_each_message_s_order(db: Db) {
    use crate::helpers::status_callback;
    use herald_domain::content::MessageRef;
    use herald_domain::dispatch::StoredCallback;
    use herald_domain::ids::EventId;
    use herald_domain::ports::MessageQuery;

    let (store, _guard) = store_for(db).await;
    let services = Services::with_store(store);
    let (org, _) = crate::helpers::new_org(&services, "enterprise").await;
    let sender = crate::helpers::add_default_sender(&services, &org, "+15557000001", "7000001", 80).await;
    crate::helpers::fill_quota(&services, &org, &sender, 2, 1_000).await;
    let query = MessageQuery {
        limit: 10,
        ..MessageQuery::default()
    };
    let messages = services.store.messages().messages(&org, &query).await.unwrap();
    let [first, second] = [&messages[0], &messages[1]].map(|m| m.id.to_string());

    // Received an hour ago, in this order: the first message's reports spread over the backlog's pages, the
    // second's beside them, and 150 callbacks about a number Herald does not know (processed with a note).
    let mut bodies = vec![
        status_callback("7000001", &first, "sent", 1_700_000_001),
        status_callback("7000001", &second, "sent", 1_700_000_001),
        status_callback("7000001", &first, "delivered", 1_700_000_002),
    ];
    bodies.extend((0..150).map(|i| status_callback("9999999", &format!("other{i}"), "sent", 1_700_000_001)));
    bodies.push(status_callback("7000001", &first, "read", 1_700_000_003));
    bodies.push(status_callback("7000001", &second, "delivered", 1_700_000_002));
    let tracking = services.store.tracking();
    let hour_ago = chrono::Utc::now() - chrono::TimeDelta::hours(1);
    for (i, body) in bodies.into_iter().enumerate() {
        let callback = StoredCallback {
            id: EventId::from_ulid(services.ids.next_ulid()),
            received_at: hour_ago + chrono::TimeDelta::milliseconds(i64::try_from(i).unwrap()),
            body,
        };
        tracking.store_callback(&callback).await.unwrap();
    }

    let parked = std::sync::atomic::AtomicU64::new(0);
    herald_app::workers::sweep_callbacks(&services.process_callbacks(), &parked).await;

    let later = chrono::Utc::now() + chrono::TimeDelta::hours(1);
    let left = tracking
        .unprocessed_callbacks(later, 10, later)
        .await
        .unwrap()
        .callbacks;
    assert!(left.is_empty(), "{} callbacks left after one sweep", left.len());
    let read = |id: &str| {
        let id = herald_domain::ids::MessageId::parse(id).unwrap();
        let messages = services.store.messages();
        async move { messages.message(&org, &id).await.unwrap().unwrap() }
    };
    assert_eq!(read(&first).await.status.as_str(), "read");
    assert_eq!(read(&second).await.status.as_str(), "delivered");
    let events = services.store.customer_events(&org).await.unwrap();
    let of_first: Vec<(u32, String)> = events
        .iter()
        .filter(|e| matches!(&e.message_id, Some(MessageRef::Outbound(id)) if id.to_string() == first))
        .map(|e| {
            let payload: Value = serde_json::from_str(&e.payload).unwrap();
            (
                e.sequence,
                payload["data"]["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let statuses: Vec<&str> = of_first.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(
        statuses,
        ["sent", "delivered", "read"],
        "events of the first message: {of_first:?}"
    );
    let sequences: Vec<u32> = of_first.iter().map(|(n, _)| *n).collect();
    assert!(
        sequences.windows(2).all(|w| w[0] < w[1]),
        "numbered in turn: {of_first:?}"
    );
}

/// A full page of stored callbacks the store cannot read back (ids edited by hand) is parked as the sweep reads
/// it, and the same sweep goes on to the next page: a page is full by what it held, not by what it processed.
/// The sweep's parked count (the warning's, and the line's) includes them.
async fn a_backlog_page_of_unreadable_rows_is_parked_and_the_sweep_goes_on_to_the_next(db: Db) {
    use crate::helpers::status_callback;
    use herald_domain::dispatch::StoredCallback;
    use herald_domain::ids::EventId;

    let (store, guard) = store_for(db).await;
    let services = Services::with_store(store);
    let tracking = services.store.tracking();
    let hour_ago = chrono::Utc::now() - chrono::TimeDelta::hours(1);
    for i in 0..105 {
        let callback = StoredCallback {
            id: EventId::from_ulid(services.ids.next_ulid()),
            received_at: hour_ago + chrono::TimeDelta::milliseconds(i),
            body: status_callback("9999999", &format!("other{i}"), "sent", 1_700_000_001),
        };
        tracking.store_callback(&callback).await.unwrap();
    }
    // The oldest 100, one whole page, edited so their ids are no longer event ids.
    let edited = herald_store::testing::execute_sql(
        guard.database_url(),
        "UPDATE network_callbacks SET id = 'edited-' || id WHERE id IN \
         (SELECT id FROM network_callbacks ORDER BY received_at, id LIMIT 100)",
    )
    .await
    .unwrap();
    assert_eq!(edited, 100);

    let parked = std::sync::atomic::AtomicU64::new(0);
    herald_app::workers::sweep_callbacks(&services.process_callbacks(), &parked).await;

    let later = chrono::Utc::now() + chrono::TimeDelta::hours(1);
    let left = tracking.unprocessed_callbacks(later, 200, later).await.unwrap();
    assert_eq!(
        (left.callbacks.len(), left.unreadable),
        (0, 0),
        "the five readable callbacks after the page were processed in the same sweep"
    );
    assert_eq!(parked.load(std::sync::atomic::Ordering::Relaxed), 100);
    assert_eq!(services.process_callbacks().parked_count().await.unwrap(), 100);
}
