//! How a batch of accepts is written (issue 18, P1). On PostgreSQL an ordinary batch's statements are
//! pipelined in one transaction; a batch with something to decide item by item (here a recipient who
//! refuses) rolls back and takes the statement-by-statement path, answered the same way. SQLite has one
//! path. `herald_accept_batches_total{path}` says which path wrote each batch; these tests read it with a
//! recorder of their own, on a current-thread runtime, so the batches written on spawned tasks are counted
//! too.

use crate::helpers::{postgres_or_skip, sqlite, test_name};
use chrono::TimeDelta;
use herald_domain::contact::{Recipient, RecipientRefusal, SendPurpose};
use herald_domain::dispatch::ClaimToken;
use herald_domain::ports::{AcceptOutcome, AcceptRequest, IdempotencyBegin, IdempotencyClaim};
use herald_domain::time::BillingPeriod;
use herald_domain::values::RequestFingerprint;
use herald_store::Store;
use herald_testkit::fixtures::{
    accept_request, idempotency_key, next_ulid, organization, phone, sender, t0, text_message,
};
use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};
use std::collections::BTreeMap;
use std::future::Future;

/// Runs `test` on a current-thread runtime with its own recorder, and returns the batches counted per path.
fn counting_batches<F: Future<Output = ()>>(test: impl FnOnce() -> F) -> BTreeMap<String, u64> {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    metrics::with_local_recorder(&recorder, || runtime.block_on(test()));
    batches(&snapshotter)
}

fn batches(snapshotter: &Snapshotter) -> BTreeMap<String, u64> {
    snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .filter(|(key, ..)| key.key().name() == "herald_accept_batches_total")
        .filter_map(|(key, _, _, value)| {
            let path = key.key().labels().find(|l| l.key() == "path")?.value().to_owned();
            match value {
                DebugValue::Counter(n) => Some((path, n)),
                _ => None,
            }
        })
        .collect()
}

/// An ordinary batch (half of it holding idempotency claims), then a batch in which one recipient is
/// blocked: every answer as the contract says, whichever path wrote it.
async fn an_ordinary_batch_then_one_with_a_refusal(store: Store) {
    let org = organization("starter");
    store.accounts().create_organization(&org).await.unwrap();
    let from = sender(org.id, "+15550001111", true);
    store.accounts().add_sender(&from).await.unwrap();
    let fingerprint = RequestFingerprint::of(b"batch");
    let mut claims = Vec::new();
    let mut ordinary = Vec::new();
    for i in 0..8 {
        let message = text_message(org.id, &from, "+15551234567", t0() + TimeDelta::seconds(i));
        let hold = if i % 2 == 0 {
            let claim = IdempotencyClaim {
                organization_id: org.id,
                key: idempotency_key(&format!("batch-{i}")),
                token: ClaimToken(next_ulid()),
                fingerprint,
                now: t0(),
                lock_until: t0() - TimeDelta::seconds(60),
                completed_after: t0() - TimeDelta::hours(24),
            };
            let begun = store.messages().begin_idempotent(&claim).await.unwrap();
            assert_eq!(begun, IdempotencyBegin::Started);
            let hold = claim.hold();
            claims.push((claim, message.id));
            Some(hold)
        } else {
            None
        };
        ordinary.push(accept_request(&message, Some(100), hold));
    }
    let answers = accept_together(&store, &ordinary).await;
    assert_eq!(answers, vec![AcceptOutcome::Accepted; 8]);
    for (claim, message_id) in &claims {
        assert_eq!(
            store.messages().begin_idempotent(claim).await.unwrap(),
            IdempotencyBegin::Completed {
                fingerprint,
                message_id: *message_id
            },
            "each accepted item completes its own idempotency record"
        );
    }
    for request in &ordinary {
        assert_eq!(
            store
                .messages()
                .status_history(&org.id, &request.message.id)
                .await
                .unwrap(),
            Some(vec![request.event.clone()]),
            "an accepted item has its message and its event"
        );
    }

    let blocked = "+15550009999";
    store
        .contacts()
        .set_blocked(&org.id, &Recipient::Number(phone(blocked)), true, t0())
        .await
        .unwrap();
    let mixed: Vec<AcceptRequest> = (0..4)
        .map(|i| {
            let to = if i == 1 { blocked } else { "+15551234567" };
            let message = text_message(org.id, &from, to, t0() + TimeDelta::seconds(20 + i));
            AcceptRequest {
                recipient_check: Some(SendPurpose::Other),
                ..accept_request(&message, Some(100), None)
            }
        })
        .collect();
    let answers = accept_together(&store, &mixed).await;
    assert_eq!(
        answers,
        [
            AcceptOutcome::Accepted,
            AcceptOutcome::RecipientRefused(RecipientRefusal::Blocked),
            AcceptOutcome::Accepted,
            AcceptOutcome::Accepted,
        ]
    );
    assert_eq!(
        store
            .messages()
            .message(&org.id, &mixed.get(1).unwrap().message.id)
            .await
            .unwrap(),
        None,
        "the refused item stores nothing"
    );
    assert_eq!(
        store
            .messages()
            .usage(&org.id, &BillingPeriod::containing(t0()))
            .await
            .unwrap(),
        11,
        "the 8 ordinary and the 3 accepted of the mixed batch are counted, the refused one is not"
    );
}

/// Accepts `requests` at once (so they share batches) and answers them in order.
async fn accept_together(store: &Store, requests: &[AcceptRequest]) -> Vec<AcceptOutcome> {
    let messages = store.messages();
    let answers = futures::future::join_all(requests.iter().map(|r| messages.accept(r))).await;
    answers.into_iter().map(Result::unwrap).collect()
}

#[test]
fn postgres_an_ordinary_batch_is_pipelined_and_a_refusal_steps_through() {
    let counted = counting_batches(|| async {
        if let Some(store) = postgres_or_skip(&test_name!()).await {
            an_ordinary_batch_then_one_with_a_refusal(store).await;
        }
    });
    if counted.is_empty() {
        return; // skipped: no PostgreSQL
    }
    assert!(
        counted.get("pipelined").copied().unwrap_or(0) >= 1,
        "ordinary batches are pipelined: {counted:?}"
    );
    assert!(
        counted.get("step_by_step").copied().unwrap_or(0) >= 1,
        "the batch holding the refused recipient steps through: {counted:?}"
    );
}

#[test]
fn sqlite_every_batch_is_written_step_by_step() {
    let counted = counting_batches(|| async {
        an_ordinary_batch_then_one_with_a_refusal(sqlite().await).await;
    });
    assert_eq!(counted.get("pipelined"), None, "{counted:?}");
    assert!(
        counted.get("step_by_step").copied().unwrap_or(0) >= 2,
        "{counted:?}"
    );
}
