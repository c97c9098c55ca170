//! The wire format of `broadcast.progress` and `broadcast.completed` (docs/api.md §9, docs/webhooks.md):
//! the broadcast resource as `GET /api/v1/broadcasts/{id}` shows it, at the time of the event.

use super::event_time;
use herald_domain::broadcast::{BroadcastEvent, BroadcastView};
use herald_domain::message::MessageStatus;
use serde_json::{Map, Value, json};

/// The JSON body of a broadcast's event, as it is stored and delivered.
pub(crate) fn broadcast_body(event: &BroadcastEvent) -> Value {
    json!({
        "type": event.event_type().as_str(),
        "timestamp": event_time(event.recorded_at),
        "data": broadcast_data(&event.view),
    })
}

fn broadcast_data(view: &BroadcastView) -> Value {
    let b = &view.broadcast;
    let counts: Map<String, Value> = MessageStatus::ALL
        .into_iter()
        .map(|status| (status.as_str().to_owned(), json!(view.counts.get(status))))
        .collect();
    json!({
        "id": b.id.to_string(),
        "status": b.state.as_str(),
        "from": b.from.as_str(),
        "template": { "name": b.template.name.as_str(), "language": b.template.language.as_str() },
        "send_at": b.send_at.map(event_time),
        "total": b.total,
        "released": b.released,
        "counts": counts,
        "pause": b.pause.as_ref().map(|p| json!({
            "code": p.code,
            "detail": p.detail,
            "network_code": p.network_code,
            "paused_at": event_time(p.paused_at),
        })),
        "created_at": event_time(b.created_at),
        "updated_at": event_time(b.updated_at),
        "completed_at": b.completed_at.map(event_time),
        "cancelled_at": b.cancelled_at.map(event_time),
    })
}
