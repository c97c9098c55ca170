//! `Contacts` (docs/api.md §7.1): reading a contact with its window, the organization's own opt-outs, blocks
//! through the network (its 24-hour rule checked first, its refusals reported, nothing recorded on any
//! failure); and `ProcessCallbacks` recording the network's `user_preferences`, user-id pairings and the
//! STOP keyword rule.

use super::*;
use crate::contact::{
    Contact, KeywordRule, MarketingPreference, PreferenceChange, PreferenceSource, Recipient,
};
use crate::customer_event::InboundRecord;
use crate::dispatch::StoredCallback;
use crate::ids::EventId;
use crate::message::MessageError;
use crate::network::{InboundContent, InboundMessage, NetworkEvent, ParsedCallback, UserPreference};
use crate::ports::{
    BlockFailure, MockAccountStore, MockCallbackDecoder, MockContactStore, MockMessagingNetwork,
    MockTrackingStore, MockWindowStore, NetworkError,
};
use crate::usecases::{ContactError, ContactPorts, Contacts, ProcessCallbacks};
use crate::values::UserId;
use crate::window::ServiceWindow;
use std::sync::{Arc, Mutex};

const USER: &str = "US.13491208655302741918";

fn recipient() -> Recipient {
    Recipient::Number(phone(RECIPIENT))
}

fn open_window() -> ServiceWindow {
    ServiceWindow {
        organization_id: org_id(),
        sender_id: sender(1, DEFAULT_NUMBER, true).id,
        recipient: recipient(),
        last_inbound_at: now() - chrono::TimeDelta::hours(1),
    }
}

struct Ports {
    accounts: MockAccountStore,
    contacts: MockContactStore,
    windows: MockWindowStore,
    network: MockMessagingNetwork,
}

impl Ports {
    fn new() -> Self {
        let mut accounts = MockAccountStore::new();
        accounts.expect_senders().returning(|_| Ok(two_senders().into()));
        Self {
            accounts,
            contacts: MockContactStore::new(),
            windows: MockWindowStore::new(),
            network: MockMessagingNetwork::new(),
        }
    }

    fn window(&mut self, window: Option<ServiceWindow>) -> &mut Self {
        self.windows
            .expect_window()
            .returning(move |_, _, _| Ok(window.clone()));
        self
    }

    fn known(&mut self, contact: Option<Contact>) -> &mut Self {
        self.contacts
            .expect_contact()
            .returning(move |_, _| Ok(contact.clone()));
        self
    }

    fn build(self) -> Contacts {
        Contacts::new(ContactPorts {
            accounts: Arc::new(self.accounts),
            contacts: Arc::new(self.contacts),
            windows: Arc::new(self.windows),
            network: Arc::new(self.network),
            clock: Arc::new(clock_at(now())),
            ids: Arc::new(sequential_ids()),
        })
    }
}

#[test]
fn a_person_nothing_is_known_about_reads_as_allowed_and_not_blocked_with_the_window() {
    let mut ports = Ports::new();
    ports.known(None).window(Some(open_window()));
    let view = run(ports.build().get(&org_id(), &recipient(), None)).unwrap();
    assert_eq!(view.contact.marketing, MarketingPreference::Allowed);
    assert!(!view.contact.blocked);
    let window = view.window.unwrap();
    assert!(window.open);
    assert_eq!(window.from, phone(DEFAULT_NUMBER));
}

#[test]
fn an_unknown_from_is_a_validation_error() {
    let ports = Ports::new();
    let result = run(ports
        .build()
        .get(&org_id(), &recipient(), Some(phone("+19999999999"))));
    assert!(matches!(result, Err(ContactError::Invalid(_))), "{result:?}");
}

#[test]
fn an_opt_out_is_recorded_as_an_api_change_with_its_event_id() {
    let mut ports = Ports::new();
    let seen = Arc::new(Mutex::new(Vec::<PreferenceChange>::new()));
    let keep = Arc::clone(&seen);
    ports
        .contacts
        .expect_record_preference()
        .times(1)
        .returning(move |change| {
            keep.lock().unwrap().push(change.clone());
            Ok(true)
        });
    let mut stopped = Contact::unknown(org_id(), &recipient(), now());
    stopped.marketing = MarketingPreference::Stopped;
    ports.known(Some(stopped)).window(None);
    let view = run(ports
        .build()
        .set_marketing(&org_id(), &recipient(), MarketingPreference::Stopped))
    .unwrap();
    assert_eq!(view.contact.marketing, MarketingPreference::Stopped);
    let change = seen.lock().unwrap()[0].clone();
    assert_eq!(change.source, PreferenceSource::Api);
    assert_eq!(change.number, Some(phone(RECIPIENT)));
    assert_eq!(change.dedupe_key, None);
    assert_eq!(change.occurred_at, now());
}

#[test]
fn blocking_someone_whose_window_is_closed_asks_nothing_of_the_network() {
    let mut ports = Ports::new();
    ports.known(None).window(None);
    ports.network.expect_block_users().times(0);
    ports.contacts.expect_set_blocked().times(0);
    let result = run(ports.build().set_blocked(&org_id(), &recipient(), None, true));
    assert!(
        matches!(result, Err(ContactError::WindowClosed { .. })),
        "{result:?}"
    );
}

#[test]
fn blocking_a_user_id_known_by_no_number_checks_the_window_its_own_messages_opened() {
    let user = Recipient::User(UserId::parse(USER).unwrap());
    let mut ports = Ports::new();
    ports.known(None);
    ports
        .windows
        .expect_window()
        .withf(move |_, _, key| key.as_str() == USER)
        .times(1)
        .returning(|_, _, _| Ok(None));
    ports.network.expect_block_users().times(0);
    let result = run(ports.build().set_blocked(&org_id(), &user, None, true));
    assert!(
        matches!(result, Err(ContactError::WindowClosed { .. })),
        "{result:?}"
    );
}

#[test]
fn a_block_goes_to_the_network_of_the_sender_then_is_recorded() {
    let mut ports = Ports::new();
    ports.known(None).window(Some(open_window()));
    ports
        .network
        .expect_block_users()
        .withf(|sender, users, block| {
            sender.number == phone(DEFAULT_NUMBER) && users == [recipient()] && *block
        })
        .times(1)
        .returning(|_, _, _| Ok(Vec::new()));
    ports
        .contacts
        .expect_set_blocked()
        .withf(|org, r, blocked, at| *org == org_id() && *r == recipient() && *blocked && *at == now())
        .times(1)
        .returning(|_, r, _, at| {
            let mut contact = Contact::unknown(org_id(), r, at);
            contact.blocked = true;
            contact.blocked_at = Some(at);
            Ok(contact)
        });
    let view = run(ports.build().set_blocked(&org_id(), &recipient(), None, true)).unwrap();
    assert!(view.contact.blocked);
}

#[test]
fn network_refusals_and_failures_record_nothing() {
    for (answer, refused) in [
        (
            Ok(vec![BlockFailure {
                user: "15551234567".into(),
                reason: "User has not messaged in the last 24 hours (error 131047)".into(),
            }]),
            true,
        ),
        (
            Err(NetworkError::Permanent(MessageError {
                code: "invalid_parameter".into(),
                title: "Invalid parameter".into(),
                detail: "bad user".into(),
                network_code: Some(100),
            })),
            true,
        ),
        (
            Err(NetworkError::Retryable {
                code: Some(2),
                detail: "down".into(),
                retry_after: None,
            }),
            false,
        ),
    ] {
        let mut ports = Ports::new();
        ports.known(None).window(Some(open_window()));
        ports
            .network
            .expect_block_users()
            .times(1)
            .returning(move |_, _, _| answer.clone());
        ports.contacts.expect_set_blocked().times(0);
        let result = run(ports.build().set_blocked(&org_id(), &recipient(), None, true));
        if refused {
            assert!(
                matches!(result, Err(ContactError::NetworkRefused(_))),
                "{result:?}"
            );
        } else {
            assert!(matches!(result, Err(ContactError::Network(_))), "{result:?}");
        }
    }
}

#[test]
fn unblocking_has_no_window_rule() {
    let mut ports = Ports::new();
    ports.known(None);
    // Read once, by the answer's view after the unblock; never as a precondition.
    ports
        .windows
        .expect_window()
        .times(1)
        .returning(|_, _, _| Ok(None));
    ports
        .network
        .expect_block_users()
        .withf(|_, _, block| !*block)
        .times(1)
        .returning(|_, _, _| Ok(Vec::new()));
    ports
        .contacts
        .expect_set_blocked()
        .times(1)
        .returning(|_, r, _, at| Ok(Contact::unknown(org_id(), r, at)));
    let view = run(ports.build().set_blocked(&org_id(), &recipient(), None, false)).unwrap();
    assert!(!view.contact.blocked);
}

// ---- ProcessCallbacks ----

fn stored() -> StoredCallback {
    StoredCallback {
        id: EventId::from_ulid(ulid(990)),
        received_at: now(),
        body: b"{}".to_vec(),
    }
}

fn callbacks(events: Vec<NetworkEvent>, contacts: MockContactStore) -> ProcessCallbacks {
    callbacks_recording(events, contacts).0
}

/// [`callbacks`], and the inbound messages it records as it records them.
fn callbacks_recording(
    events: Vec<NetworkEvent>,
    contacts: MockContactStore,
) -> (ProcessCallbacks, Arc<Mutex<Vec<InboundRecord>>>) {
    let recorded = Arc::new(Mutex::new(Vec::new()));
    let mut decoder = MockCallbackDecoder::new();
    decoder.expect_decode().returning(move |_| {
        Ok(ParsedCallback {
            events: events.clone(),
            skipped: Vec::new(),
            unknown_fields: Vec::new(),
        })
    });
    let mut accounts = MockAccountStore::new();
    accounts.expect_sender_by_phone_number_id().returning(|id| {
        let known = sender(1, DEFAULT_NUMBER, true);
        Ok((*id == known.phone_number_id).then_some(known))
    });
    let mut tracking = MockTrackingStore::new();
    tracking
        .expect_mark_callback_processed()
        .returning(|_, _, _| Ok(()));
    // Status reports here are about messages the store does not know: only their contact side matters.
    tracking.expect_message_by_network_id().returning(|_, _| Ok(None));
    tracking.expect_record_inbound_message().returning({
        let recorded = Arc::clone(&recorded);
        move |record| {
            recorded.lock().unwrap().push(record.clone());
            Ok(true)
        }
    });
    let callbacks = ProcessCallbacks::new(
        Arc::new(accounts),
        Arc::new(tracking),
        Arc::new(decoder),
        Arc::new(clock_at(now())),
        Arc::new(sequential_ids()),
    )
    .with_contacts(Arc::new(contacts));
    (callbacks, recorded)
}

#[test]
fn a_user_preference_is_recorded_for_the_organization_of_its_number_once_per_key() {
    let preference = UserPreference {
        phone_number_id: sender(1, DEFAULT_NUMBER, true).phone_number_id,
        number: None,
        user_id: Some(UserId::parse(USER).unwrap()),
        preference: MarketingPreference::Stopped,
        occurred_at: now() - seconds(5),
        dedupe_key: "key".into(),
    };
    let mut contacts = MockContactStore::new();
    contacts
        .expect_record_preference()
        .withf(|change| {
            change.organization_id == org_id()
                && change.user_id.as_ref().map(UserId::as_str) == Some(USER)
                && change.number.is_none()
                && change.source == PreferenceSource::Network
                && change.dedupe_key.as_deref() == Some("key")
        })
        .times(2)
        .returning({
            let first = Arc::new(Mutex::new(true));
            move |_| Ok(std::mem::replace(&mut *first.lock().unwrap(), false))
        });
    let unknown = UserPreference {
        phone_number_id: network_ref("199999999"),
        ..preference.clone()
    };
    let report = run(callbacks(
        vec![
            NetworkEvent::Preference(preference.clone()),
            NetworkEvent::Preference(preference),
            NetworkEvent::Preference(unknown),
        ],
        contacts,
    )
    .process(&stored()))
    .unwrap();
    assert_eq!(report.preferences_recorded, 1);
    assert_eq!(report.duplicates, 1);
    assert_eq!(report.skipped.len(), 1, "{:?}", report.skipped);
}

fn inbound_text(body: &str, user_id: Option<&str>) -> InboundMessage {
    InboundMessage {
        phone_number_id: sender(1, DEFAULT_NUMBER, true).phone_number_id,
        network_message_id: "wamid.KEYWORD".into(),
        from: recipient(),
        from_user_id: user_id.map(|id| UserId::parse(id).unwrap()),
        from_name: None,
        received_at: now() - seconds(3),
        message_type: "text".into(),
        content: InboundContent::Text { body: body.into() },
        context_message_id: None,
        referral: None,
        raw: "{}".into(),
        source_field: crate::network::SourceField::Messages,
        echo: false,
    }
}

#[test]
fn an_inbound_user_id_is_paired_and_a_keyword_records_a_preference_under_the_rule() {
    let mut contacts = MockContactStore::new();
    contacts
        .expect_pair_user_id()
        .withf(|org, number, user, _| {
            *org == org_id() && *number == phone(RECIPIENT) && user.as_str() == USER
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    contacts
        .expect_keyword_rule()
        .returning(|_| Ok(KeywordRule::new(vec!["STOP".into()], vec!["START".into()]).unwrap()));
    contacts
        .expect_record_preference()
        .withf(|change| {
            change.preference == MarketingPreference::Stopped
                && change.source == PreferenceSource::Keyword
                && change.dedupe_key.as_deref() == Some("keyword:wamid.KEYWORD")
        })
        .times(1)
        .returning(|_| Ok(true));
    let report = run(callbacks(
        vec![NetworkEvent::Inbound(inbound_text(" stop ", Some(USER)))],
        contacts,
    )
    .process(&stored()))
    .unwrap();
    assert_eq!(report.preferences_recorded, 1);

    let mut contacts = MockContactStore::new();
    contacts
        .expect_keyword_rule()
        .returning(|_| Ok(KeywordRule::default()));
    contacts.expect_record_preference().times(0);
    contacts.expect_pair_user_id().times(0);
    let report =
        run(callbacks(vec![NetworkEvent::Inbound(inbound_text("STOP", None))], contacts).process(&stored()))
            .unwrap();
    assert_eq!(report.preferences_recorded, 0, "the rule is off by default");
}

#[test]
fn an_echo_of_the_business_saying_stop_records_no_preference() {
    let mut contacts = MockContactStore::new();
    contacts
        .expect_keyword_rule()
        .returning(|_| Ok(KeywordRule::new(vec!["STOP".into()], vec!["START".into()]).unwrap()));
    contacts.expect_record_preference().times(0);
    let echo = InboundMessage {
        source_field: crate::network::SourceField::SmbMessageEchoes,
        echo: true,
        ..inbound_text("STOP", None)
    };
    let report = run(callbacks(vec![NetworkEvent::Inbound(echo)], contacts).process(&stored())).unwrap();
    assert_eq!(report.preferences_recorded, 0);
    assert_eq!(report.inbound_recorded, 1);
}

/// A message from a user who hides their number, named by user id alone.
fn inbound_by_user_id(body: &str) -> InboundMessage {
    let user = UserId::parse(USER).unwrap();
    InboundMessage {
        from: Recipient::User(user.clone()),
        from_user_id: Some(user),
        ..inbound_text(body, None)
    }
}

fn user_contact(number: Option<&str>) -> Contact {
    Contact {
        number: number.map(phone),
        user_id: Some(UserId::parse(USER).unwrap()),
        ..Contact::unknown(org_id(), &Recipient::User(UserId::parse(USER).unwrap()), now())
    }
}

#[test]
fn a_message_by_user_id_alone_is_recorded_from_the_number_its_contact_pairs_it_with() {
    let mut contacts = MockContactStore::new();
    contacts
        .expect_contact()
        .withf(|org, who| *org == org_id() && who.as_str() == USER)
        .times(1)
        .returning(|_, _| Ok(Some(user_contact(Some(RECIPIENT)))));
    // Already paired: pairing again would change nothing, and the message's own pair is (number, id).
    contacts
        .expect_pair_user_id()
        .withf(|_, number, user, _| *number == phone(RECIPIENT) && user.as_str() == USER)
        .returning(|_, _, _, _| Ok(()));
    contacts
        .expect_keyword_rule()
        .returning(|_| Ok(KeywordRule::default()));
    let (callbacks, recorded) =
        callbacks_recording(vec![NetworkEvent::Inbound(inbound_by_user_id("hi"))], contacts);
    let report = run(callbacks.process(&stored())).unwrap();
    assert_eq!(report.inbound_recorded, 1, "{:?}", report.skipped);
    let recorded = recorded.lock().unwrap();
    assert_eq!(recorded[0].message.from, recipient());
    assert_eq!(recorded[0].message.from_user_id.as_ref().unwrap().as_str(), USER);
}

#[test]
fn a_message_by_an_unpaired_user_id_is_recorded_from_the_user_id_and_its_keyword_names_it() {
    let mut contacts = MockContactStore::new();
    contacts
        .expect_contact()
        .times(1)
        .returning(|_, _| Ok(Some(user_contact(None))));
    contacts.expect_pair_user_id().times(0);
    contacts
        .expect_keyword_rule()
        .returning(|_| Ok(KeywordRule::new(vec!["STOP".into()], vec![]).unwrap()));
    contacts
        .expect_record_preference()
        .withf(|change| {
            change.number.is_none()
                && change.user_id.as_ref().map(UserId::as_str) == Some(USER)
                && change.preference == MarketingPreference::Stopped
        })
        .times(1)
        .returning(|_| Ok(true));
    let (callbacks, recorded) =
        callbacks_recording(vec![NetworkEvent::Inbound(inbound_by_user_id("STOP"))], contacts);
    let report = run(callbacks.process(&stored())).unwrap();
    assert_eq!(report.inbound_recorded, 1, "{:?}", report.skipped);
    assert_eq!(report.preferences_recorded, 1);
    let recorded = recorded.lock().unwrap();
    assert_eq!(
        recorded[0].message.from,
        Recipient::User(UserId::parse(USER).unwrap())
    );
}

/// A status report about a message to `RECIPIENT`, naming the recipient's user id as `recipient_user_id`.
fn status_naming(user_id: Option<&str>) -> NetworkEvent {
    NetworkEvent::Status(crate::network::NetworkStatusReport {
        phone_number_id: sender(1, DEFAULT_NUMBER, true).phone_number_id,
        network_message_id: "wamid.PAIRED".into(),
        callback_data: None,
        status: crate::network::ReportedStatus::Delivered,
        occurred_at: now() - seconds(2),
        recipient: Some(RECIPIENT.trim_start_matches('+').to_owned()),
        recipient_user_id: user_id.map(|id| UserId::parse(id).unwrap()),
        error: None,
        pricing: None,
    })
}

#[test]
fn a_status_naming_number_and_user_id_pairs_them_once() {
    // Not paired yet: the report pairs them.
    let mut contacts = MockContactStore::new();
    contacts.expect_contact().returning(|_, _| Ok(None));
    contacts
        .expect_pair_user_id()
        .withf(|org, number, user, _| {
            *org == org_id() && *number == phone(RECIPIENT) && user.as_str() == USER
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    run(callbacks(vec![status_naming(Some(USER))], contacts).process(&stored())).unwrap();

    // Already paired with this number: nothing is written.
    let mut contacts = MockContactStore::new();
    contacts
        .expect_contact()
        .returning(|_, _| Ok(Some(user_contact(Some(RECIPIENT)))));
    contacts.expect_pair_user_id().times(0);
    run(callbacks(vec![status_naming(Some(USER))], contacts).process(&stored())).unwrap();

    // A report without a user id asks nothing of the contacts.
    let mut contacts = MockContactStore::new();
    contacts.expect_contact().times(0);
    contacts.expect_pair_user_id().times(0);
    run(callbacks(vec![status_naming(None)], contacts).process(&stored())).unwrap();
}
