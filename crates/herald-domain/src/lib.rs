//! Herald's business core.
//!
//! This crate knows nothing of HTTP, SQL or the network: it holds the value types (validated at
//! construction), the entities, the pure policies (status machine, template matching, service window,
//! plans), the ports that adapters implement, and the use cases that drive those ports.
//!
//! Everything a rule needs from the outside world (time, ids, randomness, storage) arrives through a
//! port, so every rule is testable with a fixed clock and mocks.

pub mod api_key;
pub mod attachment;
pub mod broadcast;
pub mod client_address;
pub mod contact;
pub mod content;
pub mod customer_event;
pub mod dispatch;
pub mod erasure;
pub mod error;
pub mod ids;
pub mod interactive;
pub mod marketing;
pub mod media;
pub mod message;
pub mod network;
pub mod notice;
pub mod organization;
pub mod owner;
pub mod ports;
pub mod pricing;
pub mod status;
pub mod template;
pub mod time;
pub mod trace;
pub mod usecases;
pub mod values;
pub mod webhook;
pub mod window;

pub use error::{FieldError, ValidationErrors};
pub use time::Timestamp;
