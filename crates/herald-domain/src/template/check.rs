//! The matcher (`template::check`) that checks a send's variables against the stored template before anything is stored or
//! sent. Each mismatch names the part that is wrong (`header`, `body`, `button 1`, `card 2: button 0`,
//! `offer`), so a client can fix its request without reading the template.

use super::{
    BodySpec, BodyValues, ButtonKind, ButtonSpec, ButtonValue, CardSpec, CardValues, HeaderSpec, HeaderValue,
    OfferSpec, ParamName, Template, TemplateVariables,
};
use crate::attachment::MediaKind;
use crate::time::Timestamp;
use std::collections::BTreeSet;

/// The category of templates whose one variable is a one-time code.
const AUTHENTICATION: &str = "AUTHENTICATION";
/// The shorthand key of an authentication template's code (docs/api.md §4.1).
const CODE_KEY: &str = "code";

/// Why a send's variables do not fit its template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateCheckError {
    /// The template exists but is not `APPROVED`.
    #[error("template is {0}, not APPROVED")]
    NotApproved(String),
    /// Counts, names or presence differ; the text says expected vs given.
    #[error("{0}")]
    Mismatch(String),
    /// A file of one kind for a header of another; `part` names the header (`the template header`,
    /// `card 2's header`).
    #[error("{part} expects {expected}, got {got}")]
    HeaderMediaMismatch {
        part: String,
        expected: &'static str,
        got: &'static str,
    },
}

/// The shorthand `"variables": {"code": "123456"}` of an authentication template, written out: the code
/// fills the body's one variable and the code button's URL parameter, as the network wants it for copy-code,
/// one-tap and zero-tap templates alike. Any other variables, and templates of other categories, are left as
/// they are (a named template with a `code` variable keeps meaning that variable).
pub fn expand_code_shorthand(template: &Template, variables: &mut TemplateVariables) {
    let is_code_template = template.category.eq_ignore_ascii_case(AUTHENTICATION)
        && matches!(template.structure.body, BodySpec::Positional(1));
    let only_code = variables.header.is_none()
        && variables.buttons.is_empty()
        && variables.cards.is_empty()
        && variables.offer.is_none();
    let code = match &variables.body {
        BodyValues::Named(pairs) => match pairs.as_slice() {
            [(name, code)] if name.as_str() == CODE_KEY => Some(code.clone()),
            _ => None,
        },
        BodyValues::Positional(_) => None,
    };
    let (true, true, Some(code)) = (is_code_template, only_code, code) else {
        return;
    };
    variables.buttons = template
        .structure
        .buttons
        .iter()
        .filter(|spec| spec.kind == ButtonKind::Url && spec.parameters == 1)
        .map(|spec| ButtonValue::new(spec.index, ButtonKind::Url, vec![code.clone()]))
        .collect();
    variables.body = BodyValues::Positional(vec![code]);
}

/// Checks that `variables` fill `template` exactly. Nothing is sent unless this passes.
///
/// # Errors
/// [`TemplateCheckError`] naming the first difference found (status, then header, body, buttons, offer,
/// cards).
pub fn check_variables(template: &Template, variables: &TemplateVariables) -> Result<(), TemplateCheckError> {
    if !template.status.is_approved() {
        return Err(TemplateCheckError::NotApproved(
            template.status.as_str().to_owned(),
        ));
    }
    let structure = &template.structure;
    check_header(&structure.header, variables.header.as_ref())?;
    check_body(&structure.body, &variables.body)?;
    check_buttons(&structure.buttons, &variables.buttons)?;
    check_offer(structure.offer, variables.offer)?;
    check_cards(&structure.cards, &variables.cards)
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn a_kind(kind: MediaKind) -> &'static str {
    match kind {
        MediaKind::Document => "a document",
        MediaKind::Image => "an image",
        MediaKind::Video => "a video",
        MediaKind::Audio => "an audio file",
        MediaKind::Sticker => "a sticker",
    }
}

fn given_kind(value: &HeaderValue) -> &'static str {
    match value {
        HeaderValue::Text(_) => "text",
        HeaderValue::NamedText(_) => "named text",
        HeaderValue::Media(media) => a_kind(media.kind),
        HeaderValue::Location(_) => "a location",
    }
}

fn check_header(spec: &HeaderSpec, given: Option<&HeaderValue>) -> Result<(), TemplateCheckError> {
    use TemplateCheckError::{HeaderMediaMismatch, Mismatch};
    match (spec, given) {
        (HeaderSpec::None, None) => Ok(()),
        (HeaderSpec::None, Some(_)) => Err(Mismatch("the template's header takes no parameter".into())),
        (HeaderSpec::Text, Some(HeaderValue::Text(values))) if values.len() == 1 => Ok(()),
        (HeaderSpec::Text, Some(HeaderValue::Text(values))) => Err(Mismatch(format!(
            "header expects 1 parameter, got {}",
            values.len()
        ))),
        (HeaderSpec::Text, None) => Err(Mismatch("header expects 1 parameter, got 0".into())),
        (HeaderSpec::NamedText(name), Some(HeaderValue::NamedText(pairs))) => match pairs.as_slice() {
            [(given, _)] if given == name => Ok(()),
            _ => Err(Mismatch(format!(
                "header expects the parameter named {}, got {}",
                name.as_str(),
                join(pairs.iter().map(|(n, _)| n.as_str()))
            ))),
        },
        (HeaderSpec::NamedText(name), Some(HeaderValue::Text(values))) => Err(Mismatch(format!(
            "header expects the parameter named {}, got {} by position",
            name.as_str(),
            values.len()
        ))),
        (HeaderSpec::NamedText(name), None) => Err(Mismatch(format!(
            "header expects the parameter named {}, got none",
            name.as_str()
        ))),
        (HeaderSpec::Text, Some(HeaderValue::NamedText(_))) => Err(Mismatch(
            "header expects 1 parameter by position, got one by name".into(),
        )),
        (HeaderSpec::Media(kind), Some(HeaderValue::Media(media))) if media.kind == *kind => Ok(()),
        (HeaderSpec::Media(kind), Some(HeaderValue::Media(media))) => Err(HeaderMediaMismatch {
            part: "the template header".into(),
            expected: a_kind(*kind),
            got: a_kind(media.kind),
        }),
        (HeaderSpec::Media(kind), _) => Err(Mismatch(format!("header expects {}", a_kind(*kind)))),
        (HeaderSpec::Location, Some(HeaderValue::Location(_))) => Ok(()),
        (HeaderSpec::Location, None) => Err(Mismatch("header expects a location".into())),
        (HeaderSpec::Text | HeaderSpec::NamedText(_) | HeaderSpec::Location, Some(other)) => {
            let expected = match spec {
                HeaderSpec::Location => "a location",
                _ => "text",
            };
            Err(Mismatch(format!(
                "header expects {expected}, got {}",
                given_kind(other)
            )))
        }
    }
}

fn check_body(spec: &BodySpec, given: &BodyValues) -> Result<(), TemplateCheckError> {
    use TemplateCheckError::Mismatch;
    match (spec, given) {
        (BodySpec::Positional(expected), BodyValues::Positional(values)) => {
            if values.len() == *expected {
                Ok(())
            } else {
                Err(Mismatch(format!(
                    "body expects {}, got {}",
                    plural(*expected, "parameter"),
                    values.len()
                )))
            }
        }
        (BodySpec::Positional(expected), BodyValues::Named(values)) => Err(Mismatch(format!(
            "body expects {} by position, got {} by name",
            plural(*expected, "parameter"),
            values.len()
        ))),
        (BodySpec::Named(names), BodyValues::Positional(values)) => {
            if names.is_empty() && values.is_empty() {
                Ok(())
            } else {
                Err(Mismatch(format!(
                    "body expects named parameters ({}), got {} by position",
                    join(names.iter().map(ParamName::as_str)),
                    values.len()
                )))
            }
        }
        (BodySpec::Named(names), BodyValues::Named(values)) => {
            let expected: BTreeSet<&str> = names.iter().map(ParamName::as_str).collect();
            let mut given = BTreeSet::new();
            for (name, _) in values {
                if !given.insert(name.as_str()) {
                    return Err(Mismatch(format!(
                        "body parameter `{}` is given twice",
                        name.as_str()
                    )));
                }
            }
            let missing: Vec<&str> = expected.difference(&given).copied().collect();
            let unknown: Vec<&str> = given.difference(&expected).copied().collect();
            if missing.is_empty() && unknown.is_empty() {
                return Ok(());
            }
            let mut detail = format!("body expects parameters named {}", join(expected.iter().copied()));
            if !missing.is_empty() {
                detail.push_str(&format!("; missing {}", join(missing.into_iter())));
            }
            if !unknown.is_empty() {
                detail.push_str(&format!("; unknown {}", join(unknown.into_iter())));
            }
            Err(Mismatch(detail))
        }
    }
}

/// How many values a button of `spec` takes at most: a quick reply's payload and a Flow's token are
/// optional; URL suffixes and coupon codes are exactly as the template says.
fn most_values(spec: &ButtonSpec) -> usize {
    match spec.kind {
        ButtonKind::QuickReply | ButtonKind::Flow => 1,
        _ => usize::from(spec.parameters),
    }
}

fn check_buttons(specs: &[ButtonSpec], given: &[ButtonValue]) -> Result<(), TemplateCheckError> {
    use TemplateCheckError::Mismatch;
    let mut seen = BTreeSet::new();
    for button in given {
        if !seen.insert(button.index) {
            return Err(Mismatch(format!("button {} is given twice", button.index)));
        }
        let spec = specs
            .iter()
            .find(|s| s.index == button.index)
            .ok_or_else(|| Mismatch(format!("the template has no button at index {}", button.index)))?;
        if spec.kind != button.kind {
            return Err(Mismatch(format!(
                "button {} is a {} button, got {}",
                button.index,
                spec.kind.sub_type(),
                button.kind.sub_type()
            )));
        }
        let count = button.values.len();
        let fits = match spec.kind {
            ButtonKind::QuickReply | ButtonKind::Flow => count <= 1,
            _ => count == usize::from(spec.parameters),
        };
        if !fits {
            return Err(Mismatch(format!(
                "button {} ({}) expects {}, got {}",
                button.index,
                spec.kind.sub_type(),
                plural(most_values(spec), "parameter"),
                count
            )));
        }
        if button.flow_action_data.is_some() && spec.kind != ButtonKind::Flow {
            return Err(Mismatch(format!(
                "button {} is a {} button: only Flow buttons take flow_action_data",
                button.index,
                spec.kind.sub_type()
            )));
        }
    }
    if let Some(missing) = specs
        .iter()
        .find(|s| s.parameters > 0 && !seen.contains(&s.index))
    {
        return Err(Mismatch(format!(
            "button {} ({}) expects {}, got none",
            missing.index,
            missing.kind.sub_type(),
            plural(usize::from(missing.parameters), "parameter")
        )));
    }
    Ok(())
}

fn check_offer(spec: Option<OfferSpec>, given: Option<Timestamp>) -> Result<(), TemplateCheckError> {
    use TemplateCheckError::Mismatch;
    match (spec, given) {
        (None, None)
        | (
            Some(OfferSpec {
                has_expiration: false,
            }),
            None,
        ) => Ok(()),
        (Some(OfferSpec { has_expiration: true }), Some(_)) => Ok(()),
        (None, Some(_)) => Err(Mismatch("offer: the template has no limited-time offer".into())),
        (
            Some(OfferSpec {
                has_expiration: false,
            }),
            Some(_),
        ) => Err(Mismatch(
            "offer: the template's limited-time offer has no expiration".into(),
        )),
        (Some(OfferSpec { has_expiration: true }), None) => Err(Mismatch(
            "offer: the limited-time offer expects its expiration (offer.expires_at)".into(),
        )),
    }
}

fn check_cards(specs: &[CardSpec], given: &[CardValues]) -> Result<(), TemplateCheckError> {
    use TemplateCheckError::{HeaderMediaMismatch, Mismatch};
    if specs.len() != given.len() {
        return Err(Mismatch(if specs.is_empty() {
            format!(
                "the template is not a carousel, got {}",
                plural(given.len(), "card")
            )
        } else {
            format!(
                "the carousel expects {}, got {}",
                plural(specs.len(), "card"),
                given.len()
            )
        }));
    }
    for (index, (spec, card)) in specs.iter().zip(given).enumerate() {
        if card.header.kind != spec.header {
            return Err(HeaderMediaMismatch {
                part: format!("card {index}'s header"),
                expected: a_kind(spec.header),
                got: a_kind(card.header.kind),
            });
        }
        let in_card = |error: TemplateCheckError| match error {
            Mismatch(detail) => Mismatch(format!("card {index}: {detail}")),
            other => other,
        };
        check_body(&spec.body, &card.body).map_err(in_card)?;
        check_buttons(&spec.buttons, &card.buttons).map_err(in_card)?;
    }
    Ok(())
}

fn join<'a>(items: impl Iterator<Item = &'a str>) -> String {
    items.collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests;
