//! The parser on the account notices of `fixtures/cloud-api/account_notices.json` (Meta's documented shapes
//! of the template, number and account webhooks), and on broken ones.

use herald_cloudapi::parse_callback;
use herald_domain::network::{AccountNotice, NetworkEvent, NoticeChange};
use serde_json::{Value, json};

const FIXTURE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/cloud-api/account_notices.json"
));

fn cases() -> serde_json::Map<String, Value> {
    serde_json::from_str::<Value>(FIXTURE)
        .unwrap()
        .as_object()
        .unwrap()
        .clone()
}

fn notice(name: &str) -> AccountNotice {
    let body = serde_json::to_vec(&cases()[name]).unwrap();
    let parsed = parse_callback(&body).unwrap();
    assert!(parsed.skipped.is_empty(), "{name}: {:?}", parsed.skipped);
    match parsed.events.as_slice() {
        [NetworkEvent::Notice(notice)] => notice.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn every_fixture_case_is_a_notice_of_its_business_account_at_its_time() {
    let cases = cases();
    assert_eq!(cases.len(), 12);
    let mut keys = Vec::new();
    for name in cases.keys() {
        let notice = notice(name);
        assert_eq!(notice.waba_id.as_str(), "102290129340398", "{name}");
        let time = cases[name]["entry"][0]["time"].as_i64().unwrap();
        assert_eq!(notice.occurred_at.timestamp(), time, "{name}");
        keys.push(notice.dedupe_key);
    }
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 12, "every notice has its own key");
}

#[test]
fn template_status_updates_carry_the_template_the_status_and_the_reason() {
    let NoticeChange::TemplateStatus {
        template,
        status,
        reason,
        info,
    } = notice("template_approved").change
    else {
        panic!()
    };
    assert_eq!(template.network_id.as_deref(), Some("806312974732579"));
    assert_eq!(template.name.as_str(), "order_confirmation");
    assert_eq!(template.language.as_str(), "en_US");
    assert_eq!(status.as_str(), "APPROVED");
    assert_eq!(reason, None, "the network's NONE is no reason");
    assert_eq!(info, None);

    let NoticeChange::TemplateStatus {
        template,
        status,
        reason,
        ..
    } = notice("template_rejected").change
    else {
        panic!()
    };
    assert_eq!(status.as_str(), "REJECTED");
    assert_eq!(reason.as_deref(), Some("INVALID_FORMAT"));
    assert_eq!(template.language.as_str(), "en_US", "en-US is read as en_US");

    let NoticeChange::TemplateStatus { status, info, .. } = notice("template_paused").change else {
        panic!()
    };
    assert_eq!(status.as_str(), "PAUSED");
    let info = info.unwrap();
    assert_eq!(info.title.as_deref(), Some("FIRST_PAUSE"));
    assert!(info.description.unwrap().contains("paused for 3 hours"));
}

#[test]
fn quality_and_category_updates_carry_both_sides() {
    let NoticeChange::TemplateQuality {
        previous, quality, ..
    } = notice("template_quality").change
    else {
        panic!()
    };
    assert_eq!(previous.unwrap().as_str(), "GREEN");
    assert_eq!(quality.as_str(), "YELLOW");

    let NoticeChange::TemplateCategory {
        previous,
        category,
        correct,
        ..
    } = notice("template_category_changed").change
    else {
        panic!()
    };
    assert_eq!(
        (previous.as_deref(), category.as_str(), correct),
        (Some("UTILITY"), "MARKETING", None)
    );
    let NoticeChange::TemplateCategory {
        previous,
        category,
        correct,
        ..
    } = notice("template_category_impending").change
    else {
        panic!()
    };
    assert_eq!(
        (previous, category.as_str(), correct.as_deref()),
        (None, "UTILITY", Some("MARKETING"))
    );
}

#[test]
fn phone_number_updates_carry_the_number_the_event_and_the_limits() {
    let NoticeChange::SenderQuality {
        display_phone_number,
        event,
        current_limit,
        old_limit,
    } = notice("phone_number_flagged").change
    else {
        panic!()
    };
    assert_eq!(display_phone_number, "15550783881");
    assert_eq!(event, "FLAGGED");
    assert_eq!(current_limit.as_deref(), Some("TIER_10K"));
    assert_eq!(old_limit, None);
    let NoticeChange::SenderQuality {
        event,
        current_limit,
        old_limit,
        ..
    } = notice("phone_number_upgraded").change
    else {
        panic!()
    };
    assert_eq!(
        (event.as_str(), current_limit.as_deref(), old_limit.as_deref()),
        ("UPGRADE", Some("TIER_100K"), Some("TIER_10K"))
    );
}

#[test]
fn account_updates_and_alerts_keep_the_network_details() {
    for (name, field, event, detail) in [
        (
            "account_disabled",
            "account_update",
            "DISABLED_UPDATE",
            "ban_info",
        ),
        (
            "account_violation",
            "account_update",
            "ACCOUNT_VIOLATION",
            "violation_info",
        ),
        (
            "account_restriction",
            "account_update",
            "ACCOUNT_RESTRICTION",
            "restriction_info",
        ),
        (
            "account_alert",
            "account_alerts",
            "INCREASED_CAPABILITIES_ELIGIBILITY_DEFERRED",
            "alert_info",
        ),
    ] {
        let NoticeChange::Account {
            field: got_field,
            event: got_event,
            details_json,
        } = notice(name).change
        else {
            panic!("{name}")
        };
        assert_eq!((got_field.as_str(), got_event.as_str()), (field, event), "{name}");
        let details: Value = serde_json::from_str(&details_json).unwrap();
        assert!(details.get(detail).is_some(), "{name}: {details}");
    }
}

#[test]
fn the_same_notice_delivered_twice_has_the_same_key() {
    let body = serde_json::to_vec(&cases()["template_quality"]).unwrap();
    let first = parse_callback(&body).unwrap();
    let second = parse_callback(&body).unwrap();
    assert_eq!(first, second);
}

#[test]
fn a_broken_notice_is_skipped_with_its_reason_and_the_others_still_parse() {
    let body = json!({
        "object": "whatsapp_business_account",
        "entry": [
            { "id": "102290129340398", "time": 1674864290, "changes": [
                { "field": "message_template_status_update", "value": {
                    "event": "APPROVED", "message_template_name": "Not A Name",
                    "message_template_language": "en_US" } },
                { "field": "message_template_quality_update", "value": {
                    "new_quality_score": "GREEN", "message_template_name": "fine",
                    "message_template_language": "en_US" } },
                { "field": "phone_number_quality_update", "value": { "event": "FLAGGED" } }
            ] },
            { "id": "102290129340398", "changes": [
                { "field": "account_update", "value": { "event": "DISABLED_UPDATE" } }
            ] }
        ]
    });
    let parsed = parse_callback(&serde_json::to_vec(&body).unwrap()).unwrap();
    assert_eq!(parsed.events.len(), 1, "{:?}", parsed.events);
    let skipped = parsed.skipped.join("\n");
    for expected in [
        "entry[0].changes[0]: message_template_status_update: `message_template_name` Not A Name",
        "entry[0].changes[2]: phone_number_quality_update: no `display_phone_number`",
        "entry[1].changes[0]: account_update: no entry `time`",
    ] {
        assert!(skipped.contains(expected), "missing `{expected}` in\n{skipped}");
    }
}
