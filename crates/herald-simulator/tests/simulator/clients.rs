//! Contract tests: two real, pinned open-source Cloud API clients — pywa (Python) and whatsapp-api-js
//! (Node.js) — pointed at the simulator, each running a committed script (`tests/clients/`) that sends every
//! kind Herald sends, uploads and downloads media, marks a message read with and without the typing
//! indicator, blocks and unblocks a user, and (pywa) lists templates and reads the phone numbers.
//!
//! `scripts/install-contract-clients.sh` installs the pinned clients into `target/contract-clients/python`
//! and `tests/clients/node/node_modules`. Under `CI=true` a missing client fails the test; elsewhere the test
//! says loudly that it skipped.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use herald_simulator::{RecordKind, SentRecord};
use serde_json::Value;

use crate::helpers::*;

const CUSTOMER: &str = "+15557770001";
/// Each script takes a few seconds; this only bounds a hung one.
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(120);

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn clients_dir() -> PathBuf {
    manifest_dir().join("tests/clients")
}

/// Skips (or, under `CI=true`, fails) when a pinned client is not installed.
fn missing(what: &str) {
    let hint = "run scripts/install-contract-clients.sh (PyPI and the npm registry)";
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{what} is not installed: {hint}"
    );
    eprintln!("##############################################################################");
    eprintln!("##  SKIPPED: the {what} contract test; {hint}");
    eprintln!("##############################################################################");
}

/// The venv's interpreter made by the install script, if there.
fn python() -> Option<PathBuf> {
    let python = manifest_dir().join("../../target/contract-clients/python/bin/python");
    python.exists().then_some(python)
}

/// `node`, when it runs and the pinned library is installed beside the script.
fn node() -> Option<PathBuf> {
    let installed = clients_dir()
        .join("node/node_modules/whatsapp-api-js/package.json")
        .exists();
    let runs = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    (installed && runs).then(|| PathBuf::from("node"))
}

/// Runs `program script` against the simulator and returns the JSON line it printed.
async fn drive(sim: &TestSim, program: PathBuf, script: PathBuf, inbound: &str) -> Value {
    let mut command = Command::new(program);
    command
        .arg(script)
        .current_dir(clients_dir())
        .env("SIM_GRAPH_BASE", &sim.base)
        .env("SIM_TOKEN", TOKEN)
        .env("SIM_PHONE_ID", PNID_1)
        .env("SIM_WABA_ID", WABA)
        .env("SIM_CUSTOMER", CUSTOMER)
        .env("SIM_INBOUND_WAMID", inbound)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (status, stdout, stderr) = tokio::task::spawn_blocking(move || {
        let mut child = command.spawn().expect("the client script starts");
        let mut out = child.stdout.take().unwrap();
        let mut err = child.stderr.take().unwrap();
        let out_reader = std::thread::spawn(move || {
            let mut text = String::new();
            out.read_to_string(&mut text).map(|_| text).unwrap_or_default()
        });
        let err_reader = std::thread::spawn(move || {
            let mut text = String::new();
            err.read_to_string(&mut text).map(|_| text).unwrap_or_default()
        });
        let deadline = Instant::now() + SCRIPT_TIMEOUT;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                child.kill().unwrap();
                panic!("the client script ran longer than {SCRIPT_TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        (status, out_reader.join().unwrap(), err_reader.join().unwrap())
    })
    .await
    .unwrap();
    assert!(
        status.success(),
        "the client script failed ({status}):\n{stderr}\n{stdout}"
    );
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("no JSON summary ({e}):\n{stdout}\n{stderr}"))
}

/// What each labelled send must have been as the simulator received it: its `type`, and for media the
/// field naming the file, for interactive messages the interactive type.
fn expected(label: &str) -> (&'static str, Option<&'static str>) {
    match label {
        "text" => ("text", None),
        "image_id" => ("image", Some("id")),
        "image_link" => ("image", Some("link")),
        "document_id" => ("document", Some("id")),
        "audio_id" => ("audio", Some("id")),
        "video_id" => ("video", Some("id")),
        "sticker_id" => ("sticker", Some("id")),
        "document_link" => ("document", Some("link")),
        "audio_link" => ("audio", Some("link")),
        "video_link" => ("video", Some("link")),
        "sticker_link" => ("sticker", Some("link")),
        "location" => ("location", None),
        "contacts" => ("contacts", None),
        "buttons" => ("interactive", Some("button")),
        "list" => ("interactive", Some("list")),
        "cta_url" => ("interactive", Some("cta_url")),
        "flow" => ("interactive", Some("flow")),
        "reaction" => ("reaction", None),
        "template" => ("template", None),
        other => panic!("unexpected label {other}"),
    }
}

/// The sends both scripts make.
const COMMON_KINDS: [&str; 14] = [
    "text",
    "image_id",
    "image_link",
    "document_link",
    "audio_link",
    "video_link",
    "sticker_link",
    "location",
    "buttons",
    "list",
    "cta_url",
    "flow",
    "reaction",
    "template",
];

/// Asserts that every send the script reports reached the simulator as that kind, and that the read
/// receipt and the typing indicator reached it for the customer's message.
fn assert_received(sent: &[SentRecord], summary: &Value, inbound: &str, kinds: &[&str]) {
    let labels = summary["sent"].as_object().expect("sent labels");
    for kind in kinds {
        assert!(labels.contains_key(*kind), "the script sent no {kind}: {summary}");
    }
    for (label, wamid) in labels {
        let record = sent
            .iter()
            .find(|r| Some(r.wamid.as_str()) == wamid.as_str())
            .unwrap_or_else(|| panic!("{label}: the simulator recorded no {wamid}"));
        assert_eq!(record.recipient, CUSTOMER.trim_start_matches('+'), "{label}");
        let (kind, detail) = expected(label);
        assert_eq!(record.request["type"], kind, "{label}: {}", record.request);
        match (kind, detail) {
            ("interactive", Some(interactive)) => {
                assert_eq!(record.request["interactive"]["type"], interactive, "{label}");
            }
            (_, Some(field)) => {
                assert!(
                    record.request[kind][field].is_string(),
                    "{label}: {}",
                    record.request
                );
            }
            _ => {}
        }
        if detail == Some("id") {
            // A file sent by id is one the script uploaded, and the simulator knows its type.
            let media = record.media.as_ref().expect("a media send records its file");
            let uploaded = summary["uploaded"].as_array().expect("uploaded ids");
            assert!(
                uploaded.iter().any(|id| id.as_str() == media.id.as_deref()),
                "{label}: {media:?} is not among {uploaded:?}"
            );
            assert!(media.mime_type.is_some(), "{label}: {media:?}");
        }
    }
    for kind in [RecordKind::Read, RecordKind::Typing] {
        assert!(
            sent.iter().any(|r| r.kind == kind && r.wamid == inbound),
            "no {kind:?} of {inbound} was recorded"
        );
    }
}

#[tokio::test]
async fn pywa_drives_the_simulator() {
    let Some(python) = python() else {
        return missing("pywa (Python)");
    };
    let sim = spawn_simulator().await;
    let inbound = sim.customer_writes(CUSTOMER).await;
    let summary = drive(
        &sim,
        python,
        clients_dir().join("python/drive_simulator.py"),
        &inbound,
    )
    .await;
    let mut kinds = COMMON_KINDS.to_vec();
    kinds.push("contacts");
    assert_received(&sim.simulator.sent(), &summary, &inbound, &kinds);

    // The template listing's summary as pywa read it.
    let templates = &summary["templates"];
    let count = templates["names"].as_array().unwrap().len() as u64;
    assert_eq!(templates["total_count"].as_u64(), Some(count), "{templates}");
    assert_eq!(templates["message_template_limit"], 250, "{templates}");
    assert_eq!(templates["are_translations_complete"], true, "{templates}");
    // The phone-number reads.
    assert_eq!(summary["phone_number"]["display_phone_number"], "+1 555-000-1111");
    assert_eq!(summary["phone_number"]["verified_name"], "Herald Simulator");
    assert_eq!(
        summary["phone_numbers"],
        serde_json::json!([PNID_1, PNID_2]),
        "{summary}"
    );
}

#[tokio::test]
async fn whatsapp_api_js_drives_the_simulator() {
    let Some(node) = node() else {
        return missing("whatsapp-api-js (Node.js)");
    };
    let sim = spawn_simulator().await;
    let inbound = sim.customer_writes(CUSTOMER).await;
    let summary = drive(
        &sim,
        node,
        clients_dir().join("node/drive_simulator.mjs"),
        &inbound,
    )
    .await;
    assert_received(&sim.simulator.sent(), &summary, &inbound, &COMMON_KINDS);
    // Its contacts message (a JSON string where Meta documents an array) was refused, and nothing recorded.
    assert_eq!(summary["contacts_refused"], true);
    assert!(
        !sim.simulator
            .sent()
            .iter()
            .any(|r| r.request["type"] == "contacts"),
        "a refused send is not recorded"
    );
}
