//! A broadcast's body (docs/api.md §4.10): the shared fields as a template send reads them, and each
//! recipient row on its own, so one row's errors (named within the row: `to`, `variables.body[1]`) refuse
//! that row only.

use super::fields::{json_type, optional_string, present, required, string_at};
use super::send_at;
use super::template::{header_value, template_ref, variables_at};
use herald_domain::broadcast::MAX_RECIPIENTS;
use herald_domain::contact::Recipient;
use herald_domain::template::HeaderValue;
use herald_domain::usecases::{BroadcastDraft, BroadcastRecipient};
use herald_domain::values::{ClientReference, PhoneNumber};
use herald_domain::{FieldError, ValidationErrors};
use serde_json::{Map, Value};

/// The fields a broadcast body takes.
const FIELDS: [&str; 5] = ["template", "from", "send_at", "header", "recipients"];

/// The fields a recipient row takes.
const ROW_FIELDS: [&str; 3] = ["to", "variables", "client_reference"];

/// Converts a broadcast body: `Err` for a wrong shared field (or a recipient list that is missing, empty
/// or too long); otherwise the draft, each row with its own verdict.
pub(crate) fn broadcast_draft(body: &Value) -> Result<BroadcastDraft, ValidationErrors> {
    let Some(object) = body.as_object() else {
        return Err(ValidationErrors::single(
            "body",
            format!("must be a JSON object, not {}", json_type(body)),
        ));
    };
    let mut errors = ValidationErrors::new();
    for key in object.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
        errors.push(FieldError::new(
            key.as_str(),
            "is not a field of a broadcast; it takes `template`, `from`, `send_at`, `header` and `recipients`",
        ));
    }
    let template = template_ref(object, &mut errors);
    let from = optional_string(object, "from", &mut errors)
        .map(|from| from.and_then(|s| errors.check("from", PhoneNumber::parse(s))));
    let send_at = send_at(object, &mut errors);
    let header = shared_header(object, &mut errors);
    let rows = recipient_rows(object, &mut errors);
    match (template, from, send_at, header, rows) {
        (Some(template), Some(from), Some(send_at), Some(header), Some(rows)) if errors.is_empty() => {
            Ok(BroadcastDraft {
                template,
                from,
                send_at,
                header,
                recipients: rows.iter().map(recipient).collect(),
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

/// The optional `header` every recipient without one of its own gets, in the form of `variables.header`.
fn shared_header(object: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<Option<HeaderValue>> {
    match present(object, "header") {
        None => Some(None),
        Some(Value::Object(header)) => {
            // The header reader names its fields as a send's `variables.header…`; here they are `header…`.
            let mut found = ValidationErrors::new();
            let value = header_value(header, &mut found);
            for error in found.into_errors() {
                let field = error
                    .field
                    .strip_prefix("variables.")
                    .map_or_else(|| error.field.clone(), str::to_owned);
                errors.push(FieldError::new(field, error.message));
            }
            value.map(Some)
        }
        Some(other) => {
            errors.push(FieldError::new(
                "header",
                format!("must be an object, not {}", json_type(other)),
            ));
            None
        }
    }
}

/// The `recipients` array, 1 to [`MAX_RECIPIENTS`] items; its rows are read one by one later.
fn recipient_rows<'a>(object: &'a Map<String, Value>, errors: &mut ValidationErrors) -> Option<&'a [Value]> {
    let value = required(object, "recipients", "recipients", errors)?;
    let Some(rows) = value.as_array() else {
        errors.push(FieldError::new(
            "recipients",
            format!("must be an array of recipient objects, not {}", json_type(value)),
        ));
        return None;
    };
    if rows.is_empty() || rows.len() > MAX_RECIPIENTS {
        errors.push(FieldError::new(
            "recipients",
            format!(
                "must list 1 to {} recipients, not {}",
                thousands(MAX_RECIPIENTS),
                thousands(rows.len())
            ),
        ));
        return None;
    }
    Some(rows)
}

/// A count with thousands separators (`10,000`).
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One recipient row, its errors named within the row.
fn recipient(row: &Value) -> Result<BroadcastRecipient, ValidationErrors> {
    let Some(object) = row.as_object() else {
        return Err(ValidationErrors::single(
            "row",
            format!(
                "must be an object with `to` (and optionally `variables` and `client_reference`), not {}",
                json_type(row)
            ),
        ));
    };
    let mut errors = ValidationErrors::new();
    for key in object.keys().filter(|k| !ROW_FIELDS.contains(&k.as_str())) {
        errors.push(FieldError::new(
            key.as_str(),
            "is not a field of a recipient; it takes `to`, `variables` and `client_reference`",
        ));
    }
    let to = required(object, "to", "to", &mut errors)
        .and_then(|v| string_at(v, "to", &mut errors))
        .and_then(|s| errors.check("to", Recipient::parse(s)));
    let variables = variables_at(object, &mut errors);
    let client_reference = optional_string(object, "client_reference", &mut errors)
        .map(|reference| reference.and_then(|s| errors.check("client_reference", ClientReference::parse(s))));
    match (to, variables, client_reference) {
        (Some(to), Some(variables), Some(client_reference)) if errors.is_empty() => Ok(BroadcastRecipient {
            to,
            variables,
            client_reference,
        }),
        _ => {
            if errors.is_empty() {
                errors.push(FieldError::new("row", "is invalid"));
            }
            Err(errors)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::indexing_slicing,
        reason = "test code fails loudly by design"
    )]

    use super::*;
    use serde_json::json;

    fn fields(errors: &ValidationErrors) -> Vec<String> {
        errors.errors().iter().map(|e| e.field.clone()).collect()
    }

    fn body(recipients: Value) -> Value {
        json!({
            "template": { "name": "order_shipped", "language": "en_US" },
            "recipients": recipients,
        })
    }

    #[test]
    fn each_row_is_judged_on_its_own_with_fields_named_within_it() {
        let draft = broadcast_draft(&body(json!([
            { "to": "+15551234567", "variables": ["Ana", "#1"], "client_reference": "a" },
            { "to": "15551234567", "variables": { "body": ["Ana", 7] } },
            "not a row",
            { "to": "+15551234568", "variables": { "name": "Bo" }, "extra": 1 },
            { "to": "+15551234569", "variables": { "header": { "type": "image", "media_id": "med_01JD0000000000000000000000" }, "body": ["x"] } },
        ])))
        .unwrap();
        assert_eq!(draft.recipients.len(), 5);
        let first = draft.recipients[0].as_ref().unwrap();
        assert_eq!(first.to.as_str(), "+15551234567");
        assert_eq!(first.client_reference.as_ref().unwrap().as_str(), "a");
        assert_eq!(
            fields(draft.recipients[1].as_ref().unwrap_err()),
            ["to", "variables.body[1]"]
        );
        assert_eq!(fields(draft.recipients[2].as_ref().unwrap_err()), ["row"]);
        assert_eq!(fields(draft.recipients[3].as_ref().unwrap_err()), ["extra"]);
        assert!(draft.recipients[4].as_ref().unwrap().variables.header.is_some());
    }

    #[test]
    fn shared_fields_fail_the_whole_request() {
        let mut wrong = body(json!([{ "to": "+15551234567" }]));
        wrong["template"] = json!({ "name": "Bad Name" });
        wrong["send_at"] = json!("tomorrow");
        wrong["from"] = json!(5);
        wrong["header"] = json!({ "type": "audio", "media_id": "med_x" });
        wrong["to"] = json!("+15551234567");
        let errors = broadcast_draft(&wrong).unwrap_err();
        assert_eq!(
            fields(&errors),
            [
                "to",
                "template.name",
                "template.language",
                "from",
                "send_at",
                "header.type"
            ]
        );
    }

    #[test]
    fn a_shared_header_is_read_in_the_variables_form() {
        let mut with_header = body(json!([{ "to": "+15551234567" }]));
        with_header["header"] = json!({ "type": "image", "media_id": "med_01JD0000000000000000000000" });
        with_header["send_at"] = json!("2026-12-01T09:00:00Z");
        let draft = broadcast_draft(&with_header).unwrap();
        assert!(
            matches!(draft.header, Some(HeaderValue::Media(_))),
            "{:?}",
            draft.header
        );
        assert!(draft.send_at.is_some());
    }

    #[test]
    fn a_send_at_at_second_60_is_refused_rather_than_read_back_a_second_later() {
        for leap in [
            "2026-12-31T23:59:60Z",
            "2026-12-01T09:00:60.000Z",
            "2026-12-01T10:00:60+01:00",
        ] {
            let mut leaping = body(json!([{ "to": "+15551234567" }]));
            leaping["send_at"] = json!(leap);
            let errors = broadcast_draft(&leaping).unwrap_err();
            assert_eq!(fields(&errors), ["send_at"], "{leap}");
            assert!(errors.errors()[0].message.contains("second 60"), "{errors}");
        }
        let mut ordinary = body(json!([{ "to": "+15551234567" }]));
        ordinary["send_at"] = json!("2026-12-31T23:59:59.999Z");
        assert!(broadcast_draft(&ordinary).unwrap().send_at.is_some());
    }

    #[test]
    fn the_recipient_list_has_one_to_ten_thousand_rows() {
        for recipients in [json!([]), json!("x"), Value::Null] {
            let errors = broadcast_draft(&body(recipients.clone())).unwrap_err();
            assert_eq!(fields(&errors), ["recipients"], "{recipients}");
        }
        let row = json!({ "to": "+15551234567" });
        let full = vec![row.clone(); MAX_RECIPIENTS];
        assert_eq!(
            broadcast_draft(&body(Value::Array(full)))
                .unwrap()
                .recipients
                .len(),
            MAX_RECIPIENTS
        );
        let over = vec![row; MAX_RECIPIENTS + 1];
        let errors = broadcast_draft(&body(Value::Array(over))).unwrap_err();
        assert_eq!(fields(&errors), ["recipients"]);
        assert!(errors.errors()[0].message.contains("10,000"), "{errors}");
    }
}
