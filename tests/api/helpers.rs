//! `spawn_app()`: a fresh store, a seeded organization, and the real server on 127.0.0.1:0.

#[path = "../support/network.rs"]
mod network;

pub use network::status_callback;

use herald_app::config::Settings;
use herald_app::{Application, Services};
use herald_domain::ids::OrganizationId;
use herald_domain::organization::{PlanName, SenderNumber};
use herald_domain::values::{DisplayName, PhoneNumber};
use herald_domain::window::ServiceWindow;
use serde_json::Value;
use std::any::Any;

/// Runs each named `async fn(Db)` scenario as its own test on each store. The PostgreSQL tests skip loudly
/// when `HERALD_TEST_DATABASE_URL` is unset (`make test` sets it whenever PostgreSQL answers, CI always).
macro_rules! on_both_stores {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(crate::helpers::Db::Sqlite).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    if std::env::var(herald_store::testing::DATABASE_URL_ENV).is_err() {
                        eprintln!("SKIPPED (HERALD_TEST_DATABASE_URL unset): {}::{}", module_path!(), stringify!($name));
                        return;
                    }
                    super::$name(crate::helpers::Db::Postgres).await;
                }
            )*
        }
    };
}

/// Which store a scenario runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Db {
    Sqlite,
    Postgres,
}

/// A running Herald with one organization (business plan), its default sender and an API key.
pub struct TestApp {
    pub base: String,
    pub http: reqwest::Client,
    pub services: Services,
    pub org: OrganizationId,
    pub key: String,
    pub sender: SenderNumber,
    handle: actix_web::dev::ServerHandle,
    _guard: Box<dyn Any + Send>,
}

impl Drop for TestApp {
    fn drop(&mut self) {
        // Stop the server's worker threads; the future is fire-and-forget on purpose.
        drop(self.handle.stop(false));
    }
}

/// Starts the app on a fresh store, or `None` when that store's suite is skipped.
pub async fn spawn_app(db: Db) -> Option<TestApp> {
    let (store, guard): (herald_store::Store, Box<dyn Any + Send>) = match db {
        Db::Sqlite => {
            let (store, guard) = herald_store::testing::fresh_sqlite()
                .await
                .expect("fresh SQLite store");
            (store, Box::new(guard))
        }
        Db::Postgres => {
            let (store, guard) = herald_store::testing::fresh_postgres()
                .await
                .expect("fresh PostgreSQL store")?;
            (store, Box::new(guard))
        }
    };
    let mut settings = Settings::default();
    settings.server.listen = "127.0.0.1:0".into();
    settings.server.http_workers = 2;
    // These scenarios check acceptance itself; the send rate has its own suite (limits.rs), so it does not
    // interfere here.
    let services = Services {
        limiter: std::sync::Arc::new(herald_domain::ports::NoRateLimit),
        ..Services::with_store(store)
    };
    Some(spawn_api_on(&settings, &services, guard).await)
}

/// The API alone (no workers: these scenarios check what is stored at acceptance, so nothing dispatches),
/// with one organization on the business plan whose default sender is the simulator's first number, its
/// templates stored, and a key.
pub async fn spawn_api_on(settings: &Settings, services: &Services, guard: Box<dyn Any + Send>) -> TestApp {
    let services = services.clone();
    let app = Application::build(settings, &services, herald_app::cli::Role::Api).expect("server binds");
    let base = format!(
        "http://127.0.0.1:{}",
        app.port().expect("the API role serves HTTP")
    );
    let handle = app.handle().expect("the API role serves HTTP");
    tokio::spawn(app.run_until_stopped());

    let (org, key) = new_org(&services, "business").await;
    let sender = add_default_sender(&services, &org, "+15550001111", "1000000001", 80).await;
    herald_app::demo::seed_templates(&services, &org).await.unwrap();
    TestApp {
        base,
        http: reqwest::Client::new(),
        services,
        org,
        key,
        sender,
        handle,
        _guard: guard,
    }
}

/// A new organization on `plan` with one API key.
pub async fn new_org(services: &Services, plan: &str) -> (OrganizationId, String) {
    let admin = services.admin();
    let org = admin
        .create_organization(
            DisplayName::parse("Test org").unwrap(),
            PlanName::parse(plan).unwrap(),
            None,
        )
        .await
        .unwrap();
    let (_, key) = admin.create_key(&org.id, None).await.unwrap();
    (org.id, key.expose().to_owned())
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// POSTs JSON with this app's key.
    pub async fn post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.post_as(&self.key, path, body).await
    }

    pub async fn post_as(&self, key: &str, path: &str, body: &Value) -> reqwest::Response {
        self.http
            .post(self.url(path))
            .bearer_auth(key)
            .json(body)
            .send()
            .await
            .unwrap()
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.get_as(&self.key, path).await
    }

    pub async fn get_as(&self, key: &str, path: &str) -> reqwest::Response {
        self.http
            .get(self.url(path))
            .bearer_auth(key)
            .send()
            .await
            .unwrap()
    }

    /// Opens the service window between the default sender and `to`, as an inbound message would.
    pub async fn open_window(&self, to: &str) {
        self.services
            .store
            .windows()
            .record_inbound(&ServiceWindow {
                organization_id: self.org,
                sender_id: self.sender.id,
                recipient: PhoneNumber::parse(to).unwrap().into(),
                last_inbound_at: chrono::Utc::now(),
            })
            .await
            .unwrap();
    }

    /// Every message id of the organization's log, newest first, walking every page.
    pub async fn all_message_ids(&self) -> Vec<String> {
        let mut ids = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let path = match &cursor {
                Some(c) => format!("/api/v1/messages?limit=200&cursor={c}"),
                None => "/api/v1/messages?limit=200".to_owned(),
            };
            let page: Value = self.get(&path).await.json().await.unwrap();
            ids.extend(
                page["data"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m["id"].as_str().unwrap().to_owned()),
            );
            match page["next_cursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => return ids,
            }
        }
    }

    /// How many accepted sends the in-process simulator holds for `message_id`.
    pub async fn copies_sent_to(&self, message_id: &str) -> usize {
        let sent: Value = self
            .http
            .get(self.url("/simulator/control/sent"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        sent.as_array()
            .unwrap()
            .iter()
            .filter(|r| r["biz_opaque_callback_data"] == message_id)
            .count()
    }

    /// This month's quota count.
    pub async fn usage(&self) -> u64 {
        let period = herald_domain::time::BillingPeriod::containing(chrono::Utc::now());
        self.services
            .store
            .messages()
            .usage(&self.org, &period)
            .await
            .unwrap()
    }
}

/// Asserts a problem+json answer with `status` and `code`, returning the body.
pub async fn assert_problem(response: reqwest::Response, status: u16, code: &str) -> Value {
    assert_eq!(response.status().as_u16(), status, "status for {code}");
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(
        content_type.starts_with("application/problem+json"),
        "content-type {content_type}"
    );
    assert!(response.headers().contains_key("x-request-id"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["status"], status, "{body}");
    assert_eq!(body["type"], format!("urn:herald:error:{code}"), "{body}");
    assert!(body["request_id"].is_string(), "{body}");
    body
}

/// Accepts `count` template messages for `org` straight through the store, to bring its quota near the limit
/// without going through the API.
pub async fn fill_quota(
    services: &Services,
    org: &OrganizationId,
    sender: &SenderNumber,
    count: u64,
    limit: u64,
) {
    use herald_domain::ids::{EventId, JobId, MessageId};
    use herald_domain::message::{EventSource, Message, MessageContent, MessageStatus, StatusEvent};
    use herald_domain::ports::{AcceptOutcome, AcceptRequest, OutboxJob, QuotaCharge};
    use herald_domain::template::{LanguageCode, TemplateName, TemplateRef, TemplateVariables};
    use herald_domain::time::BillingPeriod;

    let messages = services.store.messages();
    let now = chrono::Utc::now();
    let requests: Vec<AcceptRequest> = (0..count)
        .map(|i| {
            let message = Message::accepted(
                MessageId::from_ulid(services.ids.next_ulid()),
                *org,
                (sender.id, sender.number.clone()),
                PhoneNumber::parse(&format!("+1555400{i:04}")).unwrap(),
                MessageContent::Template {
                    template: TemplateRef {
                        name: TemplateName::parse("hello_world").unwrap(),
                        language: LanguageCode::parse("en_US").unwrap(),
                    },
                    variables: TemplateVariables::default(),
                },
                None,
                now,
            );
            AcceptRequest {
                recipient_check: None,
                customer_event: None,
                event: StatusEvent {
                    id: EventId::from_ulid(services.ids.next_ulid()),
                    organization_id: *org,
                    message_id: message.id,
                    status: MessageStatus::Accepted,
                    previous_status: None,
                    applied: true,
                    source: EventSource::Herald,
                    error: None,
                    occurred_at: now,
                    recorded_at: now,
                },
                job: OutboxJob {
                    id: JobId::from_ulid(services.ids.next_ulid()),
                    organization_id: *org,
                    message_id: message.id,
                    sender_id: sender.id,
                    available_at: now,
                    deadline: now + chrono::TimeDelta::hours(24),
                    trace: None,
                },
                quota: QuotaCharge {
                    period: BillingPeriod::containing(now),
                    limit: Some(limit),
                },
                idempotency: None,
                message,
            }
        })
        .collect();
    for chunk in requests.chunks(20) {
        let outcomes = futures::future::join_all(chunk.iter().map(|r| messages.accept(r))).await;
        for outcome in outcomes {
            assert_eq!(outcome.unwrap(), AcceptOutcome::Accepted);
        }
    }
}

/// Adds `number` (network id `phone_number_id`, in the simulator's business account, with no token of its
/// own) as the organization's default sender.
pub async fn add_default_sender(
    services: &Services,
    org: &OrganizationId,
    number: &str,
    phone_number_id: &str,
    throughput_per_second: u32,
) -> SenderNumber {
    network::add_sender(
        services,
        org,
        number,
        phone_number_id,
        true,
        throughput_per_second,
    )
    .await
}
