//! Customer webhooks (docs/api.md §9): endpoints, deliveries and their attempts, and the rules the use cases
//! apply (plan limits, secret rotation, auto-disable). The ports that store and send them are in
//! [`crate::ports`].

use crate::customer_event::CustomerEventType;
use crate::dispatch::ClaimToken;
use crate::error::InvalidValue;
use crate::ids::{DeliveryId, EventId, OrganizationId, WebhookId};
use crate::organization::SealedSecret;
use crate::time::{Duration, Timestamp};

/// An endpoint's URL: absolute `https://` (or `http://`, which the destination rules may refuse), at most
/// 2,048 characters, no credentials, no fragment. Whether its host may be reached is the destination
/// checker's business, at registration and at every delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookUrl(String);

impl WebhookUrl {
    /// # Errors
    /// [`InvalidValue`] when the URL is not an absolute http(s) URL with a host.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        // `http://` passes here and is refused (or, in development, allowed) by the destination rules, so the
        // message names both.
        let invalid = || {
            InvalidValue::new("must be an absolute https:// URL (http:// only where the server allows it)")
        };
        let rest = value
            .strip_prefix("https://")
            .or_else(|| value.strip_prefix("http://"))
            .ok_or_else(invalid)?;
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        if authority.is_empty()
            || value.len() > 2048
            || value.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(invalid());
        }
        if authority.contains('@') {
            return Err(InvalidValue::new("must not carry credentials (user:password@)"));
        }
        if value.contains('#') {
            return Err(InvalidValue::new("must not have a fragment"));
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Which events an endpoint receives. `webhook.test` always goes to the endpoint it was sent to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventSelection {
    pub message_status: bool,
    pub message_failed: bool,
    pub message_inbound: bool,
    pub template_status: bool,
    pub template_quality: bool,
    pub template_category: bool,
    pub sender_quality: bool,
    pub account_update: bool,
    pub contact_preferences: bool,
    pub broadcast_progress: bool,
    pub broadcast_completed: bool,
    pub contact_erased: bool,
}

impl EventSelection {
    /// `events` omitted means all.
    pub const ALL: Self = Self {
        message_status: true,
        message_failed: true,
        message_inbound: true,
        template_status: true,
        template_quality: true,
        template_category: true,
        sender_quality: true,
        account_update: true,
        contact_preferences: true,
        broadcast_progress: true,
        broadcast_completed: true,
        contact_erased: true,
    };

    /// Nothing (not a valid selection by itself: the base to build one on).
    pub const NONE: Self = Self {
        message_status: false,
        message_failed: false,
        message_inbound: false,
        template_status: false,
        template_quality: false,
        template_category: false,
        sender_quality: false,
        account_update: false,
        contact_preferences: false,
        broadcast_progress: false,
        broadcast_completed: false,
        contact_erased: false,
    };

    /// # Errors
    /// [`InvalidValue`] for an unknown event name or an empty list.
    pub fn parse(names: &[&str]) -> Result<Self, InvalidValue> {
        let mut selection = Self::NONE;
        for name in names {
            let kind = CustomerEventType::parse(name)
                .filter(|kind| *kind != CustomerEventType::WebhookTest)
                .ok_or_else(|| {
                    let known: Vec<&str> = CustomerEventType::SUBSCRIBABLE
                        .iter()
                        .map(|kind| kind.as_str())
                        .collect();
                    InvalidValue::new(format!("unknown event `{name}`; use {}", known.join(", ")))
                })?;
            *selection.flag(kind) = true;
        }
        if selection.names().is_empty() {
            return Err(InvalidValue::new("must name at least one event"));
        }
        Ok(selection)
    }

    /// The flag of a subscribable kind; `webhook.test` has none (a scratch flag nobody reads).
    fn flag(&mut self, event: CustomerEventType) -> &mut bool {
        match event {
            CustomerEventType::MessageStatus => &mut self.message_status,
            CustomerEventType::MessageFailed => &mut self.message_failed,
            CustomerEventType::MessageInbound => &mut self.message_inbound,
            CustomerEventType::TemplateStatus => &mut self.template_status,
            CustomerEventType::TemplateQuality => &mut self.template_quality,
            CustomerEventType::TemplateCategory => &mut self.template_category,
            CustomerEventType::SenderQuality => &mut self.sender_quality,
            CustomerEventType::ContactPreferences => &mut self.contact_preferences,
            CustomerEventType::BroadcastProgress => &mut self.broadcast_progress,
            CustomerEventType::BroadcastCompleted => &mut self.broadcast_completed,
            CustomerEventType::ContactErased => &mut self.contact_erased,
            CustomerEventType::AccountUpdate | CustomerEventType::WebhookTest => &mut self.account_update,
        }
    }

    pub fn includes(&self, event: CustomerEventType) -> bool {
        match event {
            CustomerEventType::WebhookTest => true,
            kind => {
                let mut copy = *self;
                *copy.flag(kind)
            }
        }
    }

    /// The names of the selected kinds, in the order of [`CustomerEventType::SUBSCRIBABLE`].
    pub fn names(&self) -> Vec<&'static str> {
        CustomerEventType::SUBSCRIBABLE
            .into_iter()
            .filter(|kind| self.includes(*kind))
            .map(CustomerEventType::as_str)
            .collect()
    }
}

/// A customer's endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookEndpoint {
    pub id: WebhookId,
    pub organization_id: OrganizationId,
    pub url: WebhookUrl,
    pub events: EventSelection,
    pub description: Option<String>,
    pub enabled: bool,
    /// Why it was disabled, when Herald disabled it (`failing since … for 5 days`), or `None`.
    pub disabled_reason: Option<String>,
    /// The signing secret (`whsec_…`), sealed.
    pub secret: SealedSecret,
    /// The secret before the last rotation, still signing until `previous_secret_expires_at`.
    pub previous_secret: Option<SealedSecret>,
    pub previous_secret_expires_at: Option<Timestamp>,
    /// Since when every attempt to it failed (`None` while it answers).
    pub failing_since: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl WebhookEndpoint {
    /// Drops the secret before the last rotation once its overlap has ended at `now`: it no longer signs,
    /// and no rotation is in progress any more.
    pub fn forget_expired_rotation(&mut self, now: Timestamp) {
        if self.previous_secret_expires_at.is_some_and(|until| until <= now) {
            self.previous_secret = None;
            self.previous_secret_expires_at = None;
        }
    }
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeliveryStatus {
    /// Waiting for its next attempt (or being attempted).
    Pending,
    Succeeded,
    /// Every scheduled attempt failed.
    Failed,
    /// The endpoint was disabled when the event happened; `recover` can queue it.
    Skipped,
}

impl DeliveryStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Skipped => "skipped",
        }
    }

    /// # Errors
    /// [`InvalidValue`] for an unknown status.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        match value {
            "pending" => Ok(Self::Pending),
            "succeeded" => Ok(Self::Succeeded),
            "failed" => Ok(Self::Failed),
            "skipped" => Ok(Self::Skipped),
            other => Err(InvalidValue::new(format!("unknown delivery status `{other}`"))),
        }
    }
}

/// One attempt of one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryAttempt {
    /// 1 for the first attempt.
    pub number: u32,
    pub at: Timestamp,
    pub status_code: Option<u16>,
    /// The first 1 KiB of the answer, as text.
    pub response_prefix: String,
    /// `timeout`, `connect`, `blocked_destination`, `redirect`, `http_status`, `tls`, or `None` on success.
    pub error_kind: Option<String>,
    pub duration_ms: u64,
}

/// A `webhook.test` customer event to write with its one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestEvent {
    pub event_id: EventId,
    pub delivery_id: DeliveryId,
    pub payload: String,
    pub at: Timestamp,
}

/// One event's delivery to one endpoint, with its attempts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub id: DeliveryId,
    pub organization_id: OrganizationId,
    pub endpoint_id: WebhookId,
    /// The event id: the `webhook-id` header, stable across attempts.
    pub event_id: EventId,
    pub event_type: CustomerEventType,
    pub status: DeliveryStatus,
    pub next_attempt_at: Option<Timestamp>,
    pub attempts: Vec<DeliveryAttempt>,
    pub created_at: Timestamp,
}

/// A delivery claimed for an attempt, with what the attempt needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedDelivery {
    pub delivery_id: DeliveryId,
    pub organization_id: OrganizationId,
    pub endpoint: WebhookEndpoint,
    pub event_id: EventId,
    pub event_type: CustomerEventType,
    /// The event body, exactly as it was first built (every attempt sends the same bytes).
    pub payload: String,
    /// This attempt's number (1 for the first).
    pub attempt_number: u32,
    /// When the delivery was made: with its event, by the fan-out (so the first attempt's lag is measured
    /// from it).
    pub created_at: Timestamp,
    /// The trace of the event's message, when it has one.
    pub trace: Option<crate::trace::TraceContext>,
}

/// How an attempt ended, as the transport reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptReport {
    pub attempt: DeliveryAttempt,
    pub succeeded: bool,
    /// When to try again (the schedule of docs/api.md §9 with jitter, `Retry-After` and the 60 s floor applied);
    /// `None` when the schedule is exhausted.
    pub retry_in: Option<Duration>,
}

/// What to record after an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryCompletion {
    pub delivery_id: DeliveryId,
    pub token: ClaimToken,
    pub attempt: DeliveryAttempt,
    /// `Pending` (with `next_attempt_at`), `Succeeded` or `Failed`.
    pub status: DeliveryStatus,
    pub next_attempt_at: Option<Timestamp>,
    /// The endpoint's health after this attempt: `None` clears `failing_since` (it answered); otherwise the
    /// (kept or new) start of its failing streak.
    pub failing_since: Option<Timestamp>,
    /// Set when this attempt makes Herald disable the endpoint.
    pub disable_reason: Option<String>,
}

/// Changes to an endpoint (`PATCH`): only the fields given change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndpointPatch {
    pub url: Option<WebhookUrl>,
    pub events: Option<EventSelection>,
    /// `Some(None)` clears the description.
    pub description: Option<Option<String>>,
    pub enabled: Option<bool>,
}

impl EndpointPatch {
    /// The patch applied to an endpoint held in memory, as a store applies it to its row: the given fields,
    /// `updated_at`, and a re-enabled endpoint's disable reason and failing streak cleared.
    pub fn apply_to(&self, endpoint: &mut WebhookEndpoint, at: Timestamp) {
        if let Some(url) = &self.url {
            endpoint.url = url.clone();
        }
        if let Some(events) = self.events {
            endpoint.events = events;
        }
        if let Some(description) = &self.description {
            endpoint.description.clone_from(description);
        }
        if let Some(enabled) = self.enabled {
            if enabled && !endpoint.enabled {
                endpoint.disabled_reason = None;
                endpoint.failing_since = None;
            }
            endpoint.enabled = enabled;
        }
        endpoint.updated_at = at;
    }
}

/// Which of an endpoint's two sealed secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretSlot {
    /// The secret that signs now.
    Current,
    /// The secret replaced by the last rotation, signing too until its overlap ends.
    Previous,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_subscribable_kind_parses_and_lists_back_in_order() {
        let all: Vec<&str> = CustomerEventType::SUBSCRIBABLE
            .iter()
            .map(|kind| kind.as_str())
            .collect();
        assert_eq!(EventSelection::parse(&all), Ok(EventSelection::ALL));
        assert_eq!(EventSelection::ALL.names(), all);
        let some = EventSelection::parse(&["account.update", "template.status"]).unwrap();
        assert_eq!(some.names(), ["template.status", "account.update"]);
        assert!(some.includes(CustomerEventType::TemplateStatus));
        assert!(!some.includes(CustomerEventType::TemplateQuality));
        assert!(!some.includes(CustomerEventType::MessageStatus));
        assert!(
            some.includes(CustomerEventType::WebhookTest),
            "a test goes to its endpoint"
        );
    }

    #[test]
    fn unknown_names_webhook_test_and_an_empty_list_are_refused() {
        for names in [&["template.deleted"][..], &["webhook.test"], &[]] {
            assert!(EventSelection::parse(names).is_err(), "{names:?}");
        }
        let error = EventSelection::parse(&["nope"]).unwrap_err();
        assert!(error.0.contains("sender.quality"), "{}", error.0);
    }

    #[test]
    fn a_url_of_another_scheme_is_refused_with_a_message_that_names_both_allowed_ones() {
        for url in ["ftp://x", "x.example/hook", "//x.example/hook"] {
            let error = WebhookUrl::parse(url).unwrap_err();
            assert!(
                error.0.contains("https://") && error.0.contains("http://"),
                "{url}: {}",
                error.0
            );
        }
        for url in ["https://x.example/hook", "http://x.example/hook"] {
            assert_eq!(
                WebhookUrl::parse(url).map(|u| u.as_str().to_owned()),
                Ok(url.to_owned())
            );
        }
    }
}
