//! Rows of `messages` and of their history (`message_events`).

use super::shared::*;
use super::webhooks::parse_event_type;
use crate::backend::CustomerEventRecord;
use crate::dto::{ContentDto, MarketingDto, StoredContent, TargetDto};
use crate::event_body::{broadcast_body, event_body, notice_body, preference_body};
use herald_domain::contact::PreferenceChange;
use herald_domain::content::{MessageRef, MessageTarget};
use herald_domain::customer_event::{CustomerEvent, CustomerEventType};
use herald_domain::ids::{EventId, MessageId, OrganizationId, SenderId};
use herald_domain::marketing::{MarketingSend, NetworkRoute};
use herald_domain::message::{
    EventSource, Message, MessageContent, MessageStatus, StatusEvent, StatusTimestamps,
};
use herald_domain::notice::NoticeEvent;
use herald_domain::ports::StoreError;
use herald_domain::pricing::{Pricing, PricingWord};
use herald_domain::trace::TraceContext;
use herald_domain::values::{ClientReference, PhoneNumber};

row! {
    #[derive(Debug)]
    pub(crate) struct MessageRow in messages {
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
        /// The message's `send_at`, when it was scheduled.
        pub scheduled_for: Option<Time>,
        pub cancelled_at: Option<Time>,
        pub pricing_model: Option<String>,
        pub pricing_category: Option<String>,
        pub pricing_type: Option<String>,
        pub pricing_billable: Option<bool>,
        pub broadcast_id: Option<String>,
        /// The send path it went out on, once submitted (written by the dispatch completion).
        pub route: Option<String>,
    }
}

impl MessageRow {
    pub(crate) fn new(message: &Message) -> Result<Self, StoreError> {
        // The columns status reports write, then the rest.
        let StatusColumns {
            id,
            status,
            network_message_id,
            error,
            updated_at,
            accepted_at,
            submitted_at,
            sent_at,
            delivered_at,
            read_at,
            failed_at,
            cancelled_at,
            pricing_model,
            pricing_category,
            pricing_type,
            pricing_billable,
        } = StatusColumns::new(message)?;
        Ok(Self {
            id,
            organization_id: message.organization_id.to_string(),
            sender_id: message.sender_id.to_string(),
            from_number: message.from.as_str().to_owned(),
            to_number: message.to.as_str().to_owned(),
            message_type: message.content.message_type().as_str().to_owned(),
            content: to_json(
                "message content",
                &StoredContent {
                    content: ContentDto::from(&message.content),
                    reply_to: message.reply_to.as_ref().map(TargetDto::from),
                    marketing: message.marketing.as_ref().map(MarketingDto::from),
                },
            )?,
            client_reference: message.client_reference.as_ref().map(|r| r.as_str().to_owned()),
            status,
            network_message_id,
            error,
            created_at: message.created_at,
            updated_at,
            accepted_at,
            submitted_at,
            sent_at,
            delivered_at,
            read_at,
            failed_at,
            trace_context: None,
            scheduled_for: message.send_at,
            cancelled_at,
            pricing_model,
            pricing_category,
            pricing_type,
            pricing_billable,
            broadcast_id: message.broadcast_id.map(|id| id.to_string()),
            route: message.route.map(|route| route.as_str().to_owned()),
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
        let stored: StoredContent = from_json("message content", &row.content)?;
        Ok(Self {
            id: parse("message id", MessageId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            sender_id: parse("sender id", SenderId::parse(&row.sender_id))?,
            from: parse("sender number", PhoneNumber::parse(&row.from_number))?,
            to: parse(
                "recipient",
                herald_domain::contact::Recipient::parse_stored(&row.to_number),
            )?,
            content: parse("message content", MessageContent::try_from(&stored.content))?,
            reply_to: stored
                .reply_to
                .as_ref()
                .map(|target| parse("reply target", MessageTarget::try_from(target)))
                .transpose()?,
            client_reference: row
                .client_reference
                .as_deref()
                .map(|r| parse("client reference", ClientReference::parse(r)))
                .transpose()?,
            status: parse("message status", MessageStatus::parse(&row.status))?,
            network_message_id: row.network_message_id,
            error: parse_error(row.error.as_deref())?,
            send_at: row.scheduled_for,
            broadcast_id: row
                .broadcast_id
                .as_deref()
                .map(|id| parse("broadcast id", herald_domain::ids::BroadcastId::parse(id)))
                .transpose()?,
            created_at: row.created_at,
            updated_at: row.updated_at,
            timestamps: StatusTimestamps {
                // A scheduled message is scheduled when it is accepted: no column of its own.
                scheduled: row.scheduled_for.map(|_| row.created_at),
                accepted: row.accepted_at,
                submitted: row.submitted_at,
                sent: row.sent_at,
                delivered: row.delivered_at,
                read: row.read_at,
                failed: row.failed_at,
                cancelled: row.cancelled_at,
            },
            pricing: stored_pricing(
                row.pricing_model.as_deref(),
                row.pricing_category.as_deref(),
                row.pricing_type.as_deref(),
                row.pricing_billable,
            )?,
            marketing: stored
                .marketing
                .as_ref()
                .map(|marketing| parse("marketing send", MarketingSend::try_from(marketing)))
                .transpose()?,
            route: row
                .route
                .as_deref()
                .map(|route| {
                    NetworkRoute::parse(route)
                        .ok_or_else(|| crate::error::corrupt("message route", "is not a known route"))
                })
                .transpose()?,
        })
    }
}

/// The columns of a message that status reports write: its status and times, its error, the network's id
/// and its pricing. A batch of reports decides each message's final state in Herald and writes it once.
#[derive(Debug)]
pub(crate) struct StatusColumns {
    pub id: String,
    pub status: String,
    pub network_message_id: Option<String>,
    pub error: Option<String>,
    pub updated_at: Time,
    pub accepted_at: Option<Time>,
    pub submitted_at: Option<Time>,
    pub sent_at: Option<Time>,
    pub delivered_at: Option<Time>,
    pub read_at: Option<Time>,
    pub failed_at: Option<Time>,
    pub cancelled_at: Option<Time>,
    pub pricing_model: Option<String>,
    pub pricing_category: Option<String>,
    pub pricing_type: Option<String>,
    pub pricing_billable: Option<bool>,
}

impl StatusColumns {
    pub(crate) fn new(message: &Message) -> Result<Self, StoreError> {
        let t = &message.timestamps;
        let pricing = message.pricing.as_ref();
        Ok(Self {
            id: message.id.to_string(),
            status: message.status.as_str().to_owned(),
            network_message_id: message.network_message_id.clone(),
            error: error_json(message.error.as_ref())?,
            updated_at: message.updated_at,
            accepted_at: t.accepted,
            submitted_at: t.submitted,
            sent_at: t.sent,
            delivered_at: t.delivered,
            read_at: t.read,
            failed_at: t.failed,
            cancelled_at: t.cancelled,
            pricing_model: word(pricing.and_then(|p| p.model.as_ref())),
            pricing_category: word(pricing.and_then(|p| p.category.as_ref())),
            pricing_type: word(pricing.and_then(|p| p.kind.as_ref())),
            pricing_billable: pricing.and_then(|p| p.billable),
        })
    }
}

fn word(word: Option<&PricingWord>) -> Option<String> {
    word.map(|w| w.as_str().to_owned())
}

/// The pricing columns back into [`Pricing`]; all `NULL` is no pricing.
pub(crate) fn stored_pricing(
    model: Option<&str>,
    category: Option<&str>,
    kind: Option<&str>,
    billable: Option<bool>,
) -> Result<Option<Pricing>, StoreError> {
    let word =
        |what: &str, value: Option<&str>| value.map(|v| parse(what, PricingWord::parse(v))).transpose();
    let pricing = Pricing {
        model: word("pricing model", model)?,
        category: word("pricing category", category)?,
        kind: word("pricing type", kind)?,
        billable,
    };
    Ok((!pricing.is_empty()).then_some(pricing))
}

row! {
    #[derive(Debug)]
    pub(crate) struct EventRow in message_events {
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

row! {
    /// A row of `events` (customer events).
    #[derive(Debug)]
    pub(crate) struct CustomerEventRow in events {
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
        /// A notice's key (`None` for message events): an organization records one event per key.
        pub dedupe_key: Option<String>,
    }
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
            dedupe_key: None,
        })
    }

    /// The row of a notice's event: about no message, first and only of its kind (`sequence` 1).
    pub(crate) fn notice(event: &NoticeEvent) -> Result<Self, StoreError> {
        Ok(Self {
            id: event.id.to_string(),
            organization_id: event.organization_id.to_string(),
            event_type: event.event_type().as_str().to_owned(),
            message_id: None,
            sequence: 1,
            payload: to_json("event payload", &notice_body(event))?,
            occurred_at: event.occurred_at,
            created_at: event.recorded_at,
            trace_context: None,
            dedupe_key: Some(event.dedupe_key.clone()),
        })
    }
}

impl CustomerEventRow {
    /// The `contact.preferences` event of a preference change (no message: `sequence` 1).
    pub(crate) fn preference(change: &PreferenceChange) -> Result<Self, StoreError> {
        Ok(Self {
            id: change.event_id.to_string(),
            organization_id: change.organization_id.to_string(),
            event_type: CustomerEventType::ContactPreferences.as_str().to_owned(),
            message_id: None,
            sequence: 1,
            payload: to_json("event payload", &preference_body(change))?,
            occurred_at: change.occurred_at,
            created_at: change.recorded_at,
            trace_context: None,
            dedupe_key: change.dedupe_key.clone(),
        })
    }
}

impl CustomerEventRow {
    /// The `contact.erased` event of an erasure (no message: `sequence` 1).
    pub(crate) fn erased(erasure: &herald_domain::erasure::Erasure) -> Result<Self, StoreError> {
        Ok(Self {
            id: erasure.event_id.to_string(),
            organization_id: erasure.organization_id.to_string(),
            event_type: CustomerEventType::ContactErased.as_str().to_owned(),
            message_id: None,
            sequence: 1,
            payload: to_json("event payload", &crate::event_body::erased_body(erasure))?,
            occurred_at: erasure.at,
            created_at: erasure.at,
            trace_context: None,
            dedupe_key: None,
        })
    }
}

impl CustomerEventRow {
    /// A broadcast's `broadcast.progress` or `broadcast.completed` event (no message: `sequence` 1).
    pub(crate) fn broadcast(event: &herald_domain::broadcast::BroadcastEvent) -> Result<Self, StoreError> {
        Ok(Self {
            id: event.id.to_string(),
            organization_id: event.view.broadcast.organization_id.to_string(),
            event_type: event.event_type().as_str().to_owned(),
            message_id: None,
            sequence: 1,
            payload: to_json("event payload", &broadcast_body(event))?,
            occurred_at: event.recorded_at,
            created_at: event.recorded_at,
            trace_context: None,
            dedupe_key: None,
        })
    }
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
                .map(|m| parse("message id", MessageRef::parse(m)))
                .transpose()?,
            sequence: to_u32("event sequence", row.sequence)?,
            payload: row.payload,
            occurred_at: row.occurred_at,
            created_at: row.created_at,
        })
    }
}
