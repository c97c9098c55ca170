//! [`TemplateDefinition::parse`]: the top-level fields, the components, and the rules across them.

use super::buttons::{ButtonRules, buttons};
use super::carousel::{carousel, offer};
use super::examples::{example_text, examples, media_sample, placeholders};
use super::fields::{bounded, unknown};
use super::node::At;
use super::{
    BODY_MAX, BodyDefinition, CODE_EXPIRATION_MAX, Category, Component, ExampleText, FOOTER_MAX,
    FooterDefinition, HEADER_TEXT_MAX, HeaderDefinition, Node, ParameterFormat, TemplateDefinition,
};
use crate::FieldError;
use crate::attachment::MediaKind;
use crate::error::ValidationErrors;
use crate::template::{LanguageCode, TemplateName};

impl TemplateDefinition {
    /// Checks a definition written in Meta's shape (`name`, `language`, `category`, `parameter_format`,
    /// `allow_category_change`, `components`); other top-level fields are the caller's.
    ///
    /// # Errors
    /// Every rule the definition breaks, each under its path.
    pub fn parse(body: &Node) -> Result<Self, ValidationErrors> {
        let mut errors = ValidationErrors::new();
        let root = At { node: body, path: "" };
        if !root.is_object(&mut errors) {
            return Err(errors);
        }
        let name = root
            .text(&mut errors, "name", true)
            .and_then(|s| errors.check("name", TemplateName::parse(s)));
        let language = root
            .text(&mut errors, "language", true)
            .and_then(|s| errors.check("language", LanguageCode::parse(s)));
        let category =
            root.text(&mut errors, "category", true)
                .and_then(|s| match s.to_ascii_uppercase().as_str() {
                    "MARKETING" => Some(Category::Marketing),
                    "UTILITY" => Some(Category::Utility),
                    "AUTHENTICATION" => Some(Category::Authentication),
                    _ => {
                        errors.push(FieldError::new(
                            "category",
                            "must be MARKETING, UTILITY or AUTHENTICATION",
                        ));
                        None
                    }
                });
        let parameter_format = match root.text(&mut errors, "parameter_format", false) {
            None => Some(ParameterFormat::Positional),
            Some(s) if s.eq_ignore_ascii_case("POSITIONAL") => Some(ParameterFormat::Positional),
            Some(s) if s.eq_ignore_ascii_case("NAMED") => Some(ParameterFormat::Named),
            Some(_) => {
                errors.push(FieldError::new("parameter_format", "must be POSITIONAL or NAMED"));
                None
            }
        };
        let allow_category_change = root
            .boolean(&mut errors, "allow_category_change")
            .unwrap_or(false);
        let components = match (category, parameter_format) {
            (Some(category), Some(format)) => components(&mut errors, root, category, format),
            // Without the category the component rules cannot be chosen; the field's own error says why.
            _ => None,
        };
        match (name, language, category, parameter_format, components) {
            (Some(name), Some(language), Some(category), Some(parameter_format), Some(components))
                if errors.is_empty() =>
            {
                Ok(Self {
                    name,
                    language,
                    category,
                    parameter_format,
                    allow_category_change,
                    components,
                })
            }
            _ => {
                if errors.is_empty() {
                    errors.push(FieldError::new("body", "is invalid"));
                }
                Err(errors)
            }
        }
    }
}

const TYPES: [&str; 6] = [
    "HEADER",
    "BODY",
    "FOOTER",
    "BUTTONS",
    "CAROUSEL",
    "LIMITED_TIME_OFFER",
];

fn components(
    errors: &mut ValidationErrors,
    root: At<'_>,
    category: Category,
    format: ParameterFormat,
) -> Option<Vec<Component>> {
    let items = root.list(errors, "components")?;
    let mut seen: Vec<&str> = Vec::new();
    let mut parsed = Vec::new();
    for (path, node) in &items {
        let at = At { node, path };
        if !at.is_object(errors) {
            continue;
        }
        let Some(kind) = at.text(errors, "type", true) else {
            continue;
        };
        let upper = kind.to_ascii_uppercase();
        let Some(kind) = TYPES.iter().copied().find(|t| *t == upper) else {
            errors.push(FieldError::new(
                at.path_of("type"),
                format!("must be one of {}", TYPES.join(", ")),
            ));
            continue;
        };
        if seen.contains(&kind) {
            errors.push(FieldError::new(
                at.path_of("type"),
                format!("a template has one {kind} at most"),
            ));
            continue;
        }
        seen.push(kind);
        let component = match kind {
            "HEADER" => header(errors, at, format).map(Component::Header),
            "BODY" => body(errors, at, category, format).map(Component::Body),
            "FOOTER" => footer(errors, at, category).map(Component::Footer),
            "BUTTONS" => buttons(errors, at, &ButtonRules::top_level(category)).map(Component::Buttons),
            "CAROUSEL" => carousel(errors, at, format).map(Component::Carousel),
            _ => offer(errors, at),
        };
        parsed.extend(component);
    }
    if !seen.contains(&"BODY") {
        errors.push(FieldError::new("components", "needs a BODY component"));
    }
    combinations(errors, category, &seen, &parsed);
    Some(parsed)
}

/// Rules across components: what authentication, carousel and limited-time-offer templates may hold.
fn combinations(errors: &mut ValidationErrors, category: Category, seen: &[&str], parsed: &[Component]) {
    let refuse = |errors: &mut ValidationErrors, what: &str, why: &str| {
        errors.push(FieldError::new("components", format!("{what}: {why}")));
    };
    if category == Category::Authentication {
        if seen.contains(&"HEADER") || seen.contains(&"CAROUSEL") || seen.contains(&"LIMITED_TIME_OFFER") {
            refuse(
                errors,
                "AUTHENTICATION",
                "only BODY, FOOTER and one OTP button are allowed",
            );
        }
        if !seen.contains(&"BUTTONS") {
            refuse(
                errors,
                "AUTHENTICATION",
                "needs a BUTTONS component with one OTP button",
            );
        }
    }
    if seen.contains(&"CAROUSEL") {
        if category != Category::Marketing && category != Category::Utility {
            refuse(
                errors,
                "CAROUSEL",
                "only MARKETING and UTILITY templates have carousels",
            );
        }
        if seen.iter().any(|k| matches!(*k, "HEADER" | "FOOTER" | "BUTTONS")) {
            refuse(
                errors,
                "CAROUSEL",
                "a carousel template holds only BODY and CAROUSEL; headers and buttons go on its cards",
            );
        }
    }
    if let Some(Component::LimitedTimeOffer { has_expiration, .. }) = parsed
        .iter()
        .find(|c| matches!(c, Component::LimitedTimeOffer { .. }))
    {
        if category != Category::Marketing {
            refuse(
                errors,
                "LIMITED_TIME_OFFER",
                "only MARKETING templates carry an offer",
            );
        }
        if seen.contains(&"FOOTER") {
            refuse(errors, "LIMITED_TIME_OFFER", "an offer template has no FOOTER");
        }
        let copy_code = parsed.iter().any(|c| {
            matches!(c, Component::Buttons(b) if b.iter().any(|b| matches!(b, super::ButtonDefinition::CopyCode { .. })))
        });
        if *has_expiration && !copy_code {
            refuse(
                errors,
                "LIMITED_TIME_OFFER",
                "an offer with an expiration needs a COPY_CODE button",
            );
        }
    }
}

fn header(errors: &mut ValidationErrors, at: At<'_>, format: ParameterFormat) -> Option<HeaderDefinition> {
    unknown(errors, at, &["type", "format", "text", "example"]);
    let kind = at.text(errors, "format", true)?.to_ascii_uppercase();
    match kind.as_str() {
        "TEXT" => {
            let text = bounded(errors, at, "text", HEADER_TEXT_MAX)?;
            if text.contains(['\n', '\r']) {
                errors.push(FieldError::new(at.path_of("text"), "a header is one line"));
            }
            let placeholders = placeholders(text);
            if placeholders.len() > 1 {
                errors.push(FieldError::new(
                    at.path_of("text"),
                    "a header holds one variable at most",
                ));
                return None;
            }
            let examples = examples(errors, at, text, format, "header_text")?;
            Some(HeaderDefinition::Text(ExampleText {
                text: text.to_owned(),
                examples,
            }))
        }
        "IMAGE" | "VIDEO" | "DOCUMENT" => {
            if at.has("text") {
                errors.push(FieldError::new(at.path_of("text"), "only a TEXT header has text"));
            }
            let kind = match kind.as_str() {
                "IMAGE" => MediaKind::Image,
                "VIDEO" => MediaKind::Video,
                _ => MediaKind::Document,
            };
            media_sample(errors, at).map(|sample| HeaderDefinition::Media { kind, sample })
        }
        "LOCATION" => {
            for field in ["text", "example"] {
                if at.has(field) {
                    errors.push(FieldError::new(
                        at.path_of(field),
                        "a LOCATION header takes nothing",
                    ));
                }
            }
            Some(HeaderDefinition::Location)
        }
        _ => {
            errors.push(FieldError::new(
                at.path_of("format"),
                "must be TEXT, IMAGE, VIDEO, DOCUMENT or LOCATION",
            ));
            None
        }
    }
}

fn body(
    errors: &mut ValidationErrors,
    at: At<'_>,
    category: Category,
    format: ParameterFormat,
) -> Option<BodyDefinition> {
    if category == Category::Authentication {
        unknown(errors, at, &["type", "add_security_recommendation"]);
        let add = at.boolean(errors, "add_security_recommendation").unwrap_or(false);
        return Some(BodyDefinition::Authentication {
            add_security_recommendation: add,
        });
    }
    unknown(errors, at, &["type", "text", "example"]);
    example_text(errors, at, format, BODY_MAX).map(BodyDefinition::Text)
}

fn footer(errors: &mut ValidationErrors, at: At<'_>, category: Category) -> Option<FooterDefinition> {
    if category == Category::Authentication {
        unknown(errors, at, &["type", "code_expiration_minutes"]);
        return match at.field("code_expiration_minutes") {
            Some(Node::Number(n)) => match n.parse::<u8>() {
                Ok(minutes) if (1..=CODE_EXPIRATION_MAX).contains(&minutes) => {
                    Some(FooterDefinition::CodeExpiration(minutes))
                }
                _ => {
                    errors.push(FieldError::new(
                        at.path_of("code_expiration_minutes"),
                        format!("must be a whole number of minutes from 1 to {CODE_EXPIRATION_MAX}"),
                    ));
                    None
                }
            },
            _ => {
                errors.push(FieldError::new(
                    at.path_of("code_expiration_minutes"),
                    "is required: an authentication footer says when the code expires",
                ));
                None
            }
        };
    }
    unknown(errors, at, &["type", "text"]);
    let text = bounded(errors, at, "text", FOOTER_MAX)?;
    if !placeholders(text).is_empty() {
        errors.push(FieldError::new(at.path_of("text"), "a footer has no variable"));
        return None;
    }
    Some(FooterDefinition::Text(text.to_owned()))
}
