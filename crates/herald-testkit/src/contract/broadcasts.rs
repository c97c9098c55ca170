//! `BroadcastStore`: a broadcast accepted whole or not at all, its jobs held until released, releases
//! bounded by the policy and never past it with several releasers at once, state changes only from the
//! states they name, and everything scoped to the organization.

use super::outbox::{claim, completion, events_of, payload, token};
use super::schedule::{cancel_update, usage};
use super::{Ports, new_organization_with_sender};
use crate::fixtures::{accept_request, at, next_ulid, text_message};
use chrono::TimeDelta;
use herald_domain::broadcast::{
    Broadcast, BroadcastEvent, BroadcastEventKind, BroadcastState, PauseReason, ReleaseOutcome,
    ReleasePolicy, held_until,
};
use herald_domain::customer_event::CustomerEventType;
use herald_domain::dispatch::JobOutcome;
use herald_domain::ids::{BroadcastId, EventId};
use herald_domain::message::MessageStatus;
use herald_domain::organization::{Organization, SenderNumber};
use herald_domain::ports::{
    BroadcastAccept, BroadcastAcceptOutcome, BroadcastMessage, BroadcastQuery, BroadcastTransition,
};
use herald_domain::template::{LanguageCode, TemplateName, TemplateRef};
use herald_domain::values::{IdempotencyKey, RequestFingerprint};
use std::collections::HashSet;

/// A broadcast of `count` messages accepted at `at(0)`, as the use case builds it: held jobs, first status
/// `accepted` (or `scheduled` with `send_at`).
pub fn broadcast_of(
    org: &Organization,
    sender: &SenderNumber,
    count: usize,
    send_at: Option<i64>,
    limit: Option<u64>,
) -> BroadcastAccept {
    let id = BroadcastId::from_ulid(next_ulid());
    let broadcast = Broadcast {
        id,
        organization_id: org.id,
        sender_id: sender.id,
        from: sender.number.clone(),
        template: TemplateRef {
            name: TemplateName::parse("order_shipped").expect("name"),
            language: LanguageCode::parse("en_US").expect("language"),
        },
        state: BroadcastState::Scheduled,
        total: u32::try_from(count).expect("small"),
        released: 0,
        send_at: send_at.map(at),
        pause: None,
        created_at: at(0),
        updated_at: at(0),
        completed_at: None,
        cancelled_at: None,
    };
    let messages = (0..count)
        .map(|i| {
            let mut message = text_message(org.id, sender, &format!("+1555100{i:04}"), at(0));
            if let Some(send_at) = send_at {
                message = message.scheduled_for(at(send_at));
            }
            message.broadcast_id = Some(id);
            let mut request = accept_request(&message, limit, None);
            request.event.status = message.status;
            request.job.available_at = held_until();
            request.job.deadline = held_until();
            BroadcastMessage {
                message,
                event: request.event,
                job: request.job,
            }
        })
        .collect();
    BroadcastAccept {
        broadcast,
        messages,
        quota: accept_request(&text_message(org.id, sender, "+15551230000", at(0)), limit, None).quota,
        idempotency: None,
    }
}

pub(super) fn policy(now: i64, max_open: u32, tier_limit: Option<u32>) -> ReleasePolicy {
    ReleasePolicy {
        now: at(now),
        deadline: at(now) + TimeDelta::hours(24),
        max_open,
        tier_limit,
        tier_since: at(now) - TimeDelta::hours(24),
    }
}

pub(super) async fn accept(ports: &Ports, request: &BroadcastAccept) -> BroadcastAcceptOutcome {
    ports.broadcasts.accept(request).await.expect("accept")
}

/// Accepted whole: every message reads back with its broadcast, the quota counts them all, no job is due
/// before a release, and a release makes exactly as many due as the policy allows, oldest first.
pub async fn broadcasts_hold_their_jobs_until_released(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let request = broadcast_of(&org, &sender, 10, None, Some(1_000));
    let id = request.broadcast.id;
    assert_eq!(accept(&ports, &request).await, BroadcastAcceptOutcome::Accepted);
    assert_eq!(
        usage(&ports, &org).await,
        10,
        "the whole broadcast is counted at once"
    );
    let view = ports
        .broadcasts
        .broadcast(&org.id, &id)
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(view.broadcast, request.broadcast);
    assert_eq!(view.counts.get(MessageStatus::Accepted), 10);
    let first = &request.messages[0].message;
    let stored = ports
        .messages
        .message(&org.id, &first.id)
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(stored.broadcast_id, Some(id));
    assert!(
        claim(&ports, token(), at(1_000_000), 100).await.is_empty(),
        "held jobs are due at no real time"
    );

    let outcome = ports
        .broadcasts
        .release(&org.id, &id, &policy(5, 4, None))
        .await
        .expect("release");
    assert_eq!(
        outcome,
        ReleaseOutcome::Released {
            count: 4,
            held: 6,
            waiting_for_tier: false
        }
    );
    let claimed = claim(&ports, token(), at(5), 100).await;
    let expected: HashSet<_> = request.messages[..4].iter().map(|m| m.message.id).collect();
    let got: HashSet<_> = claimed.iter().map(|job| job.message.id).collect();
    assert_eq!(got, expected, "the oldest four are released, and only they");
    // Four in flight fill the queue: nothing more until they are done.
    let outcome = ports
        .broadcasts
        .release(&org.id, &id, &policy(6, 4, None))
        .await
        .expect("release");
    assert_eq!(
        outcome,
        ReleaseOutcome::Released {
            count: 0,
            held: 6,
            waiting_for_tier: false
        }
    );
    let view = ports
        .broadcasts
        .broadcast(&org.id, &id)
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(view.broadcast.state, BroadcastState::Running);
    assert_eq!(view.broadcast.released, 4);
}

/// Several releasers at once never put more of a broadcast in the outbox than the policy allows, and
/// together release every job exactly once.
pub async fn broadcasts_concurrent_releases_respect_the_queue(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let request = broadcast_of(&org, &sender, 30, None, None);
    let id = request.broadcast.id;
    assert_eq!(accept(&ports, &request).await, BroadcastAcceptOutcome::Accepted);
    let releases: Vec<_> = (0..4)
        .map(|_| {
            let ports = ports.clone();
            let org = org.id;
            tokio::spawn(async move { ports.broadcasts.release(&org, &id, &policy(5, 8, None)).await })
        })
        .collect();
    let mut released = 0;
    for handle in releases {
        if let ReleaseOutcome::Released { count, .. } = handle.await.expect("task").expect("release") {
            released += count;
        }
    }
    assert_eq!(released, 8, "four releasers at once release one queue's worth");
    let mut seen = HashSet::new();
    for round in 0..10 {
        let claimer = token();
        for job in claim(&ports, claimer, at(10 + round), 100).await {
            assert!(seen.insert(job.message.id), "a job was released twice");
            // Done: the slot frees for the next release.
            let outcome = JobOutcome::Submitted {
                network_message_id: format!("wamid.{}", job.message.id),
                route: herald_domain::marketing::NetworkRoute::CloudApi,
            };
            let done = completion(&job, claimer, outcome, at(10 + round));
            ports.outbox.complete_jobs(&[done]).await.expect("complete");
        }
        ports
            .broadcasts
            .release(&org.id, &id, &policy(10 + round, 8, None))
            .await
            .expect("release");
    }
    assert_eq!(seen.len(), 30, "every job was released and claimed once");
}

/// The tier counts the sender's unique template recipients of the last 24 hours (and the released jobs of
/// every broadcast of the sender): with no room, nothing is released and the outcome says it waits for the
/// tier.
pub async fn broadcasts_release_waits_for_the_tier(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let request = broadcast_of(&org, &sender, 10, None, None);
    let id = request.broadcast.id;
    assert_eq!(accept(&ports, &request).await, BroadcastAcceptOutcome::Accepted);
    let outcome = ports
        .broadcasts
        .release(&org.id, &id, &policy(5, 100, Some(3)))
        .await
        .expect("release");
    assert_eq!(
        outcome,
        ReleaseOutcome::Released {
            count: 3,
            held: 7,
            waiting_for_tier: true
        }
    );
    let outcome = ports
        .broadcasts
        .release(&org.id, &id, &policy(6, 100, Some(3)))
        .await
        .expect("release");
    assert_eq!(
        outcome,
        ReleaseOutcome::Released {
            count: 0,
            held: 7,
            waiting_for_tier: true
        },
        "the released jobs count against the tier until they are sent"
    );
    let other = broadcast_of(&org, &sender, 5, None, None);
    assert_eq!(accept(&ports, &other).await, BroadcastAcceptOutcome::Accepted);
    let outcome = ports
        .broadcasts
        .release(&org.id, &other.broadcast.id, &policy(7, 100, Some(3)))
        .await
        .expect("release");
    assert_eq!(
        outcome,
        ReleaseOutcome::Released {
            count: 0,
            held: 5,
            waiting_for_tier: true
        },
        "another broadcast's released jobs of the same sender count against its tier too"
    );
}

/// A broadcast that does not fit in the quota writes nothing and says how much room is left.
pub async fn broadcasts_quota_is_all_or_nothing(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let small = broadcast_of(&org, &sender, 4, None, Some(10));
    assert_eq!(accept(&ports, &small).await, BroadcastAcceptOutcome::Accepted);
    let request = broadcast_of(&org, &sender, 7, None, Some(10));
    assert_eq!(
        accept(&ports, &request).await,
        BroadcastAcceptOutcome::QuotaExceeded { remaining: 6 }
    );
    assert_eq!(
        usage(&ports, &org).await,
        4,
        "nothing of the refused broadcast is counted"
    );
    assert!(
        ports
            .broadcasts
            .broadcast(&org.id, &request.broadcast.id)
            .await
            .expect("read")
            .is_none(),
        "nor stored"
    );
    let first = &request.messages[0].message;
    assert!(
        ports
            .messages
            .message(&org.id, &first.id)
            .await
            .expect("read")
            .is_none()
    );
}

/// An `Idempotency-Key` finds its broadcast, and a second broadcast with the key writes nothing.
pub async fn broadcasts_idempotency_key_is_taken_once(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let key = IdempotencyKey::parse("campaign-1").expect("key");
    let fingerprint = RequestFingerprint::of(b"body");
    let mut first = broadcast_of(&org, &sender, 2, None, None);
    first.idempotency = Some((key.clone(), fingerprint));
    let mut second = broadcast_of(&org, &sender, 2, None, None);
    second.idempotency = Some((key.clone(), RequestFingerprint::of(b"other")));
    assert_eq!(accept(&ports, &first).await, BroadcastAcceptOutcome::Accepted);
    assert_eq!(accept(&ports, &second).await, BroadcastAcceptOutcome::KeyTaken);
    let keyed = ports
        .broadcasts
        .keyed(&org.id, &key)
        .await
        .expect("keyed")
        .expect("found");
    assert_eq!(keyed.id, first.broadcast.id);
    assert_eq!(keyed.fingerprint, fingerprint);
    assert_eq!(usage(&ports, &org).await, 2);
    let other = super::new_organization(&ports, "starter").await;
    assert!(
        ports
            .broadcasts
            .keyed(&other.id, &key)
            .await
            .expect("keyed")
            .is_none()
    );
}

/// Changes apply only from the states they name, with their event; a paused broadcast is not due; a
/// cancel's messages are found untaken (held or released, never claimed) and cancelled with the quota back.
pub async fn broadcasts_transitions_due_and_untaken(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let request = broadcast_of(&org, &sender, 6, Some(100), None);
    let id = request.broadcast.id;
    assert_eq!(accept(&ports, &request).await, BroadcastAcceptOutcome::Accepted);
    let due_ids = |list: Vec<herald_domain::ports::DueBroadcast>| {
        list.into_iter().map(|d| d.broadcast.id).collect::<Vec<_>>()
    };
    assert!(
        due_ids(ports.broadcasts.due(at(50), 10).await.expect("due")).is_empty(),
        "not before send_at"
    );
    let due = ports.broadcasts.due(at(100), 10).await.expect("due");
    assert_eq!(due_ids(due.clone()), vec![id]);
    assert_eq!(due[0].throughput_per_second, sender.throughput_per_second);

    let pause = PauseReason {
        code: "spam_rate_limited".to_owned(),
        detail: "paused".to_owned(),
        network_code: Some(131_048),
        paused_at: at(120),
    };
    let mut view = ports
        .broadcasts
        .broadcast(&org.id, &id)
        .await
        .expect("read")
        .expect("exists");
    view.broadcast.state = BroadcastState::Paused;
    let change = BroadcastTransition {
        from: vec![BroadcastState::Scheduled, BroadcastState::Running],
        to: BroadcastState::Paused,
        pause: Some(pause.clone()),
        at: at(120),
        event: Some(BroadcastEvent {
            id: EventId::from_ulid(next_ulid()),
            kind: BroadcastEventKind::Progress,
            view,
            recorded_at: at(120),
        }),
    };
    let paused = ports
        .broadcasts
        .transition(&org.id, &id, &change)
        .await
        .expect("transition");
    assert_eq!(paused.as_ref().map(|b| b.state), Some(BroadcastState::Paused));
    assert_eq!(paused.and_then(|b| b.pause), Some(pause));
    assert!(
        ports
            .broadcasts
            .transition(&org.id, &id, &change)
            .await
            .expect("transition")
            .is_none(),
        "a paused broadcast is not paused again"
    );
    let events = events_of(&ports, &org).await;
    let progress: Vec<_> = events
        .iter()
        .filter(|e| e.event_type == CustomerEventType::BroadcastProgress)
        .collect();
    assert_eq!(progress.len(), 1, "one event, written with the change");
    let body = payload(progress[0]);
    assert_eq!(body["data"]["id"], id.to_string());
    assert_eq!(body["data"]["status"], "paused");
    assert_eq!(body["data"]["counts"]["scheduled"], 6);
    assert!(
        due_ids(ports.broadcasts.due(at(130), 10).await.expect("due")).is_empty(),
        "paused is not due"
    );
    assert_eq!(
        ports
            .broadcasts
            .release(&org.id, &id, &policy(130, 10, None))
            .await
            .expect("release"),
        ReleaseOutcome::Inactive
    );

    let untaken = ports
        .broadcasts
        .untaken(&org.id, &id, 100)
        .await
        .expect("untaken");
    assert_eq!(untaken.len(), 6);
    let messages: Vec<_> = request.messages.iter().map(|m| m.message.clone()).collect();
    let updates: Vec<_> = messages.iter().map(|m| cancel_update(m, &org, at(140))).collect();
    assert_eq!(
        ports.schedule.cancel_many(&updates).await.expect("cancel_many"),
        6
    );
    assert_eq!(
        ports.schedule.cancel_many(&updates).await.expect("cancel_many"),
        0,
        "once only"
    );
    assert_eq!(usage(&ports, &org).await, 0, "the quota is given back");
    let view = ports
        .broadcasts
        .broadcast(&org.id, &id)
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(view.counts.get(MessageStatus::Cancelled), 6);
    assert!(
        ports
            .broadcasts
            .untaken(&org.id, &id, 100)
            .await
            .expect("untaken")
            .is_empty()
    );
}

/// A page of the list carries each broadcast's own counts, the same as reading it alone (one grouped read
/// for the page must not mix two broadcasts' messages up).
pub async fn broadcasts_list_carries_each_ones_counts(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let sent_now = broadcast_of(&org, &sender, 3, None, None);
    let later = broadcast_of(&org, &sender, 5, Some(100), None);
    assert_eq!(accept(&ports, &sent_now).await, BroadcastAcceptOutcome::Accepted);
    assert_eq!(accept(&ports, &later).await, BroadcastAcceptOutcome::Accepted);
    let cancelled: Vec<_> = later.messages[..2]
        .iter()
        .map(|m| cancel_update(&m.message, &org, at(50)))
        .collect();
    assert_eq!(
        ports.schedule.cancel_many(&cancelled).await.expect("cancel_many"),
        2
    );

    let query = BroadcastQuery {
        limit: 10,
        ..BroadcastQuery::default()
    };
    let page = ports.broadcasts.broadcasts(&org.id, &query).await.expect("list");
    let ids: Vec<_> = page.iter().map(|v| v.broadcast.id).collect();
    assert_eq!(
        ids,
        vec![later.broadcast.id, sent_now.broadcast.id],
        "newest first"
    );
    assert_eq!(page[0].counts.get(MessageStatus::Scheduled), 3);
    assert_eq!(page[0].counts.get(MessageStatus::Cancelled), 2);
    assert_eq!(page[0].counts.get(MessageStatus::Accepted), 0);
    assert_eq!(page[1].counts.get(MessageStatus::Accepted), 3);
    assert_eq!(page[1].counts.get(MessageStatus::Scheduled), 0);
    for view in &page {
        let alone = ports
            .broadcasts
            .broadcast(&org.id, &view.broadcast.id)
            .await
            .expect("read")
            .expect("exists");
        assert_eq!(view, &alone);
    }
}

/// Another organization's broadcast does not exist for the caller: not read, listed, released, changed or
/// searched for untaken messages.
pub async fn broadcasts_stay_in_their_organization(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let other = super::new_organization(&ports, "starter").await;
    let request = broadcast_of(&org, &sender, 3, None, None);
    let id = request.broadcast.id;
    assert_eq!(accept(&ports, &request).await, BroadcastAcceptOutcome::Accepted);
    let query = BroadcastQuery {
        limit: 10,
        ..BroadcastQuery::default()
    };
    assert_eq!(
        ports
            .broadcasts
            .broadcasts(&org.id, &query)
            .await
            .expect("list")
            .len(),
        1
    );
    assert!(
        ports
            .broadcasts
            .broadcasts(&other.id, &query)
            .await
            .expect("list")
            .is_empty()
    );
    assert!(
        ports
            .broadcasts
            .broadcast(&other.id, &id)
            .await
            .expect("read")
            .is_none()
    );
    assert_eq!(
        ports
            .broadcasts
            .release(&other.id, &id, &policy(5, 10, None))
            .await
            .expect("release"),
        ReleaseOutcome::Inactive
    );
    assert!(
        ports
            .broadcasts
            .untaken(&other.id, &id, 10)
            .await
            .expect("untaken")
            .is_empty()
    );
    let cancel = BroadcastTransition {
        from: vec![BroadcastState::Scheduled],
        to: BroadcastState::Cancelled,
        pause: None,
        at: at(5),
        event: None,
    };
    assert!(
        ports
            .broadcasts
            .transition(&other.id, &id, &cancel)
            .await
            .expect("transition")
            .is_none()
    );
    let cancelled = ports
        .broadcasts
        .transition(&org.id, &id, &cancel)
        .await
        .expect("transition");
    assert_eq!(cancelled.and_then(|b| b.cancelled_at), Some(at(5)));
}
