//! Integration tests: the simulator served standalone on a loopback port, with a real local HTTP
//! receiver collecting its callbacks.

// Helpers outside `#[test]` functions are test code too: a broken expectation must stop the test.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: failing loudly is the point"
)]

mod block;
mod callbacks;
mod clients;
mod control;
mod extra_senders;
mod graph_surface;
mod helpers;
mod inbound_kinds;
mod interactive;
mod marketing;
mod media;
mod message_kinds;
mod messages;
mod notices;
mod template_review;
mod template_types;
mod templates;
