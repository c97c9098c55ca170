//! Uploaded and inbound media: upload once and send many (docs/api.md §4.5), read a file back (§9), and the
//! cleanup of expired uploads.

use super::shared::new_id;
use crate::ids::{MediaId, OrganizationId};
use crate::media::{MediaFile, MediaRecord, StagedFile};
use crate::organization::{MessageKind, Organization, Plan};
use crate::ports::{
    AccountStore, Clock, IdGenerator, MediaCatalog, MediaInsert, MediaStore, MessagingNetwork, NetworkError,
    StoreError,
};
use crate::values::FileName;
use std::sync::Arc;

/// Why an upload was refused. The staged file is removed and nothing is recorded.
#[derive(Debug, thiserror::Error)]
pub enum UploadMediaError {
    #[error("the organization is not active")]
    AccountInactive,
    #[error("the plan does not allow media")]
    PlanForbids,
    #[error("the file is larger than the plan's {limit} bytes")]
    TooLarge { limit: u64 },
    /// The organization's unexpired uploads and this file would pass the plan's media storage.
    #[error("the organization's media storage is full")]
    StorageFull(StorageFull),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The numbers behind a full media storage, for a detail the client can act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StorageFull {
    /// The plan's media storage, bytes.
    pub limit: u64,
    /// What the organization's unexpired uploads hold, bytes.
    pub used: u64,
    /// The refused file's size, bytes.
    pub size: u64,
}

impl StorageFull {
    pub(crate) fn of(plan: &Plan, used: u64, file: &MediaFile) -> Self {
        Self {
            limit: plan.media_storage_bytes.unwrap_or(u64::MAX),
            used,
            size: file.size,
        }
    }
}

/// The ports the media use cases drive.
pub struct MediaPorts {
    pub catalog: Arc<dyn MediaCatalog>,
    pub files: Arc<dyn MediaStore>,
    pub accounts: Arc<dyn AccountStore>,
    pub network: Arc<dyn MessagingNetwork>,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
}

/// A file to hand to the client: its bytes come from Herald's own store or, for inbound media, straight
/// from the network.
#[derive(Debug)]
pub struct MediaContent {
    pub mime_type: String,
    pub size: Option<u64>,
    /// The name to offer the client (a document's name), when known.
    pub filename: Option<String>,
    pub body: MediaBody,
}

/// Where a [`MediaContent`]'s bytes come from.
#[derive(Debug)]
pub enum MediaBody {
    /// A stored upload, opened at its start.
    File(std::fs::File),
    /// Streamed from the network.
    Stream(crate::ports::MediaDownload),
}

/// Why a file cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum MediaContentError {
    /// No such file for this organization, an expired upload, or one the network no longer has.
    #[error("not found")]
    NotFound,
    /// The network or the media storage failed; the client may retry (`503`).
    #[error("media unavailable: {0}")]
    Unavailable(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Upload once, send many; read files back; remove what expired.
pub struct Media {
    ports: MediaPorts,
}

impl Media {
    pub fn new(ports: MediaPorts) -> Self {
        Self { ports }
    }

    /// Stores an upload (already judged from its bytes and held to its kind's limit while streaming) for
    /// 30 days.
    ///
    /// # Errors
    /// See [`UploadMediaError`]; after any of them the staged file is gone.
    #[tracing::instrument(name = "upload_media", skip_all, fields(org = %organization.id))]
    pub async fn upload(
        &self,
        organization: &Organization,
        plan: &Plan,
        staged: StagedFile,
        filename: Option<FileName>,
    ) -> Result<MediaFile, UploadMediaError> {
        if !organization.status.is_active() {
            return Err(UploadMediaError::AccountInactive);
        }
        if !plan.allows(MessageKind::Media) {
            return Err(UploadMediaError::PlanForbids);
        }
        if staged.content().size > plan.max_file_bytes {
            return Err(UploadMediaError::TooLarge {
                limit: plan.max_file_bytes,
            });
        }
        let file = MediaFile::new(
            new_id(self.ports.ids.as_ref(), MediaId::from_ulid),
            organization.id,
            staged.content().clone(),
            filename,
            self.ports.clock.now(),
        );
        self.ports
            .files
            .commit(staged)
            .await
            .map_err(|error| StoreError::Unavailable(error.to_string()))?;
        match self
            .ports
            .catalog
            .insert_media(&file, plan.media_storage_bytes)
            .await
        {
            Ok(MediaInsert::Stored) => Ok(file),
            Ok(MediaInsert::StorageFull { used }) => {
                forget_upload(self.ports.catalog.as_ref(), self.ports.files.as_ref(), &file).await;
                Err(UploadMediaError::StorageFull(StorageFull::of(plan, used, &file)))
            }
            Err(error) => {
                forget_upload(self.ports.catalog.as_ref(), self.ports.files.as_ref(), &file).await;
                Err(error.into())
            }
        }
    }

    /// The organization's file with this id, ready to stream: an upload from Herald's store, an inbound
    /// file from the network with the receiving sender's credentials.
    ///
    /// # Errors
    /// See [`MediaContentError`].
    #[tracing::instrument(name = "media_content", skip_all, fields(org = %organization, media = %id))]
    pub async fn content(
        &self,
        organization: &OrganizationId,
        id: &MediaId,
    ) -> Result<MediaContent, MediaContentError> {
        match self.ports.catalog.media(organization, id).await? {
            None => Err(MediaContentError::NotFound),
            Some(MediaRecord::Uploaded(file)) => {
                if file.is_expired(self.ports.clock.now()) {
                    return Err(MediaContentError::NotFound);
                }
                let opened = self
                    .ports
                    .files
                    .open(&file.sha256)
                    .await
                    .map_err(|error| MediaContentError::Unavailable(error.to_string()))?;
                let Some(handle) = opened else {
                    tracing::error!(media = %file.id, sha256 = %file.sha256, "an upload's bytes are missing");
                    return Err(MediaContentError::NotFound);
                };
                Ok(MediaContent {
                    mime_type: file.mime_type,
                    size: Some(file.size),
                    filename: file.filename.map(|name| name.as_str().to_owned()),
                    body: MediaBody::File(handle),
                })
            }
            Some(MediaRecord::Inbound(inbound)) => {
                let senders = self.ports.accounts.senders(organization).await?;
                let Some(sender) = senders.iter().find(|sender| sender.id == inbound.sender_id) else {
                    return Err(MediaContentError::NotFound);
                };
                match self
                    .ports
                    .network
                    .download_media(sender, &inbound.network_media_id)
                    .await
                {
                    Ok(download) => Ok(MediaContent {
                        mime_type: download
                            .mime_type
                            .clone()
                            .or(inbound.mime_type)
                            .unwrap_or_else(|| "application/octet-stream".to_owned()),
                        size: download.size,
                        filename: inbound.filename,
                        body: MediaBody::Stream(download),
                    }),
                    Err(NetworkError::Permanent(error)) if error.code == "media_not_found" => {
                        Err(MediaContentError::NotFound)
                    }
                    Err(error) => Err(MediaContentError::Unavailable(error.to_string())),
                }
            }
        }
    }

    /// Deletes up to `limit` expired uploads, and the bytes no upload points at any more. Returns how
    /// many uploads were deleted.
    ///
    /// # Errors
    /// A store failure; bytes that could not be removed are logged and left for the next run.
    pub async fn expire(&self, limit: u32) -> Result<usize, StoreError> {
        let now = self.ports.clock.now();
        let digests = self.ports.catalog.expire_media(now, limit).await?;
        let deleted = digests.len();
        for digest in digests {
            if self.ports.catalog.digest_in_use(&digest).await? {
                continue;
            }
            if let Err(error) = self.ports.files.remove(&digest).await {
                tracing::warn!(%error, sha256 = %digest, "could not remove expired media bytes");
            }
        }
        Ok(deleted)
    }
}

/// Deletes an upload's row, and its bytes when no other upload shares them. Failures are logged: what is
/// left behind is removed by the media cleanup job.
pub(crate) async fn forget_upload(catalog: &dyn MediaCatalog, files: &dyn MediaStore, file: &MediaFile) {
    if let Err(error) = catalog.delete_media(&file.organization_id, &file.id).await {
        tracing::warn!(%error, media = %file.id, "could not delete a refused upload's row");
        return;
    }
    match catalog.digest_in_use(&file.sha256).await {
        Ok(true) => {}
        Ok(false) => {
            if let Err(error) = files.remove(&file.sha256).await {
                tracing::warn!(%error, media = %file.id, "could not remove a refused upload's bytes");
            }
        }
        Err(error) => tracing::warn!(%error, media = %file.id, "could not check a refused upload's bytes"),
    }
}
