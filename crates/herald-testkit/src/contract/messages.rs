//! `MessageStore`: accept, quota, reads, the log's filters and cursor, status history.

use super::{Ports, accept_all, accept_ok, ids, new_organization_with_sender};
use crate::fixtures::{
    accept_request, appointment_named_content, at, client_reference, document_link_content, idempotency_key,
    invoice_ready_content, message, order_shipped_content, phone, stored_media_content, text_content,
    text_message,
};
use chrono::TimeDelta;
use herald_domain::attachment::MediaKind;
use herald_domain::ids::MessageId;
use herald_domain::message::{
    Message, MessageContent, MessageError, MessageStatus, MessageType, StatusTimestamps,
};
use herald_domain::ports::{AcceptOutcome, AcceptRequest, IdempotencyBegin, IdempotencyClaim, MessageQuery};
use herald_domain::time::BillingPeriod;
use herald_domain::values::{MessageText, RequestFingerprint};
use std::collections::BTreeSet;

fn all(limit: u32) -> MessageQuery {
    MessageQuery {
        limit,
        ..MessageQuery::default()
    }
}

/// What accept writes reads back exactly: the message, its first event, the quota count, the log.
pub async fn messages_accept_round_trips(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "trial").await;
    let message = Message {
        client_reference: Some(client_reference("order-1234")),
        ..text_message(org.id, &sender, "+15551234567", at(0))
    };
    let request = accept_request(&message, Some(1_000), None);
    accept_ok(&ports, &request).await;

    let read = ports
        .messages
        .message(&org.id, &message.id)
        .await
        .expect("message");
    assert_eq!(
        read.as_ref(),
        Some(&message),
        "message() must answer exactly the accepted message, timestamps to the microsecond"
    );
    let history = ports
        .messages
        .status_history(&org.id, &message.id)
        .await
        .expect("history");
    assert_eq!(
        history,
        Some(vec![request.event.clone()]),
        "the history is exactly the accepted event"
    );
    let period = BillingPeriod::containing(message.created_at);
    assert_eq!(
        ports.messages.usage(&org.id, &period).await.expect("usage"),
        1,
        "accept counts 1"
    );
    let listed = ports
        .messages
        .messages(&org.id, &all(10))
        .await
        .expect("messages");
    assert_eq!(
        listed,
        vec![message],
        "the log lists the accepted message, exactly"
    );
}

/// Every kind of content, and messages that moved on from `accepted`, read back exactly.
pub async fn messages_accept_round_trips_every_content_kind(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "business").await;
    let to = "+15551234567";
    let contents = vec![
        MessageContent::Text {
            body: MessageText::parse("Olá 👋 — «quotes» and \"double\" and 'single'\nsecond line")
                .expect("valid"),
            preview_url: true,
        },
        document_link_content(),
        stored_media_content(MediaKind::Image),
        stored_media_content(MediaKind::Video),
        stored_media_content(MediaKind::Audio),
        stored_media_content(MediaKind::Sticker),
        order_shipped_content(),
        appointment_named_content(),
        invoice_ready_content(),
    ];
    let mut messages: Vec<Message> = contents
        .into_iter()
        .enumerate()
        .map(|(i, content)| message(org.id, &sender, to, content, at(i64::try_from(i).unwrap_or(0))))
        .collect();

    // A message stored in a later state must keep every field of it too.
    let mut failed = text_message(org.id, &sender, to, at(100));
    failed.status = MessageStatus::Failed;
    failed.network_message_id = Some("wamid.HBgLMTU1NTEyMzQ1NjcVAgARGBI=".to_owned());
    failed.error = Some(MessageError {
        code: "recipient_unreachable".to_owned(),
        title: "Recipient unreachable".to_owned(),
        detail: "The number is not on WhatsApp".to_owned(),
        network_code: Some(131_026),
    });
    failed.updated_at = at(103);
    failed.timestamps = StatusTimestamps {
        accepted: Some(at(100)),
        submitted: Some(at(101)),
        failed: Some(at(103)),
        ..StatusTimestamps::default()
    };
    let mut read = Message {
        client_reference: Some(client_reference("ref with spaces & ünïcode")),
        ..message(org.id, &sender, to, order_shipped_content(), at(200))
    };
    read.status = MessageStatus::Read;
    read.network_message_id = Some("wamid.read".to_owned());
    read.updated_at = at(204) + TimeDelta::microseconds(7);
    read.timestamps = StatusTimestamps {
        accepted: Some(at(200)),
        submitted: Some(at(201)),
        sent: Some(at(202)),
        delivered: Some(at(203)),
        read: Some(at(204) + TimeDelta::microseconds(7)),
        ..StatusTimestamps::default()
    };
    messages.push(failed);
    messages.push(read);

    accept_all(&ports, &messages).await;
    for expected in &messages {
        let got = ports
            .messages
            .message(&org.id, &expected.id)
            .await
            .expect("message");
        assert_eq!(
            got.as_ref(),
            Some(expected),
            "message() must read back exactly what was accepted"
        );
    }
    let listed = ports
        .messages
        .messages(&org.id, &all(50))
        .await
        .expect("messages");
    let mut newest_first = messages.clone();
    newest_first.reverse();
    assert_eq!(
        listed, newest_first,
        "the log must list every message exactly, newest first"
    );
}

/// A duplicate message id is a Conflict that writes nothing.
pub async fn messages_accept_duplicate_id_conflicts(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let original = text_message(org.id, &sender, "+15551234567", at(0));
    let first = accept_request(&original, Some(100), None);
    accept_ok(&ports, &first).await;

    let impostor = Message {
        id: original.id,
        content: text_content("something else"),
        ..text_message(org.id, &sender, "+15557654321", at(5))
    };
    let second = accept_request(&impostor, Some(100), None);
    let result = ports.messages.accept(&second).await;
    assert!(
        matches!(result, Err(herald_domain::ports::StoreError::Conflict(_))),
        "accept with an existing message id must answer Conflict, got {result:?}"
    );
    let read = ports
        .messages
        .message(&org.id, &original.id)
        .await
        .expect("message");
    assert_eq!(
        read,
        Some(original.clone()),
        "the original message must be unchanged"
    );
    let history = ports
        .messages
        .status_history(&org.id, &original.id)
        .await
        .expect("history");
    assert_eq!(
        history,
        Some(vec![first.event]),
        "the refused accept must add no event"
    );
    let period = BillingPeriod::containing(at(0));
    assert_eq!(
        ports.messages.usage(&org.id, &period).await.expect("usage"),
        1,
        "the refused accept must not be counted"
    );
    let listed = ports
        .messages
        .messages(&org.id, &all(10))
        .await
        .expect("messages");
    assert_eq!(listed, vec![original], "the log still holds the original only");
}

/// With a limit of 3 the 4th accept answers QuotaExceeded and writes nothing, its idempotency claim
/// included; another month and an unlimited charge still count.
pub async fn messages_quota_is_enforced(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "trial").await;
    let period = BillingPeriod::containing(at(0));
    let mut accepted = Vec::new();
    for i in 0..3 {
        let message = text_message(org.id, &sender, "+15551234567", at(i));
        accept_ok(&ports, &accept_request(&message, Some(3), None)).await;
        accepted.push(message);
    }

    let key = idempotency_key("quota-4");
    let fingerprint = RequestFingerprint::of(b"fourth");
    let claim = IdempotencyClaim {
        organization_id: org.id,
        key: key.clone(),
        token: herald_domain::dispatch::ClaimToken(crate::fixtures::next_ulid()),
        fingerprint,
        now: at(3),
        lock_until: at(3) - TimeDelta::seconds(60),
        completed_after: at(3) - TimeDelta::hours(24),
    };
    assert_eq!(
        ports.messages.begin_idempotent(&claim).await.expect("begin"),
        IdempotencyBegin::Started
    );
    let fourth = text_message(org.id, &sender, "+15551234567", at(3));
    let outcome = ports
        .messages
        .accept(&accept_request(&fourth, Some(3), Some(claim.hold())))
        .await
        .expect("accept");
    assert_eq!(
        outcome,
        AcceptOutcome::QuotaExceeded,
        "the 4th accept against a limit of 3 is refused"
    );
    assert_eq!(
        ports.messages.usage(&org.id, &period).await.expect("usage"),
        3,
        "usage stays 3"
    );
    assert_eq!(
        ports
            .messages
            .message(&org.id, &fourth.id)
            .await
            .expect("message"),
        None,
        "a refused message must not be stored"
    );
    assert_eq!(
        ports
            .messages
            .status_history(&org.id, &fourth.id)
            .await
            .expect("history"),
        None
    );
    let listed = ports
        .messages
        .messages(&org.id, &all(10))
        .await
        .expect("messages");
    assert_eq!(
        ids(&listed),
        ids(&accepted).into_iter().rev().collect::<Vec<_>>(),
        "only 3 are listed"
    );
    assert_eq!(
        ports.messages.begin_idempotent(&claim).await.expect("begin"),
        IdempotencyBegin::InFlight { fingerprint },
        "a refused accept must not complete its idempotency claim"
    );

    let next_month = at(0) + TimeDelta::days(31);
    let later = text_message(org.id, &sender, "+15551234567", next_month);
    accept_ok(&ports, &accept_request(&later, Some(3), None)).await;
    let next_period = BillingPeriod::containing(next_month);
    assert_ne!(next_period, period);
    assert_eq!(
        ports.messages.usage(&org.id, &next_period).await.expect("usage"),
        1,
        "a new month counts afresh"
    );
    assert_eq!(ports.messages.usage(&org.id, &period).await.expect("usage"), 3);

    let unlimited = text_message(org.id, &sender, "+15551234567", at(4));
    accept_ok(&ports, &accept_request(&unlimited, None, None)).await;
    assert_eq!(
        ports.messages.usage(&org.id, &period).await.expect("usage"),
        4,
        "an unlimited charge is accepted and still counted"
    );
}

/// 50 accepts at once against a limit of 20: exactly 20 get in.
pub async fn messages_concurrent_accepts_respect_quota(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let requests: Vec<AcceptRequest> = (0..50)
        .map(|i| {
            accept_request(
                &text_message(org.id, &sender, "+15551234567", at(i)),
                Some(20),
                None,
            )
        })
        .collect();
    let tasks = requests.into_iter().map(|request| {
        let ports = ports.clone();
        tokio::spawn(async move {
            let outcome = ports.messages.accept(&request).await;
            (request.message.id, outcome)
        })
    });
    let results = futures::future::join_all(tasks).await;
    let mut accepted = BTreeSet::new();
    let mut refused = 0;
    for result in results {
        let (id, outcome) = result.expect("the accept task must not panic");
        match outcome {
            Ok(AcceptOutcome::Accepted) => {
                accepted.insert(id);
            }
            Ok(AcceptOutcome::QuotaExceeded) => refused += 1,
            Ok(AcceptOutcome::IdempotencyClaimLost) => panic!("no accept here holds a key"),
            Ok(AcceptOutcome::RecipientRefused(refusal)) => panic!("no recipient here refuses: {refusal:?}"),
            Err(error) => panic!("a concurrent accept must not fail: {error:?}"),
        }
    }
    assert_eq!(
        (accepted.len(), refused),
        (20, 30),
        "exactly 20 Accepted and 30 QuotaExceeded"
    );
    let period = BillingPeriod::containing(at(0));
    assert_eq!(
        ports.messages.usage(&org.id, &period).await.expect("usage"),
        20,
        "usage is exactly 20"
    );
    let listed = ports
        .messages
        .messages(&org.id, &all(200))
        .await
        .expect("messages");
    let listed: BTreeSet<MessageId> = listed.iter().map(|m| m.id).collect();
    assert_eq!(listed, accepted, "exactly the 20 accepted messages are stored");
}

/// 25 messages read in pages of 10 through `before`: every one exactly once, newest first.
pub async fn messages_cursor_pagination_covers_all_once(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let messages: Vec<Message> = (0..25)
        .map(|i| text_message(org.id, &sender, "+15551234567", at(i)))
        .collect();
    accept_all(&ports, &messages).await;

    let mut seen = Vec::new();
    let mut before = None;
    let mut sizes = Vec::new();
    loop {
        let page = ports
            .messages
            .messages(
                &org.id,
                &MessageQuery {
                    before,
                    limit: 10,
                    ..MessageQuery::default()
                },
            )
            .await
            .expect("messages");
        sizes.push(page.len());
        let Some(last) = page.last() else { break };
        before = Some(last.id);
        seen.extend(page.iter().map(|m| m.id));
        assert!(sizes.len() <= 4, "paging must end: {sizes:?}");
    }
    assert_eq!(
        sizes,
        vec![10, 10, 5, 0],
        "pages of at most `limit`, then an empty page"
    );
    let expected: Vec<MessageId> = messages.iter().rev().map(|m| m.id).collect();
    assert_eq!(
        seen, expected,
        "the pages cover every message exactly once, newest first"
    );
}

/// Accepts between page reads neither repeat a seen message nor skip an original one.
pub async fn messages_cursor_is_stable_under_inserts(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let originals: Vec<Message> = (0..25)
        .map(|i| text_message(org.id, &sender, "+15551234567", at(i)))
        .collect();
    accept_all(&ports, &originals).await;
    let expected: Vec<MessageId> = originals.iter().rev().map(|m| m.id).collect();
    let page = |before: Option<MessageId>| {
        let ports = ports.clone();
        async move {
            ports
                .messages
                .messages(
                    &org.id,
                    &MessageQuery {
                        before,
                        limit: 10,
                        ..MessageQuery::default()
                    },
                )
                .await
                .expect("messages")
        }
    };

    let first = page(None).await;
    assert_eq!(ids(&first), expected[..10].to_vec(), "page 1 is the 10 newest");
    let newer: Vec<Message> = (0..5)
        .map(|i| text_message(org.id, &sender, "+15551234567", at(100 + i)))
        .collect();
    accept_all(&ports, &newer).await;
    let second = page(first.last().map(|m| m.id)).await;
    assert_eq!(
        ids(&second),
        expected[10..20].to_vec(),
        "page 2 continues after page 1 despite newer messages"
    );
    let newest: Vec<Message> = (0..3)
        .map(|i| text_message(org.id, &sender, "+15551234567", at(200 + i)))
        .collect();
    accept_all(&ports, &newest).await;
    let third = page(second.last().map(|m| m.id)).await;
    assert_eq!(
        ids(&third),
        expected[20..].to_vec(),
        "page 3 holds the last 5 originals"
    );
    let restart = page(None).await;
    assert_eq!(
        restart.first().map(|m| m.id),
        newest.last().map(|m| m.id),
        "a new first page starts newest"
    );
}

/// Every filter of the log, alone and combined, keeps newest-first order.
pub async fn messages_filters(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let (one, two, three) = ("+15551110001", "+15551110002", "+15551110003");
    let m1 = Message {
        client_reference: Some(client_reference("ref-a")),
        ..text_message(org.id, &sender, one, at(0))
    };
    let m2 = Message {
        client_reference: Some(client_reference("ref-b")),
        ..message(org.id, &sender, two, order_shipped_content(), at(10))
    };
    let m3 = message(org.id, &sender, one, document_link_content(), at(20));
    let mut m4 = Message {
        client_reference: Some(client_reference("ref-a")),
        ..message(
            org.id,
            &sender,
            three,
            stored_media_content(MediaKind::Image),
            at(30),
        )
    };
    m4.status = MessageStatus::Sent;
    m4.network_message_id = Some("wamid.m4".to_owned());
    m4.timestamps.submitted = Some(at(31));
    m4.timestamps.sent = Some(at(32));
    m4.updated_at = at(32);
    let mut m5 = text_message(org.id, &sender, two, at(40));
    m5.status = MessageStatus::Failed;
    m5.timestamps.failed = Some(at(41));
    m5.updated_at = at(41);
    let messages = [m1.clone(), m2.clone(), m3.clone(), m4.clone(), m5.clone()];
    accept_all(&ports, &messages).await;

    let base = all(50);
    let cases: Vec<(&str, MessageQuery, Vec<&Message>)> = vec![
        ("no filter", base.clone(), vec![&m5, &m4, &m3, &m2, &m1]),
        (
            "status accepted",
            MessageQuery {
                status: Some(MessageStatus::Accepted),
                ..base.clone()
            },
            vec![&m3, &m2, &m1],
        ),
        (
            "status sent",
            MessageQuery {
                status: Some(MessageStatus::Sent),
                ..base.clone()
            },
            vec![&m4],
        ),
        (
            "status failed",
            MessageQuery {
                status: Some(MessageStatus::Failed),
                ..base.clone()
            },
            vec![&m5],
        ),
        (
            "status delivered",
            MessageQuery {
                status: Some(MessageStatus::Delivered),
                ..base.clone()
            },
            vec![],
        ),
        (
            "to",
            MessageQuery {
                to: Some(phone(one).into()),
                ..base.clone()
            },
            vec![&m3, &m1],
        ),
        (
            "type text",
            MessageQuery {
                message_type: Some(MessageType::Text),
                ..base.clone()
            },
            vec![&m5, &m1],
        ),
        (
            "type template",
            MessageQuery {
                message_type: Some(MessageType::Template),
                ..base.clone()
            },
            vec![&m2],
        ),
        (
            "type document",
            MessageQuery {
                message_type: Some(MessageType::Document),
                ..base.clone()
            },
            vec![&m3],
        ),
        (
            "type image",
            MessageQuery {
                message_type: Some(MessageType::Image),
                ..base.clone()
            },
            vec![&m4],
        ),
        (
            "type video",
            MessageQuery {
                message_type: Some(MessageType::Video),
                ..base.clone()
            },
            vec![],
        ),
        (
            "client_reference",
            MessageQuery {
                client_reference: Some(client_reference("ref-a")),
                ..base.clone()
            },
            vec![&m4, &m1],
        ),
        (
            "created_after is inclusive",
            MessageQuery {
                created_after: Some(at(20)),
                ..base.clone()
            },
            vec![&m5, &m4, &m3],
        ),
        (
            "created_before is exclusive",
            MessageQuery {
                created_before: Some(at(20)),
                ..base.clone()
            },
            vec![&m2, &m1],
        ),
        (
            "created range to the microsecond",
            MessageQuery {
                created_after: Some(at(10) + TimeDelta::microseconds(1)),
                created_before: Some(at(40) + TimeDelta::microseconds(1)),
                ..base.clone()
            },
            vec![&m5, &m4, &m3],
        ),
        (
            "to and type together",
            MessageQuery {
                to: Some(phone(two).into()),
                message_type: Some(MessageType::Text),
                ..base.clone()
            },
            vec![&m5],
        ),
        (
            "before a cursor",
            MessageQuery {
                before: Some(m3.id),
                ..base.clone()
            },
            vec![&m2, &m1],
        ),
        (
            "cursor with a filter",
            MessageQuery {
                before: Some(m5.id),
                client_reference: Some(client_reference("ref-a")),
                ..base.clone()
            },
            vec![&m4, &m1],
        ),
        ("limit", all(2), vec![&m5, &m4]),
    ];
    for (what, query, expected) in cases {
        let listed = ports.messages.messages(&org.id, &query).await.expect("messages");
        let expected: Vec<Message> = expected.into_iter().cloned().collect();
        assert_eq!(
            ids(&listed),
            ids(&expected),
            "filter `{what}`: wrong messages or order"
        );
        assert_eq!(
            listed, expected,
            "filter `{what}`: messages must read back exactly"
        );
    }
}

/// The history of an accepted message is its accepted event; an unknown message has none.
pub async fn messages_status_history(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let first = text_message(org.id, &sender, "+15551234567", at(0));
    let second = text_message(org.id, &sender, "+15551234567", at(1));
    let request_1 = accept_request(&first, None, None);
    let request_2 = accept_request(&second, None, None);
    accept_ok(&ports, &request_1).await;
    accept_ok(&ports, &request_2).await;
    for (message, request) in [(&first, &request_1), (&second, &request_2)] {
        let history = ports
            .messages
            .status_history(&org.id, &message.id)
            .await
            .expect("history");
        assert_eq!(
            history,
            Some(vec![request.event.clone()]),
            "status_history() must answer the message's own events, exactly, oldest first"
        );
    }
    let unknown = MessageId::from_ulid(crate::fixtures::next_ulid());
    let history = ports
        .messages
        .status_history(&org.id, &unknown)
        .await
        .expect("history");
    assert_eq!(
        history, None,
        "status_history() of an unknown message must answer None"
    );
}

/// Accepts that arrive together (and so are committed together where the store batches them) are answered
/// each on its own: a duplicate id fails only itself, the quota refuses exactly the items past it, and
/// each accepted item completes its own idempotency record while a refused one leaves its claim alone.
pub async fn messages_batched_accepts_answer_each_item_alone(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let original = text_message(org.id, &sender, "+15551234567", at(0));
    accept_ok(&ports, &accept_request(&original, Some(21), None)).await;

    let fingerprint = RequestFingerprint::of(b"batched");
    let mut requests = Vec::new();
    for i in 0..40 {
        let key = idempotency_key(&format!("batched-{i}"));
        let claim = IdempotencyClaim {
            organization_id: org.id,
            key: key.clone(),
            token: herald_domain::dispatch::ClaimToken(crate::fixtures::next_ulid()),
            fingerprint,
            now: at(1),
            lock_until: at(1) - TimeDelta::seconds(60),
            completed_after: at(1) - TimeDelta::hours(24),
        };
        assert_eq!(
            ports
                .messages
                .begin_idempotent(&claim)
                .await
                .expect("begin_idempotent"),
            IdempotencyBegin::Started
        );
        let message = text_message(org.id, &sender, "+15551234567", at(2 + i));
        let hold = claim.hold();
        requests.push((Some(claim), accept_request(&message, Some(21), Some(hold))));
    }
    let impostor = Message {
        id: original.id,
        ..text_message(org.id, &sender, "+15557654321", at(1))
    };
    // Unlimited, so the quota (checked first) never answers for it: only its id can refuse it.
    requests.insert(20, (None, accept_request(&impostor, None, None)));

    let tasks = requests.into_iter().map(|(claim, request)| {
        let ports = ports.clone();
        tokio::spawn(async move {
            let outcome = ports.messages.accept(&request).await;
            (claim, request, outcome)
        })
    });
    let mut accepted = BTreeSet::new();
    let mut refused = Vec::new();
    for result in futures::future::join_all(tasks).await {
        let (claim, request, outcome) = result.expect("the accept task must not panic");
        match (claim, outcome) {
            (None, outcome) => assert!(
                matches!(outcome, Err(herald_domain::ports::StoreError::Conflict(_))),
                "the duplicate id must answer Conflict on its own, got {outcome:?}"
            ),
            (Some(claim), Ok(AcceptOutcome::Accepted)) => {
                assert_eq!(
                    ports
                        .messages
                        .begin_idempotent(&claim)
                        .await
                        .expect("begin_idempotent"),
                    IdempotencyBegin::Completed {
                        fingerprint,
                        message_id: request.message.id
                    },
                    "an accepted item completes its own idempotency record"
                );
                let history = ports
                    .messages
                    .status_history(&org.id, &request.message.id)
                    .await
                    .expect("history");
                assert_eq!(
                    history,
                    Some(vec![request.event]),
                    "an accepted item has its event"
                );
                accepted.insert(request.message.id);
            }
            (Some(claim), Ok(AcceptOutcome::QuotaExceeded)) => {
                assert_eq!(
                    ports
                        .messages
                        .begin_idempotent(&claim)
                        .await
                        .expect("begin_idempotent"),
                    IdempotencyBegin::InFlight { fingerprint },
                    "a refused item leaves its claim for the use case to release"
                );
                refused.push(request.message.id);
            }
            (Some(_), Err(error)) => panic!("a valid accept must not fail beside a bad one: {error:?}"),
            (Some(_), Ok(AcceptOutcome::IdempotencyClaimLost)) => panic!("every claim here is live"),
            (Some(_), Ok(AcceptOutcome::RecipientRefused(refusal))) => {
                panic!("no recipient here refuses: {refusal:?}")
            }
        }
    }
    assert_eq!(
        (accepted.len(), refused.len()),
        (20, 20),
        "exactly the quota's 20 accepted"
    );
    let period = BillingPeriod::containing(at(0));
    assert_eq!(
        ports.messages.usage(&org.id, &period).await.expect("usage"),
        21,
        "usage counts the original and the 20 accepted, not the refused or the duplicate"
    );
    for id in refused {
        assert_eq!(
            ports.messages.message(&org.id, &id).await.expect("message"),
            None,
            "a refused item stores nothing"
        );
    }
    let listed: BTreeSet<MessageId> = ports
        .messages
        .messages(&org.id, &all(100))
        .await
        .expect("messages")
        .into_iter()
        .map(|m| m.id)
        .filter(|id| *id != original.id)
        .collect();
    assert_eq!(listed, accepted, "the log holds exactly the accepted items");
    assert_eq!(
        ports
            .messages
            .message(&org.id, &original.id)
            .await
            .expect("message"),
        Some(original),
        "the original is unchanged by its duplicate"
    );
}

/// An accept that asks for the recipient check is refused, writing and counting nothing, when the
/// recipient's contact in the accept's organization refuses a send of its purpose: blocked (by number or by
/// user id), or a marketing template to someone who stopped them. Everything else in the same batches goes
/// through: another purpose, an unchecked accept, an unknown recipient, another organization's.
pub async fn messages_accept_refuses_what_the_recipient_refuses(ports: Ports) {
    use herald_domain::contact::{
        MarketingPreference, PreferenceChange, PreferenceSource, Recipient, RecipientRefusal, SendPurpose,
    };
    use herald_domain::values::UserId;
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let (other, other_sender) = new_organization_with_sender(&ports, "starter").await;
    let blocked = "+15551110001";
    let stopped = "+15551110002";
    let user = Recipient::User(UserId::parse("US.555000111").expect("a user id"));
    ports
        .contacts
        .set_blocked(&org.id, &Recipient::Number(phone(blocked)), true, at(0))
        .await
        .expect("set_blocked");
    ports
        .contacts
        .set_blocked(&org.id, &user, true, at(0))
        .await
        .expect("set_blocked");
    ports
        .contacts
        .record_preference(&PreferenceChange {
            organization_id: org.id,
            number: Some(phone(stopped)),
            user_id: None,
            preference: MarketingPreference::Stopped,
            source: PreferenceSource::Api,
            occurred_at: at(0),
            recorded_at: at(0),
            event_id: herald_domain::ids::EventId::from_ulid(crate::fixtures::next_ulid()),
            dedupe_key: None,
        })
        .await
        .expect("record_preference");

    let request = |org: &herald_domain::organization::Organization,
                   sender: &herald_domain::organization::SenderNumber,
                   to: Recipient,
                   check: Option<SendPurpose>,
                   i: i64| {
        let mut message = text_message(org.id, sender, "+15551119999", at(i));
        message.to = to;
        AcceptRequest {
            recipient_check: check,
            ..accept_request(&message, Some(100), None)
        }
    };
    let number = |n: &str| Recipient::Number(phone(n));
    let cases = [
        (
            request(&org, &sender, number(blocked), Some(SendPurpose::Other), 1),
            AcceptOutcome::RecipientRefused(RecipientRefusal::Blocked),
        ),
        (
            request(&org, &sender, number(blocked), Some(SendPurpose::Marketing), 2),
            AcceptOutcome::RecipientRefused(RecipientRefusal::Blocked),
        ),
        (
            request(&org, &sender, user.clone(), Some(SendPurpose::Other), 3),
            AcceptOutcome::RecipientRefused(RecipientRefusal::Blocked),
        ),
        (
            request(&org, &sender, number(stopped), Some(SendPurpose::Marketing), 4),
            AcceptOutcome::RecipientRefused(RecipientRefusal::OptedOut),
        ),
        (
            request(&org, &sender, number(stopped), Some(SendPurpose::Other), 5),
            AcceptOutcome::Accepted,
        ),
        (
            request(&org, &sender, number(blocked), None, 6),
            AcceptOutcome::Accepted,
        ),
        (
            request(
                &org,
                &sender,
                number("+15551110003"),
                Some(SendPurpose::Marketing),
                7,
            ),
            AcceptOutcome::Accepted,
        ),
        (
            request(
                &other,
                &other_sender,
                number(blocked),
                Some(SendPurpose::Marketing),
                8,
            ),
            AcceptOutcome::Accepted,
        ),
    ];
    // At once, so the group commit puts several of them in one batch.
    let answers =
        futures::future::join_all(cases.iter().map(|(request, _)| ports.messages.accept(request))).await;
    for ((request, expected), answer) in cases.iter().zip(answers) {
        assert_eq!(answer.expect("accept"), *expected, "to {:?}", request.message.to);
        let stored = ports
            .messages
            .message(&request.message.organization_id, &request.message.id)
            .await
            .expect("message");
        assert_eq!(
            stored.is_some(),
            *expected == AcceptOutcome::Accepted,
            "only what is accepted is stored: to {:?}",
            request.message.to
        );
    }
    assert_eq!(
        super::schedule::usage(&ports, &org).await,
        3,
        "a refused accept is not counted"
    );
    assert_eq!(super::schedule::usage(&ports, &other).await, 1);
}
