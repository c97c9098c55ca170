//! The files a message carries: their kind, where their bytes come from, and their role in the message.

use crate::error::InvalidValue;
use crate::ids::MediaId;
use crate::values::{FileName, MediaLink};

/// The three kinds of file a message can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediaKind {
    Document,
    Image,
    Video,
}

impl MediaKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Document => "document",
            Self::Image => "image",
            Self::Video => "video",
        }
    }

    /// # Errors
    /// [`InvalidValue`] for anything but `document`, `image`, `video`.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        match value {
            "document" => Ok(Self::Document),
            "image" => Ok(Self::Image),
            "video" => Ok(Self::Video),
            other => Err(InvalidValue::new(format!(
                "must be document, image or video, not `{other}`"
            ))),
        }
    }

    /// The largest file of this kind the network takes (docs/api.md §4.3), in decimal megabytes as the network
    /// states them: a file Herald accepts is never one the network could refuse for its size.
    pub fn max_bytes(self) -> u64 {
        const MB: u64 = 1_000_000;
        match self {
            Self::Document => 100 * MB,
            Self::Image => 5 * MB,
            Self::Video => 16 * MB,
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
    /// The file is the message (`document`, `image`, `video`).
    Message,
    /// The file fills a template's media header.
    TemplateHeader,
    /// The file is an interactive message's header.
    InteractiveHeader,
}

impl AttachmentRole {
    /// The request field that names a stored file in this role (docs/api.md §4.1, §4.3).
    pub fn media_id_field(self) -> &'static str {
        match self {
            Self::Message => "media_id",
            Self::TemplateHeader => "variables.header.media_id",
            Self::InteractiveHeader => "interactive.header.media_id",
        }
    }
}
