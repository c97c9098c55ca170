//! Ports: what the domain needs from the outside world. Adapters implement them; use cases call them.
//!
//! One module per port, each with the types only that port speaks; every trait and type is re-exported
//! here, so `herald_domain::ports::X` names any of them.
//!
//! Every store method takes the organization id first and must scope every read and write to it: a row
//! of another organization is, to the caller, a row that does not exist.

pub mod accounts;
pub mod broadcasts;
pub mod contacts;
pub mod delivery;
pub mod erasure;
pub mod error;
pub mod idempotency;
pub mod inbound;
pub mod limits;
pub mod media;
pub mod media_store;
pub mod messages;
pub mod network;
pub mod outbox;
pub mod owners;
pub mod pacing;
pub mod pricing;
pub mod retention;
pub mod schedule;
pub mod sealer;
pub mod system;
pub mod template_review;
pub mod templates;
pub mod tracking;
pub mod webhooks;
pub mod windows;

pub use accounts::*;
pub use broadcasts::*;
pub use contacts::*;
pub use delivery::*;
pub use erasure::*;
pub use error::*;
pub use idempotency::*;
pub use inbound::*;
pub use limits::*;
pub use media::*;
pub use media_store::*;
pub use messages::*;
pub use network::*;
pub use outbox::*;
pub use owners::*;
pub use pacing::*;
pub use pricing::*;
pub use retention::*;
pub use schedule::*;
pub use sealer::*;
pub use system::*;
pub use template_review::*;
pub use templates::*;
pub use tracking::*;
pub use webhooks::*;
pub use windows::*;
