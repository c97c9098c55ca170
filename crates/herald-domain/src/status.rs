//! The status machine (docs/api.md §5), as pure functions.
//!
//! Reports arrive late, out of order and twice. The rules:
//! - status only moves forward along `accepted → submitted → sent → delivered → read`;
//! - a report at or behind the current stage is recorded in the history but changes nothing;
//! - a report that skips stages (a `read` with no `delivered`) fills the skipped timestamps with its time;
//! - `failed` applies from any stage before `delivered`; after `delivered` it is recorded, not applied;
//! - nothing moves a message out of `failed`.

use crate::message::{MessageError, MessageStatus, StatusTimestamps};
use crate::time::Timestamp;

/// The position of a status on the forward path; `failed` is off the path.
fn rank(status: MessageStatus) -> Option<u8> {
    match status {
        MessageStatus::Accepted => Some(0),
        MessageStatus::Submitted => Some(1),
        MessageStatus::Sent => Some(2),
        MessageStatus::Delivered => Some(3),
        MessageStatus::Read => Some(4),
        MessageStatus::Failed => None,
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
    let current_rank = rank(current.status).unwrap_or(0);
    let mut state = current.clone();
    match rank(report.status) {
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
