//! Integration tests of the domain crate as a whole.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code fails loudly by design"
)]

use std::process::Command;

/// The hexagon's rule: the domain depends on no framework. Cargo resolves the real dependency tree, so a
/// framework pulled in transitively fails this too.
#[test]
fn the_domain_depends_on_no_framework() {
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "-p",
            "herald-domain",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8_lossy(&output.stdout);
    assert!(
        tree.lines().any(|l| l.starts_with("herald-domain ")),
        "unexpected tree:\n{tree}"
    );
    let forbidden = ["actix", "diesel", "reqwest", "tokio", "bb8", "hyper"];
    let offenders: Vec<&str> = tree
        .lines()
        .filter(|line| forbidden.iter().any(|name| line.starts_with(name)))
        .collect();
    assert!(
        offenders.is_empty(),
        "herald-domain depends on frameworks: {offenders:?}"
    );
}
