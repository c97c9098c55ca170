//! The dashboard in a real browser: Debian's `chromium`, headless, driven through `chromedriver` (WebDriver)
//! with fantoccini. It logs in, creates a key and reads it from the page, sends a message with it through the
//! API, sees the message (delivered) in the log, watches a webhook delivery, disables the key, and sees the
//! API refuse it. It screenshots every page.
//!
//! Without `chromium` and `chromedriver` on the PATH the test is skipped loudly; under `CI=true` it fails
//! instead (`.ci/run` installs both from Debian's packages). Screenshots go to
//! `$CARGO_TARGET_TMPDIR/dashboard-screenshots/`, or to `docs/dashboard/` with `HERALD_UPDATE_SCREENSHOTS=1`.

use crate::dashboard::{dashboard_settings, owner_org};
use fantoccini::{Client, ClientBuilder, Locator};
use herald_app::{Application, Services};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A headless Chromium that runs as root in a container without a GPU and reaches nothing but the app under
/// test (no updates, no background traffic, no first-run page), with a fixed window for stable screenshots.
const CHROMIUM_ARGS: [&str; 7] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--window-size=1280,1000",
];

/// A program on the PATH.
fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())
    })
}

/// `chromedriver` on a free port, killed when dropped.
pub(crate) struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    herald_testkit::ports::free_port().unwrap()
}

pub(crate) async fn start_driver(chromedriver: &Path) -> Driver {
    let port = free_port();
    let child = Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver { child, port };
    let deadline = Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen on {port}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    driver
}

pub(crate) async fn start_browser(driver: &Driver, chromium: &Path, profile: &Path) -> Client {
    let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|a| (*a).to_owned()).collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    let mut capabilities = serde_json::Map::new();
    capabilities.insert("browserName".into(), json!("chrome"));
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({ "binary": chromium.display().to_string(), "args": args }),
    );
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a WebDriver session in chromium")
}

/// Where screenshots go.
fn screenshot_dir() -> PathBuf {
    let dir = if std::env::var("HERALD_UPDATE_SCREENSHOTS").as_deref() == Ok("1") {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/dashboard")
    } else {
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard-screenshots")
    };
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(crate) async fn screenshot(browser: &Client, name: &str) {
    let png = browser.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    std::fs::write(screenshot_dir().join(format!("{name}.png")), png).unwrap();
}

pub(crate) async fn css(browser: &Client, selector: &str) -> fantoccini::elements::Element {
    match browser
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css(selector))
        .await
    {
        Ok(element) => element,
        Err(e) => panic!("no `{selector}` on {:?}: {e}", browser.current_url().await),
    }
}

async fn path_of(browser: &Client) -> String {
    let url = browser.current_url().await.unwrap();
    match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    }
}

/// A customer's webhook receiver that accepts everything.
async fn receiver() -> (String, actix_web::dev::ServerHandle) {
    use actix_web::{App, HttpResponse, HttpServer, web};
    let server = HttpServer::new(|| {
        App::new().default_service(web::to(|| async { HttpResponse::NoContent().finish() }))
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let port = server.addrs()[0].port();
    let server = server.run();
    let handle = server.handle();
    tokio::spawn(server);
    (format!("http://127.0.0.1:{port}/herald-events"), handle)
}

/// Polls `check` until it answers `Some`, for up to a minute (the work it waits for is asynchronous).
pub(crate) async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `chromium` and `chromedriver` from the PATH; `None` (after a loud notice) when either is missing, which
/// fails instead under `CI=true`.
pub(crate) fn browser_programs() -> Option<(PathBuf, PathBuf)> {
    let (Some(chromium), Some(chromedriver)) = (on_path("chromium"), on_path("chromedriver")) else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true: the browser test needs `chromium` and `chromedriver` (apt-get install chromium chromium-driver)"
        );
        eprintln!(
            "\n##################################################################################\n\
             ##  SKIPPED the dashboard browser test: `chromium` and `chromedriver` are not on  ##\n\
             ##  the PATH. Install them with: apt-get install -y chromium chromium-driver      ##\n\
             ##################################################################################\n"
        );
        return None;
    };
    Some((chromium, chromedriver))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_manages_keys_and_sees_messages_in_a_real_browser() {
    let Some((chromium, chromedriver)) = browser_programs() else {
        return;
    };

    // The whole Herald (API, workers, in-process simulator) on a fresh SQLite store.
    let (store, _guard) = herald_store::testing::fresh_sqlite().await.unwrap();
    let services = Services::with_store(store);
    let mut settings = dashboard_settings();
    settings.dispatch.poll_ms = 50;
    let email = "owner@example.com";
    let password = "a long browser passphrase";
    owner_org(
        &services,
        &settings,
        email,
        password,
        ("+15550001111", "1000000001"),
    )
    .await;
    let app = Application::build(&settings, &services, herald_app::cli::Role::All).unwrap();
    let base = format!("http://127.0.0.1:{}", app.port().unwrap());
    let handle = app.handle().unwrap();
    tokio::spawn(app.run_until_stopped());
    let (hook_url, hook_handle) = receiver().await;
    let http = reqwest::Client::new();

    let driver = start_driver(&chromedriver).await;
    let profile = tempfile::tempdir().unwrap();
    let browser = start_browser(&driver, &chromium, profile.path()).await;

    // Logging in.
    browser.goto(&format!("{base}/dashboard")).await.unwrap();
    css(&browser, "#login").await;
    assert_eq!(
        path_of(&browser).await,
        "/dashboard/login",
        "an anonymous visit lands on the login form"
    );
    css(&browser, "#email").await.send_keys(email).await.unwrap();
    css(&browser, "#password")
        .await
        .send_keys("not the password")
        .await
        .unwrap();
    css(&browser, "#login").await.click().await.unwrap();
    let error = css(&browser, "#login-error").await.text().await.unwrap();
    assert!(error.contains("did not work"), "{error}");
    css(&browser, "#email").await.clear().await.unwrap();
    css(&browser, "#email").await.send_keys(email).await.unwrap();
    screenshot(&browser, "login").await;
    css(&browser, "#password")
        .await
        .send_keys(password)
        .await
        .unwrap();
    css(&browser, "#login").await.click().await.unwrap();
    css(&browser, "#create-key").await;
    assert_eq!(path_of(&browser).await, "/dashboard/keys");

    // A webhook endpoint, its secret shown once.
    browser.goto(&format!("{base}/dashboard/webhooks")).await.unwrap();
    css(&browser, "#webhook-url")
        .await
        .send_keys(&hook_url)
        .await
        .unwrap();
    css(&browser, "#create-webhook").await.click().await.unwrap();
    let secret = css(&browser, "#new-secret").await.text().await.unwrap();
    assert!(secret.starts_with("whsec_"), "{secret}");
    screenshot(&browser, "webhooks").await;

    // A key, read from the page.
    browser.goto(&format!("{base}/dashboard/keys")).await.unwrap();
    css(&browser, "#key-name")
        .await
        .send_keys("browser test")
        .await
        .unwrap();
    css(&browser, "#create-key").await.click().await.unwrap();
    let key = css(&browser, "#new-key").await.text().await.unwrap();
    assert!(key.starts_with("hk_live_") && key.len() == 48, "{key}");
    css(&browser, "button[data-copy='new-key']").await;
    screenshot(&browser, "keys").await;

    // A message sent with it through the API travels to `delivered`.
    let sent = http
        .post(format!("{base}/api/v1/messages/send-template"))
        .bearer_auth(&key)
        .json(&json!({ "to": "+15551234567", "template": { "name": "hello_world", "language": "en_US" } }))
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 202);
    let id = sent.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Callbacks are processed concurrently, so `sent` may be recorded just after the message reads
    // `delivered`: wait for both before looking at the timeline.
    eventually("the message to be delivered", || async {
        let get = |path: String| http.get(format!("{base}{path}")).bearer_auth(&key).send();
        let message: Value = get(format!("/api/v1/messages/{id}"))
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        let events: Value = get(format!("/api/v1/messages/{id}/events"))
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        let sent_recorded = events["data"].as_array()?.iter().any(|e| e["status"] == "sent");
        (message["status"] == "delivered" && sent_recorded).then_some(())
    })
    .await;

    // …and shows in the log, filtered by recipient, and on its own page with its timeline.
    browser
        .goto(&format!(
            "{base}/dashboard/messages?to=%2B15551234567&status=delivered"
        ))
        .await
        .unwrap();
    let row = css(&browser, &format!("tr[data-message-id='{id}']")).await;
    assert!(row.text().await.unwrap().contains("delivered"));
    screenshot(&browser, "messages").await;
    row.find(Locator::Css("a")).await.unwrap().click().await.unwrap();
    let timeline = css(&browser, "#timeline").await.text().await.unwrap();
    for status in ["accepted", "submitted", "sent", "delivered"] {
        assert!(timeline.contains(status), "{status} in {timeline}");
    }
    css(&browser, "#sent-events").await;
    screenshot(&browser, "message").await;

    // The endpoint received the message's events: deliveries with attempts, and a redeliver button.
    browser.goto(&format!("{base}/dashboard/webhooks")).await.unwrap();
    css(&browser, "#webhooks a").await.click().await.unwrap();
    let endpoint_path = path_of(&browser).await;
    eventually("a delivery attempt", || async {
        browser.goto(&format!("{base}{endpoint_path}")).await.ok()?;
        let deliveries = browser
            .find(Locator::Css("#deliveries"))
            .await
            .ok()?
            .text()
            .await
            .ok()?;
        deliveries.contains("HTTP 204").then_some(())
    })
    .await;
    css(&browser, "#deliveries button[type='submit']")
        .await
        .click()
        .await
        .unwrap();
    let flash = css(&browser, ".flash").await.text().await.unwrap();
    assert!(flash.contains("queued again"), "{flash}");
    screenshot(&browser, "webhook").await;

    browser.goto(&format!("{base}/dashboard/account")).await.unwrap();
    let usage = css(&browser, "#usage").await.text().await.unwrap();
    assert!(usage.starts_with("1 of "), "{usage}");
    screenshot(&browser, "account").await;

    browser
        .goto(&format!("{base}/dashboard/templates"))
        .await
        .unwrap();
    let rows = browser
        .find_all(Locator::Css("#templates tbody tr"))
        .await
        .unwrap();
    assert!(rows.len() >= 5, "the seeded templates are listed");
    screenshot(&browser, "templates").await;

    // Disabling the key, after a confirmation; the API (the same process) refuses it on its next request.
    browser.goto(&format!("{base}/dashboard/keys")).await.unwrap();
    let key_row = css(&browser, "#keys tbody tr").await;
    key_row
        .find(Locator::Css("a.danger"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    css(&browser, "#confirm-disable").await;
    screenshot(&browser, "keys-disable").await;
    css(&browser, "#confirm-disable").await.click().await.unwrap();
    css(&browser, ".flash").await;
    assert!(
        css(&browser, "#keys tbody tr")
            .await
            .text()
            .await
            .unwrap()
            .contains("disabled"),
        "the list shows the key disabled"
    );
    let refused = http
        .get(format!("{base}/api/v1/messages"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    assert_eq!(refused.json::<Value>().await.unwrap()["code"], "api_key_disabled");

    // The same pages on a phone.
    browser.set_window_size(390, 844).await.unwrap();
    browser.goto(&format!("{base}/dashboard/messages")).await.unwrap();
    css(&browser, "#messages").await;
    screenshot(&browser, "mobile-messages").await;

    // Logging out.
    css(&browser, "#logout").await.click().await.unwrap();
    css(&browser, "#login").await;

    browser.close().await.unwrap();
    drop(driver);
    hook_handle.stop(false).await;
    handle.stop(false).await;
}
