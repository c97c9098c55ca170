use super::shared::{check_limit, page_of};
use crate::contact::Recipient;
use crate::ids::{MessageId, OrganizationId};
use crate::message::{Message, StatusEvent};
use crate::organization::choose_sender;
use crate::ports::{AccountStore, Clock, MessageQuery, MessageStore, StoreError, WindowStore};
use crate::time::Timestamp;
use crate::values::PhoneNumber;
use crate::window::ServiceWindow;
use crate::{FieldError, ValidationErrors};
use std::sync::Arc;

/// Why a read found nothing to show.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// No such id for this organization (another organization's id included).
    #[error("not found")]
    NotFound,
    #[error("validation failed: {0}")]
    Invalid(ValidationErrors),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// One message of the caller's organization.
pub struct GetMessage {
    messages: Arc<dyn MessageStore>,
}

impl GetMessage {
    pub fn new(messages: Arc<dyn MessageStore>) -> Self {
        Self { messages }
    }

    /// # Errors
    /// [`QueryError::NotFound`] for an unknown id or another organization's.
    pub async fn execute(
        &self,
        organization: &OrganizationId,
        id: &MessageId,
    ) -> Result<Message, QueryError> {
        self.messages
            .message(organization, id)
            .await?
            .ok_or(QueryError::NotFound)
    }
}

/// A page of the message log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessagePage {
    pub messages: Vec<Message>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<MessageId>,
}

/// The message log, newest first, in pages.
pub struct ListMessages {
    messages: Arc<dyn MessageStore>,
}

impl ListMessages {
    pub const DEFAULT_LIMIT: u32 = 50;
    pub const MAX_LIMIT: u32 = 200;

    pub fn new(messages: Arc<dyn MessageStore>) -> Self {
        Self { messages }
    }

    /// Reads one page. `query.before` is the cursor; `query.limit` must be 1 to 200.
    ///
    /// # Errors
    /// [`QueryError::Invalid`] for a limit out of range.
    pub async fn execute(
        &self,
        organization: &OrganizationId,
        query: MessageQuery,
    ) -> Result<MessagePage, QueryError> {
        check_limit(query.limit, Self::MAX_LIMIT).map_err(QueryError::Invalid)?;
        let limit = query.limit;
        let probe = MessageQuery {
            limit: limit + 1,
            ..query
        };
        let rows = self.messages.messages(organization, &probe).await?;
        let (messages, next) = page_of(rows, limit, |m| m.id);
        Ok(MessagePage { messages, next })
    }
}

/// A message's status history, oldest first.
pub struct MessageEvents {
    messages: Arc<dyn MessageStore>,
}

impl MessageEvents {
    pub fn new(messages: Arc<dyn MessageStore>) -> Self {
        Self { messages }
    }

    /// # Errors
    /// [`QueryError::NotFound`] for an unknown id or another organization's.
    pub async fn execute(
        &self,
        organization: &OrganizationId,
        id: &MessageId,
    ) -> Result<Vec<StatusEvent>, QueryError> {
        self.messages
            .status_history(organization, id)
            .await?
            .ok_or(QueryError::NotFound)
    }
}

/// The answer of `GET /contacts/{number}/window`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowView {
    pub number: PhoneNumber,
    pub from: PhoneNumber,
    pub open: bool,
    pub last_inbound_at: Option<Timestamp>,
    pub expires_at: Option<Timestamp>,
}

/// Whether free-form messages to a number may go now.
pub struct WindowStatus {
    accounts: Arc<dyn AccountStore>,
    windows: Arc<dyn WindowStore>,
    clock: Arc<dyn Clock>,
}

impl WindowStatus {
    pub fn new(
        accounts: Arc<dyn AccountStore>,
        windows: Arc<dyn WindowStore>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            accounts,
            windows,
            clock,
        }
    }

    /// # Errors
    /// [`QueryError::Invalid`] on `from` when it is not a sender of the organization (or none is default).
    pub async fn execute(
        &self,
        organization: &OrganizationId,
        number: PhoneNumber,
        from: Option<PhoneNumber>,
    ) -> Result<WindowView, QueryError> {
        let senders = self.accounts.senders(organization).await?;
        let sender = choose_sender(&senders, from.as_ref()).ok_or_else(|| {
            QueryError::Invalid(ValidationErrors::from(FieldError::new(
                "from",
                match &from {
                    Some(number) => format!("{number} is not a sender number of this organization"),
                    None => "the organization has no default sender number; name one in `from`".to_owned(),
                },
            )))
        })?;
        let window = self
            .windows
            .window(organization, &sender.id, &Recipient::Number(number.clone()))
            .await?;
        let now = self.clock.now();
        Ok(WindowView {
            open: window.as_ref().is_some_and(|w| w.is_open_at(now)),
            last_inbound_at: window.as_ref().map(|w| w.last_inbound_at),
            expires_at: window.as_ref().map(ServiceWindow::expires_at),
            number,
            from: sender.number.clone(),
        })
    }
}
