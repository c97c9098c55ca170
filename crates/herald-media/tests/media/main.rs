//! The one integration binary of herald-media: sniffing real files, streaming limits, and the filesystem
//! store against the media port's contract.

// Helpers outside `#[test]` functions are test code too: a broken expectation must stop the test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code fails loudly by design"
)]

mod fixtures;
mod sniff;
mod store;
mod upload;
