//! The reads: one message, its history, the log in pages, the service window.

use super::*;
use crate::ids::EventId;
use crate::message::{EventSource, MessageStatus, MessageType, StatusEvent};
use crate::ports::{MessageQuery, MockAccountStore, MockMessageStore, MockWindowStore, StoreError};
use crate::usecases::{
    GetMessage, ListMessages, MessageEvents, MessagePage, QueryError, WindowStatus, WindowView,
};
use crate::window::ServiceWindow;
use std::sync::Arc;

// ---- GetMessage ----

#[test]
fn get_message_returns_the_stored_message_of_the_organization() {
    let message = stored_message(1);
    let id = message.id;
    let mut messages = MockMessageStore::new();
    let found = message.clone();
    messages
        .expect_message()
        .withf(move |org, m| *org == org_id() && *m == id)
        .times(1)
        .returning(move |_, _| Ok(Some(found.clone())));

    let result = run(GetMessage::new(Arc::new(messages)).execute(&org_id(), &id));

    assert_eq!(result.unwrap(), message);
}

#[test]
fn get_message_of_an_unknown_or_foreign_id_is_not_found() {
    let id = stored_message(1).id;
    let mut messages = MockMessageStore::new();
    messages
        .expect_message()
        .withf(move |org, m| *org == other_org_id() && *m == id)
        .times(1)
        .returning(|_, _| Ok(None));

    let result = run(GetMessage::new(Arc::new(messages)).execute(&other_org_id(), &id));

    assert!(matches!(result, Err(QueryError::NotFound)), "{result:?}");
}

#[test]
fn get_message_propagates_a_store_failure() {
    let mut messages = MockMessageStore::new();
    messages
        .expect_message()
        .times(1)
        .returning(|_, _| Err(StoreError::Unavailable("db down".into())));

    let result = run(GetMessage::new(Arc::new(messages)).execute(&org_id(), &stored_message(1).id));

    assert!(
        matches!(result, Err(QueryError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}

// ---- MessageEvents ----

fn accepted_event(message: &Message) -> StatusEvent {
    StatusEvent {
        id: EventId::from_ulid(ulid(700)),
        organization_id: org_id(),
        message_id: message.id,
        status: MessageStatus::Accepted,
        previous_status: None,
        applied: true,
        source: EventSource::Herald,
        error: None,
        occurred_at: message.created_at,
        recorded_at: message.created_at,
    }
}

#[test]
fn message_events_returns_the_history_as_stored() {
    let message = stored_message(1);
    let id = message.id;
    let mut late = accepted_event(&message);
    late.id = EventId::from_ulid(ulid(701));
    late.status = MessageStatus::Sent;
    late.applied = false;
    late.source = EventSource::Network;
    let history = vec![accepted_event(&message), late];
    let stored = history.clone();
    let mut messages = MockMessageStore::new();
    messages
        .expect_status_history()
        .withf(move |org, m| *org == org_id() && *m == id)
        .times(1)
        .returning(move |_, _| Ok(Some(stored.clone())));

    let result = run(MessageEvents::new(Arc::new(messages)).execute(&org_id(), &id));

    assert_eq!(result.unwrap(), history);
}

#[test]
fn message_events_of_an_unknown_message_is_not_found() {
    let mut messages = MockMessageStore::new();
    messages
        .expect_status_history()
        .times(1)
        .returning(|_, _| Ok(None));

    let result = run(MessageEvents::new(Arc::new(messages)).execute(&org_id(), &stored_message(1).id));

    assert!(matches!(result, Err(QueryError::NotFound)), "{result:?}");
}

#[test]
fn message_events_of_a_message_with_an_empty_history_is_empty_not_missing() {
    let mut messages = MockMessageStore::new();
    messages
        .expect_status_history()
        .times(1)
        .returning(|_, _| Ok(Some(Vec::new())));

    let result = run(MessageEvents::new(Arc::new(messages)).execute(&org_id(), &stored_message(1).id));

    assert_eq!(result.unwrap(), Vec::new());
}

#[test]
fn message_events_propagates_a_store_failure() {
    let mut messages = MockMessageStore::new();
    messages
        .expect_status_history()
        .times(1)
        .returning(|_, _| Err(StoreError::Unavailable("db down".into())));

    let result = run(MessageEvents::new(Arc::new(messages)).execute(&org_id(), &stored_message(1).id));

    assert!(
        matches!(result, Err(QueryError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}

// ---- ListMessages ----

fn query(limit: u32) -> MessageQuery {
    MessageQuery {
        limit,
        ..MessageQuery::default()
    }
}

/// Messages newest first, as the store returns them.
fn rows(count: u128) -> Vec<Message> {
    (1..=count).map(stored_message).collect()
}

/// A store answering `rows` to one read, which must ask exactly `expected`.
fn store_listing(expected: MessageQuery, rows: Vec<Message>) -> MockMessageStore {
    let mut messages = MockMessageStore::new();
    messages
        .expect_messages()
        .withf(move |org, q| *org == org_id() && *q == expected)
        .times(1)
        .returning(move |_, _| Ok(rows.clone()));
    messages
}

#[test]
fn a_limit_out_of_range_is_refused_without_reading() {
    for limit in [0, 201, u32::MAX] {
        let mut messages = MockMessageStore::new();
        messages.expect_messages().times(0);

        let result = run(ListMessages::new(Arc::new(messages)).execute(&org_id(), query(limit)));

        let Err(QueryError::Invalid(errors)) = result else {
            panic!("{limit}: expected Invalid, got {result:?}");
        };
        assert_eq!(errors.errors()[0].field, "limit", "{limit}");
    }
}

#[test]
fn the_read_asks_one_row_more_and_keeps_every_filter() {
    let cursor = stored_message(9).id;
    let asked = MessageQuery {
        status: Some(MessageStatus::Delivered),
        to: Some(phone(RECIPIENT).into()),
        message_type: Some(MessageType::Text),
        client_reference: Some(crate::values::ClientReference::parse("order-1").unwrap()),
        broadcast: None,
        created_after: Some(now() - chrono::TimeDelta::days(1)),
        created_before: Some(now()),
        before: Some(cursor),
        limit: 10,
    };
    let probe = MessageQuery {
        limit: 11,
        ..asked.clone()
    };

    let result = run(ListMessages::new(Arc::new(store_listing(probe, rows(3)))).execute(&org_id(), asked));

    assert_eq!(result.unwrap().messages, rows(3));
}

#[test]
fn the_bounds_one_and_two_hundred_are_accepted() {
    for limit in [1, ListMessages::MAX_LIMIT] {
        let messages = store_listing(query(limit + 1), Vec::new());

        let result = run(ListMessages::new(Arc::new(messages)).execute(&org_id(), query(limit)));

        assert_eq!(
            result.unwrap(),
            MessagePage {
                messages: Vec::new(),
                next: None
            },
            "{limit}"
        );
    }
}

#[test]
fn a_full_probe_gives_a_page_of_limit_rows_and_a_cursor_at_its_last() {
    let messages = store_listing(query(4), rows(4));

    let page = run(ListMessages::new(Arc::new(messages)).execute(&org_id(), query(3))).unwrap();

    assert_eq!(page.messages, rows(3));
    assert_eq!(page.next, Some(stored_message(3).id));
}

#[test]
fn exactly_limit_rows_is_the_last_page() {
    let messages = store_listing(query(4), rows(3));

    let page = run(ListMessages::new(Arc::new(messages)).execute(&org_id(), query(3))).unwrap();

    assert_eq!(page.messages, rows(3));
    assert_eq!(page.next, None);
}

#[test]
fn fewer_rows_than_limit_is_the_last_page() {
    let messages = store_listing(query(51), rows(2));

    let page = run(ListMessages::new(Arc::new(messages)).execute(&org_id(), query(50))).unwrap();

    assert_eq!(page.messages, rows(2));
    assert_eq!(page.next, None);
}

#[test]
fn list_messages_propagates_a_store_failure() {
    let mut messages = MockMessageStore::new();
    messages
        .expect_messages()
        .times(1)
        .returning(|_, _| Err(StoreError::Unavailable("db down".into())));

    let result = run(ListMessages::new(Arc::new(messages)).execute(&org_id(), query(50)));

    assert!(
        matches!(result, Err(QueryError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}

// ---- WindowStatus ----

fn accounts_with(senders: Vec<SenderNumber>) -> MockAccountStore {
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_senders()
        .withf(|org| *org == org_id())
        .times(1)
        .returning(move |_| Ok(senders.clone().into()));
    accounts
}

/// A window store answering `window` for the (org, `sender`, recipient) triple, once.
fn windows_with(sender: SenderId, window: Option<ServiceWindow>) -> MockWindowStore {
    let mut windows = MockWindowStore::new();
    windows
        .expect_window()
        .withf(move |org, s, to| *org == org_id() && *s == sender && *to == phone(RECIPIENT).into())
        .times(1)
        .returning(move |_, _, _| Ok(window.clone()));
    windows
}

fn window_status(accounts: MockAccountStore, windows: MockWindowStore) -> WindowStatus {
    WindowStatus::new(Arc::new(accounts), Arc::new(windows), Arc::new(clock_at(now())))
}

fn inbound(sender: SenderId, at: Timestamp) -> ServiceWindow {
    ServiceWindow {
        organization_id: org_id(),
        sender_id: sender,
        recipient: phone(RECIPIENT).into(),
        last_inbound_at: at,
    }
}

#[test]
fn the_window_of_the_default_sender_is_open_within_24_hours() {
    let default = sender(1, DEFAULT_NUMBER, true);
    let at = now() - chrono::TimeDelta::hours(23);
    let status = window_status(
        accounts_with(two_senders()),
        windows_with(default.id, Some(inbound(default.id, at))),
    );

    let view = run(status.execute(&org_id(), phone(RECIPIENT), None)).unwrap();

    assert_eq!(
        view,
        WindowView {
            number: phone(RECIPIENT),
            from: phone(DEFAULT_NUMBER),
            open: true,
            last_inbound_at: Some(at),
            expires_at: Some(at + chrono::TimeDelta::hours(24)),
        }
    );
}

#[test]
fn the_window_of_an_explicit_from_is_that_senders() {
    let second = sender(2, SECOND_NUMBER, false);
    let at = now() - chrono::TimeDelta::hours(1);
    let status = window_status(
        accounts_with(two_senders()),
        windows_with(second.id, Some(inbound(second.id, at))),
    );

    let view = run(status.execute(&org_id(), phone(RECIPIENT), Some(phone(SECOND_NUMBER)))).unwrap();

    assert_eq!(view.from, phone(SECOND_NUMBER));
    assert!(view.open);
}

#[test]
fn the_window_closes_exactly_24_hours_after_the_last_inbound() {
    for (ago, open) in [
        (chrono::TimeDelta::hours(24) - seconds(1), true),
        (chrono::TimeDelta::hours(24), false),
        (chrono::TimeDelta::hours(30), false),
    ] {
        let default = sender(1, DEFAULT_NUMBER, true);
        let at = now() - ago;
        let status = window_status(
            accounts_with(two_senders()),
            windows_with(default.id, Some(inbound(default.id, at))),
        );

        let view = run(status.execute(&org_id(), phone(RECIPIENT), None)).unwrap();

        assert_eq!(view.open, open, "{ago}");
        assert_eq!(view.last_inbound_at, Some(at));
        assert_eq!(view.expires_at, Some(at + chrono::TimeDelta::hours(24)));
    }
}

#[test]
fn a_number_that_never_wrote_has_a_closed_window_with_no_times() {
    let default = sender(1, DEFAULT_NUMBER, true);
    let status = window_status(accounts_with(two_senders()), windows_with(default.id, None));

    let view = run(status.execute(&org_id(), phone(RECIPIENT), None)).unwrap();

    assert!(!view.open);
    assert_eq!(view.last_inbound_at, None);
    assert_eq!(view.expires_at, None);
}

#[test]
fn an_unknown_from_is_invalid_and_no_window_is_read() {
    let mut windows = MockWindowStore::new();
    windows.expect_window().times(0);
    let status = window_status(accounts_with(two_senders()), windows);

    let result = run(status.execute(&org_id(), phone(RECIPIENT), Some(phone("+15550003333"))));

    let Err(QueryError::Invalid(errors)) = result else {
        panic!("expected Invalid, got {result:?}");
    };
    assert_eq!(errors.errors()[0].field, "from");
}

#[test]
fn no_default_sender_and_no_from_is_invalid() {
    let mut windows = MockWindowStore::new();
    windows.expect_window().times(0);
    let status = window_status(
        accounts_with(vec![
            sender(1, DEFAULT_NUMBER, false),
            sender(2, SECOND_NUMBER, false),
        ]),
        windows,
    );

    let result = run(status.execute(&org_id(), phone(RECIPIENT), None));

    assert!(matches!(result, Err(QueryError::Invalid(_))), "{result:?}");
}

#[test]
fn window_status_propagates_store_failures() {
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_senders()
        .times(1)
        .returning(|_| Err(StoreError::Unavailable("db down".into())));
    let mut windows = MockWindowStore::new();
    windows.expect_window().times(0);
    let result = run(window_status(accounts, windows).execute(&org_id(), phone(RECIPIENT), None));
    assert!(
        matches!(result, Err(QueryError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );

    let mut windows = MockWindowStore::new();
    windows
        .expect_window()
        .times(1)
        .returning(|_, _, _| Err(StoreError::Unavailable("db down".into())));
    let result =
        run(window_status(accounts_with(two_senders()), windows).execute(&org_id(), phone(RECIPIENT), None));
    assert!(
        matches!(result, Err(QueryError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}
