//! The contact resource (docs/api.md §7.1) and the STOP keyword rule.

use super::{time, time_opt};
use herald_domain::contact::KeywordRule;
use herald_domain::usecases::ContactView;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A person as the organization knows them: window, marketing preference and block state.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({
    "number": "+15551234567",
    "user_id": "US.13491208655302741918",
    "window": {"from": "+15550001111", "open": true, "last_inbound_at": "2026-11-21T10:15:30.123Z", "expires_at": "2026-11-22T10:15:30.123Z"},
    "marketing": "stopped",
    "marketing_source": "network",
    "marketing_changed_at": "2026-11-21T10:16:00.000Z",
    "blocked": false,
    "blocked_at": null
}))]
pub struct ContactResource {
    /// E.164, when known.
    pub number: Option<String>,
    /// The business-scoped user id, when known.
    pub user_id: Option<String>,
    /// The 24-hour window with the sender asked for (`from`, default: the default sender); `null` when the
    /// organization has no sender, and closed when only the user id is known.
    pub window: Option<ContactWindowResource>,
    /// `allowed` or `stopped`.
    #[schema(example = "allowed")]
    pub marketing: String,
    /// Who last changed `marketing`: `network` (the person, in WhatsApp), `api`, or `keyword`.
    pub marketing_source: Option<String>,
    #[schema(format = DateTime)]
    pub marketing_changed_at: Option<String>,
    pub blocked: bool,
    #[schema(format = DateTime)]
    pub blocked_at: Option<String>,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// A contact's service window with one sender (docs/api.md §7).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ContactWindowResource {
    #[schema(example = "+15550001111")]
    pub from: String,
    pub open: bool,
    #[schema(format = DateTime)]
    pub last_inbound_at: Option<String>,
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
}

impl From<&ContactView> for ContactResource {
    fn from(view: &ContactView) -> Self {
        let contact = &view.contact;
        Self {
            number: contact.number.as_ref().map(|n| n.as_str().to_owned()),
            user_id: contact.user_id.as_ref().map(|u| u.as_str().to_owned()),
            window: view.window.as_ref().map(|window| ContactWindowResource {
                from: window.from.as_str().to_owned(),
                open: window.open,
                last_inbound_at: time_opt(window.last_inbound_at),
                expires_at: time_opt(window.expires_at),
            }),
            marketing: contact.marketing.as_str().to_owned(),
            marketing_source: contact.marketing_source.map(|s| s.as_str().to_owned()),
            marketing_changed_at: time_opt(contact.marketing_changed_at),
            blocked: contact.blocked,
            blocked_at: time_opt(contact.blocked_at),
            updated_at: time(contact.updated_at),
        }
    }
}

/// The organization's STOP keyword rule: an inbound text that is exactly one of `stop` (trimmed, any case)
/// stops marketing messages to its sender; one of `resume` allows them again. Both empty: the rule is off
/// (the default). Both are required when the rule is replaced: the rule is turned off by sending both empty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"stop": ["STOP", "UNSUBSCRIBE"], "resume": ["START"]}))]
pub struct KeywordRuleResource {
    /// At most 20 keywords of 1 to 32 characters; stored upper-case.
    pub stop: Vec<String>,
    /// At most 20 keywords of 1 to 32 characters; none may also be a stop keyword.
    pub resume: Vec<String>,
}

impl From<&KeywordRule> for KeywordRuleResource {
    fn from(rule: &KeywordRule) -> Self {
        Self {
            stop: rule.stop.clone(),
            resume: rule.resume.clone(),
        }
    }
}

/// What `DELETE /api/v1/contacts/{recipient}` did (docs/api.md §7.2). A repeated erasure answers the
/// same marker with nothing new counted.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({
    "erased": "erased:9f2c4e8b1a7d3f6e0c5b2a9d8e7f1c3b4a6d9e2f0c8b7a5d3e1f9c2b4a6d8e0f",
    "cancelled": 1,
    "messages": 12,
    "inbound": 4,
    "files": 1
}))]
pub struct ErasureResource {
    /// What the person's kept rows (and the `contact.erased` event) hold instead of their number or user
    /// id: `erased:` and a keyed one-way digest, the same at every erasure of them.
    pub erased: String,
    /// Queued messages cancelled first (their quota given back).
    pub cancelled: u64,
    /// Sent messages whose content was erased by this request.
    pub messages: u64,
    /// Received messages whose content was erased by this request.
    pub inbound: u64,
    /// Uploaded files deleted with their bytes.
    pub files: u64,
}

impl From<&herald_domain::usecases::Erased> for ErasureResource {
    fn from(erased: &herald_domain::usecases::Erased) -> Self {
        Self {
            erased: erased.marker.as_str().to_owned(),
            cancelled: erased.cancelled,
            messages: erased.messages,
            inbound: erased.inbound,
            files: erased.files,
        }
    }
}
