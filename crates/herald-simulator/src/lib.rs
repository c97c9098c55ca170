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
mod expected;
mod faults;
mod records;
mod review;
mod routes;
mod seed;
mod simulator;
mod state;
mod wire;

use std::sync::Arc;

use actix_web::{App, HttpServer, web};

pub use records::{RecordKind, SentMedia, SentRecord};
pub use seed::{
    ExtraSender, MAX_EXTRA_SENDERS, SIMULATOR_WABA_ID, SeededSender, extra_senders, seeded_senders,
};

/// The seeded business account's templates as the listing shows them (docs/api.md §13), for a Herald
/// store seeded without a sync (`herald serve --demo`, tests).
pub fn seeded_template_definitions() -> Vec<serde_json::Value> {
    seed::definitions(SIMULATOR_WABA_ID)
}
pub use simulator::{DEFAULT_ACCESS_TOKEN, PINNED_GRAPH_VERSION, Simulator, SimulatorConfig};

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
