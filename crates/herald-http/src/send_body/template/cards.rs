//! A carousel send's cards: `[{"header": {"type": "image", "media_id": "…"}, "body": […], "buttons": […]}]`,
//! one per card of the template, in its order; errors under `variables.cards[i]…`.

use super::super::fields::{json_type, present, required, string_at};
use super::buttons::buttons;
use super::values::{body_values, media_header};
use herald_domain::attachment::MediaKind;
use herald_domain::template::CardValues;
use herald_domain::template::definition::CARDS_MAX;
use herald_domain::{FieldError, ValidationErrors};
use serde_json::Value;

pub(super) fn cards(value: Option<&Value>, errors: &mut ValidationErrors) -> Option<Vec<CardValues>> {
    const FIELD: &str = "variables.cards";
    let items = match value {
        None => return Some(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            errors.push(FieldError::new(
                FIELD,
                format!("must be an array of cards, not {}", json_type(other)),
            ));
            return None;
        }
    };
    if items.len() > CARDS_MAX {
        errors.push(FieldError::new(
            FIELD,
            format!("a carousel has at most {CARDS_MAX} cards, got {}", items.len()),
        ));
        return None;
    }
    let parsed: Vec<Option<CardValues>> = items
        .iter()
        .enumerate()
        .map(|(i, item)| card(item, &format!("{FIELD}[{i}]"), errors))
        .collect();
    parsed.into_iter().collect()
}

fn card(item: &Value, field: &str, errors: &mut ValidationErrors) -> Option<CardValues> {
    let Some(card) = item.as_object() else {
        errors.push(FieldError::new(
            field,
            format!(
                "must be an object with `header`, `body` and `buttons`, not {}",
                json_type(item)
            ),
        ));
        return None;
    };
    if let Some(key) = card
        .keys()
        .find(|k| !matches!(k.as_str(), "header" | "body" | "buttons"))
    {
        errors.push(FieldError::new(
            format!("{field}.{key}"),
            "is not a field of a card; it takes `header`, `body` and `buttons`",
        ));
    }
    let header_field = format!("{field}.header");
    let header = match required(card, "header", &header_field, errors) {
        Some(Value::Object(header)) => {
            let type_field = format!("{header_field}.type");
            required(header, "type", &type_field, errors)
                .and_then(|v| string_at(v, &type_field, errors))
                .and_then(|kind| match MediaKind::parse(kind) {
                    Ok(kind @ (MediaKind::Image | MediaKind::Video)) => Some(kind),
                    _ => {
                        errors.push(FieldError::new(
                            type_field.as_str(),
                            format!("a card's header is an image or a video, not `{kind}`"),
                        ));
                        None
                    }
                })
                .and_then(|kind| media_header(header, kind, &format!("{header_field}."), errors))
        }
        Some(other) => {
            errors.push(FieldError::new(
                header_field.as_str(),
                format!("must be an object, not {}", json_type(other)),
            ));
            None
        }
        None => None,
    };
    let body = body_values(present(card, "body"), &format!("{field}.body"), errors);
    let buttons = buttons(present(card, "buttons"), &format!("{field}.buttons"), errors);
    Some(CardValues {
        header: header?,
        body: body?,
        buttons: buttons?,
    })
}
