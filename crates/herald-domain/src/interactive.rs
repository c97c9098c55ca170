//! Interactive messages (docs/api.md §14.1): reply buttons, lists, a CTA URL button, a location request and a
//! Flow, each with Meta's limits checked before anything is stored.
//!
//! Clients write the object in Meta's shape, so a field error names the path they wrote
//! (`action.buttons[2].reply.title`). Every limit below is one Meta documents; a message Herald accepts is
//! one the network cannot refuse for its shape. The sources, per limit, are in the constants' comments.

use crate::attachment::MediaAttachment;

/// Meta, "Interactive reply buttons messages": body ≤ 1,024, footer ≤ 60, text header ≤ 60, 1–3 buttons,
/// button id ≤ 256, button title ≤ 20. The same body limit holds for CTA URL, location request and Flow
/// messages ("Interactive CTA URL button messages", "Location request messages", "Flows messages").
pub const BODY_MAX: usize = 1024;
/// Meta, "Interactive list messages": the body of a list may hold up to 4,096 characters.
pub const LIST_BODY_MAX: usize = 4096;
pub const HEADER_TEXT_MAX: usize = 60;
pub const FOOTER_MAX: usize = 60;
pub const BUTTONS_MAX: usize = 3;
pub const BUTTON_ID_MAX: usize = 256;
pub const BUTTON_TITLE_MAX: usize = 20;
/// Meta, "Interactive list messages": the list button ≤ 20, up to 10 sections, up to 10 rows across all
/// sections, row id ≤ 200, row title ≤ 24, row description ≤ 72, section title ≤ 24 (required when there is
/// more than one section).
pub const LIST_BUTTON_MAX: usize = 20;
pub const SECTIONS_MAX: usize = 10;
pub const ROWS_MAX: usize = 10;
pub const ROW_ID_MAX: usize = 200;
pub const ROW_TITLE_MAX: usize = 24;
pub const ROW_DESCRIPTION_MAX: usize = 72;
pub const SECTION_TITLE_MAX: usize = 24;
/// Meta, "Interactive CTA URL button messages": the button's `display_text` ≤ 20.
pub const CTA_DISPLAY_TEXT_MAX: usize = 20;
/// Meta, "Flows messages" (`flow_cta`): at most 20 characters, no emoji in the button text. Some of Meta's
/// pages have said 30; Herald holds to the stricter figure so no accepted message is refused later.
pub const FLOW_CTA_MAX: usize = 20;
/// Meta's URL fields take at most 2,000 characters in practice; a longer one is refused here, not there.
pub const URL_MAX: usize = 2000;

/// A piece of text that passed its field's limits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Text(String);

impl Text {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An interactive message, valid by construction ([`Interactive::parse`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interactive {
    pub header: Option<InteractiveHeader>,
    pub body: Option<Text>,
    pub footer: Option<Text>,
    pub action: InteractiveAction,
}

/// What sits above the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InteractiveHeader {
    Text(Text),
    /// An image, video or document uploaded to Herald.
    Media(MediaAttachment),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyButton {
    pub id: Text,
    pub title: Text,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListRow {
    pub id: Text,
    pub title: Text,
    pub description: Option<Text>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListSection {
    pub title: Option<Text>,
    pub rows: Vec<ListRow>,
}

/// Whether a Flow opens on a screen Herald names or asks the business's endpoint first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlowAction {
    /// Opens `screen`, with optional input data (a JSON object, kept as the client wrote it).
    Navigate {
        screen: Text,
        data: Option<String>,
    },
    DataExchange,
}

/// Which Flow: Meta takes either its id or its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlowRef {
    Id(Text),
    Name(Text),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flow {
    pub flow: FlowRef,
    pub cta: Text,
    pub token: Option<Text>,
    /// `true` sends a draft Flow (Meta's `mode: draft`), for testing.
    pub draft: bool,
    pub action: FlowAction,
}

/// What the message asks the recipient to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InteractiveAction {
    Buttons(Vec<ReplyButton>),
    List {
        button: Text,
        sections: Vec<ListSection>,
    },
    CtaUrl {
        display_text: Text,
        url: Text,
    },
    LocationRequest,
    Flow(Flow),
}

impl InteractiveAction {
    /// Meta's `interactive.type`.
    pub fn wire_type(&self) -> &'static str {
        match self {
            Self::Buttons(_) => "button",
            Self::List { .. } => "list",
            Self::CtaUrl { .. } => "cta_url",
            Self::LocationRequest => "location_request_message",
            Self::Flow(_) => "flow",
        }
    }
}

mod draft;
mod parse;
pub use draft::{
    ActionDraft, ButtonDraft, HeaderDraft, InteractiveDraft, ParametersDraft, RowDraft, SectionDraft,
};

#[cfg(test)]
mod tests;
