//! The `herald` binary's library half: configuration, wiring of adapters into use cases, the server and
//! the operator commands. `main.rs` only parses the command line and calls in here, so tests can start the
//! real application on a random port.

pub mod adapters;
pub mod admin;
pub mod cli;
pub mod config;
pub mod demo;
pub mod metrics;
pub mod network;
mod server;
pub mod telemetry;
pub mod webhooks;
pub mod workers;

pub use server::{Application, Services};

/// `host:port` to print or call for a listen address and its bound port (`0.0.0.0` becomes `127.0.0.1`).
pub fn display_addr(listen: &str, port: u16) -> String {
    let host = listen.rsplit_once(':').map_or(listen, |(host, _)| host);
    let host = if host == "0.0.0.0" || host.is_empty() {
        "127.0.0.1"
    } else {
        host
    };
    format!("{host}:{port}")
}

/// A URL with its password replaced by `[redacted]`, for logs.
pub fn server_redact_url(url: &str) -> String {
    server::redact_url(url)
}
