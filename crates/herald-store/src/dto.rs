//! JSON documents stored in TEXT columns: message content, message errors and template structures.
//!
//! The domain has no serde, on purpose; these DTOs are the storage format. Renaming a field or a tag here
//! changes what is on disk, so such changes need a data migration.

use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
use herald_domain::error::InvalidValue;
use herald_domain::ids::MediaId;
use herald_domain::message::{MessageContent, MessageError};
use herald_domain::template::{
    BodySpec, BodyValues, ButtonKind, ButtonSpec, ButtonValue, HeaderSpec, HeaderValue, LanguageCode,
    ParamName, TemplateName, TemplateRef, TemplateStructure, TemplateText, TemplateVariables,
};
use herald_domain::values::{Caption, FileName, MediaLink, MessageText};
use serde::{Deserialize, Serialize};

mod inbound;
pub(crate) use inbound::InboundContentDto;
mod kinds;
pub(crate) use kinds::TargetDto;
use kinds::{ContactDto, InteractiveDto, LocationDto, ReactionDto};

/// The `content` column: the content, and the message it replies to, in one document. `reply_to` is left
/// out when there is none, so the rows written before replies existed read as they are.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StoredContent {
    #[serde(flatten)]
    pub(crate) content: ContentDto,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reply_to: Option<TargetDto>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum ContentDto {
    Text {
        body: String,
        preview_url: bool,
    },
    Media {
        media: MediaDto,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        caption: Option<String>,
    },
    Template {
        name: String,
        language: String,
        variables: VariablesDto,
    },
    Interactive {
        interactive: Box<InteractiveDto>,
    },
    Reaction {
        reaction: ReactionDto,
    },
    Location {
        location: LocationDto,
    },
    Contacts {
        contacts: Vec<ContactDto>,
    },
}

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

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct VariablesDto {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    header: Option<HeaderValueDto>,
    body: BodyValuesDto,
    #[serde(default)]
    buttons: Vec<ButtonValueDto>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub(crate) enum HeaderValueDto {
    Text(Vec<String>),
    Media(MediaDto),
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub(crate) enum BodyValuesDto {
    Positional(Vec<String>),
    Named(Vec<(String, String)>),
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ButtonValueDto {
    index: u8,
    kind: ButtonKindDto,
    values: Vec<String>,
}

/// All button kinds, `static` included (the domain's `parse_sub_type` refuses it because a send cannot
/// name it, but a stored template can have one).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ButtonKindDto {
    QuickReply,
    Url,
    CopyCode,
    Flow,
    Static,
}

impl From<ButtonKind> for ButtonKindDto {
    fn from(kind: ButtonKind) -> Self {
        match kind {
            ButtonKind::QuickReply => Self::QuickReply,
            ButtonKind::Url => Self::Url,
            ButtonKind::CopyCode => Self::CopyCode,
            ButtonKind::Flow => Self::Flow,
            ButtonKind::Static => Self::Static,
        }
    }
}

impl From<ButtonKindDto> for ButtonKind {
    fn from(kind: ButtonKindDto) -> Self {
        match kind {
            ButtonKindDto::QuickReply => Self::QuickReply,
            ButtonKindDto::Url => Self::Url,
            ButtonKindDto::CopyCode => Self::CopyCode,
            ButtonKindDto::Flow => Self::Flow,
            ButtonKindDto::Static => Self::Static,
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ErrorDto {
    code: String,
    title: String,
    detail: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    network_code: Option<i64>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StructureDto {
    header: HeaderSpecDto,
    body: BodySpecDto,
    #[serde(default)]
    buttons: Vec<ButtonSpecDto>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub(crate) enum HeaderSpecDto {
    None,
    Text,
    Media(String),
    Location,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub(crate) enum BodySpecDto {
    Positional(usize),
    Named(Vec<String>),
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ButtonSpecDto {
    index: u8,
    kind: ButtonKindDto,
    parameters: u8,
}

fn texts(values: &[TemplateText]) -> Vec<String> {
    values.iter().map(|v| v.as_str().to_owned()).collect()
}

fn parse_texts(values: &[String]) -> Result<Vec<TemplateText>, InvalidValue> {
    values.iter().map(|v| TemplateText::parse(v)).collect()
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

impl From<&TemplateVariables> for VariablesDto {
    fn from(variables: &TemplateVariables) -> Self {
        Self {
            header: variables.header.as_ref().map(|header| match header {
                HeaderValue::Text(values) => HeaderValueDto::Text(texts(values)),
                HeaderValue::Media(media) => HeaderValueDto::Media(media.into()),
            }),
            body: match &variables.body {
                BodyValues::Positional(values) => BodyValuesDto::Positional(texts(values)),
                BodyValues::Named(pairs) => BodyValuesDto::Named(
                    pairs
                        .iter()
                        .map(|(name, value)| (name.as_str().to_owned(), value.as_str().to_owned()))
                        .collect(),
                ),
            },
            buttons: variables
                .buttons
                .iter()
                .map(|button| ButtonValueDto {
                    index: button.index,
                    kind: button.kind.into(),
                    values: texts(&button.values),
                })
                .collect(),
        }
    }
}

impl TryFrom<&VariablesDto> for TemplateVariables {
    type Error = InvalidValue;

    fn try_from(dto: &VariablesDto) -> Result<Self, Self::Error> {
        let header = match &dto.header {
            None => None,
            Some(HeaderValueDto::Text(values)) => Some(HeaderValue::Text(parse_texts(values)?)),
            Some(HeaderValueDto::Media(media)) => Some(HeaderValue::Media(media.try_into()?)),
        };
        let body = match &dto.body {
            BodyValuesDto::Positional(values) => BodyValues::Positional(parse_texts(values)?),
            BodyValuesDto::Named(pairs) => BodyValues::Named(
                pairs
                    .iter()
                    .map(|(name, value)| Ok((ParamName::parse(name)?, TemplateText::parse(value)?)))
                    .collect::<Result<_, InvalidValue>>()?,
            ),
        };
        let buttons = dto
            .buttons
            .iter()
            .map(|button| {
                Ok(ButtonValue {
                    index: button.index,
                    kind: button.kind.into(),
                    values: parse_texts(&button.values)?,
                })
            })
            .collect::<Result<_, InvalidValue>>()?;
        Ok(Self {
            header,
            body,
            buttons,
        })
    }
}

impl From<&MessageContent> for ContentDto {
    fn from(content: &MessageContent) -> Self {
        match content {
            MessageContent::Text { body, preview_url } => Self::Text {
                body: body.as_str().to_owned(),
                preview_url: *preview_url,
            },
            MessageContent::Media { media, caption } => Self::Media {
                media: media.into(),
                caption: caption.as_ref().map(|c| c.as_str().to_owned()),
            },
            MessageContent::Template { template, variables } => Self::Template {
                name: template.name.as_str().to_owned(),
                language: template.language.as_str().to_owned(),
                variables: variables.into(),
            },
            MessageContent::Interactive(message) => Self::Interactive {
                interactive: Box::new(message.into()),
            },
            MessageContent::Reaction(reaction) => Self::Reaction {
                reaction: reaction.into(),
            },
            MessageContent::Location(location) => Self::Location {
                location: location.into(),
            },
            MessageContent::Contacts(cards) => Self::Contacts {
                contacts: kinds::contacts_dto(cards),
            },
        }
    }
}

impl TryFrom<&ContentDto> for MessageContent {
    type Error = InvalidValue;

    fn try_from(dto: &ContentDto) -> Result<Self, Self::Error> {
        Ok(match dto {
            ContentDto::Text { body, preview_url } => Self::Text {
                body: MessageText::parse(body)?,
                preview_url: *preview_url,
            },
            ContentDto::Media { media, caption } => Self::Media {
                media: media.try_into()?,
                caption: caption.as_deref().map(Caption::parse).transpose()?,
            },
            ContentDto::Template {
                name,
                language,
                variables,
            } => Self::Template {
                template: TemplateRef {
                    name: TemplateName::parse(name)?,
                    language: LanguageCode::parse(language)?,
                },
                variables: variables.try_into()?,
            },
            ContentDto::Interactive { interactive } => Self::Interactive(interactive.as_ref().try_into()?),
            ContentDto::Reaction { reaction } => Self::Reaction(reaction.try_into()?),
            ContentDto::Location { location } => Self::Location(location.try_into()?),
            ContentDto::Contacts { contacts } => Self::Contacts(kinds::contacts(contacts)?),
        })
    }
}

impl From<&MessageError> for ErrorDto {
    fn from(error: &MessageError) -> Self {
        Self {
            code: error.code.clone(),
            title: error.title.clone(),
            detail: error.detail.clone(),
            network_code: error.network_code,
        }
    }
}

impl From<ErrorDto> for MessageError {
    fn from(dto: ErrorDto) -> Self {
        Self {
            code: dto.code,
            title: dto.title,
            detail: dto.detail,
            network_code: dto.network_code,
        }
    }
}

impl From<&TemplateStructure> for StructureDto {
    fn from(structure: &TemplateStructure) -> Self {
        Self {
            header: match &structure.header {
                HeaderSpec::None => HeaderSpecDto::None,
                HeaderSpec::Text => HeaderSpecDto::Text,
                HeaderSpec::Media(kind) => HeaderSpecDto::Media(kind.as_str().to_owned()),
                HeaderSpec::Location => HeaderSpecDto::Location,
            },
            body: match &structure.body {
                BodySpec::Positional(count) => BodySpecDto::Positional(*count),
                BodySpec::Named(names) => {
                    BodySpecDto::Named(names.iter().map(|n| n.as_str().to_owned()).collect())
                }
            },
            buttons: structure
                .buttons
                .iter()
                .map(|button| ButtonSpecDto {
                    index: button.index,
                    kind: button.kind.into(),
                    parameters: button.parameters,
                })
                .collect(),
        }
    }
}

impl TryFrom<&StructureDto> for TemplateStructure {
    type Error = InvalidValue;

    fn try_from(dto: &StructureDto) -> Result<Self, Self::Error> {
        Ok(Self {
            header: match &dto.header {
                HeaderSpecDto::None => HeaderSpec::None,
                HeaderSpecDto::Text => HeaderSpec::Text,
                HeaderSpecDto::Media(kind) => HeaderSpec::Media(MediaKind::parse(kind)?),
                HeaderSpecDto::Location => HeaderSpec::Location,
            },
            body: match &dto.body {
                BodySpecDto::Positional(count) => BodySpec::Positional(*count),
                BodySpecDto::Named(names) => BodySpec::Named(
                    names
                        .iter()
                        .map(|n| ParamName::parse(n))
                        .collect::<Result<_, _>>()?,
                ),
            },
            buttons: dto
                .buttons
                .iter()
                .map(|button| ButtonSpec {
                    index: button.index,
                    kind: button.kind.into(),
                    parameters: button.parameters,
                })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip_content(content: &MessageContent) -> MessageContent {
        let json = serde_json::to_string(&ContentDto::from(content)).unwrap();
        let dto: ContentDto = serde_json::from_str(&json).unwrap();
        MessageContent::try_from(&dto).unwrap()
    }

    fn text(value: &str) -> TemplateText {
        TemplateText::parse(value).unwrap()
    }

    #[test]
    fn every_content_shape_round_trips() {
        let link = MediaAttachment {
            kind: MediaKind::Document,
            source: MediaSource::Link(MediaLink::parse("https://example.com/a.pdf").unwrap()),
            filename: Some(FileName::parse("a.pdf").unwrap()),
        };
        let stored = MediaAttachment {
            kind: MediaKind::Image,
            source: MediaSource::Stored(MediaId::from_ulid(ulid::Ulid::from_parts(1, 2))),
            filename: None,
        };
        let contents = [
            MessageContent::Text {
                body: MessageText::parse("héllo 📦").unwrap(),
                preview_url: true,
            },
            MessageContent::Media {
                media: link,
                caption: Some(Caption::parse("invoice").unwrap()),
            },
            MessageContent::Media {
                media: stored.clone(),
                caption: None,
            },
            MessageContent::Template {
                template: TemplateRef {
                    name: TemplateName::parse("order_shipped").unwrap(),
                    language: LanguageCode::parse("en_US").unwrap(),
                },
                variables: TemplateVariables {
                    header: Some(HeaderValue::Media(stored)),
                    body: BodyValues::Named(vec![(ParamName::parse("customer").unwrap(), text("Ana"))]),
                    buttons: vec![ButtonValue {
                        index: 0,
                        kind: ButtonKind::Url,
                        values: vec![text("track/1")],
                    }],
                },
            },
            MessageContent::Template {
                template: TemplateRef {
                    name: TemplateName::parse("hello_world").unwrap(),
                    language: LanguageCode::parse("en").unwrap(),
                },
                variables: TemplateVariables {
                    header: Some(HeaderValue::Text(vec![text("Hi")])),
                    ..TemplateVariables::positional(vec![text("a"), text("b")])
                },
            },
        ];
        for content in &contents {
            assert_eq!(&round_trip_content(content), content);
        }
    }

    #[test]
    fn structures_round_trip_including_static_buttons() {
        let structure = TemplateStructure {
            header: HeaderSpec::Media(MediaKind::Video),
            body: BodySpec::Named(vec![ParamName::parse("date").unwrap()]),
            buttons: vec![
                ButtonSpec {
                    index: 0,
                    kind: ButtonKind::Static,
                    parameters: 0,
                },
                ButtonSpec {
                    index: 1,
                    kind: ButtonKind::CopyCode,
                    parameters: 1,
                },
            ],
        };
        let json = serde_json::to_string(&StructureDto::from(&structure)).unwrap();
        let dto: StructureDto = serde_json::from_str(&json).unwrap();
        assert_eq!(TemplateStructure::try_from(&dto).unwrap(), structure);
    }

    #[test]
    fn an_upload_in_progress_is_written_as_such_and_refused_on_read() {
        let content = MessageContent::Media {
            media: MediaAttachment {
                kind: MediaKind::Image,
                source: MediaSource::Upload,
                filename: None,
            },
            caption: None,
        };
        let json = serde_json::to_string(&ContentDto::from(&content)).unwrap();
        assert!(json.contains(r#""source":{"type":"upload"}"#), "{json}");
        let dto: ContentDto = serde_json::from_str(&json).unwrap();
        assert!(MessageContent::try_from(&dto).is_err());
    }

    #[test]
    fn stored_garbage_is_refused_not_guessed() {
        let dto: ContentDto =
            serde_json::from_str(r#"{"kind":"text","body":"","preview_url":false}"#).unwrap();
        assert!(
            MessageContent::try_from(&dto).is_err(),
            "an empty body is not a valid message text"
        );
    }
}
