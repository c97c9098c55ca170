//! The template parts of stored documents: a send's variables (in the `content` column) and a template's
//! structure (the `templates.structure` column). Fields added after the first release (named text headers,
//! locations, Flow data, offers, carousel cards) are optional on read, so rows written before them read as
//! they are.

use super::kinds::LocationDto;
use super::media::MediaDto;
use herald_domain::attachment::{MediaAttachment, MediaKind};
use herald_domain::content::Location;
use herald_domain::error::InvalidValue;
use herald_domain::template::{
    BodySpec, BodyValues, ButtonKind, ButtonSpec, ButtonValue, CardSpec, CardValues, HeaderSpec, HeaderValue,
    OfferSpec, ParamName, TemplateStructure, TemplateText, TemplateVariables,
};
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct VariablesDto {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    header: Option<HeaderValueDto>,
    body: BodyValuesDto,
    #[serde(default)]
    buttons: Vec<ButtonValueDto>,
    /// A limited-time offer's expiration, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    offer_expires_at: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    cards: Vec<CardValuesDto>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub(crate) enum HeaderValueDto {
    Text(Vec<String>),
    NamedText(Vec<(String, String)>),
    Media(MediaDto),
    Location(LocationDto),
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flow_action_data: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct CardValuesDto {
    header: MediaDto,
    body: BodyValuesDto,
    #[serde(default)]
    buttons: Vec<ButtonValueDto>,
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
pub(crate) struct StructureDto {
    header: HeaderSpecDto,
    body: BodySpecDto,
    #[serde(default)]
    buttons: Vec<ButtonSpecDto>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    offer: Option<OfferSpecDto>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    cards: Vec<CardSpecDto>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub(crate) enum HeaderSpecDto {
    None,
    Text,
    NamedText(String),
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

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct OfferSpecDto {
    has_expiration: bool,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct CardSpecDto {
    header: String,
    body: BodySpecDto,
    #[serde(default)]
    buttons: Vec<ButtonSpecDto>,
}

fn texts(values: &[TemplateText]) -> Vec<String> {
    values.iter().map(|v| v.as_str().to_owned()).collect()
}

fn parse_texts(values: &[String]) -> Result<Vec<TemplateText>, InvalidValue> {
    values.iter().map(|v| TemplateText::parse(v)).collect()
}

fn pairs(values: &[(ParamName, TemplateText)]) -> Vec<(String, String)> {
    values
        .iter()
        .map(|(name, value)| (name.as_str().to_owned(), value.as_str().to_owned()))
        .collect()
}

fn parse_pairs(values: &[(String, String)]) -> Result<Vec<(ParamName, TemplateText)>, InvalidValue> {
    values
        .iter()
        .map(|(name, value)| Ok((ParamName::parse(name)?, TemplateText::parse(value)?)))
        .collect()
}

impl From<&BodyValues> for BodyValuesDto {
    fn from(body: &BodyValues) -> Self {
        match body {
            BodyValues::Positional(values) => Self::Positional(texts(values)),
            BodyValues::Named(values) => Self::Named(pairs(values)),
        }
    }
}

impl TryFrom<&BodyValuesDto> for BodyValues {
    type Error = InvalidValue;

    fn try_from(dto: &BodyValuesDto) -> Result<Self, Self::Error> {
        Ok(match dto {
            BodyValuesDto::Positional(values) => Self::Positional(parse_texts(values)?),
            BodyValuesDto::Named(values) => Self::Named(parse_pairs(values)?),
        })
    }
}

impl From<&ButtonValue> for ButtonValueDto {
    fn from(button: &ButtonValue) -> Self {
        Self {
            index: button.index,
            kind: button.kind.into(),
            values: texts(&button.values),
            flow_action_data: button.flow_action_data.clone(),
        }
    }
}

impl TryFrom<&ButtonValueDto> for ButtonValue {
    type Error = InvalidValue;

    fn try_from(dto: &ButtonValueDto) -> Result<Self, Self::Error> {
        Ok(Self {
            index: dto.index,
            kind: dto.kind.into(),
            values: parse_texts(&dto.values)?,
            flow_action_data: dto.flow_action_data.clone(),
        })
    }
}

fn button_values(dtos: &[ButtonValueDto]) -> Result<Vec<ButtonValue>, InvalidValue> {
    dtos.iter().map(ButtonValue::try_from).collect()
}

impl From<&TemplateVariables> for VariablesDto {
    fn from(variables: &TemplateVariables) -> Self {
        Self {
            header: variables.header.as_ref().map(|header| match header {
                HeaderValue::Text(values) => HeaderValueDto::Text(texts(values)),
                HeaderValue::NamedText(values) => HeaderValueDto::NamedText(pairs(values)),
                HeaderValue::Media(media) => HeaderValueDto::Media(media.into()),
                HeaderValue::Location(location) => HeaderValueDto::Location(location.into()),
            }),
            body: (&variables.body).into(),
            buttons: variables.buttons.iter().map(ButtonValueDto::from).collect(),
            offer_expires_at: variables.offer.map(|at| at.to_rfc3339()),
            cards: variables
                .cards
                .iter()
                .map(|card| CardValuesDto {
                    header: (&card.header).into(),
                    body: (&card.body).into(),
                    buttons: card.buttons.iter().map(ButtonValueDto::from).collect(),
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
            Some(HeaderValueDto::NamedText(values)) => Some(HeaderValue::NamedText(parse_pairs(values)?)),
            Some(HeaderValueDto::Media(media)) => Some(HeaderValue::Media(media.try_into()?)),
            Some(HeaderValueDto::Location(location)) => {
                Some(HeaderValue::Location(Location::try_from(location)?))
            }
        };
        let offer = dto
            .offer_expires_at
            .as_deref()
            .map(|at| {
                chrono::DateTime::parse_from_rfc3339(at)
                    .map(|at| at.to_utc())
                    .map_err(|e| InvalidValue::new(format!("offer expiration `{at}`: {e}")))
            })
            .transpose()?;
        let cards = dto
            .cards
            .iter()
            .map(|card| {
                Ok(CardValues {
                    header: MediaAttachment::try_from(&card.header)?,
                    body: (&card.body).try_into()?,
                    buttons: button_values(&card.buttons)?,
                })
            })
            .collect::<Result<_, InvalidValue>>()?;
        Ok(Self {
            header,
            body: (&dto.body).try_into()?,
            buttons: button_values(&dto.buttons)?,
            offer,
            cards,
        })
    }
}

impl From<&BodySpec> for BodySpecDto {
    fn from(body: &BodySpec) -> Self {
        match body {
            BodySpec::Positional(count) => Self::Positional(*count),
            BodySpec::Named(names) => Self::Named(names.iter().map(|n| n.as_str().to_owned()).collect()),
        }
    }
}

impl TryFrom<&BodySpecDto> for BodySpec {
    type Error = InvalidValue;

    fn try_from(dto: &BodySpecDto) -> Result<Self, Self::Error> {
        Ok(match dto {
            BodySpecDto::Positional(count) => Self::Positional(*count),
            BodySpecDto::Named(names) => Self::Named(
                names
                    .iter()
                    .map(|n| ParamName::parse(n))
                    .collect::<Result<_, _>>()?,
            ),
        })
    }
}

fn button_spec_dtos(buttons: &[ButtonSpec]) -> Vec<ButtonSpecDto> {
    buttons
        .iter()
        .map(|button| ButtonSpecDto {
            index: button.index,
            kind: button.kind.into(),
            parameters: button.parameters,
        })
        .collect()
}

fn button_specs(dtos: &[ButtonSpecDto]) -> Vec<ButtonSpec> {
    dtos.iter()
        .map(|button| ButtonSpec {
            index: button.index,
            kind: button.kind.into(),
            parameters: button.parameters,
        })
        .collect()
}

impl From<&TemplateStructure> for StructureDto {
    fn from(structure: &TemplateStructure) -> Self {
        Self {
            header: match &structure.header {
                HeaderSpec::None => HeaderSpecDto::None,
                HeaderSpec::Text => HeaderSpecDto::Text,
                HeaderSpec::NamedText(name) => HeaderSpecDto::NamedText(name.as_str().to_owned()),
                HeaderSpec::Media(kind) => HeaderSpecDto::Media(kind.as_str().to_owned()),
                HeaderSpec::Location => HeaderSpecDto::Location,
            },
            body: (&structure.body).into(),
            buttons: button_spec_dtos(&structure.buttons),
            offer: structure.offer.map(|offer| OfferSpecDto {
                has_expiration: offer.has_expiration,
            }),
            cards: structure
                .cards
                .iter()
                .map(|card| CardSpecDto {
                    header: card.header.as_str().to_owned(),
                    body: (&card.body).into(),
                    buttons: button_spec_dtos(&card.buttons),
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
                HeaderSpecDto::NamedText(name) => HeaderSpec::NamedText(ParamName::parse(name)?),
                HeaderSpecDto::Media(kind) => HeaderSpec::Media(MediaKind::parse(kind)?),
                HeaderSpecDto::Location => HeaderSpec::Location,
            },
            body: (&dto.body).try_into()?,
            buttons: button_specs(&dto.buttons),
            offer: dto.offer.as_ref().map(|offer| OfferSpec {
                has_expiration: offer.has_expiration,
            }),
            cards: dto
                .cards
                .iter()
                .map(|card| {
                    Ok(CardSpec {
                        header: MediaKind::parse(&card.header)?,
                        body: (&card.body).try_into()?,
                        buttons: button_specs(&card.buttons),
                    })
                })
                .collect::<Result<_, InvalidValue>>()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_structure_stored_before_cards_and_offers_reads_as_it_was() {
        let old = r#"{"header":{"type":"location"},"body":{"type":"positional","value":1},"buttons":[{"index":0,"kind":"url","parameters":1}]}"#;
        let dto: StructureDto = serde_json::from_str(old).unwrap();
        let structure = TemplateStructure::try_from(&dto).unwrap();
        assert_eq!(structure.header, HeaderSpec::Location);
        assert!(structure.cards.is_empty() && structure.offer.is_none());
        // Written back, it is the same document: nothing new is added for what it does not have.
        let json: serde_json::Value = serde_json::to_value(StructureDto::from(&structure)).unwrap();
        assert_eq!(json, serde_json::from_str::<serde_json::Value>(old).unwrap());
    }

    #[test]
    fn variables_stored_before_cards_and_offers_read_as_they_were() {
        let old = r#"{"body":{"type":"positional","value":["Ana"]},"buttons":[{"index":0,"kind":"url","values":["x"]}]}"#;
        let dto: VariablesDto = serde_json::from_str(old).unwrap();
        let variables = TemplateVariables::try_from(&dto).unwrap();
        assert_eq!(variables.buttons[0].flow_action_data, None);
        assert!(variables.cards.is_empty() && variables.offer.is_none());
    }
}
