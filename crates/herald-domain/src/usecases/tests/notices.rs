//! `ProcessCallbacks` on account notices: routed to every organization the business account belongs to
//! (its owner and those it is shared with; a number's notice only to those with the number), one record
//! each, never to another organization with a sender of the account, duplicates counted, an unknown
//! account skipped with a note.

use super::*;
use crate::dispatch::StoredCallback;
use crate::ids::EventId;
use crate::network::{AccountNotice, NetworkEvent, NoticeChange, ParsedCallback, QualityScore};
use crate::notice::NoticeRecord;
use crate::ports::{MockAccountStore, MockCallbackDecoder, MockTrackingStore};
use crate::usecases::{CallbackReport, ProcessCallbacks};
use std::sync::{Arc, Mutex};

fn callback() -> StoredCallback {
    StoredCallback {
        id: EventId::from_ulid(ulid(990)),
        received_at: now(),
        body: b"{}".to_vec(),
    }
}

fn notice(change: NoticeChange) -> AccountNotice {
    AccountNotice {
        waba_id: network_ref("200000001"),
        occurred_at: now() - seconds(5),
        dedupe_key: "key-1".into(),
        change,
    }
}

fn quality_change() -> NoticeChange {
    NoticeChange::TemplateQuality {
        template: crate::network::NoticeTemplate {
            network_id: None,
            name: template_ref().name,
            language: template_ref().language,
        },
        previous: None,
        quality: QualityScore::parse("RED").unwrap(),
    }
}

/// Runs `process` on one notice with the account's senders `senders`; the store answers each record with
/// the next of `answers`. Answers the report and the records handed to the store.
fn process(
    change: NoticeChange,
    senders: Vec<SenderNumber>,
    answers: Vec<bool>,
    note: Option<&'static str>,
) -> (CallbackReport, Vec<NoticeRecord>) {
    // Every organization with a sender shares the account.
    let mut owners: Vec<OrganizationId> = Vec::new();
    for sender in &senders {
        if !owners.contains(&sender.organization_id) {
            owners.push(sender.organization_id);
        }
    }
    process_owned(change, senders, owners, answers, note)
}

/// As [`process`], the account belonging to `owners` only.
fn process_owned(
    change: NoticeChange,
    senders: Vec<SenderNumber>,
    owners: Vec<OrganizationId>,
    answers: Vec<bool>,
    note: Option<&'static str>,
) -> (CallbackReport, Vec<NoticeRecord>) {
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_business_account_organizations()
        .withf(|waba| waba.as_str() == "200000001")
        .times(1)
        .returning(move |_| Ok(owners.clone()));
    accounts
        .expect_senders_of_business_account()
        .withf(|waba| waba.as_str() == "200000001")
        .times(1)
        .returning(move |_| Ok(senders.clone()));
    let mut decoder = MockCallbackDecoder::new();
    let parsed = ParsedCallback {
        events: vec![NetworkEvent::Notice(notice(change))],
        skipped: Vec::new(),
        unknown_fields: Vec::new(),
    };
    decoder.expect_decode().returning(move |_| Ok(parsed.clone()));
    let mut tracking = MockTrackingStore::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&seen);
    let answers = Mutex::new(answers.into_iter());
    tracking.expect_record_notice().returning(move |record| {
        keep.lock().unwrap().push(record.clone());
        Ok(answers.lock().unwrap().next().unwrap())
    });
    tracking
        .expect_mark_callback_processed()
        .withf(move |_, _, given| given.as_deref() == note)
        .times(1)
        .returning(|_, _, _| Ok(()));
    let use_case = ProcessCallbacks::new(
        Arc::new(accounts),
        Arc::new(tracking),
        Arc::new(decoder),
        Arc::new(clock_at(now())),
        Arc::new(sequential_ids()),
    );
    let report = run(use_case.process(&callback())).unwrap();
    let records = seen.lock().unwrap().clone();
    (report, records)
}

fn of_org(mut sender: SenderNumber, org: u128) -> SenderNumber {
    sender.organization_id = crate::ids::OrganizationId::from_ulid(ulid(org));
    sender
}

#[test]
fn a_template_notice_is_recorded_once_for_each_organization_of_the_account() {
    let senders = vec![
        sender(1, DEFAULT_NUMBER, true),
        sender(2, SECOND_NUMBER, false),
        of_org(sender(3, "+15550003333", true), 77),
    ];
    let (report, records) = process(quality_change(), senders, vec![true, true], None);
    assert_eq!(report.notices_recorded, 2);
    let orgs: Vec<_> = records.iter().map(|r| r.organization_id).collect();
    assert_eq!(orgs, [org_id(), crate::ids::OrganizationId::from_ulid(ulid(77))]);
    assert!(
        records
            .iter()
            .all(|r| r.sender.is_none() && r.recorded_at == now())
    );
    assert_ne!(records[0].event_id, records[1].event_id);
}

/// One organization per business account: another organization with a sender of the account (added
/// before the rule, or not shared with) receives none of its template notices, and neither would its own
/// number's.
#[test]
fn a_notice_reaches_no_organization_the_account_does_not_belong_to() {
    let intruder = OrganizationId::from_ulid(ulid(77));
    let senders = vec![
        sender(1, DEFAULT_NUMBER, true),
        of_org(sender(3, "+15550003333", true), 77),
    ];
    let (report, records) = process_owned(
        quality_change(),
        senders.clone(),
        vec![org_id()],
        vec![true],
        None,
    );
    assert_eq!(report.notices_recorded, 1);
    assert!(
        records.iter().all(|r| r.organization_id != intruder),
        "{records:?}"
    );
    let change = NoticeChange::SenderQuality {
        display_phone_number: "15550003333".into(),
        event: "FLAGGED".into(),
        current_limit: None,
        old_limit: None,
    };
    let (report, records) = process_owned(
        change,
        senders,
        vec![org_id()],
        Vec::new(),
        Some("notice for unknown business account 200000001 or number"),
    );
    assert!(records.is_empty(), "{records:?}");
    assert_eq!(report.notices_recorded, 0);
}

#[test]
fn a_number_notice_goes_only_to_the_organizations_with_that_number() {
    let change = NoticeChange::SenderQuality {
        display_phone_number: SECOND_NUMBER.trim_start_matches('+').into(),
        event: "FLAGGED".into(),
        current_limit: Some("TIER_1K".into()),
        old_limit: None,
    };
    let senders = vec![
        sender(1, DEFAULT_NUMBER, true),
        sender(2, SECOND_NUMBER, false),
        of_org(sender(3, "+15550003333", true), 77),
    ];
    let (report, records) = process(change, senders, vec![true], None);
    assert_eq!(report.notices_recorded, 1);
    let named = records[0].sender.clone().unwrap();
    assert_eq!(named.id, sender(2, SECOND_NUMBER, false).id);
    assert_eq!(named.number.as_str(), SECOND_NUMBER);
}

#[test]
fn a_notice_the_store_has_recorded_already_counts_as_a_duplicate() {
    let (report, _) = process(
        quality_change(),
        vec![sender(1, DEFAULT_NUMBER, true)],
        vec![false],
        None,
    );
    assert_eq!((report.notices_recorded, report.duplicates), (0, 1));
}

#[test]
fn a_notice_of_an_unknown_account_is_skipped_with_a_note() {
    let (report, records) = process(
        quality_change(),
        Vec::new(),
        Vec::new(),
        Some("notice for unknown business account 200000001 or number"),
    );
    assert!(records.is_empty());
    assert_eq!(report.notices_recorded, 0);
}
