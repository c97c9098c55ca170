//! The wire format of `contact.preferences` (docs/api.md §9, docs/webhooks.md): a person's marketing
//! preference changed.

use super::event_time;
use herald_domain::contact::PreferenceChange;
use herald_domain::customer_event::CustomerEventType;
use herald_domain::erasure::Erasure;
use serde_json::{Value, json};

/// The JSON body of a preference change's event, as it is stored and delivered.
pub(crate) fn preference_body(change: &PreferenceChange) -> Value {
    json!({
        "type": CustomerEventType::ContactPreferences.as_str(),
        "timestamp": event_time(change.recorded_at),
        "data": {
            "contact": {
                "number": change.number.as_ref().map(|n| n.as_str()),
                "user_id": change.user_id.as_ref().map(|u| u.as_str()),
            },
            "marketing": change.preference.as_str(),
            "source": change.source.as_str(),
            "occurred_at": event_time(change.occurred_at),
        },
    })
}

/// The JSON body of `contact.erased`: the person's marker (never their number: the event is kept too).
pub(crate) fn erased_body(erasure: &Erasure) -> Value {
    json!({
        "type": CustomerEventType::ContactErased.as_str(),
        "timestamp": event_time(erasure.at),
        "data": {
            "contact": { "erased": erasure.marker.as_str() },
            "erased_at": event_time(erasure.at),
        },
    })
}

/// What the payload of a customer event about an erased person becomes: its type, time and marker only.
pub(crate) fn scrubbed_body(event_type: &str, erasure: &Erasure) -> Value {
    json!({
        "type": event_type,
        "timestamp": event_time(erasure.at),
        "data": { "erased": erasure.marker.as_str() },
    })
}
