//! The status machine (docs/api.md §5), as pure functions.
//!
//! Reports arrive late, out of order and twice. The rules:
//! - status only moves forward along `accepted → submitted → sent → delivered → read`;
//! - a report at or behind the current stage is recorded in the history but changes nothing;
//! - a report that skips stages (a `read` with no `delivered`) fills the skipped timestamps with its time;
//! - `failed` applies from any stage before `delivered`; after `delivered` it is recorded, not applied;
//! - nothing moves a message out of `failed`;
//! - `scheduled` stands where `accepted` does (both are "not dispatched yet"): dispatch takes a scheduled
//!   message straight to `submitted`, and `timestamps.accepted` stays empty (it was accepted when scheduled);
//! - `cancelled` applies only before dispatch (`scheduled`, `accepted`) and, like `failed`, is final.

use crate::customer_event::{self, CustomerEvent};
use crate::ids::{EventId, MessageId, OrganizationId};
use crate::message::{EventSource, Message, MessageError, MessageStatus, StatusEvent, StatusTimestamps};
use crate::time::Timestamp;

/// The position of a status on the forward path; `failed` is off the path.
fn rank(status: MessageStatus) -> Option<u8> {
    match status {
        MessageStatus::Scheduled | MessageStatus::Accepted => Some(0),
        MessageStatus::Submitted => Some(1),
        MessageStatus::Sent => Some(2),
        MessageStatus::Delivered => Some(3),
        MessageStatus::Read => Some(4),
        MessageStatus::Failed | MessageStatus::Cancelled => None,
    }
}

const PATH: [MessageStatus; 5] = [
    MessageStatus::Accepted,
    MessageStatus::Submitted,
    MessageStatus::Sent,
    MessageStatus::Delivered,
    MessageStatus::Read,
];

/// A status report about one message, from Herald's own dispatcher or from the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusReport {
    pub status: MessageStatus,
    pub occurred_at: Timestamp,
    pub error: Option<MessageError>,
}

/// Where a message stands, as far as the status machine cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusState {
    pub status: MessageStatus,
    pub timestamps: StatusTimestamps,
    pub error: Option<MessageError>,
}

/// The outcome of a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transition {
    /// The report moves the message: store `state`, emit one event.
    Applied {
        previous: MessageStatus,
        state: StatusState,
    },
    /// The report is late, a duplicate, or not allowed from here: record it, change nothing, emit nothing.
    Recorded { reason: NotApplied },
}

/// Why a report did not change the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotApplied {
    /// The message is already in that status.
    Duplicate,
    /// The message is already past that status.
    Late,
    /// `failed` arrived after `delivered` or `read`.
    FailedAfterDelivery,
    /// The message already failed; failure is final.
    AlreadyFailed,
    /// The message was cancelled; that is final too.
    AlreadyCancelled,
    /// `cancelled` arrived once the message was dispatched.
    NotCancellable,
}

/// Decides what `report` does to a message in `current`.
pub fn apply(current: &StatusState, report: &StatusReport) -> Transition {
    let recorded = |reason| Transition::Recorded { reason };
    if current.status == MessageStatus::Failed {
        return recorded(if report.status == MessageStatus::Failed {
            NotApplied::Duplicate
        } else {
            NotApplied::AlreadyFailed
        });
    }
    if current.status == MessageStatus::Cancelled {
        return recorded(if report.status == MessageStatus::Cancelled {
            NotApplied::Duplicate
        } else {
            NotApplied::AlreadyCancelled
        });
    }
    let current_rank = rank(current.status).unwrap_or(0);
    let mut state = current.clone();
    match rank(report.status) {
        None if report.status == MessageStatus::Cancelled => {
            if !current.status.is_undispatched() {
                return recorded(NotApplied::NotCancellable);
            }
            state.status = MessageStatus::Cancelled;
            state.timestamps.set(MessageStatus::Cancelled, report.occurred_at);
        }
        None => {
            if current_rank >= 3 {
                return recorded(NotApplied::FailedAfterDelivery);
            }
            state.status = MessageStatus::Failed;
            state.timestamps.set(MessageStatus::Failed, report.occurred_at);
            state.error = report.error.clone();
        }
        Some(report_rank) if report_rank == current_rank => return recorded(NotApplied::Duplicate),
        Some(report_rank) if report_rank < current_rank => return recorded(NotApplied::Late),
        Some(report_rank) => {
            for stage in PATH
                .iter()
                .skip(usize::from(current_rank) + 1)
                .take(usize::from(report_rank - current_rank))
            {
                if state.timestamps.get(*stage).is_none() {
                    state.timestamps.set(*stage, report.occurred_at);
                }
            }
            state.status = report.status;
        }
    }
    Transition::Applied {
        previous: current.status,
        state,
    }
}

/// What a status report does to a stored message, for the store to write as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub transition: Transition,
    /// The message after the report (as it was, when the report is only recorded).
    pub message: Message,
    /// The message's new columns; `None` when the report changes nothing.
    pub change: Option<MessageChange>,
    /// The history entry, written for every report.
    pub history: StatusEvent,
    /// The customer event, emitted only when the status changed.
    pub customer_event: Option<CustomerEvent>,
    /// The message's new pricing, when the report changes it ([`crate::pricing::kept`]): written even when
    /// the status is only recorded, so a late report can still fill a pricing none gave before.
    pub pricing: Option<crate::pricing::Pricing>,
}

/// The columns of a message a status change writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageChange {
    pub status: MessageStatus,
    pub timestamps: StatusTimestamps,
    pub error: Option<MessageError>,
    pub network_message_id: Option<String>,
    pub updated_at: Timestamp,
}

/// Decides what `update` does to `message`: the status machine's transition, the row change, the history
/// entry and the customer event. `next_sequence` is the sequence the message's next customer event takes.
pub fn decide(mut message: Message, update: &StatusUpdate, next_sequence: u32) -> Decision {
    let current = StatusState {
        status: message.status,
        timestamps: message.timestamps.clone(),
        error: message.error.clone(),
    };
    let transition = apply(&current, &update.report);
    let (change, previous) = match &transition {
        Transition::Applied { previous, state } => {
            message.status = state.status;
            message.timestamps = state.timestamps.clone();
            message.error = state.error.clone();
            message.updated_at = update.recorded_at;
            // The network's id is kept once known: a later report cannot replace it.
            if message.network_message_id.is_none() {
                message.network_message_id = update.network_message_id.clone();
            }
            let change = MessageChange {
                status: message.status,
                timestamps: message.timestamps.clone(),
                error: message.error.clone(),
                network_message_id: message.network_message_id.clone(),
                updated_at: message.updated_at,
            };
            (Some(change), Some(*previous))
        }
        Transition::Recorded { .. } => (None, None),
    };
    let pricing = crate::pricing::kept(
        message.pricing.as_ref(),
        update.pricing.as_ref(),
        previous.is_some(),
    );
    if let Some(pricing) = &pricing {
        message.pricing = Some(pricing.clone());
    }
    let history = StatusEvent {
        id: update.event_id,
        organization_id: update.organization_id,
        message_id: update.message_id,
        status: update.report.status,
        previous_status: previous,
        applied: previous.is_some(),
        source: update.source,
        error: update.report.error.clone(),
        occurred_at: update.report.occurred_at,
        recorded_at: update.recorded_at,
    };
    let customer_event = previous.map(|previous| {
        customer_event::status_changed(
            update.customer_event_id,
            &message,
            previous,
            update.report.occurred_at,
            next_sequence,
            update.recorded_at,
        )
    });
    Decision {
        transition,
        message,
        change,
        history,
        customer_event,
        pricing,
    }
}

/// A status report to apply to a message: the store runs [`apply`] on the locked row and
/// writes the result, the history entry and (when applied) a customer event in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusUpdate {
    pub organization_id: OrganizationId,
    pub message_id: MessageId,
    pub report: StatusReport,
    /// The network's id, stored when the message has none yet.
    pub network_message_id: Option<String>,
    /// The network's pricing object, when the report carries one.
    pub pricing: Option<crate::pricing::Pricing>,
    pub source: EventSource,
    pub event_id: EventId,
    pub customer_event_id: EventId,
    pub recorded_at: Timestamp,
}

/// What applying a report did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusApplied {
    pub transition: Transition,
    /// The message after the update.
    pub message: Message,
    /// The trace of the request that accepted the message.
    pub trace: Option<crate::trace::TraceContext>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use MessageStatus::*;

    fn at(second: i64) -> Timestamp {
        chrono::DateTime::from_timestamp(1_700_000_000 + second, 0).unwrap()
    }

    /// A message that reached `status` the normal way, one second per stage.
    fn state_in(status: MessageStatus) -> StatusState {
        let mut timestamps = StatusTimestamps::default();
        let target = rank(status).unwrap_or(1);
        for (i, stage) in PATH.iter().enumerate() {
            if i <= usize::from(target) {
                timestamps.set(*stage, at(i as i64));
            }
        }
        if status == Failed {
            timestamps.set(Failed, at(2));
        }
        StatusState {
            status,
            timestamps,
            error: None,
        }
    }

    fn report(status: MessageStatus) -> StatusReport {
        let error = (status == Failed).then(|| MessageError {
            code: "recipient_unreachable".into(),
            title: "Recipient unreachable".into(),
            detail: "x".into(),
            network_code: Some(131_026),
        });
        StatusReport {
            status,
            occurred_at: at(100),
            error,
        }
    }

    /// Every (current, report) pair with its expected outcome: `Ok(new status)` or `Err(reason)`.
    #[test]
    fn every_state_and_report_pair() {
        let reports = [Submitted, Sent, Delivered, Read, Failed];
        let expected: [(MessageStatus, [Result<MessageStatus, NotApplied>; 5]); 6] = [
            (
                Accepted,
                [Ok(Submitted), Ok(Sent), Ok(Delivered), Ok(Read), Ok(Failed)],
            ),
            (
                Submitted,
                [
                    Err(NotApplied::Duplicate),
                    Ok(Sent),
                    Ok(Delivered),
                    Ok(Read),
                    Ok(Failed),
                ],
            ),
            (
                Sent,
                [
                    Err(NotApplied::Late),
                    Err(NotApplied::Duplicate),
                    Ok(Delivered),
                    Ok(Read),
                    Ok(Failed),
                ],
            ),
            (
                Delivered,
                [
                    Err(NotApplied::Late),
                    Err(NotApplied::Late),
                    Err(NotApplied::Duplicate),
                    Ok(Read),
                    Err(NotApplied::FailedAfterDelivery),
                ],
            ),
            (
                Read,
                [
                    Err(NotApplied::Late),
                    Err(NotApplied::Late),
                    Err(NotApplied::Late),
                    Err(NotApplied::Duplicate),
                    Err(NotApplied::FailedAfterDelivery),
                ],
            ),
            (
                Failed,
                [
                    Err(NotApplied::AlreadyFailed),
                    Err(NotApplied::AlreadyFailed),
                    Err(NotApplied::AlreadyFailed),
                    Err(NotApplied::AlreadyFailed),
                    Err(NotApplied::Duplicate),
                ],
            ),
        ];
        let mut checked = 0;
        for (current, outcomes) in expected {
            for (reported, outcome) in reports.into_iter().zip(outcomes) {
                let before = state_in(current);
                let got = apply(&before, &report(reported));
                match (outcome, got) {
                    (Ok(new), Transition::Applied { previous, state }) => {
                        assert_eq!(previous, current, "{current:?} + {reported:?}");
                        assert_eq!(state.status, new, "{current:?} + {reported:?}");
                        assert_eq!(
                            state.timestamps.get(new),
                            Some(at(100)).or(before.timestamps.get(new))
                        );
                    }
                    (Err(reason), Transition::Recorded { reason: got }) => {
                        assert_eq!(got, reason, "{current:?} + {reported:?}");
                    }
                    (want, got) => panic!("{current:?} + {reported:?}: wanted {want:?}, got {got:?}"),
                }
                checked += 1;
            }
        }
        assert_eq!(checked, 30);
    }

    /// A scheduled message (never `accepted`) and a cancelled one.
    #[test]
    fn scheduled_and_cancelled() {
        let scheduled = StatusState {
            status: Scheduled,
            timestamps: StatusTimestamps {
                scheduled: Some(at(0)),
                ..StatusTimestamps::default()
            },
            error: None,
        };
        let Transition::Applied { state, previous } = apply(&scheduled, &report(Submitted)) else {
            panic!("dispatch submits a scheduled message");
        };
        assert_eq!((previous, state.status), (Scheduled, Submitted));
        assert_eq!(
            state.timestamps.accepted, None,
            "a scheduled message skips `accepted`"
        );
        assert_eq!(state.timestamps.submitted, Some(at(100)));
        assert!(matches!(
            apply(&scheduled, &report(Failed)),
            Transition::Applied { .. }
        ));
        assert_eq!(
            apply(&scheduled, &report(Accepted)),
            Transition::Recorded {
                reason: NotApplied::Duplicate
            }
        );
        for from in [scheduled.clone(), state_in(Accepted)] {
            let Transition::Applied { state, .. } = apply(&from, &report(Cancelled)) else {
                panic!("{:?} can be cancelled", from.status);
            };
            assert_eq!(state.status, Cancelled);
            assert_eq!(state.timestamps.cancelled, Some(at(100)));
        }
        for dispatched in [Submitted, Sent, Delivered, Read, Failed] {
            let want = if dispatched == Failed {
                NotApplied::AlreadyFailed
            } else {
                NotApplied::NotCancellable
            };
            assert_eq!(
                apply(&state_in(dispatched), &report(Cancelled)),
                Transition::Recorded { reason: want },
                "{dispatched:?}"
            );
        }
        let cancelled = StatusState {
            status: Cancelled,
            ..scheduled
        };
        for late in [Submitted, Sent, Delivered, Read, Failed] {
            assert_eq!(
                apply(&cancelled, &report(late)),
                Transition::Recorded {
                    reason: NotApplied::AlreadyCancelled
                }
            );
        }
        assert_eq!(
            apply(&cancelled, &report(Cancelled)),
            Transition::Recorded {
                reason: NotApplied::Duplicate
            }
        );
    }

    #[test]
    fn read_without_delivered_fills_the_skipped_stages() {
        let Transition::Applied { state, .. } = apply(&state_in(Submitted), &report(Read)) else {
            panic!("read should apply");
        };
        assert_eq!(state.status, Read);
        assert_eq!(
            state.timestamps.submitted,
            Some(at(1)),
            "reached stages keep their time"
        );
        assert_eq!(state.timestamps.sent, Some(at(100)));
        assert_eq!(state.timestamps.delivered, Some(at(100)));
        assert_eq!(state.timestamps.read, Some(at(100)));
    }

    #[test]
    fn a_late_sent_after_delivered_changes_nothing() {
        let delivered = state_in(Delivered);
        assert_eq!(
            apply(&delivered, &report(Sent)),
            Transition::Recorded {
                reason: NotApplied::Late
            }
        );
    }

    #[test]
    fn failure_keeps_its_error() {
        let Transition::Applied { state, previous } = apply(&state_in(Sent), &report(Failed)) else {
            panic!("failed applies before delivery");
        };
        assert_eq!(previous, Sent);
        assert_eq!(state.error.unwrap().network_code, Some(131_026));
        assert_eq!(state.timestamps.failed, Some(at(100)));
        assert_eq!(state.timestamps.delivered, None);
    }
}

#[cfg(test)]
mod decide_tests {
    use super::*;
    use crate::customer_event::CustomerEventType;
    use crate::customer_event::EventBody;
    use crate::ids::{EventId, MessageId, OrganizationId, SenderId};
    use crate::message::{EventSource, MessageContent};
    use crate::values::{MessageText, PhoneNumber};
    use MessageStatus::*;
    use ulid::Ulid;

    fn at(second: i64) -> Timestamp {
        chrono::DateTime::from_timestamp(1_700_000_000 + second, 0).unwrap()
    }

    fn message_in(status: MessageStatus, network_message_id: Option<&str>) -> Message {
        let mut message = Message::accepted(
            MessageId::from_ulid(Ulid::from_parts(1, 1)),
            OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
            (
                SenderId::from_ulid(Ulid::from_parts(1, 3)),
                PhoneNumber::parse("+15550001111").unwrap(),
            ),
            PhoneNumber::parse("+15551234567").unwrap(),
            MessageContent::Text {
                body: MessageText::parse("hi").unwrap(),
                preview_url: false,
            },
            None,
            at(0),
        );
        let Transition::Applied { state, .. } = apply(
            &StatusState {
                status: message.status,
                timestamps: message.timestamps.clone(),
                error: None,
            },
            &StatusReport {
                status,
                occurred_at: at(1),
                error: None,
            },
        ) else {
            return message;
        };
        message.status = state.status;
        message.timestamps = state.timestamps;
        message.network_message_id = network_message_id.map(str::to_owned);
        message
    }

    fn update(status: MessageStatus, network_message_id: Option<&str>) -> StatusUpdate {
        let error = (status == Failed).then(|| MessageError {
            code: "recipient_unreachable".into(),
            title: "Recipient unreachable".into(),
            detail: "x".into(),
            network_code: Some(131_026),
        });
        StatusUpdate {
            organization_id: OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
            message_id: MessageId::from_ulid(Ulid::from_parts(1, 1)),
            report: StatusReport {
                status,
                occurred_at: at(50),
                error,
            },
            network_message_id: network_message_id.map(str::to_owned),
            source: EventSource::Network,
            event_id: EventId::from_ulid(Ulid::from_parts(1, 10)),
            customer_event_id: EventId::from_ulid(Ulid::from_parts(1, 11)),
            recorded_at: at(60),
            pricing: None,
        }
    }

    #[test]
    fn an_applied_report_changes_the_row_records_history_and_emits_an_event() {
        let decision = decide(message_in(Accepted, None), &update(Submitted, Some("wamid.A")), 3);
        let change = decision.change.expect("submitted applies to an accepted message");
        assert_eq!(change.status, Submitted);
        assert_eq!(change.network_message_id.as_deref(), Some("wamid.A"));
        assert_eq!(change.updated_at, at(60));
        assert_eq!(change.timestamps.submitted, Some(at(50)));
        assert_eq!(decision.message.status, Submitted);
        assert_eq!(decision.history.previous_status, Some(Accepted));
        assert!(decision.history.applied);
        assert_eq!(decision.history.status, Submitted);
        assert_eq!(decision.history.occurred_at, at(50));
        assert_eq!(decision.history.recorded_at, at(60));
        let event = decision.customer_event.expect("a change emits an event");
        assert_eq!(event.event_type(), CustomerEventType::MessageStatus);
        assert_eq!(event.id, EventId::from_ulid(Ulid::from_parts(1, 11)));
        assert_eq!(event.sequence, 3);
        assert_eq!((event.occurred_at, event.recorded_at), (at(50), at(60)));
        let EventBody::Status(body) = event.body else {
            panic!("a status event");
        };
        assert_eq!((body.status, body.previous_status), (Submitted, Some(Accepted)));
        assert_eq!(body.network_message_id.as_deref(), Some("wamid.A"));
        assert_eq!(body.error, None);
    }

    #[test]
    fn a_known_network_id_is_kept() {
        let decision = decide(
            message_in(Submitted, Some("wamid.A")),
            &update(Sent, Some("wamid.B")),
            1,
        );
        assert_eq!(
            decision.change.unwrap().network_message_id.as_deref(),
            Some("wamid.A")
        );
    }

    #[test]
    fn a_failure_emits_message_failed_with_its_error() {
        let decision = decide(message_in(Sent, Some("wamid.A")), &update(Failed, None), 2);
        assert_eq!(
            decision.change.unwrap().error.unwrap().network_code,
            Some(131_026)
        );
        let event = decision.customer_event.unwrap();
        assert_eq!(event.event_type(), CustomerEventType::MessageFailed);
        let EventBody::Status(body) = event.body else {
            panic!("a status event");
        };
        assert_eq!(body.previous_status, Some(Sent));
        assert_eq!(body.error.unwrap().code, "recipient_unreachable");
    }

    #[test]
    fn a_recorded_report_changes_nothing_and_emits_nothing() {
        for (current, reported, reason) in [
            (Sent, Sent, NotApplied::Duplicate),
            (Delivered, Sent, NotApplied::Late),
            (Delivered, Failed, NotApplied::FailedAfterDelivery),
            (Failed, Read, NotApplied::AlreadyFailed),
        ] {
            let before = message_in(current, Some("wamid.A"));
            let decision = decide(before.clone(), &update(reported, Some("wamid.B")), 7);
            assert_eq!(decision.transition, Transition::Recorded { reason });
            assert_eq!(decision.change, None, "{current:?} + {reported:?}");
            assert_eq!(decision.customer_event, None, "{current:?} + {reported:?}");
            assert_eq!(decision.message, before);
            assert_eq!(decision.history.status, reported);
            assert_eq!(decision.history.previous_status, None);
            assert!(!decision.history.applied);
            assert_eq!(decision.history.error.is_some(), reported == Failed);
        }
    }
}
