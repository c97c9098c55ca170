//! `POST /{v}/{phone_number_id}/messages` (docs/cloud-api.md §1) and its marketing twin
//! `POST /{v}/{phone_number_id}/marketing_messages` (§1.6), which shares every check and adds its own.

use std::time::Instant;

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value, json};

use super::graph::GraphPath;
use super::marketing;
use super::template_send::{check_template, param_type};
use super::{fields, shapes};
use crate::callbacks::{Pricing, StatusPlan, Step};
use crate::error::GraphError;
use crate::records::{Endpoint, RecordKind, SentMedia, SentRecord};
use crate::simulator::Simulator;
use crate::state::{Direction, Known};
use crate::wire;

/// `POST /{phone_number_id}/messages`.
pub(crate) async fn send(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
    body: web::Bytes,
) -> Result<HttpResponse, GraphError> {
    accept(&req, &simulator, path, &body, Endpoint::Messages)
}

/// `POST /{phone_number_id}/marketing_messages`: marketing templates of an onboarded business only.
pub(crate) async fn send_marketing(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
    body: web::Bytes,
) -> Result<HttpResponse, GraphError> {
    accept(&req, &simulator, path, &body, Endpoint::MarketingMessages)
}

fn accept(
    req: &HttpRequest,
    simulator: &Simulator,
    path: GraphPath,
    body: &[u8],
    endpoint: Endpoint,
) -> Result<HttpResponse, GraphError> {
    let GraphPath {
        version,
        id: phone_number_id,
    } = path;
    super::graph::guard(req, simulator, &version)?;
    if let Some(status) = simulator.faults.send_status(Instant::now()) {
        return Err(super::faults::injected(status));
    }
    let sender = simulator
        .sender_by_id(&phone_number_id)
        .ok_or_else(|| GraphError::unknown_object(&phone_number_id, "post"))?;
    if endpoint == Endpoint::MarketingMessages {
        marketing::check_onboarded(simulator, sender.waba_id)?;
    }
    if !simulator.state().take_token(&phone_number_id, Instant::now()) {
        return Err(GraphError::throughput());
    }

    let request: Value = serde_json::from_slice(body)
        .map_err(|e| GraphError::invalid_parameter(format!("The request body is not valid JSON: {e}")))?;
    let fields = request
        .as_object()
        .ok_or_else(|| GraphError::invalid_parameter("The request body must be a JSON object"))?;
    if !super::graph::names_whatsapp(req, &request) {
        return Err(GraphError::invalid_parameter(
            "The parameter messaging_product is required and must be \"whatsapp\"",
        ));
    }
    if endpoint == Endpoint::Messages && fields.get("status").and_then(Value::as_str) == Some("read") {
        return mark_read(simulator, &phone_number_id, &request, fields);
    }
    // A number in `to`, or a business-scoped user id in `recipient` (Meta: `to` wins when both are given).
    // The user id keys its windows, blocks and statuses as a number's digits do.
    let (to, recipient) = match (
        fields.get("to").and_then(Value::as_str),
        fields.get("recipient").and_then(Value::as_str),
    ) {
        (Some(to), _) => (
            to,
            wire::wa_id(to)
                .ok_or_else(|| GraphError::invalid_parameter("Param to must be a valid phone number"))?,
        ),
        (None, Some(user)) if super::block::is_user_id(user) => (user, user.to_owned()),
        (None, Some(_)) => {
            return Err(GraphError::invalid_parameter(
                "Param recipient must be a valid business-scoped user ID",
            ));
        }
        (None, None) => return Err(GraphError::invalid_parameter("The parameter to is required")),
    };
    let kind = fields
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| GraphError::invalid_parameter("The parameter type is required"))?;
    if endpoint == Endpoint::MarketingMessages {
        marketing::check_fields(kind, fields)?;
    }
    shapes::check_object(kind, fields)?;
    if recipient == sender.digits() {
        return Err(GraphError::recipient_is_sender());
    }
    if simulator.state().is_blocked(&phone_number_id, &recipient) {
        return Err(GraphError::recipient_blocked());
    }
    check_references(simulator, &phone_number_id, &recipient, kind, fields)?;

    let now = chrono::Utc::now();
    let template = if kind == "template" {
        let template = check_template(
            simulator,
            sender.waba_id,
            &phone_number_id,
            fields.get("template"),
        )?;
        if endpoint == Endpoint::MarketingMessages {
            marketing::check_category(&template.category)?;
        }
        Some(template)
    } else {
        if !simulator.state().window_open(&phone_number_id, &recipient, now) {
            return Err(GraphError::re_engagement());
        }
        None
    };
    let media = sent_media(simulator, &phone_number_id, kind, fields)?;
    let biz_opaque_callback_data = fields
        .get("biz_opaque_callback_data")
        .and_then(Value::as_str)
        .map(str::to_owned);

    if recipient.ends_with("9995") {
        return Err(GraphError::spam_rate_limited());
    }
    if recipient.ends_with("9998") {
        // Retries of one message are recognised by their tracking data, as a client would resend it.
        let key = format!(
            "{phone_number_id}|{recipient}|{}",
            biz_opaque_callback_data
                .clone()
                .unwrap_or_else(|| request.to_string())
        );
        if simulator.state().count_attempt(key) <= 2 {
            return Err(GraphError::something_went_wrong());
        }
    }

    let wamid = wire::wamid(&recipient);
    let steps = if recipient.ends_with("9999") {
        vec![Step::Undeliverable]
    } else if kind == "reaction" {
        // Meta reports a reaction as sent and nothing after: no delivered or read for it.
        vec![Step::Sent]
    } else if recipient.ends_with("9997") {
        vec![Step::Sent, Step::Delivered, Step::Read]
    } else if recipient.ends_with("9996") {
        vec![Step::Delivered, Step::Sent]
    } else {
        vec![Step::Sent, Step::Delivered]
    };
    let window_open = simulator.state().window_open(&phone_number_id, &recipient, now);
    let pricing = Pricing::of_send(
        template.as_ref().map(|t| t.category.as_str()),
        window_open,
        now.date_naive(),
    );
    tracing::debug!(%phone_number_id, %wamid, kind, "simulator: accepted a send");
    let recipient_user_id = if super::block::is_user_id(&recipient) {
        Some(recipient.clone())
    } else {
        simulator.state().user_id_of(&phone_number_id, &recipient)
    };
    {
        let mut state = simulator.state();
        state.remember(&phone_number_id, &wamid, Direction::Outbound, &recipient);
        state.sent.push(SentRecord {
            phone_number_id: phone_number_id.clone(),
            wamid: wamid.clone(),
            recipient: recipient.clone(),
            request: request.clone(),
            biz_opaque_callback_data: biz_opaque_callback_data.clone(),
            received_at: now,
            media,
            kind: RecordKind::Message,
            endpoint,
        });
    }
    let config = &simulator.config;
    simulator.dispatcher.statuses(
        StatusPlan {
            waba_id: sender.waba_id.to_owned(),
            display_phone_number: sender.digits().to_owned(),
            phone_number_id,
            wamid: wamid.clone(),
            recipient_id: recipient.clone(),
            recipient_user_id,
            biz_opaque_callback_data,
            pricing,
            steps,
        },
        config.callback_delay_ms,
        config.duplicate_callbacks,
        config.reorder_callbacks,
    );

    let message = if template.is_some() {
        json!({ "id": wamid, "message_status": "accepted" })
    } else {
        json!({ "id": wamid })
    };
    Ok(super::graph::ok_json(&json!({
        "messaging_product": "whatsapp",
        "contacts": [{ "input": to, "wa_id": recipient }],
        "messages": [message],
    })))
}

/// A read receipt, optionally showing the typing indicator: it must name a message this phone number
/// received, and is recorded in the sent list (Meta answers it with `success` and reports nothing).
fn mark_read(
    simulator: &Simulator,
    phone_number_id: &str,
    request: &Value,
    fields: &Map<String, Value>,
) -> Result<HttpResponse, GraphError> {
    let message_id = fields::required_text(fields, "message_id", "message_id", usize::MAX)?;
    let kind = match fields.get("typing_indicator") {
        None => RecordKind::Read,
        Some(Value::Object(indicator)) if indicator.get("type").and_then(Value::as_str) == Some("text") => {
            RecordKind::Typing
        }
        Some(_) => return Err(fields::bad("Param typing_indicator['type'] must be text")),
    };
    let mut state = simulator.state();
    let customer = match state.known(phone_number_id, message_id) {
        Some(Known {
            direction: Direction::Inbound,
            wa_id,
        }) => wa_id.clone(),
        _ => {
            return Err(GraphError::invalid_value(format!(
                "message_id {message_id} is not a message this phone number received"
            )));
        }
    };
    state.sent.push(SentRecord {
        phone_number_id: phone_number_id.to_owned(),
        wamid: message_id.to_owned(),
        recipient: customer,
        request: request.clone(),
        biz_opaque_callback_data: None,
        received_at: chrono::Utc::now(),
        media: None,
        kind,
        endpoint: Endpoint::Messages,
    });
    Ok(super::graph::ok_json(&json!({ "success": true })))
}

/// A reply's `context.message_id` and a reaction's `message_id` must name a message of this conversation
/// (this phone number and this recipient), sent or received; otherwise 131009.
fn check_references(
    simulator: &Simulator,
    phone_number_id: &str,
    recipient: &str,
    kind: &str,
    fields: &Map<String, Value>,
) -> Result<(), GraphError> {
    let reacted = if kind == "reaction" {
        fields
            .get("reaction")
            .and_then(|r| r.get("message_id"))
            .and_then(Value::as_str)
            .map(|id| ("reaction['message_id']", id))
    } else {
        None
    };
    let replied = shapes::context_message_id(fields)?.map(|id| ("context['message_id']", id));
    let state = simulator.state();
    for (field, wamid) in [replied, reacted].into_iter().flatten() {
        if state
            .known(phone_number_id, wamid)
            .is_none_or(|known| known.wa_id != recipient)
        {
            return Err(GraphError::invalid_value(format!(
                "{field} {wamid} is not a message of this phone number's conversation with {recipient}"
            )));
        }
    }
    Ok(())
}

/// The file a send carries, checked: a media id must be one this simulator handed out to the same phone
/// number id, of a type that fits the kind it is sent as (Meta refuses others with 131053).
fn sent_media(
    simulator: &Simulator,
    phone_number_id: &str,
    kind: &str,
    fields: &Map<String, Value>,
) -> Result<Option<SentMedia>, GraphError> {
    let (media_kind, object, role) = match kind {
        "image" | "video" | "audio" | "document" | "sticker" => (kind, fields.get(kind), "message"),
        "interactive" => {
            let header = fields.get("interactive").and_then(|i| i.get("header"));
            match header.and_then(|h| h.get("type")).and_then(Value::as_str) {
                Some(kind @ ("image" | "video" | "document")) => {
                    (kind, header.and_then(|h| h.get(kind)), "interactive_header")
                }
                _ => return Ok(None),
            }
        }
        "template" => {
            let header = fields
                .get("template")
                .and_then(|t| t.get("components"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|c| {
                    c.get("type")
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.eq_ignore_ascii_case("header"))
                })
                .filter_map(|c| c.get("parameters").and_then(Value::as_array))
                .flatten()
                .find_map(|p| {
                    let kind = param_type(p);
                    matches!(kind, "image" | "video" | "document").then(|| (kind, p.get(kind)))
                });
            match header {
                Some((kind, object)) => (kind, object, "template_header"),
                None => return Ok(None),
            }
        }
        _ => return Ok(None),
    };
    let text = |name: &str| {
        object
            .and_then(|o| o.get(name))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let mut sent = SentMedia {
        kind: media_kind.to_owned(),
        role: role.to_owned(),
        id: text("id"),
        link: text("link"),
        caption: text("caption"),
        filename: text("filename"),
        mime_type: None,
        sha256: None,
        size: None,
    };
    if let Some(id) = &sent.id {
        let state = simulator.state();
        let media = state
            .media(id)
            .filter(|m| m.phone_number_id == phone_number_id)
            .ok_or_else(|| {
                GraphError::media_unusable(format!(
                    "Media id {id} does not exist or was not uploaded by this phone number"
                ))
            })?;
        if !fits(media_kind, &media.mime_type) {
            return Err(GraphError::media_unusable(format!(
                "Media id {id} is {}, which cannot be sent as {media_kind}",
                media.mime_type
            )));
        }
        sent.mime_type = Some(media.mime_type.clone());
        sent.sha256 = Some(media.sha256.clone());
        sent.size = Some(media.bytes.len() as u64);
    }
    Ok(Some(sent))
}

/// Whether an uploaded file of `mime_type` can go out as `kind` (any file can go as a document).
fn fits(kind: &str, mime_type: &str) -> bool {
    match kind {
        "image" => matches!(mime_type, "image/jpeg" | "image/png"),
        "sticker" => mime_type == "image/webp",
        "video" => mime_type.starts_with("video/"),
        "audio" => mime_type.starts_with("audio/"),
        _ => true,
    }
}
