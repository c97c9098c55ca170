//! `type: "interactive"` sends: reply buttons, lists, CTA URL buttons, location requests and Flows, with
//! Meta's limits (docs/cloud-api.md §1.4). Catalog kinds (`product`, `product_list`, `catalog_message`) are
//! refused: the simulator has no catalog for them to name.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::fields::{bad, check_media_ref, optional_text, required_array, required_object, required_text};
use crate::error::GraphError;

/// Body text of every interactive kind served here.
const BODY_MAX: usize = 1024;
/// Header text and footer text.
const HEADER_TEXT_MAX: usize = 60;
const FOOTER_MAX: usize = 60;
const BUTTONS: (usize, usize) = (1, 3);
const BUTTON_ID_MAX: usize = 256;
const BUTTON_TITLE_MAX: usize = 20;
/// The list's button, the CTA URL's display text and the Flow's CTA share this cap.
const CTA_MAX: usize = 20;
const SECTIONS: (usize, usize) = (1, 10);
/// Rows across all sections together.
const ROWS_MAX: usize = 10;
const ROW_ID_MAX: usize = 200;
const ROW_TITLE_MAX: usize = 24;
const ROW_DESCRIPTION_MAX: usize = 72;
const SECTION_TITLE_MAX: usize = 24;

/// Which header types a kind takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Headers {
    None,
    TextOnly,
    TextOrMedia,
}

pub(crate) fn check(object: &Map<String, Value>) -> Result<(), GraphError> {
    let kind = required_text(object, "type", "interactive['type']", usize::MAX)?;
    let headers = match kind {
        "button" | "cta_url" | "flow" => Headers::TextOrMedia,
        "list" => Headers::TextOnly,
        "location_request_message" => Headers::None,
        "product" | "product_list" | "catalog_message" => {
            return Err(bad(format!(
                "Param interactive['type'] {kind} needs a product catalog, which this simulator does not have"
            )));
        }
        other => {
            return Err(bad(format!(
                "Param interactive['type'] must be one of button, list, cta_url, location_request_message, \
                 flow; got {other}"
            )));
        }
    };
    check_header(object, headers)?;
    let body = required_object(object, "body", "interactive['body']")?;
    required_text(body, "text", "interactive['body']['text']", BODY_MAX)?;
    if let Some(footer) = object.get("footer") {
        if headers == Headers::None {
            return Err(bad(format!(
                "Param interactive['footer'] is not allowed for {kind}"
            )));
        }
        let footer = footer
            .as_object()
            .ok_or_else(|| bad("Param interactive['footer'] must be an object"))?;
        required_text(footer, "text", "interactive['footer']['text']", FOOTER_MAX)?;
    }
    let action = required_object(object, "action", "interactive['action']")?;
    match kind {
        "button" => check_buttons(action),
        "list" => check_list(action),
        "cta_url" => check_cta_url(action),
        "location_request_message" => check_name(action, "send_location"),
        _ => check_flow(action),
    }
}

fn check_header(object: &Map<String, Value>, headers: Headers) -> Result<(), GraphError> {
    let Some(header) = object.get("header") else {
        return Ok(());
    };
    if headers == Headers::None {
        return Err(bad(
            "Param interactive['header'] is not allowed for this interactive type",
        ));
    }
    let header = header
        .as_object()
        .ok_or_else(|| bad("Param interactive['header'] must be an object"))?;
    match required_text(header, "type", "interactive['header']['type']", usize::MAX)? {
        "text" => required_text(header, "text", "interactive['header']['text']", HEADER_TEXT_MAX).map(|_| ()),
        kind @ ("image" | "video" | "document") if headers == Headers::TextOrMedia => {
            let path = format!("interactive['header']['{kind}']");
            check_media_ref(required_object(header, kind, &path)?, &path)
        }
        other => Err(bad(format!(
            "Param interactive['header']['type'] {other} is not allowed for this interactive type"
        ))),
    }
}

fn check_buttons(action: &Map<String, Value>) -> Result<(), GraphError> {
    let buttons = required_array(action, "buttons", "interactive['action']['buttons']", BUTTONS)?;
    let mut ids = HashSet::new();
    let mut titles = HashSet::new();
    for (i, button) in buttons.iter().enumerate() {
        let path = format!("interactive['action']['buttons'][{i}]");
        let button = button
            .as_object()
            .ok_or_else(|| bad(format!("Param {path} must be an object")))?;
        if button.get("type").and_then(Value::as_str) != Some("reply") {
            return Err(bad(format!("Param {path}['type'] must be reply")));
        }
        let reply = required_object(button, "reply", &format!("{path}['reply']"))?;
        let id = required_text(reply, "id", &format!("{path}['reply']['id']"), BUTTON_ID_MAX)?;
        let title = required_text(
            reply,
            "title",
            &format!("{path}['reply']['title']"),
            BUTTON_TITLE_MAX,
        )?;
        if !ids.insert(id) {
            return Err(bad(format!(
                "Param {path}['reply']['id'] duplicates another button's id"
            )));
        }
        if !titles.insert(title) {
            return Err(bad(format!(
                "Param {path}['reply']['title'] duplicates another button's title"
            )));
        }
    }
    Ok(())
}

fn check_list(action: &Map<String, Value>) -> Result<(), GraphError> {
    required_text(action, "button", "interactive['action']['button']", CTA_MAX)?;
    let sections = required_array(action, "sections", "interactive['action']['sections']", SECTIONS)?;
    let mut rows_total = 0;
    let mut ids = HashSet::new();
    for (i, section) in sections.iter().enumerate() {
        let path = format!("interactive['action']['sections'][{i}]");
        let section = section
            .as_object()
            .ok_or_else(|| bad(format!("Param {path} must be an object")))?;
        let title_path = format!("{path}['title']");
        if sections.len() > 1 {
            required_text(section, "title", &title_path, SECTION_TITLE_MAX)?;
        } else {
            optional_text(section, "title", &title_path, SECTION_TITLE_MAX)?;
        }
        let rows = required_array(section, "rows", &format!("{path}['rows']"), (1, ROWS_MAX))?;
        rows_total += rows.len();
        if rows_total > ROWS_MAX {
            return Err(bad(format!(
                "Param interactive['action']['sections'] holds more than {ROWS_MAX} rows in total"
            )));
        }
        for (j, row) in rows.iter().enumerate() {
            let path = format!("{path}['rows'][{j}]");
            let row = row
                .as_object()
                .ok_or_else(|| bad(format!("Param {path} must be an object")))?;
            let id = required_text(row, "id", &format!("{path}['id']"), ROW_ID_MAX)?;
            required_text(row, "title", &format!("{path}['title']"), ROW_TITLE_MAX)?;
            optional_text(
                row,
                "description",
                &format!("{path}['description']"),
                ROW_DESCRIPTION_MAX,
            )?;
            if !ids.insert(id) {
                return Err(bad(format!("Param {path}['id'] duplicates another row's id")));
            }
        }
    }
    Ok(())
}

fn check_name(action: &Map<String, Value>, name: &str) -> Result<(), GraphError> {
    if action.get("name").and_then(Value::as_str) == Some(name) {
        Ok(())
    } else {
        Err(bad(format!("Param interactive['action']['name'] must be {name}")))
    }
}

fn check_cta_url(action: &Map<String, Value>) -> Result<(), GraphError> {
    check_name(action, "cta_url")?;
    let parameters = required_object(action, "parameters", "interactive['action']['parameters']")?;
    required_text(
        parameters,
        "display_text",
        "interactive['action']['parameters']['display_text']",
        CTA_MAX,
    )?;
    let url = required_text(
        parameters,
        "url",
        "interactive['action']['parameters']['url']",
        usize::MAX,
    )?;
    if url.starts_with("https://") || url.starts_with("http://") {
        Ok(())
    } else {
        Err(bad(
            "Param interactive['action']['parameters']['url'] must be an http(s) URL",
        ))
    }
}

fn check_flow(action: &Map<String, Value>) -> Result<(), GraphError> {
    check_name(action, "flow")?;
    let parameters = required_object(action, "parameters", "interactive['action']['parameters']")?;
    let field = |name: &str| format!("interactive['action']['parameters']['{name}']");
    if parameters.get("flow_message_version").and_then(Value::as_str) != Some("3") {
        return Err(bad(format!(
            "Param {} must be \"3\"",
            field("flow_message_version")
        )));
    }
    let id = optional_text(parameters, "flow_id", &field("flow_id"), usize::MAX)?;
    let name = optional_text(parameters, "flow_name", &field("flow_name"), usize::MAX)?;
    if id.is_some() == name.is_some() {
        return Err(bad(format!(
            "Params {} and {}: exactly one is required",
            field("flow_id"),
            field("flow_name")
        )));
    }
    required_text(parameters, "flow_cta", &field("flow_cta"), CTA_MAX)?;
    optional_text(parameters, "flow_token", &field("flow_token"), usize::MAX)?;
    if let Some(mode) = parameters.get("mode")
        && !matches!(mode.as_str(), Some("draft" | "published"))
    {
        return Err(bad(format!("Param {} must be draft or published", field("mode"))));
    }
    let payload_path = field("flow_action_payload");
    match parameters.get("flow_action").map(Value::as_str) {
        // Without a flow_action Meta decides (navigate to the Flow's first screen), so no payload is needed.
        None if !parameters.contains_key("flow_action_payload") => Ok(()),
        None | Some(Some("navigate")) => {
            let payload = required_object(parameters, "flow_action_payload", &payload_path)?;
            required_text(
                payload,
                "screen",
                &format!("{payload_path}['screen']"),
                usize::MAX,
            )?;
            match payload.get("data") {
                None => Ok(()),
                Some(Value::Object(data)) if !data.is_empty() => Ok(()),
                Some(_) => Err(bad(format!(
                    "Param {payload_path}['data'] must be a non-empty object"
                ))),
            }
        }
        Some(Some("data_exchange")) if !parameters.contains_key("flow_action_payload") => Ok(()),
        Some(Some("data_exchange")) => Err(bad(format!(
            "Param {payload_path} is not allowed with flow_action data_exchange"
        ))),
        Some(_) => Err(bad(format!(
            "Param {} must be navigate or data_exchange",
            field("flow_action")
        ))),
    }
}
