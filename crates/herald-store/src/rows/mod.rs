//! Rows as both backends load them, and their mapping to and from the domain.
//!
//! Each row struct is declared with `row!`, which implements diesel's `Selectable` for both backends from
//! its field names (each field is named after its column), so rows are loaded by name with
//! `.select(Row::as_select())` and one struct serves PostgreSQL and SQLite. Every text read back is
//! re-validated by the domain's constructors; a row that fails is reported as corrupt rather than guessed at.

#[macro_use]
mod shared;
pub(crate) use shared::{quota_ceiling, to_i32, to_i64, to_json};

mod accounts;
mod broadcasts;
mod contacts;
mod idempotency;
mod inbound;
mod media;
mod messages;
mod outbox;
mod owners;
mod pricing;
mod templates;
mod tracking;
mod webhooks;
mod windows;

pub(crate) use accounts::*;
pub(crate) use broadcasts::*;
pub(crate) use contacts::*;
pub(crate) use idempotency::*;
pub(crate) use inbound::*;
pub(crate) use media::*;
pub(crate) use messages::*;
pub(crate) use outbox::*;
pub(crate) use owners::*;
pub(crate) use pricing::*;
pub(crate) use templates::*;
pub(crate) use tracking::*;
pub(crate) use webhooks::*;
pub(crate) use windows::*;
