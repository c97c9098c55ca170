//! The smoke suite: the built `herald` as a newcomer meets it. `make run`'s own recipe (read from the
//! Makefile, with the built binary in place of `cargo run`) starts in an empty folder with no setting but the
//! port; then every capability the README promises is walked through over HTTP, and every shell command the
//! README shows is run as written (placeholders filled in with what earlier steps printed). On PostgreSQL the
//! same, with `HERALD_DATABASE_URL` as the only other setting.
//!
//! A README command that no longer works, a placeholder this suite does not know, or an operator synopsis
//! line naming a flag the binary lacks fails the suite: the README cannot drift from the code unseen.

use super::{Server, serve_on_own_port, wait_healthy};
use crate::dashboard::{Jar, csrf_of};
use reqwest::header::COOKIE;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CUSTOMER: &str = "+15551234567";
/// The demo organization's default sender (`herald serve --demo`).
const BUSINESS: &str = "+15550001111";
const BINARY: &str = env!("CARGO_BIN_EXE_herald");

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read_repository_file(name: &str) -> String {
    std::fs::read_to_string(repository().join(name)).unwrap()
}

/// What the first start printed: the demo organization, its key and the owner's login.
#[derive(Debug, Default, Clone)]
struct Banner {
    /// Where the server listens, from the banner's curl line: it binds a port of its own choosing.
    base: String,
    org: String,
    key: String,
    email: String,
    password: String,
}

impl Banner {
    fn complete(&self) -> bool {
        !(self.base.is_empty()
            || self.org.is_empty()
            || self.key.is_empty()
            || self.email.is_empty()
            || self.password.is_empty())
    }

    fn read(&mut self, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(rest) = line.split("API key (shown only now; keep it): ").nth(1) {
            self.key = rest.trim().to_owned();
        }
        if line.trim_start().starts_with("curl -i -X POST")
            && let Some(url) = words.iter().find(|w| w.starts_with("http://"))
            && let Some((base, _)) = url.split_once("/api/v1/")
        {
            self.base = base.to_owned();
        }
        if let Some(org) = words.iter().find(|w| w.starts_with("org_")) {
            self.org = (*org).to_owned();
        }
        if let [.., "email", email, "password", password, _, _, _] = words.as_slice() {
            self.email = (*email).to_owned();
            self.password = (*password).to_owned();
        }
    }
}

/// A `herald` started by `make run`'s recipe in an empty folder.
pub(crate) struct Smoke {
    folder: tempfile::TempDir,
    /// Settings beside the port: none on SQLite, the database URL on PostgreSQL.
    settings: Vec<(String, String)>,
    base: String,
    banner: Banner,
    pub(crate) http: reqwest::Client,
    _server: Server,
}

/// The environment of a newcomer's shell: nothing of ours but `settings`.
fn newcomer(command: &mut Command, folder: &Path, settings: &[(String, String)]) {
    command.env_clear().current_dir(folder);
    for name in ["PATH", "HOME", "TMPDIR"] {
        if let Ok(value) = std::env::var(name) {
            command.env(name, value);
        }
    }
    command.envs(settings.iter().map(|(k, v)| (k, v)));
}

/// The `run:` recipe of the Makefile as one shell line, the built binary in place of `cargo run`; its last
/// command (the server) is `exec`ed so that killing the shell kills the server.
fn make_run_recipe() -> String {
    let makefile = read_repository_file("Makefile");
    let mut lines = makefile
        .lines()
        .skip_while(|line| !line.starts_with("run:"))
        .skip(1)
        .take_while(|line| line.starts_with('\t'))
        .map(|line| {
            let line = line.trim().trim_start_matches('@');
            line.replace("$(CARGO) run -p herald-app --bin herald --", BINARY)
        })
        .collect::<Vec<_>>();
    let server = lines.pop().expect("the run recipe has commands");
    assert!(
        server.starts_with(BINARY) && server.ends_with("serve --demo"),
        "make run no longer starts `herald serve --demo`: {server}"
    );
    lines.push(format!("exec {server}"));
    lines.join(" && ")
}

impl Smoke {
    /// The demo organization's id.
    pub(crate) fn organization(&self) -> &str {
        &self.banner.org
    }

    pub(crate) async fn start(settings: Vec<(String, String)>) -> Self {
        let folder = tempfile::Builder::new()
            .prefix("herald-smoke-")
            .tempdir()
            .unwrap();
        let mut command = Command::new("bash");
        newcomer(&mut command, folder.path(), &settings);
        let log = std::fs::File::create(folder.path().join("herald.log")).unwrap();
        let mut child = command
            .args(["-c", &make_run_recipe()])
            // A port of its own: one picked here and bound by the child later could be taken in between.
            .env("HERALD_LISTEN", "127.0.0.1:0")
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let server = Server(child);
        // Read the banner on a thread that keeps draining stdout afterwards, like a terminal would.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut banner = Banner::default();
            let mut sent = false;
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                banner.read(&line);
                if !sent && banner.complete() {
                    sent = tx.send(banner.clone()).is_ok();
                }
            }
        });
        let banner = tokio::task::spawn_blocking(move || rx.recv_timeout(Duration::from_secs(120)))
            .await
            .unwrap()
            .unwrap_or_else(|_| panic!("no complete banner; log: {}", log_of(folder.path())));
        let base = banner.base.clone();
        let http = reqwest::Client::new();
        wait_healthy(&http, &base).await;
        Self {
            folder,
            settings,
            base,
            banner,
            http,
            _server: server,
        }
    }

    pub(crate) fn key(&self) -> &str {
        &self.banner.key
    }

    /// The folder the server runs in (its `./data` is the embedded store's).
    pub(crate) fn folder(&self) -> &Path {
        self.folder.path()
    }

    /// `herald admin … --json` in the server's folder with its settings, as its operator would run it;
    /// answers the exit status and the printed JSON.
    pub(crate) fn admin(&self, args: &[&str]) -> (std::process::ExitStatus, Value) {
        let mut command = Command::new(BINARY);
        newcomer(&mut command, self.folder.path(), &self.settings);
        let output = command.arg("admin").args(args).arg("--json").output().unwrap();
        let printed = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
            panic!(
                "herald admin {args:?}: not JSON ({e}): {}\n{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            )
        });
        (output.status, printed)
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub(crate) async fn call(&self, request: reqwest::RequestBuilder, expected: u16) -> Value {
        let response = request.bearer_auth(&self.banner.key).send().await.unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        assert_eq!(status, expected, "{text}\nlog: {}", log_of(self.folder.path()));
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    pub(crate) async fn get(&self, path: &str) -> Value {
        self.call(self.http.get(self.url(path)), 200).await
    }

    pub(crate) async fn send_json(&self, path: &str, body: Value) -> String {
        let message = self.call(self.http.post(self.url(path)).json(&body), 202).await;
        assert_eq!(message["status"], "accepted", "{message}");
        message["id"].as_str().unwrap().to_owned()
    }

    async fn send_form(&self, path: &str, form: reqwest::multipart::Form) -> String {
        let message = self
            .call(self.http.post(self.url(path)).multipart(form), 202)
            .await;
        message["id"].as_str().unwrap().to_owned()
    }

    /// Waits until the message reaches `delivered`; answers the message.
    pub(crate) async fn delivered(&self, id: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let message = self.get(&format!("/api/v1/messages/{id}")).await;
            if message["status"] == "delivered" {
                return message;
            }
            assert!(
                Instant::now() < deadline && message["status"] != "failed",
                "{id} did not reach delivered: {message}\nlog: {}",
                log_of(self.folder.path())
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// What the simulator received for the message with this network id.
    async fn received(&self, network_id: &str) -> Value {
        let sent = self
            .http
            .get(self.url("/simulator/control/sent"))
            .send()
            .await
            .unwrap();
        let sent: Value = sent.json().await.unwrap();
        let list = sent.as_array().or_else(|| sent["data"].as_array()).unwrap();
        list.iter()
            .find(|record| record["wamid"] == network_id)
            .cloned()
            .unwrap_or_else(|| panic!("{network_id} not in {sent}"))
    }

    async fn inbound_text(&self, from: &str, text: &str) {
        let response = self
            .http
            .post(self.url("/simulator/control/inbound"))
            .json(&json!({ "from": from, "to": BUSINESS, "text": text }))
            .send()
            .await
            .unwrap();
        assert!(
            response.status().is_success(),
            "{}",
            response.text().await.unwrap()
        );
    }

    /// The walk through the README's promises, each checked to its end.
    async fn capabilities(&self) {
        let template = self
            .send_json(
                "/api/v1/messages/send-template",
                json!({ "to": CUSTOMER, "template": { "name": "hello_world", "language": "en_US" } }),
            )
            .await;
        self.delivered(&template).await;

        self.inbound_text(CUSTOMER, "Hi! Where is my order?").await;
        // The simulator's signed webhook reaches Herald a moment later.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let window = self.get("/api/v1/contacts/%2B15551234567/window").await;
            if window["open"] == true {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the inbound message opened no window: {window}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }

        let text = self
            .send_json(
                "/api/v1/messages/send-text",
                json!({ "to": CUSTOMER, "message": "On its way! 📦" }),
            )
            .await;
        self.delivered(&text).await;

        let pdf = herald_testkit::files::pdf();
        let form = reqwest::multipart::Form::new()
            .text("to", CUSTOMER)
            .text("caption", "Your invoice")
            .part(
                "file",
                reqwest::multipart::Part::bytes(pdf.clone()).file_name("invoice.pdf"),
            );
        let file = self.send_form("/api/v1/messages/send-file", form).await;
        let file = self.delivered(&file).await;
        let media = &self.received(file["network_message_id"].as_str().unwrap()).await["media"];
        assert_eq!(media["kind"], "document", "{media}");
        assert_eq!(media["caption"], "Your invoice", "{media}");
        assert_eq!(media["filename"], "invoice.pdf", "{media}");

        let body = json!({ "to": CUSTOMER, "template": { "name": "invoice_ready", "language": "en_US" },
                           "variables": ["INV-7"] });
        let form = reqwest::multipart::Form::new()
            .text("template", body.to_string())
            .part(
                "file",
                reqwest::multipart::Part::bytes(pdf).file_name("invoice.pdf"),
            );
        let header = self.send_form("/api/v1/messages/send-template-media", form).await;
        let header = self.delivered(&header).await;
        let media = &self
            .received(header["network_message_id"].as_str().unwrap())
            .await["media"];
        assert_eq!(media["role"], "template_header", "{media}");
        assert_eq!(media["kind"], "document", "{media}");

        let form = reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(herald_testkit::files::jpeg()).file_name("photo.jpg"),
        );
        let upload = self
            .call(self.http.post(self.url("/api/v1/media")).multipart(form), 201)
            .await;
        let media_id = upload["id"].as_str().unwrap();
        let by_id = self
            .send_json(
                "/api/v1/messages/send-file",
                json!({ "to": CUSTOMER, "media_id": media_id, "caption": "New in store" }),
            )
            .await;
        let by_id = self.delivered(&by_id).await;
        let media = &self.received(by_id["network_message_id"].as_str().unwrap()).await["media"];
        assert_eq!(media["kind"], "image", "{media}");
        assert_eq!(media["caption"], "New in store", "{media}");

        self.dashboard_login().await;

        let docs = self.http.get(self.url("/docs")).send().await.unwrap();
        assert_eq!(docs.status(), 200);
        assert!(docs.text().await.unwrap().to_lowercase().contains("<html"));
        let openapi: Value = self
            .http
            .get(self.url("/api/v1/openapi.json"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert!(openapi["paths"]["/api/v1/messages/send-file"].is_object());
    }

    /// The printed owner login opens the dashboard, which shows the demo organization's messages.
    async fn dashboard_login(&self) {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let mut jar = Jar::default();
        let form = http.get(self.url("/dashboard/login")).send().await.unwrap();
        jar.take(&form);
        let csrf = csrf_of(&form.text().await.unwrap());
        let login = http
            .post(self.url("/dashboard/login"))
            .header(COOKIE, jar.header())
            .form(&[
                ("email", self.banner.email.as_str()),
                ("password", self.banner.password.as_str()),
                ("csrf", csrf.as_str()),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(login.status(), 303, "the printed login opens the dashboard");
        jar.take(&login);
        let page = http
            .get(self.url("/dashboard/messages"))
            .header(COOKIE, jar.header())
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), 200);
        assert!(
            page.text().await.unwrap().contains("msg_"),
            "the log lists the sends"
        );
    }
}

fn log_of(folder: &Path) -> String {
    let log = std::fs::read_to_string(folder.join("herald.log")).unwrap_or_default();
    let tail: Vec<&str> = log.lines().rev().take(30).collect();
    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
}

/// The shell commands of the README's `sh` blocks, each whole (continuation lines and multi-line quoted
/// strings joined), with the block it came from.
fn readme_commands(readme: &str) -> Vec<(usize, String)> {
    let mut commands = Vec::new();
    let mut block = None;
    let mut pending = String::new();
    for line in readme.lines() {
        match (block, line.trim_start()) {
            (None, fence) if fence.starts_with("```sh") => block = Some(commands.len()),
            (Some(_), "```") => {
                assert!(pending.is_empty(), "unfinished README command: {pending}");
                block = None;
            }
            (Some(index), text) => {
                if pending.is_empty() && (text.is_empty() || text.starts_with('#')) {
                    continue;
                }
                pending.push_str(line);
                pending.push('\n');
                if !open_quote(&pending) && !line.trim_end().ends_with('\\') {
                    commands.push((index, std::mem::take(&mut pending)));
                }
            }
            (None, _) => {}
        }
    }
    commands
}

/// Whether the shell text ends inside a quoted string (comments, which may hold apostrophes, are passed
/// over).
fn open_quote(text: &str) -> bool {
    let mut quote = None;
    let mut escaped = false;
    let mut comment = false;
    let mut word_start = true;
    for c in text.chars() {
        match (quote, c) {
            _ if comment => comment = c != '\n',
            _ if escaped => escaped = false,
            (None | Some('"'), '\\') => escaped = true,
            (None, '#') if word_start => comment = true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
        word_start = quote.is_none() && c.is_whitespace();
    }
    quote.is_some()
}

/// Runs every README shell command in the smoke folder, as a newcomer would paste it.
struct ReadmeRun<'a> {
    smoke: &'a Smoke,
    /// The latest id of each kind printed so far: `org_…`, `msg_…`, `med_…`, `inb_…`, `brd_…` stand for these.
    latest: BTreeMap<&'static str, String>,
    exported: Vec<(String, String)>,
    ran: usize,
}

impl<'a> ReadmeRun<'a> {
    fn new(smoke: &'a Smoke) -> Self {
        let mut latest = BTreeMap::new();
        latest.insert("org_", smoke.banner.org.clone());
        // The files the README's examples name.
        let folder = smoke.folder.path();
        std::fs::write(folder.join("invoice.pdf"), herald_testkit::files::pdf()).unwrap();
        std::fs::write(folder.join("receipt.pdf"), herald_testkit::files::pdf()).unwrap();
        std::fs::write(folder.join("photo.jpg"), herald_testkit::files::jpeg()).unwrap();
        std::fs::write(folder.join("voice-note.ogg"), herald_testkit::files::ogg_opus()).unwrap();
        Self {
            smoke,
            latest,
            exported: Vec::new(),
            ran: 0,
        }
    }

    fn fill(&self, command: &str) -> String {
        let port = self.smoke.base.trim_start_matches("http://");
        let mut filled = command
            .replace("cargo run -p herald-app --bin herald --", BINARY)
            .replace("127.0.0.1:8080", port)
            .replace("hk_live_…", &self.smoke.banner.key);
        for (prefix, id) in &self.latest {
            filled = filled.replace(&format!("{prefix}…"), id);
        }
        assert!(
            !filled.contains('…'),
            "a README command has a placeholder the smoke suite does not know: {command}"
        );
        filled
    }

    fn remember(&mut self, output: &str) {
        for prefix in ["org_", "msg_", "med_", "inb_", "brd_"] {
            // Herald's ids are the prefix and a 26-character ULID.
            let ids = output.match_indices(prefix).filter_map(|(at, _)| {
                let ulid: String = output[at + prefix.len()..]
                    .chars()
                    .take_while(char::is_ascii_alphanumeric)
                    .collect();
                (ulid.len() == 26).then(|| format!("{prefix}{ulid}"))
            });
            if let Some(id) = ids.last() {
                self.latest.insert(prefix, id);
            }
        }
    }

    fn shell(&self, command: &str) -> Command {
        let mut shell = Command::new("bash");
        let mut settings = self.smoke.settings.clone();
        settings.extend(self.exported.iter().cloned());
        newcomer(&mut shell, self.smoke.folder.path(), &settings);
        // Every HTTP error fails the command, as it would fail a newcomer.
        let preamble =
            "set -eo pipefail\ncurl() { command curl -sS --fail-with-body --max-time 30 \"$@\"; }\n";
        shell.args(["-c", &format!("{preamble}{}", self.fill(command))]);
        shell
    }

    /// `serve` never returns: it must come up healthy on a port of its own, then it is stopped.
    async fn serve(&self, command: &str) {
        let mut shell = self.shell(&format!("exec {}", command.trim()));
        let (_server, port) = serve_on_own_port(shell.stdout(Stdio::null()));
        wait_healthy(&self.smoke.http, &format!("http://127.0.0.1:{port}")).await;
    }

    async fn run(&mut self, command: &str) {
        eprintln!("README: {command}");
        let line = command.trim();
        if line.starts_with("make ") {
            // `make run` is how this suite started the server; `make test` is what runs it.
            return;
        }
        if let Some(assignment) = line.strip_prefix("export ") {
            let (name, value) = assignment.split_once('=').unwrap();
            let value = match self.smoke.settings.iter().find(|(k, _)| k == name) {
                Some((_, ours)) => ours.clone(),
                None => value.to_owned(),
            };
            self.exported.push((name.to_owned(), value));
            return;
        }
        if line.ends_with(" serve") {
            self.serve(line).await;
            self.ran += 1;
            return;
        }
        let output = tokio::task::spawn_blocking({
            let mut shell = self.shell(command);
            move || shell.output().unwrap()
        })
        .await
        .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "README command failed:\n{command}\nstdout: {stdout}\nstderr: {}\nlog: {}",
            String::from_utf8_lossy(&output.stderr),
            log_of(self.smoke.folder.path())
        );
        self.remember(&stdout);
        self.ran += 1;
    }
}

/// Each line of the README's operator synopsis names a command and flags the binary has.
#[test]
fn the_readme_operator_synopsis_matches_the_binary() {
    let readme = read_repository_file("README.md");
    let synopsis: Vec<&str> = readme
        .lines()
        .skip_while(|line| !line.starts_with("## The operator's command line"))
        .skip_while(|line| !line.starts_with("```"))
        .skip(1)
        .take_while(|line| !line.starts_with("```"))
        .collect();
    assert!(synopsis.len() >= 10, "the synopsis moved: {synopsis:?}");
    for line in synopsis {
        let words: Vec<&str> = line.split('#').next().unwrap().split_whitespace().collect();
        assert_eq!(words.first(), Some(&"herald"), "{line}");
        let path: Vec<&str> = words
            .iter()
            .skip(1)
            .take_while(|w| {
                !w.starts_with('-') && w.chars().all(|c| c.is_ascii_lowercase() || c == '-' || c == '|')
            })
            .copied()
            .collect();
        let flags: Vec<&str> = line
            .split('#')
            .next()
            .unwrap()
            .split([' ', '[', ']', '|', '='])
            .filter(|token| token.starts_with("--"))
            .collect();
        // `suspend|activate|close` names three commands.
        let alternatives: Vec<Vec<&str>> = match path.iter().position(|w| w.contains('|')) {
            Some(at) => path[at]
                .split('|')
                .map(|alt| {
                    let mut p = path.clone();
                    p[at] = alt;
                    p
                })
                .collect(),
            None => vec![path],
        };
        for path in alternatives {
            let help = Command::new(BINARY).args(&path).arg("--help").output().unwrap();
            let text = String::from_utf8_lossy(&help.stdout);
            assert!(
                help.status.success(),
                "`herald {}` is no command: {line}",
                path.join(" ")
            );
            for flag in &flags {
                assert!(
                    text.contains(flag),
                    "`herald {}` has no {flag}: {line}",
                    path.join(" ")
                );
            }
            if path.first() == Some(&"admin") {
                assert!(
                    text.contains("--json"),
                    "every admin command takes --json: {line}"
                );
            }
        }
    }
}

async fn smoke_on(settings: Vec<(String, String)>, postgres: bool) {
    let smoke = Smoke::start(settings).await;
    smoke.capabilities().await;

    let readme = read_repository_file("README.md");
    let commands = readme_commands(&readme);
    let mut run = ReadmeRun::new(&smoke);
    let postgres_block = commands
        .iter()
        .find(|(_, command)| command.contains("HERALD_DATABASE_URL=postgres"))
        .map(|(block, _)| *block);
    for (block, command) in &commands {
        if Some(*block) == postgres_block && !postgres {
            continue;
        }
        run.run(command).await;
    }
    assert!(run.ran >= 15, "only {} README commands ran", run.ran);
}

#[tokio::test]
async fn make_run_and_the_readme_on_sqlite() {
    smoke_on(Vec::new(), false).await;
}

#[tokio::test]
async fn make_run_and_the_readme_on_postgres() {
    let empty = herald_store::testing::empty_postgres()
        .await
        .unwrap_or_else(|error| panic!("no empty PostgreSQL database could be made: {error:#}"));
    let Some((store, guard)) = empty else {
        eprintln!(
            "SKIPPED ({} unset): smoke::make_run_and_the_readme_on_postgres",
            herald_store::testing::DATABASE_URL_ENV
        );
        return;
    };
    drop(store);
    let url = guard.database_url().to_owned();
    smoke_on(vec![("HERALD_DATABASE_URL".to_owned(), url)], true).await;
}
