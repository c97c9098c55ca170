//! The wire format of the events about templates, numbers and accounts (docs/api.md §9): `template.status`,
//! `template.quality`, `template.category`, `sender.quality`, `account.update`.

use super::{event_time, json_text};
use herald_domain::network::NoticeTemplate;
use herald_domain::notice::{NoticeBody, NoticeEvent};
use serde_json::{Value, json};

/// The JSON body of a notice's event, as it is stored and delivered: the §9 envelope around its `data`.
pub(crate) fn notice_body(event: &NoticeEvent) -> Value {
    let occurred_at = event_time(event.occurred_at);
    let data = match &event.body {
        NoticeBody::TemplateStatus {
            template,
            event: network_event,
            status,
            previous_status,
            reason,
            info,
        } => json!({
            "template": template_object(template),
            "event": network_event.as_str(),
            "status": status.as_str(),
            "previous_status": previous_status.as_ref().map(|s| s.as_str()),
            "reason": reason,
            "info": info.as_ref().map(|i| json!({ "title": i.title, "description": i.description })),
            "occurred_at": occurred_at,
        }),
        NoticeBody::TemplateQuality {
            template,
            quality,
            previous_quality,
        } => json!({
            "template": template_object(template),
            "quality": quality.as_str(),
            "previous_quality": previous_quality.as_ref().map(|q| q.as_str()),
            "occurred_at": occurred_at,
        }),
        NoticeBody::TemplateCategory {
            template,
            category,
            previous_category,
            correct_category,
        } => json!({
            "template": template_object(template),
            "category": category,
            "previous_category": previous_category,
            "correct_category": correct_category,
            "occurred_at": occurred_at,
        }),
        NoticeBody::SenderQuality {
            sender,
            event,
            quality_rating,
            messaging_limit,
            previous_limit,
        } => json!({
            "sender": { "id": sender.id.to_string(), "number": sender.number.as_str() },
            "event": event,
            "quality_rating": quality_rating,
            "messaging_limit": messaging_limit,
            "previous_limit": previous_limit,
            "occurred_at": occurred_at,
        }),
        NoticeBody::AccountUpdate {
            waba_id,
            field,
            event,
            details_json,
        } => json!({
            "business_account_id": waba_id.as_str(),
            "source": field,
            "event": event,
            "details": json_text(details_json),
            "occurred_at": occurred_at,
        }),
    };
    json!({
        "type": event.event_type().as_str(),
        "timestamp": event_time(event.recorded_at),
        "data": data,
    })
}

fn template_object(template: &NoticeTemplate) -> Value {
    json!({
        "name": template.name.as_str(),
        "language": template.language.as_str(),
        "network_id": template.network_id,
    })
}
