//! `DispatchMessages::run_once`: the claim, every decision branch with the completion it writes, the backoff
//! and its jitter, pacing, and how the round's report counts lost claims and failed recordings.

use super::*;
use crate::dispatch::{ClaimToken, ClaimedJob, JobCompletion, JobHistory, JobOutcome};
use crate::ids::{EventId, JobId};
use crate::message::{MessageError, MessageStatus};
use crate::ports::{
    MockMediaCatalog, MockMediaStore, MockMessagingNetwork, MockOutboxStore, MockPacer, MockSecretSource,
    NetworkError, NetworkReceipt, StoreError,
};
use crate::time::Duration;
use crate::usecases::{DispatchMessages, DispatchPorts, DispatchReport, DispatchSettings};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Settings whose every value differs from the defaults and from each other, so an assertion on a time
/// proves which setting produced it.
fn settings() -> DispatchSettings {
    DispatchSettings {
        batch_size: 7,
        lease: seconds(45),
        callback_window: seconds(240),
        hold: seconds(17),
        base_backoff: seconds(3),
        max_backoff: seconds(100),
        credentials_retry: seconds(333),
    }
}

/// The token the round claims with: the first id the generator makes.
fn token() -> ClaimToken {
    ClaimToken(generated(1))
}

fn job_id(n: u128) -> JobId {
    JobId::from_ulid(ulid(700 + n))
}

/// A due job of the test organization sending `stored_message(n)` from the default sender, with a deadline
/// an hour away.
fn job(n: u128) -> ClaimedJob {
    ClaimedJob {
        job_id: job_id(n),
        organization_id: org_id(),
        attempts: 1,
        history: JobHistory::Fresh,
        deadline: now() + chrono::TimeDelta::hours(1),
        message: stored_message(n),
        sender: sender(1, DEFAULT_NUMBER, true),
        account_status: AccountStatus::Active,
        trace: None,
    }
}

fn wamid(n: u128) -> String {
    format!("wamid.HBgL{n}")
}

/// A network failure mapped to a message error, for the permanent branch.
fn refused() -> MessageError {
    MessageError {
        code: "recipient_unreachable".into(),
        title: "Recipient unreachable".into(),
        detail: "the number is not on WhatsApp".into(),
        network_code: Some(131_026),
    }
}

/// Every port of `DispatchMessages` as a mock; each test sets the expectations it needs, and a port
/// without expectations panics when called.
struct Ports {
    outbox: MockOutboxStore,
    network: MockMessagingNetwork,
    pacer: MockPacer,
    random: MockSecretSource,
    clock: MockClock,
    catalog: MockMediaCatalog,
    files: MockMediaStore,
}

impl Ports {
    fn new() -> Self {
        Self {
            outbox: MockOutboxStore::new(),
            network: MockMessagingNetwork::new(),
            pacer: MockPacer::new(),
            random: MockSecretSource::new(),
            clock: clock_at(now()),
            catalog: MockMediaCatalog::new(),
            files: MockMediaStore::new(),
        }
    }

    /// `claim_jobs` hands out `jobs` once, and only for the fresh token, `now`, `now + lease` and the batch
    /// size.
    fn claims(&mut self, jobs: Vec<ClaimedJob>) -> &mut Self {
        self.outbox
            .expect_claim_jobs()
            .withf(|t, at, until, limit| {
                *t == token() && *at == now() && *until == now() + seconds(45) && *limit == 7
            })
            .times(1)
            .returning(move |_, _, _, _| Ok(jobs.clone()));
        self
    }

    /// `complete_jobs` records the round in one call, answering `held` for every job, and keeps each
    /// completion it was given; `complete_job` (one by one) is never called.
    fn completes(&mut self, held: bool) -> Arc<Mutex<Vec<JobCompletion>>> {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let keep = Arc::clone(&seen);
        self.outbox
            .expect_complete_jobs()
            .times(1)
            .returning(move |completions| {
                keep.lock().unwrap().extend(completions.iter().cloned());
                Ok(vec![held; completions.len()])
            });
        self.outbox.expect_complete_job().times(0);
        seen
    }

    /// The pacer lets `times` sends of the default sender through.
    fn paces(&mut self, times: usize) -> &mut Self {
        self.pacer
            .expect_wait_turn()
            .withf(|s| *s == sender(1, DEFAULT_NUMBER, true))
            .times(times)
            .returning(|_| ());
        self
    }

    fn never_paces(&mut self) -> &mut Self {
        self.pacer.expect_wait_turn().times(0);
        self.pacer.expect_slow_down().times(0);
        self
    }

    /// The network answers `answer` once, for the default sender and `stored_message(n)`.
    fn sends(&mut self, n: u128, answer: Result<NetworkReceipt, NetworkError>) -> &mut Self {
        self.network
            .expect_send()
            .withf(move |s, m, media| {
                *s == sender(1, DEFAULT_NUMBER, true) && *m == stored_message(n) && media.is_empty()
            })
            .times(1)
            .returning(move |_, _, _| answer.clone());
        self
    }

    fn never_sends(&mut self) -> &mut Self {
        self.network.expect_send().times(0);
        self
    }

    /// Every draw of random bytes fills them with `byte`.
    fn random_byte(&mut self, byte: u8) -> &mut Self {
        self.random
            .expect_fill()
            .returning(move |buf: &mut [u8]| buf.fill(byte));
        self
    }

    fn never_random(&mut self) -> &mut Self {
        self.random.expect_fill().times(0);
        self
    }

    fn dispatcher(self) -> DispatchMessages {
        DispatchMessages::new(
            DispatchPorts {
                outbox: Arc::new(self.outbox),
                network: Arc::new(self.network),
                catalog: Arc::new(self.catalog),
                files: Arc::new(self.files),
                pacer: Arc::new(self.pacer),
                clock: Arc::new(self.clock),
                ids: Arc::new(sequential_ids()),
                random: Arc::new(self.random),
            },
            settings(),
        )
    }
}

/// Dispatches one claimed `job` and returns the round's report and the one completion written.
fn dispatch_single(mut ports: Ports, job: ClaimedJob) -> (DispatchReport, JobCompletion) {
    ports.claims(vec![job]);
    let seen = ports.completes(true);
    let report = run(ports.dispatcher().run_once()).unwrap();
    let mut completions = seen.lock().unwrap().clone();
    assert_eq!(completions.len(), 1, "exactly one completion per claimed job");
    (report, completions.remove(0))
}

/// A report of one claimed job, with `f` applied.
fn one_claimed(f: impl FnOnce(&mut DispatchReport)) -> DispatchReport {
    let mut report = DispatchReport {
        claimed: 1,
        ..DispatchReport::default()
    };
    f(&mut report);
    report
}

/// A retryable failure with no `Retry-After`.
fn retryable(detail: &str, retry_after: Option<Duration>) -> NetworkError {
    NetworkError::Retryable {
        code: Some(131_000),
        detail: detail.into(),
        retry_after,
    }
}

/// Runs a fresh job with `attempts` that fails retryably while random bytes read `byte`, and returns the
/// retry delay chosen.
fn retry_delay(attempts: u32, byte: u8, retry_after: Option<Duration>) -> Duration {
    let mut ports = Ports::new();
    ports
        .paces(1)
        .random_byte(byte)
        .sends(1, Err(retryable("service unavailable", retry_after)));
    let mut fresh = job(1);
    fresh.attempts = attempts;
    fresh.deadline = now() + chrono::TimeDelta::days(60);
    let (report, completion) = dispatch_single(ports, fresh);
    assert_eq!(report, one_claimed(|r| r.retried = 1));
    match completion.outcome {
        JobOutcome::Retry { at, error } => {
            assert_eq!(error, "service unavailable");
            at - now()
        }
        other => panic!("expected a retry, got {other:?}"),
    }
}

fn millis(n: i64) -> Duration {
    chrono::TimeDelta::milliseconds(n)
}

// ---- the claim ----

#[test]
fn claims_with_a_fresh_token_the_lease_and_the_batch_size_and_records_nothing_when_no_job_is_due() {
    let mut ports = Ports::new();
    ports
        .claims(Vec::new())
        .never_sends()
        .never_paces()
        .never_random();
    ports.outbox.expect_complete_jobs().times(0);
    ports.outbox.expect_complete_job().times(0);
    let report = run(ports.dispatcher().run_once()).unwrap();
    assert_eq!(report, DispatchReport::default());
}

#[test]
fn a_claim_failure_is_returned_and_nothing_is_sent() {
    let mut ports = Ports::new();
    ports.never_sends().never_paces().never_random();
    ports
        .outbox
        .expect_claim_jobs()
        .times(1)
        .returning(|_, _, _, _| Err(StoreError::Unavailable("pool exhausted".into())));
    ports.outbox.expect_complete_jobs().times(0);
    ports.outbox.expect_complete_job().times(0);
    let err = run(ports.dispatcher().run_once()).unwrap_err();
    assert!(
        matches!(err, StoreError::Unavailable(ref m) if m == "pool exhausted"),
        "{err:?}"
    );
}

// ---- decisions that never reach the network ----

#[test]
fn a_message_no_longer_accepted_is_already_done_without_a_network_call() {
    for status in [
        MessageStatus::Submitted,
        MessageStatus::Sent,
        MessageStatus::Delivered,
        MessageStatus::Read,
        MessageStatus::Failed,
    ] {
        let mut ports = Ports::new();
        ports.never_sends().never_paces().never_random();
        let mut moved_on = job(1);
        moved_on.message.status = status;
        let (report, completion) = dispatch_single(ports, moved_on);
        assert_eq!(completion.outcome, JobOutcome::AlreadyDone, "{status:?}");
        assert_eq!(report, one_claimed(|r| r.already_done = 1));
    }
}

#[test]
fn the_completion_carries_the_job_the_claim_token_the_time_and_fresh_event_ids() {
    let mut ports = Ports::new();
    ports.never_sends().never_paces().never_random();
    let mut moved_on = job(4);
    moved_on.message.status = MessageStatus::Delivered;
    let (_, completion) = dispatch_single(ports, moved_on);
    assert_eq!(
        completion,
        JobCompletion {
            job_id: job_id(4),
            organization_id: org_id(),
            message_id: stored_message(4).id,
            token: token(),
            outcome: JobOutcome::AlreadyDone,
            at: now(),
            event_id: EventId::from_ulid(generated(2)),
            customer_event_id: EventId::from_ulid(generated(3)),
        }
    );
}

#[test]
fn a_job_of_an_inactive_organization_is_held_without_a_network_call() {
    for status in [AccountStatus::Suspended, AccountStatus::Closed] {
        let mut ports = Ports::new();
        ports.never_sends().never_paces().never_random();
        let mut held = job(1);
        held.account_status = status;
        let (report, completion) = dispatch_single(ports, held);
        assert_eq!(
            completion.outcome,
            JobOutcome::Hold {
                until: now() + seconds(17)
            },
            "{status:?}"
        );
        assert_eq!(report, one_claimed(|r| r.held = 1));
    }
}

#[test]
fn a_job_past_its_deadline_fails_as_delivery_expired_without_a_network_call() {
    for deadline in [now(), now() - seconds(1)] {
        let mut ports = Ports::new();
        ports.never_sends().never_paces().never_random();
        let mut late = job(1);
        late.deadline = deadline;
        late.attempts = 6;
        let (report, completion) = dispatch_single(ports, late);
        let JobOutcome::Failed { error } = completion.outcome else {
            panic!("expected a failure, got {:?}", completion.outcome);
        };
        assert_eq!(error.code, "delivery_expired");
        assert_eq!(error.network_code, None);
        assert!(error.detail.contains(&deadline.to_rfc3339()), "{}", error.detail);
        assert!(error.detail.contains("6 attempts"), "{}", error.detail);
        assert_eq!(report, one_claimed(|r| r.failed = 1));
    }
}

#[test]
fn a_reclaimed_job_awaits_a_callback_instead_of_being_resent() {
    let mut ports = Ports::new();
    ports.never_sends().never_paces().never_random();
    let mut reclaimed = job(1);
    reclaimed.history = JobHistory::Reclaimed;
    reclaimed.attempts = 2;
    let (report, completion) = dispatch_single(ports, reclaimed);
    let JobOutcome::AwaitCallback { until, detail } = completion.outcome else {
        panic!("expected to await a callback, got {:?}", completion.outcome);
    };
    assert_eq!(until, now() + seconds(240));
    assert!(!detail.is_empty());
    assert_eq!(report, one_claimed(|r| r.awaiting_callback = 1));
}

#[test]
fn a_reclaimed_job_past_its_deadline_fails_rather_than_waiting() {
    let mut ports = Ports::new();
    ports.never_sends().never_paces().never_random();
    let mut reclaimed = job(1);
    reclaimed.history = JobHistory::Reclaimed;
    reclaimed.deadline = now() - seconds(5);
    let (_, completion) = dispatch_single(ports, reclaimed);
    assert!(
        matches!(&completion.outcome, JobOutcome::Failed { error } if error.code == "delivery_expired"),
        "{:?}",
        completion.outcome
    );
}

// ---- network answers ----

#[test]
fn a_job_with_a_trace_is_dispatched_in_that_trace_and_one_without_in_none() {
    let mut ports = Ports::new();
    ports.paces(2).never_random();
    ports.network.expect_send().times(2).returning(|_, m, _| {
        Ok(NetworkReceipt {
            network_message_id: format!("wamid.{}", m.id),
            route: crate::marketing::NetworkRoute::CloudApi,
        })
    });
    ports.pacer.expect_slow_down().times(0);
    let mut traced = job(1);
    traced.trace = Some(trace_context());
    let mut untraced = job(2);
    untraced.sender = traced.sender.clone();
    ports.claims(vec![traced, untraced]);
    let seen = ports.completes(true);
    let traces = follows_the_trace_once();

    let report = run(ports.dispatcher().with_trace_links(Arc::new(traces)).run_once()).unwrap();

    assert_eq!(report.submitted, 2);
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn an_accepted_send_is_submitted_with_the_network_id() {
    for history in [
        JobHistory::Fresh,
        JobHistory::Retried,
        JobHistory::AwaitedCallback,
    ] {
        let mut ports = Ports::new();
        ports.paces(1).never_random().sends(
            1,
            Ok(NetworkReceipt {
                network_message_id: wamid(1),
                route: crate::marketing::NetworkRoute::CloudApi,
            }),
        );
        ports.pacer.expect_slow_down().times(0);
        let mut due = job(1);
        due.history = history;
        let (report, completion) = dispatch_single(ports, due);
        assert_eq!(
            completion.outcome,
            JobOutcome::Submitted {
                network_message_id: wamid(1),
                route: crate::marketing::NetworkRoute::CloudApi,
            },
            "{history:?}"
        );
        assert_eq!(completion.token, token());
        assert_eq!(report, one_claimed(|r| r.submitted = 1));
    }
}

#[test]
fn a_retryable_failure_retries_after_the_jittered_backoff() {
    // attempts 1 → base 3 s; jitter maps byte 0 → ×0.8, byte 255 → ×1.2, and the middle byte → ×1.0.
    assert_eq!(retry_delay(1, 0, None), millis(2_400));
    assert_eq!(retry_delay(1, 255, None), millis(3_600));
    assert_eq!(retry_delay(1, 128, None), millis(3_000));
    // The delay doubles per attempt: attempts 3 → 3 s · 2² = 12 s.
    assert_eq!(retry_delay(3, 0, None), millis(9_600));
    assert_eq!(retry_delay(3, 255, None), millis(14_400));
    // A first attempt counted as 0 is treated as the first.
    assert_eq!(retry_delay(0, 0, None), millis(2_400));
}

#[test]
fn the_jittered_backoff_stays_within_its_bounds_for_every_random_byte() {
    for byte in [0_u8, 1, 63, 127, 200, 254, 255] {
        let delay = retry_delay(2, byte, None);
        assert!(
            delay >= millis(4_800) && delay <= millis(7_200),
            "byte {byte}: {delay:?}"
        );
    }
}

#[test]
fn the_backoff_is_capped_at_max_backoff_before_jitter() {
    // attempts 7 → 3 s · 2⁶ = 192 s, above the 100 s cap; the jitter applies to the capped value.
    assert_eq!(retry_delay(7, 0, None), seconds(80));
    assert_eq!(retry_delay(7, 255, None), seconds(120));
    // A huge attempt count neither overflows nor escapes the cap.
    assert_eq!(retry_delay(u32::MAX, 0, None), seconds(80));
}

#[test]
fn a_longer_retry_after_wins_over_the_backoff_and_a_shorter_one_does_not() {
    assert_eq!(retry_delay(1, 255, Some(seconds(50))), seconds(50));
    assert_eq!(retry_delay(1, 255, Some(seconds(1))), millis(3_600));
}

#[test]
fn a_retry_is_scheduled_from_when_the_network_answered() {
    // The clock moves on while the send is in flight: the retry counts from the answer, not the claim.
    let later = now() + seconds(9);
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let mut ports = Ports::new();
    ports.clock = MockClock::new();
    ports.clock.expect_now().returning(move || {
        // Calls 1 and 2: the claim and the decision; later ones: after the send.
        if calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < 2 {
            now()
        } else {
            later
        }
    });
    ports
        .paces(1)
        .random_byte(128)
        .sends(1, Err(retryable("busy", None)));
    let (_, completion) = dispatch_single(ports, job(1));
    assert_eq!(
        completion.outcome,
        JobOutcome::Retry {
            at: later + seconds(3),
            error: "busy".into()
        }
    );
    assert_eq!(completion.at, later);
}

#[test]
fn a_throttled_send_slows_the_sender_down_and_retries_after_the_pause() {
    let mut ports = Ports::new();
    ports.paces(1).never_random().sends(
        1,
        Err(NetworkError::Throttled {
            code: 130_429,
            detail: "throughput exceeded".into(),
            retry_after: Some(seconds(12)),
        }),
    );
    ports
        .pacer
        .expect_slow_down()
        .withf(|s, pause| *s == sender(1, DEFAULT_NUMBER, true) && *pause == seconds(12))
        .times(1)
        .return_const(());
    let (report, completion) = dispatch_single(ports, job(1));
    assert_eq!(
        completion.outcome,
        JobOutcome::Retry {
            at: now() + seconds(12),
            error: "throughput exceeded".into()
        }
    );
    assert_eq!(report, one_claimed(|r| r.retried = 1));
}

/// A `Retry-After` as long as a `Duration` goes (the adapter bounds its own parsing; the use case must not
/// trust it to) neither panics on `now + delay` nor waits past the longest delay: a job with room before its
/// deadline retries after exactly that, a job without fails as expired.
#[test]
fn a_retry_after_of_any_length_is_bounded_instead_of_overflowing() {
    let longest = chrono::TimeDelta::days(crate::time::LONGEST_DELAY_DAYS);
    assert_eq!(retry_delay(1, 0, Some(Duration::MAX)), longest);

    for throttled in [false, true] {
        let mut ports = Ports::new();
        let error = if throttled {
            ports
                .pacer
                .expect_slow_down()
                .withf(move |_, pause| *pause == longest)
                .times(1)
                .return_const(());
            NetworkError::Throttled {
                code: 130_429,
                detail: "throughput exceeded".into(),
                retry_after: Some(Duration::MAX),
            }
        } else {
            retryable("busy", Some(Duration::MAX))
        };
        ports.paces(1).random_byte(0).sends(1, Err(error));
        let (_, completion) = dispatch_single(ports, job(1));
        assert!(
            matches!(completion.outcome, JobOutcome::Failed { ref error } if error.code == "delivery_expired"),
            "{:?}",
            completion.outcome
        );
    }
}

#[test]
fn a_throttled_send_without_retry_after_pauses_one_second() {
    let mut ports = Ports::new();
    ports.paces(1).never_random().sends(
        1,
        Err(NetworkError::Throttled {
            code: 131_056,
            detail: "pair rate limit".into(),
            retry_after: None,
        }),
    );
    ports
        .pacer
        .expect_slow_down()
        .withf(|_, pause| *pause == seconds(1))
        .times(1)
        .return_const(());
    let (_, completion) = dispatch_single(ports, job(1));
    assert_eq!(
        completion.outcome,
        JobOutcome::Retry {
            at: now() + seconds(1),
            error: "pair rate limit".into()
        }
    );
}

#[test]
fn a_permanent_refusal_fails_the_message_with_the_networks_error() {
    let mut ports = Ports::new();
    ports
        .paces(1)
        .never_random()
        .sends(1, Err(NetworkError::Permanent(refused())));
    ports.pacer.expect_slow_down().times(0);
    let (report, completion) = dispatch_single(ports, job(1));
    assert_eq!(completion.outcome, JobOutcome::Failed { error: refused() });
    assert_eq!(report, one_claimed(|r| r.failed = 1));
}

#[test]
fn a_credentials_problem_retries_after_the_credentials_delay() {
    let mut ports = Ports::new();
    ports.paces(1).never_random().sends(
        1,
        Err(NetworkError::Credentials {
            code: Some(190),
            detail: "access token expired".into(),
        }),
    );
    ports.pacer.expect_slow_down().times(0);
    let (report, completion) = dispatch_single(ports, job(1));
    assert_eq!(
        completion.outcome,
        JobOutcome::Retry {
            at: now() + seconds(333),
            error: "access token expired".into()
        }
    );
    assert_eq!(report, one_claimed(|r| r.retried = 1));
}

#[test]
fn an_unknown_outcome_awaits_a_callback() {
    let mut ports = Ports::new();
    ports.paces(1).never_random().sends(
        1,
        Err(NetworkError::OutcomeUnknown {
            detail: "timed out waiting for the answer".into(),
        }),
    );
    ports.pacer.expect_slow_down().times(0);
    let (report, completion) = dispatch_single(ports, job(1));
    assert_eq!(
        completion.outcome,
        JobOutcome::AwaitCallback {
            until: now() + seconds(240),
            detail: "timed out waiting for the answer".into()
        }
    );
    assert_eq!(report, one_claimed(|r| r.awaiting_callback = 1));
}

/// Asserts `outcome` is a `delivery_expired` failure naming `last_error`.
fn assert_expired(outcome: &JobOutcome, last_error: &str) {
    let JobOutcome::Failed { error } = outcome else {
        panic!("expected delivery_expired, got {outcome:?}");
    };
    assert_eq!(error.code, "delivery_expired");
    assert!(error.detail.contains(last_error), "{}", error.detail);
}

#[test]
fn a_retry_that_would_land_past_the_deadline_fails_as_delivery_expired() {
    // Retryable: backoff 3 s (middle byte), deadline in 2 s.
    let mut ports = Ports::new();
    ports
        .paces(1)
        .random_byte(128)
        .sends(1, Err(retryable("service unavailable", None)));
    let mut tight = job(1);
    tight.deadline = now() + seconds(2);
    let (report, completion) = dispatch_single(ports, tight);
    assert_expired(&completion.outcome, "service unavailable");
    assert_eq!(report, one_claimed(|r| r.failed = 1));

    // Throttled: the sender is still slowed down, though the message gives up.
    let mut ports = Ports::new();
    ports.paces(1).never_random().sends(
        1,
        Err(NetworkError::Throttled {
            code: 130_429,
            detail: "throughput exceeded".into(),
            retry_after: Some(seconds(30)),
        }),
    );
    ports.pacer.expect_slow_down().times(1).return_const(());
    let mut tight = job(1);
    tight.deadline = now() + seconds(29);
    let (_, completion) = dispatch_single(ports, tight);
    assert_expired(&completion.outcome, "throughput exceeded");

    // Credentials.
    let mut ports = Ports::new();
    ports.paces(1).never_random().sends(
        1,
        Err(NetworkError::Credentials {
            code: None,
            detail: "token lacks permission".into(),
        }),
    );
    let mut tight = job(1);
    tight.deadline = now() + seconds(300);
    let (_, completion) = dispatch_single(ports, tight);
    assert_expired(&completion.outcome, "token lacks permission");
}

#[test]
fn a_retry_exactly_at_the_deadline_fails_and_one_just_before_it_retries() {
    for (deadline, expires) in [(now() + seconds(3), true), (now() + millis(3_001), false)] {
        let mut ports = Ports::new();
        ports
            .paces(1)
            .random_byte(128)
            .sends(1, Err(retryable("busy", None)));
        let mut due = job(1);
        due.deadline = deadline;
        let (_, completion) = dispatch_single(ports, due);
        if expires {
            assert_expired(&completion.outcome, "busy");
        } else {
            assert_eq!(
                completion.outcome,
                JobOutcome::Retry {
                    at: now() + seconds(3),
                    error: "busy".into()
                }
            );
        }
    }
}

// ---- a round of several jobs ----

#[test]
fn a_round_paces_only_the_jobs_it_sends_and_counts_every_outcome() {
    let mut done = job(1);
    done.message.status = MessageStatus::Sent;
    let mut held = job(2);
    held.account_status = AccountStatus::Suspended;
    let mut expired = job(3);
    expired.deadline = now() - seconds(1);
    let mut reclaimed = job(4);
    reclaimed.history = JobHistory::Reclaimed;
    let jobs = vec![done, held, expired, reclaimed, job(5), job(6), job(7), job(8)];

    let mut ports = Ports::new();
    ports.claims(jobs);
    // Only jobs 5–8 reach the network, each after its turn.
    ports.paces(4).random_byte(0);
    let answers: HashMap<MessageId, Result<NetworkReceipt, NetworkError>> = HashMap::from([
        (
            stored_message(5).id,
            Ok(NetworkReceipt {
                network_message_id: wamid(5),
                route: crate::marketing::NetworkRoute::CloudApi,
            }),
        ),
        (stored_message(6).id, Err(retryable("busy", None))),
        (stored_message(7).id, Err(NetworkError::Permanent(refused()))),
        (
            stored_message(8).id,
            Err(NetworkError::OutcomeUnknown {
                detail: "connection reset".into(),
            }),
        ),
    ]);
    ports
        .network
        .expect_send()
        .times(4)
        .returning(move |_, m, _| answers[&m.id].clone());
    let seen = ports.completes(true);

    let report = run(ports.dispatcher().run_once()).unwrap();
    assert_eq!(
        report,
        DispatchReport {
            claimed: 8,
            submitted: 1,
            retried: 1,
            failed: 2,
            awaiting_callback: 2,
            held: 1,
            already_done: 1,
            claims_lost: 0,
        }
    );
    let completions = seen.lock().unwrap();
    assert_eq!(completions.len(), 8);
    assert!(completions.iter().all(|c| c.token == token()));
    let mut job_ids: Vec<JobId> = completions.iter().map(|c| c.job_id).collect();
    job_ids.sort();
    assert_eq!(job_ids, (1..=8).map(job_id).collect::<Vec<_>>());
    // Every completion gets its own two event ids, distinct from the token's.
    let mut event_ids: Vec<EventId> = completions
        .iter()
        .flat_map(|c| [c.event_id, c.customer_event_id])
        .collect();
    event_ids.sort();
    event_ids.dedup();
    assert_eq!(event_ids.len(), 16);
    assert!(event_ids.iter().all(|e| e.ulid() != token().0));
}

#[test]
fn a_completion_refused_for_a_lost_claim_counts_as_claims_lost() {
    let mut ports = Ports::new();
    ports.claims(vec![job(1)]).paces(1).never_random().sends(
        1,
        Ok(NetworkReceipt {
            network_message_id: wamid(1),
            route: crate::marketing::NetworkRoute::CloudApi,
        }),
    );
    let seen = ports.completes(false);
    let report = run(ports.dispatcher().run_once()).unwrap();
    assert_eq!(report, one_claimed(|r| r.claims_lost = 1));
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn a_round_is_recorded_in_one_batch_in_claim_order_with_a_lost_claim_counted_alone() {
    let mut ports = Ports::new();
    ports.claims(vec![job(1), job(2), job(3)]).paces(3).never_random();
    ports.network.expect_send().times(3).returning(|_, m, _| {
        Ok(NetworkReceipt {
            network_message_id: format!("wamid.{}", m.id),
            route: crate::marketing::NetworkRoute::CloudApi,
        })
    });
    let batches = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&batches);
    ports
        .outbox
        .expect_complete_jobs()
        .times(1)
        .returning(move |completions| {
            keep.lock()
                .unwrap()
                .push(completions.iter().map(|c| c.job_id).collect::<Vec<_>>());
            // The second job's claim was lost; the store answers per completion, in order.
            Ok(completions.iter().map(|c| c.job_id != job_id(2)).collect())
        });
    ports.outbox.expect_complete_job().times(0);
    let report = run(ports.dispatcher().run_once()).unwrap();
    assert_eq!(
        report,
        DispatchReport {
            claimed: 3,
            submitted: 2,
            claims_lost: 1,
            ..DispatchReport::default()
        }
    );
    assert_eq!(
        *batches.lock().unwrap(),
        vec![vec![job_id(1), job_id(2), job_id(3)]],
        "one batch, in the order the jobs were claimed"
    );
}

/// A pacer that makes every send wait `wait` for its turn, as a sender far below the round's size does.
struct SlowPacer {
    wait: std::time::Duration,
}

#[async_trait::async_trait]
impl crate::ports::Pacer for SlowPacer {
    async fn wait_turn(&self, _: &crate::organization::SenderNumber) {
        futures_timer::Delay::new(self.wait).await;
    }

    fn slow_down(&self, _: &crate::organization::SenderNumber, _: Duration) {}
}

/// While a job waits for its sender's turn (here ten times a third of the lease), the round keeps renewing
/// its lease under the round's token, from the clock's now.
#[test]
fn the_lease_of_a_job_still_waiting_for_its_turn_is_renewed() {
    let lease = millis(30);
    let mut ports = Ports::new();
    ports.never_random();
    ports
        .outbox
        .expect_claim_jobs()
        .withf(move |t, _, until, _| *t == token() && *until == now() + lease)
        .times(1)
        .returning(|_, _, _, _| Ok(vec![job(1)]));
    ports.network.expect_send().times(1).returning(|_, m, _| {
        Ok(NetworkReceipt {
            network_message_id: format!("wamid.{}", m.id),
            route: crate::marketing::NetworkRoute::CloudApi,
        })
    });
    let renewals = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&renewals);
    ports
        .outbox
        .expect_renew_jobs()
        .returning(move |token, jobs, until| {
            keep.lock().unwrap().push((*token, jobs.to_vec(), until));
            Ok(jobs.len())
        });
    let seen = ports.completes(true);
    let dispatcher = DispatchMessages::new(
        DispatchPorts {
            outbox: Arc::new(ports.outbox),
            network: Arc::new(ports.network),
            catalog: Arc::new(ports.catalog),
            files: Arc::new(ports.files),
            pacer: Arc::new(SlowPacer {
                wait: std::time::Duration::from_millis(100),
            }),
            clock: Arc::new(ports.clock),
            ids: Arc::new(sequential_ids()),
            random: Arc::new(ports.random),
        },
        DispatchSettings { lease, ..settings() },
    );
    let report = run(dispatcher.run_once()).unwrap();
    assert_eq!(report, one_claimed(|r| r.submitted = 1));
    assert_eq!(seen.lock().unwrap().len(), 1);
    let renewals = renewals.lock().unwrap().clone();
    assert!(
        !renewals.is_empty(),
        "a job waiting longer than the lease is renewed"
    );
    assert!(
        renewals
            .iter()
            .all(|(t, jobs, until)| *t == token() && *jobs == vec![job_id(1)] && *until == now() + lease),
        "{renewals:?}"
    );
}

/// The round's jobs 1–3 are all submitted; the batch write fails with `batch`; then each is written alone,
/// where job 2's write fails and job 3's claim is found lost.
fn recorded_one_by_one_after(batch: Result<Vec<bool>, StoreError>) {
    let mut ports = Ports::new();
    ports.claims(vec![job(1), job(2), job(3)]).paces(3).never_random();
    ports.network.expect_send().times(3).returning(|_, m, _| {
        Ok(NetworkReceipt {
            network_message_id: format!("wamid.{}", m.id),
            route: crate::marketing::NetworkRoute::CloudApi,
        })
    });
    let batch = Mutex::new(Some(batch));
    ports
        .outbox
        .expect_complete_jobs()
        .times(1)
        .returning(move |_| batch.lock().unwrap().take().unwrap());
    let recorded = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&recorded);
    ports.outbox.expect_complete_job().times(3).returning(move |c| {
        keep.lock().unwrap().push(c.clone());
        match c.job_id {
            id if id == job_id(2) => Err(StoreError::Unavailable("connection dropped".into())),
            id => Ok(id != job_id(3)),
        }
    });
    let report = run(ports.dispatcher().run_once()).unwrap();
    // The unrecorded job is neither submitted nor a lost claim: its lease will expire and it comes back.
    assert_eq!(
        report,
        DispatchReport {
            claimed: 3,
            submitted: 1,
            claims_lost: 1,
            ..DispatchReport::default()
        }
    );
    let recorded = recorded.lock().unwrap().clone();
    let mut ids: Vec<JobId> = recorded.iter().map(|c| c.job_id).collect();
    ids.sort();
    assert_eq!(
        ids,
        vec![job_id(1), job_id(2), job_id(3)],
        "each completion written once more"
    );
    assert!(
        recorded.iter().all(|c| c.token == token()
            && matches!(c.outcome, JobOutcome::Submitted { ref network_message_id, .. }
                if *network_message_id == format!("wamid.{}", c.message_id))),
        "the same completions, under the round's token"
    );
}

#[test]
fn a_failed_batch_is_recorded_one_by_one_so_one_failure_does_not_abort_the_others() {
    recorded_one_by_one_after(Err(StoreError::Unavailable("serialization failure".into())));
}

#[test]
fn a_batch_answered_with_the_wrong_number_of_flags_is_recorded_one_by_one() {
    recorded_one_by_one_after(Ok(vec![true]));
}

// ---- stored media: uploaded to the network once per sender, then sent by id ----

mod stored_media {
    use super::*;
    use crate::attachment::{MediaAttachment, MediaKind, MediaSource};
    use crate::ids::MediaId;
    use crate::media::{ContentRef, MediaFile, MediaRecord, Sha256Digest};
    use crate::message::MessageContent;

    fn media_id() -> MediaId {
        MediaId::from_ulid(ulid(900))
    }

    fn digest() -> Sha256Digest {
        Sha256Digest::from_bytes([3; 32])
    }

    fn media_job() -> ClaimedJob {
        let mut job = job(1);
        job.message.content = MessageContent::Media {
            media: MediaAttachment {
                kind: MediaKind::Image,
                source: MediaSource::Stored(media_id()),
                filename: None,
            },
            caption: None,
        };
        job
    }

    fn upload_row() -> MediaFile {
        MediaFile::new(
            media_id(),
            org_id(),
            ContentRef {
                sha256: digest(),
                kind: MediaKind::Image,
                mime_type: "image/png".into(),
                size: 5,
            },
            None,
            now(),
        )
    }

    fn knows_upload(ports: &mut Ports, record: Option<MediaRecord>) {
        ports
            .catalog
            .expect_media()
            .withf(|org, id| *org == org_id() && *id == media_id())
            .times(1)
            .returning(move |_, _| Ok(record.clone()));
    }

    fn sends_by(ports: &mut Ports, network_id: &'static str) {
        ports
            .network
            .expect_send()
            .withf(move |_, _, media| media.get(&media_id()).map(String::as_str) == Some(network_id))
            .times(1)
            .returning(|_, _, _| {
                Ok(NetworkReceipt {
                    network_message_id: wamid(1),
                    route: crate::marketing::NetworkRoute::CloudApi,
                })
            });
    }

    #[test]
    fn a_file_not_yet_on_the_network_is_uploaded_remembered_and_sent_by_its_id() {
        let mut ports = Ports::new();
        ports.paces(1).never_random();
        knows_upload(&mut ports, Some(MediaRecord::Uploaded(upload_row())));
        ports
            .catalog
            .expect_network_upload()
            .withf(|org, sender_id, sha, at| {
                *org == org_id()
                    && *sender_id == sender(1, DEFAULT_NUMBER, true).id
                    && *sha == digest()
                    && *at == now()
            })
            .times(1)
            .returning(|_, _, _, _| Ok(None));
        let file = tempfile_with(b"bytes");
        ports
            .files
            .expect_open()
            .withf(|sha| *sha == digest())
            .times(1)
            .returning(move |_| Ok(Some(std::fs::File::open(&file).unwrap())));
        ports
            .network
            .expect_upload_media()
            .withf(|s, upload| {
                *s == sender(1, DEFAULT_NUMBER, true) && upload.mime_type == "image/png" && upload.size == 5
            })
            .times(1)
            .returning(|_, _| Ok("net-77".into()));
        let remembered = Arc::new(Mutex::new(None));
        let keep = Arc::clone(&remembered);
        ports
            .catalog
            .expect_record_network_upload()
            .times(1)
            .returning(move |upload| {
                *keep.lock().unwrap() = Some(upload.clone());
                Ok(())
            });
        sends_by(&mut ports, "net-77");

        let (report, _) = dispatch_single(ports, media_job());

        assert_eq!(report, one_claimed(|r| r.submitted = 1));
        let upload = remembered.lock().unwrap().clone().unwrap();
        assert_eq!(upload.network_media_id, "net-77");
        assert_eq!(upload.sha256, digest());
        assert_eq!(upload.reuse_until, now() + chrono::TimeDelta::days(29));
    }

    #[test]
    fn an_earlier_upload_for_the_same_sender_is_reused() {
        let mut ports = Ports::new();
        ports.paces(1).never_random();
        knows_upload(&mut ports, Some(MediaRecord::Uploaded(upload_row())));
        ports
            .catalog
            .expect_network_upload()
            .times(1)
            .returning(|_, _, _, _| Ok(Some("net-1".into())));
        ports.files.expect_open().times(0);
        ports.network.expect_upload_media().times(0);
        sends_by(&mut ports, "net-1");

        let (report, _) = dispatch_single(ports, media_job());

        assert_eq!(report, one_claimed(|r| r.submitted = 1));
    }

    #[test]
    fn a_deleted_upload_fails_the_message_without_a_send() {
        let mut ports = Ports::new();
        ports.never_paces().never_sends().never_random();
        knows_upload(&mut ports, None);

        let (report, completion) = dispatch_single(ports, media_job());

        assert_eq!(report, one_claimed(|r| r.failed = 1));
        let JobOutcome::Failed { error } = completion.outcome else {
            panic!("expected a failure, got {:?}", completion.outcome);
        };
        assert_eq!(error.code, "media_unavailable");
    }

    #[test]
    fn an_upload_with_an_unknown_outcome_is_retried_not_awaited() {
        let mut ports = Ports::new();
        ports.never_paces().never_sends().random_byte(128);
        knows_upload(&mut ports, Some(MediaRecord::Uploaded(upload_row())));
        ports
            .catalog
            .expect_network_upload()
            .returning(|_, _, _, _| Ok(None));
        let file = tempfile_with(b"bytes");
        ports
            .files
            .expect_open()
            .returning(move |_| Ok(Some(std::fs::File::open(&file).unwrap())));
        ports.network.expect_upload_media().times(1).returning(|_, _| {
            Err(NetworkError::OutcomeUnknown {
                detail: "timed out".into(),
            })
        });

        let (report, completion) = dispatch_single(ports, media_job());

        assert_eq!(report, one_claimed(|r| r.retried = 1));
        assert!(matches!(completion.outcome, JobOutcome::Retry { .. }));
    }

    fn tempfile_with(bytes: &[u8]) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("herald-dispatch-{}", ulid::Ulid::new()));
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

/// A round answers each recorded job with its organization, sender and outcome, and for a submission how
/// long the message waited since it was accepted.
#[test]
fn a_round_reports_each_job_and_the_wait_of_a_submission() {
    let mut ports = Ports::new();
    ports.paces(1).never_random().sends(
        1,
        Ok(NetworkReceipt {
            network_message_id: wamid(1),
            route: crate::marketing::NetworkRoute::CloudApi,
        }),
    );
    let waited = job(1);
    ports.claims(vec![waited.clone()]);
    let _seen = ports.completes(true);

    let round = run(ports.dispatcher().run_round()).unwrap();

    assert_eq!(round.report, one_claimed(|r| r.submitted = 1));
    assert!(
        now() > waited.message.created_at,
        "the message was accepted before the round"
    );
    assert_eq!(
        round.jobs,
        [crate::usecases::DispatchedJob {
            organization_id: org_id(),
            sender_id: waited.sender.id,
            outcome: crate::usecases::DispatchOutcome::Submitted,
            accept_to_submitted: Some(now() - waited.message.created_at),
        }]
    );
}
