//! Inbound messages as resources: the list, one message, and marking one read on the network.

use super::queries::QueryError;
use super::shared::{check_limit, page_of};
use crate::ValidationErrors;
use crate::ids::{InboundId, OrganizationId};
use crate::ports::{
    AccountStore, Clock, InboundQuery, InboundStore, InboundView, MessagingNetwork, NetworkError, StoreError,
};
use std::sync::Arc;

/// A page of inbound messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundPage {
    pub messages: Vec<InboundView>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<InboundId>,
}

/// Why an inbound message could not be marked read.
#[derive(Debug, thiserror::Error)]
pub enum MarkReadError {
    /// No such id for this organization (another organization's id included), or its receiving number
    /// is gone.
    #[error("not found")]
    NotFound,
    /// The network did not take the read receipt; nothing was recorded.
    #[error(transparent)]
    Network(NetworkError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The ports the inbound use cases need.
pub struct InboundMessages {
    inbound: Arc<dyn InboundStore>,
    accounts: Arc<dyn AccountStore>,
    network: Arc<dyn MessagingNetwork>,
    clock: Arc<dyn Clock>,
}

impl InboundMessages {
    pub const DEFAULT_LIMIT: u32 = 50;
    pub const MAX_LIMIT: u32 = 200;

    pub fn new(
        inbound: Arc<dyn InboundStore>,
        accounts: Arc<dyn AccountStore>,
        network: Arc<dyn MessagingNetwork>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            inbound,
            accounts,
            network,
            clock,
        }
    }

    /// Reads one page, newest first. `query.before` is the cursor; `query.limit` must be 1 to 200.
    ///
    /// # Errors
    /// [`QueryError::Invalid`] for a limit out of range or `since` not before `until`.
    pub async fn list(
        &self,
        organization: &OrganizationId,
        query: InboundQuery,
    ) -> Result<InboundPage, QueryError> {
        check_limit(query.limit, Self::MAX_LIMIT).map_err(QueryError::Invalid)?;
        if let (Some(since), Some(until)) = (query.since, query.until)
            && since >= until
        {
            return Err(QueryError::Invalid(ValidationErrors::single(
                "until",
                "must be after `since`",
            )));
        }
        let limit = query.limit;
        let probe = InboundQuery {
            limit: limit + 1,
            ..query
        };
        let rows = self.inbound.inbound_messages(organization, &probe).await?;
        let (messages, next) = page_of(rows, limit, |m| m.id);
        Ok(InboundPage { messages, next })
    }

    /// # Errors
    /// [`QueryError::NotFound`] for an unknown id or another organization's.
    pub async fn get(
        &self,
        organization: &OrganizationId,
        id: &InboundId,
    ) -> Result<InboundView, QueryError> {
        self.inbound
            .inbound_message(organization, id)
            .await?
            .ok_or(QueryError::NotFound)
    }

    /// Marks the message read on the network with the receiving number's credentials (and shows the
    /// typing indicator with `typing`), then records when. Nothing is recorded when the network refuses.
    ///
    /// # Errors
    /// See [`MarkReadError`].
    #[tracing::instrument(name = "mark_inbound_read", skip_all, fields(org = %organization, inbound = %id))]
    pub async fn mark_read(
        &self,
        organization: &OrganizationId,
        id: &InboundId,
        typing: bool,
    ) -> Result<InboundView, MarkReadError> {
        let view = self
            .inbound
            .inbound_message(organization, id)
            .await?
            .ok_or(MarkReadError::NotFound)?;
        let senders = self.accounts.senders(organization).await?;
        let sender = senders
            .iter()
            .find(|sender| sender.id == view.sender_id)
            .ok_or(MarkReadError::NotFound)?;
        self.network
            .mark_read(sender, &view.network_message_id, typing)
            .await
            .map_err(MarkReadError::Network)?;
        self.inbound
            .mark_inbound_read(organization, id, self.clock.now())
            .await?
            .ok_or(MarkReadError::NotFound)
    }
}
