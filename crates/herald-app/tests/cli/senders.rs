//! `herald admin sender add` and one organization per business account: a WABA another organization
//! has is refused with a message naming the owner and `--shared-waba`, and nothing is stored; with the
//! flag it is shared; the owner adds more numbers of it freely.

use crate::{admin_json, herald};

fn add(data: &std::path::Path, org: &str, number: &str, pnid: &str, extra: &[&str]) -> std::process::Output {
    herald(data)
        .args(["admin", "sender", "add", "--org", org, "--number", number])
        .args(["--phone-number-id", pnid, "--waba-id", "2000000001"])
        .args(extra)
        .arg("--json")
        .output()
        .unwrap()
}

#[test]
fn a_second_organization_on_a_waba_is_refused_unless_shared_on_purpose() {
    let data = tempfile::tempdir().unwrap();
    let org = |name: &str| {
        admin_json(
            data.path(),
            &["org", "create", "--name", name, "--plan", "starter"],
        )["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (owner, second) = (org("Owner"), org("Second"));
    let added = add(data.path(), &owner, "+15550001111", "1000000001", &[]);
    assert!(added.status.success(), "{added:?}");

    let refused = add(data.path(), &second, "+15550002222", "1000000002", &[]);
    assert!(!refused.status.success(), "accepted: {refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("2000000001") && stderr.contains(&owner) && stderr.contains("--shared-waba"),
        "{stderr}"
    );
    let listed = admin_json(data.path(), &["sender", "list", "--org", &second]);
    assert_eq!(
        listed.as_array().map(Vec::len),
        Some(0),
        "nothing stored: {listed}"
    );

    let shared = add(
        data.path(),
        &second,
        "+15550002222",
        "1000000002",
        &["--shared-waba"],
    );
    assert!(shared.status.success(), "{shared:?}");
    let another = add(data.path(), &owner, "+15550003333", "1000000003", &[]);
    assert!(
        another.status.success(),
        "the owner adds numbers of its WABA: {another:?}"
    );
}
