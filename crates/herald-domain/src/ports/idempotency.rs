//! Claims of `Idempotency-Key`s, held by [`super::MessageStore`].

use crate::ids::{MessageId, OrganizationId};
use crate::time::Timestamp;
use crate::values::{IdempotencyKey, RequestFingerprint};

/// The result of claiming an `Idempotency-Key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyBegin {
    /// The key is now held by this request until it completes or is released.
    Started,
    /// A request with this key already completed and produced `message_id`.
    Completed {
        fingerprint: RequestFingerprint,
        message_id: MessageId,
    },
    /// A request with this key is still being processed.
    InFlight { fingerprint: RequestFingerprint },
}

/// Claim of an `Idempotency-Key` for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyClaim {
    pub organization_id: OrganizationId,
    pub key: IdempotencyKey,
    /// Identifies this claim: once its lock lapses and another request takes the key over, completing or
    /// releasing with this token changes nothing.
    pub token: crate::dispatch::ClaimToken,
    pub fingerprint: RequestFingerprint,
    pub now: Timestamp,
    /// A pending claim older than this is abandoned (its process died) and may be taken over.
    pub lock_until: Timestamp,
    /// A completed record older than this (24 h) is forgotten and may be taken over.
    pub completed_after: Timestamp,
}

impl IdempotencyClaim {
    /// What the request holds once the claim [`IdempotencyBegin::Started`].
    pub fn hold(&self) -> IdempotencyHold {
        IdempotencyHold {
            key: self.key.clone(),
            token: self.token,
        }
    }
}

/// An `Idempotency-Key` as one request holds it: the key and the token of its claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyHold {
    pub key: IdempotencyKey,
    pub token: crate::dispatch::ClaimToken,
}
