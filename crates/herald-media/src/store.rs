//! The filesystem adapter of the [`MediaBytes`] port.

use crate::upload::{LimitedUpload, Limits};
use async_trait::async_trait;
use herald_domain::media::{ContentRef, MediaBytes, MediaBytesError, Sha256Digest, StagedFile};
use std::io;
use std::path::{Path, PathBuf};

const STAGING: &str = "staging";

/// Media bytes under one root directory (inside the data directory):
/// `<root>/<first two hex digits>/<sha256 hex>` for stored files, `<root>/staging/` for uploads in
/// progress. Staging and stored files share a filesystem, so a commit is an atomic rename.
#[derive(Debug, Clone)]
pub struct FsMediaStore {
    root: PathBuf,
    staging: PathBuf,
}

impl FsMediaStore {
    /// Opens (creating if needed) a store rooted at `root`.
    ///
    /// # Errors
    /// When the directories cannot be created.
    pub async fn open(root: impl Into<PathBuf>) -> io::Result<Self> {
        let root = root.into();
        let staging = root.join(STAGING);
        tokio::fs::create_dir_all(&staging).await?;
        Ok(Self { root, staging })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the file with this digest lives (whether or not it is stored).
    pub fn path_of(&self, sha256: &Sha256Digest) -> PathBuf {
        let hex = sha256.to_hex();
        let fan_out = hex.get(..2).unwrap_or_default();
        self.root.join(fan_out).join(&hex)
    }

    /// Starts an upload staged in this store, held to the network's limits.
    ///
    /// # Errors
    /// When the staging file cannot be created.
    pub async fn begin_upload(&self) -> io::Result<LimitedUpload> {
        LimitedUpload::begin(&self.staging).await
    }

    /// Starts an upload staged in this store, held to `limits`.
    ///
    /// # Errors
    /// When the staging file cannot be created.
    pub async fn begin_upload_with_limits(&self, limits: Limits) -> io::Result<LimitedUpload> {
        LimitedUpload::with_limits(&self.staging, limits).await
    }
}

#[async_trait]
impl MediaBytes for FsMediaStore {
    fn staging_dir(&self) -> PathBuf {
        self.staging.clone()
    }

    async fn commit(&self, staged: StagedFile) -> Result<ContentRef, MediaBytesError> {
        // Only files of our own staging area may be moved in: anything else could be any path at all.
        if staged.path().parent() != Some(self.staging.as_path()) {
            return Err(MediaBytesError::NotStaged(staged.path().display().to_string()));
        }
        let target = self.path_of(&staged.content().sha256);
        let dir = target.parent().unwrap_or(&self.root).to_path_buf();
        // On any early return below, `staged` is dropped and its file removed.
        tokio::fs::create_dir_all(&dir).await?;
        if tokio::fs::try_exists(&target).await? {
            // Same digest, same bytes: the stored copy stands, and the staged one is dropped.
            return Ok(staged.content().clone());
        }
        let (path, content) = staged.into_parts();
        if let Err(error) = tokio::fs::rename(&path, &target).await {
            let _ = tokio::fs::remove_file(&path).await;
            return Err(error.into());
        }
        // The rename is only durable once the directory entry is.
        sync_dir(dir).await?;
        Ok(content)
    }

    async fn discard(&self, staged: StagedFile) -> Result<(), MediaBytesError> {
        let (path, _) = staged.into_parts();
        match tokio::fs::remove_file(&path).await {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(error.into()),
        }
    }

    async fn open(&self, sha256: &Sha256Digest) -> Result<Option<std::fs::File>, MediaBytesError> {
        match tokio::fs::File::open(self.path_of(sha256)).await {
            Ok(file) => Ok(Some(file.into_std().await)),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(error.into()),
        }
    }

    async fn remove(&self, sha256: &Sha256Digest) -> Result<bool, MediaBytesError> {
        match tokio::fs::remove_file(self.path_of(sha256)).await {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(error) => Err(error.into()),
        }
    }
}

async fn sync_dir(dir: PathBuf) -> io::Result<()> {
    tokio::task::spawn_blocking(move || std::fs::File::open(dir)?.sync_all())
        .await
        .map_err(io::Error::other)?
}
