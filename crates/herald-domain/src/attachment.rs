//! The files a message carries: their kind, where their bytes come from, and their role in the message.

use crate::error::InvalidValue;
use crate::ids::MediaId;
use crate::values::{FileName, MediaLink};

/// The kinds of file a message can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediaKind {
    Document,
    Image,
    Video,
    Audio,
    Sticker,
}

impl MediaKind {
    pub const ALL: [Self; 5] = [
        Self::Document,
        Self::Image,
        Self::Video,
        Self::Audio,
        Self::Sticker,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Document => "document",
            Self::Image => "image",
            Self::Video => "video",
            Self::Audio => "audio",
            Self::Sticker => "sticker",
        }
    }

    /// # Errors
    /// [`InvalidValue`] for anything but `document`, `image`, `video`, `audio`, `sticker`.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.as_str() == value)
            .ok_or_else(|| {
                InvalidValue::new(format!(
                    "must be document, image, video, audio or sticker, not `{value}`"
                ))
            })
    }

    /// Whether a file of this kind may carry a caption (and, for documents, a filename): the network
    /// takes neither on audio or stickers (docs/cloud-api.md §1.2).
    pub fn takes_caption(self) -> bool {
        matches!(self, Self::Document | Self::Image | Self::Video)
    }

    /// Whether the file may fill a template's or an interactive message's media header: the network's
    /// headers are documents, images and videos only.
    pub fn fits_header(self) -> bool {
        matches!(self, Self::Document | Self::Image | Self::Video)
    }

    /// The largest file of this kind the network takes (docs/api.md §4.3), in decimal units as the network
    /// states them: a file Herald accepts is never one the network could refuse for its size. A sticker's
    /// limit depends on whether it is `animated` (static 100 KB, animated 500 KB); no other kind's does.
    ///
    /// This is the one place the limits are decided: uploads are held to it while they stream in, and
    /// refusals quote it.
    pub fn max_bytes(self, animated: bool) -> u64 {
        const KB: u64 = 1_000;
        const MB: u64 = 1_000_000;
        match self {
            Self::Document => 100 * MB,
            Self::Image => 5 * MB,
            Self::Video | Self::Audio => 16 * MB,
            Self::Sticker if animated => 500 * KB,
            Self::Sticker => 100 * KB,
        }
    }

    /// The name of a file of this kind in a refusal: `an animated sticker`, `an audio file`.
    pub fn a_file(self, animated: bool) -> &'static str {
        match self {
            Self::Document => "a document",
            Self::Image => "an image",
            Self::Video => "a video",
            Self::Audio => "an audio file",
            Self::Sticker if animated => "an animated sticker",
            Self::Sticker => "a static sticker",
        }
    }
}

/// Where the bytes of a media message come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaSource {
    /// A file uploaded to Herald (`POST /api/v1/media` or a multipart send).
    Stored(MediaId),
    /// A public URL the network fetches itself.
    Link(MediaLink),
    /// The file uploaded with this very request (a multipart send). The send use case stores it and puts
    /// [`MediaSource::Stored`] in its place before the message exists, so no stored message has it.
    Upload,
}

/// A file to send, as a message of its own or as a template header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaAttachment {
    pub kind: MediaKind,
    pub source: MediaSource,
    /// Documents only: the name the recipient sees.
    pub filename: Option<FileName>,
}

/// Where a message's file sits in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttachmentRole {
    /// The file is the message (`document`, `image`, `video`, `audio`, `sticker`).
    Message,
    /// The file fills a template's media header.
    TemplateHeader,
    /// The file is an interactive message's header.
    InteractiveHeader,
    /// The file is the media header of a carousel template's card (zero-based).
    TemplateCard(usize),
}

impl AttachmentRole {
    /// The request field that names a stored file in this role (docs/api.md §4.1, §4.3).
    pub fn media_id_field(self) -> String {
        match self {
            Self::Message => "media_id".to_owned(),
            Self::TemplateHeader => "variables.header.media_id".to_owned(),
            Self::InteractiveHeader => "interactive.header.media_id".to_owned(),
            Self::TemplateCard(index) => format!("variables.cards[{index}].header.media_id"),
        }
    }
}
