//! Erasing a person from the dashboard in a real browser (Debian's `chromium` through `chromedriver`, as in
//! `browser.rs`): the owner names the person, types the number again and ticks the box, and afterwards the
//! API gives neither the message sent to them nor the one they wrote with its body; a confirmation that names
//! someone else erases nothing. Skipped loudly without the browser, as `browser.rs` is.

use crate::browser::{Driver, browser_programs, css, eventually, screenshot, start_browser, start_driver};
use crate::dashboard::{dashboard_settings, owner_org};
use fantoccini::Client;
use herald_app::{Application, Services};
use serde_json::{Value, json};

const SENDER: &str = "+15550001111";
const PERSON: &str = "+15551237777";
/// What the person wrote, and what was sent to them: the bodies the erasure must take away.
const WRITTEN: &str = "my question about order 1234";
const SENT: &str = "your code is 4711";
const EMAIL: &str = "owner@example.com";
const PASSWORD: &str = "a long browser passphrase";

/// Herald (API, workers, in-process simulator) on a fresh SQLite store, a conversation with [`PERSON`]
/// (their message in, a text out, delivered), and a browser logged in to the dashboard.
struct Scene {
    base: String,
    http: reqwest::Client,
    key: String,
    /// The text sent to the person.
    sent_id: String,
    browser: Client,
    driver: Driver,
    handle: actix_web::dev::ServerHandle,
    _profile: tempfile::TempDir,
    _store: herald_store::testing::Guard,
}

impl Scene {
    async fn start() -> Option<Self> {
        let (chromium, chromedriver) = browser_programs()?;
        let (store, guard) = herald_store::testing::fresh_sqlite().await.unwrap();
        let services = Services::with_store(store);
        let mut settings = dashboard_settings();
        settings.dispatch.poll_ms = 50;
        let org = owner_org(&services, &settings, EMAIL, PASSWORD, (SENDER, "1000000001")).await;
        let (_, key) = services.admin().create_key(&org, None).await.unwrap();
        let app = Application::build(&settings, &services, herald_app::cli::Role::All).unwrap();
        let base = format!("http://127.0.0.1:{}", app.port().unwrap());
        let handle = app.handle().unwrap();
        tokio::spawn(app.run_until_stopped());
        let driver = start_driver(&chromedriver).await;
        let profile = tempfile::tempdir().unwrap();
        let browser = start_browser(&driver, &chromium, profile.path()).await;
        let mut scene = Self {
            base,
            http: reqwest::Client::new(),
            key: key.expose().to_owned(),
            sent_id: String::new(),
            browser,
            driver,
            handle,
            _profile: profile,
            _store: guard,
        };
        scene.converse().await;
        scene.login().await;
        Some(scene)
    }

    async fn get(&self, path: &str) -> Value {
        self.http
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// The person writes (through the simulator, as the network delivers it), and is answered.
    async fn converse(&mut self) {
        let wrote = self
            .http
            .post(format!("{}/simulator/control/inbound", self.base))
            .json(&json!({ "from": PERSON, "to": SENDER, "text": WRITTEN }))
            .send()
            .await
            .unwrap();
        assert!(wrote.status().is_success());
        eventually("the person's message to arrive", || async {
            self.get("/api/v1/inbound")
                .await
                .to_string()
                .contains(WRITTEN)
                .then_some(())
        })
        .await;
        let sent = self
            .http
            .post(format!("{}/api/v1/messages/send-text", self.base))
            .bearer_auth(&self.key)
            .json(&json!({ "to": PERSON, "message": SENT }))
            .send()
            .await
            .unwrap();
        assert_eq!(sent.status(), 202);
        self.sent_id = sent.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let path = format!("/api/v1/messages/{}", self.sent_id);
        eventually("the answer to be delivered", || async {
            (self.get(&path).await["status"] == "delivered").then_some(())
        })
        .await;
    }

    async fn login(&self) {
        self.browser
            .goto(&format!("{}/dashboard/login", self.base))
            .await
            .unwrap();
        css(&self.browser, "#email").await.send_keys(EMAIL).await.unwrap();
        css(&self.browser, "#password")
            .await
            .send_keys(PASSWORD)
            .await
            .unwrap();
        css(&self.browser, "#login").await.click().await.unwrap();
        css(&self.browser, "#create-key").await;
    }

    /// Names [`PERSON`] on the privacy page, then confirms with `confirmation` typed and the box ticked;
    /// with `screenshots`, the two pages are kept (one test takes them, so parallel tests do not overwrite
    /// each other's).
    async fn erase_confirming_with(&self, confirmation: &str, screenshots: bool) {
        self.browser
            .goto(&format!("{}/dashboard/erase", self.base))
            .await
            .unwrap();
        css(&self.browser, "#erase-recipient")
            .await
            .send_keys(PERSON)
            .await
            .unwrap();
        if screenshots {
            screenshot(&self.browser, "erase").await;
        }
        css(&self.browser, "#erase-review").await.click().await.unwrap();
        css(&self.browser, "#erase-confirmation")
            .await
            .send_keys(confirmation)
            .await
            .unwrap();
        css(&self.browser, "#erase-understood")
            .await
            .click()
            .await
            .unwrap();
        if screenshots {
            screenshot(&self.browser, "erase-confirm").await;
        }
        css(&self.browser, "#erase-confirm").await.click().await.unwrap();
    }

    /// Everything the API gives about the conversation: the sent message and the inbound list.
    async fn conversation(&self) -> String {
        let sent = self.get(&format!("/api/v1/messages/{}", self.sent_id)).await;
        let inbound = self.get("/api/v1/inbound").await;
        format!("{sent}\n{inbound}")
    }

    async fn finish(self) {
        self.browser.close().await.unwrap();
        drop(self.driver);
        self.handle.stop(false).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_erases_a_person_in_a_real_browser() {
    let Some(scene) = Scene::start().await else {
        return;
    };
    let before = scene.conversation().await;
    assert!(before.contains(SENT) && before.contains(WRITTEN), "{before}");

    scene.erase_confirming_with(PERSON, true).await;
    let marker = css(&scene.browser, "#erased-marker").await.text().await.unwrap();
    assert!(marker.starts_with("erased:") && marker.len() == 71, "{marker}");
    let messages = css(&scene.browser, "#erased-messages")
        .await
        .text()
        .await
        .unwrap();
    let inbound = css(&scene.browser, "#erased-inbound").await.text().await.unwrap();
    assert_eq!((messages.as_str(), inbound.as_str()), ("1", "1"));
    screenshot(&scene.browser, "erase-done").await;

    // Through the API: both bodies and the number are gone; the sent message is kept under the marker.
    let after = scene.conversation().await;
    for gone in [SENT, WRITTEN, PERSON] {
        assert!(!after.contains(gone), "{gone} is still in {after}");
    }
    let sent = scene.get(&format!("/api/v1/messages/{}", scene.sent_id)).await;
    assert_eq!(sent["to"], marker.as_str(), "{sent}");
    assert_eq!(sent["status"], "delivered", "{sent}");
    scene.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_confirmation_refuses_another_number_in_a_real_browser() {
    let Some(scene) = Scene::start().await else {
        return;
    };
    scene.erase_confirming_with("+15551237778", false).await;
    let refusal = css(&scene.browser, "#confirm-error").await.text().await.unwrap();
    assert!(refusal.contains("not the same"), "{refusal}");
    // Still on the confirmation, which can be tried again.
    css(&scene.browser, "#erase-confirm").await;
    let after = scene.conversation().await;
    assert!(
        after.contains(SENT) && after.contains(WRITTEN) && after.contains(PERSON),
        "nothing was erased: {after}"
    );
    scene.finish().await;
}
