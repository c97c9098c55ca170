//! `spawn_simulator()` and a callback receiver.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use herald_simulator::{Simulator, SimulatorConfig, standalone};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

pub const TOKEN: &str = "test-token";
pub const SECRET: &str = "test-app-secret";
pub const PNID_1: &str = "1000000001";
pub const PNID_2: &str = "1000000002";
pub const WABA: &str = "2000000001";

/// One POST the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub body: Vec<u8>,
    pub signature: Option<String>,
    pub content_type: Option<String>,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("callback bodies are JSON")
    }

    /// The first status of the envelope, if it is a status callback.
    pub fn status(&self) -> Option<Value> {
        self.json()["entry"][0]["changes"][0]["value"]["statuses"]
            .get(0)
            .cloned()
    }
}

#[derive(Default)]
struct ReceiverState {
    accepted: Mutex<Vec<Received>>,
    attempts: AtomicUsize,
    refuse_first: AtomicUsize,
}

/// A real HTTP server collecting callbacks; it answers 500 to the first `refuse_first` posts.
pub struct Receiver {
    pub url: String,
    state: Arc<ReceiverState>,
}

impl Receiver {
    pub async fn spawn(refuse_first: usize) -> Receiver {
        let state = Arc::new(ReceiverState {
            refuse_first: AtomicUsize::new(refuse_first),
            ..ReceiverState::default()
        });
        let shared = Arc::clone(&state);
        let server = HttpServer::new(move || {
            App::new()
                .app_data(web::Data::from(Arc::clone(&shared)))
                .route("/webhooks/whatsapp", web::post().to(receive))
        })
        .workers(1)
        .bind("127.0.0.1:0")
        .unwrap();
        let port = server.addrs()[0].port();
        tokio::spawn(server.run());
        Receiver {
            url: format!("http://127.0.0.1:{port}/webhooks/whatsapp"),
            state,
        }
    }

    pub fn received(&self) -> Vec<Received> {
        self.state.accepted.lock().unwrap().clone()
    }

    pub fn attempts(&self) -> usize {
        self.state.attempts.load(Ordering::SeqCst)
    }

    /// Waits until `pred` holds for the accepted callbacks, or panics after a few seconds.
    pub async fn wait_until(&self, what: &str, pred: impl Fn(&[Received]) -> bool) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let received = self.received();
            if pred(&received) {
                return received;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}: {received:?}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The statuses reported for `wamid`, in arrival order, once `count` have arrived; then waits a
    /// little longer to make sure no extra one follows.
    pub async fn statuses_of(&self, wamid: &str, count: usize) -> Vec<Value> {
        let of = |received: &[Received]| -> Vec<Value> {
            received
                .iter()
                .filter_map(Received::status)
                .filter(|s| s["id"] == wamid)
                .collect()
        };
        self.wait_until("statuses", |r| of(r).len() >= count).await;
        tokio::time::sleep(Duration::from_millis(150)).await;
        of(&self.received())
    }
}

async fn receive(req: HttpRequest, state: web::Data<ReceiverState>, body: web::Bytes) -> HttpResponse {
    state.attempts.fetch_add(1, Ordering::SeqCst);
    let refuse = state
        .refuse_first
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok();
    if refuse {
        return HttpResponse::InternalServerError().finish();
    }
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    state.accepted.lock().unwrap().push(Received {
        body: body.to_vec(),
        signature: header("X-Hub-Signature-256"),
        content_type: header("Content-Type"),
    });
    HttpResponse::Ok().finish()
}

/// An HMAC computed independently of the simulator's code.
pub fn expected_signature(body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// A running simulator with a receiver for its callbacks.
pub struct TestSim {
    pub base: String,
    pub simulator: Arc<Simulator>,
    pub receiver: Receiver,
    pub client: reqwest::Client,
}

/// Test defaults: fast callbacks to a fresh receiver.
pub fn test_config() -> SimulatorConfig {
    SimulatorConfig {
        access_token: TOKEN.to_owned(),
        app_secret: SECRET.to_owned(),
        callback_delay_ms: (1, 5),
        ..SimulatorConfig::default()
    }
}

pub async fn spawn_simulator() -> TestSim {
    spawn_with(test_config(), 0).await
}

pub async fn spawn_with(mut config: SimulatorConfig, refuse_first: usize) -> TestSim {
    let receiver = Receiver::spawn(refuse_first).await;
    config.callback_url = Some(receiver.url.clone());
    let simulator = Simulator::new(config);
    let (server, port) = standalone("127.0.0.1:0", Arc::clone(&simulator)).unwrap();
    tokio::spawn(server);
    TestSim {
        base: format!("http://127.0.0.1:{port}/simulator"),
        simulator,
        receiver,
        client: reqwest::Client::new(),
    }
}

impl TestSim {
    pub async fn send_as(&self, token: Option<&str>, pnid: &str, body: &Value) -> (u16, Value) {
        self.post_as(token, &format!("/v23.0/{pnid}/messages"), body)
            .await
    }

    /// POSTs `body` to the Graph path `path` with `token`, if any; the status and the JSON answer.
    pub async fn post_as(&self, token: Option<&str>, path: &str, body: &Value) -> (u16, Value) {
        let mut request = self.client.post(format!("{}{path}", self.base)).json(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    pub async fn send(&self, pnid: &str, body: &Value) -> (u16, Value) {
        self.send_as(Some(TOKEN), pnid, body).await
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let response = self
            .client
            .get(format!("{}{path}", self.base))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    pub async fn inbound(&self, from: &str, to: &str, text: &str) -> (u16, Value) {
        let response = self
            .client
            .post(format!("{}/control/inbound", self.base))
            .json(&json!({ "from": from, "to": to, "text": text }))
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    /// Posts any body to the control API's inbound route.
    pub async fn inbound_with(&self, body: &Value) -> (u16, Value) {
        let response = self
            .client
            .post(format!("{}/control/inbound", self.base))
            .json(body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    /// The messages of the inbound callbacks the receiver accepted (status callbacks left out), in order.
    pub fn inbound_messages(&self) -> Vec<Value> {
        self.receiver
            .received()
            .iter()
            .map(|r| r.json()["entry"][0]["changes"][0]["value"]["messages"][0].clone())
            .filter(|m| !m.is_null())
            .collect()
    }

    /// The message of the last inbound callback the receiver accepted.
    pub fn last_inbound(&self) -> Value {
        self.inbound_messages().pop().expect("an inbound callback")
    }

    /// Delivers a text from `from` to the first sender (opening the window) and returns its wamid.
    pub async fn customer_writes(&self, from: &str) -> String {
        let (status, body) = self.inbound(from, "+15550001111", "hello").await;
        assert_eq!(status, 200, "{body}");
        body["id"].as_str().unwrap().to_owned()
    }

    /// Sends `body` from the first sender, asserting success, and returns the wamid.
    pub async fn send_ok(&self, body: &Value) -> String {
        let (status, answer) = self.send(PNID_1, body).await;
        assert_eq!(status, 200, "{body} -> {answer}");
        answer["messages"][0]["id"].as_str().unwrap().to_owned()
    }

    /// Sends a template to `to` and returns its wamid, asserting success.
    pub async fn send_hello(&self, to: &str, tracking: &str) -> String {
        let (status, body) = self.send(PNID_1, &hello_world(to, tracking)).await;
        assert_eq!(status, 200, "{body}");
        body["messages"][0]["id"].as_str().unwrap().to_owned()
    }
}

pub fn hello_world(to: &str, tracking: &str) -> Value {
    json!({
        "messaging_product": "whatsapp",
        "to": to,
        "type": "template",
        "biz_opaque_callback_data": tracking,
        "template": { "name": "hello_world", "language": { "code": "en_US" } },
    })
}

pub fn text(to: &str, body: &str) -> Value {
    json!({ "messaging_product": "whatsapp", "to": to, "type": "text", "text": { "body": body } })
}

/// A message of `kind` with its `object` to `to`.
pub fn message(to: &str, kind: &str, object: Value) -> Value {
    json!({ "messaging_product": "whatsapp", "to": to, "type": kind, kind: object })
}

pub fn template(to: &str, name: &str, language: &str, components: Value) -> Value {
    json!({
        "messaging_product": "whatsapp",
        "to": to,
        "type": "template",
        "template": { "name": name, "language": { "code": language }, "components": components },
    })
}

/// Asserts a Graph error body with `code` and returns its `details`.
pub fn assert_graph_error(status: u16, body: &Value, http: u16, code: u64) -> String {
    assert_eq!(status, http, "{body}");
    let error = &body["error"];
    assert_eq!(error["code"], code, "{body}");
    assert_eq!(error["type"], "OAuthException", "{body}");
    let message = error["message"].as_str().unwrap();
    assert!(message.starts_with(&format!("(#{code}) ")), "{message}");
    assert_eq!(error["error_data"]["messaging_product"], "whatsapp", "{body}");
    assert!(
        error["fbtrace_id"].as_str().is_some_and(|t| !t.is_empty()),
        "{body}"
    );
    error["error_data"]["details"].as_str().unwrap().to_owned()
}
