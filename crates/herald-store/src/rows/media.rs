//! Rows of `media_files`, and the file columns of `inbound_messages`.

use super::shared::*;
use crate::dto::InboundContentDto;
use crate::error::corrupt;
use herald_domain::attachment::MediaKind;
use herald_domain::ids::{MediaId, OrganizationId, SenderId};
use herald_domain::media::{InboundMedia, MediaFile, Sha256Digest};
use herald_domain::ports::StoreError;
use herald_domain::values::FileName;

row! {
    /// A row of `media_files` (an upload's metadata).
    #[derive(Debug)]
    pub(crate) struct MediaFileRow in media_files {
        pub id: String,
        pub organization_id: String,
        pub kind: String,
        pub mime_type: String,
        pub size: i64,
        pub sha256: String,
        pub filename: Option<String>,
        pub created_at: Time,
        pub expires_at: Time,
    }
}

impl MediaFileRow {
    pub(crate) fn new(file: &MediaFile) -> Result<Self, StoreError> {
        Ok(Self {
            id: file.id.to_string(),
            organization_id: file.organization_id.to_string(),
            kind: file.kind.as_str().to_owned(),
            mime_type: file.mime_type.clone(),
            size: i64::try_from(file.size).map_err(|_| {
                StoreError::Unknown(anyhow::anyhow!("file size {} is too large to store", file.size))
            })?,
            sha256: file.sha256.to_hex(),
            filename: file.filename.as_ref().map(|f| f.as_str().to_owned()),
            created_at: file.created_at,
            expires_at: file.expires_at,
        })
    }
}

impl TryFrom<MediaFileRow> for MediaFile {
    type Error = StoreError;

    fn try_from(row: MediaFileRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse("media id", MediaId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            kind: parse("media kind", MediaKind::parse(&row.kind))?,
            mime_type: row.mime_type,
            size: to_u64("media size", row.size)?,
            sha256: parse_digest(&row.sha256)?,
            filename: row
                .filename
                .as_deref()
                .map(|f| parse("media filename", FileName::parse(f)))
                .transpose()?,
            created_at: row.created_at,
            expires_at: row.expires_at,
        })
    }
}

pub(crate) fn parse_digest(hex: &str) -> Result<Sha256Digest, StoreError> {
    parse("media digest", Sha256Digest::from_hex(hex))
}

row! {
    /// The columns of `inbound_messages` that describe its file.
    #[derive(Debug)]
    pub(crate) struct InboundMediaRow in inbound_messages {
        pub media_id: Option<String>,
        pub organization_id: String,
        pub sender_id: String,
        pub content: String,
    }
}

impl TryFrom<InboundMediaRow> for InboundMedia {
    type Error = StoreError;

    fn try_from(row: InboundMediaRow) -> Result<Self, Self::Error> {
        let id = row
            .media_id
            .ok_or_else(|| corrupt("inbound media id", "missing"))?;
        let InboundContentDto::Media {
            media_kind,
            network_media_id,
            mime_type,
            filename,
            ..
        } = from_json::<InboundContentDto>("inbound content", &row.content)?
        else {
            return Err(corrupt(
                "inbound content",
                "a message with a media id carries no media",
            ));
        };
        Ok(Self {
            id: parse("media id", MediaId::parse(&id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            sender_id: parse("sender id", SenderId::parse(&row.sender_id))?,
            network_media_id,
            kind: media_kind,
            mime_type,
            filename,
        })
    }
}
