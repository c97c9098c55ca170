//! Templates created through the simulator and the review it plays (docs/api.md §13): a new or edited
//! template is `PENDING` for [`crate::SimulatorConfig::template_review_ms`], then `APPROVED`, or `REJECTED`
//! with reason `INVALID_FORMAT` when its name contains `reject`; the outcome is also sent as a
//! `message_template_status_update` callback.

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Value, json};

use crate::seed::{Body, Header};

/// A template created with `POST /{waba-id}/message_templates`.
#[derive(Debug, Clone)]
pub(crate) struct Created {
    pub(crate) id: String,
    pub(crate) waba_id: String,
    pub(crate) name: String,
    pub(crate) language: String,
    pub(crate) category: String,
    pub(crate) named: bool,
    pub(crate) components: Vec<Value>,
    /// When the current review ends.
    pub(crate) review_ends: DateTime<Utc>,
}

/// What a send of a template must give, whichever way the template came to exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expected {
    pub(crate) status: String,
    pub(crate) category: String,
    pub(crate) header: Header,
    pub(crate) body: BodyParams,
    pub(crate) url_button: bool,
}

/// The body's variables: how many positional ones, or which names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BodyParams {
    Positional(usize),
    Named(Vec<String>),
}

impl From<Body> for BodyParams {
    fn from(body: Body) -> Self {
        match body {
            Body::Positional(n) => Self::Positional(n),
            Body::Named(names) => Self::Named(names.iter().map(|n| (*n).to_owned()).collect()),
        }
    }
}

impl Created {
    pub(crate) fn rejected(&self) -> bool {
        self.name.contains("reject")
    }

    pub(crate) fn status(&self, now: DateTime<Utc>) -> &'static str {
        if now < self.review_ends {
            "PENDING"
        } else if self.rejected() {
            "REJECTED"
        } else {
            "APPROVED"
        }
    }

    /// The template as the listing shows it.
    pub(crate) fn definition(&self, now: DateTime<Utc>) -> Value {
        let status = self.status(now);
        json!({
            "id": self.id,
            "name": self.name,
            "language": self.language,
            "status": status,
            "category": self.category,
            "parameter_format": if self.named { "NAMED" } else { "POSITIONAL" },
            "components": self.components,
            "rejected_reason": if status == "REJECTED" { "INVALID_FORMAT" } else { "NONE" },
        })
    }

    pub(crate) fn expected(&self, now: DateTime<Utc>) -> Expected {
        let mut expected = Expected {
            status: self.status(now).to_owned(),
            category: self.category.clone(),
            header: Header::None,
            body: BodyParams::Positional(0),
            url_button: false,
        };
        for component in &self.components {
            let kind = text_of(component, "type").to_ascii_uppercase();
            match kind.as_str() {
                "HEADER" => {
                    expected.header = match text_of(component, "format").to_ascii_uppercase().as_str() {
                        "TEXT" if text_of(component, "text").contains("{{") => Header::Text,
                        "IMAGE" => Header::Media("image"),
                        "VIDEO" => Header::Media("video"),
                        "DOCUMENT" => Header::Media("document"),
                        _ => Header::None,
                    };
                }
                "BODY" => {
                    let names = placeholders(text_of(component, "text"));
                    expected.body = if self.named {
                        BodyParams::Named(names)
                    } else {
                        BodyParams::Positional(names.len())
                    };
                }
                "BUTTONS" => {
                    expected.url_button = component
                        .get("buttons")
                        .and_then(Value::as_array)
                        .and_then(|b| b.first())
                        .is_some_and(|b| {
                            text_of(b, "type").eq_ignore_ascii_case("URL")
                                && text_of(b, "url").ends_with("{{1}}")
                        });
                }
                _ => {}
            }
        }
        expected
    }

    /// The `message_template_status_update` callback announcing the review's outcome.
    pub(crate) fn status_callback(&self) -> Value {
        let event = if self.rejected() { "REJECTED" } else { "APPROVED" };
        json!({
            "object": "whatsapp_business_account",
            "entry": [{
                "id": self.waba_id,
                "time": self.review_ends.timestamp(),
                "changes": [{
                    "field": "message_template_status_update",
                    "value": {
                        "event": event,
                        "message_template_id": self.id.parse::<u64>().unwrap_or_default(),
                        "message_template_name": self.name,
                        "message_template_language": self.language,
                        "message_template_category": self.category,
                        "reason": if self.rejected() { "INVALID_FORMAT" } else { "NONE" },
                    },
                }],
            }],
        })
    }

    /// Starts a new review (a creation or an edit).
    pub(crate) fn review_from(&mut self, now: DateTime<Utc>, review_ms: u64) {
        self.review_ends = now + TimeDelta::milliseconds(i64::try_from(review_ms).unwrap_or(i64::MAX));
    }
}

fn text_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The distinct `{{…}}` variables of a text, in order of first appearance.
fn placeholders(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        let name = after[..end].trim().to_owned();
        if !found.contains(&name) {
            found.push(name);
        }
        rest = &after[end + 2..];
    }
    found
}
