//! herald-http's integration tests: the real actix application over mocked ports, and the OpenAPI
//! snapshot. (The end-to-end suite against a running server lives in the workspace's `tests` crate.)

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a panic is a failed test"
)]

mod api;
mod client_address;
mod helpers;
mod network;
mod openapi;
mod webhooks;
