//! Injected faults: for a while, the network answers every send with a server error (the fault suite's
//! "network down" trial, `POST /simulator/control/faults`).

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The fault in force, if any; kept apart from the network's state so a trial never touches it.
#[derive(Debug, Default)]
pub(crate) struct Faults {
    send: Mutex<Option<SendFault>>,
}

#[derive(Debug, Clone, Copy)]
struct SendFault {
    status: u16,
    until: Instant,
}

impl Faults {
    /// Every send answers `status` (a 5xx) until `duration` has passed; a zero duration clears the fault.
    pub(crate) fn fail_sends(&self, status: u16, duration: Duration, now: Instant) {
        let mut send = self.send.lock().unwrap_or_else(PoisonError::into_inner);
        *send = (!duration.is_zero()).then_some(SendFault {
            status,
            until: now + duration,
        });
    }

    /// The status a send must answer now, when a fault is in force.
    pub(crate) fn send_status(&self, now: Instant) -> Option<u16> {
        let send = self.send.lock().unwrap_or_else(PoisonError::into_inner);
        send.filter(|fault| now < fault.until).map(|fault| fault.status)
    }

    /// How long the fault in force still lasts.
    pub(crate) fn remaining(&self, now: Instant) -> Duration {
        let send = self.send.lock().unwrap_or_else(PoisonError::into_inner);
        send.map_or(Duration::ZERO, |fault| fault.until.saturating_duration_since(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_lasts_its_duration_and_zero_clears_it() {
        let faults = Faults::default();
        let t0 = Instant::now();
        assert_eq!(faults.send_status(t0), None);
        faults.fail_sends(503, Duration::from_secs(60), t0);
        assert_eq!(faults.send_status(t0 + Duration::from_secs(59)), Some(503));
        assert_eq!(faults.send_status(t0 + Duration::from_secs(60)), None);
        assert_eq!(
            faults.remaining(t0 + Duration::from_secs(10)),
            Duration::from_secs(50)
        );
        faults.fail_sends(500, Duration::ZERO, t0);
        assert_eq!(faults.send_status(t0), None);
    }
}
