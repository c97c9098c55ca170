//! `TrackingStore`: status reports through the status machine, inbound messages, stored callbacks.

use super::outbox::{events_of, payload};
use super::{Ports, accept_ok, new_organization_with_sender};
use crate::fixtures::{SIMULATOR_SENDER_1, accept_request, at, network_ref, next_ulid, phone, text_message};
use herald_domain::Timestamp;
use herald_domain::content::MessageRef;
use herald_domain::customer_event::{CustomerEventType, InboundRecord};
use herald_domain::dispatch::{ParkedCallback, StoredCallback};
use herald_domain::ids::{EventId, InboundId, MediaId, MessageId};
use herald_domain::message::{EventSource, Message, MessageError, MessageStatus};
use herald_domain::network::{InboundContent, InboundMessage};
use herald_domain::organization::{Organization, SenderNumber};
use herald_domain::ports::StoreError;
use herald_domain::status::{NotApplied, StatusReport, Transition};
use herald_domain::status::{StatusApplied, StatusUpdate};

/// Recording times that only increase, as Herald's clock would give them, whatever the reports' own times.
fn next_recorded_at() -> Timestamp {
    static RECORDED: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);
    let step = RECORDED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    at(10_000) + chrono::TimeDelta::milliseconds(step)
}

/// A report of `status` at `occurred_at` from the network, recorded now.
pub(super) fn update(
    message: &Message,
    status: MessageStatus,
    occurred_at: Timestamp,
    wamid: Option<&str>,
) -> StatusUpdate {
    let error = (status == MessageStatus::Failed).then(|| MessageError {
        code: "recipient_unreachable".to_owned(),
        title: "Recipient unreachable".to_owned(),
        detail: "not on the network".to_owned(),
        network_code: Some(131_026),
    });
    StatusUpdate {
        organization_id: message.organization_id,
        message_id: message.id,
        report: StatusReport {
            status,
            occurred_at,
            error,
        },
        network_message_id: wamid.map(str::to_owned),
        source: EventSource::Network,
        event_id: EventId::from_ulid(next_ulid()),
        customer_event_id: EventId::from_ulid(next_ulid()),
        recorded_at: next_recorded_at(),
        pricing: None,
    }
}

async fn apply(ports: &Ports, update: &StatusUpdate) -> StatusApplied {
    let applied = ports
        .tracking
        .apply_status(update)
        .await
        .expect("apply_status")
        .expect("the message exists for its organization");
    let stored = ports
        .messages
        .message(&update.organization_id, &update.message_id)
        .await
        .expect("message")
        .expect("exists");
    assert_eq!(
        applied.message, stored,
        "StatusApplied carries the message as now stored"
    );
    applied
}

fn recorded(applied: &StatusApplied) -> Option<NotApplied> {
    match applied.transition {
        Transition::Applied { .. } => None,
        Transition::Recorded { reason } => Some(reason),
    }
}

async fn accepted_message(ports: &Ports) -> (Organization, SenderNumber, Message) {
    let (org, sender) = new_organization_with_sender(ports, "starter").await;
    let message = text_message(org.id, &sender, "+15551234567", at(0));
    accept_ok(ports, &accept_request(&message, None, None)).await;
    (org, sender, message)
}

/// Out of order and repeated reports: applied ones move the status (filling skipped stages) and emit one
/// event each with sequences 1, 2, 3; late, duplicate and failed-after-delivery ones are recorded only.
pub async fn tracking_reports_follow_the_status_machine(ports: Ports) {
    let (org, _sender, message) = accepted_message(&ports).await;
    let submitted = apply(
        &ports,
        &update(&message, MessageStatus::Submitted, at(1), Some("wamid.M1")),
    )
    .await;
    assert_eq!(recorded(&submitted), None);
    assert_eq!(submitted.message.status, MessageStatus::Submitted);

    let delivered_update = update(&message, MessageStatus::Delivered, at(3), Some("wamid.M1"));
    let delivered = apply(&ports, &delivered_update).await;
    assert_eq!(
        delivered.transition,
        Transition::Applied {
            previous: MessageStatus::Submitted,
            state: herald_domain::status::StatusState {
                status: MessageStatus::Delivered,
                timestamps: delivered.message.timestamps.clone(),
                error: None,
            },
        }
    );
    let t = &delivered.message.timestamps;
    assert_eq!(t.submitted, Some(at(1)), "reached stages keep their time");
    assert_eq!(t.sent, Some(at(3)), "the skipped stage gets the report's time");
    assert_eq!(t.delivered, Some(at(3)));
    assert_eq!(delivered.message.updated_at, delivered_update.recorded_at);

    let late = apply(
        &ports,
        &update(&message, MessageStatus::Sent, at(2), Some("wamid.M1")),
    )
    .await;
    assert_eq!(recorded(&late), Some(NotApplied::Late));
    assert_eq!(late.message, delivered.message, "a late report changes nothing");
    let duplicate = apply(&ports, &update(&message, MessageStatus::Delivered, at(4), None)).await;
    assert_eq!(recorded(&duplicate), Some(NotApplied::Duplicate));
    let failed = apply(&ports, &update(&message, MessageStatus::Failed, at(5), None)).await;
    assert_eq!(recorded(&failed), Some(NotApplied::FailedAfterDelivery));
    assert_eq!(failed.message.status, MessageStatus::Delivered);
    assert_eq!(failed.message.error, None, "an unapplied failure leaves no error");
    let read = apply(&ports, &update(&message, MessageStatus::Read, at(6), None)).await;
    assert_eq!(recorded(&read), None);
    assert_eq!(read.message.status, MessageStatus::Read);

    let history = ports
        .messages
        .status_history(&org.id, &message.id)
        .await
        .expect("status_history")
        .expect("exists");
    let summary: Vec<(MessageStatus, bool, Option<MessageStatus>)> = history
        .iter()
        .map(|e| (e.status, e.applied, e.previous_status))
        .collect();
    use MessageStatus::*;
    assert_eq!(
        summary,
        vec![
            (Accepted, true, None),
            (Submitted, true, Some(Accepted)),
            (Delivered, true, Some(Submitted)),
            (Sent, false, None),
            (Delivered, false, None),
            (Failed, false, None),
            (Read, true, Some(Delivered)),
        ],
        "every report is in the history, applied or not"
    );
    assert_eq!(
        history[5].error.as_ref().map(|e| e.code.as_str()),
        Some("recipient_unreachable")
    );
    assert_eq!(history[3].source, EventSource::Network);

    let events = events_of(&ports, &org).await;
    let seen: Vec<(u32, CustomerEventType, String)> = events
        .iter()
        .map(|e| {
            (
                e.sequence,
                e.event_type,
                payload(e)["data"]["status"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            (1, CustomerEventType::MessageStatus, "submitted".to_owned()),
            (2, CustomerEventType::MessageStatus, "delivered".to_owned()),
            (3, CustomerEventType::MessageStatus, "read".to_owned()),
        ],
        "one event per status change, numbered per message"
    );
    let body = payload(&events[1]);
    assert_eq!(body["data"]["previous_status"], "submitted");
    assert_eq!(body["data"]["sequence"], 2);
    assert_eq!(body["data"]["network_message_id"], "wamid.M1");
    assert!(
        events
            .iter()
            .all(|e| e.message_id == Some(MessageRef::Outbound(message.id)))
    );
}

/// A failure before delivery applies with its error and emits `message.failed`; nothing moves a failed
/// message, and a repeated failure emits nothing.
pub async fn tracking_failure_event_carries_the_error(ports: Ports) {
    let (org, _sender, message) = accepted_message(&ports).await;
    let failed = apply(
        &ports,
        &update(&message, MessageStatus::Failed, at(1), Some("wamid.F1")),
    )
    .await;
    assert_eq!(recorded(&failed), None);
    assert_eq!(failed.message.status, MessageStatus::Failed);
    assert_eq!(
        failed.message.error.as_ref().map(|e| e.network_code),
        Some(Some(131_026))
    );
    let again = apply(&ports, &update(&message, MessageStatus::Failed, at(2), None)).await;
    assert_eq!(recorded(&again), Some(NotApplied::Duplicate));
    let sent = apply(&ports, &update(&message, MessageStatus::Sent, at(3), None)).await;
    assert_eq!(recorded(&sent), Some(NotApplied::AlreadyFailed));

    let events = events_of(&ports, &org).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event_type, CustomerEventType::MessageFailed);
    let body = payload(&events[0]);
    assert_eq!(body["type"], "message.failed");
    assert_eq!(body["data"]["previous_status"], "accepted");
    assert_eq!(body["data"]["error"]["code"], "recipient_unreachable");
    assert_eq!(body["data"]["error"]["title"], "Recipient unreachable");
    assert_eq!(body["data"]["error"]["detail"], "not on the network");
    assert_eq!(body["data"]["error"]["network_code"], 131_026);
}

/// The network id is stored by the first applied report carrying one and kept; lookups by it work.
pub async fn tracking_network_id_is_kept_once_set(ports: Ports) {
    let (org, _sender, message) = accepted_message(&ports).await;
    let missing = ports
        .tracking
        .message_by_network_id(&org.id, "wamid.A")
        .await
        .expect("message_by_network_id");
    assert_eq!(missing, None);
    apply(
        &ports,
        &update(&message, MessageStatus::Sent, at(1), Some("wamid.A")),
    )
    .await;
    let later = apply(
        &ports,
        &update(&message, MessageStatus::Delivered, at(2), Some("wamid.B")),
    )
    .await;
    assert_eq!(later.message.network_message_id.as_deref(), Some("wamid.A"));
    let found = ports
        .tracking
        .message_by_network_id(&org.id, "wamid.A")
        .await
        .expect("message_by_network_id");
    assert_eq!(found, Some(later.message));
    let other = ports
        .tracking
        .message_by_network_id(&org.id, "wamid.B")
        .await
        .expect("message_by_network_id");
    assert_eq!(other, None);
}

/// Another organization's message is, to apply_status and message_by_network_id, a message that does not
/// exist; nothing is written.
pub async fn tracking_is_scoped_by_organization(ports: Ports) {
    let (owner, _sender, message) = accepted_message(&ports).await;
    let (intruder, _other_sender, _) = accepted_message(&ports).await;
    apply(
        &ports,
        &update(&message, MessageStatus::Sent, at(1), Some("wamid.OWN")),
    )
    .await;
    let mut foreign = update(&message, MessageStatus::Delivered, at(2), None);
    foreign.organization_id = intruder.id;
    let answer = ports.tracking.apply_status(&foreign).await.expect("apply_status");
    assert_eq!(
        answer, None,
        "apply_status of another organization's message answers None"
    );
    let unknown = update(
        &Message {
            id: MessageId::from_ulid(next_ulid()),
            ..message.clone()
        },
        MessageStatus::Delivered,
        at(2),
        None,
    );
    assert_eq!(
        ports.tracking.apply_status(&unknown).await.expect("apply_status"),
        None
    );
    let stored = ports
        .messages
        .message(&owner.id, &message.id)
        .await
        .expect("message")
        .expect("exists");
    assert_eq!(stored.status, MessageStatus::Sent, "nothing was applied");
    let history = ports
        .messages
        .status_history(&owner.id, &message.id)
        .await
        .expect("history")
        .expect("exists");
    assert_eq!(history.len(), 2, "nothing was recorded");
    assert_eq!(events_of(&ports, &owner).await.len(), 1);
    assert!(events_of(&ports, &intruder).await.is_empty());
    let found = ports
        .tracking
        .message_by_network_id(&intruder.id, "wamid.OWN")
        .await
        .expect("message_by_network_id");
    assert_eq!(found, None, "message_by_network_id is scoped by organization");
}

fn inbound(
    sender: &SenderNumber,
    wamid: &str,
    received_at: Timestamp,
    content: InboundContent,
    message_type: &str,
) -> InboundMessage {
    InboundMessage {
        phone_number_id: network_ref(sender.phone_number_id.as_str()),
        network_message_id: wamid.to_owned(),
        from: phone("+15557654321").into(),
        from_user_id: None,
        from_name: Some("Ana".to_owned()),
        received_at,
        message_type: message_type.to_owned(),
        content,
        context_message_id: None,
        referral: None,
        raw: format!(r#"{{"id":"{wamid}"}}"#),
        source_field: herald_domain::network::SourceField::Messages,
        echo: false,
    }
}

fn record(org: &Organization, sender: &SenderNumber, message: InboundMessage) -> InboundRecord {
    InboundRecord {
        id: InboundId::from_ulid(next_ulid()),
        organization_id: org.id,
        sender_id: sender.id,
        media_id: matches!(message.content, InboundContent::Media { .. })
            .then(|| MediaId::from_ulid(next_ulid())),
        message,
        customer_event_id: EventId::from_ulid(next_ulid()),
        recorded_at: at(1_000),
    }
}

fn text(body: &str) -> InboundContent {
    InboundContent::Text {
        body: body.to_owned(),
    }
}

async fn window_at(ports: &Ports, org: &Organization, sender: &SenderNumber) -> Option<Timestamp> {
    ports
        .windows
        .window(&org.id, &sender.id, &phone("+15557654321").into())
        .await
        .expect("window")
        .map(|w| w.last_inbound_at)
}

/// An inbound message is recorded once per network id and organization; it opens the window, moves it only
/// forward, and emits one `message.inbound` event (sequence 1); a duplicate writes nothing.
pub async fn tracking_inbound_is_deduplicated_and_refreshes_the_window(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let first = record(
        &org,
        &sender,
        inbound(&sender, "wamid.IN1", at(10), text("hello"), "text"),
    );
    assert!(
        ports
            .tracking
            .record_inbound_message(&first)
            .await
            .expect("record_inbound_message")
    );
    assert_eq!(
        window_at(&ports, &org, &sender).await,
        Some(at(10)),
        "the inbound opens the window"
    );
    let events = events_of(&ports, &org).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].id, first.customer_event_id);
    assert_eq!(events[0].event_type, CustomerEventType::MessageInbound);
    assert_eq!(events[0].message_id, Some(MessageRef::Inbound(first.id)));
    assert_eq!(events[0].sequence, 1);

    let mut again = record(
        &org,
        &sender,
        inbound(&sender, "wamid.IN1", at(20), text("hello"), "text"),
    );
    again.recorded_at = at(1_001);
    assert!(
        !ports
            .tracking
            .record_inbound_message(&again)
            .await
            .expect("record_inbound_message"),
        "a network message already recorded answers false"
    );
    assert_eq!(
        window_at(&ports, &org, &sender).await,
        Some(at(10)),
        "a duplicate writes nothing"
    );
    assert_eq!(
        events_of(&ports, &org).await.len(),
        1,
        "a duplicate emits nothing"
    );

    let older = record(
        &org,
        &sender,
        inbound(&sender, "wamid.IN0", at(5), text("earlier"), "text"),
    );
    assert!(
        ports
            .tracking
            .record_inbound_message(&older)
            .await
            .expect("record_inbound_message")
    );
    assert_eq!(
        window_at(&ports, &org, &sender).await,
        Some(at(10)),
        "an older inbound does not move the window back"
    );
    let newer = record(
        &org,
        &sender,
        inbound(&sender, "wamid.IN2", at(30), text("later"), "text"),
    );
    assert!(
        ports
            .tracking
            .record_inbound_message(&newer)
            .await
            .expect("record_inbound_message")
    );
    assert_eq!(window_at(&ports, &org, &sender).await, Some(at(30)));
    assert_eq!(events_of(&ports, &org).await.len(), 3);

    // Network ids are unique per organization only.
    let (other_org, other_sender) = new_organization_with_sender(&ports, "starter").await;
    let elsewhere = record(
        &other_org,
        &other_sender,
        inbound(&other_sender, "wamid.IN1", at(10), text("hi"), "text"),
    );
    assert!(
        ports
            .tracking
            .record_inbound_message(&elsewhere)
            .await
            .expect("record_inbound_message")
    );
    assert_eq!(events_of(&ports, &other_org).await.len(), 1);
}

/// The `message.inbound` body: text, media and unmodelled kinds (the network's object under `raw`), the
/// receiving number as `to`, and the replied-to message as `context`.
pub async fn tracking_inbound_events_describe_the_content(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let mut with_context = inbound(&sender, "wamid.T", at(10), text("hello"), "text");
    with_context.context_message_id = Some("wamid.ORIGINAL".to_owned());
    let media = InboundContent::Media {
        kind: "image".to_owned(),
        network_media_id: "1234567890".to_owned(),
        mime_type: Some("image/jpeg".to_owned()),
        sha256: Some("abc".to_owned()),
        caption: Some("look".to_owned()),
        filename: None,
        voice: None,
        animated: None,
    };
    let mut reaction = inbound(&sender, "wamid.R", at(12), InboundContent::Other, "reaction");
    reaction.raw = r#"{"type":"reaction","reaction":{"message_id":"wamid.X","emoji":"👍"}}"#.to_owned();
    let records = [
        record(&org, &sender, with_context),
        record(&org, &sender, inbound(&sender, "wamid.M", at(11), media, "image")),
        record(&org, &sender, reaction),
    ];
    for r in &records {
        assert!(
            ports
                .tracking
                .record_inbound_message(r)
                .await
                .expect("record_inbound_message")
        );
    }
    let events = events_of(&ports, &org).await;
    assert_eq!(events.len(), 3);
    let bodies: Vec<serde_json::Value> = events.iter().map(payload).collect();
    let text_body = &bodies[0];
    assert_eq!(text_body["type"], "message.inbound");
    assert_eq!(
        text_body["timestamp"],
        at(1_000)
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
            .as_str()
    );
    let data = &text_body["data"];
    assert_eq!(data["id"], records[0].id.to_string());
    assert_eq!(data["from"], "+15557654321");
    assert_eq!(
        data["to"], SIMULATOR_SENDER_1,
        "`to` is the receiving sender's number"
    );
    assert_eq!(data["type"], "text");
    assert_eq!(data["text"]["body"], "hello");
    assert_eq!(
        data["context"],
        serde_json::json!({ "message_id": null, "network_message_id": "wamid.ORIGINAL" }),
        "a reply to a wamid Herald does not know keeps the wamid, with no Herald id"
    );
    assert_eq!(
        data["received_at"],
        at(10)
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
            .as_str()
    );
    let media_data = &bodies[1]["data"];
    assert_eq!(media_data["type"], "image");
    let media_id = records[1]
        .media_id
        .expect("a media record has a media id")
        .to_string();
    assert_eq!(
        media_data["media"],
        serde_json::json!({
            "id": media_id,
            "mime_type": "image/jpeg",
            "sha256": "abc",
            "caption": "look",
            "filename": null,
        }),
        "inbound media are named by Herald's `med_` id (docs/api.md §9), not the network's"
    );
    assert_eq!(media_data["context"], serde_json::Value::Null);
    let raw_data = &bodies[2]["data"];
    assert_eq!(raw_data["type"], "reaction");
    assert_eq!(
        raw_data["raw"]["reaction"]["emoji"], "👍",
        "unmodelled kinds keep the network's object"
    );
}

/// Stored callbacks read back byte for byte; the unprocessed ones are listed oldest first, before the
/// bound, up to the limit; processed ones are not listed.
pub async fn tracking_callbacks_round_trip(ports: Ports) {
    let callback = |seconds: i64, body: &[u8]| StoredCallback {
        id: EventId::from_ulid(next_ulid()),
        received_at: at(seconds),
        body: body.to_vec(),
    };
    let third = callback(3, b"{\"entry\":[3]}");
    let first = callback(1, b"{\"entry\":[1]}");
    let second = callback(2, &[0xff, 0x00, 0xfe, b'x']);
    for c in [&third, &first, &second] {
        ports.tracking.store_callback(c).await.expect("store_callback");
    }
    let listed = ports
        .tracking
        .unprocessed_callbacks(at(3), 10, at(3))
        .await
        .expect("unprocessed_callbacks")
        .callbacks;
    assert_eq!(
        listed,
        vec![first.clone(), second.clone()],
        "oldest first, received before the bound, bytes intact"
    );
    let limited = ports
        .tracking
        .unprocessed_callbacks(at(10), 1, at(10))
        .await
        .expect("unprocessed_callbacks")
        .callbacks;
    assert_eq!(limited, vec![first.clone()]);
    ports
        .tracking
        .mark_callback_processed(&first.id, at(4), Some("skipped one item".to_owned()))
        .await
        .expect("mark_callback_processed");
    ports
        .tracking
        .mark_callback_processed(&second.id, at(4), None)
        .await
        .expect("mark_callback_processed");
    let rest = ports
        .tracking
        .unprocessed_callbacks(at(10), 10, at(10))
        .await
        .expect("unprocessed_callbacks")
        .callbacks;
    assert_eq!(rest, vec![third], "processed callbacks are no longer listed");
}

/// A status that came alone in its callback is applied and the callback marked processed in one
/// transaction: both or neither. A message that does not exist writes nothing and leaves the callback in the
/// backlog (the caller marks it with a note); a callback that does not exist undoes the status.
pub async fn tracking_a_lone_status_and_its_callback_commit_together(ports: Ports) {
    let (org, _sender, message) = accepted_message(&ports).await;
    let stored = |seconds: i64| StoredCallback {
        id: EventId::from_ulid(next_ulid()),
        received_at: at(seconds),
        body: b"{}".to_vec(),
    };
    let backlog = || async {
        ports
            .tracking
            .unprocessed_callbacks(at(1_000), 10, at(1_000))
            .await
            .expect("unprocessed_callbacks")
            .callbacks
            .into_iter()
            .map(|c| c.id)
            .collect::<Vec<_>>()
    };

    let sent = stored(1);
    ports
        .tracking
        .store_callback(&sent)
        .await
        .expect("store_callback");
    let applied = ports
        .tracking
        .apply_callback_status(
            &update(&message, MessageStatus::Sent, at(1), Some("wamid.ALONE")),
            &sent.id,
            at(2),
        )
        .await
        .expect("apply_callback_status")
        .expect("the message exists");
    assert_eq!(applied.message.status, MessageStatus::Sent);
    assert!(
        backlog().await.is_empty(),
        "the callback was marked processed with the status"
    );

    let orphan = stored(3);
    ports
        .tracking
        .store_callback(&orphan)
        .await
        .expect("store_callback");
    let unknown = StatusUpdate {
        message_id: MessageId::from_ulid(next_ulid()),
        ..update(&message, MessageStatus::Delivered, at(3), None)
    };
    assert_eq!(
        ports
            .tracking
            .apply_callback_status(&unknown, &orphan.id, at(4))
            .await
            .expect("apply_callback_status"),
        None
    );
    assert_eq!(
        backlog().await,
        vec![orphan.id],
        "a status for no message leaves its callback unmarked"
    );

    let never_stored = EventId::from_ulid(next_ulid());
    let events_before = events_of(&ports, &org).await.len();
    let answer = ports
        .tracking
        .apply_callback_status(
            &update(&message, MessageStatus::Delivered, at(5), None),
            &never_stored,
            at(6),
        )
        .await;
    assert!(matches!(answer, Err(StoreError::NotFound)), "got {answer:?}");
    let stored_message = ports
        .messages
        .message(&message.organization_id, &message.id)
        .await
        .expect("message")
        .expect("exists");
    assert_eq!(
        stored_message.status,
        MessageStatus::Sent,
        "the status is not applied when its callback cannot be marked"
    );
    assert_eq!(
        events_of(&ports, &org).await.len(),
        events_before,
        "no customer event of the undone status"
    );
}

/// A callback of its own, arrived at `at(seconds)`.
fn arrived(seconds: i64) -> StoredCallback {
    StoredCallback {
        id: EventId::from_ulid(next_ulid()),
        received_at: at(seconds),
        body: format!("{{\"n\":{seconds}}}").into_bytes(),
    }
}

/// A callback that arrives with one status report is stored and the status applied in one transaction:
/// stored processed when its message exists, stored unprocessed (and nothing else written) when it does not,
/// and neither when the transaction fails.
pub async fn tracking_a_callback_and_its_status_are_stored_together(ports: Ports) {
    let (org, _sender, message) = accepted_message(&ports).await;
    let backlog = || async {
        ports
            .tracking
            .unprocessed_callbacks(at(1_000), 10, at(1_000))
            .await
            .expect("unprocessed_callbacks")
            .callbacks
    };

    let sent = arrived(1);
    let applied = ports
        .tracking
        .store_callback_applying_status(
            &sent,
            &update(&message, MessageStatus::Sent, at(1), Some("wamid.TOGETHER")),
            at(2),
        )
        .await
        .expect("store_callback_applying_status")
        .expect("the message exists");
    assert_eq!(applied.message.status, MessageStatus::Sent);
    assert!(
        backlog().await.is_empty(),
        "the callback is stored processed with its status"
    );
    assert!(
        matches!(
            ports.tracking.store_callback(&sent).await,
            Err(StoreError::Conflict(_))
        ),
        "the callback itself is stored"
    );
    let events_after_sent = events_of(&ports, &org).await.len();

    let orphan = arrived(3);
    let unknown = StatusUpdate {
        message_id: MessageId::from_ulid(next_ulid()),
        ..update(&message, MessageStatus::Delivered, at(3), None)
    };
    assert_eq!(
        ports
            .tracking
            .store_callback_applying_status(&orphan, &unknown, at(4))
            .await
            .expect("store_callback_applying_status"),
        None
    );
    assert_eq!(
        backlog().await,
        vec![orphan.clone()],
        "a status for no message stores its callback unprocessed, body and all"
    );
    assert_eq!(events_of(&ports, &org).await.len(), events_after_sent);

    // The same callback id again: its insert fails, and the status applied before it in that transaction is
    // undone with it.
    let answer = ports
        .tracking
        .store_callback_applying_status(
            &sent,
            &update(&message, MessageStatus::Delivered, at(5), None),
            at(6),
        )
        .await;
    assert!(matches!(answer, Err(StoreError::Conflict(_))), "got {answer:?}");
    let stored_message = ports
        .messages
        .message(&message.organization_id, &message.id)
        .await
        .expect("message")
        .expect("exists");
    assert_eq!(stored_message.status, MessageStatus::Sent);
    assert_eq!(
        events_of(&ports, &org).await.len(),
        events_after_sent,
        "no customer event of the undone status"
    );
}

/// Status callbacks that arrive together are stored and applied together (one transaction for several, on
/// both stores), and each answers as it would alone: both reports of each message land, a status for no
/// message stores its callback unprocessed, and a callback that cannot be stored (its id is taken) fails
/// alone, its status undone with it, while the others sharing its transaction are written.
pub async fn tracking_callbacks_arriving_together_each_answer_alone(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let mut messages = Vec::new();
    for i in 0..4 {
        let message = text_message(org.id, &sender, &format!("+1555123450{i}"), at(0));
        accept_ok(&ports, &accept_request(&message, None, None)).await;
        messages.push(message);
    }
    // A burst's excess shares the batches: one stored before and processed now, one only stored now.
    let extra = text_message(org.id, &sender, "+15551234509", at(0));
    accept_ok(&ports, &accept_request(&extra, None, None)).await;
    let stored_before = arrived(2);
    ports
        .tracking
        .store_callback(&stored_before)
        .await
        .expect("store_callback");
    let only_stored = arrived(35);
    let taken = arrived(1);
    ports
        .tracking
        .store_callback(&taken)
        .await
        .expect("store_callback");
    ports
        .tracking
        .mark_callback_processed(&taken.id, at(1), None)
        .await
        .expect("mark_callback_processed");
    let mut calls: Vec<(StoredCallback, StatusUpdate)> = Vec::new();
    for (i, message) in (0_i64..).zip(&messages) {
        let wamid = format!("wamid.TOGETHER{i}");
        calls.push((
            arrived(10 + i),
            update(message, MessageStatus::Sent, at(10), Some(&wamid)),
        ));
        calls.push((
            arrived(20 + i),
            update(message, MessageStatus::Delivered, at(20), None),
        ));
    }
    let orphan = arrived(30);
    calls.push((
        orphan.clone(),
        StatusUpdate {
            message_id: MessageId::from_ulid(next_ulid()),
            ..update(&messages[0], MessageStatus::Delivered, at(30), None)
        },
    ));
    // In the middle, so that it shares a transaction with others whatever the store's number of writers.
    let failing = 3;
    calls.insert(
        failing,
        (
            StoredCallback {
                body: b"{\"taken\":true}".to_vec(),
                ..taken.clone()
            },
            update(&messages[3], MessageStatus::Read, at(31), None),
        ),
    );

    let extra_sent = update(&extra, MessageStatus::Sent, at(10), Some("wamid.TOGETHER-X"));
    let (answers, marked, stored) = futures::join!(
        futures::future::join_all(calls.iter().map(|(callback, update)| {
            ports
                .tracking
                .store_callback_applying_status(callback, update, at(40))
        })),
        ports
            .tracking
            .apply_callback_status(&extra_sent, &stored_before.id, at(40)),
        ports.tracking.store_callback(&only_stored),
    );
    let marked = marked
        .expect("apply_callback_status")
        .expect("the message exists");
    assert_eq!(marked.message.id, extra.id);
    assert_eq!(marked.message.status, MessageStatus::Sent);
    stored.expect("store_callback");

    for (i, (answer, (callback, update))) in answers.iter().zip(&calls).enumerate() {
        if i == failing {
            assert!(matches!(answer, Err(StoreError::Conflict(_))), "got {answer:?}");
        } else if callback.id == orphan.id {
            assert!(matches!(answer, Ok(None)), "got {answer:?}");
        } else {
            let applied = answer
                .as_ref()
                .unwrap_or_else(|e| panic!("{:?}: {e}", update.report.status))
                .as_ref()
                .expect("the message exists");
            assert_eq!(applied.message.id, update.message_id);
            assert!(
                matches!(
                    ports.tracking.store_callback(callback).await,
                    Err(StoreError::Conflict(_))
                ),
                "the callback of each applied status is stored"
            );
        }
    }
    assert_eq!(
        ports
            .tracking
            .unprocessed_callbacks(at(1_000), 10, at(1_000))
            .await
            .expect("unprocessed_callbacks")
            .callbacks,
        vec![orphan, only_stored],
        "only the status for no message and the callback only stored are unprocessed; the taken id kept its \
         first body; the callback stored before is marked"
    );
    for message in &messages {
        let stored = ports
            .messages
            .message(&message.organization_id, &message.id)
            .await
            .expect("message")
            .expect("exists");
        assert_eq!(
            stored.status,
            MessageStatus::Delivered,
            "both reports of {} landed, and the failed callback's `read` did not",
            message.id
        );
    }
    let statuses: Vec<String> = events_of(&ports, &org)
        .await
        .iter()
        .map(|e| {
            payload(e)["data"]["status"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert!(
        !statuses.iter().any(|s| s == "read"),
        "no customer event of the undone status: {statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| *s == "delivered").count(),
        messages.len(),
        "one `delivered` event per message: {statuses:?}"
    );
}

/// A callback whose processing keeps failing is counted, then parked at the given number of failures: it
/// leaves the backlog (the callbacks after it are listed), is kept with its attempts and last error, and
/// requeueing puts it back with a fresh count.
pub async fn tracking_failing_callback_is_parked_and_requeued(ports: Ports) {
    let callback = |seconds: i64| StoredCallback {
        id: EventId::from_ulid(next_ulid()),
        received_at: at(seconds),
        body: b"{\"entry\":[]}".to_vec(),
    };
    let (poison, next) = (callback(1), callback(2));
    for c in [&poison, &next] {
        ports.tracking.store_callback(c).await.expect("store_callback");
    }
    let backlog = || async {
        ports
            .tracking
            .unprocessed_callbacks(at(100), 10, at(100))
            .await
            .expect("unprocessed_callbacks")
            .callbacks
    };
    for attempt in 1..=3_i64 {
        let parked = ports
            .tracking
            .record_callback_failure(&poison.id, at(10 + attempt), &format!("failure {attempt}"), 3)
            .await
            .expect("record_callback_failure");
        assert_eq!(parked, attempt == 3, "parked at the third failure, not before");
    }
    assert_eq!(
        backlog().await,
        vec![next.clone()],
        "a parked callback leaves the backlog"
    );
    assert_eq!(
        ports
            .tracking
            .parked_callbacks(10)
            .await
            .expect("parked_callbacks"),
        vec![ParkedCallback {
            id: poison.id.to_string(),
            received_at: poison.received_at,
            attempts: 3,
            last_error: Some("failure 3".to_owned()),
            parked_at: at(13),
        }],
        "kept with its attempts and last error"
    );
    assert_eq!(ports.tracking.count_parked_callbacks().await.expect("count"), 1);
    assert!(
        matches!(
            ports
                .tracking
                .record_callback_failure(&EventId::from_ulid(next_ulid()), at(14), "x", 3)
                .await,
            Err(herald_domain::ports::StoreError::NotFound)
        ),
        "an unknown callback is NotFound"
    );

    assert_eq!(
        ports.tracking.requeue_parked_callbacks().await.expect("requeue"),
        1
    );
    assert_eq!(
        backlog().await,
        vec![poison.clone(), next],
        "requeued, it is listed again in its place"
    );
    assert_eq!(ports.tracking.count_parked_callbacks().await.expect("count"), 0);
    assert!(
        !ports
            .tracking
            .record_callback_failure(&poison.id, at(20), "again", 3)
            .await
            .expect("record_callback_failure"),
        "the count starts afresh after a requeue"
    );
}

/// Reports applied together in one transaction, as a batch of callbacks is, give what applying them one by
/// one gives: each applies on the result of those before it (two and three reports of one message among
/// others'), every report is in the history, the message's customer events are numbered in turn after the
/// ones it had, a late report is only recorded yet still fills a pricing, and a report about another
/// organization's message or none answers `None` and writes nothing.
pub async fn tracking_reports_applied_together_each_on_the_last_result(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let (other_org, _) = new_organization_with_sender(&ports, "starter").await;
    let first = text_message(org.id, &sender, "+15551234601", at(0));
    let second = text_message(org.id, &sender, "+15551234602", at(0));
    for message in [&first, &second] {
        accept_ok(&ports, &accept_request(message, None, None)).await;
    }
    // One event before the batch, so the batch's events must follow it.
    ports
        .tracking
        .apply_status(&update(
            &first,
            MessageStatus::Submitted,
            at(1),
            Some("wamid.TOGETHER-A"),
        ))
        .await
        .expect("apply_status")
        .expect("the message exists");
    let pricing = herald_domain::pricing::Pricing {
        model: herald_domain::pricing::PricingWord::parse("pmp").ok(),
        category: herald_domain::pricing::PricingWord::parse("utility").ok(),
        kind: herald_domain::pricing::PricingWord::parse("regular").ok(),
        billable: Some(true),
    };
    let updates = vec![
        update(&first, MessageStatus::Sent, at(2), None),
        update(&second, MessageStatus::Sent, at(2), Some("wamid.TOGETHER-B")),
        update(&first, MessageStatus::Delivered, at(3), None),
        StatusUpdate {
            organization_id: other_org.id,
            ..update(&second, MessageStatus::Read, at(4), None)
        },
        update(&first, MessageStatus::Read, at(4), None),
        StatusUpdate {
            message_id: MessageId::from_ulid(next_ulid()),
            ..update(&first, MessageStatus::Delivered, at(4), None)
        },
        // Late: the message is read already; recorded, and its pricing kept since none was known.
        StatusUpdate {
            pricing: Some(pricing.clone()),
            ..update(&first, MessageStatus::Delivered, at(3), None)
        },
    ];
    let answers = ports
        .events
        .apply_statuses_together(&updates)
        .await
        .expect("apply_statuses_together");

    let statuses: Vec<Option<(MessageStatus, bool)>> = answers
        .iter()
        .map(|a| {
            a.as_ref().map(|a| {
                (
                    a.message.status,
                    matches!(a.transition, Transition::Applied { .. }),
                )
            })
        })
        .collect();
    assert_eq!(
        statuses,
        vec![
            Some((MessageStatus::Sent, true)),
            Some((MessageStatus::Sent, true)),
            Some((MessageStatus::Delivered, true)),
            None,
            Some((MessageStatus::Read, true)),
            None,
            Some((MessageStatus::Read, false)),
        ],
        "each report answered on the result of the ones before it"
    );
    let stored = |message: &Message| {
        let ports = &ports;
        let id = message.id;
        async move {
            ports
                .messages
                .message(&org.id, &id)
                .await
                .expect("message")
                .expect("exists")
        }
    };
    let a = stored(&first).await;
    assert_eq!(a.status, MessageStatus::Read);
    assert_eq!(a.network_message_id.as_deref(), Some("wamid.TOGETHER-A"));
    assert_eq!(
        (a.timestamps.sent, a.timestamps.delivered, a.timestamps.read),
        (Some(at(2)), Some(at(3)), Some(at(4))),
        "every applied report's time is kept"
    );
    assert_eq!(a.pricing, Some(pricing), "the late report's pricing is kept");
    let b = stored(&second).await;
    assert_eq!(
        b.status,
        MessageStatus::Sent,
        "the other organization's report changed nothing"
    );
    assert_eq!(b.network_message_id.as_deref(), Some("wamid.TOGETHER-B"));

    let history: Vec<(MessageStatus, bool)> = ports
        .messages
        .status_history(&org.id, &first.id)
        .await
        .expect("status_history")
        .expect("exists")
        .iter()
        .filter(|e| e.source == EventSource::Network)
        .map(|e| (e.status, e.applied))
        .collect();
    assert_eq!(
        history,
        vec![
            (MessageStatus::Submitted, true),
            (MessageStatus::Sent, true),
            (MessageStatus::Delivered, true),
            (MessageStatus::Read, true),
            (MessageStatus::Delivered, false),
        ],
        "every report is in the history, in order"
    );
    let events: Vec<(u32, String)> = events_of(&ports, &org)
        .await
        .iter()
        .filter(|e| e.message_id == Some(MessageRef::Outbound(first.id)))
        .map(|e| {
            (
                e.sequence,
                payload(e)["data"]["status"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect();
    let numbered: Vec<u32> = (1..).take(events.len()).collect();
    assert_eq!(
        events.iter().map(|(sequence, _)| *sequence).collect::<Vec<_>>(),
        numbered,
        "the message's events are numbered in turn: {events:?}"
    );
    assert_eq!(
        events
            .iter()
            .rev()
            .take(3)
            .map(|(_, status)| status.as_str())
            .collect::<Vec<_>>(),
        vec!["read", "delivered", "sent"],
        "one event per applied report of the batch, after the ones before: {events:?}"
    );
    assert!(
        events_of(&ports, &other_org).await.is_empty(),
        "nothing written for the other organization"
    );
}
