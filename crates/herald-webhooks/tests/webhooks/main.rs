//! Integration tests of herald-webhooks against a real local HTTP receiver.

// Helpers outside `#[test]` functions are test code too: a broken expectation must stop the test.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: failing loudly is the point"
)]

mod delivery;
mod helpers;
mod signing;
mod ssrf;
