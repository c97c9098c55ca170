//! The bytes of uploaded media, content-addressed by SHA-256 (the rules are in [`crate::media`]).

use crate::attachment::MediaKind;
use crate::media::{ContentRef, Sha256Digest, StagedFile};
use async_trait::async_trait;
use std::path::PathBuf;

/// Why the media store failed. Never carries file contents.
#[derive(Debug, thiserror::Error)]
pub enum MediaStoreError {
    /// The staged file was not made by this store (another staging area) or is gone.
    #[error("not a staged upload of this store: {0}")]
    NotStaged(String),
    /// The filesystem (or other backend) failed; the caller may retry later (`503`).
    #[error("media storage failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Why an upload was refused while it streamed in. After any of these its staging file is gone.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    /// No bytes at all.
    #[error("the file is empty")]
    Empty,
    /// Not an accepted type, judged from the bytes (`415 unsupported_file_type`).
    #[error("{0}")]
    Unsupported(String),
    /// Bigger than its kind allows, or than the plan's largest file when that is lower
    /// (`413 payload_too_large`); the rest was not read. `animated` says which of a sticker's two limits
    /// applied (see [`MediaKind::max_bytes`]).
    #[error("{} is larger than {limit} bytes", kind.a_file(*animated))]
    TooLarge {
        kind: MediaKind,
        animated: bool,
        limit: u64,
    },
    /// The upload already failed; it takes no more bytes.
    #[error("the upload already failed")]
    Closed,
    /// Writing the staging file failed.
    #[error("staging the upload failed: {0}")]
    Io(#[from] std::io::Error),
}

/// One upload streaming in: judged from its first bytes, held to its kind's limit as the bytes arrive,
/// hashed and written to the staging area, never held whole in memory. Dropped before
/// [`Upload::finish`], it removes what it wrote.
#[async_trait]
pub trait Upload: Send {
    /// Takes the next chunk.
    ///
    /// # Errors
    /// [`UploadError`]; after an error the upload is closed and its file gone.
    async fn push(&mut self, chunk: &[u8]) -> Result<(), UploadError>;

    /// Ends the upload and hands over the judged, sized and hashed staged file.
    ///
    /// # Errors
    /// [`UploadError::Empty`] for no bytes; otherwise as [`Upload::push`].
    async fn finish(self: Box<Self>) -> Result<StagedFile, UploadError>;
}

/// The bytes of uploaded media, content-addressed by SHA-256. Metadata ([`MediaFile`](crate::media::MediaFile)) is the store's
/// business; this port only moves and serves bytes.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait MediaStore: Send + Sync + 'static {
    /// The directory where uploads are staged. It is on the same filesystem as the stored files, so a
    /// commit is a rename and never a copy.
    fn staging_dir(&self) -> PathBuf;

    /// Starts an upload staged in this store, held while it streams to the network's per-kind limits and
    /// to `max_bytes` (the plan's largest file), whichever is lower: a file over either is refused before
    /// the rest of it is read.
    ///
    /// # Errors
    /// [`MediaStoreError::Io`] when the staging file cannot be created.
    async fn begin_upload(&self, max_bytes: u64) -> Result<Box<dyn Upload>, MediaStoreError>;

    /// Makes a staged file's bytes durable and readable at their digest, atomically: a reader sees
    /// either nothing or the whole file. Committing content that is already stored keeps the stored copy,
    /// drops the staged one and succeeds.
    ///
    /// # Errors
    /// [`MediaStoreError::NotStaged`] for a file outside this store's staging area;
    /// [`MediaStoreError::Io`] when the backend fails (the staged file is then removed).
    async fn commit(&self, staged: StagedFile) -> Result<ContentRef, MediaStoreError>;

    /// Throws a staged file away.
    ///
    /// # Errors
    /// [`MediaStoreError::Io`] when the file exists but cannot be removed.
    async fn discard(&self, staged: StagedFile) -> Result<(), MediaStoreError>;

    /// The stored file with this digest, opened for reading, or `None` when there is none.
    ///
    /// # Errors
    /// [`MediaStoreError::Io`] when the backend fails.
    async fn open(&self, sha256: &Sha256Digest) -> Result<Option<std::fs::File>, MediaStoreError>;

    /// Deletes the stored file with this digest; `false` when there was none. The caller checks first
    /// that no live [`MediaFile`](crate::media::MediaFile) still points at it.
    ///
    /// # Errors
    /// [`MediaStoreError::Io`] when the backend fails.
    async fn remove(&self, sha256: &Sha256Digest) -> Result<bool, MediaStoreError>;
}
