//! `ScheduleStore`: cancelling a scheduled message, against the dispatch claim it races with.

use super::outbox::{claim, events_of, payload, token};
use super::{Ports, accept_ok, new_organization_with_sender};
use crate::fixtures::{accept_request, at, next_ulid, text_message};
use chrono::TimeDelta;
use herald_domain::Timestamp;
use herald_domain::customer_event::CustomerEventType;
use herald_domain::ids::EventId;
use herald_domain::message::{EventSource, Message, MessageStatus};
use herald_domain::organization::{Organization, SenderNumber};
use herald_domain::ports::{AcceptRequest, CancelOutcome};
use herald_domain::status::{StatusReport, StatusUpdate};
use herald_domain::time::BillingPeriod;
use std::collections::HashSet;

/// When the scheduled messages of these scenarios are due.
const SEND_AT: i64 = 3_600;

/// A message accepted at `at(accepted)` to be sent at `at(SEND_AT)`, as the send use case writes it.
fn scheduled(org: &Organization, sender: &SenderNumber, accepted: i64) -> (Message, AcceptRequest) {
    let message = text_message(org.id, sender, "+15551234567", at(accepted)).scheduled_for(at(SEND_AT));
    let mut request = accept_request(&message, Some(1_000), None);
    request.event.status = MessageStatus::Scheduled;
    request.job.available_at = at(SEND_AT);
    request.job.deadline = at(SEND_AT) + TimeDelta::hours(24);
    (message, request)
}

/// The report `CancelMessage` hands the store.
pub(super) fn cancel_update(message: &Message, organization: &Organization, when: Timestamp) -> StatusUpdate {
    StatusUpdate {
        organization_id: organization.id,
        message_id: message.id,
        report: StatusReport {
            status: MessageStatus::Cancelled,
            occurred_at: when,
            error: None,
        },
        network_message_id: None,
        source: EventSource::Herald,
        event_id: EventId::from_ulid(next_ulid()),
        customer_event_id: EventId::from_ulid(next_ulid()),
        recorded_at: when,
        pricing: None,
    }
}

pub(super) async fn usage(ports: &Ports, organization: &Organization) -> u64 {
    ports
        .messages
        .usage(&organization.id, &BillingPeriod::containing(at(0)))
        .await
        .expect("usage")
}

/// A scheduled message reads back as written; a cancel before its claim removes the job (nothing is
/// claimed at its time), makes it `cancelled` with one `message.status` event, gives its quota count back,
/// and a second cancel is refused.
pub async fn schedule_cancel_removes_the_job_and_gives_the_quota_back(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let (message, request) = scheduled(&org, &sender, 0);
    accept_ok(&ports, &request).await;
    let stored = ports
        .messages
        .message(&org.id, &message.id)
        .await
        .expect("message")
        .expect("the message exists");
    assert_eq!(stored, message, "a scheduled message reads back as accepted");
    assert_eq!(stored.status, MessageStatus::Scheduled);
    assert_eq!(stored.send_at, Some(at(SEND_AT)));
    assert_eq!(stored.timestamps.scheduled, Some(at(0)));
    assert!(
        claim(&ports, token(), at(SEND_AT - 1), 10).await.is_empty(),
        "not due before send_at"
    );
    assert_eq!(usage(&ports, &org).await, 1);

    let outcome = ports
        .schedule
        .cancel(&cancel_update(&message, &org, at(10)))
        .await
        .expect("cancel");
    let CancelOutcome::Cancelled(cancelled) = outcome else {
        panic!("a scheduled message nobody claimed is cancelled, got {outcome:?}");
    };
    assert_eq!(cancelled.status, MessageStatus::Cancelled);
    assert_eq!(cancelled.timestamps.cancelled, Some(at(10)));
    assert_eq!(cancelled.send_at, Some(at(SEND_AT)));
    assert_eq!(usage(&ports, &org).await, 0, "the quota count is given back");
    assert!(
        claim(&ports, token(), at(SEND_AT + 10), 10).await.is_empty(),
        "a cancelled message's job is gone"
    );
    let read = ports
        .messages
        .message(&org.id, &message.id)
        .await
        .expect("message")
        .expect("the message exists");
    assert_eq!(read, cancelled);
    let history: Vec<MessageStatus> = ports
        .messages
        .status_history(&org.id, &message.id)
        .await
        .expect("status_history")
        .expect("the message exists")
        .iter()
        .map(|e| e.status)
        .collect();
    assert_eq!(history, [MessageStatus::Scheduled, MessageStatus::Cancelled]);
    let events = events_of(&ports, &org).await;
    assert_eq!(events.len(), 1, "one customer event: the cancel");
    assert_eq!(events[0].event_type, CustomerEventType::MessageStatus);
    let body = payload(&events[0]);
    assert_eq!(body["data"]["status"], "cancelled", "{body}");
    assert_eq!(body["data"]["previous_status"], "scheduled", "{body}");

    let again = ports
        .schedule
        .cancel(&cancel_update(&message, &org, at(20)))
        .await
        .expect("cancel");
    assert!(
        matches!(&again, CancelOutcome::NotCancellable(m) if m.status == MessageStatus::Cancelled),
        "{again:?}"
    );
    assert_eq!(
        usage(&ports, &org).await,
        0,
        "a refused cancel gives nothing back twice"
    );
}

/// Once a dispatch worker claimed the job, a cancel changes nothing: the message stays where it is, the
/// quota stays counted, and the claim completes as usual.
pub async fn schedule_cancel_after_a_claim_is_refused(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let (message, request) = scheduled(&org, &sender, 0);
    accept_ok(&ports, &request).await;
    let jobs = claim(&ports, token(), at(SEND_AT), 10).await;
    assert_eq!(jobs.len(), 1, "the job is due at send_at");
    assert_eq!(jobs[0].deadline, at(SEND_AT) + TimeDelta::hours(24));

    let outcome = ports
        .schedule
        .cancel(&cancel_update(&message, &org, at(SEND_AT + 1)))
        .await
        .expect("cancel");
    assert!(
        matches!(&outcome, CancelOutcome::NotCancellable(m) if m.status == MessageStatus::Scheduled),
        "{outcome:?}"
    );
    assert_eq!(usage(&ports, &org).await, 1);
    assert_eq!(
        ports
            .messages
            .status_history(&org.id, &message.id)
            .await
            .expect("status_history")
            .expect("the message exists")
            .len(),
        1,
        "a refused cancel writes no history"
    );
    assert!(events_of(&ports, &org).await.is_empty(), "nor an event");
}

/// Another organization's id, and an unknown one, are not found; the message is untouched.
pub async fn schedule_cancel_is_scoped_by_organization(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let (other, _) = new_organization_with_sender(&ports, "starter").await;
    let (message, request) = scheduled(&org, &sender, 0);
    accept_ok(&ports, &request).await;
    let outcome = ports
        .schedule
        .cancel(&cancel_update(&message, &other, at(10)))
        .await
        .expect("cancel");
    assert_eq!(outcome, CancelOutcome::NotFound);
    let (unknown, _) = scheduled(&org, &sender, 1);
    let outcome = ports
        .schedule
        .cancel(&cancel_update(&unknown, &org, at(10)))
        .await
        .expect("cancel");
    assert_eq!(outcome, CancelOutcome::NotFound);
    let read = ports
        .messages
        .message(&org.id, &message.id)
        .await
        .expect("message")
        .expect("the message exists");
    assert_eq!(read.status, MessageStatus::Scheduled);
    assert_eq!(usage(&ports, &org).await, 1);
    assert_eq!(
        claim(&ports, token(), at(SEND_AT), 10).await.len(),
        1,
        "its job is still there"
    );
}

/// Cancels and claims of the same due messages, all at once: every message is either claimed or
/// cancelled, never both and never neither, and the quota is given back exactly for the cancelled ones.
pub async fn schedule_cancel_and_claim_never_both_win(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let mut messages = Vec::new();
    for i in 0..40 {
        let (message, request) = scheduled(&org, &sender, i);
        accept_ok(&ports, &request).await;
        messages.push(message);
    }
    let claims = (0..4).map(|_| {
        let ports = ports.clone();
        tokio::spawn(async move {
            let mut claimed = Vec::new();
            for _ in 0..10 {
                let jobs = claim(&ports, token(), at(SEND_AT), 5).await;
                claimed.extend(jobs.into_iter().map(|j| j.message.id));
            }
            claimed
        })
    });
    let cancels = messages.iter().map(|message| {
        let ports = ports.clone();
        let update = cancel_update(message, &org, at(SEND_AT));
        tokio::spawn(async move {
            match ports.schedule.cancel(&update).await.expect("cancel") {
                CancelOutcome::Cancelled(m) => Some(m.id),
                CancelOutcome::NotCancellable(_) => None,
                CancelOutcome::NotFound => panic!("the message exists"),
            }
        })
    });
    let cancels: Vec<_> = cancels.collect();
    let mut claimed = HashSet::new();
    for handle in claims.collect::<Vec<_>>() {
        for id in handle.await.expect("claim task") {
            assert!(claimed.insert(id), "{id} claimed twice");
        }
    }
    let mut cancelled = HashSet::new();
    for handle in cancels {
        if let Some(id) = handle.await.expect("cancel task") {
            cancelled.insert(id);
        }
    }
    // What no claim round took (the claims may finish before the cancels) is claimed now.
    for job in claim(&ports, token(), at(SEND_AT), 100).await {
        assert!(claimed.insert(job.message.id), "{} claimed twice", job.message.id);
    }
    assert!(
        claimed.is_disjoint(&cancelled),
        "a message was both claimed and cancelled"
    );
    assert_eq!(
        claimed.len() + cancelled.len(),
        messages.len(),
        "every message is claimed or cancelled"
    );
    let left = u64::try_from(claimed.len()).expect("small");
    assert_eq!(
        usage(&ports, &org).await,
        left,
        "the quota is given back for the cancelled ones only"
    );
    for message in &messages {
        let read = ports
            .messages
            .message(&org.id, &message.id)
            .await
            .expect("message")
            .expect("the message exists");
        let want = if cancelled.contains(&message.id) {
            MessageStatus::Cancelled
        } else {
            MessageStatus::Scheduled
        };
        assert_eq!(read.status, want, "{}", message.id);
    }
}
