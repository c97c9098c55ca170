//! Scheduled sends survive a worker's `kill -9` and go out exactly once: on one PostgreSQL, a
//! standalone simulator, an API process and two worker processes, every one a real `herald`; messages
//! scheduled a few seconds ahead; one worker killed with SIGKILL once sends are under way and a new one
//! started in its place. The simulator's own record is the proof: each message reached it once. A scheduled
//! broadcast runs beside the single sends, so its pacer (in both workers) is killed mid-run too.

use super::free_port;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ENCRYPTION_KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const APP_SECRET: &str = "scheduled-test-app-secret";
const MESSAGES: usize = 30;

/// A child killed with SIGKILL (and reaped) when dropped, however the test ends.
struct Killed(Option<Child>);

impl Killed {
    fn kill9(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Killed {
    fn drop(&mut self) {
        self.kill9();
    }
}

struct Cluster {
    dir: tempfile::TempDir,
    env: Vec<(&'static str, String)>,
}

impl Cluster {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_herald"));
        command
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .args(args)
            .current_dir(self.dir.path());
        for (name, value) in &self.env {
            command.env(name, value);
        }
        command
    }

    fn spawn(&self, args: &[&str], extra: &[(&str, String)], log: &str) -> Killed {
        let log = std::fs::File::create(self.dir.path().join(log)).unwrap();
        let mut command = self.command(args);
        for (name, value) in extra {
            command.env(name, value);
        }
        Killed(Some(
            command
                .stdout(Stdio::null())
                .stderr(Stdio::from(log))
                .spawn()
                .unwrap(),
        ))
    }

    fn worker(&self, name: &str) -> Killed {
        self.spawn(&["serve", "--role", "worker"], &[], &format!("{name}.log"))
    }

    fn admin(&self, args: &[&str]) -> Value {
        let output = self
            .command(&["admin"])
            .args(args)
            .arg("--json")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "herald admin {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap()
    }
}

fn logs(dir: &Path) -> String {
    let mut all = String::new();
    for name in [
        "api.log",
        "worker1.log",
        "worker2.log",
        "worker3.log",
        "simulator.log",
    ] {
        if let Ok(text) = std::fs::read_to_string(dir.join(name)) {
            all.push_str(&format!("--- {name}\n{text}\n"));
        }
    }
    all
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

/// How many times each message id reached the simulator.
async fn sent_counts(client: &reqwest::Client, simulator: &str) -> HashMap<String, usize> {
    let sent: Vec<Value> = client
        .get(format!("{simulator}/control/sent"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut counts = HashMap::new();
    for record in sent {
        if let Some(id) = record["biz_opaque_callback_data"].as_str() {
            *counts.entry(id.to_owned()).or_insert(0) += 1;
        }
    }
    counts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scheduled_messages_go_out_exactly_once_when_a_worker_is_killed() {
    let Some((store, guard)) = herald_store::testing::fresh_postgres().await.unwrap() else {
        eprintln!(
            "SKIPPED (HERALD_TEST_DATABASE_URL unset): scheduled_messages_go_out_exactly_once_when_a_worker_is_killed"
        );
        return;
    };
    let api_port = free_port();
    let simulator_port = free_port();
    let simulator = format!("http://127.0.0.1:{simulator_port}/simulator");
    let base = format!("http://127.0.0.1:{api_port}");
    let cluster = Cluster {
        dir: tempfile::tempdir().unwrap(),
        env: vec![
            ("HERALD_DATABASE_URL", guard.database_url().to_owned()),
            ("HERALD_ENCRYPTION_KEY", ENCRYPTION_KEY.to_owned()),
            ("HERALD_APP_SECRET", APP_SECRET.to_owned()),
            ("HERALD_SIMULATOR_URL", simulator.clone()),
            ("HERALD_MAX_CONNECTIONS", "5".to_owned()),
            ("HERALD_HTTP_WORKERS", "1".to_owned()),
            ("HERALD_DISPATCH_POLL_MS", "100".to_owned()),
            // Small claims, so both workers hold some of the scheduled batch when one is killed.
            ("HERALD_DISPATCH_BATCH_SIZE", "5".to_owned()),
            // The shortest lease and callback wait: a killed worker's claims come back within half a minute.
            ("HERALD_DISPATCH_LEASE_SECONDS", "20".to_owned()),
            ("HERALD_CALLBACK_WAIT_SECONDS", "5".to_owned()),
            // Scheduling a few seconds ahead instead of the contract's minute (docs/operations.md).
            ("HERALD_SCHEDULE_MIN_LEAD_SECONDS", "1".to_owned()),
            ("RUST_LOG", "warn".to_owned()),
        ],
    };
    // The simulator calls the API process back with its signed status reports.
    let _simulator = {
        let log = std::fs::File::create(cluster.dir.path().join("simulator.log")).unwrap();
        Killed(Some(
            cluster
                .command(&["simulator", "--listen", &format!("127.0.0.1:{simulator_port}")])
                .arg("--callback")
                .arg(format!("{base}/webhooks/whatsapp"))
                .stdout(Stdio::null())
                .stderr(Stdio::from(log))
                .spawn()
                .unwrap(),
        ))
    };
    let org = cluster.admin(&["org", "create", "--name", "Scheduled", "--plan", "enterprise"]);
    let org_id = org["id"].as_str().unwrap().to_owned();
    cluster.admin(&[
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
        "20",
    ]);
    let key = cluster.admin(&["key", "create", "--org", &org_id])["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let _api = cluster.spawn(
        &["serve", "--role", "api"],
        &[("HERALD_LISTEN", format!("127.0.0.1:{api_port}"))],
        "api.log",
    );
    let mut first = cluster.worker("worker1");
    let _second = cluster.worker("worker2");
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    wait_healthy(&client, &base).await;
    let synced = client
        .post(format!("{base}/api/v1/templates/sync"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert!(synced.status().is_success(), "{}", synced.text().await.unwrap());

    let mut ids = Vec::new();
    let mut due = HashMap::new();
    for i in 0..MESSAGES {
        // A few seconds ahead of each request, so a slow machine never makes one too soon.
        let send_at = chrono::Utc::now() + chrono::TimeDelta::seconds(3);
        let response = client
            .post(format!("{base}/api/v1/messages/send-template"))
            .bearer_auth(&key)
            .json(&json!({
                "to": format!("+1555123{i:04}"),
                "template": { "name": "hello_world", "language": "en_US" },
                "send_at": send_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
        let message: Value = response.json().await.unwrap();
        assert_eq!(message["status"], "scheduled", "{message}");
        let id = message["id"].as_str().unwrap().to_owned();
        due.insert(id.clone(), send_at);
        ids.push(id);
    }

    // A broadcast of as many recipients, scheduled like the single sends: the pacers of both workers release it.
    let send_at = chrono::Utc::now() + chrono::TimeDelta::seconds(3);
    let recipients: Vec<Value> = (0..MESSAGES)
        .map(|i| json!({ "to": format!("+1555124{i:04}") }))
        .collect();
    let response = client
        .post(format!("{base}/api/v1/broadcasts"))
        .bearer_auth(&key)
        .json(&json!({
            "template": { "name": "hello_world", "language": "en_US" },
            "send_at": send_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "recipients": recipients,
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
    let broadcast: Value = response.json().await.unwrap();
    assert_eq!(broadcast["status"], "scheduled", "{broadcast}");
    assert_eq!(broadcast["accepted"], MESSAGES, "{broadcast}");
    let broadcast_id = broadcast["id"].as_str().unwrap().to_owned();
    let page: Value = client
        .get(format!(
            "{base}/api/v1/broadcasts/{broadcast_id}/messages?limit=200"
        ))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let members = page["data"].as_array().unwrap();
    assert_eq!(members.len(), MESSAGES, "{page}");
    for message in members {
        assert_eq!(message["status"], "scheduled", "{message}");
        let id = message["id"].as_str().unwrap().to_owned();
        due.insert(id.clone(), send_at);
        ids.push(id);
    }

    // Kill one worker with SIGKILL as soon as the network has the first scheduled send (the sender's
    // 20 messages/s spread the batch over more than a second, so sends are under way), then start another.
    let deadline = Instant::now() + Duration::from_secs(60);
    while sent_counts(&client, &simulator).await.is_empty() {
        assert!(
            Instant::now() < deadline,
            "nothing was sent\n{}",
            logs(cluster.dir.path())
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    first.kill9();
    let _third = cluster.worker("worker3");

    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let counts = sent_counts(&client, &simulator).await;
        if ids.iter().all(|id| counts.contains_key(id)) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {} sent\n{}",
            counts.len(),
            ids.len(),
            logs(cluster.dir.path())
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Only an open job can send again: once none is left (the dead worker's leases expired and its reclaimed
    // jobs closed), the simulator's record is final.
    loop {
        let open = store.outbox().backlog(chrono::Utc::now()).await.unwrap();
        if open.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "jobs still open: {open:?}\n{}",
            logs(cluster.dir.path())
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let counts = sent_counts(&client, &simulator).await;
    for id in &ids {
        assert_eq!(
            counts.get(id),
            Some(&1),
            "{id} reached the network {:?} times",
            counts.get(id)
        );
    }
    for id in &ids {
        let message: Value = client
            .get(format!("{base}/api/v1/messages/{id}"))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let submitted: chrono::DateTime<chrono::Utc> = message["timestamps"]["submitted"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        // The network's reports carry whole seconds, and a `sent` that comes in before the dispatcher's
        // own `submitted` fills that time in: compare at the second.
        let send_at = due[id];
        let second = chrono::SubsecRound::trunc_subsecs(send_at, 0);
        assert!(submitted >= second, "{id} went out before its send_at: {message}");
    }
    // Dispatch is done with every message of the broadcast: a pacer completes it.
    loop {
        let broadcast: Value = client
            .get(format!("{base}/api/v1/broadcasts/{broadcast_id}"))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if broadcast["status"] == "completed" {
            assert_eq!(broadcast["released"], MESSAGES, "{broadcast}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the broadcast did not complete: {broadcast}\n{}",
            logs(cluster.dir.path())
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
