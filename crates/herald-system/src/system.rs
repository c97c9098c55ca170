//! The production clock, id generator and random source.

use herald_domain::Timestamp;
use herald_domain::ports::{Clock, IdGenerator, SecretSource};
use std::sync::Mutex;
use ulid::Ulid;

/// The system clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        chrono::Utc::now()
    }
}

/// ULIDs that strictly increase within this process, so ids sort in the order they were made even within
/// one millisecond.
#[derive(Default)]
pub struct MonotonicUlids {
    generator: Mutex<ulid::Generator>,
}

impl IdGenerator for MonotonicUlids {
    fn next_ulid(&self) -> Ulid {
        // A poisoned lock or an exhausted millisecond (2^80 ids) falls back to a fresh random ULID: still
        // unique, just not strictly ordered within that millisecond.
        self.generator
            .lock()
            .ok()
            .and_then(|mut generator| generator.generate().ok())
            .unwrap_or_else(random_ulid)
    }
}

/// A fresh random ULID (`Ulid::default()` would be the nil id, so this names the intent).
fn random_ulid() -> Ulid {
    Ulid::new()
}

/// The operating system's CSPRNG (through `rand`'s thread-local generator, reseeded from it).
#[derive(Debug, Default, Clone, Copy)]
pub struct OsSecrets;

impl SecretSource for OsSecrets {
    fn fill(&self, buf: &mut [u8]) {
        rand::RngCore::fill_bytes(&mut rand::rng(), buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulids_strictly_increase() {
        let ids = MonotonicUlids::default();
        let mut last = ids.next_ulid();
        for _ in 0..10_000 {
            let next = ids.next_ulid();
            assert!(next > last);
            last = next;
        }
    }

    #[test]
    fn secrets_are_not_constant() {
        let (mut a, mut b) = ([0_u8; 32], [0_u8; 32]);
        OsSecrets.fill(&mut a);
        OsSecrets.fill(&mut b);
        assert_ne!(a, b);
    }
}
