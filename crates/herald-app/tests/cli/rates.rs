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
