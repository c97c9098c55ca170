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

/// Every field error of one request, collected so the client can fix them all at once.
#[derive(Debug, Clone, Default, PartialEq, Eq, thiserror::Error)]
pub struct ValidationErrors(Vec<FieldError>);

impl ValidationErrors {
    pub fn new() -> Self {
        Self(Vec::new())
    }

    pub fn single(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self(vec![FieldError::new(field, message)])
    }

    pub fn push(&mut self, error: FieldError) {
        self.0.push(error);
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
        self.0.is_empty()
    }

    pub fn errors(&self) -> &[FieldError] {
        &self.0
    }

    pub fn into_errors(self) -> Vec<FieldError> {
        self.0
    }

    /// `Ok(value)` when nothing was recorded.
    pub fn finish<T>(self, value: T) -> Result<T, Self> {
        if self.0.is_empty() { Ok(value) } else { Err(self) }
    }
}

impl From<FieldError> for ValidationErrors {
    fn from(error: FieldError) -> Self {
        Self(vec![error])
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        f.write_str(&parts.join("; "))
    }
}
