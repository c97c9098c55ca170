//! The contract suite against the in-memory store: the fake must pass every scenario the real stores do.

use herald_testkit::memory::InMemoryStore;

herald_testkit::contract_suite!(async { InMemoryStore::new().ports() });

/// Every scenario the suite declares is a test above; this catches a scenario added to
/// `contract::SCENARIOS` but not to the macro (or the reverse), which would silently go untested.
#[test]
fn the_macro_declares_every_scenario() {
    let source = include_str!("../../src/contract.rs");
    let (_, macro_body) = source
        .split_once("macro_rules! contract_suite")
        .expect("the macro is defined in contract.rs");
    let declared: Vec<&str> = macro_body
        .lines()
        .map(str::trim)
        .take_while(|line| !line.starts_with(");"))
        .filter_map(|line| line.strip_suffix(','))
        .filter(|name| name.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .collect();
    assert_eq!(declared, herald_testkit::contract::SCENARIOS);
}
