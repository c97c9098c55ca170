//! The stored form of the message kinds beside text, files and templates, and of a reply's target.
//!
//! Each kind is kept as the domain's draft (the client's object, field for field as Meta names it) and
//! checked again by the domain's parser when read, so a stored message can only come back as one the
//! domain accepts. Renaming a field here changes what is on disk.

use herald_domain::ValidationErrors;
use herald_domain::content::{
    ContactCard, ContactDraft, Emoji, Location, LocationDraft, MessageRef, MessageTarget, Reaction,
};
use herald_domain::error::InvalidValue;
use herald_domain::interactive::{
    ActionDraft, ButtonDraft, HeaderDraft, Interactive, InteractiveDraft, ParametersDraft, RowDraft,
    SectionDraft,
};
use serde::{Deserialize, Serialize};

fn invalid(what: &str, errors: &ValidationErrors) -> InvalidValue {
    InvalidValue::new(format!("stored {what} no longer passes its checks: {errors}"))
}

/// A message another one points at: its Herald id and, once resolved, its network id.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct TargetDto {
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    network_message_id: Option<String>,
}

impl From<&MessageTarget> for TargetDto {
    fn from(target: &MessageTarget) -> Self {
        Self {
            message: target.message.to_string(),
            network_message_id: target.network_message_id.clone(),
        }
    }
}

impl TryFrom<&TargetDto> for MessageTarget {
    type Error = InvalidValue;

    fn try_from(dto: &TargetDto) -> Result<Self, Self::Error> {
        Ok(Self {
            message: MessageRef::parse(&dto.message)?,
            network_message_id: dto.network_message_id.clone(),
        })
    }
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ReactionDto {
    target: TargetDto,
    emoji: String,
}

impl From<&Reaction> for ReactionDto {
    fn from(reaction: &Reaction) -> Self {
        Self {
            target: (&reaction.target).into(),
            emoji: reaction.emoji.as_str().to_owned(),
        }
    }
}

impl TryFrom<&ReactionDto> for Reaction {
    type Error = InvalidValue;

    fn try_from(dto: &ReactionDto) -> Result<Self, Self::Error> {
        Ok(Self {
            target: (&dto.target).try_into()?,
            emoji: Emoji::parse(&dto.emoji)?,
        })
    }
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct LocationDto {
    latitude: String,
    longitude: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    address: Option<String>,
}

impl From<&Location> for LocationDto {
    fn from(location: &Location) -> Self {
        let draft = location.to_draft();
        Self {
            latitude: draft.latitude.unwrap_or_default(),
            longitude: draft.longitude.unwrap_or_default(),
            name: draft.name,
            address: draft.address,
        }
    }
}

impl TryFrom<&LocationDto> for Location {
    type Error = InvalidValue;

    fn try_from(dto: &LocationDto) -> Result<Self, Self::Error> {
        Location::parse(&LocationDraft {
            latitude: Some(dto.latitude.clone()),
            longitude: Some(dto.longitude.clone()),
            name: dto.name.clone(),
            address: dto.address.clone(),
        })
        .map_err(|errors| invalid("location", &errors))
    }
}

/// A (value, label) entry of a card.
type EntryDto = (Option<String>, Option<String>);

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct ContactDto {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    formatted_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    first_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    middle_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    suffix: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    phones: Vec<EntryDto>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    emails: Vec<EntryDto>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    urls: Vec<EntryDto>,
    /// street, city, state, zip, country, country_code, type.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    addresses: Vec<[Option<String>; 7]>,
    /// company, department, title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    org: Option<[Option<String>; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    birthday: Option<String>,
}

pub(crate) fn contacts_dto(cards: &[ContactCard]) -> Vec<ContactDto> {
    cards
        .iter()
        .map(|card| {
            let d = card.to_draft();
            ContactDto {
                formatted_name: d.formatted_name,
                first_name: d.first_name,
                last_name: d.last_name,
                middle_name: d.middle_name,
                prefix: d.prefix,
                suffix: d.suffix,
                phones: d.phones,
                emails: d.emails,
                urls: d.urls,
                addresses: d.addresses,
                org: d.org,
                birthday: d.birthday,
            }
        })
        .collect()
}

pub(crate) fn contacts(dtos: &[ContactDto]) -> Result<Vec<ContactCard>, InvalidValue> {
    let drafts: Vec<ContactDraft> = dtos
        .iter()
        .map(|d| ContactDraft {
            formatted_name: d.formatted_name.clone(),
            first_name: d.first_name.clone(),
            last_name: d.last_name.clone(),
            middle_name: d.middle_name.clone(),
            prefix: d.prefix.clone(),
            suffix: d.suffix.clone(),
            phones: d.phones.clone(),
            emails: d.emails.clone(),
            urls: d.urls.clone(),
            addresses: d.addresses.clone(),
            org: d.org.clone(),
            birthday: d.birthday.clone(),
        })
        .collect();
    ContactCard::parse_all(&drafts).map_err(|errors| invalid("contact cards", &errors))
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct InteractiveDto {
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    header: Option<HeaderDto>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    footer: Option<String>,
    action: ActionDto,
}

#[derive(Debug, Serialize, Deserialize)]
struct HeaderDto {
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    media_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    filename: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct ActionDto {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    buttons: Option<Vec<ButtonDto>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    button: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sections: Option<Vec<SectionDto>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default)]
    parameters: ParametersDto,
}

#[derive(Debug, Serialize, Deserialize)]
struct ButtonDto {
    id: Option<String>,
    title: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct SectionDto {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    rows: Vec<RowDto>,
}

#[derive(Debug, Serialize, Deserialize)]
struct RowDto {
    id: Option<String>,
    title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct ParametersDto {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    display_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flow_message_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flow_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flow_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flow_cta: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flow_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flow_action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    screen: Option<String>,
    /// The Flow's input data as JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    data: Option<String>,
}

impl From<&Interactive> for InteractiveDto {
    fn from(message: &Interactive) -> Self {
        let d = message.to_draft();
        let p = d.action.parameters;
        Self {
            kind: d.kind,
            header: d.header.map(|h| HeaderDto {
                kind: h.kind,
                text: h.text,
                media_id: h.media_id,
                filename: h.filename,
            }),
            body: d.body,
            footer: d.footer,
            action: ActionDto {
                buttons: d.action.buttons.map(|buttons| {
                    buttons
                        .into_iter()
                        .map(|b| ButtonDto {
                            id: b.id,
                            title: b.title,
                        })
                        .collect()
                }),
                button: d.action.button,
                sections: d.action.sections.map(|sections| {
                    sections
                        .into_iter()
                        .map(|s| SectionDto {
                            title: s.title,
                            rows: s
                                .rows
                                .into_iter()
                                .map(|r| RowDto {
                                    id: r.id,
                                    title: r.title,
                                    description: r.description,
                                })
                                .collect(),
                        })
                        .collect()
                }),
                name: d.action.name,
                parameters: ParametersDto {
                    display_text: p.display_text,
                    url: p.url,
                    flow_message_version: p.flow_message_version,
                    flow_id: p.flow_id,
                    flow_name: p.flow_name,
                    flow_cta: p.flow_cta,
                    flow_token: p.flow_token,
                    mode: p.mode,
                    flow_action: p.flow_action,
                    screen: p.screen,
                    data: p.data,
                },
            },
        }
    }
}

impl TryFrom<&InteractiveDto> for Interactive {
    type Error = InvalidValue;

    fn try_from(dto: &InteractiveDto) -> Result<Self, Self::Error> {
        let a = &dto.action;
        let p = &a.parameters;
        let draft = InteractiveDraft {
            kind: dto.kind.clone(),
            header: dto.header.as_ref().map(|h| HeaderDraft {
                kind: h.kind.clone(),
                text: h.text.clone(),
                media_id: h.media_id.clone(),
                filename: h.filename.clone(),
            }),
            body: dto.body.clone(),
            footer: dto.footer.clone(),
            action: ActionDraft {
                buttons: a.buttons.as_ref().map(|buttons| {
                    buttons
                        .iter()
                        .map(|b| ButtonDraft {
                            kind: Some("reply".into()),
                            id: b.id.clone(),
                            title: b.title.clone(),
                        })
                        .collect()
                }),
                button: a.button.clone(),
                sections: a.sections.as_ref().map(|sections| {
                    sections
                        .iter()
                        .map(|s| SectionDraft {
                            title: s.title.clone(),
                            rows: s
                                .rows
                                .iter()
                                .map(|r| RowDraft {
                                    id: r.id.clone(),
                                    title: r.title.clone(),
                                    description: r.description.clone(),
                                })
                                .collect(),
                        })
                        .collect()
                }),
                name: a.name.clone(),
                parameters: ParametersDraft {
                    display_text: p.display_text.clone(),
                    url: p.url.clone(),
                    flow_message_version: p.flow_message_version.clone(),
                    flow_id: p.flow_id.clone(),
                    flow_name: p.flow_name.clone(),
                    flow_cta: p.flow_cta.clone(),
                    flow_token: p.flow_token.clone(),
                    mode: p.mode.clone(),
                    flow_action: p.flow_action.clone(),
                    screen: p.screen.clone(),
                    data: p.data.clone(),
                    data_not_an_object: false,
                },
            },
        };
        Interactive::parse(&draft).map_err(|errors| invalid("interactive message", &errors))
    }
}
