//! Use-case tests against the mockall mocks of every port.
//!
//! Each test states both the outcome and which port calls happen: a refused request must leave no trace,
//! so "this port is never called" (`.times(0)`) is as much a part of the contract as the answer itself.

mod admin;
mod authenticate;
mod broadcast_checks;
mod broadcasts;
mod callbacks;
mod contacts;
mod dispatch;
mod erase;
mod inbound;
mod media;
mod notices;
mod owner;
mod queries;
mod reseal;
mod schedule;
mod send;
mod template_review;
mod templates;
mod webhooks;

use crate::Timestamp;
use crate::api_key::{ApiKey, ApiKeyRecord, ApiKeyStatus};
use crate::attachment::{MediaAttachment, MediaKind, MediaSource};
use crate::ids::{ApiKeyId, MessageId, OrganizationId, SenderId, TemplateId};
use crate::message::{Message, MessageContent};
use crate::organization::{AccountStatus, NetworkRef, Organization, Plan, PlanName, SenderNumber};
use crate::ports::{MockClock, MockIdGenerator};
use crate::template::{
    BodySpec, HeaderSpec, LanguageCode, Template, TemplateName, TemplateRef, TemplateStatus,
    TemplateStructure, TemplateText, TemplateVariables,
};
use crate::values::{DisplayName, MediaLink, MessageText, PhoneNumber};
use chrono::TimeZone;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use ulid::Ulid;

/// Runs a use case to completion; the domain has no runtime of its own.
fn run<F: Future>(future: F) -> F::Output {
    futures::executor::block_on(future)
}

/// The fixed "now" of every test: 2026-11-21T10:15:30Z, nine days and a bit before the month ends.
fn now() -> Timestamp {
    chrono::Utc.with_ymd_and_hms(2026, 11, 21, 10, 15, 30).unwrap()
}

fn seconds(n: i64) -> chrono::TimeDelta {
    chrono::TimeDelta::seconds(n)
}

/// The millisecond part of every generated id, so test ids never collide with fixture ids.
const GENERATED_MS: u64 = 1_800_000_000_000;

fn ulid(n: u128) -> Ulid {
    Ulid::from_parts(1_700_000_000_000, n)
}

fn generated(n: u64) -> Ulid {
    Ulid::from_parts(GENERATED_MS, u128::from(n))
}

fn org_id() -> OrganizationId {
    OrganizationId::from_ulid(ulid(1))
}

fn other_org_id() -> OrganizationId {
    OrganizationId::from_ulid(ulid(2))
}

fn phone(value: &str) -> PhoneNumber {
    PhoneNumber::parse(value).unwrap()
}

fn network_ref(value: &str) -> NetworkRef {
    NetworkRef::parse(value).unwrap()
}

fn plan_name(value: &str) -> PlanName {
    PlanName::parse(value).unwrap()
}

fn display_name(value: &str) -> DisplayName {
    DisplayName::parse(value).unwrap()
}

fn organization(status: AccountStatus) -> Organization {
    Organization {
        id: org_id(),
        name: display_name("Acme"),
        status,
        plan: plan_name("starter"),
        owner_email: Some("ops@acme.test".into()),
        created_at: now() - chrono::TimeDelta::days(30),
    }
}

/// A plan allowing everything, with a quota of 1,000 messages.
fn plan() -> Plan {
    Plan {
        name: plan_name("starter"),
        rate_per_second: 20,
        burst: 40,
        monthly_quota: Some(1_000),
        text_allowed: true,
        template_allowed: true,
        media_allowed: true,
        max_file_bytes: 100_000_000,
        media_storage_bytes: Some(STORAGE),
        webhook_endpoints: 3,
    }
}

/// The test plan's media storage, bytes.
const STORAGE: u64 = 1_000_000_000;

const DEFAULT_NUMBER: &str = "+15550001111";
const SECOND_NUMBER: &str = "+15550002222";
const RECIPIENT: &str = "+15551234567";

/// A sender of the test organization; `n` picks its id, number suffix and WABA.
fn sender(n: u128, number: &str, is_default: bool) -> SenderNumber {
    SenderNumber {
        id: SenderId::from_ulid(ulid(100 + n)),
        organization_id: org_id(),
        number: phone(number),
        phone_number_id: network_ref(&format!("10000000{n}")),
        waba_id: network_ref(&format!("20000000{n}")),
        access_token_env: None,
        sealed_access_token: None,
        is_default,
        throughput_per_second: 80,
        created_at: now() - chrono::TimeDelta::days(10),
    }
}

/// The organization's two senders: a default one and a second one.
fn two_senders() -> Vec<SenderNumber> {
    vec![sender(1, DEFAULT_NUMBER, true), sender(2, SECOND_NUMBER, false)]
}

fn template_ref() -> TemplateRef {
    TemplateRef {
        name: TemplateName::parse("order_shipped").unwrap(),
        language: LanguageCode::parse("en_US").unwrap(),
    }
}

fn template_text(value: &str) -> TemplateText {
    TemplateText::parse(value).unwrap()
}

/// An `order_shipped` copy of `waba`, with no header and a body of `body_params` positional variables.
fn template(waba: &NetworkRef, status: &str, header: HeaderSpec, body_params: usize) -> Template {
    let reference = template_ref();
    Template {
        id: TemplateId::from_ulid(ulid(300)),
        organization_id: org_id(),
        waba_id: waba.clone(),
        name: reference.name,
        language: reference.language,
        status: TemplateStatus::parse(status).unwrap(),
        category: "UTILITY".into(),
        structure: TemplateStructure {
            header,
            body: BodySpec::Positional(body_params),
            buttons: Vec::new(),
            ..TemplateStructure::default()
        },
        network_id: None,
        synced_at: now() - chrono::TimeDelta::hours(1),
        health: Default::default(),
    }
}

fn text_content(body: &str) -> MessageContent {
    MessageContent::Text {
        body: MessageText::parse(body).unwrap(),
        preview_url: false,
    }
}

fn media(kind: MediaKind) -> MediaAttachment {
    MediaAttachment {
        kind,
        source: MediaSource::Link(MediaLink::parse("https://files.acme.test/a").unwrap()),
        filename: None,
    }
}

fn template_content(variables: TemplateVariables) -> MessageContent {
    MessageContent::Template {
        template: template_ref(),
        variables,
    }
}

/// A message of the test organization as the store would hold it.
fn stored_message(n: u128) -> Message {
    Message::accepted(
        MessageId::from_ulid(ulid(500 + n)),
        org_id(),
        (SenderId::from_ulid(ulid(101)), phone(DEFAULT_NUMBER)),
        phone(RECIPIENT),
        text_content("hello"),
        None,
        now() - seconds(i64::try_from(n).unwrap()),
    )
}

/// A clock stuck at `at`.
fn clock_at(at: Timestamp) -> MockClock {
    let mut clock = MockClock::new();
    clock.expect_now().return_const(at);
    clock
}

/// Ids `generated(1)`, `generated(2)`, … in call order, as many as asked for.
fn sequential_ids() -> MockIdGenerator {
    let counter = AtomicU64::new(0);
    let mut ids = MockIdGenerator::new();
    ids.expect_next_ulid()
        .returning(move || generated(counter.fetch_add(1, Ordering::Relaxed) + 1));
    ids
}

/// A well-formed API key; `c` fills its body.
fn api_key(c: char) -> ApiKey {
    ApiKey::parse(&format!("hk_live_{}", c.to_string().repeat(40))).unwrap()
}

/// The stored record of `key`.
fn key_record(key: &ApiKey, status: ApiKeyStatus, last_used_at: Option<Timestamp>) -> ApiKeyRecord {
    ApiKeyRecord {
        id: ApiKeyId::from_ulid(ulid(200)),
        organization_id: org_id(),
        name: Some(display_name("ci")),
        prefix: key.public_prefix(),
        digest: key.digest(),
        status,
        created_at: now() - chrono::TimeDelta::days(5),
        last_used_at,
        disabled_at: None,
    }
}

#[test]
fn fixtures_are_consistent() {
    // The fixtures below are relied on by every test: a broken one would make the others meaningless.
    let senders = two_senders();
    assert_ne!(senders[0].id, senders[1].id);
    assert_ne!(senders[0].waba_id, senders[1].waba_id);
    assert_eq!(api_key('a').public_prefix(), "hk_live_aaaa");
    assert_ne!(org_id(), other_org_id());
    assert_eq!(crate::time::BillingPeriod::containing(now()).as_str(), "2026-11");
    let ids = sequential_ids();
    use crate::ports::IdGenerator;
    assert_eq!(ids.next_ulid(), generated(1));
    assert_eq!(ids.next_ulid(), generated(2));
}

/// The context of a request's trace, as a tracing adapter would store it.
fn trace_context() -> crate::trace::TraceContext {
    crate::trace::TraceContext::parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 req_1")
        .unwrap()
}

/// Trace links that expect exactly one span to follow [`trace_context`].
fn follows_the_trace_once() -> crate::trace::MockTraceLinks {
    let mut traces = crate::trace::MockTraceLinks::new();
    traces
        .expect_follow()
        .withf(|_, followed| *followed == trace_context())
        .times(1)
        .return_const(());
    traces
}
