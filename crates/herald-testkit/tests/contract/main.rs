//! The contract suite against the in-memory store: the fake must pass every scenario the real stores do.

use herald_testkit::memory::InMemoryStore;

herald_testkit::contract_suite!(async { InMemoryStore::new().ports() });

/// Every scenario the suite declares is a test above; this catches a scenario added to
/// `contract::SCENARIOS` but not to the macro (or the reverse), which would silently go untested.
#[test]
fn the_macro_declares_every_scenario() {
    assert_eq!(
        declared_scenarios(include_str!("../../src/contract.rs"), "contract_suite"),
        herald_testkit::contract::SCENARIOS
    );
    assert_eq!(
        declared_scenarios(
            include_str!("../../src/contract/media_store.rs"),
            "media_store_suite"
        ),
        herald_testkit::contract::MEDIA_STORE_SCENARIOS
    );
}

#[allow(
    clippy::expect_used,
    reason = "test helper: a missing macro must fail the test"
)]
fn declared_scenarios<'a>(source: &'a str, name: &str) -> Vec<&'a str> {
    let (_, macro_body) = source
        .split_once(&format!("macro_rules! {name}"))
        .expect("the macro is defined in its file");
    let declared: Vec<&str> = macro_body
        .lines()
        .map(str::trim)
        .take_while(|line| !line.starts_with(");"))
        .filter_map(|line| line.strip_suffix(','))
        .filter(|name| name.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .collect();
    declared
}
