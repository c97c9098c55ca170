//! How a batch of accepts is written. On PostgreSQL an ordinary batch's statements are
//! pipelined in one transaction; a batch with something to decide item by item (here a recipient who
//! refuses) rolls back and takes the statement-by-statement path, answered the same way. SQLite has one
//! path. `herald_accept_batches_total{path}` says which path wrote each batch.

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
use std::sync::OnceLock;

/// What this process's recorder (installed by the first call) has counted so far: each accept batch by
/// `path` (`herald_accept_batches_total`), each connection taken from the accept writer's own pool
/// (`herald_store_pool_wait_seconds{pool="accepts"}`, one sample per checkout) as `accepts pool`, and the
/// group commit's accept batches as `batch sizes` and `write times` (one sample per batch in each of
/// `herald_group_commit_batch_size` and `herald_group_commit_write_seconds`).
/// The batches are written on the store's own writer thread, so the recorder is the process's global one:
/// under nextest each test is a process of its own; under `cargo test` other tests' accepts may add to the
/// counts, which only raises them.
fn batches() -> BTreeMap<String, u64> {
    static SNAPSHOTTER: OnceLock<Snapshotter> = OnceLock::new();
    let snapshotter = SNAPSHOTTER.get_or_init(|| {
        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        metrics::set_global_recorder(recorder).expect("no other recorder in the store tests");
        snapshotter
    });
    let label = |key: &metrics_util::CompositeKey, name: &str| {
        key.key()
            .labels()
            .find(|l| l.key() == name)
            .map(|l| l.value().to_owned())
    };
    snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .filter_map(|(key, _, _, value)| match (key.key().name(), value) {
            ("herald_accept_batches_total", DebugValue::Counter(n)) => Some((label(&key, "path")?, n)),
            ("herald_store_pool_wait_seconds", DebugValue::Histogram(samples))
                if label(&key, "pool").as_deref() == Some("accepts") =>
            {
                Some(("accepts pool".to_owned(), u64::try_from(samples.len()).ok()?))
            }
            (
                name @ ("herald_group_commit_batch_size" | "herald_group_commit_write_seconds"),
                DebugValue::Histogram(samples),
            ) if label(&key, "kind").as_deref() == Some("accept") => {
                let series = if name.ends_with("batch_size") {
                    "batch sizes"
                } else {
                    "write times"
                };
                Some((series.to_owned(), u64::try_from(samples.len()).ok()?))
            }
            _ => None,
        })
        .collect()
}

/// How many more batches `path` wrote in `after` than in `before`.
fn more(before: &BTreeMap<String, u64>, after: &BTreeMap<String, u64>, path: &str) -> u64 {
    let count = |counts: &BTreeMap<String, u64>| counts.get(path).copied().unwrap_or(0);
    count(after) - count(before)
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

#[tokio::test]
async fn postgres_an_ordinary_batch_is_pipelined_and_a_refusal_steps_through() {
    let before = batches();
    let Some(store) = postgres_or_skip(&test_name!()).await else {
        return;
    };
    an_ordinary_batch_then_one_with_a_refusal(store).await;
    let after = batches();
    assert!(
        more(&before, &after, "pipelined") >= 1,
        "ordinary batches are pipelined: {after:?}"
    );
    assert!(
        more(&before, &after, "step_by_step") >= 1,
        "the batch holding the refused recipient steps through: {after:?}"
    );
    assert!(
        more(&before, &after, "accepts pool") >= 2,
        "both batches took their connection from the accept writer's own pool: {after:?}"
    );
    each_batch_was_timed(&before, &after);
}

#[tokio::test]
async fn sqlite_a_batch_with_a_refusal_is_answered_item_by_item() {
    let before = batches();
    an_ordinary_batch_then_one_with_a_refusal(sqlite().await).await;
    each_batch_was_timed(&before, &batches());
}

/// Every group-commit batch of accepts had its transaction timed (`herald_group_commit_write_seconds`): a
/// stalled commit, which holds every accept of the batch, shows there.
fn each_batch_was_timed(before: &BTreeMap<String, u64>, after: &BTreeMap<String, u64>) {
    let batches = more(before, after, "batch sizes");
    assert!(batches >= 2, "both calls were written in batches: {after:?}");
    assert_eq!(
        more(before, after, "write times"),
        batches,
        "one write time per batch: {after:?}"
    );
}

/// The threads of this process named as the accept writer's.
fn accept_writer_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim() == "herald-accepts")
        .count()
}

/// A PostgreSQL store writes its accept batches on a thread of its own, and that thread ends with the store:
/// a process that makes and drops stores (the tests, the CLI's commands) does not pile them up.
#[tokio::test]
async fn postgres_the_accept_writer_thread_ends_with_its_store() {
    // The count is the process's: it holds only for a test in a process of its own.
    if std::env::var("NEXTEST_EXECUTION_MODE").as_deref() != Ok("process-per-test") {
        eprintln!(
            "SKIPPED (needs a process of its own, as under nextest): {}",
            test_name!()
        );
        return;
    }
    let Some(store) = postgres_or_skip(&test_name!()).await else {
        return;
    };
    crate::helpers::accepted_text_message(&store).await;
    assert_eq!(
        accept_writer_threads(),
        1,
        "the store's batches have their thread"
    );
    drop(store);
    for _ in 0..500 {
        if accept_writer_threads() == 0 {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the accept writer's thread outlived its store by 5 s");
}
