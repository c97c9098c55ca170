//! `herald admin org set-marketing-route`: the send path of an organization's marketing templates when a
//! send or broadcast names none; an unknown word or organization changes nothing.

use crate::{admin_json, herald};

#[test]
fn an_organizations_marketing_route_is_set_and_a_wrong_one_refused() {
    let data = tempfile::tempdir().unwrap();
    let org = admin_json(data.path(), &["org", "create", "--name", "Acme"]);
    assert_eq!(org["marketing_route"], "auto", "the default: {org}");
    let org_id = org["id"].as_str().unwrap().to_owned();
    let set = admin_json(
        data.path(),
        &["org", "set-marketing-route", "--org", &org_id, "cloud_api"],
    );
    assert_eq!(set["marketing_route"], "cloud_api", "{set}");
    for (args, names) in [
        (
            vec!["--org", org_id.as_str(), "marketing"],
            "not a marketing route",
        ),
        (vec!["--org", org_id.as_str(), "Auto"], "not a marketing route"),
        (
            vec!["--org", "org_01JD0000000000000000000000", "auto"],
            "org_01JD0000000000000000000000",
        ),
    ] {
        let output = herald(data.path())
            .args(["admin", "org", "set-marketing-route"])
            .args(&args)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(names), "{args:?}: {stderr}");
    }
    let listed = admin_json(data.path(), &["org", "list"]);
    let text = listed.to_string();
    assert!(text.contains("cloud_api"), "the route kept: {listed}");
}
