//! The owner's dashboard through the real binary: `org create --owner-email`, `owner set-password` from
//! stdin, and a server run at debug level whose whole log holds none of the secrets that passed through it
//! (password, API key, webhook secrets, session cookie, CSRF token).

use super::{Server, admin_json, herald, port_in_log, serve_on_own_port, wait_healthy};
use reqwest::header::{COOKIE, SET_COOKIE};
use std::collections::BTreeMap;
use std::io::Write;
use std::process::Stdio;

const PASSWORD: &str = "a passphrase only the owner knows";
const WRONG_PASSWORD: &str = "WrongPassphraseThatMustNotBeLogged";

fn set_password(data: &std::path::Path, org: &str, email: &str, stdin: &str) -> std::process::Output {
    let mut child = herald(data)
        .args([
            "admin",
            "owner",
            "set-password",
            "--org",
            org,
            "--email",
            email,
            "--json",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn the_owner_password_is_set_from_stdin_for_the_owner_email_only() {
    let data = tempfile::tempdir().unwrap();
    let org = admin_json(
        data.path(),
        &[
            "org",
            "create",
            "--name",
            "Acme",
            "--plan",
            "business",
            "--owner-email",
            " Owner@Example.COM ",
        ],
    );
    assert_eq!(
        org["owner_email"], "owner@example.com",
        "stored normalized: {org}"
    );
    let org_id = org["id"].as_str().unwrap();

    let ok = set_password(data.path(), org_id, "OWNER@example.com", &format!("{PASSWORD}\n"));
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let json: serde_json::Value = serde_json::from_slice(&ok.stdout).unwrap();
    assert_eq!(json["email"], "owner@example.com");
    assert_eq!(json["organization_id"], org_id);
    assert!(!String::from_utf8_lossy(&ok.stdout).contains(PASSWORD));

    let stranger = set_password(
        data.path(),
        org_id,
        "someone@example.com",
        &format!("{PASSWORD}\n"),
    );
    assert!(!stranger.status.success());
    assert!(String::from_utf8_lossy(&stranger.stderr).contains("not the owner email"));
    let short = set_password(data.path(), org_id, "owner@example.com", "short\n");
    assert!(!short.status.success());
    assert!(String::from_utf8_lossy(&short.stderr).contains("characters"));
    let empty = set_password(data.path(), org_id, "owner@example.com", "");
    assert!(!empty.status.success());
    let bad_email = admin_json_fails(
        data.path(),
        &["org", "create", "--name", "B", "--owner-email", "not-an-email"],
    );
    assert!(bad_email.contains("--owner-email"), "{bad_email}");
}

fn admin_json_fails(data: &std::path::Path, args: &[&str]) -> String {
    let output = herald(data).arg("admin").args(args).output().unwrap();
    assert!(!output.status.success());
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Cookies kept by hand (the test client has no cookie store).
#[derive(Default)]
pub(crate) struct Jar(BTreeMap<String, String>);

impl Jar {
    pub(crate) fn header(&self) -> String {
        self.0
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub(crate) fn take(&mut self, response: &reqwest::Response) {
        for value in response.headers().get_all(SET_COOKIE) {
            let cookie = value.to_str().unwrap();
            let pair = cookie.split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            if value.is_empty() {
                self.0.remove(name);
            } else {
                self.0.insert(name.to_owned(), value.to_owned());
            }
        }
    }
}

pub(crate) fn csrf_of(body: &str) -> String {
    let marker = "name=\"csrf\" value=\"";
    let start = body.find(marker).unwrap() + marker.len();
    body[start..start + body[start..].find('"').unwrap()].to_owned()
}

fn text_of(body: &str, id: &str) -> String {
    let marker = format!("id=\"{id}\">");
    let start = body.find(&marker).unwrap_or_else(|| panic!("no #{id} in {body}")) + marker.len();
    body[start..start + body[start..].find('<').unwrap()].to_owned()
}

#[tokio::test]
async fn the_server_logs_no_secret_of_the_dashboard() {
    let data = tempfile::tempdir().unwrap();
    let org = admin_json(
        data.path(),
        &[
            "org",
            "create",
            "--name",
            "Acme",
            "--plan",
            "business",
            "--owner-email",
            "owner@example.com",
        ],
    );
    let org_id = org["id"].as_str().unwrap().to_owned();
    assert!(
        set_password(data.path(), &org_id, "owner@example.com", PASSWORD)
            .status
            .success()
    );

    let log_path = data.path().join("server.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let server = Server(
        herald(data.path())
            .args(["serve"])
            .env("HERALD_LISTEN", "127.0.0.1:0")
            .env("RUST_LOG", "debug")
            .env("HERALD_ALLOW_PRIVATE_WEBHOOK_TARGETS", "true")
            .env("HERALD_ALLOW_INSECURE_WEBHOOKS", "true")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    let base = format!("http://127.0.0.1:{}", port_in_log(&log_path));
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    wait_healthy(&http, &base).await;

    let mut jar = Jar::default();
    let get = async |jar: &mut Jar, path: &str| {
        let response = http
            .get(format!("{base}{path}"))
            .header(COOKIE, jar.header())
            .send()
            .await
            .unwrap();
        jar.take(&response);
        response.text().await.unwrap()
    };
    let form = get(&mut jar, "/dashboard/login").await;
    let login_csrf = csrf_of(&form);
    let post = async |jar: &mut Jar, path: &str, form: &[(&str, &str)]| {
        let response = http
            .post(format!("{base}{path}"))
            .header(COOKIE, jar.header())
            .form(form)
            .send()
            .await
            .unwrap();
        jar.take(&response);
        (response.status().as_u16(), response.text().await.unwrap())
    };
    let (status, _) = post(
        &mut jar,
        "/dashboard/login",
        &[
            ("email", "owner@example.com"),
            ("password", WRONG_PASSWORD),
            ("csrf", &login_csrf),
        ],
    )
    .await;
    assert_eq!(status, 401);
    let login_csrf = csrf_of(&get(&mut jar, "/dashboard/login").await);
    let (status, _) = post(
        &mut jar,
        "/dashboard/login",
        &[
            ("email", "owner@example.com"),
            ("password", PASSWORD),
            ("csrf", &login_csrf),
        ],
    )
    .await;
    assert_eq!(status, 303);
    let session = jar.0["herald_session"].clone();
    let csrf = csrf_of(&get(&mut jar, "/dashboard/keys").await);
    let (_, page) = post(
        &mut jar,
        "/dashboard/keys",
        &[("name", "logged?"), ("csrf", &csrf)],
    )
    .await;
    let key = text_of(&page, "new-key");
    let (_, page) = post(
        &mut jar,
        "/dashboard/webhooks",
        &[
            ("url", "http://127.0.0.1:9/hook"),
            ("ev_message_status", "on"),
            ("csrf", &csrf),
        ],
    )
    .await;
    let secret = text_of(&page, "new-secret");
    let endpoints: serde_json::Value = http
        .get(format!("{base}/api/v1/webhooks"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let endpoint = endpoints["data"][0]["id"].as_str().unwrap().to_owned();
    let (_, page) = post(
        &mut jar,
        &format!("/dashboard/webhooks/{endpoint}/rotate"),
        &[("csrf", &csrf)],
    )
    .await;
    let rotated = text_of(&page, "new-secret");
    get(&mut jar, "/dashboard/account").await;
    let (status, _) = post(&mut jar, "/dashboard/logout", &[("csrf", &csrf)]).await;
    assert_eq!(status, 303);
    drop(server);

    let logged = std::fs::read_to_string(&log_path).unwrap();
    assert!(
        logged.contains("dashboard login"),
        "the log was captured at debug level:\n{logged}"
    );
    // A signed cookie's value is the base64 HMAC tag (44 characters) followed by the token.
    let session_token = &session[44..];
    assert_eq!(session_token.len(), 43, "a 256-bit base64url token: {session}");
    for (what, secret) in [
        ("the password", PASSWORD),
        ("a wrong password", WRONG_PASSWORD),
        ("the API key", key.as_str()),
        ("the API key's secret part", &key[12..]),
        ("the webhook secret", secret.as_str()),
        ("the rotated webhook secret", rotated.as_str()),
        ("the session cookie", session.as_str()),
        ("the session token", session_token),
        ("the CSRF token", csrf.as_str()),
    ] {
        assert!(!logged.contains(secret), "the server logged {what}");
    }
    assert!(
        !logged.contains("whsec_"),
        "no webhook secret of any kind in the log"
    );
}

/// One login through a fresh form from `source` (the TCP peer Herald sees), claiming `forwarded_for`;
/// the status of the POST (303 logged in, 401 refused).
async fn login_from(base: &str, source: &str, forwarded_for: &str, password: &str) -> u16 {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .local_address(source.parse::<std::net::IpAddr>().unwrap())
        .build()
        .unwrap();
    let mut jar = Jar::default();
    let form = http.get(format!("{base}/dashboard/login")).send().await.unwrap();
    jar.take(&form);
    let csrf = csrf_of(&form.text().await.unwrap());
    http.post(format!("{base}/dashboard/login"))
        .header(COOKIE, jar.header())
        .header("x-forwarded-for", forwarded_for)
        .form(&[
            ("email", "owner@example.com"),
            ("password", password),
            ("csrf", &csrf),
        ])
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn login_buckets_are_per_client_behind_a_trusted_proxy_and_spoofing_does_not_pick_one() {
    let data = tempfile::tempdir().unwrap();
    let org = admin_json(
        data.path(),
        &[
            "org",
            "create",
            "--name",
            "Acme",
            "--plan",
            "business",
            "--owner-email",
            "owner@example.com",
        ],
    );
    let org_id = org["id"].as_str().unwrap().to_owned();
    assert!(
        set_password(data.path(), &org_id, "owner@example.com", PASSWORD)
            .status
            .success()
    );
    // The proxy connects from 127.0.0.2; clients talking to Herald directly come from 127.0.0.1.
    let (_server, port) = serve_on_own_port(
        herald(data.path())
            .args(["serve"])
            .env("HERALD_TRUSTED_PROXIES", "127.0.0.2")
            .env("HERALD_DASHBOARD_LOGIN_ATTEMPTS_PER_ADDRESS", "2")
            .env("HERALD_DASHBOARD_LOGIN_ATTEMPTS_PER_ACCOUNT", "100")
            .stdout(Stdio::null()),
    );
    let base = format!("http://127.0.0.1:{port}");
    wait_healthy(&reqwest::Client::new(), &base).await;
    let (proxy, direct) = ("127.0.0.2", "127.0.0.1");

    // A direct client names a new address each time: ignored, all three count against 127.0.0.1.
    assert_eq!(
        login_from(&base, direct, "203.0.113.1", WRONG_PASSWORD).await,
        401
    );
    assert_eq!(
        login_from(&base, direct, "203.0.113.2", WRONG_PASSWORD).await,
        401
    );
    assert_eq!(
        login_from(&base, direct, "203.0.113.3", PASSWORD).await,
        401,
        "the peer's bucket is spent; the header did not give it a new one"
    );

    // Behind the proxy, one client spends its bucket…
    assert_eq!(
        login_from(&base, proxy, "198.51.100.1", WRONG_PASSWORD).await,
        401
    );
    assert_eq!(
        login_from(&base, proxy, "198.51.100.1", WRONG_PASSWORD).await,
        401
    );
    assert_eq!(login_from(&base, proxy, "198.51.100.1", PASSWORD).await, 401);
    // …a left-most entry the client wrote itself does not get it a new one…
    assert_eq!(
        login_from(&base, proxy, "192.0.2.9, 198.51.100.1", PASSWORD).await,
        401
    );
    // …and another client behind the same proxy still logs in.
    assert_eq!(login_from(&base, proxy, "198.51.100.2", PASSWORD).await, 303);
}
