//! Judging a file's kind from its bytes.

mod matchers;

use herald_domain::attachment::MediaKind;
use matchers::{
    is_3gpp, is_aac_adts, is_amr, is_m4a, is_mp3, is_ogg, is_ogg_opus, is_webp, webp_is_animated,
};
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
    /// An animated sticker (a WebP whose `VP8X` header sets the animation flag); the network allows it
    /// more bytes than a static one. Always `false` for other kinds.
    pub animated: bool,
}

impl Sniffed {
    /// The largest file this one may be, per the network (the one rule is [`MediaKind::max_bytes`]).
    pub fn max_bytes(&self) -> u64 {
        self.kind.max_bytes(self.animated)
    }
}

/// The bytes are not one of the accepted types (`415 unsupported_file_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unsupported {
    /// An Ogg file whose first stream is not Opus (Vorbis, FLAC, Speex…): the network takes Ogg only with
    /// the Opus codec.
    #[error(
        "the file is Ogg audio but not Opus: the network takes Ogg files with the Opus codec only \
         (audio/ogg; codecs=opus)"
    )]
    OggNotOpus,
    #[error(
        "the file's contents are not PDF, JPEG, PNG, MP4, 3GPP, AAC, AMR, MP3, MP4 audio, Ogg Opus or WebP"
    )]
    Other,
}

/// Whether the first bytes of a file are of one type.
type Matcher = fn(&[u8]) -> bool;

/// Types `infer` is weak on, judged by this crate's own strict matchers, in order: `infer` has no 3GPP
/// matcher and its MP4 one does not know the 3GPP brands, and its audio and WebP matchers are loose (an
/// MP3 is any `FF FB`, an Ogg any `OggS`, a WebP any `WEBP` at byte 8). None of these types is ever taken
/// from `infer`'s verdict, so a file one of them refuses cannot slip in through a looser built-in check.
const OWN_MATCHERS: [(MediaKind, &str, Matcher); 7] = [
    (MediaKind::Video, "video/3gpp", is_3gpp),
    (MediaKind::Audio, "audio/ogg", is_ogg_opus),
    (MediaKind::Audio, "audio/amr", is_amr),
    (MediaKind::Audio, "audio/mp4", is_m4a),
    (MediaKind::Audio, "audio/aac", is_aac_adts),
    (MediaKind::Audio, "audio/mpeg", is_mp3),
    // The network takes WebP only as a sticker, never as an image (its images are JPEG and PNG).
    (MediaKind::Sticker, "image/webp", is_webp),
];

static INFER: LazyLock<infer::Infer> = LazyLock::new(infer::Infer::new);

/// Judges a file from its first bytes (at least [`SNIFF_LEN`] of them when the file is that long).
///
/// # Errors
/// [`Unsupported::OggNotOpus`] for an Ogg file of another codec; [`Unsupported::Other`] for anything but
/// PDF, JPEG, PNG, MP4 or 3GPP video, AAC (ADTS), AMR, MP3, MP4 audio, Ogg Opus or WebP (GIF included).
pub fn sniff(first_bytes: &[u8]) -> Result<Sniffed, Unsupported> {
    let own = OWN_MATCHERS
        .iter()
        .find(|(_, _, matches)| matches(first_bytes))
        .map(|(kind, mime, _)| (*kind, *mime));
    let (kind, mime) = match own {
        Some(verdict) => verdict,
        None if is_ogg(first_bytes) => return Err(Unsupported::OggNotOpus),
        None => match INFER.get(first_bytes).map(|found| found.mime_type()) {
            // `infer` takes `%PDF` anywhere in the first KiB (as Acrobat does), which would let a text
            // file that merely mentions it pass as a document; only a file that starts as a PDF counts.
            Some("application/pdf") if first_bytes.starts_with(b"%PDF-") => {
                (MediaKind::Document, "application/pdf")
            }
            Some("image/jpeg") => (MediaKind::Image, "image/jpeg"),
            Some("image/png") => (MediaKind::Image, "image/png"),
            Some("video/mp4") => (MediaKind::Video, "video/mp4"),
            _ => return Err(Unsupported::Other),
        },
    };
    Ok(Sniffed {
        kind,
        mime,
        animated: kind == MediaKind::Sticker && webp_is_animated(first_bytes),
    })
}
