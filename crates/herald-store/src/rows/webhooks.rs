//! Rows of customer events (`events`), webhook endpoints, deliveries and attempts.

use super::shared::*;
use crate::error::corrupt;
use herald_domain::customer_event::CustomerEventType;
use herald_domain::ids::{DeliveryId, EventId, OrganizationId, WebhookId};
use herald_domain::organization::SealedSecret;
use herald_domain::ports::StoreError;
use herald_domain::webhook::{
    Delivery, DeliveryAttempt, DeliveryStatus, EventSelection, WebhookEndpoint, WebhookUrl,
};

pub(crate) fn parse_event_type(value: &str) -> Result<CustomerEventType, StoreError> {
    CustomerEventType::parse(value).ok_or_else(|| corrupt("event type", value))
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

row! {
    /// A row of `webhook_endpoints`. No `Debug`: it holds sealed secrets.
    pub(crate) struct WebhookEndpointRow in webhook_endpoints {
        pub id: String,
        pub organization_id: String,
        pub url: String,
        pub sub_status: bool,
        pub sub_failed: bool,
        pub sub_inbound: bool,
        pub sub_template_status: bool,
        pub sub_template_quality: bool,
        pub sub_template_category: bool,
        pub sub_sender_quality: bool,
        pub sub_account_update: bool,
        pub sub_contact_preferences: bool,
        pub sub_broadcast_progress: bool,
        pub sub_broadcast_completed: bool,
        pub sub_contact_erased: bool,
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
            sub_template_status: endpoint.events.template_status,
            sub_template_quality: endpoint.events.template_quality,
            sub_template_category: endpoint.events.template_category,
            sub_sender_quality: endpoint.events.sender_quality,
            sub_account_update: endpoint.events.account_update,
            sub_contact_preferences: endpoint.events.contact_preferences,
            sub_broadcast_progress: endpoint.events.broadcast_progress,
            sub_broadcast_completed: endpoint.events.broadcast_completed,
            sub_contact_erased: endpoint.events.contact_erased,
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
            template_status: self.sub_template_status,
            template_quality: self.sub_template_quality,
            template_category: self.sub_template_category,
            sender_quality: self.sub_sender_quality,
            account_update: self.sub_account_update,
            contact_preferences: self.sub_contact_preferences,
            broadcast_progress: self.sub_broadcast_progress,
            broadcast_completed: self.sub_broadcast_completed,
            contact_erased: self.sub_contact_erased,
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

row! {
    /// A row of `webhook_deliveries`.
    #[derive(Debug)]
    pub(crate) struct DeliveryRow in webhook_deliveries {
        pub id: String,
        pub organization_id: String,
        pub endpoint_id: String,
        pub event_id: String,
        pub event_type: String,
        pub status: String,
        pub attempts: i32,
        pub next_attempt_at: Option<Time>,
        pub created_at: Time,
    }
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

row! {
    /// A row of `webhook_attempts`.
    #[derive(Debug)]
    pub(crate) struct AttemptRow in webhook_attempts {
        pub delivery_id: String,
        pub number: i32,
        pub at: Time,
        pub status_code: Option<i32>,
        pub response_prefix: String,
        pub error_kind: Option<String>,
        pub duration_ms: i64,
    }
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
