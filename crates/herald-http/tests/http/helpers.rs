//! A test application over mocked ports, and small request helpers.

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::http::header::HeaderMap;
use actix_web::test::{self, TestRequest};
use actix_web::web;
use herald_domain::Timestamp;
use herald_domain::api_key::{ApiKey, ApiKeyRecord, ApiKeyStatus};
use herald_domain::ids::{ApiKeyId, OrganizationId, SenderId};
use herald_domain::organization::{AccountStatus, NetworkRef, Organization, Plan, PlanName, SenderNumber};
use herald_domain::ports::{
    Credential, MockAccountStore, MockClock, MockIdGenerator, MockMessageStore, MockTemplateStore,
    MockWindowStore, NoRateLimit, Opened, SealContext, SealError, SecretSealer, SecretSource,
};
use herald_domain::ports::{MockDestinationChecker, MockWebhookStore};
use herald_domain::usecases::{
    Authenticate, GetMessage, ListMessages, ManageWebhooks, MessageEvents, SendMessage, SendPorts,
    SendSettings, WindowStatus,
};
use herald_domain::values::{DisplayName, PhoneNumber};
use herald_http::{ApiContext, Readiness};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use ulid::Ulid;

pub const KEY: &str = "hk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
pub const DISABLED_KEY: &str = "hk_live_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
pub const SUSPENDED_KEY: &str = "hk_live_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC";
pub const UNKNOWN_KEY: &str = "hk_live_DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD";
pub const SENDER: &str = "+15550001111";

pub fn now() -> Timestamp {
    chrono::DateTime::from_timestamp_millis(1_795_256_130_123).unwrap()
}

pub fn org_id() -> OrganizationId {
    OrganizationId::from_ulid(Ulid::from_parts(1, 1))
}

pub fn sender() -> SenderNumber {
    SenderNumber {
        id: SenderId::from_ulid(Ulid::from_parts(1, 2)),
        organization_id: org_id(),
        number: PhoneNumber::parse(SENDER).unwrap(),
        phone_number_id: NetworkRef::parse("1000000001").unwrap(),
        waba_id: NetworkRef::parse("2000000001").unwrap(),
        access_token_env: None,
        sealed_access_token: None,
        is_default: true,
        throughput_per_second: 80,
        created_at: now(),
    }
}

fn credential(key: &str, key_status: ApiKeyStatus, org_status: AccountStatus) -> Credential {
    let key = ApiKey::parse(key).unwrap();
    let plan = Plan::defaults()
        .into_iter()
        .find(|p| p.name.as_str() == "business")
        .unwrap();
    Credential {
        key: ApiKeyRecord {
            id: ApiKeyId::from_ulid(Ulid::from_parts(1, 3)),
            organization_id: org_id(),
            name: None,
            prefix: key.public_prefix(),
            digest: key.digest(),
            status: key_status,
            created_at: now(),
            last_used_at: Some(now()),
            disabled_at: None,
        },
        organization: Organization {
            id: org_id(),
            name: DisplayName::parse("Acme").unwrap(),
            status: org_status,
            plan: PlanName::parse("business").unwrap(),
            owner_email: None,
            created_at: now(),
        },
        plan,
    }
}

/// The mocked ports; tests add the expectations their requests need.
pub struct World {
    pub accounts: MockAccountStore,
    pub messages: MockMessageStore,
    pub templates: MockTemplateStore,
    pub windows: MockWindowStore,
    pub webhooks: MockWebhookStore,
    /// Accepts every URL unless a test sets its own expectation first.
    pub destinations: MockDestinationChecker,
    pub ready: Result<(), String>,
    /// None trusted unless a test says so.
    pub trusted_proxies: herald_domain::client_address::TrustedProxies,
    /// No limit on failed authentications unless a test sets one.
    pub auth_failures: Arc<dyn herald_http::AuthFailureLimit>,
}

impl World {
    /// Three known keys (active, disabled, of a suspended organization) and one default sender.
    pub fn new() -> Self {
        let mut accounts = MockAccountStore::new();
        let known = [
            credential(KEY, ApiKeyStatus::Active, AccountStatus::Active),
            credential(DISABLED_KEY, ApiKeyStatus::Disabled, AccountStatus::Active),
            credential(SUSPENDED_KEY, ApiKeyStatus::Active, AccountStatus::Suspended),
        ];
        accounts
            .expect_find_credential()
            .returning(move |digest| Ok(known.iter().find(|c| c.key.digest == *digest).cloned()));
        accounts.expect_touch_api_key().returning(|_, _| Ok(()));
        accounts.expect_senders().returning(|_| Ok(vec![sender()].into()));
        Self {
            accounts,
            messages: MockMessageStore::new(),
            templates: MockTemplateStore::new(),
            windows: MockWindowStore::new(),
            webhooks: MockWebhookStore::new(),
            destinations: MockDestinationChecker::new(),
            ready: Ok(()),
            trusted_proxies: herald_domain::client_address::TrustedProxies::none(),
            auth_failures: Arc::new(herald_http::NoAuthFailureLimit),
        }
    }

    pub fn context(self) -> web::Data<ApiContext> {
        let accounts = Arc::new(self.accounts);
        let messages = Arc::new(self.messages);
        let windows = Arc::new(self.windows);
        let mut clock = MockClock::new();
        clock.expect_now().returning(now);
        let clock = Arc::new(clock);
        let counter = AtomicU64::new(1);
        let mut ids = MockIdGenerator::new();
        ids.expect_next_ulid().returning(move || {
            Ulid::from_parts(
                1_795_256_130_123,
                u128::from(counter.fetch_add(1, Ordering::SeqCst)),
            )
        });
        let templates: Arc<dyn herald_domain::ports::TemplateStore> = Arc::new(self.templates);
        let ids: Arc<dyn herald_domain::ports::IdGenerator> = Arc::new(ids);
        // The template endpoints are covered end to end; here they only need to exist.
        let network = Arc::new(herald_domain::ports::MockMessagingNetwork::new());
        let webhooks = ManageWebhooks::new(
            Arc::new(self.webhooks),
            Arc::new(self.destinations),
            Arc::new(ReversingSealer),
            Arc::new(ConstantSecrets),
            clock.clone(),
            ids.clone(),
        );
        // The file operations are covered end to end; here they only need to exist.
        let catalog = Arc::new(herald_domain::ports::MockMediaCatalog::new());
        let files = Arc::new(herald_domain::ports::MockMediaStore::new());
        let media = herald_domain::usecases::Media::new(herald_domain::usecases::MediaPorts {
            catalog: catalog.clone(),
            files: files.clone(),
            accounts: accounts.clone(),
            network: Arc::new(herald_domain::ports::MockMessagingNetwork::new()),
            clock: clock.clone(),
            ids: ids.clone(),
        });
        let sync_templates = Arc::new(herald_domain::usecases::SyncTemplates::new(
            accounts.clone(),
            templates.clone(),
            network,
            clock.clone(),
            ids.clone(),
        ));
        // Rates and usage are covered end to end; here the card is empty and no message is priced.
        let mut pricing = herald_domain::ports::MockPricingStore::new();
        pricing
            .expect_rate_card()
            .returning(|_| Ok(herald_domain::pricing::RateCard::default()));
        pricing.expect_usage_counts().returning(|_, _, _| Ok(Vec::new()));
        let pricing: Arc<dyn herald_domain::ports::PricingStore> = Arc::new(pricing);
        web::Data::new(ApiContext {
            rate_cards: herald_domain::usecases::RateCards::new(
                accounts.clone(),
                pricing.clone(),
                clock.clone(),
            ),
            usage: herald_domain::usecases::Usage::new(pricing, clock.clone()),
            webhooks,
            media,
            files: files.clone(),
            templates: herald_domain::usecases::ListTemplates::new(templates.clone(), accounts.clone()),
            senders: herald_domain::usecases::Senders::new(accounts.clone()),
            manage_templates: herald_domain::usecases::ManageTemplates::new(
                herald_domain::usecases::TemplateReviewPorts {
                    accounts: accounts.clone(),
                    templates: templates.clone(),
                    catalog: catalog.clone(),
                    files: files.clone(),
                    review: Arc::new(herald_domain::ports::MockTemplateReview::new()),
                },
                sync_templates.clone(),
            ),
            sync_templates,
            authenticate: Authenticate::new(accounts.clone(), clock.clone()),
            send: SendMessage::new(
                SendPorts {
                    accounts: accounts.clone(),
                    messages: messages.clone(),
                    templates,
                    windows: windows.clone(),
                    limiter: Arc::new(NoRateLimit),
                    catalog,
                    files,
                    clock: clock.clone(),
                    ids: ids.clone(),
                },
                SendSettings::default(),
            ),
            get_message: GetMessage::new(messages.clone()),
            list_messages: ListMessages::new(messages.clone()),
            message_events: MessageEvents::new(messages),
            // Cancelling is covered end to end, on both stores; here it only needs to exist.
            cancel_message: herald_domain::usecases::CancelMessage::new(
                Arc::new(herald_domain::ports::MockScheduleStore::new()),
                clock.clone(),
                ids.clone(),
            ),
            // Broadcasts are covered end to end, on both stores; here they only need to exist.
            broadcasts: Arc::new(herald_domain::usecases::Broadcasts::new(
                herald_domain::usecases::BroadcastPorts {
                    accounts: accounts.clone(),
                    broadcasts: Arc::new(herald_domain::ports::MockBroadcastStore::new()),
                    messages: Arc::new(MockMessageStore::new()),
                    schedule: Arc::new(herald_domain::ports::MockScheduleStore::new()),
                    templates: Arc::new(MockTemplateStore::new()),
                    catalog: Arc::new(herald_domain::ports::MockMediaCatalog::new()),
                    limiter: Arc::new(NoRateLimit),
                    clock: clock.clone(),
                    ids: ids.clone(),
                },
                SendSettings::default(),
                herald_domain::usecases::PaceSettings::default(),
            )),
            // The inbound operations are covered end to end; here they only need to exist.
            inbound: herald_domain::usecases::InboundMessages::new(
                Arc::new(herald_domain::ports::MockInboundStore::new()),
                accounts.clone(),
                Arc::new(herald_domain::ports::MockMessagingNetwork::new()),
                clock.clone(),
            ),
            // Erasing is covered end to end, on both stores; here it only needs to exist.
            erase: herald_domain::usecases::ErasePerson::new(herald_domain::usecases::ErasePorts {
                erasure: Arc::new(herald_domain::ports::MockErasureStore::new()),
                schedule: Arc::new(herald_domain::ports::MockScheduleStore::new()),
                catalog: Arc::new(herald_domain::ports::MockMediaCatalog::new()),
                files: Arc::new(herald_domain::ports::MockMediaStore::new()),
                sealer: Arc::new(ReversingSealer),
                clock: clock.clone(),
                ids: ids.clone(),
            }),
            // The contact operations are covered end to end; here they only need to exist.
            contacts: herald_domain::usecases::Contacts::new(herald_domain::usecases::ContactPorts {
                accounts: accounts.clone(),
                contacts: Arc::new(herald_domain::ports::MockContactStore::new()),
                windows: windows.clone(),
                network: Arc::new(herald_domain::ports::MockMessagingNetwork::new()),
                clock: clock.clone(),
                ids: Arc::new(herald_domain::ports::MockIdGenerator::new()),
            }),
            window_status: WindowStatus::new(accounts, windows, clock),
            send_limiter: Arc::new(NoRateLimit),
            dry_run_limiter: Arc::new(NoRateLimit),
            broadcast_row_limiter: Arc::new(NoRateLimit),
            read_limiter: Arc::new(herald_http::NoKeyLimit),
            write_limiter: Arc::new(herald_http::NoKeyLimit),
            readiness: Arc::new(FixedReadiness(self.ready)),
            trusted_proxies: self.trusted_proxies,
            auth_failures: self.auth_failures,
            metrics_organization_labels: false,
        })
    }
}

/// A stand-in sealer: reversible, and visibly not the plaintext.
pub struct ReversingSealer;

impl SecretSealer for ReversingSealer {
    fn seal(&self, _context: &SealContext, plaintext: &str) -> Vec<u8> {
        plaintext.bytes().rev().collect()
    }

    fn open(&self, _context: &SealContext, sealed: &[u8]) -> Result<Opened, SealError> {
        String::from_utf8(sealed.iter().rev().copied().collect())
            .map(|text| Opened { text, legacy: false })
            .map_err(|_| SealError::Malformed)
    }

    fn person_digest(&self, _organization: &herald_domain::ids::OrganizationId, identity: &str) -> [u8; 32] {
        let mut digest = [0_u8; 32];
        for (slot, byte) in digest.iter_mut().zip(identity.bytes().rev()) {
            *slot = byte;
        }
        digest
    }
}

/// Every "random" byte is 7, so the generated secret is known.
pub struct ConstantSecrets;

impl SecretSource for ConstantSecrets {
    fn fill(&self, buf: &mut [u8]) {
        buf.fill(7);
    }
}

/// The secret [`ConstantSecrets`] makes every endpoint get.
pub const GENERATED_SECRET: &str = "whsec_BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=";

struct FixedReadiness(Result<(), String>);

#[async_trait::async_trait]
impl Readiness for FixedReadiness {
    async fn check(&self) -> Result<(), String> {
        self.0.clone()
    }
}

/// What came back.
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub text: String,
    pub json: Value,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Asserts a problem document with this status and code, whose request id matches the header.
    pub fn assert_problem(&self, status: u16, code: &str) {
        assert_eq!(self.status, status, "{}", self.text);
        assert_eq!(
            self.header("content-type"),
            Some("application/problem+json"),
            "{}",
            self.text
        );
        assert_eq!(self.json["code"], code, "{}", self.text);
        assert_eq!(self.json["status"], status);
        assert_eq!(self.json["type"], format!("urn:herald:error:{code}"));
        let request_id = self
            .header("x-request-id")
            .expect("X-Request-Id on every response");
        assert_eq!(self.json["request_id"], request_id);
    }

    pub fn error_fields(&self) -> Vec<String> {
        self.json["errors"]
            .as_array()
            .map(|errors| {
                errors
                    .iter()
                    .map(|e| e["field"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }
}

pub async fn call<S, R, B>(app: &S, req: R) -> Reply
where
    S: Service<R, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let response = test::call_service(app, req).await;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = test::read_body(response).await;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Reply {
        status,
        headers,
        text,
        json,
    }
}

pub fn authed(req: TestRequest) -> TestRequest {
    req.insert_header(("Authorization", format!("Bearer {KEY}")))
}

pub fn post_json(path: &str, body: &Value) -> TestRequest {
    authed(TestRequest::post().uri(path)).set_json(body)
}
