//! A broadcast cancel that stops half-way (its connection lost after a chunk, the process killed) leaves
//! the broadcast `cancelling`, never `cancelled` with messages still to send: a retried cancel finishes it,
//! or the pacer does once the cancel has been left alone, and `409` comes only once it is really done.
//!
//! These scenarios drive the `Broadcasts` use case over the backend's real ports, with a schedule port that
//! loses its connection after some chunks: the chunk it fails never commits, as with a terminated backend.

use super::broadcasts::broadcast_of;
use super::outbox::{events_of, payload};
use super::schedule::usage;
use super::{Ports, new_organization_with_sender};
use crate::fixtures::{FixedClock, SeqIds, at};
use async_trait::async_trait;
use chrono::TimeDelta;
use herald_domain::broadcast::{BroadcastState, BroadcastView, ReleaseOutcome};
use herald_domain::customer_event::CustomerEventType;
use herald_domain::ids::BroadcastId;
use herald_domain::message::MessageStatus;
use herald_domain::organization::{Organization, SenderNumber};
use herald_domain::ports::{CancelOutcome, NoRateLimit, ScheduleStore, StoreError};
use herald_domain::status::StatusUpdate;
use herald_domain::usecases::{
    BroadcastChangeError, BroadcastPorts, Broadcasts, CANCEL_RESUME_AFTER, PaceSettings, SendSettings,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// The backend's schedule port, whose connection is lost after `passes` calls of `cancel_many`: every
/// later call fails as a terminated connection does, having written nothing.
struct LostAfter {
    inner: Arc<dyn ScheduleStore>,
    passes: AtomicU32,
}

#[async_trait]
impl ScheduleStore for LostAfter {
    async fn cancel(&self, update: &StatusUpdate) -> Result<CancelOutcome, StoreError> {
        self.inner.cancel(update).await
    }

    async fn cancel_many(&self, updates: &[StatusUpdate]) -> Result<u32, StoreError> {
        let left = self.passes.load(Ordering::SeqCst);
        if left == 0 {
            return Err(StoreError::Unavailable(
                "terminating connection due to administrator command".to_owned(),
            ));
        }
        self.passes.store(left - 1, Ordering::SeqCst);
        self.inner.cancel_many(updates).await
    }
}

/// The broadcast use cases over the backend's ports (`schedule` may wrap the backend's), at `clock`.
pub fn broadcasts_use_case(
    ports: &Ports,
    schedule: Arc<dyn ScheduleStore>,
    clock: Arc<FixedClock>,
) -> Broadcasts {
    Broadcasts::new(
        BroadcastPorts {
            accounts: ports.accounts.clone(),
            broadcasts: ports.broadcasts.clone(),
            messages: ports.messages.clone(),
            schedule,
            templates: ports.templates.clone(),
            catalog: ports.media.clone(),
            limiter: Arc::new(NoRateLimit),
            clock,
            ids: Arc::new(SeqIds::unique()),
        },
        SendSettings::default(),
        PaceSettings::default(),
    )
}

fn losing_after(ports: &Ports, passes: u32, clock: Arc<FixedClock>) -> Broadcasts {
    let schedule = LostAfter {
        inner: ports.schedule.clone(),
        passes: AtomicU32::new(passes),
    };
    broadcasts_use_case(ports, Arc::new(schedule), clock)
}

pub async fn read_broadcast(ports: &Ports, org: &Organization, id: &BroadcastId) -> BroadcastView {
    ports
        .broadcasts
        .broadcast(&org.id, id)
        .await
        .expect("read")
        .expect("the broadcast exists")
}

/// A scheduled broadcast of `count` messages, accepted whole; answers its id.
async fn accepted(ports: &Ports, org: &Organization, sender: &SenderNumber, count: usize) -> BroadcastId {
    let request = broadcast_of(org, sender, count, Some(100), None);
    let outcome = ports.broadcasts.accept(&request).await.expect("accept");
    assert_eq!(outcome, herald_domain::ports::BroadcastAcceptOutcome::Accepted);
    request.broadcast.id
}

/// What a finished cancel leaves: `cancelled` with its time, every message `cancelled`, no job left,
/// the quota given back, one `broadcast.completed` event saying `cancelled`.
pub async fn assert_really_cancelled(ports: &Ports, org: &Organization, id: &BroadcastId, count: u32) {
    let view = read_broadcast(ports, org, id).await;
    assert_eq!(view.broadcast.state, BroadcastState::Cancelled);
    assert!(view.broadcast.cancelled_at.is_some(), "cancelled_at is set");
    assert_eq!(
        view.counts.get(MessageStatus::Cancelled),
        count,
        "every message cancelled"
    );
    assert_eq!(view.counts.undispatched(), 0, "none left scheduled");
    assert!(
        ports
            .broadcasts
            .untaken(&org.id, id, 10)
            .await
            .expect("untaken")
            .is_empty(),
        "no job left held"
    );
    assert_eq!(usage(ports, org).await, 0, "the whole quota is given back");
    let completed: Vec<_> = events_of(ports, org)
        .await
        .into_iter()
        .filter(|e| e.event_type == CustomerEventType::BroadcastCompleted)
        .collect();
    assert_eq!(completed.len(), 1, "one completion event");
    assert_eq!(payload(&completed[0])["data"]["status"], "cancelled");
}

/// The connection is lost after the first chunk of 500: the cancel fails, the broadcast is `cancelling`
/// (neither due nor releasable) with the rest still scheduled and charged; the retry finishes it, and only
/// then does a cancel answer that it is done.
pub async fn broadcasts_cancel_stopped_half_way_is_finished_by_a_retry(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let id = accepted(&ports, &org, &sender, 1_200).await;
    assert_eq!(usage(&ports, &org).await, 1_200);
    let clock = Arc::new(FixedClock::new(at(10)));

    let lost = losing_after(&ports, 1, clock.clone()).cancel(&org.id, &id).await;
    assert!(
        matches!(lost, Err(BroadcastChangeError::Store(_))),
        "the lost connection fails the cancel: {lost:?}"
    );
    let view = read_broadcast(&ports, &org, &id).await;
    assert_eq!(view.broadcast.state, BroadcastState::Cancelling);
    assert_eq!(
        view.counts.get(MessageStatus::Cancelled),
        500,
        "the first chunk committed"
    );
    assert_eq!(view.counts.get(MessageStatus::Scheduled), 700);
    assert_eq!(usage(&ports, &org).await, 700);
    assert!(
        ports
            .broadcasts
            .due(at(200), 100)
            .await
            .expect("due")
            .iter()
            .all(|due| due.broadcast.id != id),
        "a cancelling broadcast is not due"
    );
    let policy = herald_domain::broadcast::ReleasePolicy::new(at(200), TimeDelta::hours(24), 80, None);
    assert_eq!(
        ports
            .broadcasts
            .release(&org.id, &id, &policy)
            .await
            .expect("release"),
        ReleaseOutcome::Inactive,
        "nothing of it is released"
    );
    assert!(
        events_of(&ports, &org)
            .await
            .iter()
            .all(|e| e.event_type != CustomerEventType::BroadcastCompleted),
        "no completion before it is done"
    );

    clock.advance(TimeDelta::seconds(5));
    let whole = broadcasts_use_case(&ports, ports.schedule.clone(), clock.clone());
    let view = whole
        .cancel(&org.id, &id)
        .await
        .expect("the retry finishes the cancel");
    assert_eq!(view.broadcast.state, BroadcastState::Cancelled);
    assert_really_cancelled(&ports, &org, &id, 1_200).await;

    let again = whole.cancel(&org.id, &id).await;
    assert!(
        matches!(
            again,
            Err(BroadcastChangeError::WrongState {
                state: BroadcastState::Cancelled,
                ..
            })
        ),
        "done, a cancel is refused: {again:?}"
    );
}

/// Nobody retries: the pacer leaves a cancelling broadcast to its cancel for a while, then finishes it.
pub async fn broadcasts_cancel_stopped_half_way_is_finished_by_the_pacer(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let id = accepted(&ports, &org, &sender, 700).await;
    let clock = Arc::new(FixedClock::new(at(10)));
    let lost = losing_after(&ports, 1, clock.clone()).cancel(&org.id, &id).await;
    assert!(lost.is_err(), "the lost connection fails the cancel");

    let pacer = broadcasts_use_case(&ports, ports.schedule.clone(), clock.clone());
    clock.advance(CANCEL_RESUME_AFTER - TimeDelta::seconds(1));
    assert_eq!(
        pacer.pace().await.expect("pace").cancelled,
        0,
        "left to its cancel a while"
    );
    assert_eq!(
        read_broadcast(&ports, &org, &id).await.broadcast.state,
        BroadcastState::Cancelling
    );

    clock.advance(TimeDelta::seconds(2));
    assert_eq!(pacer.pace().await.expect("pace").cancelled, 1);
    assert_really_cancelled(&ports, &org, &id, 700).await;
    assert_eq!(pacer.pace().await.expect("pace").cancelled, 0, "finished once");
}
