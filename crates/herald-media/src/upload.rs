//! Streaming an upload into the staging area under its kind's size limit.

use crate::sniff::{SNIFF_LEN, Sniffed, Unsupported, sniff};
use herald_domain::attachment::MediaKind;
use herald_domain::media::{ContentRef, Sha256Digest, StagedFile};
use sha2::{Digest, Sha256};
use std::io;
use std::path::{Path, PathBuf};
use tokio::io::AsyncWriteExt;

/// The largest file accepted of each kind (a sticker's depends on whether it is animated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub document: u64,
    pub image: u64,
    pub video: u64,
    pub audio: u64,
    pub static_sticker: u64,
    pub animated_sticker: u64,
}

impl Limits {
    /// The network's limits (docs/api.md §4.3, decided by [`MediaKind::max_bytes`]): 100 MB, 5 MB, 16 MB,
    /// 16 MB, 100 KB and 500 KB.
    pub fn network() -> Self {
        Self {
            document: MediaKind::Document.max_bytes(false),
            image: MediaKind::Image.max_bytes(false),
            video: MediaKind::Video.max_bytes(false),
            audio: MediaKind::Audio.max_bytes(false),
            static_sticker: MediaKind::Sticker.max_bytes(false),
            animated_sticker: MediaKind::Sticker.max_bytes(true),
        }
    }

    /// These limits, none above `max` (the plan's largest file).
    #[must_use]
    pub fn capped(self, max: u64) -> Self {
        Self {
            document: self.document.min(max),
            image: self.image.min(max),
            video: self.video.min(max),
            audio: self.audio.min(max),
            static_sticker: self.static_sticker.min(max),
            animated_sticker: self.animated_sticker.min(max),
        }
    }

    /// The limit of a file judged as `verdict`.
    pub fn for_file(&self, verdict: &Sniffed) -> u64 {
        match verdict.kind {
            MediaKind::Document => self.document,
            MediaKind::Image => self.image,
            MediaKind::Video => self.video,
            MediaKind::Audio => self.audio,
            MediaKind::Sticker if verdict.animated => self.animated_sticker,
            MediaKind::Sticker => self.static_sticker,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::network()
    }
}

/// Why an upload was refused. After any of these the upload's staging file is already gone.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    /// No bytes at all.
    #[error("the file is empty")]
    Empty,
    /// Not an accepted type (`415 unsupported_file_type`).
    #[error(transparent)]
    Unsupported(#[from] Unsupported),
    /// Bigger than its kind allows (`413 payload_too_large`); the rest of the body was not read.
    /// `animated` says which of a sticker's two limits applied.
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
    Io(#[from] io::Error),
}

/// One upload being received: judged from its first [`SNIFF_LEN`] bytes, held to its kind's limit while
/// streaming, hashed as it goes and written to a staging file. Only the first few hundred bytes are ever
/// buffered in memory.
///
/// Dropped before [`LimitedUpload::finish`], it deletes its staging file.
#[derive(Debug)]
pub struct LimitedUpload {
    /// `None` once the file has been handed over or removed.
    path: Option<PathBuf>,
    file: Option<tokio::fs::File>,
    /// The bytes seen before the kind is known.
    head: Vec<u8>,
    verdict: Option<Sniffed>,
    hasher: Sha256,
    size: u64,
    limits: Limits,
}

impl LimitedUpload {
    /// Starts an upload held to the network's limits, staged in `staging_dir` (which must exist).
    ///
    /// # Errors
    /// When the staging file cannot be created.
    pub async fn begin(staging_dir: &Path) -> io::Result<Self> {
        Self::with_limits(staging_dir, Limits::network()).await
    }

    /// Starts an upload held to `limits` (smaller ones keep tests fast).
    ///
    /// # Errors
    /// When the staging file cannot be created.
    pub async fn with_limits(staging_dir: &Path, limits: Limits) -> io::Result<Self> {
        let dir = staging_dir.to_path_buf();
        // A unique name created exclusively, so two uploads can never share a staging file.
        let (file, path) = tokio::task::spawn_blocking(move || {
            tempfile::Builder::new()
                .prefix("upload-")
                .tempfile_in(dir)?
                .keep()
                .map_err(|e| e.error)
        })
        .await
        .map_err(io::Error::other)??;
        Ok(Self {
            path: Some(path),
            file: Some(tokio::fs::File::from_std(file)),
            head: Vec::with_capacity(SNIFF_LEN),
            verdict: None,
            hasher: Sha256::new(),
            size: 0,
            limits,
        })
    }

    /// Bytes accepted so far.
    pub fn size(&self) -> u64 {
        self.size + self.head.len() as u64
    }

    /// The verdict, once enough bytes have arrived.
    pub fn sniffed(&self) -> Option<Sniffed> {
        self.verdict
    }

    /// Takes the next chunk of the file.
    ///
    /// # Errors
    /// [`UploadError::Unsupported`] once the first bytes are judged unacceptable;
    /// [`UploadError::TooLarge`] as soon as this chunk would take the file past its limit;
    /// [`UploadError::Closed`] after any earlier error; [`UploadError::Io`] when writing fails.
    pub async fn push(&mut self, chunk: &[u8]) -> Result<(), UploadError> {
        if self.path.is_none() {
            return Err(UploadError::Closed);
        }
        if self.verdict.is_some() {
            return self.accept(chunk).await;
        }
        self.head.extend_from_slice(chunk);
        if self.head.len() < SNIFF_LEN {
            return Ok(());
        }
        self.judge_head().await
    }

    /// Ends the upload: the file is flushed to disk and handed over, judged, sized and hashed.
    ///
    /// # Errors
    /// [`UploadError::Empty`] for no bytes; otherwise as [`LimitedUpload::push`].
    pub async fn finish(mut self) -> Result<StagedFile, UploadError> {
        if self.path.is_none() {
            return Err(UploadError::Closed);
        }
        if self.verdict.is_none() {
            if self.head.is_empty() {
                self.fail().await;
                return Err(UploadError::Empty);
            }
            self.judge_head().await?;
        }
        let (Some(verdict), Some(mut file)) = (self.verdict, self.file.take()) else {
            self.fail().await;
            return Err(UploadError::Closed);
        };
        let synced = async {
            file.flush().await?;
            file.sync_all().await
        }
        .await;
        drop(file);
        if let Err(error) = synced {
            self.fail().await;
            return Err(error.into());
        }
        let digest: [u8; 32] = std::mem::take(&mut self.hasher).finalize().into();
        let content = ContentRef {
            sha256: Sha256Digest::from_bytes(digest),
            kind: verdict.kind,
            mime_type: verdict.mime.to_owned(),
            size: self.size,
        };
        let path = self.path.take().unwrap_or_default();
        Ok(StagedFile::new(path, content))
    }

    async fn judge_head(&mut self) -> Result<(), UploadError> {
        match sniff(&self.head) {
            Ok(verdict) => {
                self.verdict = Some(verdict);
                let head = std::mem::take(&mut self.head);
                self.accept(&head).await
            }
            Err(unsupported) => {
                self.fail().await;
                Err(unsupported.into())
            }
        }
    }

    /// Counts, hashes and writes bytes of a judged file, refusing them before writing if they would
    /// pass the limit.
    async fn accept(&mut self, bytes: &[u8]) -> Result<(), UploadError> {
        let Some(verdict) = self.verdict else {
            return Err(UploadError::Closed);
        };
        let limit = self.limits.for_file(&verdict);
        let size = self.size.saturating_add(bytes.len() as u64);
        if size > limit {
            self.fail().await;
            return Err(UploadError::TooLarge {
                kind: verdict.kind,
                animated: verdict.animated,
                limit,
            });
        }
        let Some(file) = self.file.as_mut() else {
            return Err(UploadError::Closed);
        };
        if let Err(error) = file.write_all(bytes).await {
            self.fail().await;
            return Err(error.into());
        }
        self.hasher.update(bytes);
        self.size = size;
        Ok(())
    }

    /// Closes and deletes the staging file; the upload takes nothing more.
    async fn fail(&mut self) {
        self.file = None;
        self.head = Vec::new();
        if let Some(path) = self.path.take() {
            // Best effort: the caller is already getting the more useful error.
            let _ = tokio::fs::remove_file(path).await;
        }
    }
}

impl Drop for LimitedUpload {
    fn drop(&mut self) {
        if let Some(path) = self.path.take() {
            // A drop cannot await or report; unlinking one file is quick.
            let _ = std::fs::remove_file(path);
        }
    }
}

impl From<UploadError> for herald_domain::ports::UploadError {
    fn from(error: UploadError) -> Self {
        use herald_domain::ports::UploadError as Port;
        match error {
            UploadError::Empty => Port::Empty,
            UploadError::Unsupported(unsupported) => Port::Unsupported(unsupported.to_string()),
            UploadError::TooLarge {
                kind,
                animated,
                limit,
            } => Port::TooLarge {
                kind,
                animated,
                limit,
            },
            UploadError::Closed => Port::Closed,
            UploadError::Io(error) => Port::Io(error),
        }
    }
}

/// The port's view of an upload, for adapters that only know the domain (the HTTP multipart front).
#[async_trait::async_trait]
impl herald_domain::ports::Upload for LimitedUpload {
    async fn push(&mut self, chunk: &[u8]) -> Result<(), herald_domain::ports::UploadError> {
        LimitedUpload::push(self, chunk).await.map_err(Into::into)
    }

    async fn finish(self: Box<Self>) -> Result<StagedFile, herald_domain::ports::UploadError> {
        LimitedUpload::finish(*self).await.map_err(Into::into)
    }
}
