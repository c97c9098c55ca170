//! A template send's buttons: `[{"index": 0, "sub_type": "url", "values": ["…"]}, …]`, with a Flow button's
//! `flow_token` and `flow_action_data`, each error under the path the client wrote.

use super::super::fields::{json_type, present, required, string_at};
use super::values::positional;
use herald_domain::template::definition::COPY_CODE_MAX;
use herald_domain::template::{ButtonKind, ButtonValue, TemplateText};
use herald_domain::{FieldError, ValidationErrors};
use serde_json::Value;

/// The highest button index a template can have (the network allows 10 buttons).
const MAX_BUTTON_INDEX: u64 = 9;

/// The buttons at `field` (`variables.buttons`, `variables.cards[1].buttons`).
pub(super) fn buttons(
    value: Option<&Value>,
    field: &str,
    errors: &mut ValidationErrors,
) -> Option<Vec<ButtonValue>> {
    match value {
        None => Some(Vec::new()),
        Some(Value::Array(items)) => {
            let parsed: Vec<Option<ButtonValue>> = items
                .iter()
                .enumerate()
                .map(|(i, item)| button(item, &format!("{field}[{i}]"), errors))
                .collect();
            parsed.into_iter().collect::<Option<Vec<_>>>()
        }
        Some(other) => {
            errors.push(FieldError::new(
                field,
                format!("must be an array, not {}", json_type(other)),
            ));
            None
        }
    }
}

fn button(item: &Value, field: &str, errors: &mut ValidationErrors) -> Option<ButtonValue> {
    let Some(button) = item.as_object() else {
        errors.push(FieldError::new(
            field,
            format!(
                "must be an object with `index`, `sub_type` and `values`, not {}",
                json_type(item)
            ),
        ));
        return None;
    };
    let index_field = format!("{field}.index");
    let index = required(button, "index", &index_field, errors).and_then(|v| {
        match v
            .as_u64()
            .filter(|i| *i <= MAX_BUTTON_INDEX)
            .and_then(|i| u8::try_from(i).ok())
        {
            Some(index) => Some(index),
            None => {
                errors.push(FieldError::new(
                    index_field.as_str(),
                    format!("must be an integer from 0 to {MAX_BUTTON_INDEX}"),
                ));
                None
            }
        }
    });
    let sub_type_field = format!("{field}.sub_type");
    let kind = required(button, "sub_type", &sub_type_field, errors)
        .and_then(|v| string_at(v, &sub_type_field, errors))
        .and_then(|s| errors.check(&sub_type_field, ButtonKind::parse_sub_type(s)));
    let values_field = format!("{field}.values");
    let mut values = match present(button, "values") {
        None => Some(Vec::new()),
        Some(Value::Array(items)) => positional(items, &values_field, errors),
        Some(other) => {
            errors.push(FieldError::new(
                values_field.as_str(),
                format!("must be an array of strings, not {}", json_type(other)),
            ));
            None
        }
    };
    if let (Some(ButtonKind::CopyCode), Some(codes)) = (kind, &values) {
        for (i, code) in codes.iter().enumerate() {
            if code.as_str().chars().count() > COPY_CODE_MAX {
                errors.push(FieldError::new(
                    format!("{values_field}[{i}]"),
                    format!("a coupon code is at most {COPY_CODE_MAX} characters"),
                ));
            }
        }
    }
    let flow_only = |key: &str, errors: &mut ValidationErrors| {
        let given = present(button, key).is_some();
        if given && kind.is_some_and(|k| k != ButtonKind::Flow) {
            errors.push(FieldError::new(
                format!("{field}.{key}"),
                "only Flow buttons (`sub_type: flow`) take it",
            ));
        }
        given && kind == Some(ButtonKind::Flow)
    };
    if flow_only("flow_token", errors) {
        let token_field = format!("{field}.flow_token");
        if values.as_ref().is_some_and(|v| !v.is_empty()) {
            errors.push(FieldError::new(
                token_field.as_str(),
                "give the Flow token either here or in `values`, not both",
            ));
        } else if let Some(token) = present(button, "flow_token")
            .and_then(|v| string_at(v, &token_field, errors))
            .and_then(|s| errors.check(&token_field, TemplateText::parse(s)))
        {
            values = values.map(|_| vec![token]);
        }
    }
    let data_field = format!("{field}.flow_action_data");
    let flow_action_data = if flow_only("flow_action_data", errors) {
        match present(button, "flow_action_data") {
            Some(Value::Object(data)) => Some(Some(Value::Object(data.clone()).to_string())),
            Some(other) => {
                errors.push(FieldError::new(
                    data_field,
                    format!("must be an object, not {}", json_type(other)),
                ));
                None
            }
            None => Some(None),
        }
    } else {
        Some(None)
    };
    Some(ButtonValue {
        index: index?,
        kind: kind?,
        values: values?,
        flow_action_data: flow_action_data?,
    })
}
