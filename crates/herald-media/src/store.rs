//! The filesystem adapter of the [`MediaStore`] port.

use crate::upload::{LimitedUpload, Limits};
use async_trait::async_trait;
use herald_domain::media::{ContentRef, Sha256Digest, StagedFile};
use herald_domain::ports::{MediaStore, MediaStoreError, Upload};
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
    /// A relative `root` (the default `./data/media`) is made absolute against the working directory now:
    /// staged uploads are named by absolute paths, and [`MediaStore::commit`] only takes files whose folder
    /// is this store's staging folder, compared as paths.
    ///
    /// # Errors
    /// When the directories cannot be created.
    pub async fn open(root: impl Into<PathBuf>) -> io::Result<Self> {
        let root = std::path::absolute(root.into())?;
        let staging = root.join(STAGING);
        tokio::fs::create_dir_all(&staging).await?;
        Ok(Self { root, staging })
    }

    /// A store rooted at `root`, for callers that cannot await: the directories are created now, best
    /// effort; if that failed, uploads fail with an I/O error (`503`) rather than this call.
    pub fn at(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let root = std::path::absolute(&root).unwrap_or(root);
        let staging = root.join(STAGING);
        if let Err(error) = std::fs::create_dir_all(&staging) {
            tracing::warn!(%error, dir = %staging.display(), "cannot create the media staging directory");
        }
        Self { root, staging }
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

    /// Deletes staging files last modified longer than `older_than` ago: uploads a crash left behind
    /// (a running upload or an uncommitted [`StagedFile`] removes its own file). Answers how many were
    /// deleted. `older_than` must exceed the longest an upload may take, or a slow upload loses its file;
    /// at start-up, before any upload, any value is safe.
    ///
    /// # Errors
    /// When the staging area cannot be listed or a stale file cannot be deleted.
    pub async fn sweep_staging(&self, older_than: std::time::Duration) -> io::Result<usize> {
        let Some(cutoff) = std::time::SystemTime::now().checked_sub(older_than) else {
            return Ok(0);
        };
        let mut swept = 0;
        let mut entries = tokio::fs::read_dir(&self.staging).await?;
        while let Some(entry) = entries.next_entry().await? {
            let metadata = match entry.metadata().await {
                Ok(metadata) => metadata,
                // Committed or discarded meanwhile.
                Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
                Err(error) => return Err(error),
            };
            if !metadata.is_file() || metadata.modified()? > cutoff {
                continue;
            }
            match tokio::fs::remove_file(entry.path()).await {
                Ok(()) => swept += 1,
                Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                Err(error) => return Err(error),
            }
        }
        Ok(swept)
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
impl MediaStore for FsMediaStore {
    fn staging_dir(&self) -> PathBuf {
        self.staging.clone()
    }

    async fn begin_upload(&self, max_bytes: u64) -> Result<Box<dyn Upload>, MediaStoreError> {
        Ok(Box::new(
            self.begin_upload_with_limits(Limits::network().capped(max_bytes))
                .await?,
        ))
    }

    async fn commit(&self, staged: StagedFile) -> Result<ContentRef, MediaStoreError> {
        // Only files of our own staging area may be moved in: anything else could be any path at all.
        if staged.path().parent() != Some(self.staging.as_path()) {
            return Err(MediaStoreError::NotStaged(staged.path().display().to_string()));
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

    async fn discard(&self, staged: StagedFile) -> Result<(), MediaStoreError> {
        let (path, _) = staged.into_parts();
        match tokio::fs::remove_file(&path).await {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(error.into()),
        }
    }

    async fn open(&self, sha256: &Sha256Digest) -> Result<Option<std::fs::File>, MediaStoreError> {
        match tokio::fs::File::open(self.path_of(sha256)).await {
            Ok(file) => Ok(Some(file.into_std().await)),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(error.into()),
        }
    }

    async fn remove(&self, sha256: &Sha256Digest) -> Result<bool, MediaStoreError> {
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
