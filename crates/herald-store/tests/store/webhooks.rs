//! Webhook deliveries beyond the contract: concurrent claims under the per-endpoint cap, and the wake-up
//! of webhook loops when deliveries become due (and only then).

use crate::helpers::{
    accepted_text_message, assert_woken, fresh_postgres_or_skip, on_both_stores, pg_texts, postgres_or_skip,
    sqlite, test_name, wait_around,
};
use chrono::TimeDelta;
use herald_domain::dispatch::ClaimToken;
use herald_domain::ids::{DeliveryId, EventId};
use herald_domain::message::{EventSource, Message, MessageStatus};
use herald_domain::status::StatusReport;
use herald_domain::status::StatusUpdate;
use herald_domain::webhook::{
    DeliveryAttempt, DeliveryCompletion, DeliveryStatus, EventSelection, TestEvent, WebhookEndpoint,
};
use herald_store::Store;
use herald_testkit::fixtures::{at, next_ulid, organization, webhook_endpoint};
use std::collections::HashSet;
use std::time::Duration;

const CLAIMERS: usize = 8;

async fn endpoint_with_due_deliveries(
    store: &Store,
    org: herald_domain::ids::OrganizationId,
    n: i64,
) -> WebhookEndpoint {
    let endpoint = webhook_endpoint(org, EventSelection::ALL, at(0));
    store
        .webhooks()
        .create_endpoint(&endpoint, 100)
        .await
        .expect("endpoint");
    for i in 0..n {
        store
            .webhooks()
            .record_test_event(
                &org,
                &endpoint.id,
                &TestEvent {
                    event_id: EventId::from_ulid(next_ulid()),
                    delivery_id: DeliveryId::from_ulid(next_ulid()),
                    payload: "{}".to_owned(),
                    at: at(i),
                },
                u32::MAX,
            )
            .await
            .expect("test event");
    }
    endpoint
}

/// Many claims at once: no delivery goes to two claims, and no endpoint gets more than the cap in flight.
async fn concurrent_claims_respect_the_cap(store: Store) {
    let org = organization("business");
    store
        .accounts()
        .create_organization(&org)
        .await
        .expect("organization");
    let first = endpoint_with_due_deliveries(&store, org.id, 12).await;
    let second = endpoint_with_due_deliveries(&store, org.id, 12).await;
    let tasks: Vec<_> = (0..CLAIMERS)
        .map(|_| {
            let webhooks = store.webhooks();
            tokio::spawn(async move {
                webhooks
                    .claim_deliveries(
                        &ClaimToken(next_ulid()),
                        at(100),
                        at(100) + TimeDelta::seconds(60),
                        3,
                        4,
                    )
                    .await
            })
        })
        .collect();
    let mut claimed = Vec::new();
    for task in tasks {
        claimed.extend(task.await.expect("claimer task").expect("claim_deliveries"));
    }
    let distinct: HashSet<DeliveryId> = claimed.iter().map(|c| c.delivery_id).collect();
    assert_eq!(
        distinct.len(),
        claimed.len(),
        "no delivery is handed to two claims"
    );
    for endpoint in [&first, &second] {
        assert_eq!(
            claimed.iter().filter(|c| c.endpoint.id == endpoint.id).count(),
            4,
            "each endpoint gets exactly its cap in flight across all concurrent claims"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_concurrent_claims_respect_the_cap() {
    concurrent_claims_respect_the_cap(sqlite().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_concurrent_claims_respect_the_cap() {
    let Some(store) = postgres_or_skip(&test_name!()).await else {
        return;
    };
    concurrent_claims_respect_the_cap(store).await;
}

const LONG: Duration = Duration::from_secs(60);

/// A `submitted` report of `message` from the network.
fn submitted(message: &Message) -> StatusUpdate {
    StatusUpdate {
        organization_id: message.organization_id,
        message_id: message.id,
        report: StatusReport {
            status: MessageStatus::Submitted,
            occurred_at: at(1),
            error: None,
        },
        network_message_id: Some("wamid.wake".to_owned()),
        source: EventSource::Network,
        event_id: EventId::from_ulid(next_ulid()),
        customer_event_id: EventId::from_ulid(next_ulid()),
        recorded_at: at(1),
        pricing: None,
    }
}

/// A webhook loop waiting on the webhook notifier wakes soon after a status report fans out to an
/// enabled endpoint.
async fn a_webhook_waiter_wakes_after_a_fan_out(store: Store) {
    let message = accepted_text_message(&store).await;
    let endpoint = webhook_endpoint(message.organization_id, EventSelection::ALL, at(0));
    store
        .webhooks()
        .create_endpoint(&endpoint, 100)
        .await
        .expect("endpoint");
    let waited = wait_around(&store.webhook_notifier(), LONG, async {
        store
            .tracking()
            .apply_status(&submitted(&message))
            .await
            .expect("apply_status")
            .expect("message exists");
    })
    .await;
    assert_woken(waited, "the fan-out");
}

/// A status change of an organization with no webhook endpoint makes no delivery, so it wakes no webhook
/// loop: on SQLite every status change used to, and each wake-up cost a claim transaction that found nothing
/// (about a tenth of Herald's CPU while a broadcast went out, docs/benchmarks-history.md, "Wake-ups a quiet
/// dispatch paid for").
async fn a_status_change_without_an_endpoint_wakes_no_webhook_loop(store: Store) {
    let message = accepted_text_message(&store).await;
    let quiet = Duration::from_secs(2);
    let waited = wait_around(&store.webhook_notifier(), quiet, async {
        let applied = store
            .tracking()
            .apply_status(&submitted(&message))
            .await
            .expect("apply_status")
            .expect("message exists");
        assert!(
            matches!(
                applied.transition,
                herald_domain::status::Transition::Applied { .. }
            ),
            "the status changed: {applied:?}"
        );
    })
    .await;
    assert!(
        waited >= quiet,
        "nothing was due, so nothing should have woken the webhook loop; it woke after {waited:?}"
    );
}

/// Redelivering a delivery, and enabling an endpoint again, make deliveries due: each wakes the loops at
/// its commit, on both stores (PostgreSQL's used to wait for the loops' next poll).
async fn redelivering_and_enabling_wake_the_webhook_loops(store: Store) {
    let org = organization("business");
    store
        .accounts()
        .create_organization(&org)
        .await
        .expect("organization");
    let endpoint = endpoint_with_due_deliveries(&store, org.id, 1).await;
    let deliveries = store
        .webhooks()
        .deliveries(&org.id, &endpoint.id, None, None, 10)
        .await
        .expect("deliveries");
    let delivery = deliveries.first().expect("the test event's delivery").id;
    let waited = wait_around(&store.webhook_notifier(), LONG, async {
        store
            .webhooks()
            .redeliver(&org.id, &endpoint.id, &delivery, at(5))
            .await
            .expect("redeliver");
    })
    .await;
    assert_woken(waited, "the redelivery");

    let patch = |enabled| herald_domain::webhook::EndpointPatch {
        enabled: Some(enabled),
        ..Default::default()
    };
    store
        .webhooks()
        .patch_endpoint(&org.id, &endpoint.id, &patch(false), at(6))
        .await
        .expect("disable");
    let waited = wait_around(&store.webhook_notifier(), LONG, async {
        store
            .webhooks()
            .patch_endpoint(&org.id, &endpoint.id, &patch(true), at(7))
            .await
            .expect("enable");
    })
    .await;
    assert_woken(waited, "enabling the endpoint");
}

on_both_stores!(
    sqlite_webhook_waiter_wakes_after_a_fan_out,
    postgres_webhook_waiter_wakes_after_a_fan_out,
    a_webhook_waiter_wakes_after_a_fan_out
);
on_both_stores!(
    sqlite_a_status_change_without_an_endpoint_wakes_no_webhook_loop,
    postgres_a_status_change_without_an_endpoint_wakes_no_webhook_loop,
    a_status_change_without_an_endpoint_wakes_no_webhook_loop
);
on_both_stores!(
    sqlite_redelivering_and_enabling_wake_the_webhook_loops,
    postgres_redelivering_and_enabling_wake_the_webhook_loops,
    redelivering_and_enabling_wake_the_webhook_loops
);

/// Recording an attempt writes the endpoint's row only when its failing streak changes: successes to a
/// healthy endpoint (and failures that continue a streak) leave it alone, so recordings for one endpoint do
/// not queue on its row lock. The row's `xmin` tells whether it was written.
#[tokio::test]
async fn postgres_an_unchanged_failing_streak_is_not_rewritten() {
    let Some((store, guard)) = fresh_postgres_or_skip(&test_name!()).await else {
        return;
    };
    let org = organization("business");
    store
        .accounts()
        .create_organization(&org)
        .await
        .expect("organization");
    let endpoint = endpoint_with_due_deliveries(&store, org.id, 4).await;
    let token = ClaimToken(next_ulid());
    let claimed = store
        .webhooks()
        .claim_deliveries(&token, at(100), at(100) + TimeDelta::seconds(60), 4, 4)
        .await
        .expect("claim_deliveries");
    assert_eq!(claimed.len(), 4);
    let version_sql = format!(
        "SELECT xmin::text AS value FROM webhook_endpoints WHERE id = '{}'",
        endpoint.id
    );
    let version = || pg_texts(guard.database_url(), &version_sql);
    // Records the n-th claimed delivery's attempt (a success when `failing_since` is `None`) and answers the
    // endpoint's row version after it.
    let record = |n: usize, failing_since: Option<herald_domain::time::Timestamp>| {
        let (status, next_attempt_at, code) = match failing_since {
            None => (DeliveryStatus::Succeeded, None, 200),
            Some(_) => (DeliveryStatus::Pending, Some(at(200)), 500),
        };
        let completion = DeliveryCompletion {
            delivery_id: claimed[n].delivery_id,
            token,
            attempt: DeliveryAttempt {
                number: claimed[n].attempt_number,
                at: at(101),
                status_code: Some(code),
                response_prefix: String::new(),
                error_kind: (code != 200).then(|| "http_status".to_owned()),
                duration_ms: 1,
            },
            status,
            next_attempt_at,
            failing_since,
            disable_reason: None,
        };
        let (webhooks, version) = (store.webhooks(), version());
        async move {
            assert!(webhooks.complete_delivery(&completion).await.expect("complete"));
            version.await
        }
    };
    let healthy = version().await;
    assert_eq!(record(0, None).await, healthy, "a success to a healthy endpoint");
    let failing = record(1, Some(at(101))).await;
    assert_ne!(failing, healthy, "a failure starts the streak");
    assert_eq!(record(2, Some(at(101))).await, failing, "the same streak goes on");
    assert_ne!(record(3, None).await, failing, "an answer ends the streak");
}
