//! The `herald` binary's library half: configuration, wiring of adapters into use cases, the server and
//! the operator commands. `main.rs` only parses the command line and calls in here, so tests can start the
//! real application on a random port.

pub mod adapters;
pub mod admin;
pub mod cli;
pub mod config;
pub mod demo;
mod server;
pub mod telemetry;

pub use server::{Application, Services};
