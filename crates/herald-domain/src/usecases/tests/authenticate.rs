//! `Authenticate`: every refusal of docs/api.md §1, and when `last_used_at` is written.

use super::*;
use crate::api_key::ApiKeyDigest;
use crate::ports::{Credential, MockAccountStore, StoreError};
use crate::usecases::{Admission, AuthError, Authenticate, Authenticated};
use std::sync::Arc;

fn credential(
    key: &ApiKey,
    status: ApiKeyStatus,
    org: AccountStatus,
    last_used: Option<Timestamp>,
) -> Credential {
    Credential {
        key: key_record(key, status, last_used),
        organization: organization(org),
        plan: plan(),
    }
}

/// A store that finds `found` under `key`'s digest, once.
fn store_finding(key: &ApiKey, found: Option<Credential>) -> MockAccountStore {
    let digest = key.digest();
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_find_credential()
        .withf(move |d: &ApiKeyDigest| *d == digest)
        .times(1)
        .returning(move |_| Ok(found.clone()));
    accounts
}

fn authenticate(accounts: MockAccountStore) -> Authenticate {
    Authenticate::new(Arc::new(accounts), Arc::new(clock_at(now())))
}

#[test]
fn a_malformed_token_is_unauthenticated_without_asking_the_store() {
    for token in [
        "",
        "hk_live_",
        "hk_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "hk_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "Bearer hk_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ] {
        let mut accounts = MockAccountStore::new();
        accounts.expect_find_credential().times(0);
        accounts.expect_touch_api_key().times(0);

        let result = run(authenticate(accounts).execute(token));

        assert!(
            matches!(result, Err(AuthError::Unauthenticated)),
            "{token:?}: {result:?}"
        );
    }
}

#[test]
fn a_well_formed_key_matching_nothing_is_unauthenticated() {
    let key = api_key('a');
    let mut accounts = store_finding(&key, None);
    accounts.expect_touch_api_key().times(0);

    let result = run(authenticate(accounts).execute(key.expose()));

    assert!(matches!(result, Err(AuthError::Unauthenticated)), "{result:?}");
}

#[test]
fn an_unknown_key_is_not_looked_up_again_until_the_negative_cache_expires() {
    use crate::usecases::UNKNOWN_KEY_TTL_SECONDS;
    use std::sync::atomic::{AtomicI64, Ordering};
    let key = api_key('a');
    let digest = key.digest();
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_find_credential()
        .withf(move |d: &ApiKeyDigest| *d == digest)
        .times(2)
        .returning(|_| Ok(None));
    accounts.expect_touch_api_key().times(0);
    let elapsed = Arc::new(AtomicI64::new(0));
    let mut clock = MockClock::new();
    let seen = elapsed.clone();
    clock
        .expect_now()
        .returning(move || now() + seconds(seen.load(Ordering::SeqCst)));
    let authenticate = Authenticate::new(Arc::new(accounts), Arc::new(clock));

    for at in [0, 1, UNKNOWN_KEY_TTL_SECONDS - 1, UNKNOWN_KEY_TTL_SECONDS] {
        elapsed.store(at, Ordering::SeqCst);
        let result = run(authenticate.execute(key.expose()));
        assert!(
            matches!(result, Err(AuthError::Unauthenticated)),
            "{at}: {result:?}"
        );
    }
    // The store was asked at 0 and again once the entry had expired, not in between (`times(2)`).
}

#[test]
fn a_known_key_is_never_held_by_the_negative_cache() {
    let key = api_key('a');
    let found = credential(&key, ApiKeyStatus::Active, AccountStatus::Active, Some(now()));
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_find_credential()
        .times(3)
        .returning(move |_| Ok(Some(found.clone())));
    let authenticate = authenticate(accounts);
    for _ in 0..3 {
        assert!(run(authenticate.execute(key.expose())).is_ok());
    }
}

#[test]
fn a_credential_whose_digest_differs_is_unauthenticated() {
    // A store lookup that returns a near-miss row must not let the caller in.
    let key = api_key('a');
    let other = api_key('b');
    let mut accounts = store_finding(
        &key,
        Some(credential(
            &other,
            ApiKeyStatus::Active,
            AccountStatus::Active,
            None,
        )),
    );
    accounts.expect_touch_api_key().times(0);

    let result = run(authenticate(accounts).execute(key.expose()));

    assert!(matches!(result, Err(AuthError::Unauthenticated)), "{result:?}");
}

#[test]
fn a_disabled_key_is_refused_before_the_organization_is_looked_at() {
    for org in [AccountStatus::Active, AccountStatus::Suspended] {
        let key = api_key('a');
        let mut accounts = store_finding(&key, Some(credential(&key, ApiKeyStatus::Disabled, org, None)));
        accounts.expect_touch_api_key().times(0);

        let result = run(authenticate(accounts).execute(key.expose()));

        assert!(
            matches!(result, Err(AuthError::KeyDisabled)),
            "{org:?}: {result:?}"
        );
    }
}

#[test]
fn a_key_of_a_suspended_or_closed_organization_is_account_inactive() {
    for org in [AccountStatus::Suspended, AccountStatus::Closed] {
        let key = api_key('a');
        let mut accounts = store_finding(&key, Some(credential(&key, ApiKeyStatus::Active, org, None)));
        accounts.expect_touch_api_key().times(0);

        let result = run(authenticate(accounts).execute(key.expose()));

        assert!(
            matches!(result, Err(AuthError::AccountInactive)),
            "{org:?}: {result:?}"
        );
    }
}

#[test]
fn an_erasure_admits_a_suspended_or_closed_organization_but_not_a_disabled_key() {
    for org in [AccountStatus::Suspended, AccountStatus::Closed] {
        let key = api_key('a');
        let found = credential(&key, ApiKeyStatus::Active, org, Some(now() - seconds(5)));
        let mut accounts = store_finding(&key, Some(found.clone()));
        accounts.expect_touch_api_key().times(0);

        let result = run(authenticate(accounts).execute_admitting(key.expose(), Admission::AnyState));

        let Ok(scope) = result else {
            panic!("{org:?}: expected success, got {result:?}");
        };
        assert_eq!(scope.organization, found.organization, "{org:?}");

        let mut accounts = store_finding(&key, Some(credential(&key, ApiKeyStatus::Disabled, org, None)));
        accounts.expect_touch_api_key().times(0);
        let result = run(authenticate(accounts).execute_admitting(key.expose(), Admission::AnyState));
        assert!(
            matches!(result, Err(AuthError::KeyDisabled)),
            "{org:?}: {result:?}"
        );
    }
}

#[test]
fn an_active_key_yields_its_organization_plan_and_key_id() {
    let key = api_key('a');
    let found = credential(
        &key,
        ApiKeyStatus::Active,
        AccountStatus::Active,
        Some(now() - seconds(5)),
    );
    let mut accounts = store_finding(&key, Some(found.clone()));
    accounts.expect_touch_api_key().times(0);

    let result = run(authenticate(accounts).execute(key.expose()));

    let Ok(scope) = result else {
        panic!("expected success, got {result:?}");
    };
    assert_eq!(
        scope,
        Authenticated {
            organization: found.organization,
            plan: found.plan,
            key_id: found.key.id,
        }
    );
}

#[test]
fn last_used_is_written_when_never_set_or_stale_and_not_when_fresh() {
    let cases = [
        (None, true),
        (Some(now() - seconds(3_600)), true),
        (Some(now() - seconds(61)), true),
        (Some(now() - seconds(59)), false),
        (Some(now()), false),
    ];
    for (last_used, touched) in cases {
        let key = api_key('a');
        let found = credential(&key, ApiKeyStatus::Active, AccountStatus::Active, last_used);
        let key_id = found.key.id;
        let mut accounts = store_finding(&key, Some(found));
        accounts
            .expect_touch_api_key()
            .withf(move |id, at| *id == key_id && *at == now())
            .times(usize::from(touched))
            .returning(|_, _| Ok(()));

        let result = run(authenticate(accounts).execute(key.expose()));

        assert!(result.is_ok(), "{last_used:?}: {result:?}");
    }
}

#[test]
fn a_store_failure_is_propagated() {
    let key = api_key('a');
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_find_credential()
        .times(1)
        .returning(|_| Err(StoreError::Unavailable("db down".into())));
    accounts.expect_touch_api_key().times(0);

    let result = run(authenticate(accounts).execute(key.expose()));

    assert!(
        matches!(result, Err(AuthError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}

#[test]
fn a_failed_last_used_write_does_not_lock_the_key_out() {
    let key = api_key('a');
    let mut accounts = store_finding(
        &key,
        Some(credential(
            &key,
            ApiKeyStatus::Active,
            AccountStatus::Active,
            None,
        )),
    );
    accounts
        .expect_touch_api_key()
        .times(1)
        .returning(|_, _| Err(StoreError::Unavailable("db down".into())));

    let result = run(authenticate(accounts).execute(key.expose()));

    assert!(
        result.is_ok(),
        "bookkeeping must not refuse a valid key: {result:?}"
    );
}
