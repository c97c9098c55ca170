//! Data retention: rows past their organization's plan's retention go, in bounded batches;
//! newer rows and messages still in flight stay.

use crate::helpers::on_both_stores;
use chrono::TimeDelta;
use herald_domain::Timestamp;
use herald_domain::dispatch::{ClaimToken, JobCompletion, JobOutcome, StoredCallback};
use herald_domain::ids::{EventId, InboundId, MessageId, OrganizationId};
use herald_domain::message::{Message, MessageError};
use herald_domain::network::{AccountNotice, NoticeChange};
use herald_domain::notice::NoticeRecord;
use herald_domain::organization::{Organization, SenderNumber};
use herald_domain::ports::RetentionReport;
use herald_domain::webhook::{EndpointPatch, EventSelection};
use herald_store::Store;
use herald_testkit::fixtures::{
    SIMULATOR_WABA, accept_request, inbound_record, network_ref, next_ulid, organization, sender, t0,
    text_message, webhook_endpoint,
};
use ulid::Ulid;

/// A text message made at `at`, its id made at the same instant (as the send path makes them).
fn message_at(org: OrganizationId, from: &SenderNumber, at: Timestamp) -> Message {
    let millis = u64::try_from(at.timestamp_millis()).unwrap();
    Message {
        id: MessageId::from_ulid(Ulid::from_parts(millis, next_ulid().random())),
        ..text_message(org, from, "+15551234567", at)
    }
}

/// Accepts a message made at `at` and, when `finish`, sends it to a final failure, as dispatch would.
async fn sent_message(
    store: &Store,
    org: OrganizationId,
    from: &SenderNumber,
    at: Timestamp,
    finish: bool,
) -> Message {
    let message = message_at(org, from, at);
    store
        .messages()
        .accept(&accept_request(&message, None, None))
        .await
        .expect("accept");
    if finish {
        let token = ClaimToken(next_ulid());
        let claimed = store
            .outbox()
            .claim_jobs(&token, at, at + TimeDelta::minutes(5), 10)
            .await
            .expect("claim");
        let job = claimed
            .iter()
            .find(|j| j.message.id == message.id)
            .expect("the job is due");
        let completion = JobCompletion {
            job_id: job.job_id,
            organization_id: org,
            message_id: message.id,
            token,
            outcome: JobOutcome::Failed {
                error: MessageError {
                    code: "recipient_unreachable".to_owned(),
                    title: "Recipient unreachable".to_owned(),
                    detail: "the number is not on the network".to_owned(),
                    network_code: Some(131_026),
                },
            },
            at,
            event_id: EventId::from_ulid(next_ulid()),
            customer_event_id: EventId::from_ulid(next_ulid()),
        };
        assert!(store.outbox().complete_job(&completion).await.expect("complete"));
    }
    message
}

async fn exists(store: &Store, org: OrganizationId, message: &Message) -> bool {
    store
        .messages()
        .message(&org, &message.id)
        .await
        .expect("read")
        .is_some()
}

/// A new organization on the trial plan (which keeps 30 days), with one sender.
async fn trial_organization(store: &Store) -> (Organization, SenderNumber) {
    let org = organization("trial");
    store
        .accounts()
        .create_organization(&org)
        .await
        .expect("organization");
    let from = sender(org.id, "+15550001111", true);
    store.accounts().add_sender(&from).await.expect("sender");
    (org, from)
}

async fn old_final_rows_go_newer_and_in_flight_stay(store: Store) {
    // The trial plan keeps 30 days.
    let (org, from) = trial_organization(&store).await;
    let now = t0() + TimeDelta::days(100);
    let mut old = Vec::new();
    for i in 0..3 {
        old.push(sent_message(&store, org.id, &from, t0() + TimeDelta::seconds(i), true).await);
    }
    let in_flight = sent_message(&store, org.id, &from, t0() + TimeDelta::seconds(10), false).await;
    let recent = sent_message(&store, org.id, &from, now - TimeDelta::days(29), true).await;
    let callback = |id: Ulid, days: i64| StoredCallback {
        id: EventId::from_ulid(id),
        received_at: now - TimeDelta::days(days),
        body: b"{}".to_vec(),
    };
    let (old_callback, new_callback) = (callback(next_ulid(), 31), callback(next_ulid(), 1));
    for stored in [&old_callback, &new_callback] {
        store.tracking().store_callback(stored).await.expect("callback");
        store
            .tracking()
            .mark_callback_processed(&stored.id, stored.received_at, None)
            .await
            .expect("processed");
    }
    let retention = store.retention();

    // The batch bound holds: two messages per call, then the third, then nothing.
    let first = retention.purge_expired(now, 2).await.expect("purge");
    assert_eq!(first.messages, 2, "{first:?}");
    assert_eq!(first.jobs, 2, "each message's outbox job goes with it: {first:?}");
    assert!(
        first.status_events >= 4,
        "accepted and failed, for each: {first:?}"
    );
    assert_eq!(first.callbacks, 1, "{first:?}");
    let second = retention.purge_expired(now, 2).await.expect("purge");
    assert_eq!((second.messages, second.callbacks), (1, 0), "{second:?}");
    let third = retention.purge_expired(now, 2).await.expect("purge");
    assert_eq!(third, RetentionReport::default(), "nothing more is due");

    for message in &old {
        assert!(
            !exists(&store, org.id, message).await,
            "a final message past retention goes"
        );
        assert_eq!(
            store
                .messages()
                .status_history(&org.id, &message.id)
                .await
                .expect("history"),
            None
        );
    }
    assert!(
        exists(&store, org.id, &in_flight).await,
        "a message still in flight stays"
    );
    assert!(
        exists(&store, org.id, &recent).await,
        "a message within retention stays"
    );
    let history = store
        .messages()
        .status_history(&org.id, &recent.id)
        .await
        .expect("history")
        .expect("kept");
    assert_eq!(history.len(), 2, "its history stays whole");
    let events = store.customer_events(&org.id).await.expect("events");
    assert!(
        events
            .iter()
            .all(|e| e.message_id.as_ref().map(|m| m.to_string()) == Some(recent.id.to_string())),
        "only the recent message's customer events are left: {events:?}"
    );

    // Once its retention has passed too, the recent message goes; the one in flight still stays.
    let later = retention
        .purge_expired(now + TimeDelta::days(2), 10)
        .await
        .expect("purge");
    assert_eq!((later.messages, later.callbacks), (1, 0), "{later:?}");
    assert!(!exists(&store, org.id, &recent).await);
    assert!(exists(&store, org.id, &in_flight).await);
}

/// An account notice's event, made at `at` with an id made at the same instant.
async fn account_event_at(store: &Store, org: OrganizationId, at: Timestamp, key: &str) -> EventId {
    let millis = u64::try_from(at.timestamp_millis()).unwrap();
    let event_id = EventId::from_ulid(Ulid::from_parts(millis, next_ulid().random()));
    let record = NoticeRecord {
        organization_id: org,
        event_id,
        recorded_at: at,
        notice: AccountNotice {
            waba_id: network_ref(SIMULATOR_WABA),
            occurred_at: at,
            dedupe_key: key.to_owned(),
            change: NoticeChange::Account {
                field: "account_update".to_owned(),
                event: "ACCOUNT_VIOLATION".to_owned(),
                details_json: "{}".to_owned(),
            },
        },
        sender: None,
    };
    assert!(store.tracking().record_notice(&record).await.expect("notice"));
    event_id
}

async fn old_organization_events_go_in_bounded_batches(store: Store) {
    // The trial plan keeps 30 days.
    let org = organization("trial");
    store
        .accounts()
        .create_organization(&org)
        .await
        .expect("organization");
    let now = t0() + TimeDelta::days(100);
    for i in 0..3 {
        account_event_at(&store, org.id, t0() + TimeDelta::seconds(i), &format!("old-{i}")).await;
    }
    let recent = account_event_at(&store, org.id, now - TimeDelta::days(29), "recent").await;
    let retention = store.retention();

    let first = retention.purge_expired(now, 2).await.expect("purge");
    assert_eq!(
        (first.account_events, first.customer_events),
        (2, 2),
        "two per call: {first:?}"
    );
    assert_eq!(first.roots(), 2, "they count toward the batch bound");
    let second = retention.purge_expired(now, 2).await.expect("purge");
    assert_eq!(second.account_events, 1, "{second:?}");
    let third = retention.purge_expired(now, 2).await.expect("purge");
    assert_eq!(third, RetentionReport::default(), "nothing more is due");
    let left: Vec<EventId> = store
        .customer_events(&org.id)
        .await
        .expect("events")
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(left, vec![recent], "only the event within retention stays");
}

on_both_stores!(
    sqlite_retention_removes_old_organization_events,
    postgres_retention_removes_old_organization_events,
    old_organization_events_go_in_bounded_batches
);

on_both_stores!(
    sqlite_retention_removes_old_final_rows_in_bounded_batches,
    postgres_retention_removes_old_final_rows_in_bounded_batches,
    old_final_rows_go_newer_and_in_flight_stay
);

/// Records an inbound message to `sender` received at `at`, its id made at the same instant.
async fn inbound_at(store: &Store, org: OrganizationId, sender: &SenderNumber, at: Timestamp) -> InboundId {
    let millis = u64::try_from(at.timestamp_millis()).unwrap();
    let id = InboundId::from_ulid(Ulid::from_parts(millis, next_ulid().random()));
    let recorded = store
        .tracking()
        .record_inbound_message(&inbound_record(org, sender, id, at, at))
        .await
        .expect("record_inbound_message");
    assert!(recorded, "a new inbound message is recorded");
    id
}

async fn inbound_exists(store: &Store, org: OrganizationId, id: &InboundId) -> bool {
    store
        .inbound()
        .inbound_message(&org, id)
        .await
        .expect("read")
        .is_some()
}

/// Busy messages (still being sent, or with an event still waiting for its webhook delivery) at the head of
/// the retention order (the oldest) do not hold back the final ones
/// behind them: a batch is the oldest messages that may go, not the oldest messages. Before, a batch read
/// the oldest `limit` and dropped the busy ones, so `limit` busy messages at the head stopped retention for
/// the organization for as long as they stayed busy.
async fn busy_messages_at_the_head_do_not_hold_back_the_rest(store: Store) {
    let (org, from) = trial_organization(&store).await;
    let now = t0() + TimeDelta::days(100);
    let mut busy = Vec::new();
    for i in 0..2 {
        busy.push(sent_message(&store, org.id, &from, t0() + TimeDelta::seconds(i), false).await);
    }
    // A final message whose customer event still waits for its webhook delivery is busy too; once the
    // endpoint is disabled, later events' deliveries are `skipped`, which waits for nothing.
    let endpoint = webhook_endpoint(org.id, EventSelection::ALL, t0());
    let webhooks = store.webhooks();
    assert!(webhooks.create_endpoint(&endpoint, 100).await.expect("endpoint"));
    busy.push(sent_message(&store, org.id, &from, t0() + TimeDelta::seconds(2), true).await);
    let inbound_busy = inbound_at(&store, org.id, &from, t0() + TimeDelta::seconds(2)).await;
    let disable = EndpointPatch {
        enabled: Some(false),
        ..EndpointPatch::default()
    };
    webhooks
        .patch_endpoint(&org.id, &endpoint.id, &disable, t0())
        .await
        .expect("disable");
    let mut done = Vec::new();
    for i in 3..5 {
        done.push(sent_message(&store, org.id, &from, t0() + TimeDelta::seconds(i), true).await);
    }

    let mut inbound_done = Vec::new();
    for i in 3..5 {
        inbound_done.push(inbound_at(&store, org.id, &from, t0() + TimeDelta::seconds(i)).await);
    }

    let report = store.retention().purge_expired(now, 2).await.expect("purge");
    assert_eq!(
        (report.messages, report.inbound, report.deliveries),
        (2, 2, 4),
        "two final messages go past the three busy ones and two inbound messages past the busy one, with \
         their skipped deliveries: {report:?}"
    );
    assert!(
        inbound_exists(&store, org.id, &inbound_busy).await,
        "an inbound message whose event waits for its delivery stays"
    );
    for id in &inbound_done {
        assert!(
            !inbound_exists(&store, org.id, id).await,
            "an inbound message past retention goes"
        );
    }
    for message in &done {
        assert!(
            !exists(&store, org.id, message).await,
            "a final message past retention goes"
        );
    }
    for message in &busy {
        assert!(exists(&store, org.id, message).await, "a busy message stays");
    }
    let again = store.retention().purge_expired(now, 2).await.expect("purge");
    assert_eq!(again.messages, 0, "nothing more may go: {again:?}");
}

on_both_stores!(
    sqlite_retention_is_not_held_back_by_busy_messages,
    postgres_retention_is_not_held_back_by_busy_messages,
    busy_messages_at_the_head_do_not_hold_back_the_rest
);

/// A broadcast of one message made at `at`, cancelled at once (its message is `cancelled`, a final status),
/// the broadcast `cancelled` at `at`.
async fn cancelled_broadcast(
    store: &Store,
    org: OrganizationId,
    from: &SenderNumber,
    at: Timestamp,
) -> (herald_domain::ids::BroadcastId, Message) {
    use herald_domain::broadcast::{Broadcast, BroadcastState, held_until};
    use herald_domain::ports::{BroadcastAccept, BroadcastMessage, BroadcastTransition};
    use herald_domain::template::{LanguageCode, TemplateName, TemplateRef};
    let id = herald_domain::ids::BroadcastId::from_ulid(next_ulid());
    let mut message = message_at(org, from, at);
    message.broadcast_id = Some(id);
    let mut request = accept_request(&message, None, None);
    request.job.available_at = held_until();
    request.job.deadline = held_until();
    let accept = BroadcastAccept {
        broadcast: Broadcast {
            id,
            organization_id: org,
            sender_id: from.id,
            from: from.number.clone(),
            template: TemplateRef {
                name: TemplateName::parse("hello_world").unwrap(),
                language: LanguageCode::parse("en_US").unwrap(),
            },
            state: BroadcastState::Scheduled,
            total: 1,
            released: 0,
            send_at: None,
            pause: None,
            created_at: at,
            updated_at: at,
            completed_at: None,
            cancelled_at: None,
        },
        messages: vec![BroadcastMessage {
            message: message.clone(),
            event: request.event.clone(),
            job: request.job.clone(),
        }],
        quota: request.quota.clone(),
        idempotency: None,
    };
    store.broadcasts().accept(&accept).await.expect("accept");
    let cancel = BroadcastTransition {
        from: vec![BroadcastState::Scheduled],
        to: BroadcastState::Cancelled,
        pause: None,
        at,
        event: None,
    };
    store
        .broadcasts()
        .transition(&org, &id, &cancel)
        .await
        .expect("transition")
        .expect("cancelled");
    let update = herald_domain::status::StatusUpdate {
        organization_id: org,
        message_id: message.id,
        report: herald_domain::status::StatusReport {
            status: herald_domain::message::MessageStatus::Cancelled,
            occurred_at: at,
            error: None,
        },
        network_message_id: None,
        source: herald_domain::message::EventSource::Herald,
        event_id: EventId::from_ulid(next_ulid()),
        customer_event_id: EventId::from_ulid(next_ulid()),
        recorded_at: at,
        pricing: None,
    };
    assert_eq!(store.schedule().cancel_many(&[update]).await.expect("cancel"), 1);
    (id, message)
}

async fn ended_broadcasts_go_once_their_messages_are_gone(store: Store) {
    let (org, from) = trial_organization(&store).await;
    let now = t0() + TimeDelta::days(100);
    let (old, old_message) = cancelled_broadcast(&store, org.id, &from, t0()).await;
    let (recent, _) = cancelled_broadcast(&store, org.id, &from, now - TimeDelta::days(1)).await;

    let report = store.retention().purge_expired(now, 100).await.expect("purge");
    assert_eq!(report.broadcasts, 1, "{report:?}");
    assert!(
        !exists(&store, org.id, &old_message).await,
        "its message went first"
    );
    assert!(
        store
            .broadcasts()
            .broadcast(&org.id, &old)
            .await
            .expect("read")
            .is_none()
    );
    assert!(
        store
            .broadcasts()
            .broadcast(&org.id, &recent)
            .await
            .expect("read")
            .is_some(),
        "a broadcast within retention stays"
    );
    let again = store.retention().purge_expired(now, 100).await.expect("purge");
    assert_eq!(again.broadcasts, 0, "{again:?}");
}

on_both_stores!(
    sqlite_retention_removes_ended_broadcasts,
    postgres_retention_removes_ended_broadcasts,
    ended_broadcasts_go_once_their_messages_are_gone
);
