//! An embedded stand-in for Meta's WhatsApp Cloud API (docs/api.md §13, docs/cloud-api.md §8).
//!
//! It speaks the Cloud API's real wire format — request and response bodies, Graph error bodies, signed
//! ASCII-escaped webhook envelopes — so that Herald's real Cloud API client and webhook receiver are
//! exercised unchanged whether they talk to Meta or to this simulator. It deliberately does not depend on
//! `herald-domain`: it models an external system, and sharing types would hide wire-format drift.
//!
//! Every route lives under `/simulator`; [`configure`] mounts them in another actix-web app and
//! [`standalone`] serves them on their own.

mod callbacks;
mod error;
mod faults;
mod routes;
mod seed;
mod state;
mod wire;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use actix_web::{App, HttpServer, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use seed::{
    ExtraSender, MAX_EXTRA_SENDERS, SIMULATOR_WABA_ID, SeededSender, extra_senders, seeded_senders,
};

use callbacks::Dispatcher;
use state::State;

/// The access token the simulator accepts unless configured otherwise (docs/api.md §13).
pub const DEFAULT_ACCESS_TOKEN: &str = "simulator-token";

/// The Graph version accepted when [`SimulatorConfig::graph_version_prefix`] is off.
pub const PINNED_GRAPH_VERSION: &str = "v23.0";

/// How the simulator behaves; [`Default`] gives the documented defaults.
#[derive(Debug, Clone)]
pub struct SimulatorConfig {
    /// The Bearer token it accepts (default `simulator-token`).
    pub access_token: String,
    /// Signs callbacks: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the exact bytes>`.
    pub app_secret: String,
    /// Where status and inbound callbacks go (Herald's `/webhooks/whatsapp`); none means no callbacks.
    pub callback_url: Option<String>,
    /// Messages per second per phone number id before 130429 (default 1000; 0 disables the limit).
    pub throughput_per_sender: u32,
    /// Bounds (ms) of the random delay before each report of a message (default 20–200).
    pub callback_delay_ms: (u64, u64),
    /// Send every status callback twice (at-least-once delivery, as Meta does).
    pub duplicate_callbacks: bool,
    /// Shuffle the order of a message's status callbacks.
    pub reorder_callbacks: bool,
    /// Accept any `/vNN.N/` version segment; when off only [`PINNED_GRAPH_VERSION`] is served.
    pub graph_version_prefix: bool,
    /// Senders served beside the two seeded ones, for benchmarks (default 0, at most
    /// [`MAX_EXTRA_SENDERS`]); their numbers and ids are [`extra_senders`]`(n)`.
    pub extra_senders: u32,
}

impl Default for SimulatorConfig {
    fn default() -> Self {
        Self {
            access_token: DEFAULT_ACCESS_TOKEN.to_owned(),
            app_secret: "simulator-app-secret".to_owned(),
            callback_url: None,
            throughput_per_sender: 1000,
            callback_delay_ms: (20, 200),
            duplicate_callbacks: false,
            reorder_callbacks: false,
            graph_version_prefix: true,
            extra_senders: 0,
        }
    }
}

/// One send the simulator accepted (answered 200), as listed by `GET /simulator/control/sent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SentRecord {
    /// The business number's phone number id from the request path.
    pub phone_number_id: String,
    /// The wamid the simulator answered with.
    pub wamid: String,
    /// The recipient's WhatsApp id (`to` with everything but digits removed).
    pub recipient: String,
    /// The request body exactly as parsed from JSON.
    pub request: serde_json::Value,
    /// The request's `biz_opaque_callback_data`, if any.
    pub biz_opaque_callback_data: Option<String>,
    /// When the simulator accepted it.
    pub received_at: DateTime<Utc>,
    /// The file the send carried (a media message's, or a template's media header), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<SentMedia>,
    /// A message, or a read receipt (with or without the typing indicator) for an inbound message: then
    /// `wamid` is the message marked read and `recipient` the customer who sent it.
    #[serde(default)]
    pub kind: RecordKind,
}

/// What a [`SentRecord`] is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    /// A message of any type, answered with a wamid.
    #[default]
    Message,
    /// `{"status":"read","message_id":…}`.
    Read,
    /// A read receipt that also showed the typing indicator (`"typing_indicator":{"type":"text"}`).
    Typing,
}

/// The file of an accepted send, as `GET /simulator/control/sent` lists it: what the request said about it
/// and, for a file sent by id, what the simulator holds under that id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentMedia {
    /// `image`, `video`, `document`, `audio` or `sticker`.
    pub kind: String,
    /// `message` for a media message, `template_header` for a template's header, `interactive_header` for
    /// an interactive message's header.
    pub role: String,
    /// The media id it was sent by (an upload to this simulator).
    pub id: Option<String>,
    /// The URL it was sent by.
    pub link: Option<String>,
    pub caption: Option<String>,
    pub filename: Option<String>,
    /// Of the uploaded file, for a send by id.
    pub mime_type: Option<String>,
    /// Hex SHA-256 of the uploaded file's bytes, for a send by id.
    pub sha256: Option<String>,
    /// Size in bytes of the uploaded file, for a send by id.
    pub size: Option<u64>,
}

/// The simulator's shared state; hold it in an [`Arc`] and hand it to [`configure`] or [`standalone`].
pub struct Simulator {
    config: SimulatorConfig,
    /// The senders of [`SimulatorConfig::extra_senders`].
    extra_senders: Vec<ExtraSender>,
    callback_url: Arc<RwLock<Option<String>>>,
    state: Mutex<State>,
    faults: faults::Faults,
    dispatcher: Dispatcher,
}

impl std::fmt::Debug for Simulator {
    // Hand-written so the access token and app secret never reach a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulator")
            .field("throughput_per_sender", &self.config.throughput_per_sender)
            .field("callback_delay_ms", &self.config.callback_delay_ms)
            .field("extra_senders", &self.extra_senders.len())
            .finish_non_exhaustive()
    }
}

impl Simulator {
    /// Creates a simulator seeded with the business account, senders and templates of docs/api.md §13, plus the
    /// configured [`SimulatorConfig::extra_senders`].
    ///
    /// Callbacks are delivered from a dedicated background thread, so they keep flowing regardless of
    /// which server (or runtime) hosts the routes; the thread ends when the simulator is dropped.
    pub fn new(config: SimulatorConfig) -> Arc<Simulator> {
        let callback_url = Arc::new(RwLock::new(config.callback_url.clone()));
        let dispatcher = Dispatcher::start(config.app_secret.clone(), Arc::clone(&callback_url));
        let state = State::new(config.throughput_per_sender);
        Arc::new(Simulator {
            extra_senders: extra_senders(config.extra_senders),
            config,
            callback_url,
            state: Mutex::new(state),
            faults: faults::Faults::default(),
            dispatcher,
        })
    }

    /// Points callbacks at `url`; the app learns its own port only after binding.
    pub fn set_callback_url(&self, url: String) {
        let mut guard = self.callback_url.write().unwrap_or_else(PoisonError::into_inner);
        *guard = Some(url);
    }

    /// Every send accepted so far, oldest first (also `GET /simulator/control/sent`).
    pub fn sent(&self) -> Vec<SentRecord> {
        self.state().sent.clone()
    }

    /// The sender (seeded or extra) with this phone number id.
    fn sender_by_id(&self, phone_number_id: &str) -> Option<seed::Sender<'_>> {
        seed::sender_by_id(&self.extra_senders, phone_number_id)
    }

    /// The sender (seeded or extra) whose display number has these digits.
    fn sender_by_number(&self, digits: &str) -> Option<seed::Sender<'_>> {
        seed::sender_by_number(&self.extra_senders, digits)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the maps half-updated in a way that matters to a
        // simulator, so a poisoned lock is simply taken over.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Mounts every route under `/simulator` (Cloud API paths AND control API).
pub fn configure(cfg: &mut web::ServiceConfig, simulator: Arc<Simulator>) {
    routes::configure(cfg, simulator);
}

/// Standalone: binds `listen`, serves `/simulator/...`, returns the server and bound port.
///
/// The server is not started until it is awaited or spawned.
///
/// # Errors
/// Fails when `listen` cannot be bound.
pub fn standalone(listen: &str, simulator: Arc<Simulator>) -> std::io::Result<(actix_web::dev::Server, u16)> {
    let server = HttpServer::new(move || {
        let simulator = Arc::clone(&simulator);
        App::new().configure(move |cfg| configure(cfg, simulator))
    })
    .workers(2)
    // Herald's Cloud API client keeps idle connections 90 s (reqwest's default). actix's 5 s would close
    // them first and race the client's reuse of one idle that long, failing a send the network never saw.
    .keep_alive(std::time::Duration::from_secs(120))
    .bind(listen)?;
    let port = server
        .addrs()
        .first()
        .map(std::net::SocketAddr::port)
        .ok_or_else(|| std::io::Error::other("the simulator bound no address"))?;
    Ok((server.run(), port))
}
