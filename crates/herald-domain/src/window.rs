//! The 24-hour customer service window (docs/api.md §7): free-form messages may go to a number only within
//! 24 hours after that number last wrote to the sender. Templates may go at any time.

use crate::contact::Recipient;
use crate::ids::{OrganizationId, SenderId};
use crate::time::{Duration, Timestamp};

/// How long an inbound message keeps the window open.
pub fn window_length() -> Duration {
    Duration::hours(24)
}

/// The window between one sender number and one recipient.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceWindow {
    pub organization_id: OrganizationId,
    pub sender_id: SenderId,
    /// Kept by number; by user id only for a user who wrote without one that no contact pairs with a
    /// number (docs/api.md §7).
    pub recipient: Recipient,
    pub last_inbound_at: Timestamp,
}

impl ServiceWindow {
    /// When the window closes.
    pub fn expires_at(&self) -> Timestamp {
        self.last_inbound_at + window_length()
    }

    /// Open at `now` (the closing instant itself is outside).
    pub fn is_open_at(&self, now: Timestamp) -> bool {
        now < self.expires_at()
    }
}

/// Whether a free-form message may go now, given the window if one was ever opened.
pub fn free_form_allowed(window: Option<&ServiceWindow>, now: Timestamp) -> bool {
    window.is_some_and(|w| w.is_open_at(now))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ulid::Ulid;

    fn window(last: Timestamp) -> ServiceWindow {
        ServiceWindow {
            organization_id: OrganizationId::from_ulid(Ulid::from_parts(1, 1)),
            sender_id: SenderId::from_ulid(Ulid::from_parts(1, 2)),
            recipient: Recipient::parse("+15551234567").unwrap(),
            last_inbound_at: last,
        }
    }

    #[test]
    fn open_for_exactly_24_hours() {
        let t = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let w = window(t);
        assert!(w.is_open_at(t));
        assert!(w.is_open_at(t + Duration::hours(24) - Duration::milliseconds(1)));
        assert!(!w.is_open_at(t + Duration::hours(24)));
        assert_eq!(w.expires_at(), t + Duration::hours(24));
        assert!(free_form_allowed(Some(&w), t + Duration::hours(1)));
        assert!(!free_form_allowed(Some(&w), t + Duration::hours(25)));
        assert!(
            !free_form_allowed(None, t),
            "a number that never wrote has no window"
        );
    }
}
