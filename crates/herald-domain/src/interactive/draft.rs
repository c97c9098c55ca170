//! The client's interactive object as it arrived, before [`super::Interactive::parse`] checks it.

/// The client's interactive object before it is checked, field for field as Meta names them. Adapters fill
/// it from their wire format; [`Interactive::parse`] checks it whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InteractiveDraft {
    /// `button`, `list`, `cta_url`, `location_request_message` or `flow`.
    pub kind: String,
    pub header: Option<HeaderDraft>,
    pub body: Option<String>,
    pub footer: Option<String>,
    pub action: ActionDraft,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeaderDraft {
    /// `text`, `image`, `video` or `document`.
    pub kind: String,
    pub text: Option<String>,
    /// Under `header.<kind>.media_id`.
    pub media_id: Option<String>,
    /// Documents only: under `header.document.filename`.
    pub filename: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionDraft {
    /// `action.buttons[i]`: (`type`, `reply.id`, `reply.title`).
    pub buttons: Option<Vec<ButtonDraft>>,
    /// `action.button`: the list's button text.
    pub button: Option<String>,
    pub sections: Option<Vec<SectionDraft>>,
    /// `action.name`: `cta_url`, `send_location` or `flow`.
    pub name: Option<String>,
    /// `action.parameters.*`.
    pub parameters: ParametersDraft,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ButtonDraft {
    pub kind: Option<String>,
    pub id: Option<String>,
    pub title: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SectionDraft {
    pub title: Option<String>,
    pub rows: Vec<RowDraft>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowDraft {
    pub id: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParametersDraft {
    pub display_text: Option<String>,
    pub url: Option<String>,
    pub flow_message_version: Option<String>,
    pub flow_id: Option<String>,
    pub flow_name: Option<String>,
    pub flow_cta: Option<String>,
    pub flow_token: Option<String>,
    /// `published` (the default) or `draft`.
    pub mode: Option<String>,
    /// `navigate` (the default) or `data_exchange`.
    pub flow_action: Option<String>,
    pub screen: Option<String>,
    /// `flow_action_payload.data`, as JSON text; `Some` only when the client sent an object.
    pub data: Option<String>,
    /// `flow_action_payload.data` was present but not a JSON object, or an empty one.
    pub data_not_an_object: bool,
}

use super::{FlowAction, FlowRef, Interactive, InteractiveAction, InteractiveHeader, Text};
use crate::attachment::MediaSource;

fn owned(text: &Text) -> Option<String> {
    Some(text.as_str().to_owned())
}

impl Interactive {
    /// The draft this message parses from: [`Interactive::parse`] of it gives the message back. Adapters that
    /// keep a message (the store) write this form and check it again when they read it.
    pub fn to_draft(&self) -> InteractiveDraft {
        let header = self.header.as_ref().map(|header| match header {
            InteractiveHeader::Text(text) => HeaderDraft {
                kind: "text".into(),
                text: owned(text),
                ..HeaderDraft::default()
            },
            InteractiveHeader::Media(media) => HeaderDraft {
                kind: media.kind.as_str().into(),
                text: None,
                // A header file is always an upload (`parse` makes it one); anything else cannot be written
                // back and is refused when read, never guessed.
                media_id: match &media.source {
                    MediaSource::Stored(id) => Some(id.to_string()),
                    MediaSource::Link(_) | MediaSource::Upload => None,
                },
                filename: media.filename.as_ref().map(|f| f.as_str().to_owned()),
            },
        });
        let mut action = ActionDraft::default();
        match &self.action {
            InteractiveAction::Buttons(buttons) => {
                action.buttons = Some(
                    buttons
                        .iter()
                        .map(|b| ButtonDraft {
                            kind: Some("reply".into()),
                            id: owned(&b.id),
                            title: owned(&b.title),
                        })
                        .collect(),
                );
            }
            InteractiveAction::List { button, sections } => {
                action.button = owned(button);
                action.sections = Some(
                    sections
                        .iter()
                        .map(|section| SectionDraft {
                            title: section.title.as_ref().and_then(owned),
                            rows: section
                                .rows
                                .iter()
                                .map(|row| RowDraft {
                                    id: owned(&row.id),
                                    title: owned(&row.title),
                                    description: row.description.as_ref().and_then(owned),
                                })
                                .collect(),
                        })
                        .collect(),
                );
            }
            InteractiveAction::CtaUrl { display_text, url } => {
                action.name = Some("cta_url".into());
                action.parameters.display_text = owned(display_text);
                action.parameters.url = owned(url);
            }
            InteractiveAction::LocationRequest => action.name = Some("send_location".into()),
            InteractiveAction::Flow(flow) => {
                action.name = Some("flow".into());
                let p = &mut action.parameters;
                p.flow_message_version = Some("3".into());
                match &flow.flow {
                    FlowRef::Id(id) => p.flow_id = owned(id),
                    FlowRef::Name(name) => p.flow_name = owned(name),
                }
                p.flow_cta = owned(&flow.cta);
                p.flow_token = flow.token.as_ref().and_then(owned);
                p.mode = flow.draft.then(|| "draft".into());
                match &flow.action {
                    FlowAction::Navigate { screen, data } => {
                        p.flow_action = Some("navigate".into());
                        p.screen = owned(screen);
                        p.data.clone_from(data);
                    }
                    FlowAction::DataExchange => p.flow_action = Some("data_exchange".into()),
                }
            }
        }
        InteractiveDraft {
            kind: self.action.wire_type().into(),
            header,
            body: self.body.as_ref().and_then(owned),
            footer: self.footer.as_ref().and_then(owned),
            action,
        }
    }
}
