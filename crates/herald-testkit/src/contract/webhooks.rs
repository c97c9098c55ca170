//! `WebhookStore`: endpoints scoped by organization, the fan-out of customer events into deliveries,
//! claiming under leases with a per-endpoint cap, and recording attempts.

use super::outbox::{claim, completion, events_of, token};
use super::{Ports, accept_ok, new_organization, new_organization_with_sender};
use crate::fixtures::{accept_request, at, inbound_record, next_ulid, text_message, webhook_endpoint};
use chrono::TimeDelta;
use herald_domain::Timestamp;
use herald_domain::content::MessageRef;
use herald_domain::customer_event::CustomerEventType;
use herald_domain::dispatch::{ClaimToken, JobOutcome};
use herald_domain::ids::{DeliveryId, EventId, InboundId, OrganizationId, WebhookId};
use herald_domain::message::{EventSource, Message, MessageError, MessageStatus};
use herald_domain::organization::{Organization, SealedSecret, SenderNumber};
use herald_domain::ports::StoreError;
use herald_domain::status::StatusReport;
use herald_domain::status::StatusUpdate;
use herald_domain::webhook::{
    ClaimedDelivery, Delivery, DeliveryAttempt, DeliveryCompletion, DeliveryStatus, EndpointPatch,
    EventSelection, SecretSlot, TestEvent, WebhookEndpoint, WebhookUrl,
};
use std::collections::{HashMap, HashSet};

const ONLY_STATUS: EventSelection = EventSelection {
    message_status: true,
    message_failed: false,
    message_inbound: false,
    ..EventSelection::NONE
};
const ONLY_FAILED: EventSelection = EventSelection {
    message_status: false,
    message_failed: true,
    message_inbound: false,
    ..EventSelection::NONE
};
const ONLY_INBOUND: EventSelection = EventSelection {
    message_status: false,
    message_failed: false,
    message_inbound: true,
    ..EventSelection::NONE
};

/// Creates an endpoint of `organization` created at `at(created)`.
pub(super) async fn new_endpoint(
    ports: &Ports,
    organization: &Organization,
    events: EventSelection,
    created: i64,
) -> WebhookEndpoint {
    let endpoint = webhook_endpoint(organization.id, events, at(created));
    let created = ports
        .webhooks
        .create_endpoint(&endpoint, 100)
        .await
        .expect("create_endpoint of a new endpoint of an existing organization must succeed");
    assert!(created, "below the limit an endpoint is created");
    endpoint
}

async fn set_enabled(ports: &Ports, endpoint: &mut WebhookEndpoint, enabled: bool) {
    let patch = EndpointPatch {
        enabled: Some(enabled),
        ..EndpointPatch::default()
    };
    patch.apply_to(endpoint, endpoint.updated_at);
    ports
        .webhooks
        .patch_endpoint(
            &endpoint.organization_id,
            &endpoint.id,
            &patch,
            endpoint.updated_at,
        )
        .await
        .expect("patch_endpoint of an existing endpoint");
}

async fn deliveries_of(ports: &Ports, endpoint: &WebhookEndpoint) -> Vec<Delivery> {
    ports
        .webhooks
        .deliveries(&endpoint.organization_id, &endpoint.id, None, None, 200)
        .await
        .expect("deliveries")
}

async fn claim_deliveries(
    ports: &Ports,
    token: ClaimToken,
    now: Timestamp,
    limit: u32,
    cap: u32,
) -> Vec<ClaimedDelivery> {
    ports
        .webhooks
        .claim_deliveries(&token, now, now + TimeDelta::seconds(60), limit, cap)
        .await
        .expect("claim_deliveries")
}

async fn complete(ports: &Ports, completion: &DeliveryCompletion) -> bool {
    ports
        .webhooks
        .complete_delivery(completion)
        .await
        .expect("complete_delivery")
}

/// `complete_deliveries`: whether each completion of the batch held its delivery.
async fn complete_all(ports: &Ports, batch: &[DeliveryCompletion]) -> Vec<bool> {
    ports
        .webhooks
        .complete_deliveries(batch)
        .await
        .expect("complete_deliveries")
}

/// A new accepted message of the organization's sender.
pub(super) async fn accepted(ports: &Ports, org: &Organization, sender: &SenderNumber) -> Message {
    let message = text_message(org.id, sender, "+15551234567", at(0));
    accept_ok(ports, &accept_request(&message, None, None)).await;
    message
}

/// Applies a network report of `status` recorded at `recorded_at`; answers the customer event's id.
pub(super) async fn status_event(
    ports: &Ports,
    message: &Message,
    status: MessageStatus,
    recorded_at: Timestamp,
) -> EventId {
    let customer_event_id = EventId::from_ulid(next_ulid());
    let error = (status == MessageStatus::Failed).then(|| MessageError {
        code: "recipient_unreachable".to_owned(),
        title: "Recipient unreachable".to_owned(),
        detail: "not on the network".to_owned(),
        network_code: Some(131_026),
    });
    ports
        .tracking
        .apply_status(&StatusUpdate {
            organization_id: message.organization_id,
            message_id: message.id,
            report: StatusReport {
                status,
                occurred_at: recorded_at - TimeDelta::seconds(1),
                error,
            },
            network_message_id: Some(format!("wamid.{}", message.id)),
            source: EventSource::Network,
            event_id: EventId::from_ulid(next_ulid()),
            customer_event_id,
            recorded_at,
            pricing: None,
        })
        .await
        .expect("apply_status")
        .expect("the message exists");
    customer_event_id
}

/// Records an inbound message to `sender` at `recorded_at`; answers the customer event's id.
async fn inbound_event(
    ports: &Ports,
    org: &Organization,
    sender: &SenderNumber,
    recorded_at: Timestamp,
) -> EventId {
    let record = inbound_record(
        org.id,
        sender,
        InboundId::from_ulid(next_ulid()),
        recorded_at - TimeDelta::seconds(1),
        recorded_at,
    );
    let recorded = ports
        .tracking
        .record_inbound_message(&record)
        .await
        .expect("record_inbound_message");
    assert!(recorded, "a new inbound message is recorded");
    record.customer_event_id
}

/// Sends a test event to `endpoint` at `when`; answers the event and delivery ids.
async fn test_event(ports: &Ports, endpoint: &WebhookEndpoint, when: Timestamp) -> (EventId, DeliveryId) {
    let event_id = EventId::from_ulid(next_ulid());
    let delivery_id = DeliveryId::from_ulid(next_ulid());
    let test = TestEvent {
        event_id,
        delivery_id,
        payload: format!(r#"{{"type":"webhook.test","data":{{"event_id":"{event_id}"}}}}"#),
        at: when,
    };
    let recorded = ports
        .webhooks
        .record_test_event(&endpoint.organization_id, &endpoint.id, &test, u32::MAX)
        .await
        .expect("record_test_event on an existing endpoint");
    assert!(recorded, "record_test_event with no cap records");
    (event_id, delivery_id)
}

fn attempt(number: u32, when: Timestamp, status_code: Option<u16>) -> DeliveryAttempt {
    DeliveryAttempt {
        number,
        at: when,
        status_code,
        response_prefix: match status_code {
            Some(code) => format!("answer {code} ✓"),
            None => String::new(),
        },
        error_kind: match status_code {
            Some(code) if (200..300).contains(&code) => None,
            Some(_) => Some("http_status".to_owned()),
            None => Some("timeout".to_owned()),
        },
        duration_ms: 1_234,
    }
}

/// A completion of `claimed` under `token`: a success, or a failure to retry at `retry` (`None`: failed).
fn outcome(
    claimed: &ClaimedDelivery,
    token: ClaimToken,
    when: Timestamp,
    succeeded: bool,
    retry: Option<Timestamp>,
    failing_since: Option<Timestamp>,
) -> DeliveryCompletion {
    let (status, next_attempt_at) = if succeeded {
        (DeliveryStatus::Succeeded, None)
    } else if retry.is_some() {
        (DeliveryStatus::Pending, retry)
    } else {
        (DeliveryStatus::Failed, None)
    };
    DeliveryCompletion {
        delivery_id: claimed.delivery_id,
        token,
        attempt: attempt(
            claimed.attempt_number,
            when,
            Some(if succeeded { 200 } else { 500 }),
        ),
        status,
        next_attempt_at,
        failing_since,
        disable_reason: None,
    }
}

/// The stored endpoint `id` of `organization`, which must exist.
async fn stored_endpoint(ports: &Ports, organization: OrganizationId, id: WebhookId) -> WebhookEndpoint {
    ports
        .webhooks
        .endpoint(&organization, &id)
        .await
        .expect("endpoint")
        .expect("exists")
}

/// The delivery `id` of a claim, which must have taken it.
fn claimed_as(claimed: &[ClaimedDelivery], id: DeliveryId) -> ClaimedDelivery {
    claimed
        .iter()
        .find(|c| c.delivery_id == id)
        .cloned()
        .expect("the claim took the delivery")
}

/// The delivery `id` among `deliveries`, which must hold it.
fn delivery_in(deliveries: &[Delivery], id: DeliveryId) -> Delivery {
    deliveries
        .iter()
        .find(|d| d.id == id)
        .cloned()
        .expect("the delivery exists")
}

fn ids_of(claimed: &[ClaimedDelivery]) -> HashSet<DeliveryId> {
    claimed.iter().map(|c| c.delivery_id).collect()
}

/// Endpoints read back as created and updated, oldest first; another organization sees none of them and
/// can neither change nor delete them.
pub async fn webhooks_endpoints_crud_and_isolation(ports: Ports) {
    let org = new_organization(&ports, "business").await;
    let other = new_organization(&ports, "business").await;
    let second = new_endpoint(&ports, &org, ONLY_STATUS, 20).await;
    let first = new_endpoint(&ports, &org, EventSelection::ALL, 10).await;
    assert_eq!(
        ports.webhooks.endpoints(&org.id).await.expect("endpoints"),
        vec![first.clone(), second.clone()],
        "endpoints are listed oldest first and read back exactly as created"
    );
    assert_eq!(
        ports
            .webhooks
            .endpoint(&org.id, &first.id)
            .await
            .expect("endpoint"),
        Some(first.clone())
    );

    let url = WebhookUrl::parse("https://new.acme.test/hooks?v=2").expect("url");
    let patch = EndpointPatch {
        url: Some(url.clone()),
        events: Some(ONLY_INBOUND),
        description: Some(None),
        enabled: Some(false),
    };
    ports
        .webhooks
        .patch_endpoint(&org.id, &first.id, &patch, at(40))
        .await
        .expect("patch_endpoint");
    let secret = SealedSecret::new(vec![0, 1, 2, 254, 255]);
    ports
        .webhooks
        .rotate_endpoint_secret(&org.id, &first.id, &secret, at(86_400), at(41))
        .await
        .expect("rotate_endpoint_secret");
    let mut changed = first.clone();
    changed.url = url;
    changed.events = ONLY_INBOUND;
    changed.description = None;
    changed.enabled = false;
    changed.previous_secret = Some(first.secret.clone());
    changed.previous_secret_expires_at = Some(at(86_400));
    changed.secret = secret;
    changed.updated_at = at(41);
    assert_eq!(
        ports
            .webhooks
            .endpoint(&org.id, &first.id)
            .await
            .expect("endpoint"),
        Some(changed.clone()),
        "a patch writes the given fields, a rotation moves the secret to previous"
    );

    assert_eq!(
        ports
            .webhooks
            .endpoint(&other.id, &first.id)
            .await
            .expect("endpoint"),
        None,
        "another organization's endpoint is not found"
    );
    assert!(
        ports
            .webhooks
            .endpoints(&other.id)
            .await
            .expect("endpoints")
            .is_empty()
    );
    let stolen = EndpointPatch {
        description: Some(Some("stolen".to_owned())),
        ..EndpointPatch::default()
    };
    assert!(
        matches!(
            ports
                .webhooks
                .patch_endpoint(&other.id, &second.id, &stolen, at(50))
                .await,
            Err(StoreError::NotFound)
        ),
        "patching through another organization is NotFound"
    );
    assert!(
        matches!(
            ports
                .webhooks
                .rotate_endpoint_secret(&other.id, &second.id, &first.secret, at(9), at(50))
                .await,
            Err(StoreError::NotFound)
        ),
        "rotating through another organization is NotFound"
    );
    assert!(matches!(
        ports.webhooks.delete_endpoint(&other.id, &second.id).await,
        Err(StoreError::NotFound)
    ));
    assert_eq!(
        ports
            .webhooks
            .endpoint(&org.id, &second.id)
            .await
            .expect("endpoint"),
        Some(second.clone()),
        "refused changes leave the endpoint as it was"
    );

    ports
        .webhooks
        .delete_endpoint(&org.id, &second.id)
        .await
        .expect("delete_endpoint");
    assert_eq!(
        ports.webhooks.endpoints(&org.id).await.expect("endpoints"),
        vec![changed]
    );
    assert!(matches!(
        ports.webhooks.delete_endpoint(&org.id, &second.id).await,
        Err(StoreError::NotFound)
    ));
    let unknown = webhook_endpoint(org.id, EventSelection::ALL, at(0));
    assert!(matches!(
        ports
            .webhooks
            .patch_endpoint(&org.id, &unknown.id, &EndpointPatch::default(), at(60))
            .await,
        Err(StoreError::NotFound)
    ));
}

/// Creates count and insert in one transaction: however many run at once, the organization ends with
/// exactly `limit` endpoints, and a create at the limit answers `false` and writes nothing.
pub async fn webhooks_creates_stop_at_the_limit_even_when_concurrent(ports: Ports) {
    let (org, _) = new_organization_with_sender(&ports, "business").await;
    let attempts = (0..8).map(|n| {
        let endpoint = webhook_endpoint(org.id, EventSelection::ALL, at(n));
        let webhooks = ports.webhooks.clone();
        async move {
            webhooks
                .create_endpoint(&endpoint, 3)
                .await
                .expect("create_endpoint")
        }
    });
    let created = futures::future::join_all(attempts).await;
    assert_eq!(created.iter().filter(|c| **c).count(), 3, "{created:?}");
    assert_eq!(
        ports.webhooks.endpoints(&org.id).await.expect("endpoints").len(),
        3
    );
    let late = webhook_endpoint(org.id, EventSelection::ALL, at(9));
    assert!(
        !ports
            .webhooks
            .create_endpoint(&late, 3)
            .await
            .expect("create_endpoint")
    );
    assert_eq!(
        ports.webhooks.endpoints(&org.id).await.expect("endpoints").len(),
        3
    );
}

/// A patch writes only its fields: a rotation that happened after the patcher read the endpoint keeps
/// its secrets, and an endpoint disabled meanwhile stays disabled when only its description changes.
pub async fn webhooks_patch_and_rotation_keep_each_others_changes(ports: Ports) {
    let (org, _) = new_organization_with_sender(&ports, "business").await;
    let endpoint = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let rotated = SealedSecret::new(vec![9, 9, 9]);
    ports
        .webhooks
        .rotate_endpoint_secret(&org.id, &endpoint.id, &rotated, at(86_400), at(2))
        .await
        .expect("rotate_endpoint_secret");
    let disable = EndpointPatch {
        enabled: Some(false),
        ..EndpointPatch::default()
    };
    ports
        .webhooks
        .patch_endpoint(&org.id, &endpoint.id, &disable, at(3))
        .await
        .expect("patch_endpoint");
    let describe = EndpointPatch {
        description: Some(Some("renamed".to_owned())),
        ..EndpointPatch::default()
    };
    ports
        .webhooks
        .patch_endpoint(&org.id, &endpoint.id, &describe, at(4))
        .await
        .expect("patch_endpoint");
    let stored = ports
        .webhooks
        .endpoint(&org.id, &endpoint.id)
        .await
        .expect("endpoint")
        .expect("it exists");
    assert_eq!(stored.secret, rotated, "the rotation's secret is kept");
    assert_eq!(stored.previous_secret, Some(endpoint.secret.clone()));
    assert!(!stored.enabled, "the description patch did not enable it again");
    assert_eq!(stored.description.as_deref(), Some("renamed"));
    assert_eq!(stored.updated_at, at(4));
}

/// `replace_endpoint_secret` is a compare and set on the slot it names: it writes only while that slot
/// holds the expected value, answers whether it wrote, leaves the other slot, `updated_at`, other endpoints
/// and other organizations' endpoints alone.
pub async fn webhooks_replace_endpoint_secret_compares_and_sets(ports: Ports) {
    let (org, _) = new_organization_with_sender(&ports, "business").await;
    let (other, _) = new_organization_with_sender(&ports, "business").await;
    let endpoint = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let untouched = new_endpoint(&ports, &org, EventSelection::ALL, 2).await;
    let fresh = new_endpoint(&ports, &org, EventSelection::ALL, 3).await;
    let rotated = SealedSecret::new(vec![9, 9, 9]);
    ports
        .webhooks
        .rotate_endpoint_secret(&org.id, &endpoint.id, &rotated, at(86_400), at(2))
        .await
        .expect("rotate_endpoint_secret");
    let read = |id: WebhookId| {
        let webhooks = ports.webhooks.clone();
        async move {
            webhooks
                .endpoint(&org.id, &id)
                .await
                .expect("endpoint")
                .expect("it exists")
        }
    };
    let replace = |org_id, id, which, expected: SealedSecret, new: SealedSecret| {
        let webhooks = ports.webhooks.clone();
        async move {
            webhooks
                .replace_endpoint_secret(&org_id, &id, which, &expected, &new)
                .await
                .expect("replace_endpoint_secret")
        }
    };
    let before = read(endpoint.id).await;
    assert_eq!(before.previous_secret, Some(endpoint.secret.clone()));
    let new_current = SealedSecret::new(vec![0, 0x48, 0x53, 0x02, 1]);
    let new_previous = SealedSecret::new(vec![0, 0x48, 0x53, 0x02, 2]);

    assert!(
        !replace(
            org.id,
            endpoint.id,
            SecretSlot::Current,
            endpoint.secret.clone(),
            new_current.clone()
        )
        .await,
        "the current secret is no longer the expected one (it was rotated): false"
    );
    assert!(
        !replace(
            org.id,
            endpoint.id,
            SecretSlot::Previous,
            rotated.clone(),
            new_previous.clone()
        )
        .await,
        "the previous slot does not hold the expected value: false"
    );
    assert!(
        !replace(
            other.id,
            endpoint.id,
            SecretSlot::Current,
            rotated.clone(),
            new_current.clone()
        )
        .await,
        "another organization's endpoint: false"
    );
    assert!(
        !replace(
            org.id,
            fresh.id,
            SecretSlot::Previous,
            fresh.secret.clone(),
            new_previous.clone()
        )
        .await,
        "an endpoint without a previous secret: false"
    );
    assert_eq!(
        read(endpoint.id).await,
        before,
        "a refused replace changes nothing"
    );
    assert_eq!(read(fresh.id).await, fresh, "a refused replace changes nothing");

    assert!(
        replace(
            org.id,
            endpoint.id,
            SecretSlot::Current,
            rotated.clone(),
            new_current.clone()
        )
        .await
    );
    let after = read(endpoint.id).await;
    assert_eq!(after.secret, new_current, "the current secret is replaced");
    assert_eq!(
        after.previous_secret, before.previous_secret,
        "the previous one is not"
    );
    assert_eq!(after.updated_at, before.updated_at, "updated_at is not touched");

    assert!(
        replace(
            org.id,
            endpoint.id,
            SecretSlot::Previous,
            endpoint.secret.clone(),
            new_previous.clone()
        )
        .await
    );
    let after = read(endpoint.id).await;
    assert_eq!(after.secret, new_current);
    assert_eq!(after.previous_secret, Some(new_previous));
    assert_eq!(
        after.previous_secret_expires_at,
        before.previous_secret_expires_at
    );
    assert_eq!(after.updated_at, before.updated_at);
    assert!(
        !replace(
            org.id,
            endpoint.id,
            SecretSlot::Current,
            rotated,
            SealedSecret::new(vec![1])
        )
        .await,
        "a second replace from the old value must lose"
    );
    assert_eq!(read(endpoint.id).await.secret, new_current);
    assert_eq!(
        read(untouched.id).await,
        untouched,
        "another endpoint is untouched"
    );
}

/// Every customer event fans out to exactly the organization's subscribed endpoints, in the transaction
/// that writes it: pending and due at the event's recording time for enabled ones, skipped for disabled
/// ones; other organizations' endpoints get nothing. This holds for status reports, outbox outcomes and
/// inbound messages.
pub async fn webhooks_fan_out_follows_subscriptions(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "business").await;
    let (other, other_sender) = new_organization_with_sender(&ports, "business").await;
    let all = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let status_only = new_endpoint(&ports, &org, ONLY_STATUS, 2).await;
    let failed_only = new_endpoint(&ports, &org, ONLY_FAILED, 3).await;
    let inbound_only = new_endpoint(&ports, &org, ONLY_INBOUND, 4).await;
    let mut disabled = new_endpoint(&ports, &org, EventSelection::ALL, 5).await;
    set_enabled(&ports, &mut disabled, false).await;
    let foreign = new_endpoint(&ports, &other, EventSelection::ALL, 6).await;

    // message.status via a status report.
    let message = accepted(&ports, &org, &sender).await;
    let submitted = status_event(&ports, &message, MessageStatus::Submitted, at(100)).await;
    // message.failed via a status report.
    let doomed = accepted(&ports, &org, &sender).await;
    let failed = status_event(&ports, &doomed, MessageStatus::Failed, at(101)).await;
    // message.inbound.
    let inbound = inbound_event(&ports, &org, &sender, at(102)).await;
    // message.status via the outbox (complete_job writes its event through the same path).
    let sent_by_worker = accepted(&ports, &org, &sender).await;
    let worker = token();
    let jobs = claim(&ports, worker, at(103), 10).await;
    let job = jobs
        .iter()
        .find(|j| j.message.id == sent_by_worker.id)
        .expect("the new message's job is due");
    let mut done = completion(
        job,
        worker,
        JobOutcome::Submitted {
            network_message_id: "wamid.worker".to_owned(),
            route: herald_domain::marketing::NetworkRoute::CloudApi,
        },
        at(104),
    );
    done.customer_event_id = EventId::from_ulid(next_ulid());
    assert!(ports.outbox.complete_job(&done).await.expect("complete_job"));
    let by_worker = done.customer_event_id;

    let events: HashMap<EventId, (CustomerEventType, Timestamp)> = events_of(&ports, &org)
        .await
        .into_iter()
        .map(|e| (e.id, (e.event_type, e.created_at)))
        .collect();
    for (event, expected) in [
        (submitted, CustomerEventType::MessageStatus),
        (failed, CustomerEventType::MessageFailed),
        (inbound, CustomerEventType::MessageInbound),
        (by_worker, CustomerEventType::MessageStatus),
    ] {
        assert_eq!(
            events.get(&event).map(|e| e.0),
            Some(expected),
            "the producing call wrote its customer event"
        );
    }

    let expect = |endpoint: &WebhookEndpoint, wanted: &[EventId]| {
        let wanted: HashSet<EventId> = wanted.iter().copied().collect();
        let endpoint = endpoint.clone();
        let events = events.clone();
        let ports = ports.clone();
        async move {
            let deliveries = deliveries_of(&ports, &endpoint).await;
            let got: HashSet<EventId> = deliveries.iter().map(|d| d.event_id).collect();
            assert_eq!(
                got, wanted,
                "endpoint subscribed to {:?} (enabled: {}) must get exactly one delivery per matching event",
                endpoint.events, endpoint.enabled
            );
            assert_eq!(got.len(), deliveries.len(), "one delivery per (endpoint, event)");
            for delivery in deliveries {
                let (event_type, created_at) = events[&delivery.event_id];
                assert_eq!(delivery.event_type, event_type);
                assert_eq!(delivery.organization_id, endpoint.organization_id);
                assert_eq!(delivery.endpoint_id, endpoint.id);
                assert!(delivery.attempts.is_empty());
                assert_eq!(delivery.created_at, created_at);
                assert!(delivery.id.to_string().starts_with("dlv_"));
                if endpoint.enabled {
                    assert_eq!(delivery.status, DeliveryStatus::Pending);
                    assert_eq!(
                        delivery.next_attempt_at,
                        Some(created_at),
                        "a fanned-out delivery is due at its event's recording time"
                    );
                } else {
                    assert_eq!(
                        delivery.status,
                        DeliveryStatus::Skipped,
                        "a disabled endpoint's delivery is recorded as skipped"
                    );
                }
            }
        }
    };
    expect(&all, &[submitted, failed, inbound, by_worker]).await;
    expect(&status_only, &[submitted, by_worker]).await;
    expect(&failed_only, &[failed]).await;
    expect(&inbound_only, &[inbound]).await;
    expect(&disabled, &[submitted, failed, inbound, by_worker]).await;
    expect(&foreign, &[]).await;

    // The other organization's own events reach only its own endpoint.
    let theirs = accepted(&ports, &other, &other_sender).await;
    let their_event = status_event(&ports, &theirs, MessageStatus::Submitted, at(105)).await;
    let foreign_deliveries = deliveries_of(&ports, &foreign).await;
    assert_eq!(
        foreign_deliveries.iter().map(|d| d.event_id).collect::<Vec<_>>(),
        vec![their_event]
    );
    assert_eq!(deliveries_of(&ports, &all).await.len(), 4);
}

/// An event no endpoint subscribes to creates no delivery, and nothing becomes claimable.
pub async fn webhooks_event_without_subscribers_creates_no_delivery(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "business").await;
    let inbound_only = new_endpoint(&ports, &org, ONLY_INBOUND, 1).await;
    let (bare, bare_sender) = new_organization_with_sender(&ports, "business").await;
    let message = accepted(&ports, &org, &sender).await;
    status_event(&ports, &message, MessageStatus::Submitted, at(10)).await;
    let bare_message = accepted(&ports, &bare, &bare_sender).await;
    status_event(&ports, &bare_message, MessageStatus::Submitted, at(11)).await;
    inbound_event(&ports, &bare, &bare_sender, at(12)).await;

    assert_eq!(
        events_of(&ports, &org).await.len(),
        1,
        "the event itself is written"
    );
    assert!(deliveries_of(&ports, &inbound_only).await.is_empty());
    assert!(
        claim_deliveries(&ports, token(), at(100_000), 100, 4)
            .await
            .is_empty(),
        "no delivery exists anywhere"
    );
}

/// Claims take only due deliveries of enabled endpoints, never more than the cap per endpoint counting
/// live leases, so a backlogged endpoint does not hold back another's; leased deliveries come back only
/// after their lease expires.
pub async fn webhooks_claim_respects_due_time_leases_and_cap(ports: Ports) {
    let org = new_organization(&ports, "business").await;
    let slow = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let other = new_endpoint(&ports, &org, EventSelection::ALL, 2).await;
    let mut off = new_endpoint(&ports, &org, EventSelection::ALL, 3).await;
    let mut slow_ids = Vec::new();
    for i in 0..10 {
        slow_ids.push(test_event(&ports, &slow, at(100 + i)).await.1);
    }
    let mut other_ids = Vec::new();
    for i in 0..3 {
        other_ids.push(test_event(&ports, &other, at(110 + i)).await.1);
    }
    test_event(&ports, &off, at(100)).await;
    set_enabled(&ports, &mut off, false).await;

    assert!(
        claim_deliveries(&ports, token(), at(99), 100, 4).await.is_empty(),
        "nothing is due before its next_attempt_at"
    );
    // Leased until 161.
    let early = claim_deliveries(&ports, token(), at(101), 100, 4).await;
    assert_eq!(
        ids_of(&early),
        slow_ids[..2].iter().copied().collect(),
        "exactly the deliveries due at `now` (inclusive) are claimed"
    );

    // The two early leases count against the cap of 4: two more of `slow`, and all three of `other`.
    // Leased until 210.
    let round = claim_deliveries(&ports, token(), at(150), 100, 4).await;
    let expected: HashSet<DeliveryId> = slow_ids[2..4].iter().chain(other_ids.iter()).copied().collect();
    assert_eq!(
        ids_of(&round),
        expected,
        "a backlogged endpoint gets only up to the cap (live leases included); the other endpoint's \
         deliveries are claimed in the same round; a disabled endpoint's are not"
    );
    let claimed = round
        .iter()
        .find(|c| c.delivery_id == other_ids[0])
        .expect("claimed");
    assert_eq!(
        claimed.endpoint, other,
        "the claim carries the endpoint as stored"
    );
    assert_eq!(claimed.organization_id, org.id);
    assert_eq!(claimed.event_type, CustomerEventType::WebhookTest);
    assert_eq!(claimed.attempt_number, 1);
    assert!(
        claimed.payload.contains(&claimed.event_id.to_string()),
        "the claim carries its event's body: {}",
        claimed.payload
    );

    assert!(
        claim_deliveries(&ports, token(), at(151), 100, 4)
            .await
            .is_empty(),
        "while leases live, a second claim gets nothing"
    );

    let after_early = claim_deliveries(&ports, token(), at(162), 100, 4).await;
    assert_eq!(
        ids_of(&after_early),
        slow_ids[..2].iter().copied().collect(),
        "expired leases give their deliveries back; live ones still fill the cap"
    );
    let after_all = claim_deliveries(&ports, token(), at(300), 100, 4).await;
    assert_eq!(
        after_all.len(),
        7,
        "after every lease expired: 4 of slow and 3 of other"
    );
    let limited = claim_deliveries(&ports, token(), at(400), 5, 4).await;
    assert_eq!(limited.len(), 5, "the limit holds");
    let count = |claimed: &[ClaimedDelivery], endpoint: &WebhookEndpoint| {
        claimed.iter().filter(|c| c.endpoint.id == endpoint.id).count()
    };
    assert_eq!(
        (count(&limited, &slow), count(&limited, &other)),
        (4, 1),
        "the oldest due first, within the cap"
    );

    set_enabled(&ports, &mut off, true).await;
    let enabled_again = claim_deliveries(&ports, token(), at(400), 100, 4).await;
    assert_eq!(
        (
            count(&enabled_again, &off),
            count(&enabled_again, &slow),
            count(&enabled_again, &other)
        ),
        (1, 0, 2),
        "once enabled, the endpoint's pending delivery is claimed; live leases still fill the cap"
    );
}

/// A completion under a claim that no longer holds the delivery writes nothing.
pub async fn webhooks_stale_claim_writes_nothing(ports: Ports) {
    let org = new_organization(&ports, "business").await;
    let endpoint = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    test_event(&ports, &endpoint, at(10)).await;
    let first = token();
    let claimed = claim_deliveries(&ports, first, at(10), 10, 4).await;
    assert_eq!(claimed.len(), 1);

    let wrong = outcome(&claimed[0], token(), at(11), true, None, None);
    assert!(
        !complete(&ports, &wrong).await,
        "an unknown token completes nothing"
    );

    // The lease expires and another claim takes the delivery over.
    let second = token();
    let reclaimed = claim_deliveries(&ports, second, at(100), 10, 4).await;
    assert_eq!(ids_of(&reclaimed), ids_of(&claimed));
    assert_eq!(reclaimed[0].attempt_number, 1, "no attempt was recorded yet");
    let stale = outcome(&claimed[0], first, at(101), false, Some(at(200)), Some(at(101)));
    assert!(
        !complete(&ports, &stale).await,
        "the first claim lost the delivery"
    );
    let delivery = &deliveries_of(&ports, &endpoint).await[0];
    assert!(
        delivery.attempts.is_empty(),
        "a stale completion records no attempt"
    );
    assert_eq!(delivery.status, DeliveryStatus::Pending);
    assert_eq!(
        ports
            .webhooks
            .endpoint(&org.id, &endpoint.id)
            .await
            .expect("endpoint")
            .expect("exists")
            .failing_since,
        None,
        "a stale completion leaves the endpoint's health alone"
    );

    let current = outcome(&reclaimed[0], second, at(102), true, None, None);
    assert!(complete(&ports, &current).await);
    assert!(
        !complete(&ports, &current).await,
        "a completed delivery's claim is released: completing twice writes nothing"
    );
    assert_eq!(deliveries_of(&ports, &endpoint).await[0].attempts.len(), 1);
}

/// Completions record attempts in order with every field, move the delivery through its statuses, keep
/// the endpoint's failing streak, and disable the endpoint when asked.
pub async fn webhooks_complete_records_attempts_and_endpoint_health(ports: Ports) {
    let org = new_organization(&ports, "business").await;
    let endpoint = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let (_, retried) = test_event(&ports, &endpoint, at(10)).await;

    let first = token();
    let claimed = claim_deliveries(&ports, first, at(10), 10, 4).await;
    let mut failure = outcome(&claimed[0], first, at(11), false, Some(at(16)), Some(at(10)));
    failure.attempt = attempt(1, at(11), None);
    assert!(complete(&ports, &failure).await);
    let delivery = &deliveries_of(&ports, &endpoint).await[0];
    assert_eq!(delivery.id, retried);
    assert_eq!(delivery.status, DeliveryStatus::Pending);
    assert_eq!(delivery.next_attempt_at, Some(at(16)));
    assert_eq!(delivery.attempts, vec![failure.attempt.clone()]);
    let stored = |ports: Ports| async move {
        ports
            .webhooks
            .endpoint(&org.id, &endpoint.id)
            .await
            .expect("endpoint")
            .expect("exists")
    };
    assert_eq!(stored(ports.clone()).await.failing_since, Some(at(10)));

    assert!(
        claim_deliveries(&ports, token(), at(15), 10, 4).await.is_empty(),
        "a retry is not due before its time"
    );
    let second = token();
    let again = claim_deliveries(&ports, second, at(16), 10, 4).await;
    assert_eq!(
        again[0].attempt_number, 2,
        "the next attempt's number follows the recorded ones"
    );
    let success = outcome(&again[0], second, at(17), true, None, None);
    assert!(complete(&ports, &success).await);
    let delivery = &deliveries_of(&ports, &endpoint).await[0];
    assert_eq!(delivery.status, DeliveryStatus::Succeeded);
    assert_eq!(delivery.next_attempt_at, None);
    assert_eq!(
        delivery.attempts,
        vec![failure.attempt.clone(), success.attempt.clone()],
        "attempts are kept in number order with every field"
    );
    assert_eq!(
        stored(ports.clone()).await.failing_since,
        None,
        "an answer clears the failing streak"
    );

    // A delivery whose schedule is exhausted fails; the streak start is kept.
    let (_, exhausted) = test_event(&ports, &endpoint, at(20)).await;
    let third = token();
    let claimed = claim_deliveries(&ports, third, at(20), 10, 4).await;
    assert!(
        complete(
            &ports,
            &outcome(&claimed[0], third, at(21), false, None, Some(at(20)))
        )
        .await
    );
    let failed = deliveries_of(&ports, &endpoint).await;
    let failed = failed.iter().find(|d| d.id == exhausted).expect("delivery");
    assert_eq!(failed.status, DeliveryStatus::Failed);
    assert_eq!(failed.next_attempt_at, None);
    assert_eq!(stored(ports.clone()).await.failing_since, Some(at(20)));

    // The attempt that makes Herald disable the endpoint.
    test_event(&ports, &endpoint, at(30)).await;
    let (_, left_pending) = test_event(&ports, &endpoint, at(31)).await;
    let fourth = token();
    let claimed = claim_deliveries(&ports, fourth, at(30), 1, 4).await;
    let mut last = outcome(&claimed[0], fourth, at(32), false, Some(at(90)), Some(at(20)));
    last.disable_reason = Some("disabled by Herald: every delivery attempt failed".to_owned());
    assert!(complete(&ports, &last).await);
    let disabled = stored(ports.clone()).await;
    assert!(!disabled.enabled, "the endpoint is disabled");
    assert_eq!(disabled.disabled_reason, last.disable_reason);
    assert_eq!(disabled.failing_since, Some(at(20)));
    assert!(
        claim_deliveries(&ports, token(), at(1_000), 10, 4)
            .await
            .is_empty(),
        "a disabled endpoint's pending deliveries are not claimed"
    );
    let pending = deliveries_of(&ports, &endpoint).await;
    assert_eq!(
        pending.iter().find(|d| d.id == left_pending).map(|d| d.status),
        Some(DeliveryStatus::Pending),
        "they stay pending for when it is enabled again"
    );
}

/// `complete_deliveries`: a round's attempts recorded together, each exactly as `complete_delivery` records
/// it alone, in order, and only under its own claim token. A lost claim (or a delivery already completed
/// earlier in the same batch) answers `false` and writes nothing, without keeping the others from being
/// recorded.
pub async fn webhooks_batch_completion_records_each_under_its_own_token(ports: Ports) {
    assert!(
        ports
            .webhooks
            .complete_deliveries(&[])
            .await
            .expect("complete_deliveries")
            .is_empty(),
        "an empty batch answers nothing"
    );
    let org = new_organization(&ports, "business").await;
    let a = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let b = new_endpoint(&ports, &org, EventSelection::ALL, 2).await;
    let (_, a1) = test_event(&ports, &a, at(10)).await;
    let (_, a2) = test_event(&ports, &a, at(10)).await;
    let (_, b1) = test_event(&ports, &b, at(10)).await;
    let round = token();
    let claimed = claim_deliveries(&ports, round, at(10), 10, 4).await;
    assert_eq!(claimed.len(), 3);

    let a1_done = outcome(&claimed_as(&claimed, a1), round, at(11), true, None, None);
    let batch = vec![
        // A token that never held it.
        outcome(&claimed_as(&claimed, a1), token(), at(11), true, None, None),
        a1_done.clone(),
        outcome(
            &claimed_as(&claimed, b1),
            round,
            at(11),
            false,
            Some(at(16)),
            Some(at(10)),
        ),
        // The endpoint's later completion in the batch decides its health: failing since 10.
        outcome(
            &claimed_as(&claimed, a2),
            round,
            at(12),
            false,
            Some(at(17)),
            Some(at(10)),
        ),
        // Already completed earlier in this batch.
        a1_done,
    ];
    let held = complete_all(&ports, &batch).await;
    assert_eq!(
        held,
        [false, true, true, true, false],
        "one answer per completion, in order"
    );

    let of_a = deliveries_of(&ports, &a).await;
    let done = delivery_in(&of_a, a1);
    assert_eq!(done.status, DeliveryStatus::Succeeded);
    assert_eq!(
        done.attempts,
        vec![batch[1].attempt.clone()],
        "one attempt: neither the stranger's nor the repeated completion wrote one"
    );
    let retrying = delivery_in(&of_a, a2);
    assert_eq!(retrying.status, DeliveryStatus::Pending);
    assert_eq!(retrying.next_attempt_at, Some(at(17)));
    assert_eq!(retrying.attempts, vec![batch[3].attempt.clone()]);
    let of_b = deliveries_of(&ports, &b).await;
    let other = delivery_in(&of_b, b1);
    assert_eq!(other.status, DeliveryStatus::Pending);
    assert_eq!(other.next_attempt_at, Some(at(16)));
    assert_eq!(other.attempts, vec![batch[2].attempt.clone()]);
    for endpoint in [&a, &b] {
        let stored = ports
            .webhooks
            .endpoint(&org.id, &endpoint.id)
            .await
            .expect("endpoint")
            .expect("exists");
        assert_eq!(stored.failing_since, Some(at(10)), "{}", endpoint.id);
    }
    assert_eq!(
        ids_of(&claim_deliveries(&ports, token(), at(16), 10, 4).await),
        HashSet::from([b1]),
        "recorded deliveries are released: only the one due again by then is claimed"
    );
}

/// A batch in which every attempt succeeded (the PostgreSQL store records it with one statement): each
/// delivery its token holds is recorded once, with its attempt, and its endpoint's failing streak ends; a
/// completion under a token that never held its delivery, and a repeat, write nothing and answer `false`;
/// an endpoint that was not failing keeps its row as it was.
pub async fn webhooks_a_batch_of_successes_records_each_held_delivery_once(ports: Ports) {
    let org = new_organization(&ports, "business").await;
    let failing = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let healthy = new_endpoint(&ports, &org, EventSelection::ALL, 2).await;
    // `failing` starts a streak at 10 (a retry due at 1,000, out of the way).
    let (_, earlier) = test_event(&ports, &failing, at(10)).await;
    let first = token();
    let claimed = claim_deliveries(&ports, first, at(10), 10, 4).await;
    assert_eq!(claimed.len(), 1);
    let failed = outcome(&claimed[0], first, at(11), false, Some(at(1_000)), Some(at(10)));
    assert_eq!(complete_all(&ports, &[failed]).await, [true]);
    assert_eq!(
        stored_endpoint(&ports, org.id, failing.id).await.failing_since,
        Some(at(10))
    );
    let untouched = stored_endpoint(&ports, org.id, healthy.id).await;

    let (_, f1) = test_event(&ports, &failing, at(20)).await;
    let (_, h1) = test_event(&ports, &healthy, at(20)).await;
    let (_, h2) = test_event(&ports, &healthy, at(20)).await;
    let round = token();
    let claimed = claim_deliveries(&ports, round, at(20), 10, 4).await;
    assert_eq!(claimed.len(), 3, "the three new deliveries; the retry is not due");
    let f1_done = outcome(&claimed_as(&claimed, f1), round, at(21), true, None, None);
    let batch = vec![
        f1_done.clone(),
        // A token that never held it.
        outcome(&claimed_as(&claimed, h1), token(), at(21), true, None, None),
        outcome(&claimed_as(&claimed, h1), round, at(22), true, None, None),
        outcome(&claimed_as(&claimed, h2), round, at(22), true, None, None),
        // Already completed earlier in this batch.
        f1_done,
    ];
    assert_eq!(
        complete_all(&ports, &batch).await,
        [true, false, true, true, false],
        "one answer per completion, in order"
    );

    let of_failing = deliveries_of(&ports, &failing).await;
    let done = delivery_in(&of_failing, f1);
    assert_eq!(done.status, DeliveryStatus::Succeeded);
    assert_eq!(done.next_attempt_at, None);
    assert_eq!(
        done.attempts,
        vec![batch[0].attempt.clone()],
        "one attempt: the repeat wrote none"
    );
    let retry = delivery_in(&of_failing, earlier);
    assert_eq!(retry.status, DeliveryStatus::Pending, "the earlier retry is left");
    assert_eq!(retry.next_attempt_at, Some(at(1_000)));
    let of_healthy = deliveries_of(&ports, &healthy).await;
    for (id, completion) in [(h1, &batch[2]), (h2, &batch[3])] {
        let done = delivery_in(&of_healthy, id);
        assert_eq!(done.status, DeliveryStatus::Succeeded);
        assert_eq!(
            done.attempts,
            vec![completion.attempt.clone()],
            "only the holding token's attempt"
        );
    }
    assert_eq!(
        stored_endpoint(&ports, org.id, failing.id).await.failing_since,
        None,
        "an answer ends the streak"
    );
    assert_eq!(
        stored_endpoint(&ports, org.id, healthy.id).await,
        untouched,
        "an endpoint that was not failing is left as it was"
    );
    assert!(
        claim_deliveries(&ports, token(), at(30), 10, 4).await.is_empty(),
        "every recorded delivery gave its lease back and is done"
    );
}

/// `complete_deliveries` writes each endpoint's health as its attempts in the batch would one after the
/// other: the last attempt of an endpoint decides when its failures began, except that an attempt that
/// disables it still does. A batch whose every endpoint last succeeded clears the ones that were failing,
/// and leaves a healthy one as it was.
pub async fn webhooks_batch_completion_health_follows_each_endpoints_last_attempt(ports: Ports) {
    let org = new_organization(&ports, "business").await;
    let recovering = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let failing = new_endpoint(&ports, &org, EventSelection::ALL, 2).await;
    let healthy = new_endpoint(&ports, &org, EventSelection::ALL, 3).await;
    let claimed_for = |claimed: &[ClaimedDelivery], endpoint: &WebhookEndpoint| -> Vec<ClaimedDelivery> {
        claimed
            .iter()
            .filter(|c| c.endpoint.id == endpoint.id)
            .cloned()
            .collect()
    };

    // A failed attempt to retry later, of a streak that began at 10.
    let failure = |claimed: &ClaimedDelivery, token: ClaimToken, when: Timestamp| {
        outcome(claimed, token, when, false, Some(at(1_000)), Some(at(10)))
    };

    // Round 1: `recovering` and `failing` start failing; `healthy` succeeds.
    for endpoint in [&recovering, &failing, &healthy] {
        test_event(&ports, endpoint, at(10)).await;
    }
    let first = token();
    let claimed = claim_deliveries(&ports, first, at(10), 10, 4).await;
    assert_eq!(claimed.len(), 3);
    let batch = vec![
        failure(&claimed_for(&claimed, &recovering)[0], first, at(11)),
        failure(&claimed_for(&claimed, &failing)[0], first, at(11)),
        outcome(
            &claimed_for(&claimed, &healthy)[0],
            first,
            at(11),
            true,
            None,
            None,
        ),
    ];
    assert_eq!(complete_all(&ports, &batch).await, [true, true, true]);
    assert_eq!(
        stored_endpoint(&ports, org.id, recovering.id).await.failing_since,
        Some(at(10))
    );
    assert_eq!(
        stored_endpoint(&ports, org.id, failing.id).await.failing_since,
        Some(at(10))
    );
    let untouched = stored_endpoint(&ports, org.id, healthy.id).await;
    assert_eq!(untouched.failing_since, None);

    // Round 2, every endpoint last succeeding: `recovering` fails once more, then answers.
    for endpoint in [&recovering, &recovering, &failing, &healthy] {
        test_event(&ports, endpoint, at(30)).await;
    }
    let second = token();
    let claimed = claim_deliveries(&ports, second, at(30), 10, 4).await;
    let of_recovering = claimed_for(&claimed, &recovering);
    assert_eq!(
        of_recovering.len(),
        2,
        "its two new deliveries (its retry is not due yet)"
    );
    let batch = vec![
        failure(&of_recovering[0], second, at(31)),
        outcome(
            &claimed_for(&claimed, &failing)[0],
            second,
            at(31),
            true,
            None,
            None,
        ),
        outcome(&of_recovering[1], second, at(32), true, None, None),
        outcome(
            &claimed_for(&claimed, &healthy)[0],
            second,
            at(32),
            true,
            None,
            None,
        ),
    ];
    assert_eq!(complete_all(&ports, &batch).await, [true, true, true, true]);
    assert_eq!(
        stored_endpoint(&ports, org.id, recovering.id).await.failing_since,
        None,
        "its last attempt answered: the streak is over"
    );
    assert_eq!(
        stored_endpoint(&ports, org.id, failing.id).await.failing_since,
        None
    );
    assert_eq!(
        stored_endpoint(&ports, org.id, healthy.id).await,
        untouched,
        "a healthy endpoint's row is left as it was"
    );

    // Round 3: an attempt disables `failing`, and a later one of the batch answers: it stays disabled.
    for endpoint in [&failing, &failing] {
        test_event(&ports, endpoint, at(50)).await;
    }
    let third = token();
    let claimed = claim_deliveries(&ports, third, at(50), 10, 4).await;
    let of_failing = claimed_for(&claimed, &failing);
    assert_eq!(of_failing.len(), 2);
    let mut disabling = outcome(&of_failing[0], third, at(51), false, None, Some(at(45)));
    disabling.disable_reason = Some("disabled by Herald: every delivery attempt failed".to_owned());
    let batch = vec![
        disabling.clone(),
        outcome(&of_failing[1], third, at(52), true, None, None),
    ];
    assert_eq!(complete_all(&ports, &batch).await, [true, true]);
    let disabled = stored_endpoint(&ports, org.id, failing.id).await;
    assert!(!disabled.enabled, "the disabling attempt is applied, not skipped");
    assert_eq!(disabled.disabled_reason, disabling.disable_reason);
    assert_eq!(
        disabled.failing_since, None,
        "then the later answer clears the streak, as recording them one by one would"
    );
}

/// Redelivering queues one delivery again at the given time, whatever its status, keeping its attempts;
/// only through its own organization and endpoint.
pub async fn webhooks_redeliver_requeues_one_delivery(ports: Ports) {
    let org = new_organization(&ports, "business").await;
    let other = new_organization(&ports, "business").await;
    let endpoint = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let sibling = new_endpoint(&ports, &org, EventSelection::ALL, 2).await;
    let (_, delivery) = test_event(&ports, &endpoint, at(10)).await;
    let claim_token = token();
    let claimed = claim_deliveries(&ports, claim_token, at(10), 10, 4).await;
    assert!(
        complete(
            &ports,
            &outcome(&claimed[0], claim_token, at(11), true, None, None)
        )
        .await
    );

    for (org_id, endpoint_id, delivery_id) in [
        (other.id, endpoint.id, delivery),
        (org.id, sibling.id, delivery),
        (org.id, endpoint.id, DeliveryId::from_ulid(next_ulid())),
    ] {
        assert!(
            matches!(
                ports
                    .webhooks
                    .redeliver(&org_id, &endpoint_id, &delivery_id, at(50))
                    .await,
                Err(StoreError::NotFound)
            ),
            "redeliver through another organization or endpoint, or of an unknown id, is NotFound"
        );
    }
    assert_eq!(
        deliveries_of(&ports, &endpoint).await[0].status,
        DeliveryStatus::Succeeded
    );

    ports
        .webhooks
        .redeliver(&org.id, &endpoint.id, &delivery, at(50))
        .await
        .expect("redeliver");
    let requeued = &deliveries_of(&ports, &endpoint).await[0];
    assert_eq!(requeued.status, DeliveryStatus::Pending);
    assert_eq!(requeued.next_attempt_at, Some(at(50)));
    assert_eq!(requeued.attempts.len(), 1, "earlier attempts are kept");
    assert!(claim_deliveries(&ports, token(), at(49), 10, 4).await.is_empty());
    let again = claim_deliveries(&ports, token(), at(50), 10, 4).await;
    assert_eq!(ids_of(&again), HashSet::from([delivery]));
    assert_eq!(again[0].attempt_number, 2);
}

/// Recovering queues exactly the endpoint's failed and skipped deliveries created at or after `since`.
pub async fn webhooks_recover_requeues_failed_and_skipped_since(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "business").await;
    let other = new_organization(&ports, "business").await;
    let mut endpoint = new_endpoint(&ports, &org, ONLY_STATUS, 1).await;
    let bystander = new_endpoint(&ports, &org, ONLY_STATUS, 2).await;

    // A failed delivery created at 100 and a succeeded one at 101, while enabled.
    let (_, failed) = test_event(&ports, &endpoint, at(100)).await;
    let (_, succeeded) = test_event(&ports, &endpoint, at(101)).await;
    let claim_token = token();
    let claimed = claim_deliveries(&ports, claim_token, at(101), 10, 4).await;
    for c in &claimed {
        let ok = c.delivery_id == succeeded;
        assert!(complete(&ports, &outcome(c, claim_token, at(102), ok, None, Some(at(100)))).await);
    }
    // Skipped ones at 200, 300 and 400 while disabled.
    set_enabled(&ports, &mut endpoint, false).await;
    let mut skipped_events = Vec::new();
    for when in [200, 300, 400] {
        let message = accepted(&ports, &org, &sender).await;
        skipped_events.push(status_event(&ports, &message, MessageStatus::Submitted, at(when)).await);
    }
    let statuses: HashMap<EventId, DeliveryStatus> = deliveries_of(&ports, &endpoint)
        .await
        .into_iter()
        .map(|d| (d.event_id, d.status))
        .collect();
    for event in &skipped_events {
        assert_eq!(statuses.get(event), Some(&DeliveryStatus::Skipped));
    }

    assert!(matches!(
        ports
            .webhooks
            .recover(&other.id, &endpoint.id, at(0), at(500))
            .await,
        Err(StoreError::NotFound)
    ));
    set_enabled(&ports, &mut endpoint, true).await;
    let requeued = ports
        .webhooks
        .recover(&org.id, &endpoint.id, at(300), at(500))
        .await
        .expect("recover");
    assert_eq!(requeued, 2, "the skipped deliveries at 300 and 400");
    let all = ports
        .webhooks
        .recover(&org.id, &endpoint.id, at(0), at(600))
        .await
        .expect("recover");
    assert_eq!(
        all, 2,
        "then the failed one at 100 and the skipped one at 200; never the succeeded one"
    );

    let deliveries = deliveries_of(&ports, &endpoint).await;
    for delivery in &deliveries {
        if delivery.id == succeeded {
            assert_eq!(delivery.status, DeliveryStatus::Succeeded);
        } else {
            assert_eq!(delivery.status, DeliveryStatus::Pending, "{delivery:?}");
        }
    }
    assert_eq!(
        deliveries
            .iter()
            .find(|d| d.id == failed)
            .map(|d| d.next_attempt_at),
        Some(Some(at(600)))
    );
    let claimed = claim_deliveries(&ports, token(), at(600), 100, 10).await;
    let endpoint_claims = claimed.iter().filter(|c| c.endpoint.id == endpoint.id).count();
    assert_eq!(
        endpoint_claims, 4,
        "every recovered delivery is claimable once enabled"
    );
    assert_eq!(
        claimed.iter().filter(|c| c.endpoint.id == bystander.id).count(),
        3,
        "the other endpoint's own deliveries are unaffected"
    );
}

/// A test event is a `webhook.test` customer event with one pending delivery, to its endpoint only.
pub async fn webhooks_test_event_goes_to_its_endpoint_only(ports: Ports) {
    let org = new_organization(&ports, "business").await;
    let other = new_organization(&ports, "business").await;
    let target = new_endpoint(&ports, &org, ONLY_INBOUND, 1).await;
    let sibling = new_endpoint(&ports, &org, EventSelection::ALL, 2).await;
    let foreign = new_endpoint(&ports, &other, EventSelection::ALL, 3).await;

    let event_id = EventId::from_ulid(next_ulid());
    let delivery_id = DeliveryId::from_ulid(next_ulid());
    let test = |payload: &str| TestEvent {
        event_id,
        delivery_id,
        payload: payload.to_owned(),
        at: at(5),
    };
    assert!(
        matches!(
            ports
                .webhooks
                .record_test_event(&other.id, &target.id, &test("{}"), 1)
                .await,
            Err(StoreError::NotFound)
        ),
        "another organization's endpoint is NotFound"
    );
    assert!(
        events_of(&ports, &other).await.is_empty(),
        "and nothing was written"
    );

    let payload = r#"{"type":"webhook.test","data":{"n":1}}"#;
    let recorded = ports
        .webhooks
        .record_test_event(&org.id, &target.id, &test(payload), 1)
        .await
        .expect("record_test_event");
    assert!(recorded, "the first test event is under a cap of 1");
    let events = events_of(&ports, &org).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].id, event_id);
    assert_eq!(events[0].event_type, CustomerEventType::WebhookTest);
    assert_eq!(events[0].payload, payload);
    assert_eq!(events[0].message_id, None);
    assert_eq!(events[0].created_at, at(5));

    let deliveries = deliveries_of(&ports, &target).await;
    assert_eq!(deliveries.len(), 1);
    assert_eq!(deliveries[0].id, delivery_id);
    assert_eq!(deliveries[0].event_id, event_id);
    assert_eq!(deliveries[0].event_type, CustomerEventType::WebhookTest);
    assert_eq!(deliveries[0].status, DeliveryStatus::Pending);
    assert_eq!(deliveries[0].next_attempt_at, Some(at(5)));
    assert!(
        deliveries_of(&ports, &sibling).await.is_empty(),
        "no fan-out of a test event"
    );
    assert!(deliveries_of(&ports, &foreign).await.is_empty());

    let another = || TestEvent {
        event_id: EventId::from_ulid(next_ulid()),
        delivery_id: DeliveryId::from_ulid(next_ulid()),
        payload: payload.to_owned(),
        at: at(6),
    };
    let capped = ports
        .webhooks
        .record_test_event(&org.id, &target.id, &another(), 1)
        .await
        .expect("record_test_event");
    assert!(!capped, "a second test while one is pending passes a cap of 1");
    assert_eq!(events_of(&ports, &org).await.len(), 1, "and writes nothing");
    assert_eq!(deliveries_of(&ports, &target).await.len(), 1);
    let elsewhere = ports
        .webhooks
        .record_test_event(&org.id, &sibling.id, &another(), 1)
        .await
        .expect("record_test_event");
    assert!(elsewhere, "the cap is per endpoint");

    let claim_token = token();
    let claimed = claim_deliveries(&ports, claim_token, at(7), 10, 4).await;
    let mine: Vec<_> = claimed.iter().filter(|c| c.delivery_id == delivery_id).collect();
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0].payload, payload);
    assert!(complete(&ports, &outcome(mine[0], claim_token, at(8), true, None, None)).await);
    let after = ports
        .webhooks
        .record_test_event(&org.id, &target.id, &another(), 1)
        .await
        .expect("record_test_event");
    assert!(after, "a delivered test no longer counts against the cap");
}

/// The deliveries listing pages newest first by id: following the cursor yields every delivery exactly
/// once; the status filter holds; another organization sees none.
pub async fn webhooks_deliveries_cursor_covers_all_once(ports: Ports) {
    let org = new_organization(&ports, "business").await;
    let other = new_organization(&ports, "business").await;
    let endpoint = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let mut created = Vec::new();
    for i in 0..7 {
        created.push(test_event(&ports, &endpoint, at(10 + i)).await.1);
    }
    let claim_token = token();
    let claimed = claim_deliveries(&ports, claim_token, at(11), 2, 4).await;
    for c in &claimed {
        assert!(complete(&ports, &outcome(c, claim_token, at(12), true, None, None)).await);
    }

    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let page = ports
            .webhooks
            .deliveries(&org.id, &endpoint.id, None, cursor, 3)
            .await
            .expect("deliveries");
        assert!(page.len() <= 3, "a page holds at most `limit`");
        let Some(last) = page.last() else { break };
        cursor = Some(last.id);
        seen.extend(page.iter().map(|d| d.id));
    }
    let mut newest_first = created.clone();
    newest_first.sort();
    newest_first.reverse();
    assert_eq!(seen, newest_first, "every delivery exactly once, newest first");

    let succeeded = ports
        .webhooks
        .deliveries(&org.id, &endpoint.id, Some(DeliveryStatus::Succeeded), None, 50)
        .await
        .expect("deliveries");
    assert_eq!(
        succeeded.iter().map(|d| d.id).collect::<HashSet<_>>(),
        ids_of(&claimed)
    );
    assert!(succeeded.iter().all(|d| d.attempts.len() == 1));
    let pending = ports
        .webhooks
        .deliveries(&org.id, &endpoint.id, Some(DeliveryStatus::Pending), None, 50)
        .await
        .expect("deliveries");
    assert_eq!(pending.len(), 5);
    assert!(
        ports
            .webhooks
            .deliveries(&other.id, &endpoint.id, None, None, 50)
            .await
            .expect("deliveries")
            .is_empty(),
        "another organization sees no delivery of the endpoint"
    );
}

/// Deleting an endpoint deletes its deliveries and their attempts, and later events no longer fan out to
/// it; other endpoints keep theirs.
pub async fn webhooks_delete_cascades(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "business").await;
    let doomed = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let kept = new_endpoint(&ports, &org, EventSelection::ALL, 2).await;
    let message = accepted(&ports, &org, &sender).await;
    status_event(&ports, &message, MessageStatus::Submitted, at(10)).await;
    let claim_token = token();
    let claimed = claim_deliveries(&ports, claim_token, at(10), 10, 4).await;
    assert_eq!(claimed.len(), 2);
    for c in &claimed {
        assert!(
            complete(
                &ports,
                &outcome(c, claim_token, at(11), false, Some(at(20)), Some(at(11)))
            )
            .await
        );
    }

    ports
        .webhooks
        .delete_endpoint(&org.id, &doomed.id)
        .await
        .expect("delete_endpoint");
    assert!(deliveries_of(&ports, &doomed).await.is_empty());
    let remaining = deliveries_of(&ports, &kept).await;
    assert_eq!(remaining.len(), 1);
    assert_eq!(
        remaining[0].attempts.len(),
        1,
        "the other endpoint keeps its attempts"
    );

    let claimed = claim_deliveries(&ports, token(), at(20), 10, 4).await;
    assert_eq!(
        claimed.iter().map(|c| c.endpoint.id).collect::<Vec<WebhookId>>(),
        vec![kept.id],
        "only the remaining endpoint's delivery is claimable"
    );
    status_event(&ports, &message, MessageStatus::Delivered, at(30)).await;
    assert!(
        deliveries_of(&ports, &doomed).await.is_empty(),
        "no fan-out to a deleted endpoint"
    );
    assert_eq!(deliveries_of(&ports, &kept).await.len(), 2);
    assert_eq!(
        ports
            .webhooks
            .endpoints(&org.id)
            .await
            .expect("endpoints")
            .iter()
            .map(|e| e.id)
            .collect::<Vec<_>>(),
        vec![kept.id]
    );
}

/// Pending deliveries are counted whatever their organization; a delivery that succeeded or failed is not.
/// A claimed delivery carries its creation time (its event's).
pub async fn webhooks_pending_deliveries_are_counted(ports: Ports) {
    assert_eq!(pending(&ports).await, 0);
    let org = new_organization(&ports, "business").await;
    let other = new_organization(&ports, "business").await;
    let a = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let b = new_endpoint(&ports, &other, EventSelection::ALL, 1).await;
    test_event(&ports, &a, at(10)).await;
    test_event(&ports, &a, at(11)).await;
    test_event(&ports, &b, at(12)).await;
    assert_eq!(pending(&ports).await, 3);

    let round = token();
    let mut claimed = claim_deliveries(&ports, round, at(20), 10, 10).await;
    claimed.sort_by_key(|c| c.created_at);
    assert_eq!(
        claimed.iter().map(|c| c.created_at).collect::<Vec<_>>(),
        [at(10), at(11), at(12)],
        "a claimed delivery carries when its event was written"
    );
    assert_eq!(pending(&ports).await, 3, "claimed deliveries are still pending");
    assert!(complete(&ports, &outcome(&claimed[0], round, at(21), true, None, None)).await);
    assert!(complete(&ports, &outcome(&claimed[1], round, at(21), false, None, None)).await);
    assert!(
        complete(
            &ports,
            &outcome(&claimed[2], round, at(21), false, Some(at(90)), None)
        )
        .await
    );
    assert_eq!(
        pending(&ports).await,
        1,
        "only the delivery to be retried is pending"
    );
}

/// The trace a message was accepted in comes back with its claimed job, with each applied status, and with
/// every delivery of its customer events; a message accepted without one has none anywhere.
pub async fn webhooks_trace_context_follows_the_message_to_its_deliveries(ports: Ports) {
    let context = herald_domain::trace::TraceContext::parse(
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 req_trace1",
    )
    .expect("a valid context");
    let (org, sender) = new_organization_with_sender(&ports, "business").await;
    new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let traced = text_message(org.id, &sender, "+15551234567", at(0));
    let mut request = accept_request(&traced, None, None);
    request.job.trace = Some(context.clone());
    accept_ok(&ports, &request).await;
    let untraced = accepted(&ports, &org, &sender).await;

    let worker = token();
    let jobs = claim(&ports, worker, at(1), 10).await;
    assert_eq!(jobs.len(), 2);
    for job in &jobs {
        let expected = (job.message.id == traced.id).then(|| context.clone());
        assert_eq!(job.trace, expected, "a claimed job carries its message's trace");
        let done = completion(
            job,
            worker,
            JobOutcome::Submitted {
                network_message_id: format!("wamid.{}", job.message.id),
                route: herald_domain::marketing::NetworkRoute::CloudApi,
            },
            at(2),
        );
        assert!(ports.outbox.complete_job(&done).await.expect("complete_job"));
    }
    for message in [&traced, &untraced] {
        let applied = ports
            .tracking
            .apply_status(&StatusUpdate {
                organization_id: org.id,
                message_id: message.id,
                report: StatusReport {
                    status: MessageStatus::Delivered,
                    occurred_at: at(3),
                    error: None,
                },
                network_message_id: Some(format!("wamid.{}", message.id)),
                source: EventSource::Network,
                event_id: EventId::from_ulid(next_ulid()),
                customer_event_id: EventId::from_ulid(next_ulid()),
                recorded_at: at(4),
                pricing: None,
            })
            .await
            .expect("apply_status")
            .expect("the message exists");
        let expected = (message.id == traced.id).then(|| context.clone());
        assert_eq!(
            applied.trace, expected,
            "an applied status carries its message's trace"
        );
    }

    let deliveries = claim_deliveries(&ports, token(), at(10), 20, 20).await;
    let events: HashMap<EventId, Option<MessageRef>> = events_of(&ports, &org)
        .await
        .into_iter()
        .map(|e| (e.id, e.message_id))
        .collect();
    assert_eq!(deliveries.len(), 4, "submitted and delivered, of both messages");
    for delivery in &deliveries {
        let message = events.get(&delivery.event_id).copied().flatten();
        let expected = (message == Some(MessageRef::Outbound(traced.id))).then(|| context.clone());
        assert_eq!(
            delivery.trace, expected,
            "a delivery carries its event's message's trace"
        );
    }
}

async fn pending(ports: &Ports) -> u64 {
    ports
        .webhooks
        .count_pending_deliveries()
        .await
        .expect("count_pending_deliveries")
}
