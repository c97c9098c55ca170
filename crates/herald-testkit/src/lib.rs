//! Test support shared by every crate's tests.
//!
//! - [`contract`]: the store ports' contract, one scripted scenario per function, run by every adapter
//!   against its real backend through [`contract_suite!`];
//! - [`fixtures`]: a settable clock, sequential ids, deterministic secrets, and builders of valid domain
//!   values (the simulator's seeded templates among them);
//! - [`ports`]: loopback ports for child processes, outside the range the kernel hands out by itself.

pub mod contract;
pub mod files;
pub mod fixtures;
pub mod ports;

pub use contract::Ports;
