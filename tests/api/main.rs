//! End-to-end tests: the real Herald server on a random loopback port, against SQLite and PostgreSQL.
//!
//! Each scenario is written once and instantiated per store by `both_stores!`. PostgreSQL scenarios skip
//! loudly when `HERALD_TEST_DATABASE_URL` is unset (`make test` sets it whenever PostgreSQL answers, and CI
//! always does, so there they fail instead of skipping).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code fails loudly by design"
)]

#[macro_use]
mod helpers;
mod audio_stickers;
mod broadcast_checks;
mod broadcast_pacing;
mod broadcasts;
mod browser;
mod browser_erase;
mod contacts;
mod dashboard;
mod dashboard_cost;
mod dashboard_erase;
mod erasure;
mod files;
mod inbound;
mod kinds;
mod limits;
mod marketing;
mod network;
mod openapi;
mod pricing;
mod routing;
mod scenarios;
mod scheduled;
mod strict;
mod template_events;
mod template_review;
mod template_sends;
mod webhooks;
