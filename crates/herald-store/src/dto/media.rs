//! A file in a stored document: its kind, where it is (a stored upload or a link) and a document's name.

use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
use herald_domain::error::InvalidValue;
use herald_domain::ids::MediaId;
use herald_domain::values::{FileName, MediaLink};
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct MediaDto {
    kind: String,
    source: SourceDto,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    filename: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub(crate) enum SourceDto {
    Stored(String),
    Link(String),
    /// [`MediaSource::Upload`]: the send use case replaces it before a message is stored, so a stored one
    /// is a bug. It has a tag of its own so that such a bug writes a recognisable value, never a guess,
    /// and is refused on read.
    Upload,
}

impl From<&MediaAttachment> for MediaDto {
    fn from(media: &MediaAttachment) -> Self {
        Self {
            kind: media.kind.as_str().to_owned(),
            source: match &media.source {
                MediaSource::Stored(id) => SourceDto::Stored(id.to_string()),
                MediaSource::Link(link) => SourceDto::Link(link.as_str().to_owned()),
                MediaSource::Upload => SourceDto::Upload,
            },
            filename: media.filename.as_ref().map(|f| f.as_str().to_owned()),
        }
    }
}

impl TryFrom<&MediaDto> for MediaAttachment {
    type Error = InvalidValue;

    fn try_from(dto: &MediaDto) -> Result<Self, Self::Error> {
        Ok(Self {
            kind: MediaKind::parse(&dto.kind)?,
            source: match &dto.source {
                SourceDto::Stored(id) => MediaSource::Stored(MediaId::parse(id)?),
                SourceDto::Link(link) => MediaSource::Link(MediaLink::parse(link)?),
                SourceDto::Upload => {
                    return Err(InvalidValue::new(
                        "an upload in progress was stored in place of a stored file or link",
                    ));
                }
            },
            filename: dto.filename.as_deref().map(FileName::parse).transpose()?,
        })
    }
}
