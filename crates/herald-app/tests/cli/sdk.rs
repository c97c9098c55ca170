//! The generated SDKs as their users meet them: the built `herald` started as `make run` starts it (an
//! empty folder, `serve --demo`), with loopback webhook targets allowed so each example's own receiver can
//! take its signed event; then each SDK's walkthrough example runs with the printed key and URL in
//! `HERALD_BASE_URL` / `HERALD_API_KEY`. The TypeScript one is compiled with `tsc --strict` first. The
//! document the server serves must be `docs/openapi.json`, the one both SDKs are generated from.
//!
//! The pinned tools come from `scripts/install-sdk-tools.sh`; without python3 or npm this test skips
//! loudly, except under `CI=true`, where it fails.

use crate::smoke::Smoke;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Installs the pinned tools; false when this machine cannot (no python3 or npm) and this is no CI run.
fn sdk_tools_installed() -> bool {
    let status = Command::new("scripts/install-sdk-tools.sh")
        .current_dir(repository())
        .status()
        .unwrap();
    if status.code() == Some(3) && std::env::var("CI").as_deref() != Ok("true") {
        eprintln!("!! SKIPPED: the SDK examples (python3 or npm is missing)");
        return false;
    }
    assert!(status.success(), "scripts/install-sdk-tools.sh failed");
    true
}

/// Runs `program` in `folder` of the repository with the server's URL and key; fails with its output.
fn run_example(folder: &str, program: &str, args: &[&str], smoke: &Smoke, extra: &[(&str, String)]) {
    let output = Command::new(program)
        .args(args)
        .current_dir(repository().join(folder))
        .env("HERALD_BASE_URL", smoke.url(""))
        .env("HERALD_API_KEY", smoke.key())
        .envs(extra.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    let printed = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "{program} {args:?} in {folder} failed:\n{printed}"
    );
    assert!(
        printed.contains("walkthrough: every step passed"),
        "{program} {args:?} did not finish:\n{printed}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sdk_examples_pass_against_the_built_server() {
    if !tokio::task::spawn_blocking(sdk_tools_installed).await.unwrap() {
        return;
    }
    let smoke = Smoke::start(vec![
        (
            "HERALD_ALLOW_PRIVATE_WEBHOOK_TARGETS".to_owned(),
            "true".to_owned(),
        ),
        ("HERALD_ALLOW_INSECURE_WEBHOOKS".to_owned(), "true".to_owned()),
    ])
    .await;

    let served: serde_json::Value = smoke
        .http
        .get(smoke.url("/api/v1/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let committed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repository().join("docs/openapi.json")).unwrap())
            .unwrap();
    assert!(
        served == committed,
        "the served document differs from docs/openapi.json, which the SDKs are generated from: run \
         `UPDATE_SNAPSHOTS=1 cargo test -p herald-http --test http openapi`, then `make sdk`"
    );

    let smoke = std::sync::Arc::new(smoke);
    let typescript = smoke.clone();
    tokio::task::spawn_blocking(move || {
        let tsc = "node_modules/.bin/tsc";
        let output = Command::new(tsc)
            .args(["-p", "tsconfig.json", "--strict"])
            .current_dir(repository().join("clients/typescript"))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "tsc --strict refuses the TypeScript client or its example:\n{}",
            String::from_utf8_lossy(&output.stdout)
        );
        run_example(
            "clients/typescript",
            "node",
            &["dist/examples/walkthrough.js"],
            &typescript,
            &[],
        );
    })
    .await
    .unwrap();

    let python = smoke.clone();
    tokio::task::spawn_blocking(move || {
        let interpreter = repository().join("target/sdk-tools/python/bin/python");
        run_example(
            "clients/python",
            interpreter.to_str().unwrap(),
            &["examples/walkthrough.py"],
            &python,
            &[("PYTHONPATH", ".".to_owned())],
        );
    })
    .await
    .unwrap();
}
