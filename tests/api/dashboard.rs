//! The owner's dashboard over real HTTP: login failures (one generic answer, limited attempts), CSRF on every
//! form, another organization's ids answering 404, idle and absolute session expiry (an injected clock),
//! logout, cookie attributes, and secrets shown only at creation. The browser test is in `browser.rs`.

use crate::helpers::{Db, TestApp, spawn_api_on};
use herald_app::Services;
use herald_app::config::Settings;
use herald_domain::ids::OrganizationId;
use herald_domain::organization::PlanName;
use herald_domain::owner::OwnerEmail;
use herald_domain::values::DisplayName;
use herald_testkit::fixtures::FixedClock;
use reqwest::StatusCode;
use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use serde_json::json;
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The generic login failure text (`herald_dashboard`'s `LOGIN_FAILED`).
const LOGIN_FAILED: &str = "That email and password did not work.";

/// A Herald with the usual test organization (`app.org`, its key and sender) plus an organization whose
/// owner can log in to the dashboard.
pub struct DashboardApp {
    pub app: TestApp,
    pub settings: Settings,
    pub owner_org: OrganizationId,
    pub email: String,
    pub password: String,
}

/// Settings of a dashboard test: webhook endpoints may point at loopback over http (a test receiver).
pub fn dashboard_settings() -> Settings {
    let mut settings = Settings::default();
    settings.server.listen = "127.0.0.1:0".into();
    settings.server.http_workers = 2;
    settings.webhooks.allow_insecure = true;
    settings.webhooks.allow_private_targets = true;
    settings
}

/// Starts the API on a fresh store of `db` with `settings`, and an owner organization (the simulator's second
/// sender, its templates, a password set). `clock` replaces the system clock (session expiry tests).
pub async fn spawn_dashboard(
    db: Db,
    settings: Settings,
    clock: Option<Arc<FixedClock>>,
) -> Option<DashboardApp> {
    let (store, guard): (herald_store::Store, Box<dyn Any + Send>) = match db {
        Db::Sqlite => {
            let (store, guard) = herald_store::testing::fresh_sqlite()
                .await
                .expect("fresh SQLite store");
            (store, Box::new(guard))
        }
        Db::Postgres => {
            let (store, guard) = herald_store::testing::fresh_postgres()
                .await
                .expect("fresh PostgreSQL store")?;
            (store, Box::new(guard))
        }
    };
    let mut services = Services {
        limiter: Arc::new(herald_domain::ports::NoRateLimit),
        ..Services::with_store(store)
    };
    if let Some(clock) = clock {
        services.clock = clock;
    }
    let app = spawn_api_on(&settings, &services, guard).await;
    let email = "Owner@Example.com".to_owned();
    let password = "correct horse battery staple".to_owned();
    let owner_org = owner_org(
        &app.services,
        &settings,
        &email,
        &password,
        ("+15550002222", "1000000002"),
    )
    .await;
    Some(DashboardApp {
        app,
        settings,
        owner_org,
        email,
        password,
    })
}

/// A new organization owned by `email` (password set), with one sender and the simulator's templates.
pub async fn owner_org(
    services: &Services,
    settings: &Settings,
    email: &str,
    password: &str,
    sender: (&str, &str),
) -> OrganizationId {
    let admin = services.admin();
    let org = admin
        .create_organization(
            DisplayName::parse("Owner's org").unwrap(),
            PlanName::parse("business").unwrap(),
            Some(OwnerEmail::parse(email).unwrap().as_str().to_owned()),
        )
        .await
        .unwrap();
    crate::helpers::add_default_sender(services, &org.id, sender.0, sender.1, 80).await;
    herald_app::demo::seed_templates(services, &org.id).await.unwrap();
    services
        .owner_access(settings)
        .set_password(&org.id, &OwnerEmail::parse(email).unwrap(), password)
        .await
        .unwrap();
    org.id
}

/// A page as the browser got it.
pub struct Page {
    pub status: StatusCode,
    pub location: Option<String>,
    pub set_cookies: Vec<String>,
    pub cache_control: Option<String>,
    pub body: String,
}

impl Page {
    /// The first CSRF token of the page's forms.
    pub fn csrf(&self) -> String {
        let marker = "name=\"csrf\" value=\"";
        let start = self
            .body
            .find(marker)
            .expect("the page has a form with a CSRF token")
            + marker.len();
        let end = self.body[start..].find('"').unwrap();
        self.body[start..start + end].to_owned()
    }

    /// The text of the element with this id (`<code id="new-key">…</code>`).
    pub fn text_of(&self, id: &str) -> Option<String> {
        let marker = format!("id=\"{id}\">");
        let start = self.body.find(&marker)? + marker.len();
        let end = self.body[start..].find('<')?;
        Some(self.body[start..start + end].to_owned())
    }

    /// The markup of the table with `id`, tags included.
    pub fn table_of(&self, id: &str) -> Option<String> {
        let start = self.body.find(&format!("<table id=\"{id}\">"))?;
        let end = self.body[start..].find("</table>")?;
        Some(self.body[start..start + end].to_owned())
    }
}

/// A browser without JavaScript: keeps cookies, follows no redirects.
pub struct Browser {
    base: String,
    http: reqwest::Client,
    pub cookies: BTreeMap<String, String>,
    /// Extra headers on every request (e.g. `X-Forwarded-Proto`).
    extra: Vec<(&'static str, String)>,
}

impl Browser {
    pub fn new(base: &str) -> Self {
        Self {
            base: base.to_owned(),
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            cookies: BTreeMap::new(),
            extra: Vec::new(),
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    async fn send(&mut self, request: reqwest::RequestBuilder) -> Page {
        let mut request = request.header(COOKIE, self.cookie_header());
        for (name, value) in &self.extra {
            request = request.header(*name, value);
        }
        let response = request.send().await.unwrap();
        let set_cookies: Vec<String> = response
            .headers()
            .get_all(SET_COOKIE)
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .collect();
        for cookie in &set_cookies {
            let (pair, attributes) = cookie.split_once(';').unwrap_or((cookie, ""));
            let (name, value) = pair.split_once('=').unwrap();
            if value.is_empty() || attributes.contains("Max-Age=0") {
                self.cookies.remove(name);
            } else {
                self.cookies.insert(name.to_owned(), value.to_owned());
            }
        }
        Page {
            status: response.status(),
            location: response
                .headers()
                .get(LOCATION)
                .map(|v| v.to_str().unwrap().to_owned()),
            cache_control: response
                .headers()
                .get("cache-control")
                .map(|v| v.to_str().unwrap().to_owned()),
            set_cookies,
            body: response.text().await.unwrap(),
        }
    }

    pub async fn get(&mut self, path: &str) -> Page {
        let request = self.http.get(format!("{}{path}", self.base));
        self.send(request).await
    }

    pub async fn post(&mut self, path: &str, form: &[(&str, &str)]) -> Page {
        let request = self.http.post(format!("{}{path}", self.base)).form(form);
        self.send(request).await
    }

    /// Opens the login form and submits it.
    pub async fn login(&mut self, email: &str, password: &str) -> Page {
        let form = self.get("/dashboard/login").await;
        assert_eq!(form.status, StatusCode::OK);
        let csrf = form.csrf();
        self.post(
            "/dashboard/login",
            &[("email", email), ("password", password), ("csrf", &csrf)],
        )
        .await
    }

    /// Logs in, which must succeed.
    pub async fn login_ok(&mut self, email: &str, password: &str) {
        let page = self.login(email, password).await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{}", page.body);
        assert_eq!(page.location.as_deref(), Some("/dashboard/keys"));
    }

    /// The CSRF token of the logged-in session (read from the keys page).
    pub async fn session_csrf(&mut self) -> String {
        let page = self.get("/dashboard/keys").await;
        assert_eq!(page.status, StatusCode::OK, "logged in");
        page.csrf()
    }
}

fn assert_login_redirect(page: &Page, what: &str) {
    assert_eq!(page.status, StatusCode::SEE_OTHER, "{what}: {}", page.body);
    assert_eq!(page.location.as_deref(), Some("/dashboard/login"), "{what}");
}

async fn login_failures_are_generic_and_attempts_are_limited(db: Db) {
    let mut settings = dashboard_settings();
    settings.dashboard.login_attempts_per_account = 5;
    settings.dashboard.login_attempts_per_address = 8;
    let Some(d) = spawn_dashboard(db, settings, None).await else {
        return;
    };
    let mut browser = Browser::new(&d.app.base);

    // Attempt 1 (account and address): the right password, in another case.
    browser.login_ok(&d.email.to_uppercase(), &d.password).await;
    let mut stranger = Browser::new(&d.app.base);

    // Attempts 2–5 of the account: wrong password, unknown email, empty password — one answer for all.
    let mut bodies = Vec::new();
    for (email, password) in [
        (d.email.as_str(), "wrong password!"),
        (d.email.as_str(), ""),
        (d.email.as_str(), "Correct horse battery staple"),
        (d.email.as_str(), "nearly"),
    ] {
        let page = stranger.login(email, password).await;
        assert_eq!(page.status, StatusCode::UNAUTHORIZED, "{email}/{password}");
        assert!(page.body.contains(LOGIN_FAILED), "{}", page.body);
        assert!(
            !stranger.cookies.contains_key("herald_session"),
            "no session after a failure"
        );
        bodies.push(page.text_of("login-error").unwrap());
    }
    // Attempt 6 from the address, with the right password: the account's attempts are used up.
    let limited = stranger.login(&d.email, &d.password).await;
    assert_eq!(limited.status, StatusCode::UNAUTHORIZED, "per-account limit");
    bodies.push(limited.text_of("login-error").unwrap());

    // Another owner, never tried: attempt 7 from the address succeeds (the account limit is per account)…
    let other_password = "another long passphrase";
    owner_org(
        &d.app.services,
        &d.settings,
        "second@example.com",
        other_password,
        ("+15550003333", "1000000003"),
    )
    .await;
    stranger.login_ok("second@example.com", other_password).await;
    // …attempt 8 is an unknown email (same answer), and attempt 9 is over the address's limit.
    let unknown = Browser::new(&d.app.base)
        .login("nobody@example.com", "whatever it is")
        .await;
    assert_eq!(unknown.status, StatusCode::UNAUTHORIZED);
    bodies.push(unknown.text_of("login-error").unwrap());
    let over_address = Browser::new(&d.app.base)
        .login("second@example.com", other_password)
        .await;
    assert_eq!(over_address.status, StatusCode::UNAUTHORIZED, "per-address limit");
    bodies.push(over_address.text_of("login-error").unwrap());

    assert!(
        bodies.windows(2).all(|w| w[0] == w[1]),
        "every failure says the same thing: {bodies:?}"
    );
    // The login form's own CSRF token is required too.
    let mut fresh = Browser::new(&d.app.base);
    let no_token = fresh
        .post(
            "/dashboard/login",
            &[
                ("email", "second@example.com"),
                ("password", other_password),
                ("csrf", ""),
            ],
        )
        .await;
    assert_eq!(no_token.status, StatusCode::FORBIDDEN);
}

async fn every_form_checks_the_sessions_csrf_token(db: Db) {
    let Some(d) = spawn_dashboard(db, dashboard_settings(), None).await else {
        return;
    };
    let mut browser = Browser::new(&d.app.base);
    browser.login_ok(&d.email, &d.password).await;
    let csrf = browser.session_csrf().await;
    let mut other_session = Browser::new(&d.app.base);
    other_session.login_ok(&d.email, &d.password).await;
    let foreign = other_session.session_csrf().await;
    assert_ne!(csrf, foreign, "each session has its own token");

    let keys = || async { d.app.services.admin().list_keys(&d.owner_org).await.unwrap() };
    let created = browser
        .post("/dashboard/keys", &[("name", "ok"), ("csrf", &csrf)])
        .await;
    assert_eq!(created.status, StatusCode::OK);
    let key_id = keys().await[0].id.to_string();

    for token in ["", "forged", foreign.as_str()] {
        let refused = browser
            .post("/dashboard/keys", &[("name", "sneaky"), ("csrf", token)])
            .await;
        assert_eq!(
            refused.status,
            StatusCode::FORBIDDEN,
            "create with csrf {token:?}"
        );
        let refused = browser
            .post(&format!("/dashboard/keys/{key_id}/disable"), &[("csrf", token)])
            .await;
        assert_eq!(
            refused.status,
            StatusCode::FORBIDDEN,
            "disable with csrf {token:?}"
        );
        let refused = browser
            .post(
                "/dashboard/webhooks",
                &[
                    ("url", "http://127.0.0.1:9/h"),
                    ("ev_message_status", "on"),
                    ("csrf", token),
                ],
            )
            .await;
        assert_eq!(
            refused.status,
            StatusCode::FORBIDDEN,
            "webhook with csrf {token:?}"
        );
        let refused = browser.post("/dashboard/logout", &[("csrf", token)]).await;
        assert_eq!(
            refused.status,
            StatusCode::FORBIDDEN,
            "logout with csrf {token:?}"
        );
    }
    let after = keys().await;
    assert_eq!(after.len(), 1, "no key was made by a refused form");
    assert_eq!(
        after[0].status.as_str(),
        "active",
        "no key was disabled by a refused form"
    );
    assert!(
        d.app
            .services
            .store
            .webhooks()
            .endpoints(&d.owner_org)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        browser.get("/dashboard/keys").await.status,
        StatusCode::OK,
        "still logged in"
    );

    // A form without any session is sent to the login page, and does nothing.
    let mut anonymous = Browser::new(&d.app.base);
    let page = anonymous
        .post("/dashboard/keys", &[("name", "x"), ("csrf", &csrf)])
        .await;
    assert_login_redirect(&page, "a form without a session");
    assert_eq!(keys().await.len(), 1);
}

async fn another_organizations_ids_answer_404(db: Db) {
    let Some(d) = spawn_dashboard(db, dashboard_settings(), None).await else {
        return;
    };
    // The other organization (app.org): a message, an endpoint with a delivery, a key.
    let sent = d
        .app
        .post(
            "/api/v1/messages/send-template",
            &json!({ "to": "+15551234567", "template": { "name": "hello_world", "language": "en_US" } }),
        )
        .await;
    assert_eq!(sent.status(), 202);
    let their_message = sent.json::<serde_json::Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let endpoint = d
        .app
        .post("/api/v1/webhooks", &json!({ "url": "http://127.0.0.1:9/hook" }))
        .await;
    assert_eq!(endpoint.status(), 201);
    let their_endpoint = endpoint.json::<serde_json::Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let test = d
        .app
        .post(&format!("/api/v1/webhooks/{their_endpoint}/test"), &json!({}))
        .await;
    assert!(test.status().is_success());
    let deliveries: serde_json::Value = d
        .app
        .get(&format!("/api/v1/webhooks/{their_endpoint}/deliveries"))
        .await
        .json()
        .await
        .unwrap();
    let their_delivery = deliveries["data"][0]["id"].as_str().unwrap().to_owned();
    let their_key = d.app.services.admin().list_keys(&d.app.org).await.unwrap()[0]
        .id
        .to_string();

    let mut browser = Browser::new(&d.app.base);
    browser.login_ok(&d.email, &d.password).await;
    let csrf = browser.session_csrf().await;
    for path in [
        format!("/dashboard/messages/{their_message}"),
        format!("/dashboard/webhooks/{their_endpoint}"),
        format!("/dashboard/keys/{their_key}/disable"),
        "/dashboard/messages/msg_not-an-id".to_owned(),
        "/dashboard/nowhere".to_owned(),
    ] {
        let page = browser.get(&path).await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "GET {path}");
        assert!(!page.body.contains(&their_message) || path.contains(&their_message));
    }
    for path in [
        format!("/dashboard/keys/{their_key}/disable"),
        format!("/dashboard/webhooks/{their_endpoint}/disable"),
        format!("/dashboard/webhooks/{their_endpoint}/rotate"),
        format!("/dashboard/webhooks/{their_endpoint}/test"),
        format!("/dashboard/webhooks/{their_endpoint}/deliveries/{their_delivery}/redeliver"),
    ] {
        let page = browser.post(&path, &[("csrf", &csrf)]).await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "POST {path}");
    }
    // Nothing of theirs changed: the key still works, the endpoint is still enabled.
    let still = d.app.get("/api/v1/messages?limit=1").await;
    assert_eq!(still.status(), 200, "their key is still active");
    let endpoint: serde_json::Value = d
        .app
        .get(&format!("/api/v1/webhooks/{their_endpoint}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(endpoint["enabled"], true);
    let log = browser.get("/dashboard/messages").await;
    assert_eq!(log.status, StatusCode::OK);
    assert!(
        !log.body.contains(&their_message),
        "their message is not in the owner's log"
    );
}

async fn sessions_end_when_idle_or_past_their_lifetime(db: Db) {
    let clock = Arc::new(FixedClock::new(chrono::Utc::now()));
    let Some(d) = spawn_dashboard(db, dashboard_settings(), Some(clock.clone())).await else {
        return;
    };
    let minutes = chrono::TimeDelta::minutes;

    // Idle: activity keeps the session alive; 30 minutes without any ends it.
    let mut browser = Browser::new(&d.app.base);
    browser.login_ok(&d.email, &d.password).await;
    for _ in 0..3 {
        clock.advance(minutes(29));
        assert_eq!(browser.get("/dashboard/account").await.status, StatusCode::OK);
    }
    clock.advance(minutes(30));
    assert_login_redirect(&browser.get("/dashboard/account").await, "after 30 idle minutes");
    clock.advance(minutes(1));
    assert_login_redirect(
        &browser.get("/dashboard/keys").await,
        "an idle session stays ended",
    );

    // Absolute: however active, a session ends 12 hours after login.
    browser.login_ok(&d.email, &d.password).await;
    let mut elapsed = chrono::TimeDelta::zero();
    while elapsed + minutes(25) < chrono::TimeDelta::hours(12) {
        clock.advance(minutes(25));
        elapsed += minutes(25);
        assert_eq!(
            browser.get("/dashboard/keys").await.status,
            StatusCode::OK,
            "active at {elapsed}"
        );
    }
    clock.advance(minutes(25));
    assert_login_redirect(&browser.get("/dashboard/keys").await, "past 12 hours");
}

async fn logout_ends_the_session_on_the_server(db: Db) {
    let Some(d) = spawn_dashboard(db, dashboard_settings(), None).await else {
        return;
    };
    let mut browser = Browser::new(&d.app.base);
    let page = browser.login(&d.email, &d.password).await;
    let cookie = page
        .set_cookies
        .iter()
        .find(|c| c.starts_with("herald_session="))
        .expect("a session cookie")
        .clone();
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/dashboard", "Max-Age=43200"] {
        assert!(cookie.contains(attribute), "{attribute} in {cookie}");
    }
    assert!(!cookie.contains("Secure"), "not Secure over plain http: {cookie}");
    let stolen = browser.cookies["herald_session"].clone();

    let csrf = browser.session_csrf().await;
    let out = browser.post("/dashboard/logout", &[("csrf", &csrf)]).await;
    assert_login_redirect(&out, "logout");
    assert!(
        !browser.cookies.contains_key("herald_session"),
        "the cookie is removed"
    );
    assert_login_redirect(&browser.get("/dashboard/keys").await, "after logout");

    // The old cookie, replayed, opens nothing: the session is gone on the server.
    let mut replay = Browser::new(&d.app.base);
    replay.cookies.insert("herald_session".into(), stolen.clone());
    assert_login_redirect(&replay.get("/dashboard/keys").await, "a replayed cookie");

    // A tampered cookie is refused before any lookup.
    let mut tampered = Browser::new(&d.app.base);
    tampered.login_ok(&d.email, &d.password).await;
    let value = tampered.cookies["herald_session"].clone();
    let flipped = format!(
        "{}{}",
        &value[..value.len() - 1],
        if value.ends_with('A') { "B" } else { "A" }
    );
    tampered.cookies.insert("herald_session".into(), flipped);
    assert_login_redirect(&tampered.get("/dashboard/keys").await, "a tampered cookie");

    // Behind an https proxy the cookie is also Secure.
    let mut secure = Browser::new(&d.app.base);
    secure.extra.push(("x-forwarded-proto", "https".to_owned()));
    let page = secure.login(&d.email, &d.password).await;
    let cookie = page
        .set_cookies
        .iter()
        .find(|c| c.starts_with("herald_session="))
        .unwrap();
    assert!(cookie.contains("Secure"), "{cookie}");
}

async fn secrets_are_shown_only_at_creation(db: Db) {
    let Some(d) = spawn_dashboard(db, dashboard_settings(), None).await else {
        return;
    };
    let mut browser = Browser::new(&d.app.base);
    browser.login_ok(&d.email, &d.password).await;
    let csrf = browser.session_csrf().await;

    let created = browser
        .post("/dashboard/keys", &[("name", "server"), ("csrf", &csrf)])
        .await;
    assert_eq!(created.status, StatusCode::OK);
    assert_eq!(created.cache_control.as_deref(), Some("no-store"));
    let key = created.text_of("new-key").expect("the key is shown");
    assert!(key.starts_with("hk_live_") && key.len() == 48, "{key}");
    assert!(created.body.contains("only time it is shown"));

    let hook = browser
        .post(
            "/dashboard/webhooks",
            &[
                ("url", "http://127.0.0.1:9/hook"),
                ("ev_message_status", "on"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(hook.status, StatusCode::OK, "{}", hook.body);
    let secret = hook.text_of("new-secret").expect("the secret is shown");
    assert!(secret.starts_with("whsec_"), "{secret}");
    let endpoint = d
        .app
        .services
        .store
        .webhooks()
        .endpoints(&d.owner_org)
        .await
        .unwrap()[0]
        .id;
    let rotated = browser
        .post(
            &format!("/dashboard/webhooks/{endpoint}/rotate"),
            &[("csrf", &csrf)],
        )
        .await;
    let new_secret = rotated.text_of("new-secret").expect("the new secret is shown");
    assert_ne!(new_secret, secret);

    // The key works, and shows up in the log and the keys list — by prefix only.
    let sent = d
        .app
        .post_as(
            &key,
            "/api/v1/messages/send-template",
            &json!({ "to": "+15551234567", "template": { "name": "hello_world", "language": "en_US" } }),
        )
        .await;
    assert_eq!(sent.status(), 202);
    let message = sent.json::<serde_json::Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for path in [
        "/dashboard/keys".to_owned(),
        "/dashboard/messages".to_owned(),
        format!("/dashboard/messages/{message}"),
        "/dashboard/webhooks".to_owned(),
        format!("/dashboard/webhooks/{endpoint}"),
        "/dashboard/account".to_owned(),
    ] {
        let page = browser.get(&path).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        for shown_once in [&key, &secret, &new_secret, &d.password] {
            assert!(!page.body.contains(shown_once.as_str()), "{path} shows a secret");
        }
        assert!(!page.body.contains("whsec_"), "{path}");
        assert!(
            !page.body.contains(&key[..20]),
            "{path} shows more than the public prefix"
        );
    }
    let keys = browser.get("/dashboard/keys").await;
    assert!(keys.body.contains(&key[..12]), "the public prefix is listed");
}

async fn the_log_filters_and_pages(db: Db) {
    let Some(d) = spawn_dashboard(db, dashboard_settings(), None).await else {
        return;
    };
    let (_, key) = d
        .app
        .services
        .admin()
        .create_key(&d.owner_org, None)
        .await
        .unwrap();
    let mut ids = Vec::new();
    for i in 0..30 {
        let to = if i % 3 == 0 {
            "+15557770000"
        } else {
            "+15551234567"
        };
        let sent = d
            .app
            .post_as(
                key.expose(),
                "/api/v1/messages/send-template",
                &json!({ "to": to, "template": { "name": "hello_world", "language": "en_US" } }),
            )
            .await;
        assert_eq!(sent.status(), 202);
        ids.push(
            sent.json::<serde_json::Value>().await.unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let rows = |page: &Page| {
        ids.iter()
            .filter(|id| page.body.contains(&format!("data-message-id=\"{id}\"")))
            .cloned()
            .collect::<Vec<_>>()
    };
    let mut browser = Browser::new(&d.app.base);
    browser.login_ok(&d.email, &d.password).await;

    let first = browser.get("/dashboard/messages").await;
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(rows(&first), ids[5..].to_vec(), "the newest 25");
    let marker = "id=\"older\" href=\"";
    let start = first.body.find(marker).expect("a link to older messages") + marker.len();
    let older = first.body[start..start + first.body[start..].find('"').unwrap()].replace("&amp;", "&");
    let second = browser.get(&older).await;
    assert_eq!(rows(&second), ids[..5].to_vec(), "the 5 oldest on the next page");
    assert!(!second.body.contains("id=\"older\""), "no page after the last");

    let to_other = browser
        .get("/dashboard/messages?to=%2B15557770000&status=accepted&type=template")
        .await;
    let expected: Vec<String> = ids.iter().step_by(3).cloned().collect();
    let mut got = rows(&to_other);
    got.sort();
    assert_eq!(got, expected, "filtered by recipient, status and type");
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let dated = browser
        .get(&format!("/dashboard/messages?from={today}&until={today}"))
        .await;
    assert_eq!(rows(&dated).len(), 25, "today's messages");
    let yesterday = (chrono::Utc::now() - chrono::TimeDelta::days(1))
        .format("%Y-%m-%d")
        .to_string();
    let none = browser
        .get(&format!("/dashboard/messages?until={yesterday}"))
        .await;
    assert!(rows(&none).is_empty() && none.body.contains("No messages match."));
    let text = browser.get("/dashboard/messages?type=text").await;
    assert!(rows(&text).is_empty(), "no text messages");

    let bad = browser.get("/dashboard/messages?to=12345&from=yesterday").await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(
        bad.body.contains("Recipient:") && bad.body.contains("From:"),
        "{}",
        bad.body
    );
}

/// The message page shows what a new kind says and the message it replies to; a reaction's `sent` is done.
async fn the_message_page_shows_the_new_kinds(db: Db) {
    use herald_domain::content::{Emoji, MessageRef, MessageTarget, Reaction};
    use herald_domain::message::{MessageContent, MessageStatus};
    let Some(d) = spawn_dashboard(db, dashboard_settings(), None).await else {
        return;
    };
    let (_, key) = d
        .app
        .services
        .admin()
        .create_key(&d.owner_org, None)
        .await
        .unwrap();
    let sender = d
        .app
        .services
        .store
        .accounts()
        .senders(&d.owner_org)
        .await
        .unwrap()[0]
        .clone();
    d.app
        .services
        .store
        .windows()
        .record_inbound(&herald_domain::window::ServiceWindow {
            organization_id: d.owner_org,
            sender_id: sender.id,
            recipient: herald_domain::values::PhoneNumber::parse("+15551234567")
                .unwrap()
                .into(),
            last_inbound_at: chrono::Utc::now(),
        })
        .await
        .unwrap();
    let location = d
        .app
        .post_as(
            key.expose(),
            "/api/v1/messages/send-location",
            &json!({ "to": "+15551234567", "latitude": -33.8688, "longitude": 151.2093, "name": "Opera House" }),
        )
        .await;
    assert_eq!(location.status(), 202);
    let location = location.json::<serde_json::Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // A reaction already `sent` that also replies: written straight to the store, as dispatch would leave it.
    let target = MessageTarget {
        message: MessageRef::parse(&location).unwrap(),
        network_message_id: Some("wamid.location".into()),
    };
    let mut reaction = herald_testkit::fixtures::message(
        d.owner_org,
        &sender,
        "+15551234567",
        MessageContent::Reaction(Reaction {
            target: target.clone(),
            emoji: Emoji::parse("👍").unwrap(),
        }),
        chrono::Utc::now(),
    );
    reaction.reply_to = Some(target);
    reaction.status = MessageStatus::Sent;
    reaction.network_message_id = Some("wamid.reaction".into());
    let request = herald_testkit::fixtures::accept_request(&reaction, None, None);
    d.app.services.store.messages().accept(&request).await.unwrap();

    let mut browser = Browser::new(&d.app.base);
    browser.login_ok(&d.email, &d.password).await;
    let page = browser.get(&format!("/dashboard/messages/{location}")).await;
    assert_eq!(page.status, StatusCode::OK);
    let content = page.text_of("message-content").expect("the content is shown");
    assert!(
        content.contains("-33.8688, 151.2093") && content.contains("Opera House"),
        "{content}"
    );
    let page = browser.get(&format!("/dashboard/messages/{}", reaction.id)).await;
    assert!(
        page.body.contains("<span class=\"badge ok\">sent</span>"),
        "a reaction's sent is final"
    );
    assert!(
        page.body
            .contains(&format!("id=\"message-reply-to\"><code>{location}</code>"))
    );
    assert!(page.body.contains("👍 to"));
}

on_both_stores!(
    the_broadcasts_pages_show_progress_and_cancel_with_csrf,
    the_templates_page_lists_filters_and_syncs,
    the_message_page_shows_the_new_kinds,
    the_message_page_shows_the_estimated_cost_beside_the_pricing,
    a_scheduled_message_shows_its_time_and_is_cancelled_from_its_page,
    the_log_filters_and_pages,
    login_failures_are_generic_and_attempts_are_limited,
    every_form_checks_the_sessions_csrf_token,
    another_organizations_ids_answer_404,
    sessions_end_when_idle_or_past_their_lifetime,
    logout_ends_the_session_on_the_server,
    secrets_are_shown_only_at_creation,
);

async fn a_scheduled_message_shows_its_time_and_is_cancelled_from_its_page(db: Db) {
    let Some(d) = spawn_dashboard(db, dashboard_settings(), None).await else {
        return;
    };
    let (_, key) = d
        .app
        .services
        .admin()
        .create_key(&d.owner_org, None)
        .await
        .unwrap();
    let send_at = chrono::Utc::now() + chrono::TimeDelta::hours(5);
    let body = json!({
        "to": "+15551234567",
        "template": { "name": "hello_world", "language": "en_US" },
        "send_at": send_at.to_rfc3339(),
    });
    let response = d
        .app
        .post_as(key.expose(), "/api/v1/messages/send-template", &body)
        .await;
    assert_eq!(response.status(), 202);
    let id = response.json::<serde_json::Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let mut browser = Browser::new(&d.app.base);
    browser.login_ok(&d.email, &d.password).await;
    let log = browser.get("/dashboard/messages?status=scheduled").await;
    let table = log.table_of("messages").expect("the log lists it");
    assert!(table.contains(&id) && table.contains("scheduled"), "{table}");
    let page = browser.get(&format!("/dashboard/messages/{id}")).await;
    assert!(
        page.text_of("message-send-at").is_some(),
        "the send time is shown"
    );
    assert!(
        page.body.contains("id=\"cancel-message\""),
        "a scheduled message has a Cancel button"
    );
    let csrf = browser.session_csrf().await;
    let done = browser
        .post(&format!("/dashboard/messages/{id}/cancel"), &[("csrf", &csrf)])
        .await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    let back = done.location.expect("back to the message");
    let page = browser.get(&back).await;
    assert!(
        page.body
            .contains("id=\"message-status\"><span class=\"badge neutral\">cancelled</span>"),
        "{}",
        page.body
    );
    assert!(page.text_of("cancel-notice").is_some());
    assert!(
        !page.body.contains("id=\"cancel-message\""),
        "no Cancel button once cancelled"
    );
    let api: serde_json::Value = d
        .app
        .get_as(key.expose(), &format!("/api/v1/messages/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(api["status"], "cancelled");
    let again = browser
        .post(&format!("/dashboard/messages/{id}/cancel"), &[("csrf", &csrf)])
        .await;
    assert_eq!(again.status, StatusCode::SEE_OTHER);
    let page = browser.get(&again.location.unwrap()).await;
    assert_eq!(
        page.text_of("cancel-notice").as_deref(),
        Some(
            "Not cancelled: the message is cancelled; only a scheduled or accepted message not yet taken by \
             dispatch can be cancelled."
        ),
        "a refusal names the message's status, as the API's `not_cancellable` does: {}",
        page.body
    );
    let forged = browser
        .post(&format!("/dashboard/messages/{id}/cancel"), &[("csrf", "forged")])
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
}

async fn the_broadcasts_pages_show_progress_and_cancel_with_csrf(db: Db) {
    let Some(d) = spawn_dashboard(db, dashboard_settings(), None).await else {
        return;
    };
    let (_, key) = d
        .app
        .services
        .admin()
        .create_key(&d.owner_org, None)
        .await
        .unwrap();
    let body = json!({
        "template": { "name": "hello_world", "language": "en_US" },
        "send_at": (chrono::Utc::now() + chrono::TimeDelta::hours(5)).to_rfc3339(),
        "recipients": [{ "to": "+15551230001" }, { "to": "+15551230002" }],
    });
    let response = d.app.post_as(key.expose(), "/api/v1/broadcasts", &body).await;
    assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
    let id = response.json::<serde_json::Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The test organization's own broadcast: not the owner's.
    let theirs = d
        .app
        .post(
            "/api/v1/broadcasts",
            &json!({
                "template": { "name": "hello_world", "language": "en_US" },
                "recipients": [{ "to": "+15551230003" }],
            }),
        )
        .await;
    assert_eq!(theirs.status(), 202);
    let theirs = theirs.json::<serde_json::Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let mut browser = Browser::new(&d.app.base);
    browser.login_ok(&d.email, &d.password).await;
    let list = browser.get("/dashboard/broadcasts").await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(
        list.body
            .contains("href=\"/dashboard/broadcasts\" aria-current=\"page\""),
        "in the navigation, current"
    );
    let table = list.table_of("broadcasts").expect("the list shows it");
    assert!(table.contains(&id), "{table}");
    assert!(table.contains("scheduled"), "{table}");
    assert!(table.contains("0 / 2"), "progress: released of total: {table}");
    assert!(table.contains("scheduled 2"), "counts: {table}");
    assert!(!table.contains(&theirs), "only the owner's broadcasts");
    let page = browser.get(&format!("/dashboard/broadcasts/{theirs}")).await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);

    let page = browser.get(&format!("/dashboard/broadcasts/{id}")).await;
    assert_eq!(page.status, StatusCode::OK);
    let counts = page.table_of("broadcast-counts").expect("counts by status");
    assert!(counts.contains("data-status=\"scheduled\">2<"), "{counts}");
    assert!(page.body.contains("id=\"cancel-broadcast\""), "a Cancel button");
    assert!(
        !page.body.contains("id=\"resume-broadcast\""),
        "no Resume unless paused"
    );
    assert!(!page.body.contains("id=\"broadcast-pause\""), "not paused");
    let link = format!("/dashboard/messages?broadcast={id}");
    assert!(page.body.contains(&link), "links to its messages");
    let log = browser.get(&link).await;
    let messages = log.table_of("messages").expect("its messages");
    assert_eq!(messages.matches("data-message-id=").count(), 2, "{messages}");

    let csrf = browser.session_csrf().await;
    let forged = browser
        .post(
            &format!("/dashboard/broadcasts/{id}/cancel"),
            &[("csrf", "forged")],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    let resumed = browser
        .post(&format!("/dashboard/broadcasts/{id}/resume"), &[("csrf", &csrf)])
        .await;
    assert_eq!(resumed.status, StatusCode::SEE_OTHER);
    let page = browser.get(&resumed.location.unwrap()).await;
    assert!(
        page.text_of("broadcast-notice")
            .unwrap()
            .contains("Only a paused"),
        "{}",
        page.body
    );
    let done = browser
        .post(&format!("/dashboard/broadcasts/{id}/cancel"), &[("csrf", &csrf)])
        .await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    let page = browser.get(&done.location.unwrap()).await;
    assert!(
        page.body
            .contains("id=\"broadcast-status\"><span class=\"badge neutral\">cancelled</span>"),
        "{}",
        page.body
    );
    assert!(page.text_of("broadcast-notice").unwrap().starts_with("Cancelled"));
    assert!(
        !page.body.contains("id=\"cancel-broadcast\""),
        "no Cancel once cancelled"
    );
    let counts = page.table_of("broadcast-counts").unwrap();
    assert!(counts.contains("data-status=\"cancelled\">2<"), "{counts}");
    let api: serde_json::Value = d
        .app
        .get_as(key.expose(), &format!("/api/v1/broadcasts/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(api["status"], "cancelled");
    let again = browser
        .post(&format!("/dashboard/broadcasts/{id}/cancel"), &[("csrf", &csrf)])
        .await;
    let page = browser.get(&again.location.unwrap()).await;
    assert!(
        page.text_of("broadcast-notice")
            .unwrap()
            .contains("can no longer"),
        "{}",
        page.body
    );
}

async fn the_templates_page_lists_filters_and_syncs(db: Db) {
    use herald_domain::template::{TemplateName, TemplateStatus};
    let Some(d) = spawn_dashboard(db, dashboard_settings(), None).await else {
        return;
    };
    // Another organization's template, under a name the owner has none of.
    let templates = d.app.services.store.templates();
    let mut theirs = templates
        .templates(&d.app.org, &herald_domain::ports::TemplateQuery::default())
        .await
        .unwrap();
    let waba = theirs[0].waba_id.clone();
    theirs[0].name = TemplateName::parse("their_secret_offer").unwrap();
    theirs[0].status = TemplateStatus::parse("REJECTED").unwrap();
    templates
        .replace_templates(&d.app.org, &waba, &theirs)
        .await
        .unwrap();

    let mut browser = Browser::new(&d.app.base);
    browser.login_ok(&d.email, &d.password).await;
    let page = browser.get("/dashboard/templates").await;
    assert_eq!(page.status, StatusCode::OK);
    let table = page.table_of("templates").expect("the templates table");
    for name in ["hello_world", "order_shipped", "invoice_ready", "spring_sale"] {
        assert!(table.contains(name), "{name} listed: {table}");
    }
    assert!(page.body.contains("<span class=\"badge warn\">PAUSED</span>"));
    assert!(
        !page.body.contains("their_secret_offer"),
        "another organization's template"
    );

    let approved = browser.get("/dashboard/templates?status=APPROVED").await;
    let table = approved.table_of("templates").expect("the filtered table");
    assert!(
        table.contains("hello_world") && !table.contains("spring_sale"),
        "{table}"
    );
    assert_eq!(
        browser.get("/dashboard/templates?status=approved!").await.status,
        StatusCode::BAD_REQUEST
    );

    let one = browser.get("/dashboard/templates/invoice_ready/en_US").await;
    assert_eq!(one.status, StatusCode::OK);
    assert_eq!(one.text_of("template-header").as_deref(), Some("document"));
    let carousel = browser.get("/dashboard/templates/spring_carousel/en_US").await;
    assert_eq!(carousel.status, StatusCode::OK);
    assert!(
        carousel
            .body
            .contains("<ol id=\"template-cards\" start=\"0\"><li>image header"),
        "the cards are shown"
    );
    for missing in [
        "/dashboard/templates/their_secret_offer/en_US",
        "/dashboard/templates/hello_world/xx_YY",
        "/dashboard/templates/Not-A-Name/en_US",
    ] {
        assert_eq!(
            browser.get(missing).await.status,
            StatusCode::NOT_FOUND,
            "{missing}"
        );
    }

    // Sync needs the session's CSRF token, then copies the network's listing for the owner's account.
    assert_eq!(
        browser.post("/dashboard/templates/sync", &[]).await.status,
        StatusCode::FORBIDDEN
    );
    let csrf = browser.session_csrf().await;
    let synced = browser
        .post("/dashboard/templates/sync", &[("csrf", &csrf)])
        .await;
    assert_eq!(synced.status, StatusCode::SEE_OTHER);
    let location = synced.location.expect("redirected to the list");
    assert!(location.starts_with("/dashboard/templates?synced="), "{location}");
    let after = browser.get(&location).await;
    assert!(after.body.contains("Synced from the network"), "the flash");
    assert!(after.table_of("templates").unwrap().contains("hello_world"));
}

/// The message page shows the estimated cost next to the network's pricing, from the organization's rate
/// card, as `GET /api/v1/messages/{id}` gives it; a dash (and why) before the network priced the message or
/// while the card has no rate for its category.
async fn the_message_page_shows_the_estimated_cost_beside_the_pricing(db: Db) {
    use herald_domain::ids::EventId;
    use herald_domain::message::{EventSource, MessageStatus};
    use herald_domain::pricing::{Pricing, PricingWord};
    use herald_domain::status::{StatusReport, StatusUpdate};
    use herald_testkit::fixtures;
    let Some(d) = spawn_dashboard(db, dashboard_settings(), None).await else {
        return;
    };
    let store = &d.app.services.store;
    let sender = store.accounts().senders(&d.owner_org).await.unwrap()[0].clone();
    let message = fixtures::message(
        d.owner_org,
        &sender,
        "+15551234567",
        fixtures::text_content("hello"),
        chrono::Utc::now(),
    );
    store
        .messages()
        .accept(&fixtures::accept_request(&message, None, None))
        .await
        .unwrap();
    let mut browser = Browser::new(&d.app.base);
    browser.login_ok(&d.email, &d.password).await;
    let path = format!("/dashboard/messages/{}", message.id);
    let page = browser.get(&path).await;
    assert_eq!(page.text_of("message-estimated-cost").as_deref(), Some("—"));
    assert!(
        page.body.contains("not priced by the network yet"),
        "{}",
        page.body
    );

    // The network's `sent` report prices it: utility, billable.
    let word = |w: &str| Some(PricingWord::parse(w).unwrap());
    let now = chrono::Utc::now();
    store
        .tracking()
        .apply_status(&StatusUpdate {
            organization_id: d.owner_org,
            message_id: message.id,
            report: StatusReport {
                status: MessageStatus::Sent,
                occurred_at: now,
                error: None,
            },
            network_message_id: Some("wamid.priced".into()),
            pricing: Some(Pricing {
                model: word("pmp"),
                category: word("utility"),
                kind: word("regular"),
                billable: Some(true),
            }),
            source: EventSource::Network,
            event_id: EventId::from_ulid(fixtures::next_ulid()),
            customer_event_id: EventId::from_ulid(fixtures::next_ulid()),
            recorded_at: now,
        })
        .await
        .unwrap()
        .expect("the message exists");
    let page = browser.get(&path).await;
    assert!(
        page.body
            .contains("<code>utility</code> · regular · PMP · billable"),
        "{}",
        page.body
    );
    assert_eq!(page.text_of("message-estimated-cost").as_deref(), Some("—"));
    assert!(page.body.contains("no rate for this category"), "{}", page.body);

    d.app
        .services
        .rate_cards()
        .set(&d.owner_org, "utility", "0.0147", "EUR")
        .await
        .unwrap();
    let page = browser.get(&path).await;
    assert_eq!(
        page.text_of("message-estimated-cost").as_deref(),
        Some("0.0147 EUR"),
        "the rate card's estimate, as the API's `estimated_cost`"
    );
}
