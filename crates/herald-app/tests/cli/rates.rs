//! `herald admin rate import` and `rate markets`: Meta's rate card by market, imported whole from its CSV,
//! or refused whole naming the line and column of the fault.

use crate::{admin_json, herald};

fn fixture() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/rates-2026-07-01-eur.csv")
}

#[test]
fn a_market_rate_file_is_imported_whole_or_not_at_all() {
    let data = tempfile::tempdir().unwrap();
    let fixture = fixture();
    let imported = admin_json(
        data.path(),
        &[
            "rate",
            "import",
            fixture.to_str().unwrap(),
            "--effective",
            "2026-07-01",
        ],
    );
    assert_eq!(imported["markets"], 6, "{imported}");
    assert_eq!(imported["currency"], "EUR");
    let card = admin_json(data.path(), &["rate", "markets", "--on", "2026-07-01"]);
    let rates = card["rates"].as_array().unwrap();
    assert!(
        rates.contains(&serde_json::json!({
            "market": "rest_of_africa", "category": "utility", "amount": "0.0033"
        })),
        "{card}"
    );
    assert_eq!(
        admin_json(data.path(), &["rate", "markets", "--on", "2026-06-30"]),
        serde_json::Value::Null
    );

    // A faulty file for the same day: the fault is named, and the day's card stays as it was.
    let bad = data.path().join("bad.csv");
    std::fs::write(
        &bad,
        "Market,Currency,Marketing,Utility,Authentication,Authentication-International,Service\n\
         Brazil,EUR,0.06,0.01,0.01,n/a,n/a\n\
         Chile,EUR,0.07,cheap,0.01,n/a,n/a\n",
    )
    .unwrap();
    let output = herald(data.path())
        .args(["admin", "rate", "import"])
        .arg(&bad)
        .args(["--effective", "2026-07-01"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("line 3, column 4"), "{stderr}");
    assert_eq!(
        admin_json(data.path(), &["rate", "markets", "--on", "2026-07-01"]),
        card,
        "nothing of the faulty file is kept"
    );
}

/// A tier section after the market lines is kept with its card; a malformed tier refuses the whole file,
/// naming its line and column, and the day's card stays as it was.
#[test]
fn volume_tiers_are_imported_with_their_card_and_a_malformed_one_is_refused() {
    let data = tempfile::tempdir().unwrap();
    let header = "Market,Currency,Marketing,Utility,Authentication,Authentication-International,Service\n\
                  India,USD,0.0107,0.0014,0.0014,0.0280,n/a\n\
                  Market,Category,From,Rate\n";
    let good = data.path().join("tiers.csv");
    std::fs::write(
        &good,
        format!("{header}India,utility,100001,0.0012\nIndia,utility,1000001,0.0010\n"),
    )
    .unwrap();
    let imported = admin_json(
        data.path(),
        &[
            "rate",
            "import",
            good.to_str().unwrap(),
            "--effective",
            "2026-10-01",
        ],
    );
    assert_eq!(
        (imported["rates"].as_u64(), imported["tiers"].as_u64()),
        (Some(4), Some(2)),
        "{imported}"
    );
    for (tier, at) in [
        ("India,marketing,100001,0.001", "line 4, column 2"),
        ("India,utility,1,0.001", "line 4, column 3"),
        ("India,utility,100001", "line 4, column 0"),
    ] {
        let bad = data.path().join("bad-tiers.csv");
        std::fs::write(&bad, format!("{header}{tier}\n")).unwrap();
        let output = herald(data.path())
            .args(["admin", "rate", "import"])
            .arg(&bad)
            .args(["--effective", "2026-10-01"])
            .output()
            .unwrap();
        assert!(!output.status.success(), "{tier}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(at), "{tier}: {stderr}");
    }
    let card = admin_json(data.path(), &["rate", "markets", "--on", "2026-10-01"]);
    assert_eq!(
        card["rates"].as_array().unwrap().len(),
        4,
        "the good card stays: {card}"
    );
}

/// `rate markup` sets an organization's or a plan's markup, the organization's winning; a percentage out of
/// range or of more than two decimals, or an unknown organization or plan, exits non-zero naming why, and
/// leaves the markup as it was.
#[test]
fn markups_are_set_per_organization_or_plan_and_bad_ones_change_nothing() {
    let data = tempfile::tempdir().unwrap();
    let org = admin_json(
        data.path(),
        &["org", "create", "--name", "Acme", "--plan", "starter"],
    );
    let org_id = org["id"].as_str().unwrap().to_owned();
    let shown =
        |data: &std::path::Path| admin_json(data, &["rate", "markup", "--org", &org_id])["percent"].clone();
    assert_eq!(shown(data.path()), serde_json::Value::Null);
    let plan = admin_json(
        data.path(),
        &["rate", "markup", "--plan", "starter", "--percent", "5"],
    );
    assert_eq!(plan["percent"], "5.00", "{plan}");
    assert_eq!(shown(data.path()), "5.00", "the plan's");
    let own = admin_json(
        data.path(),
        &["rate", "markup", "--org", &org_id, "--percent", "12.5"],
    );
    assert_eq!(own["percent"], "12.50", "{own}");
    assert_eq!(shown(data.path()), "12.50", "the organization's wins");
    for (args, names) in [
        (
            vec!["--org", org_id.as_str(), "--percent", "1000.01"],
            "--percent",
        ),
        (vec!["--org", org_id.as_str(), "--percent", "12.345"], "--percent"),
        (vec!["--org", org_id.as_str(), "--percent=-1"], "--percent"),
        (vec!["--plan", "no-such-plan", "--percent", "1"], "no-such-plan"),
        (
            vec!["--org", "org_01JD0000000000000000000000", "--percent", "1"],
            "no organization",
        ),
        (vec!["--percent", "1"], "--org"),
    ] {
        let output = herald(data.path())
            .args(["admin", "rate", "markup"])
            .args(&args)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(names), "{args:?}: {stderr}");
    }
    assert_eq!(shown(data.path()), "12.50", "nothing changed");
    let cleared = admin_json(data.path(), &["rate", "markup", "--org", &org_id, "--clear"]);
    assert_eq!(cleared["percent"], serde_json::Value::Null);
    assert_eq!(shown(data.path()), "5.00", "back to the plan's");
}
