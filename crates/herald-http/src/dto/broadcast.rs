//! Broadcasts on the wire (docs/api.md §4.10): the resource `GET /api/v1/broadcasts/{id}` answers (also the
//! `data` of the `broadcast.progress` and `broadcast.completed` events, §9), the creation answer, the list
//! page, and the documented request shape.

use super::{
    CostResource, ExpectedPricingResource, TemplateRefRequest, TemplateRefResource, TemplateVariablesRequest,
    time, time_opt,
};
use crate::error::{ApiError, Problem, RejectedRowResource};
use herald_domain::broadcast::{Broadcast, BroadcastView, PauseReason};
use herald_domain::message::MessageStatus;
use herald_domain::pricing::Cost;
use herald_domain::usecases::BroadcastDryRun;
use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::{IntoParams, ToSchema};

/// A broadcast and its progress.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "brd_01JD0000000000000000000000",
    "status": "running",
    "from": "+15550001111",
    "template": {"name": "order_shipped", "language": "en_US"},
    "send_at": null,
    "total": 3,
    "released": 2,
    "counts": {"scheduled": 0, "accepted": 1, "submitted": 0, "sent": 1, "delivered": 1, "read": 0, "failed": 0, "cancelled": 0},
    "pause": null,
    "created_at": "2026-11-21T10:15:30.123Z",
    "updated_at": "2026-11-21T10:15:31.500Z",
    "completed_at": null,
    "cancelled_at": null
}))]
pub struct BroadcastResource {
    #[schema(example = "brd_01JD0000000000000000000000")]
    pub id: String,
    /// `scheduled`, `running`, `paused`, `completed`, `cancelling` (a cancel under way, or stopped half-way:
    /// a retried cancel finishes it) or `cancelled`.
    #[schema(example = "running")]
    pub status: String,
    /// The sender number every message goes from.
    #[schema(example = "+15550001111")]
    pub from: String,
    pub template: TemplateRefResource,
    /// When its messages are due; `null` for a broadcast sent at once.
    #[schema(format = DateTime)]
    pub send_at: Option<String>,
    /// Messages accepted (the valid rows).
    pub total: u32,
    /// Messages released to dispatch so far.
    pub released: u32,
    /// Its messages by status: every message status, `0` included.
    pub counts: BTreeMap<String, u32>,
    /// Why it is paused; `null` unless `status` is `paused`.
    pub pause: Option<PauseResource>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    #[schema(format = DateTime)]
    pub completed_at: Option<String>,
    #[schema(format = DateTime)]
    pub cancelled_at: Option<String>,
}

/// Why a broadcast paused: the network's error on one of its messages.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct PauseResource {
    /// Herald's error code (`spam_rate_limited`, `template_paused`, …).
    #[schema(example = "spam_rate_limited")]
    pub code: String,
    pub detail: String,
    /// The network's own error code, when it gave one.
    #[schema(example = 131048)]
    pub network_code: Option<i64>,
    #[schema(format = DateTime)]
    pub paused_at: String,
}

impl From<&PauseReason> for PauseResource {
    fn from(pause: &PauseReason) -> Self {
        Self {
            code: pause.code.clone(),
            detail: pause.detail.clone(),
            network_code: pause.network_code,
            paused_at: time(pause.paused_at),
        }
    }
}

impl BroadcastResource {
    fn of_broadcast(broadcast: &Broadcast, counts: BTreeMap<String, u32>) -> Self {
        Self {
            id: broadcast.id.to_string(),
            status: broadcast.state.as_str().to_owned(),
            from: broadcast.from.as_str().to_owned(),
            template: TemplateRefResource {
                name: broadcast.template.name.as_str().to_owned(),
                language: broadcast.template.language.as_str().to_owned(),
            },
            send_at: time_opt(broadcast.send_at),
            total: broadcast.total,
            released: broadcast.released,
            counts,
            pause: broadcast.pause.as_ref().map(PauseResource::from),
            created_at: time(broadcast.created_at),
            updated_at: time(broadcast.updated_at),
            completed_at: time_opt(broadcast.completed_at),
            cancelled_at: time_opt(broadcast.cancelled_at),
        }
    }
}

impl From<&BroadcastView> for BroadcastResource {
    fn from(view: &BroadcastView) -> Self {
        let counts = MessageStatus::ALL
            .into_iter()
            .map(|status| (status.as_str().to_owned(), view.counts.get(status)))
            .collect();
        Self::of_broadcast(&view.broadcast, counts)
    }
}

/// `202` to `POST /api/v1/broadcasts`: the broadcast, with the rows accepted and the rows left out.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct BroadcastCreatedResource {
    #[serde(flatten)]
    pub broadcast: BroadcastResource,
    /// Recipient rows accepted, each now a message (`total`).
    pub accepted: u32,
    /// Recipient rows left out, each with its index in `recipients` and its errors; nothing was stored for
    /// them. A replay (`Idempotent-Replayed: true`) lists none: only the accepted broadcast is kept.
    pub rejected: Vec<RejectedRowResource>,
}

/// `200` to `POST /api/v1/broadcasts?dry_run=true`: what the broadcast would meet; nothing was stored,
/// counted or sent (docs/api.md §4.10).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({
    "would_accept": true,
    "refusals": [],
    "accepted": 2,
    "rejected": [{"index": 1, "errors": [{"field": "to", "message": "recipient_blocked: …"}]}],
    "pricing": {"category": "marketing", "billable": true},
    "estimated_cost": {"amount": "0.0500", "currency": "EUR"}
}))]
pub struct BroadcastDryRunResource {
    /// Whether the broadcast would be accepted now: `refusals` is empty.
    pub would_accept: bool,
    /// The problems the whole broadcast would be refused with, in the order the create would meet them:
    /// each is the body it would answer (its `status` the create's status code).
    pub refusals: Vec<Problem>,
    /// The recipient rows that would be accepted, each as one message (`0` when the rows could not be
    /// judged: see `refusals`).
    pub accepted: u32,
    /// The rows that would be left out, each with its index in `recipients` and its errors.
    pub rejected: Vec<RejectedRowResource>,
    /// The category each message would be billed in, once the template is known.
    pub pricing: Option<ExpectedPricingResource>,
    /// What the `accepted` messages cost at the organization's rate card, when it has a rate for the
    /// category.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_cost: Option<CostResource>,
}

impl BroadcastDryRunResource {
    pub(crate) fn new(run: BroadcastDryRun, estimated_cost: Option<&Cost>) -> Self {
        Self {
            would_accept: run.would_accept(),
            accepted: run.accepted,
            rejected: run.rejected.iter().map(RejectedRowResource::from).collect(),
            pricing: run.pricing.as_ref().map(|pricing| ExpectedPricingResource {
                category: pricing.category.as_str().to_owned(),
                billable: pricing.billable,
            }),
            estimated_cost: estimated_cost.map(CostResource::from),
            refusals: run
                .refusals
                .into_iter()
                .map(|refusal| ApiError::from(refusal).problem(None))
                .collect(),
        }
    }
}

/// A page of broadcasts, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct BroadcastPageResource {
    pub data: Vec<BroadcastResource>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// Filters of the broadcast list.
#[derive(Debug, Clone, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code, reason = "documents the query string, which is parsed by hand")]
pub struct BroadcastListQuery {
    /// `scheduled`, `running`, `paused`, `completed`, `cancelling` (a cancel under way, or stopped half-way:
    /// a retried cancel finishes it) or `cancelled`.
    pub status: Option<String>,
    /// 1 to 200; default 50.
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// Filters of a broadcast's messages (those of the message log that apply).
#[derive(Debug, Clone, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code, reason = "documents the query string, which is parsed by hand")]
pub struct BroadcastMessagesQuery {
    /// `scheduled`, `accepted`, `submitted`, `sent`, `delivered`, `read`, `failed` or `cancelled`.
    pub status: Option<String>,
    /// The recipient (E.164, URL-encoded).
    pub to: Option<String>,
    pub client_reference: Option<String>,
    /// 1 to 200; default 50.
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

// ---- documented request shape -----------------------------------------------------------------------

/// `POST /api/v1/broadcasts`: one template to up to 10,000 recipients.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "template": {"name": "order_shipped", "language": "en_US"},
    "send_at": "2026-12-01T09:00:00Z",
    "header": {"type": "image", "media_id": "med_01JD0000000000000000000000"},
    "recipients": [
        {"to": "+15551234567", "variables": ["Ana", "#1234", "Friday"], "client_reference": "order-1234"},
        {"to": "+15557654321", "variables": ["Bo", "#1235", "Monday"]}
    ]
}))]
pub struct BroadcastRequest {
    pub template: TemplateRefRequest,
    /// The sender number (E.164) when the organization has several.
    pub from: Option<String>,
    /// RFC 3339, from 1 minute to 35 days ahead: every message is `scheduled` until then.
    #[schema(format = DateTime)]
    pub send_at: Option<String>,
    /// The header every recipient without one of its own gets, in the form of `variables.header` (a
    /// file by `media_id` or `link`, or text).
    #[schema(value_type = Option<super::HeaderVariablesRequest>)]
    pub header: Option<serde_json::Value>,
    /// 1 to 10,000 rows.
    pub recipients: Vec<BroadcastRecipientRequest>,
}

/// One recipient of a broadcast.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BroadcastRecipientRequest {
    /// E.164, or a business-scoped user id (as a single send's `to`); each person at most once per broadcast.
    pub to: String,
    /// As in send-template (§4.1): the full form or a body shorthand.
    pub variables: Option<TemplateVariablesRequest>,
    /// Your own id, up to 128 characters, echoed in the message and its events.
    pub client_reference: Option<String>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code fails loudly by design")]

    use super::*;
    use herald_domain::broadcast::{BroadcastCounts, BroadcastState};
    use herald_domain::ids::{BroadcastId, OrganizationId, SenderId};
    use herald_domain::template::{LanguageCode, TemplateName, TemplateRef};
    use herald_domain::values::PhoneNumber;
    use serde_json::json;
    use ulid::Ulid;

    #[test]
    fn the_resource_has_exactly_the_contract_fields() {
        let at = chrono::DateTime::from_timestamp_millis(1_795_256_130_123).unwrap();
        let view = BroadcastView {
            broadcast: Broadcast {
                id: BroadcastId::from_ulid(Ulid::from_parts(1, 1)),
                organization_id: OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
                sender_id: SenderId::from_ulid(Ulid::from_parts(1, 3)),
                from: PhoneNumber::parse("+15550001111").unwrap(),
                template: TemplateRef {
                    name: TemplateName::parse("order_shipped").unwrap(),
                    language: LanguageCode::parse("en_US").unwrap(),
                },
                state: BroadcastState::Paused,
                total: 3,
                released: 2,
                send_at: None,
                pause: Some(PauseReason {
                    code: "spam_rate_limited".into(),
                    detail: "paused".into(),
                    network_code: Some(131_048),
                    paused_at: at,
                }),
                created_at: at,
                updated_at: at,
                completed_at: None,
                cancelled_at: None,
            },
            counts: BroadcastCounts(
                [(MessageStatus::Accepted, 1), (MessageStatus::Failed, 2)]
                    .into_iter()
                    .collect(),
            ),
        };
        let value = serde_json::to_value(BroadcastResource::from(&view)).unwrap();
        assert_eq!(
            value,
            json!({
                "id": view.broadcast.id.to_string(),
                "status": "paused",
                "from": "+15550001111",
                "template": {"name": "order_shipped", "language": "en_US"},
                "send_at": null,
                "total": 3,
                "released": 2,
                "counts": {
                    "scheduled": 0, "accepted": 1, "submitted": 0, "sent": 0, "delivered": 0, "read": 0,
                    "failed": 2, "cancelled": 0
                },
                "pause": {
                    "code": "spam_rate_limited",
                    "detail": "paused",
                    "network_code": 131048,
                    "paused_at": "2026-11-21T10:15:30.123Z"
                },
                "created_at": "2026-11-21T10:15:30.123Z",
                "updated_at": "2026-11-21T10:15:30.123Z",
                "completed_at": null,
                "cancelled_at": null
            })
        );
    }
}
