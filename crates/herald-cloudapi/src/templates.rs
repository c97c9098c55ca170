//! Template definitions as `GET /{waba_id}/message_templates` returns them (docs/cloud-api.md §3), parsed into
//! what a send must fill.

use herald_domain::attachment::MediaKind;
use herald_domain::network::QualityScore;
use herald_domain::ports::NetworkTemplate;
use herald_domain::template::{
    BodySpec, ButtonKind, ButtonSpec, HeaderSpec, LanguageCode, ParamName, TemplateHealth, TemplateName,
    TemplateStatus, TemplateStructure,
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

    let mut header = HeaderSpec::None;
    let mut body = BodySpec::Positional(0);
    let mut buttons = Vec::new();
    for component in &definition.components {
        match component.kind.to_ascii_uppercase().as_str() {
            "HEADER" => header = parse_header(component)?,
            "BODY" => body = parse_body(component.text.as_deref().unwrap_or_default(), named)?,
            "BUTTONS" => buttons = parse_buttons(&component.buttons)?,
            // Footers never take values; carousels and limited-time offers are not something Herald fills.
            _ => {}
        }
    }
    Ok(NetworkTemplate {
        name,
        language,
        status,
        category: definition.category.unwrap_or_default(),
        structure: TemplateStructure {
            header,
            body,
            buttons,
        },
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

fn parse_header(component: &Component) -> Result<HeaderSpec, String> {
    let format = component.format.as_deref().unwrap_or("TEXT");
    match format.to_ascii_uppercase().as_str() {
        "TEXT" => {
            let text = component.text.as_deref().unwrap_or_default();
            if placeholders(text).is_empty() {
                Ok(HeaderSpec::None)
            } else {
                Ok(HeaderSpec::Text)
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
}
