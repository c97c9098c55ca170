//! [`Interactive::parse`]: each kind's checks against Meta's limits, every error under the path the client wrote.

use std::collections::HashSet;

use super::*;
use crate::attachment::{MediaAttachment, MediaKind, MediaSource};
use crate::error::{InvalidValue, ValidationErrors};
use crate::ids::MediaId;
use crate::values::no_control_characters;

/// Checks `value` against `1..=max` characters and control characters, recording an error under `field`.
fn text(
    errors: &mut ValidationErrors,
    field: &str,
    value: &str,
    max: usize,
    line_breaks: bool,
) -> Option<Text> {
    let count = value.chars().count();
    let checked = if value.trim().is_empty() {
        Err(InvalidValue::new("must not be empty"))
    } else if count > max {
        Err(InvalidValue::new(format!(
            "must be at most {max} characters, got {count}"
        )))
    } else {
        no_control_characters(value, "the text", line_breaks).map(|()| Text(value.to_owned()))
    };
    errors.check(field, checked)
}

/// [`text`] for a field that must be present.
fn required(
    errors: &mut ValidationErrors,
    field: &str,
    value: Option<&str>,
    max: usize,
    line_breaks: bool,
) -> Option<Text> {
    match value {
        Some(value) => text(errors, field, value, max, line_breaks),
        None => {
            errors.push(InvalidValue::new("is required").at(field));
            None
        }
    }
}

fn optional(
    errors: &mut ValidationErrors,
    field: &str,
    value: Option<&str>,
    max: usize,
    line_breaks: bool,
) -> Option<Text> {
    value.and_then(|value| text(errors, field, value, max, line_breaks))
}

/// A field this kind of message does not take: refused rather than silently dropped.
fn absent<T>(errors: &mut ValidationErrors, field: &str, value: Option<&T>, kind: &str) {
    if value.is_some() {
        errors.push(InvalidValue::new(format!("is not used by a `{kind}` message")).at(field));
    }
}

/// Meta refuses emoji in Flow and some button texts; this is the test its pages describe (pictographs and
/// the variation selector that turns a character into one).
fn has_emoji(value: &str) -> bool {
    value.chars().any(|c| {
        matches!(c as u32,
            0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0xFE0F | 0x2B00..=0x2BFF)
    })
}

fn url(errors: &mut ValidationErrors, field: &str, value: Option<&str>) -> Option<Text> {
    let value = required(errors, field, value, URL_MAX, false)?;
    let rest = value
        .as_str()
        .strip_prefix("https://")
        .or_else(|| value.as_str().strip_prefix("http://"));
    let host = rest
        .and_then(|rest| rest.split(['/', '?', '#']).next())
        .unwrap_or_default();
    if host.is_empty() || value.as_str().chars().any(char::is_whitespace) {
        errors.push(InvalidValue::new("must be an absolute http:// or https:// URL").at(field));
        return None;
    }
    Some(value)
}

impl Interactive {
    /// Checks every field of `draft` against Meta's limits for its kind and collects every error.
    ///
    /// # Errors
    /// [`ValidationErrors`] naming each wrong field by the path the client wrote.
    pub fn parse(draft: &InteractiveDraft) -> Result<Self, ValidationErrors> {
        let mut errors = ValidationErrors::new();
        let kind = draft.kind.as_str();
        let action = match kind {
            "button" => buttons(&mut errors, draft),
            "list" => list(&mut errors, draft),
            "cta_url" => cta_url(&mut errors, draft),
            "location_request_message" => location_request(&mut errors, draft),
            "flow" => flow(&mut errors, draft),
            other => {
                errors.push(
                    InvalidValue::new(format!(
                        "must be button, list, cta_url, location_request_message or flow, not `{other}`"
                    ))
                    .at("type"),
                );
                None
            }
        };
        let body_max = if kind == "list" { LIST_BODY_MAX } else { BODY_MAX };
        // Meta requires a body on every kind Herald sends.
        let body = required(&mut errors, "body.text", draft.body.as_deref(), body_max, true);
        let footer = if kind == "location_request_message" {
            absent(&mut errors, "footer", draft.footer.as_ref(), kind);
            None
        } else {
            optional(
                &mut errors,
                "footer.text",
                draft.footer.as_deref(),
                FOOTER_MAX,
                false,
            )
        };
        let header = draft
            .header
            .as_ref()
            .and_then(|header| self::header(&mut errors, kind, header));
        match action {
            Some(action) if errors.is_empty() => Ok(Self {
                header,
                body,
                footer,
                action,
            }),
            _ => Err(errors),
        }
    }
}

fn header(errors: &mut ValidationErrors, kind: &str, header: &HeaderDraft) -> Option<InteractiveHeader> {
    // Lists and Flows take a text header only; location requests take none (Meta's pages for each kind).
    let media_allowed = matches!(kind, "button" | "cta_url");
    if kind == "location_request_message" {
        errors.push(InvalidValue::new("is not used by a `location_request_message` message").at("header"));
        return None;
    }
    match header.kind.as_str() {
        "text" => required(
            errors,
            "header.text",
            header.text.as_deref(),
            HEADER_TEXT_MAX,
            false,
        )
        .map(InteractiveHeader::Text),
        media @ ("image" | "video" | "document") if media_allowed => {
            let field = format!("header.{media}.media_id");
            let id = match header.media_id.as_deref() {
                Some(id) => errors.check(&field, MediaId::parse(id)),
                None => {
                    errors.push(InvalidValue::new("is required").at(&field));
                    None
                }
            };
            let kind = MediaKind::parse(media).ok()?;
            let filename = match (kind, header.filename.as_deref()) {
                (MediaKind::Document, Some(name)) => {
                    errors.check("header.document.filename", crate::values::FileName::parse(name))
                }
                (_, Some(_)) => {
                    errors.push(
                        InvalidValue::new("only a document header has a filename").at("header.filename"),
                    );
                    None
                }
                (_, None) => None,
            };
            id.map(|id| {
                InteractiveHeader::Media(MediaAttachment {
                    kind,
                    source: MediaSource::Stored(id),
                    filename,
                })
            })
        }
        "image" | "video" | "document" => {
            errors.push(
                InvalidValue::new(format!("a `{kind}` message takes a text header only")).at("header.type"),
            );
            None
        }
        other => {
            errors.push(
                InvalidValue::new(format!("must be text, image, video or document, not `{other}`"))
                    .at("header.type"),
            );
            None
        }
    }
}

/// The list under `field`, present and holding 1 to `max` items; records what is wrong otherwise.
fn one_to<'a, T>(
    errors: &mut ValidationErrors,
    field: &str,
    list: Option<&'a Vec<T>>,
    max: usize,
    what: &str,
) -> Option<&'a Vec<T>> {
    let Some(list) = list else {
        errors.push(InvalidValue::new("is required").at(field));
        return None;
    };
    if list.is_empty() || list.len() > max {
        errors.push(InvalidValue::new(format!("must hold 1 to {max} {what}, got {}", list.len())).at(field));
        return None;
    }
    Some(list)
}

fn buttons(errors: &mut ValidationErrors, draft: &InteractiveDraft) -> Option<InteractiveAction> {
    let action = &draft.action;
    absent(errors, "action.sections", action.sections.as_ref(), "button");
    absent(errors, "action.button", action.button.as_ref(), "button");
    let drafts = one_to(
        errors,
        "action.buttons",
        action.buttons.as_ref(),
        BUTTONS_MAX,
        "buttons",
    )?;
    let mut ids = HashSet::new();
    let mut titles = HashSet::new();
    let mut buttons = Vec::with_capacity(drafts.len());
    for (i, button) in drafts.iter().enumerate() {
        let at = |field: &str| format!("action.buttons[{i}].{field}");
        if button.kind.as_deref().is_some_and(|kind| kind != "reply") {
            errors.push(InvalidValue::new("must be `reply`").at(at("type")));
        }
        let id = required(
            errors,
            &at("reply.id"),
            button.id.as_deref(),
            BUTTON_ID_MAX,
            false,
        );
        let title = required(
            errors,
            &at("reply.title"),
            button.title.as_deref(),
            BUTTON_TITLE_MAX,
            false,
        );
        // Meta refuses two buttons with the same id or the same title: the reply could not say which was tapped.
        if let Some(id) = &id
            && !ids.insert(id.as_str().to_owned())
        {
            errors.push(InvalidValue::new("must differ from the other buttons' ids").at(at("reply.id")));
        }
        if let Some(title) = &title
            && !titles.insert(title.as_str().to_owned())
        {
            errors
                .push(InvalidValue::new("must differ from the other buttons' titles").at(at("reply.title")));
        }
        if let (Some(id), Some(title)) = (id, title) {
            buttons.push(ReplyButton { id, title });
        }
    }
    Some(InteractiveAction::Buttons(buttons))
}

fn list(errors: &mut ValidationErrors, draft: &InteractiveDraft) -> Option<InteractiveAction> {
    let action = &draft.action;
    absent(errors, "action.buttons", action.buttons.as_ref(), "list");
    let button = required(
        errors,
        "action.button",
        action.button.as_deref(),
        LIST_BUTTON_MAX,
        false,
    );
    let drafts = one_to(
        errors,
        "action.sections",
        action.sections.as_ref(),
        SECTIONS_MAX,
        "sections",
    )?;
    let total: usize = drafts.iter().map(|s| s.rows.len()).sum();
    if total > ROWS_MAX {
        errors.push(
            InvalidValue::new(format!(
                "must hold at most {ROWS_MAX} rows in all sections together, got {total}"
            ))
            .at("action.sections"),
        );
    }
    let mut ids = HashSet::new();
    let mut sections = Vec::with_capacity(drafts.len());
    for (s, section) in drafts.iter().enumerate() {
        let field = format!("action.sections[{s}].title");
        let title = match section.title.as_deref() {
            Some(title) => text(errors, &field, title, SECTION_TITLE_MAX, false),
            None if drafts.len() > 1 => {
                errors.push(InvalidValue::new("is required when there is more than one section").at(&field));
                None
            }
            None => None,
        };
        if section.rows.is_empty() {
            errors.push(
                InvalidValue::new("must hold at least one row").at(format!("action.sections[{s}].rows")),
            );
        }
        let mut rows = Vec::with_capacity(section.rows.len());
        for (r, row) in section.rows.iter().enumerate() {
            let at = |field: &str| format!("action.sections[{s}].rows[{r}].{field}");
            let id = required(errors, &at("id"), row.id.as_deref(), ROW_ID_MAX, false);
            if let Some(id) = &id
                && !ids.insert(id.as_str().to_owned())
            {
                errors.push(InvalidValue::new("must differ from every other row's id").at(at("id")));
            }
            let title = required(errors, &at("title"), row.title.as_deref(), ROW_TITLE_MAX, false);
            let description = optional(
                errors,
                &at("description"),
                row.description.as_deref(),
                ROW_DESCRIPTION_MAX,
                false,
            );
            if let (Some(id), Some(title)) = (id, title) {
                rows.push(ListRow {
                    id,
                    title,
                    description,
                });
            }
        }
        sections.push(ListSection { title, rows });
    }
    Some(InteractiveAction::List {
        button: button?,
        sections,
    })
}

fn named(errors: &mut ValidationErrors, draft: &InteractiveDraft, expected: &str) {
    match draft.action.name.as_deref() {
        Some(name) if name == expected => {}
        Some(_) => errors.push(InvalidValue::new(format!("must be `{expected}`")).at("action.name")),
        None => errors.push(InvalidValue::new(format!("is required (`{expected}`)")).at("action.name")),
    }
}

fn no_list_or_buttons(errors: &mut ValidationErrors, draft: &InteractiveDraft) {
    let kind = draft.kind.as_str();
    absent(errors, "action.buttons", draft.action.buttons.as_ref(), kind);
    absent(errors, "action.sections", draft.action.sections.as_ref(), kind);
    absent(errors, "action.button", draft.action.button.as_ref(), kind);
}

fn cta_url(errors: &mut ValidationErrors, draft: &InteractiveDraft) -> Option<InteractiveAction> {
    no_list_or_buttons(errors, draft);
    named(errors, draft, "cta_url");
    let parameters = &draft.action.parameters;
    let display_text = required(
        errors,
        "action.parameters.display_text",
        parameters.display_text.as_deref(),
        CTA_DISPLAY_TEXT_MAX,
        false,
    );
    let url = url(errors, "action.parameters.url", parameters.url.as_deref());
    Some(InteractiveAction::CtaUrl {
        display_text: display_text?,
        url: url?,
    })
}

fn location_request(errors: &mut ValidationErrors, draft: &InteractiveDraft) -> Option<InteractiveAction> {
    no_list_or_buttons(errors, draft);
    named(errors, draft, "send_location");
    Some(InteractiveAction::LocationRequest)
}

fn flow(errors: &mut ValidationErrors, draft: &InteractiveDraft) -> Option<InteractiveAction> {
    no_list_or_buttons(errors, draft);
    named(errors, draft, "flow");
    let p = &draft.action.parameters;
    let field = |name: &str| format!("action.parameters.{name}");
    if p.flow_message_version.as_deref().is_some_and(|v| v != "3") {
        errors.push(InvalidValue::new("must be \"3\"").at(field("flow_message_version")));
    }
    let flow = match (p.flow_id.as_deref(), p.flow_name.as_deref()) {
        (Some(id), None) => {
            let id = required(errors, &field("flow_id"), Some(id), 64, false);
            if let Some(id) = &id
                && !id.as_str().chars().all(|c| c.is_ascii_digit())
            {
                errors.push(InvalidValue::new("must be the Flow's numeric id").at(field("flow_id")));
            }
            id.map(FlowRef::Id)
        }
        (None, Some(name)) => {
            required(errors, &field("flow_name"), Some(name), 200, false).map(FlowRef::Name)
        }
        (Some(_), Some(_)) => {
            errors.push(InvalidValue::new("give flow_id or flow_name, not both").at(field("flow_id")));
            None
        }
        (None, None) => {
            errors.push(InvalidValue::new("flow_id or flow_name is required").at(field("flow_id")));
            None
        }
    };
    let cta = required(
        errors,
        &field("flow_cta"),
        p.flow_cta.as_deref(),
        FLOW_CTA_MAX,
        false,
    );
    if let Some(cta) = &cta
        && has_emoji(cta.as_str())
    {
        errors.push(InvalidValue::new("must not contain emoji").at(field("flow_cta")));
    }
    let token = optional(errors, &field("flow_token"), p.flow_token.as_deref(), 1000, false);
    let draft_mode = match p.mode.as_deref() {
        None | Some("published") => false,
        Some("draft") => true,
        Some(_) => {
            errors.push(InvalidValue::new("must be published or draft").at(field("mode")));
            false
        }
    };
    let screen_field = field("flow_action_payload.screen");
    let action = match p.flow_action.as_deref() {
        None | Some("navigate") => {
            if p.data_not_an_object {
                errors.push(
                    InvalidValue::new("must be a non-empty JSON object")
                        .at(field("flow_action_payload.data")),
                );
            }
            required(errors, &screen_field, p.screen.as_deref(), 200, false).map(|screen| {
                FlowAction::Navigate {
                    screen,
                    data: p.data.clone(),
                }
            })
        }
        Some("data_exchange") => {
            if p.screen.is_some() || p.data.is_some() || p.data_not_an_object {
                errors.push(
                    InvalidValue::new("is not used with flow_action `data_exchange`")
                        .at(field("flow_action_payload")),
                );
            }
            Some(FlowAction::DataExchange)
        }
        Some(_) => {
            errors.push(InvalidValue::new("must be navigate or data_exchange").at(field("flow_action")));
            None
        }
    };
    Some(InteractiveAction::Flow(Flow {
        flow: flow?,
        cta: cta?,
        token,
        draft: draft_mode,
        action: action?,
    }))
}
