//! The domain's errors, each mapped to the [`ApiError`] it answers as.

use super::{ApiError, RateScope};
use herald_domain::contact::RecipientRefusal;
use herald_domain::organization::MessageKind;
use herald_domain::ports::NetworkError;
use herald_domain::ports::StoreError;
use herald_domain::ports::UploadError;
use herald_domain::usecases::{
    AuthError, BroadcastChangeError, BroadcastError, CancelError, ContactError, MarkReadError,
    MediaContentError, QueryError, SendError, StorageFull, UploadMediaError,
};

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable(reason) => Self::Unavailable(reason),
            other => Self::Internal(anyhow::Error::new(other)),
        }
    }
}

impl From<AuthError> for ApiError {
    fn from(error: AuthError) -> Self {
        match error {
            AuthError::Unauthenticated => Self::Unauthenticated,
            AuthError::KeyDisabled => Self::KeyDisabled,
            AuthError::AccountInactive => Self::AccountInactive,
            AuthError::Store(store) => store.into(),
        }
    }
}

impl From<SendError> for ApiError {
    fn from(error: SendError) -> Self {
        match error {
            SendError::Recipient {
                refusal: RecipientRefusal::Blocked,
                to,
            } => Self::RecipientBlocked(to.to_string()),
            SendError::Recipient {
                refusal: RecipientRefusal::OptedOut,
                to,
            } => Self::RecipientOptedOut(to.to_string()),
            SendError::AccountInactive => Self::AccountInactive,
            SendError::PlanForbids(kind) => Self::PlanForbids(kind),
            SendError::RateLimited {
                limit,
                retry_after_seconds,
            } => Self::RateLimited {
                limit,
                retry_after_seconds: retry_after_seconds.max(1),
                scope: RateScope::Sends,
            },
            SendError::Invalid(errors) => Self::Validation(errors),
            SendError::TemplateNotFound(reference) => Self::TemplateNotFound(reference),
            SendError::TemplateNotApproved(status) => Self::TemplateNotApproved(status),
            SendError::TemplateMismatch(detail) => Self::TemplateMismatch(detail),
            SendError::HeaderMediaMismatch(detail) => Self::HeaderMediaMismatch(detail),
            SendError::WindowClosed { to } => Self::WindowClosed(to),
            SendError::FileTooLarge { limit } => Self::FileTooLarge(format!(
                "The file is larger than the plan's limit of {limit} bytes"
            )),
            SendError::QuotaExceeded {
                limit,
                retry_after_seconds,
            } => Self::QuotaExceeded {
                limit,
                retry_after_seconds: retry_after_seconds.max(1),
            },
            SendError::IdempotencyConflict => Self::IdempotencyConflict,
            SendError::IdempotencyKeyReused => Self::IdempotencyKeyReused,
            SendError::StorageFull(full) => full.into(),
            SendError::Store(store) => store.into(),
        }
    }
}

impl From<BroadcastError> for ApiError {
    fn from(error: BroadcastError) -> Self {
        match error {
            BroadcastError::AccountInactive => Self::AccountInactive,
            BroadcastError::PlanForbids => Self::PlanForbids(MessageKind::Template),
            BroadcastError::RateLimited {
                limit,
                retry_after_seconds,
            } => Self::RateLimited {
                limit,
                retry_after_seconds: retry_after_seconds.max(1),
                scope: RateScope::Sends,
            },
            BroadcastError::Invalid { errors, rejected } if rejected.is_empty() => Self::Validation(errors),
            BroadcastError::Invalid { errors, rejected } => Self::RowsRejected { errors, rejected },
            BroadcastError::TemplateNotFound(reference) => Self::TemplateNotFound(reference),
            BroadcastError::TemplateNotApproved(status) => Self::TemplateNotApproved(status),
            BroadcastError::HeaderMediaMismatch(detail) => Self::HeaderMediaMismatch(detail),
            BroadcastError::QuotaExceeded {
                limit,
                needed,
                remaining,
                retry_after_seconds,
            } => Self::BroadcastQuotaExceeded {
                limit,
                needed,
                remaining,
                retry_after_seconds: retry_after_seconds.max(1),
            },
            BroadcastError::IdempotencyKeyReused => Self::IdempotencyKeyReused,
            BroadcastError::Store(store) => store.into(),
        }
    }
}

/// Which change of a broadcast was refused: the state conflict answers with its own code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BroadcastChange {
    Cancel,
    Resume,
}

impl ApiError {
    /// A refused cancel or resume of a broadcast.
    pub(crate) fn of_broadcast_change(change: BroadcastChange, error: BroadcastChangeError) -> Self {
        match error {
            BroadcastChangeError::NotFound => Self::NotFound,
            BroadcastChangeError::WrongState { state, .. } => match change {
                BroadcastChange::Cancel => Self::BroadcastNotCancellable(state.as_str()),
                BroadcastChange::Resume => Self::BroadcastNotPaused(state.as_str()),
            },
            BroadcastChangeError::Store(store) => store.into(),
        }
    }
}

impl From<CancelError> for ApiError {
    fn from(error: CancelError) -> Self {
        match error {
            CancelError::NotFound => Self::NotFound,
            CancelError::NotCancellable(message) => Self::NotCancellable(message.status),
            CancelError::Store(store) => store.into(),
        }
    }
}

impl From<herald_domain::usecases::EraseError> for ApiError {
    fn from(error: herald_domain::usecases::EraseError) -> Self {
        use herald_domain::usecases::EraseError;
        match error {
            EraseError::NotFound => Self::NotFound,
            EraseError::Busy => Self::Unavailable(
                "messages to this person kept being queued during the erasure; try again".to_owned(),
            ),
            EraseError::Store(store) => store.into(),
        }
    }
}

impl From<StorageFull> for ApiError {
    fn from(full: StorageFull) -> Self {
        Self::FileTooLarge(format!(
            "The organization's media storage is full: its unexpired uploads hold {} of the plan's {} \
             bytes and this file has {}; space comes back as uploads expire, 30 days after each",
            full.used, full.limit, full.size
        ))
    }
}

impl From<UploadError> for ApiError {
    fn from(error: UploadError) -> Self {
        match error {
            UploadError::Empty => Self::field("file", "the file is empty"),
            UploadError::Unsupported(detail) => Self::UnsupportedFileType(capitalized(&detail)),
            // A limit below the kind's own is the plan's (the upload was held to both).
            UploadError::TooLarge {
                kind,
                animated,
                limit,
            } if limit < kind.max_bytes(animated) => Self::FileTooLarge(format!(
                "The file is larger than the plan's limit of {limit} bytes"
            )),
            UploadError::TooLarge {
                kind,
                animated,
                limit,
            } => Self::FileTooLarge(format!(
                "The file is {} of more than the {limit} bytes the network allows",
                kind.a_file(animated)
            )),
            UploadError::Closed => Self::Internal(anyhow::anyhow!("an upload was used after it failed")),
            UploadError::Io(error) => Self::Unavailable(format!("staging an upload: {error}")),
        }
    }
}

impl From<UploadMediaError> for ApiError {
    fn from(error: UploadMediaError) -> Self {
        match error {
            UploadMediaError::AccountInactive => Self::AccountInactive,
            UploadMediaError::PlanForbids => Self::PlanForbids(MessageKind::Media),
            UploadMediaError::TooLarge { limit } => Self::FileTooLarge(format!(
                "The file is larger than the plan's limit of {limit} bytes"
            )),
            UploadMediaError::StorageFull(full) => full.into(),
            UploadMediaError::Store(store) => store.into(),
        }
    }
}

impl From<MediaContentError> for ApiError {
    fn from(error: MediaContentError) -> Self {
        match error {
            MediaContentError::NotFound => Self::NotFound,
            MediaContentError::Unavailable(detail) => Self::Unavailable(detail),
            MediaContentError::Store(store) => store.into(),
        }
    }
}

impl From<herald_domain::ports::MediaStoreError> for ApiError {
    fn from(error: herald_domain::ports::MediaStoreError) -> Self {
        Self::Unavailable(format!("media store: {error}"))
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

impl From<QueryError> for ApiError {
    fn from(error: QueryError) -> Self {
        match error {
            QueryError::NotFound => Self::NotFound,
            QueryError::Invalid(errors) => Self::Validation(errors),
            QueryError::Store(store) => store.into(),
        }
    }
}

impl From<ContactError> for ApiError {
    fn from(error: ContactError) -> Self {
        match error {
            ContactError::Invalid(errors) => Self::Validation(errors),
            ContactError::WindowClosed { recipient, from } => Self::BlockWindowClosed {
                recipient: recipient.to_string(),
                from,
            },
            ContactError::NetworkRefused(detail) => Self::NetworkRefused(detail),
            // Transient, throttled, outcome unknown, or the sender's token: the caller retries later.
            ContactError::Network(other) => Self::Unavailable(format!("the network's block list: {other}")),
            ContactError::Store(store) => store.into(),
        }
    }
}

impl From<MarkReadError> for ApiError {
    fn from(error: MarkReadError) -> Self {
        match error {
            MarkReadError::NotFound => Self::NotFound,
            // For good: retrying cannot help, so the caller hears the network's reason.
            MarkReadError::Network(NetworkError::Permanent(refusal)) => {
                Self::NetworkRefused(format!("{} ({})", refusal.title, refusal.detail))
            }
            // Transient, throttled, outcome unknown, or the sender's token needing an operator: the service
            // cannot do it now; the reason is for the log, the caller retries.
            MarkReadError::Network(other) => {
                Self::Unavailable(format!("marking read on the network: {other}"))
            }
            MarkReadError::Store(store) => store.into(),
        }
    }
}
