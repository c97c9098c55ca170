//! One organization per business account in the store: who a WABA belongs to (its first sender's
//! organization, then those with a sender added as a share), and who a template of it belongs to.

use super::{Ports, new_organization};
use crate::fixtures::{network_ref, sender, t0};
use herald_domain::template::TemplateName;

/// The owner is the organization of the account's oldest sender; an organization whose sender was added as
/// a share follows, once; another organization with a sender of the account (not shared) is not among
/// them; an account no sender has belongs to no one.
pub async fn accounts_a_business_account_belongs_to_its_first_organization_and_its_sharers(ports: Ports) {
    let owner = new_organization(&ports, "starter").await;
    let other = new_organization(&ports, "starter").await;
    let sharer = new_organization(&ports, "starter").await;
    let at = |seconds| t0() + chrono::TimeDelta::seconds(seconds);
    let mut first = sender(owner.id, "+15550001001", true);
    first.created_at = at(0);
    let mut unshared = sender(other.id, "+15550001002", true);
    unshared.created_at = at(1);
    let mut shared = sender(sharer.id, "+15550001003", true);
    shared.created_at = at(2);
    let mut shared_again = sender(sharer.id, "+15550001004", false);
    shared_again.created_at = at(3);
    let mut owners_second = sender(owner.id, "+15550001005", false);
    owners_second.created_at = at(4);
    ports.accounts.add_sender(&first).await.unwrap();
    ports.accounts.add_sender(&unshared).await.unwrap();
    ports.accounts.add_shared_sender(&shared).await.unwrap();
    ports.accounts.add_shared_sender(&shared_again).await.unwrap();
    ports.accounts.add_sender(&owners_second).await.unwrap();

    let owners = ports
        .accounts
        .business_account_organizations(&first.waba_id)
        .await
        .unwrap();
    assert_eq!(owners, vec![owner.id, sharer.id]);
    let senders = ports.accounts.senders(&sharer.id).await.unwrap();
    assert_eq!(
        senders.len(),
        2,
        "a shared sender is an ordinary sender of its organization"
    );
    assert!(
        ports
            .accounts
            .business_account_organizations(&network_ref("2999999999"))
            .await
            .unwrap()
            .is_empty()
    );
}

/// A template name of an account is claimed once: the first claimant is its author whoever claims
/// after; only the author releases it, and then another may claim it.
pub async fn templates_an_author_is_claimed_once_and_released_by_its_author_only(ports: Ports) {
    let first = new_organization(&ports, "starter").await;
    let second = new_organization(&ports, "starter").await;
    let waba = network_ref("2000000001");
    let name = TemplateName::parse("victim_tpl").unwrap();
    let templates = &ports.templates;
    assert_eq!(templates.template_author(&waba, &name).await.unwrap(), None);
    assert_eq!(
        templates
            .claim_template(&first.id, &waba, &name, t0())
            .await
            .unwrap(),
        first.id
    );
    assert_eq!(
        templates
            .claim_template(&second.id, &waba, &name, t0())
            .await
            .unwrap(),
        first.id,
        "the first claim stands"
    );
    let other_account = network_ref("2000000002");
    assert_eq!(
        templates.template_author(&other_account, &name).await.unwrap(),
        None,
        "a name is claimed in its own account only"
    );
    templates
        .release_template(&second.id, &waba, &name)
        .await
        .unwrap();
    assert_eq!(
        templates.template_author(&waba, &name).await.unwrap(),
        Some(first.id)
    );
    templates.release_template(&first.id, &waba, &name).await.unwrap();
    assert_eq!(templates.template_author(&waba, &name).await.unwrap(), None);
    assert_eq!(
        templates
            .claim_template(&second.id, &waba, &name, t0())
            .await
            .unwrap(),
        second.id
    );
}
