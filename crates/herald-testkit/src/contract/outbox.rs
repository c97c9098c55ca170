//! `OutboxStore`: claiming due jobs under a lease, and what each outcome writes.

use super::{Ports, RecordedEvent, accept_ok, new_organization, new_organization_with_sender};
use crate::fixtures::{SIMULATOR_SENDER_1, accept_request, at, next_ulid, sender, text_message};
use chrono::TimeDelta;
use herald_domain::Timestamp;
use herald_domain::customer_event::CustomerEventType;
use herald_domain::dispatch::{ClaimToken, ClaimedJob, JobCompletion, JobHistory, JobOutcome};
use herald_domain::ids::{EventId, JobId};
use herald_domain::message::{EventSource, Message, MessageError, MessageStatus};
use herald_domain::organization::{AccountStatus, Organization, SenderNumber};
use herald_domain::ports::{AcceptRequest, MessageQuery};
use std::collections::HashSet;

/// A new claim token.
pub(super) fn token() -> ClaimToken {
    ClaimToken(next_ulid())
}

/// Claims at `now` with a 60 s lease.
pub(super) async fn claim(ports: &Ports, token: ClaimToken, now: Timestamp, limit: u32) -> Vec<ClaimedJob> {
    ports
        .outbox
        .claim_jobs(&token, now, now + TimeDelta::seconds(60), limit)
        .await
        .expect("claim_jobs")
}

/// A completion of `job` under `token` at `at`.
pub(super) fn completion(
    job: &ClaimedJob,
    token: ClaimToken,
    outcome: JobOutcome,
    at: Timestamp,
) -> JobCompletion {
    JobCompletion {
        job_id: job.job_id,
        organization_id: job.organization_id,
        message_id: job.message.id,
        token,
        outcome,
        at,
        event_id: EventId::from_ulid(next_ulid()),
        customer_event_id: EventId::from_ulid(next_ulid()),
    }
}

async fn complete(ports: &Ports, completion: &JobCompletion) -> bool {
    ports.outbox.complete_job(completion).await.expect("complete_job")
}

async fn read(ports: &Ports, message: &Message) -> Message {
    ports
        .messages
        .message(&message.organization_id, &message.id)
        .await
        .expect("message")
        .expect("the message exists")
}

async fn history_len(ports: &Ports, message: &Message) -> usize {
    ports
        .messages
        .status_history(&message.organization_id, &message.id)
        .await
        .expect("status_history")
        .expect("the message exists")
        .len()
}

pub(super) async fn events_of(ports: &Ports, organization: &Organization) -> Vec<RecordedEvent> {
    ports
        .events
        .customer_events(&organization.id)
        .await
        .expect("customer_events")
}

pub(super) fn payload(event: &RecordedEvent) -> serde_json::Value {
    serde_json::from_str(&event.payload).expect("an event payload is JSON")
}

/// An organization with a sender and one message accepted at `at(0)`, its job due at once; and the job,
/// claimed at `at(1)` under the returned token.
async fn one_claimed_job(ports: &Ports) -> (Organization, Message, ClaimToken, ClaimedJob) {
    let (org, sender) = new_organization_with_sender(ports, "starter").await;
    let message = text_message(org.id, &sender, "+15551234567", at(0));
    accept_ok(ports, &accept_request(&message, None, None)).await;
    let token = token();
    let mut jobs = claim(ports, token, at(1), 10).await;
    assert_eq!(jobs.len(), 1, "the one due job must be claimed");
    let job = jobs.remove(0);
    (org, message, token, job)
}

fn error() -> MessageError {
    MessageError {
        code: "recipient_unreachable".to_owned(),
        title: "Recipient unreachable".to_owned(),
        detail: "the number is not on the network".to_owned(),
        network_code: Some(131_026),
    }
}

/// Due jobs come with their message, sender and account status; jobs not yet due stay; limit holds.
pub async fn outbox_claim_returns_due_jobs_with_context(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let due: Vec<Message> = (0..3)
        .map(|i| text_message(org.id, &sender, "+15551234567", at(i)))
        .collect();
    let mut requests: Vec<AcceptRequest> = due.iter().map(|m| accept_request(m, None, None)).collect();
    let later = text_message(org.id, &sender, "+15551234567", at(3));
    let mut later_request = accept_request(&later, None, None);
    later_request.job.available_at = at(40);
    for request in requests.iter().chain([&later_request]) {
        accept_ok(&ports, request).await;
    }

    let first = claim(&ports, token(), at(10), 2).await;
    assert_eq!(first.len(), 2, "claim_jobs must honour its limit");
    let second = claim(&ports, token(), at(10), 10).await;
    assert_eq!(
        second.len(),
        1,
        "the remaining due job is claimed; the one due at(40) is not"
    );
    let mut claimed: Vec<ClaimedJob> = first.into_iter().chain(second).collect();
    claimed.sort_by_key(|j| j.job_id);
    requests.sort_by_key(|r| r.job.id);
    for (job, request) in claimed.iter().zip(&requests) {
        assert_eq!(job.job_id, request.job.id);
        assert_eq!(job.organization_id, org.id);
        assert_eq!(job.attempts, 1, "the first claim is attempt 1");
        assert_eq!(job.history, JobHistory::Fresh);
        assert_eq!(job.deadline, request.job.deadline);
        assert_eq!(
            job.message, request.message,
            "the claimed job carries its message as accepted"
        );
        assert_eq!(job.sender, sender, "the claimed job carries its sender");
        assert_eq!(job.account_status, AccountStatus::Active);
    }
    assert!(
        claim(&ports, token(), at(39), 10).await.is_empty(),
        "a job is not claimed before its available_at"
    );
    let later_jobs = claim(&ports, token(), at(40), 10).await;
    assert_eq!(later_jobs.len(), 1, "a job is due at its available_at");
    assert_eq!(later_jobs[0].message.id, later.id);

    // The account status is read at claim time.
    let suspended = new_organization(&ports, "starter").await;
    let suspended_sender = sender_of(&ports, &suspended).await;
    let message = text_message(suspended.id, &suspended_sender, "+15551234567", at(0));
    accept_ok(&ports, &accept_request(&message, None, None)).await;
    ports
        .accounts
        .set_account_status(&suspended.id, AccountStatus::Suspended)
        .await
        .expect("set_account_status");
    let jobs = claim(&ports, token(), at(5), 10).await;
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].account_status, AccountStatus::Suspended);
}

async fn sender_of(ports: &Ports, organization: &Organization) -> SenderNumber {
    let sender = sender(organization.id, SIMULATOR_SENDER_1, true);
    ports.accounts.add_sender(&sender).await.expect("add_sender");
    sender
}

/// A live lease keeps the job from every other claim; once it expired the job is reclaimed (history
/// `Reclaimed`, attempt 2) and the old token can no longer complete it.
pub async fn outbox_lease_blocks_claims_until_it_expires(ports: Ports) {
    let (org, message, first_token, first) = one_claimed_job(&ports).await;
    assert!(
        claim(&ports, token(), at(30), 10).await.is_empty(),
        "a job under a live lease is not claimed again"
    );
    // The lease runs to at(61): at that very instant it still holds.
    assert!(claim(&ports, token(), at(61), 10).await.is_empty());
    let second_token = token();
    let reclaimed = claim(&ports, second_token, at(62), 10).await;
    assert_eq!(reclaimed.len(), 1, "an expired lease is reclaimed");
    assert_eq!(reclaimed[0].job_id, first.job_id);
    assert_eq!(reclaimed[0].history, JobHistory::Reclaimed);
    assert_eq!(reclaimed[0].attempts, 2);

    let stale = completion(
        &first,
        first_token,
        JobOutcome::Submitted {
            network_message_id: "wamid.stale".to_owned(),
            route: herald_domain::marketing::NetworkRoute::CloudApi,
        },
        at(63),
    );
    assert!(
        !complete(&ports, &stale).await,
        "the token of an expired claim must not complete the job"
    );
    assert_eq!(
        read(&ports, &message).await.status,
        MessageStatus::Accepted,
        "nothing was written"
    );
    assert_eq!(history_len(&ports, &message).await, 1);
    assert!(events_of(&ports, &org).await.is_empty());

    let current = completion(&reclaimed[0], second_token, JobOutcome::AlreadyDone, at(64));
    assert!(
        complete(&ports, &current).await,
        "the current claim completes the job"
    );
}

/// Renewing extends the lease of the jobs the token still holds: past the first lease the job is not
/// reclaimed, and its claim can still record the outcome. Another token, an unknown job or a job already
/// completed renews nothing.
pub async fn outbox_renewed_lease_keeps_the_claim(ports: Ports) {
    let (_, message, first_token, first) = one_claimed_job(&ports).await;
    let renew = |token: ClaimToken, jobs: Vec<JobId>, until: i64| {
        let ports = ports.clone();
        async move {
            ports
                .outbox
                .renew_jobs(&token, &jobs, at(until))
                .await
                .expect("renew_jobs")
        }
    };
    assert_eq!(
        renew(token(), vec![first.job_id], 200).await,
        0,
        "another token renews nothing"
    );
    assert_eq!(
        renew(
            first_token,
            vec![first.job_id, JobId::from_ulid(next_ulid())],
            200
        )
        .await,
        1,
        "the holder renews its job; an unknown id is not counted"
    );
    assert!(
        claim(&ports, token(), at(100), 10).await.is_empty(),
        "past the first lease, the renewed one still holds"
    );
    assert!(
        complete(
            &ports,
            &completion(
                &first,
                first_token,
                JobOutcome::Submitted {
                    network_message_id: "wamid.RENEWED".to_owned(),
                    route: herald_domain::marketing::NetworkRoute::CloudApi,
                },
                at(150)
            )
        )
        .await,
        "the renewed claim records the outcome"
    );
    assert_eq!(read(&ports, &message).await.status, MessageStatus::Submitted);
    assert_eq!(
        renew(first_token, vec![first.job_id], 300).await,
        0,
        "a completed job is not renewed"
    );
}

/// `Submitted`: the job is done, the message `submitted` with the network id, one history entry and one
/// `message.status` event (sequence 1) with the docs/api.md §9 body.
pub async fn outbox_submitted_sets_status_and_emits_one_event(ports: Ports) {
    let (org, message, token, job) = one_claimed_job(&ports).await;
    let done = completion(
        &job,
        token,
        JobOutcome::Submitted {
            network_message_id: "wamid.SUBMITTED1".to_owned(),
            route: herald_domain::marketing::NetworkRoute::CloudApi,
        },
        at(2),
    );
    assert!(complete(&ports, &done).await);

    let after = read(&ports, &message).await;
    assert_eq!(after.status, MessageStatus::Submitted);
    assert_eq!(after.network_message_id.as_deref(), Some("wamid.SUBMITTED1"));
    assert_eq!(after.timestamps.submitted, Some(at(2)));
    assert_eq!(after.updated_at, at(2));
    let history = ports
        .messages
        .status_history(&org.id, &message.id)
        .await
        .expect("status_history")
        .expect("exists");
    assert_eq!(history.len(), 2, "accepted + submitted");
    let entry = &history[1];
    assert_eq!(entry.id, done.event_id);
    assert_eq!(entry.status, MessageStatus::Submitted);
    assert_eq!(entry.previous_status, Some(MessageStatus::Accepted));
    assert!(entry.applied);
    assert_eq!(entry.source, EventSource::Herald);

    let events = events_of(&ports, &org).await;
    assert_eq!(events.len(), 1, "one status change, one customer event");
    let event = &events[0];
    assert_eq!(event.id, done.customer_event_id);
    assert_eq!(event.event_type, CustomerEventType::MessageStatus);
    assert_eq!(
        event.message_id,
        Some(herald_domain::content::MessageRef::Outbound(message.id))
    );
    assert_eq!(event.sequence, 1);
    let body = payload(event);
    assert_eq!(body["type"], "message.status");
    assert_eq!(body["data"]["message_id"], message.id.to_string());
    assert_eq!(body["data"]["status"], "submitted");
    assert_eq!(body["data"]["previous_status"], "accepted");
    assert_eq!(body["data"]["to"], "+15551234567");
    assert_eq!(body["data"]["from"], SIMULATOR_SENDER_1);
    assert_eq!(body["data"]["client_reference"], serde_json::Value::Null);
    assert_eq!(body["data"]["network_message_id"], "wamid.SUBMITTED1");
    assert_eq!(body["data"]["sequence"], 1);
    let occurred = at(2).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    assert_eq!(
        body["data"]["occurred_at"],
        occurred.as_str(),
        "RFC 3339, milliseconds, Z"
    );
    assert_eq!(body["timestamp"], occurred.as_str());
    assert!(body["data"].get("error").is_none());

    assert!(
        !complete(&ports, &done).await,
        "a completed job cannot be completed again"
    );
    assert!(
        claim(&ports, super::outbox::token(), at(100_000), 10)
            .await
            .is_empty(),
        "a done job is never claimed again"
    );
}

/// `Failed`: the message fails with the error; one `message.failed` event; the job is never claimed again.
pub async fn outbox_failed_fails_the_message(ports: Ports) {
    let (org, message, token, job) = one_claimed_job(&ports).await;
    assert!(
        complete(
            &ports,
            &completion(&job, token, JobOutcome::Failed { error: error() }, at(2))
        )
        .await
    );
    let after = read(&ports, &message).await;
    assert_eq!(after.status, MessageStatus::Failed);
    assert_eq!(after.error, Some(error()));
    assert_eq!(after.timestamps.failed, Some(at(2)));
    assert_eq!(history_len(&ports, &message).await, 2);
    let events = events_of(&ports, &org).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event_type, CustomerEventType::MessageFailed);
    let body = payload(&events[0]);
    assert_eq!(body["type"], "message.failed");
    assert_eq!(body["data"]["status"], "failed");
    assert_eq!(body["data"]["error"]["code"], "recipient_unreachable");
    assert_eq!(body["data"]["error"]["network_code"], 131_026);
    assert!(
        claim(&ports, super::outbox::token(), at(100_000), 10)
            .await
            .is_empty()
    );
}

/// `Retry`: nothing happens to the message; the job is due again at the given time, as `Retried`.
pub async fn outbox_retry_is_claimed_again_as_retried(ports: Ports) {
    let (org, message, token, job) = one_claimed_job(&ports).await;
    let retry = JobOutcome::Retry {
        at: at(100),
        error: "network busy".to_owned(),
    };
    assert!(complete(&ports, &completion(&job, token, retry, at(2))).await);
    assert_eq!(read(&ports, &message).await.status, MessageStatus::Accepted);
    assert_eq!(
        history_len(&ports, &message).await,
        1,
        "a retry writes no history"
    );
    assert!(events_of(&ports, &org).await.is_empty(), "a retry emits no event");
    assert!(claim(&ports, super::outbox::token(), at(99), 10).await.is_empty());
    let again = claim(&ports, super::outbox::token(), at(100), 10).await;
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].history, JobHistory::Retried);
    assert_eq!(again[0].attempts, 2);
}

/// `AwaitCallback`: due again at `until`, as `AwaitedCallback`; the flag goes with that claim.
pub async fn outbox_await_callback_is_claimed_again_as_awaited(ports: Ports) {
    let (_org, message, token, job) = one_claimed_job(&ports).await;
    let wait = JobOutcome::AwaitCallback {
        until: at(300),
        detail: "timeout after sending".to_owned(),
    };
    assert!(complete(&ports, &completion(&job, token, wait, at(2))).await);
    assert_eq!(read(&ports, &message).await.status, MessageStatus::Accepted);
    assert!(
        claim(&ports, super::outbox::token(), at(299), 10)
            .await
            .is_empty()
    );
    let awaited_token = super::outbox::token();
    let awaited = claim(&ports, awaited_token, at(300), 10).await;
    assert_eq!(awaited.len(), 1);
    assert_eq!(awaited[0].history, JobHistory::AwaitedCallback);
    assert_eq!(awaited[0].attempts, 2);

    let retry = JobOutcome::Retry {
        at: at(400),
        error: "still busy".to_owned(),
    };
    assert!(complete(&ports, &completion(&awaited[0], awaited_token, retry, at(301))).await);
    let retried = claim(&ports, super::outbox::token(), at(400), 10).await;
    assert_eq!(
        retried[0].history,
        JobHistory::Retried,
        "the wait-for-callback flag does not outlive the claim that read it"
    );
    assert_eq!(retried[0].attempts, 3);
}

/// `Hold`: due again at `until` with the attempt given back.
pub async fn outbox_hold_does_not_count_an_attempt(ports: Ports) {
    let (_org, message, token, job) = one_claimed_job(&ports).await;
    assert!(
        complete(
            &ports,
            &completion(&job, token, JobOutcome::Hold { until: at(50) }, at(2))
        )
        .await
    );
    assert_eq!(read(&ports, &message).await.status, MessageStatus::Accepted);
    assert!(claim(&ports, super::outbox::token(), at(49), 10).await.is_empty());
    let again = claim(&ports, super::outbox::token(), at(50), 10).await;
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].attempts, 1, "a hold is not an attempt");
    assert_eq!(
        again[0].history,
        JobHistory::Fresh,
        "a held fresh job is still fresh"
    );
}

/// `AlreadyDone`: the job closes; the message, its history and events are untouched.
pub async fn outbox_already_done_closes_the_job(ports: Ports) {
    let (org, message, token, job) = one_claimed_job(&ports).await;
    assert!(complete(&ports, &completion(&job, token, JobOutcome::AlreadyDone, at(2))).await);
    assert_eq!(read(&ports, &message).await, message);
    assert_eq!(history_len(&ports, &message).await, 1);
    assert!(events_of(&ports, &org).await.is_empty());
    assert!(
        claim(&ports, super::outbox::token(), at(100_000), 10)
            .await
            .is_empty()
    );
}

/// `complete_jobs`: a round's outcomes recorded together, each exactly as `complete_job` records it alone
/// and only under its own claim token. A lost claim (or a job already completed earlier in the same batch)
/// answers `false` and writes nothing, without keeping the others from being recorded.
pub async fn outbox_batch_completion_records_each_under_its_own_token(ports: Ports) {
    assert!(
        ports
            .outbox
            .complete_jobs(&[])
            .await
            .expect("complete_jobs")
            .is_empty(),
        "an empty batch answers nothing"
    );
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let messages: Vec<Message> = (0..7)
        .map(|i| {
            text_message(
                org.id,
                &sender,
                "+15551234567",
                at(0) + TimeDelta::milliseconds(i),
            )
        })
        .collect();
    // The first one is claimed alone and its lease runs out; another claim takes it over with the rest.
    accept_ok(&ports, &accept_request(&messages[0], None, None)).await;
    let stale_token = token();
    let stale = claim(&ports, stale_token, at(1), 10).await;
    assert_eq!(stale.len(), 1);
    for message in &messages[1..] {
        accept_ok(&ports, &accept_request(message, None, None)).await;
    }
    let round_token = token();
    let mut jobs = claim(&ports, round_token, at(62), 10).await;
    assert_eq!(
        jobs.len(),
        7,
        "the expired claim's job is taken over with the six new ones"
    );
    jobs.sort_by_key(|j| j.message.id);
    let job_of = |message: &Message| -> ClaimedJob {
        jobs.iter()
            .find(|j| j.message.id == message.id)
            .cloned()
            .expect("every message's job was claimed")
    };

    let submitted = completion(
        &job_of(&messages[1]),
        round_token,
        JobOutcome::Submitted {
            network_message_id: "wamid.BATCH1".to_owned(),
            route: herald_domain::marketing::NetworkRoute::CloudApi,
        },
        at(63),
    );
    let batch = vec![
        // The old claim no longer holds its job.
        completion(&stale[0], stale_token, JobOutcome::AlreadyDone, at(63)),
        submitted.clone(),
        completion(
            &job_of(&messages[2]),
            round_token,
            JobOutcome::Failed { error: error() },
            at(63),
        ),
        completion(
            &job_of(&messages[3]),
            round_token,
            JobOutcome::Retry {
                at: at(100),
                error: "busy".to_owned(),
            },
            at(63),
        ),
        completion(
            &job_of(&messages[4]),
            round_token,
            JobOutcome::AwaitCallback {
                until: at(200),
                detail: "timeout".to_owned(),
            },
            at(63),
        ),
        completion(
            &job_of(&messages[5]),
            round_token,
            JobOutcome::Hold { until: at(150) },
            at(63),
        ),
        completion(
            &job_of(&messages[6]),
            round_token,
            JobOutcome::AlreadyDone,
            at(63),
        ),
        // The same job twice in one batch: the first completion released it, so the second finds no claim.
        completion(
            &job_of(&messages[1]),
            round_token,
            JobOutcome::Failed { error: error() },
            at(63),
        ),
    ];
    let held = ports.outbox.complete_jobs(&batch).await.expect("complete_jobs");
    assert_eq!(
        held,
        [false, true, true, true, true, true, true, false],
        "one answer per completion, in order"
    );

    let submitted_message = read(&ports, &messages[1]).await;
    assert_eq!(submitted_message.status, MessageStatus::Submitted);
    assert_eq!(
        submitted_message.network_message_id.as_deref(),
        Some("wamid.BATCH1")
    );
    assert_eq!(
        history_len(&ports, &messages[1]).await,
        2,
        "the second completion wrote nothing"
    );
    let failed = read(&ports, &messages[2]).await;
    assert_eq!(failed.status, MessageStatus::Failed);
    assert_eq!(failed.error, Some(error()));
    for untouched in [
        &messages[0],
        &messages[3],
        &messages[4],
        &messages[5],
        &messages[6],
    ] {
        assert_eq!(read(&ports, untouched).await.status, MessageStatus::Accepted);
        assert_eq!(history_len(&ports, untouched).await, 1);
    }
    let events = events_of(&ports, &org).await;
    let mut kinds: Vec<(Option<String>, CustomerEventType)> = events
        .iter()
        .map(|e| (e.message_id.map(|id| id.to_string()), e.event_type))
        .collect();
    kinds.sort_by_key(|(id, _)| id.clone());
    assert_eq!(
        kinds,
        [
            (Some(messages[1].id.to_string()), CustomerEventType::MessageStatus),
            (Some(messages[2].id.to_string()), CustomerEventType::MessageFailed),
        ],
        "one customer event per status change, none for the refused completions"
    );
    assert!(events.iter().any(|e| e.id == submitted.customer_event_id));

    // The refused stale completion left the job with the round's claim, which still completes it.
    let current = completion(
        &job_of(&messages[0]),
        round_token,
        JobOutcome::AlreadyDone,
        at(64),
    );
    assert_eq!(
        ports
            .outbox
            .complete_jobs(&[current])
            .await
            .expect("complete_jobs"),
        [true]
    );
    // Each pending outcome is due again at its own time, with its own history (and is then closed, so its
    // lease does not bring it back in the later claims).
    let claim_and_close = |now: Timestamp| {
        let ports = ports.clone();
        async move {
            let token = token();
            let jobs = claim(&ports, token, now, 10).await;
            for job in &jobs {
                assert!(complete(&ports, &completion(job, token, JobOutcome::AlreadyDone, now)).await);
            }
            jobs
        }
    };
    assert!(claim(&ports, token(), at(99), 10).await.is_empty());
    let retried = claim_and_close(at(100)).await;
    assert_eq!(retried.len(), 1);
    assert_eq!(retried[0].message.id, messages[3].id);
    assert_eq!(retried[0].history, JobHistory::Retried);
    let held_again = claim_and_close(at(150)).await;
    assert_eq!(held_again.len(), 1);
    assert_eq!(held_again[0].message.id, messages[5].id);
    assert_eq!(held_again[0].attempts, 1, "a hold is not an attempt");
    let awaited = claim_and_close(at(200)).await;
    assert_eq!(awaited.len(), 1);
    assert_eq!(awaited[0].message.id, messages[4].id);
    assert_eq!(awaited[0].history, JobHistory::AwaitedCallback);
    assert!(
        claim(&ports, token(), at(100_000), 10).await.is_empty(),
        "the done and failed jobs are never claimed again"
    );
}

const CONCURRENT_MESSAGES: usize = 2_000;
const CLAIMERS: usize = 4;

/// One sender's backlog does not fill the batch: with 50 due jobs of one sender and 1 newer due job of
/// another, a claim of 10 takes the second sender's job beside the first sender's oldest ones, and once
/// only one sender has due jobs, it may fill a whole batch.
pub async fn outbox_claim_takes_a_fair_share_per_sender(ports: Ports) {
    let (busy_org, busy_sender) = new_organization_with_sender(&ports, "starter").await;
    let (quiet_org, quiet_sender) = new_organization_with_sender(&ports, "starter").await;
    let backlog: Vec<Message> = (0..50)
        .map(|i| text_message(busy_org.id, &busy_sender, "+15551234567", at(i)))
        .collect();
    for message in &backlog {
        accept_ok(&ports, &accept_request(message, None, None)).await;
    }
    let quiet = text_message(quiet_org.id, &quiet_sender, "+15551234567", at(60));
    accept_ok(&ports, &accept_request(&quiet, None, None)).await;

    let first = claim(&ports, token(), at(100), 10).await;
    assert!(first.len() <= 10, "claim_jobs must honour its limit");
    assert!(
        first.iter().any(|job| job.message.id == quiet.id),
        "the other sender's due job must be claimed beside the backlog"
    );
    let mut busy: Vec<_> = first
        .iter()
        .filter(|job| job.message.sender_id == busy_sender.id)
        .map(|job| job.message.id)
        .collect();
    busy.sort();
    let oldest: Vec<_> = backlog.iter().take(busy.len()).map(|m| m.id).collect();
    assert!(!busy.is_empty(), "the backlog's sender must get its share too");
    assert_eq!(busy, oldest, "a sender's share is its oldest due jobs");

    let rest = claim(&ports, token(), at(100), 100).await;
    assert_eq!(
        rest.len(),
        backlog.len() - busy.len(),
        "a sender alone with due jobs may fill the batch"
    );
}

/// A sender at 1 message/s gets no more jobs per claim than it can send within the lease (3 with a 3 s lease,
/// its oldest), and at least one however short the lease; the rest stay due for the next claim.
pub async fn outbox_claim_takes_no_more_of_a_sender_than_it_sends_within_the_lease(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    let slow = SenderNumber {
        throughput_per_second: 1,
        ..sender(org.id, SIMULATOR_SENDER_1, true)
    };
    ports.accounts.add_sender(&slow).await.expect("add_sender");
    let backlog: Vec<Message> = (0..10)
        .map(|i| text_message(org.id, &slow, "+15551234567", at(i)))
        .collect();
    for message in &backlog {
        accept_ok(&ports, &accept_request(message, None, None)).await;
    }
    let claim_with_lease = |lease_ms: i64| {
        let ports = ports.clone();
        async move {
            let mut ids: Vec<_> = ports
                .outbox
                .claim_jobs(&token(), at(100), at(100) + TimeDelta::milliseconds(lease_ms), 10)
                .await
                .expect("claim_jobs")
                .iter()
                .map(|job| job.message.id)
                .collect();
            ids.sort();
            ids
        }
    };
    let oldest: Vec<_> = backlog.iter().take(3).map(|m| m.id).collect();
    assert_eq!(
        claim_with_lease(3_000).await,
        oldest,
        "three seconds' worth, the oldest"
    );
    assert_eq!(
        claim_with_lease(200).await,
        vec![backlog[3].id],
        "at least one, however short the lease"
    );
    assert_eq!(claim_with_lease(60_000).await.len(), 6, "the rest stayed due");
}

/// 2,000 jobs, 4 claimers looping claim(50) + complete(Submitted) until nothing is due: every job is
/// claimed and completed exactly once and every message ends `submitted`.
pub async fn outbox_concurrent_claims_complete_every_job_once(ports: Ports) {
    use futures::StreamExt;
    let (org, sender) = new_organization_with_sender(&ports, "enterprise").await;
    let messages: Vec<Message> = (0..CONCURRENT_MESSAGES)
        .map(|_| text_message(org.id, &sender, "+15551234567", at(0)))
        .collect();
    futures::stream::iter(messages.iter().map(|m| {
        let ports = ports.clone();
        let request = accept_request(m, None, None);
        async move { accept_ok(&ports, &request).await }
    }))
    .buffer_unordered(8)
    .collect::<Vec<()>>()
    .await;

    let claimers: Vec<_> = (0..CLAIMERS)
        .map(|_| {
            let ports = ports.clone();
            tokio::spawn(async move {
                let token = token();
                let mut done = Vec::new();
                loop {
                    // Everyone claims at one instant with an hour's lease: no lease can expire mid-test.
                    let jobs = ports
                        .outbox
                        .claim_jobs(&token, at(10), at(3_610), 50)
                        .await
                        .expect("claim_jobs");
                    if jobs.is_empty() {
                        return done;
                    }
                    for job in jobs {
                        let outcome = JobOutcome::Submitted {
                            network_message_id: format!("wamid.{}", job.job_id),
                            route: herald_domain::marketing::NetworkRoute::CloudApi,
                        };
                        let held = ports
                            .outbox
                            .complete_job(&completion(&job, token, outcome, at(11)))
                            .await
                            .expect("complete_job");
                        assert!(held, "a claimer must be able to complete every job it claimed");
                        done.push(job.job_id);
                    }
                }
            })
        })
        .collect();
    let mut all = Vec::new();
    for claimer in claimers {
        all.extend(claimer.await.expect("claimer task"));
    }
    let distinct: HashSet<_> = all.iter().copied().collect();
    assert_eq!(distinct.len(), all.len(), "no job may be claimed twice");
    assert_eq!(all.len(), CONCURRENT_MESSAGES, "every job is claimed once");

    let submitted = ports
        .messages
        .messages(
            &org.id,
            &MessageQuery {
                status: Some(MessageStatus::Submitted),
                limit: u32::try_from(CONCURRENT_MESSAGES * 2).expect("small"),
                ..MessageQuery::default()
            },
        )
        .await
        .expect("messages");
    assert_eq!(
        submitted.len(),
        CONCURRENT_MESSAGES,
        "every message ends submitted"
    );
    assert!(
        claim(&ports, super::outbox::token(), at(100_000), 10)
            .await
            .is_empty()
    );
}

/// The backlog lists each sender with jobs not done (pending or in flight) and when its oldest due pending
/// job became due; jobs not yet due count in the depth only, done ones not at all, and each organization's
/// sender is its own line.
pub async fn outbox_backlog_counts_open_jobs_per_sender(ports: Ports) {
    assert!(
        ports.outbox.backlog(at(0)).await.expect("backlog").is_empty(),
        "an empty outbox has no backlog"
    );
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    for i in 0..3 {
        let message = text_message(org.id, &sender, "+15551234567", at(i));
        let mut request = accept_request(&message, None, None);
        request.job.available_at = at(i);
        accept_ok(&ports, &request).await;
    }
    let later = text_message(org.id, &sender, "+15551234567", at(3));
    let mut later_request = accept_request(&later, None, None);
    later_request.job.available_at = at(40);
    accept_ok(&ports, &later_request).await;
    // A broadcast's held job is the broadcast's own queue, not dispatch backlog.
    let held = text_message(org.id, &sender, "+15551234568", at(3));
    let mut held_request = accept_request(&held, None, None);
    held_request.job.available_at = herald_domain::broadcast::held_until();
    accept_ok(&ports, &held_request).await;
    let (other, other_sender) = new_organization_with_sender(&ports, "starter").await;
    let message = text_message(other.id, &other_sender, "+15551234567", at(5));
    let mut request = accept_request(&message, None, None);
    request.job.available_at = at(5);
    accept_ok(&ports, &request).await;

    let backlog_at = |now: Timestamp| {
        let ports = &ports;
        async move {
            let mut lines = ports.outbox.backlog(now).await.expect("backlog");
            lines.sort_by_key(|line| line.organization_id != org.id);
            lines
        }
    };
    let lines = backlog_at(at(2)).await;
    assert_eq!(lines.len(), 2, "one line per sender with open jobs: {lines:?}");
    assert_eq!(
        (lines[0].organization_id, lines[0].sender_id),
        (org.id, sender.id)
    );
    assert_eq!(
        lines[0].depth, 4,
        "due or not, every pending job counts, held ones not"
    );
    assert_eq!(lines[0].oldest_due, Some(at(0)));
    assert_eq!(
        (lines[1].organization_id, lines[1].sender_id, lines[1].depth),
        (other.id, other_sender.id, 1)
    );
    assert_eq!(lines[1].oldest_due, None, "its job is not due before at(5)");

    // Claimed jobs still count in the depth, but are no longer waiting to be taken.
    let round = token();
    let claimed = claim(&ports, round, at(10), 1).await;
    assert_eq!(claimed.len(), 1);
    let lines = backlog_at(at(10)).await;
    assert_eq!(lines[0].depth, 4);
    let oldest = lines[0].oldest_due.expect("two jobs are still due");
    assert!(oldest > at(0), "the claimed job is no longer the oldest due one");

    // A done job leaves the backlog.
    let done = completion(&claimed[0], round, JobOutcome::AlreadyDone, at(11));
    assert!(complete(&ports, &done).await);
    let lines = backlog_at(at(11)).await;
    assert_eq!(lines[0].depth, 3);
    assert_eq!(lines[1].depth, 1);
}
