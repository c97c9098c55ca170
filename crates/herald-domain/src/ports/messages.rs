//! Messages, their status history, quota counts and the one-transaction accept.

use super::error::StoreError;
use super::idempotency::{IdempotencyBegin, IdempotencyClaim, IdempotencyHold};
use super::outbox::OutboxJob;
use crate::content::MessageRef;
use crate::customer_event::CustomerEvent;
use crate::ids::{MessageId, OrganizationId, SenderId};
use crate::message::{Message, MessageStatus, MessageType, StatusEvent};
use crate::time::{BillingPeriod, Timestamp};
use crate::values::ClientReference;
use async_trait::async_trait;

/// The monthly quota this accept counts against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotaCharge {
    pub period: BillingPeriod,
    /// `None`: unlimited, but still counted.
    pub limit: Option<u64>,
}

/// Everything written when a message is accepted, in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptRequest {
    pub message: Message,
    /// Its first status event (`accepted`, or `scheduled`).
    pub event: StatusEvent,
    /// The customer event the acceptance emits, written (and fanned out to the webhook endpoints) in the
    /// same transaction: a scheduled message's `message.status` `scheduled`
    /// ([`crate::customer_event::scheduled`]); `None` for an immediate send.
    pub customer_event: Option<CustomerEvent>,
    pub job: OutboxJob,
    pub quota: QuotaCharge,
    /// Completed in the same transaction, so a replay finds the message exactly when it exists; only while
    /// this claim still holds the key.
    pub idempotency: Option<IdempotencyHold>,
    /// Refuse the accept, writing nothing, when the recipient's contact refuses a send of this purpose
    /// ([`crate::contact::RecipientRefusal::all_for`]: blocked; a marketing template to someone who
    /// stopped them). The store reads the contacts of a whole group-committed batch in the accept's own
    /// transaction, so a send makes no read of its own for it. `None`: not checked.
    pub recipient_check: Option<crate::contact::SendPurpose>,
}

/// The outcome of [`MessageStore::accept`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcceptOutcome {
    Accepted,
    /// The quota had no room: nothing was written.
    QuotaExceeded,
    /// The request's idempotency claim lapsed and another request took the key over: nothing was written
    /// (the key belongs to the other request now).
    IdempotencyClaimLost,
    /// The recipient refuses it ([`AcceptRequest::recipient_check`]): nothing was written. Checked before
    /// the quota, so a refused send is not counted.
    RecipientRefused(crate::contact::RecipientRefusal),
}

/// Filters and position of a message log read, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageQuery {
    pub status: Option<MessageStatus>,
    /// The recipient as the send named them: a number or a business-scoped user id.
    pub to: Option<crate::contact::Recipient>,
    pub message_type: Option<MessageType>,
    pub client_reference: Option<ClientReference>,
    /// Only the messages of this broadcast.
    pub broadcast: Option<crate::ids::BroadcastId>,
    /// Inclusive.
    pub created_after: Option<Timestamp>,
    /// Exclusive.
    pub created_before: Option<Timestamp>,
    /// Only messages whose id sorts before this one (the cursor).
    pub before: Option<MessageId>,
    /// At most this many rows.
    pub limit: u32,
}

/// What a reply or a reaction may point at: a message of the organization, sent or received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferencedMessage {
    /// The business number that sent or received it.
    pub sender_id: SenderId,
    /// The customer: an outbound message's `to` (a number or a user id), an inbound message's `from`.
    pub counterpart: crate::contact::Recipient,
    /// The network's id (`wamid…`); `None` while an outbound message is still `accepted`.
    pub network_message_id: Option<String>,
}

/// Messages, their status history, the outbox, quota counts and idempotency records.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait MessageStore: Send + Sync + 'static {
    /// Claims `claim.key` for one request.
    ///
    /// An abandoned pending claim (past `lock_until`) or a completed record older than
    /// `completed_after` is taken over and answers [`IdempotencyBegin::Started`].
    async fn begin_idempotent(&self, claim: &IdempotencyClaim) -> Result<IdempotencyBegin, StoreError>;

    /// Drops a pending claim whose request was refused, so nothing of it stays. Completed records, and a
    /// claim another request took over (another token), are left alone.
    async fn release_idempotent(
        &self,
        organization: &OrganizationId,
        hold: &IdempotencyHold,
    ) -> Result<(), StoreError>;

    /// Accepts a message: writes the message, its first event, its outbox job, the quota count and the
    /// idempotency record in ONE transaction, or nothing at all. With an idempotency hold whose claim is no
    /// longer the record's (its lock lapsed and another request took the key over), nothing is written and
    /// the answer is [`AcceptOutcome::IdempotencyClaimLost`].
    ///
    /// # Errors
    /// [`StoreError::Conflict`] on a duplicate message id.
    async fn accept(&self, request: &AcceptRequest) -> Result<AcceptOutcome, StoreError>;

    async fn message(
        &self,
        organization: &OrganizationId,
        id: &MessageId,
    ) -> Result<Option<Message>, StoreError>;

    /// The message `reference` names, outbound (`messages`) or inbound (`inbound_messages`), if it is one of
    /// `organization`'s: another organization's id answers `None`, as an unknown one does. A `msg_` id that
    /// is no sent message is looked up among the received ones too (recorded before they had `inb_` ids).
    async fn referenced(
        &self,
        organization: &OrganizationId,
        reference: &MessageRef,
    ) -> Result<Option<ReferencedMessage>, StoreError>;

    /// The log, newest first (by id), filtered.
    async fn messages(
        &self,
        organization: &OrganizationId,
        query: &MessageQuery,
    ) -> Result<Vec<Message>, StoreError>;

    /// The message's status history, oldest first; `None` when the message does not exist.
    async fn status_history(
        &self,
        organization: &OrganizationId,
        id: &MessageId,
    ) -> Result<Option<Vec<StatusEvent>>, StoreError>;

    /// Messages counted against the quota in `period`.
    async fn usage(&self, organization: &OrganizationId, period: &BillingPeriod) -> Result<u64, StoreError>;
}
