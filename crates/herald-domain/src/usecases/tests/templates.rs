//! `SyncTemplates` and `ListTemplates`: one listing per business account, the copies written, failures, the
//! sweep over organizations, and picking one template by language.

use super::*;
use crate::ids::TemplateId;
use crate::ports::{
    AppSubscription, MockAccountStore, MockMessagingNetwork, MockTemplateStore, NetworkError,
    NetworkTemplate, StoreError, TemplateQuery,
};
use crate::usecases::{ListTemplates, SyncError, SyncReport, SyncTemplates};
use std::sync::{Arc, Mutex};

/// A template as the network lists it.
fn listed(name: &str, language: &str, status: &str) -> NetworkTemplate {
    NetworkTemplate {
        name: TemplateName::parse(name).unwrap(),
        language: LanguageCode::parse(language).unwrap(),
        status: TemplateStatus::parse(status).unwrap(),
        category: "MARKETING".into(),
        structure: TemplateStructure {
            header: HeaderSpec::Text,
            body: BodySpec::Positional(2),
            buttons: Vec::new(),
            ..TemplateStructure::default()
        },
        network_id: Some(format!("net-{name}-{language}")),
        health: Default::default(),
    }
}

/// The copy Herald must store of `t` for `organization` and `waba`, with the `n`th generated id.
fn copy(t: &NetworkTemplate, organization: OrganizationId, waba: &NetworkRef, n: u64) -> Template {
    Template {
        id: TemplateId::from_ulid(generated(n)),
        organization_id: organization,
        waba_id: waba.clone(),
        name: t.name.clone(),
        language: t.language.clone(),
        status: t.status.clone(),
        category: t.category.clone(),
        structure: t.structure.clone(),
        network_id: t.network_id.clone(),
        synced_at: now(),
        // A sync stamps the copy; the store keeps the older stamp when nothing changed.
        health: crate::template::TemplateHealth {
            updated_at: Some(now()),
            ..t.health.clone()
        },
    }
}

/// A third sender of the test organization on the default sender's business account.
fn sibling_of_default() -> SenderNumber {
    let mut sibling = sender(3, "+15550003333", false);
    sibling.waba_id = sender(1, DEFAULT_NUMBER, true).waba_id;
    sibling
}

fn organization_with(id: OrganizationId, status: AccountStatus) -> Organization {
    Organization {
        id,
        ..organization(status)
    }
}

type Replaced = Arc<Mutex<Vec<(OrganizationId, NetworkRef, Vec<Template>)>>>;

struct Ports {
    accounts: MockAccountStore,
    templates: MockTemplateStore,
    network: MockMessagingNetwork,
}

impl Ports {
    fn new() -> Self {
        Self::subscribed(Ok(AppSubscription::Subscribed), Some(Vec::new()))
    }

    /// Ports whose network answers `subscription` for every account, and whose store expects `recorded` to
    /// be recorded as the missing webhook fields (`None`: nothing recorded).
    fn subscribed(
        subscription: Result<AppSubscription, NetworkError>,
        recorded: Option<Vec<String>>,
    ) -> Self {
        let mut accounts = MockAccountStore::new();
        let mut network = MockMessagingNetwork::new();
        network
            .expect_app_subscription()
            .returning(move |_| subscription.clone());
        match recorded {
            Some(fields) => accounts
                .expect_record_webhook_fields_missing()
                .withf(move |_, _, missing| missing == fields.as_slice())
                .returning(|_, _, _| Ok(())),
            None => accounts.expect_record_webhook_fields_missing().times(0),
        };
        Self {
            accounts,
            templates: MockTemplateStore::new(),
            network,
        }
    }

    /// `senders(organization)` answers `senders`, once.
    fn senders(&mut self, organization: OrganizationId, senders: Vec<SenderNumber>) -> &mut Self {
        self.accounts
            .expect_senders()
            .withf(move |org| *org == organization)
            .times(1)
            .returning(move |_| Ok(senders.clone().into()));
        self
    }

    /// The network lists `answer` once for a sender of business account `waba`.
    fn lists(&mut self, waba: &NetworkRef, answer: Result<Vec<NetworkTemplate>, NetworkError>) -> &mut Self {
        let waba = waba.clone();
        self.network
            .expect_templates()
            .withf(move |s| s.waba_id == waba)
            .times(1)
            .returning(move |_| answer.clone());
        self
    }

    /// `replace_templates` succeeds and keeps every call's arguments.
    fn replaces(&mut self) -> Replaced {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let keep = Arc::clone(&seen);
        self.templates
            .expect_replace_templates()
            .returning(move |org, waba, copies| {
                keep.lock().unwrap().push((*org, waba.clone(), copies.to_vec()));
                Ok(())
            });
        seen
    }

    fn never_replaces(&mut self) -> &mut Self {
        self.templates.expect_replace_templates().times(0);
        self
    }

    fn use_case(self) -> SyncTemplates {
        SyncTemplates::new(
            Arc::new(self.accounts),
            Arc::new(self.templates),
            Arc::new(self.network),
            Arc::new(clock_at(now())),
            Arc::new(sequential_ids()),
        )
    }
}

// ---- sync_organization ----

#[test]
fn one_listing_per_business_account_and_the_copies_carry_org_waba_new_ids_and_the_time() {
    // Senders 1 and 3 share a business account; sender 2 has its own.
    let waba_a = sender(1, DEFAULT_NUMBER, true).waba_id;
    let waba_b = sender(2, SECOND_NUMBER, false).waba_id;
    let a_templates = vec![
        listed("order_shipped", "en_US", "APPROVED"),
        listed("order_shipped", "pt_BR", "PENDING"),
    ];
    let b_templates = vec![listed("welcome", "en_US", "APPROVED")];
    let mut ports = Ports::new();
    ports
        .senders(
            org_id(),
            vec![
                sender(1, DEFAULT_NUMBER, true),
                sender(2, SECOND_NUMBER, false),
                sibling_of_default(),
            ],
        )
        .lists(&waba_a, Ok(a_templates.clone()))
        .lists(&waba_b, Ok(b_templates.clone()));
    let seen = ports.replaces();

    let report = run(ports.use_case().sync_organization(&org_id())).unwrap();
    assert_eq!(
        report,
        SyncReport {
            business_accounts: 2,
            templates: 3
        }
    );
    let mut replaced = seen.lock().unwrap().clone();
    replaced.sort_by(|x, y| x.1.as_str().cmp(y.1.as_str()));
    assert_eq!(replaced.len(), 2, "one replace per business account");
    // Account A is listed first (accounts go in id order), so its copies take ids 1 and 2.
    assert_eq!(
        replaced[0],
        (
            org_id(),
            waba_a.clone(),
            vec![
                copy(&a_templates[0], org_id(), &waba_a, 1),
                copy(&a_templates[1], org_id(), &waba_a, 2)
            ]
        )
    );
    assert_eq!(
        replaced[1],
        (
            org_id(),
            waba_b.clone(),
            vec![copy(&b_templates[0], org_id(), &waba_b, 3)]
        )
    );
}

#[test]
fn an_account_with_no_templates_is_replaced_with_an_empty_set() {
    // Templates deleted on the network must disappear from Herald's copy too.
    let waba = sender(1, DEFAULT_NUMBER, true).waba_id;
    let mut ports = Ports::new();
    ports
        .senders(org_id(), vec![sender(1, DEFAULT_NUMBER, true)])
        .lists(&waba, Ok(Vec::new()));
    let seen = ports.replaces();
    let report = run(ports.use_case().sync_organization(&org_id())).unwrap();
    assert_eq!(
        report,
        SyncReport {
            business_accounts: 1,
            templates: 0
        }
    );
    assert_eq!(seen.lock().unwrap().clone(), vec![(org_id(), waba, Vec::new())]);
}

#[test]
fn an_account_not_delivering_to_herald_misses_every_field_and_a_failed_check_records_nothing() {
    let needed: Vec<String> = crate::network::WEBHOOK_FIELDS_NEEDED
        .iter()
        .map(|f| (*f).to_owned())
        .collect();
    let waba = sender(1, DEFAULT_NUMBER, true).waba_id;
    let mut ports = Ports::subscribed(Ok(AppSubscription::NotSubscribed), Some(needed));
    ports
        .senders(org_id(), vec![sender(1, DEFAULT_NUMBER, true)])
        .lists(&waba, Ok(Vec::new()));
    ports.replaces();
    run(ports.use_case().sync_organization(&org_id())).unwrap();

    let down = NetworkError::Retryable {
        code: None,
        detail: "down".into(),
        retry_after: None,
    };
    let mut ports = Ports::subscribed(Err(down), None);
    ports
        .senders(org_id(), vec![sender(1, DEFAULT_NUMBER, true)])
        .lists(&waba, Ok(Vec::new()));
    ports.replaces();
    run(ports.use_case().sync_organization(&org_id())).unwrap();
}

#[test]
fn an_organization_without_senders_syncs_nothing() {
    let mut ports = Ports::new();
    ports.senders(org_id(), Vec::new()).never_replaces();
    ports.network.expect_templates().times(0);
    let report = run(ports.use_case().sync_organization(&org_id())).unwrap();
    assert_eq!(report, SyncReport::default());
}

#[test]
fn a_network_error_is_returned_as_a_network_sync_error_and_nothing_is_replaced() {
    let waba = sender(1, DEFAULT_NUMBER, true).waba_id;
    let refusal = NetworkError::Credentials {
        code: Some(190),
        detail: "token expired".into(),
    };
    let mut ports = Ports::new();
    ports
        .senders(org_id(), vec![sender(1, DEFAULT_NUMBER, true)])
        .lists(&waba, Err(refusal.clone()))
        .never_replaces();
    let err = run(ports.use_case().sync_organization(&org_id())).unwrap_err();
    assert!(matches!(&err, SyncError::Network(e) if *e == refusal), "{err:?}");
}

#[test]
fn store_failures_are_returned_as_store_sync_errors() {
    let mut ports = Ports::new();
    ports
        .accounts
        .expect_senders()
        .times(1)
        .returning(|_| Err(StoreError::Unavailable("down".into())));
    ports.network.expect_templates().times(0);
    ports.never_replaces();
    let err = run(ports.use_case().sync_organization(&org_id())).unwrap_err();
    assert!(
        matches!(err, SyncError::Store(StoreError::Unavailable(_))),
        "{err:?}"
    );

    let waba = sender(1, DEFAULT_NUMBER, true).waba_id;
    let mut ports = Ports::new();
    ports
        .senders(org_id(), vec![sender(1, DEFAULT_NUMBER, true)])
        .lists(&waba, Ok(vec![listed("welcome", "en_US", "APPROVED")]));
    ports
        .templates
        .expect_replace_templates()
        .times(1)
        .returning(|_, _, _| Err(StoreError::Conflict("template id".into())));
    let err = run(ports.use_case().sync_organization(&org_id())).unwrap_err();
    assert!(
        matches!(err, SyncError::Store(StoreError::Conflict(_))),
        "{err:?}"
    );
}

// ---- sync_all ----

#[test]
fn sync_all_skips_inactive_organizations_and_continues_past_a_failure() {
    let failing = OrganizationId::from_ulid(ulid(11));
    let suspended = OrganizationId::from_ulid(ulid(12));
    let closed = OrganizationId::from_ulid(ulid(13));
    let healthy = OrganizationId::from_ulid(ulid(14));
    let mut failing_sender = sender(5, "+15550005555", true);
    failing_sender.organization_id = failing;
    let mut healthy_sender = sender(6, "+15550006666", true);
    healthy_sender.organization_id = healthy;

    let mut ports = Ports::new();
    ports.accounts.expect_organizations().times(1).returning(move || {
        Ok(vec![
            organization_with(failing, AccountStatus::Active),
            organization_with(suspended, AccountStatus::Suspended),
            organization_with(closed, AccountStatus::Closed),
            organization_with(healthy, AccountStatus::Active),
        ])
    });
    // Inactive organizations are not even asked for their senders (`senders` has no expectation for them).
    ports
        .senders(failing, vec![failing_sender.clone()])
        .senders(healthy, vec![healthy_sender.clone()])
        .lists(
            &failing_sender.waba_id,
            Err(NetworkError::Retryable {
                code: None,
                detail: "502".into(),
                retry_after: None,
            }),
        )
        .lists(
            &healthy_sender.waba_id,
            Ok(vec![
                listed("welcome", "en_US", "APPROVED"),
                listed("welcome", "es", "APPROVED"),
            ]),
        );
    let seen = ports.replaces();

    let report = run(ports.use_case().sync_all()).unwrap();
    assert_eq!(
        report,
        SyncReport {
            business_accounts: 1,
            templates: 2
        }
    );
    let replaced = seen.lock().unwrap().clone();
    assert_eq!(replaced.len(), 1);
    assert_eq!(replaced[0].0, healthy);
    assert_eq!(replaced[0].1, healthy_sender.waba_id);
    assert!(replaced[0].2.iter().all(|t| t.organization_id == healthy));
}

#[test]
fn sync_all_returns_a_failure_to_list_organizations() {
    let mut ports = Ports::new();
    ports
        .accounts
        .expect_organizations()
        .times(1)
        .returning(|| Err(StoreError::Unavailable("down".into())));
    ports.accounts.expect_senders().times(0);
    ports.network.expect_templates().times(0);
    assert!(run(ports.use_case().sync_all()).is_err());
}

// ---- ListTemplates ----

/// A stored copy of `order_shipped` in `language`.
fn stored_in(language: &str) -> Template {
    let waba = sender(1, DEFAULT_NUMBER, true).waba_id;
    Template {
        language: LanguageCode::parse(language).unwrap(),
        ..template(&waba, "APPROVED", HeaderSpec::None, 1)
    }
}

/// A template store answering the name-only query for `order_shipped` with `found`.
fn store_by_name(found: Vec<Template>) -> MockTemplateStore {
    let mut store = MockTemplateStore::new();
    store
        .expect_templates()
        .withf(|org, query| {
            *org == org_id()
                && *query
                    == TemplateQuery {
                        status: None,
                        name: Some(template_ref().name),
                    }
        })
        .times(1)
        .returning(move |_, _| Ok(found.clone()));
    store.expect_template().times(0);
    store
}

#[test]
fn list_one_picks_the_template_in_the_asked_language() {
    let store = store_by_name(vec![stored_in("en_US"), stored_in("pt_BR"), stored_in("es")]);
    let found = run(ListTemplates::new(Arc::new(store), Arc::new(no_accounts())).one(
        &org_id(),
        &template_ref().name,
        &LanguageCode::parse("pt_BR").unwrap(),
    ))
    .unwrap();
    assert_eq!(found, Some(stored_in("pt_BR")));
}

#[test]
fn list_one_answers_none_when_no_copy_is_in_that_language() {
    let store = store_by_name(vec![stored_in("en_US"), stored_in("pt_BR")]);
    let found = run(ListTemplates::new(Arc::new(store), Arc::new(no_accounts())).one(
        &org_id(),
        &template_ref().name,
        &LanguageCode::parse("fr").unwrap(),
    ))
    .unwrap();
    assert_eq!(found, None);
}

#[test]
fn list_execute_passes_the_query_through() {
    let query = TemplateQuery {
        status: Some("APPROVED".into()),
        name: None,
    };
    let expected = query.clone();
    let mut store = MockTemplateStore::new();
    store
        .expect_templates()
        .withf(move |org, q| *org == org_id() && *q == expected)
        .times(1)
        .returning(|_, _| Ok(vec![stored_in("en_US")]));
    let found =
        run(ListTemplates::new(Arc::new(store), Arc::new(no_accounts())).execute(&org_id(), &query)).unwrap();
    assert_eq!(found, vec![stored_in("en_US")]);
}

/// An account store that must not be asked: one copy needs no sender.
fn no_accounts() -> MockAccountStore {
    let mut accounts = MockAccountStore::new();
    accounts.expect_senders().times(0);
    accounts
}

#[test]
fn list_one_prefers_the_default_senders_copy_when_two_business_accounts_hold_one() {
    let other_waba = sender(2, SECOND_NUMBER, false).waba_id;
    let other_copy = Template {
        id: TemplateId::from_ulid(ulid(301)),
        ..template(&other_waba, "PAUSED", HeaderSpec::None, 1)
    };
    let default_copy = stored_in("en_US");
    let store = store_by_name(vec![other_copy.clone(), default_copy.clone()]);
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_senders()
        .withf(|org| *org == org_id())
        .times(1)
        .returning(|_| Ok(two_senders().into()));
    let found = run(ListTemplates::new(Arc::new(store), Arc::new(accounts)).one(
        &org_id(),
        &template_ref().name,
        &LanguageCode::parse("en_US").unwrap(),
    ))
    .unwrap();
    assert_eq!(found, Some(default_copy));

    // Without a default sender among them, the first copy.
    let store = store_by_name(vec![other_copy.clone(), stored_in("en_US")]);
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_senders()
        .times(1)
        .returning(|_| Ok(vec![sender(2, SECOND_NUMBER, false)].into()));
    let found = run(ListTemplates::new(Arc::new(store), Arc::new(accounts)).one(
        &org_id(),
        &template_ref().name,
        &LanguageCode::parse("en_US").unwrap(),
    ))
    .unwrap();
    assert_eq!(found, Some(other_copy));
}
