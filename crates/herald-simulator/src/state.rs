//! The simulator's mutable state, kept behind one mutex that is never held across an await.

use std::collections::HashMap;
use std::time::Instant;

use actix_web::web::Bytes;
use chrono::{DateTime, TimeDelta, Utc};
use rand::Rng as _;

use crate::records::SentRecord;
use crate::review::Created;

/// How long an inbound message keeps the service window open (docs/cloud-api.md §6).
const SERVICE_WINDOW: TimeDelta = TimeDelta::hours(24);

/// An uploaded media object.
#[derive(Debug, Clone)]
pub(crate) struct Media {
    pub(crate) phone_number_id: String,
    pub(crate) mime_type: String,
    pub(crate) sha256: String,
    pub(crate) bytes: Bytes,
}

/// A token bucket holding up to one second's worth of sends.
#[derive(Debug)]
struct Bucket {
    tokens: f64,
    refilled_at: Instant,
}

#[derive(Debug)]
pub(crate) struct State {
    rate: u32,
    buckets: HashMap<String, Bucket>,
    /// Last inbound message per (phone number id, wa_id).
    windows: HashMap<(String, String), DateTime<Utc>>,
    /// Failed attempts per scripted-failure key (`…9998` recipients).
    failures: HashMap<String, u32>,
    media: HashMap<String, Media>,
    next_media_id: u64,
    /// Every wamid sent or received per phone number id, with its direction and the customer's wa_id:
    /// replies (`context`), reactions and read receipts must name one of them.
    messages: HashMap<(String, String), Known>,
    pub(crate) sent: Vec<SentRecord>,
    /// Templates created through the simulator, in creation order.
    pub(crate) created: Vec<Created>,
    next_template: u64,
    /// Open resumable upload sessions (`upload:…`) and the handles of finished ones.
    pub(crate) upload_sessions: Vec<String>,
    /// Each number's block list: (phone number id, the user's wa_id or user id).
    blocked: std::collections::HashSet<(String, String)>,
    /// The business-scoped user id of a wa_id, per phone number id, as the user's inbound messages named
    /// it: statuses of messages to the number carry it as `recipient_user_id`, as the network's do.
    user_ids: HashMap<(String, String), String>,
    /// The business accounts (WABA ids) whose business accepted the Marketing Messages API terms; none
    /// has until the control API says so, as a new business on Meta's side.
    marketing_onboarded: std::collections::HashSet<String>,
    /// The business accounts (WABA ids) the simulator's app was unsubscribed from (`DELETE
    /// /{waba_id}/subscribed_apps`); every account is subscribed until then.
    apps_unsubscribed: std::collections::HashSet<String>,
}

/// Which way a message known to the simulator went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// The business sent it.
    Outbound,
    /// The customer sent it (a control inbound call).
    Inbound,
}

/// A message the simulator sent or received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Known {
    pub(crate) direction: Direction,
    /// The customer's WhatsApp id: the recipient of an outbound message, the sender of an inbound one.
    pub(crate) wa_id: String,
}

impl State {
    pub(crate) fn new(rate: u32) -> Self {
        // A random start keeps media ids from an earlier run from aliasing new uploads.
        let next_media_id = rand::rng().random_range(1_000_000_000_000_000..5_000_000_000_000_000);
        Self {
            rate,
            buckets: HashMap::new(),
            windows: HashMap::new(),
            failures: HashMap::new(),
            media: HashMap::new(),
            next_media_id,
            messages: HashMap::new(),
            sent: Vec::new(),
            created: Vec::new(),
            next_template: 0,
            upload_sessions: Vec::new(),
            blocked: std::collections::HashSet::new(),
            user_ids: HashMap::new(),
            marketing_onboarded: std::collections::HashSet::new(),
            apps_unsubscribed: std::collections::HashSet::new(),
        }
    }

    /// Takes one token from the sender's bucket; `false` when the sender is over its throughput.
    pub(crate) fn take_token(&mut self, phone_number_id: &str, now: Instant) -> bool {
        if self.rate == 0 {
            return true;
        }
        let capacity = f64::from(self.rate);
        let bucket = self.buckets.entry(phone_number_id.to_owned()).or_insert(Bucket {
            tokens: capacity,
            refilled_at: now,
        });
        let elapsed = now.saturating_duration_since(bucket.refilled_at).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * capacity).min(capacity);
        bucket.refilled_at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    pub(crate) fn open_window(&mut self, phone_number_id: &str, wa_id: &str, at: DateTime<Utc>) {
        self.windows
            .insert((phone_number_id.to_owned(), wa_id.to_owned()), at);
    }

    /// Remembers that `wa_id` is `user_id` for the number.
    pub(crate) fn learn_user_id(&mut self, phone_number_id: &str, wa_id: &str, user_id: &str) {
        self.user_ids
            .insert((phone_number_id.to_owned(), wa_id.to_owned()), user_id.to_owned());
    }

    /// The user id the number knows for `wa_id`, if its user ever wrote with one.
    pub(crate) fn user_id_of(&self, phone_number_id: &str, wa_id: &str) -> Option<String> {
        self.user_ids
            .get(&(phone_number_id.to_owned(), wa_id.to_owned()))
            .cloned()
    }

    pub(crate) fn block(&mut self, phone_number_id: &str, user: &str) {
        self.blocked.insert((phone_number_id.to_owned(), user.to_owned()));
    }

    pub(crate) fn unblock(&mut self, phone_number_id: &str, user: &str) {
        self.blocked
            .remove(&(phone_number_id.to_owned(), user.to_owned()));
    }

    pub(crate) fn is_blocked(&self, phone_number_id: &str, user: &str) -> bool {
        self.blocked
            .contains(&(phone_number_id.to_owned(), user.to_owned()))
    }

    pub(crate) fn window_open(&self, phone_number_id: &str, wa_id: &str, now: DateTime<Utc>) -> bool {
        self.windows
            .get(&(phone_number_id.to_owned(), wa_id.to_owned()))
            .is_some_and(|last| now - *last <= SERVICE_WINDOW)
    }

    /// Counts one more attempt for `key` and returns how many there have been.
    /// Records whether `waba_id`'s business accepted the Marketing Messages API terms.
    pub(crate) fn set_marketing_onboarded(&mut self, waba_id: &str, onboarded: bool) {
        if onboarded {
            self.marketing_onboarded.insert(waba_id.to_owned());
        } else {
            self.marketing_onboarded.remove(waba_id);
        }
    }

    /// Records whether the simulator's app is unsubscribed from `waba_id`'s webhooks.
    pub(crate) fn set_app_unsubscribed(&mut self, waba_id: &str, unsubscribed: bool) {
        if unsubscribed {
            self.apps_unsubscribed.insert(waba_id.to_owned());
        } else {
            self.apps_unsubscribed.remove(waba_id);
        }
    }

    /// Whether the simulator's app was unsubscribed from `waba_id`'s webhooks.
    pub(crate) fn app_unsubscribed(&self, waba_id: &str) -> bool {
        self.apps_unsubscribed.contains(waba_id)
    }

    /// Whether `waba_id` may send on `/marketing_messages`.
    pub(crate) fn marketing_onboarded(&self, waba_id: &str) -> bool {
        self.marketing_onboarded.contains(waba_id)
    }

    pub(crate) fn count_attempt(&mut self, key: String) -> u32 {
        let count = self.failures.entry(key).or_insert(0);
        *count = count.saturating_add(1);
        *count
    }

    pub(crate) fn remember(&mut self, phone_number_id: &str, wamid: &str, direction: Direction, wa_id: &str) {
        self.messages.insert(
            (phone_number_id.to_owned(), wamid.to_owned()),
            Known {
                direction,
                wa_id: wa_id.to_owned(),
            },
        );
    }

    /// The message `wamid` as this phone number id sent or received it, if it did.
    pub(crate) fn known(&self, phone_number_id: &str, wamid: &str) -> Option<&Known> {
        self.messages.get(&(phone_number_id.to_owned(), wamid.to_owned()))
    }

    pub(crate) fn store_media(&mut self, media: Media) -> String {
        let id = self.next_media_id.to_string();
        self.next_media_id = self.next_media_id.wrapping_add(1);
        self.media.insert(id.clone(), media);
        id
    }

    pub(crate) fn media(&self, id: &str) -> Option<&Media> {
        self.media.get(id)
    }

    /// A new template id, numeric like Graph's and apart from the seeded `30000000nn` ones.
    pub(crate) fn next_template_id(&mut self) -> String {
        self.next_template += 1;
        format!("31{:08}", self.next_template)
    }

    pub(crate) fn delete_media(&mut self, id: &str) -> bool {
        self.media.remove(id).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn bucket_allows_the_rate_then_refills() {
        let mut state = State::new(3);
        let t0 = Instant::now();
        assert!((0..3).all(|_| state.take_token("1", t0)));
        assert!(!state.take_token("1", t0));
        assert!(state.take_token("2", t0), "buckets are per sender");
        assert!(state.take_token("1", t0 + Duration::from_millis(400)));
        assert!(!state.take_token("1", t0 + Duration::from_millis(400)));
    }

    #[test]
    fn windows_last_24_hours() {
        let mut state = State::new(0);
        let t0 = Utc::now();
        assert!(!state.window_open("1", "49", t0));
        state.open_window("1", "49", t0);
        assert!(state.window_open("1", "49", t0 + TimeDelta::hours(23)));
        assert!(!state.window_open("1", "49", t0 + TimeDelta::hours(25)));
        assert!(!state.window_open("2", "49", t0), "windows are per sender");
    }
}
