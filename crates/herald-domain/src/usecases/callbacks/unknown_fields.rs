//! Webhook fields the parser does not know: each is warned about once per process, since the network may
//! have started sending something Herald should read, but a field that keeps coming must not flood the log.

use std::sync::{Mutex, PoisonError};

/// Distinct unknown field names warned about at most; later new names are only noted with their callback.
pub const MAX_WARNED_FIELDS: usize = 32;

/// The unknown field names warned about so far (at most [`MAX_WARNED_FIELDS`]).
#[derive(Debug, Default)]
pub struct UnknownFieldWarnings {
    warned: Mutex<Vec<String>>,
}

impl UnknownFieldWarnings {
    /// Logs a `warn` for each name not warned about before, while fewer than [`MAX_WARNED_FIELDS`] were;
    /// answers the names it warned about.
    pub fn warn_new(&self, fields: &[String]) -> Vec<String> {
        let mut warned = self.warned.lock().unwrap_or_else(PoisonError::into_inner);
        let mut now = Vec::new();
        for field in fields {
            if warned.len() >= MAX_WARNED_FIELDS {
                break;
            }
            if !warned.contains(field) {
                tracing::warn!(
                    field = %field,
                    "the network sent a webhook field Herald does not handle; it is acknowledged and not \
                     recorded (warned once per field)"
                );
                warned.push(field.clone());
                now.push(field.clone());
            }
        }
        now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn each_field_is_warned_about_once() {
        let warnings = UnknownFieldWarnings::default();
        assert_eq!(warnings.warn_new(&names(&["a", "b"])), names(&["a", "b"]));
        assert_eq!(warnings.warn_new(&names(&["b", "c", "a"])), names(&["c"]));
        assert!(warnings.warn_new(&names(&["a", "b", "c"])).is_empty());
    }

    #[test]
    fn no_more_than_the_bound_are_ever_warned_about() {
        let warnings = UnknownFieldWarnings::default();
        let many: Vec<String> = (0..MAX_WARNED_FIELDS + 10).map(|i| format!("f{i}")).collect();
        assert_eq!(warnings.warn_new(&many).len(), MAX_WARNED_FIELDS);
        assert!(warnings.warn_new(&names(&["another"])).is_empty());
    }
}
