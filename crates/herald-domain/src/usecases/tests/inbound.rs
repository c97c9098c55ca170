//! Inbound messages as resources: the list's limits and cursor, and marking one read on the network.

use super::*;
use crate::ids::InboundId;
use crate::message::MessageError;
use crate::ports::{
    InboundQuery, InboundView, MockAccountStore, MockInboundStore, MockMessagingNetwork, NetworkError,
    StoreError,
};
use crate::usecases::{InboundMessages, MarkReadError, QueryError};
use std::sync::Arc;

fn view(n: u128, sender: &SenderNumber) -> InboundView {
    InboundView {
        id: InboundId::from_ulid(ulid(n)),
        organization_id: org_id(),
        sender_id: sender.id,
        to: sender.number.clone(),
        from: phone("+15551234567").into(),
        network_message_id: format!("wamid.{n}"),
        message_type: "text".into(),
        received_at: now(),
        read_at: None,
        json: "{}".into(),
    }
}

fn use_case(
    inbound: MockInboundStore,
    accounts: MockAccountStore,
    network: MockMessagingNetwork,
) -> InboundMessages {
    InboundMessages::new(
        Arc::new(inbound),
        Arc::new(accounts),
        Arc::new(network),
        Arc::new(clock_at(now())),
    )
}

fn senders_known(accounts: &mut MockAccountStore) {
    accounts.expect_senders().returning(|_| Ok(two_senders().into()));
}

#[test]
fn the_list_asks_one_more_row_to_know_whether_a_next_page_exists() {
    let receiving = sender(1, "+15550001111", true);
    let rows: Vec<InboundView> = (1..=3).rev().map(|n| view(n, &receiving)).collect();
    let mut inbound = MockInboundStore::new();
    inbound
        .expect_inbound_messages()
        .withf(|org, q| *org == org_id() && q.limit == 3)
        .times(1)
        .returning(move |_, _| Ok(rows.clone()));
    let page = run(
        use_case(inbound, MockAccountStore::new(), MockMessagingNetwork::new()).list(
            &org_id(),
            InboundQuery {
                limit: 2,
                ..InboundQuery::default()
            },
        ),
    )
    .unwrap();
    assert_eq!(page.messages.len(), 2);
    assert_eq!(page.next, Some(InboundId::from_ulid(ulid(2))));
}

#[test]
fn the_list_refuses_a_limit_out_of_range_and_an_empty_time_window() {
    for query in [
        InboundQuery {
            limit: 0,
            ..InboundQuery::default()
        },
        InboundQuery {
            limit: 201,
            ..InboundQuery::default()
        },
        InboundQuery {
            limit: 10,
            since: Some(now()),
            until: Some(now()),
            ..InboundQuery::default()
        },
    ] {
        let result = run(use_case(
            MockInboundStore::new(),
            MockAccountStore::new(),
            MockMessagingNetwork::new(),
        )
        .list(&org_id(), query));
        assert!(matches!(result, Err(QueryError::Invalid(_))), "{result:?}");
    }
}

#[test]
fn reading_marks_it_read_with_the_receiving_number_then_records_when() {
    let receiving = two_senders()[1].clone();
    let found = view(1, &receiving);
    let id = found.id;
    let mut inbound = MockInboundStore::new();
    let mut network = MockMessagingNetwork::new();
    let mut accounts = MockAccountStore::new();
    let mut sequence = mockall::Sequence::new();
    let stored = found.clone();
    inbound
        .expect_inbound_message()
        .withf(move |org, i| *org == org_id() && *i == id)
        .times(1)
        .in_sequence(&mut sequence)
        .returning(move |_, _| Ok(Some(stored.clone())));
    senders_known(&mut accounts);
    let sender_id = receiving.id;
    network
        .expect_mark_read()
        .withf(move |s, wamid, typing| s.id == sender_id && wamid == "wamid.1" && *typing)
        .times(1)
        .in_sequence(&mut sequence)
        .returning(|_, _, _| Ok(()));
    let mut read = found.clone();
    read.read_at = Some(now());
    inbound
        .expect_mark_inbound_read()
        .withf(move |org, i, at| *org == org_id() && *i == id && *at == now())
        .times(1)
        .in_sequence(&mut sequence)
        .returning(move |_, _, _| Ok(Some(read.clone())));

    let answer = run(use_case(inbound, accounts, network).mark_read(&org_id(), &id, true)).unwrap();

    assert_eq!(answer.read_at, Some(now()));
}

#[test]
fn a_refusal_of_the_network_records_nothing() {
    let receiving = two_senders()[0].clone();
    let found = view(1, &receiving);
    let id = found.id;
    for error in [
        NetworkError::Retryable {
            code: None,
            detail: "down".into(),
            retry_after: None,
        },
        NetworkError::Permanent(MessageError {
            code: "network_error".into(),
            title: "Invalid parameter".into(),
            detail: "Invalid message_id".into(),
            network_code: Some(100),
        }),
    ] {
        let mut inbound = MockInboundStore::new();
        let stored = found.clone();
        inbound
            .expect_inbound_message()
            .returning(move |_, _| Ok(Some(stored.clone())));
        inbound.expect_mark_inbound_read().never();
        let mut accounts = MockAccountStore::new();
        senders_known(&mut accounts);
        let mut network = MockMessagingNetwork::new();
        let returned = error.clone();
        network
            .expect_mark_read()
            .times(1)
            .returning(move |_, _, _| Err(returned.clone()));
        let result = run(use_case(inbound, accounts, network).mark_read(&org_id(), &id, false));
        assert!(
            matches!(&result, Err(MarkReadError::Network(e)) if *e == error),
            "{result:?}"
        );
    }
}

#[test]
fn an_unknown_or_foreign_id_is_not_found_and_reaches_no_network() {
    let mut inbound = MockInboundStore::new();
    inbound.expect_inbound_message().returning(|_, _| Ok(None));
    inbound.expect_mark_inbound_read().never();
    let mut network = MockMessagingNetwork::new();
    network.expect_mark_read().never();
    let result = run(use_case(inbound, MockAccountStore::new(), network).mark_read(
        &other_org_id(),
        &InboundId::from_ulid(ulid(9)),
        false,
    ));
    assert!(matches!(result, Err(MarkReadError::NotFound)), "{result:?}");
}

#[test]
fn a_store_failure_is_passed_on() {
    let mut inbound = MockInboundStore::new();
    inbound
        .expect_inbound_message()
        .returning(|_, _| Err(StoreError::Unavailable("db down".into())));
    let result = run(
        use_case(inbound, MockAccountStore::new(), MockMessagingNetwork::new())
            .get(&org_id(), &InboundId::from_ulid(ulid(9))),
    );
    assert!(
        matches!(result, Err(QueryError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}
