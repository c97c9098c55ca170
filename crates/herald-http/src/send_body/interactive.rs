//! send-interactive's body: Meta's `interactive` object (`type`, `header`, `body`, `footer`, `action`) at the
//! top level, read into an [`InteractiveDraft`] and checked by [`Interactive::parse`].

use super::fields::{array_at, merge, object_at, text_at};
use super::fields::{json_type, present};
use herald_domain::interactive::{
    ActionDraft, ButtonDraft, HeaderDraft, Interactive, InteractiveDraft, ParametersDraft, RowDraft,
    SectionDraft,
};
use herald_domain::message::MessageContent;
use herald_domain::organization::MessageKind;
use herald_domain::{FieldError, ValidationErrors};
use serde_json::{Map, Value};

/// The plan category, from the body alone and before any check: a header file makes it media.
pub(super) fn interactive_kind(body: &Value) -> MessageKind {
    let header = body
        .get("header")
        .and_then(|header| header.get("type"))
        .and_then(Value::as_str);
    match header {
        Some("image" | "video" | "document") => MessageKind::Media,
        _ => MessageKind::Text,
    }
}

/// `{"text": …}` under `key` (`body`, `footer`).
fn text_object(object: &Map<String, Value>, key: &str, errors: &mut ValidationErrors) -> Option<String> {
    let inner = object_at(object, key, key, errors)?;
    let text = text_at(inner, "text", &format!("{key}.text"), errors);
    if text.is_none() && present(inner, "text").is_none() {
        errors.push(FieldError::new(format!("{key}.text"), "is required"));
    }
    text
}

fn header(object: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<HeaderDraft> {
    let header = object_at(object, "header", "header", errors)?;
    let kind = text_at(header, "type", "header.type", errors);
    let Some(kind) = kind else {
        if present(header, "type").is_none() {
            errors.push(FieldError::new("header.type", "is required"));
        }
        return None;
    };
    let mut draft = HeaderDraft {
        kind: kind.clone(),
        text: text_at(header, "text", "header.text", errors),
        ..HeaderDraft::default()
    };
    if let media @ ("image" | "video" | "document") = kind.as_str()
        && let Some(file) = object_at(header, media, &format!("header.{media}"), errors)
    {
        draft.media_id = text_at(file, "media_id", &format!("header.{media}.media_id"), errors);
        draft.filename = text_at(file, "filename", &format!("header.{media}.filename"), errors);
        for key in ["id", "link"] {
            if present(file, key).is_some() {
                errors.push(FieldError::new(
                    format!("header.{media}.{key}"),
                    "name an upload of Herald by `media_id` (POST /api/v1/media)",
                ));
            }
        }
    }
    Some(draft)
}

fn buttons(action: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<Vec<ButtonDraft>> {
    let list = array_at(action, "buttons", "action.buttons", errors)?;
    let buttons = list
        .iter()
        .enumerate()
        .map(|(i, button)| {
            let at = format!("action.buttons[{i}]");
            let Some(button) = button.as_object() else {
                errors.push(FieldError::new(at, "must be an object"));
                return ButtonDraft::default();
            };
            let empty = Map::new();
            let reply = object_at(button, "reply", &format!("{at}.reply"), errors).unwrap_or(&empty);
            ButtonDraft {
                kind: text_at(button, "type", &format!("{at}.type"), errors),
                id: text_at(reply, "id", &format!("{at}.reply.id"), errors),
                title: text_at(reply, "title", &format!("{at}.reply.title"), errors),
            }
        })
        .collect();
    Some(buttons)
}

fn sections(action: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<Vec<SectionDraft>> {
    let list = array_at(action, "sections", "action.sections", errors)?;
    let sections = list
        .iter()
        .enumerate()
        .map(|(s, section)| {
            let at = format!("action.sections[{s}]");
            let Some(section) = section.as_object() else {
                errors.push(FieldError::new(at, "must be an object"));
                return SectionDraft::default();
            };
            let rows = array_at(section, "rows", &format!("{at}.rows"), errors)
                .map(|rows| {
                    rows.iter()
                        .enumerate()
                        .map(|(r, row)| {
                            let at = format!("{at}.rows[{r}]");
                            let Some(row) = row.as_object() else {
                                errors.push(FieldError::new(at, "must be an object"));
                                return RowDraft::default();
                            };
                            RowDraft {
                                id: text_at(row, "id", &format!("{at}.id"), errors),
                                title: text_at(row, "title", &format!("{at}.title"), errors),
                                description: text_at(
                                    row,
                                    "description",
                                    &format!("{at}.description"),
                                    errors,
                                ),
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            SectionDraft {
                title: text_at(section, "title", &format!("{at}.title"), errors),
                rows,
            }
        })
        .collect();
    Some(sections)
}

fn parameters(action: &Map<String, Value>, errors: &mut ValidationErrors) -> ParametersDraft {
    let Some(p) = object_at(action, "parameters", "action.parameters", errors) else {
        return ParametersDraft::default();
    };
    let field = |key: &str, errors: &mut ValidationErrors| {
        text_at(p, key, &format!("action.parameters.{key}"), errors)
    };
    let mut draft = ParametersDraft {
        display_text: field("display_text", errors),
        url: field("url", errors),
        flow_message_version: field("flow_message_version", errors),
        flow_id: field("flow_id", errors),
        flow_name: field("flow_name", errors),
        flow_cta: field("flow_cta", errors),
        flow_token: field("flow_token", errors),
        mode: field("mode", errors),
        flow_action: field("flow_action", errors),
        ..ParametersDraft::default()
    };
    let path = "action.parameters.flow_action_payload";
    if let Some(payload) = object_at(p, "flow_action_payload", path, errors) {
        draft.screen = text_at(payload, "screen", &format!("{path}.screen"), errors);
        match present(payload, "data") {
            None => {}
            Some(Value::Object(data)) if !data.is_empty() => {
                draft.data = Some(Value::Object(data.clone()).to_string());
            }
            Some(_) => draft.data_not_an_object = true,
        }
    }
    draft
}

/// send-interactive's content; the `type` is Meta's `interactive.type`.
pub(super) fn interactive_content(
    object: &Map<String, Value>,
    errors: &mut ValidationErrors,
) -> Option<MessageContent> {
    let kind = match present(object, "type") {
        None => {
            errors.push(FieldError::new(
                "type",
                "is required: button, list, cta_url, location_request_message or flow",
            ));
            None
        }
        Some(Value::String(kind)) => Some(kind.clone()),
        Some(other) => {
            errors.push(FieldError::new(
                "type",
                format!("must be a string, not {}", json_type(other)),
            ));
            None
        }
    };
    let empty = Map::new();
    let action = match present(object, "action") {
        None => {
            errors.push(FieldError::new("action", "is required"));
            &empty
        }
        Some(_) => object_at(object, "action", "action", errors).unwrap_or(&empty),
    };
    let draft = InteractiveDraft {
        kind: kind.clone().unwrap_or_default(),
        header: header(object, errors),
        body: text_object(object, "body", errors),
        footer: text_object(object, "footer", errors),
        action: ActionDraft {
            buttons: buttons(action, errors),
            button: text_at(action, "button", "action.button", errors),
            sections: sections(action, errors),
            name: text_at(action, "name", "action.name", errors),
            parameters: parameters(action, errors),
        },
    };
    let checked = merge(Interactive::parse(&draft), errors);
    kind.and(checked).map(MessageContent::Interactive)
}
