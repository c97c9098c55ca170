//! Herald's customer webhooks (docs/api.md §9): Standard Webhooks signing, the SSRF rules for destinations,
//! the HTTP client of one delivery attempt, and the retry schedule.
//!
//! No database and no web framework. The delivery worker stores outcomes and schedules attempts with
//! [`next_attempt`]; the HTTP API checks URLs at registration with [`DestinationPolicy::check_url`]. Behind
//! the domain's ports they are [`WebhookDestinations`] and [`WebhookSender`].

mod delivery;
mod destination;
mod ports;
mod retry_after;
mod schedule;
mod signing;

pub use delivery::{
    AttemptErrorKind, AttemptOutcome, BODY_PREFIX_LIMIT, Deliverer, DelivererBuildError, DeliveryTimeouts,
    IDLE_CONNECTION_TIMEOUT,
};
pub use destination::{CheckedUrl, DestinationError, DestinationPolicy, ForbiddenRange, forbidden_range};
pub use ports::{WebhookDestinations, WebhookSender};
pub use retry_after::parse_retry_after;
pub use schedule::{MAX_ATTEMPTS, MAX_JITTER, SCHEDULE, THROTTLED_MINIMUM, next_attempt};
pub use signing::{
    GENERATED_SECRET_BYTES, MAX_SECRET_BYTES, MIN_SECRET_BYTES, SECRET_PREFIX, SecretError, WebhookSecret,
    sign, verify,
};
