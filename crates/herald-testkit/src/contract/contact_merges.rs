//! `ContactStore`, one person one contact: a number's national variants are one contact, and a number's
//! contact and a user id's become one as soon as a write links them (a pairing, a change naming both), with
//! neither's stop nor block lost; the organization's own change that changes nothing records nothing.

use super::outbox::events_of;
use super::{Ports, new_organization};
use crate::fixtures::{at, next_ulid, phone};
use herald_domain::contact::{Contact, MarketingPreference, PreferenceChange, PreferenceSource, Recipient};
use herald_domain::ids::{EventId, OrganizationId};
use herald_domain::values::UserId;

fn user(id: &str) -> UserId {
    UserId::parse(id).expect("a valid user id")
}

fn by_number(n: &str) -> Recipient {
    Recipient::Number(phone(n))
}

fn by_user(id: &str) -> Recipient {
    Recipient::User(user(id))
}

fn change(
    organization: OrganizationId,
    number: Option<&str>,
    user_id: Option<&str>,
    preference: MarketingPreference,
    source: PreferenceSource,
    occurred: i64,
) -> PreferenceChange {
    PreferenceChange {
        organization_id: organization,
        number: number.map(phone),
        user_id: user_id.map(user),
        preference,
        source,
        occurred_at: at(occurred),
        recorded_at: at(occurred),
        event_id: EventId::from_ulid(next_ulid()),
        dedupe_key: (source == PreferenceSource::Network).then(|| next_ulid().to_string()),
    }
}

async fn record(ports: &Ports, change: &PreferenceChange) -> bool {
    ports
        .contacts
        .record_preference(change)
        .await
        .expect("record_preference")
}

async fn contact(ports: &Ports, org: &OrganizationId, recipient: &Recipient) -> Contact {
    ports
        .contacts
        .contact(org, recipient)
        .await
        .expect("contact")
        .unwrap_or_else(|| panic!("a contact for {recipient}"))
}

pub async fn contacts_of_one_person_are_merged_when_linked(ports: Ports) {
    use MarketingPreference::{Allowed, Stopped};
    use PreferenceSource::{Api, Network};
    let org = new_organization(&ports, "starter").await;
    let number = "+15552220003";
    let id = "US.99900031";
    // The organization's own record of the number (opted out, then in), and the person's stop and block
    // by user id alone: two records.
    assert!(record(&ports, &change(org.id, Some(number), None, Stopped, Api, 10)).await);
    assert!(record(&ports, &change(org.id, Some(number), None, Allowed, Api, 11)).await);
    assert!(record(&ports, &change(org.id, None, Some(id), Stopped, Network, 20)).await);
    ports
        .contacts
        .set_blocked(&org.id, &by_user(id), true, at(25))
        .await
        .expect("set_blocked");
    let before = contact(&ports, &org.id, &by_number(number)).await;
    assert_eq!((before.marketing, before.blocked), (Allowed, false));

    // An inbound message shows them together: one contact, stopped and blocked, whichever names it.
    ports
        .contacts
        .pair_user_id(&org.id, &phone(number), &user(id), at(30))
        .await
        .expect("pair_user_id");
    let merged = contact(&ports, &org.id, &by_number(number)).await;
    assert_eq!(merged.number, Some(phone(number)));
    assert_eq!(merged.user_id, Some(user(id)));
    assert_eq!(
        merged.marketing, Stopped,
        "the stop by user id is the number's: {merged:?}"
    );
    assert_eq!(merged.marketing_source, Some(Network));
    assert_eq!(merged.marketing_changed_at, Some(at(20)));
    assert!(merged.blocked, "the block by user id is the number's: {merged:?}");
    assert_eq!(merged.blocked_at, Some(at(25)));
    assert_eq!(contact(&ports, &org.id, &by_user(id)).await, merged);
    let listed = ports
        .contacts
        .contacts_with_numbers(&org.id, &[phone(number)])
        .await
        .expect("contacts_with_numbers");
    assert_eq!(listed, std::slice::from_ref(&merged));
    let listed = ports
        .contacts
        .contacts_with_user_ids(&org.id, &[user(id), user("US.1")])
        .await
        .expect("contacts_with_user_ids");
    assert_eq!(
        listed,
        std::slice::from_ref(&merged),
        "one contact, by either identity"
    );

    // A change naming both merges too (here the number's stop and the user id's block).
    let (number, id) = ("+15552220007", "US.99900071");
    assert!(record(&ports, &change(org.id, Some(number), None, Stopped, Api, 40)).await);
    ports
        .contacts
        .set_blocked(&org.id, &by_user(id), true, at(41))
        .await
        .expect("set_blocked");
    assert!(
        record(
            &ports,
            &change(org.id, Some(number), Some(id), Stopped, Network, 42)
        )
        .await
    );
    let merged = contact(&ports, &org.id, &by_user(id)).await;
    assert_eq!(merged.number, Some(phone(number)));
    assert_eq!((merged.marketing, merged.blocked), (Stopped, true), "{merged:?}");

    // A user id shown with a new number (its contact holds another person's number): the new number's
    // contact gains the id and its state, and the old number keeps its own contact and state.
    let (old, new, id) = ("+15552220008", "+15552220009", "US.99900081");
    ports
        .contacts
        .pair_user_id(&org.id, &phone(old), &user(id), at(50))
        .await
        .expect("pair_user_id");
    ports
        .contacts
        .set_blocked(&org.id, &by_number(old), true, at(51))
        .await
        .expect("set_blocked");
    assert!(record(&ports, &change(org.id, Some(new), None, Stopped, Api, 52)).await);
    ports
        .contacts
        .pair_user_id(&org.id, &phone(new), &user(id), at(53))
        .await
        .expect("pair_user_id");
    let moved = contact(&ports, &org.id, &by_user(id)).await;
    assert_eq!(moved.number, Some(phone(new)));
    assert_eq!((moved.marketing, moved.blocked), (Stopped, true), "{moved:?}");
    let kept = contact(&ports, &org.id, &by_number(old)).await;
    assert_eq!(kept.user_id, None);
    assert!(kept.blocked, "{kept:?}");

    // The same when the new number had no contact yet: it gets one, with the id and the id's state.
    let (old, new, id) = ("+15552220010", "+15552220011", "US.99900101");
    assert!(record(&ports, &change(org.id, Some(old), Some(id), Stopped, Network, 60)).await);
    ports
        .contacts
        .pair_user_id(&org.id, &phone(new), &user(id), at(61))
        .await
        .expect("pair_user_id");
    let moved = contact(&ports, &org.id, &by_number(new)).await;
    assert_eq!(moved.user_id, Some(user(id)));
    assert_eq!(moved.marketing, Stopped, "{moved:?}");
    let kept = contact(&ports, &org.id, &by_number(old)).await;
    assert_eq!((kept.user_id, kept.marketing), (None, Stopped));
}

pub async fn contacts_of_national_variants_are_one(ports: Ports) {
    use MarketingPreference::Stopped;
    use PreferenceSource::{Api, Network};
    let org = new_organization(&ports, "starter").await;
    // Mexico: the network's wa_id with the old `1`; the organization's number without it.
    let (wa_id, dialled) = ("+5215512345678", "+525512345678");
    assert!(record(&ports, &change(org.id, Some(wa_id), None, Stopped, Network, 10)).await);
    let found = contact(&ports, &org.id, &by_number(dialled)).await;
    assert_eq!(found.marketing, Stopped);
    assert_eq!(
        found.number,
        Some(phone(wa_id)),
        "the number as the network wrote it"
    );
    let blocked = ports
        .contacts
        .set_blocked(&org.id, &by_number(dialled), true, at(11))
        .await
        .expect("set_blocked");
    assert_eq!(blocked.number, Some(phone(wa_id)), "the same contact");
    assert!(contact(&ports, &org.id, &by_number(wa_id)).await.blocked);
    let listed = ports
        .contacts
        .contacts_with_numbers(&org.id, &[phone(dialled), phone(wa_id)])
        .await
        .expect("contacts_with_numbers");
    assert_eq!(listed.len(), 1, "{listed:?}");

    // Argentina and Brazil: recorded under one form, found by the other; another person is not.
    assert!(
        record(
            &ports,
            &change(org.id, Some("+541187654321"), None, Stopped, Api, 20)
        )
        .await
    );
    assert_eq!(
        contact(&ports, &org.id, &by_number("+5491187654321"))
            .await
            .marketing,
        Stopped
    );
    assert!(
        record(
            &ports,
            &change(org.id, Some("+5521987654321"), None, Stopped, Api, 21)
        )
        .await
    );
    assert_eq!(
        contact(&ports, &org.id, &by_number("+552187654321"))
            .await
            .marketing,
        Stopped
    );
    for other in ["+552132345678", "+5491187654320", "+5215512345679"] {
        assert_eq!(
            ports
                .contacts
                .contact(&org.id, &by_number(other))
                .await
                .expect("contact"),
            None,
            "{other} is someone else"
        );
    }

    // The network's pairing with the other form writes the number as the network does.
    ports
        .contacts
        .pair_user_id(&org.id, &phone("+552187654321"), &user("BR.777"), at(30))
        .await
        .expect("pair_user_id");
    let paired = contact(&ports, &org.id, &by_number("+5521987654321")).await;
    assert_eq!(paired.number, Some(phone("+552187654321")));
    assert_eq!(paired.user_id, Some(user("BR.777")));
}

pub async fn contacts_an_organizations_change_that_changes_nothing_records_nothing(ports: Ports) {
    use MarketingPreference::{Allowed, Stopped};
    use PreferenceSource::{Api, Keyword, Network};
    let org = new_organization(&ports, "starter").await;
    let number = "+15552220006";
    assert!(
        !record(&ports, &change(org.id, Some(number), None, Allowed, Api, 1)).await,
        "an opt-in of someone allowed"
    );
    assert_eq!(
        ports
            .contacts
            .contact(&org.id, &by_number(number))
            .await
            .expect("contact"),
        None,
        "nothing is created"
    );
    assert!(record(&ports, &change(org.id, Some(number), None, Stopped, Api, 2)).await);
    assert!(!record(&ports, &change(org.id, Some(number), None, Stopped, Api, 3)).await);
    assert!(!record(&ports, &change(org.id, Some(number), None, Stopped, Keyword, 4)).await);
    let stopped = contact(&ports, &org.id, &by_number(number)).await;
    assert_eq!(stopped.marketing_changed_at, Some(at(2)), "unchanged");
    assert_eq!(stopped.marketing_source, Some(Api));
    assert_eq!(events_of(&ports, &org).await.len(), 1, "one event for one change");
    // The network's report is the person's own act: recorded.
    assert!(record(&ports, &change(org.id, Some(number), None, Stopped, Network, 5)).await);
    assert_eq!(events_of(&ports, &org).await.len(), 2);
}
