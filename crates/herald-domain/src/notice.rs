//! Notices: what the network says about a business account's templates, numbers and standing
//! ([`AccountNotice`]), decided here into the change of Herald's copy and the one customer event each
//! organization receives (`template.status`, `template.quality`, `template.category`, `sender.quality`,
//! `account.update`; docs/api.md §9). The store calls [`decide`] on the rows it locked, as it calls
//! `status::decide` for a message, and writes what it returns.

use crate::ids::{EventId, OrganizationId, SenderId};
use crate::network::{AccountNotice, NoticeChange, NoticeInfo, NoticeTemplate, QualityScore};
use crate::organization::NetworkRef;
use crate::template::{TemplateHealth, TemplateStatus};
use crate::time::Timestamp;
use crate::values::PhoneNumber;

/// A notice routed to one organization, ready to be recorded there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeRecord {
    pub organization_id: OrganizationId,
    /// The id its customer event gets.
    pub event_id: EventId,
    pub recorded_at: Timestamp,
    pub notice: AccountNotice,
    /// For a number's notice: the organization's sender with that number.
    pub sender: Option<NoticeSender>,
}

/// The sender a number's notice is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeSender {
    pub id: SenderId,
    pub number: PhoneNumber,
}

/// A number's quality and messaging limit as the network last reported them (docs/api.md §6.2).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SenderQuality {
    /// `GREEN`, `YELLOW`, `RED` or `UNKNOWN`.
    pub quality_rating: Option<String>,
    /// `TIER_250`, `TIER_1K`, `TIER_10K`, `TIER_100K`, `TIER_UNLIMITED`, …
    pub messaging_limit: Option<String>,
    /// When the network last reported either.
    pub quality_updated_at: Option<Timestamp>,
}

/// The parts of a template copy a notice may change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateState {
    pub status: TemplateStatus,
    pub category: String,
    pub health: TemplateHealth,
}

/// The customer event of a notice: not about a message, so it has no message id and no sequence (events
/// of one template or number are ordered by `occurred_at`, the network's time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeEvent {
    pub id: EventId,
    pub organization_id: OrganizationId,
    pub occurred_at: Timestamp,
    pub recorded_at: Timestamp,
    /// The notice's key: an organization records one event per key.
    pub dedupe_key: String,
    pub body: NoticeBody,
}

/// What a notice's event says, by kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticeBody {
    TemplateStatus {
        template: NoticeTemplate,
        /// The network's event as it came (`APPROVED`, `REINSTATED`, `PAUSED`, …).
        event: TemplateStatus,
        /// The template's status after it (`REINSTATED` and `UNARCHIVED` leave it `APPROVED`).
        status: TemplateStatus,
        /// The status of Herald's copy before; `None` when Herald had no copy.
        previous_status: Option<TemplateStatus>,
        reason: Option<String>,
        info: Option<NoticeInfo>,
    },
    TemplateQuality {
        template: NoticeTemplate,
        quality: QualityScore,
        previous_quality: Option<QualityScore>,
    },
    TemplateCategory {
        template: NoticeTemplate,
        category: String,
        previous_category: Option<String>,
        correct_category: Option<String>,
    },
    SenderQuality {
        sender: NoticeSender,
        event: String,
        quality_rating: Option<String>,
        messaging_limit: Option<String>,
        previous_limit: Option<String>,
    },
    AccountUpdate {
        waba_id: NetworkRef,
        field: String,
        event: String,
        details_json: String,
    },
}

impl NoticeEvent {
    /// The event's `type`, which follows from its body.
    pub fn event_type(&self) -> crate::customer_event::CustomerEventType {
        use crate::customer_event::CustomerEventType as T;
        match &self.body {
            NoticeBody::TemplateStatus { .. } => T::TemplateStatus,
            NoticeBody::TemplateQuality { .. } => T::TemplateQuality,
            NoticeBody::TemplateCategory { .. } => T::TemplateCategory,
            NoticeBody::SenderQuality { .. } => T::SenderQuality,
            NoticeBody::AccountUpdate { .. } => T::AccountUpdate,
        }
    }
}

/// What recording a notice writes: the new state of the template copy or the sender (when the organization
/// has one to change) and the event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeDecision {
    pub template: Option<TemplateState>,
    pub sender: Option<SenderQuality>,
    pub event: NoticeEvent,
}

/// The template a notice is about, if it is about one.
pub fn template_of(notice: &AccountNotice) -> Option<&NoticeTemplate> {
    match &notice.change {
        NoticeChange::TemplateStatus { template, .. }
        | NoticeChange::TemplateQuality { template, .. }
        | NoticeChange::TemplateCategory { template, .. } => Some(template),
        NoticeChange::SenderQuality { .. } | NoticeChange::Account { .. } => None,
    }
}

/// The quality rating a number's event implies. The webhook says only that the number was flagged (its
/// quality is low) or unflagged; other events (limits, throughput) say nothing of the rating.
fn rating_of(event: &str) -> Option<&'static str> {
    match event {
        "FLAGGED" => Some("RED"),
        "UNFLAGGED" => Some("GREEN"),
        _ => None,
    }
}

/// The status a template has after the network's status event: the events that give an archived or
/// reinstated template back leave it `APPROVED`; every other event is the status it names.
fn status_after(event: &TemplateStatus) -> TemplateStatus {
    match event.as_str() {
        "REINSTATED" | "UNARCHIVED" => TemplateStatus::approved(),
        _ => event.clone(),
    }
}

/// Decides what `record` changes, given the organization's template copy it names (`template`, `None` when
/// Herald has none yet: the event is still sent, and the next sync brings the copy) or the current quality
/// of its sender.
pub fn decide(
    record: &NoticeRecord,
    template: Option<&TemplateState>,
    sender: Option<&SenderQuality>,
) -> NoticeDecision {
    let notice = &record.notice;
    let touched = |health: &TemplateHealth| TemplateHealth {
        updated_at: Some(record.recorded_at),
        ..health.clone()
    };
    let (new_template, new_sender, body) = match &notice.change {
        NoticeChange::TemplateStatus {
            template: named,
            status,
            reason,
            info,
        } => {
            let event = status;
            let status = &status_after(event);
            let rejected = status.as_str() == "REJECTED";
            let next = template.map(|current| TemplateState {
                status: status.clone(),
                category: current.category.clone(),
                health: TemplateHealth {
                    // A rejection's reason stays until the template is reviewed again.
                    rejected_reason: if rejected { reason.clone() } else { None },
                    ..touched(&current.health)
                },
            });
            let body = NoticeBody::TemplateStatus {
                template: named.clone(),
                event: event.clone(),
                status: status.clone(),
                previous_status: template.map(|t| t.status.clone()),
                reason: reason.clone(),
                info: info.clone(),
            };
            (next, None, body)
        }
        NoticeChange::TemplateQuality {
            template: named,
            previous,
            quality,
        } => {
            let next = template.map(|current| TemplateState {
                health: TemplateHealth {
                    quality: Some(quality.clone()),
                    ..touched(&current.health)
                },
                ..current.clone()
            });
            let previous_quality = previous
                .clone()
                .or_else(|| template.and_then(|t| t.health.quality.clone()));
            let body = NoticeBody::TemplateQuality {
                template: named.clone(),
                quality: quality.clone(),
                previous_quality,
            };
            (next, None, body)
        }
        NoticeChange::TemplateCategory {
            template: named,
            previous,
            category,
            correct,
        } => {
            let next = template.map(|current| TemplateState {
                category: category.clone(),
                health: touched(&current.health),
                ..current.clone()
            });
            let previous_category = previous.clone().or_else(|| template.map(|t| t.category.clone()));
            let body = NoticeBody::TemplateCategory {
                template: named.clone(),
                category: category.clone(),
                previous_category,
                correct_category: correct.clone(),
            };
            (next, None, body)
        }
        NoticeChange::SenderQuality {
            event,
            current_limit,
            old_limit,
            ..
        } => {
            let current = sender.cloned().unwrap_or_default();
            let next = SenderQuality {
                quality_rating: rating_of(event).map(str::to_owned).or(current.quality_rating),
                messaging_limit: current_limit.clone().or(current.messaging_limit.clone()),
                quality_updated_at: Some(notice.occurred_at),
            };
            let previous_limit = old_limit.clone().or(current.messaging_limit);
            let body = match &record.sender {
                Some(named) => NoticeBody::SenderQuality {
                    sender: named.clone(),
                    event: event.clone(),
                    quality_rating: next.quality_rating.clone(),
                    messaging_limit: next.messaging_limit.clone(),
                    previous_limit,
                },
                // Routed without a sender (it should not be): said as an account event rather than lost.
                None => NoticeBody::AccountUpdate {
                    waba_id: notice.waba_id.clone(),
                    field: "phone_number_quality_update".to_owned(),
                    event: event.clone(),
                    details_json: "{}".to_owned(),
                },
            };
            (None, record.sender.as_ref().map(|_| next), body)
        }
        NoticeChange::Account {
            field,
            event,
            details_json,
        } => (
            None,
            None,
            NoticeBody::AccountUpdate {
                waba_id: notice.waba_id.clone(),
                field: field.clone(),
                event: event.clone(),
                details_json: details_json.clone(),
            },
        ),
    };
    NoticeDecision {
        template: new_template,
        sender: new_sender,
        event: NoticeEvent {
            id: record.event_id,
            organization_id: record.organization_id,
            occurred_at: notice.occurred_at,
            recorded_at: record.recorded_at,
            dedupe_key: notice.dedupe_key.clone(),
            body,
        },
    }
}

#[cfg(test)]
mod tests;
