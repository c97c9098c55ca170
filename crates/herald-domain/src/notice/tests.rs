#![allow(clippy::unwrap_used, reason = "test code")]

use super::*;
use crate::template::{LanguageCode, TemplateName};
use ulid::Ulid;

fn at(seconds: i64) -> Timestamp {
    chrono::DateTime::from_timestamp(seconds, 0).unwrap()
}

fn named() -> NoticeTemplate {
    NoticeTemplate {
        network_id: Some("806312974732579".into()),
        name: TemplateName::parse("order_update").unwrap(),
        language: LanguageCode::parse("en_US").unwrap(),
    }
}

fn record(change: NoticeChange, sender: Option<NoticeSender>) -> NoticeRecord {
    NoticeRecord {
        organization_id: OrganizationId::from_ulid(Ulid::from_parts(1, 1)),
        event_id: EventId::from_ulid(Ulid::from_parts(2, 2)),
        recorded_at: at(2_000),
        notice: AccountNotice {
            waba_id: NetworkRef::parse("2000000001").unwrap(),
            occurred_at: at(1_000),
            dedupe_key: "k".into(),
            change,
        },
        sender,
    }
}

fn stored(status: &str) -> TemplateState {
    TemplateState {
        status: TemplateStatus::parse(status).unwrap(),
        category: "UTILITY".into(),
        health: TemplateHealth {
            quality: Some(QualityScore::parse("GREEN").unwrap()),
            rejected_reason: None,
            updated_at: Some(at(10)),
        },
    }
}

fn status_change(status: &str, reason: Option<&str>) -> NoticeChange {
    NoticeChange::TemplateStatus {
        template: named(),
        status: TemplateStatus::parse(status).unwrap(),
        reason: reason.map(str::to_owned),
        info: None,
    }
}

#[test]
fn a_rejection_sets_the_status_and_the_reason_and_names_the_previous_status() {
    let decision = decide(
        &record(status_change("REJECTED", Some("INVALID_FORMAT")), None),
        Some(&stored("PENDING")),
        None,
    );
    let next = decision.template.unwrap();
    assert_eq!(next.status.as_str(), "REJECTED");
    assert_eq!(next.health.rejected_reason.as_deref(), Some("INVALID_FORMAT"));
    assert_eq!(
        next.health.updated_at,
        Some(at(2_000)),
        "the copy is stamped when recorded"
    );
    assert_eq!(next.health.quality.unwrap().as_str(), "GREEN", "quality is kept");
    assert_eq!(decision.event.event_type().as_str(), "template.status");
    assert_eq!(decision.event.dedupe_key, "k");
    assert_eq!(decision.event.occurred_at, at(1_000));
    let NoticeBody::TemplateStatus {
        previous_status,
        reason,
        ..
    } = decision.event.body
    else {
        panic!()
    };
    assert_eq!(previous_status.unwrap().as_str(), "PENDING");
    assert_eq!(reason.as_deref(), Some("INVALID_FORMAT"));
}

#[test]
fn an_approval_clears_an_old_rejection_reason() {
    let mut rejected = stored("REJECTED");
    rejected.health.rejected_reason = Some("INVALID_FORMAT".into());
    let decision = decide(
        &record(status_change("APPROVED", None), None),
        Some(&rejected),
        None,
    );
    let next = decision.template.unwrap();
    assert_eq!(next.status.as_str(), "APPROVED");
    assert_eq!(next.health.rejected_reason, None);
}

#[test]
fn a_template_without_a_copy_is_still_reported_without_a_previous_status() {
    let decision = decide(&record(status_change("APPROVED", None), None), None, None);
    assert_eq!(decision.template, None, "nothing to change until the next sync");
    let NoticeBody::TemplateStatus {
        previous_status,
        template,
        ..
    } = decision.event.body
    else {
        panic!()
    };
    assert_eq!(previous_status, None);
    assert_eq!(template, named());
}

#[test]
fn quality_and_category_updates_change_only_their_part() {
    let quality = NoticeChange::TemplateQuality {
        template: named(),
        previous: Some(QualityScore::parse("GREEN").unwrap()),
        quality: QualityScore::parse("RED").unwrap(),
    };
    let decision = decide(&record(quality, None), Some(&stored("APPROVED")), None);
    let next = decision.template.unwrap();
    assert_eq!(next.health.quality.unwrap().as_str(), "RED");
    assert_eq!(next.status.as_str(), "APPROVED");
    assert_eq!(decision.event.event_type().as_str(), "template.quality");

    let category = NoticeChange::TemplateCategory {
        template: named(),
        previous: None,
        category: "MARKETING".into(),
        correct: None,
    };
    let decision = decide(&record(category, None), Some(&stored("APPROVED")), None);
    assert_eq!(decision.template.unwrap().category, "MARKETING");
    let NoticeBody::TemplateCategory {
        previous_category, ..
    } = decision.event.body
    else {
        panic!()
    };
    assert_eq!(
        previous_category.as_deref(),
        Some("UTILITY"),
        "the copy's category when the network gives none"
    );
}

#[test]
fn a_flagged_number_is_rated_red_and_keeps_its_limit_until_one_is_reported() {
    let sender = NoticeSender {
        id: SenderId::from_ulid(Ulid::from_parts(3, 3)),
        number: PhoneNumber::parse("+15550001111").unwrap(),
    };
    let flagged = NoticeChange::SenderQuality {
        display_phone_number: "15550001111".into(),
        event: "FLAGGED".into(),
        current_limit: None,
        old_limit: None,
    };
    let before = SenderQuality {
        quality_rating: Some("GREEN".into()),
        messaging_limit: Some("TIER_1K".into()),
        quality_updated_at: Some(at(5)),
    };
    let decision = decide(&record(flagged, Some(sender.clone())), None, Some(&before));
    assert_eq!(
        decision.sender,
        Some(SenderQuality {
            quality_rating: Some("RED".into()),
            messaging_limit: Some("TIER_1K".into()),
            quality_updated_at: Some(at(1_000)),
        })
    );
    assert_eq!(decision.event.event_type().as_str(), "sender.quality");

    let upgraded = NoticeChange::SenderQuality {
        display_phone_number: "15550001111".into(),
        event: "UPGRADE".into(),
        current_limit: Some("TIER_10K".into()),
        old_limit: None,
    };
    let decision = decide(&record(upgraded, Some(sender)), None, Some(&before));
    let next = decision.sender.unwrap();
    assert_eq!(
        next.quality_rating.as_deref(),
        Some("GREEN"),
        "a limit change says nothing of the rating"
    );
    assert_eq!(next.messaging_limit.as_deref(), Some("TIER_10K"));
    let NoticeBody::SenderQuality { previous_limit, .. } = decision.event.body else {
        panic!()
    };
    assert_eq!(previous_limit.as_deref(), Some("TIER_1K"));
}

#[test]
fn an_account_update_changes_nothing_stored() {
    let change = NoticeChange::Account {
        field: "account_update".into(),
        event: "ACCOUNT_VIOLATION".into(),
        details_json: r#"{"violation_info":{"violation_type":"SCAM"}}"#.into(),
    };
    let decision = decide(&record(change, None), None, None);
    assert_eq!((decision.template, decision.sender), (None, None));
    assert_eq!(decision.event.event_type().as_str(), "account.update");
}

#[test]
fn a_reinstated_template_is_approved_again_and_the_event_says_reinstated() {
    let decision = decide(
        &record(status_change("REINSTATED", None), None),
        Some(&stored("PAUSED")),
        None,
    );
    assert_eq!(decision.template.unwrap().status.as_str(), "APPROVED");
    let NoticeBody::TemplateStatus { event, status, .. } = decision.event.body else {
        panic!()
    };
    assert_eq!((event.as_str(), status.as_str()), ("REINSTATED", "APPROVED"));
}
