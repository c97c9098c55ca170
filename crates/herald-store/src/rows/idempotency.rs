//! Rows of `idempotency_keys`, and the take-over rules read from them.

use super::shared::*;
use crate::error::corrupt;
use herald_domain::ids::MessageId;
use herald_domain::ports::{IdempotencyBegin, StoreError};
use herald_domain::values::RequestFingerprint;

/// The `state` of an idempotency record still being processed.
pub(crate) const IDEMPOTENCY_PENDING: &str = "pending";
/// The `state` of an idempotency record whose request produced a message.
pub(crate) const IDEMPOTENCY_COMPLETED: &str = "completed";

row! {
    #[derive(Debug)]
    pub(crate) struct IdempotencyRow in idempotency_keys {
        pub fingerprint: String,
        pub state: String,
        pub message_id: Option<String>,
        pub locked_at: Time,
        pub completed_at: Option<Time>,
    }
}

impl IdempotencyRow {
    /// Applies the take-over rules of `MessageStore::begin_idempotent` to this record: the answer for a
    /// live record, `None` for one that may be taken over (an abandoned claim or an expired completion).
    pub(crate) fn answer(
        &self,
        lock_until: Time,
        completed_after: Time,
    ) -> Result<Option<IdempotencyBegin>, StoreError> {
        let fingerprint = parse(
            "idempotency fingerprint",
            RequestFingerprint::from_hex(&self.fingerprint),
        )?;
        match self.state.as_str() {
            IDEMPOTENCY_PENDING if self.locked_at < lock_until => Ok(None),
            IDEMPOTENCY_PENDING => Ok(Some(IdempotencyBegin::InFlight { fingerprint })),
            IDEMPOTENCY_COMPLETED => {
                let completed_at = self.completed_at.unwrap_or(self.locked_at);
                if completed_at < completed_after {
                    return Ok(None);
                }
                let message_id = self
                    .message_id
                    .as_deref()
                    .ok_or_else(|| corrupt("idempotency record", "completed without a message"))?;
                Ok(Some(IdempotencyBegin::Completed {
                    fingerprint,
                    message_id: parse("message id", MessageId::parse(message_id))?,
                }))
            }
            other => Err(corrupt("idempotency state", other)),
        }
    }
}
