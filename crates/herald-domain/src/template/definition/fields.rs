//! Readers every component shares: bounded texts, and refusing the fields the network does not know.

use super::node::At;
use crate::FieldError;
use crate::error::ValidationErrors;

/// The string at `name`: required, 1 to `max` characters.
pub(super) fn bounded<'a>(
    errors: &mut ValidationErrors,
    at: At<'a>,
    name: &str,
    max: usize,
) -> Option<&'a str> {
    let text = at.text(errors, name, true)?;
    let length = text.chars().count();
    if text.trim().is_empty() || length > max {
        errors.push(FieldError::new(
            at.path_of(name),
            format!("must be 1 to {max} characters, not {length}"),
        ));
        return None;
    }
    Some(text)
}

/// Refuses fields the network does not know here: it would refuse the whole definition for them.
pub(super) fn unknown(errors: &mut ValidationErrors, at: At<'_>, known: &[&str]) {
    for field in at.unknown_fields(known) {
        errors.push(FieldError::new(field, "is not a field of this component"));
    }
}
