//! The send path's read cache (`StoreOptions::read_cache`): a process sees its own key disables and
//! suspensions at once, and another process's within the cache's lifetime (docs/api.md §1), on a real SQLite
//! file shared by two stores as two processes would share it.

use herald_domain::api_key::{ApiKey, ApiKeyRecord, ApiKeyStatus};
use herald_domain::organization::AccountStatus;
use herald_store::{Store, StoreOptions};
use herald_testkit::fixtures;
use std::time::Duration;

/// Two stores on one SQLite file, as two processes would open it, each with `read_cache`.
async fn two_stores(read_cache: Option<Duration>) -> (tempfile::TempDir, Store, Store) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/herald.db", dir.path().display());
    let options = StoreOptions {
        read_cache,
        ..StoreOptions::default()
    };
    let first = Store::connect(&url, &options).await.unwrap();
    first.migrate().await.unwrap();
    let second = Store::connect(&url, &options).await.unwrap();
    (dir, first, second)
}

/// An organization with one key, made through `store`.
async fn key_of_new_organization(store: &Store) -> (ApiKeyRecord, ApiKey) {
    let org = fixtures::organization("business");
    store.accounts().create_organization(&org).await.unwrap();
    let (record, key) = fixtures::api_key(org.id);
    store.accounts().create_api_key(&record).await.unwrap();
    (record, key)
}

#[tokio::test]
async fn a_change_made_through_the_same_store_is_seen_at_once() {
    let (_dir, store, _) = two_stores(Some(Duration::from_secs(60))).await;
    let accounts = store.accounts();
    let org = fixtures::organization("business");
    accounts.create_organization(&org).await.unwrap();
    let (record, key) = fixtures::api_key(org.id);
    accounts.create_api_key(&record).await.unwrap();
    accounts
        .add_sender(&fixtures::sender(org.id, "+15550001111", true))
        .await
        .unwrap();

    let found = accounts.find_credential(&key.digest()).await.unwrap().unwrap();
    assert_eq!(found.key.status, ApiKeyStatus::Active);
    assert_eq!(accounts.senders(&org.id).await.unwrap().len(), 1);

    // Every write evicts what it changed, though the entries have a minute left to live.
    accounts
        .disable_api_key(&record.id, fixtures::t0())
        .await
        .unwrap();
    let found = accounts.find_credential(&key.digest()).await.unwrap().unwrap();
    assert_eq!(found.key.status, ApiKeyStatus::Disabled);

    accounts
        .set_account_status(&org.id, AccountStatus::Suspended)
        .await
        .unwrap();
    let found = accounts.find_credential(&key.digest()).await.unwrap().unwrap();
    assert_eq!(found.organization.status, AccountStatus::Suspended);

    let mut plan = found.plan.clone();
    plan.media_storage_bytes = Some(1);
    accounts.put_plan(&plan).await.unwrap();
    let found = accounts.find_credential(&key.digest()).await.unwrap().unwrap();
    assert_eq!(
        found.plan, plan,
        "a plan's new limits reach its cached credentials"
    );

    accounts
        .add_sender(&fixtures::sender(org.id, "+15550002222", false))
        .await
        .unwrap();
    assert_eq!(accounts.senders(&org.id).await.unwrap().len(), 2);
}

#[tokio::test]
async fn another_stores_change_is_seen_once_the_entry_expires() {
    let ttl = Duration::from_millis(700);
    let (_dir, api, admin) = two_stores(Some(ttl)).await;
    let (record, key) = key_of_new_organization(&admin).await;

    // A key created elsewhere works at once: unknown keys are never cached.
    assert!(
        api.accounts()
            .find_credential(&key.digest())
            .await
            .unwrap()
            .is_some()
    );

    admin
        .accounts()
        .disable_api_key(&record.id, fixtures::t0())
        .await
        .unwrap();
    // The other store reuses its read (this is what the cache is for) ...
    let cached = api
        .accounts()
        .find_credential(&key.digest())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(cached.key.status, ApiKeyStatus::Active, "the read was not cached");
    // ... but never past its lifetime.
    tokio::time::sleep(ttl).await;
    let fresh = api
        .accounts()
        .find_credential(&key.digest())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(fresh.key.status, ApiKeyStatus::Disabled);
}

#[tokio::test]
async fn without_the_cache_every_read_goes_to_the_store() {
    let (_dir, api, admin) = two_stores(None).await;
    let (record, key) = key_of_new_organization(&admin).await;
    assert!(
        api.accounts()
            .find_credential(&key.digest())
            .await
            .unwrap()
            .is_some()
    );
    admin
        .accounts()
        .disable_api_key(&record.id, fixtures::t0())
        .await
        .unwrap();
    let found = api
        .accounts()
        .find_credential(&key.digest())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.key.status, ApiKeyStatus::Disabled);
}

/// A template notice changes the copy outside `TemplateStore`: the cached copy must not outlive it in the
/// process that recorded it (a send right after an approval sees `APPROVED`).
#[tokio::test]
async fn a_template_notice_recorded_through_the_same_store_is_seen_at_once() {
    use herald_domain::ids::EventId;
    use herald_domain::network::{AccountNotice, NoticeChange, NoticeTemplate};
    use herald_domain::notice::NoticeRecord;
    use herald_domain::template::TemplateStatus;

    let (_dir, store, _) = two_stores(Some(Duration::from_secs(60))).await;
    let org = fixtures::organization("business");
    store.accounts().create_organization(&org).await.unwrap();
    let sender = fixtures::sender(org.id, "+15550001111", true);
    store.accounts().add_sender(&sender).await.unwrap();
    let copy = fixtures::template_hello_world(org.id, &sender.waba_id);
    store
        .templates()
        .replace_templates(&org.id, &sender.waba_id, std::slice::from_ref(&copy))
        .await
        .unwrap();
    let read = || {
        let templates = store.templates();
        let (org, waba, name, language) = (
            org.id,
            sender.waba_id.clone(),
            copy.name.clone(),
            copy.language.clone(),
        );
        async move {
            templates
                .template(&org, &waba, &name, &language)
                .await
                .unwrap()
                .unwrap()
        }
    };
    assert_eq!(read().await.status.as_str(), "APPROVED");

    let paused = NoticeRecord {
        organization_id: org.id,
        event_id: EventId::from_ulid(fixtures::next_ulid()),
        recorded_at: fixtures::t0(),
        notice: AccountNotice {
            waba_id: sender.waba_id.clone(),
            occurred_at: fixtures::t0(),
            dedupe_key: "k".into(),
            change: NoticeChange::TemplateStatus {
                template: NoticeTemplate {
                    network_id: None,
                    name: copy.name.clone(),
                    language: copy.language.clone(),
                },
                status: TemplateStatus::parse("PAUSED").unwrap(),
                reason: None,
                info: None,
            },
        },
        sender: None,
    };
    assert!(store.tracking().record_notice(&paused).await.unwrap());
    assert_eq!(
        read().await.status.as_str(),
        "PAUSED",
        "the entry had a minute left to live"
    );
}

/// A status callback finds its business number by the network's phone number id: the read is reused within
/// the cache's lifetime (another process's change shows once it expires), a change made through this store is
/// seen at once, and an unknown number is asked of the store every time.
#[tokio::test]
async fn a_number_found_by_its_network_id_is_reused_and_forgotten_on_a_change_here() {
    use herald_domain::organization::SealedSecret;
    let ttl = Duration::from_millis(700);
    let (_dir, api, admin) = two_stores(Some(ttl)).await;
    let org = fixtures::organization("business");
    admin.accounts().create_organization(&org).await.unwrap();
    let sender = herald_domain::organization::SenderNumber {
        sealed_access_token: Some(SealedSecret::new(b"first".to_vec())),
        ..fixtures::sender(org.id, "+15550001111", true)
    };
    let by_id = |store: &Store| {
        let accounts = store.accounts();
        let id = sender.phone_number_id.clone();
        async move {
            accounts
                .sender_by_phone_number_id(&id)
                .await
                .unwrap()
                .map(|s| s.sealed_access_token.map(SealedSecret::into_bytes))
        }
    };
    assert_eq!(by_id(&api).await, None);
    admin.accounts().add_sender(&sender).await.unwrap();
    assert_eq!(
        by_id(&api).await,
        Some(Some(b"first".to_vec())),
        "a miss is never cached: a number added elsewhere is found at once"
    );

    let replace = |store: &Store, from: &'static [u8], to: &'static [u8]| {
        let accounts = store.accounts();
        let (org, id) = (sender.organization_id, sender.id);
        async move {
            assert!(
                accounts
                    .replace_sealed_access_token(
                        &org,
                        &id,
                        &SealedSecret::new(from.to_vec()),
                        &SealedSecret::new(to.to_vec()),
                    )
                    .await
                    .unwrap()
            );
        }
    };
    replace(&admin, b"first", b"second").await;
    assert_eq!(
        by_id(&api).await,
        Some(Some(b"first".to_vec())),
        "another process's change: the read is reused"
    );
    tokio::time::sleep(ttl).await;
    assert_eq!(
        by_id(&api).await,
        Some(Some(b"second".to_vec())),
        "... until it expires"
    );

    replace(&api, b"second", b"third").await;
    assert_eq!(
        by_id(&api).await,
        Some(Some(b"third".to_vec())),
        "a change through this store is seen at once"
    );
}
