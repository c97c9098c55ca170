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

/// A port for a child that must be told it before it starts (see `herald_testkit::ports`).
fn free_port() -> u16 {
    herald_testkit::ports::free_port().unwrap()
}

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `herald serve` with `extra` arguments, its stdout piped; answers it with its port.
fn serve(data: &std::path::Path, extra: &[&str]) -> (Server, u16) {
    serve_on_own_port(herald(data).args(["serve"]).args(extra).stdout(Stdio::piped()))
}

/// Starts `command` (a `herald serve`) on a port it binds itself (`HERALD_LISTEN=127.0.0.1:0`) and answers
/// with that port, read from its `listening` log line. A port the test picked, freed and handed to the child
/// could be taken in between by any socket on the machine (a parallel test's, an outgoing connection's).
/// The child's log goes to the test's own output, which the test runner shows when the test fails.
fn serve_on_own_port(command: &mut Command) -> (Server, u16) {
    let mut child = command
        .env("HERALD_LISTEN", "127.0.0.1:0")
        .env("RUST_LOG", "warn,herald=info")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let server = Server(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(port) = listening_port(&line) {
                let _ = tx.send(port);
            }
            eprintln!("herald serve: {line}");
        }
    });
    let port = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("herald serve logs the address it listens on");
    (server, port)
}

/// The port of a `herald serve` log's `listening` line.
fn listening_port(line: &str) -> Option<u16> {
    line.split("listening base_url=http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.trim().parse().ok())
}

/// The port a `herald serve` started with `HERALD_LISTEN=127.0.0.1:0` and its log written to `log` bound,
/// read from that log as it appears (at most 60 s).
fn port_in_log(log: &std::path::Path) -> u16 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if let Some(port) = text.lines().find_map(listening_port) {
            return port;
        }
        assert!(
            Instant::now() < deadline,
            "herald serve logged no address:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
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

    let (_server, port) = serve(data.path(), &[]);
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
    // The server may reuse what it read of the key for `read_cache_ms` (500 ms): docs/api.md §1 allows another
    // process's change at most 1 s to take effect, so a request made a second after the command returns
    // must be refused.
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
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
    let (mut server, port) = serve(data.path(), &["--demo"]);
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

/// How `herald admin reseal --json` went: its exit status and report.
fn reseal(data: &std::path::Path) -> (bool, Value) {
    let output = herald(data).args(["admin", "reseal", "--json"]).output().unwrap();
    let report =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {output:?}"));
    (output.status.success(), report)
}

/// What sealing was before version 2: nonce and ciphertext, no associated data, so bound to no row.
fn seal_legacy(data: &std::path::Path, plaintext: &str) -> Vec<u8> {
    use base64::Engine as _;
    use chacha20poly1305::aead::{Aead, Generate, KeyInit};
    let text = std::fs::read_to_string(data.join("encryption.key")).unwrap();
    let key: [u8; 32] = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .unwrap()
        .try_into()
        .unwrap();
    let cipher = chacha20poly1305::XChaCha20Poly1305::new(&chacha20poly1305::Key::from(key));
    let nonce = chacha20poly1305::XNonce::generate();
    let mut sealed = nonce.to_vec();
    sealed.extend_from_slice(&cipher.encrypt(&nonce, plaintext.as_bytes()).unwrap());
    sealed
}

#[tokio::test]
async fn reseal_rewrites_legacy_values_bound_to_their_rows_once_and_reports_what_does_not_open() {
    use herald_domain::ids::{OrganizationId, SenderId};
    use herald_domain::organization::SealedSecret;
    use herald_domain::ports::{SealContext, SecretSealer};
    use herald_domain::webhook::EventSelection;
    use herald_system::{SEAL_HEADER, XChaChaSealer, load_or_create_key_file};

    let data = tempfile::tempdir().unwrap();
    let org = admin_json(data.path(), &["org", "create", "--name", "Acme"]);
    let org_id = org["id"].as_str().unwrap().to_owned();
    let output = add_sender_with_stdin_token(data.path(), &org_id, STDIN_TOKEN);
    assert!(output.status.success(), "{output:?}");
    let added: Value = serde_json::from_slice(&output.stdout).unwrap();
    let sender_id = SenderId::parse(added["id"].as_str().unwrap()).unwrap();
    let org_id = OrganizationId::parse(&org_id).unwrap();
    let (key, created) = load_or_create_key_file(data.path()).unwrap();
    assert!(!created, "the key `sender add` made next to the database");
    let sealer = XChaChaSealer::new(&key);

    // Put the state of a database written before version 2 in place: a legacy token and a legacy webhook
    // secret (current and previous).
    let url = format!("sqlite://{}/herald.db", data.path().display());
    let store = herald_store::Store::connect(&url, &herald_store::StoreOptions::default())
        .await
        .unwrap();
    let accounts = store.accounts();
    let sender = accounts.senders(&org_id).await.unwrap()[0].clone();
    let current = sender.sealed_access_token.clone().unwrap();
    assert!(
        current.as_bytes().starts_with(&SEAL_HEADER),
        "new tokens are sealed in version 2"
    );
    assert!(
        accounts
            .replace_sealed_access_token(
                &org_id,
                &sender_id,
                &current,
                &SealedSecret::new(seal_legacy(data.path(), STDIN_TOKEN)),
            )
            .await
            .unwrap()
    );
    let endpoint = herald_domain::webhook::WebhookEndpoint {
        secret: SealedSecret::new(seal_legacy(data.path(), "whsec_current")),
        previous_secret: Some(SealedSecret::new(seal_legacy(data.path(), "whsec_previous"))),
        previous_secret_expires_at: Some(chrono::Utc::now() + chrono::TimeDelta::hours(1)),
        ..herald_testkit::fixtures::webhook_endpoint(org_id, EventSelection::ALL, chrono::Utc::now())
    };
    assert!(store.webhooks().create_endpoint(&endpoint, 10).await.unwrap());
    drop(accounts);
    drop(store);

    let (succeeded, report) = reseal(data.path());
    assert!(succeeded, "{report}");
    assert_eq!(report["resealed_sender_tokens"], 1, "{report}");
    assert_eq!(report["resealed_webhook_secrets"], 2, "{report}");
    assert_eq!(report["already_current"], 0, "{report}");
    assert_eq!(report["cannot_be_opened"], serde_json::json!([]), "{report}");

    let store = herald_store::Store::connect(&url, &herald_store::StoreOptions::default())
        .await
        .unwrap();
    let token = store.accounts().senders(&org_id).await.unwrap()[0]
        .sealed_access_token
        .clone()
        .unwrap();
    let stored = store
        .webhooks()
        .endpoint(&org_id, &endpoint.id)
        .await
        .unwrap()
        .unwrap();
    let previous = stored.previous_secret.clone().unwrap();
    for (sealed, context, text) in [
        (&token, SealContext::sender(&sender_id), STDIN_TOKEN),
        (
            &stored.secret,
            SealContext::webhook(&endpoint.id),
            "whsec_current",
        ),
        (&previous, SealContext::webhook(&endpoint.id), "whsec_previous"),
    ] {
        assert!(
            sealed.as_bytes().starts_with(&SEAL_HEADER),
            "resealed in version 2"
        );
        let opened = sealer.open(&context, sealed.as_bytes()).unwrap();
        assert_eq!(opened.text, text);
        assert!(!opened.legacy);
    }
    assert_eq!(
        stored.updated_at, endpoint.updated_at,
        "resealing is not an endpoint change"
    );

    let (succeeded, report) = reseal(data.path());
    assert!(succeeded, "{report}");
    assert_eq!(
        report["resealed_sender_tokens"], 0,
        "a second run has nothing left: {report}"
    );
    assert_eq!(report["resealed_webhook_secrets"], 0, "{report}");
    assert_eq!(report["already_current"], 3, "{report}");

    // A token copied from another sender's row does not open here: reported, left alone, and the command
    // fails after going through everything else.
    let copied = SealedSecret::new(sealer.seal(
        &SealContext::sender(&SenderId::parse("snd_01J0000000000000000000000Z").unwrap()),
        "EAAG-another-orgs-token",
    ));
    assert!(
        store
            .accounts()
            .replace_sealed_access_token(&org_id, &sender_id, &token, &copied)
            .await
            .unwrap()
    );
    drop(store);
    let (succeeded, report) = reseal(data.path());
    assert!(
        !succeeded,
        "a value that cannot be opened fails the command: {report}"
    );
    assert_eq!(
        report["already_current"], 2,
        "the endpoint's secrets were still checked: {report}"
    );
    let failures = report["cannot_be_opened"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{report}");
    assert!(
        failures[0].as_str().unwrap().contains(&sender_id.to_string()),
        "{report}"
    );
    assert!(
        !report.to_string().contains("EAAG-another-orgs-token"),
        "{report}"
    );
    let text = herald(data.path()).args(["admin", "reseal"]).output().unwrap();
    assert!(!text.status.success());
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains("resealed 0 sender tokens, 0 webhook secrets; 2 already current; 1 cannot be opened"),
        "{stdout}"
    );
    let store = herald_store::Store::connect(&url, &herald_store::StoreOptions::default())
        .await
        .unwrap();
    assert_eq!(
        store.accounts().senders(&org_id).await.unwrap()[0].sealed_access_token,
        Some(copied),
        "left as it was"
    );
}

/// With PostgreSQL and no HERALD_ENCRYPTION_KEY, `serve` and storing a token are refused with a message
/// naming the setting. Nothing is migrated or written (migrations are off), so the shared test database
/// is left alone.
#[test]
fn postgres_without_a_key_serves_one_process_and_refuses_split_roles() {
    let Ok(url) = std::env::var("HERALD_TEST_DATABASE_URL") else {
        eprintln!(
            "SKIPPED (HERALD_TEST_DATABASE_URL unset): postgres_without_a_key_serves_one_process_and_refuses_split_roles"
        );
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let postgres = |args: &[&str]| {
        let mut command = herald(data.path());
        command
            .env("HERALD_DATABASE_URL", &url)
            .env("HERALD_MIGRATE_ON_START", "false")
            .env("HERALD_LISTEN", "127.0.0.1:0")
            .args(args)
            .stdin(Stdio::null());
        command
    };
    let key_file = data.path().join("data").join("encryption.key");
    // Split roles mean several processes: each needs the one shared key, so none is made up here.
    for role in ["api", "worker"] {
        let serve = postgres(&["serve", "--role", role]).output().unwrap();
        assert!(!serve.status.success(), "--role {role} started without a key");
        let stderr = String::from_utf8_lossy(&serve.stderr);
        assert!(
            stderr.contains("HERALD_ENCRYPTION_KEY is required with PostgreSQL"),
            "{stderr}"
        );
    }
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
    ])
    .output()
    .unwrap();
    assert!(!add.status.success());
    let stderr = String::from_utf8_lossy(&add.stderr);
    assert!(
        stderr.contains("HERALD_ENCRYPTION_KEY is required with PostgreSQL"),
        "{stderr}"
    );
    assert!(!key_file.exists(), "no key file made by a refused command");

    // One process of every role (a newcomer's `serve`) makes its key file in ./data and says how to share it.
    let log = data.path().join("serve.log");
    let child = postgres(&["serve"])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let server = Server(child);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&log)
        .unwrap()
        .contains("HERALD_ENCRYPTION_KEY is unset")
    {
        assert!(
            Instant::now() < deadline,
            "{}",
            std::fs::read_to_string(&log).unwrap()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(server);
    let key = std::fs::read_to_string(&key_file).unwrap();
    assert_eq!(key.trim().len(), 44, "base64 of 32 bytes");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(!logged.contains(key.trim()), "the key is never logged");
}

/// Several processes on one PostgreSQL database: two API processes and two workers, the shared Redis
/// limiter. The combined accepted rate stays within the plan's, every accepted message reaches the network
/// exactly once, and a key disabled from the command line is refused by the other API process at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_api_and_two_worker_processes_share_one_postgres_and_one_rate() {
    let Some((_store, guard)) = herald_store::testing::fresh_postgres().await.unwrap() else {
        eprintln!(
            "SKIPPED (HERALD_TEST_DATABASE_URL unset): two_api_and_two_worker_processes_share_one_postgres_and_one_rate"
        );
        return;
    };
    if std::net::TcpStream::connect("127.0.0.1:6379").is_err() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "Redis must be reachable in CI"
        );
        eprintln!(
            "SKIPPED (Redis unreachable): two_api_and_two_worker_processes_share_one_postgres_and_one_rate"
        );
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let env = [
        ("HERALD_DATABASE_URL", guard.database_url().to_owned()),
        (
            "HERALD_ENCRYPTION_KEY",
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=".to_owned(),
        ),
        ("HERALD_APP_SECRET", "multi-process-secret".to_owned()),
        ("HERALD_RATE_LIMITER", "redis".to_owned()),
        ("HERALD_REDIS_URL", "redis://127.0.0.1:6379".to_owned()),
        ("HERALD_DISPATCH_POLL_MS", "50".to_owned()),
        ("HERALD_SIMULATOR_CALLBACK_DELAY_MIN_MS", "5".to_owned()),
        ("HERALD_SIMULATOR_CALLBACK_DELAY_MAX_MS", "20".to_owned()),
    ];
    let command = |args: &[&str]| {
        let mut command = herald(data.path());
        command.args(args);
        for (name, value) in &env {
            command.env(name, value);
        }
        command
    };
    let json = |args: &[&str]| {
        let output = command(args).arg("--json").output().unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice::<Value>(&output.stdout).unwrap()
    };
    let org = json(&["admin", "org", "create", "--name", "Multi", "--plan", "starter"]);
    let org_id = org["id"].as_str().unwrap().to_owned();
    json(&[
        "admin",
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
        "--throughput",
        "1000",
    ]);
    let key = json(&["admin", "key", "create", "--org", &org_id]);
    let (secret, key_id) = (
        key["key"].as_str().unwrap().to_owned(),
        key["id"].as_str().unwrap().to_owned(),
    );

    let mut processes = Vec::new();
    let mut bases = Vec::new();
    for _ in 0..2 {
        let (api, port) = serve_on_own_port(command(&["serve", "--role", "api"]).stdout(Stdio::null()));
        processes.push(api);
        bases.push(format!("http://127.0.0.1:{port}"));
    }
    let client = reqwest::Client::new();
    for base in &bases {
        wait_healthy(&client, base).await;
    }
    for _ in 0..2 {
        let mut worker = command(&["serve", "--role", "worker"]);
        worker
            .env("HERALD_SIMULATOR_URL", format!("{}/simulator", bases[0]))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        processes.push(Server(worker.spawn().unwrap()));
    }
    // The workers sync the templates from the simulator when they start.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let templates: Value = client
            .get(format!("{}/api/v1/templates", bases[1]))
            .bearer_auth(&secret)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if templates["data"].as_array().is_some_and(|t| !t.is_empty()) {
            break;
        }
        assert!(Instant::now() < deadline, "templates never synced: {templates}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Both API processes, 8 concurrent senders, for 3 seconds, against the starter plan (20/s, burst 40).
    let started = Instant::now();
    let window = Duration::from_secs(3);
    let senders = (0..8).map(|i| {
        let client = client.clone();
        let base = bases[i % 2].clone();
        let secret = secret.clone();
        async move {
            let mut accepted = Vec::new();
            let mut n = 0;
            while started.elapsed() < window {
                n += 1;
                let body = serde_json::json!({
                    "to": format!("+1555{:03}{:04}", i, n),
                    "template": { "name": "hello_world", "language": "en_US" }
                });
                let response = client
                    .post(format!("{base}/api/v1/messages/send-template"))
                    .bearer_auth(&secret)
                    .json(&body)
                    .send()
                    .await
                    .unwrap();
                match response.status().as_u16() {
                    202 => accepted.push(
                        response.json::<Value>().await.unwrap()["id"]
                            .as_str()
                            .unwrap()
                            .to_owned(),
                    ),
                    429 => tokio::time::sleep(Duration::from_millis(20)).await,
                    other => panic!("unexpected {other}: {}", response.text().await.unwrap()),
                }
            }
            accepted
        }
    });
    let accepted: Vec<String> = futures::future::join_all(senders)
        .await
        .into_iter()
        .flatten()
        .collect();
    let elapsed = started.elapsed().as_secs_f64();
    let ceiling = (20.0 * elapsed + 40.0).ceil() as usize + 1;
    assert!(
        accepted.len() >= 40,
        "at least the burst passes: {}",
        accepted.len()
    );
    assert!(
        accepted.len() <= ceiling,
        "{} accepted in {elapsed:.2} s exceeds 20/s + 40 ({ceiling})",
        accepted.len()
    );

    // Every accepted message reaches the simulator exactly once.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let waiting: Value = client
            .get(format!("{}/api/v1/messages?status=accepted&limit=1", bases[0]))
            .bearer_auth(&secret)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if waiting["data"].as_array().is_some_and(Vec::is_empty) {
            break;
        }
        assert!(Instant::now() < deadline, "the workers did not drain the queue");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let sent: Vec<Value> = client
        .get(format!("{}/simulator/control/sent", bases[0]))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    for id in &accepted {
        let copies = sent
            .iter()
            .filter(|r| r["biz_opaque_callback_data"] == id.as_str())
            .count();
        assert_eq!(copies, 1, "{id} reached the network {copies} times");
    }

    // A key disabled from the command line is refused by the other API processes within a second
    // (docs/api.md §1; each may reuse what it read of the key for `read_cache_ms`).
    let disabled = json(&["admin", "key", "disable", &key_id]);
    assert_eq!(disabled["status"], "disabled");
    tokio::time::sleep(Duration::from_secs(1)).await;
    let refused = client
        .get(format!("{}/api/v1/messages", bases[1]))
        .bearer_auth(&secret)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    drop(processes);
}

/// `kill -9` of the process delivering customer webhooks under load loses no event: after a restart every
/// event reaches the receiver, and the only duplicates are deliveries that were in flight at the kill.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_webhook_dispatcher_loses_no_event() {
    use std::sync::{Arc, Mutex};
    let received: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = received.clone();
    // A real receiver, slow enough that deliveries are in flight when the process dies.
    let receiver = actix_web::HttpServer::new(move || {
        let seen = seen.clone();
        actix_web::App::new().default_service(actix_web::web::to(move |req: actix_web::HttpRequest| {
            let seen = seen.clone();
            async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                if let Some(id) = req.headers().get("webhook-id").and_then(|v| v.to_str().ok()) {
                    seen.lock().unwrap().push(id.to_owned());
                }
                actix_web::HttpResponse::Ok().finish()
            }
        }))
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let receiver_url = format!("http://{}/hook", receiver.addrs()[0]);
    tokio::spawn(receiver.run());

    let data = tempfile::tempdir().unwrap();
    let org = admin_json(
        data.path(),
        &["org", "create", "--name", "Hooks", "--plan", "business"],
    );
    let org_id = org["id"].as_str().unwrap().to_owned();
    let key = admin_json(data.path(), &["key", "create", "--org", &org_id]);
    let secret = key["key"].as_str().unwrap().to_owned();
    let start = || {
        serve_on_own_port(
            herald(data.path())
                .args(["serve"])
                .env("HERALD_ALLOW_PRIVATE_WEBHOOK_TARGETS", "true")
                .env("HERALD_ALLOW_INSECURE_WEBHOOKS", "true")
                .env("HERALD_WEBHOOK_TIMEOUT_SECONDS", "1")
                // 60 test events are this scenario's event source: past the default write limit and test cap.
                .env("HERALD_WEBHOOK_PENDING_TESTS", "100")
                .env("HERALD_WRITE_BURST", "100")
                .stdout(Stdio::null()),
        )
    };
    let (mut server, port) = start();
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    wait_healthy(&client, &base).await;
    let endpoint: Value = client
        .post(format!("{base}/api/v1/webhooks"))
        .bearer_auth(&secret)
        .json(&serde_json::json!({ "url": receiver_url }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let endpoint_id = endpoint["id"].as_str().expect("endpoint created").to_owned();
    let mut events = Vec::new();
    for _ in 0..60 {
        let answer: Value = client
            .post(format!("{base}/api/v1/webhooks/{endpoint_id}/test"))
            .bearer_auth(&secret)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        events.push(answer["event_id"].as_str().unwrap().to_owned());
    }
    // Kill it mid-way: some events delivered, some in flight, the rest queued.
    let deadline = Instant::now() + Duration::from_secs(30);
    while received.lock().unwrap().len() < 10 {
        assert!(Instant::now() < deadline, "no delivery before the kill");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    let at_kill = received.lock().unwrap().len();
    assert!(
        at_kill < events.len(),
        "the kill came too late to test anything ({at_kill} delivered)"
    );

    // The new process may listen elsewhere: nothing below calls it, it only delivers.
    let _restarted = start();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let got = received.lock().unwrap().clone();
        if events.iter().all(|e| got.contains(e)) {
            let duplicates = got.len() - events.len();
            // In flight at the kill: at most the per-endpoint cap per loop round still open.
            assert!(duplicates <= 32, "{duplicates} duplicates");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "events lost: {} of {} delivered",
            got.len(),
            events.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

mod dashboard;
mod metrics;
mod metrics_bounds;
mod rates;
mod retention;
mod scheduled;
mod sdk;
mod senders;
mod smoke;
mod traces;

/// The simulator's control API has no authentication: `serve` refuses to offer it beyond loopback unless the
/// operator says so, and then warns.
#[test]
fn the_simulator_is_served_beyond_loopback_only_when_the_operator_says_so() {
    let data = tempfile::tempdir().unwrap();
    let refused = herald(data.path())
        .args(["serve"])
        .env("HERALD_LISTEN", "0.0.0.0:0")
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("refusing to serve the network simulator")
            && stderr.contains("HERALD_SIMULATOR_PUBLIC"),
        "{stderr}"
    );

    let log = data.path().join("public.log");
    let child = herald(data.path())
        .args(["serve"])
        .env("HERALD_LISTEN", "0.0.0.0:0")
        .env("HERALD_SIMULATOR_PUBLIC", "true")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let _server = Server(child);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&log)
        .unwrap()
        .contains("served beyond this machine")
    {
        assert!(
            Instant::now() < deadline,
            "{}",
            std::fs::read_to_string(&log).unwrap()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A callback parked after failing repeatedly is listed by `admin callbacks list` with its attempts and last
/// error, and `admin callbacks requeue` puts it back into the backlog.
#[tokio::test]
async fn parked_callbacks_are_listed_and_requeued() {
    use herald_domain::dispatch::StoredCallback;
    use herald_domain::ids::EventId;

    let data = tempfile::tempdir().unwrap();
    // The CLI migrates the database on its first command.
    assert_eq!(
        admin_json(data.path(), &["callbacks", "list"]),
        serde_json::json!([])
    );
    let store = herald_store::Store::connect(
        &format!("sqlite://{}/herald.db", data.path().display()),
        &herald_store::StoreOptions::default(),
    )
    .await
    .unwrap();
    let tracking = store.tracking();
    let now = chrono::Utc::now();
    let callback = StoredCallback {
        id: EventId::from_ulid(ulid::Ulid::new()),
        received_at: now,
        body: b"{}".to_vec(),
    };
    tracking.store_callback(&callback).await.unwrap();
    assert!(
        tracking
            .record_callback_failure(&callback.id, now, "store unavailable: down", 1)
            .await
            .unwrap()
    );

    let listed = admin_json(data.path(), &["callbacks", "list"]);
    assert_eq!(listed[0]["id"], callback.id.to_string());
    assert_eq!(listed[0]["attempts"], 1);
    assert_eq!(listed[0]["last_error"], "store unavailable: down");

    let requeued = admin_json(data.path(), &["callbacks", "requeue"]);
    assert_eq!(requeued["requeued"], 1);
    assert_eq!(
        admin_json(data.path(), &["callbacks", "list"]),
        serde_json::json!([])
    );
    let backlog = tracking
        .unprocessed_callbacks(now + chrono::TimeDelta::seconds(1), 10, now)
        .await
        .unwrap()
        .callbacks;
    assert_eq!(backlog, vec![callback], "back in the backlog");
}

#[test]
fn an_organizations_rate_card_is_set_listed_and_removed_from_the_cli() {
    let data = tempfile::tempdir().unwrap();
    let org = admin_json(data.path(), &["org", "create", "--name", "Acme"]);
    let org_id = org["id"].as_str().unwrap().to_owned();
    let set = admin_json(
        data.path(),
        &[
            "rate",
            "set",
            "--org",
            &org_id,
            "--category",
            "Utility",
            "--amount",
            "0.0147",
            "--currency",
            "eur",
        ],
    );
    assert_eq!(
        set,
        serde_json::json!({ "category": "utility", "amount": "0.0147", "currency": "EUR" })
    );
    admin_json(
        data.path(),
        &[
            "rate",
            "set",
            "--org",
            &org_id,
            "--category",
            "marketing",
            "--amount",
            "0.05",
            "--currency",
            "EUR",
        ],
    );
    let listed = admin_json(data.path(), &["rate", "list", "--org", &org_id]);
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");
    assert_eq!(listed[0]["category"], "marketing");
    assert_eq!(listed[0]["amount"], "0.05");

    for (args, names) in [
        (
            vec!["--category", "utility", "--amount", "0.01", "--currency", "USD"],
            "EUR",
        ),
        (
            vec![
                "--category",
                "utility",
                "--amount",
                "1.2345678",
                "--currency",
                "EUR",
            ],
            "--amount",
        ),
        (
            vec!["--category", "not a word", "--amount", "1", "--currency", "EUR"],
            "--category",
        ),
        (
            vec!["--category", "utility", "--amount", "1", "--currency", "EURO"],
            "--currency",
        ),
    ] {
        let output = herald(data.path())
            .args(["admin", "rate", "set", "--org", &org_id])
            .args(&args)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(names), "{args:?}: {stderr}");
    }

    admin_json(
        data.path(),
        &["rate", "remove", "--org", &org_id, "--category", "utility"],
    );
    let again = herald(data.path())
        .args([
            "admin",
            "rate",
            "remove",
            "--org",
            &org_id,
            "--category",
            "utility",
        ])
        .output()
        .unwrap();
    assert!(!again.status.success(), "removing a rate that is not there fails");
    let listed = admin_json(data.path(), &["rate", "list", "--org", &org_id]);
    assert_eq!(
        listed,
        serde_json::json!([{ "category": "marketing", "amount": "0.05", "currency": "EUR" }])
    );
}
