//! `Admin`: the operator's commands and the owner's key management.

use super::*;
use crate::organization::SealedSecret;
use crate::ports::{
    MockAccountStore, MockSecretSealer, MockSecretSource, SealContext, SealPurpose, StoreError,
};
use crate::usecases::{Admin, AdminError, NewSender};
use std::sync::Arc;

/// Bytes n, n+1, n+2, … (all below 248, so one fill makes a whole key), with n moving on at every fill:
/// two keys drawn from it differ, as from a real source.
fn counting_secrets() -> MockSecretSource {
    let fills = std::sync::atomic::AtomicU8::new(0);
    let mut secrets = MockSecretSource::new();
    secrets.expect_fill().returning(move |buf: &mut [u8]| {
        let start = usize::from(fills.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        for (i, b) in buf.iter_mut().enumerate() {
            *b = u8::try_from((start + i) % 200).unwrap();
        }
    });
    secrets
}

fn admin(accounts: MockAccountStore) -> Admin {
    admin_with(accounts, counting_secrets())
}

fn admin_with(accounts: MockAccountStore, secrets: MockSecretSource) -> Admin {
    Admin::new(
        Arc::new(accounts),
        Arc::new(clock_at(now())),
        Arc::new(sequential_ids()),
        Arc::new(secrets),
        None,
    )
}

fn admin_sealing(accounts: MockAccountStore, sealer: MockSecretSealer) -> Admin {
    Admin::new(
        Arc::new(accounts),
        Arc::new(clock_at(now())),
        Arc::new(sequential_ids()),
        Arc::new(counting_secrets()),
        Some(Arc::new(sealer)),
    )
}

/// The store knows the test organization (once) and nothing else; no business account has a sender.
fn knows_organization(accounts: &mut MockAccountStore) {
    accounts
        .expect_organization()
        .withf(|id| *id == org_id())
        .times(1)
        .returning(|_| Ok(Some(organization(AccountStatus::Active))));
    accounts
        .expect_business_account_organizations()
        .returning(|_| Ok(Vec::new()));
}

fn knows_no_organization(accounts: &mut MockAccountStore) {
    accounts.expect_organization().times(1).returning(|_| Ok(None));
}

fn has_plan(accounts: &mut MockAccountStore, known: bool) {
    accounts
        .expect_plan()
        .withf(|name| *name == plan_name("starter"))
        .times(1)
        .returning(move |_| Ok(known.then(plan)));
}

// ---- organizations ----

#[test]
fn create_organization_with_an_unknown_plan_writes_nothing() {
    let mut accounts = MockAccountStore::new();
    has_plan(&mut accounts, false);
    accounts.expect_create_organization().times(0);

    let result = run(admin(accounts).create_organization(display_name("Acme"), plan_name("starter"), None));

    assert!(
        matches!(&result, Err(AdminError::UnknownPlan(p)) if *p == plan_name("starter")),
        "{result:?}"
    );
}

#[test]
fn create_organization_stores_an_active_organization_with_a_fresh_id() {
    let expected = Organization {
        id: OrganizationId::from_ulid(generated(1)),
        name: display_name("Acme"),
        status: AccountStatus::Active,
        plan: plan_name("starter"),
        owner_email: Some("ops@acme.test".into()),
        created_at: now(),
    };
    let stored = expected.clone();
    let mut accounts = MockAccountStore::new();
    has_plan(&mut accounts, true);
    accounts
        .expect_create_organization()
        .withf(move |org| *org == stored)
        .times(1)
        .returning(|_| Ok(()));

    let result = run(admin(accounts).create_organization(
        display_name("Acme"),
        plan_name("starter"),
        Some("ops@acme.test".into()),
    ));

    assert_eq!(result.unwrap(), expected);
}

#[test]
fn a_duplicate_organization_is_a_conflict() {
    let mut accounts = MockAccountStore::new();
    has_plan(&mut accounts, true);
    accounts
        .expect_create_organization()
        .times(1)
        .returning(|_| Err(StoreError::Conflict("organization id".into())));

    let result = run(admin(accounts).create_organization(display_name("Acme"), plan_name("starter"), None));

    assert!(
        matches!(&result, Err(AdminError::Conflict(what)) if what == "organization id"),
        "{result:?}"
    );
}

#[test]
fn set_account_status_maps_not_found_to_unknown_organization() {
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_set_account_status()
        .withf(|id, status| *id == org_id() && *status == AccountStatus::Suspended)
        .times(1)
        .returning(|_, _| Err(StoreError::NotFound));

    let result = run(admin(accounts).set_account_status(&org_id(), AccountStatus::Suspended));

    assert!(
        matches!(&result, Err(AdminError::UnknownOrganization(id)) if *id == org_id()),
        "{result:?}"
    );
}

#[test]
fn set_account_status_passes_the_status_to_the_store() {
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_set_account_status()
        .withf(|id, status| *id == org_id() && *status == AccountStatus::Closed)
        .times(1)
        .returning(|_, _| Ok(()));

    let result = run(admin(accounts).set_account_status(&org_id(), AccountStatus::Closed));

    assert!(result.is_ok(), "{result:?}");
}

#[test]
fn set_account_status_keeps_other_store_errors() {
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_set_account_status()
        .times(1)
        .returning(|_, _| Err(StoreError::Unavailable("db down".into())));

    let result = run(admin(accounts).set_account_status(&org_id(), AccountStatus::Active));

    assert!(
        matches!(result, Err(AdminError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}

#[test]
fn set_plan_with_an_unknown_plan_changes_nothing() {
    let mut accounts = MockAccountStore::new();
    has_plan(&mut accounts, false);
    accounts.expect_set_plan().times(0);

    let result = run(admin(accounts).set_plan(&org_id(), plan_name("starter")));

    assert!(matches!(result, Err(AdminError::UnknownPlan(_))), "{result:?}");
}

#[test]
fn set_plan_of_an_unknown_organization_is_unknown_organization() {
    let mut accounts = MockAccountStore::new();
    has_plan(&mut accounts, true);
    accounts
        .expect_set_plan()
        .times(1)
        .returning(|_, _| Err(StoreError::NotFound));

    let result = run(admin(accounts).set_plan(&org_id(), plan_name("starter")));

    assert!(
        matches!(&result, Err(AdminError::UnknownOrganization(id)) if *id == org_id()),
        "{result:?}"
    );
}

#[test]
fn set_plan_stores_the_plan() {
    let mut accounts = MockAccountStore::new();
    has_plan(&mut accounts, true);
    accounts
        .expect_set_plan()
        .withf(|id, name| *id == org_id() && *name == plan_name("starter"))
        .times(1)
        .returning(|_, _| Ok(()));

    let result = run(admin(accounts).set_plan(&org_id(), plan_name("starter")));

    assert!(result.is_ok(), "{result:?}");
}

// ---- senders ----

fn new_sender(is_default: bool) -> NewSender {
    NewSender {
        organization_id: org_id(),
        number: phone(SECOND_NUMBER),
        phone_number_id: network_ref("100000009"),
        waba_id: network_ref("200000009"),
        access_token_env: Some("HERALD_TOKEN_2".into()),
        access_token: None,
        is_default,
        throughput_per_second: 80,
        shared_waba: false,
    }
}

fn expected_sender(is_default: bool) -> SenderNumber {
    SenderNumber {
        id: SenderId::from_ulid(generated(1)),
        organization_id: org_id(),
        number: phone(SECOND_NUMBER),
        phone_number_id: network_ref("100000009"),
        waba_id: network_ref("200000009"),
        access_token_env: Some("HERALD_TOKEN_2".into()),
        sealed_access_token: None,
        is_default,
        throughput_per_second: 80,
        created_at: now(),
    }
}

/// A store holding the organization with `existing` senders, that accepts exactly `expected`.
fn store_adding(existing: Vec<SenderNumber>, expected: SenderNumber) -> MockAccountStore {
    let mut accounts = MockAccountStore::new();
    knows_organization(&mut accounts);
    accounts
        .expect_senders()
        .withf(|org| *org == org_id())
        .times(1)
        .returning(move |_| Ok(existing.clone().into()));
    accounts
        .expect_add_sender()
        .withf(move |s| *s == expected)
        .times(1)
        .returning(|_| Ok(()));
    accounts
}

#[test]
fn the_first_sender_becomes_the_default() {
    let accounts = store_adding(Vec::new(), expected_sender(true));

    let result = run(admin(accounts).add_sender(new_sender(false)));

    assert_eq!(result.unwrap(), expected_sender(true));
}

#[test]
fn a_later_sender_is_default_only_when_asked() {
    let accounts = store_adding(vec![sender(1, DEFAULT_NUMBER, true)], expected_sender(false));
    let result = run(admin(accounts).add_sender(new_sender(false)));
    assert_eq!(result.unwrap(), expected_sender(false));

    let accounts = store_adding(vec![sender(1, DEFAULT_NUMBER, true)], expected_sender(true));
    let result = run(admin(accounts).add_sender(new_sender(true)));
    assert_eq!(result.unwrap(), expected_sender(true));
}

#[test]
fn a_sender_for_an_unknown_organization_is_refused_before_any_write() {
    let mut accounts = MockAccountStore::new();
    knows_no_organization(&mut accounts);
    accounts.expect_senders().times(0);
    accounts.expect_add_sender().times(0);

    let result = run(admin(accounts).add_sender(new_sender(false)));

    assert!(
        matches!(&result, Err(AdminError::UnknownOrganization(id)) if *id == org_id()),
        "{result:?}"
    );
}

#[test]
fn a_number_already_registered_is_a_conflict() {
    let mut accounts = MockAccountStore::new();
    knows_organization(&mut accounts);
    accounts
        .expect_senders()
        .times(1)
        .returning(|_| Ok(Vec::new().into()));
    accounts
        .expect_add_sender()
        .times(1)
        .returning(|_| Err(StoreError::Conflict("number +15550002222".into())));

    let result = run(admin(accounts).add_sender(new_sender(false)));

    assert!(
        matches!(&result, Err(AdminError::Conflict(what)) if what.contains("+15550002222")),
        "{result:?}"
    );
}

#[test]
fn a_given_access_token_is_stored_sealed_never_in_plaintext() {
    let mut sealer = MockSecretSealer::new();
    sealer
        .expect_seal()
        .withf(|_, plaintext| plaintext == "EAAG-secret-token")
        .times(1)
        .returning(|_, _| vec![9, 8, 7]);
    sealer.expect_open().times(0);
    let expected = SenderNumber {
        sealed_access_token: Some(SealedSecret::new(vec![9, 8, 7])),
        ..expected_sender(true)
    };
    let accounts = store_adding(Vec::new(), expected.clone());
    let mut new = new_sender(false);
    new.access_token = Some("EAAG-secret-token".into());

    let result = run(admin_sealing(accounts, sealer).add_sender(new));

    assert_eq!(result.unwrap(), expected);
}

#[test]
fn the_token_is_sealed_for_the_id_the_sender_is_stored_with() {
    let sealed_for = Arc::new(std::sync::Mutex::new(None));
    let keep = Arc::clone(&sealed_for);
    let mut sealer = MockSecretSealer::new();
    sealer
        .expect_seal()
        .withf(|context, _| {
            *context == SealContext::sender(&SenderId::from_ulid(generated(1)))
                && context.purpose() == SealPurpose::SenderAccessToken
        })
        .times(1)
        .returning(move |context, _| {
            *keep.lock().unwrap() = Some(context.clone());
            vec![9, 8, 7]
        });
    let stored = Arc::new(std::sync::Mutex::new(None));
    let keep = Arc::clone(&stored);
    let mut accounts = MockAccountStore::new();
    knows_organization(&mut accounts);
    accounts
        .expect_senders()
        .times(1)
        .returning(|_| Ok(Vec::new().into()));
    accounts.expect_add_sender().times(1).returning(move |record| {
        *keep.lock().unwrap() = Some(record.clone());
        Ok(())
    });
    let mut new = new_sender(false);
    new.access_token = Some("EAAG-secret-token".into());

    let added = run(admin_sealing(accounts, sealer).add_sender(new)).unwrap();

    let stored = stored.lock().unwrap().clone().unwrap();
    assert_eq!(stored.id, added.id);
    assert_eq!(
        sealed_for.lock().unwrap().clone(),
        Some(SealContext::sender(&stored.id)),
        "bound to the sender's own id, so it opens for no other row"
    );
}

/// A store holding the test organization, whose sender's business account belongs to `owners` already.
fn account_owned_by(owners: Vec<OrganizationId>) -> MockAccountStore {
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_organization()
        .returning(|_| Ok(Some(organization(AccountStatus::Active))));
    accounts
        .expect_business_account_organizations()
        .withf(|waba| *waba == network_ref("200000009"))
        .times(1)
        .returning(move |_| Ok(owners.clone()));
    accounts.expect_senders().returning(|_| Ok(Vec::new().into()));
    accounts
}

/// One organization per business account: another organization's is refused, naming the owner and the
/// flag that shares it, and nothing is written.
#[test]
fn a_business_account_of_another_organization_is_refused_unless_shared() {
    let owner = OrganizationId::from_ulid(generated(77));
    let mut accounts = account_owned_by(vec![owner]);
    accounts.expect_add_sender().times(0);
    accounts.expect_add_shared_sender().times(0);

    let result = run(admin(accounts).add_sender(new_sender(false)));

    let Err(error) = result else {
        panic!("accepted: {result:?}")
    };
    assert!(
        matches!(error, AdminError::BusinessAccountTaken { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains("200000009")
            && message.contains(&owner.to_string())
            && message.contains("--shared-waba"),
        "{message}"
    );
}

/// With `shared_waba` the sender is added as a share; an organization that already owns (or shares) the
/// account adds another number of it without the flag.
#[test]
fn a_shared_business_account_is_recorded_as_shared_and_its_owners_add_freely() {
    let owner = OrganizationId::from_ulid(generated(77));
    let mut accounts = account_owned_by(vec![owner]);
    accounts.expect_add_sender().times(0);
    accounts.expect_add_shared_sender().times(1).returning(|_| Ok(()));
    let mut shared = new_sender(false);
    shared.shared_waba = true;
    assert!(run(admin(accounts).add_sender(shared)).is_ok());

    let mut accounts = account_owned_by(vec![owner, org_id()]);
    accounts.expect_add_shared_sender().times(0);
    accounts.expect_add_sender().times(1).returning(|_| Ok(()));
    assert!(run(admin(accounts).add_sender(new_sender(false))).is_ok());
}

#[test]
fn a_token_without_a_sealer_is_refused_before_any_read_or_write() {
    let mut accounts = MockAccountStore::new();
    accounts.expect_organization().times(0);
    accounts.expect_senders().times(0);
    accounts.expect_add_sender().times(0);
    let mut new = new_sender(false);
    new.access_token = Some("EAAG-secret-token".into());

    let result = run(admin(accounts).add_sender(new));

    assert!(matches!(result, Err(AdminError::NoSealer)), "{result:?}");
}

#[test]
fn a_new_sender_debug_hides_its_token() {
    let mut new = new_sender(false);
    new.access_token = Some("EAAG-secret-token".into());
    let printed = format!("{new:?}");
    assert!(!printed.contains("EAAG-secret-token"), "{printed}");
    assert!(printed.contains("[redacted]"), "{printed}");
    assert!(printed.contains("HERALD_TOKEN_2"), "{printed}");
}

// ---- keys ----

#[test]
fn create_key_stores_the_digest_and_prefix_of_the_returned_key() {
    let seen = Arc::new(std::sync::Mutex::new(None));
    let keep = Arc::clone(&seen);
    let mut accounts = MockAccountStore::new();
    knows_organization(&mut accounts);
    accounts
        .expect_create_api_key()
        .times(1)
        .returning(move |record| {
            *keep.lock().unwrap() = Some(record.clone());
            Ok(())
        });

    let (record, key) = run(admin(accounts).create_key(&org_id(), Some(display_name("ci")))).unwrap();

    let stored = seen.lock().unwrap().clone().unwrap();
    assert_eq!(stored, record);
    assert!(ApiKey::parse(key.expose()).is_ok());
    assert_eq!(
        record,
        ApiKeyRecord {
            id: ApiKeyId::from_ulid(generated(1)),
            organization_id: org_id(),
            name: Some(display_name("ci")),
            prefix: key.public_prefix(),
            digest: key.digest(),
            status: ApiKeyStatus::Active,
            created_at: now(),
            last_used_at: None,
            disabled_at: None,
        }
    );
    assert!(record.prefix.starts_with("hk_live_") && record.prefix.len() == 12);
}

#[test]
fn keys_are_made_from_the_secret_source() {
    // Two different byte streams give two different keys: the secret comes from the port, not a constant.
    let make = |offset: u8| {
        let mut secrets = MockSecretSource::new();
        secrets.expect_fill().times(1..).returning(move |buf: &mut [u8]| {
            for (i, b) in buf.iter_mut().enumerate() {
                *b = (u8::try_from(i).unwrap() + offset) % 200;
            }
        });
        let mut accounts = MockAccountStore::new();
        knows_organization(&mut accounts);
        accounts.expect_create_api_key().times(1).returning(|_| Ok(()));
        run(admin_with(accounts, secrets).create_key(&org_id(), None))
            .unwrap()
            .1
    };

    assert_ne!(make(0).expose(), make(7).expose());
}

#[test]
fn create_key_for_an_unknown_organization_makes_no_secret_and_writes_nothing() {
    let mut accounts = MockAccountStore::new();
    knows_no_organization(&mut accounts);
    accounts.expect_create_api_key().times(0);
    let mut secrets = MockSecretSource::new();
    secrets.expect_fill().times(0);

    let result = run(admin_with(accounts, secrets).create_key(&org_id(), None));

    assert!(
        matches!(result, Err(AdminError::UnknownOrganization(_))),
        "{result:?}"
    );
}

#[test]
fn a_duplicate_key_is_a_conflict() {
    let mut accounts = MockAccountStore::new();
    knows_organization(&mut accounts);
    accounts
        .expect_create_api_key()
        .times(1)
        .returning(|_| Err(StoreError::Conflict("digest".into())));

    let result = run(admin(accounts).create_key(&org_id(), None));

    assert!(matches!(result, Err(AdminError::Conflict(_))), "{result:?}");
}

#[test]
fn list_keys_needs_the_organization() {
    let mut accounts = MockAccountStore::new();
    knows_no_organization(&mut accounts);
    accounts.expect_api_keys().times(0);
    let result = run(admin(accounts).list_keys(&org_id()));
    assert!(
        matches!(result, Err(AdminError::UnknownOrganization(_))),
        "{result:?}"
    );

    let record = key_record(&api_key('a'), ApiKeyStatus::Active, None);
    let listed = vec![record.clone()];
    let mut accounts = MockAccountStore::new();
    knows_organization(&mut accounts);
    accounts
        .expect_api_keys()
        .withf(|org| *org == org_id())
        .times(1)
        .returning(move |_| Ok(listed.clone()));
    let result = run(admin(accounts).list_keys(&org_id()));
    assert_eq!(result.unwrap(), vec![record]);
}

#[test]
fn disable_key_of_an_unknown_key_is_unknown_key() {
    let id = ApiKeyId::from_ulid(ulid(200));
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_disable_api_key()
        .withf(move |k, at| *k == id && *at == now())
        .times(1)
        .returning(|_, _| Err(StoreError::NotFound));

    let result = run(admin(accounts).disable_key(&id));

    assert!(
        matches!(&result, Err(AdminError::UnknownKey(k)) if *k == id),
        "{result:?}"
    );
}

#[test]
fn disable_key_returns_the_record_as_the_store_left_it() {
    let mut disabled = key_record(&api_key('a'), ApiKeyStatus::Disabled, None);
    disabled.disabled_at = Some(now());
    let id = disabled.id;
    let answer = disabled.clone();
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_disable_api_key()
        .withf(move |k, at| *k == id && *at == now())
        .times(1)
        .returning(move |_, _| Ok(answer.clone()));

    let result = run(admin(accounts).disable_key(&id));

    assert_eq!(result.unwrap(), disabled);
}

#[test]
fn disable_key_keeps_other_store_errors() {
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_disable_api_key()
        .times(1)
        .returning(|_, _| Err(StoreError::Unavailable("db down".into())));

    let result = run(admin(accounts).disable_key(&ApiKeyId::from_ulid(ulid(200))));

    assert!(
        matches!(result, Err(AdminError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}
