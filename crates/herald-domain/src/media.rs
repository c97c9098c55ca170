//! Uploaded media: the metadata row ([`MediaFile`]); the bytes are kept by the
//! [`MediaStore`](crate::ports::MediaStore) port.
//!
//! Rules the adapters follow (docs/api.md §4.3–§4.5):
//! - A file's kind is judged from its bytes (magic numbers), never from its name or declared type. The
//!   judging needs a sniffing library, so it lives in the adapter crate; the domain only receives the
//!   verdict inside a [`StagedFile`].
//! - Each kind has a size limit ([`MediaKind::max_bytes`]), enforced while the bytes stream in.
//! - Bytes are content-addressed by SHA-256: identical uploads share one stored copy, and committing the
//!   same content twice is not an error.
//! - Bytes become visible atomically: an upload is staged first, then committed (moved into place) or
//!   discarded. A staged file that is neither is removed when dropped, so a refused request leaves
//!   nothing behind.
//! - An uploaded file may be referenced for [`MEDIA_RETENTION_DAYS`] days after its upload.

use crate::attachment::MediaKind;
use crate::ids::{MediaId, OrganizationId, SenderId};
use crate::time::{Duration, Timestamp};
use crate::values::FileName;
use std::fmt;
use std::path::{Path, PathBuf};

/// How long an uploaded file stays usable as a `media_id` (docs/api.md §4.5).
pub const MEDIA_RETENTION_DAYS: i64 = 30;

/// A SHA-256 digest: the address of a file's bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sha256Digest([u8; 32]);

impl Sha256Digest {
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The 64-character lowercase hex form, as reported in the API and used in storage paths.
    pub fn to_hex(&self) -> String {
        use fmt::Write as _;
        let mut out = String::with_capacity(64);
        for byte in self.0 {
            // Writing into a String cannot fail.
            let _ = write!(out, "{byte:02x}");
        }
        out
    }

    /// Parses 64 hex digits (either case).
    ///
    /// # Errors
    /// [`crate::error::InvalidValue`] for any other length or a non-hex character.
    pub fn from_hex(text: &str) -> Result<Self, crate::error::InvalidValue> {
        let invalid = || crate::error::InvalidValue::new("must be 64 hexadecimal digits");
        if text.len() != 64 {
            return Err(invalid());
        }
        let mut bytes = [0_u8; 32];
        for (byte, pair) in bytes.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
            let pair = std::str::from_utf8(pair).map_err(|_| invalid())?;
            *byte = u8::from_str_radix(pair, 16).map_err(|_| invalid())?;
        }
        Ok(Self(bytes))
    }
}

impl fmt::Debug for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sha256Digest({})", self.to_hex())
    }
}

impl fmt::Display for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// What is known of a file's bytes once they have been read in full: the judged kind and type, the
/// size and the digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentRef {
    pub sha256: Sha256Digest,
    pub kind: MediaKind,
    /// The type judged from the bytes (`image/png`), never the one the client declared.
    pub mime_type: String,
    pub size: u64,
}

/// An upload written to the staging area, hashed and judged, but not yet stored.
///
/// Hand it to [`MediaStore::commit`](crate::ports::MediaStore::commit) or
/// [`MediaStore::discard`](crate::ports::MediaStore::discard). Dropped without either, it deletes its
/// file, so an early return on a refused request cannot leak a half-written upload.
#[derive(Debug)]
pub struct StagedFile {
    /// `None` once the file has been handed over, so `Drop` leaves it alone.
    path: Option<PathBuf>,
    content: ContentRef,
}

impl StagedFile {
    /// Wraps a fully written staging file. Only adapters that wrote the file at `path` call this; from
    /// here on the value owns the file.
    pub fn new(path: PathBuf, content: ContentRef) -> Self {
        Self {
            path: Some(path),
            content,
        }
    }

    /// The staging file's path (empty once handed over, which only an adapter can observe).
    pub fn path(&self) -> &Path {
        self.path.as_deref().unwrap_or_else(|| Path::new(""))
    }

    pub fn content(&self) -> &ContentRef {
        &self.content
    }

    /// Takes the file out of this value's care: the caller now moves or deletes it. For adapters.
    pub fn into_parts(mut self) -> (PathBuf, ContentRef) {
        let path = self.path.take().unwrap_or_default();
        let content = self.content.clone();
        (path, content)
    }
}

impl Drop for StagedFile {
    fn drop(&mut self) {
        if let Some(path) = self.path.take() {
            // Best effort: a leftover in the staging area is garbage, not data, and a drop cannot report.
            let _ = std::fs::remove_file(path);
        }
    }
}

/// An uploaded file as an organization sees it: one row per upload, many rows may share one digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaFile {
    pub id: MediaId,
    pub organization_id: OrganizationId,
    pub kind: MediaKind,
    pub mime_type: String,
    pub size: u64,
    pub sha256: Sha256Digest,
    /// The name the client gave; kept for documents, never used to judge the kind.
    pub filename: Option<FileName>,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
}

impl MediaFile {
    /// A new upload made at `now`, usable for [`MEDIA_RETENTION_DAYS`] days.
    pub fn new(
        id: MediaId,
        organization_id: OrganizationId,
        content: ContentRef,
        filename: Option<FileName>,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            organization_id,
            kind: content.kind,
            mime_type: content.mime_type,
            size: content.size,
            sha256: content.sha256,
            filename,
            created_at: now,
            expires_at: now + Duration::days(MEDIA_RETENTION_DAYS),
        }
    }

    /// Whether the file can no longer be referenced at `now`.
    pub fn is_expired(&self, now: Timestamp) -> bool {
        now >= self.expires_at
    }
}

/// How long the network keeps a file Herald uploaded (docs/cloud-api.md §2.1: 30 days). An upload is reused for
/// a day less, so a send never names an id the network is about to forget.
pub const NETWORK_UPLOAD_REUSE_DAYS: i64 = 29;

/// A file uploaded to the network for one sender, remembered so that the same bytes are not uploaded
/// again for that sender while the network still has them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkUpload {
    pub organization_id: OrganizationId,
    pub sender_id: SenderId,
    pub sha256: Sha256Digest,
    /// The network's media id.
    pub network_media_id: String,
    pub uploaded_at: Timestamp,
    /// Not reused from this time on.
    pub reuse_until: Timestamp,
}

/// A file that arrived with an inbound message: Herald keeps the network's reference, not the bytes, and
/// fetches them from the network when asked (with the receiving sender's credentials).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundMedia {
    pub id: MediaId,
    pub organization_id: OrganizationId,
    /// The sender number that received it: its credentials download it.
    pub sender_id: SenderId,
    pub network_media_id: String,
    /// The network's kind: `image`, `video`, `document`, `audio`, `sticker`.
    pub kind: String,
    pub mime_type: Option<String>,
    pub filename: Option<String>,
}

/// A file an organization can read back through `GET /api/v1/media/{id}/content`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaRecord {
    /// Uploaded to Herald; the bytes are in the [`MediaStore`](crate::ports::MediaStore).
    Uploaded(MediaFile),
    /// Received from the network; the bytes are fetched from it.
    Inbound(InboundMedia),
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use ulid::Ulid;

    fn content() -> ContentRef {
        ContentRef {
            sha256: Sha256Digest::from_bytes([0xab; 32]),
            kind: MediaKind::Image,
            mime_type: "image/png".into(),
            size: 12,
        }
    }

    #[test]
    fn hex_round_trips_and_refuses_garbage() {
        let mut bytes = [0_u8; 32];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::try_from(i * 8).unwrap();
        }
        let digest = Sha256Digest::from_bytes(bytes);
        let hex = digest.to_hex();
        assert_eq!(&hex[..6], "000810");
        assert_eq!(hex.len(), 64);
        assert_eq!(Sha256Digest::from_hex(&hex).unwrap(), digest);
        assert_eq!(Sha256Digest::from_hex(&hex.to_uppercase()).unwrap(), digest);
        assert!(Sha256Digest::from_hex(&hex[..62]).is_err());
        assert!(Sha256Digest::from_hex(&format!("{}zz", &hex[..62])).is_err());
        assert!(Sha256Digest::from_hex(&format!("{}é", &hex[..62])).is_err());
    }

    #[test]
    fn a_new_file_expires_after_thirty_days() {
        let now = chrono::Utc.with_ymd_and_hms(2026, 1, 31, 12, 0, 0).unwrap();
        let file = MediaFile::new(
            MediaId::from_ulid(Ulid::from_parts(1, 1)),
            OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
            content(),
            None,
            now,
        );
        assert_eq!(
            file.expires_at,
            chrono::Utc.with_ymd_and_hms(2026, 3, 2, 12, 0, 0).unwrap()
        );
        assert!(!file.is_expired(now + Duration::days(29)));
        assert!(file.is_expired(now + Duration::days(30)));
        assert_eq!(file.mime_type, "image/png");
    }

    #[test]
    fn a_dropped_staged_file_is_removed_and_a_handed_over_one_is_not() {
        let dir = std::env::temp_dir().join(format!("herald-staged-{}", Ulid::new()));
        std::fs::create_dir_all(&dir).unwrap();
        let dropped = dir.join("a");
        let kept = dir.join("b");
        std::fs::write(&dropped, b"x").unwrap();
        std::fs::write(&kept, b"y").unwrap();

        drop(StagedFile::new(dropped.clone(), content()));
        let (path, _) = StagedFile::new(kept.clone(), content()).into_parts();

        assert!(!dropped.exists());
        assert_eq!(path, kept);
        assert!(kept.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
