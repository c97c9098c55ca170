//! Herald's media files.
//!
//! - [`sniff`] judges a file's kind from its first bytes (magic numbers), never from a name or a
//!   declared type: PDF is a document, JPEG and PNG are images, MP4 and 3GPP are videos, AAC (ADTS), AMR,
//!   MP3, MP4 audio (`M4A `) and Ogg Opus are audio, WebP is a sticker (animated when its `VP8X` header
//!   says so); anything else is refused.
//! - [`LimitedUpload`] takes an upload chunk by chunk, judges it, stops it the moment it passes its
//!   kind's limit, hashes it and stages it on disk, so no upload is ever held whole in memory.
//! - [`FsMediaStore`] is the filesystem adapter of the domain's [`herald_domain::ports::MediaStore`]
//!   port: files are content-addressed by SHA-256 and appear atomically.

mod sniff;
mod store;
mod upload;

pub use sniff::{SNIFF_LEN, Sniffed, Unsupported, sniff};
pub use store::FsMediaStore;
pub use upload::{LimitedUpload, Limits, UploadError};
