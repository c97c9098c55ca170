//! The metadata of media files: uploads, the network uploads made for each sender, inbound messages' files.

use super::error::StoreError;
use crate::ids::{MediaId, OrganizationId, SenderId};
use crate::media::{MediaFile, MediaRecord, NetworkUpload, Sha256Digest};
use crate::time::Timestamp;
use async_trait::async_trait;

/// What [`MediaCatalog::insert_media`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaInsert {
    Stored,
    /// Nothing was stored: the organization's unexpired uploads already hold `used` bytes, and this file
    /// would take them past the limit.
    StorageFull {
        used: u64,
    },
}

/// The metadata of media files: uploads (one row per upload, many may share one digest), the network
/// uploads made for each sender, and (read only here) the files of inbound messages, which the
/// [`crate::ports::TrackingStore`] writes with their message.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait MediaCatalog: Send + Sync + 'static {
    /// Records an upload whose bytes are already committed to the [`MediaStore`], unless the organization's
    /// unexpired uploads (at the file's `created_at`) and this one together would pass `storage_limit`
    /// bytes (`None`: no limit). The check and the insert are one step: concurrent uploads cannot pass the
    /// limit together.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the id exists.
    async fn insert_media(
        &self,
        file: &MediaFile,
        storage_limit: Option<u64>,
    ) -> Result<MediaInsert, StoreError>;

    /// The bytes the organization's uploads unexpired at `at` hold: what [`MediaCatalog::insert_media`]
    /// counts against the limit, read without storing anything (a dry run's storage check).
    async fn storage_used(&self, organization: &OrganizationId, at: Timestamp) -> Result<u64, StoreError>;

    /// The organization's upload or inbound file with this id, expired uploads included (the caller
    /// decides what expiry means for it).
    async fn media(
        &self,
        organization: &OrganizationId,
        id: &MediaId,
    ) -> Result<Option<MediaRecord>, StoreError>;

    /// The organization's uploads among `ids` (expired ones included), by id; ids of no upload of the
    /// organization are absent. One read per 500 ids: a broadcast checks all its rows' files at once.
    async fn uploads(
        &self,
        organization: &OrganizationId,
        ids: &[MediaId],
    ) -> Result<std::collections::HashMap<MediaId, MediaFile>, StoreError>;

    /// Deletes the organization's upload with this id; `false` when there was none.
    async fn delete_media(&self, organization: &OrganizationId, id: &MediaId) -> Result<bool, StoreError>;

    /// Whether any upload row, of any organization, still points at these bytes.
    async fn digest_in_use(&self, sha256: &Sha256Digest) -> Result<bool, StoreError>;

    /// Deletes up to `limit` uploads that expired at or before `now`, and forgets network uploads that
    /// may no longer be reused; returns the digests of the deleted uploads (each once), so the caller can
    /// remove bytes that nothing points at any more.
    async fn expire_media(&self, now: Timestamp, limit: u32) -> Result<Vec<Sha256Digest>, StoreError>;

    /// The network's id for these bytes uploaded for this sender, if it may still be reused at `now`.
    async fn network_upload(
        &self,
        organization: &OrganizationId,
        sender: &SenderId,
        sha256: &Sha256Digest,
        now: Timestamp,
    ) -> Result<Option<String>, StoreError>;

    /// Remembers an upload to the network, replacing an earlier one of the same bytes for that sender.
    async fn record_network_upload(&self, upload: &NetworkUpload) -> Result<(), StoreError>;
}
