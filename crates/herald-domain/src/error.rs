//! Validation errors shared by every constructor and use case.

use std::fmt;

/// One field that failed validation, named as the client named it (`to`, `variables.body[1]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// A value that broke its type's rules, before it has a field name attached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidValue(pub String);

impl InvalidValue {
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }

    /// Attaches the field name the client used.
    pub fn at(self, field: impl Into<String>) -> FieldError {
        FieldError::new(field, self.0)
    }
}

/// How many field errors one request keeps (docs/api.md §2): the first ones found, in order. Every further
/// one is only counted, so a body of a million wrong fields costs a count, not a million entries.
pub const MAX_FIELD_ERRORS: usize = 100;

/// The longest field name kept, in bytes: a client names fields (an unknown key is reported as written),
/// so a longer one is cut at a character boundary and ends with `…`.
pub const MAX_FIELD_NAME_BYTES: usize = 128;

/// The longest message kept, in bytes; messages may quote what the client sent.
pub const MAX_FIELD_MESSAGE_BYTES: usize = 256;

/// How many errors the text form ([`fmt::Display`], [`fmt::Debug`]) shows, as a log line carries it.
const SHOWN_IN_TEXT: usize = 10;

/// Every field error of one request, collected so the client can fix them all at once: the first
/// [`MAX_FIELD_ERRORS`], each cut to [`MAX_FIELD_NAME_BYTES`] and [`MAX_FIELD_MESSAGE_BYTES`], and the count of
/// all of them.
#[derive(Clone, Default, PartialEq, Eq, thiserror::Error)]
pub struct ValidationErrors {
    kept: Vec<FieldError>,
    total: usize,
}

impl ValidationErrors {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn single(field: impl Into<String>, message: impl Into<String>) -> Self {
        let mut errors = Self::new();
        errors.push(FieldError::new(field, message));
        errors
    }

    /// Records one error: kept while fewer than [`MAX_FIELD_ERRORS`] are, counted always.
    pub fn push(&mut self, error: FieldError) {
        self.total = self.total.saturating_add(1);
        self.keep(error);
    }

    fn keep(&mut self, error: FieldError) {
        if self.kept.len() < MAX_FIELD_ERRORS {
            self.kept.push(FieldError {
                field: truncated(error.field, MAX_FIELD_NAME_BYTES),
                message: truncated(error.message, MAX_FIELD_MESSAGE_BYTES),
            });
        }
    }

    /// Adds every error of `other`, those it only counted included.
    pub fn append(&mut self, other: Self) {
        self.total = self.total.saturating_add(other.total);
        for error in other.kept {
            self.keep(error);
        }
    }

    /// Counts `n` more errors that are not kept (those another list counted but did not keep).
    pub fn count_more(&mut self, n: usize) {
        self.total = self.total.saturating_add(n);
    }

    /// How many errors were counted but not kept.
    pub fn unkept(&self) -> usize {
        self.total.saturating_sub(self.kept.len())
    }

    /// The same errors, each field name behind `prefix` (`template.` + `to`), the count kept.
    #[must_use]
    pub fn prefixed(self, prefix: &str) -> Self {
        let mut prefixed = Self::new();
        prefixed.total = self.total;
        for error in self.kept {
            prefixed.keep(FieldError::new(format!("{prefix}{}", error.field), error.message));
        }
        prefixed
    }

    /// Whether no more errors would be kept: a caller walking a long list may stop collecting.
    pub fn is_full(&self) -> bool {
        self.kept.len() >= MAX_FIELD_ERRORS
    }

    /// Records the error of `result` under `field` and returns its value, if any.
    pub fn check<T>(&mut self, field: &str, result: Result<T, InvalidValue>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.push(error.at(field));
                None
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The errors kept: the first [`MAX_FIELD_ERRORS`].
    pub fn errors(&self) -> &[FieldError] {
        &self.kept
    }

    /// How many errors were recorded, those not kept included.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The errors kept; see [`Self::total`] for how many there were.
    pub fn into_errors(self) -> Vec<FieldError> {
        self.kept
    }

    /// `Ok(value)` when nothing was recorded.
    pub fn finish<T>(self, value: T) -> Result<T, Self> {
        if self.is_empty() { Ok(value) } else { Err(self) }
    }
}

/// `text` cut to at most `max` bytes at a character boundary, ending with `…` when cut.
fn truncated(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max.saturating_sub('…'.len_utf8());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

impl From<FieldError> for ValidationErrors {
    fn from(error: FieldError) -> Self {
        let mut errors = Self::new();
        errors.push(error);
        errors
    }
}

impl fmt::Display for ValidationErrors {
    /// The first few errors and how many more there were: it goes into log lines, which stay short.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, error) in self.kept.iter().take(SHOWN_IN_TEXT).enumerate() {
            if index > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{error}")?;
        }
        let shown = self.kept.len().min(SHOWN_IN_TEXT);
        if self.total > shown {
            write!(f, "; and {} more", self.total - shown)?;
        }
        Ok(())
    }
}

impl fmt::Debug for ValidationErrors {
    /// As short as [`fmt::Display`]: errors are logged with `{:?}` too.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ValidationErrors({} errors: {self})", self.total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_million_errors_keep_the_first_hundred_and_count_all() {
        let mut errors = ValidationErrors::new();
        for n in 0..1_000_000 {
            errors.push(FieldError::new(format!("field{n}"), "is not a field"));
        }
        assert_eq!(errors.total(), 1_000_000);
        assert_eq!(errors.errors().len(), MAX_FIELD_ERRORS);
        assert_eq!(errors.errors()[0].field, "field0");
        assert!(errors.is_full());
        let text = format!("{errors} {errors:?}");
        assert!(text.len() < 2_000, "{text}");
        assert!(text.contains("and 999990 more"), "{text}");
    }

    #[test]
    fn long_names_and_messages_are_cut_at_a_character_boundary() {
        let errors = ValidationErrors::single("é".repeat(10_000), "ü".repeat(10_000));
        let error = &errors.errors()[0];
        assert!(error.field.len() <= MAX_FIELD_NAME_BYTES && error.field.ends_with('…'));
        assert!(error.message.len() <= MAX_FIELD_MESSAGE_BYTES && error.message.ends_with('…'));
        assert_eq!(
            ValidationErrors::single("to", "is required").errors()[0],
            FieldError::new("to", "is required")
        );
    }

    #[test]
    fn appending_keeps_the_count_of_both() {
        let mut first = ValidationErrors::single("a", "x");
        let mut second = ValidationErrors::new();
        for _ in 0..150 {
            second.push(FieldError::new("b", "y"));
        }
        first.append(second);
        assert_eq!(first.total(), 151);
        assert_eq!(first.unkept(), 51);
        let prefixed = first.clone().prefixed("row.");
        assert_eq!(prefixed.total(), 151);
        assert_eq!(prefixed.errors()[0].field, "row.a");
        assert_eq!(first.errors().len(), MAX_FIELD_ERRORS);
        assert!(!first.is_empty());
        assert!(ValidationErrors::new().finish(()).is_ok());
    }
}
