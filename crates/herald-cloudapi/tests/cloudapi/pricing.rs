//! The `pricing` object of status webhooks, in Meta's per-message pricing shape (`fixtures/cloud-api/pricing.json`).

use herald_cloudapi::parse_callback;
use herald_domain::network::{NetworkEvent, NetworkStatusReport};
use herald_domain::pricing::Pricing;
use serde_json::{Value, json};

const CASES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/cloud-api/pricing.json"
));

fn status_of(envelope: &Value) -> NetworkStatusReport {
    let parsed = parse_callback(&serde_json::to_vec(envelope).unwrap()).unwrap();
    match parsed.events.as_slice() {
        [NetworkEvent::Status(report)] => report.clone(),
        other => panic!(
            "expected one status, got {other:?} (skipped {:?})",
            parsed.skipped
        ),
    }
}

fn case(name: &str) -> NetworkStatusReport {
    let cases: Value = serde_json::from_str(CASES).unwrap();
    status_of(&cases[name])
}

fn words(p: &Pricing) -> (Option<&str>, Option<&str>, Option<&str>, Option<bool>) {
    (
        p.model.as_ref().map(|w| w.as_str()),
        p.category.as_ref().map(|w| w.as_str()),
        p.kind.as_ref().map(|w| w.as_str()),
        p.billable,
    )
}

#[test]
fn every_pricing_case_keeps_model_category_type_and_billable() {
    for (name, expected) in [
        (
            "pmp_marketing_sent",
            (Some("pmp"), Some("marketing"), Some("regular"), Some(true)),
        ),
        (
            "pmp_utility_delivered",
            (Some("pmp"), Some("utility"), Some("regular"), Some(true)),
        ),
        (
            "pmp_free_customer_service",
            (
                Some("pmp"),
                Some("service"),
                Some("free_customer_service"),
                Some(false),
            ),
        ),
        (
            "free_entry_point",
            (
                Some("cbp"),
                Some("referral_conversion"),
                Some("free_entry_point"),
                Some(false),
            ),
        ),
        (
            "without_type",
            (Some("cbp"), Some("authentication"), None, Some(true)),
        ),
    ] {
        let report = case(name);
        let pricing = report.pricing.unwrap_or_else(|| panic!("{name}: no pricing"));
        assert_eq!(words(&pricing), expected, "{name}");
    }
}

#[test]
fn a_bad_pricing_field_is_left_out_and_the_status_still_parses() {
    let cases: Value = serde_json::from_str(CASES).unwrap();
    let mut envelope = cases["pmp_utility_delivered"].clone();
    envelope["entry"][0]["changes"][0]["value"]["statuses"][0]["pricing"] =
        json!({"pricing_model": 7, "category": "not a word", "type": "regular", "billable": "yes"});
    let pricing = status_of(&envelope).pricing.unwrap();
    assert_eq!(words(&pricing), (None, None, Some("regular"), None));

    envelope["entry"][0]["changes"][0]["value"]["statuses"][0]["pricing"] = json!({});
    assert_eq!(
        status_of(&envelope).pricing,
        None,
        "an empty object is no pricing"
    );
    envelope["entry"][0]["changes"][0]["value"]["statuses"][0]
        .as_object_mut()
        .unwrap()
        .remove("pricing");
    assert_eq!(status_of(&envelope).pricing, None);
}
