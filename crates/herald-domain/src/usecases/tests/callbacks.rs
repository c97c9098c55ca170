//! `ProcessCallbacks`: storing a callback before acknowledging it, routing each status and inbound message
//! to its organization, what is skipped and noted, and that a store failure leaves the callback unprocessed.

use super::*;
use crate::customer_event::InboundRecord;
use crate::dispatch::{CallbackPage, StoredCallback};
use crate::ids::{EventId, InboundId};
use crate::message::{EventSource, MessageError, MessageStatus, StatusTimestamps};
use crate::network::{
    InboundContent, InboundMessage, NetworkEvent, NetworkStatusReport, ParsedCallback, ReportedStatus,
};
use crate::ports::{MockAccountStore, MockCallbackDecoder, MockTrackingStore, StoreError};
use crate::status::{NotApplied, StatusReport, StatusState, Transition};
use crate::status::{StatusApplied, StatusUpdate};
use crate::usecases::{BacklogReport, CALLBACK_ATTEMPTS, CallbackReport, ProcessCallbacks, Received};
use std::sync::{Arc, Mutex};

const WAMID: &str = "wamid.HBgLMTU1NTEyMzQ1NjcVAgARGBI";
const UNKNOWN_PHONE_NUMBER_ID: &str = "199999999";

/// The callback every `process` test handles.
fn callback(n: u128) -> StoredCallback {
    StoredCallback {
        id: EventId::from_ulid(ulid(900 + n)),
        received_at: now() - seconds(2),
        body: format!("{{\"entry\":{n}}}").into_bytes(),
    }
}

/// When the network says the status happened: a little before now.
fn occurred_at() -> Timestamp {
    now() - seconds(40)
}

/// A status report from the default sender's number about `stored_message(1)`, carrying its id as callback
/// data.
fn status_report(status: ReportedStatus) -> NetworkStatusReport {
    NetworkStatusReport {
        phone_number_id: sender(1, DEFAULT_NUMBER, true).phone_number_id,
        network_message_id: WAMID.into(),
        callback_data: Some(stored_message(1).id.to_string()),
        status,
        occurred_at: occurred_at(),
        recipient: Some("15551234567".into()),
        recipient_user_id: None,
        error: None,
        pricing: None,
    }
}

fn inbound(phone_number_id: &str) -> InboundMessage {
    InboundMessage {
        phone_number_id: network_ref(phone_number_id),
        network_message_id: "wamid.INBOUND1".into(),
        from: phone(RECIPIENT).into(),
        from_user_id: None,
        from_name: Some("Ana".into()),
        received_at: now() - seconds(3),
        message_type: "text".into(),
        content: InboundContent::Text { body: "hi".into() },
        context_message_id: None,
        referral: None,
        raw: "{\"type\":\"text\"}".into(),
        source_field: crate::network::SourceField::Messages,
        echo: false,
    }
}

fn parsed(events: Vec<NetworkEvent>, skipped: Vec<&str>) -> ParsedCallback {
    ParsedCallback {
        events,
        skipped: skipped.into_iter().map(String::from).collect(),
        unknown_fields: Vec::new(),
    }
}

/// What the store answers for an applied report: the message moved to `status`.
fn applied(status: MessageStatus) -> StatusApplied {
    let mut message = stored_message(1);
    message.status = status;
    StatusApplied {
        transition: Transition::Applied {
            previous: MessageStatus::Submitted,
            state: StatusState {
                status,
                timestamps: StatusTimestamps::default(),
                error: None,
            },
        },
        message,
        trace: None,
    }
}

fn recorded_only() -> StatusApplied {
    StatusApplied {
        transition: Transition::Recorded {
            reason: NotApplied::Late,
        },
        message: stored_message(1),
        trace: None,
    }
}

/// The update `process` must hand the store for `status_report(reported)` once the message is known as
/// `message`: the mapped status, the network id carried, the first two generated ids, the clock time.
fn expected_update(message: MessageId, status: MessageStatus, error: Option<MessageError>) -> StatusUpdate {
    StatusUpdate {
        organization_id: org_id(),
        message_id: message,
        report: StatusReport {
            status,
            occurred_at: occurred_at(),
            error,
        },
        network_message_id: Some(WAMID.into()),
        source: EventSource::Network,
        event_id: EventId::from_ulid(generated(1)),
        customer_event_id: EventId::from_ulid(generated(2)),
        recorded_at: now(),
        pricing: None,
    }
}

/// Every port of `ProcessCallbacks` as a mock; a port without expectations panics when called.
struct Ports {
    accounts: MockAccountStore,
    tracking: MockTrackingStore,
    decoder: MockCallbackDecoder,
}

impl Ports {
    fn new() -> Self {
        Self {
            accounts: MockAccountStore::new(),
            tracking: MockTrackingStore::new(),
            decoder: MockCallbackDecoder::new(),
        }
    }

    /// The decoder turns `callback(n)`'s body into `answer`, once.
    fn decodes(&mut self, n: u128, answer: Result<ParsedCallback, String>) -> &mut Self {
        self.decoder
            .expect_decode()
            .withf(move |body| body == callback(n).body.as_slice())
            .times(1)
            .returning(move |_| answer.clone());
        self
    }

    /// The account store knows the default sender by its phone number id, and nothing else.
    fn knows_default_sender(&mut self) -> &mut Self {
        self.accounts.expect_sender_by_phone_number_id().returning(|id| {
            let known = sender(1, DEFAULT_NUMBER, true);
            Ok((*id == known.phone_number_id).then_some(known))
        });
        self
    }

    /// `mark_callback_processed` is called once, for `callback(n)` at `now()` with `note`.
    fn marks(&mut self, n: u128, note: Option<&str>) -> &mut Self {
        let note = note.map(String::from);
        self.tracking
            .expect_mark_callback_processed()
            .withf(move |id, at, given| *id == callback(n).id && *at == now() && *given == note)
            .times(1)
            .returning(|_, _, _| Ok(()));
        self
    }

    fn never_marks(&mut self) -> &mut Self {
        self.tracking.expect_mark_callback_processed().times(0);
        self
    }

    fn never_applies(&mut self) -> &mut Self {
        self.tracking.expect_apply_status().times(0);
        self
    }

    fn never_looks_up_by_network_id(&mut self) -> &mut Self {
        self.tracking.expect_message_by_network_id().times(0);
        self
    }

    fn never_records_inbound(&mut self) -> &mut Self {
        self.tracking.expect_record_inbound_message().times(0);
        self
    }

    /// `apply_callback_status` answers `answer` once, for `callback(n)` at `now()` (a status alone in its
    /// callback: applied and the callback marked in one transaction), and keeps the update it was given.
    fn applies_marking(&mut self, n: u128, answer: Option<StatusApplied>) -> Arc<Mutex<Vec<StatusUpdate>>> {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let keep = Arc::clone(&seen);
        self.tracking
            .expect_apply_callback_status()
            .withf(move |_, id, at| *id == callback(n).id && *at == now())
            .times(1)
            .returning(move |update, _, _| {
                keep.lock().unwrap().push(update.clone());
                Ok(answer.clone())
            });
        seen
    }

    fn use_case(self) -> ProcessCallbacks {
        ProcessCallbacks::new(
            Arc::new(self.accounts),
            Arc::new(self.tracking),
            Arc::new(self.decoder),
            Arc::new(clock_at(now())),
            Arc::new(sequential_ids()),
        )
    }
}

fn only_update(seen: &Arc<Mutex<Vec<StatusUpdate>>>) -> StatusUpdate {
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    seen[0].clone()
}

// ---- receive ----

#[test]
fn receive_stores_the_body_with_a_new_id_and_the_clock_time() {
    let mut ports = Ports::new();
    let expected = StoredCallback {
        id: EventId::from_ulid(generated(1)),
        received_at: now(),
        body: b"{\"object\":\"whatsapp_business_account\"}".to_vec(),
    };
    let want = expected.clone();
    ports
        .tracking
        .expect_store_callback()
        .withf(move |c| *c == want)
        .times(1)
        .returning(|_| Ok(()));
    ports.decoder.expect_decode().times(0);
    let stored = run(ports.use_case().receive(expected.body.clone())).unwrap();
    assert_eq!(stored, expected);
}

#[test]
fn receive_returns_a_store_failure_so_the_network_retries() {
    let mut ports = Ports::new();
    ports
        .tracking
        .expect_store_callback()
        .times(1)
        .returning(|_| Err(StoreError::Unavailable("disk full".into())));
    let err = run(ports.use_case().receive(b"{}".to_vec())).unwrap_err();
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
}

// ---- receive_and_apply ----

/// `callback(1)`'s body as it arrives: the id is the first one generated, the time the clock's.
fn arriving() -> StoredCallback {
    StoredCallback {
        id: EventId::from_ulid(generated(1)),
        received_at: now(),
        body: callback(1).body,
    }
}

/// The update for `stored_message(1)` when the callback's id was generated first.
fn arriving_update(status: MessageStatus) -> StatusUpdate {
    StatusUpdate {
        event_id: EventId::from_ulid(generated(2)),
        customer_event_id: EventId::from_ulid(generated(3)),
        ..expected_update(stored_message(1).id, status, None)
    }
}

impl Ports {
    /// `store_callback_applying_status` answers `answer` once, for the arriving callback and `update`.
    fn stores_applying(
        &mut self,
        update: StatusUpdate,
        answer: Result<Option<StatusApplied>, StoreError>,
    ) -> &mut Self {
        let answer = Mutex::new(Some(answer));
        self.tracking
            .expect_store_callback_applying_status()
            .withf(move |callback, given, at| *callback == arriving() && *given == update && *at == now())
            .times(1)
            .returning(move |_, _, _| answer.lock().unwrap().take().unwrap());
        self
    }

    /// `store_callback` is called once, with the arriving callback, and answers `answer`.
    fn stores_alone(&mut self, answer: Result<(), StoreError>) -> &mut Self {
        let answer = Mutex::new(Some(answer));
        self.tracking
            .expect_store_callback()
            .withf(|callback| *callback == arriving())
            .times(1)
            .returning(move |_| answer.lock().unwrap().take().unwrap());
        self
    }

    fn never_stores_alone(&mut self) -> &mut Self {
        self.tracking.expect_store_callback().times(0);
        self
    }
}

fn lone_status() -> Result<ParsedCallback, String> {
    Ok(parsed(
        vec![NetworkEvent::Status(status_report(ReportedStatus::Delivered))],
        vec![],
    ))
}

#[test]
fn a_lone_status_is_stored_and_applied_by_one_store_call() {
    let mut ports = Ports::new();
    ports
        .decodes(1, lone_status())
        .knows_default_sender()
        .never_looks_up_by_network_id()
        .stores_applying(
            arriving_update(MessageStatus::Delivered),
            Ok(Some(applied(MessageStatus::Delivered))),
        )
        .never_stores_alone()
        .never_marks();
    let received = run(ports.use_case().receive_and_apply(callback(1).body)).unwrap();
    let Received::Processed(report) = received else {
        panic!("applied as it arrived, got {received:?}");
    };
    assert_eq!(report.statuses_applied, 1);
    assert!(report.skipped.is_empty());
}

#[test]
fn a_lone_status_for_no_message_is_stored_unprocessed_then_marked_with_a_note() {
    let mut ports = Ports::new();
    ports
        .decodes(1, lone_status())
        .knows_default_sender()
        .stores_applying(arriving_update(MessageStatus::Delivered), Ok(None))
        .never_stores_alone();
    let note = format!("status for unknown message {WAMID}");
    let want = Some(note.clone());
    ports
        .tracking
        .expect_mark_callback_processed()
        .withf(move |id, at, given| *id == arriving().id && *at == now() && *given == want)
        .times(1)
        .returning(|_, _, _| Ok(()));
    let received = run(ports.use_case().receive_and_apply(callback(1).body)).unwrap();
    let Received::Processed(report) = received else {
        panic!("handled as it arrived, got {received:?}");
    };
    assert_eq!(report.skipped, vec![note]);
}

#[test]
fn a_lone_status_of_an_unknown_number_is_stored_before_it_is_marked() {
    let mut ports = Ports::new();
    let mut report = status_report(ReportedStatus::Delivered);
    report.phone_number_id = network_ref(UNKNOWN_PHONE_NUMBER_ID);
    ports
        .decodes(1, Ok(parsed(vec![NetworkEvent::Status(report)], vec![])))
        .knows_default_sender()
        .stores_alone(Ok(()));
    ports.tracking.expect_store_callback_applying_status().times(0);
    ports
        .tracking
        .expect_mark_callback_processed()
        .withf(|id, _, note| {
            *id == arriving().id
                && note
                    .as_deref()
                    .is_some_and(|n| n.contains(UNKNOWN_PHONE_NUMBER_ID))
        })
        .times(1)
        .returning(|_, _, _| Ok(()));
    let received = run(ports.use_case().receive_and_apply(callback(1).body)).unwrap();
    assert!(matches!(received, Received::Processed(_)), "{received:?}");
}

#[test]
fn a_callback_that_carries_more_than_one_status_is_only_stored() {
    let mut ports = Ports::new();
    ports
        .decodes(
            1,
            Ok(parsed(
                vec![
                    NetworkEvent::Status(status_report(ReportedStatus::Sent)),
                    NetworkEvent::Status(status_report(ReportedStatus::Delivered)),
                ],
                vec![],
            )),
        )
        .stores_alone(Ok(()))
        .never_applies()
        .never_marks();
    ports.tracking.expect_store_callback_applying_status().times(0);
    let received = run(ports.use_case().receive_and_apply(callback(1).body)).unwrap();
    assert!(
        matches!(received, Received::Stored(ref c) if *c == arriving()),
        "{received:?}"
    );
}

#[test]
fn a_failed_transaction_falls_back_to_storing_the_callback_for_processing() {
    for (fallback, stored) in [
        (Ok(()), true),
        // The failed transaction had committed after all: the callback is there, processing it again is safe.
        (Err(StoreError::Conflict("network_callbacks_pkey".into())), true),
        (Err(StoreError::Unavailable("down".into())), false),
    ] {
        let mut ports = Ports::new();
        ports
            .decodes(1, lone_status())
            .knows_default_sender()
            .stores_applying(
                arriving_update(MessageStatus::Delivered),
                Err(StoreError::Unavailable("connection lost".into())),
            )
            .stores_alone(fallback)
            .never_marks();
        let received = run(ports.use_case().receive_and_apply(callback(1).body));
        match received {
            Ok(Received::Stored(c)) if stored => assert_eq!(c, arriving()),
            Err(StoreError::Unavailable(_)) if !stored => {}
            other => panic!("stored {stored}: got {other:?}"),
        }
    }
}

// ---- process: envelopes ----

#[test]
fn a_body_that_is_not_an_envelope_is_noted_and_still_marked_processed() {
    let mut ports = Ports::new();
    ports
        .decodes(1, Err("expected value at line 1".into()))
        .marks(1, Some("not a callback envelope: expected value at line 1"))
        .never_applies()
        .never_records_inbound();
    ports.accounts.expect_sender_by_phone_number_id().times(0);
    let report = run(ports.use_case().process(&callback(1))).unwrap();
    assert_eq!(
        report,
        CallbackReport {
            skipped: vec!["not a callback envelope: expected value at line 1".into()],
            ..CallbackReport::default()
        }
    );
}

#[test]
fn an_empty_envelope_is_marked_processed_without_a_note() {
    let mut ports = Ports::new();
    ports
        .decodes(1, Ok(ParsedCallback::default()))
        .marks(1, None)
        .never_applies()
        .never_records_inbound();
    let report = run(ports.use_case().process(&callback(1))).unwrap();
    assert_eq!(report, CallbackReport::default());
}

// ---- process: statuses ----

#[test]
fn a_status_with_callback_data_is_applied_to_that_message_without_a_lookup() {
    let mut ports = Ports::new();
    ports
        .decodes(
            1,
            Ok(parsed(
                vec![NetworkEvent::Status(status_report(ReportedStatus::Delivered))],
                vec![],
            )),
        )
        .knows_default_sender()
        .never_looks_up_by_network_id();
    let seen = ports.applies_marking(1, Some(applied(MessageStatus::Delivered)));
    let report = run(ports.use_case().process(&callback(1))).unwrap();
    assert_eq!(
        only_update(&seen),
        expected_update(stored_message(1).id, MessageStatus::Delivered, None)
    );
    assert_eq!(
        report,
        CallbackReport {
            statuses_applied: 1,
            ..CallbackReport::default()
        }
    );
}

#[test]
fn a_status_applied_to_a_traced_message_is_marked_in_that_trace() {
    let mut ports = Ports::new();
    ports
        .decodes(
            1,
            Ok(parsed(
                vec![NetworkEvent::Status(status_report(ReportedStatus::Delivered))],
                vec![],
            )),
        )
        .knows_default_sender()
        .never_looks_up_by_network_id();
    let mut answer = applied(MessageStatus::Delivered);
    answer.trace = Some(trace_context());
    ports.applies_marking(1, Some(answer));
    let traces = follows_the_trace_once();

    let report = run(ports
        .use_case()
        .with_trace_links(Arc::new(traces))
        .process(&callback(1)))
    .unwrap();

    assert_eq!(report.statuses_applied, 1);
}

#[test]
fn every_reported_status_maps_to_its_message_status_and_played_counts_as_read() {
    for (reported, status) in [
        (ReportedStatus::Sent, MessageStatus::Sent),
        (ReportedStatus::Delivered, MessageStatus::Delivered),
        (ReportedStatus::Read, MessageStatus::Read),
        (ReportedStatus::Played, MessageStatus::Read),
    ] {
        let mut ports = Ports::new();
        ports
            .decodes(
                1,
                Ok(parsed(
                    vec![NetworkEvent::Status(status_report(reported))],
                    vec![],
                )),
            )
            .knows_default_sender()
            .never_looks_up_by_network_id();
        let seen = ports.applies_marking(1, Some(applied(status)));
        run(ports.use_case().process(&callback(1))).unwrap();
        assert_eq!(
            only_update(&seen),
            expected_update(stored_message(1).id, status, None),
            "{reported:?}"
        );
    }
}

#[test]
fn a_failed_status_carries_the_networks_error() {
    let error = MessageError {
        code: "recipient_unreachable".into(),
        title: "Recipient unreachable".into(),
        detail: "message undeliverable".into(),
        network_code: Some(131_026),
    };
    let mut report_in = status_report(ReportedStatus::Failed);
    report_in.error = Some(error.clone());
    let mut ports = Ports::new();
    ports
        .decodes(1, Ok(parsed(vec![NetworkEvent::Status(report_in)], vec![])))
        .knows_default_sender()
        .never_looks_up_by_network_id();
    let seen = ports.applies_marking(1, Some(applied(MessageStatus::Failed)));
    run(ports.use_case().process(&callback(1))).unwrap();
    assert_eq!(
        only_update(&seen),
        expected_update(stored_message(1).id, MessageStatus::Failed, Some(error))
    );
}

#[test]
fn a_status_without_usable_callback_data_is_matched_by_network_id() {
    let not_ids = [
        None,
        Some("order-1234".to_string()),
        Some(format!("key_{}", ulid(501))),
        Some("msg_not-a-ulid".to_string()),
    ];
    for callback_data in not_ids {
        let mut report_in = status_report(ReportedStatus::Sent);
        report_in.callback_data = callback_data.clone();
        let mut ports = Ports::new();
        ports
            .decodes(1, Ok(parsed(vec![NetworkEvent::Status(report_in)], vec![])))
            .knows_default_sender();
        // The message found by network id is stored_message(3), so the update cannot come from elsewhere.
        ports
            .tracking
            .expect_message_by_network_id()
            .withf(|org, id| *org == org_id() && id == WAMID)
            .times(1)
            .returning(|_, _| Ok(Some(stored_message(3))));
        let seen = ports.applies_marking(1, Some(applied(MessageStatus::Sent)));
        let report = run(ports.use_case().process(&callback(1))).unwrap();
        assert_eq!(
            only_update(&seen),
            expected_update(stored_message(3).id, MessageStatus::Sent, None),
            "{callback_data:?}"
        );
        assert_eq!(report.statuses_applied, 1);
    }
}

#[test]
fn a_status_for_an_unknown_phone_number_id_is_skipped_and_noted() {
    let mut report_in = status_report(ReportedStatus::Delivered);
    report_in.phone_number_id = network_ref(UNKNOWN_PHONE_NUMBER_ID);
    let note = format!("status for unknown phone_number_id {UNKNOWN_PHONE_NUMBER_ID}");
    let mut ports = Ports::new();
    ports
        .decodes(1, Ok(parsed(vec![NetworkEvent::Status(report_in)], vec![])))
        .knows_default_sender()
        .never_looks_up_by_network_id()
        .never_applies()
        .marks(1, Some(&note));
    let report = run(ports.use_case().process(&callback(1))).unwrap();
    assert_eq!(
        report,
        CallbackReport {
            skipped: vec![note],
            ..CallbackReport::default()
        }
    );
}

#[test]
fn a_status_for_a_message_no_one_knows_is_skipped_and_noted() {
    let mut report_in = status_report(ReportedStatus::Delivered);
    report_in.callback_data = None;
    let note = format!("status for unknown message {WAMID}");
    let mut ports = Ports::new();
    ports
        .decodes(1, Ok(parsed(vec![NetworkEvent::Status(report_in)], vec![])))
        .knows_default_sender()
        .never_applies()
        .marks(1, Some(&note));
    ports
        .tracking
        .expect_message_by_network_id()
        .times(1)
        .returning(|_, _| Ok(None));
    let report = run(ports.use_case().process(&callback(1))).unwrap();
    assert_eq!(report.skipped, vec![note]);
    assert_eq!(report.statuses_applied + report.statuses_recorded_only, 0);
}

#[test]
fn a_status_whose_message_the_store_does_not_have_is_skipped_and_noted() {
    // The callback data names a message that is not the organization's (or no longer exists).
    let note = format!("status for unknown message {WAMID}");
    let mut ports = Ports::new();
    ports
        .decodes(
            1,
            Ok(parsed(
                vec![NetworkEvent::Status(status_report(ReportedStatus::Read))],
                vec![],
            )),
        )
        .knows_default_sender()
        .never_looks_up_by_network_id()
        .marks(1, Some(&note));
    ports.applies_marking(1, None);
    let report = run(ports.use_case().process(&callback(1))).unwrap();
    assert_eq!(
        report,
        CallbackReport {
            skipped: vec![note],
            ..CallbackReport::default()
        }
    );
}

#[test]
fn a_status_the_machine_only_records_is_counted_as_recorded() {
    let mut ports = Ports::new();
    ports
        .decodes(
            1,
            Ok(parsed(
                vec![NetworkEvent::Status(status_report(ReportedStatus::Sent))],
                vec![],
            )),
        )
        .knows_default_sender()
        .never_looks_up_by_network_id();
    ports.applies_marking(1, Some(recorded_only()));
    let report = run(ports.use_case().process(&callback(1))).unwrap();
    assert_eq!(
        report,
        CallbackReport {
            statuses_recorded_only: 1,
            ..CallbackReport::default()
        }
    );
}

// ---- process: inbound messages ----

/// `record_inbound_message` answers `fresh` once and keeps the record.
fn records_inbound(ports: &mut Ports, fresh: bool) -> Arc<Mutex<Vec<InboundRecord>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&seen);
    ports
        .tracking
        .expect_record_inbound_message()
        .times(1)
        .returning(move |record| {
            keep.lock().unwrap().push(record.clone());
            Ok(fresh)
        });
    seen
}

#[test]
fn an_inbound_message_is_recorded_for_the_senders_organization() {
    let default = sender(1, DEFAULT_NUMBER, true);
    let message = inbound(default.phone_number_id.as_str());
    let mut ports = Ports::new();
    ports
        .decodes(
            1,
            Ok(parsed(vec![NetworkEvent::Inbound(message.clone())], vec![])),
        )
        .knows_default_sender()
        .never_applies()
        .marks(1, None);
    let seen = records_inbound(&mut ports, true);
    let report = run(ports.use_case().process(&callback(1))).unwrap();
    assert_eq!(
        seen.lock().unwrap().clone(),
        vec![InboundRecord {
            id: InboundId::from_ulid(generated(1)),
            organization_id: org_id(),
            sender_id: default.id,
            message,
            media_id: None,
            customer_event_id: EventId::from_ulid(generated(2)),
            recorded_at: now(),
        }]
    );
    assert_eq!(
        report,
        CallbackReport {
            inbound_recorded: 1,
            ..CallbackReport::default()
        }
    );
}

#[test]
fn an_inbound_file_gets_a_media_id_of_its_own() {
    let default = sender(1, DEFAULT_NUMBER, true);
    let mut message = inbound(default.phone_number_id.as_str());
    message.message_type = "audio".into();
    message.content = InboundContent::Media {
        kind: "audio".into(),
        network_media_id: "555".into(),
        mime_type: Some("audio/ogg".into()),
        sha256: None,
        caption: None,
        filename: None,
        voice: Some(true),
        animated: None,
    };
    let mut ports = Ports::new();
    ports
        .decodes(1, Ok(parsed(vec![NetworkEvent::Inbound(message)], vec![])))
        .knows_default_sender()
        .never_applies()
        .marks(1, None);
    let seen = records_inbound(&mut ports, true);
    run(ports.use_case().process(&callback(1))).unwrap();
    let record = seen.lock().unwrap()[0].clone();
    let media_id = record.media_id.expect("a media id");
    assert_ne!(media_id.ulid(), record.id.ulid());
    assert_ne!(media_id.ulid(), record.customer_event_id.ulid());
}

#[test]
fn an_inbound_message_routes_to_the_organization_owning_the_number() {
    // The number belongs to another organization: the record goes there, whatever the callback says.
    let mut theirs = sender(7, "+15559990000", true);
    theirs.organization_id = other_org_id();
    let number_id = theirs.phone_number_id.clone();
    let mut ports = Ports::new();
    ports
        .decodes(
            1,
            Ok(parsed(
                vec![NetworkEvent::Inbound(inbound(number_id.as_str()))],
                vec![],
            )),
        )
        .never_applies()
        .marks(1, None);
    let found = theirs.clone();
    ports
        .accounts
        .expect_sender_by_phone_number_id()
        .withf(move |id| *id == number_id)
        .times(1)
        .returning(move |_| Ok(Some(found.clone())));
    let seen = records_inbound(&mut ports, true);
    run(ports.use_case().process(&callback(1))).unwrap();
    let record = seen.lock().unwrap()[0].clone();
    assert_eq!(record.organization_id, other_org_id());
    assert_eq!(record.sender_id, theirs.id);
}

#[test]
fn a_duplicate_inbound_message_is_counted_as_a_duplicate() {
    let mut ports = Ports::new();
    ports
        .decodes(
            1,
            Ok(parsed(
                vec![NetworkEvent::Inbound(inbound(
                    sender(1, DEFAULT_NUMBER, true).phone_number_id.as_str(),
                ))],
                vec![],
            )),
        )
        .knows_default_sender()
        .marks(1, None);
    records_inbound(&mut ports, false);
    let report = run(ports.use_case().process(&callback(1))).unwrap();
    assert_eq!(
        report,
        CallbackReport {
            duplicates: 1,
            ..CallbackReport::default()
        }
    );
}

#[test]
fn an_inbound_message_for_an_unknown_number_is_skipped_and_noted() {
    let note = format!("inbound for unknown phone_number_id {UNKNOWN_PHONE_NUMBER_ID}");
    let mut ports = Ports::new();
    ports
        .decodes(
            1,
            Ok(parsed(
                vec![NetworkEvent::Inbound(inbound(UNKNOWN_PHONE_NUMBER_ID))],
                vec![],
            )),
        )
        .knows_default_sender()
        .never_records_inbound()
        .marks(1, Some(&note));
    let report = run(ports.use_case().process(&callback(1))).unwrap();
    assert_eq!(report.skipped, vec![note]);
    assert_eq!(report.inbound_recorded + report.duplicates, 0);
}

// ---- process: a mixed callback ----

#[test]
fn a_mixed_callback_counts_each_item_and_marks_once_with_every_note() {
    let mut lost = status_report(ReportedStatus::Delivered);
    lost.phone_number_id = network_ref(UNKNOWN_PHONE_NUMBER_ID);
    let events = vec![
        NetworkEvent::Status(status_report(ReportedStatus::Delivered)),
        NetworkEvent::Status(lost),
        NetworkEvent::Status(status_report(ReportedStatus::Sent)),
        NetworkEvent::Inbound(inbound(sender(1, DEFAULT_NUMBER, true).phone_number_id.as_str())),
    ];
    let unknown = format!("status for unknown phone_number_id {UNKNOWN_PHONE_NUMBER_ID}");
    let note = format!("entry 2: no statuses or messages; {unknown}");
    let mut ports = Ports::new();
    ports
        .decodes(1, Ok(parsed(events, vec!["entry 2: no statuses or messages"])))
        .knows_default_sender()
        .never_looks_up_by_network_id()
        .marks(1, Some(&note));
    let mut answers = vec![applied(MessageStatus::Delivered), recorded_only()].into_iter();
    ports
        .tracking
        .expect_apply_status()
        .times(2)
        .returning(move |_| Ok(answers.next()));
    records_inbound(&mut ports, true);
    let report = run(ports.use_case().process(&callback(1))).unwrap();
    assert_eq!(
        report,
        CallbackReport {
            statuses_applied: 1,
            statuses_recorded_only: 1,
            inbound_recorded: 1,
            notices_recorded: 0,
            preferences_recorded: 0,
            duplicates: 0,
            skipped: vec!["entry 2: no statuses or messages".into(), unknown],
            submitted_to_delivered: vec![],
        }
    );
}

// ---- process: store failures ----

#[test]
fn a_failure_applying_a_status_propagates_and_leaves_the_callback_unprocessed() {
    let mut ports = Ports::new();
    ports
        .decodes(
            1,
            Ok(parsed(
                vec![NetworkEvent::Status(status_report(ReportedStatus::Delivered))],
                vec![],
            )),
        )
        .knows_default_sender()
        .never_marks();
    ports
        .tracking
        .expect_apply_callback_status()
        .times(1)
        .returning(|_, _, _| Err(StoreError::Unavailable("deadlock".into())));
    let err = run(ports.use_case().process(&callback(1))).unwrap_err();
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
}

#[test]
fn a_failure_routing_an_item_propagates_and_leaves_the_callback_unprocessed() {
    let mut ports = Ports::new();
    ports
        .decodes(
            1,
            Ok(parsed(
                vec![NetworkEvent::Inbound(inbound(
                    sender(1, DEFAULT_NUMBER, true).phone_number_id.as_str(),
                ))],
                vec![],
            )),
        )
        .never_records_inbound()
        .never_marks();
    ports
        .accounts
        .expect_sender_by_phone_number_id()
        .times(1)
        .returning(|_| Err(StoreError::Unavailable("timeout".into())));
    assert!(run(ports.use_case().process(&callback(1))).is_err());
}

#[test]
fn a_failure_looking_up_by_network_id_or_recording_inbound_propagates_without_marking() {
    let mut unmatched = status_report(ReportedStatus::Delivered);
    unmatched.callback_data = None;
    let mut ports = Ports::new();
    ports
        .decodes(1, Ok(parsed(vec![NetworkEvent::Status(unmatched)], vec![])))
        .knows_default_sender()
        .never_applies()
        .never_marks();
    ports
        .tracking
        .expect_message_by_network_id()
        .times(1)
        .returning(|_, _| Err(StoreError::Unavailable("timeout".into())));
    assert!(run(ports.use_case().process(&callback(1))).is_err());

    let mut ports = Ports::new();
    ports
        .decodes(
            1,
            Ok(parsed(
                vec![NetworkEvent::Inbound(inbound(
                    sender(1, DEFAULT_NUMBER, true).phone_number_id.as_str(),
                ))],
                vec![],
            )),
        )
        .knows_default_sender()
        .never_marks();
    ports
        .tracking
        .expect_record_inbound_message()
        .times(1)
        .returning(|_| Err(StoreError::Conflict("inbound id".into())));
    let err = run(ports.use_case().process(&callback(1))).unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
}

#[test]
fn a_failure_marking_the_callback_processed_is_returned() {
    let mut ports = Ports::new();
    ports.decodes(1, Ok(ParsedCallback::default()));
    ports
        .tracking
        .expect_mark_callback_processed()
        .times(1)
        .returning(|_, _, _| Err(StoreError::Unavailable("read-only".into())));
    assert!(run(ports.use_case().process(&callback(1))).is_err());
}

// ---- process_backlog ----

#[test]
fn the_backlog_processes_each_unprocessed_callback_received_before_the_cutoff() {
    let mut ports = Ports::new();
    ports
        .tracking
        .expect_unprocessed_callbacks()
        .withf(|before, limit, at| *before == now() - seconds(120) && *limit == 50 && *at == now())
        .times(1)
        .returning(|_, _, _| Ok(vec![callback(1), callback(2)].into()));
    ports
        .decodes(1, Ok(ParsedCallback::default()))
        .decodes(2, Err("truncated".into()))
        .marks(1, None)
        .marks(2, Some("not a callback envelope: truncated"));
    let report = run(ports.use_case().process_backlog(seconds(120), 50)).unwrap();
    assert_eq!(
        report,
        BacklogReport {
            processed: 2,
            read: 2,
            ..BacklogReport::default()
        }
    );
}

#[test]
fn an_empty_backlog_processes_nothing() {
    let mut ports = Ports::new();
    ports
        .tracking
        .expect_unprocessed_callbacks()
        .times(1)
        .returning(|_, _, _| Ok(CallbackPage::default()));
    ports.decoder.expect_decode().times(0);
    ports.never_marks();
    assert_eq!(
        run(ports.use_case().process_backlog(seconds(60), 10)).unwrap(),
        BacklogReport::default()
    );
}

/// Rows the store parked as it read the page (unreadable as stored) are reported as parked and as read, so
/// the sweep's line counts them and a page they filled still reads as full.
#[test]
fn unreadable_rows_parked_by_the_store_are_counted_in_the_report() {
    let mut ports = Ports::new();
    ports
        .tracking
        .expect_unprocessed_callbacks()
        .times(1)
        .returning(|_, _, _| {
            Ok(CallbackPage {
                callbacks: vec![callback(1)],
                unreadable: 2,
            })
        });
    ports.decodes(1, Ok(ParsedCallback::default())).marks(1, None);
    assert_eq!(
        run(ports.use_case().process_backlog(seconds(60), 3)).unwrap(),
        BacklogReport {
            processed: 1,
            failed: 0,
            parked: 0,
            unreadable: 2,
            read: 3
        }
    );
}

#[test]
fn a_backlog_read_failure_is_returned() {
    let mut ports = Ports::new();
    ports
        .tracking
        .expect_unprocessed_callbacks()
        .times(1)
        .returning(|_, _, _| Err(StoreError::Unavailable("down".into())));
    ports.decoder.expect_decode().times(0);
    assert!(run(ports.use_case().process_backlog(seconds(60), 10)).is_err());
}

/// A callback that cannot be applied (here its status fails in the store every time) must not hold up the
/// callbacks after it: its failure is recorded, with the attempts after which it is parked, and the sweep
/// goes on.
#[test]
fn a_failing_callback_is_recorded_and_the_backlog_goes_on_past_it() {
    for parked in [false, true] {
        let mut ports = Ports::new();
        ports
            .tracking
            .expect_unprocessed_callbacks()
            .times(1)
            .returning(|_, _, _| Ok(vec![callback(1), callback(2)].into()));
        ports
            .decodes(
                1,
                Ok(parsed(
                    vec![NetworkEvent::Status(status_report(ReportedStatus::Read))],
                    vec![],
                )),
            )
            .decodes(2, Ok(ParsedCallback::default()))
            .knows_default_sender()
            .marks(2, None);
        ports
            .tracking
            .expect_apply_callback_status()
            .times(1)
            .returning(|_, _, _| Err(StoreError::Unknown(anyhow::anyhow!("cannot be applied"))));
        ports
            .tracking
            .expect_record_callback_failure()
            .withf(|id, at, error, park_after| {
                *id == callback(1).id
                    && *at == now()
                    && error.contains("cannot be applied")
                    && *park_after == CALLBACK_ATTEMPTS
            })
            .times(1)
            .returning(move |_, _, _, _| Ok(parked));
        let report = run(ports.use_case().process_backlog(seconds(60), 10)).unwrap();
        assert_eq!(
            report,
            BacklogReport {
                processed: 1,
                failed: 1,
                parked: usize::from(parked),
                unreadable: 0,
                read: 2
            }
        );
    }
}

/// A page of lone status reports is processed in waves of distinct messages: each report is applied once,
/// in the order the callbacks arrived (a second report about a message after the first), and a report that
/// fails in the store is recorded against its own callback only, while the others of its wave are applied.
#[test]
fn a_backlog_page_of_status_reports_applies_each_in_order_and_records_a_failure_against_its_callback() {
    let mut ports = Ports::new();
    ports
        .tracking
        .expect_unprocessed_callbacks()
        .times(1)
        .returning(|_, _, _| Ok(vec![callback(1), callback(2), callback(3)].into()));
    let mut other = status_report(ReportedStatus::Delivered);
    other.network_message_id = "wamid.other".into();
    other.callback_data = Some(stored_message(2).id.to_string());
    ports
        .decodes(
            1,
            Ok(parsed(
                vec![NetworkEvent::Status(status_report(ReportedStatus::Sent))],
                vec![],
            )),
        )
        .decodes(2, Ok(parsed(vec![NetworkEvent::Status(other)], vec![])))
        .decodes(
            3,
            Ok(parsed(
                vec![NetworkEvent::Status(status_report(ReportedStatus::Read))],
                vec![],
            )),
        )
        .knows_default_sender()
        .never_marks();
    let order = Arc::new(Mutex::new(Vec::new()));
    let seen = order.clone();
    ports
        .tracking
        .expect_apply_callback_status()
        .times(3)
        .returning(move |update, id, _| {
            seen.lock().unwrap().push((*id, update.report.status));
            if *id == callback(2).id {
                return Err(StoreError::Unknown(anyhow::anyhow!("cannot be applied")));
            }
            Ok(Some(applied(update.report.status)))
        });
    ports
        .tracking
        .expect_record_callback_failure()
        .withf(|id, _, error, _| *id == callback(2).id && error.contains("cannot be applied"))
        .times(1)
        .returning(|_, _, _, _| Ok(false));
    let report = run(ports.use_case().process_backlog(seconds(60), 10)).unwrap();
    assert_eq!(
        report,
        BacklogReport {
            processed: 2,
            failed: 1,
            read: 3,
            ..BacklogReport::default()
        }
    );
    assert_eq!(
        *order.lock().unwrap(),
        [
            (callback(1).id, MessageStatus::Sent),
            (callback(2).id, MessageStatus::Delivered),
            (callback(3).id, MessageStatus::Read),
        ]
    );
}

/// A status that moves a message to `delivered` reports how long after its submission it was delivered;
/// another status does not.
#[test]
fn a_delivery_reports_its_time_since_submission() {
    for (status, expected) in [
        (MessageStatus::Delivered, vec![seconds(80)]),
        (MessageStatus::Sent, vec![]),
    ] {
        let mut ports = Ports::new();
        ports
            .decodes(
                1,
                Ok(parsed(
                    vec![NetworkEvent::Status(status_report(ReportedStatus::Delivered))],
                    vec![],
                )),
            )
            .knows_default_sender()
            .never_looks_up_by_network_id();
        let mut answer = applied(status);
        answer.message.timestamps.submitted = Some(now() - seconds(90));
        answer.message.timestamps.delivered = Some(now() - seconds(10));
        let _seen = ports.applies_marking(1, Some(answer));
        let report = run(ports.use_case().process(&callback(1))).unwrap();
        assert_eq!(report.submitted_to_delivered, expected, "{status:?}");
    }
}
