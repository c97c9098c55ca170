//! Cancelling a message before dispatch: the report handed to the store, and each of its answers.

use super::*;
use crate::message::{EventSource, MessageStatus};
use crate::ports::{CancelOutcome, MockScheduleStore, StoreError};
use crate::usecases::{CancelError, CancelMessage};
use std::sync::Arc;

fn cancel_with(store: MockScheduleStore) -> CancelMessage {
    CancelMessage::new(
        Arc::new(store),
        Arc::new(clock_at(now())),
        Arc::new(sequential_ids()),
    )
}

#[test]
fn cancel_hands_the_store_a_cancelled_report_of_now_and_answers_the_cancelled_message() {
    let mut cancelled = stored_message(1);
    cancelled.status = MessageStatus::Cancelled;
    cancelled.timestamps.cancelled = Some(now());
    let id = cancelled.id;
    let answer = cancelled.clone();
    let mut store = MockScheduleStore::new();
    store
        .expect_cancel()
        .withf(move |update| {
            update.organization_id == org_id()
                && update.message_id == id
                && update.report.status == MessageStatus::Cancelled
                && update.report.occurred_at == now()
                && update.report.error.is_none()
                && update.source == EventSource::Herald
                && update.recorded_at == now()
                && update.event_id != update.customer_event_id
        })
        .times(1)
        .returning(move |_| Ok(CancelOutcome::Cancelled(answer.clone())));

    let result = run(cancel_with(store).execute(&org_id(), &id));

    assert_eq!(result.unwrap(), cancelled);
}

#[test]
fn cancel_of_a_claimed_message_is_not_cancellable_and_names_its_status() {
    let mut submitted = stored_message(1);
    submitted.status = MessageStatus::Submitted;
    let id = submitted.id;
    let mut store = MockScheduleStore::new();
    store
        .expect_cancel()
        .times(1)
        .returning(move |_| Ok(CancelOutcome::NotCancellable(submitted.clone())));

    let result = run(cancel_with(store).execute(&org_id(), &id));

    let Err(CancelError::NotCancellable(message)) = result else {
        panic!("{result:?}");
    };
    assert_eq!(message.status, MessageStatus::Submitted);
}

#[test]
fn cancel_of_an_unknown_or_foreign_id_is_not_found() {
    let id = stored_message(1).id;
    let mut store = MockScheduleStore::new();
    store
        .expect_cancel()
        .withf(move |update| update.organization_id == other_org_id() && update.message_id == id)
        .times(1)
        .returning(|_| Ok(CancelOutcome::NotFound));

    let result = run(cancel_with(store).execute(&other_org_id(), &id));

    assert!(matches!(result, Err(CancelError::NotFound)), "{result:?}");
}

#[test]
fn cancel_propagates_a_store_failure() {
    let mut store = MockScheduleStore::new();
    store
        .expect_cancel()
        .times(1)
        .returning(|_| Err(StoreError::Unavailable("db down".into())));

    let result = run(cancel_with(store).execute(&org_id(), &stored_message(1).id));

    assert!(
        matches!(result, Err(CancelError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}
