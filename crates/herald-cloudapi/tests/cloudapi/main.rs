//! The one integration-test binary of the Cloud API adapter: the client against wiremock (and its media part
//! against the real simulator), the callback parser against real webhook envelopes, and the signature check.

// Helpers outside `#[test]` functions are test code too: a broken expectation must stop the test.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: failing loudly is the point"
)]

mod block;
mod callback_kinds;
mod callbacks;
mod errors;
mod helpers;
mod kinds;
mod marketing;
mod media;
mod notices;
mod preferences;
mod pricing;
mod read;
mod routing;
mod send;
mod signature;
mod simulator;
mod template_health;
mod template_review;
mod template_types;
mod templates;
mod tokens;
