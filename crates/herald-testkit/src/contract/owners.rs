//! `OwnerStore`: owner accounts, dashboard sessions, and the events sent about a message.

use super::webhooks::{accepted, new_endpoint, status_event};
use super::{Ports, new_organization, new_organization_with_sender};
use crate::fixtures::{at, organization};
use chrono::TimeDelta;
use herald_domain::Timestamp;
use herald_domain::customer_event::CustomerEventType;
use herald_domain::ids::{MessageId, OrganizationId};
use herald_domain::message::MessageStatus;
use herald_domain::owner::{DashboardSession, OwnerAccount, OwnerEmail, PasswordHash, SessionDigest};
use herald_domain::ports::StoreError;
use herald_domain::webhook::{DeliveryStatus, EventSelection};

fn owner(organization: OrganizationId, email: &str, hash: &str, set: i64) -> OwnerAccount {
    OwnerAccount {
        organization_id: organization,
        email: OwnerEmail::parse(email).expect("a valid email"),
        password_hash: PasswordHash::new(hash),
        password_set_at: at(set),
    }
}

fn session(organization: OrganizationId, email: &str, token: &str, created: Timestamp) -> DashboardSession {
    DashboardSession {
        digest: SessionDigest::of(token),
        organization_id: organization,
        email: OwnerEmail::parse(email).expect("a valid email"),
        csrf_token: format!("csrf-{token}"),
        created_at: created,
        last_seen_at: created,
        expires_at: created + TimeDelta::hours(12),
    }
}

/// A unique email per scenario run (the store is fresh, but keep scenarios independent anyway).
fn email(local: &str, org: &OrganizationId) -> String {
    format!("{local}+{}@example.com", org.to_string().to_lowercase())
}

/// `set_owner` creates then replaces the organization's owner, and ends its sessions (only its own).
pub async fn owners_set_owner_replaces_and_ends_sessions(ports: Ports) {
    let org = new_organization(&ports, "business").await;
    let other = new_organization(&ports, "business").await;
    let mail = email("ann", &org.id);
    let first = owner(org.id, &mail, "$argon2id$first", 1);
    ports.owners.set_owner(&first).await.expect("set_owner");
    assert_eq!(
        ports
            .owners
            .owner_by_email(&first.email)
            .await
            .expect("owner_by_email"),
        Some(first.clone()),
        "owner_by_email must read back the owner as stored"
    );
    let other_mail = email("bob", &other.id);
    ports
        .owners
        .set_owner(&owner(other.id, &other_mail, "$argon2id$bob", 1))
        .await
        .expect("set_owner");
    ports
        .owners
        .create_session(&session(org.id, &mail, "ann-1", at(10)))
        .await
        .expect("create_session");
    ports
        .owners
        .create_session(&session(other.id, &other_mail, "bob-1", at(10)))
        .await
        .expect("create_session");

    let second = owner(org.id, &mail, "$argon2id$second", 20);
    ports.owners.set_owner(&second).await.expect("set_owner again");
    assert_eq!(
        ports
            .owners
            .owner_by_email(&second.email)
            .await
            .expect("owner_by_email"),
        Some(second),
        "set_owner must replace the organization's owner"
    );
    assert_eq!(
        ports
            .owners
            .session(&SessionDigest::of("ann-1"))
            .await
            .expect("session"),
        None,
        "a new password must end the organization's sessions"
    );
    assert!(
        ports
            .owners
            .session(&SessionDigest::of("bob-1"))
            .await
            .expect("session")
            .is_some(),
        "another organization's sessions must stay"
    );
    let unknown = OwnerEmail::parse("nobody@example.com").expect("email");
    assert_eq!(ports.owners.owner_by_email(&unknown).await.expect("read"), None);

    let missing = organization("business");
    let refused = ports
        .owners
        .set_owner(&owner(missing.id, "x@example.com", "$h", 1))
        .await;
    assert!(
        matches!(refused, Err(StoreError::NotFound)),
        "set_owner of an unknown organization must answer NotFound, got {refused:?}"
    );
}

/// One email is the login of one organization.
pub async fn owners_email_is_one_organization_login(ports: Ports) {
    let org = new_organization(&ports, "business").await;
    let other = new_organization(&ports, "business").await;
    let mail = email("shared", &org.id);
    ports
        .owners
        .set_owner(&owner(org.id, &mail, "$h1", 1))
        .await
        .expect("set_owner");
    let refused = ports.owners.set_owner(&owner(other.id, &mail, "$h2", 2)).await;
    assert!(
        matches!(refused, Err(StoreError::Conflict(_))),
        "another organization taking the same login email must answer Conflict, got {refused:?}"
    );
    let kept = ports
        .owners
        .owner_by_email(&OwnerEmail::parse(&mail).expect("email"))
        .await
        .expect("read")
        .expect("the first owner stays");
    assert_eq!(kept.organization_id, org.id);
}

/// Sessions read back as stored, move their `last_seen_at` when touched, and end when deleted.
pub async fn owners_sessions_round_trip_touch_and_delete(ports: Ports) {
    let org = new_organization(&ports, "business").await;
    let mail = email("ann", &org.id);
    let stored = session(org.id, &mail, "token-a", at(100));
    ports
        .owners
        .create_session(&stored)
        .await
        .expect("create_session");
    assert_eq!(
        ports.owners.session(&stored.digest).await.expect("session"),
        Some(stored.clone()),
        "a session must read back exactly as stored"
    );
    let duplicate = ports.owners.create_session(&stored).await;
    assert!(
        matches!(duplicate, Err(StoreError::Conflict(_))),
        "a duplicate digest must answer Conflict, got {duplicate:?}"
    );
    ports
        .owners
        .touch_session(&stored.digest, at(160))
        .await
        .expect("touch_session");
    let touched = ports
        .owners
        .session(&stored.digest)
        .await
        .expect("session")
        .expect("still there");
    assert_eq!(
        touched.last_seen_at,
        at(160),
        "touch_session must move last_seen_at"
    );
    assert_eq!(touched.created_at, at(100), "and nothing else");
    ports
        .owners
        .touch_session(&SessionDigest::of("nope"), at(1))
        .await
        .expect("touching a missing session is not an error");

    ports
        .owners
        .delete_session(&stored.digest)
        .await
        .expect("delete_session");
    assert_eq!(ports.owners.session(&stored.digest).await.expect("session"), None);
    ports
        .owners
        .delete_session(&stored.digest)
        .await
        .expect("deleting twice is not an error");

    let orphan = session(organization("business").id, "x@example.com", "orphan", at(1));
    let refused = ports.owners.create_session(&orphan).await;
    assert!(
        matches!(refused, Err(StoreError::NotFound)),
        "a session of an unknown organization must answer NotFound, got {refused:?}"
    );
}

/// The sweep deletes sessions idle since before the cut or past their absolute expiry, and only those.
pub async fn owners_expired_sessions_are_swept(ports: Ports) {
    let org = new_organization(&ports, "business").await;
    let mail = email("ann", &org.id);
    let live = session(org.id, &mail, "live", at(1_000));
    let idle = session(org.id, &mail, "idle", at(0));
    let mut old = session(org.id, &mail, "old", at(900));
    old.expires_at = at(1_500);
    for s in [&live, &idle, &old] {
        ports.owners.create_session(s).await.expect("create_session");
    }
    let deleted = ports
        .owners
        .delete_expired_sessions(at(500), at(1_500))
        .await
        .expect("delete_expired_sessions");
    assert_eq!(deleted, 2, "the idle one and the one at its absolute expiry");
    assert!(ports.owners.session(&live.digest).await.expect("read").is_some());
    assert!(ports.owners.session(&idle.digest).await.expect("read").is_none());
    assert!(ports.owners.session(&old.digest).await.expect("read").is_none());
}

/// `sent_events` lists a message's customer events with their deliveries, scoped to the organization.
pub async fn owners_sent_events_of_a_message(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "business").await;
    let endpoint = new_endpoint(&ports, &org, EventSelection::ALL, 0).await;
    let message = accepted(&ports, &org, &sender).await;
    let first = status_event(&ports, &message, MessageStatus::Submitted, at(5)).await;
    let second = status_event(&ports, &message, MessageStatus::Sent, at(6)).await;

    let sent = ports
        .owners
        .sent_events(&org.id, &message.id)
        .await
        .expect("sent_events");
    assert_eq!(
        sent.iter().map(|e| e.event_id).collect::<Vec<_>>(),
        vec![first, second],
        "every customer event of the message, by sequence"
    );
    assert_eq!(sent.iter().map(|e| e.sequence).collect::<Vec<_>>(), vec![1, 2]);
    for event in &sent {
        assert_eq!(event.event_type, CustomerEventType::MessageStatus);
        assert_eq!(event.deliveries.len(), 1, "one delivery per subscribed endpoint");
        let delivery = &event.deliveries[0];
        assert_eq!(delivery.endpoint_id, endpoint.id);
        assert_eq!(delivery.status, DeliveryStatus::Pending);
        assert_eq!(delivery.attempts, 0);
    }

    let other = new_organization(&ports, "business").await;
    assert!(
        ports
            .owners
            .sent_events(&other.id, &message.id)
            .await
            .expect("sent_events")
            .is_empty(),
        "another organization sees no events of this message"
    );
    let unknown = MessageId::from_ulid(crate::fixtures::next_ulid());
    assert!(
        ports
            .owners
            .sent_events(&org.id, &unknown)
            .await
            .expect("sent_events")
            .is_empty()
    );
}
