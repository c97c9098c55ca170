//! Inbound messages as resources (docs/api.md §5.1): the list, one message, and the moment it was read.
//! They are written by the [`super::TrackingStore`] when the network delivers them.

use super::error::StoreError;
use crate::contact::Recipient;
use crate::ids::{InboundId, OrganizationId, SenderId};
use crate::time::Timestamp;
use crate::values::PhoneNumber;
use async_trait::async_trait;

/// Filters and position of an inbound list read, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InboundQuery {
    /// The business number that received it.
    pub number: Option<PhoneNumber>,
    /// The customer who sent it: their number, or their user id for messages that came without one.
    pub sender: Option<Recipient>,
    /// The network's `type` (`text`, `image`, `reaction`, `interactive`, …).
    pub message_type: Option<String>,
    /// Received at or after (inclusive).
    pub since: Option<Timestamp>,
    /// Received before (exclusive).
    pub until: Option<Timestamp>,
    /// Only messages whose id sorts before this one (the cursor).
    pub before: Option<InboundId>,
    /// At most this many rows.
    pub limit: u32,
}

/// One inbound message as the API shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundView {
    pub id: InboundId,
    pub organization_id: OrganizationId,
    /// The sender number (business number) that received it.
    pub sender_id: SenderId,
    pub to: PhoneNumber,
    pub from: Recipient,
    /// The wamid, which marks it read on the network.
    pub network_message_id: String,
    pub message_type: String,
    pub received_at: Timestamp,
    /// When the business marked it read through Herald.
    pub read_at: Option<Timestamp>,
    /// The resource's JSON (docs/api.md §5.1). The store writes it with the serializer of the
    /// `message.inbound` event, so the resource and the event's `data` cannot drift apart.
    pub json: String,
}

/// Inbound messages, scoped to their organization.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait InboundStore: Send + Sync + 'static {
    /// The organization's inbound messages, newest first (by id), filtered.
    async fn inbound_messages(
        &self,
        organization: &OrganizationId,
        query: &InboundQuery,
    ) -> Result<Vec<InboundView>, StoreError>;

    /// One inbound message; `None` for an unknown id or another organization's.
    async fn inbound_message(
        &self,
        organization: &OrganizationId,
        id: &InboundId,
    ) -> Result<Option<InboundView>, StoreError>;

    /// Records that the message was read at `at` and answers it as it is then. The first time stays: a
    /// second read changes nothing. `None` for an unknown id or another organization's.
    async fn mark_inbound_read(
        &self,
        organization: &OrganizationId,
        id: &InboundId,
        at: Timestamp,
    ) -> Result<Option<InboundView>, StoreError>;
}
