//! The `herald` binary's library half: configuration, wiring of adapters into use cases, the process roles
//! and the operator commands; the adapters themselves live in the crates their names say. `main.rs` only
//! parses the command line and calls in here, so tests can start the real application on a random port.

pub mod admin;
pub mod cli;
pub mod config;
pub mod demo;
mod keys;
pub mod metrics;
mod network;
mod redact;
pub mod retention;
mod server;
mod services;
pub mod telemetry;
pub mod workers;

pub use server::Application;
pub use services::Services;

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
