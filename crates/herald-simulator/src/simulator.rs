//! The simulator's configuration and shared state.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use crate::callbacks::Dispatcher;
use crate::faults;
use crate::records::SentRecord;
use crate::seed::{self, ExtraSender, extra_senders};
use crate::state::State;

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
    /// How long a created or edited template stays `PENDING` before the review's outcome (default 1,000 ms).
    pub template_review_ms: u64,
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
            template_review_ms: 1000,
        }
    }
}

/// The simulator's shared state; hold it in an [`Arc`] and hand it to [`configure`] or [`standalone`].
pub struct Simulator {
    pub(crate) config: SimulatorConfig,
    /// The senders of [`SimulatorConfig::extra_senders`].
    extra_senders: Vec<ExtraSender>,
    callback_url: Arc<RwLock<Option<String>>>,
    state: Mutex<State>,
    pub(crate) faults: faults::Faults,
    pub(crate) dispatcher: Dispatcher,
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
    pub(crate) fn sender_by_id(&self, phone_number_id: &str) -> Option<seed::Sender<'_>> {
        seed::sender_by_id(&self.extra_senders, phone_number_id)
    }

    /// Every sender, the seeded ones first.
    pub(crate) fn senders(&self) -> impl Iterator<Item = seed::Sender<'_>> {
        seed::all_senders(&self.extra_senders)
    }

    /// The sender (seeded or extra) whose display number has these digits.
    pub(crate) fn sender_by_number(&self, digits: &str) -> Option<seed::Sender<'_>> {
        seed::sender_by_number(&self.extra_senders, digits)
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the maps half-updated in a way that matters to a
        // simulator, so a poisoned lock is simply taken over.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
