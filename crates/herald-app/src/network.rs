//! The messaging network of the settings: the Cloud API, or the simulator served in this process; and the
//! secret that verifies the network's callbacks.

use crate::config::{NetworkMode, Settings};
use crate::services::Services;
use herald_cloudapi::{CloudApiClient, CloudApiConfig};
use herald_domain::ports::{MessagingNetwork, SecretSource, TemplateReview};
use herald_simulator::{Simulator, SimulatorConfig};
use secrecy::{ExposeSecret, SecretString};
use std::sync::Arc;

/// The app secret that signs the network's callbacks: configured; for the in-process simulator, made now
/// (both ends are in this process); refused for the real network on a process that receives its callbacks.
///
/// # Errors
/// Cloud mode on an HTTP-serving process without an app secret.
pub(crate) fn callback_secret(
    settings: &Settings,
    secrets: &dyn SecretSource,
    serves_http: bool,
) -> anyhow::Result<SecretString> {
    Ok(match (&settings.network.app_secret, settings.network.mode) {
        (Some(secret), _) => secret.clone(),
        // The in-process simulator and the verifier share the process, so a fresh secret is enough.
        (None, NetworkMode::Simulator) => SecretString::from(random_secret(secrets)),
        (None, NetworkMode::Cloud) if serves_http => {
            anyhow::bail!(
                "HERALD_APP_SECRET is required with HERALD_NETWORK=cloud: it verifies the network's callbacks"
            )
        }
        (None, NetworkMode::Cloud) => SecretString::from(String::new()),
    })
}

/// The simulator, when this process serves it, and the network client behind both of its ports.
pub(crate) struct NetworkParts {
    pub(crate) simulator: Option<Arc<Simulator>>,
    pub(crate) network: Arc<dyn MessagingNetwork>,
    pub(crate) review: Arc<dyn TemplateReview>,
}

/// The network client, and the simulator when this process serves it. `own_base` is this process's HTTP
/// base URL (`None` for a worker-only process).
///
/// # Errors
/// A worker-only process on the simulator network without `simulator_url`, or a client that cannot be built.
pub(crate) fn connect_network(
    settings: &Settings,
    services: &Services,
    app_secret: &SecretString,
    own_base: Option<&str>,
) -> anyhow::Result<NetworkParts> {
    let simulator_token = settings
        .simulator
        .token
        .clone()
        .unwrap_or_else(|| SecretString::from(herald_simulator::DEFAULT_ACCESS_TOKEN.to_owned()));

    let (simulator, network_base, default_token) = match settings.network.mode {
        NetworkMode::Simulator => {
            let simulator = own_base.map(|base| {
                Simulator::new(SimulatorConfig {
                    access_token: simulator_token.expose_secret().to_owned(),
                    app_secret: app_secret.expose_secret().to_owned(),
                    callback_url: Some(format!("{base}/webhooks/whatsapp")),
                    throughput_per_sender: settings.simulator.throughput_per_sender,
                    callback_delay_ms: (
                        settings.simulator.callback_delay_min_ms,
                        settings.simulator.callback_delay_max_ms,
                    ),
                    duplicate_callbacks: settings.simulator.duplicate_callbacks,
                    extra_senders: settings.simulator.extra_senders,
                    template_review_ms: settings.simulator.template_review_ms,
                    ..SimulatorConfig::default()
                })
            });
            let base = match (&settings.simulator.url, own_base) {
                (Some(url), _) => url.clone(),
                (None, Some(base)) => format!("{base}/simulator"),
                (None, None) => anyhow::bail!(
                    "a worker-only process with the simulator network needs HERALD_SIMULATOR_URL (an API process's /simulator)"
                ),
            };
            (simulator, base, Some(simulator_token))
        }
        NetworkMode::Cloud => (
            None,
            settings.network.cloud_api_base_url.clone(),
            settings.network.cloud_access_token.clone(),
        ),
    };
    let mut network_config = CloudApiConfig::new(network_base, settings.network.graph_api_version.clone());
    network_config.default_access_token = default_token;
    network_config.media_timeout = settings.media.transfer_timeout();
    network_config
        .app_id
        .clone_from(&settings.network.cloud_api_app_id);
    let client = Arc::new(CloudApiClient::new(network_config)?.with_sealer(services.sealer.clone()));
    let network: Arc<dyn MessagingNetwork> = client.clone();
    Ok(NetworkParts {
        simulator,
        network,
        review: client,
    })
}

/// The in-process simulator's control API has no authentication: it may only be reachable from this
/// machine, unless the operator says otherwise (`simulator_public`), and then the log says so.
pub(crate) fn simulator_exposure(settings: &Settings, address: std::net::SocketAddr) -> anyhow::Result<()> {
    if settings.network.mode != NetworkMode::Simulator || address.ip().is_loopback() {
        return Ok(());
    }
    anyhow::ensure!(
        settings.simulator.public,
        "refusing to serve the network simulator on {address}: its control API (/simulator/control/*) has \
         no authentication and lists every organization's sends. Listen on a loopback address \
         (HERALD_LISTEN=127.0.0.1:8080), use the real network (HERALD_NETWORK=cloud), or set \
         HERALD_SIMULATOR_PUBLIC=true to serve it on {address} anyway"
    );
    tracing::warn!(
        %address,
        "the network simulator and its unauthenticated control API are served beyond this machine \
         (HERALD_SIMULATOR_PUBLIC=true)"
    );
    Ok(())
}

fn random_secret(secrets: &dyn SecretSource) -> String {
    let mut bytes = [0_u8; 32];
    secrets.fill(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
