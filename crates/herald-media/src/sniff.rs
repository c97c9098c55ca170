//! Judging a file's kind from its bytes.

use herald_domain::message::MediaKind;
use std::sync::LazyLock;

/// How many leading bytes [`sniff`] wants to see; fewer are enough for every accepted type, but a file
/// shorter than this is only judged once it is complete.
pub const SNIFF_LEN: usize = 262;

/// The verdict on an accepted file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sniffed {
    pub kind: MediaKind,
    /// The MIME type the bytes show (`image/png`).
    pub mime: &'static str,
}

/// The bytes are not one of the accepted types (`415 unsupported_file_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the file's contents are not PDF, JPEG, PNG, MP4 or 3GPP")]
pub struct Unsupported;

const THREE_GPP: &str = "video/3gpp";

// `infer` has no 3GPP matcher, and its MP4 matcher does not know the 3GPP brands. Custom matchers run
// before the built-in ones, so a 3GPP file is never mistaken for anything else.
static INFER: LazyLock<infer::Infer> = LazyLock::new(|| {
    let mut infer = infer::Infer::new();
    infer.add(THREE_GPP, "3gp", is_3gpp);
    infer
});

/// An ISO media file whose major brand is a 3GPP one (`3gp4` … `3gp7`); `3g2` files are 3GPP2, which
/// the network does not take.
fn is_3gpp(buf: &[u8]) -> bool {
    buf.get(4..8) == Some(b"ftyp".as_slice()) && buf.get(8..11) == Some(b"3gp".as_slice())
}

/// Judges a file from its first bytes (at least [`SNIFF_LEN`] of them when the file is that long).
///
/// # Errors
/// [`Unsupported`] for anything but PDF, JPEG, PNG, MP4 or 3GPP, GIF and WebP included.
pub fn sniff(first_bytes: &[u8]) -> Result<Sniffed, Unsupported> {
    let found = INFER.get(first_bytes).ok_or(Unsupported)?;
    let (kind, mime) = match found.mime_type() {
        // `infer` takes `%PDF` anywhere in the first KiB (as Acrobat does), which would let a text file
        // that merely mentions it pass as a document; only a file that starts as a PDF counts.
        "application/pdf" if first_bytes.starts_with(b"%PDF-") => (MediaKind::Document, "application/pdf"),
        "image/jpeg" => (MediaKind::Image, "image/jpeg"),
        "image/png" => (MediaKind::Image, "image/png"),
        "video/mp4" => (MediaKind::Video, "video/mp4"),
        THREE_GPP => (MediaKind::Video, THREE_GPP),
        _ => return Err(Unsupported),
    };
    Ok(Sniffed { kind, mime })
}
