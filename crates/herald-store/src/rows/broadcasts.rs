//! Rows of `broadcasts`.

use super::shared::*;
use herald_domain::broadcast::{Broadcast, BroadcastState, PauseReason};
use herald_domain::ids::{BroadcastId, OrganizationId, SenderId};
use herald_domain::ports::{DueBroadcast, KeyedBroadcast, StoreError};
use herald_domain::template::{LanguageCode, TemplateName, TemplateRef};
use herald_domain::values::{PhoneNumber, RequestFingerprint};
use serde::{Deserialize, Serialize};

row! {
    #[derive(Debug)]
    pub(crate) struct BroadcastRow in broadcasts {
        pub id: String,
        pub organization_id: String,
        pub sender_id: String,
        pub from_number: String,
        pub template_name: String,
        pub template_language: String,
        pub state: String,
        pub total: i32,
        pub released: i32,
        pub send_at: Option<Time>,
        pub pause: Option<String>,
        pub idempotency_key: Option<String>,
        pub request_fingerprint: Option<String>,
        pub progress_at: Option<Time>,
        pub failures_seen: Option<Time>,
        pub created_at: Time,
        pub updated_at: Time,
        pub completed_at: Option<Time>,
        pub cancelled_at: Option<Time>,
    }
}

/// A pause as stored (JSON in `broadcasts.pause`).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct PauseDto {
    code: String,
    detail: String,
    network_code: Option<i64>,
    paused_at: Time,
}

pub(crate) fn pause_json(pause: Option<&PauseReason>) -> Result<Option<String>, StoreError> {
    pause
        .map(|p| {
            to_json(
                "broadcast pause",
                &PauseDto {
                    code: p.code.clone(),
                    detail: p.detail.clone(),
                    network_code: p.network_code,
                    paused_at: p.paused_at,
                },
            )
        })
        .transpose()
}

impl BroadcastRow {
    pub(crate) fn new(
        broadcast: &Broadcast,
        key: Option<(&str, &RequestFingerprint)>,
    ) -> Result<Self, StoreError> {
        Ok(Self {
            id: broadcast.id.to_string(),
            organization_id: broadcast.organization_id.to_string(),
            sender_id: broadcast.sender_id.to_string(),
            from_number: broadcast.from.as_str().to_owned(),
            template_name: broadcast.template.name.as_str().to_owned(),
            template_language: broadcast.template.language.as_str().to_owned(),
            state: broadcast.state.as_str().to_owned(),
            total: to_i32("broadcast total", broadcast.total)?,
            released: to_i32("broadcast released", broadcast.released)?,
            send_at: broadcast.send_at,
            pause: pause_json(broadcast.pause.as_ref())?,
            idempotency_key: key.map(|(k, _)| k.to_owned()),
            request_fingerprint: key.map(|(_, f)| f.to_hex()),
            progress_at: None,
            failures_seen: None,
            created_at: broadcast.created_at,
            updated_at: broadcast.updated_at,
            completed_at: broadcast.completed_at,
            cancelled_at: broadcast.cancelled_at,
        })
    }

    pub(crate) fn keyed(&self) -> Result<Option<KeyedBroadcast>, StoreError> {
        let Some(fingerprint) = &self.request_fingerprint else {
            return Ok(None);
        };
        Ok(Some(KeyedBroadcast {
            id: parse("broadcast id", BroadcastId::parse(&self.id))?,
            fingerprint: parse("broadcast fingerprint", RequestFingerprint::from_hex(fingerprint))?,
        }))
    }

    /// With what the pacer needs of its sender.
    pub(crate) fn due(
        self,
        throughput_per_second: i32,
        messaging_limit: Option<String>,
    ) -> Result<DueBroadcast, StoreError> {
        let progress_at = self.progress_at;
        let failures_seen = self.failures_seen;
        Ok(DueBroadcast {
            broadcast: Broadcast::try_from(self)?,
            throughput_per_second: to_u32("sender throughput", throughput_per_second)?,
            messaging_limit,
            progress_at,
            failures_seen,
        })
    }
}

impl TryFrom<BroadcastRow> for Broadcast {
    type Error = StoreError;

    fn try_from(row: BroadcastRow) -> Result<Self, Self::Error> {
        let pause = row
            .pause
            .as_deref()
            .map(|text| from_json::<PauseDto>("broadcast pause", text))
            .transpose()?
            .map(|p| PauseReason {
                code: p.code,
                detail: p.detail,
                network_code: p.network_code,
                paused_at: p.paused_at,
            });
        Ok(Self {
            id: parse("broadcast id", BroadcastId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            sender_id: parse("sender id", SenderId::parse(&row.sender_id))?,
            from: parse("sender number", PhoneNumber::parse(&row.from_number))?,
            template: TemplateRef {
                name: parse("template name", TemplateName::parse(&row.template_name))?,
                language: parse("template language", LanguageCode::parse(&row.template_language))?,
            },
            state: BroadcastState::parse(&row.state)
                .ok_or_else(|| crate::error::corrupt("broadcast state", &row.state))?,
            total: to_u32("broadcast total", row.total)?,
            released: to_u32("broadcast released", row.released)?,
            send_at: row.send_at,
            pause,
            created_at: row.created_at,
            updated_at: row.updated_at,
            completed_at: row.completed_at,
            cancelled_at: row.cancelled_at,
        })
    }
}

/// A stored message error (JSON), for the pacer's look at a broadcast's failures.
pub(crate) fn parse_error_text(
    text: Option<&str>,
) -> Result<Option<herald_domain::message::MessageError>, StoreError> {
    parse_error(text)
}
