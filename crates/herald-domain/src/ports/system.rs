//! Time, ids and randomness: every rule is testable with fixed values.

use crate::time::Timestamp;
use ulid::Ulid;

/// The current time. Use cases never read the system clock themselves.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> Timestamp;
}

/// Fresh ULIDs for ids. Successive calls in one process must return increasing values, so ids made by
/// one process sort in the order they were made.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait IdGenerator: Send + Sync + 'static {
    fn next_ulid(&self) -> Ulid;
}

/// Cryptographically secure random bytes, for API keys and secrets.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait SecretSource: Send + Sync + 'static {
    fn fill(&self, buf: &mut [u8]);
}
