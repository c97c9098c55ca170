//! The webhook endpoints' wire shapes. The signing secret appears only in [`WebhookWithSecretResource`].

use crate::dto::time;
use herald_domain::webhook::{Delivery, DeliveryAttempt, WebhookEndpoint};
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;

/// A customer's webhook endpoint. Never carries the signing secret.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookResource {
    /// `whk_…`
    pub id: String,
    pub url: String,
    /// The event types it receives (`webhook.test` always goes to the endpoint it was sent to).
    pub events: Vec<String>,
    pub description: Option<String>,
    pub enabled: bool,
    /// Why Herald disabled it (after 5 days of failing every attempt), else `null`.
    pub disabled_reason: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// Until when the secret before the last rotation still signs (a second signature); absent when no
    /// rotation is in progress.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = DateTime)]
    pub secret_rotated_until: Option<String>,
}

/// An endpoint with its signing secret: the answer of create and rotate-secret, the only times the secret
/// is shown.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookWithSecretResource {
    #[serde(flatten)]
    pub endpoint: WebhookResource,
    /// `whsec_` + base64 of the key; keep it, it is not shown again.
    pub secret: String,
}

/// `{ "data": [...] }`
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookListResource {
    pub data: Vec<WebhookResource>,
}

/// `POST /api/v1/webhooks`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://example.com/herald", "events": ["message.status", "message.failed"], "description": "orders"}))]
pub struct CreateWebhookRequest {
    /// An absolute `https://` URL whose host resolves to public addresses.
    pub url: Option<String>,
    /// `message.status`, `message.failed`, `message.inbound`, `template.status`, `template.quality`,
    /// `template.category`, `sender.quality`, `account.update`, `contact.preferences`, `broadcast.progress`,
    /// `broadcast.completed`; omitted means all.
    pub events: Option<Vec<String>>,
    /// Up to 500 characters.
    pub description: Option<String>,
}

/// `PATCH /api/v1/webhooks/{id}`: only the fields given change; `"description": null` clears it.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateWebhookRequest {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
    /// `false` pauses deliveries (events are recorded as `skipped`); `true` re-enables and clears the
    /// disable reason.
    pub enabled: Option<bool>,
}

/// `POST /api/v1/webhooks/{id}/recover`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecoverRequest {
    /// RFC 3339: every `failed` or `skipped` delivery created at or after it is queued again.
    #[schema(format = DateTime)]
    pub since: Option<String>,
}

/// `{ "event_id": "evt_…" }` of a test event.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookTestResource {
    pub event_id: String,
}

/// `{ "requeued": n }`.
#[derive(Debug, Serialize, ToSchema)]
pub struct RecoverResource {
    pub requeued: u64,
}

/// `{ "delivery_id": "dlv_…", "status": "pending" }` of a redelivery.
#[derive(Debug, Serialize, ToSchema)]
pub struct RedeliverResource {
    pub delivery_id: String,
    pub status: String,
}

/// One attempt of a delivery.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryAttemptResource {
    /// 1 for the first attempt.
    pub number: u32,
    pub at: String,
    pub status_code: Option<u16>,
    /// The first 1 KiB of the answer.
    pub response_body: String,
    /// `timeout`, `connect`, `blocked_destination`, `redirect`, `http_status`, `tls`, `no_signing_secret`; `null` on success.
    pub error_kind: Option<String>,
    pub duration_ms: u64,
}

/// One event's delivery to the endpoint.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryResource {
    /// `dlv_…`
    pub id: String,
    /// The `webhook-id` header: the same on every attempt.
    pub event_id: String,
    pub event_type: String,
    /// `pending`, `succeeded`, `failed` or `skipped`.
    pub status: String,
    #[schema(format = DateTime)]
    pub next_attempt_at: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    pub attempts: Vec<DeliveryAttemptResource>,
}

/// A page of deliveries, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryPageResource {
    pub data: Vec<DeliveryResource>,
    /// Pass as `cursor` for the next page; `null` on the last one.
    pub next_cursor: Option<String>,
}

/// Distinguishes a field set to `null` (`Some(None)`) from a field left out (`None`, via `default`).
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

impl From<&WebhookEndpoint> for WebhookResource {
    fn from(endpoint: &WebhookEndpoint) -> Self {
        Self {
            id: endpoint.id.to_string(),
            url: endpoint.url.as_str().to_owned(),
            events: endpoint.events.names().into_iter().map(str::to_owned).collect(),
            description: endpoint.description.clone(),
            enabled: endpoint.enabled,
            disabled_reason: endpoint.disabled_reason.clone(),
            created_at: time(endpoint.created_at),
            updated_at: time(endpoint.updated_at),
            secret_rotated_until: endpoint
                .previous_secret
                .as_ref()
                .and(endpoint.previous_secret_expires_at)
                .map(time),
        }
    }
}

impl From<&DeliveryAttempt> for DeliveryAttemptResource {
    fn from(attempt: &DeliveryAttempt) -> Self {
        Self {
            number: attempt.number,
            at: time(attempt.at),
            status_code: attempt.status_code,
            response_body: attempt.response_prefix.clone(),
            error_kind: attempt.error_kind.clone(),
            duration_ms: attempt.duration_ms,
        }
    }
}

impl From<&Delivery> for DeliveryResource {
    fn from(delivery: &Delivery) -> Self {
        Self {
            id: delivery.id.to_string(),
            event_id: delivery.event_id.to_string(),
            event_type: delivery.event_type.as_str().to_owned(),
            status: delivery.status.as_str().to_owned(),
            next_attempt_at: delivery.next_attempt_at.map(time),
            created_at: time(delivery.created_at),
            attempts: delivery
                .attempts
                .iter()
                .map(DeliveryAttemptResource::from)
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_tells_null_from_absent() {
        let absent: UpdateWebhookRequest = serde_json::from_str("{}").unwrap();
        assert_eq!(absent.description, None);
        let cleared: UpdateWebhookRequest = serde_json::from_str(r#"{"description":null}"#).unwrap();
        assert_eq!(cleared.description, Some(None));
        let set: UpdateWebhookRequest = serde_json::from_str(r#"{"description":"x"}"#).unwrap();
        assert_eq!(set.description, Some(Some("x".to_owned())));
    }
}
