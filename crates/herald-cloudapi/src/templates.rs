//! Template definitions as `GET /{waba_id}/message_templates` returns them (docs/cloud-api.md §3), parsed into
//! what a send must fill.

use herald_domain::attachment::MediaKind;
use herald_domain::network::QualityScore;
use herald_domain::ports::NetworkTemplate;
use herald_domain::template::{
    BodySpec, ButtonKind, ButtonSpec, CardSpec, HeaderSpec, LanguageCode, OfferSpec, ParamName,
    TemplateHealth, TemplateName, TemplateStatus, TemplateStructure,
};
use serde::Deserialize;

/// The fields asked for when listing templates.
pub(crate) const FIELDS: &str =
    "name,status,language,category,components,id,parameter_format,quality_score,rejected_reason";

/// One page of the template list.
#[derive(Debug, Deserialize)]
pub(crate) struct TemplatePage {
    #[serde(default)]
    pub data: Vec<serde_json::Value>,
    #[serde(default)]
    pub paging: Option<Paging>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Paging {
    #[serde(default)]
    pub cursors: Option<Cursors>,
    #[serde(default)]
    pub next: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Cursors {
    #[serde(default)]
    pub after: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Definition {
    name: String,
    language: String,
    status: String,
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    parameter_format: Option<String>,
    #[serde(default)]
    components: Vec<Component>,
    /// `{"score": "GREEN", "date": …}`; absent until the network rates the template.
    #[serde(default)]
    quality_score: Option<QualityField>,
    /// `NONE` unless rejected.
    #[serde(default)]
    rejected_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct QualityField {
    #[serde(default)]
    score: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Component {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    buttons: Vec<Button>,
    #[serde(default)]
    limited_time_offer: Option<Offer>,
    #[serde(default)]
    cards: Vec<Card>,
}

#[derive(Debug, Deserialize)]
struct Offer {
    #[serde(default)]
    has_expiration: bool,
}

/// A carousel card: its own header, body and buttons components.
#[derive(Debug, Deserialize)]
struct Card {
    #[serde(default)]
    components: Vec<Component>,
}

#[derive(Debug, Deserialize)]
struct Button {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    url: Option<String>,
}

/// Parses one template definition.
///
/// # Errors
/// A human-readable reason when the definition cannot be used (the caller logs it and skips the template).
pub(crate) fn parse_template(value: serde_json::Value) -> Result<NetworkTemplate, String> {
    let definition: Definition =
        serde_json::from_value(value).map_err(|e| format!("not a template definition: {e}"))?;
    let name =
        TemplateName::parse(&definition.name).map_err(|e| format!("name `{}`: {e}", definition.name))?;
    let language = LanguageCode::parse(&definition.language)
        .map_err(|e| format!("language `{}`: {e}", definition.language))?;
    let status = TemplateStatus::parse(&definition.status)
        .map_err(|e| format!("status `{}`: {e}", definition.status))?;
    let named = definition
        .parameter_format
        .as_deref()
        .is_some_and(|f| f.eq_ignore_ascii_case("NAMED"));

    let mut structure = TemplateStructure::default();
    for component in &definition.components {
        match component.kind.to_ascii_uppercase().as_str() {
            "HEADER" => structure.header = parse_header(component, named)?,
            "BODY" => structure.body = parse_body(component.text.as_deref().unwrap_or_default(), named)?,
            "BUTTONS" => structure.buttons = parse_buttons(&component.buttons)?,
            "LIMITED_TIME_OFFER" => {
                structure.offer = Some(OfferSpec {
                    has_expiration: component
                        .limited_time_offer
                        .as_ref()
                        .is_some_and(|offer| offer.has_expiration),
                });
            }
            "CAROUSEL" => {
                structure.cards = component
                    .cards
                    .iter()
                    .enumerate()
                    .map(|(i, card)| parse_card(card, named).map_err(|e| format!("card {i}: {e}")))
                    .collect::<Result<_, _>>()?;
            }
            // Footers never take values.
            _ => {}
        }
    }
    if definition
        .category
        .as_deref()
        .is_some_and(|c| c.eq_ignore_ascii_case("AUTHENTICATION"))
    {
        // The network writes an authentication template's text itself ("{{1}} is your verification code"):
        // the code is its one variable, whatever text (if any) the listing shows.
        structure.body = BodySpec::Positional(1);
    }
    Ok(NetworkTemplate {
        name,
        language,
        status,
        category: definition.category.unwrap_or_default(),
        structure,
        network_id: definition.id,
        health: TemplateHealth {
            // A rating the network words differently is left out rather than failing the template.
            quality: definition
                .quality_score
                .and_then(|q| q.score)
                .and_then(|score| QualityScore::parse(&score).ok()),
            rejected_reason: TemplateHealth::reason(definition.rejected_reason.as_deref()),
            updated_at: None,
        },
    })
}

/// A carousel card: a media header (image or video), a body, and its buttons.
fn parse_card(card: &Card, named: bool) -> Result<CardSpec, String> {
    let mut header = None;
    let mut body = BodySpec::Positional(0);
    let mut buttons = Vec::new();
    for component in &card.components {
        match component.kind.to_ascii_uppercase().as_str() {
            "HEADER" => match parse_header(component, named)? {
                HeaderSpec::Media(kind @ (MediaKind::Image | MediaKind::Video)) => header = Some(kind),
                _ => return Err("a card's header must be an image or a video".to_owned()),
            },
            "BODY" => body = parse_body(component.text.as_deref().unwrap_or_default(), named)?,
            "BUTTONS" => buttons = parse_buttons(&component.buttons)?,
            _ => {}
        }
    }
    Ok(CardSpec {
        header: header.ok_or("a card has no media header")?,
        body,
        buttons,
    })
}

fn parse_header(component: &Component, named: bool) -> Result<HeaderSpec, String> {
    let format = component.format.as_deref().unwrap_or("TEXT");
    match format.to_ascii_uppercase().as_str() {
        "TEXT" => {
            let text = component.text.as_deref().unwrap_or_default();
            match placeholders(text).first() {
                None => Ok(HeaderSpec::None),
                Some(first) if named || !first.bytes().all(|b| b.is_ascii_digit()) => {
                    let name =
                        ParamName::parse(first).map_err(|e| format!("header parameter `{first}`: {e}"))?;
                    Ok(HeaderSpec::NamedText(name))
                }
                Some(_) => Ok(HeaderSpec::Text),
            }
        }
        "IMAGE" => Ok(HeaderSpec::Media(MediaKind::Image)),
        "VIDEO" => Ok(HeaderSpec::Media(MediaKind::Video)),
        "DOCUMENT" => Ok(HeaderSpec::Media(MediaKind::Document)),
        "LOCATION" => Ok(HeaderSpec::Location),
        other => Err(format!("header format `{other}` is not supported")),
    }
}

fn parse_body(text: &str, named: bool) -> Result<BodySpec, String> {
    let found = placeholders(text);
    let positional = found.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit()));
    if named || !positional {
        let mut names: Vec<ParamName> = Vec::new();
        for placeholder in found {
            let name =
                ParamName::parse(placeholder).map_err(|e| format!("body parameter `{placeholder}`: {e}"))?;
            if !names.contains(&name) {
                names.push(name);
            }
        }
        Ok(BodySpec::Named(names))
    } else {
        let mut numbers: Vec<&str> = found;
        numbers.sort_unstable();
        numbers.dedup();
        Ok(BodySpec::Positional(numbers.len()))
    }
}

fn parse_buttons(definitions: &[Button]) -> Result<Vec<ButtonSpec>, String> {
    definitions
        .iter()
        .enumerate()
        .map(|(position, button)| {
            let index =
                u8::try_from(position).map_err(|_| format!("too many buttons ({})", definitions.len()))?;
            let (kind, parameters) = match button.kind.to_ascii_uppercase().as_str() {
                "URL" => {
                    if button
                        .url
                        .as_deref()
                        .is_some_and(|url| !placeholders(url).is_empty())
                    {
                        (ButtonKind::Url, 1)
                    } else {
                        (ButtonKind::Static, 0)
                    }
                }
                "QUICK_REPLY" => (ButtonKind::QuickReply, 0),
                "COPY_CODE" => (ButtonKind::CopyCode, 1),
                // An authentication template's code button (copy code, one-tap, zero-tap): the send gives
                // the code as its URL parameter.
                "OTP" => (ButtonKind::Url, 1),
                "FLOW" => (ButtonKind::Flow, 0),
                _ => (ButtonKind::Static, 0),
            };
            Ok(ButtonSpec {
                index,
                kind,
                parameters,
            })
        })
        .collect()
}

/// The trimmed contents of every `{{…}}` in `text`, in order of appearance.
fn placeholders(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = rest.get(start + 2..).unwrap_or_default();
        let Some(end) = after.find("}}") else { break };
        if let Some(inner) = after.get(..end) {
            found.push(inner.trim());
        }
        rest = after.get(end + 2..).unwrap_or_default();
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_found_in_order() {
        assert_eq!(placeholders("Hi {{1}}, {{2}} and {{1}}"), ["1", "2", "1"]);
        assert_eq!(placeholders("{{ name }} {{x"), ["name"]);
        assert!(placeholders("no variables").is_empty());
        assert_eq!(
            parse_body("Hi {{1}}, {{2}} and {{1}}", false),
            Ok(BodySpec::Positional(2))
        );
        assert_eq!(
            parse_body("Hi {{customer}}, {{date}} {{customer}}", false),
            Ok(BodySpec::Named(vec![
                ParamName::parse("customer").unwrap(),
                ParamName::parse("date").unwrap()
            ]))
        );
    }

    fn structure(definition: serde_json::Value) -> TemplateStructure {
        parse_template(definition).unwrap().structure
    }

    fn spec(index: u8, kind: ButtonKind, parameters: u8) -> ButtonSpec {
        ButtonSpec {
            index,
            kind,
            parameters,
        }
    }

    #[test]
    fn every_template_type_parses_into_what_a_send_fills() {
        let base = |format: &str, components: serde_json::Value| {
            serde_json::json!({ "name": "t", "language": "en_US", "status": "APPROVED",
                "parameter_format": format, "components": components })
        };
        let mut auth_definition = base(
            "POSITIONAL",
            serde_json::json!([
                { "type": "BODY", "add_security_recommendation": true },
                { "type": "BUTTONS", "buttons": [{ "type": "OTP", "otp_type": "ONE_TAP" }] },
            ]),
        );
        auth_definition["category"] = "AUTHENTICATION".into();
        let auth = structure(auth_definition);
        assert_eq!(auth.body, BodySpec::Positional(1));
        assert_eq!(auth.buttons, [spec(0, ButtonKind::Url, 1)]);

        let offer = structure(base(
            "POSITIONAL",
            serde_json::json!([
                { "type": "LIMITED_TIME_OFFER", "limited_time_offer": { "text": "Sale", "has_expiration": true } },
                { "type": "BUTTONS", "buttons": [
                    { "type": "COPY_CODE", "example": "X" },
                    { "type": "URL", "url": "https://e.com/{{1}}" },
                    { "type": "PHONE_NUMBER", "phone_number": "+1555" },
                    { "type": "FLOW", "flow_id": "1" },
                    { "type": "QUICK_REPLY", "text": "Hi" },
                ] },
            ]),
        ));
        assert_eq!(offer.offer, Some(OfferSpec { has_expiration: true }));
        assert_eq!(
            offer.buttons,
            [
                spec(0, ButtonKind::CopyCode, 1),
                spec(1, ButtonKind::Url, 1),
                spec(2, ButtonKind::Static, 0),
                spec(3, ButtonKind::Flow, 0),
                spec(4, ButtonKind::QuickReply, 0),
            ]
        );

        let card = serde_json::json!({ "components": [
            { "type": "HEADER", "format": "VIDEO" },
            { "type": "BODY", "text": "{{1}} for {{2}}" },
            { "type": "BUTTONS", "buttons": [{ "type": "URL", "url": "https://e.com/{{1}}" }] },
        ] });
        let carousel = structure(base(
            "POSITIONAL",
            serde_json::json!([
                { "type": "BODY", "text": "Hi {{1}}" },
                { "type": "CAROUSEL", "cards": [card.clone(), card] },
            ]),
        ));
        assert_eq!(carousel.body, BodySpec::Positional(1));
        assert_eq!(carousel.cards.len(), 2);
        assert_eq!(
            carousel.cards[1],
            CardSpec {
                header: MediaKind::Video,
                body: BodySpec::Positional(2),
                buttons: vec![spec(0, ButtonKind::Url, 1)],
            }
        );

        let named = structure(base(
            "NAMED",
            serde_json::json!([
                { "type": "HEADER", "format": "TEXT", "text": "Order {{order_id}}" },
                { "type": "BODY", "text": "Hi {{customer}}" },
            ]),
        ));
        assert_eq!(
            named.header,
            HeaderSpec::NamedText(ParamName::parse("order_id").unwrap())
        );
        let location = structure(base(
            "POSITIONAL",
            serde_json::json!([{ "type": "HEADER", "format": "LOCATION" }]),
        ));
        assert_eq!(location.header, HeaderSpec::Location);
        let bad_card = base(
            "POSITIONAL",
            serde_json::json!([
                { "type": "CAROUSEL", "cards": [{ "components": [{ "type": "BODY", "text": "x" }] }] },
            ]),
        );
        assert!(parse_template(bad_card).unwrap_err().contains("card 0"));
    }
}
