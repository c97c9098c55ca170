//! The objects of the interactive, location and contacts kinds in Meta's shape (a header file named by
//! Herald's `media_id`), as the message resource shows them and the send bodies of §4.6–§4.9 are documented;
//! and those send bodies. Bodies are parsed by hand (`send_body`); these types write the resource and
//! describe both in the OpenAPI document.

use herald_domain::attachment::MediaSource;
use herald_domain::content::{CardAddress, CardEntry, ContactCard, Field, Location, Reaction};
use herald_domain::interactive::{FlowAction, FlowRef, Interactive, InteractiveAction, InteractiveHeader};
use serde::Serialize;
use utoipa::ToSchema;

fn text(field: Option<&Field>) -> Option<String> {
    field.map(|f| f.as_str().to_owned())
}

/// `{"text": …}`.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TextObject {
    pub text: String,
}

/// An interactive message (Meta's `interactive` object).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct InteractiveObject {
    /// `button`, `list`, `cta_url`, `location_request_message` or `flow`.
    #[serde(rename = "type")]
    #[schema(example = "button")]
    pub type_: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<InteractiveHeaderObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<TextObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub footer: Option<TextObject>,
    pub action: InteractiveActionObject,
}

/// `{"type": "text", "text"}`, or `{"type": "image"|"video"|"document", "<type>": {"media_id", "filename"?}}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ToSchema)]
pub struct InteractiveHeaderObject {
    #[serde(rename = "type")]
    pub type_: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<HeaderFileObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub video: Option<HeaderFileObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<HeaderFileObject>,
}

/// A header file: an upload of this organization (`POST /api/v1/media`); its kind must be the header's.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct HeaderFileObject {
    #[schema(example = "med_01JD0000000000000000000000")]
    pub media_id: String,
    /// Documents only: the name the recipient sees (default: the upload's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
}

/// What the message asks: `buttons` (button), `button` + `sections` (list), `name` + `parameters` (cta_url,
/// send_location, flow).
#[derive(Debug, Clone, Default, PartialEq, Serialize, ToSchema)]
pub struct InteractiveActionObject {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buttons: Option<Vec<ReplyButtonObject>>,
    /// The list's button text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub button: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sections: Option<Vec<SectionObject>>,
    /// `cta_url`, `send_location` or `flow`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters: Option<ActionParametersObject>,
}

/// `{"type": "reply", "reply": {"id", "title"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ReplyButtonObject {
    #[serde(rename = "type")]
    pub type_: String,
    pub reply: ReplyObject,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ReplyObject {
    /// ≤ 256 characters, unique in the message.
    pub id: String,
    /// ≤ 20 characters, unique in the message.
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SectionObject {
    /// ≤ 24 characters; required when there are several sections.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub rows: Vec<RowObject>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct RowObject {
    pub id: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A CTA URL button's (`display_text`, `url`) or a Flow's parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ToSchema)]
pub struct ActionParametersObject {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_message_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_cta: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_token: Option<String>,
    /// `published` (default) or `draft`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// `navigate` (default) or `data_exchange`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_action_payload: Option<FlowPayloadObject>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct FlowPayloadObject {
    pub screen: String,
    /// A non-empty JSON object: the first screen's input.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub data: Option<serde_json::Value>,
}

fn header(header: &InteractiveHeader) -> InteractiveHeaderObject {
    match header {
        InteractiveHeader::Text(text) => InteractiveHeaderObject {
            type_: "text".into(),
            text: Some(text.as_str().to_owned()),
            ..InteractiveHeaderObject::default()
        },
        InteractiveHeader::Media(media) => {
            let file = Some(HeaderFileObject {
                media_id: match &media.source {
                    MediaSource::Stored(id) => id.to_string(),
                    MediaSource::Link(link) => link.as_str().to_owned(),
                    MediaSource::Upload => String::new(),
                },
                filename: media.filename.as_ref().map(|f| f.as_str().to_owned()),
            });
            let mut object = InteractiveHeaderObject {
                type_: media.kind.as_str().to_owned(),
                ..InteractiveHeaderObject::default()
            };
            match media.kind {
                herald_domain::attachment::MediaKind::Image => object.image = file,
                herald_domain::attachment::MediaKind::Video => object.video = file,
                herald_domain::attachment::MediaKind::Document => object.document = file,
                // The interactive parser takes only image, video and document headers.
                herald_domain::attachment::MediaKind::Audio
                | herald_domain::attachment::MediaKind::Sticker => {}
            }
            object
        }
    }
}

fn action(action: &InteractiveAction) -> InteractiveActionObject {
    let named = |name: &str, parameters: Option<ActionParametersObject>| InteractiveActionObject {
        name: Some(name.to_owned()),
        parameters,
        ..InteractiveActionObject::default()
    };
    match action {
        InteractiveAction::Buttons(buttons) => InteractiveActionObject {
            buttons: Some(
                buttons
                    .iter()
                    .map(|b| ReplyButtonObject {
                        type_: "reply".into(),
                        reply: ReplyObject {
                            id: b.id.as_str().to_owned(),
                            title: b.title.as_str().to_owned(),
                        },
                    })
                    .collect(),
            ),
            ..InteractiveActionObject::default()
        },
        InteractiveAction::List { button, sections } => InteractiveActionObject {
            button: Some(button.as_str().to_owned()),
            sections: Some(
                sections
                    .iter()
                    .map(|s| SectionObject {
                        title: s.title.as_ref().map(|t| t.as_str().to_owned()),
                        rows: s
                            .rows
                            .iter()
                            .map(|r| RowObject {
                                id: r.id.as_str().to_owned(),
                                title: r.title.as_str().to_owned(),
                                description: r.description.as_ref().map(|d| d.as_str().to_owned()),
                            })
                            .collect(),
                    })
                    .collect(),
            ),
            ..InteractiveActionObject::default()
        },
        InteractiveAction::CtaUrl { display_text, url } => named(
            "cta_url",
            Some(ActionParametersObject {
                display_text: Some(display_text.as_str().to_owned()),
                url: Some(url.as_str().to_owned()),
                ..ActionParametersObject::default()
            }),
        ),
        InteractiveAction::LocationRequest => named("send_location", None),
        InteractiveAction::Flow(flow) => {
            let (flow_id, flow_name) = match &flow.flow {
                FlowRef::Id(id) => (Some(id.as_str().to_owned()), None),
                FlowRef::Name(name) => (None, Some(name.as_str().to_owned())),
            };
            let (flow_action, flow_action_payload) = match &flow.action {
                FlowAction::Navigate { screen, data } => (
                    "navigate",
                    Some(FlowPayloadObject {
                        screen: screen.as_str().to_owned(),
                        data: data.as_deref().and_then(|d| serde_json::from_str(d).ok()),
                    }),
                ),
                FlowAction::DataExchange => ("data_exchange", None),
            };
            named(
                "flow",
                Some(ActionParametersObject {
                    flow_message_version: Some("3".into()),
                    flow_id,
                    flow_name,
                    flow_cta: Some(flow.cta.as_str().to_owned()),
                    flow_token: flow.token.as_ref().map(|t| t.as_str().to_owned()),
                    mode: flow.draft.then(|| "draft".to_owned()),
                    flow_action: Some(flow_action.to_owned()),
                    flow_action_payload,
                    ..ActionParametersObject::default()
                }),
            )
        }
    }
}

impl From<&Interactive> for InteractiveObject {
    fn from(message: &Interactive) -> Self {
        let text_object = |t: &herald_domain::interactive::Text| TextObject {
            text: t.as_str().to_owned(),
        };
        Self {
            type_: message.action.wire_type().to_owned(),
            header: message.header.as_ref().map(header),
            body: message.body.as_ref().map(text_object),
            footer: message.footer.as_ref().map(text_object),
            action: action(&message.action),
        }
    }
}

/// A place (Meta's `location` object); the coordinates in decimal degrees.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct LocationObject {
    #[schema(example = -33.8688)]
    pub latitude: f64,
    #[schema(example = 151.2093)]
    pub longitude: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
}

impl From<&Location> for LocationObject {
    fn from(location: &Location) -> Self {
        Self {
            latitude: location.latitude.value(),
            longitude: location.longitude.value(),
            name: text(location.name.as_ref()),
            address: text(location.address.as_ref()),
        }
    }
}

/// A contact card (Meta's `contacts[i]`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ContactObject {
    pub name: ContactNameObject,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phones: Option<Vec<ContactPhoneObject>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emails: Option<Vec<ContactEmailObject>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub urls: Option<Vec<ContactUrlObject>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub addresses: Option<Vec<ContactAddressObject>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub org: Option<ContactOrgObject>,
    /// `YYYY-MM-DD`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub birthday: Option<String>,
}

/// `formatted_name` and at least one other part.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ContactNameObject {
    pub formatted_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub middle_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suffix: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ContactPhoneObject {
    pub phone: String,
    /// `HOME`, `WORK`, …
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ContactEmailObject {
    pub email: String,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ContactUrlObject {
    pub url: String,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, ToSchema)]
pub struct ContactAddressObject {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub street: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zip: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country_code: Option<String>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ContactOrgObject {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub company: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub department: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

fn listed<T>(entries: &[CardEntry], make: impl Fn(String, Option<String>) -> T) -> Option<Vec<T>> {
    (!entries.is_empty()).then(|| {
        entries
            .iter()
            .map(|e| make(e.value.as_str().to_owned(), text(e.label.as_ref())))
            .collect()
    })
}

fn address(address: &CardAddress) -> ContactAddressObject {
    ContactAddressObject {
        street: text(address.street.as_ref()),
        city: text(address.city.as_ref()),
        state: text(address.state.as_ref()),
        zip: text(address.zip.as_ref()),
        country: text(address.country.as_ref()),
        country_code: text(address.country_code.as_ref()),
        type_: text(address.label.as_ref()),
    }
}

impl From<&ContactCard> for ContactObject {
    fn from(card: &ContactCard) -> Self {
        Self {
            name: ContactNameObject {
                formatted_name: text(card.name.formatted_name.as_ref()),
                first_name: text(card.name.first_name.as_ref()),
                last_name: text(card.name.last_name.as_ref()),
                middle_name: text(card.name.middle_name.as_ref()),
                prefix: text(card.name.prefix.as_ref()),
                suffix: text(card.name.suffix.as_ref()),
            },
            phones: listed(&card.phones, |phone, type_| ContactPhoneObject { phone, type_ }),
            emails: listed(&card.emails, |email, type_| ContactEmailObject { email, type_ }),
            urls: listed(&card.urls, |url, type_| ContactUrlObject { url, type_ }),
            addresses: (!card.addresses.is_empty()).then(|| card.addresses.iter().map(address).collect()),
            org: card.org.as_ref().map(|org| ContactOrgObject {
                company: text(org.company.as_ref()),
                department: text(org.department.as_ref()),
                title: text(org.title.as_ref()),
            }),
            birthday: text(card.birthday.as_ref()),
        }
    }
}

/// A reaction: the Herald id of the message reacted to, and the emoji (empty: the reaction was removed).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ReactionResource {
    #[schema(example = "msg_01JD0000000000000000000000")]
    pub message_id: String,
    #[schema(example = "👍")]
    pub emoji: String,
}

impl From<&Reaction> for ReactionResource {
    fn from(reaction: &Reaction) -> Self {
        Self {
            message_id: reaction.target.message.to_string(),
            emoji: reaction.emoji.as_str().to_owned(),
        }
    }
}

// ---- documented request shapes -------------------------------------------------------------------

/// `POST /api/v1/messages/send-interactive`: Meta's `interactive` object at the top level, with `to`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "to": "+15551234567",
    "type": "button",
    "body": {"text": "Did the parcel arrive?"},
    "action": {"buttons": [
        {"type": "reply", "reply": {"id": "yes", "title": "Yes"}},
        {"type": "reply", "reply": {"id": "no", "title": "No"}}
    ]}
}))]
pub struct SendInteractiveRequest {
    pub to: String,
    /// `button`, `list`, `cta_url`, `location_request_message` or `flow`.
    #[serde(rename = "type")]
    pub type_: String,
    /// Text for every kind; image, video or document (by `media_id`) for `button` and `cta_url`.
    pub header: Option<InteractiveHeaderObject>,
    /// Required: ≤ 1,024 characters (≤ 4,096 for a list).
    pub body: TextObject,
    /// ≤ 60 characters; not for `location_request_message`.
    pub footer: Option<TextObject>,
    pub action: InteractiveActionObject,
    pub from: Option<String>,
    pub client_reference: Option<String>,
    /// A `msg_…` or `inb_…` id of this conversation.
    pub reply_to: Option<String>,
}

/// `POST /api/v1/messages/send-reaction`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"to": "+15551234567", "message_id": "inb_01JD0000000000000000000000", "emoji": "👍"}))]
pub struct SendReactionRequest {
    pub to: String,
    /// The message reacted to: a `msg_…` or `inb_…` id of this conversation that has its network id.
    pub message_id: String,
    /// One emoji; empty removes the reaction given before.
    pub emoji: String,
    pub from: Option<String>,
    pub client_reference: Option<String>,
    pub reply_to: Option<String>,
}

/// `POST /api/v1/messages/send-location`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"to": "+15551234567", "latitude": -33.8688, "longitude": 151.2093, "name": "Opera House"}))]
pub struct SendLocationRequest {
    pub to: String,
    /// −90 to 90 (a number, or a string of one).
    pub latitude: f64,
    /// −180 to 180.
    pub longitude: f64,
    /// ≤ 1,000 characters.
    pub name: Option<String>,
    /// ≤ 1,000 characters.
    pub address: Option<String>,
    pub from: Option<String>,
    pub client_reference: Option<String>,
    pub reply_to: Option<String>,
}

/// `POST /api/v1/messages/send-contacts`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"to": "+15551234567", "contacts": [
    {"name": {"formatted_name": "Ana Díaz", "first_name": "Ana"}, "phones": [{"phone": "+15550001111", "type": "WORK"}]}
]}))]
pub struct SendContactsRequest {
    pub to: String,
    /// 1 to 20 cards.
    pub contacts: Vec<ContactObject>,
    pub from: Option<String>,
    pub client_reference: Option<String>,
    pub reply_to: Option<String>,
}
