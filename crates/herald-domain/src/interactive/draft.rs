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
