//! Rows as both backends load them, and their mapping to and from the domain.
//!
//! Each row struct lists its table's columns in the table's order (see [`crate::tables`]) and is loaded
//! positionally, so one struct serves PostgreSQL and SQLite. Every text read back is re-validated by the
//! domain's constructors; a row that fails is reported as corrupt rather than guessed at.

use crate::CustomerEventRecord;
use crate::dto::{ContentDto, ErrorDto, InboundContentDto, StructureDto};
use crate::error::corrupt;
use crate::event_body::event_body;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use chrono::{DateTime, Utc};
use diesel::Queryable;
use herald_domain::api_key::{ApiKeyDigest, ApiKeyRecord, ApiKeyStatus};
use herald_domain::customer_event::CustomerEvent;
use herald_domain::dispatch::{ClaimedJob, CustomerEventType, JobHistory, ParkedCallback, StoredCallback};
use herald_domain::ids::{
    ApiKeyId, DeliveryId, EventId, JobId, MediaId, MessageId, OrganizationId, SenderId, TemplateId, WebhookId,
};
use herald_domain::media::{InboundMedia, MediaFile, Sha256Digest};
use herald_domain::message::{
    EventSource, MediaKind, Message, MessageContent, MessageError, MessageStatus, StatusEvent,
    StatusTimestamps,
};
use herald_domain::organization::{
    AccountStatus, NetworkRef, Organization, Plan, PlanName, SealedSecret, SenderNumber,
};
use herald_domain::ports::{IdempotencyBegin, StoreError};
use herald_domain::template::{LanguageCode, Template, TemplateName, TemplateStatus, TemplateStructure};
use herald_domain::trace::TraceContext;
use herald_domain::values::{ClientReference, DisplayName, FileName, PhoneNumber, RequestFingerprint};
use herald_domain::webhook::{
    Delivery, DeliveryAttempt, DeliveryStatus, EventSelection, WebhookEndpoint, WebhookUrl,
};
use herald_domain::window::ServiceWindow;
use std::fmt::Display;

type Time = DateTime<Utc>;

/// The `state` of an idempotency record still being processed.
pub(crate) const IDEMPOTENCY_PENDING: &str = "pending";
/// The `state` of an idempotency record whose request produced a message.
pub(crate) const IDEMPOTENCY_COMPLETED: &str = "completed";
/// The `state` of a job waiting for a dispatch worker.
pub(crate) const JOB_PENDING: &str = "pending";

/// Parses a stored value with a domain constructor, reporting a failure as corrupt data.
fn parse<T, E: Display>(what: &str, result: Result<T, E>) -> Result<T, StoreError> {
    result.map_err(|e| corrupt(what, e))
}

fn to_u32(what: &str, value: i32) -> Result<u32, StoreError> {
    parse(what, u32::try_from(value))
}

fn to_u64(what: &str, value: i64) -> Result<u64, StoreError> {
    parse(what, u64::try_from(value))
}

/// A count or limit for a signed 32-bit column.
pub(crate) fn to_i32(what: &str, value: u32) -> Result<i32, StoreError> {
    i32::try_from(value)
        .map_err(|_| StoreError::Unknown(anyhow::anyhow!("{what} {value} is too large to store")))
}

pub(crate) fn to_i64(what: &str, value: u64) -> Result<i64, StoreError> {
    i64::try_from(value)
        .map_err(|_| StoreError::Unknown(anyhow::anyhow!("{what} {value} is too large to store")))
}

impl PlanRow {
    pub(crate) fn new(plan: &Plan) -> Result<Self, StoreError> {
        Ok(Self {
            name: plan.name.as_str().to_owned(),
            rate_per_second: to_i32("plan rate", plan.rate_per_second)?,
            burst: to_i32("plan burst", plan.burst)?,
            monthly_quota: plan.monthly_quota.map(|q| to_i64("plan quota", q)).transpose()?,
            text_allowed: plan.text_allowed,
            template_allowed: plan.template_allowed,
            media_allowed: plan.media_allowed,
            max_file_bytes: to_i64("plan file size", plan.max_file_bytes)?,
            webhook_endpoints: to_i32("plan endpoints", plan.webhook_endpoints)?,
            media_storage_bytes: plan
                .media_storage_bytes
                .map(|b| to_i64("plan media storage", b))
                .transpose()?,
        })
    }
}

/// A quota limit for the conditional increment; beyond `i64::MAX` is as good as unlimited.
pub(crate) fn quota_ceiling(limit: Option<u64>) -> i64 {
    limit.map_or(i64::MAX, |l| i64::try_from(l).unwrap_or(i64::MAX))
}

pub(crate) fn to_json<T: serde::Serialize>(what: &str, value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value)
        .map_err(|e| StoreError::Unknown(anyhow::anyhow!("cannot encode {what}: {e}")))
}

fn from_json<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, StoreError> {
    parse(what, serde_json::from_str(text))
}

pub(crate) fn error_json(error: Option<&MessageError>) -> Result<Option<String>, StoreError> {
    error
        .map(|e| to_json("message error", &ErrorDto::from(e)))
        .transpose()
}

fn parse_error(text: Option<&str>) -> Result<Option<MessageError>, StoreError> {
    text.map(|t| from_json::<ErrorDto>("message error", t).map(MessageError::from))
        .transpose()
}

#[derive(Debug, Queryable)]
pub(crate) struct PlanRow {
    pub name: String,
    pub rate_per_second: i32,
    pub burst: i32,
    pub monthly_quota: Option<i64>,
    pub text_allowed: bool,
    pub template_allowed: bool,
    pub media_allowed: bool,
    pub max_file_bytes: i64,
    pub webhook_endpoints: i32,
    pub media_storage_bytes: Option<i64>,
}

impl TryFrom<PlanRow> for Plan {
    type Error = StoreError;

    fn try_from(row: PlanRow) -> Result<Self, Self::Error> {
        Ok(Self {
            name: parse("plan name", PlanName::parse(&row.name))?,
            rate_per_second: to_u32("plan rate", row.rate_per_second)?,
            burst: to_u32("plan burst", row.burst)?,
            monthly_quota: row.monthly_quota.map(|q| to_u64("plan quota", q)).transpose()?,
            text_allowed: row.text_allowed,
            template_allowed: row.template_allowed,
            media_allowed: row.media_allowed,
            max_file_bytes: to_u64("plan file size", row.max_file_bytes)?,
            webhook_endpoints: to_u32("plan endpoints", row.webhook_endpoints)?,
            media_storage_bytes: row
                .media_storage_bytes
                .map(|b| to_u64("plan media storage", b))
                .transpose()?,
        })
    }
}

#[derive(Debug, Queryable)]
pub(crate) struct OrganizationRow {
    pub id: String,
    pub name: String,
    pub status: String,
    pub plan: String,
    pub owner_email: Option<String>,
    pub created_at: Time,
}

impl From<&Organization> for OrganizationRow {
    fn from(org: &Organization) -> Self {
        Self {
            id: org.id.to_string(),
            name: org.name.as_str().to_owned(),
            status: org.status.as_str().to_owned(),
            plan: org.plan.as_str().to_owned(),
            owner_email: org.owner_email.clone(),
            created_at: org.created_at,
        }
    }
}

impl TryFrom<OrganizationRow> for Organization {
    type Error = StoreError;

    fn try_from(row: OrganizationRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse("organization id", OrganizationId::parse(&row.id))?,
            name: parse("organization name", DisplayName::parse(&row.name))?,
            status: parse("account status", AccountStatus::parse(&row.status))?,
            plan: parse("plan name", PlanName::parse(&row.plan))?,
            owner_email: row.owner_email,
            created_at: row.created_at,
        })
    }
}

/// A sealed access token as the `senders` column keeps it (standard base64).
pub(crate) fn sealed_text(sealed: &SealedSecret) -> String {
    BASE64.encode(sealed.as_bytes())
}

#[derive(Debug, Queryable)]
pub(crate) struct SenderRow {
    pub id: String,
    pub organization_id: String,
    pub number: String,
    pub phone_number_id: String,
    pub waba_id: String,
    pub access_token_env: Option<String>,
    /// The sealed access token as standard base64: the column is TEXT on both backends, and text keeps the
    /// stored form identical on both.
    pub access_token_ciphertext: Option<String>,
    pub is_default: bool,
    pub throughput_per_second: i32,
    pub created_at: Time,
}

impl SenderRow {
    pub(crate) fn new(sender: &SenderNumber) -> Result<Self, StoreError> {
        Ok(Self {
            id: sender.id.to_string(),
            organization_id: sender.organization_id.to_string(),
            number: sender.number.as_str().to_owned(),
            phone_number_id: sender.phone_number_id.as_str().to_owned(),
            waba_id: sender.waba_id.as_str().to_owned(),
            access_token_env: sender.access_token_env.clone(),
            access_token_ciphertext: sender.sealed_access_token.as_ref().map(sealed_text),
            is_default: sender.is_default,
            throughput_per_second: to_i32("throughput", sender.throughput_per_second)?,
            created_at: sender.created_at,
        })
    }
}

impl TryFrom<SenderRow> for SenderNumber {
    type Error = StoreError;

    fn try_from(row: SenderRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse("sender id", SenderId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            number: parse("sender number", PhoneNumber::parse(&row.number))?,
            phone_number_id: parse("phone number id", NetworkRef::parse(&row.phone_number_id))?,
            waba_id: parse("business account id", NetworkRef::parse(&row.waba_id))?,
            access_token_env: row.access_token_env,
            sealed_access_token: row
                .access_token_ciphertext
                .map(|text| {
                    // The decoder's error would quote the stored text; keep sealed material out of messages.
                    BASE64
                        .decode(text.as_bytes())
                        .map(SealedSecret::new)
                        .map_err(|_| corrupt("sealed access token", "not base64"))
                })
                .transpose()?,
            is_default: row.is_default,
            throughput_per_second: to_u32("throughput", row.throughput_per_second)?,
            created_at: row.created_at,
        })
    }
}

#[derive(Debug, Queryable)]
pub(crate) struct ApiKeyRow {
    pub id: String,
    pub organization_id: String,
    pub name: Option<String>,
    pub prefix: String,
    pub digest: String,
    pub status: String,
    pub created_at: Time,
    pub last_used_at: Option<Time>,
    pub disabled_at: Option<Time>,
}

impl From<&ApiKeyRecord> for ApiKeyRow {
    fn from(key: &ApiKeyRecord) -> Self {
        Self {
            id: key.id.to_string(),
            organization_id: key.organization_id.to_string(),
            name: key.name.as_ref().map(|n| n.as_str().to_owned()),
            prefix: key.prefix.clone(),
            digest: key.digest.to_hex(),
            status: key.status.as_str().to_owned(),
            created_at: key.created_at,
            last_used_at: key.last_used_at,
            disabled_at: key.disabled_at,
        }
    }
}

impl TryFrom<ApiKeyRow> for ApiKeyRecord {
    type Error = StoreError;

    fn try_from(row: ApiKeyRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse("key id", ApiKeyId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            name: row
                .name
                .as_deref()
                .map(|n| parse("key name", DisplayName::parse(n)))
                .transpose()?,
            prefix: row.prefix,
            digest: parse("key digest", ApiKeyDigest::from_hex(&row.digest))?,
            status: parse("key status", ApiKeyStatus::parse(&row.status))?,
            created_at: row.created_at,
            last_used_at: row.last_used_at,
            disabled_at: row.disabled_at,
        })
    }
}

#[derive(Debug, Queryable)]
pub(crate) struct MessageRow {
    pub id: String,
    pub organization_id: String,
    pub sender_id: String,
    pub from_number: String,
    pub to_number: String,
    /// Derived from the content; stored as a column so the log can filter on it.
    pub message_type: String,
    pub content: String,
    pub client_reference: Option<String>,
    pub status: String,
    pub network_message_id: Option<String>,
    pub error: Option<String>,
    pub created_at: Time,
    pub updated_at: Time,
    pub accepted_at: Option<Time>,
    pub submitted_at: Option<Time>,
    pub sent_at: Option<Time>,
    pub delivered_at: Option<Time>,
    pub read_at: Option<Time>,
    pub failed_at: Option<Time>,
    /// Written once, at accept; not a part of [`Message`].
    pub trace_context: Option<String>,
}

impl MessageRow {
    pub(crate) fn new(message: &Message) -> Result<Self, StoreError> {
        let t = &message.timestamps;
        Ok(Self {
            id: message.id.to_string(),
            organization_id: message.organization_id.to_string(),
            sender_id: message.sender_id.to_string(),
            from_number: message.from.as_str().to_owned(),
            to_number: message.to.as_str().to_owned(),
            message_type: message.content.message_type().as_str().to_owned(),
            content: to_json("message content", &ContentDto::from(&message.content))?,
            client_reference: message.client_reference.as_ref().map(|r| r.as_str().to_owned()),
            status: message.status.as_str().to_owned(),
            network_message_id: message.network_message_id.clone(),
            error: error_json(message.error.as_ref())?,
            created_at: message.created_at,
            updated_at: message.updated_at,
            accepted_at: t.accepted,
            submitted_at: t.submitted,
            sent_at: t.sent,
            delivered_at: t.delivered,
            read_at: t.read,
            failed_at: t.failed,
            trace_context: None,
        })
    }

    /// The stored trace context, if it is one (a value that is not is dropped, never an error: a trace
    /// is not worth failing a message for).
    pub(crate) fn trace(&self) -> Option<TraceContext> {
        self.trace_context.as_deref().and_then(TraceContext::parse)
    }
}

impl TryFrom<MessageRow> for Message {
    type Error = StoreError;

    fn try_from(row: MessageRow) -> Result<Self, Self::Error> {
        let content: ContentDto = from_json("message content", &row.content)?;
        Ok(Self {
            id: parse("message id", MessageId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            sender_id: parse("sender id", SenderId::parse(&row.sender_id))?,
            from: parse("sender number", PhoneNumber::parse(&row.from_number))?,
            to: parse("recipient", PhoneNumber::parse(&row.to_number))?,
            content: parse("message content", MessageContent::try_from(&content))?,
            client_reference: row
                .client_reference
                .as_deref()
                .map(|r| parse("client reference", ClientReference::parse(r)))
                .transpose()?,
            status: parse("message status", MessageStatus::parse(&row.status))?,
            network_message_id: row.network_message_id,
            error: parse_error(row.error.as_deref())?,
            created_at: row.created_at,
            updated_at: row.updated_at,
            timestamps: StatusTimestamps {
                accepted: row.accepted_at,
                submitted: row.submitted_at,
                sent: row.sent_at,
                delivered: row.delivered_at,
                read: row.read_at,
                failed: row.failed_at,
            },
        })
    }
}

#[derive(Debug, Queryable)]
pub(crate) struct EventRow {
    pub id: String,
    pub organization_id: String,
    pub message_id: String,
    pub status: String,
    pub previous_status: Option<String>,
    pub applied: bool,
    pub source: String,
    pub error: Option<String>,
    pub occurred_at: Time,
    pub recorded_at: Time,
}

impl EventRow {
    pub(crate) fn new(event: &StatusEvent) -> Result<Self, StoreError> {
        Ok(Self {
            id: event.id.to_string(),
            organization_id: event.organization_id.to_string(),
            message_id: event.message_id.to_string(),
            status: event.status.as_str().to_owned(),
            previous_status: event.previous_status.map(|s| s.as_str().to_owned()),
            applied: event.applied,
            source: event.source.as_str().to_owned(),
            error: error_json(event.error.as_ref())?,
            occurred_at: event.occurred_at,
            recorded_at: event.recorded_at,
        })
    }
}

impl TryFrom<EventRow> for StatusEvent {
    type Error = StoreError;

    fn try_from(row: EventRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse("event id", EventId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            message_id: parse("message id", MessageId::parse(&row.message_id))?,
            status: parse("event status", MessageStatus::parse(&row.status))?,
            previous_status: row
                .previous_status
                .as_deref()
                .map(|s| parse("previous status", MessageStatus::parse(s)))
                .transpose()?,
            applied: row.applied,
            source: parse("event source", EventSource::parse(&row.source))?,
            error: parse_error(row.error.as_deref())?,
            occurred_at: row.occurred_at,
            recorded_at: row.recorded_at,
        })
    }
}

#[derive(Debug, Queryable)]
pub(crate) struct TemplateRow {
    pub id: String,
    pub organization_id: String,
    pub waba_id: String,
    pub name: String,
    pub language: String,
    pub status: String,
    pub category: String,
    pub structure: String,
    pub network_id: Option<String>,
    pub synced_at: Time,
}

impl TemplateRow {
    pub(crate) fn new(template: &Template) -> Result<Self, StoreError> {
        Ok(Self {
            id: template.id.to_string(),
            organization_id: template.organization_id.to_string(),
            waba_id: template.waba_id.as_str().to_owned(),
            name: template.name.as_str().to_owned(),
            language: template.language.as_str().to_owned(),
            status: template.status.as_str().to_owned(),
            category: template.category.clone(),
            structure: to_json("template structure", &StructureDto::from(&template.structure))?,
            network_id: template.network_id.clone(),
            synced_at: template.synced_at,
        })
    }
}

impl TryFrom<TemplateRow> for Template {
    type Error = StoreError;

    fn try_from(row: TemplateRow) -> Result<Self, Self::Error> {
        let structure: StructureDto = from_json("template structure", &row.structure)?;
        Ok(Self {
            id: parse("template id", TemplateId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            waba_id: parse("business account id", NetworkRef::parse(&row.waba_id))?,
            name: parse("template name", TemplateName::parse(&row.name))?,
            language: parse("template language", LanguageCode::parse(&row.language))?,
            status: parse("template status", TemplateStatus::parse(&row.status))?,
            category: row.category,
            structure: parse("template structure", TemplateStructure::try_from(&structure))?,
            network_id: row.network_id,
            synced_at: row.synced_at,
        })
    }
}

#[derive(Debug, Queryable)]
pub(crate) struct WindowRow {
    pub organization_id: String,
    pub sender_id: String,
    pub recipient: String,
    pub last_inbound_at: Time,
}

impl TryFrom<WindowRow> for ServiceWindow {
    type Error = StoreError;

    fn try_from(row: WindowRow) -> Result<Self, Self::Error> {
        Ok(Self {
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            sender_id: parse("sender id", SenderId::parse(&row.sender_id))?,
            recipient: parse("recipient", PhoneNumber::parse(&row.recipient))?,
            last_inbound_at: row.last_inbound_at,
        })
    }
}

#[derive(Debug, Queryable)]
pub(crate) struct IdempotencyRow {
    #[expect(dead_code, reason = "loaded positionally; the caller already knows the key")]
    pub organization_id: String,
    #[expect(dead_code, reason = "loaded positionally; the caller already knows the key")]
    pub key: String,
    pub fingerprint: String,
    pub state: String,
    pub message_id: Option<String>,
    pub locked_at: Time,
    pub completed_at: Option<Time>,
    #[expect(
        dead_code,
        reason = "loaded positionally; the statements that need it filter on it"
    )]
    pub claim_token: Option<String>,
}

impl IdempotencyRow {
    /// Applies the take-over rules of `MessageStore::begin_idempotent` to this record: the answer for a
    /// live record, `None` for one that may be taken over (an abandoned claim or an expired completion).
    pub(crate) fn answer(
        &self,
        lock_until: Time,
        completed_after: Time,
    ) -> Result<Option<IdempotencyBegin>, StoreError> {
        let fingerprint = parse(
            "idempotency fingerprint",
            RequestFingerprint::from_hex(&self.fingerprint),
        )?;
        match self.state.as_str() {
            IDEMPOTENCY_PENDING if self.locked_at < lock_until => Ok(None),
            IDEMPOTENCY_PENDING => Ok(Some(IdempotencyBegin::InFlight { fingerprint })),
            IDEMPOTENCY_COMPLETED => {
                let completed_at = self.completed_at.unwrap_or(self.locked_at);
                if completed_at < completed_after {
                    return Ok(None);
                }
                let message_id = self
                    .message_id
                    .as_deref()
                    .ok_or_else(|| corrupt("idempotency record", "completed without a message"))?;
                Ok(Some(IdempotencyBegin::Completed {
                    fingerprint,
                    message_id: parse("message id", MessageId::parse(message_id))?,
                }))
            }
            other => Err(corrupt("idempotency state", other)),
        }
    }
}

/// The `state` of a job leased to a dispatch worker.
pub(crate) const JOB_IN_FLIGHT: &str = "in_flight";
/// The `state` of a job whose message went out or needs no sending.
pub(crate) const JOB_DONE: &str = "done";
/// The `state` of a job whose message failed.
pub(crate) const JOB_FAILED: &str = "failed";

/// A job just claimed: its new values, and the old ones that say what happened to it before.
#[derive(Debug)]
pub(crate) struct ClaimedRow {
    pub id: String,
    pub organization_id: String,
    pub message_id: String,
    /// Including this claim.
    pub attempts: i32,
    pub deadline: Time,
    pub old_state: String,
    pub old_attempts: i32,
    pub old_awaiting: bool,
}

impl ClaimedRow {
    /// What happened to the job before this claim, read from its row as it was.
    pub(crate) fn history(&self) -> JobHistory {
        if self.old_state == JOB_IN_FLIGHT {
            JobHistory::Reclaimed
        } else if self.old_awaiting {
            JobHistory::AwaitedCallback
        } else if self.old_attempts > 0 {
            JobHistory::Retried
        } else {
            JobHistory::Fresh
        }
    }

    /// The claimed job with its message, sender and the organization's account status (`status`).
    pub(crate) fn into_job(
        self,
        message: MessageRow,
        sender: SenderRow,
        status: &str,
    ) -> Result<ClaimedJob, StoreError> {
        let trace = message.trace();
        Ok(ClaimedJob {
            job_id: parse("job id", JobId::parse(&self.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&self.organization_id))?,
            attempts: to_u32("job attempts", self.attempts)?,
            history: self.history(),
            deadline: self.deadline,
            message: message.try_into()?,
            sender: sender.try_into()?,
            account_status: parse("account status", AccountStatus::parse(status))?,
            trace,
        })
    }
}

/// A job's last error as stored: Herald's code and the detail.
pub(crate) fn job_error(error: &MessageError) -> String {
    format!("{}: {}", error.code, error.detail)
}

#[derive(Debug, Queryable)]
pub(crate) struct CallbackRow {
    pub id: String,
    pub received_at: Time,
    pub body: Vec<u8>,
    #[expect(
        dead_code,
        reason = "loaded positionally; only unprocessed callbacks are read"
    )]
    pub processed_at: Option<Time>,
    #[expect(
        dead_code,
        reason = "loaded positionally; the note is for operators reading the table"
    )]
    pub note: Option<String>,
    #[expect(dead_code, reason = "loaded positionally; only callbacks not parked are read")]
    pub attempts: i32,
    #[expect(dead_code, reason = "loaded positionally; only callbacks not parked are read")]
    pub last_error: Option<String>,
    #[expect(dead_code, reason = "loaded positionally; only callbacks not parked are read")]
    pub parked_at: Option<Time>,
}

#[derive(Debug, Queryable)]
pub(crate) struct ParkedCallbackRow {
    pub id: String,
    pub received_at: Time,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub parked_at: Time,
}

impl TryFrom<ParkedCallbackRow> for ParkedCallback {
    type Error = StoreError;

    fn try_from(row: ParkedCallbackRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse("callback id", EventId::parse(&row.id))?,
            received_at: row.received_at,
            attempts: to_u32("callback attempts", row.attempts)?,
            last_error: row.last_error,
            parked_at: row.parked_at,
        })
    }
}

impl TryFrom<CallbackRow> for StoredCallback {
    type Error = StoreError;

    fn try_from(row: CallbackRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse("callback id", EventId::parse(&row.id))?,
            received_at: row.received_at,
            body: row.body,
        })
    }
}

/// A row of `events` (customer events).
#[derive(Debug, Queryable)]
pub(crate) struct CustomerEventRow {
    pub id: String,
    pub organization_id: String,
    pub event_type: String,
    pub message_id: Option<String>,
    pub sequence: i32,
    pub payload: String,
    pub occurred_at: Time,
    pub created_at: Time,
    /// The trace of the event's message, copied from it when the event is written.
    pub trace_context: Option<String>,
}

impl CustomerEventRow {
    /// The row of a decided event: its body serialized to the wire format, and the trace of its message.
    pub(crate) fn new(event: &CustomerEvent, trace: Option<&TraceContext>) -> Result<Self, StoreError> {
        Ok(Self {
            id: event.id.to_string(),
            organization_id: event.organization_id.to_string(),
            event_type: event.event_type().as_str().to_owned(),
            message_id: Some(event.message_id.to_string()),
            sequence: to_i32("event sequence", event.sequence)?,
            payload: to_json("event payload", &event_body(event))?,
            occurred_at: event.occurred_at,
            created_at: event.recorded_at,
            trace_context: trace.map(|t| t.as_str().to_owned()),
        })
    }
}

pub(crate) fn parse_event_type(value: &str) -> Result<CustomerEventType, StoreError> {
    [
        CustomerEventType::MessageStatus,
        CustomerEventType::MessageFailed,
        CustomerEventType::MessageInbound,
        CustomerEventType::WebhookTest,
    ]
    .into_iter()
    .find(|t| t.as_str() == value)
    .ok_or_else(|| corrupt("event type", value))
}

impl TryFrom<CustomerEventRow> for CustomerEventRecord {
    type Error = StoreError;

    fn try_from(row: CustomerEventRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse("event id", EventId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            event_type: parse_event_type(&row.event_type)?,
            message_id: row
                .message_id
                .as_deref()
                .map(|m| parse("message id", MessageId::parse(m)))
                .transpose()?,
            sequence: to_u32("event sequence", row.sequence)?,
            payload: row.payload,
            occurred_at: row.occurred_at,
            created_at: row.created_at,
        })
    }
}

/// The `status` of a delivery waiting for (or in) an attempt.
pub(crate) const DELIVERY_PENDING: &str = "pending";
/// The `status` of a delivery whose endpoint was disabled when its event happened.
pub(crate) const DELIVERY_SKIPPED: &str = "skipped";
/// The `status` of a delivery whose every scheduled attempt failed.
pub(crate) const DELIVERY_FAILED: &str = "failed";

/// The id of the delivery of `event` to `endpoint` made by the fan-out.
///
/// The fan-out runs inside the store's event-writing transactions, whose ports carry no id for it, so the
/// id is derived: the event's millisecond (ids stay time-ordered) and 80 bits of FNV-1a over both ids.
/// Deterministic, so a retried transaction makes the same ids, and unique per (endpoint, event) pair in
/// practice; the primary key would refuse a collision rather than mix two deliveries up.
pub(crate) fn fan_out_delivery_id(event: &EventId, endpoint: &WebhookId) -> DeliveryId {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    let mut hash = OFFSET;
    for byte in event
        .ulid()
        .to_bytes()
        .into_iter()
        .chain(endpoint.ulid().to_bytes())
    {
        hash ^= u128::from(byte);
        hash = hash.wrapping_mul(PRIME);
    }
    let random = hash & ((1_u128 << 80) - 1);
    DeliveryId::from_ulid(ulid::Ulid::from_parts(event.ulid().timestamp_ms(), random))
}

/// A row of `webhook_endpoints`. No `Debug`: it holds sealed secrets.
#[derive(Queryable)]
pub(crate) struct WebhookEndpointRow {
    pub id: String,
    pub organization_id: String,
    pub url: String,
    pub sub_status: bool,
    pub sub_failed: bool,
    pub sub_inbound: bool,
    pub description: Option<String>,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub secret: Vec<u8>,
    pub previous_secret: Option<Vec<u8>>,
    pub previous_secret_expires_at: Option<Time>,
    pub failing_since: Option<Time>,
    pub created_at: Time,
    pub updated_at: Time,
}

impl From<&WebhookEndpoint> for WebhookEndpointRow {
    fn from(endpoint: &WebhookEndpoint) -> Self {
        Self {
            id: endpoint.id.to_string(),
            organization_id: endpoint.organization_id.to_string(),
            url: endpoint.url.as_str().to_owned(),
            sub_status: endpoint.events.message_status,
            sub_failed: endpoint.events.message_failed,
            sub_inbound: endpoint.events.message_inbound,
            description: endpoint.description.clone(),
            enabled: endpoint.enabled,
            disabled_reason: endpoint.disabled_reason.clone(),
            secret: endpoint.secret.as_bytes().to_vec(),
            previous_secret: endpoint.previous_secret.as_ref().map(|s| s.as_bytes().to_vec()),
            previous_secret_expires_at: endpoint.previous_secret_expires_at,
            failing_since: endpoint.failing_since,
            created_at: endpoint.created_at,
            updated_at: endpoint.updated_at,
        }
    }
}

impl WebhookEndpointRow {
    pub(crate) fn events(&self) -> EventSelection {
        EventSelection {
            message_status: self.sub_status,
            message_failed: self.sub_failed,
            message_inbound: self.sub_inbound,
        }
    }
}

impl TryFrom<WebhookEndpointRow> for WebhookEndpoint {
    type Error = StoreError;

    fn try_from(row: WebhookEndpointRow) -> Result<Self, Self::Error> {
        let events = row.events();
        Ok(Self {
            id: parse("webhook id", WebhookId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            url: parse("webhook url", WebhookUrl::parse(&row.url))?,
            events,
            description: row.description,
            enabled: row.enabled,
            disabled_reason: row.disabled_reason,
            secret: SealedSecret::new(row.secret),
            previous_secret: row.previous_secret.map(SealedSecret::new),
            previous_secret_expires_at: row.previous_secret_expires_at,
            failing_since: row.failing_since,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }
}

/// A row of `webhook_deliveries`.
#[derive(Debug, Queryable)]
pub(crate) struct DeliveryRow {
    pub id: String,
    pub organization_id: String,
    pub endpoint_id: String,
    pub event_id: String,
    pub event_type: String,
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: Option<Time>,
    #[expect(
        dead_code,
        reason = "loaded positionally; claims are read by the claiming statements"
    )]
    pub claim_token: Option<String>,
    #[expect(
        dead_code,
        reason = "loaded positionally; claims are read by the claiming statements"
    )]
    pub lease_until: Option<Time>,
    pub created_at: Time,
    #[expect(dead_code, reason = "loaded positionally; for operators reading the table")]
    pub updated_at: Time,
}

impl DeliveryRow {
    /// The delivery with its attempts (in number order).
    pub(crate) fn into_delivery(self, attempts: Vec<DeliveryAttempt>) -> Result<Delivery, StoreError> {
        Ok(Delivery {
            id: parse("delivery id", DeliveryId::parse(&self.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&self.organization_id))?,
            endpoint_id: parse("webhook id", WebhookId::parse(&self.endpoint_id))?,
            event_id: parse("event id", EventId::parse(&self.event_id))?,
            event_type: parse_event_type(&self.event_type)?,
            status: parse("delivery status", DeliveryStatus::parse(&self.status))?,
            next_attempt_at: self.next_attempt_at,
            attempts,
            created_at: self.created_at,
        })
    }

    /// The number of the next attempt.
    pub(crate) fn next_attempt_number(&self) -> Result<u32, StoreError> {
        Ok(to_u32("delivery attempts", self.attempts)?.saturating_add(1))
    }
}

/// A row of `webhook_attempts`.
#[derive(Debug, Queryable)]
pub(crate) struct AttemptRow {
    pub delivery_id: String,
    pub number: i32,
    pub at: Time,
    pub status_code: Option<i32>,
    pub response_prefix: String,
    pub error_kind: Option<String>,
    pub duration_ms: i64,
}

impl TryFrom<AttemptRow> for DeliveryAttempt {
    type Error = StoreError;

    fn try_from(row: AttemptRow) -> Result<Self, Self::Error> {
        Ok(Self {
            number: to_u32("attempt number", row.number)?,
            at: row.at,
            status_code: row
                .status_code
                .map(|code| parse("attempt status code", u16::try_from(code)))
                .transpose()?,
            response_prefix: row.response_prefix,
            error_kind: row.error_kind,
            duration_ms: to_u64("attempt duration", row.duration_ms)?,
        })
    }
}

/// A row of `media_files` (an upload's metadata).
#[derive(Debug, Queryable)]
pub(crate) struct MediaFileRow {
    pub id: String,
    pub organization_id: String,
    pub kind: String,
    pub mime_type: String,
    pub size: i64,
    pub sha256: String,
    pub filename: Option<String>,
    pub created_at: Time,
    pub expires_at: Time,
}

impl MediaFileRow {
    pub(crate) fn new(file: &MediaFile) -> Result<Self, StoreError> {
        Ok(Self {
            id: file.id.to_string(),
            organization_id: file.organization_id.to_string(),
            kind: file.kind.as_str().to_owned(),
            mime_type: file.mime_type.clone(),
            size: i64::try_from(file.size).map_err(|_| {
                StoreError::Unknown(anyhow::anyhow!("file size {} is too large to store", file.size))
            })?,
            sha256: file.sha256.to_hex(),
            filename: file.filename.as_ref().map(|f| f.as_str().to_owned()),
            created_at: file.created_at,
            expires_at: file.expires_at,
        })
    }
}

impl TryFrom<MediaFileRow> for MediaFile {
    type Error = StoreError;

    fn try_from(row: MediaFileRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse("media id", MediaId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            kind: parse("media kind", MediaKind::parse(&row.kind))?,
            mime_type: row.mime_type,
            size: to_u64("media size", row.size)?,
            sha256: parse_digest(&row.sha256)?,
            filename: row
                .filename
                .as_deref()
                .map(|f| parse("media filename", FileName::parse(f)))
                .transpose()?,
            created_at: row.created_at,
            expires_at: row.expires_at,
        })
    }
}

pub(crate) fn parse_digest(hex: &str) -> Result<Sha256Digest, StoreError> {
    parse("media digest", Sha256Digest::from_hex(hex))
}

/// The columns of `inbound_messages` that describe its file.
#[derive(Debug, Queryable)]
pub(crate) struct InboundMediaRow {
    pub media_id: Option<String>,
    pub organization_id: String,
    pub sender_id: String,
    pub content: String,
}

impl TryFrom<InboundMediaRow> for InboundMedia {
    type Error = StoreError;

    fn try_from(row: InboundMediaRow) -> Result<Self, Self::Error> {
        let id = row
            .media_id
            .ok_or_else(|| corrupt("inbound media id", "missing"))?;
        let InboundContentDto::Media {
            media_kind,
            network_media_id,
            mime_type,
            filename,
            ..
        } = from_json::<InboundContentDto>("inbound content", &row.content)?
        else {
            return Err(corrupt(
                "inbound content",
                "a message with a media id carries no media",
            ));
        };
        Ok(Self {
            id: parse("media id", MediaId::parse(&id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            sender_id: parse("sender id", SenderId::parse(&row.sender_id))?,
            network_media_id,
            kind: media_kind,
            mime_type,
            filename,
        })
    }
}
