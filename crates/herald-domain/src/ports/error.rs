//! What any store operation can fail with.

/// What any store operation can fail with, beyond its own business outcomes.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The row to change does not exist (for this organization).
    #[error("not found")]
    NotFound,
    /// A unique rule was broken (a duplicate number, id or name); the text says which.
    #[error("conflict: {0}")]
    Conflict(String),
    /// The store cannot be reached or is overloaded; the caller may retry later (`503`).
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// Anything else: a bug or corrupt data.
    #[error(transparent)]
    Unknown(#[from] anyhow::Error),
}
