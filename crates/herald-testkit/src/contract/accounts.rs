//! `AccountStore`: plans, organizations, senders, API keys.

use super::{Ports, new_organization};
use crate::fixtures::{
    self, SIMULATOR_SENDER_1, SIMULATOR_SENDER_2, api_key, at, next_ulid, organization, plan_name, sender,
};
use herald_domain::api_key::{ApiKeyRecord, ApiKeyStatus};
use herald_domain::ids::{ApiKeyId, OrganizationId};
use herald_domain::organization::{
    AccountStatus, MessageKind, Organization, Plan, SealedSecret, SenderNumber,
};
use herald_domain::ports::StoreError;

/// The seeded plans are exactly those of docs/api.md §8, listed by name, each readable alone.
pub async fn accounts_plans_are_seeded(ports: Ports) {
    let mut expected = Plan::defaults();
    expected.sort_by(|a, b| a.name.cmp(&b.name));
    let plans = ports.accounts.plans().await.expect("plans");
    assert_eq!(
        plans, expected,
        "plans() must answer the seeded plans of docs/api.md §8, ordered by name"
    );
    for plan in &expected {
        let read = ports.accounts.plan(&plan.name).await.expect("plan");
        assert_eq!(
            read.as_ref(),
            Some(plan),
            "plan({}) must answer the seeded plan",
            plan.name
        );
    }
    let trial = ports
        .accounts
        .plan(&plan_name("trial"))
        .await
        .expect("plan")
        .expect("trial is seeded");
    assert_eq!(
        (
            trial.rate_per_second,
            trial.burst,
            trial.monthly_quota,
            trial.webhook_endpoints
        ),
        (1, 5, Some(1_000), 1),
        "trial is 1/s (burst 5), 1,000 a month, 1 endpoint"
    );
    assert!(!trial.allows(MessageKind::Media), "trial does not allow media");
    let enterprise = ports
        .accounts
        .plan(&plan_name("enterprise"))
        .await
        .expect("plan")
        .expect("seeded");
    assert_eq!(
        enterprise.monthly_quota, None,
        "enterprise is unlimited (NULL quota must read back as None)"
    );
    let unknown = ports.accounts.plan(&plan_name("platinum")).await.expect("plan");
    assert_eq!(unknown, None, "an unknown plan must answer None");
}

/// `put_plan` creates a plan, and replaces every limit of an existing one, which organizations on it see.
pub async fn accounts_put_plan_creates_and_replaces(ports: Ports) {
    let name = plan_name(&format!("custom-{}", next_ulid().to_string().to_lowercase()));
    let mut plan = Plan {
        name: name.clone(),
        monthly_quota: None,
        media_storage_bytes: None,
        ..Plan::defaults().remove(1)
    };
    ports.accounts.put_plan(&plan).await.expect("put_plan creates");
    assert_eq!(
        ports.accounts.plan(&name).await.expect("plan"),
        Some(plan.clone())
    );
    let org = new_organization(&ports, name.as_str()).await;
    let (record, key) = api_key(org.id);
    ports
        .accounts
        .create_api_key(&record)
        .await
        .expect("create_api_key");

    plan.rate_per_second = 7;
    plan.burst = 9;
    plan.monthly_quota = Some(123);
    plan.media_allowed = false;
    plan.max_file_bytes = 1_000;
    plan.webhook_endpoints = 0;
    plan.media_storage_bytes = Some(4_321);
    ports.accounts.put_plan(&plan).await.expect("put_plan replaces");
    assert_eq!(
        ports.accounts.plan(&name).await.expect("plan"),
        Some(plan.clone()),
        "every limit is replaced"
    );
    let credential = ports
        .accounts
        .find_credential(&key.digest())
        .await
        .expect("find_credential")
        .expect("found");
    assert_eq!(
        credential.plan, plan,
        "the organization's key sees the new limits"
    );
    assert_eq!(
        ports
            .accounts
            .plans()
            .await
            .expect("plans")
            .iter()
            .filter(|p| p.name == name)
            .count(),
        1,
        "a replaced plan is listed once"
    );
}

/// Organizations read back exactly as created, and list oldest first.
pub async fn accounts_organizations_create_get_list(ports: Ports) {
    let first = Organization {
        created_at: at(0),
        ..organization("trial")
    };
    let second = Organization {
        created_at: at(10),
        owner_email: None,
        ..organization("enterprise")
    };
    for org in [&first, &second] {
        ports
            .accounts
            .create_organization(org)
            .await
            .expect("create_organization");
    }
    for org in [&first, &second] {
        let read = ports.accounts.organization(&org.id).await.expect("organization");
        assert_eq!(
            read.as_ref(),
            Some(org),
            "organization() must answer the organization as created"
        );
    }
    let unknown = OrganizationId::from_ulid(fixtures::next_ulid());
    assert_eq!(
        ports.accounts.organization(&unknown).await.expect("organization"),
        None
    );
    let listed: Vec<Organization> = ports
        .accounts
        .organizations()
        .await
        .expect("organizations")
        .into_iter()
        .filter(|o| o.id == first.id || o.id == second.id)
        .collect();
    assert_eq!(
        listed,
        vec![first, second],
        "organizations() must list them oldest first"
    );
}

/// A duplicate id is a Conflict and an unknown plan is NotFound; neither writes anything.
pub async fn accounts_create_organization_refusals(ports: Ports) {
    let original = new_organization(&ports, "trial").await;
    let duplicate = Organization {
        plan: plan_name("starter"),
        ..original.clone()
    };
    let result = ports.accounts.create_organization(&duplicate).await;
    assert!(
        matches!(result, Err(StoreError::Conflict(_))),
        "create_organization with an existing id must answer Conflict, got {result:?}"
    );
    let read = ports
        .accounts
        .organization(&original.id)
        .await
        .expect("organization");
    assert_eq!(
        read,
        Some(original),
        "a refused duplicate must not change the existing organization"
    );

    let orphan = organization("platinum");
    let result = ports.accounts.create_organization(&orphan).await;
    assert!(
        matches!(result, Err(StoreError::NotFound)),
        "create_organization on an unknown plan must answer NotFound, got {result:?}"
    );
    let read = ports
        .accounts
        .organization(&orphan.id)
        .await
        .expect("organization");
    assert_eq!(read, None, "an organization refused for its plan must not exist");
}

/// Account status and plan change; unknown organizations and plans answer NotFound.
pub async fn accounts_set_status_and_plan(ports: Ports) {
    let org = new_organization(&ports, "trial").await;
    for status in [
        AccountStatus::Suspended,
        AccountStatus::Closed,
        AccountStatus::Active,
    ] {
        ports
            .accounts
            .set_account_status(&org.id, status)
            .await
            .expect("set_account_status");
        let read = ports
            .accounts
            .organization(&org.id)
            .await
            .expect("organization")
            .expect("exists");
        assert_eq!(read.status, status, "set_account_status must be read back");
    }
    ports
        .accounts
        .set_plan(&org.id, &plan_name("business"))
        .await
        .expect("set_plan");
    let read = ports
        .accounts
        .organization(&org.id)
        .await
        .expect("organization")
        .expect("exists");
    assert_eq!(read.plan, plan_name("business"), "set_plan must be read back");
    assert_eq!(
        read,
        Organization {
            plan: plan_name("business"),
            ..org.clone()
        },
        "set_plan must change nothing but the plan"
    );

    let unknown = OrganizationId::from_ulid(fixtures::next_ulid());
    let result = ports
        .accounts
        .set_account_status(&unknown, AccountStatus::Suspended)
        .await;
    assert!(
        matches!(result, Err(StoreError::NotFound)),
        "set_account_status of an unknown organization must answer NotFound, got {result:?}"
    );
    let result = ports.accounts.set_plan(&unknown, &plan_name("starter")).await;
    assert!(
        matches!(result, Err(StoreError::NotFound)),
        "set_plan of an unknown organization must answer NotFound, got {result:?}"
    );
    let result = ports.accounts.set_plan(&org.id, &plan_name("platinum")).await;
    assert!(
        matches!(result, Err(StoreError::NotFound)),
        "set_plan to an unknown plan must answer NotFound, got {result:?}"
    );
    let read = ports
        .accounts
        .organization(&org.id)
        .await
        .expect("organization")
        .expect("exists");
    assert_eq!(
        read.plan,
        plan_name("business"),
        "a refused set_plan must not change the plan"
    );
}

/// A new default sender unsets the old default; a non-default one changes nothing; oldest first.
pub async fn accounts_senders_default_handling(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    let first = SenderNumber {
        created_at: at(0),
        ..sender(org.id, SIMULATOR_SENDER_1, true)
    };
    let second = SenderNumber {
        created_at: at(1),
        access_token_env: Some("HERALD_TOKEN_SECOND".to_owned()),
        throughput_per_second: 1_000,
        ..sender(org.id, SIMULATOR_SENDER_2, false)
    };
    ports.accounts.add_sender(&first).await.expect("add_sender");
    ports.accounts.add_sender(&second).await.expect("add_sender");
    let listed = ports.accounts.senders(&org.id).await.expect("senders").to_vec();
    assert_eq!(
        listed,
        vec![first.clone(), second.clone()],
        "senders() must list them oldest first, exactly as added; a non-default sender leaves the default alone"
    );

    let third = SenderNumber {
        created_at: at(2),
        ..sender(org.id, "+15550003333", true)
    };
    ports.accounts.add_sender(&third).await.expect("add_sender");
    let listed = ports.accounts.senders(&org.id).await.expect("senders").to_vec();
    let expected = vec![
        SenderNumber {
            is_default: false,
            ..first
        },
        second,
        third,
    ];
    assert_eq!(
        listed, expected,
        "a new default sender must unset the previous default"
    );
    assert_eq!(
        listed.iter().filter(|s| s.is_default).count(),
        1,
        "exactly one default"
    );
}

/// A sender's sealed access token is opaque bytes: every byte value (NUL and bytes that are not UTF-8
/// included) reads back exactly, through every read; a sender without one reads back without one.
pub async fn accounts_sender_sealed_token_round_trips(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    let sealed: Vec<u8> = (0..=255_u8).chain([0, 0xFF, 0x80]).collect();
    let with_token = SenderNumber {
        created_at: at(0),
        sealed_access_token: Some(SealedSecret::new(sealed.clone())),
        ..sender(org.id, SIMULATOR_SENDER_1, true)
    };
    let without_token = SenderNumber {
        created_at: at(1),
        ..sender(org.id, SIMULATOR_SENDER_2, false)
    };
    ports.accounts.add_sender(&with_token).await.expect("add_sender");
    ports
        .accounts
        .add_sender(&without_token)
        .await
        .expect("add_sender");

    let listed = ports.accounts.senders(&org.id).await.expect("senders").to_vec();
    assert_eq!(
        listed,
        vec![with_token.clone(), without_token.clone()],
        "senders() must read the sealed token back exactly, and no token where none was stored"
    );
    assert_eq!(
        listed[0].sealed_access_token.as_ref().map(SealedSecret::as_bytes),
        Some(sealed.as_slice()),
        "the sealed bytes must round-trip byte for byte"
    );
    let routed = ports
        .accounts
        .sender_by_phone_number_id(&with_token.phone_number_id)
        .await
        .expect("sender_by_phone_number_id");
    assert_eq!(
        routed.and_then(|s| s.sealed_access_token),
        Some(SealedSecret::new(sealed)),
        "sender_by_phone_number_id() must carry the sealed token too"
    );
}

/// `replace_sealed_access_token` is a compare and set: it writes only while the stored token is the
/// expected one, answers whether it wrote, and never touches another sender, another organization's sender,
/// or a sender without a token.
pub async fn accounts_replace_sealed_access_token_compares_and_sets(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    let other_org = new_organization(&ports, "starter").await;
    let old = SealedSecret::new(vec![0, 1, 2, 0xFF]);
    let with_token = SenderNumber {
        created_at: at(0),
        sealed_access_token: Some(old.clone()),
        ..sender(org.id, SIMULATOR_SENDER_1, true)
    };
    let neighbour = SenderNumber {
        created_at: at(1),
        sealed_access_token: Some(old.clone()),
        ..sender(org.id, SIMULATOR_SENDER_2, false)
    };
    let without_token = SenderNumber {
        created_at: at(2),
        ..sender(org.id, "+15550009998", false)
    };
    for s in [&with_token, &neighbour, &without_token] {
        ports.accounts.add_sender(s).await.expect("add_sender");
    }
    let new = SealedSecret::new(vec![0, 0x48, 0x53, 0x02, 7, 7]);
    let replace = |org_id, id, expected: SealedSecret, new: SealedSecret| {
        let accounts = ports.accounts.clone();
        async move {
            accounts
                .replace_sealed_access_token(&org_id, &id, &expected, &new)
                .await
                .expect("replace_sealed_access_token")
        }
    };
    let stored = || async {
        ports
            .accounts
            .senders(&org.id)
            .await
            .expect("senders")
            .to_vec()
            .into_iter()
            .map(|s| s.sealed_access_token)
            .collect::<Vec<_>>()
    };
    let before = stored().await;

    assert!(
        !replace(org.id, with_token.id, SealedSecret::new(vec![9]), new.clone()).await,
        "an expected value that does not match must answer false"
    );
    assert!(
        !replace(other_org.id, with_token.id, old.clone(), new.clone()).await,
        "another organization's sender must answer false"
    );
    assert!(
        !replace(org.id, without_token.id, old.clone(), new.clone()).await,
        "a sender without a token must answer false"
    );
    assert_eq!(stored().await, before, "a refused replace changes nothing");

    assert!(
        replace(org.id, with_token.id, old.clone(), new.clone()).await,
        "the expected value matches: replaced"
    );
    assert_eq!(
        stored().await,
        vec![Some(new.clone()), Some(old.clone()), None],
        "only that sender's token changed, byte for byte"
    );
    assert!(
        !replace(org.id, with_token.id, old.clone(), SealedSecret::new(vec![1])).await,
        "a second replace from the old value must lose"
    );
    assert_eq!(stored().await, vec![Some(new), Some(old), None]);
    let routed = ports
        .accounts
        .sender_by_phone_number_id(&with_token.phone_number_id)
        .await
        .expect("sender_by_phone_number_id")
        .expect("the sender");
    assert_eq!(routed.sealed_access_token, stored().await[0]);
}

/// Duplicate numbers within an organization and duplicate phone number ids anywhere are Conflicts that
/// change nothing; an unknown organization is NotFound.
pub async fn accounts_senders_conflicts(ports: Ports) {
    let org_a = new_organization(&ports, "starter").await;
    let org_b = new_organization(&ports, "starter").await;
    let original = sender(org_a.id, SIMULATOR_SENDER_1, true);
    ports.accounts.add_sender(&original).await.expect("add_sender");

    let same_number = sender(org_a.id, SIMULATOR_SENDER_1, true);
    let result = ports.accounts.add_sender(&same_number).await;
    assert!(
        matches!(result, Err(StoreError::Conflict(_))),
        "a number already registered for the organization must answer Conflict, got {result:?}"
    );
    let listed = ports.accounts.senders(&org_a.id).await.expect("senders").to_vec();
    assert_eq!(
        listed,
        vec![original.clone()],
        "a refused default sender must not unset the existing default nor be stored"
    );

    let elsewhere = sender(org_b.id, SIMULATOR_SENDER_1, true);
    ports
        .accounts
        .add_sender(&elsewhere)
        .await
        .expect("the same number in another organization is allowed");

    let same_network_id = SenderNumber {
        phone_number_id: original.phone_number_id.clone(),
        ..sender(org_b.id, "+15550004444", false)
    };
    let result = ports.accounts.add_sender(&same_network_id).await;
    assert!(
        matches!(result, Err(StoreError::Conflict(_))),
        "a phone_number_id registered anywhere (even another organization) must answer Conflict, got {result:?}"
    );
    let listed = ports.accounts.senders(&org_b.id).await.expect("senders").to_vec();
    assert_eq!(listed, vec![elsewhere], "a refused sender must not be stored");

    let orphan = sender(
        OrganizationId::from_ulid(fixtures::next_ulid()),
        SIMULATOR_SENDER_2,
        true,
    );
    let result = ports.accounts.add_sender(&orphan).await;
    assert!(
        matches!(result, Err(StoreError::NotFound)),
        "add_sender for an unknown organization must answer NotFound, got {result:?}"
    );
}

/// The network's phone number id finds its sender whatever the organization.
pub async fn accounts_sender_by_phone_number_id(ports: Ports) {
    let org_a = new_organization(&ports, "starter").await;
    let org_b = new_organization(&ports, "trial").await;
    let sender_a = sender(org_a.id, SIMULATOR_SENDER_1, true);
    let sender_b = sender(org_b.id, SIMULATOR_SENDER_1, true);
    ports.accounts.add_sender(&sender_a).await.expect("add_sender");
    ports.accounts.add_sender(&sender_b).await.expect("add_sender");
    for expected in [&sender_a, &sender_b] {
        let found = ports
            .accounts
            .sender_by_phone_number_id(&expected.phone_number_id)
            .await
            .expect("sender_by_phone_number_id");
        assert_eq!(
            found.as_ref(),
            Some(expected),
            "sender_by_phone_number_id must find the exact sender"
        );
    }
    let unknown = fixtures::network_ref("424242424242");
    let found = ports
        .accounts
        .sender_by_phone_number_id(&unknown)
        .await
        .expect("lookup");
    assert_eq!(found, None, "an unknown phone_number_id must answer None");
}

/// Keys read back exactly, list oldest first; duplicates are Conflicts; an unknown organization NotFound.
pub async fn accounts_api_keys_create_and_list(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    let (first, _) = api_key(org.id);
    let first = fixtures_key_at(first, 0);
    let (second, _) = api_key(org.id);
    let second = ApiKeyRecord {
        name: None,
        ..fixtures_key_at(second, 5)
    };
    ports
        .accounts
        .create_api_key(&first)
        .await
        .expect("create_api_key");
    ports
        .accounts
        .create_api_key(&second)
        .await
        .expect("create_api_key");
    let listed = ports.accounts.api_keys(&org.id).await.expect("api_keys");
    assert_eq!(
        listed,
        vec![first.clone(), second.clone()],
        "api_keys() must list them oldest first"
    );
    let read = ports.accounts.api_key(&first.id).await.expect("api_key");
    assert_eq!(
        read,
        Some(first.clone()),
        "api_key() must answer the key as created"
    );
    let unknown = ApiKeyId::from_ulid(fixtures::next_ulid());
    assert_eq!(ports.accounts.api_key(&unknown).await.expect("api_key"), None);

    let (other, _) = api_key(org.id);
    let same_digest = ApiKeyRecord {
        digest: first.digest,
        ..other
    };
    let result = ports.accounts.create_api_key(&same_digest).await;
    assert!(
        matches!(result, Err(StoreError::Conflict(_))),
        "a duplicate digest must answer Conflict, got {result:?}"
    );
    let (other, _) = api_key(org.id);
    let same_id = ApiKeyRecord {
        id: first.id,
        ..other
    };
    let result = ports.accounts.create_api_key(&same_id).await;
    assert!(
        matches!(result, Err(StoreError::Conflict(_))),
        "a duplicate key id must answer Conflict, got {result:?}"
    );
    let (orphan, _) = api_key(OrganizationId::from_ulid(fixtures::next_ulid()));
    let result = ports.accounts.create_api_key(&orphan).await;
    assert!(
        matches!(result, Err(StoreError::NotFound)),
        "a key of an unknown organization must answer NotFound, got {result:?}"
    );
    let listed = ports.accounts.api_keys(&org.id).await.expect("api_keys");
    assert_eq!(listed, vec![first, second], "refused keys must not be stored");
}

fn fixtures_key_at(key: ApiKeyRecord, seconds: i64) -> ApiKeyRecord {
    ApiKeyRecord {
        created_at: at(seconds),
        ..key
    }
}

/// A digest finds its key with the organization and plan as they are now.
pub async fn accounts_find_credential(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    let (record, key) = api_key(org.id);
    ports
        .accounts
        .create_api_key(&record)
        .await
        .expect("create_api_key");
    let starter = ports
        .accounts
        .plan(&plan_name("starter"))
        .await
        .expect("plan")
        .expect("seeded");

    let credential = ports
        .accounts
        .find_credential(&key.digest())
        .await
        .expect("find_credential")
        .expect("the digest of a stored key must be found");
    assert_eq!(credential.key, record, "the credential's key is the stored key");
    assert_eq!(
        credential.organization, org,
        "the credential's organization is the key's"
    );
    assert_eq!(
        credential.plan, starter,
        "the credential's plan is the organization's plan"
    );

    ports
        .accounts
        .set_plan(&org.id, &plan_name("business"))
        .await
        .expect("set_plan");
    ports
        .accounts
        .set_account_status(&org.id, AccountStatus::Suspended)
        .await
        .expect("set_account_status");
    let credential = ports
        .accounts
        .find_credential(&key.digest())
        .await
        .expect("find_credential")
        .expect("found");
    assert_eq!(
        credential.plan.name,
        plan_name("business"),
        "the credential reflects a plan change"
    );
    assert_eq!(
        credential.organization.status,
        AccountStatus::Suspended,
        "and a status change"
    );

    let (_, never_stored) = api_key(org.id);
    let found = ports
        .accounts
        .find_credential(&never_stored.digest())
        .await
        .expect("find_credential");
    assert_eq!(found, None, "an unknown digest must answer None");
}

/// Disabling is idempotent (the first disabling time stays) and NotFound for an unknown key.
pub async fn accounts_disable_api_key(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    let (record, key) = api_key(org.id);
    let (untouched, _) = api_key(org.id);
    ports
        .accounts
        .create_api_key(&record)
        .await
        .expect("create_api_key");
    ports
        .accounts
        .create_api_key(&untouched)
        .await
        .expect("create_api_key");

    let disabled = ports
        .accounts
        .disable_api_key(&record.id, at(10))
        .await
        .expect("disable_api_key");
    let expected = ApiKeyRecord {
        status: ApiKeyStatus::Disabled,
        disabled_at: Some(at(10)),
        ..record.clone()
    };
    assert_eq!(
        disabled, expected,
        "disable_api_key must answer the key as it now is"
    );
    let again = ports
        .accounts
        .disable_api_key(&record.id, at(20))
        .await
        .expect("disable again");
    assert_eq!(
        again, expected,
        "disabling again must change nothing (idempotent)"
    );
    let read = ports.accounts.api_key(&record.id).await.expect("api_key");
    assert_eq!(
        read,
        Some(expected.clone()),
        "the disabled key must be read back disabled"
    );
    let credential = ports
        .accounts
        .find_credential(&key.digest())
        .await
        .expect("find")
        .expect("found");
    assert_eq!(
        credential.key.status,
        ApiKeyStatus::Disabled,
        "find_credential shows the key disabled"
    );
    let other = ports.accounts.api_key(&untouched.id).await.expect("api_key");
    assert_eq!(
        other,
        Some(untouched),
        "disabling one key must leave the others alone"
    );

    let unknown = ApiKeyId::from_ulid(fixtures::next_ulid());
    let result = ports.accounts.disable_api_key(&unknown, at(30)).await;
    assert!(
        matches!(result, Err(StoreError::NotFound)),
        "disabling an unknown key must answer NotFound, got {result:?}"
    );
}

/// Touching records the last use, each time.
pub async fn accounts_touch_api_key(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    let (record, _) = api_key(org.id);
    let (other, _) = api_key(org.id);
    ports
        .accounts
        .create_api_key(&record)
        .await
        .expect("create_api_key");
    ports
        .accounts
        .create_api_key(&other)
        .await
        .expect("create_api_key");
    for seconds in [30, 90] {
        ports
            .accounts
            .touch_api_key(&record.id, at(seconds))
            .await
            .expect("touch_api_key");
        let read = ports
            .accounts
            .api_key(&record.id)
            .await
            .expect("api_key")
            .expect("exists");
        assert_eq!(
            read.last_used_at,
            Some(at(seconds)),
            "touch_api_key must set last_used_at"
        );
        assert_eq!(
            read,
            ApiKeyRecord {
                last_used_at: Some(at(seconds)),
                ..record.clone()
            },
            "touch_api_key must change nothing else"
        );
    }
    let read = ports.accounts.api_key(&other.id).await.expect("api_key");
    assert_eq!(read, Some(other), "touching one key must leave the others alone");
}
