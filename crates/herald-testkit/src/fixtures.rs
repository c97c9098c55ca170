//! Test fixtures: controllable stand-ins for the clock, id and secret ports, and builders of valid
//! domain values.
//!
//! Every builder returns a value that passes its type's rules and is unique where a store needs it to be
//! (ids, API key digests, the network's phone number ids), so tests can create as many as they like in
//! one store. Ids come from one process-wide generator seeded randomly, so two test processes sharing a
//! database never collide, and ids made one after another still sort in the order they were made.
//!
//! Every fixture time is at microsecond precision, because that is what the databases keep: a value read
//! back then equals the value written.

// Fixture literals are constants checked by this module's own tests; a bad one is a bug in the test
// support itself and should fail the calling test at once.
#![allow(
    clippy::expect_used,
    reason = "test support: invalid fixture literals must fail the test loudly"
)]

use chrono::{DateTime, TimeDelta, Timelike};
use herald_domain::Timestamp;
use herald_domain::api_key::{ApiKey, ApiKeyRecord, ApiKeyStatus};
use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
use herald_domain::ids::{
    ApiKeyId, EventId, JobId, MediaId, MessageId, OrganizationId, SenderId, TemplateId,
};
use herald_domain::message::{EventSource, Message, MessageContent, MessageStatus, StatusEvent};
use herald_domain::organization::{AccountStatus, NetworkRef, Organization, PlanName, SenderNumber};
use herald_domain::ports::{
    AcceptRequest, Clock, IdGenerator, IdempotencyHold, OutboxJob, QuotaCharge, SecretSource,
};
use herald_domain::template::{
    BodySpec, BodyValues, ButtonKind, ButtonSpec, ButtonValue, HeaderSpec, HeaderValue, LanguageCode,
    ParamName, Template, TemplateName, TemplateRef, TemplateStatus, TemplateStructure, TemplateText,
    TemplateVariables,
};
use herald_domain::time::BillingPeriod;
use herald_domain::values::{
    Caption, ClientReference, DisplayName, FileName, IdempotencyKey, MediaLink, MessageText, PhoneNumber,
};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};
use ulid::Ulid;

/// The simulator's business account (docs/api.md §13).
pub const SIMULATOR_WABA: &str = "2000000001";
/// The simulator's first sender number.
pub const SIMULATOR_SENDER_1: &str = "+15550001111";
/// The simulator's second sender number.
pub const SIMULATOR_SENDER_2: &str = "+15550002222";

/// 2026-03-10T12:00:00.123456Z: the instant fixtures start from. Deliberately not on a whole second, so
/// a store that drops the fraction is caught.
pub fn t0() -> Timestamp {
    DateTime::from_timestamp_micros(1_773_144_000_123_456).expect("t0 is a valid instant")
}

/// `t0() + seconds`.
pub fn at(seconds: i64) -> Timestamp {
    t0() + TimeDelta::seconds(seconds)
}

/// `t` without its sub-microsecond part, as a database would keep it.
pub fn truncate_to_micros(t: Timestamp) -> Timestamp {
    let nanos = t.nanosecond();
    t.with_nanosecond(nanos - nanos % 1_000).unwrap_or(t)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // The guarded values stay consistent even if a holder panicked (every update is a single store).
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A clock that says what the test tells it to.
#[derive(Debug)]
pub struct FixedClock(Mutex<Timestamp>);

impl FixedClock {
    /// A clock standing at `now`.
    pub fn new(now: Timestamp) -> Self {
        Self(Mutex::new(now))
    }

    /// Sets the time.
    pub fn set(&self, now: Timestamp) {
        *lock(&self.0) = now;
    }

    /// Moves the time by `by` (backwards when negative).
    pub fn advance(&self, by: TimeDelta) {
        let mut now = lock(&self.0);
        *now += by;
    }
}

impl Default for FixedClock {
    /// A clock standing at [`t0`].
    fn default() -> Self {
        Self::new(t0())
    }
}

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        *lock(&self.0)
    }
}

/// Strictly increasing ULIDs: each call answers the previous one plus one.
#[derive(Debug)]
pub struct SeqIds(Mutex<Ulid>);

impl SeqIds {
    /// Starts at the first ULID of [`t0`]'s millisecond: the same sequence in every run.
    pub fn new() -> Self {
        let millis = u64::try_from(t0().timestamp_millis()).unwrap_or_default();
        Self::starting_at(Ulid::from_parts(millis, 0))
    }

    /// The first call answers `first`.
    pub fn starting_at(first: Ulid) -> Self {
        Self(Mutex::new(first))
    }

    /// Starts at a fresh random ULID of the current time, so sequences of different processes (sharing one
    /// database) do not collide.
    pub fn unique() -> Self {
        Self::starting_at(Ulid::new())
    }
}

impl Default for SeqIds {
    fn default() -> Self {
        Self::new()
    }
}

impl IdGenerator for SeqIds {
    fn next_ulid(&self) -> Ulid {
        let mut next = lock(&self.0);
        let current = *next;
        // The random part overflowing is unreachable in practice; moving to the next millisecond keeps
        // the sequence increasing anyway.
        *next = current
            .increment()
            .unwrap_or_else(|| Ulid::from_parts(current.timestamp_ms().saturating_add(1), 0));
        current
    }
}

/// Deterministic "random" bytes (xorshift64*): the same seed gives the same bytes, and successive fills
/// differ, so successive generated keys differ.
#[derive(Debug)]
pub struct FakeSecrets(Mutex<u64>);

impl FakeSecrets {
    /// The byte sequence of `seed`.
    pub fn new(seed: u64) -> Self {
        // xorshift is stuck at zero.
        Self(Mutex::new(seed.max(1)))
    }
}

impl Default for FakeSecrets {
    fn default() -> Self {
        Self::new(0x5EED)
    }
}

impl SecretSource for FakeSecrets {
    fn fill(&self, buf: &mut [u8]) {
        let mut state = lock(&self.0);
        for byte in buf {
            let mut x = *state;
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            *state = x;
            *byte = (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8;
        }
    }
}

static IDS: LazyLock<SeqIds> = LazyLock::new(SeqIds::unique);

/// A fresh ULID from the process-wide fixture sequence (unique, increasing).
pub fn next_ulid() -> Ulid {
    IDS.next_ulid()
}

/// Parses a test literal.
pub fn phone(number: &str) -> PhoneNumber {
    PhoneNumber::parse(number).expect("fixture phone numbers are E.164")
}

/// Parses a test literal.
pub fn plan_name(name: &str) -> PlanName {
    PlanName::parse(name).expect("fixture plan names are valid")
}

/// Parses a test literal.
pub fn network_ref(id: &str) -> NetworkRef {
    NetworkRef::parse(id).expect("fixture network ids are digits")
}

/// Parses a test literal.
pub fn idempotency_key(key: &str) -> IdempotencyKey {
    IdempotencyKey::parse(key).expect("fixture idempotency keys are visible ASCII")
}

/// Parses a test literal.
pub fn client_reference(reference: &str) -> ClientReference {
    ClientReference::parse(reference).expect("fixture client references are valid")
}

/// Parses a test literal.
pub fn template_text(value: &str) -> TemplateText {
    TemplateText::parse(value).expect("fixture template values are valid")
}

/// Parses a test literal.
pub fn template_name(name: &str) -> TemplateName {
    TemplateName::parse(name).expect("fixture template names are valid")
}

/// Parses a test literal.
pub fn language(code: &str) -> LanguageCode {
    LanguageCode::parse(code).expect("fixture language codes are valid")
}

/// Parses a test literal.
pub fn param_name(name: &str) -> ParamName {
    ParamName::parse(name).expect("fixture parameter names are valid")
}

/// A digits-only id unique to `ulid`, for the network's ids (`phone_number_id`, template ids).
fn digits_of(ulid: Ulid) -> String {
    // 30 digits keep NetworkRef's 32-digit bound; a leading 9 keeps the length fixed.
    format!("9{:029}", ulid.0 % 10_u128.pow(29))
}

/// An active organization on `plan`, created at [`t0`].
pub fn organization(plan: &str) -> Organization {
    Organization {
        id: OrganizationId::from_ulid(next_ulid()),
        name: DisplayName::parse("Acme Test Ltd").expect("valid name"),
        status: AccountStatus::Active,
        plan: plan_name(plan),
        owner_email: Some("owner@acme.test".to_owned()),
        created_at: t0(),
    }
}

/// A sender of `organization` in the simulator's business account, with a `phone_number_id` unique to it.
pub fn sender(organization: OrganizationId, number: &str, is_default: bool) -> SenderNumber {
    let id = next_ulid();
    SenderNumber {
        id: SenderId::from_ulid(id),
        organization_id: organization,
        number: phone(number),
        phone_number_id: network_ref(&digits_of(id)),
        waba_id: network_ref(SIMULATOR_WABA),
        access_token_env: None,
        sealed_access_token: None,
        is_default,
        throughput_per_second: 80,
        created_at: t0(),
    }
}

/// An active API key of `organization` and its secret. The secret is unique (derived from the key's id).
pub fn api_key(organization: OrganizationId) -> (ApiKeyRecord, ApiKey) {
    let id = next_ulid();
    // The id's text reversed puts its random part first, so public prefixes differ too.
    let body: String = id
        .to_string()
        .chars()
        .rev()
        .chain("Zz".repeat(7).chars())
        .collect();
    let key = ApiKey::parse(&format!("hk_live_{body}")).expect("40 alphanumeric characters");
    let record = ApiKeyRecord {
        id: ApiKeyId::from_ulid(id),
        organization_id: organization,
        name: Some(DisplayName::parse("ci key").expect("valid name")),
        prefix: key.public_prefix(),
        digest: key.digest(),
        status: ApiKeyStatus::Active,
        created_at: t0(),
        last_used_at: None,
        disabled_at: None,
    };
    (record, key)
}

/// A freshly accepted message with `content`, from `sender`, made at `now`.
pub fn message(
    organization: OrganizationId,
    sender: &SenderNumber,
    to: &str,
    content: MessageContent,
    now: Timestamp,
) -> Message {
    Message::accepted(
        MessageId::from_ulid(next_ulid()),
        organization,
        (sender.id, sender.number.clone()),
        phone(to),
        content,
        None,
        now,
    )
}

/// A freshly accepted text message.
pub fn text_message(
    organization: OrganizationId,
    sender: &SenderNumber,
    to: &str,
    now: Timestamp,
) -> Message {
    message(
        organization,
        sender,
        to,
        text_content("Your order is on its way 📦"),
        now,
    )
}

/// Text content.
pub fn text_content(body: &str) -> MessageContent {
    MessageContent::Text {
        body: MessageText::parse(body).expect("fixture text is valid"),
        preview_url: false,
    }
}

/// A document sent by link, with a file name and a caption.
pub fn document_link_content() -> MessageContent {
    MessageContent::Media {
        media: MediaAttachment {
            kind: MediaKind::Document,
            source: MediaSource::Link(
                MediaLink::parse("https://files.acme.test/invoice-42.pdf").expect("valid"),
            ),
            filename: Some(FileName::parse("invoice-42.pdf").expect("valid")),
        },
        caption: Some(Caption::parse("Your invoice").expect("valid")),
    }
}

/// An uploaded file of `kind`, without caption.
pub fn stored_media_content(kind: MediaKind) -> MessageContent {
    MessageContent::Media {
        media: MediaAttachment {
            kind,
            source: MediaSource::Stored(MediaId::from_ulid(next_ulid())),
            filename: None,
        },
        caption: None,
    }
}

/// `order_shipped` (en_US) with every part filled: text header, three body values, the URL button.
pub fn order_shipped_content() -> MessageContent {
    MessageContent::Template {
        template: TemplateRef {
            name: template_name("order_shipped"),
            language: language("en_US"),
        },
        variables: TemplateVariables {
            header: Some(HeaderValue::Text(vec![template_text("Ana")])),
            body: BodyValues::Positional(vec![
                template_text("Ana"),
                template_text("#1234"),
                template_text("Tuesday"),
            ]),
            buttons: vec![ButtonValue {
                index: 0,
                kind: ButtonKind::Url,
                values: vec![template_text("1234")],
                flow_action_data: None,
            }],
            ..TemplateVariables::default()
        },
    }
}

/// `appointment_named` (en_US) with its named body values.
pub fn appointment_named_content() -> MessageContent {
    MessageContent::Template {
        template: TemplateRef {
            name: template_name("appointment_named"),
            language: language("en_US"),
        },
        variables: TemplateVariables::named(vec![
            (param_name("customer"), template_text("Ana")),
            (param_name("date"), template_text("3 March")),
        ]),
    }
}

/// `invoice_ready` (en_US) with its document header sent by link.
pub fn invoice_ready_content() -> MessageContent {
    MessageContent::Template {
        template: TemplateRef {
            name: template_name("invoice_ready"),
            language: language("en_US"),
        },
        variables: TemplateVariables {
            header: Some(HeaderValue::Media(MediaAttachment {
                kind: MediaKind::Document,
                source: MediaSource::Link(
                    MediaLink::parse("https://files.acme.test/inv.pdf").expect("valid"),
                ),
                filename: Some(FileName::parse("inv.pdf").expect("valid")),
            })),
            body: BodyValues::Positional(vec![template_text("INV-42")]),
            buttons: Vec::new(),
            ..TemplateVariables::default()
        },
    }
}

/// Everything accepting `message` writes: its `accepted` event, its outbox job (due at once, deadline 24 h
/// later) and its charge against a monthly quota of `limit` (`None`: unlimited), plus the
/// idempotency claim to complete.
pub fn accept_request(
    message: &Message,
    limit: Option<u64>,
    idempotency: Option<IdempotencyHold>,
) -> AcceptRequest {
    let now = message.created_at;
    AcceptRequest {
        recipient_check: None,
        customer_event: None,
        event: StatusEvent {
            id: EventId::from_ulid(next_ulid()),
            organization_id: message.organization_id,
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
            id: JobId::from_ulid(next_ulid()),
            organization_id: message.organization_id,
            message_id: message.id,
            sender_id: message.sender_id,
            available_at: now,
            deadline: now + TimeDelta::hours(24),
            trace: None,
        },
        quota: QuotaCharge {
            period: BillingPeriod::containing(now),
            limit,
        },
        idempotency,
        message: message.clone(),
    }
}

fn template(
    organization: OrganizationId,
    waba: &NetworkRef,
    (name, lang): (&str, &str),
    status: &str,
    category: &str,
    structure: TemplateStructure,
) -> Template {
    let id = next_ulid();
    Template {
        id: TemplateId::from_ulid(id),
        organization_id: organization,
        waba_id: waba.clone(),
        name: template_name(name),
        language: language(lang),
        status: TemplateStatus::parse(status).expect("fixture statuses are valid"),
        category: category.to_owned(),
        structure,
        network_id: Some(digits_of(id)),
        synced_at: t0(),
        health: Default::default(),
    }
}

fn no_buttons(header: HeaderSpec, body: BodySpec) -> TemplateStructure {
    TemplateStructure {
        header,
        body,
        buttons: Vec::new(),
        ..TemplateStructure::default()
    }
}

/// `hello_world` (en_US): no header, no parameters, no buttons.
pub fn template_hello_world(organization: OrganizationId, waba: &NetworkRef) -> Template {
    template(
        organization,
        waba,
        ("hello_world", "en_US"),
        "APPROVED",
        "UTILITY",
        no_buttons(HeaderSpec::None, BodySpec::Positional(0)),
    )
}

/// `order_shipped` (en_US): text header with 1 parameter, 3 positional body parameters, URL button 0 with
/// 1 parameter.
pub fn template_order_shipped(organization: OrganizationId, waba: &NetworkRef) -> Template {
    template(
        organization,
        waba,
        ("order_shipped", "en_US"),
        "APPROVED",
        "UTILITY",
        TemplateStructure {
            header: HeaderSpec::Text,
            body: BodySpec::Positional(3),
            buttons: vec![ButtonSpec {
                index: 0,
                kind: ButtonKind::Url,
                parameters: 1,
            }],
            ..TemplateStructure::default()
        },
    )
}

/// `invoice_ready` (en_US): document header, 1 positional body parameter.
pub fn template_invoice_ready(organization: OrganizationId, waba: &NetworkRef) -> Template {
    template(
        organization,
        waba,
        ("invoice_ready", "en_US"),
        "APPROVED",
        "UTILITY",
        no_buttons(HeaderSpec::Media(MediaKind::Document), BodySpec::Positional(1)),
    )
}

/// `promo_image` (en_US): image header, 1 positional body parameter.
pub fn template_promo_image(organization: OrganizationId, waba: &NetworkRef) -> Template {
    template(
        organization,
        waba,
        ("promo_image", "en_US"),
        "APPROVED",
        "MARKETING",
        no_buttons(HeaderSpec::Media(MediaKind::Image), BodySpec::Positional(1)),
    )
}

/// `welcome_video` (pt_BR): video header, no body parameter.
pub fn template_welcome_video(organization: OrganizationId, waba: &NetworkRef) -> Template {
    template(
        organization,
        waba,
        ("welcome_video", "pt_BR"),
        "APPROVED",
        "MARKETING",
        no_buttons(HeaderSpec::Media(MediaKind::Video), BodySpec::Positional(0)),
    )
}

/// `appointment_named` (en_US): no header, named body parameters `customer` and `date`.
pub fn template_appointment_named(organization: OrganizationId, waba: &NetworkRef) -> Template {
    template(
        organization,
        waba,
        ("appointment_named", "en_US"),
        "APPROVED",
        "UTILITY",
        no_buttons(
            HeaderSpec::None,
            BodySpec::Named(vec![param_name("customer"), param_name("date")]),
        ),
    )
}

/// `spring_sale` (en_US), status `PAUSED`: no header, 1 positional body parameter.
pub fn template_spring_sale(organization: OrganizationId, waba: &NetworkRef) -> Template {
    template(
        organization,
        waba,
        ("spring_sale", "en_US"),
        "PAUSED",
        "MARKETING",
        no_buttons(HeaderSpec::None, BodySpec::Positional(1)),
    )
}

/// The simulator's seeded templates (docs/api.md §13), by name.
pub fn simulator_templates(organization: OrganizationId, waba: &NetworkRef) -> Vec<Template> {
    vec![
        template_appointment_named(organization, waba),
        template_hello_world(organization, waba),
        template_invoice_ready(organization, waba),
        template_order_shipped(organization, waba),
        template_promo_image(organization, waba),
        template_spring_sale(organization, waba),
        template_welcome_video(organization, waba),
    ]
}

/// A text message "hello" from +15557654321 to `sender`, received at `received_at` and recorded as `id` at
/// `recorded_at`, with a unique wamid and a new customer event id.
pub fn inbound_record(
    organization: OrganizationId,
    sender: &SenderNumber,
    id: herald_domain::ids::InboundId,
    received_at: Timestamp,
    recorded_at: Timestamp,
) -> herald_domain::customer_event::InboundRecord {
    let wamid = format!("wamid.in.{}", next_ulid());
    herald_domain::customer_event::InboundRecord {
        id,
        organization_id: organization,
        sender_id: sender.id,
        media_id: None,
        message: herald_domain::network::InboundMessage {
            phone_number_id: network_ref(sender.phone_number_id.as_str()),
            network_message_id: wamid.clone(),
            from: phone("+15557654321").into(),
            from_user_id: None,
            from_name: None,
            received_at,
            message_type: "text".to_owned(),
            content: herald_domain::network::InboundContent::Text {
                body: "hello".to_owned(),
            },
            context_message_id: None,
            referral: None,
            raw: format!(r#"{{"id":"{wamid}"}}"#),
            source_field: herald_domain::network::SourceField::Messages,
            echo: false,
        },
        customer_event_id: EventId::from_ulid(next_ulid()),
        recorded_at,
    }
}

/// An enabled webhook endpoint of `organization` receiving `events`, created (and updated) at `created_at`,
/// with a unique URL and distinct stand-in sealed secret bytes (never a real secret).
pub fn webhook_endpoint(
    organization: OrganizationId,
    events: herald_domain::webhook::EventSelection,
    created_at: Timestamp,
) -> herald_domain::webhook::WebhookEndpoint {
    let id = next_ulid();
    herald_domain::webhook::WebhookEndpoint {
        id: herald_domain::ids::WebhookId::from_ulid(id),
        organization_id: organization,
        url: herald_domain::webhook::WebhookUrl::parse(&format!(
            "https://hooks.acme.test/herald/{}",
            id.to_string().to_lowercase()
        ))
        .expect("a valid https URL"),
        events,
        description: Some("orders system".to_owned()),
        enabled: true,
        disabled_reason: None,
        secret: herald_domain::organization::SealedSecret::new(id.to_bytes().to_vec()),
        previous_secret: None,
        previous_secret_expires_at: None,
        failing_since: None,
        created_at,
        updated_at: created_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herald_domain::template::check::check_variables;

    #[test]
    fn seq_ids_increase_strictly_and_repeat_per_run() {
        let ids = SeqIds::new();
        let first: Vec<Ulid> = (0..5).map(|_| ids.next_ulid()).collect();
        assert!(first.windows(2).all(|w| w[0] < w[1]), "{first:?}");
        let again = SeqIds::new();
        assert_eq!(again.next_ulid(), first[0]);
        let edge = SeqIds::starting_at(Ulid::from_parts(7, u128::MAX >> 48));
        let (a, b) = (edge.next_ulid(), edge.next_ulid());
        assert!(a < b, "overflow of the random part still increases");
    }

    #[test]
    fn fixed_clock_is_settable_and_advances() {
        let clock = FixedClock::default();
        assert_eq!(clock.now(), t0());
        clock.advance(TimeDelta::seconds(90));
        assert_eq!(clock.now(), at(90));
        clock.set(at(-5));
        assert_eq!(clock.now(), at(-5));
    }

    #[test]
    fn fake_secrets_are_deterministic_and_keys_differ() {
        let (a, b) = (FakeSecrets::new(9), FakeSecrets::new(9));
        let first = ApiKey::generate(&a);
        assert_eq!(first, ApiKey::generate(&b));
        assert_ne!(first, ApiKey::generate(&a), "successive keys differ");
    }

    #[test]
    fn times_are_microsecond_precise() {
        assert_eq!(truncate_to_micros(t0()), t0());
        let finer = t0() + TimeDelta::nanoseconds(789);
        assert_eq!(truncate_to_micros(finer), t0());
        assert_eq!(at(1) - t0(), TimeDelta::seconds(1));
    }

    #[test]
    fn builders_make_unique_values() {
        let org = organization("starter");
        let (s1, s2) = (
            sender(org.id, SIMULATOR_SENDER_1, true),
            sender(org.id, SIMULATOR_SENDER_2, false),
        );
        assert_ne!(s1.phone_number_id, s2.phone_number_id);
        let ((k1, key1), (k2, key2)) = (api_key(org.id), api_key(org.id));
        assert_ne!(k1.digest, k2.digest);
        assert_eq!(k1.digest, key1.digest());
        assert_eq!(k2.prefix, key2.public_prefix());
        assert_ne!(k1.prefix, k2.prefix);
    }

    #[test]
    fn accept_request_belongs_to_its_message() {
        let org = organization("trial");
        let from = sender(org.id, SIMULATOR_SENDER_1, true);
        let message = text_message(org.id, &from, "+15551234567", at(3));
        let request = accept_request(&message, Some(10), None);
        assert_eq!(request.event.message_id, message.id);
        assert_eq!(request.job.message_id, message.id);
        assert_eq!(request.job.sender_id, from.id);
        assert_eq!(request.quota.period.as_str(), "2026-03");
        assert_eq!(request.message, message);
    }

    #[test]
    fn seeded_templates_accept_the_fixture_contents() {
        let org = organization("starter").id;
        let waba = network_ref(SIMULATOR_WABA);
        let templates = simulator_templates(org, &waba);
        assert_eq!(templates.len(), 7);
        let find = |name: &str| templates.iter().find(|t| t.name.as_str() == name).unwrap();
        for (name, content) in [
            ("order_shipped", order_shipped_content()),
            ("appointment_named", appointment_named_content()),
            ("invoice_ready", invoice_ready_content()),
        ] {
            let MessageContent::Template { variables, .. } = content else {
                panic!("template content")
            };
            check_variables(find(name), &variables).unwrap();
        }
        assert!(!find("spring_sale").status.is_approved());
        assert_eq!(find("welcome_video").language.as_str(), "pt_BR");
    }
}
