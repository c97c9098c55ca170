//! `OwnerAccess`: setting the owner's password, login, sessions and their expiry.

use super::*;
use crate::owner::{DashboardSession, OwnerAccount, OwnerEmail, PasswordHash, SessionDigest};
use crate::ports::{MockAccountStore, MockOwnerStore, MockPasswordHasher, MockSecretSource};
use crate::time::Duration;
use crate::usecases::{LoginError, OwnerAccess, OwnerError, SessionError, SessionSettings};
use std::sync::Arc;

fn email() -> OwnerEmail {
    OwnerEmail::parse("owner@example.com").unwrap()
}

fn owned_organization() -> Organization {
    Organization {
        owner_email: Some("Owner@Example.com".to_owned()),
        ..organization(AccountStatus::Active)
    }
}

fn secrets() -> MockSecretSource {
    let mut secrets = MockSecretSource::new();
    let fills = std::sync::atomic::AtomicU8::new(0);
    secrets
        .expect_fill()
        .returning(move |buf: &mut [u8]| buf.fill(fills.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    secrets
}

fn access(
    accounts: MockAccountStore,
    owners: MockOwnerStore,
    hasher: MockPasswordHasher,
    at: Timestamp,
) -> OwnerAccess {
    OwnerAccess::new(
        Arc::new(accounts),
        Arc::new(owners),
        Arc::new(hasher),
        Arc::new(clock_at(at)),
        Arc::new(secrets()),
        SessionSettings::default(),
    )
}

fn stored_owner() -> OwnerAccount {
    OwnerAccount {
        organization_id: org_id(),
        email: email(),
        password_hash: PasswordHash::new("$argon2id$stored"),
        password_set_at: now(),
    }
}

fn session(created: Timestamp, last_seen: Timestamp) -> DashboardSession {
    DashboardSession {
        digest: SessionDigest::of("token"),
        organization_id: org_id(),
        email: email(),
        csrf_token: "csrf".to_owned(),
        created_at: created,
        last_seen_at: last_seen,
        expires_at: created + Duration::hours(12),
    }
}

#[test]
fn the_password_is_hashed_and_stored_for_the_owner_email_only() {
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_organization()
        .returning(|_| Ok(Some(owned_organization())));
    let mut hasher = MockPasswordHasher::new();
    hasher
        .expect_hash()
        .withf(|p| p == "long enough password")
        .times(1)
        .returning(|_| Ok(PasswordHash::new("$argon2id$new")));
    let mut owners = MockOwnerStore::new();
    owners
        .expect_set_owner()
        .withf(|o| {
            o.email == email() && o.password_hash.as_str() == "$argon2id$new" && o.organization_id == org_id()
        })
        .times(1)
        .returning(|_| Ok(()));
    let access = access(accounts, owners, hasher, now());
    run(access.set_password(&org_id(), &email(), "long enough password")).unwrap();

    let refused = run(access.set_password(
        &org_id(),
        &OwnerEmail::parse("x@example.com").unwrap(),
        "long enough password",
    ));
    assert!(
        matches!(refused, Err(OwnerError::NotTheOwner { .. })),
        "{refused:?}"
    );
    let short = run(access.set_password(&org_id(), &email(), "too short"));
    assert!(matches!(short, Err(OwnerError::WeakPassword { .. })), "{short:?}");
}

#[test]
fn every_login_failure_is_the_same_error_after_the_same_work() {
    let mut owners = MockOwnerStore::new();
    owners
        .expect_owner_by_email()
        .returning(|e| Ok((e == &email()).then(stored_owner)));
    owners.expect_create_session().times(0);
    let mut hasher = MockPasswordHasher::new();
    // Unknown email and malformed email still cost one verification (against no hash).
    hasher
        .expect_verify()
        .withf(|_, hash| hash.is_none())
        .times(2)
        .returning(|_, _| false);
    hasher
        .expect_verify()
        .withf(|_, hash| hash.is_some())
        .times(1)
        .returning(|_, _| false);
    let access = access(MockAccountStore::new(), owners, hasher, now());
    for (email, password) in [
        ("nobody@example.com", "whatever password"),
        ("not an email", "whatever password"),
        ("owner@example.com", "wrong password"),
    ] {
        let refused = run(access.login(email, password));
        assert!(
            matches!(refused, Err(LoginError::Invalid)),
            "{email}: {refused:?}"
        );
    }
}

#[test]
fn a_login_opens_a_session_stored_by_digest_only() {
    let mut owners = MockOwnerStore::new();
    owners
        .expect_owner_by_email()
        .returning(|_| Ok(Some(stored_owner())));
    owners
        .expect_delete_expired_sessions()
        .withf(|idle_before, at| *idle_before == now() - Duration::minutes(30) && *at == now())
        .times(1)
        .returning(|_, _| Ok(0));
    owners
        .expect_create_session()
        .withf(|s| {
            s.organization_id == org_id()
                && s.expires_at == now() + Duration::hours(12)
                && s.last_seen_at == now()
        })
        .times(1)
        .returning(|_| Ok(()));
    let mut hasher = MockPasswordHasher::new();
    hasher.expect_verify().returning(|_, _| true);
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_organization()
        .returning(|_| Ok(Some(owned_organization())));
    let access = access(accounts, owners, hasher, now());
    let new = run(access.login(" OWNER@example.com", "the password")).unwrap();
    assert_eq!(new.session.digest, SessionDigest::of(&new.token));
    assert_eq!(new.token.len(), 43, "256 bits, base64url");
    assert_ne!(new.session.csrf_token, new.token);
    assert!(
        !format!("{new:?}").contains(&new.token),
        "the token is never in Debug output"
    );
    assert!(
        !format!("{new:?}").contains(&new.session.csrf_token),
        "nor the CSRF token"
    );
}

#[test]
fn a_closed_organizations_owner_cannot_log_in() {
    let mut owners = MockOwnerStore::new();
    owners
        .expect_owner_by_email()
        .returning(|_| Ok(Some(stored_owner())));
    owners.expect_create_session().times(0);
    let mut hasher = MockPasswordHasher::new();
    hasher.expect_verify().returning(|_, _| true);
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_organization()
        .returning(|_| Ok(Some(organization(AccountStatus::Closed))));
    let refused = run(access(accounts, owners, hasher, now()).login("owner@example.com", "the password"));
    assert!(matches!(refused, Err(LoginError::Invalid)));
}

/// Idle and absolute expiry; a live session's activity is written at most every 30 seconds.
#[test]
fn sessions_expire_idle_and_absolutely() {
    let cases = [
        // (created, last seen, now, live?, touched?)
        (now(), now(), now() + seconds(10), true, false),
        (now(), now(), now() + seconds(31), true, true),
        (now(), now(), now() + Duration::minutes(30), false, false),
        (
            now(),
            now() + Duration::hours(11) + Duration::minutes(50),
            now() + Duration::hours(12),
            false,
            false,
        ),
    ];
    for (created, last_seen, at, live, touched) in cases {
        let mut owners = MockOwnerStore::new();
        owners
            .expect_session()
            .returning(move |_| Ok(Some(session(created, last_seen))));
        owners
            .expect_touch_session()
            .times(usize::from(touched))
            .returning(|_, _| Ok(()));
        owners
            .expect_delete_session()
            .times(usize::from(!live))
            .returning(|_| Ok(()));
        let access = access(MockAccountStore::new(), owners, MockPasswordHasher::new(), at);
        let result = run(access.session("token"));
        assert_eq!(result.is_ok(), live, "at {at}: {result:?}");
        if !live {
            assert!(matches!(result, Err(SessionError::NoSession)));
        }
    }
}
