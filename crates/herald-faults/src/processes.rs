//! The Herald processes under test: the standalone network simulator, two API processes and two workers,
//! each a real `herald` child process that the trials kill with SIGKILL and start again.

use anyhow::{Context, bail};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Fixed for the run: every process of one database needs the same key.
const ENCRYPTION_KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const APP_SECRET: &str = "fault-suite-app-secret";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Api,
    Worker,
}

pub struct Process {
    pub name: String,
    pub kind: Kind,
    pub port: Option<u16>,
    child: Option<Child>,
}

impl Process {
    pub fn alive(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|child| matches!(child.try_wait(), Ok(None)))
    }

    /// SIGKILL, then reap.
    pub fn kill9(&mut self) -> anyhow::Result<()> {
        if let Some(mut child) = self.child.take() {
            child.kill().context("kill -9")?;
            child.wait()?;
        }
        Ok(())
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.kill9();
    }
}

pub struct Cluster {
    herald: PathBuf,
    dir: PathBuf,
    env: Vec<(String, String)>,
    pub simulator_base: String,
    _simulator: Process,
    pub processes: Vec<Process>,
    pub client: reqwest::Client,
}

/// A port for a child that must be told it before it starts, drawn outside the kernel's ephemeral range so
/// that no other socket takes it in between (see `herald_testkit::ports`).
pub fn free_port() -> anyhow::Result<u16> {
    Ok(herald_testkit::ports::free_port()?)
}

impl Cluster {
    /// Starts the simulator, migrates, and starts two API and two worker processes.
    pub async fn start(
        herald: &Path,
        dir: &Path,
        database_url: &str,
        webhook_retry_scale: f64,
    ) -> anyhow::Result<Self> {
        let api_ports = [free_port()?, free_port()?];
        let simulator_port = free_port()?;
        let simulator_base = format!("http://127.0.0.1:{simulator_port}/simulator");
        let env: Vec<(String, String)> = [
            ("HERALD_DATABASE_URL", database_url.to_owned()),
            ("HERALD_ENCRYPTION_KEY", ENCRYPTION_KEY.to_owned()),
            ("HERALD_APP_SECRET", APP_SECRET.to_owned()),
            ("HERALD_SIMULATOR_URL", simulator_base.clone()),
            ("HERALD_ALLOW_PRIVATE_WEBHOOK_TARGETS", "true".to_owned()),
            ("HERALD_ALLOW_INSECURE_WEBHOOKS", "true".to_owned()),
            ("HERALD_MAX_CONNECTIONS", "10".to_owned()),
            ("HERALD_HTTP_WORKERS", "2".to_owned()),
            ("HERALD_DISPATCH_POLL_MS", "100".to_owned()),
            // The shortest lease and callback wait: a killed worker's claims come back within half a minute.
            ("HERALD_DISPATCH_LEASE_SECONDS", "20".to_owned()),
            ("HERALD_CALLBACK_WAIT_SECONDS", "5".to_owned()),
            ("HERALD_DISPATCH_BASE_BACKOFF_MS", "500".to_owned()),
            ("HERALD_WEBHOOK_TIMEOUT_SECONDS", "5".to_owned()),
            ("HERALD_WEBHOOK_RETRY_SCALE", format!("{webhook_retry_scale:.9}")),
            ("RUST_LOG", "warn".to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();

        let simulator = spawn(
            Command::new(herald)
                .args(["simulator", "--listen"])
                .arg(format!("127.0.0.1:{simulator_port}"))
                .arg("--callback")
                // Callbacks go to the first API process; while it is down the simulator retries briefly.
                .arg(format!("http://127.0.0.1:{}/webhooks/whatsapp", api_ports[0]))
                .env("HERALD_APP_SECRET", APP_SECRET),
            dir,
            "simulator",
        )?;
        let mut cluster = Self {
            herald: herald.to_owned(),
            dir: dir.to_owned(),
            env,
            simulator_base,
            _simulator: Process {
                name: "simulator".into(),
                kind: Kind::Worker,
                port: Some(simulator_port),
                child: Some(simulator),
            },
            processes: Vec::new(),
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()?,
        };
        let output = cluster.command(&["migrate"]).output()?;
        if !output.status.success() {
            bail!("herald migrate: {}", String::from_utf8_lossy(&output.stderr));
        }
        for (i, port) in api_ports.iter().enumerate() {
            cluster.processes.push(Process {
                name: format!("api{}", i + 1),
                kind: Kind::Api,
                port: Some(*port),
                child: None,
            });
        }
        for i in 0..2 {
            cluster.processes.push(Process {
                name: format!("worker{}", i + 1),
                kind: Kind::Worker,
                port: None,
                child: None,
            });
        }
        for index in 0..cluster.processes.len() {
            cluster.restart(index).await?;
        }
        Ok(cluster)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.herald);
        command.env_clear().args(args).current_dir(&self.dir);
        command.env("PATH", std::env::var("PATH").unwrap_or_default());
        for (name, value) in &self.env {
            command.env(name, value);
        }
        command
    }

    /// `herald admin … --json`.
    pub fn admin(&self, args: &[&str]) -> anyhow::Result<Value> {
        let output = self.command(&["admin"]).args(args).arg("--json").output()?;
        if !output.status.success() {
            bail!(
                "herald admin {args:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(serde_json::from_slice(&output.stdout)?)
    }

    /// (Re)starts process `index` and, for an API process, waits until it answers.
    pub async fn restart(&mut self, index: usize) -> anyhow::Result<()> {
        let (name, kind, port) = {
            let process = self.processes.get(index).context("no such process")?;
            (process.name.clone(), process.kind, process.port)
        };
        let role = match kind {
            Kind::Api => "api",
            Kind::Worker => "worker",
        };
        let mut command = self.command(&["serve", "--role", role]);
        if let Some(port) = port {
            command.env("HERALD_LISTEN", format!("127.0.0.1:{port}"));
        }
        let child = spawn(&mut command, &self.dir, &name)?;
        if let Some(process) = self.processes.get_mut(index) {
            process.child = Some(child);
        }
        if let Some(port) = port {
            self.wait_healthy(port).await?;
        }
        Ok(())
    }

    /// Starts an API process of its own on the cluster's database (not one the other trials kill), with
    /// `env` added (a metrics listener, say), and waits until it answers: `(process, port, pid)`.
    pub async fn start_extra_api(
        &self,
        name: &str,
        env: &[(&str, String)],
    ) -> anyhow::Result<(Process, u16, u32)> {
        let port = free_port()?;
        let mut command = self.command(&["serve", "--role", "api"]);
        command.env("HERALD_LISTEN", format!("127.0.0.1:{port}"));
        for (key, value) in env {
            command.env(key, value);
        }
        let child = spawn(&mut command, &self.dir, name)?;
        let pid = child.id();
        let process = Process {
            name: name.to_owned(),
            kind: Kind::Api,
            port: Some(port),
            child: Some(child),
        };
        self.wait_healthy(port).await?;
        Ok((process, port, pid))
    }

    /// Starts again every process that is not running.
    pub async fn revive_all(&mut self) -> anyhow::Result<()> {
        for index in 0..self.processes.len() {
            let dead = self.processes.get_mut(index).is_some_and(|p| !p.alive());
            if dead {
                eprintln!("  restarting {}, which had exited", self.name(index));
                self.restart(index).await?;
            }
        }
        Ok(())
    }

    pub fn name(&self, index: usize) -> String {
        self.processes
            .get(index)
            .map_or_else(String::new, |p| p.name.clone())
    }

    pub fn api_bases(&self) -> Vec<String> {
        self.processes
            .iter()
            .filter_map(|p| p.port)
            .map(|port| format!("http://127.0.0.1:{port}"))
            .collect()
    }

    async fn wait_healthy(&self, port: u16) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Ok(response) = self
                .client
                .get(format!("http://127.0.0.1:{port}/healthz"))
                .send()
                .await
                && response.status() == 200
            {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        bail!("the API process on port {port} did not become healthy")
    }

    /// The simulator's sent list: how many times each `biz_opaque_callback_data` reached the network.
    pub async fn sent_counts(&self) -> anyhow::Result<std::collections::HashMap<String, usize>> {
        let sent: Vec<Value> = self
            .client
            .get(format!("{}/control/sent", self.simulator_base))
            .send()
            .await?
            .json()
            .await?;
        let mut counts = std::collections::HashMap::new();
        for record in sent {
            if let Some(id) = record.get("biz_opaque_callback_data").and_then(Value::as_str) {
                *counts.entry(id.to_owned()).or_insert(0) += 1;
            }
        }
        Ok(counts)
    }

    /// Makes the simulated network answer every send with `status` for `seconds` (0 ends it).
    pub async fn network_fault(&self, status: u16, seconds: u64) -> anyhow::Result<()> {
        let response = self
            .client
            .post(format!("{}/control/faults", self.simulator_base))
            .json(&serde_json::json!({ "send_status": status, "seconds": seconds }))
            .send()
            .await?;
        if !response.status().is_success() {
            bail!("the simulator refused the fault: {}", response.text().await?);
        }
        Ok(())
    }
}

fn spawn(command: &mut Command, dir: &Path, name: &str) -> anyhow::Result<Child> {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(format!("{name}.log")))?;
    command
        .stdout(Stdio::null())
        .stderr(Stdio::from(log))
        .spawn()
        .with_context(|| format!("starting {name}"))
}
