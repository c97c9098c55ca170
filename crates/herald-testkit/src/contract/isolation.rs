//! Tenant isolation: another organization's rows do not exist for the caller, through any method.

use super::{Ports, accept_ok, new_organization_with_sender};
use crate::fixtures::{
    self, accept_request, api_key, at, idempotency_key, network_ref, phone, simulator_templates,
    template_hello_world, text_message,
};
use herald_domain::message::MessageStatus;
use herald_domain::ports::{IdempotencyBegin, IdempotencyClaim, MessageQuery, TemplateQuery};
use herald_domain::time::BillingPeriod;
use herald_domain::values::RequestFingerprint;
use herald_domain::window::ServiceWindow;

/// Organization B never sees A's message, its history or its quota usage.
pub async fn isolation_messages(ports: Ports) {
    let (org_a, sender_a) = new_organization_with_sender(&ports, "starter").await;
    let (org_b, _) = new_organization_with_sender(&ports, "starter").await;
    let message = text_message(org_a.id, &sender_a, "+15551234567", at(0));
    accept_ok(&ports, &accept_request(&message, Some(100), None)).await;

    let seen = ports
        .messages
        .message(&org_b.id, &message.id)
        .await
        .expect("message");
    assert_eq!(
        seen, None,
        "message() must answer None for another organization's message"
    );
    let history = ports
        .messages
        .status_history(&org_b.id, &message.id)
        .await
        .expect("history");
    assert_eq!(
        history, None,
        "status_history() must answer None for another organization's message"
    );
    let everything = MessageQuery {
        limit: 200,
        ..MessageQuery::default()
    };
    let probes = [
        everything.clone(),
        MessageQuery {
            to: Some(message.to.clone()),
            ..everything.clone()
        },
        MessageQuery {
            status: Some(MessageStatus::Accepted),
            ..everything.clone()
        },
    ];
    for query in &probes {
        let listed = ports.messages.messages(&org_b.id, query).await.expect("messages");
        assert!(
            listed.is_empty(),
            "messages() of B must not list A's messages ({query:?}): {listed:?}"
        );
    }
    let period = BillingPeriod::containing(at(0));
    let usage = ports.messages.usage(&org_b.id, &period).await.expect("usage");
    assert_eq!(usage, 0, "A's accepts must not count against B's quota");

    let own = ports
        .messages
        .message(&org_a.id, &message.id)
        .await
        .expect("message");
    assert_eq!(own, Some(message), "A still reads its own message");
    assert_eq!(ports.messages.usage(&org_a.id, &period).await.expect("usage"), 1);
}

/// Organization B never sees A's templates, and B's sync of the same business account leaves A's alone.
pub async fn isolation_templates(ports: Ports) {
    let (org_a, _) = new_organization_with_sender(&ports, "starter").await;
    let (org_b, _) = new_organization_with_sender(&ports, "starter").await;
    let waba = network_ref(fixtures::SIMULATOR_WABA);
    let templates_a = simulator_templates(org_a.id, &waba);
    ports
        .templates
        .replace_templates(&org_a.id, &waba, &templates_a)
        .await
        .expect("replace_templates");

    for template in &templates_a {
        let seen = ports
            .templates
            .template(&org_b.id, &waba, &template.name, &template.language)
            .await
            .expect("template");
        assert_eq!(
            seen, None,
            "template() must answer None for another organization's template"
        );
    }
    let listed = ports
        .templates
        .templates(&org_b.id, &TemplateQuery::default())
        .await
        .expect("templates");
    assert!(
        listed.is_empty(),
        "templates() of B must not list A's: {listed:?}"
    );

    let hello_b = template_hello_world(org_b.id, &waba);
    ports
        .templates
        .replace_templates(&org_b.id, &waba, std::slice::from_ref(&hello_b))
        .await
        .expect("replace_templates");
    let listed_a = ports
        .templates
        .templates(&org_a.id, &TemplateQuery::default())
        .await
        .expect("templates");
    assert_eq!(
        listed_a, templates_a,
        "B's sync of the same business account must not touch A's templates"
    );
    let listed_b = ports
        .templates
        .templates(&org_b.id, &TemplateQuery::default())
        .await
        .expect("templates");
    assert_eq!(listed_b, vec![hello_b], "B sees only its own");
}

/// Organization B never sees A's service windows, even asking with A's sender id.
pub async fn isolation_windows(ports: Ports) {
    let (org_a, sender_a) = new_organization_with_sender(&ports, "starter").await;
    let (org_b, sender_b) = new_organization_with_sender(&ports, "starter").await;
    let window = ServiceWindow {
        organization_id: org_a.id,
        sender_id: sender_a.id,
        recipient: phone("+15551234567").into(),
        last_inbound_at: at(0),
    };
    ports
        .windows
        .record_inbound(&window)
        .await
        .expect("record_inbound");
    for sender_id in [sender_a.id, sender_b.id] {
        let seen = ports
            .windows
            .window(&org_b.id, &sender_id, &window.recipient)
            .await
            .expect("window");
        assert_eq!(
            seen, None,
            "window() must answer None for another organization's window"
        );
    }
    let own = ports
        .windows
        .window(&org_a.id, &sender_a.id, &window.recipient)
        .await
        .expect("window");
    assert_eq!(own, Some(window), "A still reads its own window");
}

/// Organization B never lists A's senders or keys.
pub async fn isolation_accounts(ports: Ports) {
    let (org_a, sender_a) = new_organization_with_sender(&ports, "starter").await;
    let (org_b, sender_b) = new_organization_with_sender(&ports, "starter").await;
    let (key_a, _) = api_key(org_a.id);
    ports
        .accounts
        .create_api_key(&key_a)
        .await
        .expect("create_api_key");

    let senders_b = ports.accounts.senders(&org_b.id).await.expect("senders").to_vec();
    assert_eq!(senders_b, vec![sender_b], "senders() of B must list only B's");
    let keys_b = ports.accounts.api_keys(&org_b.id).await.expect("api_keys");
    assert!(
        keys_b.is_empty(),
        "api_keys() of B must not list A's keys: {keys_b:?}"
    );
    assert_eq!(
        ports.accounts.senders(&org_a.id).await.expect("senders").to_vec(),
        vec![sender_a]
    );
    assert_eq!(
        ports.accounts.api_keys(&org_a.id).await.expect("api_keys"),
        vec![key_a]
    );
}

/// The same Idempotency-Key in two organizations is two independent claims.
pub async fn isolation_idempotency(ports: Ports) {
    let (org_a, sender_a) = new_organization_with_sender(&ports, "starter").await;
    let (org_b, _) = new_organization_with_sender(&ports, "starter").await;
    let key = idempotency_key("order-1234");
    let claim = |organization_id, fingerprint: &[u8]| IdempotencyClaim {
        organization_id,
        key: key.clone(),
        token: herald_domain::dispatch::ClaimToken(crate::fixtures::next_ulid()),
        fingerprint: RequestFingerprint::of(fingerprint),
        now: at(0),
        lock_until: at(-60),
        completed_after: at(-86_400),
    };

    let (claim_a, claim_b) = (claim(org_a.id, b"a"), claim(org_b.id, b"b"));
    let a = ports.messages.begin_idempotent(&claim_a).await.expect("begin");
    assert_eq!(a, IdempotencyBegin::Started);
    let b = ports.messages.begin_idempotent(&claim_b).await.expect("begin");
    assert_eq!(
        b,
        IdempotencyBegin::Started,
        "B's claim must not see A's pending claim of the same key"
    );

    ports
        .messages
        .release_idempotent(&org_b.id, &claim_b.hold())
        .await
        .expect("release");
    let a_again = ports
        .messages
        .begin_idempotent(&claim(org_a.id, b"a"))
        .await
        .expect("begin");
    assert_eq!(
        a_again,
        IdempotencyBegin::InFlight {
            fingerprint: RequestFingerprint::of(b"a")
        },
        "B releasing the key must not release A's claim"
    );

    let message = text_message(org_a.id, &sender_a, "+15551234567", at(0));
    accept_ok(&ports, &accept_request(&message, None, Some(claim_a.hold()))).await;
    let b_again = ports
        .messages
        .begin_idempotent(&claim(org_b.id, b"b"))
        .await
        .expect("begin");
    assert_eq!(
        b_again,
        IdempotencyBegin::Started,
        "A's completion must not complete B's key"
    );
    let b_third = ports
        .messages
        .begin_idempotent(&claim(org_b.id, b"b"))
        .await
        .expect("begin");
    assert_eq!(
        b_third,
        IdempotencyBegin::InFlight {
            fingerprint: RequestFingerprint::of(b"b")
        },
        "B's own claim is pending"
    );
    let a_done = ports
        .messages
        .begin_idempotent(&claim(org_a.id, b"a"))
        .await
        .expect("begin");
    assert_eq!(
        a_done,
        IdempotencyBegin::Completed {
            fingerprint: RequestFingerprint::of(b"a"),
            message_id: message.id
        }
    );
}
