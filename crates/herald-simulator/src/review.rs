//! Templates created through the simulator and the review it plays (docs/api.md §13): a new or edited
//! template is `PENDING` for [`crate::SimulatorConfig::template_review_ms`], then `APPROVED`, or `REJECTED`
//! with reason `INVALID_FORMAT` when its name contains `reject`; the outcome is also sent as a
//! `message_template_status_update` callback.

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Value, json};

use crate::expected::Expected;

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
        Expected::from_definition(&self.definition(now))
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
