//! Test support shared by every crate's tests.
//!
//! - [`contract`]: the store ports' contract, one scripted scenario per function, run by every adapter
//!   against its real backend through [`contract_suite!`];
//! - [`fixtures`]: a settable clock, sequential ids, deterministic secrets, and builders of valid domain
//!   values (the simulator's seeded templates among them).

pub mod contract;
pub mod files;
pub mod fixtures;

pub use contract::Ports;
