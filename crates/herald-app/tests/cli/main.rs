//! The `herald` binary driven as a real process: admin commands with `--json`, a running server, a key
//! disabled from the command line, and `serve --demo`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code fails loudly by design"
)]

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn herald(data: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_herald"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env(
            "HERALD_DATABASE_URL",
            format!("sqlite://{}/herald.db", data.display()),
        )
        .env("RUST_LOG", "warn")
        .current_dir(data);
    command
}

fn admin_json(data: &std::path::Path, args: &[&str]) -> Value {
    let output = herald(data)
        .arg("admin")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "herald admin {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {output:?}"))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(data: &std::path::Path, port: u16, extra: &[&str]) -> Server {
    let child = herald(data)
        .args(["serve"])
        .args(extra)
        .env("HERALD_LISTEN", format!("127.0.0.1:{port}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    Server(child)
}

async fn wait_healthy(client: &reqwest::Client, base: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(response) = client.get(format!("{base}/healthz")).send().await
            && response.status() == 200
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the server did not become healthy at {base}");
}

#[tokio::test]
async fn admin_commands_and_a_key_disabled_from_the_cli() {
    let data = tempfile::tempdir().unwrap();
    let org = admin_json(
        data.path(),
        &["org", "create", "--name", "Acme", "--plan", "starter"],
    );
    let org_id = org["id"].as_str().unwrap().to_owned();
    assert!(org_id.starts_with("org_"), "{org}");
    assert_eq!(org["plan"], "starter");

    let sender = admin_json(
        data.path(),
        &[
            "sender",
            "add",
            "--org",
            &org_id,
            "--number",
            "+15550001111",
            "--phone-number-id",
            "1000000001",
            "--waba-id",
            "2000000001",
        ],
    );
    assert_eq!(sender["number"], "+15550001111");
    assert_eq!(sender["default"], true, "the first sender is the default");

    let key = admin_json(data.path(), &["key", "create", "--org", &org_id, "--name", "ci"]);
    let secret = key["key"].as_str().unwrap().to_owned();
    let key_id = key["id"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("hk_live_") && secret.len() == 48, "{key}");
    let listed = admin_json(data.path(), &["key", "list", "--org", &org_id]);
    assert_eq!(listed[0]["id"], key_id.as_str());
    assert!(
        !listed.to_string().contains(&secret),
        "a listing never shows the secret"
    );

    let unknown = herald(data.path())
        .args(["admin", "org", "set-plan", &org_id, "platinum"])
        .output()
        .unwrap();
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("platinum"));

    let port = free_port();
    let _server = serve(data.path(), port, &[]);
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    wait_healthy(&client, &base).await;
    let messages = client
        .get(format!("{base}/api/v1/messages"))
        .bearer_auth(&secret)
        .send()
        .await
        .unwrap();
    assert_eq!(messages.status(), 200);

    let disabled = admin_json(data.path(), &["key", "disable", &key_id]);
    assert_eq!(disabled["status"], "disabled");
    // No cache keeps a key alive: the very next request after the command returns is refused.
    let refused = client
        .get(format!("{base}/api/v1/messages"))
        .bearer_auth(&secret)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    assert_eq!(refused.json::<Value>().await.unwrap()["code"], "api_key_disabled");

    let suspended = admin_json(data.path(), &["org", "suspend", &org_id]);
    assert_eq!(suspended["status"], "suspended");
}

#[tokio::test]
async fn serve_demo_prints_a_key_and_a_curl_that_answers_202() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut server = serve(data.path(), port, &["--demo"]);
    let stdout = server.0.stdout.take().unwrap();
    // Read the banner on a thread that keeps draining stdout afterwards, like a terminal would.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut key = None;
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(rest) = line.split("API key (shown only now; keep it): ").nth(1) {
                key = Some(rest.trim().to_owned());
            }
            if line.trim_start().starts_with("curl -i -X POST") {
                let _ = tx.send((key.clone(), line));
            }
        }
    });
    let (key, curl) = tokio::task::spawn_blocking(move || rx.recv_timeout(Duration::from_secs(120)))
        .await
        .unwrap()
        .expect("the banner shows a curl line");
    let key = key.expect("the banner shows a key");
    assert!(
        curl.contains(&format!("127.0.0.1:{port}/api/v1/messages/send-template")),
        "{curl}"
    );
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    wait_healthy(&client, &base).await;
    let response = client
        .post(format!("{base}/api/v1/messages/send-template"))
        .bearer_auth(&key)
        .json(&serde_json::json!({ "to": "+15551234567", "template": { "name": "hello_world", "language": "en_US" } }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    assert_eq!(response.json::<Value>().await.unwrap()["status"], "accepted");
}

const STDIN_TOKEN: &str = "EAAGplainTokenThatMustNeverBeStoredInTheClear42";

/// `herald admin sender add … --access-token-stdin` with `token` piped in.
fn add_sender_with_stdin_token(data: &std::path::Path, org_id: &str, token: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = herald(data)
        .args([
            "admin",
            "sender",
            "add",
            "--org",
            org_id,
            "--number",
            "+15550001111",
        ])
        .args(["--phone-number-id", "1000000001", "--waba-id", "2000000001"])
        .args(["--access-token-stdin", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{token}").unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn a_token_from_stdin_is_stored_encrypted_and_never_shown() {
    let data = tempfile::tempdir().unwrap();
    let org = admin_json(data.path(), &["org", "create", "--name", "Acme"]);
    let org_id = org["id"].as_str().unwrap().to_owned();

    let output = add_sender_with_stdin_token(data.path(), &org_id, STDIN_TOKEN);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "sender add failed: {stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !stdout.contains(STDIN_TOKEN) && !stderr.contains(STDIN_TOKEN),
        "{stdout}{stderr}"
    );
    let added: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(added["access_token_stored"], true, "{added}");
    assert_eq!(added["access_token_env"], Value::Null);

    let listed = admin_json(data.path(), &["sender", "list", "--org", &org_id]);
    assert_eq!(listed[0]["access_token_stored"], true, "{listed}");
    assert!(!listed.to_string().contains(STDIN_TOKEN), "{listed}");
    let text = herald(data.path())
        .args(["admin", "sender", "list", "--org", &org_id])
        .output()
        .unwrap();
    assert!(text.status.success());
    assert!(!String::from_utf8_lossy(&text.stdout).contains(STDIN_TOKEN));

    // The database and its WAL hold the sender (its number) but not the token.
    let mut found_sender = false;
    for entry in std::fs::read_dir(data.path()).unwrap() {
        let path = entry.unwrap().path();
        if !path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("herald.db")
        {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let contains = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
        assert!(
            !contains(STDIN_TOKEN.as_bytes()),
            "{} holds the token in the clear",
            path.display()
        );
        found_sender |= contains(b"+15550001111");
    }
    assert!(found_sender, "the sender row was written to the database files");

    // The key was generated next to the database, private to its owner.
    let key_file = data.path().join("encryption.key");
    assert!(key_file.exists());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
}

#[test]
fn a_token_on_stdin_and_a_token_variable_are_exclusive() {
    let data = tempfile::tempdir().unwrap();
    let output = herald(data.path())
        .args([
            "admin",
            "sender",
            "add",
            "--org",
            "org_01J0000000000000000000000C",
        ])
        .args([
            "--number",
            "+15550001111",
            "--phone-number-id",
            "1",
            "--waba-id",
            "2",
        ])
        .args(["--access-token-env", "SOME_VAR", "--access-token-stdin"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot be used with"), "{stderr}");
    assert!(
        !data.path().join("herald.db").exists(),
        "refused by the command line, before the store is opened"
    );
}

#[test]
fn an_empty_stdin_is_refused_and_stores_nothing() {
    let data = tempfile::tempdir().unwrap();
    let org = admin_json(data.path(), &["org", "create", "--name", "Acme"]);
    let org_id = org["id"].as_str().unwrap().to_owned();
    let output = add_sender_with_stdin_token(data.path(), &org_id, "   ");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("no access token"));
    let listed = admin_json(data.path(), &["sender", "list", "--org", &org_id]);
    assert_eq!(listed, serde_json::json!([]));
}

/// With PostgreSQL and no HERALD_ENCRYPTION_KEY, `serve` and storing a token are refused with a message
/// naming the setting. Nothing is migrated or written (migrations are off), so the shared test database
/// is left alone.
#[test]
fn postgres_without_a_key_refuses_serve_and_stored_tokens() {
    let Ok(url) = std::env::var("HERALD_TEST_DATABASE_URL") else {
        eprintln!(
            "SKIPPED (HERALD_TEST_DATABASE_URL unset): postgres_without_a_key_refuses_serve_and_stored_tokens"
        );
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let postgres = |args: &[&str]| {
        herald(data.path())
            .env("HERALD_DATABASE_URL", &url)
            .env("HERALD_MIGRATE_ON_START", "false")
            .env("HERALD_LISTEN", "127.0.0.1:0")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let serve = postgres(&["serve"]);
    assert!(!serve.status.success());
    let stderr = String::from_utf8_lossy(&serve.stderr);
    assert!(
        stderr.contains("HERALD_ENCRYPTION_KEY is required with PostgreSQL"),
        "{stderr}"
    );

    let add = postgres(&[
        "admin",
        "sender",
        "add",
        "--org",
        "org_01J0000000000000000000000C",
        "--number",
        "+15550001111",
        "--phone-number-id",
        "1",
        "--waba-id",
        "2",
        "--access-token-stdin",
    ]);
    assert!(!add.status.success());
    let stderr = String::from_utf8_lossy(&add.stderr);
    assert!(
        stderr.contains("HERALD_ENCRYPTION_KEY is required with PostgreSQL"),
        "{stderr}"
    );
    assert!(
        !data.path().join("encryption.key").exists(),
        "no key file for PostgreSQL"
    );
}
