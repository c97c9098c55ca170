//! A template send's `components`, checked against the template as the real network checks them
//! (Meta's "Sending template messages"): the header, the body, each button by index and sub_type, a
//! limited-time offer's expiration, and a carousel's cards. A wrong shape gets the network's error:
//! 132000 for counts, 132012 for a parameter of another format, 131008 for a missing one, 100 for a
//! malformed component, 131053 for a card file this number cannot use.

use serde_json::{Map, Value};

use crate::error::GraphError;
use crate::expected::{BodyParams, Button, Card, Expected, Header};
use crate::seed;
use crate::simulator::Simulator;

/// The most characters of a coupon code.
const COUPON_CODE_MAX: usize = 15;

/// What a send of this template must give: a seeded template, or one created through the simulator.
fn expected(simulator: &Simulator, waba_id: &str, name: &str, language: &str) -> Option<Expected> {
    if let Some(seeded) = seed::definition(waba_id, name, language) {
        return Some(Expected::from_definition(seeded));
    }
    let now = chrono::Utc::now();
    simulator
        .state()
        .created
        .iter()
        .find(|t| t.waba_id == waba_id && t.name == name && t.language == language)
        .map(|t| t.expected(now))
}

/// The components of one send, sorted by type.
#[derive(Default)]
struct Parts<'a> {
    header: Vec<&'a Value>,
    body: Vec<&'a Value>,
    buttons: Vec<(&'a Value, Vec<&'a Value>)>,
    offer: Option<Vec<&'a Value>>,
    carousel: Option<&'a Value>,
}

fn parts<'a>(components: &'a [Value], in_card: bool) -> Result<Parts<'a>, GraphError> {
    let mut parts = Parts::default();
    for component in components {
        let kind = component
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_ascii_lowercase);
        match kind.as_deref() {
            Some("header") => parts.header.extend(parameters(component)?),
            Some("body") => parts.body.extend(parameters(component)?),
            Some("button") => parts.buttons.push((component, parameters(component)?)),
            Some("limited_time_offer") if !in_card => parts.offer = Some(parameters(component)?),
            Some("carousel") if !in_card => parts.carousel = Some(component),
            _ => {
                return Err(GraphError::invalid_parameter(
                    "Each template component needs a type of header, body, button, limited_time_offer or \
                     carousel",
                ));
            }
        }
    }
    Ok(parts)
}

/// Finds the approved template and checks the send-time components against its definition.
pub(crate) fn check_template(
    simulator: &Simulator,
    waba_id: &str,
    phone_number_id: &str,
    object: Option<&Value>,
) -> Result<Expected, GraphError> {
    let object = object.and_then(Value::as_object);
    let name = object
        .and_then(|o| o.get("name"))
        .and_then(Value::as_str)
        .ok_or_else(|| GraphError::invalid_parameter("Param template['name'] is required"))?;
    let language = object
        .and_then(|o| o.get("language"))
        .and_then(|l| l.get("code"))
        .and_then(Value::as_str)
        .ok_or_else(|| GraphError::invalid_parameter("Param template['language']['code'] is required"))?;
    let template = expected(simulator, waba_id, name, language)
        .ok_or_else(|| GraphError::template_missing(name, language))?;
    match template.status.as_str() {
        "APPROVED" => {}
        "PAUSED" => return Err(GraphError::template_paused(name)),
        _ => return Err(GraphError::template_missing(name, language)),
    }
    let components: &[Value] = match object.and_then(|o| o.get("components")) {
        None => &[],
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(GraphError::invalid_parameter(
                "Param template['components'] must be an array",
            ));
        }
    };
    let parts = parts(components, false)?;
    check_header(&template.header, &parts.header)?;
    check_body("body", &template.body, &parts.body)?;
    check_buttons("buttons", &template.buttons, &parts.buttons)?;
    check_offer(template.offer, parts.offer.as_deref())?;
    check_carousel(simulator, phone_number_id, &template.cards, parts.carousel)?;
    Ok(template)
}

fn parameters(component: &Value) -> Result<Vec<&Value>, GraphError> {
    match component.get("parameters") {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => Ok(items.iter().collect()),
        Some(_) => Err(GraphError::invalid_parameter(
            "Param components[]['parameters'] must be an array",
        )),
    }
}

fn count_mismatch(part: &str, received: usize, expected: usize) -> GraphError {
    GraphError::template_params(format!(
        "{part}: number of localizable_params ({received}) does not match the expected number of \
         params ({expected})"
    ))
}

pub(crate) fn param_type(param: &Value) -> &str {
    param.get("type").and_then(Value::as_str).unwrap_or("")
}

fn has_text(value: Option<&Value>, key: &str) -> bool {
    value.and_then(|v| v.get(key)).is_some_and(Value::is_string)
}

fn format_mismatch(part: &str, expected: &str, param: &Value) -> GraphError {
    GraphError::parameter_format(format!(
        "{part}: Format mismatch, expected {}, received {}",
        expected.to_ascii_uppercase(),
        param_type(param).to_ascii_uppercase()
    ))
}

fn check_media(part: &str, kind: &str, params: &[&Value]) -> Result<(), GraphError> {
    match params {
        [param] if param_type(param) == kind => {
            let media = param.get(kind);
            if has_text(media, "id") || has_text(media, "link") {
                Ok(())
            } else {
                Err(GraphError::missing_parameter(format!(
                    "{part}: the {kind} parameter needs an id or a link"
                )))
            }
        }
        [param] => Err(format_mismatch(part, kind, param)),
        _ => Err(count_mismatch(part, params.len(), 1)),
    }
}

fn check_header(expected: &Header, params: &[&Value]) -> Result<(), GraphError> {
    let text = |param: &Value| param_type(param) == "text" && param.get("text").is_some_and(Value::is_string);
    match expected {
        Header::None if params.is_empty() => Ok(()),
        Header::None => Err(count_mismatch("header", params.len(), 0)),
        Header::Text => match params {
            [param] if text(param) => Ok(()),
            [param] => Err(format_mismatch("header", "text", param)),
            _ => Err(count_mismatch("header", params.len(), 1)),
        },
        Header::NamedText(name) => match params {
            [param] if text(param) && has_text(Some(param), "parameter_name") => {
                if param.get("parameter_name").and_then(Value::as_str) == Some(name.as_str()) {
                    Ok(())
                } else {
                    Err(GraphError::template_params(format!(
                        "header: parameter name does not match the expected name {name:?}"
                    )))
                }
            }
            [param] if text(param) => Err(GraphError::missing_parameter(format!(
                "header: parameter_name {name:?} is required for a template with named parameters"
            ))),
            [param] => Err(format_mismatch("header", "text", param)),
            _ => Err(count_mismatch("header", params.len(), 1)),
        },
        Header::Media(kind) => check_media("header", kind, params),
        Header::Location => match params {
            [param] if param_type(param) == "location" => {
                let location = param.get("location");
                let coordinate = |key: &str| {
                    location.and_then(|l| l.get(key)).is_some_and(|v| {
                        v.as_f64().is_some() || v.as_str().is_some_and(|s| s.parse::<f64>().is_ok())
                    })
                };
                if coordinate("latitude") && coordinate("longitude") {
                    Ok(())
                } else {
                    Err(GraphError::missing_parameter(
                        "header: the location parameter needs a latitude and a longitude",
                    ))
                }
            }
            [param] => Err(format_mismatch("header", "location", param)),
            _ => Err(count_mismatch("header", params.len(), 1)),
        },
    }
}

fn check_body(part: &str, expected: &BodyParams, params: &[&Value]) -> Result<(), GraphError> {
    for param in params {
        match param_type(param) {
            "text" if param.get("text").is_some_and(Value::is_string) => {}
            "currency" | "date_time" => {}
            other => {
                return Err(GraphError::invalid_parameter(format!(
                    "{part}: unsupported or incomplete parameter of type '{other}'"
                )));
            }
        }
    }
    match expected {
        BodyParams::Positional(n) if params.len() == *n => Ok(()),
        BodyParams::Positional(n) => Err(count_mismatch(part, params.len(), *n)),
        BodyParams::Named(names) => {
            let mut received: Vec<&str> = params
                .iter()
                .filter_map(|p| p.get("parameter_name").and_then(Value::as_str))
                .collect();
            let mut wanted: Vec<&str> = names.iter().map(String::as_str).collect();
            received.sort_unstable();
            wanted.sort_unstable();
            if received.len() == params.len() && received == wanted {
                Ok(())
            } else {
                Err(GraphError::template_params(format!(
                    "{part}: parameter names {received:?} do not match the expected names {wanted:?}"
                )))
            }
        }
    }
}

fn button_index(component: &Value) -> Option<usize> {
    match component.get("index") {
        Some(Value::String(s)) => s.parse().ok(),
        Some(Value::Number(n)) => n.as_u64().and_then(|n| usize::try_from(n).ok()),
        _ => None,
    }
}

fn check_buttons(part: &str, expected: &[Button], given: &[(&Value, Vec<&Value>)]) -> Result<(), GraphError> {
    let mut seen = Vec::new();
    for (component, params) in given {
        let index = button_index(component);
        let sub_type = component
            .get("sub_type")
            .and_then(Value::as_str)
            .map(str::to_ascii_lowercase);
        let button = index
            .and_then(|i| expected.get(i))
            .copied()
            .filter(|b| *b != Button::Static && Some(b.sub_type()) == sub_type.as_deref());
        let (Some(index), Some(button)) = (index, button) else {
            return Err(GraphError::template_params(format!(
                "{part}: the template has no {} button at index {}",
                sub_type.as_deref().unwrap_or("unknown"),
                index.map_or_else(|| "?".to_owned(), |i| i.to_string())
            )));
        };
        if seen.contains(&index) {
            return Err(GraphError::invalid_parameter(format!(
                "{part}: the button at index {index} is given twice"
            )));
        }
        seen.push(index);
        let [param] = params.as_slice() else {
            return Err(count_mismatch(part, params.len(), 1));
        };
        let object = |key: &str| param.get(key).and_then(Value::as_object);
        let fits = match button {
            Button::DynamicUrl => param_type(param) == "text" && has_text(Some(param), "text"),
            Button::QuickReply => param_type(param) == "payload" && has_text(Some(param), "payload"),
            Button::CopyCode => {
                let code = param.get("coupon_code").and_then(Value::as_str);
                if code.is_some_and(|c| c.chars().count() > COUPON_CODE_MAX) {
                    return Err(GraphError::invalid_parameter(format!(
                        "{part}: coupon_code must be at most {COUPON_CODE_MAX} characters"
                    )));
                }
                param_type(param) == "coupon_code" && code.is_some()
            }
            Button::Flow => param_type(param) == "action" && object("action").is_some_and(flow_action_fits),
            Button::Static => false,
        };
        if !fits {
            return Err(GraphError::invalid_parameter(format!(
                "{part}: the {} button at index {index} has an unsupported or incomplete parameter of \
                 type '{}'",
                button.sub_type(),
                param_type(param)
            )));
        }
    }
    if let Some((index, button)) = expected
        .iter()
        .enumerate()
        .find(|(i, b)| b.required() && !seen.contains(i))
    {
        let kind = match button {
            Button::CopyCode => "Copy code",
            _ => "Url",
        };
        return Err(GraphError::missing_parameter(format!(
            "{part}: Button at index {index} of type {kind} requires a parameter"
        )));
    }
    Ok(())
}

/// A Flow button's `action`: an optional `flow_token` string and an optional `flow_action_data` object.
fn flow_action_fits(action: &Map<String, Value>) -> bool {
    action
        .keys()
        .all(|k| matches!(k.as_str(), "flow_token" | "flow_action_data"))
        && action.get("flow_token").is_none_or(Value::is_string)
        && action.get("flow_action_data").is_none_or(Value::is_object)
}

fn check_offer(expected: Option<bool>, given: Option<&[&Value]>) -> Result<(), GraphError> {
    match (expected, given) {
        (None | Some(false), None) => Ok(()),
        (None | Some(false), Some(_)) => Err(GraphError::invalid_parameter(
            "limited_time_offer: the template has no limited-time offer with an expiration",
        )),
        (Some(true), None) => Err(GraphError::missing_parameter(
            "limited_time_offer: expiration_time_ms is required",
        )),
        (Some(true), Some(params)) => match params {
            [param]
                if param_type(param) == "limited_time_offer"
                    && param
                        .get("limited_time_offer")
                        .and_then(|o| o.get("expiration_time_ms"))
                        .is_some_and(|ms| ms.as_i64().is_some_and(|ms| ms > 0)) =>
            {
                Ok(())
            }
            [_] => Err(GraphError::invalid_parameter(
                "limited_time_offer: the parameter needs limited_time_offer['expiration_time_ms'], a Unix \
                 time in milliseconds",
            )),
            _ => Err(count_mismatch("limited_time_offer", params.len(), 1)),
        },
    }
}

fn check_carousel(
    simulator: &Simulator,
    phone_number_id: &str,
    expected: &[Card],
    given: Option<&Value>,
) -> Result<(), GraphError> {
    let Some(carousel) = given else {
        return if expected.is_empty() {
            Ok(())
        } else {
            Err(GraphError::missing_parameter(
                "carousel: the template is a carousel; its cards are required",
            ))
        };
    };
    if expected.is_empty() {
        return Err(GraphError::invalid_parameter(
            "carousel: the template is not a carousel",
        ));
    }
    let cards = carousel
        .get("cards")
        .and_then(Value::as_array)
        .ok_or_else(|| GraphError::invalid_parameter("Param carousel['cards'] must be an array"))?;
    if cards.len() != expected.len() {
        // The network answers a card count other than the template's with 132012 (reported by Kapso's
        // carousel guide), not with 132000.
        return Err(GraphError::parameter_format(format!(
            "carousel: number of cards ({}) does not match the expected number of cards ({})",
            cards.len(),
            expected.len()
        )));
    }
    let mut seen = Vec::new();
    for card in cards {
        let index = card
            .get("card_index")
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())
            .filter(|i| *i < expected.len() && !seen.contains(i))
            .ok_or_else(|| {
                GraphError::invalid_parameter(
                    "carousel: each card needs a distinct card_index from 0 to the number of cards - 1",
                )
            })?;
        seen.push(index);
        let Some(spec) = expected.get(index) else {
            continue;
        };
        let components: &[Value] = card
            .get("components")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let parts = parts(components, true)?;
        let part = format!("cards[{index}]");
        check_media(&format!("{part} header"), &spec.header, &parts.header)?;
        check_card_media(simulator, phone_number_id, &spec.header, &parts.header)?;
        check_body(&format!("{part} body"), &spec.body, &parts.body)?;
        check_buttons(&format!("{part} buttons"), &spec.buttons, &parts.buttons)?;
    }
    Ok(())
}

/// A card's media id must be one this phone number uploaded, of the card's kind.
fn check_card_media(
    simulator: &Simulator,
    phone_number_id: &str,
    kind: &str,
    params: &[&Value],
) -> Result<(), GraphError> {
    let Some(id) = params
        .first()
        .and_then(|p| p.get(kind))
        .and_then(|m| m.get("id"))
        .and_then(Value::as_str)
    else {
        return Ok(());
    };
    let state = simulator.state();
    let media = state
        .media(id)
        .filter(|m| m.phone_number_id == phone_number_id)
        .ok_or_else(|| {
            GraphError::media_unusable(format!(
                "Media id {id} does not exist or was not uploaded by this phone number"
            ))
        })?;
    let fits = match kind {
        "image" => matches!(media.mime_type.as_str(), "image/jpeg" | "image/png"),
        _ => media.mime_type.starts_with("video/"),
    };
    if fits {
        Ok(())
    } else {
        Err(GraphError::media_unusable(format!(
            "Media id {id} is {}, which cannot be sent as {kind}",
            media.mime_type
        )))
    }
}
