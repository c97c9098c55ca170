//! What Meta's review needs besides the text: an example value per variable, a sample file per media
//! header.

use super::fields::bounded;
use super::node::At;
use super::{BODY_MAX, ExampleText, Examples, MediaSample, Node, ParameterFormat};
use crate::FieldError;
use crate::error::ValidationErrors;
use crate::ids::MediaId;
use crate::template::ParamName;

/// The `{{…}}` placeholders of a text, in order of appearance.
pub(super) fn placeholders(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        found.push(after[..end].trim());
        rest = &after[end + 2..];
    }
    found
}

/// The variables of `text` and their examples under `example.<key>` (positional) or
/// `example.<key>_named_params` (named).
pub(super) fn examples(
    errors: &mut ValidationErrors,
    at: At<'_>,
    text: &str,
    format: ParameterFormat,
    key: &str,
) -> Option<Examples> {
    let found = placeholders(text);
    let text_path = at.path_of("text");
    if found.is_empty() {
        return Some(Examples::None);
    }
    let example_path = at.path_of("example");
    let Some(example) = at.field("example") else {
        errors.push(FieldError::new(
            example_path,
            "needs an example value for each variable",
        ));
        return None;
    };
    let example = At {
        node: example,
        path: &example_path,
    };
    if !example.is_object(errors) {
        return None;
    }
    match format {
        ParameterFormat::Positional => {
            let mut numbers = Vec::new();
            for placeholder in &found {
                match placeholder.parse::<usize>() {
                    Ok(n) if n >= 1 => numbers.push(n),
                    _ => {
                        errors.push(FieldError::new(
                            text_path.clone(),
                            format!("`{{{{{placeholder}}}}}` is not a positional variable: write {{{{1}}}}, {{{{2}}}}, … or set parameter_format NAMED"),
                        ));
                        return None;
                    }
                }
            }
            numbers.sort_unstable();
            numbers.dedup();
            if numbers.iter().enumerate().any(|(i, n)| *n != i + 1) {
                errors.push(FieldError::new(
                    text_path,
                    "variables are numbered from {{1}} without gaps",
                ));
                return None;
            }
            let values = positional_examples(errors, example, key)?;
            if values.len() != numbers.len() {
                errors.push(FieldError::new(
                    example.path_of(key),
                    format!(
                        "needs {} example values, one per variable, not {}",
                        numbers.len(),
                        values.len()
                    ),
                ));
                return None;
            }
            Some(Examples::Positional(values))
        }
        ParameterFormat::Named => {
            let mut names: Vec<ParamName> = Vec::new();
            for placeholder in &found {
                let name = errors.check(&text_path, ParamName::parse(placeholder))?;
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            let field = format!("{key}_named_params");
            let items = example.list(errors, &field)?;
            let mut pairs = Vec::new();
            for (path, node) in &items {
                let item = At { node, path };
                if !item.is_object(errors) {
                    continue;
                }
                let name = item
                    .text(errors, "param_name", true)
                    .and_then(|s| errors.check(&item.path_of("param_name"), ParamName::parse(s)));
                let value = bounded(errors, item, "example", BODY_MAX);
                if let (Some(name), Some(value)) = (name, value) {
                    pairs.push((name, value.to_owned()));
                }
            }
            let given: Vec<&ParamName> = pairs.iter().map(|(n, _)| n).collect();
            let missing: Vec<&str> = names
                .iter()
                .filter(|n| !given.contains(n))
                .map(ParamName::as_str)
                .collect();
            let extra: Vec<&str> = given
                .iter()
                .filter(|n| !names.contains(n))
                .map(|n| n.as_str())
                .collect();
            if !missing.is_empty() || !extra.is_empty() {
                errors.push(FieldError::new(
                    example.path_of(&field),
                    format!(
                        "needs one example per variable: missing [{}], not in the text [{}]",
                        missing.join(", "),
                        extra.join(", ")
                    ),
                ));
                return None;
            }
            Some(Examples::Named(pairs))
        }
    }
}

/// `header_text: ["v"]` or `body_text: [["v1", "v2"]]`.
fn positional_examples(errors: &mut ValidationErrors, example: At<'_>, key: &str) -> Option<Vec<String>> {
    let items = example.list(errors, key)?;
    let values: Vec<&Node> = if key == "body_text" {
        match items.as_slice() {
            [(_, Node::List(row))] => row.iter().collect(),
            _ => {
                errors.push(FieldError::new(
                    example.path_of(key),
                    "must be an array holding one array of example values",
                ));
                return None;
            }
        }
    } else {
        items.iter().map(|(_, node)| *node).collect()
    };
    let mut out = Vec::new();
    for value in values {
        match value {
            Node::Text(text) if !text.trim().is_empty() => out.push(text.clone()),
            _ => {
                errors.push(FieldError::new(
                    example.path_of(key),
                    "example values are non-empty strings",
                ));
                return None;
            }
        }
    }
    Some(out)
}

/// A body text (a template's or a card's) with its examples.
pub(super) fn example_text(
    errors: &mut ValidationErrors,
    at: At<'_>,
    format: ParameterFormat,
    max: usize,
) -> Option<ExampleText> {
    let text = bounded(errors, at, "text", max)?;
    let trimmed = text.trim();
    if trimmed.starts_with("{{") || trimmed.ends_with("}}") {
        errors.push(FieldError::new(
            at.path_of("text"),
            "may not start or end with a variable (the network refuses it)",
        ));
    }
    let examples = examples(errors, at, text, format, "body_text")?;
    Some(ExampleText {
        text: text.to_owned(),
        examples,
    })
}

/// A media header's sample: `example.header_handle: ["<handle>"]` (the network's upload handle) or
/// `example.media_id: "med_…"` (a file uploaded to Herald).
pub(super) fn media_sample(errors: &mut ValidationErrors, at: At<'_>) -> Option<MediaSample> {
    let Some(example) = at.field("example") else {
        errors.push(FieldError::new(
            at.path_of("example"),
            "a media header needs a sample: `media_id` of an upload, or `header_handle`",
        ));
        return None;
    };
    let path = at.path_of("example");
    let example = At {
        node: example,
        path: &path,
    };
    if !example.is_object(errors) {
        return None;
    }
    match (example.field("media_id"), example.field("header_handle")) {
        (Some(_), None) => example
            .text(errors, "media_id", true)
            .and_then(|id| errors.check(&example.path_of("media_id"), MediaId::parse(id)))
            .map(MediaSample::Upload),
        (None, Some(_)) => {
            let handles = example.list(errors, "header_handle")?;
            match handles.as_slice() {
                [(_, Node::Text(handle))] if !handle.is_empty() => Some(MediaSample::Handle(handle.clone())),
                _ => {
                    errors.push(FieldError::new(
                        example.path_of("header_handle"),
                        "must hold exactly one upload handle",
                    ));
                    None
                }
            }
        }
        _ => {
            errors.push(FieldError::new(
                path.clone(),
                "needs exactly one of `media_id` and `header_handle`",
            ));
            None
        }
    }
}
