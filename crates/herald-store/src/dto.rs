//! JSON documents stored in TEXT columns: message content, message errors and template structures.
//!
//! The domain has no serde, on purpose; these DTOs are the storage format. Renaming a field or a tag here
//! changes what is on disk, so such changes need a data migration.

use herald_domain::error::InvalidValue;
use herald_domain::message::{MessageContent, MessageError, MessageType};
use herald_domain::template::{LanguageCode, TemplateName, TemplateRef};
use herald_domain::values::{Caption, MessageText};
use serde::{Deserialize, Serialize};

mod inbound;
pub(crate) use inbound::InboundContentDto;
mod kinds;
pub(crate) use kinds::TargetDto;
mod media;
use media::MediaDto;
mod template;
use kinds::{ContactDto, InteractiveDto, LocationDto, ReactionDto};
pub(crate) use template::StructureDto;
use template::VariablesDto;

/// The `content` column: the content, and the message it replies to, in one document. `reply_to` is left
/// out when there is none, so the rows written before replies existed read as they are.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StoredContent {
    #[serde(flatten)]
    pub(crate) content: ContentDto,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reply_to: Option<TargetDto>,
    /// A marketing template's send path and activity sharing; left out for every other message, so older
    /// rows read as they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) marketing: Option<MarketingDto>,
}

/// [`herald_domain::marketing::MarketingSend`] as stored.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct MarketingDto {
    /// `auto`, `cloud_api` or `marketing_messages`.
    pub(crate) route: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) activity_sharing: Option<bool>,
}

impl From<&herald_domain::marketing::MarketingSend> for MarketingDto {
    fn from(send: &herald_domain::marketing::MarketingSend) -> Self {
        Self {
            route: send.route.as_str().to_owned(),
            activity_sharing: send.activity_sharing,
        }
    }
}

impl TryFrom<&MarketingDto> for herald_domain::marketing::MarketingSend {
    type Error = InvalidValue;

    fn try_from(dto: &MarketingDto) -> Result<Self, Self::Error> {
        Ok(Self {
            route: herald_domain::marketing::MarketingRoute::parse(&dto.route)
                .ok_or_else(|| InvalidValue::new(format!("unknown marketing route {:?}", dto.route)))?,
            activity_sharing: dto.activity_sharing,
        })
    }
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
    /// A message to a person since erased: only its type is kept (docs/api.md §7.2).
    Erased {
        message_type: String,
    },
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ErrorDto {
    code: String,
    title: String,
    detail: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    network_code: Option<i64>,
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
            MessageContent::Erased(message_type) => Self::Erased {
                message_type: message_type.as_str().to_owned(),
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
            ContentDto::Erased { message_type } => Self::Erased(MessageType::parse(message_type)?),
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

#[cfg(test)]
mod tests {
    use super::*;
    use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
    use herald_domain::content::{Location, LocationDraft};
    use herald_domain::ids::MediaId;
    use herald_domain::template::{
        BodySpec, BodyValues, ButtonKind, ButtonSpec, ButtonValue, CardSpec, CardValues, HeaderSpec,
        HeaderValue, OfferSpec, ParamName, TemplateStructure, TemplateText, TemplateVariables,
    };
    use herald_domain::values::{FileName, MediaLink};

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
                    header: Some(HeaderValue::Media(stored.clone())),
                    body: BodyValues::Named(vec![(ParamName::parse("customer").unwrap(), text("Ana"))]),
                    buttons: vec![ButtonValue {
                        index: 0,
                        kind: ButtonKind::Url,
                        values: vec![text("track/1")],
                        flow_action_data: None,
                    }],
                    ..TemplateVariables::default()
                },
            },
            MessageContent::Template {
                template: TemplateRef {
                    name: TemplateName::parse("spring_carousel").unwrap(),
                    language: LanguageCode::parse("en_US").unwrap(),
                },
                variables: TemplateVariables {
                    header: Some(HeaderValue::Location(
                        Location::parse(&LocationDraft {
                            latitude: Some("1.25".into()),
                            longitude: Some("-2.5".into()),
                            name: Some("Shop".into()),
                            address: None,
                        })
                        .unwrap(),
                    )),
                    body: BodyValues::Positional(vec![text("Ana")]),
                    buttons: vec![ButtonValue {
                        flow_action_data: Some(r#"{"a":1}"#.into()),
                        ..ButtonValue::new(0, ButtonKind::Flow, vec![text("tok")])
                    }],
                    offer: Some(chrono::DateTime::from_timestamp_millis(1_900_000_000_123).unwrap()),
                    cards: vec![CardValues {
                        header: stored.clone(),
                        body: BodyValues::Named(vec![(ParamName::parse("plant").unwrap(), text("aloe"))]),
                        buttons: vec![ButtonValue::new(1, ButtonKind::QuickReply, vec![text("more")])],
                    }],
                },
            },
            MessageContent::Template {
                template: TemplateRef {
                    name: TemplateName::parse("order_named").unwrap(),
                    language: LanguageCode::parse("en_US").unwrap(),
                },
                variables: TemplateVariables {
                    header: Some(HeaderValue::NamedText(vec![(
                        ParamName::parse("order_id").unwrap(),
                        text("ORD-1"),
                    )])),
                    ..TemplateVariables::default()
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
            ..TemplateStructure::default()
        };
        let json = serde_json::to_string(&StructureDto::from(&structure)).unwrap();
        let dto: StructureDto = serde_json::from_str(&json).unwrap();
        assert_eq!(TemplateStructure::try_from(&dto).unwrap(), structure);

        let richer = TemplateStructure {
            header: HeaderSpec::NamedText(ParamName::parse("order_id").unwrap()),
            body: BodySpec::Positional(1),
            buttons: vec![],
            offer: Some(OfferSpec { has_expiration: true }),
            cards: vec![CardSpec {
                header: MediaKind::Video,
                body: BodySpec::Positional(2),
                buttons: vec![ButtonSpec {
                    index: 0,
                    kind: ButtonKind::Url,
                    parameters: 1,
                }],
            }],
        };
        let json = serde_json::to_string(&StructureDto::from(&richer)).unwrap();
        let dto: StructureDto = serde_json::from_str(&json).unwrap();
        assert_eq!(TemplateStructure::try_from(&dto).unwrap(), richer);
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
