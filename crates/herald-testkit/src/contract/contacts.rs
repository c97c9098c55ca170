//! `ContactStore`: contacts found by number or user id within their organization, marketing preferences
//! written once with their `contact.preferences` event (and its fan-out), only moving forward, blocks, the
//! pairing of a number with its user id, and the STOP keyword rule.

use super::outbox::{events_of, payload};
use super::webhooks::new_endpoint;
use super::{Ports, new_organization};
use crate::fixtures::{at, next_ulid, phone};
use herald_domain::contact::{
    KeywordRule, MarketingPreference, PreferenceChange, PreferenceSource, Recipient,
};
use herald_domain::customer_event::CustomerEventType;
use herald_domain::ids::{EventId, OrganizationId};
use herald_domain::values::PhoneNumber;
use herald_domain::values::UserId;
use herald_domain::webhook::EventSelection;

const NUMBER: &str = "+15551234567";
const USER: &str = "US.13491208655302741918";

fn user(id: &str) -> UserId {
    UserId::parse(id).expect("a valid user id")
}

fn number(n: &str) -> Recipient {
    Recipient::Number(phone(n))
}

fn change(
    organization: OrganizationId,
    number: Option<&str>,
    user_id: Option<&str>,
    preference: MarketingPreference,
    occurred: i64,
    key: Option<&str>,
) -> PreferenceChange {
    PreferenceChange {
        organization_id: organization,
        number: number.map(phone),
        user_id: user_id.map(user),
        preference,
        source: PreferenceSource::Network,
        occurred_at: at(occurred),
        recorded_at: at(occurred + 1),
        event_id: EventId::from_ulid(next_ulid()),
        dedupe_key: key.map(str::to_owned),
    }
}

pub async fn contacts_preferences_record_one_event_and_only_move_forward(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    let other = new_organization(&ports, "starter").await;
    let all = new_endpoint(&ports, &org, EventSelection::ALL, 1).await;
    let none = new_endpoint(
        &ports,
        &org,
        EventSelection {
            message_status: true,
            ..EventSelection::NONE
        },
        2,
    )
    .await;
    assert_eq!(
        ports
            .contacts
            .contact(&org.id, &number(NUMBER))
            .await
            .expect("contact"),
        None,
        "nothing is recorded about a person before anything happens"
    );

    let stop = change(
        org.id,
        Some(NUMBER),
        None,
        MarketingPreference::Stopped,
        100,
        Some("k1"),
    );
    assert!(
        ports
            .contacts
            .record_preference(&stop)
            .await
            .expect("record_preference")
    );
    assert!(
        !ports
            .contacts
            .record_preference(&stop)
            .await
            .expect("record_preference"),
        "the same change again (its key) is a duplicate"
    );
    let contact = ports
        .contacts
        .contact(&org.id, &number(NUMBER))
        .await
        .expect("contact")
        .expect("the contact exists now");
    assert_eq!(contact.marketing, MarketingPreference::Stopped);
    assert_eq!(contact.marketing_changed_at, Some(at(100)));
    assert_eq!(contact.marketing_source, Some(PreferenceSource::Network));
    assert_eq!(contact.number, Some(phone(NUMBER)));
    assert!(!contact.blocked);
    assert_eq!(
        ports
            .contacts
            .contact(&other.id, &number(NUMBER))
            .await
            .expect("contact"),
        None,
        "another organization knows nothing of it"
    );

    // An older change reported late is an event, but does not undo the newer state.
    let late = change(
        org.id,
        Some(NUMBER),
        None,
        MarketingPreference::Allowed,
        50,
        Some("k0"),
    );
    assert!(
        ports
            .contacts
            .record_preference(&late)
            .await
            .expect("record_preference")
    );
    let contact = ports
        .contacts
        .contact(&org.id, &number(NUMBER))
        .await
        .expect("contact")
        .expect("contact");
    assert_eq!(
        contact.marketing,
        MarketingPreference::Stopped,
        "a late older change must not win"
    );

    let mut resume = change(
        org.id,
        Some(NUMBER),
        None,
        MarketingPreference::Allowed,
        200,
        None,
    );
    resume.source = PreferenceSource::Api;
    assert!(
        ports
            .contacts
            .record_preference(&resume)
            .await
            .expect("record_preference")
    );
    let contact = ports
        .contacts
        .contact(&org.id, &number(NUMBER))
        .await
        .expect("contact")
        .expect("contact");
    assert_eq!(contact.marketing, MarketingPreference::Allowed);
    assert_eq!(contact.marketing_source, Some(PreferenceSource::Api));

    let events = events_of(&ports, &org).await;
    assert_eq!(events.len(), 3, "one event per recorded change: {events:?}");
    assert!(
        events
            .iter()
            .all(|e| e.event_type == CustomerEventType::ContactPreferences)
    );
    assert!(events.iter().all(|e| e.message_id.is_none() && e.sequence == 1));
    let body = payload(&events[0]);
    assert_eq!(body["type"], "contact.preferences");
    assert_eq!(body["data"]["contact"]["number"], NUMBER);
    assert_eq!(body["data"]["marketing"], "stopped");
    assert_eq!(body["data"]["source"], "network");
    assert!(events_of(&ports, &other).await.is_empty());

    let delivered = ports
        .webhooks
        .deliveries(&org.id, &all.id, None, None, 10)
        .await
        .expect("deliveries");
    assert_eq!(delivered.len(), 3, "an endpoint taking every event gets each");
    let skipped = ports
        .webhooks
        .deliveries(&org.id, &none.id, None, None, 10)
        .await
        .expect("deliveries");
    assert!(skipped.is_empty(), "an endpoint not subscribed gets none");
}

pub async fn contacts_are_found_by_number_or_user_id_and_paired(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    // A change naming only the user id makes a contact found by it alone.
    let stop = change(
        org.id,
        None,
        Some(USER),
        MarketingPreference::Stopped,
        10,
        Some("u1"),
    );
    assert!(
        ports
            .contacts
            .record_preference(&stop)
            .await
            .expect("record_preference")
    );
    let by_user = ports
        .contacts
        .contact(&org.id, &Recipient::User(user(USER)))
        .await
        .expect("contact")
        .expect("found by user id");
    assert_eq!(by_user.number, None);
    assert_eq!(
        ports
            .contacts
            .contact(&org.id, &number(NUMBER))
            .await
            .expect("contact"),
        None
    );

    // The network shows the number with the user id: the same contact gains it.
    ports
        .contacts
        .pair_user_id(&org.id, &phone(NUMBER), &user(USER), at(20))
        .await
        .expect("pair_user_id");
    let by_number = ports
        .contacts
        .contact(&org.id, &number(NUMBER))
        .await
        .expect("contact")
        .expect("found by number now");
    assert_eq!(by_number.user_id, Some(user(USER)));
    assert_eq!(
        by_number.marketing,
        MarketingPreference::Stopped,
        "the same contact"
    );
    ports
        .contacts
        .pair_user_id(&org.id, &phone(NUMBER), &user(USER), at(30))
        .await
        .expect("a known pairing again changes nothing");

    // A number first seen with its user id pairs them in a new contact.
    ports
        .contacts
        .pair_user_id(&org.id, &phone("+15557654321"), &user("BR.abc123"), at(40))
        .await
        .expect("pair_user_id");
    let paired = ports
        .contacts
        .contact(&org.id, &Recipient::User(user("BR.abc123")))
        .await
        .expect("contact")
        .expect("created");
    assert_eq!(paired.number, Some(phone("+15557654321")));
    assert_eq!(paired.marketing, MarketingPreference::Allowed);

    // Many numbers in one read (a broadcast's rows): only those known, of this organization, across
    // chunks of the statement.
    let mut asked: Vec<PhoneNumber> = (0..1_200).map(|i| phone(&format!("+1555800{i:04}"))).collect();
    asked.push(phone(NUMBER));
    asked.push(phone("+15557654321"));
    let other = new_organization(&ports, "starter").await;
    ports
        .contacts
        .set_blocked(&other.id, &number("+15558000001"), true, at(50))
        .await
        .expect("set_blocked");
    let mut found: Vec<_> = ports
        .contacts
        .contacts_with_numbers(&org.id, &asked)
        .await
        .expect("contacts_with_numbers")
        .into_iter()
        .map(|c| (c.number, c.marketing))
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        found,
        [
            (Some(phone(NUMBER)), MarketingPreference::Stopped),
            (Some(phone("+15557654321")), MarketingPreference::Allowed),
        ]
    );
}

pub async fn contacts_block_and_keyword_rule_round_trip(ports: Ports) {
    let org = new_organization(&ports, "starter").await;
    let other = new_organization(&ports, "starter").await;
    let blocked = ports
        .contacts
        .set_blocked(&org.id, &number(NUMBER), true, at(5))
        .await
        .expect("set_blocked");
    assert!(blocked.blocked);
    assert_eq!(blocked.blocked_at, Some(at(5)));
    let again = ports
        .contacts
        .set_blocked(&org.id, &number(NUMBER), true, at(9))
        .await
        .expect("set_blocked");
    assert_eq!(
        again.blocked_at,
        Some(at(5)),
        "blocking again keeps the first time"
    );
    assert_eq!(
        ports
            .contacts
            .contact(&org.id, &number(NUMBER))
            .await
            .expect("contact"),
        Some(again.clone())
    );
    assert_eq!(
        ports
            .contacts
            .contact(&other.id, &number(NUMBER))
            .await
            .expect("contact"),
        None
    );
    let unblocked = ports
        .contacts
        .set_blocked(&org.id, &number(NUMBER), false, at(10))
        .await
        .expect("set_blocked");
    assert!(!unblocked.blocked);
    assert_eq!(unblocked.blocked_at, None);
    assert!(
        events_of(&ports, &org).await.is_empty(),
        "a block writes no customer event"
    );

    assert!(
        ports
            .contacts
            .keyword_rule(&org.id)
            .await
            .expect("keyword_rule")
            .is_off()
    );
    let rule = KeywordRule::new(vec!["stop".into(), "unsubscribe".into()], vec!["start".into()])
        .expect("a valid rule");
    ports
        .contacts
        .set_keyword_rule(&org.id, &rule, at(1))
        .await
        .expect("set_keyword_rule");
    assert_eq!(
        ports.contacts.keyword_rule(&org.id).await.expect("keyword_rule"),
        rule
    );
    assert!(
        ports
            .contacts
            .keyword_rule(&other.id)
            .await
            .expect("keyword_rule")
            .is_off()
    );
    ports
        .contacts
        .set_keyword_rule(&org.id, &KeywordRule::default(), at(2))
        .await
        .expect("set_keyword_rule");
    assert!(
        ports
            .contacts
            .keyword_rule(&org.id)
            .await
            .expect("keyword_rule")
            .is_off()
    );
}
